//! `roofline check`: thresholds on an analysis, as an exit code for CI.
//! 0 when every rule holds, 1 when any fails (each failure listed with its
//! numbers), 2 on bad input (unreadable analysis, unknown config keys).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use roofline_core::check::{check, Rules};
use roofline_report::CheckDocument;

use crate::analysis_file::read_analysis_file;
use crate::error::bad_input;
use crate::output::Output;

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  roofline check analysis.json --min-pct-of-roof 60 --min-time-share 5
  roofline check analysis.json --kernel fused=80 --baseline main.json --max-regression 10
  roofline check analysis.json --config roofline-check.toml

A config file (flags given too override it):
  min_time_share_pct = 5      # kernels below 5% of GPU time are not held to...
  min_pct_of_roof = 60        # ...at least 60% of the roof that applies
  baseline = \"main.json\"      # relative to the config file
  max_regression_pct = 10     # time up or % of roof down by more than 10%
  [[kernel]]
  name = \"fused\"
  min_pct_of_roof = 80
  max_time = \"1.2 ms\"

Exit codes: 0 all rules hold, 1 a rule failed, 2 bad input.")]
pub struct Args {
    /// The analysis to check (roofline.analysis/v2 JSON).
    #[arg(value_name = "ANALYSIS")]
    pub analysis: PathBuf,

    /// Rules from a TOML file.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Every kernel held to a share of GPU time must reach this % of its roof.
    #[arg(long, value_name = "PCT")]
    pub min_pct_of_roof: Option<f64>,

    /// Only kernels with at least this % of GPU time are held to --min-pct-of-roof.
    #[arg(long, value_name = "PCT")]
    pub min_time_share: Option<f64>,

    /// A named kernel's own minimum % of roof: NAME=PCT (repeatable).
    #[arg(long = "kernel", value_name = "NAME=PCT")]
    pub kernels: Vec<String>,

    /// An earlier analysis no kernel may regress from.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// How far (percent) a kernel's time may grow, or its % of roof shrink,
    /// against the baseline.
    #[arg(long, value_name = "PCT")]
    pub max_regression: Option<f64>,
}

fn rules(args: &Args) -> anyhow::Result<(Rules, Option<PathBuf>)> {
    let (mut rules, base_dir) = match &args.config {
        Some(path) => {
            let input = path.display().to_string();
            let text = std::fs::read_to_string(path).map_err(|e| {
                bad_input(format!("{input}: cannot read it ({e}); expected a TOML file of check rules (see --help)"))
            })?;
            (Rules::from_toml(&text, &input).map_err(bad_input)?, path.parent().map(Path::to_path_buf))
        }
        None => (Rules::default(), None),
    };
    // Flags go through the same validation as the file.
    let mut flags = String::new();
    if let Some(v) = args.min_pct_of_roof {
        flags.push_str(&format!("min_pct_of_roof = {v:?}\n"));
    }
    if let Some(v) = args.min_time_share {
        flags.push_str(&format!("min_time_share_pct = {v:?}\n"));
    }
    if let Some(v) = args.max_regression {
        flags.push_str(&format!("max_regression_pct = {v:?}\n"));
    }
    let from_flags = Rules::from_toml(&flags, "command line").map_err(bad_input)?;
    if args.min_pct_of_roof.is_some() {
        rules.min_pct_of_roof = from_flags.min_pct_of_roof;
    }
    if args.min_time_share.is_some() {
        rules.min_time_share_pct = from_flags.min_time_share_pct;
    }
    if args.max_regression.is_some() {
        rules.max_regression_pct = from_flags.max_regression_pct;
    }
    for k in &args.kernels {
        let limit = Rules::parse_kernel_flag(k).map_err(bad_input)?;
        rules.kernels.retain(|l| l.name != limit.name);
        rules.kernels.push(limit);
    }
    let baseline = match (&args.baseline, &rules.baseline) {
        (Some(p), _) => Some(p.clone()),
        (None, Some(p)) => {
            Some(base_dir.filter(|d| !d.as_os_str().is_empty()).map(|d| d.join(p)).unwrap_or_else(|| PathBuf::from(p)))
        }
        (None, None) => None,
    };
    rules.baseline = baseline.as_ref().map(|p| p.display().to_string());
    let input = args.config.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "command line".into());
    if rules.min_time_share_pct > 0.0 && rules.min_pct_of_roof.is_none() {
        return Err(bad_input(format!(
            "{input}: --min-time-share (min_time_share_pct) only chooses the kernels --min-pct-of-roof holds; give --min-pct-of-roof (min_pct_of_roof) too"
        )));
    }
    rules.validate(&input).map_err(bad_input)?;
    Ok((rules, baseline))
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    let (rules, baseline_path) = rules(args)?;
    let doc = read_analysis_file(&args.analysis)?;
    let baseline = baseline_path.as_deref().map(read_analysis_file).transpose()?;
    let report = check(&doc, &rules, baseline.as_ref());
    out.document(&CheckDocument::new(&report))?;
    let failed = report.failures().count();
    if report.outcomes.is_empty() {
        out.warn("no rule applied to any kernel (see the notes): this check judged nothing");
    }
    if failed == 0 {
        out.info(&format!("check passed: {} rule(s) held", report.outcomes.len()));
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("check failed: {failed} of {} rule(s) did not hold", report.outcomes.len());
        Ok(ExitCode::from(1))
    }
}
