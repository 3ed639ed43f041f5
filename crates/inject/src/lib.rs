//! `libroofline_inject.so`: records what a program runs on the GPU, from
//! inside the program, without replaying or serializing anything.
//!
//! `roofline timeline` points the CUDA driver at this library with
//! `CUDA_INJECTION64_PATH`; the driver calls [`InitializeInjection`] when
//! the program initialises CUDA, and every process that does so (the
//! variable is inherited: torchrun workers, spawned workers) writes its own
//! record file into `ROOFLINE_TIMELINE_DIR` (format in
//! `roofline_records`, docs/timeline.md). `NVTX_INJECTION64_PATH`
//! points NVTX here too, and [`InitializeInjectionNvtx2`] hands NVTX to the
//! same CUPTI, so ranges arrive as marker records.
//!
//! What is enabled: concurrent kernels (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
//! which keeps kernels concurrent, never the serializing KERNEL kind; kernels
//! inside CUDA graphs arrive one by one with their graph and node), copies,
//! memsets, devices, NVTX markers, and, for launch times and threads, the
//! runtime and driver API records of only the calls that put work on the
//! GPU (launches, graph launches, copies, memsets: filtered per callback id).
//!
//! CUPTI hands over full buffers on its own; its periodic flush
//! (`cuptiActivityFlushPeriod`) returns only full ones, and an 8 MB buffer
//! holds tens of thousands of launches. So a thread of ours asks for the
//! completed records of partial buffers too (`cuptiActivityFlushAll(0)`)
//! every `ROOFLINE_TIMELINE_FLUSH_MS` (500 ms). Each buffer is written and
//! flushed at once: the tool's progress counts launches while the program
//! runs, and a crash leaves a readable prefix. At exit, and when SIGINT, SIGTERM or
//! SIGHUP arrive in a process that left them at their default action,
//! everything is flushed and an `end` line written (then the signal takes
//! its default course). Nothing here may take the program down: failures
//! become `error` lines in the record file, panics are caught.

mod activity;
mod cupti;
#[doc(hidden)]
pub mod testing;
mod writer;

use std::alloc::Layout;
use std::ffi::{c_int, c_void};
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Mutex, OnceLock};

use cudarc::cupti::sys::CUpti_ActivityKind as Kind;

use roofline_records::{env, ClockPair, Record};

use crate::activity::ApiFilter;
use crate::cupti::{Cupti, SUCCESS};
use crate::writer::Writer;

/// Size of each activity buffer handed to CUPTI.
const BUFFER_SIZE: usize = 8 << 20;
/// Default period of the partial-buffer flush.
const DEFAULT_FLUSH_MS: u32 = 500;
/// Callback ids are probed up to this bound in each domain (CUDA 13.0 has
/// fewer than 900 driver and 500 runtime ids; later ones are probed too).
const MAX_CBID: u32 = 2048;
/// CUPTI 13.0's API version; older CUPTI writes other record layouts.
const MIN_CUPTI_VERSION: u32 = 130000;

static CUPTI: OnceLock<Result<Cupti, String>> = OnceLock::new();
static STATE: OnceLock<State> = OnceLock::new();
static IN_FORKED_CHILD: AtomicBool = AtomicBool::new(false);
static SIGNAL_PIPE_WRITE: AtomicI32 = AtomicI32::new(-1);
static RECORDED_PID: AtomicI32 = AtomicI32::new(0);
static FLUSH_DONE: AtomicBool = AtomicBool::new(false);
/// Held by whoever flushes CUPTI: the periodic flusher never flushes into
/// a writer that [`finish`] has taken.
static FLUSHING: Mutex<bool> = Mutex::new(false);
/// The signals whose default action is replaced by flush-then-default.
const FLUSH_SIGNALS: [c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

struct State {
    writer: Mutex<Option<Writer>>,
    pid: u32,
    apis: ApiFilter,
}

fn cupti_lib() -> &'static Result<Cupti, String> {
    CUPTI.get_or_init(cupti::load)
}

fn unix_ns() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

