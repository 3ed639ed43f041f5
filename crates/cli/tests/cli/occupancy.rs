//! `roofline occupancy`: seed 002's worked example, the sweeps and charts,
//! and each bad input of issue 6 (exit 2 with the reason).

use assert_cmd::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    // Wide enough that no sentence the tests look for is wrapped.
    let out =
        Command::cargo_bin("roofline").unwrap().env("COLUMNS", "200").arg("occupancy").args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn seed_002_example_40_registers_256_threads_is_48_of_64_warps() {
    let (code, out, _) = run(&["--gpu", "h200", "--threads", "256", "--regs", "40"]);
    assert_eq!(code, 0);
    assert!(out.contains("48 of 64 warps/SM: occupancy 75% (theoretical), limited by registers"), "{out}");
    assert!(out.contains("use 8 fewer registers per thread (32"), "{out}");
    let (code, out, _) = run(&["--cc", "9.0", "--threads", "256", "--regs", "40", "--format", "json"]);
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["occupancy"]["resident_warps"], 48);
    assert_eq!(j["occupancy"]["occupancy_pct"], 75.0);
    assert_eq!(j["occupancy"]["limiters"][0], "registers");
}

#[test]
fn sweeps_write_tables_csv_and_one_chart_each() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("charts");
    let (code, out, _) = run(&[
        "--cc",
        "8.6",
        "--threads",
        "128",
        "--regs",
        "64",
        "--smem-dynamic",
        "32KiB",
        "--sweep",
        "all",
        "--svg-dir",
        svg.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0);
    assert!(out.starts_with("axis,value,resident_blocks"), "{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("registers_per_thread,")).count(), 255);
    for name in ["occupancy-block.svg", "occupancy-regs.svg", "occupancy-smem.svg"] {
        let text = std::fs::read_to_string(svg.join(name)).unwrap();
        assert!(text.starts_with("<svg") && text.contains("theoretical"), "{name}");
    }
}

#[test]
fn more_than_1024_threads_exits_2() {
    let (code, out, err) = run(&["--cc", "9.0", "--threads", "1056", "--regs", "32"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("1056 threads per block: expected 1 to 1024"), "{err}");
}

#[test]
fn registers_above_255_exit_2() {
    let (code, _, err) = run(&["--cc", "9.0", "--threads", "256", "--regs", "256"]);
    assert_eq!(code, 2);
    assert!(err.contains("256 registers per thread: expected at most 255"), "{err}");
}

#[test]
fn shared_memory_beyond_the_opt_in_exits_2_with_the_maximum() {
    let (code, _, err) = run(&["--cc", "9.0", "--threads", "256", "--regs", "32", "--smem-dynamic", "228K"]);
    assert_eq!(code, 2);
    assert!(err.contains("232448 bytes (227 KiB"), "{err}");
}

#[test]
fn unknown_compute_capability_lists_the_known_ones() {
    let (code, _, err) = run(&["--cc", "4.0", "--threads", "256", "--regs", "32"]);
    assert_eq!(code, 2);
    assert!(err.contains("\"4.0\"") && err.contains("7.5") && err.contains("9.0") && err.contains("12.0"), "{err}");
}

#[test]
fn partial_warp_answers_and_warns() {
    let (code, out, err) = run(&["--cc", "9.0", "--threads", "100", "--regs", "32"]);
    assert_eq!(code, 0);
    assert!(out.contains("4 warps/block"), "{out}");
    assert!(err.contains("100 threads is not a multiple of 32"), "{err}");
}

#[test]
fn bad_byte_size_exits_2() {
    let (code, _, err) = run(&["--cc", "9.0", "--threads", "256", "--regs", "32", "--smem-static", "lots"]);
    assert_eq!(code, 2);
    assert!(err.contains("--smem-static \"lots\""), "{err}");
}
