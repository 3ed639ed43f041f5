//! `roofline.timeline/v1`: the timeline of a run with its summary, the JSON
//! document that `roofline timeline` writes and later commands (and the
//! Python API) read.
//!
//! It holds the whole timeline (every activity with its launch and NVTX
//! range, every range, every process) plus the figures printed on the
//! terminal, so a reader never has to recompute them. docs/timeline.md
//! lists the fields.

use serde::{Deserialize, Serialize};

use roofline_documents::{schema_of, DocumentError, Producer};

use crate::model::{ActivityKind, Device, Timeline};
use crate::select::{group_by_nvtx, Group};
use crate::summary::{busy, summarize, Busy, SummaryRow};

/// The `schema` string of a timeline document; readers refuse any other.
pub const TIMELINE_SCHEMA: &str = "roofline.timeline/v1";

/// Where every figure of the document comes from.
pub const PROVENANCE: &str = "measured: CUPTI activity records of the program's own run (GPU timestamps, concurrent kernels, no replay, no serialization); GPU clocks as the program ran them, not locked";

/// How the program's run ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The program and its arguments.
    pub command: Vec<String>,
    /// Wall time from start to exit, as the tool measured it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_s: Option<f64>,
    /// The program's exit code, when it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// `exit`, `interrupted` (the tool was asked to stop), `timeout`.
    pub ended_by: String,
}

/// The figures shown on the terminal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Where the figures come from ([`PROVENANCE`]).
    pub provenance: String,
    /// Kernel executions recorded, all processes and GPUs.
    pub kernel_launches: u64,
    /// Copies and memsets recorded.
    pub memory_operations: u64,
    /// Summed kernel time (not the union: see `busy`).
    pub kernel_ns: u64,
    /// Per kernel name, largest total first.
    pub kernels: Vec<SummaryRow>,
    /// Per copy/memset kind.
    pub memory: Vec<SummaryRow>,
    /// Per GPU: busy share and idle gaps.
    pub busy: Vec<Busy>,
    /// Time by innermost NVTX range, when the program had ranges.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nvtx: Vec<Group>,
}

impl Summary {
    /// Summarises a whole timeline; `top_gaps` largest gaps kept per GPU.
    pub fn of(tl: &Timeline, top_gaps: usize) -> Summary {
        let kernels = summarize(tl, ActivityKind::Kernel, &tl.activities);
        let mut memory = summarize(tl, ActivityKind::Memcpy, &tl.activities);
        memory.extend(summarize(tl, ActivityKind::Memset, &tl.activities));
        memory.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.name.cmp(&b.name)));
        let kernel_launches = kernels.iter().map(|r| r.instances).sum();
        let kernel_ns = kernels.iter().map(|r| r.total_ns).sum();
        let memory_operations = memory.iter().map(|r| r.instances).sum();
        let nvtx = if tl.ranges.is_empty() { Vec::new() } else { group_by_nvtx(tl, &tl.activities) };
        Summary {
            provenance: PROVENANCE.into(),
            kernel_launches,
            memory_operations,
            kernel_ns,
            kernels,
            memory,
            busy: busy(tl, &tl.activities, tl.program, top_gaps),
            nvtx,
        }
    }
}

/// `roofline.timeline/v1`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelineDocument {
    /// Always [`TIMELINE_SCHEMA`].
    pub schema: String,
    /// The tool, its version and the command that wrote it.
    pub producer: Producer,
    /// The program's command and how its run ended.
    pub run: RunInfo,
    /// The figures printed on the terminal, computed from `timeline`.
    pub summary: Summary,
    /// Every process, activity and NVTX range recorded.
    pub timeline: Timeline,
}

impl TimelineDocument {
    /// A document for a run: computes the summary from `timeline`, keeping
    /// the `top_gaps` largest idle gaps per GPU.
    pub fn new(producer: Producer, run: RunInfo, timeline: Timeline, top_gaps: usize) -> TimelineDocument {
        let summary = Summary::of(&timeline, top_gaps);
        TimelineDocument { schema: TIMELINE_SCHEMA.into(), producer, run, summary, timeline }
    }
}

/// Reads a timeline document, checking its schema first so that another
/// kind or version of file fails with a message naming it. The document is
/// read straight into its type, never through a JSON tree (which costs
/// several times the file's size: gigabytes for a million launches).
pub fn read_timeline(text: &str, input: &str) -> Result<TimelineDocument, DocumentError> {
    read_checked(text, input)
}

