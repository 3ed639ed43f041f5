//! A kernel as the roofline sees it: FLOPs per kind, bytes per memory level,
//! and (when it ran) how long it took.
//!
//! The same structure holds a paper estimate ("1 FLOP and 12 bytes per
//! element"), a timed run and an Nsight Compute profile; `origin` says which.
//! Optional evidence (occupancy, speed-of-light percentages, sectors per
//! request) feeds the diagnosis when a profiler supplied it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::machine::{FlopKind, MemLevel, Origin, Pipe};

/// One kernel (or the aggregate of all launches of one kernel).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Kernel {
    /// Stable short identifier ("k1a2b3c"), derived from the full name.
    pub id: String,
    /// The full (possibly mangled or templated) name, as the source gave it.
    pub name: String,
    /// A short name for tables and charts.
    pub display_name: String,
    /// FLOPs per kind, summed over all launches.
    #[serde(default)]
    pub flops: BTreeMap<FlopKind, f64>,
    /// Bytes per memory level, summed over all launches.
    #[serde(default)]
    pub bytes: BTreeMap<MemLevel, f64>,
    /// Total duration of all launches, in seconds; `None` for paper estimates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    /// How many launches are aggregated here.
    #[serde(default = "one_launch")]
    pub launches: u64,
    /// Its place (1-based) in the order the profiler captured the kernels;
    /// analyses list kernels by GPU time, this keeps the capture's order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture_order: Option<u64>,
    /// Where FLOPs and bytes came from (user estimate, counters, a benchmark
    /// with known work).
    pub origin: Origin,
    /// What a profiler measured beyond FLOPs and bytes (throughputs, occupancy,
    /// sectors), for the diagnosis; empty for estimates.
    #[serde(default, skip_serializing_if = "no_evidence")]
    pub evidence: EvidenceBox,
    /// Levels whose byte count does not measure the level's traffic, and
    /// why (filled by the profiler reader, which knows its counters).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unmeasured: BTreeMap<MemLevel, LevelCaveat>,
}

/// Why a memory level's point does not measure that level's traffic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum LevelCaveat {
    /// Nsight Compute's chart convention counts L2 bytes in the L2-to-SM
    /// direction only; the SMs' writes into L2 were this share of the L2
    /// sectors they moved.
    L2WritesNotCounted {
        /// Share of the L2 sectors the SMs moved that were writes, %.
        write_share_pct: f64,
    },
    /// The level counted fewer bytes than the level beyond it, which every
    /// byte crosses first: its counter misses traffic.
    BelowLevelBeyond {
        /// Bytes this level counted.
        bytes: f64,
        /// The level beyond it (farther from the SMs).
        beyond: MemLevel,
        /// Bytes that level counted.
        beyond_bytes: f64,
    },
    /// Data reached shared memory past the L1 load/store counters: through
    /// the tensor memory accelerator, asynchronous copies or wgmma operand
    /// reads.
    L1Bypassed {
        /// The paths seen in the counters.
        via: Vec<BypassPath>,
        /// Bytes the L1 load/store counters saw.
        l1_bytes: f64,
        /// Bytes the L2 level counted.
        l2_bytes: f64,
    },
}

/// A path into shared memory the L1 LSU counters do not see.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BypassPath {
    /// Tensor memory accelerator bulk loads.
    Tma,
    /// LDGSTS (`cp.async`) global-to-shared copies.
    AsyncCopy,
    /// Warpgroup MMA reading its operands from shared memory.
    Wgmma,
}

impl BypassPath {
    /// How the path reads in a sentence ("TMA bulk loads").
    pub fn label(self) -> &'static str {
        match self {
            BypassPath::Tma => "TMA bulk loads",
            BypassPath::AsyncCopy => "cp.async (LDGSTS) copies",
            BypassPath::Wgmma => "wgmma reading shared memory",
        }
    }
}

