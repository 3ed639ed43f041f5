//! Reading record files back into a [`Timeline`].
//!
//! Tolerant by design: a process killed mid-write leaves a cut-short last
//! line, which is dropped with a note; a line that is not a record is skipped
//! with a warning naming the file and line; record kinds this version does
//! not know are skipped (newer injection libraries may add some). Only a
//! file whose first line is not a `roofline.records/v1` header is refused,
//! and then only that file.
//!
//! The folder is written by the recorded program, so it is not trusted:
//! only regular files are read (a FIFO would block the tool, a link to
//! `/dev/zero` would never end), they are opened without following links,
//! and a line longer than [`MAX_RECORD_LINE`] is skipped with a warning.
//!
//! Activities are joined to the host call that launched them through the
//! correlation id (per process), and to the NVTX ranges open on the
//! launching thread at the time of that call.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use crate::model::{Activity, ActivityKind, ActivityName, Device, Launch, NvtxRange, Process, Span, Timeline};
use roofline_records::{MarkerFlag, Record, RECORDS_FORMAT};

/// A record folder could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Listing the folder failed (missing, not a folder, no permission).
    #[error("could not read the record folder {dir}: {source}")]
    Dir {
        /// The folder, as given.
        dir: String,
        /// Why listing it failed.
        #[source]
        source: std::io::Error,
    },
}

/// The program's start and end in Unix nanoseconds, as the tool saw them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnixSpan {
    /// When the tool started the program, Unix nanoseconds.
    pub start_ns: u64,
    /// When the program exited, Unix nanoseconds.
    pub end_ns: u64,
}

/// The longest record line read (bytes). Real lines are a few hundred
/// bytes; a kernel name of a deep template is tens of kilobytes.
pub const MAX_RECORD_LINE: usize = 16 << 20;

/// The most blank lines (bytes) read before a file's header: the injection
/// library writes none, so a file that starts with more is no record file.
const MAX_BLANK_BEFORE_HEADER: usize = 1 << 20;

/// Opens a record file written by the recorded program: without following
/// a symbolic link and without blocking on a FIFO, and only when it is a
/// regular file; otherwise `Ok(Err(what it is))`.
pub fn open_record_file(path: &Path) -> std::io::Result<Result<File, &'static str>> {
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(f) => f,
        // O_NOFOLLOW on a symbolic link gives ELOOP.
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Ok(Err("a symbolic link")),
        Err(e) => return Err(e),
    };
    let kind = file.metadata()?.file_type();
    if kind.is_file() {
        Ok(Ok(file))
    } else if kind.is_dir() {
        Ok(Err("a folder"))
    } else {
        Ok(Err("not a regular file (a FIFO, socket or device)"))
    }
}

/// Reads every `*.jsonl` file of a folder (sorted by name). Files that
/// cannot be read, or are not regular files, become warnings.
pub fn read_dir(dir: &Path, program: Option<UnixSpan>) -> Result<Timeline, ReadError> {
    let entries = std::fs::read_dir(dir).map_err(|source| ReadError::Dir { dir: dir.display().to_string(), source })?;
    let mut paths: Vec<_> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    paths.sort();
    let mut builder = Builder::default();
    for p in &paths {
        let label = p.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        match open_record_file(p) {
            Ok(Ok(f)) => builder.add_file(&label, std::io::BufReader::with_capacity(1 << 20, f)),
            Ok(Err(what)) => builder
                .warnings
                .push(format!("{label}: {what}, not a record file the injection library writes; left out")),
            Err(e) => builder.warnings.push(format!("{label}: could not open ({e}); its process is left out")),
        }
    }
    Ok(builder.finish(program))
}

/// Reads record files given as readers (for tests and in-memory sources).
pub fn read_sources<R: BufRead>(sources: Vec<(String, R)>, program: Option<UnixSpan>) -> Timeline {
    let mut builder = Builder::default();
    for (label, r) in sources {
        builder.add_file(&label, r);
    }
    builder.finish(program)
}

