from load import *
import sys
STALLS=['barrier','branch_resolving','dispatch_stall','drain','imc_miss','lg_throttle','long_scoreboard','math_pipe_throttle','membar','mio_throttle','misc','no_instruction','not_selected','short_scoreboard','sleeping','tex_throttle','wait','gmma','selected']
PIPES=['alu','fma','fmaheavy','fmalite','fp64','lsu','xu','uniform','adu','cbu','tensor_op_hmma','tensor_op_gmma','tensor_op_dmma','tex','tma']
def g(r,k):
    v=r.get(k); 
    return num(v) if v is not None else None
def info(r):
    d={}
    d['t']=g(r,'gpu__time_duration.sum')
    d['clk']=g(r,'sm__cycles_elapsed.avg.per_second')/1e9
    d['dr']=g(r,'dram__bytes_read.sum'); d['dw']=g(r,'dram__bytes_write.sum')
    d['db']=d['dr']+d['dw']
    d['dramBW']=d['db']/d['t'] # GB/s
    d['dram%']=g(r,'dram__throughput.avg.pct_of_peak_sustained_elapsed')
    d['l2B']=g(r,'lts__t_bytes.sum'); d['l2x']=32*g(r,'lts__lts2xbar_cycles_active.sum')
    d['l2%']=g(r,'lts__throughput.avg.pct_of_peak_sustained_elapsed')
    d['l1B']=g(r,'l1tex__t_bytes.sum'); d['l1%']=g(r,'l1tex__throughput.avg.pct_of_peak_sustained_elapsed')
    P='smsp__sass_thread_inst_executed_op_'
    f=lambda op: g(r,P+op+'_pred_on.sum') or 0
    d['f32']=f('fadd')+f('fmul')+2*f('ffma')
    d['f64']=f('dadd')+f('dmul')+2*f('dfma')
    d['f16']=2*f('hadd')+2*f('hmul')+4*f('hfma')
    tn=0
    for s in ['fp16','bf16_dst_fp32','tf32_dst_fp32','fp8','int8','fp64']:
        v=g(r,'sm__ops_path_tensor_src_%s.sum'%s)
        if v: tn+=v; d['tsrc']=s
    d['tens']=tn
    d['sm%']=g(r,'sm__throughput.avg.pct_of_peak_sustained_elapsed')
    d['iss%']=g(r,'sm__issue_active.avg.pct_of_peak_sustained_elapsed') if 'sm__issue_active.avg.pct_of_peak_sustained_elapsed' in r else None
    d['mem%']=g(r,'gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed')
    d['occT']=g(r,'sm__maximum_warps_per_active_cycle_pct'); d['occA']=g(r,'sm__warps_active.avg.pct_of_peak_sustained_active')
    d['act']=g(r,'sm__cycles_active.avg')/g(r,'sm__cycles_elapsed.avg')*100
    d['regs']=g(r,'launch__registers_per_thread'); d['smem']=g(r,'launch__shared_mem_per_block')
    d['waves']=g(r,'launch__waves_per_multiprocessor')
    d['grid']=g(r,'launch__grid_size'); d['blk']=g(r,'launch__block_size')
    d['lims']={k:g(r,'launch__occupancy_limit_'+k) for k in ['registers','shared_mem','warps','blocks']}
    st={}
    for s in STALLS:
        v=g(r,'smsp__average_warps_issue_stalled_%s_per_issue_active.ratio'%s)
        if v: st[s]=v
    d['stalls']=sorted(st.items(),key=lambda x:-x[1])[:4]
    pp={}
    for p in PIPES:
        v=g(r,'sm__inst_executed_pipe_%s.avg.pct_of_peak_sustained_active'%p)
        if v: pp[p]=v
    for k in ['sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active','sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active','sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active','sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active','sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active']:
        if k in r and g(r,k): pp[k.split('__')[1].split('.')[0]]=g(r,k)
    d['pipes']=sorted(pp.items(),key=lambda x:-x[1])[:5]
    d['ldB']=g(r,'smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio'); d['stB']=g(r,'smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio')
    d['inst']=g(r,'smsp__inst_executed.sum')
    d['ipc']=g(r,'sm__inst_executed.avg.per_cycle_active') if 'sm__inst_executed.avg.per_cycle_active' in r else None
    d['l2hit']=g(r,'lts__t_sector_hit_rate.pct'); d['l1hit']=g(r,'l1tex__t_sector_hit_rate.pct')
    d['bconf']=(g(r,'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum') or 0)+(g(r,'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum') or 0)
    d['cyc']=g(r,'sm__cycles_elapsed.avg')
    return d
def fmt(d):
    s="t=%.1fus clk=%.2f grid=%d blk=%d waves=%.2f regs=%d smem=%d occT=%.0f occA=%.1f act=%.0f%%\n"%(d['t']/1e3,d['clk'],d['grid'],d['blk'],d['waves'],d['regs'],d['smem'],d['occT'],d['occA'],d['act'])
    s+="  DRAM R=%.2fMB W=%.2fMB %.0fGB/s (%.1f%% of 4702meas) dram%%=%.1f | L2 tB=%.1fMB x=%.1fMB l2%%=%.1f hit=%.0f | L1 tB=%.1fMB l1%%=%.1f hit=%.0f\n"%(d['dr']/1e6,d['dw']/1e6,d['dramBW'],d['dramBW']/4702*100,d['dram%'],d['l2B']/1e6,d['l2x']/1e6,d['l2%'],d['l2hit'] or -1,d['l1B']/1e6,d['l1%'],d['l1hit'] or -1)
    s+="  FLOP f32=%.3g f64=%.3g f16=%.3g tensor=%.3g(%s) | sm%%=%.1f issue%%=%s mem%%=%.1f ipc=%s inst=%.3g\n"%(d['f32'],d['f64'],d['f16'],d['tens'],d.get('tsrc',''),d['sm%'],d['iss%'],d['mem%'],d['ipc'],d['inst'])
    s+="  stalls=%s\n  pipes=%s lims=%s ldB/sec=%s stB/sec=%s bconf=%d\n"%(' '.join('%s:%.2f'%x for x in d['stalls']),' '.join('%s:%.1f'%x for x in d['pipes']),d['lims'],d['ldB'],d['stB'],d['bconf'])
    return s
if __name__=='__main__':
    c=sys.argv[1]
    h,u,R=load(c)
    tot=sum(num(r['gpu__time_duration.sum']) for r in R)
    print('TOTAL us',tot/1e3)
    for r in R:
        d=info(r)
        print('#%s [%.1f%%] %s'%(r['ID'],d['t']/tot*100,r['Kernel Name'][:150]))
        print(fmt(d))
