#!/usr/bin/env python3
"""Round-6 grading: per-kernel judgements -> grades.tsv.

Position classes are derived mechanically from the labels (conventions rule 2).
Limiter / move judgements are hand-made per expert row (index = row order in
expert/verdicts.tsv) and hold the reason and the rule that decided them.
Saving (rule 6) is computed: share > 5% and move agrees -> ratio of expert saving
to the tool's first-move saving (a "nothing to do" move counts as 0); ratio > 2 or
one side zero and the other not -> disagree.
"""
import csv, re, os
csv.field_size_limit(10**8)
G = '/work/grading6'
E = list(csv.DictReader(open(f'{G}/expert/verdicts.tsv'), delimiter='\t'))
T = {(r['capture'], r['kernel']): r for r in csv.DictReader(open(f'{G}/tool/tool_verdicts.tsv'), delimiter='\t')}

def expert_class(pos):
    p = pos.lower()
    if 'diagonal' in p: return 'memory'
    if 'roof' in p: return 'compute'          # every expert roof row here is a tensor (FLOP) limiter
    if p.startswith(('latency', 'launch', 'issue')): return 'lat'
    raise ValueError(pos)

def tool_class(pos, binding):
    if 'diagonal' in pos: return 'memory'     # by label, whatever the binding unit
    if pos.startswith(('latency', 'launch', 'issue')): return 'lat'
    if 'roof' in pos:
        if binding.startswith('memory:'): return 'memory'
        if binding in ('pipe:tensor', 'pipe:fma', 'pipe:fp64', 'pipe:fp32', 'pipe:fp16'): return 'compute'
        return 'lat'                          # non-FLOP pipe
    raise ValueError(pos)

def first_move(moves):
    m = moves.split(' || ')[0]
    s = re.search(r'\[saves ([0-9.]+) us\]', m)
    nothing = ("not the user's to edit" in m and s is None) or 'saves 0.0 us' in m
    return m, (float(s.group(1)) if s else 0.0), nothing

