//! `roofline profile -- PROGRAM [ARGS]`: the roofline of a whole program in
//! two runs of it.
//!
//! Pass 1 records its timeline as it runs (`timeline`'s machinery: CUPTI
//! activity through the injection library, no replay). Pass 2 runs it under
//! Nsight Compute with only the counters a roofline needs, and only for the
//! kernels that hold `--coverage` of the GPU time, K launches of each kernel
//! and launch shape (`roofline_timeline::plan`). Each kernel's point then
//! applies to all its launches, weighted by their true durations from the
//! timeline; kernels without counters keep their time under "no counters",
//! and the report says which share of the GPU time is counter-backed.
//!
//! Pass 1's timeline is cut to the program's steady state first
//! (`roofline_timeline::find_steps`: its steps after the warm-up, `--steps`,
//! `--skip`), or to the windows of `--nvtx-include`'s ranges across every
//! thread; the plan covers that, within `--budget`, and its estimate is said
//! before pass 2 starts. If pass 2 fails in any way (ncu crashes, may not
//! read the counters, times out, is interrupted), the analysis still holds
//! every kernel of that timeline with its time, says why counters are
//! missing and how to get them, and exits 1.
//!
//! `--one-pass` (or explicit `-k`/`-c`/`-s`/`--nvtx-exclude` filters, or no
//! injection library) keeps the single ncu pass over every launch, times
//! from the replays. The program's output goes to stderr; if it fails or is
//! interrupted midway, what was collected is analysed and the exit status
//! reported.
//!
//! Under torchrun, mpirun or srun each rank profiles itself in one pass and
//! writes its own file (`-o job.rank{rank}.json`); NCCL's kernels are then
//! profiled without replaying a collective on one rank alone
//! (`--collectives`, see `roofline_ncu::collectives`), and `roofline merge`
//! joins the ranks.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use roofline_analysis::SteadyState;
use roofline_analysis::{ProgramOptions, ProgramView};
use roofline_documents::RankInfo;
use roofline_model::format_percent;
use roofline_model::{CapturedKernel, Kernel, Origin, Warning};
use roofline_ncu::{
    collectives_plan, find_ncu, help_text, metric_list, parse_progress, private_log, query_known, read_capture,
    CollectivesMode as Mode, CollectivesPlan, CsvError, Filters, ProgramExit, Progress, RawCapture, Run,
};
use roofline_timeline::ActivityKind;
use roofline_timeline::{
    find_steps, launch_rows, ncu_nvtx_pattern, steady_timeline, within_ranges, Plan, PlanOptions, StepChoice, Timeline,
};

use super::import::{report, report_with, AnalysisArgs};
use roofline_timeline::{RecordOptions, Target};

use super::timeline::{injection, record};
use crate::error::bad_input;
use crate::output::Output;
use crate::streams::message;

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  roofline profile -- ./app --size 4096
  roofline profile --coverage 99 --launches-per-kernel 3 -- python3 train.py
  roofline profile --budget 90s --steps 2 -- python3 train.py
  roofline profile --steps all -- python3 train.py
  roofline profile --one-pass -k regex:gemm -c 10 -- python3 train.py
  roofline profile --nvtx-include \"step/\" --machine h200.json -o app.json -- ./app
  torchrun --nproc_per_node 2 --no-python roofline profile -o job.rank{rank}.json -- python3 train.py
  mpirun -np 4 roofline profile -o job.rank{rank}.json -- ./app

Under a launcher of several ranks each rank profiles itself in one ncu pass.
Collectives (--collectives): auto profiles every kernel of a single process;
under a launcher of several ranks it keeps the ranks of NCCL's kernels in
lockstep where this ncu can (--lockstep-kernel-launch), and otherwise leaves
NCCL's kernels out (replaying a collective on one rank hangs the job): profile
them in a second run with --collectives only (one pass: duration and NVLink
bytes) and give both files to `roofline merge`.")]
pub struct Args {
    /// Nsight Compute to use (default: PATH, then $CUDA_HOME/bin, /usr/local/cuda/bin).
    #[arg(long, value_name = "PATH")]
    pub ncu: Option<PathBuf>,

    /// Profile the kernels that hold this share of the timeline's GPU time, percent (two passes).
    #[arg(long, default_value_t = 95.0, value_name = "PCT")]
    pub coverage: f64,

    /// Launches profiled per kernel and launch shape in the second pass
    /// (ncu replays each one until every counter is read).
    #[arg(long, default_value_t = roofline_timeline::DEFAULT_LAUNCHES_PER_KERNEL, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    pub launches_per_kernel: u64,

    /// One ncu pass over every launch, times from the replays (no timeline first).
    #[arg(long)]
    pub one_pass: bool,

    /// Which of the program's steps to judge (NVTX ranges "step N", "ProfilerStep#N", or a
    /// repeating launch sequence): by default the steady state after the warm-up; N: the
    /// first N steady steps; A..B: the steps at positions A to B-1 (0-based); all: the whole run.
    #[arg(long, value_name = "N|A..B|all")]
    pub steps: Option<String>,

    /// Steps to leave out first as warm-up (default: the tool finds them: steps that ran
    /// kernels no later step runs, such as cuDNN's autotuning trials).
    #[arg(long, value_name = "N")]
    pub skip: Option<usize>,

    /// Cap pass 2 at about this long (90s, 5m): the kernels with the most GPU time that fit
    /// the estimate are profiled, the rest keep their time without counters.
    #[arg(long, value_name = "DURATION", value_parser = super::timeline::parse_duration)]
    pub budget: Option<std::time::Duration>,

    /// Group the program's GPU time by kernel name, or by the NVTX ranges each
    /// launch ran under (per step, when the program marks its steps; two passes).
    #[arg(long, value_enum, default_value_t = GroupArg::Name)]
    pub group_by: GroupArg,

    /// Profile only kernels with this name (ncu -k; "regex:..." for a pattern; implies --one-pass).
    #[arg(short = 'k', long = "kernel-name", value_name = "NAME")]
    pub kernel_name: Option<String>,

    /// Profile at most this many launches (ncu -c; implies --one-pass).
    #[arg(short = 'c', long = "launch-count", value_name = "N")]
    pub launch_count: Option<u64>,

    /// Skip this many launches first (ncu -s; implies --one-pass).
    #[arg(short = 's', long = "launch-skip", value_name = "N")]
    pub launch_skip: Option<u64>,

    /// Profile only the launches inside this NVTX range ("name/" for push/pop ranges): by the
    /// range's time window across all threads; with -k/-c/-s/--one-pass, ncu's own filter,
    /// which sees only the thread that pushed the range.
    #[arg(long, value_name = "RANGE")]
    pub nvtx_include: Vec<String>,

