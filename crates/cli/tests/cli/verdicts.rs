//! The diagnosis on captures of programs nobody here wrote (issue 25), held
//! class by class: H200 captures of a torchvision ResNet-50 and a Hugging
//! Face GPT-2 training step, a timm ViT inference, a torch.compile'd MLP
//! and a CuPy program (`tests/fixtures/external/h200-2026-12-01/`), and the
//! "before" side of before/after pairs whose "after" was timed on the same
//! H200. A second set (`tests/fixtures/external/h200-2026-12-02/`: ConvNeXt,
//! BERT, Llama decode, EfficientNet, LSTM, MobileNetV3, Swin, Wav2Vec2 and
//! two CuPy programs) holds the defect classes its grading found. The
//! independent gradings are in `results/h200-2026-12-01-verdicts/` and
//! `results/h200-2026-12-02-grading/`.

use serde_json::Value;

use crate::support::{json_bytes, repo, roofline};

const DIR: &str = "tests/fixtures/external/h200-2026-12-01";
const MACHINE: &str = "tests/fixtures/machines/h200-measured.machine.json";
const CAPTURES: [&str; 5] = ["resnet50_train", "gpt2_train", "vit_infer", "compiled_mlp_train", "cupy_mix"];
/// The second grading's captures (rounds 3 and 4, `results/h200-2026-12-02-grading/`).
const MORE: &str = "tests/fixtures/external/h200-2026-12-02";
const MORE_CAPTURES: [&str; 10] = [
    "convnext_train",
    "bert_train",
    "llama_decode",
    "efficientnet_infer",
    "lstm_train",
    "cupy_signal",
    "mobilenet_train",
    "swin_infer",
    "wav2vec_infer",
    "cupy_stats",
];

fn import(path: &str) -> Value {
    let out = roofline()
        .args(["import", "--format", "json", "--machine", &repo(MACHINE)])
        .arg(repo(path))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    json_bytes(&out)
}

fn capture(name: &str) -> Value {
    if MORE_CAPTURES.contains(&name) && !CAPTURES.contains(&name) {
        return import(&format!("{MORE}/{name}.full.csv.gz"));
    }
    import(&format!("{DIR}/{name}.full.csv"))
}

fn kernels(doc: &Value) -> &Vec<Value> {
    doc["kernels"].as_array().unwrap()
}

