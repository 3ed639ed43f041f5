//! An analysis: every kernel under its roofs (intensity per level, the roof
//! that applies, % of it, bound, diagnosis), the chart, the machine and how
//! the numbers were obtained.

use roofline_core::diagnosis::{Diagnosis, Position, LATENCY_PCT, ON_ROOF_PCT};
use roofline_core::machine::{FlopKind, MemLevel};
use roofline_core::roofline::{Bound, KernelAnalysis, Limiter};
use roofline_core::schema::AnalysisDocument;
use roofline_core::units::{format_percent, Unit};

use super::machine::{heading, ridge_section, roof_sections, roofs_cell};
use crate::svg::{chart_notes, kernel_label, point_title, roofline_svg, ChartOptions};
use crate::view::{
    Cell, ChartKind, ChartRef, Column, Describe, Fact, Item, Note, PointDetail, Quantity, Section, Show, Table, Tone,
    Value,
};

impl Describe for AnalysisDocument {
    fn title(&self) -> String {
        format!("Roofline of {} kernel(s) on {}", self.kernels.len(), self.machine.name)
    }

    fn subtitle(&self) -> String {
        format!("{} kernels from {}", self.kernels.len(), self.source.kind)
    }

    fn sections(&self) -> Vec<Section> {
        let mut s = vec![summary_section(self), ridge_section(&self.machine), chart_section(self)];
        s.push(Section::new("kernels", "").with(kernel_table(self)));
        s.extend(super::collectives::communication_section(&self.kernels));
        s.push(diagnosis_section(self));
        s.push(notes_section(self));
        s.extend(roof_sections(&self.machine, "machine", Show::Wide));
        s.push(method_section(self, "method", "How the numbers were obtained"));
        s
    }

    fn chart_svg(&self, chart: ChartKind, opts: &ChartOptions) -> Option<String> {
        (chart == ChartKind::Roofline).then(|| roofline_svg(self, opts))
    }

    fn point_details(&self) -> Vec<PointDetail> {
        let mut out = Vec::new();
        for (i, a) in self.kernels.iter().enumerate() {
            for p in a.levels.iter().filter(|p| p.intensity.is_some()) {
                let text = point_title(a, p.level);
                let mut lines = text.lines().map(str::to_string);
                let title = lines.next().unwrap_or_default();
                let mut lines: Vec<String> = lines.collect();
                if let Some(d) = &a.diagnosis {
                    lines.push(format!("next move: {}", d.next_move_text()));
                }
                out.push(PointDetail { key: format!("{i}-{}", p.level.key()), title, lines });
            }
        }
        out
    }
}

/// The unit of a kernel's rates: OP/s when all its work is integer (INT8
/// tensor), FLOP/s otherwise.
pub(crate) fn rate_unit(a: &KernelAnalysis) -> Unit {
    let kinds: Vec<FlopKind> = a.kernel.flops.iter().filter(|(_, f)| **f > 0.0).map(|(k, _)| *k).collect();
    if !kinds.is_empty() && kinds.iter().all(|k| k.rate_unit() == Unit::OpPerSecond) {
        Unit::OpPerSecond
    } else {
        Unit::FlopPerSecond
    }
}

/// How a verdict may be coloured.
pub(crate) fn position_tone(p: Position) -> Tone {
    match p {
        Position::OnRoof | Position::OnDiagonal => Tone::Good,
        Position::UnderDiagonal | Position::UnderFlatRoof => Tone::Fair,
        Position::LatencyBound => Tone::Poor,
    }
}

/// The side of the ridge, coloured as on the chart.
pub(crate) fn bound_cell(b: Option<Bound>) -> Cell {
    match b {
        Some(b) => Cell::toned(b.label(), Some(if b == Bound::Memory { Tone::Memory } else { Tone::Compute })),
        None => Cell::Empty,
    }
}

