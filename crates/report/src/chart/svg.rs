//! The charts as hand-written SVG: the roofline of an analysis and the
//! shared pieces the diff chart draws with (axes, roofs, legend, notes).
//!
//! The output is byte-for-byte deterministic (no font is embedded; the
//! layout measures text with a fixed width table), so it is snapshot-tested.
//! Every element the page's script moves on a zoom carries its data
//! coordinates (`data-x`, `data-y`, `data-rate`), every element of a kernel
//! its `data-k`, and every element a precision tab filters its `data-tabs`
//! (roofs hidden until asked for carry `data-extra` instead), so the page
//! can redraw, filter and link without a second description of the chart.

use std::fmt::Write as _;

use roofline_documents::AnalysisDocument;
use roofline_model::MemLevel;
use roofline_model::{format_percent, Unit};

use super::layout::{
    label_quad, leader, spots_around, text_width, Anchor, Layout, Need, Quad, Rect, Spot, FONT_FAMILY,
};
use super::model::{self, Axes, Mark, Model, Roof, RoofKind, View, MAX_KERNEL_LABELS};
use super::scale::{tick_label, Frame};
use super::ChartOptions;

/// Escapes text for SVG/HTML content and attributes. Characters XML 1.0
/// does not allow in a document (the C0 controls but tab, line feed and
/// carriage return; U+FFFE and U+FFFF) become U+FFFD: an escape or a bell
/// in a kernel name or a title would otherwise make the SVG file one that
/// no XML parser, and so no browser, reads.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => out.push('\u{fffd}'),
            _ => out.push(c),
        }
    }
    out
}

