//! Reading the analysis documents that `report`, `check` and `diff` take:
//! the schema is checked first, and an analysis with no kernels (an empty
//! profile) is refused, so no command draws or judges nothing.

use std::path::Path;

use roofline_core::schema::{read_analysis, AnalysisDocument, ANALYSIS_SCHEMA};

use crate::error::bad_input;
use crate::input_file::read_text;

/// Reads an analysis document; every failure is bad input (exit code 2).
pub fn read_analysis_file(path: &Path) -> anyhow::Result<AnalysisDocument> {
    let input = path.display().to_string();
    let text = read_text(
        path,
        &format!("a {ANALYSIS_SCHEMA} JSON file, as written by `roofline model --format json -o FILE.json`"),
    )?;
    let doc = read_analysis(&text, &input)?;
    if doc.kernels.is_empty() {
        return Err(bad_input(format!(
            "{input}: the analysis has no kernels (an empty profile?); profile or model at least one kernel and write it again"
        )));
    }
    Ok(doc)
}
