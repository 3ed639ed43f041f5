//! The files `-o` writes are the names the user gave, and the side tables
//! beside `-o FILE.csv` (names the user never typed) stay in that folder;
//! a launcher's rank matters only where the `-o` name depends on it.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::support::{fixture, roofline};

/// Runs the tool: exit code, stderr.
fn run(args: &[&OsStr]) -> (i32, String) {
    let out = Command::cargo_bin("roofline").unwrap().env("NO_COLOR", "1").args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn os(p: &Path) -> &OsStr {
    p.as_os_str()
}

/// A copy of a real capture in `dir`.
fn capture(dir: &Path) -> PathBuf {
    let cap = dir.join("cap.csv");
    std::fs::copy(fixture("h200_seed000_metrics.csv"), &cap).unwrap();
    cap
}

/// Adversarial pass 4, O1.
#[test]
fn side_tables_beside_o_do_not_follow_a_planted_symlink_out_of_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let cap = capture(dir.path());
    let work = dir.path().join("work");
    let victim = dir.path().join("victim");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&victim).unwrap();
    let notes = victim.join("notes.csv");
    std::fs::write(&notes, "precious").unwrap();
    std::os::unix::fs::symlink("../victim/notes.csv", work.join("x.roof.csv")).unwrap();
    // A table of an earlier run, already there: the run's own output.
    std::fs::write(work.join("x.opportunities.csv"), "old run").unwrap();
    let out = work.join("x.csv");

    let (code, err) = run(&[OsStr::new("import"), os(&cap), OsStr::new("-o"), os(&out)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("x.roof.csv") && err.contains("symbolic link"), "{err}");
    assert!(err.contains("remove"), "the message says how to fix it: {err}");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "precious", "the link was followed out of the folder");
    assert!(!out.exists(), "-o was written before the refusal");
    assert_eq!(std::fs::read_to_string(work.join("x.opportunities.csv")).unwrap(), "old run");

    // A dangling link (it would create a file wherever it points) too.
    std::fs::remove_file(work.join("x.roof.csv")).unwrap();
    std::os::unix::fs::symlink("../victim/new.csv", work.join("x.facts.csv")).unwrap();
    let (code, err) = run(&[OsStr::new("import"), os(&cap), OsStr::new("-o"), os(&out)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("x.facts.csv"), "{err}");
    assert!(!victim.join("new.csv").exists());

    // Without the link, the earlier table is replaced, as the run's own output.
    std::fs::remove_file(work.join("x.facts.csv")).unwrap();
    let (code, err) = run(&[OsStr::new("import"), os(&cap), OsStr::new("-o"), os(&out)]);
    assert_eq!(code, 0, "{err}");
    assert_ne!(std::fs::read_to_string(work.join("x.opportunities.csv")).unwrap(), "old run");
    assert!(std::fs::read_to_string(work.join("x.roof.csv")).unwrap().contains(','));
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "precious");
}

/// Adversarial pass 4, O2.
#[test]
fn a_non_utf8_output_name_writes_exactly_that_name_and_no_other() {
    let dir = tempfile::tempdir().unwrap();
    let cap = capture(dir.path());
    let analysis = dir.path().join("a.json");
    let (code, err) = run(&[OsStr::new("import"), os(&cap), OsStr::new("-o"), os(&analysis)]);
    assert_eq!(code, 0, "{err}");
    // The name a lossy conversion of `\xff.json` gives, already there.
    let lossy = dir.path().join("\u{FFFD}.json");
    std::fs::write(&lossy, "someone else's").unwrap();
    let exact = dir.path().join(OsStr::from_bytes(b"\xff.json"));

    let (code, err) = run(&[
        OsStr::new("report"),
        os(&analysis),
        OsStr::new("--format"),
        OsStr::new("json"),
        OsStr::new("-o"),
        os(&exact),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(&lossy).unwrap() == "someone else's", "another file was replaced");
    let written = std::fs::read_to_string(&exact).expect("the name given was not written");
    assert!(written.trim_start().starts_with('{'), "{written}");

    // The side tables of a non-UTF-8 FILE.csv keep its exact stem.
    let csv = dir.path().join(OsStr::from_bytes(b"\xfe.csv"));
    let (code, err) = run(&[OsStr::new("import"), os(&cap), OsStr::new("-o"), os(&csv)]);
    assert_eq!(code, 0, "{err}");
    assert!(csv.exists());
    assert!(dir.path().join(OsStr::from_bytes(b"\xfe.roof.csv")).exists(), "the side table lost its name");
    assert!(!dir.path().join("\u{FFFD}.roof.csv").exists());
}

/// Adversarial pass 2, F13 (stray `RANK`).
#[test]
fn a_stray_rank_variable_blocks_nothing_without_an_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["model", "--gpu", "h200", "-k", "k: flops=1e9 bytes=1e9 time=1ms"];
    let out = roofline().current_dir(dir.path()).env("RANK", "abc").args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("RANK=\"abc\"") && err.contains("ignored"), "{err}");
    // With -o the name may depend on the rank: still refused.
    let out = roofline().current_dir(dir.path()).env("RANK", "abc").args(args).args(["-o", "m.json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}
