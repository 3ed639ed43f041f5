"""Expert verdicts for the round-13 captures.  Standard library only.

    python3 verdicts.py            # writes verdicts.tsv next to this file

Every figure in the TSV is computed from the ncu raw CSVs by metrics.py; the
judgement (origin, position, limiter, move) is mine and is written below, one
entry per kernel group with >= 0.5% of its capture's GPU time.  See NOTES.md.
"""
import os
import metrics

HERE = os.path.dirname(os.path.abspath(__file__))
US = 1e6


def us(a):
    return a["t"] * US


def per(a, i):
    return a["launches"][i]["t"] * US


def mb(x):
    return x / 1e6


def common(a):
    """Figures every reason carries."""
    return ("%d launch(es), %.1f us, SM clock %.0f MHz; grid/block %s; waves %.2f; occupancy theo/achieved %.0f/%.0f%%; "
            "DRAM %.1f MB (rd %.1f, wr %.1f), SM->L2 writes %.1f MB, effective stream %.2f TB/s = %.0f%% of the measured %.2f TB/s roof "
            "(ncu dram %.0f%%, lts %.0f%%, l1tex %.0f%%); issue active %.0f%%; top stalls %s"
            % (a["n"], us(a), a["clk"] / 1e6, "; ".join(sorted(set("%s x %s" % (x["grid"], x["block"]) for x in a["launches"]))),
               a["waves"], a["occ_theo"], a["occ_ach"], mb(a["dram"]), mb(a["dram_rd"]), mb(a["dram_wr"]), mb(a["tex_wr"]),
               a["eff_bytes"] / a["t"] / 1e12, a["u_eff"], a["roof_eff"] / 1e12, a["pct_dram"], a["pct_l2"], a["pct_l1"],
               a["pct_issue"], metrics.top_stalls(a, 3)))


def tens(a):
    return ("tensor %.3g FLOP (%s) = %.0f TFLOP/s = %.0f%% of the measured %s roof scaled to %.0f MHz (%.0f TFLOP/s)"
            % (a["tensor"], a["tensor_kind"], a["r_tensor"] / 1e12, a["u_tensor"],
               {"fp16": "FP16", "bf16_dst_fp32": "BF16", "tf32_dst_fp32": "TF32"}.get(a["tensor_kind"], "FP16"),
               a["clk"] / 1e6, a["roof_tensor"] / 1e12))


def ipe(a, elems):
    """thread instructions per element"""
    return a["inst"] * 32 / elems


def hi(a):
    return max(a["u_eff"], a["pct_issue"], a["pct_l1"], a["pct_l2"], a["u_tensor"], a["u_fp32"])


PCT = {
    "issue": lambda a: a["pct_issue"],
    "dram": lambda a: a["u_eff"],
    "l2": lambda a: a["pct_l2"],
    "l1": lambda a: a["pct_l1"],
    "tensor": lambda a: a["u_tensor"],
    "latency": hi,
    "launch": hi,
}

COPY = 4.0e12  # what a good streaming kernel sustains here (~90% of the 4.28-4.70 measured roofs)

V = []


def v(cap, prefix, origin, pos, lim, move, save, why):
    V.append(dict(cap=cap, prefix=prefix, origin=origin, pos=pos, lim=lim, move=move, save=save, why=why))


TC = "torch.compile the model (Inductor)"
# ----------------------------------------------------------------------------------------- segformer_infer
S = "segformer_infer"
v(S, "void at::<unnamed>::upsample_bilinear2d_nhwc_out_frame",
  "transformers SegformerDecodeHead: nn.functional.interpolate(bilinear, align_corners=False) of each linear_c-projected stage map (256 ch) up to 128x128; "
  "the map is channels-last-strided after SegformerMLP's permute/reshape, so PyTorch runs upsample_bilinear2d_nhwc_out_frame (one thread per output element). "
  "Captured: the stage-2 (64x64) and stage-3 (32x32) maps; 16x256x128x128 fp16 = 134 MB written per launch",
  "issue", "issue",
  TC + " (or at least the decode head): Inductor decomposes upsample_bilinear2d into a fused Triton pointwise kernel with cheap 32-bit index math that writes "
  "straight into the torch.cat buffer (and folds the preceding bias add), so each 134 MB output is written at DRAM speed",
  lambda a: us(a) - a["n"] * (134.2e6 / COPY * US + 2.0),
  lambda a: common(a) + "; %.0f instructions per output element (3 integer div/mod + float source index + 4 gathers per element), ALU pipe %.0f%%, XU %.0f%%, FMA %.0f%%; "
  "memory is idle (DRAM %.2f TB/s). Ideal: 134 MB per launch at ~4.0 TB/s = ~34 us + ~2 us, vs %.0f us measured"
  % (ipe(a, 2 * 16 * 256 * 128 * 128), a["pipe_alu"], a["pipe_xu"], a["pipe_fma"], a["bw_dram"] / 1e12, per(a, 0)))
v(S, "void at::<unnamed>::vectorized_layer_norm_kernel<c10::Half",
  "transformers SegformerLayer.layer_norm_1 / layer_norm_2 (nn.LayerNorm(32)) over 262144 tokens (16x128x128) and SegformerEfficientSelfAttention.layer_norm after the "
  "sr conv (4096 tokens): PyTorch vectorized_layer_norm_kernel launches one 128-thread block per 32-element row",
  "issue", "issue",
  TC + ": Inductor's LayerNorm packs many 32-wide rows per block (persistent reduction), turning the 262144-block launch into a bandwidth-bound pass",
  lambda a: us(a) - 2 * (2 * 16.78e6 / COPY * US + 1.5) - 2.5,
  lambda a: common(a) + "; 262144 blocks of 128 threads for rows of 32 halfs (8 threads hold data), 124 waves; %.0f warp-instructions per row; "
  "ALU %.0f%%, barrier stalls lead; DRAM %.2f TB/s. Ideal per big launch: 16.8 MB in + 16.8 MB out at ~4 TB/s = ~8.4 us (+1.5) vs %.0f us"
  % (a["inst"] / (2 * 262144 + 4096), a["pipe_alu"], a["bw_dram"] / 1e12, per(a, 0)))
