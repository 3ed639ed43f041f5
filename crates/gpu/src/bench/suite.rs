//! The benchmark suite: which benchmarks run, at which sizes, and the
//! records they leave. Pure data, testable without a GPU.

use roofline_hw::InstOp;
use roofline_model::CollectiveOp;
use roofline_model::Spread;
use roofline_model::Unit;
use roofline_model::{Engine, Link};
use roofline_model::{FlopKind, MemLevel, Pipe};
use serde::{Deserialize, Serialize};

use crate::nvml::ClockSummary;
use crate::session::Reps;

/// A 32-bit integer instruction benchmarked alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntOp {
    /// `IMAD`: 32-bit integer multiply-add.
    Imad,
    /// `IADD3`: three-input 32-bit integer add.
    Iadd3,
    /// `LOP3`: three-input logic operation.
    Lop3,
}

/// A special-function (MUFU) instruction benchmarked alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MufuOp {
    /// `ex2.approx`: base-2 exponential.
    Ex2,
    /// `lg2.approx`: base-2 logarithm.
    Lg2,
    /// `rsqrt.approx`: reciprocal square root.
    Rsqrt,
    /// `sin.approx`: sine.
    Sin,
}

/// A shared-memory load or store of one width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SmemOp {
    /// `LDS.32`: 4-byte shared load.
    Lds32,
    /// `LDS.128`: 16-byte shared load.
    Lds128,
    /// `STS.32`: 4-byte shared store.
    Sts32,
    /// `STS.128`: 16-byte shared store.
    Sts128,
}

impl SmemOp {
    /// Bytes per thread and instruction.
    pub fn width(self) -> u32 {
        match self {
            SmemOp::Lds32 | SmemOp::Sts32 => 4,
            SmemOp::Lds128 | SmemOp::Sts128 => 16,
        }
    }
    /// True for the stores (`STS`).
    pub fn is_store(self) -> bool {
        matches!(self, SmemOp::Sts32 | SmemOp::Sts128)
    }
}

/// Where an atomic add goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AtomicSpace {
    /// `atomicAdd` to global memory (resolved in L2).
    Global,
    /// `atomicAdd` to shared memory.
    Shared,
}

/// An interconnect benchmark: bytes between the host and a GPU, between two
/// GPUs, or an NCCL collective over every GPU of the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum LinkBench {
    /// Pinned host memory to GPU `gpu` (copy engine).
    HostToDevice {
        /// CUDA ordinal of the receiving GPU.
        gpu: u8,
    },
    /// GPU `gpu` to pinned host memory.
    DeviceToHost {
        /// CUDA ordinal of the sending GPU.
        gpu: u8,
    },
    /// From GPU `from` to GPU `to` with `engine`; `pull`: issued by the
    /// receiving GPU (it reads its peer), else by the sender (it writes).
    /// With `both_ways`, each GPU of the pair does the same towards the
    /// other at the same time.
    Peer {
        /// CUDA ordinal of the sending GPU.
        from: u8,
        /// CUDA ordinal of the receiving GPU.
        to: u8,
        /// Copy engines or a kernel's own loads and stores.
        engine: Engine,
        /// Issued by the receiver (it reads its peer) rather than the sender.
        pull: bool,
        /// Both GPUs of the pair send at the same time.
        both_ways: bool,
    },
    /// The peer benchmarks' stand-in on a machine with `gpus` (< 2) GPUs.
    Peers {
        /// GPUs the machine has.
        gpus: u8,
    },
    /// An NCCL collective over `gpus` GPUs, as bus bandwidth.
    Collective {
        /// The collective (all-reduce, all-gather, ...).
        op: CollectiveOp,
        /// GPUs taking part, one rank each.
        gpus: u8,
    },
}

impl LinkBench {
    /// The link whose roof the benchmark measures.
    pub fn link(self) -> Option<Link> {
        Some(match self {
            LinkBench::HostToDevice { gpu } => Link::HostToDevice { gpu },
            LinkBench::DeviceToHost { gpu } => Link::DeviceToHost { gpu },
            LinkBench::Peer { from, to, engine, both_ways, .. } => Link::Peer { from, to, engine, both_ways },
            LinkBench::Collective { op, gpus } => Link::Collective { op, gpus },
            LinkBench::Peers { .. } => return None,
        })
    }

