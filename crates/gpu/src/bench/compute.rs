//! The CUDA-core peaks, the intensity sweep and the shared-memory bandwidth
//! on the GPU (`kernels/compute.cu`).
//!
//! Each precision is one implementation of [`Precision`]: its element type,
//! its kernel names, its FLOPs per instruction and the host's exact replay
//! of its chains. The FMA benchmark and the intensity sweep are written once
//! over it, so FP32, FP64 and half2 cannot drift apart, and a kind with no
//! CUDA-core kernel is an error, never a fallback.

use cudarc::driver::{CudaFunction, CudaSlice, DeviceRepr, PushKernelArg};
use roofline_model::FlopKind;

use super::executor::Candidate;
use super::suite::LaunchShape;
use super::verify;
use super::workload::{bad_counter, compare, gib, init_u32, launch, read_bad, Built, Setup, Workload, COMPUTE};
use crate::error::GpuError;
use crate::session::{grid, Session};

/// Independent FMA chains per thread and steps per loop trip (RL_CHAINS, RL_UNROLL).
const CHAINS: usize = 8;
const UNROLL: u64 = 32;

/// One CUDA-core precision: what the generic benchmarks need to know.
pub trait Precision {
    /// The element as the kernels see it (a half2 is one 32-bit word).
    type T: DeviceRepr + Copy + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static;
    /// "f32": kernels fma_f32, sweep_f32, sweep_init_f32, sweep_check_f32.
    const SUFFIX: &'static str;
    /// FLOPs per FMA instruction and thread (4 for half2).
    const FLOP_PER_FMA: f64;
    /// Bytes per element of the intensity sweep.
    const ELEM: u64;
    /// The constants of the chain x = x * a + b.
    fn a_b() -> (Self::T, Self::T);
    /// Seed `i` of the chains.
    fn seed(i: u64) -> Self::T;
    /// The value after `steps` FMAs from `x`, as the GPU computes it.
    fn chain(x: Self::T, a: Self::T, b: Self::T, steps: u64) -> Self::T;
    /// The sweep table's value `i` (FP32 and FP64 only).
    fn table(i: u64) -> Self::T;
    /// FMA loop trips per thread for the peak benchmark.
    fn iters(base: u32) -> u32 {
        base
    }
}

pub struct F32;
pub struct F64;
/// Two halves in one 32-bit word (fma.rn.f16x2).
pub struct F16x2;

impl Precision for F32 {
    type T = f32;
    const SUFFIX: &'static str = "f32";
    const FLOP_PER_FMA: f64 = 2.0;
    const ELEM: u64 = 4;
    fn a_b() -> (f32, f32) {
        (0.999, 0.001)
    }
    fn seed(i: u64) -> f32 {
        verify::unit(i, 0x77)
    }
    fn chain(x: f32, a: f32, b: f32, steps: u64) -> f32 {
        verify::fma_chain_f32(x, a, b, steps)
    }
    fn table(i: u64) -> f32 {
        verify::unit(i, 0x99)
    }
}

impl Precision for F64 {
    type T = f64;
    const SUFFIX: &'static str = "f64";
    const FLOP_PER_FMA: f64 = 2.0;
    const ELEM: u64 = 8;
    fn a_b() -> (f64, f64) {
        (0.999, 0.001)
    }
    fn seed(i: u64) -> f64 {
        verify::unit(i, 0x78) as f64
    }
    fn chain(x: f64, a: f64, b: f64, steps: u64) -> f64 {
        verify::fma_chain_f64(x, a, b, steps)
    }
    fn table(i: u64) -> f64 {
        verify::unit(i, 0x99) as f64
    }
    fn iters(base: u32) -> u32 {
        base / 2
    }
}

fn pack(lo: f64, hi: f64) -> u32 {
    verify::f16_bits(lo) as u32 | (verify::f16_bits(hi) as u32) << 16
}
fn unpack(w: u32) -> (f64, f64) {
    (verify::f16_value(w as u16), verify::f16_value((w >> 16) as u16))
}

