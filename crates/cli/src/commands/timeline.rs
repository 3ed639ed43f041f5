//! `roofline timeline -- PROGRAM [ARGS]`: runs the program once, as it
//! is, and records every kernel, copy and memset it runs on the GPU with
//! CUPTI's activity API, loaded into the program by the CUDA driver
//! (`CUDA_INJECTION64_PATH`, libroofline_inject.so). Nothing is replayed or
//! serialized, so the times are the program's own.
//!
//! The program runs as an owned child (roofline-child): its own process
//! group, Ctrl-C and SIGTERM forwarded, `--timeout`; whatever happens, what
//! was recorded is read, summarised and written, and the exit status
//! reported. Every process that starts CUDA under it (launcher workers
//! included) writes its own record file into a temporary folder, which is
//! removed at the end unless `--records DIR` keeps them.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use roofline_documents::Producer;
use roofline_report::{Format, TimelineView};
use roofline_timeline::{write_trace, Annotations};
use roofline_timeline::{Observer, RecordError, RecordOptions, RecordProgress, Recorded, Target, TimelineDocument};

use crate::error::bad_input;
use crate::output::Output;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TargetArg {
    /// The program and every process it starts that uses CUDA (launchers' workers).
    All,
    /// Only the program itself.
    ApplicationOnly,
}

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  roofline timeline -- ./app --size 4096
  roofline timeline --timeout 5m -- python3 train.py --steps 20
  roofline timeline -o trace.json --format trace -- torchrun --nproc-per-node 2 train.py
  roofline timeline --format json -o run.json --records recs/ -- ./app")]
pub struct Args {
    /// Stop the program after this long (90, 90s, 5m, 1h): SIGINT, then SIGTERM, then SIGKILL; what was recorded is kept.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub timeout: Option<Duration>,

    /// Seconds between the steps of stopping the program (SIGINT or the forwarded signal, SIGTERM, SIGKILL).
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = parse_duration, hide = true)]
    pub grace: Duration,

    /// Which processes are recorded.
    #[arg(long, value_enum, default_value_t = TargetArg::All)]
    pub target_processes: TargetArg,

    /// The CUPTI library (libcupti.so.13) to use when the program does not load its own
    /// (default: $ROOFLINE_CUPTI_LIB, then the program's Python environment's nvidia/cu13/lib or
    /// nvidia/cuda_cupti/lib, $CUDA_HOME/extras/CUPTI/lib64, /usr/local/cuda/extras/CUPTI/lib64).
    #[arg(long, value_name = "PATH")]
    pub cupti: Option<PathBuf>,

    /// The injection library (default: $ROOFLINE_INJECT_LIB, then beside the roofline executable).
    #[arg(long, value_name = "PATH")]
    pub inject_lib: Option<PathBuf>,

    /// Do not record NVTX ranges.
    #[arg(long)]
    pub no_nvtx: bool,

    /// Do not record the launch calls (their times and threads): less overhead for programs
    /// bound by launch rate; NVTX ranges then select kernels by GPU time.
    #[arg(long)]
    pub no_launch_calls: bool,

    /// Keep the raw record files in DIR (an empty or new folder) instead of a temporary folder.
    #[arg(long, value_name = "DIR")]
    pub records: Option<PathBuf>,

    /// Kernels listed in the tables for people (terminal, Markdown, HTML); CSV and JSON have them all.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub top: usize,

    /// Largest idle gaps kept per GPU.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub gaps: usize,

    /// How often the program's records reach the file, in milliseconds.
    #[arg(long, default_value_t = 500, value_name = "MS", hide = true)]
    pub flush_ms: u32,

    /// The program to run and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "PROGRAM")]
    pub command: Vec<String>,
}

impl From<TargetArg> for Target {
    fn from(t: TargetArg) -> Target {
        match t {
            TargetArg::All => Target::All,
            TargetArg::ApplicationOnly => Target::ApplicationOnly,
        }
    }
}

/// A recording's errors as the CLI's exit codes see them.
pub fn record_error(e: RecordError) -> anyhow::Error {
    match e {
        RecordError::BadInput(m) => bad_input(m),
        e => anyhow::Error::new(e),
    }
}

/// The injection library and a CUPTI (roofline_timeline::injection).
pub fn injection(
    explicit: Option<&Path>,
    cupti: Option<&Path>,
    command: &[String],
) -> anyhow::Result<(PathBuf, Option<PathBuf>)> {
    roofline_timeline::injection(explicit, cupti, command).map_err(record_error)
}

/// How a recording looks on stderr: a spinner on a terminal, or (with
/// `lines`, for `profile` in a log) a line every few seconds; nothing with -q.
struct Shown<'a> {
    out: &'a Output,
    spinner: Option<indicatif::ProgressBar>,
    lines: bool,
    label: &'a str,
    program: &'a str,
}

impl Shown<'_> {
    /// The spinner leaves when the program ends.
    fn clear(&mut self) {
        if let Some(s) = self.spinner.take() {
            s.finish_and_clear();
        }
    }

    /// A message, with the spinner out of its way.
    fn say(&self, message: &str, warn: bool) {
        let print = || if warn { self.out.warn(message) } else { self.out.info(message) };
        match &self.spinner {
            Some(s) => s.suspend(print),
            None => print(),
        }
    }
}