/// What a timeline brings to `roofline merge`: its per-kernel summary, the
/// GPUs, the warnings and where it came from. The per-launch arrays
/// (activities, NVTX ranges, names, processes) are skipped while parsing,
/// so reading a rank of a million launches holds the summary only.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(from = "DigestText")]
pub struct TimelineDigest {
    /// The tool, its version and the command that wrote the timeline.
    pub producer: Producer,
    /// The program's command and how its run ended.
    pub run: RunInfo,
    /// Per kernel name, largest total first (the summary's `kernels`).
    pub kernels: Vec<SummaryRow>,
    /// The GPUs the processes reported.
    pub devices: Vec<Device>,
    /// What a reader must know (the timeline's warnings).
    pub warnings: Vec<String>,
}

/// The document as [`TimelineDigest`] reads it: unknown keys (the arrays
/// it does not need) are skipped without being built.
#[derive(Deserialize)]
struct DigestText {
    /// Checked by the caller (of the text: before the parse).
    #[serde(default)]
    schema: Option<String>,
    producer: Producer,
    run: RunInfo,
    summary: DigestSummary,
    timeline: DigestTimeline,
}

#[derive(Deserialize)]
struct DigestSummary {
    kernels: Vec<SummaryRow>,
}

#[derive(Deserialize)]
struct DigestTimeline {
    #[serde(default)]
    devices: Vec<Device>,
    #[serde(default)]
    warnings: Vec<String>,
}

impl From<DigestText> for TimelineDigest {
    fn from(d: DigestText) -> TimelineDigest {
        TimelineDigest {
            producer: d.producer,
            run: d.run,
            kernels: d.summary.kernels,
            devices: d.timeline.devices,
            warnings: d.timeline.warnings,
        }
    }
}

/// Reads the parts of a timeline document that `merge` uses, with the same
/// schema check and messages as [`read_timeline`].
pub fn read_timeline_digest(text: &str, input: &str) -> Result<TimelineDigest, DocumentError> {
    read_checked(text, input)
}

/// As [`read_timeline_digest`], from a stream: the document is parsed as
/// it is read and never held as text, so a rank of a million launches
/// costs the memory of its summary only. For a document whose head names
/// the timeline schema (roofline writes it first): the schema is checked
/// after the parse, so another kind of document is refused by the first
/// field it lacks.
pub fn read_timeline_digest_from(reader: impl std::io::Read, input: &str) -> Result<TimelineDigest, DocumentError> {
    let text: DigestText = serde_json::from_reader(reader).map_err(|source| json_error(source, input))?;
    match &text.schema {
        Some(found) if found == TIMELINE_SCHEMA => Ok(text.into()),
        Some(found) => Err(wrong_schema(found.clone(), input)),
        None => Err(DocumentError::NoSchema { input: input.into(), expected: TIMELINE_SCHEMA }),
    }
}

fn json_error(source: serde_json::Error, input: &str) -> DocumentError {
    let expected = TIMELINE_SCHEMA;
    match source.classify() {
        serde_json::error::Category::Data => DocumentError::Fields { input: input.into(), expected, source },
        _ => DocumentError::Json { input: input.into(), expected, source },
    }
}

fn wrong_schema(found: String, input: &str) -> DocumentError {
    let expected = TIMELINE_SCHEMA;
    let fix = if found.starts_with("roofline.timeline/") {
        format!(
            "this version of roofline ({}) reads {expected} only: record the run again with it",
            env!("CARGO_PKG_VERSION")
        )
    } else {
        format!("pass a {expected} file here (`roofline timeline --format json -o FILE -- PROGRAM`)")
    };
    DocumentError::WrongSchema { input: input.into(), found, expected, fix }
}

fn read_checked<T: serde::de::DeserializeOwned>(text: &str, input: &str) -> Result<T, DocumentError> {
    let expected = TIMELINE_SCHEMA;
    let found = match schema_of(text) {
        Some(found) => found,
        None => {
            // Not JSON, or JSON without a schema string: say which.
            return Err(match serde_json::from_str::<serde::de::IgnoredAny>(text) {
                Err(source) => DocumentError::Json { input: input.into(), expected, source },
                Ok(_) => DocumentError::NoSchema { input: input.into(), expected },
            });
        }
    };
    if found != expected {
        return Err(wrong_schema(found, input));
    }
    serde_json::from_str(text).map_err(|source| json_error(source, input))
}
