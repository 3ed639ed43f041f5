//! The self-contained HTML report: one file that opens anywhere, fetches
//! nothing, and holds the charts, a sortable kernel table, the machine's
//! roofs with their provenance and clocks, and how the numbers were
//! obtained.
//!
//! The page is `templates/report.html` (kept as a file, so it reads as
//! HTML) with `{{NAME}}` slots filled here in one pass. The data behind the
//! page is embedded as JSON (`<script id="roofline-data">`); a little inline
//! script shows the details of a point on hover or focus and sorts the
//! table. The script also carries a self-test (`#selftest`) that the
//! browser check runs in headless Chromium.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use roofline_core::diagnosis::{LATENCY_PCT, ON_ROOF_PCT};
use roofline_core::diff::Diff;
use roofline_core::machine::{Machine, MemLevel};
use roofline_core::roofline::{KernelAnalysis, Limiter};
use roofline_core::schema::AnalysisDocument;
use roofline_core::units::{format_percent, format_seconds, format_si, Unit};
use serde::Serialize;

use crate::diff::{diff_chart, row_cells, row_summary};
use crate::svg::{escape, kernel_label, point_title, roofline_chart, ChartOptions};
use crate::table::{machine_heading, ridge_lines, spread_text};
use crate::ExportError;

const TEMPLATE: &str = include_str!("../templates/report.html");

/// Fills `{{NAME}}` slots in one pass (inserted text is never re-scanned).
fn fill(template: &str, slots: &BTreeMap<&str, String>) -> String {
    let mut out = String::with_capacity(template.len() * 2);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) if slots.contains_key(&after[..end]) => {
                out.push_str(&slots[&after[..end]]);
                rest = &after[end + 2..];
            }
            _ => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// JSON safe inside a `<script>` element.
fn script_json<T: Serialize>(v: &T) -> Result<String, ExportError> {
    Ok(serde_json::to_string(v)?.replace("</", "<\\/").replace("<!--", "<\\!--"))
}

#[derive(Serialize)]
struct PointDetail {
    title: String,
    lines: Vec<String>,
}

fn detail(text: &str, extra: &[String]) -> PointDetail {
    let mut lines = text.lines().map(str::to_string);
    let title = lines.next().unwrap_or_default();
    let mut lines: Vec<String> = lines.collect();
    lines.extend(extra.iter().cloned());
    PointDetail { title, lines }
}

fn td_num(v: Option<f64>, text: String) -> String {
    match v {
        Some(x) if x.is_finite() => {
            format!("<td class=\"num\" data-v=\"{x:e}\">{}</td>", escape(&text))
        }
        _ => "<td class=\"num\" data-v=\"\">-</td>".to_string(),
    }
}

fn th(label: &str, numeric: bool, title: &str) -> String {
    format!(
        "<th{} data-type=\"{}\" title=\"{}\"><button type=\"button\">{}</button></th>",
        if numeric { " class=\"num\"" } else { "" },
        if numeric { "num" } else { "text" },
        escape(title),
        escape(label)
    )
}

fn limiter_name(a: &KernelAnalysis) -> String {
    match a.limiter {
        Some(Limiter::Bandwidth(l)) => format!("{} bandwidth", l.label()),
        Some(Limiter::Compute) => a.compute_roof_name.clone().unwrap_or_else(|| "compute".into()),
        None => "-".into(),
    }
}

