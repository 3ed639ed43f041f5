//! The views of a roofline without counters: `roofline sol` (an
//! operation's speed of light on a machine) and `import --with-counters`
//! (a trace's estimates against a counter capture of the same program).
//!
//! Every FLOP and byte figure here is an estimate from shapes and says so;
//! counted figures say "counter".

use serde::Serialize;

use roofline_model::{FlopKind, Machine, Origin, Unit};
use roofline_shapes::compare::Comparison;
use roofline_shapes::sol::{Bound, Spec};
use roofline_shapes::Estimate;

use crate::view::{Cell, Column, Describe, Fact, Note, Quantity, Section, Show, Table, Value};

/// The JSON schema name of a speed-of-light document.
pub const SOL_SCHEMA: &str = "roofline.sol/v1";

/// The JSON schema name of an estimates-against-counters document.
pub const SHAPES_VS_COUNTERS_SCHEMA: &str = "roofline.shapes_vs_counters/v1";

/// One roof's time for the work.
#[derive(Debug, Clone, Serialize)]
pub struct SolTerm {
    /// "compute" or "memory".
    pub family: &'static str,
    /// "tensor_bf16", "dram".
    pub resource: &'static str,
    /// The roof's name.
    pub roof: String,
    /// The work at that roof, seconds.
    pub time_s: f64,
}

/// What `roofline sol` prints.
#[derive(Debug, Clone, Serialize)]
pub struct SolDocument {
    /// [`SOL_SCHEMA`].
    pub schema: &'static str,
    /// The spec as given.
    pub spec: String,
    /// The aten operator it stands for.
    pub op: String,
    /// Its family.
    pub class: String,
    /// The formula with its numbers.
    pub formula: String,
    /// Always "estimated": FLOPs and bytes from the catalogue's formula.
    pub origin: &'static str,
    /// The FLOP kind.
    pub flop_kind: FlopKind,
    /// Useful FLOPs.
    pub useful_flops: f64,
    /// Issued FLOPs (differ from useful for causal attention).
    pub issued_flops: f64,
    /// Compulsory DRAM bytes.
    pub dram_bytes: f64,
    /// The machine's name.
    pub machine: String,
    /// The least time, seconds.
    pub bound_s: f64,
    /// The roof that sets it.
    pub bound_by: String,
    /// That roof's rate (FLOP/s or B/s).
    pub bound_rate: f64,
    /// That roof's provenance ("theoretical: ...").
    pub bound_provenance: String,
    /// That roof's origin.
    pub bound_origin: Origin,
    /// Each roof's time.
    pub terms: Vec<SolTerm>,
}

impl SolDocument {
    /// The document of one spec's bound on `machine`.
    pub fn new(spec: &str, s: &Spec, e: &Estimate, b: &Bound, machine: &Machine) -> SolDocument {
        SolDocument {
            schema: SOL_SCHEMA,
            spec: spec.into(),
            op: s.op.clone(),
            class: e.class.label().into(),
            formula: e.formula.clone(),
            origin: "estimated",
            flop_kind: e.kind,
            useful_flops: e.useful_flops(),
            issued_flops: e.issued_flops(),
            dram_bytes: e.bytes(),
            machine: machine.name.clone(),
            bound_s: b.time_s,
            bound_by: b.roof.clone(),
            bound_rate: b.rate,
            bound_provenance: b.provenance.describe(),
            bound_origin: b.provenance.origin,
            terms: b
                .terms
                .iter()
                .map(|(r, name, t)| SolTerm { family: r.family(), resource: r.key(), roof: name.clone(), time_s: *t })
                .collect(),
        }
    }
}

fn estimated(v: f64, unit: Unit) -> Cell {
    Value::new(v, Quantity::Si(unit)).origin(Origin::Estimated).cell()
}

impl Describe for SolDocument {
    fn title(&self) -> String {
        format!("roofline sol: {}", self.spec)
    }

