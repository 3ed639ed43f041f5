//! `roofline tour`: the main job, from a fresh clone to a measured,
//! annotated roofline of this GPU.
//!
//! On a machine with an NVIDIA GPU it measures the roofs (`bench --quick`),
//! runs the bundled example kernels (seed 000's, and an FMA loop at seven
//! intensities), places them on the roofline with Nsight Compute's counters
//! when ncu is present and with CUDA-event timings against paper FLOPs and
//! bytes when it is not, prints each kernel's diagnosis, the fusion speed-up
//! and the measured ridge, and writes an HTML report. Without a GPU it does
//! the same from the H200 data bundled in the binary (a bench result and an
//! ncu capture that this command made on an H200) and says so first.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use roofline_core::machine::{ClockBasis, FlopKind, Machine, MemLevel, Origin, Provenance};
use roofline_core::schema::{read_machine, AnalysisDocument, AnalysisSource, MachineDocument, Producer};
use roofline_core::stats::Spread;
use roofline_core::units::{format_percent, format_plain, format_seconds, format_si, Unit};
use roofline_core::KernelAnalysis;
use roofline_gpu::bench::suite::Sweep;
use roofline_gpu::bench::Options as BenchOptions;
use roofline_gpu::examples::{self, Plan, SWEEP_ITERS};
use roofline_ncu::points::ByteConvention;
use roofline_ncu::runner::{find_ncu, metric_list, Filters, Progress, Run};
use roofline_ncu::{analyse, read_capture, Options as NcuOptions};
use roofline_report::html::report_html;
use roofline_report::svg::ChartOptions;
use roofline_report::table::{analysis_text, spread_text};
use roofline_report::write_atomic;

use super::bench::{gpu_error, now_rfc3339, run_device};
use crate::output::Output;

/// The bundled H200 data: what `roofline tour` wrote on the lent H200.
const BUNDLED_MACHINE: &str = include_str!("../../../../data/h200/tour/machine.json");
const BUNDLED_CAPTURE: &str = include_str!("../../../../data/h200/tour/examples.ncu.csv");
const BUNDLED_ABOUT: &str = "NVIDIA H200 (132 SMs, driver 580.159.04, CUDA 13.0), measured on 2026-11-29";

#[derive(clap::Args, Debug)]
#[command(after_help = "Writes into --out-dir: report.html (the roofline, hover for details), analysis.json,
machine.json and, with ncu, examples.ncu.csv (feed them to `roofline report`,
`check`, `diff`, `import --machine`).")]
pub struct Args {
    /// Show the bundled H200 data even when a GPU is present.
    #[arg(long)]
    pub bundled: bool,

    /// Folder for the report and the raw results (created if missing).
    #[arg(long, default_value = "roofline-tour", value_name = "DIR")]
    pub out_dir: PathBuf,

    /// The GPU to use.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub device: usize,

    /// Nsight Compute to use (default: PATH, $CUDA_HOME/bin, /usr/local/cuda/bin).
    #[arg(long, value_name = "PATH")]
    pub ncu: Option<PathBuf>,

    /// Time the example kernels with CUDA events even when ncu is present.
    #[arg(long)]
    pub no_ncu: bool,

    /// Run each example kernel once and exit (what the tour profiles under ncu).
    #[arg(long, hide = true)]
    pub run_examples: bool,
}

/// Everything the tour shows, however it was obtained.
struct Tour {
    banner: String,
    machine: MachineDocument,
    analysis: AnalysisDocument,
    method: String,
    files: Vec<PathBuf>,
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    if args.run_examples {
        return run_examples_once(args, out);
    }
    let started = std::time::Instant::now();
    std::fs::create_dir_all(&args.out_dir)
        .with_context(|| format!("creating the output folder {}", args.out_dir.display()))?;
    let gpu = if args.bundled {
        Err("--bundled was given".to_string())
    } else {
        match roofline_gpu::device::device_count() {
            Ok(n) if n > args.device => Ok(()),
            Ok(n) => Err(format!("device {} asked for, {n} found", args.device)),
            Err(e) => Err(e.to_string()),
        }
    };
    let mut tour = match gpu {
        Ok(()) => live(args, out)?,
        Err(why) => bundled(args, &why)?,
    };
    let report = args.out_dir.join("report.html");
    write_atomic(&report, report_html(&tour.analysis, &ChartOptions::default())?.as_bytes())?;
    let analysis = args.out_dir.join("analysis.json");
    write_atomic(&analysis, (serde_json::to_string_pretty(&tour.analysis)? + "\n").as_bytes())?;
    let machine = args.out_dir.join("machine.json");
    write_atomic(&machine, (serde_json::to_string_pretty(&tour.machine)? + "\n").as_bytes())?;
    tour.files.splice(0..0, [report, analysis, machine]);
    out.stdout(&render(&tour, started.elapsed().as_secs_f64()))?;
    Ok(ExitCode::SUCCESS)
}

