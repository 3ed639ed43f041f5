//! The compute capability: the one shape every crate uses for "which GPU
//! generation", read from "9.0", "sm_90" or the driver's two numbers.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A CUDA compute capability ("9.0"): the one shape every crate uses for it.
///
/// Ordered as (major, minor), so `cc >= ComputeCapability::new(8, 9)` reads
/// as "Ada or newer". In JSON it is the string "9.0".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ComputeCapability {
    /// Major version (9 for Hopper).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

impl ComputeCapability {
    /// Compute capability `major.minor`.
    pub const fn new(major: u32, minor: u32) -> ComputeCapability {
        ComputeCapability { major, minor }
    }

    /// Reads "9.0", "90", "sm_90", "sm_90a" or "compute_90".
    pub fn parse(s: &str) -> Option<ComputeCapability> {
        let t = s.trim().trim_start_matches("sm_").trim_start_matches("compute_");
        let t = t.trim_end_matches('a');
        if let Some((a, b)) = t.split_once('.') {
            return Some(ComputeCapability::new(a.parse().ok()?, b.parse().ok()?));
        }
        let n: u32 = t.parse().ok()?;
        Some(ComputeCapability::new(n / 10, n % 10))
    }

    /// The NVRTC/nvcc target: "sm_90".
    pub fn sm(self) -> String {
        format!("sm_{}{}", self.major, self.minor)
    }
}

impl fmt::Display for ComputeCapability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl FromStr for ComputeCapability {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        ComputeCapability::parse(s)
            .ok_or_else(|| format!("{s:?} is not a compute capability such as \"9.0\" or \"sm_90\""))
    }
}

impl Serialize for ComputeCapability {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ComputeCapability {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Serde form of a capability as two fields, `cc_major` and `cc_minor`, for
/// documents written before [`ComputeCapability`] existed (use with
/// `#[serde(flatten, with = "arch::cc_fields")]`).
pub mod cc_fields {
    use super::ComputeCapability;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    struct Fields {
        cc_major: u32,
        cc_minor: u32,
    }

    /// Writes `cc_major` and `cc_minor`.
    pub fn serialize<S: Serializer>(cc: &ComputeCapability, s: S) -> Result<S::Ok, S::Error> {
        Fields { cc_major: cc.major, cc_minor: cc.minor }.serialize(s)
    }

    /// Reads `cc_major` and `cc_minor`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ComputeCapability, D::Error> {
        let f = Fields::deserialize(d)?;
        Ok(ComputeCapability::new(f.cc_major, f.cc_minor))
    }
}
