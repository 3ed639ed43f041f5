//! Tensor-core peaks through cuBLASLt, loaded at run time.
//!
//! A square GEMM large enough to keep every tensor core busy (8192^3) runs
//! in each precision the architecture has; cuBLASLt's heuristic proposes
//! several algorithms and the fastest, by timing, is kept. Inputs are random
//! values exactly representable in the input type; the output is poisoned
//! first and every element is compared with a reference GEMM summed in FP64
//! on the GPU (kernels/tensor_check.cu).

use std::ffi::c_void;

use cudarc::cublaslt::sys as lt;
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut, PushKernelArg};
use roofline_core::machine::FlopKind;

use super::run::Gpu;
use super::suite::{BenchResult, BenchSpec, Launch};
use crate::error::GpuError;

/// Storage codes of tensor_check.cu.
fn type_code(kind: FlopKind) -> i32 {
    match kind {
        FlopKind::TensorBf16 => 0,
        FlopKind::TensorFp16 => 1,
        FlopKind::TensorTf32 => 2,
        FlopKind::TensorFp8 => 3,
        _ => 4,
    }
}

/// Bytes per input element and per output element.
pub fn sizes(kind: FlopKind) -> (usize, usize) {
    match kind {
        FlopKind::TensorBf16 | FlopKind::TensorFp16 => (2, 2),
        FlopKind::TensorTf32 => (4, 4),
        FlopKind::TensorFp8 => (1, 2),
        _ => (8, 8),
    }
}

/// Relative and absolute tolerance of the check, from the output type's
/// rounding (inputs are exact, the reference is FP64).
pub fn tolerance(kind: FlopKind, k: u32) -> (f64, f64) {
    let kk = k as f64;
    match kind {
        FlopKind::TensorBf16 => (1.0 / 128.0, 1e-5 * kk),
        FlopKind::TensorFp16 => (1.0 / 512.0, 1e-5 * kk),
        FlopKind::TensorTf32 => (1e-4, 1e-5 * kk),
        FlopKind::TensorFp8 => (1.0 / 128.0, 1e-3 * kk),
        _ => (1e-12, 1e-13 * kk),
    }
}

/// Which tensor precisions a compute capability has.
pub fn available(cc: (u32, u32), kind: FlopKind) -> bool {
    match kind {
        FlopKind::TensorFp16 => cc.0 >= 7,
        FlopKind::TensorBf16 | FlopKind::TensorTf32 => cc.0 >= 8,
        FlopKind::TensorFp64 => cc == (8, 0) || cc.0 == 9 || cc == (10, 0),
        FlopKind::TensorFp8 => cc >= (8, 9),
        _ => false,
    }
}

/// `Err` when libcublasLt cannot be loaded.
pub fn check_cublaslt() -> Result<(), GpuError> {
    // SAFETY: only tries to dlopen the library.
    if unsafe { lt::is_culib_present() } {
        Ok(())
    } else {
        Err(GpuError::Other(
            "cuBLASLt (libcublasLt.so) could not be loaded: tensor-core peaks are not measured; put the CUDA toolkit's lib64 folder on LD_LIBRARY_PATH".into(),
        ))
    }
}

fn lt_err(what: &str, s: lt::cublasStatus_t) -> GpuError {
    GpuError::Other(format!("cuBLASLt {what}: {s:?}"))
}

fn ok(what: &str, s: lt::cublasStatus_t) -> Result<(), GpuError> {
    if s == lt::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(lt_err(what, s))
    }
}

struct Handles {
    h: lt::cublasLtHandle_t,
    desc: lt::cublasLtMatmulDesc_t,
    layouts: [lt::cublasLtMatrixLayout_t; 3],
    pref: lt::cublasLtMatmulPreference_t,
}

impl Drop for Handles {
    fn drop(&mut self) {
        // SAFETY: each was created once and is destroyed once.
        unsafe {
            lt::cublasLtMatmulPreferenceDestroy(self.pref);
            for l in self.layouts {
                lt::cublasLtMatrixLayoutDestroy(l);
            }
            lt::cublasLtMatmulDescDestroy(self.desc);
            lt::cublasLtDestroy(self.h);
        }
    }
}

