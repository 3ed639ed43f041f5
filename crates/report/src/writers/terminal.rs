//! The terminal view: facts as `label: value` lines, tables drawn by
//! comfy-table to a given width, notes and warnings, a diagnosis per kernel.
//!
//! By default the view is laid out for a person at a terminal: it fits the
//! width (80 columns and up) with one line per table row, borderless tables
//! whose widest text column is shortened (with an ellipsis) before any row
//! would wrap, and a value's origin, spread and clock folded into one short
//! "basis" column. Sections and columns marked [`Show::Wide`](crate::Show)
//! appear with `wide`, which draws full tables and lets cells wrap instead.
//!
//! Every string is cleaned of control characters first, so a kernel name
//! cannot move the cursor. Colour (by verdict or bound) only when asked;
//! [`TerminalOptions::detect`] decides from the TTY, `NO_COLOR` and the
//! user's choice.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Attribute, CellAlignment, Color, ContentArrangement};

use super::escape::clean;
use super::lists::each_item;
use super::slots::{slot_text, slots, Slot};
use super::visible::visible;
use crate::view::text::{cell_text, origin_text, quantity_text, values_text};
use crate::view::{Audience, Block, Cell, Describe, Fact, Item, Note, NoteKind, Table, Tone, Value};

/// The width a pipe or a file gets: readable in a pager or an 80-column
/// editor window with a little scrolling, and short of 160-column rows.
pub const PIPE_WIDTH: u16 = 100;

/// The narrowest layout attempted; narrower terminals get this width.
pub const MIN_WIDTH: u16 = 40;

/// Borderless: a rule under the header and nothing else.
const GLANCE: &str = "     ──            ";

/// When to colour: `--color never|auto|always`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorChoice {
    /// Never.
    Never,
    /// On a terminal, unless `NO_COLOR` is set or `TERM` is `dumb`.
    #[default]
    Auto,
    /// Always, even into a pipe.
    Always,
}

impl ColorChoice {
    /// Whether to colour a stream that is (or is not) a terminal.
    pub fn enabled(self, is_terminal: bool) -> bool {
        match self {
            ColorChoice::Never => false,
            ColorChoice::Always => true,
            ColorChoice::Auto => {
                is_terminal
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
            }
        }
    }
}

/// How the terminal view is laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalOptions {
    /// Columns the view may use.
    pub width: u16,
    /// Colour verdicts, bounds and warnings (ANSI escapes).
    pub color: bool,
    /// Show everything, as a page would (columns and sections marked
    /// [`Show::Wide`](crate::Show::Wide)).
    pub wide: bool,
    /// Leave out the document's warnings (`-q`); the JSON keeps them.
    pub quiet: bool,
}

impl Default for TerminalOptions {
    fn default() -> Self {
        TerminalOptions { width: PIPE_WIDTH, color: false, wide: false, quiet: false }
    }
}

impl TerminalOptions {
    /// For stdout as it is: `COLUMNS` when set to a number, else the
    /// terminal's width when stdout is one, else [`PIPE_WIDTH`]; colour as
    /// `color` says of stdout.
    pub fn detect(color: ColorChoice) -> TerminalOptions {
        use std::io::IsTerminal;
        let tty = std::io::stdout().is_terminal();
        let columns = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<u16>().ok()).filter(|c| *c > 0);
        let width = columns
            .or_else(|| terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| w.0).filter(|w| *w > 0))
            .unwrap_or(PIPE_WIDTH);
        TerminalOptions { width: width.max(MIN_WIDTH), color: color.enabled(tty), wide: false, quiet: false }
    }
}

