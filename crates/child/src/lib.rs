//! `roofline-child`: the programs the tool runs (the user's program, ncu),
//! owned so that nothing is orphaned and nothing hangs.
//!
//! - The child runs in its own process group, so that a terminal's Ctrl-C
//!   reaches the tool alone and the tool decides what the program gets.
//! - SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to the tool (a CI runner
//!   cancelling a job signals the tool's pid only) are forwarded to the whole
//!   group; if the group is still running [`Limits::grace`] later it gets
//!   SIGTERM, then SIGKILL. A second signal sends SIGKILL at once.
//! - `--timeout`: when it expires the group gets SIGINT (a Python program
//!   then unwinds and its exit handlers still run), then the same escalation.
//! - On Linux the child also gets SIGTERM if the tool itself dies
//!   (`PR_SET_PDEATHSIG`). A SIGKILL of the tool reaches no handler, and
//!   the child's own children (the program under ncu) would run on: a
//!   small watchdog (`sh`, in a group of its own) holds a pipe from the
//!   tool and, when the pipe closes without the tool saying the child was
//!   waited for, stops the child's whole group and removes the
//!   temporary folders of the run ([`remove_if_killed`]).
//! - Helpers that left the group (`setsid`, a daemonizing launcher) are
//!   still the program's: once stopping begins, the tool walks the
//!   program's process tree (`/proc`) at every step and signals each
//!   descendant with the group. The tool is also a child subreaper
//!   (`PR_SET_CHILD_SUBREAPER`), so helpers orphaned by a parent that died
//!   are reparented to it instead of to PID 1, and it reaps those it killed
//!   (a container's PID 1 often reaps nothing, which leaves zombies).
//! - The default grace is [`DEFAULT_GRACE`]: long enough for a Python
//!   program or CUPTI to flush on SIGINT, short enough that a helper that
//!   ignores SIGINT does not keep a cancelled CI job waiting.
//!
//! While a child is supervised the tool's own handlers for those signals
//! only record them; the previous handlers come back when the child has
//! been waited for, so that the tool can still write what it collected.
//! One child is supervised at a time.
//!
//! ```
//! use std::process::Command;
//! use std::time::Duration;
//! use roofline_child::{spawn, Ending, Limits};
//!
//! // A program that outlives its timeout is stopped (SIGINT first) and said so.
//! let mut cmd = Command::new("sleep");
//! cmd.arg("30");
//! let limits = Limits { timeout: Some(Duration::from_millis(200)), grace: Duration::from_secs(1), ..Limits::default() };
//! let outcome = spawn(cmd).unwrap().wait(&limits, |_elapsed| {}).unwrap();
//! assert_eq!(outcome.ending, Ending::TimedOut);
//! assert_eq!(outcome.describe(), "was stopped by SIGINT");
//!
//! // A name that is not on PATH is the user's mistake, with the fix in the message.
//! let Err(err) = spawn(Command::new("no-such-program-roofline")) else { panic!("it started") };
//! assert!(err.to_string().contains("not found; check the name"));
//! ```

#![deny(missing_docs)]

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The signals forwarded to the child's group.
pub const FORWARDED: [i32; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// Signals whose default action ends the tool but which mean nothing to the
/// program (`kill -USR1`, an alarm): while a child is supervised they stop
/// it with SIGTERM, as a cancellation would, rather than orphan it.
pub const STOPPING: [i32; 3] = [libc::SIGUSR1, libc::SIGUSR2, libc::SIGALRM];

/// A child could not be started or waited for.
#[derive(Debug, thiserror::Error)]
pub enum ChildError {
    /// No file of that name on `PATH` (or at that path): the user mistyped
    /// the program, which is bad usage rather than a failure of the tool.
    #[error("{program}: not found; check the name, or give its path (it is run as is, not through a shell)")]
    NotFound {
        /// The program as the user gave it.
        program: String,
    },
    /// The program's file exists, but what would run it does not: the
    /// interpreter its `#!` line names, or the loader an ELF binary names
    /// (exec says ENOENT for both, as for a missing program).
    #[error("{program}: the file exists, but {loader} was not found; {fix}")]
    LoaderNotFound {
        /// The program as the user gave it.
        program: String,
        /// What was not found, quoted from the file.
        loader: String,
        /// How to fix it.
        fix: String,
    },
    /// The file exists but may not be run: told apart from `NotFound` so
    /// the message points at permissions, not at the name.
    #[error("{program}: not executable ({source}); check its permissions")]
    NotExecutable {
        /// The program as the user gave it.
        program: String,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// Any other failure to start (no memory for the fork, too many
    /// processes): the system's own error, kept as the source.
    #[error("could not start {program}: {source}")]
    Start {
        /// The program as the user gave it.
        program: String,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// Waiting for the child failed, so its exit status is unknown.
    #[error("waiting for {program}: {source}")]
    Wait {
        /// The program that was running.
        program: String,
        /// What `waitpid` said.
        #[source]
        source: std::io::Error,
    },
    /// The signal handlers are process-wide, so a second supervised child
    /// would steal the first one's forwarding: refused instead.
    #[error("another child is already supervised in this process")]
    Busy,
}

/// The default time between the steps of stopping (see the module docs).
pub const DEFAULT_GRACE: Duration = Duration::from_secs(5);

/// How long to wait, and how to stop.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Stop the program after this long.
    pub timeout: Option<Duration>,
    /// Time between the steps of stopping (signal, SIGTERM, SIGKILL).
    pub grace: Duration,
    /// How often `tick` is called while waiting.
    pub tick: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { timeout: None, grace: DEFAULT_GRACE, tick: Duration::from_millis(100) }
    }
}

/// Why the program ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It ended on its own (exit or crash).
    Finished,
    /// The tool got this signal and stopped the program.
    Interrupted {
        /// The signal the tool received (and forwarded first).
        signal: i32,
    },
    /// `--timeout` expired.
    TimedOut,
}

