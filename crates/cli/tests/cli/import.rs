//! `roofline import` end to end, on any machine: real H200 captures, and
//! Nsight Compute reports read back through a stand-in `ncu --import`.

use predicates::prelude::PredicateBooleanExt;

use crate::support::{fixture, json_bytes as json, roofline};

#[test]
fn import_writes_an_analysis_document_with_full_and_short_names() {
    let out = roofline()
        .args(["import", "--format", "json"])
        .arg(fixture("h200_gemms_metrics.csv"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let doc = json(&out);
    assert_eq!(doc["schema"], "roofline.analysis/v2");
    assert_eq!(doc["source"]["kind"], "ncu");
    let third = doc["kernels"].as_array().unwrap().iter().find(|k| k["kernel"]["capture_order"] == 3).unwrap();
    let k = &third["kernel"];
    assert!(k["name"].as_str().unwrap().starts_with("void cutlass::Kernel2<cutlass_80_simt_sgemm"));
    assert_eq!(k["display_name"], "cutlass::Kernel2<…>");
    assert_eq!(k["id"].as_str().unwrap().len(), 7);
    let d = &doc["kernels"][0]["diagnosis"];
    assert!(d["next_moves"][0]["code"].is_string(), "{d}");
    assert!(d["evidence"][0]["code"].is_string(), "{d}");
}

#[test]
fn import_of_a_missing_file_is_bad_input() {
    roofline()
        .args(["import", "/nonexistent/capture.csv"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("/nonexistent/capture.csv"));
}

#[test]
fn import_of_a_report_without_ncu_says_how_to_export_it() {
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("app.ncu-rep");
    std::fs::write(&rep, b"\x00binary").unwrap();
    roofline()
        .env("PATH", dir.path())
        .env_remove("CUDA_HOME")
        .env_remove("CUDA_PATH")
        .arg("import")
        .arg(&rep)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("ncu --import").and(predicates::str::contains("--csv --page raw")));
}

#[test]
fn import_of_a_report_goes_through_ncu_import() {
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"{}\"\ncat \"{}\"\n",
        dir.path().join("ncu-args").display(),
        fixture("h200_gemms_metrics.csv").display()
    );
    let ncu = dir.path().join("ncu");
    std::fs::write(&ncu, script).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&ncu, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let rep = dir.path().join("app.ncu-rep");
    std::fs::write(&rep, b"\x00binary").unwrap();
    let out = roofline()
        .args(["import", "--format", "json", "--ncu"])
        .arg(&ncu)
        .arg(&rep)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(json(&out)["kernels"].as_array().unwrap().len(), 4);
    let args = std::fs::read_to_string(dir.path().join("ncu-args")).unwrap();
    let args: Vec<&str> = args.lines().collect();
    assert_eq!(args, ["--import", rep.to_str().unwrap(), "--csv", "--page", "raw", "--print-units", "base"]);
}

/// `import --per-launch` streams its JSON document (each launch placed as it
/// is read and spilled to a temporary file): read from stdin, into `-o` and
/// stdout at once, it is the document the whole-capture path makes
/// (`--kernels .` takes that path), with the same messages, and it leaves
/// nothing in the temporary folder.
#[test]
fn import_per_launch_from_stdin_streams_the_document_the_whole_capture_path_makes() {
    let dir = tempfile::tempdir().unwrap();
    let spill = dir.path().join("tmp");
    std::fs::create_dir(&spill).unwrap();
    let file = dir.path().join("out.json");
    let capture = std::fs::read(fixture("h200_seed000_full.csv")).unwrap();
    let run = |extra: &[&str]| {
        let out = roofline()
            .env("TMPDIR", &spill)
            .args(["import", "-", "--per-launch", "--gpu", "h200", "--format", "json"])
            .args(extra)
            .write_stdin(capture.clone())
            .assert()
            .success()
            .get_output()
            .clone();
        (out.stdout, String::from_utf8(out.stderr).unwrap())
    };
    let (whole, whole_said) = run(&["--kernels", "."]);
    let (streamed, said) = run(&[]);
    assert!(whole == streamed, "the streamed document differs");
    assert_eq!(said, whole_said);
    assert!(said.contains("launch(es) of"), "{said}");
    let (both, _) = run(&["-o", file.to_str().unwrap()]);
    assert!(both == whole && std::fs::read(&file).unwrap() == whole, "-o and stdout differ");
    assert_eq!(std::fs::read_dir(&spill).unwrap().count(), 0, "temporary files left");
}

#[test]
fn import_per_launch_gives_one_point_per_launch() {
    let out = roofline()
        .args(["import", "--per-launch", "--format", "json"])
        .arg(fixture("h200_seed000_metrics.csv"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let doc = json(&out);
    let kernels = doc["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), 24);
    // Sorted by time; the capture's order is kept on each launch.
    let launch = |order: u64| {
        kernels
            .iter()
            .position(|k| k["kernel"]["capture_order"] == order)
            .unwrap_or_else(|| panic!("no launch {order}"))
    };
    let (ten, twelve) = (launch(11), launch(13));
    assert_eq!(kernels[ten]["kernel"]["display_name"], "fma_loop #10");
    assert_eq!(kernels[twelve]["kernel"]["display_name"], "fma_loop #12");
    let times: Vec<f64> = kernels.iter().map(|k| k["kernel"]["duration_s"].as_f64().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "most time first: {times:?}");
    // The 4096- and 16-iteration launches of fma_loop are told apart.
    let f = |i: usize| kernels[i]["kernel"]["flops"]["fp32"].as_f64().unwrap();
    assert_eq!(f(ten), 8.0 * 4096.0 * 4194304.0 + 6.0 * 4194304.0);
    assert_eq!(f(twelve), 8.0 * 16.0 * 4194304.0 + 6.0 * 4194304.0);
}

#[test]
fn import_against_a_given_machine_keeps_the_counter_peak_percentages() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("h200.json");
    roofline().args(["peaks", "--gpu", "h200", "-o"]).arg(&m).assert().success();
    let out = roofline()
        .args(["import", "--format", "json", "--machine"])
        .arg(&m)
        .arg(fixture("h200_seed000_metrics.csv"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let doc = json(&out);
    let k = &doc["kernels"][0];
    assert!(k["kernel"]["evidence"]["counter_pct_of_roof"].as_f64().unwrap() > 0.0);
    assert!(k["pct_of_roof"].as_f64().unwrap() > 0.0);
    assert_ne!(doc["machine"]["name"].as_str().unwrap(), "counter peaks (Nsight Compute)");
}
