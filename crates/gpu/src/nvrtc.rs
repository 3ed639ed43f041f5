//! Compiles the benchmark kernels at run time for the device's exact
//! architecture (`--gpu-architecture=sm_XY`), producing CUBIN (machine code,
//! no JIT at load time). Kernels are kept as `.cu` files in `kernels/` and
//! embedded in the binary. A compile error carries NVRTC's log.

use std::ffi::{CStr, CString};

use cudarc::nvrtc::sys;

use crate::error::GpuError;

/// The benchmark sources: a shared header and one file per group.
pub const COMMON: &str = include_str!("../kernels/common.cuh");
pub const MEMORY: &str = include_str!("../kernels/memory.cu");
pub const COMPUTE: &str = include_str!("../kernels/compute.cu");
pub const TENSOR_CHECK: &str = include_str!("../kernels/tensor_check.cu");
/// Hopper and newer only (bulk copies, mbarriers).
pub const L2_TMA: &str = include_str!("../kernels/l2_tma.cu");

/// `Err(NoNvrtc)` when libnvrtc cannot be loaded.
pub fn check_nvrtc() -> Result<(), GpuError> {
    // SAFETY: only tries to dlopen the library.
    if unsafe { sys::is_culib_present() } {
        Ok(())
    } else {
        Err(GpuError::NoNvrtc)
    }
}

/// The options used for every benchmark source.
pub fn options(arch: &str) -> Vec<String> {
    vec![format!("--gpu-architecture={arch}"), "--std=c++17".into(), "-default-device".into()]
}

/// Compiles `COMMON` + `src` to CUBIN for `arch` ("sm_90").
pub fn compile(name: &str, src: &str, arch: &str) -> Result<Vec<u8>, GpuError> {
    check_nvrtc()?;
    let full = format!("{COMMON}\n#line 1 \"{name}\"\n{src}");
    let fail = |detail: String, log: String| GpuError::Compile { kernel: name.into(), arch: arch.into(), detail, log };
    let c_src = CString::new(full).map_err(|_| fail("source holds a NUL byte".into(), String::new()))?;
    let c_name = CString::new(name).map_err(|_| fail("name holds a NUL byte".into(), String::new()))?;
    let opts: Vec<CString> = options(arch).into_iter().map(|o| CString::new(o).expect("no NUL in options")).collect();
    let opt_ptrs: Vec<*const std::ffi::c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    let mut prog: sys::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: pointers live until the calls return; prog is destroyed below.
    unsafe {
        let r =
            sys::nvrtcCreateProgram(&mut prog, c_src.as_ptr(), c_name.as_ptr(), 0, std::ptr::null(), std::ptr::null());
        if r != sys::nvrtcResult::NVRTC_SUCCESS {
            return Err(fail(format!("nvrtcCreateProgram: {r:?}"), String::new()));
        }
        let r = sys::nvrtcCompileProgram(prog, opt_ptrs.len() as i32, opt_ptrs.as_ptr());
        let log = program_log(prog);
        let out = if r != sys::nvrtcResult::NVRTC_SUCCESS {
            Err(fail(format!("{r:?}"), log))
        } else {
            let mut size = 0usize;
            let r = sys::nvrtcGetCUBINSize(prog, &mut size);
            if r != sys::nvrtcResult::NVRTC_SUCCESS || size == 0 {
                Err(fail(format!("no CUBIN for {arch} ({r:?})"), log))
            } else {
                let mut buf = vec![0u8; size];
                let r = sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr() as *mut std::ffi::c_char);
                if r != sys::nvrtcResult::NVRTC_SUCCESS {
                    Err(fail(format!("nvrtcGetCUBIN: {r:?}"), log))
                } else {
                    Ok(buf)
                }
            }
        };
        sys::nvrtcDestroyProgram(&mut prog);
        out
    }
}

/// NVRTC's version, "13.0".
pub fn version() -> Result<String, GpuError> {
    check_nvrtc()?;
    let (mut a, mut b) = (0, 0);
    // SAFETY: writes two ints.
    unsafe { sys::nvrtcVersion(&mut a, &mut b) };
    Ok(format!("{a}.{b}"))
}

unsafe fn program_log(prog: sys::nvrtcProgram) -> String {
    let mut size = 0usize;
    if sys::nvrtcGetProgramLogSize(prog, &mut size) != sys::nvrtcResult::NVRTC_SUCCESS || size == 0 {
        return String::new();
    }
    let mut buf = vec![0u8; size];
    if sys::nvrtcGetProgramLog(prog, buf.as_mut_ptr() as *mut std::ffi::c_char) != sys::nvrtcResult::NVRTC_SUCCESS {
        return String::new();
    }
    CStr::from_bytes_until_nul(&buf).map(|c| c.to_string_lossy().into_owned()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_embedded_with_their_kernels() {
        for name in ["dram_read_", "dram_write_", "dram_copy_", "dram_triad_", "dram_add_"] {
            assert!(MEMORY.contains(&format!("void {name}##W(")), "{name}");
        }
        assert!(MEMORY.contains("void NAME##_##W##_u##NU(") && MEMORY.contains("RL_L2_ALL(l2_read, rl_ldcg)"));
        assert!(MEMORY.contains("void dram_read_##W##_u8("));
        for w in [4, 8, 16] {
            assert!(MEMORY.contains(&format!("RL_MEMORY({w},")), "{w}");
        }
        for name in ["smem_read", "fma_f32", "fma_f64", "fma_f16x2", "sweep_f32", "sweep_f64"] {
            assert!(COMPUTE.contains(&format!("void {name}(")), "{name}");
        }
        assert!(TENSOR_CHECK.contains("void gemm_check("));
        assert!(COMMON.contains("rl_hash"));
    }

    #[test]
    fn benchmark_sources_compile_to_cubin_for_hopper_and_ampere() {
        if check_nvrtc().is_err() {
            crate::skip_notice("no NVRTC library; the benchmark kernels were not compiled");
            return;
        }
        for arch in ["sm_90", "sm_80"] {
            for (name, src) in [("memory.cu", MEMORY), ("compute.cu", COMPUTE), ("tensor_check.cu", TENSOR_CHECK)] {
                let cubin = compile(name, src, arch).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(&cubin[..4], b"\x7fELF", "{name} for {arch} is a CUBIN (ELF)");
            }
        }
        let cubin = compile("l2_tma.cu", L2_TMA, "sm_90").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&cubin[..4], b"\x7fELF");
    }

    #[test]
    fn compile_error_shows_the_log() {
        if check_nvrtc().is_err() {
            crate::skip_notice("no NVRTC library; compile-error path not exercised");
            return;
        }
        match compile("broken.cu", "extern \"C\" __global__ void k() { undefined_name(); }", "sm_80") {
            Err(GpuError::Compile { log, .. }) => assert!(log.contains("undefined_name"), "{log}"),
            other => panic!("expected a compile error, got {other:?}"),
        }
    }
}
