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
//! | latency-bound | < 60% of the roof, of every bandwidth and of every pipe (Nsight Compute's speed-of-light rule); < 30% for a compute-bound kernel held by a FLOP pipe; not a streaming kernel whose busiest memory level is >= 35% with a grid of at least one wave (under the diagonal) | occupancy, stalls |
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

use roofline_model::{format_si, Evidence, FlopKind, Machine, MemLevel, Origin as Provenance, Pipe, Unit as Unit2};

use crate::findings::*;
use crate::kernel_analysis::KernelAnalysis;
use crate::levels::{Bound, Limiter};
use crate::limiter::{binding, units, Unit};
use crate::origin::{fp32_operands, origin, Library, Origin, Role};
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
}

/// The GPU's block slots for this kernel (SMs x resident blocks per SM).
fn slots(ev: &Evidence) -> Option<f64> {
    match (ev.sm_count, ev.blocks_per_sm) {
        (Some(s), Some(b)) if s > 0.0 && b > 0.0 => Some(s * b),
        _ => None,
    }
}

/// The grid in waves: from the grid and the slots when both are known (ncu
/// prints `launch__waves_per_multiprocessor` with two decimals only).
fn waves(ev: &Evidence) -> Option<f64> {
    match (ev.grid_size, slots(ev)) {
        (Some(g), Some(s)) => Some(g / s),
        _ => ev.waves,
    }
    .filter(|w| *w > 0.0 && w.is_finite())
}

/// The share of the block slots' time a grid of `waves` leaves idle: all
/// but its share under one wave, else the tail wave's idle slots over the
/// whole waves.
fn idle_share(waves: f64) -> f64 {
    if waves < 1.0 {
        1.0 - waves
    } else {
        (waves.ceil() - waves) / waves.ceil()
    }
}

/// An FP32 GEMM or convolution on the CUDA cores: FP32 FLOPs (FFMA), no
/// tensor-core FLOPs, FP32 operands by its name.
/// The share of the issue slots' busy time the FP32 pipe must reach for an
/// FFMA GEMM's issue slots to follow it: FFMA at least half of what issues
/// (DLRM's 64x64 FFMA GEMM: 63% of its issue; GPyTorch's K=5 distance GEMM,
/// whose 1 GB of stores hold the slots: 42%).
const FFMA_SHARE_OF_ISSUE: f64 = 0.5;

fn cuda_core_fp32(a: &KernelAnalysis, o: Origin) -> bool {
    matches!(o.role, Role::Gemm | Role::Convolution)
        && a.kernel.dominant_kind() == Some(FlopKind::Fp32)
        && no_tensor_work(a)
        && fp32_operands(&a.kernel.name)
}

/// A 16-bit convolution run by a single-precision CUDA-core kernel (by its
/// name: `sgemm` or `simt` on 16-bit operands) with FP32 FLOPs and no
/// tensor-core work: the library ran a CUDA-core kernel for a tensor-core
/// dtype.
fn cuda_core_16bit_conv(a: &KernelAnalysis, o: Origin) -> bool {
    let lower = a.kernel.name.to_ascii_lowercase();
    o.role == Role::Convolution
        && (lower.contains("sgemm") || lower.contains("simt"))
        && ["bf16", "bfloat16", "half", "f16"].iter().any(|t| lower.contains(t))
        && a.kernel.flops.get(&FlopKind::Fp32).is_some_and(|f| *f > 0.0)
        && no_tensor_work(a)
}

/// No tensor-core FLOPs, and the tensor pipe idle (under
/// [`TENSOR_IDLE_PCT`]) where counted.
fn no_tensor_work(a: &KernelAnalysis) -> bool {
    !a.kernel.flops.iter().any(|(k, f)| k.is_tensor() && *f > 0.0)
        && !a.kernel.evidence.pipe_busy_pct.get(&Pipe::Tensor).is_some_and(|p| *p >= TENSOR_IDLE_PCT)
}

