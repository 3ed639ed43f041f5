//! Reading Nsight Compute captures and reports: launches without a
//! duration, lines that are not launches, two captures in one file, units,
//! CSV of another shape, a report ncu fails to read back or prints nothing
//! of, a capture without kernel names.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::support::{fixture, import_json, kernel, roofline, run, s, script, Capture};

fn make_executable(path: &Path, script: &str) {
    std::fs::write(path, script).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Hardening (issue 16), item 5.
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

/// Hardening (issue 16), item 5.
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

/// Hardening (issue 16), item 6.
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

/// Hardening (issue 16), item 6.
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

/// Hardening (issue 16), item 9.
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

/// Hardening (issue 16), item 9.
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

/// Hardening (issue 16), item 9.
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

/// Hardening (issue 16), item 14.
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

/// Hardening (issue 16), item 14.
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

/// Hardening (issue 16), item 14.
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

/// Adversarial pass 4.
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

/// Adversarial pass 4.
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
