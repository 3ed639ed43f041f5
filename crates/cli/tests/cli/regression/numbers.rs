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

/// Hardening (issue 27), item 3: `--peak 100` and `--bandwidth 100` were
/// read as FLOP/s and B/s; a rate needs its unit, never guessed.
#[test]
fn a_roof_without_a_unit_is_refused_with_an_example() {
    for (peak, bandwidth, flag) in
        [("100", "4.8 TB/s", "--peak"), ("100 TFLOP/s", "100", "--bandwidth"), ("1e12", "1e11", "--peak")]
    {
        let (code, _, err) = run(&["model", "--peak", peak, "--bandwidth", bandwidth, "-k", "k: flops=1e9 bytes=1e9"]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(flag) && err.contains("unit"), "{err}");
        assert!(err.contains("--peak 100TFLOP/s") || err.contains("--bandwidth 4.8TB/s"), "the fix is shown: {err}");
    }
    // A decimal comma in a flag is not a thousands separator either.
    let (code, _, err) =
        run(&["model", "--peak", "1,5 TFLOP/s", "--bandwidth", "1 TB/s", "-k", "k: flops=1e9 bytes=1e9"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("1,5") && err.contains("comma"), "{err}");
}

/// Hardening (issue 27), items 3 and 5: a decimal comma in a capture
/// (`58784,5` ns) was read as a thousands separator, ten times too long;
/// `1e400` was "treated as absent" (exit 0) where `1e31` was exit 2.
#[test]
fn a_capture_with_a_decimal_comma_or_an_overflowing_number_exits_2_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    for (value, says) in [("58784,5", "LC_NUMERIC=C"), ("1e400", "out of range"), ("1.234,5", "LC_NUMERIC=C")] {
        let mut c = Capture::load("h200_seed000_metrics.csv");
        c.set(0, "gpu__time_duration.sum", value);
        let col = c.col("gpu__time_duration.sum");
        let p = dir.path().join("cap.csv");
        c.write(&p);
        let (code, _, err) = import_json(&p, &[]);
        assert_eq!(code, 2, "{value}: {err}");
        assert!(err.contains(says) && err.contains(value), "{value}: {err}");
        assert!(err.contains("line 6") && err.contains(&format!("column {}", col + 1)), "{err}");
    }
}

/// Hardening (issue 27), item 5: values out of range were echoed as their
/// 309 digits (model TOML, `profile --coverage`, a hand-edited document).
#[test]
fn out_of_range_values_are_echoed_compactly() {
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("k.toml");
    std::fs::write(&toml, "[[kernel]]\nname = \"x\"\nflops = 1e308\nbytes = 1e308\n").unwrap();
    let a = model_json(dir.path(), "a.json", &["k: flops=1e9 bytes=1e9 time=1ms"]);
    let mut doc = crate::support::json_file(&a);
    doc["kernels"][0]["kernel"]["duration_s"] = (-1e300).into();
    let edited = dir.path().join("edited.json");
    std::fs::write(&edited, doc.to_string()).unwrap();
    for args in [
        vec!["model", "--gpu", "h200", s(&toml)],
        vec!["profile", "--coverage", "1e308", "--", "true"],
        vec!["report", s(&edited)],
        vec!["check", s(&edited), "--min-pct-of-roof", "1e308"],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("e308") || err.contains("e300"), "{args:?}: the value is named: {err}");
        assert!(!err.contains("00000000000000000000"), "{args:?}: echoed as hundreds of digits: {err}");
    }
}
