//! The roofline chart as hand-written SVG.
//!
//! Log-log axes with decade ticks; every ceiling of the machine drawn and
//! labelled with its value (theoretical and derived ones dashed, measured,
//! counter and user-given ones solid); ridge points marked; one marker per
//! kernel per memory level (the hierarchical roofline: the levels of one
//! kernel share its FLOP/s, so they sit on one horizontal line, joined),
//! sized by share of GPU time and coloured by bound; a legend.
//!
//! The output is byte-for-byte deterministic, so it can be snapshot-tested:
//! no fonts are embedded (text asks for the generic `sans-serif`), and label
//! layout is computed from a fixed per-character width table
//! ([`text_width`]) rather than from a font, with a greedy placement that
//! tries a fixed list of positions around each anchor and takes the first
//! that overlaps nothing placed before it.

use std::fmt::Write as _;

use roofline_core::machine::{Machine, MemLevel, Origin};
use roofline_core::roofline::{Bound, KernelAnalysis};
use roofline_core::schema::AnalysisDocument;
use roofline_core::units::{format_percent, format_seconds, format_si, Unit};

/// Size of a chart, in CSS pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartOptions {
    /// Width of the whole chart.
    pub width: f64,
    /// Height of the plot area; the legend and notes add to it.
    pub plot_height: f64,
    /// The chart's title (default: one naming the machine).
    pub title: Option<String>,
}

impl Default for ChartOptions {
    fn default() -> Self {
        ChartOptions { width: 960.0, plot_height: 540.0, title: None }
    }
}

/// Colour for a bound (Okabe-Ito palette: readable for colour-blind eyes).
pub fn bound_colour(b: Option<Bound>) -> &'static str {
    match b {
        Some(Bound::Memory) => "#0072b2",
        Some(Bound::Compute) => "#d55e00",
        None => "#777777",
    }
}

/// Advance widths of ASCII 32..=126 in 1/1000 em (Helvetica's metrics),
/// used for every layout decision so the output never depends on a font.
const WIDTHS: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // ' '../
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, // 0-9
    278, 278, 584, 584, 584, 556, 1015, // :;<=>?@
    667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944,
    667, 667, 611, // A-Z
    278, 278, 278, 469, 556, 333, // [\]^_`
    556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722,
    500, 500, 500, // a-z
    334, 260, 334, 584, // {|}~
];

/// Width of `text` at `size` px, with a margin for wider sans-serif faces
/// (DejaVu Sans runs about 10% wider than Helvetica).
pub fn text_width(text: &str, size: f64) -> f64 {
    let units: u32 = text
        .chars()
        .map(|c| {
            let i = c as u32;
            if (32..=126).contains(&i) {
                WIDTHS[(i - 32) as usize] as u32
            } else {
                650
            }
        })
        .sum();
    units as f64 / 1000.0 * size * 1.12
}

/// Escapes text for SVG/HTML content and attributes.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Shortens a kernel name for a chart label.
pub fn short_label(name: &str, max_chars: usize) -> String {
    let n: Vec<char> = name.chars().collect();
    if n.len() <= max_chars {
        name.to_string()
    } else {
        format!("{}...", n[..max_chars - 3].iter().collect::<String>())
    }
}

/// An axis-aligned box in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

impl Rect {
    /// Whether the two boxes share any area.
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }
    fn inside(&self, o: &Rect) -> bool {
        self.x >= o.x && self.y >= o.y && self.x + self.w <= o.x + o.w && self.y + self.h <= o.y + o.h
    }
}

/// Text anchor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn attr(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// A label candidate: baseline position and anchor.
#[derive(Debug, Clone, Copy)]
pub struct Spot {
    pub x: f64,
    pub y: f64,
    pub anchor: Anchor,
}

/// Box of a one-line label at a spot.
pub fn label_box(text: &str, size: f64, s: Spot) -> Rect {
    let w = text_width(text, size);
    let x = match s.anchor {
        Anchor::Start => s.x,
        Anchor::Middle => s.x - w / 2.0,
        Anchor::End => s.x - w,
    };
    Rect { x, y: s.y - size * 0.8, w, h: size }
}

/// Formats a pixel coordinate.
pub fn n(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// "1e-3" .. "1e4" as a readable tick label.
fn decade_label(k: i32, unit: Unit) -> String {
    match unit {
        Unit::FlopPerByte => {
            if (-3..=4).contains(&k) {
                let v = 10f64.powi(k);
                if k < 0 {
                    format!("{v:.*}", (-k) as usize)
                } else {
                    format!("{v:.0}")
                }
            } else {
                format!("1e{k}")
            }
        }
        _ => {
            let prefixes = ["", "k", "M", "G", "T", "P", "E"];
            if (0..21).contains(&k) {
                let p = (k / 3) as usize;
                let m = 10i64.pow((k % 3) as u32);
                format!("{m} {}{}", prefixes[p], unit.symbol())
            } else {
                format!("1e{k} {}", unit.symbol())
            }
        }
    }
}

/// Log-log mapping from data to pixels.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    pub plot: Rect,
    pub lx: (f64, f64),
    pub ly: (f64, f64),
}

impl Frame {
    pub fn px(&self, x: f64) -> f64 {
        self.plot.x + (x.log10() - self.lx.0) / (self.lx.1 - self.lx.0) * self.plot.w
    }
    pub fn py(&self, y: f64) -> f64 {
        self.plot.y + self.plot.h - (y.log10() - self.ly.0) / (self.ly.1 - self.ly.0) * self.plot.h
    }
    fn x_at(&self, px: f64) -> f64 {
        10f64.powf(self.lx.0 + (px - self.plot.x) / self.plot.w * (self.lx.1 - self.lx.0))
    }
    fn x_max(&self) -> f64 {
        10f64.powf(self.lx.1)
    }
    fn x_min(&self) -> f64 {
        10f64.powf(self.lx.0)
    }
    fn y_min(&self) -> f64 {
        10f64.powf(self.ly.0)
    }
}

