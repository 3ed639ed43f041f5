#!/usr/bin/env python3
"""The tool's verdicts on raw ncu captures, as a table a grader reads beside
an expert's (issue 25's independent grading).

    python3 scripts/grading_table.py --bin target/release/roofline \
        --machine data/h200/tour/machine.json --out DIR CAPTURE.csv...

For each capture: `roofline import CAPTURE --machine M --format json`, then
one row per kernel (capture, exact kernel name, launches, GPU time, share,
origin, position, binding unit and %, every next move with its saving) in
DIR/tool_verdicts.tsv, and the program view's opportunities in
DIR/tool_program_opportunities.txt. Every figure is the tool's own.
"""
import argparse
import json
import os
import subprocess
import sys


def unit(u):
    if not u:
        return "-"
    return f"{u.get('kind')}:{u.get('which')}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--machine", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("captures", nargs="+")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rows = ["\t".join(["capture", "kernel", "launches", "gpu_time_us", "share", "origin", "position", "binding",
                       "binding_pct", "pct_of_roof", "roof", "moves", "evidence"])]
    opps = []
    for cap in a.captures:
        name = os.path.basename(cap).split(".")[0]
        r = subprocess.run([a.bin, "import", cap, "--machine", a.machine, "--format", "json", "-q"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"{cap}: roofline import exited {r.returncode}: {r.stderr[-2000:]}")
        doc = json.loads(r.stdout)
        for k in doc["kernels"]:
            kern = k["kernel"]
            d = k.get("diagnosis") or {}
            ev = d.get("evidence", [])
            binding = next((e for e in ev if e.get("code") == "binding"), {})
            origin = next((e["origin"] for e in ev if e.get("code") == "kernel_origin"), {})
            moves = " || ".join(
                f"{m.get('text', m.get('code'))}" + (f" [saves {m['saving_s'] * 1e6:.1f} us]" if m.get("saving_s") is not None else "")
                for m in d.get("next_moves", []))
            evidence = " | ".join(e.get("text", "") for e in ev if e.get("code") not in ("binding", "kernel_origin"))
            rows.append("\t".join(str(x).replace("\t", " ").replace("\n", " ") for x in [
                name, kern["name"], kern.get("launches", 1), f"{(kern.get('duration_s') or 0) * 1e6:.1f}",
                f"{(k.get('time_share') or 0):.4f}", f"{origin.get('library', '-')}/{origin.get('role', '-')}",
                d.get("position", "-"), unit(binding.get("unit")),
                f"{binding['pct']:.0f}" if "pct" in binding else "-",
                f"{k['pct_of_roof']:.0f}" if k.get("pct_of_roof") is not None else "-",
                k.get("compute_roof_name") or "-", moves or "-", evidence or "-"]))
        prog = doc.get("program") or {}
        opps.append(f"## {name}\n")
        for f in prog.get("fusions", []):
            opps.append(f"- {f['kind']}: {len(f['kernels'])} kernel(s), {f['seconds'] * 1e6:.1f} us, saves {f['saved_s'] * 1e6:.1f} us ({f['rests_on']})")
        for o in prog.get("opportunities", [])[:10]:
            opps.append(f"- top kernel opportunity: {o.get('name')} ({o.get('verdict')}): {o.get('seconds', 0) * 1e6:.1f} us, could save {o.get('saved_s', 0) * 1e6:.1f} us (its first move in tool_verdicts.tsv)")
        opps.append("")
    open(os.path.join(a.out, "tool_verdicts.tsv"), "w").write("\n".join(rows) + "\n")
    open(os.path.join(a.out, "tool_program_opportunities.txt"), "w").write("\n".join(opps) + "\n")
    print(f"{len(rows) - 1} kernel rows from {len(a.captures)} captures -> {a.out}")


if __name__ == "__main__":
    main()
