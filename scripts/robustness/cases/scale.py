"""Scale: 100,000 kernels (a model-built analysis, and one imported from a
capture of 100,000 launches) through report, check, diff and merge; a
timeline of 10^6 kernel records and a merge of two of them; 512 rank
files. The bound judged is the issue's: under 1 GB of peak RSS (wall
times are printed, not judged: the machine is shared). Quick mode runs the
same at a tenth of the size."""

import os
import random

from harness import Case, File
from ._util import E0, E01, E02

NAME = "scale"
ABOUT = "100,000 kernels through every command, 10^6 timeline records, 512 ranks"


def write_model(path, n, factor, seed=7):
    rnd = random.Random(seed)
    with open(path, "w") as f:
        f.write('[machine]\ngpu = "h200"\n')
        for i in range(n):
            fl, by, t = 10 ** rnd.uniform(3, 13), 10 ** rnd.uniform(3, 11), 10 ** rnd.uniform(-6, -2) * factor
            f.write(f'[[kernel]]\nname = "kernel_{i:06d}_<T{i % 97}>"\nflops = {fl:.6g}\nbytes = {by:.6g}\ntime = "{t * 1e3:.6g} ms"\n')


def write_capture(m, path, n):
    """n launches with distinct names, with the columns `profile` asks for and the identity columns."""
    keep = [j for j, h in enumerate(m.header) if "__" not in h or h.startswith(("gpu__time_duration", "dram__bytes",
                                                                                 "sm__cycles_elapsed", "smsp__sass_thread_inst",
                                                                                 "lts__", "l1tex__", "launch__", "device__"))]
    name_i, id_i = m.col("Kernel Name"), m.col("ID")

    def q(row):
        return ",".join('"' + row[j].replace('"', '""') + '"' for j in keep) + "\n"
    with open(path, "w") as f:
        f.write(q(m.header))
        f.write(q(m.units))
        for i in range(n):
            r = list(m.rows[i % len(m.rows)])
            r[name_i] = f"{r[name_i]}_{i}"
            r[id_i] = str(i)
            f.write(q(r))


RECORDS = ('import json,sys\nn=int(sys.argv[1]); base=5000000000\nf=open(sys.argv[2],"w")\n'
           'f.write(json.dumps({"t":"header","format":"roofline.records/v1","pid":4242,"clock":{"cupti_ns":base,'
           '"unix_ns":1764480000000000000}})+"\\n")\n'
           'for i in range(200): f.write(json.dumps({"t":"name","id":i+1,"s":"_Z6kernel%dPf"%i})+"\\n")\n'
           'for i in range(n):\n s=base+100000+i*2000\n f.write(\'{"t":"kernel","name":%d,"start":%d,"end":%d,"dev":0,"ctx":1,'
           '"stream":%d,"corr":%d,"grid":[64,1,1],"block":[256,1,1]}\\n\' % (i%200+1, s, s+1500, i%4, i+1))\n'
           'f.write(json.dumps({"t":"end","reason":"exit","records":n})+"\\n")\n')


