//! `roofline report`: an analysis as something to look at: a self-contained
//! HTML page (charts, sortable kernel table, roofs and their provenance,
//! method), Markdown for CI job summaries, or the SVG chart alone.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use roofline_core::schema::MachineDocument;
use roofline_report::html::report_html;
use roofline_report::svg::{chart_notes, roofline_svg, ChartOptions};
use roofline_report::{exporter, write_atomic, Format};

use crate::analysis_file::{extension, read_analysis_file};
use crate::error::bad_input;
use crate::output::Output;

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  roofline report analysis.json -o report.html     the HTML report
  roofline report analysis.json > report.html      the same, on stdout
  roofline report analysis.json --format markdown >> \"$GITHUB_STEP_SUMMARY\"
  roofline report analysis.json -o chart.svg       the chart alone

The kind of file written with -o follows its extension: .html, .md, .svg,
.json; otherwise --format decides (markdown, json, csv; table means HTML).")]
pub struct Args {
    /// An analysis (roofline.analysis/v1 JSON, from `roofline model`,
    /// `import` or `profile` with --format json or -o FILE.json).
    #[arg(value_name = "ANALYSIS")]
    pub analysis: PathBuf,

    /// Also write the SVG chart to this file.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// Title of the chart (default: "Roofline of <machine>").
    #[arg(long)]
    pub title: Option<String>,

    /// Width of the chart in pixels.
    #[arg(long, default_value_t = 960, value_parser = clap::value_parser!(u32).range(480..=4000))]
    pub width: u32,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Html,
    Svg,
    Other(Format),
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    let svg: Vec<(&str, &std::path::Path)> = args.svg.iter().map(|p| ("--svg", p.as_path())).collect();
    out.protect_inputs(&svg, &[("ANALYSIS", &args.analysis)])?;
    let doc = read_analysis_file(&args.analysis)?;
    for note in chart_notes(&doc) {
        out.warn(&note);
    }
    let opts = ChartOptions { width: args.width as f64, title: args.title.clone(), ..ChartOptions::default() };
    let stdout_kind = match out.format {
        Format::Table => Kind::Html,
        f => Kind::Other(f),
    };
    let render = |kind: Kind| -> anyhow::Result<String> {
        Ok(match kind {
            Kind::Html => report_html(&doc, &opts)?,
            Kind::Svg => roofline_svg(&doc, &opts),
            Kind::Other(Format::Markdown) => markdown(&doc)?,
            Kind::Other(f) => exporter(f).analysis(&doc)?,
        })
    };
    if let Some(path) = &args.svg {
        if extension(path).as_deref() != Some("svg") {
            return Err(bad_input(format!("--svg {}: expected a file name ending in .svg", path.display())));
        }
    }
    let file_kind = out.file.as_ref().map(|p| match extension(p).as_deref() {
        Some("html" | "htm") => Kind::Html,
        Some("svg") => Kind::Svg,
        Some("md" | "markdown") => Kind::Other(Format::Markdown),
        Some("json") => Kind::Other(Format::Json),
        Some("csv") => Kind::Other(Format::Csv),
        _ => stdout_kind,
    });
    // Everything is rendered before anything is written.
    let file_body = file_kind.map(render).transpose()?;
    let svg_body = args.svg.as_ref().map(|_| roofline_svg(&doc, &opts));
    if let (Some(path), Some(body)) = (&args.svg, &svg_body) {
        out.write_file("--svg", path, body.as_bytes())?;
    }
    match (&out.file, file_body) {
        (Some(path), Some(body)) => out.write_file("-o", path, body.as_bytes())?,
        _ if stdout_kind == Kind::Html && std::io::stdout().is_terminal() => {
            let path = PathBuf::from("roofline-report.html");
            out.protect_inputs(&[("the default report file", &path)], &[("ANALYSIS", &args.analysis)])?;
            write_atomic(&path, render(Kind::Html)?.as_bytes())?;
            out.info(&format!("wrote {} (give -o FILE for another name, or redirect stdout)", path.display()));
        }
        _ => out.stdout(&render(stdout_kind)?)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The kernel table and the roofs in Markdown, for a CI job summary.
fn markdown(doc: &roofline_core::schema::AnalysisDocument) -> anyhow::Result<String> {
    let md = exporter(Format::Markdown);
    let mut s = md.analysis(doc)?;
    s.push('\n');
    s.push_str(&md.machine(&MachineDocument::new(doc.machine.clone(), doc.producer.clone()))?);
    for note in chart_notes(doc) {
        s.push_str(&format!("\n> note: {note}\n"));
    }
    s.push_str(&format!(
        "\n<sub>Kernels from {} ({}); written by {} {}. Roof = min(compute peak, intensity x bandwidth) over the memory levels; % of roof = achieved / roof.</sub>\n",
        doc.source.kind,
        if doc.source.detail.is_empty() { "-" } else { &doc.source.detail },
        doc.producer.tool,
        doc.producer.version
    ));
    Ok(s)
}
