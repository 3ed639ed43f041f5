#!/usr/bin/env python3
"""Round 10 grades: expert (expert/verdicts.tsv) vs tool (tool/tool_verdicts.tsv, commit f37c4d8), conventions.md
rules 1-6 applied unchanged.

Rule-defined points are computed here: matching (rule 1), position class (rule 2, applied to both sides' labels),
the limiter clauses (rule 3) and the saving ratio (rule 6). The hand judgements are in J below, one line of reason
each: the best move (rule 5: the tool's FIRST move), its premise, any rule-4 allowance, and the primary cause of a
disagreement. The primary cause is the move where the move disagrees; otherwise the first failing point (position,
limiter, saving). Writes grades.tsv next to this script."""
import csv, os, re
csv.field_size_limit(10**9)
HERE = os.path.dirname(os.path.abspath(__file__)); ROOT = os.path.dirname(HERE)
EXP = list(csv.DictReader(open(os.path.join(ROOT, 'expert/verdicts.tsv')), delimiter='\t'))
TOOLROWS = list(csv.DictReader(open(os.path.join(ROOT, 'tool/tool_verdicts.tsv')), delimiter='\t'))
TOOL = {(r['capture'], r['kernel']): r for r in TOOLROWS}

FLOP = {'tensor', 'fp32', 'fp16', 'fp64'}
MEM = {'dram', 'l2', 'l1'}
def unit(s):  # normalise an expert limiter ('fma/fp32', 'tensor') or a tool binding ('pipe:issue', 'memory:l2')
    s = s.split(':')[-1].strip()
    return {'fma': 'fp32', 'fma/fp32': 'fp32', 'l1/shared': 'l1'}.get(s, s)

# rule 2 (both sides' labels): diagonal -> memory; latency/issue/launch -> lat;
# roof -> compute (FLOP pipe) / memory (memory level) / lat (non-FLOP pipe: issue, ALU, ...)
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

def first_move(moves):  # rule 5: the tool's first move and its own saving figure
    m = moves.split(' || ')[0]
    s = re.search(r'\[saves ([0-9.]+) us\]', m)
    return m, (float(s.group(1)) if s else 0.0)

J = {}
def j(cap, key, move, cause='', why='', r4=False):
    """key: a substring that names exactly one expert kernel of the capture."""
    J[(cap, key)] = dict(move=move, cause=cause, why=why, r4=r4)

NU = "not the user's to edit (tool: no move; expert: a user-level change)"
DIFF = 'different move (first move: more work per launch; bf16 is only its second move)'
WP = 'wrong-premise move'
NONE = 'move where the expert says none'
SDPA = 'position+limiter: attention read as L2-side (rule 2)'
SAV = 'saving: ratio above 2'

# ---------------- raft_flow_infer ----------------
j('raft_flow_infer', 'cutlass_tensorop_s1688fprop_optimized_tf32', False, DIFF,
  "tool's first move is 'a library kernel whose launch leaves the GPU mostly idle: give it more work per launch (larger batch, batch small ops, CUDA graphs)' (28.5 us from 32% idle block slots); expert: bf16 autocast on the update block -> Hopper wgmma conv (51 us); the tool's bf16 move is only its second; batching is not named by the expert for this kernel (close call)")
j('raft_flow_infer', 'tilesize128x128x16', False, DIFF,
  "same as convz: first move is more work per launch (15.7 us), bf16 second (12.6 us); expert bf16 autocast (37 us); even accepted, rule 6 fails (37/15.7 = 2.36)")
j('raft_flow_infer', 'nchwToNhwcKernel', True, '',
  "both channels_last for model and input, the transposes go away; 38.0 vs 36 us")
