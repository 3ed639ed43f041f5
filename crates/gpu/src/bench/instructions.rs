//! The instruction benchmarks on the GPU (`kernels/instructions.cu`): INT32,
//! MUFU, shared-memory loads and stores, atomics and load issue, each a
//! sweep.
//!
//! - INT32 and MUFU sweep the warps per SM: the rate rises until the pipe is
//!   full, and the curve's knee says how many warps it takes.
//! - Shared memory sweeps the ways of bank conflict: each way divides the
//!   rate, the conflict-free point is the roof.
//! - Atomics sweep the threads per address, from distinct addresses to one
//!   address for the whole grid (or block).
//! - Load issue sweeps the bytes per warp instruction: the instruction rate
//!   holds until the L1's bytes per clock bind.
//!
//! Work is counted in warp instructions of the named kind.

use cudarc::driver::{CudaFunction, CudaSlice, PushKernelArg};

use super::executor::Candidate;
use super::suite::{AtomicSpace, IntOp, LaunchShape, MufuOp, SmemOp};
use super::verify;
use super::workload::{compare, launch, Built, Setup, Workload, INSTRUCTIONS};
use crate::error::GpuError;
use crate::session::{grid, Session};

/// Chains per thread, steps per loop trip, and slots per trip (RL_IC, RL_IU, RL_SK).
const CHAINS: usize = 8;
const UNROLL: u64 = 32;
const SLOTS: u32 = 8;
/// Threads per block of the occupancy sweeps (4 warps).
const SWEEP_BLOCK: u32 = 128;
/// Threads per block of the other benchmarks.
const BLOCK: u32 = 256;

/// Warps per SM of an occupancy sweep, up to the SM's limit.
fn warps_per_sm(max_threads_per_sm: u32) -> Vec<u32> {
    [4u32, 8, 16, 32, 64].into_iter().filter(|w| w * 32 <= max_threads_per_sm.max(1024)).collect()
}

/// Loop trips scaled by the suite's size, at least one.
fn scaled(base: u32, scale: f64) -> u32 {
    ((base as f64 * scale) as u32).max(1)
}

/// One candidate per warps-per-SM setting, each `inst_per_warp` instructions
/// per warp; settings beyond what `f` can keep resident (registers) are left
/// out, so that x is the occupancy the kernel really has.
fn occupancy_candidates(s: &Session, f: &CudaFunction, inst_per_warp: f64) -> Vec<Candidate> {
    let resident = f.occupancy_max_active_blocks_per_multiprocessor(SWEEP_BLOCK, 0, None).map(|b| b * SWEEP_BLOCK / 32);
    warps_per_sm(s.info().max_threads_per_sm)
        .into_iter()
        .filter(|w| resident.map(|r| *w <= r).unwrap_or(true))
        .enumerate()
        .map(|(i, w)| {
            let blocks = s.sms() * w / 4;
            let shape = LaunchShape::new(blocks, SWEEP_BLOCK);
            let warps = (blocks * SWEEP_BLOCK / 32) as f64;
            Candidate {
                label: format!("{w} warps per SM"),
                shape,
                work: warps * inst_per_warp,
                x: Some(w as f64),
                variant: i,
            }
        })
        .collect()
}

struct IntChains {
    id: String,
    op: IntOp,
    f: CudaFunction,
    seeds: CudaSlice<u32>,
    seed_values: Vec<u32>,
    out: CudaSlice<u32>,
    iters: u32,
    k: u32,
}

/// One 32-bit integer instruction, swept over warps per SM.
pub(crate) fn int(st: &mut Setup<'_>, op: IntOp) -> Result<Built, GpuError> {
    let s = st.s;
    let name = match op {
        IntOp::Imad => "int_imad",
        IntOp::Iadd3 => "int_iadd3",
        IntOp::Lop3 => "int_lop3",
    };
    let f = s.function(INSTRUCTIONS, name)?;
    let seed_values: Vec<u32> = (0..16 * CHAINS as u64).map(|i| verify::hash(i, 0x17)).collect();
    let seeds = s.upload(&seed_values)?;
    let iters = scaled(128, st.cfg.inst_scale);
    let max_threads = s.sms() * s.info().max_threads_per_sm.max(1024);
    let out = s.alloc::<u32>(max_threads as usize * CHAINS, "integer chains")?;
    let per_warp = iters as f64 * UNROLL as f64 * CHAINS as f64;
    let plan = st.plan(
        occupancy_candidates(s, &f, per_warp),
        Some("warps per SM"),
        format!("{CHAINS} chains x {} steps per thread, blocks of {SWEEP_BLOCK}", iters as u64 * UNROLL),
    );
    // An odd multiplier keeps IMAD's chains from collapsing to zero.
    let w = IntChains { id: st.spec.id.clone(), op, f, seeds, seed_values, out, iters, k: 0x9E37_79B1 };
    Ok((Box::new(w), plan))
}