/// One file's records before they are merged with the others.
#[derive(Default)]
struct FileRecords {
    process: Process,
    names: HashMap<u32, String>,
    activities: Vec<(Activity, RawName)>,
    launches: HashMap<u32, Launch>,
    starts: HashMap<u32, OpenMarker>,
    ranges: Vec<NvtxRange>,
    devices: Vec<Device>,
    /// Activities CUPTI could not time (left out).
    untimed: u64,
}

/// A range start waiting for its end: time, pid, tid, name, domain.
type OpenMarker = (u64, u32, u32, Option<u32>, Option<u32>);

/// An activity's name before interning: a name id of the file, or a fixed text.
enum RawName {
    Local(u32),
    Fixed(String),
}

#[derive(Default)]
struct Builder {
    files: Vec<FileRecords>,
    warnings: Vec<String>,
}

/// Consumes input up to and including the next newline. `Ok(false)` when
/// the input ended first.
fn skip_line<R: BufRead>(r: &mut R) -> std::io::Result<bool> {
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(false);
        }
        if let Some(i) = chunk.iter().position(|&b| b == b'\n') {
            r.consume(i + 1);
            return Ok(true);
        }
        let len = chunk.len();
        r.consume(len);
    }
}

fn memcpy_name(copy: &str) -> String {
    let what = match copy {
        "HtoD" => "Host-to-Device",
        "DtoH" => "Device-to-Host",
        "DtoD" => "Device-to-Device",
        "HtoH" => "Host-to-Host",
        "PtoP" => "Peer-to-Peer",
        "HtoA" => "Host-to-Array",
        "AtoH" => "Array-to-Host",
        "AtoA" => "Array-to-Array",
        "AtoD" => "Array-to-Device",
        "DtoA" => "Device-to-Array",
        other => other,
    };
    format!("[CUDA memcpy {what}]")
}

impl Builder {
    fn add_file<R: BufRead>(&mut self, label: &str, mut r: R) {
        let mut f = FileRecords::default();
        f.process.file = label.to_string();
        let mut buf = Vec::with_capacity(512);
        let mut line_no = 0u64;
        let mut bad_lines = 0u64;
        let mut unknown = 0u64;
        let mut have_header = false;
        let mut long_lines = 0u64;
        let mut blank_before_header = 0usize;
        loop {
            buf.clear();
            let n = match (&mut r).take(MAX_RECORD_LINE as u64).read_until(b'\n', &mut buf) {
                Ok(n) => n,
                Err(e) => {
                    self.warnings.push(format!("{label}: read error after line {line_no} ({e}); the rest is left out"));
                    break;
                }
            };
            if n == 0 {
                break;
            }
            line_no += 1;
            if n == MAX_RECORD_LINE && !buf.ends_with(b"\n") {
                // Before the header, the file is no record file: left out
                // at once, not scanned to its end (gigabytes of NULs).
                if !have_header {
                    self.warnings.push(format!(
                        "{label}: no header line in its first {} MiB; the file is left out",
                        MAX_RECORD_LINE >> 20
                    ));
                    return;
                }
                // Step over the rest of the line without holding it.
                match skip_line(&mut r) {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => {
                        self.warnings
                            .push(format!("{label}: read error after line {line_no} ({e}); the rest is left out"));
                        break;
                    }
                }
                long_lines += 1;
                if long_lines <= 3 {
                    self.warnings.push(format!(
                        "{label}: line {line_no} is longer than {} MiB, not a record; skipped",
                        MAX_RECORD_LINE >> 20
                    ));
                }
                continue;
            }
            let complete = buf.ends_with(b"\n");
            let text = trim_ascii(&buf);
            if text.is_empty() {
                if !have_header {
                    blank_before_header += n;
                    if blank_before_header > MAX_BLANK_BEFORE_HEADER {
                        self.warnings.push(format!(
                            "{label}: no header line in its first {} MiB of blank lines; the file is left out",
                            MAX_BLANK_BEFORE_HEADER >> 20
                        ));
                        return;
                    }
                }
                continue;
            }
            let rec: Record = match parse_line(text) {
                Ok(rec) => rec,
                Err(e) => {
                    if !complete {
                        f.process.cut_short = true;
                    } else if e.to_string().contains("unknown variant") {
                        unknown += 1;
                    } else if !have_header {
                        self.warnings.push(format!(
                            "{label}: line 1 is not a {RECORDS_FORMAT} header ({e}); the file is left out (record files are written by libroofline_inject.so, see docs/timeline.md)"
                        ));
                        return;
                    } else {
                        bad_lines += 1;
                        if bad_lines <= 3 {
                            self.warnings.push(format!("{label}: line {line_no} is not a record ({e}); skipped"));
                        }
                    }
                    continue;
                }
            };
            if !have_header {
                match rec {
                    Record::Header { format, pid, ppid, exe, cmdline, clock, cupti_version, cupti_lib, .. } => {
                        if format != RECORDS_FORMAT {
                            self.warnings.push(format!(
                                "{label}: a {format} file, this version of roofline reads {RECORDS_FORMAT}; the file is left out"
                            ));
                            return;
                        }
                        have_header = true;
                        f.process.pid = pid;
                        f.process.ppid = ppid;
                        f.process.exe = exe;
                        f.process.cmdline = cmdline;
                        f.process.clock = Some(clock);
                        f.process.cupti_version = cupti_version;
                        f.process.cupti_lib = cupti_lib;
                        continue;
                    }
                    _ => {
                        self.warnings.push(format!(
                            "{label}: line 1 is not a {RECORDS_FORMAT} header; the file is left out (record files are written by libroofline_inject.so, see docs/timeline.md)"
                        ));
                        return;
                    }
                }
            }
            f.add(rec);
        }
        if !have_header {
            if line_no > 0 || f.process.cut_short {
                self.warnings.push(format!("{label}: no complete header line; the file is left out"));
            }
            return;
        }
        if bad_lines > 3 {
            self.warnings.push(format!("{label}: {bad_lines} lines in all were not records and were skipped"));
        }
        if unknown > 0 {
            f.process.notes.push(format!("{unknown} record(s) of kinds this version does not know were skipped"));
        }
        if f.process.cut_short {
            f.process
                .notes
                .push("the last line was cut short (the process stopped while writing) and is left out".into());
        }
        if f.untimed > 0 {
            f.process.notes.push(format!(
                "{} activit(ies) without timestamps (CUPTI could not time them) are left out",
                f.untimed
            ));
        }
        self.files.push(f);
    }

