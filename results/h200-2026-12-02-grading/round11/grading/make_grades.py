#!/usr/bin/env python3
"""Round 11 grades: expert (expert/verdicts.tsv) vs tool (tool/tool_verdicts.tsv, commit 67813a0), conventions.md
rules 1-6 applied unchanged.

Computed here: matching (rule 1), position class (rule 2, applied to both sides' labels), the limiter clauses
(rule 3) and the saving ratio (rule 6). Hand judgements are in J below, one per expert row: the best move (rule 5:
the tool's FIRST move, i.e. the text before the first ' || '), its premise, any rule-4 allowance, and the primary
cause of a disagreement (the move where the move disagrees; otherwise the first failing point). Writes grades.tsv
next to this script."""
import csv, os, re
csv.field_size_limit(10**9)
HERE = os.path.dirname(os.path.abspath(__file__)); ROOT = os.path.dirname(HERE)
EXP = list(csv.DictReader(open(os.path.join(ROOT, 'expert/verdicts.tsv')), delimiter='\t'))
TOOLROWS = list(csv.DictReader(open(os.path.join(ROOT, 'tool/tool_verdicts.tsv')), delimiter='\t'))
TOOL = {(r['capture'], r['kernel']): r for r in TOOLROWS}

FLOP = {'tensor', 'fp32', 'fp16', 'fp64'}
MEM = {'dram', 'l2', 'l1'}
def unit(s):  # an expert limiter ('l2', 'issue', 'tensor', 'latency') or a tool binding ('pipe:issue', 'memory:l2')
    s = s.split(':')[-1].strip()
    return {'fma': 'fp32', 'fma/fp32': 'fp32', 'l1/shared': 'l1'}.get(s, s)

# rule 2 (both sides' labels): diagonal -> memory; latency/issue/launch -> lat;
# roof -> compute (FLOP pipe) / memory (memory level) / lat (non-FLOP pipe)
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
    if eu in ('latency', 'launch') and ecl == tcl and tp < 60: return True, 'expert latency/launch vs tool unit <60%, classes agree'
    if abs(ep - tp) <= 3: return True, 'within 3 points'
    return False, f'fails: {eu} {ep:g} vs {tu} {tp:g}'

def first_move(moves):  # rule 5: the tool's first move and its own saving figure
    m = moves.split(' || ')[0]
    s = re.search(r'\[saves ([0-9.]+) us\]', m)
    return m, (float(s.group(1)) if s else 0.0)

J = {}
def j(cap, key, move, cause='', why='', r4=''):
    """key: a substring naming exactly one expert kernel of the capture; r4: the named line, when rule 4 is used."""
    J[(cap, key)] = dict(move=move, cause=cause, why=why, r4=r4)

NU = "not the user's to edit (tool: no move; expert: a user-level change)"
SAV = 'saving: ratio above 2 (rule 6)'
POS = 'position: issue-bound label read as lat vs the expert\'s under-the-diagonal (rule 2; no rule 4)'
WP = 'wrong-premise move (library-internal randint passes fused as a user array expression)'
NONE = 'move where the expert says none'
DIFF = 'a different move (bf16 autocast where the expert changes the layout)'
CHAIN = "tool 'fuse the elementwise chain (torch.compile)'"

# ---------------- mamba_train ----------------
j('mamba_train', 'direct_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() const::[lambda() (instance 12)]', True, '',
  f"E torch.compile folds the three transposes into neighbouring cast/SiLU kernels; {CHAIN} = the same user change; premise fine (copies inside a cast/transpose/conv chain), though the tool does not name the 2-B/sector transposed access the expert finds; 40 vs 42.8 us (1.07)")
j('mamba_train', 'conv_depthwise2d_forward_kernel_generic', True, '',
  "E install causal-conv1d + mamba-ssm (causal_conv1d_fn, memory-bound conv+SiLU); T 'a generic kernel held by its own index arithmetic (issue 69%, DRAM 3.6%): write it as a kernel of its own that streams at the bandwidth roof (torch.compile or a Triton kernel)'; accepted as the equivalent user change (replace ATen's generic conv by a purpose-built streaming kernel), premise identical to the expert's; close call: the tool does not name the ready-made package, and torch.compile alone would leave the conv to ATen; 32 vs 35.8 us (1.12)",
  r4="unsure list: 'under the diagonal with limiter issue, against latency'; tool issue_bound = lat class, across it")