/// A waited-for child.
#[derive(Debug, Clone, Copy)]
pub struct Outcome {
    /// The program's own exit status, as `waitpid` gave it.
    pub status: ExitStatus,
    /// Whether the program ended by itself or was stopped by the tool:
    /// the status alone cannot tell a forwarded SIGINT from a crash.
    pub ending: Ending,
    /// Wall-clock time from spawn to the end of the wait.
    pub wall: Duration,
    /// Unix time of the start, in nanoseconds: lines the run up with the
    /// timestamps of records the program wrote (CUPTI, ncu).
    pub started_unix_ns: u64,
    /// Unix time of the end, in nanoseconds.
    pub ended_unix_ns: u64,
    /// Processes the program left running when it exited by itself
    /// (background jobs still in its group, helpers it orphaned): they
    /// were stopped like a stopped program's (SIGTERM, then SIGKILL after
    /// the grace), and the caller says so.
    pub left_running: usize,
}

impl Outcome {
    /// The exit code, or `None` when a signal ended the program.
    pub fn exit_code(&self) -> Option<i32> {
        self.status.code()
    }

    /// The signal that killed the program, if one did.
    pub fn signal(&self) -> Option<i32> {
        self.status.signal()
    }

    /// "exited with status 3", "was stopped by SIGINT", "exited normally".
    pub fn describe(&self) -> String {
        match (self.status.code(), self.status.signal()) {
            (Some(0), _) => "exited normally".into(),
            (Some(c), _) => format!("exited with status {c}"),
            (None, Some(s)) => format!("was stopped by {}", signal_name(s)),
            _ => format!("ended ({})", self.status),
        }
    }
}

/// The usual name of a signal number.
pub fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGTERM => "SIGTERM",
        _ => return format!("signal {sig}"),
    };
    name.to_string()
}

fn unix_ns() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

// Signal bookkeeping: the handler only stores, which is async-signal-safe.
static SUPERVISING: AtomicBool = AtomicBool::new(false);
static LAST_SIGNAL: AtomicI32 = AtomicI32::new(0);
static SIGNAL_COUNT: AtomicUsize = AtomicUsize::new(0);

extern "C" fn record_signal(sig: libc::c_int) {
    LAST_SIGNAL.store(sig, Ordering::SeqCst);
    SIGNAL_COUNT.fetch_add(1, Ordering::SeqCst);
}

/// The tool's handlers while a child runs; the old ones come back on drop.
struct SignalGuard {
    old: Vec<(i32, libc::sigaction)>,
}

impl SignalGuard {
    fn install() -> Result<SignalGuard, ChildError> {
        if SUPERVISING.swap(true, Ordering::SeqCst) {
            return Err(ChildError::Busy);
        }
        LAST_SIGNAL.store(0, Ordering::SeqCst);
        SIGNAL_COUNT.store(0, Ordering::SeqCst);
        let mut old = Vec::new();
        for sig in FORWARDED.into_iter().chain(STOPPING) {
            // SAFETY: plain sigaction calls with zeroed, then filled, structs;
            // the handler touches atomics only.
            unsafe {
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = record_signal as extern "C" fn(libc::c_int) as usize;
                act.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut act.sa_mask);
                let mut prev: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, &act, &mut prev) == 0 {
                    old.push((sig, prev));
                }
            }
        }
        Ok(SignalGuard { old })
    }
}

