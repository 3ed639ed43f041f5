//! The occupancy calculator: how many blocks of a kernel fit on one SM, which
//! resource stops the next one, and how far each resource is from adding or
//! losing a block.
//!
//! Seed 002 makes occupancy the first gauge to read when a memory-bound
//! kernel misses even its memory roof, and the diagnosis needs to say what to
//! change. The rules are those of NVIDIA's occupancy calculator
//! (`cuda_occupancy.h`, `cuOccupancyMaxActiveBlocksPerMultiprocessor`), as
//! collected per compute capability in the project's reference notes
//! (`reference/gpu-architecture.md`, "Occupancy limits per SM"):
//!
//! 1. warp limit: `floor(max warps per SM / ceil(threads / 32))`, zero above
//!    the per-block thread maximum;
//! 2. block limit: the per-SM maximum of resident blocks;
//! 3. register limit: registers per warp are `regs x 32` rounded up to 256;
//!    each of the SM's sub-partitions holds `floor((65536 / parts) / per warp)`
//!    warps; a block must also fit the per-block register file when its warps
//!    are rounded up to a multiple of the sub-partitions (the hardware check);
//! 4. shared-memory limit: per block `static + dynamic + reserved` rounded up
//!    to the allocation unit, against the carveout in force (the maximum by
//!    default; a preference rounds up to the next supported carveout and, on
//!    7.0+, never below one block's need);
//! 5. on 9.0+ a barrier limit;
//! 6. resident blocks: the minimum.
//!
//! The H200 rows are checked point by point against the driver's answer
//! (`crates/core/tests/fixtures/occupancy_h200_grid.csv`, produced by
//! `roofline occupancy --verify-device`).

use serde::{Deserialize, Serialize};

/// Threads per warp on every NVIDIA GPU.
pub const WARP_SIZE: u32 = 32;

/// The occupancy limits of one compute capability.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Limits {
    /// Compute capability major version.
    pub major: u32,
    /// Compute capability minor version.
    pub minor: u32,
    /// Most resident threads per SM.
    pub max_threads_per_sm: u32,
    /// Most resident warps per SM.
    pub max_warps_per_sm: u32,
    /// Most resident blocks per SM.
    pub max_blocks_per_sm: u32,
    /// Most threads per block.
    pub max_threads_per_block: u32,
    /// 32-bit registers per SM.
    pub registers_per_sm: u32,
    /// Most registers one block may use.
    pub registers_per_block: u32,
    /// Most registers one thread may use.
    pub max_registers_per_thread: u32,
    /// Registers are granted to a warp in multiples of this.
    pub register_unit_per_warp: u32,
    /// The register file is split across this many sub-partitions.
    pub sub_partitions: u32,
    /// Shared memory of the SM at the largest carveout, bytes.
    pub smem_per_sm: u64,
    /// Shared memory one block may use without opting in, bytes.
    pub smem_per_block: u64,
    /// Shared memory one block may use after opting in
    /// (`cudaFuncAttributeMaxDynamicSharedMemorySize`), bytes.
    pub smem_per_block_optin: u64,
    /// Shared memory is granted in multiples of this, bytes.
    pub smem_unit: u64,
    /// Shared memory the driver reserves for each block, bytes.
    pub smem_reserved_per_block: u64,
    /// Supported shared-memory carveouts, KiB (empty: fixed size).
    pub carveouts_kib: &'static [u32],
    /// Barriers per SM as a multiple of the block limit (9.0+).
    pub barriers_per_block_slot: Option<u32>,
}

const KIB: u64 = 1024;

/// The compute capabilities the calculator knows, as "major.minor" (those
/// with a `roofline_hw::Arch`).
pub fn known_capabilities() -> Vec<String> {
    roofline_hw::known_capabilities()
}

/// The limits of a compute capability, or `None` if the calculator does not know it.
pub fn limits(major: u32, minor: u32) -> Option<Limits> {
    let o = roofline_hw::arch(roofline_model::ComputeCapability::new(major, minor))?.occupancy;
    Some(Limits {
        major,
        minor,
        max_threads_per_sm: o.threads_per_sm,
        max_warps_per_sm: o.threads_per_sm / WARP_SIZE,
        max_blocks_per_sm: o.blocks_per_sm,
        max_threads_per_block: 1024,
        registers_per_sm: 65536,
        registers_per_block: o.registers_per_block,
        max_registers_per_thread: 255,
        register_unit_per_warp: 256,
        sub_partitions: o.sub_partitions,
        smem_per_sm: o.smem_per_sm_kib * KIB,
        smem_per_block: 48 * KIB,
        smem_per_block_optin: o.smem_optin_kib * KIB,
        smem_unit: o.smem_unit,
        smem_reserved_per_block: o.smem_reserved,
        carveouts_kib: o.carveouts_kib,
        barriers_per_block_slot: o.barriers_per_block_slot,
    })
}

/// The limits for "9.0", "90" or "sm_90", or an error listing the known ones.
pub fn limits_for(cc: &str) -> Result<Limits, OccupancyError> {
    let unknown = || OccupancyError::UnknownCapability { cc: cc.to_string(), known: known_capabilities() };
    let (major, minor) = roofline_hw::parse_capability(cc).ok_or_else(unknown)?;
    limits(major, minor).ok_or_else(unknown)
}

impl Limits {
    /// The compute capability as "major.minor" ("9.0").
    pub fn capability(&self) -> String {
        format!("{}.{}", self.major, self.minor)
    }

    /// Shared memory the SM dedicates at a carveout preference of `size`
    /// bytes: the next supported carveout at or above it (Volta and later).
    fn align_carveout(&self, size: u64) -> u64 {
        if self.carveouts_kib.is_empty() {
            return self.smem_per_sm;
        }
        self.carveouts_kib.iter().map(|&k| k as u64 * KIB).find(|&c| size <= c).unwrap_or(self.smem_per_sm)
    }
}

/// One kernel launch as the calculator sees it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Launch {
    /// Threads per block.
    pub threads_per_block: u32,
    /// Registers per thread as compiled.
    pub registers_per_thread: u32,
    /// Static shared memory per block, bytes.
    #[serde(default)]
    pub smem_static: u64,
    /// Dynamic shared memory per block asked for at launch, bytes.
    #[serde(default)]
    pub smem_dynamic: u64,
    /// Preferred shared-memory carveout, % of the maximum (`None`: the
    /// default, which is the maximum).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carveout_pct: Option<u32>,
    /// Named barriers per block (1 for a kernel that calls `__syncthreads`).
    #[serde(default = "one")]
    pub barriers_per_block: u32,
}

fn one() -> u32 {
    1
}

