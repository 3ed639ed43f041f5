//! One descriptor per compute capability ([`Arch`]): how many results per
//! clock one SM delivers for each kind of arithmetic and each pipe, the
//! occupancy limits, the features the benchmarks use and how Nsight
//! Compute's counters read, so that no other file asks "is this Hopper?".
//!
//! Device attributes give the SM count and clocks but not the lanes per SM;
//! those are fixed per architecture (seed 000: "the FP32 lane count isn't a
//! device attribute"). The figures come from NVIDIA's programming guide
//! throughput table and the architecture whitepapers, as gathered in the
//! project's reference notes; rows not confirmed there are marked so and
//! printed as estimates.

use roofline_model::{ComputeCapability, FlopKind, Pipe};
use serde::{Deserialize, Serialize};

/// Results (FMA counts as one result) per clock per SM for one kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// The kind of work.
    pub kind: FlopKind,
    /// Fused multiply-adds (or plain results for non-FMA kinds) per clock per SM.
    pub fma_per_clock_per_sm: f64,
    /// False for estimates (not checked against a vendor table).
    pub confirmed: bool,
}

/// The throughput table of one compute capability.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchRates {
    /// Compute capability major version.
    pub major: u32,
    /// Compute capability minor version.
    pub minor: u32,
    /// Architecture name ("Hopper").
    pub family: &'static str,
    /// Per-SM rate of each kind the architecture runs.
    pub rates: Vec<Rate>,
    /// Shared-memory / L1 bytes per clock per SM.
    pub l1_bytes_per_clock_per_sm: f64,
}

impl ArchRates {
    /// The rate of `kind`; `None` when the architecture has no such unit.
    pub fn rate(&self, kind: FlopKind) -> Option<Rate> {
        self.rates.iter().copied().find(|r| r.kind == kind)
    }
}

const fn r(kind: FlopKind, v: f64) -> Rate {
    Rate { kind, fma_per_clock_per_sm: v, confirmed: true }
}
const fn u(kind: FlopKind, v: f64) -> Rate {
    Rate { kind, fma_per_clock_per_sm: v, confirmed: false }
}

use FlopKind::*;

/// Everything the tool assumes about one compute capability: a new GPU
/// generation is one of these, plus a row per named GPU (`gpus`) and, if its
/// counters differ, a metric list (`roofline-ncu`).
#[derive(Debug, Clone, PartialEq)]
pub struct Arch {
    /// The compute capability.
    pub cc: ComputeCapability,
    /// Architecture name ("Hopper").
    pub family: &'static str,
    /// The GPU this descriptor was checked on (rates against benchmarks,
    /// occupancy against the driver, ncu's conventions against a capture);
    /// `None` until measured: its figures are the public datasheets' and
    /// the programming guide's.
    pub measured_on: Option<&'static str>,
    /// CUDA-core and tensor-core results per clock per SM, per kind.
    pub rates: &'static [Rate],
    /// Issue, integer, special-function and L1 rates per clock per SM.
    pub pipes: PipeFacts,
    /// What bounds resident blocks per SM.
    pub occupancy: OccupancyFacts,
    /// Hardware features the benchmarks and the compiler target depend on.
    pub features: Features,
    /// How Nsight Compute's counters read on this generation.
    pub ncu: NcuConventions,
}

/// Rates per clock per SM that are not FLOPs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipeFacts {
    /// Warp instructions the SM's schedulers issue per clock.
    pub issue_per_clock: f64,
    /// The issue rate is the whitepapers' (Volta and later: 4 sub-partitions).
    pub issue_confirmed: bool,
    /// 32-bit integer add and logic results per clock.
    pub int_add_logic: f64,
    /// 32-bit integer multiply-add results per clock, where the guide lists them.
    pub int_mad: Option<f64>,
    /// Special-function (MUFU) results per clock.
    pub mufu: f64,
    /// The integer and MUFU rates are the programming guide's table (which
    /// covers 5.0 to 9.0), not carried over from an older generation.
    pub guide_table: bool,
    /// Shared-memory / L1 bytes per clock.
    pub l1_bytes_per_clock: f64,
}

