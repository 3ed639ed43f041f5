//! An analysis: every kernel under its roofs (intensity per level, the roof
//! that applies, % of it, bound, diagnosis), the chart, the machine and how
//! the numbers were obtained.

use roofline_analysis::Verdict;
use roofline_analysis::{Bound, KernelAnalysis, Limiter};
use roofline_analysis::{Diagnosis, Position, FLOP_PIPE_LATENCY_PCT, LATENCY_PCT, ON_ROOF_PCT};
use roofline_documents::AnalysisDocument;
use roofline_model::Warning;
use roofline_model::{format_percent, Unit};
use roofline_model::{FlopKind, MemLevel};

use super::machine::{heading, ridge_section, roof_sections, roofs_cell};
use super::program::{program_sections, verdict_tone, GLANCE_OPPORTUNITIES};
pub(crate) use crate::chart::model::rate_unit;
use crate::chart::model::{self, chart_notes, kernel_name as kernel_label, point_lines, unique_labels};
use crate::chart::svg::roofline_svg;
use crate::chart::ChartOptions;
use crate::view::{
    Cell, ChartControls, ChartKind, ChartRef, ChartTab, Column, Describe, Fact, Item, Note, PointDetail, Quantity, Row,
    Section, Show, Table, Tone, Value,
};

impl Describe for AnalysisDocument {
    fn title(&self) -> String {
        format!(
            "{} on {}{}",
            program(self),
            self.machine.name,
            date(self).map(|d| format!(", {d}")).unwrap_or_default()
        )
    }

    fn subtitle(&self) -> String {
        let source = match self.source.kind.as_str() {
            "ncu" => "Nsight Compute counters",
            "model" => "paper estimates",
            "timing" => "CUDA event timing",
            other => other,
        };
        let n = self.kernels.len();
        format!(
            "{n} kernel{} from {source}{}{}",
            if n == 1 { "" } else { "s" },
            if self.producer.command.is_empty() { String::new() } else { format!(", by `{}`", self.producer.command) },
            if date(self).is_none() { "; the analysis records no date" } else { "" }
        )
    }

    fn sections(&self) -> Vec<Section> {
        // The chart right after the GPU time by verdict: on a page it is
        // in the first screen, before the long tables.
        let mut s = lead_sections(self, None);
        s.insert(1.min(s.len()), chart_section(self));
        s.extend(kernel_sections(self));
        s.extend(super::collectives::communication_section(&self.kernels));
        s.extend(diagnosis_sections(self));
        s.push(summary_section(self));
        s.push(ridge_section(&self.machine, &used_kinds(self)));
        s.push(notes_section(self));
        s.extend(roof_sections(&self.machine, "machine", Show::Wide));
        s.push(method_section(self, "method", "How the numbers were obtained"));
        s
    }

    fn main_table(&self) -> Option<&'static str> {
        Some("kernel")
    }

    fn deferred_rows(&self, table: &str, row: &mut dyn FnMut(Row)) {
        if table == "kernel" {
            kernel_rows(self, row);
        }
    }

    fn chart_svg(&self, chart: ChartKind, opts: &ChartOptions) -> Option<String> {
        (chart == ChartKind::Roofline).then(|| roofline_svg(self, opts))
    }

    fn chart_text(&self, chart: ChartKind, width: usize, color: bool) -> Option<String> {
        (chart == ChartKind::Roofline)
            .then(|| crate::chart::terminal::render(self, &model::build(self, None), width, color))
    }

    fn chart_controls(&self, chart: ChartKind) -> ChartControls {
        if chart != ChartKind::Roofline {
            return ChartControls::default();
        }
        let m = model::build(self, None);
        ChartControls {
            tabs: if m.tabs.len() > 1 {
                m.tabs
                    .iter()
                    .map(|t| ChartTab {
                        key: t.key.clone(),
                        label: t.label.clone(),
                        count: t.count,
                        view: t.view.attr(),
                        full: t.full.attr(),
                    })
                    .collect()
            } else {
                Vec::new()
            },
            extra_roofs: m.roofs.iter().filter(|r| r.extra()).count(),
            zoom: true,
        }
    }

    fn point_details(&self) -> Vec<PointDetail> {
        // The points drawn: at most the chart's kernels.
        let m = model::build(self, None);
        let mut out = Vec::new();
        for mark in &m.marks {
            let (i, a) = (mark.k, &self.kernels[mark.k]);
            for p in a.levels.iter().filter(|p| p.intensity.is_some()) {
                let (title, mut lines) = point_lines(a, &mark.label, p.level);
                if let Some(d) = &a.diagnosis {
                    lines.push(format!("next move: {}", d.next_move_text()));
                }
                out.push(PointDetail { key: format!("{i}-{}", p.level.key()), title, lines });
            }
        }
        out
    }
}

/// What was analysed, in a few words: the capture's file name, the
/// profiled command, or the kind of source.
pub(crate) fn program(doc: &AnalysisDocument) -> String {
    let d = doc.source.detail.trim();
    if d.is_empty() {
        return format!("{} kernels", doc.source.kind);
    }
    let first = d.split(", ").next().unwrap_or(d);
    let looks_like_path = !first.contains(' ') && (first.contains('/') || first.contains('.'));
    let name = if looks_like_path { first.rsplit('/').next().unwrap_or(first) } else { d };
    crate::chart::model::shorten(name, 60)
}

