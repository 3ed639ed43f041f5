#!/usr/bin/env python3
"""Regenerates grades.tsv and the headline figures. Judgements are in J (index = row of expert/verdicts.tsv)."""
import csv, os, collections
B = os.path.dirname(os.path.abspath(__file__)); R = os.path.dirname(B)
E = list(csv.DictReader(open(f'{R}/expert/verdicts.tsv'), delimiter='\t'))
TR = list(csv.DictReader(open(f'{R}/tool-after/tool_verdicts.tsv'), delimiter='\t'))
T = collections.defaultdict(list)
for r in TR: T[(r['capture'], r['kernel'])].append(r)
# grade, cause, reason.  cause in: ok, ok-borderline, move-none (tool gives no move where expert has one),
# move-wrong (tool move not equivalent / generic), saving (>2x off on >5% kernel), position, limiter
J = {
0:('agree','ok','latency both; fuse-chain torch.compile = expert compile; 36.9 vs 30 us'),
1:('agree','ok','latency both (L2 18%); torch.compile fusion ~ expert compile/bgrad epilogue; 23.1 vs 22 us'),
2:('agree','ok-borderline','expert notes mixed bw/launch cast group; tool launch_bound (other side); remove casts = expert move; 32.5 vs 25 us'),
3:('disagree','move-none','move: tool says nothing to do; expert suggests layout/dtype try under cudnn.benchmark (~10 us, expert unsure)'),
4:('disagree','move-none','move: tool says not user-editable/no move; expert torch.compile split reduction ~18 us'),
5:('agree','ok-borderline','expert notes GELU issue vs DRAM borderline; tool under_diagonal L2 69 vs issue 68 (tie); fuse chain 12.9 vs 9 us'),
6:('agree','ok','compute, tensor; both nothing to do'),
7:('disagree','limiter','limiter: tool binding L2 58% vs expert tensor pipe 45% (tool own evidence: 50% of tensor roof); move agrees (none)'),
8:('agree','ok','compute, tensor; both nothing at kernel level'),
9:('agree','ok','compute, tensor; both nothing'),
10:('agree','ok','latency; torch.compile fusion both; 10.6 vs 12 us'),
11:('agree','ok','issue/latency class both (issue 62); compile/fused norm both'),
12:('agree','ok','compute, tensor; both nothing'),
13:('agree','ok','issue 61 both; GELU into GEMM epilogue both'),
14:('agree','ok','compute, tensor; both nothing'),
15:('agree','ok','issue/latency 54 both; torch.compile fusion'),
16:('agree','ok','latency; tool L2 49 <60 fine; torch.compile'),
17:('agree','ok','latency; torch.compile fusion'),
18:('agree','ok','memory side, DRAM/L2 ~65; compile norm both (share <5%, saving not checked)'),
19:('agree','ok','latency; torch.compile fusion'),
20:('agree','ok','memory side (on vs under same class); fuse into producer both'),
21:('disagree','move-none','move: tool none; expert packed QKV GEMM ~10 us (group mixes 4 projections + FFN2)'),
22:('agree','ok-borderline','expert notes mixed cast group; tool launch_bound; remove casts ~ fp16 end to end; 70.3 vs 55 us'),
23:('agree','ok','on roof both, nothing'),
24:('agree','ok','issue/latency 54-55; fused LN both; 13.2 vs 16'),
25:('disagree','saving','saving: tool 9.2 us vs expert 22 us (2.4x) on 8.5% kernel; class/limiter/move agree'),
26:('disagree','move-none','move: tool none; expert torch.compile split reduction ~13 us'),
27:('agree','ok','issue 64 both; GELU into FFN1 epilogue; 18.1 vs 16'),
28:('agree','ok','latency both; tool none vs expert "none major" (dropout off, 4 us optional)'),
29:('disagree','position','position: tool under_diagonal (memory) vs expert latency/issue; move: tool none vs expert torch.compile 12 us'),
30:('agree','ok','memory side ~70-73; compile norm ~ expert (small saving both)'),
31:('disagree','position','position: tool latency_bound vs expert under diagonal DRAM 62; move: tool none vs torch.compile'),
32:('disagree','move-wrong','move: expert none (cuDNN-internal philox unpack); tool generic "more work per launch / CUDA graphs"'),
33:('agree','ok','launch both; torch.compile fusion; 16.7 vs 14'),
34:('agree','ok','launch both; "several small operations batched into one" = fused QKV; 11.6 vs 10'),
35:('agree','ok','launch; torch.compile'),
36:('disagree','move-none','move: tool none; expert torch.compile / CUDA graphs ~5 us'),
37:('disagree','position','position: tool launch_bound vs expert under diagonal DRAM 27; saving 4.7 vs 2 us (>2x) on 6.3% kernel'),
38:('disagree','move-wrong','move: tool blames autocast fp32 weight casts; model is bf16, these are RMSNorm/RoPE activation casts (3 tiny launches) -> torch.compile'),
39:('agree','ok','launch; torch.compile'),
40:('agree','ok','launch; torch.compile'),
41:('agree','ok','launch; torch.compile'),
42:('disagree','move-wrong','move: tool "more work per launch/CUDA graphs" vs expert precompute cos/sin / compile'),
43:('agree','ok','launch; torch.compile'),
44:('agree','ok','launch; torch.compile'),
45:('agree','ok','launch; torch.compile'),
46:('disagree','move-none','move: tool none; expert torch.compile'),
47:('disagree','move-none','move: tool none; expert torch.compile'),
48:('agree','ok','launch; torch.compile'),
49:('agree','ok','launch; torch.compile'),
50:('agree','ok','launch; torch.compile'),
51:('disagree','move-none','move: tool none; expert torch.compile / static cache'),
52:('agree','ok','launch; torch.compile'),
53:('disagree','move-none','move: tool none; expert torch.compile / static cache'),
54:('disagree','position','position: tool latency_bound vs expert under diagonal DRAM 58; move: compile norm 12.2 us vs fold BN 55 us (4.5x)'),
55:('agree','ok','memory side (expert notes DRAM 57-85% uncertain); fuse into producer = epilogue fusion; 36.6 vs 30'),
56:('agree','ok','memory side; both nothing'),
57:('agree','ok','memory side; both nothing for the GEMM'),
58:('agree','ok','issue 68 both; torch.compile'),
59:('disagree','move-none','move: tool none; expert cuBLAS matmul on NHWC view / compile ~8 us (expert unsure)'),
60:('agree','ok','launch; torch.compile removes the BN param copies ~ fold BN; 13.2 vs 12'),
61:('disagree','position','position: tool under_flat_roof (compute side label) vs expert under diagonal; binding L2 52 agrees, move agrees'),
62:('agree','ok','latency; torch.compile'),
63:('agree','ok','launch; compile norm with neighbours ~ fold BN (removes kernel); 9.2 vs 9'),
64:('disagree','move-wrong','move: tool "more work per launch/CUDA graphs" vs expert fuse the SE block (torch.compile)'),
65:('agree','ok','launch; torch.compile'),
66:('disagree','move-wrong','move: tool "more work per launch/CUDA graphs" vs expert fuse the SE block'),
67:('agree','ok','launch; fuse activation (torch.compile) ~ expert compile'),
68:('disagree','saving','saving: bf16 move agrees but 19.0 vs 40 us (2.1x) on 43.7% kernel (expert notes 40 may be optimistic)'),
69:('disagree','move-wrong','move: expert none reliable (0 us); tool (4 stream rows) "more independent work per thread / more blocks" on a cuDNN-internal kernel, 21.9 us'),
70:('disagree','move-wrong','move/saving: expert none inside cuDNN (0 us); tool "more work per launch" 25.5 us'),
71:('disagree','limiter','limiter: tool binding L2 41% vs expert tensor (tf32) 27%; bf16 move and saving (6.1 vs 8) agree'),
72:('disagree','move-wrong','move: tool fuse-chain/torch.compile vs expert time-major input removing the transpose'),
73:('disagree','move-wrong','move: expert none; tool fuse-chain 2.0 us'),
74:('agree','ok','issue 77 both; fewer instructions per result ~ cut per-tap index math; 157.6 vs 300 (1.9x)'),
75:('agree','ok','issue 77 both; same move; 151.5 vs 300 (1.98x)'),
76:('disagree','move-none','move: tool none; expert F-ordered matrix for solve ~220 us'),
77:('disagree','position','position: tool latency_bound vs expert under diagonal DRAM 40; move: tool none vs cp.unique rewrite 300 us'),
78:('agree','ok','latency; both none'),
79:('disagree','move-none','move: tool none; expert cp.unique rewrite'),
80:('agree','ok','memory side; both none'),
81:('disagree','position','position: tool latency vs expert under diagonal (though expert limiter is CTA dispatch); move: none vs unique rewrite'),
82:('disagree','move-none','move: tool none; expert cp.unique rewrite'),
83:('disagree','move-wrong','move: tool kernel-level "more work per thread" 55.6 us vs expert cp.unique rewrite 80 us'),
84:('disagree','move-none','move: tool none; expert cp.unique rewrite'),
85:('disagree','move-none','move: tool none; expert cp.unique rewrite'),
86:('disagree','position','position: tool latency (L1 59) vs expert under diagonal DRAM 48; move: none vs unique rewrite'),
}
assert len(J) == len(E)
def first_move(m):
    m = m.split(' (could save')[0]; return m[:160]
