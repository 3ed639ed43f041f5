//! `roofline-model`: the data every other crate speaks, with no I/O.
//!
//! A roofline needs a machine (its ceilings, each with where its number
//! came from and the clock it assumes: [`Machine`], [`Ceiling`],
//! [`Provenance`]) and kernels (FLOPs per kind, bytes per memory level, a
//! duration, and the profiler's evidence: [`Kernel`], [`Evidence`]). The
//! rest is what keeps those honest: quantities printed and parsed one way
//! ([`Unit`], [`format_si`], [`parse_quantity`]), measured figures with
//! their spread ([`Spread`]), the range every number of a document keeps
//! to ([`check_numbers`]), links between GPUs ([`Link`]), typed warnings
//! ([`Warning`]), kernel names a reader can tell apart ([`display_names`]),
//! the roofline formula ([`attainable`], [`ridge_point`]) and the
//! [`Capture`] every profiler fills, whatever it is.
//!
//! ```
//! use roofline_model::{attainable, ridge_point, FlopKind, Kernel, Machine, MemLevel, Origin};
//!
//! // A GPU of 1000 GFLOP/s FP32 and 100 GB/s DRAM: the ridge is at 10 FLOP/B.
//! let machine = Machine::simple("my GPU", FlopKind::Fp32, 1000e9, 100e9);
//! assert_eq!(machine.ridge(FlopKind::Fp32, MemLevel::Dram), Some(10.0));
//! assert_eq!(ridge_point(1000e9, 100e9), 10.0);
//! // At 2 FLOP/B the bandwidth roof holds it to 200 GFLOP/s.
//! assert_eq!(attainable(1000e9, 100e9, 2.0), 200e9);
//!
//! let mut kernel = Kernel::named("saxpy", Origin::Counter);
//! kernel.flops.insert(FlopKind::Fp32, 2e9);
//! kernel.bytes.insert(MemLevel::Dram, 1e9);
//! assert_eq!(kernel.total_flops(), 2e9);
//! ```
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![deny(missing_docs)]

mod bounds;
mod capability;
mod capture;
mod kernel;
mod link;
mod machine;
mod names;
mod roof;
mod stats;
mod units;
mod warning;

pub use bounds::{check_numbers, input_in_range, input_range_problem, OutOfRange};
pub use capability::{cc_fields, ComputeCapability};
pub use capture::{Capture, CaptureSource, CapturedKernel};
pub use kernel::{
    one_launch, short_id, BypassPath, ConstantMoves, Evidence, EvidenceBox, Fp16Accounting, Fp16Packing, Kernel,
    LevelCaveat, MoveDetection, PipeUse, NCU_IDS_KEPT,
};
pub use link::{CollectiveOp, Engine, Link};
pub use machine::{
    Ceiling, ClockBasis, FlopKind, GpuFacts, Machine, MemLevel, Origin, Pipe, Provenance, Resource, StreamPattern,
};
pub use names::{cut_middle, cut_middle_keeping, demangle, display_name, display_names, is_bidi_control};
pub use roof::{attainable, ridge_point};
pub use stats::{Spread, StatsError};
pub use units::{
    fixed, format_number, format_percent, format_plain, format_seconds, format_si, parse_number, parse_quantity,
    signed, NumberProblem, ParseQuantityError, Quantity, Unit,
};
pub use warning::{
    bounded, serialize_with_text, AboveRoofPoint, MissingMetric, PartlyTimedKernel, ShortLaunch, Warning,
};