fn kernel_table(doc: &AnalysisDocument) -> String {
    let mut s = String::from("<table class=\"sortable\" id=\"kernel-table\">\n<thead><tr>");
    for (label, numeric, title) in [
        ("kernel", false, "display name and stable ID; hover for the full name"),
        ("time", true, "total duration of all launches"),
        ("share", true, "share of the GPU time of all kernels here"),
        ("AI DRAM", true, "FLOP per DRAM byte"),
        ("AI L2", true, "FLOP per L2 byte"),
        ("AI L1", true, "FLOP per L1/shared byte"),
        ("achieved", true, "FLOP/s reached"),
        ("roof", true, "the lowest roof at this kernel's intensities"),
        ("% of roof", true, "achieved / roof (for kernels with no FLOPs: best % of bandwidth)"),
        ("bound", false, "which side of the ridge"),
        ("diagnosis", false, "where the point landed"),
        ("next move", false, "what to try next"),
    ] {
        s.push_str(&th(label, numeric, title));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for (i, a) in doc.kernels.iter().enumerate() {
        let k = &a.kernel;
        let ai = |l: MemLevel| a.level(l).and_then(|p| p.intensity);
        let _ = write!(
            s,
            "<tr data-k=\"{i}\"><td data-v=\"{}\" title=\"{}\">{} <code>{}</code></td>",
            escape(&kernel_label(a).to_lowercase()),
            escape(&k.name),
            escape(&kernel_label(a)),
            escape(&k.id)
        );
        s.push_str(&td_num(k.duration_s, k.duration_s.map(format_seconds).unwrap_or_default()));
        s.push_str(&td_num(a.time_share, a.time_share.map(|x| format_percent(100.0 * x)).unwrap_or_default()));
        for l in MemLevel::ALL {
            s.push_str(&td_num(ai(l), ai(l).map(|x| format_si(x, Unit::FlopPerByte)).unwrap_or_default()));
        }
        s.push_str(&td_num(
            a.achieved_flops_per_s,
            a.achieved_flops_per_s.map(|x| format_si(x, Unit::FlopPerSecond)).unwrap_or_default(),
        ));
        s.push_str(&match a.attainable_flops_per_s {
            Some(x) => format!(
                "<td class=\"num\" data-v=\"{x:e}\">{}<span class=\"lim\">{}</span></td>",
                escape(&format_si(x, Unit::FlopPerSecond)),
                escape(&limiter_name(a))
            ),
            None => td_num(None, String::new()),
        });
        s.push_str(&td_num(a.pct_of_roof, a.pct_of_roof.map(format_percent).unwrap_or_default()));
        let bound = a.bound.map(|b| b.label()).unwrap_or("-");
        let _ = write!(s, "<td data-v=\"{bound}\" class=\"bound-{bound}\">{bound}</td>");
        let (pos, next) = match &a.diagnosis {
            Some(d) => (d.position.label().to_string(), d.next_move_text()),
            None if !a.missing_ceilings.is_empty() => (
                format!("no {} ceiling", a.missing_ceilings.iter().map(|k| k.label()).collect::<Vec<_>>().join(", ")),
                "add the missing ceiling (roofline bench, or a machine JSON)".into(),
            ),
            None if k.duration_s.is_none() => {
                ("estimate".into(), "run it and time it to place it under its roof".into())
            }
            None => ("-".into(), "-".into()),
        };
        let _ = writeln!(s, "<td>{}</td><td class=\"move\">{}</td></tr>", escape(&pos), escape(&next));
    }
    s.push_str("</tbody>\n</table>");
    s
}

fn machine_section(m: &Machine) -> String {
    let mut s = format!("<p><b>{}</b></p>\n<dl class=\"facts\">", escape(&machine_heading(m)));
    let g = &m.gpu;
    let mut fact = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            let _ = write!(s, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(&v));
        }
    };
    fact("GPU", g.name.clone());
    fact("compute capability", g.compute_capability.clone());
    fact("SMs", g.sms.map(|v| v.to_string()));
    fact("SM clock", g.sm_clock_mhz.map(|v| format!("{v:.0} MHz")));
    fact("memory clock", g.mem_clock_mhz.map(|v| format!("{v:.0} MHz")));
    fact("memory bus", g.bus_width_bits.map(|v| format!("{v} bits")));
    fact("L2", g.l2_bytes.map(|v| format_si(v as f64, Unit::Byte)));
    fact("memory", g.memory_bytes.map(|v| format_si(v as f64, Unit::Byte)));
    fact("driver", g.driver.clone());
    s.push_str("</dl>\n<div class=\"table-wrap\"><table class=\"sortable\" id=\"roof-table\">\n<thead><tr>");
    for (label, numeric) in
        [("ceiling", false), ("value", true), ("origin", false), ("spread", false), ("clock", false), ("source", false)]
    {
        s.push_str(&th(label, numeric, ""));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    let origin = |p: &roofline_core::Provenance, secondary: bool| {
        let mut o = p.origin.label().to_string();
        if !p.confirmed {
            o.push_str(", unconfirmed");
        }
        if secondary {
            o.push_str(", secondary");
        }
        o
    };
    for c in &m.ceilings {
        let unit = c.unit();
        let _ = writeln!(
            s,
            "<tr><td>{}</td>{}<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&c.name),
            td_num(Some(c.rate), format_si(c.rate, unit)),
            escape(&origin(&c.provenance, c.secondary)),
            escape(&spread_text(c.spread.as_ref(), unit)),
            escape(&c.clock.describe()),
            escape(&c.provenance.source)
        );
    }
    s.push_str("</tbody></table></div>\n");
    let ridges = ridge_lines(m);
    if !ridges.is_empty() {
        s.push_str("<p>Ridge points (where each compute roof meets each memory roof):</p><ul>");
        for r in ridges {
            let _ = write!(s, "<li>{}</li>", escape(&r));
        }
        s.push_str("</ul>\n");
    }
    for note in &m.notes {
        let _ = writeln!(s, "<p class=\"warn\">{}</p>", escape(note));
    }
    s
}

