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

pub use arch::{
    arch, arch_for_major, arch_or_older, archs, known_capabilities, parse_capability, pipe_rate, Arch, ArchRates,
    Features, InstOp, NcuConventions, OccupancyFacts, PipeFacts, PipeRate, Rate,
};
pub use gpus::{closest, find, find_by_device_name, known_keys, KnownGpu, KNOWN_GPUS};
pub use links::{nvlink_bytes_per_s, nvlink_generation_from_nvml, theoretical_links, GpuLinks, NvLinks, Pcie};
pub use peaks::{theoretical_machine, DeviceAttributes, PeaksError};