/// The occupancy calculator's limits of one generation (NVIDIA's
/// `cuda_occupancy.h` rules; `reference/gpu-architecture.md`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OccupancyFacts {
    /// Most resident threads per SM.
    pub threads_per_sm: u32,
    /// Most resident blocks per SM.
    pub blocks_per_sm: u32,
    /// Shared memory of the SM at the largest carveout, KiB.
    pub smem_per_sm_kib: u64,
    /// Shared memory one block may opt in to, KiB.
    pub smem_optin_kib: u64,
    /// Shared memory allocation unit, bytes.
    pub smem_unit: u64,
    /// Shared memory the driver reserves per block, bytes.
    pub smem_reserved: u64,
    /// Supported carveouts, KiB (empty: fixed size).
    pub carveouts_kib: &'static [u32],
    /// Barriers per SM as a multiple of the block limit, where barriers bound blocks.
    pub barriers_per_block_slot: Option<u32>,
    /// Most registers one block may use.
    pub registers_per_block: u32,
    /// Register-file sub-partitions.
    pub sub_partitions: u32,
}

/// Hardware features the tool's benchmarks and compiler targets use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Features {
    /// Bulk asynchronous copies (TMA): the L2 bulk-copy benchmark runs.
    pub tma: bool,
    /// Architecture-specific instructions need the `a` target (`sm_90a`).
    pub arch_specific_target: bool,
    /// Tensor-core precisions cuBLASLt can run here (the tensor benchmarks).
    pub tensor: &'static [FlopKind],
}

/// How Nsight Compute's counters read on one generation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NcuConventions {
    /// The suffix of the L1 writeback metric `l1tex__lsu_writeback_active`
    /// (`_mem_lgds` from 9.0, `_mem_lg` before).
    pub l1_writeback: &'static str,
    /// Whether the tensor pipes' `peak_sustained` is the 2:4 sparse rate
    /// (twice the dense rate a dense GEMM can reach); `None` where no
    /// capture of this generation has shown which.
    pub sparse_tensor_peak: Option<bool>,
}

const CARVE_70: &[u32] = &[0, 8, 16, 32, 64, 96];
const CARVE_75: &[u32] = &[32, 64];
const CARVE_80: &[u32] = &[0, 8, 16, 32, 64, 100, 132, 164];
const CARVE_86: &[u32] = &[0, 8, 16, 32, 64, 100];
const CARVE_90: &[u32] = &[0, 8, 16, 32, 64, 100, 132, 164, 196, 228];

const fn pipes(issue_confirmed: bool, int: (f64, Option<f64>, f64), guide_table: bool) -> PipeFacts {
    PipeFacts {
        issue_per_clock: 4.0,
        issue_confirmed,
        int_add_logic: int.0,
        int_mad: int.1,
        mufu: int.2,
        guide_table,
        l1_bytes_per_clock: 128.0,
    }
}
/// Maxwell and the Pascal parts after 6.0: integer add 128, no IMAD row, MUFU 32.
const INT_MAXWELL: (f64, Option<f64>, f64) = (128.0, None, 32.0);
/// GP100: integer add 64, no IMAD row, MUFU 16.
const INT_GP100: (f64, Option<f64>, f64) = (64.0, None, 16.0);
/// Volta and later: integer add 64, IMAD 64, MUFU 16.
const INT_VOLTA: (f64, Option<f64>, f64) = (64.0, Some(64.0), 16.0);

#[allow(clippy::too_many_arguments)]
const fn occ(
    threads_per_sm: u32,
    blocks_per_sm: u32,
    smem_per_sm_kib: u64,
    smem_optin_kib: u64,
    smem_unit: u64,
    smem_reserved: u64,
    carveouts_kib: &'static [u32],
    barriers_per_block_slot: Option<u32>,
) -> OccupancyFacts {
    OccupancyFacts {
        threads_per_sm,
        blocks_per_sm,
        smem_per_sm_kib,
        smem_optin_kib,
        smem_unit,
        smem_reserved,
        carveouts_kib,
        barriers_per_block_slot,
        registers_per_block: 65536,
        sub_partitions: 4,
    }
}

const NO_TENSOR: &[FlopKind] = &[];
const TENSOR_VOLTA: &[FlopKind] = &[TensorFp16];
const TENSOR_AMPERE: &[FlopKind] = &[TensorFp16, TensorBf16, TensorTf32];
const TENSOR_A100: &[FlopKind] = &[TensorFp16, TensorBf16, TensorTf32, TensorFp64];
const TENSOR_ADA: &[FlopKind] = &[TensorFp16, TensorBf16, TensorTf32, TensorFp8];
const TENSOR_HOPPER: &[FlopKind] = &[TensorFp16, TensorBf16, TensorTf32, TensorFp64, TensorFp8];

const fn features(tma: bool, tensor: &'static [FlopKind]) -> Features {
    Features { tma, arch_specific_target: tma, tensor }
}

const LG: NcuConventions = NcuConventions { l1_writeback: "_mem_lg", sparse_tensor_peak: None };
const LGDS: NcuConventions = NcuConventions { l1_writeback: "_mem_lgds", sparse_tensor_peak: None };

