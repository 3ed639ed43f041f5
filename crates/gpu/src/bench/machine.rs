//! Turns benchmark records into measured ceilings next to the theoretical
//! ones: per memory level and precision the best benchmark becomes the
//! primary measured roof, the others secondary roofs drawn beneath it.

use roofline_hw::InstOp;
use roofline_model::Link;
use roofline_model::Spread;
use roofline_model::{format_si, Unit};
use roofline_model::{
    Ceiling, ClockBasis, FlopKind, Machine, MemLevel, Origin, Pipe, Provenance, Resource, StreamPattern,
};

use super::suite::{AtomicSpace, BenchResult, Curve, Sweep, What};

/// A figure more than this factor above its theoretical roof is rejected.
pub const PLAUSIBLE_MARGIN: f64 = 1.05;

fn clock_of(r: &BenchResult) -> ClockBasis {
    match &r.clock {
        Some(c) => ClockBasis {
            sm_mhz: Some(c.sm_mhz_median),
            mem_mhz: Some(c.mem_mhz_median),
            basis: format!("median of {} NVML samples during the best run", c.samples),
        },
        None => ClockBasis { sm_mhz: None, mem_mhz: None, basis: "clock unknown (NVML not available)".into() },
    }
}

fn provenance(r: &BenchResult) -> Provenance {
    Provenance::new(Origin::Measured, format!("benchmark {}: {}, {}, {}", r.id, r.label, r.size, r.method))
}

/// The theoretical ceiling a result is judged against, and what to call it.
fn bound_of<'a>(r: &BenchResult, theoretical: &'a Machine) -> Option<(&'a Ceiling, String)> {
    if let What::Link(lb) = r.what {
        let link = lb.link()?;
        let bound = match link {
            Link::Collective { .. } => link,
            _ => link.wire()?,
        };
        let c = theoretical.links().find(|c| c.resource == Resource::Link(bound) && !c.secondary)?;
        return Some((c, format!("the theoretical bound of {} ({})", bound.path(), c.clock.basis)));
    }
    if let Some(level) = r.what.level() {
        // L2 has no theoretical roof; it cannot outrun the SMs' L1/shared.
        let roof = if level == MemLevel::L2 { MemLevel::L1 } else { level };
        let c = theoretical.bandwidth().find(|b| b.resource == Resource::Memory(roof) && !b.secondary)?;
        return Some((c, format!("the theoretical {} bandwidth", roof.label())));
    }
    if let Some(kind) = r.what.kind() {
        let c = theoretical.compute().find(|c| c.resource == Resource::Compute(kind) && !c.secondary)?;
        return Some((c, format!("the theoretical {} peak", kind.label())));
    }
    let op = r.what.inst_op()?;
    let c = theoretical
        .instruction()
        .find(|c| c.resource == Resource::Instruction(op.pipe()) && c.name == op.mnemonic())?;
    Some((c, format!("the theoretical {} rate", op.mnemonic())))
}

/// Judges a figure against the theoretical roof of its level, kind or
/// instruction (scaled to `max_sm_mhz` for roofs quoted at a lower clock).
/// More than [`PLAUSIBLE_MARGIN`] above a confirmed roof is an error: the
/// kernel must have done less work than counted (loads hoisted out of a
/// loop, say). Above an unconfirmed roof it is a warning, since the table
/// row may be the one that is wrong.
pub fn plausible(r: &BenchResult, theoretical: &Machine, max_sm_mhz: Option<f64>) -> Result<Option<String>, String> {
    let Some((c, what)) = bound_of(r, theoretical) else {
        return Ok(matches!(r.what, What::Link(_)).then(|| {
            format!(
                "{}: no theoretical link bound to check {} against (NVML could not say what the link is)",
                r.id,
                format_si(r.rate.median, r.unit)
            )
        }));
    };
    let scale = match (r.what.level(), max_sm_mhz, c.clock.sm_mhz) {
        (None, Some(max), Some(at)) if at > 0.0 && max > at => max / at,
        _ => 1.0,
    };
    let bound = c.rate * scale;
    if r.rate.median <= PLAUSIBLE_MARGIN * bound {
        return Ok(None);
    }
    let text = format!("{} is {} but {what} is {}", r.id, format_si(r.rate.median, r.unit), format_si(bound, r.unit));
    if c.provenance.confirmed {
        Err(text)
    } else {
        Ok(Some(format!("{text}, an unconfirmed figure: the table row may be wrong")))
    }
}

