//! The catalogue against hand-worked examples: each expected figure is
//! worked out in the comment above it from the operator's definition, so a
//! changed formula fails here.

use roofline_model::FlopKind;
use roofline_shapes::catalogue::NoEstimate;
use roofline_shapes::{estimate, Arg, Dtype, Estimate, OpClass, Tensor};

fn t(dims: &[u64], d: Dtype) -> Arg {
    Arg::Tensor(Tensor::new(dims, d))
}

fn strided(dims: &[u64], strides: &[i64], d: Dtype) -> Arg {
    Arg::Tensor(Tensor { dims: dims.to_vec(), strides: strides.to_vec(), dtype: d })
}

fn s(v: &str) -> Arg {
    Arg::Scalar(v.into())
}

fn sl(v: &str) -> Arg {
    Arg::ScalarList(v.into())
}

fn est(op: &str, args: &[Arg]) -> Estimate {
    estimate(op, args).unwrap_or_else(|e| panic!("{op}: {e}"))
}

const BF: Dtype = Dtype::Bf16;

#[test]
fn matrix_products() {
    // mm [64,32] x [32,16]: 2·64·16·32 = 65,536 FLOPs; bytes (64·32 + 32·16 + 64·16)·2 = 7,168.
    let e = est("aten::mm", &[t(&[64, 32], BF), t(&[32, 16], BF)]);
    assert_eq!((e.class, e.kind), (OpClass::Matmul, FlopKind::TensorBf16));
    assert_eq!(e.useful_flops(), 65_536.0);
    assert_eq!(e.bytes(), 7_168.0);
    assert_eq!(e.written_bytes(), 2048.0);
    // addmm(bias[16], [64,32], [32,16]): the same FLOPs, bias 32 B more.
    let e = est("aten::addmm", &[t(&[16], BF), t(&[64, 32], BF), t(&[32, 16], BF), s("1"), s("1")]);
    assert_eq!((e.useful_flops(), e.bytes()), (65_536.0, 7_200.0));
    // bmm [8,64,32] x [8,32,16]: 8x the mm.
    let e = est("aten::bmm", &[t(&[8, 64, 32], BF), t(&[8, 32, 16], BF)]);
    assert_eq!((e.useful_flops(), e.bytes()), (8.0 * 65_536.0, 8.0 * 7_168.0));
    // baddbmm(C[8,64,16], A, B): C read too, 8·64·16·2 = 16,384 B.
    let e = est("aten::baddbmm", &[t(&[8, 64, 16], BF), t(&[8, 64, 32], BF), t(&[8, 32, 16], BF)]);
    assert_eq!((e.useful_flops(), e.bytes()), (8.0 * 65_536.0, 8.0 * 7_168.0 + 16_384.0));
    // linear(x[4,16,32], W[16,32], b[16]): m = 64, n = 16, k = 32: the mm plus the bias.
    let e = est("aten::linear", &[t(&[4, 16, 32], BF), t(&[16, 32], BF), t(&[16], BF)]);
    assert_eq!((e.useful_flops(), e.bytes()), (65_536.0, 7_200.0));
    // matmul with a broadcast batch: [2,64,32] x [32,16] = 2x the mm's FLOPs.
    let e = est("aten::matmul", &[t(&[2, 64, 32], BF), t(&[32, 16], BF)]);
    assert_eq!(e.useful_flops(), 2.0 * 65_536.0);
    // FP32 stays on the CUDA cores.
    assert_eq!(est("aten::mm", &[t(&[4, 4], Dtype::Fp32), t(&[4, 4], Dtype::Fp32)]).kind, FlopKind::Fp32);
}

#[test]
fn scaled_and_integer_matmuls() {
    // _scaled_mm FP8 [128,64] x [64,32] with two FP32 scales: 2·128·32·64 = 524,288 FLOPs on FP8;
    // bytes 128·64 + 64·32 + 128·32·2 (bf16 out) + 2·4 = 18,440.
    let e = est(
        "aten::_scaled_mm",
        &[t(&[128, 64], Dtype::Fp8), t(&[64, 32], Dtype::Fp8), t(&[1], Dtype::Fp32), t(&[1], Dtype::Fp32)],
    );
    assert_eq!((e.kind, e.useful_flops(), e.bytes()), (FlopKind::TensorFp8, 524_288.0, 18_440.0));
    // _int_mm INT8 → INT32: 128·64 + 64·32 + 128·32·4 = 26,624 B.
    let e = est("aten::_int_mm", &[t(&[128, 64], Dtype::Int8), t(&[64, 32], Dtype::Int8)]);
    assert_eq!((e.kind, e.useful_flops(), e.bytes()), (FlopKind::TensorInt8, 524_288.0, 26_624.0));
}

