//! Where the labels of a chart go, without a font and without overlaps.
//!
//! Text is measured with a fixed table of advance widths (Arial's, which
//! Helvetica and Liberation Sans share) and a margin, so the layout is the
//! same on every machine and can be snapshot-tested; the page's script
//! measures the real font and lays out again when it differs. A label
//! covers its font's full ascent and descent, turned with the text when it
//! is rotated (a quadrilateral, tested against others by separating axes),
//! which is what a browser's bounding box of the text measures. Each label
//! has a fixed, finite list of candidate positions (beside its point, then
//! in rings further out with a leader line); the first that overlaps
//! nothing placed before it wins. Boxes are kept in a grid of buckets, so
//! a query looks at its neighbourhood only: the work is bounded by the
//! number of labels times the candidates each, whatever the data.

use std::collections::HashMap;

/// Advance widths of ASCII 32..=126 in 1/1000 em (Arial, Helvetica and
/// Liberation Sans share them).
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

/// The font the charts ask for: the faces whose widths [`text_width`] uses first.
pub const FONT_FAMILY: &str = "Arial, Helvetica, 'Liberation Sans', sans-serif";

/// Width of `text` at `size` px, with a margin for a wider fallback face.
/// Characters outside ASCII count as one em (the ellipsis is one em wide).
pub fn text_width(text: &str, size: f64) -> f64 {
    let units: u32 = text
        .chars()
        .map(|c| match c as u32 {
            i @ 32..=126 => u32::from(WIDTHS[(i - 32) as usize]),
            _ => 1000,
        })
        .sum();
    f64::from(units) / 1000.0 * size * 1.08
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

    /// Whether this box lies inside `o`.
    pub fn inside(&self, o: &Rect) -> bool {
        self.x >= o.x && self.y >= o.y && self.x + self.w <= o.x + o.w && self.y + self.h <= o.y + o.h
    }

    /// A square of half-side `r` around a point.
    pub fn around(x: f64, y: f64, r: f64) -> Rect {
        Rect { x: x - r, y: y - r, w: 2.0 * r, h: 2.0 * r }
    }
}

/// Where a label's text starts from its x.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// Text starts at x.
    Start,
    /// Text is centred on x.
    Middle,
    /// Text ends at x.
    End,
}

impl Anchor {
    /// The SVG `text-anchor` value.
    pub fn attr(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// A label's position: its baseline point, anchor and rotation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spot {
    /// Baseline x.
    pub x: f64,
    /// Baseline y.
    pub y: f64,
    /// How the text hangs from x.
    pub anchor: Anchor,
    /// Rotation about (x, y) in degrees (negative is up).
    pub angle: f64,
}

impl Spot {
    /// An unrotated spot.
    pub fn at(x: f64, y: f64, anchor: Anchor) -> Spot {
        Spot { x, y, anchor, angle: 0.0 }
    }
}

/// The font's ascent above the baseline and its whole height, in ems
/// (Arial: 0.905 and 0.905 + 0.212, with a margin).
pub const ASCENT: f64 = 0.92;
/// See [`ASCENT`].
pub const HEIGHT: f64 = 1.15;

/// A convex quadrilateral: a text's box, turned with it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quad {
    /// Corners, in order around the box.
    pub pts: [(f64, f64); 4],
}

impl Quad {
    /// The corners of a box.
    pub fn of(r: Rect) -> Quad {
        Quad { pts: [(r.x, r.y), (r.x + r.w, r.y), (r.x + r.w, r.y + r.h), (r.x, r.y + r.h)] }
    }

    /// With every coordinate within a million pixels.
    fn held(&self) -> Quad {
        Quad { pts: self.pts.map(|(x, y)| (x.clamp(-1e6, 1e6), y.clamp(-1e6, 1e6))) }
    }

    /// The smallest box holding it.
    pub fn bounds(&self) -> Rect {
        let (mut x0, mut y0, mut x1, mut y1) = (f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
        for (x, y) in self.pts {
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x);
            y1 = y1.max(y);
        }
        Rect { x: x0, y: y0, w: x1 - x0, h: y1 - y0 }
    }

    /// Whether the two share area (by separating axes; touching is not
    /// overlapping).
    pub fn overlaps(&self, o: &Quad) -> bool {
        if !self.bounds().overlaps(&o.bounds()) {
            return false;
        }
        for q in [self, o] {
            for i in 0..4 {
                let (a, b) = (q.pts[i], q.pts[(i + 1) % 4]);
                let (nx, ny) = (b.1 - a.1, a.0 - b.0);
                if nx == 0.0 && ny == 0.0 {
                    continue;
                }
                let proj = |p: &Quad| {
                    p.pts
                        .iter()
                        .map(|v| v.0 * nx + v.1 * ny)
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), d| (lo.min(d), hi.max(d)))
                };
                let ((a0, a1), (b0, b1)) = (proj(self), proj(o));
                let eps = 1e-9 * (nx.abs() + ny.abs());
                if a1 <= b0 + eps || b1 <= a0 + eps {
                    return false;
                }
            }
        }
        true
    }
}

