//! Derived values of an analysis, checked against what they derive from.
//!
//! An analysis stores its derived figures (a kernel's share of GPU time,
//! its FLOP/s, % of roof) beside their inputs (FLOPs, bytes, duration, the
//! roofs it was placed under). `check` gates CI on the derived ones, so a
//! document edited to say `time_share: -1` or `pct_of_roof: 1e30` would
//! turn a failing gate into a passing one. Every analysis read is therefore
//! checked here: each derived figure is recomputed from its inputs, as
//! `roofline-analysis` computes it, and a figure that differs by more than
//! [`TOLERANCE`] (relative; JSON round trips and summation order stay far
//! below it) is refused with its JSON path.
//!
//! What is taken as given: the kernel's own numbers (FLOPs, bytes,
//! duration, launches) and the roofs of record (`compute_roof_flops_per_s`,
//! each level's `bandwidth`, a collective's `roof_bytes_per_s`): a kernel
//! may have been placed under its own counter roofs, not the document's
//! machine. Shares of time: each within 0..1, all together at most 1. Where
//! the program's GPU time is the kernels' own (every source but `profile`'s
//! timeline), each share is the kernel's duration over the program's time.
//! A timeline's time includes kernels it did not profile, and a profiled
//! kernel's counted duration is that of its replayed launches only, so
//! there a share is checked against the program view's own time for the
//! kernel (its opportunity), where the view lists one.

use roofline_analysis::KernelAnalysis;
use roofline_model::attainable;

/// A derived figure that does not match what it derives from: its JSON
/// path, its value (compact) and what is wrong. `schema` turns it into a
/// [`crate::DocumentError`] naming the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Inconsistent {
    /// The field's JSON path (`kernels[3].pct_of_roof`).
    pub field: String,
    /// Its value as written, compact.
    pub value: String,
    /// What is wrong with it.
    pub problem: String,
}

/// What a document's program view says, checked against its kernels.
#[derive(Debug, Clone, PartialEq, Default, serde::Deserialize)]
pub struct ProgramFigures {
    /// The program's GPU time, seconds.
    pub total_s: f64,
    /// Whether that time is a timeline's, not the kernels' own durations
    /// (`roofline_analysis::ProgramView::from_timeline`).
    #[serde(default)]
    pub from_timeline: bool,
    /// Its opportunities.
    #[serde(default)]
    pub opportunities: Vec<OpportunityFigures>,
    /// Its GPU time per verdict.
    #[serde(default)]
    pub by_verdict: Vec<VerdictSeconds>,
}

/// What the program view says of one verdict's GPU time.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct VerdictSeconds {
    /// The verdict.
    pub verdict: roofline_analysis::Verdict,
    /// Its GPU time, seconds.
    #[serde(default)]
    pub seconds: f64,
}

/// What the program view says of one opportunity, checked against the kernels.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct OpportunityFigures {
    /// The kernel's ID.
    pub id: String,
    /// Its GPU time, seconds.
    #[serde(default)]
    pub seconds: f64,
    /// Seconds it would save.
    #[serde(default)]
    pub saved_s: f64,
}

/// Relative difference allowed between a stored figure and its recomputation.
pub const TOLERANCE: f64 = 1e-6;

fn close(stored: f64, recomputed: f64) -> bool {
    let scale = stored.abs().max(recomputed.abs());
    (stored - recomputed).abs() <= TOLERANCE * scale || scale < 1e-300
}

fn inconsistent(field: String, value: f64, expected: String) -> Inconsistent {
    Inconsistent {
        field,
        value: roofline_model::format_number(value),
        problem: format!("does not match what it derives from ({expected})"),
    }
}

