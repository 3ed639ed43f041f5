//! [`run`]: the benchmark suite on one device, from opening a [`Session`] to
//! the measured machine; here because `bench/mod.rs` only declares and re-exports.

use std::time::{Duration, Instant};

use roofline_model::Machine;
use serde::{Deserialize, Serialize};

use super::progress::Event;
use super::runner::{self, Checks};
use super::suite::{self, BenchResult, Failure, SuiteConfig, Sweep, What};
use super::{gpu, machine, tensor};
use crate::device::{self, DeviceInfo};
use crate::error::GpuError;
use crate::nvml::{self, NvmlInfo};
use crate::session::Session;

/// What the caller chose.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The reduced suite (`--quick`): smaller arrays, fewer runs.
    pub quick: bool,
    /// Benchmark id prefixes to run ("dram", "tensor.bf16"); all when empty.
    pub only: Vec<String>,
}

/// Raw results: the `measurements` field of the machine document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measurements {
    /// The GPU's attributes as the driver reports them.
    pub device: DeviceInfo,
    /// NVML's facts and clock snapshot at the start; None without NVML.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvml: Option<NvmlInfo>,
    /// NVRTC version that compiled the kernels ("13.0").
    pub nvrtc: String,
    /// Architecture compiled for ("sm_90").
    pub arch: String,
    /// Sizes, repetitions and runs used.
    pub config: SuiteConfig,
    /// One record per benchmark that succeeded.
    pub results: Vec<BenchResult>,
    /// The intensity sweeps (the measured roofline per precision).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sweeps: Vec<Sweep>,
    /// Benchmarks that failed or could not run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<Failure>,
    /// What the reader should know about the run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Wall-clock seconds of the whole suite, compilation included.
    pub seconds: f64,
}

/// The measured machine and the records behind it.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The machine: its theoretical roofs with the measured ceilings added
    /// beside them (each ceiling says which).
    pub machine: Machine,
    /// The raw records behind it.
    pub measurements: Measurements,
}

