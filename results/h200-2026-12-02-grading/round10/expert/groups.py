"""Group launches by exact Kernel Name per capture; print sums, shares and time-weighted figures."""
from collections import OrderedDict
from metrics import all_launches

def groups():
    caps = all_launches()
    out = OrderedDict()
    for c, L in caps.items():
        tot = sum(f["dur_us"] for f in L)
        gs = OrderedDict()
        for f in L:
            gs.setdefault(f["name"], []).append(f)
        rows = []
        for name, fs in gs.items():
            t = sum(f["dur_us"] for f in fs)
            rows.append(dict(name=name, launches=len(fs), time=t, share=100 * t / tot, fs=fs))
        rows.sort(key=lambda r: -r["time"])
        out[c] = dict(total=tot, rows=rows)
    return out

def tw(fs, k):
    t = sum(f["dur_us"] for f in fs)
    return sum(f[k] * f["dur_us"] for f in fs) / t

if __name__ == "__main__":
    G = groups()
    for c, d in G.items():
        print("=" * 10, c, "total %.1f us, threshold %.2f us" % (d["total"], d["total"] * 0.005))
        for r in d["rows"]:
            fs = r["fs"]
            keep = "KEEP" if r["share"] >= 0.5 else "drop"
            print("%s %3d %9.1f %6.2f%%  %s" % (keep, r["launches"], r["time"], r["share"], r["name"][:120]))
            print("      ids=%s dram%%meas=%.1f l2%%ncu=%.1f l1%%ncu=%.1f sm%%=%.1f issue%%=%.1f fp32%%=%.2f tc16%%=%.1f tf32%%=%.1f occ=%.0f/%.0f clk=%.0f" % (
                ",".join(f["id"] for f in fs), tw(fs, "dram_pct_meas"), tw(fs, "l2_pct_ncu"), tw(fs, "l1_pct_ncu"), tw(fs, "sm_pct"), tw(fs, "issue_pct"),
                tw(fs, "fp32_pct"), tw(fs, "tc16_pct_dense"), tw(fs, "tf32_pct_dense"), tw(fs, "occ_theo"), tw(fs, "occ_ach"), tw(fs, "clk_mhz")))