v(S, "void at::elementwise_kernel<128, 4, void at::gpu_kernel_impl_nocast<at::CUDAFunctor_add<c10::Half>>",
  "bias adds PyTorch issues separately: F.linear on the decode head's non-contiguous flatten(2).transpose(1,2) input takes the matmul + add_ path "
  "(linear_c1/c2/c3: 67.1M/16.8M/4.2M elements) and the cuDNN convs' bias add (Mix-FFN depthwise conv 33.5M, sr conv 131K); broadcast bias -> non-vectorized elementwise_kernel",
  "issue", "issue",
  TC + " so the biases are folded into the GEMM epilogues / fused into the following GELU, upsample and cat (in the decode head, feeding F.linear a contiguous input also "
  "lets it use addmm's fused cuBLASLt bias epilogue)",
  lambda a: 0.9 * us(a),
  lambda a: common(a) + "; 121.8M fp16 elements over 5 launches, %.0f instructions per element (strided OffsetCalculator, 2-byte scalar accesses), ALU %.0f%%; "
  "the kernels vanish when the bias is fused, keep ~10%% for the extra epilogue work" % (ipe(a, 121.8e6), a["pipe_alu"]))
v(S, "void at::elementwise_kernel<128, 4, void at::gpu_kernel_impl_nocast<at::direct_copy_kernel_cuda",
  "decode-head SegformerMLP: hidden_states.flatten(2).transpose(1,2) made contiguous by F.linear/matmul (NCHW stage maps, 8.4M/4.2M/2.6M/1.0M fp16 elements), "
  "plus the sr-conv weight copy to channels-last (65536 elements)",
  "under the diagonal", "l1",
  TC + " (Inductor emits a tiled transpose or lets the GEMM read the NCHW map as a transposed operand), removing the strided gathers",
  lambda a: us(a) - 2 * (2 * 2 * (8.4 + 4.2 + 2.6 + 1.0) * 1e6 / 2) / COPY * US - 5 * 2.0,
  lambda a: common(a) + "; loads use %.1f of 32 bytes per sector (transposed 2-byte reads), so L1 wavefronts are %.0f%% busy while DRAM moves %.2f TB/s; "
  "ideal ~65 MB at ~4 TB/s = ~16 us + launch floors" % (a["ld_bytes_per_sector"], a["pct_lsu_wavefronts"], a["bw_dram"] / 1e12))
v(S, "nvjet_sm90_hsh_128x256_64x4_1x2_h_bz_coopA_bias_TNN",
  "cuBLASLt GEMM (nvjet, bias epilogue) for SegformerMixFFN.dense1, Linear(32 -> 128) over 262144 tokens, fp16",
  "under the diagonal", "dram",
  "torch.compile(mode='max-autotune') so Inductor can pick a tile that fits N=128, K=32 (the 128x256 tile wastes half its width) and keep this memory-bound GEMM streaming",
  lambda a: us(a) - 83.9e6 / (0.7 * 4.4e12) * US,
  lambda a: common(a) + "; " + tens(a) + " (2x the 2.15 GFLOP of useful work: N=128 on a 256-wide tile); AI %.0f FLOP/B, below the ridge, so memory-bound; "
  "16.8 MB in + 67 MB out = 84 MB compulsory -> ~27 us at 70%% of the roof" % a["ai_dram"])
v(S, "conv2d_c1_k1_nhwc_specialized",
  "cuDNN depthwise 3x3 conv (groups=128) of SegformerMixFFN.dwconv, NHWC fp16, 16x128x128x128",
  "under the diagonal", "dram",
  "nothing to do: cuDNN's NHWC depthwise kernel already streams its 134 MB at ~2.4 TB/s; the real waste around it is the separate bias add (see the add row)",
  0.0,
  lambda a: common(a) + "; FP32 pipe %.0f%% (fp32 accumulate), ld %.1f B/sector (3x3 halo); 134 MB compulsory -> at most ~20 us to gain, not reachable from user code"
  % (a["u_fp32"], a["ld_bytes_per_sector"]))
v(S, "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16",
  "F.scaled_dot_product_attention in SegformerEfficientSelfAttention (SDPA attention interface) -> cuDNN flash fprop: 16 x 1 head x 16384 queries x 256 keys (sr ratio 8), head dim 32",
  "under the roof", "tensor",
  "nothing to do: library fused attention; with head dim 32 padded to the 64-wide tile and only 256 keys, the per-tile softmax/fill work dominates and no backend choice fixes that",
  0.0,
  lambda a: common(a) + "; " + tens(a) + "; useful work is 8.6 GFLOP (half of the counted ops: head dim 32 runs on a 64-wide tile); XU %.0f%% (exp), ALU %.0f%%, 1 CTA/SM"
  % (a["pipe_xu"], a["pipe_alu"]))
v(S, "nvjet_sm90_hsh_128x192_64x5_2x1_v_bz_coopB_TNN",
  "cuBLASLt GEMM for decode-head linear_c1, Linear(32 -> 256) over 262144 tokens (no bias epilogue: matmul path, bias added afterwards)",
  "on the diagonal", "dram",
  "nothing to do for the GEMM: it writes its 134 MB output near the streaming roof; the bias it leaves behind is counted on the add row",
  0.0,
  lambda a: common(a) + "; " + tens(a) + "; AI %.0f FLOP/B -> memory-bound on the 134 MB fp16 output" % a["ai_dram"])
v(S, "void at::vectorized_elementwise_kernel<8, at::GeluCUDAKernelImpl",
  "nn.GELU (exact erf) in SegformerMixFFN on the 16x16384x128 fp16 hidden",
  "on the diagonal", "dram",
  "nothing to do on its own: one read and one write of 67 MB each at ~73% of the roof with erf math at 75% issue; under torch.compile it absorbs the dwconv bias add at no extra cost (saving counted on the add row)",
  0.0,
  lambda a: common(a) + "; ALU %.0f%%, FMA %.0f%%, XU %.0f%%: the exact-erf polynomial makes it nearly issue-bound too" % (a["pipe_alu"], a["pipe_fma"], a["pipe_xu"]))
v(S, "nvjet_sm90_hsh_32x256_64x5_1x2_h_bz_bias_TNN",
  "cuBLASLt GEMMs for SegformerEfficientSelfAttention.query and SegformerSelfOutput.dense, Linear(32 -> 32) over 262144 tokens",
  "under the diagonal", "dram",
  "nothing to do: K=N=32 GEMMs, 33.6 MB each, ~17 us vs ~8 us ideal; too small to justify a change",
  0.0,
  lambda a: common(a) + "; " + tens(a))
