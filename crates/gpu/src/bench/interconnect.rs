//! The interconnect benchmarks on the GPUs: host to device and back,
//! peer-to-peer copies (copy engine and SM, written by the sender or read by
//! the receiver, one way or both ways) and NCCL collectives, through the
//! same loop as every other benchmark (search, check, time, plausibility).
//!
//! Timing: the loop times launches with CUDA events on the bench device's
//! stream. A link benchmark's work runs on one non-blocking stream per GPU
//! involved, so each launch forks from that stream (an event every worker
//! waits for) and joins back (an event per worker the stream waits for):
//! the events around a launch hold the whole transfer, on every GPU.
//!
//! Memory: link buffers are plain `cuMemAlloc` allocations (stream-ordered
//! pool memory is not reachable through peer access) and page-locked host
//! memory; both are freed when the benchmark is released.
//!
//! Sizes: copies move 512 MiB per launch (nvbandwidth's default buffer);
//! collectives sweep message sizes (nccl-tests' `size`: the full buffer of
//! all-gather and reduce-scatter) and report bus bandwidth, so the rate of a
//! collective is nccl-tests' `busbw` at the same size.

use std::collections::HashMap;
use std::sync::Arc;

use cudarc::driver::{result as dres, sys, CudaContext, CudaEvent, CudaFunction, CudaStream, PushKernelArg};
use roofline_model::CollectiveOp;
use roofline_model::Engine;

use super::executor::{Candidate, Plan};
use super::suite::{BenchSpec, LaunchShape, LinkBench, SuiteConfig};
use super::verify;
use super::workload::{gib, Built, Workload, INTERCONNECT};
use crate::error::GpuError;
use crate::nccl::{Collective, Comms, Nccl};
use crate::nvrtc;
use crate::session::{grid, Session};

/// Bytes per copy: nvbandwidth's default buffer.
pub const COPY_BYTES: u64 = 512 << 20;

/// Message sizes of the collective sweeps (bytes), as nccl-tests counts them.
pub fn collective_sizes(quick: bool) -> Vec<u64> {
    if quick {
        vec![64 << 20, 512 << 20]
    } else {
        vec![16 << 20, 64 << 20, 256 << 20, 1 << 30]
    }
}

/// The copy kernels of interconnect.cu: 16-byte accesses, this many in flight.
pub const COPY_INFLIGHT: [u32; 4] = [1, 4, 8, 12];

/// Launch shapes of the SM copies: (loads in flight, threads, blocks per SM),
/// up to the SM's thread limit.
pub fn sm_copy_shapes(max_threads_per_sm: u32) -> Vec<(u32, u32, u32)> {
    let mut v = Vec::new();
    for k in COPY_INFLIGHT {
        for t in [256u32, 512, 1024] {
            for bps in [1u32, 2, 4] {
                if t * bps <= max_threads_per_sm.max(1024) {
                    v.push((k, t, bps));
                }
            }
        }
    }
    v
}

/// The work of one launch of a collective of `message` bytes over `n`
/// GPUs, in bus bytes: message x nccl-tests' bus factor.
pub fn bus_bytes(op: CollectiveOp, message: u64, n: u32) -> f64 {
    message as f64 * op.bus_factor(n)
}

/// Float elements each rank sends and receives for a message of `message`
/// bytes over `n` ranks.
pub fn counts(op: CollectiveOp, message: u64, n: u64) -> (u64, u64) {
    let elems = message / 4;
    match op {
        CollectiveOp::AllGather => (elems / n, elems / n * n),
        CollectiveOp::ReduceScatter => (elems / n * n, elems / n),
        _ => (elems, elems),
    }
}

fn driver(what: impl Into<String>) -> impl FnOnce(cudarc::driver::DriverError) -> GpuError {
    let what = what.into();
    move |e| GpuError::driver(what, e)
}

/// Device memory from `cuMemAlloc`, freed on drop.
struct DeviceBuffer {
    ctx: Arc<CudaContext>,
    ptr: sys::CUdeviceptr,
    bytes: u64,
}

impl DeviceBuffer {
    fn new(ctx: &Arc<CudaContext>, bytes: u64, what: &str) -> Result<DeviceBuffer, GpuError> {
        ctx.bind_to_thread().map_err(driver("binding a context"))?;
        // SAFETY: a plain allocation; written before any kernel reads it.
        let ptr = unsafe { dres::malloc_sync(bytes as usize) }.map_err(|e| GpuError::allocation(what, bytes, e))?;
        Ok(DeviceBuffer { ctx: ctx.clone(), ptr, bytes })
    }