impl LevelCaveat {
    /// "not measured at this level: ...", for every view.
    pub fn text(&self) -> String {
        match self {
            LevelCaveat::L2WritesNotCounted { write_share_pct } => format!(
                "not measured at this level: Nsight Compute's convention counts L2 traffic toward the SMs only, and writes were {} of this kernel's L2 sectors (--bytes nersc counts both directions)",
                crate::units::format_percent(*write_share_pct)
            ),
            LevelCaveat::BelowLevelBeyond { bytes, beyond, beyond_bytes } => format!(
                "not measured at this level: {} counted here against {} at {}, which every byte crosses first",
                crate::units::format_si(*bytes, crate::units::Unit::Byte),
                crate::units::format_si(*beyond_bytes, crate::units::Unit::Byte),
                beyond.label()
            ),
            LevelCaveat::L1Bypassed { via, l1_bytes, l2_bytes } => {
                let paths: Vec<&str> = via.iter().map(|p| p.label()).collect();
                let how = if paths.is_empty() { "a path the counters do not see".to_string() } else { paths.join(", ") };
                format!(
                    "not measured at this level: data reaches shared memory through {how}, which the L1 load/store counters do not see ({} counted at L1 against {} at L2)",
                    crate::units::format_si(*l1_bytes, crate::units::Unit::Byte),
                    crate::units::format_si(*l2_bytes, crate::units::Unit::Byte)
                )
            }
        }
    }
}

fn no_evidence(e: &EvidenceBox) -> bool {
    e.is_empty()
}

/// A kernel's [`Evidence`], read and written as the evidence itself, but
/// held in a box only when there is some. The evidence is most of a
/// kernel's size (about 700 bytes), and paper estimates, and analyses of
/// 100,000 kernels read for their placements alone (`roofline_documents`),
/// have none.
#[derive(Clone, Default)]
pub struct EvidenceBox(Option<Box<Evidence>>);

impl EvidenceBox {
    /// The evidence itself.
    pub fn into_inner(self) -> Evidence {
        self.0.map(|b| *b).unwrap_or_default()
    }
}

impl From<Evidence> for EvidenceBox {
    fn from(e: Evidence) -> Self {
        EvidenceBox((!e.is_empty()).then(|| Box::new(e)))
    }
}

impl std::ops::Deref for EvidenceBox {
    type Target = Evidence;
    fn deref(&self) -> &Evidence {
        static NONE: std::sync::OnceLock<Evidence> = std::sync::OnceLock::new();
        self.0.as_deref().unwrap_or_else(|| NONE.get_or_init(Evidence::default))
    }
}

impl std::ops::DerefMut for EvidenceBox {
    fn deref_mut(&mut self) -> &mut Evidence {
        self.0.get_or_insert_with(Default::default)
    }
}

impl PartialEq for EvidenceBox {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for EvidenceBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl Serialize for EvidenceBox {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for EvidenceBox {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Evidence::deserialize(d).map(EvidenceBox::from)
    }
}

/// A launch count read from a document that does not give one: 1.
pub fn one_launch() -> u64 {
    1
}

/// What a profiler adds beyond FLOPs and bytes, for the diagnosis.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Evidence {
    /// Nsight Compute's DRAM speed of light, % of peak sustained.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram_throughput_pct: Option<f64>,
    /// Nsight Compute's SM speed of light, % of peak sustained.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_throughput_pct: Option<f64>,
    /// Theoretical occupancy, % of the SM's warp slots (Nsight Compute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occupancy_theoretical_pct: Option<f64>,
    /// Achieved occupancy, % of the SM's warp slots, averaged over the run
    /// (Nsight Compute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occupancy_achieved_pct: Option<f64>,
    /// What limits theoretical occupancy: "registers", "shared memory",
    /// "warps", "blocks", "barriers".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occupancy_limiter: Option<String>,
    /// Advice from the occupancy calculator for that limiter ("use 8 fewer
    /// registers per thread to fit another block").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occupancy_hint: Option<String>,
    /// Registers per thread as compiled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registers_per_thread: Option<f64>,
    /// Threads per block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_size: Option<f64>,
    /// Blocks in the grid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid_size: Option<f64>,
    /// Shared memory per block, static and dynamic, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_mem_per_block: Option<f64>,
    /// Useful bytes per 32-byte sector for global loads (32 = perfectly used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub global_load_bytes_per_sector: Option<f64>,
    /// Useful bytes per 32-byte sector for global stores (32 = perfectly used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub global_store_bytes_per_sector: Option<f64>,
    /// Shared-memory bank conflicts (loads + stores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_bank_conflicts: Option<f64>,
    /// Shared-memory wavefronts, conflicts included
    /// (`l1tex__data_pipe_lsu_wavefronts_mem_shared.sum`): what conflicts
    /// are a share of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_wavefronts: Option<f64>,
    /// L2 sectors global accesses fetched beyond what perfectly coalesced
    /// accesses would need (Nsight Compute's
    /// `derived__memory_l2_theoretical_sectors_global_excessive`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excessive_sectors: Option<f64>,
    /// Why warps could not issue: warp cycles stalled per issued
    /// instruction, per reason ("long_scoreboard": waiting on L1TEX/DRAM).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub stalls: BTreeMap<String, f64>,
    /// % of the roof reached against the profiler's own peaks at the
    /// kernel's own clocks (Nsight Compute's roofline chart), when the
    /// analysis itself used another machine (a measured one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter_pct_of_roof: Option<f64>,
    /// Bytes this GPU received over NVLink (Nsight Compute's `nvlrx__bytes`),
    /// on machines whose GPUs have NVLinks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvlink_rx_bytes: Option<f64>,
    /// Bytes this GPU sent over NVLink (`nvltx__bytes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvlink_tx_bytes: Option<f64>,

