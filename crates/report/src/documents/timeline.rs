//! A timeline (`roofline timeline`): time per kernel like `nsys stats
//! --report cuda_gpu_kern_sum`, copies and memsets, how busy each GPU was
//! and its largest idle gaps, and time per NVTX range. Every figure is
//! measured (CUPTI activity timestamps of the program's own run), so every
//! value carries the measured origin.

use roofline_model::Origin;
use roofline_model::Unit;
use roofline_timeline::TimelineDocument;
use roofline_timeline::{Busy, SummaryRow};
use serde::Serialize;

use crate::view::{Cell, Column, Describe, Fact, Note, Quantity, Section, Show, Table, Tone, Value};

/// A GPU at least this busy over the wall time is kept fed (green); under
/// [`IDLE_SHARE`] it mostly waits on the host (red); in between, yellow.
pub const BUSY_SHARE: f64 = 0.9;
/// See [`BUSY_SHARE`].
pub const IDLE_SHARE: f64 = 0.5;

/// The tone of a busy share: how well the program keeps the GPU fed.
pub(crate) fn busy_tone(share: f64) -> Option<Tone> {
    if !share.is_finite() {
        None
    } else if share >= BUSY_SHARE {
        Some(Tone::Good)
    } else if share >= IDLE_SHARE {
        Some(Tone::Fair)
    } else {
        Some(Tone::Poor)
    }
}

/// Whether the run ended as a normal, successful exit.
fn finished_well(run: &roofline_timeline::RunInfo) -> bool {
    run.ended_by == "exit" && run.exit_code == Some(0)
}

/// Kernels listed for people by default (every one in CSV and JSON).
pub const DEFAULT_TOP: usize = 20;

/// A timeline as shown: the document and how many kernels the tables for
/// people list. JSON is the document itself.
#[derive(Debug, Clone, Copy)]
pub struct TimelineView<'a> {
    /// The document.
    pub doc: &'a TimelineDocument,
    /// Kernels listed in the terminal, Markdown and HTML tables.
    pub top: usize,
}

impl<'a> TimelineView<'a> {
    /// The view of a document with the default number of kernels.
    pub fn new(doc: &'a TimelineDocument) -> TimelineView<'a> {
        TimelineView { doc, top: DEFAULT_TOP }
    }
}

impl Serialize for TimelineView<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.doc.serialize(s)
    }
}

impl Describe for TimelineDocument {
    fn title(&self) -> String {
        TimelineView::new(self).title()
    }

    fn subtitle(&self) -> String {
        TimelineView::new(self).subtitle()
    }

    fn sections(&self) -> Vec<Section> {
        TimelineView::new(self).sections()
    }
}

impl Describe for TimelineView<'_> {
    fn title(&self) -> String {
        format!("Timeline of {}", program_name(self.doc))
    }

    fn subtitle(&self) -> String {
        let s = &self.doc.summary;
        format!(
            "{} kernel launches, {} copies and memsets, recorded without replay",
            s.kernel_launches, s.memory_operations
        )
    }

    fn sections(&self) -> Vec<Section> {
        let mut out = vec![run_section(self.doc)];
        out.extend(kernel_sections(self.doc, self.top));
        if !self.doc.summary.memory.is_empty() {
            out.push(Section::new("memory", "Copies and memsets").with(summary_table(
                "memory",
                &self.doc.summary.memory,
                true,
            )));
        }
        out.push(busy_section(self.doc));
        if !self.doc.summary.nvtx.is_empty() {
            out.push(nvtx_section(self.doc, self.top));
        }
        out
    }
}

/// The program's short name: its first word's file name.
pub(crate) fn program_name(doc: &TimelineDocument) -> String {
    let first = doc.run.command.first().map(String::as_str).unwrap_or("the program");
    first.rsplit('/').next().filter(|s| !s.is_empty()).unwrap_or(first).to_string()
}

/// Nanoseconds as a measured time.
pub(crate) fn ns_value(ns: f64) -> Value {
    Value::new(ns * 1e-9, Quantity::Si(Unit::Second)).origin(Origin::Measured)
}

fn ns_cell(ns: f64) -> Cell {
    if ns.is_finite() {
        ns_value(ns).cell()
    } else {
        Cell::Empty
    }
}

/// How the run ended, in words: "exited normally", "interrupted; exit 130".
pub(crate) fn ending_text(run: &roofline_timeline::RunInfo) -> String {
    let status = match (run.exit_code, run.signal) {
        (Some(0), _) => "exit status 0".to_string(),
        (Some(c), _) => format!("exit status {c}"),
        (None, Some(s)) => format!("stopped by signal {s}"),
        (None, None) => "status unknown".to_string(),
    };
    match run.ended_by.as_str() {
        "exit" => status,
        "interrupted" => format!("interrupted (the tool was asked to stop); {status}"),
        "timeout" => format!("--timeout reached; {status}"),
        other => format!("{other}; {status}"),
    }
}