fn method_section(doc: &AnalysisDocument) -> String {
    let mut s = String::from("<dl class=\"facts\">");
    let mut fact = |k: &str, v: &str| {
        let _ = write!(s, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(v));
    };
    let source = match doc.source.kind.as_str() {
        "model" => "paper estimates: FLOPs and bytes as described by the user",
        "ncu" => "Nsight Compute hardware counters",
        "timing" => "CUDA event timing of kernels with known FLOPs and bytes",
        other => other,
    };
    fact("kernels from", &format!("{source} ({})", doc.source.kind));
    if !doc.source.detail.is_empty() {
        fact("input", &doc.source.detail);
    }
    if let Some(c) = &doc.source.byte_convention {
        fact("bytes counted as", c);
    }
    let p = &doc.producer;
    fact(
        "written by",
        &format!(
            "{} {}{}{}",
            p.tool,
            p.version,
            if p.command.is_empty() { String::new() } else { format!(", `{}`", p.command) },
            p.created.as_ref().map(|c| format!(", {c}")).unwrap_or_default()
        ),
    );
    fact("schema", &doc.schema);
    s.push_str("</dl>\n<ul>");
    for line in [
        "Arithmetic intensity (AI) at a memory level = the kernel's FLOPs / the bytes that crossed that level.".to_string(),
        "The roof at a level = min(compute peak, AI x that level's bandwidth); the roof that applies is the lowest over the levels (the hierarchical roofline). A kernel mixing FLOP kinds is judged against F / sum(F_k / peak_k).".into(),
        "Achieved = FLOPs / duration; % of roof = achieved / roof. Kernels with no FLOPs are judged by their best % of bandwidth.".into(),
        "Measured ceilings are preferred over theoretical ones of the same kind; theoretical ones are drawn dashed, measured or user-given ones solid.".into(),
        format!(
            "Diagnosis: at or above {} of its roof a kernel is on it; below {} of its roof and of every bandwidth it is latency-bound.",
            format_percent(ON_ROOF_PCT),
            format_percent(LATENCY_PCT)
        ),
    ] {
        let _ = write!(s, "<li>{}</li>", escape(&line));
    }
    s.push_str("</ul>\n");
    s
}

fn warnings(doc_warnings: &[String], chart_notes: &[String]) -> String {
    let mut s = String::new();
    for w in doc_warnings.iter().chain(chart_notes) {
        let _ = writeln!(s, "<p class=\"warn\">{}</p>", escape(w));
    }
    s
}

