#!/usr/bin/env python3
"""Print the round-13 grading figures from grades.tsv (standard library only)."""
import csv, os, collections

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "grades.tsv"), newline="") as f:
    G = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE, escapechar="\\"))

caps = []
for g in G:
    if g["capture"] not in caps:
        caps.append(g["capture"])
t = lambda g: float(g["gpu_time_us"])
yes = lambda g, k: g[k] == "yes"


def table(rows_by_cap, agree_fn, title):
    print(title)
    print("| capture | kernels agreed | GPU time agreed (us) | GPU time agreed (%) |")
    print("|---|---|---|---|")
    ka = kn = ta = tt = 0
    for c in caps:
        rs = rows_by_cap[c]
        a = [g for g in rs if agree_fn(g)]
        ka += len(a); kn += len(rs)
        ta += sum(map(t, a)); tt += sum(map(t, rs))
        print("| %s | %d / %d | %.1f / %.1f | %.1f %% |" % (c, len(a), len(rs), sum(map(t, a)), sum(map(t, rs)),
                                                          100 * sum(map(t, a)) / sum(map(t, rs))))
    print("| **overall** | **%d / %d** | **%.1f / %.1f** | **%.1f %%** |" % (ka, kn, ta, tt, 100 * ta / tt))
    print()
    return ka, kn, ta, tt


by = collections.OrderedDict((c, [g for g in G if g["capture"] == c]) for c in caps)

print("# Round 13 grading figures (grade.py)\n")
print("Kernels graded: %d (every expert row >= 0.5 %% of its capture; all %d have a tool row).\n" % (len(G), len(G)))
table(by, lambda g: yes(g, "kernel_agree"), "## Agreement as ruled")

print("## Component agreement")
print("| capture | position | limiter | best move | rule 6 applies | rule 6 within 2x |")
print("|---|---|---|---|---|---|")
for c in list(caps) + ["overall"]:
    rs = G if c == "overall" else by[c]
    n = len(rs)
    r6 = [g for g in rs if yes(g, "saving_rule6_applies")]
    r6a = [g for g in r6 if yes(g, "saving_agree")]
    print("| %s | %d / %d | %d / %d | %d / %d | %d | %d / %d |" % (
        c, sum(yes(g, "position_agree") for g in rs), n, sum(yes(g, "limiter_agree") for g in rs), n,
        sum(yes(g, "move_agree") for g in rs), n, len(r6), len(r6a), len(r6)))
print()

print("## GPU time by class of disagreement")
print("| class | kernels | GPU time (us) | % of graded GPU time | kernels (capture: kernel us) |")
print("|---|---|---|---|---|")
tot = sum(map(t, G))
cl = collections.defaultdict(list)
for g in G:
    if not yes(g, "kernel_agree"):
        cl[g["class_of_disagreement"]].append(g)
for k, rs in sorted(cl.items(), key=lambda kv: -sum(map(t, kv[1]))):
    s = sum(map(t, rs))
    lst = "; ".join("%s: %s %.1f" % (g["capture"].split("_")[0], g["kernel"][:48], t(g))
                    for g in sorted(rs, key=lambda g: -t(g)))
    print("| %s | %d | %.1f | %.1f %% | %s |" % (k, len(rs), s, 100 * s / tot, lst))
print()

print("## Close calls")
cc = [g for g in G if yes(g, "close_call")]
print("| capture | kernel | GPU time (us) | ruled | flips to |")
print("|---|---|---|---|---|")
for g in cc:
    r = "agree" if yes(g, "kernel_agree") else "disagree (%s)" % g["class_of_disagreement"]
    print("| %s | %s | %.1f | %s | %s |" % (g["capture"], g["kernel"][:60], t(g), r,
                                          "disagree" if yes(g, "kernel_agree") else "agree"))
print()

lo = table(by, lambda g: yes(g, "kernel_agree") and not yes(g, "close_call"),
           "## Lower bound: every close call ruled against the tool")
hi = table(by, lambda g: yes(g, "kernel_agree") or yes(g, "close_call"),
           "## Upper bound: every close call ruled for the tool")
print("Bounds, overall: kernels %d-%d / %d; GPU time %.1f-%.1f %% of %.1f us." % (
    lo[0], hi[0], lo[1], 100 * lo[2] / lo[3], 100 * hi[2] / hi[3], lo[3]))
