//! `roofline report`: an analysis as something to look at: a self-contained
//! HTML page (charts, sortable kernel table, roofs and their provenance,
//! method), Markdown for CI job summaries, the SVG chart alone, or the
//! chart drawn in the terminal.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use roofline_documents::AnalysisDocument;
use roofline_report::{chart_notes, ChartOptions, Describe, Format, InstructionView};
use serde::Serialize;

use crate::analysis_file::{read_input, AnalysisInput};
use crate::error::bad_input;
use crate::output::{Output, ViewArg};

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
    let mut input = match read_input(&args.analysis) {
        Ok(i) => i,
        Err(e) => match machine_document(&args.analysis)? {
            Some(m) if filter.is_none() => return emit(&m, &m, args, out),
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
            emit(&viewed(whole)?, &viewed(page_doc)?, args, out)
        }
        AnalysisInput::Job(job) => {
            if args.view != ViewArg::Flops {
                return Err(bad_input(format!(
                    "--view {}: a merged job is shown on the FLOP roofline; give one rank's analysis for the instruction roofline",
                    if args.view == ViewArg::Instructions { "instructions" } else { "auto" }
                )));
            }
            warn_chart_notes(&job.job, ViewArg::Flops, out);
            emit(job.as_ref(), job.as_ref(), args, out)
        }
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
fn emit<D: Describe + Serialize>(whole: &D, page_doc: &D, args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    let doc_for = |f: Format| if matches!(f, Format::Json | Format::Csv) { whole } else { page_doc };
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
    let stdout = match &target {
        Some((path, format)) => {
            files.extend(out.files(doc_for(*format), path, *format)?);
            None
        }
        None => Some(out.rendered(doc_for(out.format), out.format)?),
    };
    out.write(&files)?;
    if default_file {
        out.info("(give -o FILE for another name, or redirect stdout)");
    }
    if let Some(text) = stdout {
        out.stdout(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}