    /// "write" (issued by the sender) or "read" (by the receiver), for peer copies.
    pub fn issuer(self) -> Option<&'static str> {
        match self {
            LinkBench::Peer { pull: true, .. } => Some("read"),
            LinkBench::Peer { pull: false, .. } => Some("write"),
            _ => None,
        }
    }
}

/// What one benchmark measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum What {
    /// Read one DRAM array (bandwidth in B/s).
    DramRead,
    /// Write one DRAM array.
    DramWrite,
    /// STREAM copy: one array read, one written.
    DramCopy,
    /// STREAM triad: two arrays read, one written (scale and add).
    DramTriad,
    /// STREAM add: two arrays read, one written.
    DramAdd,
    /// Read a working set that fits in L2.
    L2Read,
    /// Write bandwidth swept over the working set, inside L2 and beyond.
    L2Write,
    /// Shared-memory bandwidth with `LDS.128`, conflict-free (B/s).
    SharedRead,
    /// CUDA-core FMA peak of one precision (FLOP/s).
    Fma(FlopKind),
    /// Tensor-core peak of one precision: cuBLASLt GEMM (FLOP/s).
    Tensor(FlopKind),
    /// Intensity sweep of one precision: FMAs per element loaded from one
    /// to thousands, the measured roofline's slope and plateau.
    Sweep(FlopKind),
    /// One integer instruction's rate, swept over warps per SM.
    Int(IntOp),
    /// One special-function instruction's rate, swept over warps per SM.
    Mufu(MufuOp),
    /// One shared-memory load or store's issue rate (inst/s).
    SharedInst(SmemOp),
    /// Atomic adds without return to global or shared memory, swept from
    /// distinct addresses to one.
    Atomic(AtomicSpace),
    /// Global loads served by L1: how many warp load instructions an SM issues.
    LoadIssue,
    /// An interconnect: host, peer or collective bandwidth.
    Link(LinkBench),
}

impl What {
    /// The memory level a bandwidth benchmark bounds.
    pub fn level(self) -> Option<MemLevel> {
        match self {
            What::DramRead | What::DramWrite | What::DramCopy | What::DramTriad | What::DramAdd => Some(MemLevel::Dram),
            What::L2Read | What::L2Write => Some(MemLevel::L2),
            What::SharedRead => Some(MemLevel::L1),
            _ => None,
        }
    }

    /// The arithmetic a compute benchmark bounds.
    pub fn kind(self) -> Option<FlopKind> {
        match self {
            What::Fma(k) | What::Tensor(k) | What::Sweep(k) => Some(k),
            _ => None,
        }
    }

    /// The instruction an instruction benchmark times, or the FMA
    /// instruction a CUDA-core peak is made of.
    pub fn inst_op(self) -> Option<InstOp> {
        Some(match self {
            What::Fma(FlopKind::Fp32) => InstOp::Ffma,
            What::Fma(FlopKind::Fp64) => InstOp::Dfma,
            What::Fma(FlopKind::Fp16) => InstOp::Hfma2,
            What::Int(IntOp::Imad) => InstOp::Imad,
            What::Int(IntOp::Iadd3) => InstOp::Iadd3,
            What::Int(IntOp::Lop3) => InstOp::Lop3,
            What::Mufu(_) => InstOp::Mufu,
            What::SharedInst(SmemOp::Lds32) => InstOp::Lds32,
            What::SharedInst(SmemOp::Lds128) => InstOp::Lds128,
            What::SharedInst(SmemOp::Sts32) => InstOp::Sts32,
            What::SharedInst(SmemOp::Sts128) => InstOp::Sts128,
            What::LoadIssue => InstOp::Ldg32,
            _ => return None,
        })
    }

    /// The pipe an instruction roof from this benchmark bounds.
    pub fn pipe(self) -> Option<Pipe> {
        match self {
            What::Atomic(AtomicSpace::Global) => Some(Pipe::GlobalAtomic),
            What::Atomic(AtomicSpace::Shared) => Some(Pipe::SharedAtomic),
            _ => self.inst_op().map(InstOp::pipe),
        }
    }

