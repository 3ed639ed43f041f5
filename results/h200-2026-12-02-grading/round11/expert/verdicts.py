"""Writes verdicts.tsv: one row per kernel group with share >= 0.5 %.
Figures come from groupfig.json (python3 groupfig.py); judgement text is mine."""
import json, re

G = json.load(open('groupfig.json'))

def find(cap, pat, nth=0):
    hits = [f for f in G[cap]['groups'] if re.search(pat, f['kernel'])]
    return hits[nth]

def fmt(x, d=1):
    return f'{x:.{d}f}'

rows = []
def row(cap, pat, origin, position, limiter, pct, move, saving, reason, nth=0):
    f = find(cap, pat, nth)
    rows.append([cap, f['kernel'], str(f['launches']), fmt(f['us'], 2), fmt(f['share'], 2), origin, position, limiter,
                 fmt(pct if not callable(pct) else pct(f)), move, fmt(saving), reason(f) if callable(reason) else reason])

def clk(f):
    c = f['clk']
    return f"{min(c):.2f}-{max(c):.2f} GHz" if len(c) > 1 else f"{c[0]:.2f} GHz"

# ---------------------------------------------------------------- mamba_train
M = 'mamba_train'
row(M, r'gpu_kernel_impl_nocast<at::direct_copy', 
    "MambaMixer.slow_forward (transformers, no mamba-ssm): three .contiguous() layout transposes of (8,1536,256) bf16 tensors: #15 the in_proj x-half after .transpose(1,2) before conv1d (depthwise conv needs contiguous), #19 hidden_states.transpose(1,2) flattened for x_proj, #23 (right after the dt_proj GEMM) most likely the (B,L,D)->(B,D,L) transpose of the dt_proj output made contiguous",
    'under the diagonal', 'l2', lambda f: f['l2_sub'],
    'torch.compile(model): Inductor folds the transposes into the neighbouring cast/SiLU kernels so each tensor is written once with coalesced stores (the mamba-ssm fast path still does one xz.contiguous())', 40,
    lambda f: f"3 launches {f['dur']} us at {clk(f)}; L2 tag-request utilisation {f['l2_sub']:.1f}% (lts__throughput {f['l2_ncu']:.1f}%) while DRAM is {f['dram_pct']:.1f}% ({f['dram_MB']:.1f} MB = 3 x 6.3 MB bf16 read); loads use {f['ld_sec']:.1f} B per 32-B sector (transposed 2-byte reads), {f['l2_MB']:.0f} MB of L2 traffic for 38 MB moved; L1 {f['l1']:.1f}%, issue {f['issue']:.1f}%; a coalesced 12.6 MB copy would take ~5 us, so ~16 us of each 21 us is layout waste")
