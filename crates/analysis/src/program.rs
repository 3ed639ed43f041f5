//! The program view: where a whole program's GPU time goes, and where
//! effort would pay.
//!
//! A table of kernels answers "how is each kernel doing"; an engineer with a
//! thousand launches first asks "where is the time, and what is worth
//! fixing". Seed 002's dashboard makes the point: kernel B at 4% of peak may
//! be exactly on its memory roof (nothing to gain) while kernel A at 61% is
//! leaving a third of the machine idle. So the program view
//!
//! - splits the GPU time by verdict (memory-bound, compute-bound,
//!   latency-bound, and "no counters" for time with no point under a roof);
//! - ranks opportunities by the **seconds** each kernel would save if it
//!   reached its roof's attainable rate, or a set share of it:
//!   `saved = duration x (1 - pct_of_roof / target)`, since the time at the
//!   target is `work / (target x attainable) = duration x pct / target`;
//! - groups the time by kernel name, or by the labels each launch carries
//!   (NVTX ranges, once a timeline supplies them).
//!
//! It is built from rows of (kernel, duration, group labels): one row per
//! analysed kernel today ([`ProgramView::from_kernels`]), one row per launch
//! with its true duration from a timeline later ([`ProgramView::from_launches`]).
//! Each kernel's point (its verdict and % of roof) applies to all of its
//! launches, weighted by their durations. Pure: no I/O.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::facts::KernelFacts;
use crate::findings::Position;
use crate::levels::Bound;

/// How many opportunities and groups a view keeps by default.
pub const DEFAULT_TOP: usize = 10;

/// The verdict a kernel's time is counted under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Below the ridge: bandwidth limits it.
    MemoryBound,
    /// At or above the ridge: the compute peak of its FLOP mix limits it.
    ComputeBound,
    /// Below `LATENCY_PCT` of its roof and of every bandwidth (or far below a
    /// FLOP pipe's roof): waiting on latency.
    LatencyBound,
    /// An NCCL collective: judged against the interconnect (its % is of
    /// the link roof), not the memory or compute roofs.
    Communication,
    /// No point under a roof: no counters (or no FLOPs and bytes) for it.
    NoCounters,
}

impl Verdict {
    /// Every verdict, in the order views list them.
    pub const ALL: [Verdict; 5] = [
        Verdict::MemoryBound,
        Verdict::ComputeBound,
        Verdict::LatencyBound,
        Verdict::Communication,
        Verdict::NoCounters,
    ];

    /// The verdict of an analysed kernel: latency-bound when the diagnosis
    /// says so, else the side of the ridge; "no counters" when the kernel
    /// has no % of roof; a collective is communication.
    pub fn of<K: KernelFacts + ?Sized>(a: &K) -> Verdict {
        if a.is_collective() {
            return Verdict::Communication;
        }
        if matches!(a.position(), Some(Position::LatencyBound | Position::LaunchBound)) {
            return Verdict::LatencyBound;
        }
        match (a.pct_of_roof().filter(|p| p.is_finite()), a.bound()) {
            (Some(_), Some(Bound::Memory)) => Verdict::MemoryBound,
            (Some(_), Some(Bound::Compute)) => Verdict::ComputeBound,
            _ => Verdict::NoCounters,
        }
    }

    /// The word people read: "memory-bound".
    pub fn label(self) -> &'static str {
        match self {
            Verdict::MemoryBound => "memory-bound",
            Verdict::ComputeBound => "compute-bound",
            Verdict::LatencyBound => "latency-bound",
            Verdict::Communication => "communication",
            Verdict::NoCounters => "no counters",
        }
    }

    /// The snake-case key of JSON and CSV.
    pub fn key(self) -> &'static str {
        match self {
            Verdict::MemoryBound => "memory_bound",
            Verdict::ComputeBound => "compute_bound",
            Verdict::LatencyBound => "latency_bound",
            Verdict::Communication => "communication",
            Verdict::NoCounters => "no_counters",
        }
    }
}

