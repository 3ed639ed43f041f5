//! What `roofline tour` shows: where the data comes from, the measured roofs
//! beside the theoretical ones, the measured ridge, the analysis of the
//! example kernels, a fusion's speed-up, a loop at increasing intensity, and
//! the files written.

use roofline_analysis::KernelAnalysis;
use roofline_documents::{AnalysisDocument, MachineDocument};
use roofline_model::Unit;
use roofline_model::{FlopKind, Machine, MemLevel, Origin, Resource};
use serde::Serialize;

use super::analysis::{
    bound_cell, chart_section, diagnosis_sections, kernel_sections, lead_sections, method_section, notes_section,
    position_tone, rate_unit,
};
use super::bench::{ridge_facts, BenchResults};
use super::machine::{ceiling_value, heading, roof_sections};
use crate::chart::ChartOptions;
use crate::view::{
    Cell, ChartControls, ChartKind, Column, Describe, Fact, Note, PointDetail, Quantity, Row, Section, Show, Table,
    Value,
};

/// The JSON schema name of a tour document.
pub const TOUR_SCHEMA: &str = "roofline.tour/v1";

/// Everything the tour shows.
#[derive(Debug, Clone, Serialize)]
pub struct TourDocument {
    /// [`TOUR_SCHEMA`].
    pub schema: &'static str,
    /// Where the data comes from (this GPU, or the bundled data and why):
    /// the pages' banner; the command prints it on stderr.
    pub banner: String,
    /// Whether the numbers are the bundled H200 data rather than this GPU's.
    pub bundled: bool,
    /// What the numbers are, in a line: the summary's "data" fact.
    pub data: String,
    /// The measured machine.
    pub machine: MachineDocument,
    /// The example kernels under its roofs.
    pub analysis: AnalysisDocument,
    /// The benchmark runs behind the machine (shown, not serialised: the
    /// machine document carries them).
    #[serde(skip)]
    pub bench: Option<BenchResults>,
    /// A fusion's before and after, when the kernels are there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fusion: Option<Fusion>,
    /// One kernel at increasing intensity, when the kernels are there.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub intensity_steps: Vec<IntensityStep>,
    /// How the roofs and the kernels were obtained.
    pub method: String,
    /// The files written, the report first.
    pub files: Vec<String>,
    /// Wall-clock seconds of the whole tour.
    pub seconds: f64,
}

/// Kernels fused into one: their times, the fused one's, and what changed
/// in DRAM intensity and traffic (all per launch).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fusion {
    /// A heading ("fusion (seed 000)").
    pub title: String,
    /// The kernels before, with seconds per launch.
    pub before: Vec<(String, f64)>,
    /// The fused kernel, with seconds per launch.
    pub after: (String, f64),
    /// DRAM intensity before (all kernels together) and after, FLOP/byte.
    pub dram_intensity: (f64, f64),
    /// DRAM bytes per launch before (all kernels together) and after.
    pub dram_bytes: (f64, f64),
    /// What the paper predicts, for comparison.
    pub expected: String,
}

impl Fusion {
    /// The fusion of the kernels named `before` into the kernel named
    /// `after`, if all ran and moved DRAM bytes.
    pub fn from_analysis(
        doc: &AnalysisDocument,
        title: &str,
        before: &[&str],
        after: &str,
        expected: &str,
    ) -> Option<Fusion> {
        let per_launch = |k: &KernelAnalysis, v: f64| v / k.kernel.launches.max(1) as f64;
        let seconds = |k: &KernelAnalysis| k.kernel.duration_s.map(|d| per_launch(k, d));
        let dram = |k: &KernelAnalysis| k.level(MemLevel::Dram).map(|p| per_launch(k, p.bytes));
        let flops = |k: &KernelAnalysis| per_launch(k, k.total_flops);
        let ks: Vec<&KernelAnalysis> = before.iter().map(|n| find(doc, n)).collect::<Option<_>>()?;
        let fused = find(doc, after)?;
        let times: Vec<(String, f64)> =
            ks.iter().map(|k| Some((k.kernel.display_name.clone(), seconds(k)?))).collect::<Option<_>>()?;
        let bytes_before: f64 = ks.iter().map(|k| dram(k)).sum::<Option<f64>>()?;
        let flops_before: f64 = ks.iter().map(|k| flops(k)).sum();
        let bytes_after = dram(fused)?;
        Some(Fusion {
            title: title.into(),
            before: times,
            after: (fused.kernel.display_name.clone(), seconds(fused)?),
            dram_intensity: (flops_before / bytes_before, flops(fused) / bytes_after),
            dram_bytes: (bytes_before, bytes_after),
            expected: expected.into(),
        })
    }
}

