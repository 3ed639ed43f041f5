//! The main job end to end: `roofline tour` on the bundled H200 data (every
//! machine, CI included) and, where a GPU is present, on the GPU itself.

use assert_cmd::Command;
use serde_json::Value;

fn tour(args: &[&str], dir: &std::path::Path) -> (String, String) {
    let out =
        Command::cargo_bin("roofline").unwrap().arg("tour").args(args).arg("--out-dir").arg(dir).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "tour failed: {stderr}\n{stdout}");
    (stdout, stderr)
}

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn kernel<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kernel"]["display_name"] == name)
        .unwrap_or_else(|| panic!("kernel {name} missing"))
}

fn per_launch_seconds(k: &Value) -> f64 {
    k["kernel"]["duration_s"].as_f64().unwrap() / k["kernel"]["launches"].as_f64().unwrap()
}

#[test]
fn bundled_tour_says_so_first_and_its_report_holds_the_figures() {
    let dir = tempfile::tempdir().unwrap();
    let (stdout, stderr) = tour(&["--bundled", "--wide"], dir.path());
    // The notice is a message (stderr); the data says "bundled" in its summary.
    let first = stderr.lines().next().unwrap();
    assert!(first.starts_with("Showing the bundled data") && first.contains("H200"), "{first}");
    assert!(!stdout.contains("bundled data of"), "{stdout}");
    let data = stdout.lines().find(|l| l.starts_with("data: ")).unwrap();
    assert!(data.contains("bundled") && data.contains("H200"), "{data}");

    let analysis = read_json(&dir.path().join("analysis.json"));
    assert_eq!(analysis["schema"], "roofline.analysis/v2");
    assert_eq!(analysis["source"]["kind"], "ncu");
    let machine = read_json(&dir.path().join("machine.json"));
    assert_eq!(machine["schema"], "roofline.machine/v2");

    // The kernels are judged against the measured roofs, not the datasheet.
    let dram = machine["machine"]["ceilings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["resource"]["which"] == "dram" && b["provenance"]["origin"] == "measured")
        .map(|b| b["rate"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(dram > 4.0e12 && dram < 4.814e12, "measured DRAM roof {dram}");
    let fused = kernel(&analysis, "fused");
    let used = fused["levels"].as_array().unwrap().iter().find(|l| l["level"] == "dram").unwrap()["bandwidth"]
        .as_f64()
        .unwrap();
    assert_eq!(used, dram);

    // Seed 000's fusion: the speed-up printed is the ratio of the durations in the analysis.
    let (s, a, f) = (
        per_launch_seconds(kernel(&analysis, "scale")),
        per_launch_seconds(kernel(&analysis, "add")),
        per_launch_seconds(fused),
    );
    let speedup = (s + a) / f;
    assert!(speedup > 1.3 && speedup < 2.0, "fusion speed-up {speedup}");
    assert!(stdout.contains(&format!("{speedup:.2}x faster")), "{stdout}");

    // The diagnoses the seeds predict.
    let position = |name: &str| kernel(&analysis, name)["diagnosis"]["position"].as_str().unwrap().to_string();
    assert_eq!(position("pointer_chase"), "latency_bound");
    assert_eq!(position("fma_loop_fp64"), "on_roof");
    // The strided copy's sector use is evidence; the bundled capture
    // predates the excess-sector count, so it is not a move.
    let strided = &kernel(&analysis, "strided_copy")["diagnosis"];
    assert!(
        strided["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["code"] == "sector_use" && e["bytes_per_sector"] == 4.0),
        "strided access evidence missing: {strided}"
    );

    // The report is one self-contained file that names every kernel.
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    let fetches = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(!fetches.contains("http://") && !fetches.contains("https://"), "the report fetches something");
    for k in analysis["kernels"].as_array().unwrap() {
        assert!(html.contains(k["kernel"]["display_name"].as_str().unwrap()));
    }
    assert!(stdout.contains("report: ") && stdout.contains("report.html"));
    assert!(stdout.contains("measured ridge, FP32"), "{stdout}");
}

#[test]
fn tour_on_a_gpu_measures_this_gpu() {
    if roofline_gpu::device::device_count().is_err() {
        roofline_gpu::skip_notice("no GPU; the live tour (bench, example kernels, ncu) is not run");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (stdout, stderr) = tour(&[], dir.path());
    assert!(stderr.contains("Measured on this GPU"), "{stderr}");
    assert!(stdout.lines().any(|l| l.starts_with("data: measured now on this GPU")), "{stdout}");
    let analysis = read_json(&dir.path().join("analysis.json"));
    for name in [
        "vecadd",
        "saxpy",
        "scale",
        "add",
        "fused",
        "fma_loop_x1",
        "fma_loop_x4096",
        "fma_loop_fp64",
        "strided_copy",
        "pointer_chase",
        "matmul_naive",
        "matmul_tiled",
    ] {
        let k = kernel(&analysis, name);
        assert!(k["kernel"]["duration_s"].as_f64().unwrap() > 0.0, "{name}");
    }
    assert!(stdout.contains("x faster"), "{stdout}");
}
