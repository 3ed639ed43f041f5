//! Compiles the benchmark kernels at run time for the device's exact
//! architecture (`--gpu-architecture=sm_XY`), producing CUBIN (machine code,
//! no JIT at load time). Kernels are kept as `.cu` files in `kernels/` and
//! embedded in the binary. A compile error carries NVRTC's log.
//!
//! This is the one NVRTC wrapper of the crate: the benchmarks, the example
//! kernels and the occupancy check all compile through [`compile_with`].
//! With `ROOFLINE_CUBIN_DIR` set, every CUBIN is also written there as
//! `NAME.sm_XY.cubin`, so that `cuobjdump -sass` can show the machine code
//! that was timed (scripts/device/bench-check.sh does).

use std::ffi::{CStr, CString};

use cudarc::nvrtc::sys;

use crate::error::GpuError;

/// The benchmark sources: a shared header and one file per group.
pub const COMMON: &str = include_str!("../kernels/common.cuh");
/// DRAM and L2 bandwidth kernels.
pub const MEMORY: &str = include_str!("../kernels/memory.cu");
/// CUDA-core FMA, shared-memory bandwidth and intensity-sweep kernels.
pub const COMPUTE: &str = include_str!("../kernels/compute.cu");
/// FP64 reference GEMM that checks the tensor-core results element by element.
pub const TENSOR_CHECK: &str = include_str!("../kernels/tensor_check.cu");
/// Hopper and newer only (bulk copies, mbarriers).
pub const L2_TMA: &str = include_str!("../kernels/l2_tma.cu");
/// The instruction micro-benchmarks (INT32, MUFU, shared memory, atomics, load issue).
pub const INSTRUCTIONS: &str = include_str!("../kernels/instructions.cu");
/// The interconnect benchmarks (peer copies; inputs and checks of every link benchmark).
pub const INTERCONNECT: &str = include_str!("../kernels/interconnect.cu");

/// The environment variable naming a folder to write every CUBIN to.
pub const CUBIN_DIR_ENV: &str = "ROOFLINE_CUBIN_DIR";

/// A compiled program: the CUBIN and NVRTC's log (ptxas's report with `-v`).
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The CUBIN for the session's architecture.
    pub cubin: Vec<u8>,
    /// NVRTC's log: warnings, and ptxas's register and memory report with `-v`.
    pub log: String,
}

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
    let full = format!("{COMMON}\n#line 1 \"{name}\"\n{src}");
    compile_with(name, &full, arch, &options(arch)).map(|c| c.cubin)
}

