//! The merge of profile's two passes at scale: a 100,000-launch timeline
//! (300 kernels, 50 NVTX steps, half the launches from a thread with no
//! range of its own) with counter points for the kernels covering 95% of
//! its time: the plan, a row per launch with its true duration and ranges
//! ([`launch_rows`]), and the program view weighted by those durations.
//! Issue 11's budget: under 2 s on one core.
//!
//!     cargo bench -p roofline-timeline --bench merge

use std::collections::HashMap;

use criterion::{criterion_group, criterion_main, Criterion};

use roofline_analysis::analyze;
use roofline_analysis::{GroupBy, ProgramOptions, ProgramView};
use roofline_model::Kernel;
use roofline_model::{FlopKind, Machine, MemLevel, Origin};
use roofline_timeline::Timeline;
use roofline_timeline::{launch_rows, Plan, PlanOptions};
use roofline_timeline::{Activity, ActivityKind, ActivityName, NvtxRange};

const LAUNCHES: u32 = 100_000;
const NAMES: u32 = 300;
const STEPS: u32 = 50;

fn timeline() -> Timeline {
    let names = (0..NAMES)
        .map(|id| ActivityName {
            name: format!("void at::native::kernel_{id}<float>(float*, int)"),
            mangled: Some(format!("_ZN2at6native{id}kernel_nameIfEEvPT_S2_i")),
            display_name: format!("kernel_{id}"),
            kind: ActivityKind::Kernel,
        })
        .collect();
    let per_step = LAUNCHES / STEPS;
    let mut ranges = Vec::new();
    let mut activities = Vec::with_capacity(LAUNCHES as usize);
    let mut t = 1_000_000u64;
    for i in 0..LAUNCHES {
        if i % per_step == 0 {
            ranges.push(NvtxRange {
                name: format!("step {}", i / per_step),
                domain: None,
                pid: 1,
                tid: 1,
                start_ns: t,
                end_ns: None,
                depth: 0,
                parent: None,
            });
        }
        // Skewed: low IDs take most of the time, as in a training step.
        let name = (i.wrapping_mul(2_654_435_761) % NAMES).min(i % NAMES);
        let dur = 2_000 + (i as u64 * 7919) % 50_000 + 200_000 / (1 + name as u64);
        activities.push(Activity {
            kind: ActivityKind::Kernel,
            name,
            start_ns: t,
            end_ns: t + dur,
            pid: 1,
            device: 0,
            context: 1,
            stream: 7 + i % 4,
            correlation: i,
            grid: Some([128 + name % 3, 1, 1]),
            block: Some([256, 1, 1]),
            registers: None,
            shared_static: None,
            shared_dynamic: None,
            bytes: None,
            graph: None,
            graph_node: None,
            launch: None,
            nvtx: (i % 2 == 0).then_some(ranges.len() as u32 - 1),
        });
        t += dur + 1_000;
        if i % per_step == per_step - 1 {
            ranges.last_mut().expect("a range").end_ns = Some(t);
        }
    }
    Timeline { names, activities, ranges, ..Timeline::default() }
}

fn bench(c: &mut Criterion) {
    let tl = timeline();
    let plan = Plan::of(&tl, PlanOptions::default());
    assert!(plan.covered_share >= 0.95 && plan.left_out > 0, "{} kernels planned", plan.kernels.len());
    // Counter points for the planned kernels (what ncu's pass gives).
    let machine = Machine::simple("bench GPU", FlopKind::Fp32, 60e12, 4e12);
    let kernels: Vec<Kernel> = plan
        .kernels
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut k = Kernel::named(&p.name, Origin::Counter);
            k.id = p.match_name.clone();
            k.bytes.insert(MemLevel::Dram, 1e6 * (1 + i) as f64);
            k.flops.insert(FlopKind::Fp32, 1e6 * (i % 50) as f64);
            k.duration_s = Some(1e-5);
            k
        })
        .collect();
    let analyses = analyze(&machine, &kernels);
    let ids: HashMap<String, String> =
        plan.kernels.iter().map(|p| (p.match_name.clone(), p.match_name.clone())).collect();
    let merge = |group_by| {
        let rows = launch_rows(&tl, |_, mangled| mangled.and_then(|m| ids.get(m).cloned()));
        ProgramView::from_launches(&analyses, &rows, &ProgramOptions { group_by, ..ProgramOptions::default() })
    };
    let view = merge(GroupBy::Labels);
    assert_eq!(view.launches, LAUNCHES as u64);
    assert!((view.placed_s / view.total_s - plan.covered_share).abs() < 1e-9, "counter-backed share");
    let mut g = c.benchmark_group("merge_100k_launches");
    g.sample_size(10);
    g.bench_function("plan", |b| b.iter(|| Plan::of(&tl, PlanOptions::default())));
    g.bench_function("launch_rows_and_program_view_by_nvtx", |b| b.iter(|| merge(GroupBy::Labels)));
    g.bench_function("launch_rows_and_program_view_by_name", |b| b.iter(|| merge(GroupBy::Name)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
