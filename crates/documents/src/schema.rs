//! The versioned JSON documents one command writes and the next reads.
//!
//! Two documents, each with a `schema` string that names its kind and
//! version: a machine (`roofline.machine/v2`, what `peaks` and `bench`
//! write) and an analysis (`roofline.analysis/v2`, what `model`, `import`
//! and `profile` write; it embeds its machine). A reader checks the schema
//! before anything else so that a file of another version fails with a
//! message, not a confusing missing-field error. Documents of the previous
//! version (v1) are still read: [`upgrade_v1`] rewrites them to v2 first.
//! Diagnoses and warnings are typed in v2 (a code with its numbers); the
//! English sentences of v1 (and of the first v2 files) are kept as `legacy`
//! entries. docs/schema.md documents every field.
//!
//! The same checks run on what is read and on what is about to be written
//! ([`check_analysis`], [`check_machine`]): every number finite and within
//! [`roofline_model`], durations and roofs positive, FLOPs and bytes not
//! negative. So every document the tool writes, it reads back.

use serde::{de::DeserializeOwned, Deserialize, Serialize};

use roofline_analysis::KernelAnalysis;
use roofline_analysis::{ProgramOptions, ProgramView};
use roofline_model::Machine;
use roofline_model::Warning;

/// The `schema` string of a machine document (`roofline bench -o`,
/// `roofline peaks -o`).
pub const MACHINE_SCHEMA: &str = "roofline.machine/v2";
/// The `schema` string of an analysis document (`--format json`).
pub const ANALYSIS_SCHEMA: &str = "roofline.analysis/v2";
const MACHINE_SCHEMA_V1: &str = "roofline.machine/v1";
const ANALYSIS_SCHEMA_V1: &str = "roofline.analysis/v1";

/// Which program wrote a document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Producer {
    /// Always "roofline".
    pub tool: String,
    /// The roofline version that wrote it (the crate version).
    pub version: String,
    /// The command line or command name that produced it.
    #[serde(default)]
    pub command: String,
    /// RFC 3339 time, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
}

impl Producer {
    /// This roofline, for `command`, with no creation time.
    pub fn new(command: &str) -> Producer {
        Producer {
            tool: "roofline".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            command: command.into(),
            created: None,
        }
    }
}

/// A machine document ([`MACHINE_SCHEMA`]): the roofs of one GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineDocument {
    /// Always [`MACHINE_SCHEMA`] when written; readers refuse other kinds.
    pub schema: String,
    /// The program that wrote it.
    pub producer: Producer,
    /// The roofs.
    pub machine: Machine,
    /// Raw benchmark results behind measured ceilings (per-benchmark
    /// samples, launch shapes, clocks), free-form but stable per benchmark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measurements: Option<serde_json::Value>,
}

impl MachineDocument {
    /// A document of this machine, no measurements attached.
    pub fn new(machine: Machine, producer: Producer) -> Self {
        MachineDocument { schema: MACHINE_SCHEMA.into(), producer, machine, measurements: None }
    }
}

/// How the kernels of an analysis were obtained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalysisSource {
    /// "model" (paper estimates), "ncu" (Nsight Compute counters),
    /// "timing" (CUDA events with known FLOPs and bytes).
    pub kind: String,
    /// File, command or other detail.
    #[serde(default)]
    pub detail: String,
    /// How bytes per memory level were counted (for ncu: which convention).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_convention: Option<String>,
}

impl AnalysisSource {
    /// The source of a document made from `capture`, read from `detail`
    /// (a file or a command).
    pub fn of(capture: &roofline_model::CaptureSource, detail: &str) -> AnalysisSource {
        AnalysisSource {
            kind: capture.kind.clone(),
            detail: detail.into(),
            byte_convention: capture.byte_convention.clone(),
        }
    }
}

/// An analysis document ([`ANALYSIS_SCHEMA`]): kernels placed under a
/// machine's roofs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalysisDocument {
    /// Always [`ANALYSIS_SCHEMA`] when written.
    pub schema: String,
    /// The program that wrote it.
    pub producer: Producer,
    /// How the kernels were obtained.
    pub source: AnalysisSource,
    /// The machine the kernels were judged against.
    pub machine: Machine,
    /// Every kernel with its placement and diagnosis.
    pub kernels: Vec<KernelAnalysis>,
    /// Things the reader must know (missing metrics, suspect values).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[serde(serialize_with = "roofline_model::serialize_with_text")]
    pub warnings: Vec<Warning>,
    /// Where the program's GPU time goes and what is worth fixing, derived
    /// from `kernels` (absent when no kernel has a duration). Written for
    /// readers of the JSON; filled in on reading when a file lacks it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<ProgramView>,
    /// The rank of a multi-process job this analysis is (written under
    /// torchrun, mpirun or srun; `roofline merge` reads it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<crate::ranks::RankInfo>,
}

