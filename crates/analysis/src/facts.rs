//! What the program-level steps read of a kernel: the fusion groups
//! (`fusion::fusions`), the sort by time and the program view
//! (`ProgramView::from_kernels`) need a few figures of each kernel, not its
//! whole [`KernelAnalysis`] (several KB with its diagnosis and evidence).
//! [`KernelFacts`] is those figures; a [`KernelAnalysis`] has them, and so
//! does the lean record `import --per-launch` keeps per launch while the
//! analyses themselves wait on disk (`crate::stream`).

use roofline_model::MemLevel;

use crate::findings::Position;
use crate::kernel_analysis::KernelAnalysis;
use crate::levels::Bound;

/// The figures of a placed kernel that the fusion groups, the sort by time
/// and the program view read.
pub trait KernelFacts {
    /// [`roofline_model::Kernel::id`].
    fn id(&self) -> &str;
    /// The full name.
    fn name(&self) -> &str;
    /// The display name (empty: none).
    fn display_name(&self) -> &str;
    /// GPU time, seconds.
    fn duration_s(&self) -> Option<f64>;
    /// Launches it stands for.
    fn launches(&self) -> u64;
    /// Its place in the capture, from 1.
    fn capture_order(&self) -> Option<u64>;
    /// Nsight Compute's IDs of its launches.
    fn launch_ids(&self) -> &[String];
    /// Bytes at DRAM.
    fn dram_bytes(&self) -> Option<f64>;
    /// Bytes written to DRAM (evidence).
    fn dram_write_bytes(&self) -> Option<f64>;
    /// Where its diagnosis put it; `None` without a diagnosis.
    fn position(&self) -> Option<Position>;
    /// The binding limiter's % of its roof, when the diagnosis named one.
    fn binding_pct(&self) -> Option<f64>;
    /// The diagnosis's best saving, seconds.
    fn best_saving_s(&self) -> Option<f64>;
    /// % of the roof that applies.
    fn pct_of_roof(&self) -> Option<f64>;
    /// Which side of the ridge.
    fn bound(&self) -> Option<Bound>;
    /// Whether it is an NCCL collective placed against a link.
    fn is_collective(&self) -> bool;
}

impl KernelFacts for KernelAnalysis {
    fn id(&self) -> &str {
        &self.kernel.id
    }
    fn name(&self) -> &str {
        &self.kernel.name
    }
    fn display_name(&self) -> &str {
        &self.kernel.display_name
    }
    fn duration_s(&self) -> Option<f64> {
        self.kernel.duration_s
    }
    fn launches(&self) -> u64 {
        self.kernel.launches
    }
    fn capture_order(&self) -> Option<u64> {
        self.kernel.capture_order
    }
    fn launch_ids(&self) -> &[String] {
        &self.kernel.evidence.ncu_launch_ids
    }
    fn dram_bytes(&self) -> Option<f64> {
        self.kernel.bytes.get(&MemLevel::Dram).copied()
    }
    fn dram_write_bytes(&self) -> Option<f64> {
        self.kernel.evidence.dram_write_bytes
    }
    fn position(&self) -> Option<Position> {
        self.diagnosis.as_ref().map(|d| d.position)
    }
    fn binding_pct(&self) -> Option<f64> {
        self.diagnosis.as_ref().and_then(|d| d.binding()).map(|(_, p)| p)
    }
    fn best_saving_s(&self) -> Option<f64> {
        self.diagnosis.as_ref().and_then(|d| d.best_saving_s())
    }
    fn pct_of_roof(&self) -> Option<f64> {
        self.pct_of_roof
    }
    fn bound(&self) -> Option<Bound> {
        self.bound
    }
    fn is_collective(&self) -> bool {
        self.collective.is_some()
    }
}