/// The quadrilateral a one-line label covers at a spot: its advance width
/// by the font's height, turned about the spot with the text.
pub fn label_quad(text: &str, size: f64, s: Spot) -> Quad {
    let w = text_width(text, size);
    let start = match s.anchor {
        Anchor::Start => 0.0,
        Anchor::Middle => -w / 2.0,
        Anchor::End => -w,
    };
    let (top, bottom) = (-ASCENT * size, (HEIGHT - ASCENT) * size);
    let (cos, sin) = (s.angle.to_radians().cos(), s.angle.to_radians().sin());
    let turn = |dx: f64, dy: f64| (s.x + dx * cos - dy * sin, s.y + dx * sin + dy * cos);
    Quad { pts: [turn(start, top), turn(start + w, top), turn(start + w, bottom), turn(start, bottom)] }
}

/// What a placed box belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// A marker, a ridge diamond: labels avoid them when they can.
    Mark,
    /// A label: labels never overlap each other.
    Label,
}

/// Shapes placed so far, bucketed on a grid by their bounds for
/// neighbourhood queries.
#[derive(Debug, Clone)]
pub struct Occupancy {
    bounds: Rect,
    cell: f64,
    shapes: Vec<(Quad, Owner)>,
    buckets: HashMap<(i32, i32), Vec<u32>>,
}

impl Occupancy {
    /// An empty area; shapes are clipped to `bounds` for bucketing.
    pub fn new(bounds: Rect) -> Occupancy {
        Occupancy { bounds, cell: 48.0, shapes: Vec::new(), buckets: HashMap::new() }
    }

    fn cells(&self, r: &Rect) -> impl Iterator<Item = (i32, i32)> {
        let b = &self.bounds;
        let clamp = |v: f64, lo: f64, hi: f64| v.max(lo).min(hi);
        let (x0, x1) = (clamp(r.x, b.x, b.x + b.w), clamp(r.x + r.w, b.x, b.x + b.w));
        let (y0, y1) = (clamp(r.y, b.y, b.y + b.h), clamp(r.y + r.h, b.y, b.y + b.h));
        let c = self.cell;
        let (i0, i1) = (((x0 - b.x) / c).floor() as i32, ((x1 - b.x) / c).floor() as i32);
        let (j0, j1) = (((y0 - b.y) / c).floor() as i32, ((y1 - b.y) / c).floor() as i32);
        (i0..=i1).flat_map(move |i| (j0..=j1).map(move |j| (i, j)))
    }

    /// Adds a shape (one with a coordinate that is not finite is ignored;
    /// coordinates are held within a million pixels, far beyond any chart,
    /// so the overlap arithmetic stays finite).
    pub fn add(&mut self, q: Quad, owner: Owner) {
        if !q.pts.iter().all(|p| p.0.is_finite() && p.1.is_finite()) {
            return;
        }
        let q = q.held();
        let id = self.shapes.len() as u32;
        self.shapes.push((q, owner));
        let cells: Vec<(i32, i32)> = self.cells(&q.bounds()).collect();
        for c in cells {
            self.buckets.entry(c).or_default().push(id);
        }
    }

    /// Whether `q` overlaps a shape of an owner `counts` accepts.
    pub fn hits(&self, q: &Quad, counts: impl Fn(Owner) -> bool) -> bool {
        let q = &q.held();
        self.cells(&q.bounds()).any(|c| {
            self.buckets.get(&c).is_some_and(|ids| {
                ids.iter().any(|&id| {
                    let (s, o) = &self.shapes[id as usize];
                    counts(*o) && s.overlaps(q)
                })
            })
        })
    }
}

/// How hard a label tries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Placed only where it overlaps nothing, else left out.
    Optional,
    /// Must be placed: where it overlaps nothing if it can, else where it
    /// overlaps no other label (covering a marker).
    Required,
}

/// Labels placed on a chart.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The area labels must stay inside.
    pub bounds: Rect,
    /// What is placed.
    pub taken: Occupancy,
    /// The shape of each label placed (tests check that none overlap).
    pub labels: Vec<Quad>,
}

impl Layout {
    /// An empty layout inside `bounds`.
    pub fn new(bounds: Rect) -> Layout {
        Layout { bounds, taken: Occupancy::new(bounds), labels: Vec::new() }
    }

    /// Marks a marker's box as taken.
    pub fn mark(&mut self, r: Rect) {
        self.taken.add(Quad::of(r), Owner::Mark);
    }

    /// Places `text` at the first of `spots` that is inside the bounds and
    /// free (see [`Need`]); returns the spot used.
    pub fn place(&mut self, text: &str, size: f64, spots: &[Spot], need: Need) -> Option<Spot> {
        let passes: &[fn(Owner) -> bool] = match need {
            Need::Optional => &[|_| true],
            Need::Required => &[|_| true, |o| o == Owner::Label],
        };
        for counts in passes {
            for s in spots {
                let q = label_quad(text, size, *s);
                if q.bounds().inside(&self.bounds) && !self.taken.hits(&q, counts) {
                    self.taken.add(q, Owner::Label);
                    self.labels.push(q);
                    return Some(*s);
                }
            }
        }
        None
    }
}

