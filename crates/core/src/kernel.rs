//! A kernel as the roofline sees it: FLOPs per kind, bytes per memory level,
//! and (when it ran) how long it took.
//!
//! The same structure holds a paper estimate ("1 FLOP and 12 bytes per
//! element"), a timed run and an Nsight Compute profile; `origin` says which.
//! Optional evidence (occupancy, speed-of-light percentages, sectors per
//! request) feeds the diagnosis when a profiler supplied it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::machine::{FlopKind, MemLevel, Origin};

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
    #[serde(default = "one")]
    pub launches: u64,
    /// Where FLOPs and bytes came from (user estimate, counters, a benchmark
    /// with known work).
    pub origin: Origin,
    #[serde(default, skip_serializing_if = "Evidence::is_empty")]
    pub evidence: Evidence,
}

fn one() -> u64 {
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occupancy_theoretical_pct: Option<f64>,
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registers_per_thread: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_size: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid_size: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_mem_per_block: Option<f64>,
    /// Useful bytes per 32-byte sector for global loads (32 = perfectly used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub global_load_bytes_per_sector: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub global_store_bytes_per_sector: Option<f64>,
    /// Shared-memory bank conflicts (loads + stores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_bank_conflicts: Option<f64>,
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
}

impl Evidence {
    pub fn is_empty(&self) -> bool {
        *self == Evidence::default()
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
    fn ids_are_stable_and_short() {
        assert_eq!(short_id("vecadd"), short_id("vecadd"));
        assert_ne!(short_id("vecadd"), short_id("saxpy"));
        assert_eq!(short_id("x").len(), 7);
    }
}