impl Drop for SignalGuard {
    fn drop(&mut self) {
        for (sig, prev) in &self.old {
            // SAFETY: restores the action saved by `install`.
            unsafe {
                libc::sigaction(*sig, prev, std::ptr::null_mut());
            }
        }
        SUPERVISING.store(false, Ordering::SeqCst);
    }
}

/// A running child in its own process group.
pub struct OwnedChild {
    child: Child,
    program: String,
    started: Instant,
    started_unix_ns: u64,
    /// Descendants seen once stopping began, by (pid, start time): a pid
    /// reused by an unrelated process is never signalled.
    descendants: Vec<(i32, u64)>,
    /// Stops the group if the tool dies before the child is waited for.
    watchdog: Option<Watchdog>,
    _guard: SignalGuard,
}

/// The watchdog of a child: `sh` reading lines from the tool. `rm PATH`
/// adds a folder to remove, `pg N` names the child's group, `done` ends it
/// quietly; the end of its input (the tool died) stops the group (SIGTERM;
/// SIGKILL if it still runs 2 s later) and removes the folders, then ends.
/// It is started and given the folders before the child exists: a tool
/// killed just after the child started (CI on a loaded machine did that)
/// still has its folders removed.
struct Watchdog {
    process: Child,
    to: std::process::ChildStdin,
}

const WATCHDOG: &str = r#"pg=
while IFS= read -r line; do
  case "$line" in
    done) exit 0 ;;
    "pg "*) pg=${line#pg } ;;
    "rm "*) set -- "$@" "${line#rm }" ;;
  esac
done
if [ -n "$pg" ]; then
  kill -TERM "-$pg" 2>/dev/null
  i=0
  while [ $i -lt 20 ] && kill -0 "-$pg" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
  kill -KILL "-$pg" 2>/dev/null
fi
[ $# -gt 0 ] && rm -rf -- "$@"
exit 0"#;

/// The temporary folders the watchdogs of children started from now on
/// remove if the tool is killed while they run.
static KILL_CLEANUP: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Why a temporary folder could not be made, in words a user can act on:
/// the folder the temporary files go in comes from `TMPDIR` (else
/// `/tmp`), and "No such file or directory" names neither. `what` says
/// what the folder was for ("a private folder for ncu's log").
pub fn temp_folder_error(what: &str, source: &std::io::Error) -> String {
    let base = std::env::temp_dir();
    let from = match std::env::var_os("TMPDIR") {
        Some(v) if !v.is_empty() => format!("TMPDIR={}", std::path::Path::new(&v).display()),
        _ => "the default temporary folder".to_string(),
    };
    let why = match std::fs::metadata(&base) {
        Err(_) => "does not exist".to_string(),
        Ok(m) if !m.is_dir() => "is not a folder".to_string(),
        Ok(_) => format!("cannot hold a new folder ({source})"),
    };
    format!(
        "{what}: the temporary folder {} ({from}) {why}; set TMPDIR to a folder that exists and that you can write (export TMPDIR=/tmp), or create it",
        base.display()
    )
}

/// A temporary folder of the run (ncu's log, the timeline's records) that
/// is removed if the tool is killed (SIGKILL) while a child started after
/// this call runs; otherwise its owner removes it (or keeps it) as usual.
/// Dropping the guard takes the folder off the list.
pub fn remove_if_killed(folder: &std::path::Path) -> RemovedIfKilled {
    KILL_CLEANUP.lock().unwrap_or_else(|e| e.into_inner()).push(folder.to_path_buf());
    RemovedIfKilled(folder.to_path_buf())
}

/// See [`remove_if_killed`].
#[must_use = "the folder is on the list only while the guard lives"]
pub struct RemovedIfKilled(std::path::PathBuf);

impl Drop for RemovedIfKilled {
    fn drop(&mut self) {
        let mut list = KILL_CLEANUP.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = list.iter().position(|p| *p == self.0) {
            list.remove(i);
        }
    }
}

impl Watchdog {
    /// Starts the watchdog and gives it the folders of [`remove_if_killed`].
    fn start() -> Option<Watchdog> {
        use std::io::Write;
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", WATCHDOG, "roofline-watchdog"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .process_group(0);
        let mut process = cmd.spawn().ok()?;
        let mut to = process.stdin.take()?;
        for folder in KILL_CLEANUP.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            let text = folder.display().to_string();
            if !text.contains('\n') {
                let _ = to.write_all(format!("rm {text}\n").as_bytes());
            }
        }
        Some(Watchdog { process, to })
    }

    /// The child started: its group is the one to stop if the tool dies.
    fn watch(&mut self, group: u32) {
        use std::io::Write;
        let _ = self.to.write_all(format!("pg {group}\n").as_bytes());
    }

    /// The child was waited for: the watchdog ends without a signal.
    fn dismiss(mut self) {
        use std::io::Write;
        let _ = self.to.write_all(b"done\n");
        drop(self.to);
        let _ = self.process.wait();
    }
}