v(S, "void at::vectorized_elementwise_kernel<8, at::CUDAFunctor_add<c10::Half>",
  "residual adds in SegformerLayer (attention output + input, Mix-FFN output + input), 8.4M fp16 elements each",
  "on the diagonal", "dram",
  TC + " to fuse the residual add with the following LayerNorm (one read of the sum instead of write + re-read)",
  lambda a: us(a) / 3.0,
  lambda a: common(a) + "; 50 MB per launch; fusion removes about a third of the bytes")
v(S, "sm80_xmma_fprop_implicit_gemm_indexed_f16f16_f16f32_f32_nhwckrsc_nhwc",
  "cuDNN implicit-GEMM forward for SegformerEfficientSelfAttention.sr, Conv2d(32, 32, 8, stride 8) on 16x32x128x128 (M=4096, N=32, K=2048)",
  "latency", "latency",
  "torch.backends.cudnn.benchmark = True so cuDNN times its algorithms instead of the heuristic 128-CTA (0.32-wave) tile; equivalently express the patchify conv as reshape + GEMM",
  lambda a: us(a) - 17.7e6 / (0.7 * 4.4e12) * US - 3.0,
  lambda a: common(a) + "; " + tens(a) + "; 128 CTAs of 128 threads on 132 SMs, no split-K for K=2048: reads 17 MB at %.2f TB/s" % (a["bw_dram"] / 1e12))
v(S, "nvjet_sm90_hsh_32x512_64x3_1x2_h_bz_bias_TNN",
  "cuBLASLt GEMM for SegformerMixFFN.dense2, Linear(128 -> 32) over 262144 tokens",
  "on the diagonal", "dram",
  "nothing to do: streams its 67 MB input at ~79% of the roof",
  0.0,
  lambda a: common(a) + "; " + tens(a))
v(S, "nvjet_sm90_hsh_128x256_64x4_2x1_v_bz_coopA_TNN",
  "cuBLASLt GEMMs for decode-head linear_c2 (64 -> 256, 65536 tokens) and linear_c3 (160 -> 256, 16384 tokens), matmul path without bias",
  "under the diagonal", "dram",
  "nothing to do: 13 us and 8.5 us GEMMs near their memory floor once launch/fill is counted",
  0.0,
  lambda a: common(a) + "; " + tens(a))

# ----------------------------------------------------------------------------------------- levit_train
L = "levit_train"
TCL = "torch.compile the model (timm train.py --torchcompile)"
v(L, "void at::batch_norm_collect_statistics_channels_last_kernel",
  "timm LeViT LinearNorm's BatchNorm1d in training mode: batch mean/var of the 12544 x C bf16 GEMM outputs (stage-2 MLP ln1 C=512, ln2 C=256, attention qkv C=384); "
  "PyTorch batch_norm_collect_statistics_channels_last_kernel (2-D input takes the channels-last path)",
  "latency", "latency",
  TCL + ": Inductor computes the BN batch statistics with a split reduction at near-DRAM speed and fuses the normalisation and the following Hardswish",
  lambda a: us(a) - 29.6e6 / (0.6 * 4.5e12) * US - 3 * 2.0,
  lambda a: common(a) + "; reads only %.1f MB in %.0f us (%.2f TB/s): grids of 392-784 blocks that loop over rows and finish with a grid-wide semaphore reduction; "
  "ideal 29.6 MB at ~2.7 TB/s = 11 us + 6 us" % (mb(a["dram_rd"]), us(a), a["bw_dram"] / 1e12))
v(L, "void at::batch_norm_transform_input_channels_last_kernel",
  "the normalise step of the same LinearNorm BatchNorm1d (training) on the 12544 x C bf16 activations",
  "under the diagonal", "dram",
  TCL + " (normalisation fused with the statistics pass and the next elementwise op)",
  lambda a: us(a) - a["eff_bytes"] / (0.9 * 4.28e12) * US,
  lambda a: common(a) + "; 0.7-1.5 waves of 512-thread blocks, so the grid drains before DRAM saturates; %.1f MB compulsory -> %.0f us at 90%% of the copy roof"
  % (mb(a["eff_bytes"]), a["eff_bytes"] / (0.9 * 4.28e12) * US))
v(L, "nvjet_sm90_tst_128x192_64x5_2x1_v_bz_coopB_TNN",
  "cuBLASLt bf16 GEMMs of the stage-2 LevitMlp: ln1 Linear(256 -> 512) and ln2 Linear(512 -> 256), M = 256 x 49 = 12544 (bf16 autocast)",
  "under the roof", "tensor",
  "nothing to do: 3.3-GFLOP GEMMs (~10 us) bound by tile/wave quantisation (294 128x192 tiles on 132 SMs, N=512 not a multiple of 192) and pipeline fill; already bf16",
  0.0,
  lambda a: common(a) + "; " + tens(a))
v(L, "void at::elementwise_kernel<128, 4, void at::gpu_kernel_impl<at::CUDAFunctor_add<float>>",
  "timm LeViT Attention: attn = q @ k^T * scale + attention_biases[:, attention_bias_idxs]; bf16 scores + fp32 bias -> fp32 (type promotion), broadcast over the batch: "
  "non-vectorized casting elementwise_kernel, 256 x 6 x 49 x 49 = 3.69M elements",
  "issue", "issue",
  TCL + " so scale, bias add, softmax and the bf16 cast become one kernel (alternative: F.scaled_dot_product_attention(q, k, v, attn_mask=bias), whose efficient kernel takes an additive bias)",
  lambda a: us(a) - 1.0,
  lambda a: common(a) + "; %.0f instructions per element (dynamic casts + 4-D broadcast offsets), ALU %.0f%%; 22 MB compulsory = ~5 us at the roof, and 0 once fused"
  % (ipe(a, 3.69e6), a["pipe_alu"]))
v(L, "void at::elementwise_kernel<128, 4, void at::gpu_kernel_impl_nocast<at::direct_copy_kernel_cuda",
  "timm LeViT Attention: q.permute(0,2,1,3) and k.permute(0,2,3,1) made contiguous for the batched q @ k^T (1.2M bf16 elements each)",
  "latency", "latency",
  TCL + " (the permutes fold into one producer kernel or into the matmul's strides)",
  lambda a: us(a) - 2 * 2.0,
  lambda a: common(a) + "; 2.4 MB in / 2.4 MB out per launch in 7-9 us; 1.1 waves, ld %.1f B/sector" % a["ld_bytes_per_sector"])
