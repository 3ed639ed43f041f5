//! `roofline report`: an analysis as something to look at: a self-contained
//! HTML page (charts, sortable kernel table, roofs and their provenance,
//! method), Markdown for CI job summaries, the SVG chart alone, or the
//! chart drawn in the terminal.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use roofline_analysis::KernelAnalysis;
use roofline_documents::{AnalysisDocument, StreamedAnalysis};
use roofline_report::{chart_notes, ChartOptions, Describe, Format, InstructionView, PageKernels, Paged};
use serde::Serialize;

use crate::analysis_file::{read_input, AnalysisInput};
use crate::error::bad_input;
use crate::output::{Body, JsonDocument, Output, ViewArg};

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  roofline report analysis.json -o report.html     the HTML report
  roofline report analysis.json > report.html      the same, on stdout
  roofline report analysis.json --format markdown >> \"$GITHUB_STEP_SUMMARY\"
  roofline report analysis.json -o chart.svg       the chart alone
  roofline report analysis.json --format chart     the chart in the terminal (also: terminal)
  roofline report analysis.json --view instructions -o inst.html
                                                   the instruction roofline: each kernel's binding pipe

The kind of file written with -o follows its extension: .html, .md, .svg,
.json; otherwise --format decides (markdown, json, csv, chart; table means HTML).")]
pub struct Args {
    /// An analysis (roofline.analysis/v2 JSON, from `roofline model`,
    /// `import` or `profile` with --format json or -o FILE.json), or a job
    /// of several ranks (roofline.merged/v1, from `roofline merge`), or a
    /// machine (roofline.machine/v2, from `roofline bench -o` or `peaks -o`:
    /// its roofs, link roofs included, in any format).
    #[arg(value_name = "ANALYSIS")]
    pub analysis: PathBuf,

    /// Also write the SVG chart to this file.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// Title of the chart (default: "Roofline of <machine>").
    #[arg(long)]
    pub title: Option<String>,

    /// The roofline to show: flops, instructions (each kernel's binding
    /// pipe against its roof; needs instruction counters), or auto (the
    /// instruction roofline too, for the kernels FLOPs do not explain).
    #[arg(long, value_enum, default_value_t = ViewArg::Flops)]
    pub view: ViewArg,

    /// Width of the chart in pixels [default: 960].
    #[arg(long, value_parser = clap::value_parser!(u32).range(480..=4000))]
    pub width: Option<u32>,

    #[command(flatten)]
    pub filter: crate::kernel_filter::KernelFilterArgs,

    #[command(flatten)]
    pub group: crate::kernel_filter::GroupByArgs,
}

impl Args {
    fn chart_width(&self) -> u32 {
        self.width.unwrap_or(960)
    }
}

/// Chart notes printed on stderr at most; the page holds them all.
const CHART_NOTES_SHOWN: usize = 10;

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    let svg: Vec<(&str, &std::path::Path)> = args.svg.iter().map(|p| ("--svg", p.as_path())).collect();
    out.protect_inputs(&svg, &[("ANALYSIS", &args.analysis)])?;
    if let Some(path) = &args.svg {
        if Format::from_path(path) != Some(Format::Svg) {
            return Err(bad_input(format!("--svg {}: expected a file name ending in .svg", path.display())));
        }
    }
    let page = out.preferring(Format::Html);
    if !page.draws_chart() && args.svg.is_none() {
        let given: Vec<&str> = [(args.title.is_some(), "--title"), (args.width.is_some(), "--width")]
            .iter()
            .filter_map(|(g, f)| g.then_some(*f))
            .collect();
        if !given.is_empty() {
            return Err(bad_input(format!(
                "{} shape(s) the chart, which this output has none of: write .html or .svg (-o), or --format html",
                given.join(" and ")
            )));
        }
    }
    let filter = args.filter.filter()?;
    if filter.is_none() && args.group.group_by.is_none() && args.view == ViewArg::Flops {
        if let Some(done) = streamed(args, out)? {
            return Ok(done);
        }
    }
    let mut input = match read_input(&args.analysis) {
        Ok(i) => i,
        Err(e) => match machine_document(&args.analysis)? {
            Some(m) if filter.is_none() => return emit(&m, &m, None, args, out),
            Some(_) => return Err(bad_input("--kernels: a machine document has no kernels to choose from")),
            None => return Err(e),
        },
    };
    if args.group.group_by.is_some() {
        match &mut input {
            AnalysisInput::One(doc) => args.group.apply(doc),
            AnalysisInput::Job(_) => {
                return Err(bad_input(
                    "--group-by: a merged job's program view is the job's; group one rank's analysis",
                ))
            }
        }
    }
    if let Some(f) = &filter {
        match &mut input {
            AnalysisInput::One(doc) => {
                f.document(doc, &args.analysis.display().to_string())?;
                args.group.apply(doc);
            }
            AnalysisInput::Job(_) => return Err(bad_input(
                "--kernels: a merged job's ranks are shown whole; filter one rank's analysis (or its import) instead",
            )),
        }
    }
    match &input {
        AnalysisInput::One(whole) => {
            // A page shows the kernels with the most time of a huge analysis; JSON and CSV all of them.
            let page = roofline_report::page_view(whole);
            let page_doc = page.as_ref().unwrap_or(whole);
            warn_chart_notes(page_doc, args.view, out);
            let name = args.analysis.display().to_string();
            let viewed = |d| InstructionView::new(d, args.view.into(), &name).map_err(bad_input);
            emit(&viewed(whole)?, &viewed(page_doc)?, None, args, out)
        }
        AnalysisInput::Job(job) => {
            if args.view != ViewArg::Flops {
                return Err(bad_input(format!(
                    "--view {}: a merged job is shown on the FLOP roofline; give one rank's analysis for the instruction roofline",
                    if args.view == ViewArg::Instructions { "instructions" } else { "auto" }
                )));
            }
            warn_chart_notes(&job.job, ViewArg::Flops, out);
            emit(job.as_ref(), job.as_ref(), None, args, out)
        }
    }
}