impl Precision for F16x2 {
    type T = u32;
    const SUFFIX: &'static str = "f16x2";
    const FLOP_PER_FMA: f64 = 4.0;
    const ELEM: u64 = 4;
    fn a_b() -> (u32, u32) {
        let (a, b) = (verify::round_f16(0.999), verify::round_f16(0.001));
        (pack(a, a), pack(b, b))
    }
    fn seed(i: u64) -> u32 {
        pack(
            verify::round_f16(verify::unit(2 * i, 0x79) as f64),
            verify::round_f16(verify::unit(2 * i + 1, 0x79) as f64),
        )
    }
    fn chain(x: u32, a: u32, b: u32, steps: u64) -> u32 {
        let ((xl, xh), (a, _), (b, _)) = (unpack(x), unpack(a), unpack(b));
        pack(verify::fma_chain_f16(xl, a, b, steps), verify::fma_chain_f16(xh, a, b, steps))
    }
    fn table(i: u64) -> u32 {
        pack(verify::round_f16(verify::unit(i, 0x99) as f64), 0.0)
    }
}

struct Fma<P: Precision> {
    id: String,
    f: CudaFunction,
    seeds: CudaSlice<P::T>,
    seed_values: Vec<P::T>,
    out: CudaSlice<P::T>,
    iters: u32,
    steps: u64,
    blocks: u32,
}

/// The CUDA-core FMA peak of one precision.
pub(crate) fn fma(st: &mut Setup<'_>, kind: FlopKind) -> Result<Built, GpuError> {
    match kind {
        FlopKind::Fp32 => fma_of::<F32>(st),
        FlopKind::Fp64 => fma_of::<F64>(st),
        FlopKind::Fp16 => fma_of::<F16x2>(st),
        other => Err(GpuError::bench(&st.spec.id, format!("no CUDA-core FMA benchmark for {}", other.label()))),
    }
}

fn fma_of<P: Precision + 'static>(st: &mut Setup<'_>) -> Result<Built, GpuError> {
    let s = st.s;
    let sms = s.sms();
    let t = 256u32;
    let bps = (s.info().max_threads_per_sm.max(1024) / t).max(1);
    let threads = (sms * bps * t) as usize;
    let iters = P::iters(st.cfg.fma_iters);
    let steps = iters as u64 * UNROLL;
    let seed_values: Vec<P::T> = (0..16 * CHAINS as u64).map(P::seed).collect();
    let seeds = s.upload(&seed_values)?;
    let out = s.alloc::<P::T>(threads * CHAINS, "FMA output")?;
    let f = s.function(COMPUTE, &format!("fma_{}", P::SUFFIX))?;
    let work = threads as f64 * steps as f64 * CHAINS as f64 * P::FLOP_PER_FMA;
    let shape = LaunchShape::new(sms * bps, t);
    let c = Candidate { label: shape.describe(), shape, work, x: None, variant: 0 };
    let size = format!("{threads} threads x {CHAINS} independent chains x {steps} FMAs");
    let plan = st.plan(vec![c], None, size);
    let w = Fma::<P> { id: st.spec.id.clone(), f, seeds, seed_values, out, iters, steps, blocks: sms * bps };
    Ok((Box::new(w), plan))
}

impl<P: Precision> Workload for Fma<P> {
    fn launch(&mut self, s: &Session, c: &Candidate) -> Result<(), GpuError> {
        let (a, b) = P::a_b();
        launch!(s, self.f, grid(self.blocks, c.shape.block, 0); &self.seeds, &mut self.out, &self.iters, &a, &b)
    }

    fn verify(&mut self, s: &Session, c: &Candidate) -> Result<String, GpuError> {
        s.poison(&mut self.out)?;
        self.launch(s, c)?;
        let got = s.download(&self.out)?;
        let (a, b) = P::a_b();
        let want: Vec<P::T> = self.seed_values.iter().map(|x| P::chain(*x, a, b, self.steps)).collect();
        compare(&self.id, &got, |i| want[((i / CHAINS) % 16) * CHAINS + i % CHAINS])?;
        Ok(format!("all {} chain results, bit-exact against the host's IEEE FMA", got.len()))
    }
}

struct IntensitySweep<P: Precision> {
    id: String,
    n: u64,
    inp: CudaSlice<P::T>,
    out: CudaSlice<P::T>,
    kernel: CudaFunction,
    check: CudaFunction,
    table: Vec<P::T>,
    iters: Vec<u32>,
    blocks: u32,
    seed: u32,
}