/// Data extents a chart must show.
#[derive(Debug, Clone, Default)]
pub struct Extent {
    pub xs: Vec<f64>,
    pub ys: Vec<f64>,
}

impl Extent {
    pub fn push(&mut self, x: f64, y: f64) {
        if x.is_finite() && x > 0.0 && y.is_finite() && y > 0.0 {
            self.xs.push(x);
            self.ys.push(y);
        }
    }
}

fn decade_floor(v: f64) -> f64 {
    v.log10().floor()
}
fn decade_ceil(v: f64) -> f64 {
    v.log10().ceil()
}

/// A chart under construction: the frame, the SVG body and every box
/// placed so far (labels and markers), for overlap-free placement.
pub struct Canvas {
    pub frame: Frame,
    pub width: f64,
    pub body: String,
    pub placed: Vec<Rect>,
    /// Boxes of each text label (tests check that labels do not overlap).
    pub label_boxes: Vec<Vec<Rect>>,
    /// Bottom of everything drawn so far below the plot.
    pub bottom: f64,
}

const FONT: &str = "font-family=\"sans-serif\"";

impl Canvas {
    /// Places a one-line label at the first spot that overlaps nothing and
    /// stays inside `bounds`; falls back to the first spot. Returns the
    /// spot used.
    pub fn place_label(&mut self, text: &str, size: f64, spots: &[Spot], bounds: &Rect, attrs: &str) -> Spot {
        self.place(text, size, spots, bounds, attrs, true).unwrap_or(spots[0])
    }

    /// Places a label only where it overlaps nothing; `None` (and nothing
    /// drawn) when every spot is taken.
    pub fn place_label_if_free(
        &mut self,
        text: &str,
        size: f64,
        spots: &[Spot],
        bounds: &Rect,
        attrs: &str,
    ) -> Option<Spot> {
        self.place(text, size, spots, bounds, attrs, false)
    }

    fn place(
        &mut self,
        text: &str,
        size: f64,
        spots: &[Spot],
        bounds: &Rect,
        attrs: &str,
        always: bool,
    ) -> Option<Spot> {
        // The first spot that overlaps nothing; else (when `always`) the one
        // that overlaps the fewest boxes (the earliest on a tie).
        let score = |s: &Spot| {
            let b = label_box(text, size, *s);
            let hits = self.placed.iter().filter(|p| p.overlaps(&b)).count();
            if b.inside(bounds) {
                hits
            } else {
                hits + 1000
            }
        };
        let mut pick = spots[0];
        let mut best = usize::MAX;
        for s in spots {
            let sc = score(s);
            if sc < best {
                best = sc;
                pick = *s;
            }
            if sc == 0 {
                break;
            }
        }
        if best > 0 && !always {
            return None;
        }
        let b = label_box(text, size, pick);
        self.placed.push(b);
        self.label_boxes.push(vec![b]);
        let _ = writeln!(
            self.body,
            "<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"{}\"{}{attrs}>{}</text>",
            n(pick.x),
            n(pick.y),
            n(size),
            pick.anchor.attr(),
            if attrs.is_empty() { "" } else { " " },
            escape(text)
        );
        Some(pick)
    }

