import collections, os, sys
from summ import launch_rows
CAP='../packet/captures/%s.full.csv'
def stats(cap):
    rows=launch_rows(CAP%cap); tot=sum(r['t'] for r in rows)
    by=collections.OrderedDict()
    for r in rows: by.setdefault(r['name'],[]).append(r)
    return {n:(len(rs),sum(r['t'] for r in rs)*1e6,sum(r['t'] for r in rs)/tot) for n,rs in by.items()},tot*1e6
V=[]  # (capture, kernel-prefix, origin, position, limiter, pct, move, saving, reason)
exec(open('verdicts_data.py').read())
out=['\t'.join(['capture','kernel','launches','gpu_time_us','share','origin','position','limiter','limiter_pct','best_move','est_saving_us','reason'])]
caps=collections.OrderedDict()
for v in V: caps.setdefault(v[0],[]).append(v)
for cap,vs in caps.items():
    st,tot=stats(cap)
    used=set()
    for v in vs:
        m=[n for n in st if n.startswith(v[1])]
        assert len(m)==1,(cap,v[1],m)
        n=m[0]; used.add(n)
        l,t,s=st[n]
        out.append('\t'.join([cap,n,str(l),f'{t:.2f}',f'{100*s:.2f}%',v[2],v[3],v[4],f'{v[5]:.0f}',v[6],f'{v[7]:.1f}',v[8]]))
    miss=[n for n in st if st[n][2]>=0.005 and n not in used]
    if miss: print('MISSING',cap,[x[:60] for x in miss])
open('verdicts.tsv','w').write('\n'.join(out)+'\n')
print(len(out)-1,'rows')
