//! The results of `roofline bench`: one measured rate per benchmark with its
//! spread, runs, clock and launch, the benchmarks that failed, and the
//! intensity sweeps with the ridge they measured.
//!
//! The GPU crate records the runs as `roofline_documents::BenchRecords`;
//! [`BenchResults::of`] reads them from a machine document into the rows the
//! views show (typed units, no strings to compare), and the machine the
//! runs measured comes with them in a [`BenchDocument`].

use roofline_documents::{BenchRecords, BenchResult, MachineDocument};
use roofline_model::Spread;
use roofline_model::Unit;
use roofline_model::{ClockBasis, FlopKind, Machine, MemLevel, Origin};
use serde::{Serialize, Serializer};

use super::machine::ridge_section;
use super::machine::roof_sections;
use crate::view::{Cell, Column, Describe, Fact, Quantity, Section, Show, Table, Value};

/// What `roofline bench` measured, as the views show it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BenchResults {
    /// One row per benchmark that ran.
    pub results: Vec<BenchRow>,
    /// Benchmarks that could not run or failed their check: id and why.
    pub failures: Vec<(String, String)>,
    /// FMA loops at increasing intensity, one per precision.
    pub sweeps: Vec<IntensitySweep>,
}

/// One benchmark's result.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchRow {
    /// "dram.copy", "fp32.fma", "tensor.bf16".
    pub id: String,
    /// The rate of the best run, measured, with its spread and clock.
    pub rate: Value,
    /// The median rate of every run, in order, in the rate's unit.
    pub run_medians: Vec<f64>,
    /// The launch shape, or how it was measured ("cuBLASLt, algorithm 3").
    pub launch: String,
}

/// An FMA loop run at increasing intensity.
#[derive(Debug, Clone, PartialEq)]
pub struct IntensitySweep {
    /// The precision of the FMAs.
    pub kind: FlopKind,
    /// One point per loop count.
    pub points: Vec<SweepStep>,
    /// Where the measured curve turns, if it did.
    pub ridge: Option<MeasuredRidge>,
}

/// One point of an intensity sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepStep {
    /// FMA iterations per element.
    pub iters: u32,
    /// FLOP per DRAM byte.
    pub intensity: f64,
    /// The rate reached, with its spread.
    pub rate: Spread,
    /// DRAM bytes per second at that rate.
    pub bytes_per_s: f64,
}

/// Where a measured curve turns from bandwidth-bound to compute-bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeasuredRidge {
    /// The best bytes/s of the sweep (its memory-bound points).
    pub bandwidth: f64,
    /// The best rate of the sweep (its compute-bound points).
    pub peak: f64,
    /// peak / bandwidth, FLOP/byte.
    pub intensity: f64,
    /// The lowest intensity measured that reaches 90% of the peak.
    pub knee: Option<f64>,
}

impl BenchResults {
    /// What the views show of the raw runs a machine document carries in
    /// `measurements` (written by `bench` and the tour): each part read on its
    /// own, so a document from an older version shows what it has.
    pub fn of(doc: &MachineDocument) -> BenchResults {
        let BenchRecords { results, failures, sweeps } = BenchRecords::of(doc);
        BenchResults {
            results: results.iter().map(bench_row).collect(),
            failures: failures.into_iter().map(|f| (f.id, f.error)).collect(),
            sweeps: sweeps
                .into_iter()
                .map(|sw| IntensitySweep {
                    kind: sw.kind,
                    points: sw
                        .points
                        .into_iter()
                        .map(|p| SweepStep {
                            iters: p.iters,
                            intensity: p.intensity,
                            rate: p.flops_per_s,
                            bytes_per_s: p.bytes_per_s,
                        })
                        .collect(),
                    ridge: sw.ridge.map(|r| MeasuredRidge {
                        bandwidth: r.bandwidth,
                        peak: r.peak,
                        intensity: r.intensity,
                        knee: r.knee,
                    }),
                })
                .collect(),
        }
    }
}

/// One benchmark's record as a measured value: its unit from what it
/// measures (B/s for a memory level, the FLOP kind's rate otherwise), its
/// spread, and the clock NVML saw.
fn bench_row(r: &BenchResult) -> BenchRow {
    let unit = r.unit;
    let clock = r.clock.as_ref().map(|c| ClockBasis {
        sm_mhz: Some(c.sm_mhz_median),
        mem_mhz: Some(c.mem_mhz_median),
        basis: format!("median of {} NVML samples, SM {:.0}-{:.0} MHz", c.samples, c.sm_mhz_min, c.sm_mhz_max),
    });
    BenchRow {
        id: r.id.clone(),
        rate: Value::new(r.rate.median, Quantity::Si(unit)).origin(Origin::Measured).spread(Some(r.rate)).clock(clock),
        run_medians: r.run_medians.clone(),
        launch: if r.launch.grid > 0 { r.launch.describe() } else { r.method.clone() },
    }
}

/// A measured machine and the runs behind it. JSON is the machine document
/// (which carries the raw runs in `measurements`).
#[derive(Debug, Clone, Copy)]
pub struct BenchDocument<'a> {
    /// The machine the runs measured.
    pub machine: &'a MachineDocument,
    /// The runs, as shown.
    pub results: &'a BenchResults,
}

