//! `roofline-analysis`: judging kernels, with no I/O and no GPU.
//!
//! Data flows one way. A kernel is first placed under the machine's roofs
//! (its [`LevelPoint`] at each memory level: the lowest of
//! `min(pi, I x beta)` over the levels it crossed), then given its
//! instruction roofline when it has instruction counters
//! ([`InstructionAnalysis`]), then diagnosed ([`diagnose`]: an ordered set
//! of rules over what the earlier steps found, with the thresholds of
//! [`ON_ROOF_PCT`] and its neighbours, saying [`Position`], [`Finding`]s and
//! [`Advice`]); NCCL's kernels are placed against the link roofs instead
//! ([`CollectivePlacement`]). [`analyze_kernel`] and [`analyze`] compose
//! those steps into a [`KernelAnalysis`]; [`analyze_capture`] places a
//! profiler's [`roofline_model::Capture`]. Above single kernels: occupancy
//! ([`calculate`]) and where a whole program's time goes ([`ProgramView`]).
//!
//! ```
//! use roofline_analysis::{analyze_kernel, Bound, Limiter};
//! use roofline_model::{FlopKind, Kernel, Machine, MemLevel, Origin};
//!
//! // A GPU of 1000 GFLOP/s FP32 and 100 GB/s DRAM: the ridge is at 10 FLOP/B.
//! let machine = Machine::simple("my GPU", FlopKind::Fp32, 1000e9, 100e9);
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
#![deny(missing_docs)]

mod capture;
mod collective;
mod diagnosis;
mod facts;
mod findings;
mod fusion;
mod instructions;
mod kernel_analysis;
mod levels;
mod limiter;
mod occupancy;
mod origin;
mod placement;
mod program;
mod stream;
mod thresholds;
mod time_class;
mod unit;

pub use capture::{analyze_capture, sort_by_time, CaptureAnalysis};
pub use collective::{Algorithm, CollectivePlacement, NcclKernel, Protocol, Traffic};
pub use diagnosis::diagnose;
pub use facts::KernelFacts;
pub use findings::{Access, Advice, Diagnosis, Finding, LibraryCall, Move, Position, Stall};
pub use fusion::{fusions, Fusion, FusionKind};
pub use instructions::{pipe_roof, InstructionAnalysis, InstructionLevel, PipePoint, PipeRoof};
pub use kernel_analysis::KernelAnalysis;
pub use levels::{mix_roof, Bound, LevelPoint, Limiter, MixPoint, MixRoof};
pub use limiter::{binding, units, Basis, Unit, UnitUse};
pub use occupancy::{
    annotate_evidence, calculate, known_capabilities, limits, limits_for, max_active_blocks, max_potential_block_size,
    sweep, BestBlockSize, BlockLimits, Headroom, Launch, Limits, Occupancy, OccupancyError, Resource, Sweep, SweepAxis,
    SweepPoint, SweepRange,
};
pub use origin::{origin, Library, Origin, Role};
pub use placement::{analyze, analyze_kernel, level_caveats};
pub use program::{
    GroupBy, GroupTime, LaunchTime, Opportunity, ProgramOptions, ProgramView, SteadyState, Verdict, VerdictTime,
};
pub use stream::{CaptureStream, StreamedCapture};
pub use thresholds::{
    BUSY_PIPE_PCT, CONSTANT_MOVES_MAX_SHARE_PCT, FLOP_PIPE_LATENCY_PCT, LATENCY_PCT, LAUNCH_BOUND_S,
    MIN_MOVE_SHARE_PCT, ON_ROOF_PCT, PIPE_BOUND_PCT,
};
pub use time_class::{time_class, time_split, TimeClass};
