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
    /// libcuda.so could not be loaded: no NVIDIA driver on this machine.
    #[error("no CUDA driver: libcuda.so could not be loaded; install the NVIDIA driver")]
    NoDriver,
    /// The driver is there but reports no GPU (`CUDA_ERROR_NO_DEVICE`); the
    /// text names the call that found out.
    #[error("the CUDA driver found no GPU ({0})")]
    NoDevice(String),
    /// A device index past the last GPU.
    #[error("device {index} does not exist: this machine has {count} GPU(s), numbered 0 to {last}; pass --device with one of those", last = count.saturating_sub(1))]
    DeviceOutOfRange {
        /// The index asked for.
        index: usize,
        /// GPUs the driver reports.
        count: usize,
    },
    /// A driver call failed with a code that has no variant of its own.
    #[error("CUDA driver call failed: {what}: {code:?} ({detail})")]
    Driver {
        /// The call and what it was for.
        what: String,
        /// The driver's error code.
        code: CUresult,
        /// The driver's description of the code (`cuGetErrorString`).
        detail: String,
    },
    /// libnvrtc.so could not be loaded, so no kernel can be compiled.
    #[error("NVRTC (libnvrtc.so) could not be loaded; install the CUDA toolkit's NVRTC and put its lib64 folder on LD_LIBRARY_PATH")]
    NoNvrtc,
    /// NVML is missing or failed to start; benchmarks still run, without clocks.
    #[error("NVML (libnvidia-ml.so) is not available ({detail}); benchmarks run anyway, but the clocks they ran at are unknown; install the NVIDIA driver's NVML library")]
    NoNvml {
        /// What NVML reported.
        detail: String,
    },
    /// An optional library (cuBLASLt, ...) could not be loaded.
    #[error("{library} could not be loaded: {consequence}; put the CUDA toolkit's lib64 folder on LD_LIBRARY_PATH")]
    NoLibrary {
        /// The library and its file name.
        library: &'static str,
        /// What is not measured without it.
        consequence: &'static str,
    },
    /// NVRTC rejected a kernel's source.
    #[error("NVRTC could not compile {kernel} for {arch}: {detail}\n--- compiler log ---\n{log}")]
    Compile {
        /// The kernel (or source) that failed.
        kernel: String,
        /// The target architecture (`sm_90`).
        arch: String,
        /// What failed: NVRTC's result in words, or why it never ran.
        detail: String,
        /// NVRTC's compiler log.
        log: String,
    },
    /// `CUDA_ERROR_OUT_OF_MEMORY` for an allocation.
    #[error("out of device memory allocating {bytes} bytes for {what}; close other programs on the GPU or run a smaller configuration (--quick)")]
    OutOfMemory {
        /// What the memory was for.
        what: String,
        /// Size asked for, bytes (0 when the failing call was no allocation).
        bytes: u64,
    },
    /// A benchmark's output did not match the expected values.
    #[error("benchmark {bench} produced wrong results: {detail}; its timing is not used")]
    Verification {
        /// Benchmark name (`dram.read`).
        bench: String,
        /// Which value differed, and by how much.
        detail: String,
    },
    /// A measured figure above what the hardware can do (work was skipped).
    #[error("{detail}: the kernel must have done less work than counted, so the figure is rejected")]
    Implausible {
        /// Benchmark name.
        bench: String,
        /// The figure and the limit it broke.
        detail: String,
    },
    /// The tool's tables (theoretical peaks, occupancy limits) do not know
    /// this compute capability.
    #[error("compute capability {cc} is not in the tool's tables (known: {known}); give the roofs with --peak and --bandwidth, or a machine JSON")]
    UnknownCapability {
        /// The device's compute capability (`12.0`).
        cc: String,
        /// The capabilities the table holds, comma separated.
        known: String,
    },
    /// A benchmark name that matches none.
    #[error("no benchmark matches '{name}'; known: {known}")]
    UnknownBenchmark {
        /// The name given.
        name: String,
        /// The benchmark names, comma separated.
        known: String,
    },
    /// libnccl.so.2 was not found where the tool looked.
    #[error("NCCL (libnccl.so.2) not found: looked at {looked}; the collective roofs are not measured. Point at it with ROOFLINE_NCCL_LIB=/path/to/libnccl.so.2 (PyTorch ships one under site-packages/nvidia/nccl/lib) or put its folder on LD_LIBRARY_PATH")]
    NoNccl {
        /// The places tried, `; ` separated, and why a library found there
        /// was unusable.
        looked: String,
    },
    /// A multi-GPU benchmark on a machine with too few GPUs.
    #[error("needs {needed} GPUs: this machine has {found}")]
    NeedsGpus {
        /// GPUs the benchmark needs.
        needed: usize,
        /// GPUs the driver reports.
        found: usize,
    },
    /// A call into a loaded library (NVML, NCCL, cuBLASLt) failed.
    #[error("{library} call failed: {what}: {detail}")]
    Library {
        /// The library.
        library: &'static str,
        /// The call.
        what: String,
        /// The library's error, in words.
        detail: String,
    },
    /// A benchmark-specific failure with no better class.
    #[error("{bench}: {detail}")]
    Benchmark {
        /// Benchmark name.
        bench: String,
        /// What went wrong.
        detail: String,
    },
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