/// Block slots left idle by the launch shape: a grid under one wave, or a
/// tail wave. (finding, advice) when at least IDLE_SLOTS_PCT are idle.
fn launch_shape(ev: &Evidence) -> Option<(Finding, Advice)> {
    let slots_known = slots(ev);
    let waves = waves(ev)?;
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
    let counter_machine = machine.ceilings.iter().any(|c| c.provenance.origin == Provenance::Counter);
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

/// Diagnoses a kernel that ran (needs a duration and a roof).
///
/// The binding limiter first (the busiest unit, `limiter.rs`), then the
/// position it gives, then the causes whose own evidence puts them on the
/// critical path, each a move with the time it would save. A move worth
/// under [`MIN_MOVE_SHARE_PCT`] of the kernel's time is kept as evidence.
pub fn diagnose(machine: &Machine, a: &KernelAnalysis) -> Option<Diagnosis> {
    let pct_of_roof = a.pct_of_roof?;
    let bound = a.bound?;
    let ev = &a.kernel.evidence;
    let seconds = a.kernel.duration_s.filter(|d| *d > 0.0 && d.is_finite())?;
    let origin = origin(&a.kernel.name);
    let mut units = units(machine, a);
    // An FFMA GEMM issues about one instruction per 2 FLOPs: the issue
    // slots follow the FP32 pipe, and the FP32 pipe's roof is its FLOP roof.
    // Unless FFMAs are under half of what issues: then other instructions
    // (a small-K GEMM's epilogue stores) hold the issue slots.
    let cuda_core = cuda_core_fp32(a, origin);
    let busy = |pipe: Pipe| units.iter().find(|u| u.unit == Unit::Pipe(pipe)).map(|u| u.pct);
    let ffma_issue = cuda_core
        && match (busy(Pipe::Fma), busy(Pipe::Issue)) {
            (Some(f), Some(i)) => f >= FFMA_SHARE_OF_ISSUE * i,
            (Some(_), None) => true,
            _ => false,
        };
    if ffma_issue && units.first().is_some_and(|u| u.unit == Unit::Pipe(Pipe::Issue)) {
        if let Some(i) = units.iter().position(|u| u.unit == Unit::Pipe(Pipe::Fma)) {
            let fma = units.remove(i);
            units.insert(0, fma);
        }
    }
    let top = binding(&units);
    let mut evidence = Vec::new();
    if let Some(t) = top {
        evidence.push(Finding::Binding {
            unit: t.unit,
            pct: t.pct,
            basis: t.basis,
            runner_up: units.get(1).map(|u| (u.unit, u.pct)),
        });
    }
    if let (true, Some(fma)) = (ffma_issue, units.iter().find(|u| u.unit == Unit::Pipe(Pipe::Fma))) {
        let issue = units.iter().find(|u| u.unit == Unit::Pipe(Pipe::Issue)).map(|u| u.pct);
        evidence.push(Finding::CudaCoreGemm { fma_pct: fma.pct, issue_pct: issue });
    }
    evidence.push(Finding::KernelOrigin { origin });
    evidence.push(Finding::PctOfRoof {
        pct: pct_of_roof,
        roof: match a.limiter {
            Some(Limiter::Bandwidth(l)) => format!("{} bandwidth", l.label()),
            _ => a.compute_roof_name.clone().unwrap_or_else(|| "compute".into()),
        },
    });
    if let (Some(p), Some(m)) = (a.pct_of_mix_roof, a.level(MemLevel::Dram).and_then(|l| l.mix.as_ref())) {
        evidence.push(Finding::PctOfMixRoof {
            pct: p,
            bytes_per_s: m.bytes_per_s,
            read_share_pct: 100.0 * m.read_share,
            lower: m.lower.benchmark.clone(),
            upper: m.upper.benchmark.clone(),
        });
    }
    if let (Some(n), Some(share)) = (ev.launch_shapes, ev.dominant_shape_share) {
        evidence.push(Finding::ShapeGroups { shapes: n, dominant_pct: 100.0 * share });
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
    if let Some(c) = clock_finding(machine, a) {
        evidence.push(c);
    }
    if let Some(a) = ev.sm_active_pct.filter(|a| *a <= 100.0 - IDLE_SLOTS_PCT) {
        evidence.push(Finding::SmsIdle { active_pct: a });
    }
    if let Some(s) = stalls(ev) {
        evidence.push(s);
    }
    let conflicts_share = match (ev.shared_bank_conflicts, ev.shared_wavefronts) {
        (Some(c), Some(w)) if w > 0.0 => Some(100.0 * c / w),
        _ => None,
    };
    if let Some(c) = ev.shared_bank_conflicts.filter(|c| *c > 0.0) {
        evidence.push(Finding::BankConflicts { conflicts: c, share_pct: conflicts_share });
    }

    let per_launch = seconds / a.kernel.launches.max(1) as f64;
    let shape = launch_shape(ev);
    let below_one_wave = matches!(&shape, Some((Finding::GridBelowOneWave { .. }, _)));
    let (unit, busiest) = top.map(|t| (Some(t.unit), t.pct)).unwrap_or((None, a.judged_pct().unwrap_or(pct_of_roof)));
    // Warps stalled on a full queue (MIO, LSU, a math pipe) are waiting on
    // a busy unit the counters of this capture may not show: not latency.
    let throttled = top_stall(ev).is_some_and(|r| r.ends_with("throttle"));
    let memory_pct = units.iter().filter(|u| matches!(u.unit, Unit::Memory(_))).map(|u| u.pct).fold(0.0, f64::max);
    // A streaming kernel whose bytes move at a good share of a level's roof
    // over a grid of at least one wave: under the diagonal, whatever its
    // launch length (the evidence of latency is a grid or launch too small).
    let streaming = !matches!(origin.role, Role::Gemm | Role::Convolution | Role::Attention);
    let full_grid = waves(ev).is_some_and(|w| 100.0 * idle_share(w.min(1.0)) < IDLE_SLOTS_PCT);
    let memory_side = streaming && bound == Bound::Memory && full_grid && memory_pct >= MEMORY_SIDE_PCT;
    let mut position = position(bound, unit, busiest, pct_of_roof, per_launch, below_one_wave);
    if memory_side && matches!(position, Position::LatencyBound | Position::LaunchBound) {
        position = Position::UnderDiagonal;
    }
    if position == Position::LatencyBound && throttled {
        position = if bound == Bound::Memory { Position::UnderDiagonal } else { Position::UnderFlatRoof };
    }
    if let Some((s, _)) = &shape {
        evidence.push(s.clone());
    }
    if per_launch < SHORT_LAUNCH_S {
        evidence.push(Finding::ShortLaunch { seconds_per_launch: per_launch });
    }

    let facts =
        Facts { machine, a, ev, seconds, per_launch, origin, unit, busiest, shape, conflicts_share, memory_pct };
    let mut moves = candidate_moves(&facts, position);
    // The sector use behind a coalescing move is its evidence; in the
    // user's own code, few bytes per sector are evidence even without the
    // excess count that would make them a move.
    let coalesce = moves.iter().find_map(|m| match m.advice {
        Advice::Coalesce { access, bytes_per_sector, wasted_share_pct } => {
            Some(Finding::SectorUse { access, bytes_per_sector, wasted_share_pct: Some(wasted_share_pct) })
        }
        _ => None,
    });
    match (coalesce, Waste::of(ev).worst()) {
        (Some(f), _) => evidence.push(f),
        (None, Some((access, bytes_per_sector, _))) if !origin.library.is_vendor() => {
            evidence.push(Finding::SectorUse { access, bytes_per_sector, wasted_share_pct: None })
        }
        _ => {}
    }
    rank_moves(&mut moves, seconds, &mut evidence);
    if moves.is_empty() {
        moves.push(no_cause_move(position, origin, unit));
    }
    Some(Diagnosis { position, evidence, next_moves: moves })
}

/// PyTorch's copy between tensors of one dtype (TensorIterator's
/// `nocast` path of `direct_copy_kernel`): a layout change, not a cast.
fn layout_copy(name: &str) -> bool {
    let n = roofline_model::demangle(name);
    n.contains("direct_copy_kernel") && n.contains("_nocast")
}

/// The move of a kernel no cause's evidence earned one: at its roof, the
/// library's (the caller's choices), fewer bytes where they already move at
/// a roof, else latency.
pub(crate) fn no_cause_move(position: Position, origin: Origin, unit: Option<Unit>) -> Move {
    match position {
        Position::OnRoof => Move::saving(Advice::AtTheRoof, 0.0, "the busiest unit is at its roof"),
        _ if origin.library.is_vendor() => Advice::LibraryKernel { library: origin.library, role: origin.role }.into(),
        Position::OnDiagonal => match unit {
            Some(Unit::Memory(l)) if l != MemLevel::Dram => Move::saving(
                Advice::CloserLevel { level: l },
                0.0,
                "bytes already move at this level's roof: only fewer bytes there help",
            ),
            _ => Move::saving(
                Advice::RaiseIntensity,
                0.0,
                "bytes already move at the bandwidth roof: only fewer bytes help",
            ),
        },
        _ => Advice::WaitOnLatency.into(),
    }
}

/// Ranks moves by their saving, largest first; a move worth under
/// [`MIN_MOVE_SHARE_PCT`] of the kernel's `seconds` becomes evidence.
pub(crate) fn rank_moves(moves: &mut Vec<Move>, seconds: f64, evidence: &mut Vec<Finding>) {
    let floor = seconds * MIN_MOVE_SHARE_PCT / 100.0;
    let (kept, small): (Vec<Move>, Vec<Move>) = moves.drain(..).partition(|m| m.saving_s.is_none_or(|s| s >= floor));
    for m in small {
        evidence.push(Finding::SmallCause { advice: Box::new(m.advice), saving_s: m.saving_s.unwrap_or(0.0) });
    }
    *moves = kept;
    moves.sort_by(|x, y| y.saving_s.unwrap_or(-1.0).total_cmp(&x.saving_s.unwrap_or(-1.0)));
}

/// Where the binding unit puts a kernel. `flop_pct` is the kernel's % of
/// its roof as placed (its FLOPs against the compute roof when it is
/// compute-bound).
fn position(
    bound: Bound,
    unit: Option<Unit>,
    busiest: f64,
    flop_pct: f64,
    per_launch: f64,
    below_one_wave: bool,
) -> Position {
    if (per_launch < LAUNCH_BOUND_S || per_launch < SHORT_LAUNCH_S && below_one_wave) && busiest < ON_ROOF_PCT {
        return Position::LaunchBound;
    }
    let latency_pct = if bound == Bound::Compute { FLOP_PIPE_LATENCY_PCT } else { LATENCY_PCT };
    if busiest < latency_pct {
        return Position::LatencyBound;
    }
    let on = busiest >= ON_ROOF_PCT;
    let flop_pipe = unit.is_some_and(Unit::is_flop_pipe);
    match unit {
        Some(Unit::Pipe(Pipe::Issue)) if busiest >= PIPE_BOUND_PCT => Position::IssueBound,
        Some(Unit::Pipe(_)) if !flop_pipe && busiest >= PIPE_BOUND_PCT => Position::PipeBound,
        // A memory level at its roof binds whatever the placement says (its
        // counter sees traffic the placement's bytes can miss: shared memory).
        Some(Unit::Memory(_)) if on => Position::OnDiagonal,
        // Right of the ridge at every level: under the compute roof,
        // whichever unit is busiest (it is named as the binding evidence).
        _ if bound == Bound::Compute => {
            if on && flop_pipe || flop_pct >= ON_ROOF_PCT {
                Position::OnRoof
            } else {
                Position::UnderFlatRoof
            }
        }
        Some(Unit::Memory(_)) => {
            if on {
                Position::OnDiagonal
            } else {
                Position::UnderDiagonal
            }
        }
        Some(_) if flop_pipe && busiest >= PIPE_BOUND_PCT => {
            if on {
                Position::OnRoof
            } else {
                Position::UnderFlatRoof
            }
        }
        // A pipe below its roof and nothing busier, left of the ridge.
        _ => Position::UnderDiagonal,
    }
}

/// What the moves read: the kernel as placed, its evidence and the facts
/// [`diagnose`] derives from them once.
struct Facts<'a> {
    machine: &'a Machine,
    a: &'a KernelAnalysis,
    ev: &'a Evidence,
    /// The kernel's time over all launches, seconds.
    seconds: f64,
    per_launch: f64,
    origin: Origin,
    /// The binding unit and its %.
    unit: Option<Unit>,
    busiest: f64,
    shape: Option<(Finding, Advice)>,
    conflicts_share: Option<f64>,
    /// The busiest memory level's utilisation, %.
    memory_pct: f64,
}

impl Facts<'_> {
    /// The busiest of these memory levels' utilisation, %.
    fn memory_pct_of(&self, levels: &[MemLevel]) -> f64 {
        units(self.machine, self.a)
            .iter()
            .filter(|u| matches!(u.unit, Unit::Memory(l) if levels.contains(&l)))
            .map(|u| u.pct)
            .fold(0.0, f64::max)
    }

    /// The time the kernel would save at its binding unit's roof: the most
    /// any move that keeps its work can save.
    fn gap_s(&self) -> f64 {
        (self.seconds * (1.0 - self.busiest / 100.0)).max(0.0)
    }
}

