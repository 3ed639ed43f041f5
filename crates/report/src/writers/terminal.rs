//! The terminal view: facts as `label: value` lines, tables drawn by
//! comfy-table to a given width, notes and warnings, a diagnosis per kernel.
//!
//! Every string is cleaned of control characters first, so a kernel name
//! cannot move the cursor. Colour (by verdict or bound) only when asked;
//! the caller decides from the TTY and `NO_COLOR`.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Attribute, CellAlignment, Color, ContentArrangement};

use super::{clean, each_item, slot_text, slots, visible, Slot};
use crate::view::text::{cell_text, values_text};
use crate::view::{Audience, Block, Cell, Describe, Fact, Item, Note, NoteKind, Table, Tone};

/// How the terminal view is laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalOptions {
    /// Columns the tables may use.
    pub width: u16,
    /// Colour verdicts, bounds and warnings (ANSI escapes).
    pub color: bool,
    /// Show everything, as a page would (columns and sections marked
    /// [`Show::Wide`](crate::Show::Wide)).
    pub wide: bool,
}

impl Default for TerminalOptions {
    fn default() -> Self {
        TerminalOptions { width: 160, color: false, wide: false }
    }
}

impl TerminalOptions {
    /// For stdout as it is: its width and colour when it is a terminal
    /// (colour unless `NO_COLOR` is set), 160 columns and no colour when
    /// it is a pipe or a file.
    pub fn detect() -> TerminalOptions {
        use std::io::IsTerminal;
        let tty = std::io::stdout().is_terminal();
        let width = if tty { comfy_table::Table::new().width().filter(|w| *w >= 40) } else { None };
        TerminalOptions {
            width: width.unwrap_or(160),
            color: tty && std::env::var_os("NO_COLOR").is_none(),
            wide: false,
        }
    }
}

fn name(n: &str, id: &str) -> String {
    if id.is_empty() {
        n.to_string()
    } else {
        format!("{n} [{id}]")
    }
}

fn text(cell: &Cell) -> String {
    match cell {
        Cell::Values(vs) => clean(&values_text(vs), false),
        c => clean(&cell_text(c, &name), false),
    }
}

fn colour(tone: Tone) -> Color {
    match tone {
        Tone::Good => Color::Green,
        Tone::Fair => Color::Yellow,
        Tone::Poor => Color::Red,
        Tone::Memory => Color::Blue,
        Tone::Compute => Color::Magenta,
    }
}

/// `text` in the tone's colour, when colour is on.
fn paint(text: &str, tone: Option<Tone>, opts: &TerminalOptions) -> String {
    let code = |t: Tone| match t {
        Tone::Good => 32,
        Tone::Fair => 33,
        Tone::Poor => 31,
        Tone::Memory => 34,
        Tone::Compute => 35,
    };
    match tone {
        Some(t) if opts.color => format!("\x1b[1;{}m{text}\x1b[0m", code(t)),
        _ => text.to_string(),
    }
}

fn table(t: &Table, opts: &TerminalOptions) -> String {
    let audience = Audience::Terminal { wide: opts.wide };
    let slots = slots(t, audience);
    let mut out = comfy_table::Table::new();
    out.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic).set_width(opts.width);
    if opts.color {
        out.enforce_styling();
    } else {
        out.force_no_tty();
    }
    out.set_header(slots.iter().map(|s| comfy_table::Cell::new(clean(&s.label(&t.columns), false))));
    for row in &t.rows {
        out.add_row(slots.iter().map(|&slot| {
            let cell = &row.cells[slot.column()];
            let main = matches!(slot, Slot::Main(_));
            let mut c = comfy_table::Cell::new(clean(&slot_text(slot, cell, &name), false));
            if main && t.columns[slot.column()].numeric() {
                c = c.set_alignment(CellAlignment::Right);
            }
            match cell.tone().filter(|_| main && opts.color) {
                Some(tone) => c.fg(colour(tone)).add_attribute(Attribute::Bold),
                None => c,
            }
        }));
    }
    format!("{out}\n")
}

