//! `roofline-documents`: the versioned JSON documents one command writes
//! and the next reads, and the commands' logic that reads them.
//!
//! Every document names its kind and version in `schema` and is checked on
//! the way in and out (every number finite and in range): a machine
//! (`roofline.machine/v2`), an analysis (`roofline.analysis/v2`, read whole
//! or, for `check` and `diff`, for its placements only; or kernel by kernel
//! from a stream, [`stream_analysis`], in the memory of what the reader
//! keeps) and a job of merged ranks (`roofline.merged/v1`). Older versions are upgraded when read. The
//! operations on documents live here too: the merge of ranks ([`Merger`]),
//! the CI gate ([`check`]), before and after ([`diff`]), and the paper
//! estimates a `model` command reads from TOML ([`parse_kernels_file`]).
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![deny(missing_docs)]

mod bench;
mod check;
mod consistency;
mod diff;
mod estimate;
mod grouped;
mod merge;
mod placements;
mod ranks;
mod scan;
mod schema;
mod stream;
pub mod synthetic;

pub use bench::{
    rate_unit, AccessPattern, AtomicSpace, BenchRecords, BenchResult, ClockSummary, Curve, CurvePoint, Failure, IntOp,
    LaunchShape, LinkBench, MufuOp, Ridge, SmemOp, Sweep, SweepPoint, What,
};
pub use check::{
    check, nothing_to_judge, pct, roofs_differ, CheckConfigError, CheckReport, KernelLimit, Outcome, Rules,
};
pub use diff::{diff, Diff, DiffError, DiffRow, Pairing, RowKind, Side, SAME_WITHIN_PCT};
pub use estimate::{parse_kernel_spec, parse_kernels_file, EstimateError, KernelsFile, MachineSpec};
pub use grouped::grouped;
pub use merge::{
    parse_in_order, parse_threads, read_merged, read_rank, skim_rank_bytes, MergeError, MergedDocument, MergedKernel,
    Merger, ParsedRank, RankSummary, TimeSplit, MERGED_SCHEMA,
};
pub use placements::read_analysis_placements;
pub use ranks::{expand_rank, BadRank, RankInfo};
pub use schema::{
    check_analysis, check_machine, read_analysis, read_machine, schema_at_head, schema_of, AnalysisCheck,
    AnalysisDocument, AnalysisSource, DocumentError, MachineDocument, Producer, ANALYSIS_SCHEMA, MACHINE_SCHEMA,
};
pub use stream::{reread_kernels, stream_analysis, stream_analysis_as_written, stream_placements, StreamedAnalysis};
