//! The outcome of `roofline check`: one row per rule applied to a kernel,
//! pass or FAIL, with the numbers behind it, and the kernels no rule judged.

use roofline_core::check::CheckReport;
use serde::Serialize;

use crate::view::{Cell, Column, Describe, Note, Section, Table, Tone};

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
        if failed == 0 {
            "roofline check: passed".into()
        } else {
            format!("roofline check: {failed} of {} failed", self.report.outcomes.len())
        }
    }

    fn sections(&self) -> Vec<Section> {
        let columns =
            Column::texts(&[("result", "result"), ("kernel", "kernel"), ("rule", "rule"), ("detail", "numbers")]);
        let mut t = Table::new("check", columns);
        for o in &self.report.outcomes {
            let tone = Some(if o.passed { Tone::Good } else { Tone::Poor });
            t.push(vec![
                Cell::toned(if o.passed { "pass" } else { "FAIL" }, tone),
                Cell::text(&o.kernel),
                Cell::text(&o.rule),
                Cell::text(&o.detail),
            ])
            .tone = tone;
        }
        let notes: Vec<Note> = self.report.notes.iter().map(|n| Note::remark(n.to_string())).collect();
        vec![Section::new("check", "").with(t).with_some((!notes.is_empty()).then_some(notes))]
    }
}