/// One kernel of a series at increasing intensity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IntensityStep {
    /// The series parameter (FMA iterations per element).
    pub iters: u32,
    /// The kernel's analysis.
    #[serde(skip)]
    pub analysis: KernelAnalysis,
    /// Its DRAM intensity, FLOP/byte.
    pub intensity: Option<f64>,
}

impl IntensityStep {
    /// The kernels named by `name(iters)` for each of `iters` that ran.
    pub fn series(doc: &AnalysisDocument, iters: &[u32], name: impl Fn(u32) -> String) -> Vec<IntensityStep> {
        iters
            .iter()
            .filter_map(|&it| {
                let a = find(doc, &name(it))?;
                Some(IntensityStep {
                    iters: it,
                    intensity: a.level(MemLevel::Dram).and_then(|p| p.intensity),
                    analysis: a.clone(),
                })
            })
            .collect()
    }
}

fn find<'a>(doc: &'a AnalysisDocument, name: &str) -> Option<&'a KernelAnalysis> {
    doc.kernels.iter().find(|k| k.kernel.display_name == name || k.kernel.name == name)
}

/// The roof of each resource next to its theoretical value.
fn roofs_table(m: &Machine) -> Table {
    let mut t = Table::new(
        "roofs",
        vec![
            Column::text("resource", "resource"),
            Column::with_provenance("rate", "roof", None),
            Column::value("of_theoretical", "of theoretical", Quantity::Percent),
            Column::mixed("theoretical", "theoretical").show(Show::Wide),
        ],
    );
    let resources = FlopKind::ALL.map(Resource::Compute).into_iter().chain(MemLevel::ALL.map(Resource::Memory));
    for resource in resources {
        let Some(c) = m.roof(resource) else { continue };
        let theory = m
            .ceilings
            .iter()
            .find(|x| x.resource == resource && !x.secondary && x.provenance.origin == Origin::Theoretical)
            .filter(|_| c.provenance.origin != Origin::Theoretical);
        t.push(vec![
            Cell::text(resource.label()),
            ceiling_value(c).cell(),
            Cell::value(theory.map(|t| 100.0 * c.rate / t.rate), Quantity::Percent),
            theory.map(|t| ceiling_value(t).cell()).unwrap_or_default(),
        ]);
    }
    t
}

fn fusion_section(f: &Fusion) -> Section {
    let secs = |v: f64| Value::new(v, Quantity::Si(Unit::Second));
    let total: f64 = f.before.iter().map(|(_, t)| t).sum();
    let names = f.before.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(" + ");
    let mut before: Vec<(String, Value)> = f.before.iter().map(|(n, t)| (n.clone(), secs(*t))).collect();
    before.push(("together".into(), secs(total)));
    let change = |(b, a): (f64, f64), unit: Unit| Cell::Change {
        before: Box::new(Cell::value(Some(b), Quantity::Si(unit))),
        after: Box::new(Cell::value(Some(a), Quantity::Si(unit))),
        delta: Some(Value::new(a / b, Quantity::Factor)),
    };
    Section::new("fusion", f.title.clone()).with(vec![
        Fact::new("before", format!("{names}, per launch"), Cell::Values(before)),
        Fact::new("after", format!("{}, per launch", f.after.0), secs(f.after.1).cell()),
        Fact::new("speedup", "speed-up", Value::new(total / f.after.1, Quantity::Speedup).cell()),
        Fact::new(
            "dram_intensity",
            format!("DRAM intensity ({})", f.expected),
            change(f.dram_intensity, Unit::FlopPerByte),
        ),
        Fact::new("dram_bytes", "DRAM bytes per launch", change(f.dram_bytes, Unit::Byte)),
    ])
}

fn steps_section(steps: &[IntensityStep]) -> Section {
    let mut t = Table::new(
        "intensity_steps",
        vec![
            Column::value("iters", "FMA per element", Quantity::Count),
            Column::value("intensity_dram", "intensity (DRAM)", Quantity::Si(Unit::FlopPerByte)),
            Column::mixed("achieved", "achieved"),
            Column::text("bound", "bound"),
            Column::value("pct_of_roof", "% of roof", Quantity::Percent),
        ],
    );
    let mut crossing = None;
    for (i, s) in steps.iter().enumerate() {
        let a = &s.analysis;
        if let (Some(prev), Some(roofline_analysis::Bound::Compute)) = (i.checked_sub(1).map(|p| &steps[p]), a.bound) {
            if prev.analysis.bound == Some(roofline_analysis::Bound::Memory) {
                crossing = Some((prev.iters, s.iters));
            }
        }
        let tone = a.diagnosis.as_ref().map(|d| position_tone(d.position));
        t.push(vec![
            Cell::value(Some(f64::from(s.iters)), Quantity::Count),
            Cell::value(s.intensity, Quantity::Si(Unit::FlopPerByte)),
            Cell::value(a.achieved_flops_per_s, Quantity::Si(rate_unit(a))),
            bound_cell(a.bound),
            match a.pct_of_roof {
                Some(p) => Value::new(p, Quantity::Percent).tone(tone).cell(),
                None => Cell::Empty,
            },
        ]);
    }
    let notes: Vec<Note> = crossing
        .map(|(a, b)| Note::info(format!("it stops being memory-bound between x{a} and x{b}")))
        .into_iter()
        .collect();
    Section::new("intensity-steps", "FMA loop at increasing intensity (seed 000's practice 2)")
        .with(t)
        .with_some((!notes.is_empty()).then_some(notes))
}

