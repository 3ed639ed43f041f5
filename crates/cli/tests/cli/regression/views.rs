//! Views that agree with themselves (issue 28), on captures nobody here
//! wrote (`tests/fixtures/external/h200-2026-12-01/`), through the binary.
//! Each test's doc comment names the item of the issue it holds.

use crate::support::{repo, roofline, run, run_in};

fn external(name: &str) -> String {
    repo(&format!("tests/fixtures/external/h200-2026-12-01/{name}"))
}

/// stdout of `roofline ARGS` at `columns` columns.
fn at_width(columns: u16, args: &[&str]) -> (i32, String, String) {
    let out = roofline().env("COLUMNS", columns.to_string()).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Item 1: ResNet-50's foreach optimizer kernels showed only hash IDs
/// (`at::<…>::multi_tensor_apply_kernel<unnamed> [ke97d01]`).
#[test]
fn foreach_kernels_show_their_functor_and_operation() {
    let (code, out, err) = run(&["import", &external("resnet50_train.full.csv"), "--format", "csv", "-q"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("multi_tensor_apply_kernel<BinaryOpScalarFunctor, multiplies>"), "{out}");
    assert!(out.contains("multi_tensor_apply_kernel<BinaryOpListAlphaFunctor, plus>"), "{out}");
    assert!(!out.contains("<unnamed>::multi_tensor_apply_kernel<unnamed>"), "{out}");
}

/// Item 1: gpt2's three CUTLASS GEMMs differ only at the end of their
/// names; import, diff and the instruction view all keep that end.
#[test]
fn gemms_that_differ_at_the_end_of_their_names_are_told_apart_in_every_view() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run_in(dir.path(), &["import", &external("gpt2_train.full.csv"), "-q", "-o", "g.json"]);
    assert_eq!(code, 0, "{err}");
    for (args, what) in [
        (vec!["diff", "g.json", "g.json"], "diff"),
        (vec!["report", "g.json", "--format", "table"], "report"),
        (vec!["report", "g.json", "--view", "instructions", "--format", "table"], "instructions"),
    ] {
        let out = roofline().current_dir(dir.path()).env("COLUMNS", "100").args(&args).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
        let gemms: Vec<&str> = text.lines().filter(|l| l.contains("_align1>")).take(3).collect();
        assert_eq!(gemms.len(), 3, "{what}: {text}");
        for tail in ["tn_align1", "nn_align1", "t_align1"] {
            assert!(gemms.iter().any(|l| l.contains(tail)), "{what}: no {tail} in {gemms:#?}");
        }
        // The instruction view once cut every name to 8 characters.
        let name = |l: &str| l.split("  ").find(|c| c.contains("_align1>")).unwrap_or("").chars().count();
        assert!(gemms.iter().all(|l| name(l) > 12), "{what}: {gemms:#?}");
    }
}

/// Item 2: the same capture judged against H100 and H200 roofs failed
/// every memory-bound kernel's regression.pct_of_roof, and said nothing.
#[test]
fn check_against_a_baseline_on_other_roofs_compares_on_the_runs_roofs_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let csv = external("gpt2_train.full.csv");
    assert_eq!(run_in(dir.path(), &["import", &csv, "-q", "-o", "run.json"]).0, 0);
    assert_eq!(run_in(dir.path(), &["import", &csv, "--gpu", "h100", "-q", "-o", "base.json"]).0, 0);
    let args = ["check", "run.json", "--baseline", "base.json", "--max-regression", "10"];
    let (code, out, err) = run_in(dir.path(), &args);
    assert_eq!(code, 0, "{out}{err}");
    // Once in the table, once on stderr (a pipe is not on the screen).
    let said = |t: &str| t.replace("\n    ", " ").matches("were placed again on this analysis's roofs").count();
    assert_eq!((said(&out), said(&err)), (1, 1), "{out}{err}");
    let mut json = args.to_vec();
    json.extend(["--format", "json"]);
    let (_, out, err) = run_in(dir.path(), &json);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["baseline_replaced"].as_str().unwrap().contains("H100"), "{out}");
    assert!(err.contains("placed again"), "stderr says it when the table does not: {err}");
}

/// Item 2: outcomes carried only free text, and a CI log cut the limit off.
#[test]
fn check_outcomes_carry_kernel_id_value_and_limit_in_the_json_and_first_in_the_log() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run_in(dir.path(), &["import", &external("gpt2_train.full.csv"), "-q", "-o", "g.json"]).0, 0);
    let rules = ["check", "g.json", "--min-pct-of-roof", "60", "--min-time-share", "5"];
    let mut json = rules.to_vec();
    json.extend(["--format", "json"]);
    let (code, out, _) = run_in(dir.path(), &json);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], "roofline.check/v1");
    let o = &v["outcomes"][0];
    assert_eq!(o["kernel_id"], "k57e152", "{o}");
    assert_eq!(o["limit"], 60.0, "{o}");
    assert_eq!(o["unit"], "pct_of_roof", "{o}");
    assert!((o["value"].as_f64().unwrap() - 30.68).abs() < 0.01, "{o}");
    // In a 100-column pipe, each failure's value and limit are shown.
    let (_, out, _) = run_in(dir.path(), &rules);
    let fails: Vec<&str> = out.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert_eq!(fails.len(), 3, "{out}");
    assert!(fails.iter().all(|l| l.contains("min_pct_of_roof") && l.contains(">= 60%") && l.contains('[')), "{out}");
    // Into a pipe with no COLUMNS (a CI log), no outcome is cut.
    let piped = roofline().current_dir(dir.path()).env_remove("COLUMNS").args(rules).output().unwrap();
    let text = String::from_utf8_lossy(&piped.stdout);
    let fails: Vec<&str> = text.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert_eq!(fails.len(), 3, "{text}");
    assert!(fails.iter().all(|l| l.ends_with("bandwidth roof, < 60%")), "{text}");
}