    /// Skip kernels inside this NVTX range (ncu's filter, the pushing thread only; implies --one-pass).
    #[arg(long, value_name = "RANGE")]
    pub nvtx_exclude: Vec<String>,

    /// ncu --clock-control (default none: the GPU keeps its own clocks).
    #[arg(long, default_value = "none", value_name = "MODE")]
    pub clock_control: String,

    /// ncu --print-units.
    #[arg(long, default_value = "base", value_name = "UNITS")]
    pub print_units: String,

    /// Collect these metrics instead of the list for this GPU (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub metrics: Option<Vec<String>>,

    /// One more argument for ncu (repeat for several), placed before the program.
    #[arg(long = "ncu-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub ncu_args: Vec<String>,

    /// How to profile NCCL's kernels: auto, all, skip, only (one pass of
    /// duration and NVLink bytes) or lockstep (every rank's ncu in step).
    #[arg(long, default_value = "auto", value_name = "MODE")]
    pub collectives: String,

    /// Keep ncu's raw CSV in FILE (to `roofline import` later).
    #[arg(long, value_name = "FILE")]
    pub save_csv: Option<PathBuf>,

    /// Stop after this long in all (90, 90s, 5m, 1h); what was collected so far is analysed.
    #[arg(long, value_name = "DURATION", value_parser = super::timeline::parse_duration)]
    pub timeout: Option<std::time::Duration>,

    #[command(flatten)]
    pub analysis: AnalysisArgs,

    /// The program to profile and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "PROGRAM")]
    pub command: Vec<String>,
}