    fn poison(&self, stream: &CudaStream) -> Result<(), GpuError> {
        self.ctx.bind_to_thread().map_err(driver("binding a context"))?;
        // SAFETY: the buffer spans `bytes`.
        unsafe { dres::memset_d8_async(self.ptr, 0xFF, self.bytes as usize, stream.cu_stream()) }
            .map_err(driver("poisoning a link buffer"))
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: allocated by cuMemAlloc in this context, freed once.
            let _ = unsafe { dres::free_sync(self.ptr) };
        }
    }
}

/// Page-locked host memory, freed on drop.
struct HostBuffer {
    ctx: Arc<CudaContext>,
    ptr: *mut u32,
    words: usize,
}

impl HostBuffer {
    fn new(ctx: &Arc<CudaContext>, bytes: u64) -> Result<HostBuffer, GpuError> {
        ctx.bind_to_thread().map_err(driver("binding a context"))?;
        // SAFETY: page-locked allocation, portable across contexts; filled before use.
        let ptr = unsafe { dres::malloc_host(bytes as usize, sys::CU_MEMHOSTALLOC_PORTABLE) }
            .map_err(|e| GpuError::allocation("pinned host buffer", bytes, e))?;
        Ok(HostBuffer { ctx: ctx.clone(), ptr: ptr as *mut u32, words: (bytes / 4) as usize })
    }

    fn words(&mut self) -> &mut [u32] {
        // SAFETY: `words` u32 of page-locked memory owned by this value.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.words) }
    }
}

impl Drop for HostBuffer {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: allocated by cuMemHostAlloc, freed once.
            let _ = unsafe { dres::free_host(self.ptr as *mut std::ffi::c_void) };
        }
    }
}

/// One GPU as the link benchmarks use it: its context, a non-blocking
/// worker stream and the interconnect kernels.
#[derive(Clone)]
pub(crate) struct Dev {
    pub ordinal: usize,
    ctx: Arc<CudaContext>,
    worker: Arc<CudaStream>,
    fns: Arc<HashMap<String, CudaFunction>>,
    sms: u32,
    max_threads: u32,
}

const KERNELS: [&str; 8] = [
    "link_fill",
    "link_check",
    "coll_fill",
    "coll_check_sum",
    "coll_check_gather",
    "peer_copy_1",
    "peer_copy_4",
    "peer_copy_8",
];

impl Dev {
    fn of(s: &Session) -> Result<Dev, GpuError> {
        let mut fns = HashMap::new();
        for name in KERNELS.iter().copied().chain(["peer_copy_12"]) {
            fns.insert(name.to_string(), s.function(INTERCONNECT, name)?);
        }
        let worker = s.context().new_stream().map_err(driver("creating a link stream"))?;
        Ok(Dev {
            ordinal: s.info().ordinal,
            ctx: s.context().clone(),
            worker,
            fns: Arc::new(fns),
            sms: s.sms(),
            max_threads: s.info().max_threads_per_sm,
        })
    }

    fn f(&self, name: &str) -> Result<&CudaFunction, GpuError> {
        self.fns.get(name).ok_or_else(|| GpuError::bench("link", format!("no kernel {name} on GPU {}", self.ordinal)))
    }

    fn bind(&self) -> Result<(), GpuError> {
        self.ctx.bind_to_thread().map_err(driver("binding a context"))
    }

    fn sync(&self) -> Result<(), GpuError> {
        self.worker.synchronize().map_err(driver(format!("synchronizing GPU {}", self.ordinal)))
    }

    /// Launches `name` on the worker stream over a grid sized to the GPU.
    fn fill(&self, name: &str, ptr: sys::CUdeviceptr, n: u64, seed: u32) -> Result<(), GpuError> {
        let f = self.f(name)?;
        let mut b = self.worker.launch_builder(f);
        b.arg(&ptr).arg(&n).arg(&seed);
        // SAFETY: (pointer, count, seed) as the kernel declares; the buffer holds n words.
        unsafe { b.launch(grid(self.sms * 8, 256, 0)) }.map(|_| ()).map_err(driver(format!("launching {name}")))
    }

