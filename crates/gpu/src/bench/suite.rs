//! The benchmark suite: which benchmarks run, at which sizes, and the
//! records they leave. Pure data, testable without a GPU.

use roofline_model::CollectiveOp;
use roofline_model::Engine;
use roofline_model::FlopKind;
use roofline_model::Spread;
use serde::{Deserialize, Serialize};

use crate::session::Reps;
pub use roofline_documents::{
    rate_unit, AccessPattern, AtomicSpace, BenchResult, Curve, CurvePoint, Failure, IntOp, LaunchShape, LinkBench,
    MufuOp, Ridge, SmemOp, Sweep, SweepPoint, What,
};

/// One benchmark of the suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchSpec {
    /// Stable identifier: "dram.copy", "fp32.fma", "tensor.bf16", "sfu.ex2".
    pub id: String,
    /// What a reader sees: "DRAM copy (b = a)".
    pub label: String,
    /// What it measures; picks the kernels and the unit.
    pub what: What,
}

fn spec(id: &str, label: &str, what: What) -> BenchSpec {
    BenchSpec { id: id.into(), label: label.into(), what }
}

/// Timed launches per burst of [`SuiteConfig::burst_reps`]: an 8192^3 BF16
/// GEMM takes about 1.3 ms, so a burst is a few ms of full load.
pub const BURST_LAUNCHES: usize = 4;
/// Idle time before each burst, ms: long enough for the power controller
/// to settle back below the cap.
pub const BURST_GAP_MS: u32 = 200;

/// Sizes, repetitions and runs of a suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteConfig {
    /// The reduced sizes of `--quick` (smaller arrays, fewer runs).
    pub quick: bool,
    /// Separate runs of each benchmark; the best run's median is reported.
    pub runs: usize,
    /// Timed launches per run.
    pub reps: usize,
    /// Untimed launches before the first run.
    pub warmup: usize,
    /// Bytes per DRAM array (many times the L2).
    pub dram_array_bytes: u64,
    /// FMA loop trips per thread (x 32 steps x 8 chains).
    pub fma_iters: u32,
    /// FMA iterations per element loaded, for the intensity sweep.
    pub sweep_iters: Vec<u32>,
    /// Elements per sweep array (FP32; FP64 uses half as many).
    pub sweep_elems: u64,
    /// M = N = K of the tensor-core GEMMs.
    pub gemm_n: u32,
    /// cuBLASLt algorithms tried per precision.
    pub gemm_algos: usize,
    /// Work per launch of the instruction benchmarks, relative to the full suite's.
    #[serde(default = "one")]
    pub inst_scale: f64,
    /// Timing of each point of a sweep before the best point is timed in full.
    #[serde(default = "point_runs")]
    pub point_runs: usize,
}

fn one() -> f64 {
    1.0
}
fn point_runs() -> usize {
    2
}

impl SuiteConfig {
    /// The full suite's sizes, or `--quick`'s smaller ones.
    pub fn new(quick: bool) -> SuiteConfig {
        if quick {
            SuiteConfig {
                quick,
                runs: 2,
                reps: 5,
                warmup: 1,
                dram_array_bytes: 2 << 30,
                fma_iters: 512,
                sweep_iters: vec![1, 4, 16, 64, 256, 1024, 4096],
                sweep_elems: 1 << 25,
                gemm_n: 8192,
                gemm_algos: 3,
                inst_scale: 0.5,
                point_runs: 1,
            }
        } else {
            SuiteConfig {
                quick,
                runs: 3,
                reps: 20,
                warmup: 2,
                dram_array_bytes: 4 << 30,
                fma_iters: 2048,
                sweep_iters: (0..=12).map(|p| 1u32 << p).collect(),
                sweep_elems: 1 << 26,
                gemm_n: 8192,
                gemm_algos: 8,
                inst_scale: 1.0,
                point_runs: 2,
            }
        }
    }

    /// The timing of a benchmark's final measurement.
    pub fn final_reps(&self) -> Reps {
        Reps::new(self.warmup, self.runs, self.reps)
    }

    /// The timing of a benchmark the power cap would otherwise bind (the
    /// tensor-core GEMMs): bursts of 4 launches after 200 ms idle each
    /// ([`Reps::bursts`]), 7 of them (4 with `--quick`).
    pub fn burst_reps(&self) -> Reps {
        Reps::bursts(self.warmup, if self.quick { 4 } else { 7 }, BURST_LAUNCHES, BURST_GAP_MS)
    }

    /// The timing of one point of a sweep.
    pub fn point_reps(&self) -> Reps {
        Reps::new(1, self.point_runs, 3)
    }