/// Every generation the tool knows, oldest first.
static ARCHS: &[Arch] = &[
    Arch {
        cc: ComputeCapability::new(5, 0),
        family: "Maxwell",
        measured_on: None,
        rates: &[r(Fp32, 128.0), r(Fp64, 4.0)],
        pipes: pipes(false, INT_MAXWELL, true),
        occupancy: occ(2048, 32, 64, 48, 256, 0, &[], None),
        features: features(false, NO_TENSOR),
        ncu: LG,
    },
    Arch {
        cc: ComputeCapability::new(5, 2),
        family: "Maxwell",
        measured_on: None,
        rates: &[r(Fp32, 128.0), r(Fp64, 4.0)],
        pipes: pipes(false, INT_MAXWELL, true),
        occupancy: occ(2048, 32, 96, 48, 256, 0, &[], None),
        features: features(false, NO_TENSOR),
        ncu: LG,
    },
    Arch {
        cc: ComputeCapability::new(5, 3),
        family: "Maxwell",
        measured_on: None,
        rates: &[r(Fp32, 128.0), r(Fp64, 4.0), r(Fp16, 256.0)],
        pipes: pipes(false, INT_MAXWELL, true),
        // A Tegra part: half the register file per block.
        occupancy: OccupancyFacts { registers_per_block: 32768, ..occ(2048, 32, 64, 48, 256, 0, &[], None) },
        features: features(false, NO_TENSOR),
        ncu: LG,
    },
    Arch {
        cc: ComputeCapability::new(6, 0),
        family: "Pascal",
        measured_on: None,
        rates: &[r(Fp32, 64.0), r(Fp64, 32.0), r(Fp16, 128.0)],
        pipes: pipes(false, INT_GP100, true),
        occupancy: OccupancyFacts { sub_partitions: 2, ..occ(2048, 32, 64, 48, 256, 0, &[], None) },
        features: features(false, NO_TENSOR),
        ncu: LG,
    },
    Arch {
        cc: ComputeCapability::new(6, 1),
        family: "Pascal",
        measured_on: None,
        rates: &[r(Fp32, 128.0), r(Fp64, 4.0), r(Fp16, 2.0)],
        pipes: pipes(false, INT_MAXWELL, true),
        occupancy: occ(2048, 32, 96, 48, 256, 0, &[], None),
        features: features(false, NO_TENSOR),
        ncu: LG,
    },
    Arch {
        cc: ComputeCapability::new(6, 2),
        family: "Pascal",
        measured_on: None,
        rates: &[r(Fp32, 128.0), r(Fp64, 4.0), r(Fp16, 256.0)],
        pipes: pipes(false, INT_MAXWELL, true),
        // A Tegra part: half the register file per block.
        occupancy: OccupancyFacts { registers_per_block: 32768, ..occ(2048, 32, 64, 48, 256, 0, &[], None) },
        features: features(false, NO_TENSOR),
        ncu: LG,
    },
    Arch {
        cc: ComputeCapability::new(7, 0),
        family: "Volta",
        measured_on: None,
        rates: &[r(Fp32, 64.0), r(Fp64, 32.0), r(Fp16, 128.0), r(TensorFp16, 512.0)],
        pipes: pipes(true, INT_VOLTA, true),
        occupancy: occ(2048, 32, 96, 96, 256, 0, CARVE_70, None),
        features: features(false, TENSOR_VOLTA),
        ncu: LG,
    },
    Arch {
        cc: ComputeCapability::new(7, 5),
        family: "Turing",
        measured_on: None,
        rates: &[r(Fp32, 64.0), r(Fp64, 2.0), r(Fp16, 128.0), r(TensorFp16, 512.0), r(TensorInt8, 1024.0)],
        pipes: pipes(true, INT_VOLTA, true),
        occupancy: occ(1024, 16, 64, 64, 256, 0, CARVE_75, None),
        features: features(false, TENSOR_VOLTA),
        ncu: LG,
    },
    // A100 (GA100). Tensor rates from the A100 datasheet (312 TFLOP/s dense
    // FP16/BF16, 156 TF32, 624 INT8 TOPS, 19.5 FP64 at 108 SMs x 1.41 GHz).
    Arch {
        cc: ComputeCapability::new(8, 0),
        family: "Ampere",
        measured_on: None,
        rates: &[
            r(Fp32, 64.0),
            r(Fp64, 32.0),
            r(Fp16, 256.0),
            r(TensorFp16, 1024.0),
            r(TensorBf16, 1024.0),
            r(TensorTf32, 512.0),
            r(TensorInt8, 2048.0),
            r(TensorFp64, 64.0),
        ],
        pipes: pipes(true, INT_VOLTA, true),
        occupancy: occ(2048, 32, 164, 163, 128, 1024, CARVE_80, None),
        features: features(false, TENSOR_A100),
        ncu: LG,
    },
    // GA102 and the other 8.6 parts (A10, A40, RTX 30). Tensor rates from the
    // A40 datasheet (149.7 TFLOP/s dense FP16/BF16, 74.8 TF32, 299.3 INT8
    // TOPS at 84 SMs x 1.74 GHz: 512, 256 and 1024 per clock per SM),
    // unconfirmed until measured.
    Arch {
        cc: ComputeCapability::new(8, 6),
        family: "Ampere",
        measured_on: None,
        rates: &[
            r(Fp32, 128.0),
            r(Fp64, 2.0),
            u(Fp16, 128.0),
            u(TensorFp16, 512.0),
            u(TensorBf16, 512.0),
            u(TensorTf32, 256.0),
            u(TensorInt8, 1024.0),
        ],
        pipes: pipes(true, INT_VOLTA, true),
        occupancy: occ(1536, 16, 100, 99, 128, 1024, CARVE_86, None),
        features: features(false, TENSOR_AMPERE),
        ncu: LG,
    },
    Arch {
        cc: ComputeCapability::new(8, 7),
        family: "Ampere (Orin)",
        measured_on: None,
        rates: &[r(Fp32, 128.0), r(Fp64, 2.0)],
        pipes: pipes(true, INT_VOLTA, true),
        occupancy: occ(1536, 16, 164, 163, 128, 1024, CARVE_80, None),
        features: features(false, TENSOR_AMPERE),
        ncu: LG,
    },
    // AD10x (L4, L40S, RTX 40): the Ada whitepaper's dense tensor rates.
    Arch {
        cc: ComputeCapability::new(8, 9),
        family: "Ada",
        measured_on: None,
        rates: &[
            r(Fp32, 128.0),
            r(Fp64, 2.0),
            r(Fp16, 128.0),
            r(TensorFp16, 512.0),
            r(TensorBf16, 512.0),
            r(TensorTf32, 256.0),
            r(TensorFp8, 1024.0),
            r(TensorInt8, 1024.0),
        ],
        pipes: pipes(true, INT_VOLTA, true),
        occupancy: occ(1536, 24, 100, 99, 128, 1024, CARVE_86, None),
        features: features(false, TENSOR_ADA),
        ncu: LG,
    },
    // GH100: measured on the lent H200 (bench, occupancy against the driver,
    // Nsight Compute's tensor peaks read at the 2:4 sparse rate).
    Arch {
        cc: ComputeCapability::new(9, 0),
        family: "Hopper",
        measured_on: Some("NVIDIA H200 (2026-11-29 and 2026-11-30)"),
        rates: &[
            r(Fp32, 128.0),
            r(Fp64, 64.0),
            r(Fp16, 256.0),
            r(TensorFp16, 2048.0),
            r(TensorBf16, 2048.0),
            r(TensorTf32, 1024.0),
            r(TensorFp8, 4096.0),
            r(TensorInt8, 4096.0),
            r(TensorFp64, 128.0),
        ],
        pipes: pipes(true, INT_VOLTA, true),
        occupancy: occ(2048, 32, 228, 227, 128, 1024, CARVE_90, Some(2)),
        features: features(true, TENSOR_HOPPER),
        ncu: NcuConventions { l1_writeback: "_mem_lgds", sparse_tensor_peak: Some(true) },
    },
    // GB100 (B200): the B200 datasheet's dense tensor rates; integer and
    // MUFU rates carried over from Hopper. Unconfirmed until measured.
    Arch {
        cc: ComputeCapability::new(10, 0),
        family: "Blackwell",
        measured_on: None,
        rates: &[
            r(Fp32, 128.0),
            r(Fp64, 64.0),
            u(Fp16, 256.0),
            r(TensorFp16, 4096.0),
            r(TensorBf16, 4096.0),
            r(TensorTf32, 2048.0),
            r(TensorFp8, 8192.0),
            r(TensorInt8, 8192.0),
            r(TensorFp64, 64.0),
        ],
        pipes: pipes(true, INT_VOLTA, false),
        occupancy: occ(2048, 32, 228, 227, 128, 1024, CARVE_90, Some(2)),
        features: features(true, TENSOR_HOPPER),
        ncu: LGDS,
    },
    Arch {
        cc: ComputeCapability::new(12, 0),
        family: "Blackwell (RTX)",
        measured_on: None,
        rates: &[r(Fp32, 128.0), r(Fp64, 2.0), u(Fp16, 128.0)],
        pipes: pipes(true, INT_VOLTA, false),
        occupancy: occ(1536, 24, 100, 99, 128, 1024, CARVE_86, Some(1)),
        features: features(true, TENSOR_ADA),
        ncu: LGDS,
    },
];

