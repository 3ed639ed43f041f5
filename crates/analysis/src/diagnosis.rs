//! Where a measured kernel landed, what that means, and the next move.
//!
//! The tables of seeds 002 and 004, as rules:
//!
//! | position | test | next move |
//! |---|---|---|
//! | on the diagonal | memory-bound, >= 75% of the roof | raise intensity: fuse, tile, reuse |
//! | under the diagonal | memory-bound, below that | the cause the counters name: wasted sectors, a grid under one wave, a tail wave, a kernel too short to ramp up, a busy pipe, low occupancy |
//! | on the roof | compute-bound, >= 75% | stop: new algorithm, precision or GPU |
//! | under the flat roof | compute-bound, below that | the busy pipe, instruction mix, tensor cores |
//! | pipe-bound | below its FLOP/byte roof while one pipe is >= 75% busy | advice for that pipe |
//! | latency-bound | < 30% of the roof, of every bandwidth and of every pipe | occupancy, stalls |
//!
//! 75% is where a streaming kernel usually lands against a theoretical DRAM
//! roof (seed 000: "75-90% of the theoretical peak is about as good as a
//! streaming kernel gets"); against a measured roof it is generous. A
//! memory-bound kernel held by DRAM is judged against what streaming with its
//! own read:write mix reaches when the machine measured it.
//!
//! A diagnosis is data: each fact is a [`Finding`] (a code with its numbers,
//! and where it applies the share of the kernel's traffic or time it
//! concerns) and each next move an [`Advice`]; the English is produced when
//! rendering ([`Finding::text`], [`Advice::text`]). The thresholds are public
//! (`thresholds.rs`) so that reports can print them and tests can pin them.
//!
//! [`diagnose`] first gathers the evidence every position shares, then tries
//! the rows of `RULES` in order: each row is a position, the test that puts a
//! kernel there and the moves it gives. A new verdict is a new row in its
//! place, not a branch inside another.

use roofline_model::{Evidence, FlopKind, Machine, MemLevel, Origin, Pipe};

use crate::findings::*;
use crate::kernel_analysis::KernelAnalysis;
use crate::levels::{Bound, Limiter};
use crate::thresholds::*;

/// Wasted global sectors per access direction, weighted by traffic.
struct Waste {
    /// (access, bytes per sector, wasted share of all global sectors if known).
    directions: Vec<(Access, f64, Option<f64>)>,
}

impl Waste {
    fn of(ev: &Evidence) -> Waste {
        let total = match (ev.global_load_sectors, ev.global_store_sectors) {
            (Some(l), Some(s)) if l + s > 0.0 => Some(l + s),
            _ => None,
        };
        let only_one = [ev.global_load_bytes_per_sector, ev.global_store_bytes_per_sector]
            .iter()
            .filter(|b| b.is_some_and(|b| b > 0.0))
            .count()
            == 1;
        // Nsight Compute's excess-sector count is the sectors beyond what
        // the addresses need: a direction cannot waste more than that. A
        // partial warp or a lone 4-byte store uses few bytes of its sector
        // without any excess (the H200 captures show gathers at 18-20 bytes
        // per sector with none): no access pattern to coalesce there.
        let excess_share = match (ev.excessive_sectors, total) {
            (Some(x), Some(t)) => Some(100.0 * x.max(0.0) / t),
            _ => None,
        };
        let mut directions = Vec::new();
        for (access, bps, sectors) in [
            (Access::Load, ev.global_load_bytes_per_sector, ev.global_load_sectors),
            (Access::Store, ev.global_store_bytes_per_sector, ev.global_store_sectors),
        ] {
            let Some(bps) = bps.filter(|b| *b > 0.0) else { continue };
            let unused = (1.0 - bps / 32.0).max(0.0);
            let share = match (total, sectors) {
                (Some(t), Some(s)) => Some(100.0 * s * unused / t),
                // The only direction with global accesses is all the traffic.
                _ if only_one => Some(100.0 * unused),
                _ => None,
            };
            let share = match (share, excess_share) {
                (Some(s), Some(x)) => Some(s.min(x)),
                (s, _) => s,
            };
            directions.push((access, bps, share));
        }
        Waste { directions }
    }

    /// The most wasteful direction that uses under WASTED_SECTOR_BYTES.
    fn worst(&self) -> Option<(Access, f64, Option<f64>)> {
        self.directions
            .iter()
            .copied()
            .filter(|d| d.1 < WASTED_SECTOR_BYTES)
            .max_by(|a, b| a.2.unwrap_or(0.0).total_cmp(&b.2.unwrap_or(0.0)).then(b.1.total_cmp(&a.1)))
    }

    /// The share of global sectors wasted, when every direction's is known.
    fn total_share(&self) -> Option<f64> {
        self.directions.iter().map(|d| d.2).sum::<Option<f64>>()
    }

    /// Advice for wasted sectors: coalesce when they are at least
    /// WASTE_SHARE_PCT of the traffic, a conditional note when the capture
    /// cannot say, nothing otherwise.
    fn advice(&self) -> Option<Advice> {
        let (access, bps, share) = self.worst()?;
        match share {
            Some(s) if s >= WASTE_SHARE_PCT => {
                Some(Advice::Coalesce { access, bytes_per_sector: bps, wasted_share_pct: s })
            }
            Some(_) => None,
            None => Some(Advice::CheckCoalescing { access, bytes_per_sector: bps }),
        }
    }
}

/// Block slots left idle by the launch shape: a grid under one wave, or a
/// tail wave. (finding, advice) when at least IDLE_SLOTS_PCT are idle.
fn launch_shape(ev: &Evidence) -> Option<(Finding, Advice)> {
    // Waves from the grid and the slots when both are known (ncu prints
    // `launch__waves_per_multiprocessor` with two decimals only).
    let slots_known = match (ev.sm_count, ev.blocks_per_sm) {
        (Some(s), Some(b)) if s > 0.0 && b > 0.0 => Some(s * b),
        _ => None,
    };
    let waves = match (ev.grid_size, slots_known) {
        (Some(g), Some(s)) => Some(g / s),
        _ => ev.waves,
    }
    .filter(|w| *w > 0.0 && w.is_finite())?;
    if waves < 1.0 {
        let idle = 100.0 * (1.0 - waves);
        let blocks = ev.grid_size?;
        let slots = slots_known.unwrap_or(blocks / waves);
        return (idle >= IDLE_SLOTS_PCT).then_some((
            Finding::GridBelowOneWave { blocks, slots, idle_pct: idle },
            Advice::FillTheGpu { blocks, slots },
        ));
    }
    let whole = waves.ceil();
    let last = waves - waves.floor();
    if last <= 0.0 {
        return None;
    }
    let idle = 100.0 * (1.0 - last) / whole;
    (idle >= IDLE_SLOTS_PCT).then_some((
        Finding::TailWave { waves, last_wave_pct: 100.0 * last, idle_pct: idle },
        Advice::BalanceWaves { waves, idle_pct: idle },
    ))
}

/// The clock finding for a kernel whose roof follows the SM clock.
fn clock_finding(machine: &Machine, a: &KernelAnalysis) -> Option<Finding> {
    let ev = &a.kernel.evidence;
    let clock = ev.sm_clock_hz.filter(|c| *c > 0.0)?;
    let counter_machine = machine.ceilings.iter().any(|c| c.provenance.origin == Origin::Counter);
    let max = ev
        .max_sm_clock_hz
        .or_else(|| (!counter_machine).then(|| machine.gpu.sm_clock_mhz.map(|m| m * 1e6)).flatten())
        .filter(|m| *m > 0.0)?;
    let loss = 100.0 * (1.0 - clock / max);
    if loss < CLOCK_LOSS_PCT {
        return None;
    }
    // The gap to the max-clock roof, from the % of a roof quoted at its clock.
    let roof_clock = match a.limiter {
        Some(Limiter::Compute) => {
            a.kernel.dominant_kind().and_then(|k| machine.compute_roof(k)).and_then(|c| c.clock.sm_mhz).map(|m| m * 1e6)
        }
        _ => None,
    };
    let gap_share = match (a.pct_of_roof, roof_clock) {
        (Some(p), Some(rc)) if rc > 0.0 => {
            let at_max = p * rc / max;
            let gap = 100.0 - at_max;
            (gap > 0.0).then(|| (100.0 * loss / gap).min(100.0))
        }
        _ => None,
    };
    Some(Finding::ClockBelowMax { clock_hz: clock, max_hz: max, loss_pct: loss, gap_share_pct: gap_share })
}

/// The busiest pipe: (pipe, % of roof or of peak, whether the profiler's figure).
fn busiest_pipe(a: &KernelAnalysis) -> Option<(Pipe, f64, bool)> {
    let ia = a.instructions.as_ref()?;
    let p = ia.binding_point()?;
    let u = p.utilisation()?;
    Some((p.pipe, u, p.pct_of_roof.is_none_or(|r| r < u)))
}

