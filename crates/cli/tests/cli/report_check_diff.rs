//! `roofline report`, `check` and `diff` end to end: inputs written by
//! `roofline model`, exit codes, messages, and files written whole or not
//! at all.

use std::path::{Path, PathBuf};

use predicates::prelude::*;

use crate::support::roofline;

/// Writes `roofline model --gpu GPU --kernel ...` as analysis JSON.
fn model(dir: &Path, name: &str, gpu: &str, kernels: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let mut c = roofline();
    c.args(["model", "--gpu", gpu, "--format", "json"]);
    for k in kernels {
        c.args(["--kernel", k]);
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(&path, &out.stdout).unwrap();
    path
}

fn seed_000(dir: &Path) -> (PathBuf, PathBuf) {
    let before = model(
        dir,
        "before.json",
        "t4",
        &[
            "scale: flops=1 bytes=12 elements=16777216 time=0.77ms",
            "add: flops=1 bytes=12 elements=16777216 time=0.77ms",
        ],
    );
    let after = model(dir, "after.json", "t4", &["fused: flops=2 bytes=16 elements=16777216 time=1.03ms"]);
    (before, after)
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn report_writes_html_svg_and_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let (before, _) = seed_000(dir.path());
    let html = dir.path().join("r.html");
    roofline()
        .arg("report")
        .arg(&before)
        .arg("-o")
        .arg(&html)
        .arg("--svg")
        .arg(dir.path().join("c.svg"))
        .assert()
        .success();
    let text = std::fs::read_to_string(&html).unwrap();
    assert!(text.starts_with("<!DOCTYPE html>") && text.contains("<svg") && text.contains("id=\"kernel-table\""));
    assert!(std::fs::read_to_string(dir.path().join("c.svg")).unwrap().starts_with("<svg"));
    roofline()
        .arg("report")
        .arg(&before)
        .args(["--format", "markdown"])
        .assert()
        .success()
        .stdout(predicate::str::contains("| scale `").and(predicate::str::contains("### Roofs of Tesla T4")));
    // Redirected stdout gets the HTML itself.
    roofline().arg("report").arg(&before).assert().success().stdout(predicate::str::starts_with("<!DOCTYPE html>"));
}

#[test]
fn report_with_format_table_prints_the_table_not_a_page() {
    // Found on the H200 re-check: `--format table` was taken for "no format
    // given" and `report` printed HTML instead (and refused --wide).
    let dir = tempfile::tempdir().unwrap();
    let (before, _) = seed_000(dir.path());
    for extra in [&[][..], &["--wide"][..]] {
        let out = roofline().arg("report").arg(&before).args(["--format", "table"]).args(extra).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(!text.contains("<html") && text.contains("scale") && text.contains("% of roof"), "{text}");
    }
    assert_eq!(files(dir.path()), ["after.json", "before.json"], "no page file was written");
}

#[test]
fn report_of_another_schema_version_exits_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (before, _) = seed_000(dir.path());
    let text = std::fs::read_to_string(&before).unwrap().replace("roofline.analysis/v2", "roofline.analysis/v9");
    let old = dir.path().join("v9.json");
    std::fs::write(&old, text).unwrap();
    let listing = files(dir.path());
    roofline().arg("report").arg(&old).arg("-o").arg(dir.path().join("out.html")).assert().code(2).stderr(
        predicate::str::contains("v9.json")
            .and(predicate::str::contains("roofline.analysis/v9"))
            .and(predicate::str::contains("regenerate")),
    );
    assert_eq!(files(dir.path()), listing);
}

