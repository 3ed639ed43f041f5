//! Analyses built in code, for tests, snapshots and documentation: seed
//! 000's fusion on its Tesla T4, and a hierarchical (DRAM/L2/L1) example on
//! an H200 whose measured roofs are the peer figures recorded in the
//! project's reference notes (not measured by this code).
//!
//! Shared by the tests, the example and the unit tests (`#[path]`); not
//! part of the library.

#![allow(dead_code)]

use roofline_documents::parse_kernel_spec;

use roofline_analysis::analyze;
use roofline_documents::{AnalysisDocument, AnalysisSource, Producer};
use roofline_hw::theoretical_machine;
use roofline_model::Kernel;
use roofline_model::{Ceiling, ClockBasis, FlopKind, Machine, MemLevel, Origin, Provenance, Resource};

fn doc(machine: Machine, specs: &[&str], detail: &str) -> AnalysisDocument {
    let ks: Vec<Kernel> = specs.iter().map(|s| parse_kernel_spec(s).expect("sample kernel spec")).collect();
    let src = AnalysisSource {
        kind: "model".into(),
        detail: detail.into(),
        byte_convention: Some("bytes as estimated by the user".into()),
    };
    AnalysisDocument::new(Producer::new("samples"), src, machine.clone(), analyze(&machine, &ks))
}

/// A capture taken on the H200 (a path from the repository's root: the
/// bundled tour capture, or one of `tests/fixtures/external/`) analysed
/// under the bundled H200 machine, as `roofline import --machine` does.
pub fn h200_capture(path: &str) -> AnalysisDocument {
    h200_capture_on(path, "tests/fixtures/tour/machine.json")
}

/// As [`h200_capture`], under the machine JSON at `machine` (a path from
/// the repository's root).
pub fn h200_capture_on(path: &str, machine: &str) -> AnalysisDocument {
    use roofline_ncu::{capture, read_capture, ByteConvention, Options};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join(path)).expect("capture in the repository");
    let machine = roofline_documents::read_machine(
        &std::fs::read_to_string(root.join(machine)).expect("machine in the repository"),
        machine,
    )
    .expect("bundled machine reads")
    .machine;
    let cap = read_capture(text.as_bytes(), path).expect("capture reads");
    let captured = capture(&cap, &Options { convention: ByteConvention::Ncu, per_launch: false });
    let a = roofline_analysis::analyze_capture(&captured, Some(&machine));
    let mut doc = AnalysisDocument::new(
        Producer::new(&format!("roofline import {path}")),
        AnalysisSource {
            kind: "ncu".into(),
            detail: path.into(),
            byte_convention: Some(ByteConvention::Ncu.describe().into()),
        },
        a.machine,
        a.kernels,
    );
    doc.warnings = a.warnings;
    doc
}

/// BabelStream 5.0 (CUDA, FP64) on the H200.
pub fn babelstream() -> AnalysisDocument {
    h200_capture("tests/fixtures/external/h200-2026-11-30/babelstream_profile.csv")
}

/// 31 PyTorch, cuBLAS, cuDNN and CUB operations on the H200.
pub fn pytorch() -> AnalysisDocument {
    h200_capture("tests/fixtures/external/h200-2026-11-30/pytorch_profile.csv")
}

/// 15 PyTorch, cuBLAS, cuDNN and CUTLASS kernels captured on the H200
/// with instruction counters, under the machine `bench` measured there
/// (measured instruction roofs).
pub fn pytorch_instructions() -> AnalysisDocument {
    h200_capture_on(
        "tests/fixtures/external/h200-2026-11-30/pytorch_full_a.csv",
        "tests/fixtures/machines/h200-measured.machine.json",
    )
}

/// The tour's example kernels as captured on the H200 (the bundled data).
pub fn tour_capture() -> AnalysisDocument {
    h200_capture("tests/fixtures/tour/examples.ncu.csv")
}

