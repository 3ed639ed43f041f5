//! Finding and running Nsight Compute.
//!
//! `ncu` comes from `--ncu PATH`, then `PATH`, then `$CUDA_HOME/bin`, then
//! `/usr/local/cuda/bin`; when none has it, the error says where to get it
//! and that `roofline import` works without it. The profiled program's own
//! output goes to stderr (never into the data on stdout). ncu writes a
//! report (`--export`), read back as CSV when it ends (`--import --csv
//! --page raw`), and its messages to a log whose `==PROF== Profiling` lines,
//! one per launch, are followed while it runs to show progress and an ETA:
//! in `--csv` mode ncu prints none of them (measured on the H200 with
//! Nsight Compute 2025.3.1: results/h200-x2-2026-11-30-ncu-progress). ncu runs as an owned child
//! (roofline-child): its own process group, the tool's SIGINT/SIGTERM
//! forwarded to it and the program, an optional timeout.

use std::collections::HashSet;
use std::io::{BufRead, Seek};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use roofline_child::{Ending, Limits, Outcome};

use crate::metrics;

/// Nsight Compute could not be found or started.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    /// No `ncu` anywhere it was looked for; `import` still works without it.
    #[error("Nsight Compute (ncu) not found: looked at {looked}. Install it with the CUDA toolkit (it is in $CUDA_HOME/bin) or from https://developer.nvidia.com/nsight-compute, or give its path with --ncu PATH. Without it, `roofline import FILE` analyses a CSV that ncu wrote on another machine (`ncu --csv --page raw ./program > capture.csv`).")]
    NotFound {
        /// Every place searched, so the user sees why each was passed over.
        looked: String,
    },
    /// `ncu` was found but could not be started.
    #[error("could not start {ncu}: {source}")]
    Start {
        /// The `ncu` that was tried.
        ncu: String,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// Running or stopping the profiled program failed (see `roofline-child`).
    #[error(transparent)]
    Child(#[from] roofline_child::ChildError),
    /// A file of the run (the CSV ncu writes into) could not be made or read.
    #[error("{what}: {source}")]
    Io {
        /// Which file, and what was being done with it.
        what: String,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
}

/// Where `ncu` is: the explicit path, PATH, `$CUDA_HOME/bin`, `/usr/local/cuda/bin`.
pub fn find_ncu(explicit: Option<&Path>) -> Result<PathBuf, RunnerError> {
    let homes = ["CUDA_HOME", "CUDA_PATH"].map(|v| (v, std::env::var_os(v)));
    find_in(explicit, std::env::var_os("PATH"), &homes, Path::new("/usr/local/cuda/bin"))
}

fn find_in(
    explicit: Option<&Path>,
    path: Option<std::ffi::OsString>,
    homes: &[(&str, Option<std::ffi::OsString>)],
    default_dir: &Path,
) -> Result<PathBuf, RunnerError> {
    let mut looked = Vec::new();
    if let Some(p) = explicit {
        if p.is_file() {
            return Ok(p.to_path_buf());
        }
        let inside = p.join("ncu");
        if inside.is_file() {
            return Ok(inside);
        }
        looked.push(format!("--ncu {}", p.display()));
    }
    if let Some(path) = path {
        for dir in std::env::split_paths(&path) {
            let c = dir.join("ncu");
            if c.is_file() {
                return Ok(c);
            }
        }
        looked.push("PATH".into());
    }
    for (var, home) in homes {
        if let Some(home) = home {
            let c = PathBuf::from(home).join("bin").join("ncu");
            if c.is_file() {
                return Ok(c);
            }
            looked.push(format!("${var}/bin"));
        }
    }
    let c = default_dir.join("ncu");
    if c.is_file() {
        return Ok(c);
    }
    looked.push(default_dir.display().to_string());
    Err(RunnerError::NotFound { looked: looked.join(", ") })
}

/// Kernel filters, passed to ncu as they are.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    /// `-k`: a kernel name or `regex:...`.
    pub kernel_name: Option<String>,
    /// `-c`: how many launches to profile.
    pub launch_count: Option<u64>,
    /// `-s`: how many launches to skip first.
    pub launch_skip: Option<u64>,
    /// `--nvtx-include` (turns on `--nvtx`).
    pub nvtx_include: Vec<String>,
    /// `--nvtx-exclude` (turns on `--nvtx`).
    pub nvtx_exclude: Vec<String>,
}

impl Filters {
    /// The filters as ncu's own flags, in a fixed order (so a command line
    /// shown to the user is reproducible).
    pub fn args(&self) -> Vec<String> {
        let mut a = Vec::new();
        if let Some(k) = &self.kernel_name {
            a.extend(["--kernel-name".to_string(), k.clone()]);
        }
        if let Some(c) = self.launch_count {
            a.extend(["--launch-count".to_string(), c.to_string()]);
        }
        if let Some(s) = self.launch_skip {
            a.extend(["--launch-skip".to_string(), s.to_string()]);
        }
        if !self.nvtx_include.is_empty() || !self.nvtx_exclude.is_empty() {
            a.push("--nvtx".into());
        }
        for n in &self.nvtx_include {
            a.extend(["--nvtx-include".to_string(), n.clone()]);
        }
        for n in &self.nvtx_exclude {
            a.extend(["--nvtx-exclude".to_string(), n.clone()]);
        }
        a
    }
}

/// A profiling run to make.
#[derive(Debug, Clone)]
pub struct Run {
    /// The `ncu` to run (see [`find_ncu`]).
    pub ncu: PathBuf,
    /// The program to profile, run as is (no shell).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Which launches ncu profiles.
    pub filters: Filters,
    /// `--clock-control` (default `none`: never touch the clocks).
    pub clock_control: String,
    /// `--print-units` (default `base`).
    pub print_units: String,
    /// Metrics to collect; `None`: the list for this GPU (see [`metric_list`]).
    pub metrics: Option<Vec<String>>,
    /// More arguments for ncu, before the program.
    pub extra: Vec<String>,
    /// Print options for reading the report back (`--print-kernel-base
    /// mangled`): ncu applies them when it prints, not when it profiles.
    pub read_back: Vec<String>,
    /// Where ncu writes its CSV.
    pub log_file: PathBuf,
}

/// A folder only this user can enter, for ncu's log (`ncu.csv` inside it):
/// a fixed name in the shared temp folder (`/tmp/roofline-ncu-PID.csv`)
/// can be planted as a symlink by another user, and ncu would write
/// through it. The folder and the log go when the `TempDir` is dropped.
pub fn private_log() -> Result<(tempfile::TempDir, PathBuf), RunnerError> {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix("roofline-ncu-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
        .map_err(|source| RunnerError::Io {
            what: roofline_child::temp_folder_error("creating a private folder for ncu's log", &source),
            source,
        })?;
    let log = dir.path().join("ncu.csv");
    Ok((dir, log))
}

/// How long a question to a helper (`ncu --query-metrics`, `ncu --help`,
/// `nvidia-smi`) may take: they answer in seconds, and one that never
/// answers is stopped rather than waited on (the answer is then unknown).
/// Less when the run's own `--timeout` leaves less (see [`Deadline`]).
pub const HELPER_TIMEOUT: Duration = Duration::from_secs(20);

/// When the run must be over (`--timeout` from its start), if ever: a
/// helper asked before the profile gets at most what is left of it, so a
/// `--timeout 5s` is never spent waiting 20 s on `ncu --query-metrics`.
pub type Deadline = Option<std::time::Instant>;

/// What a helper printed on stdout when it answered in time and succeeded
/// (`None` at once when the deadline has passed).
fn ask(program: &Path, args: &[&str], deadline: Deadline) -> Option<String> {
    let left = match deadline {
        Some(d) => d.checked_duration_since(std::time::Instant::now()).filter(|l| !l.is_zero())?,
        None => HELPER_TIMEOUT,
    };
    ask_within(program, args, left.min(HELPER_TIMEOUT))
}

fn ask_within(program: &Path, args: &[&str], timeout: Duration) -> Option<String> {
    let mut cmd = Command::new(program);
    cmd.args(args);
    let limits = Limits { timeout: Some(timeout), grace: Duration::from_secs(2), ..Limits::default() };
    let got = roofline_child::capture(cmd, &limits).ok()?;
    (got.outcome.ending == Ending::Finished && got.outcome.status.success())
        .then(|| String::from_utf8_lossy(&got.stdout).into_owned())
}

/// The base metric names this ncu knows for the local GPU
/// (`ncu --query-metrics`), or `None` when the query fails (no GPU).
pub fn query_known(ncu: &Path, deadline: Deadline) -> Option<HashSet<String>> {
    let known = metrics::parse_query_output(&ask(ncu, &["--query-metrics"], deadline)?);
    (!known.is_empty()).then_some(known)
}

/// `ncu --help`, to see which options this version has (empty when it
/// cannot be run).
pub fn help_text(ncu: &Path, deadline: Deadline) -> String {
    ask(ncu, &["--help"], deadline).unwrap_or_default()
}

/// The compute capability's major number, from nvidia-smi when present.
pub fn local_cc_major(deadline: Deadline) -> Option<u32> {
    let text = ask(Path::new("nvidia-smi"), &["--query-gpu=compute_cap", "--format=csv,noheader"], deadline)?;
    text.lines().next()?.trim().split('.').next()?.parse().ok()
}

/// The metrics to collect on this machine, and those this ncu does not know.
pub fn metric_list(ncu: &Path, deadline: Deadline) -> (Vec<String>, Vec<String>) {
    let known = query_known(ncu, deadline);
    metrics::metrics_for(local_cc_major(deadline), known.as_ref())
}

impl Run {
    /// The Nsight Compute report ncu writes while it profiles; it is read
    /// back as CSV into [`Run::log_file`] when ncu ends, whatever the way.
    pub fn report_file(&self) -> PathBuf {
        self.log_file.with_extension("ncu-rep")
    }

    /// ncu's own messages while it runs: one `==PROF== Profiling` line per
    /// launch as it is profiled (ncu prints none of those in `--csv` mode,
    /// which is why the counters go through a report).
    pub fn message_file(&self) -> PathBuf {
        self.log_file.with_extension("log")
    }

    /// ncu's command line, program included.
    pub fn command_line(&self, metric_names: &[String]) -> Vec<String> {
        let mut a = vec![
            "--clock-control".to_string(),
            self.clock_control.clone(),
            "--metrics".into(),
            metric_names.join(","),
            "--export".into(),
            self.report_file().display().to_string(),
            "--force-overwrite".into(),
            "--log-file".into(),
            self.message_file().display().to_string(),
        ];
        a.extend(self.filters.args());
        a.extend(self.extra.iter().cloned());
        a.push(self.program.clone());
        a.extend(self.args.iter().cloned());
        a
    }

    /// The command line that reads the report back as the CSV
    /// `roofline import` reads (`--csv --page raw`, in `--print-units`).
    pub fn export_command_line(&self) -> Vec<String> {
        vec![
            "--import".to_string(),
            self.report_file().display().to_string(),
            "--csv".into(),
            "--page".into(),
            "raw".into(),
            "--print-units".into(),
            self.print_units.clone(),
        ]
        .into_iter()
        .chain(self.read_back.iter().cloned())
        .collect()
    }

    /// Runs ncu to completion. `progress` receives each `==PROF==`,
    /// `==WARNING==` and `==ERROR==` line of ncu's messages as it appears
    /// (one per profiled launch), and a heartbeat every [`HEARTBEAT`].
    /// Returns ncu's exit status (the program's).
    pub fn execute(
        &self,
        metric_names: &[String],
        progress: impl FnMut(Progress) + Send + 'static,
    ) -> Result<ExitStatus, RunnerError> {
        Ok(self.execute_with(metric_names, &Limits::default(), progress)?.status)
    }

    /// As [`Run::execute`], with a timeout and the way ncu ended (finished,
    /// interrupted by a signal to the tool, timed out). However ncu ended,
    /// the launches it profiled are then read from its report into
    /// [`Run::log_file`] (ncu writes the report when it is stopped, too).
    pub fn execute_with(
        &self,
        metric_names: &[String],
        limits: &Limits,
        progress: impl FnMut(Progress) + Send + 'static,
    ) -> Result<Outcome, RunnerError> {
        for stale in [self.log_file.clone(), self.report_file(), self.message_file()] {
            let _ = std::fs::remove_file(stale);
        }
        let mut cmd = Command::new(&self.ncu);
        cmd.args(self.command_line(metric_names))
            .stdin(Stdio::inherit())
            .stdout(Stdio::from(std::io::stderr()))
            .stderr(Stdio::inherit());
        let child = roofline_child::spawn(cmd).map_err(|e| match e {
            roofline_child::ChildError::Start { source, .. }
            | roofline_child::ChildError::NotExecutable { source, .. } => {
                RunnerError::Start { ncu: self.ncu.display().to_string(), source }
            }
            other => RunnerError::Child(other),
        })?;
        let done = Arc::new(AtomicBool::new(false));
        let watcher = {
            let done = done.clone();
            let path = self.message_file();
            std::thread::spawn(move || follow(&path, &done, progress))
        };
        let outcome = child.wait(limits, |_| {});
        done.store(true, Ordering::SeqCst);
        let _ = watcher.join();
        let outcome = outcome?;
        // Reading the report back gets what is left of the time limit (and
        // at least half a minute, so a run stopped at its limit is still read).
        let left = limits.timeout.map(|t| t.saturating_sub(outcome.wall).max(Duration::from_secs(30)));
        self.export_report(&Limits { timeout: left, ..*limits })?;
        Ok(outcome)
    }

    /// Writes [`Run::log_file`] as ncu's `--csv` mode would have: its
    /// messages (`==PROF==`, `==ERROR==`: a counter-permission error or a
    /// crash is read from there), then the report read back as CSV. No
    /// report (ncu stopped before it profiled anything) leaves the messages
    /// alone, which the reader reports as a capture without launches. When
    /// the report cannot be read back, ncu's complaint goes in as an
    /// `==ERROR==` line, so the reader says why there are no launches.
    fn export_report(&self, limits: &Limits) -> Result<(), RunnerError> {
        use std::io::Write;
        let io = |path: &Path, source| RunnerError::Io { what: format!("writing {}", path.display()), source };
        let mut csv = std::fs::File::create(&self.log_file).map_err(|e| io(&self.log_file, e))?;
        let messages = std::fs::read(self.message_file()).unwrap_or_default();
        for line in messages.split_inclusive(|b| *b == b'\n') {
            if !line.starts_with(b"==PROF== Profiling") {
                csv.write_all(line).map_err(|e| io(&self.log_file, e))?;
            }
        }
        if !self.report_file().is_file() {
            return Ok(());
        }
        // The child writes on from where the messages end (a shared offset).
        csv.flush().map_err(|e| io(&self.log_file, e))?;
        // An owned child: a signal to the tool stops it, and so does the
        // time limit, rather than an export that never returns.
        let stderr = tempfile::tempfile().map_err(|e| io(&self.log_file, e))?;
        let mut cmd = Command::new(&self.ncu);
        cmd.args(self.export_command_line())
            .stdin(Stdio::null())
            .stdout(csv.try_clone().map_err(|e| io(&self.log_file, e))?)
            .stderr(stderr.try_clone().map_err(|e| io(&self.log_file, e))?);
        let start = |source| RunnerError::Start { ncu: self.ncu.display().to_string(), source };
        let child = roofline_child::spawn(cmd).map_err(|e| match e {
            roofline_child::ChildError::Start { source, .. }
            | roofline_child::ChildError::NotExecutable { source, .. } => start(source),
            other => RunnerError::Child(other),
        })?;
        let out = child.wait(limits, |_| {})?;
        if out.ending != Ending::Finished || !out.status.success() {
            let mut said = String::new();
            let mut stderr = stderr;
            use std::io::{Read, Seek};
            let _ = stderr.seek(std::io::SeekFrom::Start(0)).and_then(|_| stderr.read_to_string(&mut said));
            let said = said.lines().rev().take(3).collect::<Vec<_>>().join(" | ");
            let how = match out.ending {
                Ending::TimedOut => "stopped at the time limit".to_string(),
                Ending::Interrupted { signal } => {
                    format!("stopped by {} to roofline", roofline_child::signal_name(signal))
                }
                Ending::Finished => out.describe(),
            };
            writeln!(
                csv,
                "==ERROR== reading ncu's report {} back as CSV failed ({how}): {said}",
                self.report_file().display(),
            )
            .map_err(|e| io(&self.log_file, e))?;
        } else {
            // Everything in it is now in the CSV's preamble.
            let _ = std::fs::remove_file(self.message_file());
        }
        Ok(())
    }
}

/// What a running profile reports.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// A `==PROF==`/`==WARNING==`/`==ERROR==` line of ncu's messages.
    Line(String),
    /// Still running, this long so far.
    Elapsed(Duration),
}

/// How often a running profile says it is still running.
pub const HEARTBEAT: Duration = Duration::from_secs(10);

/// Follows ncu's growing message file, handing over its own lines.
fn follow(path: &Path, done: &AtomicBool, mut progress: impl FnMut(Progress)) {
    let mut pos = 0u64;
    let mut partial = String::new();
    let start = std::time::Instant::now();
    let mut next_beat = HEARTBEAT;
    loop {
        if start.elapsed() >= next_beat {
            progress(Progress::Elapsed(start.elapsed()));
            next_beat += HEARTBEAT;
        }
        let finished = done.load(Ordering::SeqCst);
        if let Ok(mut f) = std::fs::File::open(path) {
            if f.seek(std::io::SeekFrom::Start(pos)).is_ok() {
                let mut r = std::io::BufReader::new(f);
                let mut buf = Vec::new();
                while let Ok(n) = r.read_until(b'\n', &mut buf) {
                    if n == 0 {
                        break;
                    }
                    pos += n as u64;
                    partial.push_str(&String::from_utf8_lossy(&buf));
                    buf.clear();
                    if partial.ends_with('\n') {
                        let line = partial.trim_end();
                        if line.starts_with("==PROF==")
                            || line.starts_with("==ERROR==")
                            || line.starts_with("==WARNING==")
                        {
                            progress(Progress::Line(line.to_string()));
                        }
                        partial.clear();
                    }
                }
            }
        }
        if finished {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The kernel name of a progress line: `==PROF== Profiling "vecadd" - 3:
/// 0%....50%....100% - 9 passes`, or without the launch number (`"vecadd":
/// 0%...`) as ncu prints it when kernel filters are given.
pub fn parse_progress(line: &str) -> Option<String> {
    let rest = line.strip_prefix("==PROF== Profiling \"")?;
    let end = rest.find('"')?;
    Some(rest[..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_helper_that_never_answers_is_stopped_not_waited_on() {
        // Found by the fourth adversarial pass (H1): an ncu whose
        // --query-metrics, or an nvidia-smi, never returned hung `profile`.
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let helper = dir.path().join("ncu");
        std::fs::write(&helper, "#!/bin/sh\necho partial\nexec sleep 300\n").unwrap();
        std::fs::set_permissions(&helper, std::fs::Permissions::from_mode(0o755)).unwrap();
        let start = std::time::Instant::now();
        assert_eq!(ask_within(&helper, &["--query-metrics"], Duration::from_millis(300)), None);
        assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
        let answers = dir.path().join("smi");
        std::fs::write(&answers, "#!/bin/sh\necho 9.0\n").unwrap();
        std::fs::set_permissions(&answers, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(ask_within(&answers, &[], Duration::from_secs(30)).as_deref(), Some("9.0\n"));
    }

    #[test]
    fn progress_lines() {
        assert_eq!(
            parse_progress("==PROF== Profiling \"vecadd\" - 3: 0%....50%....100% - 9 passes"),
            Some("vecadd".to_string())
        );
        // With kernel filters (two passes) ncu leaves the number out, as on the H200.
        assert_eq!(
            parse_progress("==PROF== Profiling \"nvjet_sm90_tst_192x192\": 0%....50%....100% - 23 passes"),
            Some("nvjet_sm90_tst_192x192".to_string())
        );
        assert_eq!(parse_progress("==PROF== Connected to process 1"), None);
    }

    #[test]
    fn the_log_goes_in_a_private_folder_that_is_removed() {
        use std::os::unix::fs::PermissionsExt;
        let (dir, log) = private_log().unwrap();
        let folder = dir.path().to_path_buf();
        assert_eq!(log.parent(), Some(folder.as_path()));
        assert_ne!(folder, std::env::temp_dir());
        assert_eq!(std::fs::metadata(&folder).unwrap().permissions().mode() & 0o777, 0o700);
        std::fs::write(&log, "x").unwrap();
        drop(dir);
        assert!(!folder.exists());
    }

    #[test]
    fn ncu_is_found_in_cuda_home() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("bin")).unwrap();
        std::fs::write(dir.path().join("bin").join("ncu"), "").unwrap();
        let found = find_in(None, None, &[("CUDA_HOME", Some(dir.path().as_os_str().to_owned()))], Path::new("/x"));
        assert_eq!(found.unwrap(), dir.path().join("bin").join("ncu"));
    }

    #[test]
    fn missing_ncu_says_how_to_get_it() {
        let dir = tempfile::tempdir().unwrap();
        let e = find_in(
            Some(Path::new("/nonexistent/ncu")),
            Some(dir.path().as_os_str().to_owned()),
            &[("CUDA_HOME", Some(dir.path().as_os_str().to_owned()))],
            dir.path(),
        )
        .unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("$CUDA_HOME/bin") && msg.contains("PATH"), "{msg}");
        assert!(msg.contains("--ncu") && msg.contains("nsight-compute") && msg.contains("roofline import"), "{msg}");
    }

    #[test]
    fn filters_pass_through() {
        let f = Filters {
            kernel_name: Some("regex:gemm".into()),
            launch_count: Some(4),
            launch_skip: Some(1),
            nvtx_include: vec!["gemms/".into()],
            nvtx_exclude: vec![],
        };
        assert_eq!(
            f.args(),
            [
                "--kernel-name",
                "regex:gemm",
                "--launch-count",
                "4",
                "--launch-skip",
                "1",
                "--nvtx",
                "--nvtx-include",
                "gemms/"
            ]
        );
    }
}
