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

use roofline_core::machine::Machine;
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
    Start {
        device: usize,
        name: String,
        total: usize,
    },
    Begin {
        id: String,
        label: String,
    },
    Done {
        id: String,
        summary: String,
    },
    Failed {
        id: String,
        error: String,
    },
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
            warnings.push(format!("{} other process(es) use this GPU: results may be low", i.other_processes));
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
    // Without cuBLASLt the tensor benchmarks are skipped, not failed.
    let cublaslt = tensor::check_cublaslt().map_err(|e| e.to_string());
    if let (Err(e), true) = (&cublaslt, specs.iter().any(|s| matches!(s.what, What::Tensor(_)))) {
        warnings.push(e.clone());
        on(Event::Warning(e.clone()));
    }
    for spec in &specs {
        if matches!(spec.what, What::Tensor(_)) && cublaslt.is_err() {
            on(Event::Done { id: spec.id.clone(), summary: format!("{}: skipped (no cuBLASLt)", spec.id) });
            continue;
        }
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
            Ok(None) => {
                on(Event::Done { id: spec.id.clone(), summary: format!("{}: not on this architecture", spec.id) })
            }
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

fn run_one(
    gpu: &mut run::Gpu,
    spec: &BenchSpec,
    cc: (u32, u32),
    sweeps: &mut Vec<Sweep>,
) -> Result<Option<BenchResult>, GpuError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::suite::Launch;
    use roofline_core::peaks::DeviceAttributes;
    use roofline_core::schema::{read_machine, MachineDocument, Producer};
    use roofline_core::stats::Spread;

    fn measurements() -> Measurements {
        let attrs = DeviceAttributes {
            name: "NVIDIA H200".into(),
            cc_major: 9,
            cc_minor: 0,
            sms: 132,
            clock_khz: 1_980_000,
            mem_clock_khz: 3_201_000,
            bus_width_bits: 6016,
            l2_bytes: Some(62_914_560),
            memory_bytes: Some(150_109_880_320),
            tensor_clock_khz: None,
            source: "test".into(),
            unconfirmed: vec![],
        };
        let r = BenchResult {
            id: "dram.read".into(),
            label: "DRAM read-only".into(),
            what: What::DramRead,
            unit: "B/s".into(),
            rate: Spread::from_samples(&[4.5e12, 4.6e12, 4.55e12]).unwrap(),
            run_medians: vec![4.55e12],
            seconds: Spread::from_samples(&[9.4e-4]).unwrap(),
            work_per_launch: 4.0 * (1u64 << 30) as f64,
            launch: Launch { grid: 264, block: 1024, width: Some(16), shared_bytes: None, unroll: Some(8) },
            size: "1 array of 4 GiB".into(),
            clock: Some(crate::nvml::ClockSummary {
                samples: 12,
                sm_mhz_median: 1980.0,
                sm_mhz_min: 1980.0,
                sm_mhz_max: 1980.0,
                mem_mhz_median: 3201.0,
                temp_c_max: Some(45),
                power_w_max: Some(500.0),
                throttle: vec![],
            }),
            method: "NVRTC sm_90 CUBIN, CUDA events".into(),
            verified: "exact".into(),
            search: vec![],
            wall_s: 0.2,
        };
        Measurements {
            device: DeviceInfo {
                ordinal: 0,
                name: "NVIDIA H200".into(),
                uuid: "GPU-00000000-0000-0000-0000-000000000000".into(),
                cuda_driver_version: "13.0".into(),
                attrs,
                total_memory_bytes: 150_109_880_320,
                max_shared_per_block_optin: 232_448,
                max_threads_per_sm: 2048,
            },
            nvml: None,
            nvrtc: "13.0".into(),
            arch: "sm_90".into(),
            config: SuiteConfig::new(true),
            results: vec![r],
            sweeps: vec![],
            failures: vec![Failure { id: "tensor.fp8".into(), error: "no algorithm".into() }],
            warnings: vec![],
            seconds: 4.2,
        }
    }

    #[test]
    fn machine_document_with_measurements_round_trips() {
        let m = measurements();
        let theo = crate::device::theoretical(&m.device).unwrap();
        let machine = machine::measured_machine(&theo, &m.results, &m.sweeps);
        let mut doc = MachineDocument::new(machine, Producer::new("roofline bench"));
        doc.measurements = Some(serde_json::to_value(&m).unwrap());
        let text = serde_json::to_string_pretty(&doc).unwrap();
        let back = read_machine(&text, "h200.json").unwrap();
        assert_eq!(back, doc);
        let again: Measurements = serde_json::from_value(back.measurements.unwrap()).unwrap();
        assert_eq!(again, m);
        let dram = back.machine.bandwidth_roof(roofline_core::MemLevel::Dram).unwrap();
        assert_eq!(dram.provenance.origin, roofline_core::Origin::Measured);
        assert_eq!(dram.clock.sm_mhz, Some(1980.0));
    }

    #[test]
    fn clock_below_maximum_and_throttling_are_warned() {
        let mut r = measurements().results.remove(0);
        assert!(clock_warnings(&r, Some(1980)).is_empty());
        if let Some(c) = r.clock.as_mut() {
            c.sm_mhz_median = 1755.0;
            c.throttle = vec!["software power cap".into()];
        }
        let w = clock_warnings(&r, Some(1980));
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("software power cap") && w[1].contains("1755 MHz"));
    }
}