/// `head` then `body`, wrapped at word boundaries to `width` columns, the
/// lines after the first indented by `hang`. `head` may hold colour codes
/// (`head_len` is its printed length); `body` is clean text.
fn wrap(head: &str, head_len: usize, body: &str, hang: &str, width: u16) -> String {
    let width = usize::from(width).max(hang.len() + 20);
    let mut out = head.to_string();
    let mut col = head_len;
    for word in body.split(' ').filter(|w| !w.is_empty()) {
        let len = word.chars().count();
        if col > hang.len() && col + 1 + len > width {
            out.push('\n');
            out.push_str(hang);
            col = hang.len();
        } else if col > 0 && !out.ends_with(' ') {
            out.push(' ');
            col += 1;
        }
        out.push_str(word);
        col += len;
    }
    out.push('\n');
    out
}

/// A labelled line, wrapped: `indent label: value`.
fn line(indent: &str, label: &str, value: &str, tone: Option<Tone>, opts: &TerminalOptions) -> String {
    let label = if label.is_empty() { String::new() } else { format!("{label}:") };
    let hang = format!("{indent}    ");
    if tone.is_some() && opts.color {
        // A coloured value is a word or two: it is not wrapped.
        return format!("{indent}{label} {}\n", paint(value, tone, opts));
    }
    let head = format!("{indent}{label}");
    wrap(&head, head.chars().count(), value, &hang, opts.width)
}

fn facts(facts: &[Fact], indent: &str, opts: &TerminalOptions) -> String {
    let audience = Audience::Terminal { wide: opts.wide };
    facts
        .iter()
        .filter(|f| f.show.shown_to(audience))
        .map(|f| line(indent, &clean(&f.label, false), &text(&f.cell), f.cell.tone(), opts))
        .collect()
}

fn notes(notes: &[Note], indent: &str, opts: &TerminalOptions) -> String {
    notes
        .iter()
        .map(|n| {
            let t = clean(&n.text, false);
            match n.kind {
                NoteKind::Info => wrap(indent, indent.len(), &t, &format!("{indent}  "), opts.width),
                NoteKind::Note => line(indent, "note", &t, None, opts),
                NoteKind::Warning => {
                    let head = format!("{indent}{}:", paint("warning", Some(Tone::Fair), opts));
                    wrap(&head, indent.len() + 8, &t, &format!("{indent}    "), opts.width)
                }
            }
        })
        .collect()
}

fn items(items: &[Item], indent: &str, opts: &TerminalOptions) -> String {
    let inner = format!("{indent}  ");
    each_item(
        items,
        |i| format!("{indent}{}: {}\n", text(&i.head), paint(&text(&i.verdict), i.verdict.tone(), opts)),
        |l| wrap(&inner, inner.len(), &clean(l, false), &format!("{inner}  "), opts.width),
        |a| line(&inner, "next", &clean(a, false), None, opts),
        "",
    )
}

/// The document for a terminal.
pub(crate) fn render<D: Describe + ?Sized>(doc: &D, opts: &TerminalOptions) -> String {
    let mut parts = Vec::new();
    for section in visible(doc.sections(), Audience::Terminal { wide: opts.wide }) {
        let mut s = String::new();
        let has_table = section.blocks.iter().any(|b| matches!(b, Block::Table(_)));
        let indent = if section.title.is_empty() || has_table { "" } else { "  " };
        for b in &section.blocks {
            match b {
                Block::Table(t) if !t.rows.is_empty() => s.push_str(&table(t, opts)),
                Block::Table(_) | Block::Chart(_) => {}
                Block::Facts(f) => s.push_str(&facts(f, indent, opts)),
                Block::Notes(n) => s.push_str(&notes(n, indent, opts)),
                Block::Items(i) => s.push_str(&items(i, indent, opts)),
            }
        }
        if s.is_empty() {
            continue;
        }
        if !section.title.is_empty() {
            let title = clean(&section.title, false);
            s.insert_str(0, &if has_table { format!("{title}\n") } else { format!("{title}:\n") });
        }
        parts.push(s);
    }
    parts.join("\n")
}
