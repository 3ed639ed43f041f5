//! `occupancy` of sizes that overflow and of a launch that cannot run.

use crate::support::run;

/// Hardening (issue 16), item 11.
#[test]
fn occupancy_shared_memory_sizes_that_overflow_are_bad_input() {
    let (code, _, err) = run(&[
        "occupancy",
        "--cc",
        "9.0",
        "--threads",
        "256",
        "--regs",
        "32",
        "--smem-static",
        "18446744073709550616",
        "--smem-dynamic",
        "2000",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("shared memory") && !err.contains("panicked"), "{err}");
    let (code, _, err) = run(&[
        "occupancy",
        "--cc",
        "9.0",
        "--threads",
        "256",
        "--regs",
        "32",
        "--smem-static",
        "18446744073709551615K",
    ]);
    assert_eq!(code, 2, "{err}");
}

/// Hardening (issue 16), item 11.
#[test]
fn occupancy_of_a_launch_that_cannot_run_exits_1_with_the_reason() {
    let (code, out, err) = run(&["occupancy", "--cc", "9.0", "--threads", "1024", "--regs", "255"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("cannot run") && err.contains("registers"), "{err}");
    assert!(!out.is_empty(), "the calculator's answer is still printed");
}
