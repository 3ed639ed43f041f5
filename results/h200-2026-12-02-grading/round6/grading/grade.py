#!/usr/bin/env python3
"""Compute every figure in SUMMARY.md from grades.tsv (prints markdown)."""
import csv
from collections import defaultdict, OrderedDict
R = list(csv.DictReader(open('/work/grading6/grading/grades.tsv'), delimiter='\t'))
caps = list(OrderedDict.fromkeys(r['capture'] for r in R))
t = lambda r: float(r['gpu_time_us'])
ok = lambda v: v in ('yes', 'borderline')

print('## Headline (kernels and GPU time agreed / graded)\n')
print('| capture | kernels agreed / graded | % | GPU time agreed / graded (us) | % |')
print('|---|---|---|---|---|')
def line(name, rows):
    ka = sum(r['overall'] == 'agree' for r in rows); kg = len(rows)
    ta = sum(t(r) for r in rows if r['overall'] == 'agree'); tg = sum(t(r) for r in rows)
    print(f'| {name} | {ka} / {kg} | {100*ka/kg:.1f}% | {ta:.1f} / {tg:.1f} | {100*ta/tg:.1f}% |')
for c in caps: line(c, [r for r in R if r['capture'] == c])
line('**overall**', R)
# unweighted mean of per-capture time %
pc = [sum(t(r) for r in R if r['capture'] == c and r['overall'] == 'agree') / sum(t(r) for r in R if r['capture'] == c) for c in caps]
print(f'\nMean of the six per-capture GPU-time percentages: {100*sum(pc)/len(pc):.1f}%.')
wo = [r for r in R if r['capture'] != 'deeplab_infer']
print(f"Overall without deeplab_infer (whose one conv is 1770 us of {sum(t(r) for r in R):.0f}): "
      f"{sum(r['overall']=='agree' for r in wo)}/{len(wo)} kernels, "
      f"{100*sum(t(r) for r in wo if r['overall']=='agree')/sum(t(r) for r in wo):.1f}% of GPU time.\n")

print('## Counts by point\n')
print('| point | agree (incl. borderline) | of which borderline | disagree | n/a | GPU time agreed / graded (us) |')
print('|---|---|---|---|---|---|')
for col, name in [('position_agree', 'position class'), ('limiter_agree', 'limiter'), ('move_agree', 'best move'), ('saving_agree', 'saving (rule 6)')]:
    a = [r for r in R if ok(r[col])]; b = [r for r in R if r[col] == 'borderline']
    d = [r for r in R if r[col] == 'no']; n = [r for r in R if r[col] == 'n/a']
    g = a + d
    print(f'| {name} | {len(a)} | {len(b)} | {len(d)} | {len(n)} | {sum(map(t,a)):.1f} / {sum(map(t,g)):.1f} ({100*sum(map(t,a))/sum(map(t,g)):.1f}%) |')

print('\n## Disagreements by cause (one primary cause per kernel)\n')
by = defaultdict(list)
for r in R:
    if r['overall'] == 'disagree': by[r['cause']].append(r)
tot = sum(t(r) for r in R if r['overall'] == 'disagree')
print('| cause | kernels | GPU time (us) | % of disagreeing time | % of all graded time |')
print('|---|---|---|---|---|')
allt = sum(map(t, R))
for c, rows in sorted(by.items(), key=lambda kv: -sum(map(t, kv[1]))):
    s = sum(map(t, rows))
    print(f'| {c} | {len(rows)} | {s:.1f} | {100*s/tot:.1f}% | {100*s/allt:.1f}% |')
print(f'| total | {sum(len(v) for v in by.values())} | {tot:.1f} | 100% | {100*tot/allt:.1f}% |')
print()
for c, rows in sorted(by.items(), key=lambda kv: -sum(map(t, kv[1]))):
    print(f'- **{c}**: ' + '; '.join(f"{r['capture']} `{r['kernel'][:60]}` {t(r):.1f} us" for r in sorted(rows, key=lambda r: -t(r))))

print('\n## Borderline calls (rule 4)\n')
for r in R:
    if r['borderline_rule']:
        print(f"- {r['capture']} `{r['kernel'][:60]}` ({t(r):.1f} us): position {r['position_agree']}, limiter {r['limiter_agree']} -> {r['overall']}")
