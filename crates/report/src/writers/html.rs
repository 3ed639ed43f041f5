//! The self-contained HTML page of any document: one file that opens
//! anywhere, fetches nothing, and holds the document's charts, its tables,
//! facts, notes and a detail panel per entry, in the order of its sections.
//!
//! The page is `templates/report.html` (kept as a file, so it reads as
//! HTML) with `{{NAME}}` slots filled here in one pass, and the script
//! `templates/report.js`. The document is embedded as JSON
//! (`<script id="roofline-data">`, `<` and `>` escaped so no string can end
//! the element) together with the hover details of the chart's points.
//!
//! Without JavaScript the page still reads correctly: the chart is the
//! static SVG (hover titles on its points), its precision tabs and the
//! "all roofs" switch are radio buttons and a checkbox that a stylesheet
//! rule acts on, the detail panels are `<details>` elements, and nothing
//! offers sorting. The script adds what needs it: the rich hover, one
//! highlight for a kernel across its points, key entry, table row and
//! panel, zoom and pan, and sorting by any column.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::Serialize;

use super::lists::each_note;
use super::slots::{slot_text, slots, Slot};
use super::visible::visible;
use crate::chart::svg::escape;
use crate::chart::ChartOptions;
use crate::view::text::{provenance_line, quantity_text, values_text};
use crate::view::{Audience, Block, Cell, ChartRef, Describe, Fact, Item, Note, PointDetail, Row, Show, Table};
use crate::ExportError;

const TEMPLATE: &str = include_str!("../../templates/report.html");
const SCRIPT: &str = include_str!("../../templates/report.js");

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

/// A name's ID after it, once: a display name that already carries its ID
/// (two kernels whose names nothing else tells apart) is not given it twice.
fn id_html(n: &str, id: &str) -> String {
    if id.is_empty() || n.ends_with(&format!("[{id}]")) {
        String::new()
    } else {
        format!(" <code>{}</code>", escape(id))
    }
}

fn name_html(n: &str, id: &str) -> String {
    format!("{}{}", breakable(n), id_html(n, id))
}

/// A kernel name, escaped, with `<wbr>` where an identifier may break
/// (after `_`, `::`, `<`, `,`, before `>`): a narrow column wraps a name
/// at those, never inside a word.
fn breakable(n: &str) -> String {
    let mut out = String::with_capacity(n.len() + 16);
    let mut chars = n.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '>' {
            out.push_str("<wbr>");
        }
        out.push_str(&escape(&c.to_string()));
        let after = match c {
            '_' | '<' | ',' => true,
            ':' => chars.peek() != Some(&':'),
            _ => false,
        };
        if after && chars.peek().is_some() {
            out.push_str("<wbr>");
        }
    }
    out
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

