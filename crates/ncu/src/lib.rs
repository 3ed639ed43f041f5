//! `roofline-ncu`: Nsight Compute in, roofline points out.
//!
//! [`runner`] finds and runs `ncu` with exactly the metrics of [`metrics`];
//! [`csv`] reads what it writes (or any raw CSV a user already has);
//! [`points`] turns each launch's counters into FLOPs per kind, bytes per
//! memory level and diagnosis evidence; [`aggregate`] sums launches per
//! kernel; [`analyse`] places every kernel under its roofs with
//! `roofline_core::roofline`, against the counters' own peaks and, when
//! given, a measured machine. [`collectives`] says which counters and
//! ncu options NCCL's kernels need (NVLink bytes, one replay pass, ranks
//! in lockstep).
//!
//! ```
//! use roofline_core::machine::{FlopKind, Machine};
//! use roofline_core::Limiter;
//! use roofline_ncu::{analyse, read_capture, Options};
//!
//! // A raw capture cut down to three counters: 100 ms, 1e9 FFMAs (2e9
//! // FLOPs), 1e9 DRAM bytes. Values in scaled units are brought to base SI.
//! let csv = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum\",\"dram__bytes.sum\"\n\
//!            \"\",\"\",\"usecond\",\"inst\",\"Gbyte\"\n\
//!            \"0\",\"saxpy\",\"100000\",\"1,000,000,000\",\"1\"\n";
//! let capture = read_capture(csv.as_bytes(), "example.csv").unwrap();
//! assert_eq!(capture.launches.len(), 1);
//!
//! // Judged against a given machine: 2 FLOP/B is left of its 10 FLOP/B ridge,
//! // so DRAM holds it: 20 GFLOP/s achieved of the 200 GFLOP/s it could attain.
//! let machine = Machine::simple("my GPU", FlopKind::Fp32, 1000e9, 100e9);
//! let analysis = analyse(&capture, &Options { machine: Some(machine), ..Options::default() });
//! let saxpy = &analysis.kernels[0];
//! assert_eq!(saxpy.total_flops, 2e9);
//! assert_eq!(saxpy.limiter, Some(Limiter::Bandwidth(roofline_core::MemLevel::Dram)));
//! assert!((saxpy.pct_of_roof.unwrap() - 10.0).abs() < 1e-9);
//! ```

#![warn(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod aggregate;
pub mod collectives;
pub mod csv;
pub mod demangle;
pub mod metrics;
pub mod points;
pub mod runner;

use roofline_core::kernel::Fp16Packing;
use roofline_core::machine::{FlopKind, Machine, MemLevel};
use roofline_core::roofline::{analyze_kernel, KernelAnalysis};
use roofline_core::warning::{MissingMetric, PartlyTimedKernel, Warning};

pub use crate::csv::{read_capture, Capture, CsvError, Launch, ProgramExit};
pub use crate::points::ByteConvention;

/// How to analyse a capture.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Which counters count as L2 and L1 bytes: the two conventions give
    /// different intensities, so the document says which one was used.
    pub convention: ByteConvention,
    /// One point per launch instead of per kernel.
    pub per_launch: bool,
    /// A machine to judge kernels against (measured roofs from `bench`);
    /// without one, each kernel is judged against the counters' own peaks
    /// at its own clocks, as Nsight Compute's roofline chart does.
    pub machine: Option<Machine>,
}

/// The result of analysing a capture.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The machine of the document: the given one, or the counter peaks
    /// over all launches.
    pub machine: Machine,
    /// One placement per kernel (or per launch with `per_launch`), in
    /// capture order.
    pub kernels: Vec<KernelAnalysis>,
    /// What the reader skipped, what is missing and which kernels need a
    /// caveat: typed, so that they are rendered once and tested by code.
    pub warnings: Vec<Warning>,
}

/// Places every kernel of a capture under its roofs.
pub fn analyse(cap: &Capture, opts: &Options) -> Analysis {
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
    let total_time: f64 = groups.iter().filter_map(|g| g.kernel.duration_s).sum();
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
                    short.1.push(roofline_core::warning::ShortLaunch {
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
    let mut kernels = Vec::with_capacity(groups.len());
    for g in &groups {
        let launches: Vec<&Launch> = g.launches.iter().map(|&i| &cap.launches[i]).collect();
        let own = points::counter_machine(&launches, opts.convention);
        let counter = analyze_kernel(&own, &g.kernel);
        let mut a = match &opts.machine {
            Some(m) => {
                let mut k = g.kernel.clone();
                k.evidence.counter_pct_of_roof = counter.pct_of_roof;
                analyze_kernel(m, &k)
            }
            None => counter,
        };
        if total_time > 0.0 {
            a.time_share = a.kernel.duration_s.filter(|d| *d > 0.0).map(|d| d / total_time);
        }
        kernels.push(a);
    }
    warnings.extend(kernel_warnings(&kernels));
    let machine = match &opts.machine {
        Some(m) => m.clone(),
        None => {
            let mut m = overall;
            m.notes.push(
                "each kernel is judged against these peaks at its own clocks (its launches' duration-weighted SM, L2, L1 and DRAM clocks); the clocks above are the capture's average".into(),
            );
            m
        }
    };
    if machine.ceilings.is_empty() {
        warnings.push(Warning::NoRoofs);
    }
    Analysis { machine, kernels, warnings }
}

/// Warnings that name kernels: constant moves, FP16 packing, points not
/// measured at a level. Each is said once, with every kernel it concerns.
fn kernel_warnings(kernels: &[KernelAnalysis]) -> Vec<Warning> {
    let names = |f: &dyn Fn(&KernelAnalysis) -> bool| -> Vec<String> {
        kernels.iter().filter(|a| f(a)).map(|a| a.kernel.display_name.clone()).collect()
    };
    let mut out = Vec::new();
    let moves = names(&|a| a.kernel.evidence.fp16.as_ref().is_some_and(|f| f.constant_moves.is_some()));
    if !moves.is_empty() {
        out.push(Warning::Fp16ConstantMoves { kernels: moves });
    }
    let unknown = names(&|a| {
        a.kernel.flops.get(&FlopKind::Fp16).is_some_and(|f| *f > 0.0)
            && a.kernel.evidence.fp16.as_ref().is_some_and(|f| f.packing == Fp16Packing::Unknown)
    });
    if !unknown.is_empty() {
        out.push(Warning::Fp16PackingUnknown { kernels: unknown });
    }
    for level in MemLevel::ALL {
        let hidden = names(&|a| a.level(level).is_some_and(|p| !p.measured()));
        if !hidden.is_empty() {
            out.push(Warning::LevelNotMeasured { level, kernels: hidden });
        }
    }
    let above = roofline_core::roofline::points_above_roof(kernels);
    if !above.is_empty() {
        out.push(Warning::AboveRoof { limit_pct: roofline_core::roofline::IMPLAUSIBLE_PCT_OF_ROOF, points: above });
    }
    out
}
