//! Which Nsight Compute metrics a roofline point needs, per architecture,
//! and which CSV columns carry them.
//!
//! `roofline profile` asks ncu for exactly these metrics instead of
//! `--set full`, so each kernel is replayed a handful of times instead of
//! ~40. The same table tells `import` which result a missing column blocks
//! ("no `dram__bytes.sum`: no DRAM point"). Names are those of Nsight
//! Compute 2025.3 on Hopper (checked with `ncu --query-metrics` on an H200);
//! before compute capability 9.0 the L1 writeback metric ends in `_mem_lg`.

use std::collections::HashSet;

/// The checked-in list for compute capability 9.0.
pub const SM90_LIST: &str = include_str!("../metrics/sm90.txt");

/// One number a roofline point is built from, whatever column carried it.
///
/// Each variant is named after the quantity it holds; which columns fill it,
/// and with what factor, is the [`COLUMNS`] table, and what is lost without
/// it is [`blocks`]: a doc line per variant would only repeat its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum Slot {
    Duration,
    /// Elapsed SM cycles: turns `--set full`'s per-cycle instruction rates
    /// back into counts.
    Cycles,
    SmClock,
    DramClock,
    LtsClock,
    L1Clock,
    Dadd,
    Dmul,
    Dfma,
    Fadd,
    Fmul,
    Ffma,
    Hadd,
    Hmul,
    Hfma,
    DfmaPeak,
    FfmaPeak,
    HfmaPeak,
    DramBytes,
    DramPeak,
    L2Bytes,
    L2Peak,
    L1Bytes,
    L1Peak,
    L2BytesNersc,
    L2PeakNersc,
    L1BytesNersc,
    L1PeakNersc,
    DramSol,
    SmSol,
    OccupancyTheoretical,
    OccupancyAchieved,
    LimitRegisters,
    LimitSharedMem,
    LimitWarps,
    LimitBlocks,
    LimitBarriers,
    Registers,
    SharedStatic,
    SharedDynamic,
    BlockSize,
    GridSize,
    BytesPerSectorLoad,
    BytesPerSectorStore,
    BankConflictsLoad,
    BankConflictsStore,
    ExcessiveSectors,
    /// Launch shape: block slots per wave, SMs, active cycles.
    Waves,
    SmCount,
    SmCyclesActive,
    /// The GPU's maximum SM clock (a device attribute, kHz in the CSV).
    MaxSmClock,
    /// Traffic per direction.
    DramReadBytes,
    DramWriteBytes,
    L2ReadSectors,
    L2WriteSectors,
    GlobalLoadSectors,
    GlobalStoreSectors,
    SharedWavefronts,
    TmaLoadSectors,
    AsyncCopyInstructions,
    /// Instructions.
    WarpInstructions,
    IssueActive,
    SharedLoadInstructions,
    SharedStoreInstructions,
    SharedAtomicInstructions,
    GlobalReductionInstructions,
    GenericAtomicAluInstructions,
    GenericAtomicCasInstructions,
    /// Utilisation over the elapsed time, % of peak, at the kernel's own
    /// clock: the units the binding limiter is chosen from.
    L2Busy,
    L1Busy,
    IssueBusy,
    TensorBusy,
    FmaBusy,
    Fp16Busy,
    AluBusy,
    Fp64Busy,
    XuBusy,
    LsuBusy,
    SharedBusy,
    SharedAtomicBusy,
    SharedAtomicConflicts,
    SharedAtomicWavefronts,
    /// Bytes received over NVLink (multi-GPU machines only).
    NvlinkRx,
    /// Bytes sent over NVLink.
    NvlinkTx,
}

/// The number of slots: the length of a launch's value array, indexed by
/// `Slot as usize`.
pub const SLOT_COUNT: usize = Slot::NvlinkTx as usize + 1;