#[test]
fn convolution_forward_and_backward() {
    // cudnn_convolution(x[32,64,56,56], w[128,64,3,3], padding 1, stride 2, dilation 1, groups 1):
    // out 28x28; 2·N·K·∏out·C·∏kernel = 2·32·128·784·64·9 = 3,699,376,128 FLOPs.
    let x = t(&[32, 64, 56, 56], BF);
    let w = t(&[128, 64, 3, 3], BF);
    let e = est("aten::cudnn_convolution", &[x.clone(), w.clone(), sl("[1, 1]"), sl("[2, 2]"), sl("[1, 1]"), s("1")]);
    assert_eq!(e.useful_flops(), 3_699_376_128.0);
    // bytes: x 32·64·56·56·2 = 12,845,056; w 128·64·9·2 = 147,456; out 32·128·784·2 = 6,422,528.
    assert_eq!(e.bytes(), 12_845_056.0 + 147_456.0 + 6_422_528.0);
    // convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups), groups 4:
    // C/g = 16 → a quarter of the FLOPs (w is [128,16,3,3]).
    let wg = t(&[128, 16, 3, 3], BF);
    let e = est(
        "aten::convolution",
        &[x.clone(), wg, Arg::None, sl("[2, 2]"), sl("[1, 1]"), sl("[1, 1]"), s("False"), sl("[0, 0]"), s("4")],
    );
    assert_eq!(e.useful_flops(), 3_699_376_128.0 / 4.0);
    // convolution_backward(grad[32,128,28,28], x, w, ..., output_mask [True, True, False]):
    // two passes of the forward's FLOPs, named for their kernels.
    let g = t(&[32, 128, 28, 28], BF);
    let e = est(
        "aten::convolution_backward",
        &[
            g,
            x,
            w,
            sl("[0]"),
            sl("[2, 2]"),
            sl("[1, 1]"),
            sl("[1, 1]"),
            s("False"),
            sl("[0, 0]"),
            s("1"),
            sl("[True, True, False]"),
        ],
    );
    let labels: Vec<_> = e.parts.iter().map(|p| p.label).collect();
    assert_eq!(labels, ["data gradient", "weight gradient"]);
    assert_eq!(e.useful_flops(), 2.0 * 3_699_376_128.0);
    // data gradient: grad 6,422,528 + w 147,456 read, grad_in 12,845,056 written.
    assert_eq!(e.parts[0].bytes, 6_422_528.0 + 147_456.0 + 12_845_056.0);
    assert_eq!(e.parts[0].written_bytes, 12_845_056.0);
    assert_eq!(e.parts[1].written_bytes, 147_456.0);
}

