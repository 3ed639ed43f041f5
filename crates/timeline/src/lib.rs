//! `roofline-timeline`: what ran on the GPU during a program's own run, and
//! for how long, without replaying or serializing anything.
//!
//! The injection library (`crates/inject`) writes CUPTI activity records to
//! one file per process (`roofline_records`, the wire format). This crate reads
//! them back ([`read_dir`]) into a [`Timeline`], sums time per kernel and
//! finds when the GPU sat idle ([`summarize`], [`busy`]), picks parts of the
//! run by NVTX range and groups time by range or name ([`windows`],
//! [`group_by_nvtx`]), finds the steady-state steps after the warm-up ([`find_steps`]),
//! plans the second pass of `profile` ([`Plan`]), and
//! writes the versioned document ([`TimelineDocument`]) and a Chrome trace
//! ([`write_trace`]). [`record`] runs a program with the injection library
//! to make the record files, as an owned child.
//!
//! ```
//! use roofline_timeline::ActivityKind;
//! use roofline_records::{ClockPair, Record};
//! use roofline_timeline::read_sources;
//! use roofline_timeline::summarize;
//!
//! // One process's record file, as the injection library writes it: a
//! // header, the interned kernel name, two launches of it (2 us, then 6 us).
//! let clock = ClockPair { cupti_ns: 1_000_000, unix_ns: 1_700_000_000_000_000_000 };
//! let mut lines = vec![
//!     Record::header(42, 1, "/bin/app".into(), vec!["app".into()], clock),
//!     Record::Name { id: 1, s: "_Z6vecaddPKfS0_Pfi".into() },
//! ];
//! for (corr, start, end) in [(1, 1_001_000, 1_003_000), (2, 1_010_000, 1_016_000)] {
//!     lines.push(Record::Kernel {
//!         name: 1, start, end, dev: 0, ctx: 1, stream: 7, corr, grid: [128, 1, 1], block: [256, 1, 1],
//!         regs: 32, smem_static: 0, smem_dynamic: 0, graph: None, node: None,
//!     });
//! }
//! lines.push(Record::End { reason: "exit".into(), records: lines.len() as u64 });
//! let text: String = lines.iter().map(Record::to_line).collect();
//!
//! let timeline = read_sources(vec![("42.jsonl".to_string(), std::io::Cursor::new(text))], None);
//! let rows = summarize(&timeline, ActivityKind::Kernel, &timeline.activities);
//! assert_eq!(rows.len(), 1);
//! // Names are demangled; the display name is the short one a table shows.
//! assert_eq!(rows[0].name, "vecadd(float const*, float const*, float*, int)");
//! assert_eq!(rows[0].display_name, "vecadd");
//! assert_eq!((rows[0].instances, rows[0].total_ns, rows[0].median_ns), (2, 8_000, 4_000.0));
//! ```

#![deny(missing_docs)]

mod cupti_search;
mod document;
mod model;
mod plan;
mod reader;
mod recorder;
mod select;
mod steady;
mod summary;
mod trace;

pub use cupti_search::{cupti_dirs, first_cupti, CUPTI_NAMES};
pub use document::{
    read_timeline, read_timeline_digest, read_timeline_digest_from, RunInfo, Summary, TimelineDigest, TimelineDocument,
    TIMELINE_SCHEMA,
};
pub use model::{Activity, ActivityKind, ActivityName, Launch, NvtxRange, Process, Span, Timeline};
pub use plan::{
    launch_rows, regex_escape, Plan, PlanOptions, PlannedKernel, DEFAULT_COVERAGE, DEFAULT_LAUNCHES_PER_KERNEL,
};
pub use reader::{open_record_file, read_dir, read_sources, ReadError, UnixSpan};
pub use recorder::{
    find_inject_lib, injection, record, Observer, RecordError, RecordOptions, RecordProgress, Recorded, Target,
    INJECT_LIB,
};
pub use roofline_records::{Record, RECORDS_FORMAT};
pub use select::{
    group_by_name, group_by_nvtx, ncu_nvtx_pattern, range_of, select_instance, windows, within_ranges, Group,
    GroupBasis, OpenRanges, Pattern, RangeWindow,
};
pub use steady::{
    find_steps, is_step_name, skip_before_match, steady_timeline, Step, StepChoice, Steps, MIN_PERIODIC_SHARE,
    MIN_REPEATS,
};
pub use summary::{busy, summarize, Busy, Gap, GpuKey, SummaryRow};
pub use trace::{to_trace_string, write_trace, Annotations};
