//! NCCL's kernels under Nsight Compute: which counters they need and how to
//! profile them without hanging the job.
//!
//! A collective kernel on one rank cannot finish until its peers run their
//! half. Nsight Compute replays a kernel once per pass of counters, saving
//! and restoring its memory in between; a rank that replays a collective
//! while its peers do not waits forever (or reads peer memory that moved
//! on). So a collective is either profiled in a single pass (its duration
//! and its NVLink bytes fit in one), or with every rank's ncu in lockstep
//! (`--communicator` and `--lockstep-kernel-launch`, in recent Nsight
//! Compute), or left out of the profile. [`Mode`] names the choice;
//! [`plan`] turns it into ncu arguments.
//!
//! NVLink counters (`nvlrx__bytes`, `nvltx__bytes`: bytes received and sent
//! over the GPU's NVLinks) exist only where the GPU has NVLinks; they are
//! asked for when `ncu --query-metrics` lists them, under their plain name
//! or a prefixed one (`NVLTX.TriageCompute.nvltx__bytes`), and read from
//! either column.

use std::collections::HashSet;

use crate::metrics::nvlink_metrics;

/// ncu's kernel filter for NCCL's kernels (their names start with `nccl`:
/// `ncclDevKernel_*`, `ncclKernel_*`).
pub const NCCL_ONLY: &str = "regex:^nccl";
/// ncu's kernel filter for every other kernel: names whose first four
/// letters are not `nccl`, spelt without a lookahead so that any regular
/// expression flavour takes it.
pub const NOT_NCCL: &str = "regex:^([^n]|n[^c]|nc[^c]|ncc[^l]|n$|nc$|ncc$)";

/// How a profile treats NCCL's kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Under a launcher of several ranks: lockstep when this ncu can,
    /// otherwise skip (and say how to profile them in a second pass);
    /// with one process: profile everything as usual.
    #[default]
    Auto,
    /// Every kernel, with the full metric list (one process driving all its
    /// GPUs, or a single GPU).
    All,
    /// Every kernel but NCCL's.
    Skip,
    /// NCCL's kernels alone, in one pass: duration and NVLink bytes.
    Only,
    /// Every kernel, each rank's ncu replaying in lockstep with the others.
    Lockstep,
}

impl Mode {
    /// Reads `--collectives` (auto, all, skip, only, lockstep; any case).
    pub fn parse(s: &str) -> Option<Mode> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Mode::Auto,
            "all" => Mode::All,
            "skip" => Mode::Skip,
            "only" => Mode::Only,
            "lockstep" => Mode::Lockstep,
            _ => return None,
        })
    }
}

/// ncu's options for ranks in lockstep, as this ncu spells them (from its
/// `--help`), for `peers` ranks; `None` when it has no lockstep.
pub fn lockstep_args(help: &str, peers: u32) -> Option<Vec<String>> {
    if !help.contains("--lockstep-kernel-launch") || !help.contains("--communicator") {
        return None;
    }
    let peers_flag =
        ["--communicator-tcp-num-peers", "--communicator-num-peers"].into_iter().find(|f| help.contains(f))?;
    Some(vec![
        "--communicator".into(),
        "tcp".into(),
        peers_flag.into(),
        peers.to_string(),
        "--lockstep-kernel-launch".into(),
    ])
}

/// What a profile run does about collectives.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The mode decided (never `Auto`).
    pub mode: Mode,
    /// `-k` filter to use, when the mode needs one.
    pub kernel_filter: Option<&'static str>,
    /// More ncu arguments (lockstep).
    pub extra: Vec<String>,
    /// Metrics to collect instead of the full list (`Only`).
    pub metrics: Option<Vec<String>>,
    /// What to tell the user.
    pub note: Option<String>,
}

/// Decides how to profile collectives: `world` is the job's rank count
/// from the launcher (`None` outside one), `help` ncu's `--help` text,
/// `known` its metric names (for the one-pass list).
pub fn plan(mode: Mode, world: Option<u32>, help: &str, known: Option<&HashSet<String>>) -> Result<Plan, String> {
    let ranks = world.unwrap_or(1);
    let lockstep = lockstep_args(help, ranks);
    let mode = match mode {
        Mode::Auto if ranks > 1 && lockstep.is_some() => Mode::Lockstep,
        Mode::Auto if ranks > 1 => Mode::Skip,
        Mode::Auto => Mode::All,
        m => m,
    };
    let mut p = Plan { mode, kernel_filter: None, extra: Vec::new(), metrics: None, note: None };
    match mode {
        Mode::All | Mode::Auto => {}
        Mode::Skip => {
            p.kernel_filter = Some(NOT_NCCL);
            p.note = Some(format!(
                "NCCL kernels are not profiled in this pass: replaying a collective on one rank of {ranks} hangs the job{}; profile them in a second pass with `--collectives only` (one pass: duration and NVLink bytes) and give both files to `roofline merge`",
                if lockstep.is_none() { " and this ncu has no --lockstep-kernel-launch" } else { "" }
            ));
        }
        Mode::Only => {
            p.kernel_filter = Some(NCCL_ONLY);
            let mut m = vec!["gpu__time_duration.sum".to_string(), "launch__grid_size".into(), "launch__block_size".into()];
            let nvl = known.map(nvlink_metrics).unwrap_or_default();
            if nvl.is_empty() {
                p.note = Some("this ncu offers no NVLink counters on this machine: collectives get their duration, not their bytes".into());
            }
            m.extend(nvl);
            p.metrics = Some(m);
        }
        Mode::Lockstep => match lockstep {
            Some(args) => p.extra = args,
            None => {
                return Err(
                    "--collectives lockstep: this ncu has no --lockstep-kernel-launch (Nsight Compute 2025.3 and older); use --collectives skip and a second pass with --collectives only".into(),
                )
            }
        },
    }
    Ok(p)
}

