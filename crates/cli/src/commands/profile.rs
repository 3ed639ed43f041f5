//! `roofline profile -- PROGRAM [ARGS]`: runs the program under Nsight
//! Compute with only the counters a roofline needs (a few replay passes per
//! kernel instead of `--set full`'s ~40), then analyses every kernel as
//! `import` does. The program's output goes to stderr; if it fails midway,
//! the kernels profiled so far are analysed and its exit status reported.
//!
//! Under torchrun, mpirun or srun each rank profiles itself and writes its
//! own file (`-o job.rank{rank}.json`); NCCL's kernels are then profiled
//! without replaying a collective on one rank alone (`--collectives`, see
//! `roofline_ncu::collectives`), and `roofline merge` joins the ranks.

use std::path::PathBuf;
use std::process::ExitCode;

use roofline_ncu::collectives::{self, Mode};
use roofline_ncu::runner::{find_ncu, help_text, metric_list, parse_progress, query_known, Filters, Progress, Run};
use roofline_ncu::{read_capture, CsvError, ProgramExit};
use roofline_report::write_atomic;

use super::import::{report, AnalysisArgs};
use crate::error::bad_input;
use crate::output::Output;

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  roofline profile -- ./app --size 4096
  roofline profile -k regex:gemm -c 10 -- python3 train.py
  roofline profile --nvtx-include \"step/\" --machine h200.json -o app.json -- ./app
  torchrun --nproc_per_node 2 --no-python roofline profile -o job.rank{rank}.json -- python3 train.py
  mpirun -np 4 roofline profile -o job.rank{rank}.json -- ./app

Collectives (--collectives): auto profiles every kernel of a single process;
under a launcher of several ranks it keeps the ranks of NCCL's kernels in
lockstep where this ncu can (--lockstep-kernel-launch), and otherwise leaves
NCCL's kernels out (replaying a collective on one rank hangs the job): profile
them in a second run with --collectives only (one pass: duration and NVLink
bytes) and give both files to `roofline merge`.")]
pub struct Args {
    /// Nsight Compute to use (default: PATH, then $CUDA_HOME/bin, /usr/local/cuda/bin).
    #[arg(long, value_name = "PATH")]
    pub ncu: Option<PathBuf>,

    /// Profile only kernels with this name (ncu -k; "regex:..." for a pattern).
    #[arg(short = 'k', long = "kernel-name", value_name = "NAME")]
    pub kernel_name: Option<String>,

    /// Profile at most this many launches (ncu -c).
    #[arg(short = 'c', long = "launch-count", value_name = "N")]
    pub launch_count: Option<u64>,

    /// Skip this many launches first (ncu -s).
    #[arg(short = 's', long = "launch-skip", value_name = "N")]
    pub launch_skip: Option<u64>,

    /// Profile only inside this NVTX range (ncu --nvtx-include; "name/" for push/pop ranges).
    #[arg(long, value_name = "RANGE")]
    pub nvtx_include: Vec<String>,

    /// Skip kernels inside this NVTX range.
    #[arg(long, value_name = "RANGE")]
    pub nvtx_exclude: Vec<String>,

    /// ncu --clock-control (default none: the GPU keeps its own clocks).
    #[arg(long, default_value = "none", value_name = "MODE")]
    pub clock_control: String,

    /// ncu --print-units.
    #[arg(long, default_value = "base", value_name = "UNITS")]
    pub print_units: String,

    /// Collect these metrics instead of the list for this GPU (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub metrics: Option<Vec<String>>,

    /// One more argument for ncu (repeat for several), placed before the program.
    #[arg(long = "ncu-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub ncu_args: Vec<String>,

    /// How to profile NCCL's kernels: auto, all, skip, only (one pass of
    /// duration and NVLink bytes) or lockstep (every rank's ncu in step).
    #[arg(long, default_value = "auto", value_name = "MODE")]
    pub collectives: String,

    /// Keep ncu's raw CSV in FILE (to `roofline import` later).
    #[arg(long, value_name = "FILE")]
    pub save_csv: Option<PathBuf>,

    /// Stop ncu and the program after this long (90, 90s, 5m, 1h); the kernels profiled so far are analysed.
    #[arg(long, value_name = "DURATION", value_parser = super::timeline::parse_duration)]
    pub timeout: Option<std::time::Duration>,

    #[command(flatten)]
    pub analysis: AnalysisArgs,