/// What the time is grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    /// The kernel's short name: launches, streams and template instances
    /// of one kernel together.
    #[default]
    Name,
    /// The labels each launch carries (NVTX ranges, outermost first),
    /// joined by " > "; launches with none go under "(no range)".
    Labels,
    /// The library a kernel comes from (cuBLAS, cuDNN, PyTorch, Triton,
    /// NCCL, ...; "your code" for the rest), from its name.
    Library,
    /// The library and what the kernel does there ("cuBLAS GEMM",
    /// "PyTorch elementwise"), from its name.
    Origin,
}

impl GroupBy {
    /// The group a kernel falls in by its name alone: its short name, its
    /// library, or its library and role. Labels belong to launches, not
    /// kernels: a kernel's group by labels is its short name.
    pub fn kernel_label<K: KernelFacts + ?Sized>(self, a: &K) -> String {
        match self {
            GroupBy::Name | GroupBy::Labels => short_name(a).to_string(),
            GroupBy::Library => crate::origin(a.name()).library.label().to_string(),
            GroupBy::Origin => crate::origin(a.name()).label(),
        }
    }
}

/// How to build a program view.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProgramOptions {
    /// The share of its roof a kernel is asked to reach, percent (100: the
    /// attainable rate itself).
    pub target_pct_of_roof: f64,
    /// How many opportunities and groups to keep.
    pub top: usize,
    /// What the time is grouped by.
    pub group_by: GroupBy,
}

impl Default for ProgramOptions {
    fn default() -> Self {
        ProgramOptions { target_pct_of_roof: 100.0, top: DEFAULT_TOP, group_by: GroupBy::Name }
    }
}

/// One launch (or a kernel's launches together) with its true duration and
/// the labels it ran under.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchTime {
    /// The kernel's ID ([`roofline_model::Kernel::id`]) in the analysis.
    pub kernel: String,
    /// Seconds.
    pub duration_s: f64,
    /// How many launches the row stands for.
    pub launches: u64,
    /// Enclosing ranges, outermost first (empty when unknown).
    pub labels: Vec<String>,
}

/// The time under one verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerdictTime {
    /// The verdict.
    pub verdict: Verdict,
    /// Seconds of GPU time.
    pub seconds: f64,
    /// Share of the program's GPU time, 0..1.
    pub share: f64,
    /// Kernels with this verdict.
    pub kernels: usize,
    /// Seconds these kernels would save at the target.
    pub saved_s: f64,
}

/// A kernel worth effort: the time it would save at the target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Opportunity {
    /// The kernel's ID.
    pub id: String,
    /// Its short name.
    pub name: String,
    /// Its full name.
    pub full_name: String,
    /// Its verdict (what bounds it).
    pub verdict: Verdict,
    /// Seconds of GPU time it took.
    pub seconds: f64,
    /// Its share of the program's GPU time, 0..1.
    pub share: f64,
    /// Its % of roof: of its binding unit's roof when diagnosed.
    pub pct_of_roof: f64,
    /// Seconds saved at the target.
    pub saved_s: f64,
    /// Those seconds as a share of the program's GPU time, 0..1.
    pub saved_share: f64,
}

/// The time of one group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupTime {
    /// The kernel name or the range labels.
    pub label: String,
    /// Seconds of GPU time.
    pub seconds: f64,
    /// Share of the program's GPU time, 0..1.
    pub share: f64,
    /// Launches in it.
    pub launches: u64,
    /// Distinct kernels in it.
    pub kernels: usize,
    /// The verdict with the most time in it.
    pub verdict: Verdict,
    /// Seconds its kernels would save at the target (launches whose kernel
    /// has a % of roof).
    pub saved_s: f64,
}