    /// Runs a check kernel whose last argument is the [count, first] mismatch counter.
    fn check(
        &self,
        id: &str,
        total: u64,
        launch: impl FnOnce(sys::CUdeviceptr) -> Result<(), GpuError>,
    ) -> Result<(), GpuError> {
        let bad = DeviceBuffer::new(&self.ctx, 16, "mismatch counter")?;
        self.bind()?;
        // SAFETY: 16 bytes hold two u64.
        unsafe { dres::memcpy_htod_sync(bad.ptr, &[0u64, u64::MAX]) }.map_err(driver("clearing a counter"))?;
        launch(bad.ptr)?;
        self.sync()?;
        let mut v = [0u64; 2];
        self.bind()?;
        // SAFETY: as above.
        unsafe { dres::memcpy_dtoh_sync(&mut v, bad.ptr) }.map_err(driver("reading a counter"))?;
        match verify::mismatch_report(v[0], v[1], total) {
            None => Ok(()),
            Some(detail) => Err(GpuError::Verification { bench: id.into(), detail }),
        }
    }

    fn link_check(&self, id: &str, ptr: sys::CUdeviceptr, n: u64, seed: u32) -> Result<(), GpuError> {
        self.check(id, n, |bad| {
            let f = self.f("link_check")?;
            let mut b = self.worker.launch_builder(f);
            b.arg(&ptr).arg(&n).arg(&seed).arg(&bad);
            // SAFETY: (words, count, seed, counter) as declared.
            unsafe { b.launch(grid(self.sms * 8, 256, 0)) }.map(|_| ()).map_err(driver("launching link_check"))
        })
    }
}

/// What the link benchmarks share over a suite: every GPU (opened when a
/// benchmark first needs it), peer access, and NCCL's communicators.
pub(crate) struct Links {
    count: usize,
    devs: Vec<Option<Dev>>,
    /// Sessions of the other GPUs, kept for their modules.
    sessions: Vec<Session>,
    peer: HashMap<(usize, usize), bool>,
    comms: Option<Result<Arc<Comms>, String>>,
    /// "NCCL 2.28.3 from PATH", once loaded.
    pub nccl_note: Option<String>,
}

impl Links {
    pub fn new(count: usize) -> Links {
        Links {
            count,
            devs: vec![None; count],
            sessions: Vec::new(),
            peer: HashMap::new(),
            comms: None,
            nccl_note: None,
        }
    }

    fn dev(&mut self, main: &Session, d: usize) -> Result<Dev, GpuError> {
        if d >= self.count {
            return Err(GpuError::DeviceOutOfRange { index: d, count: self.count });
        }
        if let Some(dev) = &self.devs[d] {
            return Ok(dev.clone());
        }
        let dev = if d == main.info().ordinal {
            Dev::of(main)?
        } else {
            let mut s = Session::open(d)?;
            s.load_sources(&[(INTERCONNECT, nvrtc::INTERCONNECT)])?;
            let dev = Dev::of(&s)?;
            self.sessions.push(s);
            dev
        };
        self.devs[d] = Some(dev.clone());
        Ok(dev)
    }

    /// Peer access from `a` to `b`'s memory, enabled once; `false` when the
    /// GPUs cannot reach each other's memory directly.
    fn peer_access(&mut self, a: &Dev, b: &Dev) -> Result<bool, GpuError> {
        if let Some(&ok) = self.peer.get(&(a.ordinal, b.ordinal)) {
            return Ok(ok);
        }
        let mut can = 0i32;
        // SAFETY: writes one int; both devices exist.
        unsafe { sys::cuDeviceCanAccessPeer(&mut can, a.ctx.cu_device(), b.ctx.cu_device()) }
            .result()
            .map_err(driver("cuDeviceCanAccessPeer"))?;
        let ok = can != 0;
        if ok {
            a.bind()?;
            // SAFETY: enables access from the current context (a) to b's.
            let r = unsafe { sys::cuCtxEnablePeerAccess(b.ctx.cu_ctx(), 0) };
            if r != sys::CUresult::CUDA_SUCCESS && r != sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED {
                return Err(GpuError::driver(
                    format!("enabling peer access from GPU {} to GPU {}", a.ordinal, b.ordinal),
                    cudarc::driver::DriverError(r),
                ));
            }
        }
        self.peer.insert((a.ordinal, b.ordinal), ok);
        Ok(ok)
    }

    /// NCCL's communicators over every GPU, made once; `Err` says why not.
    fn comms(&mut self, main: &Session) -> Result<Arc<Comms>, String> {
        if self.comms.is_none() {
            let made = Nccl::load().map_err(|e| e.to_string()).and_then(|n| {
                self.nccl_note = Some(format!("NCCL {} from {}", n.version(), n.path.display()));
                // Every GPU's context first: NCCL uses their primary contexts.
                for d in 0..self.count {
                    self.dev(main, d).map_err(|e| e.to_string())?;
                }
                let devices: Vec<i32> = (0..self.count as i32).collect();
                n.init_all(&devices).map(Arc::new).map_err(|e| e.to_string())
            });
            self.comms = Some(made);
        }
        self.comms.clone().unwrap_or_else(|| Err("not made".into()))
    }
}

