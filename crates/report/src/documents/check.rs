//! The outcome of `roofline check`: one row per rule applied to a kernel,
//! pass or FAIL, with the numbers behind it, and the kernels no rule judged.

use roofline_documents::CheckReport;
use serde::Serialize;

use crate::view::{Cell, Column, Describe, Note, Section, Show, Table, Tone};

/// A check's outcomes. JSON is `{passed, outcomes, notes}`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct CheckDocument<'a> {
    /// Whether every rule held.
    pub passed: bool,
    /// The outcomes and notes.
    #[serde(flatten)]
    pub report: &'a CheckReport,
}

impl<'a> CheckDocument<'a> {
    /// The document of a check's outcomes.
    pub fn new(report: &'a CheckReport) -> CheckDocument<'a> {
        CheckDocument { passed: report.passed(), report }
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
        let columns =
            || Column::texts(&[("result", "result"), ("kernel", "kernel"), ("rule", "rule"), ("detail", "numbers")]);
        let row = |t: &mut Table, o: &roofline_documents::Outcome| {
            let tone = Some(if o.passed { Tone::Good } else { Tone::Poor });
            t.push(vec![
                Cell::toned(if o.passed { "pass" } else { "FAIL" }, tone),
                Cell::text(&o.kernel),
                Cell::text(&o.rule),
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
        let notes: Vec<Note> = self.report.notes.iter().map(|n| Note::remark(n.to_string())).collect();
        let glance_notes: Vec<Note> = if self.report.notes.len() > GLANCE_OUTCOMES {
            glance_notes.push(Note::info(format!(
                "{} note(s) on kernels no rule judged: --wide lists them.",
                self.report.notes.len()
            )));
            glance_notes
        } else {
            glance_notes.into_iter().chain(notes.iter().cloned()).collect()
        };
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

/// How many outcomes the narrow terminal view lists before it counts.
pub const GLANCE_OUTCOMES: usize = 50;