impl AnalysisDocument {
    /// A document of these kernels, its program view derived, no warnings.
    pub fn new(producer: Producer, source: AnalysisSource, machine: Machine, kernels: Vec<KernelAnalysis>) -> Self {
        let mut doc = AnalysisDocument {
            schema: ANALYSIS_SCHEMA.into(),
            producer,
            source,
            machine,
            kernels,
            warnings: Vec::new(),
            program: None,
            rank: None,
        };
        doc.set_program(&ProgramOptions::default());
        doc
    }

    /// Derives the program view from the kernels again, with `opts` (a
    /// target other than the roof itself, more or fewer top entries).
    pub fn set_program(&mut self, opts: &ProgramOptions) {
        let view = ProgramView::from_kernels(&self.kernels, opts);
        self.program = view.is_timed().then_some(view);
    }

    /// The warnings in English, one per line, for every view.
    pub fn warning_lines(&self) -> Vec<String> {
        self.warnings.iter().map(Warning::text).collect()
    }
}

/// A document could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    /// The file is not valid JSON.
    #[error("{input}: not valid JSON ({source}); expected a {expected} document written by roofline; if the file was cut short, write it again")]
    Json {
        /// The input, as named to the user.
        input: String,
        /// The schema it should have.
        expected: &'static str,
        /// The JSON reader's error (with line and column).
        #[source]
        source: serde_json::Error,
    },
    /// The file has no `schema` field.
    #[error("{input}: has no \"schema\" field; expected a {expected} document written by roofline (`roofline peaks -o FILE`, `roofline bench -o FILE`, `roofline model --format json`)")]
    NoSchema {
        /// The file.
        input: String,
        /// The schema it should have.
        expected: &'static str,
    },
    /// The file is another kind or version of document.
    #[error("{input}: is a {found} document, expected {expected}; {fix}")]
    WrongSchema {
        /// The file.
        input: String,
        /// The schema it has.
        found: String,
        /// The schema it should have.
        expected: &'static str,
        /// How to get the right one.
        fix: String,
    },
    /// A number out of its range, or a value that contradicts another.
    #[error("{input}: {field} = {value}: {problem}{fix}")]
    Value {
        /// The file.
        input: String,
        /// Where the value is (`kernels[0].duration_s`).
        field: String,
        /// The value.
        value: String,
        /// What is wrong with it.
        problem: String,
        /// What to do, after a "; " (may be empty).
        fix: String,
    },
    #[error(
        "{input}: a {expected} document with a bad field ({source}); write it again with this version of roofline"
    )]
    /// A field is missing or of the wrong type.
    Fields {
        /// The file.
        input: String,
        /// The schema it should have.
        expected: &'static str,
        /// The JSON reader's error (names the field).
        #[source]
        source: serde_json::Error,
    },
}

/// The `schema` field alone, read without building the rest.
#[derive(Deserialize)]
struct Head {
    #[serde(default)]
    schema: Option<String>,
}

/// The value of a `"schema"` key among the first few hundred bytes, when
/// it is there as a plain string. Every document this tool writes starts
/// with it, so reading a document need not scan the whole text for it.
pub fn schema_at_head(text: &str) -> Option<&str> {
    let mut end = text.len().min(512);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    let head = head.trim_start().strip_prefix('{')?.trim_start();
    let rest = head.strip_prefix("\"schema\"")?.trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let end = rest.find('"')?;
    let value = &rest[..end];
    (!value.contains('\\')).then_some(value)
}

/// The document's `schema` string: from the head of the text, else (a
/// document written by hand, its keys in another order) through [`Head`], a
/// pass over the whole text that costs about a second at 100,000 kernels.
/// `None` when the text is not JSON or has no `schema` string.
pub fn schema_of(text: &str) -> Option<String> {
    match schema_at_head(text) {
        Some(s) => Some(s.to_string()),
        None => serde_json::from_str::<Head>(text).ok()?.schema,
    }
}

