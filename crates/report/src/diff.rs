//! Before and after, drawn: the diff chart, an arrow per kernel from where
//! it was to where it is.
//!
//! The comparison itself is `roofline_documents`; its table is the diff
//! document's (`documents/diff.rs`); this module only draws it.

use std::fmt::Write as _;

use roofline_analysis::KernelAnalysis;
use roofline_documents::AnalysisDocument;
use roofline_documents::{Diff, DiffRow, RowKind, Side};
use roofline_model::{format_percent, format_plain, format_seconds, format_si, Unit};

use crate::chart::layout::{leader, spots_around, Need, Quad, Rect};
use crate::chart::model::{self, shorten, View};
use crate::chart::scale::Span;
use crate::chart::svg::{escape, n, Canvas, LegendEntry, Shape, Symbol, DASH};
use crate::chart::ChartOptions;

/// Marker radius on the diff chart: shares of time are not comparable
/// between two runs, so every marker has one size.
const DIFF_R: f64 = 6.0;

fn point(s: &Side) -> Option<(f64, f64)> {
    let (_, x) = s.headline_intensity()?;
    let y = s.plotted_flops_per_s()?;
    (x > 0.0 && y > 0.0).then_some((x, y))
}

fn side_title(s: &Side, when: &str) -> String {
    let mut t = format!("{when}: {}", s.kernels.join(" + "));
    if let Some((l, i)) = s.headline_intensity() {
        t.push_str(&format!("\nintensity at {}: {}", l.label(), format_si(i, Unit::FlopPerByte)));
    }
    if let Some(d) = s.duration_s {
        t.push_str(&format!("\ntime: {}", format_seconds(d)));
    }
    if let Some(a) = s.achieved_flops_per_s {
        t.push_str(&format!("\nachieved: {}", format_si(a, Unit::FlopPerSecond)));
    }
    if let Some(p) = s.pct_of_roof {
        t.push_str(&format!(" ({} of roof)", format_percent(p)));
    }
    t
}

/// One line saying what changed for a row.
pub fn row_summary(r: &DiffRow) -> String {
    match r.kind {
        RowKind::Removed => "only before".into(),
        RowKind::Added => "only after".into(),
        _ => {
            let mut parts = Vec::new();
            if let Some(s) = r.speedup() {
                parts.push(if s >= 1.0 { format!("{s:.2}x faster") } else { format!("{:.2}x slower", 1.0 / s) });
            }
            if let Some(i) = r.intensity_ratio() {
                parts.push(format!("intensity x{}", format_plain(i)));
            }
            if parts.is_empty() {
                "no time or intensity to compare".into()
            } else {
                parts.join(", ")
            }
        }
    }
}

/// The diff chart: ceilings of the `after` machine, one arrow per row.
pub fn diff_svg(before: &AnalysisDocument, after: &AnalysisDocument, diff: &Diff, opts: &ChartOptions) -> String {
    diff_chart(before, after, diff, opts).0
}

/// The colour of a side: blue when memory-bound, vermilion when
/// compute-bound (the diff chart colours by bound, having one kernel or
/// one pairing per arrow).
fn bound_colour(b: Option<roofline_analysis::Bound>) -> &'static str {
    match b {
        Some(roofline_analysis::Bound::Memory) => "#0072b2",
        Some(roofline_analysis::Bound::Compute) => "#d55e00",
        None => "#777777",
    }
}

