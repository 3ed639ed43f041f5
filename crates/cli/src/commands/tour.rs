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
use roofline_analysis::analyze_capture;
use roofline_documents::{read_machine, AnalysisDocument, AnalysisSource, MachineDocument, Producer};
use roofline_gpu::bench::Options as BenchOptions;
use roofline_gpu::examples::{self, Plan, SWEEP_ITERS};
use roofline_model::Machine;
use roofline_ncu::{capture, read_capture, Options as NcuOptions, RawCapture};
use roofline_ncu::{find_ncu, metric_list, ByteConvention, Filters, Progress, Run};
use roofline_report::{write_atomic, Format, Fusion, IntensityStep, TourDocument, TOUR_SCHEMA};
use roofline_report::{write_set, Links, SetFile};

use super::bench::{gpu_error, now_rfc3339, run_device};
use crate::error::bad_input;
use crate::output::Output;

/// The bundled H200 data: what `roofline tour` wrote on the lent H200.
const BUNDLED_MACHINE: &str = include_str!("../../../../data/h200/tour/machine.json");
const BUNDLED_CAPTURE: &str = include_str!("../../../../data/h200/tour/examples.ncu.csv");
const BUNDLED_ABOUT: &str = "NVIDIA H200 (132 SMs, driver 580.159.04, CUDA 13.0), measured on 2026-12-02";
const BUNDLED_DATA: &str = "measured on an H200 on 2026-12-02 by `roofline tour`";

#[derive(clap::Args, Debug)]
#[command(after_help = "Writes into --out-dir: report.html (the roofline, hover for details), analysis.json,
machine.json and, with ncu, examples.ncu.csv (feed them to `roofline report`,
`check`, `diff`, `import --machine`). Files of those names already there are replaced;
a symbolic link among them that leads out of the folder is refused (exit 2).")]
pub struct Args {
    /// Show the bundled H200 data even when a GPU is present.
    #[arg(long)]
    pub bundled: bool,

    /// Folder for the report and the raw results (created if missing).
    #[arg(long, default_value = "roofline-tour", value_name = "DIR")]
    pub out_dir: PathBuf,

    /// The GPU to use (default 0).
    #[arg(long, value_name = "N", conflicts_with = "bundled")]
    pub device: Option<usize>,

    /// Nsight Compute to use (default: PATH, $CUDA_HOME/bin, /usr/local/cuda/bin).
    #[arg(long, value_name = "PATH", conflicts_with_all = ["bundled", "no_ncu"])]
    pub ncu: Option<PathBuf>,

    /// Time the example kernels with CUDA events even when ncu is present.
    #[arg(long, conflicts_with = "bundled")]
    pub no_ncu: bool,

    /// Run each example kernel once and exit (what the tour profiles under ncu).
    #[arg(long, hide = true)]
    pub run_examples: bool,
}

/// What the tour obtained, however it was obtained.
struct Tour {
    banner: String,
    bundled: bool,
    data: String,
    machine: MachineDocument,
    analysis: AnalysisDocument,
    method: String,
    files: Vec<PathBuf>,
}

impl Tour {
    /// The document the tour shows: its data, seed 000's fusion and the
    /// FMA loop at increasing intensity, found among the example kernels.
    fn document(self, seconds: f64) -> TourDocument {
        let fusion = Fusion::from_analysis(
            &self.analysis,
            "fusion (seed 000): 6 array passes fused into 4",
            &["scale", "add"],
            "fused",
            "paper: 2/24 = 0.083 -> 2/16 = 0.125",
        );
        let steps = IntensityStep::series(&self.analysis, &SWEEP_ITERS, |it| format!("fma_loop_x{it}"));
        TourDocument {
            schema: TOUR_SCHEMA,
            banner: self.banner,
            bundled: self.bundled,
            data: self.data,
            bench: Some(roofline_report::BenchResults::of(&self.machine)),
            machine: self.machine,
            analysis: self.analysis,
            fusion,
            intensity_steps: steps,
            method: self.method,
            files: self.files.iter().map(|p| p.display().to_string()).collect(),
            seconds,
        }
    }
}