    /// The timing of one candidate of a launch-shape search.
    pub fn search_reps(&self) -> Reps {
        Reps::new(1, 1, 2)
    }
}

/// The suite, in the order it runs.
pub fn suite() -> Vec<BenchSpec> {
    use FlopKind::*;
    vec![
        spec("dram.read", "DRAM read-only (sum of a)", What::DramRead),
        spec("dram.write", "DRAM write-only (a = f(i))", What::DramWrite),
        spec("dram.copy", "DRAM copy (b = a)", What::DramCopy),
        spec("dram.triad", "DRAM triad (a = b + s*c)", What::DramTriad),
        spec("dram.add", "DRAM add, seed 000 (c = a + b)", What::DramAdd),
        spec("l2.read", "L2 read (working set inside L2, ld.global.cg)", What::L2Read),
        spec("l2.write", "L2 write (working set swept across the L2 size)", What::L2Write),
        spec("l1.shared", "L1/shared read (LDS.128)", What::SharedRead),
        spec("fp64.fma", "FP64 FMA", What::Fma(Fp64)),
        spec("fp32.fma", "FP32 FMA", What::Fma(Fp32)),
        spec("fp16.fma", "FP16 half2 FMA", What::Fma(Fp16)),
        spec("tensor.bf16", "BF16 tensor GEMM", What::Tensor(TensorBf16)),
        spec("tensor.fp16", "FP16 tensor GEMM", What::Tensor(TensorFp16)),
        spec("tensor.tf32", "TF32 tensor GEMM", What::Tensor(TensorTf32)),
        spec("tensor.fp8", "FP8 (e4m3) tensor GEMM", What::Tensor(TensorFp8)),
        spec("tensor.fp64", "FP64 tensor GEMM", What::Tensor(TensorFp64)),
        spec("sweep.fp32", "intensity sweep FP32", What::Sweep(Fp32)),
        spec("sweep.fp64", "intensity sweep FP64", What::Sweep(Fp64)),
        spec("int.imad", "INT32 IMAD (x = x * a + y)", What::Int(IntOp::Imad)),
        spec("int.iadd3", "INT32 IADD3 (x = x + y + k)", What::Int(IntOp::Iadd3)),
        spec("int.lop3", "INT32 LOP3 (x = x ^ (y & k))", What::Int(IntOp::Lop3)),
        spec("sfu.ex2", "MUFU.EX2 (ex2.approx)", What::Mufu(MufuOp::Ex2)),
        spec("sfu.lg2", "MUFU.LG2 (lg2.approx)", What::Mufu(MufuOp::Lg2)),
        spec("sfu.rsqrt", "MUFU.RSQ (rsqrt.approx)", What::Mufu(MufuOp::Rsqrt)),
        spec("sfu.sin", "MUFU.SIN (sin.approx)", What::Mufu(MufuOp::Sin)),
        spec("shared.lds32", "shared-memory LDS.32, bank conflicts swept", What::SharedInst(SmemOp::Lds32)),
        spec("shared.lds128", "shared-memory LDS.128, bank conflicts swept", What::SharedInst(SmemOp::Lds128)),
        spec("shared.sts32", "shared-memory STS.32, bank conflicts swept", What::SharedInst(SmemOp::Sts32)),
        spec("shared.sts128", "shared-memory STS.128, bank conflicts swept", What::SharedInst(SmemOp::Sts128)),
        spec("atomic.global", "global atomic add (RED), contention swept", What::Atomic(AtomicSpace::Global)),
        spec("atomic.shared", "shared atomic add (ATOMS), contention swept", What::Atomic(AtomicSpace::Shared)),
        spec("lsu.ldg", "global loads from L1 (LDG), bytes per instruction swept", What::LoadIssue),
    ]
}

