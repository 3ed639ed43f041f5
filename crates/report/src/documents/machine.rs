//! A machine: its roofs with where each number came from, the ridge points,
//! the GPU's facts and notes.

use roofline_documents::MachineDocument;
use roofline_model::Unit;
use roofline_model::{Ceiling, FlopKind, Machine, MemLevel, Origin, Resource};

use crate::view::{Cell, Column, Describe, Fact, Note, Quantity, Section, Show, Table, Value};

impl Describe for MachineDocument {
    fn title(&self) -> String {
        format!("Machine: {}", self.machine.name)
    }

    fn sections(&self) -> Vec<Section> {
        let mut s = roof_sections(&self.machine, "machine", Show::Everywhere);
        s.push(ridge_section(&self.machine, &[]));
        s
    }
}

/// "NVIDIA H200, compute capability 9.0, 132 SMs, SM clock 1980 MHz, ...".
pub(crate) fn heading(m: &Machine) -> String {
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

/// A ceiling's rate as a value with its origin, spread and clock.
pub(crate) fn ceiling_value(c: &Ceiling) -> Value {
    Value::new(c.rate, Quantity::Si(c.unit()))
        .origin(c.provenance.origin)
        .confirmed(c.provenance.confirmed)
        .spread(c.spread)
        .clock(Some(c.clock.clone()))
}

/// The ceiling each FLOP kind is judged against, in table order.
pub(crate) fn primary_compute(m: &Machine) -> Vec<&Ceiling> {
    let mut out: Vec<&Ceiling> = Vec::new();
    for c in m.compute() {
        if let Some(p) = m.roof(c.resource) {
            if !out.iter().any(|x| std::ptr::eq(*x, p)) {
                out.push(p);
            }
        }
    }
    out
}

/// The roofs kernels of `kinds` are judged against, one value each with
/// its origin: "FP32 60.8 TFLOP/s (measured), DRAM 4386 GB/s (measured)";
/// every compute roof when `kinds` is empty.
pub(crate) fn roofs_cell(m: &Machine, kinds: &[FlopKind]) -> Cell {
    let primary = used_compute(m, kinds)
        .into_iter()
        .chain(MemLevel::ALL.iter().filter_map(|&l| m.bandwidth_roof(l)))
        .map(|c| {
            // "FP32 (measured)" is labelled "FP32": the origin follows the value.
            let tag = format!("({})", c.provenance.origin.label());
            let label = c.name.strip_suffix(&tag).map(str::trim_end).unwrap_or(&c.name).to_string();
            (label, Value::new(c.rate, Quantity::Si(c.unit())).origin(c.provenance.origin))
        })
        .collect();
    Cell::Values(primary)
}

/// The primary compute ceilings of `kinds` (all of them when empty).
pub(crate) fn used_compute<'a>(m: &'a Machine, kinds: &[FlopKind]) -> Vec<&'a Ceiling> {
    if kinds.is_empty() {
        return primary_compute(m);
    }
    let mut out: Vec<&Ceiling> = Vec::new();
    for &k in kinds {
        if let Some(c) = m.compute_roof(k) {
            if !out.iter().any(|x| std::ptr::eq(*x, c)) {
                out.push(c);
            }
        }
    }
    out
}

