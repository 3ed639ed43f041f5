//! The [`Executor`] of a real GPU: a [`Session`] with the benchmark modules
//! compiled, the NVML sampler for clocks, and the benchmark being measured
//! (a [`Workload`]: its buffers, kernels and checks).

use cudarc::driver::{CudaSlice, PushKernelArg};

use super::executor::{Candidate, Executor, Plan, Prepared};
use super::interconnect::{self, Links};
use super::suite::{BenchSpec, SuiteConfig, What};
use super::{compute, instructions, memory, tensor, verify};
use crate::error::GpuError;
use crate::nvml::{summarize, ClockSummary, Sampler};
use crate::nvrtc;
use crate::session::{grid, Reps, Session, Timing};

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

/// The benchmark suite's executor on one GPU.
pub(crate) struct GpuExecutor {
    session: Session,
    sampler: Option<Sampler>,
    cublaslt: bool,
    current: Option<Box<dyn Workload>>,
    warnings: Vec<String>,
    /// The other GPUs, peer access and NCCL, for the link benchmarks.
    links: Links,
}

impl GpuExecutor {
    /// Compiles the benchmark sources for the session's device; `gpus` is
    /// how many GPUs the machine has (for the link benchmarks).
    pub fn new(
        mut session: Session,
        sampler: Option<Sampler>,
        cublaslt: bool,
        gpus: usize,
    ) -> Result<GpuExecutor, GpuError> {
        let mut sources = vec![
            (MEMORY, nvrtc::MEMORY),
            (COMPUTE, nvrtc::COMPUTE),
            (TENSOR_CHECK, nvrtc::TENSOR_CHECK),
            (INSTRUCTIONS, nvrtc::INSTRUCTIONS),
            (INTERCONNECT, nvrtc::INTERCONNECT),
        ];
        if roofline_hw::arch_or_older(session.info().attrs.cc).features.tma {
            sources.push((L2_TMA, nvrtc::L2_TMA));
        }
        session.load_sources(&sources)?;
        Ok(GpuExecutor { session, sampler, cublaslt, current: None, warnings: Vec::new(), links: Links::new(gpus) })
    }

    pub fn session(&self) -> &Session {
        &self.session
    }

    fn workload(&mut self) -> Result<&mut Box<dyn Workload>, GpuError> {
        self.current.as_mut().ok_or_else(|| GpuError::bench("bench", "no benchmark prepared"))
    }
}

impl Executor for GpuExecutor {
    fn prepare(&mut self, spec: &BenchSpec, cfg: &SuiteConfig) -> Result<Prepared, GpuError> {
        self.current = None;
        let cc = self.session.info().cc();
        if let What::Tensor(k) = spec.what {
            if !tensor::available(cc, k) {
                return Ok(Prepared::Skip("not on this architecture".into()));
            }
            if !self.cublaslt {
                return Ok(Prepared::Skip("skipped (no cuBLASLt)".into()));
            }
        }
        if let What::Link(link) = spec.what {
            return match interconnect::prepare(&mut self.links, &self.session, spec, cfg, &mut self.warnings, link)? {
                Ok((w, plan)) => {
                    self.current = Some(w);
                    Ok(Prepared::Plan(plan))
                }
                Err(why) => Ok(Prepared::Skip(why)),
            };
        }
        let mut setup = Setup { s: &self.session, spec, cfg, warnings: &mut self.warnings };
        let (w, plan) = match spec.what {
            What::DramRead | What::DramWrite | What::DramCopy | What::DramTriad | What::DramAdd => {
                memory::dram(&mut setup)?
            }
            What::L2Read => memory::l2_read(&mut setup)?,
            What::L2Write => memory::l2_write(&mut setup)?,
            What::SharedRead => compute::shared_bandwidth(&mut setup)?,
            What::Fma(kind) => compute::fma(&mut setup, kind)?,
            What::Sweep(kind) => compute::intensity_sweep(&mut setup, kind)?,
            What::Tensor(kind) => tensor::gemm(&mut setup, kind)?,
            What::Int(op) => instructions::int(&mut setup, op)?,
            What::Mufu(op) => instructions::mufu(&mut setup, op)?,
            What::SharedInst(op) => instructions::shared(&mut setup, op)?,
            What::Atomic(space) => instructions::atomic(&mut setup, space)?,
            What::LoadIssue => instructions::load_issue(&mut setup)?,
            What::Link(_) => return Err(GpuError::bench(&spec.id, "a link benchmark reached the single-GPU path")),
        };
        self.current = Some(w);
        Ok(Prepared::Plan(plan))
    }

    fn time(&mut self, c: &Candidate, reps: Reps) -> Result<Timing, GpuError> {
        let w = self.current.as_mut().ok_or_else(|| GpuError::bench("bench", "no benchmark prepared"))?;
        let s = &self.session;
        s.time(reps, &mut || w.launch(s, c))
    }

    fn verify(&mut self, c: &Candidate) -> Result<String, GpuError> {
        self.workload()?;
        let w = self.current.as_mut().expect("checked above");
        let r = w.verify(&self.session, c);
        self.session.sync()?;
        r
    }

    fn clock(&self, window: (f64, f64)) -> Option<ClockSummary> {
        self.sampler.as_ref().and_then(|s| summarize(&s.window(window.0, window.1)))
    }

    fn release(&mut self) {
        self.current = None;
        // Let the frees and any failed launch settle before the next benchmark.
        let _ = self.session.sync();
    }

    fn drain_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }
}