/// Adds measured ceilings from `results` to `theoretical` (kept as is), and
/// notes on clocks and the sweep's ridge points.
pub fn measured_machine(theoretical: &Machine, results: &[BenchResult], sweeps: &[Sweep]) -> Machine {
    let mut m = theoretical.clone();
    let mut levels: Vec<_> = results.iter().filter_map(|r| r.what.level()).collect();
    levels.sort();
    levels.dedup();
    for level in levels {
        let mut rs: Vec<&BenchResult> = results.iter().filter(|r| r.what.level() == Some(level)).collect();
        rs.sort_by(|a, b| b.rate.median.total_cmp(&a.rate.median));
        for (i, r) in rs.iter().enumerate() {
            let kernel = r.id.split('.').nth(1).unwrap_or(&r.id);
            let name = if i == 0 {
                format!("{} (measured)", level.label())
            } else {
                format!("{} {kernel} (measured)", level.label())
            };
            let mut c = Ceiling::new(Resource::Memory(level), name, r.rate.median, provenance(r))
                .with_clock(clock_of(r))
                .with_spread(Some(r.rate));
            c.secondary = i > 0;
            c.pattern = StreamPattern::of_benchmark(&r.id);
            m.ceilings.push(c);
        }
    }
    let mut kinds: Vec<_> =
        results.iter().filter(|r| !matches!(r.what, What::Sweep(_))).filter_map(|r| r.what.kind()).collect();
    kinds.sort();
    kinds.dedup();
    for kind in kinds {
        let mut rs: Vec<&BenchResult> =
            results.iter().filter(|r| r.what.kind() == Some(kind) && !matches!(r.what, What::Sweep(_))).collect();
        rs.sort_by(|a, b| b.rate.median.total_cmp(&a.rate.median));
        for (i, r) in rs.iter().enumerate() {
            let name = format!("{} (measured)", kind.label());
            let mut c = Ceiling::new(Resource::Compute(kind), name, r.rate.median, provenance(r))
                .with_clock(clock_of(r))
                .with_spread(Some(r.rate));
            c.secondary = i > 0;
            m.ceilings.push(c);
        }
    }
    let l1 = theoretical.bandwidth_roof(MemLevel::L1).filter(|c| c.provenance.confirmed).map(|c| c.rate);
    let (ceilings, rejected) = instruction_ceilings(results, l1);
    m.ceilings.extend(ceilings);
    m.notes.extend(rejected);
    m.ceilings.extend(link_ceilings(results));
    for s in sweeps {
        if let Some(r) = &s.ridge {
            m.notes.push(format!(
                "measured {} roofline (intensity sweep, {} points): {} at low intensity, {} plateau, ridge at {:.1} FLOP/byte{}",
                s.kind.label(),
                s.points.len(),
                format_si(r.bandwidth, Unit::BytePerSecond),
                format_si(r.peak, Unit::FlopPerSecond),
                r.intensity,
                r.knee.map(|k| format!(" (90% of the plateau first reached at {k:.1} FLOP/byte)")).unwrap_or_default()
            ));
        }
    }
    for r in results {
        if let Some(c) = &r.curve {
            if let (Some(knee), true) = (c.knee, r.what.unit() == Unit::InstPerSecond) {
                m.notes.push(format!(
                    "{}: 90% of its best rate first reached at {knee} {} ({} points measured)",
                    r.id,
                    c.axis,
                    c.points.len()
                ));
            }
        }
    }
    m
}

