# builds grades.tsv from the expert and tool TSVs plus the grader's per-kernel judgements (J below)
import csv
E=list(csv.DictReader(open('../expert/verdicts.tsv'),delimiter='\t'))
T={(r['capture'],r['kernel']):r for r in csv.DictReader(open('../tool/tool_verdicts.tsv'),delimiter='\t')}
FLOP=('tensor','fp32','fma','fp16','fp64')
def ecls(p,l):
    p=p.lower()
    if 'diagonal' in p: return 'memory'
    if 'roof' in p: return 'compute' if any(f in l for f in FLOP) else ('memory' if l in('dram','l2','l1/shared','l1') else 'lat')
    return 'lat'
def tcls(p,b):
    if 'diagonal' in p: return 'memory'
    if 'roof' in p:
        u=b.split(':')[1]
        if b.startswith('memory:'): return 'memory'
        return 'compute' if u in ('tensor','fma','fp32','fp16','fp64') else 'lat'
    return 'lat'
# J: (capture, kernel-substring) -> (position, limiter, move, saving, cause, note)
# position/limiter/move: 'agree'|'disagree'|'borderline'; saving: agree|disagree|n/a
A='agree';D='disagree';B='borderline';N='n/a'
J={
('compiled_encoder_train','bias_TNT'):(A,A,A,A,'',''),
('compiled_encoder_train','coopA_TNT'):(A,A,A,A,'',''),
('compiled_encoder_train','sdpa'):(A,A,A,A,'',''),
('compiled_encoder_train','fused_gelu'):(A,A,D,N,'A','expert: max-autotune GELU epilogue (or tanh GELU) ~30 us; tool: Triton fusion not the user\'s to edit, no move'),
('compiled_encoder_train','squeeze_transpose_unsqueeze_view_2'):(A,A,D,N,'A','expert: packed-QKV batch-first attention removes the QKV layout copy ~40 us; tool: Triton fusion not the user\'s to edit, no move'),
('compiled_encoder_train','layer_norm_backward'):(A,A,A,N,'',''),
('compiled_encoder_train','layer_norm_transpose_view_8'):(A,A,A,N,'',''),
('compiled_encoder_train','view_5'):(A,A,D,N,'A','expert: packed-QKV strided views into SDPA remove this clone (15 us); tool: no move'),
('compiled_encoder_train','view_4'):(A,A,D,N,'A','expert: packed-QKV strided views into SDPA remove this clone (15 us); tool: no move'),
('compiled_encoder_train','view_3'):(A,A,D,N,'A','expert: packed-QKV strided views into SDPA remove this clone (15 us); tool: no move'),
('compiled_encoder_train','layer_norm_transpose_0'):(A,A,A,N,'',''),
('compiled_encoder_train','_to_copy_9'):(A,A,D,N,'A','weight cast: expert bf16 master copies (11 us, flagged invasive in NOTES; allowance covers position/limiter only); tool no move, though it gives this move for eager casts elsewhere'),
('compiled_encoder_train','_to_copy_t_1'):(A,A,D,N,'A','weight cast: expert bf16 master copies (9 us); tool no move'),
('compiled_encoder_train','_to_copy_6'):(D,A,D,N,'A','expert under the diagonal (DRAM 35%), tool launch_bound (L2 40%); move: expert bf16 weight copies 5 us, tool no move'),
('compiled_encoder_train','_to_copy_7'):(A,A,D,N,'A','expert bf16 parameter copies / fuse the bias cast (5 us); tool no move'),
('dlrm_train','EmbeddingBag'):(B,B,D,N,'C','position/limiter borderline (NOTES names it). Move: tool "fuse a chain of elementwise kernels (torch.compile)" 153 us: wrong premise, 8 independent gathers; expert: one table-batched embedding (TBE) ~90 us'),
('dlrm_train','tilesize128x128x8'):(D,D,D,N,'B','FFMA SGEMM: expert under the roof FP32 63% with TF32 set_float32_matmul_precision (85 us); tool issue_bound issue 72%, "cuBLAS GEMM not the user\'s to edit, no move"'),
('dlrm_train','tilesize64x128x8'):(D,D,D,N,'B','FFMA SGEMM: expert under the roof FP32 47% + TF32 (55 us); tool under_flat_roof issue 58% (class lat), no move'),
('dlrm_train','tilesize64x256x8'):(D,D,D,N,'B','FFMA SGEMM: expert under the roof FP32 56% + TF32 (30 us); tool issue_bound issue 69%, no move'),
('dlrm_train','launch_clamp_scalar'):(D,A,A,A,'E','expert under the diagonal (DRAM 56%), tool latency_bound (L2 58%); move (ReLU into GEMM epilogue) and saving (32.9 vs 25) agree'),
('dlrm_train','gemmSN_TN'):(A,A,D,N,'A','expert: fuse the interaction (36 upper-triangle dots, compile) ~20 us; tool: cuBLAS not the user\'s to edit, no move'),
('dlrm_train','tilesize64x64x8'):(A,A,D,N,'B','expert: TF32 (10 us); tool: cuBLAS not the user\'s to edit, no move'),
('dlrm_train','CatArrayBatchedCopy_vectorized'):(A,A,A,N,'',''),
('dlrm_train','index_elementwise_kernel'):(A,A,D,N,'A','expert: compile fuses gather with cat (5 us); tool: PyTorch indexing not the user\'s to edit, no move'),
('dlrm_train','gemv2T_kernel_val'):(A,A,D,N,'F','expert: none; tool: generic "more work per launch / CUDA graphs" 3.7 us on a fixed-shape cuBLAS gemv'),
('regnet_train','tensorTransformGeneric'):(D,A,D,N,'A','expert issue-bound (lat), tool under_diagonal (memory) with binding issue 54%: NOTES doubt is issue vs latency, not memory, so no allowance; move: expert cudnn.benchmark_limit=0 (40 us, uncertain, fallback none), tool no move'),
('regnet_train','collect_statistics'):(A,A,A,A,'',''),
('regnet_train','sm80_xmma_fprop_implicit_gemm_bf16'):(B,B,A,A,'',''),
('regnet_train','transform_input'):(D,A,A,A,'E','expert under the diagonal (DRAM 31%), tool latency_bound (L2 37%); move and saving (11.4 vs 14) agree'),
('regnet_train','launch_clamp_scalar'):(D,A,A,N,'E','expert under the diagonal (DRAM 49%), tool launch_bound (L2 50%); move agrees'),
('regnet_train','bfloat16_copy'):(A,A,A,N,'',''),
('regnet_train','reduce_kernel'):(A,A,A,N,'',''),
('regnet_train','implicit_convolve_sgemm'):(A,A,D,N,'F','expert: SE 1x1 convs as GEMMs (conv_1x1_as_mm / nn.Linear) 9 us; tool: generic "more work per launch, CUDA graphs" (fixed batch; a graph does not shorten a 22-CTA kernel)'),
('regnet_train','nvjet_sm90_tst_176x192'):(D,A,A,N,'E','expert latency-bound (NOTES: or under the roof, compute); tool under_flat_roof memory:l2 39% = class memory, the other side of no line the expert named; limiter within 3 points; both no move'),
('regnet_train','CUDAFunctor_add<c10::BFloat16'):(A,A,A,N,'',''),
('regnet_train','cutlass_80_wmma'):(A,A,D,N,'F','expert: nn.Linear / conv_1x1_as_mm (3 us); tool: generic "more work per launch, CUDA graphs"'),
('regnet_train','batch_norm_update'):(A,A,A,N,'',''),
('regnet_train','CUDAFunctorOnSelf_add<long>'):(A,A,A,N,'',''),
('regnet_train','FillFunctor<int>'):(A,A,A,N,'',''),
('regnet_train','sigmoid_kernel'):(A,A,A,N,'',''),
('t5_train','bfloat16_copy'):(A,A,A,A,'','expert compile (CSE of the 3 identical activation casts) 10 us; tool keep weights in bf16 / cast once instead of once per use, 19.6 us: the 7 launches are 3 weight casts (1 MB) + 3 duplicate activation casts (2 MB) + 1 small, both halves covered by the wording; 1.96x, inside 2x'),
('t5_train','nvjet_sm90_tst_64x64'):(A,A,D,N,'A','expert: fuse q/k/v into one 1024x1536x512 GEMM (9 us); tool: cuBLAS not the user\'s to edit, no move'),
('t5_train','CatArrayBatchedCopy<'):(A,A,D,N,'C','expert: use_cache=False in training (13 us, the cat onto an empty DynamicCache); tool: "fuse the elementwise chain (torch.compile)" 8.7 us, wrong premise for a KV-cache cat'),
('t5_train','direct_copy'):(A,A,A,A,'',''),
('t5_train','BinaryFunctor'):(A,A,A,A,'',''),
('t5_train','reduce_kernel'):(A,A,A,A,'',''),
('t5_train','arange'):(A,A,A,N,'',''),
('t5_train','where_k'):(A,A,A,N,'',''),
('t5_train','pow_tensor_scalar'):(A,A,D,N,'A','expert: compile/fused RMSNorm (3 us); tool: PyTorch elementwise not the user\'s to edit, no move (its siblings rsqrt/add/mean get the fusion move)'),
('t5_train','CompareFunctor'):(A,A,D,N,'A','expert: compile the mask building (2.6 us); tool: no move'),
('t5_train','CUDAFunctorOnSelf_add<float>'):(A,A,A,N,'',''),
('t5_train','rsqrt'):(A,A,A,N,'',''),
('t5_train','FillFunctor<float>'):(A,A,A,N,'',''),
('unet_denoise_train','sm90_xmma_fprop'):(A,A,A,A,'',''),
('unet_denoise_train','RowwiseMoments'):(B,B,D,N,'A','position/limiter borderline (NOTES names it); move: expert compile GroupNorm on fp16 (34 us), tool PyTorch kernel not the user\'s to edit, no move'),
('unet_denoise_train','nchwToNhwc'):(A,A,A,A,'',''),
('unet_denoise_train','direct_copy'):(D,D,A,A,'E','expert under the diagonal (DRAM 40%), tool latency_bound issue 49%; NOTES does not name this upcast copy; move (compile) and saving (26.2 vs 39.2) agree'),
('unet_denoise_train','float16_copy'):(D,A,A,D,'E','expert under the diagonal (DRAM 52%), tool latency_bound (L2 55%); saving 31.2 vs 15 = 2.08x; move only half-right (tool targets the weight casts, expert the activation downcasts)'),
('unet_denoise_train','CUDAFunctor_add<c10::Half>>('):(A,A,A,D,'D','same move (compile fuses the conv bias add); saving 10.1 vs 30 us = 2.97x'),
('unet_denoise_train','GroupNormKernel'):(B,B,A,D,'D','position/limiter borderline (NOTES names it); saving 7.1 vs 18 us = 2.54x'),
('unet_denoise_train','silu_kernel'):(A,A,A,A,'',''),
('unet_denoise_train','nhwcToNchw'):(D,A,A,N,'E','expert under the diagonal (DRAM 38%), tool latency_bound (L2 48%); move (channels_last) agrees'),
('unet_denoise_train','ComputeFusedParams'):(A,A,D,N,'A','expert: compile folds it into the fused GroupNorm (9 us); tool: PyTorch kernel not the user\'s to edit, no move'),
('unet_denoise_train','vectorized_elementwise_kernel<8, at::CUDAFunctor_add<c10::Half>'):(A,A,A,N,'',''),
}
out=[]
for e in E:
    ks=[k for k in J if k[0]==e['capture'] and k[1] in e['kernel']]
    if e['capture']=='unet_denoise_train' and 'CUDAFunctor_add<c10::Half>' in e['kernel']:
        ks=[k for k in ks if k[1] in e['kernel'] and (('vectorized' in k[1])==e['kernel'].startswith('void at::vectorized'))]
    if e['capture']=='t5_train' and 'reduce_kernel' in e['kernel']: pass
    assert len(ks)==1,(e['capture'],e['kernel'][:80],ks)
    p,l,m,s,cause,note=J[ks[0]]
    t=T[(e['capture'],e['kernel'])]
    ec=ecls(e['position'],e['limiter']); tc=tcls(t['position'],t['binding'])
    allok=all(x in(A,B) for x in (p,l,m)) and s in (A,N)
    if float(e['share'])>0.05 and m==A: assert s!=N,e['kernel']
    out.append(dict(capture=e['capture'],kernel=e['kernel'],gpu_time_us=e['gpu_time_us'],share=e['share'],
      expert_class=ec,tool_class=tc,expert_pos=e['position'],tool_pos=t['position'],expert_lim=f"{e['limiter']} {e['limiter_pct']}",tool_lim=f"{t['binding']} {t['binding_pct']}",
      position_agree=p,limiter_agree=l,move_agree=m,saving_agree=s,overall='agree' if allok else 'disagree',cause=cause if not allok else '',note=note))
used=set()
with open('grades.tsv','w',newline='') as f:
    w=csv.DictWriter(f,fieldnames=list(out[0]),delimiter='\t'); w.writeheader(); w.writerows(out)
print(len(out))
