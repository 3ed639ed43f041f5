//! The second adversarial pass of issue 16 (results/adversarial-pass-2-2026-11-30.md):
//! one test per problem it found, named after it. Tests that need Linux
//! special files say `SKIPPED: ...` where they cannot run.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::Command;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/ncu").join(name)
}

fn roofline() -> Command {
    let mut c = Command::cargo_bin("roofline").unwrap();
    c.env("NO_COLOR", "1");
    c
}

/// Runs the tool in `dir`: exit code, stdout, stderr.
fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = roofline().current_dir(dir).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn skip(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {why}");
}

/// Two analyses (the seed capture and the GEMM capture) in `dir`.
fn two_analyses(dir: &Path) -> (PathBuf, PathBuf) {
    let a = dir.join("a.json");
    let b = dir.join("b.json");
    for (capture, out) in [("h200_seed000_profile.csv", &a), ("h200_gemms_metrics.csv", &b)] {
        let (code, _, err) =
            run_in(dir, &["import", data(capture).to_str().unwrap(), "-q", "-o", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
    }
    (a, b)
}

#[test]
fn merge_refuses_to_overwrite_a_rank_file_or_its_machine() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_analyses(dir.path());
    let before = std::fs::read(&b).unwrap();
    // `merge job.rank*.json -o job.rank1.json`, spelled several ways.
    for target in ["b.json", "./b.json", b.to_str().unwrap()] {
        let (code, _, err) = run_in(dir.path(), &["merge", "a.json", "b.json", "-q", "-o", target]);
        assert_eq!(code, 2, "-o {target}: {err}");
        assert!(err.contains("also an input") && err.contains("RANK_FILE"), "{err}");
        assert_eq!(std::fs::read(&b).unwrap(), before, "-o {target} replaced a rank");
    }
    let (code, _, err) = run_in(dir.path(), &["peaks", "--gpu", "h200", "-q", "-o", "m.json"]);
    assert_eq!(code, 0, "{err}");
    let machine = std::fs::read(dir.path().join("m.json")).unwrap();
    let (code, _, err) =
        run_in(dir.path(), &["merge", "a.json", "b.json", "--machine", "m.json", "-q", "-o", "m.json"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--machine"), "{err}");
    assert_eq!(std::fs::read(dir.path().join("m.json")).unwrap(), machine);
    let _ = a;
}

#[test]
fn csv_side_tables_of_the_output_do_not_overwrite_an_input() {
    let dir = tempfile::tempdir().unwrap();
    // The capture happens to be named like the roofs table of `-o x.csv`.
    let capture = dir.path().join("x.roof.csv");
    std::fs::copy(data("h200_seed000_profile.csv"), &capture).unwrap();
    let before = std::fs::read(&capture).unwrap();
    let (code, _, err) = run_in(dir.path(), &["import", "x.roof.csv", "-q", "-o", "x.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("x.roof.csv") && err.contains("also an input"), "{err}");
    assert_eq!(std::fs::read(&capture).unwrap(), before, "the capture was replaced by a table");
    assert!(!dir.path().join("x.csv").exists(), "a file was written before the refusal");
    // An analysis named like the facts table, through report.
    let (a, _) = two_analyses(dir.path());
    std::fs::rename(&a, dir.path().join("y.facts.csv")).unwrap();
    let before = std::fs::read(dir.path().join("y.facts.csv")).unwrap();
    let (code, _, err) = run_in(dir.path(), &["report", "y.facts.csv", "-q", "-o", "y.csv"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::read(dir.path().join("y.facts.csv")).unwrap(), before);
    // Side tables that are not inputs are still written.
    let (code, _, err) = run_in(dir.path(), &["report", "y.facts.csv", "-q", "-o", "z.csv"]);
    assert_eq!(code, 0, "{err}");
    assert!(dir.path().join("z.roof.csv").exists());
}

#[test]
fn csv_output_to_a_device_writes_no_side_files_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = two_analyses(dir.path());
    // A character device in a folder of our own (mknod needs root), else a FIFO.
    let dev = dir.path().join("sink");
    let c = std::ffi::CString::new(dev.to_str().unwrap()).unwrap();
    // SAFETY: mknod on a path of our own temporary folder.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) } == 0;
    if !made {
        skip("cannot make a character device (not root): side files beside a device untested");
        return;
    }
    let (code, _, err) = run_in(dir.path(), &["report", a.to_str().unwrap(), "--format", "csv", "-o", "sink"]);
    assert_eq!(code, 0, "{err}");
    let beside: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("sink."))
        .collect();
    assert_eq!(beside, Vec::<String>::new(), "side files made beside a device");
    assert!(err.contains("not a regular file"), "{err}");
}

#[test]
fn report_and_merge_of_dev_zero_stop_quickly_with_bounded_memory() {
    if !Path::new("/dev/zero").exists() {
        skip("no /dev/zero");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = two_analyses(dir.path());
    for args in [
        vec!["report", "/dev/zero", "-q"],
        vec!["merge", a.to_str().unwrap(), "/dev/zero", "-q"],
        vec!["merge", "/dev/zero", a.to_str().unwrap(), "-q"],
    ] {
        let t = Instant::now();
        // Bounded by the test's own timeout: before the fix this grew past 3 GB.
        let out = roofline().args(&args).timeout(Duration::from_secs(20)).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("/dev/zero") && err.contains("binary"), "{args:?}: {err}");
        assert!(t.elapsed() < Duration::from_secs(10), "{args:?} took {:?}", t.elapsed());
    }
}

#[test]
fn check_against_a_baseline_without_durations_is_bad_input_not_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = two_analyses(dir.path());
    // A paper estimate (no time=) of kernels the analysis also has.
    let (code, _, err) = run_in(
        dir.path(),
        &[
            "model",
            "--gpu",
            "h200",
            "-k",
            "vecadd: flops=33554432 bytes=378477568",
            "-k",
            "saxpy: flops=67108864 bytes=365651712",
            "-q",
            "-o",
            "base.json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (code, out, err) =
        run_in(dir.path(), &["check", a.to_str().unwrap(), "--baseline", "base.json", "--max-regression", "10"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("base.json") && err.contains("no duration"), "{err}");
}

#[test]
fn results_lost_on_a_full_stdout_say_it_was_standard_output() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        skip("no /dev/full");
        return;
    };
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("roofline"))
        .args(["peaks", "--gpu", "h200", "-q"])
        .env("NO_COLOR", "1")
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("standard output") && err.contains("No space left"), "{err}");
}

#[test]
fn csv_side_tables_of_the_output_do_not_overwrite_the_saved_ncu_csv() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let capture = data("h200_seed000_profile.csv");
    // A stand-in ncu: copies the capture to its --log-file.
    let ncu = dir.path().join("ncu");
    let script = format!(
        "#!/bin/sh\n[ \"$1\" = \"--query-metrics\" ] && exit 1\nwhile [ $# -gt 0 ]; do [ \"$1\" = --log-file ] && cp \"{}\" \"$2\"; shift; done\n",
        capture.display()
    );
    std::fs::write(&ncu, script).unwrap();
    std::fs::set_permissions(&ncu, std::fs::Permissions::from_mode(0o755)).unwrap();
    // `--save-csv x.roof.csv -o x.csv`: the roofs table of x.csv is x.roof.csv.
    let (code, out, err) = run_in(
        dir.path(),
        &[
            "profile",
            "--ncu",
            ncu.to_str().unwrap(),
            "--one-pass",
            "--save-csv",
            "x.roof.csv",
            "-o",
            "x.csv",
            "--",
            "/bin/true",
        ],
    );
    assert_eq!(
        std::fs::read(dir.path().join("x.roof.csv")).unwrap(),
        std::fs::read(&capture).unwrap(),
        "the saved ncu CSV was replaced by a table (exit {code}): {err}"
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("x.roof.csv") && err.contains("--save-csv"), "{err}");
    assert!(out.contains("vecadd"), "the profile was not printed: {out}");
}

#[test]
fn diff_to_csv_writes_the_roofs_of_both_machines() {
    let dir = tempfile::tempdir().unwrap();
    // Two captures of two clocks: two machines, so two roof tables.
    let (a, b) = two_analyses(dir.path());
    let (code, _, err) = run_in(dir.path(), &["diff", a.to_str().unwrap(), b.to_str().unwrap(), "-o", "x.csv"]);
    assert_eq!(code, 0, "{err}");
    let roofs: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("x.") && n.ends_with("roof.csv"))
        .collect();
    assert_eq!(roofs.len(), 2, "one roof table replaced the other: {roofs:?}\n{err}");
    let texts: Vec<Vec<u8>> = roofs.iter().map(|n| std::fs::read(dir.path().join(n)).unwrap()).collect();
    assert_ne!(texts[0], texts[1]);
}

#[test]
fn report_svg_onto_an_existing_file_is_written_again() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = two_analyses(dir.path());
    for _ in 0..2 {
        let (code, _, err) =
            run_in(dir.path(), &["report", a.to_str().unwrap(), "-q", "--svg", "s.svg", "-o", "r.html"]);
        assert_eq!(code, 0, "{err}");
    }
    assert!(std::fs::read_to_string(dir.path().join("s.svg")).unwrap().starts_with("<svg"));
}

#[test]
fn output_dash_is_refused_instead_of_writing_a_file_named_dash() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) =
        run_in(dir.path(), &["model", "--gpu", "h200", "-k", "k: flops=1e9 bytes=1e9 time=1ms", "-o", "-"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("-o -") && err.contains("./-"), "{err}");
    assert!(!dir.path().join("-").exists());
    let (code, _, err) =
        run_in(dir.path(), &["model", "--gpu", "h200", "-k", "k: flops=1e9 bytes=1e9 time=1ms", "-o", "./-"]);
    assert_eq!(code, 0, "{err}");
    assert!(dir.path().join("-").exists());
}

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