/// A kernel's short name, ID and full name.
pub(crate) fn name_cell(a: &KernelAnalysis) -> Cell {
    Cell::Name { name: kernel_label(a), id: a.kernel.id.clone(), full: a.kernel.name.clone() }
}

fn limiter_text(a: &KernelAnalysis) -> String {
    match a.limiter {
        Some(Limiter::Bandwidth(l)) => format!("{} bandwidth", l.label()),
        Some(Limiter::Compute) => a.compute_roof_name.clone().unwrap_or_else(|| "compute".into()),
        None => "-".into(),
    }
}

fn summary_section(doc: &AnalysisDocument) -> Section {
    let timed = doc.kernels.iter().any(|k| k.kernel.duration_s.is_some());
    let detail = if doc.source.detail.is_empty() { String::new() } else { format!(", {}", doc.source.detail) };
    let title = format!(
        "{} on {} (source: {}{detail})",
        if timed { "kernels" } else { "paper estimates" },
        heading(&doc.machine),
        doc.source.kind
    );
    Section::new("summary", title).with(vec![Fact::new("roofs", "roofs", roofs_cell(&doc.machine))])
}

fn chart_section(doc: &AnalysisDocument) -> Section {
    let notes: Vec<Note> = chart_notes(doc).into_iter().map(Note::remark).collect();
    Section::new("chart", "Roofline")
        .show(Show::Wide)
        .with(ChartRef {
            kind: ChartKind::Roofline,
            hint: "Hover or focus a point for its numbers. Each kernel has one point per memory level, joined by a line; marker area is its share of GPU time.".into(),
        })
        .with_some((!notes.is_empty()).then_some(notes))
}

fn kernel_table(doc: &AnalysisDocument) -> Table {
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
        Column::value("time", "time", Quantity::Si(Unit::Second)).help("total duration of all launches"),
        Column::value("time_share", "share", Quantity::Percent).help("share of the GPU time of all kernels here"),
    ];
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
        Column::text("next_move", "next move").show(Show::Wide).help("what to try next"),
    ]);
    let mut t = Table::new("kernel", columns);
    for (i, a) in doc.kernels.iter().enumerate() {
        let k = &a.kernel;
        let unit = rate_unit(a);
        let mut cells = vec![
            Cell::text(&k.id),
            Cell::text(&k.name),
            Cell::text(&k.display_name),
            name_cell(a),
            Cell::value(Some(k.launches as f64), Quantity::Count),
            Cell::text(k.origin.label()),
            match k.duration_s.filter(|d| d.is_finite()) {
                Some(d) => Value::new(d, Quantity::Si(Unit::Second)).origin(k.origin).cell(),
                None => Cell::Empty,
            },
            Cell::value(a.time_share.map(|s| 100.0 * s), Quantity::Percent),
        ];
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
        t.push(cells).link = Some(("data-k", i.to_string()));
    }
    t
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

fn diagnosis_item(a: &KernelAnalysis, d: &Diagnosis) -> Item {
    Item {
        head: name_cell(a),
        verdict: Cell::toned(d.position.label(), Some(position_tone(d.position))),
        lines: d.evidence_lines(),
        action: Some(d.next_move_text()),
    }
}

fn diagnosis_section(doc: &AnalysisDocument) -> Section {
    let items: Vec<Item> =
        doc.kernels.iter().filter_map(|a| a.diagnosis.as_ref().map(|d| diagnosis_item(a, d))).collect();
    Section::new("diagnosis", "diagnosis").with_some((!items.is_empty()).then_some(items))
}

fn notes_section(doc: &AnalysisDocument) -> Section {
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
            "Diagnosis: at or above {} of its roof a kernel is on it; below {} of its roof and of every bandwidth it is latency-bound.",
            format_percent(ON_ROOF_PCT),
            format_percent(LATENCY_PCT)
        )),
    ];
    Section::new(id, title).show(Show::Wide).with(facts).with(notes)
}
