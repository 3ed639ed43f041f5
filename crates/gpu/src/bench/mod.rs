//! `roofline bench`: micro-benchmarks that measure the roofs of the GPU in
//! hand, because a datasheet's figure is what the hardware could do and a
//! streaming kernel's is what a kernel can get (seed 004).
//!
//! [`suite`] defines the benchmarks and their records, [`verify`] what each
//! output must be, [`search`] the launch-shape choice, `run` and `tensor`
//! the timing on the GPU, and [`machine`] the measured machine. [`run`]
//! ties them together for one device.

pub mod machine;
pub(crate) mod run;
pub mod search;
pub mod suite;
pub mod tensor;
pub mod verify;

use std::time::{Duration, Instant};

use roofline_core::machine::{FlopKind, Machine};
use serde::{Deserialize, Serialize};

use crate::device::{self, DeviceInfo};
use crate::error::GpuError;
use crate::nvml::{self, NvmlInfo};
use suite::{BenchResult, BenchSpec, Failure, SuiteConfig, Sweep, What};

/// What the caller chose.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub quick: bool,
    /// Benchmark id prefixes to run ("dram", "tensor.bf16"); all when empty.
    pub only: Vec<String>,
}

/// Progress, for a progress bar.
#[derive(Debug, Clone)]
pub enum Event {
    /// The suite is about to run `total` benchmarks on a device.
    Start { device: usize, name: String, total: usize },
    Begin { id: String, label: String },
    Done { id: String, summary: String },
    Failed { id: String, error: String },
    Warning(String),
}

/// Raw results: the `measurements` field of the machine document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measurements {
    pub device: DeviceInfo,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvml: Option<NvmlInfo>,
    pub nvrtc: String,
    pub arch: String,
    pub config: SuiteConfig,
    pub results: Vec<BenchResult>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sweeps: Vec<Sweep>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<Failure>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Wall-clock seconds of the whole suite, compilation included.
    pub seconds: f64,
}

/// The measured machine and the records behind it.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub machine: Machine,
    pub measurements: Measurements,
}

fn summary(r: &BenchResult) -> String {
    use roofline_core::units::{format_si, Unit};
    let unit = if r.unit == "B/s" { Unit::BytePerSecond } else { Unit::FlopPerSecond };
    let clock = r.clock.as_ref().map(|c| format!(" at SM {:.0} MHz", c.sm_mhz_median)).unwrap_or_default();
    format!(
        "{}: {} (min {}, max {}){clock}",
        r.id,
        format_si(r.rate.median, unit),
        format_si(r.rate.min, unit),
        format_si(r.rate.max, unit)
    )
}

/// Warnings about the clocks a result ran at.
pub fn clock_warnings(r: &BenchResult, max_sm_mhz: Option<u32>) -> Vec<String> {
    let mut w = Vec::new();
    let Some(c) = &r.clock else { return w };
    if !c.throttle.is_empty() {
        w.push(format!("{}: the GPU throttled during the measurement ({})", r.id, c.throttle.join(", ")));
    }
    if let Some(max) = max_sm_mhz {
        if c.sm_mhz_median < 0.97 * max as f64 {
            w.push(format!(
                "{}: ran at SM {:.0} MHz, below the maximum {} MHz: the figure is for that clock",
                r.id, c.sm_mhz_median, max
            ));
        }
    }
    w
}