impl Workload for IntChains {
    fn launch(&mut self, s: &Session, c: &Candidate) -> Result<(), GpuError> {
        launch!(s, self.f, grid(c.shape.grid, c.shape.block, 0); &self.seeds, &mut self.out, &self.iters, &self.k)
    }

    fn verify(&mut self, s: &Session, c: &Candidate) -> Result<String, GpuError> {
        s.poison(&mut self.out)?;
        self.launch(s, c)?;
        let threads = (c.shape.grid * c.shape.block) as usize;
        let got = s.download_prefix(&self.out, threads * CHAINS)?;
        let steps = self.iters as u64 * UNROLL;
        let want: Vec<Vec<u32>> = (0..16)
            .map(|t| verify::int_chains(self.op, &self.seed_values[t * CHAINS..(t + 1) * CHAINS], self.k, steps))
            .collect();
        compare(&self.id, &got, |i| want[(i / CHAINS) % 16][i % CHAINS])?;
        Ok(format!("all {} chain values of {threads} threads, exact against the host's replay", got.len()))
    }
}

struct MufuChains {
    id: String,
    op: MufuOp,
    f: CudaFunction,
    reference: CudaFunction,
    seeds: CudaSlice<f32>,
    seed_values: Vec<f32>,
    out: CudaSlice<f32>,
    iters: u32,
}

/// One special-function instruction, swept over warps per SM.
pub(crate) fn mufu(st: &mut Setup<'_>, op: MufuOp) -> Result<Built, GpuError> {
    let s = st.s;
    let suffix = match op {
        MufuOp::Ex2 => "ex2",
        MufuOp::Lg2 => "lg2",
        MufuOp::Rsqrt => "rsqrt",
        MufuOp::Sin => "sin",
    };
    let f = s.function(INSTRUCTIONS, &format!("mufu_{suffix}"))?;
    let reference = s.function(INSTRUCTIONS, &format!("mufu_ref_{suffix}"))?;
    let seed_values: Vec<f32> = (0..16 * CHAINS as u64).map(|i| verify::mufu_seed(op, i)).collect();
    let seeds = s.upload(&seed_values)?;
    let iters = scaled(32, st.cfg.inst_scale);
    let max_threads = s.sms() * s.info().max_threads_per_sm.max(1024);
    let out = s.alloc::<f32>(max_threads as usize * CHAINS, "MUFU chains")?;
    let per_warp = iters as f64 * UNROLL as f64 * CHAINS as f64;
    let plan = st.plan(
        occupancy_candidates(s, &f, per_warp),
        Some("warps per SM"),
        format!("{CHAINS} chains x {} steps per thread, blocks of {SWEEP_BLOCK}", iters as u64 * UNROLL),
    );
    let w = MufuChains { id: st.spec.id.clone(), op, f, reference, seeds, seed_values, out, iters };
    Ok((Box::new(w), plan))
}

impl MufuChains {
    /// The 16 x CHAINS chains after `steps`, by the one-thread reference loop.
    fn replay(&self, s: &Session, steps: u32) -> Result<Vec<f32>, GpuError> {
        let mut r = s.alloc::<f32>(16 * CHAINS, "MUFU reference")?;
        s.poison(&mut r)?;
        launch!(s, self.reference, grid(1, (16 * CHAINS) as u32, 0); &self.seeds, &mut r, &steps)?;
        s.download(&r)
    }
}

impl Workload for MufuChains {
    fn launch(&mut self, s: &Session, c: &Candidate) -> Result<(), GpuError> {
        launch!(s, self.f, grid(c.shape.grid, c.shape.block, 0); &self.seeds, &mut self.out, &self.iters)
    }

