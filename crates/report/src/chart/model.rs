//! What a roofline chart shows, in data units, before any pixel: the roofs
//! to draw (those of the precisions present and the one each kernel is
//! judged against; the rest kept for a "show all" control), one mark per
//! kernel with a stable identity (a colour, a unique label, its rank by
//! time), the precision tabs of a program that mixes them, and the views
//! fitted to the data and to the whole roofline.
//!
//! Every number taken from the document passes [`plottable`]: a kernel or
//! a roof with a value the axes cannot show is left out and said in a note,
//! never drawn at an infinite or a zero coordinate. At most
//! [`MAX_CHART_KERNELS`] kernels are drawn (those with the most time).

use std::collections::{BTreeSet, HashMap};

use roofline_analysis::{KernelAnalysis, Limiter};
use roofline_documents::AnalysisDocument;
use roofline_model::{format_percent, format_seconds, format_si, Unit};
use roofline_model::{Ceiling, FlopKind, MemLevel, Origin, Resource};

use super::scale::{plottable, Span};

/// Beyond this many kernels the chart draws the ones with the most time
/// and says how many it left out.
pub const MAX_CHART_KERNELS: usize = 400;
/// Kernels whose names a chart tries to place (by time).
pub const MAX_KERNEL_LABELS: usize = 24;
/// The kernels with the most time are always named (a leader line when
/// they must move away from their point).
pub const ALWAYS_LABELLED: usize = 5;
/// The longest kernel label, in characters.
pub const LABEL_CHARS: usize = 34;
/// Siblings sharing a name beyond this many are told apart by their IDs.
const MAX_WORD_SEARCH: usize = 64;

/// Colours of kernels by rank (Okabe-Ito first, then more hues that stay
/// apart for common colour-vision deficiencies; repeats past twelve, where
/// the label and the key tell kernels apart).
pub const PALETTE: [&str; 12] = [
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#8c564b", "#7b52ae", "#5f6b00", "#b8205a",
    "#00798c", "#444444",
];

/// Colour of a memory level's roof.
pub fn level_colour(l: MemLevel) -> &'static str {
    match l {
        MemLevel::Dram => "#5b3a8c",
        MemLevel::L2 => "#1b7f5b",
        MemLevel::L1 => "#a0781e",
    }
}

/// A flat (compute) or slanted (bandwidth) roof.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RoofKind {
    /// `y = rate`, FLOP/s.
    Flat {
        /// FLOP/s (or OP/s).
        rate: f64,
    },
    /// `y = rate * x`, bytes/s.
    Slanted {
        /// Bytes/s.
        rate: f64,
        /// The memory level.
        level: MemLevel,
    },
}

impl RoofKind {
    /// The rate.
    pub fn rate(self) -> f64 {
        match self {
            RoofKind::Flat { rate } | RoofKind::Slanted { rate, .. } => rate,
        }
    }
}

/// A roof the chart may draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Roof {
    /// A stable key within the chart (`c3`: the machine's fourth ceiling).
    pub key: String,
    /// Which line.
    pub kind: RoofKind,
    /// "FP32 (measured)".
    pub name: String,
    /// "65.8 TFLOP/s".
    pub value: String,
    /// Where it came from (the hover text).
    pub detail: String,
    /// Theoretical or derived: dashed.
    pub dashed: bool,
    /// A secondary ceiling (a benchmark's other kernels): thin and grey.
    pub thin: bool,
    /// Line and label colour.
    pub colour: &'static str,
    /// Some kernel is judged against it.
    pub judged: bool,
    /// The tabs it is drawn in ("all" first); empty for a roof shown only
    /// when the reader asks for every roof.
    pub tabs: Vec<String>,
}

impl Roof {
    /// Hidden until the reader asks for every roof.
    pub fn extra(&self) -> bool {
        self.tabs.is_empty()
    }

    /// The label drawn next to it.
    pub fn label(&self) -> String {
        format!("{}: {}", self.name, self.value)
    }
}

/// One kernel on the chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// The kernel's index in the document (`data-k` on the page).
    pub k: usize,
    /// Its rank by GPU time (0 = the most).
    pub rank: usize,
    /// A short label no other kernel of the document has.
    pub label: String,
    /// Its colour.
    pub colour: &'static str,
    /// Achieved FLOP/s, or for an estimate with no time, its roof.
    pub y: f64,
    /// Whether `y` was measured (else drawn hollow).
    pub timed: bool,
    /// One point per memory level with an intensity, FLOP/byte.
    pub points: Vec<(MemLevel, f64)>,
    /// Share of the GPU time (0..1).
    pub share: Option<f64>,
    /// The machine roof this kernel's % is computed against (index into
    /// the roofs); `None` when it is its own FLOP-mix roof.
    pub roof: Option<usize>,
    /// The kernel's own compute roof when it mixes FLOP kinds and that roof
    /// is what it is judged against: FLOP/s and name. Drawn as a short
    /// dotted line over the kernel's points rather than across the chart
    /// (a program has as many mixes as kernels).
    pub own_roof: Option<(f64, String)>,
    /// Its roof at its intensities, FLOP/s: the view keeps it in sight.
    pub attainable: Option<f64>,
    /// Its precision tab (the FLOP kind with most of its work).
    pub tab: String,
    /// Named on the chart whatever it takes.
    pub required: bool,
}