/// The date the analysis was made, when recorded ("2026-11-30").
pub(crate) fn date(doc: &AnalysisDocument) -> Option<String> {
    doc.producer.created.as_ref().map(|c| c.chars().take(10).collect::<String>()).filter(|d| d.len() == 10)
}

/// How a verdict may be coloured.
pub(crate) fn position_tone(p: Position) -> Tone {
    match p {
        Position::OnRoof | Position::OnDiagonal => Tone::Good,
        Position::UnderDiagonal | Position::UnderFlatRoof | Position::PipeBound | Position::IssueBound => Tone::Fair,
        Position::LatencyBound | Position::LaunchBound => Tone::Poor,
    }
}

/// The side of the ridge, coloured as on the chart.
pub(crate) fn bound_cell(b: Option<Bound>) -> Cell {
    match b {
        Some(b) => Cell::toned(b.label(), Some(if b == Bound::Memory { Tone::Memory } else { Tone::Compute })),
        None => Cell::Empty,
    }
}

/// A kernel's name cell: its label (unique among the kernels shown), its
/// stable ID and its full name.
pub(crate) fn name_cell(a: &KernelAnalysis, label: &str) -> Cell {
    Cell::Name { name: label.to_string(), id: a.kernel.id.clone(), full: a.kernel.name.clone() }
}

fn limiter_text(a: &KernelAnalysis) -> String {
    match a.limiter {
        Some(Limiter::Bandwidth(l)) => format!("{} bandwidth", l.label()),
        Some(Limiter::Compute) => a.compute_roof_name.clone().unwrap_or_else(|| "compute".into()),
        None => "-".into(),
    }
}

/// How many kernels a page (HTML, SVG) shows at most: the chart, the table
/// and the details of the kernels with the most time. A browser does not
/// lay out 100,000 rows and 300,000 points usefully; the JSON and CSV keep
/// every kernel.
pub const PAGE_KERNELS: usize = 2000;

/// The analysis a page shows when it has more than [`PAGE_KERNELS`]
/// kernels: those with the most GPU time, the program view of all of them,
/// and a warning that says how many are left out and where they are.
/// `None` when the analysis fits.
pub fn page_view(doc: &AnalysisDocument) -> Option<AnalysisDocument> {
    if doc.kernels.len() <= PAGE_KERNELS {
        return None;
    }
    let times: Vec<f64> = doc.kernels.iter().map(page_time).collect();
    let order = page_order(&times);
    let (shown, rest) = order.split_at(PAGE_KERNELS);
    let share: f64 = rest.iter().filter_map(|&i| doc.kernels[i].time_share).sum();
    Some(page_of(doc, shown.iter().map(|&i| doc.kernels[i].clone()).collect(), rest.len(), share))
}

/// A kernel's time as a page orders kernels: none (or not finite) last.
fn page_time(a: &KernelAnalysis) -> f64 {
    a.kernel.duration_s.filter(|d| d.is_finite()).unwrap_or(-1.0)
}

/// The kernels' indices, most time first, ties in document order.
fn page_order(times: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..times.len()).collect();
    order.sort_by(|a, b| times[*b].total_cmp(&times[*a]));
    order
}

/// The page of `doc` (whose own kernels are not looked at) showing `kernels`,
/// `left_out` others with `share` of the GPU time said so in a warning.
fn page_of(doc: &AnalysisDocument, kernels: Vec<KernelAnalysis>, left_out: usize, share: f64) -> AnalysisDocument {
    let mut page = AnalysisDocument {
        kernels,
        warnings: doc.warnings.clone(),
        ..AnalysisDocument::new(doc.producer.clone(), doc.source.clone(), doc.machine.clone(), Vec::new())
    };
    page.schema = doc.schema.clone();
    page.program = doc.program.clone();
    page.warnings.insert(
        0,
        Warning::PageShowsTop {
            shown: PAGE_KERNELS as u64,
            left_out: left_out as u64,
            left_out_time_pct: 100.0 * share,
        },
    );
    page
}

/// What a page needs of an analysis read one kernel at a time
/// (`roofline_documents::stream_analysis`): the [`PAGE_KERNELS`] kernels
/// with the most time, whole, and of every kernel its time and share. Fed
/// every kernel in document order, it makes the page [`page_view`] makes of
/// the whole document, holding that many kernels at most.
#[derive(Debug, Default)]
pub struct PageKernels {
    /// The kernels kept, the one with the least time (the latest of equals) on top.
    top: std::collections::BinaryHeap<std::cmp::Reverse<Ranked>>,
    /// Every kernel's time, as [`page_time`], and share.
    times: Vec<(f64, Option<f64>)>,
}

/// A kept kernel, ordered as a page orders them: more time first, then
/// earlier in the document.
#[derive(Debug)]
struct Ranked {
    time: f64,
    index: usize,
    kernel: KernelAnalysis,
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked {
    /// Greater is shown first.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.time.total_cmp(&other.time).then(other.index.cmp(&self.index))
    }
}

