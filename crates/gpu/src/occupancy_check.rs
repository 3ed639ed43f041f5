//! Checks the occupancy calculator of `roofline-core` against the CUDA
//! driver's own answer, `cuOccupancyMaxActiveBlocksPerMultiprocessor`, on the
//! local GPU.
//!
//! The calculator is only worth trusting if it agrees with the driver
//! exactly, so this compiles real kernels at run time with NVRTC for the
//! device's own architecture, each with `--maxrregcount=R` and enough
//! register pressure that the limit is reached, reads back the registers and
//! static shared memory the compiler actually used, raises the kernel's
//! dynamic shared-memory limit to the opt-in maximum, and asks the driver and
//! the calculator the same question over a grid of block sizes, dynamic
//! shared-memory sizes and carveout preferences. The rows are written as a
//! CSV fixture that `roofline-core`'s tests replay on any machine.

use std::collections::BTreeSet;
use std::sync::Arc;

use cudarc::driver::sys::{CUdevice_attribute as Attr, CUfunction_attribute as FnAttr};
use cudarc::driver::{CudaContext, CudaFunction};
use roofline_analysis::{Launch, Limits};
use roofline_model::ComputeCapability;
use serde::Serialize;

use crate::error::GpuError;
use crate::nvrtc;
use crate::session::Session;

fn driver(what: impl Into<String>) -> impl FnOnce(cudarc::driver::DriverError) -> GpuError {
    let what = what.into();
    move |e| GpuError::driver(what, e)
}

/// One grid point: the kernel as compiled, the launch, and both answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GridRow {
    /// Register limit asked for (`--maxrregcount`).
    pub regs_requested: u32,
    /// Registers per thread as compiled (`CU_FUNC_ATTRIBUTE_NUM_REGS`).
    pub regs: u32,
    /// Static shared memory as compiled (`CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES`).
    pub static_smem: u64,
    /// Threads per block.
    pub threads: u32,
    /// Dynamic shared memory per block, bytes.
    pub dynamic_smem: u64,
    /// Carveout preference in %, -1 for the default.
    pub carveout_pct: i32,
    /// The driver's answer; -1 when it refused the query.
    pub driver_blocks: i64,
    /// The occupancy calculator's answer, resident blocks per SM.
    pub calculator_blocks: u32,
}

impl GridRow {
    /// The driver and the calculator agree (a refused query counts as zero blocks).
    pub fn agrees(&self) -> bool {
        self.driver_blocks.max(0) as u64 == self.calculator_blocks as u64
    }
}

/// What the device says about itself, next to the calculator's table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceFacts {
    /// Product name.
    pub name: String,
    /// Compute capability.
    pub compute_capability: ComputeCapability,
    /// Driver version (`cuDriverGetVersion`).
    pub driver_version: String,
    /// Streaming multiprocessors.
    pub sms: u32,
    /// Most resident threads per SM.
    pub max_threads_per_sm: u32,
    /// Most resident blocks per SM.
    pub max_blocks_per_sm: u32,
    /// 32-bit registers per SM.
    pub registers_per_sm: u32,
    /// Most registers one block may use.
    pub registers_per_block: u32,
    /// Shared memory per SM, bytes.
    pub smem_per_sm: u64,
    /// Shared memory per block without opting in, bytes.
    pub smem_per_block: u64,
    /// Shared memory per block with opt-in, bytes.
    pub smem_per_block_optin: u64,
    /// Shared memory the system reserves per resident block, bytes.
    pub smem_reserved_per_block: u64,
    /// Device attributes that differ from the calculator's table, as
    /// "name: device X, table Y".
    pub table_mismatches: Vec<String>,
}

