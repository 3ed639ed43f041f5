#!/usr/bin/env python3
"""Summary of a `roofline bench` machine document for bench-check.sh.

Prints every benchmark (median, spread, clock, the sweep's knee), every
measured instruction roof beside the theoretical one of the same instruction,
and the DRAM figures beside BabelStream's from the same call.

usage: bench-summary.py machine.json [babelstream-1.out ...]
"""
import json
import sys


def si(v, unit):
    for p, f in (("T", 1e12), ("G", 1e9), ("M", 1e6)):
        if abs(v) >= 10 * f:
            return f"{v / f:.4g} {p}{unit}"
    return f"{v:.4g} {unit}"


def main():
    doc = json.load(open(sys.argv[1]))
    m = doc.get("measurements", {})
    for r in m.get("results", []):
        c = r.get("clock") or {}
        knee = ""
        if r.get("curve"):
            cv = r["curve"]
            knee = f"; {len(cv['points'])} points over {cv['axis']}, knee {cv.get('knee')}"
        spread = r["rate"]
        print(
            f"  {r['id']:<15} {si(spread['median'], r['unit']):>16}  (min {si(spread['min'], r['unit'])}, max {si(spread['max'], r['unit'])})"
            f"  SM {c.get('sm_mhz_median', 0):.0f} MHz{knee}"
        )
    for f in m.get("failures", []):
        print(f"  FAILED {f['id']}: {f['error'][:200]}")
    ceilings = doc["machine"].get("ceilings", [])
    theo = {c["name"]: c for c in ceilings if c["provenance"]["origin"] == "theoretical" and c["resource"]["type"] == "instruction"}
    print("=== instruction roofs: measured vs theoretical of the same instruction")
    for c in ceilings:
        if c["resource"]["type"] != "instruction" or c["provenance"]["origin"] != "measured":
            continue
        base = c["name"].split(" (measured")[0].split(",")[0]
        t = theo.get(base) or theo.get(base.split(".")[0]) or (theo.get("LDG.32") if base.startswith("LDG") else None)
        ratio = f"{100 * c['rate'] / t['rate']:.1f}% of {t['name']} {si(t['rate'], 'inst/s')}" if t else "no theoretical value"
        flag = "" if c.get("secondary") else " [primary]"
        print(f"  {c['resource']['which']:<14} {c['name']:<55} {si(c['rate'], 'inst/s'):>16}  {ratio}{flag}")
    ours = {r["id"]: r["rate"] for r in m.get("results", []) if r["id"].startswith("dram.")}
    peers = {}
    for path in sys.argv[2:]:
        for line in open(path):
            f = line.strip().split(",")
            if len(f) > 4 and f[0] in ("Copy", "Add", "Triad", "Dot"):
                peers.setdefault(f[0], []).append(float(f[4]) / 1000.0)
    if peers:
        print("=== DRAM: roofline bench (median / max of the best run) vs BabelStream (best of 100, each run)")
        for ours_id, peer in (("dram.copy", "Copy"), ("dram.add", "Add"), ("dram.triad", "Triad"), ("dram.read", "Dot")):
            if ours_id in ours and peer in peers:
                o = ours[ours_id]
                best_peer = max(peers[peer])
                print(
                    f"  {ours_id:<11} {o['median'] / 1e9:7.1f} / {o['max'] / 1e9:7.1f} GB/s   {peer:<6} "
                    + ", ".join(f"{p:.1f}" for p in peers[peer])
                    + f" GB/s   ratio (median / best peer) {o['median'] / 1e9 / best_peer:.3f}"
                )


if __name__ == "__main__":
    main()
