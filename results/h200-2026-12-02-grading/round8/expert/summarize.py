import csv, sys, json, re, collections
CAPS=['opt_train','resnext_train','fno_train','cupy_image','vit_compiled_infer']
BASE='/work/grading8/packet/captures/'
# roofs (measured, at 1980 MHz SM unless memory)
R=dict(dram=4.702e12, l2=9.978e12, l1=3.337e13, fp32=6.602e13, fp64=3.339e13, fp16=1.302e14,
       bf16t=8.506e14, fp16t=8.026e14, tf32t=3.834e14*1980/1635, fp64t=5.725e13*1980/1770, fp8t=1.307e15)
def num(v):
    v=v.replace(',','').strip()
    try: return float(v)
    except: return None
def load(cap):
    lines=open(BASE+cap+'.full.csv').read().splitlines()
    i=[k for k,l in enumerate(lines) if l.startswith('"ID"')][0]
    r=list(csv.reader(lines[i:]))
    h=r[0]; rows=[dict(zip(h,x)) for x in r[2:] if len(x)==len(h)]
    return h,rows
def g(d,k,default=0.0):
    v=d.get(k); 
    if v is None: return default
    x=num(v); return default if x is None else x
STALLS=None
def launch(d):
    o={}
    o['name']=d['Kernel Name']; o['dur']=g(d,'gpu__time_duration.sum')*1e-9
    o['clk']=g(d,'sm__cycles_elapsed.avg.per_second'); f=o['clk']/1.98e9 if o['clk'] else 1
    o['f']=f
    o['grid']=d.get('launch__grid_size'); o['block']=d.get('launch__block_size')
    o['regs']=d.get('launch__registers_per_thread'); o['smem']=g(d,'launch__shared_mem_per_block')
    o['waves']=g(d,'launch__waves_per_multiprocessor')
    o['occ_th']=g(d,'sm__maximum_warps_per_active_cycle_pct'); o['occ']=g(d,'sm__warps_active.avg.pct_of_peak_sustained_active')
    o['dram']=g(d,'dram__bytes.sum'); o['dram_rd']=g(d,'dram__bytes_read.sum'); o['dram_wr']=g(d,'dram__bytes_write.sum')
    o['l2rd']=32*g(d,'lts__t_sectors_srcunit_tex_op_read.sum'); o['l2wr']=32*g(d,'lts__t_sectors_srcunit_tex_op_write.sum'); o['l2atom']=32*(g(d,'lts__t_sectors_srcunit_tex_op_atom.sum')+g(d,'lts__t_sectors_srcunit_tex_op_red.sum'))
    o['l2']=g(d,'lts__t_bytes.sum'); o['l1']=g(d,'l1tex__t_bytes.sum')
    o['l2x']=g(d,'derived__lts__lts2xbar_bytes.sum') if 'derived__lts__lts2xbar_bytes.sum' in d else 32*g(d,'lts__lts2xbar_cycles_active.sum')
    P='smsp__sass_thread_inst_executed_op_'
    o['fp32']=g(d,P+'fadd_pred_on.sum')+g(d,P+'fmul_pred_on.sum')+2*g(d,P+'ffma_pred_on.sum')
    o['ffma_frac']=(2*g(d,P+'ffma_pred_on.sum')/o['fp32']) if o['fp32'] else 0
    o['fp64']=g(d,P+'dadd_pred_on.sum')+g(d,P+'dmul_pred_on.sum')+2*g(d,P+'dfma_pred_on.sum')
    o['fp16']=2*g(d,P+'hadd_pred_on.sum')+2*g(d,P+'hmul_pred_on.sum')+4*g(d,P+'hfma_pred_on.sum')
    T='sm__ops_path_tensor_src_'
    o['t_bf16']=g(d,T+'bf16_dst_fp32.sum'); o['t_fp16']=g(d,T+'fp16.sum'); o['t_tf32']=g(d,T+'tf32_dst_fp32.sum'); o['t_fp64']=g(d,T+'fp64.sum'); o['t_int8']=g(d,T+'int8.sum'); o['t_fp8']=g(d,T+'fp8.sum')
    pct=lambda k: g(d,k)
    o['sm_pct']=pct('sm__throughput.avg.pct_of_peak_sustained_elapsed'); o['dram_pct']=pct('dram__throughput.avg.pct_of_peak_sustained_elapsed')
    o['l2_pct']=pct('lts__throughput.avg.pct_of_peak_sustained_elapsed'); o['l1_pct']=pct('l1tex__throughput.avg.pct_of_peak_sustained_elapsed')
    o['issue']=pct('smsp__issue_active.avg.pct_of_peak_sustained_active')
    for p in ['fma','alu','lsu','xu','fp64','tensor_op_gmma','tensor_op_hmma','uniform','adu','cbu']:
        o['p_'+p]=pct('sm__inst_executed_pipe_%s.avg.pct_of_peak_sustained_active'%p)
    o['p_tensor']=pct('sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active')
    o['p_shared']=pct('sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active')
    o['l2hit']=pct('lts__t_sector_hit_rate.pct')
    o['bank']=g(d,'l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum'); o['shwf']=g(d,'l1tex__data_pipe_lsu_wavefronts_mem_shared.sum')
    o['ldsec']=pct('smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio'); o['stsec']=pct('smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio')
    st={}
    for k in d:
        m=re.match(r'smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio',k)
        if m: st[m.group(1)]=g(d,k)
    o['stalls']=sorted(st.items(),key=lambda x:-x[1])[:4]
    o['inst']=g(d,'smsp__inst_executed.sum')
    o['atom_l2']=pct('lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed')
    # achieved rates vs roofs
    dur=o['dur'] or 1e-12
    o['r_dram']=o['dram']/dur/R['dram']*100
    o['r_l2']=o['l2']/dur/R['l2']*100
    o['r_l1']=o['l1']/dur/(R['l1']*f)*100
    o['r_fp32']=o['fp32']/dur/(R['fp32']*f)*100
    o['r_fp64']=o['fp64']/dur/(R['fp64']*f)*100
    o['r_fp16']=o['fp16']/dur/(R['fp16']*f)*100
    tens=o['t_bf16']/(R['bf16t']*f)+o['t_fp16']/(R['fp16t']*f)+o['t_tf32']/(R['tf32t']*f)+o['t_fp64']/(R['fp64t']*f)+o['t_int8']/(R['fp8t']*f)
    o['r_tensor']=tens/dur*100
    o['flops']=o['fp32']+o['fp64']+o['fp16']+o['t_bf16']+o['t_fp16']+o['t_tf32']+o['t_fp64']+o['t_int8']
    o['AI_dram']=o['flops']/o['dram'] if o['dram'] else float('inf')
    return o
