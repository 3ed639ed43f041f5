"""Captures that are damaged, foreign or extreme, and special files given as
inputs: every reader ends with an analysis or with exit 2, bounded in time
and memory, and no foreign line becomes a kernel."""

import random

from harness import Case, Copy, Dir, Fifo, File, Lazy, Link, Sparse
from ._util import E0, E02, E12, E2, kernels_of, load_json, pick, slug

NAME = "inputs"
ABOUT = "damaged, foreign and extreme captures; special files as inputs"

# Values put into a counter column, on every launch or on one.
NUMBERS = ["0", "-0", "-1", "5e-324", "1e-310", "1e-300", "0.000001", "1e308", "1.7976931348623157e308", "1e309",
           "NaN", "inf", "-inf", "", "n/a", "1,2,3", "0x10", "99999999999999999999999", "1e", "\u0661\u0662\u0663",
           " 12 ", "1_000"]
COLUMNS = ["gpu__time_duration.sum", "sm__cycles_elapsed.avg.per_second", "dram__bytes.sum",
           "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "dram__bytes.sum.peak_sustained",
           "launch__grid_size", "launch__block_size", "launch__registers_per_thread",
           "device__attribute_max_gpu_frequency_khz", "launch__sm_count", "dram__cycles_elapsed.avg.per_second"]

TIME_UNITS = {  # unit -> seconds per unit, when a reader may take it (None: refused or named)
    "ns": 1e-9, "nsecond": 1e-9, "nanosecond": 1e-9, "NSECOND": 1e-9, "": 1e-9, "usecond": 1e-6, "us": 1e-6,
    "\u00b5s": 1e-6, "usecond ": 1e-6, "msecond": 1e-3, "ms": 1e-3, "second": 1.0, "s": 1.0, "psecond": 1e-12,
    "fsecond": 1e-15, "minute": 60.0, "hour": 3600.0, "MB": None, "Gcycle": None, "cycle": None, "byte": None,
    "%": None, "Kbyte": None, "ns\u202e": None,
}
BYTE_UNITS_OK = {"byte", "Kbyte", "Mbyte", "Gbyte", "Tbyte", "Pbyte", ""}
BYTE_UNITS = sorted(BYTE_UNITS_OK) + ["Ebyte", "KB", "MB", "MiB", "kib", "bit", "sector", "nsecond", "second",
                                      "furlong", "byte/second"]
CLOCK_UNITS_OK = {"hz", "Khz", "Mhz", "Ghz", "cycle/nsecond", "cycle/second", "cycle/usecond", ""}
CLOCK_UNITS = sorted(CLOCK_UNITS_OK) + ["byte", "rpm", "1/second", "ns"]


def imported(expect_kernels=None, refused=False, nameless_ok=False):
    """A check of `import cap.csv -o out.json`: no phantom kernel, the kernel
    count when the lines added are not launches, or a refusal."""
    def check(run):
        out = []
        if refused and run.rc == 0:
            out.append("a file that is not a raw capture was accepted (exit 0)")
        if run.rc != 0:
            return out
        ks = kernels_of(load_json(run, "out.json"))
        names = [k.get("kernel", {}).get("name") for k in ks]
        if not nameless_ok and any(not isinstance(n, str) or not n.strip() for n in names):
            out.append(f"a kernel without a name among {names[:5]}")
        foreign = [n for n in names if isinstance(n, str) and n.startswith(("==", '"', "Traceback", "#"))]
        if foreign:
            out.append(f"a line that is not a launch became a kernel: {foreign[:2]}")
        if expect_kernels is not None and len(ks) != expect_kernels:
            out.append(f"{len(ks)} kernels, expected {expect_kernels} (the added lines are not launches)")
        return out
    return check


