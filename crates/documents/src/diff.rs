//! Before and after: what changed per kernel between two analyses.
//!
//! Kernels are matched by their full name (then by display name), because
//! that is what stays the same when a kernel is rewritten. A rewrite that
//! changes the set of kernels (seed 000's fusion: `scale` + `add` become
//! `fused`) has no name to match on, so the user can pair groups of kernels
//! (`scale+add=fused`), and every diff also compares the whole program
//! (all kernels together), where fusion shows as fewer bytes for the same
//! FLOPs and less time. Groups are judged by re-placing their summed FLOPs,
//! bytes and time under the document's own machine.

use std::collections::{BTreeMap, HashMap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::schema::AnalysisDocument;
use roofline_analysis::{analyze_kernel, Bound, KernelAnalysis};
use roofline_model::Kernel;
use roofline_model::{Machine, MemLevel, Origin};

/// A user's pairing of kernels that changed names: `before` (one or more
/// names) became `after`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pairing {
    /// Kernel names before the change.
    pub before: Vec<String>,
    /// Kernel names after the change.
    pub after: Vec<String>,
}

impl Pairing {
    /// Parses `OLD=NEW`, each side one name or several joined by `+`
    /// (`scale+add=fused`).
    pub fn parse(spec: &str) -> Result<Pairing, DiffError> {
        let bad = |problem: &str| DiffError::Pairing { spec: spec.into(), problem: problem.into() };
        let (b, a) = spec.split_once('=').ok_or_else(|| bad("no '=' between the before and after names"))?;
        let side = |s: &str| s.split('+').map(|n| n.trim().to_string()).filter(|n| !n.is_empty()).collect::<Vec<_>>();
        let (before, after) = (side(b), side(a));
        if before.is_empty() || after.is_empty() {
            return Err(bad("a side is empty"));
        }
        Ok(Pairing { before, after })
    }
}

/// A diff could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DiffError {
    /// A `--match` argument that does not parse.
    #[error("--match {spec:?}: {problem}; write it as BEFORE=AFTER, several kernels joined by '+' (scale+add=fused)")]
    Pairing {
        /// The `--match` argument.
        spec: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A `--match` name that is not a kernel of that side.
    #[error("--match names kernel {name:?}, which is not in the {side} analysis; its kernels are: {known}")]
    UnknownKernel {
        /// The name.
        name: String,
        /// "before" or "after".
        side: &'static str,
        /// That side's kernel names, comma separated.
        known: String,
    },
    /// A kernel named in two `--match` pairings.
    #[error("kernel {name:?} is named twice in --match")]
    PairedTwice {
        /// The name.
        name: String,
    },
    /// A side with no kernels.
    #[error("the {side} analysis has no kernels; profile or model something first")]
    Empty {
        /// "before" or "after".
        side: &'static str,
    },
}

/// One side (before or after) of a row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Side {
    /// The kernel names on this side (several for a group or the total).
    pub kernels: Vec<String>,
    /// Summed duration, seconds; `None` for paper estimates.
    pub duration_s: Option<f64>,
    /// FLOPs of every kind.
    pub total_flops: f64,
    /// Bytes per memory level.
    pub bytes: BTreeMap<MemLevel, f64>,
    /// FLOP/byte per memory level.
    pub intensity: BTreeMap<MemLevel, f64>,
    /// FLOP/s reached (needs a duration).
    pub achieved_flops_per_s: Option<f64>,
    /// The lowest roof over the levels, FLOP/s.
    pub attainable_flops_per_s: Option<f64>,
    /// % of the roof that applies (see [`KernelAnalysis::pct_of_roof`]).
    pub pct_of_roof: Option<f64>,
    /// Memory- or compute-bound.
    pub bound: Option<Bound>,
    /// Share of its side's kernel time, 0..1.
    pub time_share: Option<f64>,
}