    /// The program to profile and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "PROGRAM")]
    pub command: Vec<String>,
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    let Some((program, program_args)) = args.command.split_first() else {
        return Err(bad_input("no program: give it after --, for example `roofline profile -- ./app`"));
    };
    // Check the machine flags before a long profiling run.
    args.analysis.options()?;
    let mode = Mode::parse(&args.collectives).ok_or_else(|| {
        bad_input(format!("--collectives {}: expected auto, all, skip, only or lockstep", args.collectives))
    })?;
    let rank = crate::ranks::from_env()?;
    let ncu = find_ncu(args.ncu.as_deref())?;
    let world = rank.as_ref().map(|r| r.world_size.unwrap_or(2));
    let needs_help = matches!(mode, Mode::Auto | Mode::Lockstep) && world.is_some_and(|w| w > 1);
    let help = if needs_help { help_text(&ncu) } else { String::new() };
    let known = if mode == Mode::Only { query_known(&ncu) } else { None };
    let plan = collectives::plan(mode, world, &help, known.as_ref()).map_err(bad_input)?;
    if let (Some(filter), Some(k)) = (plan.kernel_filter, &args.kernel_name) {
        if matches!(mode, Mode::Skip | Mode::Only) {
            return Err(bad_input(format!(
                "-k {k} and --collectives {}: that mode sets the kernel filter itself ({filter}); use --collectives all with -k",
                args.collectives
            )));
        }
        out.info(&format!("-k {k} kept; NCCL kernels it matches are profiled as usual"));
    }
    if let Some(n) = &plan.note {
        out.info(&format!("roofline: {n}"));
    }
    let metrics = match (&args.metrics, &plan.metrics) {
        (Some(m), _) => m.clone(),
        (None, Some(m)) => m.clone(),
        (None, None) => {
            let (list, dropped) = metric_list(&ncu);
            if !dropped.is_empty() {
                out.info(&format!(
                    "this ncu does not know {} metric(s), left out: {}",
                    dropped.len(),
                    dropped.join(", ")
                ));
            }
            list
        }
    };
    // A private folder, removed on every way out (ncu's log lives there).
    let log_dir = tempfile::Builder::new().prefix("roofline-ncu-").tempdir()?;
    let log_file = log_dir.path().join("ncu.csv");
    let mut extra = plan.extra.clone();
    extra.extend(args.ncu_args.iter().cloned());
    let run = Run {
        ncu: ncu.clone(),
        program: program.clone(),
        args: program_args.to_vec(),
        filters: Filters {
            kernel_name: args.kernel_name.clone().or(plan.kernel_filter.map(String::from)),
            launch_count: args.launch_count,
            launch_skip: args.launch_skip,
            nvtx_include: args.nvtx_include.clone(),
            nvtx_exclude: args.nvtx_exclude.clone(),
        },
        clock_control: args.clock_control.clone(),
        print_units: args.print_units.clone(),
        metrics: Some(metrics.clone()),
        extra,
        log_file: log_file.clone(),
    };
    out.info(&format!(
        "profiling {program} with {} ({} metrics, clock control {})",
        ncu.display(),
        metrics.len(),
        args.clock_control
    ));
    let quiet = out.quiet;
    let limits = roofline_child::Limits { timeout: args.timeout, ..Default::default() };
    let outcome = run.execute_with(&metrics, &limits, move |p| {
        if quiet {
            return;
        }
        match p {
            Progress::Line(line) => {
                if let Some((name, n)) = parse_progress(&line) {
                    eprintln!("roofline: profiling launch {n}: {name}");
                } else if let Some(rest) = line.strip_prefix("==PROF== ") {
                    eprintln!("roofline: ncu: {rest}");
                } else if line.starts_with("==ERROR==") {
                    eprintln!("roofline: ncu: {line}");
                }
            }
            Progress::Elapsed(t) => eprintln!("roofline: still profiling ({} s)", t.as_secs()),
        }
    })?;
    let input = format!("ncu log {}", log_file.display());
    let cap = std::fs::File::open(&log_file)
        .map_err(|e| CsvError::Io { input: input.clone(), source: e })
        .and_then(|f| read_capture(f, &input));
    if let Some(path) = &args.save_csv {
        if let Ok(bytes) = std::fs::read(&log_file) {
            write_atomic(path, &bytes)?;
            out.info(&format!("wrote ncu's CSV to {}", path.display()));
        }
    }
    let _ = std::fs::remove_file(&log_file);
    let status = outcome.status;
    let exit_note = match outcome.ending {
        roofline_child::Ending::Interrupted { signal } => {
            Some(format!("interrupted ({}): ncu and {program} were stopped", roofline_child::signal_name(signal)))
        }
        roofline_child::Ending::TimedOut => Some(format!("--timeout reached: ncu and {program} were stopped")),
        roofline_child::Ending::Finished if status.success() => None,
        roofline_child::Ending::Finished => Some(match status.code() {
            Some(c) => format!("{program} exited with status {c}"),
            None => format!("{program} was stopped by a signal ({status})"),
        }),
    };
    let exit = exit_note.as_ref().map(|_| ProgramExit {
        program: program.to_string(),
        status: status.code(),
        signal: status.code().is_none().then(|| status.to_string()),
        stopped_by: match outcome.ending {
            roofline_child::Ending::Interrupted { signal } => Some(roofline_child::signal_name(signal).to_string()),
            roofline_child::Ending::TimedOut => Some("--timeout".to_string()),
            roofline_child::Ending::Finished => None,
        },
    });
    let cap = match cap {
        Ok(c) => c,
        Err(e @ CsvError::CounterPermission { .. }) => {
            return Err(anyhow::anyhow!(e.to_string().replace(&input, "ncu")))
        }
        Err(e) => {
            let why = exit_note.map(|n| format!("{n} before any kernel was profiled; ")).unwrap_or_default();
            anyhow::bail!("{why}{e}");
        }
    };
    let mut cap = cap;
    cap.program_exit = exit;
    let command_line = format!("roofline profile -- {}", args.command.join(" "));
    let created = Some(super::bench::now_rfc3339());
    report(&cap, &args.analysis, &command_line, &args.command.join(" "), created, rank, out)?;
    Ok(if exit_note.is_some() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
