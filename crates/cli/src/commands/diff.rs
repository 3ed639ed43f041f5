//! `roofline diff BEFORE AFTER`: per kernel, what changed in time,
//! intensity and % of roof, with a chart of arrows from before to after.

use std::path::PathBuf;
use std::process::ExitCode;

use roofline_documents::{diff, Pairing};
use roofline_report::DiffDocument;

use crate::analysis_file::read_placements_file;
use crate::error::bad_input;
use crate::output::Output;

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  roofline diff before.json after.json
  roofline diff before.json after.json --match scale+add=fused -o diff.html
  roofline diff before.json after.json --format markdown >> \"$GITHUB_STEP_SUMMARY\"

Kernels are matched by name. A rewrite that renames or fuses kernels is
paired with --match BEFORE=AFTER (several names joined by '+'). The last row
always compares all kernels together. A time that changed by less than 1%
reads \"same within noise\": two Nsight Compute captures of one unchanged
program differ by about that much; with --per-launch analyses, so does a
change within the spread of the kernel's launches (\"same within noise
(±3.2%)\"). With -o, the extension picks the
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
    if args.title.is_some() && !out.draws_chart() {
        return Err(bad_input(
            "--title names the chart, which this output has none of: write .html or .svg (-o), or --format html",
        ));
    }
    let pairings = args.pairings.iter().map(|p| Pairing::parse(p)).collect::<Result<Vec<_>, _>>().map_err(bad_input)?;
    let before = read_placements_file(&args.before)?;
    let after = read_placements_file(&args.after)?;
    let d = diff(&before, &after, &pairings).map_err(bad_input)?;
    let mut out = out.clone();
    out.render.chart.title = args.title.clone();
    let page = roofline_report::page_diff(&d);
    let page_doc = page.as_ref().map(|p| DiffDocument { before: &before, after: &after, diff: p });
    out.document_for_people(&DiffDocument { before: &before, after: &after, diff: &d }, page_doc.as_ref())?;
    Ok(ExitCode::SUCCESS)
}
