//! Scale: 100,000 kernels through what `roofline report -o FILE.html`,
//! `roofline check --baseline` and `roofline diff -o FILE.html` do (issue
//! 16, item 15): read the analysis JSON, compute, render, in under 10 s
//! each and under 1 GB.
//!
//! The analyses are generated: 100,000 Nsight-Compute-like kernels (FP32,
//! FP64 and tensor mixes, bytes at DRAM, L2 and L1, occupancy and
//! throughput evidence, long templated names) under the bundled H200
//! machine, and an "after" analysis with every kernel's time changed.
//! Peak memory is the most heap in use at once during one run, counted by
//! this program's allocator (heap is what grows with the kernel count).
//!
//!   cargo bench -p roofline-report --bench scale
//!
//! Prints the time (criterion) and the peak memory of each path, and exits
//! 1 when a single run misses 10 s or 1 GB. `ROOFLINE_SCALE_DIR=DIR` also
//! writes the two analyses there (`before.json`, `after.json`) to run the
//! binary on them; `ROOFLINE_SCALE_REUSE=DIR` reads them back instead of
//! generating; `ROOFLINE_SCALE_ONCE=1` stops after the one-run figures;
//! `ROOFLINE_SCALE_PHASES=1` prints where the time and memory go.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion};
use roofline_documents::diff;
use roofline_documents::{check, Rules};
use roofline_documents::{read_analysis, read_machine, AnalysisDocument, AnalysisSource, Producer};
use roofline_model::{Evidence, Kernel};
use roofline_model::{FlopKind, MemLevel, Origin};
use roofline_report::{render, CheckDocument, DiffDocument, Format, RenderOptions};

const KERNELS: usize = 100_000;
const TARGET_S: f64 = 10.0;
const TARGET_BYTES: usize = 1 << 30;

/// The system allocator, counting the bytes in use and their peak.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            let now = IN_USE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Seconds and peak heap bytes (above what was in use before) of one run.
fn measure<T>(f: impl FnOnce() -> T) -> (f64, usize) {
    let (secs, _, peak) = measure_cpu(f);
    (secs, peak)
}

/// This process's CPU seconds (user + system), from /proc/self/stat: the
/// work done, whatever else the machine runs (Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 (utime, stime) are the 12th and 13th after the name
    // (the 3rd, the state, comes first); ticks of 1/100 s.
    let tick = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) / 100.0
}

/// Wall seconds, CPU seconds and peak heap bytes of one run.
fn measure_cpu<T>(f: impl FnOnce() -> T) -> (f64, f64, usize) {
    let base = IN_USE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let cpu = cpu_seconds();
    let t = Instant::now();
    let out = f();
    let secs = t.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    drop(out);
    (secs, cpu, PEAK.load(Ordering::Relaxed) - base)
}

/// A small deterministic generator (an LCG): the same kernels every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Log-uniform in [lo, hi].
    fn log(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + self.next() * (hi.ln() - lo.ln())).exp()
    }
}

fn kernels(seed: u64, time_scale: f64) -> Vec<Kernel> {
    let mut r = Lcg(seed);
    let mut rng = Lcg(42);
    (0..KERNELS)
        .map(|i| {
            let family = ["gemm", "elementwise_kernel", "reduce_kernel", "softmax_warp_forward", "layer_norm"][i % 5];
            let name = format!(
                "void at::native::{family}<{}, float, at::native::Op{i}>(int, at::native::TensorIterator&, const {family}_params_{})",
                i % 7,
                i % 13
            );
            let mut k = Kernel::named(&name, Origin::Counter);
            k.display_name = format!("{family}_{i}");
            let dram = r.log(1e5, 1e9);
            k.bytes.insert(MemLevel::Dram, dram);
            k.bytes.insert(MemLevel::L2, dram * (1.0 + 3.0 * r.next()));
            k.bytes.insert(MemLevel::L1, dram * (1.0 + 8.0 * r.next()));
            let flops = dram * r.log(0.01, 500.0);
            match i % 4 {
                0 => {
                    k.flops.insert(FlopKind::Fp32, flops);
                }
                1 => {
                    k.flops.insert(FlopKind::Fp64, flops);
                }
                2 => {
                    k.flops.insert(FlopKind::TensorBf16, flops);
                    k.flops.insert(FlopKind::Fp32, flops * 0.01);
                }
                _ => {}
            }
            k.launches = 1 + (i % 9) as u64;
            k.duration_s = Some(r.log(2e-6, 5e-3) * time_scale * (0.8 + 0.4 * rng.next()));
            k.evidence = Evidence {
                dram_throughput_pct: Some(100.0 * r.next()),
                sm_throughput_pct: Some(100.0 * r.next()),
                occupancy_theoretical_pct: Some(50.0 + 50.0 * r.next()),
                occupancy_achieved_pct: Some(40.0 * r.next()),
                global_load_bytes_per_sector: Some(4.0 + 28.0 * r.next()),
                ..Evidence::default()
            }
            .into();
            k
        })
        .collect()
}

