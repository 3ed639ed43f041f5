//! A job of several ranks: each rank's GPU time split into compute, memory
//! and communication; each kernel's spread over the ranks and its slowest
//! rank; then the job as one analysis (its chart, kernels, collectives and
//! diagnosis), as `report` shows any analysis.

use roofline_analysis::TimeClass;
use roofline_documents::{MergedDocument, MergedKernel};
use roofline_model::Unit;

use crate::chart::ChartOptions;
use crate::view::{
    Cell, ChartControls, ChartKind, Column, Describe, Fact, Note, PointDetail, Quantity, Row, Section, Show, Table,
    Tone, Value,
};

/// Rows of the straggler table for people; CSV and JSON have every kernel.
pub const STRAGGLER_ROWS: usize = 40;
/// A slowest rank this far (%) behind the median is coloured.
pub const STRAGGLER_PCT: f64 = 10.0;

impl Describe for MergedDocument {
    fn title(&self) -> String {
        format!("Job of {} rank(s) on {}", self.ranks.len(), self.job.machine.name)
    }

    fn subtitle(&self) -> String {
        format!(
            "{} kernels, merged from {} file(s)",
            self.kernels.len(),
            self.ranks.iter().map(|r| r.inputs.len()).sum::<usize>()
        )
    }

    fn sections(&self) -> Vec<Section> {
        let mut s = vec![rank_section(self), straggler_section(self)];
        s.push(per_rank_section(self));
        if !self.warnings.is_empty() {
            s.push(
                Section::new("merge_notes", "")
                    .with(self.warnings.iter().map(|w| Note::warning(w.text())).collect::<Vec<_>>()),
            );
        }
        s.extend(self.job.sections());
        s
    }

    fn deferred_rows(&self, table: &str, row: &mut dyn FnMut(Row)) {
        if table == PER_RANK_TABLE {
            per_rank_rows(self, row);
        } else {
            self.job.deferred_rows(table, row);
        }
    }

    fn chart_svg(&self, chart: ChartKind, opts: &ChartOptions) -> Option<String> {
        self.job.chart_svg(chart, opts)
    }

    fn chart_text(&self, chart: ChartKind, width: usize, color: bool) -> Option<String> {
        self.job.chart_text(chart, width, color)
    }

    fn chart_controls(&self, chart: ChartKind) -> ChartControls {
        self.job.chart_controls(chart)
    }

    fn point_details(&self) -> Vec<PointDetail> {
        self.job.point_details()
    }
}

fn pct(part: f64, total: f64) -> Cell {
    Cell::value((total > 0.0).then(|| 100.0 * part / total), Quantity::Percent)
}

fn rank_section(doc: &MergedDocument) -> Section {
    let total: f64 = doc.ranks.iter().map(|r| r.time_s).sum();
    let mut by_class = Vec::new();
    for c in TimeClass::ALL {
        let t: f64 = doc.ranks.iter().map(|r| r.split.get(c)).sum();
        by_class.push((
            c.label().to_string(),
            Value::new(if total > 0.0 { 100.0 * t / total } else { 0.0 }, Quantity::Percent),
        ));
    }
    let facts = vec![
        Fact::new("ranks", "ranks", Cell::value(Some(doc.ranks.len() as f64), Quantity::Count)),
        Fact::new("kernels", "kernels", Cell::value(Some(doc.kernels.len() as f64), Quantity::Count)),
        Fact::new("gpu_time", "GPU time, all ranks", Cell::value(Some(total), Quantity::Si(Unit::Second))),
        Fact::new("time_by_class", "GPU time by class", Cell::Values(by_class)),
    ];
    let mut t = Table::new(
        "rank",
        vec![
            Column::value("rank", "rank", Quantity::Count),
            Column::text("inputs", "file(s)").show(Show::Wide),
            Column::text("launcher", "launcher").show(Show::Wide),
            Column::text("host", "host").show(Show::Wide),
            Column::value("kernels", "kernels", Quantity::Count),
            Column::value("launches", "launches", Quantity::Count).show(Show::Wide),
            Column::value("time", "GPU time", Quantity::Si(Unit::Second)).help("summed duration of the rank's kernels"),
            Column::value("compute_pct", "compute", Quantity::Percent)
                .help("share of the rank's GPU time in compute-bound kernels"),
            Column::value("memory_pct", "memory", Quantity::Percent).help("in memory-bound kernels"),
            Column::value("communication_pct", "communication", Quantity::Percent).help("in NCCL collectives"),
            Column::value("unplaced_pct", "not placed", Quantity::Percent)
                .help("in kernels with no roof or no duration"),
        ],
    );
    let slowest = doc.ranks.iter().map(|r| r.time_s).fold(0.0, f64::max);
    for r in &doc.ranks {
        let row = t.push(vec![
            Cell::value(Some(r.rank as f64), Quantity::Count),
            Cell::text(r.inputs.join(", ")),
            Cell::opt_text(r.info.as_ref().map(|i| format!("{} ({})", i.launcher, i.variable))),
            Cell::opt_text(r.info.as_ref().and_then(|i| i.host.clone())),
            Cell::value(Some(r.kernels as f64), Quantity::Count),
            Cell::value(Some(r.launches as f64), Quantity::Count),
            Cell::value(Some(r.time_s), Quantity::Si(Unit::Second)),
            pct(r.split.compute_s, r.time_s),
            pct(r.split.memory_s, r.time_s),
            pct(r.split.communication_s, r.time_s),
            pct(r.split.unplaced_s, r.time_s),
        ]);
        if doc.ranks.len() > 1 && r.time_s == slowest && slowest > 0.0 {
            row.tone = Some(Tone::Fair);
        }
    }
    Section::new("ranks", format!("{} rank(s): GPU time by class", doc.ranks.len())).with(facts).with(t)
}

