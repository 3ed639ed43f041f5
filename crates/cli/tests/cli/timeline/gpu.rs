//! `roofline timeline` on a real CUDA program: the example kernels of the
//! tour (`roofline tour --run-examples`, driver API and NVRTC), recorded by
//! libroofline_inject.so through CUPTI. Needs a GPU and CUDA 13's libcupti;
//! without them it says SKIPPED. On a machine other than the one that
//! built it, `ROOFLINE_BIN` names the roofline binary to use.

use roofline_inject::testing::built_library;

#[test]
fn the_example_kernels_are_recorded_with_their_launches() {
    if roofline_gpu::device::device_count().is_err() {
        roofline_gpu::skip_notice("no GPU; `roofline timeline` on a real CUDA program is not run");
        return;
    }
    let lib =
        built_library(&std::env::current_exe().unwrap()).expect("libroofline_inject.so built as a dev-dependency");
    let dir = tempfile::tempdir().unwrap();
    let doc_path = dir.path().join("run.json");
    let bin = std::env::var("ROOFLINE_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_roofline").to_string());
    let out = std::process::Command::new(&bin)
        .args(["timeline", "--format", "json", "--inject-lib"])
        .arg(&lib)
        .arg("-o")
        .arg(&doc_path)
        .args(["--", &bin, "tour", "--run-examples", "--device", "0"])
        .env_remove("CUDA_INJECTION64_PATH")
        .env_remove("NVTX_INJECTION64_PATH")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&doc_path).unwrap()).unwrap();
    let procs = doc["timeline"]["processes"].as_array().unwrap();
    assert_eq!(procs.len(), 1, "{stderr}");
    let errors = procs[0]["errors"].as_array().cloned().unwrap_or_default();
    if errors.iter().any(|e| e.as_str().is_some_and(|e| e.contains("libcupti not found"))) {
        roofline_gpu::skip_notice(&format!(
            "no CUDA 13 libcupti on this machine ({errors:?}); give --cupti or ROOFLINE_CUPTI_LIB"
        ));
        return;
    }
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(procs[0]["complete"], true);
    assert!(procs[0]["cupti_version"].as_u64().unwrap() >= 130000);
    let names: Vec<&str> =
        doc["summary"]["kernels"].as_array().unwrap().iter().map(|k| k["name"].as_str().unwrap()).collect();
    for k in ["vecadd", "saxpy", "fused", "fma_loop", "matmul_naive"] {
        assert!(names.iter().any(|n| n.starts_with(k)), "{k} missing from {names:?}");
    }
    let acts = doc["timeline"]["activities"].as_array().unwrap();
    let kernels: Vec<_> = acts.iter().filter(|a| a["kind"] == "kernel").collect();
    assert!(kernels.iter().all(|a| a["end_ns"].as_u64() > a["start_ns"].as_u64()), "positive durations");
    assert!(kernels.iter().all(|a| a["grid"].is_array() && a["block"].is_array()));
    let launched = kernels.iter().filter(|a| a["launch"].is_object()).count();
    assert_eq!(launched, kernels.len(), "every kernel joined to its launch call");
    let busy = &doc["summary"]["busy"][0];
    assert!(busy["busy_share"].as_f64().unwrap() > 0.0 && busy["busy_share"].as_f64().unwrap() <= 1.0);
}