/// Item 2: below about 60 columns the check table dropped its rule column;
/// a CI log shows each failure's rule, kernel, value and limit whatever the
/// width: side by side when they fit, else one block per outcome.
#[test]
fn check_failures_name_their_rule_kernel_value_and_limit_at_any_width() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run_in(dir.path(), &["import", &external("gpt2_train.full.csv"), "-q", "-o", "g.json"]).0, 0);
    let rules = ["check", "g.json", "--min-pct-of-roof", "60", "--min-time-share", "5"];
    for columns in [30u16, 40, 50, 56, 60, 80] {
        let out = roofline().current_dir(dir.path()).env("COLUMNS", columns.to_string()).args(rules).output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        let whole = String::from_utf8_lossy(&out.stdout);
        // The outcomes, before the notes on kernels no rule held.
        let text = whole.split("\nnote").next().unwrap();
        let fails = text.lines().filter(|l| l.starts_with("FAIL")).count();
        assert_eq!(fails, 3, "{columns} columns:\n{text}");
        assert_eq!(text.matches("min_pct_of_roof").count(), 3, "{columns} columns:\n{text}");
        assert_eq!(text.matches(">= 60%").count(), 3, "{columns} columns:\n{text}");
        assert_eq!(text.matches("[k").count(), 3, "{columns} columns: every kernel keeps its ID\n{text}");
        for line in text.lines() {
            assert!(line.chars().count() <= usize::from(columns), "{columns} columns: {line:?}\n{text}");
        }
    }
}

