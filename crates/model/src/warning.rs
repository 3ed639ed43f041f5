//! What a reader of an analysis must know, as data: a code with its numbers
//! and names. The English is produced when rendering ([`Warning::text`], or
//! `Display`), so that tests match codes and every view words a warning the
//! same way.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::machine::MemLevel;

/// Metrics a capture lacks, and what each one's absence blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MissingMetric {
    /// The column(s) that would have filled the value ("a or b").
    pub metrics: Vec<String>,
    /// What is lost without it.
    pub blocks: String,
}

/// A kernel some of whose launches have no positive duration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartlyTimedKernel {
    /// Its display name.
    pub kernel: String,
    /// Launches left out of its point.
    pub left_out: u64,
    /// All its launches.
    pub launches: u64,
    /// The capture lines of the first launches left out.
    pub lines: Vec<u64>,
}

/// A point above its roof by more than the tolerance
/// ([`roofline_analysis::IMPLAUSIBLE_PCT_OF_ROOF`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AboveRoofPoint {
    /// The kernel's display name.
    pub kernel: String,
    /// The roof ("DRAM bandwidth", "FP32 compute").
    pub roof: String,
    /// The point's % of that roof.
    pub pct: f64,
}

/// A launch whose duration is below the physical floor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShortLaunch {
    /// Its kernel's display name.
    pub kernel: String,
    /// Its line in the capture.
    pub line: u64,
    /// The duration read, in seconds.
    pub duration_s: f64,
}

/// One warning of an analysis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "code")]
pub enum Warning {
    /// Metrics the capture lacks; the rest is analysed.
    MissingMetrics {
        /// Each missing metric and what its absence blocks.
        missing: Vec<MissingMetric>,
    },
    /// Launches without a positive duration: no rates for them.
    NoDuration {
        /// How many.
        launches: u64,
    },
    /// Kernels timed in some launches only: the untimed launches are left
    /// out of the point, so that FLOPs and bytes are divided by the time of
    /// the same launches (else the rates would be inflated).
    PartlyTimed {
        /// The kernels, with their left-out launches.
        kernels: Vec<PartlyTimedKernel>,
    },
    /// Launches whose duration is below the physical floor (ncu prints whole
    /// nanoseconds; nothing runs under 1 ns): treated as having no duration,
    /// so their FLOPs and bytes count but enter no rate.
    DurationBelowFloor {
        /// The duration column.
        metric: String,
        /// The floor, in seconds.
        floor_s: f64,
        /// How many launches.
        launches: u64,
        /// The first few of them.
        examples: Vec<ShortLaunch>,
    },
    /// Points above their roof by more than the tolerance: not a
    /// measurement (a wrong unit or an edited capture).
    AboveRoof {
        /// The tolerance, % of the roof.
        limit_pct: f64,
        /// The points.
        points: Vec<AboveRoofPoint>,
    },
    /// A clock counter reads 0 in some launches: no counter roof is made
    /// from it for them.
    ClockStopped {
        /// The clock counter.
        metric: String,
        /// Launches where it reads 0.
        launches: u64,
    },
    /// Kernels whose FP16 came from HFMA alone beside other work: taken for
    /// constant moves (HFMA2.MMA) and left out of the FLOPs.
    Fp16ConstantMoves {
        /// Their display names.
        kernels: Vec<String>,
    },
    /// Kernels with FP16 FLOPs whose packing (half2 or scalar) the counters
    /// cannot tell: counted as packed, the roof's convention.
    Fp16PackingUnknown {
        /// Their display names.
        kernels: Vec<String>,
    },
    /// Points not measured at a level (kept off the chart).
    LevelNotMeasured {
        /// The memory level.
        level: MemLevel,
        /// Display names of the kernels concerned.
        kernels: Vec<String>,
    },
    /// Neither counter peaks nor a machine: nothing to judge against.
    NoRoofs,
    /// The capture cannot be a whole training step: optimizer kernels
    /// without a single backward kernel (an NVTX push/pop filter sees only
    /// the thread that pushed the range, and autograd runs the backward on
    /// its own thread), or autotuning trial kernels.
    CaptureScope {
        /// What is missing or extra, in words.
        reason: String,
    },
    /// Kernels that ran under ncu in place of planned ones: an autotuner
    /// that times its candidates (cuDNN's `benchmark`) picks others with
    /// ncu attached, so the planned kernel never runs in the counter pass.
    /// The one that ran in its place, in the same stretch of the step and
    /// of the same kind, lends it its counters; its time stays the
    /// timeline's.
    StandIns {
        /// "planned" and "ran in its place", by display name.
        pairs: Vec<(String, String)>,
        /// The share of the judged GPU time whose counters are a stand-in's, percent.
        time_pct: f64,
    },
    /// A line Nsight Compute printed as an error.
    Profiler {
        /// The line, as ncu printed it.
        message: String,
    },
    /// The profiled program stopped early; the launches before are analysed.
    ProgramFailed {
        /// The program's name.
        program: String,
        /// Its exit status, when it exited.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<i32>,
        /// The signal that ended it ("SIGSEGV"), when one did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signal: Option<String>,
        /// How the tool itself stopped the program: "--timeout" or the
        /// signal the tool received ("SIGINT"), when it did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stopped_by: Option<String>,
        /// Launches profiled before it stopped, all analysed.
        launches_analysed: u64,
    },
    /// A note of the capture reader about its input (names the input).
    Capture {
        /// The note, in English.
        message: String,
    },
    /// Rank files of one rank joined into one (a merge of several passes).
    RanksJoined {
        /// The rank.
        rank: u32,
        /// The files joined.
        inputs: Vec<String>,
    },
    /// The ranks were analysed against different machines; the merged job
    /// is judged against the first one.
    MachinesDiffer {
        /// The machines' names.
        machines: Vec<String>,
        /// The one the job is judged against.
        judged_against: String,
    },
    /// A page (HTML, SVG) shows only the kernels with the most GPU time;
    /// the JSON and CSV hold them all.
    PageShowsTop {
        /// Kernels shown.
        shown: u64,
        /// Kernels left out.
        left_out: u64,
        /// Their share of the GPU time, %.
        left_out_time_pct: f64,
    },
    /// Text from a document written before warnings were typed.
    Legacy {
        /// The warning's text as the old document had it.
        text: String,
    },
}

