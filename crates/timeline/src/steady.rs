//! The steady state of a program: its steps after the warm-up.
//!
//! A training loop's first steps are not like the rest: cuDNN's autotuner
//! (`cudnn.benchmark`) times a dozen trial kernels per convolution, XLA and
//! torch.compile compile, allocators and optimizers set up their state. On
//! ResNet-50 that warm-up was 75% of the recorded GPU time, and its trial
//! kernels led the table. So `profile` judges the steps after it:
//!
//! - **Steps** are the program's own NVTX ranges named like a step
//!   (`step 3`, `ProfilerStep#3` from `torch.profiler`, `iteration 3`,
//!   `train_step 3`), the outermost of them, in time order. A program that
//!   marks none may still repeat itself: when the kernel launches end in a
//!   sequence that repeats at least [`MIN_REPEATS`] times, holds at least two
//!   kernels and [`MIN_PERIODIC_SHARE`] of the launches of its own kernels
//!   (autotuning and set-up kernels that never run in it do not count), each
//!   repetition is a step.
//! - **Warm-up steps** are found from what they ran: a step that launched a
//!   kernel no later step launches (a trial kernel, a one-off set-up) is
//!   warm-up, and so is every step before it; the last step is never judged
//!   (nothing comes after it). `--skip N` says it instead.
//! - The **steady state** is the time from the first kept step's start to
//!   the last kept step's end: launches in between count whichever thread
//!   made them (PyTorch's autograd threads hold no range of their own), by
//!   the time they were asked for, as NVTX selection does (`select`).
//!   Everything else (warm-up, launches before the first step and after the
//!   last) is left out, and [`SteadyState`] says how much GPU time that was.
//!
//! Pure: a timeline in, a choice of steps and a smaller timeline out.

use std::collections::{HashMap, HashSet};

use roofline_analysis::SteadyState;

use crate::model::{ActivityKind, Span, Timeline};

/// Repetitions a launch sequence needs to count as steps.
pub const MIN_REPEATS: usize = 3;
/// Share of the launches of its own kernels (those it launches) a repeating
/// sequence must hold to count as steps.
pub const MIN_PERIODIC_SHARE: f64 = 0.3;

/// Which steps a user asked for (`--steps`, `--skip`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StepChoice {
    /// `--steps all`: the whole run, no step detection.
    pub all: bool,
    /// Steps skipped first; `None`: the warm-up steps the tool finds.
    pub skip: Option<usize>,
    /// Steps kept after the skip; `None`: all of them.
    pub count: Option<usize>,
}

impl StepChoice {
    /// Reads `--steps` (`all`, `N`: the first N steady steps, `A..B`: the
    /// steps at positions A to B-1, 0-based) with `--skip N`.
    pub fn parse(steps: Option<&str>, skip: Option<usize>) -> Result<StepChoice, String> {
        let Some(text) = steps.map(str::trim) else {
            return Ok(StepChoice { all: false, skip, count: None });
        };
        if text.eq_ignore_ascii_case("all") {
            if skip.is_some() {
                return Err("--steps all and --skip: all keeps every launch; leave one of them out".into());
            }
            return Ok(StepChoice { all: true, skip: None, count: None });
        }
        let number = |s: &str| s.trim().parse::<usize>().ok();
        if let Some((a, b)) = text.split_once("..") {
            let (Some(a), Some(b)) = (number(a), number(b)) else {
                return Err(format!("--steps {text}: expected all, a count (3) or a range of step positions (2..5)"));
            };
            if b <= a {
                return Err(format!(
                    "--steps {text}: the range is empty; the end is past the last step kept (2..5 keeps 2, 3, 4)"
                ));
            }
            if skip.is_some() {
                return Err(format!("--steps {text} and --skip: a range says where it starts; leave --skip out"));
            }
            return Ok(StepChoice { all: false, skip: Some(a), count: Some(b - a) });
        }
        match number(text) {
            Some(0) => Err("--steps 0: keeps no step; give a count of at least 1, or all".into()),
            Some(n) => Ok(StepChoice { all: false, skip, count: Some(n) }),
            None => Err(format!("--steps {text}: expected all, a count (3) or a range of step positions (2..5)")),
        }
    }
}

