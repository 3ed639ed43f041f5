#!/usr/bin/env python3
"""Print launches in capture order (ID, duration, grid, block, short name)."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ncu_parse import load, launch_metrics
for stem in sys.argv[1:]:
    _, _, rows = load(f"/work/grading9/packet/captures/{stem}.full.csv")
    print("##", stem)
    for r in rows:
        m = launch_metrics(r)
        print(f"{m['id']:3d} {m['dur_ns']/1e3:9.2f}us grid {m['grid']:8.0f} blk {m['block']:4.0f} dram {m['dram']/1e6:8.2f}MB  {m['name'][:110]}")