/// The theoretical machine of a GPU in the built-in table.
pub fn known_machine(key: &str) -> Machine {
    theoretical_machine(&roofline_hw::find(key).expect("GPU in the built-in table").attributes())
        .expect("known capability")
}

/// Seed 000, before fusion: `scale` and `add` over 16M floats, 0.77 ms each
/// (nsys), on a T4.
pub fn seed_000_before() -> AnalysisDocument {
    doc(
        known_machine("t4"),
        &[
            "scale: flops=1 bytes=12 elements=16777216 time=0.77ms",
            "add: flops=1 bytes=12 elements=16777216 time=0.77ms",
        ],
        "seed 000 fusion.cu, two kernels",
    )
}

/// Seed 000, after fusion: one kernel, 4 array passes instead of 6, 1.03 ms.
pub fn seed_000_after() -> AnalysisDocument {
    doc(known_machine("t4"), &["fused: flops=2 bytes=16 elements=16777216 time=1.03ms"], "seed 000 fusion.cu, fused")
}

fn measured(source: &str) -> Provenance {
    Provenance::new(
        Origin::Measured,
        format!("peer tool on the lent H200, 2026-11-29 (shared/reference/peers-h200.md): {source}"),
    )
}

/// The H200's theoretical roofs with measured DRAM, L2 and FP32 roofs
/// over them.
pub fn h200_measured() -> Machine {
    let mut m = known_machine("h200");
    let clock = ClockBasis::sm(1980.0, "boost clock, not locked");
    m.ceilings.push(
        Ceiling::new(
            Resource::Memory(MemLevel::Dram),
            "DRAM (measured)",
            4386e9,
            measured("BabelStream 5.0 Triad, best of 50"),
        )
        .with_clock(ClockBasis::mem(3201.0, "peak memory clock")),
    );
    m.ceilings.push(
        Ceiling::new(
            Resource::Memory(MemLevel::L2),
            "L2 (measured)",
            10.0e12,
            measured("gpu-benches gpu-l2-cache, data sets up to 25 MB"),
        )
        .with_clock(clock.clone()),
    );
    m.ceilings.push(
        Ceiling::new(
            Resource::Compute(FlopKind::Fp32),
            "FP32 (measured)",
            60.8e12,
            measured("FP32 FMA loop, 4 independent chains"),
        )
        .with_clock(clock),
    );
    m
}

/// A hierarchical example: kernels with DRAM, L2 and L1 bytes on the H200.
pub fn hierarchical_h200() -> AnalysisDocument {
    doc(
        h200_measured(),
        &[
            "sgemm_tiled: flops=137438953472 dram=0.4GB l2=4GB l1=34GB time=3.1ms",
            "stencil7: flops=13 dram=8 l2=24 l1=60 elements=134217728 time=0.36ms",
            "vecadd: flops=1 bytes=12 elements=268435456 time=0.95ms",
            "gather_scale: flops=1 dram=40 l2=64 elements=67108864 time=1.4ms",
            "bf16_gemm: flops=1099511627776 dram=0.8GB l2=8GB kind=tensor_bf16 time=1.6ms",
            "softmax (estimate): flops=5 dram=8 l2=8 elements=16777216",
        ],
        "hierarchical example",
    )
}

/// INT8 work on the H200: a tensor-core GEMM judged against the INT8 roof
/// (OP/s), beside an FP32 kernel (FLOP/s).
pub fn int8_h200() -> AnalysisDocument {
    doc(
        known_machine("h200"),
        &[
            "igemm: flops=549755813888 dram=0.4GB l2=4GB kind=tensor_int8 time=0.5ms",
            "vecadd: flops=1 bytes=12 elements=268435456 time=0.95ms",
        ],
        "INT8 example",
    )
}

