//! Every flag every command advertises works, or the command refuses it
//! with exit 2: never silently ignored (issue 13, item 5).
//!
//! The test reads the flags from each subcommand's `--help`, so a new flag
//! without a case here fails it: add the case (a run and what the flag
//! visibly does, or the refusal). Flags that need hardware this machine
//! lacks must end in exit 1 with a message naming the missing GPU, not in
//! a silent success. Profiling runs against a stand-in `ncu` (a shell
//! script) that records its arguments, so `profile`'s flags are checked
//! for what they pass to Nsight Compute.

use std::collections::BTreeMap;
use std::path::Path;

use assert_cmd::Command;

use crate::support::{repo, stand_in_ncu};

/// What a run gave.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// The visible effect a flag must have on a run (in its folder).
type Effect = Box<dyn Fn(&Run, &Path) -> bool>;

/// What a flag must do.
enum Expect {
    /// Exit 0, and the check holds (the flag's visible effect).
    Works(Effect),
    /// Exit 1 (the run was stopped, as the flag asks), and the check holds.
    Stops(Effect),
    /// Exit 2 with a message.
    Refused,
    /// Exit 1 with a message about the missing GPU (or driver): the flag
    /// was taken and the command went as far as this machine allows.
    NeedsGpu,
}

fn works(check: impl Fn(&Run, &Path) -> bool + 'static) -> Expect {
    Expect::Works(Box::new(check))
}

fn run(dir: &Path, args: &[String]) -> Run {
    let out = Command::cargo_bin("roofline")
        .unwrap()
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        // `timeline` runs the stand-in program (fake-cuda-app), which writes the
        // records the injection library would: the library need only exist.
        .env("ROOFLINE_INJECT_LIB", dir.join("libroofline_inject.so"))
        .env_remove("CUDA_INJECTION64_PATH")
        .env_remove("NVTX_INJECTION64_PATH")
        .args(args)
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The long flags a `--help` documents (their definition lines, not the
/// flags mentioned in other flags' help).
fn documented_flags(help: &str) -> Vec<String> {
    help.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("  -").map(|r| format!("-{r}")).filter(|_| l.as_bytes().get(4) == Some(&b','));
            let rest = rest.or_else(|| l.strip_prefix("      --").map(|r| format!("--{r}")))?;
            let long = rest.split_whitespace().find(|w| w.starts_with("--"))?;
            Some(long.trim_end_matches(',').to_string())
        })
        .collect()
}