fn run_examples_once(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    let runs = examples::run(args.device, Plan::PROFILE, &mut |name| out.info(&format!("running {name}")))
        .map_err(gpu_error)?;
    for r in &runs {
        out.info(&format!("{}: {}", r.name, r.verified));
    }
    Ok(ExitCode::SUCCESS)
}

fn bundled(args: &Args, why: &str) -> anyhow::Result<Tour> {
    let machine = read_machine(BUNDLED_MACHINE, "bundled data/h200/tour/machine.json")?;
    let cap = read_capture(BUNDLED_CAPTURE.as_bytes(), "bundled data/h200/tour/examples.ncu.csv")?;
    let capture_file = args.out_dir.join("examples.ncu.csv");
    write_atomic(&capture_file, BUNDLED_CAPTURE.as_bytes())?;
    let analysis = ncu_analysis(&cap, &machine.machine, "bundled capture of the example kernels (data/h200/tour/)");
    Ok(Tour {
        banner: format!(
            "No GPU here ({why}): showing the bundled data of an {BUNDLED_ABOUT}. Run `roofline tour` on a machine with an NVIDIA GPU to measure your own."
        ),
        machine,
        analysis,
        method: "roofs: `roofline bench --quick` on the H200; kernels: Nsight Compute counters (FLOPs per precision, bytes at DRAM, L2 and L1, duration from the same run)".into(),
        files: vec![capture_file],
    })
}

fn ncu_analysis(cap: &roofline_ncu::Capture, machine: &Machine, detail: &str) -> AnalysisDocument {
    let opts = NcuOptions { convention: ByteConvention::Ncu, per_launch: false, machine: Some(machine.clone()) };
    let a = analyse(cap, &opts);
    let mut doc = AnalysisDocument::new(
        Producer::new("roofline tour"),
        AnalysisSource {
            kind: "ncu".into(),
            detail: detail.into(),
            byte_convention: Some(ByteConvention::Ncu.describe().into()),
        },
        a.machine,
        a.kernels,
    );
    doc.warnings = a.warnings;
    doc
}

fn live(args: &Args, out: &Output) -> anyhow::Result<Tour> {
    let d = args.device;
    out.info(&format!("measuring the roofs of GPU {d} (roofline bench --quick)"));
    let outcome = run_device(d, &BenchOptions { quick: true, only: Vec::new() }, out).map_err(gpu_error)?;
    let mut producer = Producer::new(&format!("roofline tour --device {d} (bench --quick)"));
    producer.created = Some(now_rfc3339());
    let mut machine = MachineDocument::new(outcome.machine, producer);
    machine.measurements = Some(serde_json::to_value(&outcome.measurements)?);
    let name = machine.machine.name.clone();

    let ncu = if args.no_ncu { None } else { find_ncu(args.ncu.as_deref()).ok() };
    let mut files = Vec::new();
    let (analysis, method) = match ncu {
        Some(ncu) => {
            let exe = std::env::current_exe().context("finding this program to run its example kernels under ncu")?;
            let (metrics, _) = metric_list(&ncu);
            let log_file = args.out_dir.join("examples.ncu.csv");
            let run = Run {
                ncu: ncu.clone(),
                program: exe.display().to_string(),
                args: vec!["tour".into(), "--run-examples".into(), "--device".into(), d.to_string()],
                filters: Filters::default(),
                clock_control: "none".into(),
                print_units: "base".into(),
                metrics: Some(metrics.clone()),
                extra: Vec::new(),
                log_file: log_file.clone(),
            };
            out.info(&format!("profiling the example kernels with {} ({} metrics)", ncu.display(), metrics.len()));
            let quiet = out.quiet;
            let status = run.execute(&metrics, move |p| {
                if let (false, Progress::Elapsed(t)) = (quiet, p) {
                    crate::streams::message(&format!("roofline: still profiling ({} s)", t.as_secs()));
                }
            })?;
            let input = log_file.display().to_string();
            let cap =
                read_capture(std::fs::File::open(&log_file).with_context(|| format!("reading {input}"))?, &input)?;
            if !status.success() {
                anyhow::bail!(
                    "the example kernels failed under ncu ({status}); {} launch(es) were profiled, see {input}",
                    cap.launches.len()
                );
            }
            files.push(log_file);
            (
                ncu_analysis(&cap, &machine.machine, &format!("example kernels under {}", ncu.display())),
                format!("roofs: `roofline bench --quick` on this GPU; kernels: Nsight Compute counters ({}; FLOPs per precision, bytes at DRAM, L2 and L1, duration from the same run)", ncu.display()),
            )
        }
        None => {
            let why = if args.no_ncu {
                "--no-ncu was given"
            } else {
                "ncu was not found (install Nsight Compute, or pass --ncu PATH, for counters)"
            };
            out.info(&format!("timing the example kernels with CUDA events: {why}"));
            let runs = examples::run(d, Plan::TIMED, &mut |k| out.info(&format!("running {k}"))).map_err(gpu_error)?;
            let kernels: Vec<_> = runs.iter().map(|r| r.kernel()).collect();
            let analyses = roofline_core::analyze(&machine.machine, &kernels);
            let doc = AnalysisDocument::new(
                Producer::new("roofline tour"),
                AnalysisSource {
                    kind: "timing".into(),
                    detail: format!("example kernels timed with CUDA events (median of {} launches after {} warm-up); FLOPs and bytes counted on paper", Plan::TIMED.timed, Plan::TIMED.warmup),
                    byte_convention: Some("DRAM bytes on paper: each array read or written once".into()),
                },
                machine.machine.clone(),
                analyses,
            );
            (doc, format!("roofs: `roofline bench --quick` on this GPU; kernels: CUDA events with paper FLOPs and bytes ({why})"))
        }
    };
    Ok(Tour { banner: format!("Measured on this GPU: {name} (device {d})."), machine, analysis, method, files })
}