    fn verify(&mut self, s: &Session, c: &Candidate) -> Result<String, GpuError> {
        // One step against the exact function: the instruction is the one named.
        let one = self.replay(s, 1)?;
        for (i, (&x, &y)) in self.seed_values.iter().zip(&one).enumerate() {
            let want = verify::mufu_step(self.op, x as f64);
            let close = (y as f64 - want).abs() <= 1e-5;
            if !close {
                return Err(GpuError::Verification {
                    bench: self.id.clone(),
                    detail: format!("one step from seed {i} ({x}) gives {y}, the exact function {want}"),
                });
            }
        }
        s.poison(&mut self.out)?;
        self.launch(s, c)?;
        let threads = (c.shape.grid * c.shape.block) as usize;
        let got: Vec<u32> = s.download_prefix(&self.out, threads * CHAINS)?.iter().map(|v| v.to_bits()).collect();
        let steps = self.iters * UNROLL as u32;
        let want: Vec<u32> = self.replay(s, steps)?.iter().map(|v| v.to_bits()).collect();
        compare(&self.id, &got, |i| want[((i / CHAINS) % 16) * CHAINS + i % CHAINS])?;
        Ok(format!(
            "all {} chain values, bit-exact against a one-thread replay of {steps} steps on the device; one step of each chain within 1e-5 of the exact function",
            got.len()
        ))
    }
}

struct SharedInst {
    id: String,
    op: SmemOp,
    f: CudaFunction,
    src: CudaSlice<u32>,
    tile: Vec<u32>,
    out: CudaSlice<u32>,
    /// (ways, trips) per candidate.
    settings: Vec<(u32, u32)>,
    blocks: u32,
}

/// One shared-memory instruction, swept over ways of bank conflict.
pub(crate) fn shared(st: &mut Setup<'_>, op: SmemOp) -> Result<Built, GpuError> {
    let s = st.s;
    let name = match op {
        SmemOp::Lds32 => "smem_lds32",
        SmemOp::Lds128 => "smem_lds128",
        SmemOp::Sts32 => "smem_sts32",
        SmemOp::Sts128 => "smem_sts128",
    };
    let f = s.function(INSTRUCTIONS, name)?;
    let wpe = op.width() / 4;
    let ways: &[u32] = if op.width() == 4 { &[1, 2, 4, 8, 16, 32] } else { &[1, 2, 4, 8] };
    let max_words = 32 * ways.iter().max().copied().unwrap_or(1) * wpe;
    let tile: Vec<u32> = (0..max_words as u64).map(|i| verify::hash(i, 0x6161)).collect();
    let src = s.upload(&tile)?;
    let bps = (s.info().max_threads_per_sm.max(1024) / BLOCK).max(1);
    let blocks = s.sms() * bps;
    // Trips so that each launch moves about the same bytes at every width.
    let base = scaled(if wpe == 1 { 1024 } else { 256 }, st.cfg.inst_scale);
    let out_words = if op.is_store() { blocks * max_words } else { blocks * BLOCK };
    let out = s.alloc::<u32>(out_words as usize, "shared-memory output")?;
    let mut settings = Vec::new();
    let candidates = ways
        .iter()
        .enumerate()
        .map(|(i, &w)| {
            let trips = (base / w).max(4);
            settings.push((w, trips));
            let bytes = 32 * w * op.width();
            let shape =
                LaunchShape { width: Some(op.width()), shared_bytes: Some(bytes), ..LaunchShape::new(blocks, BLOCK) };
            let warps = (blocks * BLOCK / 32) as f64;
            let label = if w == 1 { "no bank conflicts".to_string() } else { format!("{w}-way bank conflicts") };
            Candidate { label, shape, work: warps * trips as f64 * SLOTS as f64, x: Some(w as f64), variant: i }
        })
        .collect();
    let size = format!("{SLOTS} accesses per thread and trip, {blocks} blocks of {BLOCK}");
    let plan = st.plan(candidates, Some("ways of bank conflict"), size);
    Ok((Box::new(SharedInst { id: st.spec.id.clone(), op, f, src, tile, out, settings, blocks }), plan))
}

impl Workload for SharedInst {
    fn launch(&mut self, s: &Session, c: &Candidate) -> Result<(), GpuError> {
        let (ways, trips) = self.settings[c.variant];
        let bytes = c.shape.shared_bytes.unwrap_or(0);
        launch!(s, self.f, grid(self.blocks, BLOCK, bytes); &self.src, &mut self.out, &trips, &ways)
    }

