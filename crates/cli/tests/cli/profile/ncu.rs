//! `roofline profile` end to end, on any machine: a stand-in `ncu` (a shell
//! script that writes a recorded capture to --log-file and runs the
//! program) in place of Nsight Compute.

use predicates::prelude::PredicateBooleanExt;

use crate::support::{fixture, json_bytes as json, roofline, stand_in_ncu};

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