/// Whether a metric list reads NVLink bytes.
#[cfg(test)]
fn reads_nvlink(metrics: &[String]) -> bool {
    metrics.iter().any(|m| {
        let b = crate::metrics::base_name(m);
        b.ends_with("nvlrx__bytes")
            || b.ends_with("nvltx__bytes")
            || b.contains("nvltx__bytes_data")
            || b.contains("nvlrx__bytes_data")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Slot;

    fn known(names: &[&str]) -> HashSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn nvlink_counters_by_plain_or_prefixed_name_and_none_without_nvlink() {
        let plain =
            known(&["nvlrx__bytes", "nvltx__bytes", "nvltx__bytes_data_user", "nvlrx__bytes_data_user", "dram__bytes"]);
        assert_eq!(nvlink_metrics(&plain), vec!["nvlrx__bytes_data_user.sum", "nvltx__bytes_data_user.sum"]);
        let prefixed = known(&["NVLRX.TriageCompute.nvlrx__bytes", "NVLTX.TriageCompute.nvltx__bytes"]);
        assert_eq!(
            nvlink_metrics(&prefixed),
            vec!["NVLRX.TriageCompute.nvlrx__bytes.sum", "NVLTX.TriageCompute.nvltx__bytes.sum"]
        );
        assert!(nvlink_metrics(&known(&["dram__bytes", "FBSP.TriageCompute.dramc__cycles_elapsed"])).is_empty());
        assert!(reads_nvlink(&nvlink_metrics(&plain)));
        assert!(!reads_nvlink(&["dram__bytes.sum".to_string()]));
    }

    const NEW_HELP: &str =
        "  --communicator arg    tcp or shmem\n  --communicator-tcp-num-peers arg\n  --lockstep-kernel-launch\n";
    const OLD_HELP: &str = "  --kernel-name arg\n  --replay-mode arg\n";

    /// The exclusion filter, checked with a tiny matcher of its one
    /// construct (alternatives of literal and negated classes at the start).
    #[test]
    fn the_exclusion_filter_keeps_every_kernel_but_nccls() {
        let alts: Vec<&str> = NOT_NCCL.trim_start_matches("regex:^(").trim_end_matches(')').split('|').collect();
        let matches_alt = |alt: &str, name: &str| -> bool {
            let mut chars = name.chars();
            let mut rest = alt;
            while !rest.is_empty() {
                if rest == "$" {
                    return chars.next().is_none();
                }
                if let Some(r) = rest.strip_prefix("[^") {
                    let (c, after) = (r.chars().next().unwrap(), &r[2..]);
                    match chars.next() {
                        Some(x) if x != c => rest = after,
                        _ => return false,
                    }
                } else {
                    let c = rest.chars().next().unwrap();
                    if chars.next() != Some(c) {
                        return false;
                    }
                    rest = &rest[1..];
                }
            }
            true
        };
        let kept = |name: &str| alts.iter().any(|a| matches_alt(a, name));
        for name in ["gemm", "ampere_sgemm", "nc", "n", "ncc", "nccx_like", "vectorized_elementwise_kernel"] {
            assert!(kept(name), "{name} is profiled");
        }
        for name in ["ncclDevKernel_AllReduce_Sum_f32_RING_LL", "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", "nccl"] {
            assert!(!kept(name), "{name} is left out");
        }
    }

    #[test]
    fn lockstep_follows_this_ncus_own_flags() {
        assert_eq!(
            lockstep_args(NEW_HELP, 2).unwrap(),
            vec!["--communicator", "tcp", "--communicator-tcp-num-peers", "2", "--lockstep-kernel-launch"]
        );
        let older = "--communicator\n--communicator-num-peers\n--lockstep-kernel-launch";
        assert_eq!(lockstep_args(older, 4).unwrap()[2], "--communicator-num-peers");
        assert_eq!(lockstep_args(OLD_HELP, 2), None);
    }

    #[test]
    fn auto_keeps_one_process_whole_and_never_replays_a_lone_rank() {
        assert_eq!(plan(Mode::Auto, None, OLD_HELP, None).unwrap().mode, Mode::All);
        assert_eq!(plan(Mode::Auto, Some(1), NEW_HELP, None).unwrap().mode, Mode::All);
        let lock = plan(Mode::Auto, Some(2), NEW_HELP, None).unwrap();
        assert_eq!((lock.mode, lock.kernel_filter), (Mode::Lockstep, None));
        assert!(lock.extra.contains(&"--lockstep-kernel-launch".to_string()));
        let skip = plan(Mode::Auto, Some(2), OLD_HELP, None).unwrap();
        assert_eq!((skip.mode, skip.kernel_filter), (Mode::Skip, Some(NOT_NCCL)));
        assert!(skip.note.unwrap().contains("--collectives only"));
    }

    /// A one-pass capture of two NCCL launches and a GEMM, as `--collectives
    /// only` writes it on a machine with NVLinks (prefixed counter names).
    #[test]
    fn a_collective_capture_is_placed_against_the_all_reduce_roof() {
        use roofline_analysis::TimeClass;
        use roofline_model::CollectiveOp;
        use roofline_model::Link;
        use roofline_model::{Ceiling, Machine, Origin, Provenance, Resource};
        let text = "==PROF== Connected to process 7 (/usr/bin/python3)\n\
\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"gpu__time_duration.sum\",\"NVLRX.TriageCompute.nvlrx__bytes.sum\",\"NVLTX.TriageCompute.nvltx__bytes.sum\"\n\
\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"usecond\",\"Mbyte\",\"Mbyte\"\n\
\"0\",\"7\",\"python3\",\"h\",\"ncclDevKernel_AllReduce_Sum_f32_RING_SIMPLE(ncclDevKernelArgsStorage<4096ul>)\",\"1\",\"13\",\"(512, 1, 1)\",\"(24, 1, 1)\",\"0\",\"9.0\",\"100\",\"25\",\"30\"\n\
\"1\",\"7\",\"python3\",\"h\",\"ncclDevKernel_AllReduce_Sum_f32_RING_SIMPLE(ncclDevKernelArgsStorage<4096ul>)\",\"1\",\"13\",\"(512, 1, 1)\",\"(24, 1, 1)\",\"0\",\"9.0\",\"100\",\"25\",\"30\"\n";
        let cap = crate::read_capture(text.as_bytes(), "nccl.csv").unwrap();
        assert_eq!(cap.launches.len(), 2);
        assert_eq!(cap.launches[0].get(Slot::NvlinkTx), Some(30e6));
        let ar = Link::Collective { op: CollectiveOp::AllReduce, gpus: 2 };
        let mut m = Machine { name: "pair".into(), ..Default::default() };
        m.ceilings.push(Ceiling::new(
            Resource::Link(ar),
            "all-reduce bus over 2 GPUs (measured)",
            400e9,
            Provenance::new(Origin::Measured, "bench"),
        ));
        let a = roofline_analysis::analyze_capture(&crate::capture(&cap, &crate::Options::default()), Some(&m));
        assert_eq!(a.kernels.len(), 1, "two launches of one kernel");
        let k = &a.kernels[0];
        let c = k.collective.as_ref().unwrap();
        // 2 x 30 MB sent in 2 x 100 us: 300 GB/s of 400.
        assert_eq!(c.bus_bytes, Some(60e6));
        assert!((c.achieved_bytes_per_s.unwrap() - 300e9).abs() < 1.0);
        assert!((k.pct_of_roof.unwrap() - 75.0).abs() < 1e-9);
        assert_eq!(roofline_analysis::time_class(k), TimeClass::Communication);
        assert!(k.diagnosis.is_none(), "not judged as a memory kernel");
    }

    #[test]
    fn only_collects_one_pass_of_time_and_nvlink_bytes() {
        let k = known(&["nvlrx__bytes", "nvltx__bytes"]);
        let p = plan(Mode::Only, Some(2), OLD_HELP, Some(&k)).unwrap();
        assert_eq!(p.kernel_filter, Some(NCCL_ONLY));
        let m = p.metrics.unwrap();
        assert!(m.contains(&"gpu__time_duration.sum".to_string()) && m.contains(&"nvltx__bytes.sum".to_string()));
        assert!(m.len() <= 5, "{m:?}");
        let without = plan(Mode::Only, Some(2), OLD_HELP, Some(&known(&["dram__bytes"]))).unwrap();
        assert!(without.note.unwrap().contains("no NVLink counters"));
        assert!(plan(Mode::Lockstep, Some(2), OLD_HELP, None).unwrap_err().contains("--collectives skip"));
        assert_eq!(Mode::parse("Only"), Some(Mode::Only));
        assert_eq!(Mode::parse("sometimes"), None);
    }
}
