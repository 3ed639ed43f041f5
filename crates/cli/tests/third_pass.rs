//! The third adversarial pass of issue 16 (results/adversarial-pass-3-2026-11-30.md):
//! one test per problem it found in `profile`, named after it. (Its record
//! folder findings are tested in `timeline.rs`.)

mod support;

use std::path::Path;

use assert_cmd::Command;
use support::stand_in_ncu;

fn roofline() -> Command {
    let mut c = Command::cargo_bin("roofline").unwrap();
    c.env("NO_COLOR", "1");
    c
}

/// An ncu that fails before profiling anything: its messages, no report.
fn failing_ncu(dir: &Path) -> std::path::PathBuf {
    let capture = dir.join("failed.csv");
    std::fs::write(&capture, "==PROF== Connected to process 4242 (/usr/bin/true)\n==ERROR== An error was reported by the driver\n==ERROR== Failed to profile \"kernel\" in process 4242\n").unwrap();
    stand_in_ncu(dir, &capture)
}

/// M1: a failed run replaced a good capture saved earlier with ncu's log
/// lines; L4: the error then named a folder that was already removed.
#[test]
fn a_profile_that_profiled_nothing_keeps_an_earlier_save_csv_and_the_log_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let ncu = failing_ncu(dir.path());
    let saved = dir.path().join("saved.csv");
    let earlier =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/ncu/h200_seed000_profile.csv"))
            .unwrap();
    std::fs::write(&saved, &earlier).unwrap();
    let o = roofline()
        .arg("profile")
        .arg("--ncu")
        .arg(&ncu)
        .arg("--save-csv")
        .arg(&saved)
        .args(["--", "true"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(std::fs::read(&saved).unwrap(), earlier, "the capture saved earlier is untouched");
    assert!(err.contains("not written, ncu profiled no kernel"), "{err}");
    // The folder the messages name is still there (ncu wrote no report in
    // it, as a real ncu that profiled nothing does not), with the log kept.
    let named: Vec<&str> = err
        .split_whitespace()
        .map(|w| w.trim_matches(|c| matches!(c, '(' | ')' | ',' | ';' | ':' | '`')))
        .filter(|w| w.starts_with('/') && w.contains("roofline-ncu-"))
        .collect();
    assert!(!named.is_empty(), "the kept log is named: {err}");
    for path in &named {
        let folder = Path::new(path).parent().unwrap();
        assert!(folder.is_dir(), "{path} is named in the message but its folder is gone: {err}");
    }
    let kept = err.split("ncu's CSV is kept at ").nth(1).and_then(|r| r.split_whitespace().next()).expect("kept at");
    let log = std::fs::read_to_string(kept).unwrap();
    assert!(log.contains("Failed to profile"), "ncu's messages are in the kept log: {log}");
    let _ = std::fs::remove_dir_all(Path::new(kept).parent().unwrap());
}

/// L2: a symbolic link planted under one of tour's file names sent the
/// analysis out of its folder, over another file.
#[test]
fn tour_refuses_a_link_in_its_folder_that_leads_out_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    let out_dir = dir.path().join("t");
    std::fs::create_dir(&out_dir).unwrap();
    std::os::unix::fs::symlink("../victim.txt", out_dir.join("analysis.json")).unwrap();
    let o = roofline().current_dir(dir.path()).args(["tour", "--bundled", "--out-dir", "t"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("analysis.json is a symbolic link to ../victim.txt, outside the folder"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    // A link that stays inside the folder is followed as before.
    std::fs::remove_file(out_dir.join("analysis.json")).unwrap();
    std::fs::write(out_dir.join("mine.json"), "old").unwrap();
    std::os::unix::fs::symlink("mine.json", out_dir.join("analysis.json")).unwrap();
    let o = roofline().current_dir(dir.path()).args(["tour", "--bundled", "--out-dir", "t"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::read_to_string(out_dir.join("mine.json")).unwrap().contains("roofline.analysis"));
}