impl Mark {
    /// Marker radius: the area grows with the share of GPU time.
    pub fn radius(&self) -> f64 {
        match self.share {
            Some(s) if s.is_finite() && s > 0.0 => 4.0 + 10.0 * s.min(1.0).sqrt(),
            _ => 4.5,
        }
    }
}

/// What the chart shows at first, and what "the whole roofline" shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    /// Intensity range.
    pub x: Span,
    /// Rate range.
    pub y: Span,
}

impl View {
    /// "lx0 lx1 ly0 ly1", for the page's script.
    pub fn attr(&self) -> String {
        format!("{:.4} {:.4} {:.4} {:.4}", self.x.lo, self.x.hi, self.y.lo, self.y.hi)
    }
}

/// A precision tab: the kernels whose work is mostly of one FLOP kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Tab {
    /// "all" or a FLOP kind's key.
    pub key: String,
    /// "All", "FP32", "BF16 tensor".
    pub label: String,
    /// Kernels in it.
    pub count: usize,
    /// Fitted to its kernels.
    pub view: View,
    /// Fitted to its roofs and ridge points as well.
    pub full: View,
}

/// A ridge point: where a compute roof meets a bandwidth roof.
#[derive(Debug, Clone, PartialEq)]
pub struct Ridge {
    /// Intensity, FLOP/byte.
    pub x: f64,
    /// FLOP/s.
    pub y: f64,
    /// The compute roof (index).
    pub compute: usize,
    /// "ridge point 65.8 TFLOP/s x DRAM: 14.6 FLOP/B".
    pub title: String,
}

/// Which roofline a model is: the axes and the hover text follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axes {
    /// FLOP/s against FLOP per byte.
    Flop,
    /// Warp instructions/s against warp instructions per 32-byte
    /// transaction ([`super::instructions`]).
    Instruction,
}

impl Axes {
    /// The x axis' title on a page.
    pub fn x_title(self) -> &'static str {
        match self {
            Axes::Flop => "Arithmetic intensity (FLOP/byte, log scale)",
            Axes::Instruction => "Instruction intensity (warp instructions per 32-byte transaction, log scale)",
        }
    }

    /// The x axis in a few words, for the terminal.
    pub fn x_short(self) -> &'static str {
        match self {
            Axes::Flop => "arithmetic intensity (FLOP/byte)",
            Axes::Instruction => "warp instructions per 32-byte transaction",
        }
    }

    /// Prefix of the points' `data-tip` keys, so two charts of one page
    /// keep their hover details apart.
    pub fn tip_prefix(self) -> &'static str {
        match self {
            Axes::Flop => "",
            Axes::Instruction => "i",
        }
    }
}

/// A roofline chart in data units.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// Which roofline.
    pub axes: Axes,
    /// The heading.
    pub title: String,
    /// The line under it.
    pub subtitle: String,
    /// Every roof, drawn or available.
    pub roofs: Vec<Roof>,
    /// Ridge points of the roofs the kernels are judged against.
    pub ridges: Vec<Ridge>,
    /// The kernels drawn, by rank.
    pub marks: Vec<Mark>,
    /// "all" then one per precision, when the kernels mix precisions;
    /// always at least "all".
    pub tabs: Vec<Tab>,
    /// The y unit (OP/s when every kernel drawn is integer work).
    pub unit: Unit,
    /// What the chart leaves out and why.
    pub notes: Vec<String>,
}

impl Model {
    /// The "all" tab.
    pub fn all(&self) -> &Tab {
        &self.tabs[0]
    }

    /// The roofs drawn in a tab.
    pub fn shown_roofs<'a>(&'a self, tab: &'a str) -> impl Iterator<Item = (usize, &'a Roof)> + 'a {
        self.roofs.iter().enumerate().filter(move |(_, r)| r.tabs.iter().any(|t| t == tab))
    }
}

/// The name shown for a kernel (its display name, else its name).
pub fn kernel_name(a: &KernelAnalysis) -> String {
    if a.kernel.display_name.is_empty() {
        a.kernel.name.clone()
    } else {
        a.kernel.display_name.clone()
    }
}

/// Shortens a name to `max` characters with an ellipsis in the middle,
/// keeping its head and its tail, where siblings differ
/// ([`roofline_model::cut_middle`]).
pub fn shorten(name: &str, max: usize) -> String {
    roofline_model::cut_middle(name, max)
}