/// Whether this process is to be recorded at all.
fn recorded_here() -> bool {
    if std::env::var_os(env::DIR).is_none() {
        return false;
    }
    if std::env::var(env::TARGET).is_ok_and(|t| t == "application-only") {
        let tool: i64 = std::env::var(env::TOOL_PID).ok().and_then(|p| p.parse().ok()).unwrap_or(-1);
        // SAFETY: getppid has no preconditions.
        return unsafe { libc::getppid() } as i64 == tool;
    }
    true
}

fn writer_lock(st: &State) -> std::sync::MutexGuard<'_, Option<Writer>> {
    st.writer.lock().unwrap_or_else(|e| e.into_inner())
}

fn note(st: &State, r: Record) {
    if let Some(w) = writer_lock(st).as_mut() {
        w.write(&r);
        w.flush();
    }
}

/// Called by the CUDA driver when the program initialises CUDA.
#[no_mangle]
pub extern "C" fn InitializeInjection() -> c_int {
    let _ = std::panic::catch_unwind(init);
    1
}

/// Called by NVTX on the first NVTX call: NVTX goes to the same CUPTI.
#[no_mangle]
pub extern "C" fn InitializeInjectionNvtx2(get_export_table: *const c_void) -> c_int {
    if !recorded_here() || std::env::var(env::NVTX).is_ok_and(|v| v == "0") {
        return 0;
    }
    let table = get_export_table as usize;
    std::panic::catch_unwind(move || match cupti_lib() {
        // SAFETY: forwards NVTX's own argument to CUPTI's entry point.
        Ok(c) => c.nvtx_init.map(|f| unsafe { f(table as *const c_void) }).unwrap_or(0),
        Err(_) => 0,
    })
    .unwrap_or(0)
}

fn is_launch_like(name: &str) -> bool {
    const PREFIXES: [&str; 8] = [
        "cudaLaunch",
        "cudaGraphLaunch",
        "cudaMemcpy",
        "cudaMemset",
        "cuLaunch",
        "cuGraphLaunch",
        "cuMemcpy",
        "cuMemset",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p)) && !name.contains("HostFunc")
}

