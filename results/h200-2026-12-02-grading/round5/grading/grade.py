# regenerates the summary figures of SUMMARY.md from grades.tsv: python3 grade.py
import csv,collections
G=list(csv.DictReader(open('grades.tsv'),delimiter='\t'))
caps=['regnet_train','dlrm_train','unet_denoise_train','compiled_encoder_train','t5_train']
def fig(rows):
    n=len(rows); a=[r for r in rows if r['overall']=='agree']
    tt=sum(float(r['gpu_time_us']) for r in rows); ta=sum(float(r['gpu_time_us']) for r in a)
    return len(a),n,ta,tt
print('| capture | kernels agreed / graded | GPU time agreed / graded |\n|---|---|---|')
for c in caps+['all']:
    rows=[r for r in G if c=='all' or r['capture']==c]
    a,n,ta,tt=fig(rows)
    b='**' if c=='all' else ''
    print(f'| {b}{c}{b} | {b}{a} / {n} ({100*a/n:.1f}%){b} | {b}{ta:.1f} / {tt:.1f} us ({100*ta/tt:.1f}%){b} |')
per=[fig([r for r in G if r['capture']==c]) for c in caps]
print(f"\nunweighted mean of per-capture time figures: {sum(x[2]/x[3] for x in per)/5*100:.1f}%; of kernel figures: {sum(x[0]/x[1] for x in per)/5*100:.1f}%")
bl=[r for r in G if r['overall']=='agree' and 'borderline' in (r['position_agree'],r['limiter_agree'])]
print(f"agreements that use the borderline allowance: {len(bl)} ({', '.join(r['capture']+' '+r['kernel'][:40]+' '+r['gpu_time_us'] for r in bl)})")
a,n,ta,tt=fig(G); tb=sum(float(r['gpu_time_us']) for r in bl)
print(f"  counted as disagree: {a-len(bl)}/{n}, {ta-tb:.1f}/{tt:.1f} us ({100*(ta-tb)/tt:.1f}%)")
print('\nposition-class confusion (expert -> tool):')
cm=collections.Counter((r['expert_class'],r['tool_class']) for r in G)
for k,v in sorted(cm.items(),key=lambda x:-x[1]): print(f'  {k[0]} -> {k[1]}: {v}')
for f in ('position_agree','limiter_agree','move_agree'):
    c=collections.Counter(r[f] for r in G)
    print(f"{f}: agree {c['agree']}, borderline {c['borderline']}, disagree {c['disagree']}")
c=collections.Counter(r['saving_agree'] for r in G); print(f"saving_agree (>5% kernels with agreeing move): agree {c['agree']}, disagree {c['disagree']}, n/a {c['n/a']}")
only=collections.Counter()
for r in G:
    if r['overall']!='agree':
        fails=[k for k in ('position_agree','limiter_agree','move_agree','saving_agree') if r[k]=='disagree']
        only['+'.join(x.split('_')[0] for x in fails)]+=1
print('disagreements by failing points:',dict(only))
print('\ndisagreements by cause (count, us):')
cc=collections.defaultdict(list)
for r in G:
    if r['overall']!='agree': cc[r['cause']].append(r)
for k in sorted(cc,key=lambda k:-sum(float(r['gpu_time_us']) for r in cc[k])):
    print(f"  {k}: {len(cc[k])} kernels, {sum(float(r['gpu_time_us']) for r in cc[k]):.1f} us")
    for r in cc[k]: print(f"     {r['capture']} {r['kernel'][:60]} {r['gpu_time_us']}")
