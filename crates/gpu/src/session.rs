//! One GPU session: the context and stream of one device, the modules
//! compiled for it, device memory and CUDA-event timing.
//!
//! Everything in this crate that runs a kernel goes through a [`Session`]:
//! the benchmark suite, the example kernels of the main job and the
//! occupancy check. So there is one place where allocation failures become
//! [`GpuError::OutOfMemory`] with the size that did not fit, one place where
//! CUDA sources are compiled (and cached by name) for the device's own
//! architecture, and one way to time launches.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{
    result as dres, sys, CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtrMut, DeviceRepr,
    LaunchConfig, ValidAsZeroBits,
};
use cudarc::nvrtc::Ptx;

use crate::device::{self, DeviceInfo};
use crate::error::GpuError;
use crate::nvrtc;

/// How many launches to time: `warmup` untimed, then `runs` runs of `reps`
/// launches, each launch between two CUDA events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reps {
    /// Untimed launches before the first run.
    pub warmup: usize,
    /// Separate runs; callers report the best run's median.
    pub runs: usize,
    /// Timed launches per run.
    pub reps: usize,
    /// Idle time before each run, milliseconds; 0 runs them back to back.
    /// With a gap, each run also starts with one untimed launch that
    /// brings the clock back up after the idle time.
    pub gap_ms: u32,
}

impl Reps {
    /// `warmup` untimed launches, then `runs` runs of `reps`, back to back.
    pub const fn new(warmup: usize, runs: usize, reps: usize) -> Reps {
        Reps { warmup, runs, reps, gap_ms: 0 }
    }

    /// `runs` short bursts of `reps` launches, each after `gap_ms` of idle
    /// time and one untimed launch: the rate a kernel reaches before the
    /// power cap's controller lowers the clock, as a GEMM of a real program
    /// does between other work (the cap answers within tens of ms of
    /// sustained full load; on the H200 the BF16 GEMM timed back to back
    /// gave 721 TFLOP/s at 1560 MHz, where its short search timings reached
    /// 829; in bursts it gave 850 at 1980 MHz, twice within 0.1%:
    /// results/h200-2026-12-02-tensor-roof).
    pub const fn bursts(warmup: usize, runs: usize, reps: usize, gap_ms: u32) -> Reps {
        Reps { warmup, runs, reps, gap_ms }
    }
}

/// Seconds per timed launch, per run, with each run's time window in
/// seconds since the session's epoch (for matching clock samples).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Timing {
    /// Seconds per timed launch, one list per run.
    pub runs: Vec<Vec<f64>>,
    /// Each run's (start, end), seconds since [`Session::epoch`].
    pub windows: Vec<(f64, f64)>,
}

impl Timing {
    /// The shortest launch of the first run (a search's figure).
    pub fn fastest(&self) -> Option<f64> {
        self.runs.first()?.iter().copied().filter(|s| *s > 0.0).reduce(f64::min)
    }
}

/// A grid of `grid` blocks of `block` threads with `shared` bytes of dynamic
/// shared memory, in one dimension.
pub fn grid(grid: u32, block: u32, shared: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: shared }
}

/// The context, stream and modules of one GPU.
pub struct Session {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    info: DeviceInfo,
    arch: String,
    modules: HashMap<String, Arc<CudaModule>>,
    epoch: Instant,
}

impl Session {
    /// Opens device `ordinal`: its attributes, its primary context and one
    /// stream. Fails with a typed error when the driver or the device is
    /// missing.
    pub fn open(ordinal: usize) -> Result<Session, GpuError> {
        let info = device::query(ordinal)?;
        let ctx = device::open(ordinal)?;
        // One stream and no per-launch event tracking: the timings hold
        // only the kernels.
        // SAFETY: the session uses this context from one thread, with one stream.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.default_stream();
        let arch = info.sm_arch(false);
        Ok(Session { ctx, stream, info, arch, modules: HashMap::new(), epoch: Instant::now() })
    }

    /// The device's attributes, as read when the session opened.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The NVRTC target, "sm_90".
    pub fn arch(&self) -> &str {
        &self.arch
    }

    /// Streaming multiprocessors of the device.
    pub fn sms(&self) -> u32 {
        self.info.attrs.sms
    }

    /// The CUDA context (cudarc), for calls the session does not wrap.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream every launch and copy of the session goes to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// When the session started; [`Session::now`] counts from it.
    pub fn epoch(&self) -> Instant {
        self.epoch
    }

