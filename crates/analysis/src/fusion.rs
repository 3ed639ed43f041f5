//! Program-level opportunities: kernels that one change would remove or
//! merge, with the time that change would save.
//!
//! The largest savings in framework programs are rarely inside one kernel.
//! A foreach optimizer re-reads every parameter and state tensor once per
//! elementary op; autocast casts weights every step; cuDNN transposes NCHW
//! tensors around each convolution; an activation re-reads a GEMM's whole
//! output; a chain of elementwise kernels writes and re-reads each
//! intermediate. Each group's saving is estimated from the bytes the change
//! would no longer move, at the bandwidth the group's kernels reached:
//!
//! - optimizer chain -> fused optimizer: PyTorch's foreach Adam/AdamW step
//!   makes about 20 passes over parameter-sized data (lerp, mul, addcmul,
//!   weight decay, sqrt, div, add, addcdiv), a fused step 7 (read parameter,
//!   gradient and two moments, write three); a foreach SGD-momentum step
//!   about 11, a fused one 5;
//! - casts, layout transposes, activations a GEMM epilogue absorbs: the
//!   kernels go away, so their whole time;
//! - elementwise chains -> one fused kernel: every intermediate is written
//!   once and read once; fused, neither happens, so the saving is twice the
//!   bytes written by all but the chain's last kernel, as a share of the
//!   chain's bytes.
//!
//! Kernels already fused contribute nothing. The groups' savings are then
//! shared out over their kernels' moves ([`apply`]), so that every view
//! ranks the same seconds.

use serde::{Deserialize, Serialize};

use roofline_model::MemLevel;

use crate::findings::{Advice, Move};
use crate::kernel_analysis::KernelAnalysis;
use crate::origin::{origin, Library, Role};

/// What one change would remove or merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FusionKind {
    /// A foreach optimizer chain -> a fused optimizer.
    OptimizerChain,
    /// dtype casts -> weights kept in the compute dtype.
    Casts,
    /// NCHW <-> NHWC transposes -> channels_last.
    LayoutTransposes,
    /// Activations after GEMMs -> the GEMM's epilogue.
    Epilogue,
    /// Elementwise chains -> one fused kernel (torch.compile).
    ElementwiseChain,
}

impl FusionKind {
    /// The change, in words.
    pub fn label(self) -> &'static str {
        match self {
            FusionKind::OptimizerChain => "use a fused optimizer",
            FusionKind::Casts => "remove dtype casts",
            FusionKind::LayoutTransposes => "use channels_last",
            FusionKind::Epilogue => "fuse activations into GEMM epilogues",
            FusionKind::ElementwiseChain => "fuse elementwise chains (torch.compile)",
        }
    }

    fn advice(self) -> Advice {
        match self {
            FusionKind::OptimizerChain => Advice::FusedOptimizer,
            FusionKind::Casts => Advice::RemoveCasts,
            FusionKind::LayoutTransposes => Advice::ChannelsLast,
            FusionKind::Epilogue => Advice::EpilogueFusion,
            FusionKind::ElementwiseChain => Advice::FuseElementwise,
        }
    }
}

/// One program-level opportunity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fusion {
    /// The change.
    pub kind: FusionKind,
    /// The kernels it concerns (IDs).
    pub kernels: Vec<String>,
    /// Their GPU time, seconds.
    pub seconds: f64,
    /// Seconds the change would save (estimated from bytes).
    pub saved_s: f64,
    /// What the estimate rests on.
    pub rests_on: String,
}

fn bytes(a: &KernelAnalysis) -> f64 {
    a.kernel.bytes.get(&MemLevel::Dram).copied().unwrap_or(0.0)
}

fn writes(a: &KernelAnalysis) -> f64 {
    a.kernel.evidence.dram_write_bytes.unwrap_or(bytes(a) / 3.0)
}