/// Compares an optional stored figure with its recomputation: both absent,
/// or both present and [`close`].
fn same(
    field: impl Fn() -> String,
    stored: Option<f64>,
    recomputed: Option<f64>,
    what: &str,
) -> Result<(), Inconsistent> {
    match (stored, recomputed) {
        (None, None) => Ok(()),
        (Some(s), Some(r)) if close(s, r) => Ok(()),
        (Some(s), Some(r)) => {
            Err(inconsistent(field(), s, format!("{what} gives {}", roofline_model::format_number(r))))
        }
        (Some(s), None) => Err(inconsistent(field(), s, format!("{what} gives none"))),
        (None, Some(r)) => Err(Inconsistent {
            field: field(),
            value: "absent".into(),
            problem: format!("is missing: {what} gives {}", roofline_model::format_number(r)),
        }),
    }
}

/// Checks every kernel's derived figures and the shares of time against
/// the document's program view (`program`, when it has one). Every kernel
/// the view's opportunities name must be one of the document's: a document
/// whose failing kernels were deleted still names them there. An
/// opportunity's savings must lie within its kernel's time, and that within
/// the program's.
pub fn check_derived_with(kernels: &[KernelAnalysis], program: Option<&ProgramFigures>) -> Result<(), Inconsistent> {
    check_opportunities(program, |id| kernels.iter().any(|k| k.kernel.id == id))?;
    for (i, k) in kernels.iter().enumerate() {
        check_kernel_at(k, i)?;
    }
    let facts: Vec<ShareFacts> = kernels.iter().map(ShareFacts::of).collect();
    check_shares(&facts, program)
}

/// What the shares of time are checked with, of one kernel: all that a
/// reader that streams the kernels (`crate::stream`) keeps of each for
/// [`check_shares`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ShareFacts {
    /// The kernel's ID, which the program view's opportunities name.
    pub id: String,
    /// Its stored share of GPU time.
    pub time_share: Option<f64>,
    /// Its duration, when positive and finite.
    pub timed: Option<f64>,
    /// Its verdict, for the timeline's time per verdict.
    pub verdict: roofline_analysis::Verdict,
}

impl ShareFacts {
    pub(crate) fn of(k: &KernelAnalysis) -> ShareFacts {
        ShareFacts {
            id: k.kernel.id.clone(),
            time_share: k.time_share,
            timed: k.kernel.duration_s.filter(|d| d.is_finite() && *d > 0.0),
            verdict: roofline_analysis::Verdict::of(k),
        }
    }
}

/// The program view's opportunities: their seconds within the program's,
/// their savings within their seconds, and each naming a kernel of the
/// document (`is_kernel`).
pub(crate) fn check_opportunities(
    program: Option<&ProgramFigures>,
    is_kernel: impl Fn(&str) -> bool,
) -> Result<(), Inconsistent> {
    let program_total_s = program.map(|p| p.total_s);
    let opportunities = program.map(|p| p.opportunities.as_slice()).unwrap_or_default();
    for (i, o) in opportunities.iter().enumerate() {
        let total = program_total_s.unwrap_or(f64::INFINITY);
        let bad = |field: &str, v: f64, problem: &str| Inconsistent {
            field: format!("program.opportunities[{i}].{field}"),
            value: roofline_model::format_number(v),
            problem: problem.into(),
        };
        if !(o.seconds >= 0.0 && o.seconds <= total * (1.0 + TOLERANCE)) {
            return Err(bad("seconds", o.seconds, "a kernel's GPU time must be within 0 and the program's"));
        }
        if !(o.saved_s >= 0.0 && o.saved_s <= o.seconds * (1.0 + TOLERANCE)) {
            return Err(bad("saved_s", o.saved_s, "a saving must be within 0 and the kernel's own GPU time"));
        }
    }
    for (i, o) in opportunities.iter().enumerate() {
        if !is_kernel(&o.id) {
            return Err(Inconsistent {
                field: format!("program.opportunities[{i}].id"),
                value: o.id.chars().filter(|c| !c.is_control()).take(40).collect(),
                problem: "names a kernel that is not in kernels[] (were kernels removed from the document?)".into(),
            });
        }
    }
    Ok(())
}

/// One kernel's derived figures, `i` being its place in `kernels[]`.
pub(crate) fn check_kernel_at(k: &KernelAnalysis, i: usize) -> Result<(), Inconsistent> {
    check_kernel(k, &format!("kernels[{i}]"))
}

