//! Before and after: per kernel (or pairing, or all kernels together), the
//! change in time, intensity, % of roof and bound, with the diff chart.

use roofline_documents::AnalysisDocument;
use roofline_documents::{Diff, DiffRow, RowKind, Side};
use roofline_model::{format_percent, format_seconds, format_si, Unit};
use serde::{Serialize, Serializer};

use super::analysis::method_section;
use super::machine::roof_sections;
use crate::chart::ChartOptions;
use crate::diff::{diff_svg, row_summary};
use crate::view::{
    Cell, ChartKind, ChartRef, Column, Describe, Note, PointDetail, Quantity, Section, Show, Table, Value,
};

/// The comparison a page (HTML, SVG, the terminal) shows when it has more
/// than [`PAGE_KERNELS`](super::analysis::PAGE_KERNELS) rows: the rows with
/// the most time before, and all kernels together, with a note; `None`
/// when it fits. JSON and CSV keep every row.
pub fn page_diff(d: &Diff) -> Option<Diff> {
    let limit = super::analysis::PAGE_KERNELS;
    let rows: Vec<&DiffRow> = d.rows.iter().filter(|r| r.kind != RowKind::Total).collect();
    if rows.len() <= limit {
        return None;
    }
    let mut kept: Vec<DiffRow> = rows[..limit].iter().map(|r| (*r).clone()).collect();
    kept.extend(d.rows.iter().filter(|r| r.kind == RowKind::Total).cloned());
    let mut notes = vec![format!(
        "This view shows {limit} of the {} kernel rows (the first by time before, then removed and added ones) and all kernels together; --format json or csv has every row.",
        rows.len()
    )];
    notes.extend(d.notes.iter().cloned());
    Some(Diff { rows: kept, notes })
}

/// Two analyses and their comparison. JSON is the comparison itself.
#[derive(Debug, Clone, Copy)]
pub struct DiffDocument<'a> {
    /// The analysis before the change.
    pub before: &'a AnalysisDocument,
    /// The analysis after it.
    pub after: &'a AnalysisDocument,
    /// What changed, row by row (`roofline_documents::diff`).
    pub diff: &'a Diff,
}

impl Serialize for DiffDocument<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.diff.serialize(s)
    }
}

/// What changed for a row, in a few words: "1.50x faster", "only before".
fn change_cell(r: &DiffRow) -> Cell {
    match (r.kind, r.speedup()) {
        (RowKind::Removed, _) => Cell::text("only before"),
        (RowKind::Added, _) => Cell::text("only after"),
        // Two captures of an unchanged program differ by about this much
        // (SAME_WITHIN_PCT; `diff --help` says so).
        // Launches that vary more than that (a --per-launch capture): how much.
        (_, Some(_)) if r.same_by_spread() => Cell::text(format!(
            "same within noise (±{})",
            crate::view::text::quantity_text(r.noise_pct.unwrap_or(0.0), Quantity::Percent)
        )),
        (_, Some(_)) if r.same_time() => Cell::text("same within noise"),
        (_, Some(s)) => Cell::Value(Value::new(s, Quantity::Speedup)),
        (_, None) => Cell::text("no time to compare"),
    }
}

fn side_value(s: Option<&Side>, f: impl Fn(&Side) -> Option<f64>, unit: Quantity) -> Box<Cell> {
    Box::new(Cell::value(s.and_then(f), unit))
}

