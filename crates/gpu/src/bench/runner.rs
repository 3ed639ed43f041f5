//! The benchmark loop: for each benchmark, search its candidates, check the
//! chosen one's output, time it, judge the figure, and keep the record.
//!
//! It talks to the hardware only through an [`Executor`], so every decision
//! here (which candidate wins, when a figure is rejected as faster than the
//! hardware, when runs disagree enough to retry and then to warn, what a
//! sweep's curve and knee are) is tested against a mock in CI.
//!
//! - Search: every candidate of one sweep setting is timed briefly
//!   ([`SuiteConfig::search_reps`]); the fastest wins ([`super::search`]).
//!   A candidate that fails to run is skipped with a warning.
//! - Check: the winner runs once on poisoned output and every result is
//!   checked before any timing is used.
//! - Timing: runs of timed launches; the figure is the median of the best
//!   run. When the runs' medians differ by more than [`NOISE_LIMIT`], the
//!   measurement is taken again once; if they still do, a warning says so.
//! - Sweeps: every setting is checked and timed; the best one is timed
//!   again in full and becomes the figure; the curve and its knee are kept.
//! - Plausibility: a figure above its theoretical roof by more than
//!   [`super::machine::PLAUSIBLE_MARGIN`] is rejected ([`super::machine::plausible`]).

use std::time::Instant;

use roofline_model::format_si;
use roofline_model::Machine;
use roofline_model::Spread;

use super::executor::{Candidate, Executor, Plan, Prepared};
use super::machine::plausible;
use super::progress::Event;
use super::suite::{
    best_run, locate_ridge, BenchResult, BenchSpec, Curve, CurvePoint, Failure, SuiteConfig, Sweep, SweepPoint, What,
};
use crate::error::GpuError;
use crate::nvml::ClockSummary;
use crate::session::{Reps, Timing};

/// Runs whose medians differ by more than this share of the best are
/// measured again once, then warned about.
pub const NOISE_LIMIT: f64 = 0.03;

/// What the loop judges figures against.
#[derive(Debug, Clone, Copy)]
pub struct Checks<'a> {
    /// The theoretical roofs of the device.
    pub theoretical: &'a Machine,
    /// The highest SM clock the device reaches (NVML), for roofs quoted at another clock.
    pub max_sm_mhz: Option<f64>,
}

/// Everything a suite produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// One record per benchmark that succeeded.
    pub results: Vec<BenchResult>,
    /// The intensity sweeps, one per precision swept.
    pub sweeps: Vec<Sweep>,
    /// Benchmarks that failed; the others still ran.
    pub failures: Vec<Failure>,
    /// What the reader should know (clocks, noise, small arrays, ...).
    pub warnings: Vec<String>,
    /// Benchmarks not measured here, and why ("needs 2 GPUs: this machine has 1").
    pub skipped: Vec<(String, String)>,
}

enum Outcome {
    Measured(Box<BenchResult>, Option<Sweep>),
    Skipped(String),
}

/// Runs `specs` in order through `exec`, reporting progress through `on`.
/// A benchmark that fails is recorded and the next one runs.
pub fn run_suite(
    exec: &mut dyn Executor,
    specs: &[BenchSpec],
    cfg: &SuiteConfig,
    checks: Checks<'_>,
    on: &mut dyn FnMut(Event),
) -> Report {
    let mut report = Report::default();
    for spec in specs {
        on(Event::Begin { id: spec.id.clone(), label: spec.label.clone() });
        let started = Instant::now();
        let mut warnings = Vec::new();
        let outcome = measure(exec, spec, cfg, checks, &mut warnings);
        exec.release();
        warnings.extend(exec.drain_warnings());
        match outcome {
            Ok(Outcome::Measured(mut r, sweep)) => {
                r.wall_s = started.elapsed().as_secs_f64();
                on(Event::Done { id: spec.id.clone(), summary: summary(&r) });
                warnings.extend(clock_warnings(&r, checks.max_sm_mhz));
                report.results.push(*r);
                report.sweeps.extend(sweep);
            }
            Ok(Outcome::Skipped(why)) => {
                on(Event::Done { id: spec.id.clone(), summary: format!("{}: {why}", spec.id) });
                report.skipped.push((spec.id.clone(), why));
            }
            Err(e) => {
                let error = e.to_string();
                on(Event::Failed { id: spec.id.clone(), error: error.clone() });
                report.failures.push(Failure { id: spec.id.clone(), error });
            }
        }
        for w in warnings {
            on(Event::Warning(w.clone()));
            report.warnings.push(w);
        }
    }
    report
}

/// "dram.read: 4647 GB/s (min 4.6 TB/s, max 4.7 TB/s) at SM 1980 MHz".
pub fn summary(r: &BenchResult) -> String {
    let clock = r.clock.as_ref().map(|c| format!(" at SM {:.0} MHz", c.sm_mhz_median)).unwrap_or_default();
    format!(
        "{}: {} (min {}, max {}){clock}",
        r.id,
        format_si(r.rate.median, r.unit),
        format_si(r.rate.min, r.unit),
        format_si(r.rate.max, r.unit)
    )
}

