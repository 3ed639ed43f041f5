//! Thresholds on an analysis, for a CI gate.
//!
//! `roofline check` turns "this kernel is fine" into an exit code. The rules
//! are few and each one names its numbers when it fails:
//!
//! - every kernel with at least `min_time_share_pct` of GPU time reaches at
//!   least `min_pct_of_roof` of the roof that applies to it;
//! - named kernels carry limits of their own (`[[kernel]]`: a % of roof, a
//!   longest time), which replace the general one for them;
//! - against a baseline analysis, no kernel's time grows, and no kernel's %
//!   of roof shrinks, by more than `max_regression_pct` percent.
//!
//! The rules come from a TOML file or from flags; both are validated here
//! into [`Rules`], so the check itself never meets a half-read option.
//!
//! ```toml
//! min_time_share_pct = 5
//! min_pct_of_roof = 60
//! baseline = "baseline.json"   # relative to this file
//! max_regression_pct = 10
//!
//! [[kernel]]
//! name = "fused"
//! min_pct_of_roof = 80
//! max_time = "1.2 ms"
//! ```

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::schema::AnalysisDocument;
use roofline_analysis::KernelAnalysis;
use roofline_model::{format_percent, format_seconds, parse_quantity, signed, Unit};

/// A check configuration could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CheckConfigError {
    /// The file is not valid TOML, or has unknown keys.
    #[error("{input}: {message}")]
    Toml {
        /// The file.
        input: String,
        /// The TOML reader's message, with the known keys.
        message: String,
    },
    #[error("{input}: {field} = {value}: {problem}")]
    /// A value out of its range, or rules that need each other.
    Value {
        /// The file, or the command line.
        input: String,
        /// The key or flag.
        field: String,
        /// The value given.
        value: String,
        /// What was expected.
        problem: String,
    },
    #[error("{input}: no rule to check; set min_pct_of_roof, max_regression_pct with a baseline, or a [[kernel]] limit (or the flags --min-pct-of-roof, --baseline, --kernel)")]
    /// No rule was set, so nothing would be checked.
    Nothing {
        /// The file, or the command line.
        input: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    min_time_share_pct: Option<f64>,
    min_pct_of_roof: Option<f64>,
    baseline: Option<String>,
    max_regression_pct: Option<f64>,
    #[serde(default)]
    kernel: Vec<RawKernel>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKernel {
    name: String,
    min_pct_of_roof: Option<f64>,
    max_time: Option<toml::Value>,
}

/// Limits for one named kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelLimit {
    /// Matched against the full name, then the display name.
    pub name: String,
    /// Least % of its roof this kernel must reach (replaces the general rule).
    pub min_pct_of_roof: Option<f64>,
    /// Longest summed duration (all launches) this kernel may take, seconds.
    pub max_time_s: Option<f64>,
}

/// Validated rules.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Rules {
    /// Kernels below this share of GPU time (percent) are not held to
    /// `min_pct_of_roof`; 0 holds every kernel that has a time.
    pub min_time_share_pct: f64,
    /// Least % of its roof every kernel above `min_time_share_pct` must reach.
    pub min_pct_of_roof: Option<f64>,
    /// Limits for named kernels.
    pub kernels: Vec<KernelLimit>,
    /// A baseline analysis file (the caller reads it).
    pub baseline: Option<String>,
    /// Largest regression against the baseline allowed, %: time grown or
    /// % of roof shrunk by more fails.
    pub max_regression_pct: Option<f64>,
}

/// Validates a percentage given on the command line or in a file: finite,
/// from 0 to `max`.
pub fn pct(input: &str, field: &str, v: f64, max: f64) -> Result<f64, CheckConfigError> {
    if v.is_finite() && v >= 0.0 && v <= max {
        Ok(v)
    } else {
        Err(CheckConfigError::Value {
            input: input.into(),
            field: field.into(),
            // 1e308 is echoed as 1e308, not as its 309 digits.
            value: roofline_model::format_number(v),
            problem: format!("expected a percentage from 0 to {max}"),
        })
    }
}