/// The moves whose own evidence puts them on the critical path.
fn candidate_moves(f: &Facts, position: Position) -> Vec<Move> {
    let mut moves = Vec::new();
    let o = f.origin;
    let t = f.seconds;
    // Library-level moves, from the kernel's origin.
    // A launch-bound GEMM's time is its launch, not its alignment.
    if o.unaligned && matches!(o.role, Role::Gemm | Role::Convolution) && position != Position::LaunchBound {
        let align = crate::origin::alignment(&f.a.kernel.name).unwrap_or(1);
        let kind = f.a.kernel.dominant_kind();
        let roof = kind.and_then(|k| f.machine.compute_roof(k));
        if let (Some(c), flops) = (roof, f.a.total_flops) {
            if flops > 0.0 && c.rate > 0.0 {
                let at_roof = flops / c.rate;
                // An aligned kernel still moves its DRAM bytes (round 11's
                // PointNet convolution on the memory side: its align4
                // sibling moved the same 177 MB in 65 us).
                // At what streaming with its own read:write mix reaches, when measured.
                let mix = f.a.level(MemLevel::Dram).and_then(|l| l.mix.as_ref()).map(|m| m.bytes_per_s);
                let roof_name = if mix.is_some() { "DRAM roof for its read:write mix" } else { "DRAM roof" };
                let dram = mix.or_else(|| f.machine.bandwidth_roof(MemLevel::Dram).map(|d| d.rate));
                let streaming = match (dram.filter(|r| *r > 0.0), f.a.kernel.bytes.get(&MemLevel::Dram)) {
                    (Some(rate), Some(&b)) if b > 0.0 => Some((b / rate, b, rate)),
                    _ => None,
                };
                let aligned = streaming.map_or(at_roof, |(s, ..)| s.max(at_roof));
                let bytes_note = match streaming {
                    Some((s, b, rate)) if s > at_roof => format!(
                        "; its {} of DRAM traffic at the {roof_name} ({}) take {}, the longer",
                        format_si(b, Unit2::Byte),
                        format_si(rate, Unit2::BytePerSecond),
                        format_si(s, Unit2::Second)
                    ),
                    _ => String::new(),
                };
                moves.push(Move::saving(
                    Advice::PadShape { align },
                    t - aligned,
                    format!(
                        "the same {} at the {} roof ({}) take {}{bytes_note}",
                        format_si(flops, Unit2::Flop),
                        c.name,
                        format_si(c.rate, Unit2::FlopPerSecond),
                        format_si(at_roof, Unit2::Second)
                    ),
                ));
            }
        }
    }
    // TF32 tensor work: BF16 has twice the rate; the saving is the time
    // above what the same work would take at the BF16 share of this one's.
    if matches!(o.role, Role::Gemm | Role::Convolution) && f.a.kernel.dominant_kind() == Some(FlopKind::TensorTf32) {
        let rate = |k: FlopKind| f.machine.compute_roof(k).map(|c| c.rate).filter(|r| *r > 0.0);
        if let (Some(tf32), Some(bf16)) = (rate(FlopKind::TensorTf32), rate(FlopKind::TensorBf16)) {
            if bf16 > tf32 && position != Position::LaunchBound {
                moves.push(Move::saving(
                    Advice::LowerPrecision,
                    t * (1.0 - tf32 / bf16) * f.busiest / 100.0,
                    format!(
                        "the BF16 tensor roof is {:.1}x the TF32 one; the saving is that share of the time the busiest unit ({}) is busy",
                        bf16 / tf32,
                        share(f.busiest)
                    ),
                ));
            }
        }
    }
    // FP32 on the CUDA cores where the GPU has TF32 tensor cores, right of
    // the ridge: the same share of the TF32 roof, bounded by the time its
    // DRAM and L2 bytes take at their roofs (L1 and shared traffic is the
    // kernel's own tiling, which a tensor-core kernel changes).
    if cuda_core_fp32(f.a, o) && position != Position::LaunchBound && f.a.bound == Some(Bound::Compute) {
        let rate = |k: FlopKind| f.machine.compute_roof(k).map(|c| c.rate).filter(|r| *r > 0.0);
        if let (Some(fp32), Some(tf32)) = (rate(FlopKind::Fp32), rate(FlopKind::TensorTf32)) {
            if tf32 > fp32 {
                let memory = f.memory_pct_of(&[MemLevel::Dram, MemLevel::L2]);
                let after = t * (fp32 / tf32).max(memory / 100.0);
                moves.push(Move::saving(
                    Advice::AllowTf32 { role: o.role, caller: None },
                    t - after,
                    format!(
                        "the TF32 tensor roof ({}) is {:.1}x the FP32 one ({}): at the same share of it the kernel takes {:.1}% of its time, bounded below by its DRAM and L2 traffic ({} of their roof today)",
                        format_si(tf32, Unit2::FlopPerSecond),
                        tf32 / fp32,
                        format_si(fp32, Unit2::FlopPerSecond),
                        100.0 * after / t,
                        share(memory)
                    ),
                ));
            }
        }
    }
    // A 16-bit convolution on the CUDA cores with a grid that fills the
    // GPU: on the tensor cores the same FLOPs take their share of the
    // 16-bit tensor roof, bounded below by the time its DRAM and L2 bytes
    // take today (a small grid's and a short launch's moves are below).
    let below_one_wave = matches!(f.shape, Some((Finding::GridBelowOneWave { .. }, _)));
    if cuda_core_16bit_conv(f.a, o) && position != Position::LaunchBound && !below_one_wave {
        let kind = if f.a.kernel.name.to_ascii_lowercase().contains("bf") {
            FlopKind::TensorBf16
        } else {
            FlopKind::TensorFp16
        };
        let flops = f.a.kernel.flops.get(&FlopKind::Fp32).copied().unwrap_or(0.0);
        if let Some(c) = f.machine.compute_roof(kind).filter(|c| c.rate > 0.0) {
            let memory = f.memory_pct_of(&[MemLevel::Dram, MemLevel::L2]);
            let after = (flops / c.rate).max(t * memory / 100.0);
            moves.push(Move::saving(
                Advice::ConvAsGemm,
                t - after,
                format!(
                    "its {} at the {} roof ({}) take {}, bounded below by its DRAM and L2 traffic ({} of their roof today)",
                    format_si(flops, Unit2::Flop),
                    c.name,
                    format_si(c.rate, Unit2::FlopPerSecond),
                    format_si(flops / c.rate, Unit2::Second),
                    share(memory)
                ),
            ));
        }
    }
    // One embedding lookup per table: batched, the launches' blocks run as
    // one grid, and only that grid's tail is idle.
    if o.role == Role::Indexing && f.a.kernel.name.to_ascii_lowercase().contains("embedding") {
        let n = f.a.kernel.launches;
        if let (true, Some(w)) = (n >= 2, waves(f.ev)) {
            let batched = w * n as f64;
            let (now, then) = (idle_share(w), idle_share(batched));
            // Idle slots cost time only where the memory system has room:
            // while the slots are full it runs at the average utilisation
            // over the busy share of the slot time; the tail's blocks take
            // the rest of the bandwidth, so that share of the idle time is
            // not lost.
            let full = (f.memory_pct / 100.0 / (1.0 - now).max(1e-9)).min(1.0);
            moves.push(Move::saving(
                Advice::BatchEmbeddings { launches: n },
                (t * (now - then) * (1.0 - full)).min(f.gap_s()),
                format!(
                    "each launch's grid is {w:.2} waves, {} of the block slots' time idle; one launch of {batched:.2} waves idles {}; while the slots are full the busiest memory level runs at {} of its roof, and only the bandwidth left over is time lost",
                    share(100.0 * now),
                    share(100.0 * then),
                    share(100.0 * full)
                ),
            ));
        }
    }
    // PyTorch's cat copies every input into a new tensor: written where the
    // output wants them, the copy goes, and with it the cat's whole time.
    if o.role == Role::Indexing && f.a.kernel.name.contains("CatArrayBatchedCopy") {
        moves.push(Move::saving(
            Advice::CatInPlace,
            t,
            "the cat's whole time: its inputs are written into the output by the kernels that make them",
        ));
    }
    // PyTorch's same-dtype copy materialises a permuted view; it computes
    // nothing, so its whole pass goes when the kernel that writes or reads
    // it takes the permuted order (every expert of rounds 3-11 moved it so).
    if o.library == Library::PyTorch && o.role == Role::Copy && layout_copy(&f.a.kernel.name) {
        moves.push(Move::saving(
            Advice::FoldLayoutCopy,
            t,
            "the copy's whole time: it computes nothing, and the kernel that writes or reads it takes the permuted order",
        ));
    }
    if let Some(m) = outer_product_move(f, position) {
        moves.push(m);
    }
    if o.role == Role::Sparse {
        if let Some(m) = sparse_format_move(f, position) {
            moves.push(m);
        }
    }
    if let Some(m) = specific_kernel_move(f, position) {
        moves.push(m);
    }
    if let Some(m) = serial_library_move(f) {
        moves.push(m);
    }
    if let Some(m) = top_k_move(f) {
        moves.push(m);
    }
    match o.role {
        Role::Foreach => moves.push(Advice::FusedOptimizer.into()),
        Role::Cast => moves.push(Move::saving(Advice::RemoveCasts, t, "the cast kernel's whole time")),
        Role::LayoutTranspose => moves.push(Move::saving(Advice::ChannelsLast, t, "the transpose's whole time")),
        Role::Activation => moves.push(Advice::EpilogueFusion.into()),
        Role::Norm if o.library != Library::Triton => {
            // Judged by the traffic a compiled norm keeps: its DRAM and L2
            // bytes, streamed at the roof. Its L1 and shared traffic is the
            // kernel's own (SegFormer's LayerNorm over 32-wide rows, one
            // block a row, kept L1 43% busy; its expert priced it by the
            // bytes it must move, as the others of rounds 3-13).
            let memory = f.memory_pct_of(&[MemLevel::Dram, MemLevel::L2]);
            if memory < ON_ROOF_PCT {
                moves.push(Move::saving(
                    Advice::FuseNorm,
                    t * (1.0 - memory / ON_ROOF_PCT),
                    format!(
                        "a compiled norm streams its DRAM and L2 bytes at the bandwidth roof; this one's are at {} of it",
                        share(memory)
                    ),
                ))
            }
        }
        Role::Elementwise | Role::Copy => moves.push(Advice::FuseElementwise.into()),
        _ => {}
    }
    let user = !o.library.is_vendor();
    let idle = match &f.shape {
        Some((Finding::GridBelowOneWave { idle_pct, .. }, _)) => Some(*idle_pct),
        Some((Finding::TailWave { idle_pct, .. }, _)) => Some(*idle_pct),
        _ => None,
    };
    // Launch shape: only where the launch is long enough for the shape, not
    // the launch cost, to matter.
    if let (Some((finding, advice)), Some(idle)) = (&f.shape, idle) {
        let saving = (t * idle / 100.0).min(f.gap_s());
        if f.per_launch >= SHORT_LAUNCH_S {
            match (user, finding) {
                (true, _) => {
                    moves.push(Move::saving(advice.clone(), saving, format!("{} of the block slots idle", share(idle))))
                }
                // A library's convolution or attention under one wave: a
                // larger batch gives it more tiles. Other library kernels'
                // grids follow shapes the caller may not control (a GEMM can
                // be a weight gradient; a reduction's grid is its output's).
                // A 16-bit convolution on the CUDA cores: the kernel choice,
                // not the batch, is the move.
                (false, Finding::GridBelowOneWave { .. }) if cuda_core_16bit_conv(f.a, o) => moves.push(Move::saving(
                    Advice::ConvAsGemm,
                    saving,
                    format!("{} of the block slots idle", share(idle)),
                )),
                (false, Finding::GridBelowOneWave { .. })
                    if matches!(o.role, Role::Convolution | Role::Attention) && grows_with_batch(&f.a.kernel.name) =>
                {
                    moves.push(Move::saving(
                        Advice::LargerProblem,
                        saving,
                        format!("{} of the block slots idle", share(idle)),
                    ))
                }
                _ => {}
            }
        }
    }
    // A launch-bound user kernel: more work per launch. A library's small
    // GEMM, convolution or attention: a larger problem. Framework glue
    // kernels have no move of their own (a fusion absorbs them).
    if position == Position::LaunchBound {
        if user {
            moves.push(Move::saving(
                Advice::LongerLaunches { seconds_per_launch: f.per_launch },
                f.gap_s(),
                "the gap to the busiest unit's roof",
            ));
        } else if cuda_core_16bit_conv(f.a, o) {
            moves.push(Move::saving(Advice::ConvAsGemm, f.gap_s(), "the gap to the busiest unit's roof"));
        } else if matches!(o.role, Role::Gemm | Role::Convolution | Role::Attention)
            && grows_with_batch(&f.a.kernel.name)
        {
            moves.push(Move::saving(Advice::LargerProblem, f.gap_s(), "the gap to the busiest unit's roof"));
        } else if o.role == Role::Fft && f.a.kernel.launches >= 2 {
            // The same transform launched again and again at the launch
            // floor: one batched call fills the GPU (round 13's expert
            // stacked a solver's four inverse FFTs).
            moves.push(Move::saving(
                Advice::BatchTransforms { launches: f.a.kernel.launches },
                f.gap_s(),
                "the gap to the busiest unit's roof: one batched transform streams what the launches moved apart",
            ));
        }
    }
    // Causes in the user's own code, each only where its unit binds.
    if user {
        let binds = |u: Unit| f.unit == Some(u);
        // Wasted sectors cost time only where they reach L2 (or DRAM): the
        // excess L2 sectors against the L2 traffic, never more than it.
        if let (Some(x), Some(l2)) = (f.ev.excessive_sectors, f.a.kernel.bytes.get(&MemLevel::L2)) {
            let excess = 32.0 * x.max(0.0);
            if *l2 > 0.0 && excess <= *l2 && 100.0 * excess / l2 >= WASTE_SHARE_PCT {
                if let Some((access, bps, share)) = Waste::of(f.ev).worst() {
                    if binds(Unit::Memory(MemLevel::L2))
                        || binds(Unit::Memory(MemLevel::Dram))
                        || binds(Unit::Memory(MemLevel::L1))
                    {
                        moves.push(Move::saving(
                            Advice::Coalesce {
                                access,
                                bytes_per_sector: bps,
                                wasted_share_pct: share.unwrap_or(100.0 * excess / l2),
                            },
                            t * excess / l2 * f.busiest / 100.0,
                            format!(
                                "{} excess L2 bytes of {}",
                                format_si(excess, Unit2::Byte),
                                format_si(*l2, Unit2::Byte)
                            ),
                        ));
                    }
                }
            }
        }
        if let Some(c) = f.conflicts_share.filter(|c| *c >= WASTE_SHARE_PCT) {
            if binds(Unit::Pipe(Pipe::Shared)) || binds(Unit::Memory(MemLevel::L1)) || binds(Unit::Pipe(Pipe::Lsu)) {
                moves.push(Move::saving(
                    Advice::AvoidBankConflicts { share_pct: c },
                    t * c / 100.0 * f.busiest / 100.0,
                    "the conflicts' share of the shared-memory wavefronts",
                ));
            }
        }
        if binds(Unit::Pipe(Pipe::SharedAtomic)) {
            let conflict = match (f.ev.shared_atomic_conflicts, f.ev.shared_atomic_wavefronts) {
                (Some(c), Some(w)) if w > 0.0 => c / w,
                _ => 0.0,
            };
            moves.push(Move::saving(
                Advice::PipeWork { pipe: Pipe::SharedAtomic, pct: f.busiest },
                t * conflict.max(1.0 - f.busiest / 100.0),
                "the atomics' bank-conflict share of their wavefronts",
            ));
        }
        if let Some(m) = contended_atomics(f, position) {
            moves.push(m);
        }
        if let Some(m) = library_product(f) {
            moves.push(m);
        }
        match (position, f.unit) {
            (Position::PipeBound | Position::IssueBound, Some(Unit::Pipe(p))) => moves.push(Move::saving(
                Advice::PipeWork { pipe: p, pct: f.busiest },
                f.gap_s().max(0.0),
                "the pipe's work is the time: the saving is what fewer instructions free",
            )),
            (Position::UnderFlatRoof, Some(Unit::Pipe(Pipe::Fma | Pipe::Fp16)))
                if f.machine.compute().any(|c| c.resource.flop_kind().is_some_and(FlopKind::is_tensor)) =>
            {
                moves.push(Move::saving(Advice::UseTensorCores, f.gap_s(), "at least the gap to the FP32/FP16 roof"))
            }
            (Position::LatencyBound, _) => {
                let full_wave = !matches!(&f.shape, Some((Finding::GridBelowOneWave { .. }, _)));
                if let (true, Some(limiter)) = (full_wave, &f.ev.occupancy_limiter) {
                    if f.ev.occupancy_theoretical_pct.is_some_and(|o| o < 100.0) {
                        moves.push(Move::saving(
                            Advice::OccupancyLimited { limiter: limiter.clone(), hint: f.ev.occupancy_hint.clone() },
                            f.gap_s() / 2.0,
                            "half the gap to the busiest unit's roof",
                        ));
                    }
                }
                moves.push(Move::saving(Advice::MoreIndependentWork, f.gap_s(), "the gap to the busiest unit's roof"));
            }
            (Position::UnderDiagonal, _) => {
                moves.push(Move::saving(Advice::MoreBytesInFlight, f.gap_s(), "the gap to the bandwidth roof"))
            }
            (Position::UnderFlatRoof, Some(Unit::Pipe(Pipe::Tensor))) => {
                moves.push(Move::saving(Advice::FeedTensorCores, f.gap_s(), "the gap to the tensor roof"))
            }
            (Position::UnderFlatRoof, _) => {
                moves.push(Move::saving(Advice::InstructionMix, f.gap_s(), "the gap to the compute roof"))
            }
            _ => {}
        }
    }
    moves
}

