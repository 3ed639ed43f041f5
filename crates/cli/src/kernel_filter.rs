//! After the capture: `-k/--kernels REGEX` on `import`, `report` and
//! `check` (the kernels to look at, as rocprof-compute's `analyze -k` picks
//! them) and `--group-by` on `import`, `report` and `check` (where the
//! rules then judge the groups: `roofline_documents::grouped`).
//! A kernel is kept when the pattern matches its full name, its display
//! name or its ID (`k6cbd29`); the time shares are then of the kept kernels.

use roofline_analysis::KernelAnalysis;
use roofline_analysis::ProgramOptions;
use roofline_documents::AnalysisDocument;
use roofline_model::{Capture, Kernel};

use crate::error::bad_input;

#[derive(clap::Args, Debug, Clone, Default)]
pub struct KernelFilterArgs {
    /// Only the kernels whose name (full or shown) or ID matches this regular
    /// expression ("gemm|nvjet", "^k6cbd29$"); time shares are of those kernels.
    #[arg(id = "kernel_regex", short = 'k', long = "kernels", value_name = "REGEX")]
    pub kernels: Option<String>,
}

/// `--group-by` on `import`, `report` and `check`: how the program view
/// sums the GPU time (`profile` has its own, with NVTX ranges).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct GroupByArgs {
    /// Sum the GPU time by kernel name, by library (cuBLAS, cuDNN, PyTorch,
    /// Triton, NCCL, your code), or by origin (library and role: "cuBLAS GEMM").
    #[arg(long, value_enum, value_name = "BY")]
    pub group_by: Option<GroupByArg>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GroupByArg {
    /// Launches of one kernel together (the program view's default).
    Name,
    /// The library each kernel comes from.
    Library,
    /// The library and the kernel's role there.
    Origin,
}

impl GroupByArgs {
    /// The program view derived again with this grouping, when one was asked.
    pub fn apply(&self, doc: &mut AnalysisDocument) {
        let Some(group_by) = self.by() else { return };
        doc.set_program(&ProgramOptions { group_by, ..ProgramOptions::default() });
    }

    /// The grouping asked for, if any.
    pub fn by(&self) -> Option<roofline_analysis::GroupBy> {
        Some(match self.group_by? {
            GroupByArg::Name => roofline_analysis::GroupBy::Name,
            GroupByArg::Library => roofline_analysis::GroupBy::Library,
            GroupByArg::Origin => roofline_analysis::GroupBy::Origin,
        })
    }
}

/// A validated `--kernels` pattern.
pub struct KernelFilter(regex::Regex);

impl KernelFilterArgs {
    /// The pattern, or `None` when none was given; a bad one is bad input.
    pub fn filter(&self) -> anyhow::Result<Option<KernelFilter>> {
        let Some(p) = &self.kernels else { return Ok(None) };
        let re = regex::RegexBuilder::new(p)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| bad_input(format!("--kernels {p:?}: not a regular expression ({e})")))?;
        Ok(Some(KernelFilter(re)))
    }
}

impl KernelFilter {
    fn keeps(&self, k: &Kernel) -> bool {
        self.0.is_match(&k.name) || self.0.is_match(&k.display_name) || self.0.is_match(&k.id)
    }

    fn none_left(&self, what: &str, names: &[&Kernel]) -> anyhow::Error {
        // The kernels with the most time first: those a pattern was most likely meant for.
        let mut by_time: Vec<&&Kernel> = names.iter().collect();
        by_time.sort_by(|a, b| b.duration_s.unwrap_or(0.0).total_cmp(&a.duration_s.unwrap_or(0.0)));
        let shown: Vec<String> = by_time.iter().map(|k| format!("{} [{}]", k.display_name, k.id)).collect();
        bad_input(format!(
            "--kernels {:?}: no kernel of {what} matches (its kernels: {})",
            self.0.as_str(),
            roofline_model::bounded(&shown, ", ")
        ))
    }

    /// The capture's kernels that match (an error when none does).
    pub fn capture(&self, cap: &mut Capture, what: &str) -> anyhow::Result<()> {
        if !cap.kernels.iter().any(|c| self.keeps(&c.kernel)) {
            let all: Vec<&Kernel> = cap.kernels.iter().map(|c| &c.kernel).collect();
            return Err(self.none_left(what, &all));
        }
        cap.kernels.retain(|c| self.keeps(&c.kernel));
        cap.launches = cap.kernels.iter().map(|c| c.kernel.launches).sum();
        Ok(())
    }

    /// The document's kernels that match, their time shares and program
    /// view derived again (an error when none matches).
    pub fn document(&self, doc: &mut AnalysisDocument, what: &str) -> anyhow::Result<()> {
        if !doc.kernels.iter().any(|k| self.keeps(&k.kernel)) {
            let all: Vec<&Kernel> = doc.kernels.iter().map(|k| &k.kernel).collect();
            return Err(self.none_left(what, &all));
        }
        doc.kernels.retain(|k| self.keeps(&k.kernel));
        shares(&mut doc.kernels);
        doc.set_program(&ProgramOptions::default());
        Ok(())
    }
}

/// Each kernel's share of the kept kernels' time.
fn shares(kernels: &mut [KernelAnalysis]) {
    let total: f64 = kernels.iter().filter_map(|k| k.kernel.duration_s).filter(|d| d.is_finite() && *d > 0.0).sum();
    for k in kernels {
        k.time_share = (total > 0.0)
            .then_some(())
            .and(k.kernel.duration_s.filter(|d| d.is_finite() && *d > 0.0))
            .map(|d| d / total);
    }
}
