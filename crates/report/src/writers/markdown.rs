//! Markdown: the document for CI job summaries, pull-request comments and
//! READMEs, everything a page shows but the charts.
//!
//! Text is escaped so a kernel name cannot break a table (`|`, line breaks),
//! start emphasis or code, or inject raw HTML (`<`, `&`).

use std::fmt::Write as _;

use super::escape::clean;
use super::lists::{each_item, each_note};
use super::slots::{slot_text, slots, Slot};
use super::visible::visible;
use crate::view::text::{cell_text, values_text};
use crate::view::{Audience, Block, Cell, Describe, Fact, Item, Note, Table};

/// Backslash-escapes what Markdown would read as syntax or raw HTML.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in clean(s, false).chars() {
        if matches!(c, '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '&' | '~' | '#' | '!') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn name(n: &str, id: &str) -> String {
    // The ID is hex; it goes into a code span as is.
    if id.is_empty() {
        escape(n)
    } else {
        format!("{} `{}`", escape(n), id.replace('`', ""))
    }
}

fn text(cell: &Cell) -> String {
    match cell {
        Cell::Name { .. } => cell_text(cell, &name),
        Cell::Values(vs) => escape(&values_text(vs)),
        c => escape(&cell_text(c, &|n, id| format!("{n} {id}"))),
    }
}

fn table(t: &Table) -> String {
    let slots = slots(t, Audience::Page);
    let mut s = String::new();
    let header: Vec<String> = slots.iter().map(|x| escape(&x.label(&t.columns))).collect();
    let _ = writeln!(s, "| {} |", header.join(" | "));
    let align: Vec<&str> = slots
        .iter()
        .map(|x| match x {
            Slot::Main(i) if t.columns[*i].numeric() => "---:",
            _ => "---",
        })
        .collect();
    let _ = writeln!(s, "|{}|", align.join("|"));
    for row in &t.rows {
        let cells: Vec<String> = slots
            .iter()
            .map(|&slot| {
                let cell = &row.cells[slot.column()];
                let body = match (slot, cell) {
                    (Slot::Main(_), c) => text(c),
                    (slot, c) => escape(&slot_text(slot, c, &|n, _| n.to_string())),
                };
                match (slot, cell.tone()) {
                    (Slot::Main(_), Some(crate::view::Tone::Poor)) => format!("**{body}**"),
                    _ => body,
                }
            })
            .collect();
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    s
}

fn facts(facts: &[Fact]) -> String {
    facts
        .iter()
        .filter(|f| f.show.shown_to(Audience::Page))
        .map(|f| format!("- **{}**: {}\n", escape(&f.label), text(&f.cell)))
        .collect()
}

fn notes(notes: &[Note]) -> String {
    each_note(notes, [("", "\n\n"), ("> note: ", "\n\n"), ("> **warning:** ", "\n\n")], escape)
}

fn items(items: &[Item]) -> String {
    each_item(
        items,
        |i| format!("- {}: **{}**\n", text(&i.head), text(&i.verdict)),
        |l| format!("  - {}\n", escape(l)),
        |a| format!("  - next: {}\n", escape(a)),
        "",
    )
}

/// The document as Markdown.
pub(crate) fn render<D: Describe + ?Sized>(doc: &D) -> String {
    let title = doc.title();
    let mut s = format!("## {}\n\n", escape(&title));
    for section in visible(doc, Audience::Page) {
        let mut body = String::new();
        for b in &section.blocks {
            let part = match b {
                Block::Table(t) if !t.rows.is_empty() => table(t),
                Block::Table(_) | Block::Chart(_) => String::new(),
                Block::Facts(f) => facts(f),
                Block::Notes(n) => notes(n),
                Block::Items(i) => items(i),
            };
            if !part.is_empty() {
                body.push_str(part.trim_end());
                body.push_str("\n\n");
            }
        }
        if body.is_empty() {
            continue;
        }
        // A section titled as the document needs no heading of its own.
        if !section.title.is_empty() && section.title != title {
            let _ = write!(s, "### {}\n\n", escape(&section.title));
        }
        s.push_str(&body);
    }
    s.truncate(s.trim_end().len());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_names_cannot_break_a_table_or_inject_html() {
        let e = escape("a|b\n<script>alert(1)</script> *x* `y` &amp;");
        assert!(!e.contains('\n'));
        assert!(e.contains("a\\|b"));
        assert!(e.contains("\\<script\\>") && e.contains("\\&amp;") && e.contains("\\*x\\*") && e.contains("\\`y\\`"));
    }
}