/// Events that make the bench device's stream wait for work on the workers.
struct ForkJoin {
    fork: CudaEvent,
    joins: Vec<(Arc<CudaStream>, CudaEvent)>,
}

impl ForkJoin {
    fn new(main: &Session, workers: &[&Dev]) -> Result<ForkJoin, GpuError> {
        let fork = main.context().new_event(None).map_err(driver("creating an event"))?;
        let mut joins = Vec::new();
        for w in workers {
            let e = w.ctx.new_event(None).map_err(driver("creating an event"))?;
            joins.push((w.worker.clone(), e));
        }
        Ok(ForkJoin { fork, joins })
    }

    fn run(&self, main: &CudaStream, body: impl FnOnce() -> Result<(), GpuError>) -> Result<(), GpuError> {
        self.fork.record(main).map_err(driver("recording the fork"))?;
        for (w, _) in &self.joins {
            w.wait(&self.fork).map_err(driver("waiting for the fork"))?;
        }
        body()?;
        for (w, e) in &self.joins {
            e.record(w).map_err(driver("recording a join"))?;
            main.wait(e).map_err(driver("waiting for a join"))?;
        }
        Ok(())
    }
}

const SEED_A: u32 = 0x11AA;
const SEED_B: u32 = 0x22BB;

/// Prepares a link benchmark, or says why it cannot run here.
pub(crate) fn prepare(
    links: &mut Links,
    main: &Session,
    spec: &BenchSpec,
    cfg: &SuiteConfig,
    warnings: &mut Vec<String>,
    what: LinkBench,
) -> Result<Result<Built, String>, GpuError> {
    let needs_two = || GpuError::NeedsGpus { needed: 2, found: links.count }.to_string();
    match what {
        LinkBench::Peers { .. } => Ok(Err(needs_two())),
        LinkBench::HostToDevice { gpu } | LinkBench::DeviceToHost { gpu } => {
            let to_device = matches!(what, LinkBench::HostToDevice { .. });
            let dev = links.dev(main, gpu as usize)?;
            Ok(Ok(host_copy(main, spec, dev, to_device)?))
        }
        LinkBench::Peer { from, to, engine, pull, both_ways } => {
            if links.count < 2 {
                return Ok(Err(needs_two()));
            }
            let a = links.dev(main, from as usize)?;
            let b = links.dev(main, to as usize)?;
            if engine == Engine::Sm {
                let ab = links.peer_access(&a, &b)?;
                let ba = links.peer_access(&b, &a)?;
                if !(ab && ba) {
                    return Ok(Err(format!(
                        "GPUs {from} and {to} have no peer access to each other's memory: SM copies need it"
                    )));
                }
            } else {
                // Copy engines take the direct path when peer access is on.
                let _ = links.peer_access(&a, &b)?;
                let _ = links.peer_access(&b, &a)?;
            }
            Ok(Ok(peer_copy(main, spec, a, b, engine, pull, both_ways, warnings)?))
        }
        LinkBench::Collective { op, gpus } => {
            if (gpus as usize) < 2 || links.count < 2 {
                return Ok(Err(needs_two()));
            }
            let comms = match links.comms(main) {
                Ok(c) => c,
                Err(why) => return Ok(Err(why)),
            };
            let devs: Vec<Dev> = (0..links.count).map(|d| links.dev(main, d)).collect::<Result<_, _>>()?;
            Ok(Ok(collective(main, spec, cfg, devs, comms, op, links.nccl_note.clone().unwrap_or_default())?))
        }
    }
}

fn copy_plan(spec: &BenchSpec, candidates: Vec<Candidate>, size: String, how: String) -> Plan {
    Plan { unit: spec.what.unit(), candidates, axis: None, size, method: how }
}

struct HostCopy {
    id: String,
    dev: Dev,
    host: HostBuffer,
    device: DeviceBuffer,
    to_device: bool,
    sync: ForkJoin,
}

