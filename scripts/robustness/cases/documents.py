"""Documents (analysis, per-launch, model, merged, machine, timeline JSON;
TOML configs and model files) damaged in their structure, their types and
their numbers, given to every reader: exit 0 with a result or exit 2, never
a panic, a hang or unbounded memory."""

import json
import random

from harness import Case, Lazy
from ._util import ANY, E02, E2, pick, slug

NAME = "documents"
ABOUT = "JSON documents and TOML files damaged in structure, types and numbers, to every reader"

# readers of a document X
ANALYSIS_READERS = {
    "report": ["report", "X", "--format", "json"], "report-html": ["report", "X", "-o", "r.html"],
    "report-chart": ["report", "X", "--format", "chart"], "report-svg": ["report", "X", "-o", "r.svg"],
    "check": ["check", "X", "--min-pct-of-roof", "1"],
    "baseline": ["check", "{M}/a.json", "--baseline", "X", "--max-regression", "10"],
    "diff": ["diff", "X", "{M}/a.json", "-o", "d.html"], "diff-self": ["diff", "X", "X", "--format", "csv"],
    "merge": ["merge", "X", "{M}/b.json", "--format", "json"],
}
MACHINE_READERS = {
    "report": ["report", "X", "--format", "json"], "report-chart": ["report", "X", "--format", "chart"],
    "model-machine": ["model", "--machine", "X", "-k", "k: flops=100 bytes=1 time=1us", "--format", "json"],
    "import-machine": ["import", "{M}/seed.csv", "--machine", "X", "-o", "i.json"],
    "merge-machine": ["merge", "{M}/r0.json", "{M}/r1.json", "--machine", "X"],
}
OTHER_READERS = {  # merged and timeline documents
    "report": ["report", "X", "--format", "json"], "report-html": ["report", "X", "-o", "r.html"],
    "merge": ["merge", "X", "--format", "json"], "merge-md": ["merge", "X", "{M}/r1.json", "--format", "markdown"],
    "check": ["check", "X", "--min-pct-of-roof", "10"],
}
OUTPUTS = ("r.html", "r.svg", "d.html", "i.json")


def doc_case(cid, data, argv, expect=ANY, timeout=30):
    return Case(cid, args=[("in.json" if a == "X" else a) for a in argv] + ["-q"], files={"in.json": data},
                expect=expect, outputs=OUTPUTS, timeout=timeout, mem_mb=1024)


