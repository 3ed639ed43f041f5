//! DRAM and L2 bandwidth on the GPU: the streaming kernels of
//! `kernels/memory.cu` (and `l2_tma.cu` on Hopper), their candidates and
//! their checks.
//!
//! DRAM: every kernel variant the source instantiates (access width, access
//! pattern, accesses in flight) at every launch shape is a candidate, so the
//! search, not a constant chosen on one GPU, decides what a device streams
//! best. L2 read: L2-only loads, L1-allocating loads with the smallest L1,
//! and on Hopper the bulk-copy engine. L2 write: a sweep of working sets
//! from an eighth of the L2 to eight times it, which shows where writes stop
//! staying in L2.

use std::collections::HashMap;

use cudarc::driver::{sys, CudaFunction, CudaSlice, PushKernelArg};

use super::executor::Candidate;
use super::suite::{AccessPattern, LaunchShape, What};
use super::verify;
use super::workload::{
    bad_counter, gib, init_f32_words, init_u32, launch, read_bad, sum_u32, Built, Setup, Workload, L2_TMA, MEMORY,
};
use crate::error::GpuError;
use crate::session::{grid, Session};

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

/// One DRAM kernel of memory.cu: pattern, width in bytes, accesses in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DramKernel {
    /// Grid-stride loop or one pass.
    pub pattern: AccessPattern,
    /// Bytes per access per thread (4, 8 or 16).
    pub width: u32,
    /// Independent accesses in flight per thread and loop trip.
    pub inflight: u32,
}

fn op_name(what: What) -> &'static str {
    match what {
        What::DramRead => "read",
        What::DramWrite => "write",
        What::DramCopy => "copy",
        What::DramTriad => "triad",
        _ => "add",
    }
}

impl DramKernel {
    /// "dram_add_16_p2".
    pub fn name(&self, what: What) -> String {
        let p = match self.pattern {
            AccessPattern::GridStride => 'g',
            AccessPattern::OnePass => 'p',
        };
        format!("dram_{}_{}_{p}{}", op_name(what), self.width, self.inflight)
    }
}

/// The DRAM kernels memory.cu instantiates for one operation (RL_ALL_G,
/// RL_ALL_P and the 4-byte line); a test compiles the source and finds
/// every one of them.
pub fn dram_kernels(what: What) -> Vec<DramKernel> {
    use AccessPattern::*;
    let g = |width, inflight| DramKernel { pattern: GridStride, width, inflight };
    let p = |width, inflight| DramKernel { pattern: OnePass, width, inflight };
    let (four, grid_depths, passes): (u32, &[u32], bool) = match what {
        What::DramRead => (4, &[2, 4, 8], false),
        What::DramWrite => (1, &[1, 4], true),
        What::DramCopy => (4, &[2, 4, 8], true),
        _ => (2, &[1, 2, 4], true),
    };
    let mut v = Vec::new();
    for w in [16u32, 8] {
        v.extend(grid_depths.iter().map(|&k| g(w, k)));
    }
    v.push(g(4, four));
    if passes {
        for w in [16u32, 8] {
            v.extend([1u32, 2, 4].iter().map(|&k| p(w, k)));
        }
    }
    v
}