    /// Starts a chart for `machine` showing `extent`, with the machine's
    /// ceilings, ridge points and axes drawn. `ridge_roofs` are the compute
    /// roofs (FLOP/s) whose ridge points are marked.
    ///
    /// With `fit_all_ceilings` the axes reach the highest ceiling; without,
    /// only the roofs in `ridge_roofs` (a zoom on the data, for diffs).
    pub fn new(
        machine: &Machine,
        extent: &Extent,
        ridge_roofs: &[f64],
        fit_all_ceilings: bool,
        opts: &ChartOptions,
        title: &str,
        subtitle: &str,
    ) -> Canvas {
        let compute: Vec<f64> = machine.compute().map(|c| c.rate).filter(|v| *v > 0.0).collect();
        let bw: Vec<f64> = machine.bandwidth().map(|b| b.rate).filter(|v| *v > 0.0).collect();
        let top_pi = compute.iter().copied().fold(0.0, f64::max);
        let max_bw = bw.iter().copied().fold(0.0, f64::max);
        let min_bw = bw.iter().copied().fold(f64::INFINITY, f64::min);

        let mut xs = extent.xs.clone();
        let mut ys = extent.ys.clone();
        for &pi in ridge_roofs {
            for &b in &bw {
                xs.push(pi / b);
            }
        }
        if fit_all_ceilings && top_pi > 0.0 && max_bw > 0.0 {
            xs.push(top_pi / max_bw);
        }
        if fit_all_ceilings && top_pi > 0.0 {
            ys.push(top_pi);
        }
        ys.extend(ridge_roofs.iter().copied());
        let (mut x0, mut x1) = (f64::INFINITY, 0.0f64);
        for &x in &xs {
            x0 = x0.min(x);
            x1 = x1.max(x);
        }
        if !x0.is_finite() || x1 <= 0.0 {
            (x0, x1) = (0.01, 100.0);
        }
        let mut lx = (decade_floor(x0 / 2.0), decade_ceil(x1 * 2.0));
        while lx.1 - lx.0 < 4.0 {
            lx = (lx.0 - 1.0, lx.1 + 1.0);
        }
        let (mut y0, mut y1) = (f64::INFINITY, 0.0f64);
        for &y in &ys {
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        if extent.ys.is_empty() && min_bw.is_finite() {
            y0 = y0.min(min_bw * 10f64.powf(lx.0 + 1.0));
        }
        if !y0.is_finite() || y1 <= 0.0 {
            (y0, y1) = (1e9, 1e12);
        }
        let mut ly = (decade_floor(y0 / 2.0), decade_ceil(y1 * 2.0));
        while ly.1 - ly.0 < 3.0 {
            ly.0 -= 1.0;
        }

        let tick_w = (ly.0 as i32..=ly.1 as i32)
            .map(|k| text_width(&decade_label(k, Unit::FlopPerSecond), 11.0))
            .fold(0.0, f64::max);
        let left = (tick_w + 34.0).ceil();
        let plot = Rect { x: left, y: 58.0, w: opts.width - left - 20.0, h: opts.plot_height };
        let frame = Frame { plot, lx, ly };
        let mut c = Canvas {
            frame,
            width: opts.width,
            body: String::new(),
            placed: Vec::new(),
            label_boxes: Vec::new(),
            bottom: 0.0,
        };

        // Title.
        let _ = writeln!(
            c.body,
            "<text x=\"{}\" y=\"24\" font-size=\"16\" font-weight=\"bold\">{}</text>",
            n(left),
            escape(title)
        );
        let _ = writeln!(
            c.body,
            "<text x=\"{}\" y=\"43\" font-size=\"12\" fill=\"#444\">{}</text>",
            n(left),
            escape(subtitle)
        );

        // Grid and ticks.
        let _ = writeln!(c.body, "<g class=\"grid\" stroke=\"#e6e6e6\" stroke-width=\"1\">");
        for k in lx.0 as i32..lx.1 as i32 {
            for m in 2..10 {
                let x = frame.px(m as f64 * 10f64.powi(k));
                let _ = writeln!(
                    c.body,
                    "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#f3f3f3\"/>",
                    n(x),
                    n(plot.y),
                    n(plot.y + plot.h)
                );
            }
        }
        for k in ly.0 as i32..ly.1 as i32 {
            for m in 2..10 {
                let y = frame.py(m as f64 * 10f64.powi(k));
                let _ = writeln!(
                    c.body,
                    "<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\" stroke=\"#f3f3f3\"/>",
                    n(y),
                    n(plot.x),
                    n(plot.x + plot.w)
                );
            }
        }
        for k in lx.0 as i32..=lx.1 as i32 {
            let x = frame.px(10f64.powi(k));
            let _ = writeln!(
                c.body,
                "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>",
                n(x),
                n(plot.y),
                n(plot.y + plot.h)
            );
        }
        for k in ly.0 as i32..=ly.1 as i32 {
            let y = frame.py(10f64.powi(k));
            let _ = writeln!(
                c.body,
                "<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\"/>",
                n(y),
                n(plot.x),
                n(plot.x + plot.w)
            );
        }
        let _ = writeln!(c.body, "</g>");
        let _ = writeln!(
            c.body,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333\"/>",
            n(plot.x),
            n(plot.y),
            n(plot.w),
            n(plot.h)
        );
        let _ = writeln!(c.body, "<g class=\"ticks\" font-size=\"11\" fill=\"#333\">");
        for k in lx.0 as i32..=lx.1 as i32 {
            let x = frame.px(10f64.powi(k));
            let _ = writeln!(
                c.body,
                "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333\"/><text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>",
                n(x),
                n(plot.y + plot.h),
                n(plot.y + plot.h + 5.0),
                n(plot.y + plot.h + 18.0),
                escape(&decade_label(k, Unit::FlopPerByte))
            );
        }
        for k in ly.0 as i32..=ly.1 as i32 {
            let y = frame.py(10f64.powi(k));
            let _ = writeln!(
                c.body,
                "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#333\"/><text x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>",
                n(plot.x - 5.0),
                n(y),
                n(plot.x),
                n(plot.x - 8.0),
                n(y + 4.0),
                escape(&decade_label(k, Unit::FlopPerSecond))
            );
        }
        let _ = writeln!(c.body, "</g>");
        let _ = writeln!(
            c.body,
            "<text x=\"{}\" y=\"{}\" font-size=\"13\" text-anchor=\"middle\">Arithmetic intensity (FLOP/byte, log scale)</text>",
            n(plot.x + plot.w / 2.0),
            n(plot.y + plot.h + 38.0)
        );
        let _ = writeln!(
            c.body,
            "<text transform=\"translate(14 {}) rotate(-90)\" font-size=\"13\" text-anchor=\"middle\">Performance (FLOP/s, log scale)</text>",
            n(plot.y + plot.h / 2.0)
        );
        c.bottom = plot.y + plot.h + 48.0;

        let _ = writeln!(
            c.body,
            "<defs><clipPath id=\"plot-clip\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath></defs>",
            n(plot.x),
            n(plot.y),
            n(plot.w),
            n(plot.h)
        );
        c.draw_ceilings(machine, ridge_roofs);
        c
    }

    fn draw_ceilings(&mut self, machine: &Machine, ridge_roofs: &[f64]) {
        let f = self.frame;
        let plot = f.plot;
        let top_pi = machine.compute().map(|c| c.rate).fold(0.0, f64::max);
        let max_bw = machine.bandwidth().filter(|b| !b.secondary).map(|b| b.rate).fold(0.0, f64::max);
        let dash = |o: Origin| matches!(o, Origin::Theoretical | Origin::Derived);

        let _ = writeln!(self.body, "<g class=\"ceilings\" clip-path=\"url(#plot-clip)\" fill=\"none\">");
        // Bandwidth: y = beta x from the left edge up to the top compute roof.
        for b in machine.bandwidth() {
            if b.rate <= 0.0 {
                continue;
            }
            let xa = f.x_min().max(f.y_min() / b.rate);
            let xb = if top_pi > 0.0 { (top_pi / b.rate).min(f.x_max()) } else { f.x_max() };
            if xb <= xa {
                continue;
            }
            let _ = writeln!(
                self.body,
                "<line class=\"roof bw\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{}><title>{}</title></line>",
                n(f.px(xa)),
                n(f.py(b.rate * xa)),
                n(f.px(xb)),
                n(f.py(b.rate * xb)),
                level_colour(b.resource.mem_level().unwrap_or(MemLevel::Dram)),
                if b.secondary { "1" } else { "2" },
                if dash(b.provenance.origin) { " stroke-dasharray=\"7 4\"" } else { "" },
                escape(&format!(
                    "{}: {} ({})",
                    b.name,
                    b.formatted(),
                    b.provenance.describe()
                ))
            );
        }
        // Compute: flat, from where it meets the fastest memory roof.
        for c in machine.compute() {
            if c.rate <= 0.0 {
                continue;
            }
            let xa = if max_bw > 0.0 { (c.rate / max_bw).max(f.x_min()) } else { f.x_min() };
            let y = f.py(c.rate);
            let _ = writeln!(
                self.body,
                "<line class=\"roof flops\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"{4}\"{5}><title>{6}</title></line>",
                n(f.px(xa)),
                n(y),
                n(plot.x + plot.w),
                if c.secondary { "#8a8a8a" } else { "#222" },
                if c.secondary { "1" } else { "2" },
                if dash(c.provenance.origin) { " stroke-dasharray=\"7 4\"" } else { "" },
                escape(&format!(
                    "{}: {} ({})",
                    c.name,
                    c.formatted(),
                    c.provenance.describe()
                ))
            );
        }
        let _ = writeln!(self.body, "</g>");

        // Ridge points: every primary bandwidth roof against each roof asked for.
        let mut ridges: Vec<(f64, f64, String)> = Vec::new();
        for &pi in ridge_roofs {
            for level in MemLevel::ALL {
                if let Some(b) = machine.bandwidth_roof(level) {
                    let x = pi / b.rate;
                    if x > f.x_min()
                        && x < f.x_max()
                        && !ridges.iter().any(|r| (r.0 / x - 1.0).abs() < 1e-9 && r.1 == pi)
                    {
                        ridges.push((x, pi, b.resource.label().to_string()));
                    }
                }
            }
        }
        let _ = writeln!(self.body, "<g class=\"ridges\">");
        for (x, pi, level) in &ridges {
            let (px, py) = (f.px(*x), f.py(*pi));
            let _ = writeln!(
                self.body,
                "<path class=\"ridge\" d=\"M{} {}l5 5l-5 5l-5 -5z\" fill=\"#fff\" stroke=\"#222\" stroke-width=\"1.5\"><title>{}</title></path>",
                n(px),
                n(py - 5.0),
                escape(&format!(
                    "ridge point {} x {}: {} (memory-bound to its left)",
                    format_si(*pi, Unit::FlopPerSecond),
                    level,
                    format_si(*x, Unit::FlopPerByte)
                ))
            );
            self.placed.push(Rect { x: px - 6.0, y: py - 6.0, w: 12.0, h: 12.0 });
        }
        let _ = writeln!(self.body, "</g>");
    }

    /// Labels every ceiling with its value, avoiding everything placed so
    /// far (call it after the markers are placed, before their labels).
    pub fn label_roofs(&mut self, machine: &Machine) {
        let f = self.frame;
        let plot = f.plot;
        let top_pi = machine.compute().map(|c| c.rate).fold(0.0, f64::max);
        let max_bw = machine.bandwidth().filter(|b| !b.secondary).map(|b| b.rate).fold(0.0, f64::max);
        // Compute labels: right-aligned above their lines; ceilings with the
        // same value share a label.
        let mut groups: Vec<(f64, Unit, Vec<String>)> = Vec::new();
        let mut sorted: Vec<&roofline_core::Ceiling> = machine.compute().filter(|c| c.rate > 0.0).collect();
        sorted.sort_by(|a, b| b.rate.total_cmp(&a.rate).then(a.secondary.cmp(&b.secondary)));
        for c in sorted {
            match groups.iter_mut().find(|g| (g.0 / c.rate - 1.0).abs() < 0.005 && g.1 == c.unit()) {
                Some(g) => g.2.push(c.name.clone()),
                None => groups.push((c.rate, c.unit(), vec![c.name.clone()])),
            }
        }
        let _ = writeln!(self.body, "<g class=\"roof-labels\" fill=\"#222\">");
        let bounds = Rect { x: plot.x + 2.0, y: plot.y + 1.0, w: plot.w - 4.0, h: plot.h - 2.0 };
        for (v, unit, names) in &groups {
            let text = format!("{}: {}", names.join(", "), format_si(*v, *unit));
            let y = f.py(*v);
            let xr = plot.x + plot.w - 4.0;
            // Along the line from its right end (above it, then below it),
            // then stacked above the right end.
            let w = text_width(&text, 11.0);
            let start = if max_bw > 0.0 { f.px((*v / max_bw).max(f.x_min())) } else { plot.x };
            let mut spots = Vec::new();
            for dy in [-4.0, 13.0] {
                for k in 0..30 {
                    let x = xr - 24.0 * k as f64;
                    if x - w < plot.x + 4.0 || x < start + 30.0 {
                        break;
                    }
                    spots.push(Spot { x, y: y + dy, anchor: Anchor::End });
                }
            }
            for i in 1..12 {
                spots.push(Spot { x: xr - 6.0, y: y - 4.0 - 12.0 * i as f64, anchor: Anchor::End });
                spots.push(Spot { x: xr - 6.0, y: y + 13.0 + 12.0 * i as f64, anchor: Anchor::End });
            }
            if spots.is_empty() {
                spots.push(Spot { x: xr, y: y - 4.0, anchor: Anchor::End });
            }
            if y < plot.y || y > plot.y + plot.h {
                continue;
            }
            let spot = self.place_label(&text, 11.0, &spots, &bounds, "");
            // A label moved off its line points at it.
            if spot.x == xr - 6.0 {
                let yl = if spot.y < y { spot.y + 2.0 } else { spot.y - 10.0 };
                let _ = writeln!(
                    self.body,
                    "<path d=\"M{0} {1}H{2}V{3}\" fill=\"none\" stroke=\"#777\" stroke-width=\"0.8\"/>",
                    n(xr - 4.0),
                    n(yl - 4.0),
                    n(xr - 1.0),
                    n(y)
                );
            }
        }
        let _ = writeln!(self.body, "</g>");

        // Bandwidth labels along their lines, rotated, near where each
        // line enters the plot, slid along the line until free.
        let slope = -(f.plot.h / (f.ly.1 - f.ly.0)) / (f.plot.w / (f.lx.1 - f.lx.0));
        let angle = slope.atan().to_degrees();
        let _ = writeln!(self.body, "<g class=\"bw-labels\">");
        // Secondary bandwidth roofs (a benchmark's other kernels: write,
        // copy, triad) are thin lines with hover titles: labelled too they
        // would bury the primary roof's label.
        for b in machine.bandwidth() {
            if b.rate <= 0.0 || b.secondary {
                continue;
            }
            let text = format!("{}: {}", b.name, b.formatted());
            let w = text_width(&text, 11.0);
            let xa = f.x_min().max(f.y_min() / b.rate);
            let start = f.px(xa);
            let (cos, sin) = (angle.to_radians().cos(), angle.to_radians().sin());
            // A rotated label is tested as a chain of small squares along
            // its baseline, which hugs the slanted text far better than its
            // bounding box.
            let tiles = |px: f64, py: f64| -> Vec<Rect> {
                let count = (w / 9.0).ceil() as usize;
                (0..count)
                    .map(|t| {
                        let along = 9.0 * t as f64 + 4.5;
                        let cx = px + cos * along + sin * 4.0;
                        let cy = py + sin * along - cos * 4.0;
                        Rect { x: cx - 4.5, y: cy - 4.5, w: 9.0, h: 9.0 }
                    })
                    .collect()
            };
            let mut best: Option<(usize, f64, f64, Vec<Rect>)> = None;
            for step in 0..40 {
                let px = start + 14.0 + 16.0 * step as f64;
                let y_data = b.rate * f.x_at(px);
                if top_pi > 0.0 && y_data > top_pi {
                    break;
                }
                let py = f.py(y_data) - 4.0;
                let bx = tiles(px, py);
                if !bx.iter().all(|t| t.inside(&bounds)) {
                    continue;
                }
                let hits = bx.iter().filter(|t| self.placed.iter().any(|p| p.overlaps(t))).count();
                if best.as_ref().is_none_or(|b| hits < b.0) {
                    best = Some((hits, px, py, bx));
                }
                if hits == 0 {
                    break;
                }
            }
            let Some((_, px, py, bx)) = best else {
                continue;
            };
            self.placed.extend(bx.iter().copied());
            self.label_boxes.push(bx);
            let _ = writeln!(
                self.body,
                "<text x=\"{0}\" y=\"{1}\" font-size=\"11\" fill=\"{2}\" transform=\"rotate({3} {0} {1})\">{4}</text>",
                n(px),
                n(py),
                level_colour(b.resource.mem_level().unwrap_or(MemLevel::Dram)),
                n(angle),
                escape(&text)
            );
        }
        let _ = writeln!(self.body, "</g>");
    }

    /// Writes the legend: one row of entries, wrapped to the width.
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
                Symbol::Marker { shape, fill, stroke, r } => marker_path(*shape, cx, cy, *r, fill, stroke, ""),
                Symbol::Line { colour, dashed } => format!(
                    "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{1}\" stroke=\"{}\" stroke-width=\"2\"{}/>",
                    n(x),
                    n(cy),
                    n(x + 16.0),
                    colour,
                    if *dashed { " stroke-dasharray=\"5 3\"" } else { "" }
                ),
                Symbol::Arrow => format!(
                    "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{1}\" stroke=\"#333\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>",
                    n(x),
                    n(cy),
                    n(x + 14.0)
                ),
            };
            let _ = writeln!(self.body, "{sym}<text x=\"{}\" y=\"{}\">{}</text>", n(x + 22.0), n(y), escape(&e.text));
            x += w;
        }
        let _ = writeln!(self.body, "</g>");
        self.bottom = y + 8.0;
    }

    /// Writes notes under the legend, wrapped to the width.
    pub fn notes(&mut self, notes: &[String]) {
        let max_w = self.width - self.frame.plot.x - 20.0;
        let mut y = self.bottom + 8.0;
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

    /// The finished SVG document.
    pub fn finish(self, class: &str, aria: &str) -> String {
        let h = (self.bottom + 12.0).ceil();
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"{class}\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" {FONT} role=\"img\" aria-label=\"{}\">\n<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0 0L10 5L0 10z\" fill=\"#333\"/></marker></defs>\n<rect width=\"{w}\" height=\"{h}\" fill=\"#fff\"/>\n{}</svg>\n",
            escape(aria),
            self.body,
            w = n(self.width),
            h = n(h),
        )
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

/// Colour of a memory level's roof.
pub fn level_colour(l: MemLevel) -> &'static str {
    match l {
        MemLevel::Dram => "#5b3a8c",
        MemLevel::L2 => "#1b7f5b",
        MemLevel::L1 => "#a0781e",
    }
}

