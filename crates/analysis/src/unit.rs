//! The units a kernel's time can be bound by, and their utilisation: the
//! vocabulary the limiter (`limiter.rs`) and the findings share.

use serde::{Deserialize, Serialize};

use roofline_model::{MemLevel, Pipe};

/// A unit a kernel's time can be bound by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "which")]
pub enum Unit {
    /// A memory level's bandwidth.
    Memory(MemLevel),
    /// One of the SM's pipes, the issue slots or shared memory.
    Pipe(Pipe),
}

impl Unit {
    /// "DRAM bandwidth", "tensor pipe", "issue slots".
    pub fn label(self) -> String {
        match self {
            Unit::Memory(l) => format!("{} bandwidth", l.label()),
            Unit::Pipe(Pipe::Issue) => "issue slots".into(),
            Unit::Pipe(Pipe::Tensor) => "tensor pipe".into(),
            Unit::Pipe(Pipe::Shared) => "shared-memory wavefronts".into(),
            Unit::Pipe(Pipe::SharedAtomic) => "shared-memory atomics".into(),
            Unit::Pipe(Pipe::GlobalAtomic) => "global atomics".into(),
            Unit::Pipe(p) => p.label().to_string(),
        }
    }

    /// A pipe that does FLOPs (tensor, FP32/FP16 FMA, FP64).
    pub fn is_flop_pipe(self) -> bool {
        matches!(self, Unit::Pipe(Pipe::Tensor | Pipe::Fma | Pipe::Fp16 | Pipe::Fp64))
    }
}

/// Where a unit's utilisation came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// The profiler's utilisation over the elapsed time (counter).
    Counter,
    /// The kernel's rate against the machine's roof for the unit (measured
    /// or theoretical, as the machine says).
    Roof,
    /// The tensor pipe's busy cycles (counter) against the share of them a
    /// measured GEMM reached at its own clock (`bench`'s tensor roof): the
    /// roof a production GEMM meets, so 100% is "as fast as cuBLASLt goes".
    MeasuredGemm,
}

/// One unit's utilisation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct UnitUse {
    /// The unit.
    pub unit: Unit,
    /// % of its roof over the kernel's elapsed time.
    pub pct: f64,
    /// Where the figure came from.
    pub basis: Basis,
}