impl PageKernels {
    /// Nothing seen yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The next kernel of the document, `kernels[index]`; kept (a copy)
    /// while it is among those with the most time.
    pub fn push(&mut self, index: usize, a: &KernelAnalysis) {
        debug_assert_eq!(index, self.times.len(), "kernels in document order");
        let time = page_time(a);
        self.times.push((time, a.time_share));
        let beats_last = |top: &std::collections::BinaryHeap<std::cmp::Reverse<Ranked>>| {
            top.peek().is_some_and(|least| time.total_cmp(&least.0.time).is_gt())
        };
        if self.top.len() < PAGE_KERNELS {
            self.top.push(std::cmp::Reverse(Ranked { time, index, kernel: a.clone() }));
        } else if beats_last(&self.top) {
            self.top.pop();
            self.top.push(std::cmp::Reverse(Ranked { time, index, kernel: a.clone() }));
        }
    }

    /// How many kernels were seen.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// The document whole (`head` with the kernels seen, in their order) when
    /// it fits a page; else the page [`page_view`] would make of it.
    pub fn finish(self, head: &AnalysisDocument) -> Paged {
        let mut kept: Vec<Ranked> = self.top.into_iter().map(|r| r.0).collect();
        if self.times.len() <= PAGE_KERNELS {
            kept.sort_by_key(|r| r.index);
            let mut whole = head.clone();
            whole.kernels = kept.into_iter().map(|r| r.kernel).collect();
            return Paged::Whole(whole);
        }
        let times: Vec<f64> = self.times.iter().map(|t| t.0).collect();
        let order = page_order(&times);
        let (shown, rest) = order.split_at(PAGE_KERNELS);
        let share: f64 = rest.iter().filter_map(|&i| self.times[i].1).sum();
        // The kept kernels are the shown ones: the most time, ties by order.
        let mut by_index: std::collections::HashMap<usize, KernelAnalysis> =
            kept.into_iter().map(|r| (r.index, r.kernel)).collect();
        let kernels =
            shown.iter().map(|i| by_index.remove(i).expect("the kernels with the most time are kept")).collect();
        Paged::Page(page_of(head, kernels, rest.len(), share))
    }
}

/// What [`PageKernels::finish`] makes.
#[derive(Debug)]
pub enum Paged {
    /// Every kernel, in order: the document fits a page.
    Whole(AnalysisDocument),
    /// The page of a larger document, as [`page_view`] makes it.
    Page(AnalysisDocument),
}

/// How many kernels the narrow terminal view lists, most time first.
pub const GLANCE_KERNELS: usize = 20;

/// The FLOP kinds the kernels did: the precisions whose roofs and ridge
/// points matter.
pub(crate) fn used_kinds(doc: &AnalysisDocument) -> Vec<FlopKind> {
    FlopKind::ALL
        .into_iter()
        .filter(|k| doc.kernels.iter().any(|a| a.kernel.flops.get(k).is_some_and(|f| *f > 0.0)))
        .collect()
}

/// "Nsight Compute counters" for a source kind.
fn source_words(kind: &str) -> &str {
    match kind {
        "model" => "paper estimates",
        "ncu" => "Nsight Compute counters",
        "timing" => "CUDA event timings with paper FLOPs and bytes",
        other => other,
    }
}

/// What the program view opens with: the GPU, where the data comes from
/// (`data` replaces the source's own words, as the tour's "bundled"), then
/// the time by verdict, the top opportunities and the groups.
pub(crate) fn lead_sections(doc: &AnalysisDocument, data: Option<String>) -> Vec<Section> {
    let m = &doc.machine;
    let mut gpu = m.name.clone();
    let mut about = Vec::new();
    if let Some(cc) = &m.gpu.compute_capability {
        about.push(format!("compute capability {cc}"));
    }
    if let Some(sms) = m.gpu.sms {
        about.push(format!("{sms} SMs"));
    }
    if !about.is_empty() {
        gpu = format!("{gpu} ({})", about.join(", "));
    }
    let data = data.unwrap_or_else(|| {
        let detail = if doc.source.detail.is_empty() { String::new() } else { format!(": {}", doc.source.detail) };
        format!("{}{detail}", source_words(&doc.source.kind))
    });
    let facts = vec![Fact::new("gpu", "GPU", Cell::text(gpu)), Fact::new("data", "data", Cell::text(data))];
    match &doc.program {
        Some(view) => {
            let placed = if doc.source.kind == "ncu" { "with counters" } else { "under a roof" };
            program_sections(view, facts, placed)
        }
        None => vec![Section::new("program", "").with(facts).with(vec![Note::info(
            "No kernel has a duration, so there is no GPU time to split; a kernel given a time (time=1.5ms) gets its % of roof and what it would save.",
        )])],
    }
}

/// The roofs the kernels are judged against: the compute roofs of the
/// precisions they use and every bandwidth.
fn summary_section(doc: &AnalysisDocument) -> Section {
    let timed = doc.kernels.iter().any(|k| k.kernel.duration_s.is_some());
    let detail = if doc.source.detail.is_empty() { String::new() } else { format!(", {}", doc.source.detail) };
    let title = format!(
        "{} on {} (source: {}{detail})",
        if timed { "kernels" } else { "paper estimates" },
        heading(&doc.machine),
        doc.source.kind
    );
    Section::new("summary", title).with(vec![Fact::new("roofs", "roofs", roofs_cell(&doc.machine, &used_kinds(doc)))])
}

