"""Per-group figures used in verdicts.tsv (time-weighted where a group has several launches)."""
import json
from load import load, g, CAPS
from analyze import groups

L2SUB = ['lts__t_tag_requests', 'lts__t_sectors', 'lts__d_sectors', 'lts__xbar2lts_cycles_active', 'lts__lts2xbar_cycles_active']

def l2sub(r):
    return max((g(r, s + '.avg.pct_of_peak_sustained_elapsed') or 0) for s in L2SUB)

def figs(cap):
    h, u, rows = load(cap)
    byid = {int(r['ID']): r for r in rows}
    total, L, G = groups(cap)
    out = []
    for a in G:
        T = a['gpu_time_us'] * 1e3
        ls = [x for x in L if x['kernel'] == a['kernel']]
        w = lambda key: sum(x[key] * x['dur_ns'] for x in ls) / T
        l2s = sum(l2sub(byid[x['id']]) * x['dur_ns'] for x in ls) / T
        dram_B = sum(x['dram_B'] for x in ls); l2_B = sum(x['l2_B'] for x in ls)
        f = dict(kernel=a['kernel'], launches=a['launches'], us=a['gpu_time_us'], share=a['share'], ids=a['ids'],
                 clk=[round(x['clk'] / 1e9, 3) for x in ls], dur=[round(x['dur_ns'] / 1e3, 2) for x in ls],
                 grid=[x['grid'] for x in ls], block=ls[0]['block'],
                 dram_pct=w('dram_pct_meas'), dram_ncu=w('dram_pct_ncu'), dram_GBs=dram_B / T, dram_MB=dram_B / 1e6,
                 l2_sub=l2s, l2_ncu=w('l2_pct_ncu'), l2_MB=l2_B / 1e6, l1=w('l1_pct_ncu'), issue=w('issue_pct'),
                 fma=w('pipe_fma'), alu=w('pipe_alu'), lsu=w('pipe_lsu'), xu=w('pipe_xu'), tc_meas=w('tc_pct_meas'), tc_dense=w('tc_pct_dense'),
                 tc_TF=sum(x['tc_flop'] for x in ls) / T / 1e3, fp32_TF=sum(x['fp32_flop'] for x in ls) / T / 1e3,
                 fp32_pct=w('fp32_pct'), occ=w('occ_ach'), occ_theo=w('occ_theo'), waves=[round(x['waves'], 2) for x in ls],
                 ld_sec=w('ld_B_per_sector'), st_sec=w('st_B_per_sector'), smact=w('sm_active_pct'),
                 stalls=[x['stalls'] for x in ls])
        out.append(f)
    return total, out

if __name__ == '__main__':
    res = {}
    for cap in CAPS:
        total, out = figs(cap)
        res[cap] = dict(total_us=total / 1e3, groups=out)
        print(f'=== {cap} total {total/1e3:.2f} us')
        for f in out:
            if f['share'] < 0.5: continue
            print(f"{f['share']:6.3f}% {f['us']:8.2f}us n={f['launches']} ids={f['ids']} dur={f['dur']} clk={f['clk']}\n   dram {f['dram_pct']:.1f}% ({f['dram_GBs']:.0f} GB/s, {f['dram_MB']:.1f} MB, ncu {f['dram_ncu']:.1f}) l2sub {f['l2_sub']:.1f} (lts {f['l2_ncu']:.1f}, {f['l2_MB']:.1f} MB) l1 {f['l1']:.1f} issue {f['issue']:.1f} fma {f['fma']:.1f} alu {f['alu']:.1f} lsu {f['lsu']:.1f} xu {f['xu']:.1f} tc {f['tc_meas']:.1f}/{f['tc_dense']:.1f} ({f['tc_TF']:.1f} TF) fp32 {f['fp32_TF']:.2f} TF ({f['fp32_pct']:.1f}%) occ {f['occ']:.1f}/{f['occ_theo']:.0f} smact {f['smact']:.1f} waves {f['waves']} ld/st B/sec {f['ld_sec']:.1f}/{f['st_sec']:.1f}\n   {f['kernel'][:200]}")
    json.dump(res, open('groupfig.json', 'w'), indent=1)