#[test]
fn report_of_a_truncated_analysis_exits_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (before, _) = seed_000(dir.path());
    let text = std::fs::read_to_string(&before).unwrap();
    let cut = dir.path().join("cut.json");
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let listing = files(dir.path());
    roofline()
        .arg("report")
        .arg(&cut)
        .arg("-o")
        .arg(dir.path().join("out.html"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cut.json").and(predicate::str::contains("not valid JSON")));
    assert_eq!(files(dir.path()), listing);
}

#[test]
fn empty_profile_exits_2_for_report_check_and_diff() {
    let dir = tempfile::tempdir().unwrap();
    let (before, _) = seed_000(dir.path());
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&before).unwrap()).unwrap();
    v["kernels"] = serde_json::json!([]);
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, v.to_string()).unwrap();
    let msg = predicate::str::contains("empty.json: the analysis has no kernels");
    roofline().arg("report").arg(&empty).arg("-o").arg(dir.path().join("x.html")).assert().code(2).stderr(msg.clone());
    roofline().arg("check").arg(&empty).args(["--min-pct-of-roof", "50"]).assert().code(2).stderr(msg.clone());
    roofline().arg("diff").arg(&before).arg(&empty).assert().code(2).stderr(msg);
    assert!(!dir.path().join("x.html").exists());
}

#[test]
fn missing_ceiling_is_said_on_stderr_and_on_the_chart() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = roofline();
    c.args(["model", "--peak", "10 TFLOP/s", "--bandwidth", "1 TB/s", "--format", "json"]);
    c.args(["--kernel", "dgemm_tc: flops=2e12 bytes=1e9 kind=tensor_fp64 time=1ms"]);
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let a = dir.path().join("a.json");
    std::fs::write(&a, &out.stdout).unwrap();
    let svg = dir.path().join("c.svg");
    roofline()
        .arg("report")
        .arg(&a)
        .arg("-o")
        .arg(&svg)
        .assert()
        .success()
        .stderr(predicate::str::contains("has no ceiling for FP64 tensor FLOPs: dgemm_tc"));
    assert!(std::fs::read_to_string(&svg).unwrap().contains("has no ceiling for FP64 tensor FLOPs"));
}

#[test]
fn check_passes_fails_and_names_unknown_keys() {
    let dir = tempfile::tempdir().unwrap();
    // vecadd at 80% of the T4's DRAM roof (seed 000), a copy at 40%.
    let a = model(
        dir.path(),
        "a.json",
        "t4",
        &[
            "vecadd: flops=1 bytes=12 elements=33554432 time=1.5667ms",
            "slow: flops=1 bytes=12 elements=33554432 time=3.1457ms",
        ],
    );
    roofline().arg("check").arg(&a).args(["--min-pct-of-roof", "30"]).assert().code(0);
    roofline()
        .arg("check")
        .arg(&a)
        .args(["--min-pct-of-roof", "60"])
        .assert()
        .code(1)
        .stdout(predicate::function(|out: &str| {
            out.lines().any(|l| {
                l.contains("FAIL") && l.contains("slow") && l.contains("40% of the DRAM bandwidth roof, < 60%")
            })
        }))
        .stderr(predicate::str::contains("check failed: 1 of 2"));
    roofline().arg("check").arg(&a).args(["--min-pct-of-roof", "60", "--kernel", "slow=30"]).assert().code(0);

    let cfg = dir.path().join("ci.toml");
    std::fs::write(&cfg, "min_pct_of_roof = 60\nmin_time_shares = 5\n").unwrap();
    roofline()
        .arg("check")
        .arg(&a)
        .arg("--config")
        .arg(&cfg)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("ci.toml").and(predicate::str::contains("min_time_shares")));
    roofline().arg("check").arg(&a).assert().code(2).stderr(predicate::str::contains("no rule to check"));
}

#[test]
fn check_against_a_baseline_in_the_config() {
    let dir = tempfile::tempdir().unwrap();
    let (_before, after) = seed_000(dir.path());
    let cfg = dir.path().join("ci.toml");
    std::fs::write(&cfg, "baseline = \"before.json\"\nmax_regression_pct = 10\n").unwrap();
    // fused is not in the baseline: nothing to regress from, with a note. No
    // rule judged any kernel, so the gate fails unless that is allowed.
    roofline()
        .arg("check")
        .arg(&after)
        .arg("--config")
        .arg(&cfg)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("not in the baseline"))
        .stderr(predicate::str::contains("nothing was judged"));
    roofline()
        .arg("check")
        .arg(&after)
        .arg("--config")
        .arg(&cfg)
        .arg("--allow-empty")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("not in the baseline"));
    let slower = model(dir.path(), "slower.json", "t4", &["scale: flops=1 bytes=12 elements=16777216 time=0.9ms"]);
    roofline()
        .arg("check")
        .arg(&slower)
        .arg("--config")
        .arg(&cfg)
        .args(["--format", "json"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("\"passed\": false").and(predicate::str::contains("regression.time")));
}

