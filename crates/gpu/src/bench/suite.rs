//! The benchmark suite: which benchmarks run, at which sizes, and the
//! records they leave. Pure data, testable without a GPU.

use roofline_core::machine::{FlopKind, MemLevel};
use roofline_core::stats::Spread;
use serde::{Deserialize, Serialize};

use crate::nvml::ClockSummary;

/// What one benchmark measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum What {
    DramRead,
    DramWrite,
    DramCopy,
    DramTriad,
    DramAdd,
    L2Read,
    SharedRead,
    Fma(FlopKind),
    Tensor(FlopKind),
    Sweep(FlopKind),
}

impl What {
    /// The memory level a bandwidth benchmark bounds.
    pub fn level(self) -> Option<MemLevel> {
        match self {
            What::DramRead | What::DramWrite | What::DramCopy | What::DramTriad | What::DramAdd => Some(MemLevel::Dram),
            What::L2Read => Some(MemLevel::L2),
            What::SharedRead => Some(MemLevel::L1),
            _ => None,
        }
    }

    /// The arithmetic a compute benchmark bounds.
    pub fn kind(self) -> Option<FlopKind> {
        match self {
            What::Fma(k) | What::Tensor(k) | What::Sweep(k) => Some(k),
            _ => None,
        }
    }

    /// Bytes moved per element of 4 bytes, for the DRAM kernels (reads + writes).
    pub fn arrays_touched(self) -> u64 {
        match self {
            What::DramRead | What::DramWrite | What::L2Read | What::SharedRead => 1,
            What::DramCopy => 2,
            What::DramTriad | What::DramAdd => 3,
            _ => 0,
        }
    }
}

/// One benchmark of the suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchSpec {
    /// Stable identifier: "dram.copy", "fp32.fma", "tensor.bf16".
    pub id: String,
    /// What a reader sees: "DRAM copy (b = a)".
    pub label: String,
    pub what: What,
}

fn spec(id: &str, label: &str, what: What) -> BenchSpec {
    BenchSpec { id: id.into(), label: label.into(), what }
}

/// Sizes, repetitions and runs of a suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteConfig {
    pub quick: bool,
    /// Separate runs of each benchmark; the best run's median is reported.
    pub runs: usize,
    /// Timed launches per run.
    pub reps: usize,
    /// Untimed launches before the first run.
    pub warmup: usize,
    /// Bytes per DRAM array (many times the L2).
    pub dram_array_bytes: u64,
    /// FMA loop trips per thread (x 32 steps x 8 chains).
    pub fma_iters: u32,
    /// FMA iterations per element loaded, for the intensity sweep.
    pub sweep_iters: Vec<u32>,
    /// Elements per sweep array (FP32; FP64 uses half as many).
    pub sweep_elems: u64,
    /// M = N = K of the tensor-core GEMMs.
    pub gemm_n: u32,
    /// cuBLASLt algorithms tried per precision.
    pub gemm_algos: usize,
}

impl SuiteConfig {
    pub fn new(quick: bool) -> SuiteConfig {
        if quick {
            SuiteConfig {
                quick,
                runs: 2,
                reps: 5,
                warmup: 1,
                dram_array_bytes: 2 << 30,
                fma_iters: 512,
                sweep_iters: vec![1, 4, 16, 64, 256, 1024, 4096],
                sweep_elems: 1 << 25,
                gemm_n: 8192,
                gemm_algos: 3,
            }
        } else {
            SuiteConfig {
                quick,
                runs: 3,
                reps: 20,
                warmup: 2,
                dram_array_bytes: 4 << 30,
                fma_iters: 2048,
                sweep_iters: (0..=12).map(|p| 1u32 << p).collect(),
                sweep_elems: 1 << 26,
                gemm_n: 8192,
                gemm_algos: 8,
            }
        }
    }
}