fn page(mut slots: BTreeMap<&'static str, String>) -> String {
    slots.insert("GENERATOR", format!("roofline {}", env!("CARGO_PKG_VERSION")));
    slots.insert(
        "FOOTER",
        format!(
            "Written by roofline {}. Self-contained: this file loads nothing from a network.",
            env!("CARGO_PKG_VERSION")
        ),
    );
    fill(TEMPLATE, &slots)
}

/// The HTML report of one analysis.
pub fn report_html(doc: &AnalysisDocument, opts: &ChartOptions) -> Result<String, ExportError> {
    let (chart, _) = roofline_chart(doc, opts);
    let mut points = BTreeMap::new();
    for (i, a) in doc.kernels.iter().enumerate() {
        let mut extra = Vec::new();
        if let Some(d) = &a.diagnosis {
            extra.push(format!("next move: {}", d.next_move_text()));
        }
        for p in &a.levels {
            if p.intensity.is_some() {
                points.insert(format!("{i}-{}", p.level.key()), detail(&point_title(a, p.level), &extra));
            }
        }
    }
    #[derive(Serialize)]
    struct Data<'a> {
        analysis: &'a AnalysisDocument,
        points: BTreeMap<String, PointDetail>,
    }
    let data = script_json(&Data { analysis: doc, points })?;
    let mut slots = BTreeMap::new();
    slots.insert("TITLE", escape(&format!("Roofline report: {}", doc.machine.name)));
    slots.insert(
        "SUBTITLE",
        escape(&format!(
            "{} kernels from {}; roofs: {}",
            doc.kernels.len(),
            doc.source.kind,
            crate::table::roofs_line(&doc.machine)
        )),
    );
    slots.insert("WARNINGS", warnings(&doc.warning_lines(), &crate::svg::chart_notes(doc)));
    slots.insert("CHARTS", format!("<div class=\"chart\">{chart}</div>"));
    slots.insert("TABLE_HEADING", "Kernels".into());
    slots.insert(
        "CHART_HINT",
        "Hover or focus a point for its numbers. Each kernel has one point per memory level, joined by a line; marker area is its share of GPU time.".into(),
    );
    slots.insert("TABLE", kernel_table(doc));
    slots.insert("MACHINE", machine_section(&doc.machine));
    slots.insert("METHOD", method_section(doc));
    slots.insert("DATA", data);
    Ok(page(slots))
}

