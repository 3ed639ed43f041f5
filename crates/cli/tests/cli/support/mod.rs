//! What the modules of this test binary share: the binary and ways of
//! running it, the committed fixtures, documents to start from, and
//! the stand-in Nsight Compute every `profile` test runs instead of the real
//! one (no GPU here), written once so that it behaves as ncu does:
//!
//! - `--query-metrics` fails (no GPU): the tool falls back to its own list;
//! - a profiling run (`--export REPORT --log-file LOG ... PROGRAM`) writes the
//!   capture's `==` lines and one `==PROF== Profiling` line per launch to LOG,
//!   its CSV rows to REPORT (none when it has no header, as when ncu may not
//!   read the counters), then runs the program and exits with its status;
//! - `--import REPORT --csv ...` prints REPORT.
//!
//! Its arguments go to `DIR/ncu-args` (the profiling run) and
//! `DIR/import-args`; a file `DIR/sleep` makes it touch `DIR/ncu-sleeping`
//! and sleep that many seconds after writing the report, before the program.
#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// Writes the stand-in as `dir/ncu`, replaying `capture`.
pub fn stand_in_ncu(dir: &Path, capture: &Path) -> PathBuf {
    let script = format!(
        r#"#!/bin/sh
if [ "$1" = "--query-metrics" ]; then exit 1; fi
if [ "$1" = "--import" ]; then printf '%s\n' "$@" > "{d}/import-args"; cat "$2"; exit 0; fi
printf '%s\n' "$@" > "{d}/ncu-args"
log=""; rep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --log-file) log="$2"; shift 2;;
    --export|-o) rep="$2"; shift 2;;
    --csv|--nvtx|--force-overwrite|-f) shift;;
    --page|--print-units|--clock-control|--metrics|--kernel-name|--kernel-name-base|--print-kernel-base|--filter-mode|--kernel-id|--launch-count|--launch-skip|--nvtx-include|--nvtx-exclude|--target-processes|--graph-profiling|--launch-skip-before-match) shift 2;;
    --*) shift;;
    *) break;;
  esac
done
if [ -n "$log" ]; then
  grep '^==' "{capture}" > "$log"
  awk '/^"/ {{ rows++; if (rows > 2) printf "==PROF== Profiling \"kernel\" - %d: 0%%....50%%....100%% - 1 pass\n", rows - 3 }}' "{capture}" >> "$log"
fi
if [ -n "$rep" ] && grep -q '^"' "{capture}"; then grep -v '^==' "{capture}" > "$rep"; fi
if [ -f "{d}/sleep" ]; then touch "{d}/ncu-sleeping"; sleep "$(cat "{d}/sleep")"; fi
"$@"
"#,
        d = dir.display(),
        capture = capture.display()
    );
    let path = dir.join("ncu");
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Whether `pid` is a live process: a zombie (killed, not yet reaped by a
/// container's PID 1) is dead.
pub fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(')').map(|(_, rest)| rest.split_whitespace().next() != Some("Z")))
        .unwrap_or(false)
}

/// The binary, with `NO_COLOR=1`.
pub fn roofline() -> Command {
    let mut c = Command::cargo_bin("roofline").unwrap();
    c.env("NO_COLOR", "1");
    c
}

/// The binary, with the environment as it is.
pub fn bare_roofline() -> Command {
    Command::cargo_bin("roofline").unwrap()
}

/// The path of the binary under test.
pub fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("roofline")
}

/// A capture of `tests/fixtures/ncu`.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/ncu").join(name)
}