impl Rules {
    /// Reads a TOML configuration; `input` names the file in errors.
    pub fn from_toml(text: &str, input: &str) -> Result<Rules, CheckConfigError> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| CheckConfigError::Toml {
            input: input.into(),
            message: format!(
                "{}known keys: min_time_share_pct, min_pct_of_roof, baseline, max_regression_pct, and [[kernel]] tables with name, min_pct_of_roof, max_time",
                e
            ),
        })?;
        let mut rules = Rules {
            min_time_share_pct: match raw.min_time_share_pct {
                Some(v) => pct(input, "min_time_share_pct", v, 100.0)?,
                None => 0.0,
            },
            min_pct_of_roof: raw.min_pct_of_roof.map(|v| pct(input, "min_pct_of_roof", v, 100.0)).transpose()?,
            kernels: Vec::new(),
            baseline: raw.baseline,
            max_regression_pct: raw.max_regression_pct.map(|v| pct(input, "max_regression_pct", v, 1e6)).transpose()?,
        };
        for k in raw.kernel {
            let field = |f: &str| format!("kernel {:?} {f}", k.name);
            let max_time_s = match &k.max_time {
                None => None,
                Some(v) => {
                    let bad = |problem: String| CheckConfigError::Value {
                        input: input.into(),
                        field: field("max_time"),
                        value: v.to_string(),
                        problem,
                    };
                    let s = match v {
                        toml::Value::String(s) => parse_quantity(s, Unit::Second).map_err(|e| bad(e.to_string()))?,
                        toml::Value::Float(f) => *f,
                        toml::Value::Integer(i) => *i as f64,
                        _ => return Err(bad("expected a duration such as \"1.2 ms\"".into())),
                    };
                    if !(s > 0.0 && s.is_finite()) {
                        return Err(bad("expected a duration greater than zero".into()));
                    }
                    Some(s)
                }
            };
            rules.kernels.push(KernelLimit {
                min_pct_of_roof: k
                    .min_pct_of_roof
                    .map(|v| pct(input, &field("min_pct_of_roof"), v, 100.0))
                    .transpose()?,
                name: k.name,
                max_time_s,
            });
        }
        Ok(rules)
    }

    /// Parses a `--kernel NAME=PCT` flag.
    pub fn parse_kernel_flag(spec: &str) -> Result<KernelLimit, CheckConfigError> {
        let bad = |problem: &str| CheckConfigError::Value {
            input: "--kernel".into(),
            field: "--kernel".into(),
            value: format!("{spec:?}"),
            problem: problem.into(),
        };
        let (name, v) = spec.rsplit_once('=').ok_or_else(|| bad("expected NAME=PCT, for example fused=80"))?;
        if name.trim().is_empty() {
            return Err(bad("the kernel name before '=' is empty; expected NAME=PCT, for example fused=80"));
        }
        let v: f64 = v.trim().trim_end_matches('%').parse().map_err(|_| bad("the part after '=' is not a number"))?;
        Ok(KernelLimit {
            name: name.trim().into(),
            min_pct_of_roof: Some(pct("--kernel", "--kernel", v, 100.0)?),
            max_time_s: None,
        })
    }

    /// Errors when no rule would check anything.
    pub fn validate(&self, input: &str) -> Result<(), CheckConfigError> {
        if self.baseline.is_some() != self.max_regression_pct.is_some() {
            return Err(CheckConfigError::Value {
                input: input.into(),
                field: if self.baseline.is_some() { "baseline" } else { "max_regression_pct" }.into(),
                value: "set".into(),
                problem: "a baseline needs max_regression_pct, and max_regression_pct needs a baseline".into(),
            });
        }
        let regression = self.baseline.is_some() && self.max_regression_pct.is_some();
        if self.min_pct_of_roof.is_none() && self.kernels.is_empty() && !regression {
            return Err(CheckConfigError::Nothing { input: input.into() });
        }
        Ok(())
    }
}

