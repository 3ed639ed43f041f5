//! `roofline-records`: the timeline's wire format, alone. The record files
//! are what the injection library writes inside the user's program, one
//! file per process, and what `roofline-timeline` reads back; the library
//! depends on this crate and nothing else of the tool's.
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

#![deny(missing_docs)]

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
    /// CUPTI timestamp (`cuptiGetTimestamp`), in nanoseconds.
    pub cupti_ns: u64,
    /// Unix time read right after it, in nanoseconds since the epoch.
    pub unix_ns: u64,
}

/// Three dimensions of a grid or a block.
pub type Dim3 = [u32; 3];

/// One line of a record file.
///
/// Field names are short because a busy program writes millions of lines:
/// `start`/`end` are CUPTI timestamps in nanoseconds, `dev` the CUDA device
/// ordinal, `ctx` CUPTI's context id, `stream` CUPTI's stream id, `corr` the
/// correlation id that pairs GPU work with the host call that launched it,
/// and `name`/`domain` refer to an earlier [`Record::Name`] by its `id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Record {
    /// First line: who wrote the file.
    Header {
        /// Always [`RECORDS_FORMAT`]; the reader refuses other formats.
        format: String,
        /// Process id of the recorded process.
        pid: u32,
        /// Its parent's process id (0 when unknown).
        #[serde(default)]
        ppid: u32,
        /// Path of its executable (`/proc/self/exe`), empty when unknown.
        #[serde(default)]
        exe: String,
        /// Its command line, one argument per entry.
        #[serde(default)]
        cmdline: Vec<String>,
        /// CUPTI and Unix time read together at start, to put the tool's own
        /// start and end times on the CUPTI clock.
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
    Name {
        /// Number later records use to refer to the string (unique per file).
        id: u32,
        /// The string: a mangled kernel name, an NVTX name or domain, or a
        /// CUDA API function name.
        s: String,
    },
    /// A kernel execution (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL).
    Kernel {
        /// Id of the [`Record::Name`] holding the kernel's name as CUPTI
        /// reports it (mangled for C++ kernels).
        name: u32,
        /// When the kernel started on the GPU, CUPTI nanoseconds.
        start: u64,
        /// When it ended on the GPU, CUPTI nanoseconds.
        end: u64,
        /// CUDA device ordinal it ran on.
        dev: u32,
        /// CUPTI context id.
        ctx: u32,
        /// CUPTI stream id.
        stream: u32,
        /// Correlation id, shared with the [`Record::Api`] call that launched it.
        corr: u32,
        /// Grid size in blocks (x, y, z).
        grid: Dim3,
        /// Block size in threads (x, y, z).
        block: Dim3,
        /// Registers per thread.
        #[serde(default)]
        regs: u16,
        /// Static shared memory per block, in bytes.
        #[serde(default)]
        smem_static: u32,
        /// Dynamic shared memory per block asked for at launch, in bytes.
        #[serde(default)]
        smem_dynamic: u32,
        /// The CUDA graph the kernel ran in (absent outside graphs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        graph: Option<u32>,
        /// CUPTI's id of the graph node it ran as (absent outside graphs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node: Option<u64>,
    },
    /// A copy (CUPTI_ACTIVITY_KIND_MEMCPY and MEMCPY2).
    Memcpy {
        /// `HtoD`, `DtoH`, `DtoD`, `HtoH`, `PtoP`, ... (CUpti_ActivityMemcpyKind).
        copy: String,
        /// Bytes copied.
        bytes: u64,
        /// When the copy started, CUPTI nanoseconds.
        start: u64,
        /// When it ended, CUPTI nanoseconds.
        end: u64,
        /// CUDA device ordinal that did the copy.
        dev: u32,
        /// CUPTI context id.
        ctx: u32,
        /// CUPTI stream id.
        stream: u32,
        /// Correlation id, shared with the host call that asked for it.
        corr: u32,
        /// Source device of a peer-to-peer copy (MEMCPY2 only).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        src_dev: Option<u32>,
        /// Destination device of a peer-to-peer copy (MEMCPY2 only).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dst_dev: Option<u32>,
        /// The CUDA graph the copy ran in (absent outside graphs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        graph: Option<u32>,
        /// CUPTI's id of the graph node it ran as (absent outside graphs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node: Option<u64>,
    },
    /// A memset (CUPTI_ACTIVITY_KIND_MEMSET).
    Memset {
        /// Bytes set.
        bytes: u64,
        /// The value written.
        #[serde(default)]
        value: u32,
        /// When the memset started, CUPTI nanoseconds.
        start: u64,
        /// When it ended, CUPTI nanoseconds.
        end: u64,
        /// CUDA device ordinal.
        dev: u32,
        /// CUPTI context id.
        ctx: u32,
        /// CUPTI stream id.
        stream: u32,
        /// Correlation id, shared with the host call that asked for it.
        corr: u32,
        /// The CUDA graph the memset ran in (absent outside graphs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        graph: Option<u32>,
        /// CUPTI's id of the graph node it ran as (absent outside graphs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node: Option<u64>,
    },
    /// A launch, copy or memset call on the host (CUPTI_ACTIVITY_KIND_RUNTIME
    /// or DRIVER, only for the calls that put work on the GPU).
    Api {
        /// Id of the [`Record::Name`] holding the API function's name
        /// (`cudaLaunchKernel`, `cuLaunchKernel`, ...).
        name: u32,
        /// When the call was entered, CUPTI nanoseconds.
        start: u64,
        /// When it returned, CUPTI nanoseconds.
        end: u64,
        /// System thread id of the calling thread.
        tid: u32,
        /// Correlation id, shared with the GPU work it put there.
        corr: u32,
    },
    /// An NVTX marker: the start or end of a range, or an instant.
    Marker {
        /// CUPTI's marker id: the start and end of one range share it.
        id: u32,
        /// Start, end or instant.
        flag: MarkerFlag,
        /// When, CUPTI nanoseconds.
        ts: u64,
        /// Process id of the thread that pushed or started it.
        #[serde(default)]
        pid: u32,
        /// System thread id of that thread.
        #[serde(default)]
        tid: u32,
        /// Id of the [`Record::Name`] holding the range's message (on the
        /// start marker; end markers usually carry none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<u32>,
        /// Id of the [`Record::Name`] holding its NVTX domain, absent for
        /// the default domain.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        domain: Option<u32>,
    },
    /// A device the process used.
    Device {
        /// CUDA device ordinal, as `dev` in other records.
        id: u32,
        /// Product name (`NVIDIA H200`).
        name: String,
        /// Device UUID in nvidia-smi's form (`GPU-xxxxxxxx-xxxx-...`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        uuid: Option<String>,
        /// Compute capability, `major.minor` (`9.0`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cc: Option<String>,
        /// Number of streaming multiprocessors.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sms: Option<u32>,
    },
    /// Records CUPTI had to drop (its buffers were full).
    Dropped {
        /// How many records were dropped in this buffer.
        count: u64,
    },
    /// Something the injection library could not do.
    Error {
        /// What failed, in words.
        message: String,
    },
    /// A note about the recording (for example "no launch times").
    Note {
        /// The note, in words.
        message: String,
    },
    /// Last line, written at exit or after a forwarded signal.
    End {
        /// Why recording ended: `exit`, `signal 15`, ...
        reason: String,
        /// Records the writer wrote before this one, to check nothing is missing.
        #[serde(default)]
        records: u64,
    },
}

/// Which part of an NVTX range a marker is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkerFlag {
    /// A range begins (`nvtxRangePush`, `nvtxRangeStart`).
    Start,
    /// A range ends (`nvtxRangePop`, `nvtxRangeEnd`).
    End,
    /// A point in time, not a range (`nvtxMark`).
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
