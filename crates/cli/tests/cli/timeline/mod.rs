//! `roofline timeline` end to end on any machine: a stand-in program (a
//! shell script) writes record files itself, in the documented format
//! (docs/timeline.md), into the folder the tool names in
//! ROOFLINE_TIMELINE_DIR, the way libroofline_inject.so does inside a CUDA
//! program. Interruption, --timeout, several processes, failures. The run
//! on a real GPU is in `gpu`.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use assert_cmd::Command;

use crate::support::json_file;

mod gpu;

/// A stand-in program: writes a header, a name, N kernels on two streams
/// (and launch records on thread 1 inside an NVTX range `step 0`), sleeps
/// SLEEP seconds, writes the end line and exits with RC. With CHILD=1 it
/// first runs a copy of itself as a child process (another record file).
const FAKE: &str = r#"#!/bin/sh
if [ "${CHILD:-0}" = 1 ]; then CHILD=0 N=2 SLEEP=0 RC=0 "$0"; fi
f="$ROOFLINE_TIMELINE_DIR/$$.jsonl"
now=$(date +%s%N)
printf '{"t":"header","format":"roofline.records/v1","pid":%s,"ppid":1,"exe":"/bin/sh","cmdline":["fake"],"clock":{"cupti_ns":5000000000,"unix_ns":%s}}\n' $$ "$now" > "$f"
printf '{"t":"name","id":1,"s":"_Z6vecaddPKfS0_Pfi"}\n{"t":"name","id":2,"s":"step 0"}\n{"t":"name","id":3,"s":"cudaLaunchKernel_v7000"}\n' >> "$f"
printf '{"t":"marker","id":1,"flag":"start","ts":5000000000,"pid":%s,"tid":1,"name":2}\n' $$ >> "$f"
i=0
while [ $i -lt ${N:-4} ]; do
  s=$((5000100000 + i * 10000)); e=$((s + 1000 * (i + 1)))
  printf '{"t":"api","name":3,"start":%s,"end":%s,"tid":1,"corr":%s}\n' $((s - 50000)) $((s - 49000)) $i >> "$f"
  printf '{"t":"kernel","name":1,"start":%s,"end":%s,"dev":0,"ctx":1,"stream":%s,"corr":%s,"grid":[64,1,1],"block":[256,1,1]}\n' $s $e $((7 + i % 2)) $i >> "$f"
  i=$((i+1))
done
printf '{"t":"marker","id":1,"flag":"end","ts":5001000000,"pid":%s,"tid":1}\n' $$ >> "$f"
echo "fake program: $$ wrote $f"
if [ "${SLEEP:-0}" != 0 ]; then sleep "$SLEEP"; fi
printf '{"t":"end","reason":"exit","records":20}\n' >> "$f"
exit ${RC:-0}
"#;

/// A folder with the stand-in program and an (empty) injection library;
/// `regression::bounded_reading` runs in one too.
pub(crate) struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    pub(crate) fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("fake.sh");
        std::fs::write(&fake, FAKE).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        // The tool only checks that the library exists: the stand-in does
        // the library's work itself.
        std::fs::write(dir.path().join("libroofline_inject.so"), b"").unwrap();
        std::fs::create_dir(dir.path().join("tmp")).unwrap();
        Setup { dir }
    }
    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    pub(crate) fn fake(&self) -> String {
        self.path("fake.sh").display().to_string()
    }
    pub(crate) fn cmd(&self) -> Command {
        let mut c = Command::cargo_bin("roofline").unwrap();
        c.env("NO_COLOR", "1")
            .env("ROOFLINE_INJECT_LIB", self.path("libroofline_inject.so"))
            .env("TMPDIR", self.path("tmp"))
            .env_remove("CUDA_INJECTION64_PATH")
            .env_remove("NVTX_INJECTION64_PATH");
        c
    }
    fn std_cmd(&self) -> std::process::Command {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_roofline"));
        c.env("NO_COLOR", "1")
            .env("ROOFLINE_INJECT_LIB", self.path("libroofline_inject.so"))
            .env("TMPDIR", self.path("tmp"))
            .env_remove("CUDA_INJECTION64_PATH")
            .env_remove("NVTX_INJECTION64_PATH");
        c
    }
    /// The tool's temporary folders left behind.
    pub(crate) fn leftovers(&self) -> Vec<String> {
        std::fs::read_dir(self.path("tmp")).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into()).collect()
    }
}