    fn finish(self, program: Option<UnixSpan>) -> Timeline {
        let mut tl = Timeline { warnings: self.warnings, ..Timeline::default() };
        let mut interned: HashMap<(ActivityKind, String), u32> = HashMap::new();
        let mut files = self.files;
        files.sort_by_key(|f| (f.process.clock.map(|c| c.unix_ns).unwrap_or(0), f.process.pid));
        if let (Some(p), Some(clock)) = (program, files.iter().filter_map(|f| f.process.clock).find(|c| c.cupti_ns > 0))
        {
            let to_cupti = |unix: u64| -> u64 {
                let v = clock.cupti_ns as i128 + (unix as i128 - clock.unix_ns as i128);
                v.clamp(0, u64::MAX as i128) as u64
            };
            tl.program = Some(Span { start_ns: to_cupti(p.start_ns), end_ns: to_cupti(p.end_ns.max(p.start_ns)) });
        }
        for mut f in files {
            // Unfinished ranges: kept, marked open.
            for (id, (ts, pid, tid, name, domain)) in std::mem::take(&mut f.starts) {
                let _ = id;
                f.ranges.push(NvtxRange {
                    name: name.and_then(|n| f.names.get(&n).cloned()).unwrap_or_default(),
                    domain: domain.and_then(|d| f.names.get(&d).cloned()),
                    pid,
                    tid,
                    start_ns: ts,
                    end_ns: None,
                    depth: 0,
                    parent: None,
                });
            }
            let range_base = tl.ranges.len() as u32;
            nest_ranges(&mut f.ranges);
            for r in &mut f.ranges {
                if let Some(p) = r.parent.as_mut() {
                    *p += range_base;
                }
            }
            let mut acts = Vec::with_capacity(f.activities.len());
            for (mut a, raw) in f.activities {
                let text = match raw {
                    RawName::Local(id) => f.names.get(&id).cloned().unwrap_or_else(|| format!("<unnamed {id}>")),
                    RawName::Fixed(s) => s,
                };
                let key = (a.kind, text);
                let next = interned.len() as u32;
                let id = *interned.entry(key.clone()).or_insert_with(|| {
                    tl.names.push(make_name(key.0, &key.1));
                    next
                });
                a.name = id;
                a.launch = f.launches.get(&a.correlation).copied();
                acts.push(a);
            }
            attach_nvtx(&mut acts, &f.ranges, range_base);
            f.process.kernels = acts.iter().filter(|a| a.kind == ActivityKind::Kernel).count() as u64;
            if f.process.dropped > 0 {
                tl.warnings.push(format!(
                    "process {}: CUPTI dropped {} record(s) (its buffers were full); the timeline misses them",
                    f.process.pid, f.process.dropped
                ));
            }
            for e in &f.process.errors {
                tl.warnings.push(format!("process {}: {e}", f.process.pid));
            }
            tl.activities.extend(acts);
            tl.ranges.extend(f.ranges);
            tl.devices.extend(f.devices);
            tl.processes.push(f.process);
        }
        tl.activities.sort_by_key(|a| (a.start_ns, a.end_ns, a.pid, a.correlation));
        check_program_window(&mut tl);
        tl
    }
}

