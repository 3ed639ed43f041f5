//! `roofline merge` at scale (issue 12: 256 ranks of 10,000 launches each
//! in under 10 s and 2 GB of memory, on one core): read, parse and fold
//! every rank, then build the merged job (its analysis included).
//!
//! - `aggregated`: 256 synthetic ranks of 10,000 launches over 200 kernel
//!   slots, one entry per kernel with its launches summed (what `roofline
//!   profile` writes by default), as pretty JSON in memory.
//! - `per_launch`: rank files with one entry per launch (`profile
//!   --per-launch`; 15 MB each at 10,000 launches), read from
//!   `$ROOFLINE_RANKS_DIR`, written beforehand with
//!   `cargo run --release -p roofline-core --example ranks -- write DIR 256 10000 200 per-launch`;
//!   skipped, and said so, without the variable.
//!
//! Peak memory is measured by `examples/ranks.rs merge DIR` in a process
//! of its own (criterion's own buffers would count here).
//!
//!   cargo bench -p roofline-core --bench merge_ranks

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use roofline_core::merge::{read_rank, MergedDocument, Merger};
use roofline_core::schema::Producer;

const RANKS: u32 = 256;
const LAUNCHES: u64 = 10_000;
const KINDS: usize = 200;

fn merge_texts<'a>(texts: impl Iterator<Item = (String, std::borrow::Cow<'a, str>)>) -> MergedDocument {
    let mut m = Merger::new(None);
    for (i, (input, text)) in texts.enumerate() {
        let doc = read_rank(&text, &input).expect("a rank file");
        m.add_rank(doc, &input, i as u32).expect("merge");
    }
    m.finish(Producer::new("bench")).expect("finish")
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("merge");
    g.sample_size(10).measurement_time(Duration::from_secs(30)).warm_up_time(Duration::from_secs(1));
    let texts: Vec<String> = (0..RANKS)
        .map(|r| {
            serde_json::to_string_pretty(&roofline_core::synthetic::rank(r, RANKS, LAUNCHES, KINDS, false)).unwrap()
        })
        .collect();
    let mb = texts.iter().map(|t| t.len()).sum::<usize>() as f64 / 1e6;
    eprintln!("aggregated: {RANKS} ranks x {LAUNCHES} launches, {mb:.0} MB of JSON");
    g.bench_function("aggregated_256_ranks_x_10000_launches", |b| {
        b.iter(|| {
            let doc =
                merge_texts(texts.iter().enumerate().map(|(i, t)| (format!("job.rank{i}.json"), t.as_str().into())));
            assert_eq!(doc.ranks.len(), RANKS as usize);
            doc
        })
    });
    match std::env::var("ROOFLINE_RANKS_DIR") {
        Ok(dir) => {
            let mut files: Vec<_> = std::fs::read_dir(&dir)
                .expect("ROOFLINE_RANKS_DIR")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect();
            files.sort();
            eprintln!("per_launch: {} files from {dir}", files.len());
            g.bench_function("per_launch_files", |b| {
                b.iter(|| {
                    merge_texts(
                        files
                            .iter()
                            .map(|f| (f.display().to_string(), std::fs::read_to_string(f).expect("read").into())),
                    )
                })
            });
        }
        Err(_) => eprintln!(
            "SKIPPED: per_launch_files: set ROOFLINE_RANKS_DIR to a folder of rank files (examples/ranks.rs write)"
        ),
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
