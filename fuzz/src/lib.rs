//! What every fuzz target checks beyond "no panic": a document that passes
//! the tool's own checks is written as JSON and must read back, equal.

use roofline_documents::{check_analysis, read_analysis, AnalysisDocument, AnalysisSource, Producer};
use roofline_analysis::KernelAnalysis;
use roofline_model::Machine;

/// An analysis document around `kernels`, as a command would write it.
pub fn document(kind: &str, machine: Machine, kernels: Vec<KernelAnalysis>) -> AnalysisDocument {
    AnalysisDocument::new(
        Producer::new("fuzz"),
        AnalysisSource { kind: kind.into(), detail: String::new(), byte_convention: None },
        machine,
        kernels,
    )
}

/// The tool writes a document only when it passes `check_analysis` (else
/// the input is refused, exit 2); what it writes must read back unchanged.
pub fn written_reads_back(doc: &AnalysisDocument) {
    if check_analysis(doc, "fuzz").is_err() {
        return;
    }
    let json = serde_json::to_string_pretty(doc).expect("a checked document serialises");
    match read_analysis(&json, "fuzz") {
        Ok(back) => assert_eq!(&back, doc, "the document read back differs from the one written"),
        Err(e) => panic!("a document that passed its checks does not read back: {e}\n{json}"),
    }
}