j('raft_flow_infer', 'elementwise_kernel<128, 2, void at::gpu_kernel_impl_nocast<at::CUDAFunctor_add<float>>', True, '',
  "rule 4: the unsure list names this kernel on the line 'under the diagonal (42%) vs issue-heavy (46-51% issue)' and the tool's binding is pipe:issue 46, across it (dram 42 vs issue 46 misses rule 3 by 1 point; close call); tool torch.compile / fused chain = expert's torch.compile bias+ReLU pass; premise right (bias add -> ReLU -> cat chain); 24.9 vs 16 us (1.56)", r4=True)
j('raft_flow_infer', 'CatArrayBatchedCopy_vectorized', True, '',
  "tool 'producers write into slices of one output, or torch.compile the block' = expert's torch.compile with producers writing into the cat buffer; 35.6 vs 26 us (1.37)")
j('raft_flow_infer', 'implicit_convolve_sgemm', False, NONE,
  "tool: allow TF32 for cuDNN or bf16 autocast (16.3 us); expert: none (Cin=2, no tensor-core shape, no evidence bf16 helps); the TF32 premise is also wrong: allow_tf32 is PyTorch's default, programs.py does not change it and the capture's other convs already run TF32 kernels, so cuDNN chose FP32 for the shape; position also fails (fp32 roof vs under_flat_roof + l1 = memory); the unsure line is roof vs latency-bound, which the tool does not cross: no rule 4")
j('raft_flow_infer', 'tilesize64x32x64', True, SAV,
  "both latency-bound; limiter expert latency vs tool l1 36 < 60; bf16 autocast = expert's move; saving 10 vs 3.7 us = 2.70 > 2 at 6.28% share: rule 6 fails (the expert calls his 10 us a judgement, but rule 4 never covers the saving)")
j('raft_flow_infer', 'launch_clamp_scalar', True, '',
  "memory both (two memory levels); torch.compile chain = expert's ReLU folded into the bias pass; 19.2 vs 19 us")
j('raft_flow_infer', 'cutlass_80_tensorop_s1688gemm', False, NONE,
  "both latency-bound (l2 42 < 60); tool: bf16 autocast (3.2 us); expert: none, the fp32 corr-volume cast eats the gain; the unsure list names bf16 as the other side of his doubt but rule 4 never covers the move (close call)")
j('raft_flow_infer', 'nhwcToNchwKernel', True, '', "both channels_last; 6.8 vs 6 us (share 2.02%, rule 6 n/a)")
# ---------------- clip_train ----------------
j('clip_train', 'bfloat16_copy_kernel_cuda', False, WP,
  "tool: autocast weight casts -> keep weights bf16 with fp32 masters / cast once per step, booking all 67.6 us; expert: 62% of the time is 4 activation casts (LN1 output cast 3x for q/k/v, LN2 output for fc1), removed by torch.compile emitting bf16 once (42 us), weight casts kept; the weight-cast premise is wrong for most of the time (close call: read 'cast once per use' as cast-once)")
j('clip_train', 'nvjet_sm90_tst_128x192', False, NU,
  "tool: cuBLAS not the user's to edit; expert: fuse q/k/v into one N=1536 Linear (12 us); rule 5 first clause; the expert's 'close enough to call none' doubt would not help: rule 6 then fails 12 vs 0")
j('clip_train', 'vectorized_layer_norm_kernel', True, '',
  "both issue-bound at 73; tool 'compile it with its neighbours (torch.compile fuses norm + residual add into one pass) or a fused norm' = expert's Inductor fused LN with the residual folded in; 24.0 vs 29 us (1.21)")
j('clip_train', 'nvjet_sm90_tst_256x128', True, '', "both on the tensor roof; tool 'at the compute ceiling, saves 0' = expert none; 0 vs 0")
j('clip_train', 'cudnn_generated_fort_native_sdpa', True, SDPA,
  "expert under the roof, tensor 27.3 (compute); tool under_flat_roof + memory:l2 46 = memory by rule 2; the unsure line is tensor vs issue/MUFU, and the tool's L2 is on neither side: no rule 4 (close call); limiter fails (tensor 27 vs l2 46); move 'not the user's to edit, no move' = expert none, 0 vs 0")
