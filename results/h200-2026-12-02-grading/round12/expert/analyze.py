"""Per-launch roofline figures from the ncu raw captures. Stdlib only.
Usage: python3 analyze.py [capture_name ...]  -> prints per-group, per-launch details.
"""
import sys, glob, os, json
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ncu_load import load, num

CAP = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'packet', 'captures')
# measured roofs (packet/measured-roofs.txt)
DRAM_READ, DRAM_WRITE, DRAM_COPY, DRAM_TRIAD = 4.530e12, 4.702e12, 4.282e12, 4.401e12
L2_MEAS = 9.978e12          # at 1980 MHz SM clock
L1_MEAS = 3.337e13          # at 1980 MHz
FP32_MEAS = 6.602e13        # at 1980 MHz (FFMA)
FP16_MEAS = 1.302e14
FP64_MEAS = 3.339e13
BF16_TC_MEAS = 8.506e14     # at 1980 MHz (bursts)
FP16_TC_MEAS = 8.026e14
TF32_TC_MEAS = 3.834e14 / 1635 * 1980
NSM = 132

def dram_roof(wfrac):
    """measured DRAM roof for a write fraction (piecewise linear through
    read-only (0), triad/add (1/3), copy (1/2), write-only (1))."""
    pts = [(0.0, DRAM_READ), (1/3, DRAM_TRIAD), (0.5, DRAM_COPY), (1.0, DRAM_WRITE)]
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if wfrac <= x1:
            return y0 + (y1 - y0) * (wfrac - x0) / (x1 - x0)
    return DRAM_WRITE

STALLS = ['barrier','branch_resolving','dispatch_stall','drain','gmma','imc_miss','lg_throttle',
          'long_scoreboard','math_pipe_throttle','membar','mio_throttle','misc','no_instruction',
          'not_selected','selected','short_scoreboard','sleeping','tex_throttle','wait']
PIPES = ['alu','fma','fmaheavy','fp64','lsu','xu','tensor_op_hmma','tensor_op_gmma','uniform','adu','cbu']