/// Diagnoses a kernel that ran (needs a duration and a roof).
pub fn diagnose(machine: &Machine, a: &KernelAnalysis) -> Option<Diagnosis> {
    let pct_of_roof = a.pct_of_roof?;
    let bound = a.bound?;
    let ev = &a.kernel.evidence;
    let judged = a.judged_pct().unwrap_or(pct_of_roof);
    let mut evidence = vec![Finding::PctOfRoof {
        pct: pct_of_roof,
        roof: match a.limiter {
            Some(Limiter::Bandwidth(l)) => format!("{} bandwidth", l.label()),
            _ => a.compute_roof_name.clone().unwrap_or_else(|| "compute".into()),
        },
    }];
    if let (Some(p), Some(m)) = (a.pct_of_mix_roof, a.level(MemLevel::Dram).and_then(|l| l.mix.as_ref())) {
        evidence.push(Finding::PctOfMixRoof {
            pct: p,
            bytes_per_s: m.bytes_per_s,
            read_share_pct: 100.0 * m.read_share,
            lower: m.lower.benchmark.clone(),
            upper: m.upper.benchmark.clone(),
        });
    }
    let best_bw = a
        .levels
        .iter()
        .filter(|p| p.measured())
        .filter_map(|p| p.mix.as_ref().and_then(|m| m.pct).or(p.pct_of_bandwidth))
        .fold(0.0_f64, f64::max);
    let compute_pct = match (a.achieved_flops_per_s, a.compute_roof_flops_per_s) {
        (Some(x), Some(p)) if p > 0.0 => 100.0 * x / p,
        _ => 0.0,
    };
    if let Some(d) = ev.dram_throughput_pct {
        evidence.push(Finding::DramThroughput { pct: d });
    }
    if let Some(s) = ev.sm_throughput_pct {
        evidence.push(Finding::SmThroughput { pct: s });
    }
    if let Some(t) = ev.occupancy_theoretical_pct {
        evidence.push(Finding::Occupancy {
            theoretical_pct: t,
            achieved_pct: ev.occupancy_achieved_pct,
            limiter: ev.occupancy_limiter.clone(),
        });
    }
    if let Some(c) = ev.counter_pct_of_roof {
        evidence.push(Finding::CounterPctOfRoof { pct: c });
    }
    for p in &a.levels {
        if let Some(c) = &p.caveat {
            evidence.push(Finding::LevelNotMeasured { level: p.level, caveat: c.clone() });
        }
    }
    if let Some(fp16) = &ev.fp16 {
        if let Some(m) = &fp16.constant_moves {
            evidence.push(Finding::Fp16ConstantMoves {
                thread_instructions: m.thread_instructions,
                flops_as_counted: m.flops_as_counted,
            });
        }
        if matches!(fp16.packing, roofline_model::Fp16Packing::Unknown)
            && fp16.packed_flops > 0.0
            && a.kernel.flops.get(&FlopKind::Fp16).is_some_and(|f| *f > 0.0)
        {
            evidence
                .push(Finding::Fp16PackingUnknown { packed_flops: fp16.packed_flops, scalar_flops: fp16.scalar_flops });
        }
    }
    let busy = busiest_pipe(a);
    if let Some((pipe, p, of_counter)) = busy.filter(|b| b.1 >= LATENCY_PCT) {
        evidence.push(Finding::BusyPipe { pipe, pct: p, of_counter });
    }
    if let Some(issue) = a.instructions.as_ref().and_then(|i| i.pipe(Pipe::Issue)).and_then(|p| p.utilisation()) {
        if issue >= ON_ROOF_PCT {
            evidence.push(Finding::IssueBusy { pct: issue });
        }
    }
    let clock = match a.limiter {
        Some(Limiter::Bandwidth(MemLevel::Dram)) => None,
        _ => clock_finding(machine, a),
    };
    if let Some(c) = &clock {
        evidence.push(c.clone());
    }
    if let Some(a) = ev.sm_active_pct.filter(|a| *a <= 100.0 - IDLE_SLOTS_PCT) {
        evidence.push(Finding::SmsIdle { active_pct: a });
    }
    let waste = Waste::of(ev);
    let shape = launch_shape(ev);
    let per_launch = a.kernel.duration_s.filter(|d| *d > 0.0).map(|d| d / a.kernel.launches.max(1) as f64);
    let short = per_launch.filter(|s| *s < SHORT_LAUNCH_S);
    let conflicts_share = match (ev.shared_bank_conflicts, ev.shared_wavefronts) {
        (Some(c), Some(w)) if w > 0.0 => Some(100.0 * c / w),
        _ => None,
    };
    if let Some(c) = ev.shared_bank_conflicts.filter(|c| *c > 0.0) {
        evidence.push(Finding::BankConflicts { conflicts: c, share_pct: conflicts_share });
    }

    // A profiler's speed-of-light figures and pipe counters veto
    // "latency-bound": an SM busy with non-FLOP work is not idle.
    let sol_idle =
        ev.sm_throughput_pct.is_none_or(|s| s < LATENCY_PCT) && ev.dram_throughput_pct.is_none_or(|d| d < LATENCY_PCT);
    let pipes_idle = busy.is_none_or(|(_, p, _)| p < LATENCY_PCT);
    let latency = judged < LATENCY_PCT && best_bw < LATENCY_PCT && compute_pct < LATENCY_PCT && sol_idle && pipes_idle;
    if latency || bound == Bound::Compute && judged < ON_ROOF_PCT {
        if let Some(s) = stalls(ev) {
            evidence.push(s);
        }
    }
    let facts = Facts { machine, a, ev, bound, judged, latency, busy, clock, waste, shape, short, conflicts_share };
    let rule = RULES.iter().find(|r| (r.holds)(&facts)).expect("the last rule always holds");
    let mut moves = Vec::new();
    (rule.moves)(&facts, &mut evidence, &mut moves);
    Some(Diagnosis { position: rule.position, evidence, next_moves: moves })
}

/// What the rules read: the kernel as placed, its evidence, and the facts
/// [`diagnose`] derives from them once.
struct Facts<'a> {
    machine: &'a Machine,
    a: &'a KernelAnalysis,
    ev: &'a Evidence,
    bound: Bound,
    /// The % of roof its position is judged by.
    judged: f64,
    /// Below [`LATENCY_PCT`] of every roof, bandwidth and pipe, and no
    /// profiler figure says the SM or DRAM is busy.
    latency: bool,
    busy: Option<(Pipe, f64, bool)>,
    clock: Option<Finding>,
    waste: Waste,
    shape: Option<(Finding, Advice)>,
    /// Seconds per launch, when shorter than [`SHORT_LAUNCH_S`].
    short: Option<f64>,
    conflicts_share: Option<f64>,
}

/// One row of the diagnosis table: where a kernel sits, the test that puts
/// it there, and the evidence and next moves that position gives.
struct Rule {
    position: Position,
    holds: fn(&Facts) -> bool,
    moves: fn(&Facts, &mut Vec<Finding>, &mut Vec<Advice>),
}

/// The table of seeds 002 and 004 (the module's table), in the order its
/// tests are tried: the first that holds gives the position.
const RULES: [Rule; 6] = [
    Rule { position: Position::LatencyBound, holds: |f| f.latency, moves: latency_bound },
    Rule {
        position: Position::PipeBound,
        holds: |f| {
            f.judged < ON_ROOF_PCT && f.bound == Bound::Memory && f.busy.is_some_and(|(_, p, _)| p >= ON_ROOF_PCT)
        },
        moves: pipe_bound,
    },
    Rule {
        position: Position::OnDiagonal,
        holds: |f| f.bound == Bound::Memory && f.judged >= ON_ROOF_PCT,
        moves: on_diagonal,
    },
    Rule { position: Position::UnderDiagonal, holds: |f| f.bound == Bound::Memory, moves: under_diagonal },
    Rule { position: Position::OnRoof, holds: |f| f.judged >= ON_ROOF_PCT, moves: on_roof },
    Rule { position: Position::UnderFlatRoof, holds: |_| true, moves: under_flat_roof },
];

fn latency_bound(f: &Facts, evidence: &mut Vec<Finding>, moves: &mut Vec<Advice>) {
    let ev = f.ev;
    // A grid that leaves most of the GPU idle is the first thing to fix.
    let grid_first = matches!(&f.shape, Some((Finding::GridBelowOneWave { idle_pct, .. }, _)) if *idle_pct >= 50.0);
    if let (true, Some((s, m))) = (grid_first, &f.shape) {
        evidence.push(s.clone());
        moves.push(m.clone());
    }
    moves.push(Advice::WaitOnLatency);
    if let Some(limiter) = &ev.occupancy_limiter {
        if ev.occupancy_theoretical_pct.is_some_and(|o| o < 100.0) {
            moves.push(Advice::OccupancyLimited { limiter: limiter.clone(), hint: ev.occupancy_hint.clone() });
        }
    }
    if let (false, Some((s, m))) = (grid_first, &f.shape) {
        evidence.push(s.clone());
        moves.push(m.clone());
    }
    moves.push(Advice::MoreIndependentWork);
}

