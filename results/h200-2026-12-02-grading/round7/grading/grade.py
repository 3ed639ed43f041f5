#!/usr/bin/env python3
"""Every figure from grades.tsv; prints markdown and writes figures.md."""
import csv, os
from collections import OrderedDict, defaultdict
HERE = os.path.dirname(os.path.abspath(__file__))
R = list(csv.DictReader(open(os.path.join(HERE, 'grades.tsv')), delimiter='\t'))
CAPS = ['triton_kernels', 'roberta_fp16_train', 'r3d_infer', 'gnn_train', 'cupy_kmeans', 'bart_generate']
T = lambda r: float(r['gpu_time_us'])
SHORT = lambda k: (k.replace('void ', '').split('(')[0])[:70]
out = []
p = out.append

def tally(rows):
    n = len(rows); a = [r for r in rows if r['overall'] == 'agree']
    tt = sum(map(T, rows)); ta = sum(map(T, a))
    return len(a), n, ta, tt

def line(name, rows):
    a, n, ta, tt = tally(rows)
    return f"| {name} | {a}/{n} | {100*a/n:.0f}% | {ta:,.1f}/{tt:,.1f} | {100*ta/tt:.1f}% |"

p('# Figures (computed by grade.py from grades.tsv)\n')
p('## Agreement per capture and overall\n')
p('| capture | kernels agreed/graded | % | GPU time agreed/graded (us) | % |')
p('|---|---|---|---|---|')
for c in CAPS: p(line(c, [r for r in R if r['capture'] == c]))
p(line('**overall**', R))
caps_pct = [100 * tally([r for r in R if r['capture'] == c])[2] / tally([r for r in R if r['capture'] == c])[3] for c in CAPS]
p(f"\nMean of the six captures' GPU-time %: {sum(caps_pct)/len(caps_pct):.1f}% (each capture weighted equally).\n")

p('## Counts by point\n')
p('| point | agree | graded | % | GPU time agreed (us) | of (us) |')
p('|---|---|---|---|---|---|')
for col, name in [('position_agree', 'position class'), ('limiter_agree', 'limiter'), ('move_agree', 'best move (first move)'), ('saving_agree', 'saving (rule 6: >5% share, move agrees)')]:
    g = [r for r in R if r[col] in ('yes', 'no')]; y = [r for r in g if r[col] == 'yes']
    p(f"| {name} | {len(y)} | {len(g)} | {100*len(y)/len(g):.0f}% | {sum(map(T,y)):,.1f} | {sum(map(T,g)):,.1f} |")
p('')
p('Per capture, points agreed (position / limiter / move / saving):\n')
p('| capture | position | limiter | move | saving |')
p('|---|---|---|---|---|')
for c in CAPS:
    rs = [r for r in R if r['capture'] == c]; cells = []
    for col in ['position_agree', 'limiter_agree', 'move_agree', 'saving_agree']:
        g = [r for r in rs if r[col] in ('yes', 'no')]; cells.append(f"{sum(r[col]=='yes' for r in g)}/{len(g)}")
    p(f"| {c} | " + ' | '.join(cells) + ' |')

p('\n## Disagreements by primary cause\n')
by = OrderedDict()
for r in sorted([r for r in R if r['overall'] == 'disagree'], key=lambda r: -T(r)):
    by.setdefault(r['cause'], []).append(r)
tot = sum(T(r) for r in R if r['overall'] == 'disagree')
p('| cause | kernels | GPU time (us) | % of disagreeing time | % of all graded time |')
p('|---|---|---|---|---|')
allt = sum(map(T, R))
for c, rs in sorted(by.items(), key=lambda kv: -sum(map(T, kv[1]))):
    s = sum(map(T, rs)); p(f"| {c} | {len(rs)} | {s:,.1f} | {100*s/tot:.1f}% | {100*s/allt:.1f}% |")
p(f"| **all** | {sum(len(v) for v in by.values())} | {tot:,.1f} | 100% | {100*tot/allt:.1f}% |")
p('')
for c, rs in sorted(by.items(), key=lambda kv: -sum(map(T, kv[1]))):
    p(f"**{c}**")
    for r in rs: p(f"- {r['capture']}: `{SHORT(r['kernel'])}` {T(r):,.2f} us ({r['share']})")
    p('')

