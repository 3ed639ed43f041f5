import csv, sys, os
PK = "/work/grading11/packet/captures"
CAPS = ["mamba_train", "pointnet_train", "cupy_bootstrap", "gpytorch_regression"]

def num(s):
    if s is None: return None
    s = s.strip().replace(",", "")
    if s in ("", "n/a"): return None
    try: return float(s)
    except ValueError: return None

def load(cap):
    with open(os.path.join(PK, cap + ".full.csv"), newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    rows = list(csv.reader(lines))
    hdr, units, data = rows[0], rows[1], rows[2:]
    out = []
    for r in data:
        d = dict(zip(hdr, r))
        out.append(d)
    return hdr, dict(zip(hdr, units)), out

def g(d, k):
    return num(d.get(k))
