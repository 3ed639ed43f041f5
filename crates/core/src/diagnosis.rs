//! Where a measured kernel landed, what that means, and the next move.
//!
//! The tables of seeds 002 and 004, as rules:
//!
//! | position | test | next move |
//! |---|---|---|
//! | on the diagonal | memory-bound, >= 75% of the roof | raise intensity: fuse, tile, reuse |
//! | under the diagonal | memory-bound, below that | wasted bytes: coalescing, layout |
//! | on the roof | compute-bound, >= 75% | stop: new algorithm, precision or GPU |
//! | under the flat roof | compute-bound, below that | instruction mix, tensor cores |
//! | latency-bound | < 30% of the roof and < 30% of every bandwidth | occupancy, stalls |
//!
//! 75% is where a streaming kernel usually lands against a theoretical DRAM
//! roof (seed 000: "75-90% of the theoretical peak is about as good as a
//! streaming kernel gets"); against a measured roof it is generous. The
//! thresholds are public so reports can print them.

use serde::{Deserialize, Serialize};

use crate::machine::{FlopKind, Machine, MemLevel};
use crate::roofline::{Bound, KernelAnalysis, Limiter};
use crate::units::format_percent;

/// At or above this % of the applicable roof a kernel is "on" it.
pub const ON_ROOF_PCT: f64 = 75.0;
/// Below this % of its roof and of every bandwidth, a kernel is latency-bound.
pub const LATENCY_PCT: f64 = 30.0;
/// Fewer useful bytes per 32-byte sector than this is called wasteful.
pub const WASTED_SECTOR_BYTES: f64 = 24.0;
/// Theoretical occupancy below this is called low.
pub const LOW_OCCUPANCY_PCT: f64 = 50.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Position {
    OnDiagonal,
    UnderDiagonal,
    OnRoof,
    UnderFlatRoof,
    LatencyBound,
}

impl Position {
    pub fn label(self) -> &'static str {
        match self {
            Position::OnDiagonal => "on the diagonal",
            Position::UnderDiagonal => "under the diagonal",
            Position::OnRoof => "on the roof",
            Position::UnderFlatRoof => "under the flat roof",
            Position::LatencyBound => "latency-bound",
        }
    }
}

/// A verdict with its evidence and the next move, in a kernel writer's words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diagnosis {
    pub position: Position,
    /// What the numbers say, one fact per entry.
    pub evidence: Vec<String>,
    /// What to try next.
    pub next_move: String,
}

impl Diagnosis {
    /// The evidence in English, one fact per line, for every view.
    pub fn evidence_lines(&self) -> Vec<String> {
        self.evidence.clone()
    }

    /// The next move in English, for every view.
    pub fn next_move_text(&self) -> String {
        self.next_move.clone()
    }
}

