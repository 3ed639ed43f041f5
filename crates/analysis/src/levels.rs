//! Where a kernel sits at each memory level: its intensity and bandwidth
//! there, which side of the ridge it lands on ([`Bound`]), what holds it
//! back ([`Limiter`]), and the DRAM roof for its own read:write mix,
//! interpolated between the streaming benchmarks of a measured machine
//! ([`mix_roof`]): copy and triad do not reach the read-only rate, so
//! neither should a kernel be expected to.

use serde::{Deserialize, Serialize};

use roofline_model::{LevelCaveat, Machine, MemLevel, Origin, Resource};

/// Which side of the ridge a kernel sits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Left of the ridge: a bandwidth roof holds it.
    Memory,
    /// At or right of the ridge: the compute peak holds it.
    Compute,
}

impl Bound {
    /// Memory-bound below the ridge, compute-bound at or above it (a kernel
    /// exactly at the ridge is held by both roofs; we call it compute-bound,
    /// as seed 001's `I < ridge` test does).
    pub fn classify(intensity: f64, ridge: f64) -> Bound {
        if intensity < ridge {
            Bound::Memory
        } else {
            Bound::Compute
        }
    }

    /// "memory" or "compute".
    pub fn label(self) -> &'static str {
        match self {
            Bound::Memory => "memory",
            Bound::Compute => "compute",
        }
    }
}

/// What holds a kernel back: a memory level's bandwidth or the compute peak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type", content = "which")]
pub enum Limiter {
    /// The bandwidth of this memory level.
    Bandwidth(MemLevel),
    /// The compute peak of the kernel's FLOP mix.
    Compute,
}

/// A kernel's point at one memory level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelPoint {
    /// The memory level.
    pub level: MemLevel,
    /// Bytes the kernel moved at this level, all launches.
    pub bytes: f64,
    /// FLOP per byte at this level (`None` when no FLOPs or no bytes).
    pub intensity: Option<f64>,
    /// The bandwidth ceiling used, bytes/s (`None` when the machine has none).
    pub bandwidth: Option<f64>,
    /// `min(pi, I x beta)` at this level, FLOP/s.
    pub attainable_flops_per_s: Option<f64>,
    /// Bytes per second the kernel moved at this level.
    pub achieved_bytes_per_s: Option<f64>,
    /// Achieved bytes/s as % of this level's bandwidth ceiling.
    pub pct_of_bandwidth: Option<f64>,
    /// DRAM only, with a measured machine: what streaming with this
    /// kernel's read:write mix reaches, and the kernel's % of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mix: Option<MixRoof>,
    /// Why this point does not measure the level's traffic. Such a point is
    /// "not measured at this level": kept off the chart and out of the
    /// limiter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caveat: Option<LevelCaveat>,
}

impl LevelPoint {
    /// Whether the point measures the level's traffic (charts draw only these).
    pub fn measured(&self) -> bool {
        self.caveat.is_none()
    }
}

/// The DRAM rate streaming reaches with a kernel's read:write mix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MixRoof {
    /// The kernel's DRAM bytes read, as a share of all its DRAM bytes (0..1).
    pub read_share: f64,
    /// The interpolated streaming rate, bytes/s.
    pub bytes_per_s: f64,
    /// The benchmarks interpolated between (the same one twice when the mix
    /// is at or beyond a benchmark's own).
    pub lower: MixPoint,
    /// The benchmark on the other side of the kernel's mix.
    pub upper: MixPoint,
    /// Achieved bytes/s as % of `bytes_per_s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pct: Option<f64>,
}

/// One streaming benchmark as a point of the mix interpolation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MixPoint {
    /// The streaming benchmark ("dram.copy").
    pub benchmark: String,
    /// Its bytes read as a share of its bytes moved (0..1).
    pub read_share: f64,
    /// Its measured rate, bytes/s.
    pub bytes_per_s: f64,
}

/// The measured streaming rate for a DRAM read share (0 = write-only, 1 =
/// read-only), linear in the read share between the two nearest measured
/// streaming benchmarks of `machine` (read, copy, add/triad, write; when
/// two share a mix the faster counts), the nearest one beyond them.
/// `None` without at least one measured streaming benchmark.
pub fn mix_roof(machine: &Machine, read_share: f64) -> Option<MixRoof> {
    if !read_share.is_finite() {
        return None;
    }
    let share = read_share.clamp(0.0, 1.0);
    let mut points: Vec<MixPoint> = Vec::new();
    for c in machine.bandwidth() {
        if c.resource != Resource::Memory(MemLevel::Dram) || c.provenance.origin != Origin::Measured || c.rate <= 0.0 {
            continue;
        }
        let Some(pattern) = c.stream_pattern() else { continue };
        let p =
            MixPoint { benchmark: pattern.benchmark.clone(), read_share: pattern.read_share(), bytes_per_s: c.rate };
        match points.iter_mut().find(|q| q.read_share == p.read_share) {
            Some(q) if q.bytes_per_s < p.bytes_per_s => *q = p,
            Some(_) => {}
            None => points.push(p),
        }
    }
    points.sort_by(|a, b| a.read_share.total_cmp(&b.read_share));
    let below = points.iter().rev().find(|p| p.read_share <= share);
    let above = points.iter().find(|p| p.read_share >= share);
    let (lower, upper) = match (below, above) {
        (Some(l), Some(u)) => (l.clone(), u.clone()),
        (Some(l), None) => (l.clone(), l.clone()),
        (None, Some(u)) => (u.clone(), u.clone()),
        (None, None) => return None,
    };
    let span = upper.read_share - lower.read_share;
    let bytes_per_s = if span > 0.0 {
        let t = (share - lower.read_share) / span;
        lower.bytes_per_s + t * (upper.bytes_per_s - lower.bytes_per_s)
    } else {
        lower.bytes_per_s
    };
    Some(MixRoof { read_share: share, bytes_per_s, lower, upper, pct: None })
}
