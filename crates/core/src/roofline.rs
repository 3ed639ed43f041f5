//! The roofline itself: attainable performance, ridge points, which roof
//! applies to a kernel and how close the kernel came to it.
//!
//! Williams, Waterman and Patterson's model: a kernel of arithmetic
//! intensity I (FLOP per byte) on a machine with peak pi (FLOP/s) and
//! bandwidth beta (bytes/s) can reach at most `min(pi, I x beta)`. The
//! hierarchical form applies the same rule once per memory level, each with
//! the bytes that crossed that level, and the lowest of those roofs is the
//! one that applies ("4% of which roof?" has one answer).
//!
//! Kernels that mix kinds of FLOPs (FP32 and tensor, say) get one effective
//! compute peak: the time the mix would take with every unit at its own peak,
//! `F / sum(F_k / pi_k)`, so a kernel is never judged against a roof it cannot
//! use.

use serde::{Deserialize, Serialize};

use crate::collective::CollectivePlacement;
use crate::diagnosis::{diagnose, Diagnosis};
use crate::kernel::Kernel;
use crate::machine::{FlopKind, Machine, MemLevel};

/// `pi / beta`: the intensity (FLOP/byte) where the two roofs meet.
pub fn ridge_point(peak_flops_per_s: f64, bytes_per_s: f64) -> f64 {
    peak_flops_per_s / bytes_per_s
}

/// `min(pi, I x beta)`.
pub fn attainable(peak_flops_per_s: f64, bytes_per_s: f64, intensity: f64) -> f64 {
    peak_flops_per_s.min(intensity * bytes_per_s)
}

/// Which side of the ridge a kernel sits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    Memory,
    Compute,
}

impl Bound {
    /// Memory-bound below the ridge, compute-bound at or above it (a kernel
    /// exactly at the ridge is held by both roofs; we call it compute-bound,
    /// as seed 001's `I < ridge` test does).
    pub fn classify(intensity: f64, ridge: f64) -> Bound {
        if intensity < ridge {
            Bound::Memory
        } else {
            Bound::Compute
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Bound::Memory => "memory",
            Bound::Compute => "compute",
        }
    }
}

/// What holds a kernel back: a memory level's bandwidth or the compute peak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type", content = "which")]
pub enum Limiter {
    Bandwidth(MemLevel),
    Compute,
}

/// A kernel's point at one memory level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelPoint {
    pub level: MemLevel,
    pub bytes: f64,
    /// FLOP per byte at this level (`None` when no FLOPs or no bytes).
    pub intensity: Option<f64>,
    /// The bandwidth ceiling used, bytes/s (`None` when the machine has none).
    pub bandwidth: Option<f64>,
    /// `min(pi, I x beta)` at this level, FLOP/s.
    pub attainable_flops_per_s: Option<f64>,
    /// Bytes per second the kernel moved at this level.
    pub achieved_bytes_per_s: Option<f64>,
    /// Achieved bytes/s as % of this level's bandwidth ceiling.
    pub pct_of_bandwidth: Option<f64>,
}

/// The roofline placement of one kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelAnalysis {
    pub kernel: Kernel,
    /// Fraction of the summed duration of all analysed kernels (0..1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_share: Option<f64>,
    pub total_flops: f64,
    /// Effective compute peak for this kernel's mix of FLOP kinds.
    pub compute_roof_flops_per_s: Option<f64>,
    /// The name of the compute roof ("FP32", or "mix of FP32 + BF16 tensor").
    pub compute_roof_name: Option<String>,
    pub levels: Vec<LevelPoint>,
    /// The lowest roof over all levels: what this kernel can attain.
    pub attainable_flops_per_s: Option<f64>,
    pub limiter: Option<Limiter>,
    pub bound: Option<Bound>,
    /// FLOP/s the kernel reached (needs a duration).
    pub achieved_flops_per_s: Option<f64>,
    /// How close to the roof that applies, in percent. For kernels with no
    /// FLOPs, the best % of bandwidth over the levels.
    pub pct_of_roof: Option<f64>,
    /// FLOP kinds the kernel did that the machine has no ceiling for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_ceilings: Vec<FlopKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnosis: Option<Diagnosis>,
    /// For NCCL kernels: their traffic against the interconnect roof
    /// (`crate::collective`); their % of roof is that one, not a memory
    /// level's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collective: Option<CollectivePlacement>,
}

