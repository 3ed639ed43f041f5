//! `roofline profile` on a training loop (issue 26): the stand-in CUDA
//! program writes the synthetic ResNet-style timeline of
//! tests/fixtures/timeline/steady/measured.jsonl (2 warm-up steps with cuDNN
//! trial kernels, then 3 steps in NVTX ranges "step N"), and the stand-ins of
//! Nsight Compute either answer (support::stand_in_ncu) or fail as ncu does:
//! a segmentation fault (JAX), ERR_NVGPUCTRPERM, a hang stopped by
//! --timeout, SIGTERM. Whatever pass 2 does, the analysis holds every
//! steady-state kernel of the timeline with its time, says why counters are
//! missing and how to get them, and exits 1.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{json_file, profile_in, repo, script, stand_in_ncu};

/// The steady state of measured.jsonl: 7 kernels, 57 launches.
const STEADY_KERNELS: usize = 7;
const STEADY_LAUNCHES: u64 = 57;
const TRIALS: [&str; 3] = ["implicit_convolve_sgemm", "convolve_common_engine", "cutlass_80_"];

struct Loop {
    dir: tempfile::TempDir,
}

impl Loop {
    fn new() -> Loop {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let fixture = repo("tests/fixtures/timeline/steady/measured.jsonl");
        script(
            d,
            "train",
            // The header's clock is now, as the injection library writes it.
            &format!(
                "[ -n \"$ROOFLINE_TIMELINE_DIR\" ] || exit 0\nnow=$(date +%s%N)\nsed \"s/\\\"unix_ns\\\":[0-9]*/\\\"unix_ns\\\":$now/\" '{fixture}' > \"$ROOFLINE_TIMELINE_DIR/$$.jsonl\""
            ),
        );
        std::fs::write(d.join("libroofline_inject.so"), b"").unwrap();
        // ncu connects, profiles and answers nothing (as when it is stopped
        // before its first result); the success test gives it a capture.
        std::fs::write(d.join("capture.csv"), "==PROF== Connected to process 4102 (/usr/bin/python3)\n").unwrap();
        stand_in_ncu(d, &d.join("capture.csv"));
        Loop { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Replaces the stand-in ncu by one that runs `body` (after answering
    /// `--query-metrics` as one without a GPU does).
    fn ncu(&self, body: &str) {
        script(self.dir.path(), "ncu", &format!("if [ \"$1\" = \"--query-metrics\" ]; then exit 1; fi\n{body}"));
    }

    fn cmd(&self, extra: &[&str]) -> std::process::Command {
        let mut c = profile_in(self.dir.path());
        c.args(["-o", "a.json"]).args(extra).args(["--", "./train"]);
        c
    }

    fn run(&self, extra: &[&str]) -> (Option<i32>, String) {
        let out = self.cmd(extra).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    }

    fn ncu_args(&self) -> String {
        std::fs::read_to_string(self.path("ncu-args")).unwrap_or_default()
    }
}

fn no_counters_s(doc: &Value) -> f64 {
    doc["program"]["by_verdict"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["verdict"] == "no_counters")
        .map(|v| v["seconds"].as_f64().unwrap())
        .unwrap_or(0.0)
}

/// What every failed pass 2 leaves: the steady state's kernels from the
/// timeline, without counters, and one message with the reason and the fix.
fn holds_the_timeline(l: &Loop, stderr: &str, reason: &str, fix: &str) -> Value {
    let doc = json_file(&l.path("a.json"));
    let kernels = doc["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), STEADY_KERNELS, "{stderr}");
    for k in kernels {
        let name = k["kernel"]["name"].as_str().unwrap();
        assert!(k["kernel"]["duration_s"].as_f64().unwrap() > 0.0, "{name}");
        assert!(k["kernel"]["launches"].as_u64().unwrap() >= 3, "{name}: three steps of launches");
        assert!(k["kernel"]["evidence"]["block_size"].as_f64() == Some(256.0), "{name}: its launch shape: {k}");
        assert!(!TRIALS.iter().any(|t| name.contains(t)), "{name} ran only in the warm-up");
    }
    let p = &doc["program"];
    assert_eq!(p["launches"], STEADY_LAUNCHES, "{p}");
    let total = p["total_s"].as_f64().unwrap();
    assert!(total > 0.0 && (no_counters_s(&doc) - total).abs() < 1e-12, "all of it without counters: {p}");
    assert_eq!(p["steady"]["steps"], 3, "{p}");
    let warnings = doc["warnings"].to_string();
    assert!(warnings.contains("counters missing") && warnings.contains(reason) && warnings.contains(fix), "{warnings}");
    assert_eq!(stderr.matches("counters missing").count(), 1, "said once: {stderr}");
    // No point needs a roof: the GPU's name comes from the timeline, and no
    // second message asks for --machine.
    assert!(!stderr.contains("no roofs") && !warnings.contains("no roofs"), "{stderr}");
    assert_eq!(doc["machine"]["name"], "NVIDIA H200", "{}", doc["machine"]);
    assert!(stderr.contains(reason) && stderr.contains(fix), "{stderr}");
    doc
}

#[test]
fn the_plan_covers_the_steady_steps_and_leaves_the_trial_kernels_of_the_warm_up_out() {
    let l = Loop::new();
    // Counters for no kernel of the loop: the bundled tour capture.
    std::fs::copy(repo("tests/fixtures/tour/examples.ncu.csv"), l.path("capture.csv")).unwrap();
    let (code, stderr) = l.run(&[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("could not be placed on CUPTI's clock"), "{stderr}");
    assert!(stderr.contains("steady state: 3 of 3 steps, step 0 to step 2 (NVTX ranges \"step N\""), "{stderr}");
    assert!(stderr.contains("6 kernel(s) that ran only there"), "{stderr}");
    assert!(
        stderr.contains("pass 2/2: profiling 7 of 7 steady-state kernels") || stderr.contains("steady-state kernels"),
        "{stderr}"
    );
    assert!(stderr.contains("pass 2/2: about "), "the estimate comes before pass 2: {stderr}");
    let args = l.ncu_args();
    // The filter lets every name through but the steady kernels left out
    // (a kernel only ncu's run makes stands in for one cuDNN replaced
    // there), and ncu starts matching past the warm-up's trials.
    assert!(args.contains("regex:^(?!(?:_Z27vectorized_elementwise_reluPfi)$).*$"), "{args}");
    assert!(args.contains("--launch-skip-before-match"), "{args}");
    assert!(!TRIALS.iter().any(|t| args.contains(t)), "no trial kernel is named to ncu: {args}");
    let doc = json_file(&l.path("a.json"));
    let steady = &doc["program"]["steady"];
    assert_eq!((steady["steps"].as_u64(), steady["left_out_kernels"].as_u64()), (Some(3), Some(6)), "{steady}");
    assert!(
        steady["left_out_s"].as_f64().unwrap() > doc["program"]["total_s"].as_f64().unwrap(),
        "the warm-up held most of the time"
    );
    assert_eq!(doc["program"]["launches"], STEADY_LAUNCHES);
    assert_eq!(doc["machine"]["name"], "NVIDIA H200", "the GPU's name from the timeline");
    // The terminal view says what was left out.
    let out = l.cmd(&["--format", "table"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("steady state") && text.contains("left out"), "{text}");

    // --steps all: the whole run, trial kernels included.
    let (code, stderr) = l.run(&["--steps", "all", "--coverage", "100"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(TRIALS.iter().all(|t| l.ncu_args().contains(t)), "{}", l.ncu_args());
    assert!(json_file(&l.path("a.json"))["program"].get("steady").is_none());
    // --steps 1..3: the steps at positions 1 and 2.
    let (code, stderr) = l.run(&["--steps", "1..3"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("2 of 3 steps, step 1 to step 2"), "{stderr}");
    let bad = l.run(&["--steps", "0"]);
    assert_eq!(bad.0, Some(2), "{}", bad.1);
}

#[test]
fn a_budget_profiles_the_kernels_with_the_most_time_that_fit_and_says_so() {
    let l = Loop::new();
    std::fs::copy(repo("tests/fixtures/tour/examples.ncu.csv"), l.path("capture.csv")).unwrap();
    // 5 s of ncu start-up and 1.5 x the program's run (well under a second
    // here) leave 2 to 3 s: a few launches at 0.4 s, not the 16 of the plan.
    let (code, stderr) = l.run(&["--budget", "8s", "--coverage", "100"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("--budget 8 s left out"), "{stderr}");
    let eta: u64 = stderr
        .split("pass 2/2: about ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no estimate: {stderr}"));
    assert!(eta <= 8, "the estimate keeps within the budget: {stderr}");
    let args = l.ncu_args();
    let regex = args.lines().find(|a| a.starts_with("regex:")).unwrap_or_else(|| panic!("{args}"));
    let planned = regex.matches('|').count() + 1;
    assert!((1..STEADY_KERNELS).contains(&planned), "some kernels fit, not all: {regex}");
    // A budget the program's own run takes: no ncu run, the timeline kept.
    let _ = std::fs::remove_file(l.path("ncu-args"));
    let (code, stderr) = l.run(&["--budget", "2s"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(l.ncu_args().is_empty(), "ncu was not run for an empty plan");
    holds_the_timeline(&l, &stderr, "--budget fits no kernel", "give --budget more than");
}

#[test]
fn ncu_crashing_with_a_segfault_still_writes_every_kernel_of_the_timeline() {
    let l = Loop::new();
    l.ncu("kill -SEGV $$");
    let (code, stderr) = l.run(&[]);
    assert_eq!(code, Some(1), "{stderr}");
    holds_the_timeline(&l, &stderr, "ncu stopped with", "ncu --metrics gpu__time_duration.sum");
}

#[test]
fn ncu_without_permission_for_the_counters_still_writes_the_timeline_and_says_how_to_allow_them() {
    let l = Loop::new();
    std::fs::write(
        l.path("capture.csv"),
        "==PROF== Connected to process 4242 (/usr/bin/python3)\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0.\n",
    )
    .unwrap();
    let (code, stderr) = l.run(&[]);
    assert_eq!(code, Some(1), "{stderr}");
    holds_the_timeline(&l, &stderr, "ERR_NVGPUCTRPERM", "NVreg_RestrictProfilingToAdminUsers=0");
}

#[test]
fn a_hung_pass_2_stopped_by_the_timeout_still_writes_the_timeline() {
    let l = Loop::new();
    std::fs::write(l.path("sleep"), "60").unwrap();
    let t = Instant::now();
    let (code, stderr) = l.run(&["--timeout", "3s"]);
    assert!(t.elapsed() < Duration::from_secs(40), "stopped, not waited on");
    assert_eq!(code, Some(1), "{stderr}");
    holds_the_timeline(&l, &stderr, "--timeout stopped pass 2", "give --timeout more time");
}

#[test]
fn sigterm_in_pass_2_still_writes_the_timeline() {
    let l = Loop::new();
    std::fs::write(l.path("sleep"), "60").unwrap();
    let child = l.cmd(&[]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let t = Instant::now();
    while !l.path("ncu-sleeping").exists() {
        assert!(t.elapsed() < Duration::from_secs(30), "pass 2 never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: signals the tool this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    holds_the_timeline(&l, &stderr, "pass 2 was interrupted (SIGTERM)", "let pass 2 finish");
}

#[test]
fn an_nvtx_include_selects_by_the_ranges_window_across_threads_and_ncu_filters_by_name() {
    let l = Loop::new();
    std::fs::copy(repo("tests/fixtures/tour/examples.ncu.csv"), l.path("capture.csv")).unwrap();
    let (code, stderr) = l.run(&["--nvtx-include", "step 1/"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("19 kernel launches in 1 range window(s), from every thread"), "{stderr}");
    assert!(!l.ncu_args().contains("--nvtx-include"), "the plan names the kernels: {}", l.ncu_args());
    let doc = json_file(&l.path("a.json"));
    assert_eq!(doc["program"]["launches"], 19, "the autograd thread's backward launches count");
    // ncu's own filter (one pass) is said to see the pushing thread only.
    let (code, stderr) = l.run(&["--one-pass", "--nvtx-include", "step 1/"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(l.ncu_args().contains("--nvtx-include"), "{}", l.ncu_args());
    assert_eq!(stderr.matches("only on the thread that pushed it").count(), 1, "{stderr}");
}