/// A library GEMM computes at most this many multiply-adds per output
/// element (K, from its FLOPs over the elements it writes) and still be an
/// outer product: its math is trivial and its time is writing the matrix
/// (GPyTorch's K=5 kernel matrix: 18 FLOPs per element, 1 GB written,
/// issue slots held by the stores). A GEMM of K=64 is a GEMM.
const OUTER_PRODUCT_MAX_K: f64 = 16.0;

/// A library GEMM whose output is most of its work: a distance or kernel
/// matrix (an outer product with a few terms). cuBLAS writes it below the
/// bandwidth roof, and the elementwise passes that read it next (exp,
/// scale, clamp) read and write it again. The move is to compute the matrix
/// where it is read; at the least it is written once at the roof, which is
/// the saving booked here: its time above what its DRAM bytes take at the
/// roof for its read:write mix.
fn outer_product_move(f: &Facts, position: Position) -> Option<Move> {
    let o = f.origin;
    if o.role != Role::Gemm || !o.library.is_vendor() || position == Position::LaunchBound {
        return None;
    }
    let element_bytes = match f.a.kernel.dominant_kind()? {
        FlopKind::Fp32 | FlopKind::TensorTf32 => 4.0,
        FlopKind::Fp64 | FlopKind::TensorFp64 => 8.0,
        FlopKind::TensorBf16 | FlopKind::TensorFp16 | FlopKind::Fp16 => 2.0,
        _ => return None,
    };
    let written = f.a.kernel.evidence.l2_write_sectors? * 32.0;
    let elements = written / element_bytes;
    let k = f.a.total_flops / (2.0 * elements.max(1.0));
    let dram = f.a.kernel.bytes.get(&MemLevel::Dram).copied().filter(|b| *b > 0.0)?;
    // Most of its DRAM traffic is the matrix it writes.
    let dram_writes = f.a.kernel.evidence.dram_write_bytes?;
    if k > OUTER_PRODUCT_MAX_K || dram_writes < 0.5 * dram {
        return None;
    }
    let mix = f.a.level(MemLevel::Dram).and_then(|l| l.mix.as_ref()).map(|m| m.bytes_per_s);
    let rate = mix.or_else(|| f.machine.bandwidth_roof(MemLevel::Dram).map(|d| d.rate)).filter(|r| *r > 0.0)?;
    let at_roof = dram / rate;
    Some(Move::saving(
        Advice::OuterProduct { terms: k, written_bytes: written },
        f.seconds - at_roof,
        format!(
            "its {} of DRAM traffic at the DRAM roof{} ({}) take {}",
            format_si(dram, Unit2::Byte),
            if mix.is_some() { " for its read:write mix" } else { "" },
            format_si(rate, Unit2::BytePerSecond),
            format_si(at_roof, Unit2::Second)
        ),
    ))
}

/// CuPy's selection (argpartition, partition): a bitonic select of each
/// row's segments, then a tree of merges. Its select kernel passes over its
/// data many times through L2 (the SMs' L2 reads and writes over its DRAM
/// reads: the bitonic network writes every stage back); a top-k reads
/// it [`TOP_K_PASSES`] times at the rate this kernel moves bytes, and has
/// no merge tree, so a merge kernel saves its whole time.
fn top_k_move(f: &Facts) -> Option<Move> {
    if !crate::origin::cupy_selection(&f.a.kernel.name) {
        return None;
    }
    if f.a.kernel.name.contains("merge") {
        return Some(Move::saving(
            Advice::TopK { passes: None },
            f.seconds,
            "the merge's whole time: a top-k has no merge tree",
        ));
    }
    let ev = &f.a.kernel.evidence;
    let l2 = (ev.l2_read_sectors? + ev.l2_write_sectors.unwrap_or(0.0)) * 32.0;
    let read = ev.dram_read_bytes?;
    let passes = l2 / read.max(1.0);
    if read <= 0.0 || passes <= TOP_K_PASSES {
        return None;
    }
    Some(Move::saving(
        Advice::TopK { passes: Some(passes) },
        f.seconds * (1.0 - TOP_K_PASSES / passes),
        format!(
            "the SMs' {} of L2 reads and writes are {passes:.1} passes over the {} it reads from DRAM; a top-k makes about {TOP_K_PASSES:.0} at the rate this kernel moves bytes",
            format_si(l2, Unit2::Byte),
            format_si(read, Unit2::Byte)
        ),
    ))
}

/// Streaming passes a top-k (a radix select) makes over its input.
const TOP_K_PASSES: f64 = 4.0;

