//! `roofline import FILE`: the roofline analysis of a capture Nsight
//! Compute already wrote: a raw CSV (`ncu --csv --page raw`, any metric set
//! with the needed counters, `--set full` included) or a `.ncu-rep` report
//! (exported through `ncu --import` when ncu is installed).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use roofline_core::merge::RankInfo;
use roofline_core::schema::{AnalysisDocument, AnalysisSource, Producer};
use roofline_ncu::runner::find_ncu;
use roofline_ncu::{analyse, read_capture, ByteConvention, Capture, CsvError, Options};

use crate::error::bad_input;
use crate::machine_args::MachineArgs;
use crate::output::{Output, ViewArg};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BytesArg {
    /// Nsight Compute's chart: L2 = 32 B x lts2xbar cycles, L1 = 128 B x LSU writeback cycles.
    Ncu,
    /// NERSC's hierarchical roofline: lts__t_bytes and l1tex__t_bytes.
    Nersc,
}

/// Options shared by `import` and `profile`.
#[derive(clap::Args, Debug, Clone)]
pub struct AnalysisArgs {
    /// Judge kernels against these roofs too (a machine JSON from `roofline
    /// bench -o`, or --gpu NAME); the counters' own peaks are always used.
    #[command(flatten)]
    pub machine: MachineArgs,

    /// How bytes at L2 and L1 are counted.
    #[arg(long, value_enum, default_value_t = BytesArg::Ncu)]
    pub bytes: BytesArg,

    /// One point per launch instead of one per kernel.
    #[arg(long)]
    pub per_launch: bool,

    /// The roofline to show: flops, instructions (each kernel's binding
    /// pipe against its roof; needs instruction counters), or auto (the
    /// instruction roofline too, for the kernels FLOPs do not explain).
    #[arg(long, value_enum, default_value_t = ViewArg::Flops)]
    pub view: ViewArg,
}

impl AnalysisArgs {
    pub fn options(&self) -> anyhow::Result<Options> {
        Ok(Options {
            convention: match self.bytes {
                BytesArg::Ncu => ByteConvention::Ncu,
                BytesArg::Nersc => ByteConvention::Nersc,
            },
            per_launch: self.per_launch,
            machine: self.machine.resolve()?,
        })
    }
}

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  ncu --csv --page raw --print-units base --clock-control none ./app > app.csv
  roofline import app.csv
  roofline import app.csv --machine h200.json --format json -o app-analysis.json
  roofline import report.ncu-rep            (needs ncu to read the report)")]
pub struct Args {
    /// A raw CSV written by `ncu --csv --page raw` (\"-\" for stdin), or a .ncu-rep report.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Nsight Compute to read a .ncu-rep with (default: PATH, $CUDA_HOME/bin).
    #[arg(long, value_name = "PATH")]
    pub ncu: Option<PathBuf>,

    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

fn is_report(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "ncu-rep")
}

/// How long `ncu --import` may take to read a report back as CSV: minutes
/// for a report of a long run, never forever.
const REPORT_EXPORT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

