import json, collections
from summarize import load, launch, CAPS, R
agg={}
for cap in CAPS:
    h,rows=load(cap); L=[launch(d) for d in rows]
    tot=sum(x['dur'] for x in L)
    by=collections.OrderedDict()
    for x in L: by.setdefault(x['name'],[]).append(x)
    for n,xs in by.items():
        T=sum(x['dur'] for x in xs)
        w=lambda k: sum(x[k]*x['dur'] for x in xs)/T
        s=lambda k: sum(x[k] for x in xs)
        a=dict(capture=cap,kernel=n,launches=len(xs),us=T*1e6,share=100*T/tot,clk=w('clk')/1e6,
          dram=s('dram'),l2=s('l2'),l2rd=s('l2rd'),l2wr=s('l2wr'),l1=s('l1'),fp32=s('fp32'),fp16=s('fp16'),tbf16=s('t_bf16'),ttf32=s('t_tf32'),
          r_dram=w('r_dram'),r_l2=w('r_l2'),r_l1=w('r_l1'),r_fp32=w('r_fp32'),r_tensor=w('r_tensor'),
          sol_dram=w('dram_pct'),sol_l2=w('l2_pct'),sol_l1=w('l1_pct'),sol_sm=w('sm_pct'),issue=w('issue'),occ=w('occ'),
          p_alu=w('p_alu'),p_fma=w('p_fma'),p_xu=w('p_xu'),p_lsu=w('p_lsu'),p_tensor=w('p_tensor'),
          waves=[round(x['waves'],2) for x in xs], durs=[round(x['dur']*1e6,1) for x in xs])
        agg[(cap,n)]=a
    print('== %s total %.1f us, %d launches, %d kernels'%(cap,tot*1e6,len(L),len(by)))
    for (c,n),a in agg.items():
        if c!=cap: continue
        print('%5.1f%% %7.1fus n=%d clk=%.0f dram%%=%.0f(SOL %.0f) l2%%=%.0f(SOL %.0f) l1 SOL %.0f fp32 %.0f%% tensor %.0f%% issue %.0f occ %.0f | %s | %s'%(a['share'],a['us'],a['launches'],a['clk'],a['r_dram'],a['sol_dram'],a['r_l2'],a['sol_l2'],a['sol_l1'],a['r_fp32'],a['r_tensor'],a['issue'],a['occ'],a['durs'][:8],n[:90]))
json.dump({'%s|%s'%k:v for k,v in agg.items()},open('agg.json','w'),indent=0)