v(L, "void at::vectorized_elementwise_kernel<8, at::bfloat16_copy_kernel_cuda",
  "autocast fp32 -> bf16 casts: the LinearNorm weights each step (256x512, 512x256, 256x384: 96-128 blocks) and the fp32 softmax output -> bf16 for attn @ v (3.69M elements)",
  "launch", "launch",
  TCL + ": softmax writes bf16 directly and the weight casts are fused/batched",
  lambda a: per(a, 3) + 0.4 * (us(a) - per(a, 3)),
  lambda a: common(a) + "; three launches of %.1f-%.1f us at 0.05-0.06 waves are pure launch overhead; the fourth (%.1f us) streams 22 MB at ~3.1 TB/s, on the diagonal"
  % (min(per(a, i) for i in range(3)), max(per(a, i) for i in range(3)), per(a, 3)))
v(L, "void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_64x64_nn_align1>",
  "cuBLAS batched bf16 GEMM for LeViT Attention q @ k^T: 1536 = 256 x 6 heads of (49x16)@(16x49); 49-wide rows force an align1 (scalar-load) sm75 mma.sync kernel",
  "issue", "issue",
  "F.scaled_dot_product_attention(q, k, v, attn_mask=attention_bias) to fuse the whole attention (or " + TCL + ", which pads the 49-wide strides so cuBLAS can use aligned kernels)",
  lambda a: us(a) - 3.0,
  lambda a: common(a) + "; " + tens(a) + " (118 MFLOP useful); ld %.1f B/sector, ALU %.0f%%, LSU %.0f%%: address arithmetic and 2-byte loads, not the tensor pipe, bind it"
  % (a["ld_bytes_per_sector"], a["pipe_alu"], a["pipe_lsu"]))
v(L, "void <unnamed>::softmax_warp_forward<float, float, float",
  "attn.softmax(dim=-1) in LeViT Attention, fp32 (autocast runs softmax in fp32), 75264 rows of 49",
  "issue", "issue",
  TCL + " (scale + bias + softmax + bf16 cast in one kernel, reading bf16 scores and writing bf16 probabilities)",
  lambda a: us(a) - 4.0,
  lambda a: common(a) + "; 49-wide rows on a 64-lane warp layout, XU %.0f%% (exp), LSU %.0f%%; a fused kernel moves 15 MB instead of 30 MB here" % (a["pipe_xu"], a["pipe_lsu"]))
v(L, "nvjet_sm90_tst_192x192_64x4_2x1_v_bz_coopB_TNN",
  "cuBLASLt bf16 GEMM of LeViT Attention.qkv LinearNorm, Linear(256 -> 384), M = 12544",
  "under the roof", "tensor",
  "nothing to do: a 2.5-GFLOP GEMM that is exactly one wave of 132 192x192 tiles with a 4-step K loop; fill/drain bound",
  0.0,
  lambda a: common(a) + "; " + tens(a))
v(L, "void at::vectorized_elementwise_kernel<8, at::<unnamed>::hardswish_kernel",
  "nn.Hardswish in LevitMlp between ln1 and ln2 (6.4M bf16 elements)",
  "on the diagonal", "dram",
  TCL + " to fuse Hardswish into the BatchNorm normalise pass",
  lambda a: us(a) - 0.5,
  lambda a: common(a) + "; 25.7 MB at %.2f TB/s" % (a["eff_bytes"] / a["t"] / 1e12))
v(L, "void at::<unnamed>::unrolled_elementwise_kernel_for_multi_outputs<3, at::<unnamed>::batch_norm_update_stats_and_invert",
  "BatchNorm1d training: running_mean/var update and invstd (one block, a few hundred channels)",
  "launch", "launch",
  TCL + " (the update is fused into the statistics reduction)",
  lambda a: us(a) - 0.5,
  lambda a: common(a) + "; single 128-thread block, ~2.5 us each: fixed launch cost")
v(L, "void at::vectorized_elementwise_kernel<2, at::CUDAFunctorOnSelf_add<long>",
  "BatchNorm1d training: num_batches_tracked += 1 (one int64 per BN)",
  "launch", "launch",
  TCL + " (the scalar increments are fused/batched)",
  lambda a: us(a) - 0.5,
  lambda a: common(a) + "; one element per launch")
v(L, "void at::vectorized_elementwise_kernel<8, at::AUnaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, binary_internal::MulFunctor<float>>",
  "LeViT Attention: (q @ k^T) * self.scale on the bf16 scores (3.69M elements)",
  "on the diagonal", "dram",
  TCL + " (or fold the scale into q / the bmm alpha) so the multiply disappears into the fused score kernel",
  lambda a: us(a) - 0.5,
  lambda a: common(a) + "; 14.8 MB at %.2f TB/s in a 1.7-wave grid" % (a["eff_bytes"] / a["t"] / 1e12))
v(L, "void at::vectorized_elementwise_kernel<4, at::FillFunctor<int>",
  "zero-fill of the int semaphore buffer that batch_norm_collect_statistics_channels_last uses for its grid reduction",
  "launch", "launch",
  TCL + " (Inductor's BN reduction needs no semaphore buffer)",
  lambda a: us(a),
  lambda a: common(a) + "; a one-block fill, ~1.8 us each")
v(L, "void at::index_elementwise_kernel<128, 4, void at::gpu_index_kernel",
  "LeViT Attention.get_attention_biases in training: attention_biases[:, attention_bias_idxs] gather (6 x 49 x 49 fp32)",
  "latency", "latency",
  TCL + " (the gather is fused into the bias add as an indirect load)",
  lambda a: us(a) - 0.5,
  lambda a: common(a) + "; 29 blocks (0.02 waves), dependent index-then-value loads: latency, not bandwidth")

# ----------------------------------------------------------------------------------------- encoder_mlm_fp16_train
E = "encoder_mlm_fp16_train"
v(E, "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_bias_TNT",
  "cuBLASLt fp16 GEMMs with bias epilogue in encoder layer 3 forward: MHA out_proj (8192x512x512), linear1 (512 -> 2048) and linear2 (2048 -> 512), M = 32 x 256 = 8192",
  "on the roof", "tensor",
  "nothing to do: fp16 GEMMs at ~81% of the measured cuBLASLt FP16 roof at their (power-capped, 1.68-1.79 GHz) clock; only the small out_proj (0.97 wave, 8 K-steps) is below",
  0.0,
  lambda a: common(a) + "; " + tens(a) + "; per launch %.0f/%.0f/%.0f us" % (per(a, 0), per(a, 1), per(a, 2)))
