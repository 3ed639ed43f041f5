"""Per-launch and per-group roofline figures from the raw ncu CSVs.
Usage: python3 analyze.py [capture ...]  -> prints tables, writes groups.json"""
import json, sys
from collections import OrderedDict
from load import load, g, CAPS

SMS = 132
# measured roofs (measured-roofs.txt); clock-scaled ones are per SM clock
DRAM_RD, DRAM_WR, DRAM_COPY, DRAM_TRIAD = 4.53e12, 4.702e12, 4.282e12, 4.401e12
L2_MEAS, L2_CLK = 9.978e12, 1.98e9
L1_MEAS = 3.337e13
BF16_TC_PER_CLK = 8.506e14 / (SMS * 1.98e9)   # measured, FLOP/clk/SM (bursts)
TF32_TC_PER_CLK = 3.834e14 / (SMS * 1.635e9)

def dram_roof(rd, wr):
    t = rd + wr
    if t <= 0: return DRAM_RD
    w = wr / t
    if w < 0.1: return DRAM_RD
    if w < 0.42: return DRAM_TRIAD
    if w < 0.9: return DRAM_COPY
    return DRAM_WR

def Z(x): return x or 0.0

def launch_metrics(r):
    m = OrderedDict()
    m['id'] = int(r['ID'])
    m['kernel'] = r['Kernel Name']
    m['block'] = r['Block Size']; m['grid'] = r['Grid Size']
    m['dur_ns'] = t = g(r, 'gpu__time_duration.sum')
    m['clk'] = clk = g(r, 'sm__cycles_elapsed.avg.per_second')
    ts = t * 1e-9
    cyc_el = g(r, 'sm__cycles_elapsed.avg'); cyc_act = g(r, 'sm__cycles_active.avg')
    m['sm_active_pct'] = 100 * cyc_act / cyc_el if cyc_el else 0
    rd = Z(g(r, 'dram__bytes_read.sum')); wr = Z(g(r, 'dram__bytes_write.sum'))
    m['dram_B'] = db = Z(g(r, 'dram__bytes.sum'))
    m['dram_GBs'] = db / ts / 1e9
    m['dram_roof_GBs'] = dram_roof(rd, wr) / 1e9
    m['dram_pct_meas'] = 100 * db / ts / dram_roof(rd, wr)
    m['dram_pct_ncu'] = Z(g(r, 'dram__throughput.avg.pct_of_peak_sustained_elapsed'))
    m['dram_wr_frac'] = wr / db if db else 0
    m['l2_B'] = l2 = Z(g(r, 'lts__t_bytes.sum'))
    m['l2_GBs'] = l2 / ts / 1e9
    m['l2_pct_meas'] = 100 * l2 / ts / (L2_MEAS * clk / L2_CLK)
    m['l2_pct_ncu'] = Z(g(r, 'lts__throughput.avg.pct_of_peak_sustained_elapsed'))
    m['l2_hit'] = Z(g(r, 'lts__t_sector_hit_rate.pct'))
    m['l1_B'] = l1 = Z(g(r, 'l1tex__t_bytes.sum'))
    m['l1_pct_meas'] = 100 * l1 / ts / (L1_MEAS * clk / 1.98e9)
    m['l1_pct_ncu'] = Z(g(r, 'l1tex__throughput.avg.pct_of_peak_sustained_elapsed'))
    m['shared_pct'] = Z(g(r, 'l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed'))
    m['ld_B_per_sector'] = Z(g(r, 'smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio'))
    m['st_B_per_sector'] = Z(g(r, 'smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio'))
    m['l2_excess_sectors'] = Z(g(r, 'derived__memory_l2_theoretical_sectors_global_excessive'))
    P = lambda op: Z(g(r, f'smsp__sass_thread_inst_executed_op_{op}_pred_on.sum'))
    m['fp32_flop'] = f32 = P('fadd') + P('fmul') + 2 * P('ffma')
    m['fp16_flop'] = f16 = 2 * P('hadd') + 2 * P('hmul') + 4 * P('hfma')
    m['fp64_flop'] = f64 = P('dadd') + P('dmul') + 2 * P('dfma')
    tc_bf16 = Z(g(r, 'sm__ops_path_tensor_src_bf16_dst_fp32.sum'))
    tc_fp16 = Z(g(r, 'sm__ops_path_tensor_src_fp16.sum'))
    tc_tf32 = Z(g(r, 'sm__ops_path_tensor_src_tf32_dst_fp32.sum'))
    tc_fp64 = Z(g(r, 'sm__ops_path_tensor_src_fp64.sum'))
    tc_g = Z(g(r, 'sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum')) + Z(g(r, 'sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum')) + Z(g(r, 'sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32_sparsity_off.sum'))
    m['tc_flop'] = tc = tc_bf16 + tc_fp16 + tc_tf32 + tc_fp64
    m['tc_kind'] = 'bf16' if tc_bf16 else 'fp16' if tc_fp16 else 'tf32' if tc_tf32 else 'fp64' if tc_fp64 else ''
    m['tc_wgmma'] = tc_g > 0
    # tensor roof at the launch's clock: dense per-clock (theoretical) and measured
    if tc:
        dense = {'bf16': 4096, 'fp16': 4096, 'tf32': 2048, 'fp64': 256}[m['tc_kind']]
        meas = {'bf16': BF16_TC_PER_CLK, 'fp16': 8.026e14 / (SMS * 1.98e9), 'tf32': TF32_TC_PER_CLK, 'fp64': 5.725e13 / (SMS * 1.77e9)}[m['tc_kind']]
        m['tc_TFs'] = tc / ts / 1e12
        m['tc_pct_dense'] = 100 * tc / ts / (dense * SMS * clk)
        m['tc_pct_meas'] = 100 * tc / ts / (meas * SMS * clk)
    else:
        m['tc_TFs'] = m['tc_pct_dense'] = m['tc_pct_meas'] = 0
    m['fp32_TFs'] = f32 / ts / 1e12
    m['fp32_pct'] = 100 * f32 / ts / (SMS * 256 * clk)
    m['fp16_pct'] = 100 * f16 / ts / (SMS * 512 * clk)
    m['fp64_pct'] = 100 * f64 / ts / (SMS * 128 * clk)
    pe = lambda p: Z(g(r, f'sm__inst_executed_pipe_{p}.avg.pct_of_peak_sustained_elapsed'))
    for p in ('fma', 'alu', 'lsu', 'xu', 'fp64', 'adu', 'cbu', 'uniform', 'tma'):
        m['pipe_' + p] = pe(p)
    m['pipe_fp16'] = pe('fma_type_fp16')
    m['pipe_tensor'] = Z(g(r, 'sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active')) * m['sm_active_pct'] / 100
    m['pipe_fma_cyc'] = Z(g(r, 'sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active')) * m['sm_active_pct'] / 100
    m['issue_pct'] = Z(g(r, 'sm__issue_active.avg.pct_of_peak_sustained_elapsed'))
    m['sm_thru'] = Z(g(r, 'sm__throughput.avg.pct_of_peak_sustained_elapsed'))
    m['mem_thru'] = Z(g(r, 'gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed'))
    m['occ_theo'] = Z(g(r, 'sm__maximum_warps_per_active_cycle_pct'))
    m['occ_ach'] = Z(g(r, 'sm__warps_active.avg.pct_of_peak_sustained_active'))
    m['waves'] = Z(g(r, 'launch__waves_per_multiprocessor'))
    m['grid_size'] = Z(g(r, 'launch__grid_size')); m['block_size'] = Z(g(r, 'launch__block_size'))
    m['regs'] = Z(g(r, 'launch__registers_per_thread'))
    m['smem'] = Z(g(r, 'launch__shared_mem_per_block'))
    m['ai_dram'] = (f32 + f16 + f64 + tc) / db if db else float('inf')
    # dominant stall reasons
    st = {}
    for k in r:
        if k.startswith('smsp__average_warps_issue_stalled_') and k.endswith('_per_issue_active.ratio'):
            name = k[len('smsp__average_warps_issue_stalled_'):-len('_per_issue_active.ratio')]
            if name in ('selected',): continue
            st[name] = Z(g(r, k))
    tot = sum(st.values()) or 1
    m['stalls'] = ', '.join(f'{k} {v:.1f}' for k, v in sorted(st.items(), key=lambda kv: -kv[1])[:3])
    m['stall_total'] = tot
    return m