# idx: (limiter, move, cause, reason, position_override)
# limiter/move values: 'yes' | 'no' | 'borderline' ; cause '' when the kernel agrees
J = {
 # ---------------- densenet_train
 0: ('yes', 'yes', '', "both lat (launch vs latency_bound); expert launch vs tool l2 12% <60 (r3); fused SGD = expert's move (r5); 34 vs 23.3", None),
 1: ('yes', 'yes', '', "both lat; tool issue 20% <60 (r3); torch.compile norm fusion = expert's move; 16 vs 22.3", None),
 2: ('yes', 'no', 'A_not_users_to_edit', "both lat, issue 33% (r3 ok); tool says 'PyTorch indexing not the user's to edit' but expert has a user-level move (torch.compile / preallocated concat buffer) (r5 bullet 1)", None),
 3: ('yes', 'yes', '', "both lat (launch_bound vs latency); tool l2 29% <60; torch.compile norm fusion = expert's; 9 vs 7.9", None),
 4: ('yes', 'no', 'B_move_where_expert_says_none', "both lat; tool l2 13% <60; tool's first move 'more work per launch (larger batch...)' saves 9.5 but expert says none and rejects a larger batch as not a per-step saving (r5 bullet 3)", None),
 5: ('no', 'yes', 'C_position_pointwise_memory_vs_lat', "expert launch-bound (SM active 59%, short kernels) vs tool under_diagonal l2 43%: classes differ, not named in 'unsure' so no r4 allowance; limiter launch 59 vs l2 43 (r3 fails); move (torch.compile fusion) and saving 7.6 vs 7.6 agree", None),
 6: ('yes', 'yes', '', "both lat; tool l2 32% <60; tool 'cuBLAS not the user's, no move' = nothing to do, expert none (r5)", None),
 7: ('yes', 'yes', '', "both lat; launch floor; torch.compile norm fusion = expert's", None),
 8: ('yes', 'no', 'B_move_where_expert_says_none', "both lat; tool 'keep weights in compute dtype' saves 4.5 but expert says none: per-step weight casts are inherent with fp32 master weights (r5 bullet 3)", None),
 9: ('yes', 'yes', '', "both lat; torch.compile fusion of the counter increment = expert's", None),
 10: ('yes', 'yes', '', "both lat; torch.compile fusion removes the fill = expert's", None),
 # ---------------- mixtral_train
 11: ('yes', 'yes', '', "both lat; tool l2 29% <60; tool judged the activation casts (60% of time): 'cast once instead of once per use' = expert's removal of the 3 redundant casts (NOTES item 3); 12 vs 18.7 (1.56x)", None),
 12: ('yes', 'yes', '', "both lat; issue 42 vs 45 (<60, within 3); torch.compile RoPE fusion = expert's; 14 vs 11.0", None),
 13: ('no', 'yes', 'C_position_pointwise_memory_vs_lat', "expert latency-bound (nothing near a roof, issue 31) vs tool under_diagonal l2 37%: classes differ, kernel not named in 'unsure'; 31 vs 37 (r3 fails); move torch.compile and saving 10 vs 7.5 agree", None),
 14: ('yes', 'no', 'A_not_users_to_edit', "both lat; tool l2 24% <60; tool 'cuBLAS GEMM not the user's to edit' where expert has a model-code move (fuse q/k/v into one 512->1024 Linear) (r5 bullet 1)", None),
 15: ('yes', 'no', 'A_not_users_to_edit', "both lat, issue 44 = 44; tool 'PyTorch indexing not the user's' where expert has torch.compile RoPE fusion (r5 bullet 1)", None),
 16: ('no', 'yes', 'C_position_pointwise_memory_vs_lat', "expert latency-bound (DRAM 27%, issue 41) vs tool under_diagonal l2 45%: classes differ, not named in 'unsure'; 41 vs 45 (r3 fails); move and saving 5.5 vs 4.3 agree", None),
 17: ('yes', 'no', 'A_not_users_to_edit', "both lat; tool l2 24% <60; tool 'not the user's' where expert has q/k/v fusion (model code)", None),
 18: ('yes', 'yes', '', "both launch; tool l2 21% <60; torch.compile RMSNorm fusion = expert's; 5 vs 5.4", None),
 19: ('yes', 'yes', '', "both launch; torch.compile RoPE fusion", None),
 20: ('yes', 'no', 'A_not_users_to_edit', "both launch (48 vs l2 48); tool first move 'PyTorch elementwise not the user's' (fusion only a 'minor' note) where expert has torch.compile RMSNorm fusion", None),
 21: ('yes', 'yes', '', "both launch; torch.compile fusion", None),
 22: ('yes', 'yes', '', "both launch; torch.compile fusion", None),
 # ---------------- whisper_train
 23: ('yes', 'yes', 'D_saving_ratio', "both issue-bound, issue 70 vs 68 (same unit); torch.compile bias fusion = expert's; but saving 45 vs 19.3 = 2.33x > 2 (r6)", None),
 24: ('yes', 'yes', '', "both memory (expert under, tool on the diagonal), l2 93 = 93; torch.compile transpose fusion = expert's; 32 vs 28.4", None),
 25: ('borderline', 'yes', '', "expert issue-bound ADU 77 vs tool under_diagonal (memory by label) issue 52: expert's 'unsure' names this kernel 'issue-bound on the ADU pipe vs under the diagonal' and the tool sits across it -> r4 covers position and limiter; channels_last = expert's; 40 vs 42.4", 'borderline'),
 26: ('yes', 'yes', '', "both compute, tensor 68 = 68; tool 'cuDNN not the user's, no move' = nothing, expert none; 0 vs 0", None),
 27: ('yes', 'yes', '', "both memory, l2 60 vs 61; channels_last = expert's; 33 vs 34.9", None),
 28: ('yes', 'no', 'E_cast_move_wrong_premise', "both memory (dram 29 vs l2 40, two memory levels r3); tool's move 'keep fp32 weights in compute dtype' is built on a wrong premise: most of the time is activation casts (LN output 10.2 us, input 4.9 us) that only fusing into the producer removes (r5 bullet 2); even if accepted, saving 12 vs 30.3 = 2.5x would fail r6", None),
 29: ('yes', 'yes', '', "both issue-bound, issue 73 = 73; torch.compile norm fusion = expert's; 18 vs 11.4 (1.58x)", None),
 30: ('no', 'no', 'B_move_where_expert_says_none', "expert under the roof tensor 36 (compute) vs tool under_flat_roof memory:l2 49 (memory by r2): classes differ; this conv (256x64x32) is not the one named in 'unsure'; tensor 36 vs l2 49; tool move 'more work per launch' 3.3 us where expert says none (r5 bullet 3)", None),
 # ---------------- fasterrcnn_infer
 31: ('yes', 'yes', '', "both compute, tensor pipe; tool first move 'more work per launch / several small operations batched into one' = the alternative the expert names (NOTES item 5: batch the two FPN levels into one RPN-head call, 80->160 CTAs); tool's second move is the expert's fp16/bf16 autocast; 25 (or ~20 for item 5) vs 23.0", None),
 32: ('yes', 'yes', '', "both lat; expert latency vs tool fma 11% <60; tool first move 'several small operations batched into one' = alternatives the expert names for this op (NOTES item 4 merge cls_logits+bbox_pred, item 5 batch FPN levels); tool's second move (TF32/autocast) is close to the expert's own; 20 vs 25.2", None),
 33: ('yes', 'yes', '', "both lat; tool issue 15% <60; torch.compile bias+ReLU = expert's; 15 vs 19.5", None),
 34: ('borderline', 'yes', '', "both lat; limiter expert issue-bound ADU 62 vs tool launch_bound l2 28 would fail r3, but 'unsure' names this kernel 'issue-bound vs launch-bound' and the tool sits across it -> r4; channels_last = expert's; 19 vs 19.4", None),
 35: ('yes', 'yes', '', "both lat; tool l2 19% <60; 'several small operations batched into one' = expert's merge of cls_logits and bbox_pred into one launch; 10 vs 12.4", None),
 36: ('yes', 'yes', '', "both launch; channels_last = expert's", None),
 37: ('yes', 'yes', '', "both launch; torch.compile bias+ReLU fusion", None),
 # ---------------- cupy_cg
 38: ('yes', 'no', 'A_not_users_to_edit', "both memory (dram 59 vs l2 71, two memory levels); tool 'cuSPARSE not the user's to edit' where expert has a user-level move: matrix-free stencil LinearOperator (~205 us) (r5 bullet 1)", None),
 39: ('yes', 'no', 'A_not_users_to_edit', "both memory; tool 'CuPy elementwise not the user's' where expert has a user-level move: fused CG updates with ElementwiseKernel / cupy.fuse (~60 us)", None),
 40: ('yes', 'yes', '', "both on the diagonal (dram 83 vs l2 87); both nothing to do; 0 vs 0", None),
 41: ('yes', 'no', 'A_not_users_to_edit', "both memory, dram 69 vs 70; tool 'cuBLAS not the user's' where expert has a user-level move: r.r fused into the r update (ReductionKernel, ~12 us)", None),
 42: ('yes', 'yes', '', "both on the diagonal; both nothing to do", None),
 43: ('yes', 'yes', '', "both memory; both nothing to do", None),
 44: ('yes', 'no', 'A_not_users_to_edit', "both lat; tool l2 7% <60; tool 'cuSPARSE not the user's' where the expert's matrix-free stencil removes this partition pass", None),
 45: ('yes', 'yes', '', "both memory, dram 71 vs 72; both nothing to do", None),
 46: ('yes', 'yes', '', "both launch; row says none but NOTES item 3 names fewer reduction stages for the dots' single-block second passes; tool's 'several small operations batched into one / CUDA graphs' counts as that named alternative (r5); saving not graded (<5%)", None),
 47: ('yes', 'yes', '', "both launch; both nothing to do", None),
 # ---------------- deeplab_infer
 48: ('yes', 'yes', '', "both compute, tensor pipe (expert under at 73%, tool on_roof; 'unsure' names it, class same); tool 'at the compute ceiling, saves 0' = expert 'none at user level'; 0 vs 0", None),
 49: ('yes', 'yes', '', "both lat (launch vs latency_bound); tool issue 10% <60; tool torch.compile norm fusion = the expert's lever (torch.compile with freezing folds BN); 458 vs 412.1", None),
 50: ('yes', 'yes', '', "both on the roof, tensor 100 vs 102; both none", None),
 51: ('yes', 'no', 'A_not_users_to_edit', "both memory, dram 67 vs l2 68; tool 'PyTorch reduction not the user's' where expert has torch.compile split reduction (~10 us)", None),
 52: ('yes', 'yes', '', "both memory, l2 70 vs 71; torch.compile fusion = expert's", None),
 53: ('yes', 'yes', '', "both memory; tool 'keep the weights in the compute dtype' = expert's model.half()", None),
}