/// Every generation the tool knows, oldest first.
pub fn archs() -> &'static [Arch] {
    ARCHS
}

/// The descriptor of a compute capability, or `None` if the tool does not know it.
pub fn arch(cc: ComputeCapability) -> Option<&'static Arch> {
    ARCHS.iter().find(|a| a.cc == cc)
}

/// The descriptor that stands for a GPU known only by its major version
/// (what `nvidia-smi` and some counters give): the newest known generation
/// at or below it, else the oldest known one.
pub fn arch_for_major(major: u32) -> &'static Arch {
    ARCHS.iter().rev().find(|a| a.cc.major <= major).unwrap_or(&ARCHS[0])
}

/// The descriptor that stands for `cc`: its own, else the newest known
/// generation below it (else the oldest known one), for features a newer
/// GPU is assumed to keep.
pub fn arch_or_older(cc: ComputeCapability) -> &'static Arch {
    ARCHS.iter().rev().find(|a| a.cc <= cc).unwrap_or(&ARCHS[0])
}

/// The compute capabilities the tool knows, as "major.minor".
pub fn known_capabilities() -> Vec<String> {
    ARCHS.iter().map(|a| a.cc.to_string()).collect()
}

/// The table for a compute capability, or `None` if the tool does not know it.
pub fn rates_for(cc: ComputeCapability) -> Option<ArchRates> {
    rates(cc.major, cc.minor)
}