/// How many names a warning's text lists before it counts the rest: the
/// JSON keeps them all, a line on stderr stays readable with 10^6 kernels.
pub const NAMED_IN_TEXT: usize = 5;

/// "a, b, c, d, e and 19,995 more": the first [`NAMED_IN_TEXT`] items
/// joined with `sep`, the rest counted. For every message that names
/// kernels, so that none grows with their number.
pub fn bounded<S: AsRef<str>>(items: &[S], sep: &str) -> String {
    let named: Vec<&str> = items.iter().take(NAMED_IN_TEXT).map(AsRef::as_ref).collect();
    match items.len().saturating_sub(NAMED_IN_TEXT) {
        0 => named.join(sep),
        rest => format!("{} and {} more", named.join(sep), grouped(rest)),
    }
}

/// 19995 as "19,995".
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

fn list(names: &[String]) -> String {
    bounded(names, ", ")
}

impl Warning {
    /// The warning's code as JSON names it ("missing_metrics").
    pub fn code(&self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.get("code").and_then(|c| c.as_str()).map(str::to_string))
            .unwrap_or_default()
    }

    /// The warning in English.
    pub fn text(&self) -> String {
        match self {
            Warning::MissingMetrics { missing } => {
                let parts: Vec<String> =
                    missing.iter().map(|m| format!("{} (blocks {})", m.metrics.join(" or "), m.blocks)).collect();
                format!("missing metrics, the rest is analysed: {}", parts.join("; "))
            }
            Warning::NoDuration { launches } => format!(
                "{launches} launch(es) have no positive gpu__time_duration.sum: no rates for them (FLOPs and bytes still count)"
            ),
            Warning::PartlyTimed { kernels } => {
                let parts: Vec<String> = kernels
                    .iter()
                    .map(|k| {
                        let lines: Vec<String> = k.lines.iter().map(|l| l.to_string()).collect();
                        let more = if k.left_out as usize > k.lines.len() { ", ..." } else { "" };
                        format!(
                            "{} ({} of {} launches, line {}{more})",
                            k.kernel,
                            k.left_out,
                            k.launches,
                            lines.join(", ")
                        )
                    })
                    .collect();
                format!(
                    "launches with no positive gpu__time_duration.sum (zero, under 1 ns, n/a or missing) are left out of their kernel's point, so that its FLOPs and bytes are divided by the time of the same launches: {}",
                    bounded(&parts, "; ")
                )
            }
            Warning::DurationBelowFloor { metric, floor_s, launches, examples } => {
                let parts: Vec<String> = examples
                    .iter()
                    .map(|e| format!("{} (line {}: {:.3e} ns)", e.kernel, e.line, e.duration_s * 1e9))
                    .collect();
                let more = if *launches as usize > examples.len() { ", ..." } else { "" };
                format!(
                    "{launches} launch(es) have a {metric} below {} ns, shorter than anything a GPU runs (ncu prints whole nanoseconds): they are treated as having no duration, so they enter no rate (FLOPs and bytes still count): {}{more}; check the column's unit and how the file was made",
                    floor_s * 1e9,
                    parts.join(", ")
                )
            }
            Warning::AboveRoof { limit_pct, points } => {
                let parts: Vec<String> =
                    points.iter().map(|p| format!("{} at {:.0}% of the {} roof", p.kernel, p.pct, p.roof)).collect();
                format!(
                    "{} point(s) above their roof by more than the {limit_pct:.0}% a measurement reaches (clock changes within a launch give up to about 106%): {}; likely a duration too short for its launch (a time column in the wrong unit, an edited capture) or a counter in the wrong unit, so these rates are not to be trusted",
                    points.len(),
                    bounded(&parts, "; ")
                )
            }
            Warning::ClockStopped { metric, launches } => format!(
                "{metric} (a clock) is 0 in {launches} launch(es): no counter roof is made from it for them; a real capture never has a stopped clock, so check how the file was made"
            ),
            Warning::Fp16ConstantMoves { kernels } => format!(
                "FP16 pipe: constant moves in {}: HFMA instructions alone, a small share beside other work, are what compilers emit (HFMA2.MMA) to move constants into registers; they are reported apart and not counted as FP16 FLOPs",
                list(kernels)
            ),
            Warning::Fp16PackingUnknown { kernels } => format!(
                "FP16 in {} is counted as packed half2 (4 FLOPs per HFMA, Nsight Compute's and the roof's convention); the counters cannot tell scalar half instructions apart, which do half of that: each diagnosis gives both figures",
                list(kernels)
            ),
            Warning::LevelNotMeasured { level, kernels } => format!(
                "{} points of {} are not measured at that level (their counters miss part of the traffic) and are kept off the chart; each diagnosis says why",
                level.label(),
                list(kernels)
            ),
            Warning::CaptureScope { reason } => format!("the capture may not be the whole step: {reason}"),
            Warning::NoRoofs => "no roofs: the capture has no *.peak_sustained counters and no machine was given; give --machine FILE (from `roofline bench -o`) or --gpu NAME".into(),
            Warning::StandIns { pairs, time_pct } => format!(
                "under ncu, {} planned kernel(s) never ran and others ran in their place (an autotuner such as cudnn.benchmark times its candidates with ncu attached and picks differently): their counters stand in for {time_pct:.1}% of the GPU time, with the planned kernels' own times: {}",
                pairs.len(),
                bounded(&pairs.iter().map(|(p, r)| format!("{p} -> {r}")).collect::<Vec<_>>(), "; ")
            ),
            Warning::Profiler { message } => format!("ncu: {message}"),
            Warning::ProgramFailed { program, status, signal, stopped_by, launches_analysed } => {
                let how = match (stopped_by.as_deref(), status, signal) {
                    (Some("--timeout"), ..) => format!("--timeout reached: ncu and {program} were stopped"),
                    (Some(sig), ..) => format!("interrupted ({sig}): ncu and {program} were stopped"),
                    (None, Some(c), _) => format!("{program} exited with status {c}"),
                    (None, None, Some(s)) => format!("{program} was stopped by a signal ({s})"),
                    (None, None, None) => format!("{program} failed"),
                };
                format!("{how}; the {launches_analysed} launch(es) profiled before that are analysed")
            }
            Warning::Capture { message } => message.clone(),
            Warning::RanksJoined { rank, inputs } => {
                format!("rank {rank}: {} are joined into one rank (two passes of one process?)", bounded(inputs, " and "))
            }
            Warning::MachinesDiffer { machines, judged_against } => format!(
                "the ranks were analysed against different machines ({}): the job is judged against {judged_against}",
                list(machines)
            ),
            Warning::PageShowsTop { shown, left_out, left_out_time_pct } => format!(
                "This page shows the {shown} kernels with the most GPU time; the other {left_out} ({left_out_time_pct:.1}% of the GPU time) are in the analysis JSON and CSV. The summary counts all {}.",
                shown + left_out
            ),
            Warning::Legacy { text } => text.clone(),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_serialise_as_codes_with_their_numbers() {
        let w = Warning::NoDuration { launches: 3 };
        let v = serde_json::to_value(&w).unwrap();
        assert_eq!(v, serde_json::json!({"code": "no_duration", "launches": 3}));
        assert_eq!(w.code(), "no_duration");
        assert!(w.to_string().starts_with("3 launch(es) have no positive"));
        let back: Warning = serde_json::from_value(v).unwrap();
        assert_eq!(back, w);
    }

    /// Adversarial pass 5, F14: a capture of 20,000 kernels made one
    /// stderr line of 229,042 characters naming them all.
    #[test]
    fn a_warning_about_many_kernels_names_the_first_few_and_counts_the_rest() {
        let kernels: Vec<String> = (0..20_000).map(|i| format!("kern_{i}")).collect();
        let hidden = Warning::LevelNotMeasured { level: MemLevel::L1, kernels: kernels.clone() }.text();
        assert!(hidden.contains("kern_0, kern_1, kern_2, kern_3, kern_4 and 19,995 more are not measured"), "{hidden}");
        assert!(!hidden.contains("kern_5"), "{hidden}");
        let partly = Warning::PartlyTimed {
            kernels: kernels
                .iter()
                .map(|k| PartlyTimedKernel { kernel: k.clone(), left_out: 1, launches: 2, lines: vec![3] })
                .collect(),
        }
        .text();
        let above = Warning::AboveRoof {
            limit_pct: 110.0,
            points: kernels
                .iter()
                .map(|k| AboveRoofPoint { kernel: k.clone(), roof: "DRAM bandwidth".into(), pct: 200.0 })
                .collect(),
        }
        .text();
        for text in [
            hidden,
            partly,
            above,
            Warning::Fp16ConstantMoves { kernels: kernels.clone() }.text(),
            Warning::Fp16PackingUnknown { kernels: kernels.clone() }.text(),
            Warning::RanksJoined { rank: 0, inputs: kernels.clone() }.text(),
        ] {
            assert!(text.len() < 1000 && text.contains(" and 19,995 more"), "{} chars: {text:.300}", text.len());
        }
        // A short list is said whole.
        assert_eq!(bounded(&kernels[..5], ", "), "kern_0, kern_1, kern_2, kern_3, kern_4");
        assert_eq!(bounded(&kernels[..6], ", "), "kern_0, kern_1, kern_2, kern_3, kern_4 and 1 more");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(999), "999");
    }

    #[test]
    fn a_failed_program_says_how() {
        let w = Warning::ProgramFailed {
            program: "./app".into(),
            status: Some(3),
            signal: None,
            stopped_by: None,
            launches_analysed: 2,
        };
        assert_eq!(w.text(), "./app exited with status 3; the 2 launch(es) profiled before that are analysed");
        let w = Warning::ProgramFailed {
            program: "./app".into(),
            status: None,
            signal: Some("SIGTERM".into()),
            stopped_by: Some("--timeout".into()),
            launches_analysed: 2,
        };
        assert_eq!(
            w.text(),
            "--timeout reached: ncu and ./app were stopped; the 2 launch(es) profiled before that are analysed"
        );
    }
}

