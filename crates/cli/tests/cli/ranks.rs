//! Ranks end to end, on any machine: per-rank file names from a launcher's
//! environment, `roofline merge` of the committed synthetic ranks, and the
//! merged job through `report`, `check` and `diff`.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

fn roofline() -> Command {
    let mut c = Command::cargo_bin("roofline").unwrap();
    c.env("NO_COLOR", "1");
    for v in ["RANK", "LOCAL_RANK", "WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"] {
        c.env_remove(v);
    }
    c
}

fn committed_ranks() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/ranks/synthetic-2gpu");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    v.retain(|p| p.extension().is_some_and(|e| e == "json"));
    v.sort();
    assert_eq!(v.len(), 2, "{v:?}");
    v
}

fn merged(dir: &Path) -> PathBuf {
    let job = dir.join("job.json");
    roofline()
        .arg("merge")
        .args(committed_ranks())
        .arg("-o")
        .arg(&job)
        .assert()
        .success()
        .stderr(predicate::str::contains("2 rank(s)"));
    job
}

#[test]
fn the_committed_ranks_merge_into_one_job_with_a_rank_dimension() {
    let dir = tempfile::tempdir().unwrap();
    let job = merged(dir.path());
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&job).unwrap()).unwrap();
    assert_eq!(v["schema"], "roofline.merged/v1");
    assert_eq!(v["ranks"].as_array().unwrap().len(), 2);
    assert_eq!(v["job"]["schema"], "roofline.analysis/v2");
    // Rank 1 is the synthetic straggler in its GEMMs.
    let gemm = v["kernels"].as_array().unwrap().iter().find(|k| k["name"].as_str().unwrap().contains("gemm")).unwrap();
    assert_eq!(gemm["slowest_rank"], 1);
    assert!(gemm["behind_median_pct"].as_f64().unwrap() > 5.0);
    let split = &v["ranks"][0]["split"];
    assert!(split["communication_s"].as_f64().unwrap() > 0.0 && split["compute_s"].as_f64().unwrap() > 0.0);
}

/// Rank files of a MiB or more are mapped, not read (`input_file::Mapped`):
/// the committed ranks padded past that size merge into the job the
/// unpadded ones (read as before) give.
#[test]
fn large_rank_files_are_mapped_and_merge_as_read_ones_do() {
    let dir = tempfile::tempdir().unwrap();
    let job = |padding: usize| -> serde_json::Value {
        let at = dir.path().join(format!("padded-{padding}"));
        std::fs::create_dir(&at).unwrap();
        let mut names = Vec::new();
        for p in committed_ranks() {
            let name = p.file_name().unwrap().to_owned();
            let mut text = std::fs::read(&p).unwrap();
            text.resize(text.len() + padding, b'\n');
            std::fs::write(at.join(&name), text).unwrap();
            names.push(name);
        }
        roofline().current_dir(&at).arg("merge").args(&names).args(["-o", "job.json"]).assert().success();
        let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(at.join("job.json")).unwrap()).unwrap();
        // The same job, but for when it was made.
        v["producer"]["created"] = serde_json::Value::Null;
        v["job"]["producer"]["created"] = serde_json::Value::Null;
        v
    };
    let read = job(0);
    assert_eq!(read["ranks"].as_array().unwrap().len(), 2);
    assert_eq!(read, job(1 << 20));
}