rows = []
for i, e in enumerate(E):
    ts = T[(e['capture'], e['kernel'])]
    t = max(ts, key=lambda r: float(r['gpu_time_us']))  # split rows (per stream): time-dominant row
    g, cause, why = J[i]
    rows.append(dict(capture=e['capture'], kernel=e['kernel'], share=e['share'], gpu_time_us=e['gpu_time_us'],
        expert_position=e['position'], expert_limiter=e['limiter'], expert_move=e['best_move'],
        tool_position=t['position'], tool_binding=f"{t['binding']} {t['binding_pct']}%", tool_first_move=first_move(t['moves']),
        grade=g, reason=why, _cause=cause))
cols = 'capture kernel share gpu_time_us expert_position expert_limiter expert_move tool_position tool_binding tool_first_move grade reason'.split()
with open(f'{B}/grades.tsv', 'w') as f:
    w = csv.DictWriter(f, cols, delimiter='\t', extrasaction='ignore', lineterminator='\n'); w.writeheader(); w.writerows(rows)
def fig(rs):
    n = len(rs); a = sum(r['grade'] == 'agree' for r in rs)
    tt = sum(float(r['gpu_time_us']) for r in rs); ta = sum(float(r['gpu_time_us']) for r in rs if r['grade'] == 'agree')
    return f"{a}/{n} kernels, {ta:.1f}/{tt:.1f} us = {100*ta/tt:.1f}% of graded time"
print('ALL:', fig(rows))
for c in dict.fromkeys(r['capture'] for r in rows):
    print(f'  {c}:', fig([r for r in rows if r['capture'] == c]))
print('borderline agrees:', [(r['capture'], r['kernel'][:50]) for r in rows if r['_cause'] == 'ok-borderline'])
cc = collections.defaultdict(lambda: [0, 0.0])
for r in rows:
    if r['grade'] == 'disagree': cc[r['_cause']][0] += 1; cc[r['_cause']][1] += float(r['gpu_time_us'])
for k, (n, t) in sorted(cc.items(), key=lambda x: -x[1][1]): print(f'disagree cause {k}: {n} kernels, {t:.1f} us')