/// Starts `cmd` as an owned child (see the module docs). The command's
/// stdio and environment are the caller's choice.
pub fn spawn(mut cmd: Command) -> Result<OwnedChild, ChildError> {
    let program = cmd.get_program().to_string_lossy().to_string();
    let guard = SignalGuard::install()?;
    cmd.process_group(0);
    #[cfg(target_os = "linux")]
    {
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: prctl and getppid are async-signal-safe; nothing else runs
        // between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                if libc::getppid() != parent {
                    // The tool died between fork and prctl.
                    libc::raise(libc::SIGTERM);
                }
                Ok(())
            });
        }
    }
    #[cfg(target_os = "linux")]
    // SAFETY: a process-wide flag; orphans of the program come to the tool.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
    }
    let mut watchdog = Watchdog::start();
    let started = Instant::now();
    let started_unix_ns = unix_ns();
    let child = match cmd.spawn() {
        Ok(child) => child,
        Err(source) => {
            if let Some(w) = watchdog {
                w.dismiss();
            }
            return Err(start_error(&cmd, &program, source));
        }
    };
    if let Some(w) = &mut watchdog {
        w.watch(child.id());
    }
    Ok(OwnedChild { child, program, started, started_unix_ns, descendants: Vec::new(), watchdog, _guard: guard })
}

fn start_error(cmd: &Command, program: &str, source: std::io::Error) -> ChildError {
    match source.kind() {
        std::io::ErrorKind::NotFound => match program_file(cmd) {
            Some(file) => {
                let (loader, fix) = loader_of(&file);
                ChildError::LoaderNotFound { program: program.to_string(), loader, fix }
            }
            None => ChildError::NotFound { program: program.to_string() },
        },
        std::io::ErrorKind::PermissionDenied => ChildError::NotExecutable { program: program.to_string(), source },
        _ => ChildError::Start { program: program.to_string(), source },
    }
}

/// The regular file `cmd` runs, looked up as exec does: a name with a `/`
/// as is (from the command's folder), else the first file of that name on
/// the command's `PATH`. `None` when there is none.
fn program_file(cmd: &Command) -> Option<PathBuf> {
    let program = Path::new(cmd.get_program());
    let is_file = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file());
    if program.as_os_str().as_encoded_bytes().contains(&b'/') {
        let file = match cmd.get_current_dir() {
            Some(dir) if program.is_relative() => dir.join(program),
            _ => program.to_path_buf(),
        };
        return is_file(&file).then_some(file);
    }
    let path = match cmd.get_envs().find(|(k, _)| *k == "PATH") {
        Some((_, set)) => set.map(OsStr::to_os_string),
        None => std::env::var_os("PATH"),
    }?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|f| is_file(f))
}

/// What runs `file` (quoted from it) and how to fix its absence: the `#!`
/// line of a script, the loader (`PT_INTERP`) of an ELF binary.
fn loader_of(file: &Path) -> (String, String) {
    // The #! line and an ELF's program headers are at its start.
    let mut head = Vec::new();
    if let Ok(f) = std::fs::File::open(file) {
        let _ = f.take(64 << 10).read_to_end(&mut head);
    }
    if let Some(line) = head.strip_prefix(b"#!") {
        let line = line.split(|&b| b == b'\n').next().unwrap_or_default();
        let line = String::from_utf8_lossy(line).trim().to_string();
        return (
            format!("its interpreter (its first line, `#!{line}`)"),
            "install that interpreter, or change the #! line to one that exists (`#!/usr/bin/env NAME` finds NAME on PATH)"
                .into(),
        );
    }
    let fix = "it was likely built for another system (another C library or architecture): rebuild it here".to_string();
    match elf_interpreter(&head) {
        Some(interp) => (format!("its loader {interp} (the dynamic linker it was built for)"), fix),
        None => ("its loader (the dynamic linker it names)".into(), fix),
    }
}

