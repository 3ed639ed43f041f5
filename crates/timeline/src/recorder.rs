//! Recording a program's run: the program runs once, as it is, as an owned
//! child (roofline-child: its own process group, Ctrl-C and SIGTERM
//! forwarded, `--timeout`) with libroofline_inject.so loaded by the CUDA
//! driver (`CUDA_INJECTION64_PATH`), and every process that starts CUDA
//! under it writes its own record file into a folder. Whatever ends the
//! run, what was recorded is read back into a [`Timeline`]. Messages and
//! progress go to an [`Observer`], so that the CLI decides how they look.

use std::io::{Read, Seek};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use roofline_child::{Ending, Limits};
use roofline_model::format_seconds;
use roofline_records::{env, KERNEL_LINE_PREFIX};

use crate::cupti_search::{cupti_dirs, first_cupti};
use crate::document::RunInfo;
use crate::model::Timeline;
use crate::reader::{read_dir, ReadError, UnixSpan};

/// The injection library's file name.
pub const INJECT_LIB: &str = "libroofline_inject.so";

/// Where the injection library is: the explicit path, `$ROOFLINE_INJECT_LIB`,
/// beside the executable, `../lib` from it.
pub fn find_inject_lib(explicit: Option<&Path>) -> Result<PathBuf, RecordError> {
    let exe_dir = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf));
    find_inject_lib_in(explicit, std::env::var_os("ROOFLINE_INJECT_LIB").map(PathBuf::from), exe_dir.as_deref())
}