/// A name and its stable ID, once: a display name that already carries its
/// ID (two kernels whose names nothing else tells apart) is not given it twice.
fn name(n: &str, id: &str) -> String {
    if id.is_empty() || n.ends_with(&format!("[{id}]")) {
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

/// A value's origin, spread and clock in a few words, for the narrow view:
/// "measured, ±0.4%, SM 1980 MHz".
fn basis_text(v: &Value) -> String {
    let mut parts = vec![origin_text(v)];
    if let Some(s) = v.basis.spread.as_ref().filter(|s| s.samples > 1) {
        let rel = 100.0 * s.stddev / s.median.abs().max(f64::MIN_POSITIVE);
        parts.push(format!("±{}", quantity_text(rel, crate::view::Quantity::Percent)));
    }
    if let Some(c) = &v.basis.clock {
        match (c.sm_mhz, c.mem_mhz) {
            (Some(sm), _) => parts.push(format!("SM {}", quantity_text(sm, crate::view::Quantity::Megahertz))),
            (None, Some(mem)) => parts.push(format!("memory {}", quantity_text(mem, crate::view::Quantity::Megahertz))),
            (None, None) => {}
        }
    }
    parts.join(", ")
}

/// The slots a table shows: in the narrow view a value's origin, spread and
/// clock share one "basis" slot (the origin's).
fn terminal_slots(t: &Table, opts: &TerminalOptions) -> Vec<Slot> {
    let mut out = slots(t, Audience::Terminal { wide: opts.wide });
    if !opts.wide {
        let with_basis: Vec<usize> = out
            .iter()
            .filter_map(|s| match s {
                Slot::Origin(i) | Slot::Spread(i) | Slot::Clock(i) => Some(*i),
                Slot::Main(_) => None,
            })
            .collect();
        out.retain(|s| !matches!(s, Slot::Origin(_) | Slot::Spread(_) | Slot::Clock(_)));
        let mut at = 0;
        while at < out.len() {
            if let Slot::Main(i) = out[at] {
                if with_basis.contains(&i) {
                    out.insert(at + 1, Slot::Origin(i));
                    at += 1;
                }
            }
            at += 1;
        }
    }
    out
}

/// A before -> after cell in the narrow view: the after value and the
/// change ("1.030 ms (-33.1%)"), the one word when both sides say it.
fn change_text(before: &Cell, after: &Cell, delta: Option<&Value>) -> String {
    let (b, a) = (text(before), text(after));
    match (before.is_empty(), after.is_empty(), delta) {
        (false, false, Some(d)) => format!("{a} ({})", clean(&crate::view::value_text(d), false)),
        (false, false, None) if a == b => a,
        (false, true, _) => format!("was {b}"),
        (true, false, _) => a,
        _ => format!("{b} -> {a}"),
    }
}

/// The headers of a table laid out without its units row: each slot's
/// label, the provenance column as "basis".
fn plain_headers(t: &Table, slots: &[Slot]) -> Vec<String> {
    slots
        .iter()
        .map(|s| match s {
            Slot::Origin(_) => "basis".to_string(),
            s => clean(&s.label(&t.columns), false),
        })
        .collect()
}

fn slot_cell_text(slot: Slot, cell: &Cell, opts: &TerminalOptions) -> String {
    match (slot, cell) {
        (Slot::Main(_), Cell::Change { before, after, delta }) if !opts.wide => {
            change_text(before, after, delta.as_ref())
        }
        (Slot::Origin(_), Cell::Value(v)) if !opts.wide => clean(&basis_text(v), false),
        (Slot::Main(_), Cell::Values(vs)) => clean(&values_text(vs), false),
        _ => clean(&slot_text(slot, cell, &name), false),
    }
}

/// `s` cut to `width` characters, the last one an ellipsis when cut.
fn shorten(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    let mut out: String = s.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Per row, how many characters of its name's end no other name of the
/// column shares (the shortest unique suffix), so that a name cut to fit
/// still tells two GEMMs apart (`..._128x128_tn_align1`, `..._256x128_nn_align1`).
/// Zero for rows without a name, and for columns of many names (the
/// search grows with their square).
fn unique_tails(t: &Table, column: usize) -> Vec<usize> {
    const MAX_ROWS: usize = 200;
    let names: Vec<Option<Vec<char>>> = t
        .rows
        .iter()
        .map(|r| match &r.cells[column] {
            Cell::Name { name, id, .. } => {
                let n = name.strip_suffix(&format!(" [{id}]")).unwrap_or(name);
                Some(clean(n, false).chars().collect())
            }
            _ => None,
        })
        .collect();
    if names.len() > MAX_ROWS {
        return vec![0; names.len()];
    }
    names
        .iter()
        .map(|me| {
            let Some(me) = me else { return 0 };
            let shared = names
                .iter()
                .flatten()
                .filter(|o| *o != me)
                .map(|o| me.iter().rev().zip(o.iter().rev()).take_while(|(a, b)| a == b).count())
                .max()
                .unwrap_or(0);
            if shared == 0 {
                0
            } else {
                (shared + 1).min(me.len())
            }
        })
        .collect()
}

/// Words of `text` in lines of at most `width` characters (a longer word
/// keeps a line of its own).
fn word_lines(text: &str, width: usize) -> String {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines.join("\n")
}

/// The narrow layout of a table: each column as wide as its widest cell
/// (headers wrap onto more lines before a row would), and the widest text
/// column shortened when the rows still do not fit. `None` when even that
/// cannot fit: the caller lets cells wrap.
fn fit(t: &Table, slots: &[Slot], header: &mut [String], rows: &mut [Vec<String>], width: usize) -> Option<()> {
    const GAP: usize = 2;
    let len = |s: &str| s.chars().count();
    let n = slots.len();
    let gaps = GAP * n.saturating_sub(1);
    let data: Vec<usize> = (0..n).map(|j| rows.iter().map(|r| len(&r[j])).max().unwrap_or(0)).collect();
    let full: Vec<usize> = (0..n).map(|j| data[j].max(len(&header[j]))).collect();
    let mut widths = if full.iter().sum::<usize>() + gaps <= width {
        full
    } else {
        // Headers wrap at words; the room left widens, a column at a time,
        // the header that takes the most lines.
        let word = |j: usize| header[j].split(' ').map(len).max().unwrap_or(0);
        let mut w: Vec<usize> = (0..n).map(|j| data[j].max(word(j))).collect();
        let mut room = width.saturating_sub(w.iter().sum::<usize>() + gaps);
        while room > 0 {
            let lines = |j: usize| word_lines(&header[j], w[j]).lines().count();
            let Some(j) = (0..n).filter(|&j| w[j] < full[j]).max_by_key(|&j| (lines(j), std::cmp::Reverse(j))) else {
                break;
            };
            w[j] += 1;
            room -= 1;
        }
        w
    };
    let total = widths.iter().sum::<usize>() + gaps;
    if total > width {
        // The kernel name (or the widest text) gives way; a kernel keeps its ID.
        let names = |j: &usize| t.rows.iter().any(|r| matches!(r.cells[slots[*j].column()], Cell::Name { .. }));
        let text = |j: &usize| matches!(slots[*j], Slot::Main(i) if !t.columns[i].numeric());
        // The widest text column, a kernel's name before others as wide.
        let flexible = (0..n).filter(|j| names(j) || text(j)).max_by_key(|&j| (widths[j], names(&j)))?;
        let keep = widths[flexible].saturating_sub(total - width).max(12);
        let tails = unique_tails(t, slots[flexible].column());
        for ((r, row), tail) in rows.iter_mut().zip(&t.rows).zip(&tails) {
            let cell = &mut r[flexible];
            if len(cell) <= keep {
                continue;
            }
            *cell = match &row.cells[slots[flexible].column()] {
                Cell::Name { name: n, id, .. } if !id.is_empty() => {
                    let n = n.strip_suffix(&format!(" [{id}]")).unwrap_or(n);
                    let id = clean(id, false);
                    let room = keep.saturating_sub(len(&id) + 3).max(4);
                    format!("{} [{id}]", roofline_model::cut_middle_keeping(&clean(n, false), room, *tail))
                }
                // A name keeps its head and its tail, where siblings differ.
                Cell::Name { .. } => roofline_model::cut_middle_keeping(cell, keep, *tail),
                _ => shorten(cell, keep),
            };
        }
        widths[flexible] = rows.iter().map(|r| len(&r[flexible])).max().unwrap_or(0).max(keep.min(widths[flexible]));
    }
    if widths.iter().sum::<usize>() + gaps > width {
        return None;
    }
    for (h, w) in header.iter_mut().zip(&widths) {
        *h = word_lines(h, *w);
    }
    Some(())
}

/// The columns the narrow layout leaves out when even a shortened name
/// cannot make a kernel table fit: the widest first, never the first (the
/// row's name). Their headers, to name them.
fn drop_columns(
    t: &Table,
    slots: &mut Vec<Slot>,
    header: &mut Vec<String>,
    rows: &mut [Vec<String>],
    width: usize,
) -> Vec<String> {
    const GAP: usize = 2;
    let len = |s: &str| s.chars().count();
    let needed = |slots: &[Slot], header: &[String], rows: &[Vec<String>]| {
        (0..slots.len())
            .map(|j| {
                let word = header[j].split(' ').map(len).max().unwrap_or(0);
                rows.iter().map(|r| len(&r[j])).max().unwrap_or(0).max(word)
            })
            .sum::<usize>()
            + GAP * slots.len().saturating_sub(1)
    };
    let names = |s: &Slot| t.rows.iter().any(|r| matches!(r.cells[s.column()], Cell::Name { .. }));
    let mut dropped = Vec::new();
    while slots.len() > 2 && needed(slots, header, rows) > width {
        // The widest column first (the one that frees the most room; in a
        // kernel table the basis words, whose origin every page and the
        // CSV keep), the rightmost of equals.
        let width_of = |j: usize| rows.iter().map(|r| len(&r[j])).max().unwrap_or(0).max(len(&header[j]));
        let essential = |s: &Slot| t.columns[s.column()].essential;
        let j =
            (1..slots.len()).filter(|&j| !names(&slots[j]) && !essential(&slots[j])).max_by_key(|&j| (width_of(j), j));
        let Some(j) = j else { break };
        dropped.push(header.remove(j));
        slots.remove(j);
        for r in rows.iter_mut() {
            r.remove(j);
        }
    }
    dropped
}

fn table(t: &Table, opts: &TerminalOptions) -> String {
    let mut slots = terminal_slots(t, opts);
    let mut header: Vec<String> = slots
        .iter()
        .map(|s| match s {
            Slot::Origin(_) if !opts.wide => "basis".to_string(),
            s => clean(&s.label(&t.columns), false),
        })
        .collect();
    let mut rows: Vec<Vec<String>> =
        t.rows.iter().map(|r| slots.iter().map(|&s| slot_cell_text(s, &r.cells[s.column()], opts)).collect()).collect();
    let width = usize::from(opts.width);
    let mut narrow = !opts.wide && fit(t, &slots, &mut header, &mut rows, width).is_some();
    let mut dropped = Vec::new();
    let mut word_bounds: Option<Vec<usize>> = None;
    if !opts.wide && !narrow {
        // Shortened names still leave no room: cells wrap at spaces, or
        // columns give way, named under the table; no word is broken. The
        // rows keep the shortening `fit` made (its widest text column).
        header = plain_headers(t, &slots);
        let name_room = 24.min(width / 3);
        let fitted: Vec<Vec<String>> = rows
            .iter()
            .zip(&t.rows)
            .map(|(r, row)| {
                r.iter()
                    .zip(&slots)
                    .map(|(text, s)| match &row.cells[s.column()] {
                        // A name gets `name_room` back, whatever `fit` cut it to.
                        Cell::Name { name: n, id, .. }
                            if clean(&crate::view::text::cell_text(&row.cells[s.column()], &name), false)
                                .chars()
                                .count()
                                > name_room =>
                        {
                            let n = n.strip_suffix(&format!(" [{id}]")).unwrap_or(n);
                            let id = clean(id, false);
                            let room = name_room.saturating_sub(id.chars().count() + 3).max(6);
                            if id.is_empty() {
                                roofline_model::cut_middle(&clean(n, false), name_room)
                            } else {
                                format!("{} [{id}]", roofline_model::cut_middle(&clean(n, false), room))
                            }
                        }
                        c @ Cell::Name { .. } => clean(&crate::view::text::cell_text(c, &name), false),
                        _ => text.clone(),
                    })
                    .collect()
            })
            .collect();
        // Cells wrap at spaces when every column can have its longest word;
        // only when even that does not fit do columns give way.
        let word = |s: &str| s.split([' ', '\n']).map(|w| w.chars().count()).max().unwrap_or(0);
        let words_fit = |header: &[String], rows: &[Vec<String>]| -> Option<Vec<usize>> {
            let lower: Vec<usize> = (0..header.len())
                .map(|j| rows.iter().map(|r| word(&r[j])).max().unwrap_or(0).max(word(&header[j])).max(1))
                .collect();
            (lower.iter().sum::<usize>() + 2 * header.len().saturating_sub(1) <= width).then_some(lower)
        };
        // A table of kernels keeps one line per kernel (columns give way
        // first); other tables wrap their cells at spaces.
        let has_names = t.rows.iter().any(|r| r.cells.iter().any(|c| matches!(c, Cell::Name { .. })));
        if let Some(lower) = words_fit(&header, &fitted).filter(|_| !has_names) {
            rows = fitted;
            word_bounds = Some(lower);
        } else {
            let mut fitted = fitted;
            let mut kept = slots.clone();
            dropped = drop_columns(t, &mut kept, &mut header, &mut fitted, width);
            // The columns kept, laid out afresh: the name takes the room left.
            slots = kept;
            header = plain_headers(t, &slots);
            rows = t
                .rows
                .iter()
                .map(|r| slots.iter().map(|&s| slot_cell_text(s, &r.cells[s.column()], opts)).collect())
                .collect();
            narrow = fit(t, &slots, &mut header, &mut rows, width).is_some();
            if !narrow {
                rows = fitted;
                word_bounds = words_fit(&header, &rows);
                // Columns that may not be dropped and still do not fit
                // side by side: one block per row, every essential value named.
                if word_bounds.is_none() && slots.iter().any(|s| t.columns[s.column()].essential) {
                    return records(&header, &rows, Some(0), opts);
                }
            }
        }
    }
    if opts.wide {
        // Each column needs its longest word (and its border and padding):
        // a table that cannot give them all that becomes one block per row.
        // A kernel's name is one identifier: it is cut in the middle to the
        // room the other columns leave it, never broken across lines.
        let word = |s: &str| s.split([' ', '\n']).map(|w| w.chars().count()).max().unwrap_or(0);
        let is_name = |j: usize| t.rows.iter().any(|r| matches!(r.cells[slots[j].column()], Cell::Name { .. }));
        let name_col = (0..slots.len()).find(|&j| is_name(j));
        let by_words: Vec<usize> = (0..slots.len())
            .map(|j| rows.iter().map(|r| word(&r[j])).max().unwrap_or(0).max(word(&header[j])).max(1))
            .collect();
        // The other columns whole on one line when that leaves the name its
        // room; else each at its longest word.
        let whole: Vec<usize> = (0..slots.len())
            .map(|j| rows.iter().map(|r| r[j].chars().count()).max().unwrap_or(0).max(by_words[j]))
            .collect();
        let sum_others =
            |w: &[usize]| (0..slots.len()).filter(|&j| Some(j) != name_col).map(|j| w[j] + 3).sum::<usize>() + 1;
        let name_need = name_col.map_or(0, |j| whole[j].min(40) + 3);
        let mut lower = if sum_others(&whole) + name_need <= width { whole } else { by_words };
        let others = sum_others(&lower);
        if let Some(j) = name_col {
            let room = width.saturating_sub(others + 3);
            if room < 16 {
                return records(&header, &rows, name_col, opts);
            }
            let full = rows.iter().map(|r| r[j].chars().count()).max().unwrap_or(0).max(word(&header[j]));
            lower[j] = full.min(room);
            for (r, row) in rows.iter_mut().zip(&t.rows) {
                if r[j].chars().count() <= room {
                    continue;
                }
                r[j] = match &row.cells[slots[j].column()] {
                    Cell::Name { name: n, id, .. } if !id.is_empty() => {
                        let n = n.strip_suffix(&format!(" [{id}]")).unwrap_or(n);
                        let id = clean(id, false);
                        let keep = room.saturating_sub(id.chars().count() + 1).max(8);
                        format!("{}\n[{id}]", roofline_model::cut_middle(&clean(n, false), keep))
                    }
                    _ => roofline_model::cut_middle(&r[j], room),
                };
            }
        } else if others > width {
            return records(&header, &rows, None, opts);
        }
        let mut out = comfy_table::Table::new();
        out.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic).set_width(opts.width);
        if opts.color {
            out.enforce_styling();
        } else {
            out.force_no_tty();
        }
        out.set_header(header.iter().map(comfy_table::Cell::new));
        add_rows(&mut out, t, &slots, rows, opts);
        for (column, w) in out.column_iter_mut().zip(&lower) {
            let w = u16::try_from(*w + 2).unwrap_or(u16::MAX);
            column.set_constraint(comfy_table::ColumnConstraint::LowerBoundary(comfy_table::Width::Fixed(w)));
        }
        let mut text = out.trim_fmt();
        text.push('\n');
        return text;
    }
    let mut out = comfy_table::Table::new();
    out.load_preset(if opts.wide { UTF8_FULL_CONDENSED } else { GLANCE })
        .set_content_arrangement(if narrow { ContentArrangement::Disabled } else { ContentArrangement::Dynamic })
        .set_width(opts.width);
    if opts.color {
        out.enforce_styling();
    } else {
        out.force_no_tty();
    }
    out.set_header(header.iter().map(|h| {
        let c = comfy_table::Cell::new(h);
        if opts.wide {
            c
        } else {
            c.add_attribute(Attribute::Bold)
        }
    }));
    add_rows(&mut out, t, &slots, rows, opts);
    if !opts.wide {
        let last = slots.len().saturating_sub(1);
        for (j, column) in out.column_iter_mut().enumerate() {
            // With the (blank) vertical line, two spaces between columns.
            column.set_padding((0, if j == last { 0 } else { 1 }));
            if let Some(w) = word_bounds.as_ref().and_then(|b| b.get(j)) {
                let w = u16::try_from(*w + usize::from(j != last)).unwrap_or(u16::MAX);
                column.set_constraint(comfy_table::ColumnConstraint::LowerBoundary(comfy_table::Width::Fixed(w)));
            }
        }
    }
    let mut text = out.trim_fmt();
    text.push('\n');
    if !dropped.is_empty() {
        let names: Vec<String> = dropped.iter().map(|h| h.replace('\n', " ")).collect();
        let note = format!(
            "columns left out at {} columns: {} (a wider terminal, --wide or --format csv shows them)",
            opts.width,
            names.join(", ")
        );
        text.push_str(&wrap("", 0, &note, "  ", opts.width));
    }
    text
}

/// A table too wide for the terminal as one block per row: the first
/// cell as its heading, then `column: value` lines wrapped at spaces.
/// The rows' cells into `out`: numbers right-aligned, a cell's tone in
/// colour (bold) when colour is on; secondary slots plain.
fn add_rows(out: &mut comfy_table::Table, t: &Table, slots: &[Slot], rows: Vec<Vec<String>>, opts: &TerminalOptions) {
    for (row, texts) in t.rows.iter().zip(rows) {
        out.add_row(slots.iter().zip(texts).map(|(&slot, text)| {
            let cell = &row.cells[slot.column()];
            let main = matches!(slot, Slot::Main(_));
            let mut c = comfy_table::Cell::new(text);
            if main && t.columns[slot.column()].numeric() {
                c = c.set_alignment(CellAlignment::Right);
            }
            match cell.tone().filter(|_| main && opts.color) {
                Some(tone) => c.fg(colour(tone)).add_attribute(Attribute::Bold),
                None => c,
            }
        }));
    }
}

fn records(header: &[String], rows: &[Vec<String>], heading: Option<usize>, opts: &TerminalOptions) -> String {
    let heading = heading.unwrap_or(0);
    let mut out = String::new();
    for (n, row) in rows.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let Some(first) = row.get(heading) else { continue };
        out.push_str(&wrap("", 0, first, "  ", opts.width));
        for (j, (h, v)) in header.iter().zip(row).enumerate() {
            if v.is_empty() || j == heading {
                continue;
            }
            let head = format!("  {}:", h.replace('\n', " "));
            let body = v.replace('\n', " ");
            out.push_str(&wrap(&head, head.chars().count(), &body, "      ", opts.width));
        }
    }
    out
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
        .filter(|n| !(opts.quiet && n.kind == NoteKind::Warning))
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
    for section in visible(doc, Audience::Terminal { wide: opts.wide }) {
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
            let title = if has_table { title } else { format!("{title}:") };
            s.insert_str(0, &wrap("", 0, &title, "  ", opts.width));
        }
        parts.push(s);
    }
    parts.join("\n")
}

#[cfg(test)]
mod tests {
    use super::name;

    #[test]
    fn a_name_that_carries_its_id_is_not_given_it_twice() {
        assert_eq!(name("at::native:: [kf57f53]", "kf57f53"), "at::native:: [kf57f53]");
        assert_eq!(name("vecadd", "k848f34"), "vecadd [k848f34]");
        assert_eq!(name("vecadd", ""), "vecadd");
    }
}