/// One rule applied to one kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The kernel's display name (the limit's name for a kernel not found).
    pub kernel: String,
    /// "min_pct_of_roof", "kernel.min_pct_of_roof", "kernel.max_time",
    /// "regression.time", "regression.pct_of_roof", "kernel.present", "sol".
    pub rule: String,
    /// Whether the kernel kept to the rule.
    pub passed: bool,
    /// What was measured and the limit, with units: "41% of roof < 60%".
    pub detail: String,
    /// The kernel's stable ID (`k6cbd29`, as every view shows it); empty
    /// for a kernel the rules name that the analysis lacks.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kernel_id: String,
    /// What was measured, in `unit`: a % of roof, a time in seconds, or a
    /// change in percent; absent when there was nothing to measure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// The limit in `unit`: a minimum for the `min_pct_of_roof` rules, for
    /// `regression.pct_of_roof` (a negative change, `-max_regression_pct`)
    /// and for `sol` (the speed of light), a maximum for `kernel.max_time`
    /// and `regression.time`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<f64>,
    /// `value` and `limit`'s unit: "pct_of_roof", "s" or "pct_change".
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub unit: String,
}

impl Outcome {
    /// An outcome with no numbers (a kernel the rules name that is absent).
    fn bare(kernel: String, rule: &str, passed: bool, detail: String) -> Outcome {
        Outcome {
            kernel,
            rule: rule.into(),
            passed,
            detail,
            kernel_id: String::new(),
            value: None,
            limit: None,
            unit: String::new(),
        }
    }
    /// An outcome for `k` with its numbers.
    fn of(
        k: &KernelAnalysis,
        rule: &str,
        passed: bool,
        detail: String,
        value: Option<f64>,
        limit: f64,
        unit: &str,
    ) -> Outcome {
        Outcome {
            kernel: label(k),
            rule: rule.into(),
            passed,
            detail,
            kernel_id: k.kernel.id.clone(),
            value,
            limit: Some(limit),
            unit: unit.into(),
        }
    }
}

/// All outcomes of a check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckReport {
    /// One per rule and kernel it applied to.
    pub outcomes: Vec<Outcome>,
    /// When the baseline was judged against other roofs than the analysis:
    /// what differed. The baseline's kernels were then placed again on the
    /// analysis's roofs, so that % of roof compares like with like.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_replaced: Option<String>,
    /// Kernels no rule applied to, and why.
    pub notes: Vec<String>,
}

impl CheckReport {
    /// True when every outcome passed (the check exits 0).
    pub fn passed(&self) -> bool {
        self.outcomes.iter().all(|o| o.passed)
    }
    /// The outcomes that did not pass.
    pub fn failures(&self) -> impl Iterator<Item = &Outcome> {
        self.outcomes.iter().filter(|o| !o.passed)
    }
}

fn label(k: &KernelAnalysis) -> String {
    if k.kernel.display_name.is_empty() {
        k.kernel.name.clone()
    } else {
        k.kernel.display_name.clone()
    }
}

/// The kernels of a document by ID, full name and display name, so that
/// matching 100,000 kernels against a baseline takes one pass, not one pass
/// per kernel. In a per-launch analysis one name is several launches.
struct Names<'a> {
    doc: &'a AnalysisDocument,
    id: HashMap<&'a str, Vec<usize>>,
    full: HashMap<&'a str, Vec<usize>>,
    display: HashMap<&'a str, Vec<usize>>,
}

impl<'a> Names<'a> {
    fn new(doc: &'a AnalysisDocument) -> Names<'a> {
        let (mut id, mut full, mut display) = (HashMap::new(), HashMap::new(), HashMap::new());
        for (i, k) in doc.kernels.iter().enumerate() {
            id.entry(k.kernel.id.as_str()).or_insert_with(Vec::new).push(i);
            full.entry(k.kernel.name.as_str()).or_insert_with(Vec::new).push(i);
            display.entry(k.kernel.display_name.as_str()).or_insert_with(Vec::new).push(i);
        }
        Names { doc, id, full, display }
    }

    fn kernels(&self, indices: Option<&Vec<usize>>) -> Vec<&'a KernelAnalysis> {
        indices.map(|v| v.iter().map(|&i| &self.doc.kernels[i]).collect()).unwrap_or_default()
    }

