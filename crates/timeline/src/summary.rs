//! Where the GPU time went: per-name sums (like `nsys stats --report
//! cuda_gpu_kern_sum`), the GPU busy share of the wall time, and the idle
//! gaps.
//!
//! All figures are measured (CUPTI activity timestamps of the program's own
//! run, no replay) and kept in integer nanoseconds until the last step, so
//! medians, minima and maxima are exact. The median of an even count is the
//! mean of the two middle values. Busy time is the union of kernel intervals
//! per GPU across streams: two kernels running side by side count once.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::model::{Activity, ActivityKind, Span, Timeline};

/// One row of the per-name summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    /// Index into `Timeline::names`.
    pub name_id: u32,
    /// Full demangled name (see [`crate::model::ActivityName::name`]).
    pub name: String,
    /// Short name for tables.
    pub display_name: String,
    /// Kernel, copy or memset.
    pub kind: ActivityKind,
    /// Share of the summed duration of the rows' kind in the selection, 0..1.
    pub time_share: f64,
    /// Summed duration on the GPU, ns (measured, CUPTI timestamps).
    pub total_ns: u64,
    /// How many times it ran.
    pub instances: u64,
    /// Mean duration, ns.
    pub avg_ns: f64,
    /// Median duration, ns (mean of the two middle values for an even count).
    pub median_ns: f64,
    /// Shortest duration, ns.
    pub min_ns: u64,
    /// Longest duration, ns.
    pub max_ns: u64,
    /// Sample standard deviation (n - 1); 0 for one instance.
    pub stddev_ns: f64,
    /// Bytes moved (copies and memsets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
}

/// The sum of durations, at most `u64::MAX`.
fn saturating_sum(d: &[u64]) -> u64 {
    d.iter().fold(0, |s, &x| s.saturating_add(x))
}

/// Per-name sums over the activities of one kind, largest total first
/// (ties by name).
pub fn summarize<'a>(
    tl: &Timeline,
    kind: ActivityKind,
    acts: impl IntoIterator<Item = &'a Activity>,
) -> Vec<SummaryRow> {
    let mut groups: HashMap<u32, (Vec<u64>, u64)> = HashMap::new();
    for a in acts.into_iter().filter(|a| a.kind == kind) {
        let g = groups.entry(a.name).or_default();
        g.0.push(a.duration_ns());
        g.1 = g.1.saturating_add(a.bytes.unwrap_or(0));
    }
    // Saturating: the stamps come from files, and a hostile record (end 2^64 - 1)
    // must not wrap a total round (or panic in a debug build).
    let grand: u64 = groups.values().map(|(d, _)| saturating_sum(d)).fold(0, u64::saturating_add);
    let mut rows: Vec<SummaryRow> = groups
        .into_iter()
        .map(|(id, (mut d, bytes))| {
            d.sort_unstable();
            let n = d.len();
            let total = saturating_sum(&d);
            let avg = total as f64 / n as f64;
            let median = if n % 2 == 1 { d[n / 2] as f64 } else { (d[n / 2 - 1] as f64 + d[n / 2] as f64) / 2.0 };
            let stddev = if n > 1 {
                (d.iter().map(|&x| (x as f64 - avg).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
            } else {
                0.0
            };
            let name = &tl.names[id as usize];
            SummaryRow {
                name_id: id,
                name: name.name.clone(),
                display_name: name.display_name.clone(),
                kind,
                time_share: if grand > 0 { total as f64 / grand as f64 } else { 0.0 },
                total_ns: total,
                instances: n as u64,
                avg_ns: avg,
                median_ns: median,
                min_ns: d[0],
                max_ns: d[n - 1],
                stddev_ns: stddev,
                bytes: (kind != ActivityKind::Kernel).then_some(bytes),
            }
        })
        .collect();
    rows.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.name.cmp(&b.name)));
    rows
}

/// Which GPU a busy figure is for. Without a UUID from CUPTI's device
/// records, the same device number in two processes may be two GPUs
/// (CUDA_VISIBLE_DEVICES), so the key then includes the process.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct GpuKey {
    /// The process, when the GPU is only known by its number in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// CUDA device ordinal as the launching process numbers it.
    pub device: u32,
    /// Device UUID from CUPTI's device record, when one was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
}

/// An idle stretch of a GPU between two kernels (or before the first or
/// after the last, when the program's window is known).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gap {
    /// When the GPU went idle, CUPTI nanoseconds.
    pub start_ns: u64,
    /// When the next kernel started (or the program ended), CUPTI ns.
    pub end_ns: u64,
    /// `end_ns - start_ns`, ns.
    pub duration_ns: u64,
    /// The kernel that ended just before (none before the first kernel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// The kernel that started just after (none after the last).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

