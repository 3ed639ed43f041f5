"""Checks for scripts/device/timeline-check.sh: reads the roofline.timeline/v1
documents and traces that `roofline timeline` wrote and compares them with
the programs' own timings. Each check prints its lines and one verdict
line `CHECK <name>: PASS|FAIL|INFO ...`.

    python3 timeline_check.py seed000 DOC PROGRAM_OUTPUT
    python3 timeline_check.py kineto DOC KINETO_FILE
    python3 timeline_check.py graphs DOC TRACE
    python3 timeline_check.py ctrlc DOC SECONDS_TO_EXIT
    python3 timeline_check.py overhead NAME PLAIN_S... -- TIMELINE_S...
"""

import json
import re
import statistics
import sys
from collections import defaultdict


def load(path):
    with open(path) as f:
        return json.load(f)


def kernels_by_name(doc):
    """Durations (ns) per kernel name, in start order."""
    names = doc["timeline"]["names"]
    out = defaultdict(list)
    for a in sorted(doc["timeline"]["activities"], key=lambda a: a["start_ns"]):
        if a["kind"] == "kernel":
            out[names[a["name"]]["name"]].append(a["end_ns"] - a["start_ns"])
    return out


def verdict(name, ok, text):
    print(f"CHECK {name}: {'PASS' if ok else 'FAIL'} {text}")


def seed000(doc_path, out_path):
    """The program prints `name launch r: X ms ...` (CUDA events) per launch;
    `fma_loop/1024` is kernel `fma_loop` with 1024 iterations. Launches of a
    kernel are matched in order."""
    doc = load(doc_path)
    tl = defaultdict(list)
    for name, ds in kernels_by_name(doc).items():
        tl[name.split("(")[0]].extend(ds)  # extern "C" names have no parameter list anyway
    events = defaultdict(list)
    pat = re.compile(r"^(\S+)\s+launch\s+(\d+):\s+([0-9.]+) ms")
    with open(out_path, errors="replace") as f:
        for line in f:
            m = pat.match(line.strip())
            if m:
                events[m.group(1)].append(float(m.group(3)) * 1e6)
    by_base = defaultdict(list)
    for label, ts in events.items():
        by_base[label.split("/")[0]].append((label, ts))
    rows, worst, checked, judged_n = [], 0.0, 0, 0
    for base, labels in sorted(by_base.items()):
        # Kernel names are extern "C" (unmangled); fma_loop's variants run in label order.
        durs = tl.get(base, [])
        pos = 0
        for label, ts in labels:
            mine = durs[pos:pos + len(ts)]
            pos += len(ts)
            if len(mine) != len(ts):
                rows.append(f"  {label:18s} events {len(ts)} launches, timeline {len(mine)}: MISMATCH")
                worst = float("inf")
                continue
            ev, tm = statistics.median(ts), statistics.median(mine)
            diff = (tm - ev) / ev
            checked += 1
            # CUDA events also time the launch (a few us): judge kernels of 50 us and more.
            judged = ev >= 50e3
            if judged:
                judged_n += 1
                worst = max(worst, abs(diff))
            rows.append(
                f"  {label:18s} events median {ev / 1e3:10.2f} us  timeline median {tm / 1e3:10.2f} us  {100 * diff:+6.2f}%{'' if judged else '  (under 50 us: not judged)'}"
            )
    print("\n".join(rows))
    verdict("seed000_vs_cuda_events", judged_n > 0 and worst <= 0.05,
            f"{checked} kernel variants, {judged_n} of 50 us or more; worst difference on those {100 * worst:.2f}% (target 5%)")


def kineto_kernels(path):
    data = load(path)
    if isinstance(data, dict):
        for key in ("kernels", "launches", "events", "traceEvents"):
            if key in data:
                data = data[key]
                break
    out = defaultdict(list)
    for e in data:
        if not isinstance(e, dict):
            continue
        name = e.get("name")
        dur = e.get("dur_us", e.get("duration_us", e.get("dur")))
        if name is None or dur is None:
            continue
        if e.get("ph") not in (None, "X") or e.get("cat") not in (None, "kernel"):
            continue
        out[name].append(float(dur) * 1e3)
    return out


def base_name(name):
    """`void at::native::f<4, G>(int, T2)` -> `at::native::f`: demanglers
    differ in spacing and literal suffixes, never in the bare name."""
    depth, cut = 0, len(name)
    for i, c in enumerate(name):
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "(" and depth == 0:
            cut = i
            break
    out, depth = [], 0
    for c in name[:cut]:
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif depth == 0:
            out.append(c)
    parts = "".join(out).strip().split(" ")
    return parts[-1] if parts else name


def compare(kt, tl, key):
    kk, tk = defaultdict(list), defaultdict(list)
    for n, ds in kt.items():
        kk[key(n)].extend(ds)
    for n, ds in tl.items():
        tk[key(n)].extend(ds)
    rows, matched, within, total, time_within, unmatched = [], 0, 0, 0.0, 0.0, []
    for name, ds in sorted(kk.items(), key=lambda kv: -sum(kv[1])):
        mine = tk.get(name)
        if not mine:
            unmatched.append(name)
            continue
        k, t = statistics.median(ds), statistics.median(mine)
        diff = (t - k) / k if k > 0 else 0.0
        matched += 1
        total += sum(ds)
        if abs(diff) <= 0.05:
            within += 1
            time_within += sum(ds)
        rows.append(f"  {100 * diff:+6.2f}%  kineto {k / 1e3:9.2f} us (n={len(ds)})  timeline {t / 1e3:9.2f} us (n={len(mine)})  {name[:90]}")
    all_time = sum(sum(ds) for ds in kk.values())
    return rows, matched, len(kk), within, time_within, total, all_time, unmatched