def launch_fig(r):
    g = lambda k, d=0.0: num(r, k, d)
    f = {}
    f['id'] = r['ID']; f['name'] = r['Kernel Name']
    f['block'] = r['Block Size']; f['grid'] = r['Grid Size']
    f['dur_ns'] = g('gpu__time_duration.sum')
    f['clk'] = g('sm__cycles_elapsed.avg.per_second')
    f['l2clk'] = g('lts__cycles_elapsed.avg.per_second')
    f['dramclk'] = g('dram__cycles_elapsed.avg.per_second')
    f['sm_cycles'] = g('sm__cycles_elapsed.avg')
    t = f['dur_ns'] * 1e-9
    rd, wr = g('dram__bytes_read.sum'), g('dram__bytes_write.sum')
    f['dram_rd'], f['dram_wr'] = rd, wr
    f['dram'] = g('dram__bytes.sum')
    f['dram_bw'] = f['dram'] / t if t else 0
    wfrac = wr / (rd + wr) if rd + wr else 0
    f['dram_roof'] = dram_roof(wfrac)
    f['dram_pct_meas'] = 100 * f['dram_bw'] / f['dram_roof']
    f['dram_pct_ncu'] = g('dram__throughput.avg.pct_of_peak_sustained_elapsed')
    f['l2_bytes'] = g('lts__t_bytes.sum')
    f['l2x_bytes'] = g('derived__lts__lts2xbar_bytes.sum', 32 * g('lts__lts2xbar_cycles_active.sum'))
    sc = f['clk'] / 1.98e9 if f['clk'] else 1
    f['l2_bw'] = f['l2_bytes'] / t if t else 0
    f['l2_pct_meas'] = 100 * f['l2_bw'] / L2_MEAS
    f['l2_pct_ncu'] = g('lts__throughput.avg.pct_of_peak_sustained_elapsed')
    f['l2_hit'] = g('lts__t_sector_hit_rate.pct')
    f['l1_bytes'] = g('l1tex__t_bytes.sum')
    f['l1_bw'] = f['l1_bytes'] / t if t else 0
    f['l1_pct_meas'] = 100 * f['l1_bw'] / (L1_MEAS * sc)
    f['l1_pct_ncu'] = g('l1tex__throughput.avg.pct_of_peak_sustained_elapsed')
    f['l1_hit'] = g('l1tex__t_sector_hit_rate.pct')
    P = 'smsp__sass_thread_inst_executed_op_%s_pred_on.sum'
    f['fp32'] = g(P % 'fadd') + g(P % 'fmul') + 2 * g(P % 'ffma')
    f['ffma'] = g(P % 'ffma'); f['fadd'] = g(P % 'fadd'); f['fmul'] = g(P % 'fmul')
    f['fp64'] = g(P % 'dadd') + g(P % 'dmul') + 2 * g(P % 'dfma')
    f['fp16'] = 2 * g(P % 'hadd') + 2 * g(P % 'hmul') + 4 * g(P % 'hfma')
    T = 'sm__ops_path_tensor_src_%s.sum'
    f['tc_bf16'] = g(T % 'bf16_dst_fp32'); f['tc_fp16'] = g(T % 'fp16'); f['tc_tf32'] = g(T % 'tf32_dst_fp32')
    f['tc_fp64'] = g(T % 'fp64'); f['tc_int8'] = g(T % 'int8'); f['tc_fp8'] = g(T % 'fp8')
    f['tc'] = sum(f[k] for k in ('tc_bf16','tc_fp16','tc_tf32','tc_fp64','tc_int8','tc_fp8'))
    f['fp32_rate'] = f['fp32'] / t if t else 0
    f['fp32_pct_meas'] = 100 * f['fp32_rate'] / (FP32_MEAS * sc)
    f['tc_rate'] = f['tc'] / t if t else 0
    f['tc_pct_meas'] = 100 * f['tc_rate'] / (BF16_TC_MEAS * sc) if f['tc'] else 0
    f['tc_pct_dense_theor'] = 100 * f['tc_rate'] / (NSM * 4096 * f['clk']) if f['tc'] and f['clk'] else 0
    f['ai_dram'] = (f['fp32'] + f['tc'] + f['fp16'] + f['fp64']) / f['dram'] if f['dram'] else float('inf')
    f['sm_thr'] = g('sm__throughput.avg.pct_of_peak_sustained_elapsed')
    f['mem_thr'] = g('gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed')
    f['issue'] = g('smsp__issue_active.avg.pct_of_peak_sustained_active')
    f['inst_thr'] = g('sm__instruction_throughput.avg.pct_of_peak_sustained_elapsed')
    f['inst'] = g('smsp__inst_executed.sum')
    for p in PIPES:
        f['pipe_' + p] = g('sm__inst_executed_pipe_%s.avg.pct_of_peak_sustained_elapsed' % p)
    f['pipecyc_fma'] = g('sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed')
    f['pipecyc_tensor'] = g('sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed')
    f['pipecyc_shared'] = g('sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed')
    f['pipecyc_alu'] = g('sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed')
    f['occ_theor'] = g('sm__maximum_warps_per_active_cycle_pct')
    f['occ_ach'] = g('sm__warps_active.avg.pct_of_peak_sustained_active')
    f['regs'] = g('launch__registers_per_thread')
    f['smem_blk'] = g('launch__shared_mem_per_block')
    f['waves'] = g('launch__waves_per_multiprocessor')
    f['grid_size'] = g('launch__grid_size'); f['block_size'] = g('launch__block_size')
    f['lim'] = {k: g('launch__occupancy_limit_' + k) for k in ('registers','shared_mem','warps','blocks')}
    f['eligible'] = g('smsp__warps_eligible.avg.per_cycle_active')
    f['warps_active_smsp'] = g('smsp__warps_active.avg.per_cycle_active')
    st = {s: g('smsp__average_warps_issue_stalled_%s_per_issue_active.ratio' % s) for s in STALLS}
    f['stalls'] = sorted(st.items(), key=lambda kv: -kv[1])
    f['ld_bytes_per_sector'] = g('smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio')
    f['st_bytes_per_sector'] = g('smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio')
    f['excess_sectors'] = g('derived__memory_l2_theoretical_sectors_global_excessive')
    f['bank_conf'] = g('l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum')
    f['sm_active_pct'] = 100 * g('sm__cycles_active.avg') / f['sm_cycles'] if f['sm_cycles'] else 0
    f['sm_active_max_pct'] = 100 * g('sm__cycles_active.max') / f['sm_cycles'] if f['sm_cycles'] else 0
    f['xu_inst'] = g('sm__inst_executed_pipe_xu.sum')
    return f

