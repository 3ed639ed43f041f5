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

use roofline_records::{ClockPair, Dim3};

/// A run's timeline, activities sorted by start.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    /// Every process that wrote a record file, in the order they started.
    pub processes: Vec<Process>,
    /// The GPUs the processes reported, one entry per process and device.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<Device>,
    /// Distinct activity names; `Activity::name` indexes this list.
    pub names: Vec<ActivityName>,
    /// Every kernel, copy and memset of every process, sorted by GPU start.
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
    /// Start, CUPTI nanoseconds.
    pub start_ns: u64,
    /// End, CUPTI nanoseconds.
    pub end_ns: u64,
}

impl Span {
    /// Length in nanoseconds (0 if the ends are swapped).
    pub fn duration_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }

    /// Whether `t` (CUPTI nanoseconds) lies in the span, both ends included.
    pub fn contains(&self, t: u64) -> bool {
        self.start_ns <= t && t <= self.end_ns
    }
}

/// One process that wrote a record file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Process {
    /// Process id.
    pub pid: u32,
    /// Parent's process id (0 when unknown): shows which process started which.
    #[serde(default)]
    pub ppid: u32,
    /// Path of its executable, empty when unknown.
    #[serde(default)]
    pub exe: String,
    /// Its command line, one argument per entry.
    #[serde(default)]
    pub cmdline: Vec<String>,
    /// The record file it came from.
    pub file: String,
    /// CUPTI and Unix time read together when recording started (from the
    /// header; absent when the file had none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockPair>,
    /// `cuptiGetVersion` of the CUPTI that recorded it, 0 when unknown.
    #[serde(default)]
    pub cupti_version: u32,
    /// Path of the libcupti that recorded it, when known.
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
    /// What the injection library could not do (its `error` records); each
    /// also becomes a timeline warning.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// Its notes about the recording (`note` records, e.g. no launch times).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Kernel launches recorded for it.
    #[serde(default)]
    pub kernels: u64,
}

/// A GPU as a process saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Device {
    /// The process that reported it.
    pub pid: u32,
    /// CUDA device ordinal in that process (as `Activity::device`); the same
    /// GPU can have another ordinal in another process.
    pub id: u32,
    /// Product name (`NVIDIA H200`).
    pub name: String,
    /// Device UUID in nvidia-smi's form: the same GPU across processes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Compute capability, `major.minor` (`9.0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc: Option<String>,
    /// Number of streaming multiprocessors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sms: Option<u32>,
}

/// An activity's name: demangled in full, as recorded, and short.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActivityName {
    /// Full demangled name (`vecadd(float const*, float*, int)`); for copies
    /// and memsets, Nsight's bracketed form (`[CUDA memcpy Host-to-Device]`).
    pub name: String,
    /// The mangled name, when it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mangled: Option<String>,
    /// Short name for tables: a kernel's name without return type or
    /// parameters, template arguments folded to `<…>`, at most 64
    /// characters (`vecadd`); the full name for copies and memsets.
    pub display_name: String,
    /// What kind of activity carries this name.
    pub kind: ActivityKind,
}

/// What an activity did on the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActivityKind {
    /// A kernel execution.
    Kernel,
    /// A memory copy (host, device or peer).
    Memcpy,
    /// A memset.
    Memset,
}

/// The host call that put an activity on the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launch {
    /// System thread id of the caller.
    pub tid: u32,
    /// When the call was entered, CUPTI nanoseconds.
    pub start_ns: u64,
    /// When it returned, CUPTI nanoseconds.
    pub end_ns: u64,
}

/// One kernel, copy or memset on a GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Activity {
    /// Kernel, copy or memset.
    pub kind: ActivityKind,
    /// Index into `Timeline::names`.
    pub name: u32,
    /// Start on the GPU, CUPTI nanoseconds.
    pub start_ns: u64,
    /// End on the GPU, CUPTI nanoseconds.
    pub end_ns: u64,
    /// The process that put it there.
    pub pid: u32,
    /// CUDA device ordinal in that process.
    pub device: u32,
    /// CUPTI context id.
    pub context: u32,
    /// CUPTI stream id (unique within a context).
    pub stream: u32,
    /// CUPTI correlation id, shared with the launching host call.
    pub correlation: u32,
    /// Grid size in blocks (kernels only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<Dim3>,
    /// Block size in threads (kernels only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<Dim3>,
    /// Registers per thread (kernels only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registers: Option<u16>,
    /// Static shared memory per block, bytes (kernels only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_static: Option<u32>,
    /// Dynamic shared memory per block, bytes (kernels only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_dynamic: Option<u32>,
    /// Bytes copied or set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// CUPTI id of the CUDA graph it ran in; `None` outside graphs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<u32>,
    /// CUPTI id of the graph node it ran as; `None` outside graphs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph_node: Option<u64>,
    /// The host call that asked for it, matched by correlation id; `None`
    /// when launch-call recording was off or the call was not recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch: Option<Launch>,
    /// Innermost NVTX range around the launch call on its thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvtx: Option<u32>,
}

impl Activity {
    /// Time on the GPU, nanoseconds (0 if the stamps are swapped).
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
    /// The range's message (empty when it had none).
    pub name: String,
    /// Its NVTX domain; `None` for the default domain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Process id of the thread that opened it.
    pub pid: u32,
    /// System thread id of that thread.
    pub tid: u32,
    /// When it began, CUPTI nanoseconds.
    pub start_ns: u64,
    /// `None` when the range never ended in the recording (cut short).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_ns: Option<u64>,
    /// 0 for outermost ranges on the thread.
    pub depth: u32,
    /// Index into `Timeline::ranges` of the enclosing range on the same
    /// thread; `None` for outermost ranges.
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
    /// The name entry of an activity of this timeline (panics on an
    /// activity from another timeline whose index is out of range).
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

    /// Number of kernel executions (copies and memsets not counted).
    pub fn kernel_count(&self) -> usize {
        self.activities.iter().filter(|a| a.kind == ActivityKind::Kernel).count()
    }
}