/// The files `tour` names itself in its folder.
const TOUR_FILES: [&str; 4] = ["report.html", "analysis.json", "machine.json", "examples.ncu.csv"];

/// The folder may be shared or pre-filled: a symbolic link planted under
/// one of the tour's own file names would send its write out of the folder
/// (the `-o` rule follows links, because there the user names the file).
/// Such a link is refused before anything runs; a link inside the folder
/// is followed as usual.
fn refuse_links_out_of(dir: &std::path::Path) -> anyhow::Result<()> {
    let Ok(folder) = dir.canonicalize() else { return Ok(()) };
    for name in TOUR_FILES {
        let path = dir.join(name);
        // A FIFO, device or folder under one of its names would stop the
        // tour halfway, its other files already replaced: refused first.
        if let Ok(m) = std::fs::metadata(&path) {
            if !m.is_file() {
                let what = if m.is_dir() { "a folder" } else { "not a regular file (a device, FIFO or socket)" };
                return Err(bad_input(format!(
                    "--out-dir {}: {name} is {what}; tour writes regular files there: remove it or give another --out-dir",
                    dir.display()
                )));
            }
        }
        let is_link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            continue;
        }
        let inside = path.canonicalize().ok().and_then(|t| t.parent().map(|p| p == folder)).unwrap_or(false);
        if !inside {
            let target = std::fs::read_link(&path).map(|t| t.display().to_string()).unwrap_or_default();
            return Err(bad_input(format!(
                "--out-dir {}: {name} is a symbolic link to {target}, outside the folder; tour writes its files only inside it: remove the link or give another --out-dir",
                dir.display()
            )));
        }
    }
    Ok(())
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    if args.run_examples {
        return run_examples_once(args, out);
    }
    let started = std::time::Instant::now();
    crate::output::ensure_folder("--out-dir", &args.out_dir)?;
    refuse_links_out_of(&args.out_dir)?;
    let device = args.device.unwrap_or(0);
    let gpu = if args.bundled {
        Err("--bundled was given".to_string())
    } else {
        match roofline_gpu::device::device_count() {
            Ok(n) if n > device => Ok(()),
            Ok(n) => {
                return Err(bad_input(format!(
                    "--device {device}: this machine has {n} GPU(s), numbered 0 to {}",
                    n.saturating_sub(1)
                )))
            }
            Err(e) => Err(e.to_string()),
        }
    };
    let mut tour = match gpu {
        Ok(()) => live(args, device, out)?,
        Err(why) => {
            // Flags for a live run cannot work without a GPU: say so rather than ignore them.
            let live_flags: Vec<&str> =
                [(args.device.is_some(), "--device"), (args.ncu.is_some(), "--ncu"), (args.no_ncu, "--no-ncu")]
                    .iter()
                    .filter_map(|(given, flag)| given.then_some(*flag))
                    .collect();
            if !live_flags.is_empty() {
                return Err(bad_input(format!(
                    "{} need(s) a GPU, and there is none here ({why}); `roofline tour` without {} shows the bundled H200 data",
                    live_flags.join(", "),
                    if live_flags.len() == 1 { "it" } else { "them" }
                )));
            }
            bundled(args, &why)?
        }
    };
    out.info(&tour.banner);
    let (report, analysis, machine) =
        (args.out_dir.join("report.html"), args.out_dir.join("analysis.json"), args.out_dir.join("machine.json"));
    let files = [
        (&analysis, out.rendered(&tour.analysis, Format::Json)?),
        (&machine, out.rendered(&tour.machine, Format::Json)?),
    ];
    tour.files.splice(0..0, [report.clone(), analysis.clone(), machine.clone()]);
    let doc = tour.document(started.elapsed().as_secs_f64());
    let page = out.rendered(&doc, Format::Html)?;
    // The three belong together: all of them or none.
    let mut writers: Vec<_> = files
        .iter()
        .map(|(_, b)| b)
        .chain([&page])
        .map(|body| move |w: &mut dyn std::io::Write| w.write_all(body.as_bytes()))
        .collect();
    let mut set: Vec<SetFile> = [&analysis, &machine, &report]
        .into_iter()
        .zip(writers.iter_mut())
        .map(|(p, w)| (p.as_path(), Links::Follow, w as &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>))
        .collect();
    write_set(&mut set)?;
    out.document(&doc)?;
    Ok(ExitCode::SUCCESS)
}

