//! The occupancy calculator's answer in every output format: the limits per
//! resource, the headroom, the hint, and the sweeps (block size, registers,
//! shared memory) as tables of ranges, CSV points and JSON.
//!
//! Every figure here is theoretical: it comes from the calculator's rules,
//! not from a run, and the views say so.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, ContentArrangement, Table};
use serde::Serialize;

use roofline_core::occupancy::{BestBlockSize, Occupancy, Resource, Sweep, SweepAxis};
use roofline_core::units::format_percent;

use crate::{ExportError, Format};

/// The JSON schema name of an occupancy document.
pub const SCHEMA: &str = "roofline.occupancy/v1";

/// Everything `roofline occupancy` prints.
#[derive(Debug, Clone, Serialize)]
pub struct OccupancyDocument {
    pub schema: &'static str,
    /// The GPU named with `--gpu`, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    /// Always "theoretical": the calculator's rules, not a measurement.
    pub origin: &'static str,
    pub source: String,
    pub occupancy: Occupancy,
    pub best_block_size: BestBlockSize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sweeps: Vec<Sweep>,
}

impl OccupancyDocument {
    pub fn new(gpu: Option<String>, occupancy: Occupancy, best_block_size: BestBlockSize, sweeps: Vec<Sweep>) -> Self {
        OccupancyDocument {
            schema: SCHEMA,
            gpu,
            origin: "theoretical",
            source: "occupancy calculator (rules of cuda_occupancy.h per compute capability; H200 checked point by point against cuOccupancyMaxActiveBlocksPerMultiprocessor)".into(),
            occupancy,
            best_block_size,
            sweeps,
        }
    }
}

/// Renders the document in a format.
pub fn render(doc: &OccupancyDocument, format: Format) -> Result<String, ExportError> {
    Ok(match format {
        Format::Json => serde_json::to_string_pretty(doc)? + "\n",
        Format::Csv => csv(doc)?,
        Format::Table => text(doc, false),
        Format::Markdown => text(doc, true),
    })
}

fn blocks_text(b: Option<u32>) -> String {
    b.map(|b| b.to_string()).unwrap_or_else(|| "no limit".into())
}

fn opt_text(v: Option<u64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "-".into())
}

fn limiters_text(l: &[Resource]) -> String {
    l.iter().map(|r| r.label()).collect::<Vec<_>>().join(" + ")
}