/// The DRAM candidates: grid-stride kernels at every launch shape, one-pass
/// kernels at every block size. `quick` keeps the widest accesses only.
pub fn dram_candidates(
    what: What,
    max_threads_per_sm: u32,
    sms: u32,
    n_words: u64,
    quick: bool,
) -> Vec<(DramKernel, LaunchShape)> {
    let mut out = Vec::new();
    for k in dram_kernels(what) {
        if quick && k.width < 8 {
            continue;
        }
        let nv = n_words / (k.width as u64 / 4);
        match k.pattern {
            AccessPattern::GridStride => {
                // Grids sized to the GPU, and grids of four trips per thread
                // (a large grid, the way BabelStream launches).
                let per_sm =
                    shapes(max_threads_per_sm).into_iter().filter(|s| s.0 == 16).map(|(_, t, bps)| (t, sms * bps));
                // Not for reads: their partial sums are one per thread of a
                // grid sized to the GPU.
                let large = [256u32, 1024].into_iter().filter(|_| what != What::DramRead).filter_map(|t| {
                    let g = nv / (t as u64 * k.inflight as u64 * 4);
                    (g > 0 && g < u32::MAX as u64 / 2).then_some((t, g as u32))
                });
                for (t, g) in per_sm.chain(large) {
                    let shape = LaunchShape {
                        width: Some(k.width),
                        unroll: Some(k.inflight),
                        pattern: Some(k.pattern),
                        ..LaunchShape::new(g, t)
                    };
                    out.push((k, shape));
                }
            }
            AccessPattern::OnePass => {
                for t in [256u32, 512, 1024] {
                    let blocks = nv.div_ceil(t as u64 * k.inflight as u64);
                    if blocks > u32::MAX as u64 / 2 {
                        continue;
                    }
                    let shape = LaunchShape {
                        width: Some(k.width),
                        unroll: Some(k.inflight),
                        pattern: Some(k.pattern),
                        ..LaunchShape::new(blocks as u32, t)
                    };
                    out.push((k, shape));
                }
            }
        }
    }
    out
}