#[test]
fn summary_table_busy_share_and_document_from_the_programs_records() {
    let s = Setup::new();
    let out = s
        .cmd()
        .args(["timeline", "-o"])
        .arg(s.path("run.json"))
        .args(["--", &s.fake()])
        .assert()
        .success()
        .get_output()
        .clone();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("4 launches"), "{stdout}");
    assert!(stdout.contains("vecadd") && stdout.contains("Med") && stdout.contains("Instances"), "{stdout}");
    assert!(stdout.contains("GPU busy") && stdout.contains("the program's wall time"), "{stdout}");
    assert!(stdout.contains("step 0"), "NVTX grouping shown: {stdout}");
    assert!(!stdout.contains("fake program:"), "the program's stdout goes to stderr");
    assert!(stderr.contains("fake program:") && stderr.contains("exited normally"), "{stderr}");
    let doc = json_file(&s.path("run.json"));
    assert_eq!(doc["schema"], "roofline.timeline/v1");
    assert_eq!(doc["run"]["ended_by"], "exit");
    assert_eq!(doc["run"]["exit_code"], 0);
    let k = &doc["summary"]["kernels"][0];
    assert_eq!(k["name"], "vecadd(float const*, float const*, float*, int)");
    assert_eq!(k["instances"], 4);
    // Durations 1, 2, 3, 4 us: exact median, min, max, total.
    assert_eq!(k["median_ns"], 2500.0);
    assert_eq!(
        (k["min_ns"].as_u64(), k["max_ns"].as_u64(), k["total_ns"].as_u64()),
        (Some(1000), Some(4000), Some(10000))
    );
    let busy = &doc["summary"]["busy"][0];
    assert_eq!(busy["wall_basis"], "program");
    assert_eq!(busy["busy_ns"], 10000);
    let acts = doc["timeline"]["activities"].as_array().unwrap();
    assert!(acts.iter().all(|a| a["nvtx"] == 0 && a["launch"]["tid"] == 1), "launch and NVTX range joined");
    assert!(s.leftovers().is_empty(), "temporary folder removed: {:?}", s.leftovers());
}

#[test]
fn chrome_trace_goes_to_the_o_file_with_format_trace() {
    let s = Setup::new();
    let out = s
        .cmd()
        .args(["timeline", "--format", "trace", "-o"])
        .arg(s.path("trace.json"))
        .args(["--", &s.fake()])
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&out.stdout).contains("vecadd"), "the table still goes to stdout");
    let t = json_file(&s.path("trace.json"));
    let events = t["traceEvents"].as_array().unwrap();
    let kernels: Vec<_> = events.iter().filter(|e| e["ph"] == "X" && e["cat"] == "kernel").collect();
    assert_eq!(kernels.len(), 4);
    let tids: std::collections::BTreeSet<u64> = kernels.iter().map(|e| e["tid"].as_u64().unwrap()).collect();
    assert_eq!(tids.into_iter().collect::<Vec<_>>(), [7, 8], "one track per stream");
    assert!(kernels
        .iter()
        .all(|e| e["args"]["grid"] == serde_json::json!([64, 1, 1]) && e["args"]["correlation"].is_u64()));
    assert!(events.iter().any(|e| e["cat"] == "nvtx" && e["name"] == "step 0"), "NVTX ranges have their own track");
}

#[test]
fn several_processes_each_write_their_own_file() {
    let s = Setup::new();
    s.cmd()
        .args(["timeline", "--format", "json", "-o"])
        .arg(s.path("run.json"))
        .args(["--", &s.fake()])
        .env("CHILD", "1")
        .assert()
        .success();
    let doc = json_file(&s.path("run.json"));
    let procs = doc["timeline"]["processes"].as_array().unwrap();
    assert_eq!(procs.len(), 2, "{procs:?}");
    assert_eq!(doc["summary"]["kernel_launches"], 4 + 2);
    assert_eq!(
        doc["summary"]["busy"].as_array().unwrap().len(),
        2,
        "device 0 of each process, kept apart without a UUID"
    );
}

#[test]
fn a_failing_program_still_gets_its_timeline_and_exit_1() {
    let s = Setup::new();
    let out = s
        .cmd()
        .args(["timeline", "-o"])
        .arg(s.path("run.json"))
        .args(["--", &s.fake()])
        .env("RC", "3")
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("exited with status 3"));
    let doc = json_file(&s.path("run.json"));
    assert_eq!(doc["run"]["exit_code"], 3);
    assert_eq!(doc["summary"]["kernel_launches"], 4);
}