CAUSE_TEXT = {
 'A_not_users_to_edit': "tool: library kernel 'not the user's to edit' where the expert has a user-level move",
 'B_move_where_expert_says_none': "tool proposes a move (launch-fill / cast removal) where the expert says none",
 'C_position_pointwise_memory_vs_lat': "position: short pointwise kernel called memory-bound (diagonal) by the tool, latency/launch by the expert",
 'D_saving_ratio': "saving off by more than 2x",
 'E_cast_move_wrong_premise': "cast move built on a wrong premise (activation casts treated as weight casts)",
}

out = []
for i, e in enumerate(E):
    t = T[(e['capture'], e['kernel'])]
    lim, mv, cause, reason, pos_ovr = J[i]
    ec, tc = expert_class(e['position']), tool_class(t['position'], t['binding'])
    pos = 'yes' if ec == tc else 'no'
    if pos_ovr: pos = pos_ovr
    fm, tsave, nothing = first_move(t['moves'])
    esave = float(e['est_saving_us'])
    share = float(e['share'])
    sav = 'n/a'
    if share > 0.05 and mv == 'yes':
        if esave == 0 and tsave == 0: sav = 'yes'
        elif esave == 0 or tsave == 0: sav = 'no'
        else: sav = 'yes' if max(esave, tsave) / min(esave, tsave) <= 2 else 'no'
    ok = lambda v: v in ('yes', 'borderline')
    overall = 'agree' if ok(pos) and ok(lim) and mv == 'yes' and sav in ('yes', 'n/a') else 'disagree'
    if overall == 'agree': cause = ''
    elif not cause: raise SystemExit(f'row {i} disagrees without a cause')
    rule = 'r4 borderline' if 'borderline' in (pos, lim) else ''
    out.append(dict(capture=e['capture'], kernel=e['kernel'], gpu_time_us=e['gpu_time_us'], share=e['share'],
        expert_position=e['position'], expert_limiter=f"{e['limiter']} {e['limiter_pct']}", expert_class=ec,
        tool_position=t['position'], tool_binding=f"{t['binding']} {t['binding_pct']}", tool_class=tc,
        position_agree=pos, limiter_agree=lim, move_agree=mv,
        expert_saving_us=e['est_saving_us'], tool_first_move_saving_us=f'{tsave:g}', saving_agree=sav,
        overall=overall, cause=cause, borderline_rule=rule, reason=reason))

os.makedirs(f'{G}/grading', exist_ok=True)
with open(f'{G}/grading/grades.tsv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=list(out[0].keys()), delimiter='\t', lineterminator='\n')
    w.writeheader(); w.writerows(out)
print(len(out), 'rows;', sum(r['overall'] == 'agree' for r in out), 'agree')
