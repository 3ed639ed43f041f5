//! `roofline profile` on pass-1 timelines recorded on the H200 from
//! programs nobody here wrote (issue 26; tests/fixtures/timeline/h200-2026-12-02):
//! a stand-in program unpacks the recorded files into its records folder,
//! and a stand-in ncu records its arguments (and answers nothing, or
//! crashes). Checked: the steady state each program's own timeline gives
//! (NVTX steps, or a repeating launch sequence where JAX marks none), that
//! ncu starts matching where the steady state starts and never sees a
//! kernel that ran only in the warm-up, the plan's bound, and that a crash
//! keeps every steady-state kernel with its time.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::PathBuf;

use serde_json::Value;

use crate::support::{json_file, profile_in, repo, script, stand_in_ncu};

fn fixture_dir(program: &str) -> PathBuf {
    repo(&format!("tests/fixtures/timeline/h200-2026-12-02/{program}")).into()
}

/// The records of one program, each line parsed.
fn records(program: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture_dir(program)).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "gz")) {
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(f).unwrap()).read_to_string(&mut text).unwrap();
        // Names are per file: tag each record with its file.
        let tag = f.file_name().unwrap().to_string_lossy().into_owned();
        for line in text.lines() {
            let mut v: Value = serde_json::from_str(line).unwrap();
            v["file"] = Value::String(tag.clone());
            out.push(v);
        }
    }
    out
}

/// Independently of the tool: per kernel launch its (launch call time,
/// mangled name), from the records of one program.
fn launches(recs: &[Value]) -> Vec<(u64, String)> {
    let names: HashMap<(String, u64), String> = recs
        .iter()
        .filter(|r| r["t"] == "name")
        .map(|r| {
            ((r["file"].as_str().unwrap().to_string(), r["id"].as_u64().unwrap()), r["s"].as_str().unwrap().into())
        })
        .collect();
    let asked: HashMap<(String, u64), u64> = recs
        .iter()
        .filter(|r| r["t"] == "api")
        .map(|r| ((r["file"].as_str().unwrap().to_string(), r["corr"].as_u64().unwrap()), r["start"].as_u64().unwrap()))
        .collect();
    let mut v: Vec<(u64, String)> = recs
        .iter()
        .filter(|r| r["t"] == "kernel")
        .map(|r| {
            let file = r["file"].as_str().unwrap().to_string();
            let at = asked.get(&(file.clone(), r["corr"].as_u64().unwrap())).copied();
            let name = names[&(file, r["name"].as_u64().unwrap())].clone();
            (at.unwrap_or(r["start"].as_u64().unwrap()), name)
        })
        .collect();
    v.sort();
    v
}

/// When the NVTX range `label` started.
fn range_start(recs: &[Value], label: &str) -> u64 {
    let names: HashMap<(String, u64), String> = recs
        .iter()
        .filter(|r| r["t"] == "name")
        .map(|r| {
            ((r["file"].as_str().unwrap().to_string(), r["id"].as_u64().unwrap()), r["s"].as_str().unwrap().into())
        })
        .collect();
    recs.iter()
        .filter(|r| r["t"] == "marker" && r["flag"] == "start")
        .find(|r| {
            let key = (r["file"].as_str().unwrap().to_string(), r["name"].as_u64().unwrap_or(0));
            names.get(&key).is_some_and(|n| n == label)
        })
        .and_then(|r| r["ts"].as_u64())
        .unwrap_or_else(|| panic!("no range {label}"))
}

struct Recorded {
    dir: tempfile::TempDir,
}

