//! The [`Executor`] of a real GPU: a [`Session`] with the benchmark modules
//! compiled, the NVML sampler for clocks, and the benchmark being measured
//! (a [`Workload`]: its buffers, kernels and checks).

use super::executor::{Candidate, Executor, Prepared};
use super::interconnect::{self, Links};
use super::suite::{BenchSpec, SuiteConfig, What};
use super::workload::{Setup, Workload, COMPUTE, INSTRUCTIONS, INTERCONNECT, L2_TMA, MEMORY, TENSOR_CHECK};
use super::{compute, instructions, memory, tensor};
use crate::error::GpuError;
use crate::nvml::{summarize, ClockSummary, Sampler};
use crate::nvrtc;
use crate::session::{Reps, Session, Timing};

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