/// `--group-by`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GroupArg {
    /// Launches of one kernel together.
    Name,
    /// The NVTX ranges (outermost first) a launch ran under; autograd-thread
    /// launches take the range open in their process at the time.
    Nvtx,
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    let Some((program, _)) = args.command.split_first() else {
        return Err(bad_input("no program: give it after --, for example `roofline profile -- ./app`"));
    };
    let save: Vec<(&str, &std::path::Path)> = args.save_csv.iter().map(|p| ("--save-csv", p.as_path())).collect();
    let mut inputs: Vec<(&str, &std::path::Path)> =
        args.analysis.machine.machine.iter().map(|m| ("--machine", m.as_path())).collect();
    inputs.push(("PROGRAM", std::path::Path::new(program)));
    inputs.extend(args.ncu.iter().map(|n| ("--ncu", n.as_path())));
    out.protect_inputs(&save, &inputs)?;
    if let Some(path) = &args.save_csv {
        out.refuse_side_table_names("--save-csv", path)?;
    }
    if !(args.coverage.is_finite() && args.coverage > 0.0 && args.coverage <= 100.0) {
        return Err(bad_input(format!(
            "--coverage {}: expected a share of the GPU time in percent, above 0 and at most 100 (95 profiles the kernels that hold 95% of it)",
            roofline_model::format_number(args.coverage)
        )));
    }
    // Check the machine flags before a long profiling run.
    args.analysis.machine.resolve()?;
    let mode = Mode::parse(&args.collectives).ok_or_else(|| {
        bad_input(format!("--collectives {}: expected auto, all, skip, only or lockstep", args.collectives))
    })?;
    let rank = crate::ranks::from_env()?;
    let ncu = find_ncu(args.ncu.as_deref())?;
    // `--timeout` bounds the whole run, the questions to ncu and
    // nvidia-smi before the profile included.
    let started = Instant::now();
    let deadline = args.timeout.map(|t| started + t);
    let left = || args.timeout.map(|t| t.saturating_sub(started.elapsed()).max(Duration::from_secs(1)));
    let world = rank.as_ref().map(|r| r.world_size.unwrap_or(2));
    let needs_help = matches!(mode, Mode::Auto | Mode::Lockstep) && world.is_some_and(|w| w > 1);
    let help = if needs_help { help_text(&ncu, deadline) } else { String::new() };
    let known = if mode == Mode::Only { query_known(&ncu, deadline) } else { None };
    let coll = collectives_plan(mode, world, &help, known.as_ref()).map_err(bad_input)?;
    if let (Some(filter), Some(k)) = (coll.kernel_filter, &args.kernel_name) {
        if matches!(mode, Mode::Skip | Mode::Only) {
            return Err(bad_input(format!(
                "-k {k} and --collectives {}: that mode sets the kernel filter itself ({filter}); use --collectives all with -k",
                args.collectives
            )));
        }
        out.info(&format!("-k {k} kept; NCCL kernels it matches are profiled as usual"));
    }
    if let Some(n) = &coll.note {
        out.info(&format!("roofline: {n}"));
    }
    let metrics = match (&args.metrics, &coll.metrics) {
        (Some(m), _) => m.clone(),
        (None, Some(m)) => m.clone(),
        (None, None) => {
            let (list, dropped) = metric_list(&ncu, deadline);
            if !dropped.is_empty() {
                out.info(&format!(
                    "this ncu does not know {} metric(s), left out: {}",
                    dropped.len(),
                    dropped.join(", ")
                ));
            }
            list
        }
    };
    // --nvtx-include alone selects launches by the range's time window in
    // the timeline (every thread), not by ncu's push/pop filter.
    let by_window = !args.nvtx_include.is_empty()
        && args.kernel_name.is_none()
        && args.launch_count.is_none()
        && args.launch_skip.is_none()
        && args.nvtx_exclude.is_empty();
    let explicit_filters = args.kernel_name.is_some()
        || args.launch_count.is_some()
        || args.launch_skip.is_some()
        || !args.nvtx_include.is_empty() && !by_window
        || !args.nvtx_exclude.is_empty();
    if !args.nvtx_include.is_empty() && (args.one_pass || !by_window) {
        out.warn(
            "--nvtx-include with -k/-c/-s/--nvtx-exclude/--one-pass is ncu's own push/pop filter: it sees only the thread that pushed the range, so kernels other threads launch inside it (PyTorch's backward, from its autograd thread) are left out; without those flags the range's time window selects launches from every thread",
        );
    }
    if args.one_pass {
        return one_pass(args, out, &ncu, &metrics, left(), &coll, rank);
    }
    if explicit_filters {
        out.info("-k/-c/-s/--nvtx-exclude choose the launches themselves: one ncu pass over them, times from the replays (no timeline)");
        return one_pass(args, out, &ncu, &metrics, left(), &coll, rank);
    }
    if world.is_some_and(|w| w > 1) || mode != Mode::Auto {
        out.info("ranks of a multi-process job (or --collectives set): one ncu pass per rank, times from the replays");
        return one_pass(args, out, &ncu, &metrics, left(), &coll, rank);
    }
    let (inject, cupti) = match injection(None, None, &args.command) {
        Ok(found) => found,
        Err(e) => {
            out.warn(&format!(
                "no timeline first ({e}); profiling every launch in one ncu pass instead, with times from the replays (--one-pass does this on purpose)"
            ));
            return one_pass(args, out, &ncu, &metrics, left(), &coll, rank);
        }
    };
    let steps = StepChoice::parse(args.steps.as_deref(), args.skip).map_err(bad_input)?;
    let pass1_started = Instant::now();
    let rec = record(
        &RecordOptions {
            command: &args.command,
            timeout: left(),
            grace: roofline_child::DEFAULT_GRACE,
            target: Target::All,
            inject,
            cupti,
            no_nvtx: false,
            no_launch_calls: false,
            records: None,
            flush_ms: 500,
            label: "pass 1/2: ",
        },
        out,
        true,
    )?;
    let pass1_wall = pass1_started.elapsed();
    let launches = rec.timeline.activities.iter().filter(|a| a.kind == ActivityKind::Kernel).count();
    out.info(&format!("pass 1/2: {launches} kernel launches recorded in {} process(es)", rec.timeline.processes.len()));
    if launches == 0 && rec.outcome.ending == roofline_child::Ending::Finished {
        out.warn(&format!(
            "pass 1 recorded no kernel launch of {program}; profiling every launch in one ncu pass instead (--one-pass does this on purpose)"
        ));
        return one_pass(args, out, &ncu, &metrics, left(), &coll, rank);
    }
    let (tl, steady, skip_before_match) = if by_window {
        (nvtx_window(&rec.timeline, &args.nvtx_include, out), None, 0)
    } else {
        steady_state(&rec.timeline, &steps, out)
    };
    let tl = tl.as_ref().unwrap_or(&rec.timeline);
    let pass1 = Pass1 { timeline: tl, steady };
    if rec.outcome.ending != roofline_child::Ending::Finished {
        // Stopped in the first pass: its timeline, every kernel without counters.
        let exit = program_exit(program, &rec.outcome);
        let cap = RawCapture { program_exit: Some(exit), ..RawCapture::default() };
        let why = match rec.outcome.ending {
            roofline_child::Ending::TimedOut => Missing::TimedOut,
            roofline_child::Ending::Interrupted { signal } => {
                Missing::Interrupted(roofline_child::signal_name(signal).to_string())
            }
            roofline_child::Ending::Finished => Missing::NothingRead(String::new()),
        };
        let note = missing_note("pass 1", &why, program, None);
        two_pass_report(args, out, &cap, &pass1, None, "stopped during pass 1: no counters", Some(&note))?;
        return Ok(ExitCode::from(1));
    }
    let k = args.launches_per_kernel;
    let max_launches = args.budget.map(|b| budget_launches(b, pass1_wall));
    let plan = Plan::of(
        tl,
        PlanOptions {
            coverage: args.coverage / 100.0,
            launches_per_kernel: k,
            launch_skip: 0,
            skip_before_match,
            max_launches,
            // With a steady state, the warm-up's trial kernels are let pass,
            // and a kernel only ncu's run makes is an autotuner's choice.
            stand_ins: skip_before_match > 0,
        },
    );
    let what = if pass1.steady.is_some() { "steady-state kernels" } else { "kernels" };
    out.info(&format!(
        "pass 2/2: profiling {} of {} {what} ({} of {} GPU time; at most {} launches: {k} per kernel and launch shape); {} kernel(s) keep their time without counters",
        plan.kernels.len(),
        plan.kernels.len() + plan.left_out,
        format_percent(100.0 * plan.covered_share),
        if pass1.steady.is_some() { "the steady state's" } else { "the" },
        plan.planned_launches,
        plan.left_out
    ));
    if plan.options.stand_ins {
        out.info("pass 2/2: also profiling, one launch per shape, any kernel the steady state of pass 1 did not run (an autotuner such as cudnn.benchmark may choose others with ncu attached): it lends its counters to the planned kernel it replaced");
    }
    let eta = pass2_estimate(plan.planned_launches, pass1_wall);
    out.info(&format!(
        "pass 2/2: about {} s (the program's run under ncu, about {} s, and {:.1} s per profiled launch){}",
        eta.as_secs_f64().round() as u64,
        program_under_ncu(pass1_wall).as_secs_f64().round() as u64,
        SECONDS_PER_PROFILED_LAUNCH,
        match args.budget {
            Some(b) if plan.over_budget > 0 => format!(
                "; --budget {} s left out {} kernel(s) the coverage asked for",
                b.as_secs_f64().round() as u64,
                plan.over_budget
            ),
            Some(b) => format!("; within --budget {} s", b.as_secs_f64().round() as u64),
            None => String::new(),
        }
    ));
    if plan.kernels.is_empty() {
        // An empty plan would filter nothing: ncu is not run at all.
        let cap = RawCapture::default();
        let under = program_under_ncu(pass1_wall).as_secs_f64().round() as u64;
        let note = missing_note("pass 2", &Missing::NoneFits(under), program, None);
        two_pass_report(args, out, &cap, &pass1, Some(&plan), "timeline only: --budget fits no kernel", Some(&note))?;
        return Ok(ExitCode::from(1));
    }
    let mut plan = plan;
    let filters = |plan: &Plan| {
        let mut extra = plan.ncu_filters();
        extra.extend(args.ncu_args.iter().cloned());
        extra
    };
    let mut pass =
        ncu_pass(args, out, &ncu, &metrics, Filters::default(), filters(&plan), left(), Some(plan.planned_launches))?;
    let matched_none = pass.exit_note.is_none()
        && !stopped_on_purpose(&pass.exit)
        && pass.cap.as_ref().map_or(true, |c| c.launches.is_empty());
    if matched_none && plan.options.skip_before_match > 0 {
        // The warm-up ran shorter under ncu than in pass 1 (autotuning that
        // times its trials, as Triton's does, runs fewer of them when every
        // launch is slower), so the count skipped past the steady state.
        out.warn(&format!(
            "pass 2: ncu matched none of the {} planned kernels after letting the first {} launches pass (the warm-up ran shorter under ncu than in pass 1: autotuning that times its trials runs fewer of them there); profiling again from the program's first launch",
            plan.kernels.len(),
            plan.options.skip_before_match
        ));
        plan.options.skip_before_match = 0;
        pass = ncu_pass(
            args,
            out,
            &ncu,
            &metrics,
            Filters::default(),
            filters(&plan),
            left(),
            Some(plan.planned_launches),
        )?;
    }
    // A kernel pass 1 never ran in the steady state can be one ncu cannot
    // replay (XLA's, on some JAX programs): with the filter widened for
    // stand-ins a crash is tried again on the planned kernels alone.
    let crashed = pass
        .exit
        .as_ref()
        .is_some_and(|e| e.stopped_by.is_none() && (e.signal.is_some() || e.status.is_some_and(|c| c > 128)));
    if crashed && plan.options.stand_ins {
        out.warn(&format!(
            "pass 2: {} while ncu also profiled the kernels the steady state of pass 1 did not run (stand-ins for an autotuner's choices); profiling again the {} planned kernels only",
            pass.exit_note.as_deref().unwrap_or("the program stopped"),
            plan.kernels.len()
        ));
        plan.options.stand_ins = false;
        pass = ncu_pass(
            args,
            out,
            &ncu,
            &metrics,
            Filters::default(),
            filters(&plan),
            left(),
            Some(plan.planned_launches),
        )?;
    }
    let failed = pass.exit_note.is_some();
    let nothing_read = pass.cap.is_err() && !stopped_on_purpose(&pass.exit);
    let why = missing_reason(&pass.exit, pass.cap.as_ref().err());
    let (cap, profiled) = match pass.cap {
        Ok(mut c) => {
            c.program_exit = pass.exit.clone();
            let n = c.launches.len();
            (c, n)
        }
        Err(_) => (RawCapture { program_exit: pass.exit.clone(), ..RawCapture::default() }, 0),
    };
    let note = why.as_ref().map(|w| missing_note("pass 2", w, program, Some(profiled)));
    let how = format!(
        "two passes: timeline (CUPTI, {launches} launches), ncu on {} of {} kernels",
        plan.kernels.len(),
        plan.kernels.len() + plan.left_out
    );
    let reported = two_pass_report(args, out, &cap, &pass1, Some(&plan), &how, note.as_deref());
    if nothing_read {
        keep_log(out, pass.log_dir);
    } else {
        keep_log_on_failure(out, pass.log_dir, &pass.saved, &reported);
    }
    pass.saved?;
    reported?;
    Ok(if failed || why.is_some() || rec.failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// What pass 1 gives the report: the timeline judged (the steady state's,
/// or the whole run's) and what was left out of it.
struct Pass1<'a> {
    timeline: &'a Timeline,
    steady: Option<SteadyState>,
}