    /// The SASS the benchmark's loop is made of ("IMAD", "MUFU.EX2", "RED.E.ADD"):
    /// the name of its measured instruction roof.
    pub fn mnemonic(self) -> Option<&'static str> {
        Some(match self {
            What::Mufu(MufuOp::Ex2) => "MUFU.EX2",
            What::Mufu(MufuOp::Lg2) => "MUFU.LG2",
            What::Mufu(MufuOp::Rsqrt) => "MUFU.RSQ",
            What::Mufu(MufuOp::Sin) => "MUFU.SIN",
            What::Atomic(AtomicSpace::Global) => "RED.E.ADD",
            What::Atomic(AtomicSpace::Shared) => "ATOMS.ADD",
            // The best of several widths; each point is named by its own label.
            What::LoadIssue => "LDG",
            other => other.inst_op()?.mnemonic(),
        })
    }

    /// The unit of the benchmark's rate.
    pub fn unit(self) -> Unit {
        if self.level().is_some() || matches!(self, What::Link(_)) {
            Unit::BytePerSecond
        } else if let Some(k) = self.kind() {
            k.rate_unit()
        } else {
            Unit::InstPerSecond
        }
    }

    /// Bytes moved per element of 4 bytes, for the DRAM kernels (reads + writes).
    pub fn arrays_touched(self) -> u64 {
        match self {
            What::DramRead | What::DramWrite | What::L2Read | What::L2Write | What::SharedRead => 1,
            What::DramCopy => 2,
            What::DramTriad | What::DramAdd => 3,
            _ => 0,
        }
    }
}

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

/// How a streaming kernel walks its arrays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccessPattern {
    /// A grid sized to the GPU loops over the arrays (grid-stride).
    GridStride,
    /// One pass: a grid as large as the arrays, each thread a few elements.
    OnePass,
}

/// How a kernel was launched.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LaunchShape {
    /// Blocks in the grid.
    pub grid: u32,
    /// Threads per block.
    pub block: u32,
    /// Bytes per access per thread (4, 8, 16), where it applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// Shared memory per block, bytes, where set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_bytes: Option<u32>,
    /// Independent accesses per thread and loop trip, where searched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unroll: Option<u32>,
    /// How the grid covers the arrays, for DRAM kernels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<AccessPattern>,
}

impl LaunchShape {
    /// A shape of `grid` blocks of `block` threads, nothing else set.
    pub fn new(grid: u32, block: u32) -> LaunchShape {
        LaunchShape { grid, block, ..LaunchShape::default() }
    }

    /// The shape in words ("1056 blocks x 256 threads, 16-byte accesses").
    pub fn describe(&self) -> String {
        let mut s = format!("{} blocks x {} threads", self.grid, self.block);
        if let Some(w) = self.width {
            s.push_str(&format!(", {w}-byte accesses"));
        }
        if let Some(u) = self.unroll {
            s.push_str(&format!(", {u} in flight"));
        }
        match self.pattern {
            Some(AccessPattern::OnePass) => s.push_str(", one pass"),
            Some(AccessPattern::GridStride) => s.push_str(", grid-stride"),
            None => {}
        }
        if let Some(b) = self.shared_bytes {
            s.push_str(&format!(", {b} B shared"));
        }
        s
    }
}

/// One point of a benchmark's sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// The swept quantity (warps per SM, ways of bank conflict, bytes).
    pub x: f64,
    /// The point's setting in words ("8 warps per SM").
    pub label: String,
    /// Rate of the point's best run.
    pub rate: Spread,
    /// Median SM clock during the point's best run, MHz (NVML), when sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_mhz: Option<f64>,
}

/// A benchmark measured at several settings of one quantity: occupancy,
/// bank conflicts, contention, working-set size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// What x is ("warps per SM").
    pub axis: String,
    /// Points measured, ascending x.
    pub points: Vec<CurvePoint>,
    /// The lowest x whose rate reaches 90% of the best: where the curve
    /// reaches its roof (a rising curve's ridge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knee: Option<f64>,
}

impl Curve {
    /// A curve from its points (sorted by x here), its knee located.
    pub fn new(axis: impl Into<String>, mut points: Vec<CurvePoint>) -> Curve {
        points.sort_by(|a, b| a.x.total_cmp(&b.x));
        let best = points.iter().map(|p| p.rate.median).fold(0.0, f64::max);
        let knee = points.iter().find(|p| p.rate.median >= 0.9 * best).map(|p| p.x);
        Curve { axis: axis.into(), points, knee }
    }