fn find<'a>(doc: &'a AnalysisDocument, name: &str) -> Option<&'a KernelAnalysis> {
    doc.kernels.iter().find(|k| k.kernel.display_name == name || k.kernel.name == name)
}

/// One line of the roofs list: value, origin, spread, clock, % of theoretical.
fn roof_line(
    label: &str,
    value: f64,
    unit: Unit,
    c: (&Provenance, Option<&Spread>, &ClockBasis),
    theory: Option<f64>,
) -> String {
    let (provenance, spread, clock) = c;
    let pct = theory
        .filter(|_| provenance.origin != Origin::Theoretical)
        .map(|t| format!(", {} of theoretical {}", format_percent(100.0 * value / t), format_si(t, unit)))
        .unwrap_or_default();
    format!(
        "  {label:<14} {:>14}  [{}; {}{}{pct}]\n",
        format_si(value, unit),
        provenance.origin.label(),
        spread_text(spread, unit),
        clock.sm_mhz.map(|mhz| format!(", SM {mhz:.0} MHz")).unwrap_or_default(),
    )
}

/// The compact table of roofs: measured beside theoretical.
fn roofs_text(m: &Machine) -> String {
    let mut s = String::from("roofs (measured, with their spread and clock; theoretical for comparison):\n");
    let theoretical = |o: &Provenance| o.origin == Origin::Theoretical;
    for kind in FlopKind::ALL {
        let Some(c) = m.compute_roof(kind) else { continue };
        let t = m.compute.iter().find(|x| x.kind == kind && !x.secondary && theoretical(&x.provenance));
        let row = (&c.provenance, c.spread.as_ref(), &c.clock);
        s.push_str(&roof_line(kind.label(), c.flops_per_s, kind.rate_unit(), row, t.map(|t| t.flops_per_s)));
    }
    for level in MemLevel::ALL {
        let Some(b) = m.bandwidth_roof(level) else { continue };
        let t = m.bandwidth.iter().find(|x| x.level == level && theoretical(&x.provenance));
        let row = (&b.provenance, b.spread.as_ref(), &b.clock);
        s.push_str(&roof_line(level.label(), b.bytes_per_s, Unit::BytePerSecond, row, t.map(|t| t.bytes_per_s)));
    }
    s
}

/// The measured ridge: where the FMA sweep's measured curve turns, and the
/// ratio of the measured roofs.
fn ridge_text(doc: &MachineDocument) -> String {
    let m = &doc.machine;
    let mut s = String::new();
    let sweeps: Vec<Sweep> = doc
        .measurements
        .as_ref()
        .and_then(|v| v.get("sweeps"))
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    for sw in &sweeps {
        if let Some(r) = sw.ridge {
            s.push_str(&format!(
                "measured ridge, {} (FMA sweep, {} intensities): {} FLOP/B = {} plateau / {} at low intensity{}\n",
                sw.kind.label(),
                sw.points.len(),
                format_plain(r.intensity),
                format_si(r.peak, Unit::FlopPerSecond),
                format_si(r.bandwidth, Unit::BytePerSecond),
                r.knee.map(|k| format!("; 90% of the plateau from {} FLOP/B on", format_plain(k))).unwrap_or_default()
            ));
        }
    }
    for kind in [FlopKind::Fp32, FlopKind::Fp64] {
        if let (Some(c), Some(b)) = (m.compute_roof(kind), m.bandwidth_roof(MemLevel::Dram)) {
            let theory = m
                .compute
                .iter()
                .find(|x| x.kind == kind && !x.secondary && x.provenance.origin == Origin::Theoretical)
                .zip(
                    m.bandwidth
                        .iter()
                        .find(|x| x.level == MemLevel::Dram && x.provenance.origin == Origin::Theoretical),
                )
                .map(|(tc, tb)| format!(" (theoretical {})", format_plain(tc.flops_per_s / tb.bytes_per_s)))
                .unwrap_or_default();
            s.push_str(&format!(
                "ridge of the {} roofs, {} / DRAM: {} FLOP/B{theory}\n",
                c.provenance.origin.label(),
                kind.label(),
                format_plain(c.flops_per_s / b.bytes_per_s)
            ));
        }
    }
    s
}

