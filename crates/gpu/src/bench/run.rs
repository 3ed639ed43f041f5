//! Runs the suite on one GPU: compiles the kernels, sizes the buffers from
//! the free memory, searches launch shapes, times with CUDA events, checks
//! every output, and samples clocks during each measurement.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{
    result as dres, sys, CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr, LaunchConfig,
    PushKernelArg, ValidAsZeroBits,
};
use cudarc::nvrtc::Ptx;
use roofline_core::machine::FlopKind;
use roofline_core::stats::Spread;

use super::suite::{best_run, locate_ridge, BenchResult, BenchSpec, Launch, SuiteConfig, Sweep, SweepPoint, What};
use super::verify;
use crate::device::DeviceInfo;
use crate::error::GpuError;
use crate::nvml::{summarize, Sampler};
use crate::nvrtc;

/// A bulk-copy (TMA) L2 shape: blocks per SM, chunk bytes, chunks per block
/// per pass.
type TmaShape = (u32, u32, u32);

/// Seconds per timed launch, per run, with each run's sampler window.
pub(crate) struct Timing {
    pub runs: Vec<Vec<f64>>,
    pub windows: Vec<(f64, f64)>,
}

pub(crate) struct Gpu {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub info: DeviceInfo,
    pub cfg: SuiteConfig,
    pub sampler: Option<Sampler>,
    pub arch: String,
    memory: Arc<CudaModule>,
    compute: Arc<CudaModule>,
    pub check: Arc<CudaModule>,
    /// The bulk-copy L2 kernel, on sm_90 and newer.
    tma: Option<Arc<CudaModule>>,
    pub warnings: Vec<String>,
    t0: Instant,
}

fn cfg(grid: u32, block: u32, shared: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: shared }
}

/// Access width, threads per block and blocks per SM, from 512 threads per
/// SM up to the SM's limit.
pub fn shapes(max_threads_per_sm: u32) -> Vec<(u32, u32, u32)> {
    let max = max_threads_per_sm.max(1024);
    let mut v = Vec::new();
    for w in [16u32, 8, 4] {
        for t in [256u32, 512, 1024] {
            for bps in [1u32, 2, 4, 8] {
                if t * bps <= max && t * bps >= 512 {
                    v.push((w, t, bps));
                }
            }
        }
    }
    v
}

