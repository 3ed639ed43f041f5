//! What a profiler saw, before any roof is applied: the seam between the
//! sources (Nsight Compute's CSV, report or run, and whatever reader comes
//! next) and the analysis.
//!
//! A source reads its own format and fills one [`Capture`]; it never places
//! a kernel. `roofline-analysis` places a capture's kernels, against the
//! roofs the capture itself implies (a profiler's counter peaks at each
//! kernel's own clocks) or against a machine the user gives. So a new
//! profiler's data is one crate that yields a `Capture`, and every command,
//! view and check works on it unchanged.

use crate::kernel::Kernel;
use crate::machine::Machine;
use crate::warning::Warning;

/// The kernels of one capture, with what the source knows about them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Capture {
    /// Which profiler, and what it counted.
    pub source: CaptureSource,
    /// One entry per kernel (its launches summed), or per launch when the
    /// source was asked for launches, in the order the profiler saw them.
    pub kernels: Vec<CapturedKernel>,
    /// The roofs the whole capture implies (a profiler's counter peaks at
    /// the capture's average clocks); `None` when the source has none.
    pub roofs: Option<Machine>,
    /// What the source skipped, repaired or could not measure, in the
    /// order a reader should see it.
    pub warnings: Vec<Warning>,
    /// Launches read, all kernels together.
    pub launches: u64,
}

/// One kernel of a [`Capture`].
#[derive(Debug, Clone, PartialEq)]
pub struct CapturedKernel {
    /// Its FLOPs, bytes, time and evidence.
    pub kernel: Kernel,
    /// The roofs its own launches imply (counter peaks at its own clocks),
    /// which it is judged against when no machine is given.
    pub roofs: Option<Machine>,
}

/// Which profiler a capture came from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CaptureSource {
    /// The profiler, as documents name it ("ncu").
    pub kind: String,
    /// How its bytes at each memory level were counted, when that is a
    /// choice (Nsight Compute's chart convention or NERSC's).
    pub byte_convention: Option<String>,
}
