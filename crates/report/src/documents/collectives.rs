//! Collectives in an analysis: a bandwidth view of their own, since the
//! arithmetic-intensity chart has no place for kernels that move bytes
//! between GPUs. One row per NCCL kernel: what it is, its time, the bytes
//! its links carried, its bus bandwidth, the interconnect roof it is judged
//! against and the % of it; above the table, the GPU time by class.

use roofline_analysis::KernelAnalysis;
use roofline_analysis::{time_split, CollectivePlacement, TimeClass, Traffic};
use roofline_model::{format_percent, format_si, Unit};

use crate::chart::model::unique_labels;
use crate::view::{Cell, Column, Fact, Note, Quantity, Section, Show, Table, Tone, Value};

/// At or above this % of its link roof a collective is "at the roof".
pub const AT_LINK_ROOF_PCT: f64 = 75.0;

/// What to try next with a collective, from where it landed.
pub fn next_move(c: &CollectivePlacement) -> String {
    match c.pct_of_roof {
        Some(p) if p >= AT_LINK_ROOF_PCT => {
            "at the link's roof: only fewer bytes help (larger buckets, lower-precision gradients, overlapping it with compute hides it)".into()
        }
        Some(_) => "below the link's roof: small messages are latency-bound (bucket them), and NCCL's LL protocol sends a flag with every 4 bytes; overlap it with compute".into(),
        None if c.achieved_bytes_per_s.is_none() => {
            "no byte count: profile on a machine whose GPUs have NVLinks (ncu's nvltx__bytes), or give the message size".into()
        }
        None => "no interconnect roof to judge it: measure one with `roofline bench --only link` on this machine and pass it with --machine".into(),
    }
}

/// The GPU time of `kernels` by class, as labelled percentages.
pub fn time_by_class<'a>(kernels: impl IntoIterator<Item = &'a KernelAnalysis>) -> Option<Cell> {
    let split = time_split(kernels);
    let total: f64 = split.iter().sum();
    (total > 0.0).then(|| {
        Cell::Values(
            TimeClass::ALL
                .iter()
                .map(|c| (c.label().to_string(), Value::new(100.0 * split[*c as usize] / total, Quantity::Percent)))
                .collect(),
        )
    })
}

fn traffic_text(c: &CollectivePlacement) -> String {
    match c.traffic {
        Some(Traffic::NvlinkCounters { rx, tx }) => {
            let proto = match c.nccl.protocol {
                Some(p) if p.efficiency() < 1.0 => {
                    format!(", x {} for the protocol's flags", p.efficiency())
                }
                _ => String::new(),
            };
            format!(
                "NVLink counters: sent {}, received {}; the larger{proto}",
                format_si(tx, Unit::Byte),
                format_si(rx, Unit::Byte)
            )
        }
        Some(Traffic::MessageSize { message_bytes, ranks }) => format!(
            "message of {} over {ranks} ranks x {:.3} (nccl-tests' bus factor)",
            format_si(message_bytes, Unit::Byte),
            c.nccl.op.map(|o| o.bus_factor(ranks)).unwrap_or(0.0)
        ),
        None => "unknown".into(),
    }
}