/// The intensity sweep of one precision (FP32 or FP64): from one FMA per
/// element loaded to thousands, the measured roofline's slope and plateau.
pub(crate) fn intensity_sweep(st: &mut Setup<'_>, kind: FlopKind) -> Result<Built, GpuError> {
    match kind {
        FlopKind::Fp32 => sweep_of::<F32>(st),
        FlopKind::Fp64 => sweep_of::<F64>(st),
        other => Err(GpuError::bench(&st.spec.id, format!("no intensity sweep for {}", other.label()))),
    }
}

fn sweep_of<P: Precision + 'static>(st: &mut Setup<'_>) -> Result<Built, GpuError> {
    let s = st.s;
    let sms = s.sms();
    let (t, bps) = (256u32, (s.info().max_threads_per_sm.max(1024) / 256).max(1));
    let free = s.free_bytes();
    let want = st.cfg.sweep_elems * 4 / P::ELEM;
    let mut n = want;
    while n * P::ELEM * 2 > free / 2 && n > 1 << 20 {
        n /= 2;
    }
    if n < want {
        st.warnings.push(format!(
            "{}: only {} of device memory free: {n} elements instead of {want}",
            st.spec.id,
            gib(free)
        ));
    }
    let mut inp = s.alloc::<P::T>(n as usize, "sweep input")?;
    let out = s.alloc::<P::T>(n as usize, "sweep output")?;
    let table: Vec<P::T> = (0..256u64).map(P::table).collect();
    let seed = 0x3131u32;
    {
        let init = s.function(COMPUTE, &format!("sweep_init_{}", P::SUFFIX))?;
        let tb = s.upload(&table)?;
        launch!(s, init, grid(sms * bps, t, 0); &mut inp, &n, &seed, &tb)?;
        s.sync()?;
    }
    let kernel = s.function(COMPUTE, &format!("sweep_{}", P::SUFFIX))?;
    let check = s.function(COMPUTE, &format!("sweep_check_{}", P::SUFFIX))?;
    let iters = st.cfg.sweep_iters.clone();
    let shape = LaunchShape { width: Some(16), ..LaunchShape::new(sms * bps, t) };
    let candidates = iters
        .iter()
        .enumerate()
        .map(|(i, &it)| {
            // FLOPs per element over bytes per element (one load, one store).
            let intensity = it as f64 * P::FLOP_PER_FMA / (2 * P::ELEM) as f64;
            Candidate {
                label: format!("{it} FMA/element"),
                shape: shape.clone(),
                work: n as f64 * it as f64 * P::FLOP_PER_FMA,
                x: Some(intensity),
                variant: i,
            }
        })
        .collect();
    let size = format!("{n} elements of {} bytes, {} intensities", P::ELEM, iters.len());
    let plan = st.plan(candidates, Some("FLOP per byte"), size);
    let w = IntensitySweep::<P> {
        id: st.spec.id.clone(),
        n,
        inp,
        out,
        kernel,
        check,
        table,
        iters,
        blocks: sms * bps,
        seed,
    };
    Ok((Box::new(w), plan))
}

impl<P: Precision> Workload for IntensitySweep<P> {
    fn launch(&mut self, s: &Session, c: &Candidate) -> Result<(), GpuError> {
        let it = self.iters[c.variant];
        let nv = self.n * P::ELEM / 16;
        let (a, b) = P::a_b();
        launch!(s, self.kernel, grid(self.blocks, c.shape.block, 0); &self.inp, &mut self.out, &nv, &it, &a, &b)
    }

    fn verify(&mut self, s: &Session, c: &Candidate) -> Result<String, GpuError> {
        let it = self.iters[c.variant] as u64;
        s.poison(&mut self.out)?;
        self.launch(s, c)?;
        let bad = bad_counter(s)?;
        let (a, b) = P::a_b();
        let expect: Vec<P::T> = self.table.iter().map(|x| P::chain(*x, a, b, it)).collect();
        let ed = s.upload(&expect)?;
        launch!(s, self.check, grid(self.blocks, c.shape.block, 0); &self.out, &self.n, &self.seed, &ed, &bad)?;
        read_bad(s, &bad, self.n, &format!("{} at {it} FMA/element", self.id))?;
        Ok("every output element of every point against host-computed values".into())
    }
}

/// Conflict-free LDS.128 reads per thread and trip (RL_SMEM_K).
const SMEM_K: usize = 8;
const SMEM_SEED: u32 = 0x5151;

