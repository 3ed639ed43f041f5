//! A built-in table of well-known GPUs, so that `roofline peaks --gpu t4`
//! and `roofline model --gpu h200` work on any machine.
//!
//! Each row holds the attributes a driver would report (SMs, boost clock,
//! memory clock, bus width) as published in the vendor's datasheet or read
//! off the device, and the roofs are computed from them by
//! [`crate::peaks::theoretical_machine`], exactly as for a live GPU. The
//! memory clock of GDDR parts is the one that reproduces the datasheet
//! bandwidth with the double-data-rate formula. Rows or fields not confirmed
//! by a datasheet or a device query are flagged and printed as estimates.

use crate::peaks::DeviceAttributes;
use roofline_model::ComputeCapability;

/// One row of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct KnownGpu {
    /// The name used with `--gpu` ("h200").
    pub key: &'static str,
    /// Other names `--gpu` accepts ("tesla-t4").
    pub aliases: &'static [&'static str],
    /// The vendor's name ("NVIDIA H200 SXM").
    pub name: &'static str,
    /// Compute capability.
    pub cc: ComputeCapability,
    /// Streaming multiprocessors.
    pub sms: u32,
    /// Boost SM clock, MHz.
    pub boost_mhz: u32,
    /// Peak memory clock, MHz, as the driver reports it.
    pub mem_clock_mhz: u32,
    /// Memory bus width, bits.
    pub bus_width_bits: u32,
    /// L2 cache size, bytes.
    pub l2_bytes: u64,
    /// Device memory, GB (10^9 bytes).
    pub memory_gb: u32,
    /// Clock the vendor quotes tensor peaks at, if not the boost clock.
    pub tensor_mhz: Option<u32>,
    /// Where the figures come from.
    pub source: &'static str,
    /// Fields that are estimates: "clock", "tensor_clock", "memory", or a
    /// FLOP kind key such as "tensor_fp16".
    pub unconfirmed: &'static [&'static str],
}

impl KnownGpu {
    /// The row as device attributes, for the theoretical peaks.
    pub fn attributes(&self) -> DeviceAttributes {
        DeviceAttributes {
            name: self.name.to_string(),
            cc: self.cc,
            sms: self.sms,
            clock_khz: self.boost_mhz * 1000,
            mem_clock_khz: self.mem_clock_mhz * 1000,
            bus_width_bits: self.bus_width_bits,
            l2_bytes: Some(self.l2_bytes),
            memory_bytes: Some(self.memory_gb as u64 * 1_000_000_000),
            tensor_clock_khz: self.tensor_mhz.map(|m| m * 1000),
            source: format!("built-in table ({})", self.source),
            unconfirmed: self.unconfirmed.iter().map(|s| s.to_string()).collect(),
        }
    }
}

const MB: u64 = 1_000_000;
const MIB: u64 = 1 << 20;

