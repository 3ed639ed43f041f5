//! Markdown: the same content as the table view, for CI job summaries,
//! pull-request comments and READMEs.

use roofline_core::schema::{AnalysisDocument, MachineDocument};
use roofline_core::units::{format_percent, format_seconds, format_si, Unit};

use crate::table::{machine_heading, ridge_lines, roofs_line, spread_text};
use crate::{ExportError, Exporter};

pub struct MarkdownExporter;

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', "<br>")
}

impl Exporter for MarkdownExporter {
    fn machine(&self, doc: &MachineDocument) -> Result<String, ExportError> {
        let m = &doc.machine;
        let mut s = format!("### Roofs of {}\n\n", cell(&machine_heading(m)));
        s.push_str("| ceiling | value | origin | spread | clock | source |\n|---|---:|---|---|---|---|\n");
        for c in &m.ceilings {
            s.push_str(&format!(
                "| {} | {} | {}{} | {} | {} | {} |\n",
                cell(&c.name),
                c.formatted(),
                c.provenance.origin.label(),
                if c.provenance.confirmed { "" } else { " (unconfirmed)" },
                cell(&spread_text(c.spread.as_ref(), c.unit())),
                cell(&c.clock.describe()),
                cell(&c.provenance.source)
            ));
        }
        let ridges = ridge_lines(m);
        if !ridges.is_empty() {
            s.push_str("\nRidge points: ");
            s.push_str(&ridges.join("; "));
            s.push('\n');
        }
        for n in &m.notes {
            s.push_str(&format!("\n> note: {}\n", cell(n)));
        }
        Ok(s)
    }

    fn analysis(&self, doc: &AnalysisDocument) -> Result<String, ExportError> {
        let mut s = format!(
            "### Roofline of {} kernels on {}\n\nSource: {}{}. Roofs: {}. Ridge points: {}.\n\n",
            doc.kernels.len(),
            cell(&machine_heading(&doc.machine)),
            doc.source.kind,
            if doc.source.detail.is_empty() { String::new() } else { format!(" ({})", cell(&doc.source.detail)) },
            cell(&roofs_line(&doc.machine)),
            cell(&ridge_lines(&doc.machine).join("; "))
        );
        s.push_str("| kernel | time | share | intensity | attainable | roof % of peak | achieved | % of roof | bound | diagnosis | next move |\n");
        s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n");
        for a in &doc.kernels {
            let k = &a.kernel;
            let of_peak = match (a.attainable_flops_per_s, a.compute_roof_flops_per_s) {
                (Some(r), Some(p)) if p > 0.0 => format_percent(100.0 * r / p),
                _ => "-".into(),
            };
            s.push_str(&format!(
                "| {} `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                cell(&k.display_name),
                k.id,
                k.duration_s.map(format_seconds).unwrap_or_else(|| "-".into()),
                a.time_share.map(|x| format_percent(100.0 * x)).unwrap_or_else(|| "-".into()),
                a.headline_intensity().map(|i| format_si(i, Unit::FlopPerByte)).unwrap_or_else(|| "-".into()),
                a.attainable_flops_per_s.map(|x| format_si(x, Unit::FlopPerSecond)).unwrap_or_else(|| "-".into()),
                of_peak,
                a.achieved_flops_per_s.map(|x| format_si(x, Unit::FlopPerSecond)).unwrap_or_else(|| "-".into()),
                a.pct_of_roof.map(format_percent).unwrap_or_else(|| "-".into()),
                a.bound.map(|b| b.label()).unwrap_or("-"),
                a.diagnosis.as_ref().map(|d| d.position.label()).unwrap_or("-"),
                cell(&a.diagnosis.as_ref().map(|d| d.next_move_text()).unwrap_or_else(|| "-".into())),
            ));
        }
        for w in &doc.warnings {
            s.push_str(&format!("\n> warning: {}\n", cell(&w.to_string())));
        }
        Ok(s)
    }
}
