//! The lean read `check` and `diff` use (`roofline_documents`) on
//! real captures: it must give exactly what the full reader gives, each
//! kernel cut to its placement, or refuse what the full reader refuses.

use std::path::PathBuf;

use roofline_analysis::KernelAnalysis;
use roofline_documents::read_analysis_placements;
use roofline_documents::{read_analysis, AnalysisDocument, AnalysisSource, Producer};
mod common;
use common::{analyse, Options};
use roofline_ncu::read_capture;

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

/// The JSON `roofline import` writes for a capture of the external corpus
/// (profiler evidence, diagnoses, instruction views and level caveats).
fn imported(capture: &str) -> String {
    let path = repo(&format!("tests/fixtures/external/h200-2026-11-30/{capture}.csv"));
    let cap = read_capture(std::fs::File::open(&path).unwrap(), capture).unwrap();
    let a = analyse(&cap, &Options::default());
    let mut doc = AnalysisDocument::new(
        Producer::new("test"),
        AnalysisSource { kind: "ncu".into(), detail: capture.into(), byte_convention: None },
        a.machine,
        a.kernels,
    );
    doc.warnings = a.warnings;
    serde_json::to_string_pretty(&doc).unwrap()
}

/// What the lean read must equal: the full read, each kernel's placement.
fn full_then_cut(text: &str) -> AnalysisDocument {
    let mut doc = read_analysis(text, "a.json").unwrap();
    doc.kernels = doc.kernels.iter().map(KernelAnalysis::placement).collect();
    doc.program = None;
    doc
}

#[test]
fn the_lean_read_is_the_full_read_cut_to_placements() {
    for capture in ["pytorch_full_a", "babelstream_full", "seed000_fp16_full"] {
        let text = imported(capture);
        let full = read_analysis(&text, "a.json").unwrap();
        // The parts stepped over are really there, so the comparison means something.
        assert!(full.kernels.iter().any(|k| k.diagnosis.is_some()), "{capture}: diagnoses");
        assert!(full.kernels.iter().any(|k| !k.kernel.evidence.is_empty()), "{capture}: evidence");
        let lean = read_analysis_placements(&text, "a.json").unwrap();
        assert_eq!(lean, full_then_cut(&text), "{capture}");
        assert!(lean.kernels.iter().all(|k| k.diagnosis.is_none() && k.kernel.evidence.is_empty()));
    }
}

#[test]
fn a_document_the_lean_types_cannot_read_takes_the_full_reader() {
    let text = imported("pytorch_full_a");
    // Keys in another order than the tool writes them (schema last): the
    // head does not name the schema.
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let schema = value.as_object_mut().unwrap().remove("schema").unwrap();
    value.as_object_mut().unwrap().insert("schema".into(), schema);
    let moved = serde_json::to_string(&value).unwrap();
    assert_eq!(read_analysis_placements(&moved, "a.json").unwrap(), full_then_cut(&moved));
}

#[test]
fn a_number_out_of_range_where_placements_are_read_is_refused_as_the_full_reader_refuses_it() {
    let text = imported("babelstream_full");
    let bad = replace_number_after(&text, &["\"kernels\"", "\"pct_of_roof\""], "1e300");
    let lean = read_analysis_placements(&bad, "a.json").unwrap_err().to_string();
    let full = read_analysis(&bad, "a.json").unwrap_err().to_string();
    assert_eq!(lean, full);
    assert!(lean.contains("kernels[0].pct_of_roof"), "{lean}");
}

/// `text` with the first number after each of `marks` in turn replaced by
/// `number`; the schema stays the first key, as the tool writes it, so the
/// lean read takes its own path.
fn replace_number_after(text: &str, marks: &[&str], number: &str) -> String {
    let mut at = 0;
    for m in marks {
        at += text[at..].find(m).expect("mark in the document") + m.len();
    }
    let start = at + text[at..].find(|c: char| c.is_ascii_digit()).unwrap();
    let end = start + text[start..].find(|c: char| !(c.is_ascii_digit() || ".eE+-".contains(c))).unwrap();
    let out = format!("{}{number}{}", &text[..start], &text[end..]);
    assert!(out.starts_with("{\n  \"schema\": \"roofline.analysis/v2\""));
    out
}

#[test]
fn a_part_stepped_over_is_not_checked_by_the_lean_read() {
    // The documented trade-off (as merge's skimming reader): a bad number
    // inside a diagnosis is refused by `report`, not by `check` or `diff`,
    // which never read it.
    let text = imported("babelstream_full");
    let bad = replace_number_after(&text, &["\"evidence\": {", ": "], "1e300");
    assert!(read_analysis(&bad, "a.json").is_err());
    assert!(read_analysis_placements(&bad, "a.json").is_ok());
}