/// The table. Datasheet figures it must reproduce are asserted in tests.
pub static KNOWN_GPUS: &[KnownGpu] = &[
    KnownGpu {
        key: "t4",
        aliases: &["tesla-t4", "tesla t4"],
        name: "Tesla T4",
        cc: ComputeCapability::new(7, 5),
        sms: 40,
        boost_mhz: 1590,
        mem_clock_mhz: 5001,
        bus_width_bits: 256,
        l2_bytes: 4 * MB,
        memory_gb: 16,
        tensor_mhz: None,
        source: "device query in seed 000; NVIDIA T4 datasheet",
        unconfirmed: &[],
    },
    KnownGpu {
        key: "v100",
        aliases: &["v100-sxm2", "tesla-v100"],
        name: "Tesla V100 SXM2",
        cc: ComputeCapability::new(7, 0),
        sms: 80,
        boost_mhz: 1530,
        mem_clock_mhz: 877,
        bus_width_bits: 4096,
        l2_bytes: 6 * MB,
        memory_gb: 16,
        tensor_mhz: None,
        source: "NVIDIA V100 datasheet and device query",
        unconfirmed: &[],
    },
    KnownGpu {
        key: "a100-40gb",
        aliases: &["a100", "a100-40", "a100-sxm4-40gb"],
        name: "NVIDIA A100 SXM4 40GB",
        cc: ComputeCapability::new(8, 0),
        sms: 108,
        boost_mhz: 1410,
        mem_clock_mhz: 1215,
        bus_width_bits: 5120,
        l2_bytes: 40 * MB,
        memory_gb: 40,
        tensor_mhz: None,
        source: "NVIDIA A100 datasheet and device query",
        unconfirmed: &[],
    },
    KnownGpu {
        key: "a100-80gb",
        aliases: &["a100-80", "a100-sxm4-80gb"],
        name: "NVIDIA A100 SXM4 80GB",
        cc: ComputeCapability::new(8, 0),
        sms: 108,
        boost_mhz: 1410,
        mem_clock_mhz: 1593,
        bus_width_bits: 5120,
        l2_bytes: 40 * MB,
        memory_gb: 80,
        tensor_mhz: None,
        source: "NVIDIA A100 datasheet",
        unconfirmed: &[],
    },
    KnownGpu {
        key: "h100-sxm",
        aliases: &["h100", "h100-sxm5"],
        name: "NVIDIA H100 SXM5",
        cc: ComputeCapability::new(9, 0),
        sms: 132,
        boost_mhz: 1980,
        mem_clock_mhz: 2619,
        bus_width_bits: 5120,
        l2_bytes: 50 * MB,
        memory_gb: 80,
        tensor_mhz: Some(1830),
        source: "NVIDIA H100 datasheet and device query",
        unconfirmed: &[],
    },
    KnownGpu {
        key: "h100-pcie",
        aliases: &["h100pcie"],
        name: "NVIDIA H100 PCIe",
        cc: ComputeCapability::new(9, 0),
        sms: 114,
        boost_mhz: 1755,
        mem_clock_mhz: 1593,
        bus_width_bits: 5120,
        l2_bytes: 50 * MB,
        memory_gb: 80,
        tensor_mhz: Some(1620),
        source: "NVIDIA H100 datasheet",
        unconfirmed: &["tensor_clock"],
    },
    KnownGpu {
        key: "h200",
        aliases: &["h200-sxm", "nvidia-h200"],
        name: "NVIDIA H200",
        cc: ComputeCapability::new(9, 0),
        sms: 132,
        boost_mhz: 1980,
        mem_clock_mhz: 3201,
        bus_width_bits: 6016,
        l2_bytes: 60 * MIB,
        memory_gb: 141,
        tensor_mhz: Some(1830),
        source: "device query on an H200 (driver 580.159.04); NVIDIA H200 datasheet",
        unconfirmed: &[],
    },
    KnownGpu {
        key: "l4",
        aliases: &["nvidia-l4"],
        name: "NVIDIA L4",
        cc: ComputeCapability::new(8, 9),
        sms: 58,
        boost_mhz: 2040,
        mem_clock_mhz: 6251,
        bus_width_bits: 192,
        l2_bytes: 48 * MB,
        memory_gb: 24,
        tensor_mhz: None,
        source: "NVIDIA L4 datasheet",
        unconfirmed: &[],
    },
    KnownGpu {
        key: "l40s",
        aliases: &["nvidia-l40s"],
        name: "NVIDIA L40S",
        cc: ComputeCapability::new(8, 9),
        sms: 142,
        boost_mhz: 2520,
        mem_clock_mhz: 9001,
        bus_width_bits: 384,
        l2_bytes: 96 * MB,
        memory_gb: 48,
        tensor_mhz: None,
        source: "NVIDIA L40S datasheet",
        unconfirmed: &[],
    },
    KnownGpu {
        key: "rtx4090",
        aliases: &["rtx-4090", "4090", "geforce-rtx-4090"],
        name: "NVIDIA GeForce RTX 4090",
        cc: ComputeCapability::new(8, 9),
        sms: 128,
        boost_mhz: 2520,
        mem_clock_mhz: 10501,
        bus_width_bits: 384,
        l2_bytes: 72 * MB,
        memory_gb: 24,
        tensor_mhz: None,
        source: "NVIDIA Ada whitepaper (GeForce: FP16 tensor with FP32 accumulate runs at half rate)",
        unconfirmed: &["tensor_fp16", "tensor_bf16"],
    },
    KnownGpu {
        key: "b200",
        aliases: &["nvidia-b200"],
        name: "NVIDIA B200",
        cc: ComputeCapability::new(10, 0),
        sms: 148,
        boost_mhz: 1965,
        mem_clock_mhz: 3746,
        bus_width_bits: 8192,
        l2_bytes: 126 * MIB + MIB / 2,
        memory_gb: 180,
        tensor_mhz: Some(1856),
        source: "NVIDIA DGX B200 datasheet; clocks inferred from quoted peaks",
        unconfirmed: &["clock", "tensor_clock", "memory"],
    },
];

