//! Seed 002's diagnosis tree: when a kernel reaches neither its memory nor
//! its compute roof, occupancy is the first gauge to read, and the diagnosis
//! names the occupancy limiter and what to change.

use roofline_analysis::analyze_kernel;
use roofline_analysis::annotate_evidence;
use roofline_analysis::{Advice, Diagnosis, Finding, Position};
use roofline_model::{FlopKind, MemLevel, Origin};
use roofline_model::{Kernel, Machine};

fn latency_bound_kernel(block: f64, regs: f64, smem: f64) -> Kernel {
    let mut k = Kernel::named("stencil", Origin::Counter);
    k.flops.insert(FlopKind::Fp32, 1e9);
    k.bytes.insert(MemLevel::Dram, 12e9);
    // 5% of the 100 GB/s roof.
    k.duration_s = Some(2.4);
    k.evidence.block_size = Some(block);
    k.evidence.registers_per_thread = Some(regs);
    k.evidence.shared_mem_per_block = Some(smem);
    k
}

/// The occupancy advice: (limiter, hint).
fn occupancy_advice(d: &Diagnosis) -> (String, String) {
    d.next_moves
        .iter()
        .find_map(|m| match &m.advice {
            Advice::OccupancyLimited { limiter, hint } => Some((limiter.clone(), hint.clone().unwrap_or_default())),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no occupancy advice in {:?}", d.next_moves))
}

#[test]
fn latency_bound_diagnosis_names_the_register_limiter_and_the_change() {
    let m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
    let mut k = latency_bound_kernel(256.0, 40.0, 0.0);
    annotate_evidence(&mut k.evidence, 9, 0).unwrap();
    let d = analyze_kernel(&m, &k).diagnosis.unwrap();
    assert_eq!(d.position, Position::LatencyBound);
    assert!(
        d.evidence.iter().any(|e| matches!(e, Finding::Occupancy { theoretical_pct, .. } if *theoretical_pct == 75.0)),
        "{:?}",
        d.evidence
    );
    let (limiter, hint) = occupancy_advice(&d);
    assert_eq!(limiter, "registers");
    assert!(hint.starts_with("use 8 fewer registers per thread (32"), "{hint}");
    assert!(d.next_move_text().contains("occupancy is limited by registers: use 8 fewer registers"));
}

#[test]
fn latency_bound_diagnosis_names_shared_memory_when_it_limits() {
    let m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
    let mut k = latency_bound_kernel(128.0, 32.0, 100.0 * 1024.0);
    annotate_evidence(&mut k.evidence, 9, 0).unwrap();
    let d = analyze_kernel(&m, &k).diagnosis.unwrap();
    let (limiter, hint) = occupancy_advice(&d);
    assert_eq!(limiter, "shared memory");
    assert!(hint.starts_with("use") && hint.contains("bytes less shared memory per block"), "{hint}");
}

#[test]
fn latency_bound_diagnosis_suggests_a_block_size_when_blocks_limit() {
    let m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
    let mut k = latency_bound_kernel(32.0, 32.0, 0.0);
    annotate_evidence(&mut k.evidence, 9, 0).unwrap();
    let d = analyze_kernel(&m, &k).diagnosis.unwrap();
    let (limiter, hint) = occupancy_advice(&d);
    assert!(limiter.starts_with("blocks"), "{limiter}");
    assert!(hint.contains("blocks of 64 threads reach 100% (so do blocks of 1024)"), "{hint}");
}
