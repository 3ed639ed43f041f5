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

use std::io::{IsTerminal, Read, Seek};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use anyhow::Context;
use roofline_child::{Ending, Limits};
use roofline_documents::Producer;
use roofline_model::format_seconds;
use roofline_records::{env, KERNEL_LINE_PREFIX};
use roofline_report::{Format, TimelineView};
use roofline_timeline::trace::{write_trace, Annotations};
use roofline_timeline::{read_dir, RunInfo, TimelineDocument, UnixSpan};

use crate::error::bad_input;
use crate::output::Output;

/// The injection library's file name.
pub const INJECT_LIB: &str = "libroofline_inject.so";

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
    /// (default: $ROOFLINE_CUPTI_LIB, then $CUDA_HOME/extras/CUPTI/lib64, /usr/local/cuda/extras/CUPTI/lib64).
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

/// Where the injection library is: the explicit path, `$ROOFLINE_INJECT_LIB`,
/// beside the executable, `../lib` from it.
pub fn find_inject_lib(explicit: Option<&Path>) -> anyhow::Result<PathBuf> {
    let exe_dir = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf));
    find_inject_lib_in(explicit, std::env::var_os("ROOFLINE_INJECT_LIB").map(PathBuf::from), exe_dir.as_deref())
}

fn find_inject_lib_in(
    explicit: Option<&Path>,
    from_env: Option<PathBuf>,
    exe_dir: Option<&Path>,
) -> anyhow::Result<PathBuf> {
    let mut looked = Vec::new();
    if let Some(p) = explicit {
        if p.is_file() {
            return Ok(p.to_path_buf());
        }
        return Err(bad_input(format!(
            "--inject-lib {}: {}; give the path of {INJECT_LIB} (built beside the roofline binary by `cargo build --release`)",
            p.display(),
            not_a_library(p)
        )));
    }
    if let Some(p) = from_env {
        if p.is_file() {
            return Ok(p);
        }
        looked.push(format!("$ROOFLINE_INJECT_LIB ({})", p.display()));
    }
    if let Some(dir) = exe_dir {
        for c in [dir.join(INJECT_LIB), dir.join("../lib").join(INJECT_LIB)] {
            if c.is_file() {
                return Ok(c.canonicalize().unwrap_or(c));
            }
            looked.push(c.display().to_string());
        }
    }
    anyhow::bail!(
        "the injection library {INJECT_LIB} was not found (looked at {}). `cargo build --release` builds it beside the roofline binary (target/release/); copy it next to roofline, or set ROOFLINE_INJECT_LIB=/path/to/{INJECT_LIB}",
        looked.join(", ")
    )
}

/// Why a library path given on the command line is not a file to load:
/// it is missing, a folder, or something else that exists but is no
/// regular file (`/dev/null`, a FIFO), each said as it is.
fn not_a_library(p: &Path) -> String {
    match std::fs::metadata(p) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "no such file".into(),
        Err(e) => format!("cannot be read ({e})"),
        Ok(m) if m.is_dir() => "is a folder".into(),
        Ok(m) if !m.is_file() => "is not a regular file (a device, FIFO or socket)".into(),
        Ok(_) => "is not a library to load".into(),
    }
}

/// A libcupti for programs that do not load their own.
fn find_cupti(explicit: Option<&Path>) -> anyhow::Result<Option<PathBuf>> {
    if let Some(p) = explicit {
        if p.is_file() {
            return Ok(Some(p.canonicalize().unwrap_or_else(|_| p.to_path_buf())));
        }
        return Err(bad_input(format!(
            "--cupti {}: {}; give the path of libcupti.so.13 (in $CUDA_HOME/extras/CUPTI/lib64, or PyTorch's site-packages/nvidia/cu13/lib)",
            p.display(),
            not_a_library(p)
        )));
    }
    if let Some(p) = std::env::var_os(env::CUPTI_LIB) {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Ok(Some(p));
        }
    }
    let mut dirs: Vec<PathBuf> = Vec::new();
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(h) = std::env::var_os(var) {
            dirs.push(PathBuf::from(h).join("extras/CUPTI/lib64"));
        }
    }
    dirs.push(PathBuf::from("/usr/local/cuda/extras/CUPTI/lib64"));
    if let Some(ld) = std::env::var_os("LD_LIBRARY_PATH") {
        dirs.extend(std::env::split_paths(&ld));
    }
    for d in dirs {
        for name in ["libcupti.so.13", "libcupti.so"] {
            let c = d.join(name);
            if c.is_file() {
                return Ok(Some(c));
            }
        }
    }
    Ok(None)
}

