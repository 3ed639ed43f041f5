//! What a command writes into a folder it is given (`occupancy --svg-dir`,
//! `tour --out-dir`): no link followed out of it, a file or a device given
//! as the folder refused, and nothing replaced before a refusal.

use std::path::Path;

use assert_cmd::Command;

use crate::support::roofline;

fn occupancy_svgs(dir: &Path) -> Command {
    let mut c = roofline();
    c.args(["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--sweep", "all", "-q", "--svg-dir"])
        .arg(dir);
    c
}

/// Adversarial pass 3.
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

/// Adversarial pass 5.
/// F1: a symbolic link planted in `--svg-dir` under one of the chart names
/// was followed, and the file it pointed to, outside the folder, was
/// overwritten with the chart (a dangling link created a file out there).
#[test]
fn a_link_planted_in_the_svg_folder_is_refused_not_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let charts = dir.path().join("charts");
    std::fs::create_dir(&charts).unwrap();
    let outside = dir.path().join("precious.txt");
    std::fs::write(&outside, "keep").unwrap();
    std::os::unix::fs::symlink(&outside, charts.join("occupancy-block.svg")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("new.txt"), charts.join("occupancy-regs.svg")).unwrap();
    let out = occupancy_svgs(&charts).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("occupancy-block.svg") && err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep");
    assert!(!dir.path().join("new.txt").exists(), "a dangling link created a file outside the folder");
    assert!(!charts.join("occupancy-smem.svg").exists(), "a chart was written before the refusal");
    // Without the links, all three are written.
    std::fs::remove_file(charts.join("occupancy-block.svg")).unwrap();
    std::fs::remove_file(charts.join("occupancy-regs.svg")).unwrap();
    occupancy_svgs(&charts).assert().success();
    for name in ["occupancy-block.svg", "occupancy-regs.svg", "occupancy-smem.svg"] {
        assert!(std::fs::read_to_string(charts.join(name)).unwrap().starts_with("<svg"), "{name}");
    }
}

/// Adversarial pass 5.
/// F12: `--svg-dir FILE` and `tour --out-dir /dev/null` failed with exit 1
/// and only "File exists (os error 17)".
#[test]
fn a_file_given_as_the_output_folder_is_named_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, "x").unwrap();
    let out = occupancy_svgs(&file).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--svg-dir") && err.contains("is a file, not a folder"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
    let out = roofline().args(["tour", "--bundled", "-q", "--out-dir", "/dev/null"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--out-dir /dev/null") && err.contains("not a folder"), "{err}");
}

/// Adversarial pass 5.
/// F8: a FIFO under one of the tour's file names stopped the tour halfway,
/// after analysis.json and examples.ncu.csv had been replaced: the folder
/// held half a new tour and half an old one.
#[test]
fn a_tour_folder_it_cannot_fill_is_refused_before_anything_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("analysis.json"), "keep").unwrap();
    std::fs::write(dir.path().join("examples.ncu.csv"), "keep").unwrap();
    let fifo = dir.path().join("machine.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("SKIPPED: mkfifo is not available here");
        return;
    }
    let out = roofline().args(["tour", "--bundled", "-q", "--out-dir"]).arg(dir.path()).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("machine.json") && err.contains("not a regular file"), "{err}");
    for name in ["analysis.json", "examples.ncu.csv"] {
        assert_eq!(std::fs::read_to_string(dir.path().join(name)).unwrap(), "keep", "{name} was replaced");
    }
}