/// The measured link roofs: per link (path, engine, one or both ways) the
/// faster of its issuers (write, read) is the primary roof and the other a
/// secondary one; a collective's roof is its best bus bandwidth.
fn link_ceilings(results: &[BenchResult]) -> Vec<Ceiling> {
    let mut out: Vec<Ceiling> = Vec::new();
    let mut links: Vec<Link> = results
        .iter()
        .filter_map(|r| match r.what {
            What::Link(lb) => lb.link(),
            _ => None,
        })
        .collect();
    links.sort();
    links.dedup();
    for link in links {
        let mut rs: Vec<&BenchResult> =
            results.iter().filter(|r| matches!(r.what, What::Link(lb) if lb.link() == Some(link))).collect();
        rs.sort_by(|a, b| b.rate.median.total_cmp(&a.rate.median));
        for (i, r) in rs.iter().enumerate() {
            let What::Link(lb) = r.what else { continue };
            let name = match (link, lb.issuer()) {
                (Link::Collective { op, gpus }, _) => format!("{} over {gpus} GPUs (measured)", op.bus_label()),
                (_, Some(how)) => {
                    format!("{} {}, {how} (measured)", link.path(), link.label().trim_start_matches("peer "))
                }
                _ => format!("{} (measured)", link.path()),
            };
            let mut c = Ceiling::new(Resource::Link(link), name, r.rate.median, provenance(r))
                .with_clock(clock_of(r))
                .with_spread(Some(r.rate));
            c.secondary = i > 0;
            out.push(c);
        }
    }
    out
}

/// FLOPs per warp instruction of a CUDA-core FMA benchmark.
fn flops_per_inst(kind: FlopKind) -> f64 {
    match kind {
        FlopKind::Fp16 => 128.0, // HFMA2: 32 threads x 2 lanes x 2 FLOPs
        _ => 64.0,               // FFMA, DFMA: 32 threads x 2 FLOPs
    }
}

fn scaled(s: Spread, by: f64) -> Spread {
    Spread { median: s.median * by, min: s.min * by, max: s.max * by, mean: s.mean * by, stddev: s.stddev * by, ..s }
}

/// A variant measured as a point of a curve, as a secondary roof.
fn point_ceiling(r: &BenchResult, pipe: Pipe, name: String, c: &Curve, x: f64) -> Option<Ceiling> {
    let p = c.at(x)?;
    let mut clock = clock_of(r);
    clock.sm_mhz = p.sm_mhz.or(clock.sm_mhz);
    let prov = Provenance::new(
        Origin::Measured,
        format!("benchmark {}: {} at {x} {}, {}, {}", r.id, r.label, c.axis, r.size, r.method),
    );
    Some(
        Ceiling::new(Resource::Instruction(pipe), name, p.rate.median, prov)
            .with_clock(clock)
            .with_spread(Some(p.rate))
            .secondary(),
    )
}