/// Where a program's GPU time goes and what is worth fixing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgramView {
    /// GPU time of every timed launch, seconds.
    pub total_s: f64,
    /// The part of it with a point under a roof (a % of roof), seconds.
    pub placed_s: f64,
    /// Kernels with time.
    pub kernels: usize,
    /// Launches with time.
    pub launches: u64,
    /// The share of its roof each kernel is asked to reach, percent.
    pub target_pct_of_roof: f64,
    /// Seconds all kernels together would save at the target.
    pub saved_s: f64,
    /// The time under each verdict, in [`Verdict::ALL`] order.
    pub by_verdict: Vec<VerdictTime>,
    /// The kernels that would save the most, most first (at most `top`).
    pub opportunities: Vec<Opportunity>,
    /// What `groups` is grouped by.
    pub group_by: GroupBy,
    /// The groups with the most time, most first (at most `top`).
    pub groups: Vec<GroupTime>,
    /// How many groups there are in all.
    pub group_count: usize,
    /// Program-level opportunities: kernels one change would remove or
    /// merge, largest saving first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fusions: Vec<crate::fusion::Fusion>,
    /// Which steps of the program the view covers, and the GPU time of the
    /// warm-up left out; `None` when the whole run is shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<SteadyState>,
    /// Whether the GPU time is a timeline's (`profile`'s first pass: every
    /// launch with its true duration, kernels without counters included)
    /// rather than the analysed kernels' own durations. A kernel's share of
    /// time then differs from its counted duration over `total_s`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub from_timeline: bool,
}

/// The steady state a view covers: the program's steps after its warm-up
/// (NVTX step ranges, or a launch sequence that repeats), and what was left
/// out of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyState {
    /// How the steps were found: "NVTX ranges \"step N\"", "a repeating
    /// sequence of 57 launches".
    pub basis: String,
    /// Steps the view covers.
    pub steps: usize,
    /// Steps found in all.
    pub steps_total: usize,
    /// Position (0-based) of the first step covered.
    pub first: usize,
    /// The names of the first and last steps covered ("step 2", "step 4").
    pub first_label: String,
    /// The name of the last step covered.
    pub last_label: String,
    /// Whether the warm-up steps were found by the tool (not `--skip`).
    pub auto: bool,
    /// GPU time of the kernel launches outside the covered steps (warm-up,
    /// autotuning, set-up and teardown), seconds.
    pub left_out_s: f64,
    /// Those launches.
    pub left_out_launches: u64,
    /// Kernels that ran only outside the covered steps (trial kernels of
    /// autotuning, one-off set-up): never an opportunity here.
    pub left_out_kernels: usize,
}

/// Seconds a kernel at `pct` of its roof would save over `seconds` if it
/// reached `target` percent of it; zero when it is already there.
pub fn seconds_saved(seconds: f64, pct_of_roof: f64, target_pct: f64) -> f64 {
    if !(seconds > 0.0 && pct_of_roof.is_finite() && target_pct > 0.0) {
        return 0.0;
    }
    (seconds * (1.0 - pct_of_roof / target_pct)).max(0.0)
}

/// The share of a kernel's time its best next move would save: the
/// diagnosis's estimate where there is one (nothing for a kernel at its
/// roof or with no move worth it), else the gap to `target` % of its roof.
pub fn saved_share<K: KernelFacts + ?Sized>(a: &K, target: f64) -> f64 {
    let Some(t) = a.duration_s().filter(|d| *d > 0.0 && d.is_finite()) else { return 0.0 };
    match a.position() {
        Some(_) => {
            let best = (a.best_saving_s().unwrap_or(0.0) / t).clamp(0.0, 1.0);
            // A target below the roof caps what reaching it can save.
            match a.binding_pct() {
                Some(pct) if target < 100.0 => best.min(seconds_saved(t, pct, target) / t),
                _ => best,
            }
        }
        None => a.pct_of_roof().map(|p| seconds_saved(t, p, target) / t).unwrap_or(0.0),
    }
}

impl ProgramView {
    /// The view of an analysis: one row per kernel with its total duration,
    /// grouped by name.
    pub fn from_kernels<K: KernelFacts>(kernels: &[K], opts: &ProgramOptions) -> ProgramView {
        let rows: Vec<LaunchTime> = kernels
            .iter()
            .filter_map(|a| {
                let d = a.duration_s().filter(|d| d.is_finite() && *d > 0.0)?;
                Some(LaunchTime { kernel: a.id().to_string(), duration_s: d, launches: a.launches(), labels: vec![] })
            })
            .collect();
        ProgramView::from_launches(kernels, &rows, opts)
    }