def structural(raw):
    """Damage to the bytes of a document."""
    out = {}
    for frac in (0, 1, 10, 50, 90, 99):
        out[f"cut{frac}"] = raw[: len(raw) * frac // 100]
    out["cut-last-byte"] = raw.rstrip()[:-1]
    out["trailing-garbage"] = raw + b"xyz"
    out["two-documents"] = raw + b"\n" + raw
    out["bom"] = b"\xef\xbb\xbf" + raw
    out["utf16"] = raw.decode().encode("utf-16")
    out["nested-arrays-200k"] = b"[" * 200000 + b"]" * 200000
    out["nested-objects-100k"] = b'{"a":' * 100000 + b"1" + b"}" * 100000
    out["nul-in-key"] = raw.replace(b'"schema"', b'"sch\x00ema"', 1)
    out["wrapped-in-array"] = b"[" + raw + b"]"
    out["a-string"] = b'"roofline.analysis/v2"'
    out["a-number"] = b"1e999"
    out["null"] = b"null"
    out["empty"] = b""
    out["whitespace"] = b"   \n\t"
    out["comment-first"] = b"// hi\n" + raw
    out["schema-twice"] = raw.replace(b"{", b'{"schema": "roofline.machine/v2", ', 1)
    out["reversed-keys"] = json.dumps(dict(reversed(list(json.loads(raw).items())))).encode()
    out["nan-literal"] = raw.replace(b": 0,", b": NaN,", 3)
    out["infinity-literal"] = raw.replace(b": 0,", b": Infinity,", 3)
    out["1e999-literal"] = raw.replace(b": 0,", b": 1e999,", 3)
    out["100k-digit-number"] = raw.replace(b": 0,", b": 1" + b"0" * 100000 + b",", 1)
    out["lone-surrogate"] = raw.replace(b'"name": "', b'"name": "\\ud800', 1)
    out["invalid-utf8"] = raw.replace(b'"name": "', b'"name": "\xff\xfe', 1)
    out["random-bytes"] = random.Random(3).randbytes(5000)
    return out


def big_string():
    return b'{"schema": "roofline.analysis/v2", "x": "' + b"a" * (200 << 20) + b'"}'


def setp(doc, path, value):
    d = json.loads(json.dumps(doc))
    o = d
    for k in path[:-1]:
        o = o[k]
    if value is DELETE:
        if isinstance(o, list):
            return None
        del o[path[-1]]
    else:
        o[path[-1]] = "__ROBUSTNESS_MARK__"
    text = json.dumps(d)
    return text if value is DELETE else text.replace('"__ROBUSTNESS_MARK__"', value)


DELETE = object()


def leaves(o, path=(), numbers=True, depth=0):
    if isinstance(o, dict):
        for k, v in o.items():
            yield from leaves(v, path + (k,), numbers, depth + 1)
    elif isinstance(o, list):
        if o:
            yield from leaves(o[0], path + (0,), numbers, depth + 1)
    elif numbers and isinstance(o, (int, float)) and not isinstance(o, bool):
        yield path
    elif not numbers and isinstance(o, str):
        yield path


def paths(o, path=(), depth=0):
    """Every key path (and the first element of every list), to change its type."""
    if depth > 6:
        return
    if isinstance(o, dict):
        for k, v in o.items():
            yield path + (k,)
            yield from paths(v, path + (k,), depth + 1)
    elif isinstance(o, list) and o:
        yield path + (0,)
        yield from paths(o[0], path + (0,), depth + 1)


def semantic(a):
    """The analysis changed in meaning: wrong schema, kinds, rates, durations, names."""
    def setk(key, val, first=False):
        def f(d):
            for k in d["kernels"][:1] if first else d["kernels"]:
                cur = k
                parts = key.split(".")
                for p in parts[:-1]:
                    cur = cur[p]
                cur[parts[-1]] = val
        return f

    def ceilings(key, val):
        def f(d):
            for c in d["machine"]["ceilings"]:
                c[key] = val
        return f

    def gpu(key, val):
        def f(d):
            d["machine"]["gpu"][key] = val
        return f

    muts = {
        "empty-object": lambda d: {}, "no-schema": lambda d: {k: v for k, v in d.items() if k != "schema"},
        "schema-last": lambda d: {**{k: v for k, v in d.items() if k != "schema"}, "schema": d["schema"]},
        "schema-v1": lambda d: {**d, "schema": "roofline.analysis/v1"}, "schema-v999": lambda d: {**d, "schema": "roofline.analysis/v999"},
        "schema-int": lambda d: {**d, "schema": 2}, "schema-machine": lambda d: {**d, "schema": "roofline.machine/v2"},
        "schema-timeline": lambda d: {**d, "schema": "roofline.timeline/v1"}, "schema-merged": lambda d: {**d, "schema": "roofline.merged/v1"},
        "no-kernels": lambda d: {k: v for k, v in d.items() if k != "kernels"}, "kernels-empty": lambda d: {**d, "kernels": []},
        "kernels-object": lambda d: {**d, "kernels": {}}, "kernels-null": lambda d: {**d, "kernels": None},
        "kernel-null": lambda d: {**d, "kernels": [None]}, "kernel-string": lambda d: {**d, "kernels": ["x"]},
        "no-machine": lambda d: {k: v for k, v in d.items() if k != "machine"}, "machine-null": lambda d: {**d, "machine": None},
        "ceilings-empty": lambda d: {**d, "machine": {**d["machine"], "ceilings": []}},
        "ceilings-x50": lambda d: {**d, "machine": {**d["machine"], "ceilings": d["machine"]["ceilings"] * 50}},
        "rate-0": ceilings("rate", 0), "rate-negative": ceilings("rate", -1), "rate-1e308": ceilings("rate", 1e308),
        "rate-subnormal": ceilings("rate", 5e-324), "rate-string": ceilings("rate", "1e12"),
        "resource-unknown": ceilings("resource", {"type": "compute", "which": "fp7"}),
        "sms-0": gpu("sms", 0), "sms-2^40": gpu("sms", 2 ** 40), "clock-0": gpu("sm_clock_mhz", 0), "clock-negative": gpu("sm_clock_mhz", -5),
        "duration-0": setk("kernel.duration_s", 0), "duration-negative": setk("kernel.duration_s", -1),
        "duration-null": setk("kernel.duration_s", None), "duration-1e308": setk("kernel.duration_s", 1e308),
        "duration-subnormal": setk("kernel.duration_s", 5e-324), "duration-string": setk("kernel.duration_s", "1ms"),
        "duration-minus-zero": setk("kernel.duration_s", -0.0),
        "flops-1e308": setk("kernel.flops", {"fp32": 1e308}), "flops-negative": setk("kernel.flops", {"fp32": -1e9}),
        "flops-unknown-kind": setk("kernel.flops", {"fp128": 1e9}), "bytes-0": setk("kernel.bytes", {"dram": 0}),
        "bytes-1e308": setk("kernel.bytes", {"dram": 1e308, "l2": 1e308, "l1": 1e308}), "bytes-empty": setk("kernel.bytes", {}),
        "launches-0": setk("kernel.launches", 0), "launches-negative": setk("kernel.launches", -5),
        "launches-u64max": setk("kernel.launches", 18446744073709551615), "launches-over-u64": setk("kernel.launches", 18446744073709551616),
        "launches-float": setk("kernel.launches", 1.5), "pct-1e308": setk("pct_of_roof", 1e308), "pct-negative": setk("pct_of_roof", -50),
        "share-2": setk("time_share", 2.0), "share-negative": setk("time_share", -1.0),
        "names-all-same": setk("kernel.name", "same"), "ids-all-same": setk("kernel.id", "k000000"),
        "name-empty": setk("kernel.name", ""), "name-5mb": setk("kernel.name", "n" * 5_000_000, first=True),
        "name-nul": setk("kernel.name", "a\u0000b"), "name-int": setk("kernel.name", 5),
        "levels-empty": setk("levels", []), "levels-unknown": setk("levels", [{"level": "l7", "bytes": 1}]),
        "diagnosis-null": setk("diagnosis", None),
        "diagnosis-unknown": setk("diagnosis", {"position": "sideways", "evidence": [{"code": "nope"}]}),
        "evidence-1e308": setk("kernel.evidence.waves", 1e308), "limiter-unknown": setk("limiter", {"type": "bandwidth", "which": "hbm9"}),
        "warnings-10k": lambda d: {**d, "warnings": ["w" * 1000] * 10000}, "program-unknown": lambda d: {**d, "program": {"x": 1}},
        "extra-keys": lambda d: {**d, "zzz": [1] * 1000, "kernels": [{**k, "zzz": 1} for k in d["kernels"]]},
        "kernels-x1000": lambda d: {**d, "kernels": d["kernels"] * 1000},
        "rank-hostile": lambda d: {**d, "rank": {"rank": -1, "world_size": 0}},
    }
    out = {}
    for name, f in muts.items():
        d = json.loads(json.dumps(a))
        r = f(d)
        out[name] = json.dumps(d if r is None else r)
    return out


def cases(m, quick):
    out = []
    a = m.doc("a.json")
    docs = {"analysis": ("a.json", ANALYSIS_READERS), "per-launch": ("pl.json", ANALYSIS_READERS),
            "model": ("model.json", ANALYSIS_READERS), "machine": ("m.json", MACHINE_READERS),
            "measured-machine": ("measured.json", MACHINE_READERS), "merged": ("mg.json", OTHER_READERS),
            "merged-timelines": ("tmg.json", OTHER_READERS), "timeline": ("t.json", OTHER_READERS)}
    # 1. structure: every document, every damage, each reader in turn (the analysis: every reader)
    rnd = random.Random(24)
    for kind, (fname, readers) in pick(docs.items(), quick, 3):
        damage = structural(m.raw(fname))
        for i, (dname, data) in enumerate(pick(sorted(damage.items()), quick, 6)):
            names = sorted(readers) if kind == "analysis" and not quick else [sorted(readers)[i % len(readers)]]
            for rname in names:
                out.append(doc_case(f"documents/{kind}-{dname}-{rname}", data, readers[rname]))
    if not quick:
        for rname in ("report", "check", "merge"):
            out.append(doc_case(f"documents/analysis-200mb-string-{rname}", Lazy(big_string), ANALYSIS_READERS[rname],
                                timeout=60))
    # 2. meaning: the analysis changed, through four readers each
    for i, (name, text) in enumerate(pick(sorted(semantic(a).items()), quick, 8)):
        for rname in (("report-chart", "check", "diff", "merge") if not quick else (["report-chart", "check", "diff", "merge"][i % 4],)):
            out.append(doc_case(f"documents/meaning-{name}-{rname}", text, ANALYSIS_READERS[rname]))
    # 3. every number of the analysis set to an extreme, one reader each (in turn)
    values = ["0", "-0.0", "5e-324", "1e308", "-1", "1e999", "18446744073709551616", "NaN", "null", '"x"']
    nreaders = ["report-html", "report-chart", "baseline", "diff", "check"]
    k = 0
    for j, path in enumerate(pick(list(leaves(a)), quick, 6)):
        for v in (values[(j + i) % len(values)] for i in range(5 if not quick else 2)):
            text = setp(a, path, v)
            rname = nreaders[k % len(nreaders)]
            k += 1
            out.append(doc_case(f"documents/number-{slug('.'.join(map(str, path)), 60)}={slug(v, 8)}-{rname}", text,
                                ANALYSIS_READERS[rname]))
    # 4. strings of the analysis set to markup, escapes, a number, null
    strs = list(leaves(a, numbers=False))
    rnd.shuffle(strs)
    for path in pick(strs[:40], quick, 3):
        for v in pick(['"<!--"', '"</script>"', '"\\u0000\\u001b[2J"', "123", "null"], quick, 2):
            rname = ["report-html", "check", "diff"][k % 3]
            k += 1
            out.append(doc_case(f"documents/string-{slug('.'.join(map(str, path)), 60)}={slug(v, 8)}-{rname}",
                                setp(a, path, v), ANALYSIS_READERS[rname]))
    # 5. the other documents: a field of each path given another type, or deleted
    for kind in ("machine", "merged", "timeline", "merged-timelines"):
        fname, readers = docs[kind]
        d = m.doc(fname)
        ps = list(paths(d))
        rnd.shuffle(ps)
        kinds = ["null", "[]", "{}", '"x"', "-1", "1e308", "true", DELETE]
        for j, path in enumerate(pick(ps[:40], quick, 3)):
            for v in (kinds[(j + i) % len(kinds)] for i in range(3 if not quick else 2)):
                text = setp(d, path, v)
                if text is None:
                    continue
                rname = sorted(readers)[(j + k) % len(readers)]
                k += 1
                vname = "deleted" if v is DELETE else slug(v, 8)
                out.append(doc_case(f"documents/{kind}-field-{slug('.'.join(map(str, path)), 50)}={vname}-{rname}",
                                    text, readers[rname]))
    out += toml_cases(m, quick)
    return out


CHECK_CONFIGS = {  # name -> (TOML, may pass)
    "empty": ("", True), "unknown-key": ("min_pct = 5\n", False), "wrong-type": ('min_pct_of_roof = "fifty"\n', False),
    "nan": ("min_pct_of_roof = nan\n", False), "inf": ("min_pct_of_roof = inf\n", False),
    "minus-inf": ("min_pct_of_roof = -inf\n", False), "negative": ("min_pct_of_roof = -5\n", False),
    "1e400": ("min_pct_of_roof = 1e400\n", False), "huge-int": ("min_pct_of_roof = 99999999999999999999\n", False),
    "binary": ("\x00\x01\x02\xff", False), "nul": ("\x00", False), "bom": ("\ufeffmin_pct_of_roof = 1\n", True),
    "baseline-missing": ('baseline = "nope.json"\nmax_regression_pct = 10\n', False),
    "baseline-dev-zero": ('baseline = "/dev/zero"\nmax_regression_pct = 10\n', False),
    "baseline-itself": ('baseline = "c.toml"\nmax_regression_pct = 10\n', False),
    "baseline-root": ('baseline = "/"\nmax_regression_pct = 10\n', False),
    "max-regression-nan": ('baseline = "{M}/a.json"\nmax_regression_pct = nan\n', False),
    "kernel-no-name": ("[[kernel]]\nmin_pct_of_roof = 5\n", False), "kernel-name-int": ("[[kernel]]\nname = 5\n", False),
    "kernel-bad-time": ('[[kernel]]\nname = "vecadd"\nmax_time = "fast"\n', False),
    "kernel-time-negative": ('[[kernel]]\nname = "vecadd"\nmax_time = "-1 ms"\n', False),
    "kernel-time-nan": ('[[kernel]]\nname = "vecadd"\nmax_time = "nan ms"\n', False),
    "kernel-time-1e400": ('[[kernel]]\nname = "vecadd"\nmax_time = "1e400 s"\n', False),
    "kernel-time-parsec": ('[[kernel]]\nname = "vecadd"\nmax_time = "1 parsec"\n', False),
    "kernel-name-like-a-regex": ("[[kernel]]\nname='regex:((((('\nmin_pct_of_roof=1\n", True),
    "kernel-twice-200": ('[[kernel]]\nname = "vecadd"\n[[kernel]]\nname = "vecadd"\nmin_pct_of_roof = 200\n', False),
    "deep-arrays": ("a = " + "[" * 10000 + "]" * 10000 + "\n", False), "open-brackets": ("[" * 10000, False),
    "10k-tables": ("[[kernel]]\n" * 10000, False), "duplicate-key": ("min_pct_of_roof = 5\nmin_pct_of_roof = 6\n", False),
}
MODEL_TOMLS = {  # name -> (TOML, may pass)
    "empty": ("", False), "kernel-empty": ("[[kernel]]\n", False), "binary": ("\x00\x01\x02", False),
    "deep": ("a = " + "[" * 10000 + "]" * 10000, False), "dup-key": ('[[kernel]]\nname="a"\nflops=1\nflops=2\nbytes=1', False),
    "nan": ('[[kernel]]\nname="a"\nflops=nan\nbytes=1', False), "inf": ('[[kernel]]\nname="a"\nflops=inf\nbytes=1', False),
    "negative": ('[[kernel]]\nname="a"\nflops=-1\nbytes=1', False), "zero": ('[[kernel]]\nname="a"\nflops=0\nbytes=0', True),
    "1e400": ("[[kernel]]\nname='a'\nflops=1e400\nbytes=1\n", False),
    "extremes": ('[[kernel]]\nname="a"\nflops=1e308\nbytes=1e-308\nelements=1e308\ntime="1 ns"', True),
    "subnormal": ('[[kernel]]\nname="a"\nflops=5e-324\nbytes=5e-324', True),
    "elements-negative": ('[[kernel]]\nname="a"\nflops=1\nbytes=1\nelements=-5', False),
    "time-0": ('[[kernel]]\nname="a"\nflops=1\nbytes=1\ntime="0 s"', True),
    "time-negative": ('[[kernel]]\nname="a"\nflops=1\nbytes=1\ntime="-1 ms"', False),
    "bigint": ("[[kernel]]\nname='k'\nflops=99999999999999999999999\nbytes=1\n", True),
    "wrong-types": ("[[kernel]]\nname=1\nflops='x'\nbytes=[]\n", False),
    "name-twice": ("[[kernel]]\nname='a'\nname='b'\nflops=1\nbytes=1\n", False),
    "name-control": ("[[kernel]]\nname='\u202e\u0000x'\nflops=1\nbytes=1\n", True),
    "unknown-gpu": ('[machine]\ngpu="h900"\n[[kernel]]\nname="a"\nflops=1\nbytes=1', False),
    "peak-zero": ('[machine]\npeak="0 FLOP/s"\nbandwidth="0 GB/s"\n[[kernel]]\nname="a"\nflops=1\nbytes=1', False),
    "peak-nan": ("[machine]\npeak='NaN GFLOP/s'\nbandwidth='1 GB/s'\n[[kernel]]\nname='a'\nflops=1\nbytes=1\n", False),
    "same-name-twice": ("[[kernel]]\nname='a'\nflops=1\nbytes=1\n[[kernel]]\nname='a'\nflops=2\nbytes=1\n", True),
    "20k-inline": ("kernel=[" + ",".join(["{name='k',flops=1,bytes=1}"] * 20000) + "]", True),
    "100k-kernels": ("".join(f"[[kernel]]\nname='k{i}'\nflops={i + 1}\nbytes={i + 1}\ntime='{i + 1}us'\n" for i in range(100000)), True),
    "100kb-garbage": ("x" * 100000, False),
}


def toml_cases(m, quick):
    out = []
    for name, (text, may_pass) in pick(sorted(CHECK_CONFIGS.items()), quick, 5):
        out.append(Case(f"documents/check-config-{name}", args=["check", "{M}/a.json", "--config", "c.toml", "-q"],
                        files={"c.toml": text.replace("{M}", m.dir)}, expect=ANY if may_pass else E2, timeout=30))
    for name, (text, may_pass) in pick(sorted(MODEL_TOMLS.items()), quick, 5):
        for fmt in (("json", "chart") if not quick else ("json",)):
            if name == "100k-kernels" and fmt == "chart":
                continue
            out.append(Case(f"documents/model-toml-{name}-{fmt}",
                            args=["model", "m.toml", "--gpu", "h200", "--format", fmt, "-q"], files={"m.toml": text},
                            expect=E02 if may_pass else E2, timeout=120))
    return out