impl Launch {
    /// A launch with no shared memory, the default carveout and one barrier.
    pub fn new(threads_per_block: u32, registers_per_thread: u32) -> Launch {
        Launch {
            threads_per_block,
            registers_per_thread,
            smem_static: 0,
            smem_dynamic: 0,
            carveout_pct: None,
            barriers_per_block: 1,
        }
    }

    /// Sets static and dynamic shared memory, bytes.
    pub fn with_smem(mut self, smem_static: u64, smem_dynamic: u64) -> Launch {
        self.smem_static = smem_static;
        self.smem_dynamic = smem_dynamic;
        self
    }

    /// Static plus dynamic shared memory, bytes (`u64::MAX` when the sum
    /// overflows: [`validate`] refuses such a launch).
    pub fn smem_total(&self) -> u64 {
        self.smem_static.saturating_add(self.smem_dynamic)
    }
}

/// A resource that caps the resident blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    /// The register file.
    Registers,
    /// Shared memory.
    SharedMemory,
    /// Warp slots.
    Warps,
    /// The per-SM block limit.
    Blocks,
    /// Named barriers.
    Barriers,
}

impl Resource {
    /// The word Nsight Compute and the diagnosis use.
    pub fn label(self) -> &'static str {
        match self {
            Resource::Registers => "registers",
            Resource::SharedMemory => "shared memory",
            Resource::Warps => "warps",
            Resource::Blocks => "blocks",
            Resource::Barriers => "barriers",
        }
    }
}

/// Resident blocks per SM allowed by each resource alone (`u32::MAX`: no
/// limit, written as `null` in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockLimits {
    /// Blocks the warp slots allow.
    #[serde(with = "no_limit")]
    pub warps: u32,
    /// The per-SM block limit.
    #[serde(with = "no_limit")]
    pub blocks: u32,
    /// Blocks the register file allows.
    #[serde(with = "no_limit")]
    pub registers: u32,
    /// Blocks shared memory allows.
    #[serde(with = "no_limit")]
    pub shared_memory: u32,
    /// Blocks the named barriers allow.
    #[serde(with = "no_limit")]
    pub barriers: u32,
}

mod no_limit {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        if *v == u32::MAX {
            s.serialize_none()
        } else {
            s.serialize_u32(*v)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        Ok(Option::<u32>::deserialize(d)?.unwrap_or(u32::MAX))
    }
}

impl BlockLimits {
    /// Resident blocks per SM: the smallest of the five.
    pub fn resident(&self) -> u32 {
        self.warps.min(self.blocks).min(self.registers).min(self.shared_memory).min(self.barriers)
    }

    /// The limit of one resource.
    pub fn get(&self, r: Resource) -> u32 {
        match r {
            Resource::Registers => self.registers,
            Resource::SharedMemory => self.shared_memory,
            Resource::Warps => self.warps,
            Resource::Blocks => self.blocks,
            Resource::Barriers => self.barriers,
        }
    }

    /// The resources whose limit equals the resident count, registers first.
    pub fn limiters(&self) -> Vec<Resource> {
        let r = self.resident();
        [Resource::Registers, Resource::SharedMemory, Resource::Warps, Resource::Blocks, Resource::Barriers]
            .into_iter()
            .filter(|&x| self.get(x) == r)
            .collect()
    }
}

fn round_up(x: u64, unit: u64) -> u64 {
    x.div_ceil(unit).saturating_mul(unit)
}

/// Warps a block occupies.
pub fn warps_per_block(threads: u32) -> u32 {
    threads.div_ceil(WARP_SIZE)
}

fn register_limit_with(l: &Limits, regs: u32, warps: u32, parts: u32) -> u32 {
    if regs > l.max_registers_per_thread {
        return 0;
    }
    let per_warp = round_up(regs as u64 * WARP_SIZE as u64, l.register_unit_per_warp as u64);
    let per_block = per_warp * warps as u64;
    let assumed = per_warp * round_up(warps as u64, parts as u64);
    if assumed > l.registers_per_block as u64 || per_block > l.registers_per_block as u64 {
        return 0;
    }
    if per_warp == 0 {
        return u32::MAX;
    }
    let warps_per_part = (l.registers_per_sm / parts) as u64 / per_warp;
    (warps_per_part * parts as u64 / warps as u64) as u32
}

/// Blocks per SM allowed by registers.
pub fn register_limit(l: &Limits, regs: u32, threads: u32) -> u32 {
    let warps = warps_per_block(threads).max(1);
    let limit = register_limit_with(l, regs, warps, l.sub_partitions);
    // A kernel that fits GP100 (two sub-partitions) but not the GP10x parts
    // (four) is reported as not fitting on any Pascal.
    if l.sub_partitions == 2 && limit > 0 && register_limit_with(l, regs, warps, 4) == 0 {
        return 0;
    }
    limit
}

/// Shared memory of one block as granted, bytes (with the reservation).
pub fn smem_allocated_per_block(l: &Limits, launch: &Launch) -> u64 {
    round_up(launch.smem_total().saturating_add(l.smem_reserved_per_block), l.smem_unit)
}

/// The most shared memory (static + dynamic) one block may ask for, bytes.
pub fn smem_max_per_block(l: &Limits) -> u64 {
    l.smem_per_block_optin
}

/// The shared memory the SM dedicates for this launch (the carveout in force), bytes.
pub fn smem_per_sm_in_force(l: &Limits, launch: &Launch) -> u64 {
    if l.carveouts_kib.is_empty() {
        return l.smem_per_sm;
    }
    let preference = match launch.carveout_pct {
        None => l.smem_per_sm,
        Some(p) => p.min(100) as u64 * l.smem_per_sm / 100,
    };
    let preference = l.align_carveout(preference);
    let need = smem_allocated_per_block(l, launch);
    if preference >= need {
        preference
    } else {
        l.align_carveout(need)
    }
}

fn smem_limit(l: &Limits, launch: &Launch) -> u32 {
    let alloc = smem_allocated_per_block(l, launch);
    // The reserved share is 0 before 8.0.
    let per_block_limit = l.smem_per_block_optin + l.smem_reserved_per_block;
    if launch.smem_total() > l.smem_per_block_optin || alloc > per_block_limit {
        return 0;
    }
    if alloc == 0 {
        return u32::MAX;
    }
    (smem_per_sm_in_force(l, launch) / alloc) as u32
}