fn gib(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

impl Gpu {
    pub fn new(
        ctx: Arc<CudaContext>,
        info: DeviceInfo,
        cfg: SuiteConfig,
        sampler: Option<Sampler>,
    ) -> Result<Gpu, GpuError> {
        // One stream, no per-launch events: timings hold only the kernels.
        // SAFETY: this context is used from this thread with one stream.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.default_stream();
        let arch = info.sm_arch(false);
        let mut sources = vec![
            ("memory.cu", nvrtc::MEMORY),
            ("compute.cu", nvrtc::COMPUTE),
            ("tensor_check.cu", nvrtc::TENSOR_CHECK),
        ];
        let hopper = info.attrs.cc_major >= 9;
        if hopper {
            sources.push(("l2_tma.cu", nvrtc::L2_TMA));
        }
        let cubins: Vec<Result<Vec<u8>, GpuError>> = std::thread::scope(|s| {
            let hs: Vec<_> = sources.iter().map(|(n, src)| s.spawn(|| nvrtc::compile(n, src, &arch))).collect();
            hs.into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(GpuError::Other("NVRTC thread panicked".into()))))
                .collect()
        });
        let mut modules = Vec::new();
        for c in cubins {
            let m = ctx
                .load_module(Ptx::from_binary(c?))
                .map_err(|e| GpuError::driver(format!("loading the {arch} CUBIN"), e))?;
            modules.push(m);
        }
        let tma = if hopper { modules.pop() } else { None };
        let check = modules.pop().expect("three modules");
        let compute = modules.pop().expect("three modules");
        let memory = modules.pop().expect("three modules");
        Ok(Gpu {
            ctx,
            stream,
            info,
            cfg,
            sampler,
            arch,
            memory,
            compute,
            check,
            tma,
            warnings: Vec::new(),
            t0: Instant::now(),
        })
    }

    pub fn sms(&self) -> u32 {
        self.info.attrs.sms
    }

    fn func(m: &Arc<CudaModule>, name: &str) -> Result<CudaFunction, GpuError> {
        m.load_function(name).map_err(|e| GpuError::driver(format!("kernel {name}"), e))
    }
    pub fn mem_fn(&self, name: &str) -> Result<CudaFunction, GpuError> {
        Self::func(&self.memory, name)
    }
    pub fn comp_fn(&self, name: &str) -> Result<CudaFunction, GpuError> {
        Self::func(&self.compute, name)
    }

    pub fn alloc<T: DeviceRepr>(&self, n: usize, what: &str) -> Result<CudaSlice<T>, GpuError> {
        // SAFETY: every buffer is written (init or poison) before it is read.
        unsafe { self.stream.alloc::<T>(n) }.map_err(|e| {
            let bytes = (n * std::mem::size_of::<T>()) as u64;
            match GpuError::driver(what, e) {
                GpuError::OutOfMemory { what, .. } => GpuError::OutOfMemory { what, bytes },
                other => other,
            }
        })
    }

    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(&self, n: usize, what: &str) -> Result<CudaSlice<T>, GpuError> {
        let mut s = self.alloc::<T>(n, what)?;
        self.stream.memset_zeros(&mut s).map_err(|e| GpuError::driver("memset", e))?;
        Ok(s)
    }

    pub fn upload<T: DeviceRepr>(&self, v: &[T]) -> Result<CudaSlice<T>, GpuError> {
        self.stream.clone_htod(v).map_err(|e| GpuError::driver("copy to device", e))
    }

    pub fn download<T: DeviceRepr + Default + Clone>(&self, s: &CudaSlice<T>) -> Result<Vec<T>, GpuError> {
        self.stream.clone_dtoh(s).map_err(|e| GpuError::driver("copy to host", e))
    }

    /// Fills a buffer with 0xFF bytes (NaN in every float format), so that
    /// output a kernel failed to write cannot pass the check.
    pub fn poison<T>(&self, s: &mut CudaSlice<T>) -> Result<(), GpuError> {
        let bytes = s.num_bytes();
        let (ptr, _g) = cudarc::driver::DevicePtrMut::device_ptr_mut(s, &self.stream);
        // SAFETY: ptr spans `bytes` bytes of this allocation.
        unsafe { dres::memset_d8_async(ptr, 0xFF, bytes, self.stream.cu_stream()) }
            .map_err(|e| GpuError::driver("poisoning output", e))
    }

    pub fn sync(&self) -> Result<(), GpuError> {
        self.stream.synchronize().map_err(|e| GpuError::driver("synchronize", e))
    }

    pub fn free_bytes(&self) -> u64 {
        self.ctx.mem_get_info().map(|(f, _)| f as u64).unwrap_or(self.info.total_memory_bytes / 2)
    }

    fn now(&self) -> f64 {
        match &self.sampler {
            Some(s) => s.now(),
            None => self.t0.elapsed().as_secs_f64(),
        }
    }

    /// Times `launch`: `warmup` untimed calls, then `runs` runs of `reps`
    /// calls, each bracketed by CUDA events.
    pub fn time(
        &self,
        warmup: usize,
        runs: usize,
        reps: usize,
        launch: &mut dyn FnMut() -> Result<(), GpuError>,
    ) -> Result<Timing, GpuError> {
        for _ in 0..warmup {
            launch()?;
        }
        self.sync()?;
        let ev =
            || self.ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(|e| GpuError::driver("event", e));
        let mut out = Timing { runs: Vec::new(), windows: Vec::new() };
        for _ in 0..runs {
            let events: Vec<_> = (0..=reps).map(|_| ev()).collect::<Result<_, _>>()?;
            let from = self.now();
            events[0].record(&self.stream).map_err(|e| GpuError::driver("event record", e))?;
            for e in &events[1..] {
                launch()?;
                e.record(&self.stream).map_err(|e| GpuError::driver("event record", e))?;
            }
            self.sync()?;
            let to = self.now();
            let mut secs = Vec::with_capacity(reps);
            for w in events.windows(2) {
                let ms = w[0].elapsed_ms(&w[1]).map_err(|e| GpuError::driver("event time", e))?;
                secs.push(ms as f64 / 1e3);
            }
            out.runs.push(secs);
            out.windows.push((from, to));
        }
        Ok(out)
    }

    /// Builds the record of a benchmark from its timings.
    #[allow(clippy::too_many_arguments)]
    pub fn result(
        &self,
        spec: &BenchSpec,
        unit: &str,
        work: f64,
        t: &Timing,
        launch: Launch,
        size: String,
        method: String,
        verified: String,
    ) -> Result<BenchResult, GpuError> {
        let spreads: Vec<Spread> = t
            .runs
            .iter()
            .map(|r| Spread::from_samples(&r.iter().map(|s| work / s).collect::<Vec<_>>()))
            .collect::<Result<_, _>>()
            .map_err(|e| GpuError::Other(format!("{}: {e}", spec.id)))?;
        let best = best_run(&spreads).ok_or_else(|| GpuError::Other(format!("{}: no runs", spec.id)))?;
        let seconds = Spread::from_samples(&t.runs[best]).map_err(|e| GpuError::Other(e.to_string()))?;
        let clock = self.sampler.as_ref().and_then(|s| {
            let (a, b) = t.windows[best];
            summarize(&s.window(a, b))
        });
        Ok(BenchResult {
            id: spec.id.clone(),
            label: spec.label.clone(),
            what: spec.what,
            unit: unit.into(),
            rate: spreads[best],
            run_medians: spreads.iter().map(|s| s.median).collect(),
            seconds,
            work_per_launch: work,
            launch,
            size,
            clock,
            method,
            verified,
            search: Vec::new(),
            wall_s: 0.0,
        })
    }

    pub fn method(&self) -> String {
        format!("NVRTC {} CUBIN, CUDA events", self.arch)
    }

    /// A fresh [count, first index] mismatch counter.
    pub fn bad_counter(&self) -> Result<CudaSlice<u64>, GpuError> {
        self.upload(&[0u64, u64::MAX])
    }

    pub fn read_bad(&self, bad: &CudaSlice<u64>, total: u64, id: &str) -> Result<(), GpuError> {
        let v = self.download(bad)?;
        match verify::mismatch_report(v[0], v[1], total) {
            None => Ok(()),
            Some(detail) => Err(GpuError::Verification { bench: id.into(), detail }),
        }
    }

    fn init_u32(&self, s: &mut CudaSlice<u32>, seed: u32) -> Result<(), GpuError> {
        let f = self.mem_fn("init_u32")?;
        let n = s.len() as u64;
        let mut b = self.stream.launch_builder(&f);
        b.arg(s).arg(&n).arg(&seed);
        unsafe { b.launch(cfg(self.sms() * 8, 256, 0)) }.map_err(|e| GpuError::driver("init_u32", e))?;
        Ok(())
    }

    fn sum_u32(&self, s: &CudaSlice<u32>) -> Result<u32, GpuError> {
        let f = self.mem_fn("sum_u32")?;
        let total = self.zeros::<u32>(1, "sum")?;
        let n = s.len() as u64;
        let mut b = self.stream.launch_builder(&f);
        b.arg(s).arg(&n).arg(&total);
        unsafe { b.launch(cfg(self.sms() * 4, 256, 0)) }.map_err(|e| GpuError::driver("sum_u32", e))?;
        Ok(self.download(&total)?[0])
    }

    /// Launch shapes tried for streaming kernels: access width, threads per
    /// block and blocks per SM, at most the SM's thread limit.
    pub fn stream_shapes(&self) -> Vec<(u32, u32, u32)> {
        shapes(self.info.max_threads_per_sm)
    }

    /// DRAM array size in bytes: the suite's, or less when memory is short.
    fn dram_bytes(&mut self, arrays: u64) -> u64 {
        let want = self.cfg.dram_array_bytes;
        let free = self.free_bytes();
        let fit = (free as f64 * 0.8 / arrays as f64) as u64 & !((1u64 << 20) - 1);
        if fit < want {
            self.warnings.push(format!(
                "only {} of device memory free: DRAM arrays are {} instead of {}",
                gib(free),
                gib(fit),
                gib(want)
            ));
            fit
        } else {
            want
        }
    }

    /// One DRAM benchmark: search the launch shape, time, verify. Buffers
    /// are 32-bit words; the float kernels see them as `float*`.
    pub fn dram(&mut self, spec: &BenchSpec) -> Result<BenchResult, GpuError> {
        let what = spec.what;
        let arrays = what.arrays_touched();
        let bytes = self.dram_bytes(arrays);
        let n = (bytes / 4) as usize;
        let l2 = self.info.attrs.l2_bytes.unwrap_or(0);
        if l2 > 0 && bytes < 4 * l2 {
            self.warnings.push(format!("{}: arrays of {} are less than 4x the L2 ({})", spec.id, gib(bytes), gib(l2)));
        }
        let (sa, sb, sc, q) = (0x1234_u32, 0x5678_u32, 0x9abc_u32, 0.75f32);
        let uses = |x: char| match what {
            What::DramRead => x == 'a',
            What::DramWrite => x == 'b',
            What::DramCopy => x != 'c',
            _ => true,
        };
        let size_of = |x: char| if uses(x) { n } else { 1 };
        let mut a = self.alloc::<u32>(size_of('a'), "DRAM array a")?;
        let mut b = self.alloc::<u32>(size_of('b'), "DRAM array b")?;
        let mut c = self.alloc::<u32>(size_of('c'), "DRAM array c")?;
        let mut part =
            self.alloc::<u32>((self.sms() * self.info.max_threads_per_sm.max(2048)) as usize, "partial sums")?;
        match what {
            What::DramRead | What::DramCopy => self.init_u32(&mut a, sa)?,
            What::DramTriad => {
                self.init_f32_words(&mut b, sb)?;
                self.init_f32_words(&mut c, sc)?;
            }
            What::DramAdd => {
                self.init_f32_words(&mut a, sa)?;
                self.init_f32_words(&mut b, sb)?;
            }
            _ => {}
        }
        let name = match what {
            What::DramRead => "dram_read",
            What::DramWrite => "dram_write",
            What::DramCopy => "dram_copy",
            What::DramTriad => "dram_triad",
            _ => "dram_add",
        };
        let sms = self.sms();
        let has_u8 = matches!(what, What::DramRead | What::DramCopy);
        let mut fns: Vec<CudaFunction> =
            [4u32, 8, 16].iter().map(|w| self.mem_fn(&format!("{name}_{w}"))).collect::<Result<_, _>>()?;
        if has_u8 {
            fns.push(self.mem_fn(&format!("{name}_16_u8"))?);
        }
        let stream = self.stream.clone();
        // Width 32 stands for 16-byte accesses, eight in flight.
        let go = |w: u32,
                  t: u32,
                  bps: u32,
                  a: &mut CudaSlice<u32>,
                  b: &mut CudaSlice<u32>,
                  c: &mut CudaSlice<u32>,
                  part: &mut CudaSlice<u32>|
         -> Result<(), GpuError> {
            let f = &fns[match w {
                4 => 0,
                8 => 1,
                16 => 2,
                _ => 3,
            }];
            let w = w.min(16);
            let nv = (n as u64) / (w as u64 / 4);
            let mut l = stream.launch_builder(f);
            match what {
                What::DramRead => l.arg(&*a).arg(part).arg(&nv),
                What::DramWrite => l.arg(b).arg(&nv).arg(&sb),
                What::DramCopy => l.arg(&*a).arg(b).arg(&nv),
                What::DramTriad => l.arg(a).arg(&*b).arg(&*c).arg(&q).arg(&nv),
                _ => l.arg(&*a).arg(&*b).arg(c).arg(&nv),
            };
            unsafe { l.launch(cfg(sms * bps, t, 0)) }.map_err(|e| GpuError::driver(name, e))?;
            Ok(())
        };
        let moved = (arrays * bytes) as f64;
        let mut tried = Vec::new();
        let mut cands = self.stream_shapes();
        if has_u8 {
            let wide: Vec<_> = cands.iter().filter(|c| c.0 == 16).map(|c| (32, c.1, c.2)).collect();
            cands.splice(0..0, wide);
        }
        let inflight = |w: u32| match (what, w) {
            (_, 32) => 8,
            (What::DramRead | What::DramCopy, _) => 4,
            _ => 2,
        };
        for (w, t, bps) in cands {
            let tm = self.time(1, 1, 2, &mut || go(w, t, bps, &mut a, &mut b, &mut c, &mut part))?;
            let best = tm.runs[0].iter().cloned().fold(f64::INFINITY, f64::min);
            let l = Launch {
                grid: sms * bps,
                block: t,
                width: Some(w.min(16)),
                shared_bytes: None,
                unroll: Some(inflight(w)),
            };
            tried.push((l, moved / best));
        }
        let (launch, _) = super::search::best(&tried).ok_or_else(|| GpuError::Other("no launch shape".into()))?;
        let w = if launch.unroll == Some(8) { 32 } else { launch.width.unwrap_or(16) };
        let (t, bps) = (launch.block, launch.grid / sms);
        match what {
            What::DramRead => self.poison(&mut part)?,
            What::DramWrite | What::DramCopy => self.poison(&mut b)?,
            What::DramTriad => self.poison(&mut a)?,
            _ => self.poison(&mut c)?,
        }
        go(w, t, bps, &mut a, &mut b, &mut c, &mut part)?;
        self.sync()?;
        let verified = self.check_dram(spec, n, &a, &b, &c, &part, sms * bps * t, [sa, sb, sc], q)?;
        let tm = self.time(self.cfg.warmup, self.cfg.runs, self.cfg.reps, &mut || {
            go(w, t, bps, &mut a, &mut b, &mut c, &mut part)
        })?;
        let size = format!("{arrays} array(s) of {} ({n} 32-bit words each)", gib(bytes));
        let mut r = self.result(spec, "B/s", moved, &tm, launch, size, self.method(), verified)?;
        r.search = tried.iter().map(|(l, r)| (l.describe(), *r)).collect();
        Ok(r)
    }

    fn init_f32_words(&self, s: &mut CudaSlice<u32>, seed: u32) -> Result<(), GpuError> {
        let f = self.mem_fn("init_f32")?;
        let n = s.len() as u64;
        let mut b = self.stream.launch_builder(&f);
        b.arg(s).arg(&n).arg(&seed);
        unsafe { b.launch(cfg(self.sms() * 8, 256, 0)) }.map_err(|e| GpuError::driver("init_f32", e))?;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn check_dram(
        &self,
        spec: &BenchSpec,
        n: usize,
        a: &CudaSlice<u32>,
        b: &CudaSlice<u32>,
        c: &CudaSlice<u32>,
        part: &CudaSlice<u32>,
        threads: u32,
        [sa, sb, sc]: [u32; 3],
        q: f32,
    ) -> Result<String, GpuError> {
        let what = spec.what;
        let nn = n as u64;
        let bad = self.bad_counter()?;
        let lc = cfg(self.sms() * 8, 256, 0);
        let launch = |name: &str, out: &CudaSlice<u32>, s1: u32, s2: u32| -> Result<(), GpuError> {
            let f = self.mem_fn(name)?;
            let mut l = self.stream.launch_builder(&f);
            l.arg(out).arg(&nn).arg(&s1);
            if name != "check_write" && name != "check_copy" {
                l.arg(&s2);
            }
            if name == "check_triad" {
                l.arg(&q);
            }
            l.arg(&bad);
            unsafe { l.launch(lc) }.map_err(|e| GpuError::driver(name, e))?;
            Ok(())
        };
        let out = match what {
            What::DramRead => {
                let parts: Vec<u32> = self
                    .stream
                    .clone_dtoh(&part.slice(0..threads as usize))
                    .map_err(|e| GpuError::driver("copy", e))?;
                let got = parts.iter().fold(0u32, |x, y| x.wrapping_add(*y));
                let want = self.sum_u32(a)?;
                if got != want {
                    return Err(GpuError::Verification {
                        bench: spec.id.clone(),
                        detail: format!("the {threads} partial sums add to {got:#x}, the input to {want:#x}"),
                    });
                }
                return Ok(format!(
                    "the {threads} per-thread partial sums add up to the input's sum (exact, wrapping 32-bit)"
                ));
            }
            What::DramWrite => {
                launch("check_write", b, sb, 0)?;
                b
            }
            What::DramCopy => {
                launch("check_copy", b, sa, 0)?;
                b
            }
            What::DramTriad => {
                launch("check_triad", a, sb, sc)?;
                a
            }
            _ => {
                launch("check_add", c, sa, sb)?;
                c
            }
        };
        self.read_bad(&bad, nn, &spec.id)?;
        for i in [0usize, 1, n / 3, n - 1] {
            let got = self.word(out, i)?;
            let (u, v) = (|s| verify::unit(i as u64, s), i as u64);
            let want = match what {
                What::DramWrite => i as u32 ^ sb,
                What::DramCopy => verify::hash(v, sa),
                What::DramTriad => q.mul_add(u(sc), u(sb)).to_bits(),
                _ => (u(sa) + u(sb)).to_bits(),
            };
            if got != want {
                return Err(GpuError::Verification {
                    bench: spec.id.clone(),
                    detail: format!("element {i} is {got:#x}, the host expects {want:#x}"),
                });
            }
        }
        Ok(format!("all {n} output elements, poisoned first (device check against the hash; host cross-check of 4)"))
    }

    fn word(&self, s: &CudaSlice<u32>, i: usize) -> Result<u32, GpuError> {
        let v: Vec<u32> = self.stream.clone_dtoh(&s.slice(i..i + 1)).map_err(|e| GpuError::driver("copy", e))?;
        Ok(v[0])
    }
}