    /// The view of launches with true durations (a timeline), each taking
    /// the verdict and % of roof of its kernel in `kernels` (matched by ID);
    /// a launch whose kernel has no point counts as "no counters".
    pub fn from_launches<K: KernelFacts>(kernels: &[K], rows: &[LaunchTime], opts: &ProgramOptions) -> ProgramView {
        let target = if opts.target_pct_of_roof.is_finite() && opts.target_pct_of_roof > 0.0 {
            opts.target_pct_of_roof
        } else {
            100.0
        };
        let by_id: HashMap<&str, usize> = kernels.iter().enumerate().rev().map(|(i, a)| (a.id(), i)).collect();

        // Per kernel (by index; rows of unknown kernels by their ID).
        struct Acc {
            seconds: f64,
            launches: u64,
        }
        let mut per_kernel: Vec<Acc> = kernels.iter().map(|_| Acc { seconds: 0.0, launches: 0 }).collect();
        let mut unknown: HashMap<&str, Acc> = HashMap::new();
        struct GroupAcc<'a> {
            seconds: f64,
            launches: u64,
            kernels: Vec<&'a str>,
            per_verdict: [f64; Verdict::ALL.len()],
            saved_s: f64,
        }
        let mut groups: HashMap<String, GroupAcc> = HashMap::new();
        let mut total = 0.0;
        let mut launches = 0;
        for r in rows.iter().filter(|r| r.duration_s.is_finite() && r.duration_s > 0.0) {
            total += r.duration_s;
            launches += r.launches;
            let index = by_id.get(r.kernel.as_str()).copied();
            let acc = match index {
                Some(i) => &mut per_kernel[i],
                None => unknown.entry(&r.kernel).or_insert(Acc { seconds: 0.0, launches: 0 }),
            };
            acc.seconds += r.duration_s;
            acc.launches += r.launches;
            let a = index.map(|i| &kernels[i]);
            let verdict = a.map(|a| Verdict::of(a)).unwrap_or(Verdict::NoCounters);
            let saved = a.map(|a| saved_share(a, target) * r.duration_s).unwrap_or(0.0);
            let label = match (opts.group_by, a) {
                (GroupBy::Labels, _) if r.labels.is_empty() => "(no range)".to_string(),
                (GroupBy::Labels, _) => r.labels.join(" > "),
                (by, Some(a)) => by.kernel_label(a),
                (GroupBy::Name, None) => r.kernel.clone(),
                (_, None) => "(unknown)".into(),
            };
            let g = groups.entry(label).or_insert(GroupAcc {
                seconds: 0.0,
                launches: 0,
                kernels: Vec::new(),
                per_verdict: [0.0; Verdict::ALL.len()],
                saved_s: 0.0,
            });
            g.seconds += r.duration_s;
            g.launches += r.launches;
            if !g.kernels.contains(&r.kernel.as_str()) {
                g.kernels.push(&r.kernel);
            }
            g.per_verdict[verdict_index(verdict)] += r.duration_s;
            g.saved_s += saved;
        }
        let share = |s: f64| if total > 0.0 { s / total } else { 0.0 };