pub(crate) fn chart_section(doc: &AnalysisDocument) -> Section {
    let notes: Vec<Note> = chart_notes(doc).into_iter().map(Note::remark).collect();
    Section::new("chart", "Roofline")
        .show(Show::Wide)
        .with(ChartRef {
            kind: ChartKind::Roofline,
            hint: "Hover or focus a point for its numbers. Each kernel has one point per memory level, joined by a line; marker area is its share of GPU time.".into(),
        })
        .with_some((!notes.is_empty()).then_some(notes))
}

/// Every kernel with every number: its rows are made as they are written
/// ([`kernel_rows`]).
fn kernel_table(doc: &AnalysisDocument) -> Table {
    Table::deferred("kernel", kernel_columns(doc), doc.kernels.len())
}

fn kernel_columns(doc: &AnalysisDocument) -> Vec<Column> {
    let timed = doc.kernels.iter().any(|k| k.kernel.duration_s.is_some());
    let mut columns = vec![
        Column::text("id", "ID").show(Show::Data),
        Column::text("name", "name").show(Show::Data),
        Column::text("display_name", "display name").show(Show::Data),
        Column::text("kernel", "kernel")
            .show(Show::Readers)
            .help("display name and stable ID; hover for the full name"),
        Column::value("launches", "launches", Quantity::Count).show(Show::Data),
        Column::text("origin", "origin").show(Show::Data),
    ];
    if has_capture_order(doc) {
        columns.push(
            Column::value("capture_order", "capture #", Quantity::Count)
                .show(Show::Wide)
                .help("the kernel's place in the profiler's capture order; rows are sorted by GPU time"),
        );
    }
    columns.extend([
        Column::value("time", "time", Quantity::Si(Unit::Second)).help("total duration of all launches"),
        Column::value("time_share", "share", Quantity::Percent).help("share of the GPU time of all kernels here"),
    ]);
    for k in FlopKind::ALL {
        columns
            .push(Column::value(k.key(), &format!("{} FLOPs", k.label()), Quantity::Si(Unit::Flop)).show(Show::Data));
    }
    for l in MemLevel::ALL {
        columns
            .push(Column::value(l.key(), &format!("bytes {}", l.label()), Quantity::Si(Unit::Byte)).show(Show::Data));
        columns.push(
            Column::value(
                &format!("intensity_{}", l.key()),
                &format!("AI {}", l.label()),
                Quantity::Si(Unit::FlopPerByte),
            )
            .help(&format!("arithmetic intensity: FLOP per {} byte", l.label())),
        );
        columns.push(
            Column::value(
                &format!("achieved_{}", l.key()),
                &format!("achieved {}", l.label()),
                Quantity::Si(Unit::BytePerSecond),
            )
            .show(Show::Data),
        );
    }
    columns.extend([
        Column::mixed("achieved", "achieved").help("FLOP/s reached (bandwidth reached, for kernels with no FLOPs)"),
        Column::mixed("roof", "roof").help("the lowest roof at this kernel's intensities, and what sets it"),
        Column::mixed("compute_roof", "compute roof").show(Show::Data),
        Column::text("limiter", "limiter").show(Show::Data),
        Column::value("pct_of_roof", "% of roof", Quantity::Percent)
            .help("achieved / roof (for kernels with no FLOPs: best % of bandwidth)"),
        Column::value("roof_pct_of_peak", "roof % of peak", Quantity::Percent)
            .show(if timed { Show::Wide } else { Show::Everywhere })
            .help("the roof as a share of the compute peak: what the intensity allows at best"),
        Column::text("bound", "bound").help("which side of the ridge"),
        Column::text("position", "diagnosis").help("where the point landed"),
        Column::text("next_move", "next move").show(Show::Wide).under().help("what to try next"),
    ]);
    columns
}

/// Whether the analysis knows the capture's order (analyses made before
/// kernels were sorted by GPU time do not): then it is a column.
fn has_capture_order(doc: &AnalysisDocument) -> bool {
    doc.kernels.iter().any(|k| k.kernel.capture_order.is_some())
}