fn run_examples_once(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    let runs = examples::run(args.device.unwrap_or(0), Plan::PROFILE, &mut |name| out.info(&format!("running {name}")))
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
        banner: if args.bundled {
            format!("Showing the bundled data of an {BUNDLED_ABOUT} (--bundled was given).")
        } else {
            format!(
                "No GPU here ({why}): showing the bundled data of an {BUNDLED_ABOUT}. Run `roofline tour` on a machine with an NVIDIA GPU to measure your own."
            )
        },
        bundled: true,
        data: if args.bundled {
            format!("bundled (--bundled): {BUNDLED_DATA}")
        } else {
            format!("bundled, no GPU here: {BUNDLED_DATA}")
        },
        machine,
        analysis,
        method: "roofs: `roofline bench --quick` on the H200; kernels: Nsight Compute counters (FLOPs per precision, bytes at DRAM, L2 and L1, duration from the same run)".into(),
        files: vec![capture_file],
    })
}

fn ncu_analysis(cap: &RawCapture, machine: &Machine, detail: &str) -> AnalysisDocument {
    let captured = capture(cap, &NcuOptions { convention: ByteConvention::Ncu, per_launch: false });
    let a = analyze_capture(&captured, Some(machine));
    let mut doc = AnalysisDocument::new(
        Producer::new("roofline tour"),
        AnalysisSource::of(&captured.source, detail),
        a.machine,
        a.kernels,
    );
    doc.warnings = a.warnings;
    doc
}

fn live(args: &Args, d: usize, out: &Output) -> anyhow::Result<Tour> {
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
            let (metrics, _) = metric_list(&ncu, None);
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
                read_back: Vec::new(),
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
            // ncu's own report, for Nsight Compute's GUI.
            files.push(run.report_file());
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
            let analyses = roofline_analysis::analyze(&machine.machine, &kernels);
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
    let data = format!(
        "measured now on this GPU (device {d}): roofs by bench --quick, kernels by {}",
        if analysis.source.kind == "ncu" { "Nsight Compute" } else { "CUDA events" }
    );
    Ok(Tour {
        banner: format!("Measured on this GPU: {name} (device {d})."),
        bundled: false,
        data,
        machine,
        analysis,
        method,
        files,
    })
}

#[cfg(test)]
mod bundled_tests {
    use super::*;

    #[test]
    fn the_bundled_data_is_said_to_be_of_the_day_it_was_measured() {
        let machine: serde_json::Value = serde_json::from_str(BUNDLED_MACHINE).unwrap();
        let created = machine["producer"]["created"].as_str().unwrap();
        let day = &created[..10];
        assert!(BUNDLED_ABOUT.ends_with(&format!("measured on {day}")), "{BUNDLED_ABOUT} vs {created}");
        assert!(BUNDLED_DATA.contains(&format!("on {day} by")), "{BUNDLED_DATA} vs {created}");
        let driver = machine["measurements"]["nvml"]["driver_version"].as_str().unwrap();
        assert!(BUNDLED_ABOUT.contains(&format!("driver {driver}")), "{BUNDLED_ABOUT} vs driver {driver}");
    }
}