    // Launch shape (`launch__*`, `sm__cycles_active`).
    /// Blocks the grid has per resident-block slot of the whole GPU
    /// (`launch__waves_per_multiprocessor`): below 1 the grid leaves slots
    /// empty, 2.1 means a third wave that keeps a tenth of the slots busy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waves: Option<f64>,
    /// SMs the launch could use (`launch__sm_count`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_count: Option<f64>,
    /// Blocks resident per SM at once: the least of the occupancy limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks_per_sm: Option<f64>,
    /// Share of the elapsed cycles the average SM was active, in %
    /// (`sm__cycles_active.avg / sm__cycles_elapsed.avg`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_active_pct: Option<f64>,

    // Clocks.
    /// The SM clock the kernel ran at (`sm__cycles_elapsed.avg.per_second`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_clock_hz: Option<f64>,
    /// The GPU's maximum SM clock (`device__attribute_max_gpu_frequency_khz`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_sm_clock_hz: Option<f64>,

    // Traffic per direction.
    /// L1 sectors of global loads and stores
    /// (`l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub global_load_sectors: Option<f64>,
    /// L1 sectors of global stores (see `global_load_sectors`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub global_store_sectors: Option<f64>,
    /// DRAM bytes read and written (`dram__sectors_{read,write}.sum` x 32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram_read_bytes: Option<f64>,
    /// DRAM bytes written (see `dram_read_bytes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram_write_bytes: Option<f64>,
    /// L2 sectors the SMs read and wrote
    /// (`lts__t_sectors_srcunit_tex_op_{read,write}.sum`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2_read_sectors: Option<f64>,
    /// L2 sectors the SMs wrote (see `l2_read_sectors`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2_write_sectors: Option<f64>,
    /// Sectors the tensor memory accelerator loaded into shared memory
    /// (`l1tex__m_xbar2l1tex_read_sectors_mem_global_op_tma_ld.sum`): traffic
    /// the L1 LSU counters do not see.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tma_load_sectors: Option<f64>,
    /// Asynchronous global-to-shared copies (LDGSTS, `cp.async`), warp
    /// instructions (`smsp__inst_executed_op_ldgsts.sum`): also unseen by
    /// the L1 LSU writeback counter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub async_copy_instructions: Option<f64>,
    /// Warpgroup MMA (wgmma) utilisation of the tensor pipe, % of peak
    /// (`sm__inst_executed_pipe_tensor_op_gmma`): its operands come from
    /// shared memory past the L1 counters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wgmma_pct: Option<f64>,

    // Instructions.
    /// Warp instructions executed, all pipes (`smsp__inst_executed.sum`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warp_instructions: Option<f64>,
    /// Per pipe: the profiler's utilisation and the warp instructions issued.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pipes: BTreeMap<Pipe, PipeUse>,
    /// How the FP16 FLOPs were counted (packed or scalar, constant moves).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fp16: Option<Fp16Accounting>,