pub(crate) fn read<T: DeserializeOwned>(text: &str, input: &str, expected: &'static str) -> Result<T, DocumentError> {
    // A document of the expected version is read straight into its type:
    // no intermediate JSON tree, which for 100,000 kernels costs seconds and
    // several times the file's size in memory. Anything else (v1, another
    // schema, bad JSON, early v2 text) takes the path that upgrades or explains.
    if let Some(found) = schema_of(text) {
        if found == expected {
            // A file of this version written before diagnoses were typed
            // (English evidence) fails here and is upgraded below.
            if let Ok(doc) = serde_json::from_str(text) {
                return Ok(doc);
            }
        } else if upgraded(&found) != Some(expected) {
            // Another kind of document (a timeline of a million launches
            // given to `report`): refused before it is built, in the memory
            // of its text.
            return Err(wrong_schema(input, found, expected));
        }
    }
    let mut value: serde_json::Value =
        serde_json::from_str(text).map_err(|source| DocumentError::Json { input: input.into(), expected, source })?;
    upgrade_v1(&mut value);
    upgrade_text(&mut value);
    let found = value
        .get("schema")
        .and_then(|s| s.as_str())
        .ok_or_else(|| DocumentError::NoSchema { input: input.into(), expected })?
        .to_string();
    if found != expected {
        return Err(wrong_schema(input, found, expected));
    }
    serde_json::from_value(value).map_err(|source| DocumentError::Fields { input: input.into(), expected, source })
}

/// The schema [`upgrade_v1`] turns a document of schema `found` into, if any.
fn upgraded(found: &str) -> Option<&'static str> {
    match found {
        MACHINE_SCHEMA_V1 => Some(MACHINE_SCHEMA),
        ANALYSIS_SCHEMA_V1 => Some(ANALYSIS_SCHEMA),
        _ => None,
    }
}

fn wrong_schema(input: &str, found: String, expected: &'static str) -> DocumentError {
    let fix = match (found.split('/').next(), expected.split('/').next()) {
        (Some(a), Some(b)) if a == b => format!(
            "this version of roofline ({}) reads {expected} and its v1: regenerate the file with it",
            env!("CARGO_PKG_VERSION")
        ),
        _ => format!("pass a {expected} file here"),
    };
    DocumentError::WrongSchema { input: input.into(), found, expected, fix }
}

fn value_error(input: &str, field: String, value: f64, problem: &str) -> DocumentError {
    DocumentError::Value {
        input: input.into(),
        field,
        value: roofline_model::format_number(value),
        problem: problem.into(),
        fix: String::new(),
    }
}

/// The fix for a document that was read: where it came from.
pub(crate) fn read_fix(e: DocumentError) -> DocumentError {
    match e {
        DocumentError::Value { input, field, value, problem, .. } => DocumentError::Value {
            input,
            field,
            value,
            problem,
            fix: "; write the document again with roofline, or correct that field".into(),
        },
        other => other,
    }
}

fn check_ceilings(machine: &Machine, prefix: &str, input: &str) -> Result<(), DocumentError> {
    for (i, c) in machine.ceilings.iter().enumerate() {
        if c.rate <= 0.0 {
            let field = format!("{prefix}ceilings[{i}].rate");
            return Err(value_error(input, field, c.rate, "a roof must be greater than zero"));
        }
    }
    Ok(())
}

fn range_error(input: &str, e: roofline_model::OutOfRange) -> DocumentError {
    let problem = e.to_string();
    let problem = problem.split_once(": ").map(|(_, p)| p.to_string()).unwrap_or(problem);
    DocumentError::Value {
        input: input.into(),
        field: e.path,
        value: roofline_model::format_number(e.value),
        problem,
        fix: String::new(),
    }
}

/// Checks a machine document: numbers in range, roofs positive.
pub fn check_machine(doc: &MachineDocument, input: &str) -> Result<(), DocumentError> {
    roofline_model::check_numbers(&doc.machine).map_err(|mut e| {
        e.path = format!("machine.{}", e.path);
        range_error(input, e)
    })?;
    check_ceilings(&doc.machine, "machine.", input)
}

/// Checks an analysis document: numbers in range, roofs and durations
/// positive, FLOPs and bytes not negative.
pub fn check_analysis(doc: &AnalysisDocument, input: &str) -> Result<(), DocumentError> {
    roofline_model::check_numbers(doc).map_err(|e| range_error(input, e))?;
    check_ceilings(&doc.machine, "machine.", input)?;
    for (i, k) in doc.kernels.iter().enumerate() {
        check_kernel_values(i, k, input)?;
    }
    Ok(())
}