/// One step of the program.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Its name: the NVTX range's, or `repetition N`.
    pub label: String,
    /// When it ran on the host (its range's window; from its first to its
    /// last launch call for a repetition).
    pub window: Span,
}

/// The steps found and the ones kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Steps {
    /// How they were found, for people.
    pub basis: String,
    /// Every step, in time order.
    pub steps: Vec<Step>,
    /// Position of the first step kept.
    pub first: usize,
    /// Steps kept (at least one).
    pub kept: usize,
    /// Whether `first` was found by the tool.
    pub auto: bool,
}

impl Steps {
    /// The host time the kept steps span, both ends included.
    pub fn window(&self) -> Span {
        let first = &self.steps[self.first];
        let last = &self.steps[self.first + self.kept - 1];
        Span { start_ns: first.window.start_ns, end_ns: last.window.end_ns.max(first.window.start_ns) }
    }
}

/// Whether an NVTX range's name marks a step: a known word, then a number.
pub fn is_step_name(name: &str) -> bool {
    let lower = name.trim().to_ascii_lowercase();
    for word in ["profilerstep", "train_step", "train step", "training step", "iteration", "step", "iter"] {
        if let Some(rest) = lower.strip_prefix(word) {
            let digits = rest.trim_start_matches([' ', '_', '#', ':', '=', '-']);
            return !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        }
    }
    false
}

/// The program's steps, and which of them are steady; `None` when it has
/// no steps (or `--steps all`). A choice that keeps no step is an error
/// that says how many there are.
pub fn find_steps(tl: &Timeline, choice: &StepChoice) -> Result<Option<Steps>, String> {
    if choice.all {
        return Ok(None);
    }
    let Some((basis, steps)) = nvtx_steps(tl).or_else(|| periodic_steps(tl)) else {
        if choice.skip.is_some() || choice.count.is_some() {
            return Err(format!(
                "--steps/--skip: the program marks no steps (no NVTX range named like \"step N\" or \"ProfilerStep#N\", and no repeating launch sequence) and {} launches were recorded; mark each step with an NVTX range (torch.cuda.nvtx.range_push(f\"step {{i}}\")), or leave --steps/--skip out to keep the whole run",
                tl.kernel_count()
            ));
        }
        return Ok(None);
    };
    let (first, auto) = match choice.skip {
        Some(s) => (s, false),
        None => (warm_up_steps(tl, &steps), true),
    };
    if first >= steps.len() {
        return Err(format!("--skip {first}: the program has {} steps ({}); skip fewer", steps.len(), basis));
    }
    let kept = choice.count.unwrap_or(usize::MAX).min(steps.len() - first);
    Ok(Some(Steps { basis, steps, first, kept, auto }))
}

/// The outermost NVTX ranges named like steps, in time order.
fn nvtx_steps(tl: &Timeline) -> Option<(String, Vec<Step>)> {
    let open_end = tl.last_ns();
    // Only the outermost: a "step" range inside another one is not a step of its own.
    let inside_a_step = |r: &crate::model::NvtxRange| {
        let mut up = r.parent;
        while let Some(p) = up {
            let parent = &tl.ranges[p as usize];
            if is_step_name(&parent.name) {
                return true;
            }
            up = parent.parent;
        }
        false
    };
    let is_step: Vec<bool> = tl.ranges.iter().map(|r| is_step_name(&r.name) && !inside_a_step(r)).collect();
    let mut found: Vec<(Step, &str)> = tl
        .ranges
        .iter()
        .zip(&is_step)
        .filter(|(_, s)| **s)
        .map(|(r, _)| (Step { label: r.name.clone(), window: r.span(open_end) }, r.name.as_str()))
        .collect();
    if found.is_empty() {
        return None;
    }
    found.sort_by_key(|(s, _)| (s.window.start_ns, s.window.end_ns));
    let example = found[0].1;
    let word: String = example.trim_end_matches(|c: char| c.is_ascii_digit()).to_string();
    let basis = format!("NVTX ranges \"{word}N\"");
    Some((basis, found.into_iter().map(|(s, _)| s).collect()))
}