/// Chart labels for every kernel of a document, no two alike: the display
/// name, shortened; where two kernels would share one, each keeps the end of
/// its display name that the others lack when it fits
/// (`cudnn_generat…4x1_cga1x1x1_kernel0_0`), else gets the first word of its
/// full name that the others lack ("for_each_kernel<…> (copy)"), else its ID.
pub fn unique_labels(kernels: &[KernelAnalysis]) -> Vec<String> {
    let base: Vec<String> = kernels.iter().map(|a| shorten(&kernel_name(a), LABEL_CHARS)).collect();
    let mut out = base.clone();
    // Identifiers, then their parts between underscores, each once.
    let words = |s: &str| -> Vec<String> {
        let mut seen = BTreeSet::new();
        // A mangled name prefixes each identifier with its length
        // ("18GeluCUDAKernelImpl"): the digits are not part of the word.
        let idents: Vec<&str> = s
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map(|w| w.trim_start_matches(|c: char| c.is_ascii_digit()))
            .filter(|w| !w.is_empty())
            .collect();
        let parts = idents.iter().flat_map(|w| w.split('_')).filter(|w| !w.is_empty());
        idents.iter().copied().chain(parts).filter(|w| seen.insert(w.to_string())).map(str::to_string).collect()
    };
    let mut groups: HashMap<&str, Vec<usize>> = HashMap::with_capacity(base.len());
    for (i, b) in base.iter().enumerate() {
        groups.entry(b.as_str()).or_default().push(i);
    }
    // In the kernels' order, so the labels do not depend on hashing.
    let mut shared: Vec<&Vec<usize>> = groups.values().filter(|m| m.len() > 1).collect();
    shared.sort_by_key(|m| m[0]);
    for members in shared {
        if members.len() > MAX_WORD_SEARCH {
            // Words that tell apart hundreds of siblings are no easier to read
            // than their IDs, and the search grows with the square.
            for &i in members {
                out[i] = format!("{} [{}]", base[i], kernels[i].kernel.id);
            }
            continue;
        }
        // Display names that differ where the cut fell: each keeps the end
        // no other member shares (the terminal's tables cut them so too),
        // rather than a tag that repeats that end.
        if let Some(cut) = cut_keeping_ends(members.iter().map(|&i| kernel_name(&kernels[i])).collect()) {
            for (&i, label) in members.iter().zip(cut) {
                out[i] = label;
            }
            continue;
        }
        // The display name's words first: they are what the reader sees.
        let sets: Vec<Vec<String>> = members
            .iter()
            .map(|&i| {
                let mut w = words(&kernel_name(&kernels[i]));
                for x in words(&kernels[i].kernel.name) {
                    if !w.contains(&x) {
                        w.push(x);
                    }
                }
                w
            })
            .collect();
        for (n, &i) in members.iter().enumerate() {
            let others: BTreeSet<&str> = sets
                .iter()
                .enumerate()
                .filter(|(m, _)| *m != n)
                .flat_map(|(_, s)| s.iter().map(String::as_str))
                .collect();
            let distinct = |w: &&String| !others.contains(w.as_str()) && !base[i].contains(w.as_str());
            let readable = |w: &&String| w.len() >= 2 && w.len() <= 40 && w.chars().any(char::is_alphabetic);
            let word = sets[n]
                .iter()
                .filter(distinct)
                .find(readable)
                .or_else(|| sets[n].iter().filter(distinct).find(|w| w.len() <= 24));
            let tag = match word {
                Some(w) => w.clone(),
                None => kernels[i].kernel.id.clone(),
            };
            let room = (LABEL_CHARS + 6).saturating_sub(tag.chars().count() + 3).max(16);
            out[i] = format!("{} ({tag})", shorten(&kernel_name(&kernels[i]), room));
        }
    }
    // Any label still shared (a tag equal to another kernel's name) gets
    // the kernel's ID, then its position.
    for pass in 0..2 {
        let mut seen: HashMap<&str, usize> = HashMap::with_capacity(out.len());
        for l in &out {
            *seen.entry(l.as_str()).or_default() += 1;
        }
        let shared: Vec<usize> = (0..out.len()).filter(|&i| seen[out[i].as_str()] > 1).collect();
        if shared.is_empty() {
            break;
        }
        for i in shared {
            let id = &kernels[i].kernel.id;
            out[i] = if pass == 0 && !id.is_empty() {
                format!("{} [{id}]", out[i])
            } else {
                format!("{} #{}", out[i], i + 1)
            };
        }
    }
    out
}

