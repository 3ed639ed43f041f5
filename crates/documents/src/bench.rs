//! What `roofline bench` measured, typed: one record per benchmark (its
//! rate with the spread of its runs, the clocks it ran at, its launch, what
//! was checked), the benchmarks that failed, and the intensity sweeps with
//! the ridge they measured. The GPU crate writes these; every reader of a
//! machine document (the views, the tour) reads them back through
//! [`BenchRecords::of`], from the document's `measurements`, which keep
//! every field a run wrote whatever version wrote it.

use roofline_hw::InstOp;
use roofline_model::{CollectiveOp, Engine, FlopKind, Link, MemLevel, Pipe, Spread, Unit};
use serde::{Deserialize, Serialize};

use crate::schema::MachineDocument;

/// The benchmark records a machine document carries.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BenchRecords {
    /// One record per benchmark that succeeded.
    pub results: Vec<BenchResult>,
    /// Benchmarks that failed or could not run.
    pub failures: Vec<Failure>,
    /// The intensity sweeps.
    pub sweeps: Vec<Sweep>,
}

impl BenchRecords {
    /// The records of `doc`'s measurements; parts that are absent or of
    /// another shape are empty.
    pub fn of(doc: &MachineDocument) -> BenchRecords {
        let part = |key: &str| doc.measurements.as_ref().and_then(|m| m.get(key)).cloned();
        BenchRecords {
            results: part("results").and_then(|v| serde_json::from_value(v).ok()).unwrap_or_default(),
            failures: part("failures").and_then(|v| serde_json::from_value(v).ok()).unwrap_or_default(),
            sweeps: part("sweeps").and_then(|v| serde_json::from_value(v).ok()).unwrap_or_default(),
        }
    }
}

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

/// A benchmark that could not run or failed its check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// Benchmark id.
    pub id: String,
    /// Why it failed or could not run.
    pub error: String,
}

/// The clocks of one measurement window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockSummary {
    /// Samples taken in the window.
    pub samples: usize,
    /// Median SM clock, MHz.
    pub sm_mhz_median: f64,
    /// Lowest SM clock, MHz.
    pub sm_mhz_min: f64,
    /// Highest SM clock, MHz.
    pub sm_mhz_max: f64,
    /// Median memory clock, MHz.
    pub mem_mhz_median: f64,
    /// Highest temperature, °C.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temp_c_max: Option<u32>,
    /// Highest board power, W.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_w_max: Option<f64>,
    /// Slowdown reasons seen in any sample.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub throttle: Vec<String>,
}
