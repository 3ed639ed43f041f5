//! The versioned JSON documents one command writes and the next reads.
//!
//! Two documents, each with a `schema` string that names its kind and
//! version: a machine (`roofline.machine/v1`, what `peaks` and `bench`
//! write) and an analysis (`roofline.analysis/v1`, what `model`, `import`
//! and `profile` write; it embeds its machine). A reader checks the schema
//! before anything else so that a file of another version fails with a
//! message, not a confusing missing-field error. docs/schema.md documents
//! every field.
//!
//! The same checks run on what is read and on what is about to be written
//! ([`check_analysis`], [`check_machine`]): every number finite and within
//! [`crate::bounds`], durations and roofs positive, FLOPs and bytes not
//! negative. So every document the tool writes, it reads back.

use serde::{de::DeserializeOwned, Deserialize, Serialize};

use crate::machine::Machine;
use crate::roofline::KernelAnalysis;

pub const MACHINE_SCHEMA: &str = "roofline.machine/v1";
pub const ANALYSIS_SCHEMA: &str = "roofline.analysis/v1";

/// Which program wrote a document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Producer {
    pub tool: String,
    pub version: String,
    /// The command line or command name that produced it.
    #[serde(default)]
    pub command: String,
    /// RFC 3339 time, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
}

impl Producer {
    pub fn new(command: &str) -> Producer {
        Producer {
            tool: "roofline".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            command: command.into(),
            created: None,
        }
    }
}

/// `roofline.machine/v1`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineDocument {
    pub schema: String,
    pub producer: Producer,
    pub machine: Machine,
    /// Raw benchmark results behind measured ceilings (per-benchmark
    /// samples, launch shapes, clocks), free-form but stable per benchmark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measurements: Option<serde_json::Value>,
}

impl MachineDocument {
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

/// `roofline.analysis/v1`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalysisDocument {
    pub schema: String,
    pub producer: Producer,
    pub source: AnalysisSource,
    pub machine: Machine,
    pub kernels: Vec<KernelAnalysis>,
    /// Things the reader must know (missing metrics, suspect values).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl AnalysisDocument {
    pub fn new(producer: Producer, source: AnalysisSource, machine: Machine, kernels: Vec<KernelAnalysis>) -> Self {
        AnalysisDocument { schema: ANALYSIS_SCHEMA.into(), producer, source, machine, kernels, warnings: Vec::new() }
    }
}

/// A document could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    #[error("{input}: not valid JSON ({source}); expected a {expected} document written by roofline; if the file was cut short, write it again")]
    Json {
        input: String,
        expected: &'static str,
        #[source]
        source: serde_json::Error,
    },
    #[error("{input}: has no \"schema\" field; expected a {expected} document written by roofline (`roofline peaks -o FILE`, `roofline bench -o FILE`, `roofline model --format json`)")]
    NoSchema { input: String, expected: &'static str },
    #[error("{input}: is a {found} document, expected {expected}; {fix}")]
    WrongSchema { input: String, found: String, expected: &'static str, fix: String },
    #[error("{input}: {field} = {value}: {problem}{fix}")]
    Value { input: String, field: String, value: String, problem: String, fix: String },
    #[error(
        "{input}: a {expected} document with a bad field ({source}); write it again with this version of roofline"
    )]
    Fields {
        input: String,
        expected: &'static str,
        #[source]
        source: serde_json::Error,
    },
}

fn read<T: DeserializeOwned>(text: &str, input: &str, expected: &'static str) -> Result<T, DocumentError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|source| DocumentError::Json { input: input.into(), expected, source })?;
    let found = value
        .get("schema")
        .and_then(|s| s.as_str())
        .ok_or_else(|| DocumentError::NoSchema { input: input.into(), expected })?
        .to_string();
    if found != expected {
        let fix = match (found.split('/').next(), expected.split('/').next()) {
            (Some(a), Some(b)) if a == b => format!(
                "this version of roofline ({}) reads {expected} only: regenerate the file with it",
                env!("CARGO_PKG_VERSION")
            ),
            _ => format!("pass a {expected} file here"),
        };
        return Err(DocumentError::WrongSchema { input: input.into(), found, expected, fix });
    }
    serde_json::from_value(value).map_err(|source| DocumentError::Fields { input: input.into(), expected, source })
}

fn value_error(input: &str, field: String, value: f64, problem: &str) -> DocumentError {
    DocumentError::Value {
        input: input.into(),
        field,
        value: value.to_string(),
        problem: problem.into(),
        fix: String::new(),
    }
}

/// The fix for a document that was read: where it came from.
fn read_fix(e: DocumentError) -> DocumentError {
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
    for (i, c) in machine.compute.iter().enumerate() {
        if c.flops_per_s <= 0.0 {
            let field = format!("{prefix}compute[{i}].flops_per_s");
            return Err(value_error(input, field, c.flops_per_s, "a compute roof must be greater than zero"));
        }
    }
    for (i, b) in machine.bandwidth.iter().enumerate() {
        if b.bytes_per_s <= 0.0 {
            let field = format!("{prefix}bandwidth[{i}].bytes_per_s");
            return Err(value_error(input, field, b.bytes_per_s, "a bandwidth roof must be greater than zero"));
        }
    }
    Ok(())
}

fn range_error(input: &str, e: crate::bounds::OutOfRange) -> DocumentError {
    let problem = e.to_string();
    let problem = problem.split_once(": ").map(|(_, p)| p.to_string()).unwrap_or(problem);
    DocumentError::Value { input: input.into(), field: e.path, value: e.value.to_string(), problem, fix: String::new() }
}

/// Checks a machine document: numbers in range, roofs positive.
pub fn check_machine(doc: &MachineDocument, input: &str) -> Result<(), DocumentError> {
    crate::bounds::check_numbers(&doc.machine).map_err(|mut e| {
        e.path = format!("machine.{}", e.path);
        range_error(input, e)
    })?;
    check_ceilings(&doc.machine, "machine.", input)
}

/// Checks an analysis document: numbers in range, roofs and durations
/// positive, FLOPs and bytes not negative.
pub fn check_analysis(doc: &AnalysisDocument, input: &str) -> Result<(), DocumentError> {
    crate::bounds::check_numbers(doc).map_err(|e| range_error(input, e))?;
    check_ceilings(&doc.machine, "machine.", input)?;
    for (i, k) in doc.kernels.iter().enumerate() {
        if let Some(d) = k.kernel.duration_s.filter(|d| *d <= 0.0) {
            let field = format!("kernels[{i}].kernel.duration_s");
            return Err(value_error(
                input,
                field,
                d,
                "a duration must be greater than zero (leave it out when unknown)",
            ));
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
    }
    Ok(())
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

pub fn read_analysis(text: &str, input: &str) -> Result<AnalysisDocument, DocumentError> {
    let doc = read(text, input, ANALYSIS_SCHEMA)?;
    check_analysis(&doc, input).map_err(read_fix)?;
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::FlopKind;

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
        m.compute[0].flops_per_s = 74.70000000000002;
        let doc = MachineDocument::new(m, Producer::new("test"));
        let text = serde_json::to_string_pretty(&doc).unwrap();
        assert_eq!(read_machine(&text, "m.json").unwrap(), doc);
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
}
