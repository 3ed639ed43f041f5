//! `roofline bench`: micro-benchmarks that measure the roofs of the GPU in
//! hand, because a datasheet's figure is what the hardware could do and a
//! streaming kernel's is what a kernel can get (seed 004).
//!
//! [`suite`] defines the benchmarks and their records; [`runner`] is the
//! loop (search, check, time, judge) and talks to the hardware only through
//! an [`executor::Executor`], so it is tested with a mock; the GPU's
//! executor runs the workloads of `memory`, `compute`, `instructions` and
//! [`tensor`] on a [`crate::Session`]; [`verify`] says what each output must
//! be, [`search`] picks a candidate, and [`machine`] builds the measured
//! machine and judges plausibility. [`run()`] ties them together for one
//! device, reporting [`Event`]s.

mod compute;
pub mod executor;
mod gpu;
mod instructions;
pub mod interconnect;
pub mod machine;
mod memory;
mod progress;
mod run;
pub mod runner;
pub mod search;
pub mod suite;
pub mod tensor;
pub mod verify;
mod workload;

pub use memory::{dram_candidates, dram_kernels, DramKernel};
pub use progress::Event;
pub use run::{run, Measurements, Options, Outcome};
pub use runner::{clock_warnings, Checks, Report};
