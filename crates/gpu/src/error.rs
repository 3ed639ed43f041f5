//! The ways the live GPU can be unavailable or fail, each with the fix.

/// An error from the GPU layer. Messages name what was missing or wrong and
/// what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    #[error("no CUDA driver: libcuda.so could not be loaded; install the NVIDIA driver")]
    NoDriver,
    #[error("the CUDA driver found no GPU ({0})")]
    NoDevice(String),
    #[error("device {index} does not exist: this machine has {count} GPU(s), numbered 0 to {last}; pass --device with one of those", last = count.saturating_sub(1))]
    DeviceOutOfRange { index: usize, count: usize },
    #[error("CUDA driver call failed: {what}: {detail}")]
    Driver { what: String, detail: String },
    #[error("NVRTC (libnvrtc.so) could not be loaded; install the CUDA toolkit's NVRTC and put its lib64 folder on LD_LIBRARY_PATH")]
    NoNvrtc,
    #[error("NVRTC could not compile {kernel} for {arch}: {detail}\n--- compiler log ---\n{log}")]
    Compile { kernel: String, arch: String, detail: String, log: String },
    #[error("out of device memory allocating {bytes} bytes for {what}")]
    OutOfMemory { what: String, bytes: u64 },
    #[error("benchmark {bench} produced wrong results: {detail}; its timing is not used")]
    Verification { bench: String, detail: String },
    #[error("{0}")]
    Other(String),
}

impl GpuError {
    pub(crate) fn driver(what: impl Into<String>, e: impl std::fmt::Debug) -> GpuError {
        let detail = format!("{e:?}");
        if detail.contains("OUT_OF_MEMORY") {
            return GpuError::OutOfMemory { what: what.into(), bytes: 0 };
        }
        GpuError::Driver { what: what.into(), detail }
    }
}