/// The steady state of the recorded run (`--steps`, `--skip`), said once;
/// `None` for the whole run. A choice that fits no step of this run is a
/// warning, not a loss: the whole run is analysed.
/// The steady state's timeline and what it left out, and the launches ncu
/// lets pass before it starts matching (those before the steady state,
/// when one process made them all; 0 otherwise).
fn steady_state(tl: &Timeline, choice: &StepChoice, out: &Output) -> (Option<Timeline>, Option<SteadyState>, u64) {
    let steps = match find_steps(tl, choice) {
        Ok(Some(s)) => s,
        Ok(None) => return (None, None, 0),
        Err(e) => {
            out.warn(&format!("{e}; the whole run is analysed"));
            return (None, None, 0);
        }
    };
    let (kept, state) = steady_timeline(tl, &steps);
    if state.left_out_launches == 0 {
        // The steps hold every launch: the steady state is the whole run.
        return (None, None, 0);
    }
    let skip = roofline_timeline::skip_before_match(tl, steps.window()).unwrap_or(0);
    let total: f64 =
        tl.activities.iter().filter(|a| a.kind == ActivityKind::Kernel).map(|a| a.duration_ns() as f64).sum();
    let share = if total > 0.0 { 100.0 * state.left_out_s * 1e9 / total } else { 0.0 };
    let which = if state.steps == 1 {
        state.first_label.clone()
    } else {
        format!("{} to {}", state.first_label, state.last_label)
    };
    let how = if state.auto {
        if state.first > 0 {
            format!("the first {} step(s) ran kernels no later step runs: warm-up", state.first)
        } else {
            "the launches before the first step are the warm-up".to_string()
        }
    } else {
        "as asked".to_string()
    };
    out.info(&format!(
        "steady state: {} of {} steps, {which} ({}; {how}); left out: {} of GPU time ({}) in {} launches outside them, {} kernel(s) that ran only there (--steps all keeps the whole run)",
        state.steps,
        state.steps_total,
        state.basis,
        roofline_model::format_seconds(state.left_out_s),
        format_percent(share),
        state.left_out_launches,
        state.left_out_kernels,
    ));
    (Some(kept), Some(state), skip)
}

/// The launches inside the windows of the ranges `--nvtx-include` names,
/// from every thread of the range's process; `None` (the whole run, with a
/// warning) when no range matched.
fn nvtx_window(tl: &Timeline, filters: &[String], out: &Output) -> Option<Timeline> {
    let patterns: Vec<_> = filters.iter().map(|f| ncu_nvtx_pattern(f)).collect();
    let (kept, windows) = within_ranges(tl, &patterns);
    if windows == 0 {
        out.warn(&format!(
            "--nvtx-include {}: no NVTX range of this run matches; the whole run is analysed (`roofline timeline --format json` lists the ranges)",
            filters.join(", ")
        ));
        return None;
    }
    out.info(&format!(
        "--nvtx-include {}: {} kernel launches in {windows} range window(s), from every thread (by each range's time window, as --group-by nvtx)",
        filters.join(", "),
        kept.kernel_count()
    ));
    Some(kept)
}

/// Why pass 2 gave no counters (or only some).
#[derive(Debug, Clone, PartialEq)]
enum Missing {
    /// ERR_NVGPUCTRPERM.
    Permission,
    /// `--timeout`.
    TimedOut,
    /// SIGINT, SIGTERM.
    Interrupted(String),
    /// ncu (or the program under it) died of a signal.
    Crashed(String),
    /// ncu exited with this status.
    Exited(i32),
    /// ncu finished but its output held no counters.
    NothingRead(String),
    /// `--budget` leaves no time for a kernel after the program's run under
    /// ncu (this many seconds).
    NoneFits(u64),
}

/// How pass 2 ended, as a reason for missing counters; `None` when it
/// finished and gave counters.
fn missing_reason(exit: &Option<ProgramExit>, error: Option<&CsvError>) -> Option<Missing> {
    if let Some(CsvError::CounterPermission { .. }) = error {
        return Some(Missing::Permission);
    }
    if let Some(e) = exit {
        return Some(match (e.stopped_by.as_deref(), &e.signal, e.status) {
            (Some("--timeout"), _, _) => Missing::TimedOut,
            (Some(sig), _, _) => Missing::Interrupted(sig.to_string()),
            (None, Some(sig), _) => Missing::Crashed(sig.clone()),
            // A shell reports a child's death by signal N as 128 + N.
            (None, None, Some(c)) if c > 128 && c < 160 => {
                Missing::Crashed(roofline_child::signal_name(c - 128).to_string())
            }
            (None, None, Some(c)) => Missing::Exited(c),
            (None, None, None) => Missing::NothingRead(String::new()),
        });
    }
    error.map(|e| Missing::NothingRead(e.to_string()))
}