fn kernel_cells(k: &MergedKernel) -> Vec<Cell> {
    let present = k.time_s.iter().flatten().count();
    let tone = k.behind_median_pct.map(|p| if p > STRAGGLER_PCT { Tone::Poor } else { Tone::Good });
    let sec = |v: Option<f64>| Cell::value(v, Quantity::Si(Unit::Second));
    vec![
        Cell::Name { name: k.display_name.clone(), id: k.id.clone(), full: k.name.clone() },
        Cell::text(&k.name),
        Cell::text(k.class.label()),
        Cell::value(Some(present as f64), Quantity::Count),
        match k.spread {
            Some(s) => Value::new(s.median, Quantity::Si(Unit::Second)).spread(Some(s)).cell(),
            None => Cell::Empty,
        },
        sec(k.spread.map(|s| s.min)),
        sec(k.spread.map(|s| s.max)),
        Cell::value(k.slowest_rank.map(f64::from), Quantity::Count),
        match k.behind_median_pct.filter(|p| p.is_finite()) {
            Some(p) => Value::new(p, Quantity::Percent).tone(tone).cell(),
            None => Cell::Empty,
        },
    ]
}

fn kernel_columns() -> Vec<Column> {
    vec![
        Column::text("kernel", "kernel").show(Show::Readers),
        Column::text("name", "name").show(Show::Data),
        Column::text("class", "class"),
        Column::value("ranks", "ranks", Quantity::Count).help("ranks that ran it"),
        Column::with_provenance("median_time", "median rank", Some(Quantity::Si(Unit::Second)))
            .help("the kernel's GPU time on the median rank, with its spread over the ranks"),
        Column::value("min_time", "fastest", Quantity::Si(Unit::Second)).show(Show::Wide),
        Column::value("max_time", "slowest", Quantity::Si(Unit::Second)),
        Column::value("slowest_rank", "slowest rank", Quantity::Count),
        Column::value("behind_median", "behind median", Quantity::Percent)
            .help("how much longer the slowest rank took than the median rank"),
    ]
}

fn straggler_section(doc: &MergedDocument) -> Section {
    let mut readers = Table::new("straggler", kernel_columns());
    for k in doc.kernels.iter().take(STRAGGLER_ROWS) {
        readers.push(kernel_cells(k));
    }
    let mut notes = vec![Note::info(format!(
        "Kernels by GPU time over all ranks. The slowest rank of a kernel more than {STRAGGLER_PCT:.0}% behind the median rank is a straggler for it."
    ))];
    if doc.kernels.len() > STRAGGLER_ROWS {
        notes.push(Note::remark(format!(
            "the {STRAGGLER_ROWS} kernels with the most time of {}; every kernel is in the CSV and JSON",
            doc.kernels.len()
        )));
    }
    let behind: Vec<&MergedKernel> =
        doc.kernels.iter().filter(|k| k.behind_median_pct.is_some_and(|p| p > STRAGGLER_PCT)).collect();
    let mut facts = Vec::new();
    if !behind.is_empty() {
        let mut per_rank: std::collections::BTreeMap<u32, usize> = Default::default();
        for k in &behind {
            if let Some(r) = k.slowest_rank {
                *per_rank.entry(r).or_default() += 1;
            }
        }
        let cells =
            per_rank.into_iter().map(|(r, n)| (format!("rank {r}"), Value::new(n as f64, Quantity::Count))).collect();
        facts.push(Fact::new(
            "stragglers",
            format!("kernels a rank is slowest at by more than {STRAGGLER_PCT:.0}%"),
            Cell::Values(cells),
        ));
    }
    Section::new("stragglers", "Kernels across ranks")
        .show(Show::Readers)
        .with_some((!facts.is_empty()).then_some(facts))
        .with(readers)
        .with(notes)
}

/// Every kernel with its time on every rank, for scripts.
fn per_rank_section(doc: &MergedDocument) -> Section {
    let mut cols = kernel_columns();
    for r in &doc.ranks {
        cols.push(Column::value(&format!("rank_{}", r.rank), &format!("rank {}", r.rank), Quantity::Si(Unit::Second)));
    }
    // One row per kernel of the job (a million for a pathological job):
    // made as the writer takes them, and only by the writers that show it.
    let t = Table::deferred(PER_RANK_TABLE, cols, doc.kernels.len());
    Section::new("per_rank", "").show(Show::Data).with(t)
}

const PER_RANK_TABLE: &str = "kernel_rank";

fn per_rank_rows(doc: &MergedDocument, row: &mut dyn FnMut(Row)) {
    for k in &doc.kernels {
        let mut cells = kernel_cells(k);
        cells.extend(k.time_s.iter().map(|v| Cell::value(*v, Quantity::Si(Unit::Second))));
        row(Row { cells, tone: None, link: None });
    }
}
