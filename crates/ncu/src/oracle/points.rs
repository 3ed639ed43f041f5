//! The old per-slice sums of launches (see the parent module).

use std::collections::BTreeMap;

use roofline_analysis::CONSTANT_MOVES_MAX_SHARE_PCT;
use roofline_model::{Ceiling, ClockBasis, FlopKind, GpuFacts, Machine, MemLevel, Origin, Pipe, Provenance, Resource};
use roofline_model::{ConstantMoves, Evidence, Fp16Accounting, Fp16Packing, MoveDetection, PipeUse};

use crate::csv::Launch;
use crate::metrics::{Slot, PIPES};
use crate::points::ByteConvention;

/// FLOPs per kind of one launch; kinds whose counters are all absent are
/// left out, kinds with zero FLOPs too.
pub fn flops(l: &Launch) -> BTreeMap<FlopKind, f64> {
    let mut out = BTreeMap::new();
    let sum = |terms: &[(Slot, f64)]| -> Option<f64> {
        let mut any = false;
        let mut total = 0.0;
        for &(slot, w) in terms {
            if let Some(v) = l.get(slot) {
                any = true;
                total += w * v;
            }
        }
        any.then_some(total)
    };
    let kinds = [
        (FlopKind::Fp64, sum(&[(Slot::Dadd, 1.0), (Slot::Dmul, 1.0), (Slot::Dfma, 2.0)])),
        (FlopKind::Fp32, sum(&[(Slot::Fadd, 1.0), (Slot::Fmul, 1.0), (Slot::Ffma, 2.0)])),
        (FlopKind::Fp16, sum(&[(Slot::Hadd, 2.0), (Slot::Hmul, 2.0), (Slot::Hfma, 4.0)])),
    ];
    for (kind, v) in kinds {
        if let Some(v) = v.filter(|v| *v > 0.0) {
            out.insert(kind, v);
        }
    }
    for (&kind, t) in &l.tensor {
        if t.ops > 0.0 {
            *out.entry(kind).or_insert(0.0) += t.ops;
        }
    }
    out
}

/// Bytes per memory level of one launch.
pub fn bytes(l: &Launch, conv: ByteConvention) -> BTreeMap<MemLevel, f64> {
    let (l2, l1) = match conv {
        ByteConvention::Ncu => (Slot::L2Bytes, Slot::L1Bytes),
        ByteConvention::Nersc => (Slot::L2BytesNersc, Slot::L1BytesNersc),
    };
    let mut out = BTreeMap::new();
    for (level, slot) in [(MemLevel::Dram, Slot::DramBytes), (MemLevel::L2, l2), (MemLevel::L1, l1)] {
        if let Some(v) = l.get(slot) {
            out.insert(level, v.max(0.0));
        }
    }
    out
}

/// Duration in seconds, when known and positive.
pub fn duration(l: &Launch) -> Option<f64> {
    l.get(Slot::Duration).filter(|d| *d >= MIN_PLAUSIBLE_DURATION_S && d.is_finite())
}

/// The shortest duration taken as a measurement, in seconds. ncu prints
/// `gpu__time_duration.sum` in whole nanoseconds and no kernel runs in
/// less than one (a launch alone takes microseconds), so anything below is
/// an edited capture or a wrong unit: treated as no duration at all,
/// like a zero (see `Warning::DurationBelowFloor`).
pub const MIN_PLAUSIBLE_DURATION_S: f64 = 1e-9;

/// A positive duration below [`MIN_PLAUSIBLE_DURATION_S`], when the launch has one.
pub fn duration_below_floor(l: &Launch) -> Option<f64> {
    l.get(Slot::Duration).filter(|d| *d > 0.0 && *d < MIN_PLAUSIBLE_DURATION_S)
}

/// Duration-weighted mean of a slot over launches (launches without a
/// duration weigh 1 ns so that a zero-duration capture still averages).
fn weighted(launches: &[&Launch], slot: Slot) -> Option<f64> {
    let mut num = 0.0;
    let mut den = 0.0;
    for l in launches {
        if let Some(v) = l.get(slot) {
            let w = duration(l).unwrap_or(1e-9);
            num += v * w;
            den += w;
        }
    }
    (den > 0.0).then(|| num / den)
}

