//! Choosing parts of a timeline by NVTX range, and grouping its time.
//!
//! NVTX ranges belong to the thread that pushed them, but work for one step
//! is often launched from several threads: PyTorch runs the backward pass on
//! its autograd threads, so a `step 3` range pushed on the main thread does
//! not enclose the backward kernels. Selection by range therefore uses the
//! range's time window: every activity of the same process whose launch call
//! (or, without one, whose start on the GPU) falls inside the window belongs
//! to it, whichever thread launched it. Grouping by range uses the innermost
//! range around the launch on the launching thread, and falls back to the
//! innermost range of the process open at that time on any thread.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::model::{Activity, ActivityKind, NvtxRange, Span, Timeline};

/// A pattern for range names: `*` matches any run of characters, `?` one
/// character; anything else matches itself. `step *` matches `step 0`,
/// `step 12`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern(String);

impl Pattern {
    /// A pattern from its text (every string is a valid pattern).
    pub fn new(p: &str) -> Pattern {
        Pattern(p.to_string())
    }

    /// Whether the whole of `text` matches (not a substring search).
    pub fn matches(&self, text: &str) -> bool {
        glob(self.0.as_bytes(), text.as_bytes())
    }
}

fn glob(p: &[u8], t: &[u8]) -> bool {
    // Iterative wildcard match with backtracking to the last star.
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == b'?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == b'*' {
        pi += 1;
    }
    pi == p.len()
}

/// One instance of a range and the activities inside its window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RangeWindow {
    /// Index into `Timeline::ranges`.
    pub range: u32,
    /// The range's message.
    pub name: String,
    /// Process id of the thread that opened it.
    pub pid: u32,
    /// System thread id of that thread.
    pub tid: u32,
    /// The range's window on the host.
    pub window: Span,
    /// Indices into `Timeline::activities`.
    pub activities: Vec<u32>,
    /// First start to last end on the GPU of those activities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_span: Option<Span>,
    /// Summed kernel time.
    pub kernel_ns: u64,
}

/// Every range whose name matches, in time order, with the activities of
/// its process launched inside its window.
pub fn windows(tl: &Timeline, pattern: &Pattern) -> Vec<RangeWindow> {
    let open_end = tl.last_ns();
    // Activities per process, by the time they were asked for.
    let mut by_pid: HashMap<u32, Vec<(u64, u32)>> = HashMap::new();
    for (i, a) in tl.activities.iter().enumerate() {
        by_pid.entry(a.pid).or_default().push((a.asked_at_ns(), i as u32));
    }
    for v in by_pid.values_mut() {
        v.sort_unstable();
    }
    let mut out: Vec<RangeWindow> = tl
        .ranges
        .iter()
        .enumerate()
        .filter(|(_, r)| pattern.matches(&r.name))
        .map(|(i, r)| {
            let window = r.span(open_end);
            let list = by_pid.get(&r.pid).map(Vec::as_slice).unwrap_or(&[]);
            let lo = list.partition_point(|&(t, _)| t < window.start_ns);
            let hi = list.partition_point(|&(t, _)| t <= window.end_ns);
            let mut acts: Vec<u32> = list[lo..hi].iter().map(|&(_, i)| i).collect();
            acts.sort_unstable();
            let gpu_span = acts.iter().map(|&i| &tl.activities[i as usize]).fold(None, |s: Option<Span>, a| {
                Some(match s {
                    None => Span { start_ns: a.start_ns, end_ns: a.end_ns },
                    Some(s) => Span { start_ns: s.start_ns.min(a.start_ns), end_ns: s.end_ns.max(a.end_ns) },
                })
            });
            let kernel_ns = acts
                .iter()
                .map(|&i| &tl.activities[i as usize])
                .filter(|a| a.kind == ActivityKind::Kernel)
                .map(Activity::duration_ns)
                .sum();
            RangeWindow {
                range: i as u32,
                name: r.name.clone(),
                pid: r.pid,
                tid: r.tid,
                window,
                activities: acts,
                gpu_span,
                kernel_ns,
            }
        })
        .collect();
    out.sort_by_key(|w| (w.window.start_ns, w.pid, w.range));
    out
}

/// The activities of the `instance`-th (0-based, in time order) range whose
/// name matches.
pub fn select_instance<'a>(tl: &'a Timeline, pattern: &Pattern, instance: usize) -> Option<Vec<&'a Activity>> {
    let w = windows(tl, pattern).into_iter().nth(instance)?;
    Some(w.activities.iter().map(|&i| &tl.activities[i as usize]).collect())
}

/// How an activity was placed in an NVTX group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupBasis {
    /// The range enclosed the launch call on the launching thread.
    Thread,
    /// Another thread of the process had the range open at that time.
    Window,
    /// No range was open in the process.
    None,
}

/// The total time of activities grouped by a key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// The range name or activity name the group collects
    /// (`(no NVTX range)` for work outside every range).
    pub key: String,
    /// Summed kernel time on the GPU, ns (overlaps counted twice).
    pub kernel_ns: u64,
    /// Kernel executions in the group.
    pub kernels: u64,
    /// Summed copy and memset time, ns.
    pub memory_ns: u64,
    /// Copies and memsets in the group.
    pub memory_ops: u64,
    /// Launches placed through another thread's range (see [`GroupBasis::Window`]).
    pub by_window: u64,
}