impl Observer for Shown<'_> {
    fn info(&mut self, message: &str) {
        self.say(message, false);
    }

    fn warn(&mut self, message: &str) {
        self.say(message, true);
    }

    fn ended(&mut self) {
        self.clear();
    }

    fn progress_every(&self) -> Option<Duration> {
        if self.spinner.is_some() {
            Some(Duration::from_millis(250))
        } else if self.lines {
            Some(Duration::from_secs(5))
        } else {
            None
        }
    }

    fn progress(&mut self, p: &RecordProgress) {
        match &self.spinner {
            Some(s) => {
                s.set_message(format!(
                    "{}{}: {} kernel launches recorded in {} process(es), {:.0} s",
                    self.label,
                    self.program,
                    p.kernels,
                    p.processes,
                    p.elapsed.as_secs_f64()
                ));
                s.tick();
            }
            None => crate::streams::message(&format!(
                "roofline: {}{} kernel launches recorded in {} process(es), {:.0} s",
                self.label,
                p.kernels,
                p.processes,
                p.elapsed.as_secs_f64()
            )),
        }
    }
}

/// Records the program's run (roofline_timeline::record), showing its
/// progress; `progress_lines` prints it as lines when stderr is a log.
pub fn record(o: &RecordOptions, out: &Output, progress_lines: bool) -> anyhow::Result<Recorded> {
    let terminal = std::io::stderr().is_terminal();
    let mut shown = Shown {
        out,
        spinner: (!out.quiet && terminal).then(|| {
            let s = indicatif::ProgressBar::new_spinner();
            s.set_style(indicatif::ProgressStyle::with_template("{spinner} {msg}").expect("static template"));
            s
        }),
        lines: !out.quiet && !terminal && progress_lines,
        label: o.label,
        program: o.command.first().map(String::as_str).unwrap_or(""),
    };
    let rec = roofline_timeline::record(o, &mut shown).map_err(record_error);
    shown.clear();
    rec
}

/// "90", "90s", "1.5m", "2h", "500ms".
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3600.0)
    } else {
        (t, 1.0)
    };
    let v: f64 = num.trim().parse().map_err(|_| format!("`{s}` is not a duration; write 90, 90s, 5m or 1h"))?;
    if !v.is_finite() || v <= 0.0 || v * scale > 1e9 {
        return Err(format!("`{s}` is not a positive duration; write 90, 90s, 5m or 1h"));
    }
    Ok(Duration::from_secs_f64(v * scale))
}

/// `trace`: `--format trace` was given.
pub fn run(args: &Args, out: &Output, trace: bool) -> anyhow::Result<ExitCode> {
    if args.command.is_empty() {
        return Err(bad_input("no program: give it after --, for example `roofline timeline -- ./app`"));
    }
    let mut inputs: Vec<(&str, &Path)> = vec![("PROGRAM", Path::new(&args.command[0]))];
    inputs.extend(args.cupti.iter().map(|p| ("--cupti", p.as_path())));
    inputs.extend(args.inject_lib.iter().map(|p| ("--inject-lib", p.as_path())));
    out.protect_inputs(&[], &inputs)?;
    let (inject, cupti) = injection(args.inject_lib.as_deref(), args.cupti.as_deref(), &args.command)?;
    let rec = record(
        &RecordOptions {
            command: &args.command,
            timeout: args.timeout,
            grace: args.grace,
            target: args.target_processes.into(),
            inject,
            cupti,
            no_nvtx: args.no_nvtx,
            no_launch_calls: args.no_launch_calls,
            records: args.records.as_deref(),
            flush_ms: args.flush_ms,
            label: "",
        },
        out,
        false,
    )?;
    let run = rec.run_info(&args.command);
    let command_line = format!("roofline timeline -- {}", args.command.join(" "));
    let failed = rec.failed;
    let doc = TimelineDocument::new(Producer::new(&command_line), run, rec.timeline, args.gaps);
    write_outputs(&doc, args.top, out, trace)?;
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// `--format trace` puts the trace in the `-o` file (or on stdout without
/// one) and the tables on stdout; otherwise the document goes the way of
/// every command's (`Output::document`): stdout in `--format`, the `-o`
/// file in the format of its extension, JSON by default.
fn write_outputs(doc: &TimelineDocument, top: usize, out: &Output, as_trace: bool) -> anyhow::Result<()> {
    let view = TimelineView { doc, top };
    if !as_trace {
        return out.document(&view);
    }
    let mut trace = Vec::new();
    write_trace(&doc.timeline, &Annotations::new(), &mut trace)?;
    match &out.file {
        Some(path) => {
            out.info(&format!("the Chrome trace goes to {} (open it in https://ui.perfetto.dev)", path.display()));
            out.deliver(
                &[(path.clone(), String::from_utf8(trace)?.into())],
                &out.rendered(&view, Format::Table)?.into(),
            )
        }
        None => out.stdout(&String::from_utf8(trace)?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("1.5m").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2h").unwrap(), Duration::from_secs(7200));
        for bad in ["", "x", "-1", "0", "NaN", "inf", "1e30"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
