//! The readable terminal view: one table of roofs, one of kernels.
//!
//! Every figure carries its unit and its origin; measured figures show their
//! spread (min..max over the samples) and the clock they ran at.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, ContentArrangement, Table};

use roofline_core::machine::{FlopKind, Machine, MemLevel};
use roofline_core::roofline::Limiter;
use roofline_core::schema::{AnalysisDocument, MachineDocument};
use roofline_core::stats::Spread;
use roofline_core::units::{format_percent, format_plain, format_si, Unit};

use crate::{ExportError, Exporter};

pub struct TableExporter;

impl Exporter for TableExporter {
    fn machine(&self, doc: &MachineDocument) -> Result<String, ExportError> {
        Ok(machine_text(&doc.machine))
    }

    fn analysis(&self, doc: &AnalysisDocument) -> Result<String, ExportError> {
        Ok(analysis_text(doc))
    }
}

fn new_table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(160)
        .set_header(header.iter().map(|h| Cell::new(*h)));
    t
}

/// "min..max, n=20" for a measured figure.
pub fn spread_text(spread: Option<&Spread>, unit: Unit) -> String {
    match spread {
        Some(s) if s.samples > 1 => format!(
            "{}..{} (n={}, ±{})",
            format_si(s.min, unit),
            format_si(s.max, unit),
            s.samples,
            format_percent(100.0 * s.stddev / s.median.abs().max(f64::MIN_POSITIVE))
        ),
        Some(s) => format!("one sample ({})", format_si(s.median, unit)),
        None => "-".into(),
    }
}

/// The header line of a machine: name, capability, SMs, clocks.
pub fn machine_heading(m: &Machine) -> String {
    let mut parts = vec![m.name.clone()];
    if let Some(cc) = &m.gpu.compute_capability {
        parts.push(format!("compute capability {cc}"));
    }
    if let Some(sms) = m.gpu.sms {
        parts.push(format!("{sms} SMs"));
    }
    if let Some(c) = m.gpu.sm_clock_mhz {
        parts.push(format!("SM clock {c:.0} MHz"));
    }
    if let Some(c) = m.gpu.mem_clock_mhz {
        parts.push(format!("memory clock {c:.0} MHz"));
    }
    if let Some(d) = &m.gpu.driver {
        parts.push(format!("driver {d}"));
    }
    parts.join(", ")
}

/// Ridge points of every primary compute ceiling against every memory level.
pub fn ridge_lines(m: &Machine) -> Vec<String> {
    primary_compute(m)
        .into_iter()
        .filter_map(|c| {
            let parts: Vec<String> = MemLevel::ALL
                .iter()
                .filter_map(|&level| m.bandwidth_roof(level))
                .map(|b| format!("{} {} FLOP/B", b.resource.label(), format_plain(c.rate / b.rate)))
                .collect();
            (!parts.is_empty()).then(|| format!("{}: {}", c.name, parts.join(", ")))
        })
        .collect()
}

/// The ceiling each FLOP kind is judged against, in table order.
pub fn primary_compute(m: &Machine) -> Vec<&roofline_core::Ceiling> {
    let mut out: Vec<&roofline_core::Ceiling> = Vec::new();
    for c in m.compute() {
        if let Some(p) = m.roof(c.resource) {
            if !out.iter().any(|x| std::ptr::eq(*x, p)) {
                out.push(p);
            }
        }
    }
    out
}

pub fn machine_text(m: &Machine) -> String {
    let mut t = new_table(&["ceiling", "value", "origin", "spread", "clock", "source"]);
    for c in &m.ceilings {
        let origin = if c.provenance.confirmed {
            c.provenance.origin.label().to_string()
        } else {
            format!("{} (unconfirmed)", c.provenance.origin.label())
        };
        t.add_row(vec![
            Cell::new(&c.name),
            Cell::new(c.formatted()).set_alignment(CellAlignment::Right),
            Cell::new(origin),
            Cell::new(spread_text(c.spread.as_ref(), c.unit())),
            Cell::new(c.clock.describe()),
            Cell::new(&c.provenance.source),
        ]);
    }
    let mut s = format!("{}\n{t}\n", machine_heading(m));
    let ridges = ridge_lines(m);
    if !ridges.is_empty() {
        s.push_str("ridge points (compute roof / bandwidth roof):\n");
        for r in ridges {
            s.push_str(&format!("  {r}\n"));
        }
    }
    for n in &m.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s
}

fn limiter_text(l: Option<Limiter>) -> String {
    match l {
        Some(Limiter::Bandwidth(level)) => format!("{} bandwidth", level.label()),
        Some(Limiter::Compute) => "compute".into(),
        None => "-".into(),
    }
}

fn flops_text(flops: &std::collections::BTreeMap<FlopKind, f64>) -> String {
    let parts: Vec<String> = flops
        .iter()
        .filter(|(_, v)| **v > 0.0)
        .map(|(k, v)| format!("{} {}", format_si(*v, Unit::Flop), k.label()))
        .collect();
    if parts.is_empty() {
        "0".into()
    } else {
        parts.join(" + ")
    }
}