/// The diff chart and its label boxes (for tests).
pub fn diff_chart(
    before: &AnalysisDocument,
    after: &AnalysisDocument,
    diff: &Diff,
    opts: &ChartOptions,
) -> (String, Vec<Quad>) {
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for r in &diff.rows {
        for s in [&r.before, &r.after].into_iter().flatten() {
            if let Some((x, y)) = point(s) {
                xs.push(x);
                ys.push(y);
            }
        }
    }
    // The roofs of the kernels on either side, under the after machine:
    // only what places a kernel and picks its roofs is copied (not its
    // diagnosis or evidence, which for 100,000 kernels a side would double
    // the memory of both documents).
    let both = AnalysisDocument {
        schema: after.schema.clone(),
        producer: after.producer.clone(),
        source: after.source.clone(),
        machine: after.machine.clone(),
        kernels: after.kernels.iter().chain(&before.kernels).map(KernelAnalysis::placement).collect(),
        warnings: Vec::new(),
        program: None,
        rank: None,
    };
    let roofs = model::roofs(&both);
    let view = View { x: Span::fit(xs, 0.3, 1.5, (0.01, 100.0)), y: Span::fit(ys, 0.3, 1.2, (1e9, 1e12)) };
    let title = opts.title.clone().unwrap_or_else(|| format!("Before and after on {}", after.machine.name));
    let subtitle = format!(
        "{} kernel(s) before, {} after; DRAM intensity; hollow: before, filled: after",
        before.kernels.len(),
        after.kernels.len()
    );
    let mut c = Canvas::new("diff", view, Unit::FlopPerSecond, opts, &title, &subtitle);
    let f = c.frame;
    c.open_plot();
    c.roof_lines(&roofs, "all");

    let mut anchors = Vec::new();
    let _ = writeln!(c.body, "<g class=\"diff-points\">");
    let same = |x: &Option<Side>, y: &Option<Side>| match (x.as_ref().and_then(point), y.as_ref().and_then(point)) {
        (Some(p), Some(q)) => (p.0 / q.0 - 1.0).abs() < 1e-9 && (p.1 / q.1 - 1.0).abs() < 1e-9,
        _ => false,
    };
    for (i, r) in diff.rows.iter().enumerate() {
        let total = r.kind == RowKind::Total;
        // The total of a diff whose rows are one pairing is that pairing.
        if total
            && diff
                .rows
                .iter()
                .any(|o| o.kind != RowKind::Total && same(&o.before, &r.before) && same(&o.after, &r.after))
        {
            continue;
        }
        let colour = |s: &Side| if total { "#222" } else { bound_colour(s.bound) };
        let b = r.before.as_ref().and_then(|s| point(s).map(|p| (p, s)));
        let a = r.after.as_ref().and_then(|s| point(s).map(|p| (p, s)));
        let _ = writeln!(c.body, "<g class=\"row\" data-row=\"{i}\">");
        if let (Some(((bx, by), _)), Some(((ax, ay), _))) = (&b, &a) {
            let (x1, y1, x2, y2) = (f.px(*bx), f.py(*by), f.px(*ax), f.py(*ay));
            let len = ((x2 - x1).powi(2) + (y2 - y1).powi(2)).sqrt();
            if len > 2.0 * DIFF_R + 4.0 {
                let (ux, uy) = ((x2 - x1) / len, (y2 - y1) / len);
                let _ = writeln!(
                    c.body,
                    "<line class=\"arrow\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"1.8\" marker-end=\"url(#diff-arrow)\"><title>{}</title></line>",
                    n(x1 + ux * DIFF_R),
                    n(y1 + uy * DIFF_R),
                    n(x2 - ux * (DIFF_R + 2.0)),
                    n(y2 - uy * (DIFF_R + 2.0)),
                    if total { "#222" } else { "#555" },
                    escape(&format!("{}: {}", r.name, row_summary(r)))
                );
            }
        }
        let mut last = None;
        for (p, s, filled, when) in [(b, r.before.as_ref(), false, "before"), (a, r.after.as_ref(), true, "after")] {
            let (Some(((x, y), _)), Some(s)) = (p, s) else {
                continue;
            };
            let (px, py) = (f.px(x), f.py(y));
            let col = colour(s);
            let _ = writeln!(
                c.body,
                "<circle class=\"pt\" data-row=\"{i}\" data-side=\"{when}\" data-tip=\"r{i}-{when}\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\" fill-opacity=\"0.8\" stroke=\"{col}\" stroke-width=\"1.5\"{}><title>{}</title></circle>",
                n(px),
                n(py),
                n(DIFF_R),
                if filled { col } else { "#fff" },
                if total { " stroke-dasharray=\"3 2\"" } else { "" },
                escape(&side_title(s, when))
            );
            c.layout.mark(Rect::around(px, py, DIFF_R));
            last = Some((px, py, DIFF_R));
        }
        let _ = writeln!(c.body, "</g>");
        if let Some(l) = last {
            anchors.push((i, l));
        }
    }
    let _ = writeln!(c.body, "</g>");
    let _ = writeln!(c.body, "</g>");

    c.roof_labels(&roofs, "all");
    let _ = writeln!(c.body, "<g class=\"diff-labels\" font-size=\"11\" fill=\"#111\">");
    for (i, marker) in anchors {
        let row = &diff.rows[i];
        let text = format!("{}: {}", shorten(&row.name, 36), row_summary(row));
        let cands = spots_around(&[marker], 11.0);
        let Some(spot) = c.layout.place(&text, 11.0, &cands, Need::Optional) else {
            continue;
        };
        if let Some((x1, y1, x2, y2)) = leader(&text, 11.0, spot, marker) {
            let _ = writeln!(
                c.body,
                "<line class=\"leader\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\" stroke-width=\"0.8\"/>",
                n(x1),
                n(y1),
                n(x2),
                n(y2)
            );
        }
        let _ = writeln!(
            c.body,
            "<text data-row=\"{i}\" x=\"{}\" y=\"{}\" text-anchor=\"{}\">{}</text>",
            n(spot.x),
            n(spot.y),
            spot.anchor.attr(),
            escape(&text)
        );
    }
    let _ = writeln!(c.body, "</g>");

    let legend = vec![
        LegendEntry::marker(Shape::Circle, "#fff", "#0072b2", "before"),
        LegendEntry::marker(Shape::Circle, "#0072b2", "#0072b2", "after (memory-bound)"),
        LegendEntry::marker(Shape::Circle, "#d55e00", "#d55e00", "after (compute-bound)"),
        LegendEntry { symbol: Symbol::Arrow, text: "change".into() },
        LegendEntry::marker(Shape::Circle, "#222", "#222", "all kernels together"),
        LegendEntry::line("#222", Some(DASH), "theoretical roof"),
        LegendEntry::line("#222", None, "measured or given roof"),
    ];
    c.legend(&legend);
    if opts.notes {
        c.notes(&diff.notes);
    }
    let boxes = c.layout.labels.clone();
    (c.finish("diff-chart", &format!("Before and after chart, {} rows", diff.rows.len()), ""), boxes)
}
