//! The chart's layout under hostile analyses (issue 16: every number that
//! enters a chart is finite and bounded; the layout loops are bounded).
//!
//! Machines and kernels are built from zeros, subnormals, values near
//! `f64::MAX`, infinities, NaN, negative numbers and ordinary figures, and
//! the analyses are then corrupted the way a hand-edited document could be.
//! For any of them and any width, the SVG chart and the terminal chart are
//! drawn in bounded time, every coordinate written is finite and within
//! the canvas's reach, and no two labels overlap.
//!
//! Cases: `ROOFLINE_CHART_CASES` (64 by default; `.ci/run` runs more, the
//! proptest shrinks a failure to its smallest input).

use std::time::{Duration, Instant};

use proptest::prelude::*;
use roofline_analysis::analyze;
use roofline_documents::{AnalysisDocument, AnalysisSource, Producer};
use roofline_model::Kernel;
use roofline_model::{Ceiling, FlopKind, Machine, MemLevel, Origin, Provenance, Resource};

use roofline_report::{roofline_chart, ChartOptions};

fn hostile_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(-0.0),
        Just(5e-324),
        Just(f64::MIN_POSITIVE),
        Just(1e-300),
        Just(9e307),
        Just(f64::MAX),
        Just(f64::INFINITY),
        Just(f64::NAN),
        Just(-1.0),
        1e-3..1e3f64,
        1e6..1e18f64,
        any::<f64>(),
    ]
}

fn resource() -> impl Strategy<Value = Resource> {
    prop_oneof![
        (0..FlopKind::ALL.len()).prop_map(|i| Resource::Compute(FlopKind::ALL[i])),
        (0..MemLevel::ALL.len()).prop_map(|i| Resource::Memory(MemLevel::ALL[i])),
    ]
}

fn machine() -> impl Strategy<Value = Machine> {
    (hostile_f64(), hostile_f64(), prop::collection::vec((resource(), hostile_f64(), any::<bool>()), 0..6)).prop_map(
        |(pi, beta, extra)| {
            let mut m = Machine::simple("hostile", FlopKind::Fp32, pi, beta);
            for (i, (r, rate, theoretical)) in extra.into_iter().enumerate() {
                let origin = if theoretical { Origin::Theoretical } else { Origin::Measured };
                m.ceilings.push(Ceiling::new(r, format!("roof {i}"), rate, Provenance::new(origin, "property test")));
            }
            m
        },
    )
}

fn kernel() -> impl Strategy<Value = Kernel> {
    (
        "[a-z<>:_ ]{0,40}",
        prop::collection::vec((0..FlopKind::ALL.len(), hostile_f64()), 0..3),
        prop::collection::vec((0..MemLevel::ALL.len(), hostile_f64()), 0..3),
        prop::option::of(hostile_f64()),
        0u64..5,
    )
        .prop_map(|(name, flops, bytes, time, launches)| {
            let mut k = Kernel::named(&name, Origin::Counter);
            for (i, f) in flops {
                k.flops.insert(FlopKind::ALL[i], f);
            }
            for (i, b) in bytes {
                k.bytes.insert(MemLevel::ALL[i], b);
            }
            k.duration_s = time;
            k.launches = launches;
            k
        })
}

/// An analysis, then values a hand-edited document could hold.
fn document() -> impl Strategy<Value = AnalysisDocument> {
    (
        machine(),
        prop::collection::vec(kernel(), 0..24),
        prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, hostile_f64()), 0..6),
    )
        .prop_map(|(m, ks, edits)| {
            let src = AnalysisSource { kind: "ncu".into(), detail: "property test".into(), byte_convention: None };
            let mut doc = AnalysisDocument::new(Producer::new("test"), src, m.clone(), analyze(&m, &ks));
            for (i, field, v) in edits {
                if doc.kernels.is_empty() {
                    break;
                }
                let n = doc.kernels.len();
                let a = &mut doc.kernels[i.index(n)];
                match field {
                    0 => a.achieved_flops_per_s = Some(v),
                    1 => a.time_share = Some(v),
                    2 => a.attainable_flops_per_s = Some(v),
                    _ => {
                        if let Some(p) = a.levels.first_mut() {
                            p.intensity = Some(v);
                        }
                    }
                }
            }
            doc
        })
}

fn cases() -> u32 {
    std::env::var("ROOFLINE_CHART_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_shrink_iters: 200, ..ProptestConfig::default() })]

    #[test]
    fn any_analysis_draws_in_bounded_time_with_finite_coordinates(doc in document(), width in 300.0..2500.0f64, cols in 20usize..320) {
        let start = Instant::now();
        let (svg, labels) = roofline_chart(&doc, &ChartOptions { width, ..ChartOptions::default() });
        for (i, a) in labels.iter().enumerate() {
            for b in &labels[i + 1..] {
                prop_assert!(!a.overlaps(b), "labels overlap: {a:?} {b:?}");
            }
        }
        prop_assert!(!svg.contains("NaN") && !svg.contains("inf\""), "a value that is not finite reached the SVG");
        for l in svg.lines() {
            for name in ["x", "y", "x1", "y1", "x2", "y2", "width", "height", "cx", "cy"] {
                let key = format!(" {name}=\"");
                if let Some(start) = l.find(&key) {
                    let v = &l[start + key.len()..];
                    let v: f64 = v[..v.find('"').unwrap()].parse().unwrap();
                    prop_assert!(v.is_finite() && v.abs() <= 1e5, "{name}={v} in {l}");
                }
            }
        }
        let text = roofline_report::terminal_chart(&doc, &roofline_report::chart_model(&doc, None), cols, false);
        prop_assert!(text.lines().count() < 400);
        prop_assert!(start.elapsed() < Duration::from_secs(10), "took {:?}", start.elapsed());
    }
}
