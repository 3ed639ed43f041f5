import sys; sys.path.insert(0,'.')
from summ import *
from rows import V
hdr="capture\tkernel\tlaunches\tgpu_time_us\tshare\torigin\tposition\tlimiter\tlimiter_pct\tbest_move\test_saving_us\treason"
lines=[hdr]; counts={}
for c in CAPS:
    h,u,R=load(c)
    tot=sum(num(r['gpu__time_duration.sum']) for r in R)
    names={}
    for r in R:
        a=names.setdefault(r['Kernel Name'],[0,0.0]); a[0]+=1; a[1]+=num(r['gpu__time_duration.sum'])
    for n,(k,t) in sorted(names.items(),key=lambda x:-x[1][1]):
        if t/tot<0.005: continue
        m=[v for v in V if v[0]==c and v[1] in n]
        if len(m)!=1:
            print('MATCH PROBLEM',c,len(m),n[:120],file=sys.stderr); 
            if not m: continue
        v=m[0]
        f=[c,n,str(k),'%.3f'%(t/1e3),'%.4f'%(t/tot),v[2],v[3],v[4],str(v[5]),v[6],str(v[7]),v[8]]
        assert all('\t' not in x and '\n' not in x for x in f)
        lines.append('\t'.join(f)); counts[c]=counts.get(c,0)+1
open('verdicts.tsv','w').write('\n'.join(lines)+'\n')
print(counts)