/// How busy one GPU was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Busy {
    /// Which GPU.
    pub gpu: GpuKey,
    /// Its product name from CUPTI's device record, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_name: Option<String>,
    /// Kernel executions on it.
    pub kernels: u64,
    /// Union of kernel intervals, ns: two kernels side by side count once.
    pub busy_ns: u64,
    /// First kernel start to last kernel end.
    pub active: Span,
    /// The wall time the share is taken of: the program's run when known,
    /// else the active span.
    pub wall_ns: u64,
    /// `program` when the wall is the program's run, `active` otherwise.
    pub wall_basis: String,
    /// `busy_ns / wall_ns`, 0..1 (1 when the wall is empty).
    pub busy_share: f64,
    /// `wall_ns - busy_ns`: time with no kernel running, ns.
    pub idle_ns: u64,
    /// Idle gaps in all (between kernels, and before/after when the wall is the program's run).
    pub gap_count: u64,
    /// The largest gaps, largest first.
    pub largest_gaps: Vec<Gap>,
}

/// Busy share and gaps per GPU, from the kernels among `acts`. `wall` is
/// the program's run on the CUPTI clock, when known; `top_gaps` how many
/// of the largest gaps to keep per GPU.
pub fn busy<'a>(
    tl: &Timeline,
    acts: impl IntoIterator<Item = &'a Activity>,
    wall: Option<Span>,
    top_gaps: usize,
) -> Vec<Busy> {
    let uuid_of: HashMap<(u32, u32), &str> =
        tl.devices.iter().filter_map(|d| d.uuid.as_deref().map(|u| ((d.pid, d.id), u))).collect();
    let name_of: HashMap<(u32, u32), &str> = tl.devices.iter().map(|d| ((d.pid, d.id), d.name.as_str())).collect();
    let mut per_gpu: HashMap<GpuKey, (Vec<&Activity>, Option<&str>)> = HashMap::new();
    for a in acts.into_iter().filter(|a| a.kind == ActivityKind::Kernel) {
        let key = match uuid_of.get(&(a.pid, a.device)) {
            Some(u) => GpuKey { pid: None, device: a.device, uuid: Some(u.to_string()) },
            None => GpuKey { pid: Some(a.pid), device: a.device, uuid: None },
        };
        let e = per_gpu.entry(key).or_insert_with(|| (Vec::new(), name_of.get(&(a.pid, a.device)).copied()));
        e.0.push(a);
    }
    let mut out: Vec<Busy> = per_gpu
        .into_iter()
        .map(|(gpu, (mut ks, gpu_name))| {
            ks.sort_by_key(|a| (a.start_ns, a.end_ns));
            let n = ks.len() as u64;
            // Merge into busy intervals, remembering the kernels at the edges.
            let mut merged: Vec<(u64, u64, usize, usize)> = Vec::new(); // start, end, first kernel, kernel ending last
            for (i, a) in ks.iter().enumerate() {
                match merged.last_mut() {
                    Some(m) if a.start_ns <= m.1 => {
                        if a.end_ns > m.1 {
                            m.1 = a.end_ns;
                            m.3 = i;
                        }
                    }
                    _ => merged.push((a.start_ns, a.end_ns, i, i)),
                }
            }
            let busy_ns: u64 = merged.iter().map(|m| m.1 - m.0).sum();
            let active = Span { start_ns: merged[0].0, end_ns: merged.iter().map(|m| m.1).max().unwrap_or(0) };
            let (window, basis) = match wall {
                Some(w) if w.duration_ns() > 0 => {
                    (Span { start_ns: w.start_ns.min(active.start_ns), end_ns: w.end_ns.max(active.end_ns) }, "program")
                }
                _ => (active, "active"),
            };
            let name = |i: usize| tl.names[ks[i].name as usize].display_name.clone();
            let mut gaps = Vec::new();
            if basis == "program" && window.start_ns < active.start_ns {
                gaps.push(Gap {
                    start_ns: window.start_ns,
                    end_ns: active.start_ns,
                    duration_ns: active.start_ns - window.start_ns,
                    before: None,
                    after: Some(name(merged[0].2)),
                });
            }
            for w in merged.windows(2) {
                gaps.push(Gap {
                    start_ns: w[0].1,
                    end_ns: w[1].0,
                    duration_ns: w[1].0 - w[0].1,
                    before: Some(name(w[0].3)),
                    after: Some(name(w[1].2)),
                });
            }
            if basis == "program" && window.end_ns > active.end_ns {
                let last = merged.last().expect("at least one kernel");
                gaps.push(Gap {
                    start_ns: active.end_ns,
                    end_ns: window.end_ns,
                    duration_ns: window.end_ns - active.end_ns,
                    before: Some(name(last.3)),
                    after: None,
                });
            }
            let wall_ns = window.duration_ns();
            let gap_count = gaps.len() as u64;
            gaps.sort_by(|a, b| b.duration_ns.cmp(&a.duration_ns).then(a.start_ns.cmp(&b.start_ns)));
            gaps.truncate(top_gaps);
            Busy {
                gpu,
                gpu_name: gpu_name.map(str::to_string),
                kernels: n,
                busy_ns,
                active,
                wall_ns,
                wall_basis: basis.into(),
                busy_share: if wall_ns > 0 { busy_ns as f64 / wall_ns as f64 } else { 1.0 },
                idle_ns: wall_ns.saturating_sub(busy_ns),
                gap_count,
                largest_gaps: gaps,
            }
        })
        .collect();
    out.sort_by(|a, b| a.gpu.cmp(&b.gpu));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ActivityName;

    #[test]
    fn a_record_ending_at_the_last_nanosecond_does_not_wrap_the_totals() {
        // Found by the fourth adversarial pass (L3): start 0 and end 2^64 - 1
        // made the total kernel time wrap round to 999 ns (and would panic
        // in a debug build).
        let tl = tl_with(&[(0, 0, u64::MAX), (0, 10, 1009), (1, 0, u64::MAX)]);
        let rows = summarize(&tl, ActivityKind::Kernel, &tl.activities);
        assert_eq!(rows.iter().map(|r| r.total_ns).max(), Some(u64::MAX));
        assert!(
            rows.iter().all(|r| r.total_ns >= u64::MAX - 1),
            "{:?}",
            rows.iter().map(|r| r.total_ns).collect::<Vec<_>>()
        );
    }

    fn tl_with(durations: &[(u32, u64, u64)]) -> Timeline {
        let names = (0..3)
            .map(|i| ActivityName {
                name: format!("k{i}"),
                mangled: None,
                display_name: format!("k{i}"),
                kind: ActivityKind::Kernel,
            })
            .collect();
        let activities = durations
            .iter()
            .enumerate()
            .map(|(i, &(name, start, end))| Activity {
                kind: ActivityKind::Kernel,
                name,
                start_ns: start,
                end_ns: end,
                pid: 1,
                device: 0,
                context: 1,
                stream: 7 + (i as u32 % 2),
                correlation: i as u32,
                grid: None,
                block: None,
                registers: None,
                shared_static: None,
                shared_dynamic: None,
                bytes: None,
                graph: None,
                graph_node: None,
                launch: None,
                nvtx: None,
            })
            .collect();
        Timeline { names, activities, ..Timeline::default() }
    }

    #[test]
    fn median_min_max_are_exact_on_known_durations() {
        // k0: 10, 20, 30, 40 ns; k1: 5, 7, 100 ns.
        let tl = tl_with(&[
            (0, 0, 10),
            (0, 100, 120),
            (0, 200, 230),
            (0, 300, 340),
            (1, 400, 405),
            (1, 500, 507),
            (1, 600, 700),
        ]);
        let rows = summarize(&tl, ActivityKind::Kernel, &tl.activities);
        assert_eq!(rows.len(), 2);
        let k1 = &rows[0];
        assert_eq!((k1.name.as_str(), k1.total_ns, k1.instances), ("k1", 112, 3));
        assert_eq!((k1.median_ns, k1.min_ns, k1.max_ns), (7.0, 5, 100));
        let k0 = &rows[1];
        assert_eq!((k0.total_ns, k0.median_ns, k0.min_ns, k0.max_ns, k0.avg_ns), (100, 25.0, 10, 40, 25.0));
        assert!((k0.stddev_ns - 12.909944487358056).abs() < 1e-9, "{}", k0.stddev_ns);
        assert!((k1.time_share - 112.0 / 212.0).abs() < 1e-12);
    }

    #[test]
    fn overlapping_streams_count_once_and_gaps_are_between_the_union() {
        // Two streams: [0,100] and [50,150] overlap; then [200,250]; then [400,410].
        let tl = tl_with(&[(0, 0, 100), (1, 50, 150), (2, 200, 250), (0, 400, 410)]);
        let b = busy(&tl, &tl.activities, None, 10);
        assert_eq!(b.len(), 1);
        let b = &b[0];
        assert_eq!(b.busy_ns, 150 + 50 + 10);
        assert_eq!(b.wall_ns, 410);
        assert_eq!(b.wall_basis, "active");
        assert_eq!(b.gap_count, 2);
        assert_eq!(b.largest_gaps[0].duration_ns, 150);
        assert_eq!(b.largest_gaps[0].before.as_deref(), Some("k2"));
        assert_eq!(b.largest_gaps[0].after.as_deref(), Some("k0"));
        assert_eq!(b.largest_gaps[1].duration_ns, 50);
        assert_eq!(b.largest_gaps[1].before.as_deref(), Some("k1"), "the kernel that ended last before the gap");
        assert_eq!(b.idle_ns, 200);
    }

    #[test]
    fn program_window_adds_leading_and_trailing_idle_time() {
        let tl = tl_with(&[(0, 1000, 1100), (0, 1200, 1300)]);
        let wall = Span { start_ns: 0, end_ns: 2000 };
        let b = &busy(&tl, &tl.activities, Some(wall), 1)[0];
        assert_eq!(b.wall_basis, "program");
        assert_eq!(b.wall_ns, 2000);
        assert_eq!(b.busy_ns, 200);
        assert!((b.busy_share - 0.1).abs() < 1e-12);
        assert_eq!(b.gap_count, 3);
        assert_eq!(b.largest_gaps.len(), 1);
        assert_eq!(b.largest_gaps[0].start_ns, 0, "the leading gap, 1000 ns, is the largest");
        assert_eq!(b.largest_gaps[0].before, None);
    }
}