fn find_inject_lib_in(
    explicit: Option<&Path>,
    from_env: Option<PathBuf>,
    exe_dir: Option<&Path>,
) -> Result<PathBuf, RecordError> {
    let mut looked = Vec::new();
    if let Some(p) = explicit {
        if p.is_file() {
            return Ok(p.to_path_buf());
        }
        return Err(RecordError::BadInput(format!(
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
    Err(RecordError::Missing(format!(
        "the injection library {INJECT_LIB} was not found (looked at {}). `cargo build --release` builds it beside the roofline binary (target/release/); `cargo install` installs the binary alone, so after it run `cargo build --release -p roofline-inject && install -D -m 644 target/release/{INJECT_LIB} ~/.cargo/lib/{INJECT_LIB}`; or copy it next to roofline, or set ROOFLINE_INJECT_LIB=/path/to/{INJECT_LIB}",
        looked.join(", ")
    )))
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

/// A libcupti for programs that do not load their own: `--cupti`,
/// `$ROOFLINE_CUPTI_LIB`, then the program's environment and the toolkits
/// (`cupti_search`).
fn find_cupti(explicit: Option<&Path>, command: &[String]) -> Result<Option<PathBuf>, RecordError> {
    if let Some(p) = explicit {
        if p.is_file() {
            return Ok(Some(p.canonicalize().unwrap_or_else(|_| p.to_path_buf())));
        }
        return Err(RecordError::BadInput(format!(
            "--cupti {}: {}; give the path of libcupti.so.13 (in $CUDA_HOME/extras/CUPTI/lib64, or the Python environment's site-packages/nvidia/cu13/lib)",
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
    Ok(first_cupti(&cupti_dirs(command, &|k| std::env::var_os(k))))
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
            let Ok(Ok(mut f)) = crate::reader::open_record_file(&path) else { continue };
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
    /// The program and its arguments.
    pub command: &'a [String],
    /// Stop the program after this long.
    pub timeout: Option<Duration>,
    /// Time between the steps of stopping it (SIGINT, SIGTERM, SIGKILL).
    pub grace: Duration,
    /// Which of its processes are recorded.
    pub target: Target,
    /// The injection library ([`injection`]).
    pub inject: PathBuf,
    /// A libcupti for programs that do not load their own.
    pub cupti: Option<PathBuf>,
    /// Do not record NVTX ranges.
    pub no_nvtx: bool,
    /// Do not record the launch calls.
    pub no_launch_calls: bool,
    /// Keep the record files here instead of a temporary folder.
    pub records: Option<&'a Path>,
    /// How often the program's records reach the file, ms.
    pub flush_ms: u32,
    /// Put before every message ("pass 1/2: ").
    pub label: &'a str,
}

/// Which of the program's processes are recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The program and every process it starts that uses CUDA.
    All,
    /// Only the program itself.
    ApplicationOnly,
}

/// How many kernel launches the record files hold so far, while the
/// program runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecordProgress {
    /// Kernel launches recorded, all processes together.
    pub kernels: u64,
    /// Processes that have written a record file.
    pub processes: usize,
    /// Time since the program started.
    pub elapsed: Duration,
}

/// Who hears what a recording does: its messages, once each, and its
/// progress, as often as it asks.
pub trait Observer {
    /// Something worth saying (what runs, how it ended, what was kept).
    fn info(&mut self, message: &str);
    /// Something the user must know (a missing CUPTI, a failed program).
    fn warn(&mut self, message: &str);
    /// How often to count the records for [`Observer::progress`]; `None`:
    /// never (the record files are then not read until the end).
    fn progress_every(&self) -> Option<Duration>;
    /// The count, every [`Observer::progress_every`].
    fn progress(&mut self, progress: &RecordProgress);
    /// The program has ended; what follows are the messages about its run.
    fn ended(&mut self) {}
}

/// Why a recording could not be made or read.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The user's input is wrong (no program, a bad path, a folder in use).
    #[error("{0}")]
    BadInput(String),
    /// Something the tool needs is missing.
    #[error("{0}")]
    Missing(String),
    /// A file or folder could not be made or read.
    #[error("{context}")]
    Io {
        /// What was being done.
        context: String,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
    /// The program could not be started or waited for.
    #[error(transparent)]
    Child(#[from] roofline_child::ChildError),
    /// The record files could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
}

/// What a recording gave.
pub struct Recorded {
    /// How the program ended.
    pub outcome: roofline_child::Outcome,
    /// What every process recorded.
    pub timeline: Timeline,
    /// The program failed, was interrupted or timed out.
    pub failed: bool,
}

impl Recorded {
    /// The run as the timeline document states it.
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
/// `command` is the program to record: its Python environment is searched for CUPTI.
pub fn injection(
    explicit: Option<&Path>,
    cupti: Option<&Path>,
    command: &[String],
) -> Result<(PathBuf, Option<PathBuf>), RecordError> {
    if let Some(v) = std::env::var_os(env::CUDA_INJECTION) {
        return Err(RecordError::BadInput(format!(
            "{} is already set ({}): another tool injects into CUDA programs here, and only one can; unset it to record a timeline",
            env::CUDA_INJECTION,
            v.to_string_lossy()
        )));
    }
    Ok((find_inject_lib(explicit)?, find_cupti(cupti, command)?))
}

/// Runs the program once with the injection library, as an owned child,
/// and reads what every process recorded, whatever ended it.
pub fn record(o: &RecordOptions, out: &mut dyn Observer) -> Result<Recorded, RecordError> {
    let Some((program, program_args)) = o.command.split_first() else {
        return Err(RecordError::BadInput(
            "no program: give it after --, for example `roofline timeline -- ./app`".into(),
        ));
    };
    let inject = &o.inject;
    if o.cupti.is_none() {
        out.warn("no libcupti.so.13 found (the program's Python environment: site-packages/nvidia/cu13/lib or nvidia/cuda_cupti/lib; $CUDA_HOME/extras/CUPTI/lib64, /usr/local/cuda/extras/CUPTI/lib64, LD_LIBRARY_PATH); a program that loads its own (PyTorch does) is still recorded, others are not: give --cupti PATH");
    }
    let _temp;
    let mut _removed_if_killed = None;
    let dir = match o.records {
        Some(d) => {
            // Before anything is created: a folder that holds other files (`/`,
            // a home folder) would get the run's files among them.
            if let Ok(entries) = std::fs::read_dir(d) {
                let mut others = entries.flatten().filter(|e| e.path().extension().is_none_or(|x| x != "jsonl"));
                if let Some(e) = others.next() {
                    return Err(RecordError::BadInput(format!(
                        "--records {}: the folder already holds other files ({} among them); the records go into a folder of their own: give an empty or new folder",
                        d.display(),
                        e.file_name().to_string_lossy()
                    )));
                }
            }
            std::fs::create_dir_all(d)
                .map_err(|source| RecordError::Io { context: format!("creating --records {}", d.display()), source })?;
            let has_records = std::fs::read_dir(d)
                .map_err(|source| RecordError::Io { context: format!("reading --records {}", d.display()), source })?
                .flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "jsonl"));
            if has_records {
                return Err(RecordError::BadInput(format!(
                    "--records {}: already holds record files (*.jsonl) of another run; give an empty or new folder",
                    d.display()
                )));
            }
            d.canonicalize().unwrap_or_else(|_| d.to_path_buf())
        }
        None => {
            let t =
                tempfile::Builder::new().prefix("roofline-timeline-").tempdir().map_err(|source| RecordError::Io {
                    context: roofline_child::temp_folder_error("creating a temporary folder for the records", &source),
                    source,
                })?;
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
                Target::All => "all",
                Target::ApplicationOnly => "application-only",
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
        o.label,
        o.command.join(" "),
        inject.display()
    ));

    let child = roofline_child::spawn(cmd).map_err(|e| match e {
        roofline_child::ChildError::NotFound { .. }
        | roofline_child::ChildError::LoaderNotFound { .. }
        | roofline_child::ChildError::NotExecutable { .. } => RecordError::BadInput(e.to_string()),
        other => RecordError::Child(other),
    })?;
    let limits = Limits { timeout: o.timeout, grace: o.grace, tick: Duration::from_millis(100) };
    let every = out.progress_every();
    let mut progress = Progress::default();
    let mut last = Duration::ZERO;
    let outcome = child.wait(&limits, |elapsed| {
        if every.is_some_and(|e| elapsed >= last + e) {
            last = elapsed;
            progress.scan(&dir);
            out.progress(&RecordProgress { kernels: progress.kernels, processes: progress.files.len(), elapsed });
        }
    })?;
    out.ended();

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
        out.warn(&format!("{}{note}", o.label));
    } else {
        out.info(&format!("{}{note}", o.label));
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

#[cfg(test)]
mod tests {
    use super::*;

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