#[test]
fn diff_seed_000_fusion() {
    let dir = tempfile::tempdir().unwrap();
    let (before, after) = seed_000(dir.path());
    let out = roofline().arg("diff").arg(&before).arg(&after).args(["--format", "json"]).output().unwrap();
    assert!(out.status.success());
    let d: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let total = d["rows"].as_array().unwrap().iter().find(|r| r["kind"] == "total").unwrap();
    let ib = total["before"]["intensity"]["dram"].as_f64().unwrap();
    let ia = total["after"]["intensity"]["dram"].as_f64().unwrap();
    assert!((ib - 2.0 / 24.0).abs() < 1e-12 && (ia - 2.0 / 16.0).abs() < 1e-12);
    let speedup = total["before"]["duration_s"].as_f64().unwrap() / total["after"]["duration_s"].as_f64().unwrap();
    assert!((speedup - 1.5).abs() < 0.05, "{speedup}");

    let html = dir.path().join("d.html");
    roofline()
        .arg("diff")
        .arg(&before)
        .arg(&after)
        .args(["--match", "scale+add=fused", "-o"])
        .arg(&html)
        .assert()
        .success()
        .stdout(predicate::str::contains("scale + add -> fused").and(predicate::str::contains("1.50x faster")));
    assert!(std::fs::read_to_string(&html).unwrap().contains("class=\"arrow\""));
    roofline()
        .arg("diff")
        .arg(&before)
        .arg(&after)
        .args(["--match", "scale+mul=fused"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("\"mul\""));
}

#[test]
fn the_example_check_config_works() {
    let dir = tempfile::tempdir().unwrap();
    let (_, after) = seed_000(dir.path());
    let cfg = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/ci/roofline-check.toml");
    roofline().arg("check").arg(&after).arg("--config").arg(&cfg).assert().code(0).stdout(
        predicate::function(|out: &str| {
            out.lines().any(|l| l.contains("pass") && l.contains("fused") && l.contains("kernel.min_pct_of_roof"))
        })
        .and(predicate::str::contains("kernel.max_time")),
    );
}

#[test]
fn report_draws_the_chart_in_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let (before, _) = seed_000(dir.path());
    for format in ["chart", "terminal"] {
        let out = roofline().arg("report").arg(&before).args(["--format", format]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.chars().any(|c| ('\u{2801}'..='\u{28ff}').contains(&c)), "no braille:\n{text}");
        assert!(text.contains("  A  scale") && text.contains("  B  add"), "no key:\n{text}");
        assert!(text.contains("FP32: 8141 GFLOP/s") || text.contains("FP32 8141 GFLOP/s"), "no roof:\n{text}");
        assert!(!text.contains('\u{1b}'), "colour in a pipe");
    }
    // A document with no chart says so, as bad usage.
    roofline()
        .args(["peaks", "--gpu", "h200", "--format", "chart"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no chart"));
}

/// Hardening (issue 27), an earlier harness: `report` on a damaged machine
/// document said "expected roofline.analysis/v2" instead of what is wrong.
#[test]
fn report_of_a_damaged_machine_document_names_its_bad_field() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m.json");
    let (code, out, err) = crate::support::run(&["peaks", "--gpu", "h200", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let mut doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    doc["machine"]["ceilings"][0]["rate"] = "fast".into();
    std::fs::write(&m, doc.to_string()).unwrap();
    let (code, _, err) = crate::support::run(&["report", crate::support::s(&m), "--format", "table"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("m.json") && err.contains("machine") && err.contains("\"fast\""), "{err}");
    assert!(!err.contains("expected roofline.analysis"), "{err}");
}
