//! `roofline-hw`: what each GPU generation is, as data.
//!
//! Device attributes give a GPU's SM count and clocks, not its lanes per
//! SM, its pipes' rates, its occupancy limits or which tensor kinds it has:
//! those are fixed per compute capability ([`arch`]). With them, the same
//! function turns a live GPU's attributes or a datasheet row ([`gpus`])
//! into theoretical roofs ([`theoretical_machine`]), and the wires' facts
//! into link roofs ([`theoretical_links`]).
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![deny(missing_docs)]

mod arch;
mod gpus;
mod links;
mod peaks;

pub use arch::*;
pub use gpus::*;
pub use links::*;
pub use peaks::*;
