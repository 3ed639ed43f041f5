"""Load ncu raw CSV captures (standard library only)."""
import csv, os, io

PACKET = "/work/grading13/packet"
CAPDIR = os.path.join(PACKET, "captures")

def num(s):
    if s is None:
        return None
    s = s.strip().replace(",", "")
    if s in ("", "n/a"):
        return None
    try:
        return float(s)
    except ValueError:
        return None

def load(stem):
    path = os.path.join(CAPDIR, stem + ".full.csv")
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith('"ID"'))
    rows = list(csv.reader(io.StringIO("\n".join(lines[i:]))))
    hdr, units, data = rows[0], rows[1], rows[2:]
    data = [r for r in data if len(r) == len(hdr)]
    recs = [dict(zip(hdr, r)) for r in data]
    return hdr, dict(zip(hdr, units)), recs

def stems():
    return sorted(f[:-len(".full.csv")] for f in os.listdir(CAPDIR) if f.endswith(".full.csv"))
