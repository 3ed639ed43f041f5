//! Per-compute-capability throughput: how many results per clock one SM
//! delivers for each kind of arithmetic.
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

/// The compute capabilities the tool knows, as "major.minor".
pub fn known_capabilities() -> Vec<String> {
    TABLE.iter().map(|(m, n, ..)| format!("{m}.{n}")).collect()
}

type Row = (u32, u32, &'static str, &'static [Rate]);

static TABLE: &[Row] = &[
    (5, 0, "Maxwell", &[r(Fp32, 128.0), r(Fp64, 4.0)]),
    (5, 2, "Maxwell", &[r(Fp32, 128.0), r(Fp64, 4.0)]),
    (5, 3, "Maxwell", &[r(Fp32, 128.0), r(Fp64, 4.0), r(Fp16, 256.0)]),
    (6, 0, "Pascal", &[r(Fp32, 64.0), r(Fp64, 32.0), r(Fp16, 128.0)]),
    (6, 1, "Pascal", &[r(Fp32, 128.0), r(Fp64, 4.0), r(Fp16, 2.0)]),
    (6, 2, "Pascal", &[r(Fp32, 128.0), r(Fp64, 4.0), r(Fp16, 256.0)]),
    (7, 0, "Volta", &[r(Fp32, 64.0), r(Fp64, 32.0), r(Fp16, 128.0), r(TensorFp16, 512.0)]),
    (7, 5, "Turing", &[r(Fp32, 64.0), r(Fp64, 2.0), r(Fp16, 128.0), r(TensorFp16, 512.0), r(TensorInt8, 1024.0)]),
    (
        8,
        0,
        "Ampere",
        &[
            r(Fp32, 64.0),
            r(Fp64, 32.0),
            r(Fp16, 256.0),
            r(TensorFp16, 1024.0),
            r(TensorBf16, 1024.0),
            r(TensorTf32, 512.0),
            r(TensorInt8, 2048.0),
            r(TensorFp64, 64.0),
        ],
    ),
    (8, 6, "Ampere", &[r(Fp32, 128.0), r(Fp64, 2.0), u(Fp16, 128.0)]),
    (8, 7, "Ampere (Orin)", &[r(Fp32, 128.0), r(Fp64, 2.0)]),
    (
        8,
        9,
        "Ada",
        &[
            r(Fp32, 128.0),
            r(Fp64, 2.0),
            r(Fp16, 128.0),
            r(TensorFp16, 512.0),
            r(TensorBf16, 512.0),
            r(TensorTf32, 256.0),
            r(TensorFp8, 1024.0),
            r(TensorInt8, 1024.0),
        ],
    ),
    (
        9,
        0,
        "Hopper",
        &[
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
    ),
    (
        10,
        0,
        "Blackwell",
        &[
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
    ),
    (12, 0, "Blackwell (RTX)", &[r(Fp32, 128.0), r(Fp64, 2.0), u(Fp16, 128.0)]),
];

/// The table for a compute capability, or `None` if the tool does not know it.
pub fn rates_for(cc: ComputeCapability) -> Option<ArchRates> {
    rates(cc.major, cc.minor)
}

/// The table for a compute capability given as two numbers.
pub fn rates(major: u32, minor: u32) -> Option<ArchRates> {
    TABLE.iter().find(|(m, n, ..)| *m == major && *n == minor).map(|(m, n, family, rates)| ArchRates {
        major: *m,
        minor: *n,
        family,
        rates: rates.to_vec(),
        l1_bytes_per_clock_per_sm: 128.0,
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
    let Some(arch) = rates_for(cc) else { return Vec::new() };
    let mut v = Vec::new();
    let known_table = cc <= ComputeCapability::new(9, 0);
    v.push(pr(InstOp::Any, 4.0, cc >= ComputeCapability::new(7, 0), SCHEDULERS));
    for (kind, op, per) in [
        (FlopKind::Fp32, InstOp::Ffma, 32.0),
        (FlopKind::Fp64, InstOp::Dfma, 32.0),
        (FlopKind::Fp16, InstOp::Hfma2, 64.0),
    ] {
        if let Some(r) = arch.rate(kind) {
            v.push(pr(op, r.fma_per_clock_per_sm / per, r.confirmed, CUDA_CORES));
        }
    }
    // Results per clock per SM: (integer add and logic, integer multiply-add, MUFU).
    let (int_add, int_mad, mufu) = match (cc.major, cc.minor) {
        (5, _) | (6, 1) | (6, 2) => (128.0, None, 32.0),
        (6, 0) => (64.0, None, 16.0),
        _ => (64.0, Some(64.0), 16.0),
    };
    v.push(pr(InstOp::Iadd3, int_add / 32.0, known_table, GUIDE));
    v.push(pr(InstOp::Lop3, int_add / 32.0, false, GUIDE_LOP));
    if let Some(m) = int_mad {
        v.push(pr(InstOp::Imad, m / 32.0, known_table, GUIDE));
    }
    v.push(pr(InstOp::Mufu, mufu / 32.0, known_table, GUIDE));
    v.push(pr(InstOp::Lds32, 1.0, true, BANKS));
    v.push(pr(InstOp::Sts32, 1.0, true, BANKS));
    v.push(pr(InstOp::Lds128, 0.25, true, BANKS_128));
    v.push(pr(InstOp::Sts128, 0.25, true, BANKS_128));
    v.push(pr(InstOp::Ldg32, arch.l1_bytes_per_clock_per_sm / 128.0, false, L1_PATH));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

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
