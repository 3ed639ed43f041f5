//! The stand-in Nsight Compute every `profile` test runs instead of the real
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

use std::path::{Path, PathBuf};

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
    --page|--print-units|--clock-control|--metrics|--kernel-name|--kernel-name-base|--print-kernel-base|--filter-mode|--kernel-id|--launch-count|--launch-skip|--nvtx-include|--nvtx-exclude|--target-processes) shift 2;;
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