fn host_copy(main: &Session, spec: &BenchSpec, dev: Dev, to_device: bool) -> Result<Built, GpuError> {
    let mut host = HostBuffer::new(&dev.ctx, COPY_BYTES)?;
    let device = DeviceBuffer::new(&dev.ctx, COPY_BYTES, "link buffer")?;
    if to_device {
        for (i, w) in host.words().iter_mut().enumerate() {
            *w = verify::hash(i as u64, SEED_A);
        }
    } else {
        dev.fill("link_fill", device.ptr, COPY_BYTES / 4, SEED_A)?;
        dev.sync()?;
    }
    let sync = ForkJoin::new(main, &[&dev])?;
    let c = Candidate {
        label: "one cuMemcpyAsync of pinned memory".into(),
        shape: LaunchShape::default(),
        work: COPY_BYTES as f64,
        x: None,
        variant: 0,
    };
    let plan = copy_plan(
        spec,
        vec![c],
        format!("{} per copy", gib(COPY_BYTES)),
        format!(
            "cuMemcpy{}Async on GPU {}'s copy engines, page-locked host memory, CUDA events",
            if to_device { "HtoD" } else { "DtoH" },
            dev.ordinal
        ),
    );
    Ok((Box::new(HostCopy { id: spec.id.clone(), dev, host, device, to_device, sync }), plan))
}

impl HostCopy {
    fn enqueue(&self) -> Result<(), GpuError> {
        self.dev.bind()?;
        let s = self.dev.worker.cu_stream();
        let bytes = COPY_BYTES as usize;
        // SAFETY: both buffers span `bytes`; the host buffer is page-locked.
        unsafe {
            if self.to_device {
                sys::cuMemcpyHtoDAsync_v2(self.device.ptr, self.host.ptr as *const std::ffi::c_void, bytes, s)
            } else {
                sys::cuMemcpyDtoHAsync_v2(self.host.ptr as *mut std::ffi::c_void, self.device.ptr, bytes, s)
            }
        }
        .result()
        .map_err(driver("host copy"))
    }
}

impl Workload for HostCopy {
    fn launch(&mut self, s: &Session, _: &Candidate) -> Result<(), GpuError> {
        self.sync.run(s.stream(), || self.enqueue())
    }

    fn verify(&mut self, s: &Session, c: &Candidate) -> Result<String, GpuError> {
        let n = COPY_BYTES / 4;
        if self.to_device {
            self.device.poison(&self.dev.worker)?;
            self.launch(s, c)?;
            s.sync()?;
            self.dev.sync()?;
            self.dev.link_check(&self.id, self.device.ptr, n, SEED_A)?;
            Ok(format!("all {n} words on the GPU, poisoned first, hold the host's (device check)"))
        } else {
            self.host.words().fill(u32::MAX);
            self.launch(s, c)?;
            s.sync()?;
            self.dev.sync()?;
            let (mut count, mut first) = (0u64, u64::MAX);
            for (i, w) in self.host.words().iter().enumerate() {
                if *w != verify::hash(i as u64, SEED_A) {
                    count += 1;
                    first = first.min(i as u64);
                }
            }
            match verify::mismatch_report(count, first, n) {
                None => Ok(format!("all {n} words in host memory, poisoned first, hold the GPU's (host check)")),
                Some(detail) => Err(GpuError::Verification { bench: self.id.clone(), detail }),
            }
        }
    }
}

/// One copy of a peer benchmark: the issuing GPU, source and destination.
struct Transfer {
    issuer: Dev,
    /// Index into the workload's buffers.
    src: usize,
    dst: usize,
    /// Context of the source and destination buffers (for the copy engine).
    src_dev: usize,
    dst_dev: usize,
}

struct PeerCopy {
    id: String,
    engine: Engine,
    devs: Vec<Dev>,
    buffers: Vec<DeviceBuffer>,
    /// (buffer, device index, seed) of each destination, for the check.
    checks: Vec<(usize, usize, u32)>,
    transfers: Vec<Transfer>,
    /// SM variants: (loads in flight, threads, blocks per SM).
    shapes: Vec<(u32, u32, u32)>,
    sync: ForkJoin,
}