/// The two kinds that make up nearly every line, parsed without serde's
/// buffering of internally tagged enums (the writer puts `t` first).
#[derive(serde::Deserialize)]
struct KernelLine {
    name: u32,
    start: u64,
    end: u64,
    dev: u32,
    ctx: u32,
    stream: u32,
    corr: u32,
    grid: roofline_records::Dim3,
    block: roofline_records::Dim3,
    #[serde(default)]
    regs: u16,
    #[serde(default)]
    smem_static: u32,
    #[serde(default)]
    smem_dynamic: u32,
    #[serde(default)]
    graph: Option<u32>,
    #[serde(default)]
    node: Option<u64>,
}

#[derive(serde::Deserialize)]
struct ApiLine {
    name: u32,
    start: u64,
    end: u64,
    tid: u32,
    corr: u32,
}

fn parse_line(text: &[u8]) -> Result<Record, serde_json::Error> {
    if text.starts_with(b"{\"t\":\"kernel\",") {
        let k: KernelLine = serde_json::from_slice(text)?;
        return Ok(Record::Kernel {
            name: k.name,
            start: k.start,
            end: k.end,
            dev: k.dev,
            ctx: k.ctx,
            stream: k.stream,
            corr: k.corr,
            grid: k.grid,
            block: k.block,
            regs: k.regs,
            smem_static: k.smem_static,
            smem_dynamic: k.smem_dynamic,
            graph: k.graph,
            node: k.node,
        });
    }
    if text.starts_with(b"{\"t\":\"api\",") {
        let a: ApiLine = serde_json::from_slice(text)?;
        return Ok(Record::Api { name: a.name, start: a.start, end: a.end, tid: a.tid, corr: a.corr });
    }
    serde_json::from_slice(text)
}

/// How far outside the program's run (as the tool saw it) an activity may
/// lie before the run is taken not to be on CUPTI's clock.
const CLOCK_SLACK_NS: u64 = 1_000_000_000;

/// The program's start and end are placed on CUPTI's clock through a clock
/// pair; if the activities do not fall inside that window, the pair cannot
/// be trusted, and figures are taken over the activities' own span.
fn check_program_window(tl: &mut Timeline) {
    let Some(p) = tl.program else { return };
    let (Some(first), Some(last)) =
        (tl.activities.iter().map(|a| a.start_ns).min(), tl.activities.iter().map(|a| a.end_ns).max())
    else {
        return;
    };
    let before = p.start_ns.saturating_sub(first);
    let after = last.saturating_sub(p.end_ns);
    if before > CLOCK_SLACK_NS || after > CLOCK_SLACK_NS {
        tl.program = None;
        tl.warnings.push(format!(
            "the program's start and end could not be placed on CUPTI's clock (activities lie {:.1} s before its start or {:.1} s after its end); busy shares are taken over first to last activity",
            before as f64 * 1e-9,
            after as f64 * 1e-9
        ));
    }
}