fn subcommands(help: &str) -> Vec<String> {
    let start = help.find("Commands:").unwrap();
    help[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("    "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect()
}

fn ncu_args(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("ncu-args")).unwrap_or_default()
}

/// The run every flag of a subcommand is added to, and whether it needs a GPU.
fn base(sub: &str, dir: &Path) -> (Vec<String>, bool) {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    match sub {
        "tour" => (s(&["tour", "--bundled"]), false),
        "peaks" => (s(&["peaks", "--gpu", "h200"]), false),
        "bench" => (s(&["bench"]), true),
        "model" => (s(&["model", "kernels.toml"]), false),
        "profile" => {
            let ncu = stand_in_ncu(dir, Path::new(&repo("tests/fixtures/tour/examples.ncu.csv"))).display().to_string();
            // Two passes by default: the stand-in program's timeline, then the stand-in ncu.
            (vec!["profile".into(), "--ncu".into(), ncu, "--".into(), "./fake-cuda-app".into()], false)
        }
        "import" => (s(&["import", "capture.csv"]), false),
        "report" => (s(&["report", "a.json"]), false),
        "check" => (s(&["check", "a.json", "--kernel", "vecadd=1"]), false),
        "diff" => (s(&["diff", "a.json", "a.json"]), false),
        "occupancy" => (s(&["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "40"]), false),
        "sol" => (s(&["sol", "gemm m=64 n=64 k=64 bf16", "--gpu", "h200"]), false),
        "timeline" => (s(&["timeline", "--", "./fake-cuda-app"]), false),
        "merge" => (s(&["merge", "a.json"]), false),
        other => panic!("no base run for `roofline {other}`: add one"),
    }
}

/// The case for a flag: the arguments it is given with and what it must do.
fn case(sub: &str, flag: &str, dir: &Path) -> Option<(Vec<&'static str>, Expect)> {
    let has = |s: &'static str| works(move |r: &Run, _: &Path| r.stdout.contains(s));
    let file = |f: &'static str| works(move |_: &Run, d: &Path| d.join(f).is_file());
    let ncu_got = |s: &'static str| works(move |_: &Run, d: &Path| ncu_args(d).lines().any(|l| l == s));
    let lib_got = |s: &'static str| {
        works(move |_: &Run, d: &Path| {
            std::fs::read_to_string(d.join("lib-env")).is_ok_and(|e| e.lines().any(|l| l == s))
        })
    };
    let _ = dir;
    Some(match (sub, flag) {
        // Global flags, on every command.
        (_, "--format") => {
            (vec!["--format", "json"], works(|r, _| serde_json::from_str::<serde_json::Value>(&r.stdout).is_ok()))
        }
        (_, "--output") => (vec!["-o", "out.json"], file("out.json")),
        // Quiet keeps the warnings and drops everything else (progress, "wrote ...").
        (_, "--quiet") => {
            (vec!["-q"], works(|r, _| r.stderr.lines().all(|l| l.starts_with("warning: ") || l.trim().is_empty())))
        }
        ("report", "--wide") => (vec!["--wide"], Expect::Refused),
        (_, "--wide") => (vec!["--wide", "--format", "json"], Expect::Refused),
        // A page has nothing to colour: the choice is for the terminal and stderr.
        ("report", "--color") => (vec!["--color", "always"], works(|r, _| r.stdout.starts_with("<!DOCTYPE"))),
        (_, "--color") => (vec!["--color", "always"], works(|r, _| r.stdout.contains("\u{1b}["))),
        (_, "--help") => (vec!["--help"], has("Usage:")),
        (_, "--version") => (vec!["--version"], has("roofline")),
        // tour
        ("tour", "--bundled") => (vec![], works(|r, _| r.stdout.contains("data: bundled"))),
        ("tour", "--out-dir") => (vec!["--out-dir", "elsewhere"], file("elsewhere/report.html")),
        ("tour", "--device" | "--ncu" | "--no-ncu") => (vec![flag_value(flag)], Expect::Refused),
        // peaks
        ("peaks", "--gpu") => (vec![], has("H200")),
        ("peaks", "--list") => (vec!["--list"], has("t4")),
        ("peaks", "--device" | "--all-devices") => (vec![flag_value(flag)], Expect::Refused),
        // bench: all need the GPU, but an unknown benchmark is bad input first.
        ("bench", "--device" | "--all-devices" | "--quick") => (vec![flag_value(flag)], Expect::NeedsGpu),
        ("bench", "--only") => (vec!["--only", "dram"], Expect::NeedsGpu),
        // model, import, profile: the machine and the kernels
        ("model", "--kernel") => (vec!["-k", "extra_kernel: flops=2 bytes=8 time=1us"], has("extra_kernel")),
        ("model" | "import" | "profile", "--gpu") => (vec!["--gpu", "a100-80gb"], has("A100")),
        ("model" | "import" | "profile", "--machine") => (vec!["--machine", "machine.json"], has("NVIDIA H200")),
        ("model" | "import" | "profile", "--peak" | "--bandwidth") => {
            (vec!["--peak", "7 TFLOP/s", "--bandwidth", "700 GB/s"], has("7 TFLOP/s peak"))
        }
        ("model" | "import" | "profile", "--peak-kind") => {
            // An FP64 roof alone: the FP32 work has no roof to be judged against.
            (vec!["--peak", "7 TFLOP/s", "--bandwidth", "700 GB/s", "--peak-kind", "fp64"], has("no FP32"))
        }
        ("import" | "profile", "--bytes") => (vec!["--bytes", "nersc", "--wide"], has("lts__t_bytes")),
        ("import" | "profile", "--per-launch") => (vec!["--per-launch", "--wide"], has("fma_loop_x1 #")),
        ("import", "--ncu") => (vec!["--ncu", "/usr/bin/true"], Expect::Refused),
        // A CSV is no trace to compare (shown working in `shapes::`).
        ("import", "--with-counters") => (vec!["--with-counters", "capture.csv"], Expect::Refused),
        // sol: the base names --gpu h200; another machine on top is refused.
        ("sol", "--gpu") => (vec![], has("NVIDIA H200")),
        ("sol", "--machine") => (vec!["--machine", "machine.json"], Expect::Refused),
        ("sol", "--peak" | "--bandwidth") => (vec!["--peak", "7 TFLOP/s", "--bandwidth", "700 GB/s"], Expect::Refused),
        // --peak-kind without --peak would do nothing: refused.
        ("sol", "--peak-kind") => (vec!["--peak-kind", "fp64"], Expect::Refused),
        // profile: what reaches ncu
        ("profile", "--ncu") => (vec![], works(|_, d| !ncu_args(d).is_empty())),
        ("profile", "--kernel-name") => (vec!["-k", "regex:gemm"], ncu_got("regex:gemm")),
        ("profile", "--launch-count") => (vec!["-c", "7"], ncu_got("7")),
        ("profile", "--launch-skip") => (vec!["-s", "5"], ncu_got("5")),
        // Alone, by the range's window in the timeline; with -k, ncu's own filter.
        ("profile", "--nvtx-include") => (
            vec!["--nvtx-include", "step 0/"],
            works(|r, d| r.stderr.contains("range window(s), from every thread") && !ncu_args(d).contains("step 0/")),
        ),
        ("profile", "--nvtx-exclude") => (vec!["--nvtx-exclude", "warmup/"], ncu_got("warmup/")),
        ("profile", "--clock-control") => (vec!["--clock-control", "base"], ncu_got("base")),
        // Units are chosen when ncu's report is read back as CSV.
        ("profile", "--print-units") => (
            vec!["--print-units", "auto"],
            works(|_, d| {
                std::fs::read_to_string(d.join("import-args")).unwrap_or_default().lines().any(|l| l == "auto")
            }),
        ),
        ("profile", "--metrics") => (
            vec!["--metrics", "gpu__time_duration.sum,dram__bytes.sum"],
            ncu_got("gpu__time_duration.sum,dram__bytes.sum"),
        ),
        ("profile", "--ncu-arg") => (vec!["--ncu-arg", "--cache-control=none"], ncu_got("--cache-control=none")),
        ("profile", "--timeout") => {
            std::fs::write(dir.join("sleep"), "30").unwrap();
            let stopped = |r: &Run, _: &Path| r.stderr.contains("--timeout") && r.stdout.contains("fma_loop");
            (vec!["--timeout", "1", "--one-pass"], Expect::Stops(Box::new(stopped)))
        }
        // Two passes: the plan's filters reach ncu.
        ("profile", "--coverage") => (vec!["--coverage", "100"], ncu_got("regex:^(_Z6vecaddPKfS0_Pfi|_Z5scalePfi)$")),
        ("profile", "--launches-per-kernel") => (vec!["--launches-per-kernel", "3"], ncu_got("3")),
        // The stand-in program's one step holds every launch: --steps all and --skip 0 keep them.
        ("profile", "--steps") => (
            vec!["--steps", "all", "--format", "json"],
            works(|r, _| r.stdout.contains("\"launches\": 5") && !r.stdout.contains("\"steady\"")),
        ),
        ("profile", "--skip") => (vec!["--skip", "0"], works(|r, d| r.code == 0 && !ncu_args(d).is_empty())),
        ("profile", "--budget") => (
            vec!["--budget", "1s"],
            Expect::Stops(Box::new(|r: &Run, d: &Path| {
                r.stderr.contains("--budget fits no kernel") && ncu_args(d).is_empty()
            })),
        ),
        ("profile", "--group-by") => (
            vec!["--group-by", "nvtx", "--format", "json"],
            works(|r, _| r.stdout.contains("\"group_by\": \"labels\"") && r.stdout.contains("\"step 0\"")),
        ),
        ("profile", "--one-pass") => (
            vec!["--one-pass"],
            works(|r, d| {
                r.stdout.contains("fma_loop") && !ncu_args(d).contains("--filter-mode") && !d.join("lib-env").exists()
            }),
        ),
        ("profile", "--save-csv") => (vec!["--save-csv", "raw.csv"], file("raw.csv")),
        ("profile", "--collectives") => (vec!["--collectives", "only"], ncu_got("regex:^nccl")),
        ("merge", "--machine") => (vec!["--machine", "machine.json"], has("NVIDIA H200")),
        // report
        ("report", "--svg") => (vec!["--svg", "chart.svg"], file("chart.svg")),
        ("report", "--title") => (vec!["--title", "My chart title"], has("My chart title")),
        ("report", "--width") => (vec!["--width", "640"], has("width=\"640\"")),
        // The bundled capture (2026-12-02) has instruction counters: the instruction view
        // (its refusal without them is in `view_instructions_shows_the_binding_pipes`).
        ("import" | "profile" | "report", "--view") => (vec!["--view", "instructions"], has("binding pipe")),
        // Only the kernels the pattern matches (issue 28, item 6).
        ("import" | "report", "--kernels") => (
            vec!["--kernels", "^vecadd$", "--format", "csv"],
            works(|r, _| r.stdout.contains("vecadd") && !r.stdout.contains("saxpy")),
        ),
        ("import" | "report", "--group-by") => (vec!["--group-by", "library"], has("GPU time by library")),
        // check
        ("check", "--kernels") => (
            vec!["--kernels", "^saxpy$"],
            Expect::Stops(Box::new(|r: &Run, _: &Path| {
                r.stdout.contains("kernel.present") && r.stdout.contains("vecadd")
            })),
        ),
        // Groups judged in place of kernels: the stand-in kernels are all "user code",
        // and no kernel is left named vecadd.
        ("check", "--group-by") => (
            vec!["--group-by", "library", "--min-pct-of-roof", "1"],
            Expect::Stops(Box::new(|r: &Run, _: &Path| {
                r.stdout.contains("user code [") && r.stdout.contains("kernel.present")
            })),
        ),
        ("check", "--config") => (vec!["--config", "rules.toml"], has("fused")),
        ("check", "--min-pct-of-roof") => (vec!["--min-pct-of-roof", "2"], has("min_pct_of_roof")),
        ("check", "--min-time-share") => {
            (vec!["--min-time-share", "20", "--min-pct-of-roof", "2"], has("below min_time_share_pct"))
        }
        ("check", "--kernel") => (vec!["--kernel", "fused=1"], has("kernel.min_pct_of_roof")),
        // Accepted; what it changes (a check that judged nothing passes) is
        // `a_check_that_judged_nothing_fails_unless_allowed`'s.
        ("check", "--allow-empty") => (vec!["--allow-empty"], has("vecadd")),
        ("check", "--sol") => (vec!["--sol", "--format", "csv"], has("the speed of light")),
        ("check", "--baseline" | "--max-regression") => {
            (vec!["--baseline", "a.json", "--max-regression", "10"], has("regression"))
        }
        // diff
        ("diff", "--match") => (vec!["--match", "scale+add=fused+vecadd"], has("scale + add -> fused + vecadd")),
        ("diff", "--title") => (
            vec!["--title", "My diff title", "-o", "d.html"],
            works(|_, d| std::fs::read_to_string(d.join("d.html")).is_ok_and(|h| h.contains("My diff title"))),
        ),
        // occupancy
        ("occupancy", "--gpu") => (vec![], has("H200")),
        ("occupancy", "--cc") => (vec!["--cc", "8.6"], Expect::Refused),
        ("occupancy", "--threads") => (vec![], has("256 threads/block")),
        ("occupancy", "--regs") => (vec![], has("40 registers/thread")),
        ("occupancy", "--smem-static") => (vec!["--smem-static", "48K"], has("49152 B static")),
        ("occupancy", "--smem-dynamic") => (vec!["--smem-dynamic", "16K"], has("16384 B dynamic")),
        ("occupancy", "--carveout") => {
            (vec!["--carveout", "50", "--format", "json"], works(|r, _| r.stdout.contains("\"carveout_pct\": 50")))
        }
        ("occupancy", "--barriers") => (
            vec!["--barriers", "16", "--format", "json"],
            works(|r, _| r.stdout.contains("\"barriers_per_block\": 16")),
        ),
        ("occupancy", "--sweep") => (vec!["--sweep", "regs"], has("Occupancy against registers")),
        ("occupancy", "--svg-dir") => {
            (vec!["--sweep", "block", "--svg-dir", "charts"], file("charts/occupancy-block.svg"))
        }
        ("occupancy", "--verify-device") => (vec!["--verify-device"], Expect::NeedsGpu),
        ("occupancy", "--grid-csv") => (vec!["--grid-csv", "grid.csv"], Expect::Refused),
        ("occupancy", "--grid-json") => (vec!["--grid-json", "grid.json"], Expect::Refused),
        // timeline, over the stand-in program's records
        ("timeline", "--timeout") => {
            std::fs::write(dir.join("sleep"), "30").unwrap();
            let stopped = |r: &Run, _: &Path| r.stderr.contains("--timeout") && r.stdout.contains("vecadd");
            (vec!["--timeout", "1"], Expect::Stops(Box::new(stopped)))
        }
        // What reaches the injection library, which applies it in the program.
        ("timeline", "--target-processes") => {
            (vec!["--target-processes", "application-only"], lib_got("ROOFLINE_TIMELINE_TARGET=application-only"))
        }
        ("timeline", "--cupti") => (vec!["--cupti", "no-such-libcupti.so"], Expect::Refused),
        ("timeline", "--inject-lib") => (vec!["--inject-lib", "no-such-lib.so"], Expect::Refused),
        ("timeline", "--no-nvtx") => (vec!["--no-nvtx"], lib_got("ROOFLINE_TIMELINE_NVTX=0")),
        ("timeline", "--no-launch-calls") => (vec!["--no-launch-calls"], lib_got("ROOFLINE_TIMELINE_API=0")),
        ("timeline", "--records") => (
            vec!["--records", "recs"],
            works(|_, d| std::fs::read_dir(d.join("recs")).is_ok_and(|mut e| e.next().is_some())),
        ),
        ("timeline", "--top") => {
            (vec!["--top", "1"], works(|r, _| r.stdout.contains("vecadd") && !r.stdout.contains("scale(")))
        }
        ("timeline", "--gaps") => (vec!["--gaps", "0"], works(|r, _| !r.stdout.contains("gap "))),
        _ => return None,
    })
}

/// A flag without a value, or with a harmless one.
fn flag_value(flag: &str) -> &'static str {
    match flag {
        "--device" => "--device=0",
        "--ncu" => "--ncu=/usr/bin/true",
        "--no-ncu" => "--no-ncu",
        "--all-devices" => "--all-devices",
        "--quick" => "--quick",
        other => panic!("no value for {other}"),
    }
}

/// A stand-in CUDA program for `timeline`: writes, into the folder the
/// tool names, the record file libroofline_inject.so would (docs/timeline.md):
/// two kernels (vecadd on two streams, scale) inside an NVTX range `step 0`.
/// It writes the environment the tool gave the library to `lib-env`; with a
/// file `sleep` it then sleeps that many seconds. Outside a recording (under
/// the stand-in ncu) it does nothing.
const FAKE_CUDA_APP: &str = r#"#!/bin/sh
[ -n "$ROOFLINE_TIMELINE_DIR" ] || exit 0
env | grep '^ROOFLINE_TIMELINE_' > lib-env
f="$ROOFLINE_TIMELINE_DIR/$$.jsonl"
now=$(date +%s%N)
printf '{"t":"header","format":"roofline.records/v1","pid":%s,"ppid":1,"exe":"/bin/sh","cmdline":["fake"],"clock":{"cupti_ns":5000000000,"unix_ns":%s}}\n' $$ "$now" > "$f"
printf '{"t":"name","id":1,"s":"_Z6vecaddPKfS0_Pfi"}\n{"t":"name","id":2,"s":"step 0"}\n{"t":"name","id":3,"s":"cudaLaunchKernel_v7000"}\n{"t":"name","id":4,"s":"_Z5scalePfi"}\n' >> "$f"
printf '{"t":"marker","id":1,"flag":"start","ts":5000000000,"pid":%s,"tid":1,"name":2}\n' $$ >> "$f"
i=0
while [ $i -lt 4 ]; do
  s=$((5000100000 + i * 10000)); e=$((s + 1000 * (i + 1)))
  printf '{"t":"api","name":3,"start":%s,"end":%s,"tid":1,"corr":%s}\n' $((s - 50000)) $((s - 49000)) $i >> "$f"
  printf '{"t":"kernel","name":1,"start":%s,"end":%s,"dev":0,"ctx":1,"stream":%s,"corr":%s,"grid":[64,1,1],"block":[256,1,1]}\n' $s $e $((7 + i % 2)) $i >> "$f"
  i=$((i+1))
done
printf '{"t":"kernel","name":4,"start":5000900000,"end":5000900500,"dev":0,"ctx":1,"stream":7,"corr":9,"grid":[8,1,1],"block":[128,1,1]}\n' >> "$f"
printf '{"t":"marker","id":1,"flag":"end","ts":5001000000,"pid":%s,"tid":1}\n' $$ >> "$f"
if [ -f sleep ]; then sleep "$(cat sleep)"; fi
printf '{"t":"end","reason":"exit","records":20}\n' >> "$f"
"#;

/// A copy of `template` (a folder `setup` made) in `dir`: every case starts
/// from the same files without importing the capture again (196 imports of
/// the debug binary were half this test's time).
fn copy_setup(template: &Path, dir: &Path) {
    for entry in std::fs::read_dir(template).unwrap() {
        let entry = entry.unwrap();
        // std::fs::copy keeps the permissions: fake-cuda-app stays executable.
        std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
}

fn setup(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(dir.join("fake-cuda-app"), FAKE_CUDA_APP).unwrap();
    std::fs::set_permissions(dir.join("fake-cuda-app"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(dir.join("libroofline_inject.so"), b"").unwrap();
    std::fs::copy(repo("tests/fixtures/tour/examples.ncu.csv"), dir.join("capture.csv")).unwrap();
    std::fs::copy(repo("tests/fixtures/tour/machine.json"), dir.join("machine.json")).unwrap();
    let a = run(
        dir,
        &[
            "import".into(),
            "capture.csv".into(),
            "--machine".into(),
            "machine.json".into(),
            "-o".into(),
            "a.json".into(),
        ],
    );
    assert_eq!(a.code, 0, "{}", a.stderr);
    std::fs::write(
        dir.join("kernels.toml"),
        "[machine]\ngpu = \"t4\"\n[[kernel]]\nname = \"vecadd\"\nflops = 1\nbytes = 12\nelements = 1000000\ntime = \"20us\"\n",
    )
    .unwrap();
    std::fs::write(dir.join("rules.toml"), "[[kernel]]\nname = \"fused\"\nmin_pct_of_roof = 10\n").unwrap();
}

#[test]
fn every_documented_flag_works_or_is_refused() {
    let gpu = roofline_gpu::device::device_count().is_ok();
    let top = run(Path::new("."), &["--help".into()]);
    let subs = subcommands(&top.stdout);
    assert!(subs.len() >= 10, "{subs:?}");
    let mut missing = Vec::new();
    let mut checked: BTreeMap<String, usize> = BTreeMap::new();
    let template = tempfile::tempdir().unwrap();
    setup(template.path());
    for sub in &subs {
        let help = run(Path::new("."), &[sub.clone(), "--help".into()]);
        let flags = documented_flags(&help.stdout);
        assert!(flags.contains(&"--format".to_string()), "{sub}: {flags:?}");
        for flag in flags {
            let dir = tempfile::tempdir().unwrap();
            copy_setup(template.path(), dir.path());
            let (mut args, needs_gpu) = base(sub, dir.path());
            let Some((extra, expect)) = case(sub, &flag, dir.path()) else {
                missing.push(format!("{sub} {flag}"));
                continue;
            };
            let exits_early = matches!(flag.as_str(), "--help" | "--version");
            let expect =
                if needs_gpu && !exits_early && !matches!(expect, Expect::Refused) { Expect::NeedsGpu } else { expect };
            if gpu && matches!(expect, Expect::NeedsGpu) {
                roofline_gpu::skip_notice(&format!(
                    "{sub} {flag}: a GPU is present; the no-GPU outcome is not checked here"
                ));
                continue;
            }
            // Flags after `--` would go to the program: insert before it.
            let at = args.iter().position(|a| a == "--").unwrap_or(args.len());
            args.splice(at..at, extra.iter().map(|s| s.to_string()));
            let r = run(dir.path(), &args);
            let what = format!(
                "`roofline {}` (exit {})\nstdout: {}\nstderr: {}",
                args.join(" "),
                r.code,
                r.stdout.chars().take(1500).collect::<String>(),
                r.stderr
            );
            match expect {
                Expect::Works(check) => {
                    assert!(r.code == 0 && check(&r, dir.path()), "{flag} had no visible effect: {what}")
                }
                Expect::Stops(check) => {
                    assert!(r.code == 1 && check(&r, dir.path()), "{flag} did not stop the run: {what}")
                }
                Expect::Refused => {
                    assert!(r.code == 2 && !r.stderr.trim().is_empty(), "{flag} should be refused with exit 2: {what}")
                }
                Expect::NeedsGpu => {
                    let e = r.stderr.to_lowercase();
                    assert!(r.code == 1 && (e.contains("gpu") || e.contains("driver")), "{flag} without a GPU: {what}");
                }
            }
            *checked.entry(sub.clone()).or_default() += 1;
        }
    }
    assert!(missing.is_empty(), "documented flags with no case in this test (add one): {missing:?}");
    eprintln!("flags checked per command: {checked:?}");
}

#[test]
fn flags_are_read_from_help_definition_lines_only() {
    let help = "Options:\n      --min-pct-of-roof <PCT>  Every kernel\n      --min-time-share <PCT>   Only kernels held to\n                               --min-pct-of-roof.\n  -o, --output <FILE>  Also\n";
    assert_eq!(documented_flags(help), ["--min-pct-of-roof", "--min-time-share", "--output"]);
}

#[test]
fn view_instructions_shows_the_binding_pipes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let capture = repo("tests/fixtures/external/h200-2026-11-30/pytorch_full_a.csv");
    let machine = repo("tests/fixtures/machines/h200-measured.machine.json");
    let args = |extra: &[&str]| {
        let mut v: Vec<String> = vec!["import".into(), capture.clone(), "--machine".into(), machine.clone()];
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let r = run(d, &args(&["--view", "instructions"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("binding pipe") && r.stdout.contains("FMA (FP32, IMAD)"), "{}", r.stdout);
    assert!(r.stdout.contains("Ginst/s") && r.stdout.contains("measured"), "{}", r.stdout);
    let r = run(d, &args(&["--view", "instructions", "--format", "chart"]));
    assert!(r.code == 0 && r.stdout.contains("Instruction roofline of NVIDIA H200"), "{}", r.stdout);
    let r = run(d, &args(&["--view", "auto", "--format", "markdown"]));
    assert!(r.code == 0 && r.stdout.contains("Instruction roofline of the 1 kernel"), "{}", r.stdout);
    // The default is the FLOP view.
    let r = run(d, &args(&[]));
    assert!(r.code == 0 && !r.stdout.contains("binding pipe"), "{}", r.stdout);
    // `report` of a saved analysis, and its refusal without counters.
    let r = run(d, &args(&["--format", "json", "-o", "a.json"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = run(
        d,
        &["report".into(), "a.json".into(), "--view".into(), "instructions".into(), "-o".into(), "i.html".into()],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let html = std::fs::read_to_string(d.join("i.html")).unwrap();
    assert!(html.contains("Instruction roofline chart") && html.contains("warp instructions per 32-byte transaction"));
    // A capture without instruction counters: the view is refused.
    let bare = repo("tests/fixtures/ncu/h200_seed000_metrics.csv");
    let r = run(d, &["import".into(), bare, "--view".into(), "instructions".into()]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}