fn diff_table(diff: &Diff) -> Table {
    let mut t = Table::new(
        "diff",
        vec![
            Column::text("kernel", "kernel"),
            Column::text("kind", "kind").show(Show::Data),
            Column::mixed("speedup", "change").help("time before / time after"),
            // At a glance the change column says it ("1.50x faster").
            Column::change("time", "time", Quantity::Si(Unit::Second), Quantity::Change).show(Show::Wide),
            Column::change("intensity_dram", "intensity (DRAM)", Quantity::Si(Unit::FlopPerByte), Quantity::Factor),
            Column::change("pct_of_roof", "% of roof", Quantity::Percent, Quantity::PercentPoints),
            Column::text("bound", "bound"),
        ],
    );
    for (i, r) in diff.rows.iter().enumerate() {
        let (b, a) = (r.before.as_ref(), r.after.as_ref());
        let kind = match r.kind {
            RowKind::Matched => "matched",
            RowKind::Paired => "paired",
            RowKind::Removed => "removed",
            RowKind::Added => "added",
            RowKind::Total => "total",
        };
        let intensity = |s: &Side| s.headline_intensity().map(|x| x.1);
        let bound = |s: Option<&Side>| Box::new(Cell::opt_text(s.and_then(|s| s.bound).map(|b| b.label())));
        t.push(vec![
            // A name, so that every view shortens it alike (keeping the part
            // that tells two GEMMs apart).
            Cell::Name { name: r.name.clone(), id: String::new(), full: r.name.clone() },
            Cell::text(kind),
            change_cell(r),
            Cell::Change {
                before: side_value(b, |s| s.duration_s, Quantity::Si(Unit::Second)),
                after: side_value(a, |s| s.duration_s, Quantity::Si(Unit::Second)),
                delta: r.time_change_pct().map(|p| Value::new(p, Quantity::Change)),
            },
            Cell::Change {
                before: side_value(b, intensity, Quantity::Si(Unit::FlopPerByte)),
                after: side_value(a, intensity, Quantity::Si(Unit::FlopPerByte)),
                delta: r.intensity_ratio().map(|x| Value::new(x, Quantity::Factor)),
            },
            Cell::Change {
                before: side_value(b, |s| s.pct_of_roof, Quantity::Percent),
                after: side_value(a, |s| s.pct_of_roof, Quantity::Percent),
                delta: r.pct_of_roof_change().map(|d| Value::new(d, Quantity::PercentPoints)),
            },
            Cell::Change { before: bound(b), after: bound(a), delta: None },
        ])
        .link = Some(("data-row", i.to_string()));
    }
    t
}

impl Describe for DiffDocument<'_> {
    fn title(&self) -> String {
        format!("Before and after: {}", self.after.machine.name)
    }

    fn subtitle(&self) -> String {
        format!(
            "{} kernel(s) before ({}), {} after ({})",
            self.before.kernels.len(),
            self.before.source.kind,
            self.after.kernels.len(),
            self.after.source.kind
        )
    }

    fn sections(&self) -> Vec<Section> {
        let notes: Vec<Note> = self.diff.notes.iter().map(|n| Note::remark(n.to_string())).collect();
        let mut s = vec![
            Section::new("chart", "Before and after").show(Show::Wide).with(ChartRef {
                kind: ChartKind::Diff,
                hint: "Hover or focus a point for its numbers. Hollow: before; filled: after; the arrow is the change. Kernels are matched by name or by --match; the last row is all kernels together.".into(),
            }),
            Section::new("changes", "").with(diff_table(self.diff)).with_some((!notes.is_empty()).then_some(notes)),
        ];
        if self.before.machine == self.after.machine {
            s.extend(roof_sections(&self.after.machine, "machine", Show::Wide));
        } else {
            s.extend(roof_sections(&self.after.machine, "machine-after", Show::Wide));
            s.extend(roof_sections(&self.before.machine, "machine-before", Show::Wide));
        }
        s.push(method_section(self.before, "method-before", "How the numbers were obtained: before"));
        s.push(method_section(self.after, "method-after", "How the numbers were obtained: after"));
        s
    }

    fn chart_svg(&self, chart: ChartKind, opts: &ChartOptions) -> Option<String> {
        (chart == ChartKind::Diff).then(|| diff_svg(self.before, self.after, self.diff, opts))
    }

    fn point_details(&self) -> Vec<PointDetail> {
        let mut out = Vec::new();
        for (i, r) in self.diff.rows.iter().enumerate() {
            for (side, when) in [(&r.before, "before"), (&r.after, "after")] {
                let Some(s) = side else { continue };
                let mut lines = Vec::new();
                if let Some((l, x)) = s.headline_intensity() {
                    lines.push(format!("intensity at {}: {}", l.label(), format_si(x, Unit::FlopPerByte)));
                }
                if let Some(t) = s.duration_s {
                    lines.push(format!("time: {}", format_seconds(t)));
                }
                if let Some(a) = s.achieved_flops_per_s {
                    lines.push(format!("achieved: {}", format_si(a, Unit::FlopPerSecond)));
                }
                if let Some(p) = s.pct_of_roof {
                    lines.push(format!("{} of roof", format_percent(p)));
                }
                lines.push(format!("change: {}", row_summary(r)));
                out.push(PointDetail { key: format!("r{i}-{when}"), title: format!("{} ({when})", r.name), lines });
            }
        }
        out
    }
}