impl Side {
    fn from_analysis(a: &KernelAnalysis, names: Vec<String>) -> Side {
        Side {
            kernels: names,
            duration_s: a.kernel.duration_s,
            total_flops: a.total_flops,
            bytes: a.kernel.bytes.clone(),
            intensity: a.levels.iter().filter_map(|p| p.intensity.map(|i| (p.level, i))).collect(),
            achieved_flops_per_s: a.achieved_flops_per_s,
            attainable_flops_per_s: a.attainable_flops_per_s,
            pct_of_roof: a.pct_of_roof,
            bound: a.bound,
            time_share: a.time_share,
        }
    }

    /// The intensity drawn and compared: DRAM's, else the first level's.
    pub fn headline_intensity(&self) -> Option<(MemLevel, f64)> {
        self.intensity
            .get(&MemLevel::Dram)
            .map(|i| (MemLevel::Dram, *i))
            .or_else(|| self.intensity.iter().next().map(|(l, i)| (*l, *i)))
    }

    /// Where the side is drawn: its achieved FLOP/s, or its roof for a
    /// paper estimate with no time.
    pub fn plotted_flops_per_s(&self) -> Option<f64> {
        self.achieved_flops_per_s.or(self.attainable_flops_per_s)
    }
}

/// How a row was formed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowKind {
    /// Same name on both sides.
    Matched,
    /// A `--match` pairing.
    Paired,
    /// Only before: the kernel is gone.
    Removed,
    /// Only after: a new kernel.
    Added,
    /// All kernels of each side together.
    Total,
}

/// One line of the diff.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiffRow {
    /// Kernel display name; `a + b -> c` for a pairing; "all kernels" for the total.
    pub name: String,
    /// Matched, paired, removed, added or total.
    pub kind: RowKind,
    /// The before side; `None` for an added kernel.
    pub before: Option<Side>,
    /// The after side; `None` for a removed kernel.
    pub after: Option<Side>,
    /// How much one launch's time varies in these captures, percent: half
    /// the range of the launches of this kernel (by full name) over their
    /// median, the larger of the two sides'. Known when a capture holds
    /// several launches as entries of their own (`--per-launch`); a change
    /// within it, or within [`SAME_WITHIN_PCT`], reads "same within noise".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_pct: Option<f64>,
}

/// A change in time smaller than this (percent, either way) reads "same":
/// two ncu captures of one unchanged program differ by up to about 1% in a
/// kernel's duration (with `--clock-control none`), so a smaller change is
/// no evidence of a speed-up. Identical runs are "same", never "1.00x faster".
pub const SAME_WITHIN_PCT: f64 = 1.0;

impl DiffRow {
    /// Whether the time changed by less than the noise: the launches'
    /// spread ([`DiffRow::noise_pct`]) where known, and never less than
    /// [`SAME_WITHIN_PCT`].
    pub fn same_time(&self) -> bool {
        let noise = self.noise_pct.unwrap_or(0.0).max(SAME_WITHIN_PCT);
        self.time_change_pct().is_some_and(|p| p.abs() < noise)
    }

    /// Whether the launches' spread, wider than [`SAME_WITHIN_PCT`], is what
    /// makes the change "same" (so the view says how wide it is).
    pub fn same_by_spread(&self) -> bool {
        self.same_time()
            && self.noise_pct.is_some_and(|n| n > SAME_WITHIN_PCT)
            && self.time_change_pct().is_some_and(|p| p.abs() >= SAME_WITHIN_PCT)
    }

    /// before / after duration: 1.5 means 1.5x faster.
    pub fn speedup(&self) -> Option<f64> {
        let (b, a) = (self.before.as_ref()?.duration_s?, self.after.as_ref()?.duration_s?);
        (a > 0.0 && b > 0.0).then(|| b / a)
    }

    /// Relative change in time, percent (negative is faster).
    pub fn time_change_pct(&self) -> Option<f64> {
        let (b, a) = (self.before.as_ref()?.duration_s?, self.after.as_ref()?.duration_s?);
        (b > 0.0).then(|| 100.0 * (a - b) / b)
    }

    /// after / before of the headline (DRAM) intensity.
    pub fn intensity_ratio(&self) -> Option<f64> {
        let b = self.before.as_ref()?.headline_intensity()?;
        let a = self.after.as_ref()?.headline_intensity()?;
        (b.1 > 0.0).then(|| a.1 / b.1)
    }