fn first(launches: &[&Launch], slot: Slot) -> Option<f64> {
    launches.iter().find_map(|l| l.get(slot))
}

fn max(launches: &[&Launch], slot: Slot) -> Option<f64> {
    launches.iter().filter_map(|l| l.get(slot)).reduce(f64::max)
}

fn total(launches: &[&Launch], slot: Slot) -> Option<f64> {
    let v: Vec<f64> = launches.iter().filter_map(|l| l.get(slot)).collect();
    (!v.is_empty()).then(|| v.iter().sum())
}

/// A launch shape: (grid, block) as ncu printed them.
type Shape = (std::sync::Arc<str>, std::sync::Arc<str>);

/// The launches of the shape (grid x block) that took the most time, the
/// number of distinct shapes and that shape's share of the time: a kernel
/// launched at several shapes is judged by where its time goes, never by
/// its first launch.
fn dominant_shape<'a>(launches: &[&'a Launch]) -> (Vec<&'a Launch>, u32, f64) {
    let mut shapes: Vec<(Shape, f64, Vec<&'a Launch>)> = Vec::new();
    let mut all = 0.0;
    for &l in launches {
        let key = (l.grid.clone(), l.block.clone());
        let w = duration(l).unwrap_or(1e-9);
        all += w;
        match shapes.iter_mut().find(|s| s.0 == key) {
            Some(s) => {
                s.1 += w;
                s.2.push(l);
            }
            None => shapes.push((key, w, vec![l])),
        }
    }
    let n = shapes.len() as u32;
    let best = shapes.into_iter().max_by(|a, b| a.1.total_cmp(&b.1));
    match best {
        Some((_, t, ls)) => (ls, n, if all > 0.0 { t / all } else { 1.0 }),
        None => (Vec::new(), 0, 1.0),
    }
}

/// Each unit's utilisation over the elapsed time, duration-weighted.
fn busy(launches: &[&Launch]) -> (BTreeMap<MemLevel, f64>, BTreeMap<Pipe, f64>) {
    let mut levels = BTreeMap::new();
    for (level, slot) in [(MemLevel::Dram, Slot::DramSol), (MemLevel::L2, Slot::L2Busy), (MemLevel::L1, Slot::L1Busy)] {
        if let Some(p) = weighted(launches, slot) {
            levels.insert(level, p);
        }
    }
    let mut pipes = BTreeMap::new();
    for (pipe, slot) in [
        (Pipe::Issue, Slot::IssueBusy),
        (Pipe::Tensor, Slot::TensorBusy),
        (Pipe::Fma, Slot::FmaBusy),
        (Pipe::Fp16, Slot::Fp16Busy),
        (Pipe::Alu, Slot::AluBusy),
        (Pipe::Fp64, Slot::Fp64Busy),
        (Pipe::Xu, Slot::XuBusy),
        (Pipe::Lsu, Slot::LsuBusy),
        (Pipe::Shared, Slot::SharedBusy),
        (Pipe::SharedAtomic, Slot::SharedAtomicBusy),
    ] {
        if let Some(p) = weighted(launches, slot) {
            pipes.insert(pipe, p);
        }
    }
    (levels, pipes)
}

/// The diagnosis evidence of one or more launches of a kernel: percentages
/// weighted by duration, launch shape from the shape that took the most
/// time.
pub fn evidence(launches: &[&Launch]) -> Evidence {
    let (shape, launch_shapes, shape_share) = dominant_shape(launches);
    let (level_busy_pct, pipe_busy_pct) = busy(launches);
    let limits = [
        (Slot::LimitRegisters, "registers"),
        (Slot::LimitSharedMem, "shared memory"),
        (Slot::LimitWarps, "warps (block size)"),
        (Slot::LimitBlocks, "blocks per SM"),
        (Slot::LimitBarriers, "barriers"),
    ];
    let vals: Vec<(f64, &str)> = limits.iter().filter_map(|(s, n)| first(&shape, *s).map(|v| (v, *n))).collect();
    let blocks_per_sm = vals.iter().map(|v| v.0).reduce(f64::min);
    // Limits are in blocks per SM; one that is not binding reads as the
    // hardware's block limit, so a tie with "blocks per SM" is that limit.
    let theoretical = weighted(launches, Slot::OccupancyTheoretical);
    let limiter = vals.iter().map(|v| v.0).reduce(f64::min).and_then(|least| {
        if theoretical.is_some_and(|t| t >= 99.95) {
            return None;
        }
        let tied: Vec<&str> = vals.iter().filter(|v| v.0 == least).map(|v| v.1).collect();
        Some(if tied.contains(&"blocks per SM") { "blocks per SM".to_string() } else { tied.join(" and ") })
    });
    let shared = match (first(launches, Slot::SharedStatic), first(launches, Slot::SharedDynamic)) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    };
    let conflicts = match (total(launches, Slot::BankConflictsLoad), total(launches, Slot::BankConflictsStore)) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    };
    let mut stalls: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for l in launches {
        let w = duration(l).unwrap_or(1e-9);
        for (r, v) in &l.stalls {
            let e = match stalls.get_mut(&**r) {
                Some(e) => e,
                None => stalls.entry(r.to_string()).or_default(),
            };
            e.0 += v * w;
            e.1 += w;
        }
    }
    // Sector efficiency is only meaningful for launches that did the access:
    // ncu reports 0 bytes/sector for a kernel with no global loads.
    let sectors = |slot: Slot| -> Option<f64> {
        let v: Vec<&&Launch> = launches.iter().filter(|l| l.get(slot).is_some_and(|v| v > 0.0)).collect();
        if v.is_empty() {
            return None;
        }
        let w: Vec<&Launch> = v.into_iter().copied().collect();
        weighted(&w, slot)
    };
    // A limit "by blocks per SM" only matters when it is below what the
    // hardware allows anyway; the theoretical occupancy says if it limits.
    let mut ev = Evidence {
        dram_throughput_pct: weighted(launches, Slot::DramSol),
        sm_throughput_pct: weighted(launches, Slot::SmSol),
        occupancy_theoretical_pct: theoretical,
        occupancy_achieved_pct: weighted(launches, Slot::OccupancyAchieved),
        occupancy_limiter: limiter,
        occupancy_hint: None,
        registers_per_thread: max(launches, Slot::Registers),
        block_size: first(&shape, Slot::BlockSize),
        grid_size: first(&shape, Slot::GridSize),
        shared_mem_per_block: shared,
        global_load_bytes_per_sector: sectors(Slot::BytesPerSectorLoad),
        global_store_bytes_per_sector: sectors(Slot::BytesPerSectorStore),
        shared_bank_conflicts: conflicts,
        excessive_sectors: total(launches, Slot::ExcessiveSectors),
        // Every launch weighs more than zero (1 ns without a duration).
        stalls: stalls.into_iter().map(|(r, (n, w))| (r, n / w)).collect(),
        counter_pct_of_roof: None,
        nvlink_rx_bytes: total(launches, Slot::NvlinkRx),
        nvlink_tx_bytes: total(launches, Slot::NvlinkTx),
        shared_wavefronts: total(launches, Slot::SharedWavefronts),
        waves: first(&shape, Slot::Waves),
        sm_count: first(&shape, Slot::SmCount),
        blocks_per_sm,
        sm_active_pct: sm_active_pct(launches),
        sm_clock_hz: weighted(launches, Slot::SmClock),
        max_sm_clock_hz: first(launches, Slot::MaxSmClock).map(as_hz),
        global_load_sectors: total(launches, Slot::GlobalLoadSectors),
        global_store_sectors: total(launches, Slot::GlobalStoreSectors),
        dram_read_bytes: total(launches, Slot::DramReadBytes),
        dram_write_bytes: total(launches, Slot::DramWriteBytes),
        l2_read_sectors: total(launches, Slot::L2ReadSectors),
        l2_write_sectors: total(launches, Slot::L2WriteSectors),
        tma_load_sectors: total(launches, Slot::TmaLoadSectors),
        async_copy_instructions: total(launches, Slot::AsyncCopyInstructions),
        wgmma_pct: pipe_pct(launches, "tensor_op_gmma"),
        warp_instructions: total(launches, Slot::WarpInstructions),
        pipes: pipes(launches),
        fp16: None,
        level_busy_pct,
        pipe_busy_pct,
        shared_atomic_conflicts: total(launches, Slot::SharedAtomicConflicts),
        shared_atomic_wavefronts: total(launches, Slot::SharedAtomicWavefronts),
        launch_shapes: (launch_shapes > 1).then_some(launch_shapes),
        dominant_shape_share: (launch_shapes > 1).then_some(shape_share),
        ncu_launch_ids: launches
            .iter()
            .map(|l| l.id.clone())
            .filter(|id| !id.is_empty())
            .take(roofline_model::NCU_IDS_KEPT)
            .collect(),
    };
    // The occupancy calculator turns the launch shape into the advice ncu
    // does not give: how many registers or bytes fewer fit another block.
    let cc = launches.iter().find_map(|l| roofline_hw::parse_capability(&l.cc));
    if let Some((major, minor)) = cc {
        roofline_analysis::annotate_evidence(&mut ev, major, minor);
    }
    ev
}