fn init() {
    if STATE.get().is_some() || !recorded_here() {
        if std::env::var_os(env::DIR).is_none() {
            eprintln!(
                "roofline-inject: {} is not set, so this process is not recorded (run the program under `roofline timeline`)",
                env::DIR
            );
        }
        return;
    }
    let dir = PathBuf::from(std::env::var_os(env::DIR).unwrap_or_default());
    let pid = std::process::id();
    let mut w = match Writer::create(&dir, pid) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("roofline-inject: could not create a record file in {}: {e}; not recording", dir.display());
            return;
        }
    };
    let exe = std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_default();
    let cmdline: Vec<String> = std::env::args().collect();
    // SAFETY: getppid has no preconditions.
    let ppid = unsafe { libc::getppid() } as u32;
    let c = match cupti_lib() {
        Ok(c) => c,
        Err(msg) => {
            w.write(&Record::header(pid, ppid, exe, cmdline, ClockPair { cupti_ns: 0, unix_ns: unix_ns() }));
            w.write(&Record::Error { message: msg.clone() });
            w.write(&Record::End { reason: "not recorded".into(), records: w.records });
            w.flush();
            return;
        }
    };
    let clock = ClockPair { cupti_ns: c.timestamp(), unix_ns: unix_ns() };
    let version = c.version();
    let mut header = Record::header(pid, ppid, exe, cmdline, clock);
    if let Record::Header { cupti_version, cupti_lib, writer, .. } = &mut header {
        *cupti_version = version;
        *cupti_lib = Some(c.path.clone());
        *writer = format!("libroofline_inject {}", env!("CARGO_PKG_VERSION"));
    }
    w.write(&header);
    if version < MIN_CUPTI_VERSION {
        w.write(&Record::Error {
            message: format!(
                "CUPTI API version {version} ({}) is older than CUDA 13.0's ({MIN_CUPTI_VERSION}): its records have other layouts; give CUDA 13's libcupti with --cupti PATH",
                c.path
            ),
        });
        w.write(&Record::End { reason: "not recorded".into(), records: w.records });
        w.flush();
        return;
    }

    // Which API calls to record: those that put work on the GPU.
    let mut apis = ApiFilter { driver: Vec::new(), runtime: Vec::new() };
    let filterable = c.enable_runtime_api.is_some() && c.enable_driver_api.is_some() && c.get_callback_name.is_some();
    if let (true, Some(name_of)) = (filterable, c.get_callback_name) {
        for (domain, list) in [(1u32, &mut apis.driver), (2u32, &mut apis.runtime)] {
            list.resize(MAX_CBID as usize, None);
            for cbid in 1..MAX_CBID {
                let mut p = std::ptr::null();
                // SAFETY: CUPTI writes a pointer to a static name, or fails.
                if unsafe { name_of(domain, cbid, &mut p) } != SUCCESS || p.is_null() {
                    continue;
                }
                let name = unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().to_string();
                if is_launch_like(&name) {
                    list[cbid as usize] = Some(w.intern(name.as_bytes()));
                }
            }
        }
    }
    w.flush();
    RECORDED_PID.store(pid as i32, Ordering::SeqCst);
    if STATE.set(State { writer: Mutex::new(Some(w)), pid, apis }).is_err() {
        return;
    }
    let st = STATE.get().expect("just set");

    // SAFETY: CUPTI calls with valid arguments; the callbacks are ours.
    unsafe {
        if let Some(f) = c.set_thread_id_type {
            f(1); // CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM: the thread ids of gettid()
        }
        let r = (c.register_callbacks)(Some(buffer_requested), Some(buffer_completed));
        if r != SUCCESS {
            note(st, Record::Error { message: format!("cuptiActivityRegisterCallbacks failed: {}", c.error_text(r)) });
            finish("not recorded");
            return;
        }
        let r = (c.enable)(Kind::CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL as u32);
        if r != SUCCESS {
            note(
                st,
                Record::Error {
                    message: format!(
                        "CUPTI refused concurrent-kernel records: {} (another profiler may be attached)",
                        c.error_text(r)
                    ),
                },
            );
            finish("not recorded");
            return;
        }
        let mut optional = vec![
            (Kind::CUPTI_ACTIVITY_KIND_MEMCPY, "copies"),
            (Kind::CUPTI_ACTIVITY_KIND_MEMCPY2, "peer-to-peer copies"),
            (Kind::CUPTI_ACTIVITY_KIND_MEMSET, "memsets"),
            (Kind::CUPTI_ACTIVITY_KIND_DEVICE, "device names"),
        ];
        if !std::env::var(env::NVTX).is_ok_and(|v| v == "0") {
            optional.push((Kind::CUPTI_ACTIVITY_KIND_MARKER, "NVTX ranges"));
        }
        for (kind, what) in optional {
            let r = (c.enable)(kind as u32);
            if r != SUCCESS {
                note(st, Record::Note { message: format!("{what} not recorded: {}", c.error_text(r)) });
            }
        }
        let api_wanted = !std::env::var(env::API).is_ok_and(|v| v == "0");
        if !api_wanted {
            note(st, Record::Note { message: "launch calls not recorded (--no-launch-calls)".into() });
        } else if let (true, Some(rt), Some(drv)) = (filterable, c.enable_runtime_api, c.enable_driver_api) {
            let ok = (c.enable)(Kind::CUPTI_ACTIVITY_KIND_RUNTIME as u32) == SUCCESS
                && (c.enable)(Kind::CUPTI_ACTIVITY_KIND_DRIVER as u32) == SUCCESS;
            if ok {
                for (list, f) in [(&st.apis.runtime, rt), (&st.apis.driver, drv)] {
                    for cbid in 1..MAX_CBID {
                        // Unknown ids are refused; that is fine.
                        f(cbid, list.get(cbid as usize).is_some_and(|n| n.is_some()) as u8);
                    }
                }
            } else {
                note(st, Record::Note { message: "launch calls not recorded: CUPTI refused API records".into() });
            }
        } else {
            note(
                st,
                Record::Note {
                    message: "launch calls not recorded: this CUPTI cannot filter API records per call".into(),
                },
            );
        }
        let period: u32 = std::env::var(env::FLUSH_MS).ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_FLUSH_MS);
        if let Some(f) = c.flush_period {
            f(period);
        }
        start_periodic_flush(period);
        libc::atexit(at_exit);
        libc::pthread_atfork(None, None, Some(in_forked_child));
    }
    install_signal_flush();
}