/// Diagnoses a kernel that ran (needs a duration and a roof).
pub fn diagnose(machine: &Machine, a: &KernelAnalysis) -> Option<Diagnosis> {
    let pct = a.pct_of_roof?;
    let bound = a.bound?;
    let ev = &a.kernel.evidence;
    let mut evidence = vec![format!(
        "{} of the {} roof",
        format_percent(pct),
        match a.limiter {
            Some(Limiter::Bandwidth(l)) => format!("{} bandwidth", l.label()),
            _ => a.compute_roof_name.clone().unwrap_or_else(|| "compute".into()),
        }
    )];
    let best_bw = a.levels.iter().filter_map(|p| p.pct_of_bandwidth).fold(0.0_f64, f64::max);
    let compute_pct = match (a.achieved_flops_per_s, a.compute_roof_flops_per_s) {
        (Some(x), Some(p)) if p > 0.0 => 100.0 * x / p,
        _ => 0.0,
    };
    if let Some(d) = ev.dram_throughput_pct {
        evidence.push(format!("DRAM throughput {} of peak (ncu)", format_percent(d)));
    }
    if let Some(s) = ev.sm_throughput_pct {
        evidence.push(format!("SM throughput {} of peak (ncu)", format_percent(s)));
    }
    let occupancy_note = occupancy_note(ev);
    if let Some(n) = &occupancy_note {
        evidence.push(n.clone());
    }

    if let Some(c) = ev.counter_pct_of_roof {
        evidence.push(format!("{} of the roof at the profiler's own peaks and clocks", format_percent(c)));
    }
    // A profiler's speed-of-light figures veto "latency-bound": an SM busy
    // with non-FLOP work (shared memory, address arithmetic) is not idle.
    let sol_idle =
        ev.sm_throughput_pct.is_none_or(|s| s < LATENCY_PCT) && ev.dram_throughput_pct.is_none_or(|d| d < LATENCY_PCT);
    let latency = pct < LATENCY_PCT && best_bw < LATENCY_PCT && compute_pct < LATENCY_PCT && sol_idle;
    if latency || bound == Bound::Compute && pct < ON_ROOF_PCT {
        if let Some(s) = stall_note(ev) {
            evidence.push(s);
        }
    }
    let (position, next_move) = if latency {
        let mut m = String::from(
            "neither memory nor arithmetic is busy: the SMs wait on latency. Read occupancy and stall reasons first",
        );
        if let Some(limiter) = &ev.occupancy_limiter {
            if ev.occupancy_theoretical_pct.is_some_and(|o| o < 100.0) {
                m.push_str(&format!("; occupancy is limited by {limiter}"));
                if let Some(h) = &ev.occupancy_hint {
                    m.push_str(&format!(": {h}"));
                }
            }
        }
        m.push_str(
            "; give each thread more independent work (unroll, several loads in flight), or launch more blocks if the grid does not fill the GPU",
        );
        (Position::LatencyBound, m)
    } else {
        match bound {
            Bound::Memory if pct >= ON_ROOF_PCT => {
                let worst = [ev.global_load_bytes_per_sector, ev.global_store_bytes_per_sector]
                    .iter()
                    .flatten()
                    .copied()
                    .min_by(f64::total_cmp)
                    .filter(|w| *w < WASTED_SECTOR_BYTES);
                if let Some(w) = worst {
                    evidence.push(format!("{w:.1} of 32 bytes used per sector"));
                    if let Some(x) = ev.excessive_sectors.filter(|x| *x > 0.0) {
                        evidence.push(format!("{x:.0} excess L2 sectors ({}) from uncoalesced global accesses", crate::units::format_si(32.0 * x, crate::units::Unit::Byte)));
                    }
                    (Position::OnDiagonal, format!("the bus is busy, but with wasted bytes: accesses use only {w:.1} of every 32-byte sector. Coalesce them (consecutive threads on consecutive addresses), change the layout (structure of arrays), or stage through shared memory"))
                } else {
                (
                Position::OnDiagonal,
                match a.limiter {
                    Some(Limiter::Bandwidth(MemLevel::Dram)) | None => "bytes move as fast as this GPU allows: raise intensity by fusing kernels, tiling into shared memory or reusing data in registers, or use smaller types".to_string(),
                    Some(Limiter::Bandwidth(l)) => format!("{} bandwidth is the limit: keep reused data in registers or a closer level, or cut the traffic to {}", l.label(), l.label()),
                    Some(Limiter::Compute) => unreachable!("a memory-bound kernel has a bandwidth limiter"),
                },
            )
                }
            }
            Bound::Memory => {
                let mut m = String::from("memory-bound but below the bandwidth a streaming kernel reaches: the gap is wasted bytes or too few bytes in flight");
                let sectors = [ev.global_load_bytes_per_sector, ev.global_store_bytes_per_sector];
                if let Some(x) = ev.excessive_sectors.filter(|x| *x > 0.0) {
                    evidence.push(format!("{x:.0} excess L2 sectors ({}) from uncoalesced global accesses", crate::units::format_si(32.0 * x, crate::units::Unit::Byte)));
                }
                if let Some(worst) = sectors.iter().flatten().copied().min_by(f64::total_cmp) {
                    evidence.push(format!("{worst:.1} of 32 bytes used per sector"));
                    if worst < WASTED_SECTOR_BYTES {
                        m = format!("accesses use only {worst:.1} of every 32-byte sector: coalesce them (consecutive threads on consecutive addresses), change the layout (structure of arrays), or stage through shared memory");
                    }
                }
                if let Some(o) = ev.occupancy_theoretical_pct.filter(|o| *o < LOW_OCCUPANCY_PCT) {
                    m.push_str(&format!("; occupancy is only {}, so fewer loads are in flight", format_percent(o)));
                }
                (Position::UnderDiagonal, m)
            }
            Bound::Compute if pct >= ON_ROOF_PCT => (
                Position::OnRoof,
                "at the compute ceiling for this precision: only a different algorithm, a lower precision or different hardware goes further".to_string(),
            ),
            Bound::Compute => {
                let dominant = a.kernel.dominant_kind();
                let mut m = if dominant.is_some_and(FlopKind::is_tensor) {
                    String::from("a tensor-core kernel below its peak: feed the tensor cores faster (larger tiles, deeper shared-memory pipelines, asynchronous copies; wgmma on Hopper), and check that the problem shape fills every SM (tile and wave quantization)")
                } else {
                    String::from("enough intensity to be compute-bound but below the peak: improve the instruction mix (FMA instead of separate multiply and add, fewer index and conversion instructions), add independent chains per thread")
                };
                if !dominant.is_some_and(FlopKind::is_tensor) && ev.sm_throughput_pct.is_some_and(|s| s >= ON_ROOF_PCT - 15.0) {
                    m = format!("the SM is busy ({} of its peak) with work that is not FLOPs: cut shared-memory and load/store instructions per FLOP (register tiling: several outputs per thread), index arithmetic and conversions", format_percent(ev.sm_throughput_pct.unwrap_or(0.0)));
                }
                if matches!(dominant, Some(FlopKind::Fp32 | FlopKind::Fp16))
                    && machine.compute().any(|c| c.resource.flop_kind().is_some_and(FlopKind::is_tensor))
                {
                    m.push_str(", or move matrix-shaped work onto tensor cores (TF32, BF16, FP16)");
                }
                (Position::UnderFlatRoof, m)
            }
        }
    };
    Some(Diagnosis { position, evidence, next_move })
}