/// A clock the CSV gave in kHz (device attributes) as Hz; a value already
/// in Hz (a units row that scaled it) is kept.
fn as_hz(v: f64) -> f64 {
    if v > 1e11 {
        v / 1e3
    } else {
        v
    }
}

/// % of the elapsed cycles the average SM was active, duration-weighted.
fn sm_active_pct(launches: &[&Launch]) -> Option<f64> {
    let mut num = 0.0;
    let mut den = 0.0;
    for l in launches {
        if let (Some(a), Some(e)) = (l.get(Slot::SmCyclesActive), l.get(Slot::Cycles).filter(|e| *e > 0.0)) {
            let w = duration(l).unwrap_or(1e-9);
            num += w * 100.0 * a / e;
            den += w;
        }
    }
    (den > 0.0).then(|| num / den)
}

/// Duration-weighted utilisation of one Nsight Compute pipe: the larger of
/// its instruction rate and its busy cycles, as % of peak.
fn pipe_pct(launches: &[&Launch], name: &str) -> Option<f64> {
    let mut num = 0.0;
    let mut den = 0.0;
    for l in launches {
        let busy = l.pipes.get(name).and_then(|p| match (p.pct_of_peak, p.cycles_pct) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        });
        if let Some(p) = busy {
            let w = duration(l).unwrap_or(1e-9);
            num += w * p;
            den += w;
        }
    }
    (den > 0.0).then(|| num / den)
}

