//! A profiler's [`Capture`] placed: every kernel judged against the machine
//! the user gave (keeping, as evidence, how it fares against its own counter
//! roofs) or, without one, against the roofs its own launches imply at
//! their own clocks, as Nsight Compute's roofline chart does; then each
//! kernel's share of the time and the warnings that name kernels.

use roofline_model::{Capture, FlopKind, Fp16Packing, Machine, MemLevel, Warning};

use crate::facts::KernelFacts;
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
    warnings.extend(scope_warnings(kernels.iter().map(|a| a.kernel.name.as_str())));
    let machine = match machine {
        Some(m) => m.clone(),
        None => capture.roofs.clone().unwrap_or_default(),
    };
    // Roofs matter only to a kernel with work to place (a timeline's kernels,
    // kept when the counters failed, have none).
    let work = kernels.iter().any(|a| !a.kernel.flops.is_empty() || !a.kernel.bytes.is_empty());
    if machine.ceilings.is_empty() && work {
        warnings.push(Warning::NoRoofs);
    }
    CaptureAnalysis { machine, kernels, warnings }
}

/// Kernels with the most GPU time first, in every view and format; kernels
/// without a duration (paper estimates) after them, in their own order (the
/// sort is stable); `Kernel::capture_order` keeps the capture's order.
pub fn sort_by_time<K: KernelFacts>(kernels: &mut [K]) {
    let time = |a: &K| a.duration_s().filter(|d| d.is_finite() && *d >= 0.0);
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
/// Whether a kernel's name says it is part of a backward pass (cuDNN's RNN
/// backward kernels end in `_bp1`, `_bp2`: `LSTM_elementWise_bp1`).
fn is_backward(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    ["backward", "dgrad", "wgrad", "bprop", "_bwd", "grad_input", "gammabeta", "elementwise_bp"]
        .iter()
        .any(|p| n.contains(p))
}

/// Captures that cannot be a whole step: an optimizer without a backward.
/// `names`: the kernels' full names.
pub(crate) fn scope_warnings<'a>(names: impl Iterator<Item = &'a str> + Clone) -> Vec<Warning> {
    let roles: Vec<crate::origin::Role> = names.clone().map(|n| crate::origin::origin(n).role).collect();
    let optimizer =
        roles.iter().any(|r| matches!(r, crate::origin::Role::Foreach | crate::origin::Role::FusedOptimizer));
    let backward = names.into_iter().any(is_backward);
    let forward_work = roles
        .iter()
        .any(|r| matches!(r, crate::origin::Role::Gemm | crate::origin::Role::Convolution | crate::origin::Role::Norm));
    if optimizer && forward_work && !backward {
        vec![Warning::CaptureScope {
            reason: "it holds optimizer kernels and forward work but no backward kernel; an NVTX push/pop filter (ncu --nvtx-include) sees only the thread that pushed the range, and autograd launches the backward from its own thread: select by time window (roofline profile --nvtx-include) or cudaProfilerStart/Stop".into(),
        }]
    } else {
        Vec::new()
    }
}

fn kernel_warnings(kernels: &[KernelAnalysis]) -> Vec<Warning> {
    let facts: Vec<WarningFacts> = kernels.iter().map(WarningFacts::of).collect();
    kernel_warnings_of(kernels.iter().map(|a| a.kernel.display_name.as_str()).zip(&facts))
}

/// What the warnings that name kernels read of one placed kernel, kept
/// apart from it so that a streamed capture need not hold its kernels.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct WarningFacts {
    fp16_moves: bool,
    fp16_unknown: bool,
    /// Bit `i`: not measured at `MemLevel::ALL[i]`.
    hidden: u8,
    /// Its points above their roofs: the roof and the %.
    above: Vec<(String, f64)>,
}

impl WarningFacts {
    pub(crate) fn of(a: &KernelAnalysis) -> WarningFacts {
        let mut hidden = 0u8;
        for (i, level) in MemLevel::ALL.into_iter().enumerate() {
            if a.level(level).is_some_and(|p| !p.measured()) {
                hidden |= 1 << i;
            }
        }
        WarningFacts {
            fp16_moves: a.kernel.evidence.fp16.as_ref().is_some_and(|f| f.constant_moves.is_some()),
            fp16_unknown: a.kernel.flops.get(&FlopKind::Fp16).is_some_and(|f| *f > 0.0)
                && a.kernel.evidence.fp16.as_ref().is_some_and(|f| f.packing == Fp16Packing::Unknown),
            hidden,
            above: points_above_roof(std::slice::from_ref(a)).into_iter().map(|p| (p.roof, p.pct)).collect(),
        }
    }
}

/// The warnings that name kernels, from each kernel's display name and
/// facts, in the kernels' order.
pub(crate) fn kernel_warnings_of<'a>(
    kernels: impl Iterator<Item = (&'a str, &'a WarningFacts)> + Clone,
) -> Vec<Warning> {
    let names = |f: &dyn Fn(&WarningFacts) -> bool| -> Vec<String> {
        kernels.clone().filter(|(_, w)| f(w)).map(|(n, _)| n.to_string()).collect()
    };
    let mut out = Vec::new();
    let moves = names(&|w| w.fp16_moves);
    if !moves.is_empty() {
        out.push(Warning::Fp16ConstantMoves { kernels: moves });
    }
    let unknown = names(&|w| w.fp16_unknown);
    if !unknown.is_empty() {
        out.push(Warning::Fp16PackingUnknown { kernels: unknown });
    }
    for (i, level) in MemLevel::ALL.into_iter().enumerate() {
        let hidden = names(&|w| w.hidden & (1 << i) != 0);
        if !hidden.is_empty() {
            out.push(Warning::LevelNotMeasured { level, kernels: hidden });
        }
    }
    let above: Vec<roofline_model::AboveRoofPoint> = kernels
        .flat_map(|(n, w)| {
            w.above.iter().map(move |(roof, pct)| roofline_model::AboveRoofPoint {
                kernel: n.to_string(),
                roof: roof.clone(),
                pct: *pct,
            })
        })
        .collect();
    if !above.is_empty() {
        out.push(Warning::AboveRoof { limit_pct: IMPLAUSIBLE_PCT_OF_ROOF, points: above });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use roofline_model::{Kernel, Origin};

    fn placed(names: &[&str]) -> Vec<KernelAnalysis> {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        names
            .iter()
            .map(|n| {
                let mut k = Kernel::named(n, Origin::Counter);
                k.duration_s = Some(1e-3);
                analyze_kernel(&m, &k)
            })
            .collect()
    }

    #[test]
    fn an_optimizer_without_a_backward_is_named_as_a_partial_step() {
        let adam = "void at::native::multi_tensor_apply_kernel<at::native::TensorListMetadata<4>, X>(T1)";
        let gemm = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT";
        let scope = |ks: &[KernelAnalysis]| scope_warnings(ks.iter().map(|a| a.kernel.name.as_str()));
        assert_eq!(scope(&placed(&[gemm, adam])).len(), 1);
        let bwd = "void at::native::batch_norm_backward_kernel<float>(int)";
        assert!(scope(&placed(&[gemm, bwd, adam])).is_empty());
        assert!(scope(&placed(&[gemm])).is_empty());
        // cuDNN's LSTM backward, as CUPTI records it (mangled).
        let lstm_bwd = "_Z20LSTM_elementWise_bp1IfffEviiPT_S1_S1_S1_S1_S1_S1_PT0_S3_ii18cudnnRNNClipMode_t21cudnnNanPropagation_tff";
        assert!(scope(&placed(&[gemm, lstm_bwd, adam])).is_empty());
    }
}