/// Item 3: `--wide` at 120 columns broke words mid-word (six kernels in 548 lines).
#[test]
fn wide_tables_at_120_columns_never_break_a_word() {
    let (code, out, err) = at_width(120, &["import", &external("gpt2_train.full.csv"), "--wide", "-q"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().all(|l| l.chars().count() <= 120), "too wide");
    // Words of the diagnoses and headers come whole.
    for broken in ["diagn ", "opera ", "libra ", "memory-boun ", "sav "] {
        assert!(!out.contains(broken), "{broken:?} broken in\n{out}");
    }
}

/// Item 3: narrow tables that did not fit wrapped cells; now columns give
/// way, and are named.
#[test]
fn a_table_that_cannot_fit_names_the_columns_it_leaves_out() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run_in(dir.path(), &["import", &external("gpt2_train.full.csv"), "-q", "-o", "g.json"]).0, 0);
    let out = roofline()
        .current_dir(dir.path())
        .env("COLUMNS", "80")
        .args(["report", "g.json", "--view", "instructions", "--format", "table"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    assert!(text.contains("columns left out at 80 columns:"), "{text}");
}

/// Item 3: every warning was printed twice on a terminal (stderr, then the
/// table), and `-q` removed neither. On a terminal (util-linux `script`
/// gives the binary one), each is printed once.
#[test]
fn each_warning_is_printed_once_and_quiet_silences_them() {
    let csv = external("gpt2_train.full.csv");
    let needle = "are not measured at that level";
    let script = std::process::Command::new("script").arg("--version").output();
    if script.is_ok_and(|o| o.status.success()) {
        let bin = assert_cmd::cargo::cargo_bin("roofline");
        let line = format!("COLUMNS=100 NO_COLOR=1 {} import {csv}", bin.display());
        let out = std::process::Command::new("script").args(["-qec", &line, "/dev/null"]).output().unwrap();
        let screen = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{screen}");
        assert_eq!(screen.matches(needle).count(), 2, "once for L2, once for L1, on one screen: {screen}");
    } else {
        println!("SKIPPED: the terminal half needs util-linux `script`");
    }
    // Into a pipe, the table has them and stderr too (the pipe is not on screen).
    let (code, out, err) = run(&["import", &csv]);
    assert_eq!(code, 0);
    assert_eq!(out.matches(needle).count(), 2, "{out}");
    // Into JSON, stderr says them once.
    let (_, _, err2) = run(&["import", &csv, "--format", "json"]);
    assert_eq!(err2.matches(needle).count(), 2, "{err2}");
    assert_eq!(err.matches(needle).count(), 2, "{err}");
    let (_, out, err) = run(&["import", &csv, "-q"]);
    assert!(!out.contains("warning:") && !err.contains("warning:"), "{out}{err}");
}

/// Item 7: `diff` said "1.00x faster" for identical runs.
#[test]
fn diff_of_identical_runs_says_same() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run_in(dir.path(), &["import", &external("gpt2_train.full.csv"), "-q", "-o", "g.json"]).0, 0);
    let (code, out, err) = run_in(dir.path(), &["diff", "g.json", "g.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("1.00x faster"), "{out}");
    assert!(out.contains("same within noise"), "{out}");
}

/// Item 7: `import -h` printed `(\"-\" for stdin)`; `peaks -h` spoke of torchrun.
#[test]
fn help_texts_have_no_escapes_and_no_other_commands_matters() {
    let (_, out, _) = run(&["import", "-h"]);
    assert!(out.contains("(\"-\" for stdin)") && !out.contains('\\'), "{out}");
    let (_, out, _) = run(&["peaks", "-h"]);
    assert!(!out.contains("torchrun"), "{out}");
}

/// Item 6: `import`, `report` and `check` had no kernel filter (rocprof-compute's `analyze -k`).
#[test]
fn kernels_regex_filters_import_report_and_check_and_shares_are_of_those_kernels() {
    let dir = tempfile::tempdir().unwrap();
    let csv = external("gpt2_train.full.csv");
    let (code, out, err) = run_in(dir.path(), &["import", &csv, "-k", "nvjet|Kernel2", "--format", "json", "-q"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let kernels = v["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), 11, "8 nvjet GEMMs and 3 CUTLASS ones");
    let share: f64 = kernels.iter().map(|k| k["time_share"].as_f64().unwrap()).sum();
    assert!((share - 1.0).abs() < 1e-9, "{share}");
    assert_eq!(run_in(dir.path(), &["import", &csv, "-q", "-o", "g.json"]).0, 0);
    let (code, out, _) = run_in(dir.path(), &["report", "g.json", "--kernels", "^k57e152$", "--format", "csv"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 2, "a header and one kernel: {out}");
    let (code, out, _) = run_in(dir.path(), &["check", "g.json", "-k", "nvjet", "--min-pct-of-roof", "60"]);
    assert_eq!(code, 1, "one nvjet GEMM is under 60%: {out}");
    assert!(
        out.lines().filter(|l| l.starts_with("pass") || l.starts_with("FAIL")).all(|l| l.contains("nvjet")),
        "{out}"
    );
    let (code, _, err) = run_in(dir.path(), &["import", &csv, "-k", "no such kernel"]);
    assert_eq!(code, 2);
    assert!(err.contains("no kernel of") && err.contains("[k57e152]"), "{err}");
    let (code, _, err) = run_in(dir.path(), &["import", &csv, "-k", "("]);
    assert_eq!(code, 2);
    assert!(err.contains("not a regular expression"), "{err}");
}

/// Item 6: a gzipped capture was refused as binary; so was a gzipped analysis.
#[test]
fn gzipped_captures_and_documents_are_read_as_the_text_they_hold() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let csv = std::fs::read(external("gpt2_train.full.csv")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&csv).unwrap();
    std::fs::write(dir.path().join("g.csv.gz"), gz.finish().unwrap()).unwrap();
    let (code, plain, err) = run_in(dir.path(), &["import", &external("gpt2_train.full.csv"), "--format", "csv", "-q"]);
    assert_eq!(code, 0, "{err}");
    let (code, zipped, err) = run_in(dir.path(), &["import", "g.csv.gz", "--format", "csv", "-q", "-o", "g.json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(plain, zipped);
    let json = std::fs::read(dir.path().join("g.json")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&json).unwrap();
    std::fs::write(dir.path().join("g.json.gz"), gz.finish().unwrap()).unwrap();
    let (code, out, err) = run_in(dir.path(), &["report", "g.json.gz", "--format", "csv"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 38, "{out}");
}

/// Item 3: the terminal chart's key and notes ran past 80 columns.
#[test]
fn the_terminal_chart_and_its_key_fit_80_columns() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run_in(dir.path(), &["import", &external("gpt2_train.full.csv"), "-q", "-o", "g.json"]).0, 0);
    let out = roofline()
        .current_dir(dir.path())
        .env("COLUMNS", "80")
        .args(["report", "g.json", "--format", "chart"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    for l in text.lines() {
        assert!(l.chars().count() <= 80, "{} columns: {l}", l.chars().count());
    }
    assert!(text.contains("  A  Kernel2<"), "{text}");
}

/// Item 3: after `tour`, the last screen was warnings, not the answer.
#[test]
fn tour_ends_with_its_answer() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = at_width(80, &["tour", "--bundled", "--out-dir", dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let last: Vec<&str> = out.lines().rev().take(6).collect();
    assert!(last.iter().any(|l| l.starts_with("In short: the top 3 opportunities")), "{last:#?}");
    assert!(last[0].starts_with("3  "), "{last:#?}");
    assert!(!last.iter().any(|l| l.contains("warning")), "{last:#?}");
}

/// Item 4: points the warnings call "kept off the chart" were drawn as
/// ordinary points, and a bf16 copy's constant moves (3.7e-6 FLOP/B)
/// stretched the x axis to 1e-6.
#[test]
fn the_chart_draws_only_measured_points_above_the_noise_floor() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run_in(dir.path(), &["import", &external("gpt2_train.full.csv"), "-q", "-o", "g.json"]).0, 0);
    assert_eq!(run_in(dir.path(), &["report", "g.json", "-q", "-o", "g.svg"]).0, 0);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("g.json")).unwrap()).unwrap();
    let svg = std::fs::read_to_string(dir.path().join("g.svg")).unwrap();
    let attr = |tag: &str, name: &str| -> String {
        let at = tag.find(&format!("{name}=\"")).map(|i| i + name.len() + 2).unwrap();
        tag[at..at + tag[at..].find('"').unwrap()].to_string()
    };
    let points: Vec<&str> = svg.split("class=\"pt\"").skip(1).map(|t| &t[..t.find('>').unwrap()]).collect();
    assert!(points.len() > 20, "{}", points.len());
    let mut drawn = std::collections::BTreeSet::new();
    for p in points {
        let k: usize = attr(p, "data-k").parse().unwrap();
        let level = attr(p, "data-level");
        let x: f64 = attr(p, "data-x").parse().unwrap();
        let l = doc["kernels"][k]["levels"].as_array().unwrap().iter().find(|l| l["level"] == level.as_str()).unwrap();
        assert!(l.get("caveat").is_none(), "kernel {k} drawn at {level}, which is not measured: {l}");
        assert!(x >= 1e-3, "kernel {k} at {x} FLOP/B: below the noise floor");
        drawn.insert(k);
    }
    // The others are listed under the chart (the bf16 copy among them), by
    // their names' heads, in one note that counts them.
    let kernels = doc["kernels"].as_array().unwrap();
    let undrawn: Vec<usize> = (0..kernels.len()).filter(|k| !drawn.contains(k)).collect();
    let note = svg.split(&format!("{} kernels with no FLOPs", undrawn.len())).nth(1).unwrap_or_else(|| {
        panic!("no note names the {} kernels left off the chart", undrawn.len());
    });
    let note = &note[..note.find("kernels are not named on the chart").unwrap_or(note.len())];
    for &k in &undrawn {
        let name = kernels[k]["kernel"]["display_name"].as_str().unwrap();
        let head: String = name.chars().take(6).collect();
        assert!(note.contains(&head.replace('<', "&lt;")), "{name} is not listed under the chart: {note}");
    }
    assert!(undrawn
        .iter()
        .any(|&k| kernels[k]["kernel"]["display_name"] == "vectorized_elementwise_kernel<bfloat16_copy_kernel_cuda>"));
    let (_, chart, _) = at_width(100, &["report", s_path(&dir.path().join("g.json")), "--format", "chart"]);
    let axis = chart.lines().find(|l| l.trim_start().starts_with("0.1")).unwrap_or("");
    assert!(!chart.contains("1e-6"), "{chart}");
    assert!(!axis.is_empty(), "the x axis starts at 0.1 FLOP/B: {chart}");
}

fn s_path(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

/// Item 4: the chart started below the first screen (after the long
/// tables); the name column wrapped identifiers mid-word; at 800 px the
/// tables overflowed their box.
#[test]
fn the_page_puts_the_chart_first_within_a_screen_and_breaks_names_between_identifiers() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run_in(dir.path(), &["import", &external("gpt2_train.full.csv"), "-q", "-o", "g.json"]).0, 0);
    assert_eq!(run_in(dir.path(), &["report", "g.json", "-q", "-o", "g.html"]).0, 0);
    let page = std::fs::read_to_string(dir.path().join("g.html")).unwrap();
    let at = |id: &str| page.find(&format!("<section id=\"{id}\"")).unwrap_or_else(|| panic!("no {id}"));
    assert!(at("chart") < at("opportunities") && at("chart") < at("kernels"), "the chart before the tables");
    // Before the summary's table too: the first screen shows the chart, and
    // the whole of it fits one (its width follows the window's height, and
    // its key names the kernels with the most time; the table has them all).
    assert!(at("chart") < at("program"), "the chart first");
    assert!(page.contains("max-width: min(1320px, calc((100vh - 130px) * var(--aspect, 10)))"), "a height cap");
    let aspect: f64 = page
        .split("class=\"chart\" style=\"--aspect: ")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .and_then(|a| a.parse().ok())
        .expect("the chart's aspect");
    // 770 px tall at 900 (the controls take the rest), so about 890 px wide at 1400.
    assert!(aspect > 1.1, "a key of every kernel made the chart taller than wide: {aspect}");
    assert!(page.contains("and 23 more kernels: see the table"), "the key names ten of the 33 drawn");
    assert!(!page.contains("overflow-wrap: anywhere; min-width"), "names no longer break anywhere");
    assert!(page.contains("Kernel2&lt;<wbr>cutlass_<wbr>"), "break points between identifiers");
    // Under 1100 px the columns the narrow terminal leaves out are hidden, and said so.
    assert!(
        page.contains("<th class=\"num extra\"") && page.contains("th.extra, td.extra { display: none; }"),
        "extra columns"
    );
}

/// Item 1: the `[k6cbd29]` IDs matched nothing in ncu; each kernel now
/// carries the ncu launch IDs (the capture's `ID` column) behind it.
#[test]
fn each_kernel_names_its_ncu_launch_ids() {
    let (code, out, err) = run(&["import", &external("gpt2_train.full.csv"), "--format", "json", "-q"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let k = v["kernels"].as_array().unwrap().iter().find(|k| k["kernel"]["id"] == "k57e152").unwrap();
    assert_eq!(k["kernel"]["evidence"]["ncu_launch_ids"], serde_json::json!(["36"]), "{}", k["kernel"]["evidence"]);
    let csv = std::fs::read_to_string(external("gpt2_train.full.csv")).unwrap();
    let row = csv.lines().find(|l| l.starts_with("\"36\"")).unwrap_or("");
    assert!(row.contains("128x128_tn_align1"), "ncu's launch 36 is that GEMM: {row:.200}");
    let (_, out, _) = at_width(120, &["import", &external("gpt2_train.full.csv"), "--wide", "-q"]);
    assert!(out.contains("in Nsight Compute: launch ID 36"), "{out}");
}

/// Item 6: `import` and `report` had no `--group-by` after the capture.
#[test]
fn group_by_library_or_origin_sums_the_gpu_time() {
    let (code, out, err) =
        run(&["import", &external("gpt2_train.full.csv"), "--group-by", "library", "--format", "json", "-q"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["program"]["group_by"], "library");
    let groups: Vec<&str> =
        v["program"]["groups"].as_array().unwrap().iter().map(|g| g["label"].as_str().unwrap_or("")).collect();
    assert_eq!(groups, ["cuBLAS", "PyTorch", "cuDNN"], "{}", v["program"]["groups"]);
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run_in(dir.path(), &["import", &external("gpt2_train.full.csv"), "-q", "-o", "g.json"]).0, 0);
    let (code, out, _) = run_in(dir.path(), &["report", "g.json", "--group-by", "origin", "--format", "markdown"]);
    assert_eq!(code, 0);
    assert!(out.contains("GPU time by library and role") && out.contains("cuBLAS GEMM"), "{out}");
}

/// Item 6: `check` had `-k` but no `--group-by`: a library's GEMMs could
/// not be held to a roof, or against the baseline's, as one.
#[test]
fn check_group_by_judges_each_group_and_the_baselines_groups() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run_in(dir.path(), &["import", &external("gpt2_train.full.csv"), "-q", "-o", "g.json"]).0, 0);
    let by_library = ["check", "g.json", "--group-by", "library", "--min-pct-of-roof", "1", "--format", "json"];
    let (code, out, err) = run_in(dir.path(), &by_library);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let judged: Vec<&str> = v["outcomes"].as_array().unwrap().iter().map(|o| o["kernel"].as_str().unwrap()).collect();
    assert_eq!(judged, ["cuBLAS", "PyTorch", "cuDNN"], "one outcome per library, most time first: {out}");
    // A group by its name, after -k picked the kernels: nvjet and CUTLASS are cuBLAS GEMMs.
    let (code, out, err) = run_in(
        dir.path(),
        &["check", "g.json", "-k", "nvjet|Kernel2", "--group-by", "origin", "--kernel", "cuBLAS GEMM=20"],
    );
    assert_eq!(code, 0, "{out}{err}");
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("pass") || l.starts_with("FAIL")).collect();
    assert_eq!(rows.len(), 1, "{out}");
    assert!(rows[0].contains("kernel.min_pct_of_roof") && rows[0].contains("cuBLAS GEMM"), "{out}");
    // Against a baseline, group by group: the same capture regresses nowhere.
    let (code, out, err) = run_in(
        dir.path(),
        &["check", "g.json", "--group-by", "library", "--baseline", "g.json", "--max-regression", "1"],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("regression") && out.contains("cuDNN") && !out.contains("[k57e152]"), "{out}");
}

/// What is wrong with `text` as a view `columns` wide: lines longer than
/// that, and words broken mid-word, whether across a line's end (a line's
/// last word and the next line's first make one word of `whole`) or in a
/// table cell that wrapped (a fragment of a word of `whole` that is no
/// word of it). `whole` is the same view at a width that breaks nothing.
/// Names shortened with an ellipsis are a choice, not a break; a word
/// longer than the width (a path) has a line of its own.
fn layout_faults(text: &str, columns: usize, whole: &str) -> Vec<String> {
    let words: std::collections::HashSet<&str> = whole.split_whitespace().collect();
    let mut faults: Vec<String> = text
        .lines()
        .enumerate()
        // A word longer than the line (a path) is left whole.
        .filter(|(_, l)| l.chars().count() > columns && l.split_whitespace().count() > 1)
        .map(|(i, l)| format!("line {} is {} columns: {l}", i + 1, l.chars().count()))
        .collect();
    let lines: Vec<&str> = text.lines().collect();
    for pair in lines.windows(2) {
        if let (Some(end), Some(start)) = (pair[0].split_whitespace().last(), pair[1].split_whitespace().next()) {
            let joined = format!("{end}{start}");
            if words.contains(joined.as_str()) && !(words.contains(end) && words.contains(start)) {
                faults.push(format!("{joined:?} broken as {end:?} | {start:?}"));
            }
        }
    }
    // Pieces are compared without the punctuation around them ("(source:" and "source:" are one word).
    let bare = |w: &'_ str| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string();
    let bare_words: std::collections::HashSet<String> = words.iter().map(|w| bare(w)).collect();
    for w in text.split_whitespace().filter(|w| !w.contains('…')).map(bare) {
        let fragment = !bare_words.contains(&w)
            && w.chars().count() >= 3
            && w.chars().any(char::is_alphabetic)
            && bare_words.iter().any(|whole| whole.len() > w.len() && (whole.starts_with(&w) || whole.ends_with(&w)));
        if fragment {
            faults.push(format!("{w:?} is a piece of a word"));
        }
    }
    faults
}

#[test]
fn layout_faults_finds_long_lines_and_broken_words() {
    let whole = "the bandwidth roof is 4.8 TB/s";
    assert!(layout_faults("the bandwidth\nroof is 4.8 TB/s", 20, whole).is_empty());
    assert!(!layout_faults("the bandwid\nth roof", 20, whole).is_empty(), "across a line's end");
    assert!(!layout_faults("a  bandwid  x\n   th", 20, whole).is_empty(), "in a wrapped cell");
    assert!(layout_faults("the\nbandwidth", 5, whole).is_empty(), "a word longer than the line");
    assert_eq!(layout_faults("the bandwidth roof is 4.8 TB/s", 10, whole).len(), 1, "too long");
    assert!(layout_faults("the bandwidth", 5, whole).len() == 1, "two words on a line too short");
    assert!(layout_faults("the bandwi… roof", 20, whole).is_empty(), "an ellipsis is a choice");
}

/// Item 3: only `check` was checked against the width of a CI log; every
/// command's tables, into a pipe at COLUMNS=80 and 120, fit and break no
/// word, and a failure's rule, kernel, value and limit come first.
#[test]
fn every_view_fits_80_and_120_columns_in_a_pipe_and_breaks_no_word() {
    // From the repository root, so that the captures' names are short.
    let root = repo("");
    let at = |columns: u16, args: &[&str]| {
        let out = roofline().current_dir(&root).env("COLUMNS", columns.to_string()).args(args).output().unwrap();
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let dir = tempfile::tempdir().unwrap();
    let d = |p: &str| dir.path().join(p).display().to_string();
    let fixture = |name: &str| format!("tests/fixtures/external/h200-2026-12-01/{name}");
    let gpt2 = fixture("gpt2_train.full.csv");
    let adamw = fixture("pairs/fused_adamw.csv");
    assert_eq!(at(100, &["import", &gpt2, "-q", "-o", &d("g.json")]).0, 0);
    assert_eq!(at(100, &["import", &adamw, "--gpu", "h200", "-q", "-o", &d("f.json")]).0, 0);
    let views: Vec<(&str, Vec<String>)> = vec![
        ("import", vec!["import".into(), gpt2.clone()]),
        ("import of a trace", vec!["import".into(), fixture("traces/gpt2_train.trace.json.gz")]),
        ("report", vec!["report".into(), d("g.json"), "--format".into(), "table".into()]),
        ("report --wide", vec!["report".into(), d("g.json"), "--format".into(), "table".into(), "--wide".into()]),
        ("diff", vec!["diff".into(), d("g.json"), d("f.json")]),
        ("check", vec!["check".into(), d("g.json"), "--min-pct-of-roof".into(), "50".into()]),
        ("tour", vec!["tour".into(), "--bundled".into(), "--out-dir".into(), d("tour")]),
    ];
    // The tour's own time ("done in: 52.10 ms") differs from run to run.
    let steady = |t: String| t.lines().filter(|l| !l.starts_with("done in:")).collect::<Vec<_>>().join("\n");
    for (what, args) in &views {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let whole = steady(at(2000, &args).1);
        for columns in [80, 120] {
            let (code, out) = at(columns, &args);
            assert!(code == 0 || (code == 1 && *what == "check"), "{what}: exit {code}");
            let faults = layout_faults(&steady(out.clone()), usize::from(columns), &whole);
            assert!(faults.is_empty(), "{what} at {columns} columns: {faults:#?}\n{out}");
            if *what == "check" {
                for l in out.lines().filter(|l| l.starts_with("FAIL")) {
                    let cells: Vec<&str> = l.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
                    assert_eq!(cells[1], "min_pct_of_roof", "{l}");
                    assert!(cells[2].ends_with(']'), "the kernel and its ID: {l}");
                    assert!(cells[3].ends_with('%') && cells[4] == ">= 50%", "value, then limit: {l}");
                }
            }
        }
    }
}

/// Item 3: on an 80-column terminal, the tour's banner on stderr was cut
/// mid-word by the terminal's own wrap ("CUDA 13." | "0)"): messages on a
/// terminal now break between words. (util-linux `script` gives the binary
/// a terminal; into a pipe messages keep whole lines, for logs.)
#[test]
fn messages_on_an_80_column_terminal_break_between_words() {
    let script = std::process::Command::new("script").arg("--version").output();
    if !script.is_ok_and(|o| o.status.success()) {
        println!("SKIPPED: needs util-linux `script`");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("roofline");
    let line = format!("COLUMNS=80 NO_COLOR=1 {} tour --bundled --out-dir {}/t", bin.display(), dir.path().display());
    let out = std::process::Command::new("script").args(["-qec", &line, "/dev/null"]).output().unwrap();
    let screen = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    assert!(out.status.success(), "{screen}");
    let banner: Vec<&str> = screen.lines().skip_while(|l| !l.starts_with("Showing the bundled data")).take(2).collect();
    assert_eq!(banner.len(), 2, "{screen}");
    assert!(banner.iter().all(|l| l.chars().count() <= 80), "{banner:#?}");
    assert!(banner[0].ends_with(|c: char| c != ' ') && banner[1].starts_with("  "), "{banner:#?}");
    let joined = banner.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
    assert!(joined.contains("CUDA 13.0)") && joined.contains("(--bundled was given)"), "whole words: {banner:#?}");
    // Into a pipe, the same message is one line.
    let (_, _, err) = run(&["tour", "--bundled", "--out-dir", dir.path().join("p").to_str().unwrap()]);
    assert!(
        err.lines().any(|l| l.starts_with("Showing the bundled data") && l.contains("--bundled was given")),
        "{err}"
    );
}

/// Item 7: `diff` called any change over 1% a speed-up or a slow-down, even
/// one the launches' own spread covers. gpt2's reduce kernel ran twice on
/// the same work in 14.94 and 14.46 us (1.6% of noise either way); a
/// second capture whose faster launch took 14.66 us is the same within noise.
#[test]
fn diff_says_same_within_noise_when_the_launches_spread_covers_the_change() {
    let dir = tempfile::tempdir().unwrap();
    let gpt2 = "../external/h200-2026-12-01/gpt2_train.full.csv";
    let mut after = crate::support::Capture::load(gpt2);
    let id = after.col("ID");
    let row = after.rows.iter().position(|r| r[id] == "76").expect("launch 76");
    assert_eq!(after.rows[row][after.col("gpu__time_duration.sum")], "14,464");
    after.set(row, "gpu__time_duration.sum", "14,660");
    after.write(&dir.path().join("after.csv"));
    let before = crate::support::fixture(gpt2);
    for (csv, json) in [(before.to_str().unwrap(), "b.json"), ("after.csv", "a.json")] {
        assert_eq!(run_in(dir.path(), &["import", csv, "--per-launch", "-q", "-o", json]).0, 0);
    }
    let (code, out, err) = run_in(dir.path(), &["diff", "b.json", "a.json", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let changed: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|r| r["before"]["duration_s"] != r["after"]["duration_s"] && r["kind"] == "matched")
        .collect();
    assert_eq!(changed.len(), 1, "one launch changed: {changed:#?}");
    let noise = changed[0]["noise_pct"].as_f64().expect("the launches' spread");
    assert!((noise - 1.63).abs() < 0.01, "{noise}");
    let (_, table, _) = run_in(dir.path(), &["diff", "b.json", "a.json"]);
    let line = table.lines().find(|l| l.contains("reduce_kernel<") && l.contains('±')).unwrap_or_default();
    assert!(line.contains("same within noise (±1.6%)"), "{table}");
    assert!(!table.contains("slower") && !table.contains("faster"), "{table}");
    // One entry per kernel (launches summed) has no spread: the fixed 1%.
    assert_eq!(run_in(dir.path(), &["import", "after.csv", "-q", "-o", "a1.json"]).0, 0);
    assert_eq!(run_in(dir.path(), &["import", before.to_str().unwrap(), "-q", "-o", "b1.json"]).0, 0);
    let (_, out, _) = run_in(dir.path(), &["diff", "b1.json", "a1.json", "--format", "json"]);
    assert!(!out.contains("noise_pct"), "{out}");
}

/// The text of a terminal capture (`tmux capture-pane -e`): its SGR colour
/// codes taken out.
fn without_colours(ansi: &str) -> String {
    let mut out = String::with_capacity(ansi.len());
    let mut rest = ansi;
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let code = &rest[at + 2..];
        let end = code.find(|c: char| !(c.is_ascii_digit() || c == ';')).unwrap_or(code.len());
        rest = &code[(end + 1).min(code.len())..];
    }
    out.push_str(rest);
    out
}

/// Acceptance: the terminal screenshots at 80 and 120 columns. The
/// committed ones showed `env: 'target/debug/roofline': No such file or
/// directory` (the script was given a relative binary and ran it from a
/// temporary folder); each capture must be the tour's first screen, fit its
/// width, and be what this binary prints there (a view that changes makes
/// this fail until `scripts/screenshots-terminal.sh` is run again).
#[test]
fn the_committed_terminal_screenshots_are_the_tours_first_screen_at_80_and_120_columns() {
    for columns in [80u16, 120] {
        let path = repo(&format!("docs/screenshots/tour-{columns}.ansi"));
        let screen = without_colours(&std::fs::read_to_string(&path).unwrap());
        let lines: Vec<&str> = screen.lines().collect();
        assert!(lines.len() >= 40, "{path}: {} lines:\n{screen}", lines.len());
        assert!(lines[0].starts_with("Showing the bundled data"), "{path}:\n{screen}");
        for l in &lines {
            assert!(l.chars().count() <= usize::from(columns), "{path}: {l:?}");
        }
        // stdout's part of the screen (the banner before it is stderr's).
        let start =
            lines.iter().position(|l| *l == "Where the GPU time goes").unwrap_or_else(|| panic!("{path}:\n{screen}"));
        let mut shown: Vec<&str> = lines[start..].to_vec();
        while shown.last() == Some(&"") {
            shown.pop();
        }
        let dir = tempfile::tempdir().unwrap();
        let (code, out, err) = at_width(columns, &["tour", "--bundled", "--out-dir", s_path(&dir.path().join("t"))]);
        assert_eq!(code, 0, "{err}");
        let printed: Vec<&str> = out.lines().collect();
        assert_eq!(
            printed.get(..shown.len()),
            Some(&shown[..]),
            "{path} is not what `roofline tour --bundled` prints at {columns} columns: run scripts/screenshots-terminal.sh"
        );
    }
}

/// Item 1: "the same display name in every view and command": each view
/// that names a kernel in full (check's outcomes, the CSV that pandas
/// reads, diff's rows, the page's table) uses the analysis's
/// `display_name`; the charts, which shorten it to their labels, keep its
/// distinguishing end (the three CUTLASS GEMMs' `tn`, `nn`, `nt`).
#[test]
fn every_view_names_each_kernel_by_the_analysis_display_name() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run_in(dir.path(), &["import", &external("gpt2_train.full.csv"), "-q", "-o", "g.json"]).0, 0);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("g.json")).unwrap()).unwrap();
    let kernels = doc["kernels"].as_array().unwrap();
    let name_of = |id: &str| -> String {
        let k = kernels.iter().find(|k| k["kernel"]["id"] == id).unwrap_or_else(|| panic!("no kernel {id}"));
        k["kernel"]["display_name"].as_str().unwrap().to_string()
    };
    let names: Vec<String> =
        kernels.iter().map(|k| k["kernel"]["display_name"].as_str().unwrap().to_string()).collect();
    assert_eq!(names.len(), 37);
    // check: each outcome's kernel, by its ID.
    let (code, out, _) = run_in(dir.path(), &["check", "g.json", "--min-pct-of-roof", "60", "--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let outcomes = v["outcomes"].as_array().unwrap();
    assert!(outcomes.len() > 20, "{out}");
    for o in outcomes {
        assert_eq!(o["kernel"].as_str().unwrap(), name_of(o["kernel_id"].as_str().unwrap()), "{o}");
    }
    // The CSV (what pandas and a spreadsheet read), row by row.
    let (_, out, _) = run_in(dir.path(), &["report", "g.json", "--format", "csv"]);
    let mut csv = csv::Reader::from_reader(out.as_bytes());
    let column = csv.headers().unwrap().iter().position(|h| h == "display_name").expect("a display_name column");
    let in_csv: Vec<String> = csv.records().map(|r| r.unwrap()[column].to_string()).collect();
    assert_eq!(in_csv, names);
    // diff: each matched row.
    let (_, out, _) = run_in(dir.path(), &["diff", "g.json", "g.json", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows: Vec<&str> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "matched")
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(rows, names.iter().map(String::as_str).collect::<Vec<_>>());
    // The page's kernel table and the charts name a kernel by its label:
    // the display name, or a cut of it that keeps its head and its end
    // (the end tells siblings apart: the three CUTLASS GEMMs' `tn`, `nn`,
    // `nt`, the two cuDNN attention kernels' `1x4x1` and `4x1x1`), never
    // a name of its own.
    // (A template sibling's cut may cut its base and its label each in the
    // middle: every piece between ellipses is then in the name, in order.)
    let is_cut_of = |label: &str, name: &str| {
        let pieces: Vec<&str> = label.split('…').collect();
        let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
        if pieces.len() == 1 || label.chars().count() >= name.chars().count() {
            return label == name;
        }
        if !name.starts_with(first) || !name[first.len()..].ends_with(last) {
            return false;
        }
        let mut rest = &name[first.len()..name.len() - last.len()];
        pieces[1..pieces.len() - 1].iter().all(|p| match rest.find(p) {
            Some(at) => {
                rest = &rest[at + p.len()..];
                true
            }
            None => false,
        })
    };
    assert_eq!(run_in(dir.path(), &["report", "g.json", "-q", "-o", "g.html"]).0, 0);
    let page = std::fs::read_to_string(dir.path().join("g.html")).unwrap().replace("<wbr>", "");
    let unescape = |s: &str| s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&");
    for (k, name) in names.iter().enumerate() {
        let row = page
            .split(&format!("<tbody class=\"group\" data-k=\"{k}\"><tr><td"))
            .nth(1)
            .unwrap_or_else(|| panic!("no table row for kernel {k}"));
        let label = unescape(row.split("\">").nth(2).and_then(|r| r.split("</a>").next()).unwrap_or(""));
        assert!(is_cut_of(&label, name), "the page's table names {name:?} as {label:?}");
    }
    assert_eq!(run_in(dir.path(), &["report", "g.json", "-q", "-o", "g.svg"]).0, 0);
    let svg = std::fs::read_to_string(dir.path().join("g.svg")).unwrap();
    let labels: Vec<String> = svg
        .split("class=\"klabel\"")
        .skip(1)
        .filter_map(|t| t.split_once('>').and_then(|(_, r)| r.split("</text>").next()).map(unescape))
        .collect();
    assert!(labels.len() >= 10, "{labels:?}");
    for l in &labels {
        // A label some other kernel shares gets its ID after it.
        let bare = l.rsplit_once(" [").map_or(l.as_str(), |(n, _)| n);
        let cut = names.iter().any(|n| is_cut_of(l, n) || is_cut_of(bare, n));
        assert!(cut, "the chart's label {l:?} is no cut of a display name");
    }
    let (_, chart, _) = at_width(100, &["report", s_path(&dir.path().join("g.json")), "--format", "chart"]);
    for tail in ["tn_align1>", "nn_align1>", "nt_align1>", "1x4x1_cga1x1x1_kernel0_0", "4x1x1_cga1x1x1_kernel0_0"] {
        assert!(labels.iter().any(|l| l.ends_with(tail)), "the SVG has no label ending {tail}: {labels:?}");
        assert!(chart.lines().any(|l| l.contains(tail)), "the terminal chart's key has no {tail}:\n{chart}");
    }
}

/// Item 2: "a versioned check document, with numeric fields in its JSON
/// schema and in the docs": every field `check --format json` writes (a
/// baseline on other roofs included) is in docs/schema.md's
/// `roofline.check/v1` table, and `value` and `limit` are numbers there and
/// in the document.
#[test]
fn every_field_of_the_check_document_is_in_docs_schema_with_its_type() {
    let dir = tempfile::tempdir().unwrap();
    let csv = external("gpt2_train.full.csv");
    assert_eq!(run_in(dir.path(), &["import", &csv, "-q", "-o", "run.json"]).0, 0);
    assert_eq!(run_in(dir.path(), &["import", &csv, "--gpu", "h100", "-q", "-o", "base.json"]).0, 0);
    let args = [
        "check",
        "run.json",
        "--baseline",
        "base.json",
        "--max-regression",
        "10",
        "--min-pct-of-roof",
        "60",
        "--format",
        "json",
    ];
    let (code, out, err) = run_in(dir.path(), &args);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], "roofline.check/v1");
    let docs = std::fs::read_to_string(repo("docs/schema.md")).unwrap();
    let section = docs.split("### `roofline.check/v1`").nth(1).expect("a roofline.check/v1 section");
    let section = section.split("\n## ").next().unwrap();
    // The table row of a field: `| \`outcomes[].value\` | ...`, or one
    // row for several (`| \`outcomes[].passed\`, \`detail\` | ...`).
    let row = |prefix: &str, key: &str| -> String {
        section
            .lines()
            .filter(|l| l.starts_with(&format!("| `{prefix}")))
            .find(|l| {
                let fields = l.split(" | ").next().unwrap_or("");
                [format!("`{prefix}{key}`"), format!("`{prefix}{key}[]`"), format!("`{key}`")]
                    .iter()
                    .any(|f| fields.contains(f.as_str()))
            })
            .unwrap_or_else(|| panic!("docs/schema.md does not document `{prefix}{key}` of roofline.check/v1"))
            .to_string()
    };
    for key in v.as_object().unwrap().keys().filter(|k| *k != "schema" && *k != "outcomes") {
        row("", key);
    }
    let mut seen = std::collections::BTreeSet::new();
    for o in v["outcomes"].as_array().unwrap() {
        for (key, value) in o.as_object().unwrap() {
            seen.insert(key.clone());
            let documented = row("outcomes[].", key);
            if key == "value" || key == "limit" {
                assert!(value.is_number(), "{key} is a number: {o}");
                assert!(documented.contains("| number"), "{key} is documented as a number: {documented}");
            }
        }
    }
    for key in ["rule", "kernel", "kernel_id", "passed", "value", "limit", "unit", "detail"] {
        assert!(seen.contains(key), "no outcome has {key}: {out}");
    }
    assert!(v.get("baseline_replaced").is_some(), "{out}");
}

/// Item 7: the README never mentioned `timeline`, `cargo install` left out
/// the library `timeline` needs, and the screenshots were shown nowhere.
/// The README names the command, shows screenshots that exist (the
/// terminal's and the page's), and gives the same two commands that the
/// binary's error gives when the library is not where an installed
/// binary looks (beside it, then `../lib`).
#[test]
fn the_readme_shows_the_screenshots_and_timeline_and_the_install_of_its_library() {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    assert!(readme.contains("| `roofline timeline -- CMD` |"), "the commands table names timeline");
    let images: Vec<&str> = readme
        .split("](docs/screenshots/")
        .skip(1)
        .map(|r| &r[..r.find(')').unwrap()])
        .filter(|f| f.ends_with(".png"))
        .collect();
    for shown in ["tour-80.png", "tour-1400.png", "gpt2-1400x900.png"] {
        assert!(images.contains(&shown), "the README does not show {shown}: {images:?}");
    }
    for f in &images {
        let path = repo(&format!("docs/screenshots/{f}"));
        assert!(std::fs::metadata(&path).map(|m| m.len() > 5_000).unwrap_or(false), "{path}");
    }
    let fix = "cargo build --release -p roofline-inject && install -D -m 644 target/release/libroofline_inject.so ~/.cargo/lib/libroofline_inject.so";
    assert!(readme.replace(" \\\n  && ", " && ").contains(fix), "the README's install of the library");
    // The binary alone, as `cargo install` leaves it (a hard link in a
    // folder of its own, so that its own path has no library beside it).
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let lone = dir.path().join("roofline");
    if std::fs::hard_link(crate::support::bin(), &lone).is_err() {
        std::fs::copy(crate::support::bin(), &lone).unwrap();
    }
    let out = std::process::Command::new(&lone)
        .args(["timeline", "--", "true"])
        .env_remove("ROOFLINE_INJECT_LIB")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("libroofline_inject.so was not found") && err.contains(fix), "{err}");
    assert!(err.contains(&format!("{}/../lib/libroofline_inject.so", dir.path().display())), "{err}");
    assert!(out.stdout.is_empty());
}