        let mut by_verdict: Vec<VerdictTime> = Verdict::ALL
            .iter()
            .map(|&verdict| VerdictTime { verdict, seconds: 0.0, share: 0.0, kernels: 0, saved_s: 0.0 })
            .collect();
        let mut opportunities = Vec::new();
        let mut placed = 0.0;
        let mut saved_total = 0.0;
        let mut timed_kernels = 0;
        for (a, acc) in kernels.iter().zip(&per_kernel).filter(|(_, acc)| acc.seconds > 0.0) {
            timed_kernels += 1;
            let verdict = Verdict::of(a);
            let v = &mut by_verdict[verdict_index(verdict)];
            v.seconds += acc.seconds;
            v.kernels += 1;
            let Some(pct) = a.pct_of_roof().filter(|p| p.is_finite()) else { continue };
            placed += acc.seconds;
            let saved = saved_share(a, target) * acc.seconds;
            let pct = a.binding_pct().unwrap_or(pct);
            v.saved_s += saved;
            saved_total += saved;
            if saved > 0.0 {
                opportunities.push(Opportunity {
                    id: a.id().to_string(),
                    name: short_name(a).to_string(),
                    full_name: a.name().to_string(),
                    verdict,
                    seconds: acc.seconds,
                    share: share(acc.seconds),
                    pct_of_roof: pct,
                    saved_s: saved,
                    saved_share: share(saved),
                });
            }
        }
        for acc in unknown.values() {
            timed_kernels += 1;
            let v = &mut by_verdict[verdict_index(Verdict::NoCounters)];
            v.seconds += acc.seconds;
            v.kernels += 1;
        }
        for v in &mut by_verdict {
            v.share = share(v.seconds);
        }
        // Communication is listed only for programs that have collectives.
        by_verdict.retain(|v| v.verdict != Verdict::Communication || v.kernels > 0);
        opportunities.sort_by(|x, y| y.saved_s.total_cmp(&x.saved_s).then_with(|| x.name.cmp(&y.name)));
        opportunities.truncate(opts.top);

        let group_count = groups.len();
        let mut groups: Vec<GroupTime> = groups
            .into_iter()
            .map(|(label, g)| {
                let verdict = Verdict::ALL
                    .into_iter()
                    .max_by(|x, y| g.per_verdict[verdict_index(*x)].total_cmp(&g.per_verdict[verdict_index(*y)]))
                    .unwrap_or(Verdict::NoCounters);
                GroupTime {
                    label,
                    seconds: g.seconds,
                    share: share(g.seconds),
                    launches: g.launches,
                    kernels: g.kernels.len(),
                    verdict,
                    saved_s: g.saved_s,
                }
            })
            .collect();
        groups.sort_by(|x, y| y.seconds.total_cmp(&x.seconds).then_with(|| x.label.cmp(&y.label)));
        groups.truncate(opts.top);

        ProgramView {
            total_s: total,
            placed_s: placed,
            kernels: timed_kernels,
            launches,
            target_pct_of_roof: target,
            saved_s: saved_total,
            by_verdict,
            opportunities,
            group_by: opts.group_by,
            groups,
            group_count,
            fusions: crate::fusion::fusions(kernels),
            steady: None,
            from_timeline: false,
        }
    }

    /// The time under one verdict.
    pub fn verdict(&self, verdict: Verdict) -> Option<&VerdictTime> {
        self.by_verdict.iter().find(|v| v.verdict == verdict)
    }

    /// Whether any launch had a duration (paper estimates have none).
    pub fn is_timed(&self) -> bool {
        self.total_s > 0.0
    }
}

fn verdict_index(v: Verdict) -> usize {
    Verdict::ALL.iter().position(|x| *x == v).unwrap_or(Verdict::ALL.len() - 1)
}