/// Intensities or bytes of the levels a kernel touched, "DRAM 0.089 / L2 0.125".
fn per_level(
    a: &roofline_core::KernelAnalysis,
    f: impl Fn(&roofline_core::roofline::LevelPoint) -> Option<String>,
) -> String {
    let parts: Vec<String> = a.levels.iter().filter_map(|p| f(p).map(|v| format!("{} {v}", p.level.label()))).collect();
    if parts.is_empty() {
        "-".into()
    } else {
        parts.join("\n")
    }
}

pub fn analysis_text(doc: &AnalysisDocument) -> String {
    let timed = doc.kernels.iter().any(|k| k.kernel.duration_s.is_some());
    let mut header = vec!["kernel", "FLOPs", "bytes", "intensity (FLOP/B)", "roof (attainable)", "bound"];
    if timed {
        header.extend(["time", "share", "achieved", "% of roof", "position"]);
    } else {
        header.push("roof % of peak");
    }
    let mut t = new_table(&header);
    for a in &doc.kernels {
        let k = &a.kernel;
        let mut row = vec![
            format!("{}\n[{}]", k.display_name, k.id),
            flops_text(&k.flops).replace(" + ", "\n+ "),
            per_level(a, |p| Some(format_si(p.bytes, Unit::Byte))),
            per_level(a, |p| p.intensity.map(format_plain)),
            a.attainable_flops_per_s
                .map(|r| format!("{}\n({})", format_si(r, Unit::FlopPerSecond), limiter_text(a.limiter)))
                .unwrap_or_else(|| limiter_text(a.limiter)),
            a.bound.map(|b| b.label().to_string()).unwrap_or_else(|| "-".into()),
        ];
        if timed {
            row.push(k.duration_s.map(roofline_core::units::format_seconds).unwrap_or_else(|| "-".into()));
            row.push(a.time_share.map(|s| format_percent(100.0 * s)).unwrap_or_else(|| "-".into()));
            let achieved = match (a.achieved_flops_per_s, a.total_flops > 0.0) {
                (Some(f), true) => format_si(f, Unit::FlopPerSecond),
                _ => per_level(a, |p| p.achieved_bytes_per_s.map(|b| format_si(b, Unit::BytePerSecond))),
            };
            row.push(achieved);
            row.push(a.pct_of_roof.map(format_percent).unwrap_or_else(|| "-".into()));
            row.push(a.diagnosis.as_ref().map(|d| d.position.label().to_string()).unwrap_or_else(|| "-".into()));
        } else {
            let pct = match (a.attainable_flops_per_s, a.compute_roof_flops_per_s) {
                (Some(r), Some(p)) if p > 0.0 => format_percent(100.0 * r / p),
                _ => "-".into(),
            };
            row.push(pct);
        }
        t.add_row(row);
    }
    let mut s = format!(
        "{} on {} (source: {}{})\n",
        if timed { "kernels" } else { "paper estimates" },
        machine_heading(&doc.machine),
        doc.source.kind,
        if doc.source.detail.is_empty() { String::new() } else { format!(", {}", doc.source.detail) }
    );
    s.push_str(&format!("roofs: {}\n", roofs_line(&doc.machine)));
    let ridges = ridge_lines(&doc.machine);
    if !ridges.is_empty() {
        s.push_str(&format!("ridge points: {}\n", ridges.join("; ")));
    }
    s.push_str(&format!("{t}\n"));
    let diagnosed: Vec<_> = doc.kernels.iter().filter_map(|a| a.diagnosis.as_ref().map(|d| (a, d))).collect();
    if !diagnosed.is_empty() {
        s.push_str("diagnosis:\n");
        for (a, d) in diagnosed {
            s.push_str(&format!(
                "  {} [{}]: {} ({})\n",
                a.kernel.display_name,
                a.kernel.id,
                d.position.label(),
                d.evidence_lines().join("; ")
            ));
            s.push_str(&format!("    next: {}\n", d.next_move_text()));
        }
    }
    if let Some(c) = &doc.source.byte_convention {
        s.push_str(&format!("bytes per level: {c}\n"));
    }
    for a in &doc.kernels {
        if !a.missing_ceilings.is_empty() {
            s.push_str(&format!(
                "warning: {}: the machine has no ceiling for {}; those FLOPs are left out of its roof\n",
                a.kernel.display_name,
                a.missing_ceilings.iter().map(|k| k.label()).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    for w in &doc.warnings {
        s.push_str(&format!("warning: {w}\n"));
    }
    s
}

/// "FP32 8141 GFLOP/s (theoretical), DRAM 320 GB/s (theoretical), ridge 25.4 FLOP/B".
pub fn roofs_line(m: &Machine) -> String {
    // "FP32 (measured) 65.8 TFLOP/s" rather than "... (measured) (measured)".
    let entry = |name: &str, value: String, origin: &str| {
        let tag = format!("({origin})");
        let base = name.strip_suffix(&tag).map(str::trim_end).unwrap_or(name);
        format!("{base} {value} {tag}")
    };
    let mut parts = Vec::new();
    for c in primary_compute(m) {
        parts.push(entry(&c.name, c.formatted(), c.provenance.origin.label()));
    }
    for level in MemLevel::ALL {
        if let Some(b) = m.bandwidth_roof(level) {
            parts.push(entry(&b.name, b.formatted(), b.provenance.origin.label()));
        }
    }
    parts.join(", ")
}
