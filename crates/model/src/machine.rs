//! A machine: the roofs a kernel can be judged against.
//!
//! A roofline needs at least one compute ceiling (FLOP/s) and one bandwidth
//! ceiling (bytes/s). Real GPUs have many of each: one per precision and
//! execution pipe (CUDA cores, tensor cores per input type) and one per
//! memory level (DRAM, L2, L1/shared). Every ceiling carries where its number
//! came from (a datasheet, device attributes, a benchmark, a counter) and the
//! clock it assumes, because "66.9 TFLOP/s" means little without "at 1980 MHz,
//! computed from attributes".

use serde::{Deserialize, Serialize};
use std::fmt;

use crate::link::Link;
use crate::stats::Spread;
use crate::units::{format_si, Unit};

/// The kind of floating-point work a compute ceiling bounds and a kernel does.
///
/// CUDA-core kinds count an FMA as two FLOPs; tensor kinds count the
/// multiply-adds of the matrix instruction the same way (2 x M x N x K for a
/// GEMM). `TensorInt8` counts integer operations, shown as OP/s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlopKind {
    /// FP64 on the CUDA cores.
    Fp64,
    /// FP32 on the CUDA cores.
    Fp32,
    /// FP16 on the CUDA cores (HFMA2, HADD2, HMUL2 and their scalar forms).
    Fp16,
    /// FP64 matrix instructions (DMMA) on the tensor cores.
    TensorFp64,
    /// TF32 inputs on the tensor cores.
    TensorTf32,
    /// FP16 inputs on the tensor cores.
    TensorFp16,
    /// BF16 inputs on the tensor cores.
    TensorBf16,
    /// FP8 (E4M3/E5M2) inputs on the tensor cores.
    TensorFp8,
    /// INT8 inputs on the tensor cores, counted as integer OPs.
    TensorInt8,
}

impl FlopKind {
    /// Every kind, CUDA-core kinds first.
    pub const ALL: [FlopKind; 9] = [
        FlopKind::Fp64,
        FlopKind::Fp32,
        FlopKind::Fp16,
        FlopKind::TensorFp64,
        FlopKind::TensorTf32,
        FlopKind::TensorFp16,
        FlopKind::TensorBf16,
        FlopKind::TensorFp8,
        FlopKind::TensorInt8,
    ];

    /// Short label used in tables and charts ("FP32", "BF16 tensor").
    pub fn label(self) -> &'static str {
        match self {
            FlopKind::Fp64 => "FP64",
            FlopKind::Fp32 => "FP32",
            FlopKind::Fp16 => "FP16",
            FlopKind::TensorFp64 => "FP64 tensor",
            FlopKind::TensorTf32 => "TF32 tensor",
            FlopKind::TensorFp16 => "FP16 tensor",
            FlopKind::TensorBf16 => "BF16 tensor",
            FlopKind::TensorFp8 => "FP8 tensor",
            FlopKind::TensorInt8 => "INT8 tensor",
        }
    }

    /// The name used on the command line and in JSON ("fp32", "tensor_bf16").
    pub fn key(self) -> &'static str {
        match self {
            FlopKind::Fp64 => "fp64",
            FlopKind::Fp32 => "fp32",
            FlopKind::Fp16 => "fp16",
            FlopKind::TensorFp64 => "tensor_fp64",
            FlopKind::TensorTf32 => "tensor_tf32",
            FlopKind::TensorFp16 => "tensor_fp16",
            FlopKind::TensorBf16 => "tensor_bf16",
            FlopKind::TensorFp8 => "tensor_fp8",
            FlopKind::TensorInt8 => "tensor_int8",
        }
    }

    /// The kind for a command-line or JSON name: a [`FlopKind::key`] (any case,
    /// `-` or space for `_`) or a common alias ("float", "double", "half",
    /// "bf16", "tf32", "fp8", "int8"); `None` for anything else.
    pub fn from_key(s: &str) -> Option<FlopKind> {
        let s = s.trim().to_ascii_lowercase().replace(['-', ' '], "_");
        FlopKind::ALL.into_iter().find(|k| k.key() == s).or(match s.as_str() {
            "double" => Some(FlopKind::Fp64),
            "float" | "single" => Some(FlopKind::Fp32),
            "half" | "half2" => Some(FlopKind::Fp16),
            "bf16" => Some(FlopKind::TensorBf16),
            "tf32" => Some(FlopKind::TensorTf32),
            "fp8" => Some(FlopKind::TensorFp8),
            "int8" => Some(FlopKind::TensorInt8),
            _ => None,
        })
    }

    /// The unit of a rate of this kind: OP/s for integer work, FLOP/s otherwise.
    pub fn rate_unit(self) -> crate::units::Unit {
        if self == FlopKind::TensorInt8 {
            crate::units::Unit::OpPerSecond
        } else {
            crate::units::Unit::FlopPerSecond
        }
    }

    /// True for the tensor-core kinds.
    pub fn is_tensor(self) -> bool {
        !matches!(self, FlopKind::Fp64 | FlopKind::Fp32 | FlopKind::Fp16)
    }
}