p('## Rule-4 borderline allowances used\n')
for r in R:
    if r['borderline_rule'].startswith('rule 4'):
        p(f"- {r['capture']}: `{SHORT(r['kernel'])}` {T(r):,.2f} us: expert {r['expert_class']} vs tool {r['tool_class']} -> {r['overall']}")

# what-if: close calls ruled the other way (flip the overall verdict of the listed rows)
FLIPS = [
    ('roberta float16 casts: accept "keep weights fp16 / cast once" as equivalent', 'roberta_fp16_train', 'void native::vectorized_elementwise_kernel<8, native::float16_copy'),
    ('r3d transposes: reject torch.channels_last (2-D spelling) for a 3-D model', 'r3d_infer', 'void cudnn::nchwToNhwcKernel'),
    ('r3d transposes (nhwcToNchw): same', 'r3d_infer', 'void cudnn::nhwcToNchwKernel'),
    ('k-means GEMM: reject torch TF32 switches in a CuPy program', 'cupy_kmeans', 'sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8'),
    ('k-means multiply: reject the level-1/dot-framed cupy.fuse move', 'cupy_kmeans', 'cupy_multiply__float_float32_float32'),
    ('bart cat: reject "producers write into a preallocated output" as the static cache', 'bart_generate', 'void at::<unnamed>::CatArrayBatchedCopy'),
    ('gnn reduce: count the expert\'s passing torch.compile as a named alternative', 'gnn_train', 'void at::reduce_kernel<128, 4'),
    ('bart 64x16 GEMM: count "more sequences per call" as a named alternative', 'bart_generate', 'nvjet_sm90_hsh_64x16_64x16'),
    ('gnn 64x64 GEMM: extend the rule-4 allowance named for the 256x64 GEMM', 'gnn_train', 'sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8'),
    ('r3d invstd: reject the "norm below the bandwidth roof" premise', 'r3d_infer', 'void at::vectorized_elementwise_kernel<4, at::<unnamed>::batch_norm_calc_invstd'),
]
p('\n## Close calls ruled the other way (one at a time)\n')
a0, n0, ta0, tt0 = tally(R)
p(f"Base: {a0}/{n0} kernels ({100*a0/n0:.1f}%), {ta0:,.1f}/{tt0:,.1f} us ({100*ta0/tt0:.1f}%).\n")
p('| close call ruled the other way | capture | kernel | now | kernels | GPU time | capture then |')
p('|---|---|---|---|---|---|---|')
for name, cap, pre in FLIPS:
    hit = [r for r in R if r['capture'] == cap and r['kernel'].startswith(pre)]
    assert len(hit) == 1, pre
    h = hit[0]; d = -1 if h['overall'] == 'agree' else 1
    a = a0 + d; ta = ta0 + d * T(h)
    cr = [r for r in R if r['capture'] == cap]; ca, cn, cta, ctt = tally(cr)
    p(f"| {name} | {cap} | `{SHORT(h['kernel'])[:45]}` | {h['overall']} | {a}/{n0} ({100*a/n0:.1f}%) | {ta:,.1f} ({100*ta/tt0:.1f}%) | {ca+d}/{cn}, {100*(cta+d*T(h))/ctt:.1f}% |")
# the two R3D transposes together
pair = [r for r in R if r['capture'] == 'r3d_infer' and ('nchwToNhwc' in r['kernel'] or 'nhwcToNchw' in r['kernel'])]
a = a0 - len(pair); ta = ta0 - sum(map(T, pair))
p(f"\nBoth R3D transposes ruled disagree together: {a}/{n0} ({100*a/n0:.1f}%), {ta:,.1f} us ({100*ta/tt0:.1f}%).")
# rule 4 off entirely
r4 = [r for r in R if r['borderline_rule'].startswith('rule 4') and r['overall'] == 'agree']
a = a0 - len(r4); ta = ta0 - sum(map(T, r4))
p(f"\nWithout rule 4 (no borderline allowance): {a}/{n0} ({100*a/n0:.1f}%), {ta:,.1f} us ({100*ta/tt0:.1f}%); it decides {len(r4)} agreeing kernels.")
txt = '\n'.join(out) + '\n'
open(os.path.join(HERE, 'figures.md'), 'w').write(txt)
print(txt)