/// The whole check.
#[derive(Debug, Clone, Serialize)]
pub struct GridReport {
    /// The device's own attributes.
    pub device: DeviceFacts,
    /// One row per grid point.
    pub rows: Vec<GridRow>,
    /// Grid points checked.
    pub points: usize,
    /// Points where driver and calculator gave the same block count.
    pub agreed: usize,
    /// Points where the driver refused the query (counted as zero blocks).
    pub driver_refused: usize,
    /// The compiled kernels behind the rows.
    pub kernels: Vec<KernelFacts>,
}

/// One compiled kernel of the grid.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelFacts {
    /// Register limit asked for (`--maxrregcount`).
    pub regs_requested: u32,
    /// Registers per thread as compiled.
    pub regs: u32,
    /// Static shared memory as compiled, bytes.
    pub static_smem: u64,
    /// Local memory per thread (register spills), bytes.
    pub local_bytes_per_thread: u64,
    /// Most threads per block the compiled kernel can launch with.
    pub max_threads_per_block: u32,
    /// ptxas's own report of the compile.
    pub compiler_log: String,
}

const KERNEL: &str = include_str!("kernels/occupancy_pressure.cu");

/// Register limits compiled for; the compiler's real count is what is compared.
/// Counts that are not multiples of 8 check the rounding; sm_90 raises 16 to 24.
pub const REGISTER_LIMITS: &[u32] = &[16, 24, 32, 37, 40, 48, 56, 61, 64, 72, 80, 96, 99, 128, 133, 168, 200, 229, 255];
/// Limits compiled a second time with 4100 bytes of static shared memory
/// (not a multiple of the allocation unit, on purpose).
const WITH_STATIC: &[u32] = &[24, 37, 64, 99, 168, 255];
const STATIC_FLOATS: u32 = 1025;
/// Carveout preferences tried on two kernels (-1, the default, on all).
const CARVEOUTS: &[i32] = &[0, 25, 50, 100];

fn block_sizes() -> Vec<u32> {
    let mut v: BTreeSet<u32> = (1..=32).map(|w| w * 32).collect();
    v.extend([1, 17, 33, 100, 250, 1000]);
    v.into_iter().collect()
}

fn dynamic_sizes(max: u64) -> Vec<u64> {
    let mut v: BTreeSet<u64> = (0..).map(|k| k * 7777).take_while(|&d| d <= max).collect();
    v.extend([0, 1, 128, 1000, max, max.saturating_sub(127), max.saturating_sub(1024)]);
    for d in [48 * 1024u64, 96 * 1024, 100 * 1024, 164 * 1024] {
        for x in [d.saturating_sub(1024), d] {
            if x <= max {
                v.insert(x);
            }
        }
    }
    v.into_iter().filter(|&d| d <= max).collect()
}

/// The NVRTC options of one pressure kernel.
fn pressure_options(arch: &str, max_regs: u32, static_floats: u32) -> Vec<String> {
    vec![
        format!("--gpu-architecture={arch}"),
        format!("--maxrregcount={max_regs}"),
        format!("-DSTATIC_FLOATS={static_floats}"),
        "--ptxas-options=-v".to_string(),
    ]
}

/// Compiles the pressure kernel to a cubin for `arch` ("sm_90"); returns it
/// with the compiler's log (ptxas's register and spill report).
pub fn compile(arch: &str, max_regs: u32, static_floats: u32) -> Result<(Vec<u8>, String), GpuError> {
    let c =
        nvrtc::compile_with("occupancy_pressure.cu", KERNEL, arch, &pressure_options(arch, max_regs, static_floats))?;
    Ok((c.cubin, c.log))
}

fn attr(ctx: &Arc<CudaContext>, a: Attr) -> Result<i64, GpuError> {
    ctx.attribute(a).map(|v| v as i64).map_err(driver(format!("reading device attribute {a:?}")))
}

