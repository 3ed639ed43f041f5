//! The fourth adversarial pass of issue 16 (results/adversarial-pass-4-2026-11-30.md):
//! one test per problem it found in how the tool runs ncu and reads its
//! inputs, named after it. (Its output-file findings are tested in
//! `hardening.rs`.)

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::Command;

mod support;
use support::alive;

fn roofline() -> Command {
    let mut c = Command::cargo_bin("roofline").unwrap();
    c.env("NO_COLOR", "1");
    c
}

fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

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

/// L2: an `ncu --import` that exited 0 and printed nothing was reported as
/// "the file is empty", about a report that was not.
#[test]
fn an_ncu_that_prints_no_csv_is_named_not_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let ncu = script(dir.path(), "ncu", "exit 0");
    let report = dir.path().join("r.ncu-rep");
    std::fs::write(&report, b"a report").unwrap();
    let out = roofline().args(["import", "--ncu"]).arg(&ncu).arg(&report).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("exited normally but printed no CSV") && !said.contains("empty"), "{said}");
}

/// O3: `--save-csv` (or `-o`) naming the ncu executable replaced it.
#[test]
fn profile_refuses_to_write_over_the_ncu_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let ncu = script(dir.path(), "ncu", "exit 0");
    let before = std::fs::read(&ncu).unwrap();
    for flag in ["--save-csv", "-o"] {
        let out = roofline()
            .args(["profile", "--one-pass", "--ncu"])
            .arg(&ncu)
            .arg(flag)
            .arg(&ncu)
            .args(["--", "/bin/true"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stderr).contains("--ncu"), "{flag}");
        assert_eq!(std::fs::read(&ncu).unwrap(), before, "{flag}: ncu was replaced");
    }
}

/// L1: a capture without the `Kernel Name` column was read as one nameless
/// kernel, with exit 0 and no warning.
#[test]
fn a_capture_without_kernel_names_is_refused_naming_the_column() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("tests/fixtures/ncu/h200_seed000_profile.csv")).unwrap();
    let mut rdr = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(text.as_bytes());
    let rows: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    let header = rows.iter().position(|r| r.get(0) == Some("ID")).unwrap();
    let name = rows[header].iter().position(|f| f == "Kernel Name").unwrap();
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in &rows[header..] {
        w.write_record(r.iter().enumerate().filter(|(i, _)| *i != name).map(|(_, f)| f)).unwrap();
    }
    let capture = dir.path().join("nameless.csv");
    std::fs::write(&capture, w.into_inner().unwrap()).unwrap();
    let out = roofline().arg("import").arg(&capture).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no `Kernel Name` column"));
}

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

/// A timeline document as `roofline timeline` writes it (schema first),
/// with `kernels` as its summary rows and `launches` entries in each
/// per-launch array, which are not what a timeline's activities are.
fn timeline_doc(kernels: &[(&str, u64, u64)], launches: usize) -> String {
    let rows: Vec<serde_json::Value> = kernels
        .iter()
        .enumerate()
        .map(|(i, (name, total_ns, instances))| {
            let avg = *total_ns as f64 / *instances as f64;
            serde_json::json!({
                "name_id": i, "name": name, "display_name": name, "kind": "kernel", "time_share": 0.5,
                "total_ns": total_ns, "instances": instances, "avg_ns": avg, "median_ns": avg,
                "min_ns": 1, "max_ns": total_ns, "stddev_ns": 0.0
            })
        })
        .collect();
    let junk = vec![serde_json::json!({"not": "an activity", "start": "yesterday"}); launches];
    let doc = serde_json::json!({
        "schema": "roofline.timeline/v1",
        "producer": {"tool": "roofline", "version": "0", "command": "roofline timeline -- ./train"},
        "run": {"command": ["./train"], "ended_by": "exit"},
        "summary": {"kernels": rows},
        "timeline": {"devices": [{"pid": 1, "id": 0, "name": "NVIDIA H200"}], "activities": junk.clone(),
                     "ranges": junk.clone(), "names": junk.clone(), "processes": junk}
    });
    // serde_json's map keeps keys sorted: put the schema first, as roofline does.
    let text = serde_json::to_string_pretty(&doc).unwrap();
    let body = text.replacen("\"schema\": \"roofline.timeline/v1\",", "", 1);
    body.replacen('{', "{\n  \"schema\": \"roofline.timeline/v1\",", 1)
}

/// M1: `merge` of two timelines of 10^6 launches peaked at 6.7 GB (and
/// died under a 6 GB limit): it built each document whole, every launch
/// of it, to use its per-kernel summary. It reads the summary alone now,
/// as the file streams in; the per-launch arrays are skipped unread (here
/// they hold no activities at all). The memory itself is the benchmark's
/// (`scripts/bench-timeline-merge.sh`).
#[test]
fn merging_timelines_reads_their_summaries_not_every_launch() {
    let dir = tempfile::tempdir().unwrap();
    let doc = timeline_doc(&[("gemm", 3_000_000, 3), ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1_000_000, 2)], 1000);
    std::fs::write(dir.path().join("tl.0.json"), &doc).unwrap();
    std::fs::write(dir.path().join("tl.1.json"), doc.replace("3000000", "4000000")).unwrap();
    let out = roofline()
        .current_dir(dir.path())
        .args(["merge", "tl.0.json", "tl.1.json", "--format", "json", "-q"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let gemm = v["kernels"].as_array().unwrap().iter().find(|k| k["name"] == "gemm").unwrap();
    assert_eq!(gemm["time_s"], serde_json::json!([0.003, 0.004]));
    assert_eq!(gemm["slowest_rank"], 1);
    assert!(v["ranks"][0]["split"]["communication_s"].as_f64().unwrap() > 0.0, "the collective is told apart");

    // What the stream meets is refused as the whole file was: named, exit 2.
    let mut binary = doc.clone().into_bytes();
    let middle = binary.len() / 2;
    binary[middle] = 0;
    std::fs::write(dir.path().join("nul.json"), binary).unwrap();
    std::fs::write(dir.path().join("cut.json"), &doc[..doc.len() / 2]).unwrap();
    for (file, why) in [("nul.json", "binary data"), ("cut.json", "roofline.timeline/v1")] {
        let out = roofline().current_dir(dir.path()).args(["merge", file, "tl.0.json", "-q"]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {err}");
        assert!(err.contains(file) && err.contains(why), "{file}: {err}");
    }
}