#[test]
fn attention_variants_causal_or_not() {
    let q = t(&[2, 4, 256, 64], BF);
    // SDPA flash forward [B=2, H=4, L=S=256, E=64]: 4·B·H·L·S·E = 134,217,728 FLOPs;
    // bytes q, k, v, out 4·(131,072 elements · 2 B) + logsumexp 2·4·256·4 = 1,056,768.
    let flash =
        est("aten::_scaled_dot_product_flash_attention", &[q.clone(), q.clone(), q.clone(), s("0"), s("False")]);
    assert_eq!(
        (flash.class, flash.useful_flops(), flash.issued_flops()),
        (OpClass::Attention, 134_217_728.0, 134_217_728.0)
    );
    assert_eq!(flash.bytes(), 1_056_768.0);
    // Causal: useful (L² − L(L−1)/2)/L² = 257/512 of it; issued: 3 of 4 tiles (2 tiles of 128 per side).
    let causal =
        est("aten::_scaled_dot_product_flash_attention", &[q.clone(), q.clone(), q.clone(), s("0"), s("True")]);
    assert_eq!(causal.useful_flops(), 134_217_728.0 * 257.0 / 512.0);
    assert_eq!(causal.issued_flops(), 134_217_728.0 * 3.0 / 4.0);
    // The efficient and cuDNN variants read their causal flag at their own places.
    let eff = est(
        "aten::_scaled_dot_product_efficient_attention",
        &[q.clone(), q.clone(), q.clone(), Arg::None, s("True"), s("0"), s("True")],
    );
    assert_eq!(eff.useful_flops(), causal.useful_flops());
    let cudnn = est(
        "aten::_scaled_dot_product_cudnn_attention",
        &[q.clone(), q.clone(), q.clone(), Arg::None, s("True"), s("0"), s("False")],
    );
    assert_eq!(cudnn.useful_flops(), flash.useful_flops());
    // _flash_attention_forward takes [B, L, H, E]: the same shape written another way.
    let blhe = t(&[2, 256, 4, 64], BF);
    let f = est(
        "aten::_flash_attention_forward",
        &[blhe.clone(), blhe.clone(), blhe, Arg::None, Arg::None, s("256"), s("256"), s("0"), s("False")],
    );
    assert_eq!(f.useful_flops(), flash.useful_flops());
    // Backward: 2.5x (five matrix products to two); dq, dk, dv written.
    let lse = t(&[2, 4, 256], Dtype::Fp32);
    let mut bwd = vec![q.clone(), q.clone(), q.clone(), q.clone(), q.clone(), lse];
    bwd.extend([Arg::None, Arg::None, s("256"), s("256"), s("0"), s("True")]);
    let b = est("aten::_scaled_dot_product_flash_attention_backward", &bwd);
    assert_eq!(b.useful_flops(), 2.5 * causal.useful_flops());
    assert_eq!(b.issued_flops(), 2.5 * causal.issued_flops());
    assert_eq!(b.written_bytes(), 3.0 * 262_144.0);
}

#[test]
fn normalisation_forward_and_backward() {
    // native_layer_norm(x[8,512,768] fp32, [768], w, b): 8 FLOPs per element;
    // bytes x + y 2·12,582,912 + w, b 2·3,072 + mean, rstd 2·4096·4 = 25,204,736.
    let x = t(&[8, 512, 768], Dtype::Fp32);
    let w = t(&[768], Dtype::Fp32);
    let e = est("aten::native_layer_norm", &[x.clone(), sl("[768]"), w.clone(), w.clone(), s("1e-05")]);
    assert_eq!(e.class, OpClass::Normalisation);
    assert_eq!(e.useful_flops(), 8.0 * 3_145_728.0);
    assert_eq!(e.bytes(), 25_204_736.0);
    // Backward: the input gradient and the weight gradients are two kernels.
    let stats = t(&[8, 512, 1], Dtype::Fp32);
    let e = est(
        "aten::native_layer_norm_backward",
        &[x.clone(), x.clone(), sl("[768]"), stats.clone(), stats, w.clone(), w.clone(), sl("[True, True, True]")],
    );
    assert_eq!(e.parts.len(), 2);
    assert!(e.parts[1].hints.contains(&"gammabeta"));
    // RMS norm: no bias, no statistics out (x + y + w).
    let e = est("aten::_fused_rms_norm", &[x.clone(), sl("[768]"), w.clone(), s("1e-05")]);
    assert_eq!(e.bytes(), 2.0 * 12_582_912.0 + 3_072.0 + 2.0 * 4096.0 * 4.0);
    // Batch norm in training, x[32,64,56,56] bf16: statistics (x read), running statistics, transform (x read, y written).
    let xb = t(&[32, 64, 56, 56], BF);
    let p = t(&[64], Dtype::Fp32);
    let e = est(
        "aten::native_batch_norm",
        &[xb.clone(), p.clone(), p.clone(), p.clone(), p.clone(), s("True"), s("0.1"), s("1e-05")],
    );
    let labels: Vec<_> = e.parts.iter().map(|p| p.label).collect();
    assert_eq!(labels, ["statistics", "running statistics", "transform"]);
    // transform: x 12,845,056 + y 12,845,056 + 4 parameters of 64 floats.
    assert_eq!(e.parts[2].bytes, 2.0 * 12_845_056.0 + 4.0 * 256.0);
    // In evaluation, the transform alone.
    let e = est("aten::native_batch_norm", &[xb.clone(), p.clone(), p.clone(), p.clone(), p.clone(), s("False")]);
    assert_eq!(e.parts.len(), 1);
    // Group norm (x, w, b, N, C, HxW, groups, eps): statistics for N·groups rows.
    let e = est("aten::native_group_norm", &[xb, p.clone(), p, s("32"), s("64"), s("3136"), s("8"), s("1e-05")]);
    assert_eq!(e.bytes(), 2.0 * 12_845_056.0 + 2.0 * 256.0 + 2.0 * 256.0 * 4.0);
}