    // Utilisation of each unit over the kernel's elapsed time, at its own
    // clock: what the binding limiter is chosen from.
    /// Per memory level: % of the level's peak sustained throughput over the
    /// elapsed time (`dram__throughput`, `lts__throughput`,
    /// `l1tex__throughput` `.avg.pct_of_peak_sustained_elapsed`; counter).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub level_busy_pct: BTreeMap<MemLevel, f64>,
    /// Per pipe: % of the pipe's peak over the elapsed time
    /// (`sm__pipe_*_cycles_active` or `sm__inst_executed_pipe_*`
    /// `.avg.pct_of_peak_sustained_elapsed`; the issue slots from
    /// `sm__inst_issued`; shared memory from its data-stage wavefronts;
    /// counter). Elapsed, not active, so SMs left idle count against it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pipe_busy_pct: BTreeMap<Pipe, f64>,
    /// Shared-memory bank conflicts of atomics (ATOMS), beside their
    /// wavefronts (`l1tex__data_{bank_conflicts,pipe_lsu_wavefronts}_pipe_lsu_mem_shared_op_atom.sum`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_atomic_conflicts: Option<f64>,
    /// Wavefronts of shared-memory atomics, conflicts included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_atomic_wavefronts: Option<f64>,
    /// Distinct launch shapes (grid x block) among the kernel's launches;
    /// the shape figures above are those of the shape that took the most
    /// time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch_shapes: Option<u32>,
    /// Share of the kernel's time in launches of that dominant shape (0..1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dominant_shape_share: Option<f64>,
    /// Nsight Compute's IDs of the launches behind this kernel (its `ID`
    /// column, what `ncu --launch-skip`/`--print-details` and the ncu UI
    /// show), the first [`NCU_IDS_KEPT`]: where a user finds the kernel
    /// named by its `[k6cbd29]` ID (a hash of its name) in the capture.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ncu_launch_ids: Vec<String>,
}

/// How many of a kernel's ncu launch IDs its evidence keeps.
pub const NCU_IDS_KEPT: usize = 16;

/// One pipe's use by a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct PipeUse {
    /// % of the pipe's peak over the SMs' active cycles, as the profiler
    /// reports it (`sm__inst_executed_pipe_*.avg.pct_of_peak_sustained_active`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pct_of_peak: Option<f64>,
    /// Warp instructions the pipe executed (summed over launches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warp_instructions: Option<f64>,
}

/// How FP16 FLOPs were counted.
///
/// Nsight Compute counts one HFMA thread instruction as 4 FLOPs (a packed
/// half2 pair) and HADD/HMUL as 2, the roof's own convention; a scalar half
/// instruction does half of that. Compilers also move constants into
/// registers with `HFMA2.MMA`, which the HFMA counter includes although no
/// FP16 work is done.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fp16Accounting {
    /// FP16 FLOPs if every half instruction is packed (what `flops` counts).
    pub packed_flops: f64,
    /// FP16 FLOPs if every half instruction is scalar.
    pub scalar_flops: f64,
    /// Whether a counter told packed from scalar instructions.
    pub packing: Fp16Packing,
    /// HFMA thread instructions judged to be constant moves, left out of
    /// the FLOPs; `None` when none were found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constant_moves: Option<ConstantMoves>,
}

/// What is known about packed (half2) against scalar half instructions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Fp16Packing {
    /// The counters cannot tell: FLOPs are counted as packed (the roof's
    /// convention) and the scalar count is the lower bound.
    Unknown,
    /// A counter split them: the share of half instructions that were packed.
    Counted {
        /// Packed (half2) share of the half instructions, 0..1.
        packed_share: f64,
        /// The counter it came from.
        source: String,
    },
}

/// HFMA instructions that move constants (HFMA2.MMA), not FP16 work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConstantMoves {
    /// HFMA thread instructions.
    pub thread_instructions: f64,
    /// The FLOPs ncu's convention would have counted for them.
    pub flops_as_counted: f64,
    /// How they were recognised.
    pub detected_by: MoveDetection,
}

