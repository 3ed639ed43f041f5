//! Turns benchmark records into measured ceilings next to the theoretical
//! ones: per memory level and precision the best benchmark becomes the
//! primary measured roof, the others secondary roofs drawn beneath it.

use roofline_core::machine::{Ceiling, ClockBasis, Machine, MemLevel, Origin, Provenance, Resource, StreamPattern};
use roofline_core::units::{format_si, Unit};

use super::suite::{BenchResult, Sweep, What};

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

/// Rejects a result faster than the hardware can go: above the theoretical
/// roof of its level or kind (scaled to `max_sm_mhz` for compute roofs
/// quoted at a lower clock) by more than 5%. Such a figure means the kernel
/// did less work than counted (loads hoisted out of a loop, say).
pub fn plausible(r: &BenchResult, theoretical: &Machine, max_sm_mhz: Option<f64>) -> Result<(), String> {
    let (bound, what) = if let Some(level) = r.what.level() {
        // L2 has no theoretical roof; it cannot outrun the SMs' L1/shared.
        let roof = if level == MemLevel::L2 { MemLevel::L1 } else { level };
        match theoretical.bandwidth().find(|b| b.resource == Resource::Memory(roof) && !b.secondary) {
            Some(b) => (b.rate, format!("the theoretical {} bandwidth", roof.label())),
            None => return Ok(()),
        }
    } else if let Some(kind) = r.what.kind() {
        match theoretical.compute().find(|c| c.resource == Resource::Compute(kind) && !c.secondary) {
            Some(c) => {
                let scale = match (max_sm_mhz, c.clock.sm_mhz) {
                    (Some(max), Some(at)) if at > 0.0 && max > at => max / at,
                    _ => 1.0,
                };
                (c.rate * scale, format!("the theoretical {} peak", kind.label()))
            }
            None => return Ok(()),
        }
    } else {
        return Ok(());
    };
    if r.rate.median > 1.05 * bound {
        let unit = if r.unit == "B/s" { Unit::BytePerSecond } else { Unit::FlopPerSecond };
        return Err(format!(
            "{} is {} but {what} is {}: the kernel must have done less work than counted, so the figure is rejected",
            r.id,
            format_si(r.rate.median, unit),
            format_si(bound, unit)
        ));
    }
    Ok(())
}

/// Adds measured ceilings from `results` to `theoretical` (kept as is), and
/// notes on clocks and the sweep's ridge points.
pub fn measured_machine(theoretical: &Machine, results: &[BenchResult], sweeps: &[Sweep]) -> Machine {
    let mut m = theoretical.clone();
    let mut levels: Vec<_> = results.iter().filter_map(|r| r.what.level()).collect();
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
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::suite::{Launch, SweepPoint};
    use roofline_core::machine::FlopKind;
    use roofline_core::stats::Spread;

    fn res(id: &str, what: What, rate: f64) -> BenchResult {
        BenchResult {
            id: id.into(),
            label: id.into(),
            what,
            unit: "B/s".into(),
            rate: Spread::from_samples(&[rate * 0.99, rate, rate * 1.01]).unwrap(),
            run_medians: vec![rate],
            seconds: Spread::from_samples(&[1e-3]).unwrap(),
            work_per_launch: 1.0,
            launch: Launch { grid: 1, block: 1, width: None, shared_bytes: None, unroll: None },
            size: "s".into(),
            clock: None,
            method: "m".into(),
            verified: "v".into(),
            search: vec![],
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
        assert!(e.contains("less work than counted"), "{e}");
        assert!(plausible(&res("l1.shared", What::SharedRead, 32e12), &m, None).is_ok());
        assert!(plausible(&res("fp32.fma", What::Fma(FlopKind::Fp32), 65.9e12), &theo, None).is_ok());
        assert!(plausible(&res("l2.read", What::L2Read, 1e15), &theo, None).is_ok(), "no L1 roof to compare with");
        assert!(plausible(&res("l2.read", What::L2Read, 114e12), &m, None).is_err(), "L2 above the L1 roof");
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
