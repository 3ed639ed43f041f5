//! The seam between the benchmark loop and the hardware.
//!
//! The loop ([`super::runner`]) decides what to search, what to check, how
//! often to time, what is plausible and what to warn about; an [`Executor`]
//! only prepares a benchmark's buffers and kernels, launches a candidate and
//! checks its output. The GPU implements it on a [`crate::Session`]
//! (`super::gpu`); tests implement it with canned timings, so the loop's
//! decisions run in CI on machines without a GPU (as hyperfine's
//! `MockExecutor` does for its benchmark loop).

use roofline_model::Unit;

use super::suite::{BenchSpec, LaunchShape, SuiteConfig};
use crate::error::GpuError;
use crate::nvml::ClockSummary;
use crate::session::{Reps, Timing};

/// One way to run a benchmark: a launch shape, a kernel variant, a sweep
/// setting or a library algorithm.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// What a reader sees ("16-byte accesses, 256 threads x 8 blocks per SM").
    pub label: String,
    /// Launch shape and kernel parameters of the candidate.
    pub shape: LaunchShape,
    /// Work of one launch in the plan's unit: bytes, FLOPs or warp instructions.
    pub work: f64,
    /// The swept quantity, in sweeps: candidates with the same `x` compete
    /// in a search, and every `x` becomes a point of the curve.
    pub x: Option<f64>,
    /// The executor's own index of this candidate.
    pub variant: usize,
}

/// What to measure for one benchmark.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Unit of `work` and of the rate (B/s, FLOP/s, OP/s or inst/s).
    pub unit: Unit,
    /// The ways to run it; the fastest is reported.
    pub candidates: Vec<Candidate>,
    /// For sweeps: what x is ("warps per SM"); `None` for a plain search.
    pub axis: Option<String>,
    /// Problem size in words ("2 arrays of 4 GiB").
    pub size: String,
    /// How it is measured ("NVRTC sm_90 CUBIN, CUDA events").
    pub method: String,
}

/// The outcome of preparing a benchmark.
#[derive(Debug, Clone, PartialEq)]
pub enum Prepared {
    /// Measure it with this plan.
    Plan(Plan),
    /// Not measured here, and why ("not on this architecture").
    Skip(String),
}

/// The hardware side of the benchmark loop.
pub trait Executor {
    /// Allocates and initialises what `spec` needs and lists its candidates.
    fn prepare(&mut self, spec: &BenchSpec, cfg: &SuiteConfig) -> Result<Prepared, GpuError>;
    /// Times candidate `c` of the prepared benchmark.
    fn time(&mut self, c: &Candidate, reps: Reps) -> Result<Timing, GpuError>;
    /// Runs `c` once on poisoned output and checks every result; says what
    /// was checked, or fails with [`GpuError::Verification`].
    fn verify(&mut self, c: &Candidate) -> Result<String, GpuError>;
    /// The clocks during a timing window, where they were sampled.
    fn clock(&self, window: (f64, f64)) -> Option<ClockSummary>;
    /// Frees what the prepared benchmark holds (also after a failure).
    fn release(&mut self);
    /// Warnings the executor collected (memory short, a variant that failed).
    fn drain_warnings(&mut self) -> Vec<String>;
}
