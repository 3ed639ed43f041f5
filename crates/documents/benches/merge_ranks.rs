//! `roofline merge` at scale (issue 12: 256 ranks of 10,000 launches each
//! in under 10 s and 2 GB of memory on the CI machine, 2 cores): read,
//! parse and fold every rank, then build the merged job (its analysis
//! included), as `roofline merge` does (`parse_in_order`: files parsed on
//! N threads, folded in order on the calling one).
//!
//! - `aggregated/1_thread`, `aggregated/2_threads`: 256 synthetic ranks
//!   of 10,000 launches over 200 kernel slots, one entry per kernel with
//!   its launches summed (what `roofline profile` writes by default), as
//!   pretty JSON in memory.
//! - `per_launch/2_threads`: 256 rank files of one entry per launch
//!   (`profile --per-launch`; 17 MB each, 4.6 GB in all), read from disk
//!   on 2 threads. They are written into a temporary folder (`TMPDIR`; it
//!   needs 4.6 GB free) before the measurement and removed after it, or
//!   read from `$ROOFLINE_RANKS_DIR` when that is set (written by
//!   `cargo run --release -p roofline-core --example ranks -- write DIR 256 10000 200 per-launch`).
//!   The written files come from 9 generated ranks (0 to 7, and the last
//!   one, which is the straggler): rank `r` is a copy of rank `r % 8`'s
//!   launches with its own rank number, so each file has the size and
//!   shape of a real per-launch rank and the merge sees 256 ranks.
//!
//! Peak memory and CPU seconds are measured by `examples/ranks.rs merge
//! DIR` in a process of its own (criterion's own buffers would count here,
//! and it times wall seconds only); see scripts/bench-merge-ranks.sh and
//! results/bench-merge-ranks-2026-11-30.md.
//!
//!   cargo bench -p roofline-core --bench merge_ranks

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use roofline_documents::Producer;
use roofline_documents::{parse_in_order, read_rank, MergedDocument, Merger};

const RANKS: u32 = 256;
const LAUNCHES: u64 = 10_000;
const KINDS: usize = 200;

/// Merges `count` rank files, `text(i)` giving file `i`'s text.
fn merge<'t>(count: usize, threads: usize, text: impl Fn(usize) -> Cow<'t, str> + Sync) -> MergedDocument {
    let mut m = Merger::new(None);
    parse_in_order(
        count,
        threads,
        |i| read_rank(&text(i), &format!("job.rank{i}.json")),
        |i, parsed| {
            m.add_parsed(parsed, &format!("job.rank{i}.json"), i as u32).expect("merge");
            Ok(())
        },
    )
    .expect("a rank file");
    m.finish(Producer::new("bench")).expect("finish")
}

/// Writes the per-launch rank files into `dir` (see the module's notes).
fn write_per_launch_ranks(dir: &Path) -> Vec<PathBuf> {
    // A rank number no rank has, to cut each template at.
    const MARK: u32 = u32::MAX;
    let template = |r: u32| {
        let mut doc = roofline_documents::synthetic::rank(r, RANKS, LAUNCHES, KINDS, true);
        doc.rank.as_mut().expect("a synthetic rank has its rank").rank = MARK;
        let text = serde_json::to_string_pretty(&doc).expect("serialise");
        let (head, tail) = text.split_once(&format!("\"rank\": {MARK}")).expect("the rank in the text");
        (head.to_string(), tail.to_string())
    };
    let templates: Vec<_> = (0..8).map(template).collect();
    let last = template(RANKS - 1);
    (0..RANKS)
        .map(|r| {
            let (head, tail) = if r == RANKS - 1 { &last } else { &templates[(r % 8) as usize] };
            let path = dir.join(format!("job.rank{r}.json"));
            std::fs::write(&path, format!("{head}\"rank\": {r}{tail}")).expect("write a rank file");
            path
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("merge_256_ranks_x_10000_launches");
    g.sample_size(10).measurement_time(Duration::from_secs(20)).warm_up_time(Duration::from_secs(1));
    let texts: Vec<String> = (0..RANKS)
        .map(|r| {
            serde_json::to_string_pretty(&roofline_documents::synthetic::rank(r, RANKS, LAUNCHES, KINDS, false))
                .unwrap()
        })
        .collect();
    let mb = texts.iter().map(|t| t.len()).sum::<usize>() as f64 / 1e6;
    eprintln!("aggregated: {RANKS} ranks x {LAUNCHES} launches, {mb:.0} MB of JSON in memory");
    for threads in [1, 2] {
        let label = if threads == 1 { "1_thread".to_string() } else { format!("{threads}_threads") };
        g.bench_function(format!("aggregated/{label}"), |b| {
            b.iter(|| {
                let doc = merge(texts.len(), threads, |i| Cow::Borrowed(texts[i].as_str()));
                assert_eq!(doc.ranks.len(), RANKS as usize);
                doc
            })
        });
    }

    // Several seconds an iteration: ten of them, one after the other.
    g.sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(1));
    let written;
    let files: Vec<PathBuf> = match std::env::var_os("ROOFLINE_RANKS_DIR") {
        Some(dir) => {
            let mut files: Vec<_> = std::fs::read_dir(&dir)
                .expect("ROOFLINE_RANKS_DIR")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect();
            files.sort();
            files
        }
        None => {
            written = tempfile::tempdir().expect("a temporary folder");
            write_per_launch_ranks(written.path())
        }
    };
    let gb = files.iter().map(|f| std::fs::metadata(f).map_or(0, |m| m.len())).sum::<u64>() as f64 / 1e9;
    eprintln!("per_launch: {} rank files, {gb:.1} GB", files.len());
    g.bench_function("per_launch/2_threads", |b| {
        b.iter(|| {
            let doc = merge(files.len(), 2, |i| Cow::Owned(std::fs::read_to_string(&files[i]).expect("read")));
            assert_eq!(doc.ranks.len(), files.len());
            doc
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
