//! Tensor-core peaks through cuBLASLt, loaded at run time.
//!
//! A square GEMM large enough to keep every tensor core busy (8192^3) runs
//! in each precision the architecture has; cuBLASLt's heuristic proposes
//! several algorithms and the fastest, by timing, is kept. It is timed in
//! short bursts after idle gaps (`Reps::bursts`): back to back, the
//! software power cap pulls the clock down within tens of ms and the figure
//! falls below what the GEMMs of real programs reach between other work. Inputs are random
//! values exactly representable in the input type; the output is poisoned
//! first and every element is compared with a reference GEMM summed in FP64
//! on the GPU (kernels/tensor_check.cu).

use std::ffi::c_void;

use cudarc::cublaslt::sys as lt;
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut, PushKernelArg};
use roofline_model::ComputeCapability;
use roofline_model::FlopKind;

use super::executor::{Candidate, Plan};
use super::suite::LaunchShape;
use super::workload::{bad_counter, launch, read_bad, Built, Setup, Workload, TENSOR_CHECK};
use crate::error::GpuError;
use crate::session::{grid, Session};

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
pub fn available(cc: ComputeCapability, kind: FlopKind) -> bool {
    roofline_hw::arch_or_older(cc).features.tensor.contains(&kind)
}

/// `Err` when libcublasLt cannot be loaded.
pub fn check_cublaslt() -> Result<(), GpuError> {
    // SAFETY: only tries to dlopen the library.
    if unsafe { lt::is_culib_present() } {
        Ok(())
    } else {
        Err(GpuError::NoLibrary {
            library: "cuBLASLt (libcublasLt.so)",
            consequence: "tensor-core peaks are not measured",
        })
    }
}

fn lt_err(what: &str, s: lt::cublasStatus_t) -> GpuError {
    GpuError::Library { library: "cuBLASLt", what: what.into(), detail: format!("{s:?}") }
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
        // SAFETY: each was created once (or is still null) and is destroyed once.
        unsafe {
            if !self.pref.is_null() {
                lt::cublasLtMatmulPreferenceDestroy(self.pref);
            }
            for l in self.layouts {
                if !l.is_null() {
                    lt::cublasLtMatrixLayoutDestroy(l);
                }
            }
            if !self.desc.is_null() {
                lt::cublasLtMatmulDescDestroy(self.desc);
            }
            lt::cublasLtDestroy(self.h);
        }
    }
}

/// A GEMM of one precision: inputs, output, workspace, cuBLASLt handles and
/// the algorithms the heuristic proposed.
struct Gemm {
    id: String,
    kind: FlopKind,
    n: u32,
    a: CudaSlice<u8>,
    b: CudaSlice<u8>,
    d: CudaSlice<u8>,
    ws: CudaSlice<u8>,
    hs: Handles,
    algos: Vec<lt::cublasLtMatmulAlgo_t>,
}

const WORKSPACE: usize = 32 << 20;