/// How a column turns into a slot's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Via {
    /// The column times a factor (32 bytes per L2-to-crossbar cycle, ...).
    Direct(f64),
    /// A per-second column times the kernel's duration, times a factor
    /// (`--set full` exports L2 bytes only as `derived__...per_second`).
    PerSecond(f64),
    /// A per-cycle column times the elapsed cycles (`--set full` exports
    /// instruction counts only as `.sum.per_cycle_elapsed`, rounded to two
    /// decimals: counts come back to about 1e-5, not exactly).
    PerCycle(f64),
}

/// Columns that can fill each slot, best first.
pub const COLUMNS: &[(Slot, &str, Via)] = &[
    (Slot::Duration, "gpu__time_duration.sum", Via::Direct(1.0)),
    (Slot::Cycles, "smsp__cycles_elapsed.avg", Via::Direct(1.0)),
    (Slot::Cycles, "sm__cycles_elapsed.avg", Via::Direct(1.0)),
    (Slot::SmClock, "sm__cycles_elapsed.avg.per_second", Via::Direct(1.0)),
    (Slot::DramClock, "dram__cycles_elapsed.avg.per_second", Via::Direct(1.0)),
    (Slot::LtsClock, "lts__cycles_elapsed.avg.per_second", Via::Direct(1.0)),
    (Slot::L1Clock, "l1tex__cycles_elapsed.avg.per_second", Via::Direct(1.0)),
    (Slot::Dadd, "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", Via::Direct(1.0)),
    (Slot::Dadd, "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed", Via::PerCycle(1.0)),
    (Slot::Dmul, "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", Via::Direct(1.0)),
    (Slot::Dmul, "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed", Via::PerCycle(1.0)),
    (Slot::Dfma, "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", Via::Direct(1.0)),
    (Slot::Dfma, "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed", Via::PerCycle(1.0)),
    (Slot::Fadd, "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", Via::Direct(1.0)),
    (Slot::Fadd, "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed", Via::PerCycle(1.0)),
    (Slot::Fmul, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", Via::Direct(1.0)),
    (Slot::Fmul, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed", Via::PerCycle(1.0)),
    (Slot::Ffma, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", Via::Direct(1.0)),
    (Slot::Ffma, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed", Via::PerCycle(1.0)),
    (Slot::Hadd, "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", Via::Direct(1.0)),
    (Slot::Hadd, "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed", Via::PerCycle(1.0)),
    (Slot::Hmul, "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", Via::Direct(1.0)),
    (Slot::Hmul, "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed", Via::PerCycle(1.0)),
    (Slot::Hfma, "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", Via::Direct(1.0)),
    (Slot::Hfma, "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed", Via::PerCycle(1.0)),
    (Slot::DfmaPeak, "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained", Via::Direct(1.0)),
    (Slot::DfmaPeak, "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained", Via::Direct(1.0)),
    (Slot::FfmaPeak, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", Via::Direct(1.0)),
    (Slot::FfmaPeak, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", Via::Direct(1.0)),
    (Slot::HfmaPeak, "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained", Via::Direct(1.0)),
    (Slot::HfmaPeak, "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained", Via::Direct(1.0)),
    (Slot::DramBytes, "dram__bytes.sum", Via::Direct(1.0)),
    (Slot::DramBytes, "dram__bytes.sum.per_second", Via::PerSecond(1.0)),
    (Slot::DramPeak, "dram__bytes.sum.peak_sustained", Via::Direct(1.0)),
    (Slot::L2Bytes, "lts__lts2xbar_cycles_active.sum", Via::Direct(32.0)),
    (Slot::L2Bytes, "derived__lts__lts2xbar_bytes.sum", Via::Direct(1.0)),
    (Slot::L2Bytes, "derived__lts__lts2xbar_bytes.sum.per_second", Via::PerSecond(1.0)),
    (Slot::L2Bytes, "lts__lts2xbar_cycles_active.sum.per_second", Via::PerSecond(32.0)),
    (Slot::L2Peak, "lts__lts2xbar_cycles_active.sum.peak_sustained", Via::Direct(32.0)),
    (Slot::L2Peak, "derived__lts__lts2xbar_bytes.sum.peak_sustained", Via::Direct(1.0)),
    (Slot::L1Bytes, "l1tex__lsu_writeback_active_mem_lgds.sum", Via::Direct(128.0)),
    (Slot::L1Bytes, "derived__l1tex__lsu_writeback_bytes_mem_lgds.sum", Via::Direct(1.0)),
    (Slot::L1Bytes, "l1tex__lsu_writeback_active_mem_lg.sum", Via::Direct(128.0)),
    (Slot::L1Bytes, "derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second", Via::PerSecond(1.0)),
    (Slot::L1Peak, "l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained", Via::Direct(128.0)),
    (Slot::L1Peak, "derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.peak_sustained", Via::Direct(1.0)),
    (Slot::L1Peak, "l1tex__lsu_writeback_active_mem_lg.sum.peak_sustained", Via::Direct(128.0)),
    (Slot::L2BytesNersc, "lts__t_bytes.sum", Via::Direct(1.0)),
    (Slot::L2PeakNersc, "lts__t_bytes.sum.peak_sustained", Via::Direct(1.0)),
    (Slot::L1BytesNersc, "l1tex__t_bytes.sum", Via::Direct(1.0)),
    (Slot::L1PeakNersc, "l1tex__t_bytes.sum.peak_sustained", Via::Direct(1.0)),
    (Slot::DramSol, "dram__throughput.avg.pct_of_peak_sustained_elapsed", Via::Direct(1.0)),
    (Slot::DramSol, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", Via::Direct(1.0)),
    (Slot::SmSol, "sm__throughput.avg.pct_of_peak_sustained_elapsed", Via::Direct(1.0)),
    (Slot::OccupancyTheoretical, "sm__maximum_warps_per_active_cycle_pct", Via::Direct(1.0)),
    (Slot::OccupancyAchieved, "sm__warps_active.avg.pct_of_peak_sustained_active", Via::Direct(1.0)),
    (Slot::LimitRegisters, "launch__occupancy_limit_registers", Via::Direct(1.0)),
    (Slot::LimitSharedMem, "launch__occupancy_limit_shared_mem", Via::Direct(1.0)),
    (Slot::LimitWarps, "launch__occupancy_limit_warps", Via::Direct(1.0)),
    (Slot::LimitBlocks, "launch__occupancy_limit_blocks", Via::Direct(1.0)),
    (Slot::LimitBarriers, "launch__occupancy_limit_barriers", Via::Direct(1.0)),
    (Slot::Registers, "launch__registers_per_thread", Via::Direct(1.0)),
    (Slot::SharedStatic, "launch__shared_mem_per_block_static", Via::Direct(1.0)),
    (Slot::SharedDynamic, "launch__shared_mem_per_block_dynamic", Via::Direct(1.0)),
    (Slot::BlockSize, "launch__block_size", Via::Direct(1.0)),
    (Slot::GridSize, "launch__grid_size", Via::Direct(1.0)),
    (Slot::BytesPerSectorLoad, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", Via::Direct(1.0)),
    (Slot::BytesPerSectorStore, "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio", Via::Direct(1.0)),
    (Slot::BankConflictsLoad, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", Via::Direct(1.0)),
    (Slot::BankConflictsStore, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", Via::Direct(1.0)),
    (Slot::ExcessiveSectors, "derived__memory_l2_theoretical_sectors_global_excessive", Via::Direct(1.0)),
    (Slot::L2Busy, "lts__throughput.avg.pct_of_peak_sustained_elapsed", Via::Direct(1.0)),
    (Slot::L1Busy, "l1tex__throughput.avg.pct_of_peak_sustained_elapsed", Via::Direct(1.0)),
    (Slot::IssueBusy, "sm__inst_issued.avg.pct_of_peak_sustained_elapsed", Via::Direct(1.0)),
    (Slot::TensorBusy, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", Via::Direct(1.0)),
    (Slot::FmaBusy, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed", Via::Direct(1.0)),
    (Slot::FmaBusy, "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_elapsed", Via::Direct(1.0)),
    (Slot::Fp16Busy, "sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_elapsed", Via::Direct(1.0)),
    (Slot::AluBusy, "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed", Via::Direct(1.0)),
    (Slot::AluBusy, "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_elapsed", Via::Direct(1.0)),
    (Slot::Fp64Busy, "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed", Via::Direct(1.0)),
    (Slot::XuBusy, "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed", Via::Direct(1.0)),
    (Slot::LsuBusy, "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed", Via::Direct(1.0)),
    (
        Slot::SharedBusy,
        "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed",
        Via::Direct(1.0),
    ),
    (
        Slot::SharedAtomicBusy,
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum.pct_of_peak_sustained_elapsed",
        Via::Direct(1.0),
    ),
    (Slot::SharedAtomicConflicts, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum", Via::Direct(1.0)),
    (Slot::SharedAtomicWavefronts, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", Via::Direct(1.0)),
    (Slot::NvlinkRx, "nvlrx__bytes_data_user.sum", Via::Direct(1.0)),
    (Slot::NvlinkRx, "nvlrx__bytes.sum", Via::Direct(1.0)),
    (Slot::NvlinkRx, "nvlrx__bytes.sum.per_second", Via::PerSecond(1.0)),
    (Slot::NvlinkTx, "nvltx__bytes_data_user.sum", Via::Direct(1.0)),
    (Slot::NvlinkTx, "nvltx__bytes.sum", Via::Direct(1.0)),
    (Slot::NvlinkTx, "nvltx__bytes.sum.per_second", Via::PerSecond(1.0)),
    (Slot::Waves, "launch__waves_per_multiprocessor", Via::Direct(1.0)),
    (Slot::SmCount, "launch__sm_count", Via::Direct(1.0)),
    (Slot::SmCount, "device__attribute_multiprocessor_count", Via::Direct(1.0)),
    (Slot::SmCyclesActive, "sm__cycles_active.avg", Via::Direct(1.0)),
    (Slot::MaxSmClock, "device__attribute_max_gpu_frequency_khz", Via::Direct(1e3)),
    (Slot::MaxSmClock, "device__attribute_clock_rate", Via::Direct(1e3)),
    (Slot::DramReadBytes, "dram__bytes_read.sum", Via::Direct(1.0)),
    (Slot::DramReadBytes, "dram__sectors_read.sum", Via::Direct(32.0)),
    (Slot::DramWriteBytes, "dram__bytes_write.sum", Via::Direct(1.0)),
    (Slot::DramWriteBytes, "dram__sectors_write.sum", Via::Direct(32.0)),
    (Slot::L2ReadSectors, "lts__t_sectors_srcunit_tex_op_read.sum", Via::Direct(1.0)),
    (Slot::L2WriteSectors, "lts__t_sectors_srcunit_tex_op_write.sum", Via::Direct(1.0)),
    (Slot::GlobalLoadSectors, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", Via::Direct(1.0)),
    (Slot::GlobalStoreSectors, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", Via::Direct(1.0)),
    (Slot::SharedWavefronts, "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", Via::Direct(1.0)),
    (Slot::TmaLoadSectors, "l1tex__m_xbar2l1tex_read_sectors_mem_global_op_tma_ld.sum", Via::Direct(1.0)),
    (Slot::AsyncCopyInstructions, "smsp__inst_executed_op_ldgsts.sum", Via::Direct(1.0)),
    (Slot::WarpInstructions, "smsp__inst_executed.sum", Via::Direct(1.0)),
    (Slot::WarpInstructions, "inst_executed", Via::Direct(1.0)),
    (Slot::IssueActive, "smsp__issue_active.avg.pct_of_peak_sustained_active", Via::Direct(1.0)),
    (Slot::SharedLoadInstructions, "smsp__sass_inst_executed_op_shared_ld.sum", Via::Direct(1.0)),
    (Slot::SharedStoreInstructions, "smsp__sass_inst_executed_op_shared_st.sum", Via::Direct(1.0)),
    (Slot::SharedAtomicInstructions, "smsp__inst_executed_op_shared_atom.sum", Via::Direct(1.0)),
    (Slot::GlobalReductionInstructions, "smsp__inst_executed_op_global_red.sum", Via::Direct(1.0)),
    (Slot::GenericAtomicAluInstructions, "smsp__inst_executed_op_generic_atom_dot_alu.sum", Via::Direct(1.0)),
    (Slot::GenericAtomicCasInstructions, "smsp__inst_executed_op_generic_atom_dot_cas.sum", Via::Direct(1.0)),
];

/// Pipe utilisation and instruction counts:
/// `sm__inst_executed_pipe_<pipe>.avg.pct_of_peak_sustained_active` and
/// `sm__inst_executed_pipe_<pipe>.sum` (warp instructions).
pub const PIPE_PREFIX: &str = "sm__inst_executed_pipe_";
/// Suffix of a pipe's utilisation column.
pub const PIPE_PCT_SUFFIX: &str = ".avg.pct_of_peak_sustained_active";
/// Suffix of a pipe's warp-instruction count column.
pub const PIPE_COUNT_SUFFIX: &str = ".sum";
/// Cycles a pipe was busy: `sm__pipe_<pipe>_cycles_active.avg.pct_of_peak_sustained_active`.
/// Above the instruction utilisation when instructions occupy the pipe for
/// several cycles (IMAD on Hopper's half-width FMA-heavy pipe). Hopper's
/// `shared` pipe here is the datapath FP64 and tensor instructions share,
/// not shared memory.
pub const PIPE_CYCLES_PREFIX: &str = "sm__pipe_";
/// Suffix of a pipe's busy-cycles column.
pub const PIPE_CYCLES_SUFFIX: &str = "_cycles_active.avg.pct_of_peak_sustained_active";

/// Prefix and suffix of the tensor-core operation counters
/// (`sm__ops_path_tensor_src_bf16_dst_fp32.sum`): one per input type.
pub const TENSOR_PREFIX: &str = "sm__ops_path_tensor_src_";
/// Stall reasons: `smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio`.
pub const STALL_PREFIX: &str = "smsp__average_warps_issue_stalled_";
/// Suffix of a stall reason's column.
pub const STALL_SUFFIX: &str = "_per_issue_active.ratio";

/// What is lost without a slot: the sentence `import` prints next to a
/// missing metric. Slots not listed only enrich the diagnosis.
pub fn blocks(slot: Slot) -> &'static str {
    match slot {
        Slot::Duration => "every rate: achieved FLOP/s, bytes/s and % of roof",
        Slot::Cycles => "FLOP counts from per-cycle rates (only needed without .sum counters)",
        Slot::Dadd | Slot::Dmul | Slot::Dfma => "FP64 FLOPs",
        Slot::Fadd | Slot::Fmul | Slot::Ffma => "FP32 FLOPs",
        Slot::Hadd | Slot::Hmul | Slot::Hfma => "FP16 FLOPs",
        Slot::DramBytes => "the DRAM point",
        Slot::L2Bytes => "the L2 point",
        Slot::L1Bytes => "the L1 point",
        Slot::L2BytesNersc => "the L2 point in NERSC's convention (--bytes nersc)",
        Slot::L1BytesNersc => "the L1 point in NERSC's convention (--bytes nersc)",
        Slot::SmClock | Slot::DfmaPeak | Slot::FfmaPeak | Slot::HfmaPeak => {
            "the counters' own compute roofs (give --machine FILE instead)"
        }
        Slot::DramClock | Slot::DramPeak => "the counters' own DRAM roof",
        Slot::LtsClock | Slot::L2Peak => "the counters' own L2 roof",
        Slot::L1Clock | Slot::L1Peak => "the counters' own L1 roof",
        Slot::L2PeakNersc | Slot::L1PeakNersc => "the counters' own roofs in NERSC's convention",
        Slot::DramSol | Slot::SmSol => "Nsight Compute's speed-of-light percentages",
        Slot::OccupancyTheoretical | Slot::OccupancyAchieved => "occupancy in the diagnosis",
        Slot::LimitRegisters | Slot::LimitSharedMem | Slot::LimitWarps | Slot::LimitBlocks | Slot::LimitBarriers => {
            "what limits occupancy"
        }
        Slot::BytesPerSectorLoad | Slot::BytesPerSectorStore | Slot::ExcessiveSectors => {
            "the wasted-bytes (sector) evidence"
        }
        Slot::Registers
        | Slot::SharedStatic
        | Slot::SharedDynamic
        | Slot::BlockSize
        | Slot::GridSize
        | Slot::BankConflictsLoad
        | Slot::BankConflictsStore => "launch details in the diagnosis",
        Slot::NvlinkRx | Slot::NvlinkTx => "the NVLink bytes of collectives (multi-GPU machines)",
        Slot::Waves | Slot::SmCount | Slot::SmCyclesActive => "the launch-shape evidence (waves, tail, idle SMs)",
        Slot::MaxSmClock => "the clock in the verdict (the GPU's maximum clock)",
        Slot::DramReadBytes | Slot::DramWriteBytes => "the DRAM roof for the kernel's own read:write mix",
        Slot::L2ReadSectors | Slot::L2WriteSectors => "the check that the L2 point counts the L2 writes",
        Slot::GlobalLoadSectors | Slot::GlobalStoreSectors => "the share of the traffic that wasted sectors concern",
        Slot::SharedWavefronts => "the share of shared-memory wavefronts that bank conflicts concern",
        Slot::TmaLoadSectors | Slot::AsyncCopyInstructions => {
            "naming TMA and cp.async traffic that the L1 point does not see"
        }
        Slot::WarpInstructions | Slot::IssueActive => "the instruction roofline",
        Slot::SharedLoadInstructions
        | Slot::SharedStoreInstructions
        | Slot::SharedAtomicInstructions
        | Slot::GlobalReductionInstructions
        | Slot::GenericAtomicAluInstructions
        | Slot::GenericAtomicCasInstructions => "the shared-memory and atomic pipes of the instruction roofline",
        Slot::L2Busy
        | Slot::L1Busy
        | Slot::IssueBusy
        | Slot::TensorBusy
        | Slot::FmaBusy
        | Slot::Fp16Busy
        | Slot::AluBusy
        | Slot::Fp64Busy
        | Slot::XuBusy
        | Slot::LsuBusy
        | Slot::SharedBusy
        | Slot::SharedAtomicBusy
        | Slot::SharedAtomicConflicts
        | Slot::SharedAtomicWavefronts => "the binding limiter (each unit's utilisation over the elapsed time)",
    }
}

/// The units' utilisation over the elapsed time: optional extras (older
/// captures and metric lists lack them), read for the binding limiter.
const UNIT_BUSY: [Slot; 14] = [
    Slot::L2Busy,
    Slot::L1Busy,
    Slot::IssueBusy,
    Slot::TensorBusy,
    Slot::FmaBusy,
    Slot::Fp16Busy,
    Slot::AluBusy,
    Slot::Fp64Busy,
    Slot::XuBusy,
    Slot::LsuBusy,
    Slot::SharedBusy,
    Slot::SharedAtomicBusy,
    Slot::SharedAtomicConflicts,
    Slot::SharedAtomicWavefronts,
];

/// Slots whose absence `import` reports (the NERSC ones, the excess-sector
/// count and the NERSC peaks are optional extras).
pub fn reported_when_missing(slot: Slot) -> bool {
    !UNIT_BUSY.contains(&slot)
        && !matches!(
            slot,
            Slot::Cycles
                | Slot::L2BytesNersc
                | Slot::L1BytesNersc
                | Slot::L2PeakNersc
                | Slot::L1PeakNersc
                | Slot::ExcessiveSectors
                | Slot::LimitBarriers
                | Slot::BankConflictsLoad
                | Slot::BankConflictsStore
                | Slot::NvlinkRx
                | Slot::NvlinkTx
                | Slot::SharedWavefronts
                | Slot::TmaLoadSectors
                | Slot::AsyncCopyInstructions
                | Slot::SharedLoadInstructions
                | Slot::SharedStoreInstructions
                | Slot::SharedAtomicInstructions
                | Slot::GlobalReductionInstructions
                | Slot::GenericAtomicAluInstructions
                | Slot::GenericAtomicCasInstructions
                // The SM's speed-of-light composite costs 5 replay passes and
                // no verdict reads it: the tool's own list leaves it out.
                | Slot::SmSol
        )
}

/// The metric names in a list file (one per line, `#` comments).
pub fn parse_list(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// Metrics that ncu collects although `--query-metrics` does not list them.
fn always_known(name: &str) -> bool {
    name.starts_with("launch__")
        || name.starts_with("device__attribute_")
        || name.starts_with("sm__maximum_warps_per_active_cycle_pct")
}

/// The base name of a metric (`dram__bytes` for `dram__bytes.sum.peak_sustained`).
pub fn base_name(metric: &str) -> &str {
    metric.split('.').next().unwrap_or(metric)
}

/// The metric list for a compute capability, optionally checked against the
/// base names this ncu knows (`ncu --query-metrics`). Returns the list and
/// the names dropped because ncu does not know them.
pub fn metrics_for(cc_major: Option<u32>, known: Option<&HashSet<String>>) -> (Vec<String>, Vec<String>) {
    let mut list = parse_list(SM90_LIST);
    // The list is Hopper's; a generation that names the L1 writeback
    // metric otherwise says so in its descriptor.
    let writeback = cc_major.map_or("_mem_lgds", |m| roofline_hw::arch_for_major(m).ncu.l1_writeback);
    if writeback != "_mem_lgds" {
        for m in &mut list {
            if m.starts_with("l1tex__lsu_writeback_active_mem_lgds") {
                *m = m.replace("_mem_lgds", writeback);
            }
        }
    }
    let Some(known) = known else { return (list, Vec::new()) };
    let (keep, dropped): (Vec<String>, Vec<String>) =
        list.into_iter().partition(|m| always_known(m) || known.contains(base_name(m)));
    let mut keep = keep;
    let mut dropped = dropped;
    // An older ncu or GPU names the L1 writeback metric `_mem_lg`.
    dropped.retain(|m| {
        let alt = m.replace("_mem_lgds", "_mem_lg");
        if alt != *m && known.contains(base_name(&alt)) {
            keep.push(alt);
            false
        } else {
            true
        }
    });
    let mut tensor: Vec<&String> =
        known.iter().filter(|b| b.starts_with(TENSOR_PREFIX) && !b.contains("sparsity")).collect();
    tensor.sort();
    for b in tensor {
        let sum = format!("{b}.sum");
        if !keep.contains(&sum) {
            keep.push(sum);
            keep.push(format!("{b}.sum.peak_sustained"));
        }
    }
    // NVLink counters exist only on machines with NVLinks: asked for when
    // this ncu offers them, never reported missing otherwise.
    keep.extend(nvlink_metrics(known));
    (keep, dropped)
}

/// The NVLink columns, by the tail of their name, best first.
pub const NVLINK_TAILS: [(Slot, &str); 4] = [
    (Slot::NvlinkRx, "nvlrx__bytes_data_user.sum"),
    (Slot::NvlinkRx, "nvlrx__bytes.sum"),
    (Slot::NvlinkTx, "nvltx__bytes_data_user.sum"),
    (Slot::NvlinkTx, "nvltx__bytes.sum"),
];

/// The NVLink metrics this ncu offers (`known`: its `--query-metrics` base
/// names), one per direction: the user-data counter where there is one,
/// else all bytes. Empty on machines without NVLink.
pub fn nvlink_metrics(known: &HashSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["nvlrx", "nvltx"] {
        let found = [format!("{dir}__bytes_data_user"), format!("{dir}__bytes")].into_iter().find_map(|base| {
            let tail = format!(".{base}");
            let mut names: Vec<&String> = known.iter().filter(|k| **k == base || k.ends_with(&tail)).collect();
            // The plain name first, then the shortest prefixed one.
            names.sort_by_key(|n| (n.len(), n.to_string()));
            names.first().map(|n| format!("{n}.sum"))
        });
        out.extend(found);
    }
    out
}

/// Base metric names from `ncu --query-metrics` output.
pub fn parse_query_output(text: &str) -> HashSet<String> {
    text.lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.contains("__") && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .map(str::to_string)
        .collect()
}

/// Nsight Compute's pipes as the instruction roofline names them. The
/// tensor pipe is the busiest of its instruction families.
pub(crate) const PIPES: &[(&str, roofline_model::Pipe)] = &[
    ("alu", roofline_model::Pipe::Alu),
    ("fma", roofline_model::Pipe::Fma),
    ("fma_type_fp16", roofline_model::Pipe::Fp16),
    ("fp64", roofline_model::Pipe::Fp64),
    ("xu", roofline_model::Pipe::Xu),
    ("lsu", roofline_model::Pipe::Lsu),
    ("tensor_op_hmma", roofline_model::Pipe::Tensor),
    ("tensor_op_gmma", roofline_model::Pipe::Tensor),
    ("tensor_op_dmma", roofline_model::Pipe::Tensor),
    ("tensor_op_imma", roofline_model::Pipe::Tensor),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_metric_is_read_by_some_column_or_family() {
        for m in parse_list(SM90_LIST) {
            let used = COLUMNS.iter().any(|(_, c, _)| *c == m)
                || m.starts_with(TENSOR_PREFIX)
                || m.starts_with(STALL_PREFIX)
                || m.starts_with(PIPE_PREFIX)
                || m.starts_with(PIPE_CYCLES_PREFIX) && m.ends_with(PIPE_CYCLES_SUFFIX)
                || m == "sm__cycles_elapsed.avg"
                || m == "smsp__cycles_elapsed.avg.per_second"
                // A text column: the reader takes it as the GPU's name.
                || m == "device__attribute_display_name";
            assert!(used, "{m} is collected but never read");
        }
    }

    #[test]
    fn pre_hopper_uses_the_mem_lg_writeback_metric() {
        let (list, _) = metrics_for(Some(8), None);
        assert!(list.iter().any(|m| m == "l1tex__lsu_writeback_active_mem_lg.sum"));
        assert!(!list.iter().any(|m| m.contains("_mem_lgds")));
    }

    #[test]
    fn unknown_metrics_are_dropped_and_tensor_paths_added() {
        let known: HashSet<String> = ["gpu__time_duration", "dram__bytes", "sm__ops_path_tensor_src_int4"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (list, dropped) = metrics_for(Some(9), Some(&known));
        assert!(list.contains(&"gpu__time_duration.sum".to_string()));
        assert!(list.contains(&"launch__block_size".to_string()));
        assert!(list.contains(&"sm__ops_path_tensor_src_int4.sum".to_string()));
        assert!(dropped.contains(&"lts__t_bytes.sum".to_string()));
    }

    #[test]
    fn query_output_of_ncu_2025_is_parsed_to_base_names() {
        // The first lines of `ncu --query-metrics` on the H200, and two rows.
        let text = "Device NVIDIA H200 (GH100)\n\
---------------------- --------------- --------------- ----------\n\
Metric Name            Metric Type     Metric Unit     Metric Description\n\
---------------------- --------------- --------------- ----------\n\
FBSP.TriageCompute.dramc__cycles_elapsed                 Counter         cycle\n\
dram__bytes                                              Counter         byte            # of bytes accessed in DRAM\n\
sm__ops_path_tensor_src_bf16_dst_fp32                    Counter                         # of math ops executed in Tensor path\n";
        let known = parse_query_output(text);
        assert!(known.contains("dram__bytes"));
        assert!(known.contains("sm__ops_path_tensor_src_bf16_dst_fp32"));
        assert!(known.contains("FBSP.TriageCompute.dramc__cycles_elapsed"));
        assert!(!known.iter().any(|k| k.starts_with("Device") || k.starts_with("Metric") || k.starts_with("---")));
    }
}