def groups(cap):
    h, u, rows = load(cap)
    L = [launch_metrics(r) for r in rows]
    total = sum(x['dur_ns'] for x in L)
    G = OrderedDict()
    for x in L:
        G.setdefault(x['kernel'], []).append(x)
    out = []
    for k, xs in G.items():
        t = sum(x['dur_ns'] for x in xs)
        agg = OrderedDict(kernel=k, launches=len(xs), gpu_time_us=t / 1e3, share=100 * t / total, ids=[x['id'] for x in xs])
        # time-weighted averages of percentages
        for key in xs[0]:
            if key in ('id', 'kernel', 'block', 'grid', 'stalls', 'tc_kind', 'tc_wgmma'): continue
            agg[key] = sum(x[key] * x['dur_ns'] for x in xs) / t if key not in ('dram_B', 'l2_B', 'l1_B', 'fp32_flop', 'fp16_flop', 'fp64_flop', 'tc_flop', 'dur_ns') else sum(x[key] for x in xs)
        agg['launch_detail'] = [dict((kk, x[kk]) for kk in ('id', 'grid', 'block', 'dur_ns', 'clk', 'dram_pct_meas', 'l2_pct_ncu', 'l1_pct_ncu', 'issue_pct', 'stalls')) for x in xs]
        agg['tc_kind'] = xs[0]['tc_kind']
        out.append(agg)
    out.sort(key=lambda a: -a['gpu_time_us'])
    return total, L, out

if __name__ == '__main__':
    caps = sys.argv[1:] or CAPS
    allg = {}
    for cap in caps:
        total, L, G = groups(cap)
        allg[cap] = dict(total_us=total / 1e3, groups=G, launches=L)
        print(f'==== {cap}: {len(L)} launches, total {total/1e3:.1f} us')
        for x in L:
            print(f"  #{x['id']:2d} {x['dur_ns']/1e3:8.2f}us clk {x['clk']/1e9:.3f} grid {x['grid']:>14} blk {x['block']:>12} dram {x['dram_pct_meas']:5.1f}% ({x['dram_GBs']:6.0f}GB/s wr{x['dram_wr_frac']:.2f}) l2 {x['l2_pct_ncu']:5.1f}%/{x['l2_pct_meas']:5.1f}% l1 {x['l1_pct_ncu']:5.1f}% fma {x['pipe_fma']:5.1f} alu {x['pipe_alu']:5.1f} lsu {x['pipe_lsu']:5.1f} xu {x['pipe_xu']:5.1f} tc {x['tc_pct_dense']:5.1f} issue {x['issue_pct']:5.1f} occ {x['occ_ach']:4.1f}/{x['occ_theo']:4.1f} | {x['kernel'][:70]}")
    json.dump(allg, open('groups.json', 'w'), indent=1, default=str)