    /// The point at `x`, if measured.
    pub fn at(&self, x: f64) -> Option<&CurvePoint> {
        self.points.iter().find(|p| p.x == x)
    }
}

/// Serde form of a rate unit: its symbol, as documents always had it ("B/s").
pub mod rate_unit {
    use roofline_model::Unit;
    use serde::{Deserialize, Deserializer, Serializer};

    const UNITS: [Unit; 4] = [Unit::BytePerSecond, Unit::FlopPerSecond, Unit::OpPerSecond, Unit::InstPerSecond];

    /// Writes the unit's symbol.
    pub fn serialize<S: Serializer>(u: &Unit, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(u.symbol())
    }

    /// Reads a symbol back; an unknown one is an error naming it.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Unit, D::Error> {
        let t = String::deserialize(d)?;
        UNITS
            .into_iter()
            .find(|u| u.symbol() == t)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown rate unit {t:?}")))
    }
}

/// The record of one benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchResult {
    /// Stable identifier, as [`BenchSpec::id`].
    pub id: String,
    /// What a reader sees, as [`BenchSpec::label`].
    pub label: String,
    /// What it measured.
    pub what: What,
    /// B/s, FLOP/s, OP/s or inst/s (warp instructions per second).
    #[serde(with = "rate_unit")]
    pub unit: Unit,
    /// Rate of the best run: median, min, max over its timed launches.
    pub rate: Spread,
    /// The median rate of every run, in order.
    pub run_medians: Vec<f64>,
    /// Seconds per launch of the best run.
    pub seconds: Spread,
    /// Bytes, FLOPs or warp instructions per launch.
    pub work_per_launch: f64,
    /// The launch shape of the best candidate.
    pub launch: LaunchShape,
    /// Problem size in words ("2 arrays of 1 GiB").
    pub size: String,
    /// SM and memory clocks sampled by NVML while it ran (None without NVML).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSummary>,
    /// How it was measured ("NVRTC sm_90 CUBIN", "cuBLASLt 13.0, algorithm 3 of 8").
    pub method: String,
    /// What was checked.
    pub verified: String,
    /// Launch shapes tried and their rates, when a search chose the shape.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub search: Vec<(String, f64)>,
    /// The sweep, for benchmarks measured at several settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curve: Option<Curve>,
    /// Wall-clock seconds the benchmark took, search and checks included.
    #[serde(default)]
    pub wall_s: f64,
}

/// Index of the run with the highest median rate.
pub fn best_run(runs: &[Spread]) -> Option<usize> {
    runs.iter().enumerate().max_by(|a, b| a.1.median.total_cmp(&b.1.median)).map(|(i, _)| i)
}

/// One point of the intensity sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// FMA loop trips per element loaded.
    pub iters: u32,
    /// FLOP per byte of DRAM traffic (load + store).
    pub intensity: f64,
    /// Measured FLOP/s: median, min, max over the timed launches.
    pub flops_per_s: Spread,
    /// DRAM bytes/s at the median FLOP/s (FLOP/s / intensity).
    pub bytes_per_s: f64,
    /// Median SM clock during the point, MHz (NVML), when sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_mhz: Option<f64>,
}

/// The empirical roofline of one precision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    /// The precision (FP32 or FP64).
    pub kind: FlopKind,
    /// Points by ascending intensity.
    pub points: Vec<SweepPoint>,
    /// The measured ridge; None when fewer than two points succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ridge: Option<Ridge>,
}

/// Where the measured curve turns from bandwidth-bound to compute-bound.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ridge {
    /// The best bytes/s of the sweep (its memory-bound points).
    pub bandwidth: f64,
    /// The best FLOP/s of the sweep (its compute-bound points).
    pub peak: f64,
    /// peak / bandwidth: where the two measured roofs meet, FLOP/byte.
    pub intensity: f64,
    /// The lowest intensity measured that reaches 90% of the peak.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knee: Option<f64>,
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

/// A benchmark that could not run or failed its check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// Benchmark id.
    pub id: String,
    /// Why it failed or could not run.
    pub error: String,
}

#[cfg(test)]
mod tests {
    use super::*;

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
