//! What the benchmark workloads and the GPU executor that drives them share
//! ([`Workload`], [`Setup`], `launch!`, module names, buffer helpers), kept
//! below both so that neither imports the other.

use cudarc::driver::{CudaSlice, PushKernelArg};

use super::executor::{Candidate, Plan};
use super::suite::{BenchSpec, SuiteConfig};
use super::verify;
use crate::error::GpuError;
use crate::session::{grid, Session};

/// The modules every benchmark session compiles.
pub const MEMORY: &str = "memory.cu";
pub const COMPUTE: &str = "compute.cu";
pub const TENSOR_CHECK: &str = "tensor_check.cu";
pub const INSTRUCTIONS: &str = "instructions.cu";
/// Hopper and newer only.
pub const L2_TMA: &str = "l2_tma.cu";
pub const INTERCONNECT: &str = "interconnect.cu";

/// One benchmark's buffers and kernels on the GPU.
pub(crate) trait Workload {
    fn launch(&mut self, s: &Session, c: &Candidate) -> Result<(), GpuError>;
    fn verify(&mut self, s: &Session, c: &Candidate) -> Result<String, GpuError>;
}

/// What a workload's constructor gets.
pub(crate) struct Setup<'a> {
    pub s: &'a Session,
    pub spec: &'a BenchSpec,
    pub cfg: &'a SuiteConfig,
    pub warnings: &'a mut Vec<String>,
}

impl Setup<'_> {
    /// A plan in the benchmark's own unit, measured with NVRTC-compiled kernels.
    pub fn plan(&self, candidates: Vec<Candidate>, axis: Option<&str>, size: String) -> Plan {
        Plan { unit: self.spec.what.unit(), candidates, axis: axis.map(String::from), size, method: method(self.s) }
    }
}

pub(crate) type Built = (Box<dyn Workload>, Plan);

/// "NVRTC sm_90 CUBIN, CUDA events".
pub fn method(s: &Session) -> String {
    format!("NVRTC {} CUBIN, CUDA events", s.arch())
}

/// Launches kernel `$f` on the session's stream with the listed arguments.
/// SAFETY (of the launch inside): the arguments match the kernel's signature
/// in the .cu file the function comes from.
macro_rules! launch {
    ($s:expr, $f:expr, $cfg:expr; $($arg:expr),* $(,)?) => {{
        let mut b = $s.stream().launch_builder(&$f);
        $( b.arg($arg); )*
        unsafe { b.launch($cfg) }.map(|_| ()).map_err(|e| crate::GpuError::driver(format!("launching {}", stringify!($f)), e))
    }};
}
pub(crate) use launch;

/// "1.50 GiB", "96.0 MiB".
pub fn gib(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

/// A fresh [count, first index] mismatch counter for the check kernels.
pub fn bad_counter(s: &Session) -> Result<CudaSlice<u64>, GpuError> {
    s.upload(&[0u64, u64::MAX])
}

/// Turns a mismatch counter into a verification error.
pub fn read_bad(s: &Session, bad: &CudaSlice<u64>, total: u64, id: &str) -> Result<(), GpuError> {
    let v = s.download(bad)?;
    match verify::mismatch_report(v[0], v[1], total) {
        None => Ok(()),
        Some(detail) => Err(GpuError::Verification { bench: id.into(), detail }),
    }
}

/// Random 32-bit words from the hash (`rl_hash`).
pub fn init_u32(s: &Session, buf: &mut CudaSlice<u32>, seed: u32) -> Result<(), GpuError> {
    let f = s.function(MEMORY, "init_u32")?;
    let n = buf.len() as u64;
    launch!(s, f, grid(s.sms() * 8, 256, 0); buf, &n, &seed)
}

/// Random floats in [-1, 1) (`rl_unit`), into 32-bit words.
pub fn init_f32_words(s: &Session, buf: &mut CudaSlice<u32>, seed: u32) -> Result<(), GpuError> {
    let f = s.function(MEMORY, "init_f32")?;
    let n = buf.len() as u64;
    launch!(s, f, grid(s.sms() * 8, 256, 0); buf, &n, &seed)
}

/// The wrapping sum of a buffer, on the device.
pub fn sum_u32(s: &Session, buf: &CudaSlice<u32>) -> Result<u32, GpuError> {
    let f = s.function(MEMORY, "sum_u32")?;
    let total = s.zeros::<u32>(1, "sum")?;
    let n = buf.len() as u64;
    launch!(s, f, grid(s.sms() * 4, 256, 0); buf, &n, &total)?;
    Ok(s.download(&total)?[0])
}

/// Compares device results with the host's, as a verification error.
pub fn compare<T: PartialEq + Copy + std::fmt::Debug>(
    id: &str,
    got: &[T],
    want: impl Fn(usize) -> T,
) -> Result<(), GpuError> {
    verify::compare_exact(got, want).map_err(|detail| GpuError::Verification { bench: id.into(), detail })
}