#[test]
fn softmax_and_losses() {
    // _log_softmax(x[4096,50257] fp32): 4 FLOPs per element; bytes x + y = 2·4096·50257·4.
    let x = t(&[4096, 50257], Dtype::Fp32);
    let e = est("aten::_log_softmax", &[x.clone(), s("1"), s("False")]);
    assert_eq!(
        (e.class, e.useful_flops(), e.bytes()),
        (OpClass::SoftmaxLoss, 4.0 * 205_852_672.0, 2.0 * 823_410_688.0)
    );
    // _softmax_backward_data(grad, out): two read, one written.
    let e = est("aten::_softmax_backward_data", &[x.clone(), x.clone(), s("1"), s("6")]);
    assert_eq!(e.bytes(), 3.0 * 823_410_688.0);
    // nll_loss_forward(x, target[4096]): one element per row read, targets 4096·8, the loss and weight out.
    let target = t(&[4096], Dtype::Int64);
    let e = est("aten::nll_loss_forward", &[x.clone(), target.clone(), Arg::None, s("1"), s("-100")]);
    assert_eq!(e.bytes(), 4096.0 * 8.0 + 4096.0 * 4.0 + 8.0);
    // cross_entropy_loss: log_softmax and nll over the logits.
    let e = est("aten::cross_entropy_loss", &[x, target]);
    assert_eq!(e.bytes(), 2.0 * 823_410_688.0 + 4096.0 * 8.0);
}

#[test]
fn elementwise_casts_and_copies() {
    let a = t(&[1024, 1024], BF);
    // unary gelu: 4 FLOPs per element; bytes in + out 2·2 MiB.
    let e = est("aten::gelu", &[a.clone(), Arg::None]);
    assert_eq!((e.useful_flops(), e.bytes()), (4.0 * 1_048_576.0, 4_194_304.0));
    // binary mul(bf16, fp32) promotes to fp32: 2 + 4 read, 4 written per element.
    let e = est("aten::mul", &[a.clone(), t(&[1024, 1024], Dtype::Fp32)]);
    assert_eq!(e.bytes(), 10.0 * 1_048_576.0);
    // A 0-dim double does not promote: mul(fp32 x, double 0-dim) writes fp32.
    let e = est("aten::mul", &[t(&[1024], Dtype::Fp32), t(&[], Dtype::Fp64)]);
    assert_eq!(e.bytes(), 4096.0 + 8.0 + 4096.0);
    // A broadcast operand counts its footprint: add(x[32,2048,7,7], b[32,2048,1,1] expanded, strides [2048,1,0,0]).
    let e = est("aten::add", &[t(&[32, 2048, 7, 7], BF), strided(&[32, 2048, 7, 7], &[2048, 1, 0, 0], BF)]);
    assert_eq!(e.bytes(), 2.0 * 3_211_264.0 * 2.0 + 65_536.0 * 2.0);
    // ternary addcmul_ in place: 2 FLOPs per element, three read, the first written.
    let e = est("aten::addcmul_", &[a.clone(), a.clone(), a.clone(), s("0.5")]);
    assert_eq!((e.useful_flops(), e.bytes(), e.written_bytes()), (2.0 * 1_048_576.0, 8.0 * 1_048_576.0, 2_097_152.0));
    // where(cond bool, a, b): 1 + 2 + 2 read, 2 written.
    let e = est("aten::where", &[t(&[1024, 1024], Dtype::Bool), a.clone(), a.clone()]);
    assert_eq!(e.bytes(), 7.0 * 1_048_576.0);
    // fill_: written only.
    assert_eq!(est("aten::fill_", &[a.clone(), s("0")]).bytes(), 2_097_152.0);
    // copy_(dst bf16, src fp32): a cast, 4 read + 2 written, no FLOPs.
    let e = est("aten::copy_", &[a.clone(), t(&[1024, 1024], Dtype::Fp32), s("False")]);
    assert_eq!((e.class, e.useful_flops(), e.bytes()), (OpClass::Copy, 0.0, 6.0 * 1_048_576.0));
    // _to_copy(x bf16, dtype=6 (float)): 2 read + 4 written.
    assert_eq!(est("aten::_to_copy", &[a, s("6")]).bytes(), 6.0 * 1_048_576.0);
}