def groups(cap):
    h, u, d = load(os.path.join(CAP, cap + '.full.csv'))
    L = [launch_fig(r) for r in d]
    total = sum(x['dur_ns'] for x in L)
    G = {}
    for x in L:
        G.setdefault(x['name'], []).append(x)
    return L, G, total

def fmt(x):
    s = []
    s.append('  #%s grid %s block %s dur %.2f us clk %.0f MHz (l2 %.0f dram %.0f) smact %.0f%% waves %.2f regs %d smem %d' % (
        x['id'], x['grid'], x['block'], x['dur_ns']/1e3, x['clk']/1e6, x['l2clk']/1e6, x['dramclk']/1e6, x['sm_active_pct'], x['waves'], x['regs'], x['smem_blk']))
    s.append('    DRAM rd %.3f MB wr %.3f MB -> %.0f GB/s = %.1f%% of meas roof %.0f (ncu dram %.1f%%)' % (
        x['dram_rd']/1e6, x['dram_wr']/1e6, x['dram_bw']/1e9, x['dram_pct_meas'], x['dram_roof']/1e9, x['dram_pct_ncu']))
    s.append('    L2 %.3f MB (xbar %.3f MB) %.0f GB/s = %.1f%% meas (ncu lts %.1f%%, hit %.1f%%); L1 %.3f MB %.0f GB/s = %.1f%% (ncu l1tex %.1f%%, hit %.1f%%)' % (
        x['l2_bytes']/1e6, x['l2x_bytes']/1e6, x['l2_bw']/1e9, x['l2_pct_meas'], x['l2_pct_ncu'], x['l2_hit'], x['l1_bytes']/1e6, x['l1_bw']/1e9, x['l1_pct_meas'], x['l1_pct_ncu'], x['l1_hit']))
    s.append('    FP32 %.3g FLOP (ffma %.3g fadd %.3g fmul %.3g) -> %.2f TF/s = %.1f%% of FP32 roof@clk; fp16 %.3g fp64 %.3g; TC %.3g (bf16 %.3g fp16 %.3g tf32 %.3g) -> %.1f TF/s = %.1f%% meas bf16@clk, %.1f%% dense theor; AI_dram %.2f' % (
        x['fp32'], x['ffma'], x['fadd'], x['fmul'], x['fp32_rate']/1e12, x['fp32_pct_meas'], x['fp16'], x['fp64'], x['tc'], x['tc_bf16'], x['tc_fp16'], x['tc_tf32'], x['tc_rate']/1e12, x['tc_pct_meas'], x['tc_pct_dense_theor'], x['ai_dram']))
    s.append('    SM thr %.1f%% mem thr %.1f%% issue %.1f%% inst %.3g | pipes %s | cyc fma %.1f tensor %.1f shared %.1f alu %.1f' % (
        x['sm_thr'], x['mem_thr'], x['issue'], x['inst'], ' '.join('%s %.1f' % (p, x['pipe_' + p]) for p in PIPES if x['pipe_' + p] > 0.5), x['pipecyc_fma'], x['pipecyc_tensor'], x['pipecyc_shared'], x['pipecyc_alu']))
    s.append('    occ theor %.1f%% ach %.1f%% limits %s eligible/smsp %.2f active/smsp %.2f | ld B/sector %.1f st B/sector %.1f excess sectors %.0f bank conf %.0f' % (
        x['occ_theor'], x['occ_ach'], x['lim'], x['eligible'], x['warps_active_smsp'], x['ld_bytes_per_sector'], x['st_bytes_per_sector'], x['excess_sectors'], x['bank_conf']))
    s.append('    stalls/issue: ' + ', '.join('%s %.2f' % kv for kv in x['stalls'][:5]))
    return '\n'.join(s)

if __name__ == '__main__':
    caps = sys.argv[1:] or [os.path.basename(p)[:-9] for p in sorted(glob.glob(os.path.join(CAP, '*.full.csv')))]
    for cap in caps:
        L, G, total = groups(cap)
        print('=' * 20, cap, 'launches', len(L), 'total %.2f us' % (total / 1e3))
        for name, xs in sorted(G.items(), key=lambda kv: -sum(x['dur_ns'] for x in kv[1])):
            tt = sum(x['dur_ns'] for x in xs)
            print('\n## %.2f%% %d launches %.2f us  %s' % (100 * tt / total, len(xs), tt / 1e3, name[:230]))
            for x in xs:
                print(fmt(x))
