//! The fifth adversarial pass of issue 16 (results/adversarial-pass-5-2026-11-30.md):
//! its findings about the files a command writes besides `-o` (`occupancy
//! --svg-dir`, `tour --out-dir`, temporary folders), what `check` passes and
//! the processes a killed run leaves, one test per problem, named after it.

use std::path::Path;

use assert_cmd::Command;

mod support;
use support::alive;

fn roofline() -> Command {
    let mut c = Command::cargo_bin("roofline").unwrap();
    c.env("NO_COLOR", "1");
    c
}

fn occupancy_svgs(dir: &Path) -> Command {
    let mut c = roofline();
    c.args(["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--sweep", "all", "-q", "--svg-dir"])
        .arg(dir);
    c
}

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

/// F5: `check` against a baseline that shares no kernel with the analysis
/// exited 0 ("check passed: 0 rule(s) held"), a warning aside: a CI gate
/// whose baseline went stale passed unseen.
#[test]
fn a_check_that_judged_nothing_fails_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, spec: &str| {
        let path = dir.path().join(name);
        roofline()
            .args(["model", "--gpu", "h200", "--kernel", spec, "--format", "json", "-q", "-o"])
            .arg(&path)
            .assert()
            .success();
        path
    };
    let now = write("now.json", "renamed: flops=1e9 bytes=1e8 time=1ms");
    let base = write("base.json", "original: flops=1e9 bytes=1e8 time=1ms");
    let out = roofline()
        .arg("check")
        .arg(&now)
        .arg("--baseline")
        .arg(&base)
        .args(["--max-regression", "5"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("nothing was judged") && err.contains("--allow-empty"), "{err}");
    let out = roofline()
        .arg("check")
        .arg(&now)
        .arg("--baseline")
        .arg(&base)
        .args(["--max-regression", "5", "--format", "json"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["passed"], false, "the document says what the exit code says");
    let out = roofline()
        .arg("check")
        .arg(&now)
        .arg("--baseline")
        .arg(&base)
        .args(["--max-regression", "5", "--allow-empty"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // A check that judges something is unchanged.
    roofline().arg("check").arg(&now).arg("--baseline").arg(&now).args(["--max-regression", "5"]).assert().success();
}

/// F4: `kill -KILL` of the tool during `profile`
/// left ncu's children (with a real ncu, the program being profiled)
/// running, reparented to init, and the temporary folder in $TMPDIR. A
/// SIGKILL reaches no handler: a watchdog holding a pipe from the tool now
/// stops the group and removes the folder when the pipe closes.
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
    while (alive(grandchild) || !leftovers().is_empty()) && start.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!alive(grandchild), "ncu's child ({grandchild}) outlived the killed tool");
    assert!(leftovers().is_empty(), "left in TMPDIR: {:?}", leftovers());
}

/// F19: `-o` naming the roofline binary itself replaced the running
/// program with the analysis (the next command run was a JSON file).
#[test]
fn the_tool_refuses_to_write_over_its_own_binary() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("roofline");
    std::fs::copy(assert_cmd::cargo::cargo_bin("roofline"), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let capture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/ncu/h200_seed000_profile.csv");
    let out = std::process::Command::new(&copy).args(["import", "-q", "-o"]).arg(&copy).arg(&capture).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("this roofline program itself"), "{err}");
    assert!(std::fs::read(&copy).unwrap() == before, "the binary was replaced");
}

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