impl fmt::Display for FlopKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// A level of the memory hierarchy a bandwidth ceiling bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemLevel {
    /// Device memory (HBM or GDDR).
    Dram,
    /// The L2 cache, shared by all SMs.
    L2,
    /// L1 data cache and shared memory (one SRAM on NVIDIA GPUs).
    L1,
}

impl MemLevel {
    /// Every level, farthest from the SMs first.
    pub const ALL: [MemLevel; 3] = [MemLevel::Dram, MemLevel::L2, MemLevel::L1];

    /// Label in tables and charts ("DRAM", "L2", "L1/shared").
    pub fn label(self) -> &'static str {
        match self {
            MemLevel::Dram => "DRAM",
            MemLevel::L2 => "L2",
            MemLevel::L1 => "L1/shared",
        }
    }

    /// Name on the command line and in JSON ("dram", "l2", "l1").
    pub fn key(self) -> &'static str {
        match self {
            MemLevel::Dram => "dram",
            MemLevel::L2 => "l2",
            MemLevel::L1 => "l1",
        }
    }

    /// The level for a name: a key or an alias ("hbm", "global", "shared",
    /// "smem", ...), any case; `None` for anything else.
    pub fn from_key(s: &str) -> Option<MemLevel> {
        match s.trim().to_ascii_lowercase().as_str() {
            "dram" | "hbm" | "gmem" | "global" => Some(MemLevel::Dram),
            "l2" => Some(MemLevel::L2),
            "l1" | "shared" | "smem" | "l1/shared" => Some(MemLevel::L1),
            _ => None,
        }
    }
}

impl fmt::Display for MemLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Where a number came from, in the three words the tool prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Computed from a datasheet or from device attributes: what the
    /// hardware could do, not what it did.
    Theoretical,
    /// Timed on the GPU by a benchmark.
    Measured,
    /// Read from hardware performance counters (Nsight Compute).
    Counter,
    /// Given by the user (command line, TOML, edited JSON).
    #[default]
    User,
    /// Derived from another ceiling by a rule (for example "no FMA" = half
    /// of the FMA peak).
    Derived,
    /// Estimated from the shapes, dtypes and strides of the operator that
    /// launched the kernel (a PyTorch profiler trace), not counted.
    Estimated,
}

impl Origin {
    /// The word the tool prints: "theoretical", "measured", "counter", "user",
    /// "derived" or "estimated from shapes".
    pub fn label(self) -> &'static str {
        match self {
            Origin::Theoretical => "theoretical",
            Origin::Measured => "measured",
            Origin::Counter => "counter",
            Origin::User => "user",
            Origin::Derived => "derived",
            Origin::Estimated => "estimated from shapes",
        }
    }
}

/// The provenance of a ceiling: its origin, a human-readable source and
/// whether the figure is confirmed (unconfirmed table rows are estimates).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// Theoretical, measured, counter, user or derived.
    pub origin: Origin,
    /// For example "device attributes: 132 SMs x 128 FP32 lanes x 2 x 1980 MHz",
    /// "datasheet: NVIDIA H200 SXM", "benchmark dram.copy (2^28 floats)".
    pub source: String,
    /// False for estimates (table rows not checked against a datasheet):
    /// printed as "unconfirmed".
    #[serde(default = "yes")]
    pub confirmed: bool,
}

fn yes() -> bool {
    true
}

impl Provenance {
    /// A confirmed provenance.
    pub fn new(origin: Origin, source: impl Into<String>) -> Self {
        Provenance { origin, source: source.into(), confirmed: true }
    }

    /// Marks the figure as an estimate (see [`Provenance::confirmed`]).
    pub fn unconfirmed(mut self) -> Self {
        self.confirmed = false;
        self
    }

