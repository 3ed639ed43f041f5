//! How fast `import` reads and analyses a large raw capture, on one core.
//!
//! Builds a CSV of `ROOFLINE_BENCH_MB` megabytes (default 1000) from the
//! rows of a real `--set full` capture of the H200 (2,238 columns per row),
//! then times `read_capture` + `capture` + `analyze_capture` over it three times and prints the
//! throughput in MB/s. The target is 100 MB/s or more.
//!
//!     cargo bench -p roofline-ncu --bench import_speed

use std::io::Write;
use std::time::Instant;

use roofline_analysis::analyze_capture;
use roofline_ncu::{capture, read_capture, Options};

fn main() {
    let mb: u64 = std::env::var("ROOFLINE_BENCH_MB").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/ncu/h200_seed000_full.csv");
    let text = std::fs::read_to_string(&src).expect("fixture");
    let start = text.find("\"ID\"").expect("header");
    let mut lines = text[start..].lines();
    let header = lines.next().unwrap();
    let units = lines.next().unwrap();
    let rows: Vec<&str> = lines.filter(|l| l.starts_with('"')).collect();

    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("big.csv");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(f, "{}", &text[..start].trim_end()).unwrap();
    writeln!(f, "{header}\n{units}").unwrap();
    let target = mb * 1_000_000;
    let mut written = 0u64;
    let mut n = 0u64;
    while written < target {
        for r in &rows {
            writeln!(f, "{r}").unwrap();
            written += r.len() as u64 + 1;
            n += 1;
        }
    }
    f.flush().unwrap();
    drop(f);
    let size = std::fs::metadata(&path).unwrap().len();
    println!("capture: {:.0} MB, {n} launch rows of {} columns", size as f64 / 1e6, header.split("\",\"").count());
    let mut best = f64::INFINITY;
    for run in 0..3 {
        let t = Instant::now();
        let cap = read_capture(std::fs::File::open(&path).unwrap(), "big.csv").unwrap();
        let a = analyze_capture(&capture(&cap, &Options::default()), None);
        let s = t.elapsed().as_secs_f64();
        best = best.min(s);
        println!(
            "run {run}: {:.2} s, {:.0} MB/s ({} launches, {} kernels)",
            s,
            size as f64 / 1e6 / s,
            cap.launches.len(),
            a.kernels.len()
        );
    }
    println!("best: {:.0} MB/s (target >= 100 MB/s, one core)", size as f64 / 1e6 / best);
}
