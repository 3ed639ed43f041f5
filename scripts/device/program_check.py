#!/usr/bin/env python3
"""Helpers for program-check.sh (issue 11 item 2 on the H200).

  program_check.py share ANALYSIS.json          counter-backed share of GPU time, launches, kernels
  program_check.py extrapolate SAMPLE_S N_SAMPLE PROGRAM_S LAUNCHES
  program_check.py tour TIMELINE.json TOUR.json   seed000 kernels: timeline median vs tour --no-ncu (CUDA events)
"""
import json
import statistics
import sys
from collections import defaultdict


def share(path):
    try:
        doc = json.load(open(path))
    except Exception as e:  # noqa: BLE001 - report, never abort the script
        print(f"share: {path}: unreadable ({e})")
        return
    p = doc.get("program") or {}
    total, placed = p.get("total_s", 0.0), p.get("placed_s", 0.0)
    pct = 100.0 * placed / total if total else 0.0
    nc = [v for v in p.get("by_verdict", []) if v.get("verdict") == "no_counters"]
    ncs = nc[0]["seconds"] if nc else 0.0
    print(f"launches {p.get('launches')} (timeline), kernels {p.get('kernels')}, kernels with counters "
          f"{len(doc.get('kernels', []))}; GPU time {total * 1e3:.3f} ms (measured, CUPTI), counter-backed "
          f"{placed * 1e3:.3f} ms = {pct:.1f}% (target >= 95%: {'PASS' if pct >= 95 else 'FAIL'}); no counters "
          f"{ncs * 1e3:.3f} ms")
    print(f"source: {doc.get('source', {}).get('detail', '')[-200:]}")


def extrapolate(sample_s, n_sample, program_s, launches):
    sample_s, n_sample, program_s, launches = float(sample_s), int(n_sample), float(program_s), int(launches)
    per = max(sample_s - program_s, 0.0) / max(n_sample, 1)
    est = program_s + per * launches
    print(f"ncu --set full: {n_sample} launches in {sample_s:.1f} s (measured wall) -> {per:.2f} s per launch "
          f"beyond the program's own {program_s:.1f} s; all {launches} launches: {est:.0f} s = {est / 60:.1f} min "
          f"(EXTRAPOLATED from the measured sample)")


def tour(tl_path, tour_path):
    tl = json.load(open(tl_path))
    names = tl["timeline"]["names"]
    durs = defaultdict(list)
    for a in tl["timeline"]["activities"]:
        if a["kind"] == "kernel":
            durs[names[a["name"]]["name"].split("(")[0]].append(a["end_ns"] - a["start_ns"])
    doc = json.load(open(tour_path))
    worst, n = 0.0, 0
    for k in doc.get("kernels", []):
        kk = k.get("kernel", k)
        name, d, launches = kk.get("name"), kk.get("duration_s"), kk.get("launches", 1) or 1
        if not d or name not in durs:
            print(f"  {name:18s} tour {d} s over {launches} launches; timeline: {'no launches' if name not in durs else 'n/a'}")
            continue
        ev = d / launches * 1e9
        med = statistics.median(durs[name])
        diff = (med - ev) / ev
        judged = ev >= 50e3
        if judged:
            n += 1
            worst = max(worst, abs(diff))
        print(f"  {name:18s} tour (CUDA events) {ev / 1e3:10.2f} us  timeline median {med / 1e3:10.2f} us  {100 * diff:+6.2f}%"
              f"{'' if judged else '  (under 50 us: not judged)'}")
    print(f"seed000_vs_tour_no_ncu: {'PASS' if n and worst <= 0.05 else 'FAIL'}: {n} kernels of 50 us or more, "
          f"worst {100 * worst:.2f}% (target 5%; names differing between the two are listed above)")


if __name__ == "__main__":
    cmd, rest = sys.argv[1], sys.argv[2:]
    try:
        {"share": share, "extrapolate": extrapolate, "tour": tour}[cmd](*rest)
    except Exception as e:  # noqa: BLE001
        print(f"{cmd}: failed ({e})")
