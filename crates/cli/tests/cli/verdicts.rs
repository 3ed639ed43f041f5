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

/// The fifth grading's captures (`results/h200-2026-12-02-grading/round5/`).
const ROUND5: [&str; 5] = ["dlrm_train", "regnet_train", "unet_denoise_train", "compiled_encoder_train", "t5_train"];

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

/// The sixth grading's captures (`results/h200-2026-12-02-grading/round6/`).
const ROUND6: [&str; 6] =
    ["densenet_train", "mixtral_train", "whisper_train", "fasterrcnn_infer", "cupy_cg", "deeplab_infer"];

/// The seventh grading's (`results/h200-2026-12-02-grading/round7/`).
const ROUND7: [&str; 3] = ["cupy_kmeans", "gnn_train", "roberta_fp16_train"];

/// The eighth grading's (`results/h200-2026-12-02-grading/round8/`).
const ROUND8: [&str; 5] = ["opt_train", "resnext_train", "fno_train", "cupy_image", "vit_compiled_infer"];

fn capture(name: &str) -> Value {
    if (MORE_CAPTURES.contains(&name)
        || ROUND5.contains(&name)
        || ROUND6.contains(&name)
        || ROUND7.contains(&name)
        || ROUND8.contains(&name))
        && !CAPTURES.contains(&name)
    {
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
fn the_round_8_moves_come_true_against_both_sides_under_ncu() {
    // tests/fixtures/external/h200-2026-12-02/pairs-round8/: both sides captured, the
    // saving read as the kernels' GPU time, before minus after.
    const D8: &str = "tests/fixtures/external/h200-2026-12-02/pairs-round8";
    let gpu_us = |doc: &Value| kernels(doc).iter().map(seconds).sum::<f64>() * 1e6;
    for (pair, code) in [("patchify_gemm", "conv_as_gemm"), ("kmeans_augmented_gemm", "fuse_array_ops")] {
        let before = import(&format!("{D8}/{pair}.csv.gz"));
        let after = import(&format!("{D8}/{pair}.after.csv.gz"));
        let predicted: f64 = kernels(&before).iter().map(|k| move_saving(k, code)).sum::<f64>() * 1e6;
        let ratio = predicted / (gpu_us(&before) - gpu_us(&after));
        assert!((0.75..=1.25).contains(&ratio), "{pair}: predicted {predicted:.0} us, ratio {ratio:.2}");
    }
}

#[test]
fn a_change_of_kernel_saves_what_was_predicted() {
    // The round-9 pairs (tests/fixtures/external/h200-2026-12-03/pairs/,
    // results/h200-2026-12-03-pairs-round9/), both sides under ncu with the
    // tool's own metric list: cupyx's gaussian_filter against two tiled
    // separable RawKernel passes; a naive RawKernel matmul against
    // cupy.matmul; a histogram of global atomics against a block-private one.
    const D9: &str = "tests/fixtures/external/h200-2026-12-03/pairs";
    let gpu_us = |doc: &Value| kernels(doc).iter().map(seconds).sum::<f64>() * 1e6;
    for (pair, code) in [
        ("tiled_gaussian", "specific_kernel"),
        ("library_matmul", "library_product"),
        ("shared_histogram", "aggregate_atomics"),
    ] {
        let before = import(&format!("{D9}/{pair}.csv.gz"));
        let after = import(&format!("{D9}/{pair}.after.csv.gz"));
        let predicted: f64 = kernels(&before).iter().map(|k| move_saving(k, code)).sum::<f64>() * 1e6;
        let ratio = predicted / (gpu_us(&before) - gpu_us(&after));
        assert!((0.75..=1.25).contains(&ratio), "{pair}: predicted {predicted:.0} us, ratio {ratio:.2}");
    }
}

#[test]
fn the_round_10_moves_come_true_against_both_sides_under_ncu() {
    // results/h200-2026-12-03-pairs-round10/: CuPy's one-block std and the
    // XORWOW generator against parallel routines (within 25%); a gather and
    // scatter-add against a sparse product, and a CuPy slice expression
    // against one RawKernel, both saving more than the moves book (0.71,
    // 0.58): the prediction stays under what the GPU saved.
    const D10: &str = "tests/fixtures/external/h200-2026-12-03/pairs-round10";
    let gpu_us = |doc: &Value| kernels(doc).iter().map(seconds).sum::<f64>() * 1e6;
    for (pair, move_or_fusion, code, within) in [
        ("cupy_var_parallel", "move", "serial_library_call", 0.75..=1.25),
        ("philox_normals", "move", "serial_library_call", 0.75..=1.25),
        ("sage_spmm", "fusion", "sparse_aggregation", 0.5..=1.0),
        ("cupy_heat_rawkernel", "fusion", "array_expressions", 0.5..=1.0),
    ] {
        let before = import(&format!("{D10}/{pair}.csv.gz"));
        let after = import(&format!("{D10}/{pair}.after.csv.gz"));
        let predicted = if move_or_fusion == "move" {
            kernels(&before).iter().map(|k| move_saving(k, code)).sum::<f64>() * 1e6
        } else {
            fusion_saving(&before, code)
        };
        let ratio = predicted / (gpu_us(&before) - gpu_us(&after));
        assert!(within.contains(&ratio), "{pair}: predicted {predicted:.0} us, ratio {ratio:.2}");
        // Captured with the tool's own metric list, which leaves the SM's
        // speed-of-light composite out on purpose: nothing is missing.
        let warnings = before["warnings"].to_string();
        assert!(!warnings.contains("sm__throughput"), "{pair}: {warnings}");
    }
}

#[test]
fn the_round_11_moves_against_both_sides_under_ncu() {
    // results/h200-2026-12-03-pairs-round11/: a permute cuDNN copies against
    // a channels_last view comes true within 25% (0.86); 131 against 132
    // input channels of a 1x1 convolution over-predicts (1.47): the aligned
    // kernels run at about 55% of the roof the move prices them at.
    const D11: &str = "tests/fixtures/external/h200-2026-12-03/pairs-round11";
    let gpu_us = |doc: &Value| kernels(doc).iter().map(seconds).sum::<f64>() * 1e6;
    for (pair, code, within) in
        [("permute_view", "fold_layout_copy", 0.75..=1.25), ("pad_channels", "pad_shape", 1.25..=1.6)]
    {
        let before = import(&format!("{D11}/{pair}.csv.gz"));
        let after = import(&format!("{D11}/{pair}.after.csv.gz"));
        let predicted = kernels(&before).iter().map(|k| move_saving(k, code)).sum::<f64>() * 1e6;
        let ratio = predicted / (gpu_us(&before) - gpu_us(&after));
        assert!(within.contains(&ratio), "{pair}: predicted {predicted:.0} us, ratio {ratio:.2}");
    }
}

/// results/h200-2026-12-04-pairs-round12/: argpartition against a top-k
/// through DLPack comes true within 2% (0.98); randint against a
/// Generator's int32 integers over-predicts (1.34): the Generator still
/// runs an add over its output; PyTorch's NCHW depthwise convolutions
/// against channels_last over-predict the GPU time saved (1.38): cuDNN's
/// NHWC kernels do not stream at the roof on these small maps; four
/// irfft2 against one batched come true (1.03).
#[test]
fn the_round_12_moves_against_both_sides_under_ncu() {
    const D12: &str = "tests/fixtures/external/h200-2026-12-04/pairs-round12";
    let gpu_us = |doc: &Value| kernels(doc).iter().map(seconds).sum::<f64>() * 1e6;
    for (pair, codes, within) in [
        ("topk_select", &["top_k", "library_call_internals"][..], 0.9..=1.1),
        ("randint_generator", &["library_call_internals"][..], 1.2..=1.5),
        ("depthwise_channels_last", &["depthwise_channels_last"][..], 1.2..=1.55),
        ("batched_irfft2", &["batch_transforms"][..], 0.85..=1.2),
    ] {
        let before = import(&format!("{D12}/{pair}.csv.gz"));
        let after = import(&format!("{D12}/{pair}.after.csv.gz"));
        let predicted =
            kernels(&before).iter().map(|k| codes.iter().map(|c| move_saving(k, c)).sum::<f64>()).sum::<f64>() * 1e6;
        let ratio = predicted / (gpu_us(&before) - gpu_us(&after));
        assert!(within.contains(&ratio), "{pair}: predicted {predicted:.0} us, ratio {ratio:.2}");
    }
}

/// Round 11's GPyTorch kernel matrix (K=5, 1 GB of fp32 written by an FFMA
/// cuBLAS GEMM) was "not the user's to edit"; its expert computed it where
/// it is read (-150 us). No other GEMM of the committed captures is one.
#[test]
fn a_kernel_matrix_written_by_cublas_is_computed_where_it_is_read() {
    let doc = import("tests/fixtures/external/h200-2026-12-03/gpytorch_regression.full.csv.gz");
    let gemm = kernels(&doc).iter().find(|k| k["kernel"]["name"].as_str().unwrap().contains("_ffma_")).unwrap();
    assert_eq!(first_move(gemm)["code"], "outer_product", "{}", gemm["diagnosis"]);
    let saved_us = move_saving(gemm, "outer_product") * 1e6;
    assert!((140.0..=165.0).contains(&saved_us), "{saved_us}");
    for c in [
        "h200-2026-12-03/mamba_train",
        "h200-2026-12-03/pointnet_train",
        "h200-2026-12-02/dlrm_train",
        "h200-2026-12-02/cupy_kmeans",
    ] {
        let doc = import(&format!("tests/fixtures/external/{c}.full.csv.gz"));
        for k in kernels(&doc) {
            assert_eq!(move_saving(k, "outer_product"), 0.0, "{c}: {}", k["kernel"]["name"]);
        }
    }
}

/// Round 11's PointNet gathers neighbours by advanced indexing and centres
/// them (`index_points(xyz, idx) - new_xyz`): its expert compiled the two
/// into one kernel (-100 us of the gather's 151) where the tool said "not
/// the user's to edit". The gather books its write, the subtraction after
/// it only its read.
#[test]
fn a_gather_read_by_an_elementwise_kernel_joins_its_chain_with_its_write() {
    let doc = import("tests/fixtures/external/h200-2026-12-03/pointnet_train.full.csv.gz");
    let named = |needle: &str| {
        kernels(&doc).iter().find(|k| k["kernel"]["name"].as_str().unwrap().contains(needle)).unwrap().clone()
    };
    let gather = named("index_kernel_impl");
    assert_eq!(first_move(&gather)["code"], "fuse_elementwise", "{}", gather["diagnosis"]);
    let saved = move_saving(&gather, "fuse_elementwise");
    assert!((0.35..=0.5).contains(&(saved / seconds(&gather))), "{saved}");
    // The bias add whose first launch the gather fed: that launch books
    // half of what the other three do.
    let add = named("gpu_kernel_impl_nocast<at::CUDAFunctor_add<float>");
    let share = move_saving(&add, "fuse_elementwise") / seconds(&add);
    assert!((0.55..=0.6).contains(&share), "{share}");
}

/// Every expert of rounds 3-11 moved PyTorch's same-dtype layout copy (a
/// permute made contiguous) into its producer or consumer; round 11's
/// PointNet copy at 96% of L2 was told "not the user's to edit".
#[test]
fn a_layout_copy_is_folded_into_its_neighbour_and_a_cast_is_not_taken_for_one() {
    let doc = import("tests/fixtures/external/h200-2026-12-03/pointnet_train.full.csv.gz");
    let copy = kernels(&doc)
        .iter()
        .filter(|k| k["kernel"]["name"].as_str().unwrap().contains("gpu_kernel_impl_nocast<at::direct_copy"))
        .max_by(|a, b| seconds(a).total_cmp(&seconds(b)))
        .unwrap();
    assert_eq!(first_move(copy)["code"], "fold_layout_copy", "{}", copy["diagnosis"]);
    assert!((move_saving(copy, "fold_layout_copy") - seconds(copy)).abs() < 1e-12);
    // A copy that converts (autocast's fp32 -> bf16) is a cast, not a layout copy.
    let doc = import("tests/fixtures/external/h200-2026-12-02/convnext_train.full.csv.gz");
    let casts: Vec<&Value> = kernels(&doc)
        .iter()
        .filter(|k| {
            let n = k["kernel"]["name"].as_str().unwrap();
            n.contains("direct_copy_kernel_cuda") && n.contains("LoadWithCast")
        })
        .collect();
    assert!(!casts.is_empty());
    for k in casts {
        assert_eq!(move_saving(k, "fold_layout_copy"), 0.0, "{}", k["kernel"]["name"]);
    }
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

fn named<'a>(doc: &'a Value, needle: &str) -> Vec<&'a Value> {
    kernels(doc).iter().filter(|k| k["kernel"]["name"].as_str().unwrap().contains(needle)).collect()
}

fn first_move(k: &Value) -> &Value {
    &k["diagnosis"]["next_moves"][0]
}

fn seconds(k: &Value) -> f64 {
    k["kernel"]["duration_s"].as_f64().unwrap()
}

fn binding(k: &Value) -> (String, f64) {
    let b = k["diagnosis"]["evidence"].as_array().unwrap().iter().find(|e| e["code"] == "binding").unwrap();
    (b["unit"]["which"].as_str().unwrap().to_string(), b["pct"].as_f64().unwrap())
}

/// GPyTorch's K=5 distance GEMM (round 11): FFMA 31% against issue slots at
/// 74%, its 1 GB of stores holding the slots; the expert bound it by issue,
/// the tool by the FP32 pipe.
#[test]
fn a_small_k_ffma_gemm_whose_stores_hold_the_issue_slots_is_bound_by_them() {
    let doc = import("tests/fixtures/external/h200-2026-12-03/gpytorch_regression.full.csv.gz");
    let small_k = kernels(&doc).iter().find(|k| k["kernel"]["name"].as_str().unwrap().contains("_ffma_")).unwrap();
    assert_eq!(binding(small_k).0, "issue", "{}", small_k["diagnosis"]);
}

#[test]
fn an_fp32_ffma_gemm_is_held_by_the_fp32_pipe_and_offered_tf32_against_the_tf32_roof() {
    // DLRM's MLPs in fp32: cuBLAS's FFMA GEMMs, no tensor instructions, on
    // an H200 with TF32 tensor cores.
    let doc = capture("dlrm_train");
    let ffma = named(&doc, "_ffma_");
    assert_eq!(ffma.len(), 4);
    for k in &ffma {
        let name = k["kernel"]["name"].as_str().unwrap();
        assert_eq!(binding(k).0, "fma", "{name}: the FP32 pipe binds, not the issue slots");
        assert!(k["diagnosis"]["evidence"].as_array().unwrap().iter().any(|e| e["code"] == "cuda_core_gemm"), "{name}");
        assert_ne!(k["diagnosis"]["position"], "issue_bound", "{name}");
        let m = first_move(k);
        assert_eq!(m["code"], "allow_tf32", "{name}: {}", k["diagnosis"]);
        assert!(m["text"].as_str().unwrap().contains("set_float32_matmul_precision('high')"), "{m}");
        assert!(m["rests_on"].as_str().unwrap().contains("TF32 tensor roof"), "{m}");
    }
    // The largest (128x128 tiles, 104 us, FP32 pipe at 63%): the same share
    // of a TF32 roof 5.8x the FP32 one would leave 17% of its time, but its
    // L2 traffic, at 20% of its roof today, needs 20% of it.
    let big = ffma.iter().find(|k| k["kernel"]["name"].as_str().unwrap().contains("128x128x8")).unwrap();
    assert_eq!(big["diagnosis"]["position"], "under_flat_roof");
    let l2 = big["kernel"]["evidence"]["level_busy_pct"]["l2"].as_f64().unwrap();
    assert!((19.0..21.0).contains(&l2), "{l2}");
    let share = first_move(big)["saving_s"].as_f64().unwrap() / seconds(big);
    assert!((share - (1.0 - l2 / 100.0)).abs() < 1e-9, "{share}");
    // A memory-side FP32 GEMM (cuBLAS's small-N batched GEMM) is held by its
    // bytes: TF32 does not shorten it.
    for k in named(&doc, "gemmSN_TN_kernel") {
        assert!(!moves(k).contains(&"allow_tf32".to_string()), "{}", k["diagnosis"]);
    }
    // A bf16 convolution on the CUDA cores is no TF32 candidate.
    let regnet = capture("regnet_train");
    for k in named(&regnet, "implicit_convolve_sgemm") {
        assert!(!moves(k).contains(&"allow_tf32".to_string()), "{}", k["diagnosis"]);
    }
}

#[test]
fn gathers_embeddings_and_cats_never_join_an_elementwise_chain() {
    let mut indexing = 0;
    for c in ROUND5.into_iter().chain(CAPTURES) {
        let doc = capture(c);
        let chain: Vec<&Value> = doc["program"]["fusions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| f["kind"] == "elementwise_chain")
            .flat_map(|f| f["kernels"].as_array().into_iter().flatten())
            .collect();
        for k in kernels(&doc) {
            if origin(k)["origin"]["role"] == "indexing" {
                indexing += 1;
                assert!(!chain.contains(&&k["kernel"]["id"]), "{c}: {} in an elementwise chain", k["kernel"]["name"]);
                assert!(!moves(k).contains(&"fuse_elementwise".to_string()), "{c}: {}", k["kernel"]["name"]);
            }
        }
    }
    assert!(indexing >= 5, "{indexing} indexing kernels");
}

#[test]
fn embedding_lookups_launched_once_per_table_are_offered_one_batched_lookup_for_their_tail_waves() {
    let doc = capture("dlrm_train");
    let bag = named(&doc, "EmbeddingBag_updateOutputKernel")[0];
    let m = first_move(bag);
    assert_eq!(m["code"], "batch_embeddings", "{}", bag["diagnosis"]);
    assert_eq!(m["launches"], 8);
    // 8 launches of 1024 blocks in 792 slots (1.29 waves, 35% idle); as one
    // grid of 10.3 waves, 6% idle.
    // Only the bandwidth the full waves leave over is time lost: the
    // busiest memory level's utilisation over the busy share of the slots.
    let (n, w) = (8.0, bag["kernel"]["evidence"]["grid_size"].as_f64().unwrap() / 792.0);
    let idle = |w: f64| (w.ceil() - w) / w.ceil();
    let busiest = ["dram", "l2", "l1"]
        .iter()
        .filter_map(|l| bag["kernel"]["evidence"]["level_busy_pct"][*l].as_f64())
        .fold(0.0, f64::max);
    let full = (busiest / 100.0 / (1.0 - idle(w))).min(1.0);
    let expect = seconds(bag) * (idle(w) - idle(n * w)) * (1.0 - full);
    assert!((m["saving_s"].as_f64().unwrap() - expect).abs() < 1e-3 * expect, "{m} vs {expect}");
}

#[test]
fn a_streaming_kernel_with_a_full_grid_at_35_percent_of_a_level_is_under_the_diagonal_not_latency_bound() {
    // regnet's BN transform: L2 at 37% over 1.02 waves; unet's nchwToNhwc
    // transpose: 32%, issue slots busier; DLRM's clamp 58% over 0.97 waves.
    let regnet = capture("regnet_train");
    let bn = named(&regnet, "batch_norm_transform_input")[0];
    assert_eq!(bn["diagnosis"]["position"], "under_diagonal", "{}", bn["diagnosis"]);
    let unet = capture("unet_denoise_train");
    let t = named(&unet, "nchwToNhwcKernel")[0];
    assert_eq!(t["diagnosis"]["position"], "latency_bound", "{}", t["diagnosis"]);
    for (doc, needle) in [(&unet, "direct_copy_kernel_cuda"), (&unet, "nhwcToNchwKernel"), (&unet, "float16_copy")] {
        let k = named(doc, needle)[0];
        assert_eq!(k["diagnosis"]["position"], "under_diagonal", "{needle}: {}", k["diagnosis"]);
    }
    let dlrm = capture("dlrm_train");
    let clamp = named(&dlrm, "launch_clamp_scalar")[0];
    assert_eq!(clamp["diagnosis"]["position"], "under_diagonal", "{}", clamp["diagnosis"]);
    // A small grid keeps its latency call: regnet's Mean (0.14 waves).
    let mean = named(&regnet, "MeanOps")[0];
    assert_eq!(mean["diagnosis"]["position"], "latency_bound");
}

#[test]
fn inductors_kernels_and_groupnorms_statistics_get_the_user_level_move_of_what_they_do() {
    let enc = capture("compiled_encoder_train");
    // The GELU right after the linear1 GEMM: a max-autotune epilogue.
    let gelu = named(&enc, "triton_poi_fused_gelu")[0];
    assert_eq!(first_move(gelu)["code"], "epilogue_fusion", "{}", gelu["diagnosis"]);
    assert!(first_move(gelu)["text"].as_str().unwrap().contains("max-autotune"));
    // The q, k, v bias-transpose and clones beside cuDNN's flash attention:
    // strided views into attention, their whole time.
    let copies = named(&enc, "_clone_");
    assert!(copies.len() >= 4, "{}", copies.len());
    for k in copies.iter().filter(|k| !k["kernel"]["name"].as_str().unwrap().contains("norm")) {
        let m = first_move(k);
        assert_eq!(m["code"], "attention_layout", "{}", k["diagnosis"]);
        assert!((m["saving_s"].as_f64().unwrap() - seconds(k)).abs() < 1e-12);
    }
    // Inductor's weight casts get the eager casts' move.
    for needle in ["triton_poi_fused__to_copy_9", "triton_poi_fused__to_copy_t_1"] {
        let k = named(&enc, needle)[0];
        assert_eq!(first_move(k)["code"], "remove_casts", "{needle}: {}", k["diagnosis"]);
    }
    let regnet = capture("regnet_train");
    assert_eq!(first_move(named(&regnet, "bfloat16_copy_kernel_cuda")[0])["code"], "remove_casts");
    // GroupNorm's statistics are the norm's kernels, with its move.
    let unet = capture("unet_denoise_train");
    for needle in ["RowwiseMomentsCUDAKernel", "ComputeFusedParamsCUDAKernel"] {
        let k = named(&unet, needle)[0];
        assert_eq!(origin(k)["origin"]["role"], "norm", "{needle}");
        assert_eq!(first_move(k)["code"], "fuse_norm", "{needle}: {}", k["diagnosis"]);
    }
}

#[test]
fn a_16bit_convolution_on_the_cuda_cores_is_told_to_run_as_a_gemm_not_to_grow_its_batch() {
    // regnet's squeeze-excitation fc2: cuDNN's implicit_convolve_sgemm on
    // bf16, 22 blocks, FFMA only.
    let doc = capture("regnet_train");
    let k = named(&doc, "implicit_convolve_sgemm")[0];
    let m = moves(k);
    assert_eq!(m[0], "conv_as_gemm", "{}", k["diagnosis"]);
    assert!(!m.contains(&"larger_problem".to_string()), "{m:?}");
}

#[test]
fn a_large_16bit_convolution_on_the_cuda_cores_is_told_which_shapes_the_tensor_cores_take() {
    // Round 8's ViT patch embedding: a 3-channel, stride-16 bf16
    // convolution cuDNN ran as implicit_convolve_sgemm (FFMA only), 42% of
    // the window, with a grid that fills the GPU. On the BF16 tensor roof
    // its FLOPs take a few percent of that time.
    let doc = capture("vit_compiled_infer");
    let k = named(&doc, "implicit_convolve_sgemm")[0];
    let m = first_move(k);
    assert_eq!(m["code"], "conv_as_gemm", "{}", k["diagnosis"]);
    let share = m["saving_s"].as_f64().unwrap() / seconds(k);
    assert!((0.85..1.0).contains(&share), "saves {share:.3} of the kernel's time");
    assert!(m["rests_on"].as_str().unwrap_or_default().contains("BF16"), "{m}");
}

#[test]
fn elementwise_passes_over_a_gemms_output_fold_into_the_gemm_with_their_whole_time() {
    // Round 7's k-means: dist = x2 - 2*(x @ c.T) + (c*c).sum(1), over a
    // 2M x 256 matrix: the subtract and the add each read and write it
    // once more after the GEMM (with a multiply and a small reduction
    // between); folded into the GEMM, their whole time goes.
    let doc = capture("cupy_kmeans");
    for needle in ["cupy_subtract", "cupy_add"] {
        let k = named(&doc, needle)[0];
        let m = first_move(k);
        assert_eq!(m["code"], "fuse_array_ops", "{needle}: {}", k["diagnosis"]);
        let share = m["saving_s"].as_f64().unwrap() / seconds(k);
        assert!((share - 1.0).abs() < 1e-9, "{needle} saves {share:.3} of its time");
    }
    // The 256-element c*c is no pass over the GEMM's output.
    let small = named(&doc, "cupy_multiply").into_iter().min_by(|a, b| seconds(a).total_cmp(&seconds(b))).unwrap();
    assert!(move_saving(small, "fuse_array_ops") < seconds(small), "{}", small["diagnosis"]);
}

/// The saving a kernel's move of `code` predicts, seconds (0 without one).
fn move_saving(k: &Value, code: &str) -> f64 {
    k["diagnosis"]["next_moves"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["code"] == code)
        .filter_map(|m| m["saving_s"].as_f64())
        .sum()
}

#[test]
fn the_batched_embedding_pair_is_predicted_from_the_bandwidth_its_tail_leaves_idle() {
    // Eight EmbeddingBag launches against one on the stacked tables: the
    // kernels saved 26.4 us of GPU time (`results/h200-2026-12-02-pairs-round6/README.md`).
    let doc = import("tests/fixtures/external/h200-2026-12-02/pairs-round6/batched_embedding.csv.gz");
    let bag = named(&doc, "EmbeddingBag_updateOutputKernel")[0];
    assert_eq!(origin(bag)["origin"]["library"], "py_torch", "{}", bag["diagnosis"]);
    assert_eq!(first_move(bag)["code"], "batch_embeddings", "{}", bag["diagnosis"]);
    let ratio = move_saving(bag, "batch_embeddings") * 1e6 / 26.4;
    assert!((0.75..=1.25).contains(&ratio), "predicted / measured {ratio:.2}");
}

#[test]
fn cupy_array_expressions_and_blas1_reductions_over_the_same_vectors_are_offered_one_fused_pass() {
    // CG: alpha*p then x + (that), alpha*q then r - (that), b*b then a sum,
    // and r.r right after r's update.
    let doc = capture("cupy_cg");
    let mul = named(&doc, "cupy_multiply__float64")[0];
    assert_eq!(first_move(mul)["code"], "fuse_array_ops", "{}", mul["diagnosis"]);
    // Each of its 3 launches feeds an add, a subtract or a sum: 2 of its 3
    // operands' time, the write booked here and the read on the reader.
    assert!((move_saving(mul, "fuse_array_ops") - seconds(mul) / 3.0).abs() < 1e-3 * seconds(mul));
    // One of the dot's two launches follows an elementwise update: half of it.
    let dot = named(&doc, "dot_kernel<double")[0];
    assert_eq!(first_move(dot)["code"], "fuse_array_ops", "{}", dot["diagnosis"]);
    assert!((move_saving(dot, "fuse_array_ops") - seconds(dot) / 4.0).abs() < 1e-3 * seconds(dot));
    // Add and subtract read two of the temporaries back: each read is as
    // much as the multiply's write of it
    let readers: f64 =
        ["cupy_subtract__", "cupy_add__"].iter().map(|n| move_saving(named(&doc, n)[0], "fuse_array_ops")).sum();
    // (one of the three products is read by a sum, not by them).
    let write = move_saving(mul, "fuse_array_ops");
    assert!(readers > write / 2.0 && readers < write * (1.0 + 1e-9), "{readers} {write}");
}

#[test]
fn a_csr_spmv_at_the_memory_side_is_offered_a_format_that_moves_fewer_bytes_per_nonzero() {
    let doc = capture("cupy_cg");
    let spmv = named(&doc, "csrmv_v3_kernel")[0];
    let m = first_move(spmv);
    assert_eq!(m["code"], "sparse_format", "{}", spmv["diagnosis"]);
    // double values and int indices: 4 of every 12 bytes per nonzero, and the
    // FLOP counter (2 per nonzero) says the matrix is nearly all the bytes.
    let share = m["index_share_pct"].as_f64().unwrap();
    assert!((25.0..=34.0).contains(&share), "{share}");
    assert!((m["saving_s"].as_f64().unwrap() - seconds(spmv) * share / 100.0).abs() < 1e-9);
    // CSR's partition pass goes with the format: its whole time.
    let part = named(&doc, "csr_partition_kernel")[0];
    assert_eq!(first_move(part)["code"], "sparse_format", "{}", part["diagnosis"]);
    assert!((move_saving(part, "sparse_format") - seconds(part)).abs() < 1e-12);
}

#[test]
fn pytorch_cats_are_offered_producers_that_write_into_the_output() {
    for c in ["densenet_train", "mixtral_train"] {
        let doc = capture(c);
        let cat = named(&doc, "CatArrayBatchedCopy")[0];
        assert_eq!(first_move(cat)["code"], "cat_in_place", "{c}: {}", cat["diagnosis"]);
        assert!((move_saving(cat, "cat_in_place") - seconds(cat)).abs() < 1e-12);
    }
}

#[test]
fn a_launch_bound_head_of_a_chain_and_a_reduction_under_the_diagonal_join_the_compile_group() {
    // mixtral's RMSNorm: pow (first in the capture, launch-bound) feeds the mean.
    let doc = capture("mixtral_train");
    let pow = named(&doc, "pow_tensor_scalar_kernel_impl")[0];
    assert_eq!(first_move(pow)["code"], "fuse_elementwise", "{}", pow["diagnosis"]);
    assert!((move_saving(pow, "fuse_elementwise") - seconds(pow)).abs() < 1e-12);
    // deeplab's global average pool, 68% of the L2 roof: the gap to the 75% line.
    let doc = capture("deeplab_infer");
    let mean = named(&doc, "MeanOps<c10::Half")[0];
    assert_eq!(first_move(mean)["code"], "fuse_elementwise", "{}", mean["diagnosis"]);
    let (_, pct) = binding(mean);
    let expect = seconds(mean) * (1.0 - pct / 75.0);
    assert!((move_saving(mean, "fuse_elementwise") - expect).abs() < 1e-3 * expect, "{pct}");
}

#[test]
fn an_elementwise_kernel_after_a_layout_transpose_saves_its_operands_round_trip_on_every_launch() {
    // whisper's conv bias add: each launch follows cuDNN's nhwcToNchw, which
    // channels_last removes; fused, one of its 3 operands' round trips goes.
    let doc = capture("whisper_train");
    let add = named(&doc, "CUDAFunctor_add<c10::BFloat16>")[0];
    let saved = move_saving(add, "fuse_elementwise");
    assert!((saved - seconds(add) * 2.0 / 3.0).abs() < 1e-3 * seconds(add), "{}", add["diagnosis"]);
}

#[test]
fn a_larger_batch_is_no_move_for_library_kernels_of_a_training_step() {
    // densenet's sub-wave cuDNN convolution, in a step with an optimizer kernel.
    let doc = capture("densenet_train");
    let conv = named(&doc, "sm80_xmma_fprop_implicit_gemm")[0];
    assert!(!moves(conv).contains(&"larger_problem".to_string()), "{}", conv["diagnosis"]);
    let ev = conv["diagnosis"]["evidence"].as_array().unwrap();
    assert!(ev.iter().any(|e| e["code"] == "batch_is_training_choice"), "{}", conv["diagnosis"]);
    // Inference keeps it: Faster R-CNN's sub-wave convolutions.
    let doc = capture("fasterrcnn_infer");
    assert!(named(&doc, "fprop_implicit_gemm").iter().any(|k| moves(k).contains(&"larger_problem".to_string())));
}

#[test]
fn an_issue_bound_generic_array_kernel_is_told_to_become_a_kernel_of_its_own() {
    // Round 8's CuPy ndimage filters: generic correlate and rank kernels
    // whose issue slots are 74-85% busy on index arithmetic while DRAM is
    // at 6-36% of its roof. Written for the operation, the same DRAM bytes
    // stream at a streaming kernel's share of the roof: the saving is the
    // time above the DRAM share over ON_ROOF_PCT (75%).
    let doc = capture("cupy_image");
    for needle in ["correlate_3d_reflect_w1_17_1", "rank_9_4_3d_reflect", "correlate_3d_reflect_w1_3_1"] {
        let k = named(&doc, needle)[0];
        let m = first_move(k);
        assert_eq!(m["code"], "specific_kernel", "{needle}: {}", k["diagnosis"]);
        let dram = m["dram_pct"].as_f64().unwrap();
        let expected = seconds(k) * (1.0 - dram / 75.0);
        let saving = m["saving_s"].as_f64().unwrap();
        assert!((saving - expected).abs() < 1e-9 * seconds(k).max(1.0), "{needle}: {saving} against {expected}");
        assert!(m["issue_pct"].as_f64().unwrap() >= 60.0, "{m}");
        assert!(m["text"].as_str().unwrap().contains("cupy.RawKernel"), "{m}");
    }
    // The 17-tap Gaussian pass moves its bytes at a few percent of DRAM:
    // most of its time goes.
    let k = named(&doc, "correlate_3d_reflect_w1_17_1")[0];
    let share = first_move(k)["saving_s"].as_f64().unwrap() / seconds(k);
    assert!((0.85..0.97).contains(&share), "saves {share:.3} of the Gaussian pass");
    // cuFFT, the streaming CuPy passes, and the 3-tap smoothing whose DRAM
    // is at 38% of its roof (memory side, MEMORY_SIDE_PCT) get no such move.
    for needle in ["regular_fft", "cupy_multiply__complex64", "cupy_hypot", "correlate_3d_reflect_w3_1_1"] {
        let k = named(&doc, needle)[0];
        assert!(!moves(k).contains(&"specific_kernel".to_string()), "{needle}: {}", k["diagnosis"]);
    }
}

/// The ninth grading's (`results/h200-2026-12-02-grading/round9/`); the
/// moves below were written after it, and wait for round 10's programs.
const ROUND9: &str = "tests/fixtures/external/h200-2026-12-03";

#[test]
fn atomics_on_few_addresses_are_told_to_aggregate_and_a_dense_product_from_l1_to_call_the_library() {
    let doc = import(&format!("{ROUND9}/cupy_user_kernels.full.csv.gz"));
    // A 256-bin histogram of 64 M values with one global atomicAdd each:
    // every throughput under 1%, the warps waiting in `drain`.
    let k = named(&doc, "histogram")[0];
    let m = first_move(k);
    assert_eq!(m["code"], "aggregate_atomics", "{}", k["diagnosis"]);
    assert_eq!(m["stall"], "drain");
    assert!(m["saving_s"].as_f64().unwrap() / seconds(k) > 0.9, "{m}");
    // The naive and the shared-memory-tiled FP32 products, held by L1: the
    // saving is the time above their FLOPs at 75% of the FP32 roof.
    let fp32 = 0.75 * fp32_roof(&doc);
    for needle in ["matmul", "tiled_matmul"] {
        let k = kernels(&doc).iter().find(|k| k["kernel"]["name"] == needle).unwrap();
        let m = first_move(k);
        assert_eq!(m["code"], "library_product", "{needle}: {}", k["diagnosis"]);
        let flops = k["kernel"]["flops"]["fp32"].as_f64().unwrap();
        let expected = seconds(k) - flops / fp32;
        assert!((m["saving_s"].as_f64().unwrap() - expected).abs() < 1e-9, "{needle}: {m}");
    }
    // Streaming kernels of the same program get neither move.
    for needle in ["squared_diff", "l2norm_pass1"] {
        let k = named(&doc, needle)[0];
        let m = moves(k);
        assert!(!m.iter().any(|c| c == "aggregate_atomics" || c == "library_product"), "{needle}: {m:?}");
    }
}

/// The FP32 roof of the machine the import used, FLOP/s: the measured one
/// where the machine has it.
fn fp32_roof(doc: &Value) -> f64 {
    let fp32: Vec<&Value> = doc["machine"]["ceilings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["resource"]["which"] == "fp32" && c["secondary"] != true)
        .collect();
    let measured = fp32.iter().find(|c| c["provenance"]["origin"] == "measured");
    measured.or(fp32.first()).and_then(|c| c["rate"].as_f64()).unwrap()
}

const ROUND12: &str = "tests/fixtures/external/h200-2026-12-03-round12";

fn the_one<'a>(doc: &'a Value, needle: &str) -> &'a Value {
    kernels(doc).iter().find(|k| k["kernel"]["name"].as_str().unwrap().contains(needle)).unwrap()
}

/// Round 12's `cupy.argpartition(d, 16, axis=1)` was seven of cupy_knn's
/// ten kernels and 73% of the graded time. The tool called its bitonic
/// select "at the L2 roof, saves 0" and fused its integer bookkeeping
/// (index array, checks, unravel) as the user's expression; the expert
/// replaced the call by a top-k (-9.2 ms on the select, -0.7 ms on the
/// merges, each bookkeeping kernel's whole time).
#[test]
fn a_cupy_selection_is_a_top_k_and_its_integer_bookkeeping_goes_with_it() {
    let doc = import(&format!("{ROUND12}/cupy_knn.full.csv.gz"));
    let select = the_one(&doc, "argpartition_kernel");
    assert_eq!(first_move(select)["code"], "top_k", "{}", select["diagnosis"]);
    // 40.2 GB of SM-side L2 traffic over 3.2 GB read from DRAM: 12.5
    // passes, a top-k's 4 leave 68% of the time.
    let share = move_saving(select, "top_k") / seconds(select);
    assert!((0.66..=0.70).contains(&share), "{share}");
    let merge = the_one(&doc, "argpartition_merge_kernel");
    assert!((move_saving(merge, "top_k") - seconds(merge)).abs() < 1e-12);
    for needle in ["cupy_remainder", "cupy_floor_divide", "cupy_less", "cupy_arange", "cupy_cub_any_pass1"] {
        let k = the_one(&doc, needle);
        assert_eq!(first_move(k)["code"], "library_call_internals", "{needle}: {}", k["diagnosis"]);
        assert_eq!(first_move(k)["call"], "selection", "{needle}");
        assert!((move_saving(k, "library_call_internals") - seconds(k)).abs() < 1e-12, "{needle}");
        assert_eq!(move_saving(k, "fuse_array_ops"), 0.0, "{needle}");
    }
    // The float distance expression beside it is still the user's.
    assert_eq!(first_move(the_one(&doc, "cupy_subtract__float32"))["code"], "fuse_array_ops");
    // Its FFMA GEMM is told CuPy's TF32 switch, not PyTorch's.
    let tf32 = the_one(&doc, "_ffma_");
    assert_eq!((&first_move(tf32)["code"], &first_move(tf32)["caller"]), (&"allow_tf32".into(), &"cupy".into()));
    assert!(first_move(tf32)["text"].as_str().unwrap().contains("CUPY_TF32=1"));
    let doc = import(&format!("{ROUND12}/nerf_train.full.csv.gz"));
    let tf32 = the_one(&doc, "_ffma_");
    assert!(first_move(tf32)["caller"].is_null() && first_move(tf32)["text"].as_str().unwrap().contains("torch"));
    // Round 11's randint: cuRAND's generator, then a mask, a cast and an add.
    let doc = import("tests/fixtures/external/h200-2026-12-03/cupy_bootstrap.full.csv.gz");
    for needle in ["cupy_bitwise_and", "cupy_copy__uint32_int64", "cupy_add__int64"] {
        assert_eq!(first_move(the_one(&doc, needle))["call"], "random_integers", "{needle}");
    }
    // A float kernel after the draw is not its bookkeeping.
    assert_ne!(first_move(the_one(&doc, "cupy_take"))["code"], "library_call_internals");
}

/// Round 12's PPO clipped its gradients (`clip_grad_norm_`, foreach): the
/// norms and the scale by the clip coefficient were given the fused Adam,
/// which does not clip. The expert compiled the clipping with the step
/// (-12 and -13 us of 15.3 and 16.3, -2 of the 2.4 us cleanup).
#[test]
fn gradient_clipping_is_compiled_with_the_step_not_given_the_fused_optimizer() {
    let doc = import(&format!("{ROUND12}/ppo_update.full.csv.gz"));
    let norm = the_one(&doc, "LpNormFunctor");
    assert_eq!(first_move(norm)["code"], "compile_clipping", "{}", norm["diagnosis"]);
    assert!((move_saving(norm, "compile_clipping") - (seconds(norm) - 3e-6)).abs() < 1e-12);
    assert_eq!(move_saving(norm, "fused_optimizer"), 0.0);
    for needle in ["BinaryOpScalarTensorFunctor", "lpnorm_cleanup"] {
        let k = the_one(&doc, needle);
        assert_eq!(first_move(k)["code"], "compile_clipping", "{needle}");
        assert!((move_saving(k, "compile_clipping") - seconds(k)).abs() < 1e-12, "{needle}");
    }
    // Adam's own foreach kernels keep the fused optimizer.
    assert_eq!(first_move(the_one(&doc, "LerpFunctor"))["code"], "fused_optimizer");
}

/// Round 12's JAX n-body: an XLA loop fusion wrote the N x N pair array
/// that the reduce fusion after it read back, "not the user's to edit";
/// the expert fused the pair (-495 us of the writer, -260 of the reader).
#[test]
fn an_xla_fusion_whose_result_the_next_fusion_reads_back_is_fused_into_it() {
    let doc = import(&format!("{ROUND12}/jax_nbody.full.csv.gz"));
    let writer = the_one(&doc, "loop_multiply_fusion");
    assert_eq!(first_move(writer)["code"], "fuse_xla_intermediate", "{}", writer["diagnosis"]);
    // Its written share of its DRAM bytes: 83%.
    let share = move_saving(writer, "fuse_xla_intermediate") / seconds(writer);
    assert!((0.8..=0.86).contains(&share), "{share}");
    let reader = the_one(&doc, "input_reduce_fusion_1");
    let share = move_saving(reader, "fuse_xla_intermediate") / seconds(reader);
    assert!((0.5..=1.0).contains(&share), "{share}");
    // Launch-bound fusions (a loop counter, a 3 us transpose) are not.
    for needle in ["loop_add_fusion_2", "wrapped_transpose"] {
        assert_eq!(move_saving(the_one(&doc, needle), "fuse_xla_intermediate"), 0.0, "{needle}");
    }
}

/// PyTorch's own NCHW depthwise convolution, issue-bound, was told to
/// become a kernel of its own; both experts who met it (round 12's
/// ShuffleNet, round 13's SSDlite head) ran the model in channels_last,
/// which hands depthwise convolutions to cuDNN.
#[test]
fn pytorchs_nchw_depthwise_convolution_is_told_channels_last() {
    for capture in ["h200-2026-12-03-round12/shufflenet_train", "h200-2026-12-04-round13/ssdlite_infer"] {
        let doc = import(&format!("tests/fixtures/external/{capture}.full.csv.gz"));
        let dw = the_one(&doc, "conv_depthwise2d_forward_kernel");
        assert_eq!(first_move(dw)["code"], "depthwise_channels_last", "{capture}: {}", dw["diagnosis"]);
        assert_eq!(move_saving(dw, "specific_kernel"), 0.0, "{capture}");
    }
    // Other generic kernels held by their issue slots keep the rewrite.
    let doc = import(&format!("{ROUND12}/cupy_knn.full.csv.gz"));
    assert!(kernels(&doc).iter().all(|k| move_saving(k, "depthwise_channels_last") == 0.0));
}

/// Round 13's JAX solver ran its four inverse FFTs one by one, each launch
/// of cuFFT's kernels at the launch floor, "not the user's to edit"; its
/// expert stacked them into one batched call (-24 of 48.7 us, -13 of 32.2).
#[test]
fn an_fft_launched_again_and_again_at_the_launch_floor_is_batched() {
    let doc = import("tests/fixtures/external/h200-2026-12-04-round13/jax_spectral_ns.full.csv.gz");
    for needle in ["regular_fft", "vector_fft_c2r"] {
        let k = the_one(&doc, needle);
        assert_eq!(first_move(k)["code"], "batch_transforms", "{needle}: {}", k["diagnosis"]);
        let share = move_saving(k, "batch_transforms") / seconds(k);
        assert!((0.6..=0.75).contains(&share), "{needle}: {share}");
    }
    // One launch of a transform is no batch.
    let once = the_one(&doc, "vector_fft_r2c");
    assert_eq!(move_saving(once, "batch_transforms"), 0.0);
}

/// Round 13's SegFormer ran LayerNorm over 32-wide rows, one block a row:
/// L1 43% busy, DRAM and L2 far less. The compiled norm's saving was capped
/// by L1 (250 of 577 us) where its expert priced the bytes it must move
/// (555 us): L1 traffic is the kernel's own.
#[test]
fn a_norms_saving_rests_on_the_dram_and_l2_bytes_a_compiled_norm_keeps() {
    let doc = import("tests/fixtures/external/h200-2026-12-04-round13/segformer_infer.full.csv.gz");
    let norm = the_one(&doc, "vectorized_layer_norm_kernel");
    assert_eq!(first_move(norm)["code"], "fuse_norm", "{}", norm["diagnosis"]);
    let share = move_saving(norm, "fuse_norm") / seconds(norm);
    assert!((0.9..=0.97).contains(&share), "{share}");
}