/// The program-level opportunities of an analysis, largest saving first.
pub fn fusions(kernels: &[KernelAnalysis]) -> Vec<Fusion> {
    let timed = |a: &&KernelAnalysis| a.kernel.duration_s.is_some_and(|d| d > 0.0 && d.is_finite());
    // CuPy's generated kernels are mostly the internals of its functions
    // (a sort's copy, a bincount's checks): no fusion the user controls.
    let of_role = |roles: &[Role]| -> Vec<&KernelAnalysis> {
        kernels
            .iter()
            .filter(timed)
            .filter(|a| {
                let o = origin(&a.kernel.name);
                roles.contains(&o.role) && o.library != Library::Cupy
            })
            .collect()
    };
    let secs = |ks: &[&KernelAnalysis]| ks.iter().filter_map(|a| a.kernel.duration_s).sum::<f64>();
    let ids = |ks: &[&KernelAnalysis]| ks.iter().map(|a| a.kernel.id.clone()).collect::<Vec<_>>();
    let mut out = Vec::new();
    let chain = of_role(&[Role::Foreach]);
    if !chain.is_empty() {
        let adam = chain.iter().any(|a| {
            let n = a.kernel.name.to_ascii_lowercase();
            ["lerp", "addcdiv", "addcmul", "sqrt"].iter().any(|f| n.contains(f))
        });
        let (passes, fused) = if adam { (20.0, 7.0) } else { (11.0, 5.0) };
        let t = secs(&chain);
        out.push(Fusion {
            kind: FusionKind::OptimizerChain,
            kernels: ids(&chain),
            seconds: t,
            saved_s: t * (1.0 - fused / passes),
            rests_on: format!(
                "a foreach {} step makes about {passes:.0} passes over parameter-sized data, a fused one {fused:.0}, at the bandwidth these kernels reached",
                if adam { "Adam/AdamW" } else { "SGD" }
            ),
        });
    }
    for (kind, roles, basis) in [
        (FusionKind::Casts, &[Role::Cast][..], "the casts' whole time: the kernels go away"),
        (FusionKind::LayoutTransposes, &[Role::LayoutTranspose][..], "the transposes' whole time: the kernels go away"),
    ] {
        let ks = of_role(roles);
        if !ks.is_empty() {
            let t = secs(&ks);
            out.push(Fusion { kind, kernels: ids(&ks), seconds: t, saved_s: t, rests_on: basis.into() });
        }
    }
    let gemms = kernels.iter().any(|a| matches!(origin(&a.kernel.name).role, Role::Gemm));
    let acts = of_role(&[Role::Activation]);
    if gemms && !acts.is_empty() {
        let t = secs(&acts);
        out.push(Fusion {
            kind: FusionKind::Epilogue,
            kernels: ids(&acts),
            seconds: t,
            saved_s: t,
            rests_on: "the activations' whole time: an epilogue applies them while the GEMM writes its output".into(),
        });
    }
    // Without a GEMM to absorb them, activations are links of the chain.
    let chain_roles: &[Role] =
        if gemms { &[Role::Elementwise, Role::Copy] } else { &[Role::Elementwise, Role::Copy, Role::Activation] };
    let elementwise = of_role(chain_roles);
    if elementwise.len() >= 2 {
        let b: f64 = elementwise.iter().map(|a| bytes(a)).sum();
        let w: Vec<f64> = elementwise.iter().map(|a| writes(a)).collect();
        let last = w.iter().copied().fold(0.0, f64::max);
        let intermediates = (w.iter().sum::<f64>() - last).max(0.0);
        if b > 0.0 {
            let t = secs(&elementwise);
            let share = (2.0 * intermediates / b).min(1.0);
            out.push(Fusion {
                kind: FusionKind::ElementwiseChain,
                kernels: ids(&elementwise),
                seconds: t,
                saved_s: t * share,
                rests_on: format!(
                    "each intermediate written once and read once: {:.0}% of these kernels' DRAM bytes",
                    100.0 * share
                ),
            });
        }
    }
    out.sort_by(|a, b| b.saved_s.total_cmp(&a.saved_s));
    out
}

/// Shares each group's saving over its kernels' moves (in proportion to
/// their time), then ranks every kernel's moves again.
pub fn apply(kernels: &mut [KernelAnalysis], fusions: &[Fusion]) {
    // Each ID's kernels, found once: a search of every fusion's list for
    // every kernel grew with their product (160k kernels).
    let mut by_id: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    for (i, a) in kernels.iter().enumerate() {
        by_id.entry(a.kernel.id.as_str()).or_default().push(i);
    }
    let by_id: std::collections::HashMap<String, Vec<usize>> =
        by_id.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    for f in fusions {
        let frac = if f.seconds > 0.0 { f.saved_s / f.seconds } else { 0.0 };
        let advice = f.kind.advice();
        // The fusion's kernels in capture order, each once.
        let mut members: Vec<usize> =
            f.kernels.iter().filter_map(|id| by_id.get(id.as_str())).flatten().copied().collect();
        members.sort_unstable();
        members.dedup();
        for i in members {
            let a = &mut kernels[i];
            let Some(t) = a.kernel.duration_s else { continue };
            let Some(d) = a.diagnosis.as_mut() else { continue };
            let m =
                Move::saving(advice.clone(), t * frac, format!("{} (program view): {}", f.kind.label(), f.rests_on));
            match d.next_moves.iter_mut().find(|m| m.advice == advice) {
                Some(old) => *old = m,
                None => d.next_moves.push(m),
            }
            // A group move is the kernel's move: the catch-all goes.
            d.next_moves.retain(|m| !matches!(m.advice, Advice::LibraryKernel { .. } | Advice::WaitOnLatency));
            crate::diagnosis::rank_moves(&mut d.next_moves, t, &mut d.evidence);
        }
    }
    // Group moves with no group (a lone elementwise kernel) have no estimate: drop them.
    for a in kernels.iter_mut() {
        if let Some(d) = a.diagnosis.as_mut() {
            let before = d.next_moves.len();
            d.next_moves.retain(|m| {
                m.saving_s.is_some()
                    || !matches!(m.advice, Advice::FusedOptimizer | Advice::FuseElementwise | Advice::EpilogueFusion)
            });
            if d.next_moves.is_empty() && (before > 0 || !d.evidence.is_empty()) {
                let o = origin(&a.kernel.name);
                d.next_moves.push(if o.library.is_vendor() {
                    Advice::LibraryKernel { library: o.library, role: o.role }.into()
                } else {
                    Advice::WaitOnLatency.into()
                });
            }
        }
    }
}