v(E, "void native::<unnamed>::fused_dropout_kernel_vec<c10::Half",
  "nn.Dropout(0.1) in TransformerEncoderLayer: dropout after self-attention (4.2M), inside the feed-forward after GELU (16.8M) and after linear2 (4.2M); writes output + bool mask",
  "on the diagonal", "dram",
  TC + ": dropout fused into the GELU kernel and into the residual adds, so the activation is not written and re-read",
  lambda a: 16.0 + 2 * 7.0,
  lambda a: common(a) + "; Philox RNG keeps ALU at %.0f%% and issue at %.0f%%; fusing the FF dropout into GELU saves its 33.5 MB read (~16 us of 29 us), "
  "the two 4.2M dropouts fuse into the residual adds (~7 us each)" % (a["pipe_alu"], a["pct_issue"]))
v(E, "void native::vectorized_elementwise_kernel<8, native::float16_copy_kernel_cuda",
  "autocast fp32 -> fp16 casts each step: the layer's weights/biases (in_proj 1536x512, out_proj 512x512, linear1/2 2048x512) and the fp32 LayerNorm outputs "
  "(8192x512) before the GEMMs, plus the incoming fp32 gradient at the start of backward",
  "under the diagonal", "dram",
  TC + " so LayerNorm writes fp16 directly (the three 4.2M-element activation casts disappear) and the weight casts are fused",
  lambda a: sum(x["t"] for x in a["launches"] if x["blocks"] >= 4096) * US - 2.0,
  lambda a: common(a) + "; launches: 3 x ~7.8 us (4.2M elements, ~3.2 TB/s, on the diagonal), 3 x 3.4-3.8 us (sub-wave weight casts), 5 x ~2.2 us (bias casts, launch-bound)")
v(E, "void native::elementwise_kernel<128, 4, void native::gpu_kernel_impl_nocast<native::direct_copy_kernel_cuda",
  "nn.MultiheadAttention (batch_first) layout copies: the transposed (S, B, E) input made contiguous for the in-projection matmul (4.2M) and "
  "_in_projection_packed's unflatten(3, E).transpose(...).contiguous() of the QKV projection (12.6M), fp16",
  "issue", "issue",
  TC + " (or call F.scaled_dot_product_attention on a (B, S, 3, H, D) view of one packed projection, which needs neither copy)",
  lambda a: us(a) - 8.0,
  lambda a: common(a) + "; %.0f instructions per element (strided 4-D offsets, scalar 2-byte accesses), ALU %.0f%%" % (ipe(a, 16.8e6), a["pipe_alu"]))
v(E, "void native::<unnamed>::vectorized_layer_norm_kernel<float, float, 0>",
  "TransformerEncoderLayer norm1 / norm2 (pre-norm, nn.LayerNorm(512), fp32 under autocast) on 8192 x 512",
  "issue", "issue",
  TC + ": Inductor's fused LayerNorm (with the residual add and the fp16 cast) runs near bandwidth",
  lambda a: us(a) - 2 * (33.6e6 / COPY * US + 1.0),
  lambda a: common(a) + "; one 128-thread block per 512-element row, %.0f warp-instructions per row, ALU %.0f%%, XU %.0f%%; ideal 33.6 MB at ~4 TB/s = ~8.4 us per launch"
  % (a["inst"] / (2 * 8192), a["pipe_alu"], a["pipe_xu"]))
v(E, "void native::elementwise_kernel<128, 4, void native::gpu_kernel_impl_nocast<native::CUDAFunctor_add<c10::Half>>",
  "in-projection bias add of nn.MultiheadAttention: F.linear got a non-contiguous 3-D (transposed) input, so PyTorch ran matmul (nvjet without bias) + add_(bias) on 8192 x 1536",
  "issue", "issue",
  TC + " so the bias rides the GEMM epilogue (or give the in-projection a contiguous input so F.linear takes the fused addmm path)",
  lambda a: us(a) - 1.0,
  lambda a: common(a) + "; %.0f instructions per element on 12.6M elements (broadcast bias -> non-vectorized kernel), ALU %.0f%%" % (ipe(a, 12.6e6), a["pipe_alu"]))
v(E, "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16",
  "F.scaled_dot_product_attention from nn.MultiheadAttention (dropout 0.1) -> cuDNN flash fprop: 32 x 8 heads x 256 x 256, head dim 64",
  "latency", "latency",
  "nothing to do: library fused attention; at 256 tokens each query tile sees only two 128-key blocks, so softmax, in-kernel dropout RNG and tile fill dominate",
  0.0,
  lambda a: common(a) + "; " + tens(a) + "; AI %.0f FLOP/B, at the ridge, yet neither DRAM nor the tensor pipe is busy; ALU %.0f%% (Philox), 1 CTA/SM"
  % (a["ai_dram"], a["pipe_alu"]))
v(E, "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT",
  "cuBLASLt fp16 GEMM of the backward of linear2 (grad_input = grad_out @ W), 8192 x 512 x 2048",
  "on the roof", "tensor",
  "nothing to do: at ~84% of the measured FP16 roof at its 1.71 GHz clock",
  0.0,
  lambda a: common(a) + "; " + tens(a))
v(E, "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_TNT",
  "cuBLASLt fp16 GEMM of the MHA in-projection (8192 x 512 -> 1536) without bias epilogue (matmul path on the transposed input)",
  "on the roof", "tensor",
  "nothing to do for the GEMM (~78% of the measured FP16 roof); its missing bias epilogue is counted on the add row",
  0.0,
  lambda a: common(a) + "; " + tens(a))
v(E, "void native::vectorized_elementwise_kernel<8, native::GeluCUDAKernelImpl",
  "activation='gelu' (exact) in the TransformerEncoderLayer feed-forward, 8192 x 2048 fp16",
  "on the diagonal", "dram",
  TC + " to fuse GELU with the following dropout (its 33.5 MB output is then never written and re-read)",
  lambda a: us(a) / 2.0,
  lambda a: common(a) + "; ALU %.0f%%, FMA %.0f%% (erf) - close to issue-bound as well; fusion removes half of its bytes" % (a["pipe_alu"], a["pipe_fma"]))
