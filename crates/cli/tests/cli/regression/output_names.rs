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
    let out = work.join("x.csv");
    // A table of an earlier run, already there: the run's own output.
    let (code, err) = run(&[OsStr::new("import"), os(&cap), OsStr::new("-o"), os(&out)]);
    assert_eq!(code, 0, "{err}");
    let header = std::fs::read_to_string(work.join("x.opportunities.csv")).unwrap().lines().next().unwrap().to_string();
    std::fs::write(work.join("x.opportunities.csv"), format!("{header}\nold run\n")).unwrap();
    std::fs::remove_file(&out).unwrap();
    std::fs::remove_file(work.join("x.roof.csv")).unwrap();
    std::fs::remove_file(work.join("x.facts.csv")).unwrap();
    std::os::unix::fs::symlink("../victim/notes.csv", work.join("x.roof.csv")).unwrap();

    let (code, err) = run(&[OsStr::new("import"), os(&cap), OsStr::new("-o"), os(&out)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("x.roof.csv") && err.contains("symbolic link"), "{err}");
    assert!(err.contains("remove"), "the message says how to fix it: {err}");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "precious", "the link was followed out of the folder");
    assert!(!out.exists(), "-o was written before the refusal");
    assert!(std::fs::read_to_string(work.join("x.opportunities.csv")).unwrap().contains("old run"));

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
    assert!(!std::fs::read_to_string(work.join("x.opportunities.csv")).unwrap().contains("old run"));
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

/// Runs `roofline report ANALYSIS` in `dir` with stdout on a pseudo-terminal
/// (the case where the page goes to `./roofline-report.html`): exit code, stderr.
fn report_on_a_terminal(dir: &Path, analysis: &Path) -> (i32, String) {
    use std::os::fd::{FromRawFd, OwnedFd};
    let (mut leader, mut follower) = (0, 0);
    // SAFETY: openpty fills two descriptors this test owns from here on.
    let rc =
        unsafe { libc::openpty(&mut leader, &mut follower, std::ptr::null_mut(), std::ptr::null(), std::ptr::null()) };
    assert_eq!(rc, 0, "openpty failed");
    // SAFETY: both descriptors were just opened and are owned once each.
    let (leader, follower) = unsafe { (OwnedFd::from_raw_fd(leader), OwnedFd::from_raw_fd(follower)) };
    let out = std::process::Command::new(crate::support::bin())
        .env("NO_COLOR", "1")
        .current_dir(dir)
        .arg("report")
        .arg(analysis)
        .stdout(std::process::Stdio::from(follower))
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    drop(leader);
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Hardening (issue 27), item 1: `report a.json` on a terminal wrote
/// `./roofline-report.html` through a planted link, and over any file of
/// that name.
#[test]
fn the_default_report_file_is_never_written_through_a_link_nor_over_a_foreign_file() {
    let dir = tempfile::tempdir().unwrap();
    let cap = capture(dir.path());
    let analysis = dir.path().join("a.json");
    let (code, err) = run(&[OsStr::new("import"), os(&cap), OsStr::new("-o"), os(&analysis)]);
    assert_eq!(code, 0, "{err}");
    let page = dir.path().join("roofline-report.html");

    // A link shipped under that name (to a dotfile, and a dangling one).
    let victim = dir.path().join("bashrc");
    std::fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, &page).unwrap();
    let (code, err) = report_on_a_terminal(dir.path(), &analysis);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("roofline-report.html") && err.contains("symbolic link") && err.contains("-o"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    std::fs::remove_file(&page).unwrap();
    std::os::unix::fs::symlink(dir.path().join("new-file"), &page).unwrap();
    let (code, err) = report_on_a_terminal(dir.path(), &analysis);
    assert_eq!(code, 2, "{err}");
    assert!(!dir.path().join("new-file").exists(), "the dangling link was followed");
    std::fs::remove_file(&page).unwrap();

    // A plain file the user wrote is not replaced.
    std::fs::write(&page, "<html>my own notes</html>").unwrap();
    let (code, err) = report_on_a_terminal(dir.path(), &analysis);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("roofline-report.html") && err.contains("not written by roofline"), "{err}");
    assert!(err.contains("give -o FILE"), "the message names the fix: {err}");
    assert_eq!(std::fs::read_to_string(&page).unwrap(), "<html>my own notes</html>");

    // No file: written; an earlier run's page: replaced.
    std::fs::remove_file(&page).unwrap();
    let (code, err) = report_on_a_terminal(dir.path(), &analysis);
    assert_eq!(code, 0, "{err}");
    let first = std::fs::read_to_string(&page).unwrap();
    assert!(first.contains("<meta name=\"generator\" content=\"roofline "), "not a page");
    std::fs::write(&page, first.replace("</html>", "<!-- old --></html>")).unwrap();
    let (code, err) = report_on_a_terminal(dir.path(), &analysis);
    assert_eq!(code, 0, "{err}");
    assert!(!std::fs::read_to_string(&page).unwrap().contains("<!-- old -->"), "the earlier page was kept");
}