j('mamba_train', 'bfloat16_copy_kernel_cuda', True, '',
  "E torch.compile fuses the activation casts (#7, #14), weight casts go only with bf16 weights (15 us, 'soft'); T 'autocast casts weights once per step and activations once per use: keep weights bf16 (fp32 masters) and let the producer write bf16 (torch.compile fuses the cast into the norm)' = both halves of the expert's move; premise right this time (5 weight/bias casts 17.3 us + 2 activation casts 10.9 us + ...); 15 vs 28.2 us (1.88, close to the rule-6 line)")
j('mamba_train', 'nvjet_sm90_tst_192x128', True, '',
  "both on the BF16 tensor roof (56.6 vs 57); T 'cuBLAS not the user's to edit, no move' = nothing to do = E none; 0 vs 0")
j('mamba_train', 'BinaryFunctor<float, float, float, binary_internal::MulFunctor', True, '',
  f"E torch.compile one fused RMSNorm; {CHAIN} = same; 13.9 vs 9.3 us (1.49)",
  r4="unsure list: 'Mul (RMSNorm): latency (issue 37%, DRAM 20%) against under the diagonal'; tool under_diagonal, across it (also covers the limiter: latency vs l2 43 with classes differing)")
j('mamba_train', 'gpu_kernel_impl<at::direct_copy', True, '',
  f"E torch.compile drops the bf16->fp32->bf16 round trip (or the mamba-ssm fast path); {CHAIN} = same; 12.6 vs 8.4 us (1.50)",
  r4="unsure list: '#11: latency against limiter issue; issue is 51%, just under my 60% line'; tool under_diagonal + pipe:issue 51 is the issue-limited side (close call: the tool's label, not only its binding, must cross; it does, as under_diagonal is the expert's own position for an issue-limited elementwise)")
j('mamba_train', 'silu_kernel', False, NU,
  "both lat (latency vs pipe:issue 55 < 60; also within 3 points); E causal-conv1d fast path (SiLU fused into the conv) or torch.compile (slice+SiLU), 9 us; T 'a PyTorch activation that is not the user's to edit, no move' (its own 'minor' line rates fusion at 0 s); rule 5 first clause")
j('mamba_train', 'nvjet_sm90_tst_32x64', False, NONE,
  "both lat (latency vs l2 32 < 60); E nothing to do (skinny N=80 x_proj GEMM fixed by the model); T 'a library kernel whose launch leaves the GPU mostly idle: more work per launch (larger batch, batch small ops, CUDA graphs)' 4.6 us; 96 CTAs on 132 SMs is 27% idle, not 'mostly idle'; share 3.11%, rule 6 n/a")
j('mamba_train', 'MeanOps', True, '',
  f"E torch.compile fused RMSNorm (this reduction survives as the fused kernel, 1.5 us); {CHAIN} = same change; T books the whole launch, 6.5 vs 1.5 (4.3x) but share 2.95% < 5%, rule 6 n/a")
j('mamba_train', 'pow_tensor_scalar', True, '',
  f"E torch.compile (pow fused into the reduction); {CHAIN} = same; 5.0 vs 5.0 us; limiter clause holds at l2 57 (< 60, close)")
for key, nm in [('exp_kernel_cuda', 'exp'), ('neg_kernel_cuda', 'neg'), ('rsqrt_kernel_cuda', 'rsqrt'), ('CUDAFunctorOnSelf_add<float>', '+eps')]:
    j('mamba_train', key, True, '', f"launch-floor {nm}; E torch.compile (fused); {CHAIN} = same; savings equal (whole launch)")
# ---------------- pointnet_train ----------------
j('pointnet_train', 'bn_fw_tr_1C11', True, SAV,
  "both memory-side (dram 60.6 vs l2 67); E torch.compile the Local MLP (BN as stats reduction + normalise/ReLU on full grids) or channels_last NHWC BN, 120 us; T 'a normalisation far below the roof: compile it with its neighbours (torch.compile) or a fused norm' = same move; saving 120 vs 43.8 = 2.74 > 2 at 28.2% share: rule 6 fails (tool prices the same kernel at 75% of its busiest level, L2 67%; expert prices fused BN at ~85% of DRAM from 60.6%)")
