//! Inputs that never end or are large (/dev/zero, a FIFO or a link to
//! /dev/zero among a program's record files, timelines of many launches)
//! are read in bounded time and memory, or left out with a warning.

use std::path::Path;
use std::process::Command as Process;
use std::time::{Duration, Instant};

use crate::support::{bin, json_file, roofline, skip, two_analyses};
use crate::timeline::Setup;

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

/// Adversarial pass 2, F3.
#[test]
fn report_and_merge_of_dev_zero_stop_quickly_with_bounded_memory() {
    if !Path::new("/dev/zero").exists() {
        skip("no /dev/zero");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = two_analyses(dir.path());
    for args in [
        vec!["report", "/dev/zero", "-q"],
        vec!["merge", a.to_str().unwrap(), "/dev/zero", "-q"],
        vec!["merge", "/dev/zero", a.to_str().unwrap(), "-q"],
    ] {
        let t = Instant::now();
        // Bounded by the test's own timeout: before the fix this grew past 3 GB.
        let out = roofline().args(&args).timeout(Duration::from_secs(20)).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("/dev/zero") && err.contains("binary"), "{args:?}: {err}");
        assert!(t.elapsed() < Duration::from_secs(10), "{args:?} took {:?}", t.elapsed());
    }
}

/// Hardening (issue 16), item 14.
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

/// Adversarial pass 4.
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

/// Adversarial pass 3, H1 and H2: the record folder is written by the
/// program, so a FIFO or a link to /dev/zero named like a record file must
/// be left out with a warning, not block the tool or grow its memory.
#[test]
fn a_fifo_or_a_link_to_dev_zero_in_the_record_folder_is_left_out_not_read() {
    for (what, planted) in [
        ("a FIFO", r#"mkfifo "$ROOFLINE_TIMELINE_DIR/1$$.jsonl""#),
        ("a link to /dev/zero", r#"ln -s /dev/zero "$ROOFLINE_TIMELINE_DIR/1$$.jsonl""#),
    ] {
        let s = Setup::new();
        let script = format!("{planted} && exec {}", s.fake());
        let t = Instant::now();
        let out = s
            .cmd()
            .args(["timeline", "-o"])
            .arg(s.path("run.json"))
            .args(["--", "sh", "-c", &script])
            .timeout(Duration::from_secs(60))
            .assert()
            .code(0)
            .get_output()
            .clone();
        assert!(t.elapsed() < Duration::from_secs(30), "{what}: took {:?}", t.elapsed());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("not a record file the injection library writes; left out"), "{what}: {stderr}");
        // The program's real record file is still read.
        assert_eq!(json_file(&s.path("run.json"))["summary"]["kernel_launches"], 4, "{what}");
        assert!(s.leftovers().is_empty(), "{what}: temporary folder removed: {:?}", s.leftovers());
    }
}