/// Seed 000's fusion: scale + add against the fused kernel.
fn fusion_text(doc: &AnalysisDocument) -> Option<String> {
    let (scale, add, fused) = (find(doc, "scale")?, find(doc, "add")?, find(doc, "fused")?);
    let per_launch = |k: &KernelAnalysis| k.kernel.duration_s.map(|d| d / k.kernel.launches.max(1) as f64);
    let (ts, ta, tf) = (per_launch(scale)?, per_launch(add)?, per_launch(fused)?);
    let dram = |k: &KernelAnalysis| k.level(MemLevel::Dram).map(|p| p.bytes / k.kernel.launches.max(1) as f64);
    let flops = |k: &KernelAnalysis| k.total_flops / k.kernel.launches.max(1) as f64;
    let two_bytes = dram(scale)? + dram(add)?;
    let two_ai = (flops(scale) + flops(add)) / two_bytes;
    let fused_ai = flops(fused) / dram(fused)?;
    Some(format!(
        "fusion (seed 000): scale + add took {} + {} = {} (6 array passes), fused {} (4 passes): {:.2}x faster; DRAM intensity {} -> {} FLOP/B (paper: 2/24 = 0.083 -> 2/16 = 0.125), DRAM bytes {} -> {}\n",
        format_seconds(ts),
        format_seconds(ta),
        format_seconds(ts + ta),
        format_seconds(tf),
        (ts + ta) / tf,
        format_plain(two_ai),
        format_plain(fused_ai),
        format_si(two_bytes, Unit::Byte),
        format_si(dram(fused)?, Unit::Byte),
    ))
}

/// The FMA loop at seven intensities: where it crosses the ridge.
fn sweep_text(doc: &AnalysisDocument) -> Option<String> {
    let mut lines = Vec::new();
    let mut crossing = None;
    let mut prev: Option<(u32, &str)> = None;
    for it in SWEEP_ITERS {
        let Some(k) = find(doc, &format!("fma_loop_x{it}")) else { continue };
        let bound = k.bound.map(|b| b.label()).unwrap_or("-");
        if let (Some((pit, pb)), "compute") = (prev, bound) {
            if pb == "memory" {
                crossing = Some((pit, it));
            }
        }
        prev = Some((it, bound));
        lines.push(format!(
            "  x{it:<5} intensity {:>8} FLOP/B  achieved {:>13}  {}-bound, {} of its roof",
            k.level(MemLevel::Dram).and_then(|p| p.intensity).map(format_plain).unwrap_or_else(|| "-".into()),
            k.achieved_flops_per_s.map(|f| format_si(f, Unit::FlopPerSecond)).unwrap_or_else(|| "-".into()),
            bound,
            k.pct_of_roof.map(format_percent).unwrap_or_else(|| "-".into())
        ));
    }
    if lines.is_empty() {
        return None;
    }
    let mut s = String::from("FMA loop at increasing intensity (seed 000's practice 2), FMA iterations per element:\n");
    s.push_str(&lines.join("\n"));
    s.push('\n');
    if let Some((a, b)) = crossing {
        s.push_str(&format!("  it stops being memory-bound between x{a} and x{b}\n"));
    }
    Some(s)
}

fn render(t: &Tour, seconds: f64) -> String {
    let mut s = format!("{}\n\n", t.banner);
    s.push_str(&format!("{}\n", roofline_report::table::machine_heading(&t.machine.machine)));
    s.push_str(&roofs_text(&t.machine.machine));
    s.push_str(&ridge_text(&t.machine));
    s.push('\n');
    s.push_str(&analysis_text(&t.analysis));
    s.push('\n');
    if let Some(f) = fusion_text(&t.analysis) {
        s.push_str(&f);
    }
    if let Some(f) = sweep_text(&t.analysis) {
        s.push_str(&f);
    }
    s.push_str(&format!("\nhow: {}\n", t.method));
    s.push_str(&format!("report: {}\n", t.files[0].display()));
    s.push_str(&format!(
        "also written: {}\n",
        t.files[1..].iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    ));
    s.push_str(&format!("done in {seconds:.1} s\n"));
    s
}
