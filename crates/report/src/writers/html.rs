//! The self-contained HTML page of any document: one file that opens
//! anywhere, fetches nothing, and holds the document's charts, its tables
//! (sortable), facts, notes and diagnoses, in the order of its sections.
//!
//! The page is `templates/report.html` (kept as a file, so it reads as
//! HTML) with `{{NAME}}` slots filled here in one pass. The document is
//! embedded as JSON (`<script id="roofline-data">`, with `</` and `<!--`
//! escaped) together with the hover details of the chart's points; a little
//! inline script shows those details on hover or focus, ties a kernel's row
//! to its points, and sorts the tables. The script also carries a self-test
//! (`#selftest`) that the browser check runs in headless Chromium.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::{each_item, each_note, slot_text, slots, visible, Slot};
use crate::svg::{escape, ChartOptions};
use crate::view::text::{provenance_line, quantity_text, values_text};
use crate::view::{Audience, Block, Cell, ChartRef, Describe, Fact, Item, Note, PointDetail, Table};
use crate::ExportError;

const TEMPLATE: &str = include_str!("../../templates/report.html");

/// Fills `{{NAME}}` slots in one pass (inserted text is never re-scanned).
fn fill(template: &str, slots: &BTreeMap<&str, String>) -> String {
    let mut out = String::with_capacity(template.len() * 2);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) if slots.contains_key(&after[..end]) => {
                out.push_str(&slots[&after[..end]]);
                rest = &after[end + 2..];
            }
            _ => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// JSON safe inside a `<script>` element: `<` and `>` only occur inside
/// JSON strings, where `\u003c` and `\u003e` mean the same, so no `</script>`
/// or `<!--` can end or confuse the element.
fn script_json<T: Serialize + ?Sized>(v: &T) -> Result<String, ExportError> {
    Ok(serde_json::to_string(v)?.replace('<', "\\u003c").replace('>', "\\u003e"))
}

/// The sortable value of a cell (`data-v`): the number, or the lower-case text.
fn sort_key(cell: &Cell) -> Option<String> {
    match cell {
        Cell::Value(v) if v.value.is_finite() => Some(format!("{:e}", v.value)),
        Cell::Change { delta: Some(d), .. } => Some(format!("{:e}", d.value)),
        Cell::Change { after, .. } => sort_key(after),
        _ => None,
    }
}

fn name_html(n: &str, id: &str) -> String {
    if id.is_empty() {
        escape(n)
    } else {
        format!("{} <code>{}</code>", escape(n), escape(id))
    }
}

/// A cell's content as HTML (escaped).
fn content(cell: &Cell) -> String {
    match cell {
        Cell::Empty => "-".into(),
        Cell::Text { text, .. } => escape(text),
        Cell::Name { name, id, .. } => name_html(name, id),
        Cell::Value(v) => {
            let mut s = escape(&quantity_text(v.value, v.unit));
            if let Some(n) = v.note.as_ref().filter(|n| !n.is_empty()) {
                let _ = write!(s, "<span class=\"lim\">{}</span>", escape(n));
            }
            s
        }
        Cell::Values(vs) => escape(&values_text(vs)),
        Cell::Change { before, after, delta } => {
            let mut s = format!("{} -&gt; {}", content(before), content(after));
            if let Some(d) = delta {
                let _ = write!(s, " ({})", escape(&quantity_text(d.value, d.unit)));
            }
            s
        }
    }
}

fn td(slot: Slot, cell: &Cell, numeric: bool) -> String {
    let mut attrs = String::new();
    if numeric && matches!(slot, Slot::Main(_)) {
        attrs.push_str(" class=\"num\"");
    }
    let tone = cell.tone().filter(|_| matches!(slot, Slot::Main(_)));
    if let Some(t) = tone {
        let _ = write!(attrs, " data-tone=\"{}\"", t.key());
    }
    let body = match slot {
        Slot::Main(_) => content(cell),
        other => escape(&slot_text(other, cell, &|n, _| n.to_string())),
    };
    match (slot, cell) {
        (Slot::Main(_), Cell::Name { name, full, .. }) => {
            let _ = write!(attrs, " data-v=\"{}\" title=\"{}\"", escape(&name.to_lowercase()), escape(full));
        }
        (Slot::Main(_), c) if numeric => {
            let _ = write!(attrs, " data-v=\"{}\"", sort_key(c).unwrap_or_default());
            if let Cell::Value(v) = c {
                let p = provenance_line(v);
                if !p.is_empty() {
                    let _ = write!(attrs, " title=\"{}\"", escape(&p));
                }
            }
        }
        (Slot::Main(_), Cell::Text { text, .. }) => {
            let _ = write!(attrs, " data-v=\"{}\"", escape(&text.to_lowercase()));
        }
        _ => {}
    }
    format!("<td{attrs}>{body}</td>")
}