    /// "theoretical (device attributes ...)", with "unconfirmed" when so.
    pub fn describe(&self) -> String {
        let flag = if self.confirmed { "" } else { ", unconfirmed" };
        format!("{}{flag}: {}", self.origin.label(), self.source)
    }
}

/// The clock a ceiling assumes or was measured at.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ClockBasis {
    /// SM (graphics) clock in MHz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_mhz: Option<f64>,
    /// Memory clock in MHz, as the driver reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_mhz: Option<f64>,
    /// What the clock is: "boost clock (CLOCK_RATE)", "vendor tensor clock",
    /// "median of NVML samples during the run".
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub basis: String,
}

impl ClockBasis {
    /// An SM clock of `mhz` MHz, with what it is.
    pub fn sm(mhz: f64, basis: impl Into<String>) -> Self {
        ClockBasis { sm_mhz: Some(mhz), mem_mhz: None, basis: basis.into() }
    }
    /// A memory clock of `mhz` MHz, with what it is.
    pub fn mem(mhz: f64, basis: impl Into<String>) -> Self {
        ClockBasis { sm_mhz: None, mem_mhz: Some(mhz), basis: basis.into() }
    }
    /// "SM 1980 MHz (boost clock)"; the basis alone when no clock is set.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(s) = self.sm_mhz {
            parts.push(format!("SM {s:.0} MHz"));
        }
        if let Some(m) = self.mem_mhz {
            parts.push(format!("memory {m:.0} MHz"));
        }
        let mut text = parts.join(", ");
        if !self.basis.is_empty() {
            if text.is_empty() {
                text = self.basis.clone();
            } else {
                text = format!("{text} ({})", self.basis);
            }
        }
        text
    }
}

/// An execution pipe or instruction class of an SM, as the instruction
/// roofline (Ding and Williams) and Nsight Compute's pipe counters see it.
/// Its roof is in warp instructions per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pipe {
    /// Any instruction: the warp schedulers' issue slots.
    Issue,
    /// Integer and logic: IADD3, LOP3, shifts, comparisons (`pipe_alu`).
    Alu,
    /// FP32 and integer multiply-add: FFMA, FMUL, FADD, IMAD (`pipe_fma`).
    Fma,
    /// FP64 arithmetic (`pipe_fp64`).
    Fp64,
    /// Half-precision arithmetic on the CUDA cores (`pipe_fp16`).
    Fp16,
    /// The special-function unit: MUFU ex2, lg2, rsqrt, sin, cos (`pipe_xu`).
    Xu,
    /// Load/store issue: global, local and shared memory instructions (`pipe_lsu`).
    Lsu,
    /// Shared-memory loads and stores through the banks (LDS/STS).
    Shared,
    /// Atomics and reductions on global memory, executed in L2.
    GlobalAtomic,
    /// Atomics on shared memory.
    SharedAtomic,
    /// Matrix instructions (HMMA, HGMMA, DMMA) on the tensor cores.
    Tensor,
}

impl Pipe {
    /// Every pipe, the issue slots first.
    pub const ALL: [Pipe; 11] = [
        Pipe::Issue,
        Pipe::Alu,
        Pipe::Fma,
        Pipe::Fp64,
        Pipe::Fp16,
        Pipe::Xu,
        Pipe::Lsu,
        Pipe::Shared,
        Pipe::GlobalAtomic,
        Pipe::SharedAtomic,
        Pipe::Tensor,
    ];

    /// "ALU (integer)", "XU (special functions)".
    pub fn label(self) -> &'static str {
        match self {
            Pipe::Issue => "issue",
            Pipe::Alu => "ALU (integer)",
            Pipe::Fma => "FMA (FP32, IMAD)",
            Pipe::Fp64 => "FP64 pipe",
            Pipe::Fp16 => "FP16 pipe",
            Pipe::Xu => "XU (special functions)",
            Pipe::Lsu => "LSU (load/store)",
            Pipe::Shared => "shared memory",
            Pipe::GlobalAtomic => "global atomics",
            Pipe::SharedAtomic => "shared atomics",
            Pipe::Tensor => "tensor pipe",
        }
    }

    /// The name in JSON and on the command line ("alu", "global_atomic").
    pub fn key(self) -> &'static str {
        match self {
            Pipe::Issue => "issue",
            Pipe::Alu => "alu",
            Pipe::Fma => "fma",
            Pipe::Fp64 => "fp64",
            Pipe::Fp16 => "fp16",
            Pipe::Xu => "xu",
            Pipe::Lsu => "lsu",
            Pipe::Shared => "shared",
            Pipe::GlobalAtomic => "global_atomic",
            Pipe::SharedAtomic => "shared_atomic",
            Pipe::Tensor => "tensor",
        }
    }
}

