//! `roofline-report`: everything the tool writes, one module per format.
//!
//! Exporters turn the versioned documents of `roofline-core` into text:
//! a readable table for terminals ([`table`]), JSON ([`json`]), CSV
//! ([`csv_export`]) and Markdown ([`markdown`]); the roofline chart as SVG
//! ([`svg`]), before/after charts and tables ([`diff`]) and the
//! self-contained HTML report ([`html`]). They share one trait,
//! [`Exporter`], so a command asks for a format and never formats by hand.
//! [`write_atomic`] ([`output_file`]) writes a file whole or not at all,
//! without replacing devices, symlinks, owners, modes or the run's inputs.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod csv_export;
pub mod diff;
pub mod html;
pub mod json;
pub mod markdown;
pub mod occupancy;
pub mod occupancy_chart;
pub mod output_file;
pub mod samples;
pub mod svg;
pub mod table;

use roofline_core::schema::{AnalysisDocument, MachineDocument};

pub use crate::output_file::write_atomic;

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