    /// Seconds since the session's epoch.
    pub fn now(&self) -> f64 {
        self.epoch.elapsed().as_secs_f64()
    }

    /// Compiles the benchmark sources not compiled yet (in parallel, each
    /// with the shared header) and keeps their modules under their names.
    pub fn load_sources(&mut self, sources: &[(&str, &str)]) -> Result<(), GpuError> {
        let todo: Vec<(&str, &str)> = sources.iter().copied().filter(|(n, _)| !self.modules.contains_key(*n)).collect();
        let arch = self.arch.clone();
        let cubins: Vec<Result<Vec<u8>, GpuError>> = std::thread::scope(|s| {
            let hs: Vec<_> = todo.iter().map(|(n, src)| s.spawn(|| nvrtc::compile(n, src, &arch))).collect();
            hs.into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(GpuError::Compile {
                            kernel: "?".into(),
                            arch: arch.clone(),
                            detail: "the NVRTC thread panicked".into(),
                            log: String::new(),
                        })
                    })
                })
                .collect()
        });
        for ((name, _), cubin) in todo.iter().zip(cubins) {
            self.load_cubin(name, cubin?)?;
        }
        Ok(())
    }

    /// Compiles `src` as it is with `options` (architecture included), keeps
    /// the module under `key` and returns it with the compiler's log.
    pub fn compile(&mut self, key: &str, src: &str, options: &[String]) -> Result<(Arc<CudaModule>, String), GpuError> {
        let c = nvrtc::compile_with(key, src, &self.arch.clone(), options)?;
        let m = self.load_cubin(key, c.cubin)?;
        Ok((m, c.log))
    }

    /// Loads a CUBIN and keeps its module under `key`.
    pub fn load_cubin(&mut self, key: &str, cubin: Vec<u8>) -> Result<Arc<CudaModule>, GpuError> {
        let m = self
            .ctx
            .load_module(Ptx::from_binary(cubin))
            .map_err(|e| GpuError::driver(format!("loading {key} ({} CUBIN)", self.arch), e))?;
        self.modules.insert(key.to_string(), m.clone());
        Ok(m)
    }

    /// Whether a module was compiled under `key`.
    pub fn has_module(&self, key: &str) -> bool {
        self.modules.contains_key(key)
    }

    /// Kernel `name` of the module kept under `module`.
    pub fn function(&self, module: &str, name: &str) -> Result<CudaFunction, GpuError> {
        let m = self.modules.get(module).ok_or_else(|| GpuError::Compile {
            kernel: module.into(),
            arch: self.arch.clone(),
            detail: "not compiled in this session".into(),
            log: String::new(),
        })?;
        m.load_function(name).map_err(|e| GpuError::driver(format!("kernel {name} of {module}"), e))
    }

    /// `n` elements of device memory, uninitialised; out of memory is
    /// [`GpuError::OutOfMemory`] with the bytes asked for.
    pub fn alloc<T: DeviceRepr>(&self, n: usize, what: &str) -> Result<CudaSlice<T>, GpuError> {
        let bytes = (n * std::mem::size_of::<T>()) as u64;
        // SAFETY: callers write every buffer (init, upload or poison) before a kernel reads it.
        unsafe { self.stream.alloc::<T>(n) }.map_err(|e| GpuError::allocation(what, bytes, e))
    }

    /// `n` zeroed elements.
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(&self, n: usize, what: &str) -> Result<CudaSlice<T>, GpuError> {
        let mut s = self.alloc::<T>(n, what)?;
        self.stream.memset_zeros(&mut s).map_err(|e| GpuError::driver("memset", e))?;
        Ok(s)
    }

    /// Copies `v` to a new device buffer (out of memory is [`GpuError::OutOfMemory`]).
    pub fn upload<T: DeviceRepr>(&self, v: &[T]) -> Result<CudaSlice<T>, GpuError> {
        self.stream
            .clone_htod(v)
            .map_err(|e| GpuError::allocation("copy to device", std::mem::size_of_val(v) as u64, e))
    }

    /// Copies a whole device buffer back to the host.
    pub fn download<T: DeviceRepr + Default + Clone>(&self, s: &CudaSlice<T>) -> Result<Vec<T>, GpuError> {
        self.stream.clone_dtoh(s).map_err(|e| GpuError::driver("copy to host", e))
    }

    /// The first `n` elements of `s`.
    pub fn download_prefix<T: DeviceRepr + Default + Clone>(
        &self,
        s: &CudaSlice<T>,
        n: usize,
    ) -> Result<Vec<T>, GpuError> {
        self.stream.clone_dtoh(&s.slice(0..n.min(s.len()))).map_err(|e| GpuError::driver("copy to host", e))
    }

    /// Element `i` of `s`.
    pub fn element<T: DeviceRepr + Default + Clone>(&self, s: &CudaSlice<T>, i: usize) -> Result<T, GpuError> {
        let v = self.stream.clone_dtoh(&s.slice(i..i + 1)).map_err(|e| GpuError::driver("copy to host", e))?;
        Ok(v[0].clone())
    }

    /// Fills a buffer with 0xFF bytes (NaN in every float format), so that
    /// output a kernel failed to write cannot pass a check.
    pub fn poison<T>(&self, s: &mut CudaSlice<T>) -> Result<(), GpuError> {
        let bytes = s.num_bytes();
        let (ptr, _g) = s.device_ptr_mut(&self.stream);
        // SAFETY: ptr spans `bytes` bytes of this allocation.
        unsafe { dres::memset_d8_async(ptr, 0xFF, bytes, self.stream.cu_stream()) }
            .map_err(|e| GpuError::driver("poisoning output", e))
    }

    /// Waits for everything queued on the session's stream.
    pub fn sync(&self) -> Result<(), GpuError> {
        self.stream.synchronize().map_err(|e| GpuError::driver("synchronize", e))
    }

    /// Free device memory now (half the total when the driver cannot say).
    pub fn free_bytes(&self) -> u64 {
        self.ctx.mem_get_info().map(|(f, _)| f as u64).unwrap_or(self.info.total_memory_bytes / 2)
    }

    /// Times `launch`: `warmup` untimed calls, then `runs` runs of `reps`
    /// calls, with a CUDA event recorded before the first and after each.
    pub fn time(&self, reps: Reps, launch: &mut dyn FnMut() -> Result<(), GpuError>) -> Result<Timing, GpuError> {
        for _ in 0..reps.warmup {
            launch()?;
        }
        self.sync()?;
        let ev =
            || self.ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(|e| GpuError::driver("event", e));
        let mut out = Timing::default();
        for _ in 0..reps.runs {
            if reps.gap_ms > 0 {
                self.sync()?;
                std::thread::sleep(std::time::Duration::from_millis(reps.gap_ms.into()));
                launch()?;
            }
            let events: Vec<_> = (0..=reps.reps).map(|_| ev()).collect::<Result<_, _>>()?;
            let from = self.now();
            events[0].record(&self.stream).map_err(|e| GpuError::driver("event record", e))?;
            for e in &events[1..] {
                launch()?;
                e.record(&self.stream).map_err(|e| GpuError::driver("event record", e))?;
            }
            self.sync()?;
            let to = self.now();
            let mut secs = Vec::with_capacity(reps.reps);
            for w in events.windows(2) {
                let ms = w[0].elapsed_ms(&w[1]).map_err(|e| GpuError::driver("event time", e))?;
                secs.push(ms as f64 / 1e3);
            }
            out.runs.push(secs);
            out.windows.push((from, to));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fastest_launch_of_a_search_ignores_zero_and_empty() {
        let t = Timing { runs: vec![vec![2e-3, 1e-3, 0.0]], windows: vec![(0.0, 1.0)] };
        assert_eq!(t.fastest(), Some(1e-3));
        assert_eq!(Timing::default().fastest(), None);
    }

    #[test]
    fn session_on_a_missing_gpu_is_an_error_not_a_panic() {
        match Session::open(0) {
            Ok(s) => {
                crate::skip_notice("a GPU is present; the no-GPU session error is not exercised");
                assert!(s.arch().starts_with("sm_"));
                let big = s.alloc::<u8>(usize::MAX / 4, "an impossible buffer");
                assert!(matches!(big, Err(GpuError::OutOfMemory { .. })), "{big:?}");
            }
            Err(e) => {
                assert!(matches!(e, GpuError::NoDriver | GpuError::NoDevice(_) | GpuError::Driver { .. }), "{e:?}")
            }
        }
    }
}
