"""Load an ncu --csv --page raw capture (with preamble) into a list of dicts.
Standard library only."""
import csv, io

def load(path):
    with open(path, newline='') as f:
        lines = f.read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith('"'))
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    hdr, units, data = rows[0], rows[1], rows[2:]
    out = []
    for r in data:
        if len(r) != len(hdr):
            continue
        out.append(dict(zip(hdr, r)))
    return hdr, dict(zip(hdr, units)), out

def num(d, k, default=None):
    v = d.get(k, '')
    if v is None: return default
    v = v.replace(',', '').strip()
    if v in ('', 'n/a'): return default
    try: return float(v)
    except ValueError: return default
