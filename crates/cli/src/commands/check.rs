//! `roofline check`: thresholds on an analysis, as an exit code for CI.
//! 0 when every rule holds; 1 when any fails (each failure listed with its
//! numbers) or when the report could not be written to `-o` (the message
//! says which, and whether the rules held); 2 on bad input (unreadable
//! analysis, unknown config keys, an analysis with nothing to judge).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use roofline_documents::{check, nothing_to_judge, pct, Rules};
use roofline_report::CheckDocument;

use crate::analysis_file::read_placements_file;
use crate::error::bad_input;
use crate::input_file::read_text;
use crate::output::Output;

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  roofline check analysis.json --min-pct-of-roof 60 --min-time-share 5
  roofline check analysis.json --kernel fused=80 --baseline main.json --max-regression 10
  roofline check analysis.json --config roofline-check.toml
  roofline check analysis.json --group-by library --kernel cuBLAS=70 -k 'gemm|nvjet'

A config file (flags given too override it):
  min_time_share_pct = 5      # kernels below 5% of GPU time are not held to...
  min_pct_of_roof = 60        # ...at least 60% of the roof that applies
  baseline = \"main.json\"      # relative to the config file
  max_regression_pct = 10     # time up or % of roof down by more than 10%
  [[kernel]]
  name = \"fused\"
  min_pct_of_roof = 80
  max_time = \"1.2 ms\"

Exit codes:
  0  every rule held
  1  a rule failed (\"check failed\" on stderr); no rule applied to any
     kernel (a baseline that shares no kernel with the analysis, a share no
     kernel reaches), unless --allow-empty; or the -o file could not be
     written (\"error: -o FILE\" on stderr, which also says whether the rules
     held; the results are still printed on stdout)
  2  bad input: unreadable analysis or config, unknown keys, bad flag values,
     or an analysis or baseline with nothing to judge (no kernel has a
     duration)")]
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

    /// Also hold every timed kernel to its speed of light: its FLOPs and
    /// DRAM bytes at the analysis's roofs take at least this long, so a
    /// shorter time is impossible (a broken benchmark or a wrong shape).
    #[arg(long)]
    pub sol: bool,

    /// Pass a check whose rules applied to no kernel at all (by default that
    /// fails: a gate that compared nothing, against a stale baseline or with
    /// renamed kernels, must not pass unseen).
    #[arg(long)]
    pub allow_empty: bool,

    #[command(flatten)]
    pub filter: crate::kernel_filter::KernelFilterArgs,

    /// Judge groups instead of kernels: each group's FLOPs, bytes and time
    /// summed and placed again (by library: --kernel cuBLAS=70; your own kernels are "user code"), and so
    /// against the baseline's groups. After -k, which picks the kernels.
    #[arg(long, value_enum, value_name = "BY")]
    pub group_by: Option<crate::kernel_filter::GroupByArg>,
}

/// The width of the check's table into a pipe: wide enough for any outcome.
const CI_LOG_WIDTH: u16 = 2000;