/// The one message that says why counters are missing, what the analysis
/// still holds, and how to get them.
fn missing_note(pass: &str, why: &Missing, program: &str, profiled: Option<usize>) -> String {
    let (reason, fix) = match why {
        Missing::Permission => (
            "Nsight Compute may not read this GPU's performance counters (ERR_NVGPUCTRPERM)".to_string(),
            "run as root or with sudo, or allow profiling for all users: `echo 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' | sudo tee /etc/modprobe.d/ncu-counters.conf`, then reboot (or reload the nvidia module); details: https://developer.nvidia.com/ERR_NVGPUCTRPERM".to_string(),
        ),
        Missing::TimedOut => (
            format!("--timeout stopped {pass}"),
            "give --timeout more time, or plan less: --budget 2m, --steps 1 or --coverage 90 (the estimate is printed before pass 2 starts)".to_string(),
        ),
        Missing::Interrupted(sig) => (
            format!("{pass} was interrupted ({sig})"),
            "run again and let pass 2 finish (its estimate is printed before it starts), or cap it with --budget 2m".to_string(),
        ),
        Missing::Crashed(sig) => (
            format!("ncu stopped with {sig}: a crash of ncu or of {program} under it (ncu crashes so on some JAX/XLA programs)"),
            format!("check whether ncu can profile it at all with `ncu --metrics gpu__time_duration.sum -- {program} ...`; a newer Nsight Compute may; or profile less of it with --steps 1, --budget or --one-pass -k NAME"),
        ),
        Missing::Exited(c) => (
            format!("ncu exited with status {c} in {pass}"),
            "ncu's log says why (its place is given above when it was kept); run `ncu --metrics gpu__time_duration.sum -- PROGRAM` to see ncu's own error".to_string(),
        ),
        Missing::NoneFits(under) => (
            format!("--budget fits no kernel: the program's own run under ncu takes about {under} s of it"),
            format!("give --budget more than {under} s (each profiled launch costs about {SECONDS_PER_PROFILED_LAUNCH} s more)"),
        ),
        Missing::NothingRead(e) if e.is_empty() => (
            format!("{pass} ended before ncu profiled a kernel"),
            "run again and let pass 2 finish".to_string(),
        ),
        Missing::NothingRead(e) => (
            format!("ncu's output held no counters ({e})"),
            "ncu's log says why (its place is given above when it was kept)".to_string(),
        ),
    };
    let some = match profiled {
        Some(n) if n > 0 => format!(" ({n} launch(es) were profiled before it ended and keep their counters)"),
        _ => String::new(),
    };
    format!(
        "counters missing: {reason}{some}. The analysis holds pass 1's timeline: every kernel with its time, launches and launch shape, those without counters marked \"no counters\". To get counters: {fix}"
    )
}

/// Seconds ncu takes per profiled launch with the roofline's metric list
/// (its replay passes, save and restore of memory): on the H200, ResNet-50
/// took about 0.5 s a launch (2026-12-02, 36 launches in about 18 s). An
/// estimate, said as one.
const SECONDS_PER_PROFILED_LAUNCH: f64 = 0.5;

/// ncu's start-up and the program's run under it (launches serialized),
/// from pass 1's own wall time.
fn program_under_ncu(pass1_wall: Duration) -> Duration {
    Duration::from_secs(5) + pass1_wall.mul_f64(1.5)
}

/// The estimated length of pass 2 for this many profiled launches.
fn pass2_estimate(planned: u64, pass1_wall: Duration) -> Duration {
    program_under_ncu(pass1_wall) + Duration::from_secs_f64(SECONDS_PER_PROFILED_LAUNCH * planned as f64)
}

/// The launches `--budget` allows: what is left of it after the program's
/// own run under ncu, at the estimated cost per launch (none when the run
/// alone takes it all).
fn budget_launches(budget: Duration, pass1_wall: Duration) -> u64 {
    let left = budget.saturating_sub(program_under_ncu(pass1_wall)).as_secs_f64();
    (left / SECONDS_PER_PROFILED_LAUNCH).floor() as u64
}

/// Every kernel of the timeline that no counters came for, as a kernel of
/// the analysis with its time, launches and launch shape and nothing else:
/// the table lists it under "no counters" instead of dropping it.
fn timeline_kernels(tl: &Timeline, known: &std::collections::HashSet<String>) -> Vec<CapturedKernel> {
    let all = Plan::of(tl, PlanOptions { coverage: 1.0, ..PlanOptions::default() });
    all.kernels
        .into_iter()
        .filter(|p| !known.contains(&p.name) && !known.contains(&p.match_name))
        .map(|p| {
            // The time was measured on the GPU (CUPTI); no FLOPs or bytes were.
            let mut k = Kernel::named(&p.name, Origin::Measured);
            k.display_name = roofline_model::display_name(&p.name);
            k.duration_s = Some(p.total_ns as f64 * 1e-9);
            k.launches = p.launches;
            let threads = |d: roofline_records::Dim3| d.iter().map(|&x| x as f64).product::<f64>();
            k.evidence.block_size = p.block.map(threads);
            k.evidence.grid_size = p.grid.map(threads);
            CapturedKernel { kernel: k, roofs: None }
        })
        .collect()
}