fn moves(k: &Value) -> Vec<String> {
    k["diagnosis"]["next_moves"]
        .as_array()
        .map(|m| m.iter().map(|m| m["code"].as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

fn origin(k: &Value) -> &Value {
    k["diagnosis"]["evidence"].as_array().unwrap().iter().find(|e| e["code"] == "kernel_origin").unwrap()
}

#[test]
fn no_vendor_or_framework_kernel_is_told_to_edit_its_source() {
    // Moves that only the author of a kernel can make.
    let source_edits = [
        "coalesce",
        "check_coalescing",
        "avoid_bank_conflicts",
        "more_independent_work",
        "more_bytes_in_flight",
        "fill_the_gpu",
        "balance_waves",
        "occupancy_limited",
        "longer_launches",
        "instruction_mix",
        "pipe_work",
        "feed_tensor_cores",
    ];
    let mut vendor = 0;
    for c in CAPTURES.into_iter().chain(MORE_CAPTURES) {
        let doc = capture(c);
        for k in kernels(&doc) {
            if origin(k)["origin"]["library"] == "user" {
                continue;
            }
            vendor += 1;
            for m in moves(k) {
                assert!(!source_edits.contains(&m.as_str()), "{c}: {} told to {m}", k["kernel"]["name"]);
            }
        }
    }
    assert!(vendor > 200, "{vendor} library kernels");
}

#[test]
fn unaligned_cublas_gemms_are_told_to_pad_the_shape() {
    let doc = capture("gpt2_train");
    let unaligned: Vec<&Value> =
        kernels(&doc).iter().filter(|k| k["kernel"]["name"].as_str().unwrap().contains("_align1")).collect();
    assert_eq!(unaligned.len(), 3);
    for k in unaligned {
        assert_eq!(moves(k)[0], "pad_shape", "{}", k["diagnosis"]);
    }
    // And they are the program's top opportunities.
    let top = &doc["program"]["opportunities"][0];
    assert!(top["full_name"].as_str().unwrap().contains("_align1"), "{top}");
}

#[test]
fn gemms_at_the_measured_gemm_roof_are_on_the_roof_and_never_told_about_cooling() {
    for c in ["vit_infer", "compiled_mlp_train"] {
        let doc = capture(c);
        let gemm = kernels(&doc).iter().find(|k| k["kernel"]["name"].as_str().unwrap().starts_with("nvjet")).unwrap();
        assert_eq!(gemm["diagnosis"]["position"], "on_roof", "{c}: {}", gemm["diagnosis"]);
        let binding = &gemm["diagnosis"]["evidence"][0];
        assert_eq!(binding["code"], "binding");
        assert_eq!(binding["unit"]["which"], "tensor");
        assert_eq!(binding["basis"], "measured_gemm");
    }
    for c in CAPTURES {
        let text = serde_json::to_string(&capture(c)).unwrap();
        assert!(!text.contains("cooling"), "{c}");
    }
}

#[test]
fn the_tensor_pipe_binds_tensor_kernels_not_the_alu() {
    for c in CAPTURES {
        let doc = capture(c);
        for k in kernels(&doc) {
            let role = &origin(k)["origin"]["role"];
            let ev = &k["kernel"]["evidence"]["pipe_busy_pct"];
            let (Some(tensor), Some(alu)) = (ev["tensor"].as_f64(), ev["alu"].as_f64()) else { continue };
            if (role == "gemm" || role == "attention" || role == "convolution") && tensor > alu {
                let unit = &k["diagnosis"]["evidence"][0]["unit"];
                assert_ne!(unit["which"], "alu", "{c}: {}", k["kernel"]["name"]);
                assert_ne!(unit["which"], "xu", "{c}: {}", k["kernel"]["name"]);
            }
        }
    }
}

#[test]
fn framework_glue_gets_program_level_moves() {
    let resnet = capture("resnet50_train");
    let kinds = |doc: &Value| -> Vec<String> {
        doc["program"]["fusions"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap().to_string()).collect()
    };
    let k = kinds(&resnet);
    assert!(k.contains(&"optimizer_chain".to_string()) && k.contains(&"layout_transposes".to_string()), "{k:?}");
    for k in kernels(&resnet) {
        let name = k["kernel"]["name"].as_str().unwrap();
        if name.contains("multi_tensor_apply_kernel") {
            assert_eq!(moves(k)[0], "fused_optimizer", "{name}");
        }
        if name.contains("nchwToNhwc") || name.contains("nhwcToNchw") {
            assert_eq!(moves(k)[0], "channels_last", "{name}");
        }
    }
    let vit = capture("vit_infer");
    assert!(kinds(&vit).contains(&"epilogue".to_string()));
}

/// The pairs' measured savings (median before - median after, CUDA events,
/// `pairs/timings.tsv`), microseconds.
fn measured(pair: &str) -> f64 {
    let t = std::fs::read_to_string(repo(&format!("{DIR}/pairs/timings.tsv"))).unwrap();
    let row: Vec<&str> = t.lines().find(|l| l.starts_with(&format!("{pair}\t"))).unwrap().split('\t').collect();
    row[1].parse::<f64>().unwrap() - row[4].parse::<f64>().unwrap()
}

fn fusion_saving(doc: &Value, kind: &str) -> f64 {
    doc["program"]["fusions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == kind)
        .map(|f| f["saved_s"].as_f64().unwrap())
        .sum::<f64>()
        * 1e6
}

#[test]
fn predicted_savings_come_true_within_25_percent_where_the_h200_says_so() {
    // Padding the vocabulary from 50257 to 50304.
    let doc = import(&format!("{DIR}/pairs/vocab_pad.csv"));
    let pad: f64 = kernels(&doc)
        .iter()
        .flat_map(|k| k["diagnosis"]["next_moves"].as_array().cloned().unwrap_or_default())
        .filter(|m| m["code"] == "pad_shape")
        .map(|m| m["saving_s"].as_f64().unwrap() * 1e6)
        .sum();
    let ratio = pad / measured("vocab_pad");
    assert!((0.75..=1.25).contains(&ratio), "vocab pad: predicted {pad:.0} us, ratio {ratio:.2}");
    // A fused AdamW against the foreach one.
    let doc = import(&format!("{DIR}/pairs/fused_adamw.csv"));
    let ratio = fusion_saving(&doc, "optimizer_chain") / measured("fused_adamw");
    assert!((0.75..=1.25).contains(&ratio), "fused AdamW: ratio {ratio:.2}");
    // torch.compile of an elementwise chain.
    let doc = import(&format!("{DIR}/pairs/compiled_chain.csv"));
    let ratio = fusion_saving(&doc, "elementwise_chain") / measured("compiled_chain");
    assert!((0.75..=1.25).contains(&ratio), "compiled chain: ratio {ratio:.2}");
}

#[test]
fn solver_random_and_blas_internals_are_library_kernels_not_the_users_code() {
    for (c, needle) in [
        ("cupy_stats", "sytrd4_gpu"),
        ("cupy_stats", "curand"),
        ("cupy_signal", "kernel_trsm"),
        ("lstm_train", "region_transform"),
    ] {
        let doc = capture(c);
        let k = kernels(&doc).iter().find(|k| k["kernel"]["name"].as_str().unwrap().contains(needle)).unwrap();
        assert_ne!(origin(k)["origin"]["library"], "user", "{c}: {}", k["kernel"]["name"]);
    }
}

#[test]
fn a_tf32_gemm_with_16_byte_aligned_operands_is_offered_bf16_not_padding() {
    let doc = capture("lstm_train");
    let tf32 = kernels(&doc).iter().filter(|k| k["kernel"]["flops"]["tensor_tf32"].as_f64().unwrap_or(0.0) > 0.0);
    let mut n = 0;
    for k in tf32 {
        n += 1;
        let m = moves(k);
        assert!(!m.contains(&"pad_shape".to_string()), "{}: {m:?}", k["kernel"]["name"]);
        assert_eq!(m[0], "lower_precision", "{}", k["kernel"]["name"]);
    }
    assert!(n >= 2, "{n} TF32 GEMMs");
}

#[test]
fn cudnns_batch_norm_is_a_norm_and_the_activation_after_it_joins_its_fusion() {
    let doc = capture("mobilenet_train");
    let bn = kernels(&doc).iter().find(|k| k["kernel"]["name"].as_str().unwrap().contains("cudnn::batchnorm")).unwrap();
    assert_eq!(origin(bn)["origin"]["role"], "norm");
    let epilogue: Vec<&Value> =
        doc["program"]["fusions"].as_array().unwrap().iter().filter(|f| f["kind"] == "epilogue").collect();
    for k in kernels(&doc) {
        let name = k["kernel"]["name"].as_str().unwrap();
        if name.contains("hardswish") {
            let id = &k["kernel"]["id"];
            assert!(
                epilogue.iter().all(|f| !f["kernels"].as_array().unwrap().contains(id)),
                "{name}: not a GEMM's epilogue"
            );
        }
    }
}
