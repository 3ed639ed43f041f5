#!/usr/bin/env python3
"""Round 9 grades: expert (expert/verdicts.tsv) vs tool (tool/tool_verdicts.tsv), conventions.md rules 1-6.
Rule-defined points (position class by rule 2, limiter clauses of rule 3, saving ratio of rule 6) are computed here;
the best move (rule 5), any rule-4 allowance and the primary cause are hand judgements in J below, one line of
reason each. Primary cause: the move where the move disagrees; otherwise the first failing point (position,
limiter, saving). Writes grades.tsv next to this script."""
import csv, os, re
csv.field_size_limit(10**9)
HERE = os.path.dirname(os.path.abspath(__file__)); ROOT = os.path.dirname(HERE)
EXP = list(csv.DictReader(open(os.path.join(ROOT, 'expert/verdicts.tsv')), delimiter='\t'))
TOOLROWS = list(csv.DictReader(open(os.path.join(ROOT, 'tool/tool_verdicts.tsv')), delimiter='\t'))
TOOL = {(r['capture'], r['kernel']): r for r in TOOLROWS}

FLOP = {'tensor', 'fp32', 'fp16', 'fp64'}
MEM = {'dram', 'l2', 'l1'}
def unit(s):  # normalise an expert limiter or a tool binding ('pipe:fma', 'memory:l1') to one unit name
    s = s.split(':')[-1].strip()
    return {'fma': 'fp32', 'l1/shared': 'l1'}.get(s, s)

# rule 2 (applied to both sides' labels): diagonal -> memory; latency/issue/launch -> lat;
# roof -> compute (FLOP pipe) / memory (memory level) / lat (non-FLOP pipe: issue, ALU, atomics, ...)
def klass(pos, u):
    p = pos.lower().replace('_', ' ')
    if 'diagonal' in p: return 'memory'
    if any(w in p for w in ('latency', 'issue', 'launch')): return 'lat'
    if 'roof' in p:
        if u in FLOP: return 'compute'
        if u in MEM: return 'memory'
        return 'lat'
    raise ValueError(pos)

# rule 3
def limiter(e, t, ecl, tcl):
    eu, tu = unit(e['limiter']), unit(t['binding'])
    ep, tp = float(e['limiter_pct']), float(t['binding_pct'])
    if eu == tu: return True, 'same unit'
    if eu in MEM and tu in MEM and ecl == tcl == 'memory': return True, 'two memory levels, memory-side kernel'
    if eu in ('latency', 'launch') and ecl == tcl and tp < 60: return True, 'expert latency/launch vs tool unit <60%'
    if abs(ep - tp) <= 3: return True, 'within 3 points'
    return False, f'{eu} {ep:g} vs {tu} {tp:g}'

def first_move(moves):
    m = moves.split(' || ')[0]
    s = re.search(r'\[saves ([0-9.]+) us\]', m)
    return m, (float(s.group(1)) if s else 0.0)

NU = "not the user's to edit"
J = {}
def j(cap, key, move, cause='', why='', r4=False):
    """key: a substring that names exactly one expert kernel of the capture."""
    J[(cap, key)] = dict(move=move, cause=cause, why=why, r4=r4)

POS_LAT_MEM = 'position: latency/launch vs memory-side read'
POS_SGEMM = 'position+limiter: FP32 SGEMM, expert issue-limited vs tool FMA pipe'
DIFF = 'different move'
WP = 'wrong-premise move'
ZERO = 'nothing to do (saves 0 at the L1 roof) vs expert cuBLAS'

# ---------------- qwen2_train ----------------
j('qwen2_train', 'gpu_kernel_impl<at::BinaryFunctor<float, float, float, binary_internal::MulFunctor', True, '',
  "tool torch.compile / custom fused kernel of the elementwise chain = expert's fused rotary (torch.compile the layer or a fused rotary kernel); 36.0 vs 46 us")
j('qwen2_train', 'bfloat16_copy_kernel_cuda', False, WP,
  "tool: autocast weight casts -> keep weights bf16 / cast once per step, booking all 38.9 us; expert keeps the weight and bias casts (per-step casts of fp32 master weights) and removes the three identical casts of the RMSNorm output (23.6 us) by having RMSNorm emit bf16 once; the premise (weight casts) is wrong for 61% of the time (close call: 'cast once per use')")