impl KernelAnalysis {
    /// The intensity at the level that limits the kernel, or at DRAM.
    pub fn headline_intensity(&self) -> Option<f64> {
        let level = match self.limiter {
            Some(Limiter::Bandwidth(l)) => l,
            _ => MemLevel::Dram,
        };
        self.levels.iter().find(|p| p.level == level).and_then(|p| p.intensity)
    }

    pub fn level(&self, level: MemLevel) -> Option<&LevelPoint> {
        self.levels.iter().find(|p| p.level == level)
    }
}

/// Effective compute peak for a FLOP mix, and kinds with no ceiling.
fn effective_peak(machine: &Machine, kernel: &Kernel) -> (Option<(f64, String)>, Vec<FlopKind>) {
    let mut time = 0.0;
    let mut covered = 0.0;
    let mut names = Vec::new();
    let mut missing = Vec::new();
    for (&kind, &f) in &kernel.flops {
        if f <= 0.0 {
            continue;
        }
        match machine.compute_roof(kind) {
            Some(c) if c.rate > 0.0 => {
                time += f / c.rate;
                covered += f;
                names.push(c.name.clone());
            }
            _ => missing.push(kind),
        }
    }
    if covered > 0.0 && time > 0.0 {
        let name = if names.len() == 1 { names.remove(0) } else { format!("mix of {}", names.join(" + ")) };
        (Some((covered / time, name)), missing)
    } else {
        (None, missing)
    }
}

/// Places one kernel under the machine's roofs. `time_share` is filled by
/// [`analyze`], which knows all kernels.
pub fn analyze_kernel(machine: &Machine, kernel: &Kernel) -> KernelAnalysis {
    let total_flops = kernel.total_flops();
    let (peak, missing_ceilings) = effective_peak(machine, kernel);
    let duration = kernel.duration_s.filter(|d| *d > 0.0 && d.is_finite());
    let achieved = duration.map(|d| total_flops / d);

    let mut levels = Vec::new();
    let mut best: Option<(f64, Limiter)> = peak.as_ref().map(|(p, _)| (*p, Limiter::Compute));
    for level in MemLevel::ALL {
        let Some(&bytes) = kernel.bytes.get(&level) else { continue };
        let beta = machine.bandwidth_roof(level).map(|b| b.rate);
        let intensity = (bytes > 0.0 && total_flops > 0.0).then(|| total_flops / bytes);
        let attainable_here = match (peak.as_ref(), beta, intensity) {
            (Some((pi, _)), Some(beta), Some(i)) => Some(attainable(*pi, beta, i)),
            _ => None,
        };
        if let Some(a) = attainable_here {
            if best.is_none_or(|(b, _)| a < b) {
                best = Some((a, Limiter::Bandwidth(level)));
            }
        }
        let achieved_bw = duration.map(|d| bytes / d);
        let pct_bw = match (achieved_bw, beta) {
            (Some(a), Some(b)) if b > 0.0 => Some(100.0 * a / b),
            _ => None,
        };
        levels.push(LevelPoint {
            level,
            bytes,
            intensity,
            bandwidth: beta,
            attainable_flops_per_s: attainable_here,
            achieved_bytes_per_s: achieved_bw,
            pct_of_bandwidth: pct_bw,
        });
    }

    // A kernel with FLOPs but whose only limits are bandwidths it never
    // crossed keeps the compute roof; a kernel with no FLOPs is judged by
    // bandwidth alone.
    let (attainable_flops, limiter) = match best {
        Some((a, l)) if total_flops > 0.0 => (Some(a), Some(l)),
        _ => {
            let lim = levels
                .iter()
                .filter(|p| p.bytes > 0.0 && p.bandwidth.is_some())
                .max_by(|a, b| {
                    let ta = a.bytes / a.bandwidth.unwrap();
                    let tb = b.bytes / b.bandwidth.unwrap();
                    ta.total_cmp(&tb)
                })
                .map(|p| Limiter::Bandwidth(p.level));
            (None, lim)
        }
    };
    let bound = limiter.map(|l| match l {
        Limiter::Compute => Bound::Compute,
        Limiter::Bandwidth(_) => Bound::Memory,
    });
    let pct_of_roof = if total_flops > 0.0 {
        match (achieved, attainable_flops) {
            (Some(a), Some(r)) if r > 0.0 => Some(100.0 * a / r),
            _ => None,
        }
    } else {
        levels.iter().filter_map(|p| p.pct_of_bandwidth).max_by(f64::total_cmp)
    };

    let mut analysis = KernelAnalysis {
        kernel: kernel.clone(),
        time_share: None,
        total_flops,
        compute_roof_flops_per_s: peak.as_ref().map(|p| p.0),
        compute_roof_name: peak.map(|p| p.1),
        levels,
        attainable_flops_per_s: attainable_flops,
        limiter,
        bound,
        achieved_flops_per_s: achieved,
        pct_of_roof,
        missing_ceilings,
        diagnosis: None,
        collective: crate::collective::place(machine, kernel),
    };
    match &analysis.collective {
        // A collective is judged against its link, not a memory level.
        Some(c) => {
            analysis.pct_of_roof = c.pct_of_roof;
            analysis.bound = None;
            analysis.limiter = None;
        }
        None => analysis.diagnosis = diagnose(machine, &analysis),
    }
    analysis
}