/// The `PT_INTERP` path of a 64-bit little-endian ELF file, from its first
/// bytes.
fn elf_interpreter(bytes: &[u8]) -> Option<String> {
    if !(bytes.starts_with(b"\x7fELF") && bytes.get(4) == Some(&2) && bytes.get(5) == Some(&1)) {
        return None;
    }
    let u64_at = |o: usize| Some(u64::from_le_bytes(bytes.get(o..o + 8)?.try_into().ok()?) as usize);
    let u16_at = |o: usize| Some(u16::from_le_bytes(bytes.get(o..o + 2)?.try_into().ok()?) as usize);
    let (phoff, phentsize, phnum) = (u64_at(0x20)?, u16_at(0x36)?, u16_at(0x38)?);
    (0..phnum).find_map(|i| {
        let ph = phoff.checked_add(i.checked_mul(phentsize)?)?;
        let kind = u32::from_le_bytes(bytes.get(ph..ph + 4)?.try_into().ok()?);
        if kind != 3 {
            return None;
        }
        let (offset, size) = (u64_at(ph + 8)?, u64_at(ph + 32)?);
        let name = bytes.get(offset..offset.checked_add(size)?)?;
        Some(String::from_utf8_lossy(name).trim_end_matches('\0').to_string())
    })
}

impl OwnedChild {
    /// The child's pid, which is also its process group id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    fn signal_group(&self, sig: i32) {
        // SAFETY: kill on our own child's group id.
        unsafe {
            libc::kill(-(self.child.id() as libc::pid_t), sig);
        }
    }

    /// Adds the program's current descendants (its whole tree, whatever
    /// their group) to those to stop.
    fn track_descendants(&mut self) {
        let table = process_table();
        for (pid, start) in tree_of(self.child.id() as i32, &table) {
            if !self.descendants.contains(&(pid, start)) {
                self.descendants.push((pid, start));
            }
        }
        // Those orphaned earlier now have the tool as parent (subreaper).
        let me = std::process::id() as i32;
        for (&pid, info) in &table {
            if info.ppid == me && pid != self.child.id() as i32 && !self.descendants.contains(&(pid, info.start)) {
                // Only strays of this program: the tool starts no other
                // child while one is supervised (see `Busy`).
                self.descendants.push((pid, info.start));
            }
        }
    }

    /// Signals the group and every tracked descendant still alive.
    fn signal_all(&mut self, sig: i32) {
        self.signal_group(sig);
        self.track_descendants();
        let table = process_table();
        for &(pid, start) in &self.descendants {
            if table.get(&pid).is_some_and(|p| p.start == start) {
                // SAFETY: a process of the program's tree, checked by start time.
                unsafe {
                    libc::kill(pid, sig);
                }
            }
        }
    }

    /// After the program exited by itself: what it left running in its
    /// process group (background jobs), with their own descendants.
    /// Stopped with SIGTERM, then SIGKILL after `grace`; returns how many
    /// there were. A helper that left the group on purpose (`setsid`, a
    /// daemon) is left alone: nothing marks it as the run's once its parent
    /// is gone (the tool's other children are reparented orphans too).
    fn stop_what_was_left(&mut self, grace: Duration) -> usize {
        let table = process_table();
        let group = self.child.id() as i32;
        let mut left: Vec<(i32, u64)> = Vec::new();
        for (&pid, p) in &table {
            if !p.zombie && p.pgrp == group && pid != group {
                left.push((pid, p.start));
                for d in tree_of(pid, &table) {
                    if !left.contains(&d) {
                        left.push(d);
                    }
                }
            }
        }
        if left.is_empty() {
            return 0;
        }
        let count = left.len();
        for d in left {
            if !self.descendants.contains(&d) {
                self.descendants.push(d);
            }
        }
        self.signal_all(libc::SIGTERM);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline && self.any_descendant_alive() {
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill_and_reap_leftovers();
        count
    }

    fn any_descendant_alive(&self) -> bool {
        let table = process_table();
        let me = std::process::id() as i32;
        self.descendants.iter().any(|&(pid, start)| {
            table.get(&pid).is_some_and(|p| {
                if p.start != start {
                    return false;
                }
                if p.zombie && p.ppid == me {
                    let mut status = 0;
                    // SAFETY: reaps a reparented helper of the program.
                    unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
                    return false;
                }
                !p.zombie
            })
        })
    }

    /// Kills what is left of the program's tree and reaps the helpers that
    /// were reparented to the tool.
    fn kill_and_reap_leftovers(&mut self) {
        self.signal_all(libc::SIGKILL);
        let deadline = Instant::now() + Duration::from_secs(2);
        let me = std::process::id() as i32;
        loop {
            let table = process_table();
            let mut alive = 0;
            for &(pid, start) in &self.descendants {
                let Some(p) = table.get(&pid).filter(|p| p.start == start) else { continue };
                if p.ppid == me {
                    let mut status = 0;
                    // SAFETY: reaps a reparented helper of the program, not one of
                    // the tool's own children (none runs beside the program).
                    if unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } == 0 {
                        alive += 1;
                    }
                } else if !p.zombie {
                    alive += 1;
                }
            }
            if alive == 0 || Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits for the program, forwarding signals and enforcing the timeout;
    /// `tick` runs every [`Limits::tick`] with the time since the start.
    pub fn wait(mut self, limits: &Limits, mut tick: impl FnMut(Duration)) -> Result<Outcome, ChildError> {
        let mut ending = Ending::Finished;
        // When stopping began, and the next escalation step.
        let mut stopping: Option<(Instant, u8)> = None;
        let mut seen_signals = 0usize;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) => {}
                Err(source) => return Err(ChildError::Wait { program: self.program.clone(), source }),
            }
            let count = SIGNAL_COUNT.load(Ordering::SeqCst);
            if count > seen_signals {
                seen_signals = count;
                let sig = LAST_SIGNAL.load(Ordering::SeqCst);
                if stopping.is_some() {
                    self.signal_all(libc::SIGKILL);
                    stopping = Some((Instant::now(), 2));
                } else {
                    ending = Ending::Interrupted { signal: sig };
                    let sent = if FORWARDED.contains(&sig) { sig } else { libc::SIGTERM };
                    self.signal_all(sent);
                    stopping = Some((Instant::now(), if sent == libc::SIGTERM { 1 } else { 0 }));
                }
            }
            if stopping.is_none() {
                if let Some(t) = limits.timeout {
                    if self.started.elapsed() >= t {
                        ending = Ending::TimedOut;
                        self.signal_all(libc::SIGINT);
                        stopping = Some((Instant::now(), 0));
                    }
                }
            }
            if let Some((since, step)) = stopping {
                // Helpers started while stopping are stopped too.
                self.track_descendants();
                if step < 2 && since.elapsed() >= limits.grace {
                    let (sig, next) = if step == 0 { (libc::SIGTERM, 1) } else { (libc::SIGKILL, 2) };
                    self.signal_all(sig);
                    stopping = Some((Instant::now(), next));
                }
            }
            tick(self.started.elapsed());
            std::thread::sleep(limits.tick.min(Duration::from_millis(50)).max(Duration::from_millis(1)));
        };
        let wall = self.started.elapsed();
        if ending != Ending::Finished {
            // What is left of the group and of the tree (workers of a
            // launcher, helpers that left the group) goes too.
            self.kill_and_reap_leftovers();
        }
        let mut left_running = 0;
        if ending == Ending::Finished {
            left_running = self.stop_what_was_left(limits.grace);
        }
        if let Some(w) = self.watchdog.take() {
            w.dismiss();
        }
        // A signal that came after the program ended (while its leftovers
        // were stopped, say) is still a request to stop the run: the next
        // child's guard starts a new count, so said here or lost.
        if ending == Ending::Finished && SIGNAL_COUNT.load(Ordering::SeqCst) > seen_signals {
            ending = Ending::Interrupted { signal: LAST_SIGNAL.load(Ordering::SeqCst) };
        }
        Ok(Outcome {
            status,
            ending,
            wall,
            started_unix_ns: self.started_unix_ns,
            ended_unix_ns: unix_ns(),
            left_running,
        })
    }
}

