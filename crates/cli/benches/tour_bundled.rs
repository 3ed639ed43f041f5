//! Wall time of the main job without a GPU (`roofline tour --bundled`), the
//! path a fresh clone takes on a machine with no GPU. Target: under 5 s.
//!
//! Runs the release binary 10 times (after one warm-up run) and prints the
//! median, minimum and maximum; exits 1 when the median misses the target.
//!
//!   cargo bench -p roofline --bench tour_bundled

use std::process::Command;
use std::time::Instant;

const TARGET_S: f64 = 5.0;
const RUNS: usize = 10;

fn main() {
    let exe = env!("CARGO_BIN_EXE_roofline");
    let dir = std::env::temp_dir().join(format!("roofline-tour-bench-{}", std::process::id()));
    let run = || {
        let t = Instant::now();
        let out = Command::new(exe).args(["tour", "--bundled", "--out-dir"]).arg(&dir).output().expect("run roofline");
        assert!(out.status.success(), "tour failed: {}", String::from_utf8_lossy(&out.stderr));
        t.elapsed().as_secs_f64()
    };
    run();
    let mut times: Vec<f64> = (0..RUNS).map(|_| run()).collect();
    times.sort_by(f64::total_cmp);
    let median = (times[RUNS / 2 - 1] + times[RUNS / 2]) / 2.0;
    println!(
        "roofline tour --bundled: median {:.1} ms, min {:.1} ms, max {:.1} ms over {RUNS} runs (target < {TARGET_S} s)",
        median * 1e3,
        times[0] * 1e3,
        times[RUNS - 1] * 1e3
    );
    let _ = std::fs::remove_dir_all(&dir);
    if median >= TARGET_S {
        eprintln!("the no-GPU main job took {median:.2} s, over the {TARGET_S} s target");
        std::process::exit(1);
    }
}