/// The rows of [`kernel_table`], one per kernel in the document's order.
pub(crate) fn kernel_rows(doc: &AnalysisDocument, row: &mut dyn FnMut(Row)) {
    let labels = unique_labels(&doc.kernels);
    let with_order = has_capture_order(doc);
    for (i, a) in doc.kernels.iter().enumerate() {
        let k = &a.kernel;
        let unit = rate_unit(a);
        let mut cells = vec![
            Cell::text(&k.id),
            Cell::text(&k.name),
            Cell::text(&k.display_name),
            Cell::Name { name: labels[i].clone(), id: k.id.clone(), full: k.name.clone() },
            Cell::value(Some(k.launches as f64), Quantity::Count),
            Cell::text(k.origin.label()),
        ];
        if with_order {
            cells.push(Cell::value(k.capture_order.map(|o| o as f64), Quantity::Count));
        }
        cells.extend([
            match k.duration_s.filter(|d| d.is_finite()) {
                // A trace's durations were measured; only its FLOPs and bytes are estimated.
                Some(d) => Value::new(d, Quantity::Si(Unit::Second))
                    .origin(if k.origin == roofline_model::Origin::Estimated {
                        roofline_model::Origin::Measured
                    } else {
                        k.origin
                    })
                    .cell(),
                None => Cell::Empty,
            },
            Cell::value(a.time_share.map(|s| 100.0 * s), Quantity::Percent),
        ]);
        cells
            .extend(FlopKind::ALL.iter().map(|kind| Cell::value(k.flops.get(kind).copied(), Quantity::Si(Unit::Flop))));
        for l in MemLevel::ALL {
            let p = a.level(l);
            cells.push(Cell::value(p.map(|p| p.bytes), Quantity::Si(Unit::Byte)));
            cells.push(Cell::value(p.and_then(|p| p.intensity), Quantity::Si(Unit::FlopPerByte)));
            cells.push(Cell::value(p.and_then(|p| p.achieved_bytes_per_s), Quantity::Si(Unit::BytePerSecond)));
        }
        let achieved = if let Some(c) = &a.collective {
            // A collective moves bytes over the links: its bus bandwidth.
            match c.achieved_bytes_per_s {
                Some(b) => Value::new(b, Quantity::Si(Unit::BytePerSecond)).note("bus").cell(),
                None => Cell::Empty,
            }
        } else if a.total_flops > 0.0 {
            Cell::value(a.achieved_flops_per_s, Quantity::Si(unit))
        } else {
            // No FLOPs: what the limiting level moved.
            let level = match a.limiter {
                Some(Limiter::Bandwidth(l)) => Some(l),
                _ => None,
            };
            match level.and_then(|l| a.level(l)).and_then(|p| p.achieved_bytes_per_s.map(|b| (p.level, b))) {
                Some((l, b)) => Value::new(b, Quantity::Si(Unit::BytePerSecond)).note(l.label()).cell(),
                None => Cell::Empty,
            }
        };
        let tone = a.diagnosis.as_ref().map(|d| position_tone(d.position));
        let (position, next) = verdict(a);
        cells.extend([
            achieved,
            match (&a.collective, a.attainable_flops_per_s.filter(|r| r.is_finite())) {
                (Some(c), _) => match (c.roof_bytes_per_s, &c.roof_name) {
                    (Some(r), Some(n)) => Value::new(r, Quantity::Si(Unit::BytePerSecond)).note(n.clone()).cell(),
                    _ => Cell::Empty,
                },
                (None, Some(r)) => Value::new(r, Quantity::Si(unit)).note(limiter_text(a)).cell(),
                (None, None) => Cell::Empty,
            },
            Cell::value(a.compute_roof_flops_per_s, Quantity::Si(unit)),
            Cell::opt_text(a.limiter.map(|l| match l {
                Limiter::Bandwidth(l) => l.key().to_string(),
                Limiter::Compute => "compute".to_string(),
            })),
            match a.pct_of_roof.filter(|p| p.is_finite()) {
                Some(p) => Value::new(p, Quantity::Percent).tone(tone).cell(),
                None => Cell::Empty,
            },
            match (a.attainable_flops_per_s, a.compute_roof_flops_per_s) {
                (Some(r), Some(p)) if p > 0.0 => Cell::value(Some(100.0 * r / p), Quantity::Percent),
                _ => Cell::Empty,
            },
            bound_cell(a.bound),
            Cell::toned(position, tone),
            Cell::opt_text(next),
        ]);
        row(Row { cells, tone: None, link: Some(("data-k", i.to_string())) });
    }
}

/// The verdict word and the next move, also for kernels with no diagnosis.
fn verdict(a: &KernelAnalysis) -> (String, Option<String>) {
    if let Some(c) = &a.collective {
        return ("communication".into(), Some(super::collectives::next_move(c)));
    }
    match &a.diagnosis {
        Some(d) => (d.position.label().to_string(), Some(d.next_move_text())),
        None if !a.missing_ceilings.is_empty() => (
            format!("no {} ceiling", a.missing_ceilings.iter().map(|k| k.label()).collect::<Vec<_>>().join(", ")),
            Some("add the missing ceiling (roofline bench, or a machine JSON)".into()),
        ),
        None if a.kernel.duration_s.is_none() => {
            ("estimate".into(), Some("run it and time it to place it under its roof".into()))
        }
        None => ("-".into(), None),
    }
}

fn kernel_item(doc: &AnalysisDocument, i: usize, label: &str, with_workings: bool) -> Item {
    let a = &doc.kernels[i];
    let (verdict, next) = verdict(a);
    let tone = a.diagnosis.as_ref().map(|d| position_tone(d.position));
    Item {
        head: name_cell(a, label),
        verdict: Cell::toned(verdict, tone),
        lines: {
            let mut lines = a.diagnosis.as_ref().map(Diagnosis::evidence_lines).unwrap_or_default();
            // Where to find it in the capture: [k...] is a hash of its name.
            let ids = &a.kernel.evidence.ncu_launch_ids;
            if !ids.is_empty() {
                let more = a.kernel.launches.saturating_sub(ids.len() as u64);
                lines.push(format!(
                    "in Nsight Compute: launch ID{} {}{}",
                    if ids.len() == 1 { "" } else { "s" },
                    ids.join(", "),
                    if more > 0 { format!(" and {more} more") } else { String::new() }
                ));
            }
            lines
        },
        action: next,
        link: Some(("data-k", i.to_string())),
        workings: if with_workings { workings(doc, a) } else { Vec::new() },
    }
}

