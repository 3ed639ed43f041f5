//! `roofline import FILE`: the roofline analysis of a capture Nsight
//! Compute already wrote: a raw CSV (`ncu --csv --page raw`, any metric set
//! with the needed counters, `--set full` included) or a `.ncu-rep` report
//! (exported through `ncu --import` when ncu is installed), or a PyTorch
//! profiler trace recorded with `record_shapes=True` (`.json`, `.json.gz`),
//! whose kernels' FLOPs and bytes are estimated from their operators'
//! shapes (roofline_shapes), optionally checked against a counter capture
//! of the same program (`--with-counters`).

use std::path::Path;
use std::process::ExitCode;

use roofline_analysis::analyze_capture;
use roofline_documents::RankInfo;
use roofline_documents::{AnalysisDocument, AnalysisSource, Producer};
use roofline_model::Capture;
use roofline_ncu::{capture, Kernels, Options, RawCapture, ReportError};

use crate::error::bad_input;

mod args;
mod per_launch;
mod source;

use crate::output::Output;
pub use args::{AnalysisArgs, Args};
use source::{read_csv_with, SourceKind};

/// The capture in `path`, read by the source its kind names.
fn read_source(path: &Path, ncu: Option<&Path>, opts: &Options, machine_given: bool) -> anyhow::Result<Capture> {
    match SourceKind::of(path) {
        SourceKind::NcuReport => Ok(capture(&read_report(path, ncu)?, opts)),
        SourceKind::NcuCsv => read_csv(path, opts),
        SourceKind::PytorchTrace => Ok(read_trace(path, machine_given)?.capture),
    }
}

/// Reads a PyTorch trace and estimates its kernels (roofline_shapes); the
/// roofs are the theoretical ones of the GPU the trace names, unless a
/// machine is given.
fn read_trace(path: &Path, machine_given: bool) -> anyhow::Result<roofline_shapes::ShapesCapture> {
    let trace = roofline_shapes::read_trace_file(path).map_err(bad_input)?;
    let input = path.display().to_string();
    let mut sc = roofline_shapes::estimate_capture(&trace, &input);
    match trace.device_name.as_deref().map(|n| (n, roofline_hw::find_by_device_name(n))) {
        Some((_, Some(g))) => sc.capture.roofs = Some(roofline_hw::theoretical_machine(&g.attributes())?),
        _ if machine_given => {}
        Some((name, None)) => sc.capture.warnings.push(roofline_model::Warning::Capture {
            message: format!(
                "{input}: the trace's GPU, {name:?}, is not in the built-in table; judge it with --gpu NAME or --machine FILE (`roofline bench -o`)"
            ),
        }),
        None => sc.capture.warnings.push(roofline_model::Warning::Capture {
            message: format!("{input}: the trace names no GPU (no deviceProperties); judge it with --gpu NAME or --machine FILE"),
        }),
    }
    Ok(sc)
}

/// `import TRACE --with-counters CAPTURE`: the estimates against the counters.
fn compare_with_counters(
    trace: &Path,
    counters: &Path,
    opts: &Options,
    args_machine: Option<roofline_model::Machine>,
    out: &Output,
) -> anyhow::Result<()> {
    if SourceKind::of(counters) != SourceKind::NcuCsv {
        return Err(bad_input(format!(
            "--with-counters {}: expected a raw CSV written by `ncu --csv --page raw` (export a .ncu-rep with `ncu --import FILE --csv --page raw --print-units base`)",
            counters.display()
        )));
    }
    let sc = read_trace(trace, args_machine.is_some())?;
    let per_launch = Options { per_launch: true, ..opts.clone() };
    let counted = read_csv(counters, &per_launch)?;
    let kernels: Vec<roofline_model::Kernel> = counted.kernels.into_iter().map(|k| k.kernel).collect();
    // The side of the ridge is judged against the machine given, else the
    // theoretical roofs of the trace's GPU.
    let machine = match args_machine {
        Some(m) => m,
        None => sc.capture.roofs.clone().unwrap_or_default(),
    };
    let c = roofline_shapes::compare::compare(&sc.launches, &kernels, &machine);
    out.info(&format!(
        "{} of {} counter launch(es) matched a trace launch ({} with an estimate)",
        c.pairs.len(),
        c.counter_launches,
        c.pairs.iter().filter(|p| p.class.is_some()).count()
    ));
    let doc =
        roofline_report::ComparisonDocument::new(&trace.display().to_string(), &counters.display().to_string(), &c);
    out.document(&doc)
}

/// Reads a .ncu-rep through `ncu --import` (roofline_ncu::read_report);
/// what ncu said goes to stderr.
fn read_report(path: &Path, ncu: Option<&Path>) -> anyhow::Result<RawCapture> {
    let exported = roofline_ncu::read_report(path, ncu).map_err(|e| match e {
        ReportError::BadInput(m) => bad_input(m),
        e => anyhow::Error::new(e),
    })?;
    if !exported.messages.is_empty() {
        crate::streams::message(&exported.messages);
    }
    exported.capture.map_err(bad_input)
}

