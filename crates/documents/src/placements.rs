//! An analysis read for where its kernels sit, not for why.
//!
//! `check` and `diff` compare kernels by their names, time and placement
//! under the roofs. They never read a kernel's diagnosis, profiler evidence,
//! instruction view or level caveats, nor the program view, and those are
//! most of an imported analysis: about 3 KB of each kernel's 5 KB of JSON,
//! and more once built. Reading them for two analyses of 100,000 kernels
//! took seconds and over a gigabyte. [`read_analysis_placements`] steps over
//! them as the JSON is parsed: serde ignores the fields a type does not name,
//! still checking their JSON syntax.
//!
//! What is read is checked as [`read_analysis`] checks it (every number in
//! range, durations positive, FLOPs and bytes not negative). A document of
//! another version, or one the lean types cannot read, goes through
//! [`read_analysis`] instead, so it is upgraded or refused with the same
//! message, and its kernels are then cut to their placement.
//!
//! The commands read a file through [`crate::stream_placements`], the same
//! types a kernel at a time (`crate::stream`), and come here for what that
//! does not read.
//!
//! The trade-off, the same one `merge`'s skimming reader makes: a malformed
//! value inside a part that is stepped over (a diagnosis's numbers, say) is
//! not refused by `check` or `diff`; `report` and every other command
//! still refuse it.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::ranks::RankInfo;
use crate::schema::{
    check_analysis, read_analysis, schema_at_head, AnalysisDocument, AnalysisSource, DocumentError, Producer,
    ANALYSIS_SCHEMA,
};
use roofline_analysis::CollectivePlacement;
use roofline_analysis::{Bound, KernelAnalysis, LevelPoint, Limiter};
use roofline_model::Kernel;
use roofline_model::Warning;
use roofline_model::{FlopKind, Machine, MemLevel, Origin};

/// An analysis with every kernel cut to its placement
/// ([`KernelAnalysis::placement`]) and no program view. Errors are
/// [`read_analysis`]'s.
pub fn read_analysis_placements(text: &str, input: &str) -> Result<AnalysisDocument, DocumentError> {
    if schema_at_head(text) == Some(ANALYSIS_SCHEMA) {
        if let Ok(placed) = serde_json::from_str::<PlacedDocument>(text) {
            let program = placed.program.clone();
            let doc = placed.into_document();
            check_analysis(&doc, input).map_err(crate::schema::read_fix)?;
            crate::schema::check_derived(&doc, program.as_ref(), input).map_err(crate::schema::read_fix)?;
            return Ok(doc);
        }
    }
    let mut doc = read_analysis(text, input)?;
    doc.kernels = doc.kernels.iter().map(KernelAnalysis::placement).collect();
    doc.program = None;
    Ok(doc)
}

/// [`AnalysisDocument`] without its program view (derived from the kernels).
#[derive(Deserialize)]
struct PlacedDocument {
    schema: String,
    producer: Producer,
    source: AnalysisSource,
    machine: Machine,
    kernels: Vec<PlacedKernel>,
    #[serde(default)]
    warnings: Vec<Warning>,
    #[serde(default)]
    rank: Option<RankInfo>,
    /// Only what the shares of time are checked against, the rest of the
    /// program view stepped over.
    #[serde(default)]
    program: Option<crate::consistency::ProgramFigures>,
}

impl PlacedDocument {
    fn into_document(self) -> AnalysisDocument {
        AnalysisDocument {
            schema: self.schema,
            producer: self.producer,
            source: self.source,
            machine: self.machine,
            kernels: self.kernels.into_iter().map(PlacedKernel::into_analysis).collect(),
            warnings: self.warnings,
            program: None,
            rank: self.rank,
        }
    }
}

/// [`KernelAnalysis`] without its diagnosis and instruction view; the field
/// attributes are its own.
#[derive(Deserialize)]
pub(crate) struct PlacedKernel {
    kernel: PlacedWork,
    #[serde(default)]
    time_share: Option<f64>,
    total_flops: f64,
    compute_roof_flops_per_s: Option<f64>,
    compute_roof_name: Option<String>,
    levels: Vec<LevelPoint>,
    attainable_flops_per_s: Option<f64>,
    limiter: Option<Limiter>,
    bound: Option<Bound>,
    achieved_flops_per_s: Option<f64>,
    pct_of_roof: Option<f64>,
    #[serde(default)]
    pct_of_mix_roof: Option<f64>,
    #[serde(default)]
    missing_ceilings: Vec<FlopKind>,
    #[serde(default)]
    collective: Option<Box<CollectivePlacement>>,
}

/// [`Kernel`] without its profiler evidence and level caveats.
#[derive(Deserialize)]
struct PlacedWork {
    id: String,
    name: String,
    display_name: String,
    #[serde(default)]
    flops: BTreeMap<FlopKind, f64>,
    #[serde(default)]
    bytes: BTreeMap<MemLevel, f64>,
    #[serde(default)]
    duration_s: Option<f64>,
    #[serde(default = "roofline_model::one_launch")]
    launches: u64,
    #[serde(default)]
    capture_order: Option<u64>,
    origin: Origin,
}

impl PlacedKernel {
    pub(crate) fn into_analysis(self) -> KernelAnalysis {
        let k = self.kernel;
        KernelAnalysis {
            kernel: Kernel {
                id: k.id,
                name: k.name,
                display_name: k.display_name,
                flops: k.flops,
                bytes: k.bytes,
                duration_s: k.duration_s,
                launches: k.launches,
                capture_order: k.capture_order,
                origin: k.origin,
                evidence: Default::default(),
                unmeasured: Default::default(),
            },
            time_share: self.time_share,
            total_flops: self.total_flops,
            compute_roof_flops_per_s: self.compute_roof_flops_per_s,
            compute_roof_name: self.compute_roof_name,
            levels: self.levels,
            attainable_flops_per_s: self.attainable_flops_per_s,
            limiter: self.limiter,
            bound: self.bound,
            achieved_flops_per_s: self.achieved_flops_per_s,
            pct_of_roof: self.pct_of_roof,
            pct_of_mix_roof: self.pct_of_mix_roof,
            missing_ceilings: self.missing_ceilings,
            instructions: None,
            diagnosis: None,
            collective: self.collective,
        }
    }
}
