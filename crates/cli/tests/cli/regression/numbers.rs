//! Numbers at and past the edges: counters of 1e308, clocks that read
//! zero, products that overflow, hand-edited documents out of range; and
//! every document the tool writes, it reads back.

use crate::support::{fixture, import_json, json, model_json, run, s, Capture};

/// Hardening (issue 16), item 7.
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

/// Hardening (issue 16), item 7.
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

/// Hardening (issue 16), item 7.
#[test]
fn model_flops_times_elements_overflow_is_refused() {
    let (code, _, err) =
        run(&["model", "--gpu", "h200", "--format", "json", "--kernel", "k: flops=1e300 bytes=1 elements=1e300"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("flops"), "{err}");
    let (code, _, err) = run(&["model", "--gpu", "h200", "--kernel", "k: flops=1e307 bytes=0.1 time=1ms"]);
    assert_eq!(code, 2, "{err}");
}

/// Hardening (issue 16), item 7.
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

/// Hardening (issue 16), item 7.
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
