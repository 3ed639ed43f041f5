"""CTA throughput (blocks per ns) of every launch with >= 4096 blocks, to test a CTA-dispatch floor."""
import glob, os
from analyze import groups, CAP
for p in sorted(glob.glob(os.path.join(CAP, '*.full.csv'))):
    cap = os.path.basename(p)[:-9]
    L, G, tot = groups(cap)
    for x in L:
        if x['grid_size'] >= 4096:
            print('%-16s #%-3s %8d blk x %4d thr  %9.2f us  %.3f blk/ns  occ ach %5.1f/%5.1f  dram %5.1f%%  l2 %5.1f%%  issue %5.1f%% %s' % (
                cap, x['id'], x['grid_size'], x['block_size'], x['dur_ns']/1e3, x['grid_size']/x['dur_ns'],
                x['occ_ach'], x['occ_theor'], x['dram_pct_ncu'], x['l2_pct_ncu'], x['issue'], x['name'][:60]))