j('qwen2_train', 'gpu_kernel_impl_nocast<at::BinaryFunctor<float, float, float, binary_internal::MulFunctor', True, '',
  "tool torch.compile chain fusion = expert's fused RMSNorm (torch.compile / Liger); 18.0 vs 27 us")
j('qwen2_train', 'CatArrayBatchedCopy', True, '',
  "rule 4: unsure list names CatArrayBatchedCopy (issue/IMAD-bound vs latency-bound) and the tool is latency_bound (fma 61 vs issue 57 fails rule 3 by 1 point); tool 'producers write into the cat output, or torch.compile the block' includes the expert's torch.compile of the rotary (close call); 20.4 vs 20.4 us", r4=True)
j('qwen2_train', 'gpu_kernel_impl_nocast<at::CUDAFunctor_add<float>>', True, '',
  "tool torch.compile chain fusion = expert's fused rotary (torch.compile); 11.1 vs 16.7 us")
j('qwen2_train', 'nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT', True, '',
  "both compute, tensor; tool 'not the user's to edit, no move' = expert none (QKV fusion booked on the k/v row); savings both 0")
j('qwen2_train', 'nvjet_sm90_tst_128x64_64x8_1x2_h_bz_bias_TNT', False, NU,
  "tool: cuBLAS not the user's to edit; expert: fuse q/k/v into one N=1536 Linear (10 us)")
j('qwen2_train', 'neg_kernel_cuda', True, '',
  "tool torch.compile chain fusion = expert's fused rotary; 8.1 vs 12.2 us")
j('qwen2_train', 'pow_tensor_scalar_kernel_impl', False, NU,
  "tool: PyTorch elementwise not the user's to edit; expert: fuse RMSNorm (torch.compile / fused RMSNorm), x^2 never materialised (9.2 us)")
j('qwen2_train', 'MeanOps', True, POS_LAT_MEM,
  "expert under the DRAM diagonal (44%, 0.48 wave); tool launch_bound = lat; not in the unsure list; limiter dram 44 vs l2 47 within 3 points; move torch.compile = expert's fused RMSNorm")
j('qwen2_train', 'CUDAFunctorOnSelf_add<float>', True, '', "both launch-bound; torch.compile chain = expert's fused RMSNorm")
j('qwen2_train', 'rsqrt_kernel_cuda', True, '', "both launch-bound; torch.compile chain = expert's fused RMSNorm")
# ---------------- neox_prefill_infer ----------------
j('neox_prefill_infer', 'nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_bias_TNT', True, '',
  "both on the tensor roof (79 vs 106 of the tool's roof); tool 'saves 0, at its roof' = expert none")
j('neox_prefill_infer', 'CatArrayBatchedCopy', True, '',
  "rule 4: unsure list names CatArrayBatchedCopy and the tool is latency_bound (fma 52 vs issue 48 fails rule 3 by 1 point); producers writing into the cat output / torch.compile = expert's one rotary pass writing q/k in final layout (torch.compile or in place on the qkv buffer); 119.1 vs 119 us", r4=True)
j('neox_prefill_infer', 'cudnn_generated_fort_native_sdpa', True, '',
  "both compute, tensor (34 vs 46); tool no move = expert none; savings both 0")
j('neox_prefill_infer', 'vectorized_layer_norm_kernel', True, '',
  "same user change: torch.compile the layer (tool: fuse the norm with its neighbours; expert: Inductor computes both LNs of x in one pass); 18.4 vs 29 us (1.58)")
j('neox_prefill_infer', 'GeluCUDAKernelImpl', True, '',
  "both fuse GELU into the h_to_4h GEMM epilogue (cuBLASLt/_addmm_activation or max-autotune); 42.8 vs 36 us")
j('neox_prefill_infer', 'gpu_kernel_impl_nocast<at::BinaryFunctor<c10::Half', True, '',
  "tool torch.compile chain fusion = expert's fused partial rotary (torch.compile); 24.3 vs 20 us")
