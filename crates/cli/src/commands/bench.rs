//! `roofline bench`: measures the roofs of the local GPU(s) and writes a
//! machine document (`roofline.machine/v2`) whose measured ceilings every
//! other command takes with `--machine FILE`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use roofline_documents::{MachineDocument, Producer};
use roofline_gpu::bench::{self, Event, Options};
use roofline_gpu::GpuError;
use roofline_report::{BenchDocument, BenchResults};

use crate::error::bad_input;
use crate::output::Output;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The GPU to measure (CUDA device index).
    #[arg(long, value_name = "N", default_value_t = 0, conflicts_with = "all_devices")]
    pub device: usize,

    /// Measure every GPU of this machine, one after the other.
    #[arg(long)]
    pub all_devices: bool,

    /// A shorter run (under 10 s on an H200): fewer repetitions and sweep points.
    #[arg(long)]
    pub quick: bool,

    /// Only the benchmarks whose id starts with one of these (comma-separated):
    /// dram, l2, l1, fp64, fp32, fp16, tensor, sweep, int, sfu, shared, atomic,
    /// lsu, link (or interconnect: host, peer and NCCL bandwidth; link.h2d,
    /// link.p2p, link.nccl), or a full id such as tensor.bf16 or sfu.ex2.
    #[arg(long, value_name = "IDS", value_delimiter = ',')]
    pub only: Vec<String>,
}