fn trim_ascii(b: &[u8]) -> &[u8] {
    let start = b.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(b.len());
    let end = b.iter().rposition(|c| !c.is_ascii_whitespace()).map(|i| i + 1).unwrap_or(start);
    &b[start..end.max(start)]
}

fn make_name(kind: ActivityKind, text: &str) -> ActivityName {
    let demangled = roofline_model::demangle(text);
    let display = match kind {
        ActivityKind::Kernel => roofline_model::display_name(text),
        _ => text.to_string(),
    };
    ActivityName {
        mangled: (demangled != text).then(|| text.to_string()),
        name: demangled,
        display_name: display,
        kind,
    }
}

impl FileRecords {
    fn add(&mut self, rec: Record) {
        // CUPTI marks an activity it could not time with 0 for both stamps.
        let untimed = match &rec {
            Record::Kernel { start, end, .. }
            | Record::Memcpy { start, end, .. }
            | Record::Memset { start, end, .. } => *start == 0 && *end == 0,
            _ => false,
        };
        if untimed {
            self.untimed += 1;
            return;
        }
        let pid = self.process.pid;
        let base = |kind, start: u64, end: u64, dev, ctx, stream, corr| Activity {
            kind,
            name: 0,
            start_ns: start,
            end_ns: end.max(start),
            pid,
            device: dev,
            context: ctx,
            stream,
            correlation: corr,
            grid: None,
            block: None,
            registers: None,
            shared_static: None,
            shared_dynamic: None,
            bytes: None,
            graph: None,
            graph_node: None,
            launch: None,
            nvtx: None,
        };
        match rec {
            Record::Header { .. } => self.process.notes.push("a second header line was skipped".into()),
            Record::Name { id, s } => {
                self.names.insert(id, s);
            }
            Record::Kernel {
                name,
                start,
                end,
                dev,
                ctx,
                stream,
                corr,
                grid,
                block,
                regs,
                smem_static,
                smem_dynamic,
                graph,
                node,
            } => {
                let mut a = base(ActivityKind::Kernel, start, end, dev, ctx, stream, corr);
                a.grid = Some(grid);
                a.block = Some(block);
                a.registers = Some(regs);
                a.shared_static = Some(smem_static);
                a.shared_dynamic = Some(smem_dynamic);
                a.graph = graph;
                a.graph_node = node;
                self.activities.push((a, RawName::Local(name)));
            }
            Record::Memcpy { copy, bytes, start, end, dev, ctx, stream, corr, graph, node, .. } => {
                let mut a = base(ActivityKind::Memcpy, start, end, dev, ctx, stream, corr);
                a.bytes = Some(bytes);
                a.graph = graph;
                a.graph_node = node;
                self.activities.push((a, RawName::Fixed(memcpy_name(&copy))));
            }
            Record::Memset { bytes, start, end, dev, ctx, stream, corr, graph, node, .. } => {
                let mut a = base(ActivityKind::Memset, start, end, dev, ctx, stream, corr);
                a.bytes = Some(bytes);
                a.graph = graph;
                a.graph_node = node;
                self.activities.push((a, RawName::Fixed("[CUDA memset]".into())));
            }
            Record::Api { start, end, tid, corr, .. } => {
                // The outermost call wins (a runtime call and the driver call inside it).
                let l = Launch { tid, start_ns: start, end_ns: end.max(start) };
                self.launches
                    .entry(corr)
                    .and_modify(|old| {
                        if l.start_ns < old.start_ns {
                            *old = l
                        }
                    })
                    .or_insert(l);
            }
            Record::Marker { id, flag, ts, pid: mpid, tid, name, domain } => {
                let mpid = if mpid == 0 { pid } else { mpid };
                match flag {
                    MarkerFlag::Start => {
                        self.starts.insert(id, (ts, mpid, tid, name, domain));
                    }
                    MarkerFlag::End => {
                        if let Some((start, spid, stid, name, domain)) = self.starts.remove(&id) {
                            self.ranges.push(NvtxRange {
                                name: name.and_then(|n| self.names.get(&n).cloned()).unwrap_or_default(),
                                domain: domain.and_then(|d| self.names.get(&d).cloned()),
                                pid: spid,
                                tid: stid,
                                start_ns: start,
                                end_ns: Some(ts.max(start)),
                                depth: 0,
                                parent: None,
                            });
                        }
                    }
                    MarkerFlag::Instant => {}
                }
            }
            Record::Device { id, name, uuid, cc, sms } => {
                if !self.devices.iter().any(|d| d.id == id) {
                    self.devices.push(Device { pid, id, name, uuid, cc, sms });
                }
            }
            Record::Dropped { count } => self.process.dropped += count,
            Record::Error { message } => self.process.errors.push(message),
            Record::Note { message } => self.process.notes.push(message),
            Record::End { reason, .. } => {
                self.process.complete = true;
                self.process.end_reason = Some(reason);
            }
        }
    }
}