/// The analysis of pass 2's counters over pass 1's launches: each launch
/// takes its kernel's point by name (mangled, else demangled); the program
/// view is rebuilt from the true durations and states the counter-backed share.
fn two_pass_report(
    args: &Args,
    out: &Output,
    cap: &RawCapture,
    pass1: &Pass1,
    plan: Option<&Plan>,
    how: &str,
    missing: Option<&str>,
) -> anyhow::Result<()> {
    let command_line = format!("roofline profile -- {}", args.command.join(" "));
    let created = Some(super::bench::now_rfc3339());
    let tl = pass1.timeline;
    let quiet = out.quiet;
    let planned = plan.map(|p| p.kernels.len()).unwrap_or(0);
    let coverage = plan.map(|p| p.covered_share).unwrap_or(0.0);
    let detail = format!("{} ({how})", args.command.join(" "));
    let mut captured = roofline_ncu::capture(cap, &args.analysis.options());
    // Planned kernels that never ran under ncu, and the ones that ran in their place.
    let stand_ins = match plan {
        Some(p) if p.options.stand_ins => {
            let profiled: Vec<&str> = cap.launches.iter().map(|l| &*l.kernel_name).collect();
            p.stand_ins(&profiled, |a, b| {
                let (a, b) = (roofline_analysis::origin(a), roofline_analysis::origin(b));
                a.library == b.library && a.role == b.role
            })
        }
        _ => Vec::new(),
    };
    let replaced: std::collections::HashMap<&str, &str> =
        stand_ins.iter().map(|s| (s.planned.as_str(), s.ran.as_str())).collect();
    if !stand_ins.is_empty() {
        let kernel_ns = |names: &dyn Fn(&str) -> bool| -> u64 {
            tl.activities
                .iter()
                .filter(|a| a.kind == ActivityKind::Kernel)
                .filter(|a| {
                    let n = tl.name(a);
                    names(n.mangled.as_deref().unwrap_or(&n.name))
                })
                .map(|a| a.duration_ns())
                .sum()
        };
        let total = kernel_ns(&|_| true);
        let stood_in = kernel_ns(&|n| replaced.contains_key(n));
        // Names told apart: two cuDNN kernels often shorten alike.
        let names: Vec<&str> = stand_ins.iter().flat_map(|s| [s.planned.as_str(), s.ran.as_str()]).collect();
        let shown = roofline_model::display_names(&names);
        captured.warnings.push(Warning::StandIns {
            pairs: shown.chunks(2).map(|p| (p[0].clone(), p[1].clone())).collect(),
            time_pct: if total > 0 { 100.0 * stood_in as f64 / total as f64 } else { 0.0 },
        });
    }
    if let Some(note) = missing {
        // Nothing lost: every kernel of the timeline is in the analysis,
        // with its time, and the one message says why counters are missing.
        let known: std::collections::HashSet<String> = captured.kernels.iter().map(|k| k.kernel.name.clone()).collect();
        captured.kernels.extend(timeline_kernels(tl, &known));
        // The note says how pass 2 ended: no second warning about it.
        captured.warnings.retain(|w| !matches!(w, Warning::ProgramFailed { .. }));
        captured.warnings.insert(0, Warning::Profiler { message: note.to_string() });
    }
    let device = tl.devices.first().map(|d| d.name.clone()).filter(|n| !n.is_empty());
    let steady = pass1.steady.clone();
    report_with(&captured, &args.analysis, &command_line, &detail, created, None, out, |doc| {
        // The GPU's name where the counters did not say it.
        if let Some(name) = device {
            if doc.machine.name.is_empty() || doc.machine.name == COUNTER_PEAKS {
                doc.machine.name = name.clone();
            }
            doc.machine.gpu.name.get_or_insert(name);
        }
        let mut by_name: std::collections::HashMap<&str, &str> =
            doc.kernels.iter().rev().map(|k| (k.kernel.name.as_str(), k.kernel.id.as_str())).collect();
        // A planned kernel that never ran under ncu takes its stand-in's point.
        for (planned, ran) in &replaced {
            if let Some(id) = by_name.get(ran).copied() {
                by_name.entry(planned).or_insert(id);
            }
        }
        let rows = launch_rows(tl, |name, mangled| {
            mangled.and_then(|m| by_name.get(m)).or_else(|| by_name.get(name)).map(|id| id.to_string())
        });
        let group_by = match args.group_by {
            GroupArg::Name => roofline_analysis::GroupBy::Name,
            GroupArg::Nvtx => roofline_analysis::GroupBy::Labels,
        };
        let mut view =
            ProgramView::from_launches(&doc.kernels, &rows, &ProgramOptions { group_by, ..ProgramOptions::default() });
        view.steady = steady;
        view.from_timeline = true;
        let share = if view.total_s > 0.0 { view.placed_s / view.total_s } else { 0.0 };
        let profiled = {
            let ids: std::collections::HashSet<&str> = rows.iter().map(|r| r.kernel.as_str()).collect();
            doc.kernels
                .iter()
                .filter(|k| ids.contains(k.kernel.id.as_str()) && k.pct_of_roof.is_some_and(|p| p.is_finite()))
                .count()
        };
        let of = if view.steady.is_some() { "the steady state's GPU time" } else { "the GPU time" };
        if !quiet {
            message(&format!(
                "roofline: {profiled} of {planned} planned kernels profiled; counter-backed points cover {:.1}% of {of} ({:.1}% planned)",
                100.0 * share,
                100.0 * coverage
            ));
        }
        // Each kernel's share is of the program's own GPU time (the
        // timeline's), as in the program view; its rates stay the replays'.
        let mut true_time: std::collections::HashMap<&str, f64> = std::collections::HashMap::new();
        for r in &rows {
            *true_time.entry(r.kernel.as_str()).or_insert(0.0) += r.duration_s;
        }
        if view.total_s > 0.0 {
            for k in &mut doc.kernels {
                k.time_share = true_time.get(k.kernel.id.as_str()).map(|t| t / view.total_s);
            }
            // Sorted by the program's own GPU time, not the replays'.
            doc.kernels.sort_by(|a, b| b.time_share.unwrap_or(-1.0).total_cmp(&a.time_share.unwrap_or(-1.0)));
        }
        let basis = if view.steady.is_some() { "steady-state GPU time" } else { "GPU time" };
        doc.source.detail = format!("{detail}; counter-backed share of {basis} {:.1}%", 100.0 * share);
        doc.program = Some(view);
    })
}

/// The name the counters give their machine when the capture does not name the GPU.
const COUNTER_PEAKS: &str = "counter peaks (Nsight Compute)";

/// How the program ended, for the document.
fn program_exit(program: &str, outcome: &roofline_child::Outcome) -> ProgramExit {
    ProgramExit {
        program: program.to_string(),
        status: outcome.status.code(),
        signal: outcome.status.code().is_none().then(|| outcome.status.to_string()),
        stopped_by: match outcome.ending {
            roofline_child::Ending::Interrupted { signal } => Some(roofline_child::signal_name(signal).to_string()),
            roofline_child::Ending::TimedOut => Some("--timeout".to_string()),
            roofline_child::Ending::Finished => None,
        },
    }
}

/// What an ncu run gave.
struct NcuPass {
    cap: Result<RawCapture, CsvError>,
    /// How the program ended when it did not succeed.
    exit_note: Option<String>,
    exit: Option<ProgramExit>,
    /// The name of ncu's log in messages.
    input: String,
    /// The private folder holding ncu's log (removed when dropped).
    log_dir: tempfile::TempDir,
    /// Whether `--save-csv` was written.
    saved: anyhow::Result<()>,
}

/// When ncu's CSV could not be saved or analysed, it is kept (not removed
/// with its private folder) and its place said: nothing is lost.
fn keep_log_on_failure(
    out: &Output,
    log_dir: tempfile::TempDir,
    saved: &anyhow::Result<()>,
    reported: &anyhow::Result<()>,
) {
    if saved.is_err() || reported.is_err() {
        keep_log(out, log_dir);
    }
}