    /// The kernels a rule names: by ID, else full name, else display name;
    /// in a per-launch analysis the rule holds each launch of that name.
    fn named(&self, name: &str) -> Vec<&'a KernelAnalysis> {
        [&self.id, &self.full, &self.display]
            .into_iter()
            .map(|map| self.kernels(map.get(name)))
            .find(|found| !found.is_empty())
            .unwrap_or_default()
    }

    /// How many kernels of this document have that full name.
    fn count_of_name(&self, name: &str) -> usize {
        self.full.get(name).map_or(0, Vec::len)
    }

    /// The kernel of this document that is `k` of `other`: the same ID
    /// (stable across runs, and one per launch in a per-launch analysis), or
    /// else the same name where that name is one kernel in both documents.
    fn counterpart(&self, k: &KernelAnalysis, other: &Names<'_>) -> Match<'a> {
        let by_id = self.kernels(self.id.get(k.kernel.id.as_str()));
        if by_id.len() == 1 {
            return Match::One(by_id[0]);
        }
        let by_name = self.kernels(self.full.get(k.kernel.name.as_str()));
        match (by_name.len(), other.count_of_name(&k.kernel.name)) {
            (0, _) => Match::None,
            (1, 1) => Match::One(by_name[0]),
            _ => Match::Ambiguous,
        }
    }
}

enum Match<'a> {
    One(&'a KernelAnalysis),
    None,
    Ambiguous,
}

/// Why an analysis gives a check nothing to judge, if it does: every rule
/// needs a kernel's duration (% of roof, time, regressions).
pub fn nothing_to_judge(doc: &AnalysisDocument) -> Option<String> {
    doc.kernels.iter().all(|k| k.kernel.duration_s.is_none()).then(|| {
        format!(
            "the analysis has no duration for any of its {} kernel(s) (source: {}), so there is no % of roof or time to check: give the kernels a time (`roofline model --kernel \"NAME: ... time=1.2ms\"`), or check an analysis from `roofline import` or `profile`",
            doc.kernels.len(),
            doc.source.kind
        )
    })
}

fn roof_name(k: &KernelAnalysis) -> String {
    match k.limiter {
        Some(roofline_analysis::Limiter::Bandwidth(l)) => format!("{} bandwidth", l.label()),
        _ => k.compute_roof_name.clone().unwrap_or_else(|| "compute".into()),
    }
}

fn pct_rule(out: &mut Vec<Outcome>, k: &KernelAnalysis, rule: &str, min: f64) {
    let (passed, detail) = match k.pct_of_roof {
        Some(p) => (
            p >= min,
            format!(
                "{} of the {} roof, {} {}",
                format_percent(p),
                roof_name(k),
                if p >= min { ">=" } else { "<" },
                format_percent(min)
            ),
        ),
        None => {
            (false, format!("no % of roof (no duration or no roof for it), so it cannot reach {}", format_percent(min)))
        }
    };
    out.push(Outcome::of(k, rule, passed, detail, k.pct_of_roof, min, "pct_of_roof"));
}