/// Resident blocks per SM by each resource, exactly as the CUDA occupancy
/// calculator computes them (the kernel is assumed to have opted in to the
/// shared memory it asks for). Never fails: a launch that does not fit gets 0.
pub fn block_limits(l: &Limits, launch: &Launch) -> BlockLimits {
    let threads = launch.threads_per_block;
    let warps = if threads == 0 || threads > l.max_threads_per_block {
        0
    } else {
        l.max_warps_per_sm / warps_per_block(threads)
    };
    let barriers = match (l.barriers_per_block_slot, launch.barriers_per_block) {
        (Some(f), b) if b > 0 => f * l.max_blocks_per_sm / b,
        _ => u32::MAX,
    };
    BlockLimits {
        warps,
        blocks: l.max_blocks_per_sm,
        registers: register_limit(l, launch.registers_per_thread, threads),
        shared_memory: smem_limit(l, launch),
        barriers,
    }
}

/// Resident blocks per SM: what `cuOccupancyMaxActiveBlocksPerMultiprocessor` answers.
pub fn max_active_blocks(l: &Limits, launch: &Launch) -> u32 {
    block_limits(l, launch).resident()
}

/// How far one resource is from adding or losing a block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Headroom {
    /// The resource.
    pub resource: Resource,
    /// Blocks per SM this resource alone allows (`None`: no limit).
    pub blocks: Option<u32>,
    /// The unit of the values below ("registers/thread", "bytes/block",
    /// "threads/block", "barriers/block").
    pub unit: String,
    /// The launch's own value.
    pub current: u64,
    /// The most this value may be while this resource still allows one more
    /// block than are resident now (`None`: no value does).
    pub for_one_more_block: Option<u64>,
    /// The most this value may grow to without this resource costing a block.
    pub max_without_loss: Option<u64>,
}

/// The calculator's full answer for one launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Occupancy {
    /// Compute capability, "9.0".
    pub compute_capability: String,
    /// The launch as given.
    pub launch: Launch,
    /// Warps per block (threads rounded up to whole warps).
    pub warps_per_block: u32,
    /// Blocks per SM each resource allows alone.
    pub limits: BlockLimits,
    /// Resident blocks per SM.
    pub resident_blocks: u32,
    /// Resident warps per SM.
    pub resident_warps: u32,
    /// Most resident warps per SM on this capability.
    pub max_warps_per_sm: u32,
    /// Resident warps / maximum warps, in %.
    pub occupancy_pct: f64,
    /// The resources that set `resident_blocks` (several when tied).
    pub limiters: Vec<Resource>,
    /// Registers granted per warp (rounded up to the allocation unit).
    pub registers_per_warp: u64,
    /// Registers granted per block.
    pub registers_per_block: u64,
    /// Shared memory granted per block (reservation included), bytes.
    pub smem_per_block: u64,
    /// The SM's shared memory in force at the launch's carveout, bytes.
    pub smem_per_sm: u64,
    /// The last warp of each block is only partly used.
    pub partial_warp: bool,
    /// Per resource, how far the launch is from gaining or losing a block.
    pub headroom: Vec<Headroom>,
    /// What to change to fit another block, if anything can.
    pub hint: Option<String>,
}

/// A launch the calculator cannot answer for.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OccupancyError {
    /// A compute capability with no table.
    #[error("compute capability {cc:?} is not one the occupancy calculator knows; known: {}", known.join(", "))]
    UnknownCapability {
        /// The capability given.
        cc: String,
        /// The capabilities the calculator knows.
        known: Vec<String>,
    },
    /// Threads per block of 0 or above the maximum.
    #[error("{threads} threads per block: expected 1 to {max} (the per-block maximum of compute capability {cc})")]
    Threads {
        /// Threads per block given.
        threads: u32,
        /// The per-block maximum.
        max: u32,
        /// The compute capability.
        cc: String,
    },
    /// More registers per thread than allowed.
    #[error("{regs} registers per thread: expected at most {max} (the per-thread maximum)")]
    Registers {
        /// Registers per thread given.
        regs: u32,
        /// The per-thread maximum.
        max: u32,
    },
    /// More shared memory per block than allowed.
    #[error("{bytes} bytes of shared memory per block (static + dynamic): the most a block may use on compute capability {cc} is {max} bytes ({} KiB, after opting in with cudaFuncAttributeMaxDynamicSharedMemorySize)", max / 1024)]
    SharedMemory {
        /// Shared memory per block asked for, bytes.
        bytes: u64,
        /// The most a block may use (opted in), bytes.
        max: u64,
        /// The compute capability.
        cc: String,
    },
    /// A carveout above 100%.
    #[error("carveout {pct}%: expected a percentage from 0 to 100")]
    Carveout {
        /// The carveout given, %.
        pct: u32,
    },
    /// Static plus dynamic shared memory overflows 64 bits.
    #[error("shared memory per block: {smem_static} bytes static + {smem_dynamic} bytes dynamic overflows a 64-bit byte count; expected sizes of at most {max} bytes ({} KiB) in all on compute capability {cc}", max / 1024)]
    SharedMemoryOverflow {
        /// Static shared memory, bytes.
        smem_static: u64,
        /// Dynamic shared memory, bytes.
        smem_dynamic: u64,
        /// The most a block may use, bytes.
        max: u64,
        /// The compute capability.
        cc: String,
    },
}

/// Validates a launch against the per-block maxima.
pub fn validate(l: &Limits, launch: &Launch) -> Result<(), OccupancyError> {
    if launch.threads_per_block == 0 || launch.threads_per_block > l.max_threads_per_block {
        return Err(OccupancyError::Threads {
            threads: launch.threads_per_block,
            max: l.max_threads_per_block,
            cc: l.capability(),
        });
    }
    if launch.registers_per_thread > l.max_registers_per_thread {
        return Err(OccupancyError::Registers { regs: launch.registers_per_thread, max: l.max_registers_per_thread });
    }
    if launch.smem_static.checked_add(launch.smem_dynamic).is_none() {
        return Err(OccupancyError::SharedMemoryOverflow {
            smem_static: launch.smem_static,
            smem_dynamic: launch.smem_dynamic,
            max: smem_max_per_block(l),
            cc: l.capability(),
        });
    }
    if launch.smem_total() > smem_max_per_block(l) {
        return Err(OccupancyError::SharedMemory {
            bytes: launch.smem_total(),
            max: smem_max_per_block(l),
            cc: l.capability(),
        });
    }
    if let Some(p) = launch.carveout_pct.filter(|p| *p > 100) {
        return Err(OccupancyError::Carveout { pct: p });
    }
    Ok(())
}

