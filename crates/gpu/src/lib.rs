//! `roofline-gpu`: the live GPU.
//!
//! Everything here reaches the hardware through libraries loaded at run time
//! (the CUDA driver, NVRTC, NVML, cuBLASLt), so the binary builds and starts
//! on machines without CUDA; each library is checked for before the first
//! call into it, and its absence is a typed [`GpuError`] with a hint, never a
//! panic. [`device`] enumerates GPUs and reads their attributes, [`nvml`]
//! samples clocks, [`nvrtc`] compiles kernels for the device's own
//! architecture, and a [`Session`] holds one GPU's context, stream, modules,
//! memory and event timing. On a session, [`bench`](mod@bench) times the benchmark
//! kernels and builds the measured machine, [`examples`] runs the bundled
//! example kernels for the main job, and [`occupancy_check`] compares the
//! occupancy calculator with the driver's own answer. [`nccl`] loads NCCL
//! for the collective benchmarks (NVLink SHARP always off).
//!
//! ```
//! use roofline_gpu::{GpuError, Session};
//!
//! // Without a driver or a GPU this is a typed error whose message says what
//! // to install, never a panic; with one, a session on GPU 0.
//! match Session::open(0) {
//!     Ok(session) => assert!(session.sms() > 0 && session.arch().starts_with("sm_")),
//!     Err(e @ GpuError::NoDriver) => assert!(e.to_string().contains("install the NVIDIA driver")),
//!     Err(e @ GpuError::NoDevice(_)) => assert!(e.to_string().contains("found no GPU")),
//!     Err(e) => panic!("a machine with a driver and a GPU could not open it: {e}"),
//! }
//! ```

#![deny(missing_docs)]

pub mod bench;
pub mod device;
mod error;
pub mod examples;
mod nccl;
pub mod nvml;
mod nvrtc;
pub mod occupancy_check;
mod session;

pub use error::GpuError;
pub use session::Session;

/// Says `SKIPPED: why` on stderr for a GPU test that cannot run on this
/// machine. It writes to the stream directly, past the test harness's output
/// capture, so that CI logs show every skipped GPU test.
pub fn skip_notice(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {why}");
}