fn device_facts(ctx: &Arc<CudaContext>) -> Result<DeviceFacts, GpuError> {
    let major = attr(ctx, Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
    let minor = attr(ctx, Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
    let mut version = 0i32;
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) }
        .result()
        .map_err(driver("reading the driver version"))?;
    Ok(DeviceFacts {
        name: ctx.name().map_err(driver("reading the device name"))?,
        compute_capability: ComputeCapability::new(major as u32, minor as u32),
        driver_version: format!("{}.{}", version / 1000, (version % 1000) / 10),
        sms: attr(ctx, Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
        max_threads_per_sm: attr(ctx, Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)? as u32,
        max_blocks_per_sm: attr(ctx, Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)? as u32,
        registers_per_sm: attr(ctx, Attr::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)? as u32,
        registers_per_block: attr(ctx, Attr::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)? as u32,
        smem_per_sm: attr(ctx, Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)? as u64,
        smem_per_block: attr(ctx, Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)? as u64,
        smem_per_block_optin: attr(ctx, Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)? as u64,
        smem_reserved_per_block: attr(ctx, Attr::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK)? as u64,
        table_mismatches: Vec::new(),
    })
}

fn table_mismatches(d: &DeviceFacts, l: &Limits) -> Vec<String> {
    let pairs: [(&str, u64, u64); 8] = [
        ("max threads per SM", d.max_threads_per_sm as u64, l.max_threads_per_sm as u64),
        ("max blocks per SM", d.max_blocks_per_sm as u64, l.max_blocks_per_sm as u64),
        ("registers per SM", d.registers_per_sm as u64, l.registers_per_sm as u64),
        ("registers per block", d.registers_per_block as u64, l.registers_per_block as u64),
        ("shared memory per SM", d.smem_per_sm, l.smem_per_sm),
        ("shared memory per block", d.smem_per_block, l.smem_per_block),
        ("shared memory per block (opt-in)", d.smem_per_block_optin, l.smem_per_block_optin),
        ("reserved shared memory per block", d.smem_reserved_per_block, l.smem_reserved_per_block),
    ];
    pairs.iter().filter(|(_, a, b)| a != b).map(|(n, a, b)| format!("{n}: device {a}, table {b}")).collect()
}

fn fn_attr(f: &CudaFunction, a: FnAttr) -> Result<i64, GpuError> {
    f.get_attribute(a).map(|v| v as i64).map_err(driver(format!("reading function attribute {a:?}")))
}

/// Runs the whole grid on GPU 0. `progress` receives one line per kernel.
pub fn run_grid(mut progress: impl FnMut(&str)) -> Result<GridReport, GpuError> {
    nvrtc::check_nvrtc()?;
    let mut session = Session::open(0)?;
    let ctx = session.context().clone();
    let mut device = device_facts(&ctx)?;
    let cc = device.compute_capability;
    let limits = roofline_analysis::limits(cc.major, cc.minor).ok_or_else(|| GpuError::UnknownCapability {
        cc: cc.to_string(),
        known: roofline_analysis::known_capabilities().join(", "),
    })?;
    device.table_mismatches = table_mismatches(&device, &limits);
    let arch = cc.sm();

    let mut rows = Vec::new();
    let mut kernels = Vec::new();
    let blocks = block_sizes();
    let variants = REGISTER_LIMITS.iter().map(|&r| (r, 0)).chain(WITH_STATIC.iter().map(|&r| (r, STATIC_FLOATS)));
    for (r, floats) in variants {
        let key = format!("occupancy_pressure_r{r}_s{floats}");
        let (module, log) = session.compile(&key, KERNEL, &pressure_options(&arch, r, floats))?;
        let f = module.load_function("pressure").map_err(driver("finding the kernel"))?;
        let regs = fn_attr(&f, FnAttr::CU_FUNC_ATTRIBUTE_NUM_REGS)? as u32;
        let static_smem = fn_attr(&f, FnAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)? as u64;
        let local = fn_attr(&f, FnAttr::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)? as u64;
        let max_threads = fn_attr(&f, FnAttr::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)? as u32;
        let max_dynamic = limits.smem_per_block_optin.saturating_sub(static_smem);
        f.set_attribute(FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, max_dynamic as i32)
            .map_err(driver("raising the dynamic shared-memory limit to the opt-in maximum"))?;
        kernels.push(KernelFacts {
            regs_requested: r,
            regs,
            static_smem,
            local_bytes_per_thread: local,
            max_threads_per_block: max_threads,
            compiler_log: log,
        });
        progress(&format!(
            "--maxrregcount={r}: {regs} registers, {static_smem} B static shared memory, {local} B local per thread"
        ));
        let carveouts: &[i32] = if (r == 32 && floats == 0) || (r == 64 && floats != 0) { CARVEOUTS } else { &[] };
        for &carveout in std::iter::once(&-1).chain(carveouts) {
            f.set_attribute(FnAttr::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, carveout)
                .map_err(driver(format!("setting the carveout preference to {carveout}")))?;
            for &threads in &blocks {
                for dynamic in dynamic_sizes(max_dynamic) {
                    let driver_blocks =
                        match f.occupancy_max_active_blocks_per_multiprocessor(threads, dynamic as usize, None) {
                            Ok(b) => b as i64,
                            Err(_) => -1,
                        };
                    let mut launch = Launch::new(threads, regs).with_smem(static_smem, dynamic);
                    launch.carveout_pct = u32::try_from(carveout).ok();
                    rows.push(GridRow {
                        regs_requested: r,
                        regs,
                        static_smem,
                        threads,
                        dynamic_smem: dynamic,
                        carveout_pct: carveout,
                        driver_blocks,
                        calculator_blocks: roofline_analysis::max_active_blocks(&limits, &launch),
                    });
                }
            }
        }
    }
    let agreed = rows.iter().filter(|r| r.agrees()).count();
    let driver_refused = rows.iter().filter(|r| r.driver_blocks < 0).count();
    Ok(GridReport { device, points: rows.len(), agreed, driver_refused, rows, kernels })
}

/// The grid as CSV, one header line and one line per point.
pub fn grid_csv(report: &GridReport) -> String {
    let mut s = String::from(
        "regs_requested,regs,static_smem,threads,dynamic_smem,carveout_pct,driver_blocks,calculator_blocks\n",
    );
    for r in &report.rows {
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{}\n",
            r.regs_requested,
            r.regs,
            r.static_smem,
            r.threads,
            r.dynamic_smem,
            r.carveout_pct,
            r.driver_blocks,
            r.calculator_blocks
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_covers_block_sizes_and_the_opt_in_maximum() {
        let b = block_sizes();
        assert_eq!(b.iter().filter(|t| *t % 32 == 0).count(), 32);
        assert!(b.contains(&1) && b.contains(&1024));
        let d = dynamic_sizes(232448);
        assert_eq!(d[0], 0);
        assert_eq!(*d.last().unwrap(), 232448);
        assert!(d.contains(&(48 * 1024)));
    }

    /// NVRTC needs no GPU: where the library is present, the kernel must
    /// compile for Hopper and use every register it is allowed.
    #[test]
    fn pressure_kernel_uses_the_register_limit() {
        if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            crate::skip_notice("no NVRTC library to compile the occupancy kernel");
            return;
        }
        for r in [32, 40, 255] {
            let (cubin, log) = compile("sm_90", r, 1025).unwrap();
            assert!(!cubin.is_empty());
            // Some NVRTC builds (the H200 machine's, 13.0) print no ptxas
            // report; the grid test reads the registers from the driver there.
            if log.contains("Used ") {
                assert!(log.contains(&format!("Used {r} registers")), "--maxrregcount={r}: {log}");
            } else {
                crate::skip_notice("this NVRTC prints no ptxas report; register use not checked here");
            }
        }
    }

    #[test]
    fn gpu_grid_agrees_with_the_driver() {
        match run_grid(|_| {}) {
            Ok(r) => assert_eq!(r.agreed, r.points, "{} of {} points disagree", r.points - r.agreed, r.points),
            Err(e) => crate::skip_notice(&format!("no GPU for the occupancy grid ({e})")),
        }
    }
}