/// The occupancy of a launch, with limiters, headroom and a hint.
pub fn calculate(l: &Limits, launch: &Launch) -> Result<Occupancy, OccupancyError> {
    validate(l, launch)?;
    let limits = block_limits(l, launch);
    let resident = limits.resident();
    let wpb = warps_per_block(launch.threads_per_block);
    let registers_per_warp =
        round_up(launch.registers_per_thread as u64 * WARP_SIZE as u64, l.register_unit_per_warp as u64);
    let mut o = Occupancy {
        compute_capability: l.capability(),
        launch: launch.clone(),
        warps_per_block: wpb,
        limits,
        resident_blocks: resident,
        resident_warps: resident * wpb,
        max_warps_per_sm: l.max_warps_per_sm,
        occupancy_pct: 100.0 * (resident * wpb) as f64 / l.max_warps_per_sm as f64,
        limiters: limits.limiters(),
        registers_per_warp,
        registers_per_block: registers_per_warp * wpb as u64,
        smem_per_block: smem_allocated_per_block(l, launch),
        smem_per_sm: smem_per_sm_in_force(l, launch),
        partial_warp: !launch.threads_per_block.is_multiple_of(WARP_SIZE),
        headroom: headroom(l, launch, resident),
        hint: None,
    };
    o.hint = hint(l, &o);
    Ok(o)
}

fn opt(blocks: u32) -> Option<u32> {
    (blocks != u32::MAX).then_some(blocks)
}

/// The largest value in `lo..=hi` for which `ok` holds, searching down from `hi`.
fn largest(lo: u64, hi: u64, ok: impl Fn(u64) -> bool) -> Option<u64> {
    (lo..=hi).rev().find(|&v| ok(v))
}

fn headroom(l: &Limits, launch: &Launch, resident: u32) -> Vec<Headroom> {
    let limits = block_limits(l, launch);
    let target = resident + 1;
    let mut out = Vec::new();

    let regs = launch.registers_per_thread as u64;
    let reg_at = |r: u64| register_limit(l, r as u32, launch.threads_per_block);
    out.push(Headroom {
        resource: Resource::Registers,
        blocks: opt(limits.registers),
        unit: "registers/thread".into(),
        current: regs,
        for_one_more_block: largest(1, l.max_registers_per_thread as u64, |r| reg_at(r) >= target),
        max_without_loss: largest(regs, l.max_registers_per_thread as u64, |r| reg_at(r) >= resident),
    });

    let unit = l.smem_unit;
    let total = launch.smem_total();
    let smem_at = |bytes: u64| {
        let mut x = launch.clone();
        x.smem_static = 0;
        x.smem_dynamic = bytes;
        smem_limit(l, &x)
    };
    // Shared-memory limits change only at multiples of the allocation unit
    // (less the reservation), so search those steps and report the top of a step.
    let step_top = |k: u64| (k * unit).saturating_sub(l.smem_reserved_per_block);
    let max_k = (smem_max_per_block(l) + l.smem_reserved_per_block) / unit;
    let best = |min_k: u64, want: u32| {
        (min_k..=max_k).rev().map(step_top).find(|&b| b <= smem_max_per_block(l) && smem_at(b) >= want)
    };
    let cur_k = (total + l.smem_reserved_per_block).div_ceil(unit);
    out.push(Headroom {
        resource: Resource::SharedMemory,
        blocks: opt(limits.shared_memory),
        unit: "bytes/block".into(),
        current: total,
        for_one_more_block: best(0, target),
        max_without_loss: best(cur_k, resident).map(|b| b.max(total)),
    });

    let threads = launch.threads_per_block as u64;
    let warps_at = |t: u64| l.max_warps_per_sm / warps_per_block(t as u32);
    let max_t = l.max_threads_per_block as u64;
    out.push(Headroom {
        resource: Resource::Warps,
        blocks: opt(limits.warps),
        unit: "threads/block".into(),
        current: threads,
        for_one_more_block: largest(1, max_t, |t| warps_at(t) >= target),
        max_without_loss: largest(threads, max_t, |t| warps_at(t) >= resident),
    });

    out.push(Headroom {
        resource: Resource::Blocks,
        blocks: opt(limits.blocks),
        unit: "blocks/SM".into(),
        current: resident as u64,
        for_one_more_block: (resident < l.max_blocks_per_sm).then_some(l.max_blocks_per_sm as u64),
        max_without_loss: Some(l.max_blocks_per_sm as u64),
    });

    if let Some(f) = l.barriers_per_block_slot {
        let b = launch.barriers_per_block as u64;
        let bar_at = |n: u64| {
            if n == 0 {
                u32::MAX
            } else {
                (f * l.max_blocks_per_sm) / n as u32
            }
        };
        out.push(Headroom {
            resource: Resource::Barriers,
            blocks: opt(limits.barriers),
            unit: "barriers/block".into(),
            current: b,
            for_one_more_block: largest(0, 16, |n| bar_at(n) >= target),
            max_without_loss: largest(b, 16, |n| bar_at(n) >= resident),
        });
    }
    out
}

/// One line saying what to change to fit another block, for the limiter
/// whose change helps most; `None` when occupancy is already at its maximum.
pub fn hint(l: &Limits, o: &Occupancy) -> Option<String> {
    let launch = &o.launch;
    if o.resident_warps >= l.max_warps_per_sm {
        return None;
    }
    let after = |x: &Launch| {
        let b = max_active_blocks(l, x);
        (b, 100.0 * (b * warps_per_block(x.threads_per_block)) as f64 / l.max_warps_per_sm as f64)
    };
    let pct = |p: f64| roofline_model::format_percent(p);
    let mut hints: Vec<(f64, String)> = Vec::new();
    for h in &o.headroom {
        match h.resource {
            Resource::Registers if o.limiters.contains(&Resource::Registers) => {
                if let Some(r) = h.for_one_more_block {
                    let mut x = launch.clone();
                    x.registers_per_thread = r as u32;
                    let (b, p) = after(&x);
                    if b > o.resident_blocks {
                        hints.push((p, format!(
                            "use {} fewer registers per thread ({r}, with __launch_bounds__ or -maxrregcount) to fit {} (occupancy {})",
                            h.current - r,
                            more_blocks(b - o.resident_blocks),
                            pct(p)
                        )));
                    }
                }
            }
            Resource::SharedMemory if o.limiters.contains(&Resource::SharedMemory) => {
                if let Some(s) = h.for_one_more_block {
                    let mut x = launch.clone();
                    x.smem_static = 0;
                    x.smem_dynamic = s;
                    let (b, p) = after(&x);
                    if b > o.resident_blocks {
                        hints.push((
                            p,
                            format!(
                                "use {} bytes less shared memory per block (at most {s}) to fit {} (occupancy {})",
                                h.current - s,
                                more_blocks(b - o.resident_blocks),
                                pct(p)
                            ),
                        ));
                    }
                }
            }
            Resource::Barriers if o.limiters.contains(&Resource::Barriers) => {
                if let Some(n) = h.for_one_more_block {
                    hints.push((0.0, format!("use at most {n} named barriers per block to fit another block")));
                }
            }
            _ => {}
        }
    }
    if o.limiters.iter().any(|r| matches!(r, Resource::Warps | Resource::Blocks)) || hints.is_empty() {
        let best = max_potential_block_size(l, launch);
        if best.occupancy_pct > o.occupancy_pct {
            let what = if o.limiters.contains(&Resource::Blocks) {
                format!(
                    "blocks of {} threads hit the limit of {} blocks per SM",
                    launch.threads_per_block, l.max_blocks_per_sm
                )
            } else {
                format!("{} blocks of {} warps leave warp slots unused", o.resident_blocks, o.warps_per_block)
            };
            // The smallest block size that reaches the best occupancy, and
            // CUDA's own suggestion (the largest) when they differ.
            let smallest = (1..=l.max_threads_per_block / WARP_SIZE)
                .map(|w| w * WARP_SIZE)
                .find(|&t| {
                    let mut x = launch.clone();
                    x.threads_per_block = t;
                    max_active_blocks(l, &x) * warps_per_block(t)
                        == best.resident_blocks * warps_per_block(best.block_size)
                })
                .unwrap_or(best.block_size);
            let also = if smallest == best.block_size {
                String::new()
            } else {
                format!(" (so do blocks of {})", best.block_size)
            };
            hints.push((
                best.occupancy_pct,
                format!("{what}: blocks of {smallest} threads reach {}{also}", pct(best.occupancy_pct)),
            ));
        }
    }
    hints.into_iter().max_by(|a, b| a.0.total_cmp(&b.0)).map(|(_, s)| s)
}