/// Kernel launches in the order they were asked for: (time, name index).
fn launch_order(tl: &Timeline) -> Vec<(u64, u32)> {
    let mut v: Vec<(u64, u32)> =
        tl.activities.iter().filter(|a| a.kind == ActivityKind::Kernel).map(|a| (a.asked_at_ns(), a.name)).collect();
    v.sort_unstable();
    v
}

/// Steps from a kernel sequence whose end repeats: the shortest period
/// with the longest repeating tail, each full repetition one step.
fn periodic_steps(tl: &Timeline) -> Option<(String, Vec<Step>)> {
    let seq = launch_order(tl);
    let n = seq.len();
    if n < 2 * MIN_REPEATS {
        return None;
    }
    let names: Vec<u32> = seq.iter().map(|&(_, name)| name).collect();
    let mut best: Option<(usize, usize)> = None; // (period, repeating tail length)
    for p in 2..=n / MIN_REPEATS {
        // A multiple of the best period repeats at least as far: the
        // shortest is kept, and a long run costs one pass per other period
        // (which mostly stops at once).
        if let Some((q, t)) = best {
            if t == n {
                break;
            }
            if p % q == 0 {
                continue;
            }
        }
        // How far back the tail agrees with itself shifted by p.
        let mut m = 0;
        while m + p < n && names[n - 1 - m] == names[n - 1 - m - p] {
            m += 1;
        }
        let tail = m + p;
        if tail / p >= MIN_REPEATS && best.is_none_or(|(_, t)| tail > t) {
            best = Some((p, tail));
        }
    }
    let (p, tail) = best?;
    let reps = tail / p;
    let distinct: HashSet<u32> = names[n - p..].iter().copied().collect();
    // The share is of the launches of the repeating block's own kernels:
    // autotuning and set-up kernels that never run in it (XLA's redzone
    // checks and trial GEMMs: 870 of a JAX step loop's 1,045 launches)
    // do not make a real step loop too small to count.
    let own = names.iter().filter(|n| distinct.contains(n)).count();
    if distinct.len() < 2 || ((reps * p) as f64) < MIN_PERIODIC_SHARE * own as f64 {
        return None;
    }
    let start = n - reps * p;
    let steps = (0..reps)
        .map(|k| {
            let block = &seq[start + k * p..start + (k + 1) * p];
            Step {
                label: format!("repetition {}", k + 1),
                window: Span { start_ns: block[0].0, end_ns: block[p - 1].0 },
            }
        })
        .collect();
    Some((format!("a repeating sequence of {p} kernel launches"), steps))
}

/// How many leading steps are warm-up: up to and including the last step
/// (the final one aside) that launched a kernel no later step launches.
fn warm_up_steps(tl: &Timeline, steps: &[Step]) -> usize {
    if steps.len() < 2 {
        return 0;
    }
    let mut per_step: Vec<HashSet<u32>> = vec![HashSet::new(); steps.len()];
    let starts: Vec<u64> = steps.iter().map(|s| s.window.start_ns).collect();
    for (t, name) in launch_order(tl) {
        let k = starts.partition_point(|&s| s <= t);
        if k > 0 && steps[k - 1].window.contains(t) {
            per_step[k - 1].insert(name);
        }
    }
    let mut later: HashSet<u32> = per_step[steps.len() - 1].clone();
    let mut first = 0;
    for i in (0..steps.len() - 1).rev() {
        if first == 0 && !per_step[i].is_subset(&later) {
            first = i + 1;
        }
        later.extend(per_step[i].iter().copied());
    }
    first
}

