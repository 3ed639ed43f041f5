//! Standard output and standard error closed, full or broken: no panic,
//! the output file still written, lost results said to be lost; and no
//! escape sequence from an input reaches the terminal in a message.

use std::io::Read;
use std::path::Path;
use std::process::{Command as Process, Stdio};

use crate::support::{bin, fixture, roofline, s, skip};

/// Hardening (issue 16), item 4.
#[test]
fn warnings_into_a_closed_stderr_pipe_do_not_panic_and_the_output_file_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a.json");
    let mut child = Process::new(bin())
        .args(["import", s(&fixture("h200_seed000_metrics.csv")), "-o", s(&out)])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{status}");
    assert!(std::fs::read_to_string(&out).unwrap().contains("roofline.analysis/v2"));
}

/// Hardening (issue 16), item 4.
#[test]
fn warnings_on_a_full_disk_do_not_panic() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return skip("/dev/full is not available");
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a.json");
    let status = Process::new(bin())
        .args(["import", s(&fixture("h200_seed000_metrics.csv")), "-o", s(&out)])
        .stdout(Stdio::null())
        .stderr(full)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0), "{status}");
    assert!(out.exists());
}

/// Hardening (issue 16), item 4.
#[test]
fn a_broken_stdout_pipe_is_a_clean_exit() {
    let mut child = Process::new(bin())
        .args(["import", s(&fixture("h200_seed000_full.csv")), "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked") && !err.contains("error:"), "{err}");
}

/// Hardening (issue 16), item 4.
#[test]
fn closed_stdout_is_an_error_and_the_output_file_is_still_written() {
    if !Path::new("/proc/self/fd").exists() {
        return skip("no /proc: a closed stdout is only detected on Linux");
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a.json");
    let cmd = format!(
        "exec '{}' import '{}' -o '{}' >&-",
        bin().display(),
        fixture("h200_seed000_metrics.csv").display(),
        out.display()
    );
    let o = Process::new("sh").args(["-c", &cmd]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("standard output is closed"), "{err}");
    assert!(std::fs::read_to_string(&out).unwrap().contains("roofline.analysis/v2"));
}

/// Adversarial pass 2, F13 (full stdout).
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

/// Adversarial pass 4.
/// T1: an escape sequence in a file name (or a machine name, or a record
/// of a timeline) reached the terminal raw in error messages and warnings.
#[test]
fn messages_on_stderr_carry_no_escape_sequence_from_their_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let evil = dir.path().join("\x1b]0;pwned\x07\x1b[31mcap.csv");
    let out = roofline().arg("import").arg(&evil).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("cap.csv") && !said.contains('\x1b') && !said.contains('\x07'), "{said:?}");
}