fn short_name<K: KernelFacts + ?Sized>(a: &K) -> &str {
    if a.display_name().is_empty() {
        a.name()
    } else {
        a.display_name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::analyze;
    use roofline_model::Kernel;
    use roofline_model::{FlopKind, Machine, MemLevel, Origin};

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-12)
    }

    fn kernel(name: &str, flops: f64, bytes: f64, seconds: f64) -> Kernel {
        let mut k = Kernel::named(name, Origin::User);
        k.flops.insert(FlopKind::Fp32, flops);
        k.bytes.insert(MemLevel::Dram, bytes);
        k.duration_s = Some(seconds);
        k
    }

    /// An NCCL collective's time is communication in the program view,
    /// not "no counters", even without a byte count (a timeline).
    #[test]
    fn a_collectives_time_is_communication() {
        let m = Machine::simple("m", FlopKind::Fp32, 20e12, 1e12);
        let mut nccl = Kernel::named("ncclDevKernel_AllReduce_Sum_f32_RING_LL", Origin::Measured);
        nccl.duration_s = Some(0.002);
        let ks = analyze(&m, &[nccl, kernel("A matmul", 1e10, 1e7, 0.010)]);
        let v = ProgramView::from_kernels(&ks, &ProgramOptions::default());
        let comm = v.verdict(Verdict::Communication).unwrap();
        assert!(close(comm.seconds, 0.002) && comm.kernels == 1, "{comm:?}");
        assert_eq!(v.verdict(Verdict::NoCounters).unwrap().seconds, 0.0);
        let one_gpu = ProgramView::from_kernels(&ks[1..], &ProgramOptions::default());
        assert!(one_gpu.verdict(Verdict::Communication).is_none(), "listed only with collectives");
    }

    /// Seed 002's dashboard on its ridge-20 machine (20 TFLOP/s, 1 TB/s):
    /// kernel A, a matmul at 61% of peak, and kernel B, a memory-bound
    /// kernel of intensity 0.8 at 4% of peak, 10 ms each. B is exactly on
    /// its roof (0.8 x 1 TB/s = 4% of peak): nothing to gain. A would save
    /// 39% of its 10 ms at its roof, and 10 ms x (1 - 61/90) = 3.22 ms at
    /// the 90% a matmul should reach: the effort goes to A.
    #[test]
    fn seed_002_where_to_spend_effort() {
        let m = Machine::simple("ridge-20", FlopKind::Fp32, 20e12, 1e12);
        let a = kernel("A matmul", 0.61 * 20e12 * 0.010, 0.61 * 20e12 * 0.010 / 128.0, 0.010);
        let b = kernel("B stream", 0.04 * 20e12 * 0.010, 0.04 * 20e12 * 0.010 / 0.8, 0.010);
        let ks = analyze(&m, &[b, a]);
        assert!(close(ks[0].pct_of_roof.unwrap(), 100.0), "{:?}", ks[0].pct_of_roof);
        assert!(close(ks[1].pct_of_roof.unwrap(), 61.0), "{:?}", ks[1].pct_of_roof);

        let at_roof = ProgramView::from_kernels(&ks, &ProgramOptions::default());
        assert!(close(at_roof.total_s, 0.020));
        assert_eq!(at_roof.opportunities.len(), 1, "B is on its roof: {:?}", at_roof.opportunities);
        let top = &at_roof.opportunities[0];
        assert_eq!((top.name.as_str(), top.verdict), ("A matmul", Verdict::ComputeBound));
        assert!(close(top.saved_s, 0.010 * 0.39), "{}", top.saved_s);
        assert!(close(top.saved_share, 0.39 / 2.0), "{}", top.saved_share);
        assert!(close(at_roof.saved_s, 0.0039));

        let at_90 =
            ProgramView::from_kernels(&ks, &ProgramOptions { target_pct_of_roof: 90.0, ..ProgramOptions::default() });
        assert!(
            close(at_90.opportunities[0].saved_s, 0.010 * (1.0 - 61.0 / 90.0)),
            "{}",
            at_90.opportunities[0].saved_s
        );
        assert!(close(at_90.saved_s, 0.010 * (1.0 - 61.0 / 90.0)));

        // Half the time memory-bound, half compute-bound.
        let memory = at_roof.verdict(Verdict::MemoryBound).unwrap();
        let compute = at_roof.verdict(Verdict::ComputeBound).unwrap();
        assert!(close(memory.seconds, 0.010) && close(memory.share, 0.5) && memory.kernels == 1);
        assert!(close(compute.seconds, 0.010) && close(compute.saved_s, 0.0039));
        assert_eq!(at_roof.verdict(Verdict::NoCounters).unwrap().seconds, 0.0);
        assert!(close(at_roof.placed_s, 0.020));
    }

    #[test]
    fn saving_is_zero_at_or_above_the_target() {
        assert_eq!(seconds_saved(1.0, 100.0, 100.0), 0.0);
        assert_eq!(seconds_saved(1.0, 95.0, 80.0), 0.0);
        assert!(close(seconds_saved(2.0, 25.0, 100.0), 1.5));
        assert!(close(seconds_saved(2.0, 25.0, 50.0), 1.0));
        assert_eq!(seconds_saved(f64::NAN, 25.0, 50.0), 0.0);
    }

    #[test]
    fn time_without_a_point_counts_as_no_counters() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        let mut bare = Kernel::named("copy_engine", Origin::Counter);
        bare.duration_s = Some(0.003);
        let placed = kernel("stream", 1e6, 1e8, 0.001);
        let ks = analyze(&m, &[bare, placed]);
        let v = ProgramView::from_kernels(&ks, &ProgramOptions::default());
        let none = v.verdict(Verdict::NoCounters).unwrap();
        assert!(close(none.seconds, 0.003) && close(none.share, 0.75) && none.kernels == 1);
        assert!(close(v.placed_s, 0.001) && close(v.total_s, 0.004));
        assert!(v.opportunities.iter().all(|o| o.name != "copy_engine"));
    }

    #[test]
    fn launches_take_their_kernels_point_weighted_by_their_own_time() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        // 50% of the DRAM roof over its profiled launches.
        let ks = analyze(&m, &[kernel("stream", 1e6, 1e9, 0.02)]);
        assert!(close(ks[0].pct_of_roof.unwrap(), 50.0));
        let id = ks[0].kernel.id.clone();
        let row = |d: f64, labels: &[&str]| LaunchTime {
            kernel: id.clone(),
            duration_s: d,
            launches: 1,
            labels: labels.iter().map(|s| s.to_string()).collect(),
        };
        let rows = vec![
            row(0.003, &["step 1", "forward"]),
            row(0.001, &["step 1", "backward"]),
            row(0.004, &[]),
            LaunchTime {
                kernel: "knot-profiled".into(),
                duration_s: 0.002,
                launches: 4,
                labels: vec!["step 1".into()],
            },
        ];
        let opts = ProgramOptions { group_by: GroupBy::Labels, ..ProgramOptions::default() };
        let v = ProgramView::from_launches(&ks, &rows, &opts);
        assert!(close(v.total_s, 0.010) && v.launches == 7 && v.kernels == 2);
        assert!(close(v.placed_s, 0.008));
        assert!(close(v.saved_s, 0.004), "{}", v.saved_s);
        assert!(close(v.verdict(Verdict::NoCounters).unwrap().seconds, 0.002));
        let labels: Vec<(&str, f64)> = v.groups.iter().map(|g| (g.label.as_str(), g.seconds)).collect();
        assert_eq!(labels[0].0, "(no range)");
        assert_eq!(labels[1].0, "step 1 > forward");
        let unranged = &v.groups[0];
        // 50% of every roof: latency-bound (Nsight Compute's 60% rule).
        assert!(close(unranged.saved_s, 0.002) && unranged.verdict == Verdict::LatencyBound);
        let other = v.groups.iter().find(|g| g.label == "step 1").unwrap();
        assert_eq!((other.verdict, other.launches), (Verdict::NoCounters, 4));
        assert_eq!(v.group_count, 4);
    }

    #[test]
    fn groups_by_name_join_launches_of_one_kernel() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        let mut a1 = kernel("gemm", 1e9, 1e6, 0.002);
        a1.id = "k1-1".into();
        let mut a2 = kernel("gemm", 1e9, 1e6, 0.004);
        a2.id = "k1-2".into();
        let b = kernel("copy", 0.0, 1e8, 0.001);
        let ks = analyze(&m, &[a1, a2, b]);
        let v = ProgramView::from_kernels(&ks, &ProgramOptions { top: 1, ..ProgramOptions::default() });
        assert_eq!(v.group_count, 2);
        assert_eq!(v.groups.len(), 1);
        assert_eq!((v.groups[0].label.as_str(), v.groups[0].kernels, v.groups[0].launches), ("gemm", 2, 2));
        assert!(close(v.groups[0].seconds, 0.006) && close(v.groups[0].share, 6.0 / 7.0));
    }

    #[test]
    fn untimed_estimates_make_an_empty_view() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e11);
        let mut k = kernel("paper", 1.0, 12.0, 1.0);
        k.duration_s = None;
        let v = ProgramView::from_kernels(&analyze(&m, &[k]), &ProgramOptions::default());
        assert!(!v.is_timed() && v.opportunities.is_empty() && v.groups.is_empty());
        assert!(v.by_verdict.iter().all(|t| t.share == 0.0 && t.seconds == 0.0));
    }
}