/// The example kernels of the tour on the H200: seed 000's fusion and an
/// FMA loop at three intensities (paper FLOPs and bytes, times chosen).
pub fn tour_kernels() -> AnalysisDocument {
    doc(
        h200_measured(),
        &[
            "scale: flops=1 bytes=8 elements=16777216 time=0.031ms",
            "add: flops=1 bytes=12 elements=16777216 time=0.046ms",
            "fused: flops=2 bytes=16 elements=16777216 time=0.062ms",
            "fma_loop_x1: flops=2 bytes=8 elements=16777216 time=0.031ms",
            "fma_loop_x16: flops=32 bytes=8 elements=16777216 time=0.032ms",
            "fma_loop_x256: flops=512 bytes=8 elements=16777216 time=0.15ms",
        ],
        "tour example kernels",
    )
}

/// The tour's document over an analysis of its example kernels (the FMA
/// loop at the iterations given), with the sample benchmark results.
pub fn tour(analysis: AnalysisDocument, iters: &[u32], banner: &str) -> roofline_report::TourDocument {
    use roofline_documents::MachineDocument;
    use roofline_report::{Fusion, IntensityStep, TourDocument, TOUR_SCHEMA};
    TourDocument {
        schema: TOUR_SCHEMA,
        banner: banner.into(),
        bundled: true,
        data: "sample data built in code (no GPU here)".into(),
        machine: MachineDocument::new(analysis.machine.clone(), Producer::new("samples")),
        bench: Some(bench_results()),
        fusion: Fusion::from_analysis(
            &analysis,
            "fusion (seed 000)",
            &["scale", "add"],
            "fused",
            "paper: 0.083 -> 0.125",
        ),
        intensity_steps: IntensityStep::series(&analysis, iters, |i| format!("fma_loop_x{i}")),
        method: "samples built in code".into(),
        files: vec!["out/report.html".into(), "out/analysis.json".into()],
        seconds: 1.5,
        analysis,
    }
}

/// Benchmark results as `roofline bench` shows them: a bandwidth, an FP32
/// and an INT8 rate with spreads and clocks, a failure and an FP32 sweep.
/// The figures are made up for the views, not measured.
pub fn bench_results() -> roofline_report::BenchResults {
    use roofline_model::Spread;
    use roofline_model::Unit;
    use roofline_report::{BenchResults, BenchRow, IntensitySweep, MeasuredRidge, Quantity, SweepStep, Value};
    let spread = |m: f64| Spread::from_samples(&[0.98 * m, m, 1.01 * m]).expect("samples");
    let row = |id: &str, m: f64, unit: Unit, launch: &str| BenchRow {
        id: id.into(),
        rate: Value::new(m, Quantity::Si(unit))
            .origin(Origin::Measured)
            .spread(Some(spread(m)))
            .clock(Some(ClockBasis::sm(1980.0, "median of NVML samples, 1965-1980 MHz"))),
        run_medians: vec![0.99 * m, m],
        launch: launch.into(),
    };
    BenchResults {
        results: vec![
            row("dram.copy", 4.3e12, Unit::BytePerSecond, "1056 blocks x 512 threads, 16-byte accesses"),
            row("fp32.fma", 60.8e12, Unit::FlopPerSecond, "264 blocks x 1024 threads"),
            row("tensor.int8", 1.62e15, Unit::OpPerSecond, "cuBLASLt, algorithm 3 of 8"),
        ],
        failures: vec![("tensor.fp8".into(), "=cuBLASLt has no FP8 algorithm for this shape".into())],
        sweeps: vec![IntensitySweep {
            kind: FlopKind::Fp32,
            points: [(1u32, 0.25, 1.1e12), (16, 4.0, 17.0e12), (256, 64.0, 58.0e12)]
                .into_iter()
                .map(|(iters, intensity, f)| SweepStep {
                    iters,
                    intensity,
                    rate: spread(f),
                    bytes_per_s: f / intensity,
                })
                .collect(),
            ridge: Some(MeasuredRidge { bandwidth: 4.4e12, peak: 58.0e12, intensity: 58.0 / 4.4, knee: Some(64.0) }),
        }],
    }
}
