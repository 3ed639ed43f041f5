//! How long one csv_reader fuzz execution takes without libFuzzer, to size
//! campaigns: `cargo run --release --example exec_cost -- FILE [N]`.
use roofline_ncu::{analyse, read_capture, ByteConvention, Options};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let data = std::fs::read(&args[1]).unwrap();
    let n: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let start = std::time::Instant::now();
    let mut read = std::time::Duration::ZERO;
    for _ in 0..n {
        let t = std::time::Instant::now();
        let cap = read_capture(&data[..], "x").unwrap();
        read += t.elapsed();
        let (per_launch, convention) = (data.len() % 2 == 1, ByteConvention::Ncu);
        let a = analyse(&cap, &Options { convention, per_launch, machine: None });
        roofline_fuzz::written_reads_back(&roofline_fuzz::document("ncu", a.machine, a.kernels));
    }
    let per = start.elapsed() / n;
    println!("{per:?} per execution ({:?} reading)", read / n);
}
