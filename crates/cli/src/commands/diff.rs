//! `roofline diff BEFORE AFTER`: per kernel, what changed in time,
//! intensity and % of roof, with a chart of arrows from before to after.

use std::path::PathBuf;
use std::process::ExitCode;

use roofline_core::diff::{diff, Pairing};
use roofline_report::diff::{diff_csv, diff_markdown, diff_svg, diff_text};
use roofline_report::html::diff_html;
use roofline_report::svg::ChartOptions;
use roofline_report::Format;

use crate::analysis_file::{extension, read_analysis_file};
use crate::error::bad_input;
use crate::output::Output;

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  roofline diff before.json after.json
  roofline diff before.json after.json --match scale+add=fused -o diff.html
  roofline diff before.json after.json --format markdown >> \"$GITHUB_STEP_SUMMARY\"

Kernels are matched by name. A rewrite that renames or fuses kernels is
paired with --match BEFORE=AFTER (several names joined by '+'). The last row
always compares all kernels together. With -o, the extension picks the
file: .html (page with the chart), .svg (chart), .md, .json, .csv.")]
pub struct Args {
    /// The analysis before the change.
    #[arg(value_name = "BEFORE")]
    pub before: PathBuf,

    /// The analysis after the change.
    #[arg(value_name = "AFTER")]
    pub after: PathBuf,

    /// Pair kernels that changed names: OLD=NEW, or A+B=FUSED (repeatable).
    #[arg(long = "match", value_name = "BEFORE=AFTER")]
    pub pairings: Vec<String>,

    /// Title of the chart.
    #[arg(long)]
    pub title: Option<String>,
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    out.protect_inputs(&[], &[("BEFORE", &args.before), ("AFTER", &args.after)])?;
    let pairings = args.pairings.iter().map(|p| Pairing::parse(p)).collect::<Result<Vec<_>, _>>().map_err(bad_input)?;
    let before = read_analysis_file(&args.before)?;
    let after = read_analysis_file(&args.after)?;
    let d = diff(&before, &after, &pairings).map_err(bad_input)?;
    let opts = ChartOptions { title: args.title.clone(), ..ChartOptions::default() };
    let render = |format: Format| -> anyhow::Result<String> {
        Ok(match format {
            Format::Table => diff_text(&d),
            Format::Markdown => diff_markdown(&d),
            Format::Json => serde_json::to_string_pretty(&d)? + "\n",
            Format::Csv => diff_csv(&d)?,
        })
    };
    if let Some(path) = &out.file {
        let body = match extension(path).as_deref() {
            Some("html" | "htm") => diff_html(&before, &after, &d, &opts)?,
            Some("svg") => diff_svg(&before, &after, &d, &opts),
            Some("md" | "markdown") => render(Format::Markdown)?,
            Some("json") => render(Format::Json)?,
            Some("csv") => render(Format::Csv)?,
            _ => render(out.format)?,
        };
        let written = out.write_file("-o", path, body.as_bytes());
        out.stdout(&render(out.format)?)?;
        written?;
        return Ok(ExitCode::SUCCESS);
    }
    out.stdout(&render(out.format)?)?;
    Ok(ExitCode::SUCCESS)
}