/// The tensor-core peak of one precision: the fastest of the algorithms
/// cuBLASLt proposes for an n^3 TN GEMM, checked against an FP64 reference.
pub(crate) fn gemm(st: &mut Setup<'_>, kind: FlopKind) -> Result<Built, GpuError> {
    check_cublaslt()?;
    let s = st.s;
    let (in_b, out_b) = sizes(kind);
    let need = |n: u64| 2 * n * n * in_b as u64 + n * n * out_b as u64 + WORKSPACE as u64;
    let free = s.free_bytes();
    let mut n = st.cfg.gemm_n;
    while need(n as u64) > free && n > 1024 {
        n /= 2;
    }
    if need(n as u64) > free {
        return Err(GpuError::OutOfMemory { what: format!("{} GEMM of {n}^3", st.spec.id), bytes: need(n as u64) });
    }
    if n < st.cfg.gemm_n {
        st.warnings.push(format!(
            "{}: not enough free device memory for {}^3: measured at {n}^3, which may be slower",
            st.spec.id, st.cfg.gemm_n
        ));
    }
    let (m, nn, k) = (n as u64, n as u64, n as u64);
    let mut a = s.alloc::<u8>((m * k) as usize * in_b, "GEMM A")?;
    let mut b = s.alloc::<u8>((k * nn) as usize * in_b, "GEMM B")?;
    let d = s.alloc::<u8>((m * nn) as usize * out_b, "GEMM D")?;
    let ws = s.alloc::<u8>(WORKSPACE, "cuBLASLt workspace")?;
    let t = type_code(kind);
    let init = s.function(TENSOR_CHECK, "gemm_init")?;
    for (buf, seed, count) in [(&mut a, 0xa1u32, m * k), (&mut b, 0xb2, k * nn)] {
        launch!(s, init, grid(s.sms() * 4, 256, 0); buf, &count, &seed, &t)?;
    }
    let hs = handles(kind, m, nn, k)?;
    let algos = heuristic(&hs, st.cfg.gemm_algos.max(1))?;
    if algos.is_empty() {
        return Err(GpuError::bench(
            &st.spec.id,
            format!("cuBLASLt has no algorithm for {} on this GPU", st.spec.label),
        ));
    }
    let flops = 2.0 * (m * nn * k) as f64;
    let candidates = (0..algos.len())
        .map(|i| Candidate {
            label: format!("algorithm {} of {}", i + 1, algos.len()),
            shape: LaunchShape::default(),
            work: flops,
            x: None,
            variant: i,
        })
        .collect();
    // SAFETY: reads a version number.
    let version = unsafe { lt::cublasLtGetVersion() };
    let plan = Plan {
        unit: kind.rate_unit(),
        candidates,
        axis: None,
        size: format!("M = N = K = {n}"),
        method: format!(
            "cuBLASLt {version} (loaded at run time), TN GEMM, the fastest of {} proposed algorithms by timing; timed in bursts of {} launches after {} ms idle each, the rate before the power cap lowers the clock",
            algos.len(),
            super::suite::BURST_LAUNCHES,
            super::suite::BURST_GAP_MS
        ),
    };
    let w = Gemm { id: st.spec.id.clone(), kind, n, a, b, d, ws, hs, algos };
    Ok((Box::new(w), plan))
}

fn handles(kind: FlopKind, m: u64, nn: u64, k: u64) -> Result<Handles, GpuError> {
    use lt::cudaDataType_t::*;
    let (ab_t, cd_t, compute, scale) = match kind {
        FlopKind::TensorBf16 => (CUDA_R_16BF, CUDA_R_16BF, lt::cublasComputeType_t::CUBLAS_COMPUTE_32F, CUDA_R_32F),
        FlopKind::TensorFp16 => (CUDA_R_16F, CUDA_R_16F, lt::cublasComputeType_t::CUBLAS_COMPUTE_32F, CUDA_R_32F),
        FlopKind::TensorTf32 => {
            (CUDA_R_32F, CUDA_R_32F, lt::cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F)
        }
        FlopKind::TensorFp8 => (CUDA_R_8F_E4M3, CUDA_R_16BF, lt::cublasComputeType_t::CUBLAS_COMPUTE_32F, CUDA_R_32F),
        FlopKind::TensorFp64 => (CUDA_R_64F, CUDA_R_64F, lt::cublasComputeType_t::CUBLAS_COMPUTE_64F, CUDA_R_64F),
        other => {
            return Err(GpuError::Library {
                library: "cuBLASLt",
                what: "GEMM types".into(),
                detail: format!("no tensor GEMM for {}", other.label()),
            })
        }
    };
    // SAFETY: plain cuBLASLt object creation; every handle is destroyed by `Handles`.
    unsafe {
        let mut h = std::ptr::null_mut();
        ok("create", lt::cublasLtCreate(&mut h))?;
        let mut hs =
            Handles { h, desc: std::ptr::null_mut(), layouts: [std::ptr::null_mut(); 3], pref: std::ptr::null_mut() };
        ok("matmul desc", lt::cublasLtMatmulDescCreate(&mut hs.desc, compute, scale))?;
        // A transposed, B not: the TN layout of the check kernel.
        for (what, attr, v) in [
            ("transa", lt::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSA, 1i32),
            ("transb", lt::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSB, 0i32),
        ] {
            let p = &v as *const i32 as *const c_void;
            ok(what, lt::cublasLtMatmulDescSetAttribute(hs.desc, attr, p, std::mem::size_of::<i32>()))?;
        }
        ok("layout A", lt::cublasLtMatrixLayoutCreate(&mut hs.layouts[0], ab_t, k, m, k as i64))?;
        ok("layout B", lt::cublasLtMatrixLayoutCreate(&mut hs.layouts[1], ab_t, k, nn, k as i64))?;
        ok("layout D", lt::cublasLtMatrixLayoutCreate(&mut hs.layouts[2], cd_t, m, nn, m as i64))?;
        ok("preference", lt::cublasLtMatmulPreferenceCreate(&mut hs.pref))?;
        let wsb: u64 = WORKSPACE as u64;
        ok(
            "workspace",
            lt::cublasLtMatmulPreferenceSetAttribute(
                hs.pref,
                lt::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                &wsb as *const u64 as *const c_void,
                8,
            ),
        )?;
        Ok(hs)
    }
}