fn rules(args: &Args) -> anyhow::Result<(Rules, Option<PathBuf>)> {
    let (mut rules, base_dir) = match &args.config {
        Some(path) => {
            let input = path.display().to_string();
            let text = read_text(path, "a TOML file of check rules (see --help)")?;
            (Rules::from_toml(&text, &input).map_err(bad_input)?, path.parent().map(Path::to_path_buf))
        }
        None => (Rules::default(), None),
    };
    // Flags go through the same validation as the file.
    if let Some(v) = args.min_pct_of_roof {
        rules.min_pct_of_roof = Some(pct("command line", "--min-pct-of-roof", v, 100.0).map_err(bad_input)?);
    }
    if let Some(v) = args.min_time_share {
        rules.min_time_share_pct = pct("command line", "--min-time-share", v, 100.0).map_err(bad_input)?;
    }
    if let Some(v) = args.max_regression {
        rules.max_regression_pct = Some(pct("command line", "--max-regression", v, 1e6).map_err(bad_input)?);
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
    match rules.validate(&input) {
        // --sol alone is a rule.
        Err(roofline_documents::CheckConfigError::Nothing { .. }) if args.sol => {}
        r => r.map_err(bad_input)?,
    }
    Ok((rules, baseline))
}

/// `--sol`: each timed kernel against the least time its FLOPs and DRAM
/// bytes take at the analysis's roofs (roofline_shapes::sol::bound).
fn sol_outcomes(doc: &roofline_documents::AnalysisDocument, report: &mut roofline_documents::CheckReport) {
    use roofline_model::{format_seconds, MemLevel};
    for a in &doc.kernels {
        let k = &a.kernel;
        let Some(t) = k.duration_s.filter(|t| *t > 0.0) else { continue };
        let dram = k.bytes.get(&MemLevel::Dram).copied().unwrap_or(0.0);
        match roofline_shapes::sol::bound(&k.flops, dram, &doc.machine) {
            Ok(b) => report.outcomes.push(roofline_documents::Outcome {
                kernel: k.display_name.clone(),
                rule: "sol".into(),
                passed: t >= b.time_s,
                detail: format!(
                    "{} {} the speed of light {} ({} roof, {}; {} FLOPs and DRAM bytes){}",
                    format_seconds(t),
                    if t >= b.time_s { ">=" } else { "<" },
                    format_seconds(b.time_s),
                    b.roof,
                    b.provenance.origin.label(),
                    k.origin.label(),
                    if t >= b.time_s {
                        String::new()
                    } else {
                        format!(
                            ": impossible, {:.2}x faster than physics allows (a broken benchmark or a wrong shape){}",
                            b.time_s / t,
                            if k.origin == roofline_model::Origin::Estimated {
                                "; with bytes estimated from shapes, inputs that are one tensor (x * x) count twice"
                            } else {
                                ""
                            }
                        )
                    }
                ),
                kernel_id: k.id.clone(),
                value: Some(t),
                limit: Some(b.time_s),
                unit: "s".into(),
            }),
            Err(why) => report.notes.push(format!("{}: no speed of light: {why}", k.display_name)),
        }
    }
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    // A CI log is not 100 columns wide: into a pipe or a file (and no
    // COLUMNS), each outcome is one whole line, never cut.
    let mut out = out.clone();
    if !std::io::stdout().is_terminal() && std::env::var_os("COLUMNS").is_none() {
        out.render.terminal.width = CI_LOG_WIDTH;
    }
    let out = &out;
    let (rules, baseline_path) = rules(args)?;
    let mut inputs = vec![("ANALYSIS", args.analysis.as_path())];
    inputs.extend(args.config.iter().map(|c| ("--config", c.as_path())));
    inputs.extend(baseline_path.iter().map(|b| ("the baseline", b.as_path())));
    out.protect_inputs(&[], &inputs)?;
    let filter = args.filter.filter()?;
    let mut doc = read_placements_file(&args.analysis)?;
    if let Some(f) = &filter {
        f.document(&mut doc, &args.analysis.display().to_string())?;
    }
    let group_by = crate::kernel_filter::GroupByArgs { group_by: args.group_by }.by();
    if let Some(by) = group_by {
        doc = roofline_documents::grouped(&doc, by);
    }
    if let Some(why) = nothing_to_judge(&doc) {
        return Err(bad_input(format!("{}: {why}", args.analysis.display())));
    }
    let mut baseline = baseline_path.as_deref().map(read_placements_file).transpose()?;
    if let (Some(f), Some(b), Some(path)) = (&filter, baseline.as_mut(), &baseline_path) {
        f.document(b, &format!("the baseline {}", path.display()))?;
    }
    if let (Some(by), Some(b)) = (group_by, baseline.as_mut()) {
        *b = roofline_documents::grouped(b, by);
    }
    // A baseline without durations has nothing to compare against: passing
    // with "0 rule(s) held" would let any regression through the gate.
    if let (Some(b), Some(path)) = (&baseline, &baseline_path) {
        if let Some(why) = nothing_to_judge(b) {
            return Err(bad_input(format!("the baseline {}: {why}", path.display())));
        }
    }
    let mut report = check(&doc, &rules, baseline.as_ref());
    if args.sol {
        sol_outcomes(&doc, &mut report);
    }
    if let (Some(why), false) = (&report.baseline_replaced, out.table_on_stdout()) {
        out.warn(why);
    }
    // A gate that compared nothing fails (unless allowed), in the document too.
    let judged_nothing = report.outcomes.is_empty() && !args.allow_empty;
    let mut document = CheckDocument::new(&report);
    document.passed &= !judged_nothing;
    let written = out.document(&document);
    let failed = report.failures().count();
    let verdict = if failed == 0 {
        format!("check passed: {} rule(s) held", report.outcomes.len())
    } else {
        format!("check failed: {failed} of {} rule(s) did not hold", report.outcomes.len())
    };
    if let Err(e) = written {
        if e.downcast_ref::<crate::streams::StdoutClosed>().is_some() {
            return Err(e);
        }
        // Exit 1 either way; the message says the rules' verdict apart
        // from the file that could not be written.
        return Err(e.context(format!("{verdict}, but the report file could not be written")));
    }
    if report.outcomes.is_empty() {
        if judged_nothing {
            crate::streams::message(
                "check failed: no rule applied to any kernel (see the notes), so nothing was judged: check that the baseline and the kernel names match the analysis, or give --allow-empty to pass such a check",
            );
            return Ok(ExitCode::from(1));
        }
        out.warn("no rule applied to any kernel (see the notes): this check judged nothing (--allow-empty)");
    }
    if failed == 0 {
        out.info(&verdict);
        Ok(ExitCode::SUCCESS)
    } else {
        crate::streams::message(&verdict);
        Ok(ExitCode::from(1))
    }
}
