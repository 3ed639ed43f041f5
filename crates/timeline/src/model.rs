//! The timeline of one program run: every kernel, copy and memset that ran
//! on a GPU, with the host call that put it there and the NVTX ranges around
//! that call.
//!
//! Every activity keeps what later stages need without going back to the
//! record files: name, start, end, stream, device, context, process, grid,
//! block, correlation id, CUDA graph and node, the launching thread and the
//! time of the launch call, and the innermost NVTX range that enclosed the
//! launch on that thread (ranges know their parents). Times are CUPTI
//! timestamps in nanoseconds, one clock for the whole host.

use serde::{Deserialize, Serialize};

use crate::records::{ClockPair, Dim3};

/// A run's timeline, activities sorted by start.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    pub processes: Vec<Process>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<Device>,
    /// Distinct activity names; `Activity::name` indexes this list.
    pub names: Vec<ActivityName>,
    pub activities: Vec<Activity>,
    /// NVTX ranges; `Activity::nvtx` and `NvtxRange::parent` index this list.
    #[serde(default)]
    pub ranges: Vec<NvtxRange>,
    /// The program's run on the CUPTI clock (from the tool's own start and
    /// end times), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<Span>,
    /// What a reader must know (cut-short files, dropped records, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// An interval on the CUPTI clock, `start_ns <= end_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    pub start_ns: u64,
    pub end_ns: u64,
}

impl Span {
    pub fn duration_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }

    pub fn contains(&self, t: u64) -> bool {
        self.start_ns <= t && t <= self.end_ns
    }
}

/// One process that wrote a record file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Process {
    pub pid: u32,
    #[serde(default)]
    pub ppid: u32,
    #[serde(default)]
    pub exe: String,
    #[serde(default)]
    pub cmdline: Vec<String>,
    /// The record file it came from.
    pub file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockPair>,
    #[serde(default)]
    pub cupti_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cupti_lib: Option<String>,
    /// The file ended with its `end` record.
    pub complete: bool,
    /// Why the recording ended (`exit`, `signal 15`), when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_reason: Option<String>,
    /// The last line was cut short (the process died while writing).
    #[serde(default)]
    pub cut_short: bool,
    /// Records CUPTI dropped.
    #[serde(default)]
    pub dropped: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Kernel launches recorded for it.
    #[serde(default)]
    pub kernels: u64,
}

/// A GPU as a process saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Device {
    pub pid: u32,
    pub id: u32,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sms: Option<u32>,
}

/// An activity's name: demangled in full, as recorded, and short.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActivityName {
    pub name: String,
    /// The mangled name, when it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mangled: Option<String>,
    pub display_name: String,
    pub kind: ActivityKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActivityKind {
    Kernel,
    Memcpy,
    Memset,
}

/// The host call that put an activity on the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launch {
    /// System thread id of the caller.
    pub tid: u32,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// One kernel, copy or memset on a GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Activity {
    pub kind: ActivityKind,
    /// Index into `Timeline::names`.
    pub name: u32,
    pub start_ns: u64,
    pub end_ns: u64,
    pub pid: u32,
    pub device: u32,
    pub context: u32,
    pub stream: u32,
    pub correlation: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<Dim3>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<Dim3>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registers: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_static: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_dynamic: Option<u32>,
    /// Bytes copied or set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph_node: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch: Option<Launch>,
    /// Innermost NVTX range around the launch call on its thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvtx: Option<u32>,
}

impl Activity {
    pub fn duration_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }

    /// When the work was asked for: the launch call when known, else the
    /// start on the GPU. Selection by NVTX time window uses this.
    pub fn asked_at_ns(&self) -> u64 {
        self.launch.map(|l| l.start_ns).unwrap_or(self.start_ns)
    }
}

/// An NVTX range (push/pop or start/end) on one thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NvtxRange {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    pub pid: u32,
    pub tid: u32,
    pub start_ns: u64,
    /// `None` when the range never ended in the recording (cut short).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_ns: Option<u64>,
    /// 0 for outermost ranges on the thread.
    pub depth: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<u32>,
}

impl NvtxRange {
    /// The range's window; an unfinished range runs to `open_end`.
    pub fn span(&self, open_end: u64) -> Span {
        Span { start_ns: self.start_ns, end_ns: self.end_ns.unwrap_or(open_end).max(self.start_ns) }
    }
}

impl Timeline {
    pub fn name(&self, a: &Activity) -> &ActivityName {
        &self.names[a.name as usize]
    }

    /// The last time anything was recorded: the end of unfinished ranges.
    pub fn last_ns(&self) -> u64 {
        let acts = self.activities.iter().map(|a| a.end_ns.max(a.launch.map(|l| l.end_ns).unwrap_or(0)));
        let ranges = self.ranges.iter().map(|r| r.end_ns.unwrap_or(r.start_ns));
        let program = self.program.map(|p| p.end_ns);
        acts.chain(ranges).chain(program).max().unwrap_or(0)
    }

    /// The first time anything was recorded.
    pub fn first_ns(&self) -> u64 {
        let acts = self.activities.iter().map(|a| a.asked_at_ns().min(a.start_ns));
        let ranges = self.ranges.iter().map(|r| r.start_ns);
        let program = self.program.map(|p| p.start_ns);
        acts.chain(ranges).chain(program).min().unwrap_or(0)
    }

    /// The NVTX ranges enclosing an activity's launch, innermost first.
    pub fn enclosing_ranges(&self, a: &Activity) -> Vec<&NvtxRange> {
        let mut out = Vec::new();
        let mut next = a.nvtx;
        while let Some(i) = next {
            let r = &self.ranges[i as usize];
            out.push(r);
            next = r.parent;
        }
        out
    }

    pub fn kernel_count(&self) -> usize {
        self.activities.iter().filter(|a| a.kind == ActivityKind::Kernel).count()
    }
}
