//! The ways the live GPU can be unavailable or fail, each with the fix.
//!
//! Every class a caller acts on is its own variant: a missing library, no
//! device, out of memory (a benchmark that cannot fit fails alone), a wrong
//! result, a figure faster than the hardware. The driver's error code is
//! kept as a value, so out-of-memory is recognised by its code, never by
//! searching a message.

use cudarc::driver::{sys::CUresult, DriverError};

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
    #[error("CUDA driver call failed: {what}: {code:?} ({detail})")]
    Driver { what: String, code: CUresult, detail: String },
    #[error("NVRTC (libnvrtc.so) could not be loaded; install the CUDA toolkit's NVRTC and put its lib64 folder on LD_LIBRARY_PATH")]
    NoNvrtc,
    #[error("NVML (libnvidia-ml.so) is not available ({detail}); benchmarks run anyway, but the clocks they ran at are unknown; install the NVIDIA driver's NVML library")]
    NoNvml { detail: String },
    #[error("{library} could not be loaded: {consequence}; put the CUDA toolkit's lib64 folder on LD_LIBRARY_PATH")]
    NoLibrary { library: &'static str, consequence: &'static str },
    #[error("NVRTC could not compile {kernel} for {arch}: {detail}\n--- compiler log ---\n{log}")]
    Compile { kernel: String, arch: String, detail: String, log: String },
    #[error("out of device memory allocating {bytes} bytes for {what}; close other programs on the GPU or run a smaller configuration (--quick)")]
    OutOfMemory { what: String, bytes: u64 },
    #[error("benchmark {bench} produced wrong results: {detail}; its timing is not used")]
    Verification { bench: String, detail: String },
    #[error("{detail}: the kernel must have done less work than counted, so the figure is rejected")]
    Implausible { bench: String, detail: String },
    #[error("compute capability {cc} is not in the tool's tables (known: {known}); give the roofs with --peak and --bandwidth, or a machine JSON")]
    UnknownCapability { cc: String, known: String },
    #[error("no benchmark matches '{name}'; known: {known}")]
    UnknownBenchmark { name: String, known: String },
    #[error("NCCL (libnccl.so.2) not found: looked at {looked}; the collective roofs are not measured. Point at it with ROOFLINE_NCCL_LIB=/path/to/libnccl.so.2 (PyTorch ships one under site-packages/nvidia/nccl/lib) or put its folder on LD_LIBRARY_PATH")]
    NoNccl { looked: String },
    #[error("needs {needed} GPUs: this machine has {found}")]
    NeedsGpus { needed: usize, found: usize },
    #[error("{library} call failed: {what}: {detail}")]
    Library { library: &'static str, what: String, detail: String },
    #[error("{bench}: {detail}")]
    Benchmark { bench: String, detail: String },
}

/// The driver's own words for an error code, when the driver is loaded
/// (cudarc asks the driver, and panics when it cannot be loaded).
fn describe(e: DriverError) -> String {
    // SAFETY: only tries to dlopen the library.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return "no description: the driver library is not loaded".into();
    }
    e.error_string().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default()
}

impl GpuError {
    /// The error of a failed driver call, classified by the driver's code:
    /// out of memory and no device get their own variants.
    pub fn driver(what: impl Into<String>, e: DriverError) -> GpuError {
        let what = what.into();
        match e.0 {
            CUresult::CUDA_ERROR_OUT_OF_MEMORY => GpuError::OutOfMemory { what, bytes: 0 },
            CUresult::CUDA_ERROR_NO_DEVICE => GpuError::NoDevice(what),
            code => GpuError::Driver { what, code, detail: describe(e) },
        }
    }

    /// The same, with the size of the allocation that failed.
    pub fn allocation(what: impl Into<String>, bytes: u64, e: DriverError) -> GpuError {
        match GpuError::driver(what, e) {
            GpuError::OutOfMemory { what, .. } => GpuError::OutOfMemory { what, bytes },
            other => other,
        }
    }

    /// A benchmark-specific failure with no better class.
    pub fn bench(bench: impl Into<String>, detail: impl Into<String>) -> GpuError {
        GpuError::Benchmark { bench: bench.into(), detail: detail.into() }
    }

    /// True for errors the user fixes by changing the command line (exit 2).
    pub fn is_usage(&self) -> bool {
        matches!(self, GpuError::DeviceOutOfRange { .. } | GpuError::UnknownBenchmark { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_memory_is_recognised_by_its_code_not_its_text() {
        let e = GpuError::allocation("DRAM array a", 1 << 32, DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY));
        assert!(matches!(e, GpuError::OutOfMemory { bytes, .. } if bytes == 1 << 32), "{e:?}");
        let e = GpuError::driver("launch", DriverError(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS));
        assert!(matches!(e, GpuError::Driver { code: CUresult::CUDA_ERROR_ILLEGAL_ADDRESS, .. }), "{e:?}");
        assert!(matches!(
            GpuError::driver("cuInit", DriverError(CUresult::CUDA_ERROR_NO_DEVICE)),
            GpuError::NoDevice(_)
        ));
    }

    #[test]
    fn missing_libraries_say_what_to_install() {
        assert!(GpuError::NoNvrtc.to_string().contains("LD_LIBRARY_PATH"));
        assert!(GpuError::NoNvml { detail: "x".into() }.to_string().contains("clocks they ran at are unknown"));
        let e = GpuError::NoLibrary {
            library: "cuBLASLt (libcublasLt.so)",
            consequence: "tensor-core peaks are not measured",
        };
        assert!(e.to_string().contains("tensor-core peaks are not measured"));
        assert!(GpuError::UnknownBenchmark { name: "x".into(), known: "dram.read".into() }.is_usage());
    }
}