fn table(t: &Table) -> String {
    let slots = slots(t, Audience::Page);
    let mut s =
        format!("<div class=\"table-wrap\"><table class=\"sortable\" id=\"{}-table\">\n<thead><tr>", escape(&t.name));
    for &slot in &slots {
        let c = &t.columns[slot.column()];
        let numeric = matches!(slot, Slot::Main(_)) && c.numeric();
        let _ = write!(
            s,
            "<th{} data-type=\"{}\"{}><button type=\"button\">{}</button></th>",
            if numeric { " class=\"num\"" } else { "" },
            if numeric { "num" } else { "text" },
            if matches!(slot, Slot::Main(_)) && !c.help.is_empty() {
                format!(" title=\"{}\"", escape(&c.help))
            } else {
                String::new()
            },
            escape(&slot.label(&t.columns))
        );
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for row in &t.rows {
        s.push_str("<tr");
        if let Some((attr, v)) = &row.link {
            let _ = write!(s, " {attr}=\"{}\"", escape(v));
        }
        if let Some(tone) = row.tone {
            let _ = write!(s, " data-tone=\"{}\"", tone.key());
        }
        s.push('>');
        for &slot in &slots {
            s.push_str(&td(slot, &row.cells[slot.column()], t.columns[slot.column()].numeric()));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody>\n</table></div>\n");
    s
}

fn facts(facts: &[Fact]) -> String {
    let mut s = String::from("<dl class=\"facts\">");
    for f in facts.iter().filter(|f| f.show.shown_to(Audience::Page)) {
        let _ = write!(s, "<dt>{}</dt><dd>{}</dd>", escape(&f.label), content(&f.cell));
    }
    s.push_str("</dl>\n");
    s
}

fn notes(notes: &[Note]) -> String {
    let marks = [("<p>", "</p>\n"), ("<p class=\"note\">", "</p>\n"), ("<p class=\"warn\">", "</p>\n")];
    each_note(notes, marks, escape)
}

fn items(items: &[Item]) -> String {
    let head = |i: &Item| {
        let tone = i.verdict.tone().map(|t| format!(" data-tone=\"{}\"", t.key())).unwrap_or_default();
        format!("<li><b>{}</b>: <span{tone}>{}</span><ul>", content(&i.head), content(&i.verdict))
    };
    let entries = each_item(
        items,
        head,
        |l| format!("<li>{}</li>", escape(l)),
        |a| format!("<li class=\"next\">next: {}</li>", escape(a)),
        "</ul></li>\n",
    );
    format!("<ul class=\"items\">\n{entries}</ul>\n")
}

fn chart<D: Describe + ?Sized>(doc: &D, c: &ChartRef, opts: &ChartOptions) -> String {
    match doc.chart_svg(c.kind, opts) {
        Some(svg) => format!("<p class=\"hint\">{}</p>\n<div class=\"chart\">{svg}</div>\n", escape(&c.hint)),
        None => String::new(),
    }
}

/// The page of a document.
pub(crate) fn render<D: Describe + Serialize + ?Sized>(doc: &D, opts: &ChartOptions) -> Result<String, ExportError> {
    let title = doc.title();
    let mut body = String::new();
    for section in visible(doc.sections(), Audience::Page) {
        let mut inner = String::new();
        for b in &section.blocks {
            match b {
                Block::Table(t) if !t.rows.is_empty() => {
                    inner.push_str("<p class=\"hint\">Click a column header to sort; click again to reverse.</p>\n");
                    inner.push_str(&table(t));
                }
                Block::Table(_) => {}
                Block::Facts(f) => inner.push_str(&facts(f)),
                Block::Notes(n) => inner.push_str(&notes(n)),
                Block::Items(i) => inner.push_str(&items(i)),
                Block::Chart(c) => inner.push_str(&chart(doc, c, opts)),
            }
        }
        if inner.is_empty() {
            continue;
        }
        let _ = writeln!(body, "<section id=\"{}\">", escape(&section.id));
        // A section titled as the document needs no heading of its own.
        if !section.title.is_empty() && section.title != title {
            let _ = writeln!(body, "<h2>{}</h2>", escape(&section.title));
        }
        body.push_str(&inner);
        body.push_str("</section>\n");
    }
    let points: BTreeMap<String, PointDetail> = doc.point_details().into_iter().map(|p| (p.key.clone(), p)).collect();
    #[derive(Serialize)]
    struct Data<'a, D: ?Sized> {
        document: &'a D,
        points: BTreeMap<String, PointDetail>,
    }
    let mut slots = BTreeMap::new();
    slots.insert("TITLE", escape(&title));
    slots.insert("SUBTITLE", escape(&doc.subtitle()));
    slots.insert("BODY", body);
    slots.insert("DATA", script_json(&Data { document: doc, points })?);
    slots.insert("GENERATOR", format!("roofline {}", env!("CARGO_PKG_VERSION")));
    slots.insert(
        "FOOTER",
        format!(
            "Written by roofline {}. Self-contained: this file loads nothing from a network.",
            env!("CARGO_PKG_VERSION")
        ),
    );
    Ok(fill(TEMPLATE, &slots))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_is_one_pass() {
        let mut slots = BTreeMap::new();
        slots.insert("A", "{{B}}".to_string());
        slots.insert("B", "b".to_string());
        assert_eq!(fill("x{{A}}y{{B}}z{{C}}", &slots), "x{{B}}ybz{{C}}");
    }

    #[test]
    fn script_json_cannot_close_the_script() {
        let s = script_json(&"</script><!--").unwrap();
        assert!(!s.contains("</") && !s.contains("<!--"), "{s}");
    }
}
