//! The SVG charts: snapshots (byte-for-byte determinism) and the promises
//! of the chart checked on the SVG text: every ceiling labelled with its
//! value, theoretical dashed and measured solid, one marker per kernel per
//! level, labels that do not overlap, missing ceilings said on the chart.

use roofline_core::analyze;
use roofline_core::diff::{diff, Pairing};
use roofline_core::estimate::parse_kernel_spec;
use roofline_core::machine::{FlopKind, Machine};
use roofline_core::schema::{AnalysisDocument, AnalysisSource, Producer};

use roofline_report::{diff_chart, diff_svg, roofline_chart, roofline_svg, ChartOptions, Rect};

mod samples;

fn no_overlaps(labels: &[Vec<Rect>]) -> Result<(), String> {
    for (i, a) in labels.iter().enumerate() {
        for (j, b) in labels.iter().enumerate().skip(i + 1) {
            if a.iter().any(|x| b.iter().any(|y| x.overlaps(y))) {
                return Err(format!("label {i} {a:?} overlaps label {j} {b:?}"));
            }
        }
    }
    Ok(())
}

#[test]
fn snapshot_hierarchical_h200() {
    let svg = roofline_svg(&samples::hierarchical_h200(), &ChartOptions::default());
    insta::assert_snapshot!("hierarchical_h200", svg);
}

#[test]
fn snapshot_seed_000_before_fusion() {
    let svg = roofline_svg(&samples::seed_000_before(), &ChartOptions::default());
    insta::assert_snapshot!("seed_000_before", svg);
}

#[test]
fn snapshot_seed_000_fusion_diff() {
    let (b, a) = (samples::seed_000_before(), samples::seed_000_after());
    let d = diff(&b, &a, &[Pairing::parse("scale+add=fused").unwrap()]).unwrap();
    insta::assert_snapshot!("seed_000_fusion_diff", diff_svg(&b, &a, &d, &ChartOptions::default()));
}

#[test]
fn same_input_same_bytes() {
    let doc = samples::hierarchical_h200();
    let opts = ChartOptions::default();
    assert_eq!(roofline_svg(&doc, &opts), roofline_svg(&doc.clone(), &opts));
}

#[test]
fn labels_do_not_overlap() {
    for doc in [samples::hierarchical_h200(), samples::seed_000_before(), samples::seed_000_after()] {
        for width in [960.0, 720.0] {
            let (_, labels) = roofline_chart(&doc, &ChartOptions { width, ..ChartOptions::default() });
            assert!(labels.len() > 5, "{}", labels.len());
            no_overlaps(&labels).unwrap_or_else(|e| panic!("{} at {width}px: {e}", doc.source.detail));
        }
    }
    let (b, a) = (samples::seed_000_before(), samples::seed_000_after());
    for pairings in [vec![], vec![Pairing::parse("scale+add=fused").unwrap()]] {
        let d = diff(&b, &a, &pairings).unwrap();
        no_overlaps(&diff_chart(&b, &a, &d, &ChartOptions::default()).1).unwrap();
    }
}

#[test]
fn every_ceiling_is_labelled_with_its_value() {
    let doc = samples::hierarchical_h200();
    let svg = roofline_svg(&doc, &ChartOptions::default());
    for c in doc.machine.compute() {
        let value = c.formatted();
        assert!(
            svg.contains(&format!("{}: {value}", c.name)) || svg.contains(&format!("{}, ", c.name)),
            "{} {value}",
            c.name
        );
        assert!(svg.contains(&value), "{value}");
    }
    for b in doc.machine.bandwidth() {
        let text = format!("{}: {}", b.name, b.formatted());
        assert!(svg.contains(&format!(">{text}</text>")), "{text}");
    }
}

#[test]
fn theoretical_ceilings_dashed_measured_solid() {
    let svg = roofline_svg(&samples::hierarchical_h200(), &ChartOptions::default());
    let roof_lines: Vec<&str> = svg.lines().filter(|l| l.starts_with("<line class=\"roof")).collect();
    let dashed = |name: &str| {
        let l = roof_lines.iter().find(|l| l.contains(&format!("<title>{name}: "))).unwrap_or_else(|| panic!("{name}"));
        l.contains("stroke-dasharray")
    };
    assert!(dashed("DRAM") && dashed("FP32") && dashed("L1/shared"));
    assert!(!dashed("DRAM (measured)") && !dashed("L2 (measured)") && !dashed("FP32 (measured)"));
}