v(E, "void native::elementwise_kernel<128, 4, void native::gpu_kernel_impl<native::CUDAFunctor_add<float>>",
  "first residual add x + dropout(self_attn(...)): fp32 residual stream + fp16 branch -> fp32, dtype-mixing non-vectorized elementwise_kernel (4.2M)",
  "issue", "issue",
  TC + " (residual add fused with the attention dropout and the next LayerNorm)",
  lambda a: us(a) - 5.0,
  lambda a: common(a) + "; %.0f instructions per element, ALU %.0f%%; 42 MB compulsory" % (ipe(a, 4.19e6), a["pipe_alu"]))
v(E, "void native::unrolled_elementwise_kernel<native::CUDAFunctor_add<float>",
  "second residual add x + dropout(linear2(...)): fp32 + fp16 -> fp32, unrolled kernel with LoadWithCast (4.2M)",
  "issue", "issue",
  TC + " (residual add fused with the last dropout)",
  lambda a: us(a) - 6.0,
  lambda a: common(a) + "; %.0f instructions per element (per-element dynamic casts), ALU %.0f%%" % (ipe(a, 4.19e6), a["pipe_alu"]))
v(E, "void native::vectorized_elementwise_kernel<8, void native::<unnamed>::masked_scale_kernel",
  "dropout backward (grad * mask / 0.9) for the last dropout of the layer, 4.2M fp16",
  "on the diagonal", "dram",
  "nothing to do: 21 MB at ~70% of the streaming roof in 6.8 us",
  0.0,
  lambda a: common(a))

# ----------------------------------------------------------------------------------------- ssdlite_infer
D = "ssdlite_infer"
CL = "run the model channels_last (model.to(memory_format=torch.channels_last) and channels_last inputs)"
v(D, "void at::<unnamed>::conv_depthwise2d_forward_kernel<3, float, int>",
  "torchvision SSDLiteRegressionHead _prediction_block depthwise 3x3 conv (groups=C, fp32 NCHW) on the five captured feature maps (672@20x20 ... 256@2x2): "
  "PyTorch's native CudaDepthwise2d kernel, since cuDNN depthwise is only chosen for fp16 or channels_last",
  "issue", "issue",
  CL + ": PyTorch then always routes depthwise convs to cuDNN's NHWC depthwise kernels, which stream at memory speed (fp16 autocast would halve the bytes again)",
  lambda a: us(a) - (69e6 / 2.4e12 * US + 12.3e6 / 2.4e12 * US + 3 * 2.5),
  lambda a: common(a) + "; %.0f instructions per output (index div/mod, 9 bounds-checked taps), ALU %.0f%%, ADU %.0f%%, XU %.0f%%; the 8.6M-output launch takes %.0f us for 69 MB "
  "(0.84 TB/s); at cuDNN's NHWC rate (2.4 TB/s, seen in segformer) it is ~29 us" % (ipe(a, 32 * (672 * 400 + 480 * 100 + 512 * 25 + 256 * 9 + 256 * 4)), a["pipe_alu"], a["pipe_adu"], a["pipe_xu"], per(a, 0)))
v(D, "void cudnn::bn_fw_inf_1C11_kernel_NCHW<float, float, 1, 1>",
  "cuDNN BatchNorm inference (eval BatchNorm2d after each depthwise conv in the regression head), NCHW fp32",
  "latency", "latency",
  "fold the eval BatchNorm into the preceding conv's weights for inference (torch.ao.quantization.fuse_modules / torch.fx conv-bn fusion, or torch.compile with freezing); the BN kernels disappear",
  lambda a: us(a) - 2.0,
  lambda a: common(a) + "; per launch %s us: the 4 small maps (<=100 pixels per (n,c) plane) run 8k-16k blocks of 64 threads with 1-2 elements each, so block scheduling, "
  "not bytes, sets the time" % "/".join("%.1f" % (x["t"] * US) for x in a["launches"]))
v(D, "void at::vectorized_elementwise_kernel<4, at::<unnamed>::launch_clamp_scalar",
  "ReLU6 (hardtanh -> clamp) after each BatchNorm in the regression head, fp32",
  "on the diagonal", "dram",
  "torch.compile (or BN folding + fusion) so ReLU6 runs in the same pass as the BN/bias (one fewer read+write of each map)",
  lambda a: us(a) - 2.0,
  lambda a: common(a) + "; the 8.6M-element launch moves 69 MB in %.1f us (~4.2 TB/s, on the roof); the four small launches are 2.4-5 us launch floors" % per(a, 0))
v(D, "void at::elementwise_kernel<128, 2, void at::gpu_kernel_impl_nocast<at::CUDAFunctor_add<float>>",
  "bias add PyTorch issues after each cuDNN 1x1 conv of the regression head (32 x 24 x H x W, 3K-307K elements)",
  "launch", "launch",
  "torch.compile so the bias add is fused into the following permute/reshape (or into the conv epilogue)",
  lambda a: us(a) - 1.0,
  lambda a: common(a) + "; 12-1200 blocks, 2.9-3.7 us each: fixed launch/drain cost")
v(D, "sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize32x32x64",
  "cuDNN-chosen TF32 GEMM for the regression head's 1x1 convs on the 5x5 and 3x3 maps (512/256 -> 24 ch), batched per image (grid z = 32)",
  "latency", "latency",
  CL + ": the 1x1 conv becomes one NHWC GEMM over N*H*W rows instead of 32 per-image 32x32-tile batches",
  lambda a: us(a) - 2 * 3.0,
  lambda a: common(a) + "; " + tens(a) + "; 32 CTAs (0.06 waves) each walking K=512/256 serially")
v(D, "void at::elementwise_kernel<128, 2, void at::gpu_kernel_impl_nocast<at::direct_copy_kernel_cuda",
  "SSDScoringHead._get_result_from_module_list: results.view(N, A, 4, H, W).permute(0, 3, 4, 1, 2).reshape(N, -1, 4) copy of each level's box regression",
  "launch", "launch",
  CL + ": the conv output is already (N, H, W, A*4) in memory, so the permute+reshape becomes a view and the copy disappears",
  lambda a: us(a),
  lambda a: common(a) + "; 3K-307K elements per launch, 2.7-3.7 us: launch floors")
