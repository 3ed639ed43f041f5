//! Synthetic rank files, and the merge of many of them with its time and
//! peak memory (issue 12's scale target: 256 ranks of 10,000 launches in
//! under 10 s and 2 GB on the CI machine, 2 cores).
//!
//!   cargo run --release -p roofline-core --example ranks -- write DIR RANKS LAUNCHES KINDS [per-launch]
//!   cargo run --release -p roofline-core --example ranks -- merge [--out FILE] [--threads N] DIR|FILE...
//!   cargo run --release -p roofline-core --example ranks -- stream RANKS LAUNCHES KINDS [per-launch]
//!
//! `stream` needs no disk: it writes each rank's JSON in memory, one rank at
//! a time, and times only the merge's part (parsing the text and folding
//! it in, then finishing the job), in CPU and wall seconds.
//!
//! `merge` runs in its own process so that its peak resident memory
//! (VmHWM) is the merge's alone: it reads the files named (a folder: its
//! `*.json`) on `--threads` threads (default: the cores, at most 8) as
//! `roofline merge` does, folds them in, and prints the wall and CPU time, the peak
//! memory and the merged document's size; `--out FILE` writes the merged
//! JSON too (to compare two builds' output byte for byte). It also prints
//! each thread's CPU seconds (the calling thread's fold, finish and
//! serialisation; each parsing thread's reading and parsing): on a machine
//! whose cores are shared with other work the wall time says little, and
//! the busiest thread's CPU time is what the wall time would be on free
//! cores, give or take the fold that runs beside it. (With `--threads 1`
//! the calling thread parses too, and its parsing figure holds the fold.)

use std::time::Instant;

use roofline_documents::Producer;
use roofline_documents::{parse_in_order, parse_threads, read_rank, skim_rank_bytes, Merger};

fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()
}

/// CPU seconds (user + system) of this process, from /proc/self/stat
/// (clock ticks of 1/100 s, the Linux default).
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = s.rsplit_once(')')?.1;
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// CPU seconds (user + system) of the calling thread, from
/// /proc/thread-self/schedstat (nanoseconds on the CPU).
fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(s.split_whitespace().next()?.parse::<f64>().ok()? / 1e9)
}

