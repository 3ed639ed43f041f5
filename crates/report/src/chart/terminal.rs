//! The roofline in a terminal, for work over SSH: braille dots for the
//! roofs (each character cell holds 2 x 4 dots), one letter per kernel at
//! the point of the level that sets its roof, log-log axes with ticks, and
//! a key under the plot naming each letter's kernel with its share of time,
//! % of roof and verdict, then the roofs drawn.
//!
//! Bounded: the grid is at most 300 x 60 cells whatever the input, and
//! every value placed on it passed the model's checks.

use roofline_analysis::{KernelAnalysis, Limiter};
use roofline_documents::AnalysisDocument;
use roofline_model::MemLevel;
use roofline_model::{format_percent, Unit};

use super::model::{Axes, Model, RoofKind};
use super::scale::tick_label;
use crate::writers::clean;

/// Letters for kernels, by rank.
const KEYS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

#[derive(Clone, Copy, Default)]
struct Cell {
    dots: u8,
    ch: Option<char>,
    /// ANSI colour code of `ch` or of the dots.
    colour: Option<u8>,
    /// A letter or a label: nothing may overwrite it.
    fixed: bool,
}

struct Grid {
    w: usize,
    h: usize,
    cells: Vec<Cell>,
}

impl Grid {
    fn new(w: usize, h: usize) -> Grid {
        Grid { w, h, cells: vec![Cell::default(); w * h] }
    }

    fn cell(&mut self, col: usize, row: usize) -> Option<&mut Cell> {
        (col < self.w && row < self.h).then(|| &mut self.cells[row * self.w + col])
    }

    /// Sets the dot at (x, y) in dot units, y down.
    fn dot(&mut self, x: i64, y: i64, colour: u8) {
        if x < 0 || y < 0 {
            return;
        }
        let (x, y) = (x as usize, y as usize);
        let bit = match (x % 2, y % 4) {
            (0, 0) => 0x01,
            (0, 1) => 0x02,
            (0, 2) => 0x04,
            (1, 0) => 0x08,
            (1, 1) => 0x10,
            (1, 2) => 0x20,
            (0, _) => 0x40,
            _ => 0x80,
        };
        if let Some(c) = self.cell(x / 2, y / 4) {
            c.dots |= bit;
            c.colour.get_or_insert(colour);
        }
    }

    /// Writes `text` from (col, row) if every cell is free of letters and
    /// labels; returns whether it did.
    fn text(&mut self, col: usize, row: usize, text: &str, colour: Option<u8>) -> bool {
        let n = text.chars().count();
        if row >= self.h || col + n > self.w {
            return false;
        }
        if (col..col + n).any(|c| self.cells[row * self.w + c].fixed) {
            return false;
        }
        for (i, ch) in text.chars().enumerate() {
            let c = &mut self.cells[row * self.w + col + i];
            *c = Cell { dots: 0, ch: Some(ch), colour, fixed: true };
        }
        true
    }

    fn row(&self, row: usize, color: bool) -> String {
        let mut s = String::new();
        let mut open: Option<u8> = None;
        for c in &self.cells[row * self.w..(row + 1) * self.w] {
            let ch = c.ch.unwrap_or(if c.dots == 0 {
                ' '
            } else {
                char::from_u32(0x2800 + u32::from(c.dots)).unwrap_or(' ')
            });
            let want = if ch == ' ' { None } else { c.colour };
            if color && want != open {
                s.push_str(&match want {
                    Some(code) => format!("\x1b[{code}m"),
                    None => "\x1b[0m".into(),
                });
                open = want;
            }
            s.push(ch);
        }
        if color && open.is_some() {
            s.push_str("\x1b[0m");
        }
        s.trim_end().to_string()
    }
}

/// ANSI colours for kernels (by rank) and roofs.
const KERNEL_COLOURS: [u8; 6] = [34, 31, 32, 35, 33, 36];
const ROOF_COLOUR: u8 = 90;

