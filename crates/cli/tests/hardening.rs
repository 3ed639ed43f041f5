//! Hardening (issue 16): nothing lost, nothing hangs, nothing overwritten.
//! One test per reported problem, named after it. Tests that need root,
//! special files or a Linux `/proc` say `SKIPPED: ...` where they cannot run.

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;

mod support;
use support::stand_in_ncu;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/ncu").join(name)
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("roofline")
}

fn roofline() -> Command {
    let mut c = Command::cargo_bin("roofline").unwrap();
    c.env("NO_COLOR", "1");
    c
}

/// Runs the tool: exit code, stdout, stderr.
fn run(args: &[&str]) -> (i32, String, String) {
    let out = roofline().args(args).output().unwrap();
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

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// A raw ncu capture taken apart: lines before the header, header, units
/// row, launch rows; edited and written back as ncu writes it.
#[derive(Clone)]
struct Capture {
    preamble: Vec<String>,
    header: Vec<String>,
    units: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Capture {
    fn load(name: &str) -> Capture {
        let text = std::fs::read_to_string(fixture(name)).unwrap();
        let start = text.find("\"ID\"").unwrap();
        let preamble = text[..start].lines().map(str::to_string).collect();
        let mut rdr = csv::ReaderBuilder::new().has_headers(false).from_reader(&text.as_bytes()[start..]);
        let mut records = rdr.records().map(|r| r.unwrap().iter().map(str::to_string).collect::<Vec<_>>());
        let header = records.next().unwrap();
        let units = records.next().unwrap();
        Capture { preamble, header, units, rows: records.collect() }
    }

    fn col(&self, name: &str) -> usize {
        self.header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"))
    }

    fn set(&mut self, row: usize, column: &str, value: &str) {
        let c = self.col(column);
        self.rows[row][c] = value.to_string();
    }

    fn line(fields: &[String]) -> String {
        fields.iter().map(|f| format!("\"{}\"", f.replace('"', "\"\""))).collect::<Vec<_>>().join(",")
    }

    fn text(&self, with_units: bool) -> String {
        let mut s = String::new();
        for p in &self.preamble {
            s.push_str(p);
            s.push('\n');
        }
        s.push_str(&Capture::line(&self.header));
        s.push('\n');
        if with_units {
            s.push_str(&Capture::line(&self.units));
            s.push('\n');
        }
        for r in &self.rows {
            s.push_str(&Capture::line(r));
            s.push('\n');
        }
        s
    }

    fn write(&self, path: &Path) {
        std::fs::write(path, self.text(true)).unwrap();
    }
}

fn import_json(path: &Path, extra: &[&str]) -> (i32, Value, String) {
    let mut args = vec!["import", "--format", "json", s(path)];
    args.extend_from_slice(extra);
    let (code, out, err) = run(&args);
    let doc = if code == 0 { json(&out) } else { Value::Null };
    (code, doc, err)
}

fn kernel<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kernel"]["name"] == name)
        .unwrap_or_else(|| panic!("no kernel {name}"))
}

fn model_json(dir: &Path, name: &str, kernels: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let mut c = roofline();
    c.args(["model", "--gpu", "h200", "--format", "json"]);
    for k in kernels {
        c.args(["--kernel", k]);
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(&path, &out.stdout).unwrap();
    path
}

fn make_executable(path: &Path, script: &str) {
    std::fs::write(path, script).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

// ---------------------------------------------------------------- item 1

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

#[test]
fn output_with_a_250_character_name_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("{}.json", "a".repeat(245));
    let out = dir.path().join(&name);
    let (code, _, err) = run(&["model", "--gpu", "h200", "--kernel", "k: flops=1 bytes=12", "-o", s(&out)]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(&out).unwrap().contains("roofline.analysis/v2"));
}

#[test]
fn import_refuses_to_overwrite_its_own_capture() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("cap.csv");
    std::fs::copy(fixture("h200_seed000_metrics.csv"), &cap).unwrap();
    let before = std::fs::read(&cap).unwrap();
    let (code, _, err) = run(&["import", s(&cap), "-o", s(&cap)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cap.csv") && err.contains("input"), "{err}");
    assert_eq!(std::fs::read(&cap).unwrap(), before, "the capture was overwritten");
    // Through another spelling of the same file, and through a hard link.
    let link = dir.path().join("same.csv");
    std::fs::hard_link(&cap, &link).unwrap();
    let (code, _, _) = run(&["import", s(&cap), "-o", s(&link)]);
    assert_eq!(code, 2);
    let dotted = format!("{}/./cap.csv", dir.path().display());
    assert_eq!(run(&["import", s(&cap), "-o", &dotted]).0, 2);
    assert_eq!(std::fs::read(&cap).unwrap(), before);
}

#[test]
fn commands_refuse_to_overwrite_their_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let a = model_json(dir.path(), "a.json", &["k: flops=1 bytes=12 time=1us"]);
    let b = model_json(dir.path(), "b.json", &["k: flops=1 bytes=12 time=2us"]);
    let before = std::fs::read(&a).unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["report", s(&a), "-o", s(&a)],
        vec!["check", s(&a), "--min-pct-of-roof", "1", "-o", s(&a)],
        vec!["check", s(&b), "--baseline", s(&a), "--max-regression", "10", "-o", s(&a)],
        vec!["diff", s(&a), s(&b), "-o", s(&a)],
        vec!["model", "--machine", s(&a), "--kernel", "k: flops=1 bytes=12", "-o", s(&a)],
    ];
    for args in cases {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(std::fs::read(&a).unwrap(), before, "{args:?} overwrote its input");
    }
}

// ---------------------------------------------------------------- item 2

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

// ---------------------------------------------------------------- item 4

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

// ---------------------------------------------------------------- item 5

#[test]
fn launches_without_a_duration_do_not_inflate_the_percent_of_roof() {
    let dir = tempfile::tempdir().unwrap();
    let base = Capture::load("h200_seed000_metrics.csv");
    let (_, reference, _) = {
        let p = dir.path().join("ref.csv");
        base.write(&p);
        import_json(&p, &[])
    };
    let ref_pct = kernel(&reference, "vecadd")["pct_of_roof"].as_f64().unwrap();
    for bad in ["0", "n/a", ""] {
        let mut c = base.clone();
        // A third vecadd launch, same bytes, no usable duration.
        let mut extra = c.rows[0].clone();
        extra[0] = "24".into();
        c.rows.push(extra);
        let last = c.rows.len() - 1;
        c.set(last, "gpu__time_duration.sum", bad);
        let p = dir.path().join("c.csv");
        c.write(&p);
        let (code, doc, err) = import_json(&p, &[]);
        assert_eq!(code, 0, "{err}");
        let pct = kernel(&doc, "vecadd")["pct_of_roof"].as_f64().unwrap();
        assert!((pct - ref_pct).abs() < 0.5, "duration {bad:?}: {pct}% of roof, {ref_pct}% without the launch");
        assert!(err.contains("vecadd") && err.contains("gpu__time_duration.sum"), "{err}");
    }
}

#[test]
fn a_negative_duration_is_refused_with_its_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Capture::load("h200_seed000_metrics.csv");
    c.set(1, "gpu__time_duration.sum", "-58,368");
    let p = dir.path().join("neg.csv");
    c.write(&p);
    let (code, _, err) = import_json(&p, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("gpu__time_duration.sum") && err.contains("line 7") && err.contains("negative"), "{err}");
}