/// Exit code 2 for errors the user can fix (a wrong device index, an
/// unknown benchmark), 1 for a missing GPU or a failed run.
pub(crate) fn gpu_error(e: GpuError) -> anyhow::Error {
    match e {
        e if e.is_usage() => bad_input(e),
        GpuError::NoDriver | GpuError::NoDevice(_) => anyhow::anyhow!(
            "{e}; `roofline bench` measures a local GPU. Without one: `roofline peaks --gpu NAME` gives the theoretical roofs of a GPU from the built-in table, and `roofline tour` shows measured H200 data"
        ),
        other => anyhow::Error::new(other),
    }
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    // Every id a machine of two GPUs has: the link ids depend on the machine.
    bench::suite::select(bench::suite::suite_for(0, 2), &args.only).map_err(|e| bad_input(format!("--only: {e}")))?;
    let devices: Vec<usize> = if args.all_devices {
        (0..roofline_gpu::device::device_count().map_err(gpu_error)?).collect()
    } else {
        roofline_gpu::device::check_index(args.device).map_err(gpu_error)?;
        vec![args.device]
    };
    let opts = Options { quick: args.quick, only: args.only.clone() };
    let mut failed = false;
    for &d in &devices {
        let outcome = run_device(d, &opts, out).map_err(gpu_error)?;
        failed |= !outcome.measurements.failures.is_empty();
        let mut command = format!("roofline bench --device {d}");
        if args.quick {
            command.push_str(" --quick");
        }
        let mut producer = Producer::new(&command);
        producer.created = Some(now_rfc3339());
        let mut doc = MachineDocument::new(outcome.machine, producer);
        doc.measurements = Some(serde_json::to_value(&outcome.measurements)?);
        let file = out.file.as_ref().map(|f| if devices.len() > 1 { per_device(f, d) } else { f.clone() });
        out.check_machine(&doc)?;
        let results = BenchResults::of(&doc);
        out.with_file(file).document(&BenchDocument { machine: &doc, results: &results })?;
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// "h200.json" -> "h200.gpu1.json" when several GPUs are measured; the
/// stem and extension are kept byte for byte (a name that is not UTF-8
/// stays the user's name, not one with U+FFFD in it).
pub fn per_device(f: &std::path::Path, d: usize) -> PathBuf {
    let mut name = f.file_stem().unwrap_or(std::ffi::OsStr::new("machine")).to_os_string();
    name.push(format!(".gpu{d}"));
    if let Some(e) = f.extension() {
        name.push(".");
        name.push(e);
    }
    f.with_file_name(name)
}

pub(crate) fn run_device(d: usize, opts: &Options, out: &Output) -> Result<bench::Outcome, GpuError> {
    let tty = std::io::stderr().is_terminal() && !out.quiet;
    let pb = ProgressBar::with_draw_target(
        Some(0),
        if tty { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() },
    );
    pb.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let say = |pb: &ProgressBar, msg: String| {
        if tty {
            pb.println(msg);
        } else {
            out.info(&msg);
        }
    };
    let mut on = |e: Event| match e {
        Event::Start { device, name, total } => {
            pb.set_length(total as u64);
            say(&pb, format!("benchmarking device {device}: {name} ({total} benchmarks)"));
        }
        Event::Begin { label, .. } => pb.set_message(label),
        Event::Done { summary, .. } => {
            pb.inc(1);
            say(&pb, format!("  {summary}"));
        }
        Event::Failed { id, error } => {
            pb.inc(1);
            pb.suspend(|| out.warn(&format!("{id} failed: {error}")));
        }
        Event::Warning(w) => pb.suspend(|| out.warn(&w)),
    };
    let r = bench::run(d, opts, &mut on);
    pb.finish_and_clear();
    if let Ok(o) = &r {
        out.info(&format!("device {d}: suite took {:.1} s", o.measurements.seconds));
    }
    r
}

/// The current UTC time as RFC 3339, without a date library.
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, (rem % 3600) / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_device_file_names() {
        assert_eq!(per_device(std::path::Path::new("out/h200.json"), 1), PathBuf::from("out/h200.gpu1.json"));
        assert_eq!(per_device(std::path::Path::new("m"), 0), PathBuf::from("m.gpu0"));
        // Left open by the fourth adversarial pass: a name that is not
        // UTF-8 became another file's name, with U+FFFD for its bytes.
        use std::os::unix::ffi::OsStrExt;
        let odd = std::path::Path::new(std::ffi::OsStr::from_bytes(b"out/m\xff.j\xfe"));
        assert_eq!(per_device(odd, 2).as_os_str().as_bytes(), b"out/m\xff.gpu2.j\xfe");
    }

    /// The results behind the bundled H200 machine, as `roofline bench`
    /// shows them, in every format.
    #[test]
    fn snapshot_bench_results_of_the_bundled_h200() {
        use roofline_model::Unit;
        use roofline_report::{csv_tables, render, Format, Quantity, RenderOptions};
        let doc = roofline_documents::read_machine(
            include_str!("../../../../data/h200/tour/machine.json"),
            "data/h200/tour/machine.json",
        )
        .unwrap();
        let results = BenchResults::of(&doc);
        let raw = doc.measurements.as_ref().unwrap()["results"].as_array().unwrap().len();
        assert!(raw > 10 && results.results.len() == raw, "every benchmark of the bundled run");
        assert_eq!(results.sweeps.len(), 2);
        let tensor_int8 = results.results.iter().find(|r| r.id == "tensor.int8");
        assert!(tensor_int8.is_none_or(|r| r.rate.unit == Quantity::Si(Unit::OpPerSecond)));
        let bench = BenchDocument { machine: &doc, results: &results };
        let opts = RenderOptions::default();
        insta::assert_snapshot!("bench_h200_terminal", render(&bench, Format::Table, &opts).unwrap());
        insta::assert_snapshot!("bench_h200_markdown", render(&bench, Format::Markdown, &opts).unwrap());
        let csv: Vec<String> =
            csv_tables(&bench).unwrap().into_iter().map(|t| format!("## {}\n{}", t.name, t.text)).collect();
        insta::assert_snapshot!("bench_h200_csv", csv.join("\n"));
        let html = render(&bench, Format::Html, &opts).unwrap();
        insta::assert_snapshot!("bench_h200_html", &html[html.find("<main>").unwrap()..html.find("</main>").unwrap()]);
        // JSON is the machine document itself, raw runs included.
        let json: serde_json::Value = serde_json::from_str(&render(&bench, Format::Json, &opts).unwrap()).unwrap();
        assert_eq!(json["schema"], "roofline.machine/v2");
        assert!(json["measurements"]["results"].is_array());
    }

    #[test]
    fn rfc3339_shape() {
        let t = now_rfc3339();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z'));
    }
}