/// DRAM array size in bytes: the suite's, or less when memory is short.
fn dram_bytes(s: &Session, want: u64, arrays: u64, warnings: &mut Vec<String>) -> u64 {
    let free = s.free_bytes();
    let fit = (free as f64 * 0.8 / arrays as f64) as u64 & !((1u64 << 20) - 1);
    if fit < want {
        warnings.push(format!(
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

struct Dram {
    id: String,
    what: What,
    n: usize,
    a: CudaSlice<u32>,
    b: CudaSlice<u32>,
    c: CudaSlice<u32>,
    part: CudaSlice<u32>,
    kernels: Vec<(DramKernel, CudaFunction)>,
    variants: Vec<(usize, LaunchShape)>,
    seeds: [u32; 3],
    q: f32,
}

const DRAM_SEEDS: [u32; 3] = [0x1234, 0x5678, 0x9abc];

/// One DRAM benchmark: read, write, copy, triad or add.
pub(crate) fn dram(st: &mut Setup<'_>) -> Result<Built, GpuError> {
    let s = st.s;
    let what = st.spec.what;
    let arrays = what.arrays_touched();
    let bytes = dram_bytes(s, st.cfg.dram_array_bytes, arrays, st.warnings);
    let n = (bytes / 4) as usize;
    let l2 = s.info().attrs.l2_bytes.unwrap_or(0);
    if l2 > 0 && bytes < 4 * l2 {
        st.warnings.push(format!("{}: arrays of {} are less than 4x the L2 ({})", st.spec.id, gib(bytes), gib(l2)));
    }
    let uses = |x: char| match what {
        What::DramRead => x == 'a',
        What::DramWrite => x == 'b',
        What::DramCopy => x != 'c',
        _ => true,
    };
    let len = |x: char| if uses(x) { n } else { 1 };
    let mut a = s.alloc::<u32>(len('a'), "DRAM array a")?;
    let mut b = s.alloc::<u32>(len('b'), "DRAM array b")?;
    let mut c = s.alloc::<u32>(len('c'), "DRAM array c")?;
    let part = s.alloc::<u32>((s.sms() * s.info().max_threads_per_sm.max(2048)) as usize, "partial sums")?;
    let [sa, sb, sc] = DRAM_SEEDS;
    match what {
        What::DramRead | What::DramCopy => init_u32(s, &mut a, sa)?,
        What::DramTriad => {
            init_f32_words(s, &mut b, sb)?;
            init_f32_words(s, &mut c, sc)?;
        }
        What::DramAdd => {
            init_f32_words(s, &mut a, sa)?;
            init_f32_words(s, &mut b, sb)?;
        }
        _ => {}
    }
    let moved = (arrays * bytes) as f64;
    let cands = dram_candidates(what, s.info().max_threads_per_sm, s.sms(), n as u64, st.cfg.quick);
    let mut kernels: Vec<(DramKernel, CudaFunction)> = Vec::new();
    let mut variants = Vec::new();
    let mut candidates = Vec::new();
    for (k, shape) in cands {
        let ki = match kernels.iter().position(|(x, _)| *x == k) {
            Some(i) => i,
            None => {
                kernels.push((k, s.function(MEMORY, &k.name(what))?));
                kernels.len() - 1
            }
        };
        candidates.push(Candidate {
            label: shape.describe(),
            shape: shape.clone(),
            work: moved,
            x: None,
            variant: variants.len(),
        });
        variants.push((ki, shape));
    }
    let size = format!("{arrays} array(s) of {} ({n} 32-bit words each)", gib(bytes));
    let plan = st.plan(candidates, None, size);
    let w = Dram { id: st.spec.id.clone(), what, n, a, b, c, part, kernels, variants, seeds: DRAM_SEEDS, q: 0.75 };
    Ok((Box::new(w), plan))
}

impl Workload for Dram {
    fn launch(&mut self, s: &Session, c: &Candidate) -> Result<(), GpuError> {
        let (ki, shape) = &self.variants[c.variant];
        let (k, f) = &self.kernels[*ki];
        let nv = self.n as u64 / (k.width as u64 / 4);
        let cfg = grid(shape.grid, shape.block, 0);
        let (sb, q) = (self.seeds[1], self.q);
        match self.what {
            What::DramRead => launch!(s, f, cfg; &self.a, &mut self.part, &nv),
            What::DramWrite => launch!(s, f, cfg; &mut self.b, &nv, &sb),
            What::DramCopy => launch!(s, f, cfg; &self.a, &mut self.b, &nv),
            What::DramTriad => launch!(s, f, cfg; &mut self.a, &self.b, &self.c, &q, &nv),
            _ => launch!(s, f, cfg; &self.a, &self.b, &mut self.c, &nv),
        }
    }

    fn verify(&mut self, s: &Session, c: &Candidate) -> Result<String, GpuError> {
        match self.what {
            What::DramRead => s.poison(&mut self.part)?,
            What::DramWrite | What::DramCopy => s.poison(&mut self.b)?,
            What::DramTriad => s.poison(&mut self.a)?,
            _ => s.poison(&mut self.c)?,
        }
        self.launch(s, c)?;
        s.sync()?;
        let [sa, sb, sc] = self.seeds;
        let nn = self.n as u64;
        if self.what == What::DramRead {
            let shape = &self.variants[c.variant].1;
            let threads = (shape.grid * shape.block) as usize;
            let parts = s.download_prefix(&self.part, threads)?;
            let got = parts.iter().fold(0u32, |x, y| x.wrapping_add(*y));
            let want = sum_u32(s, &self.a)?;
            if got != want {
                return Err(GpuError::Verification {
                    bench: self.id.clone(),
                    detail: format!("the {threads} partial sums add to {got:#x}, the input to {want:#x}"),
                });
            }
            return Ok(format!(
                "the {threads} per-thread partial sums add up to the input's sum (exact, wrapping 32-bit)"
            ));
        }
        let bad = bad_counter(s)?;
        let name = match self.what {
            What::DramWrite => "check_write",
            What::DramCopy => "check_copy",
            What::DramTriad => "check_triad",
            _ => "check_add",
        };
        let f = s.function(MEMORY, name)?;
        let cfg = grid(s.sms() * 8, 256, 0);
        let q = self.q;
        let out = match self.what {
            What::DramWrite => {
                launch!(s, f, cfg; &self.b, &nn, &sb, &bad)?;
                &self.b
            }
            What::DramCopy => {
                launch!(s, f, cfg; &self.b, &nn, &sa, &bad)?;
                &self.b
            }
            What::DramTriad => {
                launch!(s, f, cfg; &self.a, &nn, &sb, &sc, &q, &bad)?;
                &self.a
            }
            _ => {
                launch!(s, f, cfg; &self.c, &nn, &sa, &sb, &bad)?;
                &self.c
            }
        };
        read_bad(s, &bad, nn, &self.id)?;
        for i in [0usize, 1, self.n / 3, self.n - 1] {
            let got = s.element(out, i)?;
            let u = |seed| verify::unit(i as u64, seed);
            let want = match self.what {
                What::DramWrite => i as u32 ^ sb,
                What::DramCopy => verify::hash(i as u64, sa),
                What::DramTriad => q.mul_add(u(sc), u(sb)).to_bits(),
                _ => (u(sa) + u(sb)).to_bits(),
            };
            if got != want {
                return Err(GpuError::Verification {
                    bench: self.id.clone(),
                    detail: format!("element {i} is {got:#x}, the host expects {want:#x}"),
                });
            }
        }
        Ok(format!(
            "all {} output elements, poisoned first (device check against the hash; host cross-check of 4)",
            self.n
        ))
    }
}

/// A bulk-copy (TMA) L2 shape: blocks per SM, chunk bytes, chunks per block per pass.
type TmaShape = (u32, u32, u32);

#[derive(Debug, Clone, Copy)]
enum L2Cand {
    /// Width, accesses per thread, threads, blocks per SM, working set,
    /// L1-allocating loads, carveout.
    Loads {
        w: u32,
        nu: u32,
        t: u32,
        bps: u32,
        set: u64,
        ca: bool,
        carve: i32,
    },
    Tma(TmaShape),
}

/// About 4 GB of reads per launch.
fn passes_for(set: u64) -> u32 {
    ((4u64 << 30) / set).max(1) as u32
}

struct L2Read {
    id: String,
    buf: CudaSlice<u32>,
    part: CudaSlice<u32>,
    tma_out: CudaSlice<u32>,
    fns: HashMap<(u32, u32, bool), CudaFunction>,
    tma: Option<CudaFunction>,
    cands: Vec<L2Cand>,
    sms: u32,
}

const L2_SEED: u32 = 0x4242;

/// L2 bandwidth: every thread reads its `nu` vectors of a buffer that fits
/// in L2 many times; the buffer size follows from the launch shape and `nu`.
pub(crate) fn l2_read(st: &mut Setup<'_>) -> Result<Built, GpuError> {
    let s = st.s;
    let l2 = s.info().attrs.l2_bytes.unwrap_or(40 << 20).max(1 << 20);
    let sms = s.sms();
    let variants: [(u32, u32); 5] = [(16, 2), (16, 4), (16, 8), (8, 4), (8, 8)];
    // The L1-allocating loads run with the smallest L1 the SM allows
    // (shared-memory carveout 100%), so that L1 can neither serve nor merge
    // what blocks read again. With the largest L1 an H200 showed 11.8 TB/s
    // "requested" while Nsight Compute counted 8.8 TB/s arriving at L2: that
    // figure was L1's, not L2's (results/h200-bench-2026-11-29.md).
    let mut cands = Vec::new();
    for (ca, carve) in [(false, -1), (true, 100)] {
        for (w, nu) in variants {
            for (_, t, bps) in shapes(s.info().max_threads_per_sm).into_iter().filter(|x| x.0 == 16) {
                let set = (sms * bps * t) as u64 * nu as u64 * w as u64;
                if set <= l2 / 2 {
                    cands.push(L2Cand::Loads { w, nu, t, bps, set, ca, carve });
                }
            }
        }
    }
    let tma = if s.has_module(L2_TMA) { Some(s.function(L2_TMA, "l2_tma")?) } else { None };
    let max_set = l2 / 2;
    if tma.is_some() {
        cands.extend(tma_shapes(s, max_set).into_iter().map(L2Cand::Tma));
    }
    let largest = cands
        .iter()
        .map(|c| match c {
            L2Cand::Loads { set, .. } => *set,
            L2Cand::Tma(t) => tma_work(sms, *t).0,
        })
        .max()
        .ok_or_else(|| GpuError::bench(&st.spec.id, "the L2 is too small for the L2 benchmark"))?;
    let mut buf = s.alloc::<u32>((largest.max(max_set) / 4) as usize, "L2 buffer")?;
    init_u32(s, &mut buf, L2_SEED)?;
    let part = s.alloc::<u32>((sms * s.info().max_threads_per_sm.max(2048)) as usize, "partial sums")?;
    let tma_out = s.alloc::<u32>((sms * 4) as usize, "TMA sums")?;
    let mut fns = HashMap::new();
    for (w, nu) in variants {
        fns.insert((w, nu, false), s.function(MEMORY, &format!("l2_read_{w}_u{nu}"))?);
        fns.insert((w, nu, true), s.function(MEMORY, &format!("l2_read_ca_{w}_u{nu}"))?);
    }
    let candidates = cands
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (shape, work, label) = match *c {
                L2Cand::Loads { w, nu, t, bps, set, ca, carve } => {
                    let shape = LaunchShape { width: Some(w), unroll: Some(nu), ..LaunchShape::new(sms * bps, t) };
                    let path = if ca {
                        format!("ld.global.ca, shared carveout {carve}%")
                    } else {
                        "ld.global.cg (L2 only)".into()
                    };
                    let label = format!("{} over {}, {path}", shape.describe(), gib(set));
                    (shape, (set * passes_for(set) as u64) as f64, label)
                }
                L2Cand::Tma(t) => {
                    let (set, passes) = tma_work(sms, t);
                    let shape = LaunchShape { shared_bytes: Some(4 * t.1), ..LaunchShape::new(sms * t.0, 32) };
                    let label = format!(
                        "bulk copy (TMA): {} blocks x 1 thread, 4 chunks of {} KiB in flight, over {}",
                        sms * t.0,
                        t.1 / 1024,
                        gib(set)
                    );
                    (shape, (set * passes as u64) as f64, label)
                }
            };
            Candidate { label, shape, work, x: None, variant: i }
        })
        .collect();
    let size = format!("working sets up to half the {} L2, about 4 GB read per launch", gib(l2));
    let plan = st.plan(candidates, None, size);
    let w = L2Read { id: st.spec.id.clone(), buf, part, tma_out, fns, tma, cands, sms };
    Ok((Box::new(w), plan))
}

/// Bulk-copy (TMA) candidates.
fn tma_shapes(s: &Session, max_set: u64) -> Vec<TmaShape> {
    let sms = s.sms() as u64;
    let smem = s.info().max_shared_per_block_optin.max(48 * 1024) as u64;
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

fn tma_work(sms: u32, c: TmaShape) -> (u64, u32) {
    let set = (sms * c.0) as u64 * c.2 as u64 * c.1 as u64;
    (set, passes_for(set))
}

impl Workload for L2Read {
    fn launch(&mut self, s: &Session, c: &Candidate) -> Result<(), GpuError> {
        match self.cands[c.variant] {
            L2Cand::Loads { w, nu, t, bps, set, ca, carve } => {
                let f = &self.fns[&(w, nu, ca)];
                if ca {
                    f.set_attribute(
                        sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                        carve,
                    )
                    .map_err(|e| GpuError::driver("L1 carveout", e))?;
                }
                let passes = passes_for(set);
                // L2-only loads: one thread row per pass, every access moves
                // to a new address. L1-allocating loads: seven blocks' worth,
                // so each block reads data another SM read before.
                let shift = if ca { 7 * t as u64 } else { (self.sms * bps * t) as u64 };
                launch!(s, f, grid(self.sms * bps, t, 0); &self.buf, &mut self.part, &passes, &shift)
            }
            L2Cand::Tma(shape) => {
                let f = self.tma.as_ref().ok_or_else(|| GpuError::bench(&self.id, "no bulk-copy kernel"))?;
                let (bps, chunk, m) = shape;
                let (_, passes) = tma_work(self.sms, shape);
                let shared = 4 * chunk;
                f.set_attribute(
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    shared as i32,
                )
                .map_err(|e| GpuError::driver("shared-memory size", e))?;
                let shift = 7u64;
                launch!(s, f, grid(self.sms * bps, 32, shared); &self.buf, &mut self.tma_out, &m, &chunk, &passes, &shift)
            }
        }
    }

    fn verify(&mut self, s: &Session, c: &Candidate) -> Result<String, GpuError> {
        match self.cands[c.variant] {
            L2Cand::Loads { t, bps, set, .. } => {
                s.poison(&mut self.part)?;
                self.launch(s, c)?;
                s.sync()?;
                let threads = (self.sms * bps * t) as usize;
                let got = s.download_prefix(&self.part, threads)?.iter().fold(0u32, |x, y| x.wrapping_add(*y));
                let once = (0..set / 4).fold(0u32, |x, i| x.wrapping_add(verify::hash(i, L2_SEED)));
                let want = once.wrapping_mul(passes_for(set));
                if got != want {
                    return Err(GpuError::Verification {
                        bench: self.id.clone(),
                        detail: format!("the partial sums add to {got:#x}, the host expects {want:#x}"),
                    });
                }
                Ok(format!("the {threads} partial sums add up to passes x the buffer's sum, computed on the host"))
            }
            L2Cand::Tma(shape) => {
                s.poison(&mut self.tma_out)?;
                self.launch(s, c)?;
                s.sync()?;
                let g = (self.sms * shape.0) as usize;
                let got = s.download_prefix(&self.tma_out, g)?.iter().fold(0u32, |x, y| x.wrapping_add(*y));
                let (set, passes) = tma_work(self.sms, shape);
                let chunks = set / shape.1 as u64;
                let once =
                    (0..chunks).fold(0u32, |x, k| x.wrapping_add(verify::hash(k * (shape.1 as u64 / 4), L2_SEED)));
                let want = once.wrapping_mul(passes);
                if got != want {
                    return Err(GpuError::Verification {
                        bench: self.id.clone(),
                        detail: format!("the bulk-copy sums add to {got:#x}, the host expects {want:#x}"),
                    });
                }
                Ok(format!("the first word of every chunk received by the {g} blocks, summed, against the host"))
            }
        }
    }
}

struct L2Write {
    id: String,
    buf: CudaSlice<u32>,
    f: CudaFunction,
    /// (vectors of 16 bytes, passes, blocks per SM, threads).
    cands: Vec<(u64, u32, u32, u32)>,
    sms: u32,
}

/// L2 write bandwidth, swept over the working set: inside L2 the writes
/// stay there (write-back); beyond it they go on to DRAM.
pub(crate) fn l2_write(st: &mut Setup<'_>) -> Result<Built, GpuError> {
    let s = st.s;
    let l2 = s.info().attrs.l2_bytes.unwrap_or(40 << 20).max(1 << 20);
    let sms = s.sms();
    let sets: Vec<u64> = [l2 / 8, l2 / 4, l2 / 2, 2 * l2, 8 * l2].iter().map(|b| b & !((1 << 16) - 1)).collect();
    let largest = *sets.iter().max().unwrap_or(&l2);
    let buf = s.alloc::<u32>((largest / 4) as usize, "L2 write buffer")?;
    let f = s.function(MEMORY, "l2_write")?;
    let max_t = s.info().max_threads_per_sm.max(1024);
    let mut cands = Vec::new();
    let mut candidates = Vec::new();
    for &set in &sets {
        for (t, bps) in [(256u32, max_t / 256), (512, max_t / 512), (1024, max_t / 1024)] {
            let passes = passes_for(set);
            let shape = LaunchShape { width: Some(16), ..LaunchShape::new(sms * bps, t) };
            candidates.push(Candidate {
                label: format!("{} over {}", shape.describe(), gib(set)),
                shape,
                work: (set * passes as u64) as f64,
                x: Some(set as f64),
                variant: cands.len(),
            });
            cands.push((set / 16, passes, bps, t));
        }
    }
    let size = format!(
        "working sets of {} to {} (L2: {}), about 4 GB written per launch",
        gib(sets[0]),
        gib(largest),
        gib(l2)
    );
    let plan = st.plan(candidates, Some("working set (bytes)"), size);
    Ok((Box::new(L2Write { id: st.spec.id.clone(), buf, f, cands, sms }), plan))
}

impl Workload for L2Write {
    fn launch(&mut self, s: &Session, c: &Candidate) -> Result<(), GpuError> {
        let (n, passes, bps, t) = self.cands[c.variant];
        let shift = (self.sms * bps * t) as u64;
        launch!(s, self.f, grid(self.sms * bps, t, 0); &mut self.buf, &n, &passes, &shift)
    }

    fn verify(&mut self, s: &Session, c: &Candidate) -> Result<String, GpuError> {
        let (n, passes, ..) = self.cands[c.variant];
        s.poison(&mut self.buf)?;
        self.launch(s, c)?;
        s.sync()?;
        let words = n * 4;
        let bad = bad_counter(s)?;
        let last = passes - 1;
        let check = s.function(MEMORY, "check_l2_write")?;
        launch!(s, check, grid(s.sms() * 8, 256, 0); &self.buf, &words, &last, &bad)?;
        read_bad(s, &bad, words, &self.id)?;
        for i in [0u64, words / 2 + 3, words - 1] {
            let got = s.element(&self.buf, i as usize)?;
            // Some pass's value: passes are not ordered across threads.
            let pass = got.wrapping_sub((i as u32).wrapping_mul(0x9E37_79B1));
            if pass > last {
                return Err(GpuError::Verification {
                    bench: self.id.clone(),
                    detail: format!("word {i} is {got:#x}, not the value of any of the {passes} passes"),
                });
            }
        }
        Ok(format!(
            "all {words} words hold the last pass's values, poisoned first (device check; host cross-check of 3)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dram_search_covers_both_patterns_and_large_grids() {
        let n = (4u64 << 30) / 4;
        let c = dram_candidates(What::DramAdd, 2048, 132, n, false);
        assert!(c.iter().any(|(k, s)| k.pattern == AccessPattern::OnePass && s.block == 256 && k.width == 8));
        // One element of 8 bytes per access, four trips per thread, a grid far larger than the GPU.
        assert!(c.iter().any(|(k, s)| k.pattern == AccessPattern::GridStride
            && k.width == 8
            && k.inflight == 1
            && s.grid > 100_000));
        assert!(c.iter().all(|(_, s)| s.pattern.is_some() && s.grid > 0));
        // Every one-pass grid covers the arrays exactly once.
        for (k, s) in c.iter().filter(|(k, _)| k.pattern == AccessPattern::OnePass) {
            let nv = n / (k.width as u64 / 4);
            let covered = s.grid as u64 * s.block as u64 * k.inflight as u64;
            assert!(covered >= nv && covered - nv < s.block as u64 * k.inflight as u64, "{k:?} {s:?}");
        }
        let quick = dram_candidates(What::DramAdd, 2048, 132, n, true);
        assert!(quick.len() < c.len() && quick.iter().all(|(k, _)| k.width >= 8));
        // Read has no one-pass kernel (its partial sums are per resident thread).
        assert!(dram_candidates(What::DramRead, 2048, 132, n, false)
            .iter()
            .all(|(k, _)| k.pattern == AccessPattern::GridStride));
    }

    #[test]
    fn dram_kernel_names_follow_the_source_macros() {
        let k = DramKernel { pattern: AccessPattern::OnePass, width: 16, inflight: 2 };
        assert_eq!(k.name(What::DramTriad), "dram_triad_16_p2");
        let g = DramKernel { pattern: AccessPattern::GridStride, width: 4, inflight: 4 };
        assert_eq!(g.name(What::DramRead), "dram_read_4_g4");
        assert!(dram_kernels(What::DramWrite).contains(&DramKernel {
            pattern: AccessPattern::GridStride,
            width: 16,
            inflight: 1
        }));
    }
}