/// A kernel's duration positive, its FLOPs and bytes not negative.
fn check_kernel_values(i: usize, k: &KernelAnalysis, input: &str) -> Result<(), DocumentError> {
    if let Some(d) = k.kernel.duration_s.filter(|d| *d <= 0.0) {
        let field = format!("kernels[{i}].kernel.duration_s");
        return Err(value_error(input, field, d, "a duration must be greater than zero (leave it out when unknown)"));
    }
    for (kind, v) in &k.kernel.flops {
        if *v < 0.0 {
            let field = format!("kernels[{i}].kernel.flops.{}", kind.key());
            return Err(value_error(input, field, *v, "FLOPs cannot be negative"));
        }
    }
    for (level, v) in &k.kernel.bytes {
        if *v < 0.0 {
            let field = format!("kernels[{i}].kernel.bytes.{}", level.key());
            return Err(value_error(input, field, *v, "bytes cannot be negative"));
        }
    }
    Ok(())
}

/// [`check_analysis`] of a document written a kernel at a time (`import
/// --per-launch`, streamed), with the same first error: [`AnalysisCheck::shell`]
/// on the document without its kernels, warnings and program view, then
/// [`AnalysisCheck::kernel`] on each kernel in order, then
/// [`AnalysisCheck::finish`] on the document without its kernels.
#[derive(Debug)]
pub struct AnalysisCheck {
    input: String,
    /// The first kernel value out of place, reported after the ceilings
    /// as `check_analysis` reports it.
    value: Option<DocumentError>,
}

impl AnalysisCheck {
    /// Checks for the document named `input` in errors.
    pub fn new(input: &str) -> AnalysisCheck {
        AnalysisCheck { input: input.into(), value: None }
    }

    /// The numbers of a document with no kernels (the fields before them,
    /// or, from [`AnalysisCheck::finish`], those after them too).
    pub fn shell(&self, shell: &AnalysisDocument) -> Result<(), DocumentError> {
        debug_assert!(shell.kernels.is_empty(), "the kernels are checked one by one");
        roofline_model::check_numbers(shell).map_err(|e| range_error(&self.input, e))
    }

    /// The document's `i`th kernel.
    pub fn kernel(&mut self, i: usize, k: &KernelAnalysis) -> Result<(), DocumentError> {
        roofline_model::check_numbers(k).map_err(|mut e| {
            e.path = format!("kernels[{i}].{}", e.path);
            range_error(&self.input, e)
        })?;
        if self.value.is_none() {
            self.value = check_kernel_values(i, k, &self.input).err();
        }
        Ok(())
    }

    /// The document without its kernels, once they are all checked: its
    /// warnings and program view, its ceilings, then the kernels' values.
    pub fn finish(self, shell: &AnalysisDocument) -> Result<(), DocumentError> {
        self.shell(shell)?;
        check_ceilings(&shell.machine, "machine.", &self.input)?;
        self.value.map_or(Ok(()), Err)
    }
}

/// Checks an analysis's derived figures against what they derive from
/// (`crate::consistency`), and against what its program view says.
pub(crate) fn check_derived(
    doc: &AnalysisDocument,
    program: Option<&crate::consistency::ProgramFigures>,
    input: &str,
) -> Result<(), DocumentError> {
    crate::consistency::check_derived_with(&doc.kernels, program).map_err(|e| DocumentError::Value {
        input: input.into(),
        field: e.field,
        value: e.value,
        problem: e.problem,
        fix: String::new(),
    })
}

/// Reads a machine from a machine document, or the machine embedded in an
/// analysis document.
pub fn read_machine(text: &str, input: &str) -> Result<MachineDocument, DocumentError> {
    match read::<MachineDocument>(text, input, MACHINE_SCHEMA) {
        Err(DocumentError::WrongSchema { found, .. }) if found == ANALYSIS_SCHEMA => {
            let a = read_analysis(text, input)?;
            Ok(MachineDocument::new(a.machine, a.producer))
        }
        Ok(doc) => {
            check_machine(&doc, input).map_err(read_fix)?;
            Ok(doc)
        }
        Err(e) => Err(e),
    }
}