fn run_section(doc: &TimelineDocument) -> Section {
    let s = &doc.summary;
    let mut facts = vec![
        Fact::new("program", "program", Cell::text(doc.run.command.join(" "))),
        Fact::new(
            "ended",
            "ended",
            Cell::toned(ending_text(&doc.run), Some(if finished_well(&doc.run) { Tone::Good } else { Tone::Poor })),
        ),
    ];
    if let Some(w) = doc.run.wall_s.filter(|w| w.is_finite()) {
        facts.push(Fact::new(
            "wall",
            "wall time",
            Value::new(w, Quantity::Si(Unit::Second)).origin(Origin::Measured).note("spawn to exit").cell(),
        ));
    }
    facts.extend([
        Fact::new(
            "processes",
            "processes recorded",
            Cell::value(Some(doc.timeline.processes.len() as f64), Quantity::Count),
        ),
        Fact::new("kernel_launches", "kernel launches", Cell::value(Some(s.kernel_launches as f64), Quantity::Count)),
        Fact::new("kernel_time", "kernel time", ns_value(s.kernel_ns as f64).note("summed over launches").cell()),
        Fact::new(
            "memory_operations",
            "copies and memsets",
            Cell::value(Some(s.memory_operations as f64), Quantity::Count),
        ),
    ]);
    let mut notes = vec![Note::remark(format!("source: {}", s.provenance))];
    if !finished_well(&doc.run) {
        notes.push(Note::warning(format!(
            "the program did not finish normally ({}): this is what was recorded until it stopped",
            ending_text(&doc.run)
        )));
    }
    notes.extend(doc.timeline.warnings.iter().map(|w| Note::warning(w.clone())));
    Section::new("run", format!("Timeline of {}", program_name(doc))).with(facts).with(notes)
}

/// The per-name table: Time, Total, Instances, Avg, Med, Min, Max,
/// StdDev, Name (and Bytes for copies), with every row in `rows`.
fn summary_table(name: &str, rows: &[SummaryRow], bytes: bool) -> Table {
    let second = Quantity::Si(Unit::Second);
    let mut columns = vec![
        Column::value("time_share", "Time", Quantity::Percent).help("share of the summed time of this kind"),
        Column::value("total", "Total", second),
        Column::value("instances", "Instances", Quantity::Count),
        Column::value("avg", "Avg", second),
        Column::value("median", "Med", second)
            .help("exact: the middle duration (the mean of the two middle ones for an even count)"),
        Column::value("min", "Min", second),
        Column::value("max", "Max", second),
        Column::value("stddev", "StdDev", second).help("sample standard deviation"),
    ];
    if bytes {
        columns.push(Column::value("bytes", "Bytes", Quantity::Si(Unit::Byte)));
    }
    columns.extend([
        Column::text("kernel", "Name").show(Show::Readers).help("short name; hover for the full name"),
        Column::text("name", "name").show(Show::Data),
        Column::text("mangled", "mangled").show(Show::Data),
    ]);
    let mut t = Table::new(name, columns);
    for r in rows {
        let mut cells = vec![
            Cell::value(Some(100.0 * r.time_share), Quantity::Percent),
            ns_cell(r.total_ns as f64),
            Cell::value(Some(r.instances as f64), Quantity::Count),
            ns_cell(r.avg_ns),
            ns_cell(r.median_ns),
            ns_cell(r.min_ns as f64),
            ns_cell(r.max_ns as f64),
            ns_cell(r.stddev_ns),
        ];
        if bytes {
            cells.push(Cell::value(r.bytes.map(|b| b as f64), Quantity::Si(Unit::Byte)));
        }
        cells.extend([
            Cell::Name { name: r.display_name.clone(), id: String::new(), full: r.name.clone() },
            Cell::text(&r.name),
            Cell::Empty,
        ]);
        t.push(cells);
    }
    t
}

fn kernel_sections(doc: &TimelineDocument, top: usize) -> Vec<Section> {
    let s = &doc.summary;
    let title = format!("GPU kernels: {} launches", s.kernel_launches);
    if s.kernels.is_empty() {
        return vec![Section::new("kernels", title).with(vec![Note::info("no kernels were recorded")])];
    }
    let shown = &s.kernels[..top.min(s.kernels.len())];
    let mut readers = Section::new("kernels", title).show(Show::Readers).with(summary_table("kernel", shown, false));
    if s.kernels.len() > shown.len() {
        readers = readers.with(vec![Note::info(format!(
            "{} more kernels (--top N; every kernel is in the CSV and JSON)",
            s.kernels.len() - shown.len()
        ))]);
    }
    let mut all = summary_table("kernel", &s.kernels, false);
    let mangled_col = all.columns.iter().position(|c| c.key == "mangled").expect("a mangled column");
    for (row, r) in all.rows.iter_mut().zip(&s.kernels) {
        row.cells[mangled_col] =
            Cell::opt_text(doc.timeline.names.get(r.name_id as usize).and_then(|n| n.mangled.clone()));
    }
    vec![readers, Section::new("kernels_all", "").show(Show::Data).with(all)]
}

