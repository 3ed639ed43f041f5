//! `roofline-report`: everything the tool writes, one module per format.
//!
//! Exporters turn the versioned documents of `roofline-core` into text:
//! a readable table for terminals ([`table`]), JSON ([`json`]), CSV
//! ([`csv_export`]) and Markdown ([`markdown`]); the roofline chart as SVG
//! ([`svg`]), before/after charts and tables ([`diff`]) and the
//! self-contained HTML report ([`html`]). They share one trait,
//! [`Exporter`], so a command asks for a format and never formats by hand.
//! [`write_atomic`] writes a file whole or not at all.

pub mod csv_export;
pub mod diff;
pub mod html;
pub mod json;
pub mod markdown;
pub mod occupancy;
pub mod occupancy_chart;
pub mod samples;
pub mod svg;
pub mod table;

use std::io::Write;
use std::path::Path;

use roofline_core::schema::{AnalysisDocument, MachineDocument};

/// The output formats every command offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Table,
    Json,
    Csv,
    Markdown,
}

/// An output could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("could not serialise to JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("could not write CSV: {0}")]
    Csv(#[from] ::csv::Error),
    #[error("could not write {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// One output format for the two documents.
pub trait Exporter {
    fn machine(&self, doc: &MachineDocument) -> Result<String, ExportError>;
    fn analysis(&self, doc: &AnalysisDocument) -> Result<String, ExportError>;
}

/// The exporter for a format.
pub fn exporter(format: Format) -> Box<dyn Exporter> {
    match format {
        Format::Table => Box::new(table::TableExporter),
        Format::Json => Box::new(json::JsonExporter),
        Format::Csv => Box::new(csv_export::CsvExporter),
        Format::Markdown => Box::new(markdown::MarkdownExporter),
    }
}

/// Writes `contents` to `path` through a temporary file in the same folder
/// and a rename, so readers never see a half-written file and a failure
/// leaves nothing behind.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), ExportError> {
    let io = |source| ExportError::Io { path: path.display().to_string(), source };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(contents)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e));
    }
    Ok(())
}
