//! A roofline without counters (issue 29), end to end: `import` of the
//! PyTorch profiler traces recorded on the H200 with `record_shapes=True`,
//! `--with-counters` against the ncu captures of the same programs,
//! `roofline sol` and `check --sol`.

use std::io::Read;

use crate::support::{json_bytes as json, repo, roofline};

const DIR: &str = "tests/fixtures/external/h200-2026-12-01";
const PROGRAMS: [&str; 4] = ["vit_infer", "gpt2_train", "resnet50_train", "compiled_mlp_train"];
/// The traces of the second grading's programs (issue 25's rounds 3 and 4).
const MORE: &str = "tests/fixtures/external/h200-2026-12-02";
const MORE_PROGRAMS: [&str; 8] = [
    "bert_train",
    "convnext_train",
    "efficientnet_infer",
    "llama_decode",
    "lstm_train",
    "mobilenet_train",
    "swin_infer",
    "wav2vec_infer",
];

fn trace(program: &str) -> String {
    let dir = if MORE_PROGRAMS.contains(&program) { MORE } else { DIR };
    repo(&format!("{dir}/traces/{program}.trace.json.gz"))
}

fn counters(program: &str) -> String {
    repo(&format!("{DIR}/{program}.full.csv"))
}

fn stdout_json(args: &[&str]) -> serde_json::Value {
    let out = roofline().args(args).assert().success().get_output().stdout.clone();
    json(&out)
}

/// The CPU time (user + system, seconds) of `roofline ARGS` (`NO_COLOR=1`),
/// read from the child's own resource usage: other tests running beside it
/// on a loaded machine stretch its wall time, not its CPU time. With its
/// stdout, so that the run timed is the run checked.
// The child is reaped by wait4, which also gives its resource usage.
#[allow(clippy::zombie_processes)]
fn cpu_seconds(args: &[&str]) -> (f64, Vec<u8>) {
    let mut child = std::process::Command::new(crate::support::bin())
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut stdout).unwrap();
    let mut status = 0;
    // SAFETY: wait4 on our own child's pid, with valid pointers to locals.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "roofline {args:?}: status {status}");
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    (secs(usage.ru_utime) + secs(usage.ru_stime), stdout)
}

#[test]
fn a_trace_imports_in_under_two_seconds_with_every_number_marked_estimated() {
    for p in PROGRAMS.into_iter().chain(MORE_PROGRAMS) {
        let (took, stdout) = cpu_seconds(&["import", &trace(p), "--format", "json"]);
        assert!(took < 2.0, "{p}: {took} s of CPU");
        let doc = json(&stdout);
        assert_eq!(doc["source"]["kind"], "pytorch_trace", "{p}");
        let kernels = doc["kernels"].as_array().unwrap();
        assert!(kernels.len() > 5, "{p}");
        for k in kernels {
            assert_eq!(k["kernel"]["origin"], "estimated", "{p}: {}", k["kernel"]["name"]);
        }
        // Placed under the H200's theoretical roofs, the trace's own GPU.
        assert_eq!(doc["machine"]["name"], "NVIDIA H200", "{p}");
        let warnings = doc["warnings"].to_string();
        assert!(warnings.contains("estimated from the operators' recorded shapes"), "{p}: {warnings}");
    }
}

#[test]
fn the_terminal_view_says_the_numbers_are_estimated() {
    let out = roofline().args(["import", &trace("vit_infer"), "--wide"]).assert().success().get_output().clone();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("estimated from shapes"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("not counted"));
}

#[test]
fn useful_flops_are_told_apart_from_issued_ones() {
    // GPT-2's causal attention: 10 of 16 tiles of 128 run, and half the
    // scores of those are masked; 513/1024 of the square is useful.
    let doc = stdout_json(&["import", &trace("gpt2_train"), "--format", "json"]);
    let warnings = doc["warnings"].to_string();
    assert!(warnings.contains("placed by their issued FLOPs"), "{warnings}");
    assert!(warnings.contains("aten::_cudnn_attention_forward"), "{warnings}");
    // 513/1024 useful of the square, 10/16 of it issued: 80.2%.
    assert!(warnings.contains("(80%)"), "{warnings}");
}

#[test]
fn vit_gemm_flops_are_the_hand_count_of_its_linear_layers() {
    // ViT-B/16 at batch 64: 64·197 = 12,608 tokens; per layer the qkv
    // (768→2304), proj (768→768), fc1 (768→3072) and fc2 (3072→768) GEMMs,
    // 2·12608·768·(2304 + 768 + 3072 + 3072) FLOPs, times 12 layers, all
    // on one cuBLAS kernel of 48 launches.
    let doc = stdout_json(&["import", &trace("vit_infer"), "--format", "json"]);
    let k =
        doc["kernels"].as_array().unwrap().iter().find(|k| k["kernel"]["launches"] == 48).expect("the 48-launch GEMM");
    let expected = 2.0 * 12608.0 * 768.0 * (2304.0 + 768.0 + 3072.0 + 3072.0) * 12.0;
    assert_eq!(k["kernel"]["flops"]["tensor_fp16"].as_f64().unwrap(), expected);
}

