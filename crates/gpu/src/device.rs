//! The GPUs of this machine, as the CUDA driver (loaded at run time) sees them.
//!
//! The driver library is looked for before any call into it: cudarc panics
//! when a dynamically loaded library is missing, and a machine without a GPU
//! is a normal state for this tool. Attributes are read with
//! `cuDeviceGetAttribute` (CUDA 13 dropped `cudaDeviceProp.clockRate`, but
//! the `CLOCK_RATE` and `MEMORY_CLOCK_RATE` attributes remain) and turned into
//! [`DeviceAttributes`], from which `roofline-core` computes the theoretical
//! roofs exactly as it does for a GPU of the built-in table.

use std::sync::{Arc, OnceLock};

use cudarc::driver::{result, sys, CudaContext, DriverError};
use roofline_hw::{theoretical_machine, DeviceAttributes};
use roofline_model::ComputeCapability;
use roofline_model::Machine;
use serde::{Deserialize, Serialize};

use crate::error::GpuError;

/// What the driver says about one GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// CUDA ordinal.
    pub ordinal: usize,
    /// Product name ("NVIDIA H200").
    pub name: String,
    /// "GPU-xxxxxxxx-...", the form NVML and nvidia-smi use.
    pub uuid: String,
    /// "13.0", from `cuDriverGetVersion`.
    pub cuda_driver_version: String,
    /// The attributes the theoretical peaks are computed from (SMs, clocks,
    /// bus width, compute capability, ...).
    pub attrs: DeviceAttributes,
    /// Device memory, bytes (`cuDeviceTotalMem`).
    pub total_memory_bytes: u64,
    /// Most shared memory one block can opt in to, bytes.
    pub max_shared_per_block_optin: u32,
    /// Most resident threads per SM.
    pub max_threads_per_sm: u32,
}

impl DeviceInfo {
    /// "sm_90" (or "sm_90a" when `arch_specific`).
    pub fn sm_arch(&self, arch_specific: bool) -> String {
        let a = if arch_specific && roofline_hw::arch_or_older(self.attrs.cc).features.arch_specific_target {
            "a"
        } else {
            ""
        };
        format!("{}{a}", self.attrs.cc.sm())
    }

    /// The compute capability.
    pub fn cc(&self) -> ComputeCapability {
        self.attrs.cc
    }
}

/// `Err(None)`: no driver library; `Err(Some(e))`: cuInit failed.
static INIT: OnceLock<Result<(), Option<DriverError>>> = OnceLock::new();

/// Loads and initialises the driver once; `Err` if absent or broken.
pub fn check_driver() -> Result<(), GpuError> {
    let r = INIT.get_or_init(|| {
        // SAFETY: only tries to dlopen the library; calls nothing in it.
        if !unsafe { sys::is_culib_present() } {
            return Err(None);
        }
        result::init().map_err(Some)
    });
    match r {
        Ok(()) => Ok(()),
        Err(None) => Err(GpuError::NoDriver),
        Err(Some(e)) => Err(GpuError::driver("cuInit", *e)),
    }
}

/// How many GPUs the driver sees; an error when there are none.
pub fn device_count() -> Result<usize, GpuError> {
    check_driver()?;
    let n = result::device::get_count().map_err(|e| GpuError::driver("cuDeviceGetCount", e))?;
    if n <= 0 {
        return Err(GpuError::NoDevice("cuDeviceGetCount returned 0".into()));
    }
    Ok(n as usize)
}

/// Checks `index` against the devices present.
pub fn check_index(index: usize) -> Result<(), GpuError> {
    let count = device_count()?;
    if index >= count {
        return Err(GpuError::DeviceOutOfRange { index, count });
    }
    Ok(())
}

fn attr(dev: sys::CUdevice, a: sys::CUdevice_attribute) -> Result<i32, GpuError> {
    // SAFETY: `dev` comes from cuDeviceGet after a successful cuInit.
    unsafe { result::device::get_attribute(dev, a) }.map_err(|e| GpuError::driver(format!("attribute {a:?}"), e))
}

