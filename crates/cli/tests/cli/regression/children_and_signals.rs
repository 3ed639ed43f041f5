//! The processes a run starts end with it: a signal to the tool, a
//! `--timeout`, a SIGKILL of the tool leave no ncu or program behind.

use std::time::{Duration, Instant};

use crate::support::{alive, roofline, script};

/// Adversarial pass 4.
/// H3, P1: `import x.ncu-rep` waited for an `ncu --import` that never
/// returned, and a SIGTERM to the tool's PID alone left ncu running.
#[test]
fn a_signal_to_import_stops_an_ncu_that_never_returns() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("ncu.pid");
    let ncu = script(dir.path(), "ncu", &format!("echo $$ > '{}'\nexec sleep 300", pid_file.display()));
    let report = dir.path().join("r.ncu-rep");
    std::fs::write(&report, b"not really a report").unwrap();
    let exe = assert_cmd::cargo::cargo_bin("roofline");
    let mut tool = std::process::Command::new(exe)
        .args(["import", "--ncu"])
        .arg(&ncu)
        .arg(&report)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !pid_file.exists() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let ncu_pid: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    // SAFETY: signals the tool this test started.
    unsafe {
        libc::kill(tool.id() as i32, libc::SIGTERM);
    }
    let stopped = Instant::now();
    let status = tool.wait().unwrap();
    assert!(stopped.elapsed() < Duration::from_secs(20), "the tool took {:?} to stop", stopped.elapsed());
    assert!(!status.success());
    let start = Instant::now();
    while alive(ncu_pid) && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(ncu_pid), "ncu ({ncu_pid}) outlived the tool");
    let mut said = String::new();
    std::io::Read::read_to_string(&mut tool.stderr.take().unwrap(), &mut said).unwrap();
    assert!(said.contains("was stopped by SIGTERM"), "{said}");
}

/// Adversarial pass 4.
/// H1, left open by the fourth pass: the 20 s bound on `ncu
/// --query-metrics` (and `ncu --help`, `nvidia-smi`) did not shrink to a
/// shorter `--timeout`, so `profile --timeout 3s` with a query that never
/// answers ran 20 s before it even started ncu. `--timeout` bounds the
/// whole run now, the questions included.
#[test]
fn a_short_timeout_bounds_the_questions_to_ncu_too() {
    let dir = tempfile::tempdir().unwrap();
    // Hangs when asked its metrics and when profiling; reads back nothing.
    let ncu = script(dir.path(), "ncu", "case \"$1\" in --import) exit 1;; esac\nexec sleep 300");
    let start = Instant::now();
    let out = roofline()
        .args(["profile", "--one-pass", "--timeout", "3s", "--ncu"])
        .arg(&ncu)
        .args(["--", "/bin/true"])
        .env("PATH", "/usr/bin:/bin")
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let took = start.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(took < Duration::from_secs(15), "profile --timeout 3s took {took:?}: {err}");
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--timeout"), "{err}");
}

/// Adversarial pass 5.
/// F4: `kill -KILL` of the tool during `profile`
/// left ncu's children (with a real ncu, the program being profiled)
/// running, reparented to init, and the temporary folder in $TMPDIR. A
/// SIGKILL reaches no handler: a watchdog holding a pipe from the tool now
/// stops the group and removes the folder when the pipe closes.
/// CI (2 loaded cores) then killed the tool after ncu had started but
/// before its watchdog had been told the folder, which stayed: the
/// watchdog now gets the folders before the child exists.
#[test]
fn a_killed_profile_leaves_no_process_and_no_temporary_folder() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let pid_file = dir.path().join("grandchild.pid");
    let ncu = dir.path().join("ncu");
    // Answers the questions at once; profiling, it starts a child and waits.
    let body = format!(
        "#!/bin/sh\ncase \"$1\" in --query-metrics|--help) exit 1;; esac\nsleep 300 &\necho $! > '{}'\nwait\n",
        pid_file.display()
    );
    std::fs::write(&ncu, body).unwrap();
    std::fs::set_permissions(&ncu, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut tool = std::process::Command::new(assert_cmd::cargo::cargo_bin("roofline"))
        .args(["profile", "--one-pass", "-q", "--ncu"])
        .arg(&ncu)
        .args(["--", "/bin/true"])
        .env("TMPDIR", &tmp)
        .env("PATH", "/usr/bin:/bin")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while std::fs::read_to_string(&pid_file).map_or(true, |s| s.trim().is_empty()) {
        assert!(start.elapsed() < std::time::Duration::from_secs(30), "the stand-in ncu never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let grandchild: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    let folders = std::fs::read_dir(&tmp).unwrap().count();
    assert_eq!(folders, 1, "ncu's private folder is in TMPDIR while it runs");
    tool.kill().unwrap(); // SIGKILL
    tool.wait().unwrap();
    let start = std::time::Instant::now();
    let leftovers =
        || std::fs::read_dir(&tmp).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name()).collect::<Vec<_>>();
    // The watchdog gives the group 2 s after SIGTERM; a full test run on
    // two cores has once kept it from finishing in 10 s.
    while (alive(grandchild) || !leftovers().is_empty()) && start.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let waited = start.elapsed();
    assert!(!alive(grandchild), "ncu's child ({grandchild}) outlived the killed tool by {waited:?}");
    assert!(leftovers().is_empty(), "left in TMPDIR after {waited:?}: {:?}", leftovers());
}