fn more_blocks(n: u32) -> String {
    if n == 1 {
        "another block".to_string()
    } else {
        format!("{n} more blocks")
    }
}

/// One point of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// The swept value (threads per block, registers per thread or bytes of
    /// shared memory per block).
    pub value: u64,
    /// Resident blocks per SM there.
    pub resident_blocks: u32,
    /// Resident warps per SM there.
    pub resident_warps: u32,
    /// Occupancy there, % of the maximum warps.
    pub occupancy_pct: f64,
    /// The resources that set the block count there.
    pub limiters: Vec<Resource>,
}

/// What a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SweepAxis {
    /// Threads per block.
    BlockSize,
    /// Registers per thread.
    Registers,
    /// Shared memory per block.
    SharedMemory,
}

impl SweepAxis {
    /// The axis in words, with its unit ("threads per block").
    pub fn label(self) -> &'static str {
        match self {
            SweepAxis::BlockSize => "threads per block",
            SweepAxis::Registers => "registers per thread",
            SweepAxis::SharedMemory => "shared memory per block (bytes)",
        }
    }
}

/// Occupancy against one axis, every other input held at the launch's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    /// What varies.
    pub axis: SweepAxis,
    /// Compute capability, "9.0".
    pub compute_capability: String,
    /// The launch every other input is taken from.
    pub launch: Launch,
    /// One point per value swept, ascending.
    pub points: Vec<SweepPoint>,
}

fn point(l: &Limits, x: &Launch, value: u64) -> SweepPoint {
    let lim = block_limits(l, x);
    let b = lim.resident();
    let w = b * warps_per_block(x.threads_per_block);
    SweepPoint {
        value,
        resident_blocks: b,
        resident_warps: w,
        occupancy_pct: 100.0 * w as f64 / l.max_warps_per_sm as f64,
        limiters: lim.limiters(),
    }
}

/// The three classic graphs of the occupancy spreadsheet: block sizes in
/// warp steps, registers 1..=255, shared memory in allocation-unit steps up
/// to the per-block maximum (the static part is swept as a total).
pub fn sweep(l: &Limits, launch: &Launch, axis: SweepAxis) -> Sweep {
    let points = match axis {
        SweepAxis::BlockSize => (1..=l.max_threads_per_block / WARP_SIZE)
            .map(|w| {
                let mut x = launch.clone();
                x.threads_per_block = w * WARP_SIZE;
                point(l, &x, x.threads_per_block as u64)
            })
            .collect(),
        SweepAxis::Registers => (1..=l.max_registers_per_thread)
            .map(|r| {
                let mut x = launch.clone();
                x.registers_per_thread = r;
                point(l, &x, r as u64)
            })
            .collect(),
        SweepAxis::SharedMemory => {
            let max = smem_max_per_block(l);
            let mut values: Vec<u64> = (0..=max / l.smem_unit).map(|k| k * l.smem_unit).collect();
            if values.last() != Some(&max) {
                values.push(max);
            }
            values
                .into_iter()
                .map(|s| {
                    let mut x = launch.clone();
                    x.smem_static = 0;
                    x.smem_dynamic = s;
                    point(l, &x, s)
                })
                .collect()
        }
    };
    Sweep { axis, compute_capability: l.capability(), launch: launch.clone(), points }
}

/// A run of consecutive sweep points with the same answer, for tables.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepRange {
    /// First value of the run.
    pub from: u64,
    /// Last value of the run.
    pub to: u64,
    /// Resident blocks per SM over the run.
    pub resident_blocks: u32,
    /// Resident warps per SM over the run.
    pub resident_warps: u32,
    /// Occupancy over the run, %.
    pub occupancy_pct: f64,
    /// The resources that set the block count over the run.
    pub limiters: Vec<Resource>,
}

impl Sweep {
    /// Consecutive points with the same blocks, warps and limiters, merged.
    pub fn ranges(&self) -> Vec<SweepRange> {
        let mut out: Vec<SweepRange> = Vec::new();
        for p in &self.points {
            match out.last_mut() {
                Some(r)
                    if r.resident_blocks == p.resident_blocks
                        && r.resident_warps == p.resident_warps
                        && r.limiters == p.limiters =>
                {
                    r.to = p.value
                }
                _ => out.push(SweepRange {
                    from: p.value,
                    to: p.value,
                    resident_blocks: p.resident_blocks,
                    resident_warps: p.resident_warps,
                    occupancy_pct: p.occupancy_pct,
                    limiters: p.limiters.clone(),
                }),
            }
        }
        out
    }
}

/// The block size with the highest occupancy in threads, as
/// `cudaOccupancyMaxPotentialBlockSize` answers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BestBlockSize {
    /// Threads per block.
    pub block_size: u32,
    /// Resident blocks per SM at that size.
    pub resident_blocks: u32,
    /// Occupancy at that size, %.
    pub occupancy_pct: f64,
    /// Blocks for a launch that fills the GPU once (resident blocks x SMs),
    /// when the SM count is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_grid_size: Option<u32>,
}

