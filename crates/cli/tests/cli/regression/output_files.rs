//! The file `-o` (or `--save-csv`, `--svg`) names: written into a device or
//! a FIFO rather than replacing it, through a link, with the mode it had,
//! under a long or an odd name, and the results kept when it cannot be
//! written.

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command as Process;
use std::time::{Duration, Instant};

use crate::support::{bin, fixture, json, roofline, run, run_in, s, skip, stand_in_ncu, two_analyses};

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// An ncu that fails before profiling anything: its messages, no report.
fn failing_ncu(dir: &Path) -> std::path::PathBuf {
    let capture = dir.join("failed.csv");
    std::fs::write(&capture, "==PROF== Connected to process 4242 (/usr/bin/true)\n==ERROR== An error was reported by the driver\n==ERROR== Failed to profile \"kernel\" in process 4242\n").unwrap();
    stand_in_ncu(dir, &capture)
}

/// Hardening (issue 16), item 1.
#[test]
fn output_to_a_device_writes_into_it_instead_of_replacing_it() {
    if !is_root() {
        return skip("needs root to create a device node (mknod); the FIFO test covers special files");
    }
    let dir = tempfile::tempdir().unwrap();
    let null = dir.path().join("null");
    let ok = Process::new("mknod").arg(&null).args(["c", "1", "3"]).status().map(|s| s.success()).unwrap_or(false);
    if !ok {
        return skip("mknod could not create a character device here");
    }
    let (code, _, err) = run(&["model", "--gpu", "h200", "--kernel", "k: flops=1 bytes=12", "-o", s(&null)]);
    assert_eq!(code, 0, "{err}");
    let m = std::fs::symlink_metadata(&null).unwrap();
    assert!(m.file_type().is_char_device(), "the device node was replaced by a {:?}", m.file_type());
    assert_eq!(m.rdev(), std::fs::metadata("/dev/null").unwrap().rdev());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "a temporary file was left behind");
}

/// Hardening (issue 16), item 1.
#[test]
fn output_to_a_fifo_writes_into_it_instead_of_replacing_it() {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.json");
    let ok = Process::new("mkfifo").arg(&fifo).status().map(|s| s.success()).unwrap_or(false);
    if !ok {
        return skip("mkfifo is not available");
    }
    // A reader that does not block: it reads whatever arrives for 20 s at most.
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(&fifo).unwrap();
            let mut got = Vec::new();
            let start = Instant::now();
            let mut buf = [0u8; 65536];
            while start.elapsed() < Duration::from_secs(20) {
                match f.read(&mut buf) {
                    Ok(0) if !got.is_empty() => break,
                    Ok(0) => std::thread::sleep(Duration::from_millis(20)),
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(5))
                    }
                    Err(e) => panic!("{e}"),
                }
            }
            got
        })
    };
    std::thread::sleep(Duration::from_millis(100));
    let (code, _, err) =
        run(&["model", "--gpu", "h200", "--kernel", "k: flops=1 bytes=12", "--format", "json", "-o", s(&fifo)]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "the FIFO was replaced");
    let got = reader.join().unwrap();
    assert!(String::from_utf8_lossy(&got).contains("roofline.analysis/v2"), "nothing came through the FIFO");
}

/// Hardening (issue 16), item 1.
#[test]
fn output_to_dev_stdout_comes_before_the_data_on_stdout() {
    if !Path::new("/dev/stdout").exists() {
        return skip("no /dev/stdout");
    }
    let dir = tempfile::tempdir().unwrap();
    let both = dir.path().join("both.txt");
    let cmd = format!(
        "ln -s /dev/stdout '{link}'; '{bin}' model --gpu h200 --kernel 'k: flops=1 bytes=12 time=1us' --format csv -o '{link}' -q > '{both}'",
        link = dir.path().join("out.json").display(),
        bin = bin().display(),
        both = both.display()
    );
    let o = Process::new("sh").args(["-c", &cmd]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&both).unwrap();
    // The JSON file first (through the link), then the CSV on stdout.
    let json_at = text.find("roofline.analysis/v2").expect("the -o file is missing");
    let csv_at = text.find("id,name").expect("the stdout data are missing");
    assert!(json_at < csv_at, "{text}");
}