/// A path from the repository root.
pub fn repo(path: &str) -> String {
    format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs the tool: exit code, stdout, stderr.
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = roofline().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs the tool in `dir`: exit code, stdout, stderr.
pub fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = roofline().current_dir(dir).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs the tool in `dir` (`NO_COLOR=1`): its stdout; it must succeed.
pub fn stdout_in(dir: &Path, args: &[&str]) -> String {
    let out =
        Command::cargo_bin("roofline").unwrap().current_dir(dir).env("NO_COLOR", "1").args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Says on stderr, past the test harness's capture, what did not run.
pub fn skip(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {why}");
}

/// A path as text.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A JSON document from text, or a panic that shows the text.
pub fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// A JSON document from the bytes a command wrote.
pub fn json_bytes(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

/// A JSON document from a file.
pub fn json_file(p: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// An executable shell script `dir/name` running `body`.
pub fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `roofline profile` in `dir` with the stand-ins there: `dir/ncu` for Nsight
/// Compute and an empty `dir/libroofline_inject.so` (the program writes the
/// records itself), no colour and no injection variables inherited. The
/// caller adds its flags, `--` and the program.
pub fn profile_in(dir: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_roofline"));
    c.current_dir(dir)
        .env("NO_COLOR", "1")
        .env("ROOFLINE_INJECT_LIB", dir.join("libroofline_inject.so"))
        .env_remove("CUDA_INJECTION64_PATH")
        .env_remove("NVTX_INJECTION64_PATH")
        .arg("profile")
        .arg("--ncu")
        .arg(dir.join("ncu"));
    c
}

/// Two analyses (the seed capture and the GEMM capture) in `dir`.
pub fn two_analyses(dir: &Path) -> (PathBuf, PathBuf) {
    let a = dir.join("a.json");
    let b = dir.join("b.json");
    for (capture, out) in [("h200_seed000_profile.csv", &a), ("h200_gemms_metrics.csv", &b)] {
        let (code, _, err) =
            run_in(dir, &["import", fixture(capture).to_str().unwrap(), "-q", "-o", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
    }
    (a, b)
}

/// A raw ncu capture taken apart: lines before the header, header, units
/// row, launch rows; edited and written back as ncu writes it.
#[derive(Clone)]
pub struct Capture {
    pub preamble: Vec<String>,
    pub header: Vec<String>,
    pub units: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Capture {
    pub fn load(name: &str) -> Capture {
        let text = std::fs::read_to_string(fixture(name)).unwrap();
        let start = text.find("\"ID\"").unwrap();
        let preamble = text[..start].lines().map(str::to_string).collect();
        let mut rdr = csv::ReaderBuilder::new().has_headers(false).from_reader(&text.as_bytes()[start..]);
        let mut records = rdr.records().map(|r| r.unwrap().iter().map(str::to_string).collect::<Vec<_>>());
        let header = records.next().unwrap();
        let units = records.next().unwrap();
        Capture { preamble, header, units, rows: records.collect() }
    }

    pub fn col(&self, name: &str) -> usize {
        self.header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"))
    }

    pub fn set(&mut self, row: usize, column: &str, value: &str) {
        let c = self.col(column);
        self.rows[row][c] = value.to_string();
    }

    fn line(fields: &[String]) -> String {
        fields.iter().map(|f| format!("\"{}\"", f.replace('"', "\"\""))).collect::<Vec<_>>().join(",")
    }

    pub fn text(&self, with_units: bool) -> String {
        let mut s = String::new();
        for p in &self.preamble {
            s.push_str(p);
            s.push('\n');
        }
        s.push_str(&Capture::line(&self.header));
        s.push('\n');
        if with_units {
            s.push_str(&Capture::line(&self.units));
            s.push('\n');
        }
        for r in &self.rows {
            s.push_str(&Capture::line(r));
            s.push('\n');
        }
        s
    }

    pub fn write(&self, path: &Path) {
        std::fs::write(path, self.text(true)).unwrap();
    }
}

/// `roofline import --format json PATH EXTRA...`: exit code, document (null
/// when it failed), stderr.
pub fn import_json(path: &Path, extra: &[&str]) -> (i32, Value, String) {
    let mut args = vec!["import", "--format", "json", s(path)];
    args.extend_from_slice(extra);
    let (code, out, err) = run(&args);
    let doc = if code == 0 { json(&out) } else { Value::Null };
    (code, doc, err)
}

/// The kernel of an analysis document by its name.
pub fn kernel<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kernel"]["name"] == name)
        .unwrap_or_else(|| panic!("no kernel {name}"))
}

/// Writes `roofline model --gpu h200 --kernel ...` as analysis JSON.
pub fn model_json(dir: &Path, name: &str, kernels: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let mut c = roofline();
    c.args(["model", "--gpu", "h200", "--format", "json"]);
    for k in kernels {
        c.args(["--kernel", k]);
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(&path, &out.stdout).unwrap();
    path
}
