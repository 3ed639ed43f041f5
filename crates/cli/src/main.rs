//! The `roofline` binary: parses arguments and hands each command to its
//! module under `commands/`. No analysis happens here.
//!
//! Nothing here prints with `print!`/`eprintln!` (which panic when a stream
//! cannot be written): data go through `streams::data`, messages through
//! `streams::message`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod analysis_file;
mod commands;
mod error;
mod input_file;
mod kernel_filter;
mod machine_args;
mod output;
mod ranks;
mod streams;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::output::{ColorArg, FormatArg, Output};

/// Where each of your GPU kernels sits under your GPU's roofs, with measured
/// numbers, and what to do about it.
#[derive(Parser)]
#[command(name = "roofline", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,

    /// Output format for data on stdout [default: table; for `report`, an
    /// HTML page, written to roofline-report.html when stdout is a terminal];
    /// each command's --help lists the formats it writes.
    #[arg(long, global = true, value_enum)]
    format: Option<FormatArg>,

    /// Also write the result to FILE, in the format its extension names
    /// (.json, .csv, .md, .html, .svg, .txt; otherwise --format, and JSON
    /// for the table); written whole or not at all.
    ///
    /// Under torchrun, mpirun or srun (profile, import), `{rank}` in FILE
    /// becomes this process's rank (without it, each rank of several writes
    /// FILE-stem.rankN.ext).
    #[arg(short = 'o', long = "output", global = true, value_name = "FILE")]
    output: Option<std::path::PathBuf>,

    /// Print less: no progress or warnings on stderr, and no warnings in
    /// the terminal table (the JSON keeps them).
    #[arg(short, long, global = true)]
    quiet: bool,

    /// The terminal table with every column and section (the default fits
    /// the terminal's width: one line per kernel).
    #[arg(long, global = true)]
    wide: bool,

    /// Colour the verdicts: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorArg::Auto)]
    color: ColorArg,
}

#[derive(Subcommand)]
enum Command {
    /// The main job: measure this GPU's roofs, run the example kernels, place and diagnose them, write a report (bundled H200 data without a GPU).
    Tour(commands::tour::Args),
    /// Theoretical roofs of the local GPU or of a named one.
    Peaks(commands::peaks::Args),
    /// Measured roofs of the local GPU: DRAM, L2, L1/shared, FP64/FP32/FP16, tensor cores, intensity sweep.
    Bench(commands::bench::Args),
    /// Paper estimates: kernels described by FLOPs and bytes, placed under a machine's roofs.
    Model(commands::model::Args),
    /// The speed of light of an operation ("gemm m=4096 n=4096 k=4096 bf16") on a GPU: the least time and the roof that sets it.
    Sol(commands::sol::Args),
    /// Runs a program under Nsight Compute and places every kernel under its roofs, with a diagnosis.
    Profile(Box<commands::profile::Args>),
    /// The same analysis from a CSV (or .ncu-rep) that Nsight Compute already wrote, or from a PyTorch profiler trace (FLOPs and bytes estimated from shapes).
    Import(Box<commands::import::Args>),
    /// SVG/HTML/Markdown from an analysis: charts, sortable kernel table, roofs.
    Report(commands::report::Args),
    /// Thresholds on % of roof and regressions against a baseline; exit code for CI.
    Check(commands::check::Args),
    /// Before and after: per kernel change in time, intensity and % of roof.
    Diff(commands::diff::Args),
    /// The occupancy calculator: resident blocks and warps per SM, the limiting resource, headroom, sweeps.
    Occupancy(commands::occupancy::Args),
    /// One document from the analyses of a job's ranks: per-kernel spread, stragglers, time by class per rank.
    Merge(commands::merge::Args),
    /// Runs a program and records every kernel, copy and memset it runs on the GPU, without replay: time per kernel, GPU busy share, idle gaps, NVTX ranges, Chrome trace.
    Timeline(Box<commands::timeline::Args>),
}

/// `-o`'s help for a command whose documents draw no chart.
const OUTPUT_NO_SVG: &str = "Also write the result to FILE, in the format its extension names (.json, .csv, .md, .html, .txt; otherwise --format, and JSON for the table); written whole or not at all";

/// The commands that run under a launcher's ranks (torchrun, mpirun,
/// srun), where `{rank}` in `-o` means something.
const RANKED: [&str; 2] = ["profile", "import"];

/// The parser, each subcommand's `--format` offering only the formats that
/// command writes ([`FormatArg::of_command`]), and its `-o` help naming
/// ranks only where they apply. `--format` stays global so that it may
/// come before the subcommand; [`main`] then holds it to the same list.
fn command() -> clap::Command {
    let mut cmd = Cli::command();
    let global = |id: &str| cmd.get_arguments().find(|a| a.get_id() == id).cloned().expect("a global argument");
    let (format, output) = (global("format"), global("output"));
    // A subcommand's own argument of a global's ID takes its place there
    // (clap propagates a global only where the ID is not yet taken).
    for sc in cmd.get_subcommands_mut() {
        let name = sc.get_name().to_string();
        let default = if name == "report" {
            "an HTML page, written to roofline-report.html when stdout is a terminal"
        } else {
            "table"
        };
        let parser = CommandFormats(name.clone());
        let mut built = std::mem::take(sc).arg(
            format.clone().help(format!("Output format for data on stdout [default: {default}]")).value_parser(parser),
        );
        let chart = ["tour", "model", "profile", "import", "report", "merge", "diff", "occupancy"];
        if !chart.contains(&name.as_str()) {
            // No chart, so no .svg; no ranks, so the rank paragraph goes.
            built = built.arg(output.clone().help(OUTPUT_NO_SVG).long_help(None::<&str>));
        } else if !RANKED.contains(&name.as_str()) {
            built = built.arg(output.clone().long_help(None::<&str>));
        }
        *sc = built;
    }
    cmd
}

