//! The bundled example kernels (seed 000's, from `examples/kernels/seed000.cu`,
//! plus an FMA loop at several intensities), run on the local GPU.
//!
//! The main job (`roofline tour`) places them on the roofline two ways: under
//! Nsight Compute, which counts their FLOPs and bytes (then this module runs
//! each kernel once), or, without ncu, timed here with CUDA events against
//! the FLOPs and bytes known on paper. Every output is poisoned before the
//! run and checked after it, so a kernel that computes the wrong thing fails
//! loudly instead of producing a fast, wrong point.

use cudarc::driver::{CudaFunction, CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg};
use roofline_model::Kernel;
use roofline_model::Spread;
use roofline_model::{FlopKind, MemLevel, Origin};

use crate::error::GpuError;
use crate::nvrtc;
use crate::session::{Reps, Session};

/// The device code, shared with the nvcc host program `seed000_host.cu`.
pub const SEED000: &str = include_str!("../../../examples/kernels/seed000.cu");

/// FMA iterations per element of the intensity sweep (seed 000's practice 2).
pub const SWEEP_ITERS: [u32; 7] = [1, 4, 16, 64, 256, 1024, 4096];

/// Elementwise arrays: 2^24 floats (64 MiB each, 4 arrays > the H200's L2).
const N: usize = 1 << 24;
/// FMA loops: 2^22 threads.
const NF: usize = 1 << 22;
const NS: usize = 1 << 22;
const STRIDE: usize = 32;
const CHASE_SLOTS: usize = 1 << 24;
const CHASE_BLOCKS: u32 = 132;
const CHASE_THREADS: u32 = 32;
const CHASE_STEPS: i32 = 4096;
const MATMUL_N: usize = 2048;
const FP64_ITERS: i32 = 512;

/// The source NVRTC compiles: seed000.cu and one entry point per sweep
/// intensity, so that each shows under its own name in a profile.
pub fn source() -> String {
    let mut s = String::from(SEED000);
    s.push_str("\n// Added by roofline tour: one name per intensity of the FMA sweep.\n");
    for it in SWEEP_ITERS {
        s.push_str(&format!(
            "extern \"C\" __global__ void fma_loop_x{it}(float* x, int iters) {{ seed000_fma_chains(x, iters); }}\n"
        ));
    }
    s
}

/// One kernel's run.
#[derive(Debug, Clone)]
pub struct ExampleRun {
    /// Kernel name, as launched.
    pub name: String,
    /// FLOPs of one launch, on paper.
    pub flops: f64,
    /// Precision of `flops`; None for kernels that do no floating-point work.
    pub kind: Option<FlopKind>,
    /// DRAM bytes of one launch, on paper (each array once).
    pub bytes: f64,
    /// Seconds per timed launch (CUDA events).
    pub seconds: Spread,
    /// How the output was checked.
    pub verified: String,
}

impl ExampleRun {
    fn fp32(name: &str, flops: f64, bytes: f64, seconds: Spread, verified: String) -> ExampleRun {
        ExampleRun { name: name.into(), flops, kind: Some(FlopKind::Fp32), bytes, seconds, verified }
    }

    /// A roofline kernel: the paper FLOPs and bytes over the median time.
    pub fn kernel(&self) -> Kernel {
        let mut k = Kernel::named(&self.name, Origin::Measured);
        if let Some(kind) = self.kind {
            k.flops.insert(kind, self.flops);
        }
        k.bytes.insert(MemLevel::Dram, self.bytes);
        k.duration_s = Some(self.seconds.median);
        k
    }
}

/// How many launches to time.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Untimed launches first.
    pub warmup: usize,
    /// Timed launches.
    pub timed: usize,
}

impl Plan {
    /// One launch each, for a profiler that counts every launch.
    pub const PROFILE: Plan = Plan { warmup: 0, timed: 1 };
    /// Enough launches for a stable median.
    pub const TIMED: Plan = Plan { warmup: 2, timed: 10 };
}

/// The module name the example source is kept under in the session.
const MODULE: &str = "seed000.cu";

struct Runner {
    s: Session,
    plan: Plan,
}

