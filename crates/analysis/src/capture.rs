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
    warnings.extend(scope_warnings(&kernels));
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
/// Whether a kernel's name says it is part of a backward pass (cuDNN's RNN
/// backward kernels end in `_bp1`, `_bp2`: `LSTM_elementWise_bp1`).
fn is_backward(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    ["backward", "dgrad", "wgrad", "bprop", "_bwd", "grad_input", "gammabeta", "elementwise_bp"]
        .iter()
        .any(|p| n.contains(p))
}

/// Captures that cannot be a whole step: an optimizer without a backward.
fn scope_warnings(kernels: &[KernelAnalysis]) -> Vec<Warning> {
    let roles: Vec<crate::origin::Role> = kernels.iter().map(|a| crate::origin::origin(&a.kernel.name).role).collect();
    let optimizer =
        roles.iter().any(|r| matches!(r, crate::origin::Role::Foreach | crate::origin::Role::FusedOptimizer));
    let backward = kernels.iter().any(|a| is_backward(&a.kernel.name));
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
        assert_eq!(scope_warnings(&placed(&[gemm, adam])).len(), 1);
        let bwd = "void at::native::batch_norm_backward_kernel<float>(int)";
        assert!(scope_warnings(&placed(&[gemm, bwd, adam])).is_empty());
        assert!(scope_warnings(&placed(&[gemm])).is_empty());
        // cuDNN's LSTM backward, as CUPTI records it (mangled).
        let lstm_bwd = "_Z20LSTM_elementWise_bp1IfffEviiPT_S1_S1_S1_S1_S1_S1_PT0_S3_ii18cudnnRNNClipMode_t21cudnnNanPropagation_tff";
        assert!(scope_warnings(&placed(&[gemm, lstm_bwd, adam])).is_empty());
    }
}