fn check_kernel(k: &KernelAnalysis, at: &str) -> Result<(), Inconsistent> {
    let f = |name: &str| format!("{at}.{name}");
    let total = k.kernel.total_flops();
    if !close(k.total_flops, total) {
        return Err(inconsistent(
            f("total_flops"),
            k.total_flops,
            format!("the sum of kernel.flops is {}", roofline_model::format_number(total)),
        ));
    }
    let duration = k.kernel.duration_s.filter(|d| *d > 0.0 && d.is_finite());
    let achieved = duration.map(|d| total / d);
    same(|| f("achieved_flops_per_s"), k.achieved_flops_per_s, achieved, "total_flops / kernel.duration_s")?;
    let mut best = k.compute_roof_flops_per_s;
    for (j, p) in k.levels.iter().enumerate() {
        let g = |name: &str| format!("{at}.levels[{j}].{name}");
        let bytes = k.kernel.bytes.get(&p.level).copied();
        if bytes.is_none_or(|b| !close(p.bytes, b)) {
            let expected = match bytes {
                Some(b) => format!("kernel.bytes.{} is {}", p.level.key(), roofline_model::format_number(b)),
                None => format!("kernel.bytes has no {}", p.level.key()),
            };
            return Err(inconsistent(g("bytes"), p.bytes, expected));
        }
        let intensity = (p.bytes > 0.0 && total > 0.0).then(|| total / p.bytes);
        same(|| g("intensity"), p.intensity, intensity, "total_flops / bytes")?;
        let here = match (k.compute_roof_flops_per_s, p.bandwidth, intensity) {
            (Some(pi), Some(beta), Some(i)) => Some(attainable(pi, beta, i)),
            _ => None,
        };
        same(
            || g("attainable_flops_per_s"),
            p.attainable_flops_per_s,
            here,
            "min(compute roof, bandwidth x intensity)",
        )?;
        if let Some(a) = here.filter(|_| p.measured()) {
            if best.is_none_or(|b| a < b) {
                best = Some(a);
            }
        }
        let achieved_bw = duration.map(|d| p.bytes / d);
        same(|| g("achieved_bytes_per_s"), p.achieved_bytes_per_s, achieved_bw, "bytes / kernel.duration_s")?;
        let pct_bw = match (achieved_bw, p.bandwidth) {
            (Some(a), Some(b)) if b > 0.0 => Some(100.0 * a / b),
            _ => None,
        };
        same(|| g("pct_of_bandwidth"), p.pct_of_bandwidth, pct_bw, "100 x achieved_bytes_per_s / bandwidth")?;
        if let Some(m) = &p.mix {
            if !(0.0..=1.0).contains(&m.read_share) {
                return Err(Inconsistent {
                    field: g("mix.read_share"),
                    value: roofline_model::format_number(m.read_share),
                    problem: "a share must be within 0..1".into(),
                });
            }
            let pct = achieved_bw.filter(|_| m.bytes_per_s > 0.0).map(|a| 100.0 * a / m.bytes_per_s);
            same(|| g("mix.pct"), m.pct, pct, "100 x achieved_bytes_per_s / mix.bytes_per_s")?;
        }
    }
    let pct = match &k.collective {
        Some(c) => {
            let achieved = match (c.bus_bytes, duration) {
                (Some(b), Some(d)) => Some(b / d),
                _ => None,
            };
            let collective = |name: &str| format!("{at}.collective.{name}");
            same(
                || collective("achieved_bytes_per_s"),
                c.achieved_bytes_per_s,
                achieved,
                "bus_bytes / kernel.duration_s",
            )?;
            let pct = match (achieved, c.roof_bytes_per_s) {
                (Some(a), Some(r)) if r > 0.0 => Some(100.0 * a / r),
                _ => None,
            };
            same(|| collective("pct_of_roof"), c.pct_of_roof, pct, "100 x achieved_bytes_per_s / roof_bytes_per_s")?;
            pct
        }
        None if total > 0.0 => {
            let attainable = best;
            same(
                || f("attainable_flops_per_s"),
                k.attainable_flops_per_s,
                attainable,
                "the lowest roof over compute and the measured levels",
            )?;
            match (achieved, attainable) {
                (Some(a), Some(r)) if r > 0.0 => Some(100.0 * a / r),
                _ => None,
            }
        }
        None => k.levels.iter().filter(|p| p.measured()).filter_map(|p| p.pct_of_bandwidth).max_by(f64::total_cmp),
    };
    let what = match (&k.collective, total > 0.0) {
        (Some(_), _) => "collective.pct_of_roof",
        (None, true) => "100 x achieved_flops_per_s / attainable_flops_per_s",
        (None, false) => "the best measured level's pct_of_bandwidth",
    };
    same(|| f("pct_of_roof"), k.pct_of_roof, pct, what)
}