/// Runs the suite on device `ordinal`.
pub fn run(ordinal: usize, opts: &Options, on: &mut dyn FnMut(Event)) -> Result<Outcome, GpuError> {
    let t0 = Instant::now();
    let info = device::query(ordinal)?;
    crate::nvrtc::check_nvrtc()?;
    let specs = suite::select(suite::suite(), &opts.only).map_err(GpuError::Other)?;
    let cfg = SuiteConfig::new(opts.quick);
    let mut warnings = Vec::new();
    let (nvml_info, sampler) = match nvml::init() {
        Ok(n) => {
            let i = nvml::info(&n, &info.uuid).map_err(|e| warnings.push(e)).ok();
            let s = nvml::Sampler::start(n, &info.uuid, Duration::from_millis(5)).map_err(|e| warnings.push(e)).ok();
            (i, s)
        }
        Err(e) => {
            warnings.push(e);
            (None, None)
        }
    };
    if let Some(i) = &nvml_info {
        if i.other_processes > 0 {
            warnings.push(format!(
                "{} other process(es) use this GPU: results may be low",
                i.other_processes
            ));
        }
    }
    for w in &warnings {
        on(Event::Warning(w.clone()));
    }
    on(Event::Start { device: ordinal, name: info.name.clone(), total: specs.len() });
    let theoretical = device::theoretical(&info)?;
    let ctx = device::open(ordinal)?;
    let mut gpu = run::Gpu::new(ctx, info.clone(), cfg.clone(), sampler)?;
    let max_sm = nvml_info.as_ref().map(|n| n.max_sm_mhz);
    let mut results = Vec::new();
    let mut sweeps = Vec::new();
    let mut failures = Vec::new();
    let cc = (info.attrs.cc_major, info.attrs.cc_minor);
    for spec in &specs {
        on(Event::Begin { id: spec.id.clone(), label: spec.label.clone() });
        let started = Instant::now();
        let r = run_one(&mut gpu, spec, cc, &mut sweeps).and_then(|o| match o {
            Some(mut r) => {
                r.wall_s = started.elapsed().as_secs_f64();
                machine::plausible(&r, &theoretical, max_sm.map(f64::from))
                    .map_err(|detail| GpuError::Verification { bench: r.id.clone(), detail })?;
                Ok(Some(r))
            }
            None => Ok(None),
        });
        match r {
            Ok(Some(r)) => {
                on(Event::Done { id: spec.id.clone(), summary: summary(&r) });
                for w in clock_warnings(&r, max_sm) {
                    warnings.push(w.clone());
                    on(Event::Warning(w));
                }
                results.push(r);
            }
            Ok(None) => on(Event::Done { id: spec.id.clone(), summary: format!("{}: not on this architecture", spec.id) }),
            Err(e) => {
                let error = e.to_string();
                on(Event::Failed { id: spec.id.clone(), error: error.clone() });
                failures.push(Failure { id: spec.id.clone(), error });
                if matches!(e, GpuError::OutOfMemory { .. }) {
                    // Free what the failed benchmark held before the next one.
                    let _ = gpu.sync();
                }
            }
        }
    }
    for w in gpu.warnings.drain(..) {
        on(Event::Warning(w.clone()));
        warnings.push(w);
    }
    let mut machine = machine::measured_machine(&theoretical, &results, &sweeps);
    if let Some(n) = &nvml_info {
        machine.gpu.driver = Some(format!("{} (CUDA {})", n.driver_version, info.cuda_driver_version));
    } else {
        machine.notes.push("NVML not available: the clocks the benchmarks ran at are unknown".into());
    }
    machine.notes.extend(warnings.iter().cloned());
    for f in &failures {
        machine.notes.push(format!("benchmark {} failed: {}", f.id, f.error));
    }
    let measurements = Measurements {
        device: info,
        nvml: nvml_info,
        nvrtc: crate::nvrtc::version().unwrap_or_default(),
        arch: gpu.arch.clone(),
        config: cfg,
        results,
        sweeps,
        failures,
        warnings,
        seconds: t0.elapsed().as_secs_f64(),
    };
    Ok(Outcome { machine, measurements })
}

fn run_one(gpu: &mut run::Gpu, spec: &BenchSpec, cc: (u32, u32), sweeps: &mut Vec<Sweep>) -> Result<Option<BenchResult>, GpuError> {
    Ok(Some(match spec.what {
        What::DramRead | What::DramWrite | What::DramCopy | What::DramTriad | What::DramAdd => gpu.dram(spec)?,
        What::L2Read => gpu.l2(spec)?,
        What::SharedRead => gpu.shared(spec)?,
        What::Fma(k) => gpu.fma(spec, k)?,
        What::Tensor(k) => {
            if !tensor::available(cc, k) {
                return Ok(None);
            }
            gpu.tensor(spec, k)?
        }
        What::Sweep(k) => {
            let (r, s) = gpu.sweep(spec, k)?;
            sweeps.push(s);
            r
        }
    }))
}

/// The kinds the suite measures, for callers that list them.
pub fn measured_kinds() -> Vec<FlopKind> {
    let mut v: Vec<FlopKind> = suite::suite().iter().filter_map(|s| s.what.kind()).collect();
    v.sort();
    v.dedup();
    v
}