/// The innermost range that an activity belongs to, and how.
pub fn range_of(a: &Activity, open: &OpenRanges) -> (Option<u32>, GroupBasis) {
    if let Some(r) = a.nvtx {
        return (Some(r), GroupBasis::Thread);
    }
    match open.innermost_at(a.pid, a.asked_at_ns()) {
        Some(r) => (Some(r), GroupBasis::Window),
        None => (None, GroupBasis::None),
    }
}

/// Per process, the ranges sorted by start, to find what was open at a time.
pub struct OpenRanges<'a> {
    ranges: &'a [NvtxRange],
    by_pid: HashMap<u32, Vec<u32>>,
    open_end: u64,
}

impl<'a> OpenRanges<'a> {
    /// Indexes a timeline's ranges by process; ranges never closed count as
    /// open until the timeline's last recorded time.
    pub fn new(tl: &'a Timeline) -> OpenRanges<'a> {
        let mut by_pid: HashMap<u32, Vec<u32>> = HashMap::new();
        for (i, r) in tl.ranges.iter().enumerate() {
            by_pid.entry(r.pid).or_default().push(i as u32);
        }
        for v in by_pid.values_mut() {
            v.sort_by_key(|&i| tl.ranges[i as usize].start_ns);
        }
        OpenRanges { ranges: &tl.ranges, by_pid, open_end: tl.last_ns() }
    }

    /// The open range with the latest start (the innermost, on any thread).
    pub fn innermost_at(&self, pid: u32, t: u64) -> Option<u32> {
        let list = self.by_pid.get(&pid)?;
        let k = list.partition_point(|&i| self.ranges[i as usize].start_ns <= t);
        list[..k].iter().rev().copied().find(|&i| self.ranges[i as usize].span(self.open_end).contains(t))
    }
}

/// Time grouped by the name of the innermost NVTX range (see the module
/// docs for activities launched outside any range on their thread).
/// Largest kernel time first.
pub fn group_by_nvtx<'a>(tl: &Timeline, acts: impl IntoIterator<Item = &'a Activity>) -> Vec<Group> {
    let open = OpenRanges::new(tl);
    group(acts, |a| {
        let (r, basis) = range_of(a, &open);
        let key = r.map(|i| tl.ranges[i as usize].name.clone()).unwrap_or_else(|| "(no NVTX range)".into());
        (key, basis == GroupBasis::Window)
    })
}

/// Time grouped by activity name. Largest kernel time first.
pub fn group_by_name<'a>(tl: &Timeline, acts: impl IntoIterator<Item = &'a Activity>) -> Vec<Group> {
    group(acts, |a| (tl.names[a.name as usize].name.clone(), false))
}

fn group<'a>(
    acts: impl IntoIterator<Item = &'a Activity>,
    mut key: impl FnMut(&Activity) -> (String, bool),
) -> Vec<Group> {
    let mut groups: HashMap<String, Group> = HashMap::new();
    for a in acts {
        let (k, window) = key(a);
        let g = groups.entry(k.clone()).or_insert_with(|| Group {
            key: k,
            kernel_ns: 0,
            kernels: 0,
            memory_ns: 0,
            memory_ops: 0,
            by_window: 0,
        });
        if a.kind == ActivityKind::Kernel {
            g.kernel_ns = g.kernel_ns.saturating_add(a.duration_ns());
            g.kernels += 1;
        } else {
            g.memory_ns = g.memory_ns.saturating_add(a.duration_ns());
            g.memory_ops += 1;
        }
        g.by_window += window as u64;
    }
    let mut out: Vec<Group> = groups.into_values().collect();
    out.sort_by(|a, b| b.kernel_ns.cmp(&a.kernel_ns).then_with(|| a.key.cmp(&b.key)));
    out
}

/// The timeline of the launches asked for inside any window of a range
/// matching one of `patterns`, from whichever thread of the range's process
/// (see the module docs), with how many windows matched. Ranges, names and
/// processes stay as they were.
pub fn within_ranges(tl: &Timeline, patterns: &[Pattern]) -> (Timeline, usize) {
    let mut keep = vec![false; tl.activities.len()];
    let mut matched = 0;
    for p in patterns {
        for w in windows(tl, p) {
            matched += 1;
            for i in w.activities {
                keep[i as usize] = true;
            }
        }
    }
    let activities = tl.activities.iter().zip(&keep).filter(|(_, k)| **k).map(|(a, _)| a.clone()).collect();
    (Timeline { activities, ..tl.clone() }, matched)
}

/// ncu's `--nvtx-include` syntax as a range pattern: `domain@range/` (a
/// push/pop range, its domain) selects by the range's name alone; ncu's
/// `*` already matches as here.
pub fn ncu_nvtx_pattern(filter: &str) -> Pattern {
    let name = filter.trim_end_matches('/');
    let name = name.split_once('@').map(|(_, n)| n).unwrap_or(name);
    Pattern::new(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        let p = Pattern::new("step *");
        assert!(p.matches("step 0") && p.matches("step 12") && !p.matches("steps 1") && !p.matches("xstep 1"));
        assert!(Pattern::new("a*b*c").matches("aXXbYYc"));
        assert!(!Pattern::new("a*b*c").matches("aXXbYY"));
        assert!(Pattern::new("forward").matches("forward") && !Pattern::new("forward").matches("forward2"));
        assert!(Pattern::new("st?p").matches("stop") && Pattern::new("*").matches(""));
    }
}