#[test]
fn a_plain_json_trace_reads_as_the_gzipped_one() {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(trace("compiled_mlp_train")).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("step.json");
    std::fs::write(&plain, text).unwrap();
    let a = stdout_json(&["import", plain.to_str().unwrap(), "--format", "json"]);
    let b = stdout_json(&["import", &trace("compiled_mlp_train"), "--format", "json"]);
    assert_eq!(a["kernels"], b["kernels"]);
}

#[test]
fn operators_the_catalogue_cannot_estimate_keep_their_time_and_are_listed() {
    // ResNet-50's SGD steps are foreach operators whose tensor lists the
    // profiler recorded without shapes.
    let out = roofline()
        .args(["import", &trace("resnet50_train"), "--format", "json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let doc = json(&out.stdout);
    let warnings = doc["warnings"].to_string();
    assert!(warnings.contains("have no estimate and keep their time only"), "{warnings}");
    assert!(warnings.contains("aten::_foreach_add_"), "{warnings}");
    assert!(warnings.contains("recorded without shapes"), "{warnings}");
    let unestimated: Vec<_> = doc["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["kernel"]["display_name"].as_str().unwrap().ends_with("(no estimate)"))
        .collect();
    assert!(!unestimated.is_empty());
    assert!(unestimated.iter().all(|k| k["kernel"]["duration_s"].as_f64().unwrap() > 0.0));
}

fn comparison(p: &str) -> serde_json::Value {
    stdout_json(&["import", &trace(p), "--with-counters", &counters(p), "--format", "json"])
}

fn class<'a>(doc: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    doc["classes"].as_array().unwrap().iter().find(|c| c["class"] == name).unwrap_or_else(|| panic!("no {name}: {doc}"))
}

#[test]
fn gemm_and_attention_flops_agree_with_the_counters_within_five_percent() {
    // The acceptance figures of issue 29 on the H200 captures: matched
    // launches, FLOPs against the counted ones. Attention's issued FLOPs
    // are whole 128x128 tiles: ViT's 197 tokens pad to 256, GPT-2's causal
    // mask skips the tiles above the diagonal.
    for p in ["vit_infer", "gpt2_train", "compiled_mlp_train"] {
        let doc = comparison(p);
        assert_eq!(doc["schema"], "roofline.shapes_vs_counters/v1");
        assert!(
            doc["matched"].as_u64().unwrap() * 10 >= doc["counter_launches"].as_u64().unwrap() * 9,
            "{p}: {}",
            doc["matched"]
        );
        let mm = class(&doc, "matmul");
        assert!(mm["flops_max_pct"].as_f64().unwrap() <= 5.0, "{p}: {mm}");
        if p != "compiled_mlp_train" {
            let att = class(&doc, "attention");
            assert!(att["flops_max_pct"].as_f64().unwrap() <= 5.0, "{p}: {att}");
        }
    }
}

#[test]
fn estimated_reads_agree_with_the_counted_dram_reads_for_norms_and_elementwise() {
    // Nsight Compute flushes the caches before each kernel, so the inputs
    // come from DRAM; an output that fits in L2 is still there when the
    // kernel ends, so the reads are what the estimate is held to.
    for p in ["vit_infer", "gpt2_train", "resnet50_train"] {
        let doc = comparison(p);
        for c in ["normalisation", "elementwise"] {
            let row = class(&doc, c);
            assert!(row["read_median_pct"].as_f64().unwrap() <= 15.0, "{p} {c}: {row}");
        }
    }
}

#[test]
fn norm_and_elementwise_bytes_agree_with_the_dram_traffic_they_cause_within_fifteen_percent() {
    // Issue 29's acceptance: elementwise and normalisation bytes within 15%
    // of DRAM bytes, per kernel. Nsight Compute's `dram__bytes` leaves out
    // the write-back of an output still dirty in L2 when the kernel ends; the
    // traffic (DRAM reads + L2 writes x 32 B) counts it.
    for p in ["vit_infer", "gpt2_train", "resnet50_train", "compiled_mlp_train"] {
        let doc = comparison(p);
        for k in doc["kernels"].as_array().unwrap() {
            let family = k["class"].as_str().unwrap_or("");
            if !["normalisation", "elementwise"].contains(&family) {
                continue;
            }
            if let Some(e) = k["traffic_error_pct"].as_f64() {
                assert!(e.abs() <= 15.0, "{p}: {k}");
            }
        }
        for c in ["normalisation", "elementwise"] {
            if let Some(row) = doc["classes"].as_array().unwrap().iter().find(|r| r["class"] == c) {
                assert!(row["traffic_kernels"].as_u64().unwrap() > 0, "{p} {c}: {row}");
            }
        }
    }
}

#[test]
fn estimated_positions_under_the_dram_roofline_are_the_counted_ones_for_ninety_percent_of_the_time() {
    // Like for like: the estimate's FLOPs, bytes and trace time against the
    // counted FLOPs, DRAM traffic and ncu's time, both placed on or under
    // the diagonal or the flat roof of the same (theoretical) roofs.
    let (mut same, mut judged) = (0.0, 0.0);
    for p in ["vit_infer", "gpt2_train", "resnet50_train", "compiled_mlp_train"] {
        let doc = comparison(p);
        let t = doc["place_time_s"].as_f64().unwrap();
        assert!(t > 0.0, "{p}: {doc}");
        same += doc["place_agreement_pct"].as_f64().unwrap() / 100.0 * t;
        judged += t;
        for k in doc["kernels"].as_array().unwrap() {
            if k["est_position"].is_string() {
                assert!(k["counted_position"].is_string() && k["verdict_position"].is_string(), "{p}: {k}");
            }
        }
    }
    assert!(same / judged >= 0.9, "{:.1}% of {judged} s", 100.0 * same / judged);
}

#[test]
fn estimated_positions_admit_the_counters_whole_verdict_for_ninety_percent_of_the_time() {
    // Issue 29's acceptance against the counters' whole verdict (every
    // memory level, the busiest unit). GPT-2's LM-head GEMMs (vocabulary
    // 50257, not a multiple of 8) are 7.9 ms of the 11.5 ms judged: the
    // shapes say cuBLAS runs them as unaligned fallbacks held by their L1
    // load path, and the estimate claims "on or under the L1 diagonal"
    // where its DRAM place says "under the flat roof". Without that rule
    // the figure is 24%.
    let (mut admitted, mut strict, mut judged) = (0.0, 0.0, 0.0);
    let mut unaligned = 0;
    for p in ["vit_infer", "gpt2_train", "resnet50_train", "compiled_mlp_train"] {
        let doc = comparison(p);
        let t = doc["verdict_time_s"].as_f64().unwrap();
        admitted += doc["verdict_agreement_pct"].as_f64().unwrap() / 100.0 * t;
        strict += doc["verdict_strict_agreement_pct"].as_f64().unwrap() / 100.0 * t;
        judged += t;
        for k in doc["kernels"].as_array().unwrap() {
            if k["est_verdict"] == "on or under the L1/shared diagonal" {
                unaligned += 1;
                assert_eq!(p, "gpt2_train", "{k}");
                assert_eq!(k["est_position"], "under the flat roof", "{k}");
                let v = k["verdict_position"].as_str().unwrap();
                assert!(v.ends_with("the diagonal"), "{k}");
            } else if k["est_position"].is_string() {
                assert_eq!(k["est_verdict"], k["est_position"], "{k}");
            }
        }
    }
    assert_eq!(unaligned, 3);
    assert!(admitted / judged >= 0.9, "{:.1}% of {judged} s", 100.0 * admitted / judged);
    // Counted as disagreeing, the open claims leave the figure where it was:
    // whether a fallback is on its L1 roof or under it, the shapes cannot say.
    assert!(strict / judged < 0.3, "{:.1}%", 100.0 * strict / judged);
}

#[test]
fn the_comparison_says_how_many_launches_matched() {
    let out = roofline()
        .args(["import", &trace("vit_infer"), "--with-counters", &counters("vit_infer")])
        .assert()
        .success()
        .get_output()
        .clone();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("10 of 10 counter launches"), "{text}");
    assert!(text.contains("Error by operator family"), "{text}");
}

#[test]
fn sol_of_a_gemm_is_its_flops_at_the_tensor_roof() {
    // 2·4096³ FLOPs at the H200's BF16 tensor roof, as `peaks` gives it.
    let peaks = stdout_json(&["peaks", "--gpu", "h200", "--format", "json"]);
    let roof = peaks["machine"]["ceilings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["resource"]["which"] == "tensor_bf16" && c["secondary"] != true)
        .unwrap()["rate"]
        .as_f64()
        .unwrap();
    let doc = stdout_json(&["sol", "gemm m=4096 n=4096 k=4096 bf16", "--gpu", "h200", "--format", "json"]);
    assert_eq!(doc["schema"], "roofline.sol/v1");
    assert_eq!(doc["useful_flops"].as_f64().unwrap(), 2.0 * 4096f64.powi(3));
    assert_eq!(doc["dram_bytes"].as_f64().unwrap(), 3.0 * 4096.0 * 4096.0 * 2.0);
    assert!((doc["bound_s"].as_f64().unwrap() - 2.0 * 4096f64.powi(3) / roof).abs() < 1e-15);
    assert!(doc["bound_by"].as_str().unwrap().contains("BF16"), "{doc}");
    assert_eq!(doc["origin"], "estimated");
}

#[test]
fn sol_of_a_memory_bound_operator_is_its_bytes_at_dram() {
    let peaks = stdout_json(&["peaks", "--gpu", "h200", "--format", "json"]);
    let dram = peaks["machine"]["ceilings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["resource"]["which"] == "dram" && c["secondary"] != true)
        .unwrap()["rate"]
        .as_f64()
        .unwrap();
    // layer_norm rows=4096 cols=768 fp32: x + y 2·12,582,912 B, w + b 6,144, mean and rstd 32,768.
    let doc = stdout_json(&["sol", "layer_norm rows=4096 cols=768 fp32", "--gpu", "h200", "--format", "json"]);
    let bytes = 2.0 * 12_582_912.0 + 6_144.0 + 32_768.0;
    assert_eq!(doc["dram_bytes"].as_f64().unwrap(), bytes);
    assert!((doc["bound_s"].as_f64().unwrap() - bytes / dram).abs() < 1e-15);
    assert_eq!(doc["bound_by"], "DRAM");
}

#[test]
fn check_sol_fails_a_time_twice_as_fast_as_physics_allows() {
    let dir = tempfile::tempdir().unwrap();
    // The 4096³ BF16 GEMM's bound on the H200 is about 139 µs: claim half of it.
    let (fast, slow) = (dir.path().join("fast.json"), dir.path().join("slow.json"));
    let kernel = |t: &str| format!("gemm: flops=137438953472 bytes=100663296 kind=tensor_bf16 time={t}");
    roofline().args(["model", "--gpu", "h200", "--kernel", &kernel("69us"), "-o"]).arg(&fast).assert().success();
    roofline().args(["model", "--gpu", "h200", "--kernel", &kernel("150us"), "-o"]).arg(&slow).assert().success();
    roofline()
        .args(["check", "--sol", "--format", "json"])
        .arg(&fast)
        .assert()
        .code(1)
        .stdout(predicates::str::contains("impossible, 2.01x faster than physics allows"));
    roofline().args(["check", "--sol"]).arg(&slow).assert().success();
    // The bound is a least time: the table says ">=", the JSON carries it with its unit.
    roofline()
        .args(["check", "--sol", "--format", "csv"])
        .arg(&fast)
        .assert()
        .code(1)
        .stdout(predicates::str::contains(">= 13"));
    let out = roofline().args(["check", "--sol", "--format", "json"]).arg(&fast).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let sol = doc["outcomes"].as_array().unwrap().iter().find(|o| o["rule"] == "sol").unwrap().clone();
    assert_eq!((sol["unit"].as_str(), sol["value"].as_f64()), (Some("s"), Some(69e-6)), "{sol}");
    assert!(sol["limit"].as_f64().unwrap() > 1.3e-4 && !sol["kernel_id"].as_str().unwrap().is_empty(), "{sol}");
}

#[test]
fn bad_trace_input_names_the_file_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let not_json = dir.path().join("broken.json");
    std::fs::write(&not_json, "{\"traceEvents\": [").unwrap();
    roofline()
        .arg("import")
        .arg(&not_json)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("broken.json: not JSON"))
        .stderr(predicates::str::contains("export_chrome_trace"));
    let no_shapes = dir.path().join("noshapes.json");
    std::fs::write(
        &no_shapes,
        r#"{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","ts":1,"dur":1,"args":{"External id":1}},
           {"ph":"X","cat":"kernel","name":"k","ts":2,"dur":1,"args":{"External id":1}}]}"#,
    )
    .unwrap();
    roofline().arg("import").arg(&no_shapes).assert().code(2).stderr(predicates::str::contains("record_shapes=True"));
    // --with-counters needs a trace to compare.
    roofline()
        .args(["import", &counters("vit_infer"), "--with-counters", &counters("vit_infer")])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is not a trace"));
    roofline()
        .args(["sol", "frobnicate n=3", "--gpu", "h200"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("not an operation the catalogue knows"));
    roofline()
        .args(["sol", "gemm m=4096 n=4096 k=4096 bf16"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--gpu NAME"));
    roofline()
        .args(["sol", "gemm m=4096 n=4096 bf16", "--gpu", "h200"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("k= is missing"));
}