fn pipe_bound(f: &Facts, _: &mut Vec<Finding>, moves: &mut Vec<Advice>) {
    let (pipe, p, _) = f.busy.expect("the rule's test checked it");
    moves.push(Advice::PipeWork { pipe, pct: p });
}

fn on_diagonal(f: &Facts, evidence: &mut Vec<Finding>, moves: &mut Vec<Advice>) {
    push_waste_evidence(evidence, &f.waste, f.ev);
    match f.waste.advice() {
        Some(m @ Advice::Coalesce { .. }) => moves.push(m),
        conditional => {
            moves.push(match f.a.limiter {
                Some(Limiter::Bandwidth(MemLevel::Dram)) | None => Advice::RaiseIntensity,
                Some(Limiter::Bandwidth(l)) => Advice::CloserLevel { level: l },
                Some(Limiter::Compute) => unreachable!("a memory-bound kernel has a bandwidth limiter"),
            });
            moves.extend(conditional);
        }
    }
}

fn under_diagonal(f: &Facts, evidence: &mut Vec<Finding>, moves: &mut Vec<Advice>) {
    let ev = f.ev;
    push_waste_evidence(evidence, &f.waste, ev);
    let conditional = match f.waste.advice() {
        Some(m @ Advice::Coalesce { .. }) => {
            moves.push(m);
            None
        }
        other => other,
    };
    if let Some((s, m)) = &f.shape {
        evidence.push(s.clone());
        moves.push(m.clone());
    }
    if let Some(s) = f.short {
        evidence.push(Finding::ShortLaunch { seconds_per_launch: s });
        moves.push(Advice::LongerLaunches { seconds_per_launch: s });
    }
    if let Some(share) = f.conflicts_share.filter(|s| *s >= WASTE_SHARE_PCT) {
        moves.push(Advice::AvoidBankConflicts { share_pct: share });
    }
    if let Some((pipe, p, _)) = f.busy.filter(|b| b.1 >= BUSY_PIPE_PCT) {
        moves.push(Advice::PipeWork { pipe, pct: p });
    }
    if let Some(o) = ev.occupancy_theoretical_pct.filter(|o| *o < LOW_OCCUPANCY_PCT) {
        moves.push(Advice::LowOccupancy { occupancy_pct: o });
    }
    if let Some(c) = conditional {
        moves.push(c);
    }
    if moves.is_empty() {
        moves.push(Advice::MoreBytesInFlight);
    }
}

fn on_roof(f: &Facts, _: &mut Vec<Finding>, moves: &mut Vec<Advice>) {
    moves.push(Advice::AtTheRoof);
    if let Some(Finding::ClockBelowMax { loss_pct, .. }) = f.clock {
        moves.push(Advice::Clock { loss_pct });
    }
}

fn under_flat_roof(f: &Facts, evidence: &mut Vec<Finding>, moves: &mut Vec<Advice>) {
    let ev = f.ev;
    let dominant = f.a.kernel.dominant_kind();
    let tensor = dominant.is_some_and(FlopKind::is_tensor);
    if tensor {
        moves.push(Advice::FeedTensorCores);
        if let Some((s, m)) = &f.shape {
            evidence.push(s.clone());
            moves.push(m.clone());
        }
    } else if let Some((pipe, p, _)) = f.busy.filter(|b| b.1 >= BUSY_PIPE_PCT) {
        moves.push(Advice::PipeWork { pipe, pct: p });
    } else if f.busy.is_none() && ev.sm_throughput_pct.is_some_and(|s| s >= ON_ROOF_PCT - 15.0) {
        moves.push(Advice::SmBusyNotFlops { pct: ev.sm_throughput_pct.unwrap_or(0.0) });
    } else {
        moves.push(Advice::InstructionMix);
    }
    if let Some(share) = f.conflicts_share.filter(|s| *s >= WASTE_SHARE_PCT) {
        moves.push(Advice::AvoidBankConflicts { share_pct: share });
    }
    if matches!(dominant, Some(FlopKind::Fp32 | FlopKind::Fp16))
        && f.machine.compute().any(|c| c.resource.flop_kind().is_some_and(FlopKind::is_tensor))
    {
        moves.push(Advice::UseTensorCores);
    }
    if let Some(Finding::ClockBelowMax { loss_pct, .. }) = f.clock {
        moves.push(Advice::Clock { loss_pct });
    }
}

/// The sector-use evidence of a memory-bound kernel: the most wasteful
/// direction with its share of the traffic, and ncu's excess-sector count.
fn push_waste_evidence(evidence: &mut Vec<Finding>, waste: &Waste, ev: &Evidence) {
    let worst = waste.worst().or_else(|| {
        waste.directions.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1)).filter(|d| d.1 < WASTED_SECTOR_BYTES)
    });
    if let Some((access, bps, share)) = worst {
        evidence.push(Finding::SectorUse { access, bytes_per_sector: bps, wasted_share_pct: share });
    }
    if let Some(x) = ev.excessive_sectors.filter(|x| *x > 0.0) {
        let total = match (ev.global_load_sectors, ev.global_store_sectors) {
            (Some(l), Some(s)) if l + s > 0.0 => Some(100.0 * x / (l + s)),
            _ => None,
        };
        evidence.push(Finding::ExcessSectors { sectors: x, share_pct: total.or(waste.total_share()) });
    }
}

