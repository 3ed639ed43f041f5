//! Where GPU time goes by class of work (compute, memory, communication,
//! the rest), for the program view and the views of a multi-GPU job.

use serde::{Deserialize, Serialize};

use crate::kernel_analysis::KernelAnalysis;
use crate::levels::Bound;

/// Where a kernel's GPU time goes in a program view: compute-bound,
/// memory-bound, communication (collectives) or not placed (no roof, no
/// duration).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeClass {
    /// Kernels at or right of the ridge (compute-bound).
    Compute,
    /// Kernels left of the ridge (memory-bound).
    Memory,
    /// Collectives (NCCL kernels).
    Communication,
    /// Kernels without a roof or a duration.
    Unplaced,
}

impl TimeClass {
    /// Every class, in the order tables show them.
    pub const ALL: [TimeClass; 4] =
        [TimeClass::Compute, TimeClass::Memory, TimeClass::Communication, TimeClass::Unplaced];

    /// The word tables print ("compute", "not placed").
    pub fn label(self) -> &'static str {
        match self {
            TimeClass::Compute => "compute",
            TimeClass::Memory => "memory",
            TimeClass::Communication => "communication",
            TimeClass::Unplaced => "not placed",
        }
    }
}

/// The class of an analysed kernel: communication for collectives, else
/// the side of the ridge it landed on.
pub fn time_class(a: &KernelAnalysis) -> TimeClass {
    if a.collective.is_some() {
        return TimeClass::Communication;
    }
    match a.bound {
        Some(Bound::Compute) => TimeClass::Compute,
        Some(Bound::Memory) => TimeClass::Memory,
        None => TimeClass::Unplaced,
    }
}

/// Seconds per class over analysed kernels (kernels without a duration add nothing).
pub fn time_split<'a>(kernels: impl IntoIterator<Item = &'a KernelAnalysis>) -> [f64; 4] {
    let mut out = [0.0; 4];
    for a in kernels {
        if let Some(d) = a.kernel.duration_s.filter(|d| d.is_finite() && *d > 0.0) {
            out[time_class(a) as usize] += d;
        }
    }
    out
}