/// A mapped rank file is not searched for NULs before it is skimmed (issue
/// 30): the skimming reader declines at one, and the file read as a stream
/// gets the message and exit code a NUL always gets, wherever it lies.
#[test]
fn a_nul_in_a_large_rank_file_gets_the_streams_message() {
    let dir = tempfile::tempdir().unwrap();
    let ranks = committed_ranks();
    let mut text = std::fs::read(&ranks[0]).unwrap();
    let len = text.len();
    text.resize(len + (1 << 20), b'\n');
    for at in [1, len / 3, len / 2, len - 2, len + 100] {
        let mut binary = text.clone();
        binary[at] = 0;
        let path = dir.path().join("job.rank0.json");
        std::fs::write(&path, &binary).unwrap();
        let out = roofline()
            .arg("merge")
            .arg(&path)
            .arg(&ranks[1])
            .args(["-o"])
            .arg(dir.path().join("job.json"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "NUL at {at}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("binary data (NUL bytes), not text"), "NUL at {at}: {err}");
    }
}

#[test]
fn the_merged_job_goes_through_report_check_and_diff() {
    let dir = tempfile::tempdir().unwrap();
    let job = merged(dir.path());
    let html = dir.path().join("job.html");
    roofline().arg("report").arg(&job).arg("-o").arg(&html).assert().success();
    let page = std::fs::read_to_string(&html).unwrap();
    for needle in ["Job of 2 rank(s)", "GPU time by class", "behind median", "Communication (NCCL collectives)", "<svg"]
    {
        assert!(page.contains(needle), "{needle} in the page");
    }
    let md = roofline().arg("report").arg(&job).args(["--format", "markdown"]).output().unwrap();
    assert!(md.status.success());
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(md.contains("| 1 |") && md.contains("communication"), "{md}");
    // The job is judged as one analysis: every rank's kernels summed.
    let check = roofline().arg("check").arg(&job).args(["--min-pct-of-roof", "1"]).output().unwrap();
    assert_eq!(check.status.code(), Some(0), "{}", String::from_utf8_lossy(&check.stderr));
    let strict = roofline().arg("check").arg(&job).args(["--min-pct-of-roof", "99.9"]).output().unwrap();
    assert_eq!(strict.status.code(), Some(1));
    roofline().arg("diff").arg(&job).arg(&job).assert().success();
    // A rank file and the job diff too (one process against the job).
    roofline().arg("diff").arg(&committed_ranks()[0]).arg(&job).assert().success();
}

#[test]
fn each_rank_names_its_file_from_the_launchers_environment() {
    let dir = tempfile::tempdir().unwrap();
    let k = "k: flops=1 bytes=8 elements=1e6 time=1ms";
    // A placeholder takes the rank.
    roofline()
        .current_dir(dir.path())
        .env("RANK", "3")
        .env("WORLD_SIZE", "4")
        .args(["model", "--gpu", "h200", "--kernel", k, "-o", "job.rank{rank}.json"])
        .assert()
        .success();
    assert!(dir.path().join("job.rank3.json").is_file());
    // Without one, a job of several ranks still gets one file per rank, and says so.
    roofline()
        .current_dir(dir.path())
        .env("OMPI_COMM_WORLD_RANK", "1")
        .env("OMPI_COMM_WORLD_SIZE", "2")
        .args(["model", "--gpu", "h200", "--kernel", k, "-o", "plain.json"])
        .assert()
        .success()
        .stderr(predicate::str::contains("plain.rank1.json").and(predicate::str::contains("{rank}")));
    assert!(dir.path().join("plain.rank1.json").is_file() && !dir.path().join("plain.json").exists());
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("job.rank3.json")).unwrap()).unwrap();
    assert_eq!(doc["schema"], "roofline.analysis/v2");
    // A rank that is not a number is bad input where the -o name depends
    // on it (without -o it is only a warning: second pass, F13).
    roofline()
        .current_dir(dir.path())
        .env("SLURM_PROCID", "zero")
        .args(["model", "--gpu", "h200", "--kernel", k, "-o", "bad.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("SLURM_PROCID"));
}

#[test]
fn merge_refuses_what_is_not_a_rank_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let machine = dir.path().join("m.json");
    roofline().args(["peaks", "--gpu", "h200", "-o"]).arg(&machine).assert().success();
    roofline()
        .arg("merge")
        .arg(&machine)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("m.json").and(predicate::str::contains("roofline.machine/v2")));
    roofline()
        .arg("merge")
        .arg(dir.path().join("missing.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.json"));
    // A machine to judge the job against is read too.
    let out = dir.path().join("j.json");
    roofline()
        .arg("merge")
        .args(committed_ranks())
        .arg("--machine")
        .arg(&machine)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["job"]["machine"]["name"], "NVIDIA H200");
}

