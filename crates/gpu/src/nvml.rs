//! Clocks, temperature, power and throttling through NVML, loaded at run time.
//!
//! A measured roof means little without the clock it ran at: a GPU that
//! throttled for power during a benchmark reports a lower figure than it can
//! reach. A [`Sampler`] thread reads the SM and memory clocks every few
//! milliseconds for the whole run; each measurement then takes the samples of
//! its own time window ([`summarize`]). Without NVML the benchmarks still run
//! and their clocks are reported as unknown.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};
use nvml_wrapper::Nvml;
pub use roofline_documents::ClockSummary;
use serde::{Deserialize, Serialize};

use roofline_hw::{nvlink_bytes_per_s, GpuLinks, NvLinks, Pcie};

use crate::error::GpuError;

/// One reading.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Seconds since the sampler started.
    pub t: f64,
    /// SM clock, MHz.
    pub sm_mhz: u32,
    /// Memory clock, MHz.
    pub mem_mhz: u32,
    /// GPU temperature, °C, when NVML reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temp_c: Option<u32>,
    /// Board power draw, W, when NVML reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_w: Option<f64>,
    /// NVML clock-event (throttle) reason bits.
    pub throttle: u64,
}

/// NVML's throttle reason bits and their names.
pub const THROTTLE_REASONS: &[(u64, &str)] = &[
    (0x1, "GPU idle"),
    (0x2, "application clocks setting"),
    (0x4, "software power cap"),
    (0x8, "hardware slowdown"),
    (0x10, "sync boost"),
    (0x20, "software thermal slowdown"),
    (0x40, "hardware thermal slowdown"),
    (0x80, "hardware power brake"),
    (0x100, "display clock setting"),
];

/// Reasons that lower the clock under load (idle and settings excluded).
const SLOWDOWN_MASK: u64 = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;

/// Names of the slowdown reasons set in `bits`.
pub fn throttle_names(bits: u64) -> Vec<String> {
    THROTTLE_REASONS.iter().filter(|(b, _)| bits & b & SLOWDOWN_MASK != 0).map(|(_, n)| n.to_string()).collect()
}

/// The median of `v` (NaN for none), as `roofline_model::Spread` computes it.
fn median(v: &[f64]) -> f64 {
    roofline_model::Spread::from_samples(v).map_or(f64::NAN, |s| s.median)
}

/// Summarises the samples; `None` when there are none.
pub fn summarize(samples: &[Sample]) -> Option<ClockSummary> {
    if samples.is_empty() {
        return None;
    }
    let sm: Vec<f64> = samples.iter().map(|s| s.sm_mhz as f64).collect();
    let mem: Vec<f64> = samples.iter().map(|s| s.mem_mhz as f64).collect();
    let bits = samples.iter().fold(0, |a, s| a | s.throttle);
    Some(ClockSummary {
        samples: samples.len(),
        sm_mhz_min: sm.iter().cloned().fold(f64::INFINITY, f64::min),
        sm_mhz_max: sm.iter().cloned().fold(0.0, f64::max),
        sm_mhz_median: median(&sm),
        mem_mhz_median: median(&mem),
        temp_c_max: samples.iter().filter_map(|s| s.temp_c).max(),
        power_w_max: samples.iter().filter_map(|s| s.power_w).reduce(f64::max),
        throttle: throttle_names(bits),
    })
}

/// Static facts and a snapshot of one GPU through NVML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NvmlInfo {
    /// Driver version ("580.65.06").
    pub driver_version: String,
    /// Highest SM clock the GPU supports, MHz.
    pub max_sm_mhz: u32,
    /// Highest memory clock, MHz.
    pub max_mem_mhz: u32,
    /// SM clock at the snapshot, MHz.
    pub sm_mhz: u32,
    /// Memory clock at the snapshot, MHz.
    pub mem_mhz: u32,
    /// GPU temperature at the snapshot, °C.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temp_c: Option<u32>,
    /// Board power draw at the snapshot, W.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_w: Option<f64>,
    /// Slowdown reasons active at the snapshot.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub throttle: Vec<String>,
    /// Compute processes on the GPU other than this one.
    pub other_processes: usize,
}

/// NVML, if it can be loaded; [`GpuError::NoNvml`] says why not.
pub fn init() -> Result<Arc<Nvml>, GpuError> {
    Nvml::init().map(Arc::new).map_err(|e| GpuError::NoNvml { detail: e.to_string() })
}