impl Gpu {
    pub fn tensor(&mut self, spec: &BenchSpec, kind: FlopKind) -> Result<BenchResult, GpuError> {
        check_cublaslt()?;
        let (in_b, out_b) = sizes(kind);
        let need = |n: u64| 2 * n * n * in_b as u64 + n * n * out_b as u64 + (32 << 20);
        let free = self.free_bytes();
        let mut n = self.cfg.gemm_n;
        while need(n as u64) > free && n > 1024 {
            n /= 2;
        }
        if need(n as u64) > free {
            return Err(GpuError::OutOfMemory { what: format!("{} GEMM of {n}^3", spec.id), bytes: need(n as u64) });
        }
        if n < self.cfg.gemm_n {
            self.warnings.push(format!(
                "{}: not enough free device memory for {}^3: measured at {n}^3, which may be slower",
                spec.id, self.cfg.gemm_n
            ));
        }
        let (m, nn, k) = (n as u64, n as u64, n as u64);
        let mut a = self.alloc::<u8>((m * k) as usize * in_b, "GEMM A")?;
        let mut b = self.alloc::<u8>((k * nn) as usize * in_b, "GEMM B")?;
        let mut d = self.alloc::<u8>((m * nn) as usize * out_b, "GEMM D")?;
        let mut ws = self.alloc::<u8>(32 << 20, "cuBLASLt workspace")?;
        let t = type_code(kind);
        let init = self.check_fn("gemm_init")?;
        for (buf, seed, count) in [(&mut a, 0xa1u32, m * k), (&mut b, 0xb2, k * nn)] {
            let mut l = self.stream.launch_builder(&init);
            l.arg(buf).arg(&count).arg(&seed).arg(&t);
            unsafe { l.launch(cudarc::driver::LaunchConfig::for_num_elems(self.sms() * 1024)) }
                .map_err(|e| GpuError::driver("gemm_init", e))?;
        }
        use lt::cudaDataType_t::*;
        let (ab_t, cd_t, compute, scale) = match kind {
            FlopKind::TensorBf16 => (CUDA_R_16BF, CUDA_R_16BF, lt::cublasComputeType_t::CUBLAS_COMPUTE_32F, CUDA_R_32F),
            FlopKind::TensorFp16 => (CUDA_R_16F, CUDA_R_16F, lt::cublasComputeType_t::CUBLAS_COMPUTE_32F, CUDA_R_32F),
            FlopKind::TensorTf32 => {
                (CUDA_R_32F, CUDA_R_32F, lt::cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F)
            }
            FlopKind::TensorFp8 => {
                (CUDA_R_8F_E4M3, CUDA_R_16BF, lt::cublasComputeType_t::CUBLAS_COMPUTE_32F, CUDA_R_32F)
            }
            _ => (CUDA_R_64F, CUDA_R_64F, lt::cublasComputeType_t::CUBLAS_COMPUTE_64F, CUDA_R_64F),
        };
        // SAFETY: plain cuBLASLt object creation; every handle is destroyed by `Handles`.
        let hs = unsafe {
            let mut h = std::ptr::null_mut();
            ok("create", lt::cublasLtCreate(&mut h))?;
            let mut desc = std::ptr::null_mut();
            ok("matmul desc", lt::cublasLtMatmulDescCreate(&mut desc, compute, scale))?;
            let trans_t: i32 = 1;
            let trans_n: i32 = 0;
            let sz = std::mem::size_of::<i32>();
            ok(
                "transa",
                lt::cublasLtMatmulDescSetAttribute(
                    desc,
                    lt::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSA,
                    &trans_t as *const i32 as *const c_void,
                    sz,
                ),
            )?;
            ok(
                "transb",
                lt::cublasLtMatmulDescSetAttribute(
                    desc,
                    lt::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSB,
                    &trans_n as *const i32 as *const c_void,
                    sz,
                ),
            )?;
            let mut la = std::ptr::null_mut();
            let mut lb = std::ptr::null_mut();
            let mut ld = std::ptr::null_mut();
            ok("layout A", lt::cublasLtMatrixLayoutCreate(&mut la, ab_t, k, m, k as i64))?;
            ok("layout B", lt::cublasLtMatrixLayoutCreate(&mut lb, ab_t, k, nn, k as i64))?;
            ok("layout D", lt::cublasLtMatrixLayoutCreate(&mut ld, cd_t, m, nn, m as i64))?;
            let mut pref = std::ptr::null_mut();
            ok("preference", lt::cublasLtMatmulPreferenceCreate(&mut pref))?;
            let wsb: u64 = 32 << 20;
            ok(
                "workspace",
                lt::cublasLtMatmulPreferenceSetAttribute(
                    pref,
                    lt::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                    &wsb as *const u64 as *const c_void,
                    8,
                ),
            )?;
            Handles { h, desc, layouts: [la, lb, ld], pref }
        };
        let want = self.cfg.gemm_algos.max(1);
        let mut heur: Vec<lt::cublasLtMatmulHeuristicResult_t> = Vec::with_capacity(want);
        let mut found = 0i32;
        // SAFETY: `heur` has room for `want` results.
        unsafe {
            ok(
                "heuristic",
                lt::cublasLtMatmulAlgoGetHeuristic(
                    hs.h,
                    hs.desc,
                    hs.layouts[0],
                    hs.layouts[1],
                    hs.layouts[2],
                    hs.layouts[2],
                    hs.pref,
                    want as i32,
                    heur.as_mut_ptr(),
                    &mut found,
                ),
            )?;
            heur.set_len(found.max(0) as usize);
        }
        heur.retain(|r| r.state == lt::cublasStatus_t::CUBLAS_STATUS_SUCCESS);
        if heur.is_empty() {
            return Err(GpuError::Other(format!("cuBLASLt has no algorithm for {} on this GPU", spec.label)));
        }
        let (alpha32, beta32, alpha64, beta64) = (1.0f32, 0.0f32, 1.0f64, 0.0f64);
        let (pa, pb): (*const c_void, *const c_void) = if kind == FlopKind::TensorFp64 {
            (&alpha64 as *const f64 as _, &beta64 as *const f64 as _)
        } else {
            (&alpha32 as *const f32 as _, &beta32 as *const f32 as _)
        };
        let stream = self.stream.clone();
        let cu_stream = stream.cu_stream() as lt::cudaStream_t;
        let gemm = |algo: &lt::cublasLtMatmulAlgo_t,
                    a: &CudaSlice<u8>,
                    b: &CudaSlice<u8>,
                    d: &mut CudaSlice<u8>,
                    ws: &mut CudaSlice<u8>|
         -> Result<(), GpuError> {
            let (ap, _ga) = a.device_ptr(&stream);
            let (bp, _gb) = b.device_ptr(&stream);
            let (dp, _gd) = d.device_ptr_mut(&stream);
            let (wp, _gw) = ws.device_ptr_mut(&stream);
            // SAFETY: pointers are live device allocations of the sizes the layouts give.
            ok("matmul", unsafe {
                lt::cublasLtMatmul(
                    hs.h,
                    hs.desc,
                    pa,
                    ap as *const c_void,
                    hs.layouts[0],
                    bp as *const c_void,
                    hs.layouts[1],
                    pb,
                    dp as *const c_void,
                    hs.layouts[2],
                    dp as *mut c_void,
                    hs.layouts[2],
                    algo,
                    wp as *mut c_void,
                    32 << 20,
                    cu_stream,
                )
            })
        };
        let flops = 2.0 * (m * nn * k) as f64;
        let mut tried = Vec::new();
        for (i, r) in heur.iter().enumerate() {
            match self.time(1, 1, 2, &mut || gemm(&r.algo, &a, &b, &mut d, &mut ws)) {
                Ok(tm) => {
                    let best = tm.runs[0].iter().cloned().fold(f64::INFINITY, f64::min);
                    tried.push((i, flops / best));
                }
                Err(_) => tried.push((i, f64::NAN)),
            }
        }
        let (pick, _) = tried
            .iter()
            .copied()
            .filter(|(_, r)| r.is_finite())
            .max_by(|x, y| x.1.total_cmp(&y.1))
            .ok_or_else(|| GpuError::Other(format!("no cuBLASLt algorithm ran for {}", spec.label)))?;
        let algo = heur[pick].algo;
        self.poison(&mut d)?;
        gemm(&algo, &a, &b, &mut d, &mut ws)?;
        self.sync()?;
        let verified = self.check_gemm(spec, kind, &a, &b, &d, n)?;
        let tm =
            self.time(self.cfg.warmup, self.cfg.runs, self.cfg.reps, &mut || gemm(&algo, &a, &b, &mut d, &mut ws))?;
        // SAFETY: reads a version number.
        let version = unsafe { lt::cublasLtGetVersion() };
        let method = format!(
            "cuBLASLt {version} (loaded at run time), TN GEMM, algorithm {} of {} proposed, chosen by timing",
            pick + 1,
            heur.len()
        );
        let launch = Launch { grid: 0, block: 0, width: None, shared_bytes: None, unroll: None };
        let size = format!("M = N = K = {n}");
        let mut r = self.result(spec, "FLOP/s", flops, &tm, launch, size, method, verified)?;
        r.search = tried.iter().map(|(i, v)| (format!("algorithm {}", i + 1), *v)).collect();
        Ok(r)
    }