/// A stand-in for a CUDA program under libroofline_inject.so (the records
/// format of docs/timeline.md): one device, a GEMM-like kernel of GEMM_NS
/// and an NCCL all-reduce of 2 ms.
const FAKE_RANK: &str = r#"#!/bin/sh
f="$ROOFLINE_TIMELINE_DIR/$$.jsonl"
printf '{"t":"header","format":"roofline.records/v1","pid":%s,"ppid":1,"exe":"/bin/sh","cmdline":["fake"],"clock":{"cupti_ns":5000000000,"unix_ns":%s}}\n' $$ "$(date +%s%N)" > "$f"
printf '{"t":"device","id":0,"name":"NVIDIA H200"}\n' >> "$f"
printf '{"t":"name","id":1,"s":"gemm_kernel"}\n{"t":"name","id":2,"s":"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"}\n' >> "$f"
printf '{"t":"kernel","name":1,"start":5000100000,"end":%s,"dev":0,"ctx":1,"stream":7,"corr":1,"grid":[64,1,1],"block":[256,1,1]}\n' $((5000100000 + GEMM_NS)) >> "$f"
printf '{"t":"kernel","name":2,"start":5100000000,"end":5102000000,"dev":0,"ctx":1,"stream":8,"corr":2,"grid":[2,1,1],"block":[512,1,1]}\n' >> "$f"
printf '{"t":"end","reason":"exit","records":6}\n' >> "$f"
"#;

#[test]
fn timelines_of_the_ranks_merge_with_their_communication_and_stragglers() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("fake.sh");
    std::fs::write(&fake, FAKE_RANK).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    // The tool only checks that the library exists; the stand-in writes the records.
    std::fs::write(dir.path().join("libroofline_inject.so"), b"").unwrap();
    for (rank, gemm_ns) in [("0", "4000000"), ("1", "6000000")] {
        roofline()
            .current_dir(dir.path())
            .env("ROOFLINE_INJECT_LIB", dir.path().join("libroofline_inject.so"))
            .env_remove("CUDA_INJECTION64_PATH")
            .env("RANK", rank)
            .env("LOCAL_RANK", rank)
            .env("WORLD_SIZE", "2")
            .env("GEMM_NS", gemm_ns)
            .args(["timeline", "-q", "-o", "tl.{rank}.json", "--"])
            .arg(&fake)
            .assert()
            .success();
    }
    let job = dir.path().join("job.json");
    roofline()
        .current_dir(dir.path())
        .args(["merge", "tl.1.json", "tl.0.json", "-o"])
        .arg(&job)
        .assert()
        .success()
        .stderr(predicate::str::contains("2 rank(s)").and(predicate::str::contains("no counters")));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&job).unwrap()).unwrap();
    let ranks = v["ranks"].as_array().unwrap();
    assert_eq!((ranks[0]["rank"].as_u64(), ranks[1]["rank"].as_u64()), (Some(0), Some(1)), "ranks from the names");
    for r in ranks {
        let comm = r["split"]["communication_s"].as_f64().unwrap();
        assert!((comm - 2e-3).abs() < 1e-9, "the all-reduce is communication: {r}");
    }
    let gemm = v["kernels"].as_array().unwrap().iter().find(|k| k["name"] == "gemm_kernel").unwrap();
    assert_eq!(gemm["slowest_rank"], 1, "{gemm}");
    assert_eq!(v["job"]["machine"]["name"], "NVIDIA H200", "the built-in machine of the GPU the timeline names");
    // The merged timelines go through the views like any merged job.
    roofline()
        .args(["report", "--format", "markdown"])
        .arg(&job)
        .assert()
        .success()
        .stdout(predicate::str::contains("AllReduce").and(predicate::str::contains("communication 29%")));
}

#[test]
fn report_shows_a_machine_document_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let machine = dir.path().join("m.json");
    roofline().args(["peaks", "--gpu", "h200", "-q", "-o"]).arg(&machine).assert().success();
    roofline()
        .args(["report", "--format", "markdown"])
        .arg(&machine)
        .assert()
        .success()
        .stdout(predicate::str::contains("Roofs of NVIDIA H200").and(predicate::str::contains("DRAM")));
    roofline()
        .args(["report", "--format", "csv"])
        .arg(&machine)
        .assert()
        .success()
        .stdout(predicate::str::contains("ceiling,rate"));
    let page = dir.path().join("m.html");
    roofline().arg("report").arg(&machine).arg("-o").arg(&page).assert().success();
    assert!(std::fs::read_to_string(&page).unwrap().contains("NVIDIA H200"));
}
