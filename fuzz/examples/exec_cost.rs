//! How long one csv_reader fuzz execution takes without libFuzzer, by part,
//! to size campaigns: `cargo run --release --example exec_cost -- FILE [N]`.
use std::time::{Duration, Instant};

use roofline_ncu::{analyse, read_capture, ByteConvention, Options};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let data = std::fs::read(&args[1]).unwrap();
    let n: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let (mut read, mut analysis, mut round_trip) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for _ in 0..n {
        let t = Instant::now();
        let cap = read_capture(&data[..], "x").unwrap();
        read += t.elapsed();
        let t = Instant::now();
        let a =
            analyse(&cap, &Options { convention: ByteConvention::Ncu, per_launch: data.len() % 2 == 1, machine: None });
        analysis += t.elapsed();
        let t = Instant::now();
        roofline_fuzz::written_reads_back(&roofline_fuzz::document("ncu", a.machine, a.kernels));
        round_trip += t.elapsed();
    }
    println!(
        "per execution: read {:?}, analyse {:?}, write and read back {:?}",
        read / n,
        analysis / n,
        round_trip / n
    );
}