/// How constant moves were recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveDetection {
    /// HFMA without any HADD or HMUL, beside more FP32, FP64 or tensor
    /// work, under a small share of the kernel's FLOPs (no pipe counters).
    Pattern,
    /// The same, with the pipe counters showing no FP16 instruction on the
    /// FMA pipe: the HFMA ran as HFMA2.MMA on the tensor pipe.
    PipeCounters,
}

impl Evidence {
    /// True when no evidence was recorded (a paper estimate, a user kernel).
    pub fn is_empty(&self) -> bool {
        *self == Evidence::default()
    }

    /// DRAM bytes read as a share of DRAM bytes moved (0..1), when both
    /// directions were counted.
    pub fn dram_read_share(&self) -> Option<f64> {
        let (r, w) = (self.dram_read_bytes?, self.dram_write_bytes?);
        (r >= 0.0 && w >= 0.0 && r + w > 0.0).then(|| r / (r + w))
    }
}

impl Kernel {
    /// A kernel with a name and a short ID derived from it.
    pub fn named(name: &str, origin: Origin) -> Kernel {
        Kernel {
            id: short_id(name),
            name: name.to_string(),
            display_name: name.to_string(),
            launches: 1,
            origin,
            ..Kernel::default()
        }
    }

    /// FLOPs of every kind added up (tensor and CUDA-core alike).
    pub fn total_flops(&self) -> f64 {
        self.flops.values().sum()
    }

    /// The kind with the most FLOPs, if any FLOPs were done.
    pub fn dominant_kind(&self) -> Option<FlopKind> {
        self.flops.iter().filter(|(_, &v)| v > 0.0).max_by(|a, b| a.1.total_cmp(b.1)).map(|(&k, _)| k)
    }
}

/// A stable 7-character ID for a kernel name (FNV-1a, hex), so that a kernel
/// keeps its ID across runs and machines.
pub fn short_id(name: &str) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in name.as_bytes() {
        h ^= *b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    format!("k{:06x}", h & 0xff_ffff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_is_held_only_when_there_is_some_and_reads_and_writes_as_itself() {
        let some = Evidence { dram_throughput_pct: Some(93.0), ..Evidence::default() };
        let boxed = EvidenceBox::from(some.clone());
        assert_eq!(*boxed, some);
        assert_ne!(boxed, EvidenceBox::default(), "evidence differs from none");
        assert_eq!(EvidenceBox::from(Evidence::default()), EvidenceBox::default(), "empty is none");
        assert!(format!("{boxed:?}").contains("dram_throughput_pct: Some(93.0)"));
        assert_eq!(serde_json::to_value(&boxed).unwrap(), serde_json::to_value(&some).unwrap());
        assert_eq!(serde_json::from_value::<EvidenceBox>(serde_json::to_value(&some).unwrap()).unwrap(), boxed);
        assert_eq!(boxed.clone().into_inner(), some);
        // A kernel without evidence writes none, and one without a launch count read back has one.
        let k = Kernel::named("k", Origin::Counter);
        let json = serde_json::to_value(&k).unwrap();
        assert!(json.get("evidence").is_none(), "{json}");
        let mut without_launches = json.clone();
        without_launches.as_object_mut().unwrap().remove("launches");
        assert_eq!(serde_json::from_value::<Kernel>(without_launches).unwrap().launches, 1);
        let mut k = k;
        k.evidence.sm_throughput_pct = Some(10.0);
        assert!(serde_json::to_value(&k).unwrap()["evidence"]["sm_throughput_pct"] == 10.0);
    }

    #[test]
    fn a_named_kernel_keeps_its_origin() {
        for origin in [Origin::Counter, Origin::Measured, Origin::User] {
            assert_eq!(Kernel::named("k", origin).origin, origin);
        }
    }

    #[test]
    fn ids_are_stable_and_short() {
        assert_eq!(short_id("vecadd"), short_id("vecadd"));
        assert_ne!(short_id("vecadd"), short_id("saxpy"));
        assert_eq!(short_id("x").len(), 7);
    }
}
