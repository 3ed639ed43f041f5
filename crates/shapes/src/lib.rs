//! `roofline-shapes`: a roofline without counters.
//!
//! Most GPUs people rent cannot be read by Nsight Compute (no counter
//! permission), but kernel time needs no permission and a framework knows
//! the shapes of its operations. This crate turns what the PyTorch profiler
//! records with `record_shapes=True` into a [`roofline_model::Capture`]
//! whose FLOPs and bytes are estimated from the operators' input shapes,
//! dtypes and strides ([`roofline_model::Origin::Estimated`]):
//!
//! - [`catalogue`]: one formula per operator family (matrix products,
//!   convolution, attention, normalisation, softmax and losses, elementwise,
//!   reductions, embedding, indexing, cat, optimizer steps, inductor fusions);
//! - [`trace`]: the Chrome-trace reader (plain or gzipped) that links each
//!   GPU kernel to its aten operator through the External id;
//! - [`capture`]: kernels and estimates into a `Capture`, with the
//!   operators the catalogue does not know kept and listed;
//! - [`sol`]: the speed of light of an operator on a machine;
//! - [`compare`]: estimates against a counter capture of the same program.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![deny(missing_docs)]

pub mod catalogue;
pub mod compare;
pub mod sol;
pub mod trace;

mod args;
mod capture;
mod dtype;

pub use args::{Arg, Tensor};
pub use capture::{estimate_capture, ShapesCapture, Unestimated};
pub use catalogue::{estimate, Estimate, OpClass, Part, Unaligned};
pub use dtype::Dtype;
pub use trace::{read_trace, read_trace_file, Trace, TraceError, TraceKernel};
