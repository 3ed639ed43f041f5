//! `roofline merge RANK_FILES... -o job.json`: the analyses a job's ranks
//! wrote (one per rank, from `roofline profile` under torchrun, mpirun or
//! srun) as one document with a rank dimension (`roofline.merged/v1`):
//! each rank's GPU time split into compute, memory and communication, each
//! kernel's spread over the ranks and its slowest rank, and the job as one
//! analysis that `report`, `check` and `diff` take like any other.
//!
//! Files are read one at a time and folded in, so memory follows the
//! number of distinct kernels times ranks, not the files' size.

use std::path::PathBuf;
use std::process::ExitCode;

use roofline_core::merge::{MergeError, Merger};
use roofline_core::schema::{read_analysis, read_machine, Producer, ANALYSIS_SCHEMA};

use crate::error::bad_input;
use crate::output::Output;

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  torchrun --nproc_per_node 2 --no-python roofline profile -o job.rank{rank}.json -- python3 train.py
  roofline merge job.rank*.json -o job.json
  roofline report job.json -o job.html
  roofline check job.json --min-pct-of-roof 50

Each file's rank comes from the document (written under a launcher), else
from its name (job.rank3.json), else from its place on the command line.
Two files of one rank (a pass without the collectives and a pass of the
collectives alone) are joined into that rank.")]
pub struct Args {
    /// The ranks' analyses (roofline.analysis/v2 JSON).
    #[arg(value_name = "RANK_FILE", required = true)]
    pub files: Vec<PathBuf>,

    /// Judge the job against this machine (a machine JSON from `roofline
    /// bench -o`) instead of the first rank's.
    #[arg(long, value_name = "FILE")]
    pub machine: Option<PathBuf>,
}

fn read_text(path: &PathBuf, what: &str) -> anyhow::Result<String> {
    std::fs::read_to_string(path)
        .map_err(|e| bad_input(format!("{}: cannot read it ({e}); expected {what}", path.display())))
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    let machine = match &args.machine {
        Some(p) => {
            let input = p.display().to_string();
            Some(read_machine(&read_text(p, "a machine JSON from `roofline bench -o`")?, &input)?.machine)
        }
        None => None,
    };
    let mut merger = Merger::new(machine);
    for (i, path) in args.files.iter().enumerate() {
        let input = path.display().to_string();
        let text = read_text(path, &format!("a {ANALYSIS_SCHEMA} file a rank wrote"))?;
        let doc = read_analysis(&text, &input)?;
        drop(text);
        merger.add(doc, &input, i as u32).map_err(bad_input)?;
    }
    let mut producer = Producer::new(&format!("roofline merge ({} files)", args.files.len()));
    producer.created = Some(super::bench::now_rfc3339());
    let doc = merger.finish(producer).map_err(|e: MergeError| bad_input(e))?;
    for w in &doc.warnings {
        out.warn(&w.text());
    }
    out.info(&format!("{} rank(s), {} kernel(s) merged", doc.ranks.len(), doc.kernels.len()));
    out.document(&doc)?;
    Ok(ExitCode::SUCCESS)
}
