//! `-k/--kernels REGEX` on `import`, `report` and `check`: the kernels to
//! look at after the capture, as rocprof-compute's `analyze -k` picks them.
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