if __name__=='__main__':
    out={}
    for cap in CAPS:
        h,rows=load(cap)
        L=[launch(d) for d in rows]
        out[cap]=L
        tot=sum(x['dur'] for x in L)
        print('=== %s launches=%d total=%.1f us'%(cap,len(L),tot*1e6))
        for j,x in enumerate(L):
            print('#%d %.1fus clk=%.0fMHz grid=%s blk=%s regs=%s smem=%d waves=%.2f occ=%.0f/%.0f | dram %.1fMB (%.0f%%) l2 %.1fMB (%.0f%%, hit %.0f; rd %.1f wr %.1f at %.1f) l1 %.1fMB (%.0f%%) | fp32 %.2fG(%.0f%%) fp16 %.2fG tensor bf16 %.2fG fp16 %.2fG tf32 %.2fG (%.0f%%) | SOL sm %.0f dram %.0f l2 %.0f l1 %.0f issue %.0f | pipes fma %.0f alu %.0f lsu %.0f xu %.0f fp64 %.0f tens %.0f shared %.0f | ld B/sec %.1f st %.1f bank %.0f/%.0f | stalls %s | %s'%(
              j,x['dur']*1e6,x['clk']/1e6,x['grid'],x['block'],x['regs'],x['smem'],x['waves'],x['occ_th'],x['occ'],
              x['dram']/1e6,x['r_dram'],x['l2']/1e6,x['r_l2'],x['l2hit'],x['l2rd']/1e6,x['l2wr']/1e6,x['l2atom']/1e6,x['l1']/1e6,x['r_l1'],x['fp32']/1e9,x['r_fp32'],x['fp16']/1e9,x['t_bf16']/1e9,x['t_fp16']/1e9,x['t_tf32']/1e9,x['r_tensor'],
              x['sm_pct'],x['dram_pct'],x['l2_pct'],x['l1_pct'],x['issue'],x['p_fma'],x['p_alu'],x['p_lsu'],x['p_xu'],x['p_fp64'],x['p_tensor'],x['p_shared'],x['ldsec'],x['stsec'],x['bank'],x['shwf'],
              ' '.join('%s=%.1f'%s for s in x['stalls']), x['name'][:200]))