    fn sections(&self) -> Vec<Section> {
        let rate_unit = if self.terms.iter().any(|t| t.family == "memory" && t.roof == self.bound_by) {
            Unit::BytePerSecond
        } else {
            self.flop_kind.rate_unit()
        };
        let mut facts = vec![
            Fact::new("op", "operator", Cell::text(format!("{} ({})", self.op, self.class))),
            Fact::new("machine", "machine", Cell::text(&self.machine)),
            Fact::new(
                "bound",
                "speed of light",
                Value::new(self.bound_s, Quantity::Si(Unit::Second))
                    .origin(self.bound_origin)
                    .note(format!("set by {}", self.bound_by))
                    .cell(),
            ),
            Fact::new(
                "roof",
                "roof that sets it",
                Value::new(self.bound_rate, Quantity::Si(rate_unit))
                    .origin(self.bound_origin)
                    .note(self.bound_by.clone())
                    .cell(),
            ),
            Fact::new("flops", "useful FLOPs", estimated(self.useful_flops, Unit::Flop)),
        ];
        if self.issued_flops != self.useful_flops {
            facts.push(Fact::new("issued_flops", "issued FLOPs", estimated(self.issued_flops, Unit::Flop)));
        }
        facts.push(Fact::new("kind", "FLOP kind", Cell::text(self.flop_kind.label())));
        facts.push(Fact::new("bytes", "DRAM bytes (compulsory)", estimated(self.dram_bytes, Unit::Byte)));
        let mut terms = Table::new(
            "terms",
            vec![
                Column::text("roof", "roof"),
                Column::value("time_s", "time at that roof", Quantity::Si(Unit::Second)),
            ],
        );
        for t in &self.terms {
            terms.push(vec![
                Cell::text(&t.roof),
                Value::new(t.time_s, Quantity::Si(Unit::Second)).origin(Origin::Estimated).cell(),
            ]);
        }
        vec![
            Section::new("sol", "").with(facts),
            Section::new("terms", "Each roof's time").with(terms).with(vec![
                Note::info(format!("formula: {}", self.formula)),
                Note::info(format!(
                    "FLOPs and bytes are estimated from the shapes (the catalogue's formula), the roof is {}; a measured time below the bound is impossible: a broken benchmark or a wrong shape",
                    self.bound_provenance
                )),
            ]),
        ]
    }
}

/// Errors of one family, as the document holds them.
#[derive(Debug, Clone, Serialize)]
pub struct ClassRow {
    /// The family.
    pub class: String,
    /// Matched launches with an estimate.
    pub kernels: usize,
    /// Launches with counted FLOPs.
    pub flops_kernels: usize,
    /// Median |FLOPs error|, %.
    pub flops_median_pct: Option<f64>,
    /// Max |FLOPs error|, %.
    pub flops_max_pct: Option<f64>,
    /// Launches with counted DRAM bytes.
    pub bytes_kernels: usize,
    /// Median |bytes error|, %.
    pub bytes_median_pct: Option<f64>,
    /// Max |bytes error|, %.
    pub bytes_max_pct: Option<f64>,
    /// Median signed bytes error, % (positive: the estimate above the count).
    pub bytes_bias_pct: Option<f64>,
    /// Launches with counted DRAM reads and an estimate that tells reads apart.
    pub read_kernels: usize,
    /// Median |bytes read error|, %.
    pub read_median_pct: Option<f64>,
    /// Max |bytes read error|, %.
    pub read_max_pct: Option<f64>,
    /// Launches with counted DRAM traffic (reads plus L2 writes).
    pub traffic_kernels: usize,
    /// Median |DRAM traffic error|, %.
    pub traffic_median_pct: Option<f64>,
    /// Max |DRAM traffic error|, %.
    pub traffic_max_pct: Option<f64>,
}