#[test]
fn ctrl_c_to_the_tool_stops_the_program_and_writes_the_partial_timeline() {
    let s = Setup::new();
    let records = s.path("records");
    let child = s
        .std_cmd()
        .args(["timeline", "--format", "json", "--records"])
        .arg(&records)
        .arg("-o")
        .arg(s.path("partial.json"))
        .args(["--", &s.fake()])
        .env("SLEEP", "60")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the program has written its kernels.
    let t = Instant::now();
    loop {
        let written = std::fs::read_dir(&records)
            .ok()
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains("\"flag\":\"end\"")));
        if written {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(20), "the stand-in never wrote its records");
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: signals the tool we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let t = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(t.elapsed() < Duration::from_secs(15), "the tool did not stop the program promptly");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("interrupted (SIGINT)"), "{stderr}");
    assert!(stderr.contains("no end line"), "the cut-off recording is pointed out: {stderr}");
    let doc = json_file(&s.path("partial.json"));
    assert_eq!(doc["run"]["ended_by"], "interrupted");
    assert_eq!(doc["run"]["signal"], libc::SIGINT);
    assert_eq!(doc["summary"]["kernel_launches"], 4, "what was recorded before Ctrl-C is analysed");
    assert_eq!(doc["timeline"]["processes"][0]["complete"], false);
    let stdout: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stdout["summary"]["kernel_launches"], 4);
}

#[test]
fn timeout_stops_the_program_and_keeps_what_was_recorded() {
    let s = Setup::new();
    let t = Instant::now();
    let out = s
        .cmd()
        .args(["timeline", "--timeout", "1s", "-o"])
        .arg(s.path("run.json"))
        .args(["--", &s.fake()])
        .env("SLEEP", "60")
        .timeout(Duration::from_secs(30))
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert!(t.elapsed() < Duration::from_secs(15));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--timeout 1.000 s reached"), "{stderr}");
    let doc = json_file(&s.path("run.json"));
    assert_eq!(doc["run"]["ended_by"], "timeout");
    assert_eq!(doc["summary"]["kernel_launches"], 4);
    assert!(s.leftovers().is_empty(), "temporary folder removed after a timeout: {:?}", s.leftovers());
}

#[test]
fn a_missing_injection_library_is_named_with_the_fix() {
    let s = Setup::new();
    let out = s
        .cmd()
        .args(["timeline", "--inject-lib", "/nonexistent/libroofline_inject.so", "--", &s.fake()])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("/nonexistent/libroofline_inject.so: no such file") && e.contains("cargo build --release"),
        "{e}"
    );
}

#[test]
fn bad_usage_exits_2() {
    let s = Setup::new();
    let e = s.cmd().args(["timeline", "--", "/nonexistent/program"]).assert().code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&e).contains("/nonexistent/program: not found"));
    s.cmd().args(["timeline", "--timeout", "soon", "--", &s.fake()]).assert().code(2);
    s.cmd().args(["timeline"]).assert().code(2);
    let e = s.cmd().args(["peaks", "--gpu", "h200", "--format", "trace"]).assert().code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&e).contains("timeline"));
    let e = s
        .cmd()
        .env("CUDA_INJECTION64_PATH", "/opt/other/libtool.so")
        .args(["timeline", "--", &s.fake()])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&e).contains("only one can"));
    // --records refuses a folder that holds another run's files.
    let r = s.path("old");
    std::fs::create_dir(&r).unwrap();
    std::fs::write(r.join("1.jsonl"), "").unwrap();
    s.cmd().args(["timeline", "--records"]).arg(&r).args(["--", &s.fake()]).assert().code(2);
    // Hardening (issue 27), an earlier harness: `--records /` was accepted,
    // and any folder of other files got the run's files among them.
    let mixed = s.path("home");
    std::fs::create_dir(&mixed).unwrap();
    std::fs::write(mixed.join("notes.txt"), "mine").unwrap();
    for folder in [std::path::PathBuf::from("/"), mixed.clone()] {
        let e = s.cmd().args(["timeline", "--records"]).arg(&folder).args(["--", &s.fake()]).assert().code(2);
        let err = String::from_utf8_lossy(&e.get_output().stderr).to_string();
        assert!(err.contains("already holds other files") && err.contains("empty or new folder"), "{err}");
    }
    assert_eq!(std::fs::read_dir(&mixed).unwrap().count(), 1, "the refused run wrote into the folder");
}