/// Warnings about the clocks a result ran at.
pub fn clock_warnings(r: &BenchResult, max_sm_mhz: Option<f64>) -> Vec<String> {
    let mut w = Vec::new();
    let Some(c) = &r.clock else { return w };
    if !c.throttle.is_empty() {
        w.push(format!("{}: the GPU throttled during the measurement ({})", r.id, c.throttle.join(", ")));
    }
    if let Some(max) = max_sm_mhz {
        if c.sm_mhz_median < 0.97 * max {
            w.push(format!(
                "{}: ran at SM {:.0} MHz, below the maximum {:.0} MHz: the figure is for that clock",
                r.id, c.sm_mhz_median, max
            ));
        }
    }
    w
}

/// One timed candidate, summarised.
#[derive(Debug, Clone)]
struct Measurement {
    rate: Spread,
    run_medians: Vec<f64>,
    seconds: Spread,
    clock: Option<ClockSummary>,
}

/// How much the runs' medians disagree, as a share of the best.
pub fn noise(run_medians: &[f64]) -> f64 {
    let max = run_medians.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = run_medians.iter().copied().fold(f64::INFINITY, f64::min);
    if run_medians.len() < 2 || max <= 0.0 {
        0.0
    } else {
        (max - min) / max
    }
}

fn summarise(exec: &dyn Executor, spec: &BenchSpec, work: f64, t: &Timing) -> Result<Measurement, GpuError> {
    let bad = |d: String| GpuError::bench(&spec.id, d);
    let spreads: Vec<Spread> = t
        .runs
        .iter()
        .map(|r| Spread::from_samples(&r.iter().map(|s| work / s).collect::<Vec<_>>()))
        .collect::<Result<_, _>>()
        .map_err(|e| bad(e.to_string()))?;
    let best = best_run(&spreads).ok_or_else(|| bad("no timed runs".into()))?;
    let seconds = Spread::from_samples(&t.runs[best]).map_err(|e| bad(e.to_string()))?;
    Ok(Measurement {
        rate: spreads[best],
        run_medians: spreads.iter().map(|s| s.median).collect(),
        seconds,
        clock: t.windows.get(best).and_then(|w| exec.clock(*w)),
    })
}

/// Times `c`, and once more when the runs disagree by more than [`NOISE_LIMIT`].
fn timed(
    exec: &mut dyn Executor,
    spec: &BenchSpec,
    c: &Candidate,
    reps: Reps,
    warnings: &mut Vec<String>,
) -> Result<Measurement, GpuError> {
    let t = exec.time(c, reps)?;
    let first = summarise(exec, spec, c.work, &t)?;
    if noise(&first.run_medians) <= NOISE_LIMIT {
        return Ok(first);
    }
    let t = exec.time(c, reps)?;
    let again = summarise(exec, spec, c.work, &t)?;
    let (kept, n) = if noise(&again.run_medians) <= noise(&first.run_medians) {
        let n = noise(&again.run_medians);
        (again, n)
    } else {
        let n = noise(&first.run_medians);
        (first, n)
    };
    if n > NOISE_LIMIT {
        let unit = spec.what.unit();
        let medians: Vec<String> = kept.run_medians.iter().map(|v| format_si(*v, unit)).collect();
        warnings.push(format!(
            "{}: the runs' medians differ by {:.1}% ({}) after a second measurement: another process or changing clocks may have disturbed it",
            spec.id,
            100.0 * n,
            medians.join(", ")
        ));
    }
    Ok(kept)
}

/// The fastest candidate of a group by a short timing; failures are skipped.
fn search(
    exec: &mut dyn Executor,
    spec: &BenchSpec,
    cfg: &SuiteConfig,
    group: &[&Candidate],
    log: &mut Vec<(String, f64)>,
    warnings: &mut Vec<String>,
) -> Result<Candidate, GpuError> {
    if group.len() == 1 {
        return Ok(group[0].clone());
    }
    let mut tried = Vec::new();
    let mut first_error = None;
    for c in group {
        match exec.time(c, cfg.search_reps()) {
            Ok(t) => {
                let rate = t.fastest().map(|s| c.work / s).unwrap_or(f64::NAN);
                tried.push((c.shape.clone(), rate));
                log.push((c.label.clone(), rate));
            }
            Err(e) => {
                warnings.push(format!("{}: candidate {} failed and was skipped: {e}", spec.id, c.label));
                log.push((c.label.clone(), f64::NAN));
                tried.push((c.shape.clone(), f64::NAN));
                first_error.get_or_insert(e);
            }
        }
    }
    let rates: Vec<f64> = tried.iter().map(|t| t.1).collect();
    match super::search::best_index(&rates) {
        Some(i) => Ok(group[i].clone()),
        None => Err(first_error.unwrap_or_else(|| GpuError::bench(&spec.id, "no candidate ran"))),
    }
}