/// The table for a compute capability given as two numbers.
pub fn rates(major: u32, minor: u32) -> Option<ArchRates> {
    arch(ComputeCapability::new(major, minor)).map(|a| ArchRates {
        major: a.cc.major,
        minor: a.cc.minor,
        family: a.family,
        rates: a.rates.to_vec(),
        l1_bytes_per_clock_per_sm: a.pipes.l1_bytes_per_clock,
    })
}

/// The fastest instruction of one pipe: that pipe's flat roof in the
/// instruction roofline (Ding and Williams), per SM and clock. On the H200
/// the FMA, LSU and HMMA peaks implied by Nsight Compute's utilisation
/// counters agree with these (4, 1 and 2 warp instructions per clock per SM;
/// tests/fixtures/ncu/h200_seed000_full.csv). Tensor and atomic pipes have
/// no row: their rate depends on the instruction shape and, for atomics, on L2.
pub fn pipe_rate(cc: ComputeCapability, pipe: Pipe) -> Option<PipeRate> {
    pipe_rates(cc)
        .into_iter()
        .filter(|r| r.op.pipe() == pipe)
        .max_by(|a, b| a.warp_inst_per_clock_per_sm.total_cmp(&b.warp_inst_per_clock_per_sm))
}

/// Parses "9.0" or "90" or "sm_90" into (major, minor); see
/// [`ComputeCapability::parse`], which new code uses.
pub fn parse_capability(s: &str) -> Option<(u32, u32)> {
    ComputeCapability::parse(s).map(|c| (c.major, c.minor))
}

/// A warp instruction whose throughput an instruction roof bounds, named by
/// its SASS mnemonic. Benchmarks and theoretical tables use the same names,
/// so a measured roof can be set beside its theoretical value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InstOp {
    /// Any instruction: what the warp schedulers can issue.
    Any,
    /// FP32 fused multiply-add.
    Ffma,
    /// FP64 fused multiply-add.
    Dfma,
    /// Packed FP16 (half2) fused multiply-add.
    Hfma2,
    /// 32-bit integer multiply-add.
    Imad,
    /// Three-input 32-bit integer add.
    Iadd3,
    /// Three-input logic operation.
    Lop3,
    /// The special-function unit: ex2, lg2, rsqrt, rcp, sin, cos share one rate.
    Mufu,
    /// 4-byte shared-memory load per thread.
    Lds32,
    /// 16-byte shared-memory load per thread.
    Lds128,
    /// 4-byte shared-memory store per thread.
    Sts32,
    /// 16-byte shared-memory store per thread.
    Sts128,
    /// A 32-bit global load per thread, coalesced, served by L1.
    Ldg32,
}

