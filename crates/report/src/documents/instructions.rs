//! The instruction view of an analysis (`--view instructions`, and `auto`
//! for the kernels FLOPs do not explain): each kernel's binding pipe, its
//! warp instruction rate against that pipe's roof (value, unit and
//! provenance), the instruction roofline chart, and the pipe roofs used.
//!
//! It is a view of the same analysis document, not another document: its
//! JSON is the analysis itself, which carries every number shown here
//! (`KernelAnalysis.instructions`).

use roofline_analysis::PipeRoof;
use roofline_documents::AnalysisDocument;
use roofline_model::{format_percent, Unit};
use roofline_model::{MemLevel, Origin, Pipe, Resource};
use serde::Serialize;

use super::analysis::{name_cell, notes_section, program};
use super::machine::ceiling_value;
use crate::chart::instructions::{self, origin_word, roof_of_pipe};
use crate::chart::model::unique_labels;
use crate::chart::svg::draw;
use crate::chart::ChartOptions;
use crate::view::{
    Cell, ChartControls, ChartKind, ChartRef, Column, Describe, Fact, Note, PointDetail, Quantity, Row, Section, Show,
    Table, Value,
};

/// Which roofline an analysis is shown on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AnalysisView {
    /// The FLOP roofline (the analysis as it is).
    #[default]
    Flops,
    /// The instruction roofline of every kernel with instruction counters.
    Instructions,
    /// The FLOP roofline, then the instruction roofline of the kernels
    /// whose time FLOPs do not explain (`show_by_default`).
    Auto,
}

/// The counters the instruction view reads, for the message when they are
/// missing.
pub const INSTRUCTION_COUNTERS: &str = "smsp__inst_executed.sum and sm__inst_executed_pipe_{alu,fma,fp64,xu,lsu}.sum";

/// `--view instructions` asked of an analysis with no instruction counters.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "{input}: no kernel carries instruction counters ({INSTRUCTION_COUNTERS}), so there is no instruction roofline to show. \
Capture them: `roofline profile` collects them, or give ncu `--metrics` with them (the list is in docs/ncu.md); \
an analysis written before instruction roofs existed needs `roofline import` of its capture again. Or leave out --view instructions"
)]
pub struct NoInstructionData {
    /// The analysis, as the user named it.
    pub input: String,
}

/// An analysis shown on the instruction roofline.
#[derive(Debug, Clone)]
pub struct InstructionView<'a> {
    /// The analysis.
    pub doc: &'a AnalysisDocument,
    /// Which view.
    pub view: AnalysisView,
    /// The kernels on the instruction roofline (indices into the analysis).
    pub kernels: Vec<usize>,
}

impl<'a> InstructionView<'a> {
    /// The view of `doc` (named `input` in messages); refused for
    /// [`AnalysisView::Instructions`] when no kernel has instruction
    /// counters.
    pub fn new(doc: &'a AnalysisDocument, view: AnalysisView, input: &str) -> Result<Self, NoInstructionData> {
        let with = |f: &dyn Fn(&roofline_analysis::InstructionAnalysis) -> bool| -> Vec<usize> {
            doc.kernels
                .iter()
                .enumerate()
                .filter(|(_, a)| a.instructions.as_ref().is_some_and(f))
                .map(|(i, _)| i)
                .collect()
        };
        let kernels = match view {
            AnalysisView::Flops => Vec::new(),
            AnalysisView::Instructions => with(&|_| true),
            AnalysisView::Auto => with(&|ia| ia.show_by_default),
        };
        if view == AnalysisView::Instructions && kernels.is_empty() {
            return Err(NoInstructionData { input: input.into() });
        }
        Ok(InstructionView { doc, view, kernels })
    }