/// The HTML page of a before/after comparison.
pub fn diff_html(
    before: &AnalysisDocument,
    after: &AnalysisDocument,
    diff: &Diff,
    opts: &ChartOptions,
) -> Result<String, ExportError> {
    let (chart, _) = diff_chart(before, after, diff, opts);
    let mut points = BTreeMap::new();
    for (i, r) in diff.rows.iter().enumerate() {
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
            points.insert(format!("r{i}-{when}"), PointDetail { title: format!("{} ({when})", r.name), lines });
        }
    }
    #[derive(Serialize)]
    struct Data<'a> {
        before: &'a AnalysisDocument,
        after: &'a AnalysisDocument,
        diff: &'a Diff,
        points: BTreeMap<String, PointDetail>,
    }
    let data = script_json(&Data { before, after, diff, points })?;

    let mut table = String::from("<table class=\"sortable\" id=\"diff-table\">\n<thead><tr>");
    for (label, numeric) in [
        ("kernel", false),
        ("change", true),
        ("time", true),
        ("intensity (DRAM)", true),
        ("% of roof", true),
        ("bound", false),
    ] {
        table.push_str(&th(label, numeric, ""));
    }
    table.push_str("</tr></thead>\n<tbody>\n");
    for (i, r) in diff.rows.iter().enumerate() {
        let c = row_cells(r);
        let _ = writeln!(
            table,
            "<tr data-row=\"{i}\"><td data-v=\"{}\">{}</td>{}{}{}{}<td>{}</td></tr>",
            escape(&c[0].to_lowercase()),
            escape(&c[0]),
            td_num(r.speedup(), c[1].clone()),
            td_num(r.time_change_pct(), c[2].clone()),
            td_num(r.intensity_ratio(), c[3].clone()),
            td_num(r.pct_of_roof_change(), c[4].clone()),
            escape(&c[5])
        );
    }
    table.push_str("</tbody>\n</table>");

    let mut machine = machine_section(&after.machine);
    if before.machine != after.machine {
        machine = format!("<h3>After</h3>{machine}<h3>Before</h3>{}", machine_section(&before.machine));
    }
    let mut slots = BTreeMap::new();
    slots.insert("TITLE", escape(&format!("Before and after: {}", after.machine.name)));
    slots.insert(
        "SUBTITLE",
        escape(&format!(
            "{} kernel(s) before ({}), {} after ({})",
            before.kernels.len(),
            before.source.kind,
            after.kernels.len(),
            after.source.kind
        )),
    );
    slots.insert("WARNINGS", warnings(&[], &diff.notes));
    slots.insert("CHARTS", format!("<div class=\"chart\">{chart}</div>"));
    slots.insert("TABLE_HEADING", "Changes".into());
    slots.insert(
        "CHART_HINT",
        "Hover or focus a point for its numbers. Hollow: before; filled: after; the arrow is the change. Kernels are matched by name or by --match; the last row is all kernels together.".into(),
    );
    slots.insert("TABLE", table);
    slots.insert("MACHINE", machine);
    slots.insert("METHOD", format!("<h3>Before</h3>{}<h3>After</h3>{}", method_section(before), method_section(after)));
    slots.insert("DATA", data);
    Ok(page(slots))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples;

    #[test]
    fn fill_is_one_pass() {
        let mut slots = BTreeMap::new();
        slots.insert("A", "{{B}}".to_string());
        slots.insert("B", "b".to_string());
        assert_eq!(fill("x{{A}}y{{B}}z{{C}}", &slots), "x{{B}}ybz{{C}}");
    }

    #[test]
    fn report_is_self_contained() {
        let html = report_html(&samples::hierarchical_h200(), &ChartOptions::default()).unwrap();
        for bad in ["http://", "https://", "src=", "@import", "url(http", "{{"] {
            let hits: Vec<_> =
                html.match_indices(bad).map(|(i, _)| &html[i.saturating_sub(40)..(i + 60).min(html.len())]).collect();
            // The SVG namespace is an identifier, not a fetch.
            let hits: Vec<_> = hits.into_iter().filter(|h| !h.contains("www.w3.org/2000/svg")).collect();
            assert!(hits.is_empty(), "{bad}: {hits:?}");
        }
        assert!(html.contains("id=\"roofline-data\""));
    }

    #[test]
    fn every_point_has_details_and_the_table_every_kernel() {
        let doc = samples::hierarchical_h200();
        let html = report_html(&doc, &ChartOptions::default()).unwrap();
        let page = &html[..html.find("<script type=\"application/json\"").unwrap()];
        let tips: Vec<&str> = page.split("data-tip=\"").skip(1).map(|s| &s[..s.find('"').unwrap()]).collect();
        let levels: usize = doc.kernels.iter().map(|a| a.levels.iter().filter(|p| p.intensity.is_some()).count()).sum();
        assert_eq!(tips.len(), levels);
        let start = html.find("id=\"roofline-data\">").unwrap();
        let json = &html[start + 19..];
        let json = &json[..json.find("</script>").unwrap()];
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        for t in tips {
            let p = &v["points"][t];
            assert!(
                p["title"].as_str().is_some_and(|s| !s.is_empty())
                    && p["lines"].as_array().is_some_and(|l| !l.is_empty()),
                "{t}"
            );
        }
        assert_eq!(html.matches("<tr data-k=").count(), doc.kernels.len());
    }

    #[test]
    fn script_json_cannot_close_the_script() {
        let s = script_json(&"</script><!--").unwrap();
        assert!(!s.contains("</") && !s.contains("<!--"), "{s}");
    }
}