/// Applies the rules to `doc`, and the regression rule to `baseline`.
pub fn check(doc: &AnalysisDocument, rules: &Rules, baseline: Option<&AnalysisDocument>) -> CheckReport {
    let mut outcomes = Vec::new();
    let mut notes = Vec::new();
    let names = Names::new(doc);
    let has_own_limit = |k: &KernelAnalysis| {
        rules.kernels.iter().any(|l| {
            l.min_pct_of_roof.is_some()
                && (l.name == k.kernel.name || l.name == k.kernel.display_name || l.name == k.kernel.id)
        })
    };

    if let Some(min) = rules.min_pct_of_roof {
        let share_min = rules.min_time_share_pct / 100.0;
        for k in &doc.kernels {
            if has_own_limit(k) {
                continue;
            }
            match k.time_share {
                Some(s) if s >= share_min => pct_rule(&mut outcomes, k, "min_pct_of_roof", min),
                Some(s) => notes.push(format!(
                    "{}: {} of GPU time, below min_time_share_pct {}: not held to min_pct_of_roof",
                    label(k),
                    format_percent(100.0 * s),
                    format_percent(rules.min_time_share_pct)
                )),
                None => notes
                    .push(format!("{}: no duration, so no share of GPU time: not held to min_pct_of_roof", label(k))),
            }
        }
    }

    for limit in &rules.kernels {
        let found = names.named(&limit.name);
        if found.is_empty() {
            outcomes.push(Outcome::bare(
                limit.name.clone(),
                "kernel.present",
                false,
                format!(
                    "named in the rules but not in the analysis (kernels: {})",
                    roofline_model::bounded(&doc.kernels.iter().map(label).collect::<Vec<_>>(), ", ")
                ),
            ));
            continue;
        }
        for k in found {
            if let Some(min) = limit.min_pct_of_roof {
                pct_rule(&mut outcomes, k, "kernel.min_pct_of_roof", min);
            }
            if let Some(max) = limit.max_time_s {
                let (passed, detail) = match k.kernel.duration_s {
                    Some(t) => (
                        t <= max,
                        format!("{} {} {}", format_seconds(t), if t <= max { "<=" } else { ">" }, format_seconds(max)),
                    ),
                    None => (false, format!("no duration, so it cannot be held to {}", format_seconds(max))),
                };
                outcomes.push(Outcome::of(k, "kernel.max_time", passed, detail, k.kernel.duration_s, max, "s"));
            }
        }
    }

    // A baseline judged against other roofs is placed again on this
    // analysis's: a % of roof against other roofs is not a regression.
    // Both sides are placed again, alike, on this analysis's machine (a
    // kernel's own counter roofs, at its own clock, are left aside on both).
    let mut baseline_replaced = None;
    let placed_again = |d: &AnalysisDocument| {
        let kernels: Vec<roofline_model::Kernel> = d.kernels.iter().map(|k| k.kernel.clone()).collect();
        let mut again = d.clone();
        again.kernels = roofline_analysis::analyze(&doc.machine, &kernels);
        again.machine = doc.machine.clone();
        again
    };
    let replaced;
    let (baseline, doc) = match baseline {
        Some(b) if rules.max_regression_pct.is_some() => match roofs_differ(&b.machine, &doc.machine) {
            Some(why) => {
                replaced = (placed_again(b), placed_again(doc));
                baseline_replaced = Some(format!(
                    "{why}: for the regression rules both were placed again on this analysis's roofs, so that % of roof compares like with like"
                ));
                (Some(&replaced.0), &replaced.1)
            }
            None => (Some(b), doc),
        },
        b => (b, doc),
    };
    let names = Names::new(doc);
    if let (Some(base), Some(max)) = (baseline, rules.max_regression_pct) {
        let base_names = Names::new(base);
        for k in &doc.kernels {
            let b = match base_names.counterpart(k, &names) {
                Match::One(b) => b,
                Match::None => {
                    notes.push(format!("{}: not in the baseline, so not checked for regression", label(k)));
                    continue;
                }
                Match::Ambiguous => {
                    notes.push(format!(
                        "{} ({}): several kernels of this name and no kernel with its ID in the baseline, so not checked for regression",
                        label(k),
                        k.kernel.id
                    ));
                    continue;
                }
            };
            if let (Some(t), Some(tb)) = (k.kernel.duration_s, b.kernel.duration_s) {
                if tb > 0.0 {
                    let change = 100.0 * (t - tb) / tb;
                    let detail = format!(
                        "time {} -> {} ({}%, limit +{})",
                        format_seconds(tb),
                        format_seconds(t),
                        signed(change, 1),
                        format_percent(max)
                    );
                    outcomes.push(Outcome::of(
                        k,
                        "regression.time",
                        change <= max,
                        detail,
                        Some(change),
                        max,
                        "pct_change",
                    ));
                }
            }
            if let (Some(p), Some(pb)) = (k.pct_of_roof, b.pct_of_roof) {
                if pb > 0.0 {
                    let change = 100.0 * (p - pb) / pb;
                    let detail = format!(
                        "% of roof {} -> {} ({}% relative, limit -{})",
                        format_percent(pb),
                        format_percent(p),
                        signed(change, 1),
                        format_percent(max)
                    );
                    let passed = change >= -max;
                    outcomes.push(Outcome::of(
                        k,
                        "regression.pct_of_roof",
                        passed,
                        detail,
                        Some(change),
                        -max,
                        "pct_change",
                    ));
                }
            }
        }
        for b in &base.kernels {
            if matches!(names.counterpart(b, &base_names), Match::None) {
                notes.push(format!("{}: in the baseline but not in this analysis", label(b)));
            }
        }
    }
    CheckReport { outcomes, baseline_replaced, notes }
}

