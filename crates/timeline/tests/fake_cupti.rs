//! libroofline_inject.so end to end without a GPU: a stand-in libcupti
//! (crates/inject/tests/fake/fake_cupti.c) hands over records laid out like CUDA 13.0's
//! CUPTI (offsets from cudarc's bindings), and a stand-in program
//! (crates/inject/tests/fake/fake_app.c) loads the library the way the CUDA driver and
//! NVTX do. Checks: the records that reach the file, the choice of CUPTI
//! (the one already loaded wins; an old one is refused), the API filter,
//! the flush at exit, on SIGTERM, and nothing written twice after fork.
//!
//! Needs a C compiler (`cc`); without one the test says SKIPPED.

use std::path::{Path, PathBuf};
use std::process::Command;

use roofline_inject::testing::{built_library, Fake};
use roofline_timeline::{read_dir, ActivityKind};

struct Fixture {
    dir: tempfile::TempDir,
    inject: PathBuf,
    fake: Fake,
}

impl Fixture {
    fn new() -> Option<Fixture> {
        let dir = tempfile::tempdir().unwrap();
        let Some(fake) = Fake::build(dir.path()) else {
            eprintln!("SKIPPED: no C compiler (cc): the stand-in CUPTI test of libroofline_inject.so did not run");
            return None;
        };
        let fake = fake.unwrap();
        let inject = built_library(&std::env::current_exe().unwrap()).expect("libroofline_inject.so built");
        Some(Fixture { dir, inject, fake })
    }

    fn cupti(&self, which: &str) -> PathBuf {
        if which == "cupti13" {
            self.fake.cupti13.clone()
        } else {
            self.fake.cupti12.clone()
        }
    }

    /// Runs the stand-in program; returns its status and record folder.
    fn run(&self, name: &str, mode: &str, env: &[(&str, PathBuf)]) -> (std::process::ExitStatus, PathBuf, String) {
        let records = self.dir.path().join(name);
        std::fs::create_dir(&records).unwrap();
        let mut c = Command::new(&self.fake.app);
        c.arg(mode)
            .env("CUDA_INJECTION64_PATH", &self.inject)
            .env("NVTX_INJECTION64_PATH", &self.inject)
            .env("ROOFLINE_TIMELINE_DIR", &records)
            .env("ROOFLINE_TIMELINE_FLUSH_MS", "100000")
            .env_remove("ROOFLINE_CUPTI_LIB")
            .env_remove("FAKE_PRELOAD");
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        (out.status, records, String::from_utf8_lossy(&out.stderr).to_string())
    }
}

fn one_file(dir: &Path) -> String {
    let files: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    std::fs::read_to_string(&files[0]).unwrap()
}