/// Hardening (issue 16), item 1.
#[test]
fn output_through_a_symlink_replaces_the_file_it_points_to() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.json");
    std::fs::write(&real, "old").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink("real.json", &link).unwrap();
    let (code, _, err) = run(&["model", "--gpu", "h200", "--kernel", "k: flops=1 bytes=12", "-o", s(&link)]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the symlink was replaced");
    assert!(std::fs::read_to_string(&real).unwrap().contains("roofline.analysis/v2"));
}

/// Hardening (issue 16), item 1.
#[test]
fn output_keeps_the_mode_and_owner_of_the_file_it_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("private.json");
    std::fs::write(&out, "old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).unwrap();
    let owner = if is_root() {
        std::os::unix::fs::chown(&out, Some(65534), Some(65534)).unwrap();
        Some((65534, 65534))
    } else {
        skip("not root: the owner part of this test (chown) is not checked, the mode part is");
        None
    };
    let (code, _, err) = run(&["model", "--gpu", "h200", "--kernel", "k: flops=1 bytes=12", "-o", s(&out)]);
    assert_eq!(code, 0, "{err}");
    let m = std::fs::metadata(&out).unwrap();
    assert_eq!(m.mode() & 0o7777, 0o600, "mode {:o}", m.mode() & 0o7777);
    if let Some((uid, gid)) = owner {
        assert_eq!((m.uid(), m.gid()), (uid, gid));
    }
    assert!(std::fs::read_to_string(&out).unwrap().contains("roofline.analysis/v2"));
}

/// Hardening (issue 16), item 1.
#[test]
fn output_with_a_250_character_name_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("{}.json", "a".repeat(245));
    let out = dir.path().join(&name);
    let (code, _, err) = run(&["model", "--gpu", "h200", "--kernel", "k: flops=1 bytes=12", "-o", s(&out)]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(&out).unwrap().contains("roofline.analysis/v2"));
}

/// Hardening (issue 16), item 10 (its data-loss part).
#[test]
fn profile_keeps_and_prints_the_analysis_when_save_csv_fails() {
    let dir = tempfile::tempdir().unwrap();
    let ncu = stand_in_ncu(dir.path(), &fixture("h200_seed000_exit3.csv"));
    let o = roofline()
        .arg("profile")
        .arg("--ncu")
        .arg(&ncu)
        .args(["--format", "json", "--save-csv", "/nonexistent/dir/cap.csv", "--", "true"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let doc = json(&String::from_utf8_lossy(&o.stdout));
    assert_eq!(doc["kernels"].as_array().unwrap().len(), 2);
    assert!(err.contains("/nonexistent/dir/cap.csv"), "{err}");
    // ncu's CSV is kept where the message says.
    let kept = err
        .split_whitespace()
        .find(|w| w.ends_with(".csv") && w.contains("roofline"))
        .map(|w| w.trim_matches(|c| c == '(' || c == ')' || c == ',' || c == ';'));
    let kept = kept.unwrap_or_else(|| panic!("no kept CSV named in {err}"));
    assert_eq!(std::fs::read(kept).unwrap(), std::fs::read(fixture("h200_seed000_exit3.csv")).unwrap());
    let _ = std::fs::remove_dir_all(Path::new(kept).parent().unwrap());
}

/// Hardening (issue 16), item 10 (its data-loss part).
#[test]
fn profile_keeps_and_prints_the_analysis_when_the_output_file_fails() {
    let dir = tempfile::tempdir().unwrap();
    let ncu = stand_in_ncu(dir.path(), &fixture("h200_seed000_exit3.csv"));
    let o = roofline()
        .arg("profile")
        .arg("--ncu")
        .arg(&ncu)
        .args(["--format", "json", "-o", "/nonexistent/dir/a.json", "--", "true"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let doc = json(&String::from_utf8_lossy(&o.stdout));
    assert_eq!(doc["kernels"].as_array().unwrap().len(), 2);
    assert!(err.contains("/nonexistent/dir/a.json"), "{err}");
}

/// Adversarial pass 2, F2.
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

/// Adversarial pass 2, F14.
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

/// Adversarial pass 2, F2: guards against an intermediate version of its fix.
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

/// Adversarial pass 2, F13 (`-o -`).
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

/// Adversarial pass 3.
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
