//! The outcome of `roofline check`: one row per rule applied to a kernel,
//! pass or FAIL, with the numbers behind it, and the kernels no rule judged.

use roofline_documents::CheckReport;
use serde::Serialize;

use crate::view::{Cell, Column, Describe, Note, Section, Show, Table, Tone};

/// The check document's schema (docs/schema.md).
pub const CHECK_SCHEMA: &str = "roofline.check/v1";

/// A check's outcomes. JSON is `{schema, passed, outcomes, notes}` (and
/// `baseline_replaced` when the baseline was placed again).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct CheckDocument<'a> {
    /// Always [`CHECK_SCHEMA`].
    pub schema: &'static str,
    /// Whether every rule held.
    pub passed: bool,
    /// The outcomes and notes.
    #[serde(flatten)]
    pub report: &'a CheckReport,
}

impl<'a> CheckDocument<'a> {
    /// The document of a check's outcomes.
    pub fn new(report: &'a CheckReport) -> CheckDocument<'a> {
        CheckDocument { schema: CHECK_SCHEMA, passed: report.passed(), report }
    }
}

impl Describe for CheckDocument<'_> {
    fn title(&self) -> String {
        let failed = self.report.failures().count();
        if self.report.outcomes.is_empty() && !self.passed {
            "roofline check: failed, no rule applied to any kernel".into()
        } else if failed == 0 {
            "roofline check: passed".into()
        } else {
            format!("roofline check: {failed} of {} failed", self.report.outcomes.len())
        }
    }

    fn sections(&self) -> Vec<Section> {
        // The rule, the kernel, its value and the limit first: a CI log cut
        // at any width still says what failed and by how much.
        let columns = || {
            let essential =
                [("result", "result"), ("rule", "rule"), ("kernel", "kernel"), ("value", "value"), ("limit", "limit")];
            let mut c: Vec<Column> = Column::texts(&essential).into_iter().map(Column::essential).collect();
            c.push(Column::text("detail", "numbers"));
            c
        };
        let row = |t: &mut Table, o: &roofline_documents::Outcome| {
            let tone = Some(if o.passed { Tone::Good } else { Tone::Poor });
            let kernel = if o.kernel_id.is_empty() {
                Cell::text(&o.kernel)
            } else {
                Cell::Name { name: o.kernel.clone(), id: o.kernel_id.clone(), full: o.kernel.clone() }
            };
            let limit = o.limit.map(|l| {
                // A minimum: a % of roof to reach, a regression floor, and the
                // speed of light (a time must not be below its bound).
                let at_least =
                    o.rule.ends_with("min_pct_of_roof") || o.rule == "regression.pct_of_roof" || o.rule == "sol";
                format!("{} {}", if at_least { ">=" } else { "<=" }, number(l, &o.unit))
            });
            t.push(vec![
                Cell::toned(if o.passed { "pass" } else { "FAIL" }, tone),
                Cell::text(&o.rule),
                kernel,
                Cell::text(o.value.map(|v| number(v, &o.unit)).unwrap_or_else(|| "-".into())),
                Cell::text(limit.unwrap_or_else(|| "-".into())),
                Cell::text(&o.detail),
            ])
            .tone = tone;
        };
        // At a glance, small checks in full; large ones by their failures,
        // the first GLANCE_OUTCOMES of them, and a count of the rest.
        let total = self.report.outcomes.len();
        let failed: Vec<_> = self.report.failures().collect();
        let mut glance = Table::new("check", columns());
        let mut glance_notes = Vec::new();
        if total <= GLANCE_OUTCOMES {
            for o in &self.report.outcomes {
                row(&mut glance, o);
            }
        } else {
            for o in failed.iter().take(GLANCE_OUTCOMES) {
                row(&mut glance, o);
            }
            glance_notes.push(Note::info(format!(
                "{} of {total} rule(s) held{}; --wide, --format json or csv list every outcome.",
                total - failed.len(),
                if failed.len() > GLANCE_OUTCOMES {
                    format!(", {} more failed than shown", failed.len() - GLANCE_OUTCOMES)
                } else {
                    String::new()
                }
            )));
        }
        let mut notes: Vec<Note> = self.report.notes.iter().map(|n| Note::remark(n.to_string())).collect();
        if let Some(why) = &self.report.baseline_replaced {
            notes.insert(0, Note::warning(why.clone()));
        }
        let glance_notes: Vec<Note> = if self.report.notes.len() > GLANCE_OUTCOMES {
            glance_notes.push(Note::info(format!(
                "{} note(s) on kernels no rule judged: --wide lists them.",
                self.report.notes.len()
            )));
            glance_notes
        } else {
            glance_notes.into_iter().chain(notes.iter().cloned()).collect()
        };
        let mut glance_notes = glance_notes;
        if let Some(why) = &self.report.baseline_replaced {
            if !glance_notes.iter().any(|n| &n.text == why) {
                glance_notes.insert(0, Note::warning(why.clone()));
            }
        }
        let mut all = Table::new("check", columns());
        for o in &self.report.outcomes {
            row(&mut all, o);
        }
        vec![
            Section::new("check-glance", "")
                .show(Show::Glance)
                .with_some((!glance.rows.is_empty()).then_some(glance))
                .with_some((!glance_notes.is_empty()).then_some(glance_notes)),
            Section::new("check", "").show(Show::Wide).with(all).with_some((!notes.is_empty()).then_some(notes)),
        ]
    }
}

/// A check's number in its unit: "41%", "1.200 ms", "+12.5%".
fn number(v: f64, unit: &str) -> String {
    match unit {
        "pct_of_roof" => roofline_model::format_percent(v),
        "s" => roofline_model::format_seconds(v),
        "pct_change" => format!("{}%", roofline_model::signed(v, 1)),
        _ => format!("{v}"),
    }
}

/// How many outcomes the narrow terminal view lists before it counts.
pub const GLANCE_OUTCOMES: usize = 50;