    /// Change in % of roof, in percentage points.
    pub fn pct_of_roof_change(&self) -> Option<f64> {
        Some(self.after.as_ref()?.pct_of_roof? - self.before.as_ref()?.pct_of_roof?)
    }
}

/// The whole diff: rows in a stable order (matched and paired kernels by
/// before-time, then removed, then added, then the total).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diff {
    /// One row per kernel or pairing, then the total.
    pub rows: Vec<DiffRow>,
    /// Things the reader must know (different machines, unmatched kernels).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Diff {
    /// The row of all kernels together, if made.
    pub fn total(&self) -> Option<&DiffRow> {
        self.rows.iter().find(|r| r.kind == RowKind::Total)
    }
}

fn label(k: &KernelAnalysis) -> String {
    if k.kernel.display_name.is_empty() {
        k.kernel.name.clone()
    } else {
        k.kernel.display_name.clone()
    }
}

/// A kernel's family: its function's own name, without namespaces,
/// template arguments or the ID a display name may carry
/// (`at::native::<…>::multi_tensor_apply_kernel<unnamed> [k5269a1]` ->
/// `multi_tensor_apply_kernel`).
fn family(name: &str) -> String {
    let mut flat = String::with_capacity(name.len());
    let mut depth = 0usize;
    for c in name.split(" [").next().unwrap_or(name).chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            '(' if depth == 0 => break,
            _ if depth == 0 => flat.push(c),
            _ => {}
        }
    }
    flat.rsplit("::").next().unwrap_or(&flat).trim().to_string()
}

/// The kernels a `--match` example pairs, when one would make sense: those
/// of one family on both sides (a kernel rewritten under its own name), else
/// all of them when there are few (a fusion: `scale+add=fused`). Unrelated
/// kernels in numbers (six optimizer kernels gone, one GEMM shape new) get
/// no example: pairing them would compare unlike work.
fn match_example(
    before: &AnalysisDocument,
    removed: &[usize],
    after: &AnalysisDocument,
    added: &[usize],
) -> Option<(Vec<usize>, Vec<usize>)> {
    for &j in added {
        let f = family(&label(&after.kernels[j]));
        let b: Vec<usize> = removed.iter().copied().filter(|&i| family(&label(&before.kernels[i])) == f).collect();
        if !b.is_empty() {
            let a = added.iter().copied().filter(|&k| family(&label(&after.kernels[k])) == f).collect();
            return Some((b, a));
        }
    }
    (removed.len() + added.len() <= 4).then(|| (removed.to_vec(), added.to_vec()))
}

/// Half the range of the launch times of `k`'s kernel over their median,
/// percent: the entries of `doc` with its full name and the same work (FLOPs
/// and bytes at every level within 1%: launches of another shape are no
/// measure of noise), when there are two or more (a `--per-launch`
/// capture); `None` otherwise. `named` is [`by_name`] of `doc`: looking
/// through every kernel for each one made a diff of 100,000 kernels take
/// minutes.
fn launch_noise_pct(doc: &AnalysisDocument, named: &HashMap<&str, Vec<usize>>, k: &KernelAnalysis) -> Option<f64> {
    let close = |a: f64, b: f64| (a - b).abs() <= 0.01 * a.abs().max(b.abs());
    let same_work = |o: &KernelAnalysis| {
        close(o.kernel.total_flops(), k.kernel.total_flops())
            && o.kernel.bytes.len() == k.kernel.bytes.len()
            && o.kernel.bytes.iter().all(|(level, b)| k.kernel.bytes.get(level).is_some_and(|c| close(*b, *c)))
    };
    let times: Vec<f64> = named
        .get(k.kernel.name.as_str())?
        .iter()
        .map(|&i| &doc.kernels[i])
        .filter(|o| same_work(o))
        .filter_map(|o| o.kernel.duration_s)
        .filter(|d| d.is_finite() && *d > 0.0)
        .collect();
    if times.len() < 2 {
        return None;
    }
    roofline_model::Spread::from_samples(&times).ok().map(|s| 50.0 * s.relative_range())
}