    fn instruction_sections(&self) -> Vec<Section> {
        if self.kernels.is_empty() {
            return Vec::new();
        }
        let doc = self.doc;
        let model = instructions::build(doc, Some(&self.kernels), None);
        let mut chart_notes = vec![Note::info(instructions::READING)];
        chart_notes.extend(model.notes.iter().cloned().map(Note::remark));
        let lead = match self.view {
            AnalysisView::Auto => format!(
                "Instruction roofline of the {} kernel{} whose time FLOPs do not explain",
                self.kernels.len(),
                if self.kernels.len() == 1 { "" } else { "s" }
            ),
            _ => "Instruction roofline: the pipe that binds each kernel".into(),
        };
        vec![
            Section::new("instructions", lead).with(instruction_table(doc, &self.kernels)),
            Section::new("instruction_chart", "Instruction roofline chart")
                .show(Show::Wide)
                .with(ChartRef {
                    kind: ChartKind::Instructions,
                    hint: "Hover or focus a point for its numbers. x: warp instructions per 32-byte transaction at each memory level; y: warp instructions/s; flat roofs: pipe issue rates; diagonals: bandwidth / 32 B.".into(),
                })
                .with(chart_notes),
            roof_section(doc, &self.kernels),
        ]
    }
}

impl Serialize for InstructionView<'_> {
    /// The analysis itself: it holds every number of the view.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.doc.serialize(s)
    }
}

/// A pipe roof as a value with its provenance: a measured one with its
/// spread and clock from the machine's ceiling.
fn roof_value(doc: &AnalysisDocument, pipe: Pipe, r: &PipeRoof) -> Value {
    match doc.machine.roof(Resource::Instruction(pipe)) {
        Some(c) if c.provenance.origin == r.origin && (c.rate / r.rate - 1.0).abs() < 1e-9 => ceiling_value(c),
        _ => Value::new(r.rate, Quantity::Si(Unit::InstPerSecond)).origin(r.origin).confirmed(r.confirmed),
    }
}

fn instruction_table(doc: &AnalysisDocument, kernels: &[usize]) -> Table {
    let mut columns = vec![
        Column::text("id", "ID").show(Show::Data),
        Column::text("name", "name").show(Show::Data),
        Column::text("kernel", "kernel")
            .show(Show::Readers)
            .help("display name and stable ID; hover for the full name"),
        Column::value("time_share", "share", Quantity::Percent).help("share of the GPU time of all kernels here"),
        Column::value("warp_instructions", "warp inst", Quantity::Count)
            .show(Show::Wide)
            .help("warp instructions executed, all pipes (counter)"),
        Column::value("warp_inst_per_s", "all inst rate", Quantity::Si(Unit::InstPerSecond))
            .show(Show::Wide)
            .help("warp instructions per second, all pipes (counter)"),
        Column::text("binding_pipe", "binding pipe")
            .help("the pipe closest to its roof (issue slots and tensor pipe apart)"),
        Column::value("pipe_inst_per_s", "pipe rate", Quantity::Si(Unit::InstPerSecond))
            .help("the binding pipe's warp instructions per second (counter)"),
        Column::with_provenance("pipe_roof", "pipe roof", Some(Quantity::Si(Unit::InstPerSecond)))
            .help("the binding pipe's roof: measured by bench where the machine has it, else theoretical"),
        Column::value("pct_of_pipe_roof", "% of pipe roof", Quantity::Percent).help("pipe rate / pipe roof"),
        Column::value("counter_pct", "profiler %", Quantity::Percent)
            .show(Show::Wide)
            .help("the profiler's own % of the pipe's peak over active cycles (counts busy cycles)"),
        Column::value("issue_pct", "issue %", Quantity::Percent)
            .show(Show::Wide)
            .help("all warp instructions / the issue roof"),
    ];
    for l in MemLevel::ALL {
        columns.push(
            Column::value(
                &format!("inst_per_transaction_{}", l.key()),
                &format!("inst/txn {}", l.label()),
                Quantity::Ratio,
            )
            .show(if l == MemLevel::Dram { Show::Everywhere } else { Show::Wide })
            .help(&format!("warp instructions per 32-byte transaction at {}", l.label())),
        );
    }
    columns.push(Column::text("shown_by_default", "FLOPs explain it").show(Show::Data));
    let labels = unique_labels(&doc.kernels);
    let mut t = Table::new("instructions", columns);
    for &i in kernels {
        let a = &doc.kernels[i];
        let Some(ia) = &a.instructions else { continue };
        let bind = ia.binding_point();
        let issue = ia.pipe(Pipe::Issue);
        let counter = |v: Option<f64>, q: Quantity| match v.filter(|v| v.is_finite()) {
            Some(v) => Value::new(v, q).origin(Origin::Counter).cell(),
            None => Cell::Empty,
        };
        let mut cells = vec![
            Cell::text(&a.kernel.id),
            Cell::text(&a.kernel.name),
            name_cell(a, &labels[i]),
            Cell::value(a.time_share.map(|s| 100.0 * s), Quantity::Percent),
            counter(ia.warp_instructions, Quantity::Count),
            counter(ia.warp_inst_per_s, Quantity::Si(Unit::InstPerSecond)),
            Cell::opt_text(bind.map(|p| p.pipe.label())),
            counter(bind.and_then(|p| p.warp_inst_per_s), Quantity::Si(Unit::InstPerSecond)),
            match bind.and_then(|p| p.roof.as_ref().map(|r| (p.pipe, r))) {
                Some((pipe, r)) => roof_value(doc, pipe, r).cell(),
                None => Cell::Empty,
            },
            Cell::value(bind.and_then(|p| p.pct_of_roof), Quantity::Percent),
            counter(bind.and_then(|p| p.counter_pct), Quantity::Percent),
            Cell::value(issue.and_then(|p| p.pct_of_roof), Quantity::Percent),
        ];
        for l in MemLevel::ALL {
            cells.push(Cell::value(ia.levels.iter().find(|x| x.level == l).map(|x| x.intensity), Quantity::Ratio));
        }
        cells.push(Cell::text(if ia.show_by_default { "no" } else { "yes" }));
        t.push(cells).link = Some(("data-k", i.to_string()));
    }
    t
}