/// The interconnect benchmarks of device `d` on a machine of `gpus` GPUs:
/// host to device and back; to and from every other GPU, one way
/// (both directions) and both ways at once, by copy engine and by SM, each
/// issued by the sender (write) and by the receiver (read); and NCCL's
/// all-reduce, all-gather and reduce-scatter over all the GPUs. With one
/// GPU the peer and collective entries stay, to say what they need.
pub fn interconnect(d: usize, gpus: usize) -> Vec<BenchSpec> {
    let g = d as u8;
    let n = gpus.min(u8::MAX as usize) as u8;
    let mut v = vec![
        spec(
            "link.h2d",
            &format!("host -> GPU {d}, pinned memory, copy engine"),
            What::Link(LinkBench::HostToDevice { gpu: g }),
        ),
        spec(
            "link.d2h",
            &format!("GPU {d} -> host, pinned memory, copy engine"),
            What::Link(LinkBench::DeviceToHost { gpu: g }),
        ),
    ];
    if gpus < 2 {
        v.push(spec("link.p2p", "peer-to-peer copies", What::Link(LinkBench::Peers { gpus: n })));
    }
    let engines = [(Engine::CopyEngine, "ce", "copy engine"), (Engine::Sm, "sm", "SM copy")];
    for p in (0..n).filter(|&p| p != g) {
        for (from, to) in [(g, p), (p, g)] {
            for (engine, key, label) in engines {
                for pull in [false, true] {
                    let how = if pull { "read" } else { "write" };
                    let who = if pull { to } else { from };
                    v.push(spec(
                        &format!("link.p2p.{key}.{how}.{from}-{to}"),
                        &format!("GPU {from} -> GPU {to}, {label}, issued by GPU {who} ({how})"),
                        What::Link(LinkBench::Peer { from, to, engine, pull, both_ways: false }),
                    ));
                }
            }
        }
        let (a, b) = (g.min(p), g.max(p));
        for (engine, key, label) in engines {
            for pull in [false, true] {
                let how = if pull { "read" } else { "write" };
                v.push(spec(
                    &format!("link.p2p.{key}.{how}.bi.{a}-{b}"),
                    &format!("GPU {a} <-> GPU {b} at once, {label}, each GPU {how}s"),
                    What::Link(LinkBench::Peer { from: a, to: b, engine, pull, both_ways: true }),
                ));
            }
        }
    }
    for op in CollectiveOp::BENCHED {
        v.push(spec(
            &format!("link.nccl.{}", op.key()),
            &format!("NCCL {} over {gpus} GPU(s), bus bandwidth", op.label()),
            What::Link(LinkBench::Collective { op, gpus: n }),
        ));
    }
    v
}

/// The whole suite for device `d` of a machine with `gpus` GPUs.
pub fn suite_for(d: usize, gpus: usize) -> Vec<BenchSpec> {
    let mut v = suite();
    v.extend(interconnect(d, gpus));
    v
}

/// Names `--only` accepts for a group: `interconnect` is `link`.
fn alias(o: &str) -> &str {
    match o {
        "interconnect" => "link",
        other => other,
    }
}

/// Keeps the benchmarks whose id starts with one of `only` (all when empty);
/// an unknown name is an error listing the known ones. A name under a
/// stand-in (`link.p2p.ce` on a machine with one GPU) selects the stand-in,
/// which then says what it needs.
pub fn select(all: Vec<BenchSpec>, only: &[String]) -> Result<Vec<BenchSpec>, crate::GpuError> {
    if only.is_empty() {
        return Ok(all);
    }
    let matches = |s: &BenchSpec, o: &str| {
        let o = alias(o);
        s.id.starts_with(o) || (matches!(s.what, What::Link(LinkBench::Peers { .. })) && o.starts_with(s.id.as_str()))
    };
    for o in only {
        if !all.iter().any(|s| matches(s, o)) {
            let ids: Vec<&str> = all.iter().map(|s| s.id.as_str()).collect();
            return Err(crate::GpuError::UnknownBenchmark { name: o.clone(), known: ids.join(", ") });
        }
    }
    Ok(all.into_iter().filter(|s| only.iter().any(|o| matches(s, o))).collect())
}

/// Index of the run with the highest median rate.
pub fn best_run(runs: &[Spread]) -> Option<usize> {
    runs.iter().enumerate().max_by(|a, b| a.1.median.total_cmp(&b.1.median)).map(|(i, _)| i)
}

/// Locates the measured ridge from (intensity, FLOP/s) points.
pub fn locate_ridge(points: &[(f64, f64)]) -> Option<Ridge> {
    let ok: Vec<(f64, f64)> = points.iter().copied().filter(|(i, f)| *i > 0.0 && *f > 0.0).collect();
    if ok.len() < 2 {
        return None;
    }
    let bandwidth = ok.iter().map(|(i, f)| f / i).fold(0.0, f64::max);
    let peak = ok.iter().map(|(_, f)| *f).fold(0.0, f64::max);
    let mut by_i = ok.clone();
    by_i.sort_by(|a, b| a.0.total_cmp(&b.0));
    let knee = by_i.iter().find(|(_, f)| *f >= 0.9 * peak).map(|(i, _)| *i);
    Some(Ridge { bandwidth, peak, intensity: peak / bandwidth, knee })
}

#[cfg(test)]
mod tests {
    use super::*;
    use roofline_hw::InstOp;
    use roofline_model::{Link, Pipe, Unit};