/// One matched launch.
#[derive(Debug, Clone, Serialize)]
pub struct PairRow {
    /// The kernel (the counter capture's spelling).
    pub kernel: String,
    /// Its operator.
    pub op: Option<String>,
    /// Its family.
    pub class: Option<String>,
    /// Estimated useful FLOPs.
    pub est_flops: Option<f64>,
    /// Estimated issued FLOPs (what the error is computed on).
    pub est_issued_flops: Option<f64>,
    /// Counted FLOPs.
    pub counted_flops: f64,
    /// (estimate - count) / count, %.
    pub flops_error_pct: Option<f64>,
    /// Estimated DRAM bytes.
    pub est_bytes: Option<f64>,
    /// Counted DRAM bytes.
    pub counted_bytes: Option<f64>,
    /// (estimate - count) / count, %.
    pub bytes_error_pct: Option<f64>,
    /// Estimated bytes read.
    pub est_read_bytes: Option<f64>,
    /// Counted DRAM bytes read.
    pub counted_read_bytes: Option<f64>,
    /// (estimate - count) / count, %, for the bytes read.
    pub read_error_pct: Option<f64>,
    /// Counted DRAM traffic: reads plus the sectors written to L2, x 32 B.
    pub counted_traffic_bytes: Option<f64>,
    /// (estimate - count) / count, %, for the DRAM traffic.
    pub traffic_error_pct: Option<f64>,
    /// Where the estimate puts the launch ("under the diagonal").
    pub est_position: Option<String>,
    /// Where the counted FLOPs, DRAM traffic and ncu's duration put it
    /// under the DRAM roofline.
    pub counted_position: Option<String>,
    /// Where the counters' whole diagnosis puts it.
    pub verdict_position: Option<String>,
    /// What the estimate claims against that verdict: its DRAM position, or
    /// "on or under the L1/shared diagonal" for a GEMM the shapes say runs
    /// as an unaligned fallback.
    pub est_verdict: Option<String>,
    /// The trace's duration of the launch, seconds.
    pub duration_s: f64,
}

/// What `roofline import TRACE --with-counters CAPTURE` prints.
#[derive(Debug, Clone, Serialize)]
pub struct ComparisonDocument {
    /// [`SHAPES_VS_COUNTERS_SCHEMA`].
    pub schema: &'static str,
    /// The trace.
    pub trace: String,
    /// The counter capture.
    pub counters: String,
    /// Launches in the trace.
    pub trace_launches: usize,
    /// Launches in the counter capture.
    pub counter_launches: usize,
    /// Counter launches matched to a trace launch.
    pub matched: usize,
    /// Matched launches that have an estimate.
    pub estimated: usize,
    /// Per family.
    pub classes: Vec<ClassRow>,
    /// Per matched launch, in the counter capture's order.
    pub kernels: Vec<PairRow>,
    /// Counter launches no trace launch matched.
    pub unmatched: Vec<String>,
    /// Share of the judged GPU time (matched launches with an estimate)
    /// that the estimate and the counters put on the same side of the DRAM
    /// ridge, %.
    pub position_agreement_pct: Option<f64>,
    /// The GPU time judged, seconds (trace durations).
    pub position_time_s: f64,
    /// Share of the judged GPU time whose estimated position under the
    /// DRAM roofline (on or under the diagonal or the flat roof) is the one
    /// the counted FLOPs, traffic and duration give, %.
    pub place_agreement_pct: Option<f64>,
    /// The GPU time judged for it, seconds (trace durations).
    pub place_time_s: f64,
    /// The same against the counters' whole verdict (their diagnosis's
    /// position, from every level and unit): the share whose estimated
    /// claim admits the verdict's position, %.
    pub verdict_agreement_pct: Option<f64>,
    /// The share whose claim names exactly the verdict's position (an open
    /// claim, "on or under", counted as a disagreement), %.
    pub verdict_strict_agreement_pct: Option<f64>,
    /// The GPU time judged for it, seconds (trace durations).
    pub verdict_time_s: f64,
}