/// Formats the driver's 16-byte UUID the way NVML and nvidia-smi print it.
pub fn format_uuid(bytes: &[u8; 16]) -> String {
    let h: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("GPU-{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}

/// "13.0" from the driver's 13000.
pub fn format_cuda_version(v: i32) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

/// Reads one GPU's attributes.
pub fn query(ordinal: usize) -> Result<DeviceInfo, GpuError> {
    check_index(ordinal)?;
    use sys::CUdevice_attribute::*;
    let dev = result::device::get(ordinal as i32).map_err(|e| GpuError::driver("cuDeviceGet", e))?;
    let name = result::device::get_name(dev).map_err(|e| GpuError::driver("cuDeviceGetName", e))?;
    let uuid = result::device::get_uuid(dev).map_err(|e| GpuError::driver("cuDeviceGetUuid", e))?;
    let uuid = format_uuid(&uuid.bytes.map(|c| c as u8));
    let mut version = 0i32;
    // SAFETY: writes one int.
    unsafe { sys::cuDriverGetVersion(&mut version) }.result().map_err(|e| GpuError::driver("cuDriverGetVersion", e))?;
    // SAFETY: as for `attr`.
    let total = unsafe { result::device::total_mem(dev) }.map_err(|e| GpuError::driver("cuDeviceTotalMem", e))?;
    let attrs = DeviceAttributes {
        name: name.clone(),
        cc: ComputeCapability::new(
            attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)? as u32,
            attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)? as u32,
        ),
        sms: attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
        clock_khz: attr(dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE)? as u32,
        mem_clock_khz: attr(dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)? as u32,
        bus_width_bits: attr(dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)? as u32,
        l2_bytes: Some(attr(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as u64),
        memory_bytes: Some(total as u64),
        tensor_clock_khz: None,
        source: format!("CUDA driver {}, device {ordinal}", format_cuda_version(version)),
        unconfirmed: Vec::new(),
    };
    Ok(DeviceInfo {
        ordinal,
        name,
        uuid,
        cuda_driver_version: format_cuda_version(version),
        attrs,
        total_memory_bytes: total as u64,
        max_shared_per_block_optin: attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)? as u32,
        max_threads_per_sm: attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)? as u32,
    })
}

/// Every GPU the driver sees.
pub fn query_all() -> Result<Vec<DeviceInfo>, GpuError> {
    (0..device_count()?).map(query).collect()
}

/// The theoretical roofs of a live GPU, with its facts filled in.
pub fn theoretical(info: &DeviceInfo) -> Result<Machine, GpuError> {
    let mut attrs = info.attrs.clone();
    let table_row = roofline_hw::find_by_device_name(&info.name);
    if let Some(mhz) = table_row.and_then(|g| g.tensor_mhz) {
        attrs.tensor_clock_khz = Some(mhz * 1000);
    }
    let mut m = theoretical_machine(&attrs).map_err(|_| GpuError::UnknownCapability {
        cc: attrs.cc.to_string(),
        known: roofline_hw::known_capabilities().join(", "),
    })?;
    if let Some(g) = table_row.filter(|g| g.tensor_mhz.is_some()) {
        m.notes.push(format!(
            "16-bit and smaller tensor roofs use the vendor's tensor clock for the {} from the built-in table ({})",
            g.name, g.source
        ));
    }
    m.gpu.uuid = Some(info.uuid.clone());
    if m.gpu.driver.is_none() {
        m.gpu.driver = Some(format!("CUDA {}", info.cuda_driver_version));
    }
    Ok(m)
}

/// The theoretical link roofs that involve GPU `ordinal` (its host link,
/// its peer links, the collectives over every GPU), from NVML's view of the
/// machine's PCIe and NVLink; and what could not be read. Without NVML
/// there are none, and the second list says so.
pub fn link_roofs(ordinal: usize) -> (Vec<roofline_model::Ceiling>, Vec<String>) {
    let nvml = match crate::nvml::init() {
        Ok(n) => n,
        Err(e) => return (Vec::new(), vec![format!("no theoretical link roofs: {e}")]),
    };
    let uuids: Vec<String> = match query_all() {
        Ok(all) => all.into_iter().map(|d| d.uuid).collect(),
        Err(e) => return (Vec::new(), vec![format!("no theoretical link roofs: {e}")]),
    };
    let (facts, warnings) = crate::nvml::link_facts(&nvml, &uuids);
    let roofs = roofline_hw::theoretical_links(&facts)
        .into_iter()
        .filter(|c| match c.resource {
            roofline_model::Resource::Link(l) => l.involves(ordinal as u8),
            _ => false,
        })
        .collect();
    (roofs, warnings)
}

/// A context on one GPU (the primary context).
pub fn open(ordinal: usize) -> Result<Arc<CudaContext>, GpuError> {
    check_index(ordinal)?;
    CudaContext::new(ordinal).map_err(|e| GpuError::driver(format!("creating a context on device {ordinal}"), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_is_formatted_like_nvml() {
        let b = [0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
        assert_eq!(format_uuid(&b), "GPU-deadbeef-0001-0203-0405-060708090a0b");
    }

    #[test]
    fn cuda_version_from_driver_integer() {
        assert_eq!(format_cuda_version(13000), "13.0");
        assert_eq!(format_cuda_version(12080), "12.8");
    }

    #[test]
    fn no_gpu_is_an_error_not_a_panic() {
        match device_count() {
            Ok(n) => crate::skip_notice(&format!("a GPU is present ({n}); the no-driver path is not exercised here")),
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.contains("CUDA") && !msg.contains("--"), "a GPU-layer message names no flag: {msg}");
            }
        }
    }

    #[test]
    fn device_index_out_of_range_names_the_range() {
        let e = GpuError::DeviceOutOfRange { index: 3, count: 1 };
        assert_eq!(
            e.to_string(),
            "device 3 does not exist: this machine has 1 GPU(s), numbered 0 to 0; pass --device with one of those"
        );
        if let Ok(n) = device_count() {
            assert!(matches!(query(n), Err(GpuError::DeviceOutOfRange { .. })));
        } else {
            crate::skip_notice("no GPU; out-of-range query against a live driver not exercised");
        }
    }
}
