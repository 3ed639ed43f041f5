#!/usr/bin/env python3
"""Hostile test driver for roofline. Usage: python3 driver.py [category ...]"""
import csv, io, json, os, re, subprocess, sys, random, gzip, shutil, math, hashlib, copy, stat
from concurrent.futures import ThreadPoolExecutor

R = "/tmp/roofline-adv"
W = "/tmp/adv/work"
S = "/tmp/adv/seeds"
os.makedirs(W, exist_ok=True)
random.seed(1234)
COUNTS = {}
FINDINGS = []  # (category, case, problem, cmd, rc, err-snippet)
ANSI = re.compile(r"\x1b\[")
BADNUM = re.compile(r"(?<![A-Za-z_])(NaN|nan|-?inf|-?Infinity|inf%)(?![A-Za-z_])")

def sh(args):
    return " ".join("'" + a.replace("'", "'\\''") + "'" if re.search(r"[^\w./=:,+-]", a) else a for a in args)

def run(args, stdin=None, env=None, cwd=W, timeout=20):
    e = dict(os.environ); e.pop("NO_COLOR", None); e["TERM"] = "xterm-256color"
    if env: e.update(env)
    try:
        args = [a.replace("\x00", "\\0") for a in args]
        p = subprocess.run(["nice", "-n", "10", R] + args, input=stdin, capture_output=True,
                           env=e, cwd=cwd, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, False
    except subprocess.TimeoutExpired as ex:
        return None, ex.stdout or b"", ex.stderr or b"", True

def finding(cat, case, problem, args, rc, err):
    FINDINGS.append(dict(cat=cat, case=case, problem=problem, cmd="roofline " + sh(args), rc=rc,
                         err=err.decode("utf-8", "replace")[-600:]))

def generic(cat, case, args, rc, out, err, timed, input_name=None, ofile=None, expect=None):
    COUNTS[cat] = COUNTS.get(cat, 0) + 1
    if timed:
        finding(cat, case, "timeout/hang (>20s)", args, rc, err); return
    if rc is None or rc < 0 or rc not in (0, 1, 2):
        finding(cat, case, f"bad exit status {rc}", args, rc, err)
    es = err.decode("utf-8", "replace"); os_ = out.decode("utf-8", "replace")
    if "panicked" in es or "RUST_BACKTRACE" in es or "stack overflow" in es:
        finding(cat, case, "panic", args, rc, err)
    if ANSI.search(es) or ANSI.search(os_):
        finding(cat, case, "ANSI colour on non-terminal", args, rc, err)
    lines = [l for l in es.splitlines() if l.strip() and (l.startswith("error") or l.startswith("warning"))]
    dup = {l for l in lines if lines.count(l) > 1}
    if dup:
        finding(cat, case, "duplicate message: " + list(dup)[0][:150], args, rc, err)
    if rc == 2 and input_name is not None and input_name not in es:
        finding(cat, case, "exit-2 message does not name the input", args, rc, err)
    if rc == 2 and not es.strip():
        finding(cat, case, "exit 2 with no message", args, rc, err)
    if rc == 0 and os_:
        m = BADNUM.search(os_)
        if m:
            finding(cat, case, f"non-finite number on stdout: {os_[max(0,m.start()-80):m.end()+20]!r}", args, rc, err)
    if expect is not None and rc not in expect:
        finding(cat, case, f"exit {rc}, expected {expect}", args, rc, err)
    if ofile and rc != 0 and os.path.exists(ofile) and not os.path.islink(ofile):
        finding(cat, case, "-o file written although the command failed", args, rc, err)

def pool(jobs):
    with ThreadPoolExecutor(2) as ex:
        return list(ex.map(lambda f: f(), jobs))

# ---------------------------------------------------------------- CSV seeds
def load_csv(path):
    text = open(path, encoding="utf-8").read()
    lines = text.splitlines(keepends=True)
    i = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
    rows = list(csv.reader(io.StringIO("".join(lines[i:]))))
    return "".join(lines[:i]), rows[0], rows[1], rows[2:]

def dump_csv(pre, h, u, rows, lineterm="\n"):
    b = io.StringIO(); w = csv.writer(b, quoting=csv.QUOTE_ALL, lineterminator=lineterm)
    w.writerow(h); 
    if u is not None: w.writerow(u)
    for r in rows: w.writerow(r)
    return pre + b.getvalue()

CSV_SEEDS = ["ncu/h200_seed000_metrics.csv", "ncu/h200_seed000_profile.csv", "ncu/h200_gemms_metrics.csv",
             "ncu/h200_seed000_scaled_units.csv", "ncu/h200_probe_add_copy.csv", "ncu/h200_seed000_exit3.csv",
             "ncu/h200_gemms_full.csv", "ncu/h200_seed000_full.csv"]

def col_idx(h, name):
    return [i for i, c in enumerate(h) if c == name]

def set_col(h, rows, name, val, ri=None):
    for i in col_idx(h, name):
        for j, r in enumerate(rows):
            if ri is None or j == ri:
                r[i] = val(r[i]) if callable(val) else val

NUM_COLS = ["gpu__time_duration.sum", "dram__bytes.sum", "sm__cycles_elapsed.avg.per_second",
            "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "lts__lts2xbar_cycles_active.sum",
            "l1tex__lsu_writeback_active_mem_lgds.sum", "launch__registers_per_thread", "launch__block_size",
            "launch__grid_size", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
            "dram__cycles_elapsed.avg.per_second", "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
            "launch__sm_count", "sm__warps_active.avg.pct_of_peak_sustained_active"]
HOSTILE = ["NaN", "nan", "inf", "-inf", "Infinity", "-1", "0", "-0", "1e308", "1e400", "1e-400", "", "n/a",
           "1.5.3", "0x10", "+5", " 5 ", "5e", "1,5", "1.234,5", "١٢٣", "5\u00a0000", "9" * 400,
           "18446744073709551616", "-9223372036854775809", "1_000", "true", "(1,2,3)"]

def name_variants():
    return {
        "long10k": "k" * 10000, "long1M": "x" * 1_000_000, "nul": "ker\x00nel", "esc": "ker\x1b[31mred\x1b[0m",
        "bidi": "safe\u202eevil\u202c", "rlo_isolate": "a\u2066b\u2069", "newline": "line1\nline2",
        "cr": "a\rb", "tab": "a\tb", "nested": "f" + "<" * 3000 + "int" + ">" * 3000,
        "unbalanced": "f<<<<(((", "quote": 'a"b\'c', "html": "<script>alert(1)</script>", "md": "a|b|`c`*d*",
        "empty": "", "spaces": "   ", "emoji": "k\U0001F600", "zwj": "a\u200db", "surrogate_like": "a\ufffdb",
        "csvinj": "=cmd|' /C calc'!A0", "backspace": "ab\x08\x08cd", "del": "a\x7fb", "c1": "a\x9bb",
        "paren_nest": "void f(" * 2000 + ")" * 2000, "svg": "]]></text><script>x</script>",
    }

def csv_cases():
    cases = []  # (name, bytes, kind) kind: 'bad' expect 2, 'any'
    for seed in CSV_SEEDS:
        p = os.path.join(S, seed)
        raw = open(p, "rb").read()
        pre, h, u, rows = load_csv(p)
        sn = os.path.basename(seed).replace(".csv", "")
        def add(n, data, kind="any"):
            cases.append((f"{sn}:{n}", data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"), kind))
        add("orig", raw, "ok")
        add("empty", b"", "bad"); add("noise_only", pre, "bad")
        add("header_only", dump_csv(pre, h, None, []), "bad"); add("header_units", dump_csv(pre, h, u, []), "bad")
        for frac in (0.1, 0.3, 0.5, 0.7, 0.9, 0.97, 0.999):
            add(f"trunc{frac}", raw[: int(len(raw) * frac)])
        for k in range(6):
            b = bytearray(raw); 
            for _ in range(20): b[random.randrange(len(b))] = random.randrange(256)
            add(f"garble{k}", bytes(b))
        add("no_units", dump_csv(pre, h, None, rows))
        add("crlf", dump_csv(pre, h, u, rows, "\r\n")); add("cr_only", dump_csv(pre, h, u, rows, "\r"))
        add("bom", b"\xef\xbb\xbf" + raw); add("utf16", raw.decode().encode("utf-16"), "bad")
        add("utf16be", raw.decode().encode("utf-16-be"), "bad")
        add("latin1_name", dump_csv(pre, h, u, [[c if i != h.index("Kernel Name") else c + "\udce9" for i, c in enumerate(r)] for r in rows]))
        add("gzip", gzip.compress(raw), "bad")
        add("json_instead", open(os.path.join(S, "tour/machine.json"), "rb").read(), "bad")
        add("random_bin", bytes(random.randrange(256) for _ in range(4096)), "bad")
        add("png", b"\x89PNG\r\n\x1a\n" + b"\0" * 100, "bad")
        add("ragged_short", dump_csv(pre, h, u, [r[: len(r) // 2] for r in rows]))
        add("ragged_long", dump_csv(pre, h, u, [r + ["1", "2"] for r in rows]))
        add("units_short", dump_csv(pre, h, u[:5], rows))
        # duplicate columns
        for c in ["gpu__time_duration.sum", "dram__bytes.sum", "Kernel Name", "ID"]:
            if c in h:
                i = h.index(c)
                add(f"dupcol_same:{c}", dump_csv(pre, h + [c], u + [u[i]], [r + [r[i]] for r in rows]))
                add(f"dupcol_diff:{c}", dump_csv(pre, h + [c], u + [u[i]], [r + ["12345"] for r in rows]))
        # drop key columns
        for c in ["gpu__time_duration.sum", "Kernel Name", "ID", "dram__bytes.sum", "CC", "Device"]:
            if c in h:
                i = h.index(c)
                add(f"dropcol:{c}", dump_csv(pre, h[:i] + h[i+1:], u[:i] + u[i+1:], [r[:i] + r[i+1:] for r in rows]))
        # hostile numbers
        for c in NUM_COLS:
            if c not in h: continue
            for v in HOSTILE:
                rr = copy.deepcopy(rows); set_col(h, rr, c, v, ri=0)
                add(f"num:{c}={v[:20]!r}", dump_csv(pre, h, u, rr))
        # hostile units
        for c in ["gpu__time_duration.sum", "dram__bytes.sum", "sm__cycles_elapsed.avg.per_second", "lts__t_bytes.sum"]:
            if c not in h: continue
            i = h.index(c)
            for un in ["furlong", "Kbyte", "Mbyte", "Gbyte", "Tbyte", "KiB", "msecond", "usecond", "second", "ms", "us",
                       "Khz", "Mhz", "Ghz", "cycle", "%", "byte/second", "", "BYTE", "nsecond", "psecond", "Pbyte", "byte\x00"]:
                uu = list(u); uu[i] = un
                add(f"unit:{c}={un}", dump_csv(pre, h, uu, rows))
        # hostile names
        if "Kernel Name" in h:
            for nn, nv in name_variants().items():
                rr = copy.deepcopy(rows); set_col(h, rr, "Kernel Name", nv, ri=0)
                add(f"name:{nn}", dump_csv(pre, h, u, rr))
            rr = copy.deepcopy(rows); set_col(h, rr, "Kernel Name", "same")
            add("name:all_same", dump_csv(pre, h, u, rr))
        # header tampering
        hh = list(h); hh[0] = "Id"; add("hdr:ID_case", dump_csv(pre, hh, u, rows))
        hh = [c + " " for c in h]; add("hdr:trailing_space", dump_csv(pre, hh, u, rows))
        hh = [c.upper() for c in h]; add("hdr:upper", dump_csv(pre, hh, u, rows), "any")
        hh = list(h); hh[-1] = "x" * 100000; add("hdr:huge_col", dump_csv(pre, hh, u, rows))
        # row tampering
        if rows:
            rr = copy.deepcopy(rows); [r.__setitem__(0, "abc") for r in rr]; add("row:id_text", dump_csv(pre, h, u, rr))
            rr = copy.deepcopy(rows); [r.__setitem__(0, "0") for r in rr]; add("row:id_dup", dump_csv(pre, h, u, rr))
            rr = list(reversed(copy.deepcopy(rows))); add("row:reversed", dump_csv(pre, h, u, rr), "ok")
            add("row:dup_all", dump_csv(pre, h, u, rows + rows))
            rr = copy.deepcopy(rows); rr.insert(1, list(u)); add("row:units_again", dump_csv(pre, h, u, rr))
            rr = copy.deepcopy(rows); rr.insert(1, list(h)); add("row:header_again", dump_csv(pre, h, u, rr))
            rr = copy.deepcopy(rows); rr.append([""] * len(h)); add("row:blank", dump_csv(pre, h, u, rr))
            add("row:embedded_noise", dump_csv(pre, h, u, rows[:1]) + "==PROF== Disconnected\n" + dump_csv("", h, u, rows[1:])[len(dump_csv("", h, u, [])):])
        # two captures concatenated
        add("concat", raw + raw)
    return cases

def cat_import():
    cases = csv_cases()
    jobs = []
    fmts = ["table", "json", "csv", "markdown", "html"]
    for idx, (name, data, kind) in enumerate(cases):
        fn = f"in_{idx}.csv"
        open(os.path.join(W, fn), "wb").write(data)
        for fmt in (fmts if kind == "ok" or idx % 7 == 0 else [fmts[idx % len(fmts)], "json"]):
            args = ["import", fn, "--gpu", "h200", "--format", fmt]
            def j(args=args, name=name, kind=kind, fn=fn):
                rc, out, err, t = run(args)
                exp = {"bad": (2,), "ok": (0,)}.get(kind)
                generic("import-csv", name, args, rc, out, err, t, input_name=fn, expect=exp)
                if rc == 0 and args[-1] == "json":
                    try:
                        d = json.loads(out, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
                    except Exception as e:
                        finding("import-csv", name, f"--format json stdout not strict JSON: {e}", args, rc, err)
        
                return rc
            jobs.append(j)
        # stdin variant for a few
        if idx % 11 == 0:
            args = ["import", "-", "--gpu", "h200"]
            def j2(args=args, data=data, name=name):
                rc, out, err, t = run(args, stdin=data)
                generic("import-stdin", name, args, rc, out, err, t)
            jobs.append(j2)
    pool(jobs)

# ---------------------------------------------------------------- JSON documents
def docs():
    out = {}
    for f in sorted(os.listdir(os.path.join(S, "documents"))):
        if f.endswith(".json.gz"):
            out[f[:-8]] = json.loads(gzip.decompress(open(os.path.join(S, "documents", f), "rb").read()))
    for f in ["recipe/before.json", "recipe/after.json", "ranks/synthetic-2gpu/job.rank0.json",
              "ranks/synthetic-2gpu/job.rank1.json", "tour/machine.json", "tour/tour-ncu.analysis-v1.json",
              "machines/h200-measured.machine.json"]:
        out[f.replace("/", "_")] = json.load(open(os.path.join(S, f)))
    return out

def leaves(o, path=()):
    if isinstance(o, dict):
        for k, v in o.items():
            yield from leaves(v, path + (k,))
        if not o: yield path, o
    elif isinstance(o, list):
        for i, v in enumerate(o[:3]):
            yield from leaves(v, path + (i,))
        if not o: yield path, o
    else:
        yield path, o

def setp(o, path, v, delete=False):
    for p in path[:-1]: o = o[p]
    if delete:
        del o[path[-1]]
    else:
        o[path[-1]] = v

def mutations(v):
    ms = [("delete", None), ("null", None), ("str", "x"), ("list", []), ("obj", {})]
    if isinstance(v, bool): ms += [("flip", not v)]
    elif isinstance(v, (int, float)):
        ms += [("neg", -abs(v) - 1), ("zero", 0), ("huge", 1e308), ("tiny", 5e-324), ("x10", v * 10 if abs(v) < 1e300 else v),
               ("numstr", str(v)), ("overflow", "1e400")]
    elif isinstance(v, str):
        ms += [("empty", ""), ("long", v + "x" * 100000), ("bidi", v + "\u202e"), ("ctrl", v + "\x1b[2J"), ("num", 5)]
    return ms

def write_doc(fn, d, raw=None):
    p = os.path.join(W, fn)
    if raw is not None:
        open(p, "wb").write(raw)
    else:
        s = json.dumps(d, allow_nan=True)
        s = s.replace('"1e400"', "1e400")  # genuine overflow literal
        open(p, "w").write(s)
    return fn

def cat_docs():
    D = docs()
    analyses = {k: v for k, v in D.items() if isinstance(v, dict) and str(v.get("schema", "")).startswith("roofline.analysis/v2")}
    print("analysis docs:", list(analyses), file=sys.stderr)
    jobs = []
    n = 0
    for name, d in list(analyses.items())[:8]:
        paths = list(leaves(d))
        random.shuffle(paths)
        for path, v in paths[:60]:
            for mn, mv in mutations(v):
                dd = copy.deepcopy(d)
                try:
                    setp(dd, path, mv, delete=(mn == "delete"))
                except Exception:
                    continue
                fn = write_doc(f"doc_{n}.json", dd); n += 1
                cmdset = [["report", fn, "--format", random.choice(["markdown", "json", "html", "csv"])],
                          ["check", fn, "--min-pct-of-roof", "1", "--allow-empty"]]
                if n % 3 == 0: cmdset.append(["diff", fn, fn])
                for args in cmdset:
                    cs = f"{name}:{'/'.join(map(str,path))}:{mn}"
                    def j(args=args, cs=cs, fn=fn):
                        rc, out, err, t = run(args)
                        generic("doc-" + args[0], cs, args, rc, out, err, t, input_name=fn)
                    jobs.append(j)
    # whole-file corruption
    for name, d in list(D.items()):
        s = json.dumps(d).encode()
        variants = {"trunc": s[: len(s) // 2], "empty": b"", "bom": b"\xef\xbb\xbf" + s, "utf16": s.decode().encode("utf-16"),
                    "gz": gzip.compress(s), "nan": s.replace(b": 0.0", b": NaN", 3), "dupkey": b'{"schema":"x",' + s[1:],
                    "nested": b"[" * 100000 + b"]" * 100000, "nested_obj": b'{"a":' * 50000 + b"1" + b"}" * 50000,
                    "array": b"[" + s + b"]", "trailing": s + b" garbage", "schema_future": s.replace(b"/v2", b"/v9", 1),
                    "schema_v1": s.replace(b"/v2", b"/v1", 1)}
        for vn, raw in variants.items():
            fn = write_doc(f"docraw_{n}.json", None, raw); n += 1
            for sub in (["report", fn, "--format", "markdown"], ["check", fn, "--min-pct-of-roof", "1"],
                        ["diff", fn, fn], ["merge", fn, fn], ["import", fn, "--gpu", "h200"], ["import", "x", "--machine", fn] ):
                def j(args=sub, cs=f"{name}:{vn}", fn=fn):
                    exp = (2,) if cs.split(":")[1] in ("trunc", "empty", "utf16", "nested", "nested_obj", "trailing", "schema_future") else None
                    rc, out, err, t = run(args)
                    generic("doc-raw-" + args[0], cs, args, rc, out, err, t, input_name=fn if args[1] != "x" else None, expect=exp)
                jobs.append(j)
    pool(jobs)

# ---------------------------------------------------------------- gate fooling
def cat_gate():
    base = "gate_base.json"
    rc, out, err, _ = run(["import", os.path.join(S, "ncu/h200_seed000_metrics.csv"), "--gpu", "h200", "--format", "json"])
    open(os.path.join(W, base), "wb").write(out)
    d0 = json.loads(out)
    rule = ["--min-pct-of-roof", "60"]
    rc0, *_ = run(["check", base] + rule)
    assert rc0 == 1
    tampers = {}
    def T(name, f):
        dd = copy.deepcopy(d0); f(dd); tampers[name] = dd
    fail_names = ["pointer_chase", "matmul_tiled"]
    def forkern(dd, fn):
        for k in dd["kernels"]:
            if k["kernel"]["name"] in fail_names: fn(k)
    T("drop_failing", lambda dd: dd.__setitem__("kernels", [k for k in dd["kernels"] if k["kernel"]["name"] not in fail_names]))
    T("null_duration", lambda dd: forkern(dd, lambda k: k["kernel"].__setitem__("duration_s", None)))
    T("del_duration", lambda dd: forkern(dd, lambda k: k["kernel"].pop("duration_s")))
    T("pct_null", lambda dd: forkern(dd, lambda k: k.__setitem__("pct_of_roof", None)))
    T("pct_del", lambda dd: forkern(dd, lambda k: k.pop("pct_of_roof")))
    T("time_share_tiny", lambda dd: forkern(dd, lambda k: k.__setitem__("time_share", 1e-9)))
    T("origin_model", lambda dd: forkern(dd, lambda k: k["kernel"].__setitem__("origin", "model")))
    T("origin_x", lambda dd: forkern(dd, lambda k: k["kernel"].__setitem__("origin", "none")))
    T("bound_none", lambda dd: forkern(dd, lambda k: k.__setitem__("bound", None)))
    T("limiter_null", lambda dd: forkern(dd, lambda k: k.__setitem__("limiter", None)))
    T("rename", lambda dd: forkern(dd, lambda k: k["kernel"].__setitem__("name", k["kernel"]["name"] + "_x")))
    def roofs_down(dd):
        for c in dd["machine"]["ceilings"]:
            c["rate"] = c["rate"] / 20
    T("machine_roofs_down", roofs_down)
    def roofs_down_consistent(dd):
        roofs_down(dd)
    def bw_down(dd):
        for c in dd["machine"]["ceilings"]:
            if c["resource"]["type"] != "compute": c["rate"] = c["rate"] / 20
    T("machine_bw_down", bw_down)
    def sec(dd):
        for c in dd["machine"]["ceilings"]: c["secondary"] = True
    T("all_secondary", sec)
    def del_ceil(dd):
        dd["machine"]["ceilings"] = [c for c in dd["machine"]["ceilings"] if c["resource"].get("which") not in ("fp32", "dram")]
    T("drop_ceilings", del_ceil)
    def dur_scale(dd):
        # consistent: shrink duration of failing kernels, recompute what check verified
        for k in dd["kernels"]:
            if k["kernel"]["name"] in fail_names:
                f = 20.0
                k["kernel"]["duration_s"] /= f
                if k.get("achieved_flops_per_s") is not None: k["achieved_flops_per_s"] *= f
                if k.get("pct_of_roof") is not None: k["pct_of_roof"] *= f
                for l in k["levels"]:
                    if l.get("achieved_bytes_per_s") is not None: l["achieved_bytes_per_s"] *= f
                    if l.get("pct_of_bandwidth") is not None: l["pct_of_bandwidth"] *= f
    T("consistent_faster", dur_scale)
    def levels_drop(dd):
        forkern(dd, lambda k: k.__setitem__("levels", []))
    T("levels_empty", levels_drop)
    def evid(dd):
        forkern(dd, lambda k: k["kernel"]["evidence"].__setitem__("counter_pct_of_roof", 99.0))
    T("counter_pct_99", evid)
    def flops_up(dd):
        for k in dd["kernels"]:
            if k["kernel"]["name"] in fail_names:
                f = 20.0
                for kk in k["kernel"]["flops"]: k["kernel"]["flops"][kk] *= f
                k["total_flops"] = k.get("total_flops", 0) * f if k.get("total_flops") else k.get("total_flops")
                if k.get("achieved_flops_per_s") is not None: k["achieved_flops_per_s"] *= f
                if k.get("pct_of_roof") is not None: k["pct_of_roof"] *= f
                for l in k["levels"]:
                    if l.get("intensity") is not None: l["intensity"] *= f
    T("consistent_more_flops", flops_up)
    T("schema_v1", lambda dd: dd.__setitem__("schema", "roofline.analysis/v1"))
    T("kernels_obj", lambda dd: dd.__setitem__("kernels", {}))
    T("program_total_small", lambda dd: dd["program"].__setitem__("total_s", 1e-9))
    T("unknown_key_skip", lambda dd: forkern(dd, lambda k: k.__setitem__("skip", True)))
    T("dup_pass_copy", lambda dd: dd["kernels"].extend([copy.deepcopy(k) for k in dd["kernels"] if k["kernel"]["name"] not in fail_names]))
    def name_unicode(dd):
        forkern(dd, lambda k: k["kernel"].__setitem__("display_name", "ok"))
    T("display_name", name_unicode)
    def lim_compute(dd):
        for k in dd["kernels"]:
            if k["kernel"]["name"] in fail_names:
                k["compute_roof_flops_per_s"] = k.get("achieved_flops_per_s") or 1.0
    T("compute_roof_low", lim_compute)
    def machine_name(dd):
        dd["machine"]["gpu"]["sms"] = 1; dd["machine"]["gpu"]["sm_clock_mhz"] = 1.0
    T("gpu_sms_1", machine_name)
    def provenance(dd):
        for c in dd["machine"]["ceilings"]:
            c["provenance"]["origin"] = "measured"; c["rate"] /= 20
    T("roofs_measured_down", provenance)
    res = []
    for name, dd in tampers.items():
        fn = f"gate_{name}.json"
        open(os.path.join(W, fn), "w").write(json.dumps(dd))
        for extra in ([], ["--min-time-share", "1"], ["--kernel", "pointer_chase=50"]):
            args = ["check", fn] + rule + extra
            rc, out, err, t = run(args)
            generic("gate", name, args, rc, out, err, t, input_name=fn)
            res.append((name, extra, rc, err.decode()[-300:].strip().replace("\n", " | ")))
            if rc == 0:
                finding("gate", name, "check PASSED on a tampered document (original fails)", args, rc, err + b"\n" + out[-1500:])
        # baseline regression tampering: tampered doc as baseline vs itself
    # baseline regression: after slower than before; tamper after's to appear same
    b = json.load(open(os.path.join(S, "recipe/before.json")))
    slow = copy.deepcopy(b)
    for k in slow["kernels"]:
        k["kernel"]["duration_s"] *= 2
    open(os.path.join(W, "gate_before.json"), "w").write(json.dumps(b))
    rc, out, err, t = run(["import", os.path.join(S, "recipe/before.csv"), "--machine", os.path.join(S, "recipe/before.json"), "--format", "json"])
    open(os.path.join(W, "gate_reimport.json"), "wb").write(out)
    open(os.path.join(W, "gate_log.txt"), "w").write("\n".join(map(str, res)))
    return res

# ---------------------------------------------------------------- output files
def cat_output():
    src = os.path.join(S, "ncu/h200_seed000_metrics.csv")
    shutil.copy(src, os.path.join(W, "o_in.csv"))
    scen = []
    os.makedirs(os.path.join(W, "odir"), exist_ok=True)
    for ext in ["json", "csv", "md", "html", "svg", "txt", "weird", ""]:
        scen.append(("plain", f"out_plain.{ext}" if ext else "out_plain"))
    results = []
    def reset():
        for f in os.listdir(W):
            if f.startswith("out_") or f.startswith("victim") or f.startswith("lnk"):
                p = os.path.join(W, f)
                if os.path.isdir(p) and not os.path.islink(p): shutil.rmtree(p)
                else: os.remove(p)
    cmds = [lambda o: ["import", "o_in.csv", "--gpu", "h200", "-o", o],
            lambda o: ["report", "gate_base.json", "-o", o],
            lambda o: ["check", "gate_base.json", "--min-pct-of-roof", "1", "-o", o],
            lambda o: ["diff", "gate_base.json", "gate_base.json", "-o", o],
            lambda o: ["model", "-k", "a: flops=1e9 bytes=1e6", "--gpu", "h200", "-o", o],
            lambda o: ["peaks", "--gpu", "h200", "-o", o],
            lambda o: ["occupancy", "--cc", "9.0", "--threads", "256", "--regs", "32", "-o", o],
            lambda o: ["report", "gate_base.json", "--svg", o],
            lambda o: ["merge", os.path.join(S, "ranks/synthetic-2gpu/job.rank0.json"), os.path.join(S, "ranks/synthetic-2gpu/job.rank1.json"), "-o", o]]
    for ci, c in enumerate(cmds):
        for ext in ["json", "csv", "md", "html", "svg", "txt", "weird"]:
            # 1 plain
            reset(); o = f"out_a.{ext}"; args = c(o)
            rc, out, err, t = run(args); generic("output", f"plain:{ci}:{ext}", args, rc, out, err, t)
            if rc in (0, 1) and not os.path.exists(os.path.join(W, o)) and b"error" not in err:
                finding("output", f"plain:{ci}:{ext}", "-o file not written, no error", args, rc, err)
            if os.path.exists(os.path.join(W, o)) and ext == "json":
                try: json.loads(open(os.path.join(W, o)).read(), parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
                except Exception as e: finding("output", f"plain:{ci}:{ext}", f"-o JSON invalid: {e}", args, rc, err)
            # 2 symlink to victim
            reset(); open(os.path.join(W, "victim.txt"), "w").write("precious\n")
            os.symlink("victim.txt", os.path.join(W, f"lnk.{ext}")); args = c(f"lnk.{ext}")
            rc, out, err, t = run(args); generic("output", f"symlink:{ci}:{ext}", args, rc, out, err, t)
            if open(os.path.join(W, "victim.txt")).read() != "precious\n":
                finding("output", f"symlink:{ci}:{ext}", "wrote THROUGH a symlink, victim overwritten", args, rc, err)
            # 3 dangling symlink
            reset(); os.symlink("victim_new.txt", os.path.join(W, f"lnk.{ext}")); args = c(f"lnk.{ext}")
            rc, out, err, t = run(args); generic("output", f"dangling:{ci}:{ext}", args, rc, out, err, t)
            if os.path.exists(os.path.join(W, "victim_new.txt")):
                finding("output", f"dangling:{ci}:{ext}", "created file through dangling symlink", args, rc, err)
            # 4 existing user file (not written by tool)
            reset(); open(os.path.join(W, o), "w").write("user data\n"); args = c(o)
            rc, out, err, t = run(args); generic("output", f"existing:{ci}:{ext}", args, rc, out, err, t)
            if open(os.path.join(W, o)).read() == "user data\n" and rc == 0:
                pass
            elif open(os.path.join(W, o)).read() != "user data\n":
                finding("output", f"existing:{ci}:{ext}", "overwrote a pre-existing file the tool did not write", args, rc, err)
            # 5 directory as output
            reset(); os.makedirs(os.path.join(W, f"out_d.{ext}")); args = c(f"out_d.{ext}")
            rc, out, err, t = run(args); generic("output", f"dir:{ci}:{ext}", args, rc, out, err, t, expect=(1, 2))
            # 6 nonexistent parent
            reset(); args = c(f"out_nodir/x.{ext}")
            rc, out, err, t = run(args); generic("output", f"noparent:{ci}:{ext}", args, rc, out, err, t, expect=(1, 2))
            # 7 read-only dir
            reset(); os.makedirs(os.path.join(W, "out_ro"), exist_ok=True); os.chmod(os.path.join(W, "out_ro"), 0o555)
            args = c(f"out_ro/x.{ext}"); rc, out, err, t = run(args); generic("output", f"rodir:{ci}:{ext}", args, rc, out, err, t)
            os.chmod(os.path.join(W, "out_ro"), 0o755)
            # 8 /dev/full
            args = c("/dev/full"); rc, out, err, t = run(args); generic("output", f"devfull:{ci}:{ext}", args, rc, out, err, t, expect=(1, 2))
            # 9 rewrite own output (should be allowed)
            reset(); args = c(o); run(args); rc, out, err, t = run(args); generic("output", f"rewrite:{ci}:{ext}", args, rc, out, err, t)
            if rc == 2: finding("output", f"rewrite:{ci}:{ext}", "refuses to overwrite its own previous output", args, rc, err)
    # -o equals input
    for args in (["import", "o_in.csv", "--gpu", "h200", "-o", "o_in.csv"], ["report", "gate_base.json", "-o", "gate_base.json"],
                 ["check", "gate_base.json", "--min-pct-of-roof", "1", "-o", "gate_base.json"],
                 ["diff", "gate_base.json", "gate_before.json", "-o", "gate_before.json"],
                 ["import", "o_in.csv", "--gpu", "h200", "--machine", "gate_base.json", "-o", "gate_base.json"],
                 ["report", "gate_base.json", "--svg", "gate_base.json"]):
        h0 = {f: hashlib.md5(open(os.path.join(W, f), "rb").read()).hexdigest() for f in ("o_in.csv", "gate_base.json", "gate_before.json")}
        rc, out, err, t = run(args); generic("output", "over-input", args, rc, out, err, t)
        h1 = {f: hashlib.md5(open(os.path.join(W, f), "rb").read()).hexdigest() for f in h0}
        if h0 != h1:
            finding("output", "over-input", "input file overwritten by -o", args, rc, err)
            shutil.copy(src, os.path.join(W, "o_in.csv"))
            run(["import", "o_in.csv", "--gpu", "h200", "-o", "gate_base.json"])
    # hard link to input
    if os.path.exists(os.path.join(W, "out_hl.csv")): os.remove(os.path.join(W, "out_hl.csv"))
    os.link(os.path.join(W, "o_in.csv"), os.path.join(W, "out_hl.csv"))
    args = ["import", "o_in.csv", "--gpu", "h200", "--format", "csv", "-o", "out_hl.csv"]
    h0 = hashlib.md5(open(os.path.join(W, "o_in.csv"), "rb").read()).hexdigest()
    rc, out, err, t = run(args); generic("output", "hardlink-input", args, rc, out, err, t)
    if hashlib.md5(open(os.path.join(W, "o_in.csv"), "rb").read()).hexdigest() != h0:
        finding("output", "hardlink-input", "input overwritten via hard link", args, rc, err)
    # symlink pointing at input
    if os.path.lexists(os.path.join(W, "out_sl.json")): os.remove(os.path.join(W, "out_sl.json"))
    os.symlink("gate_base.json", os.path.join(W, "out_sl.json"))
    h0 = hashlib.md5(open(os.path.join(W, "gate_base.json"), "rb").read()).hexdigest()
    args = ["report", "out_sl.json", "--format", "json", "-o", "gate_base.json"]
    rc, out, err, t = run(args); generic("output", "input-via-symlink", args, rc, out, err, t)
    if hashlib.md5(open(os.path.join(W, "gate_base.json"), "rb").read()).hexdigest() != h0:
        finding("output", "input-via-symlink", "input overwritten (input given through symlink)", args, rc, err)
        run(["import", "o_in.csv", "--gpu", "h200", "-o", "gate_base.json"])

# ---------------------------------------------------------------- units / numbers semantics
def kernels_of(out):
    d = json.loads(out)
    return {k["kernel"]["name"]: k for k in d["kernels"]}

def cat_units():
    seed = os.path.join(S, "ncu/h200_seed000_metrics.csv")
    pre, h, u, rows = load_csv(seed)
    def imp(data, tag):
        fn = "u_" + re.sub(r"[^\w.-]", "_", tag) + ".csv"; open(os.path.join(W, fn), "w").write(data)
        args = ["import", fn, "--gpu", "h200", "--format", "json"]
        rc, out, err, t = run(args)
        generic("units", tag, args, rc, out, err, t, input_name=fn)
        return args, rc, out, err
    _, rc, out0, _ = imp(dump_csv(pre, h, u, rows), "base")
    K0 = kernels_of(out0)
    def num(s): return float(s.replace(",", ""))
    scales = {"byte": [("Kbyte", 1e3), ("Mbyte", 1e6), ("Gbyte", 1e9), ("KB", 1e3), ("MB", 1e6), ("kbyte", 1e3)],
              "ns": [("usecond", 1e3), ("msecond", 1e6), ("second", 1e9), ("nsecond", 1), ("us", 1e3), ("ms", 1e6)],
              "hz": [("Khz", 1e3), ("Mhz", 1e6), ("Ghz", 1e9), ("KHz", 1e3), ("MHz", 1e6), ("GHz", 1e9)],
              "cycle": [("Kcycle", 1e3), ("Mcycle", 1e6)],
              "byte/second": [("Kbyte/second", 1e3), ("Gbyte/second", 1e9)]}
    for base_u, lst in scales.items():
        for nu, f in lst:
            uu = list(u); rr = copy.deepcopy(rows)
            for i, x in enumerate(u):
                if x == base_u:
                    uu[i] = nu
                    for r in rr:
                        try: r[i] = repr(num(r[i]) / f)
                        except ValueError: pass
            args, rc, out, err = imp(dump_csv(pre, h, uu, rr), f"scale_{base_u}->{nu}")
            if rc != 0:
                if rc != 2: finding("units", nu, "scaled unit rejected with odd exit", args, rc, err)
                else: COUNTS["units-rejected"] = COUNTS.get("units-rejected", 0) + 1; FINDINGS.append(dict(cat="units-info", case=nu, problem="scaled unit rejected (exit 2)", cmd="roofline " + sh(args), rc=rc, err=err.decode()[-300:]))
                continue
            K1 = kernels_of(out)
            for n, k in K0.items():
                a, b = k["kernel"].get("duration_s"), K1.get(n, {"kernel": {}})["kernel"].get("duration_s")
                if b is None: finding("units", nu if "nu" in dir() else "?", f"duration lost for {n}", args, rc, err); break
                if abs(a - b) > 1e-6 * abs(a):
                    finding("units", nu, f"duration changed under unit {nu}: {a} -> {b} ({n})", args, rc, err); break
                for lv, x in k["kernel"]["bytes"].items():
                    y = K1[n]["kernel"]["bytes"].get(lv)
                    if y is None or abs(x - y) > 1e-6 * abs(x):
                        finding("units", nu, f"bytes[{lv}] changed under unit {nu}: {x} -> {y} ({n})", args, rc, err); break
                pa, pb = k.get("pct_of_roof"), K1[n].get("pct_of_roof")
                if (pa is None) != (pb is None) or (pa and abs(pa - pb) > 1e-6 * abs(pa)):
                    finding("units", nu, f"pct_of_roof changed under unit {nu}: {pa} -> {pb} ({n})", args, rc, err); break
    # decimal comma & locale renderings of duration
    i_d = [i for i, c in enumerate(h) if c.startswith("gpu__time_duration")]
    for tag, fmt in [("de_comma", lambda v: f"{v:.1f}".replace(".", ",")),       # 59232,0
                     ("de_thousands", lambda v: f"{v:,.2f}".replace(",", "X").replace(".", ",").replace("X", ".")),
                     ("fr_space", lambda v: f"{v:,.2f}".replace(",", "\u202f").replace(".", ",")),
                     ("ch_apos", lambda v: f"{v:,.2f}".replace(",", "'")),
                     ("in_lakh", lambda v: "5,92,32"),
                     ("plain", lambda v: f"{v:.3f}"), ("sci", lambda v: f"{v:.6e}"), ("comma_only", lambda v: f"{int(v):,}"),
                     ("one_comma_decimal", lambda v: f"{v/1000:.3f}".replace(".", ","))]:
        rr = copy.deepcopy(rows)
        for r in rr:
            for i in i_d:
                r[i] = fmt(num(r[i]))
        args, rc, out, err = imp(dump_csv(pre, h, u, rr), f"locale_{tag}")
        if rc == 0:
            K1 = kernels_of(out)
            for n, k in K0.items():
                a, b = k["kernel"].get("duration_s"), K1.get(n, {"kernel": {}})["kernel"].get("duration_s")
                if b is None: finding("units", nu if "nu" in dir() else "?", f"duration lost for {n}", args, rc, err); break
                if abs(a - b) > 1e-3 * abs(a):
                    finding("units", tag, f"duration silently misread ({tag}): {a} s -> {b} s ({n}); sample cell {rr[0][i_d[-1]]!r}", args, rc, err); break
    # LC_ALL / LANG env should not change numbers
    for loc in ["de_DE.UTF-8", "fr_FR.UTF-8", "C", "tr_TR.UTF-8", "POSIX", "ja_JP.SJIS"]:
        for fmt in ["table", "json", "csv"]:
            args = ["import", seed, "--gpu", "h200", "--format", fmt]
            rc, out, err, t = run(args, env={"LC_ALL": loc, "LANG": loc, "LC_NUMERIC": loc})
            generic("locale-env", loc, args, rc, out, err, t)
            rcb, outb, _, _ = run(args)
            if out != outb: finding("locale-env", loc, "output differs under locale", args, rc, err)

# ---------------------------------------------------------------- CLI flags
def cat_flags():
    seed = os.path.join(S, "ncu/h200_seed000_metrics.csv")
    rates_c = ["1000 GFLOP/s", "20 TFLOP/s", "0 TFLOP/s", "-5 TFLOP/s", "NaN TFLOP/s", "inf TFLOP/s", "1e400 TFLOP/s",
               "1,5 TFLOP/s", "1.5", "20 TB/s", "20 tflop/s", "20TFLOP/s", " 20 TFLOP/s ", "20 PFLOP/s", "20 FLOP/ms",
               "", "TFLOP/s", "1e-300 FLOP/s", "20 TFLOPS", "20 TIOP/s", "0x14 TFLOP/s", "２０ TFLOP/s"]
    rates_b = ["100 GB/s", "4.8 TB/s", "0 GB/s", "-1 GB/s", "NaN GB/s", "inf GB/s", "1e400 GB/s", "4,8 TB/s", "4.8 TiB/s",
               "4.8", "4.8 TFLOP/s", "4.8 tb/s", "4.8 Tb/s", "4.8 B/ns", "4.8 GB/ms", "", "1e-320 B/s", "4.8 GiB/s"]
    jobs = []
    def J(cat, args, expect=None):
        def j():
            rc, out, err, t = run(args); generic(cat, " ".join(args)[:80], args, rc, out, err, t, expect=expect)
        jobs.append(j)
    for pc in rates_c:
        for bw in ["4.8 TB/s", "100 GB/s"]:
            J("flags-rate", ["import", seed, "--peak", pc, "--bandwidth", bw])
            J("flags-rate", ["model", "-k", "a: flops=1e9 bytes=1e6", "--peak", pc, "--bandwidth", bw, "--format", "json"])
    for bw in rates_b:
        J("flags-rate", ["import", seed, "--peak", "20 TFLOP/s", "--bandwidth", bw])
        J("flags-rate", ["model", "-k", "a: flops=1e9 bytes=1e6", "--peak", "20 TFLOP/s", "--bandwidth", bw, "--format", "json"])
    for kind in ["fp64", "fp16", "tensor_bf16", "FP32", "fp8", "", "x" * 5000, "fp32\x00"]:
        J("flags-rate", ["import", seed, "--peak", "20 TFLOP/s", "--bandwidth", "1 TB/s", "--peak-kind", kind])
    for g in ["h200", "H200", "a100", "nope", "", "h200 ", "b200", "t4", "../../etc/passwd"]:
        J("flags-gpu", ["import", seed, "--gpu", g]); J("flags-gpu", ["peaks", "--gpu", g, "--format", "json"])
    specs = ["a: flops=1e9 bytes=1e6", "a: flops=0 bytes=0", "a: flops=-1 bytes=1", "a: flops=NaN bytes=1", "a: flops=inf bytes=1",
             "a: flops=1e400 bytes=1", "a: flops=1e9", "a: bytes=1e6", "a flops=1 bytes=1", ": flops=1 bytes=1", "a: flops=1 bytes=1 kind=fp99",
             "a: flops=1 bytes=1 time=-1ms", "a: flops=1 bytes=1 time=0", "a: flops=1 bytes=1 time=1 ms", "a: flops=1 bytes=1 time=1ms",
             "a: flops=1 bytes=1 time=NaN s", "a: flops=1,5 bytes=1", "a: flops=1e9 bytes=1e6 elements=-5", "a: flops=1e9 bytes=1e6 elements=1.5",
             "a: flops=1e9 bytes=1e6 flops=2e9", "a: flops=1e9 bytes=1e6 bogus=1", "\u202e: flops=1 bytes=1", "x" * 100000 + ": flops=1 bytes=1",
             "a: flops=1 GFLOP bytes=1 MB", "a: flops=1e9 bytes=1e6 time=1e-300 s", "a: flops=1e308 bytes=1e-308", "a: flops=1 bytes=1 time=1 furlong"]
    for sp in specs:
        for fmt in ["table", "json", "csv"]:
            J("flags-model", ["model", "-k", sp, "--gpu", "h200", "--format", fmt])
    J("flags-model", ["model", "-k", "a: flops=1 bytes=1", "-k", "a: flops=2 bytes=2", "--gpu", "h200"])
    occ = {"--threads": ["0", "1", "32", "1024", "1025", "4096", "-1", "1e3", "99999999999999999999", "x"],
           "--regs": ["0", "1", "255", "256", "1000", "-1", "x"],
           "--smem-dynamic": ["0", "1", "232448", "232449", "1e9", "-1", "48KB", "18446744073709551615"],
           "--carveout": ["0", "50", "100", "101", "-1", "NaN"], "--barriers": ["0", "1", "16", "17", "-1"]}
    for cc in ["9.0", "8.6", "sm_75", "7.0", "10.0", "1.0", "99.9", "x", "9", "9.0.1", "sm_"]:
        J("flags-occ", ["occupancy", "--cc", cc, "--threads", "256", "--regs", "32"])
    for flag, vals in occ.items():
        for v in vals:
            base = {"--threads": "256", "--regs": "32"}
            base[flag] = v
            a = ["occupancy", "--cc", "9.0"] + [x for kv in base.items() for x in kv]
            J("flags-occ", a); J("flags-occ", a + ["--format", "json"])
            J("flags-occ", a + ["--sweep", "all", "--format", "json"])
    for kr in ["fused=80", "fused", "=80", "fused=", "fused=NaN", "fused=-1", "fused=101", "fused=1e400", "a=b=80", "fused=80%", "\u202e=50"]:
        J("flags-check", ["check", "gate_base.json", "--kernel", kr])
    for v in ["60", "-1", "101", "NaN", "inf", "1e400", "x", "60%", "", "0"]:
        J("flags-check", ["check", "gate_base.json", "--min-pct-of-roof", v])
        J("flags-check", ["check", "gate_base.json", "--min-pct-of-roof", "10", "--min-time-share", v])
        J("flags-check", ["check", "gate_base.json", "--baseline", "gate_base.json", "--max-regression", v])
    for m in ["a=b", "a+b=c", "=", "a=", "=b", "a", "a+=b", "+=+", "a=b=c", "matmul_naive=matmul_naive"]:
        J("flags-diff", ["diff", "gate_base.json", "gate_base.json", "--match", m])
    for w in ["0", "1", "10", "100000000", "-5", "x", "960.5"]:
        J("flags-report", ["report", "gate_base.json", "--width", w, "--format", "html"])
        J("flags-report", ["report", "gate_base.json", "--width", w, "--format", "chart"])
    for tt in ["\u202eevil", "<script>x</script>", "x" * 100000, "\x1b[31m", "a\nb", ""]:
        J("flags-report", ["report", "gate_base.json", "--title", tt, "--format", "html"])
        J("flags-report", ["report", "gate_base.json", "--title", tt, "--format", "markdown"])
    # configs for check
    tomls = ["", "min_pct_of_roof = 60", "min_pct_of_roof = 'x'", "min_pct_of_roof = nan", "min_pct_of_roof = inf", "bogus = 1",
             "[[kernel]]\nname='fused'\nmin_pct_of_roof=80", "[[kernel]]\nname='fused'\nmax_time='1.2 ms'",
             "[[kernel]]\nname='fused'\nmax_time='-1 ms'", "[[kernel]]\nname='fused'\nmax_time='1,2 ms'", "baseline='nonexist.json'",
             "baseline='/etc/passwd'", "= garbage [[", "min_pct_of_roof = 60\nmin_pct_of_roof = 70", "[[kernel]]\nmin_pct_of_roof=80",
             "max_regression_pct = -5\nbaseline='gate_base.json'", "[[kernel]]\nname='fused'\nmax_time='1 furlong'",
             "min_time_share_pct = 200\nmin_pct_of_roof=60", "\ufeffmin_pct_of_roof = 60", "min_pct_of_roof = 1e400"]
    for i, tm in enumerate(tomls):
        fn = f"cfg_{i}.toml"; open(os.path.join(W, fn), "w").write(tm)
        J("flags-check-config", ["check", "gate_base.json", "--config", fn])
    J("flags-check-config", ["check", "gate_base.json", "--config", "nonexist.toml"], expect=(2,))
    J("flags-check-config", ["check", "gate_base.json", "--config", "/tmp"], expect=(2,))
    # no-colour / terminal-ness via --color always: colour allowed? NO_COLOR with always
    pool(jobs)

def cat_color():
    seed = os.path.join(S, "ncu/h200_seed000_metrics.csv")
    import pty
    for cmd in (["import", seed, "--gpu", "h200"], ["check", "gate_base.json", "--min-pct-of-roof", "60"], ["peaks", "--gpu", "h200"]):
        for env in ({"NO_COLOR": "1"}, {"NO_COLOR": ""}, {}, {"TERM": "dumb"}):
            for col in ([], ["--color", "auto"]):
                # run under a pty
                pid, fd = pty.fork()
                if pid == 0:
                    e = dict(os.environ); e.pop("NO_COLOR", None); e.update(env)
                    os.chdir(W); os.execve(R, [R] + cmd + col, e)
                buf = b""
                while True:
                    try: chunk = os.read(fd, 65536)
                    except OSError: break
                    if not chunk: break
                    buf += chunk
                _, st = os.waitpid(pid, 0)
                COUNTS["color-pty"] = COUNTS.get("color-pty", 0) + 1
                if env.get("NO_COLOR") and ANSI.search(buf.decode("utf-8", "replace")):
                    finding("color-pty", str(env), "colour on terminal although NO_COLOR is set", cmd + col, st, buf[-300:])
                if "panicked" in buf.decode("utf-8", "replace"):
                    finding("color-pty", str(env), "panic on tty", cmd + col, st, buf[-300:])
    # stdout not a tty but --color always with NO_COLOR? contract only says auto. check stdout/stderr separation
    args = ["import", seed, "--gpu", "h200", "--format", "json"]
    rc, out, err, t = run(args, env={"NO_COLOR": "1"})
    try: json.loads(out)
    except Exception: finding("streams", "json-stdout", "stdout with --format json is not pure JSON", args, rc, err)
    COUNTS["streams"] = COUNTS.get("streams", 0) + 1

CATS = {"import": cat_import, "docs": cat_docs, "gate": cat_gate, "output": cat_output, "units": cat_units,
        "flags": cat_flags, "color": cat_color}

if __name__ == "__main__":
    want = sys.argv[1:] or ["gate", "import", "docs", "output", "units", "flags", "color"]
    if "gate" not in want and not os.path.exists(os.path.join(W, "gate_base.json")):
        want = ["gate"] + want
    for c in want:
        print("==", c, file=sys.stderr)
        try: CATS[c]()
        except Exception as e: import traceback; traceback.print_exc()
        print("   counts:", COUNTS, "findings:", len(FINDINGS), file=sys.stderr)
    tag = "_".join(want)
    json.dump(dict(counts=COUNTS, findings=FINDINGS), open(f"/tmp/adv/results_{tag}.json", "w"), indent=1)
    print(json.dumps(COUNTS), len(FINDINGS))