fn heuristic(hs: &Handles, want: usize) -> Result<Vec<lt::cublasLtMatmulAlgo_t>, GpuError> {
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
    Ok(heur.into_iter().filter(|r| r.state == lt::cublasStatus_t::CUBLAS_STATUS_SUCCESS).map(|r| r.algo).collect())
}

impl Workload for Gemm {
    fn launch(&mut self, s: &Session, c: &Candidate) -> Result<(), GpuError> {
        let algo = &self.algos[c.variant];
        let (alpha32, beta32, alpha64, beta64) = (1.0f32, 0.0f32, 1.0f64, 0.0f64);
        let (pa, pb): (*const c_void, *const c_void) = if self.kind == FlopKind::TensorFp64 {
            (&alpha64 as *const f64 as _, &beta64 as *const f64 as _)
        } else {
            (&alpha32 as *const f32 as _, &beta32 as *const f32 as _)
        };
        let stream = s.stream();
        let cu_stream = stream.cu_stream() as lt::cudaStream_t;
        let (ap, _ga) = self.a.device_ptr(stream);
        let (bp, _gb) = self.b.device_ptr(stream);
        let (dp, _gd) = self.d.device_ptr_mut(stream);
        let (wp, _gw) = self.ws.device_ptr_mut(stream);
        let hs = &self.hs;
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
                WORKSPACE,
                cu_stream,
            )
        })
    }

    fn verify(&mut self, s: &Session, c: &Candidate) -> Result<String, GpuError> {
        s.poison(&mut self.d)?;
        self.launch(s, c)?;
        s.sync()?;
        let f = s.function(TENSOR_CHECK, "gemm_check")?;
        let bad = bad_counter(s)?;
        let t = type_code(self.kind);
        let n = self.n;
        let (rtol, atol) = tolerance(self.kind, n);
        let cfg =
            cudarc::driver::LaunchConfig { grid_dim: (n / 16, n / 16, 1), block_dim: (16, 16, 1), shared_mem_bytes: 0 };
        launch!(s, f, cfg; &self.a, &self.b, &self.d, &t, &n, &n, &n, &rtol, &atol, &bad)?;
        read_bad(s, &bad, n as u64 * n as u64, &self.id)?;
        Ok(format!(
            "all {} output elements, poisoned first, against an FP64 reference GEMM (|error| <= {rtol:e} x |ref| + {atol:e})",
            n as u64 * n as u64
        ))
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
            assert!(available(ComputeCapability::new(9, 0), k), "{k}");
        }
        assert!(!available(ComputeCapability::new(7, 5), FlopKind::TensorBf16));
        assert!(!available(ComputeCapability::new(8, 6), FlopKind::TensorFp64));
        assert!(!available(ComputeCapability::new(8, 0), FlopKind::TensorFp8));
    }

    #[test]
    fn tolerances_grow_with_k_and_fp64_is_tight() {
        let (_, a1) = tolerance(FlopKind::TensorBf16, 1024);
        let (_, a2) = tolerance(FlopKind::TensorBf16, 8192);
        assert!(a2 > a1);
        assert!(tolerance(FlopKind::TensorFp64, 8192).0 < 1e-10);
    }
}