j('pointnet_train', 'CUDAFunctor_add<float>', True, POS,
  "limiter same unit (issue 69 both); position: E 'under the diagonal' (memory by label) vs T issue_bound (lat by label): rule 2 disagrees; the unsure entry for this kernel names only the limiter line (issue vs dram 55 vs lts 59), on which the tool sits on the expert's side, so rule 4 does not apply (close call, mechanical); move: E Conv2d(bias=False), the following BN makes the bias dead (305.4 us); T torch.compile the elementwise chain (155.1 us); accepted as an equivalent change, since the expert's own BN row says Inductor fuses the conv-bias add into the BN passes, though the tool misses that the bias is dead; 305.4 vs 155.1 = 1.97 (just inside 2)")
j('pointnet_train', 'direct_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() const::[lambda() (instance 7)]', False, NU,
  "both memory, l2 96 both; E permute(0,3,1,2) instead of (0,3,2,1): the view is channels_last-strided and cuDNN takes it without a copy (177.7 us); T 'a PyTorch copy that is not the user's to edit, no move'; the permute is in the user's Local.forward; rule 5 first clause")
j('pointnet_train', 'index_elementwise_kernel', False, NU,
  "both memory, l1 77 both; E torch.compile Local.forward (gather+centre+cat+permute in one kernel) or index_select on a (B*N, C) view (100 us); T 'a PyTorch indexing that is not the user's to edit'; index_points is user code; rule 5 first clause")
j('pointnet_train', 'nn_align1', True, SAV,
  "both memory-side, l1 76.6 vs 77; E pad Cin 131 -> 132 so cuDNN picks align4 (37 us, from the measured align4 sibling); T 'library picked an align-1 kernel: pad the dimension to a multiple of 8 (or channels_last)' = same move, right premise; saving 37 vs 83.4 = 2.25 > 2 at 6.69%: rule 6 fails; the tool prices it at the TF32 tensor roof (18.65 us) although its own diagnosis puts the kernel on the memory side")
j('pointnet_train', 'launch_clamp_scalar', True, '',
  f"both on the DRAM diagonal (dram 89.4 vs l2 90, two memory levels; also within 3 points); E fuse ReLU into the BN pass (torch.compile); {CHAIN} = same; 92.4 vs 92.4")
j('pointnet_train', 'CatArrayBatchedCopy', True, '',
  "memory both (dram 53.5 vs l2 60, two memory levels); E concatenate before gathering, or torch.compile; T 'producers write into slices of one output (out=), or compile the block (torch.compile)' = the expert's named alternative (the out= half does not fit an advanced-index producer); 85 vs 89.9 us (1.06)")
j('pointnet_train', 'sm90_xmma_gemm_f32f32_tf32f32', False, NONE,
  "memory both (dram 76.4 vs l2 79); E nothing to do (1x1 conv at 76% of DRAM); T first move bf16 autocast, 'doubles the tensor roof and halves the operand bytes' (32.5 us) on an fp32 model; rule 5: a move where the expert says none; even if accepted, rule 6 fails (0 vs 32.5)")
j('pointnet_train', 'nn_align4', False, DIFF,
  "memory both (dram 63.8 vs l2 69); E channels_last input so cuDNN runs one sm90 GEMM over all positions (13 us); T bf16 autocast (22.0 us), premised on 'doubling the tensor roof' for a kernel at 23% of it (only the halved bytes would help); not the expert's move nor a named alternative; share 4.25%, rule 6 n/a")
j('pointnet_train', 'direct_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() const::[lambda() (instance 4)]', True, '',
  f"both lat (launch vs l2 19); E index_select on a flattened view or torch.compile; {CHAIN} = the named torch.compile alternative; 13 vs 9.8 us (share 0.85%)")
# ---------------- cupy_bootstrap ----------------
j('cupy_bootstrap', 'cupy_var_core_float32', True, '',
  "both latency-bound (latency vs l1 2; same L1 figure 2.1 vs 2); E sd from CUB-backed means, sqrt(mean(square(x - mean))) whole-array and per row (3050 us); T 'ran on 1 block of 528 slots, the library took a serial path: write it with the parallel routines, ((x - x.mean())**2).mean() on CUB, or a ReductionKernel' = the expert's move; 3050 vs 3109.7 us (1.02)")
j('cupy_bootstrap', 'cupy_take', False, NU,
  "memory both, l2 96 both; E draw int32 indices, halving the index stream (10 us, 'a guess'); T 'CuPy elementwise not the user's to edit, no move'; rule 5 first clause (the expert's saving is small and soft, but the rule has no size floor)")
