//! The occupancy calculator's answer: the launch, resident blocks and warps,
//! the limit each resource sets with its headroom, the hint, the block size
//! with the highest occupancy, and the sweeps (block size, registers, shared
//! memory) with their charts.
//!
//! Every figure here is theoretical: it comes from the calculator's rules,
//! not from a run, and the views say so.

use serde::Serialize;

use roofline_analysis::{BestBlockSize, Occupancy, Resource, Sweep, SweepAxis};
use roofline_model::format_percent;
use roofline_model::Origin;

use crate::chart::ChartOptions;
use crate::occupancy_chart::sweep_svg;
use crate::view::{Cell, ChartKind, ChartRef, Column, Describe, Note, Quantity, Section, Show, Table, Value};

/// The JSON schema name of an occupancy document.
pub const OCCUPANCY_SCHEMA: &str = "roofline.occupancy/v1";

/// Everything `roofline occupancy` prints.
#[derive(Debug, Clone, Serialize)]
pub struct OccupancyDocument {
    /// [`OCCUPANCY_SCHEMA`].
    pub schema: &'static str,
    /// The GPU named with `--gpu`, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    /// Always "theoretical": the calculator's rules, not a measurement.
    pub origin: &'static str,
    /// Where the rules come from.
    pub source: String,
    /// The answer for the launch.
    pub occupancy: Occupancy,
    /// The block size with the highest occupancy.
    pub best_block_size: BestBlockSize,
    /// Occupancy against one launch parameter at a time.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sweeps: Vec<Sweep>,
}

impl OccupancyDocument {
    /// The document of one calculation.
    pub fn new(gpu: Option<String>, occupancy: Occupancy, best_block_size: BestBlockSize, sweeps: Vec<Sweep>) -> Self {
        OccupancyDocument {
            schema: OCCUPANCY_SCHEMA,
            gpu,
            origin: "theoretical",
            source: "occupancy calculator (rules of cuda_occupancy.h per compute capability; H200 checked point by point against cuOccupancyMaxActiveBlocksPerMultiprocessor)".into(),
            occupancy,
            best_block_size,
            sweeps,
        }
    }
}

fn limiters_text(l: &[Resource]) -> String {
    l.iter().map(|r| r.label()).collect::<Vec<_>>().join(" + ")
}

/// A theoretical count.
fn count(v: impl Into<f64>) -> Cell {
    Value::new(v.into(), Quantity::Count).origin(Origin::Theoretical).cell()
}

/// A theoretical percentage.
fn pct(v: f64) -> Cell {
    Value::new(v, Quantity::Percent).origin(Origin::Theoretical).cell()
}

/// The resident blocks a resource allows (`u32::MAX`: no limit).
fn blocks(b: u32) -> Cell {
    if b == u32::MAX {
        Cell::text("no limit")
    } else {
        count(b)
    }
}

/// The one-line description of the launch.
fn launch_line(o: &Occupancy) -> String {
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

fn axis_key(a: SweepAxis) -> &'static str {
    match a {
        SweepAxis::BlockSize => "threads_per_block",
        SweepAxis::Registers => "registers_per_thread",
        SweepAxis::SharedMemory => "smem_bytes_per_block",
    }
}

/// Every point of every sweep, for scripts.
fn sweep_points(sweeps: &[Sweep]) -> Table {
    let mut t = Table::new(
        "sweep_points",
        vec![
            Column::text("axis", "axis"),
            Column::value("value", "value", Quantity::Count),
            Column::value("resident_blocks", "blocks/SM", Quantity::Count),
            Column::value("resident_warps", "warps/SM", Quantity::Count),
            Column::value("occupancy", "occupancy", Quantity::Percent),
            Column::text("limiters", "limited by"),
            Column::text("origin", "origin"),
        ],
    );
    for sw in sweeps {
        for p in &sw.points {
            t.push(vec![
                Cell::text(axis_key(sw.axis)),
                count(p.value as f64),
                count(p.resident_blocks),
                count(p.resident_warps),
                pct(p.occupancy_pct),
                Cell::text(limiters_text(&p.limiters)),
                Cell::text("theoretical"),
            ]);
        }
    }
    t
}

