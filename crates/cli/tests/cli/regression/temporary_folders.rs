//! The private folder a run keeps ncu's files in: not at a predictable
//! name, and not left behind when there is nothing in it to keep.

use std::path::PathBuf;

use crate::support::{fixture, roofline, stand_in_ncu};

/// Hardening (issue 16), item 2.
#[test]
fn profile_keeps_ncu_log_in_a_private_folder() {
    let dir = tempfile::tempdir().unwrap();
    let ncu = stand_in_ncu(dir.path(), &fixture("h200_seed000_exit3.csv"));
    roofline().arg("profile").arg("--ncu").arg(&ncu).args(["--", "true"]).assert().success();
    let args = std::fs::read_to_string(dir.path().join("ncu-args")).unwrap();
    let args: Vec<&str> = args.lines().collect();
    let log = PathBuf::from(args[args.iter().position(|a| *a == "--log-file").unwrap() + 1]);
    let folder = log.parent().unwrap();
    assert_ne!(folder, std::env::temp_dir(), "ncu's log is at a predictable name in the shared temp folder: {log:?}");
    assert!(!log.to_string_lossy().contains(&format!("-{}", std::process::id())));
    assert!(!folder.exists(), "the private folder {folder:?} was left behind");
}

/// Adversarial pass 5.
/// F17: an ncu that died before writing anything left its empty private
/// folder in $TMPDIR ("ncu's CSV is kept at …", about an empty file), one
/// more folder for every such failed run.
#[test]
fn an_ncu_that_wrote_nothing_leaves_no_folder_behind() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let ncu = dir.path().join("ncu");
    std::fs::write(&ncu, "#!/bin/sh\ncase \"$1\" in --query-metrics|--help) exit 1;; esac\nkill -SEGV $$\n").unwrap();
    std::fs::set_permissions(&ncu, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = roofline()
        .args(["profile", "--one-pass", "--ncu"])
        .arg(&ncu)
        .args(["-o", "p.json", "--", "/bin/true"])
        .current_dir(dir.path())
        .env("TMPDIR", &tmp)
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(1 | 2)), "{err}");
    assert!(!err.contains("is kept at") && err.contains("nothing of its run was kept"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}\n{err}");
}

/// Hardening (issue 27), item 5: a missing `TMPDIR` gave "No such file or
/// directory … at path", naming neither the variable nor the fix.
#[test]
fn a_missing_tmpdir_is_named_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let ncu = stand_in_ncu(dir.path(), &fixture("h200_seed000_exit3.csv"));
    let missing = dir.path().join("no-such-tmp");
    let out = roofline()
        .args(["profile", "--one-pass", "--ncu"])
        .arg(&ncu)
        .args(["--", "true"])
        .env("TMPDIR", &missing)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(err.contains(&format!("TMPDIR={}", missing.display())) && err.contains("does not exist"), "{err}");
    assert!(err.contains("set TMPDIR to a folder that exists"), "the fix is named: {err}");
}