/// The point a kernel is drawn at: the level that sets its roof, else DRAM,
/// else its first level.
fn headline_point(a: &KernelAnalysis, points: &[(MemLevel, f64)]) -> Option<(MemLevel, f64)> {
    let want = match a.limiter {
        Some(Limiter::Bandwidth(l)) => l,
        _ => MemLevel::Dram,
    };
    points.iter().find(|p| p.0 == want).or_else(|| points.first()).copied()
}

/// An instruction-roofline kernel's point: at DRAM, else its first level.
fn instruction_point(points: &[(MemLevel, f64)]) -> Option<(MemLevel, f64)> {
    points.iter().find(|p| p.0 == MemLevel::Dram).or_else(|| points.first()).copied()
}

/// The chart of `model` (built from `doc`) in `width` columns; ANSI
/// colour when `color`.
pub fn render(doc: &AnalysisDocument, model: &Model, width: usize, color: bool) -> String {
    let width = width.clamp(40, 300);
    let view = model.all().view;
    let ticks_y: Vec<(f64, String)> = view.y.ticks().major.iter().map(|v| (*v, tick_label(*v, model.unit))).collect();
    let margin = ticks_y.iter().map(|t| t.1.chars().count()).max().unwrap_or(4) + 2;
    let w = (width - margin - 1).clamp(20, 280);
    let h = (w / 4).clamp(10, 28);
    let (dw, dh) = (w as f64 * 2.0, h as f64 * 4.0);
    let dx = |x: f64| ((x.log10() - view.x.lo) / view.x.width() * dw).floor() as i64;
    let dy = |y: f64| ((view.y.hi - y.log10()) / view.y.width() * dh).floor() as i64;
    let mut g = Grid::new(w, h);

    // Roofs: flat from the fastest bandwidth roof on, slanted up to the
    // highest flat roof.
    let shown: Vec<&super::model::Roof> = model.shown_roofs("all").map(|(_, r)| r).collect();
    let top =
        shown.iter().filter(|r| matches!(r.kind, RoofKind::Flat { .. })).map(|r| r.kind.rate()).fold(0.0, f64::max);
    let fastest = shown
        .iter()
        .filter(|r| matches!(r.kind, RoofKind::Slanted { .. }) && !r.thin)
        .map(|r| r.kind.rate())
        .fold(0.0, f64::max);
    for r in &shown {
        match r.kind {
            RoofKind::Flat { rate } => {
                let y = dy(rate);
                let start = if fastest > 0.0 { dx(rate / fastest).max(0) } else { 0 };
                for x in start..(dw as i64) {
                    g.dot(x, y, ROOF_COLOUR);
                }
            }
            RoofKind::Slanted { rate, .. } if !r.thin => {
                let mut prev: Option<i64> = None;
                for x in 0..(dw as i64) {
                    let xv = 10f64.powf(view.x.lo + (x as f64 + 0.5) / dw * view.x.width());
                    let yv = rate * xv;
                    if top > 0.0 && yv > top {
                        break;
                    }
                    let y = dy(yv);
                    // Fill steep stretches so the line stays joined.
                    let from = prev.unwrap_or(y);
                    let (a, b) = (from.min(y), from.max(y));
                    for yy in a..=b.min(a + 4 * h as i64) {
                        g.dot(x, yy, ROOF_COLOUR);
                    }
                    prev = Some(y);
                }
            }
            RoofKind::Slanted { .. } => {}
        }
    }

    // Kernels: a letter each, at the level that sets its roof.
    let mut key_lines = Vec::new();
    for (i, m) in model.marks.iter().enumerate() {
        let a = &doc.kernels[m.k];
        let Some(letter) = KEYS.chars().nth(i) else { break };
        let point = match model.axes {
            Axes::Flop => headline_point(a, &m.points),
            Axes::Instruction => instruction_point(&m.points),
        };
        let Some((level, x)) = point else { continue };
        let (col, row) = (dx(x) / 2, dy(m.y) / 4);
        let colour = KERNEL_COLOURS[i % KERNEL_COLOURS.len()];
        let mut where_ = String::new();
        if col < 0 || row < 0 || col as usize >= w || row as usize >= h {
            where_ = " (outside the view)".into();
        } else if !g.text(col as usize, row as usize, &letter.to_string(), Some(colour)) {
            let under = g.cells[row as usize * w + col as usize].ch.unwrap_or('?');
            where_ = format!(" (under {under})");
        }
        let (pct, verdict) = match model.axes {
            Axes::Flop => (
                a.pct_of_roof.map(format_percent).unwrap_or_else(|| "-".into()),
                a.diagnosis.as_ref().map(|d| d.position.label().to_string()).unwrap_or_default(),
            ),
            Axes::Instruction => {
                let p = a.instructions.as_ref().and_then(|ia| ia.binding_point());
                (
                    p.and_then(|p| p.pct_of_roof).map(format_percent).unwrap_or_else(|| "-".into()),
                    p.map(|p| format!("{}-bound", p.pipe.label())).unwrap_or_default(),
                )
            }
        };
        let share = m.share.map(|s| format_percent(100.0 * s)).unwrap_or_else(|| "-".into());
        key_lines.push((
            letter,
            colour,
            [clean(&m.label, false), share, pct, format!("{verdict}{where_}"), level.label().to_string()],
        ));
    }

    // Roof labels where they fit: flat ones at the right end above their
    // line, slanted ones near where they enter.
    for r in &shown {
        let text = clean(&format!("{} {}", r.name, r.value), false);
        let len = text.chars().count();
        match r.kind {
            RoofKind::Flat { rate } => {
                let row = dy(rate) / 4;
                for dr in [-1i64, 1, -2, 2] {
                    let rr = row + dr;
                    if rr >= 0 && len < w && g.text(w - len, rr as usize, &text, Some(ROOF_COLOUR)) {
                        break;
                    }
                }
            }
            RoofKind::Slanted { rate, .. } if !r.thin => {
                // The first column where the line is inside the plot.
                let mut placed = false;
                for col in 0..w {
                    let xv = 10f64.powf(view.x.lo + (col as f64 * 2.0 + 1.0) / dw * view.x.width());
                    let row = dy(rate * xv) / 4;
                    if row < 0 || (top > 0.0 && rate * xv > top) {
                        break;
                    }
                    if row >= h as i64 {
                        continue;
                    }
                    for dr in [-1i64, -2] {
                        let rr = row + dr;
                        if rr >= 0 && g.text(col + 1, rr as usize, &text, Some(ROOF_COLOUR)) {
                            placed = true;
                            break;
                        }
                    }
                    if placed || col > w / 2 {
                        break;
                    }
                }
            }
            RoofKind::Slanted { .. } => {}
        }
    }

    // Axes.
    let mut out = String::new();
    for line in [&model.title, &model.subtitle] {
        for l in super::svg::wrap_chars(&clean(line, false), width) {
            out.push_str(&l);
            out.push('\n');
        }
    }
    let mut labels_at: Vec<Option<String>> = vec![None; h];
    for (v, t) in &ticks_y {
        let row = (dy(*v) / 4).clamp(0, h as i64 - 1) as usize;
        if labels_at[row].is_none() && !(row > 0 && labels_at[row - 1].is_some()) {
            labels_at[row] = Some(t.clone());
        }
    }
    for (row, label) in labels_at.iter().enumerate() {
        let (l, axis) = match label {
            Some(t) => (t.clone(), '┤'),
            None => (String::new(), '│'),
        };
        out.push_str(&format!("{l:>width$}{axis}{}\n", g.row(row, color), width = margin - 1));
    }
    // The x axis: ticks, then their labels where they fit.
    let ticks_x: Vec<(usize, String)> = view
        .x
        .ticks()
        .major
        .iter()
        .map(|v| ((dx(*v) / 2).clamp(0, w as i64 - 1) as usize, tick_label(*v, Unit::FlopPerByte)))
        .collect();
    let mut axis: Vec<char> = vec!['─'; w];
    for (c, _) in &ticks_x {
        axis[*c] = '┬';
    }
    out.push_str(&format!("{:>width$}└{}\n", "", axis.iter().collect::<String>(), width = margin - 1));
    let mut line: Vec<char> = vec![' '; w + 12];
    let mut free_from = 0usize;
    for (c, t) in &ticks_x {
        let n = t.chars().count();
        let start = c.saturating_sub(n / 2);
        if start < free_from || start + n > line.len() {
            continue;
        }
        for (i, ch) in t.chars().enumerate() {
            line[start + i] = ch;
        }
        free_from = start + n + 1;
    }
    out.push_str(&format!("{:>width$} {}\n", "", line.iter().collect::<String>().trim_end(), width = margin - 1));
    let axes = format!("x: {}, y: {}, both log", model.axes.x_short(), model.unit.symbol());
    for l in super::svg::wrap_chars(&axes, width - margin) {
        out.push_str(&format!("{:>w$} {l}\n", "", w = margin - 1));
    }

    // The key.
    out.push('\n');
    out.push_str(match model.axes {
        Axes::Flop => "kernels (by GPU time; each at the level that sets its roof):\n",
        Axes::Instruction => {
            "kernels (by GPU time; each at its DRAM point, else its first level; % of its binding pipe's roof):\n"
        }
    });
    let mut widths: Vec<usize> =
        (0..4).map(|c| key_lines.iter().map(|(_, _, t)| t[c].chars().count()).max().unwrap_or(0)).collect();
    // The key fits the width: the names give way first (cut in the middle,
    // keeping the end where siblings differ), then a verdict wraps.
    // Room for the common verdicts ("under the diagonal [DRAM]"); longer ones wrap.
    // (and the header's "verdict, level of the point").
    let tail = 27;
    let fixed = 5 + 2 + widths[1].max(4) + 2 + widths[2].max(9) + 2;
    let room = width.saturating_sub(fixed + tail).max(12);
    if widths[0] > room {
        for (_, _, t) in key_lines.iter_mut() {
            t[0] = roofline_model::cut_middle(&t[0], room);
        }
        widths[0] = room;
    }
    let hang = " ".repeat(fixed + widths[0]);
    if !key_lines.is_empty() {
        out.push_str(&format!(
            "     {:<w0$}  {:>w1$}  {:<w2$}  {}, level of the point\n",
            "kernel",
            "time",
            "% of roof",
            match model.axes {
                Axes::Flop => "verdict",
                Axes::Instruction => "binding pipe",
            },
            w0 = widths[0],
            w1 = widths[1].max(4),
            w2 = widths[2].max(9)
        ));
    }
    for (letter, colour, t) in &key_lines {
        let l = if color { format!("\x1b[1;{colour}m{letter}\x1b[0m") } else { letter.to_string() };
        let head = format!(
            "  {l}  {:<w0$}  {:>w1$}  {:<w2$}  ",
            t[0],
            t[1],
            t[2],
            w0 = widths[0],
            w1 = widths[1].max(4),
            w2 = widths[2].max(9)
        );
        // The verdict and level wrap under the verdict column.
        let verdict = format!("{} [{}]", t[3], t[4]);
        for (i, part) in super::svg::wrap_chars(&verdict, width.saturating_sub(hang.len()).max(12)).iter().enumerate() {
            let line = if i == 0 { format!("{head}{part}") } else { format!("{hang}{part}") };
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    if model.marks.len() > key_lines.len() {
        out.push_str(&format!("  and {} more kernels (see the table)\n", model.marks.len() - key_lines.len()));
    }
    out.push_str("roofs:\n");
    for r in &shown {
        let mark = match r.kind {
            RoofKind::Flat { .. } => "──",
            RoofKind::Slanted { .. } => "╱ ",
        };
        let kind = if r.dashed && model.axes == Axes::Flop { ", theoretical" } else { "" };
        out.push_str(&format!("  {mark} {}{kind}\n", clean(&format!("{} {}", r.name, r.value), false)));
    }
    for note in &model.notes {
        for (i, l) in super::svg::wrap_chars(&format!("note: {}", clean(note, false)), width - 4).iter().enumerate() {
            out.push_str(&format!("{}{l}\n", if i == 0 { "" } else { "    " }));
        }
    }
    out
}
