//! `roofline-ncu`: Nsight Compute in, a [`Capture`] out.
//!
//! [`Run`] runs `ncu` (found by [`find_ncu`]) with exactly the metrics of
//! [`metric_list`] (and [`read_report`] reads a `.ncu-rep` back through
//! `ncu --import`); [`read_capture`] reads what it writes (or any raw CSV a
//! user already has) into a [`RawCapture`]; each launch's counters become
//! FLOPs per kind, bytes per memory level and diagnosis evidence
//! ([`counter_machine`] gives the roofs they imply), and launches are summed
//! per kernel as they are read ([`Kernels`], fed by [`read_capture_with`]:
//! memory grows with the kernels, not the launches); [`capture`] makes the
//! [`Capture`] every profiler fills: the kernels, the roofs their own
//! counters imply, and the warnings about what was read. Placing them is
//! `roofline_analysis::analyze_capture`'s job. [`collectives_plan`] says which
//! counters and ncu options NCCL's kernels need (NVLink bytes, one replay
//! pass, ranks in lockstep).
//!
//! ```
//! use roofline_analysis::{analyze_capture, Limiter};
//! use roofline_model::{FlopKind, Machine, MemLevel};
//! use roofline_ncu::{capture, read_capture, Options};
//!
//! // A raw capture cut down to three counters: 100 ms, 1e9 FFMAs (2e9
//! // FLOPs), 1e9 DRAM bytes. Values in scaled units are brought to base SI.
//! let csv = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum\",\"dram__bytes.sum\"\n\
//!            \"\",\"\",\"usecond\",\"inst\",\"Gbyte\"\n\
//!            \"0\",\"saxpy\",\"100000\",\"1,000,000,000\",\"1\"\n";
//! let raw = read_capture(csv.as_bytes(), "example.csv").unwrap();
//! assert_eq!(raw.launches.len(), 1);
//! let captured = capture(&raw, &Options::default());
//! assert_eq!(captured.kernels[0].kernel.total_flops(), 2e9);
//!
//! // Judged against a given machine: 2 FLOP/B is left of its 10 FLOP/B ridge,
//! // so DRAM holds it: 20 GFLOP/s achieved of the 200 GFLOP/s it could attain.
//! let machine = Machine::simple("my GPU", FlopKind::Fp32, 1000e9, 100e9);
//! let analysis = analyze_capture(&captured, Some(&machine));
//! let saxpy = &analysis.kernels[0];
//! assert_eq!(saxpy.limiter, Some(Limiter::Bandwidth(MemLevel::Dram)));
//! assert!((saxpy.pct_of_roof.unwrap() - 10.0).abs() < 1e-9);
//! ```

#![deny(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod aggregate;
mod collectives;
mod csv;
mod metrics;
#[cfg(test)]
mod oracle;
mod points;
mod report;
mod rows;
mod runner;

use roofline_model::Capture;

pub use crate::aggregate::{KernelNames, Kernels};
pub use crate::collectives::{plan as collectives_plan, Mode as CollectivesMode, Plan as CollectivesPlan};
pub use crate::csv::{
    clock_range, ncu_unit, parse_value, read_capture, read_capture_with, read_number, CsvError, Launch, NameMap,
    NumberProblem, ProgramExit, RawCapture,
};
pub use crate::metrics::{metrics_for, reported_when_missing, Slot, SM90_LIST};
pub use crate::points::{
    bytes as launch_bytes, counter_machine, duration as launch_duration, flops as launch_flops, ByteConvention,
};
pub use crate::report::{read_report, ExportedReport, ReportError, REPORT_EXPORT_TIMEOUT};
pub use crate::runner::{
    find_ncu, help_text, metric_list, parse_progress, private_log, query_known, Deadline, Filters, Progress, Run,
    RunnerError,
};

/// How to read a capture's counters.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Which counters count as L2 and L1 bytes: the two conventions give
    /// different intensities, so the document says which one was used.
    pub convention: ByteConvention,
    /// One point per launch instead of per kernel.
    pub per_launch: bool,
}

/// The [`Capture`] of a raw capture whose launches were all kept: its
/// launches summed by [`Kernels`] as a streaming read would have summed them.
pub fn capture(cap: &RawCapture, opts: &Options) -> Capture {
    let mut kernels = Kernels::new(opts);
    for l in &cap.launches {
        kernels.add(l);
    }
    kernels.capture(cap)
}
