//! Estimates against counters: the launches of a trace matched to the
//! launches of a counter capture of the same program (a separate run), and
//! the estimate's error per kernel and per operator family.
//!
//! Two runs do not share ids, so launches are matched by what both record:
//! the kernel's base name (namespaces and demangler spellings removed, the
//! first template argument kept), its grid and its block. Each counter
//! launch takes the first unmatched trace launch with that key after the
//! previous match, or, failing that, the first unmatched one anywhere.
//!
//! Bytes are held to two counts. `dram__bytes.sum` is what Nsight Compute
//! saw cross the DRAM interface during the kernel; it flushes the caches
//! before each kernel, so every input comes from DRAM, but an output that
//! fits in L2 is still there, dirty, when the kernel ends, and its write-back
//! falls after the kernel and outside the count. The kernel's *DRAM traffic*
//! adds those writes back: the DRAM reads plus every sector the SMs wrote to
//! L2 (`lts__t_sectors_srcunit_tex_op_write.sum` x 32 B), each of which
//! reaches DRAM once it is evicted. That is the traffic a running program
//! pays for the kernel, and the figure an estimate of compulsory bytes is
//! held to.
//!
//! Positions are compared twice. Like for like: the estimate is placed
//! under the DRAM roofline (slanted or flat roof, on it or under it at
//! [`ON_ROOF_PCT`]) from its FLOPs, bytes and the trace's duration, and the
//! counters' launch from its counted FLOPs, DRAM traffic and ncu's
//! duration. And against the counters' whole verdict (their diagnosis's
//! position, from every memory level and the busiest unit), which sees
//! what shapes cannot: a tensor pipe at its roof at the clock it ran at, a
//! memory level busier than its bytes say. Against the verdict the
//! estimate states its own [`Claim`]: its DRAM place, except where the
//! shapes say more. A GEMM whose operands cuBLAS cannot load in 16-byte
//! vectors ([`Unaligned`]) runs a fallback held by its L1 load path: the
//! claim is "on or under the diagonal", at L1, and agrees with either
//! memory-side verdict; the strict figure counts such an open claim as a
//! disagreement.

use std::collections::BTreeMap;

use roofline_analysis::{analyze_kernel, Bound, Position, ON_ROOF_PCT};
use roofline_model::{FlopKind, Kernel, Machine, MemLevel, Origin};

use crate::capture::Launch;
use crate::catalogue::{OpClass, Unaligned};

/// Below this many counted DRAM bytes a kernel's byte error is not
/// computed: the counters' fixed traffic (launch descriptors, a few sectors
/// the flush left) is then most of what they count.
pub const SMALL_BYTES: f64 = 1e6;

/// One counter launch matched to a trace launch.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    /// The kernel's name (the counter capture's spelling).
    pub name: String,
    /// The index of the trace launch.
    pub launch: usize,
    /// Its operator family, when it has an estimate.
    pub class: Option<OpClass>,
    /// Its operator.
    pub op: Option<String>,
    /// Estimated useful FLOPs.
    pub est_flops: Option<f64>,
    /// Estimated issued FLOPs.
    pub est_issued_flops: Option<f64>,
    /// Estimated DRAM bytes.
    pub est_bytes: Option<f64>,
    /// Counted FLOPs (all kinds).
    pub counted_flops: f64,
    /// Counted DRAM bytes.
    pub counted_bytes: Option<f64>,
    /// Estimated bytes read (`None` when the estimate cannot tell reads from writes).
    pub est_read_bytes: Option<f64>,
    /// Counted DRAM bytes read.
    pub counted_read_bytes: Option<f64>,
    /// Counted DRAM traffic: the reads plus the sectors written to L2
    /// (module docs).
    pub counted_traffic_bytes: Option<f64>,
    /// Where the estimate puts the launch.
    pub est_place: Option<Place>,
    /// Where the counted FLOPs, DRAM traffic and duration put it under the
    /// DRAM roofline.
    pub counted_place: Option<Place>,
    /// Where the counters' diagnosis puts it (every level, every unit).
    pub verdict_place: Option<Place>,
    /// What the estimate says of its position, held to the verdict.
    pub est_claim: Option<Claim>,
    /// The trace launch's duration, seconds.
    pub duration_s: f64,
    /// The estimate's FLOP kind.
    pub est_kind: Option<FlopKind>,
    /// The counters' dominant FLOP kind.
    pub counted_kind: Option<FlopKind>,
}

/// Which side of the ridge a point lies on: under the slanted (memory) roof
/// or under the flat (compute) one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Intensity below the ridge: under the DRAM roof.
    Memory,
    /// At or above the ridge: under the compute roof.
    Compute,
}