/// What a ceiling bounds: a kind of arithmetic, a memory level, a pipe or
/// a link.
///
/// One enum, so that every view walks one list of ceilings instead of two
/// parallel ones; the unit of a ceiling's rate follows from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type", content = "which")]
pub enum Resource {
    /// A flat roof: FLOP/s (OP/s for integer tensor work) of one kind.
    Compute(FlopKind),
    /// A slanted roof: bytes/s one memory level delivers.
    Memory(MemLevel),
    /// An instruction roof: warp instructions/s one pipe issues.
    Instruction(Pipe),
    /// An interconnect roof: bytes/s between the host and a GPU, between
    /// two GPUs, or a collective's bus bandwidth over several GPUs.
    Link(Link),
}

impl Resource {
    /// The unit of a rate of this resource.
    pub fn unit(self) -> Unit {
        match self {
            Resource::Compute(kind) => kind.rate_unit(),
            Resource::Memory(_) => Unit::BytePerSecond,
            Resource::Instruction(_) => Unit::InstPerSecond,
            Resource::Link(_) => Unit::BytePerSecond,
        }
    }

    /// "FP32", "DRAM".
    pub fn label(self) -> &'static str {
        match self {
            Resource::Compute(kind) => kind.label(),
            Resource::Memory(level) => level.label(),
            Resource::Instruction(pipe) => pipe.label(),
            Resource::Link(link) => link.label(),
        }
    }

    /// The resource's family as JSON names it: "compute", "memory",
    /// "instruction" or "link".
    pub fn family(self) -> &'static str {
        match self {
            Resource::Compute(_) => "compute",
            Resource::Memory(_) => "memory",
            Resource::Instruction(_) => "instruction",
            Resource::Link(_) => "link",
        }
    }

    /// The member of the family as JSON names it: "fp32", "dram".
    pub fn key(self) -> &'static str {
        match self {
            Resource::Compute(kind) => kind.key(),
            Resource::Memory(level) => level.key(),
            Resource::Instruction(pipe) => pipe.key(),
            Resource::Link(link) => link.key(),
        }
    }

    /// The compute kind, for a flat roof.
    pub fn flop_kind(self) -> Option<FlopKind> {
        match self {
            Resource::Compute(kind) => Some(kind),
            _ => None,
        }
    }

    /// The memory level, for a slanted roof.
    pub fn mem_level(self) -> Option<MemLevel> {
        match self {
            Resource::Memory(level) => Some(level),
            _ => None,
        }
    }
}

/// One roof: the most a machine can do of one [`Resource`] per second, with
/// where the number came from and the clock it assumes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ceiling {
    /// What it bounds: FLOPs of one kind, a memory level, a pipe or a link.
    pub resource: Resource,
    /// Display name: "FP32", "FP32 (no FMA)", "DRAM", "DRAM (copy)".
    pub name: String,
    /// The rate, in [`Resource::unit`] (FLOP/s, OP/s or B/s).
    pub rate: f64,
    /// Theoretical, measured, counter, user or derived, and from what.
    pub provenance: Provenance,
    /// The clock the rate assumes (theoretical) or ran at (measured).
    #[serde(default)]
    pub clock: ClockBasis,
    /// Spread of repeated measurements, for measured ceilings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<Spread>,
    /// A lower ceiling under the main one for the same resource (no FMA, no
    /// vectorisation, copy instead of read): drawn, but never the roof a
    /// kernel is judged against.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub secondary: bool,
    /// For a measured memory ceiling: the streaming pattern the benchmark
    /// ran (copy, triad, read-only ...) with its reads and writes per
    /// element, so that a kernel can be judged against what streaming with
    /// its own read:write mix reaches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<StreamPattern>,
}

/// A streaming benchmark's access pattern: which benchmark, and how many
/// arrays it reads and writes per element (copy: 1 read, 1 write; triad: 2
/// reads, 1 write).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamPattern {
    /// The benchmark's identifier ("dram.copy").
    pub benchmark: String,
    /// Arrays read per element.
    pub reads: u32,
    /// Arrays written per element.
    pub writes: u32,
}