/// The pipe roofs of the pipes the kernels used (and the issue slots),
/// each with its provenance and source.
fn roof_section(doc: &AnalysisDocument, kernels: &[usize]) -> Section {
    let mut t = Table::new(
        "instruction_roofs",
        vec![
            Column::text("pipe", "pipe"),
            Column::with_provenance("roof", "roof", Some(Quantity::Si(Unit::InstPerSecond))),
            Column::text("origin", "origin").show(Show::Data),
            Column::text("source", "source").show(Show::Wide),
        ],
    );
    for pipe in Pipe::ALL.into_iter().filter(|p| *p != Pipe::Tensor) {
        if !instructions::pipe_used(doc, kernels.iter().copied(), pipe) {
            continue;
        }
        let Some(r) = roof_of_pipe(doc, pipe) else { continue };
        t.push(vec![
            Cell::text(pipe.label()),
            roof_value(doc, pipe, &r).cell(),
            Cell::text(origin_word(r.origin)),
            Cell::text(&r.source),
        ]);
    }
    let notes = vec![
        Note::info("A pipe's roof is bench's measured rate where the machine has one, else the architecture's issue rate x SMs x the SM clock (theoretical)."),
        Note::info(format!(
            "The binding pipe is the one closest to its roof by the larger of its % of roof and the profiler's own %; at {} or more a pipe is named in the diagnosis.",
            format_percent(roofline_analysis::BUSY_PIPE_PCT)
        )),
    ];
    Section::new("instruction_roof", format!("Instruction roofs of {}", doc.machine.name))
        .show(Show::Wide)
        .with(t)
        .with(notes)
}

