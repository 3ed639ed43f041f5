//! The old collect-then-group path, kept as the oracle the streaming
//! aggregation (`crate::fold`) is checked against: every launch of a
//! capture held in a `RawCapture`, grouped per kernel at the end, then each
//! group's launches summed. Test-only; nothing ships from here.

#![allow(dead_code)]

mod aggregate;
mod points;

use roofline_model::{Capture, CaptureSource, CapturedKernel, MissingMetric, PartlyTimedKernel, Warning};

use crate::csv::{Launch, RawCapture};
use crate::{metrics, Options};

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
            floor_s: crate::points::MIN_PLAUSIBLE_DURATION_S,
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