/// Tries block sizes from the largest down in warp steps and keeps the first
/// with the most resident threads, as CUDA does (ties go to the larger block).
pub fn max_potential_block_size(l: &Limits, launch: &Launch) -> BestBlockSize {
    let mut best = (0u32, 0u32, 0u32);
    let mut t = l.max_threads_per_block;
    while t > 0 {
        let mut x = launch.clone();
        x.threads_per_block = t;
        let b = max_active_blocks(l, &x);
        if b * t > best.2 {
            best = (t, b, b * t);
        }
        if best.2 == l.max_threads_per_sm {
            break;
        }
        t -= WARP_SIZE;
    }
    let warps = best.1 * warps_per_block(best.0);
    BestBlockSize {
        block_size: best.0,
        resident_blocks: best.1,
        occupancy_pct: 100.0 * warps as f64 / l.max_warps_per_sm as f64,
        min_grid_size: None,
    }
}

/// Launch shapes whose occupancy is kept, per thread: a capture has few
/// distinct shapes (block size, registers, shared memory) however many
/// kernels and launches it has.
const MEMO_SHAPES: usize = 4096;

thread_local! {
    static MEMO: std::cell::RefCell<std::collections::HashMap<(u32, u32, Launch), Option<Occupancy>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// [`calculate`], computed once per capability and launch shape (the
/// headroom searches walk every shared-memory step, and an import asks for
/// the same few shapes once per kernel). The answer is the same as
/// [`calculate`]'s: the memo only keeps it.
fn calculate_memoised(l: &Limits, launch: &Launch) -> Option<Occupancy> {
    let key = (l.major, l.minor, launch.clone());
    if let Some(o) = MEMO.with(|m| m.borrow().get(&key).cloned()) {
        return o;
    }
    let o = calculate(l, launch).ok();
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= MEMO_SHAPES {
            m.clear();
        }
        m.insert(key, o.clone());
    });
    o
}