/// A library kernel (not the user's, not a GEMM, convolution or attention,
/// whose small grids have the larger-problem move) that runs for at least
/// [`SERIAL_LAUNCH_S`] a launch on a grid leaving over 90% of the block
/// slots idle, while its busiest memory level is under a tenth of the
/// [`ON_ROOF_PCT`] line: the problem is not small, the library's path for
/// this call is serial (CuPy's `var` reduces the whole array in one
/// block). The same operation written with the library's parallel
/// reductions streams its bytes at the roof; the saving is the time above
/// that.
fn serial_library_move(f: &Facts) -> Option<Move> {
    let o = f.origin;
    let Some((Finding::GridBelowOneWave { blocks, slots, idle_pct }, _)) = &f.shape else { return None };
    if !o.library.is_vendor()
        || matches!(o.role, Role::Gemm | Role::Convolution | Role::Attention)
        || *idle_pct < 90.0
        || f.per_launch < SERIAL_LAUNCH_S
        || f.memory_pct >= ON_ROOF_PCT / 10.0
    {
        return None;
    }
    let after = f.seconds * f.memory_pct / ON_ROOF_PCT;
    Some(Move::saving(
        Advice::SerialLibraryCall { library: o.library, blocks: *blocks, slots: *slots },
        f.seconds - after,
        format!(
            "{} a launch on {} of {} block slots, its busiest memory level at {} of its roof: at {} of the roof the same bytes take {} of its time",
            format_si(f.per_launch, Unit2::Second),
            plural(*blocks, "block"),
            slots,
            share(f.memory_pct),
            share(ON_ROOF_PCT),
            share(100.0 * f.memory_pct / ON_ROOF_PCT)
        ),
    ))
}

/// A generic array library's kernel (CuPy's generated elementwise and
/// ndimage kernels, PyTorch's TensorIterator and indexing kernels) held by
/// its issue slots while DRAM is far from its roof (under
/// [`MEMORY_SIDE_PCT`]): the generic code
/// recomputes indices and boundary handling for every element (and, in a
/// filter, every tap). A
/// kernel written for the operation streams the same DRAM bytes at a
/// streaming kernel's share of the roof ([`ON_ROOF_PCT`]); the saving is the
/// time above that. Its L1 and L2 traffic (taps re-read from cache) is the
/// generic kernel's own and is not kept. Roles with moves of their own
/// (activations, norms, softmax, losses, casts, and PyTorch's elementwise
/// kernels, which the fusion moves cover) are left to those.
fn specific_kernel_move(f: &Facts, position: Position) -> Option<Move> {
    let o = f.origin;
    let generic = match o.library {
        Library::Cupy => {
            matches!(o.role, Role::Elementwise | Role::Copy | Role::Reduction | Role::Indexing | Role::Other)
        }
        // PyTorch's elementwise kernels have the fusion moves.
        Library::PyTorch => matches!(o.role, Role::Reduction | Role::Indexing | Role::Other),
        _ => false,
    };
    if !generic || position != Position::IssueBound || f.unit != Some(Unit::Pipe(Pipe::Issue)) {
        return None;
    }
    // At MEMORY_SIDE_PCT of DRAM or more the bytes already stream: the
    // under-the-diagonal moves apply, not a rewrite.
    let dram = units(f.machine, f.a)
        .iter()
        .find(|u| u.unit == Unit::Memory(MemLevel::Dram))
        .map(|u| u.pct)
        .filter(|d| *d < MEMORY_SIDE_PCT)?;
    let after = (f.seconds * dram / ON_ROOF_PCT).min(f.seconds);
    // PyTorch's own depthwise convolution runs on NCHW tensors; in
    // channels_last PyTorch hands depthwise convolutions to cuDNN's NHWC
    // kernels, which stream (the experts of rounds 12 and 13, twice).
    let advice = if o.library == Library::PyTorch && f.a.kernel.name.contains("conv_depthwise2d") {
        Advice::DepthwiseChannelsLast { issue_pct: f.busiest }
    } else {
        Advice::SpecificKernel { library: o.library, issue_pct: f.busiest, dram_pct: dram }
    };
    Some(Move::saving(
        advice,
        f.seconds - after,
        format!(
            "its DRAM bytes at {} of the DRAM roof take {} of its time; a streaming kernel moves them at {} or more of the roof",
            share(dram),
            share(100.0 * dram / ON_ROOF_PCT),
            share(ON_ROOF_PCT)
        ),
    ))
}

/// Global atomics queued at their addresses: the kernel issues global
/// atomics and its warps' top stall is waiting for outstanding memory
/// operations to finish (`drain`, at exit), for the global queue
/// (`lg_throttle`), or, with nothing busy (latency-bound), for loads queued
/// behind the atomics (`long_scoreboard`). Throughput roofs do not show it (the atomics' own rate
/// is low); the stall does. Aggregated per block, the wait goes: the gap to
/// the busiest unit's roof.
fn contended_atomics(f: &Facts, position: Position) -> Option<Move> {
    let atomics = f.ev.pipes.get(&Pipe::GlobalAtomic).and_then(|p| p.warp_instructions).is_some_and(|n| n > 0.0);
    // A capture without the drain stall (the tool's list before 2026-12-03)
    // shows the same queue as loads waiting behind the atomics: a memory
    // wait in a kernel where nothing is busy.
    let stall = top_stall(f.ev).filter(|s| {
        matches!(*s, "drain" | "lg_throttle") || *s == "long_scoreboard" && position == Position::LatencyBound
    })?;
    if !atomics || position == Position::OnRoof {
        return None;
    }
    let cycles = f.ev.stalls.get(stall).copied().unwrap_or(0.0);
    Some(Move::saving(
        Advice::AggregateAtomics { stall: stall.to_string(), cycles_per_instruction: cycles },
        f.gap_s(),
        format!(
            "the gap to the busiest unit's roof ({} busy): the warps' top stall is {}",
            share(f.busiest),
            stall.replace('_', " ")
        ),
    ))
}

/// The user's own FP32 dense product: FP32 FLOPs (no tensor work) right of
/// the FP32 ridge at DRAM, held by L1, shared memory, the LSU or issue
/// slots rather than the FP32 pipe. A library's product runs those FLOPs at
/// a streaming share ([`ON_ROOF_PCT`]) of the FP32 roof or better: the
/// saving is the time above that.
fn library_product(f: &Facts) -> Option<Move> {
    let a = f.a;
    if a.kernel.dominant_kind() != Some(FlopKind::Fp32) || !no_tensor_work(a) {
        return None;
    }
    let fed_from_cache = matches!(
        f.unit,
        Some(Unit::Memory(MemLevel::L1 | MemLevel::L2)) | Some(Unit::Pipe(Pipe::Lsu | Pipe::Shared | Pipe::Issue))
    );
    let fp32 = f.machine.compute_roof(FlopKind::Fp32).map(|c| c.rate).filter(|r| *r > 0.0)?;
    let dram = f.machine.bandwidth_roof(MemLevel::Dram).map(|c| c.rate).filter(|r| *r > 0.0)?;
    let bytes = a.kernel.bytes.get(&MemLevel::Dram).copied().filter(|b| *b > 0.0)?;
    let intensity = a.total_flops / bytes;
    if !fed_from_cache || intensity < fp32 / dram {
        return None;
    }
    let after = a.total_flops / (fp32 * ON_ROOF_PCT / 100.0);
    (after < f.seconds).then(|| {
        Move::saving(
            Advice::LibraryProduct { intensity },
            f.seconds - after,
            format!(
                "its {} at {} of the FP32 roof ({}) take {}; the FP32 ridge at DRAM is {:.1} FLOP/B",
                format_si(a.total_flops, Unit2::Flop),
                share(ON_ROOF_PCT),
                format_si(fp32, Unit2::FlopPerSecond),
                format_si(after, Unit2::Second),
                fp32 / dram
            ),
        )
    })
}

/// The bytes of a CSR SpMV's value and column-index types, from cuSPARSE's
/// template arguments (`csrmv_v3_kernel<bool, int, int, double, ...>`):
/// 64-bit indices where `long` appears, else 32-bit.
fn csr_element_bytes(name: &str) -> (f64, f64) {
    let index = if name.contains("long") { 8.0 } else { 4.0 };
    let value = if name.contains("double") {
        8.0
    } else if name.contains("half") || name.contains("bfloat16") {
        2.0
    } else {
        4.0
    };
    (value, index)
}

/// cuSPARSE's CSR SpMV, memory-bound: per nonzero it reads a value and a
/// column index (and 2 FLOPs, a multiply-add, so the FLOP counters give
/// the nonzeros, at most the bytes over a value and an index). A format or
/// operator that stores no index per nonzero (a diagonal or banded format,
/// a matrix-free stencil) stops moving them: at least the indices' share of
/// the time. CSR's load-balancing pass (`csr_partition`, once per call)
/// goes with the format: its whole time.
fn sparse_format_move(f: &Facts, position: Position) -> Option<Move> {
    let name = &f.a.kernel.name;
    let lower = name.to_ascii_lowercase();
    let t = f.seconds;
    if lower.contains("csr_partition") {
        return Some(Move::saving(
            Advice::SparseFormat { index_share_pct: None },
            t,
            "the partition pass's whole time: cuSPARSE splits the CSR rows among blocks before every SpMV, and a format without CSR rows needs no split",
        ));
    }
    let spmv = lower.contains("csrmv") || lower.contains("spmv") && lower.contains("csr");
    if !spmv || !matches!(position, Position::UnderDiagonal | Position::OnDiagonal) {
        return None;
    }
    let bytes = f.a.kernel.bytes.get(&MemLevel::Dram).copied().filter(|b| *b > 0.0)?;
    let flops = f.a.total_flops;
    let (value, index) = csr_element_bytes(name);
    let nonzeros = (flops / 2.0).min(bytes / (value + index));
    if nonzeros <= 0.0 {
        return None;
    }
    let index_share = index * nonzeros / bytes;
    Some(Move::saving(
        Advice::SparseFormat { index_share_pct: Some(100.0 * index_share) },
        t * index_share,
        format!(
            "{:.1} million nonzeros over {} (2 FLOPs each, counter; at most the DRAM bytes over a value and an index), each with a {value:.0}-byte value and a {index:.0}-byte column index: the indices are {} of the {} the kernel moves from DRAM; an operator that also knows its values (matrix-free) saves up to the matrix's whole share",
            nonzeros / 1e6,
            if f.a.kernel.launches == 1 { "its launch".to_string() } else { format!("its {} launches", f.a.kernel.launches) },
            share(100.0 * index_share),
            format_si(bytes, Unit2::Byte)
        ),
    ))
}

