"""Reads grades.tsv (next to this file) and prints the round-12 figures.
Standard library only.  Usage: python3 grade.py"""
import csv, os
from collections import OrderedDict, defaultdict

csv.field_size_limit(10**9)
HERE = os.path.dirname(os.path.abspath(__file__))
G = list(csv.DictReader(open(os.path.join(HERE, 'grades.tsv')), delimiter='\t'))
caps = list(OrderedDict.fromkeys(g['capture'] for g in G))
us = lambda g: float(g['gpu_time_us'])
yes = lambda g, k: g[k] == 'yes'

def block(rows, agree_fn):
    n = len(rows); k = sum(1 for g in rows if agree_fn(g))
    t = sum(us(g) for g in rows); ta = sum(us(g) for g in rows if agree_fn(g))
    return n, k, t, ta

def table(title, agree_fn):
    print(f'### {title}\n')
    print('| capture | kernels agreed | GPU time agreed (us) | GPU time agreed (%) |')
    print('|---|---|---|---|')
    for c in caps + ['overall']:
        rows = G if c == 'overall' else [g for g in G if g['capture'] == c]
        n, k, t, ta = block(rows, agree_fn)
        name = f'**{c}**' if c == 'overall' else c
        print(f'| {name} | {k} / {n} | {ta:.1f} / {t:.1f} | {100*ta/t:.1f}% |')
    print()

ruled = lambda g: yes(g, 'kernel_agree')
table('Kernel agreement (as ruled)', ruled)

print('### Position / limiter / move agreement (kernel counts, GPU time)\n')
print('| capture | position | limiter | move | rule 6 applies | rule-6 savings within 2x |')
print('|---|---|---|---|---|---|')
for c in caps + ['overall']:
    rows = G if c == 'overall' else [g for g in G if g['capture'] == c]
    n = len(rows); T = sum(us(g) for g in rows)
    def cnt(k):
        a = [g for g in rows if yes(g, k)]
        return f'{len(a)} / {n} ({100*sum(us(g) for g in a)/T:.1f}% of time)'
    r6 = [g for g in rows if yes(g, 'saving_rule6_applies')]
    r6ok = [g for g in r6 if yes(g, 'saving_agree')]
    name = f'**{c}**' if c == 'overall' else c
    print(f'| {name} | {cnt("position_agree")} | {cnt("limiter_agree")} | {cnt("move_agree")} | {len(r6)} | {len(r6ok)} / {len(r6)} |')
print()

print('### GPU time by class of disagreement\n')
tot = sum(us(g) for g in G)
by = defaultdict(list)
for g in G:
    if not ruled(g):
        by[g['class_of_disagreement']].append(g)
print('| class | kernels | GPU time (us) | % of all graded time | kernels (capture: kernel, us) |')
print('|---|---|---|---|---|')
for cls, rows in sorted(by.items(), key=lambda kv: -sum(us(g) for g in kv[1])):
    t = sum(us(g) for g in rows)
    ks = '; '.join(f"{g['capture']}: {g['kernel'][:60]} ({us(g):.1f})" for g in sorted(rows, key=lambda g: -us(g)))
    print(f'| {cls} | {len(rows)} | {t:.1f} | {100*t/tot:.1f}% | {ks} |')
n_dis = sum(len(v) for v in by.values()); t_dis = sum(us(g) for v in by.values() for g in v)
print(f'| **all disagreements** | {n_dis} | {t_dis:.1f} | {100*t_dis/tot:.1f}% | |')
print()

print('### Close calls\n')
cc = [g for g in G if yes(g, 'close_call')]
print('| capture | kernel | us | ruled | element in doubt |')
print('|---|---|---|---|---|')
for g in cc:
    if g['position_agree'] == 'no' or g['limiter_agree'] == 'no':
        elem = 'position/limiter'
    elif g['move_agree'] == 'no':
        elem = 'move (equivalent user-level change?)'
    else:
        elem = 'move (premise / equivalence of the move ruled agreeing)'
    print(f"| {g['capture']} | {g['kernel'][:70]} | {us(g):.1f} | {'for the tool' if ruled(g) else 'against the tool'} | {elem} |")
print()
print(f'{len(cc)} close calls: {sum(1 for g in cc if ruled(g))} ruled for the tool ({sum(us(g) for g in cc if ruled(g)):.1f} us), '
      f'{sum(1 for g in cc if not ruled(g))} ruled against ({sum(us(g) for g in cc if not ruled(g)):.1f} us).')
print('Grader\'s check (see each note): in every close call the element in doubt is the only one that decides the kernel, '
      'so ruling it the other way flips the kernel verdict (rule 6 included where it would then apply).\n')

table('Bound 1: every close call ruled AGAINST the tool', lambda g: ruled(g) and not yes(g, 'close_call'))
table('Bound 2: every close call ruled FOR the tool', lambda g: ruled(g) or yes(g, 'close_call'))