/// Marker shape per memory level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    Circle,
    Square,
    Triangle,
}

pub fn level_shape(l: MemLevel) -> Shape {
    match l {
        MemLevel::Dram => Shape::Circle,
        MemLevel::L2 => Shape::Square,
        MemLevel::L1 => Shape::Triangle,
    }
}

/// One marker as SVG (a self-closed element; `extra` adds attributes).
pub fn marker_path(shape: Shape, x: f64, y: f64, r: f64, fill: &str, stroke: &str, extra: &str) -> String {
    let paint = format!("fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1.5\"{extra}");
    match shape {
        Shape::Circle => format!("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" {paint}/>", n(x), n(y), n(r)),
        Shape::Square => {
            let s = r * 0.9;
            format!("<rect x=\"{}\" y=\"{}\" width=\"{2}\" height=\"{2}\" {paint}/>", n(x - s), n(y - s), n(2.0 * s))
        }
        Shape::Triangle => {
            let s = r * 1.15;
            format!(
                "<path d=\"M{} {}L{} {}L{} {}z\" {paint}/>",
                n(x),
                n(y - s),
                n(x + s * 0.87),
                n(y + s * 0.5),
                n(x - s * 0.87),
                n(y + s * 0.5)
            )
        }
    }
}

/// What a legend entry shows.
pub enum Symbol {
    Marker { shape: Shape, fill: String, stroke: String, r: f64 },
    Line { colour: String, dashed: bool },
    Arrow,
}

pub struct LegendEntry {
    pub symbol: Symbol,
    pub text: String,
}

impl LegendEntry {
    pub fn marker(shape: Shape, fill: &str, stroke: &str, text: &str) -> LegendEntry {
        LegendEntry {
            symbol: Symbol::Marker { shape, fill: fill.into(), stroke: stroke.into(), r: 5.0 },
            text: text.into(),
        }
    }
    pub fn line(colour: &str, dashed: bool, text: &str) -> LegendEntry {
        LegendEntry { symbol: Symbol::Line { colour: colour.into(), dashed }, text: text.into() }
    }
}

/// Marker radius for a share of GPU time (area grows with the share).
pub fn radius(share: Option<f64>) -> f64 {
    match share {
        Some(s) if s.is_finite() && s > 0.0 => 4.0 + 11.0 * s.min(1.0).sqrt(),
        _ => 5.0,
    }
}

/// The bound a kernel's marker is coloured by: none when the machine has
/// no roof to judge it against (a FLOP kind with no ceiling).
pub fn judged_bound(a: &KernelAnalysis) -> Option<Bound> {
    a.attainable_flops_per_s.and(a.bound)
}

/// The y a kernel is drawn at: achieved FLOP/s, or for an estimate with no
/// time, the roof it could reach (drawn hollow).
pub fn plotted_y(a: &KernelAnalysis) -> Option<(f64, bool)> {
    a.achieved_flops_per_s
        .filter(|v| *v > 0.0)
        .map(|v| (v, true))
        .or_else(|| a.attainable_flops_per_s.filter(|v| *v > 0.0).map(|v| (v, false)))
}

/// The name shown for a kernel.
pub fn kernel_label(a: &KernelAnalysis) -> String {
    if a.kernel.display_name.is_empty() {
        a.kernel.name.clone()
    } else {
        a.kernel.display_name.clone()
    }
}

/// The hover text of one point.
pub fn point_title(a: &KernelAnalysis, level: MemLevel) -> String {
    let mut s = format!("{} [{}]", kernel_label(a), level.label());
    if let Some(p) = a.level(level) {
        if let Some(i) = p.intensity {
            s.push_str(&format!("\nintensity at {}: {}", level.label(), format_si(i, Unit::FlopPerByte)));
        }
        s.push_str(&format!("\nbytes at {}: {}", level.label(), format_si(p.bytes, Unit::Byte)));
        if let Some(v) = p.pct_of_bandwidth {
            s.push_str(&format!("\n{} of {} bandwidth", format_percent(v), level.label()));
        }
    }
    if let Some(t) = a.kernel.duration_s {
        s.push_str(&format!("\ntime: {}", format_seconds(t)));
    }
    if let Some(sh) = a.time_share {
        s.push_str(&format!(" ({} of GPU time)", format_percent(100.0 * sh)));
    }
    let unit = crate::documents::analysis::rate_unit(a);
    match a.achieved_flops_per_s {
        Some(v) => s.push_str(&format!("\nachieved: {}", format_si(v, unit))),
        None => s.push_str("\nno time: drawn at the roof it could reach"),
    }
    if let Some(r) = a.attainable_flops_per_s {
        s.push_str(&format!("\nroof: {}", format_si(r, unit)));
    }
    if let Some(p) = a.pct_of_roof {
        s.push_str(&format!(" ({} of roof)", format_percent(p)));
    }
    if let Some(b) = a.bound {
        s.push_str(&format!("\n{}-bound", b.label()));
    }
    if let Some(d) = &a.diagnosis {
        s.push_str(&format!(", {}", d.position.label()));
    }
    s
}

/// Compute roofs whose ridge points a chart of these kernels marks: each
/// kernel's own roof, or the primary FP32 roof (else the highest primary
/// roof) when no kernel has one.
pub fn ridge_roofs(machine: &Machine, kernels: &[&KernelAnalysis]) -> Vec<f64> {
    let mut out: Vec<f64> = Vec::new();
    for a in kernels {
        if let Some(r) = a.compute_roof_flops_per_s {
            if !out.iter().any(|x| (x / r - 1.0).abs() < 1e-9) {
                out.push(r);
            }
        }
    }
    if out.is_empty() {
        let fallback = machine
            .compute_roof(roofline_core::FlopKind::Fp32)
            .or_else(|| machine.compute().filter(|c| !c.secondary).max_by(|a, b| a.rate.total_cmp(&b.rate)));
        if let Some(c) = fallback {
            out.push(c.rate);
        }
    }
    out.sort_by(f64::total_cmp);
    out
}

/// Notes a chart of `doc` must carry: kernels it cannot draw and FLOP kinds
/// the machine has no ceiling for.
pub fn chart_notes(doc: &AnalysisDocument) -> Vec<String> {
    let mut notes = Vec::new();
    let m = &doc.machine;
    if m.compute().all(|c| c.rate <= 0.0) {
        notes.push(format!(
            "{} has no compute ceiling: no flat roof is drawn and no kernel is judged against one",
            m.name
        ));
    }
    if m.bandwidth().all(|b| b.rate <= 0.0) {
        notes.push(format!("{} has no bandwidth ceiling: no slanted roof is drawn", m.name));
    }
    for a in &doc.kernels {
        if !a.missing_ceilings.is_empty() {
            notes.push(format!(
                "{} has no ceiling for {} FLOPs: {} is judged without {}; add the ceiling (roofline bench, or a machine JSON)",
                doc.machine.name,
                a.missing_ceilings.iter().map(|k| k.label()).collect::<Vec<_>>().join(", "),
                kernel_label(a),
                if a.missing_ceilings.len() == 1 { "it" } else { "them" }
            ));
        }
        if let Some(c) = &a.collective {
            notes.push(format!(
                "{}: a collective, judged against the interconnect, not this chart: see Communication{}",
                kernel_label(a),
                c.pct_of_roof.map(|p| format!(" ({} of its link roof)", format_percent(p))).unwrap_or_default()
            ));
        } else if a.total_flops <= 0.0 {
            notes.push(format!(
                "{}: no FLOPs, so no intensity: not on the chart{}",
                kernel_label(a),
                a.pct_of_roof.map(|p| format!(" ({} of its bandwidth roof)", format_percent(p))).unwrap_or_default()
            ));
        } else if plotted_y(a).is_none() {
            notes.push(format!("{}: no time and no roof to draw it at: not on the chart", kernel_label(a)));
        }
    }
    notes
}

/// Beyond this many kernels, only the ones with the most GPU time carry a
/// name on the chart; the rest are named on hover.
pub const MAX_KERNEL_LABELS: usize = 24;

/// A placed marker: centre and radius in pixels.
type Marker = (f64, f64, f64);

/// The roofline chart of an analysis.
pub fn roofline_svg(doc: &AnalysisDocument, opts: &ChartOptions) -> String {
    roofline_chart(doc, opts).0
}

/// The chart and the boxes of its labels (for tests).
pub fn roofline_chart(doc: &AnalysisDocument, opts: &ChartOptions) -> (String, Vec<Vec<Rect>>) {
    let m = &doc.machine;
    let mut extent = Extent::default();
    for a in &doc.kernels {
        if let Some((y, _)) = plotted_y(a) {
            for p in &a.levels {
                if let Some(i) = p.intensity {
                    extent.push(i, y);
                }
            }
        }
    }
    let kernels: Vec<&KernelAnalysis> = doc.kernels.iter().collect();
    let title = opts.title.clone().unwrap_or_else(|| format!("Roofline of {}", m.name));
    let timed = doc.kernels.iter().filter(|a| a.kernel.duration_s.is_some()).count();
    let subtitle = format!(
        "{} kernel{} ({} timed), from {}{}",
        doc.kernels.len(),
        if doc.kernels.len() == 1 { "" } else { "s" },
        timed,
        doc.source.kind,
        if doc.source.detail.is_empty() { String::new() } else { format!(": {}", short_label(&doc.source.detail, 60)) }
    );
    let mut c = Canvas::new(m, &extent, &ridge_roofs(m, &kernels), true, opts, &title, &subtitle);
    let f = c.frame;

    // Markers first (biggest share first, so small ones are drawn on top),
    // then labels, so labels avoid every marker.
    let mut order: Vec<usize> = (0..doc.kernels.len()).collect();
    order.sort_by(|&a, &b| {
        let s = |i: usize| doc.kernels[i].time_share.unwrap_or(0.0);
        s(b).total_cmp(&s(a)).then(a.cmp(&b))
    });
    // (kernel, its markers as (x, y, radius), left to right)
    let mut anchors: Vec<(usize, Vec<Marker>)> = Vec::new();
    let _ = writeln!(c.body, "<g class=\"points\">");
    for &i in &order {
        let a = &doc.kernels[i];
        let Some((y, timed)) = plotted_y(a) else {
            continue;
        };
        let pts: Vec<(MemLevel, f64)> = a.levels.iter().filter_map(|p| p.intensity.map(|x| (p.level, x))).collect();
        if pts.is_empty() {
            continue;
        }
        let colour = bound_colour(judged_bound(a));
        let r = radius(a.time_share);
        let py = f.py(y);
        let _ = writeln!(c.body, "<g class=\"kernel\" data-k=\"{i}\">");
        if pts.len() > 1 {
            let xs: Vec<f64> = pts.iter().map(|p| f.px(p.1)).collect();
            let (lo, hi) = (xs.iter().copied().fold(f64::INFINITY, f64::min), xs.iter().copied().fold(0.0, f64::max));
            let _ = writeln!(c.body, "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"1.5\" opacity=\"0.7\"/>", n(lo), n(py), n(hi), colour);
        }
        let mut spots = Vec::new();
        for (level, x) in &pts {
            let px = f.px(*x);
            let fill = if timed { colour.to_string() } else { "#ffffff".to_string() };
            let extra = format!(
                " class=\"pt\" data-k=\"{i}\" data-level=\"{0}\" data-tip=\"{i}-{0}\" fill-opacity=\"{1}\"",
                level.key(),
                if timed { "0.8" } else { "1" }
            );
            let mut el = marker_path(level_shape(*level), px, py, r, &fill, colour, &extra);
            el.truncate(el.len() - 2);
            let _ = writeln!(
                c.body,
                "{el}><title>{}</title></{}>",
                escape(&point_title(a, *level)),
                match level_shape(*level) {
                    Shape::Circle => "circle",
                    Shape::Square => "rect",
                    Shape::Triangle => "path",
                }
            );
            c.placed.push(Rect { x: px - r, y: py - r, w: 2.0 * r, h: 2.0 * r });
            spots.push((px, py, r));
        }
        let _ = writeln!(c.body, "</g>");
        spots.sort_by(|a, b| a.0.total_cmp(&b.0));
        anchors.push((i, spots));
    }
    let _ = writeln!(c.body, "</g>");

    c.label_roofs(m);
    let bounds = Rect { x: f.plot.x + 2.0, y: f.plot.y + 2.0, w: f.plot.w - 4.0, h: f.plot.h - 4.0 };
    let _ = writeln!(c.body, "<g class=\"kernel-labels\" fill=\"#111\">");
    let mut unlabelled = anchors.len().saturating_sub(MAX_KERNEL_LABELS);
    for (i, spots) in anchors.iter().take(MAX_KERNEL_LABELS) {
        let a = &doc.kernels[*i];
        let text = short_label(&kernel_label(a), 32);
        let mut cands = Vec::new();
        for &(x, y, r) in spots {
            cands.extend([
                Spot { x: x + r + 4.0, y: y + 4.0, anchor: Anchor::Start },
                Spot { x: x - r - 4.0, y: y + 4.0, anchor: Anchor::End },
                Spot { x, y: y - r - 5.0, anchor: Anchor::Middle },
                Spot { x, y: y + r + 13.0, anchor: Anchor::Middle },
                Spot { x: x + r + 2.0, y: y - r - 3.0, anchor: Anchor::Start },
                Spot { x: x + r + 2.0, y: y + r + 11.0, anchor: Anchor::Start },
            ]);
        }
        let (x, y, r) = spots[0];
        for d in 1..8 {
            let off = r + 5.0 + 13.0 * d as f64;
            cands.push(Spot { x, y: y - off, anchor: Anchor::Middle });
            cands.push(Spot { x, y: y + off + 8.0, anchor: Anchor::Middle });
        }
        let Some(spot) = c.place_label_if_free(&text, 11.0, &cands, &bounds, &format!("data-k=\"{i}\"")) else {
            unlabelled += 1;
            continue;
        };
        // A label pushed away from its marker gets a leader line.
        let b = label_box(&text, 11.0, spot);
        let (cx, cy) = (b.x + b.w / 2.0, b.y + b.h / 2.0);
        let dist = ((cx - x).powi(2) + (cy - y).powi(2)).sqrt();
        if dist > r + b.w / 2.0 + 14.0 && (spot.y - y).abs() > r + 14.0 {
            let ty = if spot.y < y { b.y + b.h } else { b.y };
            let _ = writeln!(
                c.body,
                "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#999\" stroke-width=\"0.8\"/>",
                n(x),
                n(if spot.y < y { y - r } else { y + r }),
                n(cx),
                n(ty)
            );
        }
    }
    let _ = writeln!(c.body, "</g>");

    let mut legend = vec![
        LegendEntry::marker(
            Shape::Circle,
            bound_colour(Some(Bound::Memory)),
            bound_colour(Some(Bound::Memory)),
            "memory-bound",
        ),
        LegendEntry::marker(
            Shape::Circle,
            bound_colour(Some(Bound::Compute)),
            bound_colour(Some(Bound::Compute)),
            "compute-bound",
        ),
    ];
    if doc.kernels.iter().any(|a| judged_bound(a).is_none() && plotted_y(a).is_some()) {
        legend.push(LegendEntry::marker(Shape::Circle, bound_colour(None), bound_colour(None), "no roof to judge by"));
    }
    for level in MemLevel::ALL {
        if doc.kernels.iter().any(|a| a.level(level).is_some_and(|p| p.intensity.is_some())) {
            legend.push(LegendEntry::marker(level_shape(level), "#fff", "#222", &format!("{} point", level.label())));
        }
    }
    if doc.kernels.iter().any(|a| a.achieved_flops_per_s.is_none() && a.attainable_flops_per_s.is_some()) {
        legend.push(LegendEntry::marker(Shape::Circle, "#fff", "#0072b2", "hollow: no time, drawn at its roof"));
    }
    legend.push(LegendEntry::line("#222", true, "theoretical ceiling"));
    legend.push(LegendEntry::line("#222", false, "measured or given ceiling"));
    legend.push(LegendEntry {
        symbol: Symbol::Marker { shape: Shape::Circle, fill: "#fff".into(), stroke: "#222".into(), r: 4.0 },
        text: "marker area: share of GPU time".into(),
    });
    c.legend(&legend);
    let mut notes = chart_notes(doc);
    if unlabelled > 0 {
        notes.push(format!(
            "{unlabelled} of {} kernels are not named on the chart (at most {MAX_KERNEL_LABELS} names, by GPU time, where they fit): hover a point, or see the table",
            anchors.len()
        ));
    }
    if !notes.is_empty() {
        c.notes(&notes);
    }
    let boxes = c.label_boxes.clone();
    (c.finish("roofline-chart", &format!("Roofline chart of {} kernels on {}", doc.kernels.len(), m.name)), boxes)
}