/// A snapshot of the GPU with this UUID.
pub fn info(nvml: &Nvml, uuid: &str) -> Result<NvmlInfo, String> {
    let d = nvml.device_by_uuid(uuid).map_err(|e| format!("NVML does not know {uuid}: {e}"))?;
    let me = std::process::id();
    let others = d.running_compute_processes().map(|ps| ps.iter().filter(|p| p.pid != me).count()).unwrap_or(0);
    Ok(NvmlInfo {
        driver_version: nvml.sys_driver_version().unwrap_or_default(),
        max_sm_mhz: d.max_clock_info(Clock::SM).map_err(|e| format!("NVML max SM clock: {e}"))?,
        max_mem_mhz: d.max_clock_info(Clock::Memory).map_err(|e| format!("NVML max memory clock: {e}"))?,
        sm_mhz: d.clock_info(Clock::SM).map_err(|e| format!("NVML SM clock: {e}"))?,
        mem_mhz: d.clock_info(Clock::Memory).map_err(|e| format!("NVML memory clock: {e}"))?,
        temp_c: d.temperature(TemperatureSensor::Gpu).ok(),
        power_w: d.power_usage().ok().map(|mw| mw as f64 / 1e3),
        throttle: d.current_throttle_reasons().map(|r| throttle_names(r.bits())).unwrap_or_default(),
        other_processes: others,
    })
}

/// NVML's `NVML_NVLINK_MAX_LINKS`: links per GPU to ask about.
const NVLINK_MAX_LINKS: u32 = 18;

/// The links of the GPUs with these UUIDs, in CUDA order (index = CUDA
/// ordinal): each one's PCIe link at its maximum generation and width, and
/// its active NVLinks with where they lead (another GPU of the list, found
/// by PCI bus id, or anything else: an NVSwitch). Links NVML cannot read are
/// left out, with a sentence in the second list.
pub fn link_facts(nvml: &Nvml, uuids: &[String]) -> (Vec<GpuLinks>, Vec<String>) {
    let mut warnings = Vec::new();
    let devices: Vec<Option<nvml_wrapper::Device<'_>>> = uuids
        .iter()
        .map(|u| {
            nvml.device_by_uuid(u.as_str()).map_err(|e| warnings.push(format!("NVML does not know {u}: {e}"))).ok()
        })
        .collect();
    let bus = |b: &str| b.trim().to_ascii_lowercase().trim_start_matches("0000").to_string();
    let bus_ids: Vec<Option<String>> =
        devices.iter().map(|d| d.as_ref().and_then(|d| d.pci_info().ok()).map(|p| bus(&p.bus_id))).collect();
    let mut out = Vec::new();
    for (i, d) in devices.iter().enumerate() {
        let Some(d) = d else { continue };
        let gpu = i as u8;
        let pcie = match (d.max_pcie_link_gen(), d.max_pcie_link_width()) {
            (Ok(generation), Ok(lanes)) => Some(Pcie { generation, lanes }),
            _ => None,
        };
        let mut nv = NvLinks::default();
        for l in 0..NVLINK_MAX_LINKS {
            let link = d.link_wrapper_for(l);
            if !link.is_active().unwrap_or(false) {
                continue;
            }
            nv.active += 1;
            if nv.version == 0 {
                // NVML answers an enum code (6 = NVLink 4.0), not the generation.
                let code = link.version().unwrap_or(0);
                nv.version = roofline_hw::nvlink_generation_from_nvml(code).unwrap_or(0);
                if nv.version == 0 {
                    warnings.push(format!("GPU {i}: NVML's NVLink version code {code} is not one the tool knows"));
                }
            }
            let remote = link.remote_pci_info().ok().map(|p| bus(&p.bus_id));
            match remote.and_then(|r| bus_ids.iter().position(|b| b.as_deref() == Some(r.as_str()))) {
                Some(peer) if peer != i => *nv.to_gpu.entry(peer as u8).or_insert(0) += 1,
                _ => nv.to_switch += 1,
            }
        }
        if nv.active > 0 && nvlink_bytes_per_s(nv.version).is_none() {
            warnings.push(format!(
                "GPU {i}: NVLink version {} is not in the tool's table: no theoretical NVLink roof",
                nv.version
            ));
        }
        out.push(GpuLinks { gpu, pcie, nvlink: (nv.active > 0).then_some(nv) });
    }
    (out, warnings)
}

