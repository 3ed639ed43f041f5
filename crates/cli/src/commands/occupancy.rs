//! `roofline occupancy`: the occupancy calculator. Resident blocks and warps
//! per SM, the limiting resource, the headroom of each resource, sweeps
//! against block size, registers and shared memory (tables and SVG charts),
//! and, with `--verify-device`, the check of the calculator against the
//! CUDA driver on the local GPU.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use roofline_analysis::{Launch, SweepAxis};
use roofline_report::{sweep_svg, write_atomic, OccupancyDocument};
use roofline_report::{write_set, Links, SetFile};

use crate::error::bad_input;
use crate::output::Output;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SweepArg {
    Block,
    Regs,
    Smem,
    All,
}

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  roofline occupancy --gpu h200 --threads 256 --regs 40
  roofline occupancy --cc 8.6 --threads 128 --regs 64 --smem-dynamic 32KiB --sweep all --svg-dir charts
  roofline occupancy --cc 9.0 --threads 256 --regs 32 --format json

Shared-memory sizes take bytes or K/KB/KiB (x1024), as CUDA counts them. The
figures are theoretical: the rules of CUDA's occupancy calculator, checked
point by point against the driver on an H200 (--verify-device runs that check
on the local GPU).")]
pub struct Args {
    /// A GPU from the built-in table (its compute capability and SM count are used).
    #[arg(long, value_name = "NAME", conflicts_with = "cc")]
    pub gpu: Option<String>,

    /// A compute capability, for example 9.0, 8.6 or sm_75.
    #[arg(long, value_name = "X.Y")]
    pub cc: Option<String>,

    /// Threads per block.
    #[arg(long, value_name = "N", required_unless_present = "verify_device")]
    pub threads: Option<u32>,

    /// Registers per thread (what `nvcc -Xptxas -v` or ncu reports).
    #[arg(long, value_name = "N", required_unless_present = "verify_device")]
    pub regs: Option<u32>,

    /// Static shared memory per block.
    #[arg(long, value_name = "BYTES", default_value = "0")]
    pub smem_static: String,

    /// Dynamic shared memory per block (the launch's third parameter).
    #[arg(long, value_name = "BYTES", default_value = "0")]
    pub smem_dynamic: String,

    /// Preferred shared-memory carveout, % of the maximum
    /// (cudaFuncAttributePreferredSharedMemoryCarveout); default: the maximum.
    #[arg(long, value_name = "PCT")]
    pub carveout: Option<u32>,

    /// Named barriers per block (matters on 9.0 and later only with many).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub barriers: u32,

    /// Also sweep occupancy against block size, registers or shared memory.
    #[arg(long, value_enum, value_name = "AXIS")]
    pub sweep: Vec<SweepArg>,

    /// Write one SVG chart per sweep into DIR (occupancy-block.svg, ...).
    #[arg(long, value_name = "DIR", requires = "sweep")]
    pub svg_dir: Option<PathBuf>,

    /// Check the calculator against cuOccupancyMaxActiveBlocksPerMultiprocessor
    /// on the local GPU over a grid of kernels (NVRTC, --maxrregcount), block
    /// sizes and shared-memory sizes.
    #[arg(long)]
    pub verify_device: bool,

    /// With --verify-device: where to write the grid, one row per point.
    #[arg(long, value_name = "FILE", default_value = "occupancy_grid.csv", requires = "verify_device")]
    pub grid_csv: PathBuf,

    /// With --verify-device: where to write the device facts and the counts.
    #[arg(long, value_name = "FILE", default_value = "occupancy_grid.json", requires = "verify_device")]
    pub grid_json: PathBuf,
}

/// Parses "49152", "48K", "48KB" or "48 KiB" as bytes (K = 1024, as CUDA counts).
pub fn parse_bytes(flag: &str, s: &str) -> anyhow::Result<u64> {
    let t = s.trim().to_ascii_lowercase().replace(' ', "");
    let (num, mult) =
        if let Some(n) = t.strip_suffix("kib").or_else(|| t.strip_suffix("kb")).or_else(|| t.strip_suffix('k')) {
            (n, 1024)
        } else if let Some(n) = t.strip_suffix('b') {
            (n, 1)
        } else {
            (t.as_str(), 1)
        };
    let bad = |why: &str| {
        bad_input(format!(
            "{flag} {s:?}: {why}; expected a whole number of bytes, or K/KB/KiB (x1024), for example 49152 or 48KiB"
        ))
    };
    let v = num.parse::<u64>().map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => bad("too large for a 64-bit byte count"),
        std::num::IntErrorKind::Empty => bad("no number"),
        _ if num.trim_start_matches(|c: char| c.is_ascii_digit()).chars().all(|c| c.is_ascii_alphabetic())
            && num.starts_with(|c: char| c.is_ascii_digit()) =>
        {
            bad("a unit this flag does not take")
        }
        _ => bad("not a whole number"),
    })?;
    v.checked_mul(mult).ok_or_else(|| bad("too large for a 64-bit byte count"))
}