/// The formulas behind a kernel's numbers, with their values.
fn workings(doc: &AnalysisDocument, a: &KernelAnalysis) -> Vec<String> {
    use roofline_model::{format_seconds, format_si};
    let unit = rate_unit(a);
    let k = &a.kernel;
    let mut w = Vec::new();
    w.push(format!(
        "FLOPs = {} ({}){}",
        format_si(a.total_flops, Unit::Flop),
        crate::chart::model::flop_mix(a),
        match k.origin {
            roofline_model::Origin::Counter => ", from hardware counters",
            roofline_model::Origin::User => ", as given",
            roofline_model::Origin::Estimated => ", estimated from the operator's shapes (not counted)",
            _ => "",
        }
    ));
    if let Some(t) = k.duration_s {
        w.push(format!(
            "time = {} over {} launch{}{}",
            format_seconds(t),
            k.launches,
            if k.launches == 1 { "" } else { "es" },
            a.time_share
                .map(|s| format!(", {} of the GPU time of all kernels here", format_percent(100.0 * s)))
                .unwrap_or_default()
        ));
    }
    for p in &a.levels {
        let l = p.level.label();
        if let Some(i) = p.intensity {
            w.push(format!(
                "intensity at {l} = FLOPs / {l} bytes = {} / {} = {}",
                format_si(a.total_flops, Unit::Flop),
                format_si(p.bytes, Unit::Byte),
                format_si(i, Unit::FlopPerByte)
            ));
        }
        if let (Some(b), Some(t)) = (p.achieved_bytes_per_s, k.duration_s) {
            let mut line = format!(
                "{l} traffic = {} / {} = {}",
                format_si(p.bytes, Unit::Byte),
                format_seconds(t),
                format_si(b, Unit::BytePerSecond)
            );
            if let (Some(bw), Some(pct)) = (p.bandwidth, p.pct_of_bandwidth) {
                line.push_str(&format!(
                    " = {} of the {l} roof ({})",
                    format_percent(pct),
                    format_si(bw, Unit::BytePerSecond)
                ));
            }
            w.push(line);
        }
    }
    if let (Some(pi), Some(name)) = (a.compute_roof_flops_per_s, &a.compute_roof_name) {
        let kinds: Vec<(FlopKind, f64)> = k.flops.iter().filter(|(_, f)| **f > 0.0).map(|(k, f)| (*k, *f)).collect();
        if kinds.len() > 1 {
            let terms: Vec<String> = kinds
                .iter()
                .filter_map(|(kind, f)| {
                    let c = doc.machine.compute_roof(*kind)?;
                    Some(format!("{} / {}", format_si(*f, Unit::Flop), c.formatted()))
                })
                .collect();
            w.push(format!("compute roof ({name}) = FLOPs / ({}) = {}", terms.join(" + "), format_si(pi, unit)));
        } else {
            w.push(format!("compute roof = {name}: {}", format_si(pi, unit)));
        }
        for p in &a.levels {
            if let (Some(i), Some(bw), Some(r)) = (p.intensity, p.bandwidth, p.attainable_flops_per_s) {
                w.push(format!(
                    "roof at {l} = min({}, {} x {}) = {}",
                    format_si(pi, unit),
                    format_si(i, Unit::FlopPerByte),
                    format_si(bw, Unit::BytePerSecond),
                    format_si(r, unit),
                    l = p.level.label()
                ));
            }
        }
    }
    if let Some(r) = a.attainable_flops_per_s {
        w.push(format!("roof = the lowest of those = {} ({})", format_si(r, unit), limiter_text(a)));
        if let (Some(v), Some(p)) = (a.achieved_flops_per_s, a.pct_of_roof) {
            w.push(format!(
                "achieved = FLOPs / time = {}; % of roof = {} / {} = {}",
                format_si(v, unit),
                format_si(v, unit),
                format_si(r, unit),
                format_percent(p)
            ));
        }
    } else if a.total_flops <= 0.0 {
        if let Some(p) = a.pct_of_roof {
            w.push(format!("no FLOPs: judged by its best % of bandwidth over the levels = {}", format_percent(p)));
        }
    }
    w
}

/// Kernels whose detail panels spell out their formulas (those with the
/// most time): past this, a page of 100,000 kernels would carry hundreds
/// of megabytes of the same arithmetic.
const MAX_WORKINGS: usize = 500;

/// The verdict word of a kernel for the narrow view, and its tone: the
/// program view's verdict for a kernel placed under its roof, the side of
/// the ridge for a paper estimate, what is missing otherwise.
pub(crate) fn verdict_cell(a: &KernelAnalysis) -> Cell {
    match Verdict::of(a) {
        Verdict::NoCounters if !a.missing_ceilings.is_empty() => Cell::text(format!(
            "no {} roof",
            a.missing_ceilings.iter().map(|k| k.label()).collect::<Vec<_>>().join(", ")
        )),
        Verdict::NoCounters => match (a.kernel.duration_s, a.bound) {
            (None, Some(b)) => Cell::toned(
                format!("{}-bound", b.label()),
                Some(if b == Bound::Memory { Tone::Memory } else { Tone::Compute }),
            ),
            _ => Cell::text(Verdict::NoCounters.label()),
        },
        v => Cell::toned(v.label(), verdict_tone(v)),
    }
}

