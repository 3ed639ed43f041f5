//! From counters to roofline points: FLOPs per kind, bytes per memory level,
//! duration and diagnosis evidence of a launch (or of several launches of
//! one kernel), and the "counter peaks" machine the counters imply.
//!
//! A kernel's figures are summed one launch at a time ([`KernelSums`],
//! [`MachineSums`]) rather than over a list of its launches, so that a
//! capture's launches need not be held: `import` keeps per kernel and per
//! launch shape a fixed set of sums, whatever the number of launches. Each
//! sum adds in launch order, from the value a list's sum starts at, so the
//! figures are the bits that summing the held launches gave.
//!
//! The formulas are Nsight Compute's (docs: ncu-roofline-metrics.md):
//! FP64 = dadd + dmul + 2 dfma, FP32 = fadd + fmul + 2 ffma, FP16 = 2 hadd +
//! 2 hmul + 4 hfma (one half instruction works on a half2 pair), tensor
//! cores: one `sm__ops_path_tensor_src_*` operation is one FLOP on Hopper.
//! Bytes: DRAM = `dram__bytes.sum`; L2 and L1 in Nsight Compute's chart
//! convention (32 B per L2-to-crossbar cycle, 128 B per L1 writeback cycle)
//! or NERSC's (`lts__t_bytes`, `l1tex__t_bytes`).

use std::collections::BTreeMap;
use std::sync::Arc;

use roofline_analysis::{level_caveats, CONSTANT_MOVES_MAX_SHARE_PCT};
use roofline_model::{Ceiling, ClockBasis, FlopKind, GpuFacts, Kernel, Machine, MemLevel, Origin, Pipe, Provenance};
use roofline_model::{ConstantMoves, Evidence, Fp16Accounting, Fp16Packing, MoveDetection, PipeUse, Resource};

use crate::csv::Launch;
use crate::metrics::{Slot, PIPES, SLOT_COUNT};

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
    /// The counters behind each level's bytes, written into the document's
    /// notes so that a reader can reproduce the intensities.
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
    each_flop(l, |kind, v| {
        out.insert(kind, v);
    });
    out
}

/// Each kind of [`flops`] and its FLOPs, handed over without building a
/// map (this runs for every launch).
fn each_flop(l: &Launch, mut f: impl FnMut(FlopKind, f64)) {
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
            f(kind, v);
        }
    }
    // Tensor kinds are not CUDA-core kinds: each comes once.
    for (&kind, t) in &l.tensor {
        if t.ops > 0.0 {
            f(kind, t.ops);
        }
    }
}

/// Bytes per memory level of one launch.
pub fn bytes(l: &Launch, conv: ByteConvention) -> BTreeMap<MemLevel, f64> {
    let mut out = BTreeMap::new();
    each_byte(l, conv, |level, v| {
        out.insert(level, v);
    });
    out
}