fn limits_from(args: &Args) -> anyhow::Result<(roofline_analysis::Limits, Option<String>, Option<u32>)> {
    if let Some(name) = &args.gpu {
        let g = roofline_hw::find(name).ok_or_else(|| {
            let hint = roofline_hw::closest(name).map(|c| format!("did you mean {c:?}? ")).unwrap_or_default();
            bad_input(format!(
                "--gpu {name:?}: not a GPU the tool knows; {hint}known names: {}; or give its compute capability with --cc",
                roofline_hw::known_keys().join(", ")
            ))
        })?;
        let l = roofline_analysis::limits(g.cc.major, g.cc.minor)
            .ok_or_else(|| bad_input(format!("{}: compute capability {} has no occupancy table", g.name, g.cc)))?;
        return Ok((l, Some(g.name.to_string()), Some(g.sms)));
    }
    match &args.cc {
        Some(cc) => Ok((roofline_analysis::limits_for(cc).map_err(|e| bad_input(format!("--cc: {e}")))?, None, None)),
        None => Err(bad_input(format!(
            "give the GPU with --gpu NAME ({}) or its compute capability with --cc X.Y ({})",
            roofline_hw::known_keys().join(", "),
            roofline_analysis::known_capabilities().join(", ")
        ))),
    }
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    if args.verify_device {
        out.protect_inputs(&[("--grid-csv", &args.grid_csv), ("--grid-json", &args.grid_json)], &[])?;
        return verify_device(args, out);
    }
    let (l, gpu, sms) = limits_from(args)?;
    let threads = args.threads.expect("clap requires --threads");
    let regs = args.regs.expect("clap requires --regs");
    let mut launch = Launch::new(threads, regs).with_smem(
        parse_bytes("--smem-static", &args.smem_static)?,
        parse_bytes("--smem-dynamic", &args.smem_dynamic)?,
    );
    launch.carveout_pct = args.carveout;
    launch.barriers_per_block = args.barriers;
    let o = roofline_analysis::calculate(&l, &launch).map_err(bad_input)?;
    if o.partial_warp {
        out.warn(&format!(
            "{threads} threads is not a multiple of 32: the last warp of each block runs {} of 32 lanes, and it still takes a whole warp's registers and slot",
            threads % 32
        ));
    }
    // A launch no SM can hold fails at run time ("too many resources
    // requested for launch"): the answer is printed, and the exit code says so.
    let cannot_run = (o.resident_blocks == 0).then(|| {
        format!(
            "this launch cannot run on compute capability {}: no block fits ({}); {}",
            l.capability(),
            o.limiters.iter().map(|r| r.label()).collect::<Vec<_>>().join(", "),
            o.hint.clone().unwrap_or_else(|| "use fewer registers or less shared memory per block".into())
        )
    });
    let mut best = roofline_analysis::max_potential_block_size(&l, &launch);
    best.min_grid_size = sms.map(|s| s * best.resident_blocks);
    let mut axes: Vec<SweepAxis> = Vec::new();
    for s in &args.sweep {
        let add: &[SweepAxis] = match s {
            SweepArg::Block => &[SweepAxis::BlockSize],
            SweepArg::Regs => &[SweepAxis::Registers],
            SweepArg::Smem => &[SweepAxis::SharedMemory],
            SweepArg::All => &[SweepAxis::BlockSize, SweepAxis::Registers, SweepAxis::SharedMemory],
        };
        for a in add {
            if !axes.contains(a) {
                axes.push(*a);
            }
        }
    }
    let sweeps: Vec<_> = axes.iter().map(|&a| roofline_analysis::sweep(&l, &launch, a)).collect();
    if let Some(dir) = &args.svg_dir {
        crate::output::ensure_folder("--svg-dir", dir)?;
        let paths: Vec<PathBuf> = sweeps
            .iter()
            .map(|s| {
                dir.join(match s.axis {
                    SweepAxis::BlockSize => "occupancy-block.svg",
                    SweepAxis::Registers => "occupancy-regs.svg",
                    SweepAxis::SharedMemory => "occupancy-smem.svg",
                })
            })
            .collect();
        // Names the tool makes itself: never written through a link.
        crate::output::refuse_odd_names("--svg-dir", &paths)?;
        let svgs: Vec<String> = sweeps.iter().map(|s| sweep_svg(s, gpu.as_deref())).collect();
        let mut writers: Vec<_> =
            svgs.iter().map(|svg| move |w: &mut dyn std::io::Write| w.write_all(svg.as_bytes())).collect();
        let mut set: Vec<SetFile> = paths
            .iter()
            .zip(writers.iter_mut())
            .map(|(p, w)| {
                (p.as_path(), Links::Refuse, w as &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>)
            })
            .collect();
        write_set(&mut set).with_context(|| format!("--svg-dir {}: no chart was written", dir.display()))?;
        for path in &paths {
            out.info(&format!("wrote {}", path.display()));
        }
    }
    let doc = OccupancyDocument::new(gpu, o, best, sweeps);
    out.document(&doc)?;
    match cannot_run {
        Some(why) => {
            crate::streams::message(&format!("error: {why}"));
            Ok(ExitCode::from(1))
        }
        None => Ok(ExitCode::SUCCESS),
    }
}