v(D, "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4>",
  "cuDNN-chosen TF32 CUTLASS GEMM for the regression head's 1x1 convs on the 10x10 and 2x2 maps (480/256 -> 24 ch), batched per image",
  "latency", "latency",
  CL + " (one NHWC GEMM over N*H*W rows)",
  lambda a: us(a) - 2 * 3.0,
  lambda a: common(a) + "; " + tens(a) + "; 32-64 CTAs at 6% occupancy (99 KB smem, 92 regs)")
v(D, "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x5_nn_align4>",
  "cuDNN-chosen TF32 CUTLASS GEMM for the regression head's 1x1 conv on the 20x20 map (672 -> 24 ch), batched per image (grid 8 x 32)",
  "under the diagonal", "dram",
  CL + " (one M = 12800 GEMM with full tiles; fp16 autocast would also halve its 34 MB input read)",
  lambda a: us(a) - 35.7e6 / (0.8 * 4.5e12) * US,
  lambda a: common(a) + "; " + tens(a) + "; AI %.0f FLOP/B (N=24): memory-bound, reads the 34 MB ReLU6 output at %.2f TB/s with 6%% occupancy (168 regs, 83 KB smem)"
  % (a["ai_dram"], a["bw_dram"] / 1e12))

# ----------------------------------------------------------------------------------------- jax_spectral_ns
J = "jax_spectral_ns"
BATCH = ("batch the four inverse transforms: build jnp.stack([1j*ky*psi_hat, -1j*kx*psi_hat, 1j*kx*w_hat, 1j*ky*w_hat]) and call jnp.fft.irfft2 once on the (4, 1024, 513) "
         "array, so cuFFT runs batch-4 kernels that fill the GPU, XLA emits one input fusion and one scaling pass instead of four")
v(J, "void regular_fft<1024, EPT<16>, 8, 0, 14, 0, 2, 1",
  "cuFFT (via XLA's FFT thunk) complex 1024-point pass along axis 0 of jnp.fft.irfft2 (x4 per step) and of jnp.fft.rfft2 (x1), 513 columns",
  "latency", "latency",
  BATCH,
  lambda a: (a["n"] - 1) * per(a, 0) - (a["n"] - 1) / 4.0 * 13.0,
  lambda a: common(a) + "; only 65 CTAs of 512 threads (0.25 waves): %.0f%% of SM cycles active; 8.4 MB per launch in ~8 us; batch 4 gives 260 CTAs "
  "(~13 us per 4 transforms instead of ~32)" % (100 * a["sm_active_frac"]))
v(J, "void vector_fft_c2r<1024, EPT<16>, 1, 20, 70",
  "cuFFT complex-to-real 1024-point row pass of jnp.fft.irfft2 (u, v, wx, wy), 1024 rows",
  "latency", "latency",
  BATCH,
  lambda a: us(a) * 0.4,
  lambda a: common(a) + "; 1024 blocks of 64 threads, 22%% achieved occupancy, 8.4 MB per launch in ~6.4 us (%.2f TB/s); FMA %.0f%%, LSU %.0f%%"
  % (a["eff_bytes"] / a["t"] / 1e12, a["pipe_fma"], a["pipe_lsu"]))
v(J, "input_concatenate_fusion",
  "XLA fusion that builds each irfft2 input spectrum (ik-multiplied w_hat / k2), one per inverse transform",
  "under the diagonal", "dram",
  BATCH + " (one fusion reading w_hat once and writing the 16.8 MB stack)",
  lambda a: us(a) - (a["n"] / 4.0) * (25e6 / (0.8 * 4.4e12) * US + 1.5),
  lambda a: common(a) + "; each launch re-reads ~8.4 MB to write 4.2 MB, 1.9 waves")
v(J, "void scal_kernel_val<float, float>",
  "cuBLAS sscal that XLA's FFT thunk applies after every inverse FFT (the 1/N^2 normalisation of irfft2), 1024x1024 fp32 in place",
  "under the diagonal", "dram",
  BATCH + " (one scaling pass over the batch instead of four short ones)",
  lambda a: us(a) - (a["n"] / 4.0) * (33.6e6 / (0.8 * 4.28e12) * US + 1.5),
  lambda a: common(a) + "; 8.4 MB per launch in ~5 us: ramp-up and tail of a 3.9-wave grid dominate")
v(J, "loop_multiply_fusion",
  "XLA fusion of the Crank-Nicolson update ((1 - a k2) w_hat + dt nl) / (1 + a k2) with the 2/3 dealias mask, complex64 1024x513",
  "on the diagonal", "dram",
  "nothing to do: a single fused pass at ~64% of the streaming roof in 7.6 us",
  0.0,
  lambda a: common(a))
v(J, "loop_add_fusion",
  "XLA fusion of the nonlinear term u*wx + v*wy in physical space (four 1024x1024 fp32 reads, one write)",
  "on the diagonal", "dram",
  "nothing to do: one fused pass at ~63% of the streaming roof",
  0.0,
  lambda a: common(a))
v(J, "void vector_fft_r2c<1024, EPT<16>, 1, 20, 70",
  "cuFFT real-to-complex row pass of the forward jnp.fft.rfft2 of the nonlinear term",
  "latency", "latency",
  "nothing to do: one forward transform per step; cuFFT plan chosen by XLA",
  0.0,
  lambda a: common(a) + "; 1024 blocks of 64 threads, 22% achieved occupancy")
v(J, "loop_add_fusion_1",
  "lax.fori_loop trip counter increment (i + 1) of the jitted 4-step loop, one thread",
  "launch", "launch",
  "unroll the loop (jax.lax.fori_loop(0, 4, body, w_hat, unroll=True) or a Python loop under jit): no while-loop counter kernels, and XLA can fuse across steps",
  lambda a: us(a),
  lambda a: common(a) + "; a 1-thread kernel, ~2.5 us each")

# ----------------------------------------------------------------------------------------- cupy_groupby
C = "cupy_groupby"
BC = ("skip cupy.unique: the keys are dense non-negative ints < 1,000,000, so group directly with sums = cp.bincount(keys, weights=values, minlength=1_000_000), "
      "counts = cp.bincount(keys, minlength=1_000_000), uniq = cp.flatnonzero(counts); no argsort, gather, mask or scans are launched")
