//! `roofline-core`: the roofline model with no I/O, no GPU and no CLI.
//!
//! Everything the tool prints is computed here from plain data, so that it
//! can be tested on any machine: units ([`units`]), machines and their
//! ceilings ([`machine`]), kernels ([`kernel`]), the roofline placement
//! ([`roofline`]), the diagnosis ([`diagnosis`]), theoretical peaks from
//! device attributes ([`peaks`], [`arch`], [`gpus`]), paper estimates
//! ([`estimate`]), the occupancy calculator ([`occupancy`]), statistics
//! ([`stats`]), CI thresholds ([`check`]), before/after comparisons
//! ([`diff`]), where a whole program's time goes ([`program`]), the
//! versioned JSON documents ([`schema`]), their typed warnings
//! ([`warning`]) and the range every number of a document keeps to
//! ([`bounds`]), links between GPUs and to the host ([`link`]),
//! collectives against them ([`collective`]) and the ranks of a
//! multi-process job merged into one document ([`merge`]).
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod arch;
pub mod bounds;
pub mod check;
pub mod collective;
pub mod diagnosis;
pub mod diff;
pub mod estimate;
pub mod gpus;
pub mod kernel;
pub mod link;
pub mod machine;
pub mod merge;
pub mod occupancy;
pub mod peaks;
pub mod program;
pub mod roofline;
pub mod schema;
pub mod stats;
pub mod synthetic;
pub mod units;
pub mod warning;

pub use kernel::Kernel;
pub use machine::{Ceiling, FlopKind, Machine, MemLevel, Origin, Pipe, Provenance, Resource};
pub use roofline::{analyze, analyze_kernel, attainable, ridge_point, Bound, KernelAnalysis, Limiter};