    fn verify(&mut self, s: &Session, c: &Candidate) -> Result<String, GpuError> {
        let (ways, trips) = self.settings[c.variant];
        let wpe = self.op.width() / 4;
        s.poison(&mut self.out)?;
        self.launch(s, c)?;
        if self.op.is_store() {
            let words = (32 * ways * wpe) as usize;
            let got = s.download_prefix(&self.out, self.blocks as usize * words)?;
            let want = verify::smem_stored_tile(&self.tile[..words], ways, SLOTS, wpe, trips);
            compare(&self.id, &got, |i| want[i % words])?;
            return Ok(format!("the {words}-word tile of all {} blocks against the host's last stores", self.blocks));
        }
        let threads = (self.blocks * BLOCK) as usize;
        let got = s.download_prefix(&self.out, threads)?;
        let want: Vec<u32> = (0..32).map(|l| verify::smem_load_sum(&self.tile, l, ways, SLOTS, wpe, trips)).collect();
        compare(&self.id, &got, |i| want[i % 32])?;
        Ok(format!("all {threads} per-thread sums against the host's"))
    }
}

struct Atomics {
    id: String,
    space: AtomicSpace,
    f: CudaFunction,
    out: CudaSlice<u32>,
    /// (threads per address, counters, trips) per candidate.
    settings: Vec<(u32, u32, u32)>,
    blocks: u32,
}

/// Atomic adds without return, swept from distinct addresses to one.
pub(crate) fn atomic(st: &mut Setup<'_>, space: AtomicSpace) -> Result<Built, GpuError> {
    let s = st.s;
    let (name, base) = match space {
        AtomicSpace::Global => ("atomic_global", 64),
        AtomicSpace::Shared => ("atomic_shared", 1024),
    };
    let f = s.function(INSTRUCTIONS, name)?;
    let bps = (s.info().max_threads_per_sm.max(1024) / BLOCK).max(1);
    let blocks = s.sms() * bps;
    let threads = blocks * BLOCK;
    // Everyone on one address: the whole grid for global memory, the block for shared.
    let all = if space == AtomicSpace::Global { threads } else { BLOCK };
    let base = scaled(base, st.cfg.inst_scale);
    let mut settings = Vec::new();
    let candidates = [1u32, 4, 32, all]
        .iter()
        .enumerate()
        .map(|(i, &per)| {
            let counters = all / per;
            // Contended adds serialise: fewer trips, but never so few that
            // a launch is too short to time.
            let trips = (base / per.min(32)).max(1);
            settings.push((per, counters, trips));
            let shared = if space == AtomicSpace::Shared { Some(counters * 4) } else { None };
            let shape = LaunchShape { shared_bytes: shared, ..LaunchShape::new(blocks, BLOCK) };
            let label = if per == all {
                "one address for all".to_string()
            } else if per == 1 {
                "distinct addresses".to_string()
            } else {
                format!("{per} threads per address")
            };
            let warps = (threads / 32) as f64;
            Candidate { label, shape, work: warps * trips as f64 * SLOTS as f64, x: Some(per as f64), variant: i }
        })
        .collect();
    let out_words = if space == AtomicSpace::Global { threads } else { blocks * BLOCK };
    let out = s.alloc::<u32>(out_words as usize, "atomic counters")?;
    let size = format!("{SLOTS} adds per thread and trip, {blocks} blocks of {BLOCK}");
    let plan = st.plan(candidates, Some("threads per address"), size);
    Ok((Box::new(Atomics { id: st.spec.id.clone(), space, f, out, settings, blocks }), plan))
}

impl Workload for Atomics {
    fn launch(&mut self, s: &Session, c: &Candidate) -> Result<(), GpuError> {
        let (per, counters, trips) = self.settings[c.variant];
        let shared = c.shape.shared_bytes.unwrap_or(0);
        launch!(s, self.f, grid(self.blocks, BLOCK, shared); &mut self.out, &trips, &per, &counters)
    }

    fn verify(&mut self, s: &Session, c: &Candidate) -> Result<String, GpuError> {
        let (per, counters, trips) = self.settings[c.variant];
        let n = match self.space {
            AtomicSpace::Global => counters as usize,
            AtomicSpace::Shared => (self.blocks * counters) as usize,
        };
        if self.space == AtomicSpace::Global {
            s.stream().memset_zeros(&mut self.out).map_err(|e| GpuError::driver("zeroing counters", e))?;
        } else {
            s.poison(&mut self.out)?;
        }
        self.launch(s, c)?;
        let got = s.download_prefix(&self.out, n)?;
        let want = verify::atomic_count(per, trips, SLOTS);
        compare(&self.id, &got, |_| want)?;
        Ok(format!("all {n} counters hold {per} threads x {trips} trips x (1 + ... + {SLOTS}), zeroed first"))
    }
}