/// What differs between the roofs two analyses were judged against, if
/// anything: the machine's name, else which roofs.
pub fn roofs_differ(before: &roofline_model::Machine, after: &roofline_model::Machine) -> Option<String> {
    if before == after {
        return None;
    }
    if before.name != after.name {
        return Some(format!(
            "the baseline was judged against {:?}, this analysis against {:?}",
            before.name, after.name
        ));
    }
    let text = |m: &roofline_model::Machine| serde_json::to_value(m).ok();
    let (b, a) = (text(before), text(after));
    let fields: Vec<String> = match (b, a) {
        (Some(serde_json::Value::Object(b)), Some(serde_json::Value::Object(a))) => {
            a.iter().filter(|(k, v)| b.get(*k) != Some(v)).map(|(k, _)| k.clone()).collect()
        }
        _ => Vec::new(),
    };
    Some(format!(
        "the baseline and this analysis were judged against different roofs of {:?} (they differ in: {})",
        after.name,
        if fields.is_empty() { "their values".to_string() } else { fields.join(", ") }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_percentage_is_echoed_short_not_as_309_digits() {
        let e = pct("command line", "--min-pct-of-roof", 1e308, 100.0).unwrap_err().to_string();
        assert!(e.contains("1e308") && e.len() < 200, "{e}");
        let e = pct("command line", "--min-pct-of-roof", 150.5, 100.0).unwrap_err().to_string();
        assert!(e.contains("150.5"), "{e}");
    }
    use crate::estimate::parse_kernel_spec;
    use crate::schema::{AnalysisSource, Producer};
    use roofline_analysis::analyze;
    use roofline_model::{FlopKind, Machine};

    fn doc(specs: &[&str]) -> AnalysisDocument {
        let m = Machine::simple("T4", FlopKind::Fp32, 8141e9, 320e9);
        let ks: Vec<_> = specs.iter().map(|s| parse_kernel_spec(s).unwrap()).collect();
        let src = AnalysisSource { kind: "model".into(), detail: String::new(), byte_convention: None };
        AnalysisDocument::new(Producer::new("test"), src, m.clone(), analyze(&m, &ks))
    }

    // vecadd at 257 GB/s of 320 (80%), a slow copy at 40%, a tiny kernel at 10%.
    fn app() -> AnalysisDocument {
        doc(&[
            "vecadd: flops=1 bytes=12 elements=33554432 time=1.5667ms",
            "slow: flops=1 bytes=12 elements=33554432 time=3.1457ms",
            "tiny: flops=1 bytes=12 elements=1000 time=0.000375ms",
        ])
    }

    #[test]
    fn share_and_pct_of_roof() {
        let rules = Rules::from_toml("min_time_share_pct = 5\nmin_pct_of_roof = 60\n", "c.toml").unwrap();
        let r = check(&app(), &rules, None);
        assert!(!r.passed());
        let fails: Vec<_> = r.failures().collect();
        assert_eq!(fails.len(), 1);
        assert_eq!(fails[0].kernel, "slow");
        assert!(fails[0].detail.contains("40% of the DRAM bandwidth roof, < 60%"), "{}", fails[0].detail);
        assert!(r.notes.iter().any(|n| n.starts_with("tiny:")), "{:?}", r.notes);
        assert_eq!(r.outcomes.len(), 2);
    }

    #[test]
    fn named_kernel_limit_replaces_the_general_one() {
        let text = "min_pct_of_roof = 60\n[[kernel]]\nname = \"slow\"\nmin_pct_of_roof = 30\nmax_time = \"3 ms\"\n";
        let r = check(&app(), &Rules::from_toml(text, "c.toml").unwrap(), None);
        let fails: Vec<_> = r.failures().map(|o| (o.kernel.as_str(), o.rule.as_str())).collect();
        // tiny (no share floor) fails at 10%; slow passes 30% but is over 3 ms.
        assert_eq!(fails, [("tiny", "min_pct_of_roof"), ("slow", "kernel.max_time")]);
    }

    #[test]
    fn missing_named_kernel_fails_with_the_list() {
        let rules = Rules { kernels: vec![Rules::parse_kernel_flag("fused=80").unwrap()], ..Rules::default() };
        let r = check(&app(), &rules, None);
        let f = r.failures().next().unwrap();
        assert_eq!(f.rule, "kernel.present");
        assert!(f.detail.contains("vecadd, slow, tiny"), "{}", f.detail);
    }

    #[test]
    fn baseline_regression() {
        let base = doc(&["vecadd: flops=1 bytes=12 elements=33554432 time=1.5ms", "gone: flops=1 bytes=8 time=1ms"]);
        let now = doc(&["vecadd: flops=1 bytes=12 elements=33554432 time=1.8ms"]);
        let rules = Rules { baseline: Some("b.json".into()), max_regression_pct: Some(10.0), ..Rules::default() };
        rules.validate("flags").unwrap();
        let r = check(&now, &rules, Some(&base));
        let fails: Vec<_> = r.failures().map(|o| o.rule.as_str()).collect();
        assert_eq!(fails, ["regression.time", "regression.pct_of_roof"]);
        assert!(r.outcomes[0].detail.contains("+20.0%"), "{}", r.outcomes[0].detail);
        assert!(r.notes.iter().any(|n| n.contains("gone")));
        let ok = Rules { max_regression_pct: Some(25.0), ..rules };
        assert!(check(&now, &ok, Some(&base)).passed());
    }

    #[test]
    fn launches_that_share_a_name_are_matched_by_id() {
        let mut d = doc(&["k: flops=1 bytes=12 elements=1000 time=1us", "k: flops=1 bytes=12 elements=1000 time=9us"]);
        d.kernels[0].kernel.id = "k1-0".into();
        d.kernels[1].kernel.id = "k1-1".into();
        let rules = Rules { baseline: Some("b.json".into()), max_regression_pct: Some(0.0), ..Rules::default() };
        let r = check(&d, &rules, Some(&d));
        assert!(r.passed(), "{:?}", r.outcomes);
        assert_eq!(r.outcomes.len(), 4);
        // Named rules hold every launch of the name.
        let rules = Rules { kernels: vec![Rules::parse_kernel_flag("k=0").unwrap()], ..Rules::default() };
        assert_eq!(check(&d, &rules, None).outcomes.len(), 2);
    }

    #[test]
    fn an_analysis_without_durations_has_nothing_to_judge() {
        assert!(nothing_to_judge(&doc(&["k: flops=1 bytes=12"])).unwrap().contains("no duration"));
        assert!(nothing_to_judge(&app()).is_none());
    }

    #[test]
    fn unknown_key_is_named() {
        let e = Rules::from_toml("min_pct_of_rooof = 60\n", "ci.toml").unwrap_err().to_string();
        assert!(e.contains("ci.toml") && e.contains("min_pct_of_rooof") && e.contains("known keys"), "{e}");
        let e = Rules::from_toml("[[kernel]]\nname = \"x\"\nmax_tim = 1\n", "ci.toml").unwrap_err().to_string();
        assert!(e.contains("max_tim"), "{e}");
    }

    #[test]
    fn bad_values_are_refused() {
        assert!(Rules::from_toml("min_pct_of_roof = 160\n", "c").unwrap_err().to_string().contains("0 to 100"));
        let e = Rules::from_toml("[[kernel]]\nname = \"x\"\nmax_time = \"fast\"\n", "c").unwrap_err().to_string();
        assert!(e.contains("max_time") && e.contains("duration"), "{e}");
        assert!(Rules::default().validate("c").is_err());
        let half = Rules { baseline: Some("b".into()), ..Rules::default() };
        assert!(half.validate("c").unwrap_err().to_string().contains("needs max_regression_pct"));
        assert!(Rules::parse_kernel_flag("fused").is_err());
        assert!(Rules::parse_kernel_flag("=50").unwrap_err().to_string().contains("name"));
        assert!(Rules::parse_kernel_flag("fused=x").is_err());
    }
}