/// Why `format` is not one of `command`'s (`None`: it is).
fn foreign_format(command: &str, format: FormatArg) -> Option<String> {
    let formats = FormatArg::of_command(command);
    if formats.contains(&format) {
        return None;
    }
    let names: Vec<String> = formats.iter().map(|f| f.name()).collect();
    let elsewhere = match format {
        FormatArg::Trace => " (a Chrome trace is `roofline timeline`'s)",
        FormatArg::Chart => " (its document has no chart to draw in the terminal)",
        _ => "",
    };
    Some(format!(
        "--format {}: `roofline {command}` does not write it{elsewhere}; its formats are {}",
        format.name(),
        names.join(", ")
    ))
}

/// A subcommand's `--format` parser: its help lists the command's formats;
/// any other format is refused with [`foreign_format`]'s words (the same
/// as when `--format` comes before the subcommand).
#[derive(Clone)]
struct CommandFormats(String);

impl clap::builder::TypedValueParser for CommandFormats {
    type Value = FormatArg;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<FormatArg, clap::Error> {
        let raw = value.to_string_lossy();
        let Ok(format) = <FormatArg as clap::ValueEnum>::from_str(&raw, false) else {
            let names: Vec<String> = FormatArg::of_command(&self.0).iter().map(|f| f.name()).collect();
            let why = format!(
                "invalid value '{raw}' for '--format <FORMAT>'\n  [possible values: {}]\n\nFor more information, try '--help'.\n",
                names.join(", ")
            );
            return Err(clap::Error::raw(clap::error::ErrorKind::InvalidValue, why).with_cmd(cmd));
        };
        match foreign_format(&self.0, format) {
            None => Ok(format),
            Some(why) => Err(clap::Error::raw(clap::error::ErrorKind::InvalidValue, format!("{why}\n")).with_cmd(cmd)),
        }
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            FormatArg::of_command(&self.0).into_iter().filter_map(|f| clap::ValueEnum::to_possible_value(&f)),
        ))
    }
}

/// `--format` given before the subcommand, held to that command's formats.
fn refuse_foreign_format(cli: &Cli) -> Result<(), anyhow::Error> {
    let Some(format) = cli.format else { return Ok(()) };
    match foreign_format(cli.command.name(), format) {
        None => Ok(()),
        Some(why) => Err(error::bad_input(why)),
    }
}

impl Command {
    /// The subcommand's name on the command line.
    fn name(&self) -> &'static str {
        match self {
            Command::Tour(_) => "tour",
            Command::Peaks(_) => "peaks",
            Command::Bench(_) => "bench",
            Command::Model(_) => "model",
            Command::Sol(_) => "sol",
            Command::Profile(_) => "profile",
            Command::Import(_) => "import",
            Command::Report(_) => "report",
            Command::Check(_) => "check",
            Command::Diff(_) => "diff",
            Command::Occupancy(_) => "occupancy",
            Command::Merge(_) => "merge",
            Command::Timeline(_) => "timeline",
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::from_arg_matches(&command().get_matches()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    if let Err(e) = refuse_foreign_format(&cli) {
        return error::report(&e);
    }
    if cli.output.as_deref().is_some_and(|p| p.as_os_str() == "-") {
        return error::report(&error::bad_input(
            "-o -: the results already go to standard output (with --format to choose how); -o names a file to write as well. For a file named '-', write -o ./-",
        ));
    }
    // Under torchrun, mpirun or srun each rank writes its own file.
    // A variable named like a launcher's that holds no rank only matters
    // when the -o name depends on the rank; otherwise it is someone else's.
    let (rank, ignored_rank) = match ranks::from_env() {
        Ok(r) => (r, None),
        Err(e) if cli.output.is_none() => (None, Some(e)),
        Err(e) => return error::report(&e),
    };
    let (file, note) = match ranks::output_file(cli.output.clone(), rank.as_ref()) {
        Ok(named) => named,
        Err(e) => return error::report(&e),
    };
    let out = Output::new(cli.format, file, cli.quiet).colored(cli.color.into());
    if let Some(n) = note {
        out.info(&n);
    }
    if let Some(e) = ignored_rank {
        out.warn(&format!("{e:#}; ignored here, as no -o file name depends on the rank"));
    }
    // `report` puts a page on stdout unless --format says otherwise.
    let page = matches!(cli.command, Command::Report(_)) && cli.format.is_none();
    let out = match out.wide(cli.wide, page) {
        Ok(out) => out,
        Err(e) => return error::report(&e),
    };
    let result = match &cli.command {
        Command::Tour(a) => commands::tour::run(a, &out),
        Command::Peaks(a) => commands::peaks::run(a, &out),
        Command::Model(a) => commands::model::run(a, &out),
        Command::Sol(a) => commands::sol::run(a, &out),
        Command::Bench(a) => commands::bench::run(a, &out),
        Command::Profile(a) => commands::profile::run(a, &out),
        Command::Import(a) => commands::import::run(a, &out),
        Command::Report(a) => commands::report::run(a, &out),
        Command::Check(a) => commands::check::run(a, &out),
        Command::Diff(a) => commands::diff::run(a, &out),
        Command::Occupancy(a) => commands::occupancy::run(a, &out),
        Command::Merge(a) => commands::merge::run(a, &out),
        Command::Timeline(a) => commands::timeline::run(a, &out, cli.format == Some(FormatArg::Trace)),
    };
    match result {
        Ok(code) => code,
        Err(e) => error::report(&e),
    }
}
