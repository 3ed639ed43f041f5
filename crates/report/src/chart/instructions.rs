//! The instruction roofline (Ding and Williams, "An Instruction Roofline
//! Model for GPUs") as a chart [`Model`], drawn by the same SVG and
//! terminal renderers as the FLOP roofline: x is warp instructions per
//! 32-byte transaction at each memory level, y is warp instructions per
//! second, the pipes' issue rates are flat roofs and each memory level's
//! bandwidth / 32 B (transactions per second) is a diagonal.
//!
//! The point of a kernel counts every warp instruction it issued, so the
//! roof that bounds the point is the schedulers' issue rate; a pipe's roof
//! bounds that pipe's share of the instructions only. The pipe that binds
//! each kernel and its % of its own roof are in the view's table; the chart
//! draws the issue roof and the binding pipes' roofs (the other pipes the
//! kernels used are there for "show all roofs").

use roofline_analysis::{pipe_roof, KernelAnalysis, PipeRoof};
use roofline_documents::AnalysisDocument;
use roofline_model::{format_percent, format_plain, format_si, Unit};
use roofline_model::{MemLevel, Origin, Pipe};

use super::model::{fit_views, level_colour, place_marks, unique_labels, Axes, Model, Placement, Roof, RoofKind, Tab};
use super::scale::plottable;

/// Bytes in one memory transaction (a sector).
pub const TRANSACTION_BYTES: f64 = 32.0;

/// How to read the chart's y against its roofs.
pub const READING: &str = "y counts every warp instruction, so the issue roof bounds the points; a pipe's roof bounds that pipe's instructions only: the table gives each kernel's binding pipe at its own rate";

/// Whether any of `kernels` issued instructions to `pipe` (the issue
/// slots count always): the pipes a chart or table shows.
pub fn pipe_used(doc: &AnalysisDocument, kernels: impl IntoIterator<Item = usize>, pipe: Pipe) -> bool {
    pipe == Pipe::Issue
        || kernels.into_iter().any(|k| {
            doc.kernels[k]
                .instructions
                .as_ref()
                .and_then(|ia| ia.pipe(pipe))
                .and_then(|p| p.warp_instructions)
                .is_some_and(|n| n > 0.0)
        })
}

/// The roof of a pipe as the analysis judged it: the first kernel's stored
/// roof for it, else the machine's (measured when it has one).
pub fn roof_of_pipe(doc: &AnalysisDocument, pipe: Pipe) -> Option<PipeRoof> {
    doc.kernels
        .iter()
        .filter_map(|a| a.instructions.as_ref()?.pipe(pipe)?.roof.clone())
        .next()
        .or_else(|| pipe_roof(&doc.machine, pipe))
}

/// "measured", "theoretical": a roof's provenance in one word.
pub fn origin_word(o: Origin) -> &'static str {
    match o {
        Origin::Measured => "measured",
        Origin::Theoretical => "theoretical",
        Origin::Counter => "counter",
        Origin::User => "given",
        Origin::Derived => "derived",
        Origin::Estimated => "estimated from shapes",
    }
}

/// A count of warp instructions with an SI prefix ("12.3 Ginst").
pub fn instruction_count(n: f64) -> String {
    format_si(n, Unit::InstPerSecond).replace("inst/s", "inst")
}

/// The y a kernel is drawn at: its warp instructions per second.
pub fn plotted_rate(a: &KernelAnalysis) -> Option<f64> {
    a.instructions.as_ref()?.warp_inst_per_s.filter(|v| *v > 0.0)
}

fn pipe_roof_line(pipe: Pipe, r: &PipeRoof, key: String) -> Roof {
    let value = format_si(r.rate, Unit::InstPerSecond);
    let word = origin_word(r.origin);
    Roof {
        key,
        kind: RoofKind::Flat { rate: r.rate },
        name: format!("{} ({word})", pipe.label()),
        value: value.clone(),
        detail: format!(
            "{}: {value}, {word}{} ({})",
            pipe.label(),
            if r.confirmed { "" } else { ", unconfirmed" },
            r.source
        ),
        dashed: matches!(r.origin, Origin::Theoretical | Origin::Derived),
        thin: false,
        colour: if pipe == Pipe::Issue { "#222222" } else { "#6b4c9a" },
        judged: false,
        tabs: Vec::new(),
    }
}