struct LoadIssue {
    id: String,
    fns: Vec<CudaFunction>,
    buf: CudaSlice<u32>,
    words: Vec<u32>,
    out: CudaSlice<u32>,
    /// (function index, bytes per thread, uniform, trips) per candidate.
    settings: Vec<(usize, u32, u32, u32)>,
    blocks: u32,
}

/// Global loads that hit L1, swept over bytes per warp instruction.
pub(crate) fn load_issue(st: &mut Setup<'_>) -> Result<Built, GpuError> {
    let s = st.s;
    let fns = [4u32, 8, 16]
        .iter()
        .map(|w| s.function(INSTRUCTIONS, &format!("lsu_ldg_{w}")))
        .collect::<Result<Vec<_>, _>>()?;
    // SLOTS x 32 vectors of the widest type.
    let words: Vec<u32> = (0..(SLOTS * 32 * 4) as u64).map(|i| verify::hash(i, 0x7171)).collect();
    let buf = s.upload(&words)?;
    let bps = (s.info().max_threads_per_sm.max(1024) / BLOCK).max(1);
    let blocks = s.sms() * bps;
    let base = scaled(1024, st.cfg.inst_scale);
    let points: [(usize, u32, u32, &str); 4] =
        [(0, 4, 1, "LDG.32, one address per warp"), (0, 4, 0, "LDG.32"), (1, 8, 0, "LDG.64"), (2, 16, 0, "LDG.128")];
    let mut settings = Vec::new();
    let candidates = points
        .iter()
        .enumerate()
        .map(|(i, &(fi, width, uniform, label))| {
            let per_inst = if uniform == 1 { width } else { 32 * width };
            let trips = (base * 128 / per_inst.max(128)).max(4);
            settings.push((fi, width, uniform, trips));
            let shape = LaunchShape { width: Some(width), ..LaunchShape::new(blocks, BLOCK) };
            let warps = (blocks * BLOCK / 32) as f64;
            Candidate {
                label: format!("{label}, {per_inst} bytes per instruction"),
                shape,
                work: warps * trips as f64 * SLOTS as f64,
                x: Some(per_inst as f64),
                variant: i,
            }
        })
        .collect();
    let out = s.alloc::<u32>((blocks * BLOCK) as usize, "load sums")?;
    let size =
        format!("{SLOTS} loads per thread and trip from a {} B buffer, {blocks} blocks of {BLOCK}", words.len() * 4);
    let plan = st.plan(candidates, Some("bytes per warp instruction"), size);
    Ok((Box::new(LoadIssue { id: st.spec.id.clone(), fns, buf, words, out, settings, blocks }), plan))
}

impl Workload for LoadIssue {
    fn launch(&mut self, s: &Session, c: &Candidate) -> Result<(), GpuError> {
        let (fi, _, uniform, trips) = self.settings[c.variant];
        launch!(s, self.fns[fi], grid(self.blocks, BLOCK, 0); &self.buf, &mut self.out, &trips, &uniform)
    }

    fn verify(&mut self, s: &Session, c: &Candidate) -> Result<String, GpuError> {
        let (_, width, uniform, trips) = self.settings[c.variant];
        s.poison(&mut self.out)?;
        self.launch(s, c)?;
        let threads = (self.blocks * BLOCK) as usize;
        let got = s.download_prefix(&self.out, threads)?;
        let wpv = (width / 4) as usize;
        let want: Vec<u32> = (0..32u32)
            .map(|l| {
                let lane = if uniform == 1 { 0 } else { l as usize };
                let once = (0..SLOTS as usize).fold(0u32, |acc, k| {
                    let v = k * 32 + lane;
                    (0..wpv).fold(acc, |a, j| a.wrapping_add(self.words[v * wpv + j]))
                });
                once.wrapping_mul(trips)
            })
            .collect();
        compare(&self.id, &got, |i| want[i % 32])?;
        Ok(format!("all {threads} per-thread sums against the host's"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn occupancy_sweep_stops_at_the_sm_limit() {
        assert_eq!(warps_per_sm(2048), vec![4, 8, 16, 32, 64]);
        assert_eq!(warps_per_sm(1536), vec![4, 8, 16, 32]);
        assert_eq!(scaled(128, 0.5), 64);
        assert_eq!(scaled(1, 0.1), 1);
    }
}