fn gpu_label(b: &Busy) -> String {
    match (&b.gpu_name, b.gpu.pid) {
        (Some(n), Some(pid)) => format!("GPU {} ({n}) of pid {pid}", b.gpu.device),
        (Some(n), None) => format!("GPU {} ({n})", b.gpu.device),
        (None, Some(pid)) => format!("GPU {} of pid {pid}", b.gpu.device),
        (None, None) => format!("GPU {}", b.gpu.device),
    }
}

fn busy_section(doc: &TimelineDocument) -> Section {
    let second = Quantity::Si(Unit::Second);
    let section = Section::new("busy", "GPU busy (union of kernel intervals across streams)");
    if doc.summary.busy.is_empty() {
        return section.with(vec![Note::info("no kernels ran")]);
    }
    let mut t = Table::new(
        "busy",
        vec![
            Column::text("gpu", "GPU"),
            Column::value("busy", "busy", second)
                .help("union of kernel intervals: kernels side by side on two streams count once"),
            Column::value("wall", "of", second),
            Column::text("wall_basis", "wall")
                .help("the program's wall time, or first to last kernel when it is not known"),
            Column::value("busy_share", "busy share", Quantity::Percent)
                .help("green from 90%: the GPU is kept fed; red under 50%: it mostly waits on the host"),
            Column::value("idle", "idle", second),
            Column::value("gaps", "gaps", Quantity::Count),
        ],
    );
    for b in &doc.summary.busy {
        t.push(vec![
            Cell::text(gpu_label(b)),
            ns_cell(b.busy_ns as f64),
            ns_cell(b.wall_ns as f64),
            Cell::text(if b.wall_basis == "program" { "the program's wall time" } else { "first to last kernel" }),
            Value::new(100.0 * b.busy_share, Quantity::Percent).tone(busy_tone(b.busy_share)).cell(),
            ns_cell(b.idle_ns as f64),
            Cell::value(Some(b.gap_count as f64), Quantity::Count),
        ]);
    }
    let origin = doc.timeline.program.map(|p| p.start_ns);
    let mut gaps = Table::new(
        "gap",
        vec![
            Column::text("gpu", "GPU"),
            Column::value("at", "at", second).help("from the program's start"),
            Column::value("duration", "idle", second),
            Column::text("between", "between"),
        ],
    );
    for b in &doc.summary.busy {
        for g in &b.largest_gaps {
            let between = match (&g.before, &g.after) {
                (Some(a), Some(b)) => format!("{a} and {b}"),
                (None, Some(b)) => format!("before the first kernel ({b})"),
                (Some(a), None) => format!("after the last kernel ({a})"),
                (None, None) => String::new(),
            };
            gaps.push(vec![
                Cell::text(gpu_label(b)),
                match origin {
                    Some(o) => ns_cell(g.start_ns.saturating_sub(o) as f64),
                    None => Cell::Empty,
                },
                ns_cell(g.duration_ns as f64),
                Cell::opt_text(Some(between)),
            ]);
        }
    }
    let section = section.with(t);
    if gaps.rows.is_empty() {
        section
    } else {
        section.with(gaps)
    }
}

fn nvtx_section(doc: &TimelineDocument, top: usize) -> Section {
    let second = Quantity::Si(Unit::Second);
    let mut t = Table::new(
        "nvtx",
        vec![
            Column::text("range", "NVTX range").help("the innermost range around the launch"),
            Column::value("kernel_time", "kernel time", second),
            Column::value("kernels", "kernels", Quantity::Count),
            Column::value("memory_time", "copy time", second).show(Show::Wide),
            Column::value("by_window", "by window", Quantity::Count)
                .help("launches from another thread, placed by the range's time window"),
        ],
    );
    let groups = &doc.summary.nvtx;
    for g in groups.iter().take(top) {
        t.push(vec![
            Cell::text(&g.key),
            ns_cell(g.kernel_ns as f64),
            Cell::value(Some(g.kernels as f64), Quantity::Count),
            ns_cell(g.memory_ns as f64),
            Cell::value(Some(g.by_window as f64), Quantity::Count),
        ]);
    }
    let mut notes = vec![Note::remark(
        "NVTX ranges belong to the thread that pushed them; a launch from a thread with no range of its own (PyTorch's autograd threads) goes to the innermost range open in its process at that time (\"by window\").",
    )];
    if groups.len() > top {
        notes.push(Note::info(format!("{} more ranges in the JSON document", groups.len() - top)));
    }
    Section::new("nvtx", "Kernel time by innermost NVTX range").with(t).with(notes)
}