fn grid(header: &[&str], rows: &[Vec<String>], markdown: bool) -> String {
    if markdown {
        let mut s = format!("| {} |\n|{}\n", header.join(" | "), "---|".repeat(header.len()));
        for r in rows {
            let cells: Vec<String> = r.iter().map(|c| c.replace('|', "\\|")).collect();
            s.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        s
    } else {
        let mut t = Table::new();
        t.load_preset(UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_width(160)
            .set_header(header.iter().map(|h| Cell::new(*h)));
        for r in rows {
            t.add_row(r.iter().enumerate().map(|(i, c)| {
                let cell = Cell::new(c);
                if i > 0 && c.chars().next().is_some_and(|ch| ch.is_ascii_digit()) {
                    cell.set_alignment(CellAlignment::Right)
                } else {
                    cell
                }
            }));
        }
        t.to_string() + "\n"
    }
}

/// The one-line description of the launch.
pub fn launch_line(o: &Occupancy) -> String {
    let l = &o.launch;
    let mut s = format!(
        "compute capability {}: {} threads/block, {} registers/thread, {} B static + {} B dynamic shared memory/block",
        o.compute_capability, l.threads_per_block, l.registers_per_thread, l.smem_static, l.smem_dynamic
    );
    if let Some(c) = l.carveout_pct {
        s.push_str(&format!(", carveout preference {c}%"));
    }
    if l.barriers_per_block != 1 {
        s.push_str(&format!(", {} barriers/block", l.barriers_per_block));
    }
    s
}

fn text(doc: &OccupancyDocument, markdown: bool) -> String {
    let o = &doc.occupancy;
    let mut s = String::new();
    let title = match &doc.gpu {
        Some(g) => format!("Occupancy on {g}"),
        None => "Occupancy".to_string(),
    };
    if markdown {
        s.push_str(&format!("### {title}\n\n{}\n\n", launch_line(o)));
    } else {
        s.push_str(&format!("{title}\n{}\n\n", launch_line(o)));
    }
    s.push_str(&format!(
        "{} resident blocks/SM x {} warps/block = {} of {} warps/SM: occupancy {} (theoretical), limited by {}\n",
        o.resident_blocks,
        o.warps_per_block,
        o.resident_warps,
        o.max_warps_per_sm,
        format_percent(o.occupancy_pct),
        limiters_text(&o.limiters)
    ));
    s.push_str(&format!(
        "granted: {} registers/warp ({} per block), {} B shared memory/block (with the reservation) of {} B/SM in force\n",
        o.registers_per_warp, o.registers_per_block, o.smem_per_block, o.smem_per_sm
    ));
    if markdown {
        s.push('\n');
    }
    let header = [
        "resource",
        "blocks/SM it allows",
        "unit",
        "now",
        "at most, for one more block",
        "at most, without losing a block",
    ];
    let rows: Vec<Vec<String>> = o
        .headroom
        .iter()
        .map(|h| {
            let mut name = h.resource.label().to_string();
            if o.limiters.contains(&h.resource) {
                name.push_str(" (limiter)");
            }
            vec![
                name,
                blocks_text(h.blocks),
                h.unit.clone(),
                h.current.to_string(),
                opt_text(h.for_one_more_block),
                opt_text(h.max_without_loss),
            ]
        })
        .collect();
    s.push_str(&grid(&header, &rows, markdown));
    if markdown {
        s.push('\n');
    }
    if let Some(h) = &o.hint {
        s.push_str(&format!("to fit more: {h}\n"));
    } else if o.resident_warps >= o.max_warps_per_sm {
        s.push_str("occupancy is at its maximum\n");
    }
    let b = &doc.best_block_size;
    s.push_str(&format!(
        "block size with the highest occupancy (cudaOccupancyMaxPotentialBlockSize): {} threads, {} blocks/SM, {}{}\n",
        b.block_size,
        b.resident_blocks,
        format_percent(b.occupancy_pct),
        b.min_grid_size.map(|g| format!(", {g} blocks fill the GPU once")).unwrap_or_default()
    ));
    for sw in &doc.sweeps {
        s.push('\n');
        let title = format!("Occupancy against {}", sw.axis.label());
        if markdown {
            s.push_str(&format!("#### {title}\n\n"));
        } else {
            s.push_str(&format!("{title}\n"));
        }
        let header = [sw.axis.label(), "blocks/SM", "warps/SM", "occupancy", "limited by"];
        let rows: Vec<Vec<String>> = sw
            .ranges()
            .iter()
            .map(|r| {
                vec![
                    if r.from == r.to { r.from.to_string() } else { format!("{}-{}", r.from, r.to) },
                    r.resident_blocks.to_string(),
                    r.resident_warps.to_string(),
                    format_percent(r.occupancy_pct),
                    limiters_text(&r.limiters),
                ]
            })
            .collect();
        s.push_str(&grid(&header, &rows, markdown));
    }
    s.push_str(&format!("\norigin: theoretical, {}\n", doc.source));
    s
}

fn csv(doc: &OccupancyDocument) -> Result<String, ExportError> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let o = &doc.occupancy;
    if doc.sweeps.is_empty() {
        w.write_record([
            "compute_capability",
            "threads_per_block",
            "registers_per_thread",
            "smem_static_bytes",
            "smem_dynamic_bytes",
            "carveout_pct",
            "warps_per_block",
            "resident_blocks",
            "resident_warps",
            "max_warps_per_sm",
            "occupancy_pct",
            "limiters",
            "blocks_by_warps",
            "blocks_by_blocks",
            "blocks_by_registers",
            "blocks_by_shared_memory",
            "blocks_by_barriers",
            "best_block_size",
            "origin",
            "hint",
        ])?;
        let lim = |b: u32| if b == u32::MAX { String::new() } else { b.to_string() };
        w.write_record([
            o.compute_capability.clone(),
            o.launch.threads_per_block.to_string(),
            o.launch.registers_per_thread.to_string(),
            o.launch.smem_static.to_string(),
            o.launch.smem_dynamic.to_string(),
            o.launch.carveout_pct.map(|c| c.to_string()).unwrap_or_default(),
            o.warps_per_block.to_string(),
            o.resident_blocks.to_string(),
            o.resident_warps.to_string(),
            o.max_warps_per_sm.to_string(),
            format!("{:.2}", o.occupancy_pct),
            limiters_text(&o.limiters),
            lim(o.limits.warps),
            lim(o.limits.blocks),
            lim(o.limits.registers),
            lim(o.limits.shared_memory),
            lim(o.limits.barriers),
            doc.best_block_size.block_size.to_string(),
            "theoretical".into(),
            o.hint.clone().unwrap_or_default(),
        ])?;
    } else {
        w.write_record(["axis", "value", "resident_blocks", "resident_warps", "occupancy_pct", "limiters", "origin"])?;
        for sw in &doc.sweeps {
            let axis = match sw.axis {
                SweepAxis::BlockSize => "threads_per_block",
                SweepAxis::Registers => "registers_per_thread",
                SweepAxis::SharedMemory => "smem_bytes_per_block",
            };
            for p in &sw.points {
                w.write_record([
                    axis.to_string(),
                    p.value.to_string(),
                    p.resident_blocks.to_string(),
                    p.resident_warps.to_string(),
                    format!("{:.2}", p.occupancy_pct),
                    limiters_text(&p.limiters),
                    "theoretical".into(),
                ])?;
            }
        }
    }
    let bytes = w.into_inner().map_err(|e| ExportError::Io { path: "<csv>".into(), source: e.into_error() })?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use roofline_core::occupancy::{calculate, limits, max_potential_block_size, sweep, Launch};

    fn doc(sweeps: bool) -> OccupancyDocument {
        let l = limits(9, 0).unwrap();
        let x = Launch::new(256, 40);
        let o = calculate(&l, &x).unwrap();
        let s = if sweeps { vec![sweep(&l, &x, SweepAxis::Registers)] } else { vec![] };
        OccupancyDocument::new(Some("h200".into()), o, max_potential_block_size(&l, &x), s)
    }

    #[test]
    fn table_shows_seed_002_example_with_origin_and_hint() {
        let t = render(&doc(false), Format::Table).unwrap();
        assert!(t.contains("48 of 64 warps/SM: occupancy 75"), "{t}");
        assert!(t.contains("registers (limiter)"), "{t}");
        assert!(t.contains("8 fewer registers"), "{t}");
        assert!(t.contains("theoretical"), "{t}");
    }

    #[test]
    fn every_format_renders() {
        for sweeps in [false, true] {
            let d = doc(sweeps);
            let j: serde_json::Value = serde_json::from_str(&render(&d, Format::Json).unwrap()).unwrap();
            assert_eq!(j["schema"], SCHEMA);
            assert_eq!(j["occupancy"]["resident_blocks"], 6);
            let c = render(&d, Format::Csv).unwrap();
            let lines = c.lines().count();
            assert_eq!(lines, if sweeps { 256 } else { 2 }, "{c}");
            let m = render(&d, Format::Markdown).unwrap();
            assert!(m.contains("| resource |"), "{m}");
        }
    }
}
