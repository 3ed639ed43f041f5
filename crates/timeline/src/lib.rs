//! `roofline-timeline`: what ran on the GPU during a program's own run, and
//! for how long, without replaying or serializing anything.
//!
//! The injection library (`crates/inject`) writes CUPTI activity records to
//! one file per process ([`records`], the wire format). This crate reads
//! them back ([`reader`]) into a [`Timeline`] ([`model`]), sums time per
//! kernel and finds when the GPU sat idle ([`summary`]), picks parts of the
//! run by NVTX range and groups time by range or name ([`select`]), and
//! writes the versioned document ([`document`]) and a Chrome trace
//! ([`trace`]). Pure: it reads files and strings, never a GPU.

pub mod document;
pub mod model;
pub mod reader;
pub mod records;
pub mod select;
pub mod summary;
pub mod trace;

pub use document::{read_timeline, RunInfo, Summary, TimelineDocument, TIMELINE_SCHEMA};
pub use model::{Activity, ActivityKind, ActivityName, Launch, NvtxRange, Process, Span, Timeline};
pub use reader::{read_dir, read_sources, ReadError, UnixSpan};
pub use records::{Record, RECORDS_FORMAT};