/// Warp instructions of one pipe in one launch: the count when collected,
/// else ncu's % of peak x the architecture's issue rate x the SMs' active
/// cycles (what `--set full` exports).
fn pipe_instructions(l: &Launch, name: &str, pipe: Pipe) -> Option<f64> {
    let p = l.pipes.get(name)?;
    if let Some(n) = p.warp_instructions {
        return Some(n);
    }
    let (major, minor) = roofline_hw::parse_capability(&l.cc)?;
    let rate = roofline_hw::pipe_rate(roofline_model::ComputeCapability::new(major, minor), pipe)?;
    // The tensor families have no table rate; their counts need `.sum`.
    if pipe == Pipe::Tensor {
        return None;
    }
    Some(
        p.pct_of_peak? / 100.0
            * rate.warp_inst_per_clock_per_sm
            * l.get(Slot::SmCyclesActive)?
            * l.get(Slot::SmCount)?,
    )
}

/// Per pipe: utilisation (duration-weighted; the tensor pipe takes its
/// busiest family) and warp instructions (summed), over launches. Also the
/// issue slots, shared-memory instructions and atomics.
fn pipes(launches: &[&Launch]) -> BTreeMap<Pipe, PipeUse> {
    let mut out: BTreeMap<Pipe, PipeUse> = BTreeMap::new();
    for &(name, pipe) in PIPES {
        let pct = pipe_pct(launches, name);
        let counts: Vec<f64> = launches.iter().filter_map(|l| pipe_instructions(l, name, pipe)).collect();
        let count = (!counts.is_empty()).then(|| counts.iter().sum::<f64>());
        if pct.is_none() && count.is_none() {
            continue;
        }
        let e = out.entry(pipe).or_default();
        if let Some(p) = pct {
            e.pct_of_peak = Some(e.pct_of_peak.map_or(p, |q| q.max(p)));
        }
        if let Some(n) = count {
            e.warp_instructions = Some(e.warp_instructions.unwrap_or(0.0) + n);
        }
    }
    let sum_of = |slots: &[Slot]| -> Option<f64> {
        let v: Vec<f64> = slots.iter().filter_map(|s| total(launches, *s)).collect();
        (!v.is_empty()).then(|| v.iter().sum())
    };
    let issue = weighted(launches, Slot::IssueActive);
    let issued = total(launches, Slot::WarpInstructions);
    if issue.is_some() || issued.is_some() {
        out.insert(Pipe::Issue, PipeUse { pct_of_peak: issue, warp_instructions: issued });
    }
    if let Some(n) = sum_of(&[Slot::SharedLoadInstructions, Slot::SharedStoreInstructions]).filter(|n| *n > 0.0) {
        out.insert(Pipe::Shared, PipeUse { pct_of_peak: None, warp_instructions: Some(n) });
    }
    if let Some(n) = sum_of(&[
        Slot::GlobalReductionInstructions,
        Slot::GenericAtomicAluInstructions,
        Slot::GenericAtomicCasInstructions,
    ])
    .filter(|n| *n > 0.0)
    {
        out.insert(Pipe::GlobalAtomic, PipeUse { pct_of_peak: None, warp_instructions: Some(n) });
    }
    if let Some(n) = total(launches, Slot::SharedAtomicInstructions).filter(|n| *n > 0.0) {
        out.insert(Pipe::SharedAtomic, PipeUse { pct_of_peak: None, warp_instructions: Some(n) });
    }
    out
}

