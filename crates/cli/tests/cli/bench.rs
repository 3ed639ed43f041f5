//! `roofline bench` and the live path of `roofline peaks`: what they do
//! without a GPU (every CI machine), and on one when present.

use predicates::prelude::*;

use crate::support::bare_roofline as roofline;

fn gpu_present() -> bool {
    roofline_gpu::device::device_count().is_ok()
}

#[test]
fn bench_without_a_gpu_says_so_and_exits_1() {
    if gpu_present() {
        roofline_gpu::skip_notice("a GPU is present; the no-GPU message is not exercised");
        return;
    }
    roofline()
        .args(["bench", "--quick"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--gpu NAME").and(predicate::str::contains("panicked").not()));
}

#[test]
fn peaks_without_a_gpu_lists_the_known_names() {
    if gpu_present() {
        roofline_gpu::skip_notice("a GPU is present; the no-GPU message is not exercised");
        return;
    }
    roofline()
        .arg("peaks")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("h200").and(predicate::str::contains("--gpu")));
}

#[test]
fn bench_unknown_benchmark_is_bad_input() {
    roofline()
        .args(["bench", "--only", "dramm"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("'dramm'").and(predicate::str::contains("dram.read")));
}

#[test]
fn device_index_out_of_range_is_bad_input_on_a_gpu_machine() {
    if !gpu_present() {
        roofline_gpu::skip_notice("no GPU; device index checks need a driver");
        return;
    }
    roofline().args(["peaks", "--device", "99"]).assert().code(2).stderr(predicate::str::contains("does not exist"));
    roofline().args(["bench", "--device", "99"]).assert().code(2).stderr(predicate::str::contains("does not exist"));
}

#[test]
fn quick_fp32_bench_on_a_gpu_writes_a_machine_with_a_measured_roof() {
    if !gpu_present() {
        roofline_gpu::skip_notice("no GPU; the live benchmark is not run");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.json");
    roofline().args(["bench", "--quick", "--only", "fp32", "-q", "-o"]).arg(&file).assert().success();
    let text = std::fs::read_to_string(&file).unwrap();
    let doc = roofline_documents::read_machine(&text, "m.json").unwrap();
    let roof = doc.machine.compute_roof(roofline_model::FlopKind::Fp32).unwrap();
    assert_eq!(roof.provenance.origin, roofline_model::Origin::Measured);
    assert!(roof.spread.is_some() && roof.rate > 0.0);
    assert!(doc.measurements.is_some());
}
