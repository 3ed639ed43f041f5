//! The thresholds every verdict is drawn with, in one place, so that a rule
//! and the views that explain it (and the tests that hold them) agree.

/// At or above this % of the applicable roof a kernel is "on" it.
pub const ON_ROOF_PCT: f64 = 75.0;
/// Below this % of its roof, of every bandwidth and of every pipe, a kernel
/// is latency-bound: Nsight Compute's speed-of-light rule ("achieved compute
/// throughput and/or memory bandwidth below 60% of peak typically indicate
/// latency issues").
pub const LATENCY_PCT: f64 = 60.0;
/// A compute-bound kernel held by a FLOP pipe (tensor, FMA, FP16, FP64; its
/// intensity right of the ridge) stays under its compute roof down to this %
/// of it: a GEMM or attention kernel at 40% of its tensor roof is placed
/// by its FLOPs, and only far below that is it waiting on latency.
pub const FLOP_PIPE_LATENCY_PCT: f64 = 30.0;
/// Fewer useful bytes per 32-byte sector than this is called wasteful.
pub const WASTED_SECTOR_BYTES: f64 = 24.0;
/// Wasted sectors (or bank-conflict wavefronts) below this share of the
/// kernel's traffic never earn coalescing (or conflict) advice.
pub const WASTE_SHARE_PCT: f64 = 10.0;
/// A grid under one wave, or a tail wave, is named when it leaves at least
/// this share of the GPU's block slots idle.
pub const IDLE_SLOTS_PCT: f64 = 10.0;
/// A launch shorter than this spends much of its time ramping memory
/// traffic up and down (launch, first bytes in flight, drain).
pub const SHORT_LAUNCH_S: f64 = 10e-6;
/// A pipe this busy (% of its roof) is named as the busy resource.
pub const BUSY_PIPE_PCT: f64 = 50.0;
/// A clock this far (%) below the maximum is named in the verdict.
pub const CLOCK_LOSS_PCT: f64 = 3.0;
/// FP16 from HFMA alone under this share of a kernel's FLOPs, beside other
/// work, is taken for constant moves (HFMA2.MMA).
pub const CONSTANT_MOVES_MAX_SHARE_PCT: f64 = 5.0;
/// A launch shorter than this is launch-bound unless a unit is at its roof:
/// its time is the launch, the ramp-up and the drain.
pub const LAUNCH_BOUND_S: f64 = 5e-6;
/// A non-FLOP pipe (or the issue slots) this busy, and busier than every
/// other unit, binds the kernel.
pub const PIPE_BOUND_PCT: f64 = 60.0;
/// A move that would save less than this share of a kernel's time is
/// evidence, not a move.
pub const MIN_MOVE_SHARE_PCT: f64 = 3.0;
/// A streaming kernel (not a GEMM, convolution or attention) on the memory
/// side of the ridge whose busiest memory level is at least this % of its
/// roof, with a grid of at least one wave, is under the diagonal, not
/// waiting on latency or its launch: its bytes move, below the roof.
pub const MEMORY_SIDE_PCT: f64 = 35.0;
/// A tensor pipe busy under this % is idle: a kernel with no tensor FLOPs
/// and its tensor pipe below it ran on the CUDA cores (ncu shows 0.01% for
/// cuDNN's CUDA-core convolutions).
pub const TENSOR_IDLE_PCT: f64 = 1.0;
/// A library kernel whose launch runs at least this long on a grid that
/// leaves nearly every block slot idle is not a small problem: the library
/// took a serial path for the call (one block reducing a whole array).
pub const SERIAL_LAUNCH_S: f64 = 100e-6;