/// How many kernel launches ncu may let pass before it starts matching
/// (`--launch-skip-before-match`): those up to the last launch, before the
/// steady state `window`, of a kernel that never runs in it (cuDNN's and
/// XLA's autotuning trials, a set-up kernel). The ordinary warm-up after it
/// runs the steady state's kernels in the steady state's shapes and stays
/// matchable, so a count a little off between the two runs of the program
/// cannot skip past the steady state. ncu counts a CUDA graph's kernel
/// nodes one by one with `--graph-profiling node`, as the timeline does
/// (on the H200, 2026-12-02: skipping 9 of 3 fills, 5 adds and a graph of
/// mul, sin, cos landed on the first replay's sin; results/h200-2026-12-02-steady).
/// `None` when several processes launched kernels (whose count ncu would
/// apply is not known).
pub fn skip_before_match(tl: &Timeline, window: Span) -> Option<u64> {
    let mut kernels = tl.activities.iter().filter(|a| a.kind == ActivityKind::Kernel);
    let pid = kernels.next()?.pid;
    if kernels.any(|a| a.pid != pid) {
        return None;
    }
    let order = launch_order(tl);
    let steady: HashSet<u32> = order.iter().filter(|(t, _)| window.contains(*t)).map(|&(_, n)| n).collect();
    let before = order.partition_point(|(t, _)| *t < window.start_ns);
    let last_trial = order[..before].iter().rposition(|(_, n)| !steady.contains(n));
    Some(last_trial.map_or(0, |i| i as u64 + 1))
}