impl Gpu {
    /// L2 bandwidth: every thread reads its `nu` vectors of a buffer that
    /// fits in L2 many times, with L1-bypassing loads; the buffer size
    /// follows from the launch shape and `nu`, both searched.
    pub fn l2(&mut self, spec: &BenchSpec) -> Result<BenchResult, GpuError> {
        let l2 = self.info.attrs.l2_bytes.unwrap_or(40 << 20).max(1 << 20);
        let sms = self.sms();
        let variants: [(u32, u32); 5] = [(16, 2), (16, 4), (16, 8), (8, 4), (8, 8)];
        // Candidates: (width, accesses per thread, threads, blocks per SM,
        // working-set bytes, L1-allocating loads with a block-sized shift).
        // The L1-allocating loads run with the smallest L1 the SM allows
        // (shared-memory carveout 100%), so that L1 can neither serve nor
        // merge what blocks read again. With the largest L1 an H200 showed
        // 11.8 TB/s "requested" while Nsight Compute counted 8.8 TB/s
        // arriving at L2: that figure was L1's, not L2's
        // (results/h200-bench-2026-11-29.md).
        let mut cands = Vec::new();
        for (ca, carve) in [(false, -1), (true, 100)] {
            for (w, nu) in variants {
                for (_, t, bps) in self.stream_shapes().into_iter().filter(|s| s.0 == 16) {
                    let set = (sms * bps * t) as u64 * nu as u64 * w as u64;
                    if set <= l2 / 2 {
                        cands.push((w, nu, t, bps, set, ca, carve));
                    }
                }
            }
        }
        let max_set = (l2 / 2).max(cands.iter().map(|c| c.4).max().unwrap_or(0));
        let _ = cands
            .iter()
            .map(|c| c.4)
            .max()
            .ok_or_else(|| GpuError::Other("L2 too small for the L2 benchmark".into()))?;
        let mut buf = self.alloc::<u32>((max_set / 4) as usize, "L2 buffer")?;
        self.init_u32(&mut buf, 0x4242)?;
        let mut part = self.alloc::<u32>((sms * self.info.max_threads_per_sm.max(2048)) as usize, "partial sums")?;
        let mut fns = std::collections::HashMap::new();
        for (w, nu) in variants {
            fns.insert((w, nu, false), self.mem_fn(&format!("l2_read_{w}_u{nu}"))?);
            fns.insert((w, nu, true), self.mem_fn(&format!("l2_read_ca_{w}_u{nu}"))?);
        }
        let stream = self.stream.clone();
        // About 4 GB of reads per launch.
        let passes_for = |set: u64| ((4u64 << 30) / set).max(1) as u32;
        let go = |c: (u32, u32, u32, u32, u64, bool, i32),
                  part: &mut CudaSlice<u32>,
                  buf: &CudaSlice<u32>|
         -> Result<(), GpuError> {
            let (w, nu, t, bps, set, ca, carve) = c;
            let f = &fns[&(w, nu, ca)];
            if ca {
                f.set_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, carve)
                    .map_err(|e| GpuError::driver("L1 carveout", e))?;
            }
            let passes = passes_for(set);
            // L2-only loads: one thread row per pass, every access moves to
            // a new address. L1-allocating loads: seven blocks' worth, so
            // each block reads data another SM read before.
            let shift = if ca { 7 * t as u64 } else { (sms * bps * t) as u64 };
            let mut l = stream.launch_builder(f);
            l.arg(buf).arg(part).arg(&passes).arg(&shift);
            unsafe { l.launch(cfg(sms * bps, t, 0)) }.map_err(|e| GpuError::driver("l2_read", e))?;
            Ok(())
        };
        let launch_of = |c: &(u32, u32, u32, u32, u64, bool, i32)| Launch {
            grid: sms * c.3,
            block: c.2,
            width: Some(c.0),
            shared_bytes: None,
            unroll: Some(c.1),
        };
        let path = |c: &(u32, u32, u32, u32, u64, bool, i32)| {
            if c.5 {
                format!("ld.global.ca, shared carveout {}%", c.6)
            } else {
                "ld.global.cg (L2 only)".to_string()
            }
        };
        let mut tried = Vec::new();
        for &c in &cands {
            let tm = self.time(1, 1, 2, &mut || go(c, &mut part, &buf))?;
            let best = tm.runs[0].iter().cloned().fold(f64::INFINITY, f64::min);
            tried.push((launch_of(&c), (c.4 * passes_for(c.4) as u64) as f64 / best));
        }
        let (launch, rate) = super::search::best(&tried).ok_or_else(|| GpuError::Other("no launch shape".into()))?;
        let idx = tried.iter().position(|(l, r)| *l == launch && *r == rate).unwrap_or(0);
        let c = cands[idx];
        let mut search: Vec<(String, f64)> = tried
            .iter()
            .zip(&cands)
            .map(|((l, r), c)| (format!("{} over {}, {}", l.describe(), gib(c.4), path(c)), *r))
            .collect();
        match self.l2_tma_search(&buf, max_set, &mut search) {
            Ok(Some(t)) if t.1 > rate => match self.l2_tma_run(spec, &buf, t.0, search.clone()) {
                Ok(r) => return Ok(r),
                Err(e) => {
                    self.warnings.push(format!("{}: the bulk-copy variant failed ({e}); using plain loads", spec.id))
                }
            },
            Ok(_) => {}
            Err(e) => self.warnings.push(format!("{}: the bulk-copy variant failed ({e}); using plain loads", spec.id)),
        }
        let set = c.4;
        self.poison(&mut part)?;
        go(c, &mut part, &buf)?;
        self.sync()?;
        let threads = (sms * c.3 * c.2) as usize;
        let parts: Vec<u32> =
            self.stream.clone_dtoh(&part.slice(0..threads)).map_err(|e| GpuError::driver("copy", e))?;
        let got = parts.iter().fold(0u32, |x, y| x.wrapping_add(*y));
        let once = (0..set / 4).fold(0u32, |x, i| x.wrapping_add(verify::hash(i, 0x4242)));
        let want = once.wrapping_mul(passes_for(set));
        if got != want {
            return Err(GpuError::Verification {
                bench: spec.id.clone(),
                detail: format!("the partial sums add to {got:#x}, the host expects {want:#x}"),
            });
        }
        let tm = self.time(self.cfg.warmup, self.cfg.runs, self.cfg.reps, &mut || go(c, &mut part, &buf))?;
        let work = (set * passes_for(set) as u64) as f64;
        let size = format!(
            "{} working set ({}% of the {} L2), {} passes, {}",
            gib(set),
            set * 100 / l2,
            gib(l2),
            passes_for(set),
            path(&c)
        );
        let verified = format!("the {threads} partial sums add up to passes x the buffer's sum, computed on the host");
        let mut r = self.result(spec, "B/s", work, &tm, launch, size, self.method(), verified)?;
        r.search = search;
        Ok(r)
    }

    /// Bulk-copy (TMA) candidates.
    fn tma_shapes(&self, max_set: u64) -> Vec<TmaShape> {
        let sms = self.sms() as u64;
        let smem = self.info.max_shared_per_block_optin.max(48 * 1024) as u64;
        let mut v = Vec::new();
        for bps in [1u32, 2, 4] {
            for chunk in [8192u32, 16384, 32768] {
                let per_block = 4 * chunk as u64;
                if per_block * bps as u64 > 227 * 1024 || per_block > smem {
                    continue;
                }
                for target in [8u64 << 20, 16 << 20] {
                    let m = (target / (sms * bps as u64 * chunk as u64)).max(1) as u32;
                    let set = sms * bps as u64 * m as u64 * chunk as u64;
                    if set <= max_set && !v.contains(&(bps, chunk, m)) {
                        v.push((bps, chunk, m));
                    }
                }
            }
        }
        v
    }

    fn tma_launch(
        &self,
        f: &CudaFunction,
        out: &mut CudaSlice<u32>,
        buf: &CudaSlice<u32>,
        c: TmaShape,
    ) -> Result<(), GpuError> {
        let (bps, chunk, m) = c;
        let g = self.sms() * bps;
        let set = g as u64 * m as u64 * chunk as u64;
        let passes = ((4u64 << 30) / set).max(1) as u32;
        let shift = 7u64;
        let shared = 4 * chunk;
        f.set_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared as i32)
            .map_err(|e| GpuError::driver("shared-memory size", e))?;
        let mut l = self.stream.launch_builder(f);
        l.arg(buf).arg(out).arg(&m).arg(&chunk).arg(&passes).arg(&shift);
        unsafe { l.launch(cfg(g, 32, shared)) }.map_err(|e| GpuError::driver("l2_tma", e))?;
        Ok(())
    }

    fn tma_work(&self, c: TmaShape) -> (u64, u32) {
        let set = (self.sms() * c.0) as u64 * c.2 as u64 * c.1 as u64;
        (set, ((4u64 << 30) / set).max(1) as u32)
    }

    fn tma_describe(&self, c: TmaShape) -> String {
        let (set, _) = self.tma_work(c);
        format!(
            "bulk copy (TMA): {} blocks x 1 thread, 4 chunks of {} KiB in flight, over {}",
            self.sms() * c.0,
            c.1 / 1024,
            gib(set)
        )
    }

    /// The fastest bulk-copy shape and its rate, added to `search`.
    fn l2_tma_search(
        &mut self,
        buf: &CudaSlice<u32>,
        max_set: u64,
        search: &mut Vec<(String, f64)>,
    ) -> Result<Option<(TmaShape, f64)>, GpuError> {
        let Some(module) = self.tma.clone() else { return Ok(None) };
        let f = module.load_function("l2_tma").map_err(|e| GpuError::driver("kernel l2_tma", e))?;
        let mut out = self.alloc::<u32>((self.sms() * 4) as usize, "TMA sums")?;
        let mut best: Option<(TmaShape, f64)> = None;
        for c in self.tma_shapes(max_set) {
            let tm = self.time(1, 1, 2, &mut || self.tma_launch(&f, &mut out, buf, c))?;
            let t = tm.runs[0].iter().cloned().fold(f64::INFINITY, f64::min);
            let (set, passes) = self.tma_work(c);
            let rate = (set * passes as u64) as f64 / t;
            search.push((self.tma_describe(c), rate));
            if best.map(|b| rate > b.1).unwrap_or(true) {
                best = Some((c, rate));
            }
        }
        Ok(best)
    }

    fn l2_tma_run(
        &mut self,
        spec: &BenchSpec,
        buf: &CudaSlice<u32>,
        c: TmaShape,
        search: Vec<(String, f64)>,
    ) -> Result<BenchResult, GpuError> {
        let module = self.tma.clone().ok_or_else(|| GpuError::Other("no bulk-copy kernel".into()))?;
        let f = module.load_function("l2_tma").map_err(|e| GpuError::driver("kernel l2_tma", e))?;
        let g = (self.sms() * c.0) as usize;
        let mut out = self.alloc::<u32>(g, "TMA sums")?;
        self.poison(&mut out)?;
        self.tma_launch(&f, &mut out, buf, c)?;
        self.sync()?;
        let got = self.download(&out)?.iter().fold(0u32, |x, y| x.wrapping_add(*y));
        let (set, passes) = self.tma_work(c);
        let chunks = set / c.1 as u64;
        let once = (0..chunks).fold(0u32, |x, k| x.wrapping_add(verify::hash(k * (c.1 as u64 / 4), 0x4242)));
        let want = once.wrapping_mul(passes);
        if got != want {
            return Err(GpuError::Verification {
                bench: spec.id.clone(),
                detail: format!("the bulk-copy blocks' sums add to {got:#x}, the host expects {want:#x}"),
            });
        }
        let tm =
            self.time(self.cfg.warmup, self.cfg.runs, self.cfg.reps, &mut || self.tma_launch(&f, &mut out, buf, c))?;
        let l2 = self.info.attrs.l2_bytes.unwrap_or(0).max(1);
        let size = format!(
            "{} working set ({}% of the {} L2), {passes} passes, {}",
            gib(set),
            set * 100 / l2,
            gib(l2),
            self.tma_describe(c)
        );
        let launch = Launch { grid: g as u32, block: 32, width: None, shared_bytes: Some(4 * c.1), unroll: Some(4) };
        let verified = format!(
            "the first word of each of the {} chunks copied, summed per block, against the host's sum (every pass reads every chunk once)",
            chunks * passes as u64
        );
        let mut r =
            self.result(spec, "B/s", (set * passes as u64) as f64, &tm, launch, size, self.method(), verified)?;
        r.search = search;
        Ok(r)
    }

    /// Shared-memory bandwidth with LDS.128, conflict-free.
    pub fn shared(&mut self, spec: &BenchSpec) -> Result<BenchResult, GpuError> {
        const K: usize = 8;
        let sms = self.sms();
        let t = 256u32;
        let tile_words = t as usize * K * 4;
        let shared = (tile_words * 4) as u32;
        let mut src = self.alloc::<u32>(tile_words, "shared tile source")?;
        self.init_u32(&mut src, 0x5151)?;
        let tile: Vec<u32> = (0..tile_words as u64).map(|i| verify::hash(i, 0x5151)).collect();
        let f = self.comp_fn("smem_read")?;
        let per_sm = (self.info.max_threads_per_sm.max(1024) / t).max(1);
        let max_bps = ((228 * 1024) / (shared + 1024)).min(per_sm);
        let reps = if self.cfg.quick { 2048u32 } else { 4096 };
        let mut out = self.alloc::<u32>((sms * per_sm * t) as usize, "shared output")?;
        let stream = self.stream.clone();
        let go = |bps: u32, out: &mut CudaSlice<u32>| -> Result<(), GpuError> {
            let mut l = stream.launch_builder(&f);
            l.arg(&src).arg(out).arg(&reps);
            unsafe { l.launch(cfg(sms * bps, t, shared)) }.map_err(|e| GpuError::driver("smem_read", e))?;
            Ok(())
        };
        let mut tried = Vec::new();
        for bps in [2u32, 4, 6, 8].into_iter().filter(|b| *b <= max_bps) {
            let tm = self.time(1, 1, 2, &mut || go(bps, &mut out))?;
            let best = tm.runs[0].iter().cloned().fold(f64::INFINITY, f64::min);
            let work = (sms * bps * t) as f64 * reps as f64 * (K * 16) as f64;
            tried.push((
                Launch { grid: sms * bps, block: t, width: Some(16), shared_bytes: Some(shared), unroll: None },
                work / best,
            ));
        }
        let (launch, _) = super::search::best(&tried).ok_or_else(|| GpuError::Other("no launch shape".into()))?;
        let bps = launch.grid / sms;
        self.poison(&mut out)?;
        go(bps, &mut out)?;
        self.sync()?;
        let threads = (sms * bps * t) as usize;
        let got: Vec<u32> = self.stream.clone_dtoh(&out.slice(0..threads)).map_err(|e| GpuError::driver("copy", e))?;
        let expect: Vec<u32> = (0..t as usize).map(|i| verify::smem_expected(&tile, i, t as usize, K, reps)).collect();
        verify::compare_exact(&got, |i| expect[i % t as usize])
            .map_err(|detail| GpuError::Verification { bench: spec.id.clone(), detail })?;
        let tm = self.time(self.cfg.warmup, self.cfg.runs, self.cfg.reps, &mut || go(bps, &mut out))?;
        let work = threads as f64 * reps as f64 * (K * 16) as f64;
        let size = format!("{} B tile per block, {reps} passes", shared);
        let verified = format!("all {threads} per-thread sums against the host's");
        let mut r = self.result(spec, "B/s", work, &tm, launch, size, self.method(), verified)?;
        r.search = tried.iter().map(|(l, r)| (l.describe(), *r)).collect();
        Ok(r)
    }

    /// CUDA-core FMA peak of one precision.
    pub fn fma(&mut self, spec: &BenchSpec, kind: FlopKind) -> Result<BenchResult, GpuError> {
        const CHAINS: usize = 8;
        const UNROLL: u64 = 32;
        let sms = self.sms();
        let t = 256u32;
        let bps = (self.info.max_threads_per_sm.max(1024) / t).max(1);
        let threads = (sms * bps * t) as usize;
        let iters = match kind {
            FlopKind::Fp64 => self.cfg.fma_iters / 2,
            _ => self.cfg.fma_iters,
        };
        let steps = iters as u64 * UNROLL;
        let lc = cfg(sms * bps, t, 0);
        let stream = self.stream.clone();
        let (flop_per_fma, verified, tm) = match kind {
            FlopKind::Fp32 => {
                let (a, b) = (0.999_f32, 0.001_f32);
                let seeds: Vec<f32> = (0..16 * CHAINS as u64).map(|i| verify::unit(i, 0x77)).collect();
                let sd = self.upload(&seeds)?;
                let mut out = self.alloc::<f32>(threads * CHAINS, "FMA output")?;
                let f = self.comp_fn("fma_f32")?;
                let go = |out: &mut CudaSlice<f32>| -> Result<(), GpuError> {
                    let mut l = stream.launch_builder(&f);
                    l.arg(&sd).arg(out).arg(&iters).arg(&a).arg(&b);
                    unsafe { l.launch(lc) }.map_err(|e| GpuError::driver("fma_f32", e))?;
                    Ok(())
                };
                self.poison(&mut out)?;
                go(&mut out)?;
                let got = self.download(&out)?;
                let want: Vec<u32> = seeds.iter().map(|s| verify::fma_chain_f32(*s, a, b, steps).to_bits()).collect();
                let bits: Vec<u32> = got.iter().map(|x| x.to_bits()).collect();
                verify::compare_exact(&bits, |i| want[((i / CHAINS) % 16) * CHAINS + i % CHAINS])
                    .map_err(|detail| GpuError::Verification { bench: spec.id.clone(), detail })?;
                (2.0, bits.len(), self.time(self.cfg.warmup, self.cfg.runs, self.cfg.reps, &mut || go(&mut out))?)
            }
            FlopKind::Fp64 => {
                let (a, b) = (0.999_f64, 0.001_f64);
                let seeds: Vec<f64> = (0..16 * CHAINS as u64).map(|i| verify::unit(i, 0x78) as f64).collect();
                let sd = self.upload(&seeds)?;
                let mut out = self.alloc::<f64>(threads * CHAINS, "FMA output")?;
                let f = self.comp_fn("fma_f64")?;
                let go = |out: &mut CudaSlice<f64>| -> Result<(), GpuError> {
                    let mut l = stream.launch_builder(&f);
                    l.arg(&sd).arg(out).arg(&iters).arg(&a).arg(&b);
                    unsafe { l.launch(lc) }.map_err(|e| GpuError::driver("fma_f64", e))?;
                    Ok(())
                };
                self.poison(&mut out)?;
                go(&mut out)?;
                let got = self.download(&out)?;
                let want: Vec<u64> = seeds.iter().map(|s| verify::fma_chain_f64(*s, a, b, steps).to_bits()).collect();
                let bits: Vec<u64> = got.iter().map(|x| x.to_bits()).collect();
                verify::compare_exact(&bits, |i| want[((i / CHAINS) % 16) * CHAINS + i % CHAINS])
                    .map_err(|detail| GpuError::Verification { bench: spec.id.clone(), detail })?;
                (2.0, bits.len(), self.time(self.cfg.warmup, self.cfg.runs, self.cfg.reps, &mut || go(&mut out))?)
            }
            _ => {
                let (a, b) = (verify::round_f16(0.999), verify::round_f16(0.001));
                let pack = |lo: f64, hi: f64| verify::f16_bits(lo) as u32 | (verify::f16_bits(hi) as u32) << 16;
                let seed_vals: Vec<(f64, f64)> = (0..16 * CHAINS as u64)
                    .map(|i| {
                        (
                            verify::round_f16(verify::unit(2 * i, 0x79) as f64),
                            verify::round_f16(verify::unit(2 * i + 1, 0x79) as f64),
                        )
                    })
                    .collect();
                let seeds: Vec<u32> = seed_vals.iter().map(|(l, h)| pack(*l, *h)).collect();
                let sd = self.upload(&seeds)?;
                let mut out = self.alloc::<u32>(threads * CHAINS, "FMA output")?;
                let f = self.comp_fn("fma_f16x2")?;
                let (a2, b2) = (pack(a, a), pack(b, b));
                let go = |out: &mut CudaSlice<u32>| -> Result<(), GpuError> {
                    let mut l = stream.launch_builder(&f);
                    l.arg(&sd).arg(out).arg(&iters).arg(&a2).arg(&b2);
                    unsafe { l.launch(lc) }.map_err(|e| GpuError::driver("fma_f16x2", e))?;
                    Ok(())
                };
                self.poison(&mut out)?;
                go(&mut out)?;
                let got = self.download(&out)?;
                let want: Vec<u32> = seed_vals
                    .iter()
                    .map(|(l, h)| pack(verify::fma_chain_f16(*l, a, b, steps), verify::fma_chain_f16(*h, a, b, steps)))
                    .collect();
                verify::compare_exact(&got, |i| want[((i / CHAINS) % 16) * CHAINS + i % CHAINS])
                    .map_err(|detail| GpuError::Verification { bench: spec.id.clone(), detail })?;
                (4.0, got.len(), self.time(self.cfg.warmup, self.cfg.runs, self.cfg.reps, &mut || go(&mut out))?)
            }
        };
        let work = threads as f64 * steps as f64 * CHAINS as f64 * flop_per_fma;
        let launch = Launch { grid: sms * bps, block: t, width: None, shared_bytes: None, unroll: None };
        let size = format!("{threads} threads x {CHAINS} independent chains x {steps} FMAs");
        let verified = format!("all {verified} chain results, bit-exact against the host's IEEE FMA");
        self.result(spec, "FLOP/s", work, &tm, launch, size, self.method(), verified)
    }

    /// The intensity sweep of one precision (FP32 or FP64).
    pub fn sweep(&mut self, spec: &BenchSpec, kind: FlopKind) -> Result<(BenchResult, Sweep), GpuError> {
        let sms = self.sms();
        let (t, bps) = (256u32, (self.info.max_threads_per_sm.max(1024) / 256).max(1));
        let lc = cfg(sms * bps, t, 0);
        let f64_ = kind == FlopKind::Fp64;
        let elem = if f64_ { 8u64 } else { 4 };
        let free = self.free_bytes();
        let want = if f64_ { self.cfg.sweep_elems / 2 } else { self.cfg.sweep_elems };
        let mut n = want;
        while n * elem * 2 > free / 2 && n > 1 << 20 {
            n /= 2;
        }
        if n < want {
            self.warnings.push(format!(
                "{}: only {} of device memory free: {n} elements instead of {want}",
                spec.id,
                gib(free)
            ));
        }
        let words = (n * elem / 4) as usize;
        let mut inp = self.alloc::<u32>(words, "sweep input")?;
        let mut out = self.alloc::<u32>(words, "sweep output")?;
        let (a, b) = (0.999_f64, 0.001_f64);
        let table: Vec<f64> = (0..256u64).map(|i| verify::unit(i, 0x99) as f64).collect();
        let seed = 0x3131u32;
        let stream = self.stream.clone();
        {
            let fi = self.comp_fn(if f64_ { "sweep_init_f64" } else { "sweep_init_f32" })?;
            let mut l = stream.launch_builder(&fi);
            if f64_ {
                let tb = self.upload(&table)?;
                l.arg(&mut inp).arg(&n).arg(&seed).arg(&tb);
                unsafe { l.launch(lc) }.map_err(|e| GpuError::driver("sweep_init", e))?;
                self.sync()?;
            } else {
                let tb = self.upload(&table.iter().map(|v| *v as f32).collect::<Vec<_>>())?;
                l.arg(&mut inp).arg(&n).arg(&seed).arg(&tb);
                unsafe { l.launch(lc) }.map_err(|e| GpuError::driver("sweep_init", e))?;
                self.sync()?;
            }
        }
        let fk = self.comp_fn(if f64_ { "sweep_f64" } else { "sweep_f32" })?;
        let fc = self.comp_fn(if f64_ { "sweep_check_f64" } else { "sweep_check_f32" })?;
        let vec_n = if f64_ { n / 2 } else { n / 4 };
        let mut points = Vec::new();
        let mut best: Option<(Timing, f64, u32)> = None;
        let (a32, b32) = (a as f32, b as f32);
        for &iters in &self.cfg.sweep_iters.clone() {
            let go = |out: &mut CudaSlice<u32>| -> Result<(), GpuError> {
                let mut l = stream.launch_builder(&fk);
                l.arg(&inp).arg(out).arg(&vec_n).arg(&iters);
                if f64_ {
                    l.arg(&a).arg(&b);
                } else {
                    l.arg(&a32).arg(&b32);
                }
                unsafe { l.launch(lc) }.map_err(|e| GpuError::driver("sweep", e))?;
                Ok(())
            };
            self.poison(&mut out)?;
            go(&mut out)?;
            let bad = self.bad_counter()?;
            {
                let mut l = stream.launch_builder(&fc);
                l.arg(&out).arg(&n).arg(&seed);
                if f64_ {
                    let e: Vec<f64> = table.iter().map(|x| verify::fma_chain_f64(*x, a, b, iters as u64)).collect();
                    let ed = self.upload(&e)?;
                    l.arg(&ed).arg(&bad);
                    unsafe { l.launch(lc) }.map_err(|e| GpuError::driver("sweep_check", e))?;
                    self.sync()?;
                } else {
                    let e: Vec<f32> = table
                        .iter()
                        .map(|x| verify::fma_chain_f32(*x as f32, a as f32, b as f32, iters as u64))
                        .collect();
                    let ed = self.upload(&e)?;
                    l.arg(&ed).arg(&bad);
                    unsafe { l.launch(lc) }.map_err(|e| GpuError::driver("sweep_check", e))?;
                    self.sync()?;
                }
            }
            self.read_bad(&bad, n, &format!("{} at {iters} FMA/element", spec.id))?;
            let runs = if self.cfg.quick { 1 } else { 2 };
            let tm = self.time(1, runs, 3, &mut || go(&mut out))?;
            let flops = n as f64 * iters as f64 * 2.0;
            let bytes = (n * elem * 2) as f64;
            let med: Vec<Spread> = tm
                .runs
                .iter()
                .map(|r| Spread::from_samples(&r.iter().map(|s| flops / s).collect::<Vec<_>>()))
                .collect::<Result<_, _>>()
                .map_err(|e| GpuError::Other(e.to_string()))?;
            let bi = best_run(&med).unwrap_or(0);
            let sm = self
                .sampler
                .as_ref()
                .and_then(|s| summarize(&s.window(tm.windows[bi].0, tm.windows[bi].1)))
                .map(|c| c.sm_mhz_median);
            points.push(SweepPoint {
                iters,
                intensity: flops / bytes,
                flops_per_s: med[bi],
                bytes_per_s: med[bi].median / (flops / bytes),
                sm_mhz: sm,
            });
            if best.as_ref().map(|(_, r, _)| med[bi].median > *r).unwrap_or(true) {
                best = Some((tm, med[bi].median, iters));
            }
        }
        let ridge = locate_ridge(&points.iter().map(|p| (p.intensity, p.flops_per_s.median)).collect::<Vec<_>>());
        let (tm, _, iters) = best.ok_or_else(|| GpuError::Other("empty sweep".into()))?;
        let work = n as f64 * iters as f64 * 2.0;
        let launch = Launch { grid: sms * bps, block: t, width: Some(16), shared_bytes: None, unroll: None };
        let size = format!("{n} elements of {elem} bytes, {} intensities", points.len());
        let verified = "every output element of every point against host-computed values".to_string();
        let r = self.result(
            spec,
            "FLOP/s",
            work,
            &tm,
            launch,
            size,
            format!("{}; best point: {iters} FMA/element", self.method()),
            verified,
        )?;
        Ok((r, Sweep { kind, points, ridge }))
    }
}