impl InstOp {
    /// Every instruction, `Any` first.
    pub const ALL: [InstOp; 13] = [
        InstOp::Any,
        InstOp::Ffma,
        InstOp::Dfma,
        InstOp::Hfma2,
        InstOp::Imad,
        InstOp::Iadd3,
        InstOp::Lop3,
        InstOp::Mufu,
        InstOp::Lds32,
        InstOp::Lds128,
        InstOp::Sts32,
        InstOp::Sts128,
        InstOp::Ldg32,
    ];

    /// "IMAD", "LDS.128", "any instruction".
    pub fn mnemonic(self) -> &'static str {
        match self {
            InstOp::Any => "any instruction",
            InstOp::Ffma => "FFMA",
            InstOp::Dfma => "DFMA",
            InstOp::Hfma2 => "HFMA2",
            InstOp::Imad => "IMAD",
            InstOp::Iadd3 => "IADD3",
            InstOp::Lop3 => "LOP3",
            InstOp::Mufu => "MUFU",
            InstOp::Lds32 => "LDS.32",
            InstOp::Lds128 => "LDS.128",
            InstOp::Sts32 => "STS.32",
            InstOp::Sts128 => "STS.128",
            InstOp::Ldg32 => "LDG.32",
        }
    }

    /// The pipe that executes it.
    pub fn pipe(self) -> Pipe {
        match self {
            InstOp::Any => Pipe::Issue,
            InstOp::Ffma | InstOp::Imad => Pipe::Fma,
            InstOp::Dfma => Pipe::Fp64,
            InstOp::Hfma2 => Pipe::Fp16,
            InstOp::Iadd3 | InstOp::Lop3 => Pipe::Alu,
            InstOp::Mufu => Pipe::Xu,
            InstOp::Lds32 | InstOp::Lds128 | InstOp::Sts32 | InstOp::Sts128 => Pipe::Shared,
            InstOp::Ldg32 => Pipe::Lsu,
        }
    }
}

/// Warp instructions of one kind an SM can complete per clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipeRate {
    /// The instruction.
    pub op: InstOp,
    /// Warp instructions per clock per SM (thread results per clock / 32).
    pub warp_inst_per_clock_per_sm: f64,
    /// False where the figure is derived from something other than a vendor table.
    pub confirmed: bool,
    /// Where the figure comes from.
    pub source: &'static str,
}

const GUIDE: &str = "CUDA C++ Programming Guide, throughput of native arithmetic instructions (results per clock per SM) / 32 threads per warp instruction";
const GUIDE_LOP: &str =
    "CUDA C++ Programming Guide, 32-bit bitwise AND/OR/XOR row / 32 (LOP3 itself is not listed: assumed the same rate)";
const BANKS: &str = "CUDA C++ Programming Guide, shared memory: 32 banks of 32 bits per clock; a 32-bit warp access without conflicts is one bank cycle";
const BANKS_128: &str = "CUDA C++ Programming Guide, shared memory: 32 banks of 32 bits per clock; a 128-bit warp access moves 512 bytes, four bank cycles";
const SCHEDULERS: &str = "NVIDIA architecture whitepapers (Volta and later): 4 SM sub-partitions, each issuing one warp instruction per clock";
const L1_PATH: &str = "derived: the L1 data path moves 128 bytes per clock per SM, one coalesced 32-bit warp load (no vendor figure for load issue)";
const CUDA_CORES: &str =
    "the arithmetic table of this module (CUDA-core results per clock per SM) / 32 (/ 64 for HFMA2, two results each)";

fn pr(op: InstOp, v: f64, confirmed: bool, source: &'static str) -> PipeRate {
    PipeRate { op, warp_inst_per_clock_per_sm: v, confirmed, source }
}