/// The measured instruction roofs: per pipe the best benchmark is the
/// primary roof and the other instructions of the pipe are secondary,
/// with the conflicted and contended variants of the sweeps beside them;
/// the issue roof is the highest warp-instruction rate any benchmark reached.
///
/// A load-issue point whose bytes (rate x bytes per warp instruction) would
/// pass through L1 faster than the confirmed L1 roof `l1` allows did less
/// work than counted: it is left out, with a note saying so (the second
/// value returned).
fn instruction_ceilings(results: &[BenchResult], l1: Option<f64>) -> (Vec<Ceiling>, Vec<String>) {
    let mut out: Vec<Ceiling> = Vec::new();
    let mut rejected = Vec::new();
    for r in results {
        let (Some(pipe), Some(mn)) = (r.what.pipe(), r.what.mnemonic()) else { continue };
        if let (What::LoadIssue, Some(c)) = (r.what, &r.curve) {
            for p in &c.points {
                let bytes = p.rate.median * p.x;
                match l1 {
                    Some(bw) if bytes > PLAUSIBLE_MARGIN * bw => rejected.push(format!(
                        "{} at {} {}: {} would move {} through L1, above the L1 roof {}: the figure is left out",
                        r.id,
                        p.x,
                        c.axis,
                        format_si(p.rate.median, Unit::InstPerSecond),
                        format_si(bytes, Unit::BytePerSecond),
                        format_si(bw, Unit::BytePerSecond)
                    )),
                    _ => out.extend(point_ceiling(r, pipe, format!("{} (measured)", p.label), c, p.x)),
                }
            }
            continue;
        }
        let spread = match r.what {
            What::Fma(kind) => scaled(r.rate, 1.0 / flops_per_inst(kind)),
            _ if r.unit == Unit::InstPerSecond => r.rate,
            _ => continue,
        };
        let mut prov = provenance(r);
        if let What::Fma(kind) = r.what {
            prov.source.push_str(&format!("; FLOP/s / {} FLOPs per warp instruction", flops_per_inst(kind)));
        }
        out.push(
            Ceiling::new(Resource::Instruction(pipe), format!("{mn} (measured)"), spread.median, prov)
                .with_clock(clock_of(r))
                .with_spread(Some(spread)),
        );
        let Some(c) = &r.curve else { continue };
        let best_x = c.points.iter().max_by(|a, b| a.rate.median.total_cmp(&b.rate.median)).map(|p| p.x);
        for p in &c.points {
            if Some(p.x) == best_x {
                continue;
            }
            let name = match r.what {
                What::SharedInst(_) if Some(p.x) == c.points.last().map(|l| l.x) => {
                    format!("{mn}, {}-way bank conflicts (measured)", p.x)
                }
                What::Atomic(space) => {
                    let all = if space == AtomicSpace::Global { "the whole grid" } else { "the whole block" };
                    if Some(p.x) == c.points.last().map(|l| l.x) && c.points.len() > 2 {
                        format!("{mn}, {all} on one address (measured)")
                    } else {
                        format!("{mn}, {} threads per address (measured)", p.x)
                    }
                }
                _ => continue,
            };
            out.extend(point_ceiling(r, pipe, name, c, p.x));
        }
    }
    // Per pipe, the fastest is the primary roof.
    let pipes: Vec<Pipe> =
        Pipe::ALL.into_iter().filter(|p| out.iter().any(|c| c.resource == Resource::Instruction(*p))).collect();
    for p in pipes {
        let best = out
            .iter()
            .enumerate()
            .filter(|(_, c)| c.resource == Resource::Instruction(p))
            .max_by(|a, b| a.1.rate.total_cmp(&b.1.rate))
            .map(|(i, _)| i);
        for (i, c) in out.iter_mut().enumerate() {
            if c.resource == Resource::Instruction(p) {
                c.secondary = Some(i) != best;
            }
        }
    }
    if let Some(top) = out.iter().filter(|c| !c.secondary).max_by(|a, b| a.rate.total_cmp(&b.rate)) {
        let mut issue = top.clone();
        issue.resource = Resource::Instruction(Pipe::Issue);
        issue.name = format!("{} (measured, {})", InstOp::Any.mnemonic(), top.name.trim_end_matches(" (measured)"));
        issue.provenance.source =
            format!("the highest warp-instruction rate of any benchmark: {}", top.provenance.source);
        issue.secondary = false;
        out.push(issue);
    }
    (out, rejected)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::suite::{CurvePoint, LaunchShape, SweepPoint};
    use roofline_model::FlopKind;
    use roofline_model::Spread;

    fn res(id: &str, what: What, rate: f64) -> BenchResult {
        BenchResult {
            id: id.into(),
            label: id.into(),
            what,
            unit: what.unit(),
            rate: Spread::from_samples(&[rate * 0.99, rate, rate * 1.01]).unwrap(),
            run_medians: vec![rate],
            seconds: Spread::from_samples(&[1e-3]).unwrap(),
            work_per_launch: 1.0,
            launch: LaunchShape::new(1, 1),
            size: "s".into(),
            clock: None,
            method: "m".into(),
            verified: "v".into(),
            search: vec![],
            curve: None,
            wall_s: 0.0,
        }
    }

    #[test]
    fn measured_roofs_win_over_theoretical_and_keep_spread() {
        let theo = Machine::simple("t", FlopKind::Fp32, 66.9e12, 4.8e12);
        let rs = vec![
            res("dram.copy", What::DramCopy, 4.2e12),
            res("dram.read", What::DramRead, 4.6e12),
            res("fp32.fma", What::Fma(FlopKind::Fp32), 64e12),
        ];
        let m = measured_machine(&theo, &rs, &[]);
        let d = m.bandwidth_roof(MemLevel::Dram).unwrap();
        assert_eq!(d.provenance.origin, Origin::Measured);
        assert_eq!(d.rate, 4.6e12);
        assert_eq!(d.pattern.as_ref().map(|p| (p.reads, p.writes)), Some((1, 0)));
        let copy = m.bandwidth().find(|b| b.secondary && b.resource == Resource::Memory(MemLevel::Dram)).unwrap();
        assert_eq!(copy.pattern.as_ref().map(|p| p.read_share()), Some(0.5));
        assert!(d.spread.is_some());
        assert!(d.clock.basis.contains("unknown"));
        assert_eq!(m.bandwidth().filter(|b| b.secondary).count(), 1);
        assert_eq!(m.compute_roof(FlopKind::Fp32).unwrap().rate, 64e12);
        // The theoretical roofs are still there.
        assert!(m.bandwidth().any(|b| b.provenance.origin == Origin::User));
    }

    #[test]
    fn faster_than_the_hardware_is_rejected() {
        let theo = Machine::simple("t", FlopKind::Fp32, 66.9e12, 33.4e12);
        let mut m = theo.clone();
        m.ceilings[1].resource = Resource::Memory(MemLevel::L1);
        let e = plausible(&res("l1.shared", What::SharedRead, 121e12), &m, None).unwrap_err();
        assert!(e.contains("121 TB/s") && e.contains("theoretical L1/shared bandwidth"), "{e}");
        assert_eq!(plausible(&res("l1.shared", What::SharedRead, 32e12), &m, None), Ok(None));
        assert!(plausible(&res("fp32.fma", What::Fma(FlopKind::Fp32), 65.9e12), &theo, None).is_ok());
        assert!(plausible(&res("l2.read", What::L2Read, 1e15), &theo, None).is_ok(), "no L1 roof to compare with");
        assert!(plausible(&res("l2.read", What::L2Read, 114e12), &m, None).is_err(), "L2 above the L1 roof");
    }

    #[test]
    fn instruction_figures_are_judged_against_their_own_instruction() {
        use crate::bench::suite::IntOp;
        let attrs = roofline_hw::find("h200").unwrap().attributes();
        let theo = roofline_hw::theoretical_machine(&attrs).unwrap();
        let g = 132.0 * 1980e6;
        // IMAD's roof is 2 per clock and SM, not FFMA's 4.
        let e = plausible(&res("int.imad", What::Int(IntOp::Imad), 2.2 * g), &theo, Some(1980.0)).unwrap_err();
        assert!(e.contains("theoretical IMAD rate"), "{e}");
        assert_eq!(plausible(&res("int.imad", What::Int(IntOp::Imad), 2.0 * g), &theo, Some(1980.0)), Ok(None));
        // Above an unconfirmed row: a warning, not a rejection.
        let w = plausible(&res("lsu.ldg", What::LoadIssue, 1.5 * g), &theo, None).unwrap().unwrap();
        assert!(w.contains("unconfirmed"), "{w}");
    }

    #[test]
    fn load_points_faster_than_l1_are_left_out_with_a_note() {
        // The H200 run of 2026-11-30 measured coalesced LDG.32 at 745
        // Ginst/s: 95 TB/s through an L1 whose roof is 33.4 TB/s.
        let attrs = roofline_hw::find("h200").unwrap().attributes();
        let theo = roofline_hw::theoretical_machine(&attrs).unwrap();
        let l1 = theo.bandwidth_roof(MemLevel::L1).unwrap().rate;
        let point = |x: f64, label: &str, rate: f64| CurvePoint {
            x,
            label: label.into(),
            rate: Spread::from_samples(&[rate]).unwrap(),
            sm_mhz: None,
        };
        let mut r = res("lsu.ldg", What::LoadIssue, 745e9);
        r.curve = Some(Curve::new(
            "bytes per warp instruction",
            vec![
                point(4.0, "LDG.32, one address per warp, 4 bytes per instruction", 743e9),
                point(128.0, "LDG.32, 128 bytes per instruction", 745e9),
                // Just under the L1 roof: kept.
                point(512.0, "LDG.128, 512 bytes per instruction", l1 / 512.0),
            ],
        ));
        let m = measured_machine(&theo, &[r], &[]);
        let lsu: Vec<&Ceiling> = m
            .instruction()
            .filter(|c| c.resource == Resource::Instruction(Pipe::Lsu) && c.provenance.origin == Origin::Measured)
            .collect();
        let names: Vec<&str> = lsu.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "LDG.32, one address per warp, 4 bytes per instruction (measured)",
                "LDG.128, 512 bytes per instruction (measured)"
            ]
        );
        assert_eq!(m.roof(Resource::Instruction(Pipe::Lsu)).unwrap().rate, 743e9);
        let note = m.notes.iter().find(|n| n.contains("lsu.ldg at 128")).expect("a note on the rejected point");
        assert!(note.contains("above the L1 roof") && note.contains("left out"), "{note}");
    }

    #[test]
    fn fma_benchmarks_also_give_instruction_roofs() {
        let theo = Machine::simple("t", FlopKind::Fp32, 66.9e12, 4.8e12);
        let rs =
            vec![res("fp32.fma", What::Fma(FlopKind::Fp32), 64e12), res("fp16.fma", What::Fma(FlopKind::Fp16), 128e12)];
        let m = measured_machine(&theo, &rs, &[]);
        let ffma = m.roof(Resource::Instruction(Pipe::Fma)).unwrap();
        assert_eq!((ffma.name.as_str(), ffma.rate), ("FFMA (measured)", 1e12));
        assert_eq!(m.roof(Resource::Instruction(Pipe::Fp16)).unwrap().rate, 1e12);
        let issue = m.roof(Resource::Instruction(Pipe::Issue)).unwrap();
        assert_eq!(issue.rate, 1e12);
        assert!(issue.name.starts_with("any instruction (measured"), "{}", issue.name);
    }

    #[test]
    fn sweep_ridge_becomes_a_note() {
        let theo = Machine::simple("t", FlopKind::Fp32, 1e13, 1e12);
        let sp = |i: f64, f: f64| SweepPoint {
            iters: 1,
            intensity: i,
            flops_per_s: Spread::from_samples(&[f]).unwrap(),
            bytes_per_s: f / i,
            sm_mhz: None,
        };
        let pts = vec![sp(1.0, 1e12), sp(100.0, 1e13)];
        let ridge = crate::bench::suite::locate_ridge(&[(1.0, 1e12), (100.0, 1e13)]);
        let m = measured_machine(&theo, &[], &[Sweep { kind: FlopKind::Fp32, points: pts, ridge }]);
        assert!(m.notes.iter().any(|n| n.contains("ridge at 10.0 FLOP/byte")), "{:?}", m.notes);
    }
}