/// The instruction roofline of the kernels `only` (all with instruction
/// counters when `None`). `title` replaces the default heading.
pub fn build(doc: &AnalysisDocument, only: Option<&[usize]>, title: Option<&str>) -> Model {
    let m = &doc.machine;
    let labels = unique_labels(&doc.kernels);
    let wanted = |k: usize| only.is_none_or(|o| o.contains(&k));
    let mut notes = Vec::new();

    let (mut no_counters, mut no_rate) = (Vec::new(), Vec::new());
    let placed = place_marks(doc, &labels, |k, a| {
        if !wanted(k) {
            return None;
        }
        let Some(ia) = &a.instructions else {
            no_counters.push(labels[k].clone());
            return None;
        };
        let points: Vec<(MemLevel, f64)> = ia.levels.iter().map(|l| (l.level, l.intensity)).collect();
        let Some(y) = plotted_rate(a).filter(|_| !points.is_empty()) else {
            no_rate.push(labels[k].clone());
            return None;
        };
        Some(Placement { y, timed: true, points, attainable: None, tab: "all".into() })
    });
    let list = |v: &[String]| {
        let shown: Vec<String> = v.iter().take(4).cloned().collect();
        format!(
            "{}{}",
            shown.join(", "),
            if v.len() > 4 { format!(" and {} more", v.len() - 4) } else { String::new() }
        )
    };
    if !no_counters.is_empty() {
        notes.push(format!(
            "{}: no instruction counters (smsp__inst_executed.sum, sm__inst_executed_pipe_*): not on the instruction roofline",
            list(&no_counters)
        ));
    }
    if !no_rate.is_empty() {
        notes.push(format!(
            "{}: no time or no measured memory level to place the instructions at: not on the chart",
            list(&no_rate)
        ));
    }
    notes.extend(placed.notes());
    let mut marks = placed.marks;

    // Flat roofs: the issue rate, then every pipe the kernels drawn used;
    // those of the issue slots and of the binding pipes are shown.
    let mut roofs: Vec<Roof> = Vec::new();
    let mut pipe_index: Vec<(Pipe, usize)> = Vec::new();
    // The tensor pipe is judged on the FLOP roofline (one HGMMA is a tile).
    for pipe in Pipe::ALL.into_iter().filter(|p| *p != Pipe::Tensor) {
        if !pipe_used(doc, marks.iter().map(|mk| mk.k), pipe) {
            continue;
        }
        match roof_of_pipe(doc, pipe) {
            Some(r) if plottable(r.rate) => {
                pipe_index.push((pipe, roofs.len()));
                roofs.push(pipe_roof_line(pipe, &r, format!("p-{}", pipe.key())));
            }
            Some(r) => notes.push(format!(
                "{}: {} is a rate the axes cannot show: not drawn",
                pipe.label(),
                format_si(r.rate, Unit::InstPerSecond)
            )),
            None => notes.push(format!(
                "{} has no roof for the {} (no measured ceiling, and no issue rate for its architecture): not drawn",
                m.name,
                pipe.label()
            )),
        }
    }
    let roof_index = |p: Pipe| pipe_index.iter().find(|(q, _)| *q == p).map(|(_, i)| *i);
    let issue = roof_index(Pipe::Issue);
    if let Some(i) = issue {
        roofs[i].tabs.push("all".into());
    }
    for mk in marks.iter_mut() {
        let ia = doc.kernels[mk.k].instructions.as_ref().expect("drawn kernels have instruction counters");
        if let Some(r) = ia.binding.and_then(roof_index) {
            if !roofs[r].tabs.iter().any(|t| t == "all") {
                roofs[r].tabs.push("all".into());
            }
        }
        // Every warp instruction goes through the issue slots.
        mk.roof = issue;
        mk.attainable = issue.map(|i| roofs[i].kind.rate());
    }
    if let Some(i) = issue.filter(|_| !marks.is_empty()) {
        roofs[i].judged = true;
    }

    // Diagonals: each level's bandwidth over 32 B, in transactions/s.
    for level in MemLevel::ALL {
        let Some(c) = m.bandwidth_roof(level) else { continue };
        let rate = c.rate / TRANSACTION_BYTES;
        if !plottable(rate) {
            continue;
        }
        let word = origin_word(c.provenance.origin);
        let shown = marks.iter().any(|mk| mk.points.iter().any(|p| p.0 == level));
        roofs.push(Roof {
            key: format!("t-{}", level.key()),
            kind: RoofKind::Slanted { rate, level },
            name: format!("{} ({word})", level.label()),
            value: format!("{} / 32 B", c.formatted()),
            detail: format!(
                "{}: {} / 32 B = {} ({})",
                level.label(),
                c.formatted(),
                format_si(rate, Unit::InstPerSecond).replace("inst/s", "transactions/s"),
                c.provenance.describe()
            ),
            dashed: matches!(c.provenance.origin, Origin::Theoretical | Origin::Derived),
            thin: false,
            colour: level_colour(level),
            judged: false,
            tabs: if shown || marks.is_empty() { vec!["all".into()] } else { Vec::new() },
        });
    }

    // Ridge points of the issue roof with the diagonals drawn.
    let ridges = match issue {
        Some(c) => super::model::ridges_of(
            &roofs,
            c,
            |_| true,
            |pi, level, x| {
                format!(
                    "ridge point {} x {}: {} warp instructions per transaction (memory-bound to its left)",
                    format_si(pi, Unit::InstPerSecond),
                    level.label(),
                    format_plain(x)
                )
            },
        ),
        None => Vec::new(),
    };

    let (view, full) = fit_views(&marks, &roofs, "all");
    let tabs = vec![Tab { key: "all".into(), label: "All".into(), count: marks.len(), view, full }];
    let timed = doc.kernels.iter().filter(|a| plotted_rate(a).is_some()).count();
    Model {
        axes: Axes::Instruction,
        title: title.map(str::to_string).unwrap_or_else(|| format!("Instruction roofline of {}", m.name)),
        subtitle: format!(
            "{} kernel{} with instruction counters, {} on the chart; warp instructions from {}",
            timed,
            if timed == 1 { "" } else { "s" },
            marks.len(),
            doc.source.kind,
        ),
        roofs,
        ridges,
        marks,
        tabs,
        unit: Unit::InstPerSecond,
        notes,
    }
}