/// The answer in one row, for scripts.
fn summary_row(doc: &OccupancyDocument) -> Table {
    let o = &doc.occupancy;
    let l = &o.launch;
    let n = |key: &str, label: &str, v: f64| (Column::value(key, label, Quantity::Count), count(v));
    let text = |key: &str, label: &str, v: String| (Column::text(key, label), Cell::opt_text(Some(v)));
    let mut fields = vec![
        text("compute_capability", "compute capability", o.compute_capability.clone()),
        n("threads_per_block", "threads/block", l.threads_per_block.into()),
        n("registers_per_thread", "registers/thread", l.registers_per_thread.into()),
        n("smem_static_bytes", "static shared memory (B)", l.smem_static as f64),
        n("smem_dynamic_bytes", "dynamic shared memory (B)", l.smem_dynamic as f64),
        (
            Column::value("carveout", "carveout", Quantity::Percent),
            Cell::value(l.carveout_pct.map(f64::from), Quantity::Percent),
        ),
        n("warps_per_block", "warps/block", o.warps_per_block.into()),
        n("resident_blocks", "blocks/SM", o.resident_blocks.into()),
        n("resident_warps", "warps/SM", o.resident_warps.into()),
        n("max_warps_per_sm", "max warps/SM", o.max_warps_per_sm.into()),
        (Column::value("occupancy", "occupancy", Quantity::Percent), pct(o.occupancy_pct)),
        text("limiters", "limited by", limiters_text(&o.limiters)),
    ];
    // The blocks each resource alone allows (empty: no limit).
    for r in [Resource::Warps, Resource::Blocks, Resource::Registers, Resource::SharedMemory, Resource::Barriers] {
        let blocks = o.limits.get(r);
        let key = format!("blocks_by_{}", r.label().replace(' ', "_"));
        let cell = if blocks == u32::MAX { Cell::Empty } else { count(blocks) };
        fields.push((Column::value(&key, &format!("blocks by {}", r.label()), Quantity::Count), cell));
    }
    fields.push(n("best_block_size", "best block size", doc.best_block_size.block_size.into()));
    fields.push(text("origin", "origin", "theoretical".into()));
    fields.push(text("hint", "hint", o.hint.clone().unwrap_or_default()));
    let (columns, cells): (Vec<Column>, Vec<Cell>) = fields.into_iter().unzip();
    let mut t = Table::new("occupancy", columns);
    t.push(cells);
    t
}

/// What each resource allows, and how far it can move.
fn headroom(o: &Occupancy) -> Table {
    let mut t = Table::new(
        "headroom",
        vec![
            Column::text("resource", "resource"),
            Column::value("blocks", "blocks/SM it allows", Quantity::Count),
            Column::text("counted_in", "unit"),
            Column::value("now", "now", Quantity::Count),
            Column::value("for_one_more_block", "at most, for one more block", Quantity::Count),
            Column::value("max_without_loss", "at most, without losing a block", Quantity::Count),
        ],
    );
    for h in &o.headroom {
        let mut name = h.resource.label().to_string();
        if o.limiters.contains(&h.resource) {
            name.push_str(" (limiter)");
        }
        t.push(vec![
            Cell::text(name),
            h.blocks.map(blocks).unwrap_or_else(|| Cell::text("no limit")),
            Cell::text(&h.unit),
            count(h.current as f64),
            h.for_one_more_block.map(|v| count(v as f64)).unwrap_or_default(),
            h.max_without_loss.map(|v| count(v as f64)).unwrap_or_default(),
        ]);
    }
    t
}