/// A launch of `$f` with arguments, as a closure for [`Runner::time`].
/// SAFETY (of the `launch` inside): the arguments match the kernel's
/// signature in seed000.cu.
macro_rules! launch {
    ($r:expr, $f:expr, $c:expr, $name:expr; $($arg:expr),*) => {
        &mut || -> Result<(), GpuError> {
            let mut b = $r.s.stream().launch_builder(&$f);
            $( b.arg($arg); )*
            unsafe { b.launch($c) }.map(|_| ()).map_err(|e| GpuError::driver($name, e))
        }
    };
}

fn cfg(grid: (u32, u32), block: (u32, u32)) -> LaunchConfig {
    LaunchConfig { grid_dim: (grid.0, grid.1, 1), block_dim: (block.0, block.1, 1), shared_mem_bytes: 0 }
}

/// A small xorshift generator, so inputs are random but reproducible.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn float(&mut self) -> f32 {
        ((self.next() >> 40) as f64 / 16777216.0) as f32 * 2.0 - 1.0
    }
    fn floats(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.float()).collect()
    }
}

impl Runner {
    fn func(&self, name: &str) -> Result<CudaFunction, GpuError> {
        self.s.function(MODULE, name)
    }

    fn upload<T: DeviceRepr>(&self, v: &[T]) -> Result<CudaSlice<T>, GpuError> {
        self.s.upload(v)
    }

    fn download<T: DeviceRepr + Default + Clone>(&self, s: &CudaSlice<T>) -> Result<Vec<T>, GpuError> {
        self.s.download(s)
    }

    fn alloc<T: DeviceRepr>(&self, n: usize, what: &str) -> Result<CudaSlice<T>, GpuError> {
        self.s.alloc(n, what)
    }

    /// 0xFF bytes: NaN in every float format, so unwritten output fails the check.
    fn poison<T>(&self, s: &mut CudaSlice<T>) -> Result<(), GpuError> {
        self.s.poison(s)
    }

    /// Runs `launch` (warm-up, then timed launches) and returns seconds per launch.
    fn time(&self, name: &str, go: &mut dyn FnMut() -> Result<(), GpuError>) -> Result<Spread, GpuError> {
        let t = self.s.time(Reps::new(self.plan.warmup, 1, self.plan.timed), go)?;
        let secs = t.runs.into_iter().next().unwrap_or_default();
        Spread::from_samples(&secs).map_err(|e| GpuError::bench(name, e.to_string()))
    }
}

fn wrong(bench: &str, detail: String) -> GpuError {
    GpuError::Verification { bench: bench.into(), detail }
}

/// Checks `got` against `want` element by element, within `tol` relative.
fn check_all(name: &str, got: &[f32], want: impl Fn(usize) -> f32, tol: f32) -> Result<String, GpuError> {
    for (i, &g) in got.iter().enumerate() {
        let w = want(i);
        if !(g - w).abs().le(&(tol * (1.0 + w.abs()))) {
            return Err(wrong(name, format!("element {i} is {g}, expected {w}")));
        }
    }
    Ok(format!("all {} elements checked against the CPU", got.len()))
}

/// seed000's four FMA chains on the CPU, with fused multiply-adds as the GPU
/// does them (one function per precision, the same formula).
macro_rules! fma_chains_cpu {
    ($name:ident, $t:ty) => {
        fn $name(x: $t, iters: u32) -> $t {
            let (mut a, mut b, mut c, mut d) = (x, x + 1.0, x + 2.0, x + 3.0);
            for _ in 0..iters {
                a = a.mul_add(0.999, 0.001);
                b = b.mul_add(0.999, 0.001);
                c = c.mul_add(0.999, 0.001);
                d = d.mul_add(0.999, 0.001);
            }
            a + b + c + d
        }
    };
}
fma_chains_cpu!(fma_chains_cpu, f32);
fma_chains_cpu!(fma_chains_cpu_f64, f64);

/// Checks about 4100 evenly spread elements of an FMA loop's output
/// against the CPU: `at(i)` gives (GPU value, CPU value).
fn check_sampled(name: &str, n: usize, rel: f64, at: impl Fn(usize) -> (f64, f64)) -> Result<String, GpuError> {
    let step = (n / 4099).max(1);
    for i in (0..n).step_by(step) {
        let (g, w) = at(i);
        if (g - w).abs() > rel * (1.0 + w.abs()) {
            return Err(wrong(name, format!("element {i} is {g}, expected {w}")));
        }
    }
    Ok(format!("{} elements checked against the CPU (fused multiply-add)", n.div_ceil(step)))
}

