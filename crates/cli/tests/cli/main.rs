//! The command-line tool's integration tests, in one test binary: one module
//! per feature, each run through the real `roofline` binary, and
//! `regression` for reported problems, one test per problem, filed by the
//! behaviour it holds. Shared helpers (the binary, the fixtures, the
//! stand-in Nsight Compute) are in `support`.
//!
//! A part runs on its own with a filter:
//! `cargo test -p roofline --test cli -- timeline::` or
//! `-- regression::output_files`. Tests that need a GPU, root or special
//! files print `SKIPPED: ...` where they cannot run.

mod support;

mod bad_input;
mod bench;
mod documents;
mod flags;
mod formats;
mod import;
mod occupancy;
mod output;
mod profile;
mod ranks;
mod regression;
mod report_check_diff;
mod seeds;
mod shapes;
mod streamed;
mod terminal;
mod timeline;
mod tour;
mod verdicts;
mod views;
