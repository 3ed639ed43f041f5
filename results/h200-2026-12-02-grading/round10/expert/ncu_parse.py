"""Parse ncu --csv --page raw captures (packet format) into lists of dicts with float values."""
import csv, os

CAPDIR = "/work/grading10/packet/captures"
CAPTURES = ["raft_flow_infer", "clip_train", "cupy_option_mc"]

def num(s):
    if s is None:
        return None
    t = s.replace(",", "").strip()
    if t in ("", "n/a"):
        return None
    try:
        return float(t)
    except ValueError:
        return None

def load(stem):
    lines = open(os.path.join(CAPDIR, stem + ".full.csv")).read().splitlines()
    i = [k for k, l in enumerate(lines) if l.startswith('"ID"')][0]
    rows = list(csv.reader(lines[i:]))
    hdr, units, data = rows[0], rows[1], rows[2:]
    out = []
    for r in data:
        d = {"_raw": dict(zip(hdr, r))}
        for h, v in zip(hdr, r):
            d[h] = num(v)
        out.append(d)
    return hdr, dict(zip(hdr, units)), out

def raw(d, k):
    return d["_raw"].get(k)