fn side(flops: f64, bytes: f64, kind: Option<FlopKind>, machine: &Machine) -> Option<Side> {
    if bytes <= 0.0 {
        return None;
    }
    if flops <= 0.0 {
        return Some(Side::Memory);
    }
    let ridge = machine.ridge(kind?, MemLevel::Dram)?;
    Some(if flops / bytes >= ridge { Side::Compute } else { Side::Memory })
}

/// A verdict's place on the roofline: which roof holds the kernel, and
/// whether it is on it (at least [`ON_ROOF_PCT`] of it) or under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The slanted (memory) or the flat (compute) roof.
    pub side: Side,
    /// On the roof rather than under it.
    pub on: bool,
}

impl Place {
    /// "under the diagonal", "on the roof", as the diagnosis words them.
    pub fn label(self) -> &'static str {
        match (self.side, self.on) {
            (Side::Memory, true) => Position::OnDiagonal.label(),
            (Side::Memory, false) => Position::UnderDiagonal.label(),
            (Side::Compute, true) => Position::OnRoof.label(),
            (Side::Compute, false) => Position::UnderFlatRoof.label(),
        }
    }
}

/// The position an estimate claims against the counters' whole verdict:
/// its side of the roofline, and whether it is on the roof when the shapes
/// can tell (`None`: on or under, the shapes cannot say which).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim {
    /// The slanted (memory) or the flat (compute) roof.
    pub side: Side,
    /// On the roof rather than under it; `None` when the shapes cannot say.
    pub on: Option<bool>,
    /// The memory level that binds, when the shapes name one other than
    /// DRAM.
    pub level: Option<MemLevel>,
}

impl Claim {
    /// The claim of an estimate placed under the DRAM roofline at `place`;
    /// a GEMM run as an unaligned fallback is held by its L1 load path
    /// instead ([`Unaligned`]), on or under that diagonal.
    pub fn of(place: Place, unaligned: Option<Unaligned>) -> Claim {
        match unaligned {
            Some(_) => Claim { side: Side::Memory, on: None, level: Some(MemLevel::L1) },
            None => Claim { side: place.side, on: Some(place.on), level: None },
        }
    }

    /// Whether the verdict's place is one the claim allows.
    pub fn admits(self, verdict: Place) -> bool {
        self.side == verdict.side && self.on.is_none_or(|on| on == verdict.on)
    }

    /// Whether the claim names exactly the verdict's place.
    pub fn is(self, verdict: Place) -> bool {
        self.side == verdict.side && self.on == Some(verdict.on)
    }

    /// "under the diagonal"; "on or under the L1 diagonal" for an open claim.
    pub fn label(self) -> String {
        match (self.on, self.level) {
            (Some(on), _) => Place { side: self.side, on }.label().to_string(),
            (None, level) => {
                let level = level.map(|l| format!("{} ", l.label())).unwrap_or_default();
                match self.side {
                    Side::Memory => format!("on or under the {level}diagonal"),
                    Side::Compute => "on or under the flat roof".to_string(),
                }
            }
        }
    }
}

fn bound_side(b: Bound) -> Side {
    match b {
        Bound::Memory => Side::Memory,
        Bound::Compute => Side::Compute,
    }
}

/// The place of a point from its placement alone: the estimate's.
fn placed(machine: &Machine, k: &Kernel) -> Option<Place> {
    let a = analyze_kernel(machine, k);
    Some(Place { side: bound_side(a.bound?), on: a.pct_of_roof? >= ON_ROOF_PCT })
}

/// The place the counters' verdict gives: its diagnosis's position; a
/// kernel held by a pipe, latency, issue or launching is under the roof its
/// placement names.
fn verdict_place(machine: &Machine, k: &Kernel) -> Option<Place> {
    let a = analyze_kernel(machine, k);
    let side = bound_side(a.bound?);
    Some(match a.diagnosis.map(|d| d.position) {
        Some(Position::OnDiagonal) => Place { side: Side::Memory, on: true },
        Some(Position::UnderDiagonal) => Place { side: Side::Memory, on: false },
        Some(Position::OnRoof) => Place { side: Side::Compute, on: true },
        Some(Position::UnderFlatRoof) => Place { side: Side::Compute, on: false },
        Some(_) => Place { side, on: false },
        None => Place { side, on: a.pct_of_roof? >= ON_ROOF_PCT },
    })
}