/// Places every kernel and fills in each one's share of the total time.
pub fn analyze(machine: &Machine, kernels: &[Kernel]) -> Vec<KernelAnalysis> {
    let total: f64 = kernels.iter().filter_map(|k| k.duration_s).filter(|d| d.is_finite() && *d > 0.0).sum();
    kernels
        .iter()
        .map(|k| {
            let mut a = analyze_kernel(machine, k);
            if total > 0.0 {
                a.time_share = k.duration_s.filter(|d| d.is_finite() && *d > 0.0).map(|d| d / total);
            }
            a
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::Origin;

    fn kernel(flops: f64, bytes: f64, dur: Option<f64>) -> Kernel {
        let mut k = Kernel::named("k", Origin::User);
        k.flops.insert(FlopKind::Fp32, flops);
        k.bytes.insert(MemLevel::Dram, bytes);
        k.duration_s = dur;
        k
    }

    #[test]
    fn saxpy_on_seed_001_machine() {
        let m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        let a = analyze_kernel(&m, &kernel(2.0, 12.0, None));
        assert_eq!(a.bound, Some(Bound::Memory));
        let att = a.attainable_flops_per_s.unwrap();
        assert!((att - 100e9 * 2.0 / 12.0).abs() < 1.0);
    }

    #[test]
    fn zero_flop_kernel_is_judged_by_bandwidth() {
        let m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        let a = analyze_kernel(&m, &kernel(0.0, 100e9, Some(2.0)));
        assert_eq!(a.pct_of_roof, Some(50.0));
        assert_eq!(a.limiter, Some(Limiter::Bandwidth(MemLevel::Dram)));
    }

    #[test]
    fn zero_duration_gives_no_rate_and_no_nan() {
        let m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        let a = analyze_kernel(&m, &kernel(10.0, 0.0, Some(0.0)));
        assert_eq!(a.achieved_flops_per_s, None);
        assert_eq!(a.pct_of_roof, None);
        let json = serde_json::to_string(&a).unwrap();
        assert!(!json.contains("NaN") && !json.contains("inf"));
    }
}
