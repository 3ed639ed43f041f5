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

pub mod aggregate;
pub mod collectives;
pub mod csv;
pub mod demangle;
pub mod metrics;
pub mod points;
pub mod runner;

use roofline_core::machine::Machine;
use roofline_core::roofline::{analyze_kernel, KernelAnalysis};

pub use crate::csv::{read_capture, Capture, CsvError, Launch};
pub use crate::points::ByteConvention;

/// How to analyse a capture.
#[derive(Debug, Clone, Default)]
pub struct Options {
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
    pub kernels: Vec<KernelAnalysis>,
    pub warnings: Vec<String>,
}

/// Places every kernel of a capture under its roofs.
pub fn analyse(cap: &Capture, opts: &Options) -> Analysis {
    let groups = aggregate::group(cap, opts.convention, opts.per_launch);
    let all: Vec<&Launch> = cap.launches.iter().collect();
    let overall = points::counter_machine(&all, opts.convention);
    let mut warnings = cap.warnings.clone();
    for e in &cap.errors {
        warnings.push(format!("ncu: {e}"));
    }
    let mut missing: Vec<String> = Vec::new();
    for m in cap.missing.iter().filter(|m| metrics::reported_when_missing(m.slot)) {
        let line = format!("{} (blocks {})", m.metrics.join(" or "), m.blocks);
        if !missing.contains(&line) {
            missing.push(line);
        }
    }
    if !missing.is_empty() {
        warnings.push(format!("missing metrics, the rest is analysed: {}", missing.join("; ")));
    }
    let total_time: f64 = groups.iter().filter_map(|g| g.kernel.duration_s).sum();
    let zero = cap.launches.iter().filter(|l| points::duration(l).is_none()).count();
    if zero > 0 {
        warnings.push(format!(
            "{zero} launch(es) have no positive gpu__time_duration.sum: no rates for them (FLOPs and bytes still count)"
        ));
    }
    let mut kernels = Vec::with_capacity(groups.len());
    let mut hfma_only: Vec<String> = Vec::new();
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
        if let Some(w) = hfma_moves(&launches, &a) {
            hfma_only.push(w);
        }
        kernels.push(a);
    }
    if !hfma_only.is_empty() {
        warnings.push(format!(
            "FP16 from HFMA instructions alone in {}: compilers use HFMA2.MMA to move constants into registers, so this is likely not FP16 work (counted as ncu counts it)",
            hfma_only.join(", ")
        ));
    }
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
        warnings.push(
            "no roofs: the capture has no *.peak_sustained counters and no machine was given; give --machine FILE (from `roofline bench -o`) or --gpu NAME".into(),
        );
    }
    Analysis { machine, kernels, warnings }
}

/// Compilers move constants into registers with `HFMA2.MMA`, which ncu
/// counts as half-precision FMAs: a few FP16 FLOPs from HFMA alone, in a
/// kernel that does mostly other work, are likely not FP16 work. Returns
/// "kernel (N FLOP)" for such a kernel.
fn hfma_moves(launches: &[&Launch], a: &KernelAnalysis) -> Option<String> {
    use metrics::Slot;
    let sum = |s: Slot| launches.iter().filter_map(|l| l.get(s)).sum::<f64>();
    let fp16 = a.kernel.flops.get(&roofline_core::FlopKind::Fp16).copied().unwrap_or(0.0);
    let total = a.kernel.total_flops();
    (fp16 > 0.0 && sum(Slot::Hadd) == 0.0 && sum(Slot::Hmul) == 0.0 && fp16 < 0.05 * total).then(|| {
        format!(
            "{} ({})",
            a.kernel.display_name,
            roofline_core::units::format_si(fp16, roofline_core::units::Unit::Flop)
        )
    })
}