impl Describe for InstructionView<'_> {
    fn title(&self) -> String {
        match self.view {
            AnalysisView::Instructions => {
                format!("Instruction roofline: {} on {}", program(self.doc), self.doc.machine.name)
            }
            _ => self.doc.title(),
        }
    }

    fn subtitle(&self) -> String {
        self.doc.subtitle()
    }

    fn sections(&self) -> Vec<Section> {
        match self.view {
            AnalysisView::Instructions => {
                let mut s = self.instruction_sections();
                let without = self.doc.kernels.len() - self.kernels.len();
                if without > 0 {
                    s.push(Section::new("instruction_missing", "").with(vec![Note::remark(format!(
                        "{without} of {} kernels have no instruction counters ({INSTRUCTION_COUNTERS}) and are left out",
                        self.doc.kernels.len()
                    ))]));
                }
                s.push(notes_section(self.doc));
                s.push(Section::new("instruction_method", "How the numbers were obtained").show(Show::Wide).with(vec![
                    Fact::new("input", "input", Cell::text(&self.doc.source.detail)),
                ]).with(vec![
                    Note::info("Warp instructions and per-pipe counts are Nsight Compute counters; rates divide them by the kernel's duration."),
                    Note::info("Instruction intensity at a level = warp instructions / (the level's bytes / 32); the diagonal there is the level's bandwidth / 32 B (Ding and Williams, the Instruction Roofline Model)."),
                ]));
                s
            }
            AnalysisView::Auto => {
                let mut s = self.doc.sections();
                let at = s.iter().position(|x| x.id == "notes").unwrap_or(s.len());
                let inst = self.instruction_sections();
                s.splice(at..at, inst);
                s
            }
            AnalysisView::Flops => self.doc.sections(),
        }
    }

    fn deferred_rows(&self, table: &str, row: &mut dyn FnMut(Row)) {
        self.doc.deferred_rows(table, row);
    }

    fn main_table(&self) -> Option<&'static str> {
        match self.view {
            AnalysisView::Instructions => Some("instructions"),
            _ => self.doc.main_table(),
        }
    }

    fn chart_svg(&self, chart: ChartKind, opts: &ChartOptions) -> Option<String> {
        match chart {
            ChartKind::Instructions if !self.kernels.is_empty() => {
                let model = instructions::build(self.doc, Some(&self.kernels), opts.title.as_deref());
                Some(draw(self.doc, &model, opts).0)
            }
            // `auto` as one SVG: the FLOP roofline (the page has both).
            ChartKind::Roofline => self.doc.chart_svg(chart, opts),
            _ => None,
        }
    }

    fn chart_text(&self, chart: ChartKind, width: usize, color: bool) -> Option<String> {
        match chart {
            ChartKind::Instructions if !self.kernels.is_empty() => {
                let model = instructions::build(self.doc, Some(&self.kernels), None);
                Some(crate::chart::terminal::render(self.doc, &model, width, color))
            }
            // `auto` in the terminal: the FLOP roofline, then the instruction one.
            ChartKind::Roofline => {
                let flops = self.doc.chart_text(chart, width, color)?;
                Some(match self.chart_text(ChartKind::Instructions, width, color) {
                    Some(inst) if self.view == AnalysisView::Auto => format!("{flops}\n{inst}"),
                    _ => flops,
                })
            }
            _ => None,
        }
    }

    fn chart_controls(&self, chart: ChartKind) -> ChartControls {
        match chart {
            ChartKind::Instructions => {
                let m = instructions::build(self.doc, Some(&self.kernels), None);
                ChartControls {
                    tabs: Vec::new(),
                    extra_roofs: m.roofs.iter().filter(|r| r.extra()).count(),
                    zoom: true,
                }
            }
            _ => self.doc.chart_controls(chart),
        }
    }

    fn point_details(&self) -> Vec<PointDetail> {
        let mut out = if self.view == AnalysisView::Instructions { Vec::new() } else { self.doc.point_details() };
        if self.kernels.is_empty() {
            return out;
        }
        let m = instructions::build(self.doc, Some(&self.kernels), None);
        let prefix = m.axes.tip_prefix();
        for mark in &m.marks {
            let a = &self.doc.kernels[mark.k];
            for (level, _) in &mark.points {
                let (title, lines) = instructions::point_lines(a, &mark.label, *level);
                out.push(PointDetail { key: format!("{prefix}{}-{}", mark.k, level.key()), title, lines });
            }
        }
        out
    }
}