fn analysis_json(seed: u64, time_scale: f64) -> String {
    let machine = read_machine(include_str!("../../../data/h200/tour/machine.json"), "data/h200/tour/machine.json")
        .expect("bundled machine")
        .machine;
    let analyses = roofline_analysis::analyze(&machine, &kernels(seed, time_scale));
    let doc = AnalysisDocument::new(
        Producer::new("scale bench"),
        AnalysisSource { kind: "ncu".into(), detail: format!("{KERNELS} generated kernels"), byte_convention: None },
        machine,
        analyses,
    );
    serde_json::to_string_pretty(&doc).expect("serialise")
}

/// As `roofline report -o FILE.html`: the page shows the kernels with the
/// most time (`page_view`), the summary counts all of them.
fn report(text: &str) -> String {
    let doc = read_analysis(text, "after.json").expect("read");
    let page = roofline_report::page_view(&doc);
    render(page.as_ref().unwrap_or(&doc), Format::Html, &RenderOptions::default()).expect("render")
}

fn check_baseline(text: &str, base: &str) -> String {
    let doc = read_analysis(text, "after.json").expect("read");
    let baseline = read_analysis(base, "before.json").expect("read baseline");
    let rules = Rules { max_regression_pct: Some(10.0), baseline: Some("before.json".into()), ..Rules::default() };
    let r = check(&doc, &rules, Some(&baseline));
    render(&CheckDocument::new(&r), Format::Table, &RenderOptions::default()).expect("render")
}

fn diff_html(base: &str, text: &str) -> String {
    let before = read_analysis(base, "before.json").expect("read");
    let after = read_analysis(text, "after.json").expect("read");
    let d = diff(&before, &after, &[]).expect("diff");
    let page = roofline_report::page_diff(&d);
    let shown = page.as_ref().unwrap_or(&d);
    render(&DiffDocument { before: &before, after: &after, diff: shown }, Format::Html, &RenderOptions::default())
        .expect("render")
}