/// The two main stall reasons, in cycles per issued instruction.
fn stalls(ev: &Evidence) -> Option<Finding> {
    let mut v: Vec<(&String, &f64)> = ev.stalls.iter().filter(|(_, c)| **c > 0.0).collect();
    v.sort_by(|a, b| b.1.total_cmp(a.1));
    if v.is_empty() {
        return None;
    }
    let top =
        v.iter().take(2).map(|(r, c)| Stall { reason: (*r).clone(), cycles_per_instruction: **c }).collect::<Vec<_>>();
    Some(Finding::Stalls { top })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_range_check_reaches_the_numbers_of_findings_and_moves_without_their_english() {
        let d = Diagnosis {
            position: Position::UnderFlatRoof,
            evidence: Vec::new(),
            next_moves: vec![Advice::UseTensorCores, Advice::Clock { loss_pct: f64::NAN }],
        };
        let e = roofline_model::check_numbers(&d).unwrap_err();
        assert_eq!(e.path, "next_moves[1].loss_pct");
        // The JSON still carries each entry's English.
        let ok = Diagnosis { next_moves: vec![Advice::Clock { loss_pct: 12.0 }], ..d };
        let json = serde_json::to_value(&ok).unwrap();
        assert_eq!(json["next_moves"][0]["text"], Advice::Clock { loss_pct: 12.0 }.text());
    }
    use crate::placement::analyze_kernel;
    use roofline_model::Kernel;
    use roofline_model::Origin;

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

    /// A memory-bound kernel on the 100 GB/s machine at `pct` % of DRAM.
    fn memory_kernel(pct: f64) -> Kernel {
        let mut k = Kernel::named("k", Origin::Counter);
        k.flops.insert(FlopKind::Fp32, 1e9);
        k.bytes.insert(MemLevel::Dram, 12e9);
        k.duration_s = Some(12e9 / (pct / 100.0 * 100e9));
        k
    }

    fn diagnose_kernel(k: &Kernel) -> Diagnosis {
        let m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        analyze_kernel(&m, k).diagnosis.unwrap()
    }

    #[test]
    fn on_the_roof_starts_at_75_percent() {
        assert_eq!(diagnose_kernel(&memory_kernel(75.1)).position, Position::OnDiagonal);
        assert_eq!(diagnose_kernel(&memory_kernel(74.9)).position, Position::UnderDiagonal);
        assert_eq!(run(751e9, 1e6, 1.0).position, Position::OnRoof);
        assert_eq!(run(749e9, 1e6, 1.0).position, Position::UnderFlatRoof);
    }

    #[test]
    fn latency_bound_is_under_30_percent_of_everything() {
        assert_eq!(diagnose_kernel(&memory_kernel(29.9)).position, Position::LatencyBound);
        assert_eq!(diagnose_kernel(&memory_kernel(30.1)).position, Position::UnderDiagonal);
        // The profiler's speed of light vetoes it.
        let mut k = memory_kernel(10.0);
        k.evidence.sm_throughput_pct = Some(30.1);
        assert_eq!(diagnose_kernel(&k).position, Position::UnderDiagonal);
        k.evidence.sm_throughput_pct = Some(29.9);
        assert_eq!(diagnose_kernel(&k).position, Position::LatencyBound);
    }

    /// A kernel at 60% of DRAM whose loads use `bps` bytes per sector and
    /// are `load_share` of its global sectors.
    fn wasteful(bps: f64, load_share: f64) -> Diagnosis {
        let mut k = memory_kernel(60.0);
        k.evidence.global_load_bytes_per_sector = Some(bps);
        k.evidence.global_store_bytes_per_sector = Some(32.0);
        k.evidence.global_load_sectors = Some(load_share * 1e6);
        k.evidence.global_store_sectors = Some((1.0 - load_share) * 1e6);
        diagnose_kernel(&k)
    }

    #[test]
    fn coalescing_advice_needs_ten_percent_of_the_traffic() {
        // Loads use 4 of 32 bytes: 87.5% of their sectors are wasted.
        // 11.3% of the sectors -> 9.9% of the traffic wasted; 11.6% -> 10.15%.
        let below = wasteful(4.0, 0.099 / 0.875);
        assert!(!below.advises("coalesce") && !below.advises("check_coalescing"), "{below:?}");
        let share = |d: &Diagnosis| {
            d.evidence.iter().find_map(|f| match f {
                Finding::SectorUse { wasted_share_pct, .. } => *wasted_share_pct,
                _ => None,
            })
        };
        assert!((share(&below).unwrap() - 9.9).abs() < 1e-9);
        let above = wasteful(4.0, 0.1015 / 0.875);
        assert!(above.advises("coalesce"), "{above:?}");
        assert!((share(&above).unwrap() - 10.15).abs() < 1e-9);
    }

    #[test]
    fn few_bytes_per_sector_with_no_excess_sectors_earn_no_coalescing_advice() {
        // A gather whose warps run partly predicated off: 19.7 of 32 bytes
        // per loaded sector, yet ncu counts no sector beyond what the
        // addresses need (PyTorch's embedding backward on the H200).
        let mut k = memory_kernel(60.0);
        k.evidence.global_load_bytes_per_sector = Some(19.7);
        k.evidence.global_store_bytes_per_sector = Some(32.0);
        k.evidence.global_load_sectors = Some(0.8e6);
        k.evidence.global_store_sectors = Some(0.2e6);
        k.evidence.excessive_sectors = Some(0.0);
        let none = diagnose_kernel(&k);
        assert!(!none.advises("coalesce") && !none.advises("check_coalescing"), "{none:?}");
        // Excess sectors cap the share: 9.9% of the traffic stays under the bar, 10.1% passes.
        k.evidence.excessive_sectors = Some(0.099e6);
        assert!(!diagnose_kernel(&k).advises("coalesce"));
        k.evidence.excessive_sectors = Some(0.101e6);
        let capped = diagnose_kernel(&k);
        let share = capped.next_moves.iter().find_map(|m| match m {
            Advice::Coalesce { wasted_share_pct, .. } => Some(*wasted_share_pct),
            _ => None,
        });
        assert!((share.expect("coalescing advice") - 10.1).abs() < 1e-9, "{capped:?}");
    }

    #[test]
    fn wasteful_means_under_24_bytes_per_sector() {
        // All loads: the waste is their own share.
        assert!(wasteful(23.9, 1.0).advises("coalesce"));
        assert!(!wasteful(24.1, 1.0).advises("coalesce"));
    }

    #[test]
    fn without_sector_counts_the_advice_is_conditional() {
        let mut k = memory_kernel(60.0);
        k.evidence.global_load_bytes_per_sector = Some(4.0);
        k.evidence.global_store_bytes_per_sector = Some(32.0);
        let d = diagnose_kernel(&k);
        assert!(d.advises("check_coalescing") && !d.advises("coalesce"), "{d:?}");
        // One direction only: it is all the traffic.
        k.evidence.global_store_bytes_per_sector = None;
        assert!(diagnose_kernel(&k).advises("coalesce"));
    }

    #[test]
    fn a_grid_under_one_wave_is_named_from_ten_percent_idle() {
        let mut k = memory_kernel(50.0);
        k.evidence.sm_count = Some(100.0);
        k.evidence.blocks_per_sm = Some(2.0);
        k.evidence.grid_size = Some(181.0); // 90.5% of 200 slots
        assert!(!diagnose_kernel(&k).has("grid_below_one_wave"));
        k.evidence.grid_size = Some(179.0); // 89.5%
        let d = diagnose_kernel(&k);
        assert!(d.advises("fill_the_gpu"), "{d:?}");
        let grid = d.evidence.iter().find_map(|f| match f {
            Finding::GridBelowOneWave { blocks, slots, idle_pct } => Some((*blocks, *slots, *idle_pct)),
            _ => None,
        });
        let (blocks, slots, idle) = grid.expect("the grid finding");
        assert_eq!((blocks, slots), (179.0, 200.0));
        assert!((idle - 10.5).abs() < 1e-9);
    }

    #[test]
    fn a_tail_wave_is_named_from_ten_percent_idle() {
        let mut k = memory_kernel(50.0);
        k.evidence.sm_count = Some(100.0);
        k.evidence.blocks_per_sm = Some(1.0);
        // 2.1 waves: the third keeps 10% busy, 0.9 / 3 = 30% of the slot time idle.
        k.evidence.grid_size = Some(210.0);
        let d = diagnose_kernel(&k);
        let tail = d.evidence.iter().find_map(|f| match f {
            Finding::TailWave { waves, last_wave_pct, idle_pct } => Some((*waves, *last_wave_pct, *idle_pct)),
            _ => None,
        });
        let (w, last, idle) = tail.expect("a tail wave");
        assert!((w - 2.1).abs() < 1e-12 && (last - 10.0).abs() < 1e-9 && (idle - 30.0).abs() < 1e-9);
        assert!(d.advises("balance_waves"));
        // 9.7 waves: 0.3 / 10 = 3% idle: not named.
        k.evidence.grid_size = Some(970.0);
        assert!(!diagnose_kernel(&k).has("tail_wave"));
        // 1.7 waves: 0.3 / 2 = 15%; 1.8 waves: 10%, 1.81 waves: 9.5%.
        k.evidence.grid_size = Some(181.0);
        assert!(!diagnose_kernel(&k).has("tail_wave"));
        k.evidence.grid_size = Some(179.0);
        assert!(diagnose_kernel(&k).has("tail_wave"));
    }

    #[test]
    fn launches_under_10_us_are_too_short_to_ramp_up() {
        let mut k = memory_kernel(50.0);
        k.launches = (k.duration_s.unwrap() / 9.9e-6).round() as u64;
        k.duration_s = Some(9.9e-6 * k.launches as f64);
        assert!(diagnose_kernel(&k).advises("longer_launches"));
        k.duration_s = Some(10.1e-6 * k.launches as f64);
        k.bytes.insert(MemLevel::Dram, 0.5 * 100e9 * k.duration_s.unwrap());
        assert!(!diagnose_kernel(&k).advises("longer_launches"));
    }

    #[test]
    fn the_catch_all_is_left_only_when_the_counters_name_nothing() {
        let d = diagnose_kernel(&memory_kernel(50.0));
        assert_eq!(d.next_moves, vec![Advice::MoreBytesInFlight]);
        let mut k = memory_kernel(50.0);
        k.evidence.occupancy_theoretical_pct = Some(49.9);
        assert_eq!(diagnose_kernel(&k).next_moves, vec![Advice::LowOccupancy { occupancy_pct: 49.9 }]);
        k.evidence.occupancy_theoretical_pct = Some(50.1);
        assert_eq!(diagnose_kernel(&k).next_moves, vec![Advice::MoreBytesInFlight]);
    }

    /// A compute-bound kernel at 40% of FP32 whose busiest pipe is at `pct`.
    fn with_pipe(pipe: Pipe, pct: f64, bound_by_memory: bool) -> Diagnosis {
        let mut k = if bound_by_memory { memory_kernel(40.0) } else { Kernel::named("k", Origin::Counter) };
        if !bound_by_memory {
            k.flops.insert(FlopKind::Fp32, 400e9);
            k.bytes.insert(MemLevel::Dram, 1e6);
            k.duration_s = Some(1.0);
        }
        k.evidence.pipes.insert(pipe, roofline_model::PipeUse { pct_of_peak: Some(pct), warp_instructions: None });
        diagnose_kernel(&k)
    }

    #[test]
    fn a_busy_pipe_is_named_from_50_percent() {
        assert!(with_pipe(Pipe::Alu, 50.1, false).advises("pipe_work"));
        assert!(!with_pipe(Pipe::Alu, 49.9, false).advises("pipe_work"));
        assert!(with_pipe(Pipe::Alu, 49.9, false).advises("instruction_mix"));
    }

    #[test]
    fn a_busy_pipe_is_advised_under_the_diagonal_from_50_percent() {
        let d = with_pipe(Pipe::Alu, 60.0, true);
        assert_eq!(d.position, Position::UnderDiagonal);
        assert_eq!(d.next_moves, vec![Advice::PipeWork { pipe: Pipe::Alu, pct: 60.0 }]);
        assert_eq!(with_pipe(Pipe::Alu, 40.0, true).next_moves, vec![Advice::MoreBytesInFlight]);
    }

    #[test]
    fn a_kernel_below_its_roof_with_a_pipe_at_75_percent_is_pipe_bound() {
        let d = with_pipe(Pipe::Xu, 75.1, true);
        assert_eq!(d.position, Position::PipeBound);
        assert_eq!(d.next_moves, vec![Advice::PipeWork { pipe: Pipe::Xu, pct: 75.1 }]);
        assert!(d.next_move_text().contains("special functions"));
        assert_eq!(with_pipe(Pipe::Xu, 74.9, true).position, Position::UnderDiagonal);
        // A compute-bound kernel keeps the FLOP frame, with the pipe's advice.
        let d = with_pipe(Pipe::Lsu, 80.0, false);
        assert_eq!(d.position, Position::UnderFlatRoof);
        assert!(d.advises("pipe_work"));
    }

    #[test]
    fn every_pipe_has_its_own_advice() {
        let texts: Vec<String> = Pipe::ALL.iter().map(|p| pipe_advice(*p, 80.0)).collect();
        for (i, a) in texts.iter().enumerate() {
            for b in &texts[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn the_clock_is_named_from_3_percent_below_the_maximum() {
        let mut m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        m.ceilings[0].clock.sm_mhz = Some(1980.0);
        let mut k = Kernel::named("k", Origin::Counter);
        k.flops.insert(FlopKind::Fp32, 800e9);
        k.bytes.insert(MemLevel::Dram, 1e6);
        k.duration_s = Some(1.0);
        k.evidence.max_sm_clock_hz = Some(1.98e9);
        // A GEMM at 1.70 GHz loses 14% to the clock alone.
        k.evidence.sm_clock_hz = Some(1.70e9);
        let d = analyze_kernel(&m, &k).diagnosis.unwrap();
        let (loss, gap) = d
            .evidence
            .iter()
            .find_map(|f| match f {
                Finding::ClockBelowMax { loss_pct, gap_share_pct, .. } => Some((*loss_pct, *gap_share_pct)),
                _ => None,
            })
            .expect("the clock finding");
        assert!((loss - 100.0 * (1.0 - 1.70 / 1.98)).abs() < 1e-9 && (loss - 14.14).abs() < 0.01);
        // 80% of a roof quoted at 1.98 GHz: the 20-point gap is 14.1 points clock.
        assert!((gap.unwrap() - 100.0 * loss / 20.0).abs() < 1e-9);
        assert!(d.advises("clock"));
        k.evidence.sm_clock_hz = Some(1.98e9 * 0.971);
        assert!(!analyze_kernel(&m, &k).diagnosis.unwrap().has("clock_below_max"));
        k.evidence.sm_clock_hz = Some(1.98e9 * 0.969);
        assert!(analyze_kernel(&m, &k).diagnosis.unwrap().has("clock_below_max"));
    }

    #[test]
    fn findings_and_advice_render_from_their_codes() {
        let f = Finding::SectorUse { access: Access::Store, bytes_per_sector: 8.0, wasted_share_pct: Some(0.01) };
        assert_eq!(f.code(), "sector_use");
        assert_eq!(
            f.text(),
            "store 8.0 of 32 bytes used per sector; the unused bytes are 0.010% of the global sectors"
        );
        let a = Advice::Coalesce { access: Access::Load, bytes_per_sector: 4.0, wasted_share_pct: 77.8 };
        assert_eq!(a.code(), "coalesce");
        assert!(a.text().starts_with("loads use only 4.0 of every 32-byte sector, wasting 78% of the global sectors"));
        let v = serde_json::to_value(&f).unwrap();
        assert_eq!(v["code"], "sector_use");
        assert_eq!(serde_json::from_value::<Finding>(v).unwrap(), f);
    }

    #[test]
    fn the_json_carries_each_entrys_english_beside_its_code() {
        let f = Finding::SectorUse { access: Access::Load, bytes_per_sector: 4.0, wasted_share_pct: Some(12.0) };
        let a = Advice::LowOccupancy { occupancy_pct: 25.0 };
        let d = Diagnosis { position: Position::UnderDiagonal, evidence: vec![f.clone()], next_moves: vec![a.clone()] };
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(v["evidence"][0]["code"], "sector_use");
        assert_eq!(
            v["evidence"][0]["text"],
            "load 4.0 of 32 bytes used per sector; the unused bytes are 12% of the global sectors"
        );
        assert_eq!(v["next_moves"][0]["code"], "low_occupancy");
        assert_eq!(v["next_moves"][0]["text"], "occupancy is only 25%, so fewer loads are in flight");
        // Reading ignores the text and makes it again from the code.
        assert_eq!(serde_json::from_value::<Diagnosis>(v).unwrap(), d);
    }

    #[test]
    fn positions_have_their_labels() {
        let labels = [
            (Position::OnDiagonal, "on the diagonal"),
            (Position::UnderDiagonal, "under the diagonal"),
            (Position::OnRoof, "on the roof"),
            (Position::UnderFlatRoof, "under the flat roof"),
            (Position::PipeBound, "pipe-bound"),
            (Position::LatencyBound, "latency-bound"),
        ];
        for (p, l) in labels {
            assert_eq!(p.label(), l);
        }
    }

    #[test]
    fn small_shares_keep_two_significant_digits() {
        assert_eq!(share(0.01), "0.010%");
        assert_eq!(share(0.0075), "0.0075%");
        assert_eq!(share(0.05), "0.050%");
        assert_eq!(share(0.1), "0.1%");
        assert_eq!(share(0.0), "0.0%");
        assert_eq!(share(12.3), "12%");
    }

    #[test]
    fn thresholds_hold_at_their_exact_values() {
        // At exactly 75% a kernel is on its roof; at exactly 30% it is not latency-bound.
        assert_eq!(diagnose_kernel(&memory_kernel(75.0)).position, Position::OnDiagonal);
        assert_eq!(diagnose_kernel(&memory_kernel(30.0)).position, Position::UnderDiagonal);
        // 24 useful bytes per sector is not wasteful; 10% of the traffic is.
        assert!(!wasteful(24.0, 1.0).advises("coalesce"));
        assert!(wasteful(16.0, 0.2).advises("coalesce"));
        // 50% occupancy is not low.
        let mut k = memory_kernel(50.0);
        k.evidence.occupancy_theoretical_pct = Some(50.0);
        assert!(!diagnose_kernel(&k).advises("low_occupancy"));
        // A tail that idles exactly 10% is named; 2.0 waves have no tail.
        k.evidence.sm_count = Some(100.0);
        k.evidence.blocks_per_sm = Some(1.0);
        k.evidence.grid_size = Some(450.0); // 4.5 waves: 0.5 / 5
        assert!(diagnose_kernel(&k).has("tail_wave"));
        k.evidence.grid_size = Some(200.0);
        assert!(!diagnose_kernel(&k).has("tail_wave"));
        // No grid at all names nothing.
        k.evidence.grid_size = Some(0.0);
        assert!(!diagnose_kernel(&k).has("grid_below_one_wave"));
    }

    #[test]
    fn without_the_slot_count_the_profilers_waves_are_used() {
        let mut k = memory_kernel(50.0);
        k.evidence.waves = Some(0.5);
        k.evidence.grid_size = Some(100.0);
        let d = diagnose_kernel(&k);
        assert!(d.advises("fill_the_gpu"));
        assert!(d.next_moves.contains(&Advice::FillTheGpu { blocks: 100.0, slots: 200.0 }));
        k.evidence.waves = Some(1.5);
        let tail = diagnose_kernel(&k);
        assert!(tail.evidence.iter().any(|f| matches!(f, Finding::TailWave { waves, .. } if *waves == 1.5)));
    }

    #[test]
    fn a_zero_slot_count_falls_back_to_the_profilers_waves() {
        // A capture that reads 0 SMs or 0 blocks per SM has no slot count:
        // the grid is placed by ncu's own waves, not divided by zero.
        for (sms, blocks_per_sm) in [(0.0, 2.0), (100.0, 0.0)] {
            let mut k = memory_kernel(50.0);
            k.evidence.sm_count = Some(sms);
            k.evidence.blocks_per_sm = Some(blocks_per_sm);
            k.evidence.grid_size = Some(100.0);
            k.evidence.waves = Some(0.5);
            let d = diagnose_kernel(&k);
            assert!(
                d.next_moves.contains(&Advice::FillTheGpu { blocks: 100.0, slots: 200.0 }),
                "{sms} {blocks_per_sm}: {d:?}"
            );
        }
    }

    #[test]
    fn a_store_only_waste_of_a_kernel_that_loads_nothing_is_all_its_traffic() {
        // ncu reports 0 bytes per sector for a direction with no accesses.
        let mut k = memory_kernel(60.0);
        k.evidence.global_load_bytes_per_sector = Some(0.0);
        k.evidence.global_store_bytes_per_sector = Some(8.0);
        let d = diagnose_kernel(&k);
        assert!(d.next_moves.contains(&Advice::Coalesce {
            access: Access::Store,
            bytes_per_sector: 8.0,
            wasted_share_pct: 75.0
        }));
        // Sector counts that are both zero give no share.
        k.evidence.global_load_bytes_per_sector = Some(4.0);
        k.evidence.global_load_sectors = Some(0.0);
        k.evidence.global_store_sectors = Some(0.0);
        assert!(diagnose_kernel(&k).advises("check_coalescing"));
    }

    #[test]
    fn ncu_excess_sectors_carry_their_share() {
        let mut k = memory_kernel(60.0);
        k.evidence.global_load_bytes_per_sector = Some(4.0);
        k.evidence.excessive_sectors = Some(700.0);
        // One direction: the share is the loads' own waste.
        let d = diagnose_kernel(&k);
        assert!(d.evidence.contains(&Finding::ExcessSectors { sectors: 700.0, share_pct: Some(87.5) }));
        k.evidence.global_load_sectors = Some(800.0);
        k.evidence.global_store_sectors = Some(200.0);
        let d = diagnose_kernel(&k);
        assert!(d.evidence.contains(&Finding::ExcessSectors { sectors: 700.0, share_pct: Some(70.0) }));
        assert!(d.evidence_lines().iter().any(|l| l.contains("700 excess L2 sectors (22.4 kB)") && l.contains("70%")));
    }

    #[test]
    fn excess_sectors_are_a_share_of_the_counted_global_sectors() {
        let excess_share = |load: (f64, f64), store: (Option<f64>, f64), excess: f64| {
            let mut k = memory_kernel(50.0);
            k.evidence.global_load_bytes_per_sector = Some(load.0);
            k.evidence.global_load_sectors = Some(load.1);
            k.evidence.global_store_bytes_per_sector = store.0;
            k.evidence.global_store_sectors = Some(store.1);
            k.evidence.excessive_sectors = Some(excess);
            diagnose_kernel(&k).evidence.into_iter().find_map(|f| match f {
                Finding::ExcessSectors { share_pct, .. } => Some(share_pct),
                _ => None,
            })
        };
        // 500 excess of 1000 sectors is 50%, whatever the bytes per sector
        // say (16 of 32 bytes on 80% of the sectors would be 40%).
        assert_eq!(excess_share((16.0, 800.0), (Some(32.0), 200.0), 500.0), Some(Some(50.0)));
        assert_eq!(excess_share((32.0, 200.0), (Some(16.0), 800.0), 500.0), Some(Some(50.0)));
        assert_eq!(excess_share((24.0, 1000.0), (None, 0.0), 500.0), Some(Some(50.0)));
        // No sectors counted: the bytes per sector give the share (loads alone, 4 of 32).
        assert_eq!(excess_share((4.0, 0.0), (None, 0.0), 700.0), Some(Some(87.5)));
        // No excess: nothing to name.
        assert_eq!(excess_share((16.0, 800.0), (Some(32.0), 200.0), 0.0), None);
    }

    #[test]
    fn sector_use_is_evidence_only_under_24_bytes_per_sector() {
        let sector_use = |load_bps: f64| {
            let mut k = memory_kernel(50.0);
            k.evidence.global_load_bytes_per_sector = Some(load_bps);
            k.evidence.global_store_bytes_per_sector = Some(32.0);
            diagnose_kernel(&k).has("sector_use")
        };
        assert!(sector_use(23.9));
        assert!(!sector_use(24.0));
        assert!(!sector_use(32.0));
    }

    #[test]
    fn bank_conflicts_are_weighed_by_the_wavefronts() {
        let mut k = memory_kernel(50.0);
        k.evidence.shared_bank_conflicts = Some(99.0);
        k.evidence.shared_wavefronts = Some(1000.0);
        let d = diagnose_kernel(&k);
        assert!(d.evidence.contains(&Finding::BankConflicts { conflicts: 99.0, share_pct: Some(9.9) }));
        assert!(!d.advises("avoid_bank_conflicts"));
        k.evidence.shared_bank_conflicts = Some(100.0);
        assert!(diagnose_kernel(&k).next_moves.contains(&Advice::AvoidBankConflicts { share_pct: 10.0 }));
        // Compute-bound kernels get the advice too.
        let mut c = Kernel::named("k", Origin::Counter);
        c.flops.insert(FlopKind::Fp32, 400e9);
        c.bytes.insert(MemLevel::Dram, 1e6);
        c.duration_s = Some(1.0);
        c.evidence.shared_bank_conflicts = Some(500.0);
        c.evidence.shared_wavefronts = Some(1000.0);
        assert!(diagnose_kernel(&c).advises("avoid_bank_conflicts"));
        c.evidence.shared_wavefronts = Some(0.0);
        let d = diagnose_kernel(&c);
        assert!(!d.advises("avoid_bank_conflicts"));
        assert!(d.evidence.contains(&Finding::BankConflicts { conflicts: 500.0, share_pct: None }));
    }

    #[test]
    fn a_busy_pipe_or_the_profilers_sm_throughput_vetoes_latency_bound() {
        let mut k = memory_kernel(10.0);
        k.evidence
            .pipes
            .insert(Pipe::Lsu, roofline_model::PipeUse { pct_of_peak: Some(30.0), warp_instructions: None });
        assert_ne!(diagnose_kernel(&k).position, Position::LatencyBound);
        k.evidence
            .pipes
            .insert(Pipe::Lsu, roofline_model::PipeUse { pct_of_peak: Some(29.9), warp_instructions: None });
        let d = diagnose_kernel(&k);
        assert_eq!(d.position, Position::LatencyBound);
        assert!(!d.has("busy_pipe"), "a pipe under 30% is not evidence");
        k.evidence.dram_throughput_pct = Some(30.0);
        assert_ne!(diagnose_kernel(&k).position, Position::LatencyBound);
    }

    #[test]
    fn a_grid_that_idles_most_of_the_gpu_is_the_first_latency_move() {
        let mut k = memory_kernel(5.0);
        k.evidence.sm_count = Some(100.0);
        k.evidence.blocks_per_sm = Some(4.0);
        k.evidence.grid_size = Some(100.0); // 75% idle
        let d = diagnose_kernel(&k);
        assert_eq!(d.position, Position::LatencyBound);
        assert_eq!(d.next_moves[0], Advice::FillTheGpu { blocks: 100.0, slots: 400.0 });
        k.evidence.grid_size = Some(300.0); // 25% idle: after the latency reading
        let d = diagnose_kernel(&k);
        assert_eq!(d.next_moves[0], Advice::WaitOnLatency);
        assert_eq!(d.next_moves[1], Advice::FillTheGpu { blocks: 300.0, slots: 400.0 });
        assert_eq!(d.next_moves.last(), Some(&Advice::MoreIndependentWork));
        k.evidence.grid_size = Some(200.0); // exactly half
        assert_eq!(diagnose_kernel(&k).next_moves[0], Advice::FillTheGpu { blocks: 200.0, slots: 400.0 });
    }

    #[test]
    fn the_issue_slots_are_named_from_75_percent() {
        let mut k = memory_kernel(50.0);
        k.evidence
            .pipes
            .insert(Pipe::Issue, roofline_model::PipeUse { pct_of_peak: Some(75.0), warp_instructions: None });
        let d = diagnose_kernel(&k);
        assert!(d.evidence.contains(&Finding::IssueBusy { pct: 75.0 }));
        k.evidence
            .pipes
            .insert(Pipe::Issue, roofline_model::PipeUse { pct_of_peak: Some(74.9), warp_instructions: None });
        assert!(!diagnose_kernel(&k).has("issue_busy"));
    }

    #[test]
    fn a_level_beyond_dram_gets_its_own_advice_on_the_diagonal() {
        let mut m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        m.ceilings.push(roofline_model::Ceiling::new(
            roofline_model::Resource::Memory(MemLevel::L2),
            "L2",
            50e9,
            roofline_model::Provenance::new(Origin::User, "x"),
        ));
        let mut k = memory_kernel(10.0);
        k.bytes.insert(MemLevel::L2, 40e9 * k.duration_s.unwrap());
        k.evidence.global_load_bytes_per_sector = Some(4.0);
        k.evidence.global_store_bytes_per_sector = Some(32.0);
        let d = analyze_kernel(&m, &k).diagnosis.unwrap();
        assert_eq!(d.position, Position::OnDiagonal);
        assert_eq!(d.next_moves[0], Advice::CloserLevel { level: MemLevel::L2 });
        // The waste whose share is unknown follows as a conditional move.
        assert_eq!(d.next_moves[1], Advice::CheckCoalescing { access: Access::Load, bytes_per_sector: 4.0 });
        let d = diagnose_kernel(&memory_kernel(90.0));
        assert_eq!(d.next_moves, vec![Advice::RaiseIntensity]);
    }

    #[test]
    fn compute_bound_kernels_get_advice_for_their_kind_and_machine() {
        let tensor_machine = || {
            let mut m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
            m.ceilings.push(roofline_model::Ceiling::new(
                roofline_model::Resource::Compute(FlopKind::TensorBf16),
                "BF16 tensor",
                1e15,
                roofline_model::Provenance::new(Origin::User, "x"),
            ));
            m
        };
        let fp32 = |sm: Option<f64>| {
            let mut k = Kernel::named("k", Origin::Counter);
            k.flops.insert(FlopKind::Fp32, 400e9);
            k.bytes.insert(MemLevel::Dram, 1e6);
            k.duration_s = Some(1.0);
            k.evidence.sm_throughput_pct = sm;
            k
        };
        let plain = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        let d = analyze_kernel(&plain, &fp32(None)).diagnosis.unwrap();
        assert_eq!(d.next_moves, vec![Advice::InstructionMix]);
        let d = analyze_kernel(&tensor_machine(), &fp32(None)).diagnosis.unwrap();
        assert_eq!(d.next_moves, vec![Advice::InstructionMix, Advice::UseTensorCores]);
        // SM busy without pipe counters to say with what.
        let d = analyze_kernel(&plain, &fp32(Some(60.0))).diagnosis.unwrap();
        assert_eq!(d.next_moves, vec![Advice::SmBusyNotFlops { pct: 60.0 }]);
        let d = analyze_kernel(&plain, &fp32(Some(59.9))).diagnosis.unwrap();
        assert_eq!(d.next_moves, vec![Advice::InstructionMix]);
        // A tensor kernel below its peak.
        let mut t = Kernel::named("t", Origin::Counter);
        t.flops.insert(FlopKind::TensorBf16, 4e14);
        t.bytes.insert(MemLevel::Dram, 1e6);
        t.duration_s = Some(1.0);
        t.evidence.sm_count = Some(100.0);
        t.evidence.blocks_per_sm = Some(1.0);
        t.evidence.grid_size = Some(150.0);
        let d = analyze_kernel(&tensor_machine(), &t).diagnosis.unwrap();
        assert_eq!(d.position, Position::UnderFlatRoof);
        assert_eq!(d.next_moves[0], Advice::FeedTensorCores);
        assert!(d.advises("balance_waves"), "{d:?}");
        assert!(!d.advises("use_tensor_cores"));
    }

    #[test]
    fn the_clock_is_not_named_for_dram_bound_kernels_nor_against_counter_peaks() {
        let mut m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        m.gpu.sm_clock_mhz = Some(1980.0);
        let mut k = memory_kernel(50.0);
        k.evidence.sm_clock_hz = Some(1.5e9);
        k.evidence.max_sm_clock_hz = Some(1.98e9);
        assert!(!analyze_kernel(&m, &k).diagnosis.unwrap().has("clock_below_max"));
        // A compute-bound kernel, the maximum from the machine's own clock.
        let mut c = Kernel::named("k", Origin::Counter);
        c.flops.insert(FlopKind::Fp32, 400e9);
        c.bytes.insert(MemLevel::Dram, 1e6);
        c.duration_s = Some(1.0);
        c.evidence.sm_clock_hz = Some(1.5e9);
        let d = analyze_kernel(&m, &c).diagnosis.unwrap();
        assert_eq!(d.position, Position::UnderFlatRoof);
        assert!(d.has("clock_below_max") && d.advises("clock"));
        // No roof clock: no share of the gap.
        assert!(d.evidence.iter().any(|f| matches!(f, Finding::ClockBelowMax { gap_share_pct: None, .. })));
        // Counter peaks are at the kernel's own clock, not a maximum.
        m.ceilings[0].provenance.origin = Origin::Counter;
        assert!(!analyze_kernel(&m, &c).diagnosis.unwrap().has("clock_below_max"));
        // Above the max-clock roof there is no gap to share.
        let mut m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        m.ceilings[0].clock.sm_mhz = Some(1980.0);
        c.flops.insert(FlopKind::Fp32, 999e9);
        c.evidence.max_sm_clock_hz = Some(1.98e9);
        let d = analyze_kernel(&m, &c).diagnosis.unwrap();
        assert!(d
            .evidence
            .iter()
            .any(|f| matches!(f, Finding::ClockBelowMax { gap_share_pct: Some(g), .. } if *g == 100.0)));
    }

    #[test]
    fn a_zero_clock_names_nothing_and_a_kernel_at_the_max_clock_roof_has_no_gap_to_share() {
        let mut m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        m.ceilings[0].clock.sm_mhz = Some(1980.0);
        let mut c = Kernel::named("k", Origin::Counter);
        c.flops.insert(FlopKind::Fp32, 400e9);
        c.bytes.insert(MemLevel::Dram, 1e6);
        c.duration_s = Some(1.0);
        c.evidence.max_sm_clock_hz = Some(1.98e9);
        // A capture whose SM clock reads 0 has no clock, not a 100% loss.
        c.evidence.sm_clock_hz = Some(0.0);
        assert!(!analyze_kernel(&m, &c).diagnosis.unwrap().has("clock_below_max"));
        let gap_share = |m: &Machine, k: &Kernel| {
            analyze_kernel(m, k).diagnosis.unwrap().evidence.iter().find_map(|f| match f {
                Finding::ClockBelowMax { gap_share_pct, .. } => Some(*gap_share_pct),
                _ => None,
            })
        };
        // Exactly at the roof quoted at the maximum clock: no gap to share.
        c.evidence.sm_clock_hz = Some(1.5e9);
        c.flops.insert(FlopKind::Fp32, 1000e9);
        assert_eq!(gap_share(&m, &c), Some(None));
        // A roof quoted at no clock (0 MHz) gives no share either.
        c.flops.insert(FlopKind::Fp32, 400e9);
        m.ceilings[0].clock.sm_mhz = Some(0.0);
        assert_eq!(gap_share(&m, &c), Some(None));
    }

    #[test]
    fn the_busy_pipe_says_when_its_figure_is_the_profilers() {
        // An XU roof of 1e11 warp instructions/s, and 8e10 of them in 1 s: 80% of it.
        let mut m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        m.ceilings.push(roofline_model::Ceiling::new(
            roofline_model::Resource::Instruction(Pipe::Xu),
            "MUFU",
            1e11,
            roofline_model::Provenance::new(Origin::Measured, "benchmark xu"),
        ));
        let busy = |counter: f64| {
            let mut k = Kernel::named("k", Origin::Counter);
            k.flops.insert(FlopKind::Fp32, 400e9);
            k.bytes.insert(MemLevel::Dram, 1e6);
            k.duration_s = Some(1.0);
            k.evidence.pipes.insert(
                Pipe::Xu,
                roofline_model::PipeUse { pct_of_peak: Some(counter), warp_instructions: Some(8e10) },
            );
            analyze_kernel(&m, &k).diagnosis.unwrap().evidence.into_iter().find_map(|f| match f {
                Finding::BusyPipe { pct, of_counter, .. } => Some((pct, of_counter)),
                _ => None,
            })
        };
        assert_eq!(busy(90.0), Some((90.0, true)), "the profiler's busy cycles are the larger figure");
        assert_eq!(busy(70.0), Some((80.0, false)));
        assert_eq!(busy(80.0), Some((80.0, false)), "when they agree the roof's figure is quoted");
    }

    /// A measured machine whose write-only streaming (110 GB/s) beats its
    /// read roof (100 GB/s), with a 1000 GB/s L2: the mix roof of a
    /// write-only kernel is above its DRAM roof.
    fn faster_write_machine() -> Machine {
        let mut m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        let measured = |id: &str| roofline_model::Provenance::new(Origin::Measured, format!("benchmark {id}: x"));
        let dram = roofline_model::Resource::Memory(MemLevel::Dram);
        m.ceilings[1] = roofline_model::Ceiling::new(dram, "dram.read", 100e9, measured("dram.read"));
        m.ceilings.push(roofline_model::Ceiling::new(dram, "dram.write", 110e9, measured("dram.write")).secondary());
        m.ceilings.push(roofline_model::Ceiling::new(
            roofline_model::Resource::Memory(MemLevel::L2),
            "L2",
            1000e9,
            measured("l2"),
        ));
        m
    }

    /// A write-only kernel of `flops` moving 31 GB of DRAM in 1 s: 31% of
    /// the DRAM roof, 28% of the write mix roof.
    fn write_only(flops: f64) -> Kernel {
        let mut k = Kernel::named("k", Origin::Counter);
        k.flops.insert(FlopKind::Fp32, flops);
        k.bytes.insert(MemLevel::Dram, 31e9);
        k.duration_s = Some(1.0);
        k.evidence.dram_read_bytes = Some(0.0);
        k.evidence.dram_write_bytes = Some(31e9);
        k
    }

    #[test]
    fn thirty_percent_of_the_compute_peak_vetoes_latency_bound_under_a_faster_mix_roof() {
        // 300 GFLOP in 1 s, just below the ridge: exactly 30% of the FP32 peak.
        let a = analyze_kernel(&faster_write_machine(), &write_only(300e9));
        assert_eq!(a.limiter, Some(Limiter::Bandwidth(MemLevel::Dram)));
        assert!(a.judged_pct().unwrap() < LATENCY_PCT, "{:?}", a.pct_of_mix_roof);
        assert_eq!(100.0 * a.achieved_flops_per_s.unwrap() / a.compute_roof_flops_per_s.unwrap(), 30.0);
        assert_eq!(a.diagnosis.unwrap().position, Position::UnderDiagonal);
    }

    #[test]
    fn thirty_percent_of_any_bandwidth_vetoes_latency_bound() {
        // DRAM limits at 28% of the mix roof while L2 moves exactly 30% of its bandwidth.
        let mut k = write_only(1e9);
        k.bytes.insert(MemLevel::L2, 300e9);
        let a = analyze_kernel(&faster_write_machine(), &k);
        assert_eq!(a.limiter, Some(Limiter::Bandwidth(MemLevel::Dram)));
        assert!(a.judged_pct().unwrap() < LATENCY_PCT);
        assert_eq!(a.level(MemLevel::L2).unwrap().pct_of_bandwidth, Some(30.0));
        assert_eq!(a.diagnosis.unwrap().position, Position::UnderDiagonal);
        // Without the L2 traffic the same kernel waits on latency.
        k.bytes.remove(&MemLevel::L2);
        assert_eq!(analyze_kernel(&faster_write_machine(), &k).diagnosis.unwrap().position, Position::LatencyBound);
    }

    #[test]
    fn a_kernel_at_exactly_30_percent_of_its_roof_is_not_latency_bound() {
        // 0.3 GFLOP over 23 GB in 23/30 s: exactly 30.0% of the DRAM roof.
        let m = Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9);
        let mut k = Kernel::named("k", Origin::Counter);
        k.flops.insert(FlopKind::Fp32, 0.3e9);
        k.bytes.insert(MemLevel::Dram, 23e9);
        k.duration_s = Some(23e9 / 30e9);
        let a = analyze_kernel(&m, &k);
        assert_eq!(a.pct_of_roof, Some(30.0));
        assert_eq!(a.diagnosis.unwrap().position, Position::UnderDiagonal);
    }

    #[test]
    fn the_speed_of_light_vetoes_latency_bound_from_exactly_30_percent() {
        let mut k = memory_kernel(10.0);
        k.evidence.sm_throughput_pct = Some(30.0);
        assert_eq!(diagnose_kernel(&k).position, Position::UnderDiagonal);
        k.evidence.sm_throughput_pct = None;
        k.evidence.dram_throughput_pct = Some(29.9);
        assert_eq!(diagnose_kernel(&k).position, Position::LatencyBound);
    }

    #[test]
    fn stalls_are_named_for_latency_bound_kernels_and_compute_bound_ones_below_the_roof() {
        let stalled = |mut k: Kernel| {
            k.evidence.stalls = [("long_scoreboard".to_string(), 4.0)].into();
            diagnose_kernel(&k).has("stalls")
        };
        let compute = |flops: f64| {
            let mut k = Kernel::named("k", Origin::Counter);
            k.flops.insert(FlopKind::Fp32, flops);
            k.bytes.insert(MemLevel::Dram, 1e6);
            k.duration_s = Some(1.0);
            k
        };
        assert!(stalled(memory_kernel(5.0)), "latency-bound");
        assert!(stalled(compute(400e9)), "compute-bound at 40%");
        assert!(!stalled(compute(750e9)), "compute-bound at exactly 75%: on the roof");
        assert!(!stalled(compute(800e9)), "on the roof");
        assert!(!stalled(memory_kernel(50.0)), "memory-bound: the traffic explains the time");
    }

    #[test]
    fn a_latency_bound_kernel_is_pointed_at_its_occupancy_limiter_below_100_percent() {
        let mut k = memory_kernel(5.0);
        k.evidence.occupancy_limiter = Some("registers".into());
        k.evidence.occupancy_theoretical_pct = Some(50.0);
        let d = diagnose_kernel(&k);
        assert_eq!(d.next_moves[1], Advice::OccupancyLimited { limiter: "registers".into(), hint: None });
        k.evidence.occupancy_theoretical_pct = Some(100.0);
        assert!(!diagnose_kernel(&k).advises("occupancy_limited"), "full occupancy limits nothing");
    }

    #[test]
    fn a_kernel_exactly_on_the_diagonal_is_not_pipe_bound() {
        // No FLOPs, 75 GB in 1 s: exactly 75% of the DRAM roof, beside an XU pipe at 80%.
        let mut k = Kernel::named("k", Origin::Counter);
        k.bytes.insert(MemLevel::Dram, 75e9);
        k.duration_s = Some(1.0);
        k.evidence.pipes.insert(Pipe::Xu, roofline_model::PipeUse { pct_of_peak: Some(80.0), warp_instructions: None });
        let a = analyze_kernel(&Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9), &k);
        assert_eq!(a.pct_of_roof, Some(75.0));
        assert_eq!(a.diagnosis.unwrap().position, Position::OnDiagonal);
    }

    #[test]
    fn zero_bank_conflicts_are_not_evidence() {
        let mut k = memory_kernel(50.0);
        k.evidence.shared_bank_conflicts = Some(0.0);
        k.evidence.shared_wavefronts = Some(1000.0);
        assert!(!diagnose_kernel(&k).has("bank_conflicts"));
    }

    #[test]
    fn unknown_fp16_packing_is_named_for_kernels_with_fp16_flops() {
        let with = |packed: f64, fp16_flops: f64, packing: roofline_model::Fp16Packing| {
            let mut k = memory_kernel(50.0);
            k.flops.insert(FlopKind::Fp16, fp16_flops);
            k.evidence.fp16 = Some(roofline_model::Fp16Accounting {
                packed_flops: packed,
                scalar_flops: packed / 2.0,
                packing,
                constant_moves: None,
            });
            diagnose_kernel(&k)
        };
        use roofline_model::Fp16Packing::{Counted, Unknown};
        let d = with(4000.0, 4000.0, Unknown);
        assert!(d.evidence.contains(&Finding::Fp16PackingUnknown { packed_flops: 4000.0, scalar_flops: 2000.0 }));
        assert!(!with(0.0, 4000.0, Unknown).has("fp16_packing_unknown"), "no half instructions");
        assert!(!with(4000.0, 0.0, Unknown).has("fp16_packing_unknown"), "no FP16 FLOPs left (constant moves)");
        let counted = Counted { packed_share: 1.0, source: "x".into() };
        assert!(!with(4000.0, 4000.0, counted).has("fp16_packing_unknown"), "a counter told them apart");
    }

    #[test]
    fn a_launch_of_exactly_10_us_is_not_too_short() {
        // 50% of 100 GB/s, one launch.
        let at = |seconds: f64| {
            let mut k = Kernel::named("k", Origin::Counter);
            k.bytes.insert(MemLevel::Dram, 0.5 * 100e9 * seconds);
            k.flops.insert(FlopKind::Fp32, 0.5 * 100e9 * seconds / 12.0);
            k.duration_s = Some(seconds);
            diagnose_kernel(&k)
        };
        assert_eq!(at(10e-6).position, Position::UnderDiagonal);
        assert!(!at(10e-6).advises("longer_launches"));
        assert!(at(9.99e-6).advises("longer_launches"));
    }

    #[test]
    fn the_two_main_stalls_are_named_in_order() {
        let mut k = memory_kernel(5.0);
        k.evidence.stalls = [
            ("wait".to_string(), 2.0),
            ("long_scoreboard".to_string(), 40.0),
            ("barrier".to_string(), 0.0),
            ("mio".to_string(), 1.0),
        ]
        .into();
        let d = diagnose_kernel(&k);
        let top = d.evidence.iter().find_map(|f| match f {
            Finding::Stalls { top } => Some(top.clone()),
            _ => None,
        });
        let top = top.expect("stalls");
        assert_eq!(top.iter().map(|s| s.reason.as_str()).collect::<Vec<_>>(), ["long_scoreboard", "wait"]);
        assert_eq!(top[0].cycles_per_instruction, 40.0);
        k.evidence.stalls = [("barrier".to_string(), 0.0)].into();
        assert!(!diagnose_kernel(&k).has("stalls"));
    }

    #[test]
    fn the_mix_finding_names_its_benchmarks() {
        let between = Finding::PctOfMixRoof {
            pct: 95.0,
            bytes_per_s: 4.2e12,
            read_share_pct: 60.0,
            lower: "dram.copy".into(),
            upper: "dram.add".into(),
        };
        assert!(
            between.text().ends_with("interpolated between the dram.copy and dram.add benchmarks"),
            "{}",
            between.text()
        );
        let at = Finding::PctOfMixRoof {
            pct: 95.0,
            bytes_per_s: 4.2e12,
            read_share_pct: 100.0,
            lower: "dram.read".into(),
            upper: "dram.read".into(),
        };
        assert!(at.text().ends_with("the dram.read benchmark"), "{}", at.text());
    }

    #[test]
    fn sms_idle_a_tenth_of_the_time_are_named() {
        let mut k = memory_kernel(50.0);
        k.evidence.sm_active_pct = Some(90.0);
        let d = diagnose_kernel(&k);
        assert!(d.evidence.contains(&Finding::SmsIdle { active_pct: 90.0 }));
        assert!(d.evidence_lines().iter().any(|l| l.starts_with("the SMs were active 90% of the elapsed time")));
        k.evidence.sm_active_pct = Some(90.1);
        assert!(!diagnose_kernel(&k).has("sms_idle"));
    }
}
