"""Group-level aggregates (time-weighted) from analyze.launch_fig records."""
from analyze import groups, dram_roof

CTA_CEIL = 1.66  # CTAs per ns: highest CTA throughput observed in these captures (cupy 2,097,152-CTA kernels); see NOTES

def agg(xs):
    T = sum(x['dur_ns'] for x in xs)
    w = lambda k: sum(x[k] * x['dur_ns'] for x in xs) / T
    g = {}
    g['launches'] = len(xs)
    g['time_us'] = T / 1e3
    g['clk_mhz'] = w('clk') / 1e6
    rd = sum(x['dram_rd'] for x in xs); wr = sum(x['dram_wr'] for x in xs)
    g['dram_rd_mb'], g['dram_wr_mb'] = rd / 1e6, wr / 1e6
    g['dram_bw'] = (rd + wr) / (T * 1e-9)
    g['dram_roof'] = dram_roof(wr / (rd + wr) if rd + wr else 0)
    g['dram_pct'] = 100 * g['dram_bw'] / g['dram_roof']
    g['dram_ncu'] = w('dram_pct_ncu')
    g['l2_mb'] = sum(x['l2_bytes'] for x in xs) / 1e6
    g['l2_ncu'] = w('l2_pct_ncu'); g['l2_meas'] = w('l2_pct_meas')
    g['l1_mb'] = sum(x['l1_bytes'] for x in xs) / 1e6
    g['l1_ncu'] = w('l1_pct_ncu')
    g['fp32_gflop'] = sum(x['fp32'] for x in xs) / 1e9
    g['fp32_tfs'] = sum(x['fp32'] for x in xs) / (T * 1e-9) / 1e12
    g['fp32_pct'] = w('fp32_pct_meas')
    g['tc_gflop'] = sum(x['tc'] for x in xs) / 1e9
    g['tc_tfs'] = sum(x['tc'] for x in xs) / (T * 1e-9) / 1e12
    g['tc_pct'] = w('tc_pct_meas')
    g['ai_dram'] = (sum(x['fp32'] + x['tc'] + x['fp16'] + x['fp64'] for x in xs)) / (rd + wr) if rd + wr else 0
    g['issue'] = w('issue'); g['sm_thr'] = w('sm_thr'); g['mem_thr'] = w('mem_thr')
    g['alu'] = w('pipe_alu'); g['fma'] = w('pipe_fma'); g['xu'] = w('pipe_xu'); g['lsu'] = w('pipe_lsu')
    g['tensor_pipe'] = w('pipecyc_tensor')
    g['occ_ach'] = w('occ_ach'); g['occ_theor'] = w('occ_theor')
    g['sm_active'] = w('sm_active_pct')
    g['sm_active_max'] = w('sm_active_max_pct')
    big = max(xs, key=lambda x: x['dur_ns'])
    g['grid'], g['block'] = big['grid'], big['block']
    g['grid_size'] = big['grid_size']; g['waves'] = big['waves']; g['regs'] = big['regs']
    g['stall'] = big['stalls'][0]
    g['stall2'] = big['stalls'][1]
    g['cta_rate'] = sum(x['grid_size'] for x in xs) / T
    g['cta_pct'] = 100 * g['cta_rate'] / CTA_CEIL
    g['busiest'] = max(g['sm_thr'], g['mem_thr'], g['dram_ncu'], g['l2_ncu'], g['l1_ncu'])  # elapsed-based units only
    return g

LIMITER_PCT = {
    'dram': 'dram_pct', 'l2': 'l2_ncu', 'l1': 'l1_ncu', 'fp32': 'fp32_pct', 'tensor': 'tc_pct',
    'issue': 'issue', 'alu': 'alu', 'latency': 'busiest', 'launch': 'busiest',
}

def figures(g):
    s = ('%d launch(es), %.1f us total (%.2f us each), SM clock %.0f MHz; grid %s x block %s (%.2f waves, %d regs); '
         'DRAM %.1f MB rd + %.1f MB wr = %.0f GB/s = %.0f%% of the measured %.0f GB/s roof for this mix (ncu dram %.0f%%); '
         'L2 %.0f MB, lts %.0f%%; L1 %.0f MB, l1tex %.0f%%; ' % (
        g['launches'], g['time_us'], g['time_us'] / g['launches'], g['clk_mhz'], g['grid'], g['block'], g['waves'], g['regs'],
        g['dram_rd_mb'], g['dram_wr_mb'], g['dram_bw'] / 1e9, g['dram_pct'], g['dram_roof'] / 1e9, g['dram_ncu'],
        g['l2_mb'], g['l2_ncu'], g['l1_mb'], g['l1_ncu']))
    if g['fp32_gflop'] > 0.01:
        s += 'FP32 %.2f GFLOP (FMA x2) = %.1f TFLOP/s = %.0f%% of the FP32 roof at this clock; AI(DRAM) %.1f FLOP/B; ' % (
            g['fp32_gflop'], g['fp32_tfs'], g['fp32_pct'], g['ai_dram'])
    if g['tc_gflop'] > 0.01:
        s += 'tensor %.2f GFLOP = %.0f TFLOP/s = %.0f%% of the measured dense BF16 roof at this clock (tensor pipe %.0f%%); ' % (
            g['tc_gflop'], g['tc_tfs'], g['tc_pct'], g['tensor_pipe'])
    s += ('issue %.0f%%, ALU %.0f%%, FMA %.0f%%, XU %.0f%%; occupancy %.0f%% achieved / %.0f%% theoretical; SM active %.0f%% (busiest SM %.0f%%); '
          'CTA rate %.2f/ns (%.0f%% of the 1.66/ns ceiling); top stall %s %.1f, then %s %.1f' % (
        g['issue'], g['alu'], g['fma'], g['xu'], g['occ_ach'], g['occ_theor'], g['sm_active'], g['sm_active_max'],
        g['cta_rate'], g['cta_pct'], g['stall'][0], g['stall'][1], g['stall2'][0], g['stall2'][1]))
    return s