/// The GPU's facts, the table of every ceiling and the machine's notes.
pub(crate) fn roof_sections(m: &Machine, id: &str, show: Show) -> Vec<Section> {
    let g = &m.gpu;
    let mut facts = Vec::new();
    let mut fact = |key: &str, label: &str, cell: Cell| {
        if !cell.is_empty() {
            facts.push(Fact::new(key, label, cell).show(Show::Wide));
        }
    };
    fact("gpu", "GPU", Cell::opt_text(g.name.clone()));
    fact("compute_capability", "compute capability", Cell::opt_text(g.compute_capability.clone()));
    fact("sms", "SMs", Cell::value(g.sms.map(f64::from), Quantity::Count));
    fact("sm_clock", "SM clock", Cell::value(g.sm_clock_mhz, Quantity::Megahertz));
    fact("mem_clock", "memory clock", Cell::value(g.mem_clock_mhz, Quantity::Megahertz));
    fact("bus_width_bits", "memory bus (bits)", Cell::value(g.bus_width_bits.map(f64::from), Quantity::Count));
    fact("l2", "L2", Cell::value(g.l2_bytes.map(|v| v as f64), Quantity::Si(Unit::Byte)));
    fact("memory", "memory", Cell::value(g.memory_bytes.map(|v| v as f64), Quantity::Si(Unit::Byte)));
    fact("driver", "driver", Cell::opt_text(g.driver.clone()));

    let mut roofs = Table::new(
        "roof",
        vec![
            Column::text("ceiling", "ceiling"),
            Column::with_provenance("rate", "value", None),
            Column::text("source", "source"),
            Column::text("type", "type").show(Show::Data),
            Column::text("kind_or_level", "kind or level").show(Show::Data),
            Column::text("secondary", "secondary").show(Show::Data),
        ],
    );
    for c in &m.ceilings {
        roofs.push(vec![
            Cell::text(&c.name),
            ceiling_value(c).cell(),
            Cell::text(&c.provenance.source),
            Cell::text(c.resource.family()),
            Cell::text(c.resource.key()),
            Cell::text(c.secondary.to_string()),
        ]);
    }
    let notes: Vec<Note> = m.notes.iter().map(|n| Note::remark(n.to_string())).collect();
    let mut out = vec![Section::new(id, format!("Roofs of {}", heading(m)))
        .show(show)
        .with(facts)
        .with(roofs)
        .with_some((!notes.is_empty()).then_some(notes))];
    out.extend(link_section(m, show));
    out
}

/// The interconnect roofs, each measured one beside the wire it runs on.
fn link_section(m: &Machine, show: Show) -> Option<Section> {
    let links: Vec<&Ceiling> = m.links().collect();
    if links.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "link",
        vec![
            Column::text("path", "path"),
            Column::text("kind", "kind"),
            Column::with_provenance("rate", "bandwidth", Some(Quantity::Si(Unit::BytePerSecond))),
            Column::value("of_wire", "of the wire", Quantity::Percent)
                .help("the figure over the theoretical rate of the link it runs on"),
            Column::text("ceiling", "ceiling").show(Show::Wide),
            Column::text("secondary", "secondary").show(Show::Data),
        ],
    );
    for c in links {
        let Resource::Link(link) = c.resource else { continue };
        // A copy runs on its wire; a collective's bound is its own theoretical roof.
        let bound = link.wire().unwrap_or(link);
        let wire = m
            .ceilings
            .iter()
            .find(|x| x.resource == Resource::Link(bound) && x.provenance.origin == Origin::Theoretical);
        let of_wire = wire.filter(|w| w.rate > 0.0 && !std::ptr::eq(*w, c)).map(|w| 100.0 * c.rate / w.rate);
        t.push(vec![
            Cell::text(link.path()),
            Cell::text(link.label()),
            ceiling_value(c).cell(),
            Cell::value(of_wire, Quantity::Percent),
            Cell::text(&c.name),
            Cell::text(c.secondary.to_string()),
        ]);
    }
    let note = Note::info(
        "One way: bytes from one end to the other per second; both ways (<->): the two directions together (nvbandwidth's total); collectives: NCCL's bus bandwidth (nccl-tests' busbw), which a ring brings up to one GPU's one-way link bandwidth.",
    );
    Some(Section::new("interconnect", "Interconnect roofs").show(show).with(t).with(vec![note]))
}

/// The compute roofs of `kinds` (every one when empty) against every
/// memory level: where the kernels turn from memory-bound to compute-bound.
pub(crate) fn ridge_section(m: &Machine, kinds: &[FlopKind]) -> Section {
    let facts: Vec<Fact> = used_compute(m, kinds)
        .into_iter()
        .filter_map(|c| {
            let levels: Vec<(String, Value)> = MemLevel::ALL
                .iter()
                .filter_map(|&level| m.bandwidth_roof(level))
                .map(|b| (b.resource.label().to_string(), Value::new(c.rate / b.rate, Quantity::Si(Unit::FlopPerByte))))
                .collect();
            (!levels.is_empty()).then(|| Fact::new(c.resource.key(), &c.name, Cell::Values(levels)))
        })
        .collect();
    Section::new("ridge", "ridge points").with_some((!facts.is_empty()).then_some(facts))
}