// ---------------------------------------------------------------- item 6

#[test]
fn a_line_appended_to_a_capture_is_not_a_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("cap.csv");
    let mut text = std::fs::read_to_string(fixture("h200_seed000_metrics.csv")).unwrap();
    text.push_str("done in 3.2 s\n");
    std::fs::write(&p, text).unwrap();
    let (code, doc, err) = import_json(&p, &[]);
    assert_eq!(code, 0, "{err}");
    let names: Vec<&str> =
        doc["kernels"].as_array().unwrap().iter().map(|k| k["kernel"]["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 11, "{names:?}");
    assert!(names.iter().all(|n| !n.is_empty()), "{names:?}");
    assert!(doc["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .all(|k| !k["kernel"]["display_name"].as_str().unwrap().contains('[')));
    assert!(err.contains("line 30") && err.contains("done in 3.2 s"), "{err}");
}

#[test]
fn two_captures_joined_with_cat_are_read_as_both_without_a_phantom_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("joined.csv");
    let one = std::fs::read_to_string(fixture("h200_seed000_metrics.csv")).unwrap();
    std::fs::write(&p, format!("{one}{one}")).unwrap();
    let (code, doc, err) = import_json(&p, &[]);
    assert_eq!(code, 0, "{err}");
    let kernels = doc["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), 11, "{kernels:?}");
    let (_, single, _) = import_json(&fixture("h200_seed000_metrics.csv"), &[]);
    for (k, s1) in kernels.iter().zip(single["kernels"].as_array().unwrap()) {
        assert_eq!(k["kernel"]["display_name"], s1["kernel"]["display_name"]);
        assert_eq!(k["kernel"]["id"], s1["kernel"]["id"]);
        assert_eq!(k["kernel"]["launches"].as_u64().unwrap(), 2 * s1["kernel"]["launches"].as_u64().unwrap());
    }
    assert!(err.contains("second header"), "{err}");
}

// ---------------------------------------------------------------- item 7

#[test]
fn a_counter_of_1e308_is_refused_with_its_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Capture::load("h200_seed000_metrics.csv");
    c.set(0, "dram__bytes.sum", "1e308");
    c.set(1, "dram__bytes.sum", "1e308");
    let p = dir.path().join("huge.csv");
    c.write(&p);
    let (code, _, err) = import_json(&p, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("dram__bytes.sum") && err.contains("line 6"), "{err}");
}

#[test]
fn a_capture_whose_clocks_read_zero_gives_no_zero_roofs() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Capture::load("h200_seed000_metrics.csv");
    for r in 0..c.rows.len() {
        c.set(r, "sm__cycles_elapsed.avg.per_second", "0");
        c.set(r, "dram__cycles_elapsed.avg.per_second", "0");
    }
    let p = dir.path().join("zero-clock.csv");
    c.write(&p);
    let (code, doc, err) = import_json(&p, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("sm__cycles_elapsed.avg.per_second (a clock) is 0"), "{err}");
    let ceilings = doc["machine"]["ceilings"].as_array().unwrap();
    assert!(ceilings.iter().all(|c| c["resource"]["type"] != "compute"), "{ceilings:?}");
    assert!(ceilings.iter().all(|c| c["resource"]["which"] != "dram"), "{ceilings:?}");
    let a = dir.path().join("a.json");
    std::fs::write(&a, doc.to_string()).unwrap();
    let (code, _, err) = run(&["report", s(&a), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn model_flops_times_elements_overflow_is_refused() {
    let (code, _, err) =
        run(&["model", "--gpu", "h200", "--format", "json", "--kernel", "k: flops=1e300 bytes=1 elements=1e300"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("flops"), "{err}");
    let (code, _, err) = run(&["model", "--gpu", "h200", "--kernel", "k: flops=1e307 bytes=0.1 time=1ms"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn every_document_the_tool_writes_it_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Machine documents, through peaks.
    let machine = d.join("machine.json");
    assert_eq!(run(&["peaks", "--gpu", "h200", "-o", s(&machine)]).0, 0);
    // Analyses: paper estimates at the edges of the accepted range, real
    // captures, per launch, against a machine.
    let edge = model_json(
        d,
        "edge.json",
        &[
            "big: flops=1e29 bytes=1e-20 time=1e-20s",
            "small: flops=1e-29 bytes=1e29 time=1e29s",
            "k: flops=1 bytes=12 time=1us",
        ],
    );
    let mut analyses = vec![edge];
    // Hostile inputs: each is refused as bad input, or what is written reads back.
    let mut hostile: Vec<(String, Vec<String>)> = Vec::new();
    for spec in
        ["k: flops=1e300 bytes=1 elements=1e300", "k: flops=1e307 bytes=0.1 time=1ms", "k: flops=1 bytes=1e-320"]
    {
        hostile.push((spec.to_string(), ["model", "--gpu", "h200", "--kernel", spec].map(String::from).to_vec()));
    }
    for (column, value) in
        [("dram__bytes.sum", "1e308"), ("dram__bytes.sum", "1e-320"), ("gpu__time_duration.sum", "1e-320")]
    {
        let mut c = Capture::load("h200_seed000_metrics.csv");
        for r in 0..c.rows.len() {
            c.set(r, column, value);
        }
        let p = d.join(format!("hostile-{}.csv", hostile.len()));
        c.write(&p);
        hostile.push((format!("{column} = {value}"), vec!["import".into(), s(&p).into()]));
    }
    for (what, mut args) in hostile {
        let out = d.join("hostile.json");
        let _ = std::fs::remove_file(&out);
        args.extend(["-o".to_string(), s(&out).to_string()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, _, err) = run(&args);
        if code == 2 {
            continue;
        }
        assert_eq!(code, 0, "{what}: {err}");
        let (code, _, err) = run(&["report", s(&out), "--format", "json"]);
        assert_eq!(code, 0, "{what}: the tool wrote an analysis it cannot read back: {err}");
    }
    for (name, extra) in [
        ("h200_seed000_metrics.csv", vec![]),
        ("h200_gemms_full.csv", vec!["--per-launch"]),
        ("h200_seed000_full.csv", vec!["--machine", s(&machine)]),
    ] {
        let out = d.join(format!("{name}.json"));
        let input = fixture(name);
        let mut args = vec!["import", s(&input)];
        args.extend(extra.iter().copied());
        args.extend(["-o", s(&out)]);
        let (code, _, err) = run(&args);
        assert_eq!(code, 0, "{name}: {err}");
        analyses.push(out);
    }
    for a in &analyses {
        for ext in ["json", "csv", "md", "html", "svg"] {
            let out = d.join(format!("r.{ext}"));
            let (code, _, err) = run(&["report", s(a), "-o", s(&out)]);
            assert_eq!(code, 0, "report {a:?} -> {ext}: {err}");
            let text = std::fs::read_to_string(&out).unwrap();
            if ext != "html" {
                // (the page's script has isNaN in it)
                assert!(!text.contains("NaN") && !text.contains("inf "), "{ext}");
            }
        }
        let (code, _, err) = run(&["report", s(&d.join("r.json")), "--format", "json"]);
        assert_eq!(code, 0, "the analysis report wrote does not read back: {err}");
        let (code, _, err) = run(&["check", s(a), "--min-pct-of-roof", "0", "-o", s(&d.join("c.json"))]);
        assert!(code == 0, "check {a:?}: {err}");
        for ext in ["json", "csv", "md", "html", "svg"] {
            let (code, _, err) = run(&["diff", s(a), s(a), "-o", s(&d.join(format!("d.{ext}")))]);
            assert_eq!(code, 0, "diff {a:?} -> {ext}: {err}");
        }
        let (code, _, err) = run(&["model", "--machine", s(a), "--kernel", "k: flops=1 bytes=1", "--format", "json"]);
        assert_eq!(code, 0, "the machine embedded in {a:?} does not read back: {err}");
    }
    let (code, _, err) = run(&["model", "--machine", s(&machine), "--kernel", "k: flops=1 bytes=1"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_hand_edited_analysis_with_numbers_out_of_range_is_refused_with_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let a = model_json(dir.path(), "a.json", &["k: flops=1 bytes=12 time=1us"]);
    let mut doc = json(&std::fs::read_to_string(&a).unwrap());
    doc["kernels"][0]["total_flops"] = serde_json::json!(1e308);
    std::fs::write(&a, serde_json::to_string(&doc).unwrap()).unwrap();
    let (code, _, err) = run(&["report", s(&a), "--format", "json"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("kernels[0].total_flops"), "{err}");
}

// ---------------------------------------------------------------- item 8

#[test]
fn check_of_an_analysis_without_durations_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let a = model_json(dir.path(), "a.json", &["k: flops=1 bytes=12", "j: flops=2 bytes=12"]);
    let (code, _, err) = run(&["check", s(&a), "--min-pct-of-roof", "50"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no duration"), "{err}");
}

#[test]
fn check_of_a_per_launch_analysis_against_itself_passes() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let (code, _, err) = run(&["import", s(&fixture("h200_seed000_metrics.csv")), "--per-launch", "-o", s(&a)]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(&["check", s(&a), "--baseline", s(&a), "--max-regression", "0"]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn check_failing_to_write_its_report_is_told_apart_from_a_failed_rule() {
    let dir = tempfile::tempdir().unwrap();
    let a = model_json(dir.path(), "a.json", &["k: flops=1 bytes=12 time=1ms"]);
    let (code, out, err) = run(&["check", s(&a), "--min-pct-of-roof", "0", "-o", "/nonexistent/dir/c.json"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("pass"), "the check's results were lost: {out:?}");
    assert!(err.contains("/nonexistent/dir/c.json") && err.contains("check passed"), "{err}");
}

#[test]
fn check_kernel_flag_without_a_name_is_bad_usage() {
    let dir = tempfile::tempdir().unwrap();
    let a = model_json(dir.path(), "a.json", &["k: flops=1 bytes=12 time=1ms"]);
    let (code, _, err) = run(&["check", s(&a), "--kernel", "=50"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--kernel") && err.contains("name"), "{err}");
}

#[test]
fn check_min_pct_of_roof_nan_is_bad_usage_not_a_toml_error() {
    let dir = tempfile::tempdir().unwrap();
    let a = model_json(dir.path(), "a.json", &["k: flops=1 bytes=12 time=1ms"]);
    let (code, _, err) = run(&["check", s(&a), "--min-pct-of-roof", "NaN"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--min-pct-of-roof") && !err.to_lowercase().contains("toml"), "{err}");
}

// ---------------------------------------------------------------- item 9

#[test]
fn unknown_units_on_a_time_column_are_an_error_naming_unit_and_column() {
    let dir = tempfile::tempdir().unwrap();
    for unit in ["minute", "MB", "Gcycle", "fortnight"] {
        let mut c = Capture::load("h200_seed000_metrics.csv");
        let col = c.col("gpu__time_duration.sum");
        c.units[col] = unit.into();
        let p = dir.path().join("u.csv");
        c.write(&p);
        let (code, _, err) = import_json(&p, &[]);
        assert_eq!(code, 2, "{unit}: {err}");
        assert!(err.contains(&format!("{unit:?}")) && err.contains("gpu__time_duration.sum"), "{err}");
    }
}

#[test]
fn picosecond_durations_are_scaled() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Capture::load("h200_seed000_metrics.csv");
    let col = c.col("gpu__time_duration.sum");
    c.units[col] = "psecond".into();
    for r in &mut c.rows {
        let ns: f64 = r[col].replace(',', "").parse().unwrap();
        r[col] = format!("{}", ns * 1000.0);
    }
    let p = dir.path().join("ps.csv");
    c.write(&p);
    let (code, doc, err) = import_json(&p, &[]);
    assert_eq!(code, 0, "{err}");
    let (_, reference, _) = import_json(&fixture("h200_seed000_metrics.csv"), &[]);
    let t = kernel(&doc, "vecadd")["kernel"]["duration_s"].as_f64().unwrap();
    let t0 = kernel(&reference, "vecadd")["kernel"]["duration_s"].as_f64().unwrap();
    assert!((t / t0 - 1.0).abs() < 1e-9, "{t} vs {t0}");
}

#[test]
fn a_capture_without_its_units_row_is_read_in_nanoseconds_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let c = Capture::load("h200_seed000_metrics.csv");
    let p = dir.path().join("nounits.csv");
    std::fs::write(&p, c.text(false)).unwrap();
    let (code, doc, err) = import_json(&p, &[]);
    assert_eq!(code, 0, "{err}");
    let (_, reference, _) = import_json(&fixture("h200_seed000_metrics.csv"), &[]);
    let t = kernel(&doc, "vecadd")["kernel"]["duration_s"].as_f64().unwrap();
    let t0 = kernel(&reference, "vecadd")["kernel"]["duration_s"].as_f64().unwrap();
    assert!((t / t0 - 1.0).abs() < 1e-9, "{t} s read, {t0} s with the units row");
    assert!(err.contains("units row") && err.contains("nanoseconds"), "{err}");
}

// ---------------------------------------------------------------- item 11

#[test]
fn occupancy_shared_memory_sizes_that_overflow_are_bad_input() {
    let (code, _, err) = run(&[
        "occupancy",
        "--cc",
        "9.0",
        "--threads",
        "256",
        "--regs",
        "32",
        "--smem-static",
        "18446744073709550616",
        "--smem-dynamic",
        "2000",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("shared memory") && !err.contains("panicked"), "{err}");
    let (code, _, err) = run(&[
        "occupancy",
        "--cc",
        "9.0",
        "--threads",
        "256",
        "--regs",
        "32",
        "--smem-static",
        "18446744073709551615K",
    ]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn occupancy_of_a_launch_that_cannot_run_exits_1_with_the_reason() {
    let (code, out, err) = run(&["occupancy", "--cc", "9.0", "--threads", "1024", "--regs", "255"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("cannot run") && err.contains("registers"), "{err}");
    assert!(!out.is_empty(), "the calculator's answer is still printed");
}

// ---------------------------------------------------------------- item 10 (data loss part)

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

// ---------------------------------------------------------------- item 14

#[test]
fn an_ncu_rep_whose_ncu_run_fails_says_so_not_that_the_file_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let ncu = dir.path().join("ncu");
    make_executable(
        &ncu,
        "#!/bin/sh\necho '==ERROR== Failed to load report: file format version 99 is not supported' >&2\nexit 1\n",
    );
    let rep = dir.path().join("app.ncu-rep");
    std::fs::write(&rep, b"NVIDIA report bytes").unwrap();
    let (code, _, err) = run(&["import", "--ncu", s(&ncu), s(&rep)]);
    assert_ne!(code, 0);
    assert!(!err.contains("The file is empty"), "{err}");
    assert!(err.contains("failed") && err.contains("file format version 99"), "{err}");
}

#[test]
fn a_semicolon_delimited_csv_says_what_was_expected() {
    let dir = tempfile::tempdir().unwrap();
    let c = Capture::load("h200_seed000_metrics.csv");
    let text: String = c.text(true).replace("\",\"", "\";\"");
    let p = dir.path().join("semi.csv");
    std::fs::write(&p, text).unwrap();
    let (code, _, err) = import_json(&p, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("';'") && err.contains("--csv"), "{err}");
}

#[test]
fn a_print_summary_csv_says_what_was_expected() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("summary.csv");
    std::fs::write(
        &p,
        "==PROF== Connected to process 622 (/tmp/seed000)\n\
\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Invocations\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Minimum\",\"Maximum\",\"Average\"\n\
\"0\",\"622\",\"seed000\",\"127.0.0.1\",\"vecadd\",\"2\",\"GPU Speed Of Light Throughput\",\"Duration\",\"us\",\"58.37\",\"59.23\",\"58.80\"\n",
    )
    .unwrap();
    let (code, _, err) = import_json(&p, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--print-summary") && err.contains("--page raw"), "{err}");
    let p2 = dir.path().join("summary2.csv");
    std::fs::write(
        &p2,
        "\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Invocations\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Minimum\",\"Maximum\",\"Average\"\n\
\"622\",\"seed000\",\"127.0.0.1\",\"vecadd\",\"2\",\"GPU Speed Of Light Throughput\",\"Duration\",\"us\",\"58.37\",\"59.23\",\"58.80\"\n",
    )
    .unwrap();
    let (code, _, err) = import_json(&p2, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--print-summary"), "{err}");
}

#[test]
fn import_of_dev_zero_stops_quickly_with_bounded_memory() {
    if !Path::new("/dev/zero").exists() {
        return skip("/dev/zero is not available");
    }
    // 1 GB of address space at most: an unbounded line buffer aborts.
    let cmd = format!("ulimit -v 1000000; exec '{}' import /dev/zero", bin().display());
    let start = Instant::now();
    let o = Process::new("sh").args(["-c", &cmd]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("/dev/zero") && err.contains("binary"), "{err}");
    assert!(start.elapsed() < Duration::from_secs(20));
    let cmd = format!("ulimit -v 1000000; exec '{}' report /dev/zero", bin().display());
    let o = Process::new("sh").args(["-c", &cmd]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
}