j('cupy_bootstrap', 'cupy_copy__uint32_int64', False, WP,
  "E randint via default_rng().integers(dtype=int32): one bounded-integer kernel + an add, no mask/astype passes (81.7 us); T 'CuPy kernels over the same arrays, each writing what the next reads: fuse the expression (cupy.fuse / ElementwiseKernel)' (81.7 us, program view by launch order); the premise is wrong: the &mask, astype and +0 are randint's internal passes, not an expression the user wrote, so there is nothing to cupy.fuse; and the tool calls the &mask of the same chain 'not the user's to edit' (close call: a user ElementwiseKernel doing mask+cast+add would be the same effect)",
  r4="unsure list: randint chain, 'Position: latency, because ... time tracks CTAs, not bytes' (the bytes-bound alternative); tool under_diagonal l2 58, across it")
j('cupy_bootstrap', 'cupy_add__', False, WP,
  "E default_rng().integers(dtype=int32): the add survives on int32, 10 us; T fuse the array expression (54.2 us); same wrong premise as the astype copy: library-internal randint passes treated as a user expression",
  r4="unsure list: 'The add: at 69% of DRAM it could also be called under the diagonal / dram'; tool under_diagonal l2 73, across it")
j('cupy_bootstrap', 'cupy_bitwise_and', False, NU,
  "E default_rng().integers (mask applied inside the generating kernel), 81.3 us; T 'CuPy elementwise not the user's to edit'; rule 5 first clause; inconsistent with the tool's own fusion move on the next two kernels of the same chain",
  r4="unsure list: randint chain, position latency vs bytes-bound; tool under_diagonal l2 37, across it")
j('cupy_bootstrap', 'gen_sequenced', False, NU,
  "both latency-bound (latency vs l2 31); E generate with cupy.random.default_rng() instead of the 4096-thread XORWOW launch (25 us); T 'a cuRAND kernel not the user's to edit' although its evidence shows 98% of block slots idle and 3.1% occupancy; rule 5 first clause")
j('cupy_bootstrap', 'DeviceFixedSizeSegmentedReduce', True, '',
  "both on the DRAM diagonal (80.1 vs 81); E nothing to do; T 'CUB reduction not the user's to edit, no move' = nothing to do; 0 vs 0")
# ---------------- gpytorch_regression ----------------
for key, nm, t_s, e_s in [('BUnaryFunctor', 'div_(-2)', 509.5, 340), ('exp_kernel_cuda', 'exp_()', 508.2, 338)]:
    j('gpytorch_regression', key, True, '',
      f"both on the DRAM roof; E fuse the RBF post-processing (torch.compile the covariance forward, or KeOps); {CHAIN} = same; {e_s} vs {t_s} us ({t_s/e_s:.2f}); the tool books the whole pass (all three go when they become the GEMM's epilogue), the expert one third of two passes")
j('gpytorch_regression', 'launch_clamp_scalar', True, '',
  "both on the DRAM roof (98); E fuse the RBF post-processing (torch.compile / KeOps); T 'an activation re-reading a whole GEMM output: fuse it into the GEMM epilogue (torch.compile mode=max-autotune)' = the expert's move (his GEMM row names exactly this epilogue); 337 vs 505.5 us (1.50)")
j('gpytorch_regression', 'sm80_xmma_gemm', False, NU,
  "position and limiter also fail: E under the diagonal / issue 74.1 (memory) vs T latency_bound / pipe:fma 31 (lat); the tool's evidence quotes issue 74% but binds the FP32 pipe; the unsure line is issue vs dram vs L2, on which the tool's fma is a fourth unit, so no rule 4; move: E torch.compile(max-autotune) / KeOps, the matrix written once at the write roof (150 us); T 'a cuBLAS GEMM not the user's to edit' (its epilogue move is booked on the clamp row instead); rule 5 first clause")
j('gpytorch_regression', 'and_kernel_cuda', False, NONE,
  f"both lat (latency vs l2 0); E nothing to do at user level (GPyTorch's own torch.equal check); {CHAIN} (8.4 us), which cannot fuse a torch.equal that syncs to the host; rule 5: a move where the expert says none; share 0.64%")
j('gpytorch_regression', 'MeanOps', True, '', f"both lat; E torch.compile the covariance forward (8 us); {CHAIN} = same (7.4 us)")
j('gpytorch_regression', 'CUDAFunctor_add<float>', True, '', f"both lat (launch vs l2 3); E torch.compile (centring fused into the prologue), 6 us; {CHAIN} = same (10.0 us)")