impl ComparisonDocument {
    /// The document of a comparison.
    pub fn new(trace: &str, counters: &str, c: &Comparison) -> ComparisonDocument {
        let pct = |x: Option<f64>| x.map(|v| 100.0 * v);
        ComparisonDocument {
            schema: SHAPES_VS_COUNTERS_SCHEMA,
            trace: trace.into(),
            counters: counters.into(),
            trace_launches: c.trace_launches,
            counter_launches: c.counter_launches,
            matched: c.pairs.len(),
            estimated: c.pairs.iter().filter(|p| p.class.is_some()).count(),
            classes: c
                .classes
                .iter()
                .map(|k| ClassRow {
                    class: k.class.label().into(),
                    kernels: k.kernels,
                    flops_kernels: k.flops.map_or(0, |f| f.2),
                    flops_median_pct: pct(k.flops.map(|f| f.0)),
                    flops_max_pct: pct(k.flops.map(|f| f.1)),
                    bytes_kernels: k.bytes.map_or(0, |f| f.2),
                    bytes_median_pct: pct(k.bytes.map(|f| f.0)),
                    bytes_max_pct: pct(k.bytes.map(|f| f.1)),
                    bytes_bias_pct: pct(k.bytes_bias),
                    read_kernels: k.reads.map_or(0, |f| f.2),
                    read_median_pct: pct(k.reads.map(|f| f.0)),
                    read_max_pct: pct(k.reads.map(|f| f.1)),
                    traffic_kernels: k.traffic.map_or(0, |f| f.2),
                    traffic_median_pct: pct(k.traffic.map(|f| f.0)),
                    traffic_max_pct: pct(k.traffic.map(|f| f.1)),
                })
                .collect(),
            kernels: c
                .pairs
                .iter()
                .map(|p| PairRow {
                    kernel: roofline_model::display_name(&p.name),
                    op: p.op.clone(),
                    class: p.class.map(|c| c.label().to_string()),
                    est_flops: p.est_flops,
                    est_issued_flops: p.est_issued_flops,
                    counted_flops: p.counted_flops,
                    flops_error_pct: pct(p.flops_error()),
                    est_bytes: p.est_bytes,
                    counted_bytes: p.counted_bytes,
                    bytes_error_pct: pct(p.bytes_error()),
                    est_read_bytes: p.est_read_bytes,
                    counted_read_bytes: p.counted_read_bytes,
                    read_error_pct: pct(p.read_error()),
                    counted_traffic_bytes: p.counted_traffic_bytes,
                    traffic_error_pct: pct(p.traffic_error()),
                    est_position: p.est_place.map(|x| x.label().to_string()),
                    counted_position: p.counted_place.map(|x| x.label().to_string()),
                    verdict_position: p.verdict_place.map(|x| x.label().to_string()),
                    est_verdict: p.est_claim.map(|x| x.label()),
                    duration_s: p.duration_s,
                })
                .collect(),
            unmatched: c.unmatched.iter().map(|n| roofline_model::display_name(n)).collect(),
            position_agreement_pct: (c.position.1 > 0.0).then(|| 100.0 * c.position.0 / c.position.1),
            position_time_s: c.position.1,
            place_agreement_pct: (c.places.1 > 0.0).then(|| 100.0 * c.places.0 / c.places.1),
            place_time_s: c.places.1,
            verdict_agreement_pct: (c.verdicts.1 > 0.0).then(|| 100.0 * c.verdicts.0 / c.verdicts.1),
            verdict_strict_agreement_pct: (c.verdicts.1 > 0.0).then(|| 100.0 * c.verdicts_strict / c.verdicts.1),
            verdict_time_s: c.verdicts.1,
        }
    }
}

/// A share of the judged GPU time on which the two sources agree.
fn agreement(key: &str, label: &str, pct: Option<f64>, judged_s: f64) -> Fact {
    match pct {
        Some(p) => Fact::new(
            key,
            label,
            Value::new(p, Quantity::Percent)
                .note(format!("of {} judged", roofline_model::format_seconds(judged_s)))
                .cell(),
        ),
        None => Fact::new(key, label, Cell::Empty),
    }
}

fn pct_cell(v: Option<f64>) -> Cell {
    Cell::value(v, Quantity::Percent)
}

