//! One writer per format, each rendering any [`Describe`] document from its
//! sections: the terminal table, Markdown, CSV and the HTML page; JSON is
//! the document itself through serde; SVG is the document's chart.
//!
//! [`Format`] and [`Format::from_path`] are the one place a format is named
//! and an extension mapped to it.

pub(crate) mod csv;
pub(crate) mod html;
pub(crate) mod markdown;
pub(crate) mod terminal;

use std::path::Path;

use serde::Serialize;

use crate::chart::ChartOptions;
use crate::view::{Audience, Block, Cell, Column, ColumnKind, Describe, Item, Note, NoteKind, Row, Section, Table};
use crate::ExportError;

pub use self::csv::CsvTable;
pub use self::terminal::{ColorChoice, TerminalOptions, MIN_WIDTH, PIPE_WIDTH};

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

/// The sections a writer for `audience` shows, each table with its rows
/// (a deferred table's are made here).
pub(crate) fn visible<D: Describe + ?Sized>(doc: &D, audience: Audience) -> Vec<Section> {
    let mut sections = shown(doc, audience);
    for s in &mut sections {
        for b in &mut s.blocks {
            if let Block::Table(t) = b {
                if t.deferred.is_some() {
                    let mut rows = Vec::new();
                    deferred_rows(doc, t, &mut |r| rows.push(r));
                    t.rows = rows;
                    t.deferred = None;
                }
            }
        }
    }
    sections
}

/// The sections a writer for `audience` shows, deferred tables left to
/// [`each_row`].
pub(crate) fn shown<D: Describe + ?Sized>(doc: &D, audience: Audience) -> Vec<Section> {
    doc.sections().into_iter().filter(|s| s.show.shown_to(audience)).collect()
}

/// Each row of `t` in order, made by the document if the table is deferred.
pub(crate) fn each_row<D: Describe + ?Sized>(doc: &D, t: &Table, row: &mut dyn FnMut(&Row)) {
    match t.deferred {
        None => t.rows.iter().for_each(row),
        Some(_) => deferred_rows(doc, t, &mut |r| row(&r)),
    }
}

fn deferred_rows<D: Describe + ?Sized>(doc: &D, t: &Table, row: &mut dyn FnMut(Row)) {
    let mut made = 0;
    doc.deferred_rows(&t.name, &mut |r| {
        debug_assert_eq!(r.cells.len(), t.columns.len(), "table {}: a row of the wrong width", t.name);
        made += 1;
        row(r)
    });
    debug_assert_eq!(Some(made), t.deferred, "table {}: rows made against rows announced", t.name);
}

/// A column as a people's writer lays it out: the value itself, or one of
/// the provenance columns a value column brings with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// The column's own cells.
    Main(usize),
    /// The origin of its values.
    Origin(usize),
    /// The spread of its values.
    Spread(usize),
    /// The clock of its values.
    Clock(usize),
}

impl Slot {
    /// The column the slot belongs to.
    pub(crate) fn column(self) -> usize {
        match self {
            Slot::Main(i) | Slot::Origin(i) | Slot::Spread(i) | Slot::Clock(i) => i,
        }
    }

    /// The heading of the slot.
    pub(crate) fn label(self, columns: &[Column]) -> String {
        match self {
            Slot::Main(i) => columns[i].label.clone(),
            Slot::Origin(_) => "origin".into(),
            Slot::Spread(_) => "spread".into(),
            Slot::Clock(_) => "clock".into(),
        }
    }
}

/// The slots of a table for people: columns the audience sees, with no
/// column whose every cell is empty, each provenance column followed by the
/// origin, spread and clock its values have.
pub(crate) fn slots(t: &Table, audience: Audience) -> Vec<Slot> {
    let mut out = Vec::new();
    for (i, c) in t.columns.iter().enumerate() {
        if !c.show.shown_to(audience) || t.rows.iter().all(|r| r.cells[i].is_empty()) {
            continue;
        }
        out.push(Slot::Main(i));
        if let ColumnKind::Value { provenance: true, .. } = c.kind {
            let values: Vec<&crate::view::Value> = t
                .rows
                .iter()
                .filter_map(|r| match &r.cells[i] {
                    Cell::Value(v) => Some(v),
                    _ => None,
                })
                .collect();
            for (slot, known) in [
                (Slot::Origin(i), values.iter().any(|v| v.basis.origin.is_some())),
                (Slot::Spread(i), values.iter().any(|v| v.basis.spread.is_some())),
                (
                    Slot::Clock(i),
                    values.iter().any(|v| v.basis.clock.as_ref().is_some_and(|c| !c.describe().is_empty())),
                ),
            ] {
                if known {
                    out.push(slot);
                }
            }
        }
    }
    out
}

/// The text of a slot of a cell for people; `name` renders a name cell.
pub(crate) fn slot_text(slot: Slot, cell: &Cell, name: &dyn Fn(&str, &str) -> String) -> String {
    use crate::view::text::{clock_text, origin_text};
    match (slot, cell) {
        (Slot::Main(_), c) => crate::view::text::cell_text(c, name),
        (Slot::Origin(_), Cell::Value(v)) => origin_text(v),
        (Slot::Spread(_), Cell::Value(v)) => crate::view::spread_text(v.basis.spread.as_deref(), v.unit),
        (Slot::Clock(_), Cell::Value(v)) => clock_text(v),
        _ => "-".into(),
    }
}

/// Entries with a heading, lines and an action, laid out by a writer:
/// `head` opens an entry, `line` and `action` render what is under it,
/// `close` ends it.
pub(crate) fn each_item(
    items: &[Item],
    head: impl Fn(&Item) -> String,
    line: impl Fn(&str) -> String,
    action: impl Fn(&str) -> String,
    close: &str,
) -> String {
    let mut s = String::new();
    for i in items {
        s.push_str(&head(i));
        for l in &i.lines {
            s.push_str(&line(l));
        }
        if let Some(a) = &i.action {
            s.push_str(&action(a));
        }
        s.push_str(close);
    }
    s
}

/// Notes, each escaped and put between the opening and closing strings of
/// its kind: `marks` holds them for information, notes and warnings.
pub(crate) fn each_note(notes: &[Note], marks: [(&str, &str); 3], escape: impl Fn(&str) -> String) -> String {
    notes
        .iter()
        .map(|n| {
            let (open, close) = match n.kind {
                NoteKind::Info => marks[0],
                NoteKind::Note => marks[1],
                NoteKind::Warning => marks[2],
            };
            format!("{open}{}{close}", escape(&n.text))
        })
        .collect()
}

/// Text with its control characters (escape sequences, carriage returns,
/// bidirectional overrides) replaced, for the terminal and for Markdown:
/// a kernel name cannot move the cursor or recolour the screen. Line breaks
/// become spaces unless `keep_newlines`.
pub(crate) fn clean(s: &str, keep_newlines: bool) -> String {
    s.chars()
        .filter_map(|c| match c {
            '\n' if keep_newlines => Some('\n'),
            '\n' | '\t' | '\r' => Some(' '),
            c if c.is_control() => Some('\u{FFFD}'),
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' => None,
            c => Some(c),
        })
        .collect()
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

    #[test]
    fn control_characters_cannot_reach_the_terminal() {
        let name = "evil\u{1b}[2J\u{1b}]0;title\u{7}\r\nname\u{202E}txt";
        let c = clean(name, false);
        assert!(!c.chars().any(|ch| ch.is_control()), "{c:?}");
        assert!(!c.contains('\u{202E}'));
        assert!(c.contains("evil") && c.contains("name"));
    }
}
