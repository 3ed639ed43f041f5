//! The record of one kernel judged: its placement under the roofs, and the
//! parts later steps add (the instruction roofline, the diagnosis, or, for
//! a collective, its place against the link roofs). Each step's types live
//! with the step; this record only gathers them, so data flows one way.

use serde::{Deserialize, Serialize};

use roofline_model::{FlopKind, Kernel, MemLevel};

use crate::collective::CollectivePlacement;
use crate::findings::Diagnosis;
use crate::instructions::InstructionAnalysis;
use crate::levels::{Bound, LevelPoint, Limiter};

/// The roofline placement of one kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelAnalysis {
    /// The kernel analysed, as given.
    pub kernel: Kernel,
    /// Fraction of the summed duration of all analysed kernels (0..1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_share: Option<f64>,
    /// FLOPs of every kind, all launches.
    pub total_flops: f64,
    /// Effective compute peak for this kernel's mix of FLOP kinds.
    pub compute_roof_flops_per_s: Option<f64>,
    /// The name of the compute roof ("FP32", or "mix of FP32 + BF16 tensor").
    pub compute_roof_name: Option<String>,
    /// The kernel's point at each memory level it has bytes for.
    pub levels: Vec<LevelPoint>,
    /// The lowest roof over all levels: what this kernel can attain.
    pub attainable_flops_per_s: Option<f64>,
    /// What holds it back: the level or compute roof that gives the
    /// attainable rate; `None` without FLOPs or roofs.
    pub limiter: Option<Limiter>,
    /// Which side of the ridge it sits on; `None` when no roof applies.
    pub bound: Option<Bound>,
    /// FLOP/s the kernel reached (needs a duration).
    pub achieved_flops_per_s: Option<f64>,
    /// How close to the roof that applies, in percent. For kernels with no
    /// FLOPs, the best % of bandwidth over the levels.
    pub pct_of_roof: Option<f64>,
    /// For a kernel held by DRAM bandwidth, % of what streaming with its own
    /// read:write mix reaches (see [`LevelPoint::mix`]): the figure its
    /// position is judged by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pct_of_mix_roof: Option<f64>,
    /// FLOP kinds the kernel did that the machine has no ceiling for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_ceilings: Vec<FlopKind>,
    /// The instruction roofline, when the kernel has instruction counters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<InstructionAnalysis>,
    /// Why it sits where it does and what to try (see [`crate::diagnosis`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnosis: Option<Diagnosis>,
    /// For NCCL kernels: their traffic against the interconnect roof
    /// (`crate::collective`); their % of roof is that one, not a memory
    /// level's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collective: Option<Box<CollectivePlacement>>,
}

impl KernelAnalysis {
    /// What places the kernel on a chart and picks its roofs: its names,
    /// FLOPs, bytes, time and placement; not its diagnosis, instruction
    /// view, profiler evidence or level caveats (which for 100,000 kernels
    /// are most of an analysis's memory).
    pub fn placement(&self) -> KernelAnalysis {
        let k = &self.kernel;
        KernelAnalysis {
            kernel: Kernel {
                id: k.id.clone(),
                name: k.name.clone(),
                display_name: k.display_name.clone(),
                flops: k.flops.clone(),
                bytes: k.bytes.clone(),
                duration_s: k.duration_s,
                launches: k.launches,
                capture_order: k.capture_order,
                origin: k.origin,
                evidence: Default::default(),
                unmeasured: Default::default(),
            },
            levels: self.levels.clone(),
            compute_roof_name: self.compute_roof_name.clone(),
            missing_ceilings: self.missing_ceilings.clone(),
            collective: self.collective.clone(),
            instructions: None,
            diagnosis: None,
            ..*self
        }
    }

    /// The intensity at the level that limits the kernel, or at DRAM.
    pub fn headline_intensity(&self) -> Option<f64> {
        let level = match self.limiter {
            Some(Limiter::Bandwidth(l)) => l,
            _ => MemLevel::Dram,
        };
        self.levels.iter().find(|p| p.level == level).and_then(|p| p.intensity)
    }

    /// The kernel's point at `level`, if it has bytes there.
    pub fn level(&self, level: MemLevel) -> Option<&LevelPoint> {
        self.levels.iter().find(|p| p.level == level)
    }

    /// The % a position is judged by: of the mix-matched DRAM roof when the
    /// kernel is held by DRAM bandwidth and the machine measured streaming,
    /// else of the roof.
    pub fn judged_pct(&self) -> Option<f64> {
        self.pct_of_mix_roof.or(self.pct_of_roof)
    }
}