/// The format the whole analysis would be written in ([`emit`]'s `whole`):
/// JSON or CSV, or none when only a page or the terminal is.
fn whole_format(out: &Output) -> Option<Format> {
    let out = out.preferring(Format::Html);
    let format = match (&out.file, out.file_format()) {
        (Some(_), Some(f)) => f,
        _ => out.format,
    };
    matches!(format, Format::Json | Format::Csv).then_some(format)
}

/// `report` of an analysis read kernel by kernel
/// (`roofline_documents::stream_analysis`), holding what its output needs:
/// the page's kernels with the most time (`PageKernels`), and for CSV every
/// kernel without what no table shows (profiler evidence, level caveats,
/// instruction view); JSON reads the kernels again as it writes them
/// (`StreamedAnalysis`). `None` when the file is not read so (a merged job,
/// an older version, a document with an error): it is then read whole.
fn streamed(args: &Args, out: &Output) -> anyhow::Result<Option<ExitCode>> {
    let Some(open) = crate::analysis_file::reopenable(&args.analysis) else { return Ok(None) };
    let whole = whole_format(out);
    let mut page = PageKernels::new();
    let mut lean = Vec::new();
    let keep = |i, k: KernelAnalysis| {
        page.push(i, &k);
        if whole == Some(Format::Csv) {
            lean.push(for_tables(k));
        }
    };
    // JSON is compared with the text as it is read: when they are the same
    // bytes (a document this version wrote), the text is copied out.
    let mut as_written = false;
    let read = if whole == Some(Format::Json) {
        roofline_documents::stream_analysis_as_written(&open, keep).map(|(doc, n, same)| {
            as_written = same;
            (doc, n)
        })
    } else {
        open().and_then(|stream| roofline_documents::stream_analysis(stream, keep))
    };
    let Some((head, count)) = read else { return Ok(None) };
    if count == 0 {
        return Err(crate::analysis_file::no_kernels(&args.analysis));
    }
    let name = args.analysis.display().to_string();
    let viewed = |d| InstructionView::new(d, args.view.into(), &name).map_err(bad_input);
    let page_doc = match page.finish(&head) {
        // All of it fits a page: as if read whole.
        Paged::Whole(doc) => {
            warn_chart_notes(&doc, args.view, out);
            let v = viewed(&doc)?;
            return emit(&v, &v, None, args, out).map(Some);
        }
        Paged::Page(page_doc) => page_doc,
    };
    warn_chart_notes(&page_doc, args.view, out);
    let shown = viewed(&page_doc)?;
    match whole {
        Some(Format::Csv) => {
            let all = AnalysisDocument { kernels: lean, ..head };
            emit(&viewed(&all)?, &shown, None, args, out).map(Some)
        }
        Some(Format::Json) if as_written => emit(&shown, &shown, Some(&Verbatim(&open)), args, out).map(Some),
        Some(Format::Json) => {
            let json = Rewritten { doc: StreamedAnalysis { head: &head, kernels: count, open: &open }, shown: &shown };
            emit(&json, &shown, None, args, out).map(Some)
        }
        _ => emit(&shown, &shown, None, args, out).map(Some),
    }
}

/// An analysis written out as its own text, which is what serde would write.
struct Verbatim<'a, F>(&'a F);

impl<F: Fn() -> Option<crate::input_file::TextStream>> JsonDocument for Verbatim<'_, F> {
    fn write_json(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let gone = || std::io::Error::other("the analysis could not be read again");
        let mut text = (self.0)().ok_or_else(gone)?;
        std::io::copy(&mut text, w).map(|_| ())
    }
}