/// Reads a CSV capture from a file or stdin, gzipped or not (`app.csv.gz`,
/// told by its first bytes, not its name), summing each launch into its
/// kernel as it is read: no launch is held, so memory grows with the
/// kernels, not the launches.
pub fn read_csv(path: &Path, opts: &Options) -> anyhow::Result<Capture> {
    let mut kernels = Kernels::new(opts);
    let read = read_csv_with(path, |l| kernels.add(&l))?;
    Ok(kernels.capture(&read))
}

/// Analyses a capture and prints it; warnings go to stderr and into the
/// document. `created` is when the capture was taken, when known (a
/// `profile` run; an imported file does not say); `rank` is the rank of a
/// multi-process job the capture came from, under a launcher.
pub fn report(
    cap: &Capture,
    args: &AnalysisArgs,
    command: &str,
    detail: &str,
    created: Option<String>,
    rank: Option<RankInfo>,
    out: &Output,
) -> anyhow::Result<()> {
    report_with(cap, args, command, detail, created, rank, out, |_| {})
}

/// [`report`], with `adjust` applied to the document before it is written
/// (profile's two passes put the timeline's program view in).
#[allow(clippy::too_many_arguments)]
pub fn report_with(
    captured: &Capture,
    args: &AnalysisArgs,
    command: &str,
    detail: &str,
    created: Option<String>,
    rank: Option<RankInfo>,
    out: &Output,
    adjust: impl FnOnce(&mut AnalysisDocument),
) -> anyhow::Result<()> {
    let machine = args.machine.resolve()?;
    let doc = analysis_document(captured, machine.as_ref(), command, detail, created, rank);
    // The terminal table lists the warnings itself; other formats carry
    // them in the document, and stderr says them once.
    if !out.table_on_stdout() {
        for w in &doc.warnings {
            out.warn(&w.to_string());
        }
    }
    let mut doc = doc;
    out.check_analysis(&doc)?;
    out.info(&format!("{} launch(es) of {} kernel(s) analysed", captured.launches, doc.kernels.len()));
    adjust(&mut doc);
    out.analysis(&doc, None, args.view, detail)
}

/// The analysis document of a capture, placed as a whole (the oracle of the
/// streamed `--per-launch` path, `per_launch`).
fn analysis_document(
    captured: &Capture,
    machine: Option<&roofline_model::Machine>,
    command: &str,
    detail: &str,
    created: Option<String>,
    rank: Option<RankInfo>,
) -> AnalysisDocument {
    let a = analyze_capture(captured, machine);
    let mut producer = Producer::new(command);
    producer.created = created;
    let mut doc = AnalysisDocument::new(producer, AnalysisSource::of(&captured.source, detail), a.machine, a.kernels);
    doc.warnings = a.warnings;
    doc.rank = rank;
    doc
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    let kind = SourceKind::of(&args.file);
    if let (Some(ncu), SourceKind::NcuCsv | SourceKind::PytorchTrace) = (&args.ncu, kind) {
        return Err(bad_input(format!(
            "--ncu {}: ncu is only needed to read a .ncu-rep report, and {} is not one; leave --ncu out",
            ncu.display(),
            args.file.display()
        )));
    }
    if kind == SourceKind::PytorchTrace && args.analysis.per_launch {
        return Err(bad_input(format!(
            "--per-launch: the kernels of a PyTorch trace ({}) are analysed one per kernel name; leave --per-launch out",
            args.file.display()
        )));
    }
    if let (Some(c), false) = (&args.with_counters, kind == SourceKind::PytorchTrace) {
        return Err(bad_input(format!(
            "--with-counters {}: compares a PyTorch trace's estimates with counters, and {} is not a trace (.json or .json.gz); import the trace with --with-counters CAPTURE",
            c.display(),
            args.file.display()
        )));
    }
    let mut inputs = vec![("FILE", args.file.as_path())];
    inputs.extend(args.analysis.machine.machine.iter().map(|m| ("--machine", m.as_path())));
    inputs.extend(args.ncu.iter().map(|n| ("--ncu", n.as_path())));
    inputs.extend(args.with_counters.iter().map(|n| ("--with-counters", n.as_path())));
    out.protect_inputs(&[], &inputs)?;
    if let Some(counters) = &args.with_counters {
        compare_with_counters(&args.file, counters, &args.analysis.options(), args.analysis.machine.resolve()?, out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let filter = args.filter.filter()?;
    if per_launch::streams(args, kind, filter.is_some(), out) {
        per_launch::run(args, out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let machine_given = args.analysis.machine.resolve()?.is_some();
    let mut cap = read_source(&args.file, args.ncu.as_deref(), &args.analysis.options(), machine_given)?;
    let input = args.file.display().to_string();
    if let Some(f) = &filter {
        f.capture(&mut cap, &input)?;
    }
    let detail = match kind {
        SourceKind::PytorchTrace => format!("{input} (FLOPs and bytes estimated from shapes, not counted)"),
        _ => input.clone(),
    };
    let command = format!("roofline import {input}");
    report_with(&cap, &args.analysis, &command, &detail, None, None, out, |doc| args.group.apply(doc))?;
    Ok(ExitCode::SUCCESS)
}