/// Whether a larger batch gives a library kernel more blocks: not for a
/// convolution's weight gradient, whose output (and so its grid of tiles) is
/// the weight's shape, whatever the batch.
fn grows_with_batch(name: &str) -> bool {
    !name.to_ascii_lowercase().contains("wgrad")
}

/// The stall reason with the most cycles.
fn top_stall(ev: &Evidence) -> Option<&str> {
    ev.stalls.iter().filter(|(_, c)| **c > 0.0).max_by(|a, b| a.1.total_cmp(b.1)).map(|(r, _)| r.as_str())
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
    use crate::placement::analyze_kernel;
    use roofline_model::{Kernel, Origin as Provenance};

    fn machine() -> Machine {
        Machine::simple("m", FlopKind::Fp32, 1000e9, 100e9)
    }

    /// A kernel of `name` that took 1 ms in one launch, with the given
    /// units' utilisation over the elapsed time (counter).
    fn kernel(name: &str, levels: &[(MemLevel, f64)], pipes: &[(Pipe, f64)]) -> Kernel {
        let mut k = Kernel::named(name, Provenance::Counter);
        k.flops.insert(FlopKind::Fp32, 1e6);
        k.bytes.insert(MemLevel::Dram, 1e6);
        k.duration_s = Some(1e-3);
        for (l, p) in levels {
            k.evidence.level_busy_pct.insert(*l, *p);
        }
        for (pp, p) in pipes {
            k.evidence.pipe_busy_pct.insert(*pp, *p);
        }
        k
    }

    fn diagnose_kernel(k: &Kernel) -> Diagnosis {
        analyze_kernel(&machine(), k).diagnosis.unwrap()
    }

    fn position(levels: &[(MemLevel, f64)], pipes: &[(Pipe, f64)]) -> Position {
        diagnose_kernel(&kernel("own_kernel", levels, pipes)).position
    }

    #[test]
    fn the_range_check_reaches_the_numbers_of_findings_and_moves_without_their_english() {
        let d = Diagnosis {
            position: Position::UnderFlatRoof,
            evidence: Vec::new(),
            next_moves: vec![Advice::UseTensorCores.into(), Advice::Clock { loss_pct: f64::NAN }.into()],
        };
        let e = roofline_model::check_numbers(&d).unwrap_err();
        assert_eq!(e.path, "next_moves[1].loss_pct");
        let ok = Diagnosis { next_moves: vec![Move::saving(Advice::FusedOptimizer, 1e-3, "x")], ..d };
        let json = serde_json::to_value(&ok).unwrap();
        assert_eq!(json["next_moves"][0]["code"], "fused_optimizer");
        assert_eq!(json["next_moves"][0]["saving_s"], 1e-3);
        assert!(json["next_moves"][0]["text"].as_str().unwrap().contains("could save 1.000 ms"), "{json}");
        let back: Diagnosis = serde_json::from_value(json).unwrap();
        assert_eq!(back.next_moves[0].saving_s, Some(1e-3));
    }

    #[test]
    fn the_busiest_unit_binds_and_work_on_different_units_does_not_add_up() {
        // DRAM 80% and the FMA pipe 70%: held by DRAM, on the diagonal.
        assert_eq!(position(&[(MemLevel::Dram, 80.0)], &[(Pipe::Fma, 70.0)]), Position::OnDiagonal);
        let d = diagnose_kernel(&kernel("own_kernel", &[(MemLevel::Dram, 80.0)], &[(Pipe::Fma, 70.0)]));
        assert_eq!(d.binding(), Some((Unit::Memory(MemLevel::Dram), 80.0)));
        // The FP16 pipe at 97% binds, whatever the FP32 pipe shows.
        let d =
            diagnose_kernel(&kernel("own_kernel", &[(MemLevel::Dram, 5.0)], &[(Pipe::Fma, 51.0), (Pipe::Fp16, 97.0)]));
        assert_eq!((d.position, d.binding()), (Position::OnRoof, Some((Unit::Pipe(Pipe::Fp16), 97.0))));
        // The tensor pipe is a unit like the others: 29% tensor beats 13% ALU.
        let d = diagnose_kernel(&kernel(
            "own_kernel",
            &[(MemLevel::Dram, 10.0)],
            &[(Pipe::Alu, 13.0), (Pipe::Tensor, 29.0)],
        ));
        assert_eq!(d.binding().unwrap().0, Unit::Pipe(Pipe::Tensor));
    }

    #[test]
    fn on_starts_at_75_percent_and_latency_below_60_or_30_under_a_flop_pipe() {
        assert_eq!(position(&[(MemLevel::L2, 75.1)], &[]), Position::OnDiagonal);
        assert_eq!(position(&[(MemLevel::L2, 74.9)], &[]), Position::UnderDiagonal);
        assert_eq!(position(&[(MemLevel::L2, 60.1)], &[]), Position::UnderDiagonal);
        // Nsight Compute's speed-of-light rule: below 60% everywhere, latency.
        assert_eq!(position(&[(MemLevel::L2, 59.9)], &[]), Position::LatencyBound);
        assert_eq!(position(&[(MemLevel::Dram, 1.0)], &[(Pipe::Tensor, 75.1)]), Position::OnRoof);
        assert_eq!(position(&[(MemLevel::Dram, 1.0)], &[(Pipe::Tensor, 74.9)]), Position::UnderFlatRoof);
        // A compute-bound kernel held by its FLOP pipe: under its roof down
        // to 30% (0.2 GFLOP on 1 MB is right of this machine's 10 FLOP/B
        // ridge, and 20% of its FLOP roof).
        let compute_bound = |tensor: f64| {
            let mut k = kernel("own_kernel", &[(MemLevel::Dram, 1.0)], &[(Pipe::Tensor, tensor)]);
            k.flops.insert(FlopKind::Fp32, 2e8);
            diagnose_kernel(&k).position
        };
        assert_eq!(compute_bound(30.1), Position::UnderFlatRoof);
        assert_eq!(compute_bound(29.9), Position::LatencyBound);
        // The same pipe on a memory-bound kernel: the 60% rule.
        assert_eq!(position(&[(MemLevel::Dram, 1.0)], &[(Pipe::Tensor, 59.9)]), Position::LatencyBound);
    }

    #[test]
    fn a_kernel_right_of_the_ridge_is_under_its_compute_roof_whichever_level_is_busiest() {
        // 0.5 GFLOP on 1 MB: compute-bound at 50% of the FLOP roof, with L1 at 65%.
        let mut k = kernel("own_kernel", &[(MemLevel::L1, 65.0), (MemLevel::Dram, 5.0)], &[(Pipe::Tensor, 45.0)]);
        k.flops.insert(FlopKind::Fp32, 5e8);
        let d = diagnose_kernel(&k);
        assert_eq!(d.position, Position::UnderFlatRoof, "{d:?}");
        assert_eq!(d.binding(), Some((Unit::Memory(MemLevel::L1), 65.0)), "the level is the binding evidence");
        // At 75% of its FLOP roof it is on it.
        k.flops.insert(FlopKind::Fp32, 7.6e8);
        assert_eq!(diagnose_kernel(&k).position, Position::OnRoof);
        // A level at its roof binds whatever the placement says: a shared-
        // memory-tiled matmul whose placed bytes miss the shared traffic.
        k.flops.insert(FlopKind::Fp32, 5e8);
        k.evidence.level_busy_pct.insert(MemLevel::L1, 91.0);
        assert_eq!(diagnose_kernel(&k).position, Position::OnDiagonal);
    }

    #[test]
    fn issue_and_other_pipes_bind_from_60_percent() {
        assert_eq!(position(&[(MemLevel::Dram, 20.0)], &[(Pipe::Issue, 60.1)]), Position::IssueBound);
        // Below it, and nothing else at 60%: latency-bound.
        assert_eq!(position(&[(MemLevel::Dram, 20.0)], &[(Pipe::Issue, 59.9)]), Position::LatencyBound);
        assert_eq!(position(&[(MemLevel::Dram, 20.0)], &[(Pipe::Lsu, 60.1)]), Position::PipeBound);
        assert_eq!(position(&[(MemLevel::Dram, 20.0)], &[(Pipe::Lsu, 59.9)]), Position::LatencyBound);
        // A memory level above 60% keeps the side of the ridge.
        assert_eq!(position(&[(MemLevel::Dram, 61.0)], &[(Pipe::Issue, 59.9)]), Position::UnderDiagonal);
    }

    #[test]
    fn a_larger_batch_is_never_offered_to_a_weight_gradient_whose_grid_is_the_weights_shape() {
        let sub_wave = |name: &str| {
            let mut k = kernel(name, &[(MemLevel::L2, 42.0)], &[(Pipe::Tensor, 33.0)]);
            k.evidence.sm_count = Some(132.0);
            k.evidence.blocks_per_sm = Some(1.0);
            k.evidence.grid_size = Some(80.0);
            diagnose_kernel(&k)
        };
        let tile = "implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x64x64_warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn";
        assert!(sub_wave(&format!("sm90_xmma_fprop_{tile}")).advises("larger_problem"));
        let d = sub_wave(&format!("sm90_xmma_wgrad_indexed_{tile}"));
        assert!(!d.advises("larger_problem"), "{d:?}");
    }

    /// A machine with TF32 and BF16 tensor roofs (BF16 twice TF32).
    fn tensor_machine() -> Machine {
        let mut m = Machine::simple("m", FlopKind::TensorTf32, 400e12, 4e12);
        let bf16 = roofline_model::Ceiling::new(
            roofline_model::Resource::Compute(FlopKind::TensorBf16),
            FlopKind::TensorBf16.label(),
            800e12,
            m.ceilings[0].provenance.clone(),
        );
        m.ceilings.push(bf16);
        m
    }

    #[test]
    fn a_tf32_gemm_is_offered_bf16_for_the_share_of_its_time_its_busiest_unit_is_busy() {
        let mut k = Kernel::named(
            "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_execute_kernel__5x_cublas",
            Provenance::Counter,
        );
        k.flops.insert(FlopKind::TensorTf32, 2e11);
        k.bytes.insert(MemLevel::Dram, 1e8);
        k.duration_s = Some(1e-3);
        k.evidence.pipe_busy_pct.insert(Pipe::Tensor, 50.0);
        let d = analyze_kernel(&tensor_machine(), &k).diagnosis.unwrap();
        let m = d.next_moves.iter().find(|m| m.code() == "lower_precision").unwrap_or_else(|| panic!("{d:?}"));
        // Half the rate's worth of the 50% the tensor pipe is busy: 25% of 1 ms.
        assert!((m.saving_s.unwrap() - 0.25e-3).abs() < 1e-12, "{m:?}");
        // Already BF16: no such move.
        k.flops = [(FlopKind::TensorBf16, 2e11)].into_iter().collect();
        let d = analyze_kernel(&tensor_machine(), &k).diagnosis.unwrap();
        assert!(!d.advises("lower_precision"), "{d:?}");
    }

    #[test]
    fn a_launch_bound_gemm_is_not_told_to_pad_and_a_sub_wave_library_gemm_not_to_grow_its_batch() {
        let mut k = kernel(
            "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_tn_align1>(T1::Params)",
            &[(MemLevel::Dram, 5.0)],
            &[],
        );
        k.bytes.insert(MemLevel::Dram, 1.0);
        k.flops.insert(FlopKind::Fp32, 1.0);
        k.duration_s = Some(3e-6);
        let d = diagnose_kernel(&k);
        assert_eq!(d.position, Position::LaunchBound);
        assert!(!d.advises("pad_shape"), "{d:?}");
        k.duration_s = Some(50e-6);
        assert!(diagnose_kernel(&k).advises("pad_shape"));
        // A cuBLAS GEMM under one wave may be a weight gradient: no batch advice.
        let mut g = kernel("nvjet_sm90_tst_96x64_64x8_2x4_h_bz_NTN", &[(MemLevel::L2, 58.0)], &[(Pipe::Tensor, 57.0)]);
        g.evidence.sm_count = Some(132.0);
        g.evidence.blocks_per_sm = Some(1.0);
        g.evidence.grid_size = Some(96.0);
        let d = diagnose_kernel(&g);
        assert!(!d.advises("larger_problem"), "{d:?}");
    }

    #[test]
    fn launches_under_5_us_are_launch_bound_unless_a_unit_is_at_its_roof() {
        let mut k = kernel("own_kernel", &[(MemLevel::Dram, 65.0)], &[]);
        k.bytes.insert(MemLevel::Dram, 1.0);
        k.flops.insert(FlopKind::Fp32, 1.0);
        k.duration_s = Some(4.9e-6);
        assert_eq!(diagnose_kernel(&k).position, Position::LaunchBound);
        k.duration_s = Some(5.1e-6);
        assert_eq!(diagnose_kernel(&k).position, Position::UnderDiagonal);
        k.evidence.level_busy_pct.insert(MemLevel::Dram, 80.0);
        k.duration_s = Some(4.9e-6);
        assert_eq!(diagnose_kernel(&k).position, Position::OnDiagonal);
    }

    #[test]
    fn a_move_under_3_percent_of_the_kernel_is_evidence() {
        // Conflicts replay 10% of the wavefronts of a shared memory at `busy`%:
        // they can save 10% x busy of the time.
        let conflicted = |busy: f64| {
            let mut k = kernel("own_kernel", &[(MemLevel::Dram, 10.0)], &[(Pipe::Shared, busy)]);
            k.evidence.shared_bank_conflicts = Some(1e5);
            k.evidence.shared_wavefronts = Some(1e6);
            diagnose_kernel(&k)
        };
        assert!(conflicted(31.0).advises("avoid_bank_conflicts"));
        let d = conflicted(29.0);
        assert!(!d.advises("avoid_bank_conflicts") && d.has("small_cause"), "{d:?}");
        // A tail wave idling 30% of the slot time is a move worth 30%.
        let mut k = kernel("own_kernel", &[(MemLevel::Dram, 50.0)], &[]);
        k.evidence.sm_count = Some(100.0);
        k.evidence.blocks_per_sm = Some(1.0);
        k.evidence.grid_size = Some(210.0);
        let d = diagnose_kernel(&k);
        let m = d.next_moves.iter().find(|m| m.code() == "balance_waves").expect("a tail-wave move");
        assert!((m.saving_s.unwrap() - 0.3e-3).abs() < 1e-12, "{m:?}");
    }

    #[test]
    fn coalescing_advice_needs_excess_l2_traffic_that_the_l2_traffic_can_hold() {
        let wasteful = |excess_sectors: f64, l2_bytes: f64| {
            let mut k = kernel("own_kernel", &[(MemLevel::L2, 60.0), (MemLevel::Dram, 10.0)], &[]);
            k.bytes.insert(MemLevel::L2, l2_bytes);
            k.evidence.global_load_bytes_per_sector = Some(4.0);
            k.evidence.global_load_sectors = Some(1e6);
            k.evidence.global_store_sectors = Some(0.0);
            k.evidence.excessive_sectors = Some(excess_sectors);
            diagnose_kernel(&k)
        };
        // 10.1% of the L2 bytes are excess: a move; 9.9%: not.
        assert!(wasteful(0.101 * 32e6 / 32.0, 32e6).advises("coalesce"));
        assert!(!wasteful(0.099 * 32e6 / 32.0, 32e6).advises("coalesce"));
        // An "excess" larger than the whole L2 traffic is not evidence of waste.
        assert!(!wasteful(2e6, 32e6).advises("coalesce"));
    }

    #[test]
    fn bank_conflicts_are_a_move_only_where_shared_memory_binds() {
        let conflicted = |shared_busy: f64, dram: f64| {
            let mut k = kernel("own_kernel", &[(MemLevel::Dram, dram)], &[(Pipe::Shared, shared_busy)]);
            k.evidence.shared_bank_conflicts = Some(4e5);
            k.evidence.shared_wavefronts = Some(1e6);
            diagnose_kernel(&k)
        };
        assert!(conflicted(70.0, 40.0).advises("avoid_bank_conflicts"));
        // Global-memory waits bind: the conflicts are evidence only.
        let d = conflicted(20.0, 60.0);
        assert!(!d.advises("avoid_bank_conflicts") && d.has("bank_conflicts"), "{d:?}");
    }

    #[test]
    fn library_kernels_get_no_source_edits() {
        let mut k = kernel(
            "void cudnn::engines::some_kernel<float>(float*)",
            &[(MemLevel::Dram, 40.0)],
            &[(Pipe::Shared, 70.0)],
        );
        k.evidence.shared_bank_conflicts = Some(4e5);
        k.evidence.shared_wavefronts = Some(1e6);
        k.evidence.excessive_sectors = Some(1e5);
        k.bytes.insert(MemLevel::L2, 32e6);
        let d = diagnose_kernel(&k);
        for code in
            ["avoid_bank_conflicts", "coalesce", "more_independent_work", "more_bytes_in_flight", "fill_the_gpu"]
        {
            assert!(!d.advises(code), "{code} in {d:?}");
        }
        assert!(d.has("kernel_origin"));
    }

    #[test]
    fn an_unaligned_gemm_is_told_to_pad_with_the_time_an_aligned_one_takes() {
        let mut m = machine();
        m.ceilings.push(roofline_model::Ceiling::new(
            roofline_model::Resource::Compute(FlopKind::TensorBf16),
            "BF16 tensor",
            500e12,
            roofline_model::Provenance::new(Provenance::Measured, "bench"),
        ));
        let mut k = kernel(
            "void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1>(T1::Params)",
            &[(MemLevel::L1, 96.0)],
            &[(Pipe::Tensor, 12.0)],
        );
        k.flops.clear();
        k.flops.insert(FlopKind::TensorBf16, 1e12);
        k.duration_s = Some(8e-3);
        let d = analyze_kernel(&m, &k).diagnosis.unwrap();
        let pad = &d.next_moves[0];
        assert_eq!(pad.advice, Advice::PadShape { align: 1 });
        // 1 TFLOP at 500 TFLOP/s takes 2 ms: 6 ms saved of 8.
        assert!((pad.saving_s.unwrap() - 6e-3).abs() < 1e-9, "{pad:?}");
        assert!(pad.text().contains("aligned to 1 element "), "{}", pad.text());
        // Padded, it still moves its DRAM bytes: 4 ms of them leave 4 ms saved.
        let dram = m.bandwidth_roof(MemLevel::Dram).unwrap().rate;
        k.bytes.insert(MemLevel::Dram, 4e-3 * dram);
        let d = analyze_kernel(&m, &k).diagnosis.unwrap();
        let pad = d.next_moves.iter().find(|p| p.advice == Advice::PadShape { align: 1 }).unwrap();
        assert!((pad.saving_s.unwrap() - 4e-3).abs() < 1e-9, "{pad:?}");
        assert!(pad.rests_on.as_deref().unwrap_or("").contains("DRAM traffic"), "{pad:?}");
    }

    #[test]
    fn the_grid_is_named_in_singular_and_plural() {
        assert!(Finding::GridBelowOneWave { blocks: 1.0, slots: 132.0, idle_pct: 99.0 }
            .text()
            .contains("grid of 1 block under"));
        assert!(Finding::GridBelowOneWave { blocks: 3.0, slots: 132.0, idle_pct: 97.0 }
            .text()
            .contains("grid of 3 blocks under"));
    }

    #[test]
    fn a_short_launch_of_a_one_block_grid_gets_no_grid_or_register_advice() {
        let mut k = kernel("own_kernel", &[(MemLevel::Dram, 5.0)], &[]);
        k.bytes.insert(MemLevel::Dram, 1.0);
        k.flops.insert(FlopKind::Fp32, 1.0);
        k.duration_s = Some(2e-6);
        k.evidence.sm_count = Some(132.0);
        k.evidence.blocks_per_sm = Some(2.0);
        k.evidence.grid_size = Some(1.0);
        k.evidence.occupancy_theoretical_pct = Some(50.0);
        k.evidence.occupancy_limiter = Some("registers".into());
        let d = diagnose_kernel(&k);
        assert_eq!(d.position, Position::LaunchBound);
        assert!(!d.advises("fill_the_gpu") && !d.advises("occupancy_limited"), "{d:?}");
    }

    #[test]
    fn a_library_kernel_that_runs_long_on_one_block_is_told_to_use_the_librarys_parallel_routines() {
        // CuPy's var: one block of 528 slots for 24 ms, DRAM at 0.15%.
        let with_dram = |name: &str, seconds: f64, grid: f64, dram: f64| {
            let mut k = kernel(name, &[(MemLevel::Dram, dram)], &[(Pipe::Issue, 1.0)]);
            k.bytes.insert(MemLevel::Dram, 1.0);
            k.duration_s = Some(seconds);
            k.evidence.sm_count = Some(132.0);
            k.evidence.blocks_per_sm = Some(4.0);
            k.evidence.grid_size = Some(grid);
            diagnose_kernel(&k)
        };
        let one_block = |name: &str, seconds: f64, grid: f64| with_dram(name, seconds, grid, 0.15);
        let d = one_block("cupy_var_core_float32", 24e-3, 1.0);
        let m = &d.next_moves[0];
        assert_eq!(m.advice, Advice::SerialLibraryCall { library: Library::Cupy, blocks: 1.0, slots: 528.0 }, "{d:?}");
        // The same bytes at 75% of the roof: 0.15/75 of its time.
        assert!((m.saving_s.unwrap() - 24e-3 * (1.0 - 0.15 / 75.0)).abs() < 1e-9, "{m:?}");
        assert!(m.text().contains("((x - x.mean())**2).mean()"), "{}", m.text());
        let gen = "void gen_sequenced<curandStateXORWOW, float2, normal_args_st, &curand_normal_scaled2<curandStateXORWOW>, rng_config<curandStateXORWOW, 101>>(T1 *, T2 *, unsigned long, unsigned long, T3)";
        let d = one_block(gen, 400e-6, 32.0);
        assert!(d.next_moves[0].text().contains("Philox4_32_10"), "{d:?}");
        // A short launch is a small problem; 10% of the slots busy is not a
        // serial path; the user's own kernel is told to fill the GPU.
        assert!(!one_block("cupy_var_core_float32", 99e-6, 1.0).advises("serial_library_call"));
        assert!(!one_block("cupy_var_core_float32", 24e-3, 53.0).advises("serial_library_call"));
        assert!(one_block("cupy_var_core_float32", 24e-3, 52.0).advises("serial_library_call"));
        // At a tenth of the 75% line its bytes already move: no serial path.
        assert!(with_dram("cupy_var_core_float32", 24e-3, 1.0, 7.4).advises("serial_library_call"));
        assert!(!with_dram("cupy_var_core_float32", 24e-3, 1.0, 7.6).advises("serial_library_call"));
        let own = one_block("own_kernel", 24e-3, 1.0);
        assert!(!own.advises("serial_library_call") && own.advises("fill_the_gpu"), "{own:?}");
    }

    #[test]
    fn a_library_gemm_of_a_few_terms_per_output_is_an_outer_product_priced_at_its_write() {
        // GPyTorch's kernel matrix: 16384^2 fp32 outputs, K about 9, 1 GB
        // written, issue slots held by the stores.
        let rate = machine().bandwidth_roof(MemLevel::Dram).unwrap().rate;
        let gemm = |k_terms: f64, write_share: f64| {
            let name = "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x32x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas";
            let mut k = kernel(name, &[(MemLevel::Dram, 60.0)], &[(Pipe::Issue, 74.0), (Pipe::Fma, 31.0)]);
            let elements = 16384.0 * 16384.0;
            k.flops.insert(FlopKind::Fp32, 2.0 * k_terms * elements);
            k.bytes.insert(MemLevel::Dram, 1.05e9);
            k.evidence.l2_write_sectors = Some(elements * 4.0 / 32.0);
            k.evidence.dram_write_bytes = Some(1.05e9 * write_share);
            k.evidence.dram_read_bytes = Some(1.05e9 * (1.0 - write_share));
            // DRAM at 60% of the roof.
            k.duration_s = Some(1.05e9 / rate / 0.6);
            k.evidence.level_busy_pct.insert(MemLevel::Dram, 60.0);
            diagnose_kernel(&k)
        };
        let d = gemm(16.0, 0.99);
        let m = d.next_moves.iter().find(|m| m.advice.code() == "outer_product").unwrap_or_else(|| panic!("{d:?}"));
        assert!((m.saving_s.unwrap() - 0.4 * 1.05e9 / rate / 0.6).abs() < 1e-12, "{m:?}");
        assert!(m.text().contains("16 multiply-adds per output") && m.text().contains("1074 MB"), "{}", m.text());
        // K of 17 is a GEMM; a matrix that is not most of the traffic is not the cost.
        assert!(!gemm(17.0, 0.99).advises("outer_product"));
        assert!(!gemm(4.0, 0.49).advises("outer_product"));
        assert!(gemm(4.0, 0.51).advises("outer_product"));
    }

    #[test]
    fn the_clock_is_never_called_a_cooling_problem() {
        let t = Advice::Clock { loss_pct: 20.0 }.text();
        assert!(!t.contains("cooling") && t.contains("power cap"), "{t}");
    }

    #[test]
    fn a_streaming_kernel_over_a_full_wave_is_under_the_diagonal_from_35_percent_of_a_level() {
        let streaming = |l2: f64, grid: f64| {
            let mut k = kernel("own_kernel", &[(MemLevel::L2, l2)], &[(Pipe::Issue, 20.0)]);
            k.evidence.sm_count = Some(100.0);
            k.evidence.blocks_per_sm = Some(1.0);
            k.evidence.grid_size = Some(grid);
            diagnose_kernel(&k).position
        };
        assert_eq!(streaming(35.1, 200.0), Position::UnderDiagonal);
        assert_eq!(streaming(34.9, 200.0), Position::LatencyBound);
        // 95 of 100 slots is a full wave; 85 of them is not.
        assert_eq!(streaming(50.0, 95.0), Position::UnderDiagonal);
        assert_eq!(streaming(50.0, 85.0), Position::LatencyBound);
        // Without a grid there is no evidence of a full wave.
        assert_eq!(position(&[(MemLevel::L2, 50.0)], &[]), Position::LatencyBound);
    }

    #[test]
    fn an_ffma_gemm_is_held_by_its_fp32_pipe_and_offered_tf32_at_the_same_share_of_the_tf32_roof() {
        let mut k = Kernel::named(
            "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
            Provenance::Counter,
        );
        // 63 TFLOP/s: 63% of the FP32 roof.
        k.flops.insert(FlopKind::Fp32, 6.3e10);
        k.bytes.insert(MemLevel::Dram, 1e8);
        k.duration_s = Some(1e-3);
        k.evidence.pipe_busy_pct.insert(Pipe::Issue, 72.0);
        k.evidence.pipe_busy_pct.insert(Pipe::Fma, 63.0);
        k.evidence.level_busy_pct.insert(MemLevel::L2, 20.0);
        // FP32 at 100 TFLOP/s, TF32 tensor at 400: a quarter of the time.
        let mut m = Machine::simple("m", FlopKind::Fp32, 100e12, 4e12);
        m.ceilings.push(roofline_model::Ceiling::new(
            roofline_model::Resource::Compute(FlopKind::TensorTf32),
            FlopKind::TensorTf32.label(),
            400e12,
            m.ceilings[0].provenance.clone(),
        ));
        let d = analyze_kernel(&m, &k).diagnosis.unwrap();
        assert_eq!(d.binding(), Some((Unit::Pipe(Pipe::Fma), 63.0)), "{d:?}");
        // FFMAs under half of what issues: the issue slots bind, and no
        // evidence says they follow the FP32 pipe.
        let mut few = k.clone();
        few.evidence.pipe_busy_pct.insert(Pipe::Fma, 35.0);
        let d = analyze_kernel(&m, &few).diagnosis.unwrap();
        assert_eq!(d.binding(), Some((Unit::Pipe(Pipe::Issue), 72.0)), "{d:?}");
        assert!(!d.has("cuda_core_gemm"), "{d:?}");
        few.evidence.pipe_busy_pct.insert(Pipe::Fma, 37.0);
        let d = analyze_kernel(&m, &few).diagnosis.unwrap();
        assert_eq!(d.binding(), Some((Unit::Pipe(Pipe::Fma), 37.0)), "half of 72% is 36%: {d:?}");
        assert!(d.has("cuda_core_gemm") && d.position == Position::UnderFlatRoof, "{d:?}");
        let tf32 = &d.next_moves[0];
        assert_eq!(tf32.advice, Advice::AllowTf32 { role: Role::Gemm, caller: None });
        assert!((tf32.saving_s.unwrap() - 0.75e-3).abs() < 1e-12, "{tf32:?}");
        // Its busiest memory level at 40% bounds it: 60% saved.
        k.evidence.level_busy_pct.insert(MemLevel::L2, 40.0);
        let d = analyze_kernel(&m, &k).diagnosis.unwrap();
        assert!((d.next_moves[0].saving_s.unwrap() - 0.6e-3).abs() < 1e-12, "{d:?}");
        // A GPU without TF32 tensor cores: no such move.
        let d = analyze_kernel(&Machine::simple("m", FlopKind::Fp32, 100e12, 4e12), &k).diagnosis.unwrap();
        assert!(!d.advises("allow_tf32"), "{d:?}");
    }

    #[test]
    fn positions_have_their_labels() {
        assert_eq!(Position::IssueBound.label(), "issue-bound");
        assert_eq!(Position::LaunchBound.label(), "launch-bound");
        assert_eq!(Position::OnDiagonal.label(), "on the diagonal");
    }
}