/// What a helper the tool asks something of (`ncu --query-metrics`,
/// `nvidia-smi`, `ncu --import`) wrote, and how it ended.
#[derive(Debug)]
pub struct Captured {
    /// How it ended: on its own, or stopped at the time limit or by a
    /// signal to the tool.
    pub outcome: Outcome,
    /// Its standard output.
    pub stdout: Vec<u8>,
    /// Its standard error.
    pub stderr: Vec<u8>,
}

/// Runs a helper as an owned child (its own group, signals to the tool
/// forwarded, stopped after `limits.timeout`), stdin empty and its output
/// kept in anonymous temporary files (no pipe to fill, nothing left on
/// disk). A helper that never returns is the tool's to stop, not to wait on.
pub fn capture(mut cmd: Command, limits: &Limits) -> Result<Captured, ChildError> {
    let program = cmd.get_program().to_string_lossy().to_string();
    let io = |source| ChildError::Start { program: program.clone(), source };
    let (out, err) = (tempfile::tempfile().map_err(io)?, tempfile::tempfile().map_err(io)?);
    cmd.stdin(std::process::Stdio::null()).stdout(out.try_clone().map_err(io)?).stderr(err.try_clone().map_err(io)?);
    let outcome = spawn(cmd)?.wait(limits, |_| {})?;
    let read = |mut f: std::fs::File| -> Result<Vec<u8>, ChildError> {
        use std::io::{Read, Seek};
        let mut bytes = Vec::new();
        f.seek(std::io::SeekFrom::Start(0)).and_then(|_| f.read_to_end(&mut bytes)).map_err(io)?;
        Ok(bytes)
    };
    Ok(Captured { outcome, stdout: read(out)?, stderr: read(err)? })
}