/// Runs every example kernel on `ordinal`, calling `progress` with each name.
pub fn run(ordinal: usize, plan: Plan, progress: &mut dyn FnMut(&str)) -> Result<Vec<ExampleRun>, GpuError> {
    nvrtc::check_nvrtc()?;
    let mut s = Session::open(ordinal)?;
    let options = nvrtc::options(s.arch());
    s.compile(MODULE, &source(), &options)?;
    let r = Runner { s, plan };
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::new();
    let n = N as i32;
    let grid = ((N / 256) as u32, 1);
    let blk = (256, 1);

    let hx = rng.floats(N);
    let ha = rng.floats(N);
    let hb = rng.floats(N);
    let hy = rng.floats(N);
    let x = r.upload(&hx)?;
    let a = r.upload(&ha)?;
    let b = r.upload(&hb)?;
    let mut y = r.alloc::<f32>(N, "y")?;
    let mut o = r.alloc::<f32>(N, "out")?;

    // vecadd
    progress("vecadd");
    r.poison(&mut o)?;
    let f = r.func("vecadd")?;
    let t = r.time("vecadd", launch!(r, f, cfg(grid, blk), "vecadd"; &x, &a, &o, &n))?;
    let got = r.download(&o)?;
    let verified = check_all("vecadd", &got, |i| hx[i] + ha[i], 0.0)?;
    out.push(ExampleRun::fp32("vecadd", N as f64, 12.0 * N as f64, t, verified));

    // saxpy: y = 2 x + y, repeated launches accumulate, so check one launch's step.
    progress("saxpy");
    let mut ys = r.upload(&hy)?;
    let f = r.func("saxpy")?;
    let alpha = 2.0f32;
    let t = r.time("saxpy", launch!(r, f, cfg(grid, blk), "saxpy"; &alpha, &x, &mut ys, &n))?;
    let launches = (plan.warmup + plan.timed) as u32;
    let got = r.download(&ys)?;
    let verified = check_all(
        "saxpy",
        &got,
        |i| {
            let mut v = hy[i];
            for _ in 0..launches {
                v = alpha.mul_add(hx[i], v);
            }
            v
        },
        1e-5,
    )?;
    out.push(ExampleRun::fp32("saxpy", 2.0 * N as f64, 12.0 * N as f64, t, verified));

    // scale + add, then the fused kernel (seed 000's fusion).
    progress("scale + add");
    r.poison(&mut y)?;
    let f = r.func("scale")?;
    let t = r.time("scale", launch!(r, f, cfg(grid, blk), "scale"; &x, &a, &y, &n))?;
    let got = r.download(&y)?;
    let verified = check_all("scale", &got, |i| ha[i] * hx[i], 0.0)?;
    out.push(ExampleRun::fp32("scale", N as f64, 12.0 * N as f64, t, verified));
    r.poison(&mut o)?;
    let f = r.func("add")?;
    let t = r.time("add", launch!(r, f, cfg(grid, blk), "add"; &y, &b, &o, &n))?;
    let got = r.download(&o)?;
    let verified = check_all("add", &got, |i| ha[i] * hx[i] + hb[i], 0.0)?;
    out.push(ExampleRun::fp32("add", N as f64, 12.0 * N as f64, t, verified));
    progress("fused");
    r.poison(&mut o)?;
    let f = r.func("fused")?;
    let t = r.time("fused", launch!(r, f, cfg(grid, blk), "fused"; &x, &a, &b, &o, &n))?;
    let got = r.download(&o)?;
    let verified = check_all("fused", &got, |i| ha[i].mul_add(hx[i], hb[i]), 1e-6)?;
    out.push(ExampleRun::fp32("fused", 2.0 * N as f64, 16.0 * N as f64, t, verified));
    drop((y, ys));

    // The FMA loop at several intensities: each launch rewrites x from its own input.
    let hf = &hx[..NF];
    let mut xf = r.alloc::<f32>(NF, "fma input")?;
    let fgrid = ((NF / 256) as u32, 1);
    for it in SWEEP_ITERS {
        let name = format!("fma_loop_x{it}");
        progress(&name);
        let f = r.func(&name)?;
        let iters = it as i32;
        // Each launch reads x and overwrites it: restore before every launch
        // would pollute the timing, so time on whatever is there, then verify
        // one fresh launch.
        xf = r.upload(hf)?;
        let t = r.time(&name, launch!(r, f, cfg(fgrid, blk), name.clone(); &mut xf, &iters))?;
        xf = r.upload(hf)?;
        let mut b1 = r.s.stream().launch_builder(&f);
        b1.arg(&mut xf).arg(&iters);
        // SAFETY: matches fma_loop_xN(float*, int).
        unsafe { b1.launch(cfg(fgrid, blk)) }.map_err(|e| GpuError::driver(name.clone(), e))?;
        let got = r.download(&xf)?;
        let verified = check_sampled(&name, NF, 1e-5, |i| (got[i] as f64, fma_chains_cpu(hf[i], it) as f64))?;
        let flops = (8.0 * it as f64 + 6.0) * NF as f64;
        out.push(ExampleRun { name, flops, kind: Some(FlopKind::Fp32), bytes: 8.0 * NF as f64, seconds: t, verified });
    }
    drop(xf);

    // FP64 loop.
    progress("fma_loop_fp64");
    let hd: Vec<f64> = hx[..NF].iter().map(|&v| v as f64).collect();
    let mut xd = r.upload(&hd)?;
    let f = r.func("fma_loop_fp64")?;
    let t = r.time("fma_loop_fp64", launch!(r, f, cfg(fgrid, blk), "fma_loop_fp64"; &mut xd, &FP64_ITERS))?;
    xd = r.upload(&hd)?;
    let mut b1 = r.s.stream().launch_builder(&f);
    b1.arg(&mut xd).arg(&FP64_ITERS);
    // SAFETY: matches fma_loop_fp64(double*, int).
    unsafe { b1.launch(cfg(fgrid, blk)) }.map_err(|e| GpuError::driver("fma_loop_fp64", e))?;
    let got = r.download(&xd)?;
    let verified =
        check_sampled("fma_loop_fp64", NF, 1e-12, |i| (got[i], fma_chains_cpu_f64(hd[i], FP64_ITERS as u32)))?;
    out.push(ExampleRun {
        name: "fma_loop_fp64".into(),
        flops: (8.0 * FP64_ITERS as f64 + 6.0) * NF as f64,
        kind: Some(FlopKind::Fp64),
        bytes: 16.0 * NF as f64,
        seconds: t,
        verified,
    });
    drop(xd);

    // Strided access: one useful float per 32-byte sector.
    progress("strided_copy");
    let big_h = rng.floats(NS * STRIDE);
    let big = r.upload(&big_h)?;
    r.poison(&mut o)?;
    let f = r.func("strided_copy")?;
    let (ns, stride) = (NS as i32, STRIDE as i32);
    let sgrid = ((NS / 256) as u32, 1);
    let t = r.time("strided_copy", launch!(r, f, cfg(sgrid, blk), "strided_copy"; &big, &o, &ns, &stride))?;
    let got = r.download(&o)?;
    let verified = check_all("strided_copy", &got[..NS], |i| big_h[i * STRIDE], 0.0)?;
    out.push(ExampleRun {
        name: "strided_copy".into(),
        flops: 0.0,
        kind: None,
        bytes: 8.0 * NS as f64,
        seconds: t,
        verified,
    });
    drop((big, big_h));

    // Pointer chase through one random cycle (Sattolo) of 2^24 slots.
    progress("pointer_chase");
    let mut next: Vec<i32> = (0..CHASE_SLOTS as i32).collect();
    for i in (1..CHASE_SLOTS).rev() {
        let j = (rng.next() % i as u64) as usize;
        next.swap(i, j);
    }
    let dn = r.upload(&next)?;
    let threads = (CHASE_BLOCKS * CHASE_THREADS) as usize;
    let mut dout = r.alloc::<i32>(threads, "chase out")?;
    r.poison(&mut dout)?;
    let f = r.func("pointer_chase")?;
    let t = r.time(
        "pointer_chase",
        launch!(r, f, cfg((CHASE_BLOCKS, 1), (CHASE_THREADS, 1)), "pointer_chase"; &dn, &dout, &CHASE_STEPS),
    )?;
    let got = r.download(&dout)?;
    for (tid, &g) in got.iter().enumerate().step_by(37) {
        let mut p = (tid as i64 * 3967) as usize;
        for _ in 0..CHASE_STEPS {
            p = next[p] as usize;
        }
        if g as usize != p {
            return Err(wrong("pointer_chase", format!("thread {tid} ended at {g}, expected {p}")));
        }
    }
    out.push(ExampleRun {
        name: "pointer_chase".into(),
        flops: 0.0,
        kind: None,
        bytes: 32.0 * CHASE_STEPS as f64 * threads as f64,
        seconds: t,
        verified: format!("{} chains followed on the CPU", threads.div_ceil(37)),
    });
    drop((dn, dout, next));

    // Matrix products, naive and tiled.
    let nm = MATMUL_N;
    let ma = r.upload(&hx[..nm * nm])?;
    let mb = r.upload(&ha[..nm * nm])?;
    let nmi = nm as i32;
    for (name, block, tile) in [("matmul_naive", 16u32, 16usize), ("matmul_tiled", 32, 32)] {
        progress(name);
        r.poison(&mut o)?;
        let f = r.func(name)?;
        let g = ((nm / tile) as u32, (nm / tile) as u32);
        let t = r.time(name, launch!(r, f, cfg(g, (block, block)), name; &ma, &mb, &o, &nmi))?;
        let got = r.download(&o)?;
        let mut checked = 0;
        for s in 0..64usize {
            let (row, col) = ((s * 977) % nm, (s * 1531 + 7) % nm);
            let want: f64 = (0..nm).map(|k| hx[row * nm + k] as f64 * ha[k * nm + col] as f64).sum();
            let g = got[row * nm + col] as f64;
            if (g - want).abs() > 1e-3 * (1.0 + want.abs()) {
                return Err(wrong(name, format!("C[{row}][{col}] is {g}, expected {want}")));
            }
            checked += 1;
        }
        if got[..nm * nm].iter().any(|v| v.is_nan()) {
            return Err(wrong(name, "some elements of C were not written".into()));
        }
        out.push(ExampleRun {
            name: name.into(),
            flops: 2.0 * (nm as f64).powi(3),
            kind: Some(FlopKind::Fp32),
            bytes: 12.0 * (nm * nm) as f64,
            seconds: t,
            verified: format!("{checked} elements against an FP64 CPU reference, none left unwritten"),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sweep_entry_point_is_in_the_source() {
        let s = source();
        for it in SWEEP_ITERS {
            assert!(s.contains(&format!("void fma_loop_x{it}(float* x, int iters)")));
        }
        assert!(
            s.contains("__device__") && s.contains("seed000_fma_chains"),
            "seed000.cu must define the shared FMA body"
        );
    }

    #[test]
    fn cpu_fma_chains_match_the_kernel_formula() {
        // Four chains from x, x+1, x+2, x+3 and a final sum.
        assert_eq!(fma_chains_cpu(0.5, 0), 0.5 + 1.5 + 2.5 + 3.5);
        let one = fma_chains_cpu(0.0, 1);
        assert!(
            (one - (0.001
                + 1.0f32.mul_add(0.999, 0.001)
                + 2.0f32.mul_add(0.999, 0.001)
                + 3.0f32.mul_add(0.999, 0.001)))
            .abs()
                < 1e-6
        );
    }

    #[test]
    fn paper_kernel_has_its_flops_and_bytes() {
        let r = ExampleRun {
            name: "vecadd".into(),
            flops: 10.0,
            kind: Some(FlopKind::Fp32),
            bytes: 120.0,
            seconds: Spread::from_samples(&[1.0, 2.0, 3.0]).unwrap(),
            verified: String::new(),
        };
        let k = r.kernel();
        assert_eq!(k.duration_s, Some(2.0));
        assert_eq!(k.bytes[&MemLevel::Dram], 120.0);
        assert_eq!(k.origin, Origin::Measured);
    }
}