#[allow(clippy::too_many_arguments)]
fn peer_copy(
    main: &Session,
    spec: &BenchSpec,
    a: Dev,
    b: Dev,
    engine: Engine,
    pull: bool,
    both_ways: bool,
    warnings: &mut Vec<String>,
) -> Result<Built, GpuError> {
    let free = |d: &Dev| -> u64 {
        let _ = d.bind();
        dres::mem_get_info().map(|(f, _)| f as u64).unwrap_or(u64::MAX)
    };
    let need = if both_ways { 2 * COPY_BYTES } else { COPY_BYTES };
    for d in [&a, &b] {
        if free(d) < need + (256 << 20) {
            warnings.push(format!("{}: GPU {} has little free memory", spec.id, d.ordinal));
        }
    }
    // Buffers: 0 = source on a, 1 = destination on b; both ways also
    // 2 = source on b, 3 = destination on a.
    let mut buffers = vec![
        DeviceBuffer::new(&a.ctx, COPY_BYTES, "peer source")?,
        DeviceBuffer::new(&b.ctx, COPY_BYTES, "peer destination")?,
    ];
    a.fill("link_fill", buffers[0].ptr, COPY_BYTES / 4, SEED_A)?;
    let mut transfers =
        vec![Transfer { issuer: if pull { b.clone() } else { a.clone() }, src: 0, dst: 1, src_dev: 0, dst_dev: 1 }];
    let mut checks = vec![(1usize, 1usize, SEED_A)];
    if both_ways {
        buffers.push(DeviceBuffer::new(&b.ctx, COPY_BYTES, "peer source")?);
        buffers.push(DeviceBuffer::new(&a.ctx, COPY_BYTES, "peer destination")?);
        b.fill("link_fill", buffers[2].ptr, COPY_BYTES / 4, SEED_B)?;
        transfers.push(Transfer {
            issuer: if pull { a.clone() } else { b.clone() },
            src: 2,
            dst: 3,
            src_dev: 1,
            dst_dev: 0,
        });
        checks.push((3, 0, SEED_B));
    }
    a.sync()?;
    b.sync()?;
    let issuers: Vec<&Dev> = {
        let mut v: Vec<&Dev> = Vec::new();
        for t in &transfers {
            if !v.iter().any(|d| d.ordinal == t.issuer.ordinal) {
                v.push(&t.issuer);
            }
        }
        v
    };
    let sync = ForkJoin::new(main, &issuers)?;
    let moved = (transfers.len() as u64 * COPY_BYTES) as f64;
    let who = if pull { "the receiving GPU reads (pull)" } else { "the sending GPU writes (push)" };
    let (candidates, shapes, how) = match engine {
        Engine::Sm => {
            let shapes = sm_copy_shapes(a.max_threads.min(b.max_threads));
            let sms = a.sms.min(b.sms);
            let cands = shapes
                .iter()
                .enumerate()
                .map(|(i, &(k, t, bps))| {
                    let shape = LaunchShape { width: Some(16), unroll: Some(k), ..LaunchShape::new(sms * bps, t) };
                    Candidate { label: shape.describe(), shape, work: moved, x: None, variant: i }
                })
                .collect();
            (cands, shapes, format!("NVRTC copy kernel through peer access, {who}, 16-byte ld.cg/st.cg, CUDA events"))
        }
        _ => {
            let c = Candidate {
                label: "one cuMemcpyPeerAsync".into(),
                shape: LaunchShape::default(),
                work: moved,
                x: None,
                variant: 0,
            };
            (vec![c], Vec::new(), format!("cuMemcpyPeerAsync on the copy engines, {who}, CUDA events"))
        }
    };
    let size = if both_ways {
        format!("{} each way, at once", gib(COPY_BYTES))
    } else {
        format!("{} per copy", gib(COPY_BYTES))
    };
    let plan = copy_plan(spec, candidates, size, how);
    let w = PeerCopy { id: spec.id.clone(), engine, devs: vec![a, b], buffers, checks, transfers, shapes, sync };
    Ok((Box::new(w), plan))
}

impl PeerCopy {
    fn enqueue(&self, variant: usize) -> Result<(), GpuError> {
        for t in &self.transfers {
            let (src, dst) = (&self.buffers[t.src], &self.buffers[t.dst]);
            t.issuer.bind()?;
            match self.engine {
                Engine::Sm => {
                    let (k, threads, bps) = self.shapes[variant];
                    let f = t.issuer.f(&format!("peer_copy_{k}"))?;
                    let n = COPY_BYTES / 16;
                    let mut b = t.issuer.worker.launch_builder(f);
                    b.arg(&dst.ptr).arg(&src.ptr).arg(&n);
                    let sms = self.devs[0].sms.min(self.devs[1].sms);
                    // SAFETY: (dst, src, vectors) as declared; peer access is on both ways.
                    unsafe { b.launch(grid(sms * bps, threads, 0)) }.map_err(driver("launching a peer copy"))?;
                }
                _ => {
                    let (sc, dc) = (&self.devs[t.src_dev].ctx, &self.devs[t.dst_dev].ctx);
                    // SAFETY: both buffers span COPY_BYTES in their contexts.
                    unsafe {
                        dres::memcpy_peer_async(
                            dc.cu_ctx(),
                            dst.ptr,
                            sc.cu_ctx(),
                            src.ptr,
                            COPY_BYTES as usize,
                            t.issuer.worker.cu_stream(),
                        )
                    }
                    .map_err(driver("cuMemcpyPeerAsync"))?;
                }
            }
        }
        Ok(())
    }
}