/// Normalises a user's spelling: case, spaces, underscores, an "nvidia" prefix.
fn normalise(s: &str) -> String {
    let t = s.trim().to_ascii_lowercase().replace(['_', ' '], "-");
    t.strip_prefix("nvidia-").map(str::to_string).unwrap_or(t)
}

/// Looks a GPU up by key, alias or full name.
pub fn find(name: &str) -> Option<&'static KnownGpu> {
    let n = normalise(name);
    KNOWN_GPUS.iter().find(|g| g.key == n || g.aliases.iter().any(|a| normalise(a) == n) || normalise(g.name) == n)
}

/// Looks a GPU up by the name a driver reports ("NVIDIA H200", "Tesla T4").
pub fn find_by_device_name(device_name: &str) -> Option<&'static KnownGpu> {
    let n = normalise(device_name);
    find(device_name).or_else(|| KNOWN_GPUS.iter().find(|g| normalise(g.name) == n))
}

/// The closest known key to a misspelt name, for "did you mean".
pub fn closest(name: &str) -> Option<&'static str> {
    let n = normalise(name);
    KNOWN_GPUS
        .iter()
        .flat_map(|g| std::iter::once(g.key).chain(g.aliases.iter().copied()).map(move |a| (g.key, a)))
        .map(|(key, alias)| (key, strsim::jaro_winkler(&n, &normalise(alias))))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .filter(|(_, score)| *score > 0.6)
        .map(|(k, _)| k)
}

/// The keys `--gpu` accepts.
pub fn known_keys() -> Vec<&'static str> {
    KNOWN_GPUS.iter().map(|g| g.key).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::peaks::theoretical_machine;
    use roofline_model::{FlopKind, MemLevel};

    fn roofs(key: &str) -> (f64, f64, f64) {
        let m = theoretical_machine(&find(key).unwrap().attributes()).unwrap();
        let fp32 = m.compute_roof(FlopKind::Fp32).unwrap().rate / 1e12;
        let fp64 = m.compute_roof(FlopKind::Fp64).unwrap().rate / 1e12;
        let dram = m.bandwidth_roof(MemLevel::Dram).unwrap().rate / 1e9;
        (fp32, fp64, dram)
    }

    /// Every row reproduces its datasheet (reference/gpu-architecture.md).
    #[test]
    fn datasheet_figures() {
        let cases = [
            ("t4", 8.1, 0.25, 320.0),
            ("v100", 15.7, 7.8, 898.0),
            ("a100-40gb", 19.5, 9.7, 1555.0),
            ("a100-80gb", 19.5, 9.7, 2039.0),
            ("h100-sxm", 66.9, 33.5, 3352.0),
            ("h100-pcie", 51.2, 25.6, 2039.0),
            ("h200", 66.9, 33.5, 4814.0),
            ("l4", 30.3, 0.47, 300.0),
            ("l40s", 91.6, 1.43, 864.0),
            ("rtx4090", 82.6, 1.29, 1008.0),
            ("b200", 74.5, 37.2, 7672.0),
        ];
        for (key, fp32, fp64, gbs) in cases {
            let (a, b, c) = roofs(key);
            assert!((a - fp32).abs() / fp32 < 0.01, "{key} FP32 {a}");
            assert!((b - fp64).abs() / fp64 < 0.03, "{key} FP64 {b}");
            assert!((c - gbs).abs() / gbs < 0.005, "{key} DRAM {c}");
        }
    }

    #[test]
    fn tensor_peaks_at_the_vendor_clock() {
        let m = theoretical_machine(&find("h200").unwrap().attributes()).unwrap();
        let bf16 = m.compute_roof(FlopKind::TensorBf16).unwrap().rate / 1e12;
        assert!((bf16 - 989.0).abs() < 1.0, "{bf16}");
        let fp64t = m.compute_roof(FlopKind::TensorFp64).unwrap().rate / 1e12;
        assert!((fp64t - 66.9).abs() < 0.1, "{fp64t}");
        let a100 = theoretical_machine(&find("a100").unwrap().attributes()).unwrap();
        let t = a100.compute_roof(FlopKind::TensorFp16).unwrap().rate / 1e12;
        assert!((t - 312.0).abs() < 1.0, "{t}");
    }

    #[test]
    fn lookups_and_suggestions() {
        assert_eq!(find("H200").unwrap().key, "h200");
        assert_eq!(find("NVIDIA H200").unwrap().key, "h200");
        assert_eq!(find("Tesla T4").unwrap().key, "t4");
        assert!(find("h300").is_none());
        assert_eq!(closest("h2000"), Some("h200"));
        assert_eq!(closest("a10O"), Some("a100-40gb"));
    }
}