/// Whether the run was stopped by the user or `--timeout` (not a failure
/// of ncu or the program to look into).
fn stopped_on_purpose(exit: &Option<ProgramExit>) -> bool {
    exit.as_ref().is_some_and(|e| e.stopped_by.is_some())
}

/// Keeps ncu's private folder (its report, CSV and log) and says where:
/// the messages that name those files stay true.
fn keep_log(out: &Output, log_dir: tempfile::TempDir) {
    // Only what is worth a look: an empty CSV and no report (an ncu that
    // died before writing anything) is nothing to keep, and every such
    // failed run would leave a folder in $TMPDIR.
    let worth = |name: &str| std::fs::metadata(log_dir.path().join(name)).is_ok_and(|m| m.len() > 0);
    let (csv, report) = (worth("ncu.csv"), worth("ncu.ncu-rep"));
    if !csv && !report {
        out.warn("ncu wrote neither counters nor a report: nothing of its run was kept");
        return;
    }
    let kept = log_dir.keep();
    if csv {
        out.warn(&format!(
            "ncu's CSV is kept at {} (`roofline import` reads it{})",
            kept.join("ncu.csv").display(),
            if report { "; ncu's report is beside it" } else { "" }
        ));
    } else {
        out.warn(&format!(
            "ncu's report is kept at {} (`roofline import` reads it)",
            kept.join("ncu.ncu-rep").display()
        ));
    }
}

#[allow(clippy::too_many_arguments)]
fn ncu_pass(
    args: &Args,
    out: &Output,
    ncu: &std::path::Path,
    metrics: &[String],
    filters: Filters,
    extra: Vec<String>,
    timeout: Option<Duration>,
    planned: Option<u64>,
) -> anyhow::Result<NcuPass> {
    let (program, program_args) = args.command.split_first().expect("checked by the caller");
    // A private folder, removed on every way out (ncu's log lives there).
    let (log_dir, log_file) = private_log()?;
    // Removed, with ncu's and the program's processes, even if the tool is killed.
    let _removed_if_killed = roofline_child::remove_if_killed(log_dir.path());
    // In two passes, names as the timeline has them (mangled), to match
    // launches to points; a print option, so it applies when the report is
    // read back.
    let read_back = match planned {
        Some(_) => vec!["--print-kernel-base".to_string(), "mangled".to_string()],
        None => Vec::new(),
    };
    let run = Run {
        ncu: ncu.to_path_buf(),
        program: program.clone(),
        args: program_args.to_vec(),
        filters,
        clock_control: args.clock_control.clone(),
        print_units: args.print_units.clone(),
        metrics: Some(metrics.to_vec()),
        extra,
        read_back,
        log_file: log_file.clone(),
    };
    let label = if planned.is_some() { "pass 2/2: " } else { "" };
    out.info(&format!(
        "{label}profiling {program} with {} ({} metrics, clock control {})",
        ncu.display(),
        metrics.len(),
        args.clock_control
    ));
    let quiet = out.quiet;
    let limits = roofline_child::Limits { timeout, ..Default::default() };
    let mut first_at: Option<Instant> = None;
    let mut done = 0u64;
    let outcome = run.execute_with(metrics, &limits, move |p| {
        if quiet {
            return;
        }
        match p {
            Progress::Line(line) => {
                if let Some(name) = parse_progress(&line) {
                    // ncu numbers its lines only without kernel filters: count them.
                    done += 1;
                    let first = *first_at.get_or_insert_with(Instant::now);
                    let name = roofline_model::display_name(&name);
                    message(&match planned {
                        Some(total) => format!(
                            "roofline: {label}profiled launch {done} of {total} planned{}: {name}",
                            eta_note(first.elapsed(), done, total)
                        ),
                        None => format!("roofline: profiled launch {done}: {name}"),
                    });
                } else if let Some(rest) = line.strip_prefix("==PROF== ") {
                    message(&format!("roofline: ncu: {rest}"));
                } else if line.starts_with("==ERROR==") {
                    message(&format!("roofline: ncu: {line}"));
                }
            }
            Progress::Elapsed(t) => message(&format!("roofline: {label}still profiling ({} s)", t.as_secs())),
        }
    })?;
    let input = format!("ncu report {} (read back as {})", run.report_file().display(), log_file.display());
    let cap = std::fs::File::open(&log_file)
        .map_err(|e| CsvError::Io { input: input.clone(), source: e })
        .and_then(|f| read_capture(f, &input));
    // A --save-csv that cannot be written costs neither the analysis nor
    // ncu's CSV: the analysis is still printed and the CSV kept. When ncu
    // profiled nothing, its log lines alone would replace what an earlier
    // run saved there, so the file is left as it is (the log is kept).
    let saved = match (&args.save_csv, &cap) {
        (Some(path), Ok(c)) if !c.launches.is_empty() => match std::fs::read(&log_file) {
            Ok(bytes) => out.write_file("--save-csv", path, &bytes),
            Err(e) => Err(anyhow::anyhow!("--save-csv {}: ncu's CSV could not be read back ({e})", path.display())),
        },
        (Some(path), _) => {
            out.warn(&format!("--save-csv {}: not written, ncu profiled no kernel in this run", path.display()));
            Ok(())
        }
        (None, _) => Ok(()),
    };
    let status = outcome.status;
    let exit_note = match outcome.ending {
        roofline_child::Ending::Interrupted { signal } => {
            Some(format!("interrupted ({}): ncu and {program} were stopped", roofline_child::signal_name(signal)))
        }
        roofline_child::Ending::TimedOut => Some(format!("--timeout reached: ncu and {program} were stopped")),
        roofline_child::Ending::Finished if status.success() => None,
        roofline_child::Ending::Finished => Some(match status.code() {
            Some(c) => format!("{program} exited with status {c}"),
            None => format!("{program} was stopped by a signal ({status})"),
        }),
    };
    // In two passes the analysis's one message says it, with the fix.
    if let (Some(n), None) = (&exit_note, planned) {
        out.warn(&format!("{label}{n}"));
    }
    let exit = exit_note.as_ref().map(|_| ProgramExit {
        program: program.to_string(),
        status: status.code(),
        signal: status.code().is_none().then(|| status.to_string()),
        stopped_by: match outcome.ending {
            roofline_child::Ending::Interrupted { signal } => Some(roofline_child::signal_name(signal).to_string()),
            roofline_child::Ending::TimedOut => Some("--timeout".to_string()),
            roofline_child::Ending::Finished => None,
        },
    });
    Ok(NcuPass { cap, exit_note, exit, input, log_dir, saved })
}