impl Pair {
    /// The sides of the ridge the estimate and the counters put the launch on.
    pub fn sides(&self, machine: &Machine) -> Option<(Side, Side)> {
        let est = side(self.est_issued_flops?, self.est_bytes?, self.est_kind, machine)?;
        let counted =
            side(self.counted_flops, self.counted_traffic_bytes.or(self.counted_bytes)?, self.counted_kind, machine)?;
        Some((est, counted))
    }
}

impl Pair {
    /// (issued estimate - counted) / counted for FLOPs (counters count what
    /// was issued); `None` when nothing was counted.
    pub fn flops_error(&self) -> Option<f64> {
        // A data move the catalogue gives no FLOPs (a copy, a cat) is not
        // held to the address arithmetic the counters may see.
        let e = self.est_issued_flops.filter(|e| *e > 0.0)?;
        (self.counted_flops > 0.0).then(|| (e - self.counted_flops) / self.counted_flops)
    }

    /// (estimate - counted) / counted for DRAM bytes; `None` below
    /// [`SMALL_BYTES`] counted.
    pub fn bytes_error(&self) -> Option<f64> {
        let (e, c) = (self.est_bytes?, self.counted_bytes?);
        (c >= SMALL_BYTES).then(|| (e - c) / c)
    }

    /// (estimate - counted) / counted for the DRAM traffic (reads plus L2
    /// writes, module docs); `None` below [`SMALL_BYTES`] counted.
    pub fn traffic_error(&self) -> Option<f64> {
        let (e, c) = (self.est_bytes?, self.counted_traffic_bytes?);
        (c >= SMALL_BYTES).then(|| (e - c) / c)
    }

    /// (estimate - counted) / counted for the bytes read: Nsight Compute
    /// flushes the caches before each kernel, so reads come from DRAM, but
    /// an output that fits in L2 is still there, dirty, when the kernel
    /// ends, and its DRAM write is not counted.
    pub fn read_error(&self) -> Option<f64> {
        let (e, c) = (self.est_read_bytes?, self.counted_read_bytes?);
        (c >= SMALL_BYTES).then(|| (e - c) / c)
    }
}

/// Errors of one operator family.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassErrors {
    /// The family.
    pub class: OpClass,
    /// Matched launches with an estimate.
    pub kernels: usize,
    /// |FLOPs error|: median, max, and the launches it was computed on.
    pub flops: Option<(f64, f64, usize)>,
    /// |bytes error|: median, max, and the launches it was computed on.
    pub bytes: Option<(f64, f64, usize)>,
    /// Median signed bytes error (positive: the estimate is above the count).
    pub bytes_bias: Option<f64>,
    /// |bytes read error|: median, max, and the launches it was computed on.
    pub reads: Option<(f64, f64, usize)>,
    /// |DRAM traffic error|: median, max, and the launches it was computed on.
    pub traffic: Option<(f64, f64, usize)>,
}

/// The comparison of a trace's estimates with a counter capture.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Launches in the counter capture.
    pub counter_launches: usize,
    /// Launches in the trace.
    pub trace_launches: usize,
    /// The matched launches, in the counter capture's order.
    pub pairs: Vec<Pair>,
    /// Counter launches no trace launch matched.
    pub unmatched: Vec<String>,
    /// Per family, in [`OpClass`] order.
    pub classes: Vec<ClassErrors>,
    /// GPU time (trace durations, seconds) of the matched launches with an
    /// estimate whose estimate and counters put on the same side of the
    /// DRAM ridge, and of all those that could be judged.
    pub position: (f64, f64),
    /// GPU time (trace durations) of the matched launches with an estimate
    /// whose estimated place under the DRAM roofline is the counted one,
    /// and of all those that could be judged.
    pub places: (f64, f64),
    /// The same against the counters' whole verdict: the time whose
    /// estimate's [`Claim`] admits the verdict's place.
    pub verdicts: (f64, f64),
    /// The time whose claim names exactly the verdict's place (an open
    /// claim, on or under, counted as a disagreement), of the same time.
    pub verdicts_strict: f64,
}

/// The base of a kernel name both spellings share: "void at::native::(anonymous
/// namespace)::foo<8, bar>(...)" and "void at::<unnamed>::foo<8, bar>" both
/// give "foo<8".
pub fn match_key(name: &str) -> String {
    let cleaned = name.replace("(anonymous namespace)::", "").replace("<unnamed>::", "").replace("{anonymous}::", "");
    let n = cleaned.trim().trim_start_matches("void ");
    let cut = n.find(['<', '(']).unwrap_or(n.len());
    let head = &n[..cut];
    let base = head.rsplit("::").next().unwrap_or(head).trim();
    let first_arg = if n[cut..].starts_with('<') {
        let rest = &n[cut + 1..];
        let end = rest.find([',', '<', '>', '(']).unwrap_or(rest.len());
        let arg = rest[..end].trim();
        arg.rsplit("::").next().unwrap_or(arg).trim().to_string()
    } else {
        String::new()
    };
    if first_arg.is_empty() {
        base.to_string()
    } else {
        format!("{base}<{first_arg}")
    }
}