/// Compiles `src` as it is with exactly `opts` (which must name the
/// architecture) for `arch`, returning the CUBIN and the compiler's log.
pub fn compile_with(name: &str, src: &str, arch: &str, opts: &[String]) -> Result<Compiled, GpuError> {
    check_nvrtc()?;
    let fail = |detail: String, log: String| GpuError::Compile { kernel: name.into(), arch: arch.into(), detail, log };
    let c_src = CString::new(src).map_err(|_| fail("source holds a NUL byte".into(), String::new()))?;
    let c_name = CString::new(name).map_err(|_| fail("name holds a NUL byte".into(), String::new()))?;
    let opts: Vec<CString> = opts
        .iter()
        .map(|o| CString::new(o.as_str()))
        .collect::<Result<_, _>>()
        .map_err(|_| fail("an option holds a NUL byte".into(), String::new()))?;
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
                    Ok(Compiled { cubin: buf, log: log.trim().to_string() })
                }
            }
        };
        sys::nvrtcDestroyProgram(&mut prog);
        if let (Ok(c), Some(dir)) = (&out, std::env::var_os(CUBIN_DIR_ENV)) {
            let file = std::path::Path::new(&dir).join(format!("{}.{arch}.cubin", name.trim_end_matches(".cu")));
            // Best effort: the dump is for inspection and never fails a run.
            let _ = std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(file, &c.cubin));
        }
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
        for t in ["rl_read_g", "rl_write_g", "rl_copy_g", "rl_triad_g", "rl_add_g", "rl_add_p", "rl_triad_p"] {
            assert!(MEMORY.contains(&format!("void {t}(")), "{t}");
        }
        assert!(MEMORY.contains("void NAME##_##W##_u##NU(") && MEMORY.contains("RL_L2_ALL(l2_read, rl_ldcg)"));
        assert!(MEMORY.contains("void l2_write(") && MEMORY.contains("void check_l2_write("));
        for name in [
            "smem_read",
            "rl_fma_chains",
            "RL_FMA(fma_f32",
            "RL_FMA(fma_f64",
            "RL_FMA(fma_f16x2",
            "RL_SWEEP(f32",
            "RL_SWEEP(f64",
        ] {
            assert!(COMPUTE.contains(name), "{name}");
        }
        for name in ["RL_INT(int_imad", "RL_MUFU(ex2)", "RL_SMEM(smem_lds128", "void atomic_global(", "RL_LDG(16"] {
            assert!(INSTRUCTIONS.contains(name), "{name}");
        }
        assert!(TENSOR_CHECK.contains("void gemm_check("));
        assert!(COMMON.contains("rl_hash"));
    }

    /// The kernel names a CUBIN defines (its ELF string tables hold them).
    fn defines(cubin: &[u8], name: &str) -> bool {
        let needle = format!("{name}\0");
        cubin.windows(needle.len()).any(|w| w == needle.as_bytes())
    }

    #[test]
    fn benchmark_sources_compile_to_cubin_for_hopper_and_ampere() {
        if check_nvrtc().is_err() {
            crate::skip_notice("no NVRTC library; the benchmark kernels were not compiled");
            return;
        }
        for arch in ["sm_90", "sm_80"] {
            for (name, src) in [
                ("memory.cu", MEMORY),
                ("compute.cu", COMPUTE),
                ("tensor_check.cu", TENSOR_CHECK),
                ("instructions.cu", INSTRUCTIONS),
            ] {
                let cubin = compile(name, src, arch).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(&cubin[..4], b"\x7fELF", "{name} for {arch} is a CUBIN (ELF)");
            }
        }
        let cubin = compile("l2_tma.cu", L2_TMA, "sm_90").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&cubin[..4], b"\x7fELF");
    }

    #[test]
    fn every_kernel_the_benchmarks_launch_is_in_its_cubin() {
        use crate::bench::suite::What;
        if check_nvrtc().is_err() {
            crate::skip_notice("no NVRTC library; the kernel names were not checked against the CUBINs");
            return;
        }
        let memory = compile("memory.cu", MEMORY, "sm_90").unwrap_or_else(|e| panic!("{e}"));
        for what in [What::DramRead, What::DramWrite, What::DramCopy, What::DramTriad, What::DramAdd] {
            for k in crate::bench::dram_kernels(what) {
                assert!(defines(&memory, &k.name(what)), "{} is not in memory.cu", k.name(what));
            }
        }
        let inst = compile("instructions.cu", INSTRUCTIONS, "sm_90").unwrap_or_else(|e| panic!("{e}"));
        for name in [
            "int_imad",
            "int_iadd3",
            "int_lop3",
            "mufu_ex2",
            "mufu_ref_ex2",
            "mufu_lg2",
            "mufu_rsqrt",
            "mufu_sin",
            "mufu_ref_sin",
            "smem_lds32",
            "smem_lds128",
            "smem_sts32",
            "smem_sts128",
            "atomic_global",
            "atomic_shared",
            "lsu_ldg_4",
            "lsu_ldg_8",
            "lsu_ldg_16",
        ] {
            assert!(defines(&inst, name), "{name} is not in instructions.cu");
        }
        let compute = compile("compute.cu", COMPUTE, "sm_90").unwrap_or_else(|e| panic!("{e}"));
        for name in ["fma_f32", "fma_f64", "fma_f16x2", "sweep_f32", "sweep_check_f64", "sweep_init_f32", "smem_read"] {
            assert!(defines(&compute, name), "{name} is not in compute.cu");
        }
    }

    #[test]
    fn cubins_are_written_out_when_asked() {
        if check_nvrtc().is_err() {
            crate::skip_notice("no NVRTC library; the CUBIN dump was not exercised");
            return;
        }
        let dir = std::env::temp_dir().join(format!("roofline-cubins-{}", std::process::id()));
        let src = "extern \"C\" __global__ void k(int* p) { p[0] = 1; }";
        std::env::set_var(CUBIN_DIR_ENV, &dir);
        let c = compile_with("dump_probe.cu", src, "sm_80", &options("sm_80"));
        std::env::remove_var(CUBIN_DIR_ENV);
        let written = std::fs::read(dir.join("dump_probe.sm_80.cubin")).expect("the CUBIN was written");
        assert_eq!(written, c.unwrap().cubin);
        let _ = std::fs::remove_dir_all(dir);
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