    #[test]
    fn suite_covers_every_level_and_precision_of_the_issue() {
        let s = suite();
        for id in [
            "dram.read",
            "dram.write",
            "dram.copy",
            "dram.triad",
            "dram.add",
            "l2.read",
            "l1.shared",
            "fp64.fma",
            "fp32.fma",
            "fp16.fma",
            "tensor.bf16",
            "tensor.fp16",
            "tensor.tf32",
            "tensor.fp8",
            "tensor.fp64",
            "sweep.fp32",
            "sweep.fp64",
            "l2.write",
            "int.imad",
            "int.iadd3",
            "int.lop3",
            "sfu.ex2",
            "sfu.lg2",
            "sfu.rsqrt",
            "sfu.sin",
            "shared.lds32",
            "shared.lds128",
            "shared.sts32",
            "shared.sts128",
            "atomic.global",
            "atomic.shared",
            "lsu.ldg",
        ] {
            assert!(s.iter().any(|b| b.id == id), "{id}");
        }
        let ids: std::collections::HashSet<_> = s.iter().map(|b| &b.id).collect();
        assert_eq!(ids.len(), s.len(), "ids are unique");
    }

    #[test]
    fn two_gpus_get_every_pair_direction_engine_and_issuer() {
        let s = interconnect(0, 2);
        let ids: Vec<&str> = s.iter().map(|b| b.id.as_str()).collect();
        for id in [
            "link.h2d",
            "link.d2h",
            "link.p2p.ce.write.0-1",
            "link.p2p.ce.read.0-1",
            "link.p2p.sm.write.1-0",
            "link.p2p.sm.read.1-0",
            "link.p2p.ce.write.bi.0-1",
            "link.p2p.sm.read.bi.0-1",
            "link.nccl.all_reduce",
            "link.nccl.all_gather",
            "link.nccl.reduce_scatter",
        ] {
            assert!(ids.contains(&id), "{id} in {ids:?}");
        }
        // 2 host + 2 directions x 2 engines x 2 issuers + 2 engines x 2 issuers both ways + 3 collectives.
        assert_eq!(s.len(), 2 + 8 + 4 + 3);
        let ids: std::collections::HashSet<_> = s.iter().map(|b| &b.id).collect();
        assert_eq!(ids.len(), s.len(), "ids are unique");
        assert!(s.iter().all(|b| b.what.unit() == Unit::BytePerSecond));
        // Device 1 of 4: pairs with 0, 2 and 3, both ways once per pair.
        let d1 = interconnect(1, 4);
        assert!(d1.iter().any(|b| b.id == "link.p2p.ce.write.bi.0-1"));
        assert!(d1.iter().any(|b| b.id == "link.p2p.sm.read.3-1"));
        assert!(!d1.iter().any(|b| b.id.contains("0-2") || b.id.contains("2-3")), "only pairs with device 1");
    }

    #[test]
    fn one_gpu_keeps_a_stand_in_for_the_peer_benchmarks() {
        let s = interconnect(0, 1);
        let p = s.iter().find(|b| b.id == "link.p2p").unwrap();
        assert_eq!(p.what, What::Link(LinkBench::Peers { gpus: 1 }));
        let chosen = select(suite_for(0, 1), &["link.p2p.ce".into()]).unwrap();
        assert_eq!(chosen.len(), 1, "the stand-in answers for its children");
        assert_eq!(select(suite_for(0, 1), &["interconnect".into()]).unwrap().len(), 2 + 1 + 3);
        assert!(select(suite_for(0, 2), &["link.p2p.xx".into()]).is_err());
    }

    #[test]
    fn link_benchmarks_name_their_roof() {
        let p = LinkBench::Peer { from: 1, to: 0, engine: Engine::Sm, pull: true, both_ways: false };
        assert_eq!(p.link(), Some(Link::Peer { from: 1, to: 0, engine: Engine::Sm, both_ways: false }));
        assert_eq!(p.issuer(), Some("read"));
        assert_eq!(LinkBench::Peers { gpus: 1 }.link(), None);
        let t = serde_json::to_string(&What::Link(p)).unwrap();
        assert_eq!(serde_json::from_str::<What>(&t).unwrap(), What::Link(p));
    }

    #[test]
    fn quick_is_smaller_than_full() {
        let (q, f) = (SuiteConfig::new(true), SuiteConfig::new(false));
        assert!(q.runs <= f.runs && q.reps <= f.reps && q.dram_array_bytes <= f.dram_array_bytes);
        assert_eq!(f.sweep_iters.first(), Some(&1));
        assert_eq!(f.sweep_iters.last(), Some(&4096));
        // DRAM arrays many times a 60 MB L2.
        assert!(q.dram_array_bytes >= 8 * 60_000_000);
    }