def imp(cid, data, extra=(), expect=E02, check=None, timeout=30, stdin=False, mem_mb=1024):
    files = {"cap.csv": data}
    if stdin:
        return Case(cid + "-stdin", args=["import", "-", "-q", "-o", "out.json", *extra], stdin=data,
                    expect=expect, outputs=("out.json",), check=check, timeout=timeout, mem_mb=mem_mb)
    return Case(cid, args=["import", "cap.csv", "-q", "-o", "out.json", *extra], files=files, expect=expect,
                outputs=("out.json",), check=check, timeout=timeout, mem_mb=mem_mb)


def structure(m, quick):
    seed = m.text("seed.csv")
    gemms = m.text("gemms.csv")
    raw = seed.encode()
    lines = seed.splitlines(keepends=True)
    header_line = next(l for l in lines if l.startswith('"ID"'))
    rows = [i for i, l in enumerate(lines) if l.startswith('"')]
    n = len(m.rows) and len({r[m.col("Kernel Name")] for r in m.rows})

    def between(k, line):
        return "".join(lines[: rows[k]] + [line] + lines[rows[k]:])

    same = imported(expect_kernels=n)
    refused = imported(refused=True)
    v = {  # name -> (data, check)
        "empty": (b"", refused), "newlines-only": (b"\n\n\n", refused),
        "preamble-only": ("".join(l for l in lines if l.startswith("==")), refused),
        "header-only": ("".join(lines[: rows[0] + 1]), refused),
        "header-and-units-only": ("".join(lines[: rows[1] + 1]), refused),
        "one-launch": ("".join(lines[: rows[2] + 1]), imported()),
        "trailing-text": (seed + "done.\n", same),
        "trailing-text-no-newline": (seed.rstrip("\n") + "\nFinished in 3.2s", same),
        "trailing-csv-garbage": (seed + "garbage,line\n", imported()),
        "traceback-appended": (seed + 'Traceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: CUDA error\n', same),
        "warning-at-end": (seed + "==WARNING== Found outstanding GPU clock reset, trying to revert...Success.\n", same),
        "prof-line-middle": (between(6, "==PROF== Disconnected from process 1\n"), same),
        "error-line-middle": (between(6, "==ERROR== The application returned an error code (1).\n"), same),
        "permission-error-only": (b"==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n", refused),
        "blank-lines": (seed.replace("\n", "\n\n"), same),
        "comment-first": ("# captured on node7\n" + seed, same),
        "header-repeated-at-end": (seed + header_line, same),
        "units-twice": ("".join(lines[: rows[1] + 1]) + lines[rows[1]] + "".join(lines[rows[2]:]), imported()),
        "cat-two-captures": (seed + gemms, imported()),
        "cat-same-twice": (seed + seed, imported()),
        "crlf": (seed.replace("\n", "\r\n"), same),
        "cr-only": (seed.replace("\n", "\r"), imported()),
        "bom": ("\ufeff" + seed, same),
        "bom-after-preamble": (seed.replace('"ID"', '\ufeff"ID"', 1), imported()),
        "utf16": (seed.encode("utf-16"), refused),
        "nul-in-name": (seed.replace("saxpy", "sa\x00xpy"), imported()),
        "nul-block": (raw[:5000] + b"\x00" * 5000 + raw[5000:], imported()),
        "invalid-utf8-name": (raw.replace(b"saxpy", b"sa\xff\xfexpy"), imported()),
        "latin1-name": (raw.replace(b"vecadd", b"vec\xe9add"), imported()),
        "binary": (random.Random(1).randbytes(100000), refused),
        "semicolon": (seed.replace('","', '";"'), refused),
        "tab-separated": (seed.replace('","', '"\t"'), refused),
        "unbalanced-quote": (seed.replace('"vecadd"', '"vec"add', 1), imported()),
        "quote-never-closed": (seed[: len(seed) // 2] + '"unterminated', imported()),
        "row-split-by-newline": (seed.replace('"2","', '\n"2","', 1), imported()),
        "short-row-at-end": (seed + '"99","1746","seed000"\n', same),
        "long-row-at-end": (seed.rstrip("\n") + ',"extra","extra"\n', imported()),
        "print-summary": ('"ID","Kernel Name","Metric Name","Metric Unit","Minimum","Maximum","Average"\n'
                          '"0","vecadd","dram__bytes.sum","byte","1","2","1.5"\n', refused),
        "details-page": ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
                         '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n'
                         '"0","1","a","h","vecadd","1","7","(256, 1, 1)","(65536, 1, 1)","0","9.0",'
                         '"GPU Speed Of Light Throughput","Duration","nsecond","59,136"\n', refused),
        "json-as-csv": (m.raw("a.json"), refused),
        "html-as-csv": ("<html><body>hi</body></html>", refused),
        "only-prof-lines": ("==PROF== a\n==WARNING== b\n", refused),
        "5000-launches": ("".join(lines[: rows[1] + 1]) + "".join(lines[rows[2]:]) * 200, imported()),
        "1mb-unquoted-field": (seed + "x" * 1_000_000 + "\n", imported()),
    }
    for frac in (0.01, 0.1, 0.35, 0.5, 0.8, 0.999):
        v[f"cut-at-{frac}"] = (raw[: int(len(raw) * frac)], imported())
    v["cut-mid-row"] = (raw[: raw.index(b"\n", len(raw) // 2) + 40], imported())
    if not quick:
        v["200k-column-header"] = (Lazy(lambda: '"' + '","'.join(f"c{i}" for i in range(200000)) + '"\n'), refused)
        v["10mb-kernel-name"] = (Lazy(lambda: m.capture(lambda rs: rs[0].__setitem__(m.col("Kernel Name"), "k" * 10_000_000))),
                                 imported())
        v["64mb-line"] = (Lazy(lambda: raw + b'"' + b"A" * (64 << 20) + b'"\n'), imported())
    out = []
    keys = pick(sorted(v), quick, 16)
    for name in keys:
        data, check = v[name]
        out.append(imp(f"inputs/csv-{name}", data, check=check, timeout=60))
    for name in pick(["nul-in-name", "invalid-utf8-name", "binary", "crlf", "row-split-by-newline", "bom",
                      "cat-two-captures", "trailing-text"], quick, 2):
        data, check = v[name]
        out.append(imp(f"inputs/csv-{name}", data, check=check, stdin=True))
    return out


def columns(m, quick):
    """Columns dropped, duplicated or added; IDs and names odd."""
    h, u = m.header, m.units
    name_i, id_i = m.col("Kernel Name"), m.col("ID")
    out = []

    def case(label, header, units, rows, check=None):
        from material import write_capture
        out.append(imp(f"inputs/columns-{label}", write_capture(m.prefix, header, units, rows), check=check or imported()))

    drops = ["ID", "Kernel Name", "gpu__time_duration.sum", "dram__bytes.sum", "sm__cycles_elapsed.avg.per_second",
             "Process ID", "Device", "Block Size", "Grid Size", "CC", "launch__grid_size", "Context", "Stream"]
    for c in pick([d for d in drops if d in h], quick, 3):
        i = h.index(c)
        case(f"drop-{slug(c)}", h[:i] + h[i + 1:], u[:i] + u[i + 1:], [r[:i] + r[i + 1:] for r in m.rows],
             check=imported(refused=c == "Kernel Name"))
    if not quick:
        d = m.col("gpu__time_duration.sum")
        case("duplicate-duration", h + [h[d]], u + [u[d]], [r + ["1"] for r in m.rows])
        case("duplicate-kernel-name", h + ["Kernel Name"], u + [""], [r + ["other"] for r in m.rows])
        case("300-extra-columns", h + [f"extra__metric_{k}.sum" for k in range(300)], u + ["byte"] * 300,
             [r + [str(k) for k in range(300)] for r in m.rows])
        for label, fn in (("ids-all-zero", lambda j: "0"), ("ids-negative", lambda j: str(-j)),
                          ("ids-over-u64", lambda j: str(2 ** 64 + j)), ("ids-text", lambda j: "abc")):
            rows = [list(r) for r in m.rows]
            for j, r in enumerate(rows):
                r[id_i] = fn(j)
            case(label, h, u, rows)
        for label, names in (("names-empty", [""]), ("names-blank", ["   ", "\t"]),
                             ("names-odd", ["line1\nline2", 'a "quoted", name', "   ", "\t"])):
            rows = [list(r) for r in m.rows]
            for j, r in enumerate(rows):
                r[name_i] = names[j % len(names)]
            case(label, h, u, rows, check=imported(nameless_ok=True))
        rows = [list(r) for r in m.rows]
        rows[0], rows[1] = rows[0][:10], rows[1] + ["x"] * 20
        case("ragged-rows", h, u, rows)
    return out


def numbers(m, quick):
    out = []
    cols = [c for c in COLUMNS if c in m.header]
    for c in pick(cols, quick, 3):
        i = m.col(c)
        for v in pick(NUMBERS, quick, 5):
            for scope in (("all", "one") if not quick else ("all",)):
                def mut(rows, i=i, v=v, scope=scope):
                    for r in rows if scope == "all" else rows[:1]:
                        r[i] = v
                out.append(imp(f"inputs/number-{slug(c)}={slug(v, 12)}-{scope}", m.capture(mut)))
    # durations on one launch or on every launch of one kernel, aggregated and per launch: a point
    # far above its roof is always named by a warning
    d, name_i = m.col("gpu__time_duration.sum"), m.col("Kernel Name")

    def above_roof_named(run):
        if run.rc != 0:
            return []
        doc = load_json(run, "out.json") or {}
        high = [k.get("kernel", {}).get("name") for k in kernels_of(doc)
                if isinstance(k.get("pct_of_roof"), (int, float)) and k["pct_of_roof"] > 150]
        said = run.stderr + repr(doc.get("warnings", ""))
        if high and "above" not in said and "roof" not in said:
            return [f"{high[:3]} above 150% of their roof without a warning"]
        return []

    for v in pick(["0", "-1", "", "n/a", "nan", "inf", "5e-324", "1e308", "0.000001", "0.9", "-0"], quick, 3):
        for which in ("first", "kernel"):
            for pl in ((), ("--per-launch",)):
                def mut(rows, v=v, which=which):
                    target = rows[0][name_i]
                    for r in rows:
                        if r[name_i] == target:
                            for j, hh in enumerate(m.header):
                                if hh.startswith("gpu__time_duration."):
                                    r[j] = v
                            if which == "first":
                                break
                if quick and (which == "kernel" or pl):
                    continue
                out.append(imp(f"inputs/duration={slug(v, 10)}-{which}{'-per-launch' if pl else ''}", m.capture(mut),
                               extra=pl, check=above_roof_named))
    return out


def units(m, quick):
    out = []
    first_ns = kernels_of(m.doc("a.json"))[0]["kernel"]["duration_s"] * 1e9  # the seed's unit is nsecond
    for u in pick(TIME_UNITS, quick, 4):
        us = list(m.units)
        for j, hh in enumerate(m.header):
            if hh.startswith("gpu__time_duration."):
                us[j] = u

        def check(run, u=u):
            if run.rc != 0:
                return []
            ks = kernels_of(load_json(run, "out.json"))
            got = ks[0].get("kernel", {}).get("duration_s") if ks else None
            scale = TIME_UNITS[u]
            want = first_ns * scale if scale is not None else None
            if want is not None and isinstance(got, (int, float)) and abs(got - want) <= 1e-6 * want:
                return []
            if u.strip() and u.strip() in run.stderr:
                return []
            return [f"time unit {u!r} read as {got} s without naming the unit"]
        out.append(imp(f"inputs/time-unit-{slug(u, 12)}", m.capture(units=us), check=check))
    for col, vals, ok in (("dram__bytes.sum", BYTE_UNITS, BYTE_UNITS_OK),
                          ("sm__cycles_elapsed.avg.per_second", CLOCK_UNITS, CLOCK_UNITS_OK)):
        j = m.col(col)
        for u in pick(vals, quick, 3):
            us = list(m.units)
            us[j] = u
            check = (lambda run, u=u, ok=ok: [] if run.rc != 0 or u in ok or f"{u}" in run.stderr
                     else [f"unit {u!r} on {col} accepted without naming it"])
            out.append(imp(f"inputs/unit-{slug(col, 20)}-{slug(u, 12)}", m.capture(units=us), check=check))
    out.append(imp("inputs/no-units-row", m.capture(units_row=False)))
    return out


def fields(m, quick):
    out = []
    for col, v in [("Block Size", "(0, 0, 0)"), ("Block Size", "(-1, 1, 1)"), ("Block Size", "(99999999999, 1, 1)"),
                   ("Block Size", "((((("), ("Grid Size", "(0, 1, 1)"), ("Grid Size", "(18446744073709551615, 1, 1)"),
                   ("Grid Size", "garbage"), ("Device", "-1"), ("Device", "99999999999999999999"), ("CC", "999.9"),
                   ("CC", "abc"), ("ID", "-5"), ("ID", "99999999999999999999999"), ("Process ID", "x"),
                   ("Stream", "-1"), ("Context", "")]:
        if col not in m.header:
            continue
        i = m.col(col)
        out.append(imp(f"inputs/field-{slug(col)}={slug(v, 20)}",
                       m.capture(lambda rows, i=i, v=v: [r.__setitem__(i, v) for r in rows])))
    return pick(out, quick, 3)


def real(m, quick):
    """Every capture of the repository through the options of `import`."""
    out = []
    opts = [(), ("--per-launch",), ("--bytes", "nersc"), ("--view", "auto"), ("--view", "instructions"),
            ("--gpu", "t4"), ("--machine", "{M}/m.json"), ("--peak", "1 GFLOP/s", "--bandwidth", "1 GB/s")]
    for cap in pick(m.real_captures, quick, 3):
        for o in pick(opts, quick, 2):
            name = f"inputs/real-{slug(cap.rsplit('/', 1)[1], 40)}-{slug('_'.join(o) or 'plain', 30)}"
            out.append(Case(name, args=["import", cap, "-q", "-o", "out.json", *o], outputs=("out.json",),
                            expect=E02, check=imported(nameless_ok=True), timeout=60))
    for f in pick(m.not_raw, quick, 1):
        out.append(Case(f"inputs/not-raw-{slug(f.rsplit('/', 1)[1])}", args=["import", f, "-q", "-o", "out.json"],
                        outputs=("out.json",), expect=E12, timeout=60))
    return out


SPECIAL = {  # name -> (path given, files of the case)
    "dev-zero": ("/dev/zero", {}), "dev-urandom": ("/dev/urandom", {}), "dev-null": ("/dev/null", {}),
    "dev-full": ("/dev/full", {}), "proc-status": ("/proc/self/status", {}), "proc-mem": ("/proc/self/mem", {}),
    "root-folder": ("/", {}), "this-folder": (".", {}), "missing": ("nope.csv", {}),
    "a-folder": ("d.json", {"d.json": Dir()}), "dangling-link": ("dl.json", {"dl.json": Link("nowhere/x.json")}),
    "link-loop": ("l1.json", {"l1.json": Link("l2.json"), "l2.json": Link("l1.json")}),
    "empty-file": ("empty.json", {"empty.json": b""}), "empty-name": ("", {}),
    "binary": ("bin.json", {"bin.json": random.Random(2).randbytes(100000)}),
    "huge-line": ("huge.json", {"huge.json": Lazy(lambda: b'"ID","Kernel Name"\n"0","' + b"k" * (50 << 20) + b'"\n')}),
    "html": ("r.html", {"r.html": "<html></html>"}),
}

READERS = {  # name -> argv with X for the input
    "import": ["import", "X"], "report": ["report", "X"], "check": ["check", "X", "--min-pct-of-roof", "1"],
    "diff": ["diff", "{M}/a.json", "X"], "merge": ["merge", "{M}/a.json", "X"], "model-toml": ["model", "X"],
    "model-machine": ["model", "--machine", "X", "-k", "k: flops=1 bytes=1"],
    "import-machine": ["import", "{M}/seed.csv", "--machine", "X"],
    "baseline": ["check", "{M}/a.json", "--baseline", "X", "--max-regression", "5"],
    "config": ["check", "{M}/a.json", "--config", "X"],
}


def special(m, quick):
    out = []
    specials = dict(SPECIAL)
    specials["gzip"] = ("tl.json.gz", {"tl.json.gz": Copy("tests/fixtures/timeline/train_gpt_h200.timeline.json.gz")})
    if not quick:
        specials["sparse-20g"] = ("sparse.json", {"sparse.json": Sparse(20 << 30, b"{")})
        specials["deep-array"] = ("deep.json", {"deep.json": Lazy(lambda: b"[" * 1_000_000 + b"]" * 1_000_000)})
        specials["deep-object"] = ("deepo.json", {"deepo.json": Lazy(lambda: b'{"a":' * 200_000 + b"1" + b"}" * 200_000)})
    for sname in pick(sorted(specials), quick, 5):
        path, files = specials[sname]
        for rname in pick(sorted(READERS), quick, 3):
            argv = [path if a == "X" else a for a in READERS[rname]]
            out.append(Case(f"inputs/special-{sname}-{rname}", args=argv + ["-q"], files=files, expect=E2,
                            timeout=20 if "sparse" not in sname else 60, mem_mb=512))
    out += [
        Case("inputs/special-fifo-with-writer", shell='(cat "$M/seed.csv" > f.csv &); exec "$B" import f.csv -q -o out.json',
             files={"f.csv": Fifo()}, expect=E0, outputs=("out.json",), must_write=("out.json",)),
        Case("inputs/special-dev-stdin-pipe", args=["import", "/dev/stdin", "-q", "-o", "out.json"], stdin=m.raw("seed.csv"),
             expect=E0, outputs=("out.json",), must_write=("out.json",)),
        Case("inputs/special-dash-stdin-empty", args=["import", "-", "-q"], stdin=b"", expect=E2),
        Case("inputs/special-unreadable-as-nobody", shell='setpriv --reuid=65534 --regid=65534 --clear-groups "$B" import secret.csv -q',
             files={"secret.csv": File(m.raw("seed.csv"), mode=0o600)}, expect=E2, needs=("root", "setpriv"),
             stderr_has=("secret.csv",)),
    ]
    if not quick:
        out += [
            Case("inputs/stream-dev-zero-stdin", shell='exec "$B" import - -q < /dev/zero', expect=E2, mem_mb=512, timeout=60),
            Case("inputs/stream-300mb-no-newline", shell="head -c 300000000 /dev/zero | tr '\\0' a | \"$B\" import /dev/stdin -q",
                 expect=E2, mem_mb=512, timeout=90),
            Case("inputs/stream-50mb-of-newlines", shell="head -c 50000000 /dev/zero | tr '\\0' '\\n' | \"$B\" import - -q",
                 expect=E2, mem_mb=512, timeout=90),
            Case("inputs/stream-slow-pipe", shell='(head -c 20000 "$M/seed.csv"; sleep 2; tail -c +20001 "$M/seed.csv") | '
                 '"$B" import - -q -o out.json', expect=E0, outputs=("out.json",), must_write=("out.json",)),
        ]
    return out


def cases(m, quick):
    return structure(m, quick) + columns(m, quick) + numbers(m, quick) + units(m, quick) + fields(m, quick) \
        + real(m, quick) + special(m, quick)