j('neox_prefill_infer', 'vectorized_elementwise_kernel<8, at::CUDAFunctor_add<c10::Half>', True, '',
  "tool torch.compile chain = expert's 3-input add via torch.compile (named)")
j('neox_prefill_infer', 'direct_copy_kernel_cuda', False, NU,
  "tool: PyTorch copy not the user's to edit; expert: torch.compile the permute copy or keep q/k/v in [B,S,H,D] (16 us)")
j('neox_prefill_infer', 'gpu_kernel_impl_nocast<at::CUDAFunctor_add<c10::Half>>', True, '',
  "both latency-bound; torch.compile chain = expert's fused partial rotary")
j('neox_prefill_infer', 'neg_kernel_cuda', True, POS_LAT_MEM,
  "expert latency-bound 29%; tool under_diagonal + memory:l2 44 = memory; the unsure line for neg is latency vs issue-bound, which the tool does not cross, so no rule 4 (close call); limiter fails with the class; move torch.compile agrees")
# ---------------- pyg_sage_train ----------------
j('pyg_sage_train', 'vectorized_gather_kernel', False, NU,
  "tool: PyTorch indexing not the user's to edit; expert: SparseTensor/CSR adjacency so SAGEConv runs one SpMM (1929 us); position also differs (latency 31 vs under_diagonal l2 39)")
j('pyg_sage_train', 'indexFuncLargeIndex', False, NU, "tool: not the user's to edit; expert: SpMM route, transposed SpMM backward (1245 us)")
j('pyg_sage_train', '_scatter_gather_elementwise_kernel', False, NU, "tool: not the user's to edit; expert: SpMM reduce='mean' replaces gather+scatter (439 us)")
j('pyg_sage_train', 'sm80_xmma_gemm_f32f32_f32f32_f32_nn_n', True, POS_SGEMM,
  "rule 2 on the expert's 'under the roof' + issue = lat vs tool under_flat_roof + fma = compute; limiter issue 65 vs fma 47 fails in any case; TF32 move agrees (81.5 vs 76)")
j('pyg_sage_train', 'sm80_xmma_gemm_f32f32_f32f32_f32_tn_n', True, POS_SGEMM,
  "expert roof + issue 64 = lat vs tool fma 50 = compute; limiter fails (14 points); TF32 move agrees (68.1 vs 68)")
j('pyg_sage_train', 'cutlass_80_simt_sgemm_128x64_8x5_nt_align1', True, POS_SGEMM,
  "expert roof + issue 81 = lat vs tool fma 63 = compute; limiter fails (18 points); first move TF32 agrees (39.0 vs 45)")
j('pyg_sage_train', 'gpu_kernel_impl_nocast<at::BinaryFunctor<float, float, float, binary_internal::DivFunctor', False, DIFF,
  "tool: torch.compile an elementwise chain; the mean division sits between scatter_add and a GEMM, no chain to fuse; expert: SpMM reduce='mean' divides inside the kernel (78 us); torch.compile not named")
j('pyg_sage_train', 'vectorized_elementwise_kernel<4, at::CUDAFunctor_add<float>', False, DIFF,
  "tool: torch.compile elementwise chain (35.4 us, 52%); expert: fold the forward add into lin_r's GEMM (addmm, beta=1), backward accumulation stays (12 us); torch.compile not named for this row (close call)")
j('pyg_sage_train', 'splitKreduce_kernel', True, '', "both latency-bound; tool no move = expert none")
j('pyg_sage_train', 'reduce_kernel<128, 4, at::ReduceOp<float, at::func_wrapper_t<float, at::sum_functor', True, '',
  "same user change: torch.compile (expert: Inductor's split reduction for the bias-grad column sum); 'chain' framing loose (close call); 22.9 vs 26 us")
j('pyg_sage_train', 'FillFunctor<float>', False, DIFF,
  "tool: torch.compile an elementwise chain (a zero fill reads nothing: loose premise); expert: SpMM writes its output directly, no zero-initialised accumulators (30 us)")