impl Describe for TourDocument {
    fn title(&self) -> String {
        let date = self.machine.producer.created.as_ref().or(self.analysis.producer.created.as_ref());
        format!(
            "Roofline tour: the example kernels on {}{}",
            self.machine.machine.name,
            date.map(|d| format!(", {}", d.chars().take(10).collect::<String>())).unwrap_or_default()
        )
    }

    fn subtitle(&self) -> String {
        format!(
            "{} example kernels under the roofs of {}, measured by `roofline bench --quick`",
            self.analysis.kernels.len(),
            self.machine.machine.name
        )
    }

    fn sections(&self) -> Vec<Section> {
        let m = &self.machine.machine;
        let a = &self.analysis;
        // The summary first, then the kernels, then the roofs they were
        // judged against (once), the measured ridge, and the examples.
        let mut s = vec![Section::new("banner", "").show(Show::Pages).with(vec![Note::info(self.banner.clone())])];
        s.extend(lead_sections(a, Some(self.data.clone())));
        // The chart after the GPU time by verdict, before the long tables.
        s.insert(2.min(s.len()), chart_section(a));
        s.extend(kernel_sections(a));
        s.extend(diagnosis_sections(a));
        s.push(
            Section::new(
                "roofs",
                format!("roofs of {} (measured, with their spread and clock; theoretical for comparison)", heading(m)),
            )
            .with(roofs_table(m)),
        );
        let ridge = ridge_facts(self.bench.as_ref().unwrap_or(&BenchResults::default()), m);
        if !ridge.is_empty() {
            s.push(Section::new("measured-ridge", "").with(ridge));
        }
        s.push(notes_section(a));
        if let Some(f) = &self.fusion {
            s.push(fusion_section(f));
        }
        if !self.intensity_steps.is_empty() {
            s.push(steps_section(&self.intensity_steps));
        }
        s.extend(roof_sections(m, "machine", Show::Wide));
        s.push(method_section(a, "method", "How the numbers were obtained"));
        let mut facts = vec![Fact::new("how", "how", Cell::text(&self.method))];
        if let Some((report, rest)) = self.files.split_first() {
            facts.push(Fact::new("report", "report", Cell::text(report)));
            facts.push(Fact::new("also_written", "also written", Cell::text(rest.join(", "))));
        }
        facts.push(Fact::new("seconds", "done in", Cell::value(Some(self.seconds), Quantity::Si(Unit::Second))));
        s.push(Section::new("files", "").with(facts));
        // At a terminal the last screen is the answer: the top
        // opportunities again, after the warnings, roofs and examples.
        if let Some(view) = a.program.as_ref().filter(|v| !v.opportunities.is_empty()) {
            let top = &view.opportunities[..view.opportunities.len().min(super::program::GLANCE_OPPORTUNITIES)];
            s.push(
                Section::new(
                    "summary-end",
                    format!(
                        "In short: the top {} opportunities, GPU time saved {}",
                        top.len(),
                        super::program::target_words(view)
                    ),
                )
                .show(Show::Glance)
                .with(super::program::opportunity_table(top)),
            );
        }
        s
    }

    fn deferred_rows(&self, table: &str, row: &mut dyn FnMut(Row)) {
        self.analysis.deferred_rows(table, row);
    }

    fn main_table(&self) -> Option<&'static str> {
        Some("kernel")
    }

    fn chart_svg(&self, chart: ChartKind, opts: &ChartOptions) -> Option<String> {
        self.analysis.chart_svg(chart, opts)
    }

    fn chart_text(&self, chart: ChartKind, width: usize, color: bool) -> Option<String> {
        self.analysis.chart_text(chart, width, color)
    }

    fn chart_controls(&self, chart: ChartKind) -> ChartControls {
        self.analysis.chart_controls(chart)
    }

    fn point_details(&self) -> Vec<PointDetail> {
        self.analysis.point_details()
    }
}