/// Reads a .ncu-rep through `ncu --import ... --csv --page raw`.
fn read_report(path: &Path, ncu: Option<&Path>) -> anyhow::Result<Capture> {
    let input = path.display().to_string();
    if !path.is_file() {
        return Err(bad_input(format!("{input}: no such file; expected an Nsight Compute report (.ncu-rep)")));
    }
    let ncu = find_ncu(ncu).map_err(|e| {
        bad_input(format!(
            "{input} is an Nsight Compute report; reading it needs ncu. {e} Or export it to CSV where ncu is installed: `ncu --import {input} --csv --page raw --print-units base > capture.csv`, then `roofline import capture.csv`"
        ))
    })?;
    // An owned child, its output in anonymous temporary files: a signal to
    // the tool stops ncu too (its group gets it), and nothing is orphaned.
    let temp = |e: std::io::Error| anyhow::anyhow!("could not make a temporary file for ncu's output: {e}");
    let (csv, log) = (tempfile::tempfile().map_err(temp)?, tempfile::tempfile().map_err(temp)?);
    let mut cmd = Command::new(&ncu);
    cmd.args(["--import", &input, "--csv", "--page", "raw", "--print-units", "base"])
        .stdin(Stdio::null())
        .stdout(csv.try_clone().map_err(temp)?)
        .stderr(log.try_clone().map_err(temp)?);
    let limits = roofline_child::Limits { timeout: Some(REPORT_EXPORT_TIMEOUT), ..Default::default() };
    let outcome = roofline_child::spawn(cmd)?.wait(&limits, |_| {})?;
    match outcome.ending {
        roofline_child::Ending::Interrupted { signal } => anyhow::bail!(
            "{} --import {input} was stopped by {} to roofline: nothing was imported",
            ncu.display(),
            roofline_child::signal_name(signal)
        ),
        roofline_child::Ending::TimedOut => anyhow::bail!(
            "{} --import {input} had not finished after {} s and was stopped: nothing was imported; export the report where it was recorded: `ncu --import {input} --csv --page raw --print-units base > capture.csv`",
            ncu.display(),
            REPORT_EXPORT_TIMEOUT.as_secs()
        ),
        roofline_child::Ending::Finished => {}
    }
    let rewound = |mut f: std::fs::File| {
        use std::io::Seek;
        f.rewind().map(|_| f)
    };
    // ncu's messages are kept (the last 64 kB) to say why an export failed.
    let mut messages = String::new();
    if let Ok(mut f) = rewound(log) {
        use std::io::Read;
        let mut tail = Vec::new();
        let _ = f.read_to_end(&mut tail);
        let from = tail.len().saturating_sub(65536);
        messages = String::from_utf8_lossy(&tail[from..]).into_owned();
    }
    let messages = messages.trim();
    let status = outcome.status;
    let csv = rewound(csv).map_err(temp)?;
    if status.success() && csv.metadata().map(|m| m.len()).unwrap_or(0) == 0 {
        anyhow::bail!(
            "{} --import {input} exited normally but printed no CSV; check that this ncu can read the report, or export it to CSV where it was recorded: `ncu --import {input} --csv --page raw --print-units base > capture.csv`",
            ncu.display()
        );
    }
    let cap = read_capture(csv, &input);
    if !status.success() {
        let said = if messages.is_empty() {
            String::from(" and printed nothing")
        } else {
            format!(
                ": {}",
                messages.lines().rev().take(5).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join(" | ")
            )
        };
        anyhow::bail!(
            "{} --import {input} failed ({status}){said}; check that the report was written completely and by an Nsight Compute this version can read, or export it to CSV where it was recorded: `ncu --import {input} --csv --page raw --print-units base > capture.csv`",
            ncu.display()
        );
    }
    if !messages.is_empty() {
        crate::streams::message(messages);
    }
    cap.map_err(bad_input)
}

/// Reads a CSV capture from a file or stdin.
pub fn read_csv(path: &Path) -> anyhow::Result<Capture> {
    let input = path.display().to_string();
    let result = if input == "-" {
        read_capture(std::io::stdin().lock(), "stdin")
    } else {
        let f = std::fs::File::open(path).map_err(|e| {
            bad_input(format!("{input}: cannot open it ({e}); expected a CSV written by `ncu --csv --page raw`"))
        })?;
        read_capture(f, &input)
    };
    result.map_err(|e: CsvError| bad_input(e))
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
    cap: &Capture,
    args: &AnalysisArgs,
    command: &str,
    detail: &str,
    created: Option<String>,
    rank: Option<RankInfo>,
    out: &Output,
    adjust: impl FnOnce(&mut AnalysisDocument),
) -> anyhow::Result<()> {
    let opts = args.options()?;
    let convention = opts.convention;
    let a = analyse(cap, &opts);
    for w in &a.warnings {
        out.warn(&w.to_string());
    }
    let mut producer = Producer::new(command);
    producer.created = created;
    let mut doc = AnalysisDocument::new(
        producer,
        AnalysisSource {
            kind: "ncu".into(),
            detail: detail.into(),
            byte_convention: Some(convention.describe().into()),
        },
        a.machine,
        a.kernels,
    );
    doc.warnings = a.warnings;
    doc.rank = rank;
    out.check_analysis(&doc)?;
    out.info(&format!("{} launch(es) of {} kernel(s) analysed", cap.launches.len(), doc.kernels.len()));
    adjust(&mut doc);
    out.analysis(&doc, None, args.view, detail)
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    if let (Some(ncu), false) = (&args.ncu, is_report(&args.file)) {
        return Err(bad_input(format!(
            "--ncu {}: ncu is only needed to read a .ncu-rep report, and {} is a CSV; leave --ncu out",
            ncu.display(),
            args.file.display()
        )));
    }
    let mut inputs = vec![("FILE", args.file.as_path())];
    inputs.extend(args.analysis.machine.machine.iter().map(|m| ("--machine", m.as_path())));
    inputs.extend(args.ncu.iter().map(|n| ("--ncu", n.as_path())));
    out.protect_inputs(&[], &inputs)?;
    let cap = if is_report(&args.file) { read_report(&args.file, args.ncu.as_deref())? } else { read_csv(&args.file)? };
    let input = args.file.display().to_string();
    report(&cap, &args.analysis, &format!("roofline import {input}"), &input, None, None, out)?;
    Ok(ExitCode::SUCCESS)
}