/// The hover text of a kernel's point at one level: its instruction rate,
/// intensity there, and the pipe that binds it with its % of that roof.
pub fn point_lines(a: &KernelAnalysis, label: &str, level: MemLevel) -> (String, Vec<String>) {
    let title = format!("{label} ({} point, instructions)", level.label());
    let mut s = vec![a.kernel.name.clone()];
    let Some(ia) = &a.instructions else { return (title, s) };
    if let Some(n) = ia.warp_instructions {
        s.push(format!("warp instructions: {} (counter)", instruction_count(n)));
    }
    if let Some(r) = ia.warp_inst_per_s {
        s.push(format!("rate: {} (counter)", format_si(r, Unit::InstPerSecond)));
    }
    if let Some(l) = ia.levels.iter().find(|l| l.level == level) {
        s.push(format!(
            "at {}: {} warp instructions per 32-byte transaction; {} roof there: {}",
            level.label(),
            format_plain(l.intensity),
            level.label(),
            l.roof_inst_per_s.map(|r| format_si(r, Unit::InstPerSecond)).unwrap_or_else(|| "-".into())
        ));
    }
    if let Some(p) = ia.binding_point() {
        let mut line = format!("binding pipe: {}", p.pipe.label());
        if let Some(r) = p.warp_inst_per_s {
            line.push_str(&format!(" at {}", format_si(r, Unit::InstPerSecond)));
        }
        if let Some(roof) = &p.roof {
            line.push_str(&format!(
                ", roof {} ({})",
                format_si(roof.rate, Unit::InstPerSecond),
                origin_word(roof.origin)
            ));
        }
        if let Some(pct) = p.pct_of_roof {
            line.push_str(&format!(", {} of it", format_percent(pct)));
        }
        if let Some(c) = p.counter_pct {
            line.push_str(&format!("; profiler: {} of peak", format_percent(c)));
        }
        s.push(line);
    }
    s.extend(super::model::time_line(a));
    (title, s)
}