/// Each level of [`bytes`] and its bytes, handed over without building a map.
fn each_byte(l: &Launch, conv: ByteConvention, mut f: impl FnMut(MemLevel, f64)) {
    let (l2, l1) = match conv {
        ByteConvention::Ncu => (Slot::L2Bytes, Slot::L1Bytes),
        ByteConvention::Nersc => (Slot::L2BytesNersc, Slot::L1BytesNersc),
    };
    for (level, slot) in [(MemLevel::Dram, Slot::DramBytes), (MemLevel::L2, l2), (MemLevel::L1, l1)] {
        if let Some(v) = l.get(slot) {
            f(level, v.max(0.0));
        }
    }
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

/// What `Iterator::sum` starts from: sums here add in the order, and from
/// the value, that summing a list of the values did, so that a kernel's
/// figures are the same bits whether its launches were held or not.
fn sum_start() -> f64 {
    std::iter::empty::<f64>().sum()
}

/// The weight of a launch in a duration-weighted mean: its duration, or
/// 1 ns without one, so that a zero-duration capture still averages.
fn weight(l: &Launch) -> f64 {
    duration(l).unwrap_or(1e-9)
}

/// A duration-weighted mean in the making: the sum of value x weight, and
/// of the weights, over the launches that have the value.
#[derive(Debug, Clone, Copy, Default)]
struct Mean {
    num: f64,
    den: f64,
}

impl Mean {
    fn add(&mut self, v: f64, w: f64) {
        self.num += v * w;
        self.den += w;
    }

    fn get(&self) -> Option<f64> {
        (self.den > 0.0).then(|| self.num / self.den)
    }
}

/// Every slot's duration-weighted mean, first value, largest value and
/// total over the launches added so far, in the order they were added.
#[derive(Debug, Clone)]
struct Slots {
    mean: [Mean; SLOT_COUNT],
    first: [f64; SLOT_COUNT],
    max: [f64; SLOT_COUNT],
    total: [f64; SLOT_COUNT],
    /// Bit `slot`: some launch had the slot.
    seen: u128,
}

const _: () = assert!(SLOT_COUNT <= 128, "Slots::seen holds one bit per slot");

impl Default for Slots {
    fn default() -> Slots {
        Slots {
            mean: [Mean::default(); SLOT_COUNT],
            first: [0.0; SLOT_COUNT],
            max: [0.0; SLOT_COUNT],
            total: [0.0; SLOT_COUNT],
            seen: 0,
        }
    }
}

impl Slots {
    fn add(&mut self, l: &Launch, w: f64) {
        for (i, &v) in l.values.iter().enumerate() {
            if v.is_nan() {
                continue;
            }
            self.mean[i].add(v, w);
            if self.seen & (1 << i) == 0 {
                self.seen |= 1 << i;
                self.first[i] = v;
                self.max[i] = v;
                self.total[i] = sum_start() + v;
            } else {
                self.max[i] = f64::max(self.max[i], v);
                self.total[i] += v;
            }
        }
    }

    fn has(&self, slot: Slot) -> bool {
        self.seen & (1 << slot as usize) != 0
    }

    /// Duration-weighted mean of a slot over the launches that have it.
    fn weighted(&self, slot: Slot) -> Option<f64> {
        self.mean[slot as usize].get()
    }

    fn first(&self, slot: Slot) -> Option<f64> {
        self.has(slot).then(|| self.first[slot as usize])
    }

    fn max(&self, slot: Slot) -> Option<f64> {
        self.has(slot).then(|| self.max[slot as usize])
    }

    fn total(&self, slot: Slot) -> Option<f64> {
        self.has(slot).then(|| self.total[slot as usize])
    }

    /// The total, or what summing no value gives.
    fn sum(&self, slot: Slot) -> f64 {
        self.total(slot).unwrap_or_else(sum_start)
    }
}

/// The slots a launch shape's first launch gives the evidence.
const SHAPE_SLOTS: [Slot; 9] = [
    Slot::LimitRegisters,
    Slot::LimitSharedMem,
    Slot::LimitWarps,
    Slot::LimitBlocks,
    Slot::LimitBarriers,
    Slot::BlockSize,
    Slot::GridSize,
    Slot::Waves,
    Slot::SmCount,
];

/// One launch shape (grid x block) of a kernel: its time, and the first
/// value of each of [`SHAPE_SLOTS`] among its launches.
#[derive(Debug, Clone)]
struct ShapeSums {
    grid: Arc<str>,
    block: Arc<str>,
    time: f64,
    first: [f64; SHAPE_SLOTS.len()],
}

impl ShapeSums {
    fn first(&self, slot: Slot) -> Option<f64> {
        let i = SHAPE_SLOTS.iter().position(|s| *s == slot).expect("a shape slot");
        Some(self.first[i]).filter(|v| !v.is_nan())
    }
}

/// A kernel's FLOPs, bytes, time and diagnosis evidence, summed one launch
/// at a time: what [`Kernels`](crate::aggregate) keeps per kernel instead of
/// its launches, so that memory grows with the kernels and their launch
/// shapes, not the launches. Every figure adds its launches in the order
/// they were added, as the evidence of a list of those launches would.
#[derive(Debug, Clone, Default)]
pub(crate) struct KernelSums {
    launches: u64,
    flops: BTreeMap<FlopKind, f64>,
    bytes: BTreeMap<MemLevel, f64>,
    time: f64,
    timed: bool,
    slots: Slots,
    /// Bytes per sector, over the launches that did the access (> 0).
    sectors: [Mean; 2],
    shapes: Vec<ShapeSums>,
    all_time: f64,
    /// Per stall reason, by name: its weighted sum and weight (a sorted
    /// list: a launch's reasons, sorted too, are found by walking both,
    /// each name by its pointer first, since every launch of a capture
    /// shares its header's names).
    stalls: Vec<(Arc<str>, (f64, f64))>,
    /// Each pipe name the launches carried, once per name (held by the
    /// pointer last seen): its place in [`PIPES`], if any.
    pipe_index: Vec<(Arc<str>, Option<usize>)>,
    sm_active: Mean,
    /// Per entry of [`PIPES`]: its utilisation and its warp instructions.
    pipe_pct: [Mean; PIPES.len()],
    pipe_count: [Option<f64>; PIPES.len()],
    ids: Vec<String>,
    cc: Option<(u32, u32)>,
}

impl KernelSums {
    /// Adds one launch.
    pub(crate) fn add(&mut self, l: &Launch, conv: ByteConvention) {
        self.launches += 1;
        each_flop(l, |kind, v| *self.flops.entry(kind).or_insert(0.0) += v);
        each_byte(l, conv, |level, v| *self.bytes.entry(level).or_insert(0.0) += v);
        if let Some(d) = duration(l) {
            self.time += d;
            self.timed = true;
        }
        let w = weight(l);
        self.slots.add(l, w);
        for (i, slot) in [Slot::BytesPerSectorLoad, Slot::BytesPerSectorStore].into_iter().enumerate() {
            if let Some(v) = l.get(slot).filter(|v| *v > 0.0) {
                self.sectors[i].add(v, w);
            }
        }
        self.all_time += w;
        let same = |a: &Arc<str>, b: &Arc<str>| Arc::ptr_eq(a, b) || a == b;
        match self.shapes.iter_mut().find(|s| same(&s.grid, &l.grid) && same(&s.block, &l.block)) {
            Some(s) => {
                s.time += w;
                for (f, slot) in s.first.iter_mut().zip(SHAPE_SLOTS) {
                    if f.is_nan() {
                        *f = l.values[slot as usize];
                    }
                }
            }
            None => self.shapes.push(ShapeSums {
                grid: l.grid.clone(),
                block: l.block.clone(),
                time: w,
                first: SHAPE_SLOTS.map(|s| l.values[s as usize]),
            }),
        }
        let mut at = 0;
        for (r, v) in &l.stalls {
            // Names before `r` are before `at`: both lists are sorted.
            loop {
                match self.stalls.get(at) {
                    Some((n, _)) if Arc::ptr_eq(n, r) => break,
                    Some((n, _)) => match (**n).cmp(&**r) {
                        std::cmp::Ordering::Less => at += 1,
                        std::cmp::Ordering::Equal => break,
                        std::cmp::Ordering::Greater => {
                            self.stalls.insert(at, (r.clone(), (0.0, 0.0)));
                            break;
                        }
                    },
                    None => {
                        self.stalls.push((r.clone(), (0.0, 0.0)));
                        break;
                    }
                }
            }
            let e = &mut self.stalls[at].1;
            e.0 += v * w;
            e.1 += w;
            at += 1;
        }
        if let (Some(a), Some(e)) = (l.get(Slot::SmCyclesActive), l.get(Slot::Cycles).filter(|e| *e > 0.0)) {
            self.sm_active.num += w * 100.0 * a / e;
            self.sm_active.den += w;
        }
        // Each pipe of the launch's that is one of PIPES (their names are
        // distinct: at most one launch entry each), found by its pointer;
        // a name met under another pointer (launches that do not share one
        // header's names) takes its entry over, so the list never outgrows
        // the names.
        for (name, p) in l.pipes.iter() {
            let i = match self.pipe_index.iter().find(|(n, _)| Arc::ptr_eq(n, name)) {
                Some(&(_, i)) => i,
                None => match self.pipe_index.iter_mut().find(|(n, _)| **n == **name) {
                    Some(e) => {
                        e.0 = name.clone();
                        e.1
                    }
                    None => {
                        let i = PIPES.iter().position(|(n, _)| *n == &**name);
                        self.pipe_index.push((name.clone(), i));
                        i
                    }
                },
            };
            let Some(i) = i else { continue };
            let busy = match (p.pct_of_peak, p.cycles_pct) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            if let Some(b) = busy {
                self.pipe_pct[i].num += w * b;
                self.pipe_pct[i].den += w;
            }
            if let Some(n) = instructions_of(l, p, PIPES[i].1) {
                self.pipe_count[i] = Some(self.pipe_count[i].map_or_else(|| sum_start() + n, |c| c + n));
            }
        }
        if self.ids.len() < roofline_model::NCU_IDS_KEPT && !l.id.is_empty() {
            self.ids.push(l.id.clone());
        }
        if self.cc.is_none() {
            self.cc = roofline_hw::parse_capability(&l.cc);
        }
    }

    fn pipe_pct(&self, name: &str) -> Option<f64> {
        PIPES.iter().position(|p| p.0 == name).and_then(|i| self.pipe_pct[i].get())
    }

    /// The launch shape that took the most time, the number of shapes and
    /// its share of the time (the last of equals, as `max_by` picks).
    fn dominant_shape(&self) -> (Option<&ShapeSums>, u32, f64) {
        let n = self.shapes.len() as u32;
        match self.shapes.iter().max_by(|a, b| a.time.total_cmp(&b.time)) {
            Some(s) => (Some(s), n, if self.all_time > 0.0 { s.time / self.all_time } else { 1.0 }),
            None => (None, 0, 1.0),
        }
    }

    /// Each unit's utilisation over the elapsed time, duration-weighted.
    fn busy(&self) -> (BTreeMap<MemLevel, f64>, BTreeMap<Pipe, f64>) {
        let mut levels = BTreeMap::new();
        for (level, slot) in
            [(MemLevel::Dram, Slot::DramSol), (MemLevel::L2, Slot::L2Busy), (MemLevel::L1, Slot::L1Busy)]
        {
            if let Some(p) = self.slots.weighted(slot) {
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
            if let Some(p) = self.slots.weighted(slot) {
                pipes.insert(pipe, p);
            }
        }
        (levels, pipes)
    }

    /// Per pipe: utilisation (duration-weighted; the tensor pipe takes its
    /// busiest family) and warp instructions (summed). Also the issue
    /// slots, shared-memory instructions and atomics.
    fn pipes(&self) -> BTreeMap<Pipe, PipeUse> {
        let mut out: BTreeMap<Pipe, PipeUse> = BTreeMap::new();
        for (i, &(_, pipe)) in PIPES.iter().enumerate() {
            let pct = self.pipe_pct[i].get();
            let count = self.pipe_count[i];
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
            let v: Vec<f64> = slots.iter().filter_map(|s| self.slots.total(*s)).collect();
            (!v.is_empty()).then(|| v.iter().sum())
        };
        let issue = self.slots.weighted(Slot::IssueActive);
        let issued = self.slots.total(Slot::WarpInstructions);
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
        if let Some(n) = self.slots.total(Slot::SharedAtomicInstructions).filter(|n| *n > 0.0) {
            out.insert(Pipe::SharedAtomic, PipeUse { pct_of_peak: None, warp_instructions: Some(n) });
        }
        out
    }

    /// The diagnosis evidence of the launches: percentages weighted by
    /// duration, launch shape from the shape that took the most time (a
    /// kernel launched at several shapes is judged by where its time goes,
    /// never by its first launch).
    pub(crate) fn evidence(&self) -> Evidence {
        let s = &self.slots;
        let (shape, launch_shapes, shape_share) = self.dominant_shape();
        let shape_first = |slot: Slot| shape.and_then(|sh| sh.first(slot));
        let (level_busy_pct, pipe_busy_pct) = self.busy();
        let limits = [
            (Slot::LimitRegisters, "registers"),
            (Slot::LimitSharedMem, "shared memory"),
            (Slot::LimitWarps, "warps (block size)"),
            (Slot::LimitBlocks, "blocks per SM"),
            (Slot::LimitBarriers, "barriers"),
        ];
        let vals: Vec<(f64, &str)> = limits.iter().filter_map(|(sl, n)| shape_first(*sl).map(|v| (v, *n))).collect();
        let blocks_per_sm = vals.iter().map(|v| v.0).reduce(f64::min);
        // Limits are in blocks per SM; one that is not binding reads as the
        // hardware's block limit, so a tie with "blocks per SM" is that limit.
        let theoretical = s.weighted(Slot::OccupancyTheoretical);
        let limiter = vals.iter().map(|v| v.0).reduce(f64::min).and_then(|least| {
            if theoretical.is_some_and(|t| t >= 99.95) {
                return None;
            }
            let tied: Vec<&str> = vals.iter().filter(|v| v.0 == least).map(|v| v.1).collect();
            Some(if tied.contains(&"blocks per SM") { "blocks per SM".to_string() } else { tied.join(" and ") })
        });
        let shared = match (s.first(Slot::SharedStatic), s.first(Slot::SharedDynamic)) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
        let conflicts = match (s.total(Slot::BankConflictsLoad), s.total(Slot::BankConflictsStore)) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
        let mut ev = Evidence {
            dram_throughput_pct: s.weighted(Slot::DramSol),
            sm_throughput_pct: s.weighted(Slot::SmSol),
            occupancy_theoretical_pct: theoretical,
            occupancy_achieved_pct: s.weighted(Slot::OccupancyAchieved),
            occupancy_limiter: limiter,
            occupancy_hint: None,
            registers_per_thread: s.max(Slot::Registers),
            block_size: shape_first(Slot::BlockSize),
            grid_size: shape_first(Slot::GridSize),
            shared_mem_per_block: shared,
            // Sector efficiency is only meaningful for launches that did the
            // access: ncu reports 0 bytes/sector for a kernel with no global loads.
            global_load_bytes_per_sector: self.sectors[0].get(),
            global_store_bytes_per_sector: self.sectors[1].get(),
            shared_bank_conflicts: conflicts,
            excessive_sectors: s.total(Slot::ExcessiveSectors),
            // Every launch weighs more than zero (1 ns without a duration).
            stalls: self.stalls.iter().map(|(r, (n, w))| (r.to_string(), n / w)).collect(),
            counter_pct_of_roof: None,
            nvlink_rx_bytes: s.total(Slot::NvlinkRx),
            nvlink_tx_bytes: s.total(Slot::NvlinkTx),
            shared_wavefronts: s.total(Slot::SharedWavefronts),
            waves: shape_first(Slot::Waves),
            sm_count: shape_first(Slot::SmCount),
            blocks_per_sm,
            sm_active_pct: self.sm_active.get(),
            sm_clock_hz: s.weighted(Slot::SmClock),
            max_sm_clock_hz: s.first(Slot::MaxSmClock).map(as_hz),
            global_load_sectors: s.total(Slot::GlobalLoadSectors),
            global_store_sectors: s.total(Slot::GlobalStoreSectors),
            dram_read_bytes: s.total(Slot::DramReadBytes),
            dram_write_bytes: s.total(Slot::DramWriteBytes),
            l2_read_sectors: s.total(Slot::L2ReadSectors),
            l2_write_sectors: s.total(Slot::L2WriteSectors),
            tma_load_sectors: s.total(Slot::TmaLoadSectors),
            async_copy_instructions: s.total(Slot::AsyncCopyInstructions),
            wgmma_pct: self.pipe_pct("tensor_op_gmma"),
            warp_instructions: s.total(Slot::WarpInstructions),
            pipes: self.pipes(),
            fp16: None,
            level_busy_pct,
            pipe_busy_pct,
            shared_atomic_conflicts: s.total(Slot::SharedAtomicConflicts),
            shared_atomic_wavefronts: s.total(Slot::SharedAtomicWavefronts),
            launch_shapes: (launch_shapes > 1).then_some(launch_shapes),
            dominant_shape_share: (launch_shapes > 1).then_some(shape_share),
            ncu_launch_ids: self.ids.clone(),
        };
        // The occupancy calculator turns the launch shape into the advice ncu
        // does not give: how many registers or bytes fewer fit another block.
        if let Some((major, minor)) = self.cc {
            roofline_analysis::annotate_evidence(&mut ev, major, minor);
        }
        ev
    }

    /// The kernel these launches make: FLOPs, bytes and time summed, the
    /// evidence, the FP16 accounting and the levels it leaves unmeasured.
    pub(crate) fn kernel(&self, conv: ByteConvention, name: &str, id: String, display: String) -> Kernel {
        let mut k = Kernel::named(name, Origin::Counter);
        k.id = id;
        k.display_name = display;
        k.launches = self.launches;
        k.flops = self.flops.clone();
        k.bytes = self.bytes.clone();
        k.duration_s = self.timed.then_some(self.time);
        k.evidence = self.evidence().into();
        k.evidence.fp16 = self.fp16_accounting(&k.flops);
        if k.evidence.fp16.as_ref().is_some_and(|f| f.constant_moves.is_some()) {
            k.flops.remove(&FlopKind::Fp16);
        }
        k.unmeasured = level_caveats(&k.bytes, &k.evidence, conv == ByteConvention::Nersc);
        k
    }

    /// How the FP16 FLOPs of the launches are counted, and whether their
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
    pub(crate) fn fp16_accounting(&self, flops: &BTreeMap<FlopKind, f64>) -> Option<Fp16Accounting> {
        let s = &self.slots;
        let (hfma, hadd, hmul) = (s.sum(Slot::Hfma), s.sum(Slot::Hadd), s.sum(Slot::Hmul));
        if hfma + hadd + hmul <= 0.0 {
            return None;
        }
        let packed = 4.0 * hfma + 2.0 * hadd + 2.0 * hmul;
        let scalar = packed / 2.0;
        let total: f64 = flops.values().sum();
        let other: f64 = flops.iter().filter(|(k, _)| **k != FlopKind::Fp16).map(|(_, v)| v).sum();
        let fp16_pipe = self.pipe_pct("fma_type_fp16");
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

/// Warp instructions of one pipe in one launch: the count when collected,
/// else ncu's % of peak x the architecture's issue rate x the SMs' active
/// cycles (what `--set full` exports).
#[cfg(test)]
fn pipe_instructions(l: &Launch, name: &str, pipe: Pipe) -> Option<f64> {
    instructions_of(l, l.pipes.get(name)?, pipe)
}

/// [`pipe_instructions`] of the launch's entry `p` for the pipe.
fn instructions_of(l: &Launch, p: &crate::csv::PipeCount, pipe: Pipe) -> Option<f64> {
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

/// The clocks the counter roofs are taken at.
const CLOCK_SLOTS: [Slot; 4] = [Slot::SmClock, Slot::DramClock, Slot::LtsClock, Slot::L1Clock];

/// The per-cycle peaks and the SM count, each taken from the first launch
/// that has it.
const PEAK_SLOTS: [Slot; 9] = [
    Slot::SmCount,
    Slot::DfmaPeak,
    Slot::FfmaPeak,
    Slot::HfmaPeak,
    Slot::DramPeak,
    Slot::L2Peak,
    Slot::L1Peak,
    Slot::L2PeakNersc,
    Slot::L1PeakNersc,
];

/// What the counter roofs of some launches are made of, summed one launch
/// at a time: the duration-weighted clocks, the first peak of each unit,
/// the GPU's name and compute capability.
#[derive(Debug, Clone, Default)]
pub(crate) struct MachineSums {
    launches: u64,
    clocks: [Mean; CLOCK_SLOTS.len()],
    peaks: [Option<f64>; PEAK_SLOTS.len()],
    tensor_peaks: BTreeMap<FlopKind, f64>,
    cc_major: Option<u32>,
    device_name: Option<Arc<str>>,
    cc: Option<Arc<str>>,
}

impl MachineSums {
    /// Adds one launch.
    pub(crate) fn add(&mut self, l: &Launch) {
        self.launches += 1;
        let w = weight(l);
        for (m, slot) in self.clocks.iter_mut().zip(CLOCK_SLOTS) {
            if let Some(v) = l.get(slot) {
                m.add(v, w);
            }
        }
        for (p, slot) in self.peaks.iter_mut().zip(PEAK_SLOTS) {
            if p.is_none() {
                *p = l.get(slot);
            }
        }
        for (&k, t) in &l.tensor {
            if let Some(p) = t.peak_per_cycle.filter(|p| *p > 0.0) {
                self.tensor_peaks.entry(k).or_insert(p);
            }
        }
        if self.cc_major.is_none() {
            self.cc_major = l.cc.split('.').next().and_then(|m| m.trim().parse::<u32>().ok());
        }
        if self.device_name.is_none() && !l.device_name.trim().is_empty() {
            self.device_name = Some(l.device_name.trim().into());
        }
        if self.cc.is_none() && !l.cc.is_empty() {
            self.cc = Some(l.cc.clone());
        }
    }

    fn clock(&self, slot: Slot) -> Option<f64> {
        CLOCK_SLOTS.iter().position(|s| *s == slot).and_then(|i| self.clocks[i].get())
    }

    fn first(&self, slot: Slot) -> Option<f64> {
        PEAK_SLOTS.iter().position(|s| *s == slot).and_then(|i| self.peaks[i])
    }

    /// The roofs the counters themselves imply ("counter peaks"): each
    /// `*.peak_sustained` (per cycle) times its unit's clock, as Nsight
    /// Compute's roofline chart computes them. Clocks are duration-weighted
    /// over the launches (with `--clock-control none` they differ per launch).
    pub(crate) fn machine(&self, conv: ByteConvention) -> Machine {
        let cc_major = self.cc_major;
        // A clock of 0 (a hand-edited or broken capture) gives no roof, not a
        // roof of 0 FLOP/s.
        let sm_clock = self.clock(Slot::SmClock).filter(|c| *c > 0.0);
        // The GPU's own name when the capture holds it (every view says "NVIDIA
        // H200"); the ceilings' provenance still says they are counter peaks.
        let device_name = self.device_name.as_deref().map(str::to_string);
        let mut m = Machine {
            name: device_name.clone().unwrap_or_else(|| "counter peaks (Nsight Compute)".into()),
            gpu: GpuFacts {
                name: device_name,
                compute_capability: self.cc.as_deref().map(str::to_string),
                sms: self.first(Slot::SmCount).filter(|n| *n > 0.0).map(|n| n as u32),
                sm_clock_mhz: sm_clock.map(|c| c / 1e6),
                mem_clock_mhz: self.clock(Slot::DramClock).map(|c| c / 1e6),
                ..GpuFacts::default()
            },
            ..Machine::default()
        };
        let n = self.launches as usize;
        let clock_note =
            |hz: f64, metric: &str| format!("{metric} = {} (duration-weighted over {n} launch(es))", fmt_ghz(hz));
        if let Some(clk) = sm_clock {
            let cuda = [
                (FlopKind::Fp64, Slot::DfmaPeak, 2.0, "dfma"),
                (FlopKind::Fp32, Slot::FfmaPeak, 2.0, "ffma"),
                (FlopKind::Fp16, Slot::HfmaPeak, 4.0, "hfma"),
            ];
            for (kind, slot, per_inst, op) in cuda {
                if let Some(p) = self.first(slot).filter(|p| *p > 0.0) {
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
            for (&kind, &p) in &self.tensor_peaks {
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
                (self.first(peak).filter(|p| *p > 0.0), self.clock(clock).filter(|c| *c > 0.0))
            {
                let basis = if level == MemLevel::Dram {
                    ClockBasis::mem(clk / 1e6, "DRAM clock during the profiled kernels")
                } else {
                    ClockBasis {
                        sm_mhz: None,
                        mem_mhz: None,
                        basis: format!("{} clock {}", level.label(), fmt_ghz(clk)),
                    }
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
}

/// The roofs the counters of `launches` imply ([`MachineSums::machine`]).
pub fn counter_machine(launches: &[&Launch], conv: ByteConvention) -> Machine {
    let mut sums = MachineSums::default();
    for l in launches {
        sums.add(l);
    }
    sums.machine(conv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csv::PipeCount;
    use crate::metrics::SLOT_COUNT;

    /// A launch of cc 9.0 with these slot values.
    fn launch(values: &[(Slot, f64)]) -> Launch {
        let mut v = [f64::NAN; SLOT_COUNT];
        for &(s, x) in values {
            v[s as usize] = x;
        }
        Launch {
            id: "0".into(),
            process_id: "1".into(),
            process_name: "p".into(),
            host: "h".into(),
            kernel_name: "k".into(),
            context: "1".into(),
            stream: "7".into(),
            device: "0".into(),
            cc: "9.0".into(),
            device_name: "".into(),
            block: "".into(),
            grid: "".into(),
            values: v,
            tensor: BTreeMap::new(),
            stalls: crate::csv::NameMap::new(),
            pipes: crate::csv::NameMap::new(),
            line: 1,
        }
    }

    /// The sums of these launches, in this order.
    fn sums(launches: &[&Launch]) -> KernelSums {
        let mut s = KernelSums::default();
        for l in launches {
            s.add(l, ByteConvention::Ncu);
        }
        s
    }

    fn weighted(launches: &[&Launch], slot: Slot) -> Option<f64> {
        sums(launches).slots.weighted(slot)
    }

    fn max(launches: &[&Launch], slot: Slot) -> Option<f64> {
        sums(launches).slots.max(slot)
    }

    fn first(launches: &[&Launch], slot: Slot) -> Option<f64> {
        sums(launches).slots.first(slot)
    }

    fn total(launches: &[&Launch], slot: Slot) -> Option<f64> {
        sums(launches).slots.total(slot)
    }

    fn evidence(launches: &[&Launch]) -> Evidence {
        sums(launches).evidence()
    }

    fn pipes(launches: &[&Launch]) -> BTreeMap<Pipe, PipeUse> {
        sums(launches).pipes()
    }

    fn pipe_pct(launches: &[&Launch], name: &str) -> Option<f64> {
        sums(launches).pipe_pct(name)
    }

    fn sm_active_pct(launches: &[&Launch]) -> Option<f64> {
        sums(launches).sm_active.get()
    }

    fn fp16_accounting(launches: &[&Launch], flops: &BTreeMap<FlopKind, f64>) -> Option<Fp16Accounting> {
        sums(launches).fp16_accounting(flops)
    }

    fn with_pipe(mut l: Launch, name: &str, pct: Option<f64>, count: Option<f64>, cycles: Option<f64>) -> Launch {
        l.pipes.insert(name.into(), PipeCount { pct_of_peak: pct, warp_instructions: count, cycles_pct: cycles });
        l
    }

    proptest::proptest! {
        /// Stalls and pipes summed by pointer and place (issue 30) give
        /// the bits summing them by name gives: launches with reasons and
        /// pipes in any subset, their names shared (one header) or not
        /// (each launch's own strings), pipes outside PIPES among them.
        #[test]
        fn stalls_and_pipes_found_by_pointer_sum_as_by_name(
            drawn in proptest::collection::vec(
                (0.1f64..10.0, proptest::collection::vec((0usize..6, 0.0f64..50.0), 0..6),
                 proptest::collection::vec((0usize..6, proptest::option::of(0.0f64..100.0), proptest::option::of(1.0f64..1e6)), 0..6),
                 proptest::bool::ANY),
                1..12),
        ) {
            const REASONS: [&str; 6] = ["barrier", "lg_throttle", "long_scoreboard", "math_pipe_throttle", "wait", "zz"];
            const PIPE_NAMES: [&str; 6] = ["alu", "fma", "lsu", "tensor_op_gmma", "uniform", "xu"];
            let shared_reasons: Vec<Arc<str>> = REASONS.iter().map(|&r| Arc::from(r)).collect();
            let shared_pipes: Vec<Arc<str>> = PIPE_NAMES.iter().map(|&p| Arc::from(p)).collect();
            let mut launches = Vec::new();
            for (d, stalls, pipes, shared) in drawn {
                let mut l = launch(&[(Slot::Duration, d), (Slot::SmCyclesActive, 1000.0), (Slot::SmCount, 132.0)]);
                l.cc = "9.0".into();
                for (r, v) in stalls {
                    let name = if shared { shared_reasons[r].clone() } else { Arc::from(REASONS[r]) };
                    l.stalls.insert(name, v);
                }
                for (p, pct, count) in pipes {
                    let name = if shared { shared_pipes[p].clone() } else { Arc::from(PIPE_NAMES[p]) };
                    l.pipes.insert(name, PipeCount { pct_of_peak: pct, warp_instructions: count, cycles_pct: None });
                }
                launches.push(l);
            }
            let s = sums(&launches.iter().collect::<Vec<_>>());
            // One entry per pipe name, however many strings spell it.
            proptest::prop_assert!(s.pipe_index.len() <= PIPE_NAMES.len());
            // By name, as the sums were kept before.
            let mut stalls: BTreeMap<String, (f64, f64)> = BTreeMap::new();
            let (mut pct, mut count) = ([Mean::default(); PIPES.len()], [None::<f64>; PIPES.len()]);
            for l in &launches {
                let w = weight(l);
                for (r, v) in l.stalls.iter() {
                    let e = stalls.entry(r.to_string()).or_default();
                    e.0 += v * w;
                    e.1 += w;
                }
                for (i, &(name, pipe)) in PIPES.iter().enumerate() {
                    if let Some(p) = l.pipes.get(name).and_then(|p| p.pct_of_peak) {
                        pct[i].add(p, w);
                    }
                    if let Some(n) = pipe_instructions(l, name, pipe) {
                        count[i] = Some(count[i].map_or_else(|| sum_start() + n, |c| c + n));
                    }
                }
            }
            let bits = |v: &[(String, (f64, f64))]| v.iter().map(|(n, (a, b))| (n.clone(), a.to_bits(), b.to_bits())).collect::<Vec<_>>();
            let kept: Vec<(String, (f64, f64))> = s.stalls.iter().map(|(n, e)| (n.to_string(), *e)).collect();
            proptest::prop_assert_eq!(bits(&kept), bits(&stalls.into_iter().collect::<Vec<_>>()));
            for i in 0..PIPES.len() {
                proptest::prop_assert_eq!(s.pipe_pct[i].get().map(f64::to_bits), pct[i].get().map(f64::to_bits));
                proptest::prop_assert_eq!(s.pipe_count[i].map(f64::to_bits), count[i].map(f64::to_bits));
            }
        }
    }

    #[test]
    fn shared_memory_conflicts_stalls_and_sector_use_are_combined_over_launches() {
        let mut a = launch(&[
            (Slot::Duration, 1.0),
            (Slot::SharedStatic, 1024.0),
            (Slot::SharedDynamic, 4096.0),
            (Slot::BankConflictsLoad, 3.0),
            (Slot::BankConflictsStore, 4.0),
            (Slot::BytesPerSectorLoad, 8.0),
        ]);
        a.stalls.insert("wait".into(), 2.0);
        let mut b = launch(&[
            (Slot::Duration, 3.0),
            (Slot::BankConflictsLoad, 5.0),
            (Slot::BytesPerSectorLoad, 0.0),
            (Slot::BytesPerSectorStore, 16.0),
        ]);
        b.stalls.insert("wait".into(), 6.0);
        let ev = evidence(&[&a, &b]);
        assert_eq!(ev.shared_mem_per_block, Some(5120.0));
        assert_eq!(ev.shared_bank_conflicts, Some(12.0));
        assert_eq!(ev.stalls["wait"], (2.0 * 1.0 + 6.0 * 3.0) / 4.0);
        // The launch without loads does not dilute the loads' sector use.
        assert_eq!(ev.global_load_bytes_per_sector, Some(8.0));
        assert_eq!(ev.global_store_bytes_per_sector, Some(16.0));
        let none = evidence(&[&launch(&[(Slot::Duration, 1.0)])]);
        assert_eq!((none.shared_mem_per_block, none.shared_bank_conflicts), (None, None));
        let only_dynamic = evidence(&[&launch(&[(Slot::SharedDynamic, 100.0)])]);
        assert_eq!(only_dynamic.shared_mem_per_block, Some(100.0));
    }

    #[test]
    fn the_flop_formulas_weigh_each_instruction_as_nsight_compute_does() {
        // reference/ncu-roofline-metrics.md: FP64 = dadd + dmul + 2 dfma,
        // FP32 = fadd + fmul + 2 ffma, FP16 = 2 hadd + 2 hmul + 4 hfma;
        // tensor ops are FLOPs.
        let mut l = launch(&[
            (Slot::Dadd, 1.0),
            (Slot::Dmul, 2.0),
            (Slot::Dfma, 3.0),
            (Slot::Fadd, 10.0),
            (Slot::Fmul, 20.0),
            (Slot::Ffma, 30.0),
            (Slot::Hadd, 100.0),
            (Slot::Hmul, 200.0),
            (Slot::Hfma, 300.0),
        ]);
        l.tensor.insert(FlopKind::TensorBf16, crate::csv::TensorCount { ops: 5000.0, peak_per_cycle: None });
        l.tensor.insert(FlopKind::TensorFp8, crate::csv::TensorCount { ops: 0.0, peak_per_cycle: None });
        let f = flops(&l);
        assert_eq!(f.get(&FlopKind::Fp64), Some(&(1.0 + 2.0 + 2.0 * 3.0)));
        assert_eq!(f.get(&FlopKind::Fp32), Some(&(10.0 + 20.0 + 2.0 * 30.0)));
        assert_eq!(f.get(&FlopKind::Fp16), Some(&(2.0 * 100.0 + 2.0 * 200.0 + 4.0 * 300.0)));
        assert_eq!(f.get(&FlopKind::TensorBf16), Some(&5000.0));
        assert!(!f.contains_key(&FlopKind::TensorFp8), "zero tensor ops are no FLOPs: {f:?}");
        assert_eq!(f.len(), 4);
        // The FP16 accounting: packed as counted, scalar half of it.
        let a = fp16_accounting(&[&l], &f).unwrap();
        assert_eq!((a.packed_flops, a.scalar_flops), (1800.0, 900.0));
        // HADD or HMUL alone is FP16 work too.
        for slot in [Slot::Hadd, Slot::Hmul] {
            let alone = launch(&[(slot, 5.0)]);
            let a = fp16_accounting(&[&alone], &flops(&alone)).expect("FP16 work");
            assert_eq!(a.packed_flops, 10.0);
        }
    }

    #[test]
    fn constant_moves_are_under_5_percent_of_the_flops_not_at_it() {
        // 12.5 HFMA = 50 FLOPs as counted beside 950 FP32 FLOPs: exactly 5%.
        let a = fp16_case(950.0, 12.5, 0.0, None).unwrap();
        assert_eq!(a.packed_flops, 50.0);
        assert_eq!(a.constant_moves, None);
        assert!(fp16_case(950.0, 12.4, 0.0, None).unwrap().constant_moves.is_some());
    }

    #[test]
    fn kinds_without_flops_are_left_out() {
        let l = launch(&[(Slot::Dadd, 0.0), (Slot::Dmul, 0.0), (Slot::Dfma, 0.0), (Slot::Ffma, 2.0)]);
        let f = flops(&l);
        assert_eq!(f.get(&FlopKind::Fp32), Some(&4.0));
        assert!(!f.contains_key(&FlopKind::Fp64), "{f:?}");
        assert!(!f.contains_key(&FlopKind::Fp16), "no FP16 counters at all");
    }

    #[test]
    fn the_byte_conventions_name_their_counters() {
        assert!(ByteConvention::Ncu.describe().starts_with("Nsight Compute's chart convention"));
        assert!(ByteConvention::Ncu.describe().contains("32 B x lts__lts2xbar_cycles_active.sum"));
        assert!(ByteConvention::Nersc.describe().starts_with("NERSC's hierarchical convention"));
        assert!(ByteConvention::Nersc.describe().contains("lts__t_bytes.sum"));
    }

    #[test]
    fn percentages_are_weighted_by_duration_and_counts_summed() {
        let a =
            launch(&[(Slot::Duration, 1e-3), (Slot::DramSol, 90.0), (Slot::Registers, 32.0), (Slot::BlockSize, 256.0)]);
        let b =
            launch(&[(Slot::Duration, 3e-3), (Slot::DramSol, 50.0), (Slot::Registers, 40.0), (Slot::BlockSize, 128.0)]);
        assert_eq!(weighted(&[&a, &b], Slot::DramSol), Some((90.0 * 1e-3 + 50.0 * 3e-3) / 4e-3));
        assert_eq!(max(&[&a, &b], Slot::Registers), Some(40.0));
        assert_eq!(first(&[&a, &b], Slot::BlockSize), Some(256.0));
        assert_eq!(total(&[&a, &b], Slot::Registers), Some(72.0));
        assert_eq!(total(&[&a, &b], Slot::Hfma), None);
        assert_eq!(weighted(&[&a, &b], Slot::Hfma), None);
        // Launches without a duration still average (1 ns each).
        let c = launch(&[(Slot::DramSol, 10.0)]);
        let d = launch(&[(Slot::DramSol, 30.0)]);
        assert_eq!(weighted(&[&c, &d], Slot::DramSol), Some(20.0));
        assert_eq!(duration(&launch(&[(Slot::Duration, 0.0)])), None);
        assert_eq!(duration(&launch(&[(Slot::Duration, 2e-6)])), Some(2e-6));
    }

    #[test]
    fn sm_active_share_and_clocks() {
        let a = launch(&[(Slot::Duration, 1.0), (Slot::SmCyclesActive, 90.0), (Slot::Cycles, 100.0)]);
        let b = launch(&[(Slot::Duration, 3.0), (Slot::SmCyclesActive, 50.0), (Slot::Cycles, 100.0)]);
        assert_eq!(sm_active_pct(&[&a, &b]), Some((90.0 + 3.0 * 50.0) / 4.0));
        assert_eq!(sm_active_pct(&[&launch(&[(Slot::SmCyclesActive, 9.0)])]), None);
        assert_eq!(sm_active_pct(&[&launch(&[(Slot::SmCyclesActive, 9.0), (Slot::Cycles, 0.0)])]), None);
        // The device attribute is in kHz (scaled to Hz by the column); a
        // units row that had already scaled it would give 1000x that.
        assert_eq!(as_hz(1.98e9), 1.98e9);
        assert_eq!(as_hz(1.98e12), 1.98e9);
        assert_eq!(as_hz(1e11), 1e11);
    }

    #[test]
    fn pipe_utilisation_takes_busy_cycles_and_rebuilds_counts_from_percentages() {
        // IMAD holds the half-width FMA-heavy pipe two cycles: its busy
        // cycles exceed its instruction rate.
        let a = with_pipe(launch(&[(Slot::Duration, 1.0)]), "fma", Some(20.0), None, Some(35.0));
        let b = with_pipe(launch(&[(Slot::Duration, 1.0)]), "fma", Some(40.0), None, Some(30.0));
        assert_eq!(pipe_pct(&[&a], "fma"), Some(35.0));
        assert_eq!(pipe_pct(&[&a, &b], "fma"), Some(37.5));
        assert_eq!(pipe_pct(&[&a], "xu"), None);
        let only_cycles = with_pipe(launch(&[]), "alu", None, None, Some(12.0));
        assert_eq!(pipe_pct(&[&only_cycles], "alu"), Some(12.0));
        // --set full: 50% of 0.5 XU instructions/clock/SM over 1000 active
        // cycles of 132 SMs.
        let l =
            with_pipe(launch(&[(Slot::SmCyclesActive, 1000.0), (Slot::SmCount, 132.0)]), "xu", Some(50.0), None, None);
        assert_eq!(pipe_instructions(&l, "xu", Pipe::Xu), Some(0.5 * 0.5 * 1000.0 * 132.0));
        // A collected count wins; tensor families need one.
        let l = with_pipe(l, "alu", Some(50.0), Some(7.0), None);
        assert_eq!(pipe_instructions(&l, "alu", Pipe::Alu), Some(7.0));
        let l = with_pipe(l, "tensor_op_hmma", Some(50.0), None, None);
        assert_eq!(pipe_instructions(&l, "tensor_op_hmma", Pipe::Tensor), None);
        assert_eq!(pipe_instructions(&l, "lsu", Pipe::Lsu), None);
    }

    #[test]
    fn pipes_merge_tensor_families_and_add_issue_shared_and_atomics() {
        let mut l = launch(&[
            (Slot::Duration, 1.0),
            (Slot::WarpInstructions, 1000.0),
            (Slot::IssueActive, 60.0),
            (Slot::SharedLoadInstructions, 30.0),
            (Slot::SharedStoreInstructions, 10.0),
            (Slot::GlobalReductionInstructions, 3.0),
            (Slot::GenericAtomicAluInstructions, 2.0),
            (Slot::GenericAtomicCasInstructions, 1.0),
            (Slot::SharedAtomicInstructions, 5.0),
        ]);
        l = with_pipe(l, "tensor_op_hmma", Some(10.0), Some(100.0), None);
        l = with_pipe(l, "tensor_op_gmma", Some(30.0), Some(50.0), None);
        l = with_pipe(l, "alu", Some(20.0), Some(200.0), None);
        let p = pipes(&[&l]);
        assert_eq!(p[&Pipe::Tensor], PipeUse { pct_of_peak: Some(30.0), warp_instructions: Some(150.0) });
        assert_eq!(p[&Pipe::Alu], PipeUse { pct_of_peak: Some(20.0), warp_instructions: Some(200.0) });
        assert_eq!(p[&Pipe::Issue], PipeUse { pct_of_peak: Some(60.0), warp_instructions: Some(1000.0) });
        assert_eq!(p[&Pipe::Shared].warp_instructions, Some(40.0));
        assert_eq!(p[&Pipe::GlobalAtomic].warp_instructions, Some(6.0));
        assert_eq!(p[&Pipe::SharedAtomic].warp_instructions, Some(5.0));
        assert!(!p.contains_key(&Pipe::Xu));
        // Zero shared or atomic instructions name no pipe.
        let quiet = launch(&[(Slot::SharedLoadInstructions, 0.0), (Slot::SharedAtomicInstructions, 0.0)]);
        assert!(pipes(&[&quiet]).is_empty());
    }

    /// FLOPs of a kernel: FP32 beside `hfma` HFMA (and `hadd` HADD).
    fn fp16_case(fp32: f64, hfma: f64, hadd: f64, fp16_pipe: Option<f64>) -> Option<Fp16Accounting> {
        let mut l = launch(&[(Slot::Hfma, hfma), (Slot::Hadd, hadd), (Slot::Hmul, 0.0), (Slot::Ffma, fp32 / 2.0)]);
        if let Some(p) = fp16_pipe {
            l = with_pipe(l, "fma_type_fp16", Some(p), None, None);
        }
        let f = flops(&l);
        fp16_accounting(&[&l], &f)
    }

    #[test]
    fn fp16_accounting_counts_packed_and_scalar_and_finds_constant_moves() {
        assert_eq!(fp16_case(1e9, 0.0, 0.0, None), None);
        let a = fp16_case(0.0, 1000.0, 10.0, None).unwrap();
        assert_eq!((a.packed_flops, a.scalar_flops), (4020.0, 2010.0));
        assert_eq!(a.packing, Fp16Packing::Unknown);
        assert_eq!(a.constant_moves, None, "no other work beside: FP16 work");
        // 4.9% of the FLOPs, HFMA alone, no pipe counters: moves.
        let hfma = |pct: f64| pct / (100.0 - pct) * 1e9 / 4.0;
        let m = fp16_case(1e9, hfma(4.9), 0.0, None).unwrap().constant_moves.unwrap();
        assert_eq!(m.thread_instructions, hfma(4.9));
        assert_eq!(m.flops_as_counted, 4.0 * hfma(4.9));
        assert_eq!(m.detected_by, MoveDetection::Pattern);
        assert_eq!(fp16_case(1e9, hfma(5.1), 0.0, None).unwrap().constant_moves, None);
        assert_eq!(fp16_case(1e9, hfma(1.0), 1.0, None).unwrap().constant_moves, None);
        // With pipe counters: no FP16 on the FMA pipe decides, up to the
        // point where FP16 would be the larger share.
        let m = fp16_case(1e9, hfma(30.0), 0.0, Some(0.0)).unwrap().constant_moves.unwrap();
        assert_eq!(m.detected_by, MoveDetection::PipeCounters);
        assert_eq!(fp16_case(1e9, hfma(30.0), 0.0, Some(0.01)).unwrap().constant_moves, None);
        assert_eq!(fp16_case(1e9, 1e9 / 4.0, 0.0, Some(0.0)).unwrap().constant_moves, None);
        assert!(fp16_case(1e9, 0.99e9 / 4.0, 0.0, Some(0.0)).unwrap().constant_moves.is_some());
    }

    #[test]
    fn evidence_carries_launch_shape_traffic_and_clocks() {
        let a = launch(&[
            (Slot::Duration, 1.0),
            (Slot::Waves, 2.5),
            (Slot::SmCount, 132.0),
            (Slot::LimitRegisters, 4.0),
            (Slot::LimitBlocks, 32.0),
            (Slot::SmClock, 1.7e9),
            (Slot::MaxSmClock, 1.98e9),
            (Slot::GlobalLoadSectors, 100.0),
            (Slot::GlobalStoreSectors, 50.0),
            (Slot::DramReadBytes, 3200.0),
            (Slot::DramWriteBytes, 1600.0),
            (Slot::L2ReadSectors, 10.0),
            (Slot::L2WriteSectors, 5.0),
            (Slot::TmaLoadSectors, 7.0),
            (Slot::AsyncCopyInstructions, 8.0),
            (Slot::SharedWavefronts, 9.0),
            (Slot::WarpInstructions, 11.0),
        ]);
        let b = launch(&[(Slot::Duration, 1.0), (Slot::Waves, 9.0), (Slot::GlobalLoadSectors, 100.0)]);
        let ev = evidence(&[&a, &b]);
        assert_eq!((ev.waves, ev.sm_count, ev.blocks_per_sm), (Some(2.5), Some(132.0), Some(4.0)));
        assert_eq!((ev.sm_clock_hz, ev.max_sm_clock_hz), (Some(1.7e9), Some(1.98e9)));
        assert_eq!((ev.global_load_sectors, ev.global_store_sectors), (Some(200.0), Some(50.0)));
        assert_eq!((ev.dram_read_bytes, ev.dram_write_bytes), (Some(3200.0), Some(1600.0)));
        assert_eq!((ev.l2_read_sectors, ev.l2_write_sectors), (Some(10.0), Some(5.0)));
        assert_eq!((ev.tma_load_sectors, ev.async_copy_instructions), (Some(7.0), Some(8.0)));
        assert_eq!((ev.shared_wavefronts, ev.warp_instructions), (Some(9.0), Some(11.0)));
    }

    #[test]
    fn ncus_sparse_tensor_peaks_are_halved_on_hopper_only_and_never_for_fp64() {
        // reference/h200.md: ncu reads 8192 BF16 ops/clk/SM on the H200, the
        // 2:4 sparse rate; FP64 tensor has no sparse mode (256 ops/clk/SM).
        let tensor = |cc: &str| {
            let mut l = launch(&[(Slot::SmClock, 1e9)]);
            l.cc = cc.into();
            for (kind, per_sm) in [(FlopKind::TensorBf16, 8192.0), (FlopKind::TensorFp64, 256.0)] {
                l.tensor.insert(kind, crate::csv::TensorCount { ops: 1.0, peak_per_cycle: Some(per_sm * 132.0) });
            }
            counter_machine(&[&l], ByteConvention::Ncu)
        };
        let hopper = tensor("9.0");
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b;
        let bf16 = hopper.compute_roof(FlopKind::TensorBf16).unwrap();
        assert!(close(bf16.rate, 4096.0 * 132.0 * 1e9), "{}", bf16.rate);
        assert_eq!(bf16.name, "BF16 tensor (dense)");
        let fp64 = hopper.compute_roof(FlopKind::TensorFp64).unwrap();
        assert!(close(fp64.rate, 256.0 * 132.0 * 1e9), "{}", fp64.rate);
        assert_eq!(fp64.name, "FP64 tensor");
        assert!(hopper
            .notes
            .iter()
            .any(|n| n.starts_with("BF16 tensor: Nsight Compute's peak is the 2:4 sparse rate")));
        // Elsewhere the peak is used as it is, with a note saying so.
        let ampere = tensor("8.0");
        assert!(close(ampere.compute_roof(FlopKind::TensorBf16).unwrap().rate, 8192.0 * 132.0 * 1e9));
        assert!(ampere.notes.iter().any(|n| n.contains("checked on compute capability 9.0 only")));
        assert!(!ampere.notes.iter().any(|n| n.contains("sparse rate; the roof used is half")));
    }

    #[test]
    fn the_counter_machine_says_what_it_is_and_carries_the_dram_clock_weighted_by_duration() {
        let a = launch(&[(Slot::Duration, 1.0), (Slot::SmClock, 1.5e9), (Slot::DramClock, 2.6e9)]);
        let b = launch(&[(Slot::Duration, 3.0), (Slot::SmClock, 1.5e9), (Slot::DramClock, 3.0e9)]);
        let m = counter_machine(&[&a, &b], ByteConvention::Ncu);
        assert_eq!(m.name, "counter peaks (Nsight Compute)", "no device name in the capture");
        assert_eq!(m.gpu.name, None);
        let named = Launch { device_name: "NVIDIA H200".into(), ..a.clone() };
        let n = counter_machine(&[&named, &b], ByteConvention::Ncu);
        assert_eq!((n.name.as_str(), n.gpu.name.as_deref()), ("NVIDIA H200", Some("NVIDIA H200")));
        let mhz = m.gpu.mem_clock_mhz.expect("the DRAM clock");
        assert!((mhz - (2600.0 + 3.0 * 3000.0) / 4.0).abs() < 1e-9, "{mhz}");
    }

    #[test]
    fn the_counter_machine_knows_its_sms_for_the_pipe_roofs() {
        let l = launch(&[(Slot::SmCount, 132.0), (Slot::SmClock, 1.9e9), (Slot::FfmaPeak, 16896.0)]);
        let m = counter_machine(&[&l], ByteConvention::Ncu);
        assert_eq!(m.gpu.sms, Some(132));
        assert_eq!(m.gpu.sm_clock_mhz, Some(1900.0));
        assert!((m.compute_roof(FlopKind::Fp32).unwrap().rate - 2.0 * 16896.0 * 1.9e9).abs() < 1.0);
        let fp16 = launch(&[(Slot::SmClock, 1e9), (Slot::HfmaPeak, 100.0), (Slot::DfmaPeak, 50.0)]);
        let m = counter_machine(&[&fp16], ByteConvention::Ncu);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b;
        assert!(close(m.compute_roof(FlopKind::Fp16).unwrap().rate, 4.0 * 100.0 * 1e9));
        assert!(close(m.compute_roof(FlopKind::Fp64).unwrap().rate, 2.0 * 50.0 * 1e9));
        assert_eq!(m.gpu.sms, None);
    }

    #[test]
    fn a_pipe_with_only_its_percentage_or_only_its_count_is_kept() {
        // No SM cycles: the XU count cannot be rebuilt from its percentage.
        let l = with_pipe(launch(&[(Slot::Duration, 1.0)]), "xu", Some(40.0), None, None);
        let l = with_pipe(l, "alu", None, Some(7.0), None);
        let p = pipes(&[&l]);
        assert_eq!(p[&Pipe::Xu], PipeUse { pct_of_peak: Some(40.0), warp_instructions: None });
        assert_eq!(p[&Pipe::Alu], PipeUse { pct_of_peak: None, warp_instructions: Some(7.0) });
    }

    #[test]
    fn the_issue_slots_are_kept_with_only_their_percentage_or_only_the_instruction_count() {
        let pct_only = launch(&[(Slot::Duration, 1.0), (Slot::IssueActive, 60.0)]);
        assert_eq!(pipes(&[&pct_only])[&Pipe::Issue], PipeUse { pct_of_peak: Some(60.0), warp_instructions: None });
        let count_only = launch(&[(Slot::WarpInstructions, 1000.0)]);
        assert_eq!(pipes(&[&count_only])[&Pipe::Issue], PipeUse { pct_of_peak: None, warp_instructions: Some(1000.0) });
    }

    #[test]
    fn zero_global_atomics_name_no_pipe() {
        let quiet = launch(&[
            (Slot::GlobalReductionInstructions, 0.0),
            (Slot::GenericAtomicAluInstructions, 0.0),
            (Slot::GenericAtomicCasInstructions, 0.0),
        ]);
        assert!(pipes(&[&quiet]).is_empty());
    }

    #[test]
    fn a_zero_sm_clock_gives_no_compute_roof_and_no_clock() {
        let l = launch(&[(Slot::SmCount, 132.0), (Slot::SmClock, 0.0), (Slot::FfmaPeak, 16896.0)]);
        let m = counter_machine(&[&l], ByteConvention::Ncu);
        assert_eq!(m.gpu.sm_clock_mhz, None);
        assert!(m.compute_roof(FlopKind::Fp32).is_none());
    }

    #[test]
    fn counter_roofs_name_the_clock_they_were_taken_at_in_ghz() {
        let mut l = launch(&[
            (Slot::SmClock, 1.9e9),
            (Slot::FfmaPeak, 16896.0),
            (Slot::DramPeak, 64.0),
            (Slot::L2Peak, 5000.0),
            (Slot::LtsClock, 1.75e9),
            (Slot::DramClock, 2.6e9),
        ]);
        l.tensor.insert(FlopKind::TensorBf16, crate::csv::TensorCount { ops: 1.0, peak_per_cycle: Some(1024.0) });
        let m = counter_machine(&[&l], ByteConvention::Ncu);
        let fp32 = &m.compute_roof(FlopKind::Fp32).unwrap().provenance.source;
        assert!(
            fp32.ends_with("sm__cycles_elapsed.avg.per_second = 1.900 GHz (duration-weighted over 1 launch(es))"),
            "{fp32}"
        );
        assert_eq!(m.compute_roof(FlopKind::Fp32).unwrap().clock.sm_mhz, Some(1900.0));
        let l2 = m.bandwidth_roof(MemLevel::L2).unwrap();
        assert_eq!(l2.clock.basis, "L2 clock 1.750 GHz");
        assert_eq!(m.compute_roof(FlopKind::TensorBf16).unwrap().clock.sm_mhz, Some(1900.0));
        // On compute capability 9.0 the tensor peak was checked: no note says otherwise.
        assert!(!m.notes.iter().any(|n| n.contains("checked on compute capability 9.0 only")), "{:?}", m.notes);
        assert_eq!(m.bandwidth_roof(MemLevel::Dram).unwrap().clock.mem_mhz, Some(2600.0));
        let dram = &m.bandwidth_roof(MemLevel::Dram).unwrap().provenance.source;
        assert!(dram.contains("dram__cycles_elapsed.avg.per_second = 2.600 GHz"), "{dram}");
    }

    #[test]
    fn zero_sm_counts_peaks_and_clocks_give_no_roof() {
        let mut l = launch(&[
            (Slot::SmCount, 0.0),
            (Slot::SmClock, 1e9),
            (Slot::FfmaPeak, 0.0),
            (Slot::DfmaPeak, 10.0),
            (Slot::DramPeak, 0.0),
            (Slot::DramClock, 2.6e9),
            (Slot::L2Peak, 5000.0),
            (Slot::LtsClock, 0.0),
        ]);
        l.tensor.insert(FlopKind::TensorBf16, crate::csv::TensorCount { ops: 1.0, peak_per_cycle: Some(0.0) });
        let m = counter_machine(&[&l], ByteConvention::Ncu);
        assert_eq!(m.gpu.sms, None);
        assert!(m.compute_roof(FlopKind::Fp32).is_none());
        assert!(m.compute_roof(FlopKind::TensorBf16).is_none());
        assert!(m.bandwidth_roof(MemLevel::Dram).is_none());
        assert!(m.bandwidth_roof(MemLevel::L2).is_none());
        // The one non-zero peak with a non-zero clock is kept.
        assert_eq!(m.ceilings.len(), 1);
        let fp64 = m.compute_roof(FlopKind::Fp64).unwrap().rate;
        assert!((fp64 - 2.0 * 10.0 * 1e9).abs() <= 1e-9 * fp64, "{fp64}");
    }
}
