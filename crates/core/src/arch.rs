//! Per-compute-capability throughput: how many results per clock one SM
//! delivers for each kind of arithmetic.
//!
//! Device attributes give the SM count and clocks but not the lanes per SM;
//! those are fixed per architecture (seed 000: "the FP32 lane count isn't a
//! device attribute"). The figures come from NVIDIA's programming guide
//! throughput table and the architecture whitepapers, as gathered in the
//! project's reference notes; rows not confirmed there are marked so and
//! printed as estimates.

use crate::machine::{FlopKind, Pipe};

/// Results (FMA counts as one result) per clock per SM for one kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub kind: FlopKind,
    /// Fused multiply-adds (or plain results for non-FMA kinds) per clock per SM.
    pub fma_per_clock_per_sm: f64,
    pub confirmed: bool,
}

/// The throughput table of one compute capability.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchRates {
    pub major: u32,
    pub minor: u32,
    /// Architecture name ("Hopper").
    pub family: &'static str,
    pub rates: Vec<Rate>,
    /// Shared-memory / L1 bytes per clock per SM.
    pub l1_bytes_per_clock_per_sm: f64,
}

impl ArchRates {
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
pub fn rates(major: u32, minor: u32) -> Option<ArchRates> {
    TABLE.iter().find(|(m, n, ..)| *m == major && *n == minor).map(|(m, n, family, rates)| ArchRates {
        major: *m,
        minor: *n,
        family,
        rates: rates.to_vec(),
        l1_bytes_per_clock_per_sm: 128.0,
    })
}

/// How many warp instructions one pipe of an SM issues per clock: the flat
/// roofs of the instruction roofline (Ding and Williams), per SM.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipeRate {
    pub pipe: Pipe,
    pub warp_inst_per_clock_per_sm: f64,
    pub confirmed: bool,
    /// Where the figure comes from.
    pub source: &'static str,
}

const GUIDE: &str = "CUDA programming guide throughput table";

/// The per-pipe issue rates the tool knows for a compute capability.
///
/// Results per clock per SM from the programming guide's arithmetic
/// throughput table, divided by 32 threads per warp: FP32 (the FMA pipe),
/// FP64, half2 (one instruction is two results), 32-bit integer add, logic
/// and compare (the ALU), special functions (the XU). Four schedulers issue
/// one instruction each per clock. Loads and stores: 32 LD/ST lanes per SM,
/// one 32-bit shared-memory wavefront (128 B) per clock. On the H200 the
/// FMA, LSU and HMMA pipes' peaks implied by Nsight Compute's utilisation
/// counters agree (4, 1 and 2 warp instructions per clock per SM;
/// tests/fixtures/ncu/h200_seed000_full.csv). Rows the tool has not checked
/// are unconfirmed; tensor and atomic pipes have no row (their rate depends
/// on the instruction shape and, for atomics, on L2).
pub fn pipe_rates(major: u32, minor: u32) -> Vec<PipeRate> {
    let Some(flops) = rates(major, minor) else { return Vec::new() };
    let hopper = (major, minor) == (9, 0);
    let per_warp = |kind: FlopKind, results_per_inst: f64| {
        flops.rate(kind).map(|r| (r.fma_per_clock_per_sm / results_per_inst / 32.0, r.confirmed))
    };
    let mut out = Vec::new();
    let mut push = |pipe: Pipe, v: f64, confirmed: bool, source: &'static str| {
        out.push(PipeRate { pipe, warp_inst_per_clock_per_sm: v, confirmed, source });
    };
    if major >= 7 {
        push(Pipe::Issue, 4.0, hopper, "4 warp schedulers x 1 instruction per clock");
    }
    if let Some((v, c)) = per_warp(FlopKind::Fp32, 1.0) {
        push(Pipe::Fma, v, c, GUIDE);
    }
    if let Some((v, c)) = per_warp(FlopKind::Fp64, 1.0) {
        push(Pipe::Fp64, v, c, GUIDE);
    }
    if let Some((v, c)) = per_warp(FlopKind::Fp16, 2.0) {
        push(Pipe::Fp16, v, c, GUIDE);
    }
    if major >= 7 {
        push(Pipe::Alu, 2.0, hopper, GUIDE);
        push(Pipe::Xu, 0.5, hopper, GUIDE);
        push(Pipe::Lsu, 1.0, hopper, "32 LD/ST lanes per SM");
        push(Pipe::Shared, 1.0, hopper, "128 B per clock per SM: one 32-bit warp access");
    }
    out
}

/// Parses "9.0" or "90" or "sm_90" into (major, minor).
pub fn parse_capability(s: &str) -> Option<(u32, u32)> {
    let t = s.trim().trim_start_matches("sm_").trim_start_matches("compute_");
    let t = t.trim_end_matches('a');
    if let Some((a, b)) = t.split_once('.') {
        return Some((a.parse().ok()?, b.parse().ok()?));
    }
    let n: u32 = t.parse().ok()?;
    Some((n / 10, n % 10))
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
    fn hopper_pipe_rates_match_the_counters_calibration() {
        let p = |pipe: Pipe| pipe_rates(9, 0).into_iter().find(|r| r.pipe == pipe).unwrap();
        assert_eq!(p(Pipe::Fma).warp_inst_per_clock_per_sm, 4.0);
        assert_eq!(p(Pipe::Fp64).warp_inst_per_clock_per_sm, 2.0);
        assert_eq!(p(Pipe::Fp16).warp_inst_per_clock_per_sm, 4.0);
        assert_eq!(p(Pipe::Alu).warp_inst_per_clock_per_sm, 2.0);
        assert_eq!(p(Pipe::Xu).warp_inst_per_clock_per_sm, 0.5);
        assert_eq!(p(Pipe::Lsu).warp_inst_per_clock_per_sm, 1.0);
        assert_eq!(p(Pipe::Issue).warp_inst_per_clock_per_sm, 4.0);
        assert!(p(Pipe::Fma).confirmed);
        assert!(!pipe_rates(8, 0).iter().find(|r| r.pipe == Pipe::Alu).unwrap().confirmed);
        assert!(pipe_rates(4, 0).is_empty());
    }

    #[test]
    fn capability_spellings() {
        assert_eq!(parse_capability("9.0"), Some((9, 0)));
        assert_eq!(parse_capability("sm_90a"), Some((9, 0)));
        assert_eq!(parse_capability("75"), Some((7, 5)));
        assert_eq!(parse_capability("x"), None);
    }
}
