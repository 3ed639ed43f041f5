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
//!
//! Three refinements keep the verdicts honest on programs nobody here wrote:
//! - a DRAM roof for the kernel's own read:write mix, interpolated between
//!   the streaming benchmarks of a measured machine ([`mix_roof`]): copy and
//!   triad do not reach the read-only rate, so neither should a kernel be
//!   expected to;
//! - levels whose traffic the counters cannot see (see
//!   [`roofline_model::LevelCaveat`]) are kept out of the limiter;
//! - the instruction roofline (Ding and Williams): warp instructions per
//!   second against instructions per 32-byte transaction, under the roofs of
//!   the SM's pipes ([`InstructionAnalysis`]), for kernels whose time FLOPs
//!   and bytes do not explain.

use std::collections::BTreeMap;

use roofline_model::{attainable, FlopKind, Kernel, LevelCaveat, Machine, MemLevel};

use crate::collective::place as place_collective;
use crate::diagnosis::diagnose;
use crate::instructions::instruction_analysis;
use crate::kernel_analysis::KernelAnalysis;
use crate::levels::{mix_roof, Bound, LevelPoint, Limiter};

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
        let caveat = kernel.unmeasured.get(&level).cloned();
        if let Some(a) = attainable_here.filter(|_| caveat.is_none()) {
            if best.is_none_or(|(b, _)| a < b) {
                best = Some((a, Limiter::Bandwidth(level)));
            }
        }
        let achieved_bw = duration.map(|d| bytes / d);
        let pct_bw = match (achieved_bw, beta) {
            (Some(a), Some(b)) if b > 0.0 => Some(100.0 * a / b),
            _ => None,
        };
        let mix = (level == MemLevel::Dram)
            .then(|| kernel.evidence.dram_read_share())
            .flatten()
            .and_then(|share| mix_roof(machine, share))
            .map(|mut m| {
                m.pct = achieved_bw.filter(|_| m.bytes_per_s > 0.0).map(|a| 100.0 * a / m.bytes_per_s);
                m
            });
        levels.push(LevelPoint {
            level,
            bytes,
            intensity,
            bandwidth: beta,
            attainable_flops_per_s: attainable_here,
            achieved_bytes_per_s: achieved_bw,
            pct_of_bandwidth: pct_bw,
            mix,
            caveat,
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
                .filter(|p| p.bytes > 0.0 && p.bandwidth.is_some() && p.measured())
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
        levels.iter().filter(|p| p.measured()).filter_map(|p| p.pct_of_bandwidth).max_by(f64::total_cmp)
    };
    let pct_of_mix_roof = match limiter {
        Some(Limiter::Bandwidth(MemLevel::Dram)) => {
            levels.iter().find(|p| p.level == MemLevel::Dram).and_then(|p| p.mix.as_ref()).and_then(|m| m.pct)
        }
        _ => None,
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
        pct_of_mix_roof,
        missing_ceilings,
        instructions: None,
        diagnosis: None,
        collective: place_collective(machine, kernel).map(Box::new),
    };
    match &analysis.collective {
        // A collective is judged against its link, not a memory level.
        Some(c) => {
            analysis.pct_of_roof = c.pct_of_roof;
            analysis.pct_of_mix_roof = None;
            analysis.bound = None;
            analysis.limiter = None;
        }
        None => {
            analysis.instructions = instruction_analysis(
                machine,
                &analysis.kernel,
                &analysis.levels,
                analysis.judged_pct(),
                analysis.total_flops,
            );
            analysis.diagnosis = diagnose(machine, &analysis);
        }
    }
    analysis
}

/// A point above its roof by more than this (% of the roof) cannot be a
/// measurement: it gets [`roofline_model::Warning::AboveRoof`]. Not 100%:
/// real H200 captures reach about 106% of a counter roof, because the roof
/// is taken at the launch's average clock while the clock moves during the
/// launch (and a merged job judges every rank at one machine's clocks). 150%
/// leaves that margin several times over, while the errors it is for (a
/// duration in the wrong unit, an edited capture, a byte counter in sectors)
/// are off by a factor of 2 or more.
pub const IMPLAUSIBLE_PCT_OF_ROOF: f64 = 150.0;

/// One point above [`IMPLAUSIBLE_PCT_OF_ROOF`]: the kernel, the roof and the %.
pub fn points_above_roof(kernels: &[KernelAnalysis]) -> Vec<roofline_model::AboveRoofPoint> {
    let mut out = Vec::new();
    for a in kernels {
        let mut push = |roof: String, pct: f64| {
            if pct > IMPLAUSIBLE_PCT_OF_ROOF && pct.is_finite() {
                out.push(roofline_model::AboveRoofPoint { kernel: a.kernel.display_name.clone(), roof, pct });
            }
        };
        if let (Some(achieved), Some(roof)) = (a.achieved_flops_per_s, a.compute_roof_flops_per_s) {
            if roof > 0.0 {
                let name = a.compute_roof_name.clone().unwrap_or_else(|| "compute".into());
                push(format!("{name} compute"), 100.0 * achieved / roof);
            }
        }
        for p in a.levels.iter().filter(|p| p.measured()) {
            if let Some(pct) = p.pct_of_bandwidth {
                push(format!("{} bandwidth", p.level.label()), pct);
            }
        }
    }
    out
}

/// A level whose counter misses at least this share of its traffic is "not
/// measured at this level".
pub const UNCOUNTED_SHARE_PCT: f64 = 10.0;

