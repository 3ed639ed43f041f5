//! The output formats and the one entry point that renders a document in any
//! of them; out of `writers/mod.rs`, which only declares and re-exports.

use std::path::Path;

use serde::Serialize;

use super::csv::{self, CsvTable};
use super::terminal::{self, TerminalOptions};
use super::{html, markdown};
use crate::chart::ChartOptions;
use crate::view::{Block, Describe};
use crate::ExportError;

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Tables for a terminal.
    #[default]
    Table,
    /// The versioned document itself.
    Json,
    /// One CSV per table, raw numbers in base SI units.
    Csv,
    /// For CI job summaries, pull requests and READMEs.
    Markdown,
    /// A self-contained page with the charts, sortable tables and details.
    Html,
    /// The document's chart alone.
    Svg,
    /// The document's chart drawn in the terminal (braille dots, a key).
    Chart,
}

impl Format {
    /// The format a file name asks for by its extension (case-insensitive):
    /// `.json`, `.csv`, `.md`/`.markdown`, `.html`/`.htm`, `.svg`, `.txt`.
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
        Some(match ext.as_str() {
            "json" => Format::Json,
            "csv" => Format::Csv,
            "md" | "markdown" => Format::Markdown,
            "html" | "htm" => Format::Html,
            "svg" => Format::Svg,
            "txt" | "text" => Format::Table,
            _ => return None,
        })
    }

    /// The usual extension of a file in this format.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Table => "txt",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Markdown => "md",
            Format::Html => "html",
            Format::Svg => "svg",
            Format::Chart => "txt",
        }
    }
}

/// How to render: the terminal's width and colours, the charts' size.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RenderOptions {
    /// For [`Format::Table`].
    pub terminal: TerminalOptions,
    /// For [`Format::Html`] and [`Format::Svg`].
    pub chart: ChartOptions,
}

/// Writes a document as JSON (the `json` format) into `w` as it is
/// serialized: a document of a million kernels is never held as text.
pub fn write_json<D: Serialize + ?Sized>(doc: &D, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, doc)?;
    w.write_all(b"\n")
}

/// Renders a document in a format. For CSV this is the document's first
/// table; [`csv_tables`] gives all of them.
pub fn render<D: Describe + Serialize + ?Sized>(
    doc: &D,
    format: Format,
    opts: &RenderOptions,
) -> Result<String, ExportError> {
    Ok(match format {
        Format::Table => terminal::render(doc, &opts.terminal),
        Format::Json => {
            let mut text = Vec::new();
            write_json(doc, &mut text).map_err(serde_json::Error::io)?;
            String::from_utf8(text).expect("serde_json writes UTF-8")
        }
        Format::Csv => csv::render(doc)?.into_iter().next().map(|t| t.text).unwrap_or_default(),
        Format::Markdown => markdown::render(doc),
        Format::Html => html::render(doc, &opts.chart)?,
        Format::Svg => chart_svg(doc, &opts.chart)?,
        Format::Chart => chart_text(doc, &opts.terminal)?,
    })
}

/// Every table of a document as CSV, the first being what
/// [`render`] writes for [`Format::Csv`].
pub fn csv_tables<D: Describe + ?Sized>(doc: &D) -> Result<Vec<CsvTable>, ExportError> {
    csv::render(doc)
}

/// The first chart the document's sections refer to, as SVG.
fn chart_svg<D: Describe + ?Sized>(doc: &D, opts: &ChartOptions) -> Result<String, ExportError> {
    doc.sections()
        .iter()
        .flat_map(|s| s.blocks.iter())
        .find_map(|b| match b {
            Block::Chart(c) => doc.chart_svg(c.kind, opts),
            _ => None,
        })
        .ok_or_else(|| ExportError::NoChart(doc.title()))
}

/// The first chart the document's sections refer to, drawn for a terminal.
fn chart_text<D: Describe + ?Sized>(doc: &D, opts: &TerminalOptions) -> Result<String, ExportError> {
    doc.sections()
        .iter()
        .flat_map(|s| s.blocks.iter())
        .find_map(|b| match b {
            Block::Chart(c) => doc.chart_text(c.kind, usize::from(opts.width), opts.color),
            _ => None,
        })
        .ok_or_else(|| ExportError::NoChart(doc.title()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn extensions_map_to_formats() {
        for (name, f) in [
            ("a.json", Some(Format::Json)),
            ("a.CSV", Some(Format::Csv)),
            ("a.md", Some(Format::Markdown)),
            ("a.markdown", Some(Format::Markdown)),
            ("a.htm", Some(Format::Html)),
            ("a.html", Some(Format::Html)),
            ("a.svg", Some(Format::Svg)),
            ("a.txt", Some(Format::Table)),
            ("a.out", None),
            ("a", None),
        ] {
            assert_eq!(Format::from_path(&PathBuf::from(name)), f, "{name}");
        }
        for f in [Format::Table, Format::Json, Format::Csv, Format::Markdown, Format::Html, Format::Svg] {
            // (Format::Chart writes text, as the table does.)
            assert_eq!(Format::from_path(&PathBuf::from(format!("x.{}", f.extension()))), Some(f));
        }
    }
}