struct SharedBandwidth {
    id: String,
    f: CudaFunction,
    src: CudaSlice<u32>,
    tile: Vec<u32>,
    out: CudaSlice<u32>,
    reps: u32,
    block: u32,
    shared: u32,
}

/// Shared-memory bandwidth with LDS.128, conflict-free, over blocks per SM.
pub(crate) fn shared_bandwidth(st: &mut Setup<'_>) -> Result<Built, GpuError> {
    let s = st.s;
    let sms = s.sms();
    let t = 256u32;
    let tile_words = t as usize * SMEM_K * 4;
    let shared = (tile_words * 4) as u32;
    let mut src = s.alloc::<u32>(tile_words, "shared tile source")?;
    init_u32(s, &mut src, SMEM_SEED)?;
    let tile: Vec<u32> = (0..tile_words as u64).map(|i| verify::hash(i, SMEM_SEED)).collect();
    let f = s.function(COMPUTE, "smem_read")?;
    let per_sm = (s.info().max_threads_per_sm.max(1024) / t).max(1);
    let max_bps = ((228 * 1024) / (shared + 1024)).min(per_sm);
    let reps = if st.cfg.quick { 2048u32 } else { 4096 };
    let out = s.alloc::<u32>((sms * per_sm * t) as usize, "shared output")?;
    let candidates = [2u32, 4, 6, 8]
        .into_iter()
        .filter(|b| *b <= max_bps)
        .enumerate()
        .map(|(i, bps)| {
            let shape = LaunchShape { width: Some(16), shared_bytes: Some(shared), ..LaunchShape::new(sms * bps, t) };
            let work = (sms * bps * t) as f64 * reps as f64 * (SMEM_K * 16) as f64;
            Candidate { label: shape.describe(), shape, work, x: None, variant: i }
        })
        .collect();
    let size = format!("{shared} B tile per block, {reps} passes");
    let plan = st.plan(candidates, None, size);
    let w = SharedBandwidth { id: st.spec.id.clone(), f, src, tile, out, reps, block: t, shared };
    Ok((Box::new(w), plan))
}

impl Workload for SharedBandwidth {
    fn launch(&mut self, s: &Session, c: &Candidate) -> Result<(), GpuError> {
        launch!(s, self.f, grid(c.shape.grid, self.block, self.shared); &self.src, &mut self.out, &self.reps)
    }

    fn verify(&mut self, s: &Session, c: &Candidate) -> Result<String, GpuError> {
        s.poison(&mut self.out)?;
        self.launch(s, c)?;
        let threads = (c.shape.grid * self.block) as usize;
        let got = s.download_prefix(&self.out, threads)?;
        let t = self.block as usize;
        let expect: Vec<u32> = (0..t).map(|i| verify::smem_expected(&self.tile, i, t, SMEM_K, self.reps)).collect();
        compare(&self.id, &got, |i| expect[i % t])?;
        Ok(format!("all {threads} per-thread sums against the host's"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_generic_path_serves_every_cuda_core_precision() {
        // The same chain formula replayed per precision: x = x * 0.999 + 0.001
        // heads for 1 from any seed.
        assert!((F32::chain(0.5, F32::a_b().0, F32::a_b().1, 20_000) - 1.0).abs() < 1e-3);
        assert!((F64::chain(0.5, 0.999, 0.001, 40_000) - 1.0).abs() < 1e-9);
        let (a, b) = F16x2::a_b();
        let (x, (ah, _), (bh, _)) = (F16x2::seed(3), unpack(a), unpack(b));
        let (lo, hi) = unpack(F16x2::chain(x, a, b, 300));
        assert_eq!(lo, verify::fma_chain_f16(unpack(x).0, ah, bh, 300));
        assert_eq!(hi, verify::fma_chain_f16(unpack(x).1, ah, bh, 300));
        assert_eq!((F32::FLOP_PER_FMA, F64::FLOP_PER_FMA, F16x2::FLOP_PER_FMA), (2.0, 2.0, 4.0));
        assert_eq!(F64::iters(2048), 1024);
        assert_eq!([F32::SUFFIX, F64::SUFFIX, F16x2::SUFFIX], ["f32", "f64", "f16x2"]);
    }

    #[test]
    fn half2_seeds_pack_two_exact_halves() {
        let w = F16x2::seed(5);
        let (lo, hi) = unpack(w);
        assert_eq!(pack(lo, hi), w);
        assert_eq!(verify::round_f16(lo), lo);
    }
}