/// Formats a pixel coordinate (one decimal, no trailing zero).
pub fn n(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// Word-wraps `text` to `max_w` pixels.
pub fn wrap(text: &str, size: f64, max_w: f64) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let candidate = if cur.is_empty() { word.to_string() } else { format!("{cur} {word}") };
        if text_width(&candidate, size) > max_w && !cur.is_empty() {
            lines.push(std::mem::take(&mut cur));
            cur = word.to_string();
        } else {
            cur = candidate;
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Word-wraps `text` to `width` characters (a word longer than that is
/// cut), for terminals.
pub fn wrap_chars(text: &str, width: usize) -> Vec<String> {
    let width = width.max(8);
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let mut word: String = word.to_string();
        while word.chars().count() > width {
            let head: String = word.chars().take(width).collect();
            if !cur.is_empty() {
                lines.push(std::mem::take(&mut cur));
            }
            lines.push(head);
            word = word.chars().skip(width).collect();
        }
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(&word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Marker shape per memory level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// DRAM.
    Circle,
    /// L2.
    Square,
    /// L1/shared.
    Triangle,
}

impl Shape {
    /// The shape of a level's points.
    pub fn of(l: MemLevel) -> Shape {
        match l {
            MemLevel::Dram => Shape::Circle,
            MemLevel::L2 => Shape::Square,
            MemLevel::L1 => Shape::Triangle,
        }
    }

    /// The outline of a marker of radius `r` centred on the origin.
    pub fn path(self, r: f64) -> String {
        match self {
            Shape::Circle => {
                format!("M{0} 0a{1} {1} 0 1 0 {2} 0a{1} {1} 0 1 0 {3} 0z", n(-r), n(r), n(2.0 * r), n(-2.0 * r))
            }
            Shape::Square => {
                let s = r * 0.9;
                format!("M{0} {0}h{1}v{1}h{2}z", n(-s), n(2.0 * s), n(-2.0 * s))
            }
            Shape::Triangle => {
                let s = r * 1.15;
                format!("M0 {0}L{1} {2}L{3} {2}z", n(-s), n(s * 0.87), n(s * 0.5), n(-s * 0.87))
            }
        }
    }

    /// The word the page's script knows it by.
    pub fn key(self) -> &'static str {
        match self {
            Shape::Circle => "circle",
            Shape::Square => "square",
            Shape::Triangle => "triangle",
        }
    }
}

/// A marker at `(x, y)` as a path element, `extra` adding attributes.
pub fn marker(shape: Shape, x: f64, y: f64, r: f64, fill: &str, stroke: &str, extra: &str) -> String {
    format!(
        "<path d=\"{}\" transform=\"translate({} {})\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1.5\"{extra}/>",
        shape.path(r),
        n(clampy(x)),
        n(clampy(y))
    )
}

/// What a legend entry shows.
pub enum Symbol {
    /// A marker.
    Marker {
        /// Its shape.
        shape: Shape,
        /// Fill colour.
        fill: String,
        /// Outline colour.
        stroke: String,
    },
    /// A line sample.
    Line {
        /// Colour.
        colour: String,
        /// Dash pattern, if any.
        dash: Option<&'static str>,
    },
    /// An arrow.
    Arrow,
}

/// One legend entry.
pub struct LegendEntry {
    /// The symbol.
    pub symbol: Symbol,
    /// The words after it.
    pub text: String,
}

impl LegendEntry {
    /// A marker entry.
    pub fn marker(shape: Shape, fill: &str, stroke: &str, text: &str) -> LegendEntry {
        LegendEntry { symbol: Symbol::Marker { shape, fill: fill.into(), stroke: stroke.into() }, text: text.into() }
    }

    /// A line entry.
    pub fn line(colour: &str, dash: Option<&'static str>, text: &str) -> LegendEntry {
        LegendEntry { symbol: Symbol::Line { colour: colour.into(), dash }, text: text.into() }
    }
}

/// The dash pattern of theoretical roofs.
pub const DASH: &str = "7 4";
/// The dash pattern of FLOP-mix roofs.
pub const DOTS: &str = "2 3";

/// A chart under construction: the frame, the SVG body and the labels
/// placed so far.
pub struct Canvas {
    /// Data to pixels.
    pub frame: Frame,
    /// Width of the whole chart.
    pub width: f64,
    /// The SVG so far.
    pub body: String,
    /// Labels and markers placed.
    pub layout: Layout,
    /// Bottom of everything drawn so far.
    pub bottom: f64,
    /// Prefix of the ids inside this chart.
    pub id: &'static str,
}

impl Canvas {
    /// A chart of `width` with a plot of `plot_height` showing `view`, its
    /// title and subtitle and its axes drawn.
    pub fn new(id: &'static str, view: View, unit: Unit, opts: &ChartOptions, title: &str, subtitle: &str) -> Canvas {
        Canvas::with_x_title(id, view, unit, Axes::Flop.x_title(), opts, title, subtitle)
    }

    /// As [`Canvas::new`], with the x axis titled `x_title`.
    pub fn with_x_title(
        id: &'static str,
        view: View,
        unit: Unit,
        x_title: &str,
        opts: &ChartOptions,
        title: &str,
        subtitle: &str,
    ) -> Canvas {
        let ticks_y = view.y.ticks();
        let tick_w = ticks_y.major.iter().map(|v| text_width(&tick_label(*v, unit), 11.0)).fold(0.0, f64::max);
        let left = (tick_w + 34.0).ceil();
        let width = opts.width.clamp(320.0, 4000.0);
        let plot = Rect { x: left, y: 58.0, w: width - left - 20.0, h: opts.plot_height.clamp(160.0, 3000.0) };
        let frame = Frame { plot, x: view.x, y: view.y };
        let bounds = Rect { x: plot.x + 2.0, y: plot.y + 2.0, w: plot.w - 4.0, h: plot.h - 4.0 };
        let mut c = Canvas { frame, width, body: String::new(), layout: Layout::new(bounds), bottom: 0.0, id };
        let _ = writeln!(
            c.body,
            "<text class=\"title\" x=\"{}\" y=\"24\" font-size=\"16\" font-weight=\"bold\">{}</text>",
            n(left),
            escape(title)
        );
        let _ = writeln!(
            c.body,
            "<text class=\"subtitle\" x=\"{}\" y=\"43\" font-size=\"12\" fill=\"#444\">{}</text>",
            n(left),
            escape(subtitle)
        );
        c.axes(unit, x_title);
        c
    }

    fn axes(&mut self, unit: Unit, x_title: &str) {
        let f = self.frame;
        let p = f.plot;
        let (tx, ty) = (f.x.ticks(), f.y.ticks());
        let _ = writeln!(self.body, "<g class=\"grid\" stroke-width=\"1\">");
        // Vertical lines at the x ticks, horizontal ones at the y ticks.
        let lines = [(&tx, true), (&ty, false)];
        for (ticks, vertical) in lines {
            for (v, colour) in
                ticks.minor.iter().map(|v| (v, "#f1f1f1")).chain(ticks.major.iter().map(|v| (v, "#e0e0e0")))
            {
                let (x1, y1, x2, y2) =
                    if vertical { (f.px(*v), p.y, f.px(*v), p.y + p.h) } else { (p.x, f.py(*v), p.x + p.w, f.py(*v)) };
                let _ = writeln!(
                    self.body,
                    "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{colour}\"/>",
                    n(x1),
                    n(y1),
                    n(x2),
                    n(y2)
                );
            }
        }
        let _ = writeln!(self.body, "</g>");
        let _ = writeln!(
            self.body,
            "<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333\"/>",
            n(p.x),
            n(p.y),
            n(p.w),
            n(p.h)
        );
        let _ = writeln!(self.body, "<g class=\"ticks\" font-size=\"11\" fill=\"#333\">");
        for v in &tx.major {
            let x = f.px(*v);
            let _ = writeln!(
                self.body,
                "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333\"/><text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>",
                n(x),
                n(p.y + p.h),
                n(p.y + p.h + 5.0),
                n(p.y + p.h + 18.0),
                escape(&tick_label(*v, Unit::FlopPerByte))
            );
        }
        for v in &ty.major {
            let y = f.py(*v);
            let _ = writeln!(
                self.body,
                "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#333\"/><text x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>",
                n(p.x - 5.0),
                n(y),
                n(p.x),
                n(p.x - 8.0),
                n(y + 4.0),
                escape(&tick_label(*v, unit))
            );
        }
        let _ = writeln!(self.body, "</g>");
        let _ = writeln!(
            self.body,
            "<text x=\"{}\" y=\"{}\" font-size=\"13\" text-anchor=\"middle\">{}</text>",
            n(p.x + p.w / 2.0),
            n(p.y + p.h + 38.0),
            escape(x_title)
        );
        let _ = writeln!(
            self.body,
            "<text transform=\"translate(14 {}) rotate(-90)\" font-size=\"13\" text-anchor=\"middle\">Performance ({}, log scale)</text>",
            n(p.y + p.h / 2.0),
            unit.symbol()
        );
        let _ = writeln!(
            self.body,
            "<defs><clipPath id=\"{}-clip\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath></defs>",
            self.id,
            n(p.x),
            n(p.y),
            n(p.w),
            n(p.h)
        );
        self.bottom = p.y + p.h + 48.0;
    }

    /// Opens the clipped plot group (close it with `</g>`).
    pub fn open_plot(&mut self) {
        let _ = writeln!(self.body, "<g class=\"plot\" clip-path=\"url(#{}-clip)\">", self.id);
    }

    /// Draws the roofs as lines: slanted ones up to the highest flat roof
    /// drawn in the view's tab, flat ones from the fastest slanted roof.
    /// A roof outside the view is written hidden (the page's script may
    /// bring it in).
    pub fn roof_lines(&mut self, roofs: &[Roof], tab: &str) {
        let f = self.frame;
        let shown = |r: &Roof| r.tabs.iter().any(|t| t == tab);
        let top = roofs
            .iter()
            .filter(|r| shown(r) && matches!(r.kind, RoofKind::Flat { .. }))
            .map(|r| r.kind.rate())
            .fold(0.0, f64::max);
        let fastest = roofs
            .iter()
            .filter(|r| shown(r) && !r.thin && matches!(r.kind, RoofKind::Slanted { .. }))
            .map(|r| r.kind.rate())
            .fold(0.0, f64::max);
        let _ = writeln!(self.body, "<g class=\"roofs\" fill=\"none\">");
        for r in roofs {
            let (x1, y1, x2, y2) = match r.kind {
                RoofKind::Slanted { rate, .. } => {
                    let xa = f.x.min_value().max(f.y.min_value() / rate);
                    let xb = if top > 0.0 { (top / rate).min(f.x.max_value()) } else { f.x.max_value() };
                    (xa, rate * xa, xb, rate * xb.max(xa))
                }
                RoofKind::Flat { rate } => {
                    let xa = if fastest > 0.0 { (rate / fastest).max(f.x.min_value()) } else { f.x.min_value() };
                    (xa, rate, f.x.max_value(), rate)
                }
            };
            let visible = x2 > x1
                && match r.kind {
                    RoofKind::Flat { rate } => f.y.contains(rate),
                    RoofKind::Slanted { .. } => y1 <= f.y.max_value(),
                };
            let (px1, py1, px2, py2) = (f.px(x1), f.py(y1), f.px(x2.max(x1)), f.py(y2));
            let dash = if r.dashed { Some(DASH) } else { None };
            let _ = writeln!(
                self.body,
                "<line class=\"roof\" data-roof=\"{}\" data-kind=\"{}\" data-rate=\"{:e}\"{}{} x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{}{}><title>{}</title></line>",
                r.key,
                if matches!(r.kind, RoofKind::Flat { .. }) { "flat" } else { "slant" },
                r.kind.rate(),
                tabs_attr(&r.tabs),
                if r.thin { " data-thin=\"1\"" } else { "" },
                n(clampy(px1)),
                n(clampy(py1)),
                n(clampy(px2)),
                n(clampy(py2)),
                r.colour,
                if r.thin { "1" } else if r.judged { "2.2" } else { "1.8" },
                dash.map(|d| format!(" stroke-dasharray=\"{d}\"")).unwrap_or_default(),
                if visible { "" } else { " visibility=\"hidden\"" },
                escape(&r.detail)
            );
        }
        let _ = writeln!(self.body, "</g>");
    }

    /// Labels the roofs of `tab` (same-valued flat roofs share a label),
    /// then, last and only where free, the others (hidden until asked
    /// for). Every roof gets a label element, hidden when it found no room
    /// or shares a label, so the page's script can place it after a zoom.
    pub fn roof_labels(&mut self, roofs: &[Roof], tab: &str) {
        let f = self.frame;
        let p = f.plot;
        let in_tab = |r: &Roof| r.tabs.iter().any(|t| t == tab);
        let fastest = roofs
            .iter()
            .filter(|r| in_tab(r) && !r.thin && matches!(r.kind, RoofKind::Slanted { .. }))
            .map(|r| r.kind.rate())
            .fold(0.0, f64::max);
        let mut placed: Vec<Option<(Spot, String)>> = vec![None; roofs.len()];
        let mut grouped = vec![false; roofs.len()];
        let angle = f.diagonal_angle();
        for pass in 0..2 {
            let in_pass = |r: &Roof| if pass == 0 { in_tab(r) } else { r.extra() };
            let top = roofs
                .iter()
                .filter(|r| (in_tab(r) || pass == 1 && r.extra()) && matches!(r.kind, RoofKind::Flat { .. }))
                .map(|r| r.kind.rate())
                .fold(0.0, f64::max);
            // Flat roofs, highest first; same-valued ones share a label.
            let mut flat: Vec<usize> = (0..roofs.len())
                .filter(|&i| in_pass(&roofs[i]) && matches!(roofs[i].kind, RoofKind::Flat { .. }))
                .collect();
            flat.sort_by(|&a, &b| roofs[b].kind.rate().total_cmp(&roofs[a].kind.rate()).then(a.cmp(&b)));
            for &i in &flat {
                if grouped[i] {
                    continue;
                }
                let rate = roofs[i].kind.rate();
                let group: Vec<usize> = flat
                    .iter()
                    .copied()
                    .filter(|&j| !grouped[j] && (roofs[j].kind.rate() / rate - 1.0).abs() < 0.005)
                    .collect();
                for &j in &group {
                    grouped[j] = true;
                }
                if !f.y.contains(rate) {
                    continue;
                }
                let names: Vec<&str> = group.iter().map(|&j| roofs[j].name.as_str()).collect();
                let text = format!("{}: {}", names.join(", "), roofs[i].value);
                let w = text_width(&text, 11.0);
                let y = f.py(rate);
                let xr = p.x + p.w - 4.0;
                let start = if fastest > 0.0 { f.px((rate / fastest).max(f.x.min_value())) } else { p.x };
                let mut spots = Vec::new();
                for dy in [-4.0, 13.0] {
                    for k in 0..40 {
                        let x = xr - 24.0 * f64::from(k);
                        if x - w < p.x + 4.0 || x < start + 30.0 {
                            break;
                        }
                        spots.push(Spot::at(x, y + dy, Anchor::End));
                    }
                }
                for k in 1..12 {
                    spots.push(Spot::at(xr - 6.0, y - 4.0 - 12.0 * f64::from(k), Anchor::End));
                    spots.push(Spot::at(xr - 6.0, y + 13.0 + 12.0 * f64::from(k), Anchor::End));
                }
                if let Some(s) = self.layout.place(&text, 11.0, &spots, Need::Optional) {
                    placed[i] = Some((s, text));
                }
            }
            // Slanted roofs, along their lines from where they enter.
            for (i, r) in roofs.iter().enumerate() {
                let RoofKind::Slanted { rate, .. } = r.kind else { continue };
                if !in_pass(r) || r.thin {
                    continue;
                }
                let text = r.label();
                let start = f.px(f.x.min_value().max(f.y.min_value() / rate));
                let mut spots = Vec::new();
                for step in 0..40 {
                    let px = start + 14.0 + 16.0 * f64::from(step);
                    let y_data = rate * f.x_at(px);
                    if (top > 0.0 && y_data > top) || px > p.x + p.w {
                        break;
                    }
                    spots.push(Spot { x: px, y: f.py(y_data) - 4.0, anchor: Anchor::Start, angle });
                }
                if let Some(s) = self.layout.place(&text, 11.0, &spots, Need::Optional) {
                    placed[i] = Some((s, text));
                }
            }
        }
        let _ = writeln!(self.body, "<g class=\"roof-labels\" font-size=\"11\">");
        for (i, r) in roofs.iter().enumerate() {
            let common = format!(
                "class=\"roof-label\" data-roof=\"{}\"{} data-name=\"{}\" data-value=\"{}\" fill=\"{}\"",
                r.key,
                tabs_attr(&r.tabs),
                escape(&r.name),
                escape(&r.value),
                r.colour
            );
            match (&placed[i], r.kind) {
                (Some((s, text)), RoofKind::Flat { rate }) => {
                    let _ = writeln!(
                        self.body,
                        "<text {common} x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                        n(s.x),
                        n(s.y),
                        escape(text)
                    );
                    if (s.y - (f.py(rate) - 4.0)).abs() > 0.5 && (s.y - (f.py(rate) + 13.0)).abs() > 0.5 {
                        // Moved off its line: a bracket points at it.
                        let y = f.py(rate);
                        let yl = if s.y < y { s.y - 2.0 } else { s.y - 14.0 };
                        let _ = writeln!(
                            self.body,
                            "<path class=\"roof-leader\" data-roof=\"{}\"{} d=\"M{} {}H{}V{}\" fill=\"none\" stroke=\"#777\" stroke-width=\"0.8\"/>",
                            r.key,
                            tabs_attr(&r.tabs),
                            n(s.x + 2.0),
                            n(yl),
                            n(s.x + 5.0),
                            n(y)
                        );
                    }
                }
                (Some((s, text)), RoofKind::Slanted { .. }) => {
                    let (x, y) = (n(s.x), n(s.y));
                    let _ = writeln!(
                        self.body,
                        "<text {common} x=\"{x}\" y=\"{y}\" transform=\"rotate({} {x} {y})\">{}</text>",
                        n(s.angle),
                        escape(text)
                    );
                }
                (None, _) => {
                    let _ = writeln!(
                        self.body,
                        "<text {common} x=\"0\" y=\"0\" visibility=\"hidden\">{}</text>",
                        escape(&r.label())
                    );
                }
            }
        }
        let _ = writeln!(self.body, "</g>");
    }

    /// Writes the legend: rows of entries, wrapped to the width.
    pub fn legend(&mut self, entries: &[LegendEntry]) {
        let mut x = self.frame.plot.x;
        let mut y = self.bottom + 12.0;
        let right = self.width - 20.0;
        let _ = writeln!(self.body, "<g class=\"legend\" font-size=\"11\" fill=\"#222\">");
        for e in entries {
            let w = 22.0 + text_width(&e.text, 11.0) + 16.0;
            if x + w > right && x > self.frame.plot.x {
                x = self.frame.plot.x;
                y += 18.0;
            }
            let (cx, cy) = (x + 8.0, y - 4.0);
            let sym = match &e.symbol {
                Symbol::Marker { shape, fill, stroke } => marker(*shape, cx, cy, 5.0, fill, stroke, ""),
                Symbol::Line { colour, dash } => format!(
                    "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{1}\" stroke=\"{}\" stroke-width=\"2\"{}/>",
                    n(x),
                    n(cy),
                    n(x + 16.0),
                    colour,
                    dash.map(|d| format!(" stroke-dasharray=\"{d}\"")).unwrap_or_default()
                ),
                Symbol::Arrow => format!(
                    "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{1}\" stroke=\"#333\" stroke-width=\"1.5\" marker-end=\"url(#{}-arrow)\"/>",
                    n(x),
                    n(cy),
                    n(x + 14.0),
                    self.id
                ),
            };
            let _ = writeln!(self.body, "{sym}<text x=\"{}\" y=\"{}\">{}</text>", n(x + 22.0), n(y), escape(&e.text));
            x += w;
        }
        let _ = writeln!(self.body, "</g>");
        self.bottom = y + 8.0;
    }

    /// Writes notes, wrapped to the width.
    pub fn notes(&mut self, notes: &[String]) {
        if notes.is_empty() {
            return;
        }
        let max_w = self.width - self.frame.plot.x - 20.0;
        let mut y = self.bottom + 6.0;
        let _ = writeln!(self.body, "<g class=\"notes\" font-size=\"11\" fill=\"#8a3b00\">");
        for note in notes {
            for line in wrap(note, 11.0, max_w) {
                y += 15.0;
                let _ =
                    writeln!(self.body, "<text x=\"{}\" y=\"{}\">{}</text>", n(self.frame.plot.x), n(y), escape(&line));
            }
        }
        let _ = writeln!(self.body, "</g>");
        self.bottom = y + 4.0;
    }

    /// The finished SVG document; `attrs` go on the root element.
    pub fn finish(self, class: &str, aria: &str, attrs: &str) -> String {
        let h = (self.bottom + 12.0).ceil();
        let p = self.frame.plot;
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"{class}\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" font-family=\"{}\" role=\"img\" aria-label=\"{}\" data-plot=\"{} {} {} {}\"{attrs}>\n<defs><marker id=\"{}-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0 0L10 5L0 10z\" fill=\"#333\"/></marker></defs>\n<rect class=\"bg\" width=\"{w}\" height=\"{h}\" fill=\"#fff\"/>\n{}</svg>\n",
            FONT_FAMILY.replace('\'', "&#39;"),
            escape(aria),
            n(p.x),
            n(p.y),
            n(p.w),
            n(p.h),
            self.id,
            self.body,
            w = n(self.width),
            h = n(h),
        )
    }
}

/// Keeps a pixel coordinate within what an SVG viewer handles well (a
/// line reaching far outside the clipped plot is cut there).
fn clampy(v: f64) -> f64 {
    if v.is_finite() {
        v.clamp(-1e5, 1e5)
    } else {
        0.0
    }
}

/// ` data-tabs="all fp32"`, or ` data-extra="1"` for a roof shown only
/// when asked for (not displayed until the page's control shows it: a
/// stylesheet rule overrides the `display` attribute).
fn tabs_attr(tabs: &[String]) -> String {
    if tabs.is_empty() {
        " data-extra=\"1\" display=\"none\"".into()
    } else {
        format!(" data-tabs=\"{}\"", tabs.join(" "))
    }
}

fn mark_tabs(m: &Mark) -> String {
    if m.tab == "all" {
        " data-tabs=\"all\"".into()
    } else {
        format!(" data-tabs=\"all {}\"", m.tab)
    }
}

/// The roofline chart of an analysis.
pub fn roofline_svg(doc: &AnalysisDocument, opts: &ChartOptions) -> String {
    roofline_chart(doc, opts).0
}

/// The chart and the boxes of its labels (tests check that none overlap).
pub fn roofline_chart(doc: &AnalysisDocument, opts: &ChartOptions) -> (String, Vec<Quad>) {
    let model = model::build(doc, opts.title.as_deref());
    draw(doc, &model, opts)
}

/// Draws a model.
pub fn draw(doc: &AnalysisDocument, model: &Model, opts: &ChartOptions) -> (String, Vec<Quad>) {
    let all = model.all();
    let id = match model.axes {
        Axes::Flop => "roofline",
        Axes::Instruction => "instructions",
    };
    let mut c =
        Canvas::with_x_title(id, all.view, model.unit, model.axes.x_title(), opts, &model.title, &model.subtitle);
    let f = c.frame;
    c.open_plot();
    c.roof_lines(&model.roofs, "all");
    let _ = writeln!(c.body, "<g class=\"ridges\">");
    for r in &model.ridges {
        let (px, py) = (f.px(r.x), f.py(r.y));
        let inside = f.x.contains(r.x) && f.y.contains(r.y);
        let _ = writeln!(
            c.body,
            "<path class=\"ridge\" data-x=\"{:e}\" data-y=\"{:e}\"{} d=\"M0 -5l5 5l-5 5l-5 -5z\" transform=\"translate({} {})\" fill=\"#fff\" stroke=\"#222\" stroke-width=\"1.5\"{}><title>{}</title></path>",
            r.x,
            r.y,
            tabs_attr(&model.roofs[r.compute].tabs),
            n(clampy(px)),
            n(clampy(py)),
            if inside { "" } else { " visibility=\"hidden\"" },
            escape(&r.title)
        );
        if inside {
            c.layout.mark(Rect::around(px, py, 6.0));
        }
    }
    let _ = writeln!(c.body, "</g>");

    // Markers, biggest share first so small ones are drawn on top.
    let mut placed: Vec<Vec<(f64, f64, f64)>> = Vec::new();
    let _ = writeln!(c.body, "<g class=\"points\">");
    for m in &model.marks {
        let a = &doc.kernels[m.k];
        let r = m.radius();
        let py = f.py(m.y);
        let mut xs: Vec<(MemLevel, f64)> = m.points.clone();
        xs.sort_by(|a, b| a.1.total_cmp(&b.1));
        let _ = writeln!(
            c.body,
            "<g class=\"kernel\" data-k=\"{}\"{}{}>",
            m.k,
            mark_tabs(m),
            m.roof.map(|r| format!(" data-roof=\"{}\"", model.roofs[r].key)).unwrap_or_default()
        );
        if xs.len() > 1 {
            let _ = writeln!(
                c.body,
                "<line class=\"span\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"1.5\" opacity=\"0.7\"/>",
                n(f.px(xs[0].1)),
                n(py),
                n(f.px(xs[xs.len() - 1].1)),
                m.colour
            );
        }
        if let Some((rate, name)) = &m.own_roof {
            let (x0, x1) = (xs[0].1 / 3.0, xs[xs.len() - 1].1 * 3.0);
            let _ = writeln!(
                c.body,
                "<line class=\"own-roof\" data-k=\"{}\" data-rate=\"{rate:e}\" data-x0=\"{x0:e}\" data-x1=\"{x1:e}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{2}\" stroke=\"{}\" stroke-width=\"1.6\" stroke-dasharray=\"{DOTS}\"><title>{}</title></line>",
                m.k,
                n(clampy(f.px(x0))),
                n(clampy(f.py(*rate))),
                n(clampy(f.px(x1))),
                m.colour,
                escape(&format!(
                    "{}: its roof, {name}: {}",
                    m.label,
                    roofline_model::format_si(*rate, model::rate_unit(a))
                ))
            );
        }
        let mut spots = Vec::new();
        for (level, x) in &m.points {
            let px = f.px(*x);
            let (title, lines) = match model.axes {
                Axes::Flop => model::point_lines(a, &m.label, *level),
                Axes::Instruction => super::instructions::point_lines(a, &m.label, *level),
            };
            let extra = format!(
                " class=\"pt\" data-k=\"{0}\" data-level=\"{1}\" data-tip=\"{7}{0}-{1}\" data-x=\"{2:e}\" data-y=\"{3:e}\" data-r=\"{4}\" data-shape=\"{5}\" fill-opacity=\"{6}\"",
                m.k,
                level.key(),
                x,
                m.y,
                n(r),
                Shape::of(*level).key(),
                if m.timed { "0.85" } else { "1" },
                model.axes.tip_prefix()
            );
            let mut el =
                marker(Shape::of(*level), px, py, r, if m.timed { m.colour } else { "#ffffff" }, m.colour, &extra);
            el.truncate(el.len() - 2);
            let _ =
                writeln!(c.body, "{el}><title>{}</title></path>", escape(&format!("{title}\n{}", lines.join("\n"))));
            if f.x.contains(*x) && f.y.contains(m.y) {
                c.layout.mark(Rect::around(px, py, r));
                spots.push((px, py, r));
            }
        }
        let _ = writeln!(c.body, "</g>");
        placed.push(spots);
    }
    let _ = writeln!(c.body, "</g>");
    let _ = writeln!(c.body, "</g>");

    // Labels: the kernels that must be named, the roofs, then the other
    // kernels by time, where they fit.
    let mut label_svg = vec![String::new(); model.marks.len()];
    let mut named = 0;
    let mut place = |c: &mut Canvas, i: usize, need: Need| {
        let m = &model.marks[i];
        if placed[i].is_empty() {
            return false;
        }
        let cands = spots_around(&placed[i], 11.0);
        let Some(s) = c.layout.place(&m.label, 11.0, &cands, need) else { return false };
        let b = label_quad(&m.label, 11.0, s).bounds();
        let (bx, by) = (b.x + b.w / 2.0, b.y + b.h / 2.0);
        let nearest = placed[i]
            .iter()
            .copied()
            .min_by(|p, q| ((p.0 - bx).hypot(p.1 - by)).total_cmp(&(q.0 - bx).hypot(q.1 - by)))
            .expect("a placed marker");
        let mut s_svg = String::new();
        if let Some((x1, y1, x2, y2)) = leader(&m.label, 11.0, s, nearest) {
            let _ = writeln!(
                s_svg,
                "<line class=\"leader\" data-k=\"{}\"{} x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\" stroke-width=\"0.8\"/>",
                m.k,
                mark_tabs(m),
                n(x1),
                n(y1),
                n(x2),
                n(y2)
            );
        }
        let _ = writeln!(
            s_svg,
            "<text class=\"klabel\" data-k=\"{}\"{} data-prio=\"{}\"{} x=\"{}\" y=\"{}\" text-anchor=\"{}\">{}</text>",
            m.k,
            mark_tabs(m),
            m.rank,
            if m.required { " data-need=\"1\"" } else { "" },
            n(s.x),
            n(s.y),
            s.anchor.attr(),
            escape(&m.label)
        );
        label_svg[i] = s_svg;
        true
    };
    for i in 0..model.marks.len() {
        if model.marks[i].required && place(&mut c, i, Need::Required) {
            named += 1;
        }
    }
    c.roof_labels(&model.roofs, "all");
    for i in 0..model.marks.len().min(MAX_KERNEL_LABELS) {
        if !model.marks[i].required && place(&mut c, i, Need::Optional) {
            named += 1;
        }
    }
    // Labels that found no room are written hidden: the page's script
    // places them again when a zoom or a tab makes room.
    for (i, m) in model.marks.iter().enumerate().take(MAX_KERNEL_LABELS) {
        if label_svg[i].is_empty() {
            label_svg[i] = format!(
                "<text class=\"klabel\" data-k=\"{}\"{} data-prio=\"{}\"{} x=\"0\" y=\"0\" visibility=\"hidden\">{}</text>\n",
                m.k,
                mark_tabs(m),
                m.rank,
                if m.required { " data-need=\"1\"" } else { "" },
                escape(&m.label)
            );
        }
    }
    let _ = writeln!(c.body, "<g class=\"kernel-labels\" font-size=\"11\" fill=\"#111\">");
    for s in &label_svg {
        c.body.push_str(s);
    }
    let _ = writeln!(c.body, "</g>");

    // The legend: what the symbols mean, then a key of the kernels.
    let mut legend = Vec::new();
    for level in MemLevel::ALL {
        if model.marks.iter().any(|m| m.points.iter().any(|p| p.0 == level)) {
            legend.push(LegendEntry::marker(Shape::of(level), "#fff", "#222", &format!("{} point", level.label())));
        }
    }
    if model.marks.iter().any(|m| !m.timed) {
        legend.push(LegendEntry::marker(Shape::Circle, "#fff", "#0072b2", "hollow: no time, drawn at its roof"));
    }
    legend.push(LegendEntry::line("#222", Some(DASH), "theoretical roof"));
    legend.push(LegendEntry::line("#222", None, "measured or given roof"));
    if model.marks.iter().any(|m| m.own_roof.is_some()) {
        legend.push(LegendEntry::line("#444", Some(DOTS), "dotted over a kernel: its own FLOP-mix roof"));
    }
    legend.push(LegendEntry::marker(Shape::Circle, "#fff", "#222", "marker area: share of GPU time"));
    c.legend(&legend);
    key(&mut c, model, opts.key_entries);
    let mut notes = model.notes.clone();
    let drawn = placed.iter().filter(|p| !p.is_empty()).count();
    if named < drawn {
        notes.push(format!(
            "{} of {drawn} kernels are not named on the chart (names go to the kernels with the most GPU time, where they fit): the key and the table name them all",
            drawn - named
        ));
    }
    if opts.notes {
        c.notes(&notes);
    }
    let labels = c.layout.labels.clone();
    let mut attrs = format!(
        " data-view=\"{}\" data-full=\"{}\" data-unit=\"{}\"",
        all.view.attr(),
        all.full.attr(),
        model.unit.symbol()
    );
    if model.tabs.len() > 1 {
        attrs.push_str(" data-tabbed=\"1\"");
    }
    let svg = c.finish(
        "roofline-chart",
        &format!(
            "{} chart of {} kernels on {}",
            match model.axes {
                Axes::Flop => "Roofline",
                Axes::Instruction => "Instruction roofline",
            },
            doc.kernels.len(),
            doc.machine.name
        ),
        &attrs,
    );
    (svg, labels)
}

/// The key: a swatch and the label of each kernel, by rank, in columns;
/// at most `most` of them (the table names the rest).
fn key(c: &mut Canvas, model: &Model, most: usize) {
    if model.marks.is_empty() {
        return;
    }
    let left = c.frame.plot.x;
    let avail = c.width - left - 20.0;
    let entries: Vec<(&Mark, String)> = model
        .marks
        .iter()
        .take(most)
        .map(|m| {
            (
                m,
                match m.share {
                    Some(s) => format!("{} {}", m.label, format_percent(100.0 * s)),
                    None => m.label.clone(),
                },
            )
        })
        .collect();
    let widest = entries.iter().map(|(_, t)| text_width(t, 11.0)).fold(0.0, f64::max) + 30.0;
    let cols = ((avail / widest).floor() as usize).clamp(1, 4);
    let colw = avail / cols as f64;
    let rows = entries.len().div_ceil(cols);
    let top = c.bottom + 6.0;
    let _ = writeln!(
        c.body,
        "<text class=\"key-title\" x=\"{}\" y=\"{}\" font-size=\"12\" font-weight=\"bold\">Kernels (by GPU time)</text>",
        n(left),
        n(top + 10.0)
    );
    let _ = writeln!(c.body, "<g class=\"key\" font-size=\"11\" fill=\"#222\">");
    for (idx, (m, text)) in entries.iter().enumerate() {
        let (col, row) = (idx / rows, idx % rows);
        let x = left + col as f64 * colw;
        let y = top + 28.0 + 17.0 * row as f64;
        let room = colw - 30.0;
        let mut t = text.clone();
        while text_width(&t, 11.0) > room && t.chars().count() > 4 {
            let keep: String = t.chars().take(t.chars().count() - 2).collect();
            t = format!("{keep}…");
        }
        let _ = writeln!(
            c.body,
            "<g class=\"key-entry\" data-k=\"{}\"{}><circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{}\" stroke=\"{4}\"/><text x=\"{}\" y=\"{}\">{}</text></g>",
            m.k,
            mark_tabs(m),
            n(x + 6.0),
            n(y - 4.0),
            m.colour,
            n(x + 16.0),
            n(y),
            escape(&t)
        );
    }
    let _ = writeln!(c.body, "</g>");
    c.bottom = top + 28.0 + 17.0 * rows as f64;
    if model.marks.len() > most {
        let _ = writeln!(
            c.body,
            "<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#555\">and {} more kernels: see the table</text>",
            n(left),
            n(c.bottom),
            model.marks.len() - most
        );
        c.bottom += 17.0;
    }
}
