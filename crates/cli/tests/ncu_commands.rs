//! `roofline import` and `roofline profile` end to end, on any machine:
//! real H200 captures, and a stand-in `ncu` (a shell script that writes a
//! recorded capture to --log-file and runs the program) for `profile`.

use std::path::PathBuf;

use assert_cmd::Command;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/ncu").join(name)
}

fn roofline() -> Command {
    let mut c = Command::cargo_bin("roofline").unwrap();
    c.env("NO_COLOR", "1");
    c
}

fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

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
    let k = &doc["kernels"][2]["kernel"];
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

#[test]
fn profile_without_ncu_says_how_to_get_it() {
    let dir = tempfile::tempdir().unwrap();
    roofline()
        .env("PATH", dir.path())
        .env_remove("CUDA_HOME")
        .env_remove("CUDA_PATH")
        .args(["profile", "--ncu", "/nonexistent/ncu", "--", "true"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("nsight-compute").and(predicates::str::contains("roofline import")));
}

#[test]
fn profile_of_a_program_that_fails_midway_analyses_what_was_profiled() {
    let dir = tempfile::tempdir().unwrap();
    let ncu = stand_in_ncu(dir.path(), &fixture("h200_seed000_exit3.csv"));
    let out = roofline()
        .arg("profile")
        .arg("--ncu")
        .arg(&ncu)
        .args(["--format", "json", "--", "sh", "-c", "echo from the program; exit 3"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("exited with status 3"))
        .stderr(predicates::str::contains("from the program"))
        .get_output()
        .stdout
        .clone();
    let doc = json(&out);
    let names: Vec<&str> =
        doc["kernels"].as_array().unwrap().iter().map(|k| k["kernel"]["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["vecadd", "saxpy"]);
    assert!(
        doc["warnings"].as_array().unwrap().iter().any(|w| w["code"] == "program_failed" && w["status"] == 3),
        "{}",
        doc["warnings"]
    );
}

#[test]
fn profile_passes_filters_and_its_settings_to_ncu() {
    let dir = tempfile::tempdir().unwrap();
    let ncu = stand_in_ncu(dir.path(), &fixture("h200_seed000_metrics.csv"));
    let saved = dir.path().join("saved.csv");
    let json_out = dir.path().join("a.json");
    roofline()
        .arg("profile")
        .arg("--ncu")
        .arg(&ncu)
        .args(["-k", "regex:vec", "-c", "2", "-s", "1", "--nvtx-include", "step/", "--save-csv"])
        .arg(&saved)
        .arg("-o")
        .arg(&json_out)
        .args(["--", "true", "arg1"])
        .assert()
        .success();
    let args = std::fs::read_to_string(dir.path().join("ncu-args")).unwrap();
    let args: Vec<&str> = args.lines().collect();
    let has = |pair: &[&str]| args.windows(pair.len()).any(|w| w == pair);
    assert!(has(&["--clock-control", "none"]), "{args:?}");
    // The counters go to a report (ncu prints a line per profiled launch
    // then, which --csv mode does not), read back as the raw page in base units.
    let report = args[args.iter().position(|a| *a == "--export").unwrap() + 1];
    assert!(report.ends_with(".ncu-rep"), "{args:?}");
    let import = std::fs::read_to_string(dir.path().join("import-args")).unwrap();
    assert_eq!(
        import.lines().collect::<Vec<_>>(),
        ["--import", report, "--csv", "--page", "raw", "--print-units", "base"]
    );
    assert!(has(&["--kernel-name", "regex:vec"]) && has(&["--launch-count", "2"]) && has(&["--launch-skip", "1"]));
    assert!(has(&["--nvtx", "--nvtx-include", "step/"]));
    assert!(has(&["true", "arg1"]));
    let metrics = args[args.iter().position(|a| *a == "--metrics").unwrap() + 1];
    assert!(metrics.contains("gpu__time_duration.sum") && metrics.contains("dram__bytes.sum"));
    assert!(!metrics.contains("--set"), "a metric list, not a section set");
    assert_eq!(std::fs::read(&saved).unwrap(), std::fs::read(fixture("h200_seed000_metrics.csv")).unwrap());
    assert_eq!(json(&std::fs::read(&json_out).unwrap())["kernels"].as_array().unwrap().len(), 11);
}

#[test]
fn profile_without_access_to_the_counters_explains_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("perm.log");
    std::fs::write(
        &log,
        "==PROF== Connected to process 77 (/app)\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0. For instructions on enabling permissions and to get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM\n==PROF== Disconnected from process 77\n",
    )
    .unwrap();
    let ncu = stand_in_ncu(dir.path(), &log);
    roofline().arg("profile").arg("--ncu").arg(&ncu).args(["--", "true"]).assert().code(1).stderr(
        predicates::str::contains("ERR_NVGPUCTRPERM")
            .and(predicates::str::contains("NVreg_RestrictProfilingToAdminUsers=0")),
    );
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
    assert_eq!(kernels[10]["kernel"]["display_name"], "fma_loop #10");
    assert_eq!(kernels[12]["kernel"]["display_name"], "fma_loop #12");
    // The 4096- and 16-iteration launches of fma_loop are told apart.
    let f = |i: usize| kernels[i]["kernel"]["flops"]["fp32"].as_f64().unwrap();
    assert_eq!(f(10), 8.0 * 4096.0 * 4194304.0 + 6.0 * 4194304.0);
    assert_eq!(f(12), 8.0 * 16.0 * 4194304.0 + 6.0 * 4194304.0);
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

use predicates::prelude::PredicateBooleanExt;

mod support;
use support::stand_in_ncu;