#[test]
fn a_program_without_cuda_is_a_clear_message_not_an_error() {
    let s = Setup::new();
    let out = s.cmd().args(["timeline", "--", "/bin/true"]).assert().success().get_output().clone();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("no process wrote records") && e.contains("never initialised CUDA"), "{e}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("no kernels were recorded"));
}

/// The real injection library inside a stand-in CUDA program with a
/// stand-in CUPTI (roofline_inject::testing): the tool's environment
/// reaches the library, NVTX is forwarded, and Ctrl-C on the tool makes the
/// program flush everything before the signal ends it.
mod with_the_injection_library {
    use super::*;
    use roofline_inject::testing::{built_library, Fake};

    fn setup() -> Option<(Setup, Fake, PathBuf)> {
        let s = Setup::new();
        let fake = match Fake::build(&s.path("fake")) {
            None => {
                roofline_gpu::skip_notice("no C compiler (cc): the end-to-end test of `roofline timeline` with libroofline_inject.so did not run");
                return None;
            }
            Some(f) => f.unwrap(),
        };
        let lib =
            built_library(&std::env::current_exe().unwrap()).expect("libroofline_inject.so built as a dev-dependency");
        Some((s, fake, lib))
    }

    #[test]
    fn the_program_records_through_the_library_the_tool_names() {
        let Some((s, fake, lib)) = setup() else { return };
        let out = s
            .cmd()
            .arg("timeline")
            .arg("--inject-lib")
            .arg(&lib)
            .arg("--cupti")
            .arg(&fake.cupti13)
            .arg("-o")
            .arg(s.path("run.json"))
            .arg("--")
            .arg(&fake.app)
            .arg("exit")
            .env("FAKE_CUPTI_USED", &fake.cupti13)
            .assert()
            .success()
            .get_output()
            .clone();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("12 launches") && stdout.contains("vecadd") && stdout.contains("graph_kernel"),
            "{stdout}"
        );
        let doc = json_file(&s.path("run.json"));
        let p = &doc["timeline"]["processes"][0];
        assert_eq!(p["complete"], true);
        assert_eq!(p["cupti_lib"], fake.cupti13.display().to_string());
        assert_eq!(doc["timeline"]["ranges"][0]["name"], "step 0");
        assert_eq!(doc["summary"]["nvtx"][0]["key"], "step 0");
        // The header's clock pair places the program's run around its activities.
        assert_eq!(doc["summary"]["busy"][0]["wall_basis"], "program", "{}", doc["timeline"]["warnings"]);
        assert!(doc["timeline"]["warnings"].is_null(), "{}", doc["timeline"]["warnings"]);
    }

    #[test]
    fn ctrl_c_makes_the_program_flush_then_the_tool_writes_it_all() {
        let Some((s, fake, lib)) = setup() else { return };
        let child = s
            .std_cmd()
            .arg("timeline")
            .arg("--inject-lib")
            .arg(&lib)
            .arg("--cupti")
            .arg(&fake.cupti13)
            .args(["--format", "json", "--flush-ms", "600000", "--", fake.app.to_str().unwrap(), "sleep"])
            .env("FAKE_CUPTI_USED", &fake.cupti13)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The program prints on the tool's stderr; wait for its process to exist, then a little.
        let t = Instant::now();
        loop {
            let running =
                std::process::Command::new("pgrep").args(["-f", &format!("{} sleep", fake.app.display())]).output();
            match running {
                Ok(o) if o.status.success() => break,
                Ok(_) => {}
                Err(_) => {
                    std::thread::sleep(Duration::from_secs(2));
                    break;
                }
            }
            assert!(t.elapsed() < Duration::from_secs(20), "the program never started");
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(500));
        // SAFETY: signals the tool we started.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
        assert_eq!(doc["run"]["ended_by"], "interrupted");
        assert_eq!(doc["run"]["signal"], libc::SIGINT, "the program's own default SIGINT action, after the flush");
        let p = &doc["timeline"]["processes"][0];
        assert_eq!(p["end_reason"], "signal 2", "{p}");
        assert_eq!(doc["summary"]["kernel_launches"], 12, "nothing lost although the periodic flush never ran");
    }
}