/// Rewrites a v1 document (machine or analysis) into its v2 shape in place;
/// other documents are left alone.
///
/// v1 machines kept compute and bandwidth ceilings in two lists
/// (`compute[].flops_per_s`, `bandwidth[].bytes_per_s`); v2 keeps one list of
/// [`roofline_model::Ceiling`]s, each naming its resource.
pub fn upgrade_v1(doc: &mut serde_json::Value) {
    let schema = doc.get("schema").and_then(|s| s.as_str()).map(str::to_string);
    let Some(new_schema) = schema.as_deref().and_then(upgraded) else { return };
    doc["schema"] = serde_json::Value::from(new_schema);
    if let Some(machine) = doc.get_mut("machine") {
        upgrade_machine_v1(machine);
    }
}

/// Wraps the English of an analysis written before diagnoses and warnings
/// were typed: each evidence string, the `next_move` sentence and each
/// warning become `{"code": "legacy", "text": ...}` entries. Typed entries
/// and other documents are left alone.
pub fn upgrade_text(doc: &mut serde_json::Value) {
    let legacy = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => serde_json::json!({ "code": "legacy", "text": s }),
        other => other.clone(),
    };
    if let Some(serde_json::Value::Array(ws)) = doc.get_mut("warnings") {
        for w in ws.iter_mut() {
            *w = legacy(w);
        }
    }
    let Some(serde_json::Value::Array(kernels)) = doc.get_mut("kernels") else { return };
    for k in kernels {
        let Some(d) = k.get_mut("diagnosis").and_then(|d| d.as_object_mut()) else { continue };
        if let Some(serde_json::Value::Array(ev)) = d.get_mut("evidence") {
            for e in ev.iter_mut() {
                *e = legacy(e);
            }
        }
        if let Some(m) = d.remove("next_move") {
            let moves = match m {
                serde_json::Value::String(s) if !s.is_empty() => vec![legacy(&serde_json::Value::String(s))],
                serde_json::Value::String(_) | serde_json::Value::Null => Vec::new(),
                other => vec![other],
            };
            d.entry("next_moves").or_insert(serde_json::Value::Array(moves));
        }
    }
}

fn upgrade_machine_v1(machine: &mut serde_json::Value) {
    let Some(obj) = machine.as_object_mut() else { return };
    let mut ceilings = Vec::new();
    for (list, kind_field, rate_field, resource) in
        [("compute", "kind", "flops_per_s", "compute"), ("bandwidth", "level", "bytes_per_s", "memory")]
    {
        let Some(serde_json::Value::Array(items)) = obj.remove(list) else { continue };
        for mut item in items {
            if let Some(c) = item.as_object_mut() {
                let which = c.remove(kind_field).unwrap_or(serde_json::Value::Null);
                c.insert("resource".into(), serde_json::json!({ "type": resource, "which": which }));
                if let Some(rate) = c.remove(rate_field) {
                    c.insert("rate".into(), rate);
                }
            }
            ceilings.push(item);
        }
    }
    obj.entry("ceilings").or_insert(serde_json::Value::Array(ceilings));
}