    #[test]
    fn select_by_prefix_and_unknown_names_listed() {
        let s = select(suite(), &["dram".into()]).unwrap();
        assert_eq!(s.len(), 5);
        let e = select(suite(), &["dramm".into()]).unwrap_err().to_string();
        assert!(e.contains("dram.read") && e.contains("'dramm'"), "{e}");
        assert_eq!(select(suite(), &["sfu".into()]).unwrap().len(), 4);
        assert_eq!(select(suite(), &["l2".into()]).unwrap().len(), 2);
    }

    #[test]
    fn every_instruction_benchmark_names_its_pipe_and_unit() {
        for b in suite() {
            match b.what.level().map(|_| ()).or(b.what.kind().map(|_| ())) {
                Some(()) => assert_ne!(b.what.unit(), Unit::InstPerSecond, "{}", b.id),
                None => {
                    assert_eq!(b.what.unit(), Unit::InstPerSecond, "{}", b.id);
                    assert!(b.what.pipe().is_some() && b.what.mnemonic().is_some(), "{}", b.id);
                }
            }
        }
        assert_eq!(What::Int(IntOp::Imad).pipe(), Some(Pipe::Fma));
        assert_eq!(What::Int(IntOp::Lop3).pipe(), Some(Pipe::Alu));
        assert_eq!(What::Mufu(MufuOp::Sin).mnemonic(), Some("MUFU.SIN"));
        assert_eq!(What::Fma(FlopKind::Fp32).inst_op(), Some(InstOp::Ffma));
    }

    #[test]
    fn curve_knee_is_where_the_rate_first_reaches_ninety_percent() {
        let p = |x: f64, r: f64| CurvePoint {
            x,
            label: String::new(),
            rate: Spread::from_samples(&[r]).unwrap(),
            sm_mhz: None,
        };
        let c = Curve::new("warps per SM", vec![p(64.0, 100.0), p(4.0, 30.0), p(16.0, 91.0), p(8.0, 60.0)]);
        assert_eq!(c.points[0].x, 4.0);
        assert_eq!(c.knee, Some(16.0));
        assert_eq!(c.at(8.0).unwrap().rate.median, 60.0);
        let t = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<Curve>(&t).unwrap(), c);
    }

    #[test]
    fn ridge_of_an_ideal_roofline() {
        // 1 TB/s and 10 TFLOP/s: ridge at 10 FLOP/B.
        let pts: Vec<(f64, f64)> =
            [0.25, 1.0, 4.0, 16.0, 64.0].iter().map(|&i: &f64| (i, (i * 1e12).min(1e13))).collect();
        let r = locate_ridge(&pts).unwrap();
        assert_eq!((r.bandwidth, r.peak), (1e12, 1e13));
        assert!((r.intensity - 10.0).abs() < 1e-9);
        assert_eq!(r.knee, Some(16.0));
        assert!(locate_ridge(&[(1.0, 1.0)]).is_none());
    }

    #[test]
    fn best_run_is_the_highest_median() {
        let a = Spread::from_samples(&[1.0, 2.0, 3.0]).unwrap();
        let b = Spread::from_samples(&[2.0, 2.5, 2.6]).unwrap();
        assert_eq!(best_run(&[a, b]), Some(1));
        assert_eq!(best_run(&[]), None);
    }

    #[test]
    fn result_round_trips_through_json() {
        let r = BenchResult {
            id: "dram.copy".into(),
            label: "DRAM copy".into(),
            what: What::DramCopy,
            unit: Unit::BytePerSecond,
            rate: Spread::from_samples(&[4.0e12, 4.1e12]).unwrap(),
            run_medians: vec![4.05e12],
            seconds: Spread::from_samples(&[5e-4]).unwrap(),
            work_per_launch: 2.0 * (1u64 << 30) as f64,
            launch: LaunchShape { width: Some(16), ..LaunchShape::new(264, 1024) },
            size: "2 arrays of 1 GiB".into(),
            clock: None,
            method: "NVRTC sm_90 CUBIN".into(),
            verified: "every element".into(),
            search: vec![("x".into(), 1.0)],
            curve: None,
            wall_s: 0.5,
        };
        let t = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<BenchResult>(&t).unwrap(), r);
        assert!(t.contains("\"dram_copy\"") && t.contains("\"unit\":\"B/s\""), "{t}");
    }
}