/// One ncu pass over the launches the filters pick, times from the replays.
fn one_pass(
    args: &Args,
    out: &Output,
    ncu: &std::path::Path,
    metrics: &[String],
    timeout: Option<Duration>,
    collectives: &CollectivesPlan,
    rank: Option<RankInfo>,
) -> anyhow::Result<ExitCode> {
    if !args.nvtx_include.is_empty() || !args.nvtx_exclude.is_empty() {
        out.warn("ncu's --nvtx-include/--nvtx-exclude see a push/pop range only on the thread that pushed it: kernels launched from other threads (PyTorch's backward pass runs on autograd threads) are left out of an included range; --nvtx-include alone, without --one-pass, -k, -c or -s, selects by the range's time window across all threads instead");
    }
    let mut extra = collectives.extra.clone();
    extra.extend(args.ncu_args.iter().cloned());
    let filters = Filters {
        kernel_name: args.kernel_name.clone().or(collectives.kernel_filter.map(String::from)),
        launch_count: args.launch_count,
        launch_skip: args.launch_skip,
        nvtx_include: args.nvtx_include.clone(),
        nvtx_exclude: args.nvtx_exclude.clone(),
    };
    let pass = ncu_pass(args, out, ncu, metrics, filters, extra, timeout, None)?;
    let cap = match pass.cap {
        Ok(c) => c,
        Err(e @ CsvError::CounterPermission { .. }) => {
            return Err(anyhow::anyhow!(e.to_string().replace(&pass.input, "ncu")))
        }
        Err(e) => {
            let why = pass.exit_note.map(|n| format!("{n} before any kernel was profiled; ")).unwrap_or_default();
            if stopped_on_purpose(&pass.exit) {
                // Nothing to keep: the folder goes, and the message does not name it.
                anyhow::bail!("{why}{}", e.to_string().replace(&pass.input, "ncu's output"));
            }
            keep_log(out, pass.log_dir);
            anyhow::bail!("{why}{e}");
        }
    };
    let mut cap = cap;
    cap.program_exit = pass.exit;
    let command_line = format!("roofline profile -- {}", args.command.join(" "));
    let created = Some(super::bench::now_rfc3339());
    let captured = roofline_ncu::capture(&cap, &args.analysis.options());
    let reported = report(&captured, &args.analysis, &command_line, &args.command.join(" "), created, rank, out);
    keep_log_on_failure(out, pass.log_dir, &pass.saved, &reported);
    pass.saved?;
    reported?;
    Ok(if pass.exit_note.is_some() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Time left in the counter pass, estimated from the pace between the
/// launches profiled so far: ncu replays each chosen launch the same number
/// of passes, and the program's start-up, before the first one, is not part
/// of that pace. `since_first` runs from the first profiled launch, so `done`
/// launches make `done - 1` intervals; nothing is said before two (no pace
/// yet) or once the plan is done.
fn remaining_time(since_first: Duration, done: u64, planned: u64) -> Option<Duration> {
    if done < 2 || done >= planned {
        return None;
    }
    Some(since_first.mul_f64((planned - done) as f64 / (done - 1) as f64))
}

/// The ETA as the progress line shows it, with where it comes from.
fn eta_note(since_first: Duration, done: u64, planned: u64) -> String {
    match remaining_time(since_first, done, planned) {
        Some(left) => format!(", about {} s left at the pace so far", left.as_secs_f64().round() as u64),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_pays_for_the_programs_run_under_ncu_first_then_launches() {
        let wall = Duration::from_secs(10);
        // 5 s start-up + 1.5 x 10 s = 20 s; 0.5 s a launch after that.
        assert_eq!(program_under_ncu(wall), Duration::from_secs(20));
        assert_eq!(budget_launches(Duration::from_secs(90), wall), 140);
        assert_eq!(budget_launches(Duration::from_secs(15), wall), 0, "the run alone does not fit");
        assert_eq!(pass2_estimate(100, wall), Duration::from_secs(70));
    }

    #[test]
    fn each_way_pass_2_can_fail_has_its_reason_and_fix() {
        let exit = |status: Option<i32>, signal: Option<&str>, stopped: Option<&str>| {
            Some(ProgramExit {
                program: "python3".into(),
                status,
                signal: signal.map(String::from),
                stopped_by: stopped.map(String::from),
            })
        };
        let perm = CsvError::CounterPermission { input: "ncu".into() };
        assert_eq!(missing_reason(&None, Some(&perm)), Some(Missing::Permission));
        assert_eq!(missing_reason(&exit(None, None, Some("--timeout")), None), Some(Missing::TimedOut));
        assert_eq!(
            missing_reason(&exit(None, None, Some("SIGTERM")), None),
            Some(Missing::Interrupted("SIGTERM".into()))
        );
        assert_eq!(
            missing_reason(&exit(None, Some("signal: 11 (SIGSEGV)"), None), None),
            Some(Missing::Crashed("signal: 11 (SIGSEGV)".into()))
        );
        assert_eq!(missing_reason(&exit(Some(139), None, None), None), Some(Missing::Crashed("SIGSEGV".into())));
        assert_eq!(missing_reason(&exit(Some(3), None, None), None), Some(Missing::Exited(3)));
        assert_eq!(missing_reason(&None, None), None, "finished with counters: nothing missing");
        let note = missing_note("pass 2", &Missing::Permission, "python3", Some(0));
        assert!(note.contains("ERR_NVGPUCTRPERM") && note.contains("NVreg_RestrictProfilingToAdminUsers=0"), "{note}");
        assert!(note.contains("every kernel with its time, launches and launch shape"), "{note}");
        let crash = missing_note("pass 2", &Missing::Crashed("SIGSEGV".into()), "python3", Some(4));
        assert!(crash.contains("ncu stopped with SIGSEGV") && crash.contains("4 launch(es) were profiled"), "{crash}");
    }

    #[test]
    fn profile_progress_shows_an_eta_from_the_pace_so_far() {
        // 11 launches, 20 s from the first to the eleventh: 2 s each, 30 left.
        assert_eq!(remaining_time(Duration::from_secs(20), 11, 41), Some(Duration::from_secs(60)));
        assert_eq!(eta_note(Duration::from_secs(20), 11, 41), ", about 60 s left at the pace so far");
        assert_eq!(remaining_time(Duration::ZERO, 1, 40), None, "no pace from one launch (start-up is not pace)");
        assert_eq!(remaining_time(Duration::from_secs(80), 40, 40), None, "nothing left");
        assert_eq!(eta_note(Duration::from_secs(80), 41, 40), "", "more launches than planned: no ETA");
    }
}