#[test]
fn records_reach_the_file_through_the_injection_library() {
    let Some(f) = Fixture::new() else { return };
    let good = f.cupti("cupti13");

    // 1. Exit: everything is flushed by the exit handler.
    let (st, dir, err) =
        f.run("exit", "exit", &[("ROOFLINE_CUPTI_LIB", good.clone()), ("FAKE_CUPTI_USED", good.clone())]);
    assert!(st.success(), "{st:?}: {err}");
    let text = one_file(&dir);
    assert!(!text.contains("cudaGetDevice"), "only calls that put work on the GPU are recorded");
    let tl = read_dir(&dir, None).unwrap();
    assert!(tl.warnings.is_empty(), "{:?}", tl.warnings);
    let p = &tl.processes[0];
    assert!(p.complete && p.end_reason.as_deref() == Some("exit"), "{p:?}");
    assert_eq!(p.cupti_version, 130001);
    assert_eq!(p.cupti_lib.as_deref(), Some(good.to_str().unwrap()));
    let kernels: Vec<_> = tl.activities.iter().filter(|a| a.kind == ActivityKind::Kernel).collect();
    assert_eq!(kernels.len(), 12);
    let first = kernels.iter().find(|a| a.correlation == 1).unwrap();
    assert_eq!(tl.name(first).name, "vecadd(float const*, float const*, float*, int)");
    assert_eq!((first.grid, first.block), (Some([132, 1, 1]), Some([256, 1, 1])));
    assert_eq!((first.registers, first.shared_dynamic), (Some(40), Some(2048)));
    assert_eq!(first.duration_ns(), 1000);
    assert_eq!(first.launch.map(|l| l.start_ns), Some(first.start_ns - 50000), "joined to cudaLaunchKernel");
    let graph: Vec<_> = kernels.iter().filter(|a| a.graph == Some(3)).collect();
    assert_eq!(graph.iter().map(|a| a.graph_node).collect::<Vec<_>>(), [Some(1), Some(2)]);
    assert!(graph.iter().all(|a| a.launch.is_some()), "graph kernels share the driver launch call");
    assert_eq!(tl.ranges.len(), 1);
    assert_eq!(tl.ranges[0].name, "step 0");
    assert!(kernels.iter().filter(|a| a.graph.is_none()).all(|a| a.nvtx == Some(0)));
    let copy = tl.activities.iter().find(|a| a.kind == ActivityKind::Memcpy).unwrap();
    assert_eq!((copy.bytes, tl.name(copy).name.as_str()), (Some(4096), "[CUDA memcpy Host-to-Device]"));

    // 2. A CUPTI already loaded by the program (as PyTorch does) wins over ROOFLINE_CUPTI_LIB.
    let old = f.cupti("cupti12");
    let (st, dir, err) = f.run(
        "preloaded",
        "exit",
        &[("FAKE_PRELOAD", good.clone()), ("ROOFLINE_CUPTI_LIB", old.clone()), ("FAKE_CUPTI_USED", good.clone())],
    );
    assert!(st.success(), "{err}");
    let tl = read_dir(&dir, None).unwrap();
    assert_eq!(tl.processes[0].cupti_lib.as_deref(), Some(good.to_str().unwrap()));
    assert_eq!(tl.kernel_count(), 12);

    // 3. A CUPTI older than CUDA 13 is refused with a message, nothing misread.
    let (st, dir, err) = f.run("old", "exit", &[("ROOFLINE_CUPTI_LIB", old.clone()), ("FAKE_CUPTI_USED", old.clone())]);
    assert!(st.success(), "the program itself is not disturbed: {err}");
    let tl = read_dir(&dir, None).unwrap();
    assert_eq!(tl.kernel_count(), 0);
    assert!(tl.processes[0].errors.iter().any(|e| e.contains("older than CUDA 13.0")), "{:?}", tl.processes[0]);

    // 4. SIGTERM (default action): flushed, end line written, then the signal acts.
    let (st, dir, _) =
        f.run("sigterm", "sigterm", &[("ROOFLINE_CUPTI_LIB", good.clone()), ("FAKE_CUPTI_USED", good.clone())]);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(st.signal(), Some(libc::SIGTERM), "{st:?}");
    let tl = read_dir(&dir, None).unwrap();
    assert_eq!(tl.processes[0].end_reason.as_deref(), Some("signal 15"));
    assert_eq!(tl.kernel_count(), 12);

    // 5. A forked child that exits normally writes nothing of its own.
    let (st, dir, err) = f.run("fork", "fork", &[("ROOFLINE_CUPTI_LIB", good.clone()), ("FAKE_CUPTI_USED", good)]);
    assert!(st.success(), "{err}");
    let text = one_file(&dir);
    assert_eq!(text.matches("\"t\":\"end\"").count(), 1, "{text}");
    assert_eq!(text.matches("\"t\":\"kernel\"").count(), 12);
}

#[test]
fn without_a_record_folder_nothing_is_written_and_the_program_runs() {
    let Some(f) = Fixture::new() else { return };
    let good = f.cupti("cupti13");
    let out = Command::new(&f.fake.app)
        .arg("exit")
        .env("CUDA_INJECTION64_PATH", &f.inject)
        .env("NVTX_INJECTION64_PATH", &f.inject)
        .env("FAKE_PRELOAD", &good)
        .env("FAKE_CUPTI_USED", &good)
        .env_remove("ROOFLINE_TIMELINE_DIR")
        .output()
        .unwrap();
    // NVTX is not forwarded then (the stand-in program checks it and exits 94).
    assert_eq!(out.status.code(), Some(94));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ROOFLINE_TIMELINE_DIR is not set"));
}

/// CUPTI's own periodic flush returns only full buffers (tens of thousands
/// of launches each), so the tool's progress read 0 launches for a whole
/// run: the library's own flusher hands over partial buffers while the
/// program still runs.
#[test]
fn launches_reach_the_file_while_the_program_still_runs() {
    let Some(f) = Fixture::new() else { return };
    let good = f.cupti("cupti13");
    let records = f.dir.path().join("running");
    std::fs::create_dir(&records).unwrap();
    let mut child = Command::new(&f.fake.app)
        .arg("sleep")
        .env("CUDA_INJECTION64_PATH", &f.inject)
        .env("NVTX_INJECTION64_PATH", &f.inject)
        .env("ROOFLINE_TIMELINE_DIR", &records)
        .env("ROOFLINE_TIMELINE_FLUSH_MS", "50")
        .env("ROOFLINE_CUPTI_LIB", &good)
        .env("FAKE_CUPTI_USED", &good)
        .env_remove("FAKE_PRELOAD")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let kernels = || {
        std::fs::read_dir(&records)
            .unwrap()
            .flatten()
            .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default().matches("\"t\":\"kernel\"").count())
            .sum::<usize>()
    };
    let t = std::time::Instant::now();
    while kernels() < 12 && t.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let running = child.try_wait().unwrap().is_none();
    let seen = kernels();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(running, "the program (sleeping 60 s) was still running");
    assert_eq!(seen, 12, "every launch reached the file before the program ended");
}