/// The communication section, when any kernel is a collective.
pub fn communication_section(kernels: &[KernelAnalysis]) -> Option<Section> {
    let labels = unique_labels(kernels);
    let colls: Vec<(&KernelAnalysis, &String)> =
        kernels.iter().zip(&labels).filter(|(a, _)| a.collective.is_some()).collect();
    if colls.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "collective",
        vec![
            Column::text("kernel", "kernel").show(Show::Readers),
            Column::text("name", "name").show(Show::Data),
            Column::text("collective", "collective")
                .help("operation, reduction, type, algorithm and protocol, from the name"),
            Column::value("launches", "launches", Quantity::Count).show(Show::Wide),
            Column::value("time", "time", Quantity::Si(Unit::Second)),
            Column::value("time_share", "share", Quantity::Percent).help("share of the GPU time of all kernels here"),
            Column::with_provenance("bus_bytes", "bus bytes", Some(Quantity::Si(Unit::Byte)))
                .show(Show::Wide)
                .help("data bytes one GPU's links carried one way"),
            Column::text("bytes_from", "bytes from").show(Show::Wide),
            Column::with_provenance("achieved", "bus bandwidth", Some(Quantity::Si(Unit::BytePerSecond)))
                .help("bus bytes / time: nccl-tests' busbw"),
            Column::mixed("roof", "link roof")
                .help("the bench's bus bandwidth for this collective, else the best one-way peer copy"),
            Column::value("pct_of_roof", "% of roof", Quantity::Percent),
            Column::text("next_move", "next move").show(Show::Wide),
        ],
    );
    let mut unknown = Vec::new();
    for &(a, label) in &colls {
        let Some(c) = &a.collective else { continue };
        let origin = c.traffic.map(|t| t.origin());
        let tone = c.pct_of_roof.map(|p| if p >= AT_LINK_ROOF_PCT { Tone::Good } else { Tone::Fair });
        if c.traffic.is_none() {
            unknown.push(label.clone());
        }
        t.push(vec![
            Cell::Name { name: label.clone(), id: a.kernel.id.clone(), full: a.kernel.name.clone() },
            Cell::text(&a.kernel.name),
            Cell::text(c.nccl.describe()),
            Cell::value(Some(a.kernel.launches as f64), Quantity::Count),
            match a.kernel.duration_s.filter(|d| d.is_finite()) {
                Some(d) => Value::new(d, Quantity::Si(Unit::Second)).origin(a.kernel.origin).cell(),
                None => Cell::Empty,
            },
            Cell::value(a.time_share.map(|s| 100.0 * s), Quantity::Percent),
            match (c.bus_bytes, origin) {
                (Some(b), Some(o)) => Value::new(b, Quantity::Si(Unit::Byte)).origin(o).cell(),
                _ => Cell::Empty,
            },
            Cell::text(traffic_text(c)),
            match (c.achieved_bytes_per_s, origin) {
                (Some(b), Some(o)) => Value::new(b, Quantity::Si(Unit::BytePerSecond)).origin(o).cell(),
                _ => Cell::Empty,
            },
            match (c.roof_bytes_per_s, &c.roof_name, c.roof_origin) {
                (Some(r), Some(n), Some(o)) => {
                    Value::new(r, Quantity::Si(Unit::BytePerSecond)).origin(o).note(n.clone()).cell()
                }
                _ => Cell::Empty,
            },
            match c.pct_of_roof.filter(|p| p.is_finite()) {
                Some(p) => Value::new(p, Quantity::Percent).tone(tone).cell(),
                None => Cell::Empty,
            },
            Cell::text(next_move(c)),
        ]);
    }
    let mut facts = Vec::new();
    if let Some(cell) = time_by_class(kernels) {
        facts.push(Fact::new("time_by_class", "GPU time", cell));
    }
    let mut notes = vec![Note::info(format!(
        "A collective is judged by bus bandwidth: the data bytes one GPU's links carried one way per second, nccl-tests' busbw (all-reduce: message x 2(n-1)/n; all-gather, reduce-scatter: x (n-1)/n). The roof is `roofline bench`'s bus bandwidth for the same collective, else its best one-way peer copy. From NVLink counters, NCCL's flags are taken off (LL: 4 data bytes in 8; LL128: 120 in 128). At or above {} of the roof it is at the roof.",
        format_percent(AT_LINK_ROOF_PCT)
    ))];
    if !unknown.is_empty() {
        notes.push(Note::warning(format!(
            "no byte count for {}: this GPU has no NVLink counters (or ncu did not collect nvltx__bytes); the time is still counted as communication",
            roofline_model::bounded(&unknown, ", ")
        )));
    }
    Some(
        Section::new("communication", "Communication (NCCL collectives) against the interconnect roofs")
            .with_some((!facts.is_empty()).then_some(facts))
            .with(t)
            .with(notes),
    )
}
