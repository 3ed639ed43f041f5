//! The summary of a 100,000-launch timeline (per-kernel sums with exact
//! medians, busy share and gaps, NVTX grouping), and reading the record
//! files it came from, on one core.
//!
//!     cargo bench -p roofline-timeline --bench summary

use criterion::{criterion_group, criterion_main, Criterion};

use roofline_records::{ClockPair, MarkerFlag, Record};
use roofline_timeline::{read_sources, Summary, Timeline};

const LAUNCHES: u32 = 100_000;
const NAMES: u32 = 300;
const STEPS: u32 = 50;

/// One process: 300 kernel names, 4 streams, a `step N` range on the main
/// thread every 2,000 launches, half the launches from a second thread.
fn record_file() -> String {
    let mut lines = vec![Record::header(
        1,
        0,
        "python3".into(),
        vec!["python3".into(), "train.py".into()],
        ClockPair { cupti_ns: 1_000_000, unix_ns: 1_700_000_000_000_000_000 },
    )];
    for id in 1..=NAMES {
        lines.push(Record::Name { id, s: format!("_ZN2at6native{id}kernel_nameIfEEvPT_S2_i") });
    }
    lines.push(Record::Name { id: NAMES + 1, s: "cudaLaunchKernel_v7000".into() });
    let per_step = LAUNCHES / STEPS;
    let mut t = 1_000_000u64;
    for i in 0..LAUNCHES {
        if i % per_step == 0 {
            let step = i / per_step;
            lines.push(Record::Name { id: NAMES + 2 + step, s: format!("step {step}") });
            lines.push(Record::Marker {
                id: step + 1,
                flag: MarkerFlag::Start,
                ts: t,
                pid: 1,
                tid: 1,
                name: Some(NAMES + 2 + step),
                domain: None,
            });
        }
        let dur = 2_000 + (i as u64 * 7919) % 50_000;
        lines.push(Record::Api { name: NAMES + 1, start: t, end: t + 3_000, tid: 1 + i % 2, corr: i + 1 });
        lines.push(Record::Kernel {
            name: 1 + (i * 31) % NAMES,
            start: t + 5_000,
            end: t + 5_000 + dur,
            dev: 0,
            ctx: 1,
            stream: 7 + i % 4,
            corr: i + 1,
            grid: [128, 1, 1],
            block: [256, 1, 1],
            regs: 32,
            smem_static: 0,
            smem_dynamic: 0,
            graph: None,
            node: None,
        });
        t += dur / 2 + 1_000;
        if i % per_step == per_step - 1 {
            let step = i / per_step;
            lines.push(Record::Marker {
                id: step + 1,
                flag: MarkerFlag::End,
                ts: t,
                pid: 1,
                tid: 1,
                name: None,
                domain: None,
            });
        }
    }
    lines.push(Record::End { reason: "exit".into(), records: lines.len() as u64 });
    lines.iter().map(Record::to_line).collect()
}

fn read(text: &str) -> Timeline {
    read_sources(vec![("1.jsonl".to_string(), std::io::Cursor::new(text.as_bytes()))], None)
}

fn bench(c: &mut Criterion) {
    let text = record_file();
    let tl = read(&text);
    assert_eq!(tl.kernel_count(), LAUNCHES as usize);
    assert_eq!(tl.ranges.len(), STEPS as usize);
    let mut g = c.benchmark_group("timeline_100k_launches");
    g.sample_size(10);
    g.bench_function("summary", |b| b.iter(|| Summary::of(&tl, 10)));
    g.bench_function("read_record_files", |b| b.iter(|| read(&text)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