/// "0.248 FLOP/B (L1)": the intensity at the level that limits the kernel
/// (DRAM for a compute-bound one).
fn intensity_cell(a: &KernelAnalysis) -> Cell {
    let level = match a.limiter {
        Some(Limiter::Bandwidth(l)) => l,
        _ => MemLevel::Dram,
    };
    match a.level(level).and_then(|p| p.intensity).filter(|i| i.is_finite()) {
        Some(i) => Value::new(i, Quantity::Si(Unit::FlopPerByte))
            .note(match level {
                MemLevel::L1 => "L1",
                l => l.label(),
            })
            .cell(),
        None => Cell::Empty,
    }
}

/// The kernels at a glance: one line each, most time first, at most
/// [`GLANCE_KERNELS`]; untimed estimates show their roof instead.
fn glance_table(doc: &AnalysisDocument) -> (Table, Option<Note>) {
    let timed = doc.kernels.iter().any(|k| k.kernel.duration_s.is_some());
    let mut order: Vec<usize> = (0..doc.kernels.len()).collect();
    if timed {
        let time = |i: &usize| doc.kernels[*i].kernel.duration_s.filter(|d| d.is_finite()).unwrap_or(-1.0);
        order.sort_by(|a, b| time(b).total_cmp(&time(a)));
    }
    let mut columns = vec![
        Column::text("kernel", "kernel"),
        Column::value("time_share", "share", Quantity::Percent).help("share of the GPU time of all kernels here"),
        Column::value("intensity", "intensity", Quantity::Si(Unit::FlopPerByte))
            .help("FLOP per byte at the level that limits the kernel (DRAM when compute-bound)"),
    ];
    if timed {
        columns.push(Column::value("pct_of_roof", "% of roof", Quantity::Percent));
    } else {
        columns.push(Column::mixed("roof", "roof"));
        columns.push(Column::value("roof_pct_of_peak", "% of peak", Quantity::Percent));
    }
    columns.push(Column::text("verdict", "verdict"));
    let mut t = Table::new("kernel", columns);
    let labels = unique_labels(&doc.kernels);
    for &i in order.iter().take(GLANCE_KERNELS) {
        let a = &doc.kernels[i];
        let tone = a.diagnosis.as_ref().map(|d| position_tone(d.position));
        let mut cells = vec![
            name_cell(a, &labels[i]),
            Cell::value(a.time_share.map(|s| 100.0 * s), Quantity::Percent),
            intensity_cell(a),
        ];
        if timed {
            cells.push(match a.pct_of_roof.filter(|p| p.is_finite()) {
                Some(p) => Value::new(p, Quantity::Percent).tone(tone).cell(),
                None => Cell::Empty,
            });
        } else {
            cells.push(Cell::value(a.attainable_flops_per_s, Quantity::Si(rate_unit(a))));
            cells.push(match (a.attainable_flops_per_s, a.compute_roof_flops_per_s) {
                (Some(r), Some(p)) if p > 0.0 => Cell::value(Some(100.0 * r / p), Quantity::Percent),
                _ => Cell::Empty,
            });
        }
        cells.push(verdict_cell(a));
        t.push(cells).link = Some(("data-k", i.to_string()));
    }
    let rest = &order[order.len().min(GLANCE_KERNELS)..];
    let note = (!rest.is_empty()).then(|| {
        let share: f64 = rest.iter().filter_map(|&i| doc.kernels[i].time_share).sum();
        Note::info(format!(
            "{} more kernel(s) with {} of the GPU time: --wide lists them all, as do --format csv and the HTML report.",
            rest.len(),
            format_percent(100.0 * share)
        ))
    });
    (t, note)
}

/// The kernel table: one line per kernel at a glance, every column in the
/// wide view and on pages.
pub(crate) fn kernel_sections(doc: &AnalysisDocument) -> Vec<Section> {
    let (glance, more) = glance_table(doc);
    vec![
        Section::new("kernels-glance", "").show(Show::Glance).with(glance).with_some(more.map(|n| vec![n])),
        Section::new("kernels", "").show(Show::Wide).with(kernel_table(doc)),
    ]
}

/// The diagnoses: at a glance the next move of the top opportunities; every
/// kernel's evidence and next move in the wide view and on pages, with the
/// workings (formulas and values) of the kernels with the most time.
pub(crate) fn diagnosis_sections(doc: &AnalysisDocument) -> Vec<Section> {
    let labels = unique_labels(&doc.kernels);
    let mut by_time: Vec<usize> = (0..doc.kernels.len()).collect();
    let share = |i: usize| doc.kernels[i].time_share.filter(|s| s.is_finite()).unwrap_or(0.0);
    by_time.sort_by(|&a, &b| share(b).total_cmp(&share(a)).then(a.cmp(&b)));
    let mut with_workings = vec![false; doc.kernels.len()];
    for &i in by_time.iter().take(MAX_WORKINGS) {
        with_workings[i] = true;
    }
    let items: Vec<Item> = (0..doc.kernels.len()).map(|i| kernel_item(doc, i, &labels[i], with_workings[i])).collect();
    let top: Vec<Item> = doc
        .program
        .iter()
        .flat_map(|p| p.opportunities.iter().take(GLANCE_OPPORTUNITIES))
        .filter_map(|o| doc.kernels.iter().position(|a| a.kernel.id == o.id))
        .filter(|&i| doc.kernels[i].diagnosis.is_some())
        .map(|i| Item { lines: Vec::new(), workings: Vec::new(), ..kernel_item(doc, i, &labels[i], false) })
        .collect();
    let title = format!("next moves for the top {} (--wide: every diagnosis with its evidence)", top.len());
    vec![
        Section::new("next-moves", title).show(Show::Glance).with_some((!top.is_empty()).then_some(top)),
        Section::new("diagnosis", "diagnosis").show(Show::Wide).with_some((!items.is_empty()).then_some(items)),
    ]
}