/// For the profile and import paths: fills the theoretical occupancy, its
/// limiter and a hint into a kernel's evidence from the launch figures a
/// profiler reported (block size, registers per thread, shared memory per
/// block). Figures the profiler already gave are kept; nothing is filled
/// when a figure is missing or the compute capability is unknown.
pub fn annotate_evidence(ev: &mut roofline_model::Evidence, major: u32, minor: u32) -> Option<Occupancy> {
    let l = limits(major, minor)?;
    let threads = ev.block_size?;
    let regs = ev.registers_per_thread?;
    if !(threads >= 1.0 && regs >= 0.0) {
        return None;
    }
    let smem = ev.shared_mem_per_block.unwrap_or(0.0).max(0.0);
    let launch = Launch::new(threads.round() as u32, regs.round() as u32).with_smem(smem.round() as u64, 0);
    let o = calculate_memoised(&l, &launch)?;
    if ev.occupancy_theoretical_pct.is_none() {
        ev.occupancy_theoretical_pct = Some(o.occupancy_pct);
    }
    if ev.occupancy_limiter.is_none() && o.occupancy_pct < 100.0 {
        ev.occupancy_limiter = Some(o.limiters.iter().map(|r| r.label()).collect::<Vec<_>>().join(" and "));
    }
    if ev.occupancy_hint.is_none() {
        ev.occupancy_hint = o.hint.clone();
    }
    Some(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn the_memo_answers_as_the_calculator_does(
            cc in proptest::sample::select(vec![(7, 0), (8, 0), (8, 6), (9, 0)]),
            threads in 0u32..1100,
            regs in 0u32..260,
            smem in 0u64..240_000,
        ) {
            let l = limits(cc.0, cc.1).unwrap();
            let launch = Launch::new(threads, regs).with_smem(smem, 0);
            // Twice: the second answer comes from the memo.
            for _ in 0..2 {
                proptest::prop_assert_eq!(calculate_memoised(&l, &launch), calculate(&l, &launch).ok());
            }
        }
    }

    fn h100() -> Limits {
        limits(9, 0).unwrap()
    }

    #[test]
    fn seed_002_worked_example_40_registers_256_threads_is_75_percent() {
        let o = calculate(&h100(), &Launch::new(256, 40)).unwrap();
        assert_eq!(o.registers_per_warp, 1280);
        assert_eq!(o.resident_blocks, 6);
        assert_eq!(o.resident_warps, 48);
        assert_eq!(o.max_warps_per_sm, 64);
        assert_eq!(o.occupancy_pct, 75.0);
        assert_eq!(o.limiters, vec![Resource::Registers]);
        let regs = &o.headroom[0];
        assert_eq!(regs.for_one_more_block, Some(32));
        assert_eq!(regs.max_without_loss, Some(40));
        let hint = o.hint.unwrap();
        assert!(hint.contains("8 fewer registers per thread (32"), "{hint}");
    }

    #[test]
    fn shared_memory_sizes_that_overflow_are_refused_not_wrapped() {
        let launch = Launch::new(256, 32).with_smem(18446744073709550616, 2000);
        let e = calculate(&h100(), &launch).unwrap_err();
        assert!(matches!(e, OccupancyError::SharedMemoryOverflow { .. }), "{e}");
        // The lower-level functions saturate instead of wrapping or panicking.
        assert_eq!(block_limits(&h100(), &launch).shared_memory, 0);
    }

    #[test]
    fn every_known_capability_has_consistent_limits() {
        for cc in known_capabilities() {
            let l = limits_for(&cc).unwrap();
            assert_eq!(l.max_warps_per_sm * WARP_SIZE, l.max_threads_per_sm, "{cc}");
            assert!(l.smem_per_block_optin + l.smem_reserved_per_block <= l.smem_per_sm, "{cc}");
            if let Some(&top) = l.carveouts_kib.last() {
                assert_eq!(top as u64 * KIB, l.smem_per_sm, "{cc}: the largest carveout is the SM's maximum");
            }
            // A 32-thread block with 16 registers and no shared memory hits the block limit.
            let o = calculate(&l, &Launch::new(32, 16)).unwrap();
            assert_eq!(o.resident_blocks, l.max_blocks_per_sm, "{cc}");
        }
    }

    /// The reference table's rows, one assertion per figure.
    #[test]
    fn reference_table_rows() {
        // (cc, threads/SM, blocks/SM, smem/SM KiB, opt-in KiB, unit, reserved)
        let rows: &[(&str, u32, u32, u64, u64, u64, u64)] = &[
            ("5.0", 2048, 32, 64, 48, 256, 0),
            ("5.2", 2048, 32, 96, 48, 256, 0),
            ("6.0", 2048, 32, 64, 48, 256, 0),
            ("6.1", 2048, 32, 96, 48, 256, 0),
            ("7.0", 2048, 32, 96, 96, 256, 0),
            ("7.5", 1024, 16, 64, 64, 256, 0),
            ("8.0", 2048, 32, 164, 163, 128, 1024),
            ("8.6", 1536, 16, 100, 99, 128, 1024),
            ("8.7", 1536, 16, 164, 163, 128, 1024),
            ("8.9", 1536, 24, 100, 99, 128, 1024),
            ("9.0", 2048, 32, 228, 227, 128, 1024),
            ("10.0", 2048, 32, 228, 227, 128, 1024),
            ("12.0", 1536, 24, 100, 99, 128, 1024),
        ];
        for &(cc, t, b, s, o, u, r) in rows {
            let l = limits_for(cc).unwrap();
            assert_eq!(
                (
                    l.max_threads_per_sm,
                    l.max_blocks_per_sm,
                    l.smem_per_sm,
                    l.smem_per_block_optin,
                    l.smem_unit,
                    l.smem_reserved_per_block
                ),
                (t, b, s * KIB, o * KIB, u, r),
                "{cc}"
            );
        }
    }

    /// 256 threads, 32 registers, 16 KiB static shared memory on every row,
    /// worked by hand from the reference rules: warps, registers (1024 per
    /// warp: 64 warps), shared memory (16 KiB, 17 KiB with the 8.0+
    /// reservation, against the SM's maximum).
    #[test]
    fn worked_example_on_every_capability() {
        use Resource::*;
        let cases: &[(&str, u32, f64, &[Resource])] = &[
            ("5.0", 4, 50.0, &[SharedMemory]),
            ("5.2", 6, 75.0, &[SharedMemory]),
            ("5.3", 4, 50.0, &[SharedMemory]),
            ("6.0", 4, 50.0, &[SharedMemory]),
            ("6.1", 6, 75.0, &[SharedMemory]),
            ("6.2", 4, 50.0, &[SharedMemory]),
            ("7.0", 6, 75.0, &[SharedMemory]),
            ("7.5", 4, 100.0, &[SharedMemory, Warps]),
            ("8.0", 8, 100.0, &[Registers, Warps]),
            ("8.6", 5, 500.0 / 6.0, &[SharedMemory]),
            ("8.7", 6, 100.0, &[Warps]),
            ("8.9", 5, 500.0 / 6.0, &[SharedMemory]),
            ("9.0", 8, 100.0, &[Registers, Warps]),
            ("10.0", 8, 100.0, &[Registers, Warps]),
            ("12.0", 5, 500.0 / 6.0, &[SharedMemory]),
        ];
        assert_eq!(cases.len(), known_capabilities().len());
        for &(cc, blocks, pct, limiters) in cases {
            let o = calculate(&limits_for(cc).unwrap(), &Launch::new(256, 32).with_smem(16 * 1024, 0)).unwrap();
            assert_eq!(o.resident_blocks, blocks, "{cc}");
            assert!((o.occupancy_pct - pct).abs() < 1e-9, "{cc}: {}", o.occupancy_pct);
            assert_eq!(o.limiters, limiters, "{cc}");
        }
    }

    #[test]
    fn register_rule_per_capability() {
        // 64 registers x 256 threads: 2048 registers per warp, 8 per
        // sub-partition, 32 warps = 4 blocks on every 64K-register SM.
        for cc in known_capabilities() {
            let l = limits_for(&cc).unwrap();
            assert_eq!(register_limit(&l, 64, 256), 4, "{cc}");
        }
        let l = h100();
        // 255 registers: 8192 per warp, 2 warps per sub-partition, 8 warps.
        assert_eq!(register_limit(&l, 255, 256), 1);
        assert_eq!(register_limit(&l, 255, 288), 0);
        // 1024 threads need at most 64 registers (65536 per block).
        assert_eq!(register_limit(&l, 64, 1024), 1);
        assert_eq!(register_limit(&l, 65, 1024), 0);
        // 80 registers (2560 per warp): 6 warps per sub-partition, so a
        // block of 25 warps does not fit although 25 x 2560 <= 65536.
        assert_eq!(register_limit(&l, 80, 800), 0);
        assert_eq!(register_limit(&l, 80, 768), 1);
        // Per-thread maximum.
        assert_eq!(register_limit(&l, 256, 32), 0);
    }

    #[test]
    fn shared_memory_rule_hopper() {
        let l = h100();
        // 48 KiB static: 49 KiB with the reservation: 4 blocks in 228 KiB.
        let x = Launch::new(128, 32).with_smem(48 * 1024, 0);
        assert_eq!(block_limits(&l, &x).shared_memory, 4);
        // The opt-in maximum fits exactly one block.
        let x = Launch::new(128, 32).with_smem(0, 227 * 1024);
        assert_eq!(block_limits(&l, &x).shared_memory, 1);
        // One byte more does not fit.
        let x = Launch::new(128, 32).with_smem(0, 227 * 1024 + 1);
        assert_eq!(block_limits(&l, &x).shared_memory, 0);
        // Rounding to the 128-byte unit: 1 byte is 1152 bytes with the reservation.
        let x = Launch::new(128, 32).with_smem(1, 0);
        assert_eq!(smem_allocated_per_block(&l, &x), 1152);
        assert_eq!(block_limits(&l, &x).shared_memory, (228 * 1024 / 1152) as u32);
        // No shared memory still costs the 1 KiB reservation: 228 blocks' worth.
        assert_eq!(block_limits(&l, &Launch::new(128, 32)).shared_memory, 228);
    }

    #[test]
    fn carveout_rounds_up_and_never_below_one_block() {
        let l = h100();
        let mut x = Launch::new(128, 32).with_smem(0, 10 * 1024);
        x.carveout_pct = Some(0);
        // 0% -> 0 KiB carveout, below one block's 11 KiB: the SM takes 16 KiB.
        assert_eq!(smem_per_sm_in_force(&l, &x), 16 * 1024);
        assert_eq!(block_limits(&l, &x).shared_memory, 1);
        // 50% of 228 KiB = 114 KiB -> 132 KiB.
        x.carveout_pct = Some(50);
        assert_eq!(smem_per_sm_in_force(&l, &x), 132 * 1024);
        assert_eq!(block_limits(&l, &x).shared_memory, 12);
        // Turing: 32 or 64 KiB only.
        let t = limits(7, 5).unwrap();
        let mut y = Launch::new(128, 32).with_smem(8 * 1024, 0);
        y.carveout_pct = Some(0);
        assert_eq!(smem_per_sm_in_force(&t, &y), 32 * 1024);
        // Maxwell and Pascal ignore the preference.
        let p = limits(6, 1).unwrap();
        assert_eq!(smem_per_sm_in_force(&p, &y), 96 * 1024);
    }

    #[test]
    fn warp_and_block_limits() {
        let l = h100();
        assert_eq!(block_limits(&l, &Launch::new(1024, 32)).warps, 2);
        assert_eq!(block_limits(&l, &Launch::new(640, 32)).warps, 3);
        assert_eq!(block_limits(&l, &Launch::new(1025, 32)).warps, 0);
        let o = calculate(&l, &Launch::new(32, 16)).unwrap();
        assert_eq!(o.resident_blocks, 32);
        assert_eq!(o.occupancy_pct, 50.0);
        assert_eq!(o.limiters, vec![Resource::Blocks]);
        assert!(o.hint.unwrap().contains("limit of 32 blocks per SM"));
        let t = limits(7, 5).unwrap();
        assert_eq!(block_limits(&t, &Launch::new(1024, 32)).warps, 1);
    }

    #[test]
    fn pascal_gp100_fits_only_what_gp10x_fits() {
        let gp100 = limits(6, 0).unwrap();
        // 128 registers x 32 threads: GP100 (2 parts) and GP10x (4 parts) both fit.
        assert!(register_limit(&gp100, 128, 32) > 0);
        // 255 registers x 256 threads: 8 warps x 8192 = 65536: fits one block on both.
        assert_eq!(register_limit(&gp100, 255, 256), 1);
    }

    #[test]
    fn barriers_limit_on_hopper_only_with_many_named_barriers() {
        let l = h100();
        let mut x = Launch::new(32, 16);
        assert_eq!(block_limits(&l, &x).barriers, 64);
        x.barriers_per_block = 4;
        assert_eq!(block_limits(&l, &x).barriers, 16);
        assert_eq!(max_active_blocks(&l, &x), 16);
        let a = limits(8, 0).unwrap();
        assert_eq!(block_limits(&a, &x).barriers, u32::MAX);
    }

    #[test]
    fn bad_input_is_rejected_with_the_maximum() {
        let l = h100();
        let e = calculate(&l, &Launch::new(1056, 32)).unwrap_err();
        assert!(e.to_string().contains("1 to 1024"), "{e}");
        let e = calculate(&l, &Launch::new(256, 256)).unwrap_err();
        assert!(e.to_string().contains("at most 255"), "{e}");
        let e = calculate(&l, &Launch::new(256, 32).with_smem(0, 300_000)).unwrap_err();
        assert!(e.to_string().contains("232448 bytes (227 KiB"), "{e}");
        let e = limits_for("4.0").unwrap_err();
        assert!(e.to_string().contains("9.0"), "{e}");
        assert!(limits_for("sm_90").is_ok());
    }

    #[test]
    fn partial_warp_is_flagged_and_counted_as_a_whole_warp() {
        let o = calculate(&h100(), &Launch::new(100, 32)).unwrap();
        assert!(o.partial_warp);
        assert_eq!(o.warps_per_block, 4);
        assert_eq!(o.resident_blocks, 16);
    }

    #[test]
    fn max_potential_block_size_prefers_the_largest_full_block() {
        let l = h100();
        let b = max_potential_block_size(&l, &Launch::new(256, 32));
        assert_eq!((b.block_size, b.occupancy_pct), (1024, 100.0));
        // 40 registers: 48 warps at most by registers; 768 threads x 2 = 48 warps.
        let b = max_potential_block_size(&l, &Launch::new(256, 40));
        assert_eq!(b.occupancy_pct, 75.0);
        assert_eq!(b.block_size, 768);
        // 255 registers: 8 warps per SM, blocks of 256 threads.
        let b = max_potential_block_size(&l, &Launch::new(32, 255));
        assert_eq!((b.block_size, b.resident_blocks), (256, 1));
    }

    #[test]
    fn sweeps_cover_their_axes() {
        let l = h100();
        let x = Launch::new(256, 40);
        let s = sweep(&l, &x, SweepAxis::BlockSize);
        assert_eq!(s.points.len(), 32);
        assert_eq!(s.points[7].value, 256);
        assert_eq!(s.points[7].occupancy_pct, 75.0);
        let s = sweep(&l, &x, SweepAxis::Registers);
        assert_eq!(s.points.len(), 255);
        assert_eq!(s.points[31].occupancy_pct, 100.0);
        assert_eq!(s.points[39].occupancy_pct, 75.0);
        let s = sweep(&l, &x, SweepAxis::SharedMemory);
        assert_eq!(s.points.last().unwrap().value, 227 * 1024);
        assert_eq!(s.points.last().unwrap().resident_blocks, 1);
        let ranges = s.ranges();
        assert!(ranges.len() > 5 && ranges.len() < s.points.len());
        assert_eq!(ranges[0].from, 0);
    }

    #[test]
    fn shared_memory_hint_names_the_bytes_to_give_up() {
        let l = h100();
        // 60 KiB per block: 61 KiB granted, 3 blocks in 228 KiB.
        let o = calculate(&l, &Launch::new(256, 32).with_smem(60 * 1024, 0)).unwrap();
        assert_eq!(o.resident_blocks, 3);
        assert_eq!(o.limiters, vec![Resource::SharedMemory]);
        let h = o.headroom.iter().find(|h| h.resource == Resource::SharedMemory).unwrap();
        // 4 blocks need at most 57 KiB each with the reservation: 56 KiB.
        assert_eq!(h.for_one_more_block, Some(56 * 1024));
        let hint = o.hint.unwrap();
        assert!(hint.contains("4096 bytes less shared memory"), "{hint}");
    }

    #[test]
    fn unlimited_resources_are_null_in_json_and_read_back() {
        let o = calculate(&limits(8, 0).unwrap(), &Launch::new(256, 0)).unwrap();
        let j = serde_json::to_value(&o).unwrap();
        assert!(j["limits"]["registers"].is_null() && j["limits"]["barriers"].is_null(), "{j}");
        let back: Occupancy = serde_json::from_value(j).unwrap();
        assert_eq!(back.limits, o.limits);
    }

    #[test]
    fn annotate_evidence_names_the_limiter_and_hint() {
        let mut ev = roofline_model::Evidence {
            block_size: Some(256.0),
            registers_per_thread: Some(40.0),
            ..Default::default()
        };
        let o = annotate_evidence(&mut ev, 9, 0).unwrap();
        assert_eq!(o.resident_blocks, 6);
        assert_eq!(ev.occupancy_theoretical_pct, Some(75.0));
        assert_eq!(ev.occupancy_limiter.as_deref(), Some("registers"));
        assert!(ev.occupancy_hint.as_deref().unwrap().contains("fewer registers"));
        let mut none = roofline_model::Evidence::default();
        assert!(annotate_evidence(&mut none, 9, 0).is_none());
        assert!(annotate_evidence(&mut ev, 4, 0).is_none());
    }
}