/// A thread reading one GPU's clocks every `period` until dropped.
pub struct Sampler {
    start: Instant,
    stop: Arc<AtomicBool>,
    samples: Arc<Mutex<Vec<Sample>>>,
    handle: Option<JoinHandle<()>>,
}

impl Sampler {
    /// Starts sampling; sample times count from `start` (a session's epoch,
    /// so that they line up with its timing windows).
    pub fn start(nvml: Arc<Nvml>, uuid: &str, period: Duration, start: Instant) -> Result<Sampler, String> {
        nvml.device_by_uuid(uuid).map_err(|e| format!("NVML does not know {uuid}: {e}"))?;
        let stop = Arc::new(AtomicBool::new(false));
        let samples = Arc::new(Mutex::new(Vec::new()));
        let (stop2, samples2, uuid) = (stop.clone(), samples.clone(), uuid.to_string());
        let handle = std::thread::spawn(move || {
            let Ok(d) = nvml.device_by_uuid(uuid.as_str()) else { return };
            while !stop2.load(Ordering::Relaxed) {
                let t = start.elapsed().as_secs_f64();
                if let (Ok(sm), Ok(mem)) = (d.clock_info(Clock::SM), d.clock_info(Clock::Memory)) {
                    let s = Sample {
                        t,
                        sm_mhz: sm,
                        mem_mhz: mem,
                        temp_c: d.temperature(TemperatureSensor::Gpu).ok(),
                        power_w: d.power_usage().ok().map(|mw| mw as f64 / 1e3),
                        throttle: d.current_throttle_reasons().map(|r| r.bits()).unwrap_or(0),
                    };
                    if let Ok(mut v) = samples2.lock() {
                        v.push(s);
                    }
                }
                std::thread::sleep(period);
            }
        });
        Ok(Sampler { start, stop, samples, handle: Some(handle) })
    }

    /// Seconds since the sampler started, to mark a window.
    pub fn now(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// The samples taken between `from` and `to` (seconds from [`Sampler::now`]);
    /// when the window was shorter than one period, the sample nearest to it.
    pub fn window(&self, from: f64, to: f64) -> Vec<Sample> {
        let v = self.samples.lock().map(|v| v.clone()).unwrap_or_default();
        window_of(&v, from, to)
    }
}

/// The samples of `[from, to]`, or the one nearest the window's middle.
pub fn window_of(v: &[Sample], from: f64, to: f64) -> Vec<Sample> {
    let inside: Vec<Sample> = v.iter().copied().filter(|s| s.t >= from && s.t <= to).collect();
    if !inside.is_empty() {
        return inside;
    }
    let mid = (from + to) / 2.0;
    v.iter().copied().min_by(|a, b| (a.t - mid).abs().total_cmp(&(b.t - mid).abs())).into_iter().collect()
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: f64, sm: u32, throttle: u64) -> Sample {
        Sample { t, sm_mhz: sm, mem_mhz: 3201, temp_c: Some(40), power_w: Some(300.0), throttle }
    }

    #[test]
    fn summary_takes_median_and_names_slowdowns() {
        let v = [s(0.0, 1980, 0), s(0.1, 1755, 0x4), s(0.2, 1980, 0x1)];
        let c = summarize(&v).unwrap();
        assert_eq!((c.sm_mhz_median, c.sm_mhz_min, c.sm_mhz_max), (1980.0, 1755.0, 1980.0));
        assert_eq!(c.throttle, vec!["software power cap".to_string()]);
        assert!(summarize(&[]).is_none());
    }

    #[test]
    fn short_window_takes_nearest_sample() {
        let v = [s(0.0, 1000, 0), s(1.0, 2000, 0)];
        assert_eq!(window_of(&v, 0.8, 0.81)[0].sm_mhz, 2000);
        assert_eq!(window_of(&v, -1.0, 2.0).len(), 2);
    }

    #[test]
    fn nvml_missing_is_a_message() {
        match init() {
            Ok(_) => crate::skip_notice("NVML is present; the missing-NVML message is not exercised"),
            Err(e) => assert!(e.to_string().contains("clocks they ran at are unknown"), "{e}"),
        }
    }
}