pub(crate) fn notes_section(doc: &AnalysisDocument) -> Section {
    let facts: Vec<Fact> = doc
        .source
        .byte_convention
        .iter()
        .map(|c| Fact::new("byte_convention", "bytes per level", Cell::text(c)))
        .collect();
    let mut notes = Vec::new();
    for a in &doc.kernels {
        if !a.missing_ceilings.is_empty() {
            notes.push(Note::warning(format!(
                "{}: the machine has no ceiling for {}; those FLOPs are left out of its roof",
                kernel_label(a),
                a.missing_ceilings.iter().map(|k| k.label()).collect::<Vec<_>>().join(", ")
            )));
        }
    }
    notes.extend(doc.warnings.iter().map(|w| Note::warning(w.to_string())));
    Section::new("notes", "")
        .with_some((!facts.is_empty()).then_some(facts))
        .with_some((!notes.is_empty()).then_some(notes))
}

/// Where the kernels came from, who wrote the document, and the formulas.
pub(crate) fn method_section(doc: &AnalysisDocument, id: &str, title: &str) -> Section {
    let source = match doc.source.kind.as_str() {
        "model" => "paper estimates: FLOPs and bytes as described by the user",
        "ncu" => "Nsight Compute hardware counters",
        "timing" => "CUDA event timing of kernels with known FLOPs and bytes",
        other => other,
    };
    let mut facts =
        vec![Fact::new("kernels_from", "kernels from", Cell::text(format!("{source} ({})", doc.source.kind)))];
    if !doc.source.detail.is_empty() {
        facts.push(Fact::new("input", "input", Cell::text(&doc.source.detail)));
    }
    if let Some(c) = &doc.source.byte_convention {
        facts.push(Fact::new("bytes_counted_as", "bytes counted as", Cell::text(c)));
    }
    let p = &doc.producer;
    facts.push(Fact::new(
        "written_by",
        "written by",
        Cell::text(format!(
            "{} {}{}{}",
            p.tool,
            p.version,
            if p.command.is_empty() { String::new() } else { format!(", `{}`", p.command) },
            p.created.as_ref().map(|c| format!(", {c}")).unwrap_or_default()
        )),
    ));
    facts.push(Fact::new("schema", "schema", Cell::text(&doc.schema)));
    let notes = vec![
        Note::info("Arithmetic intensity (AI) at a memory level = the kernel's FLOPs / the bytes that crossed that level."),
        Note::info("The roof at a level = min(compute peak, AI x that level's bandwidth); the roof that applies is the lowest over the levels (the hierarchical roofline). A kernel mixing FLOP kinds is judged against F / sum(F_k / peak_k)."),
        Note::info("Achieved = FLOPs / duration; % of roof = achieved / roof. Kernels with no FLOPs are judged by their best % of bandwidth."),
        Note::info("Measured ceilings are preferred over theoretical ones of the same kind; theoretical ones are drawn dashed, measured or user-given ones solid."),
        Note::info(format!(
            "Diagnosis: at or above {} of its roof a kernel is on it; below {} of its roof and of every bandwidth it is latency-bound ({} for a compute-bound kernel held by a FLOP pipe).",
            format_percent(ON_ROOF_PCT),
            format_percent(LATENCY_PCT),
            format_percent(FLOP_PIPE_LATENCY_PCT)
        )),
    ];
    Section::new(id, title).show(Show::Wide).with(facts).with(notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fed(doc: &AnalysisDocument) -> Paged {
        let mut page = PageKernels::new();
        for (i, k) in doc.kernels.iter().enumerate() {
            page.push(i, k);
        }
        assert_eq!(page.len(), doc.kernels.len());
        let head = AnalysisDocument { kernels: Vec::new(), ..doc.clone() };
        page.finish(&head)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(8))]
        /// Fed a kernel at a time, the page is the one made of the whole
        /// document: the same kernels in the same order (ties in time in
        /// document order, untimed ones last), the same share left out.
        #[test]
        fn a_page_made_kernel_by_kernel_is_the_page_of_the_whole(
            extra in 0usize..600, buckets in 1u64..50, untimed in 0usize..7
        ) {
            let mut doc = roofline_documents::synthetic::rank(0, 2, (PAGE_KERNELS - 300 + extra) as u64, 5000, true);
            for (i, k) in doc.kernels.iter_mut().enumerate() {
                // Few distinct times: many ties across the page's edge.
                k.kernel.duration_s = (untimed == 0 || i % 7 != untimed).then_some(1e-3 * (i as u64 % buckets) as f64);
            }
            match (fed(&doc), page_view(&doc)) {
                (Paged::Page(p), Some(whole)) => prop_assert_eq!(p, whole),
                (Paged::Whole(w), None) => prop_assert_eq!(w, doc),
                (Paged::Page(_), None) => prop_assert!(false, "a page of a document that fits one"),
                (Paged::Whole(_), Some(_)) => prop_assert!(false, "no page of a document that needs one"),
            }
        }
    }
}