impl Describe for ComparisonDocument {
    fn title(&self) -> String {
        format!("Estimated from shapes against counted: {} and {}", self.trace, self.counters)
    }

    fn sections(&self) -> Vec<Section> {
        let facts = vec![
            Fact::new("trace", "trace (estimates)", Cell::text(&self.trace)),
            Fact::new("counters", "counter capture", Cell::text(&self.counters)),
            Fact::new(
                "matched",
                "launches matched",
                Cell::text(format!(
                    "{} of {} counter launches ({} with an estimate); the trace has {}",
                    self.matched, self.counter_launches, self.estimated, self.trace_launches
                )),
            ),
            agreement("position", "same side of the ridge", self.position_agreement_pct, self.position_time_s),
            agreement("places", "same position under the DRAM roofline", self.place_agreement_pct, self.place_time_s),
            agreement(
                "verdicts",
                "position claimed from shapes admits the counters' verdict",
                self.verdict_agreement_pct,
                self.verdict_time_s,
            ),
            agreement(
                "verdicts_strict",
                "the same, open claims (on or under) counted as disagreeing",
                self.verdict_strict_agreement_pct,
                self.verdict_time_s,
            ),
        ];
        let mut classes = Table::new(
            "classes",
            vec![
                Column::text("class", "family"),
                Column::value("kernels", "launches", Quantity::Count).show(Show::Wide),
                Column::value("flops_kernels", "with FLOPs", Quantity::Count).show(Show::Wide),
                Column::value("flops_median_pct", "FLOPs err median", Quantity::Percent),
                Column::value("flops_max_pct", "FLOPs err max", Quantity::Percent),
                Column::value("bytes_kernels", "with DRAM bytes", Quantity::Count).show(Show::Wide),
                Column::value("bytes_median_pct", "bytes err median", Quantity::Percent),
                Column::value("bytes_max_pct", "bytes err max", Quantity::Percent),
                Column::value("bytes_bias_pct", "DRAM bytes error median (signed)", Quantity::Percent).show(Show::Wide),
                Column::value("read_kernels", "with DRAM reads", Quantity::Count).show(Show::Wide),
                Column::value("read_median_pct", "reads err median", Quantity::Percent),
                Column::value("read_max_pct", "reads err max", Quantity::Percent),
                Column::value("traffic_kernels", "with DRAM traffic", Quantity::Count).show(Show::Wide),
                Column::value("traffic_median_pct", "traffic err median", Quantity::Percent),
                Column::value("traffic_max_pct", "traffic err max", Quantity::Percent),
            ],
        );
        for c in &self.classes {
            classes.push(vec![
                Cell::text(&c.class),
                Cell::value(Some(c.kernels as f64), Quantity::Count),
                Cell::value(Some(c.flops_kernels as f64), Quantity::Count),
                pct_cell(c.flops_median_pct),
                pct_cell(c.flops_max_pct),
                Cell::value(Some(c.bytes_kernels as f64), Quantity::Count),
                pct_cell(c.bytes_median_pct),
                pct_cell(c.bytes_max_pct),
                pct_cell(c.bytes_bias_pct),
                Cell::value(Some(c.read_kernels as f64), Quantity::Count),
                pct_cell(c.read_median_pct),
                pct_cell(c.read_max_pct),
                Cell::value(Some(c.traffic_kernels as f64), Quantity::Count),
                pct_cell(c.traffic_median_pct),
                pct_cell(c.traffic_max_pct),
            ]);
        }
        let mut kernels = Table::new(
            "kernels",
            vec![
                Column::text("kernel", "kernel"),
                Column::text("op", "operator"),
                Column::text("class", "family"),
                Column::with_provenance("est_flops", "FLOPs estimated (useful)", Some(Quantity::Si(Unit::Flop))),
                Column::with_provenance("est_issued_flops", "FLOPs estimated (issued)", Some(Quantity::Si(Unit::Flop))),
                Column::with_provenance("counted_flops", "FLOPs counted", Some(Quantity::Si(Unit::Flop))),
                Column::value("flops_error_pct", "FLOPs error", Quantity::Percent),
                Column::with_provenance("est_bytes", "DRAM bytes estimated", Some(Quantity::Si(Unit::Byte))),
                Column::with_provenance("counted_bytes", "DRAM bytes counted", Some(Quantity::Si(Unit::Byte))),
                Column::value("bytes_error_pct", "DRAM bytes error", Quantity::Percent),
                Column::with_provenance("est_read_bytes", "bytes read estimated", Some(Quantity::Si(Unit::Byte))),
                Column::with_provenance("counted_read_bytes", "DRAM reads counted", Some(Quantity::Si(Unit::Byte))),
                Column::value("read_error_pct", "DRAM reads error", Quantity::Percent),
                Column::with_provenance(
                    "counted_traffic_bytes",
                    "DRAM traffic counted (reads + L2 writes)",
                    Some(Quantity::Si(Unit::Byte)),
                ),
                Column::value("traffic_error_pct", "DRAM traffic error", Quantity::Percent),
                Column::text("est_position", "position estimated"),
                Column::text("counted_position", "position counted (DRAM)"),
                Column::text("verdict_position", "position of the counters' verdict"),
                Column::text("est_verdict", "position claimed from shapes"),
            ],
        );
        for p in &self.kernels {
            let est = |v: Option<f64>, u: Unit| v.map(|v| estimated(v, u)).unwrap_or(Cell::Empty);
            let counted = |v: Option<f64>, u: Unit| {
                v.map(|v| Value::new(v, Quantity::Si(u)).origin(Origin::Counter).cell()).unwrap_or(Cell::Empty)
            };
            kernels.push(vec![
                Cell::text(&p.kernel),
                Cell::opt_text(p.op.clone()),
                Cell::opt_text(p.class.clone().or(Some("no estimate".into()))),
                est(p.est_flops, Unit::Flop),
                est(p.est_issued_flops, Unit::Flop),
                counted(Some(p.counted_flops), Unit::Flop),
                pct_cell(p.flops_error_pct),
                est(p.est_bytes, Unit::Byte),
                counted(p.counted_bytes, Unit::Byte),
                pct_cell(p.bytes_error_pct),
                est(p.est_read_bytes, Unit::Byte),
                counted(p.counted_read_bytes, Unit::Byte),
                pct_cell(p.read_error_pct),
                counted(p.counted_traffic_bytes, Unit::Byte),
                pct_cell(p.traffic_error_pct),
                Cell::opt_text(p.est_position.clone()),
                Cell::opt_text(p.counted_position.clone()),
                Cell::opt_text(p.verdict_position.clone()),
                Cell::opt_text(p.est_verdict.clone()),
            ]);
        }
        let mut notes = vec![Note::info(
            "error = (estimated - counted) / counted; FLOPs: issued FLOPs from shapes (attention: whole 128x128 tiles; convolutions: channels padded to the tensor cores' 16-byte rows) against the counters' FLOPs of every kind; bytes: compulsory bytes from shapes against DRAM bytes (dram__bytes); reads: the estimate's inputs against dram__bytes_read (Nsight Compute flushes the caches before each kernel, and an output that fits in L2 is not yet written to DRAM when the kernel ends, so DRAM writes are undercounted). Byte errors leave out launches with under 1 MB counted. The trace and the counter capture are separate runs, matched by kernel name, grid and block in order.",
        )];
        if !self.unmatched.is_empty() {
            notes.push(Note::warning(format!(
                "{} counter launch(es) matched no trace launch: {}",
                self.unmatched.len(),
                self.unmatched.iter().take(8).cloned().collect::<Vec<_>>().join(", ")
            )));
        }
        vec![
            Section::new("summary", "").with(facts),
            Section::new("classes", "Error by operator family").with(classes).with(notes),
            Section::new("kernels", "Each matched launch").show(Show::Wide).with(kernels),
        ]
    }
}