impl Serialize for BenchDocument<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.machine.serialize(s)
    }
}

impl Describe for BenchDocument<'_> {
    fn title(&self) -> String {
        format!("Measured roofs of {}", self.machine.machine.name)
    }

    fn sections(&self) -> Vec<Section> {
        let mut s = roof_sections(&self.machine.machine, "machine", Show::Everywhere);
        s.push(ridge_section(&self.machine.machine, &[]));
        s.extend(self.results.sections(&self.machine.machine));
        s
    }
}

impl BenchResults {
    /// The table of benchmarks and one section per sweep.
    fn sections(&self, machine: &Machine) -> Vec<Section> {
        let mut t = Table::new(
            "bench",
            vec![
                Column::text("benchmark", "benchmark"),
                Column::with_provenance("rate", "median", None),
                Column::mixed("runs", "runs (medians)").show(Show::Wide),
                Column::text("launch", "launch / method"),
            ],
        );
        for r in &self.results {
            let runs = r.run_medians.iter().map(|v| (String::new(), Value::new(*v, r.rate.unit))).collect();
            t.push(vec![Cell::text(&r.id), r.rate.clone().cell(), Cell::Values(runs), Cell::text(&r.launch)]);
        }
        for (id, error) in &self.failures {
            t.push(vec![Cell::text(id), Cell::text("FAILED"), Cell::Empty, Cell::text(error)]).tone =
                Some(crate::view::Tone::Poor);
        }
        let mut out = vec![Section::new("bench", "benchmarks").with(t)];
        for sw in &self.sweeps {
            let unit = Quantity::Si(sw.kind.rate_unit());
            let mut t = Table::new(
                format!("sweep_{}", sw.kind.key()),
                vec![
                    Column::value("iters", "FMA per element", Quantity::Count),
                    Column::value("intensity", "intensity", Quantity::Si(Unit::FlopPerByte)),
                    Column::with_provenance("rate", "rate", Some(unit)),
                    Column::value("bandwidth", "DRAM bandwidth", Quantity::Si(Unit::BytePerSecond)),
                ],
            );
            for p in &sw.points {
                let rate = Value::new(p.rate.median, unit).origin(Origin::Measured).spread(Some(p.rate));
                t.push(vec![
                    Cell::value(Some(f64::from(p.iters)), Quantity::Count),
                    Cell::value(Some(p.intensity), Quantity::Si(Unit::FlopPerByte)),
                    rate.cell(),
                    Cell::value(Some(p.bytes_per_s), Quantity::Si(Unit::BytePerSecond)),
                ]);
            }
            out.push(
                Section::new(format!("sweep-{}", sw.kind.key()), format!("intensity sweep {}", sw.kind.label()))
                    .with(t),
            );
        }
        let facts = ridge_facts(self, machine);
        if !facts.is_empty() {
            out.push(Section::new("measured-ridge", "").with(facts));
        }
        out
    }
}

/// Where each sweep's measured curve turns, and the ridge of the measured
/// roofs against DRAM (with the theoretical one beside it).
pub(crate) fn ridge_facts(results: &BenchResults, m: &Machine) -> Vec<Fact> {
    let mut facts = Vec::new();
    let flop_b = |v: f64| Value::new(v, Quantity::Si(Unit::FlopPerByte));
    for sw in &results.sweeps {
        let Some(r) = sw.ridge else { continue };
        let mut values = vec![
            (String::new(), flop_b(r.intensity).origin(Origin::Measured)),
            ("plateau".to_string(), Value::new(r.peak, Quantity::Si(sw.kind.rate_unit()))),
            ("bandwidth at low intensity".to_string(), Value::new(r.bandwidth, Quantity::Si(Unit::BytePerSecond))),
        ];
        if let Some(k) = r.knee {
            values.push(("90% of the plateau from".to_string(), flop_b(k)));
        }
        facts.push(Fact::new(
            &format!("measured_ridge_{}", sw.kind.key()),
            format!("measured ridge, {} (FMA sweep, {} intensities)", sw.kind.label(), sw.points.len()),
            Cell::Values(values),
        ));
    }
    let theoretical = |resource| {
        m.ceilings.iter().find(|x| x.resource == resource && !x.secondary && x.provenance.origin == Origin::Theoretical)
    };
    for kind in [FlopKind::Fp32, FlopKind::Fp64] {
        if let (Some(c), Some(b)) = (m.compute_roof(kind), m.bandwidth_roof(MemLevel::Dram)) {
            let mut values = vec![(String::new(), flop_b(c.rate / b.rate))];
            if let (Some(tc), Some(tb)) = (
                theoretical(roofline_model::Resource::Compute(kind)),
                theoretical(roofline_model::Resource::Memory(MemLevel::Dram)),
            ) {
                values.push(("theoretical".to_string(), flop_b(tc.rate / tb.rate)));
            }
            facts.push(Fact::new(
                &format!("roof_ridge_{}", kind.key()),
                format!("ridge of the {} roofs, {} / DRAM", c.provenance.origin.label(), kind.label()),
                Cell::Values(values),
            ));
        }
    }
    facts
}