def cases(m, quick):
    n = 10_000 if quick else 100_000
    big = os.path.join(m.dir, "big")
    os.makedirs(big, exist_ok=True)
    for tag, factor in (("a", 1.0), ("b", 1.07)):
        p = os.path.join(big, f"k{tag}.toml")
        if not os.path.exists(p):
            write_model(p, n, factor)
    cap = os.path.join(big, "capture.csv")
    if not os.path.exists(cap):
        write_capture(m, cap, n)
    lim = dict(timeout=600, mem_mb=1024, readback=False)
    B = "$M/big"
    out = [
        Case(f"scale/model-{n}-kernels", shell=f'"$B" model {B}/ka.toml -q -o a.json && cp a.json {B}/a.json',
             outputs=("a.json",), must_write=("a.json",), expect=E0, **lim),
        Case(f"scale/model-{n}-kernels-b", shell=f'"$B" model {B}/kb.toml -q -o b.json && cp b.json {B}/b.json',
             outputs=("b.json",), expect=E0, **lim),
    ]
    for name, argv, outs in (
            ("report-html", ["report", "{M}/big/a.json", "-o", "r.html"], ("r.html",)),
            ("report-svg", ["report", "{M}/big/a.json", "-o", "r.svg"], ("r.svg",)),
            ("report-markdown", ["report", "{M}/big/a.json", "--format", "markdown", "-o", "r.md"], ("r.md",)),
            ("report-csv", ["report", "{M}/big/a.json", "--format", "csv", "-o", "r.csv"], ("r*.csv",)),
            ("report-chart", ["report", "{M}/big/a.json", "--format", "chart"], ()),
            ("report-table", ["report", "{M}/big/a.json", "--wide"], ()),
            ("check-baseline", ["check", "{M}/big/b.json", "--baseline", "{M}/big/a.json", "--max-regression", "5"], ()),
            ("check-self-baseline", ["check", "{M}/big/a.json", "--baseline", "{M}/big/a.json", "--max-regression", "5"], ()),
            ("check-min-pct-csv", ["check", "{M}/big/a.json", "--min-pct-of-roof", "50", "--format", "csv"], ()),
            ("diff-html", ["diff", "{M}/big/a.json", "{M}/big/b.json", "-o", "d.html"], ("d.html",)),
            ("diff-markdown", ["diff", "{M}/big/a.json", "{M}/big/b.json", "--format", "markdown"], ()),
            ("diff-json", ["diff", "{M}/big/a.json", "{M}/big/b.json", "-o", "d.json"], ("d.json",)),
            ("merge-two", ["merge", "{M}/big/a.json", "{M}/big/b.json", "-o", "m.json"], ("m.json",))):
        if name not in ("report-html", "report-csv", "check-baseline", "diff-html", "merge-two") and (quick or name not in
                                                                                                   ("report-svg", "diff-json")):
            continue
        out.append(Case(f"scale/{n}-kernels-{name}", args=argv + ["-q"], outputs=outs, expect=E01, **lim))
    # an imported analysis carries evidence and diagnoses: 5 KB of JSON a kernel
    out.append(Case(f"scale/import-{n}-launches", shell=f'"$B" import {B}/capture.csv -q -o a.json && cp a.json {B}/imported.json',
                    outputs=("a.json",), must_write=("a.json",), expect=E0, **lim))
    for name, argv, outs in (("report-html", ["report", "{M}/big/imported.json", "-o", "r.html"], ("r.html",)),
                             ("check-self-baseline", ["check", "{M}/big/imported.json", "--baseline", "{M}/big/imported.json",
                                                      "--max-regression", "5"], ()),
                             ("diff-html", ["diff", "{M}/big/imported.json", "{M}/big/imported.json", "-o", "d.html"], ("d.html",))):
        out.append(Case(f"scale/imported-{n}-{name}", args=argv + ["-q"], outputs=outs, expect=E01, **lim))
    # timelines: 10^5 (quick) or 10^6 kernel records, then report --format trace and a merge of two such ranks
    recs = 100_000 if quick else 1_000_000
    prog = File('#!/bin/bash\ncp "$M/big/records.jsonl" "${ROOFLINE_TIMELINE_DIR:?}/$$.jsonl"\n', 0o755)
    out.append(Case(f"scale/timeline-{recs}-records",
                    shell=f'python3 gen.py {recs} {B}/records.jsonl && "$B" timeline --inject-lib "$M/fake.so" -q '
                          f'-o t.json -- ./prog.sh >/dev/null && cp t.json {B}/t0.json && cp t.json {B}/t1.json',
                    files={"prog.sh": prog, "gen.py": RECORDS}, outputs=("t.json",), must_write=("t.json",), expect=E01, **lim))
    out.append(Case(f"scale/timeline-{recs}-merge-json", args=["merge", "{M}/big/t0.json", "-q", "--format", "json"],
                    expect=E01, **lim))
    out.append(Case(f"scale/timeline-{recs}-merge-two-ranks", args=["merge", "{M}/big/t0.json", "{M}/big/t1.json", "-q", "-o", "m.json"],
                    outputs=("m.json",), expect=E01, as_mb=4096, **lim))
    # many ranks
    k = 64 if quick else 512
    out.append(Case(f"scale/merge-{k}-rank-files",
                    shell=f'for i in $(seq 0 {k - 1}); do cp "$M/r$((i % 2)).json" r$i.json; done; "$B" merge r*.json -q -o m.json',
                    outputs=("r*.json", "m.json"), must_write=("m.json",), expect=E02, **lim))
    return out
