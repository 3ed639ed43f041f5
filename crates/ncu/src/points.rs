//! From counters to roofline points: FLOPs per kind, bytes per memory level,
//! duration and diagnosis evidence of a launch (or of several launches of
//! one kernel), and the "counter peaks" machine the counters imply.
//!
//! The formulas are Nsight Compute's (docs: ncu-roofline-metrics.md):
//! FP64 = dadd + dmul + 2 dfma, FP32 = fadd + fmul + 2 ffma, FP16 = 2 hadd +
//! 2 hmul + 4 hfma (one half instruction works on a half2 pair), tensor
//! cores: one `sm__ops_path_tensor_src_*` operation is one FLOP on Hopper.
//! Bytes: DRAM = `dram__bytes.sum`; L2 and L1 in Nsight Compute's chart
//! convention (32 B per L2-to-crossbar cycle, 128 B per L1 writeback cycle)
//! or NERSC's (`lts__t_bytes`, `l1tex__t_bytes`).

use std::collections::BTreeMap;

use roofline_core::kernel::Evidence;
use roofline_core::machine::{
    Ceiling, ClockBasis, FlopKind, GpuFacts, Machine, MemLevel, Origin, Provenance, Resource,
};

use crate::csv::Launch;
use crate::metrics::Slot;

/// How bytes at L2 and L1 are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ByteConvention {
    /// Nsight Compute's roofline chart: 32 x `lts__lts2xbar_cycles_active`,
    /// 128 x `l1tex__lsu_writeback_active_mem_lgds`.
    #[default]
    Ncu,
    /// NERSC's hierarchical roofline: `lts__t_bytes`, `l1tex__t_bytes`.
    Nersc,
}

impl ByteConvention {
    pub fn describe(self) -> &'static str {
        match self {
            ByteConvention::Ncu => "Nsight Compute's chart convention: DRAM = dram__bytes.sum; L2 = 32 B x lts__lts2xbar_cycles_active.sum; L1 = 128 B x l1tex__lsu_writeback_active_mem_lgds.sum",
            ByteConvention::Nersc => "NERSC's hierarchical convention: DRAM = dram__bytes.sum; L2 = lts__t_bytes.sum; L1 = l1tex__t_bytes.sum",
        }
    }
}

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
    l.get(Slot::Duration).filter(|d| *d > 0.0 && d.is_finite())
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

/// The diagnosis evidence of one or more launches of a kernel: percentages
/// weighted by duration, launch shape from the first launch.
pub fn evidence(launches: &[&Launch]) -> Evidence {
    let limits = [
        (Slot::LimitRegisters, "registers"),
        (Slot::LimitSharedMem, "shared memory"),
        (Slot::LimitWarps, "warps (block size)"),
        (Slot::LimitBlocks, "blocks per SM"),
        (Slot::LimitBarriers, "barriers"),
    ];
    let vals: Vec<(f64, &str)> = limits.iter().filter_map(|(s, n)| first(launches, *s).map(|v| (v, *n))).collect();
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
            let e = stalls.entry(r.clone()).or_default();
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
        block_size: first(launches, Slot::BlockSize),
        grid_size: first(launches, Slot::GridSize),
        shared_mem_per_block: shared,
        global_load_bytes_per_sector: sectors(Slot::BytesPerSectorLoad),
        global_store_bytes_per_sector: sectors(Slot::BytesPerSectorStore),
        shared_bank_conflicts: conflicts,
        excessive_sectors: total(launches, Slot::ExcessiveSectors),
        stalls: stalls.into_iter().filter(|(_, (_, w))| *w > 0.0).map(|(r, (n, w))| (r, n / w)).collect(),
        counter_pct_of_roof: None,
        nvlink_rx_bytes: total(launches, Slot::NvlinkRx),
        nvlink_tx_bytes: total(launches, Slot::NvlinkTx),
    };
    // The occupancy calculator turns the launch shape into the advice ncu
    // does not give: how many registers or bytes fewer fit another block.
    let cc = launches.iter().find_map(|l| roofline_core::arch::parse_capability(&l.cc));
    if let Some((major, minor)) = cc {
        roofline_core::occupancy::annotate_evidence(&mut ev, major, minor);
    }
    ev
}

/// Tensor kinds whose per-cycle peak ncu reports at the 2:4 sparse rate on
/// this compute capability (twice the dense rate a dense GEMM can reach).
/// Checked on Hopper (cc 9.0): BF16 reads 8192 ops/clk/SM where the dense
/// rate is 4096; TF32, FP8 and INT8 read twice their dense datasheet rates
/// too; FP64 has no sparse mode.
fn sparse_peak(kind: FlopKind, cc_major: Option<u32>) -> bool {
    cc_major == Some(9) && kind.is_tensor() && kind != FlopKind::TensorFp64
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
    let sm_clock = weighted(launches, Slot::SmClock);
    let mut m = Machine {
        name: "counter peaks (Nsight Compute)".into(),
        gpu: GpuFacts {
            compute_capability: launches.iter().map(|l| l.cc.clone()).find(|c| !c.is_empty()),
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
            if kind.is_tensor() && cc_major != Some(9) {
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
        if let (Some(p), Some(clk)) = (first(launches, peak).filter(|p| *p > 0.0), weighted(launches, clock)) {
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