unsafe extern "C" fn buffer_requested(buf: *mut *mut u8, size: *mut usize, max_records: *mut usize) {
    let layout = Layout::from_size_align(BUFFER_SIZE, 8).expect("constant layout");
    // SAFETY: a non-zero layout; CUPTI gives the buffer back in buffer_completed.
    let p = unsafe { std::alloc::alloc(layout) };
    unsafe {
        *buf = p;
        *size = if p.is_null() { 0 } else { BUFFER_SIZE };
        *max_records = 0;
    }
}

unsafe extern "C" fn buffer_completed(ctx: *mut c_void, stream: u32, buf: *mut u8, _size: usize, valid: usize) {
    if buf.is_null() {
        return;
    }
    let _ = std::panic::catch_unwind(AssertUnwindSafe(|| {
        if IN_FORKED_CHILD.load(Ordering::SeqCst) {
            return;
        }
        let (Some(st), Ok(c)) = (STATE.get(), cupti_lib()) else { return };
        let mut guard = writer_lock(st);
        let Some(w) = guard.as_mut() else { return };
        let mut rec: *mut u8 = std::ptr::null_mut();
        // SAFETY: CUPTI walks its own buffer; `rec` stays inside it.
        while unsafe { (c.get_next_record)(buf, valid, &mut rec) } == SUCCESS {
            unsafe { activity::convert(rec, w, &st.apis) };
        }
        if let Some(f) = c.get_num_dropped {
            let mut dropped = 0usize;
            // SAFETY: writes one count.
            if unsafe { f(ctx, stream, &mut dropped) } == SUCCESS && dropped > 0 {
                w.write(&Record::Dropped { count: dropped as u64 });
            }
        }
        w.flush();
    }));
    let layout = Layout::from_size_align(BUFFER_SIZE, 8).expect("constant layout");
    // SAFETY: allocated by buffer_requested with this layout.
    unsafe { std::alloc::dealloc(buf, layout) };
}

/// Flushes everything CUPTI holds and writes the `end` line, once.
fn finish(reason: &str) {
    if IN_FORKED_CHILD.load(Ordering::SeqCst) {
        return;
    }
    let Some(st) = STATE.get() else { return };
    if st.pid != std::process::id() {
        return;
    }
    let mut finished = FLUSHING.lock().unwrap_or_else(|e| e.into_inner());
    if let Ok(c) = cupti_lib() {
        // CUPTI_ACTIVITY_FLAG_FLUSH_FORCED: incomplete records too. The
        // writer must not be locked here: the flush calls buffer_completed.
        // SAFETY: plain CUPTI call.
        unsafe { (c.flush_all)(1) };
    }
    *finished = true;
    if let Some(mut w) = writer_lock(st).take() {
        let n = w.records;
        w.write(&Record::End { reason: reason.into(), records: n });
        w.flush();
    }
}

/// Keeps the flush signals off the calling thread (the library's own
/// threads: the signals go to the program's).
fn block_flush_signals() {
    // SAFETY: a signal set built and applied to this thread only.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in FLUSH_SIGNALS {
            libc::sigaddset(&mut set, sig);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// Every `period_ms`, the completed records of partly filled buffers
/// (flag 0: records still being written stay in CUPTI). Stops once
/// [`finish`] has run; a forked child has no such thread.
fn start_periodic_flush(period_ms: u32) {
    if period_ms == 0 {
        return;
    }
    let pid = std::process::id();
    let _ = std::thread::Builder::new().name("roofline-periodic-flush".into()).spawn(move || {
        block_flush_signals();
        let period = std::time::Duration::from_millis(period_ms.into());
        loop {
            std::thread::sleep(period);
            let flushed = std::panic::catch_unwind(|| {
                let finished = FLUSHING.lock().unwrap_or_else(|e| e.into_inner());
                if *finished || IN_FORKED_CHILD.load(Ordering::SeqCst) || std::process::id() != pid {
                    return false;
                }
                if let Ok(c) = cupti_lib() {
                    // SAFETY: plain CUPTI call; the writer is not locked here.
                    unsafe { (c.flush_all)(0) };
                }
                true
            });
            if !matches!(flushed, Ok(true)) {
                return;
            }
        }
    });
}

extern "C" fn at_exit() {
    let _ = std::panic::catch_unwind(|| finish("exit"));
}

extern "C" fn in_forked_child() {
    // After fork only this thread exists: no flushing, no files, and the
    // parent's signal pipe is not ours. Everything here is async-signal-safe.
    IN_FORKED_CHILD.store(true, Ordering::SeqCst);
    let fd = SIGNAL_PIPE_WRITE.swap(-1, Ordering::SeqCst);
    if fd >= 0 {
        for sig in FLUSH_SIGNALS {
            // SAFETY: restores the default action in the child.
            unsafe {
                let mut cur: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, std::ptr::null(), &mut cur) == 0
                    && cur.sa_sigaction == on_signal as extern "C" fn(c_int) as usize
                {
                    libc::signal(sig, libc::SIG_DFL);
                }
            }
        }
        // SAFETY: closes the child's copy of the pipe.
        unsafe { libc::close(fd) };
    }
}

