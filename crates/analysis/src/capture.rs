//! A profiler's [`Capture`] placed: every kernel judged against the machine
//! the user gave (keeping, as evidence, how it fares against its own counter
//! roofs) or, without one, against the roofs its own launches imply at
//! their own clocks, as Nsight Compute's roofline chart does; then each
//! kernel's share of the time and the warnings that name kernels.

use roofline_model::{Capture, FlopKind, Fp16Packing, Machine, MemLevel, Warning};

use crate::kernel_analysis::KernelAnalysis;
use crate::placement::{analyze_kernel, points_above_roof, IMPLAUSIBLE_PCT_OF_ROOF};

/// A capture's kernels under their roofs.
#[derive(Debug, Clone)]
pub struct CaptureAnalysis {
    /// The machine of the document: the given one, or the capture's own
    /// roofs (empty when it has none).
    pub machine: Machine,
    /// One placement per captured kernel, in capture order.
    pub kernels: Vec<KernelAnalysis>,
    /// The capture's warnings, then those about the kernels as placed.
    pub warnings: Vec<Warning>,
}

/// Places every kernel of `capture`, against `machine` when given.
pub fn analyze_capture(capture: &Capture, machine: Option<&Machine>) -> CaptureAnalysis {
    let mut warnings = capture.warnings.clone();
    let total_time: f64 = capture.kernels.iter().filter_map(|c| c.kernel.duration_s).sum();
    let none = Machine::default();
    let mut kernels = Vec::with_capacity(capture.kernels.len());
    for c in &capture.kernels {
        let own = c.roofs.as_ref().or(capture.roofs.as_ref()).unwrap_or(&none);
        let counter = analyze_kernel(own, &c.kernel);
        let mut a = match machine {
            Some(m) => {
                let mut k = c.kernel.clone();
                k.evidence.counter_pct_of_roof = counter.pct_of_roof;
                analyze_kernel(m, &k)
            }
            None => counter,
        };
        if total_time > 0.0 {
            a.time_share = a.kernel.duration_s.filter(|d| *d > 0.0).map(|d| d / total_time);
        }
        a.kernel.capture_order = Some(kernels.len() as u64 + 1);
        kernels.push(a);
    }
    let groups = crate::fusion::fusions(&kernels);
    crate::fusion::apply(&mut kernels, &groups);
    sort_by_time(&mut kernels);
    warnings.extend(kernel_warnings(&kernels));
    let machine = match machine {
        Some(m) => m.clone(),
        None => capture.roofs.clone().unwrap_or_default(),
    };
    if machine.ceilings.is_empty() {
        warnings.push(Warning::NoRoofs);
    }
    CaptureAnalysis { machine, kernels, warnings }
}

/// Kernels with the most GPU time first, in every view and format; kernels
/// without a duration (paper estimates) after them, in their own order (the
/// sort is stable); `Kernel::capture_order` keeps the capture's order.
pub fn sort_by_time(kernels: &mut [KernelAnalysis]) {
    let time = |a: &KernelAnalysis| a.kernel.duration_s.filter(|d| d.is_finite() && *d >= 0.0);
    kernels.sort_by(|x, y| match (time(x), time(y)) {
        (Some(a), Some(b)) => b.total_cmp(&a),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
}

/// Warnings that name kernels: constant moves, FP16 packing, points not
/// measured at a level, points above their roof. Each is said once, with
/// every kernel it concerns.
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
    let above = points_above_roof(kernels);
    if !above.is_empty() {
        out.push(Warning::AboveRoof { limit_pct: IMPLAUSIBLE_PCT_OF_ROOF, points: above });
    }
    out
}