j('clip_train', 'sigmoid_kernel_cuda', True, '', "memory both; torch.compile of the quick_gelu chain = expert's move; 27.0 vs 18 us (1.5)")
j('clip_train', 'unrolled_elementwise_kernel<at::CUDAFunctor_add<float>', True, '',
  "memory both; same user change, torch.compile (tool frames it as fusing into the producer, expert folds it into the LN2 consumer; close call); 16.6 vs 24 us (1.45)")
j('clip_train', 'AUnaryFunctor<c10::BFloat16', True, '', "memory both; torch.compile quick_gelu = expert's move; 24.3 vs 15 us (1.62)")
# ---------------- cupy_option_mc ----------------
j('cupy_option_mc', 'cupy_var_core_float32', False, NU,
  "both latency-bound; tool: 'a CuPy elementwise that is not the user's to edit' (it is the payoff.std() reduction, one 512-thread block; the tool's own evidence says 100% of block slots idle); expert: stderr from CUB-backed means (24,198 us)")
j('cupy_option_mc', 'cupy_inclusive_batch_scan_kernel', True, '',
  "both issue-bound at 92; tool: replace the generic scan by a RawKernel of its own that computes indices once and keeps reused data in registers = the expert's named alternative (one RawKernel looping over steps), narrower in scope (close call); premise right (issue-bound, DRAM 2.7%); share 3.28%, rule 6 n/a (871.2 vs 848 us)")
j('cupy_option_mc', 'gen_sequenced<curandStateXORWOW', False, NU,
  "both latency-bound (issue 8 < 60); tool: cuRAND not the user's to edit; expert: Philox generator via RandomState(method=PHILOX4_32_10) (645 us, an estimate)")
for key, t_s, e_s in [('cupy_multiply__', 324.0, 349), ('cupy_exp__', 121.4, 175), ('cupy_maximum__', 107.2, 134)]:
    j('cupy_option_mc', key, True, '',
      f"memory both (dram 39 vs l2 41-42); tool cupy.fuse / ElementwiseKernel of the expression = expert's @cp.fuse payoff chain; {t_s} vs {e_s} us (share < 5%, rule 6 n/a)")
j('cupy_option_mc', 'cupy_add__', False, NU,
  "memory both; tool: CuPy elementwise not the user's to edit; expert: the same @cp.fuse chain as multiply/exp (175 us); the tool's own program view fuses the neighbouring multiply and exp but not this add")
j('cupy_option_mc', 'cupy_subtract__', False, NU,
  "memory both; tool: not the user's to edit; expert: @cp.fuse chain, st - k fused with maximum (134 us)")

def judge(cap, kern):
    hits = [v for (c, k), v in J.items() if c == cap and k in kern]
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
    if h['move'] and share > 5:  # rule 6
        if esave == 0 and tsave == 0: sav = 'yes'
        elif esave == 0 or tsave == 0: sav = 'no'
        else: sav = yn(max(esave, tsave) / min(esave, tsave) <= 2)
    else: sav = 'n/a'
    ok = pos and lim and h['move'] and sav != 'no'
    if ok and h['cause']: raise SystemExit('cause on an agreeing row: ' + e['kernel'][:60])
    if not ok and not h['cause']: raise SystemExit('disagree without cause: ' + e['kernel'][:60])
    note = (f"E {e['position']}/{e['limiter']} {e['limiter_pct']} ({ecl}) vs T {t['position']}/{t['binding']} {t['binding_pct']} ({tcl}); "
            f"limiter: {'rule 4 allowance (' + limwhy + ')' if h['r4'] else limwhy}; saving E {esave:g} / T {tsave:g} us, share {share:g}%; " + h['why'])
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
print(f"wrote {len(rows)} rows; agree {sum(r['agree']=='yes' for r in rows)}; tool rows not graded (<0.5%): "
      + ', '.join(f"{r['kernel'][:40]} {100*float(r['share']):.2f}%" for r in ungraded))
