//! `roofline bench`: measures the roofs of the local GPU(s) and writes a
//! machine document (`roofline.machine/v2`) whose measured ceilings every
//! other command takes with `--machine FILE`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use roofline_core::schema::{MachineDocument, Producer};
use roofline_core::units::{format_si, Unit};
use roofline_gpu::bench::{self, Event, Measurements, Options};
use roofline_gpu::GpuError;
use roofline_report::Format;

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
    /// lsu, or a full id such as tensor.bf16 or sfu.ex2.
    #[arg(long, value_name = "IDS", value_delimiter = ',')]
    pub only: Vec<String>,
}

/// Exit code 2 for errors the user can fix (a wrong device index, an
/// unknown benchmark), 1 for a missing GPU or a failed run.
pub(crate) fn gpu_error(e: GpuError) -> anyhow::Error {
    if e.is_usage() {
        bad_input(e)
    } else {
        anyhow::Error::new(e)
    }
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    bench::suite::select(bench::suite::suite(), &args.only).map_err(|e| bad_input(format!("--only: {e}")))?;
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
        let o = Output { format: out.format, file, quiet: out.quiet, color: out.color };
        o.machine(&doc)?;
        if matches!(out.format, Format::Table | Format::Markdown) {
            out.stdout(&results_text(&outcome.measurements, out.format == Format::Markdown))?;
        }
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// "h200.json" -> "h200.gpu1.json" when several GPUs are measured.
pub fn per_device(f: &std::path::Path, d: usize) -> PathBuf {
    let stem = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "machine".into());
    let name = match f.extension() {
        Some(e) => format!("{stem}.gpu{d}.{}", e.to_string_lossy()),
        None => format!("{stem}.gpu{d}"),
    };
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

/// One row per benchmark: median, min, max, runs, clock, launch.
pub fn results_text(m: &Measurements, markdown: bool) -> String {
    let header = ["benchmark", "median", "min", "max", "runs (medians)", "SM clock", "launch / method"];
    let mut rows: Vec<Vec<String>> = Vec::new();
    for r in &m.results {
        let unit = r.unit;
        let clock = match &r.clock {
            Some(c) => format!("{:.0} MHz ({:.0}-{:.0})", c.sm_mhz_median, c.sm_mhz_min, c.sm_mhz_max),
            None => "unknown".into(),
        };
        let launch = if r.launch.grid > 0 { r.launch.describe() } else { r.method.clone() };
        rows.push(vec![
            r.id.clone(),
            format_si(r.rate.median, unit),
            format_si(r.rate.min, unit),
            format_si(r.rate.max, unit),
            r.run_medians.iter().map(|v| format_si(*v, unit)).collect::<Vec<_>>().join(", "),
            clock,
            launch,
        ]);
    }
    for f in &m.failures {
        rows.push(vec![
            f.id.clone(),
            "FAILED".into(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            f.error.clone(),
        ]);
    }
    let mut s = String::new();
    if markdown {
        s.push_str(&format!("\n| {} |\n|{}\n", header.join(" | "), "---|".repeat(header.len())));
        for r in &rows {
            s.push_str(&format!("| {} |\n", r.join(" | ")));
        }
    } else {
        let widths: Vec<usize> = (0..header.len())
            .map(|i| rows.iter().map(|r| r[i].len()).chain([header[i].len()]).max().unwrap_or(0))
            .collect();
        let line = |cells: Vec<&str>| {
            cells
                .iter()
                .enumerate()
                .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
                .collect::<Vec<_>>()
                .join("  ")
                .trim_end()
                .to_string()
                + "\n"
        };
        s.push('\n');
        s.push_str(&line(header.to_vec()));
        for r in &rows {
            s.push_str(&line(r.iter().map(|c| c.as_str()).collect()));
        }
    }
    for r in m.results.iter().filter(|r| r.unit == Unit::InstPerSecond || r.what == bench::suite::What::L2Write) {
        let Some(c) = &r.curve else { continue };
        let points: Vec<String> =
            c.points.iter().map(|p| format!("{}: {}", p.label, format_si(p.rate.median, r.unit))).collect();
        let knee = c.knee.map(|k| format!("; 90% of the best from {k} {}", c.axis)).unwrap_or_default();
        s.push_str(&format!("\n{} over {}{knee}:\n  {}\n", r.id, c.axis, points.join("\n  ")));
    }
    for sw in &m.sweeps {
        s.push_str(&format!("\nintensity sweep {} (FMA per element, FLOP/byte, FLOP/s):\n", sw.kind.label()));
        for p in &sw.points {
            s.push_str(&format!(
                "  {:>5}  {:>8.2} FLOP/B  {}  ({})\n",
                p.iters,
                p.intensity,
                format_si(p.flops_per_s.median, Unit::FlopPerSecond),
                format_si(p.bytes_per_s, Unit::BytePerSecond)
            ));
        }
        if let Some(r) = &sw.ridge {
            s.push_str(&format!("  measured ridge: {:.1} FLOP/B\n", r.intensity));
        }
    }
    s
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
    }

    #[test]
    fn rfc3339_shape() {
        let t = now_rfc3339();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z'));
    }
}