# ---------------- vae_train ----------------
j('vae_train', 'cutlass_tensorop_f16_s16816dgrad', True, 'position: conv dgrad read as L1-side (rule 2)',
  "expert under the tensor roof 15%; tool under_flat_roof + memory:l1 46 = memory; not in the unsure list; limiter tensor 15 vs l1 46; moves both none, savings both 0")
j('vae_train', 'sm90_xmma_dgrad_implicit_gemm_indexed', False, NU,
  "tool: cuDNN not the user's to edit; expert: last ConvTranspose2d(32->3) as one GEMM + F.fold (55 us); position also differs (tensor 21 vs memory:l2 51)")
j('vae_train', 'gpu_kernel_impl_nocast<at::CUDAFunctor_add<c10::Half>>', True, '',
  "both issue 64; torch.compile bias+ReLU = expert's move; 27.6 vs 27 us")
j('vae_train', 'nchwToNhwcKernel', True, '', "both channels_last for model and input; 40.3 vs 31 us")
j('vae_train', 'nhwcToNchwKernel', True, 'limiter: issue vs dram on the NHWC->NCHW transform',
  "position agrees (tool under_diagonal + pipe:issue is memory by its label); limiter dram 46 vs issue 55 fails every rule-3 clause; not in the unsure list; channels_last agrees, 25.8 vs 25.8 us")
j('vae_train', 'float16_copy_kernel_cuda', False, 'move where the expert says none',
  "tool: keep weights fp16 / cast once per step (23.3 us); expert: none (per-step autocast casts of fp32 master weights, 8 of 9 at the 2 us launch floor); rule 5")
j('vae_train', 'launch_clamp_scalar', True, '', "memory both (two memory levels); torch.compile ReLU into the bias pass = expert's move")
j('vae_train', 'nvjet_sm90_hsh_128x128_64x6_2x1_v_bz_bias_TNT', True, 'position: small GEMM read as L2-side (rule 2)',
  "expert latency-bound 15%; tool under_flat_roof + memory:l2 31 = memory; not in the unsure list; limiter fails with the class; moves both none")
# ---------------- cupy_heat ----------------
for key, why in [('cupy_add__', 'fused RawKernel for the whole step (2557 us)'),
                 ('cupy_subtract__', 'same fused RawKernel with in-pass max-abs-change (1276 us)'),
                 ('cupy_copy__', 'same fused RawKernel; its ~135 us/step charged here (1000 us)'),
                 ('cupy_absolute__', 'fold the check into the fused kernel, or check every N steps (637 us)')]:
    j('cupy_heat', key, False, NU,
      "rule 4 for position/limiter (unsure list: latency-bound vs under the DRAM diagonal 39-57%; tool under_diagonal); tool: CuPy elementwise not the user's to edit; expert: " + why, r4=True)
j('cupy_heat', 'cupy_multiply__', True, '',
  "rule 4 for position/limiter (as the other elementwise rows); tool cupy.fuse/ElementwiseKernel fusing the scaled temporary into the update = equivalent user-level change to the expert's fused step kernel for this pass (close call); 849.5 vs 1274 us (1.50)", r4=True)
j('cupy_heat', 'DeviceReduceKernel', False, NU,
  "both on the DRAM diagonal 92-93; tool: CUB not the user's to edit; expert: fold the max into the fused stencil kernel (130 us)")
# ---------------- cupy_user_kernels ----------------
j('cupy_user_kernels', 'histogram', False, WP,
  "rule 4 for position/limiter (unsure list: atomic-unit roof vs latency-bound; tool latency_bound); tool: more independent work / loads in flight or more blocks (16.9 ms) assumes too few bytes in flight; the time is 64M global atomics serialised on 8 L2 lines; expert: privatized shared-memory histogram or cupy.histogram", r4=True)
j('cupy_user_kernels', 'matmul', False, ZERO,
  "both on the L1 diagonal 97; tool 'L1/shared is the limit ... saves 0, bytes at this level's roof' = nothing to do (rule 5); expert: cuBLAS A @ B (2800 us)")
