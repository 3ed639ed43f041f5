//! The occupancy calculator against the CUDA driver's answers on an H200.
//!
//! `fixtures/occupancy_h200_grid.csv` was written by
//! `roofline occupancy --verify-device` on an NVIDIA H200: for each grid point
//! (kernels compiled by NVRTC with `--maxrregcount`, their real register
//! count and static shared memory, block sizes, dynamic shared memory up to
//! the opt-in maximum, carveout preferences) it holds what
//! `cuOccupancyMaxActiveBlocksPerMultiprocessor` answered. This test replays
//! every row through the calculator on any machine, so a change to the rules
//! that breaks agreement with the driver fails CI.

use roofline_analysis::{limits, max_active_blocks, Launch};

const GRID: &str = include_str!("fixtures/occupancy_h200_grid.csv");

#[test]
fn calculator_agrees_with_the_h200_driver_on_every_grid_point() {
    let l = limits(9, 0).unwrap();
    let mut lines = GRID.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name}"));
    let (regs, stat, threads, dynamic, carveout, driver) = (
        col("regs"),
        col("static_smem"),
        col("threads"),
        col("dynamic_smem"),
        col("carveout_pct"),
        col("driver_blocks"),
    );
    let mut points = 0;
    let mut disagreements = Vec::new();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let n = |i: usize| f[i].parse::<i64>().unwrap_or_else(|_| panic!("bad number in {line}"));
        let mut launch = Launch::new(n(threads) as u32, n(regs) as u32).with_smem(n(stat) as u64, n(dynamic) as u64);
        launch.carveout_pct = u32::try_from(n(carveout)).ok();
        let expected = n(driver).max(0) as u32;
        let got = max_active_blocks(&l, &launch);
        points += 1;
        if got != expected {
            disagreements.push(format!("{line}: calculator {got}, driver {expected}"));
        }
    }
    assert!(points > 10_000, "the grid has only {points} points");
    assert!(
        disagreements.is_empty(),
        "{} of {points} points disagree, first: {:?}",
        disagreements.len(),
        &disagreements[..disagreements.len().min(10)]
    );
}