#[test]
fn reductions_embedding_indexing_and_cat() {
    // sum(x[4096,768] bf16, [0]): one FLOP per element; bytes x + 768 out.
    let x = t(&[4096, 768], BF);
    let e = est("aten::sum", &[x.clone(), sl("[0]"), s("False"), Arg::None]);
    assert_eq!((e.class, e.useful_flops(), e.bytes()), (OpClass::Reduction, 3_145_728.0, 6_291_456.0 + 1_536.0));
    // mean over the last two dims of [32,2048,7,7] → 65,536 outputs.
    let e = est("aten::mean", &[t(&[32, 2048, 7, 7], BF), sl("[-1, -2]"), s("True"), Arg::None]);
    assert_eq!(e.bytes(), 3_211_264.0 * 2.0 + 65_536.0 * 2.0);
    // embedding(weight[50257,768] fp32, ids[8,512]): 4096 rows read and written, ids 4096·8.
    let e = est("aten::embedding", &[t(&[50257, 768], Dtype::Fp32), t(&[8, 512], Dtype::Int64)]);
    assert_eq!(e.bytes(), 32_768.0 + 2.0 * 4096.0 * 768.0 * 4.0);
    // embedding_dense_backward(grad[8,512,768], ids[8,512], 50257): grad, ids twice, 4096 rows read and written.
    let e = est(
        "aten::embedding_dense_backward",
        &[t(&[8, 512, 768], Dtype::Fp32), t(&[8, 512], Dtype::Int64), s("50257")],
    );
    assert_eq!(e.bytes(), 12_582_912.0 + 65_536.0 + 2.0 * 12_582_912.0);
    // gather(x, 0, index[4096,768] int64): index + values read and written.
    let e = est("aten::gather", &[t(&[50257, 768], Dtype::Fp32), s("0"), t(&[4096, 768], Dtype::Int64), s("False")]);
    assert_eq!(e.bytes(), 4096.0 * 768.0 * (8.0 + 8.0));
    // index_select(x[100,64], 0, idx[10]): 10 rows of 64.
    let e = est("aten::index_select", &[t(&[100, 64], Dtype::Fp32), s("0"), t(&[10], Dtype::Int64)]);
    assert_eq!(e.bytes(), 80.0 + 2.0 * 640.0 * 4.0);
    // scatter_add_(x, 0, idx[10,64], src[10,64]): src read, destination read and written, 1 FLOP each.
    let e = est(
        "aten::scatter_add_",
        &[t(&[100, 64], Dtype::Fp32), s("0"), t(&[10, 64], Dtype::Int64), t(&[10, 64], Dtype::Fp32)],
    );
    assert_eq!((e.useful_flops(), e.bytes()), (640.0, 640.0 * 8.0 + 640.0 * 4.0 * 3.0));
    // cat([a, b, c] of [8,512,768] bf16): read and written once each.
    let part = Tensor::new(&[8, 512, 768], BF);
    let e = est("aten::cat", &[Arg::TensorList(vec![part.clone(), part.clone(), part]), s("2")]);
    assert_eq!((e.class, e.bytes()), (OpClass::Cat, 2.0 * 3.0 * 6_291_456.0));
}

