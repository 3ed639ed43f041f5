"""`merge` of a job's ranks: many ranks, hostile ranks among them, the same
file twice, odd rank names, documents of other kinds, timelines with odd
numbers, the output named like a rank."""

import json

from harness import Case, Copy, HardLink
from ._util import E0, E02, E2, pick, slug

NAME = "ranks"
ABOUT = "merge: many and hostile ranks, duplicates, odd names, other documents, odd timelines"


def rank_doc(m, i, world):
    d = m.doc("a.json")
    d["rank"] = {"rank": i, "local_rank": i % 8, "world_size": world, "variable": "RANK", "launcher": "torchrun",
                 "host": f"h{i // 8}"}
    return json.dumps(d)


def cases(m, quick):
    out = []
    n = 16 if quick else 64
    ranks = {f"job.rank{i}.json": rank_doc(m, i, n) for i in range(n)}
    a = m.doc("a.json")
    full = json.loads(rank_doc(m, 0, n))["rank"]
    hostile = {
        "duplicate-rank": {**a, "rank": {**full, "rank": 0}},
        "rank-over-world": {**a, "rank": {**full, "rank": 1000}},
        "rank-negative": {**a, "rank": {**full, "rank": -1}},
        "world-mismatch": {**a, "rank": {**full, "rank": 3, "world_size": 2}},
        "other-gpu": m.doc("b.json"),
        "machine-document": m.doc("m.json"),
        "timeline-document": m.doc("t.json"),
        "merged-document": m.doc("mg.json"),
        "no-kernels": {**a, "kernels": [], "rank": {**full, "rank": n}},
        "rank-fields-missing": {**a, "rank": {"rank": 0}},
    }
    for label, d in pick(sorted(hostile.items()), quick, 3):
        out.append(Case(f"ranks/{n}-ranks-plus-{label}", shell='"$B" merge job.rank*.json extra.json -q -o job.json',
                        files={**ranks, "extra.json": json.dumps(d)}, outputs=("job.json",), expect=E02, timeout=60))
    out.append(Case(f"ranks/{n}-ranks", shell='"$B" merge job.rank*.json -q -o job.json && "$B" report job.json -q -o job.html '
                    '&& "$B" check job.json --min-pct-of-roof 1 -q', files=ranks, outputs=("job.json", "job.html"),
                    must_write=("job.json", "job.html"), expect=frozenset({0, 1}), timeout=60))
    if not quick:
        many = {f"r/job.rank{i}.json": Copy("{M}/r0.json" if i % 2 == 0 else "{M}/r1.json") for i in range(300)}
        out.append(Case("ranks/300-rank-files", shell='"$B" merge r/job.rank*.json -q -o j.json', files=many, outputs=("j.json",),
                        expect=E02, timeout=60))
    r = {"job.rank0.json": Copy("{M}/r0.json"), "job.rank1.json": Copy("{M}/r1.json")}
    cs = [
        Case("ranks/same-file-twice", args=["merge", "{M}/r0.json", "{M}/r0.json", "-q"], expect=E2),
        Case("ranks/same-file-two-spellings", args=["merge", "job.rank0.json", "./job.rank0.json", "-q"], files=r, expect=E2),
        Case("ranks/same-file-by-hard-link", args=["merge", "job.rank0.json", "twin.json", "-q"],
             files={**r, "twin.json": HardLink("job.rank0.json")}, expect=E2),
        Case("ranks/one-file", args=["merge", "{M}/r0.json", "-q", "-o", "j.json"], outputs=("j.json",), expect=E02),
        Case("ranks/a-merged-document-as-rank", args=["merge", "{M}/mg.json", "{M}/r0.json", "-q"], expect=E02),
        Case("ranks/a-machine-as-rank", args=["merge", "{M}/m.json", "{M}/r0.json", "-q"], expect=E2),
        Case("ranks/timeline-and-analysis", args=["merge", "{M}/t.json", "{M}/a.json", "-q", "-o", "j.json"], outputs=("j.json",),
             expect=E02),
        Case("ranks/two-timelines", args=["merge", "{M}/tl0.json", "{M}/tl1.json", "-q", "-o", "j.html"], outputs=("j.html",),
             expect=E0),
        Case("ranks/stdin", args=["merge", "-", "{M}/r1.json", "-q"], stdin=m.raw("r0.json"), expect=E02),
        Case("ranks/machine-flag-an-analysis", args=["merge", "{M}/r0.json", "{M}/r1.json", "--machine", "{M}/a.json", "-q"], expect=E02),
        Case("ranks/machine-flag-dev-null", args=["merge", "{M}/r0.json", "{M}/r1.json", "--machine", "/dev/null", "-q"], expect=E2),
        Case("ranks/machine-flag-csv", args=["merge", "{M}/r0.json", "{M}/r1.json", "--machine", "{M}/seed.csv", "-q"], expect=E2),
        Case("ranks/output-is-a-rank", args=["merge", "job.rank0.json", "job.rank1.json", "-q", "-o", "job.rank1.json"], files=r,
             expect=E2),
        Case("ranks/a-rank-that-ran-no-kernel", args=["merge", "{M}/r0.json", "idle.json", "-q", "-o", "j.json"],
             files={"idle.json": json.dumps({**m.doc("r1.json"), "kernels": []})}, outputs=("j.json",), expect=E02),
        Case("ranks/no-rank-ran-a-kernel", args=["merge", "i0.json", "i1.json", "-q"],
             files={"i0.json": json.dumps({**m.doc("r0.json"), "kernels": []}), "i1.json": json.dumps({**m.doc("r1.json"), "kernels": []})},
             expect=E2),
    ]
    for names in (["job.rank99999999999999999999999.json", "job.rank1.json"], ["job.rank4294967296.json", "job.rank0.json"],
                  ["x/job.rank0.json", "y/job.rank0.json"], ["job.rank-1.json", "job.rankx.json"],
                  ["job.rank.json", "job.rank1.rank2.json"]):
        files = {names[0]: Copy("{M}/r0.json"), names[1]: Copy("{M}/r1.json")}
        cs.append(Case(f"ranks/names-{slug('-'.join(names), 50)}", args=["merge", *names, "-q", "-o", "j.json"], files=files,
                       outputs=("j.json",), expect=E02))
    for field, vals in (("rank", [-1, 2 ** 64, 1e308, "x", None]), ("world_size", [0, -1, 2 ** 64, "x"])):
        for v in vals:
            d = m.doc("r0.json")
            d["rank"] = {**(d.get("rank") or {}), field: v}
            cs.append(Case(f"ranks/field-{field}={slug(v, 20)}", args=["merge", "r.json", "{M}/r1.json", "-q", "-o", "j.json"],
                           files={"r.json": json.dumps(d)}, outputs=("j.json",), expect=E02))
    # timelines with odd numbers, merged to JSON, HTML and Markdown
    t = m.doc("t.json")
    for path, vals in ((["summary", "kernels", 0, "total_ns"], [0, -1, 2 ** 63, 2 ** 64, 1e308]),
                       (["timeline", "activities", 0, "start_ns"], [0, -1, 2 ** 64, 1e308]),
                       (["timeline", "activities", 0, "end_ns"], [0, -1, 2 ** 64]),
                       (["run", "wall_s"], [0, -1, 1e308, None]), (["summary", "kernel_ns"], [0, -1, 2 ** 64])):
        for v in vals:
            d = json.loads(json.dumps(t))
            o = d
            for k in path[:-1]:
                o = o[k]
            o[path[-1]] = v
            for fmt, argv in (("json", ["-o", "j.json"]), ("html", ["-o", "j.html"]), ("markdown", ["--format", "markdown"])):
                cs.append(Case(f"ranks/timeline-{slug('.'.join(map(str, path)), 30)}={slug(v, 20)}-{fmt}",
                               args=["merge", "tl.json", "{M}/tl1.json", "-q", *argv], files={"tl.json": json.dumps(d)},
                               outputs=("j.json", "j.html"), expect=E02))
    d = json.loads(json.dumps(t))
    for act in d["timeline"]["activities"]:
        act["start_ns"], act["end_ns"] = act["end_ns"], act["start_ns"]
    cs.append(Case("ranks/timeline-reversed-times", args=["merge", "tl.json", "{M}/tl1.json", "-q", "-o", "j.json"],
                   files={"tl.json": json.dumps(d)}, outputs=("j.json",), expect=E02))
    return out + pick(cs, quick, 8)