/// The levels of a kernel whose byte counts do not measure the level's
/// traffic, from the evidence of the counters:
///
/// - L2, when the bytes follow Nsight Compute's chart convention
///   (`l2_counts_writes` false: L2-to-SM only) and the SMs' writes are at
///   least [`UNCOUNTED_SHARE_PCT`] of the L2 sectors they moved; or, without
///   per-direction counters, when L2 counted less than DRAM by that share
///   (every DRAM byte crosses L2);
/// - L1, when it counted less than L2 by that share: through TMA, cp.async
///   or wgmma when the counters show them, else for a reason they cannot
///   name.
pub fn level_caveats(
    bytes: &BTreeMap<MemLevel, f64>,
    ev: &roofline_model::Evidence,
    l2_counts_writes: bool,
) -> BTreeMap<MemLevel, LevelCaveat> {
    use roofline_model::BypassPath;
    let mut out = BTreeMap::new();
    let short = |here: f64, beyond: f64| beyond > 0.0 && here < (1.0 - UNCOUNTED_SHARE_PCT / 100.0) * beyond;
    let (dram, l2, l1) = (bytes.get(&MemLevel::Dram), bytes.get(&MemLevel::L2), bytes.get(&MemLevel::L1));
    if let Some(&l2b) = l2 {
        let write_share = match (ev.l2_read_sectors, ev.l2_write_sectors) {
            (Some(r), Some(w)) if r + w > 0.0 => Some(100.0 * w / (r + w)),
            _ => None,
        };
        match (write_share, dram) {
            (Some(w), _) if !l2_counts_writes && w >= UNCOUNTED_SHARE_PCT => {
                out.insert(MemLevel::L2, LevelCaveat::L2WritesNotCounted { write_share_pct: w });
            }
            // With the directions counted, fewer L2 than DRAM bytes is DRAM
            // fetching more than the SMs asked for (random access), not a
            // miscount.
            (Some(_), _) => {}
            (None, Some(&d)) if short(l2b, d) => {
                out.insert(
                    MemLevel::L2,
                    LevelCaveat::BelowLevelBeyond { bytes: l2b, beyond: MemLevel::Dram, beyond_bytes: d },
                );
            }
            _ => {}
        }
    }
    if let (Some(&l1b), Some(&l2b)) = (l1, l2) {
        if short(l1b, l2b) {
            let mut via = Vec::new();
            if ev.tma_load_sectors.is_some_and(|s| s > 0.0) {
                via.push(BypassPath::Tma);
            }
            if ev.async_copy_instructions.is_some_and(|n| n > 0.0) {
                via.push(BypassPath::AsyncCopy);
            }
            if ev.wgmma_pct.is_some_and(|p| p > 0.0) {
                via.push(BypassPath::Wgmma);
            }
            let caveat = if via.is_empty() {
                LevelCaveat::BelowLevelBeyond { bytes: l1b, beyond: MemLevel::L2, beyond_bytes: l2b }
            } else {
                LevelCaveat::L1Bypassed { via, l1_bytes: l1b, l2_bytes: l2b }
            };
            out.insert(MemLevel::L1, caveat);
        }
    }
    out
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
    use crate::*;
    use roofline_model::ridge_point;
    use roofline_model::Origin;
    use roofline_model::*;

    fn kernel(flops: f64, bytes: f64, dur: Option<f64>) -> Kernel {
        let mut k = Kernel::named("k", Origin::User);
        k.flops.insert(FlopKind::Fp32, flops);
        k.bytes.insert(MemLevel::Dram, bytes);
        k.duration_s = dur;
        k
    }

    #[test]
    fn the_ridge_is_where_the_two_roofs_meet_and_a_kernel_on_it_is_compute_bound() {
        // Seed 001's machine: 1000 GFLOP/s over 100 GB/s meet at 10 FLOP/byte.
        assert_eq!(ridge_point(1000e9, 100e9), 10.0);
        let m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        assert_eq!(m.ridge(FlopKind::Fp32, MemLevel::Dram), Some(10.0));
        // The H200's theoretical FP32 and DRAM roofs (reference/h200.md).
        assert_eq!(format!("{:.1}", ridge_point(66.9e12, 4.814e12)), "13.9");
        assert_eq!(attainable(1000e9, 100e9, 10.0), 1000e9);
        assert_eq!(attainable(1000e9, 100e9, 2.5), 250e9);
        assert_eq!(attainable(1000e9, 100e9, 40.0), 1000e9);
        assert_eq!(Bound::classify(10.0, 10.0), Bound::Compute);
        assert_eq!(Bound::classify(9.99, 10.0), Bound::Memory);
        assert_eq!(Bound::classify(10.01, 10.0), Bound::Compute);
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
    fn a_mix_of_kinds_is_judged_against_the_time_weighted_peak() {
        let mut m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        m.ceilings.push(Ceiling::new(
            roofline_model::Resource::Compute(FlopKind::TensorBf16),
            "BF16 tensor",
            1e13,
            Provenance::new(Origin::User, "x"),
        ));
        m.ceilings.push(Ceiling::new(
            roofline_model::Resource::Compute(FlopKind::Fp64),
            "FP64",
            0.0,
            Provenance::new(Origin::User, "x"),
        ));
        let mut k = kernel(1e9, 1e3, Some(1.0));
        k.flops.insert(FlopKind::TensorBf16, 1e9);
        k.flops.insert(FlopKind::Fp16, 5e8);
        k.flops.insert(FlopKind::Fp64, 1e6);
        k.flops.insert(FlopKind::TensorFp8, 0.0);
        let a = analyze_kernel(&m, &k);
        // 2e9 FLOPs in 1e-3 + 1e-4 s at the two peaks.
        let peak = a.compute_roof_flops_per_s.unwrap();
        assert!((peak - 2e9 / (1e9 / 1e12 + 1e9 / 1e13)).abs() < 1e-3, "{peak}");
        assert_eq!(a.compute_roof_name.as_deref(), Some("mix of FP32 + BF16 tensor"));
        // No roof for FP16, a zero one for FP64; zero FLOPs of FP8 are no work.
        assert_eq!(a.missing_ceilings, vec![FlopKind::Fp64, FlopKind::Fp16]);
        assert_eq!(a.total_flops, 1e9 + 1e9 + 5e8 + 1e6);
        assert_eq!(a.limiter, Some(Limiter::Compute));
        assert_eq!(a.bound, Some(Bound::Compute));
        assert!((a.pct_of_roof.unwrap() - 100.0 * a.total_flops / peak).abs() < 1e-9);
    }

    #[test]
    fn a_point_far_above_its_roof_is_flagged_and_one_a_little_above_is_not() {
        // 100 GB/s of DRAM: 1.49e11 bytes in 1 s is 149% of it, 1.51e11 is 151%.
        let m = Machine::simple("m", FlopKind::Fp32, 1e15, 100e9);
        let at = |bytes: f64| points_above_roof(&[analyze_kernel(&m, &kernel(1.0, bytes, Some(1.0)))]);
        assert!(at(1.06e11).is_empty(), "the 106% of real captures is no warning");
        assert!(at(1.49e11).is_empty(), "149% is within the tolerance");
        let above = at(1.51e11);
        assert_eq!(above.len(), 1, "{above:?}");
        assert_eq!(above[0].roof, "DRAM bandwidth");
        assert!((above[0].pct - 151.0).abs() < 1e-6);
        // Compute: 1.6e15 FLOP in 1 s on a 1e15 FLOP/s roof.
        let mut k = kernel(1.6e15, 1.0, Some(1.0));
        k.bytes.clear();
        let above = points_above_roof(&[analyze_kernel(&m, &k)]);
        assert_eq!(above.len(), 1, "{above:?}");
        assert!(above[0].roof.ends_with("compute") && (above[0].pct - 160.0).abs() < 1e-6, "{above:?}");
    }

    #[test]
    fn the_headline_intensity_is_the_limiting_levels() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        let mut m2 = m.clone();
        m2.ceilings.push(Ceiling::new(
            roofline_model::Resource::Memory(MemLevel::L2),
            "L2",
            1e9,
            Provenance::new(Origin::User, "x"),
        ));
        let mut k = kernel(1e9, 1e9, Some(1.0));
        k.bytes.insert(MemLevel::L2, 4e9);
        let a = analyze_kernel(&m2, &k);
        assert_eq!(a.limiter, Some(Limiter::Bandwidth(MemLevel::L2)));
        assert_eq!(a.headline_intensity(), Some(0.25));
        // Compute-bound: the DRAM intensity.
        let a = analyze_kernel(&m, &kernel(1e12, 1e9, Some(2.0)));
        assert_eq!(a.limiter, Some(Limiter::Compute));
        assert_eq!(a.headline_intensity(), Some(1000.0));
        assert_eq!(Bound::Memory.label(), "memory");
        assert_eq!(Bound::Compute.label(), "compute");
    }

    #[test]
    fn time_shares_add_up_over_the_kernels_that_ran() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        let ks = [kernel(1.0, 1.0, Some(1.0)), kernel(1.0, 1.0, Some(3.0)), kernel(1.0, 1.0, None)];
        let a = analyze(&m, &ks);
        assert_eq!(a.iter().map(|x| x.time_share).collect::<Vec<_>>(), [Some(0.25), Some(0.75), None]);
    }

    #[test]
    fn zero_flop_kernel_is_judged_by_bandwidth() {
        let m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        let a = analyze_kernel(&m, &kernel(0.0, 100e9, Some(2.0)));
        assert_eq!(a.pct_of_roof, Some(50.0));
        assert_eq!(a.limiter, Some(Limiter::Bandwidth(MemLevel::Dram)));
    }

    use roofline_model::{BypassPath, Evidence};
    use roofline_model::{Ceiling, Provenance, StreamPattern};

    /// The DRAM benchmarks of the H200 bundled machine (bytes/s).
    fn streaming_machine() -> Machine {
        let mut m = Machine::simple("m", FlopKind::Fp32, 66.9e12, 4.81e12);
        for (id, rate) in [
            ("dram.read", 4.502e12),
            ("dram.write", 4.465e12),
            ("dram.add", 4.211e12),
            ("dram.triad", 4.207e12),
            ("dram.copy", 3.997e12),
        ] {
            let p = Provenance::new(Origin::Measured, format!("benchmark {id}: ..."));
            let mut c = Ceiling::new(roofline_model::Resource::Memory(MemLevel::Dram), id, rate, p);
            c.secondary = id != "dram.read";
            if id != "dram.copy" {
                c = c.with_pattern(StreamPattern::of_benchmark(id).unwrap());
            }
            m.ceilings.push(c);
        }
        m
    }

    #[test]
    fn mix_roof_interpolates_between_the_streaming_benchmarks() {
        let m = streaming_machine();
        // At a benchmark's own mix: that benchmark (add beats triad at 2:1).
        let at = |share: f64| mix_roof(&m, share).unwrap();
        assert_eq!(at(1.0).bytes_per_s, 4.502e12);
        assert_eq!(at(0.0).bytes_per_s, 4.465e12);
        assert_eq!(at(2.0 / 3.0).bytes_per_s, 4.211e12);
        assert_eq!(at(2.0 / 3.0).lower.benchmark, "dram.add");
        // Copy's pattern comes from its benchmark ID in the provenance.
        assert_eq!(at(0.5).bytes_per_s, 3.997e12);
        assert_eq!(at(0.5).upper.benchmark, "dram.copy");
        // Between copy (0.5) and add (2/3): linear in the read share.
        let r = at(0.6);
        let t = (0.6 - 0.5) / (2.0 / 3.0 - 0.5);
        assert!((r.bytes_per_s - (3.997e12 + t * (4.211e12 - 3.997e12))).abs() < 1.0);
        assert_eq!((r.lower.benchmark.as_str(), r.upper.benchmark.as_str()), ("dram.copy", "dram.add"));
        // Between write (0) and copy (0.5).
        assert!((at(0.25).bytes_per_s - (4.465e12 + 3.997e12) / 2.0).abs() < 1.0);
        // No measured streaming benchmark: no mix roof.
        assert!(mix_roof(&Machine::simple("m", FlopKind::Fp32, 1.0, 1.0), 0.5).is_none());
        assert!(mix_roof(&m, f64::NAN).is_none());
    }

    #[test]
    fn of_two_benchmarks_with_one_mix_the_faster_counts_and_on_a_tie_the_first() {
        let with_triad = |rate: f64| {
            let mut m = streaming_machine();
            m.ceilings.iter_mut().find(|c| c.name == "dram.triad").unwrap().rate = rate;
            mix_roof(&m, 2.0 / 3.0).unwrap()
        };
        // add (4.211 TB/s) comes first; a faster triad replaces it.
        let faster = with_triad(4.3e12);
        assert_eq!((faster.bytes_per_s, faster.lower.benchmark.as_str()), (4.3e12, "dram.triad"));
        let tie = with_triad(4.211e12);
        assert_eq!(tie.lower.benchmark, "dram.add");
        let slower = with_triad(4.0e12);
        assert_eq!((slower.bytes_per_s, slower.lower.benchmark.as_str()), (4.211e12, "dram.add"));
    }

    #[test]
    fn only_measured_dram_streaming_is_a_point_of_the_mix_roof() {
        // A DRAM roof given by the user that carries a read pattern (a
        // hand-written machine file) is not a measurement: the read-only mix
        // falls back to copy.
        let mut m = Machine::simple("m", FlopKind::Fp32, 66.9e12, 4.81e12);
        m.ceilings[1] = m.ceilings[1].clone().with_pattern(StreamPattern::of_benchmark("dram.read").unwrap());
        let p = Provenance::new(Origin::Measured, "benchmark dram.copy: x");
        m.ceilings.push(Ceiling::new(roofline_model::Resource::Memory(MemLevel::Dram), "dram.copy", 3.997e12, p));
        let r = mix_roof(&m, 1.0).unwrap();
        assert_eq!((r.bytes_per_s, r.lower.benchmark.as_str()), (3.997e12, "dram.copy"));
    }

    #[test]
    fn a_streaming_kernel_is_judged_against_its_own_mix() {
        let m = streaming_machine();
        // A triad (2 reads : 1 write) at 4.0 TB/s: 83% of the read-only
        // roof, 95% of what add/triad streaming reaches.
        let mut k = kernel(2e9, 24e9, Some(24e9 / 4.0e12));
        k.evidence.dram_read_bytes = Some(16e9);
        k.evidence.dram_write_bytes = Some(8e9);
        let a = analyze_kernel(&m, &k);
        assert!((a.pct_of_roof.unwrap() - 100.0 * 4.0 / 4.502).abs() < 1e-9);
        assert!((a.pct_of_mix_roof.unwrap() - 100.0 * 4.0 / 4.211).abs() < 1e-9);
        assert_eq!(a.judged_pct(), a.pct_of_mix_roof);
        let d = a.diagnosis.clone().unwrap();
        assert_eq!(d.position, crate::Position::OnDiagonal);
        // The evidence names the mix (2 reads : 1 write) and its benchmark.
        let mix = d.evidence.iter().find_map(|f| match f {
            crate::Finding::PctOfMixRoof { bytes_per_s, read_share_pct, lower, upper, .. } => {
                Some((*bytes_per_s, *read_share_pct, lower.clone(), upper.clone()))
            }
            _ => None,
        });
        let (rate, read_pct, lower, upper) = mix.expect("the mix finding");
        assert_eq!(rate, 4.211e12);
        assert!((read_pct - 200.0 / 3.0).abs() < 1e-9, "{read_pct}");
        assert_eq!((lower.as_str(), upper.as_str()), ("dram.add", "dram.add"));
        // The chart's ceiling stays the highest roof.
        assert_eq!(a.level(MemLevel::Dram).unwrap().bandwidth, Some(4.502e12));
    }

    #[test]
    fn l2_writes_the_chart_convention_misses_are_caveated_from_ten_percent() {
        let bytes: BTreeMap<MemLevel, f64> = [(MemLevel::Dram, 1e9), (MemLevel::L2, 1e9)].into();
        let ev =
            |w: f64| Evidence { l2_read_sectors: Some(100.0 - w), l2_write_sectors: Some(w), ..Evidence::default() };
        assert!(level_caveats(&bytes, &ev(9.9), false).is_empty());
        assert_eq!(
            level_caveats(&bytes, &ev(10.1), false).get(&MemLevel::L2),
            Some(&LevelCaveat::L2WritesNotCounted { write_share_pct: 10.1 })
        );
        // NERSC's convention counts both directions.
        assert!(level_caveats(&bytes, &ev(50.0), true).is_empty());
        // Without direction counters: L2 under DRAM by 10% or more.
        let low: BTreeMap<MemLevel, f64> = [(MemLevel::Dram, 1e9), (MemLevel::L2, 0.899e9)].into();
        assert!(level_caveats(&low, &Evidence::default(), false).contains_key(&MemLevel::L2));
        let near: BTreeMap<MemLevel, f64> = [(MemLevel::Dram, 1e9), (MemLevel::L2, 0.901e9)].into();
        assert!(level_caveats(&near, &Evidence::default(), false).is_empty());
        // With them, fewer L2 than DRAM bytes is DRAM overfetch, not a miscount.
        assert!(level_caveats(&low, &ev(1.0), false).is_empty());
    }

    #[test]
    fn l1_bypassed_by_tma_and_async_copies_is_not_measured() {
        let bytes: BTreeMap<MemLevel, f64> = [(MemLevel::L2, 1e9), (MemLevel::L1, 1e6)].into();
        let ev = Evidence { tma_load_sectors: Some(1e7), wgmma_pct: Some(5.0), ..Evidence::default() };
        assert_eq!(
            level_caveats(&bytes, &ev, false).get(&MemLevel::L1),
            Some(&LevelCaveat::L1Bypassed {
                via: vec![BypassPath::Tma, BypassPath::Wgmma],
                l1_bytes: 1e6,
                l2_bytes: 1e9
            })
        );
        let ev = Evidence { async_copy_instructions: Some(1.0), ..Evidence::default() };
        assert!(matches!(
            level_caveats(&bytes, &ev, false).get(&MemLevel::L1),
            Some(LevelCaveat::L1Bypassed { via, .. }) if via == &vec![BypassPath::AsyncCopy]
        ));
        // L1 at 90.1% of L2 is within what the counters agree on.
        let close: BTreeMap<MemLevel, f64> = [(MemLevel::L2, 1e9), (MemLevel::L1, 0.901e9)].into();
        assert!(level_caveats(&close, &ev, false).is_empty());
    }

    #[test]
    fn a_level_not_measured_never_limits_and_is_flagged_for_the_chart() {
        let m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        let mut k = kernel(1e9, 1e9, Some(1.0));
        // An L1 point that would limit (tiny bandwidth) but is not measured.
        k.bytes.insert(MemLevel::L1, 1e12);
        let mut m2 = m.clone();
        m2.ceilings.push(Ceiling::new(
            roofline_model::Resource::Memory(MemLevel::L1),
            "L1",
            1e9,
            Provenance::new(Origin::User, "x"),
        ));
        assert_eq!(analyze_kernel(&m2, &k).limiter, Some(Limiter::Bandwidth(MemLevel::L1)));
        k.unmeasured.insert(
            MemLevel::L1,
            LevelCaveat::BelowLevelBeyond { bytes: 1e12, beyond: MemLevel::L2, beyond_bytes: 2e12 },
        );
        let a = analyze_kernel(&m2, &k);
        assert_eq!(a.limiter, Some(Limiter::Bandwidth(MemLevel::Dram)));
        assert!(!a.level(MemLevel::L1).unwrap().measured());
        assert!(a.diagnosis.unwrap().has("level_not_measured"));
    }

    #[test]
    fn the_instruction_roofline_places_warp_instructions_under_pipe_roofs() {
        let mut m = Machine::simple("m", FlopKind::Fp32, 66.9e12, 4.8e12);
        m.gpu.compute_capability = Some("9.0".into());
        m.gpu.sms = Some(132);
        m.gpu.sm_clock_mhz = Some(1980.0);
        let mut k = kernel(0.0, 32e9, Some(0.01));
        k.evidence.warp_instructions = Some(4e9);
        // An XU pipe at 0.5 warp instructions/clock/SM: roof 130.7e9/s.
        let xu_roof = 0.5 * 132.0 * 1980e6;
        k.evidence.pipes.insert(
            Pipe::Xu,
            roofline_model::PipeUse { pct_of_peak: Some(90.0), warp_instructions: Some(0.8 * xu_roof * 0.01) },
        );
        k.evidence
            .pipes
            .insert(Pipe::Alu, roofline_model::PipeUse { pct_of_peak: Some(20.0), warp_instructions: Some(1e8) });
        let a = analyze_kernel(&m, &k);
        let ia = a.instructions.as_ref().unwrap();
        assert_eq!(ia.binding, Some(Pipe::Xu));
        assert_eq!(ia.binding_point().map(|p| (p.pipe, p.counter_pct)), Some((Pipe::Xu, Some(90.0))));
        let xu = ia.pipe(Pipe::Xu).unwrap();
        assert!((xu.roof.as_ref().unwrap().rate - xu_roof).abs() < 1.0);
        assert_eq!(xu.roof.as_ref().unwrap().origin, Origin::Theoretical);
        assert!((xu.pct_of_roof.unwrap() - 80.0).abs() < 1e-9);
        // 4e9 instructions over 1e9 transactions of 32 B.
        let dram = ia.levels.iter().find(|l| l.level == MemLevel::Dram).unwrap();
        assert!((dram.intensity - 4.0).abs() < 1e-12);
        assert!((dram.roof_inst_per_s.unwrap() - 4.0 * 4.8e12 / 32.0).abs() < 1.0);
        assert!(ia.show_by_default, "no FLOPs: the FLOP roofline does not explain the time");
        // A measured pipe roof wins over the table.
        m.ceilings.push(Ceiling::new(
            roofline_model::Resource::Instruction(Pipe::Xu),
            "XU (measured)",
            1e11,
            Provenance::new(Origin::Measured, "benchmark xu"),
        ));
        let a = analyze_kernel(&m, &k);
        assert_eq!(a.instructions.unwrap().pipe(Pipe::Xu).unwrap().roof.as_ref().unwrap().rate, 1e11);
    }

    #[test]
    fn zero_duration_gives_no_rate_and_no_nan() {
        let m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        let a = analyze_kernel(&m, &kernel(10.0, 0.0, Some(0.0)));
        assert_eq!(a.achieved_flops_per_s, None);
        assert_eq!(a.pct_of_roof, None);
        // serde_json would print a NaN as null; Debug shows it.
        let text = format!("{a:?}");
        assert!(!text.contains("NaN") && !text.contains(": inf") && !text.contains("(inf)"), "{text}");
    }

    /// A point of one pipe with these two figures.
    fn pipe_point(pct_of_roof: Option<f64>, counter_pct: Option<f64>) -> PipePoint {
        PipePoint {
            pipe: Pipe::Alu,
            warp_instructions: None,
            warp_inst_per_s: None,
            roof: None,
            pct_of_roof,
            counter_pct,
        }
    }

    #[test]
    fn a_pipes_utilisation_is_the_larger_of_its_rate_and_the_profilers_figure() {
        assert_eq!(pipe_point(Some(80.0), Some(90.0)).utilisation(), Some(90.0));
        assert_eq!(pipe_point(Some(95.0), Some(90.0)).utilisation(), Some(95.0));
        assert_eq!(pipe_point(Some(80.0), None).utilisation(), Some(80.0));
        assert_eq!(pipe_point(None, Some(90.0)).utilisation(), Some(90.0));
        assert_eq!(pipe_point(None, None).utilisation(), None);
    }

    #[test]
    fn a_pipe_roof_is_confirmed_unless_its_json_says_otherwise() {
        let roof =
            |confirmed: bool| PipeRoof { rate: 1e11, origin: Origin::Theoretical, source: "table".into(), confirmed };
        let confirmed = serde_json::to_value(roof(true)).unwrap();
        assert!(confirmed.get("confirmed").is_none(), "{confirmed}");
        let estimate = serde_json::to_value(roof(false)).unwrap();
        assert_eq!(estimate.get("confirmed"), Some(&serde_json::Value::Bool(false)));
        assert_eq!(serde_json::from_value::<PipeRoof>(estimate).unwrap(), roof(false));
        assert_eq!(serde_json::from_value::<PipeRoof>(confirmed).unwrap(), roof(true));
    }

    #[test]
    fn a_level_without_flops_or_without_bytes_has_no_intensity() {
        let m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        let no_flops = analyze_kernel(&m, &kernel(0.0, 1e9, Some(1.0)));
        let dram = no_flops.level(MemLevel::Dram).unwrap();
        assert_eq!((dram.intensity, dram.attainable_flops_per_s), (None, None));
        let no_bytes = analyze_kernel(&m, &kernel(1e9, 0.0, Some(1.0)));
        let dram = no_bytes.level(MemLevel::Dram).unwrap();
        assert_eq!((dram.intensity, dram.attainable_flops_per_s), (None, None));
        assert_eq!(no_bytes.limiter, Some(Limiter::Compute));
    }

    #[test]
    fn a_kernel_exactly_on_the_ridge_is_held_by_compute() {
        // 1e10 FLOPs over 1e9 bytes: 10 FLOP/byte, seed 001's ridge, where
        // both roofs give 1000 GFLOP/s.
        let m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        let a = analyze_kernel(&m, &kernel(1e10, 1e9, Some(1.0)));
        assert_eq!(a.level(MemLevel::Dram).unwrap().attainable_flops_per_s, Some(1000e9));
        assert_eq!((a.limiter, a.bound), (Some(Limiter::Compute), Some(Bound::Compute)));
        assert_eq!(a.attainable_flops_per_s, Some(1000e9));
    }

    #[test]
    fn a_zero_bandwidth_roof_gives_no_percentage_rather_than_infinity() {
        let m = Machine::simple("m", FlopKind::Fp32, 1000e9, 0.0);
        let a = analyze_kernel(&m, &kernel(1e9, 1e9, Some(1.0)));
        assert_eq!(a.limiter, Some(Limiter::Bandwidth(MemLevel::Dram)));
        assert_eq!(a.attainable_flops_per_s, Some(0.0));
        assert_eq!(a.pct_of_roof, None);
        let dram = a.level(MemLevel::Dram).unwrap();
        assert_eq!((dram.achieved_bytes_per_s, dram.pct_of_bandwidth), (Some(1e9), None));
        let no_flops = analyze_kernel(&m, &kernel(0.0, 1e9, Some(1.0)));
        assert_eq!(no_flops.pct_of_roof, None);
    }

    #[test]
    fn a_kernel_without_flops_is_held_by_the_measured_level_it_spends_longest_on() {
        let mut m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        m.ceilings.push(Ceiling::new(
            roofline_model::Resource::Memory(MemLevel::L2),
            "L2",
            1e12,
            Provenance::new(Origin::User, "x"),
        ));
        let at = |dram: f64, l2: f64| {
            let mut k = kernel(0.0, dram, Some(1.0));
            k.bytes.insert(MemLevel::L2, l2);
            // L1 bytes but no L1 roof: never the limiter.
            k.bytes.insert(MemLevel::L1, 1e15);
            analyze_kernel(&m, &k).limiter
        };
        // DRAM 10 ms against L2 1 ms; then DRAM 1 ms against L2 10 ms.
        assert_eq!(at(1e9, 1e9), Some(Limiter::Bandwidth(MemLevel::Dram)));
        assert_eq!(at(1e8, 1e10), Some(Limiter::Bandwidth(MemLevel::L2)));
        // A level that is not measured is passed over however long it takes.
        let mut k = kernel(0.0, 1e8, Some(1.0));
        k.bytes.insert(MemLevel::L2, 1e10);
        k.unmeasured.insert(
            MemLevel::L2,
            LevelCaveat::BelowLevelBeyond { bytes: 1e10, beyond: MemLevel::Dram, beyond_bytes: 2e10 },
        );
        assert_eq!(analyze_kernel(&m, &k).limiter, Some(Limiter::Bandwidth(MemLevel::Dram)));
        // No FLOPs and no bytes: nothing holds it.
        let idle = analyze_kernel(&m, &kernel(0.0, 0.0, Some(1.0)));
        assert_eq!((idle.limiter, idle.bound), (None, None));
    }

    #[test]
    fn an_l2_at_exactly_90_percent_of_dram_and_an_l1_at_90_percent_of_l2_are_measured() {
        assert_eq!((1.0 - UNCOUNTED_SHARE_PCT / 100.0) * 1e9, 9e8);
        let bytes: BTreeMap<MemLevel, f64> = [(MemLevel::Dram, 1e9), (MemLevel::L2, 9e8)].into();
        assert!(level_caveats(&bytes, &Evidence::default(), false).is_empty());
        let bytes: BTreeMap<MemLevel, f64> = [(MemLevel::L2, 1e9), (MemLevel::L1, 9e8)].into();
        assert!(level_caveats(&bytes, &Evidence::default(), false).is_empty());
    }

    #[test]
    fn no_l2_traffic_in_either_direction_falls_back_to_the_dram_comparison() {
        let bytes: BTreeMap<MemLevel, f64> = [(MemLevel::Dram, 1e9), (MemLevel::L2, 5e8)].into();
        let ev = Evidence { l2_read_sectors: Some(0.0), l2_write_sectors: Some(0.0), ..Evidence::default() };
        assert_eq!(
            level_caveats(&bytes, &ev, false).get(&MemLevel::L2),
            Some(&LevelCaveat::BelowLevelBeyond { bytes: 5e8, beyond: MemLevel::Dram, beyond_bytes: 1e9 })
        );
    }

    #[test]
    fn an_l2_of_only_writes_is_caveated_and_one_of_only_reads_is_not() {
        let bytes: BTreeMap<MemLevel, f64> = [(MemLevel::Dram, 1e9), (MemLevel::L2, 1e9)].into();
        let ev =
            |r: f64, w: f64| Evidence { l2_read_sectors: Some(r), l2_write_sectors: Some(w), ..Evidence::default() };
        assert_eq!(
            level_caveats(&bytes, &ev(0.0, 100.0), false).get(&MemLevel::L2),
            Some(&LevelCaveat::L2WritesNotCounted { write_share_pct: 100.0 })
        );
        // 60% writes: more writes than reads.
        assert_eq!(
            level_caveats(&bytes, &ev(40.0, 60.0), false).get(&MemLevel::L2),
            Some(&LevelCaveat::L2WritesNotCounted { write_share_pct: 60.0 })
        );
        // Reads only, L2 under DRAM: the directions are counted, so this is
        // DRAM overfetch, not a miscount.
        let low: BTreeMap<MemLevel, f64> = [(MemLevel::Dram, 1e9), (MemLevel::L2, 5e8)].into();
        assert!(level_caveats(&low, &ev(100.0, 0.0), false).is_empty());
    }

    #[test]
    fn zero_tma_async_copy_and_wgmma_figures_name_no_bypass() {
        let bytes: BTreeMap<MemLevel, f64> = [(MemLevel::L2, 1e9), (MemLevel::L1, 1e6)].into();
        let ev = Evidence {
            tma_load_sectors: Some(0.0),
            async_copy_instructions: Some(0.0),
            wgmma_pct: Some(0.0),
            ..Evidence::default()
        };
        assert_eq!(
            level_caveats(&bytes, &ev, false).get(&MemLevel::L1),
            Some(&LevelCaveat::BelowLevelBeyond { bytes: 1e6, beyond: MemLevel::L2, beyond_bytes: 1e9 })
        );
    }

    /// A kernel with these pipe figures (the profiler's % only).
    fn with_pipes(mut k: Kernel, pipes: &[(Pipe, f64)]) -> Kernel {
        for &(pipe, pct) in pipes {
            k.evidence.pipes.insert(pipe, roofline_model::PipeUse { pct_of_peak: Some(pct), warp_instructions: None });
        }
        k
    }

    #[test]
    fn pipe_figures_alone_or_an_instruction_count_alone_give_an_instruction_roofline() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        let pipes_only = with_pipes(kernel(1e9, 1e9, Some(1.0)), &[(Pipe::Alu, 30.0)]);
        let ia = analyze_kernel(&m, &pipes_only).instructions.expect("an instruction roofline");
        assert_eq!((ia.warp_instructions, ia.binding), (None, Some(Pipe::Alu)));
        assert!(ia.levels.is_empty());
        let mut count_only = kernel(1e9, 32e9, Some(1.0));
        count_only.evidence.warp_instructions = Some(2e9);
        let ia = analyze_kernel(&m, &count_only).instructions.expect("an instruction roofline");
        assert_eq!((ia.warp_instructions, ia.warp_inst_per_s), (Some(2e9), Some(2e9)));
        assert_eq!(ia.levels.len(), 1);
        assert!(analyze_kernel(&m, &kernel(1e9, 1e9, Some(1.0))).instructions.is_none());
    }

    #[test]
    fn a_zero_duration_gives_no_instruction_rates() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        let mut k = kernel(1e9, 1e9, Some(0.0));
        k.evidence.warp_instructions = Some(2e9);
        k.evidence.pipes.insert(Pipe::Alu, roofline_model::PipeUse { pct_of_peak: None, warp_instructions: Some(1e9) });
        let ia = analyze_kernel(&m, &k).instructions.unwrap();
        assert_eq!(ia.warp_inst_per_s, None);
        assert_eq!(ia.pipe(Pipe::Alu).unwrap().warp_inst_per_s, None);
    }

    #[test]
    fn a_zero_pipe_roof_gives_no_percentage_rather_than_infinity() {
        let mut m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        m.ceilings.push(Ceiling::new(
            roofline_model::Resource::Instruction(Pipe::Alu),
            "ALU",
            0.0,
            Provenance::new(Origin::User, "x"),
        ));
        m.ceilings.push(Ceiling::new(
            roofline_model::Resource::Instruction(Pipe::Xu),
            "XU",
            4e9,
            Provenance::new(Origin::User, "x"),
        ));
        let mut k = kernel(1e9, 1e9, Some(1.0));
        for pipe in [Pipe::Alu, Pipe::Xu] {
            k.evidence.pipes.insert(pipe, roofline_model::PipeUse { pct_of_peak: None, warp_instructions: Some(1e9) });
        }
        let ia = analyze_kernel(&m, &k).instructions.unwrap();
        let alu = ia.pipe(Pipe::Alu).unwrap();
        assert_eq!((alu.roof.as_ref().map(|r| r.rate), alu.pct_of_roof), (Some(0.0), None));
        assert_eq!(ia.pipe(Pipe::Xu).unwrap().pct_of_roof, Some(25.0));
    }

    #[test]
    fn neither_the_issue_slots_nor_the_tensor_pipe_bind() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        let k =
            with_pipes(kernel(1e9, 1e9, Some(1.0)), &[(Pipe::Issue, 99.0), (Pipe::Tensor, 98.0), (Pipe::Alu, 30.0)]);
        let ia = analyze_kernel(&m, &k).instructions.unwrap();
        assert_eq!(ia.binding, Some(Pipe::Alu));
        assert_eq!(ia.binding_point().map(|p| p.counter_pct), Some(Some(30.0)));
    }

    #[test]
    fn instruction_intensities_skip_unmeasured_and_empty_levels() {
        let mut m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        for level in [MemLevel::L2, MemLevel::L1] {
            m.ceilings.push(Ceiling::new(
                roofline_model::Resource::Memory(level),
                level.label(),
                1e12,
                Provenance::new(Origin::User, "x"),
            ));
        }
        let mut k = kernel(1e9, 32e9, Some(1.0));
        k.evidence.warp_instructions = Some(1e9);
        k.bytes.insert(MemLevel::L2, 0.0);
        k.bytes.insert(MemLevel::L1, 1e6);
        k.unmeasured.insert(
            MemLevel::L1,
            LevelCaveat::BelowLevelBeyond { bytes: 1e6, beyond: MemLevel::L2, beyond_bytes: 32e9 },
        );
        let ia = analyze_kernel(&m, &k).instructions.unwrap();
        let levels: Vec<(MemLevel, f64)> = ia.levels.iter().map(|l| (l.level, l.intensity)).collect();
        assert_eq!(levels, [(MemLevel::Dram, 1.0)]);
    }

    #[test]
    fn the_instruction_roofline_is_shown_when_a_pipe_is_busier_than_a_kernel_below_the_flop_roof() {
        // Compute-bound on 1 TFLOP/s: `pct` % of the roof in 1 s. ALU at
        // 20% beside the pipe under test, which is the busiest.
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        let shown = |pct: f64, busiest: f64| {
            let k = with_pipes(kernel(pct * 1e10, 1e3, Some(1.0)), &[(Pipe::Alu, 20.0), (Pipe::Xu, busiest)]);
            let a = analyze_kernel(&m, &k);
            assert_eq!(a.judged_pct(), Some(pct));
            a.instructions.unwrap().show_by_default
        };
        assert!(shown(50.0, 90.0));
        assert!(!shown(50.0, 40.0), "the FLOP roofline explains more");
        assert!(!shown(50.0, 50.0), "a pipe as busy as the FLOPs explains nothing more");
        assert_eq!(crate::ON_ROOF_PCT, 75.0);
        assert!(!shown(75.0, 90.0), "on the roof: the FLOP roofline explains the time");
        assert!(shown(74.0, 90.0));
        // Without a duration nothing is judged, and a busy pipe decides.
        let k = with_pipes(kernel(1e9, 1e3, None), &[(Pipe::Xu, 10.0)]);
        let a = analyze_kernel(&m, &k);
        assert_eq!(a.judged_pct(), None);
        assert!(a.instructions.unwrap().show_by_default);
        // No FLOPs: shown even when no pipe binds (only the issue slots).
        let k = with_pipes(kernel(0.0, 1e9, Some(1.0)), &[(Pipe::Issue, 10.0)]);
        let ia = analyze_kernel(&m, &k).instructions.unwrap();
        assert_eq!(ia.binding, None);
        assert!(ia.show_by_default);
    }

    #[test]
    fn kernels_without_a_finite_positive_duration_take_no_time_share() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        let ks = [
            kernel(1.0, 1.0, Some(1.0)),
            kernel(1.0, 1.0, Some(3.0)),
            kernel(1.0, 1.0, Some(f64::INFINITY)),
            kernel(1.0, 1.0, Some(0.0)),
            kernel(1.0, 1.0, Some(-1.0)),
        ];
        let a = analyze(&m, &ks);
        assert_eq!(a.iter().map(|x| x.time_share).collect::<Vec<_>>(), [Some(0.25), Some(0.75), None, None, None]);
    }
}