v(C, "void radix_sort::DeviceRadixSortOnesweepKernel",
  "cupy.unique(return_inverse=True) -> ar.argsort() -> thrust sort_by_key -> CUB onesweep radix sort of 20M (int64 key, int64 index) pairs: 8 passes over all 64 key bits",
  "on the diagonal", "dram",
  BC + " (if a sort must stay, cast keys to int32 first: 4 radix passes of 12 B/pair instead of 8 of 16 B)",
  lambda a: us(a),
  lambda a: common(a) + "; 8 passes x ~622 MB (16 B read + 16 B written per pair) at ~3.4 TB/s; the keys use only 20 of the 64 bits, so passes 4-8 sort constant digits")
v(C, "cupy_take",
  "cupy.unique: aux = ar[perm], a random gather of 20M int64 keys through the sort permutation",
  "on the diagonal", "l2",
  BC,
  lambda a: us(a),
  lambda a: common(a) + "; each 8-byte random read costs a 32-B sector at L2 and a 64-B DRAM burst: %.0f MB DRAM for 480 MB of useful traffic; L2 sector throughput %.0f%%"
  % (mb(a["dram"]), a["pct_l2"]))
v(C, "cupy_copy__int64_int64",
  "cupy.unique: ar.flatten() copy of the 20M int64 keys and argsort's working copy of them",
  "on the diagonal", "dram",
  BC,
  lambda a: us(a),
  lambda a: common(a) + "; 320 MB per launch at ~3.3 TB/s")
v(C, "cupy_scan_naive",
  "CuPy's internal scan for boolean-mask indexing aux[mask] (cumsum of the 20M mask), hierarchical: 39063-block pass + block-sum scans",
  "issue", "issue",
  BC,
  lambda a: us(a),
  lambda a: common(a) + "; per-block Hillis-Steele shared-memory scan: O(n log n) work, ALU %.0f%%, LSU %.0f%%" % (a["pipe_alu"], a["pipe_lsu"]))
v(C, "_unique_update_mask_equal_nan",
  "cupy.unique(equal_nan=True default): _unique_update_mask_equal_nan(mask[1:], aux[:-1]) (cupy.fuse), a NaN check that is a no-op for int64 keys",
  "under the diagonal", "dram",
  BC + " (minimal fix: pass equal_nan=False, which skips this kernel for integer keys)",
  lambda a: us(a),
  lambda a: common(a) + "; 1-byte mask loads use %.1f B per sector" % a["ld_bytes_per_sector"])
v(C, "cupy_getitem_mask",
  "cupy.unique: ret = aux[mask] stream compaction of the sorted keys",
  "under the diagonal", "dram",
  BC,
  lambda a: us(a),
  lambda a: common(a) + "; ld %.1f B/sector, st %.1f B/sector (scattered 8-B stores of the 1M uniques)" % (a["ld_bytes_per_sector"], a["st_bytes_per_sector"]))
v(C, "cupy_not_equal__int64_int64_bool",
  "cupy.unique: mask[1:] = aux[1:] != aux[:-1] over 20M int64",
  "under the diagonal", "dram",
  BC,
  lambda a: us(a),
  lambda a: common(a) + "; %.0f%% achieved occupancy; 180 MB compulsory would take ~42 us at the roof" % a["occ_ach"])
v(C, "cupy_copy__bool_int64",
  "cupy.unique: cupy.cumsum(mask) casts the 20M bool mask to int64 (160 MB written) before the inverse-index scan",
  "under the diagonal", "dram",
  BC,
  lambda a: us(a),
  lambda a: common(a) + "; write-dominated (20 MB read, 160 MB written)")
v(C, "void radix_sort::DeviceRadixSortHistogramKernel",
  "CUB onesweep radix sort prologue: one read of the 20M int64 keys building all eight 8-bit digit histograms",
  "on the diagonal", "dram",
  BC,
  lambda a: us(a),
  lambda a: common(a) + "; 160 MB read at ~3.2 TB/s, ALU %.0f%% (shared-memory histogram atomics)" % a["pipe_alu"])
v(C, "cupy_bsum_shfl",
  "CuPy's scan block-sum kernel (warp-shuffle reductions) for the cumsum behind aux[mask]",
  "issue", "issue",
  BC,
  lambda a: us(a),
  lambda a: common(a) + "; reads the 20 MB bool mask at 0.55 TB/s with %.0f instructions per element" % ipe(a, 20e6))
v(C, "void transform::transform_kernel",
  "thrust::sequence inside CuPy's argsort: iota of 20M uint64 indices (160 MB written)",
  "on the diagonal", "dram",
  BC,
  lambda a: us(a),
  lambda a: common(a) + "; 160 MB written at ~4.3 TB/s, 91% of the write roof")


def main():
    rows = []
    for cap in metrics.load.stems():
        gs, total = metrics.groups(cap)
        listed = [a for a in gs if a["share"] >= 0.5]
        for a in listed:
            m = [x for x in V if x["cap"] == cap and a["name"] == x["prefix"]] or \
                [x for x in V if x["cap"] == cap and a["name"].startswith(x["prefix"]) and x["prefix"] != a["name"][:len(x["prefix"])] + "_never"]
            if len(m) > 1:
                m = [x for x in m if x["prefix"] == max((y["prefix"] for y in m), key=len)]
            if len(m) != 1:
                raise SystemExit("no unique verdict for %s / %s (%d)" % (cap, a["name"][:80], len(m)))
            x = m[0]
            save = x["save"](a) if callable(x["save"]) else x["save"]
            save = max(0.0, min(save, us(a)))
            rows.append([cap, a["name"], str(a["n"]), "%.1f" % us(a), "%.1f" % a["share"], x["origin"], x["pos"], x["lim"],
                         "%.0f" % PCT[x["lim"]](a), x["move"], "%.0f" % save, x["why"](a)])
        used = [x for x in V if x["cap"] == cap]
        if len(used) != len(listed):
            raise SystemExit("%s: %d verdicts written, %d kernels listed" % (cap, len(used), len(listed)))
    hdr = ["capture", "kernel", "launches", "gpu_time_us", "share", "origin", "position", "limiter", "limiter_pct", "best_move", "est_saving_us", "reason"]
    with open(os.path.join(HERE, "verdicts.tsv"), "w") as f:
        f.write("\t".join(hdr) + "\n")
        for r in rows:
            f.write("\t".join(c.replace("\t", " ").replace("\n", " ") for c in r) + "\n")
    print("wrote %d verdicts" % len(rows))


if __name__ == "__main__":
    main()