/// Sorts one process's ranges by (thread, start) and fills depth and parent
/// (indices local to the list) from containment on each thread.
fn nest_ranges(ranges: &mut [NvtxRange]) {
    ranges.sort_by(|a, b| {
        (a.pid, a.tid, a.start_ns, std::cmp::Reverse(a.end_ns.unwrap_or(u64::MAX)), &a.name).cmp(&(
            b.pid,
            b.tid,
            b.start_ns,
            std::cmp::Reverse(b.end_ns.unwrap_or(u64::MAX)),
            &b.name,
        ))
    });
    let mut stack: Vec<usize> = Vec::new();
    let mut thread = None;
    for i in 0..ranges.len() {
        let key = (ranges[i].pid, ranges[i].tid);
        if thread != Some(key) {
            stack.clear();
            thread = Some(key);
        }
        let start = ranges[i].start_ns;
        let end = ranges[i].end_ns.unwrap_or(u64::MAX);
        while let Some(&top) = stack.last() {
            let top_end = ranges[top].end_ns.unwrap_or(u64::MAX);
            if top_end >= end && ranges[top].start_ns <= start {
                break;
            }
            stack.pop();
        }
        ranges[i].depth = stack.len() as u32;
        ranges[i].parent = stack.last().map(|&p| p as u32);
        stack.push(i);
    }
}

