"""Print every *.pct_of_peak_sustained_* metric >= threshold for a launch (breakdowns)."""
import sys
from ncu_load import load, num
cap, lid = sys.argv[1], sys.argv[2]
thr = float(sys.argv[3]) if len(sys.argv) > 3 else 30
h, u, d = load('../packet/captures/%s.full.csv' % cap)
r = next(x for x in d if x['ID'] == lid)
print(r['Kernel Name'][:150])
out = []
for k in h:
    if 'pct' in k or k.endswith('.pct'):
        v = num(r, k)
        if v is not None and v >= thr and '.max.' not in k and '.min.' not in k:
            out.append((v, k))
for v, k in sorted(out, reverse=True):
    print('%8.2f  %s' % (v, k))