/// The median of `v` (NaN for none), as `roofline_model::Spread` computes it.
fn median(v: &[f64]) -> f64 {
    roofline_model::Spread::from_samples(v).map_or(f64::NAN, |s| s.median)
}

/// Matches `counted` (a counter capture read one kernel per launch) to the
/// trace's `launches` and computes the errors.
pub fn compare(launches: &[Launch], counted: &[Kernel], machine: &Machine) -> Comparison {
    let keys: Vec<(String, Option<u64>, Option<u64>)> =
        launches.iter().map(|l| (match_key(&l.name), l.grid_blocks, l.block_threads)).collect();
    let mut used = vec![false; launches.len()];
    let mut pairs = Vec::new();
    let mut unmatched = Vec::new();
    let mut cursor = 0usize;
    for k in counted {
        let key = match_key(&k.name);
        let grid = k.evidence.grid_size.map(|g| g as u64);
        let block = k.evidence.block_size.map(|b| b as u64);
        let fits = |i: usize| {
            let (kk, g, b) = &keys[i];
            !used[i]
                && *kk == key
                && (grid.is_none() || g.is_none() || *g == grid)
                && (block.is_none() || b.is_none() || *b == block)
        };
        let hit = (cursor..launches.len()).find(|&i| fits(i)).or_else(|| (0..launches.len()).find(|&i| fits(i)));
        let Some(i) = hit else {
            unmatched.push(k.name.clone());
            continue;
        };
        used[i] = true;
        cursor = i + 1;
        let l = &launches[i];
        let est = l.estimate.as_ref().ok();
        let traffic = match (k.evidence.dram_read_bytes, k.evidence.l2_write_sectors) {
            (Some(r), Some(w)) => Some(r + 32.0 * w),
            _ => None,
        };
        let est_place = est.and_then(|e| {
            let mut p = Kernel::named(&l.name, Origin::Estimated);
            if e.issued_flops > 0.0 {
                p.flops.insert(e.kind, e.issued_flops);
            }
            p.bytes.insert(MemLevel::Dram, e.bytes);
            p.duration_s = Some(l.duration_s);
            placed(machine, &p)
        });
        let counted_place = est_place.and_then(|_| {
            let mut p = Kernel::named(&k.name, Origin::Counter);
            p.flops = k.flops.clone();
            p.bytes.insert(MemLevel::Dram, traffic.or(k.bytes.get(&MemLevel::Dram).copied())?);
            p.duration_s = k.duration_s;
            placed(machine, &p)
        });
        pairs.push(Pair {
            name: k.name.clone(),
            launch: i,
            class: est.map(|e| e.class),
            op: l.op.clone(),
            est_flops: est.map(|e| e.useful_flops),
            est_issued_flops: est.map(|e| e.issued_flops),
            est_bytes: est.map(|e| e.bytes),
            counted_flops: k.total_flops(),
            counted_bytes: k.bytes.get(&MemLevel::Dram).copied(),
            est_read_bytes: est.filter(|e| e.written_bytes > 0.0).map(|e| e.bytes - e.written_bytes),
            counted_read_bytes: k.evidence.dram_read_bytes,
            counted_traffic_bytes: traffic,
            est_place,
            counted_place,
            verdict_place: est_place.and_then(|_| verdict_place(machine, k)),
            est_claim: est_place.map(|p| Claim::of(p, est.and_then(|e| e.unaligned))),
            duration_s: l.duration_s,
            est_kind: est.map(|e| e.kind),
            counted_kind: k.dominant_kind(),
        });
    }
    let mut by_class: BTreeMap<OpClass, Vec<&Pair>> = BTreeMap::new();
    for p in &pairs {
        if let Some(c) = p.class {
            by_class.entry(c).or_default().push(p);
        }
    }
    let classes = by_class
        .into_iter()
        .map(|(class, ps)| {
            let stats = |errs: Vec<f64>| -> Option<(f64, f64, usize)> {
                if errs.is_empty() {
                    return None;
                }
                let abs: Vec<f64> = errs.iter().map(|e| e.abs()).collect();
                let max = abs.iter().copied().fold(0.0, f64::max);
                Some((median(&abs), max, errs.len()))
            };
            let mut bytes: Vec<f64> = ps.iter().filter_map(|p| p.bytes_error()).collect();
            let bias = (!bytes.is_empty()).then(|| median(&bytes));
            ClassErrors {
                class,
                kernels: ps.len(),
                flops: stats(ps.iter().filter_map(|p| p.flops_error()).collect()),
                bytes: stats(std::mem::take(&mut bytes)),
                bytes_bias: bias,
                reads: stats(ps.iter().filter_map(|p| p.read_error()).collect()),
                traffic: stats(ps.iter().filter_map(|p| p.traffic_error()).collect()),
            }
        })
        .collect();
    let mut position = (0.0, 0.0);
    let mut places = (0.0, 0.0);
    let mut verdicts = (0.0, 0.0);
    let mut verdicts_strict = 0.0;
    for p in &pairs {
        if let (Some(e), Some(c)) = (p.est_place, p.counted_place) {
            places.1 += p.duration_s;
            if e == c {
                places.0 += p.duration_s;
            }
        }
        if let Some((e, c)) = p.sides(machine) {
            position.1 += p.duration_s;
            if e == c {
                position.0 += p.duration_s;
            }
        }
        if let (Some(e), Some(c)) = (p.est_claim, p.verdict_place) {
            verdicts.1 += p.duration_s;
            if e.admits(c) {
                verdicts.0 += p.duration_s;
            }
            if e.is(c) {
                verdicts_strict += p.duration_s;
            }
        }
    }
    Comparison {
        counter_launches: counted.len(),
        trace_launches: launches.len(),
        pairs,
        unmatched,
        classes,
        position,
        places,
        verdicts,
        verdicts_strict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_of_a_kernel_share_a_key() {
        let ncu = "void at::<unnamed>::vectorized_layer_norm_kernel<c10::BFloat16, float, true>(int, float)";
        let cupti = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float, true>(int, float, c10::BFloat16 const*)";
        assert_eq!(match_key(ncu), match_key(cupti));
        assert_eq!(match_key(ncu), "vectorized_layer_norm_kernel<BFloat16");
        assert_eq!(
            match_key("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT"),
            "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT"
        );
        assert_ne!(
            match_key("void cutlass::Kernel2<cutlass_80_a>(P)"),
            match_key("void cutlass::Kernel2<cutlass_80_b>(P)")
        );
    }

    #[test]
    fn an_unaligned_gemm_claims_the_l1_diagonal_on_or_under() {
        let flat = Place { side: Side::Compute, on: false };
        let u = Unaligned { operand: "C", leading: 50257, multiple: 8 };
        // Aligned: the claim is the DRAM place, and names it exactly.
        let c = Claim::of(flat, None);
        assert!(c.admits(flat) && c.is(flat));
        assert!(!c.admits(Place { side: Side::Memory, on: true }));
        assert_eq!(c.label(), "under the flat roof");
        // Unaligned: memory-side at L1, on or under; either memory verdict is
        // admitted, none is named exactly, a compute-side one is refused.
        let c = Claim::of(flat, Some(u));
        assert_eq!(c.label(), "on or under the L1/shared diagonal");
        for on in [true, false] {
            let v = Place { side: Side::Memory, on };
            assert!(c.admits(v) && !c.is(v));
        }
        assert!(!c.admits(flat) && !c.admits(Place { side: Side::Compute, on: true }));
    }

    #[test]
    fn errors_are_relative_to_the_count() {
        let p = Pair {
            name: "k".into(),
            launch: 0,
            class: Some(OpClass::Matmul),
            op: None,
            est_flops: Some(110.0),
            est_issued_flops: Some(110.0),
            est_bytes: Some(90e6),
            counted_flops: 100.0,
            counted_bytes: Some(100e6),
            est_read_bytes: Some(50e6),
            counted_read_bytes: Some(40e6),
            counted_traffic_bytes: Some(80e6),
            est_place: None,
            counted_place: None,
            verdict_place: None,
            est_claim: None,
            duration_s: 1e-6,
            est_kind: Some(FlopKind::TensorBf16),
            counted_kind: Some(FlopKind::TensorBf16),
        };
        assert!((p.flops_error().unwrap() - 0.1).abs() < 1e-12);
        assert!((p.bytes_error().unwrap() + 0.1).abs() < 1e-12);
        assert!((p.read_error().unwrap() - 0.25).abs() < 1e-12);
        assert!((p.traffic_error().unwrap() - 0.125).abs() < 1e-12);
        let small = Pair { counted_bytes: Some(5e5), ..p.clone() };
        assert_eq!(small.bytes_error(), None);
        assert_eq!(median(&[3.0, 1.0, 2.0, 10.0]), 2.5);
    }
}