/// Counts kernel lines in the record files as they grow, for progress.
#[derive(Default)]
struct Progress {
    /// Bytes of each file already counted (always up to a line end).
    files: std::collections::HashMap<PathBuf, u64>,
    kernels: u64,
}

impl Progress {
    fn scan(&mut self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let path = e.path();
            if path.extension().is_none_or(|x| x != "jsonl") {
                continue;
            }
            let pos = self.files.entry(path.clone()).or_insert(0);
            // Only regular files: the program writes this folder (a FIFO would block).
            let Ok(Ok(mut f)) = roofline_timeline::reader::open_record_file(&path) else { continue };
            if f.seek(std::io::SeekFrom::Start(*pos)).is_err() {
                continue;
            }
            let mut buf = Vec::new();
            if f.take(64 << 20).read_to_end(&mut buf).is_err() {
                continue;
            }
            // Only complete lines count; a partial one is read again next time.
            let Some(last_nl) = buf.iter().rposition(|&b| b == b'\n') else { continue };
            self.kernels += buf[..=last_nl]
                .split(|&b| b == b'\n')
                .filter(|line| line.starts_with(KERNEL_LINE_PREFIX.as_bytes()))
                .count() as u64;
            *pos += last_nl as u64 + 1;
        }
    }
}

/// One recording of a program's run: what `timeline` and the first pass
/// of `profile` share.
pub struct RecordOptions<'a> {
    pub command: &'a [String],
    pub timeout: Option<Duration>,
    pub grace: Duration,
    pub target: TargetArg,
    pub inject: PathBuf,
    pub cupti: Option<PathBuf>,
    pub no_nvtx: bool,
    pub no_launch_calls: bool,
    /// Keep the record files here instead of a temporary folder.
    pub records: Option<&'a Path>,
    pub flush_ms: u32,
    /// Put before progress lines ("pass 1/2: "); with `progress_lines`,
    /// progress is printed as lines every few seconds when stderr is not a
    /// terminal (a log), not only as a spinner on a terminal.
    pub progress_label: &'a str,
    pub progress_lines: bool,
}

/// What a recording gave.
pub struct Recorded {
    pub outcome: roofline_child::Outcome,
    pub timeline: roofline_timeline::Timeline,
    /// The program failed, was interrupted or timed out.
    pub failed: bool,
}

impl Recorded {
    pub fn run_info(&self, command: &[String]) -> RunInfo {
        RunInfo {
            command: command.to_vec(),
            wall_s: Some(self.outcome.wall.as_secs_f64()),
            exit_code: self.outcome.exit_code(),
            signal: self.outcome.signal(),
            ended_by: match self.outcome.ending {
                Ending::Finished => "exit",
                Ending::Interrupted { .. } => "interrupted",
                Ending::TimedOut => "timeout",
            }
            .into(),
        }
    }
}

/// The injection library for `--inject-lib` (or the default places) and a
/// CUPTI, after checking that no other tool injects into CUDA programs here.
pub fn injection(explicit: Option<&Path>, cupti: Option<&Path>) -> anyhow::Result<(PathBuf, Option<PathBuf>)> {
    if let Some(v) = std::env::var_os(env::CUDA_INJECTION) {
        return Err(bad_input(format!(
            "{} is already set ({}): another tool injects into CUDA programs here, and only one can; unset it to record a timeline",
            env::CUDA_INJECTION,
            v.to_string_lossy()
        )));
    }
    Ok((find_inject_lib(explicit)?, find_cupti(cupti)?))
}