/// Consecutive sweep points with the same answer, as ranges.
fn sweep_ranges(sw: &Sweep) -> Table {
    let mut t = Table::new(
        format!("sweep_{}", axis_key(sw.axis)),
        vec![
            Column::text("range", sw.axis.label()),
            Column::value("resident_blocks", "blocks/SM", Quantity::Count),
            Column::value("resident_warps", "warps/SM", Quantity::Count),
            Column::value("occupancy", "occupancy", Quantity::Percent),
            Column::text("limiters", "limited by"),
        ],
    );
    for r in sw.ranges() {
        t.push(vec![
            Cell::text(if r.from == r.to { r.from.to_string() } else { format!("{}-{}", r.from, r.to) }),
            count(r.resident_blocks),
            count(r.resident_warps),
            pct(r.occupancy_pct),
            Cell::text(limiters_text(&r.limiters)),
        ]);
    }
    t
}

impl Describe for OccupancyDocument {
    fn title(&self) -> String {
        match &self.gpu {
            Some(g) => format!("Occupancy on {g}"),
            None => "Occupancy".to_string(),
        }
    }

    fn sections(&self) -> Vec<Section> {
        let o = &self.occupancy;
        let mut data = Section::new("data", "").show(Show::Data);
        if !self.sweeps.is_empty() {
            data = data.with(sweep_points(&self.sweeps));
        }
        data = data.with(summary_row(self));
        let summary = vec![
            Note::info(launch_line(o)),
            Note::info(format!(
                "{} resident blocks/SM x {} warps/block = {} of {} warps/SM: occupancy {} (theoretical), limited by {}",
                o.resident_blocks,
                o.warps_per_block,
                o.resident_warps,
                o.max_warps_per_sm,
                format_percent(o.occupancy_pct),
                limiters_text(&o.limiters)
            )),
            Note::info(format!(
                "granted: {} registers/warp ({} per block), {} B shared memory/block (with the reservation) of {} B/SM in force",
                o.registers_per_warp, o.registers_per_block, o.smem_per_block, o.smem_per_sm
            )),
        ];
        let mut advice = Vec::new();
        if let Some(h) = &o.hint {
            advice.push(Note::info(format!("to fit more: {h}")));
        } else if o.resident_warps >= o.max_warps_per_sm {
            advice.push(Note::info("occupancy is at its maximum"));
        }
        let b = &self.best_block_size;
        advice.push(Note::info(format!(
            "block size with the highest occupancy (cudaOccupancyMaxPotentialBlockSize): {} threads, {} blocks/SM, {}{}",
            b.block_size,
            b.resident_blocks,
            format_percent(b.occupancy_pct),
            b.min_grid_size.map(|g| format!(", {g} blocks fill the GPU once")).unwrap_or_default()
        )));
        let mut s = vec![
            data,
            Section::new("occupancy", self.title()).show(Show::Readers).with(summary),
            Section::new("headroom", "").with(headroom(o)),
            Section::new("advice", "").show(Show::Readers).with(advice),
        ];
        for sw in &self.sweeps {
            s.push(
                Section::new(format!("sweep-{}", axis_key(sw.axis)), format!("Occupancy against {}", sw.axis.label()))
                    .show(Show::Readers)
                    .with(ChartRef {
                        kind: ChartKind::Occupancy(sw.axis),
                        hint: "The launch's own value is marked.".into(),
                    })
                    .with(sweep_ranges(sw)),
            );
        }
        s.push(
            Section::new("origin", "")
                .show(Show::Readers)
                .with(vec![Note::info(format!("origin: theoretical, {}", self.source))]),
        );
        s
    }

    fn chart_svg(&self, chart: ChartKind, _opts: &ChartOptions) -> Option<String> {
        let ChartKind::Occupancy(axis) = chart else { return None };
        self.sweeps.iter().find(|s| s.axis == axis).map(|s| sweep_svg(s, self.gpu.as_deref()))
    }
}