/// The timeline of the kept steps only (activities asked for in their
/// window; ranges, names and processes as they were), with what was left out.
pub fn steady_timeline(tl: &Timeline, steps: &Steps) -> (Timeline, SteadyState) {
    let window = steps.window();
    let mut kept = Timeline { activities: Vec::new(), ..tl.clone() };
    let (mut left_ns, mut left_launches) = (0u64, 0u64);
    let mut inside: HashSet<u32> = HashSet::new();
    let mut outside: HashMap<u32, ()> = HashMap::new();
    for a in &tl.activities {
        if window.contains(a.asked_at_ns()) {
            if a.kind == ActivityKind::Kernel {
                inside.insert(a.name);
            }
            kept.activities.push(a.clone());
        } else if a.kind == ActivityKind::Kernel {
            left_ns = left_ns.saturating_add(a.duration_ns());
            left_launches += 1;
            outside.insert(a.name, ());
        }
    }
    let last = &steps.steps[steps.first + steps.kept - 1];
    let state = SteadyState {
        basis: steps.basis.clone(),
        steps: steps.kept,
        steps_total: steps.steps.len(),
        first: steps.first,
        first_label: steps.steps[steps.first].label.clone(),
        last_label: last.label.clone(),
        auto: steps.auto,
        left_out_s: left_ns as f64 * 1e-9,
        left_out_launches: left_launches,
        left_out_kernels: outside.keys().filter(|n| !inside.contains(n)).count(),
    };
    (kept, state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Activity, ActivityName, NvtxRange};

    fn kernel(name: u32, t: u64, dur: u64) -> Activity {
        Activity {
            kind: ActivityKind::Kernel,
            name,
            start_ns: t,
            end_ns: t + dur,
            pid: 1,
            device: 0,
            context: 1,
            stream: 7,
            correlation: 0,
            grid: Some([8, 1, 1]),
            block: Some([128, 1, 1]),
            registers: None,
            shared_static: None,
            shared_dynamic: None,
            bytes: None,
            graph: None,
            graph_node: None,
            launch: None,
            nvtx: None,
        }
    }

    fn range(name: &str, start: u64, end: u64) -> NvtxRange {
        NvtxRange {
            name: name.into(),
            domain: None,
            pid: 1,
            tid: 1,
            start_ns: start,
            end_ns: Some(end),
            depth: 0,
            parent: None,
        }
    }

    /// Five steps of 1000 ns each: 0 and 1 also run trial kernels 3 and 4
    /// (100 ns each); every step runs kernels 0, 1, 2 (10 ns each).
    fn training(marked: bool) -> Timeline {
        let mut tl = Timeline::default();
        for n in ["gemm", "relu", "adam", "trial_a", "trial_b"] {
            tl.names.push(ActivityName {
                name: n.into(),
                mangled: None,
                display_name: n.into(),
                kind: ActivityKind::Kernel,
            });
        }
        for step in 0..5u64 {
            let t0 = 10_000 + step * 1000;
            if marked {
                tl.ranges.push(range(&format!("step {step}"), t0, t0 + 999));
            }
            let mut t = t0 + 1;
            if step < 2 {
                tl.activities.push(kernel(3 + step as u32, t, 100));
                t += 101;
            }
            for k in 0..3 {
                tl.activities.push(kernel(k, t, 10));
                t += 11;
            }
        }
        tl
    }

    #[test]
    fn step_names_are_recognised_and_other_ranges_are_not() {
        for yes in ["step 3", "Step_12", "ProfilerStep#7", "iteration 2", "train_step 0", "iter#4", "step:5"] {
            assert!(is_step_name(yes), "{yes}");
        }
        for no in ["step", "forward", "stepper 3", "step 3 backward", "optimizer.step", ""] {
            assert!(!is_step_name(no), "{no}");
        }
    }

    #[test]
    fn the_warm_up_steps_with_trial_kernels_are_left_out_and_their_time_said() {
        let tl = training(true);
        let steps = find_steps(&tl, &StepChoice::default()).unwrap().unwrap();
        assert_eq!(steps.steps.len(), 5);
        assert_eq!((steps.first, steps.kept, steps.auto), (2, 3, true), "steps 0 and 1 ran trial kernels");
        assert_eq!(steps.basis, "NVTX ranges \"step N\"");
        let (kept, state) = steady_timeline(&tl, &steps);
        assert_eq!(kept.kernel_count(), 9, "three kernels in each of three steps");
        assert_eq!((state.first_label.as_str(), state.last_label.as_str()), ("step 2", "step 4"));
        assert_eq!(state.left_out_launches, 8, "2 trial + 6 ordinary launches in the warm-up");
        assert!((state.left_out_s - 260e-9).abs() < 1e-15, "{}", state.left_out_s);
        assert_eq!(state.left_out_kernels, 2, "trial_a and trial_b ran only in the warm-up");
    }

    #[test]
    fn a_step_range_inside_another_is_not_a_step_of_its_own() {
        let mut tl = training(true);
        // torch.profiler's ProfilerStep#N around the program's own "step N".
        let outer: Vec<NvtxRange> = (0..5u64)
            .map(|i| range(&format!("ProfilerStep#{i}"), 10_000 + i * 1000, 10_000 + i * 1000 + 999))
            .collect();
        let n = tl.ranges.len() as u32;
        for (i, r) in tl.ranges.iter_mut().enumerate() {
            r.parent = Some(n + i as u32);
            r.depth = 1;
        }
        tl.ranges.extend(outer);
        let steps = find_steps(&tl, &StepChoice::default()).unwrap().unwrap();
        assert_eq!(steps.steps.len(), 5, "{steps:?}");
        assert_eq!(steps.basis, "NVTX ranges \"ProfilerStep#N\"");
        assert_eq!((steps.first, steps.kept), (2, 3));
    }

    #[test]
    fn skip_count_range_and_all_choose_the_steps() {
        let tl = training(true);
        let pick = |steps: Option<&str>, skip| {
            let s = find_steps(&tl, &StepChoice::parse(steps, skip).unwrap()).unwrap();
            s.map(|s| (s.first, s.kept, s.auto))
        };
        assert_eq!(pick(None, Some(0)), Some((0, 5, false)));
        assert_eq!(pick(Some("1"), None), Some((2, 1, true)), "the first steady step");
        assert_eq!(pick(Some("1..3"), None), Some((1, 2, false)));
        assert_eq!(pick(Some("9"), Some(3)), Some((3, 2, false)), "a count past the end keeps what there is");
        assert_eq!(pick(Some("all"), None), None, "all: no steps, the whole run");
        let e = find_steps(&tl, &StepChoice::parse(None, Some(5)).unwrap()).unwrap_err();
        assert!(e.contains("--skip 5") && e.contains("5 steps"), "{e}");
        for bad in ["0", "3..3", "x", "2..a"] {
            let e = StepChoice::parse(Some(bad), None).unwrap_err();
            assert!(e.contains(&format!("--steps {bad}")), "{e}");
        }
        assert!(StepChoice::parse(Some("all"), Some(1)).is_err());
    }

    #[test]
    fn a_repeating_launch_sequence_is_a_step_when_nothing_is_marked() {
        let tl = training(false);
        let steps = find_steps(&tl, &StepChoice::default()).unwrap().unwrap();
        assert_eq!(steps.basis, "a repeating sequence of 3 kernel launches");
        let (kept, state) = steady_timeline(&tl, &steps);
        // Step 1's ordinary kernels repeat too; its trial kernel does not.
        assert_eq!(state.steps, 4, "{state:?}");
        assert_eq!(kept.kernel_count(), 12);
        assert_eq!(state.left_out_kernels, 2);
    }

    #[test]
    fn a_long_run_is_searched_for_its_period_quickly() {
        // 200,000 launches: one set-up kernel, then 4,000 steps of 50 launches of 4 kernels.
        let mut tl = training(false);
        tl.activities = vec![kernel(3, 0, 10)];
        for i in 0..200_000u64 {
            tl.activities.push(kernel(((i % 50) % 3) as u32 + (i % 50 == 49) as u32, 10 + 10 * i, 5));
        }
        let t = std::time::Instant::now();
        let steps = find_steps(&tl, &StepChoice::default()).unwrap().unwrap();
        assert!(t.elapsed() < std::time::Duration::from_secs(5), "{:?}", t.elapsed());
        assert_eq!(steps.basis, "a repeating sequence of 50 kernel launches");
        assert_eq!(steps.steps.len(), 4000);
        // One kernel over and over: the whole run at once, and no steps.
        tl.activities = (0..200_000).map(|i| kernel(0, 10 * i, 5)).collect();
        let t = std::time::Instant::now();
        assert_eq!(find_steps(&tl, &StepChoice::default()).unwrap(), None);
        assert!(t.elapsed() < std::time::Duration::from_secs(5), "{:?}", t.elapsed());
    }

    #[test]
    fn a_program_without_steps_keeps_its_whole_run() {
        let mut tl = training(false);
        // Ten distinct kernels once each, then the same kernel twice: nothing repeats enough.
        tl.activities.clear();
        for i in 0..5u32 {
            tl.activities.push(kernel(i, 100 * i as u64, 10));
        }
        assert_eq!(find_steps(&tl, &StepChoice::default()).unwrap(), None);
        let e = find_steps(&tl, &StepChoice::parse(Some("2"), None).unwrap()).unwrap_err();
        assert!(e.contains("marks no steps") && e.contains("NVTX"), "{e}");
        // One kernel over and over is not a step of two kernels.
        tl.activities = (0..20).map(|i| kernel(0, 100 * i, 10)).collect();
        assert_eq!(find_steps(&tl, &StepChoice::default()).unwrap(), None);
    }
}