/// Serde `serialize_with` for a document's warnings: each warning's code
/// and numbers, plus `text`, its English, for readers of the JSON that do
/// not render codes themselves (the Python package, `jq`). Reading ignores
/// `text`: the English is made again from the code.
pub fn serialize_with_text<S: serde::Serializer>(warnings: &[Warning], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::{Error, SerializeSeq};
    let mut seq = s.serialize_seq(Some(warnings.len()))?;
    for w in warnings {
        let mut v = serde_json::to_value(w).map_err(S::Error::custom)?;
        if let Some(m) = v.as_object_mut() {
            m.insert("text".into(), w.text().into());
        }
        seq.serialize_element(&v)?;
    }
    seq.end()
}

#[cfg(test)]
mod text_tests {
    use super::*;

    #[test]
    fn warnings_carry_their_english_in_json_and_read_back_without_it() {
        let w = vec![Warning::NoDuration { launches: 3 }];
        #[derive(serde::Serialize, serde::Deserialize)]
        struct Doc {
            #[serde(serialize_with = "serialize_with_text")]
            warnings: Vec<Warning>,
        }
        let json = serde_json::to_string(&Doc { warnings: w.clone() }).unwrap();
        assert!(json.contains(&format!("\"text\":{}", serde_json::to_string(&w[0].text()).unwrap())), "{json}");
        let back: Doc = serde_json::from_str(&json).unwrap();
        assert_eq!(back.warnings, w);
    }
}