#[test]
fn one_marker_per_kernel_per_level_coloured_by_bound() {
    let doc = samples::hierarchical_h200();
    let svg = roofline_svg(&doc, &ChartOptions::default());
    for (i, a) in doc.kernels.iter().enumerate() {
        let expected = a.levels.iter().filter(|p| p.intensity.is_some()).count();
        let marks: Vec<&str> = svg.lines().filter(|l| l.contains(&format!("class=\"pt\" data-k=\"{i}\""))).collect();
        assert_eq!(marks.len(), expected, "{}", a.kernel.name);
        let colour = match a.bound {
            Some(roofline_core::Bound::Memory) => "#0072b2",
            Some(roofline_core::Bound::Compute) => "#d55e00",
            None => "#777777",
        };
        assert!(marks.iter().all(|m| m.contains(&format!("stroke=\"{colour}\""))), "{}", a.kernel.name);
    }
    // Bigger share, bigger marker: sgemm_tiled (42%) against stencil7 (5%).
    let r = |name: &str| {
        let i = doc.kernels.iter().position(|a| a.kernel.name == name).unwrap();
        let l = svg.lines().find(|l| l.starts_with("<circle") && l.contains(&format!("data-k=\"{i}\""))).unwrap();
        let v = &l[l.find(" r=\"").unwrap() + 4..];
        v[..v.find('"').unwrap()].parse::<f64>().unwrap()
    };
    assert!(r("sgemm_tiled") > r("stencil7") + 3.0);
}

#[test]
fn ridge_points_are_marked() {
    let doc = samples::seed_000_before();
    let svg = roofline_svg(&doc, &ChartOptions::default());
    // The T4's FP32 roof (8141 GFLOP/s) against its DRAM (320 GB/s): 25.4 FLOP/B.
    assert!(svg.contains("ridge point 8141 GFLOP/s x DRAM: 25.4 FLOP/B"), "no ridge");
}

#[test]
fn missing_ceiling_is_said_on_the_chart() {
    let m = Machine::simple("fp32-only", FlopKind::Fp32, 1e13, 1e12);
    let ks = vec![
        parse_kernel_spec("dgemm_tc: flops=2e12 bytes=1e9 kind=tensor_fp64 time=1ms").unwrap(),
        parse_kernel_spec("axpy: flops=2 bytes=12 elements=1e8 time=1.5ms").unwrap(),
    ];
    let src = AnalysisSource { kind: "model".into(), detail: String::new(), byte_convention: None };
    let doc = AnalysisDocument::new(Producer::new("test"), src, m.clone(), analyze(&m, &ks));
    let svg = roofline_svg(&doc, &ChartOptions::default());
    assert!(svg.contains("fp32-only has no ceiling for FP64 tensor FLOPs: dgemm_tc is judged without it"), "{svg}");
    assert!(svg.contains("no roof to judge by"), "legend");
}

#[test]
fn many_kernels_stay_readable() {
    let m = samples::known_machine("h200");
    let ks: Vec<_> = (0..80)
        .map(|i| {
            let bytes = 4.0 + (i % 17) as f64 * 3.0;
            let t = 0.1 + (i % 7) as f64 * 0.05;
            parse_kernel_spec(&format!("kernel_{i:02}: flops={} bytes={bytes} elements=1e8 time={t}ms", 1 + i % 9))
                .unwrap()
        })
        .collect();
    let src = AnalysisSource { kind: "model".into(), detail: String::new(), byte_convention: None };
    let doc = AnalysisDocument::new(Producer::new("test"), src, m.clone(), analyze(&m, &ks));
    let (svg, labels) = roofline_chart(&doc, &ChartOptions::default());
    no_overlaps(&labels).unwrap();
    assert_eq!(svg.matches("class=\"pt\"").count(), 80);
    assert!(svg.contains("of 80 kernels are not named on the chart"), "note");
    // The names that are shown belong to the kernels with the most time.
    assert!(labels.len() > 10);
}