/// Reads an analysis; a file without a program view (v1, or written before
/// it existed) gets one derived from its kernels.
pub fn read_analysis(text: &str, input: &str) -> Result<AnalysisDocument, DocumentError> {
    // v1 documents were placed by older formulas: their derived figures are not recomputed.
    let v1 = schema_at_head(text) == Some(ANALYSIS_SCHEMA_V1);
    let mut doc: AnalysisDocument = read(text, input, ANALYSIS_SCHEMA)?;
    check_analysis(&doc, input).map_err(read_fix)?;
    if !v1 {
        let figures = doc.program.as_ref().map(|p| crate::consistency::ProgramFigures {
            total_s: p.total_s,
            from_timeline: p.from_timeline,
            opportunities: p
                .opportunities
                .iter()
                .map(|o| crate::consistency::OpportunityFigures {
                    id: o.id.clone(),
                    seconds: o.seconds,
                    saved_s: o.saved_s,
                })
                .collect(),
            by_verdict: p
                .by_verdict
                .iter()
                .map(|v| crate::consistency::VerdictSeconds { verdict: v.verdict, seconds: v.seconds })
                .collect(),
        });
        check_derived(&doc, figures.as_ref(), input).map_err(read_fix)?;
    }
    if doc.program.is_none() {
        doc.set_program(&ProgramOptions::default());
    }
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_kind_of_document_is_refused_by_its_schema_before_it_is_built() {
        // Fifth adversarial pass (F3): `report` of a timeline of 10^6
        // launches built the whole 439 MB document as a JSON tree (3.1 GB)
        // before saying it was not an analysis. The schema at the head is
        // enough: here the rest is not even JSON, and the message is still
        // the schema's.
        let text = format!("{{\"schema\": \"roofline.timeline/v1\", \"timeline\": [{}", "[1, 2], ".repeat(1000));
        let e = read_analysis(&text, "tl.json").unwrap_err();
        assert!(matches!(&e, DocumentError::WrongSchema { found, .. } if found == "roofline.timeline/v1"), "{e}");
        assert!(e.to_string().contains("tl.json"), "{e}");
        // A v1 analysis is still upgraded, not refused.
        let v1 = format!("{{\"schema\": \"{ANALYSIS_SCHEMA_V1}\", \"kernels\": [");
        assert!(matches!(read_analysis(&v1, "old.json"), Err(DocumentError::Json { .. })));
    }

    #[test]
    fn the_schema_is_found_at_the_head_or_anywhere_else() {
        assert_eq!(
            schema_of("{\n  \"schema\": \"roofline.machine/v2\", \"x\": 1}").as_deref(),
            Some("roofline.machine/v2")
        );
        // Keys in another order: the pass over the whole text finds it.
        assert_eq!(
            schema_of("{\"x\": [1, 2], \"schema\": \"roofline.analysis/v2\"}").as_deref(),
            Some("roofline.analysis/v2")
        );
        assert_eq!(schema_of("{\"x\": 1}"), None);
    }
    use roofline_model::FlopKind;

    #[test]
    fn machine_round_trip() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        let doc = MachineDocument::new(m, Producer::new("test"));
        let text = serde_json::to_string_pretty(&doc).unwrap();
        assert_eq!(read_machine(&text, "m.json").unwrap(), doc);
    }

    #[test]
    fn numbers_read_back_exactly() {
        // Found by the csv_reader fuzz target on a real H200 capture: a
        // duration-weighted occupancy of 100.00000000000001 read back as 100.
        let mut m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        m.gpu.sm_clock_mhz = Some(100.00000000000001);
        m.ceilings[0].rate = 74.70000000000002;
        let doc = MachineDocument::new(m, Producer::new("test"));
        let text = serde_json::to_string_pretty(&doc).unwrap();
        assert_eq!(read_machine(&text, "m.json").unwrap(), doc);
    }

    #[test]
    fn v1_machine_is_read_as_v2() {
        let text = r#"{"schema":"roofline.machine/v1","producer":{"tool":"roofline","version":"0.1.0"},
            "machine":{"name":"m","compute":[{"kind":"fp32","name":"FP32","flops_per_s":1e12,
            "provenance":{"origin":"user","source":"x"}}],"bandwidth":[{"level":"dram","name":"DRAM",
            "bytes_per_s":1e11,"provenance":{"origin":"user","source":"x"},"secondary":true}]}}"#;
        let doc = read_machine(text, "old.json").unwrap();
        assert_eq!(doc.schema, MACHINE_SCHEMA);
        assert_eq!(doc.machine.compute_roof(FlopKind::Fp32).unwrap().rate, 1e12);
        let dram: Vec<_> = doc.machine.bandwidth().collect();
        assert_eq!((dram.len(), dram[0].rate, dram[0].secondary), (1, 1e11, true));
    }

    #[test]
    fn v1_analysis_english_is_kept_as_legacy_entries() {
        let text = r#"{"schema":"roofline.analysis/v1","producer":{"tool":"roofline","version":"0.1.0"},
            "source":{"kind":"ncu"},"machine":{"name":"m","compute":[],"bandwidth":[]},
            "kernels":[{"kernel":{"id":"k1","name":"k","display_name":"k","origin":"counter"},
              "total_flops":0.0,"compute_roof_flops_per_s":null,"compute_roof_name":null,"levels":[],
              "attainable_flops_per_s":null,"limiter":null,"bound":null,"achieved_flops_per_s":null,
              "pct_of_roof":50.0,"diagnosis":{"position":"under_diagonal",
              "evidence":["50% of the DRAM bandwidth roof"],"next_move":"coalesce them"}}],
            "warnings":["missing metrics, the rest is analysed: x"]}"#;
        let doc = read_analysis(text, "old.json").unwrap();
        let d = doc.kernels[0].diagnosis.as_ref().unwrap();
        assert_eq!(d.evidence_lines(), vec!["50% of the DRAM bandwidth roof".to_string()]);
        assert_eq!(d.next_move_text(), "coalesce them");
        assert!(d.has("legacy"));
        assert_eq!(doc.warning_lines(), vec!["missing metrics, the rest is analysed: x".to_string()]);
        assert_eq!(doc.warnings[0].code(), "legacy");
    }

    #[test]
    fn typed_analysis_round_trips() {
        use roofline_model::Kernel;
        use roofline_model::{MemLevel, Origin};
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        let mut k = Kernel::named("k", Origin::Counter);
        k.bytes.insert(MemLevel::Dram, 1e9);
        k.duration_s = Some(0.1);
        let a = roofline_analysis::analyze(&m, &[k]);
        let mut doc = AnalysisDocument::new(
            Producer::new("t"),
            AnalysisSource { kind: "ncu".into(), detail: String::new(), byte_convention: None },
            m,
            a,
        );
        doc.warnings.push(Warning::NoDuration { launches: 1 });
        let text = serde_json::to_string(&doc).unwrap();
        assert!(text.contains(r#""code":"pct_of_roof""#), "{text}");
        assert_eq!(read_analysis(&text, "new.json").unwrap(), doc);
    }

    #[test]
    fn other_version_is_named() {
        let text = r#"{"schema":"roofline.machine/v9","machine":{}}"#;
        let e = read_machine(text, "old.json").unwrap_err().to_string();
        assert!(e.contains("old.json") && e.contains("roofline.machine/v9") && e.contains("regenerate"), "{e}");
    }

    #[test]
    fn truncated_file_is_named() {
        let e = read_analysis("{\"schema\": \"roofline.anal", "cut.json").unwrap_err().to_string();
        assert!(e.contains("cut.json") && e.contains("not valid JSON"), "{e}");
    }

    /// `AnalysisCheck`, fed the document a kernel at a time, stops at the
    /// error `check_analysis` stops at, wherever the bad values are.
    #[test]
    fn a_document_checked_kernel_by_kernel_stops_at_the_error_check_analysis_stops_at() {
        fn streamed(d: &AnalysisDocument) -> Result<(), DocumentError> {
            let mut shell = d.clone();
            let kernels = std::mem::take(&mut shell.kernels);
            let (warnings, program) = (std::mem::take(&mut shell.warnings), shell.program.take());
            let mut check = AnalysisCheck::new("x.json");
            check.shell(&shell)?;
            for (i, k) in kernels.iter().enumerate() {
                check.kernel(i, k)?;
            }
            (shell.warnings, shell.program) = (warnings, program);
            check.finish(&shell)
        }
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/recipe/after.json");
        let base = read_analysis(&std::fs::read_to_string(path).unwrap(), "after.json").unwrap();
        assert!(base.kernels.len() >= 2 && base.program.is_some());
        let dram = roofline_model::MemLevel::Dram;
        type Change = Box<dyn Fn(&mut AnalysisDocument)>;
        let cases: Vec<(&str, Change)> = vec![
            ("none", Box::new(|_| {})),
            ("a kernel's number", Box::new(|d| d.kernels[1].total_flops = 1e200)),
            ("a negative byte count", Box::new(move |d| _ = d.kernels[0].kernel.bytes.insert(dram, -1.0))),
            ("a zero roof", Box::new(|d| d.machine.ceilings[0].rate = 0.0)),
            (
                "a zero roof and a negative duration",
                Box::new(|d| {
                    d.kernels[1].kernel.duration_s = Some(-1.0);
                    d.machine.ceilings[0].rate = 0.0;
                }),
            ),
            (
                "a roof's number and a kernel's",
                Box::new(|d| {
                    d.kernels[1].total_flops = f64::INFINITY;
                    d.machine.ceilings[0].rate = 1e300;
                }),
            ),
            (
                "the program view's number and a negative duration",
                Box::new(|d| {
                    d.program.as_mut().unwrap().total_s = 1e200;
                    d.kernels[0].kernel.duration_s = Some(-1.0);
                }),
            ),
        ];
        for (what, change) in cases {
            let mut d = base.clone();
            change(&mut d);
            let whole = check_analysis(&d, "x.json").err().map(|e| e.to_string());
            assert_eq!(whole.is_none(), what == "none", "{what}: {whole:?}");
            assert_eq!(whole, streamed(&d).err().map(|e| e.to_string()), "{what}");
        }
    }
}