/// The kernels of `doc` by full name, in document order.
fn by_name(doc: &AnalysisDocument) -> HashMap<&str, Vec<usize>> {
    let mut named: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, k) in doc.kernels.iter().enumerate() {
        named.entry(k.kernel.name.as_str()).or_default().push(i);
    }
    named
}

/// Sums kernels into one and places it under `machine`.
pub(crate) fn aggregate(machine: &Machine, name: &str, ks: &[&KernelAnalysis]) -> KernelAnalysis {
    let mut k = Kernel::named(name, ks.first().map(|k| k.kernel.origin).unwrap_or(Origin::User));
    k.launches = 0;
    let mut duration = Some(0.0);
    for a in ks {
        for (kind, f) in &a.kernel.flops {
            *k.flops.entry(*kind).or_insert(0.0) += f;
        }
        for (level, b) in &a.kernel.bytes {
            *k.bytes.entry(*level).or_insert(0.0) += b;
        }
        duration = match (duration, a.kernel.duration_s) {
            (Some(t), Some(d)) => Some(t + d),
            _ => None,
        };
        k.launches += a.kernel.launches;
    }
    k.duration_s = duration;
    let mut out = analyze_kernel(machine, &k);
    out.time_share = ks.iter().map(|a| a.time_share).sum::<Option<f64>>();
    out
}

fn find(doc: &AnalysisDocument, name: &str) -> Option<usize> {
    doc.kernels
        .iter()
        .position(|k| k.kernel.name == name)
        .or_else(|| doc.kernels.iter().position(|k| k.kernel.display_name == name))
}

fn known(doc: &AnalysisDocument) -> String {
    roofline_model::bounded(&doc.kernels.iter().map(|k| format!("{:?}", label(k))).collect::<Vec<_>>(), ", ")
}