/// How the FP16 FLOPs of a kernel's launches are counted, and whether its
/// HFMA instructions are constant moves rather than FP16 work.
///
/// `flops` holds the kernel's FLOPs per kind as Nsight Compute counts them
/// (FP16 as packed half2). Constant moves are recognised by their pattern:
/// HFMA without a single HADD or HMUL, beside more FP32, FP64 or tensor
/// work. Then either the pipe counters show no FP16 instruction on the FMA
/// pipe (on the H200 the HFMA2.MMA moves execute on the tensor pipe:
/// `sm__inst_executed_pipe_tensor_op_hmma` counts them exactly while
/// `sm__inst_executed_pipe_fma_type_fp16` stays at 0), or, without pipe
/// counters, the HFMA are under [`CONSTANT_MOVES_MAX_SHARE_PCT`] of the
/// kernel's FLOPs.
pub fn fp16_accounting(launches: &[&Launch], flops: &BTreeMap<FlopKind, f64>) -> Option<Fp16Accounting> {
    let sum = |s: Slot| launches.iter().filter_map(|l| l.get(s)).sum::<f64>();
    let (hfma, hadd, hmul) = (sum(Slot::Hfma), sum(Slot::Hadd), sum(Slot::Hmul));
    if hfma + hadd + hmul <= 0.0 {
        return None;
    }
    let packed = 4.0 * hfma + 2.0 * hadd + 2.0 * hmul;
    let scalar = packed / 2.0;
    let total: f64 = flops.values().sum();
    let other: f64 = flops.iter().filter(|(k, _)| **k != FlopKind::Fp16).map(|(_, v)| v).sum();
    let fp16_pipe = pipe_pct(launches, "fma_type_fp16");
    let (small, detected_by) = match fp16_pipe {
        Some(p) => (p == 0.0, MoveDetection::PipeCounters),
        None => (100.0 * packed < CONSTANT_MOVES_MAX_SHARE_PCT * total, MoveDetection::Pattern),
    };
    let moves = hfma > 0.0 && hadd == 0.0 && hmul == 0.0 && other > packed && small;
    Some(Fp16Accounting {
        packed_flops: packed,
        scalar_flops: scalar,
        packing: Fp16Packing::Unknown,
        constant_moves: moves.then_some(ConstantMoves {
            thread_instructions: hfma,
            flops_as_counted: 4.0 * hfma,
            detected_by,
        }),
    })
}