#[test]
fn optimizer_steps() {
    // _foreach_mul_([p0[1024], p1[1024,1024]], 0.9): 1,049,600 elements, 1 FLOP each, read and written.
    let list = Arg::TensorList(vec![Tensor::new(&[1024], Dtype::Fp32), Tensor::new(&[1024, 1024], Dtype::Fp32)]);
    let e = est("aten::_foreach_mul_", &[list.clone(), s("0.9")]);
    assert_eq!((e.class, e.useful_flops(), e.bytes()), (OpClass::Optimizer, 1_049_600.0, 2.0 * 4.0 * 1_049_600.0));
    // _foreach_addcdiv_(self, t1, t2, scalars): three lists read, one written, 2 FLOPs each.
    let e = est("aten::_foreach_addcdiv_", &[list.clone(), list.clone(), list.clone(), sl("[0.1]")]);
    assert_eq!((e.useful_flops(), e.bytes()), (2.0 * 1_049_600.0, 4.0 * 4.0 * 1_049_600.0));
    // _fused_adamw_(params, grads, m, v, ...): 7 moves of 4 B per parameter, 16 FLOPs each.
    let e = est("aten::_fused_adamw_", &[list.clone(), list.clone(), list.clone(), list.clone()]);
    assert_eq!((e.useful_flops(), e.bytes()), (16.0 * 1_049_600.0, 28.0 * 1_049_600.0));
    // Lists the profiler recorded without shapes: no estimate, and the reason.
    let err = estimate("aten::_foreach_mul_", &[Arg::TensorList(vec![]), s("0.9")]).unwrap_err();
    assert!(matches!(err, NoEstimate::Unrecorded(ref w) if w.contains("without shapes")), "{err}");
}

#[test]
fn an_inductor_kernel_says_which_operators_it_fuses() {
    // triton_poi_fused_add_gelu_3(in[16384,4096] bf16, out[16384,4096] bf16, xnumel): each argument once.
    let a = t(&[16384, 4096], BF);
    let e = est("triton_poi_fused_add_gelu_3", &[a.clone(), a, s("67108864")]);
    assert_eq!(e.class, OpClass::Fused);
    assert_eq!(e.fused, ["add", "gelu"]);
    assert_eq!(e.bytes(), 2.0 * 134_217_728.0);
    assert_eq!(e.useful_flops(), 2.0 * 67_108_864.0);
    let e = est("triton_per_fused__to_copy_add_native_layer_norm_5", &[t(&[8, 8], BF)]);
    assert_eq!(e.fused, ["_to_copy", "add", "native_layer_norm"]);
}

#[test]
fn unknown_operators_are_told_apart_from_unrecorded_ones() {
    assert_eq!(estimate("aten::frobnicate", &[t(&[4], BF)]).unwrap_err(), NoEstimate::Unknown);
    assert!(matches!(estimate("aten::mm", &[t(&[4, 4], BF)]).unwrap_err(), NoEstimate::Unrecorded(_)));
}

#[test]
fn a_gemm_with_a_dimension_off_the_sixteen_byte_grid_runs_an_unaligned_fallback() {
    // GPT-2's LM head, forward: x[4096,768] · Wᵀ, W [50257,768] seen as a
    // transposed view [768,50257] (strides [1,768]). A's rows are 768
    // elements (a multiple of 8 at bf16), B's leading dimension is 768
    // (the view's larger stride), C's rows are n = 50257 elements: 100,514
    // bytes, not a multiple of 16.
    let x = t(&[4096, 768], BF);
    let wt = strided(&[768, 50257], &[1, 768], BF);
    let u = est("aten::mm", &[x.clone(), wt]).unaligned.expect("C is unaligned");
    assert_eq!((u.operand, u.leading, u.multiple), ("C", 50257, 8));
    // Backward, grad_input = dY[4096,50257] · W[50257,768]: A's rows are 50257.
    let dy = t(&[4096, 50257], BF);
    let u = est("aten::mm", &[dy.clone(), t(&[50257, 768], BF)]).unaligned.unwrap();
    assert_eq!((u.operand, u.leading), ("A", 50257));
    // grad_weight = dYᵀ · x: dYᵀ is [50257,4096] with strides [1,50257].
    let dyt = strided(&[50257, 4096], &[1, 50257], BF);
    let u = est("aten::mm", &[dyt, x.clone()]).unaligned.unwrap();
    assert_eq!((u.operand, u.leading), ("A", 50257));
    // The vocabulary padded to 50304 (a multiple of 64): every row starts on 16 bytes.
    let wt = strided(&[768, 50304], &[1, 768], BF);
    assert_eq!(est("aten::mm", &[x.clone(), wt]).unaligned, None);
    // FP32 needs a multiple of 4 elements: 50258 is 2 off it, 50260 is on it.
    let f = Dtype::Fp32;
    let u = est("aten::mm", &[t(&[64, 32], f), t(&[32, 50258], f)]).unaligned.unwrap();
    assert_eq!((u.operand, u.leading, u.multiple), ("B", 50258, 4));
    assert_eq!(est("aten::mm", &[t(&[64, 32], f), t(&[32, 50260], f)]).unaligned, None);
    // 8-bit operands need 16 elements: k = 40 is unaligned at FP8, aligned at bf16.
    let fp8 = Dtype::Fp8;
    let e = est("aten::_scaled_mm", &[t(&[128, 40], fp8), t(&[40, 32], fp8), t(&[1], f), t(&[1], f)]);
    assert_eq!(e.unaligned.map(|u| (u.operand, u.leading, u.multiple)), Some(("A", 40, 16)));
    assert_eq!(est("aten::mm", &[t(&[128, 40], BF), t(&[40, 32], BF)]).unaligned, None);
    // A matrix-vector product is not a GEMM: no fallback is claimed.
    assert_eq!(est("aten::matmul", &[t(&[4096, 50257], BF), t(&[50257], BF)]).unaligned, None);
    // The estimate's formula says so, for every view that shows it.
    assert!(est("aten::mm", &[dy, t(&[50257, 768], BF)]).formula.contains("not a multiple of 8 elements"));
}

