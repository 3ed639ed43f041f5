//! Properties of the model that must hold for every input.

use proptest::prelude::*;
use roofline_core::machine::{FlopKind, Machine, MemLevel, Origin};
use roofline_core::units::{format_si, parse_quantity, Unit};
use roofline_core::{analyze_kernel, attainable, ridge_point, Bound, Kernel};

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
    fn analysis_never_prints_nan_or_inf(flops in 0f64..1e15, bytes in 0f64..1e12, dur in prop_oneof![Just(0.0), 1e-9f64..10.0]) {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        let mut k = Kernel::named("k", Origin::Counter);
        k.flops.insert(FlopKind::Fp32, flops);
        k.bytes.insert(MemLevel::Dram, bytes);
        k.duration_s = Some(dur);
        let a = analyze_kernel(&m, &k);
        let json = serde_json::to_string(&a).unwrap();
        prop_assert!(!json.contains("NaN") && !json.contains("inf"), "{}", json);
        if let Some(p) = a.achieved_flops_per_s { prop_assert!(p.is_finite()); }
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
