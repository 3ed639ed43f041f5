//! `roofline-ncu`: Nsight Compute in, a [`Capture`] out.
//!
//! [`Run`] runs `ncu` (found by [`find_ncu`]) with exactly the metrics of
//! [`metric_list`] (and [`read_report`] reads a `.ncu-rep` back through
//! `ncu --import`); [`read_capture`] reads what it writes (or any raw CSV a
//! user already has) into a [`RawCapture`]; each launch's counters become
//! FLOPs per kind, bytes per memory level and diagnosis evidence
//! ([`counter_machine`] gives the roofs they imply), and launches are summed
//! per kernel ([`group`]); [`capture`] makes the
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
mod points;
mod report;
mod rows;
mod runner;

use roofline_model::{Capture, CaptureSource, CapturedKernel, MissingMetric, PartlyTimedKernel, Warning};

pub use crate::aggregate::{group, timed_launches, Group};
pub use crate::collectives::{plan as collectives_plan, Mode as CollectivesMode, Plan as CollectivesPlan};
pub use crate::csv::{
    clock_range, ncu_unit, parse_value, read_capture, read_number, CsvError, Launch, NameMap, NumberProblem,
    ProgramExit, RawCapture,
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

/// The [`Capture`] of a raw capture: its kernels (launches summed, or one
/// per launch), the counter roofs of each kernel's own launches and of the
/// whole capture, and the warnings about what was read and what is missing.
pub fn capture(cap: &RawCapture, opts: &Options) -> Capture {
    let groups = aggregate::group(cap, opts.convention, opts.per_launch);
    let all: Vec<&Launch> = cap.launches.iter().collect();
    let overall = points::counter_machine(&all, opts.convention);
    let mut warnings: Vec<Warning> = cap.warnings.iter().map(|m| Warning::Capture { message: m.clone() }).collect();
    for e in &cap.errors {
        warnings.push(Warning::Profiler { message: e.clone() });
    }
    if let Some(exit) = &cap.program_exit {
        warnings.push(Warning::ProgramFailed {
            program: exit.program.clone(),
            status: exit.status,
            signal: exit.signal.clone(),
            stopped_by: exit.stopped_by.clone(),
            launches_analysed: cap.launches.len() as u64,
        });
    }
    let mut missing: Vec<MissingMetric> = Vec::new();
    for m in cap.missing.iter().filter(|m| metrics::reported_when_missing(m.slot)) {
        let entry =
            MissingMetric { metrics: m.metrics.iter().map(|s| s.to_string()).collect(), blocks: m.blocks.to_string() };
        if !missing.contains(&entry) {
            missing.push(entry);
        }
    }
    if !missing.is_empty() {
        warnings.push(Warning::MissingMetrics { missing });
    }
    for (slot, metric) in [
        (metrics::Slot::SmClock, "sm__cycles_elapsed.avg.per_second"),
        (metrics::Slot::DramClock, "dram__cycles_elapsed.avg.per_second"),
        (metrics::Slot::LtsClock, "lts__cycles_elapsed.avg.per_second"),
        (metrics::Slot::L1Clock, "l1tex__cycles_elapsed.avg.per_second"),
    ] {
        let zero = cap.launches.iter().filter(|l| l.get(slot) == Some(0.0)).count();
        if zero > 0 {
            warnings.push(Warning::ClockStopped { metric: metric.into(), launches: zero as u64 });
        }
    }
    let mut partly_timed: Vec<PartlyTimedKernel> = Vec::new();
    let mut untimed_launches = 0u64;
    let mut short = (0u64, Vec::new());
    for g in &groups {
        let launches: Vec<&Launch> = g.launches.iter().map(|&i| &cap.launches[i]).collect();
        for l in &launches {
            if let Some(d) = points::duration_below_floor(l) {
                short.0 += 1;
                if short.1.len() < 3 {
                    short.1.push(roofline_model::ShortLaunch {
                        kernel: g.kernel.display_name.clone(),
                        line: l.line,
                        duration_s: d,
                    });
                }
            }
        }
        let (_, left_out) = aggregate::timed_launches(&launches);
        if !left_out.is_empty() {
            partly_timed.push(PartlyTimedKernel {
                kernel: g.kernel.display_name.clone(),
                left_out: left_out.len() as u64,
                launches: launches.len() as u64,
                lines: left_out.iter().take(3).map(|l| l.line).collect(),
            });
        } else if g.kernel.duration_s.is_none() {
            untimed_launches += launches.len() as u64;
        }
    }
    if short.0 > 0 {
        warnings.push(Warning::DurationBelowFloor {
            metric: "gpu__time_duration.sum".into(),
            floor_s: points::MIN_PLAUSIBLE_DURATION_S,
            launches: short.0,
            examples: short.1,
        });
    }
    if !partly_timed.is_empty() {
        warnings.push(Warning::PartlyTimed { kernels: partly_timed });
    }
    if untimed_launches > 0 {
        warnings.push(Warning::NoDuration { launches: untimed_launches });
    }
    let kernels = groups
        .iter()
        .map(|g| {
            let launches: Vec<&Launch> = g.launches.iter().map(|&i| &cap.launches[i]).collect();
            CapturedKernel {
                kernel: g.kernel.clone(),
                roofs: Some(points::counter_machine(&launches, opts.convention)),
            }
        })
        .collect();
    let mut roofs = overall;
    roofs.notes.push(
        "each kernel is judged against these peaks at its own clocks (its launches' duration-weighted SM, L2, L1 and DRAM clocks); the clocks above are the capture's average".into(),
    );
    Capture {
        source: CaptureSource { kind: "ncu".into(), byte_convention: Some(opts.convention.describe().into()) },
        kernels,
        roofs: Some(roofs),
        warnings,
        launches: cap.launches.len() as u64,
    }
}