fn write_text(path: &Path, text: &str) -> anyhow::Result<()> {
    write_atomic(path, text.as_bytes()).with_context(|| format!("writing {}", path.display()))
}

fn verify_device(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    use roofline_gpu::occupancy_check::{grid_csv, run_grid};
    out.info("checking the occupancy calculator against cuOccupancyMaxActiveBlocksPerMultiprocessor on GPU 0");
    let started = std::time::Instant::now();
    let report = match run_grid(|line| out.info(line)) {
        Ok(r) => r,
        Err(e) => {
            out.warn(&format!("the occupancy check could not run: {e}"));
            return Ok(ExitCode::from(1));
        }
    };
    write_text(&args.grid_csv, &grid_csv(&report))?;
    let summary = serde_json::json!({
        "schema": "roofline.occupancy-grid/v1",
        "measured_at": super::bench::now_rfc3339(),
        "seconds": started.elapsed().as_secs_f64(),
        "device": report.device,
        "points": report.points,
        "agreed": report.agreed,
        "driver_refused": report.driver_refused,
        "kernels": report.kernels,
        "grid_csv": args.grid_csv.display().to_string(),
    });
    write_text(&args.grid_json, &(serde_json::to_string_pretty(&summary)? + "\n"))?;
    for m in &report.device.table_mismatches {
        out.warn(&format!("device attribute differs from the calculator's table: {m}"));
    }
    let d = &report.device;
    out.stdout(&format!(
        "{} (compute capability {}, driver {}): {} of {} grid points agree with cuOccupancyMaxActiveBlocksPerMultiprocessor ({} refused by the driver, counted as 0 blocks)\n",
        d.name, d.compute_capability, d.driver_version, report.agreed, report.points, report.driver_refused
    ))?;
    for r in report.rows.iter().filter(|r| !r.agrees()).take(20) {
        out.warn(&format!(
            "disagreement: {} regs, {} B static, {} threads, {} B dynamic, carveout {}: driver {}, calculator {}",
            r.regs, r.static_smem, r.threads, r.dynamic_smem, r.carveout_pct, r.driver_blocks, r.calculator_blocks
        ));
    }
    Ok(if report.agreed == report.points && d.table_mismatches.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes_in_cuda_units() {
        assert_eq!(parse_bytes("x", "49152").unwrap(), 49152);
        assert_eq!(parse_bytes("x", "48K").unwrap(), 49152);
        assert_eq!(parse_bytes("x", "48 KiB").unwrap(), 49152);
        assert_eq!(parse_bytes("x", "48KB").unwrap(), 49152);
        assert_eq!(parse_bytes("x", "100B").unwrap(), 100);
        assert!(parse_bytes("x", "lots").is_err());
    }

    #[test]
    fn a_byte_size_too_large_or_with_another_unit_says_so_not_not_a_whole_number() {
        let msg = |s: &str| parse_bytes("--smem-static", s).unwrap_err().to_string();
        assert!(msg("18446744073709551616").contains("too large"), "{}", msg("18446744073709551616"));
        assert!(msg("99999999999999999999KiB").contains("too large"));
        assert!(msg("1G").contains("a unit this flag does not take"), "{}", msg("1G"));
        assert!(msg("4.5").contains("not a whole number"));
    }

    #[test]
    fn utc_now_is_an_iso_timestamp() {
        let t = crate::commands::bench::now_rfc3339();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z'));
    }
}