/// Labels of [`LABEL_CHARS`] for names whose default cut is the same, each
/// keeping the shortest end that no other of them has; `None` when that
/// end does not fit a label, or the labels would still be alike.
fn cut_keeping_ends(names: Vec<String>) -> Option<Vec<String>> {
    let chars: Vec<Vec<char>> = names.iter().map(|n| n.chars().collect()).collect();
    let mut labels = Vec::with_capacity(names.len());
    for (i, me) in chars.iter().enumerate() {
        let shared = chars
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, o)| me.iter().rev().zip(o.iter().rev()).take_while(|(a, b)| a == b).count())
            .max()
            .unwrap_or(0);
        if shared >= me.len() || shared + 1 + 4 > LABEL_CHARS {
            return None;
        }
        // From the start of the word the difference is in ("1x4x1_...", not "4x1_..."),
        // when that still fits.
        let mut tail = shared + 1;
        while tail < me.len() && me[me.len() - tail - 1].is_alphanumeric() && tail + 1 + 4 <= LABEL_CHARS {
            tail += 1;
        }
        labels.push(roofline_model::cut_middle_keeping(&names[i], LABEL_CHARS, tail));
    }
    let distinct: BTreeSet<&str> = labels.iter().map(String::as_str).collect();
    (distinct.len() == labels.len()).then_some(labels)
}

/// The y a kernel is drawn at: achieved FLOP/s, or for an estimate with no
/// time, the roof it could reach (drawn hollow).
pub fn plotted_y(a: &KernelAnalysis) -> Option<(f64, bool)> {
    a.achieved_flops_per_s
        .filter(|v| *v > 0.0)
        .map(|v| (v, true))
        .or_else(|| a.attainable_flops_per_s.filter(|v| *v > 0.0).map(|v| (v, false)))
}

/// The FLOP kind with most of a kernel's work.
pub fn dominant_kind(a: &KernelAnalysis) -> Option<FlopKind> {
    a.kernel.flops.iter().filter(|(_, f)| f.is_finite() && **f > 0.0).max_by(|x, y| x.1.total_cmp(y.1)).map(|(k, _)| *k)
}

