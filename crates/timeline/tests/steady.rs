//! Step detection on recorded timelines: the synthetic training loops of
//! tests/fixtures/timeline/steady (record files, see their README) and the
//! real H200 recording of examples/pytorch/train_gpt.py.

use std::io::BufReader;

use roofline_timeline::{
    find_steps, ncu_nvtx_pattern, read_sources, read_timeline, steady_timeline, within_ranges, Plan, PlanOptions,
    StepChoice, Timeline,
};

fn fixture(path: &str) -> String {
    format!("{}/../../tests/fixtures/timeline/{path}", env!("CARGO_MANIFEST_DIR"))
}

fn records(name: &str) -> Timeline {
    let path = fixture(&format!("steady/{name}"));
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let tl = read_sources(vec![(name.to_string(), BufReader::new(file))], None);
    assert!(tl.warnings.is_empty(), "{name}: {:?}", tl.warnings);
    tl
}

const TRIAL_WORDS: [&str; 4] =
    ["implicit_convolve", "convolve_common", "cutlass_80", "xmma_dgrad_implicit_gemm_indexed"];

fn is_trial(name: &str) -> bool {
    TRIAL_WORDS.iter().any(|w| name.contains(w)) || name.contains("dgrad_engine")
}

/// Kernels per step: 9 forward, 9 backward, 1 optimizer; the two warm-up
/// steps add 9 trial launches each.
const STEADY_LAUNCHES: usize = 19;

#[test]
fn every_synthetic_loop_keeps_its_three_steady_steps_and_no_trial_kernel() {
    // Unmarked, the second warm-up step's work after its trial kernels
    // repeats like a steady step's, and counts as one: its trial kernels
    // are still left out.
    for (name, basis, total_steps, kept_steps) in [
        ("marked.jsonl", "NVTX ranges \"step N\"", 5, 3),
        ("measured.jsonl", "NVTX ranges \"step N\"", 3, 3),
        ("unmarked.jsonl", "a repeating sequence of 19 kernel launches", 4, 4),
    ] {
        let tl = records(name);
        assert_eq!(tl.kernel_count(), 5 * STEADY_LAUNCHES + 18, "{name}");
        let steps = find_steps(&tl, &StepChoice::default()).unwrap().unwrap_or_else(|| panic!("{name}: no steps"));
        assert_eq!(steps.basis, basis, "{name}");
        assert_eq!(steps.steps.len(), total_steps, "{name}");
        assert_eq!(steps.kept, kept_steps, "{name}: {steps:?}");
        let (kept, state) = steady_timeline(&tl, &steps);
        // The backward launches of the autograd thread count, by their time.
        assert_eq!(kept.kernel_count(), kept_steps * STEADY_LAUNCHES, "{name}");
        assert_eq!(state.left_out_kernels, 6, "{name}: the six trial engines ran only in the warm-up");
        let total: u64 = tl.activities.iter().map(|a| a.duration_ns()).sum();
        let left = state.left_out_s * 1e9 / total as f64;
        assert!(left > 0.7 && left < 0.9, "{name}: warm-up share {left}");
        // The plan of the steady state names no trial kernel, and covers its time.
        let plan = Plan::of(&kept, PlanOptions::default());
        assert!(plan.kernels.iter().all(|k| !is_trial(&k.name)), "{name}: {:?}", plan.kernels);
        assert!(plan.covered_share >= 0.95, "{name}");
        // Of the whole run, the trial kernels would lead the plan.
        let whole = Plan::of(&tl, PlanOptions::default());
        assert!(is_trial(&whole.kernels[0].name), "{name}: {}", whole.kernels[0].name);
    }
}

#[test]
fn the_recorded_gpt_training_run_keeps_its_step_ranges_and_leaves_the_warmup_ranges_out() {
    let path = fixture("train_gpt_h200.timeline.json.gz");
    let out = std::process::Command::new("gzip").args(["-dc", &path]).output().expect("gzip reads the fixture");
    assert!(out.status.success());
    let doc = read_timeline(std::str::from_utf8(&out.stdout).unwrap(), &path).unwrap();
    let tl = &doc.timeline;
    let step_ranges = tl.ranges.iter().filter(|r| r.name.starts_with("step ")).count();
    let steps = find_steps(tl, &StepChoice::default()).unwrap().unwrap();
    assert_eq!(steps.basis, "NVTX ranges \"step N\"");
    assert_eq!(steps.steps.len(), step_ranges, "\"warmup N\" ranges are not steps");
    assert!(steps.steps[0].label == "step 0" && steps.kept >= 1, "{steps:?}");
    let (kept, state) = steady_timeline(tl, &steps);
    assert!(state.left_out_launches > 0 && state.left_out_s > 0.0, "the warm-up steps ran kernels: {state:?}");
    assert!(kept.kernel_count() > 0 && kept.kernel_count() < tl.kernel_count());
    let first = tl.ranges.iter().find(|r| r.name == steps.steps[steps.first].label).unwrap();
    assert!(
        kept.activities.iter().all(|a| a.asked_at_ns() >= first.start_ns),
        "nothing asked for before the first kept step"
    );
}

#[test]
fn an_nvtx_filter_selects_by_the_ranges_window_so_the_autograd_threads_backward_counts() {
    let tl = records("measured.jsonl");
    let (one, matched) = within_ranges(&tl, &[ncu_nvtx_pattern("step 1/")]);
    assert_eq!(matched, 1);
    assert_eq!(one.kernel_count(), STEADY_LAUNCHES, "forward, backward and optimizer of one step");
    let backward = one.activities.iter().filter(|a| a.launch.is_some_and(|l| l.tid == 2)).count();
    assert_eq!(backward, 9, "launched from the autograd thread, outside any range of its own");
    let (all, matched) = within_ranges(&tl, &[ncu_nvtx_pattern("default@step */")]);
    assert_eq!((matched, all.kernel_count()), (3, 3 * STEADY_LAUNCHES));
}
