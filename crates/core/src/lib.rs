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
//!
//! ```
//! use roofline_core::{analyze_kernel, ridge_point, Bound, FlopKind, Kernel, Limiter, Machine, MemLevel, Origin};
//!
//! // A GPU of 1000 GFLOP/s FP32 and 100 GB/s DRAM: the ridge is at 10 FLOP/B.
//! let machine = Machine::simple("my GPU", FlopKind::Fp32, 1000e9, 100e9);
//! assert_eq!(ridge_point(1000e9, 100e9), 10.0);
//!
//! // A kernel that did 2e9 FP32 FLOPs over 1e9 DRAM bytes in 0.1 s.
//! let mut kernel = Kernel::named("saxpy", Origin::Counter);
//! kernel.flops.insert(FlopKind::Fp32, 2e9);
//! kernel.bytes.insert(MemLevel::Dram, 1e9);
//! kernel.duration_s = Some(0.1);
//!
//! let a = analyze_kernel(&machine, &kernel);
//! assert_eq!(a.bound, Some(Bound::Memory)); // 2 FLOP/B is left of the ridge
//! assert_eq!(a.limiter, Some(Limiter::Bandwidth(MemLevel::Dram)));
//! assert_eq!(a.attainable_flops_per_s, Some(200e9)); // 2 FLOP/B x 100 GB/s
//! assert!((a.pct_of_roof.unwrap() - 10.0).abs() < 1e-9); // 20 GFLOP/s of 200
//! ```
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(missing_docs)]

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
pub mod placements;
pub mod program;
pub mod roofline;
mod scan;
pub mod schema;
pub mod stats;
pub mod synthetic;
pub mod units;
pub mod warning;

pub use kernel::Kernel;
pub use machine::{Ceiling, FlopKind, Machine, MemLevel, Origin, Pipe, Provenance, Resource};
pub use roofline::{analyze, analyze_kernel, attainable, ridge_point, Bound, KernelAnalysis, Limiter};