/// A kernel with only what the tables of a flops view show: no profiler
/// evidence, level caveats, instruction view or diagnostic findings (the
/// page's diagnoses and charts read those, from the page's kernels).
fn for_tables(k: KernelAnalysis) -> KernelAnalysis {
    KernelAnalysis {
        kernel: roofline_model::Kernel { evidence: Default::default(), unmeasured: Default::default(), ..k.kernel },
        instructions: None,
        diagnosis: k.diagnosis.map(|d| roofline_analysis::Diagnosis { evidence: Vec::new(), ..d }),
        ..k
    }
}

/// A streamed analysis written as JSON ([`StreamedAnalysis`]); as a view
/// (which `emit` never asks of JSON), its page.
struct Rewritten<'a, F> {
    doc: StreamedAnalysis<'a, F>,
    shown: &'a InstructionView<'a>,
}

impl<R: std::io::Read, F: Fn() -> Option<R>> Serialize for Rewritten<'_, F> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.doc.serialize(s)
    }
}

impl<F> Describe for Rewritten<'_, F> {
    fn title(&self) -> String {
        self.shown.title()
    }

    fn sections(&self) -> Vec<roofline_report::Section> {
        self.shown.sections()
    }
}

fn warn_chart_notes(doc: &AnalysisDocument, view: ViewArg, out: &Output) {
    let notes = match view {
        ViewArg::Instructions => roofline_report::instruction_chart_model(doc, None, None).notes,
        _ => chart_notes(doc),
    };
    for note in notes.iter().take(CHART_NOTES_SHOWN) {
        out.warn(note);
    }
    if notes.len() > CHART_NOTES_SHOWN {
        out.warn(&format!("{} more such notes are on the page", notes.len() - CHART_NOTES_SHOWN));
    }
}

/// The file as a machine document, when it is one (its roofs are shown
/// as `bench` and `peaks` show them, in every format). A file that says it
/// is a machine document but does not read as one is refused with the
/// machine reader's own error (the field and the fix), not as "expected an
/// analysis".
fn machine_document(path: &std::path::Path) -> anyhow::Result<Option<roofline_documents::MachineDocument>> {
    // Bounded, as the analysis was: `/dev/zero` must not be read to the end.
    let Ok(text) = crate::input_file::read_text(path, roofline_documents::MACHINE_SCHEMA) else { return Ok(None) };
    if roofline_documents::schema_of(&text).as_deref() != Some(roofline_documents::MACHINE_SCHEMA) {
        return Ok(None);
    }
    roofline_documents::read_machine(&text, &path.display().to_string()).map(Some).map_err(bad_input)
}

/// Renders a document as the report: a page to a file, or text on stdout.
/// `whole` goes to JSON and CSV; `page_doc` (the kernels with the most
/// time, for a huge analysis) to the pages and the terminal.
/// `json`, when given, is what JSON is written from instead of `whole`.
fn emit<W: Describe + Serialize, P: Describe + Serialize>(
    whole: &W,
    page_doc: &P,
    json: Option<&dyn JsonDocument>,
    args: &Args,
    out: &Output,
) -> anyhow::Result<ExitCode> {
    let is_whole = |f: Format| matches!(f, Format::Json | Format::Csv);
    let mut out = out.preferring(Format::Html);
    out.render.chart =
        ChartOptions { width: args.chart_width() as f64, title: args.title.clone(), ..ChartOptions::default() };
    // A page is not for a terminal: without -o it goes to a file.
    let default_file = out.file.is_none() && out.format == Format::Html && std::io::stdout().is_terminal();
    let target = match (&out.file, out.file_format()) {
        (Some(path), Some(format)) => Some((path.clone(), format)),
        _ if default_file => Some((PathBuf::from("roofline-report.html"), Format::Html)),
        _ => None,
    };
    if let (true, Some((path, _))) = (default_file, &target) {
        out.protect_inputs(&[("the default report file", path)], &[("ANALYSIS", &args.analysis)])?;
        // A name the user never typed: never through a link, never over a
        // file roofline did not write (Output::write).
        out = out.with_implicit_file(path);
    }
    // Everything is rendered before anything is written.
    let mut files = Vec::new();
    if let Some(path) = &args.svg {
        files.extend(out.files(page_doc, path, Format::Svg)?);
    }
    let stdout = match (&target, json) {
        (Some((path, Format::Json)), Some(json)) => {
            files.push((path.clone(), Body::Json(json)));
            None
        }
        (Some((path, format)), _) if is_whole(*format) => {
            files.extend(out.files(whole, path, *format)?);
            None
        }
        (Some((path, format)), _) => {
            files.extend(out.files(page_doc, path, *format)?);
            None
        }
        (None, Some(json)) if out.format == Format::Json => Some(Body::Json(json)),
        (None, _) if is_whole(out.format) => Some(out.rendered(whole, out.format)?.into()),
        (None, _) => Some(out.rendered(page_doc, out.format)?.into()),
    };
    out.write(&files)?;
    if default_file {
        out.info("(give -o FILE for another name, or redirect stdout)");
    }
    if let Some(body) = stdout {
        out.stdout_body(&body)?;
    }
    Ok(ExitCode::SUCCESS)
}