#[test]
fn convolution_channels_off_the_tensor_core_grid_are_issued_padded() {
    // ResNet's stem, bf16: x[32,3,224,224], w[64,3,7,7], stride 2, padding 3: out 112x112.
    // Useful: 2·32·64·12544·3·49 = 7,552,892,928. cuDNN's tensor-core kernels
    // load channels in 16-byte rows (8 at bf16): C 3 is padded to 8, so the
    // issued FLOPs are 8/3 of them: 20,141,047,808.
    let x = t(&[32, 3, 224, 224], BF);
    let w = t(&[64, 3, 7, 7], BF);
    let e = est("aten::cudnn_convolution", &[x.clone(), w.clone(), sl("[3, 3]"), sl("[2, 2]"), sl("[1, 1]"), s("1")]);
    assert_eq!(e.useful_flops(), 7_552_892_928.0);
    assert_eq!(e.issued_flops(), 20_141_047_808.0);
    assert!(e.formula.contains("C 3 -> 8"), "{}", e.formula);
    // Its weight gradient (the stem's only backward pass) is padded the same way.
    let g = t(&[32, 64, 112, 112], BF);
    let e = est(
        "aten::convolution_backward",
        &[
            g,
            x,
            w,
            sl("[0]"),
            sl("[2, 2]"),
            sl("[3, 3]"),
            sl("[1, 1]"),
            s("False"),
            sl("[0, 0]"),
            s("1"),
            sl("[False, True, False]"),
        ],
    );
    assert_eq!((e.useful_flops(), e.issued_flops()), (7_552_892_928.0, 20_141_047_808.0));
    // Output channels too: K 60 pads to 64 (C 64 is on the grid): issued 64/60 of useful.
    let x = t(&[8, 64, 16, 16], BF);
    let e = est(
        "aten::cudnn_convolution",
        &[x.clone(), t(&[60, 64, 1, 1], BF), sl("[0, 0]"), sl("[1, 1]"), sl("[1, 1]"), s("1")],
    );
    assert_eq!(e.issued_flops(), e.useful_flops() * 64.0 / 60.0);
    // Channels on the grid issue what is useful (every convolution of the H200 fixtures).
    let e =
        est("aten::cudnn_convolution", &[x, t(&[128, 64, 3, 3], BF), sl("[1, 1]"), sl("[1, 1]"), sl("[1, 1]"), s("1")]);
    assert_eq!(e.issued_flops(), e.useful_flops());
    // FP32 runs on the CUDA cores here: nothing is padded.
    let f = Dtype::Fp32;
    let e = est(
        "aten::cudnn_convolution",
        &[t(&[32, 3, 224, 224], f), t(&[64, 3, 7, 7], f), sl("[3, 3]"), sl("[2, 2]"), sl("[1, 1]"), s("1")],
    );
    assert_eq!(e.issued_flops(), e.useful_flops());
}