/// Compares two analyses.
pub fn diff(before: &AnalysisDocument, after: &AnalysisDocument, pairings: &[Pairing]) -> Result<Diff, DiffError> {
    if before.kernels.is_empty() {
        return Err(DiffError::Empty { side: "before" });
    }
    if after.kernels.is_empty() {
        return Err(DiffError::Empty { side: "after" });
    }
    let mut used_b = vec![false; before.kernels.len()];
    let mut used_a = vec![false; after.kernels.len()];
    let mut rows = Vec::new();

    for p in pairings {
        let take = |doc: &AnalysisDocument, used: &mut [bool], names: &[String], side: &'static str| {
            let mut idx = Vec::new();
            for n in names {
                let i = find(doc, n).ok_or_else(|| DiffError::UnknownKernel {
                    name: n.clone(),
                    side,
                    known: known(doc),
                })?;
                if used[i] {
                    return Err(DiffError::PairedTwice { name: n.clone() });
                }
                used[i] = true;
                idx.push(i);
            }
            Ok(idx)
        };
        let bi = take(before, &mut used_b, &p.before, "before")?;
        let ai = take(after, &mut used_a, &p.after, "after")?;
        let side = |doc: &AnalysisDocument, idx: &[usize]| {
            let names: Vec<String> = idx.iter().map(|&i| label(&doc.kernels[i])).collect();
            if idx.len() == 1 {
                Side::from_analysis(&doc.kernels[idx[0]], names)
            } else {
                let ks: Vec<&KernelAnalysis> = idx.iter().map(|&i| &doc.kernels[i]).collect();
                Side::from_analysis(&aggregate(&doc.machine, &names.join(" + "), &ks), names)
            }
        };
        let b = side(before, &bi);
        let a = side(after, &ai);
        rows.push(DiffRow {
            name: format!("{} -> {}", b.kernels.join(" + "), a.kernels.join(" + ")),
            kind: RowKind::Paired,
            before: Some(b),
            after: Some(a),
            noise_pct: None,
        });
    }

    // Same name, by full name first, then by display name; each name's
    // kernels after the change are taken in order, through one index.
    let (named_b, named_a) = (by_name(before), by_name(after));
    for by_display in [false, true] {
        fn key(k: &KernelAnalysis, by_display: bool) -> &str {
            if by_display {
                &k.kernel.display_name
            } else {
                &k.kernel.name
            }
        }
        let mut unused: HashMap<&str, VecDeque<usize>> = HashMap::new();
        for (j, ak) in after.kernels.iter().enumerate().filter(|(j, _)| !used_a[*j]) {
            unused.entry(key(ak, by_display)).or_default().push_back(j);
        }
        for (i, bk) in before.kernels.iter().enumerate() {
            if used_b[i] {
                continue;
            }
            let Some(j) = unused.get_mut(key(bk, by_display)).and_then(VecDeque::pop_front) else {
                continue;
            };
            used_b[i] = true;
            used_a[j] = true;
            let noise = [launch_noise_pct(before, &named_b, bk), launch_noise_pct(after, &named_a, &after.kernels[j])];
            rows.push(DiffRow {
                name: label(bk),
                kind: RowKind::Matched,
                before: Some(Side::from_analysis(bk, vec![label(bk)])),
                after: Some(Side::from_analysis(&after.kernels[j], vec![label(&after.kernels[j])])),
                noise_pct: noise.into_iter().flatten().reduce(f64::max),
            });
        }
    }
    rows.sort_by(|x, y| {
        let t = |r: &DiffRow| r.before.as_ref().and_then(|s| s.duration_s).unwrap_or(0.0);
        t(y).total_cmp(&t(x)).then_with(|| x.name.cmp(&y.name))
    });

    let mut notes = Vec::new();
    let removed: Vec<usize> = (0..before.kernels.len()).filter(|&i| !used_b[i]).collect();
    let added: Vec<usize> = (0..after.kernels.len()).filter(|&j| !used_a[j]).collect();
    for &i in &removed {
        let k = &before.kernels[i];
        rows.push(DiffRow {
            name: label(k),
            kind: RowKind::Removed,
            before: Some(Side::from_analysis(k, vec![label(k)])),
            after: None,
            noise_pct: None,
        });
    }
    for &j in &added {
        let k = &after.kernels[j];
        rows.push(DiffRow {
            name: label(k),
            kind: RowKind::Added,
            before: None,
            after: Some(Side::from_analysis(k, vec![label(k)])),
            noise_pct: None,
        });
    }
    if !removed.is_empty() && !added.is_empty() {
        let names = |doc: &AnalysisDocument, ids: &[usize]| {
            ids.iter().map(|&i| label(&doc.kernels[i])).collect::<Vec<_>>().join("+")
        };
        let example = match match_example(before, &removed, after, &added) {
            Some((b, a)) => format!(", for example --match {}={}", names(before, &b), names(after, &a)),
            None => String::new(),
        };
        notes.push(format!(
            "{} kernel(s) only before and {} only after: if they were rewritten (fused, renamed), pair them with --match BEFORE=AFTER{example}",
            removed.len(),
            added.len(),
        ));
    }
    if before.machine.name != after.machine.name {
        notes.push(format!(
            "the analyses use different machines ({:?} before, {:?} after): % of roof is against each one's own roofs",
            before.machine.name, after.machine.name
        ));
    }

    let all = |doc: &AnalysisDocument| {
        let ks: Vec<&KernelAnalysis> = doc.kernels.iter().collect();
        let names = ks.iter().map(|k| label(k)).collect();
        Side::from_analysis(&aggregate(&doc.machine, "all kernels", &ks), names)
    };
    rows.push(DiffRow {
        name: "all kernels".into(),
        kind: RowKind::Total,
        before: Some(all(before)),
        after: Some(all(after)),
        noise_pct: None,
    });
    Ok(Diff { rows, notes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::parse_kernel_spec;
    use crate::schema::{AnalysisSource, Producer};
    use roofline_analysis::analyze;
    use roofline_model::FlopKind;

    fn doc(specs: &[&str]) -> AnalysisDocument {
        let m = Machine::simple("T4", FlopKind::Fp32, 8141e9, 320e9);
        let ks: Vec<Kernel> = specs.iter().map(|s| parse_kernel_spec(s).unwrap()).collect();
        let src = AnalysisSource { kind: "model".into(), detail: String::new(), byte_convention: None };
        AnalysisDocument::new(Producer::new("test"), src, m.clone(), analyze(&m, &ks))
    }

    fn seed_000() -> (AnalysisDocument, AnalysisDocument) {
        let before = doc(&[
            "scale: flops=1 bytes=12 elements=16777216 time=0.77ms",
            "add: flops=1 bytes=12 elements=16777216 time=0.77ms",
        ]);
        let after = doc(&["fused: flops=2 bytes=16 elements=16777216 time=1.03ms"]);
        (before, after)
    }

    #[test]
    fn seed_000_fusion_total_row() {
        let (b, a) = seed_000();
        let d = diff(&b, &a, &[]).unwrap();
        let total = d.total().unwrap();
        let (_, ib) = total.before.as_ref().unwrap().headline_intensity().unwrap();
        let (_, ia) = total.after.as_ref().unwrap().headline_intensity().unwrap();
        assert!((ib - 2.0 / 24.0).abs() < 1e-12, "{ib}");
        assert!((ia - 2.0 / 16.0).abs() < 1e-12, "{ia}");
        let s = total.speedup().unwrap();
        assert!((s - 1.54 / 1.03).abs() < 1e-9 && s > 1.45 && s < 1.55, "{s}");
        assert_eq!(d.rows.iter().filter(|r| r.kind == RowKind::Removed).count(), 2);
        assert_eq!(d.rows.iter().filter(|r| r.kind == RowKind::Added).count(), 1);
        assert!(d.notes[0].contains("--match scale+add=fused"), "{:?}", d.notes);
    }

    #[test]
    fn a_match_example_pairs_kernels_of_one_family_never_unlike_work() {
        let before = doc(&[
            "at::native::<…>::multi_tensor_apply_kernel<unnamed> [k1]: flops=1 bytes=12 elements=1024 time=1us",
            "at::native::<…>::multi_tensor_apply_kernel<unnamed> [k2]: flops=1 bytes=12 elements=1024 time=1us",
            "at::native::<…>::multi_tensor_apply_kernel<unnamed> [k3]: flops=1 bytes=12 elements=1024 time=1us",
            "gemm_a: flops=100 bytes=12 elements=1024 time=1us",
            "gemm_b: flops=100 bytes=12 elements=1024 time=1us",
        ]);
        let after = doc(&[
            "nvjet_sm90_tst_128x128_splitK_NTT: flops=100 bytes=12 elements=1024 time=1us",
            "at::native::<…>::multi_tensor_apply_kernel<unnamed> [k9]: flops=1 bytes=12 elements=1024 time=1us",
        ]);
        let d = diff(&before, &after, &[]).unwrap();
        let note = &d.notes[0];
        assert!(note.contains("only before and 2 only after"), "{note}");
        let example = note.split("--match ").nth(2).expect("an example");
        assert!(!example.contains("gemm") && !example.contains("nvjet"), "unlike work paired: {note}");
        assert_eq!(example.matches("multi_tensor_apply_kernel").count(), 4, "{note}");
        // Five gone and one new, none alike: the syntax, no example.
        let unrelated = doc(&["nvjet_sm90_tst_128x128_splitK_NTT: flops=100 bytes=12 elements=1024 time=1us"]);
        let d = diff(&before, &unrelated, &[]).unwrap();
        assert!(d.notes[0].ends_with("--match BEFORE=AFTER"), "{:?}", d.notes);
        assert_eq!(family("at::native::<…>::cunn_SoftMaxForward<unnamed> [k0cbd4e]"), "cunn_SoftMaxForward");
        assert_eq!(family("ns::gemm<float>(float*, int)"), "gemm");
    }

    #[test]
    fn seed_000_fusion_paired_group() {
        let (b, a) = seed_000();
        let d = diff(&b, &a, &[Pairing::parse("scale+add=fused").unwrap()]).unwrap();
        assert_eq!(d.rows.len(), 2);
        let row = &d.rows[0];
        assert_eq!(row.kind, RowKind::Paired);
        assert_eq!(row.name, "scale + add -> fused");
        assert!((row.intensity_ratio().unwrap() - 1.5).abs() < 1e-12);
        assert!((row.time_change_pct().unwrap() - 100.0 * (1.03 - 1.54) / 1.54).abs() < 1e-9);
        // Both memory-bound, both near the T4's DRAM roof.
        let pb = row.before.as_ref().unwrap().pct_of_roof.unwrap();
        let pa = row.after.as_ref().unwrap().pct_of_roof.unwrap();
        assert!(pb > 80.0 && pa > 80.0, "{pb} {pa}");
        assert!(d.notes.is_empty(), "{:?}", d.notes);
    }

    #[test]
    fn a_change_the_launches_spread_covers_is_same_within_noise() {
        // Per launch: three launches of one kernel, 10 ms +- 4% before; after, 3% slower.
        let before = doc(&[
            "k: flops=1 bytes=12 elements=1000000 time=9.6ms",
            "k: flops=1 bytes=12 elements=1000000 time=10ms",
            "k: flops=1 bytes=12 elements=1000000 time=10.4ms",
        ]);
        let after = doc(&[
            "k: flops=1 bytes=12 elements=1000000 time=9.9ms",
            "k: flops=1 bytes=12 elements=1000000 time=10.3ms",
            "k: flops=1 bytes=12 elements=1000000 time=10.7ms",
        ]);
        let d = diff(&before, &after, &[]).unwrap();
        let first = d.rows.iter().find(|r| r.kind == RowKind::Matched).unwrap();
        assert!((first.noise_pct.unwrap() - 4.0).abs() < 1e-9, "{:?}", first.noise_pct);
        assert!(first.same_time() && first.same_by_spread(), "3% inside a spread of 4%");
        // A change wider than the spread is one.
        let slower = doc(&["k: flops=1 bytes=12 elements=1000000 time=11ms"; 3]);
        let d = diff(&before, &slower, &[]).unwrap();
        assert!(d.rows.iter().filter(|r| r.kind == RowKind::Matched).all(|r| !r.same_time()));
        // Launches of other work (another size) are no measure of noise.
        let mixed =
            doc(&["k: flops=1 bytes=12 elements=1000000 time=10ms", "k: flops=1 bytes=12 elements=2000000 time=20ms"]);
        let d = diff(&mixed, &mixed, &[]).unwrap();
        assert!(d.rows.iter().filter(|r| r.kind == RowKind::Matched).all(|r| r.noise_pct.is_none()));
        // One entry per kernel (launches summed): the fixed 1%.
        let (b, _) = seed_000();
        assert!(diff(&b, &b, &[]).unwrap().rows.iter().all(|r| r.noise_pct.is_none()));
    }

    #[test]
    fn same_name_matches_and_orders_by_time() {
        let b = doc(&["a: flops=1 bytes=8 time=1ms", "b: flops=1 bytes=8 time=3ms"]);
        let a = doc(&["b: flops=1 bytes=4 time=2ms", "a: flops=1 bytes=8 time=1ms"]);
        let d = diff(&b, &a, &[]).unwrap();
        let names: Vec<&str> = d.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["b", "a", "all kernels"]);
        assert!((d.rows[0].speedup().unwrap() - 1.5).abs() < 1e-12);
        assert!((d.rows[0].intensity_ratio().unwrap() - 2.0).abs() < 1e-12);
    }

    #[test]
    fn unknown_pairing_name_lists_the_kernels() {
        let (b, a) = seed_000();
        let e = diff(&b, &a, &[Pairing::parse("scale+mul=fused").unwrap()]).unwrap_err().to_string();
        assert!(e.contains("\"mul\"") && e.contains("\"scale\", \"add\""), "{e}");
        assert!(Pairing::parse("scale").is_err());
        assert!(Pairing::parse("=fused").is_err());
    }

    #[test]
    fn empty_profile_is_refused() {
        let (b, mut a) = seed_000();
        a.kernels.clear();
        assert_eq!(diff(&b, &a, &[]).unwrap_err(), DiffError::Empty { side: "after" });
    }
}