j('cupy_user_kernels', 'tiled_matmul', False, ZERO,
  "both on the L1/shared diagonal 94; tool saves 0 = nothing to do (rule 5); expert: cuBLAS (1740 us); even read as the named register-tiling alternative, rule 6 fails (tool 0 vs 1740, share 9.1%)")
j('cupy_user_kernels', 'squared_diff', False, DIFF,
  "rule 4 for position/limiter (unsure list names squared_diff: latency vs under the diagonal); tool: more bytes in flight per thread (118.9 us); expert: fold (x-y)^2 into the L2-norm ReductionKernel (275 us); not named", r4=True)

def judge(cap, kern):
    hits = [v for (c, k), v in J.items() if c == cap and k in kern]
    if cap == 'cupy_user_kernels' and kern in ('matmul', 'tiled_matmul'):
        hits = [J[(cap, kern)]]
    if len(hits) != 1: raise SystemExit(f'judgement lookup {len(hits)} for {cap} {kern[:90]}')
    return hits[0]

COLS = ['capture', 'kernel', 'gpu_time_us', 'share', 'position_agree', 'limiter_agree', 'move_agree',
        'saving_agree_or_na', 'agree', 'cause_if_disagree', 'note']
rows = []; yn = lambda b: 'yes' if b else 'no'
for e in EXP:
    t = TOOL.get((e['capture'], e['kernel']))
    if t is None: raise SystemExit('no tool row (rule 1): ' + e['kernel'][:80])
    h = judge(e['capture'], e['kernel'])
    ecl = klass(e['position'], unit(e['limiter'])); tcl = klass(t['position'], unit(t['binding']))
    pos = ecl == tcl
    lim, limwhy = limiter(e, t, ecl, tcl)
    r4used = h['r4'] and not (pos and lim)
    if h['r4'] and not r4used: raise SystemExit('rule 4 marked but not needed: ' + e['kernel'][:60])
    if h['r4']: pos = lim = True
    _, tsave = first_move(t['moves'])
    esave = float(e['est_saving_us']); share = float(e['share'])
    if h['move'] and share > 5:
        if esave == 0 and tsave == 0: sav = 'yes'
        elif esave == 0 or tsave == 0: sav = 'no'
        else: sav = yn(max(esave, tsave) / min(esave, tsave) <= 2)
    else: sav = 'n/a'
    ok = pos and lim and h['move'] and sav != 'no'
    if ok and h['cause']: raise SystemExit('cause on an agreeing row: ' + e['kernel'][:60])
    if not ok and not h['cause']: raise SystemExit('disagree without cause: ' + e['kernel'][:60])
    note = (f"E {e['position']}/{e['limiter']} {e['limiter_pct']} ({ecl}) vs T {t['position']}/{t['binding']} {t['binding_pct']} ({tcl}); "
            f"limiter: {'rule 4 allowance' if h['r4'] else limwhy}; saving E {esave:g} / T {tsave:g} us, share {share:g}%; " + h['why'])
    rows.append(dict(capture=e['capture'], kernel=e['kernel'], gpu_time_us=e['gpu_time_us'], share=e['share'],
                     position_agree=yn(pos), limiter_agree=yn(lim), move_agree=yn(h['move']), saving_agree_or_na=sav,
                     agree=yn(ok), cause_if_disagree='' if ok else h['cause'], note=note))
used = set()
for r in rows: used.add(id(judge(r['capture'], r['kernel'])))
for v in J.values():
    if id(v) not in used: raise SystemExit('unused judgement ' + v['why'][:60])
graded = {(r['capture'], r['kernel']) for r in rows}
ungraded = [r for r in TOOLROWS if (r['capture'], r['kernel']) not in graded]
for r in ungraded:
    if float(r['share']) * 100 >= 0.5: raise SystemExit('tool row >= 0.5% with no expert row: ' + r['kernel'][:60])
with open(os.path.join(HERE, 'grades.tsv'), 'w', newline='') as f:
    w = csv.DictWriter(f, COLS, delimiter='\t', lineterminator='\n'); w.writeheader(); w.writerows(rows)
print(f"wrote {len(rows)} rows; agree {sum(r['agree']=='yes' for r in rows)}; tool rows not graded (<0.5%): {len(ungraded)}")