/// Where one run's time and memory go, phase by phase
/// (`ROOFLINE_SCALE_PHASES=1`), to find what to make faster.
fn phases(before: &str, after: &str) {
    use roofline_report::Describe;
    let (t, m) = measure(|| read_analysis(after, "after.json").expect("read"));
    println!("  read one analysis: {t:.2} s, {:.0} MB", m as f64 / 1e6);
    let doc = read_analysis(after, "after.json").expect("read");
    let base = read_analysis(before, "before.json").expect("read");
    let (t, m) = measure(|| doc.sections());
    println!("  analysis sections: {t:.2} s, {:.0} MB", m as f64 / 1e6);
    let (t, m) = measure(|| doc.point_details());
    println!("  point details: {t:.2} s, {:.0} MB", m as f64 / 1e6);
    let (t, m) = measure(|| render(&doc, Format::Html, &RenderOptions::default()).expect("html"));
    println!("  analysis html: {t:.2} s, {:.0} MB", m as f64 / 1e6);
    let (t, m) = measure(|| serde_json::to_string(&doc).expect("json"));
    println!("  analysis json: {t:.2} s, {:.0} MB", m as f64 / 1e6);
    let rules = Rules { max_regression_pct: Some(10.0), baseline: Some("before.json".into()), ..Rules::default() };
    let (t, m) = measure(|| check(&doc, &rules, Some(&base)));
    println!("  check: {t:.2} s, {:.0} MB", m as f64 / 1e6);
    let r = check(&doc, &rules, Some(&base));
    let (t, m) = measure(|| render(&CheckDocument::new(&r), Format::Table, &RenderOptions::default()).expect("t"));
    println!("  check table: {t:.2} s, {:.0} MB", m as f64 / 1e6);
    let (t, m) = measure(|| diff(&base, &doc, &[]).expect("diff"));
    println!("  diff: {t:.2} s, {:.0} MB", m as f64 / 1e6);
    let d = diff(&base, &doc, &[]).expect("diff");
    let dd = DiffDocument { before: &base, after: &doc, diff: &d };
    let (t, m) = measure(|| dd.sections());
    println!("  diff sections: {t:.2} s, {:.0} MB", m as f64 / 1e6);
    let (t, m) = measure(|| render(&dd, Format::Html, &RenderOptions::default()).expect("html"));
    println!("  diff html: {t:.2} s, {:.0} MB", m as f64 / 1e6);
}

fn scale(c: &mut Criterion) {
    let (before, after) = match std::env::var_os("ROOFLINE_SCALE_REUSE") {
        Some(dir) => {
            let dir = std::path::PathBuf::from(dir);
            let read = |f: &str| std::fs::read_to_string(dir.join(f)).expect("analysis written before");
            (read("before.json"), read("after.json"))
        }
        None => (analysis_json(7, 1.0), analysis_json(7, 1.1)),
    };
    if std::env::var_os("ROOFLINE_SCALE_PHASES").is_some() {
        phases(&before, &after);
        return;
    }
    if let Some(dir) = std::env::var_os("ROOFLINE_SCALE_DIR") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).expect("scale dir");
        std::fs::write(dir.join("before.json"), &before).expect("write");
        std::fs::write(dir.join("after.json"), &after).expect("write");
    }
    println!(
        "{KERNELS} kernels: analysis JSON {:.0} MB each; one run of each path (target < {TARGET_S} s, < 1 GB):",
        after.len() as f64 / 1e6
    );
    let mut missed = Vec::new();
    for (name, run) in [
        ("report -o report.html", Box::new(|| report(&after)) as Box<dyn Fn() -> String>),
        ("check --baseline", Box::new(|| check_baseline(&after, &before))),
        ("diff -o diff.html", Box::new(|| diff_html(&before, &after))),
    ] {
        let (secs, cpu, peak) = measure_cpu(&run);
        println!("  {name}: {secs:.2} s wall, {cpu:.2} s CPU, peak heap {:.0} MB", peak as f64 / 1e6);
        // CPU time is the work itself (one thread: the wall time on an idle
        // core); wall time also counts what else the machine runs.
        let work = if cpu > 0.0 { cpu } else { secs };
        if work >= TARGET_S || peak >= TARGET_BYTES {
            missed.push(name);
        }
    }

    if std::env::var_os("ROOFLINE_SCALE_ONCE").is_some() {
        // The one-run figures only (a loaded machine, a quick look).
        if !missed.is_empty() {
            std::process::exit(1);
        }
        return;
    }
    let mut g = c.benchmark_group("100k_kernels");
    g.sample_size(10).warm_up_time(Duration::from_millis(1)).measurement_time(Duration::from_secs(20));
    g.bench_function("report_html", |b| b.iter(|| report(&after)));
    g.bench_function("check_baseline", |b| b.iter(|| check_baseline(&after, &before)));
    g.bench_function("diff_html", |b| b.iter(|| diff_html(&before, &after)));
    g.finish();
    if !missed.is_empty() {
        eprintln!("over the target (10 s, 1 GB): {}", missed.join(", "));
        std::process::exit(1);
    }
}

criterion_group!(benches, scale);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
