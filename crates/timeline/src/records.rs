//! The record files: what the injection library writes, one file per
//! process, and what the reader takes back.
//!
//! The format is JSON Lines (`roofline.records/v1`, documented in
//! docs/timeline.md) so that a crash or an interruption leaves a readable
//! prefix: every complete line is a record, and a cut-short last line is
//! simply dropped. The injection library (`crates/inject`) serialises these
//! same types, so writer and reader cannot drift apart; a test or a stand-in
//! program can write the format by hand.
//!
//! Strings that repeat (kernel names, NVTX names and domains, API names) are
//! written once as a `name` record and referred to by number afterwards.
//! Times are CUPTI timestamps in nanoseconds; the header pairs one CUPTI
//! timestamp with the Unix time taken at the same moment so that the tool can
//! place the program's own start and end on the same clock.

use serde::{Deserialize, Serialize};

/// The format string of the first line of every record file.
pub const RECORDS_FORMAT: &str = "roofline.records/v1";

/// Environment variables shared by the tool and the injection library.
pub mod env {
    /// The folder where each process writes `<pid>.jsonl` (required).
    pub const DIR: &str = "ROOFLINE_TIMELINE_DIR";
    /// The CUPTI library to load when the program has not loaded one.
    pub const CUPTI_LIB: &str = "ROOFLINE_CUPTI_LIB";
    /// How often CUPTI hands over its buffers, in milliseconds (default 500).
    pub const FLUSH_MS: &str = "ROOFLINE_TIMELINE_FLUSH_MS";
    /// `all` (default) or `application-only`.
    pub const TARGET: &str = "ROOFLINE_TIMELINE_TARGET";
    /// The tool's pid: with `application-only`, only its direct child records.
    pub const TOOL_PID: &str = "ROOFLINE_TIMELINE_TOOL_PID";
    /// `0` turns NVTX ranges off (CUPTI_ACTIVITY_KIND_MARKER).
    pub const NVTX: &str = "ROOFLINE_TIMELINE_NVTX";
    /// `0` turns the launch-call records off (no launch times or threads:
    /// less overhead for programs bound by launch rate, NVTX by GPU time).
    pub const API: &str = "ROOFLINE_TIMELINE_API";
    /// The driver's injection hook.
    pub const CUDA_INJECTION: &str = "CUDA_INJECTION64_PATH";
    /// NVTX's injection hook.
    pub const NVTX_INJECTION: &str = "NVTX_INJECTION64_PATH";
}

/// A CUPTI timestamp and the Unix time read at the same moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockPair {
    pub cupti_ns: u64,
    pub unix_ns: u64,
}

/// Three dimensions of a grid or a block.
pub type Dim3 = [u32; 3];

/// One line of a record file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Record {
    /// First line: who wrote the file.
    Header {
        format: String,
        pid: u32,
        #[serde(default)]
        ppid: u32,
        #[serde(default)]
        exe: String,
        #[serde(default)]
        cmdline: Vec<String>,
        clock: ClockPair,
        /// `cuptiGetVersion`, 0 when unknown.
        #[serde(default)]
        cupti_version: u32,
        /// Which libcupti was used, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cupti_lib: Option<String>,
        /// The injection library's version.
        #[serde(default)]
        writer: String,
    },
    /// A string used by later records.
    Name { id: u32, s: String },
    /// A kernel execution (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL).
    Kernel {
        name: u32,
        start: u64,
        end: u64,
        dev: u32,
        ctx: u32,
        stream: u32,
        corr: u32,
        grid: Dim3,
        block: Dim3,
        #[serde(default)]
        regs: u16,
        #[serde(default)]
        smem_static: u32,
        #[serde(default)]
        smem_dynamic: u32,
        /// The CUDA graph the kernel ran in (absent outside graphs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        graph: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node: Option<u64>,
    },
    /// A copy (CUPTI_ACTIVITY_KIND_MEMCPY and MEMCPY2).
    Memcpy {
        /// `HtoD`, `DtoH`, `DtoD`, `HtoH`, `PtoP`, ... (CUpti_ActivityMemcpyKind).
        copy: String,
        bytes: u64,
        start: u64,
        end: u64,
        dev: u32,
        ctx: u32,
        stream: u32,
        corr: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        src_dev: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dst_dev: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        graph: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node: Option<u64>,
    },
    /// A memset (CUPTI_ACTIVITY_KIND_MEMSET).
    Memset {
        bytes: u64,
        #[serde(default)]
        value: u32,
        start: u64,
        end: u64,
        dev: u32,
        ctx: u32,
        stream: u32,
        corr: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        graph: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node: Option<u64>,
    },
    /// A launch, copy or memset call on the host (CUPTI_ACTIVITY_KIND_RUNTIME
    /// or DRIVER, only for the calls that put work on the GPU).
    Api { name: u32, start: u64, end: u64, tid: u32, corr: u32 },
    /// An NVTX marker: the start or end of a range, or an instant.
    Marker {
        id: u32,
        flag: MarkerFlag,
        ts: u64,
        #[serde(default)]
        pid: u32,
        #[serde(default)]
        tid: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        domain: Option<u32>,
    },
    /// A device the process used.
    Device {
        id: u32,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        uuid: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cc: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sms: Option<u32>,
    },
    /// Records CUPTI had to drop (its buffers were full).
    Dropped { count: u64 },
    /// Something the injection library could not do.
    Error { message: String },
    /// A note about the recording (for example "no launch times").
    Note { message: String },
    /// Last line, written at exit or after a forwarded signal.
    End {
        reason: String,
        #[serde(default)]
        records: u64,
    },
}

/// Which part of an NVTX range a marker is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkerFlag {
    Start,
    End,
    Instant,
}

impl Record {
    /// The header for a process, with the format string filled in.
    pub fn header(pid: u32, ppid: u32, exe: String, cmdline: Vec<String>, clock: ClockPair) -> Record {
        Record::Header {
            format: RECORDS_FORMAT.into(),
            pid,
            ppid,
            exe,
            cmdline,
            clock,
            cupti_version: 0,
            cupti_lib: None,
            writer: String::new(),
        }
    }

    /// One line of the file, newline included.
    pub fn to_line(&self) -> String {
        let mut s = serde_json::to_string(self).expect("records always serialise");
        s.push('\n');
        s
    }
}

/// The prefix every kernel line starts with, for counting launches in a
/// growing file without parsing it.
pub const KERNEL_LINE_PREFIX: &str = "{\"t\":\"kernel\"";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_lines_start_with_the_counted_prefix() {
        let r = Record::Kernel {
            name: 1,
            start: 10,
            end: 20,
            dev: 0,
            ctx: 1,
            stream: 7,
            corr: 3,
            grid: [1, 1, 1],
            block: [32, 1, 1],
            regs: 0,
            smem_static: 0,
            smem_dynamic: 0,
            graph: None,
            node: None,
        };
        let line = r.to_line();
        assert!(line.starts_with(KERNEL_LINE_PREFIX), "{line}");
        assert!(!line.contains("graph"), "{line}");
        let back: Record = serde_json::from_str(line.trim_end()).unwrap();
        assert_eq!(back, r);
    }
}