/// The instruction rates of a compute capability, for the theoretical
/// instruction roofs. Rows the programming guide's table gives for 5.0 to
/// 9.0 are confirmed; later ones reuse Hopper's rates and are marked
/// unconfirmed. Atomics have no vendor figure and no row.
pub fn pipe_rates(cc: ComputeCapability) -> Vec<PipeRate> {
    let Some(arch) = arch(cc) else { return Vec::new() };
    let rates = rates_for(cc).expect("a known capability has rates");
    let p = arch.pipes;
    let mut v = Vec::new();
    v.push(pr(InstOp::Any, p.issue_per_clock, p.issue_confirmed, SCHEDULERS));
    for (kind, op, per) in [
        (FlopKind::Fp32, InstOp::Ffma, 32.0),
        (FlopKind::Fp64, InstOp::Dfma, 32.0),
        (FlopKind::Fp16, InstOp::Hfma2, 64.0),
    ] {
        if let Some(r) = rates.rate(kind) {
            v.push(pr(op, r.fma_per_clock_per_sm / per, r.confirmed, CUDA_CORES));
        }
    }
    v.push(pr(InstOp::Iadd3, p.int_add_logic / 32.0, p.guide_table, GUIDE));
    v.push(pr(InstOp::Lop3, p.int_add_logic / 32.0, false, GUIDE_LOP));
    if let Some(m) = p.int_mad {
        v.push(pr(InstOp::Imad, m / 32.0, p.guide_table, GUIDE));
    }
    v.push(pr(InstOp::Mufu, p.mufu / 32.0, p.guide_table, GUIDE));
    v.push(pr(InstOp::Lds32, 1.0, true, BANKS));
    v.push(pr(InstOp::Sts32, 1.0, true, BANKS));
    v.push(pr(InstOp::Lds128, 0.25, true, BANKS_128));
    v.push(pr(InstOp::Sts128, 0.25, true, BANKS_128));
    v.push(pr(InstOp::Ldg32, p.l1_bytes_per_clock / 128.0, false, L1_PATH));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_measured_generation_says_where_it_was_measured() {
        let measured: Vec<String> =
            archs().iter().filter(|a| a.measured_on.is_some()).map(|a| a.cc.to_string()).collect();
        assert_eq!(measured, ["9.0"]);
        // The descriptors from datasheets (issue 24): present, and unconfirmed until measured.
        for cc in ["8.0", "8.6", "8.9", "10.0"] {
            let a = arch(ComputeCapability::parse(cc).unwrap()).unwrap_or_else(|| panic!("no descriptor for {cc}"));
            assert!(a.measured_on.is_none(), "{cc}");
            assert!(
                a.ncu.sparse_tensor_peak.is_none(),
                "{cc}: ncu's tensor peak convention is only known where a capture showed it"
            );
        }
        assert_eq!(arch(ComputeCapability::new(9, 0)).unwrap().ncu.sparse_tensor_peak, Some(true));
    }

    #[test]
    fn the_ga102_descriptor_has_tensor_cores_from_the_a40_datasheet() {
        let a = arch(ComputeCapability::new(8, 6)).unwrap();
        let rate = |k: FlopKind| a.rates.iter().find(|r| r.kind == k).copied().unwrap();
        // A40: 149.7 TFLOP/s dense FP16 at 84 SMs x 1.74 GHz = 512 FMA/clk/SM.
        assert!((84.0 * 1.74e9 * 2.0 * rate(TensorFp16).fma_per_clock_per_sm / 1e12 - 149.7).abs() < 0.5);
        assert!(!rate(TensorFp16).confirmed && !rate(TensorTf32).confirmed);
        assert_eq!(rate(TensorTf32).fma_per_clock_per_sm, 256.0);
    }

    #[test]
    fn a_gpu_known_by_its_major_version_takes_the_newest_descriptor_at_or_below_it() {
        assert_eq!(arch_for_major(9).cc, ComputeCapability::new(9, 0));
        assert_eq!(arch_for_major(8).cc, ComputeCapability::new(8, 9));
        assert_eq!(arch_for_major(11).cc, ComputeCapability::new(10, 0));
        assert_eq!(arch_for_major(3).cc, ComputeCapability::new(5, 0));
        assert_eq!(arch_for_major(8).ncu.l1_writeback, "_mem_lg");
        assert_eq!(arch_for_major(9).ncu.l1_writeback, "_mem_lgds");
        assert_eq!(arch_or_older(ComputeCapability::new(9, 1)).cc, ComputeCapability::new(9, 0));
        assert_eq!(arch_or_older(ComputeCapability::new(4, 0)).cc, ComputeCapability::new(5, 0));
    }

    #[test]
    fn features_follow_the_generations() {
        let f = |major, minor| arch(ComputeCapability::new(major, minor)).unwrap().features;
        assert!(f(9, 0).tma && f(10, 0).tma && !f(8, 9).tma && !f(8, 0).tma);
        assert!(f(9, 0).arch_specific_target && !f(8, 6).arch_specific_target);
        assert!(f(8, 0).tensor.contains(&TensorFp64) && !f(8, 6).tensor.contains(&TensorFp64));
        assert!(f(8, 9).tensor.contains(&TensorFp8) && !f(8, 0).tensor.contains(&TensorFp8));
        assert!(f(7, 5).tensor == [TensorFp16] && f(6, 1).tensor.is_empty());
    }

    #[test]
    fn every_descriptor_gives_rates_pipe_rates_and_occupancy() {
        for a in archs() {
            let r = rates_for(a.cc).unwrap();
            assert!(r.rate(Fp32).is_some(), "{}", a.cc);
            assert!(!pipe_rates(a.cc).is_empty(), "{}", a.cc);
            assert!(
                a.occupancy.threads_per_sm >= 1024 && a.occupancy.smem_optin_kib <= a.occupancy.smem_per_sm_kib,
                "{}",
                a.cc
            );
        }
        let ccs: Vec<_> = archs().iter().map(|a| a.cc).collect();
        assert!(ccs.windows(2).all(|w| w[0] < w[1]), "oldest first, no duplicates");
    }

    #[test]
    fn hopper_rates() {
        let h = rates(9, 0).unwrap();
        assert_eq!(h.rate(Fp32).unwrap().fma_per_clock_per_sm, 128.0);
        assert_eq!(h.rate(TensorBf16).unwrap().fma_per_clock_per_sm, 2048.0);
        assert!(rates(4, 0).is_none());
    }

    #[test]
    fn hopper_instruction_rates_per_sm_and_clock() {
        let h = pipe_rates(ComputeCapability::new(9, 0));
        let rate = |op: InstOp| h.iter().find(|r| r.op == op).map(|r| r.warp_inst_per_clock_per_sm);
        assert_eq!(rate(InstOp::Ffma), Some(4.0));
        assert_eq!(rate(InstOp::Dfma), Some(2.0));
        assert_eq!(rate(InstOp::Hfma2), Some(4.0));
        assert_eq!(rate(InstOp::Imad), Some(2.0));
        assert_eq!(rate(InstOp::Iadd3), Some(2.0));
        assert_eq!(rate(InstOp::Mufu), Some(0.5));
        assert_eq!(rate(InstOp::Lds32), Some(1.0));
        assert_eq!(rate(InstOp::Lds128), Some(0.25));
        assert_eq!(rate(InstOp::Any), Some(4.0));
        assert!(!h.iter().find(|r| r.op == InstOp::Ldg32).unwrap().confirmed, "no vendor figure for load issue");
        assert!(
            pipe_rates(ComputeCapability::new(6, 1)).iter().all(|r| r.op != InstOp::Imad),
            "no native IMAD on Pascal"
        );
        assert!(pipe_rates(ComputeCapability::new(3, 5)).is_empty());
        for op in InstOp::ALL {
            assert!(!op.mnemonic().is_empty());
        }
    }

    #[test]
    fn capability_is_one_type_that_reads_every_spelling_and_orders() {
        let h = ComputeCapability::new(9, 0);
        for s in ["9.0", "90", "sm_90", "sm_90a", "compute_90"] {
            assert_eq!(ComputeCapability::parse(s), Some(h), "{s}");
        }
        assert_eq!(h.to_string(), "9.0");
        assert_eq!(h.sm(), "sm_90");
        assert!(ComputeCapability::new(8, 9) < h && ComputeCapability::new(10, 0) > h);
        assert_eq!(serde_json::to_string(&h).unwrap(), "\"9.0\"");
        assert_eq!(serde_json::from_str::<ComputeCapability>("\"8.6\"").unwrap(), ComputeCapability::new(8, 6));
        assert!(serde_json::from_str::<ComputeCapability>("\"x\"").is_err());
    }

    #[test]
    fn hopper_pipe_roofs_match_the_counters_calibration() {
        let p = |pipe: Pipe| pipe_rate(ComputeCapability::new(9, 0), pipe).unwrap();
        assert_eq!(p(Pipe::Fma).warp_inst_per_clock_per_sm, 4.0);
        assert_eq!(p(Pipe::Fp64).warp_inst_per_clock_per_sm, 2.0);
        assert_eq!(p(Pipe::Fp16).warp_inst_per_clock_per_sm, 4.0);
        assert_eq!(p(Pipe::Alu).warp_inst_per_clock_per_sm, 2.0);
        assert_eq!(p(Pipe::Xu).warp_inst_per_clock_per_sm, 0.5);
        assert_eq!(p(Pipe::Lsu).warp_inst_per_clock_per_sm, 1.0);
        assert_eq!(p(Pipe::Issue).warp_inst_per_clock_per_sm, 4.0);
        assert!(p(Pipe::Fma).confirmed);
        assert!(pipe_rate(ComputeCapability::new(9, 0), Pipe::Tensor).is_none());
        assert!(pipe_rate(ComputeCapability::new(3, 5), Pipe::Fma).is_none());
    }

    #[test]
    fn capability_spellings() {
        assert_eq!(parse_capability("9.0"), Some((9, 0)));
        assert_eq!(parse_capability("sm_90a"), Some((9, 0)));
        assert_eq!(parse_capability("75"), Some((7, 5)));
        assert_eq!(parse_capability("x"), None);
    }
}