/// Candidate spots for a label of width `w` beside markers at `(x, y)` of
/// radius `r`: right, left, above, below and the corners of each marker,
/// then rings further out around the first (these want a leader line).
/// At most 8 per marker plus 144.
pub fn spots_around(markers: &[(f64, f64, f64)], size: f64) -> Vec<Spot> {
    let mut out = Vec::new();
    for &(x, y, r) in markers.iter().take(4) {
        let mid = y + size * 0.35;
        out.extend([
            Spot::at(x + r + 4.0, mid, Anchor::Start),
            Spot::at(x - r - 4.0, mid, Anchor::End),
            Spot::at(x, y - r - 5.0, Anchor::Middle),
            Spot::at(x, y + r + size + 2.0, Anchor::Middle),
            Spot::at(x + r + 2.0, y - r - 3.0, Anchor::Start),
            Spot::at(x + r + 2.0, y + r + size, Anchor::Start),
            Spot::at(x - r - 2.0, y - r - 3.0, Anchor::End),
            Spot::at(x - r - 2.0, y + r + size, Anchor::End),
        ]);
    }
    if let Some(&(x, y, r)) = markers.first() {
        for ring in 1..=12 {
            let d = r + 10.0 + 16.0 * f64::from(ring);
            for dir in 0..12 {
                let a = f64::from(dir) * std::f64::consts::PI / 6.0;
                let (dx, dy) = (a.cos() * d, -a.sin() * d);
                let anchor = if dx > 1.0 {
                    Anchor::Start
                } else if dx < -1.0 {
                    Anchor::End
                } else {
                    Anchor::Middle
                };
                out.push(Spot::at(x + dx, y + dy + size * 0.35, anchor));
            }
        }
    }
    out
}

/// Whether a label at `spot` sits far enough from its marker to need a
/// leader line, and where the line runs: from the marker's edge to the
/// nearest point of the label's box.
pub fn leader(text: &str, size: f64, spot: Spot, marker: (f64, f64, f64)) -> Option<(f64, f64, f64, f64)> {
    let (x, y, r) = marker;
    let b = label_quad(text, size, spot).bounds();
    let nx = x.clamp(b.x, b.x + b.w);
    let ny = y.clamp(b.y, b.y + b.h);
    let d = ((nx - x).powi(2) + (ny - y).powi(2)).sqrt();
    if d <= r + 9.0 {
        return None;
    }
    let (ux, uy) = ((nx - x) / d, (ny - y) / d);
    Some((x + ux * r, y + uy * r, nx, ny))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_never_overlap_and_required_ones_are_placed() {
        let bounds = Rect { x: 0.0, y: 0.0, w: 400.0, h: 300.0 };
        let mut l = Layout::new(bounds);
        // A crowd of markers in the middle.
        for i in 0..40 {
            l.mark(Rect::around(150.0 + f64::from(i % 8) * 12.0, 120.0 + f64::from(i / 8) * 12.0, 6.0));
        }
        for i in 0..10 {
            let spots = spots_around(&[(190.0, 150.0, 6.0)], 11.0);
            assert!(l.place(&format!("kernel number {i}"), 11.0, &spots, Need::Required).is_some(), "{i}");
        }
        for (i, a) in l.labels.iter().enumerate() {
            for b in &l.labels[i + 1..] {
                assert!(!a.overlaps(b));
            }
        }
    }

    #[test]
    fn rotated_labels_overlap_as_drawn() {
        let a = label_quad(
            "DRAM (measured): 4502 GB/s",
            11.0,
            Spot { x: 100.0, y: 200.0, anchor: Anchor::Start, angle: -40.0 },
        );
        // Beside the slanted text, inside its bounding box, but clear of it.
        let beside = Quad::of(Rect { x: 100.0, y: 120.0, w: 20.0, h: 20.0 });
        assert!(a.bounds().overlaps(&beside.bounds()) && !a.overlaps(&beside));
        let on = Quad::of(Rect { x: 140.0, y: 160.0, w: 10.0, h: 10.0 });
        assert!(a.overlaps(&on));
    }

    #[test]
    fn a_huge_box_costs_a_bounded_number_of_buckets() {
        let mut o = Occupancy::new(Rect { x: 0.0, y: 0.0, w: 960.0, h: 700.0 });
        o.add(Quad::of(Rect { x: -1e300, y: -1e300, w: f64::MAX, h: f64::MAX }), Owner::Mark);
        assert!(o.buckets.len() <= 21 * 16);
        o.add(Quad::of(Rect { x: f64::NAN, y: 0.0, w: 1.0, h: 1.0 }), Owner::Mark);
        assert!(o.hits(&Quad::of(Rect { x: 10.0, y: 10.0, w: 1.0, h: 1.0 }), |_| true));
    }
}
