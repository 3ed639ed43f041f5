//! Properties of the model that must hold for every input.

use proptest::prelude::*;
use roofline_analysis::{analyze_kernel, Bound, KernelAnalysis};
use roofline_model::Pipe;
use roofline_model::PipeUse;
use roofline_model::{attainable, ridge_point, Kernel};
use roofline_model::{format_si, parse_quantity, Unit};
use roofline_model::{FlopKind, Machine, MemLevel, Origin};

/// The first float of an analysis that is NaN or infinite, as Debug prints
/// it (serde_json would write it as null, so the JSON cannot show it).
fn non_finite(a: &KernelAnalysis) -> Option<String> {
    let text = format!("{a:?}");
    for bad in ["NaN", "inf", "-inf"] {
        for (before, after) in [(": ", ","), (": ", " }"), ("(", ")"), ("[", ","), (", ", ","), (", ", "]")] {
            let token = format!("{before}{bad}{after}");
            if text.contains(&token) {
                return Some(token);
            }
        }
    }
    None
}

#[test]
fn the_finiteness_check_catches_a_nan_and_an_infinity() {
    let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
    let mut k = Kernel::named("k", Origin::Counter);
    k.flops.insert(FlopKind::Fp32, 1e9);
    k.bytes.insert(MemLevel::Dram, 1e9);
    k.duration_s = Some(1.0);
    let a = analyze_kernel(&m, &k);
    assert_eq!(non_finite(&a), None);
    let mut bad = a.clone();
    bad.pct_of_roof = Some(f64::NAN);
    assert!(non_finite(&bad).is_some());
    let mut bad = a.clone();
    bad.total_flops = f64::INFINITY;
    assert!(non_finite(&bad).is_some());
    let mut bad = a;
    bad.levels[0].bytes = f64::NEG_INFINITY;
    assert!(non_finite(&bad).is_some());
}

fn rate() -> impl Strategy<Value = f64> {
    (1e6f64..1e16).prop_map(|x| x)
}

proptest! {
    #[test]
    fn attainable_never_exceeds_either_roof(pi in rate(), beta in rate(), i in 1e-4f64..1e5) {
        let a = attainable(pi, beta, i);
        prop_assert!(a <= pi);
        prop_assert!(a <= i * beta * (1.0 + 1e-12));
        prop_assert!(a > 0.0);
    }

    #[test]
    fn a_kernel_at_the_ridge_is_held_by_both_roofs(pi in rate(), beta in rate()) {
        let ridge = ridge_point(pi, beta);
        let a = attainable(pi, beta, ridge);
        prop_assert!((a - pi).abs() <= 1e-9 * pi);
        prop_assert!((a - ridge * beta).abs() <= 1e-9 * pi);
        prop_assert_eq!(Bound::classify(ridge, ridge), Bound::Compute);
        prop_assert_eq!(Bound::classify(ridge * 0.999, ridge), Bound::Memory);
    }

    #[test]
    fn every_number_of_an_analysis_is_finite(
        flops in prop_oneof![Just(0.0), 1.0f64..1e15],
        dram in prop_oneof![Just(0.0), 1.0f64..1e12],
        l1 in prop_oneof![Just(0.0), 1.0f64..1e13],
        dur in prop_oneof![Just(0.0), 1e-9f64..10.0],
        reads in prop_oneof![Just(0.0), 1.0f64..1e12],
        writes in prop_oneof![Just(0.0), 1.0f64..1e12],
        waves in prop_oneof![Just(0.0), 0.001f64..100.0],
        pipe in prop_oneof![Just(0.0), 0.0f64..100.0],
    ) {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        let mut k = Kernel::named("k", Origin::Counter);
        k.flops.insert(FlopKind::Fp32, flops);
        k.bytes.insert(MemLevel::Dram, dram);
        k.bytes.insert(MemLevel::L1, l1);
        k.duration_s = Some(dur);
        k.evidence.dram_read_bytes = Some(reads);
        k.evidence.dram_write_bytes = Some(writes);
        k.evidence.waves = Some(waves);
        k.evidence.grid_size = Some(100.0);
        k.evidence.global_load_sectors = Some(reads / 32.0);
        k.evidence.global_store_sectors = Some(writes / 32.0);
        k.evidence.global_load_bytes_per_sector = Some(4.0);
        k.evidence.warp_instructions = Some(flops / 64.0);
        k.evidence.pipes.insert(Pipe::Alu, PipeUse { pct_of_peak: Some(pipe), warp_instructions: Some(flops / 64.0) });
        let a = analyze_kernel(&m, &k);
        prop_assert_eq!(non_finite(&a), None);
        if let (Some(att), true) = (a.attainable_flops_per_s, flops > 0.0) { prop_assert!(att <= 1e12 * (1.0 + 1e-12)); }
    }

    #[test]
    fn rates_round_trip_through_text(x in 1f64..1e17) {
        for unit in [Unit::FlopPerSecond, Unit::BytePerSecond, Unit::Flop, Unit::Byte] {
            let text = format_si(x, unit);
            let back = parse_quantity(&text, unit).unwrap();
            // Three significant digits at least: within 0.5%.
            prop_assert!((back - x).abs() / x < 0.005, "{} -> {} -> {}", x, text, back);
        }
    }

    #[test]
    fn durations_round_trip_through_text(x in 1e-9f64..100.0) {
        let text = format_si(x, Unit::Second);
        let back = parse_quantity(&text, Unit::Second).unwrap();
        prop_assert!((back - x).abs() / x < 0.005, "{} -> {} -> {}", x, text, back);
    }
}