    fn check_gemm(
        &self,
        spec: &BenchSpec,
        kind: FlopKind,
        a: &CudaSlice<u8>,
        b: &CudaSlice<u8>,
        d: &CudaSlice<u8>,
        n: u32,
    ) -> Result<String, GpuError> {
        let f = self.check_fn("gemm_check")?;
        let bad = self.bad_counter()?;
        let t = type_code(kind);
        let (rtol, atol) = tolerance(kind, n);
        let mut l = self.stream.launch_builder(&f);
        l.arg(a).arg(b).arg(d).arg(&t).arg(&n).arg(&n).arg(&n).arg(&rtol).arg(&atol).arg(&bad);
        let cfg =
            cudarc::driver::LaunchConfig { grid_dim: (n / 16, n / 16, 1), block_dim: (16, 16, 1), shared_mem_bytes: 0 };
        unsafe { l.launch(cfg) }.map_err(|e| GpuError::driver("gemm_check", e))?;
        self.read_bad(&bad, n as u64 * n as u64, &spec.id)?;
        Ok(format!(
            "all {} output elements, poisoned first, against an FP64 reference GEMM (|error| <= {rtol:e} x |ref| + {atol:e})",
            n as u64 * n as u64
        ))
    }

    pub(crate) fn check_fn(&self, name: &str) -> Result<cudarc::driver::CudaFunction, GpuError> {
        self.check.load_function(name).map_err(|e| GpuError::driver(format!("kernel {name}"), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hopper_has_every_tensor_precision_and_turing_no_bf16() {
        for k in [
            FlopKind::TensorBf16,
            FlopKind::TensorFp16,
            FlopKind::TensorTf32,
            FlopKind::TensorFp8,
            FlopKind::TensorFp64,
        ] {
            assert!(available((9, 0), k), "{k}");
        }
        assert!(!available((7, 5), FlopKind::TensorBf16));
        assert!(!available((8, 6), FlopKind::TensorFp64));
        assert!(!available((8, 0), FlopKind::TensorFp8));
    }

    #[test]
    fn tolerances_grow_with_k_and_fp64_is_tight() {
        let (_, a1) = tolerance(FlopKind::TensorBf16, 1024);
        let (_, a2) = tolerance(FlopKind::TensorBf16, 8192);
        assert!(a2 > a1);
        assert!(tolerance(FlopKind::TensorFp64, 8192).0 < 1e-10);
    }
}