/// "FP32 63%, FP16 37%": a kernel's FLOPs by kind.
pub fn flop_mix(a: &KernelAnalysis) -> String {
    let total: f64 = a.kernel.flops.values().filter(|f| f.is_finite() && **f > 0.0).sum();
    if total <= 0.0 {
        return "no FLOPs".into();
    }
    let mut kinds: Vec<(FlopKind, f64)> =
        a.kernel.flops.iter().filter(|(_, f)| f.is_finite() && **f > 0.0).map(|(k, f)| (*k, *f)).collect();
    kinds.sort_by(|x, y| y.1.total_cmp(&x.1));
    kinds
        .iter()
        .map(|(k, f)| format!("{} {} ({})", k.label(), format_percent(100.0 * f / total), format_si(*f, Unit::Flop)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The unit of a kernel's rates: OP/s when all its work is integer.
pub fn rate_unit(a: &KernelAnalysis) -> Unit {
    let kinds: Vec<FlopKind> = a.kernel.flops.iter().filter(|(_, f)| **f > 0.0).map(|(k, _)| *k).collect();
    if !kinds.is_empty() && kinds.iter().all(|k| k.rate_unit() == Unit::OpPerSecond) {
        Unit::OpPerSecond
    } else {
        Unit::FlopPerSecond
    }
}

/// The ridge points of compute roof `c`: where it meets each slanted roof
/// that is drawn (not an extra) and that `shown` lets through, within the
/// axes. `title` words one from the compute rate, the level and the x.
pub fn ridges_of(
    roofs: &[Roof],
    c: usize,
    shown: impl Fn(&Roof) -> bool,
    title: impl Fn(f64, MemLevel, f64) -> String,
) -> Vec<Ridge> {
    let pi = roofs[c].kind.rate();
    roofs
        .iter()
        .filter(|r| !r.extra() && shown(r))
        .filter_map(|b| match b.kind {
            RoofKind::Slanted { rate, level } => Some((level, pi / rate)),
            RoofKind::Flat { .. } => None,
        })
        .filter(|(_, x)| plottable(*x))
        .map(|(level, x)| Ridge { x, y: pi, compute: c, title: title(pi, level, x) })
        .collect()
}

/// The hover line of a kernel's time and its share of the GPU time.
pub fn time_line(a: &KernelAnalysis) -> Option<String> {
    let t = a.kernel.duration_s?;
    Some(match a.time_share {
        Some(sh) => format!("time: {} ({} of GPU time)", format_seconds(t), format_percent(100.0 * sh)),
        None => format!("time: {}", format_seconds(t)),
    })
}

/// The hover details of one point: a title and one fact per line (the
/// full name, ID, launches, FLOP mix, the level's intensity and bytes, time,
/// achieved, the roof and % of it, bound and position).
pub fn point_lines(a: &KernelAnalysis, label: &str, level: MemLevel) -> (String, Vec<String>) {
    let title = format!("{label} [{}]", level.label());
    let mut s = vec![a.kernel.name.clone()];
    s.push(format!(
        "ID {}, {} launch{}",
        a.kernel.id,
        a.kernel.launches,
        if a.kernel.launches == 1 { "" } else { "es" }
    ));
    s.push(format!("FLOPs: {}", flop_mix(a)));
    if let Some(p) = a.level(level) {
        if let Some(i) = p.intensity {
            s.push(format!("intensity at {}: {}", level.label(), format_si(i, Unit::FlopPerByte)));
        }
        let mut b = format!("bytes at {}: {}", level.label(), format_si(p.bytes, Unit::Byte));
        if let Some(v) = p.pct_of_bandwidth {
            b.push_str(&format!(" ({} of its bandwidth)", format_percent(v)));
        }
        s.push(b);
    }
    s.extend(time_line(a));
    let unit = rate_unit(a);
    match a.achieved_flops_per_s {
        Some(v) => s.push(format!("achieved: {}", format_si(v, unit))),
        None => s.push("no time: drawn at the roof it could reach".into()),
    }
    if let Some(r) = a.attainable_flops_per_s {
        let by = match a.limiter {
            Some(Limiter::Bandwidth(l)) => format!("{} bandwidth", l.label()),
            Some(Limiter::Compute) => a.compute_roof_name.clone().unwrap_or_else(|| "compute".into()),
            None => String::new(),
        };
        let mut line = format!("roof: {} ({by})", format_si(r, unit));
        if let Some(p) = a.pct_of_roof {
            line.push_str(&format!(", {} of it", format_percent(p)));
        }
        s.push(line);
    }
    if let Some(b) = a.bound {
        let mut line = format!("{}-bound", b.label());
        if let Some(d) = &a.diagnosis {
            line.push_str(&format!(", {}", d.position.label()));
        }
        s.push(line);
    }
    (title, s)
}

fn roof_from(c: &Ceiling, key: String) -> Roof {
    let level = c.resource.mem_level();
    Roof {
        key,
        kind: match level {
            Some(level) => RoofKind::Slanted { rate: c.rate, level },
            None => RoofKind::Flat { rate: c.rate },
        },
        name: c.name.clone(),
        value: c.formatted(),
        detail: format!("{}: {} ({})", c.name, c.formatted(), c.provenance.describe()),
        dashed: matches!(c.provenance.origin, Origin::Theoretical | Origin::Derived),
        thin: c.secondary,
        colour: match level {
            Some(l) => level_colour(l),
            None if c.secondary => "#8a8a8a",
            None => "#222222",
        },
        judged: false,
        tabs: Vec::new(),
    }
}

fn add_tab(tabs: &mut Vec<String>, t: &str) {
    if !tabs.iter().any(|x| x == t) {
        tabs.push(t.to_string());
    }
}

/// Where a kernel goes on a chart, before it is ranked and coloured.
pub(crate) struct Placement {
    /// Its rate on the y axis (see [`Mark::y`]).
    pub y: f64,
    /// Whether `y` was measured.
    pub timed: bool,
    /// Its points: memory level and intensity on the x axis.
    pub points: Vec<(MemLevel, f64)>,
    /// Its roof at its intensities, FLOP/s.
    pub attainable: Option<f64>,
    /// Its precision tab.
    pub tab: String,
}

/// The kernels a chart draws, and what it leaves out.
pub(crate) struct Placed {
    /// At most [`MAX_CHART_KERNELS`], the most GPU time first.
    pub marks: Vec<Mark>,
    /// Labels of kernels with a value the axes cannot show.
    pub refused: Vec<String>,
    /// How many more could be drawn but are not (the least GPU time).
    pub left_out: usize,
}

impl Placed {
    /// What the chart's notes say about the kernels it could not draw.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if !self.refused.is_empty() {
            notes.push(format!(
                "{} has a value the axes cannot show (zero, not finite, or beyond 1e-30..1e30): not on the chart",
                roofline_model::bounded(&self.refused, ", ")
            ));
        }
        if self.left_out > 0 {
            notes.push(format!(
                "{} more kernels (the least GPU time) are not drawn: a chart shows at most {MAX_CHART_KERNELS}; see the table",
                self.left_out
            ));
        }
        notes
    }
}

/// The one loop behind every chart: the kernels by GPU time (ties in
/// document order), each placed by `place` (`None`: not on this chart, its
/// caller says why), refused when a value is beyond the axes, then ranked,
/// coloured and labelled.
pub(crate) fn place_marks(
    doc: &AnalysisDocument,
    labels: &[String],
    mut place: impl FnMut(usize, &KernelAnalysis) -> Option<Placement>,
) -> Placed {
    let mut order: Vec<usize> = (0..doc.kernels.len()).collect();
    order.sort_by(|&a, &b| {
        let s = |i: usize| doc.kernels[i].time_share.filter(|v| v.is_finite()).unwrap_or(0.0);
        s(b).total_cmp(&s(a)).then(a.cmp(&b))
    });
    let mut placed = Placed { marks: Vec::new(), refused: Vec::new(), left_out: 0 };
    for k in order {
        let a = &doc.kernels[k];
        let Some(p) = place(k, a) else { continue };
        if !plottable(p.y) || p.points.iter().any(|(_, x)| !plottable(*x)) {
            placed.refused.push(labels[k].clone());
            continue;
        }
        if placed.marks.len() >= MAX_CHART_KERNELS {
            placed.left_out += 1;
            continue;
        }
        let rank = placed.marks.len();
        placed.marks.push(Mark {
            k,
            rank,
            label: labels[k].clone(),
            colour: PALETTE[rank % PALETTE.len()],
            y: p.y,
            timed: p.timed,
            points: p.points,
            share: a.time_share.filter(|s| s.is_finite() && *s > 0.0),
            roof: None,
            own_roof: None,
            attainable: p.attainable,
            tab: p.tab,
            required: rank < ALWAYS_LABELLED,
        });
    }
    placed
}

/// The chart of an analysis. `title` replaces the default heading.
pub fn build(doc: &AnalysisDocument, title: Option<&str>) -> Model {
    build_labelled(doc, title, &unique_labels(&doc.kernels))
}

/// The roofs [`build`] draws for `doc`: they depend on where the kernels
/// sit, not on their labels, which for the 200,000 kernels of a diff's two
/// sides took a second to make.
pub fn roofs(doc: &AnalysisDocument) -> Vec<Roof> {
    build_labelled(doc, None, &vec![String::new(); doc.kernels.len()]).roofs
}

fn build_labelled(doc: &AnalysisDocument, title: Option<&str>, labels: &[String]) -> Model {
    let m = &doc.machine;
    let mut notes = notes_with(doc, labels);

    let placed = place_marks(doc, labels, |_, a| {
        let (y, timed) = plotted_y(a)?;
        if below_noise(a) {
            return None;
        }
        // Only the points that measure their level's traffic: the warnings
        // say the others are kept off the chart.
        let points: Vec<(MemLevel, f64)> =
            a.levels.iter().filter(|p| p.measured()).filter_map(|p| p.intensity.map(|x| (p.level, x))).collect();
        (!points.is_empty()).then(|| Placement {
            y,
            timed,
            points,
            attainable: a.attainable_flops_per_s.filter(|v| plottable(*v)),
            tab: dominant_kind(a).map(|k| k.key().to_string()).unwrap_or_else(|| "all".into()),
        })
    });
    notes.extend(placed.notes());
    let mut marks = placed.marks;

    // Precision tabs, when the kernels mix precisions.
    let mut tab_keys: Vec<String> = Vec::new();
    for k in FlopKind::ALL {
        if marks.iter().any(|mk| mk.tab == k.key()) {
            tab_keys.push(k.key().to_string());
        }
    }
    let tabbed = tab_keys.len() > 1;

    // Roofs: the machine's ceilings; each kernel marks those of its kinds
    // and levels, and the one it is judged against.
    let mut roofs: Vec<Roof> = Vec::new();
    let mut ceiling_roof: Vec<Option<usize>> = Vec::new();
    for (i, c) in m.ceilings.iter().enumerate() {
        let drawable = matches!(c.resource, Resource::Compute(_) | Resource::Memory(_)) && plottable(c.rate);
        ceiling_roof.push(drawable.then_some(roofs.len()));
        if drawable {
            roofs.push(roof_from(c, format!("c{i}")));
        } else if matches!(c.resource, Resource::Compute(_) | Resource::Memory(_)) && c.rate != 0.0 {
            notes.push(format!("{}: {} is a rate the axes cannot show: not drawn", c.name, c.formatted()));
        }
    }
    let roof_of = |c: Option<&Ceiling>| -> Option<usize> {
        let c = c?;
        let i = m.ceilings.iter().position(|x| std::ptr::eq(x, c))?;
        ceiling_roof[i]
    };
    for mk in marks.iter_mut() {
        let a = &doc.kernels[mk.k];
        let tabs_of =
            |tab: &str| if tabbed { vec!["all".to_string(), tab.to_string()] } else { vec!["all".to_string()] };
        // Bandwidth roofs of the levels it has points at.
        for (level, _) in &mk.points {
            if let Some(r) = roof_of(m.bandwidth_roof(*level)) {
                for t in tabs_of(&mk.tab) {
                    add_tab(&mut roofs[r].tabs, &t);
                }
            }
        }
        // Compute roofs of the kinds it does.
        for (kind, f) in &a.kernel.flops {
            if *f > 0.0 {
                if let Some(r) = roof_of(m.compute_roof(*kind)) {
                    for t in tabs_of(&mk.tab) {
                        add_tab(&mut roofs[r].tabs, &t);
                    }
                }
            }
        }
        // Its own compute roof: a machine roof, or a mix no ceiling has.
        let rate = a.compute_roof_flops_per_s.filter(|v| plottable(*v));
        let compute = rate.and_then(|rate| {
            roofs.iter().position(|r| {
                matches!(r.kind, RoofKind::Flat { rate: x } if (x / rate - 1.0).abs() < 1e-6)
                    && Some(&r.name) == a.compute_roof_name.as_ref()
            })
        });
        mk.roof = match a.limiter {
            Some(Limiter::Compute) => compute,
            Some(Limiter::Bandwidth(l)) => roof_of(m.bandwidth_roof(l)),
            None => None,
        };
        if let (Some(Limiter::Compute), None, Some(rate)) = (a.limiter, compute, rate) {
            mk.own_roof = Some((rate, a.compute_roof_name.clone().unwrap_or_else(|| "its FLOP mix".into())));
        }
        if let Some(r) = mk.roof {
            roofs[r].judged = true;
        }
    }
    // With no kernel drawn: the FP32 roof (else the highest primary one)
    // and every primary bandwidth roof.
    if marks.is_empty() {
        let fallback = m
            .compute_roof(FlopKind::Fp32)
            .or_else(|| m.compute().filter(|c| !c.secondary).max_by(|a, b| a.rate.total_cmp(&b.rate)));
        for r in std::iter::once(roof_of(fallback)).chain(MemLevel::ALL.map(|l| roof_of(m.bandwidth_roof(l)))).flatten()
        {
            add_tab(&mut roofs[r].tabs, "all");
        }
    }

    // Ridge points of the compute roofs kernels are judged against (or
    // the fallback roof) with the bandwidth roofs drawn.
    let mut ridges = Vec::new();
    let judged_compute: Vec<usize> = {
        let mut v: Vec<usize> = Vec::new();
        for r in marks.iter().filter_map(|mk| mk.roof) {
            if matches!(roofs[r].kind, RoofKind::Flat { .. }) && !v.contains(&r) {
                v.push(r);
            }
        }
        if v.is_empty() {
            // The roofs of the kinds doing most of the work (or the fallback).
            for mk in &marks {
                let kind = dominant_kind(&doc.kernels[mk.k]);
                if let Some(r) = kind.and_then(|k| roof_of(m.compute_roof(k))) {
                    if !v.contains(&r) {
                        v.push(r);
                    }
                }
            }
        }
        if v.is_empty() {
            v = roofs
                .iter()
                .enumerate()
                .filter(|(_, r)| !r.extra() && matches!(r.kind, RoofKind::Flat { .. }))
                .map(|(i, _)| i)
                .collect();
        }
        v
    };
    for &c in &judged_compute {
        ridges.extend(ridges_of(
            &roofs,
            c,
            |r| !r.thin,
            |pi, level, x| {
                format!(
                    "ridge point {} x {}: {} (memory-bound to its left)",
                    format_si(pi, Unit::FlopPerSecond),
                    level.label(),
                    format_si(x, Unit::FlopPerByte)
                )
            },
        ));
    }

    // Views: fitted to the kernels (and the roof each is judged by), and
    // to the whole roofline of the roofs drawn.
    let fit = |tab: &str| fit_views(&marks, &roofs, tab);
    let mut tabs = Vec::new();
    let (view, full) = fit("all");
    tabs.push(Tab { key: "all".into(), label: "All".into(), count: marks.len(), view, full });
    if tabbed {
        for key in &tab_keys {
            let kind = FlopKind::ALL.into_iter().find(|k| k.key() == key).expect("a FLOP kind's key");
            let (view, full) = fit(key);
            let count = marks.iter().filter(|mk| &mk.tab == key).count();
            tabs.push(Tab { key: key.clone(), label: kind.label().to_string(), count, view, full });
        }
    }
    let unit = if !marks.is_empty() && marks.iter().all(|mk| rate_unit(&doc.kernels[mk.k]) == Unit::OpPerSecond) {
        Unit::OpPerSecond
    } else {
        Unit::FlopPerSecond
    };
    let timed = doc.kernels.iter().filter(|a| a.kernel.duration_s.is_some()).count();
    let detail =
        if doc.source.detail.is_empty() { String::new() } else { format!(": {}", shorten(&doc.source.detail, 60)) };
    Model {
        axes: Axes::Flop,
        title: title.map(str::to_string).unwrap_or_else(|| format!("Roofline of {}", m.name)),
        subtitle: format!(
            "{} kernel{} ({} timed, {} on the chart), from {}{detail}",
            doc.kernels.len(),
            if doc.kernels.len() == 1 { "" } else { "s" },
            timed,
            marks.len(),
            doc.source.kind,
        ),
        roofs,
        ridges,
        marks,
        tabs,
        unit,
        notes,
    }
}

/// The views of a tab: fitted to its kernels (and the roof each is judged
/// by), and to the whole roofline of the roofs drawn in it.
pub(crate) fn fit_views(marks: &[Mark], roofs: &[Roof], tab: &str) -> (View, View) {
    let in_tab: Vec<&Mark> = marks.iter().filter(|mk| tab == "all" || mk.tab == tab).collect();
    let xs: Vec<f64> = in_tab.iter().flat_map(|mk| mk.points.iter().map(|p| p.1)).collect();
    let ys: Vec<f64> = in_tab.iter().flat_map(|mk| std::iter::once(mk.y).chain(mk.attainable)).collect();
    let shown: Vec<&Roof> = roofs.iter().filter(|r| r.tabs.iter().any(|t| t == tab)).collect();
    let flat: Vec<f64> =
        shown.iter().filter(|r| matches!(r.kind, RoofKind::Flat { .. })).map(|r| r.kind.rate()).collect();
    let slanted: Vec<f64> =
        shown.iter().filter(|r| matches!(r.kind, RoofKind::Slanted { .. }) && !r.thin).map(|r| r.kind.rate()).collect();
    let ridge_xs: Vec<f64> = flat.iter().flat_map(|p| slanted.iter().map(move |b| p / b)).collect();
    let full = View {
        x: Span::fit(xs.iter().copied().chain(ridge_xs.iter().copied()), 0.3, 4.0, (0.01, 100.0)),
        y: Span::fit(
            ys.iter().copied().chain(flat.iter().copied()).chain(
                // Without kernels, reach down to where the slowest memory roof enters.
                if xs.is_empty() { slanted.iter().map(|b| b * 0.1).collect::<Vec<_>>() } else { Vec::new() },
            ),
            0.3,
            3.0,
            (1e9, 1e12),
        ),
    };
    let view = if xs.is_empty() {
        full
    } else {
        View { x: Span::fit(xs.iter().copied(), 0.3, 1.5, (0.01, 100.0)), y: Span::fit(ys, 0.3, 1.2, (1e9, 1e12)) }
    };
    (view, full)
}

/// Notes a chart of `doc` must carry: kernels it cannot draw and FLOP kinds
/// the machine has no ceiling for. The kernels with no FLOPs are named in
/// one note (the first few, then how many more).
pub fn chart_notes(doc: &AnalysisDocument) -> Vec<String> {
    notes_with(doc, &unique_labels(&doc.kernels))
}

/// An intensity below this many FLOP per byte at every level is noise:
/// the constant moves a copy kernel's compiler emits (a bf16 copy's 9.7
/// kFLOP over hundreds of MB is 2.7e-5 FLOP/B), not arithmetic. Such a
/// kernel is charted as one with no FLOPs (listed under the chart, judged
/// by its bandwidth), so that it does not stretch the axes five decades
/// below the kernels that compute.
pub const NOISE_INTENSITY: f64 = 1e-3;

/// Whether every intensity of `a` is below [`NOISE_INTENSITY`].
fn below_noise(a: &KernelAnalysis) -> bool {
    let mut xs = a.levels.iter().filter_map(|p| p.intensity).peekable();
    xs.peek().is_some() && xs.all(|x| x < NOISE_INTENSITY)
}

fn notes_with(doc: &AnalysisDocument, labels: &[String]) -> Vec<String> {
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
    let mut no_flops = Vec::new();
    for (a, label) in doc.kernels.iter().zip(labels) {
        if !a.missing_ceilings.is_empty() {
            notes.push(format!(
                "{} has no ceiling for {} FLOPs: {} is judged without {}; add the ceiling (roofline bench, or a machine JSON)",
                m.name,
                a.missing_ceilings.iter().map(|k| k.label()).collect::<Vec<_>>().join(", "),
                label,
                if a.missing_ceilings.len() == 1 { "it" } else { "them" }
            ));
        }
        if let Some(c) = &a.collective {
            // A collective is judged against the interconnect, not this chart.
            notes.push(format!(
                "{label}: a collective, judged against the interconnect, not this chart: see Communication{}",
                c.pct_of_roof.map(|p| format!(" ({} of its link roof)", format_percent(p))).unwrap_or_default()
            ));
        } else if a.total_flops <= 0.0 || below_noise(a) {
            no_flops.push(match a.pct_of_roof {
                Some(p) => format!("{label} ({} of its bandwidth roof)", format_percent(p)),
                None => label.clone(),
            });
        } else if plotted_y(a).is_none() {
            notes.push(format!("{label}: no time and no roof to draw it at: not on the chart"));
        }
    }
    match no_flops.len() {
        0 => {}
        1 => notes.push(format!(
            "{}: no FLOPs (or fewer than 1 per KB moved), so no intensity: not on the chart",
            no_flops[0]
        )),
        n => {
            let shown: Vec<String> = no_flops.iter().take(4).cloned().collect();
            notes.push(format!(
                "{n} kernels with no FLOPs (or fewer than 1 per KB moved) have no intensity and are not on the chart (see the table): {}{}",
                shown.join(", "),
                if n > 4 { format!(" and {} more", n - 4) } else { String::new() }
            ));
        }
    }
    notes
}