/// The id of the detail panel of an entry linked by `link`.
fn panel_id(link: &(&'static str, String)) -> String {
    format!("detail-{}-{}", link.0.trim_start_matches("data-"), link.1)
}

/// Columns of the kernel table a narrow window does without (the other
/// levels' intensities, the achieved rate, the roof's share of its peak,
/// the bound the diagnosis also names):
/// with them an 800 px window cannot hold the table.
const NARROW_EXTRAS: [&str; 6] =
    ["intensity_l2", "intensity_l1", "achieved", "roof_pct_of_peak", "capture_order", "bound"];

/// Whether a column is one the narrow terminal view leaves out (the wide
/// view's extras, a value's origin, spread and clock, [`NARROW_EXTRAS`]): a
/// narrow window (under 1100 px) hides it too, so the table keeps within
/// its box.
fn secondary(slot: Slot, t: &Table) -> bool {
    let c = &t.columns[slot.column()];
    !matches!(slot, Slot::Main(_)) || c.show == Show::Wide || NARROW_EXTRAS.contains(&c.key.as_str())
}

fn td(slot: Slot, cell: &Cell, numeric: bool, panel: Option<&str>, extra: bool) -> String {
    let mut attrs = String::new();
    let class: Vec<&str> = [(numeric && matches!(slot, Slot::Main(_)), "num"), (extra, "extra")]
        .iter()
        .filter(|c| c.0)
        .map(|c| c.1)
        .collect();
    if !class.is_empty() {
        let _ = write!(attrs, " class=\"{}\"", class.join(" "));
    }
    let tone = cell.tone().filter(|_| matches!(slot, Slot::Main(_)));
    if let Some(t) = tone {
        let _ = write!(attrs, " data-tone=\"{}\"", t.key());
    }
    let body = match (slot, cell, panel) {
        (Slot::Main(_), Cell::Name { name, id, .. }, Some(panel)) => {
            format!("<a href=\"#{panel}\">{}</a>{}", breakable(name), id_html(name, id))
        }
        (Slot::Main(_), _, _) => content(cell),
        (other, _, _) => escape(&slot_text(other, cell, &|n, _| n.to_string())),
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

/// A table. Columns marked `under` go on a line of their own under each
/// row (each row and its line then form one `<tbody>`, which sorting
/// moves as one). A row whose link has a detail panel links its name to it.
/// Header cells are plain text: the script turns them into sort buttons.
fn table(t: &Table, panels: &BTreeSet<String>) -> String {
    let slots = slots(t, Audience::Page);
    let (main, under): (Vec<Slot>, Vec<Slot>) =
        slots.iter().partition(|s| !(matches!(s, Slot::Main(_)) && t.columns[s.column()].under));
    let mut s =
        format!("<div class=\"table-wrap\"><table class=\"data\" id=\"{}-table\">\n<thead><tr>", escape(&t.name));
    for &slot in &main {
        let c = &t.columns[slot.column()];
        let numeric = matches!(slot, Slot::Main(_)) && c.numeric();
        let _ = write!(
            s,
            "<th{} data-type=\"{}\"{}>{}</th>",
            match (numeric, secondary(slot, t)) {
                (true, true) => " class=\"num extra\"",
                (true, false) => " class=\"num\"",
                (false, true) => " class=\"extra\"",
                (false, false) => "",
            },
            if numeric { "num" } else { "text" },
            if matches!(slot, Slot::Main(_)) && !c.help.is_empty() {
                format!(" title=\"{}\"", escape(&c.help))
            } else {
                String::new()
            },
            escape(&slot.label(&t.columns))
        );
    }
    s.push_str("</tr></thead>\n");
    let grouped = !under.is_empty();
    if !grouped {
        s.push_str("<tbody>\n");
    }
    for row in &t.rows {
        let link = row_link(row);
        let panel = row.link.as_ref().map(panel_id).filter(|p| panels.contains(p));
        if grouped {
            let _ = write!(s, "<tbody class=\"group\"{link}>");
        }
        s.push_str("<tr");
        if !grouped {
            s.push_str(&link);
        }
        if let Some(tone) = row.tone {
            let _ = write!(s, " data-tone=\"{}\"", tone.key());
        }
        s.push('>');
        for &slot in &main {
            let extra = secondary(slot, t);
            s.push_str(&td(
                slot,
                &row.cells[slot.column()],
                t.columns[slot.column()].numeric(),
                panel.as_deref(),
                extra,
            ));
        }
        s.push_str("</tr>\n");
        let under_text: Vec<String> = under
            .iter()
            .filter(|slot| !row.cells[slot.column()].is_empty())
            .map(|slot| {
                format!(
                    "<span class=\"under-label\">{}:</span> {}",
                    escape(&slot.label(&t.columns)),
                    content(&row.cells[slot.column()])
                )
            })
            .collect();
        if grouped {
            if !under_text.is_empty() {
                let _ = writeln!(
                    s,
                    "<tr class=\"under\"><td colspan=\"{}\">{}</td></tr>",
                    main.len(),
                    under_text.join("<br>")
                );
            }
            s.push_str("</tbody>\n");
        }
    }
    if !grouped {
        s.push_str("</tbody>\n");
    }
    s.push_str("</table></div>\n");
    s
}

/// The attribute tying a row to the chart (` data-k="3"`).
fn row_link(row: &Row) -> String {
    match &row.link {
        Some((attr, v)) => format!(" {attr}=\"{}\"", escape(v)),
        None => String::new(),
    }
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

/// Lines as a list of a class; nothing for none.
fn list(class: &str, lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let items: String = lines.iter().map(|l| format!("<li>{}</li>", escape(l))).collect();
    format!("<ul class=\"{class}\">{items}</ul>")
}

/// Entries as detail panels (`<details>`): the heading and verdict as the
/// summary, then the lines, the action and the workings.
fn items(items: &[Item]) -> String {
    let mut s = String::from("<div class=\"details\">\n");
    for i in items {
        let (id, link) = match &i.link {
            Some(l) => (format!(" id=\"{}\"", panel_id(l)), format!(" {}=\"{}\"", l.0, escape(&l.1))),
            None => (String::new(), String::new()),
        };
        let tone = i.verdict.tone().map(|t| format!(" data-tone=\"{}\"", t.key())).unwrap_or_default();
        let _ = write!(
            s,
            "<details class=\"detail\"{id}{link}><summary><b>{}</b>: <span{tone}>{}</span></summary>\n<div class=\"detail-body\">",
            content(&i.head),
            content(&i.verdict)
        );
        if let Cell::Name { full, name, .. } = &i.head {
            if full != name && !full.is_empty() {
                let _ = write!(s, "<p class=\"full-name\">{}</p>", escape(full));
            }
        }
        s.push_str(&list("evidence", &i.lines));
        if let Some(a) = &i.action {
            let _ = write!(s, "<p class=\"next\">next: {}</p>", escape(a));
        }
        if !i.workings.is_empty() {
            s.push_str("<p class=\"workings-title\">How the numbers were obtained</p>");
            s.push_str(&list("workings", &i.workings));
        }
        s.push_str("</div></details>\n");
    }
    s.push_str("</div>\n");
    s
}

/// At most this many kernels in the key of a page's chart.
const PAGE_KEY_ENTRIES: usize = 10;

/// Width over height of an SVG, from its first `viewBox`.
fn svg_aspect(svg: &str) -> Option<f64> {
    let rest = &svg[svg.find("viewBox=\"")? + 9..];
    let dims: Vec<f64> = rest[..rest.find('"')?].split_whitespace().filter_map(|v| v.parse().ok()).collect();
    match dims.as_slice() {
        [_, _, w, h] if *w > 0.0 && *h > 0.0 => Some(w / h),
        _ => None,
    }
}

/// A chart with its controls: precision tabs and the "all roofs" switch as
/// inputs a stylesheet rule acts on (they work without the script), the
/// zoom buttons (the script's), then the SVG.
fn chart<D: Describe + ?Sized>(doc: &D, c: &ChartRef, opts: &ChartOptions, n: usize) -> String {
    // The section's notes say what the chart's notes say.
    // The key lists the kernels with the most time (the kernel table below
    // has them all), so that the chart fits a screen (1400x900).
    let opts = ChartOptions { notes: false, key_entries: PAGE_KEY_ENTRIES.min(opts.key_entries), ..opts.clone() };
    let Some(svg) = doc.chart_svg(c.kind, &opts) else { return String::new() };
    let ctl = doc.chart_controls(c.kind);
    let id = format!("chart{n}");
    let mut s = format!("<p class=\"hint\">{}</p>\n<div class=\"chart-box\" id=\"{id}\">\n", escape(&c.hint));
    let mut css = String::new();
    if !ctl.tabs.is_empty() {
        s.push_str("<span class=\"tabs-label\">Precision:</span>\n");
        for (i, t) in ctl.tabs.iter().enumerate() {
            let key = escape(&t.key);
            let _ = writeln!(
                s,
                "<input type=\"radio\" class=\"tab-input\" name=\"{id}-tab\" id=\"{id}-tab-{key}\" value=\"{key}\" data-view=\"{}\" data-full=\"{}\"{}><label class=\"tab\" for=\"{id}-tab-{key}\">{} <span class=\"count\">({})</span></label>",
                escape(&t.view),
                escape(&t.full),
                if i == 0 { " checked" } else { "" },
                escape(&t.label),
                t.count
            );
            if i > 0 {
                let _ = writeln!(
                    css,
                    "#{id}-tab-{key}:checked ~ .chart [data-tabs]:not([data-tabs~=\"{key}\"]) {{ display: none; }}"
                );
            }
        }
    }
    if ctl.extra_roofs > 0 {
        let _ = writeln!(
            s,
            "<input type=\"checkbox\" class=\"roofs-input\" id=\"{id}-roofs\"><label class=\"roofs-switch\" for=\"{id}-roofs\">show all roofs (+{})</label>",
            ctl.extra_roofs
        );
        let _ = writeln!(css, "#{id}-roofs:checked ~ .chart [data-extra] {{ display: inline; }}");
    }
    if ctl.zoom {
        s.push_str(concat!(
            "<span class=\"zoom-tools js-only\">",
            "<button type=\"button\" data-act=\"in\" title=\"zoom in (+)\">+</button>",
            "<button type=\"button\" data-act=\"out\" title=\"zoom out (-)\">&minus;</button>",
            "<button type=\"button\" data-act=\"reset\" title=\"the view fitted to the kernels (0, or double-click)\">reset view</button>",
            "<button type=\"button\" data-act=\"full\" title=\"every roof and ridge point in view\">whole roofline</button>",
            "<span class=\"zoom-hint\">drag: zoom to a box; shift+drag or arrow keys: pan; wheel: zoom</span>",
            "</span>\n"
        ));
    }
    // Its width follows the window's height too: the whole chart fits one
    // screen, its aspect kept (so the box zoom's coordinates hold).
    let aspect = svg_aspect(&svg).map(|a| format!(" style=\"--aspect: {a:.3}\"")).unwrap_or_default();
    let _ = writeln!(s, "<div class=\"chart\"{aspect}>{svg}</div>\n</div>");
    if !css.is_empty() {
        let _ = writeln!(s, "<style>\n{css}</style>");
    }
    s
}

/// The page of a document.
pub(crate) fn render<D: Describe + Serialize + ?Sized>(doc: &D, opts: &ChartOptions) -> Result<String, ExportError> {
    let title = doc.title();
    let mut sections = visible(doc, Audience::Page);
    // The first chart comes before the first table: in the first screen.
    let first = |want: fn(&Block) -> bool| sections.iter().position(|s| s.blocks.iter().any(want));
    let chart_at = first(|b| matches!(b, Block::Chart(_)));
    let table_at = first(|b| matches!(b, Block::Table(t) if !t.rows.is_empty()));
    if let (Some(c), Some(t)) = (chart_at, table_at) {
        if t < c {
            let chart = sections.remove(c);
            sections.insert(t, chart);
        }
    }
    // Detail panels, so table rows can link to theirs.
    let panels: BTreeSet<String> = sections
        .iter()
        .flat_map(|s| s.blocks.iter())
        .filter_map(|b| match b {
            Block::Items(i) => Some(i.iter().filter_map(|i| i.link.as_ref().map(panel_id))),
            _ => None,
        })
        .flatten()
        .collect();
    let mut body = String::new();
    let mut charts = 0;
    for section in &sections {
        let mut inner = String::new();
        for b in &section.blocks {
            match b {
                Block::Table(t) if !t.rows.is_empty() => inner.push_str(&table(t, &panels)),
                Block::Table(_) => {}
                Block::Facts(f) => inner.push_str(&facts(f)),
                Block::Notes(n) => inner.push_str(&notes(n)),
                Block::Items(i) => inner.push_str(&items(i)),
                Block::Chart(c) => {
                    inner.push_str(&chart(doc, c, opts, charts));
                    charts += 1;
                }
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
    slots.insert("SCRIPT", SCRIPT.to_string());
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

    /// Issue 16, item 12: `<!--` was written as `<\!--`, which is not JSON.
    #[test]
    fn comment_openers_in_strings_keep_the_embedded_json_valid() {
        let names = ["<!--", "</script><!--<script>", "--><!-- x", "a\u{2028}b"];
        let s = script_json(&names).unwrap();
        let back: Vec<String> = serde_json::from_str(&s).unwrap();
        assert_eq!(back, names);
        assert!(!s.contains('<') && !s.contains('>'), "{s}");
    }

    /// Views (issue 28), item 4: names wrapped mid-word in a narrow column.
    #[test]
    fn names_break_between_identifiers_only() {
        assert_eq!(breakable("a::b_c<d, e>"), "a::<wbr>b_<wbr>c&lt;<wbr>d,<wbr> e<wbr>&gt;");
        assert_eq!(breakable("x_"), "x_");
    }

    #[test]
    fn a_name_that_carries_its_id_is_not_given_it_twice_in_html() {
        assert_eq!(name_html("k<unnamed> [kac5a66]", "kac5a66"), "k&lt;<wbr>unnamed<wbr>&gt; [kac5a66]");
        assert_eq!(name_html("vecadd", "k1"), "vecadd <code>k1</code>");
        assert_eq!(name_html("vecadd", ""), "vecadd");
    }

    #[test]
    fn a_note_beside_a_value_is_apart_from_it() {
        // "17.90 ms67 kernels" on the page: the note's span needs its own gap.
        let v = crate::view::Value::new(17.9e-3, crate::view::Quantity::Si(roofline_model::Unit::Second));
        let html = content(&Cell::Value(v.note("67 kernels")));
        assert!(html.contains("<span class=\"lim\">67 kernels</span>"), "{html}");
        assert!(include_str!("../../templates/report.html").contains(".lim { margin-left"), "no gap rule for .lim");
    }

    #[test]
    fn script_json_cannot_close_the_script() {
        let s = script_json(&"</script><!--").unwrap();
        assert!(!s.contains("</") && !s.contains("<!--"), "{s}");
    }
}
