from summ import *
import json
out=[]
for c in CAPS:
    h,u,R=load(c)
    tot=sum(num(r['gpu__time_duration.sum']) for r in R)
    names={}
    for r in R:
        d=info(r); n=r['Kernel Name']
        a=names.setdefault(n,{'n':0,'t':0,'ids':[], 'db':0,'f32':0,'f64':0,'tens':0,'l2B':0})
        a['n']+=1; a['t']+=d['t']; a['ids'].append(int(r['ID'])); a['db']+=d['db']; a['f32']+=d['f32']; a['f64']+=d['f64']; a['tens']+=d['tens']; a['l2B']+=d['l2B']
    for n,a in sorted(names.items(),key=lambda x:-x[1]['t']):
        sh=a['t']/tot
        print(c, a['n'], '%.3f'%(a['t']/1e3), '%.4f'%sh, a['ids'], 'IN' if sh>=0.005 else 'out', n[:90])