row(M, r'conv_depthwise2d_forward_kernel_generic',
    "self.conv1d(hidden_states)[..., :seq_len] in slow_forward: nn.Conv1d(1536,1536,k=4,groups=1536,padding=3) under bf16 autocast, lowered to ATen's generic depthwise-2d kernel (3.18M outputs = 8x1536x259, then sliced to 256)",
    'under the diagonal', 'issue', lambda f: f['issue'],
    'install causal-conv1d + mamba-ssm so transformers takes cuda_kernels_forward (causal_conv1d_fn: conv+bias+SiLU in one memory-bound pass over 12.7 MB)', 32,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, 3108 CTAs x 1024 thr ({f['waves'][0]} waves), achieved occupancy {f['occ']:.0f}%; issue {f['issue']:.1f}% is the busiest unit (ALU {f['alu']:.1f}%, XU {f['xu']:.1f}% from per-output index div/mod, FMA {f['fma']:.1f}%); DRAM only {f['dram_pct']:.1f}% ({f['dram_MB']:.1f} MB), L2 {f['l2_sub']:.1f}%; FP32 {f['fp32_TF']:.2f} TFLOP/s = {f['fp32_pct']:.1f}% of FP32 roof; a memory-speed conv over 12.7 MB in+out needs ~4-5 us")
row(M, r'bfloat16_copy_kernel_cuda',
    "autocast fp32->bf16 casts: per-forward weight casts of in_proj.weight (#6, 2.36M el), conv1d.bias/weight (#12,#13), x_proj.weight (#18), dt_proj.weight/bias (#21,#24); activation casts of the RMSNorm output entering in_proj (#7, 1.57M) and of the fp32 conv input re-cast for conv1d (#14, 3.1M)",
    'latency', 'latency', lambda f: f['dram_pct'],
    'torch.compile(model) (fuses the activation casts into RMSNorm / removes the bf16->fp32->bf16 round trip of the conv input); weight casts go only with bf16 weights', 15,
    lambda f: f"8 launches {f['dur']} us at {clk(f)}; five weight/bias casts of <=123k elements are 2.1-2.6 us launch-floor kernels (<=0.06 waves, 11.7 us together); the three big ones (#6,#7,#14: 5.6/4.5/6.4 us) are single short waves (1.09/0.73/1.45 waves) at 37/31/43% of the DRAM read roof; group DRAM {f['dram_pct']:.1f}%, L2 {f['l2_sub']:.1f}%, issue {f['issue']:.1f}%, achieved occupancy {f['occ']:.0f}%")
row(M, r'nvjet_sm90_tst_192x128',
    "bf16 cuBLASLt (nvjet wgmma) GEMMs: #8 in_proj (M=2048 tokens, N=3072, K=768, 9.66 GFLOP) and #22 the dt_proj projection (K=48 padded to 64, 0.40 GFLOP)",
    'under the roof', 'tensor', lambda f: f['tc_meas'],
    'nothing to do (in_proj is a single 132-CTA wave at 72% of the measured BF16 roof; dt_proj is shape-bound, K=48)', 0,
    lambda f: f"#8: 17.54 us at 1.78 GHz, 551 TFLOP/s = 72.1% of the measured BF16 roof at that clock (57.3% of dense 4096 FLOP/clk/SM), AI 1223 FLOP/B, DRAM 9.9%, 1 wave of 132 CTAs (occupancy 14% by design: 222 KB smem); #22: 5.70 us, 71 TFLOP/s (8.7%), K=48; group {f['tc_TF']:.0f} TFLOP/s = {f['tc_meas']:.1f}% of measured ({f['tc_dense']:.1f}% of dense), L1/smem pipe {f['l1']:.1f}%")
row(M, r'MulFunctor<float>>>\(at::Te',
    "MambaRMSNorm (block.norm, fp32 residual stream): #4 hidden_states * torch.rsqrt(variance + eps) and #5 self.weight * hidden_states, broadcast multiplies over (8,256,768) fp32",
    'latency', 'latency', lambda f: f['issue'],
    'torch.compile(model) (one fused RMSNorm kernel for pow/mean/add/rsqrt/mul/mul and the bf16 cast)', 13.9,
    lambda f: f"2 launches {f['dur']} us at {clk(f)}, 6144 CTAs (2.91 waves) of the non-vectorised broadcast path elementwise_kernel<128,2>; busiest unit issue {f['issue']:.1f}% (ALU {f['alu']:.1f}%), DRAM {f['dram_pct']:.1f}% ({f['dram_MB']:.1f} MB read, writes stay in L2), L2 {f['l2_sub']:.1f}%, achieved occupancy {f['occ']:.0f}%; 12.6 MB per launch in 7 us = 1.8 TB/s; long-scoreboard stalls dominate")
row(M, r'gpu_kernel_impl<at::direct_copy',
    "slow_forward: bf16->fp32 cast copy of the in_proj x-half (3.1M elements; reads exactly 6.3 MB = bf16) just before conv1d; autocast casts it straight back to bf16 (#14 in the bfloat16_copy group)",
    'latency', 'latency', lambda f: f['issue'],
    'torch.compile(model) (drops the fp32 round trip) or the mamba-ssm/causal-conv1d fast path', 12.6,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, 6144 CTAs (2.91 waves), dynamic-cast copy path; coalesced ({f['ld_sec']:.0f}/{f['st_sec']:.0f} B/sector); issue {f['issue']:.1f}% is the busiest unit, DRAM {f['dram_pct']:.1f}%, L2 {f['l2_sub']:.1f}%, occupancy {f['occ']:.0f}%: 18.9 MB moved at 1.5 TB/s; the whole pass (and its 6.4 us inverse) is avoidable")
row(M, r'silu_kernel',
    "self.act(...) = SiLU on the sliced conv1d output conv1d(hidden_states)[..., :seq_len] (non-contiguous 259->256 view, bf16, 3.1M elements)",
    'latency', 'latency', lambda f: f['issue'],
    'causal-conv1d fast path (SiLU fused into the conv) or torch.compile (slice+SiLU fused)', 9,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, 2.91 waves, strided (non-vectorised) path; issue {f['issue']:.1f}% (ALU {f['alu']:.1f}%, XU {f['xu']:.1f}% for exp/rcp, FMA {f['fma']:.1f}%), DRAM {f['dram_pct']:.1f}%, L2 {f['l2_sub']:.1f}%, occupancy {f['occ']:.0f}%; 12.7 MB in 11.3 us = 1.1 TB/s, nothing near a roof")
row(M, r'nvjet_sm90_tst_32x64',
    "x_proj GEMM: self.x_proj(hidden_states.transpose(1,2)), bf16, M=2048, N=80 (dt_rank 48 + 2x16), K=1536 (0.50 GFLOP)",
    'latency', 'latency', lambda f: max(f['l2_sub'], f['dram_pct']),
    'nothing to do (skinny N=80 GEMM fixed by the model; 6.8 us)', 0,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, 96 CTAs on 132 SMs (0.73 waves); {f['tc_TF']:.0f} TFLOP/s = {f['tc_meas']:.1f}% of measured BF16 roof, AI 92 FLOP/B is below the BF16 ridge (~167 at this clock) so the memory roof applies, but DRAM is only {f['dram_pct']:.1f}% ({f['dram_MB']:.1f} MB) and L2 {f['l2_sub']:.1f}%: a serial K loop on too few CTAs")
row(M, r'reduce_kernel<512, 1, at::ReduceOp<float, at::MeanOps',
    "MambaRMSNorm: variance = hidden_states.pow(2).mean(-1, keepdim=True) (2048 rows x 768, fp32)",
    'latency', 'latency', lambda f: f['dram_pct'],
    'torch.compile(model) (fused RMSNorm; this reduction becomes the single surviving kernel)', 1.5,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, 128 CTAs of 512 thr (0.24 waves), achieved occupancy {f['occ']:.0f}%; DRAM {f['dram_pct']:.1f}% ({f['dram_MB']:.1f} MB), L2 {f['l2_sub']:.1f}%, issue {f['issue']:.1f}%: too few CTAs to cover DRAM latency")
row(M, r'pow_tensor_scalar_kernel_impl',
    "MambaRMSNorm: hidden_states.pow(2) over (8,256,768) fp32",
    'latency', 'latency', lambda f: max(f['l2_sub'], f['dram_pct']),
    'torch.compile(model) (pow fused into the RMSNorm reduction)', 5.0,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, vectorised, 1536 CTAs = {f['waves'][0]} waves (a partial single wave); DRAM {f['dram_pct']:.1f}% ({f['dram_MB']:.1f} MB), L2 {f['l2_sub']:.1f}%, issue {f['issue']:.1f}%, occupancy {f['occ']:.0f}%; ramp/tail of one short wave")
row(M, r'exp_kernel_cuda',
    "A = -torch.exp(self.A_log.float()) in slow_forward: the exp over A_log (1536x16 = 24,576 fp32)",
    'launch', 'launch', lambda f: f['l2_sub'],
    'torch.compile(model) (exp/neg fused into the discretisation exp(A*dt) kernel)', 2.4,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, 24 CTAs, 197 KB in+out; every unit <= {max(f['l2_sub'], f['dram_pct']):.1f}%; duration equals the ~2.1-2.5 us launch floor seen for 2-CTA kernels in this capture")
row(M, r'neg_kernel_cuda',
    "A = -torch.exp(self.A_log.float()): the negation (24,576 fp32)",
    'launch', 'launch', lambda f: f['l2_sub'],
    'torch.compile(model) (fused with the exp and the discretisation)', 2.4,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, 24 CTAs, all units <= {max(f['l2_sub'], f['dram_pct']):.1f}%; pure launch overhead")
row(M, r'rsqrt_kernel_cuda',
    "MambaRMSNorm: torch.rsqrt(variance + eps) on the 2048 per-token variances",
    'launch', 'launch', lambda f: f['l2_sub'],
    'torch.compile(model) (fused RMSNorm)', 2.4,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, 2 CTAs, 16 KB; SM active {f['smact']:.1f}% of cycles, every unit <= 0.5%: launch floor")
row(M, r'CUDAFunctorOnSelf_add<float>',
    "MambaRMSNorm: variance + self.variance_epsilon (2048 values)",
    'launch', 'launch', lambda f: f['l2_sub'],
    'torch.compile(model) (fused RMSNorm)', 2.1,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, 2 CTAs, 16 KB; SM active {f['smact']:.1f}%, every unit <= 0.5%: launch floor")

# ---------------------------------------------------------------- pointnet_train
P = 'pointnet_train'
row(P, r'bn_fw_tr_1C11_kernel_NCHW',
    "nn.BatchNorm2d training forward (cuDNN NCHW per-channel kernel) after each 1x1 Conv2d of sa2's shared MLP: #14 BN(128), #19 BN(128), #24 BN(256), each over 24x64x128 = 196,608 values per channel, fp32",
    'under the diagonal', 'dram', lambda f: f['dram_pct'],
    'torch.compile the Local MLP (Inductor lowers BN training to a stats reduction + a normalise/ReLU pass on full-GPU grids, fusing the conv-bias add and the ReLU) - or channels_last so cuDNN uses its NHWC BN kernels', 120,
    lambda f: f"3 launches {f['dur']} us at {clk(f)}; grid = one CTA per channel (128/128/256 CTAs x 512 thr = {f['waves']} waves), achieved occupancy 24.5/24.6/42.8%; DRAM 53.2/53.8/69.6% of the measured roof (group {f['dram_pct']:.1f}%, {f['dram_MB']:.0f} MB = 2 reads + 1 write per tensor); L2 {f['l2_sub']:.1f}%, issue {f['issue']:.1f}%; the 256-channel launch with twice the CTAs is 16 points closer to the roof; at ~85% of DRAM the three would take ~310 us")
row(P, r'elementwise_kernel<128, 2, void at::gpu_kernel_impl_nocast<at::CUDAFunctor_add<float>>',
    "#12,#17,#22: the Conv2d bias add that ATen applies after cudnn_convolution (output.add_(bias), broadcast (1,C,1,1) over 24x128x64x128 / x256); #4: centring grouped_xyz = index_points(xyz, idx) - new_xyz[:, :, None, :] (sub = add with alpha -1)",
    'under the diagonal', 'issue', lambda f: f['issue'],
    'nn.Conv2d(cin, c, 1, bias=False) in Local (the following BatchNorm subtracts the batch mean, so the bias is dead): the three bias-add passes disappear', 305.4,
    lambda f: f"4 launches {f['dur']} us at {clk(f)}; bias adds are in-place 100.7/100.7/201 MB read+write passes on the non-vectorised broadcast path (elementwise_kernel<128,2>, 46-93 waves); issue {f['issue']:.1f}% is the busiest unit (ALU {f['alu']:.1f}%, index div/mod per element), DRAM {f['dram_pct']:.1f}% ({f['dram_MB']:.0f} MB), L2 {f['l2_sub']:.1f}%, occupancy {f['occ']:.0f}%; 305.4 us of the 310.1 are the redundant bias")
row(P, r'gpu_kernel_impl_nocast<at::direct_copy_kernel_cuda\(at::TensorIteratorBase &\)::\[lambda\(\) \(instance 3\)\]::operator \(\)\(\) const::\[lambda\(\) \(instance 7\)',
    "Local.forward: self.mlp(feats.permute(0, 3, 2, 1)) - the first Conv2d makes the permuted (24,131,64,128) fp32 view contiguous (103 MB transpose copy)",
    'under the diagonal', 'l2', lambda f: f['l2_sub'],
    'permute(0, 3, 1, 2) instead (B, C, npoint, nsample): that view is exactly channels_last-strided, cuDNN takes it without a copy; reduce with .max(3)', 177.7,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, 100,608 CTAs; L2 tag requests {f['l2_sub']:.1f}% (lts__throughput {f['l2_ncu']:.1f}%) with {f['ld_sec']:.1f} B used per 32-B sector on the loads (stride-131 reads, 22.5M excess sectors), {f['l2_MB']:.0f} MB of L2 traffic for 206 MB of data; DRAM {f['dram_pct']:.1f}%, L1 {f['l1']:.1f}%, issue {f['issue']:.1f}%")
row(P, r'index_elementwise_kernel<128, 4, void at::gpu_index_kernel',
    "index_points(): points[b.expand_as(idx), idx, :] advanced-index gathers - #8 grouped features (196,608 rows x 128 fp32 = 100.7 MB out), #3 grouped xyz (x3)",
    'under the diagonal', 'l1', lambda f: f['l1'],
    'torch.compile Local.forward (gather + centring + cat + permute generated as one kernel writing the conv input once) - or gather whole rows with index_select on a (B*N, C) view', 100,
    lambda f: f"2 launches {f['dur']} us at {clk(f)}; #8 L1 throughput 81.3% (LSU data-pipe wavefronts: every 4-B element reloads two int64 indices), ALU 57.7%, issue 68.8%, while DRAM is 13.7% and L2 {f['l2_sub']:.1f}%; source (6.3 MB) is L2-resident (hit 96.8%); the 100.7 MB result at ~2.5 TB/s would take ~40 us")
row(P, r'cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align1',
    "first 1x1 Conv2d(131 -> 128) of sa2's MLP: cuDNN implicit GEMM per image (grid z = 24), TF32 mma.sync (allow_tf32 default for cuDNN), K = 131 forces the align1 kernel",
    'under the diagonal', 'l1', lambda f: f['l1'],
    'make the input channel count a multiple of 4 (pad 131 -> 132 with a zero channel, or concatenate xyz into a 4-wide slot) so cuDNN picks the align4 kernel', 37,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}; L1 {f['l1']:.1f}% (LSU {f['lsu']:.1f}%: 4-byte cp.async for the unaligned K), DRAM {f['dram_pct']:.1f}%, tensor {f['tc_TF']:.0f} TFLOP/s = {f['tc_meas']:.1f}% of the measured TF32 roof (8.05 G ops counted for 6.59 G useful: K padded to 160), AI 45 FLOP/B below the TF32 ridge (~95 at this clock); the same-shape align4 conv (#16, K=128) moves the same bytes in 64.8 us")
row(P, r'launch_clamp_scalar',
    "nn.ReLU after BN1 and BN2 of the shared MLP (torch.relu -> clamp_min(0)), out of place on 24x128x64x128 fp32",
    'under the diagonal', 'dram', lambda f: f['dram_pct'],
    'fuse ReLU into the BatchNorm pass (torch.compile of the Local MLP); as a separate pass it is at its roof', 92.4,
    lambda f: f"2 launches {f['dur']} us at {clk(f)}; DRAM {f['dram_pct']:.1f}% of the measured copy roof ({f['dram_GBs']:.0f} GB/s; {f['dram_MB']:.0f} MB), L2 {f['l2_sub']:.1f}%, issue {f['issue']:.1f}%: on the diagonal; only removing the pass helps")
row(P, r'CatArrayBatchedCopy_alignedK_contig',
    "Local.forward: torch.cat([grouped_xyz, index_points(points, idx)], dim=-1) -> (24,128,64,131) fp32, 103 MB",
    'under the diagonal', 'dram', lambda f: f['dram_pct'],
    'concatenate before gathering: index_points(torch.cat([xyz, points], -1), idx) and subtract new_xyz from channels 0:3 (the cat then moves 6.4 MB, not 103 MB) - or torch.compile', 85,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}; DRAM {f['dram_pct']:.1f}% ({f['dram_GBs']:.0f} GB/s, {f['dram_MB']:.0f} MB), stores use {f['st_sec']:.1f} B per 32-B sector (131-float rows are misaligned, 10.3M excess sectors), L2 {f['l2_sub']:.1f}%, issue {f['issue']:.1f}%, XU {f['xu']:.1f}%")
row(P, r'sm90_xmma_gemm_f32f32_tf32f32',
    "third 1x1 Conv2d(128 -> 256) of sa2's MLP: cuBLAS/cuDNN sm90 TF32 wgmma GEMM (M = 196,608 positions, N = 256, K = 128, 12.9 GFLOP)",
    'under the diagonal', 'dram', lambda f: f['dram_pct'],
    'nothing to do (memory-bound 1x1 conv at 76% of DRAM; the gains are in the bias/BN passes around it)', 0,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}; DRAM {f['dram_pct']:.1f}% of the measured copy roof ({f['dram_GBs']:.0f} GB/s, {f['dram_MB']:.0f} MB: 100.7 MB in + 201 MB out), L2 {f['l2_sub']:.1f}%; tensor {f['tc_TF']:.0f} TFLOP/s = {f['tc_meas']:.1f}% of the measured TF32 roof; AI 47 FLOP/B is below the TF32 ridge (~95 at this clock)")
row(P, r'cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4',
    "second 1x1 Conv2d(128 -> 128) of sa2's MLP: cuDNN per-image implicit GEMM (grid z = 24), TF32 mma.sync",
    'under the diagonal', 'dram', lambda f: f['dram_pct'],
    'channels_last input (see the permute change) lets cuDNN run one sm90 GEMM over all 196,608 positions, as the third conv does at 76% of DRAM', 13,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}; DRAM {f['dram_pct']:.1f}% ({f['dram_GBs']:.0f} GB/s, {f['dram_MB']:.0f} MB), L1 {f['l1']:.1f}%, L2 {f['l2_sub']:.1f}%, tensor {f['tc_meas']:.1f}% of the measured TF32 roof; AI 36 FLOP/B, memory side; at 80% of DRAM it would take ~52 us")
row(P, r'gpu_kernel_impl_nocast<at::direct_copy_kernel_cuda\(at::TensorIteratorBase &\)::\[lambda\(\) \(instance 3\)\]::operator \(\)\(\) const::\[lambda\(\) \(instance 4\)',
    "index_points(): materialising the int64 index tensors for advanced indexing - b.expand_as(idx) made contiguous (#1,#6) and idx (#2,#7), 196,608 int64 each, once for the xyz gather and once for the points gather",
    'launch', 'launch', lambda f: f['l2_sub'],
    'gather with index_select on a flattened (B*N, C) view (one 1-D index, no expanded batch index) or torch.compile', 13,
    lambda f: f"4 launches {f['dur']} us at {clk(f)}, 768 CTAs each (0.36 waves), 1.6 MB per launch; DRAM {f['dram_pct']:.1f}%, L2 {f['l2_sub']:.1f}%, issue {f['issue']:.1f}%: ~3 us each, near the launch floor")

# ---------------------------------------------------------------- cupy_bootstrap
C = 'cupy_bootstrap'
row(C, r'^cupy_var_core_float32$',
    "analysis(): #7 data.std() over the 2^22 observations and #20 s.std(axis=1) over the 4096x4096 resamples - CuPy's _var_core ReductionKernel (not CUB-accelerated): the full reduction gets ONE 512-thread block, the row reduction 128 blocks",
    'latency', 'latency', lambda f: max(f['l1'], f['dram_pct'], f['l2_sub']),
    'compute the spread with CUB-backed reductions: sd = cp.sqrt(cp.mean(cp.square(data - mean))) and, per resample, cp.sqrt(cp.mean(cp.square(s - m[:, None]), axis=1)) reusing the row mean', 3050,
    lambda f: f"#7: 3033.6 us at 1.99 GHz for 16.8 MB - grid (1,1,1) x 512 thr, SM active 0.8% of cycles (1 of 132 SMs), 5.5 GB/s, long-scoreboard stalls (each of the 512 threads walks 8192 elements in sequence); #20: 165.8 us at 1.98 GHz, 128 CTAs (0.24 waves), DRAM 9.3%, L1 40.0%, loads use 7.1 B per sector (row-per-thread, 14.7M excess sectors); the CUB mean of the same 16.8 MB (#0) takes 6.5 us and the segmented mean of s 19 us")
row(C, r'^cupy_take$',
    "s = data[idx]: fancy-index gather of 4096x4096 random positions (int64 indices, 134 MB) from the 16.8 MB data array into a 67 MB float32 result",
    'under the diagonal', 'l2', lambda f: f['l2_sub'],
    'draw int32 indices (dtype=cupy.int32) - halves the index stream; the random 4-byte gathers themselves are at the L2 request roof', 10,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, 131,072 CTAs; L2 tag requests {f['l2_sub']:.1f}% (lts__throughput {f['l2_ncu']:.1f}%), loads {f['ld_sec']:.1f} B per sector (random 4-B gathers, 14.7M excess sectors), {f['l2_MB']:.0f} MB of L2 traffic; DRAM {f['dram_pct']:.1f}% ({f['dram_MB']:.0f} MB), L1 {f['l1']:.1f}%, issue {f['issue']:.1f}%")
row(C, r'^cupy_copy__uint32_int64$',
    "cupy.random.randint (legacy RandomState): the .astype('l') of the masked 32-bit samples to int64 (16.8M elements, 67 MB -> 134 MB)",
    'latency', 'latency', lambda f: f['dram_pct'],
    'rng = cupy.random.default_rng(0); idx = rng.integers(0, data.size, (4096, 4096), dtype=cupy.int32) - one bounded-integer kernel plus an add, no mask/astype passes', 81.7,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, 131,072 CTAs of 128 thr, one element per thread; DRAM {f['dram_pct']:.1f}%, L2 {f['l2_sub']:.1f}%, issue {f['issue']:.1f}%, achieved occupancy {f['occ']:.0f}% of 100% theoretical; the neighbouring &mask and +0 kernels with the same grid move 134 and 268 MB in the same 81.3 us, so time tracks CTAs (~82 ns per CTA per SM), not bytes")
row(C, r'^cupy_add__int64_int_int64$',
    "cupy.random.randint: cupy.add(x, low, out=x) with low = 0 on the int64 indices (16.8M elements, 268 MB read+write)",
    'latency', 'latency', lambda f: f['dram_pct'],
    'default_rng().integers(..., dtype=cupy.int32): the add survives but on int32; it stays CTA-rate bound', 10,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, 131,072 CTAs x 128 thr; DRAM {f['dram_pct']:.1f}% of the measured roof ({f['dram_GBs']:.0f} GB/s), L2 {f['l2_sub']:.1f}%, issue {f['issue']:.1f}%, occupancy {f['occ']:.0f}%; same 81 us as the 134-MB and 201-MB kernels of the chain; the add of 0 is pure overhead")
row(C, r'^cupy_bitwise_and__uint32_uint_uint32$',
    "cupy.random.randint: sample &= mask (mask = 2^22 - 1) on the 16.8M raw cuRAND words",
    'latency', 'latency', lambda f: f['dram_pct'],
    'default_rng().integers(..., dtype=cupy.int32) (the mask is applied inside the generating kernel)', 81.3,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, 131,072 CTAs x 128 thr, 134 MB; DRAM {f['dram_pct']:.1f}% ({f['dram_GBs']:.0f} GB/s), L2 {f['l2_sub']:.1f}%, issue {f['issue']:.1f}%, occupancy {f['occ']:.0f}%: CTA-rate/latency bound like its siblings")
row(C, r'gen_sequenced<curandStateXORWOW',
    "cupy.random.randint -> curand.generate (cuRAND host API, XORWOW) of 16.8M 32-bit words",
    'latency', 'latency', lambda f: max(f['l2_sub'], f['dram_pct']),
    'generate with cupy.random.default_rng() (CuPy Generator kernels instead of the 4096-thread cuRAND XORWOW launch)', 25,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, grid 64 x 64 threads = 4096 threads (achieved occupancy {f['occ']:.1f}%, SM active {f['smact']:.0f}%), each thread produces 4096 words serially; writes 67 MB at 1.36 TB/s; L2 {f['l2_sub']:.1f}%, DRAM {f['dram_pct']:.1f}%, issue {f['issue']:.1f}%")
row(C, r'DeviceFixedSizeSegmentedReduceKernel',
    "CUB segmented sums over the 4096 rows of s: #14 s.mean(axis=1) and #17 the mean recomputed inside s.std(axis=1)",
    'under the diagonal', 'dram', lambda f: f['dram_pct'],
    'nothing to do (80% of the DRAM read roof); #17 only exists because std() recomputes the row mean', 0,
    lambda f: f"2 launches {f['dur']} us at {clk(f)}, 4096 CTAs; DRAM {f['dram_pct']:.1f}% of the measured read roof ({f['dram_GBs']:.0f} GB/s, 67 MB each, L2 hit 1.4%), L2 {f['l2_sub']:.1f}%, issue {f['issue']:.1f}%: on the diagonal")

# ---------------------------------------------------------------- gpytorch_regression
Gp = 'gpytorch_regression'
chain = "fuse the RBF post-processing: torch.compile the covariance forward (clamp_min_, div_(-2), exp_ in one pass over the 1.07 GB matrix) or gpytorch.kernels.keops.RBFKernel (never materialises it)"
row(Gp, r'BUnaryFunctor<float, float, float, binary_internal::MulFunctor',
    "gpytorch RBFKernel postprocess_rbf: dist_mat.div_(-2) (scalar multiply by -0.5, in place) on the 16384x16384 fp32 squared-distance matrix",
    'under the diagonal', 'dram', lambda f: f['dram_pct'], chain, 340,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}; DRAM {f['dram_pct']:.1f}% of the measured copy roof ({f['dram_GBs']:.0f} GB/s, {f['dram_MB']:.0f} MB = 1.07 GB read + 1.07 GB write), L2 {f['l2_sub']:.1f}%, issue {f['issue']:.1f}%: at the roof, only fewer passes help; saving = one third of the two passes removed by fusing the three-kernel chain")
row(Gp, r'exp_kernel_cuda',
    "gpytorch RBFKernel postprocess_rbf: .exp_() on the 16384x16384 fp32 matrix",
    'under the diagonal', 'dram', lambda f: f['dram_pct'], chain, 338,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}; DRAM {f['dram_pct']:.1f}% ({f['dram_GBs']:.0f} GB/s, {f['dram_MB']:.0f} MB), XU {f['xu']:.1f}%, FMA {f['fma']:.1f}%, issue {f['issue']:.1f}%: at the roof; saving = one third of the fused chain's gain")
row(Gp, r'launch_clamp_scalar',
    "gpytorch sq_dist: res.clamp_min_(0) on the 16384x16384 fp32 result of the distance matmul",
    'under the diagonal', 'dram', lambda f: f['dram_pct'], chain, 337,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}; DRAM {f['dram_pct']:.1f}% ({f['dram_GBs']:.0f} GB/s, {f['dram_MB']:.0f} MB), L2 {f['l2_sub']:.1f}%, issue {f['issue']:.1f}%: at the roof; saving = one third of the fused chain's gain")
row(Gp, r'sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x32x8',
    "gpytorch sq_dist: res = x1_.matmul(x2_.transpose(-2, -1)) with x1_ = cat([-2*x1, |x1|^2, 1]), x2_ = cat([x2, 1, |x2|^2]) - a 16384x16384x5 FP32 SIMT (FFMA) cuBLAS GEMM that writes the 1.07 GB distance matrix",
    'under the diagonal', 'issue', lambda f: f['issue'],
    'torch.compile(mode="max-autotune") of the covariance forward (Triton mm with clamp/scale/exp as epilogue, matrix written once at the write roof) or KeOps', 150,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, 65,536 CTAs; issue {f['issue']:.1f}% is the busiest unit (FMA {f['fma']:.1f}%, ALU {f['alu']:.1f}%, LSU {f['lsu']:.1f}%), DRAM {f['dram_pct']:.1f}% of the measured write roof ({f['dram_GBs']:.0f} GB/s, {f['dram_MB']:.0f} MB all writes), L1 {f['l1']:.1f}%, L2 {f['l2_sub']:.1f}%; 4.83 GFLOP executed (K padded 5->8) = {f['fp32_TF']:.1f} TFLOP/s ({f['fp32_pct']:.1f}% of FP32), useful AI 2.6 FLOP/B far left of the ridge; at the write roof the matrix needs ~223 us")
row(Gp, r'and_kernel_cuda',
    "torch.equal(x1, x2) in gpytorch Kernel.covar_dist (x1_eq_x2 check on the two lengthscale-scaled 16384x3 inputs): the all() reduction over the eq result, then a device->host sync",
    'latency', 'latency', lambda f: max(f['l2_sub'], f['dram_pct']),
    "nothing to do at user level (GPyTorch's own check; its result is unused here because x1 requires grad)", 0,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, one CTA of 512 threads over 49,152 bools (SM active {f['smact']:.1f}%), every unit <= {max(f['l2_sub'], f['dram_pct']):.1f}%")
row(Gp, r'MeanOps<float, float, float, float>',
    "gpytorch sq_dist: adjustment = x1.mean(-2, keepdim=True) (column means of the 16384x3 scaled inputs)",
    'latency', 'latency', lambda f: max(f['l2_sub'], f['dram_pct']),
    'torch.compile the covariance forward (split reduction fused with the centring/norm prologue)', 8,
    lambda f: f"1 launch {f['dur'][0]} us at {clk(f)}, 2 CTAs of (2,256) threads reducing 16384 rows each (SM active {f['smact']:.1f}%), every unit <= {max(f['l2_sub'], f['dram_pct']):.1f}%: serial per-block reduction")
row(Gp, r'elementwise_kernel<128, 2, void at::gpu_kernel_impl_nocast<at::CUDAFunctor_add<float>>',
    "broadcast subtractions on 16384-row tensors: #2 diff = y - mean in MultivariateNormal.log_prob (ExactMarginalLogLikelihood), #10/#14 x1 - adjustment and x2 - adjustment in sq_dist",
    'launch', 'launch', lambda f: f['l2_sub'],
    'torch.compile the covariance forward (centring fused into the norm/cat prologue)', 6,
    lambda f: f"3 launches {f['dur']} us at {clk(f)}, 64-192 CTAs (<=0.09 waves), 0.13-0.4 MB each; DRAM {f['dram_pct']:.1f}%, L2 {f['l2_sub']:.1f}%, issue {f['issue']:.1f}%: launch floor")

hdr = ['capture', 'kernel', 'launches', 'gpu_time_us', 'share', 'origin', 'position', 'limiter', 'limiter_pct', 'best_move', 'est_saving_us', 'reason']
for r in rows:
    for c in r:
        assert '\t' not in c and '\n' not in c, c
with open('verdicts.tsv', 'w') as fo:
    fo.write('\t'.join(hdr) + '\n')
    for r in rows:
        fo.write('\t'.join(r) + '\n')

# completeness check: every group >= 0.5 % has exactly one row
for cap in G:
    want = {f['kernel'] for f in G[cap]['groups'] if f['share'] >= 0.5}
    have = [r[1] for r in rows if r[0] == cap]
    assert len(have) == len(set(have)), cap
    assert want == set(have), (cap, want ^ set(have))
    print(cap, len(have), 'rows')