fn measure(
    exec: &mut dyn Executor,
    spec: &BenchSpec,
    cfg: &SuiteConfig,
    checks: Checks<'_>,
    warnings: &mut Vec<String>,
) -> Result<Outcome, GpuError> {
    let plan = match exec.prepare(spec, cfg)? {
        Prepared::Skip(why) => return Ok(Outcome::Skipped(why)),
        Prepared::Plan(p) => p,
    };
    if plan.candidates.is_empty() {
        return Err(GpuError::bench(&spec.id, "nothing to measure on this GPU"));
    }
    let sweep = plan.axis.is_some();
    let mut groups: Vec<(Option<f64>, Vec<&Candidate>)> = Vec::new();
    for c in &plan.candidates {
        match groups.iter_mut().find(|(x, _)| *x == c.x) {
            Some((_, g)) => g.push(c),
            None => groups.push((c.x, vec![c])),
        }
    }
    let mut log = Vec::new();
    let mut points: Vec<(Candidate, Measurement, String)> = Vec::new();
    for (_, group) in &groups {
        let chosen = search(exec, spec, cfg, group, &mut log, warnings)?;
        let verified = exec.verify(&chosen)?;
        let reps = match spec.what {
            _ if sweep => cfg.point_reps(),
            What::Tensor(_) => cfg.burst_reps(),
            _ => cfg.final_reps(),
        };
        let m = timed(exec, spec, &chosen, reps, warnings)?;
        points.push((chosen, m, verified));
    }
    let best = points
        .iter()
        .enumerate()
        .max_by(|a, b| a.1 .1.rate.median.total_cmp(&b.1 .1.rate.median))
        .map(|(i, _)| i)
        .ok_or_else(|| GpuError::bench(&spec.id, "no point measured"))?;
    let curve = plan.axis.as_ref().map(|axis| {
        Curve::new(
            axis.clone(),
            points
                .iter()
                .map(|(c, m, _)| CurvePoint {
                    x: c.x.unwrap_or(0.0),
                    label: c.label.clone(),
                    rate: m.rate,
                    sm_mhz: m.clock.as_ref().map(|k| k.sm_mhz_median),
                })
                .collect(),
        )
    });
    let intensity_sweep = intensity_sweep(spec.what, cfg, &points);
    let (chosen, point, verified) = points.swap_remove(best);
    let m = if sweep { timed(exec, spec, &chosen, cfg.final_reps(), warnings)? } else { point };
    let result = record(spec, &plan, &chosen, m, verified, log, curve);
    match plausible(&result, checks.theoretical, checks.max_sm_mhz) {
        Err(detail) => return Err(GpuError::Implausible { bench: spec.id.clone(), detail }),
        Ok(Some(w)) => warnings.push(w),
        Ok(None) => {}
    }
    Ok(Outcome::Measured(Box::new(result), intensity_sweep))
}

fn record(
    spec: &BenchSpec,
    plan: &Plan,
    c: &Candidate,
    m: Measurement,
    verified: String,
    search: Vec<(String, f64)>,
    curve: Option<Curve>,
) -> BenchResult {
    let method = match &c.x {
        Some(_) => format!("{}; best point: {}", plan.method, c.label),
        None => plan.method.clone(),
    };
    BenchResult {
        id: spec.id.clone(),
        label: spec.label.clone(),
        what: spec.what,
        unit: plan.unit,
        rate: m.rate,
        run_medians: m.run_medians,
        seconds: m.seconds,
        work_per_launch: c.work,
        launch: c.shape.clone(),
        size: plan.size.clone(),
        clock: m.clock,
        method,
        verified,
        search,
        curve,
        wall_s: 0.0,
    }
}