fn share_error(field: String, value: f64, problem: String) -> Inconsistent {
    Inconsistent { field, value: roofline_model::format_number(value), problem }
}

pub(crate) fn check_shares(kernels: &[ShareFacts], program: Option<&ProgramFigures>) -> Result<(), Inconsistent> {
    let program_total_s = program.map(|p| p.total_s);
    let mut sum = 0.0;
    for (i, k) in kernels.iter().enumerate() {
        let Some(s) = k.time_share else { continue };
        let field = format!("kernels[{i}].time_share");
        if !(0.0..=1.0 + TOLERANCE).contains(&s) {
            return Err(share_error(field, s, "a share of GPU time must be within 0..1".into()));
        }
        sum += s;
    }
    if sum > 1.0 + TOLERANCE {
        return Err(share_error(
            "kernels[*].time_share".into(),
            sum,
            "the shares of GPU time add up to more than 1".into(),
        ));
    }
    if let Some(p) = program.filter(|p| p.total_s > 0.0 && p.total_s.is_finite()) {
        for (i, k) in kernels.iter().enumerate() {
            let Some(s) = k.time_share else { continue };
            let field = || format!("kernels[{i}].time_share");
            if p.from_timeline {
                // The timeline's own time for the kernel, where the view names it.
                if let Some(o) = p.opportunities.iter().find(|o| o.id == k.id) {
                    same(field, Some(s), Some(o.seconds / p.total_s), "its opportunity's seconds / program.total_s")?;
                }
            } else if let Some(d) = k.timed {
                // A share is of the program's GPU time: share x that time is
                // the kernel's own duration, whatever else the program ran.
                same(field, Some(s), Some(d / p.total_s), "kernel.duration_s / program.total_s")?;
            }
        }
        if p.from_timeline {
            // Each verdict's time is its kernels' timeline time: their shares
            // add up to it (launches without counters aside).
            for (i, v) in p.by_verdict.iter().enumerate() {
                if v.verdict == roofline_analysis::Verdict::NoCounters {
                    continue;
                }
                let sum: f64 = kernels.iter().filter(|k| k.verdict == v.verdict).filter_map(|k| k.time_share).sum();
                let want = v.seconds / p.total_s;
                if !close(sum, want) && (sum - want).abs() > 1e-12 {
                    return Err(inconsistent(
                        format!("program.by_verdict[{i}].seconds"),
                        v.seconds,
                        format!(
                            "the shares of its kernels x program.total_s give {}",
                            roofline_model::format_number(sum * p.total_s)
                        ),
                    ));
                }
            }
        }
    }
    // Shares of the kernels' own summed time: each is its duration over that sum.
    let total: f64 = kernels.iter().filter_map(|k| k.timed).sum();
    let timeline = program.is_some_and(|p| p.from_timeline);
    let own_time = !timeline && program_total_s.is_some_and(|t| total > 0.0 && close(t, total));
    if own_time {
        for (i, k) in kernels.iter().enumerate() {
            let expected = k.timed.map(|d| d / total);
            same(
                || format!("kernels[{i}].time_share"),
                k.time_share,
                expected,
                "kernel.duration_s / the kernels' summed duration",
            )?;
        }
    }
    Ok(())
}
