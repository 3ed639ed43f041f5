//! `roofline profile` owns ncu and the program (issue 16, item 10): a
//! timeout, signals to the tool forwarded, the kernels profiled so far
//! analysed, no temporary file left behind. A stand-in ncu (a shell script)
//! writes a recorded capture to its --log-file and runs the program.
//! These run `--one-pass`; the two-pass stops are in `profile::two_pass`.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use assert_cmd::Command;

use crate::support::{alive, fixture, stand_in_ncu};

fn leftovers(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into()).collect()
}

/// `roofline profile --one-pass` of `sh -c PROGRAM` through the stand-in
/// ncu, started in the background (to be signalled).
fn spawn_profile(tmp: &Path, ncu: &Path, program: &str, stderr: Stdio) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_roofline"))
        .env("NO_COLOR", "1")
        .env("TMPDIR", tmp)
        .args(["profile", "--one-pass", "--format", "json", "--ncu"])
        .arg(ncu)
        .args(["--", "/bin/sh", "-c", program])
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap()
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
    let child = spawn_profile(&tmp, &ncu, &program, Stdio::piped());
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

#[test]
fn program_helpers_that_ignore_sigint_do_not_survive_an_interrupted_profile() {
    if !Path::new("/proc/self/stat").exists() || !Path::new("/usr/bin/setsid").exists() {
        eprintln!("SKIPPED: needs /proc and /usr/bin/setsid");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let ncu = stand_in_ncu(dir.path(), &fixture("h200_seed000_metrics.csv"));
    let pids = dir.path().join("pids");
    // The program ignores SIGINT and leaves two helpers that ignore SIGINT
    // and SIGTERM: one in its group, one that left it (setsid).
    let helper = r#"trap '' INT TERM; echo $$ >> "$0"; while true; do sleep 0.05; done"#;
    let program = format!(
        "trap '' INT; sh -c '{helper}' {p} & /usr/bin/setsid sh -c '{helper}' {p} & while true; do sleep 0.05; done",
        p = pids.display()
    );
    let child = spawn_profile(&tmp, &ncu, &program, Stdio::null());
    let t = Instant::now();
    while std::fs::read_to_string(&pids).map(|s| s.lines().count()).unwrap_or(0) < 2 {
        assert!(t.elapsed() < Duration::from_secs(20), "the helpers never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    let helpers: Vec<i32> = std::fs::read_to_string(&pids).unwrap().lines().map(|l| l.parse().unwrap()).collect();
    let t = Instant::now();
    // SAFETY: signals the tool we started (its pid only, as a CI runner does).
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    // SIGINT, then SIGTERM and SIGKILL one grace (5 s) apart.
    assert!(t.elapsed() < Duration::from_secs(14), "{:?}", t.elapsed());
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!doc["kernels"].as_array().unwrap().is_empty(), "the kernels profiled so far are analysed");
    let survivors: Vec<i32> = helpers.into_iter().filter(|&p| alive(p)).collect();
    for &p in &survivors {
        // SAFETY: a helper this test started; not left behind on failure.
        unsafe { libc::kill(p, libc::SIGKILL) };
    }
    assert!(survivors.is_empty(), "helpers survived the interrupted profile: {survivors:?}");
    assert!(leftovers(&tmp).is_empty(), "ncu's log removed: {:?}", leftovers(&tmp));
}