impl Recorded {
    fn new(program: &str) -> Recorded {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let src = fixture_dir(program);
        // The header's clock is now, as the injection library writes it.
        script(
            d,
            "train",
            &format!(
                "[ -n \"$ROOFLINE_TIMELINE_DIR\" ] || exit 0\nnow=$(date +%s%N)\nfor f in '{}'/*.jsonl.gz; do b=$(basename \"$f\" .gz); gzip -dc \"$f\" | sed \"s/\\\"unix_ns\\\":[0-9]*/\\\"unix_ns\\\":$now/\" > \"$ROOFLINE_TIMELINE_DIR/$b\"; done",
                src.display()
            ),
        );
        std::fs::write(d.join("libroofline_inject.so"), b"").unwrap();
        std::fs::write(d.join("capture.csv"), "==PROF== Connected to process 4102 (/usr/bin/python3)\n").unwrap();
        stand_in_ncu(d, &d.join("capture.csv"));
        // Every profiling run's arguments, one block each (pass 2 may run twice).
        std::fs::rename(d.join("ncu"), d.join("ncu-stand-in")).unwrap();
        script(
            d,
            "ncu",
            &format!(
                "case \"$1\" in --query-metrics|--import) ;; *) printf '%s\\n' \"$@\" -- >> '{0}/ncu-runs';; esac\nexec '{0}/ncu-stand-in' \"$@\"",
                d.display()
            ),
        );
        Recorded { dir }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn run(&self, extra: &[&str]) -> (Option<i32>, String) {
        let out = profile_in(self.dir.path())
            .args(["--gpu", "h200", "-o", "a.json"])
            .args(extra)
            .args(["--", "./train"])
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    }
    /// The first profiling run's arguments.
    fn ncu_args(&self) -> Vec<String> {
        let all = std::fs::read_to_string(self.path("ncu-runs")).unwrap_or_default();
        all.lines().take_while(|l| *l != "--").map(str::to_string).collect()
    }
}

fn after(args: &[String], flag: &str) -> Option<String> {
    args.iter().position(|a| a == flag).map(|i| args[i + 1].clone())
}

/// The kernels ncu's regular expression names, as (every name but these?, names).
fn named(args: &[String]) -> (bool, Vec<String>) {
    let re = after(args, "--kernel-name").unwrap_or_default();
    let names = |inner: &str| inner.split('|').map(|s| s.replace('\\', "")).collect();
    match re.strip_prefix("regex:^(?!(?:") {
        Some(rest) => (true, names(rest.trim_end_matches(")$).*$"))),
        None => (false, names(re.trim_start_matches("regex:^(").trim_end_matches(")$"))),
    }
}

/// The planned kernels: those the expression names, or with stand-ins
/// (every name but the window's left out) the window's others.
fn planned(args: &[String], window: &HashSet<&String>) -> Vec<String> {
    match named(args) {
        (false, names) => names,
        (true, left_out) => {
            assert!(
                left_out.iter().all(|n| window.contains(n)),
                "only the window's kernels are left out: {left_out:?}"
            );
            window.iter().filter(|n| !left_out.contains(n)).map(|n| n.to_string()).collect()
        }
    }
}

/// Launches up to the last one before `at` of a kernel that never runs from
/// `at` on: where ncu should start matching.
fn expected_skip(all: &[(u64, String)], at: u64) -> usize {
    let later: HashSet<&String> = all.iter().filter(|(t, _)| *t >= at).map(|(_, n)| n).collect();
    all.iter().enumerate().filter(|(_, (t, n))| *t < at && !later.contains(n)).map(|(i, _)| i + 1).max().unwrap_or(0)
}

fn only_before(all: &[(u64, String)], at: u64) -> HashSet<String> {
    let later: HashSet<&String> = all.iter().filter(|(t, _)| *t >= at).map(|(_, n)| n).collect();
    all.iter().filter(|(t, n)| *t < at && !later.contains(n)).map(|(_, n)| n.clone()).collect()
}

#[test]
fn resnet_ncu_starts_matching_where_the_steady_steps_start_and_sees_no_trial_kernel() {
    let r = Recorded::new("resnet50_train");
    let (code, stderr) = r.run(&[]);
    assert_eq!(code, Some(1), "ncu answered nothing: {stderr}");
    assert!(stderr.contains("steady state: 3 of 3 steps, step 0 to step 2 (NVTX ranges \"step N\""), "{stderr}");
    let recs = records("resnet50_train");
    let all = launches(&recs);
    let step0 = range_start(&recs, "step 0");
    let before = all.iter().filter(|(t, _)| *t < step0).count();
    let skip = expected_skip(&all, step0);
    let args = r.ncu_args();
    assert_eq!(after(&args, "--launch-skip-before-match"), Some(skip.to_string()), "{args:?}");
    // Past cuDNN's autotuning trials; the last warm-up step stays matchable.
    assert!(skip > 2000 && skip + 500 < before, "skip {skip} of the {before} launches before step 0");
    let trials = only_before(&all, step0);
    assert!(trials.len() > 50, "{}", trials.len());
    let steady: HashSet<&String> = all.iter().filter(|(t, _)| *t >= step0).map(|(_, n)| n).collect();
    // Kernels only ncu's run makes stand in for planned ones cuDNN replaced there.
    assert!(named(&args).0, "stand-ins with a steady state: {args:?}");
    let plan = planned(&args, &steady);
    assert!(plan.len() > 20, "{plan:?}");
    assert!(plan.iter().all(|k| !trials.contains(k)), "a warm-up-only kernel reached ncu: {plan:?}");
    assert_eq!(after(&args, "--launch-count").as_deref(), Some("1"), "{args:?}");
    // Every steady-state kernel keeps its time; none of the warm-up's is listed.
    let doc = json_file(&r.path("a.json"));
    let kernels = doc["kernels"].as_array().unwrap();
    assert!(kernels.iter().all(|k| !trials.contains(k["kernel"]["name"].as_str().unwrap())), "warm-up kernel listed");
    assert_eq!(kernels.len(), steady.len(), "every steady-state kernel, with its time");
}

#[test]
fn a_budget_caps_the_plan_on_a_real_training_step() {
    let r = Recorded::new("resnet50_train");
    let (_, full) = r.run(&[]);
    std::fs::remove_file(r.path("ncu-runs")).unwrap();
    let (code, stderr) = r.run(&["--budget", "30s"]);
    assert_eq!(code, Some(1), "{stderr}");
    let eta = |s: &str| -> u64 {
        s.split("pass 2/2: about ").nth(1).and_then(|t| t.split(' ').next()).and_then(|n| n.parse().ok()).unwrap()
    };
    assert!(eta(&full) > 30, "the full plan is longer than the budget: {full}");
    assert!(eta(&stderr) <= 30, "the budget's estimate keeps within it: {stderr}");
    assert!(stderr.contains("--budget 30 s left out"), "{stderr}");
    // The kernels with the most time come first: the budget's plan is a
    // prefix (by GPU time) of the full one, less the kernels that did not fit.
    let recs = records("resnet50_train");
    let all = launches(&recs);
    let step0 = range_start(&recs, "step 0");
    let steady: HashSet<&String> = all.iter().filter(|(t, _)| *t >= step0).map(|(_, n)| n).collect();
    let plan = planned(&r.ncu_args(), &steady);
    assert!(!plan.is_empty() && plan.len() < 47, "{plan:?}");
}

#[test]
fn jax_marks_no_steps_and_its_repeating_step_is_found_past_xla_autotuning() {
    let r = Recorded::new("jax_mlp_train");
    let (code, stderr) = r.run(&[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("steady state: 5 of 5 steps") && stderr.contains("(a repeating sequence of 35 kernel launches"),
        "{stderr}"
    );
    let all = launches(&records("jax_mlp_train"));
    let redzone = all.iter().filter(|(_, n)| n.contains("RedzoneAllocatorKernel")).count();
    assert!(redzone > 400, "XLA's autotuning checks: {redzone}");
    let args = r.ncu_args();
    let first_step = all.len() - 5 * 35;
    let steady: HashSet<&String> = all[first_step..].iter().map(|(_, n)| n).collect();
    let plan = planned(&args, &steady);
    assert!(plan.iter().all(|k| !k.contains("RedzoneAllocator") && !k.contains("DelayKernel")), "{args:?}");
    let skip: usize = after(&args, "--launch-skip-before-match").unwrap().parse().unwrap();
    assert!(skip > 800 && skip <= first_step, "past XLA's autotuning, not past the steps: {skip} of {first_step}");
    let doc = json_file(&r.path("a.json"));
    let names: Vec<&str> =
        doc["kernels"].as_array().unwrap().iter().map(|k| k["kernel"]["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 12, "{names:?}");
    assert!(names.iter().all(|n| !n.contains("stream_executor")), "{names:?}");
    assert_eq!(doc["program"]["steady"]["steps"], 5);
}

#[test]
fn a_crash_in_pass_2_keeps_every_steady_kernel_of_a_real_timeline() {
    let r = Recorded::new("gpt2_train");
    script(r.dir.path(), "ncu", "if [ \"$1\" = \"--query-metrics\" ]; then exit 1; fi\nkill -SEGV $$");
    let (code, stderr) = r.run(&[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("counters missing") && stderr.contains("ncu stopped with"), "{stderr}");
    // The crash came with the filter widened for stand-ins: tried once more
    // on the planned kernels alone (JAX on the H200 crashed ncu so).
    assert_eq!(stderr.matches("profiling again the 38 planned kernels only").count(), 1, "{stderr}");
    let doc = json_file(&r.path("a.json"));
    let p = &doc["program"];
    assert_eq!(p["steady"]["steps"], 3, "{p}");
    let kernels = doc["kernels"].as_array().unwrap();
    assert!(kernels.len() > 50, "{}", kernels.len());
    assert!(kernels.iter().all(|k| k["kernel"]["duration_s"].as_f64().unwrap() > 0.0));
    assert!(kernels.iter().all(|k| k["pct_of_roof"].is_null()), "no counters, no % of roof");
    // And it reads back.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_roofline"))
        .current_dir(r.dir.path())
        .args(["report", "--format", "csv", "a.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn cuda_graph_kernels_are_profiled_and_counted_node_by_node() {
    let r = Recorded::new("compiled_graphs_train");
    let (code, stderr) = r.run(&[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("steady state: 3 of 3 steps"), "{stderr}");
    let args = r.ncu_args();
    assert_eq!(after(&args, "--graph-profiling").as_deref(), Some("node"), "{args:?}");
    let recs = records("compiled_graphs_train");
    assert!(recs.iter().filter(|r| r["t"] == "kernel" && r.get("graph").is_some()).count() >= 250);
    // ncu counts a graph's kernel nodes one by one: so does the skip.
    let all = launches(&recs);
    let skip = expected_skip(&all, range_start(&recs, "step 0"));
    assert_eq!(after(&args, "--launch-skip-before-match"), Some(skip.to_string()), "{args:?}");
}

/// Found on the H200 (2026-12-02): under ncu, torch.compile's warm-up ran
/// fewer autotuning trials than in pass 1, so skipping pass 1's count of
/// warm-up launches skipped the whole steady state and ncu profiled nothing.
#[test]
fn when_the_skip_matches_nothing_pass_2_profiles_again_from_the_first_launch() {
    let r = Recorded::new("compiled_graphs_train");
    let d = r.dir.path();
    std::fs::copy(repo("tests/fixtures/tour/examples.ncu.csv"), d.join("full.csv")).unwrap();
    std::fs::rename(d.join("ncu"), d.join("ncu-empty")).unwrap();
    stand_in_ncu(d, &d.join("full.csv"));
    std::fs::rename(d.join("ncu"), d.join("ncu-full")).unwrap();
    script(
        d,
        "ncu",
        &format!(
            "if [ \"$1\" = \"--query-metrics\" ]; then exit 1; fi\necho \"$*\" >> '{0}/dispatched'\ncase \"$*\" in *--launch-skip-before-match*) exec '{0}/ncu-empty' \"$@\";; *) exec '{0}/ncu-full' \"$@\";; esac",
            d.display()
        ),
    );
    let (_, stderr) = r.run(&[]);
    let runs = std::fs::read_to_string(r.path("dispatched")).unwrap();
    let runs: Vec<&str> = runs.lines().filter(|l| !l.starts_with("--import")).collect();
    assert_eq!(runs.len(), 2, "two profiling runs: {}", stderr);
    assert!(runs[0].contains("--launch-skip-before-match") && !runs[1].contains("--launch-skip-before-match"));
    assert_eq!(stderr.matches("profiling again from the program's first launch").count(), 1, "{stderr}");
    assert!(!stderr.contains("counters missing"), "the second run answered: {stderr}");
}

/// A capture of one launch per name of `names`, in order: the tour's
/// counters (real H200 rows) under other kernels' names.
fn capture_named(names: &[&str]) -> String {
    let text = std::fs::read_to_string(repo("tests/fixtures/tour/examples.ncu.csv")).unwrap();
    let body: String = text.lines().filter(|l| !l.starts_with("==")).map(|l| format!("{l}\n")).collect();
    let mut r = csv::ReaderBuilder::new().has_headers(false).from_reader(body.as_bytes());
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    let at = rows[0].iter().position(|c| c == "Kernel Name").unwrap();
    let id = rows[0].iter().position(|c| c == "ID").unwrap();
    let mut w = csv::WriterBuilder::new().quote_style(csv::QuoteStyle::Always).from_writer(Vec::new());
    w.write_record(&rows[0]).unwrap();
    w.write_record(&rows[1]).unwrap();
    for (i, n) in names.iter().enumerate() {
        let mut row: Vec<String> = rows[2 + i % (rows.len() - 2)].iter().map(str::to_string).collect();
        row[at] = n.to_string();
        row[id] = i.to_string();
        w.write_record(&row).unwrap();
    }
    let mut out = String::from("==PROF== Connected to process 4102 (/usr/bin/python3)\n");
    out.push_str(&String::from_utf8(w.into_inner().unwrap()).unwrap());
    out
}

/// Issue 26: under ncu, cuDNN's autotuning picks other kernels than in
/// pass 1, so planned convolutions never run in pass 2 (10 of 42 on the
/// H200, 2026-12-02). A convolution only ncu's run made, profiled in their
/// stretch of the step, lends them its counters, and the warning names it.
#[test]
fn a_convolution_cudnn_picked_under_ncu_stands_in_for_the_planned_ones_it_replaced() {
    let r = Recorded::new("resnet50_train");
    let recs = records("resnet50_train");
    let all = launches(&recs);
    let step0 = range_start(&recs, "step 0");
    // The steady state's first kernel, then a convolution pass 1 never ran.
    let first = all.iter().find(|(t, _)| *t >= step0).map(|(_, n)| n.clone()).unwrap();
    let newcomer =
        "sm90_xmma_dgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize64x64x64_newcomer_kernel__5x_cudnn";
    assert!(all.iter().all(|(_, n)| n != newcomer));
    std::fs::write(r.path("capture.csv"), capture_named(&[&first, newcomer])).unwrap();
    let (code, stderr) = r.run(&[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr.matches("ran in their place").count(), 1, "said once: {stderr}");
    assert!(stderr.contains("newcomer"), "the stand-in is named: {stderr}");
    let doc = json_file(&r.path("a.json"));
    let kernels = doc["kernels"].as_array().unwrap();
    let stand_in = kernels.iter().find(|k| k["kernel"]["name"] == newcomer).unwrap();
    // It carries the planned convolutions' steady time, from the timeline.
    assert!(stand_in["time_share"].as_f64().unwrap() > 0.0, "{stand_in}");
    // Every pair's stand-in is the newcomer (the matching by kind and
    // stretch is held by plan.rs's own test).
    let w = doc["warnings"].as_array().unwrap().iter().find(|w| w.get("pairs").is_some()).unwrap();
    let pairs = w["pairs"].as_array().unwrap();
    assert!(!pairs.is_empty(), "{w}");
    for p in pairs {
        assert!(p[1].as_str().unwrap().contains("newcomer"), "{p}");
    }
    let pct = w["time_pct"].as_f64().unwrap();
    assert!(pct > 0.0 && pct < 50.0, "{w}");
}