/// The suite, in the order it runs.
pub fn suite() -> Vec<BenchSpec> {
    use FlopKind::*;
    vec![
        spec("dram.read", "DRAM read-only (sum of a)", What::DramRead),
        spec("dram.write", "DRAM write-only (a = f(i))", What::DramWrite),
        spec("dram.copy", "DRAM copy (b = a)", What::DramCopy),
        spec("dram.triad", "DRAM triad (a = b + s*c)", What::DramTriad),
        spec("dram.add", "DRAM add, seed 000 (c = a + b)", What::DramAdd),
        spec("l2.read", "L2 read (working set inside L2, ld.global.cg)", What::L2Read),
        spec("l1.shared", "L1/shared read (LDS.128)", What::SharedRead),
        spec("fp64.fma", "FP64 FMA", What::Fma(Fp64)),
        spec("fp32.fma", "FP32 FMA", What::Fma(Fp32)),
        spec("fp16.fma", "FP16 half2 FMA", What::Fma(Fp16)),
        spec("tensor.bf16", "BF16 tensor GEMM", What::Tensor(TensorBf16)),
        spec("tensor.fp16", "FP16 tensor GEMM", What::Tensor(TensorFp16)),
        spec("tensor.tf32", "TF32 tensor GEMM", What::Tensor(TensorTf32)),
        spec("tensor.fp8", "FP8 (e4m3) tensor GEMM", What::Tensor(TensorFp8)),
        spec("tensor.fp64", "FP64 tensor GEMM", What::Tensor(TensorFp64)),
        spec("sweep.fp32", "intensity sweep FP32", What::Sweep(Fp32)),
        spec("sweep.fp64", "intensity sweep FP64", What::Sweep(Fp64)),
    ]
}

/// Keeps the benchmarks whose id starts with one of `only` (all when empty);
/// an unknown name is an error listing the known ones.
pub fn select(all: Vec<BenchSpec>, only: &[String]) -> Result<Vec<BenchSpec>, String> {
    if only.is_empty() {
        return Ok(all);
    }
    for o in only {
        if !all.iter().any(|s| s.id.starts_with(o.as_str())) {
            let ids: Vec<&str> = all.iter().map(|s| s.id.as_str()).collect();
            return Err(format!("no benchmark matches '{o}'; known: {}", ids.join(", ")));
        }
    }
    Ok(all.into_iter().filter(|s| only.iter().any(|o| s.id.starts_with(o.as_str()))).collect())
}

/// How a kernel was launched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Launch {
    pub grid: u32,
    pub block: u32,
    /// Bytes per access per thread (4, 8, 16), where it applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_bytes: Option<u32>,
    /// Independent accesses per thread and loop trip, where searched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unroll: Option<u32>,
}

impl Launch {
    pub fn describe(&self) -> String {
        let mut s = format!("{} blocks x {} threads", self.grid, self.block);
        if let Some(w) = self.width {
            s.push_str(&format!(", {w}-byte accesses"));
        }
        if let Some(u) = self.unroll {
            s.push_str(&format!(", {u} in flight"));
        }
        if let Some(b) = self.shared_bytes {
            s.push_str(&format!(", {b} B shared"));
        }
        s
    }
}

/// The record of one benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchResult {
    pub id: String,
    pub label: String,
    pub what: What,
    /// "B/s" or "FLOP/s".
    pub unit: String,
    /// Rate of the best run: median, min, max over its timed launches.
    pub rate: Spread,
    /// The median rate of every run, in order.
    pub run_medians: Vec<f64>,
    /// Seconds per launch of the best run.
    pub seconds: Spread,
    /// Bytes or FLOPs per launch.
    pub work_per_launch: f64,
    pub launch: Launch,
    /// Problem size in words ("2 arrays of 1 GiB").
    pub size: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSummary>,
    /// How it was measured ("NVRTC sm_90 CUBIN", "cuBLASLt 13.0, algorithm 3 of 8").
    pub method: String,
    /// What was checked.
    pub verified: String,
    /// Launch shapes tried and their rates, when a search chose the shape.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub search: Vec<(String, f64)>,
    /// Wall-clock seconds the benchmark took, search and checks included.
    #[serde(default)]
    pub wall_s: f64,
}

/// Index of the run with the highest median rate.
pub fn best_run(runs: &[Spread]) -> Option<usize> {
    runs.iter().enumerate().max_by(|a, b| a.1.median.total_cmp(&b.1.median)).map(|(i, _)| i)
}

/// One point of the intensity sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    pub iters: u32,
    /// FLOP per byte of DRAM traffic (load + store).
    pub intensity: f64,
    pub flops_per_s: Spread,
    pub bytes_per_s: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_mhz: Option<f64>,
}

/// The empirical roofline of one precision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    pub kind: FlopKind,
    pub points: Vec<SweepPoint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ridge: Option<Ridge>,
}

/// Where the measured curve turns from bandwidth-bound to compute-bound.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ridge {
    /// The best bytes/s of the sweep (its memory-bound points).
    pub bandwidth: f64,
    /// The best FLOP/s of the sweep (its compute-bound points).
    pub peak: f64,
    /// peak / bandwidth: where the two measured roofs meet, FLOP/byte.
    pub intensity: f64,
    /// The lowest intensity measured that reaches 90% of the peak.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knee: Option<f64>,
}