/// Tensor kinds whose per-cycle peak ncu reports at the 2:4 sparse rate on
/// this compute capability (twice the dense rate a dense GEMM can reach).
/// Checked on Hopper (cc 9.0): BF16 reads 8192 ops/clk/SM where the dense
/// rate is 4096; TF32, FP8 and INT8 read twice their dense datasheet rates
/// too; FP64 has no sparse mode.
fn sparse_peak(kind: FlopKind, cc_major: Option<u32>) -> bool {
    let sparse = cc_major.is_some_and(|m| roofline_hw::arch_for_major(m).ncu.sparse_tensor_peak == Some(true));
    sparse && kind.is_tensor() && kind != FlopKind::TensorFp64
}

/// Whether a capture of this generation has shown which rate ncu's tensor
/// peaks are (the descriptor's `sparse_tensor_peak` is known).
fn sparse_convention_known(cc_major: Option<u32>) -> bool {
    cc_major.is_some_and(|m| roofline_hw::arch_for_major(m).ncu.sparse_tensor_peak.is_some())
}

fn fmt_ghz(hz: f64) -> String {
    format!("{:.3} GHz", hz / 1e9)
}

/// The roofs the counters themselves imply ("counter peaks"): each
/// `*.peak_sustained` (per cycle) times its unit's clock, as Nsight
/// Compute's roofline chart computes them. Clocks are duration-weighted
/// over `launches` (with `--clock-control none` they differ per launch).
pub fn counter_machine(launches: &[&Launch], conv: ByteConvention) -> Machine {
    let cc_major = launches.iter().find_map(|l| l.cc.split('.').next().and_then(|m| m.trim().parse::<u32>().ok()));
    // A clock of 0 (a hand-edited or broken capture) gives no roof, not a
    // roof of 0 FLOP/s.
    let sm_clock = weighted(launches, Slot::SmClock).filter(|c| *c > 0.0);
    // The GPU's own name when the capture holds it (every view says "NVIDIA
    // H200"); the ceilings' provenance still says they are counter peaks.
    let device_name = launches.iter().map(|l| l.device_name.trim()).find(|n| !n.is_empty()).map(str::to_string);
    let mut m = Machine {
        name: device_name.clone().unwrap_or_else(|| "counter peaks (Nsight Compute)".into()),
        gpu: GpuFacts {
            name: device_name,
            compute_capability: launches.iter().map(|l| l.cc.to_string()).find(|c| !c.is_empty()),
            sms: first(launches, Slot::SmCount).filter(|n| *n > 0.0).map(|n| n as u32),
            sm_clock_mhz: sm_clock.map(|c| c / 1e6),
            mem_clock_mhz: weighted(launches, Slot::DramClock).map(|c| c / 1e6),
            ..GpuFacts::default()
        },
        ..Machine::default()
    };
    let n = launches.len();
    let clock_note =
        |hz: f64, metric: &str| format!("{metric} = {} (duration-weighted over {n} launch(es))", fmt_ghz(hz));
    if let Some(clk) = sm_clock {
        let cuda = [
            (FlopKind::Fp64, Slot::DfmaPeak, 2.0, "dfma"),
            (FlopKind::Fp32, Slot::FfmaPeak, 2.0, "ffma"),
            (FlopKind::Fp16, Slot::HfmaPeak, 4.0, "hfma"),
        ];
        for (kind, slot, per_inst, op) in cuda {
            if let Some(p) = first(launches, slot).filter(|p| *p > 0.0) {
                let provenance = Provenance::new(
                    Origin::Counter,
                    format!(
                        "{per_inst} x smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.peak_sustained ({p} per cycle) x {}",
                        clock_note(clk, "sm__cycles_elapsed.avg.per_second")
                    ),
                );
                m.ceilings.push(
                    Ceiling::new(Resource::Compute(kind), kind.label(), per_inst * p * clk, provenance)
                        .with_clock(ClockBasis::sm(clk / 1e6, "profiled kernels' SM clock")),
                );
            }
        }
        let mut kinds: BTreeMap<FlopKind, f64> = BTreeMap::new();
        for l in launches {
            for (&k, t) in &l.tensor {
                if let Some(p) = t.peak_per_cycle.filter(|p| *p > 0.0) {
                    kinds.entry(k).or_insert(p);
                }
            }
        }
        for (kind, p) in kinds {
            let sparse = sparse_peak(kind, cc_major);
            let per_cycle = if sparse { p / 2.0 } else { p };
            let (name, how) = if sparse {
                (format!("{} (dense)", kind.label()), format!("half of ncu's sparse peak: {p}/2 ops per cycle"))
            } else {
                (kind.label().to_string(), format!("{p} ops per cycle"))
            };
            let provenance = Provenance::new(
                Origin::Counter,
                format!(
                    "sm__ops_path_tensor_src_*.sum.peak_sustained, {how}, x {}",
                    clock_note(clk, "sm__cycles_elapsed.avg.per_second")
                ),
            );
            m.ceilings.push(
                Ceiling::new(Resource::Compute(kind), name, per_cycle * clk, provenance)
                    .with_clock(ClockBasis::sm(clk / 1e6, "profiled kernels' SM clock")),
            );
            if kind.is_tensor() && !sparse_convention_known(cc_major) {
                let note = format!(
                    "{}: Nsight Compute's tensor peak is used as it is; whether it is the sparse or the dense rate was checked on compute capability 9.0 only",
                    kind.label()
                );
                if !m.notes.contains(&note) {
                    m.notes.push(note);
                }
            }
            if sparse {
                let note = format!(
                    "{}: Nsight Compute's peak is the 2:4 sparse rate; the roof used is half of it (dense work cannot exceed it)",
                    kind.label()
                );
                if !m.notes.contains(&note) {
                    m.notes.push(note);
                }
            }
        }
    }
    let (l2_peak, l1_peak, l2_metric, l1_metric) = match conv {
        ByteConvention::Ncu => (
            Slot::L2Peak,
            Slot::L1Peak,
            "32 B x lts__lts2xbar_cycles_active.sum.peak_sustained",
            "128 B x l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained",
        ),
        ByteConvention::Nersc => (
            Slot::L2PeakNersc,
            Slot::L1PeakNersc,
            "lts__t_bytes.sum.peak_sustained",
            "l1tex__t_bytes.sum.peak_sustained",
        ),
    };
    let levels = [
        (
            MemLevel::Dram,
            Slot::DramPeak,
            Slot::DramClock,
            "dram__bytes.sum.peak_sustained",
            "dram__cycles_elapsed.avg.per_second",
        ),
        (MemLevel::L2, l2_peak, Slot::LtsClock, l2_metric, "lts__cycles_elapsed.avg.per_second"),
        (MemLevel::L1, l1_peak, Slot::L1Clock, l1_metric, "l1tex__cycles_elapsed.avg.per_second"),
    ];
    for (level, peak, clock, metric, clock_metric) in levels {
        if let (Some(p), Some(clk)) =
            (first(launches, peak).filter(|p| *p > 0.0), weighted(launches, clock).filter(|c| *c > 0.0))
        {
            let basis = if level == MemLevel::Dram {
                ClockBasis::mem(clk / 1e6, "DRAM clock during the profiled kernels")
            } else {
                ClockBasis { sm_mhz: None, mem_mhz: None, basis: format!("{} clock {}", level.label(), fmt_ghz(clk)) }
            };
            let provenance = Provenance::new(
                Origin::Counter,
                format!("{metric} ({p} B per cycle) x {}", clock_note(clk, clock_metric)),
            );
            m.ceilings
                .push(Ceiling::new(Resource::Memory(level), level.label(), p * clk, provenance).with_clock(basis));
        }
    }
    m
}