/// The two main stall reasons, in cycles per issued instruction.
fn stall_note(ev: &crate::kernel::Evidence) -> Option<String> {
    let mut v: Vec<(&String, &f64)> = ev.stalls.iter().filter(|(_, c)| **c > 0.0).collect();
    v.sort_by(|a, b| b.1.total_cmp(a.1));
    if v.is_empty() {
        return None;
    }
    let parts: Vec<String> = v.iter().take(2).map(|(r, c)| format!("{} {c:.1}", r.replace('_', " "))).collect();
    Some(format!("top stalls (cycles per issued instruction): {}", parts.join(", ")))
}

fn occupancy_note(ev: &crate::kernel::Evidence) -> Option<String> {
    let t = ev.occupancy_theoretical_pct?;
    let mut s = format!("theoretical occupancy {}", format_percent(t));
    if let Some(a) = ev.occupancy_achieved_pct {
        s.push_str(&format!(", achieved {}", format_percent(a)));
    }
    if let Some(l) = &ev.occupancy_limiter {
        s.push_str(&format!(", limited by {l}"));
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Kernel;
    use crate::machine::Origin;
    use crate::roofline::analyze_kernel;

    fn run(flops: f64, bytes: f64, dur: f64) -> Diagnosis {
        let m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        let mut k = Kernel::named("k", Origin::Counter);
        k.flops.insert(FlopKind::Fp32, flops);
        k.bytes.insert(MemLevel::Dram, bytes);
        k.duration_s = Some(dur);
        analyze_kernel(&m, &k).diagnosis.unwrap()
    }

    #[test]
    fn the_five_positions() {
        // 1 GFLOP over 12 GB in 0.13 s: 92 GB/s of 100 -> on the diagonal.
        assert_eq!(run(1e9, 12e9, 0.13).position, Position::OnDiagonal);
        // Same work at 50 GB/s -> under the diagonal.
        assert_eq!(run(1e9, 12e9, 0.24).position, Position::UnderDiagonal);
        // 900 GFLOP in 1 s with tiny traffic -> on the roof.
        assert_eq!(run(900e9, 1e6, 1.0).position, Position::OnRoof);
        // 500 GFLOP/s -> under the flat roof.
        assert_eq!(run(500e9, 1e6, 1.0).position, Position::UnderFlatRoof);
        // 5% of everything -> latency-bound.
        assert_eq!(run(1e9, 12e9, 2.4).position, Position::LatencyBound);
    }
}
