from parse import *
import glob, os, collections, json
STALLS=['barrier','branch_resolving','dispatch_stall','drain','gmma','imc_miss','lg_throttle','long_scoreboard','math_pipe_throttle','membar','mio_throttle','misc','no_instruction','not_selected','selected','short_scoreboard','sleeping','tex_throttle','wait']
def g(r,idx,k):
    v=r[idx[k]] if k in idx else None
    return num(v) if v is not None else None
def launch_rows(path):
    h,u,d=load(path); idx={k:i for i,k in enumerate(h)}
    out=[]
    for r in d:
        G=lambda k: g(r,idx,k) or 0.0
        L={}
        L['name']=r[idx['Kernel Name']]; L['id']=r[idx['ID']]
        L['grid']=r[idx['Grid Size']]; L['block']=r[idx['Block Size']]
        L['t']=G('gpu__time_duration.sum')*1e-9
        L['clk']=G('sm__cycles_elapsed.avg.per_second')
        L['dclk']=G('dram__cycles_elapsed.avg.per_second')
        L['f32']=G('smsp__sass_thread_inst_executed_op_fadd_pred_on.sum')+G('smsp__sass_thread_inst_executed_op_fmul_pred_on.sum')+2*G('smsp__sass_thread_inst_executed_op_ffma_pred_on.sum')
        L['f64']=G('smsp__sass_thread_inst_executed_op_dadd_pred_on.sum')+G('smsp__sass_thread_inst_executed_op_dmul_pred_on.sum')+2*G('smsp__sass_thread_inst_executed_op_dfma_pred_on.sum')
        L['f16']=2*G('smsp__sass_thread_inst_executed_op_hadd_pred_on.sum')+2*G('smsp__sass_thread_inst_executed_op_hmul_pred_on.sum')+4*G('smsp__sass_thread_inst_executed_op_hfma_pred_on.sum')
        for tk in ['fp16','bf16_dst_fp32','tf32_dst_fp32','fp64','fp8','int8']:
            L['tc_'+tk]=G('sm__ops_path_tensor_src_%s.sum'%tk)
        L['tc_peak_fp16_pc']=G('sm__ops_path_tensor_src_fp16.sum.peak_sustained')
        L['dr']=G('dram__bytes_read.sum'); L['dw']=G('dram__bytes_write.sum')
        L['l2b']=G('lts__t_bytes.sum'); L['l1b']=G('l1tex__t_bytes.sum')
        for k,m in [('dram%','dram__throughput.avg.pct_of_peak_sustained_elapsed'),('l2%','lts__throughput.avg.pct_of_peak_sustained_elapsed'),('l1%','l1tex__throughput.avg.pct_of_peak_sustained_elapsed'),('sm%','sm__throughput.avg.pct_of_peak_sustained_elapsed'),('mem%','gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed'),('issue%','sm__issue_active.avg.pct_of_peak_sustained_elapsed'),('inst%','sm__inst_executed.sum.pct_of_peak_sustained_elapsed'),
            ('tens%','sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed'),('hmma%','sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed'),('fma%','sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed'),('alu%','sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed'),('fp64%','sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed'),('shp%','sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed'),
            ('xu%','sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed'),('lsu%','sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed'),('adu%','sm__inst_executed_pipe_adu.avg.pct_of_peak_sustained_elapsed'),('fp16p%','sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_elapsed'),('gmma%','sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active'),
            ('occ_th','sm__maximum_warps_per_active_cycle_pct'),('occ','sm__warps_active.avg.pct_of_peak_sustained_active'),('waves','launch__waves_per_multiprocessor'),('regs','launch__registers_per_thread'),('smem','launch__shared_mem_per_block'),('l2hit','lts__t_sector_hit_rate.pct'),('ldsec','smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio'),('stsec','smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio'),('smact','sm__cycles_active.avg'),('smel','sm__cycles_elapsed.avg'),('inst','smsp__inst_executed.sum')]:
            L[k]=G(m)
        st={s:G('smsp__average_warps_issue_stalled_%s_per_issue_active.ratio'%s) for s in STALLS}
        L['stalls']=sorted(st.items(),key=lambda x:-x[1])[:4]
        out.append(L)
    return out
def fmt(L):
    t=L['t']; c=L['clk']
    tc=sum(L[k] for k in L if k.startswith('tc_') and k!='tc_peak_fp16_pc')
    db=L['dr']+L['dw']
    s=f"  id{L['id']} g{L['grid']} b{L['block']} t={t*1e6:.2f}us clk={c/1e9:.3f}GHz dram={db/1e6:.2f}MB ({db/t/1e12:.2f}TB/s r{L['dr']/1e6:.1f} w{L['dw']/1e6:.1f}) l2b={L['l2b']/1e6:.1f}MB ({L['l2b']/t/1e12:.2f}TB/s) l1b={L['l1b']/1e6:.1f}MB"
    s+=f"\n    f32={L['f32']/1e9:.3f}G ({L['f32']/t/1e12:.2f}TF) f16={L['f16']/1e9:.3f}G f64={L['f64']/1e9:.3f}G tc={tc/1e9:.2f}G ({tc/t/1e12:.1f}TF; dense roof@clk {4096*132*c/1e12:.0f}; ncu pk/cyc/sm={L['tc_peak_fp16_pc']/132 if L['tc_peak_fp16_pc'] else 0:.0f})"
    s+="\n    "+" ".join(f"{k}={L[k]:.1f}" for k in ['dram%','l2%','l1%','sm%','issue%','tens%','hmma%','gmma%','fma%','alu%','fp64%','fp16p%','xu%','lsu%','adu%','shp%','occ_th','occ','waves','regs','smem','l2hit','ldsec','stsec'])
    s+=f"\n    smact/el={L['smact']/max(L['smel'],1):.2f} stalls="+",".join(f"{a}:{b:.1f}" for a,b in L['stalls'])
    return s
if __name__=='__main__':
    import sys
    for f in sys.argv[1:]:
        rows=launch_rows(f)
        tot=sum(r['t'] for r in rows)
        by=collections.OrderedDict()
        for r in rows: by.setdefault(r['name'],[]).append(r)
        print('#####',os.path.basename(f),'total us',tot*1e6, 'launches',len(rows))
        for n,rs in sorted(by.items(),key=lambda x:-sum(r['t'] for r in x[1])):
            T=sum(r['t'] for r in rs)
            print(f"== {T*1e6:.2f}us {100*T/tot:.2f}% n={len(rs)} :: {n[:300]}")
            for r in rs: print(fmt(r))