impl StreamPattern {
    /// A pattern of `reads` and `writes` arrays per element.
    pub fn new(benchmark: impl Into<String>, reads: u32, writes: u32) -> StreamPattern {
        StreamPattern { benchmark: benchmark.into(), reads, writes }
    }

    /// The share of the bytes that are read, 0..1 (all arrays have the same
    /// element size in the benchmarks).
    pub fn read_share(&self) -> f64 {
        let total = self.reads + self.writes;
        if total == 0 {
            0.0
        } else {
            self.reads as f64 / total as f64
        }
    }

    /// The pattern of a `bench` DRAM benchmark from its identifier, for
    /// machine files written before ceilings carried their pattern.
    pub fn of_benchmark(id: &str) -> Option<StreamPattern> {
        let (reads, writes) = match id {
            "dram.read" => (1, 0),
            "dram.write" => (0, 1),
            "dram.copy" => (1, 1),
            "dram.add" | "dram.triad" => (2, 1),
            _ => return None,
        };
        Some(StreamPattern::new(id, reads, writes))
    }
}

impl Ceiling {
    /// A primary ceiling with no clock or spread yet.
    pub fn new(resource: Resource, name: impl Into<String>, rate: f64, provenance: Provenance) -> Ceiling {
        Ceiling {
            resource,
            name: name.into(),
            rate,
            provenance,
            clock: ClockBasis::default(),
            spread: None,
            secondary: false,
            pattern: None,
        }
    }

    /// Sets the clock the rate assumes or was measured at.
    pub fn with_clock(mut self, clock: ClockBasis) -> Ceiling {
        self.clock = clock;
        self
    }

    /// Sets the spread of repeated measurements.
    pub fn with_spread(mut self, spread: Option<Spread>) -> Ceiling {
        self.spread = spread;
        self
    }

    /// Names the streaming pattern a measured memory ceiling ran.
    pub fn with_pattern(mut self, pattern: StreamPattern) -> Ceiling {
        self.pattern = Some(pattern);
        self
    }

    /// The streaming pattern: the field, or for older machine files the
    /// benchmark identifier its provenance starts with ("benchmark
    /// dram.copy: ...").
    pub fn stream_pattern(&self) -> Option<StreamPattern> {
        if let Some(p) = &self.pattern {
            return Some(p.clone());
        }
        if self.provenance.origin != Origin::Measured {
            return None;
        }
        let id = self.provenance.source.strip_prefix("benchmark ")?.split(':').next()?;
        StreamPattern::of_benchmark(id.trim())
    }

    /// Marks the ceiling as drawn-only (see [`Ceiling::secondary`]).
    pub fn secondary(mut self) -> Ceiling {
        self.secondary = true;
        self
    }

    /// The unit of [`Ceiling::rate`]: FLOP/s, OP/s, B/s or inst/s.
    pub fn unit(&self) -> Unit {
        self.resource.unit()
    }

    /// "66.9 TFLOP/s".
    pub fn formatted(&self) -> String {
        format_si(self.rate, self.unit())
    }
}

/// Facts about the GPU a machine describes, where known.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GpuFacts {
    /// Product name ("NVIDIA H200").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// "9.0".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_capability: Option<String>,
    /// Streaming multiprocessors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sms: Option<u32>,
    /// SM clock the theoretical roofs use, MHz (the boost clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_clock_mhz: Option<f64>,
    /// Memory clock the theoretical DRAM roof uses, MHz, as the driver
    /// reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_clock_mhz: Option<f64>,
    /// Memory bus width, bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bus_width_bits: Option<u32>,
    /// L2 cache size, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2_bytes: Option<u64>,
    /// Device memory, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_bytes: Option<u64>,
    /// Driver version and its CUDA version ("580.65.06 (CUDA 13.0)"), when
    /// read from the live GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
    /// Device UUID ("GPU-..."), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
}