impl Workload for PeerCopy {
    fn launch(&mut self, s: &Session, c: &Candidate) -> Result<(), GpuError> {
        self.sync.run(s.stream(), || self.enqueue(c.variant))
    }

    fn verify(&mut self, s: &Session, c: &Candidate) -> Result<String, GpuError> {
        for &(buf, dev, _) in &self.checks {
            self.buffers[buf].poison(&self.devs[dev].worker)?;
            self.devs[dev].sync()?;
        }
        self.launch(s, c)?;
        s.sync()?;
        for d in &self.devs {
            d.sync()?;
        }
        let n = COPY_BYTES / 4;
        for &(buf, dev, seed) in &self.checks {
            self.devs[dev].link_check(&self.id, self.buffers[buf].ptr, n, seed)?;
        }
        Ok(format!(
            "every destination ({} x {n} words), poisoned first, holds its source's words (device check on the receiver)",
            self.checks.len()
        ))
    }
}

struct CollectiveRun {
    id: String,
    op: CollectiveOp,
    comms: Arc<Comms>,
    devs: Vec<Dev>,
    send: Vec<DeviceBuffer>,
    recv: Vec<DeviceBuffer>,
    /// Message bytes per candidate.
    sizes: Vec<u64>,
    sync: ForkJoin,
}

fn collective(
    main: &Session,
    spec: &BenchSpec,
    cfg: &SuiteConfig,
    devs: Vec<Dev>,
    comms: Arc<Comms>,
    op: CollectiveOp,
    nccl_note: String,
) -> Result<Built, GpuError> {
    let n = devs.len() as u64;
    let sizes = collective_sizes(cfg.quick);
    let largest = *sizes.iter().max().unwrap_or(&(64 << 20));
    let (send_elems, recv_elems) = counts(op, largest, n);
    let mut send = Vec::new();
    let mut recv = Vec::new();
    for (r, d) in devs.iter().enumerate() {
        send.push(DeviceBuffer::new(&d.ctx, send_elems * 4, "collective send buffer")?);
        recv.push(DeviceBuffer::new(&d.ctx, recv_elems * 4, "collective receive buffer")?);
        d.fill("coll_fill", send[r].ptr, send_elems, r as u32)?;
    }
    for d in &devs {
        d.sync()?;
    }
    let workers: Vec<&Dev> = devs.iter().collect();
    let sync = ForkJoin::new(main, &workers)?;
    let candidates = sizes
        .iter()
        .enumerate()
        .map(|(i, &m)| Candidate {
            label: format!("{} message", gib(m)),
            shape: LaunchShape::default(),
            work: bus_bytes(op, m, n as u32),
            x: Some(m as f64),
            variant: i,
        })
        .collect();
    let plan = Plan {
        unit: spec.what.unit(),
        candidates,
        axis: Some("message size (bytes)".into()),
        size: format!(
            "float32 {}, out of place, messages of {} to {} (nccl-tests' size), over {n} GPUs",
            if op == CollectiveOp::AllGather { "gather" } else { "sum" },
            gib(sizes[0]),
            gib(largest)
        ),
        method: format!(
            "{nccl_note}, one process (ncclCommInitAll), group calls, NCCL_NVLS_ENABLE=0; bus bandwidth = message / time x {:.3} ({} over {n} ranks, nccl-tests' convention); CUDA events",
            op.bus_factor(n as u32),
            op.label()
        ),
    };
    let w = CollectiveRun { id: spec.id.clone(), op, comms, devs, send, recv, sizes, sync };
    Ok((Box::new(w), plan))
}

