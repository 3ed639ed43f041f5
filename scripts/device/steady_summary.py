"""One summary block for a `roofline profile` analysis of steady-check.sh:
the GPU's name, the steady state (steps kept, warm-up left out), the
steady-state GPU time and the share of it covered by counters, why counters
are missing (when they are), and the top five kernels by GPU time, each
checked to be a steady-state kernel (it ran inside the kept steps: the
analysis holds only those).

    python3 steady_summary.py NAME ANALYSIS.json WALL_S EXIT
"""
import json
import sys


def main():
    name, path, wall, code = sys.argv[1:5]
    try:
        doc = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"{name}: exit {code}, wall {wall} s, no analysis ({e})")
        return
    p = doc.get("program") or {}
    total = p.get("total_s", 0.0)
    placed = p.get("placed_s", 0.0)
    share = 100.0 * placed / total if total else 0.0
    st = p.get("steady")
    print(f"{name}: exit {code}, wall {wall} s, GPU {doc['machine'].get('name')!r}")
    if st:
        print(
            f"  steady state: {st['steps']} of {st['steps_total']} steps ({st['first_label']} to {st['last_label']}, {st['basis']}); "
            f"left out {st['left_out_s'] * 1e3:.2f} ms in {st['left_out_launches']} launches, {st['left_out_kernels']} kernels only there"
        )
    else:
        print("  steady state: none found (the whole run)")
    print(f"  steady-state GPU time {total * 1e3:.3f} ms in {p.get('launches')} launches, {p.get('kernels')} kernels; "
          f"covered by counters {share:.1f}%")
    for w in doc.get("warnings", []):
        text = w.get("text") or w.get("message") or ""
        if "counters missing" in json.dumps(w):
            print(f"  counters missing: {text or json.dumps(w)[:400]}")
    kernels = sorted(doc.get("kernels", []), key=lambda k: -(k.get("time_share") or 0.0))
    print("  top five kernels (share of steady-state GPU time, % of roof, capture #):")
    for k in kernels[:5]:
        kk = k["kernel"]
        pct = k.get("pct_of_roof")
        pct = f"{pct:.1f}%" if isinstance(pct, (int, float)) else "no counters"
        print(f"    {100 * (k.get('time_share') or 0):5.1f}%  {pct:>11}  #{kk.get('capture_order')}  {kk.get('display_name')}")


if __name__ == "__main__":
    main()