extern "C" fn on_signal(sig: c_int) {
    let fd = SIGNAL_PIPE_WRITE.load(Ordering::SeqCst);
    // SAFETY: getpid, write, nanosleep, signal and raise are async-signal-safe.
    unsafe {
        if fd >= 0 && libc::getpid() == RECORDED_PID.load(Ordering::SeqCst) {
            let b = sig as u8;
            if libc::write(fd, &b as *const u8 as *const c_void, 1) == 1 {
                // Hold this thread (the program does not resume) until the
                // flusher is done, five seconds at most.
                let pause = libc::timespec { tv_sec: 0, tv_nsec: 10_000_000 };
                for _ in 0..500 {
                    if FLUSH_DONE.load(Ordering::SeqCst) {
                        break;
                    }
                    libc::nanosleep(&pause, std::ptr::null_mut());
                }
            }
        }
        // The signal's own action: it is delivered when this handler returns.
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// For signals left at their default action (which would end the process
/// without running exit handlers): flush first, then let the signal act.
fn install_signal_flush() {
    let mut fds = [0 as c_int; 2];
    // SAFETY: pipe2 fills two fds.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return;
    }
    let (read_fd, write_fd) = (fds[0], fds[1]);
    let spawned = std::thread::Builder::new().name("roofline-flush".into()).spawn(move || {
        block_flush_signals();
        loop {
            let mut b = 0u8;
            // SAFETY: reads one byte from our pipe.
            let n = unsafe { libc::read(read_fd, &mut b as *mut u8 as *mut c_void, 1) };
            if n == 1 {
                let sig = b as c_int;
                let _ = std::panic::catch_unwind(|| finish(&format!("signal {sig}")));
                FLUSH_DONE.store(true, Ordering::SeqCst);
                return;
            }
            if n == 0 || (n < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted) {
                return;
            }
        }
    });
    if spawned.is_err() {
        // SAFETY: closing our own fds.
        unsafe {
            libc::close(read_fd);
            libc::close(write_fd);
        }
        return;
    }
    SIGNAL_PIPE_WRITE.store(write_fd, Ordering::SeqCst);
    for sig in FLUSH_SIGNALS {
        // SAFETY: installs a handler only where the action is the default.
        unsafe {
            let mut cur: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut cur) != 0 || cur.sa_sigaction != libc::SIG_DFL {
                continue;
            }
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_signal as extern "C" fn(c_int) as usize;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(sig, &act, std::ptr::null_mut());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_calls_that_put_work_on_the_gpu_are_recorded() {
        for n in [
            "cudaLaunchKernel_v7000",
            "cudaLaunchKernelExC_v11060",
            "cudaGraphLaunch_v10000",
            "cudaMemcpyAsync_v3020",
            "cudaMemsetAsync_v3020",
            "cuLaunchKernel",
            "cuLaunchKernelEx",
            "cuGraphLaunch",
            "cuMemcpyHtoDAsync_v2",
            "cuMemsetD32Async",
        ] {
            assert!(is_launch_like(n), "{n}");
        }
        for n in [
            "cudaGetDevice_v3020",
            "cudaStreamSynchronize_v3020",
            "cudaLaunchHostFunc_v10000",
            "cuCtxGetCurrent",
            "cuMemAlloc_v2",
            "cudaMalloc_v3020",
            "cuEventRecord",
        ] {
            assert!(!is_launch_like(n), "{n}");
        }
    }
}
