//! `roofline profile` owns ncu and the program (issue 16, item 10): a
//! timeout, signals to the tool forwarded, the kernels profiled so far
//! analysed, no temporary file left behind. A stand-in ncu (a shell script)
//! writes a recorded capture to its --log-file and runs the program.
//! These run `--one-pass`; the two-pass stops are in profile_two_pass.rs.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use assert_cmd::Command;

mod support;
use support::stand_in_ncu;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/ncu").join(name)
}

fn leftovers(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into()).collect()
}

#[test]
fn profile_timeout_stops_ncu_and_the_program_and_analyses_what_was_profiled() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let ncu = stand_in_ncu(dir.path(), &fixture("h200_seed000_metrics.csv"));
    let t = Instant::now();
    let out = Command::cargo_bin("roofline")
        .unwrap()
        .env("NO_COLOR", "1")
        .env("TMPDIR", &tmp)
        .args(["profile", "--one-pass", "--timeout", "1s", "--format", "json", "--ncu"])
        .arg(&ncu)
        .args(["--", "sleep", "60"])
        .timeout(Duration::from_secs(30))
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--timeout reached"), "{stderr}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!doc["kernels"].as_array().unwrap().is_empty(), "the kernels profiled so far are analysed");
    assert!(leftovers(&tmp).is_empty(), "ncu's log removed: {:?}", leftovers(&tmp));
}

#[test]
fn sigterm_to_profile_is_forwarded_and_nothing_is_orphaned() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let ncu = stand_in_ncu(dir.path(), &fixture("h200_seed000_metrics.csv"));
    let marker = dir.path().join("still-running");
    // The "program" touches a file while it runs.
    let program = format!("while true; do touch {}; sleep 0.05; done", marker.display());
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_roofline"))
        .env("NO_COLOR", "1")
        .env("TMPDIR", &tmp)
        .args(["profile", "--one-pass", "--format", "json", "--ncu"])
        .arg(&ncu)
        .args(["--", "/bin/sh", "-c", &program])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !marker.exists() {
        assert!(t.elapsed() < Duration::from_secs(20), "the program never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: signals the tool we started (its pid only, as a CI runner does).
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("interrupted (SIGTERM)"), "{stderr}");
    std::thread::sleep(Duration::from_millis(300));
    std::fs::remove_file(&marker).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert!(!marker.exists(), "the program outlived the tool");
    assert!(leftovers(&tmp).is_empty(), "ncu's log removed: {:?}", leftovers(&tmp));
}