/// The rank files named: a folder stands for its `*.json` files (sorted).
fn rank_files(paths: &[String]) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for p in paths.iter().map(std::path::PathBuf::from) {
        if p.is_dir() {
            let mut inside: Vec<_> = std::fs::read_dir(&p)
                .expect("read DIR")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect();
            inside.sort();
            files.extend(inside);
        } else {
            files.push(p);
        }
    }
    files
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: ranks write DIR RANKS LAUNCHES KINDS [per-launch] | ranks merge [--out FILE] [--threads N] DIR|FILE... | ranks stream RANKS LAUNCHES KINDS [per-launch]";
    match args.first().map(String::as_str) {
        Some("write") if args.len() >= 5 => {
            let dir = std::path::Path::new(&args[1]);
            let n: u32 = args[2].parse().expect(usage);
            let launches: u64 = args[3].parse().expect(usage);
            let kinds: usize = args[4].parse().expect(usage);
            let per_launch = args.get(5).is_some_and(|a| a == "per-launch");
            std::fs::create_dir_all(dir).expect("create DIR");
            for r in 0..n {
                let doc = roofline_documents::synthetic::rank(r, n, launches, kinds, per_launch);
                let text = serde_json::to_string_pretty(&doc).expect("serialise");
                std::fs::write(dir.join(format!("job.rank{r}.json")), text).expect("write");
            }
            eprintln!("wrote {n} rank files to {}", dir.display());
        }
        Some("merge") if args.len() >= 2 => {
            let mut rest = &args[1..];
            let (mut out_path, mut threads) = (None, parse_threads());
            loop {
                match rest {
                    [flag, value, tail @ ..] if flag == "--out" => (out_path, rest) = (Some(value.clone()), tail),
                    [flag, value, tail @ ..] if flag == "--threads" => {
                        (threads, rest) = (value.parse().expect(usage), tail)
                    }
                    _ => break,
                }
            }
            let files = rank_files(rest);
            let t0 = Instant::now();
            let bytes = std::sync::atomic::AtomicU64::new(0);
            let main_cpu0 = thread_cpu_seconds().unwrap_or(f64::NAN);
            // Per parsing thread: its CPU seconds when it started, and after its last file.
            let parse_cpu = std::sync::Mutex::new(Vec::<(std::thread::ThreadId, f64, f64)>::new());
            let mut m = Merger::new(None);
            parse_in_order(
                files.len(),
                threads,
                |i| {
                    let id = std::thread::current().id();
                    let start = thread_cpu_seconds().unwrap_or(f64::NAN);
                    // As `roofline merge`: the bytes skimmed, else read as text.
                    let raw = std::fs::read(&files[i]).expect("read");
                    bytes.fetch_add(raw.len() as u64, std::sync::atomic::Ordering::Relaxed);
                    let parsed = match skim_rank_bytes(&raw) {
                        Some(p) => Ok(p),
                        None => read_rank(&String::from_utf8(raw).expect("UTF-8"), &files[i].display().to_string()),
                    };
                    let end = thread_cpu_seconds().unwrap_or(f64::NAN);
                    let mut cpu = parse_cpu.lock().unwrap();
                    match cpu.iter_mut().find(|t| t.0 == id) {
                        Some(t) => t.2 = end,
                        None => cpu.push((id, start, end)),
                    }
                    parsed
                },
                |i, parsed| {
                    m.add_parsed(parsed, &files[i].display().to_string(), i as u32).expect("merge");
                    Ok(())
                },
            )
            .expect("rank file");
            let bytes = bytes.into_inner();
            let doc = m.finish(Producer::new("ranks example")).expect("finish");
            let out = serde_json::to_string(&doc).expect("serialise");
            let secs = t0.elapsed().as_secs_f64();
            if let Some(p) = out_path {
                std::fs::write(&p, &out).expect("write --out");
            }
            let parse_cpu = parse_cpu.into_inner().unwrap();
            let main_id = std::thread::current().id();
            // With one thread the parsing ran on the calling thread: its
            // share is taken out of the calling thread's own.
            let parsed_here: f64 = parse_cpu.iter().filter(|t| t.0 == main_id).map(|t| t.2 - t.1).sum();
            let main_cpu = thread_cpu_seconds().unwrap_or(f64::NAN) - main_cpu0 - parsed_here;
            let per_thread: Vec<String> = parse_cpu.iter().map(|t| format!("{:.2}", t.2 - t.1)).collect();
            println!(
                "ranks {} kernels {} input_bytes {} output_bytes {} wall_seconds {:.2} cpu_seconds {:.2} threads {} parse_thread_cpu_seconds {} fold_thread_cpu_seconds {:.2} peak_rss_mib {:.0}",
                doc.ranks.len(),
                doc.kernels.len(),
                bytes,
                out.len(),
                secs,
                cpu_seconds().unwrap_or(f64::NAN),
                threads,
                per_thread.join(","),
                main_cpu,
                peak_rss_kib().unwrap_or(0) as f64 / 1024.0
            );
        }
        Some("stream") if args.len() >= 4 => {
            let n: u32 = args[1].parse().expect(usage);
            let launches: u64 = args[2].parse().expect(usage);
            let kinds: usize = args[3].parse().expect(usage);
            let per_launch = args.get(4).is_some_and(|a| a == "per-launch");
            let (mut wall, mut cpu, mut bytes) = (0.0f64, 0.0f64, 0u64);
            let mut m = Merger::new(None);
            for r in 0..n {
                let text = serde_json::to_string_pretty(&roofline_documents::synthetic::rank(
                    r, n, launches, kinds, per_launch,
                ))
                .expect("serialise");
                bytes += text.len() as u64;
                let (c0, t0) = (cpu_seconds().unwrap_or(0.0), Instant::now());
                let input = format!("job.rank{r}.json");
                let doc = read_rank(&text, &input).expect("rank");
                m.add_parsed(doc, &input, r).expect("merge");
                wall += t0.elapsed().as_secs_f64();
                cpu += cpu_seconds().unwrap_or(0.0) - c0;
            }
            let (c0, t0) = (cpu_seconds().unwrap_or(0.0), Instant::now());
            let doc = m.finish(Producer::new("ranks example")).expect("finish");
            let out = serde_json::to_string(&doc).expect("serialise");
            wall += t0.elapsed().as_secs_f64();
            cpu += cpu_seconds().unwrap_or(0.0) - c0;
            println!(
                "ranks {} kernels {} input_bytes {} output_bytes {} merge_wall_seconds {:.2} merge_cpu_seconds {:.2} peak_rss_mib {:.0}",
                doc.ranks.len(),
                doc.kernels.len(),
                bytes,
                out.len(),
                wall,
                cpu,
                peak_rss_kib().unwrap_or(0) as f64 / 1024.0
            );
        }
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
}