/// Runs the program once with the injection library, as an owned child,
/// and reads what every process recorded, whatever ended it.
pub fn record(o: &RecordOptions, out: &Output) -> anyhow::Result<Recorded> {
    let Some((program, program_args)) = o.command.split_first() else {
        return Err(bad_input("no program: give it after --, for example `roofline timeline -- ./app`"));
    };
    let inject = &o.inject;
    if o.cupti.is_none() {
        out.warn("no libcupti.so.13 found ($CUDA_HOME/extras/CUPTI/lib64, /usr/local/cuda/extras/CUPTI/lib64, LD_LIBRARY_PATH); a program that loads its own (PyTorch does) is still recorded, others are not: give --cupti PATH");
    }
    let _temp;
    let mut _removed_if_killed = None;
    let dir = match o.records {
        Some(d) => {
            std::fs::create_dir_all(d).with_context(|| format!("creating --records {}", d.display()))?;
            let has_records = std::fs::read_dir(d)
                .with_context(|| format!("reading --records {}", d.display()))?
                .flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "jsonl"));
            if has_records {
                return Err(bad_input(format!(
                    "--records {}: already holds record files (*.jsonl) of another run; give an empty or new folder",
                    d.display()
                )));
            }
            d.canonicalize().unwrap_or_else(|_| d.to_path_buf())
        }
        None => {
            let t = tempfile::Builder::new()
                .prefix("roofline-timeline-")
                .tempdir()
                .context("creating a temporary folder")?;
            let p = t.path().to_path_buf();
            _removed_if_killed = Some(roofline_child::remove_if_killed(&p));
            _temp = t;
            p
        }
    };

    let mut cmd = Command::new(program);
    cmd.args(program_args)
        .stdin(Stdio::inherit())
        .stdout(Stdio::from(std::io::stderr()))
        .stderr(Stdio::inherit())
        .env(env::CUDA_INJECTION, inject)
        .env(env::DIR, &dir)
        .env(env::FLUSH_MS, o.flush_ms.to_string())
        .env(env::TOOL_PID, std::process::id().to_string())
        .env(
            env::TARGET,
            match o.target {
                TargetArg::All => "all",
                TargetArg::ApplicationOnly => "application-only",
            },
        );
    if let Some(c) = &o.cupti {
        cmd.env(env::CUPTI_LIB, c);
    }
    if o.no_launch_calls {
        cmd.env(env::API, "0");
    }
    if o.no_nvtx {
        cmd.env(env::NVTX, "0");
    } else if let Some(v) = std::env::var_os(env::NVTX_INJECTION) {
        out.warn(&format!(
            "{} is already set ({}): NVTX ranges go to that tool, not into the timeline",
            env::NVTX_INJECTION,
            v.to_string_lossy()
        ));
    } else {
        cmd.env(env::NVTX_INJECTION, inject);
    }
    out.info(&format!(
        "{}recording {} (CUPTI activity, no replay) with {}",
        o.progress_label,
        o.command.join(" "),
        inject.display()
    ));

    let child = roofline_child::spawn(cmd).map_err(|e| match e {
        roofline_child::ChildError::NotFound { .. }
        | roofline_child::ChildError::LoaderNotFound { .. }
        | roofline_child::ChildError::NotExecutable { .. } => bad_input(e),
        other => anyhow::Error::new(other),
    })?;
    let limits = Limits { timeout: o.timeout, grace: o.grace, tick: Duration::from_millis(100) };
    let terminal = std::io::stderr().is_terminal();
    let spinner = (!out.quiet && terminal).then(|| {
        let s = indicatif::ProgressBar::new_spinner();
        s.set_style(indicatif::ProgressStyle::with_template("{spinner} {msg}").expect("static template"));
        s
    });
    let lines = !out.quiet && !terminal && o.progress_lines;
    let mut progress = Progress::default();
    let mut last_scan = Duration::ZERO;
    let mut last_line = Duration::ZERO;
    let outcome = child.wait(&limits, |elapsed| {
        if let Some(s) = &spinner {
            if elapsed >= last_scan + Duration::from_millis(250) {
                last_scan = elapsed;
                progress.scan(&dir);
                s.set_message(format!(
                    "{}{}: {} kernel launches recorded in {} process(es), {:.0} s",
                    o.progress_label,
                    program,
                    progress.kernels,
                    progress.files.len(),
                    elapsed.as_secs_f64()
                ));
                s.tick();
            }
        } else if lines && elapsed >= last_line + Duration::from_secs(5) {
            last_line = elapsed;
            progress.scan(&dir);
            crate::streams::message(&format!(
                "roofline: {}{} kernel launches recorded in {} process(es), {:.0} s",
                o.progress_label,
                progress.kernels,
                progress.files.len(),
                elapsed.as_secs_f64()
            ));
        }
    })?;
    if let Some(s) = spinner {
        s.finish_and_clear();
    }

    if outcome.left_running > 0 {
        out.warn(&format!(
            "{program} exited leaving {} process(es) of its group running (background jobs); they were stopped, and whatever they ran on the GPU after the exit is not in the timeline",
            outcome.left_running
        ));
    }
    let wall = outcome.wall.as_secs_f64();
    let note = match outcome.ending {
        Ending::Finished => format!("{program} {} after {}", outcome.describe(), format_seconds(wall)),
        Ending::Interrupted { signal } => format!(
            "interrupted ({}): {program} {} after {}; what was recorded until then follows",
            roofline_child::signal_name(signal),
            outcome.describe(),
            format_seconds(wall)
        ),
        Ending::TimedOut => format!(
            "--timeout {} reached: {program} {}; what was recorded until then follows",
            format_seconds(o.timeout.map(|t| t.as_secs_f64()).unwrap_or(wall)),
            outcome.describe()
        ),
    };
    let failed = outcome.ending != Ending::Finished || !outcome.status.success();
    if failed {
        out.warn(&format!("{}{note}", o.progress_label));
    } else {
        out.info(&format!("{}{note}", o.progress_label));
    }

    let program_span = UnixSpan { start_ns: outcome.started_unix_ns, end_ns: outcome.ended_unix_ns };
    let timeline = read_dir(&dir, Some(program_span))?;
    for w in &timeline.warnings {
        out.warn(w);
    }
    for p in &timeline.processes {
        for n in &p.notes {
            out.info(&format!("process {}: {n}", p.pid));
        }
        if !p.complete && p.errors.is_empty() {
            out.info(&format!(
                "process {}: its record file has no end line (it was killed, or exited without running exit handlers); the last ~{} ms may be missing",
                p.pid, o.flush_ms
            ));
        }
    }
    if timeline.processes.is_empty() {
        out.warn(&format!(
            "no process wrote records: {program} never initialised CUDA, or the driver did not load {} (a static CUDA runtime still loads it; a program that never calls CUDA has nothing to record)",
            inject.display()
        ));
    }
    if let Some(d) = o.records {
        out.info(&format!("record files kept in {}", d.display()));
    }
    Ok(Recorded { outcome, timeline, failed })
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
    let (inject, cupti) = injection(args.inject_lib.as_deref(), args.cupti.as_deref())?;
    let rec = record(
        &RecordOptions {
            command: &args.command,
            timeout: args.timeout,
            grace: args.grace,
            target: args.target_processes,
            inject,
            cupti,
            no_nvtx: args.no_nvtx,
            no_launch_calls: args.no_launch_calls,
            records: args.records.as_deref(),
            flush_ms: args.flush_ms,
            progress_label: "",
            progress_lines: false,
        },
        out,
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

    #[test]
    fn a_missing_injection_library_says_where_it_looked_and_how_to_get_it() {
        let dir = tempfile::tempdir().unwrap();
        let e = find_inject_lib_in(None, Some(dir.path().join("nope.so")), Some(dir.path())).unwrap_err().to_string();
        assert!(e.contains("libroofline_inject.so was not found") && e.contains("cargo build --release"), "{e}");
        assert!(e.contains("$ROOFLINE_INJECT_LIB") && e.contains(&dir.path().display().to_string()), "{e}");
        std::fs::write(dir.path().join(INJECT_LIB), b"").unwrap();
        let found = find_inject_lib_in(None, None, Some(dir.path())).unwrap();
        assert!(found.ends_with(INJECT_LIB), "found beside the executable");
    }

    #[test]
    fn progress_counts_complete_kernel_lines_only() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("1.jsonl");
        std::fs::write(&f, "{\"t\":\"header\"}\n{\"t\":\"kernel\",\"name\":1}\n{\"t\":\"kernel\",\"na").unwrap();
        let mut p = Progress::default();
        p.scan(dir.path());
        assert_eq!(p.kernels, 1);
        let mut text = std::fs::read_to_string(&f).unwrap();
        text.push_str("me\":1}\n{\"t\":\"name\"}\n");
        std::fs::write(&f, text).unwrap();
        p.scan(dir.path());
        assert_eq!(p.kernels, 2, "the line completed later counts once");
    }
}