/// One process as `/proc/PID/stat` shows it.
#[derive(Debug, Clone, Copy)]
struct ProcInfo {
    ppid: i32,
    /// Process group.
    pgrp: i32,
    /// Start time in clock ticks since boot: tells a reused pid apart.
    start: u64,
    zombie: bool,
}

/// Every process of the system (those this user can see), by pid. Empty
/// where there is no `/proc`: only the group is signalled then.
fn process_table() -> std::collections::HashMap<i32, ProcInfo> {
    let mut table = std::collections::HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else { return table };
    for entry in dir.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        if let Some(info) = parse_stat(&stat) {
            table.insert(pid, info);
        }
    }
    table
}

/// Parses `/proc/PID/stat`: the command name is in parentheses and may hold
/// spaces or parentheses, so the fields are counted after the last `)`.
fn parse_stat(stat: &str) -> Option<ProcInfo> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state(3) ppid(4) ... starttime(22), numbered as in proc(5).
    Some(ProcInfo {
        ppid: fields.get(1)?.parse().ok()?,
        pgrp: fields.get(2)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
        zombie: fields[0] == "Z",
    })
}

/// The descendants of `root` (not `root` itself), by (pid, start time).
fn tree_of(root: i32, table: &std::collections::HashMap<i32, ProcInfo>) -> Vec<(i32, u64)> {
    let mut found = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for (&pid, info) in table {
            if info.ppid == parent && !found.iter().any(|&(p, _)| p == pid) {
                found.push((pid, info.start));
                frontier.push(pid);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("/bin/sh");
        c.args(["-c", script]);
        c
    }

    // The tests share the process-wide signal state: one at a time.
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn a_signal_after_the_program_ended_still_stops_the_run() {
        // The driver's re-run of the fifth pass: SIGQUIT to `profile` just as
        // pass 1 ended was recorded, then forgotten when pass 2's child
        // started a new count, and pass 2 ran on (a stand-in ncu that
        // sleeps: 60 s and more). Here the signal lands while a background
        // job that ignores SIGTERM is being stopped, after the program ended.
        let _l = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let me = std::process::id() as libc::pid_t;
        let signaller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            // SAFETY: a signal to this process, whose handler only records it.
            unsafe {
                libc::kill(me, libc::SIGUSR1);
            }
        });
        let child = spawn(sh("trap '' TERM; sleep 5 & exit 0")).unwrap();
        let o = child.wait(&Limits { grace: Duration::from_secs(1), ..Limits::default() }, |_| {}).unwrap();
        signaller.join().unwrap();
        assert_eq!(o.ending, Ending::Interrupted { signal: libc::SIGUSR1 });
    }

    #[test]
    fn background_jobs_left_in_the_group_are_stopped_and_counted() {
        // Fifth adversarial pass (F6): a program that exited normally left
        // its background jobs running, with the tool's environment.
        let _l = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("job.pid");
        let script = format!("sleep 300 & echo $! > '{}'; exit 0", pid_file.display());
        let o = spawn(sh(&script))
            .unwrap()
            .wait(&Limits { grace: Duration::from_secs(1), ..Limits::default() }, |_| {})
            .unwrap();
        assert_eq!(o.ending, Ending::Finished);
        assert_eq!(o.left_running, 1);
        let job: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
        let gone = std::fs::read_to_string(format!("/proc/{job}/stat"))
            .map_or(true, |s| s.rsplit_once(')').is_some_and(|(_, r)| r.trim_start().starts_with('Z')));
        assert!(gone, "the background job {job} still runs");
        // A program that leaves nothing behind reports nothing.
        assert_eq!(spawn(sh("true")).unwrap().wait(&Limits::default(), |_| {}).unwrap().left_running, 0);
    }

    #[test]
    fn exit_status_is_reported() {
        let _l = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let o = spawn(sh("exit 3")).unwrap().wait(&Limits::default(), |_| {}).unwrap();
        assert_eq!(o.exit_code(), Some(3));
        assert_eq!(o.ending, Ending::Finished);
        assert_eq!(o.describe(), "exited with status 3");
    }

    #[test]
    fn timeout_stops_the_whole_group() {
        let _l = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("grandchild-alive");
        // A grandchild that ignores SIGINT and SIGTERM, so only SIGKILL ends it.
        let script = format!(
            "(trap '' INT TERM; while true; do touch {m}; sleep 0.05; done) & trap '' INT; while true; do sleep 0.05; done",
            m = marker.display()
        );
        let limits = Limits {
            timeout: Some(Duration::from_millis(300)),
            grace: Duration::from_millis(200),
            tick: Duration::from_millis(10),
        };
        let t = Instant::now();
        let o = spawn(sh(&script)).unwrap().wait(&limits, |_| {}).unwrap();
        assert_eq!(o.ending, Ending::TimedOut);
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
        assert_eq!(o.signal(), Some(libc::SIGTERM), "the shell ignores SIGINT and falls to SIGTERM");
        std::thread::sleep(Duration::from_millis(200));
        let _ = std::fs::remove_file(&marker);
        std::thread::sleep(Duration::from_millis(300));
        assert!(!marker.exists(), "the grandchild outlived the group's SIGKILL");
    }

    #[test]
    fn a_signal_to_the_tool_is_forwarded_to_the_group() {
        let _l = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let child = spawn(sh("sleep 30")).unwrap();
        let me = std::process::id() as libc::pid_t;
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            // SAFETY: signals this test process, whose handler records it.
            unsafe { libc::kill(me, libc::SIGTERM) };
        });
        let t = Instant::now();
        let o = child.wait(&Limits::default(), |_| {}).unwrap();
        assert_eq!(o.ending, Ending::Interrupted { signal: libc::SIGTERM });
        assert_eq!(o.signal(), Some(libc::SIGTERM));
        assert!(t.elapsed() < Duration::from_secs(5));
        // The tool's own handler is back to what it was (default: terminate),
        // checked without raising it.
        let mut cur: libc::sigaction = unsafe { std::mem::zeroed() };
        unsafe { libc::sigaction(libc::SIGTERM, std::ptr::null(), &mut cur) };
        assert_eq!(cur.sa_sigaction, libc::SIG_DFL);
    }

    /// Whether `pid` is a live process (a zombie is dead, only not reaped).
    fn alive(pid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| parse_stat(&s))
            .is_some_and(|p| !p.zombie)
    }

    #[test]
    fn helpers_that_ignore_sigint_and_leave_the_group_do_not_survive_an_interruption() {
        let _l = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        if !Path::new("/proc/self/stat").exists() || !Path::new("/usr/bin/setsid").exists() {
            eprintln!("SKIPPED: needs /proc and /usr/bin/setsid");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let pids = dir.path().join("pids");
        // The program ignores SIGINT; one helper stays in its group and
        // ignores SIGINT and SIGTERM, another leaves the group (setsid) and
        // ignores them too: only SIGKILL, sent to each, ends them.
        let helper = "trap '' INT TERM; echo $$ >> \"$0\"; while true; do sleep 0.05; done";
        let script = format!(
            "trap '' INT; sh -c '{helper}' {p} & /usr/bin/setsid sh -c '{helper}' {p} & while true; do sleep 0.05; done",
            helper = helper.replace('\'', "'\\''"),
            p = pids.display()
        );
        let child = spawn(sh(&script)).unwrap();
        let t = Instant::now();
        while std::fs::read_to_string(&pids).map(|s| s.lines().count()).unwrap_or(0) < 2 {
            assert!(t.elapsed() < Duration::from_secs(10), "the helpers never started");
            std::thread::sleep(Duration::from_millis(20));
        }
        let helpers: Vec<i32> = std::fs::read_to_string(&pids).unwrap().lines().map(|l| l.parse().unwrap()).collect();
        let me = std::process::id() as libc::pid_t;
        // SAFETY: signals this test process, whose handler records it.
        unsafe { libc::kill(me, libc::SIGINT) };
        let limits = Limits { grace: Duration::from_millis(300), tick: Duration::from_millis(10), ..Limits::default() };
        let o = child.wait(&limits, |_| {}).unwrap();
        assert_eq!(o.ending, Ending::Interrupted { signal: libc::SIGINT });
        assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
        for pid in helpers {
            assert!(!alive(pid), "helper {pid} survived the interruption");
        }
    }

    #[test]
    fn stat_lines_with_odd_names_are_parsed() {
        let p = parse_stat("42 (a) b (c)) Z 7 42 42 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 12345 0 0").unwrap();
        assert_eq!((p.ppid, p.start, p.zombie), (7, 12345, true));
        assert!(parse_stat("garbage").is_none());
    }

    #[test]
    fn a_missing_program_is_named() {
        let _l = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let e = spawn(Command::new("/nonexistent/prog")).err().unwrap();
        assert!(matches!(e, ChildError::NotFound { .. }));
        assert!(e.to_string().contains("/nonexistent/prog"));
        // The guard was released: another child can start.
        let o = spawn(sh("true")).unwrap().wait(&Limits::default(), |_| {}).unwrap();
        assert!(o.status.success());
    }
}