/// The roofs of one machine, theoretical, measured or both.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Machine {
    /// Name shown in reports (the GPU's product name, or the user's).
    pub name: String,
    /// Facts about the GPU, where known.
    #[serde(default)]
    pub gpu: GpuFacts,
    /// Every roof, compute and memory, primary and secondary.
    #[serde(default)]
    pub ceilings: Vec<Ceiling>,
    /// Things a reader must know: unconfirmed rows, throttling, clocks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Machine {
    /// A two-roof machine from a peak and a bandwidth given by the user.
    pub fn simple(name: &str, kind: FlopKind, flops_per_s: f64, bytes_per_s: f64) -> Machine {
        let user = Provenance::new(Origin::User, "given on the command line");
        Machine {
            name: name.to_string(),
            gpu: GpuFacts::default(),
            ceilings: vec![
                Ceiling::new(Resource::Compute(kind), kind.label(), flops_per_s, user.clone()),
                Ceiling::new(Resource::Memory(MemLevel::Dram), MemLevel::Dram.label(), bytes_per_s, user),
            ],
            notes: Vec::new(),
        }
    }

    /// The flat (compute) ceilings.
    pub fn compute(&self) -> impl Iterator<Item = &Ceiling> {
        self.ceilings.iter().filter(|c| matches!(c.resource, Resource::Compute(_)))
    }

    /// The instruction-pipe ceilings (the instruction roofline's flat roofs).
    pub fn instruction(&self) -> impl Iterator<Item = &Ceiling> {
        self.ceilings.iter().filter(|c| matches!(c.resource, Resource::Instruction(_)))
    }

    /// The interconnect ceilings (host, peer and collective links).
    pub fn links(&self) -> impl Iterator<Item = &Ceiling> {
        self.ceilings.iter().filter(|c| matches!(c.resource, Resource::Link(_)))
    }

    /// The slanted (memory) ceilings.
    pub fn bandwidth(&self) -> impl Iterator<Item = &Ceiling> {
        self.ceilings.iter().filter(|c| matches!(c.resource, Resource::Memory(_)))
    }

    /// The primary (highest non-secondary) ceiling of a resource, preferring
    /// a measured one over a theoretical one when both exist.
    pub fn roof(&self, resource: Resource) -> Option<&Ceiling> {
        best(self.ceilings.iter().filter(|c| c.resource == resource && !c.secondary), |c| (c.provenance.origin, c.rate))
    }

    /// The primary compute ceiling of a kind (see [`Machine::roof`]).
    pub fn compute_roof(&self, kind: FlopKind) -> Option<&Ceiling> {
        self.roof(Resource::Compute(kind))
    }

    /// The primary bandwidth ceiling of a level (see [`Machine::roof`]).
    pub fn bandwidth_roof(&self, level: MemLevel) -> Option<&Ceiling> {
        self.roof(Resource::Memory(level))
    }

    /// Ridge point (FLOP/byte) of a compute kind against a memory level.
    pub fn ridge(&self, kind: FlopKind, level: MemLevel) -> Option<f64> {
        let pi = self.compute_roof(kind)?.rate;
        let beta = self.bandwidth_roof(level)?.rate;
        Some(crate::roof::ridge_point(pi, beta))
    }

    /// Replaces or adds ceilings from `other` (for example measured roofs over
    /// theoretical ones): a ceiling of `other` replaces one here with the same
    /// name, others are appended.
    pub fn overlay(&mut self, other: &Machine) {
        for c in &other.ceilings {
            match self.ceilings.iter_mut().find(|x| x.name == c.name && x.resource == c.resource) {
                Some(x) => *x = c.clone(),
                None => self.ceilings.push(c.clone()),
            }
        }
        self.notes.extend(other.notes.iter().cloned());
    }

    /// One line per ceiling, for logs and errors.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        for c in &self.ceilings {
            s.push_str(&format!("{}: {} [{}]\n", c.name, c.formatted(), c.provenance.origin.label()));
        }
        s
    }
}

/// Ranks measured above counter above theoretical; among equals the
/// highest value wins (the best a benchmark reached).
fn best<'a, T, F>(items: impl Iterator<Item = &'a T>, key: F) -> Option<&'a T>
where
    F: Fn(&T) -> (Origin, f64),
    T: 'a,
{
    let rank = |o: Origin| match o {
        Origin::Measured => 4,
        Origin::User => 3,
        Origin::Counter => 2,
        Origin::Theoretical => 1,
        Origin::Derived => 0,
        Origin::Estimated => 0,
    };
    items.max_by(|a, b| {
        let (oa, va) = key(a);
        let (ob, vb) = key(b);
        rank(oa).cmp(&rank(ob)).then(va.total_cmp(&vb))
    })
}