/// The empirical roofline of an intensity sweep (x is FLOP per byte, the
/// candidate's variant indexes the FMA counts of the configuration).
fn intensity_sweep(what: What, cfg: &SuiteConfig, points: &[(Candidate, Measurement, String)]) -> Option<Sweep> {
    let What::Sweep(kind) = what else { return None };
    let pts: Vec<SweepPoint> = points
        .iter()
        .filter_map(|(c, m, _)| {
            let intensity = c.x?;
            Some(SweepPoint {
                iters: cfg.sweep_iters.get(c.variant).copied().unwrap_or(0),
                intensity,
                flops_per_s: m.rate,
                bytes_per_s: m.rate.median / intensity,
                sm_mhz: m.clock.as_ref().map(|k| k.sm_mhz_median),
            })
        })
        .collect();
    let ridge = locate_ridge(&pts.iter().map(|p| (p.intensity, p.flops_per_s.median)).collect::<Vec<_>>());
    Some(Sweep { kind, points: pts, ridge })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::machine::{measured_machine, PLAUSIBLE_MARGIN};
    use crate::bench::suite::{suite, LaunchShape, BURST_GAP_MS, BURST_LAUNCHES};
    use roofline_model::Unit;
    use roofline_model::{MemLevel, Origin, Pipe, Resource};
    use std::collections::HashMap;

    fn spec_of(id: &str) -> BenchSpec {
        suite().into_iter().find(|s| s.id == id).unwrap()
    }

    fn cand(label: &str, work: f64, x: Option<f64>, variant: usize) -> Candidate {
        Candidate { label: label.into(), shape: LaunchShape::new(variant as u32 + 1, 256), work, x, variant }
    }

    fn plan(unit: Unit, candidates: Vec<Candidate>, axis: Option<&str>) -> Prepared {
        Prepared::Plan(Plan {
            unit,
            candidates,
            axis: axis.map(String::from),
            size: "mock size".into(),
            method: "mock".into(),
        })
    }

    /// Seconds per launch for (variant, how many timings of it came before, run index).
    type Clock = Box<dyn Fn(usize, usize, usize) -> f64>;
    /// A canned plan, or the error preparing it fails with.
    type Canned = Result<Prepared, fn() -> GpuError>;

    /// Canned plans, timings and check results: the hardware of the tests.
    struct Mock {
        plans: HashMap<String, Canned>,
        seconds: Clock,
        wrong: Vec<String>,
        current: Option<String>,
        timings: Vec<(usize, Reps)>,
        verified: Vec<usize>,
        released: usize,
        warnings: Vec<String>,
    }

    impl Mock {
        fn new(seconds: impl Fn(usize, usize, usize) -> f64 + 'static) -> Mock {
            Mock {
                plans: HashMap::new(),
                seconds: Box::new(seconds),
                wrong: Vec::new(),
                current: None,
                timings: Vec::new(),
                verified: Vec::new(),
                released: 0,
                warnings: Vec::new(),
            }
        }
        fn with(mut self, id: &str, p: Prepared) -> Mock {
            self.plans.insert(id.into(), Ok(p));
            self
        }
    }

    impl Executor for Mock {
        fn prepare(&mut self, spec: &BenchSpec, _: &SuiteConfig) -> Result<Prepared, GpuError> {
            self.current = Some(spec.id.clone());
            match self.plans.get(&spec.id) {
                Some(Ok(p)) => Ok(p.clone()),
                Some(Err(f)) => Err(f()),
                None => Ok(Prepared::Skip("not mocked".into())),
            }
        }
        fn time(&mut self, c: &Candidate, reps: Reps) -> Result<Timing, GpuError> {
            let before = self.timings.iter().filter(|(v, _)| *v == c.variant).count();
            self.timings.push((c.variant, reps));
            let s = (self.seconds)(c.variant, before, 0);
            if s.is_nan() {
                return Err(GpuError::bench("mock", "launch failed"));
            }
            let runs = (0..reps.runs).map(|r| vec![(self.seconds)(c.variant, before, r); reps.reps]).collect();
            let windows = (0..reps.runs).map(|r| (r as f64, r as f64 + 0.5)).collect();
            Ok(Timing { runs, windows })
        }
        fn verify(&mut self, c: &Candidate) -> Result<String, GpuError> {
            self.verified.push(c.variant);
            let id = self.current.clone().unwrap_or_default();
            if self.wrong.contains(&id) {
                return Err(GpuError::Verification { bench: id, detail: "3 of 8 elements wrong".into() });
            }
            Ok(format!("checked variant {}", c.variant))
        }
        fn clock(&self, _: (f64, f64)) -> Option<ClockSummary> {
            Some(ClockSummary {
                samples: 5,
                sm_mhz_median: 1980.0,
                sm_mhz_min: 1980.0,
                sm_mhz_max: 1980.0,
                mem_mhz_median: 3201.0,
                temp_c_max: None,
                power_w_max: None,
                throttle: vec![],
            })
        }
        fn release(&mut self) {
            self.released += 1;
        }
        fn drain_warnings(&mut self) -> Vec<String> {
            std::mem::take(&mut self.warnings)
        }
    }

    fn h200() -> Machine {
        let attrs = roofline_hw::find("h200").unwrap().attributes();
        roofline_hw::theoretical_machine(&attrs).unwrap()
    }

    fn run(mock: &mut Mock, ids: &[&str]) -> Report {
        let theo = h200();
        let specs: Vec<BenchSpec> = ids.iter().map(|i| spec_of(i)).collect();
        let cfg = SuiteConfig::new(false);
        run_suite(mock, &specs, &cfg, Checks { theoretical: &theo, max_sm_mhz: Some(1980.0) }, &mut |_| {})
    }

    fn dram_bound() -> f64 {
        h200().bandwidth_roof(MemLevel::Dram).unwrap().rate
    }

    #[test]
    fn a_figure_above_the_roof_is_rejected_not_reported() {
        // 1 TB per launch in 0.1 s is 10 TB/s, twice the H200's DRAM.
        let mut m =
            Mock::new(|_, _, _| 0.1).with("dram.read", plan(Unit::BytePerSecond, vec![cand("a", 1e12, None, 0)], None));
        let r = run(&mut m, &["dram.read"]);
        assert!(r.results.is_empty());
        assert_eq!(r.failures.len(), 1);
        assert!(r.failures[0].error.contains("less work than counted"), "{}", r.failures[0].error);
    }

    #[test]
    fn plausibility_bound_is_five_percent_above_the_theoretical_roof() {
        assert_eq!(PLAUSIBLE_MARGIN, 1.05);
        let bound = dram_bound();
        for (factor, accepted) in [(1.049, true), (1.051, false)] {
            let secs = 1e12 / (factor * bound);
            let mut m = Mock::new(move |_, _, _| secs)
                .with("dram.read", plan(Unit::BytePerSecond, vec![cand("a", 1e12, None, 0)], None));
            let r = run(&mut m, &["dram.read"]);
            assert_eq!(r.results.len() == 1, accepted, "{factor} x the roof: {:?}", r.failures);
        }
    }

    #[test]
    fn noisy_runs_are_measured_again_then_warned() {
        // Every run 10% apart, every time.
        let mut m = Mock::new(|_, _, run| 1e-3 * (1.0 + 0.1 * run as f64))
            .with("dram.copy", plan(Unit::BytePerSecond, vec![cand("a", 1e9, None, 0)], None));
        let r = run(&mut m, &["dram.copy"]);
        assert_eq!(r.results.len(), 1);
        let finals = m.timings.iter().filter(|(_, reps)| reps.runs == 3).count();
        assert_eq!(finals, 2, "one retry");
        assert!(r.warnings.iter().any(|w| w.contains("differ by") && w.contains("dram.copy")), "{:?}", r.warnings);
    }

    #[test]
    fn tensor_gemms_are_timed_in_bursts_after_idle_gaps_and_streams_back_to_back() {
        // 2 TFLOP per launch in 2.5 ms: 800 TFLOP/s, under the H200's BF16 roof.
        let mut m = Mock::new(|_, _, _| 2.5e-3)
            .with("tensor.bf16", plan(Unit::FlopPerSecond, vec![cand("algorithm 1 of 1", 2e12, None, 0)], None))
            .with("dram.copy", plan(Unit::BytePerSecond, vec![cand("a", 1e9, None, 0)], None));
        let r = run(&mut m, &["tensor.bf16", "dram.copy"]);
        assert_eq!(r.results.len(), 2, "{:?}", r.failures);
        let cfg = SuiteConfig::new(false);
        let last = |variant_of: &str| {
            let skip = if variant_of == "tensor" { 0 } else { 1 };
            m.timings.iter().filter(|(_, reps)| reps.runs > 1).nth(skip).map(|(_, reps)| *reps)
        };
        assert_eq!(last("tensor"), Some(cfg.burst_reps()), "{:?}", m.timings);
        assert_eq!(cfg.burst_reps(), Reps::bursts(cfg.warmup, 7, BURST_LAUNCHES, BURST_GAP_MS));
        assert_eq!((BURST_LAUNCHES, BURST_GAP_MS), (4, 200));
        assert_eq!(last("dram"), Some(cfg.final_reps()), "{:?}", m.timings);
        assert_eq!(cfg.final_reps().gap_ms, 0);
    }

    #[test]
    fn noise_cleared_by_the_retry_is_not_warned_and_the_steady_runs_are_kept() {
        // The first final timing is noisy, the retry steady.
        let mut m = Mock::new(|_, before, run| if before == 0 { 1e-3 * (1.0 + 0.2 * run as f64) } else { 1e-3 })
            .with("dram.copy", plan(Unit::BytePerSecond, vec![cand("a", 1e9, None, 0)], None));
        let r = run(&mut m, &["dram.copy"]);
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        assert_eq!(noise(&r.results[0].run_medians), 0.0);
    }

    #[test]
    fn noise_limit_is_three_percent() {
        assert_eq!(NOISE_LIMIT, 0.03);
        assert!(noise(&[100.0, 97.1]) <= NOISE_LIMIT);
        assert!(noise(&[100.0, 96.9]) > NOISE_LIMIT);
        assert_eq!(noise(&[5.0]), 0.0);
    }

    #[test]
    fn wrong_output_fails_its_benchmark_and_the_suite_goes_on() {
        let p = plan(Unit::BytePerSecond, vec![cand("a", 1e9, None, 0)], None);
        let mut m = Mock::new(|_, _, _| 1e-3).with("dram.read", p.clone()).with("dram.copy", p);
        m.wrong.push("dram.read".into());
        let r = run(&mut m, &["dram.read", "dram.copy"]);
        assert_eq!(r.failures.len(), 1);
        assert!(r.failures[0].error.contains("wrong results"));
        assert_eq!(r.results.len(), 1);
        assert_eq!(r.results[0].id, "dram.copy");
        assert_eq!(m.released, 2, "buffers are freed after a failure too");
    }

    #[test]
    fn out_of_memory_fails_one_benchmark_by_its_class() {
        let mut m = Mock::new(|_, _, _| 1e-3);
        m.plans
            .insert("dram.add".into(), Err(|| GpuError::OutOfMemory { what: "DRAM array c".into(), bytes: 1 << 34 }));
        m.plans.insert("dram.copy".into(), Ok(plan(Unit::BytePerSecond, vec![cand("a", 1e9, None, 0)], None)));
        let r = run(&mut m, &["dram.add", "dram.copy"]);
        assert!(r.failures[0].error.contains("out of device memory"), "{:?}", r.failures);
        assert_eq!(r.results.len(), 1);
    }

    #[test]
    fn search_picks_the_fastest_checks_only_it_and_logs_every_candidate() {
        let cands = vec![cand("slow", 1e9, None, 0), cand("fast", 1e9, None, 1), cand("mid", 1e9, None, 2)];
        let mut m =
            Mock::new(|v, _, _| [2e-3, 1e-3, 1.5e-3][v]).with("dram.triad", plan(Unit::BytePerSecond, cands, None));
        let r = run(&mut m, &["dram.triad"]);
        let res = &r.results[0];
        assert_eq!(m.verified, vec![1]);
        assert_eq!(res.launch, LaunchShape::new(2, 256));
        assert_eq!(res.search.len(), 3);
        assert_eq!(res.rate.median, 1e12);
        assert!(res.verified.contains("variant 1"));
    }

    #[test]
    fn a_candidate_that_fails_to_launch_is_skipped_with_a_warning() {
        let cands = vec![cand("broken", 1e9, None, 0), cand("works", 1e9, None, 1)];
        let mut m = Mock::new(|v, _, _| if v == 0 { f64::NAN } else { 1e-3 })
            .with("l2.read", plan(Unit::BytePerSecond, cands, None));
        let r = run(&mut m, &["l2.read"]);
        assert_eq!(r.results.len(), 1, "{:?}", r.failures);
        assert!(r.warnings.iter().any(|w| w.contains("broken") && w.contains("skipped")));
    }

    #[test]
    fn sweep_checks_and_times_every_point_then_times_the_best_in_full() {
        // Warps per SM: the rate rises to a plateau from 16 warps on.
        let rates = [0.3, 0.6, 0.95, 1.0];
        let cands: Vec<Candidate> = [4.0, 8.0, 16.0, 32.0]
            .iter()
            .enumerate()
            .map(|(i, &x)| cand(&format!("{x} warps"), 1e9, Some(x), i))
            .collect();
        let mut m = Mock::new(move |v, _, _| 1e9 / (rates[v] * 2.5e11))
            .with("int.iadd3", plan(Unit::InstPerSecond, cands, Some("warps per SM")));
        let r = run(&mut m, &["int.iadd3"]);
        let res = &r.results[0];
        assert_eq!(m.verified, vec![0, 1, 2, 3], "every point is checked");
        let curve = res.curve.as_ref().unwrap();
        assert_eq!(curve.points.len(), 4);
        assert_eq!(curve.knee, Some(16.0));
        assert_eq!(res.launch, LaunchShape::new(4, 256), "the best point");
        let full = m.timings.iter().filter(|(v, reps)| *v == 3 && reps.runs == 3).count();
        assert_eq!(full, 1, "the best point timed again in full");
        assert_eq!(res.unit, Unit::InstPerSecond);
    }

    #[test]
    fn intensity_sweep_leaves_its_ridge() {
        let cfg = SuiteConfig::new(false);
        // 1 TB/s up to a 10 TFLOP/s plateau; x is FLOP per byte.
        let cands: Vec<Candidate> = cfg
            .sweep_iters
            .iter()
            .enumerate()
            .map(|(i, &it)| {
                let x = it as f64 / 4.0;
                cand(&format!("{it} FMA"), 1e10 * x, Some(x), i)
            })
            .collect();
        let xs: Vec<f64> = cands.iter().map(|c| c.x.unwrap()).collect();
        let mut m = Mock::new(move |v, _, _| {
            let x = xs[v];
            1e10 * x / (1e12 * x).min(1e13)
        })
        .with("sweep.fp32", plan(Unit::FlopPerSecond, cands, Some("FLOP per byte")));
        let r = run(&mut m, &["sweep.fp32"]);
        assert_eq!(r.sweeps.len(), 1, "{:?}", r.failures);
        let ridge = r.sweeps[0].ridge.unwrap();
        assert!((ridge.intensity - 10.0).abs() < 1e-6, "{ridge:?}");
        assert_eq!(r.sweeps[0].points[0].iters, 1);
    }

    #[test]
    fn a_skipped_benchmark_is_said_and_not_failed() {
        let mut m = Mock::new(|_, _, _| 1e-3);
        let mut said = Vec::new();
        let theo = h200();
        let r = run_suite(
            &mut m,
            &[spec_of("tensor.fp8")],
            &SuiteConfig::new(true),
            Checks { theoretical: &theo, max_sm_mhz: None },
            &mut |e| said.push(e),
        );
        assert!(r.failures.is_empty() && r.results.is_empty());
        assert!(said.iter().any(|e| matches!(e, Event::Done { summary, .. } if summary.contains("not mocked"))));
    }

    /// An H200 pair behind NVSwitch: 18 NVLink 4 links (450 GB/s one way),
    /// PCIe Gen5 x16 to the host.
    fn h200_pair() -> Machine {
        use roofline_hw::{theoretical_links, GpuLinks, NvLinks, Pcie};
        let mut m = h200();
        let gpus: Vec<GpuLinks> = (0..2)
            .map(|gpu| GpuLinks {
                gpu,
                pcie: Some(Pcie { generation: 5, lanes: 16 }),
                nvlink: Some(NvLinks { version: 4, active: 18, to_gpu: Default::default(), to_switch: 18 }),
            })
            .collect();
        m.ceilings.extend(theoretical_links(&gpus));
        m
    }

    fn link_spec(id: &str) -> BenchSpec {
        crate::bench::suite::interconnect(0, 2).into_iter().find(|s| s.id == id).unwrap()
    }

    fn run_links(mock: &mut Mock, ids: &[&str]) -> Report {
        let theo = h200_pair();
        let specs: Vec<BenchSpec> = ids.iter().map(|i| link_spec(i)).collect();
        run_suite(
            mock,
            &specs,
            &SuiteConfig::new(false),
            Checks { theoretical: &theo, max_sm_mhz: Some(1980.0) },
            &mut |_| {},
        )
    }

    #[test]
    fn a_peer_copy_faster_than_its_nvlinks_is_rejected() {
        // 512 MiB one way: 1.06 x 450 GB/s is rejected, 0.9 x is kept.
        let bytes = (512u64 << 20) as f64;
        for (factor, kept) in [(0.9, true), (1.06, false)] {
            let secs = bytes / (factor * 450e9);
            let mut m = Mock::new(move |_, _, _| secs)
                .with("link.p2p.ce.write.0-1", plan(Unit::BytePerSecond, vec![cand("copy", bytes, None, 0)], None));
            let r = run_links(&mut m, &["link.p2p.ce.write.0-1"]);
            assert_eq!(r.results.len() == 1, kept, "{factor}: {:?}", r.failures);
            if !kept {
                assert!(
                    r.failures[0].error.contains("GPU 0 -> GPU 1") && r.failures[0].error.contains("NVLink 4 x18"),
                    "{}",
                    r.failures[0].error
                );
            }
        }
        // Both ways at once are bound by twice the one-way rate.
        let secs = 2.0 * bytes / (1.8 * 450e9);
        let mut m = Mock::new(move |_, _, _| secs).with(
            "link.p2p.sm.write.bi.0-1",
            plan(Unit::BytePerSecond, vec![cand("copy", 2.0 * bytes, None, 0)], None),
        );
        assert_eq!(run_links(&mut m, &["link.p2p.sm.write.bi.0-1"]).results.len(), 1);
    }

    #[test]
    fn a_host_copy_above_pcie_is_warned_not_rejected() {
        // 70 GB/s over a PCIe Gen5 x16 bound of 63 GB/s: perhaps NVLink-C2C.
        let bytes = (512u64 << 20) as f64;
        let mut m = Mock::new(move |_, _, _| bytes / 70e9)
            .with("link.h2d", plan(Unit::BytePerSecond, vec![cand("memcpy", bytes, None, 0)], None));
        let r = run_links(&mut m, &["link.h2d"]);
        assert_eq!(r.results.len(), 1, "{:?}", r.failures);
        assert!(r.warnings.iter().any(|w| w.contains("unconfirmed") && w.contains("link.h2d")), "{:?}", r.warnings);
    }

    #[test]
    fn a_link_without_a_theoretical_bound_says_it_was_not_checked() {
        let bytes = (512u64 << 20) as f64;
        let mut m = Mock::new(move |_, _, _| bytes / 50e9)
            .with("link.d2h", plan(Unit::BytePerSecond, vec![cand("memcpy", bytes, None, 0)], None));
        let theo = h200();
        let r = run_suite(
            &mut m,
            &[link_spec("link.d2h")],
            &SuiteConfig::new(true),
            Checks { theoretical: &theo, max_sm_mhz: None },
            &mut |_| {},
        );
        assert_eq!(r.results.len(), 1);
        assert!(r.warnings.iter().any(|w| w.contains("no theoretical link bound")), "{:?}", r.warnings);
    }

    #[test]
    fn a_collective_sweep_reports_its_best_bus_bandwidth_and_becomes_a_roof() {
        use roofline_model::CollectiveOp;
        use roofline_model::Link;
        // Bus bandwidth rises with the message: 250, 330, 360, 365 GB/s.
        let sizes = [16u64 << 20, 64 << 20, 256 << 20, 1 << 30];
        let busbw = [250e9, 330e9, 360e9, 365e9];
        let cands: Vec<Candidate> = sizes
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                cand(
                    &format!("{s} B"),
                    crate::bench::interconnect::bus_bytes(CollectiveOp::AllReduce, s, 2),
                    Some(s as f64),
                    i,
                )
            })
            .collect();
        let works: Vec<f64> = cands.iter().map(|c| c.work).collect();
        let mut m = Mock::new(move |v, _, _| works[v] / busbw[v])
            .with("link.nccl.all_reduce", plan(Unit::BytePerSecond, cands, Some("message size (bytes)")));
        let r = run_links(&mut m, &["link.nccl.all_reduce"]);
        assert!(r.failures.is_empty(), "{:?}", r.failures);
        let res = &r.results[0];
        assert!((res.rate.median - 365e9).abs() < 1.0, "{}", res.rate.median);
        assert_eq!(res.curve.as_ref().unwrap().points.len(), 4);
        assert_eq!(m.verified, vec![0, 1, 2, 3], "every size is checked");
        let machine = measured_machine(&h200_pair(), &r.results, &r.sweeps);
        let roof = machine.roof(Resource::Link(Link::Collective { op: CollectiveOp::AllReduce, gpus: 2 })).unwrap();
        assert_eq!(roof.provenance.origin, Origin::Measured);
        assert_eq!(roof.name, "all-reduce bus over 2 GPUs (measured)");
        assert!(roof.spread.is_some() && roof.clock.sm_mhz == Some(1980.0));
    }

    #[test]
    fn the_faster_issuer_is_the_peer_roof_and_the_other_is_drawn_beneath() {
        use roofline_model::{Engine, Link};
        let bytes = (512u64 << 20) as f64;
        let p = || plan(Unit::BytePerSecond, vec![cand("copy", bytes, None, 0)], None);
        let mut write = Mock::new(move |_, _, _| bytes / 380e9).with("link.p2p.ce.write.0-1", p());
        let r = run_links(&mut write, &["link.p2p.ce.write.0-1"]);
        let mut read = Mock::new(move |_, _, _| bytes / 360e9).with("link.p2p.ce.read.0-1", p());
        let r2 = run_links(&mut read, &["link.p2p.ce.read.0-1"]);
        let all: Vec<_> = r.results.into_iter().chain(r2.results).collect();
        let machine = measured_machine(&h200_pair(), &all, &[]);
        let link = Link::Peer { from: 0, to: 1, engine: Engine::CopyEngine, both_ways: false };
        let roof = machine.roof(Resource::Link(link)).unwrap();
        assert_eq!(roof.name, "GPU 0 -> GPU 1 copy engine, write (measured)");
        assert!((roof.rate - 380e9).abs() < 1.0);
        assert!(machine.links().any(|c| c.secondary && c.name == "GPU 0 -> GPU 1 copy engine, read (measured)"));
        // The wire's theoretical roof stays beside it.
        let wire = Link::Peer { from: 0, to: 1, engine: Engine::Wire, both_ways: false };
        assert_eq!(machine.roof(Resource::Link(wire)).unwrap().rate, 450e9);
    }

    #[test]
    fn a_benchmark_that_needs_more_gpus_is_recorded_as_skipped_with_the_reason() {
        let mut m = Mock::new(|_, _, _| 1e-3);
        m.plans.insert("link.p2p".into(), Ok(Prepared::Skip("needs 2 GPUs: this machine has 1".into())));
        let theo = h200();
        let spec = crate::bench::suite::interconnect(0, 1).into_iter().find(|s| s.id == "link.p2p").unwrap();
        let r = run_suite(
            &mut m,
            &[spec],
            &SuiteConfig::new(true),
            Checks { theoretical: &theo, max_sm_mhz: None },
            &mut |_| {},
        );
        assert!(r.results.is_empty() && r.failures.is_empty());
        assert_eq!(r.skipped, vec![("link.p2p".to_string(), "needs 2 GPUs: this machine has 1".to_string())]);
    }

    #[test]
    fn a_mock_suite_builds_measured_instruction_and_memory_roofs() {
        let g = 132.0 * 1980e6; // SMs x clock: warp instructions per clock and SM -> per second
        let inst = |per_sm_clk: f64| move |_: usize, _: usize, _: usize| 1e9 / (per_sm_clk * g);
        let conflicts: Vec<Candidate> =
            [1.0, 2.0, 32.0].iter().enumerate().map(|(i, &w)| cand(&format!("{w}-way"), 1e9 / w, Some(w), i)).collect();
        let contention: Vec<Candidate> = [1.0, 32.0]
            .iter()
            .enumerate()
            .map(|(i, &c)| cand(&format!("{c} per address"), 1e9 / c, Some(c), i))
            .collect();
        let mut m = Mock::new(inst(0.95))
            .with(
                "int.iadd3",
                plan(Unit::InstPerSecond, vec![cand("64 warps", 1e9, Some(64.0), 0)], Some("warps per SM")),
            )
            .with("shared.lds32", plan(Unit::InstPerSecond, conflicts, Some("ways of bank conflict")))
            .with("atomic.global", plan(Unit::InstPerSecond, contention, Some("threads per address")));
        let r = run(&mut m, &["int.iadd3", "shared.lds32", "atomic.global"]);
        assert!(r.failures.is_empty(), "{:?}", r.failures);
        let theo = h200();
        let machine = measured_machine(&theo, &r.results, &r.sweeps);
        let alu = machine.roof(Resource::Instruction(Pipe::Alu)).unwrap();
        assert_eq!(alu.provenance.origin, Origin::Measured);
        assert_eq!(alu.name, "IADD3 (measured)");
        assert!(alu.spread.is_some() && alu.clock.sm_mhz == Some(1980.0));
        let shared = machine.roof(Resource::Instruction(Pipe::Shared)).unwrap();
        assert_eq!(shared.name, "LDS.32 (measured)");
        assert!(machine
            .instruction()
            .any(|c| c.secondary && c.name == "LDS.32, 32-way bank conflicts (measured)" && c.rate < shared.rate));
        assert_eq!(machine.roof(Resource::Instruction(Pipe::GlobalAtomic)).unwrap().name, "RED.E.ADD (measured)");
        assert!(machine.instruction().any(|c| c.name == "RED.E.ADD, 32 threads per address (measured)" && c.secondary));
    }
}