/// Runs the suite on device `ordinal`: opens a [`Session`], compiles the
/// kernels, and hands the loop ([`runner::run_suite`]) the GPU executor.
pub fn run(ordinal: usize, opts: &Options, on: &mut dyn FnMut(Event)) -> Result<Outcome, GpuError> {
    let t0 = Instant::now();
    let gpus = device::device_count()?;
    let specs = suite::select(suite::suite_for(ordinal, gpus), &opts.only)?;
    let session = Session::open(ordinal)?;
    crate::nvrtc::check_nvrtc()?;
    let info = session.info().clone();
    let cfg = SuiteConfig::new(opts.quick);
    let mut warnings = Vec::new();
    let (nvml_info, sampler) = match nvml::init() {
        Ok(n) => {
            let i = nvml::info(&n, &info.uuid).map_err(|e| warnings.push(e)).ok();
            let s = nvml::Sampler::start(n, &info.uuid, Duration::from_millis(5), session.epoch())
                .map_err(|e| warnings.push(e))
                .ok();
            (i, s)
        }
        Err(e) => {
            warnings.push(e.to_string());
            (None, None)
        }
    };
    if let Some(i) = &nvml_info {
        if i.other_processes > 0 {
            warnings.push(format!("{} other process(es) use this GPU: results may be low", i.other_processes));
        }
    }
    // Without cuBLASLt the tensor benchmarks are skipped, not failed.
    let cublaslt = tensor::check_cublaslt();
    if let (Err(e), true) = (&cublaslt, specs.iter().any(|s| matches!(s.what, What::Tensor(_)))) {
        warnings.push(e.to_string());
    }
    for w in &warnings {
        on(Event::Warning(w.clone()));
    }
    on(Event::Start { device: ordinal, name: info.name.clone(), total: specs.len() });
    let mut theoretical = device::theoretical(&info)?;
    if specs.iter().any(|s| matches!(s.what, What::Link(_))) {
        // The wires bound the link figures (plausibility) and are shown beside them.
        let (roofs, link_warnings) = device::link_roofs(ordinal);
        theoretical.ceilings.extend(roofs);
        warnings.extend(link_warnings);
    }
    let mut exec = gpu::GpuExecutor::new(session, sampler, cublaslt.is_ok(), gpus)?;
    let arch = exec.session().arch().to_string();
    let max_sm = nvml_info.as_ref().map(|n| n.max_sm_mhz as f64);
    let report =
        runner::run_suite(&mut exec, &specs, &cfg, Checks { theoretical: &theoretical, max_sm_mhz: max_sm }, on);
    warnings.extend(report.warnings);
    let mut machine = machine::measured_machine(&theoretical, &report.results, &report.sweeps);
    for (id, why) in &report.skipped {
        machine.notes.push(format!("benchmark {id} not measured: {why}"));
    }
    if let Some(n) = &nvml_info {
        machine.gpu.driver = Some(format!("{} (CUDA {})", n.driver_version, info.cuda_driver_version));
    } else {
        machine.notes.push("NVML not available: the clocks the benchmarks ran at are unknown".into());
    }
    machine.notes.extend(warnings.iter().cloned());
    for f in &report.failures {
        machine.notes.push(format!("benchmark {} failed: {}", f.id, f.error));
    }
    let measurements = Measurements {
        device: info,
        nvml: nvml_info,
        nvrtc: crate::nvrtc::version().unwrap_or_default(),
        arch,
        config: cfg,
        results: report.results,
        sweeps: report.sweeps,
        failures: report.failures,
        warnings,
        seconds: t0.elapsed().as_secs_f64(),
    };
    Ok(Outcome { machine, measurements })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::runner::clock_warnings;
    use crate::bench::suite::LaunchShape;
    use roofline_documents::{read_machine, MachineDocument, Producer};
    use roofline_hw::DeviceAttributes;
    use roofline_model::ComputeCapability;
    use roofline_model::Spread;
    use roofline_model::Unit;

    fn measurements() -> Measurements {
        let attrs = DeviceAttributes {
            name: "NVIDIA H200".into(),
            cc: ComputeCapability::new(9, 0),
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
            unit: Unit::BytePerSecond,
            rate: Spread::from_samples(&[4.5e12, 4.6e12, 4.55e12]).unwrap(),
            run_medians: vec![4.55e12],
            seconds: Spread::from_samples(&[9.4e-4]).unwrap(),
            work_per_launch: 4.0 * (1u64 << 30) as f64,
            launch: LaunchShape { width: Some(16), unroll: Some(8), ..LaunchShape::new(264, 1024) },
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
            curve: None,
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
        let dram = back.machine.bandwidth_roof(roofline_model::MemLevel::Dram).unwrap();
        assert_eq!(dram.provenance.origin, roofline_model::Origin::Measured);
        assert_eq!(dram.clock.sm_mhz, Some(1980.0));
    }

    /// On a GPU: the instruction benchmarks and L2 writes run, pass their
    /// checks, and leave measured instruction roofs with spread and clock.
    #[test]
    fn live_instruction_benchmarks_leave_checked_roofs() {
        if crate::device::device_count().is_err() {
            crate::skip_notice("no GPU; the instruction benchmarks were not run");
            return;
        }
        let only = ["int", "sfu", "shared", "atomic", "lsu", "l2.write"].map(String::from).to_vec();
        let out = run(0, &Options { quick: true, only }, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
        let m = &out.measurements;
        assert!(m.failures.is_empty(), "{:?}", m.failures);
        assert_eq!(m.results.len(), 15, "{:?}", m.results.iter().map(|r| &r.id).collect::<Vec<_>>());
        for r in &m.results {
            assert!(r.curve.as_ref().is_some_and(|c| c.points.len() >= 4), "{} has its sweep", r.id);
            assert!(!r.verified.is_empty());
        }
        use roofline_model::{Pipe, Resource};
        for p in [Pipe::Alu, Pipe::Fma, Pipe::Xu, Pipe::Shared, Pipe::GlobalAtomic, Pipe::SharedAtomic, Pipe::Lsu] {
            let c = out.machine.roof(Resource::Instruction(p)).unwrap_or_else(|| panic!("{p:?}"));
            assert_eq!(c.provenance.origin, roofline_model::Origin::Measured, "{p:?}");
            assert!(c.spread.is_some(), "{p:?}");
        }
    }

    /// On any GPU: host to device and back run, pass their checks and leave
    /// measured host-link roofs beside the PCIe bound; on two or more GPUs
    /// the peer copies and (with NCCL) the collectives too.
    #[test]
    fn live_link_benchmarks_leave_checked_roofs() {
        use roofline_model::Resource;
        use roofline_model::{Engine, Link};
        let Ok(n) = crate::device::device_count() else {
            crate::skip_notice("no GPU; the link benchmarks were not run");
            return;
        };
        let out =
            run(0, &Options { quick: true, only: vec!["link".into()] }, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
        let m = &out.measurements;
        assert!(m.failures.is_empty(), "{:?}", m.failures);
        for l in [Link::HostToDevice { gpu: 0 }, Link::DeviceToHost { gpu: 0 }] {
            let c = out.machine.roof(Resource::Link(l)).unwrap_or_else(|| panic!("{l}"));
            assert_eq!(c.provenance.origin, roofline_model::Origin::Measured);
            assert!(c.spread.is_some());
        }
        if n < 2 {
            crate::skip_notice(&format!(
                "needs 2 GPUs: this machine has {n}; the peer and NCCL benchmarks were not run"
            ));
            assert!(
                out.machine.notes.iter().any(|x| x.contains("needs 2 GPUs: this machine has 1")),
                "{:?}",
                out.machine.notes
            );
            return;
        }
        for engine in [Engine::CopyEngine, Engine::Sm] {
            let l = Link::Peer { from: 0, to: 1, engine, both_ways: false };
            assert!(out.machine.roof(Resource::Link(l)).is_some(), "{l}");
        }
        let nccl = m.results.iter().filter(|r| r.id.starts_with("link.nccl")).count();
        if nccl == 0 {
            crate::skip_notice("NCCL not found: the collective benchmarks were not run");
        } else {
            assert_eq!(nccl, 3);
        }
    }

    #[test]
    fn clock_below_maximum_and_throttling_are_warned() {
        let mut r = measurements().results.remove(0);
        assert!(clock_warnings(&r, Some(1980.0)).is_empty());
        if let Some(c) = r.clock.as_mut() {
            c.sm_mhz_median = 1755.0;
            c.throttle = vec!["software power cap".into()];
        }
        let w = clock_warnings(&r, Some(1980.0));
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("software power cap") && w[1].contains("1755 MHz"));
    }
}