/// Sets each activity's innermost enclosing range on its launching thread.
/// `ranges` is one process's list, sorted by [`nest_ranges`]; indices written
/// are offset by `base`.
fn attach_nvtx(acts: &mut [Activity], ranges: &[NvtxRange], base: u32) {
    if ranges.is_empty() {
        return;
    }
    // Per thread: the ranges' positions, sorted by start.
    let mut by_thread: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for (i, r) in ranges.iter().enumerate() {
        by_thread.entry((r.pid, r.tid)).or_default().push(i);
    }
    for a in acts.iter_mut() {
        let Some(l) = a.launch else { continue };
        let Some(list) = by_thread.get(&(a.pid, l.tid)) else { continue };
        // The last range starting at or before the launch, then up its
        // parents until one contains the launch.
        let k = list.partition_point(|&i| ranges[i].start_ns <= l.start_ns);
        if k == 0 {
            continue;
        }
        // Later siblings may have ended before the launch: walk back over
        // the candidates, following parents.
        let mut cand = Some(list[k - 1]);
        while let Some(i) = cand {
            let r = &ranges[i];
            if !matches!(r.end_ns, Some(e) if e < l.start_ns) {
                a.nvtx = Some(base + i as u32);
                break;
            }
            // Parents were offset by `base` when the process was added.
            cand = r.parent.map(|p| (p - base) as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(tid: u32, start: u64, end: Option<u64>, name: &str) -> NvtxRange {
        NvtxRange { name: name.into(), domain: None, pid: 1, tid, start_ns: start, end_ns: end, depth: 0, parent: None }
    }

    /// Adversarial pass 3, H2: a record line without end is not held whole.
    #[test]
    fn a_line_longer_than_the_limit_is_skipped_and_the_rest_is_read() {
        use roofline_records::ClockPair;
        let header = Record::header(7, 1, "/bin/x".into(), vec!["x".into()], ClockPair { cupti_ns: 1, unix_ns: 2 });
        let mut text = serde_json::to_string(&header).unwrap();
        text.push('\n');
        text.push_str(&"x".repeat(MAX_RECORD_LINE + 100));
        text.push('\n');
        text.push_str(&"y".repeat(MAX_RECORD_LINE));
        text.push('\n');
        text.push_str("not json\n");
        let t = read_sources(vec![("7.jsonl".to_string(), std::io::Cursor::new(text.into_bytes()))], None);
        let long: Vec<_> = t.warnings.iter().filter(|w| w.contains("is longer than 16 MiB")).collect();
        assert_eq!(long.len(), 2, "{:?}", t.warnings);
        assert!(long[0].contains("line 2"), "{long:?}");
        // Reading went on after the long lines: the short bad line is line 4.
        assert!(t.warnings.iter().any(|w| w.contains("line 4 is not a record")), "{:?}", t.warnings);
        assert_eq!(t.processes.len(), 1);
        assert_eq!(t.processes[0].pid, 7);
    }

    /// Adversarial pass 5, F11: a headerless file of gigabytes (a sparse
    /// file of NULs the program made) is left out after a bounded prefix,
    /// not scanned to its end.
    #[test]
    fn a_huge_file_without_a_header_line_is_left_out_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let nuls = dir.path().join("1.jsonl");
        std::fs::File::create(&nuls).unwrap().set_len(8 << 30).unwrap();
        // Blank lines alone are no header either, however many.
        std::fs::write(dir.path().join("2.jsonl"), vec![b'\n'; 64 << 20]).unwrap();
        let started = std::time::Instant::now();
        let t = read_dir(dir.path(), None).unwrap();
        let took = started.elapsed();
        assert!(took < std::time::Duration::from_secs(5), "took {took:?}: the whole file was scanned");
        assert!(t.processes.is_empty(), "{:?}", t.processes);
        for (file, why) in [("1.jsonl", "16 MiB"), ("2.jsonl", "1 MiB of blank lines")] {
            let said = format!("{file}: no header line in its first {why}; the file is left out");
            assert!(t.warnings.contains(&said), "{said}: {:?}", t.warnings);
        }
    }

    #[test]
    fn nested_ranges_get_depth_and_parent() {
        let mut r = vec![range(1, 10, Some(20), "inner"), range(1, 0, Some(100), "outer"), range(1, 30, None, "open")];
        nest_ranges(&mut r);
        let names: Vec<_> = r.iter().map(|x| (x.name.as_str(), x.depth, x.parent)).collect();
        assert_eq!(names, [("outer", 0, None), ("inner", 1, Some(0)), ("open", 0, None)]);
    }

    #[test]
    fn launch_after_a_sibling_ended_belongs_to_the_parent() {
        let mut r = vec![range(1, 0, Some(100), "outer"), range(1, 10, Some(20), "first")];
        nest_ranges(&mut r);
        let launch = |t| Launch { tid: 1, start_ns: t, end_ns: t + 1 };
        let mut acts: Vec<Activity> = [15, 50, 150]
            .iter()
            .map(|&t| Activity {
                kind: ActivityKind::Kernel,
                name: 0,
                start_ns: t + 5,
                end_ns: t + 6,
                pid: 1,
                device: 0,
                context: 1,
                stream: 7,
                correlation: t as u32,
                grid: None,
                block: None,
                registers: None,
                shared_static: None,
                shared_dynamic: None,
                bytes: None,
                graph: None,
                graph_node: None,
                launch: Some(launch(t)),
                nvtx: None,
            })
            .collect();
        attach_nvtx(&mut acts, &r, 0);
        let got: Vec<_> = acts.iter().map(|a| a.nvtx.map(|i| r[i as usize].name.as_str())).collect();
        assert_eq!(got, [Some("first"), Some("outer"), None]);
    }
}
