#!/usr/bin/env python3
"""Our interconnect figures beside the peers' from the same call (issue 12).

    multi-gpu-compare.py BENCH_JSON [--nccl-tests DIR] [--nvbandwidth FILE]

BENCH_JSON: `roofline bench --only interconnect -o FILE.json`.
DIR: the outputs of nccl-tests' {all_reduce,all_gather,reduce_scatter}_perf
(files nccl-tests_<op>.txt), run with the same message sizes as ours.
FILE: nvbandwidth's output for the copy tests.

For each of our link benchmarks: the median (min..max) and the SM clock; for
the collectives, our bus bandwidth at each message size beside nccl-tests'
out-of-place busbw at the same size, and the ratio (target >= 0.98); for the
copies, ours beside nvbandwidth's (unidirectional: its mean cell over the
GPU pairs; bidirectional: its SUM for the pair), and the ratio (target >=
0.98). Prints only; never fails on a missing peer (it says so).
"""
import json
import os
import re
import sys

TARGET = 0.98


def gb(v):
    return f"{v / 1e9:8.1f} GB/s"


def ours(path):
    doc = json.load(open(path))
    m = doc.get("measurements", {})
    return m.get("results", []), m.get("failures", []), m.get("skipped", [])


def nccl_tests(path):
    """{size_bytes: busbw_B_per_s} from the out-of-place columns."""
    out = {}
    try:
        text = open(path).read()
    except OSError:
        return None
    for line in text.splitlines():
        f = line.split()
        # size count type redop root time algbw busbw #wrong (out of place), then in place
        if len(f) >= 9 and f[0].isdigit() and f[1].isdigit():
            try:
                out[int(f[0])] = float(f[7]) * 1e9
            except ValueError:
                pass
    return out


def nvbandwidth(path):
    """{test: {"sum": B/s, "cells": [B/s...], "arrow": "->" or "<-"}}."""
    tests = {}
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return None
    cur = None
    for line in lines:
        m = re.match(r"Running (\S+)\.", line)
        if m:
            cur = tests.setdefault(m.group(1), {"sum": None, "cells": [], "arrow": "->"})
            continue
        m = re.match(r"SUM (\S+) ([0-9.]+)", line)
        if m:
            tests.setdefault(m.group(1), {"sum": None, "cells": [], "arrow": "->"})["sum"] = float(m.group(2)) * 1e9
            continue
        if cur is None:
            continue
        if "bandwidth (GB/s)" in line:
            cur["arrow"] = "<-" if "<-" in line else "->"
            continue
        f = line.split()
        # A matrix row: the row's index, then GB/s with decimals or N/A (the
        # column header row holds indices alone).
        if len(f) >= 2 and f[0].isdigit() and any("." in v or v == "N/A" for v in f[1:]):
            for v in f[1:]:
                try:
                    cur["cells"].append(float(v) * 1e9)
                except ValueError:
                    pass  # N/A on the diagonal
    return tests


# Our id pattern -> nvbandwidth test.
NVB = [
    (r"^link\.h2d", "host_to_device_memcpy_ce", False),
    (r"^link\.d2h", "device_to_host_memcpy_ce", False),
    (r"^link\.p2p\.ce\.read\.bi\.", "device_to_device_bidirectional_memcpy_read_ce", True),
    (r"^link\.p2p\.ce\.write\.bi\.", "device_to_device_bidirectional_memcpy_write_ce", True),
    (r"^link\.p2p\.sm\.read\.bi\.", "device_to_device_bidirectional_memcpy_read_sm", True),
    (r"^link\.p2p\.sm\.write\.bi\.", "device_to_device_bidirectional_memcpy_write_sm", True),
    (r"^link\.p2p\.ce\.read\.\d", "device_to_device_memcpy_read_ce", False),
    (r"^link\.p2p\.ce\.write\.\d", "device_to_device_memcpy_write_ce", False),
    (r"^link\.p2p\.sm\.read\.\d", "device_to_device_memcpy_read_sm", False),
    (r"^link\.p2p\.sm\.write\.\d", "device_to_device_memcpy_write_sm", False),
]


def verdict(r):
    return "ok" if r >= TARGET else "BELOW TARGET"


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    bench = argv[1]
    nccl_dir = nvb_file = None
    i = 2
    while i < len(argv):
        if argv[i] == "--nccl-tests" and i + 1 < len(argv):
            nccl_dir = argv[i + 1]
            i += 2
        elif argv[i] == "--nvbandwidth" and i + 1 < len(argv):
            nvb_file = argv[i + 1]
            i += 2
        else:
            print(f"unknown argument {argv[i]}", file=sys.stderr)
            return 2
    try:
        results, failures, skipped = ours(bench)
    except (OSError, ValueError) as e:
        print(f"no bench results to compare ({bench}: {e})")
        return 0
    print("=== our interconnect benchmarks (median, min..max, SM clock)")
    for r in results:
        if not r["id"].startswith("link"):
            continue
        s, c = r["rate"], r.get("clock") or {}
        print(f"  {r['id']:<32} {gb(s['median'])}  ({s['min'] / 1e9:.1f}..{s['max'] / 1e9:.1f})"
              f"  SM {c.get('sm_mhz_median', 0):.0f} MHz  {r.get('size', '')}")
    for f in failures:
        print(f"  FAILED {f.get('id')}: {str(f.get('error'))[:200]}")
    for s in skipped:
        print(f"  skipped {s}")

    print("=== NCCL bus bandwidth: ours vs nccl-tests (out of place), same message size")
    for op in ("all_reduce", "all_gather", "reduce_scatter"):
        r = next((x for x in results if x["id"] == f"link.nccl.{op}"), None)
        peer = nccl_tests(os.path.join(nccl_dir, f"nccl-tests_{op}.txt")) if nccl_dir else None
        if r is None:
            print(f"  {op}: no figure of ours")
            continue
        pts = (r.get("curve") or {}).get("points") or []
        if not peer:
            print(f"  {op}: ours {gb(r['rate']['median'])}; no nccl-tests figures (not built or not run)")
            continue
        for p in pts:
            size = int(p["x"])
            theirs = peer.get(size)
            mine = p["rate"]["median"]
            if theirs:
                ratio = mine / theirs
                print(f"  {op:<15} {size >> 20:6d} MiB  ours {gb(mine)}  nccl-tests {gb(theirs)}  x{ratio:.3f} {verdict(ratio)}")
            else:
                print(f"  {op:<15} {size >> 20:6d} MiB  ours {gb(mine)}  nccl-tests: no row at this size")

    print("=== copies: ours vs nvbandwidth")
    nvb = nvbandwidth(nvb_file) if nvb_file else None
    if not nvb:
        print("  no nvbandwidth figures (not built or not run)")
        return 0
    for r in results:
        for pat, test, both in NVB:
            if re.match(pat, r["id"]):
                t = nvb.get(test)
                mine = r["rate"]["median"]
                if not t or (both and not t["sum"]) or (not both and not t["cells"]):
                    print(f"  {r['id']:<32} ours {gb(mine)}  nvbandwidth {test}: no figure")
                    break
                theirs = t["sum"] if both else sum(t["cells"]) / len(t["cells"])
                how = "SUM of the pair" if both else f"mean of {len(t['cells'])} cell(s), GPU(row) {t['arrow']} GPU(column)"
                ratio = mine / theirs
                print(f"  {r['id']:<32} ours {gb(mine)}  nvbandwidth {gb(theirs)} ({test}, {how})  x{ratio:.3f} {verdict(ratio)}")
                break
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