def judge(cap, kern):
    hits = [v for (c, k), v in J.items() if c == cap and k in kern]
    if len(hits) != 1: raise SystemExit(f'judgement lookup {len(hits)} for {cap} {kern[:90]}')
    return hits[0]

def short_move(m):
    return re.sub(r'\s*\(could save.*', '', m)[:110]

COLS = ['capture', 'kernel', 'gpu_time_us', 'share', 'position_agree', 'limiter_agree', 'move_agree',
        'saving_agree_or_na', 'agree', 'cause_if_disagree', 'note']
rows = []; yn = lambda b: 'yes' if b else 'no'
for e in EXP:
    t = TOOL.get((e['capture'], e['kernel']))
    if t is None: raise SystemExit('no tool row (rule 1): ' + e['kernel'][:80])
    h = judge(e['capture'], e['kernel'])
    ecl = klass(e['position'], unit(e['limiter'])); tcl = klass(t['position'], unit(t['binding']))
    pos0 = ecl == tcl
    lim0, limwhy = limiter(e, t, ecl, tcl)
    if h['r4'] and pos0 and lim0: raise SystemExit('rule 4 marked but not needed: ' + e['kernel'][:60])
    pos, lim = (True, True) if h['r4'] else (pos0, lim0)
    tmove, tsave = first_move(t['moves'])
    esave = float(e['est_saving_us']); share = float(e['share'])
    if h['move'] and share > 5:  # rule 6
        if esave == 0 and tsave == 0: sav, ratio = 'yes', '0 vs 0'
        elif esave == 0 or tsave == 0: sav, ratio = 'no', 'one side zero'
        else:
            r = max(esave, tsave) / min(esave, tsave); sav, ratio = yn(r <= 2), f'ratio {r:.2f}'
        savwhy = f'rule 6 applies ({ratio})'
    else:
        sav = 'n/a'; savwhy = 'rule 6 n/a (' + ('share <= 5%' if share <= 5 else 'move disagrees') + ')'
    ok = pos and lim and h['move'] and sav != 'no'
    if ok and h['cause']: raise SystemExit('cause on an agreeing row: ' + e['kernel'][:60])
    if not ok and not h['cause']: raise SystemExit('disagree without cause: ' + e['kernel'][:60])
    posnote = f"position {ecl} vs {tcl} (rule 2)" + (f"; rule 4 allowance: {h['r4']}" if h['r4'] and not pos0 else '')
    limnote = f"limiter rule 3: {limwhy}" + ('; covered by rule 4' if h['r4'] and not lim0 else '')
    note = (f"E {e['position']} / {e['limiter']} {e['limiter_pct']} vs T {t['position']} / {t['binding']} {t['binding_pct']} "
            f"({t['pct_of_roof']}% of its roof); {posnote}; {limnote}; saving E {esave:g} / T {tsave:g} us at {share:g}% share, {savwhy}; "
            f"E move: {e['best_move'][:110]}; T first move: {short_move(tmove)}; judgement: {h['why']}")
    rows.append(dict(capture=e['capture'], kernel=e['kernel'], gpu_time_us=e['gpu_time_us'], share=e['share'],
                     position_agree=yn(pos), limiter_agree=yn(lim), move_agree=yn(h['move']), saving_agree_or_na=sav,
                     agree=yn(ok), cause_if_disagree='' if ok else h['cause'], note=note))
used = {id(judge(r['capture'], r['kernel'])) for r in rows}
for v in J.values():
    if id(v) not in used: raise SystemExit('unused judgement ' + v['why'][:60])
graded = {(r['capture'], r['kernel']) for r in rows}
ungraded = [r for r in TOOLROWS if (r['capture'], r['kernel']) not in graded]
for r in ungraded:  # the tool's share column is a fraction
    if float(r['share']) * 100 >= 0.5: raise SystemExit('tool row >= 0.5% with no expert row: ' + r['kernel'][:60])
with open(os.path.join(HERE, 'grades.tsv'), 'w', newline='') as f:
    w = csv.DictWriter(f, COLS, delimiter='\t', lineterminator='\n'); w.writeheader(); w.writerows(rows)
print(f"wrote {len(rows)} rows; agree {sum(r['agree']=='yes' for r in rows)}; tool rows not graded (<0.5%): {len(ungraded)}: "
      + ', '.join(f"{r['capture'][:5]} {r['kernel'][:30]} {100*float(r['share']):.2f}%" for r in ungraded))
