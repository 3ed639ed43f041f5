//! CSV: one row per ceiling or per kernel, base SI units in the column
//! names (`flops_per_s`, `bytes`, `seconds`), empty cells for unknowns, so
//! spreadsheets and scripts read it without parsing units.

use roofline_core::machine::{FlopKind, MemLevel};
use roofline_core::schema::{AnalysisDocument, MachineDocument};

use crate::{ExportError, Exporter};

pub struct CsvExporter;

fn opt(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite()).map(|x| x.to_string()).unwrap_or_default()
}

impl Exporter for CsvExporter {
    fn machine(&self, doc: &MachineDocument) -> Result<String, ExportError> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record([
            "machine",
            "ceiling",
            "type",
            "kind_or_level",
            "value",
            "unit",
            "origin",
            "confirmed",
            "secondary",
            "spread_median",
            "spread_min",
            "spread_max",
            "spread_samples",
            "sm_clock_mhz",
            "mem_clock_mhz",
            "source",
        ])?;
        let m = &doc.machine;
        for c in &m.ceilings {
            w.write_record([
                m.name.clone(),
                c.name.clone(),
                c.resource.family().into(),
                c.resource.key().into(),
                c.rate.to_string(),
                c.unit().symbol().into(),
                c.provenance.origin.label().into(),
                c.provenance.confirmed.to_string(),
                c.secondary.to_string(),
                opt(c.spread.map(|s| s.median)),
                opt(c.spread.map(|s| s.min)),
                opt(c.spread.map(|s| s.max)),
                c.spread.map(|s| s.samples.to_string()).unwrap_or_default(),
                opt(c.clock.sm_mhz),
                opt(c.clock.mem_mhz),
                c.provenance.source.clone(),
            ])?;
        }
        finish(w)
    }

    fn analysis(&self, doc: &AnalysisDocument) -> Result<String, ExportError> {
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header: Vec<String> = ["id", "name", "display_name", "launches", "origin", "seconds", "time_share"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        header.extend(FlopKind::ALL.iter().map(|k| format!("flops_{}", k.key())));
        for l in MemLevel::ALL {
            header.push(format!("bytes_{}", l.key()));
            header.push(format!("intensity_{}_flop_per_byte", l.key()));
            header.push(format!("achieved_{}_bytes_per_s", l.key()));
        }
        header.extend(
            [
                "compute_roof_flops_per_s",
                "attainable_flops_per_s",
                "achieved_flops_per_s",
                "pct_of_roof",
                "bound",
                "limiter",
                "position",
                "next_move",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        w.write_record(&header)?;
        for a in &doc.kernels {
            let k = &a.kernel;
            let mut row = vec![
                k.id.clone(),
                k.name.clone(),
                k.display_name.clone(),
                k.launches.to_string(),
                k.origin.label().into(),
                opt(k.duration_s),
                opt(a.time_share),
            ];
            row.extend(FlopKind::ALL.iter().map(|kind| opt(k.flops.get(kind).copied())));
            for l in MemLevel::ALL {
                let p = a.level(l);
                row.push(opt(p.map(|p| p.bytes)));
                row.push(opt(p.and_then(|p| p.intensity)));
                row.push(opt(p.and_then(|p| p.achieved_bytes_per_s)));
            }
            row.push(opt(a.compute_roof_flops_per_s));
            row.push(opt(a.attainable_flops_per_s));
            row.push(opt(a.achieved_flops_per_s));
            row.push(opt(a.pct_of_roof));
            row.push(a.bound.map(|b| b.label().to_string()).unwrap_or_default());
            row.push(match a.limiter {
                Some(roofline_core::Limiter::Bandwidth(l)) => l.key().to_string(),
                Some(roofline_core::Limiter::Compute) => "compute".into(),
                None => String::new(),
            });
            row.push(a.diagnosis.as_ref().map(|d| d.position.label().to_string()).unwrap_or_default());
            row.push(a.diagnosis.as_ref().map(|d| d.next_move_text()).unwrap_or_default());
            w.write_record(&row)?;
        }
        finish(w)
    }
}

fn finish(w: csv::Writer<Vec<u8>>) -> Result<String, ExportError> {
    let bytes = w.into_inner().map_err(|e| ExportError::Csv(e.into_error().into()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
