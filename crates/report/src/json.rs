//! JSON: the versioned documents themselves, pretty-printed, so that one
//! command's output is the next command's input.

use roofline_core::schema::{AnalysisDocument, MachineDocument};

use crate::{ExportError, Exporter};

pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn machine(&self, doc: &MachineDocument) -> Result<String, ExportError> {
        Ok(serde_json::to_string_pretty(doc)? + "\n")
    }

    fn analysis(&self, doc: &AnalysisDocument) -> Result<String, ExportError> {
        Ok(serde_json::to_string_pretty(doc)? + "\n")
    }
}