/// Hardening (issue 27), item 1: `-o out.csv` replaced unrelated files named
/// `out.facts.csv`, `out.roof.csv`, ... without a word.
#[test]
fn side_tables_beside_o_never_replace_a_file_roofline_did_not_write() {
    let dir = tempfile::tempdir().unwrap();
    let cap = capture(dir.path());
    let out = dir.path().join("out.csv");
    for table in ["facts", "roof", "verdicts", "opportunities"] {
        let side = dir.path().join(format!("out.{table}.csv"));
        std::fs::write(&side, "name,amount\nrent,1200\n").unwrap();
        let (code, err) = run(&[OsStr::new("import"), os(&cap), OsStr::new("-o"), os(&out)]);
        assert_eq!(code, 2, "{table}: {err}");
        assert!(err.contains(&format!("out.{table}.csv")) && err.contains("not written by roofline"), "{err}");
        assert!(err.contains("give -o another name"), "{err}");
        assert_eq!(std::fs::read_to_string(&side).unwrap(), "name,amount\nrent,1200\n", "{table} was replaced");
        assert!(!out.exists(), "-o was written before the refusal ({table})");
        std::fs::remove_file(&side).unwrap();
    }
    // The tool's own tables, from an earlier run (and an empty file), are replaced.
    let (code, err) = run(&[OsStr::new("import"), os(&cap), OsStr::new("-o"), os(&out)]);
    assert_eq!(code, 0, "{err}");
    let roof = dir.path().join("out.roof.csv");
    let header = std::fs::read_to_string(&roof).unwrap().lines().next().unwrap().to_string();
    std::fs::write(&roof, format!("{header}\nstale,row\n")).unwrap();
    std::fs::write(dir.path().join("out.facts.csv"), "").unwrap();
    let (code, err) = run(&[OsStr::new("import"), os(&cap), OsStr::new("-o"), os(&out)]);
    assert_eq!(code, 0, "{err}");
    assert!(!std::fs::read_to_string(&roof).unwrap().contains("stale,row"));
    assert!(!std::fs::read_to_string(dir.path().join("out.facts.csv")).unwrap().is_empty());
}

/// Hardening (issue 27), an earlier harness: `--save-csv` at a name the
/// tables beside `-o FILE.csv` take was noticed only after profiling.
#[test]
fn save_csv_at_a_side_table_name_of_o_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let ncu = crate::support::script(dir.path(), "ncu", &format!("touch {}\nexit 1", marker.display()));
    let out = roofline()
        .current_dir(dir.path())
        .args(["profile", "--one-pass", "--ncu"])
        .arg(&ncu)
        .args(["-o", "out.csv", "--save-csv", "out.roof.csv", "--", "true"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--save-csv out.roof.csv") && err.contains("-o out.csv"), "{err}");
    assert!(!marker.exists(), "ncu ran before the refusal");
}

/// Hardening (issue 27), an earlier harness: `RANK=3 WORLD_SIZE=2` was accepted.
#[test]
fn a_rank_past_the_world_size_is_refused_where_the_output_name_depends_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["model", "--gpu", "h200", "-k", "k: flops=1e9 bytes=1e9 time=1ms", "-o", "m.json"];
    let out = roofline().current_dir(dir.path()).env("RANK", "3").env("WORLD_SIZE", "2").args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("RANK=\"3\"") && err.contains("WORLD_SIZE=2"), "{err}");
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none(), "a file was written");
}