impl CollectiveRun {
    fn enqueue(&self, variant: usize) -> Result<(), GpuError> {
        let n = self.devs.len() as u64;
        let (send_count, recv_count) = counts(self.op, self.sizes[variant], n);
        let count = match self.op {
            CollectiveOp::AllGather => send_count,
            CollectiveOp::ReduceScatter => recv_count,
            _ => send_count,
        } as usize;
        let what = match self.op {
            CollectiveOp::AllGather => Collective::AllGather,
            CollectiveOp::ReduceScatter => Collective::ReduceScatter,
            _ => Collective::AllReduce,
        };
        let send: Vec<u64> = self.send.iter().map(|b| b.ptr).collect();
        let recv: Vec<u64> = self.recv.iter().map(|b| b.ptr).collect();
        let streams: Vec<*mut std::ffi::c_void> =
            self.devs.iter().map(|d| d.worker.cu_stream() as *mut std::ffi::c_void).collect();
        // SAFETY: every buffer holds the counts of the largest message; the
        // streams belong to the communicators' devices, in rank order.
        unsafe { self.comms.launch(what, &send, &recv, count, &streams) }
    }
}

impl Workload for CollectiveRun {
    fn launch(&mut self, s: &Session, c: &Candidate) -> Result<(), GpuError> {
        self.sync.run(s.stream(), || self.enqueue(c.variant))
    }

    fn verify(&mut self, s: &Session, c: &Candidate) -> Result<String, GpuError> {
        for (r, d) in self.devs.iter().enumerate() {
            self.recv[r].poison(&d.worker)?;
            d.sync()?;
        }
        self.launch(s, c)?;
        s.sync()?;
        for d in &self.devs {
            d.sync()?;
        }
        let n = self.devs.len() as u64;
        let (_, recv_count) = counts(self.op, self.sizes[c.variant], n);
        for (r, d) in self.devs.iter().enumerate() {
            let out = self.recv[r].ptr;
            let ranks = n as u32;
            d.check(&self.id, recv_count, |bad| {
                let sms = d.sms * 8;
                match self.op {
                    CollectiveOp::AllGather => {
                        let chunk = recv_count / n;
                        let mut b = d.worker.launch_builder(d.f("coll_check_gather")?);
                        b.arg(&out).arg(&chunk).arg(&ranks).arg(&bad);
                        // SAFETY: (out, chunk, ranks, counter) as declared.
                        unsafe { b.launch(grid(sms, 256, 0)) }.map(|_| ()).map_err(driver("coll_check_gather"))
                    }
                    _ => {
                        let offset = if self.op == CollectiveOp::ReduceScatter { r as u64 * recv_count } else { 0 };
                        let mut b = d.worker.launch_builder(d.f("coll_check_sum")?);
                        b.arg(&out).arg(&recv_count).arg(&offset).arg(&ranks).arg(&bad);
                        // SAFETY: (out, count, offset, ranks, counter) as declared.
                        unsafe { b.launch(grid(sms, 256, 0)) }.map(|_| ()).map_err(driver("coll_check_sum"))
                    }
                }
            })?;
        }
        Ok(format!(
            "every rank's output ({n} x {recv_count} floats), poisoned first, against the sums or chunks recomputed on the device from every rank's inputs"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bus_bandwidth_work_follows_nccl_tests() {
        // 1 GiB all-reduce over 2 GPUs: bus bytes = 2 (n-1)/n x size = the size.
        assert_eq!(bus_bytes(CollectiveOp::AllReduce, 1 << 30, 2), (1u64 << 30) as f64);
        assert_eq!(bus_bytes(CollectiveOp::AllGather, 1 << 30, 2), (1u64 << 29) as f64);
        assert_eq!(bus_bytes(CollectiveOp::AllReduce, 1 << 30, 8), 1.75 * (1u64 << 30) as f64);
    }

    #[test]
    fn gather_and_scatter_counts_split_the_full_buffer() {
        let m = 64 << 20;
        assert_eq!(counts(CollectiveOp::AllGather, m, 4), (m / 16, m / 4));
        assert_eq!(counts(CollectiveOp::ReduceScatter, m, 4), (m / 4, m / 16));
        assert_eq!(counts(CollectiveOp::AllReduce, m, 4), (m / 4, m / 4));
        // Sizes that do not split evenly keep whole chunks.
        assert_eq!(counts(CollectiveOp::AllGather, 12, 2), (1, 2));
    }

    #[test]
    fn sm_copy_shapes_stay_within_the_sm() {
        let s = sm_copy_shapes(2048);
        assert!(s.iter().all(|&(_, t, b)| t * b <= 2048));
        assert!(s.iter().any(|&(k, _, _)| k == 12));
        assert_eq!(s.len(), 4 * 8, "1024 x 4 does not fit");
    }

    #[test]
    fn copies_move_nvbandwidths_default_buffer() {
        assert_eq!(COPY_BYTES, 512 * 1024 * 1024);
        assert_eq!(collective_sizes(false).last(), Some(&(1u64 << 30)));
    }
}