def kineto(doc_path, kineto_path):
    tl = kernels_by_name(load(doc_path))
    kt = kineto_kernels(kineto_path)
    exact = compare(kt, tl, lambda s: re.sub(r"\s+", "", s))
    level = "full names"
    result = exact
    if exact[6] and exact[5] < 0.8 * exact[6]:
        result = compare(kt, tl, base_name)
        level = f"bare names (full names matched only {100 * exact[5] / exact[6]:.0f}% of Kineto's kernel time)"
    rows, matched, n, within, time_within, total, all_time, unmatched = result
    print("\n".join(rows[:30]))
    for u in unmatched[:10]:
        print(f"  not in the timeline: {u[:100]}")
    share = time_within / all_time if all_time else 0.0
    verdict("kineto_medians", matched > 0 and share >= 0.95,
            f"by {level}: {matched} of {n} Kineto kernels matched, {within} within 5% by median; {100 * share:.1f}% of Kineto's kernel time within 5% (target 95%)")


def graphs(doc_path, trace_path):
    doc = load(doc_path)
    acts = [a for a in doc["timeline"]["activities"] if a["kind"] == "kernel"]
    in_graphs = [a for a in acts if a.get("graph") is not None]
    graph_ids = sorted({a["graph"] for a in in_graphs})
    nodes = sorted({(a["graph"], a.get("graph_node")) for a in in_graphs})
    per_replay = len(nodes)
    replays = len(in_graphs) / per_replay if per_replay else 0
    print(f"  kernels in graphs: {len(in_graphs)} in graph(s) {graph_ids}, {per_replay} distinct nodes, {replays:.1f} replays")
    # Two streams: kernels inside the `two streams` range, by stream, and their overlap.
    ranges = doc["timeline"]["ranges"]
    two = [r for r in ranges if r["name"] == "two streams"]
    overlap_ns, streams = 0, set()
    if two:
        r = two[0]
        sel = [a for a in acts if a.get("launch") and r["start_ns"] <= a["launch"]["start_ns"] <= (r.get("end_ns") or 1 << 62)]
        streams = {a["stream"] for a in sel}
        by_stream = defaultdict(list)
        for a in sel:
            by_stream[a["stream"]].append((a["start_ns"], a["end_ns"]))
        ss = sorted(by_stream)
        if len(ss) >= 2:
            for s0, e0 in by_stream[ss[0]]:
                for s1, e1 in by_stream[ss[1]]:
                    overlap_ns += max(0, min(e0, e1) - max(s0, s1))
        print(f"  two streams: {len(sel)} kernels on streams {sorted(streams)}, overlap {overlap_ns / 1e3:.1f} us")
    trace = load(trace_path)
    ev = trace["traceEvents"]
    bad = [e for e in ev if not all(k in e for k in ("ph", "pid", "tid", "name")) or (e["ph"] == "X" and (e.get("dur", -1) < 0 or "ts" not in e))]
    print(f"  trace: {len(ev)} events, {len(bad)} malformed")
    verdict("graph_kernels", per_replay > 0 and replays >= 20 and float(replays).is_integer(),
            f"{len(in_graphs)} kernels from graph replays listed one by one ({per_replay} per replay)")
    verdict("two_streams", len(streams) >= 2 and overlap_ns > 0, f"streams {sorted(streams)}, overlap {overlap_ns / 1e3:.1f} us")
    verdict("chrome_trace", not bad and len(ev) > 0, f"{len(ev)} events parse back, {len(bad)} malformed")


def ctrlc(doc_path, seconds):
    doc = load(doc_path)
    run = doc["run"]
    n = doc["summary"]["kernel_launches"]
    procs = doc["timeline"]["processes"]
    print(f"  ended_by {run['ended_by']}, exit {run.get('exit_code')}, signal {run.get('signal')}, {n} launches, "
          f"processes complete={[p['complete'] for p in procs]} end={[p.get('end_reason') for p in procs]}, tool exited {seconds} s after SIGINT")
    verdict("ctrl_c_partial_timeline", run["ended_by"] == "interrupted" and n > 0,
            f"{n} launches analysed after Ctrl-C")


def overhead(name, args):
    cut = args.index("--")
    plain = [float(x) for x in args[:cut]]
    tl = [float(x) for x in args[cut + 1:]]
    p, t = min(plain), min(tl)
    o = (t - p) / p
    print(f"  {name}: plain {plain} s, under timeline {tl} s (best of each)")
    verdict(f"overhead_{name}", o <= 0.10, f"{100 * o:+.1f}% wall time (target <= 10%)")


if __name__ == "__main__":
    cmd, rest = sys.argv[1], sys.argv[2:]
    try:
        if cmd == "seed000":
            seed000(*rest)
        elif cmd == "kineto":
            kineto(*rest)
        elif cmd == "graphs":
            graphs(*rest)
        elif cmd == "ctrlc":
            ctrlc(*rest)
        elif cmd == "overhead":
            overhead(rest[0], rest[1:])
        else:
            sys.exit(f"unknown check {cmd}")
    except Exception as e:  # a missing file is a failed check, not a crash of the script
        print(f"CHECK {cmd}: FAIL {type(e).__name__}: {e}")
