//! `check` as a CI gate: no pass when nothing could be judged (no
//! durations, no kernel in common with the baseline), bad rules refused as
//! usage errors, a report it could not write told apart from a failed rule.

use crate::support::{fixture, model_json, roofline, run, run_in, s, two_analyses};

/// Adversarial pass 2, F7.
#[test]
fn check_against_a_baseline_without_durations_is_bad_input_not_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = two_analyses(dir.path());
    // A paper estimate (no time=) of kernels the analysis also has.
    let (code, _, err) = run_in(
        dir.path(),
        &[
            "model",
            "--gpu",
            "h200",
            "-k",
            "vecadd: flops=33554432 bytes=378477568",
            "-k",
            "saxpy: flops=67108864 bytes=365651712",
            "-q",
            "-o",
            "base.json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (code, out, err) =
        run_in(dir.path(), &["check", a.to_str().unwrap(), "--baseline", "base.json", "--max-regression", "10"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("base.json") && err.contains("no duration"), "{err}");
}

/// Hardening (issue 16), item 8.
#[test]
fn check_of_an_analysis_without_durations_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let a = model_json(dir.path(), "a.json", &["k: flops=1 bytes=12", "j: flops=2 bytes=12"]);
    let (code, _, err) = run(&["check", s(&a), "--min-pct-of-roof", "50"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no duration"), "{err}");
}

/// Hardening (issue 16), item 8.
#[test]
fn check_of_a_per_launch_analysis_against_itself_passes() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let (code, _, err) = run(&["import", s(&fixture("h200_seed000_metrics.csv")), "--per-launch", "-o", s(&a)]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(&["check", s(&a), "--baseline", s(&a), "--max-regression", "0"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// Hardening (issue 16), item 8.
#[test]
fn check_failing_to_write_its_report_is_told_apart_from_a_failed_rule() {
    let dir = tempfile::tempdir().unwrap();
    let a = model_json(dir.path(), "a.json", &["k: flops=1 bytes=12 time=1ms"]);
    let (code, out, err) = run(&["check", s(&a), "--min-pct-of-roof", "0", "-o", "/nonexistent/dir/c.json"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("pass"), "the check's results were lost: {out:?}");
    assert!(err.contains("/nonexistent/dir/c.json") && err.contains("check passed"), "{err}");
}

/// Hardening (issue 16), item 8.
#[test]
fn check_kernel_flag_without_a_name_is_bad_usage() {
    let dir = tempfile::tempdir().unwrap();
    let a = model_json(dir.path(), "a.json", &["k: flops=1 bytes=12 time=1ms"]);
    let (code, _, err) = run(&["check", s(&a), "--kernel", "=50"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--kernel") && err.contains("name"), "{err}");
}

/// Hardening (issue 16), item 8.
#[test]
fn check_min_pct_of_roof_nan_is_bad_usage_not_a_toml_error() {
    let dir = tempfile::tempdir().unwrap();
    let a = model_json(dir.path(), "a.json", &["k: flops=1 bytes=12 time=1ms"]);
    let (code, _, err) = run(&["check", s(&a), "--min-pct-of-roof", "NaN"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--min-pct-of-roof") && !err.to_lowercase().contains("toml"), "{err}");
}

/// Adversarial pass 5.
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

/// An analysis whose gate fails: `slow` has most of the time and a low %
/// of roof. Its kernels' JSON, and where to write edited copies.
fn failing_gate(dir: &std::path::Path) -> (std::path::PathBuf, serde_json::Value) {
    let a = model_json(dir, "a.json", &["slow: flops=1e9 bytes=1e9 time=50ms", "fast: flops=1e12 bytes=1e9 time=2ms"]);
    let doc = crate::support::json_file(&a);
    let (code, out, err) = run(&["check", s(&a), "--min-pct-of-roof", "50", "--min-time-share", "5"]);
    assert_eq!(code, 1, "the gate fails as written: {out}{err}");
    (a, doc)
}

/// Runs the failing gate on `doc` edited by `edit`: exit code, stderr.
fn gate_on_edited(
    dir: &std::path::Path,
    doc: &serde_json::Value,
    edit: impl Fn(&mut serde_json::Value),
) -> (i32, String) {
    let mut doc = doc.clone();
    edit(&mut doc);
    let path = dir.join("edited.json");
    std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
    let (code, out, err) = run(&["check", s(&path), "--min-pct-of-roof", "50", "--min-time-share", "5"]);
    (code, format!("{out}{err}"))
}

/// An edit of a document.
type Edit = dyn Fn(&mut serde_json::Value);

fn slow(doc: &mut serde_json::Value) -> &mut serde_json::Value {
    doc["kernels"].as_array_mut().unwrap().iter_mut().find(|k| k["kernel"]["name"] == "slow").unwrap()
}

/// Hardening (issue 27), item 2: `check` trusted a stored `time_share` of
/// -1 or a `pct_of_roof` of 1e30, and a failing gate passed.
#[test]
fn check_refuses_derived_values_that_do_not_match_what_they_derive_from() {
    let dir = tempfile::tempdir().unwrap();
    let (_, doc) = failing_gate(dir.path());
    let index = doc["kernels"].as_array().unwrap().iter().position(|k| k["kernel"]["name"] == "slow").unwrap();
    let cases: Vec<(&str, Box<Edit>)> = vec![
        ("time_share", Box::new(|d| slow(d)["time_share"] = (-1.0).into())),
        ("time_share", Box::new(|d| slow(d)["time_share"] = 0.001.into())),
        ("time_share", Box::new(|d| slow(d)["time_share"] = serde_json::Value::Null)),
        ("pct_of_roof", Box::new(|d| slow(d)["pct_of_roof"] = 1e30.into())),
        ("pct_of_roof", Box::new(|d| slow(d)["pct_of_roof"] = 99.0.into())),
        ("achieved_flops_per_s", Box::new(|d| slow(d)["achieved_flops_per_s"] = 1e15.into())),
        ("attainable_flops_per_s", Box::new(|d| slow(d)["attainable_flops_per_s"] = 1e3.into())),
        ("total_flops", Box::new(|d| slow(d)["total_flops"] = 1e20.into())),
        ("levels[0].pct_of_bandwidth", Box::new(|d| slow(d)["levels"][0]["pct_of_bandwidth"] = 99.0.into())),
    ];
    for (field, edit) in cases {
        let (code, out) = gate_on_edited(dir.path(), &doc, edit);
        assert_eq!(code, 2, "{field}: {out}");
        let path = format!("kernels[{index}].{field}");
        assert!(out.contains("edited.json") && out.contains(&path), "{field}: the field's path is named: {out}");
        assert!(!out.contains("1000000000000000000000000000000"), "the value is echoed compactly: {out}");
    }
    // Shares that add up to more than the whole.
    let (code, out) = gate_on_edited(dir.path(), &doc, |d| {
        for k in d["kernels"].as_array_mut().unwrap() {
            k["time_share"] = 0.9.into();
        }
    });
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("time_share") && out.contains("more than 1"), "{out}");
    // The document as written still fails the gate, not refused.
    let (code, out) = gate_on_edited(dir.path(), &doc, |_| {});
    assert_eq!(code, 1, "{out}");
}

#[test]
fn check_refuses_documents_whose_failing_kernels_were_removed_or_made_faster() {
    let dir = tempfile::tempdir().unwrap();
    let (_, doc) = failing_gate(dir.path());
    // The failing kernel deleted: the program view still names it.
    let (code, out) = gate_on_edited(dir.path(), &doc, |d| {
        d["kernels"].as_array_mut().unwrap().retain(|k| k["kernel"]["name"] != "slow");
    });
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("program.opportunities[") && out.contains("not in kernels[]"), "{out}");
    // Its duration cut twentyfold with its rates to match: its share of the
    // program's time no longer derives from it.
    let (code, out) = gate_on_edited(dir.path(), &doc, |d| {
        let k = slow(d);
        let t = k["kernel"]["duration_s"].as_f64().unwrap();
        k["kernel"]["duration_s"] = (t / 20.0).into();
    });
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("time_share") || out.contains("achieved_flops_per_s"), "{out}");
    // A saving larger than the kernel's own time.
    let (code, out) = gate_on_edited(dir.path(), &doc, |d| {
        d["program"]["opportunities"][0]["saved_s"] = 1e9.into();
    });
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("program.opportunities[0].saved_s"), "{out}");
}