/// Locates the measured ridge from (intensity, FLOP/s) points.
pub fn locate_ridge(points: &[(f64, f64)]) -> Option<Ridge> {
    let ok: Vec<(f64, f64)> = points.iter().copied().filter(|(i, f)| *i > 0.0 && *f > 0.0).collect();
    if ok.len() < 2 {
        return None;
    }
    let bandwidth = ok.iter().map(|(i, f)| f / i).fold(0.0, f64::max);
    let peak = ok.iter().map(|(_, f)| *f).fold(0.0, f64::max);
    let mut by_i = ok.clone();
    by_i.sort_by(|a, b| a.0.total_cmp(&b.0));
    let knee = by_i.iter().find(|(_, f)| *f >= 0.9 * peak).map(|(i, _)| *i);
    Some(Ridge { bandwidth, peak, intensity: peak / bandwidth, knee })
}

/// A benchmark that could not run or failed its check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub id: String,
    pub error: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_covers_every_level_and_precision_of_the_issue() {
        let s = suite();
        for id in [
            "dram.read",
            "dram.write",
            "dram.copy",
            "dram.triad",
            "dram.add",
            "l2.read",
            "l1.shared",
            "fp64.fma",
            "fp32.fma",
            "fp16.fma",
            "tensor.bf16",
            "tensor.fp16",
            "tensor.tf32",
            "tensor.fp8",
            "tensor.fp64",
            "sweep.fp32",
            "sweep.fp64",
        ] {
            assert!(s.iter().any(|b| b.id == id), "{id}");
        }
        let ids: std::collections::HashSet<_> = s.iter().map(|b| &b.id).collect();
        assert_eq!(ids.len(), s.len(), "ids are unique");
    }

    #[test]
    fn quick_is_smaller_than_full() {
        let (q, f) = (SuiteConfig::new(true), SuiteConfig::new(false));
        assert!(q.runs <= f.runs && q.reps <= f.reps && q.dram_array_bytes <= f.dram_array_bytes);
        assert_eq!(f.sweep_iters.first(), Some(&1));
        assert_eq!(f.sweep_iters.last(), Some(&4096));
        // DRAM arrays many times a 60 MB L2.
        assert!(q.dram_array_bytes >= 8 * 60_000_000);
    }

    #[test]
    fn select_by_prefix_and_unknown_names_listed() {
        let s = select(suite(), &["dram".into()]).unwrap();
        assert_eq!(s.len(), 5);
        let e = select(suite(), &["dramm".into()]).unwrap_err();
        assert!(e.contains("dram.read") && e.contains("'dramm'"), "{e}");
    }

    #[test]
    fn ridge_of_an_ideal_roofline() {
        // 1 TB/s and 10 TFLOP/s: ridge at 10 FLOP/B.
        let pts: Vec<(f64, f64)> =
            [0.25, 1.0, 4.0, 16.0, 64.0].iter().map(|&i: &f64| (i, (i * 1e12).min(1e13))).collect();
        let r = locate_ridge(&pts).unwrap();
        assert_eq!((r.bandwidth, r.peak), (1e12, 1e13));
        assert!((r.intensity - 10.0).abs() < 1e-9);
        assert_eq!(r.knee, Some(16.0));
        assert!(locate_ridge(&[(1.0, 1.0)]).is_none());
    }

    #[test]
    fn best_run_is_the_highest_median() {
        let a = Spread::from_samples(&[1.0, 2.0, 3.0]).unwrap();
        let b = Spread::from_samples(&[2.0, 2.5, 2.6]).unwrap();
        assert_eq!(best_run(&[a, b]), Some(1));
        assert_eq!(best_run(&[]), None);
    }

    #[test]
    fn result_round_trips_through_json() {
        let r = BenchResult {
            id: "dram.copy".into(),
            label: "DRAM copy".into(),
            what: What::DramCopy,
            unit: "B/s".into(),
            rate: Spread::from_samples(&[4.0e12, 4.1e12]).unwrap(),
            run_medians: vec![4.05e12],
            seconds: Spread::from_samples(&[5e-4]).unwrap(),
            work_per_launch: 2.0 * (1u64 << 30) as f64,
            launch: Launch { grid: 264, block: 1024, width: Some(16), shared_bytes: None, unroll: None },
            size: "2 arrays of 1 GiB".into(),
            clock: None,
            method: "NVRTC sm_90 CUBIN".into(),
            verified: "every element".into(),
            search: vec![("x".into(), 1.0)],
            wall_s: 0.5,
        };
        let t = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<BenchResult>(&t).unwrap(), r);
        assert!(t.contains("\"dram_copy\""));
    }
}
