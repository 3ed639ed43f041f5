#!/usr/bin/env python3
"""Adversarial pass 3 driver for `roofline` (independent pass, issue 16).

Each case runs the release binary in a fresh sandbox folder holding copies of
the bundled captures and documents.  Before and after each run the sandbox is
snapshotted (type, inode, mode, owner, size, sha256 of every entry, symlinks
not followed); the run is then judged on:

  * panic  : exit 101 or "panicked" on stderr                       (high)
  * hang   : still running at the timeout                           (high)
  * code   : exit code outside 0/1/2 (signals we sent excepted)     (medium)
  * silent : exit 2 with an empty stderr                            (low)
  * loss   : an entry other than the allowed targets changed, was
             created or removed (temp files included)                (high)
  * readback: a JSON document written that `report` refuses, or
             JSON that is not strict JSON (NaN, Infinity)           (medium)

Usage: pass3.py BIN REPO OUTDIR   (writes OUTDIR/results.json and a summary)
"""
import shlex, csv, hashlib, io, json, os, signal, stat, subprocess, sys, time, shutil, glob
from concurrent.futures import ThreadPoolExecutor

BIN, REPO, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
WORK = os.path.join(OUT, "sandboxes")
os.makedirs(WORK, exist_ok=True)
CAP = os.path.join(REPO, "data/h200/ncu_seed000.csv")
GEMMS = os.path.join(REPO, "data/h200/ncu_gemms.csv")
MACHINE = os.path.join(REPO, "data/h200/tour/machine.json")
FIX = os.path.join(REPO, "tests/fixtures/ncu")

# ---------------------------------------------------------------- base docs
BASE = os.path.join(OUT, "base")
os.makedirs(BASE, exist_ok=True)
shutil.copy(CAP, f"{BASE}/cap.csv")
shutil.copy(GEMMS, f"{BASE}/gemms.csv")
shutil.copy(MACHINE, f"{BASE}/machine.json")
for args in (["import", "cap.csv", "-o", "an.json"], ["import", "gemms.csv", "-o", "g.json"],
             ["peaks", "--gpu", "h200", "-o", "m.json"], ["merge", "an.json", "g.json", "-o", "merged.json"],
             ["model", "--gpu", "h200", "-k", "saxpy: flops=2 bytes=12 elements=1e6 time=10us", "-o", "model.json"],
             ["import", "cap.csv", "--per-launch", "-o", "pl.json"]):
    subprocess.run([BIN, "-q"] + args, cwd=BASE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
BASE_FILES = sorted(os.listdir(BASE))

def read_csv_rows(path):
    lines = [l for l in open(path, encoding="utf-8") if not l.startswith("==")]
    return list(csv.reader(lines))

CAPROWS = read_csv_rows(CAP)
HDR = CAPROWS[0]

def csv_text(rows, prefix=""):
    s = io.StringIO()
    w = csv.writer(s, quoting=csv.QUOTE_ALL, lineterminator="\n")
    for r in rows:
        w.writerow(r)
    return prefix + s.getvalue()

def mutate(col, value, row=None, units=None):
    rows = [list(r) for r in CAPROWS]
    i = HDR.index(col)
    if units is not None:
        rows[1][i] = units
    targets = range(2, len(rows)) if row is None else [row]
    for r in targets:
        rows[r][i] = value
    return csv_text(rows)

# ---------------------------------------------------------------- snapshot
def snap(root):
    out = {}
    for dp, dns, fns in os.walk(root, followlinks=False):
        for n in dns + fns:
            p = os.path.join(dp, n)
            rel = os.path.relpath(p, root)
            try:
                st = os.lstat(p)
            except FileNotFoundError:
                continue
            h = None
            if stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    h = hashlib.sha256(f.read()).hexdigest()
            elif stat.S_ISLNK(st.st_mode):
                h = "->" + os.readlink(p)
            out[rel] = (stat.S_IFMT(st.st_mode), st.st_ino, stat.S_IMODE(st.st_mode), st.st_uid, st.st_size, h,
                        st.st_rdev)
    return out

def tmp_roofline():
    return set(glob.glob("/tmp/roofline*")) | set(glob.glob("/tmp/.roofline*")) | set(glob.glob("/tmp/*ncu*"))

# ---------------------------------------------------------------- cases
CASES = []

def case(cat, name, argv, files=None, allowed=(), stdin=None, timeout=30, readback=None, shell=None,
         setup=None, env=None, expect=None, signal_at=None, note=""):
    """argv: list (run from the sandbox); shell: a shell line instead (for fd games).
    files: {name: text|bytes} written in the sandbox. allowed: sandbox paths that may change.
    readback: sandbox path of a document `report` must read (when it exists after the run).
    expect: set of acceptable exit codes (default {0,1,2}). signal_at: (seconds, signo, target)."""
    CASES.append(dict(cat=cat, name=name, argv=argv, files=files or {}, allowed=set(allowed), stdin=stdin,
                      timeout=timeout, readback=readback, shell=shell, setup=setup, env=env,
                      expect=expect or {0, 1, 2}, signal_at=signal_at, note=note))

def default_signals():
    # a driver started under nohup or `&` inherits SIGINT/SIGHUP ignored: give the tool the defaults
    for s in (signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGTERM):
        signal.signal(s, signal.SIG_DFL)

def run_case(idx, c):
    sb = os.path.join(WORK, f"c{idx:04d}")
    shutil.rmtree(sb, ignore_errors=True)
    os.makedirs(sb)
    for f in BASE_FILES:
        shutil.copy(os.path.join(BASE, f), os.path.join(sb, f))
    for n, t in c["files"].items():
        p = os.path.join(sb, n)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as fh:
            fh.write(t.encode() if isinstance(t, str) else t)
    if c["setup"]:
        c["setup"](sb)
    before = snap(sb)
    tmpd = os.path.join(WORK, f"tmp{idx:04d}")
    shutil.rmtree(tmpd, ignore_errors=True)
    os.makedirs(tmpd)
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100", TMPDIR=tmpd)
    if c["env"]:
        env.update({k: v.replace("{sb}", sb) for k, v in c["env"].items()})
    t0 = time.time()
    stdin = subprocess.DEVNULL
    if isinstance(c["stdin"], (str, bytes)):
        stdin = subprocess.PIPE
    if c["shell"]:
        cmd = ["nice", "-n", "10", "bash", "-c", c["shell"].replace("{B}", BIN).replace("{sb}", sb)]
    else:
        cmd = ["nice", "-n", "10", BIN] + [a.replace("{sb}", sb) for a in c["argv"]]
    p = subprocess.Popen(cmd, cwd=sb, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                         start_new_session=True, preexec_fn=default_signals)
    hang = False
    sent = None
    if c["signal_at"]:
        delay, signo, target = c["signal_at"]
        time.sleep(delay)
        if p.poll() is None:
            if target == "group":
                os.killpg(p.pid, signo)
            else:
                # the roofline process itself (child of nice execs in place)
                os.kill(p.pid, signo)
            sent = signo
    try:
        so, se = p.communicate(input=(c["stdin"].encode() if isinstance(c["stdin"], str) else c["stdin"]),
                               timeout=c["timeout"])
    except subprocess.TimeoutExpired:
        hang = True
        os.killpg(p.pid, signal.SIGKILL)
        so, se = p.communicate()
    dt = time.time() - t0
    # survivors in the session (children left behind): give them 2 s to go
    for _ in range(20 if c["signal_at"] or c["cat"].startswith("profile") else 1):
        survivors = subprocess.run(["pgrep", "-s", str(p.pid)], capture_output=True, text=True).stdout.split()
        if not survivors:
            break
        time.sleep(0.1)
    if survivors:
        survivors = [subprocess.run(["ps", "-o", "pid=,stat=,args=", "-p", s], capture_output=True, text=True).stdout.strip()[:120]
                     for s in survivors]
    for s in survivors:
        try:
            os.kill(int(s.split()[0]), signal.SIGKILL)
        except Exception:
            pass
    after = snap(sb)
    leftover = os.listdir(tmpd)
    rc = p.returncode
    se_t = se.decode("utf-8", "replace")
    problems = []
    if hang:
        problems.append(("high", "hang", f"still running after {c['timeout']} s"))
    if rc == 101 or "panicked" in se_t:
        problems.append(("high", "panic", se_t[-400:]))
    if not hang and rc not in c["expect"] and not (sent and rc in (-sent, 128 + sent, 130, 143)):
        problems.append(("medium", "code", f"exit {rc}"))
    if rc == 2 and not se_t.strip():
        problems.append(("low", "silent", "exit 2 with nothing on stderr"))
    allowed = set(c["allowed"])
    for k in sorted(set(before) | set(after)):
        if k in allowed or any(k == a.rstrip("/") or k.startswith(a.rstrip("/") + "/") for a in allowed if a.endswith("/")):
            continue
        if before.get(k) != after.get(k):
            what = "created" if k not in before else "removed" if k not in after else "changed"
            problems.append(("high", "loss", f"{k} {what}: {before.get(k)} -> {after.get(k)}"))
    if leftover:
        problems.append(("high", "tmp-left", f"left in $TMPDIR: {sorted(leftover)[:5]}"))
    if survivors:
        problems.append(("high", "orphans", f"processes left in the session: {survivors}"))
    rb = None
    if c["readback"]:
        rp = os.path.join(sb, c["readback"])
        if os.path.isfile(rp):
            raw = open(rp, "rb").read()
            if c["readback"].endswith(".json"):
                try:
                    json.loads(raw, parse_constant=lambda x: (_ for _ in ()).throw(ValueError(x)))
                except Exception as e:
                    problems.append(("medium", "readback", f"not strict JSON: {e}"))
            r = subprocess.run(["nice", "-n", "10", "timeout", "30", BIN, "-q", "report", rp, "--format", "json"],
                               capture_output=True, text=True)
            rb = r.returncode
            if r.returncode != 0:
                problems.append(("medium", "readback", f"report refuses it (exit {r.returncode}): {r.stderr[-300:]}"))
    res = dict(i=idx, cat=c["cat"], name=c["name"], argv=c["argv"], shell=c["shell"], rc=rc, secs=round(dt, 2),
               stderr=se_t[-600:], stdout_len=len(so), problems=problems, readback_rc=rb, note=c["note"])
    if not problems:
        shutil.rmtree(sb, ignore_errors=True)
    return res

# ================================================================ CSV inputs
O = ["-o", "out.json"]
def imp(cat, name, text, extra=(), timeout=30, note=""):
    case(cat, name, ["import", "in.csv"] + O + list(extra), files={"in.csv": text}, allowed={"out.json"},
         readback="out.json", timeout=timeout, note=note)

cap_text = open(CAP, encoding="utf-8").read()
body_rows = CAPROWS
imp("csv-structure", "empty file", "")
imp("csv-structure", "only newline", "\n")
imp("csv-structure", "header only", csv_text(body_rows[:1]))
imp("csv-structure", "header+units only", csv_text(body_rows[:2]))
imp("csv-structure", "one data row", csv_text(body_rows[:3]))
imp("csv-structure", "truncated mid-file", cap_text[: len(cap_text) // 2])
imp("csv-structure", "truncated mid-quote", cap_text[: len(cap_text) // 2] + '"unterminated')
imp("csv-structure", "BOM", "\ufeff" + cap_text)
imp("csv-structure", "CRLF", cap_text.replace("\n", "\r\n"))
imp("csv-structure", "CR only", cap_text.replace("\n", "\r"))
imp("csv-structure", "semicolon delimited", csv_text(body_rows).replace('","', '";"'))
imp("csv-structure", "tab delimited", csv_text(body_rows).replace('","', '"\t"'))
imp("csv-structure", "no units row", csv_text(body_rows[:1] + body_rows[2:]))
imp("csv-structure", "units row twice", csv_text(body_rows[:2] + body_rows[1:]))
imp("csv-structure", "header twice (cat of 2 captures)", csv_text(body_rows) + csv_text(body_rows))
imp("csv-structure", "short row", csv_text(body_rows + [body_rows[2][:5]]))
imp("csv-structure", "long row", csv_text(body_rows[:3] + [body_rows[3] + ["x"] * 50]))
imp("csv-structure", "duplicate header column", csv_text([r + [r[198]] for r in body_rows]))
imp("csv-structure", "no Kernel Name column", csv_text([r[:4] + r[5:] for r in body_rows]))
imp("csv-structure", "no duration column", csv_text([r[:198] + r[199:] for r in body_rows]))
imp("csv-structure", "random binary", os.urandom(200000))
imp("csv-structure", "NUL bytes in cells", cap_text.replace("vecadd", "vec\x00add"))
imp("csv-structure", "invalid utf-8", cap_text.encode().replace(b"vecadd", b"vec\xff\xfeadd"))
imp("csv-structure", "utf-16", cap_text.encode("utf-16"))
imp("csv-structure", "trailing garbage line", cap_text + "garbage,line\n")
imp("csv-structure", "==PROF== lines in the middle", cap_text.replace("\n\"", "\n==PROF== x\n\"", 5))
imp("csv-structure", "200k columns header", '"' + '","'.join(f"c{i}" for i in range(200000)) + '"\n')
imp("csv-structure", "10 MB kernel name", mutate("Kernel Name", "k" * 10_000_000, row=2), timeout=60)
imp("csv-structure", "1 MB unquoted field", cap_text + "x" * 1_000_000 + "\n")
imp("csv-structure", "only == lines", "==PROF== a\n==WARNING== b\n")
imp("csv-structure", "json given as csv", open(f"{BASE}/an.json").read())
imp("csv-structure", "html given as csv", "<html><body>hi</body></html>")
imp("csv-structure", "print-summary style", '"Kernel Name","Invocations"\n"a","3"\n')
imp("csv-structure", "quoted newline in name (known)", mutate("Kernel Name", "a\nb", row=2), note="known: row split by newline")
imp("csv-structure", "5000 rows", csv_text(body_rows[:2] + body_rows[2:] * 200), timeout=60)

NUMCOLS = ["gpu__time_duration.sum", "sm__cycles_elapsed.avg.per_second", "dram__bytes.sum"]
for col in NUMCOLS:
    for v in ["0", "-1", "-0", "NaN", "nan", "inf", "-inf", "Infinity", "1e308", "1.7976931348623157e308", "1e309",
              "5e-324", "2.2e-308", "1e-300", "", "n/a", "1,2,3", "0x10", "١٢٣", "1e", "--5", "99999999999999999999999",
              " 12 ", "12 ns", "1_000"]:
        imp("csv-numbers", f"{col}={v!r} all rows", mutate(col, v))
    imp("csv-numbers", f"{col}=NaN one row", mutate(col, "NaN", row=3))
    imp("csv-numbers", f"{col}=1e308 one row", mutate(col, "1e308", row=3))
for u in ["psecond", "minute", "MB", "Gcycle", "", "ns\u202e", "usecond", "msecond", "second", "hour", "nsecond",
          "Kbyte", "sector", "byte/second"]:
    imp("csv-units", f"duration unit {u!r}", mutate("gpu__time_duration.sum", "100", units=u))
for u in ["Kbyte", "Mbyte", "Gbyte", "Tbyte", "Pbyte", "Ebyte", "Zbyte", "bit", "kib", "", "second", "sector"]:
    imp("csv-units", f"dram unit {u!r}", mutate("dram__bytes.sum", "1000", units=u))
for u in ["Mhz", "Ghz", "", "cycle/second", "cycle/nsecond", "ns"]:
    imp("csv-units", f"clock unit {u!r}", mutate("sm__cycles_elapsed.avg.per_second", "2000", units=u))

for nm in ["\x1b[31mred\x1b[0m", "=HYPERLINK(\"http://x\")", "+cmd|' /C calc'!A0", "<script>alert(1)</script>",
           "</script><script>x()</script>", "<!-- c -->", "a|b|c", "```", "# heading", "\u202eevil", "\u200b",
           "𝕜𝕖𝕣𝕟𝕖𝕝", "名前", "\t\ttab", " ", "", "\\", "\"quoted\"", "{rank}", "../../etc/passwd", "a" * 5000,
           "]]></svg>", "&amp;&lt;", "\x07bell", "\r", "\u0085nel", "\ufffd", "%s%n%x"]:
    imp("csv-names", f"kernel name {nm[:30]!r}", mutate("Kernel Name", nm, row=2))
    imp("csv-names", f"all names {nm[:30]!r}", mutate("Kernel Name", nm))

for col, v in [("Block Size", "(0, 0, 0)"), ("Block Size", "(-1, 1, 1)"), ("Block Size", "(99999999999, 1, 1)"),
               ("Grid Size", "(0, 1, 1)"), ("Grid Size", "(18446744073709551615, 1, 1)"), ("Grid Size", "garbage"),
               ("Block Size", "((((("), ("Device", "-1"), ("Device", "99999999999999999999"), ("CC", "999.9"),
               ("CC", "abc"), ("ID", "-5"), ("ID", "99999999999999999999999"), ("Process ID", "x"),
               ("Stream", "-1"), ("Context", "")]:
    imp("csv-fields", f"{col}={v!r}", mutate(col, v))

for fx in sorted(os.listdir(FIX)):
    if fx.endswith(".csv"):
        t = open(os.path.join(FIX, fx), encoding="utf-8").read()
        imp("fixtures", f"fixture {fx}", t)
        imp("fixtures", f"fixture {fx} per-launch", t, ["--per-launch"])
        imp("fixtures", f"fixture {fx} nersc instructions", t, ["--bytes", "nersc", "--view", "instructions"])

# import machine options
for extra in (["--gpu", "nosuch"], ["--gpu", ""], ["--machine", "cap.csv"], ["--machine", "/dev/null"],
              ["--machine", "an.json"], ["--machine", "merged.json"], ["--peak", "NaN GFLOP/s"],
              ["--peak", "-1 TFLOP/s"], ["--peak", "1e400 GFLOP/s"], ["--peak", "0 GFLOP/s"],
              ["--bandwidth", "0 GB/s"], ["--bandwidth", "inf TB/s"], ["--bandwidth", "5e-324 B/s"],
              ["--bandwidth", "1 parsec/s"], ["--peak", "1e308 EFLOP/s"], ["--peak-kind", "nosuch", "--peak", "1 TFLOP/s"],
              ["--view", "auto"], ["--view", "instructions"], ["--bytes", "nersc"], ["--per-launch"],
              ["--machine", "machine.json", "--gpu", "t4"], ["--ncu", "/nonexistent"]):
    case("import-flags", f"import {' '.join(extra)}", ["import", "cap.csv"] + O + extra, allowed={"out.json"},
         readback="out.json")

# ================================================================ JSON docs
an = json.load(open(f"{BASE}/an.json"))
def jdoc(cat, name, text, cmd="report", extra=(), allowed=("out.html",), ro="out.html"):
    argv = {"report": ["report", "in.json", "-o", ro], "check": ["check", "in.json", "--min-pct-of-roof", "1"],
            "diff": ["diff", "in.json", "an.json"], "merge": ["merge", "in.json", "an.json", "-o", "out.json"],
            "model": ["model", "--machine", "in.json", "-k", "a: flops=1 bytes=1"],
            "import": ["import", "cap.csv", "--machine", "in.json", "-o", "out.json"],
            "baseline": ["check", "an.json", "--baseline", "in.json"]}[cmd] + list(extra)
    al = set(allowed) | ({"out.json"} if cmd in ("merge", "import") else set())
    case(cat, f"{cmd}: {name}", argv, files={"in.json": text}, allowed=al,
         readback="out.json" if cmd in ("merge", "import") else None)

def setpath(doc, path, val):
    d = json.loads(json.dumps(doc))
    cur = d
    for k in path[:-1]:
        cur = cur[k]
    cur[path[-1]] = val
    return json.dumps(d)

kern0 = an["kernels"][0] if "kernels" in an else None
JSON_BAD = [("empty", ""), ("{}", "{}"), ("[]", "[]"), ("null", "null"), ("number", "1e999"), ("string", '"x"'),
            ("truncated", json.dumps(an)[:5000]), ("deep array", "[" * 100000 + "]" * 100000),
            ("deep object", '{"a":' * 50000 + "1" + "}" * 50000), ("NaN literal", json.dumps(an).replace("1978.6546218011395", "NaN")),
            ("schema v999", json.dumps(an).replace("roofline.analysis/v2", "roofline.analysis/v999")),
            ("schema missing", json.dumps({k: v for k, v in an.items() if k != "schema"})),
            ("utf-16", json.dumps(an).encode("utf-16")), ("BOM", "\ufeff" + json.dumps(an)),
            ("trailing garbage", json.dumps(an) + "xx"), ("duplicate keys", '{"schema":"a","schema":"roofline.analysis/v2"}'),
            ("huge number 1e400", json.dumps(an).replace("1978.6546218011395", "1e400")),
            ("negative clock", json.dumps(an).replace("1978.6546218011395", "-1978.6")),
            ("zero clock", json.dumps(an).replace("1978.6546218011395", "0")),
            ("subnormal clock", json.dumps(an).replace("1978.6546218011395", "5e-324")),
            ("sms 0", json.dumps(an).replace('"sms": 132', '"sms": 0').replace('"sms":132', '"sms":0')),
            ("machine null", setpath(an, ["machine"], None)), ("kernels empty", setpath(an, ["kernels"], [])) if "kernels" in an else ("x", "x"),
            ("machine.json as analysis", open(f"{BASE}/m.json").read()), ("merged as analysis", open(f"{BASE}/merged.json").read()),
            ("csv as json", cap_text)]
# walk every numeric leaf of the first kernel and of machine, replace with hostile numbers
def leaves(o, path=()):
    if isinstance(o, dict):
        for k, v in o.items():
            yield from leaves(v, path + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o[:2]):
            yield from leaves(v, path + (i,))
    else:
        yield path, o
num_leaves = [(p, v) for p, v in leaves(an) if isinstance(v, (int, float)) and not isinstance(v, bool)]
str_leaves = [(p, v) for p, v in leaves(an) if isinstance(v, str)]
def rawset(doc, path, raw):
    marker = "\u2603MARK\u2603"
    return setpath(doc, list(path), marker).replace(json.dumps(marker), raw)
for text_name, text in JSON_BAD:
    for cmd in ("report", "check", "diff", "merge", "model", "baseline"):
        jdoc("json-structure", text_name, text, cmd)
import random
rnd = random.Random(3)
for p, v in num_leaves:
    for raw in ("-1", "0", "1e308", "5e-324", "-1e308", "1e400", "18446744073709551616"):
        jdoc("json-numbers", f"{'/'.join(map(str, p))}={raw}", rawset(an, p, raw), rnd.choice(["report", "check", "diff", "merge"]))
for p, v in str_leaves[:80]:
    for raw in ('"<!--"', '"</script>"', '"\\u0000\\u001b[2J"', "123", "null"):
        jdoc("json-strings", f"{'/'.join(map(str, p))}={raw}", rawset(an, p, raw), rnd.choice(["report", "check", "diff"]))

# report formats / flags
for fmt in ("table", "json", "csv", "markdown", "html", "trace", "chart"):
    for doc in ("an.json", "merged.json", "m.json", "model.json", "pl.json", "g.json"):
        case("report-formats", f"report {doc} --format {fmt}", ["report", doc, "--format", fmt])
for ext in ("json", "csv", "md", "html", "svg", "txt", "xyz", ""):
    case("report-formats", f"report -o out.{ext}", ["report", "an.json", "-o", f"out.{ext}" if ext else "out"],
         allowed={f"out.{ext}" if ext else "out"})
for w in ("0", "1", "-1", "10", "99999999", "18446744073709551616", "NaN"):
    case("report-flags", f"report --width {w}", ["report", "an.json", "--format", "chart", "--width", w])
    case("report-flags", f"report --width {w} svg", ["report", "an.json", "--width", w, "--svg", "o.svg"], allowed={"o.svg"})
for t in ("", "<script>x</script>", "\x1b]0;pwn\x07", "a" * 100000, "<!--", "\u202e"):
    case("report-flags", f"report --title {t[:20]!r}", ["report", "an.json", "--title", t, "-o", "o.html"], allowed={"o.html"})
for v in ("flops", "instructions", "auto", "nosuch"):
    case("report-flags", f"report --view {v}", ["report", "an.json", "--view", v, "--format", "chart"])

# check
for extra in (["--min-pct-of-roof", "NaN"], ["--min-pct-of-roof", "-1"], ["--min-pct-of-roof", "1e309"],
              ["--min-pct-of-roof", "inf"], ["--min-pct-of-roof", "101"], ["--min-time-share", "NaN"],
              ["--min-time-share", "-5"], ["--kernel", "=50"], ["--kernel", "vecadd="], ["--kernel", "vecadd=NaN"],
              ["--kernel", "nosuch=50"], ["--kernel", "vecadd=50=3"], ["--kernel", "=" * 1000],
              ["--baseline", "an.json"], ["--baseline", "pl.json"], ["--baseline", "merged.json"], ["--baseline", "m.json"],
              ["--baseline", "/dev/null"], ["--baseline", "cap.csv"], ["--baseline", "g.json", "--max-regression", "NaN"],
              ["--baseline", "g.json", "--max-regression", "-1"], ["--max-regression", "5"], ["--config", "/dev/null"],
              ["--config", "cap.csv"], ["--config", "an.json"], [], ["--min-pct-of-roof", "10", "-o", "an.json"],
              ["--min-pct-of-roof", "10", "-o", "chk.json"], ["--min-pct-of-roof", "10", "-o", "/nonexistent/x.json"]):
    al = {"chk.json"} if "chk.json" in extra else set()
    case("check", f"check an.json {' '.join(extra)}", ["check", "an.json"] + extra, allowed=al)
    case("check", f"check pl.json {' '.join(extra)}", ["check", "pl.json"] + extra, allowed=al)
for cfg in ["", "[[kernel]]\nname=\"vecadd\"\nmin_pct_of_roof=nan\n", "min_pct_of_roof = 1e400\n", "[[[",
            "min_pct_of_roof = \"x\"\n", "[[kernel]]\n" * 10000, "min_pct_of_roof = -inf\n",
            "a = " + "[" * 10000 + "]" * 10000 + "\n", "\x00\x01", "max_regression = 5\n"]:
    case("check", f"check --config {cfg[:25]!r}", ["check", "an.json", "--config", "c.toml"], files={"c.toml": cfg})
no_dur = mutate("gpu__time_duration.sum", "")
case("check", "check on an analysis imported with no durations",
     None, shell="{B} -q import nd.csv -o nd.json; {B} check nd.json --min-pct-of-roof 10; echo rc=$?; exit $?",
     files={"nd.csv": no_dur}, allowed={"nd.json"})

# diff
for a, b, extra in (("an.json", "an.json", []), ("an.json", "g.json", []), ("an.json", "pl.json", []),
                    ("merged.json", "an.json", []), ("m.json", "an.json", []), ("an.json", "/dev/null", []),
                    ("an.json", "cap.csv", []), ("an.json", "g.json", ["--match", "vecadd=nosuch"]),
                    ("an.json", "g.json", ["--match", "="]), ("an.json", "g.json", ["--match", "x"]),
                    ("an.json", "an.json", ["--match", "vecadd=saxpy", "--match", "vecadd=scale"]),
                    ("an.json", "g.json", ["-o", "an.json"]), ("an.json", "g.json", ["-o", "g.json"]),
                    ("an.json", "g.json", ["-o", "d.html"]), ("an.json", "g.json", ["-o", "d.json"]),
                    ("an.json", "g.json", ["-o", "d.md"]), ("an.json", "g.json", ["-o", "d.csv"]),
                    ("an.json", "g.json", ["--title", "<!--</script>"])):
    al = {x for x in extra if x.startswith("d.")}
    case("diff", f"diff {a} {b} {' '.join(extra)}", ["diff", a, b] + extra, allowed=al)

# merge
for args in (["an.json"], ["an.json", "an.json"], ["an.json", "merged.json"], ["merged.json", "merged.json"],
             ["m.json", "an.json"], ["an.json", "/dev/null"], ["an.json", "cap.csv"], ["pl.json", "g.json"],
             ["an.json", "g.json", "--machine", "/dev/null"], ["an.json", "g.json", "--machine", "cap.csv"],
             ["an.json", "g.json", "--machine", "m.json"], ["an.json", "g.json", "-o", "an.json"],
             ["an.json", "g.json", "-o", "./g.json"], ["an.json"] * 300):
    al = set()
    case("merge", f"merge {' '.join(args[:6])}", ["merge"] + args + ([] if "-o" in args else ["-o", "mo.json"]),
         allowed={"mo.json"}, readback="mo.json")

# model
for spec in ["k: flops=1e308 bytes=0.1 time=1ms", "k: flops=1e307 bytes=0.1 time=1ms", "k: flops=NaN bytes=1",
             "k: flops=inf bytes=1", "k: flops=-1 bytes=1", "k: flops=1 bytes=0", "k: flops=0 bytes=0",
             "k: flops=1 bytes=-1", "k: flops=5e-324 bytes=1", "k: flops=1 bytes=5e-324", "k: flops=1 bytes=1 time=0",
             "k: flops=1 bytes=1 time=-1ms", "k: flops=1 bytes=1 time=NaN", "k: flops=1 bytes=1 time=1e-300s",
             "k: flops=1 bytes=1 time=1e300s", "k: flops=1 bytes=1 time=1parsec", "k: flops=1 bytes=1 elements=1e308",
             "k: flops=1e200 bytes=1e200 elements=1e200", "k: flops=1 bytes=1 elements=-1", "k: flops=1 bytes=1 elements=0",
             "k: flops=1 bytes=1 kind=nosuch", "k: flops=1 bytes=1 kind=", "k flops=1 bytes=1", ":", "", "k:",
             "k: flops=1", "k: bytes=1", "k: flops=1 bytes=1 dram=2 l2=NaN", "k: flops=1 bytes=1 l1=-1",
             "\x1b[31m: flops=1 bytes=1", "<!--: flops=1 bytes=1", "k: flops==1 bytes=1", "k: flops=1 flops=2 bytes=1",
             "k: flops=1e-320 bytes=1e-320 time=1e-320s", "k: flops=1 bytes=1 time=1ns", "k: flops=1 bytes=1 time=1 ps",
             "a" * 100000 + ": flops=1 bytes=1"]:
    case("model", f"model -k {spec[:50]!r}", ["model", "--gpu", "h200", "-k", spec, "-o", "mo.json"],
         allowed={"mo.json"}, readback="mo.json")
for extra in (["--peak", "NaN GFLOP/s", "--bandwidth", "1 GB/s"], ["--peak", "1 GFLOP/s"], ["--bandwidth", "1 GB/s"],
              ["--peak", "1e308 EFLOP/s", "--bandwidth", "1e308 EB/s"], ["--peak", "5e-324 FLOP/s", "--bandwidth", "5e-324 B/s"],
              ["--peak", "1 GB/s", "--bandwidth", "1 GFLOP/s"], ["--machine", "an.json"], ["--machine", "merged.json"],
              ["--machine", "cap.csv"], ["--machine", "/dev/zero"], ["--gpu", "t4", "--machine", "m.json"], []):
    case("model", f"model {' '.join(extra)}", ["model", "-k", "k: flops=1 bytes=1"] + extra + ["-o", "mo.json"],
         allowed={"mo.json"}, readback="mo.json", timeout=20)
for toml in ["", "[[kernel]]\n", "[[kernel]]\nname='a'\nflops=1e400\nbytes=1\n", "[[kernel]]\nname='a'\nflops=nan\nbytes=1\n",
             "[[kernel]]\nname='a'\nflops=inf\nbytes=1\ntime='1ms'\n", "[machine]\ngpu='nosuch'\n[[kernel]]\nname='a'\nflops=1\nbytes=1\n",
             "[machine]\npeak='NaN GFLOP/s'\nbandwidth='1 GB/s'\n[[kernel]]\nname='a'\nflops=1\nbytes=1\n",
             "[[kernel]]\nname='a'\nflops=1\nbytes=1\n" * 1 + "[[kernel]]\nname='a'\nflops=2\nbytes=1\n",
             "x" * 100000, "[[kernel]]\nname='a'\nflops=-1\nbytes=-1\ntime='-1ms'\n", "[[kernel]]\nname=1\n"]:
    case("model", f"model toml {toml[:40]!r}", ["model", "--gpu", "h200", "m.toml", "-o", "mo.json"], files={"m.toml": toml},
         allowed={"mo.json"}, readback="mo.json")
case("model", "model many kernels", ["model", "--gpu", "h200", "m.toml", "-o", "mo.json"],
     files={"m.toml": "".join(f"[[kernel]]\nname='k{i}'\nflops={i}\nbytes={i+1}\ntime='{i+1}us'\n" for i in range(5000))},
     allowed={"mo.json"}, readback="mo.json", timeout=60)

# peaks
for extra in (["--list"], ["--gpu", "h200"], ["--gpu", "nosuch"], ["--gpu", ""], ["--all-devices"], ["--device", "99"],
              ["--device", "-1"], ["--device", "18446744073709551616"], [], ["--gpu", "h200", "-o", "p.svg"],
              ["--gpu", "h200", "-o", "p.html"], ["--gpu", "h200", "-o", "p.md"], ["--gpu", "h200", "-o", "p.csv"],
              ["--gpu", "h200", "--format", "chart"], ["--gpu", "h200", "--format", "trace"]):
    al = {x for x in extra if x.startswith("p.")}
    case("peaks", f"peaks {' '.join(extra)}", ["peaks"] + extra, allowed=al)
for extra in ([], ["--quick"], ["--only", "dram"], ["--only", ""], ["--all-devices"], ["--device", "9"]):
    case("bench", f"bench {' '.join(extra)} (no GPU)", ["bench"] + extra + ["-o", "b.json"], allowed={"b.json"}, timeout=60)

# occupancy
OCC = [["--gpu", "h200", "--threads", "256"], ["--gpu", "h200", "--threads", "0"], ["--gpu", "h200", "--threads", "2049"],
       ["--gpu", "h200", "--threads", "4294967296"], ["--gpu", "h200", "--threads", "256", "--regs", "0"],
       ["--gpu", "h200", "--threads", "256", "--regs", "256"], ["--gpu", "h200", "--threads", "256", "--regs", "4294967295"],
       ["--gpu", "h200", "--threads", "256", "--smem-static", "18446744073709550616", "--smem-dynamic", "2000"],
       ["--gpu", "h200", "--threads", "256", "--smem-dynamic", "18446744073709551615"],
       ["--gpu", "h200", "--threads", "256", "--smem-dynamic", "-1"], ["--gpu", "h200", "--threads", "256", "--carveout", "101"],
       ["--gpu", "h200", "--threads", "256", "--carveout", "-1"], ["--gpu", "h200", "--threads", "256", "--carveout", "NaN"],
       ["--gpu", "h200", "--threads", "256", "--barriers", "0"], ["--gpu", "h200", "--threads", "256", "--barriers", "99999"],
       ["--cc", "9.0", "--threads", "256"], ["--cc", "99.9", "--threads", "256"], ["--cc", "x", "--threads", "256"],
       ["--cc", "1.0", "--threads", "256"], ["--cc", "", "--threads", "256"], ["--threads", "256"], [],
       ["--gpu", "h200", "--threads", "256", "--sweep", "all", "--svg-dir", "sv", "--grid-csv", "gc.csv", "--grid-json", "gj.json"],
       ["--gpu", "h200", "--threads", "256", "--sweep", "all", "--svg-dir", "sv", "--grid-csv", "gc.csv", "--grid-json", "gc.csv"],
       ["--gpu", "h200", "--threads", "256", "--sweep", "all", "--svg-dir", "an.json"],
       ["--gpu", "h200", "--threads", "256", "--sweep", "block", "--svg-dir", "sv", "--grid-csv", "an.json"],
       ["--gpu", "h200", "--threads", "256", "--sweep", "regs", "--svg-dir", "sv", "--grid-csv", "/dev/full"],
       ["--gpu", "h200", "--threads", "256", "--sweep", "smem", "--svg-dir", "/dev/null"],
       ["--gpu", "h200", "--threads", "256", "--verify-device"],
       ["--gpu", "h200", "--threads", "256", "--sweep", "all", "--svg-dir", "sv", "--grid-csv", "gc.csv", "--grid-json", "gj.json", "-o", "gc.csv"],
       ]
for extra in OCC:
    if "--threads" in extra and "--regs" not in extra:
        extra = extra + ["--regs", "32"]
    al = {"sv/", "gc.csv", "gj.json", "occupancy_grid.csv", "occupancy_grid.json", "oc.json"}
    case("occupancy", f"occupancy {' '.join(extra)}", ["occupancy"] + extra + ([] if "-o" in extra else ["-o", "oc.json"]),
         allowed=al)

# tour
for extra, al in ((["--out-dir", "t"], {"t/"}), (["--out-dir", "an.json"], set()), (["--out-dir", "/dev/null"], set()),
                  (["--out-dir", "."], {"report.html", "analysis.json", "machine.json", "examples.ncu.csv"}),
                  (["--out-dir", "t", "-o", "t/analysis.json"], {"t/"}), (["--out-dir", "t", "-o", "an.json"], {"t/"}),
                  (["--out-dir", "t", "--format", "chart"], {"t/"}), (["--out-dir", "t", "--no-ncu"], {"t/"}),
                  (["--out-dir", "t", "--ncu", "/nonexistent"], {"t/"}), (["--out-dir", ""], set()),
                  (["--out-dir", "t", "--device", "99"], {"t/"})):
    case("tour", f"tour --bundled {' '.join(extra)}", ["tour", "--bundled"] + extra, allowed=al, timeout=60)
# tour into a folder whose analysis.json is a symlink to a file outside it
def tour_symlink(sb):
    os.makedirs(f"{sb}/t")
    open(f"{sb}/victim.txt", "w").write("precious\n")
    os.symlink("../victim.txt", f"{sb}/t/analysis.json")
case("tour", "tour --bundled: out-dir/analysis.json symlinks to a file outside", ["tour", "--bundled", "--out-dir", "t"],
     setup=tour_symlink, allowed={"t/"}, note="does tour replace or write through a planted symlink outside its folder")

# ================================================================ -o spellings and special targets
def hard(sb):
    os.link(f"{sb}/an.json", f"{sb}/hard.json")
    os.symlink("an.json", f"{sb}/sym.json")
    os.symlink("nowhere/x.json", f"{sb}/dangling.json")
    os.symlink("loop2.json", f"{sb}/loop1.json"); os.symlink("loop1.json", f"{sb}/loop2.json")
    os.mkdir(f"{sb}/dir.json")
    os.mkfifo(f"{sb}/fifo.json")
    os.mknod(f"{sb}/null.json", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    os.mknod(f"{sb}/full.json", 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    open(f"{sb}/private.json", "w").write("{}"); os.chmod(f"{sb}/private.json", 0o600)
    os.mkdir(f"{sb}/sub"); os.symlink("../cap.csv", f"{sb}/sub/capsym.csv")
for tgt, al, expect_note in [
        ("an.json", set(), "input itself"), ("./an.json", set(), "input, ./ spelling"), ("{sb}/an.json", set(), "input, absolute"),
        ("sub/../an.json", set(), "input via .."), ("hard.json", set(), "hard link of the input"),
        ("sym.json", set(), "symlink to the input"), ("dangling.json", {"dangling.json", "nowhere/"}, "dangling symlink"),
        ("loop1.json", set(), "symlink loop"), ("dir.json", set(), "a directory"), ("null.json", set(), "a private /dev/null node"),
        ("full.json", set(), "a private /dev/full node"), ("private.json", {"private.json"}, "0600 file: mode must stay"),
        ("x" * 251 + ".json", {"x" * 251 + ".json"}, "251+5 chars"), ("x" * 255 + ".json", set(), "over NAME_MAX"),
        ("nodir/out.json", set(), "missing folder"), ("out.json/", set(), "trailing slash"), ("", set(), "empty"),
        ("-", {"-"}, "dash"), ("new\nline.json", {"new\nline.json"}, "newline in name"), ("/proc/version", set(), "procfs"),
        ("{rank}.json", {"{rank}.json", "0.json"}, "rank placeholder"),
        ("cap.csv", set(), "the capture as output (other input)"), ("sub/capsym.csv", set(), "symlink to the capture")]:
    case("output-target", f"import cap.csv -o {tgt!r} ({expect_note})", ["import", "cap.csv", "-o", tgt], setup=hard,
         allowed=al, readback=tgt if tgt.endswith(".json") and al and "{" not in tgt and "\n" not in tgt else None, timeout=20)
    case("output-target", f"report an.json -o {tgt!r} ({expect_note})", ["report", "an.json", "-o", tgt], setup=hard,
         allowed=al, timeout=20)
def fifo_reader(sb):
    hard(sb)
    subprocess.Popen(["bash", "-c", f"cat {sb}/fifo.json > {sb}/fifo-got.txt"])
case("output-target", "report -o FIFO with a reader", ["report", "an.json", "-o", "fifo.json"], setup=fifo_reader,
     allowed={"fifo-got.txt"}, timeout=20)
case("output-target", "report -o FIFO without a reader", ["report", "an.json", "-o", "fifo.json"], setup=hard, timeout=10,
     note="blocks like any writer to a FIFO without a reader; judged as a hang only if no message")
case("output-target", "report --svg same as -o", ["report", "an.json", "--svg", "o.svg", "-o", "o.svg"], allowed={"o.svg"})
case("output-target", "report --svg onto input", ["report", "an.json", "--svg", "an.json"])
case("output-target", "report --svg ./o.svg -o o.svg", ["report", "an.json", "--svg", "./o.svg", "-o", "o.svg"], allowed={"o.svg"})
case("output-target", "import -o an.json where an.json is --machine", ["import", "cap.csv", "--machine", "an.json", "-o", "an.json"])
case("output-target", "model -o the toml", ["model", "--gpu", "h200", "m.toml", "-o", "m.toml"],
     files={"m.toml": "[[kernel]]\nname='a'\nflops=1\nbytes=1\n"})
case("output-target", "check --config c.toml -o c.toml", ["check", "an.json", "--config", "c.toml", "-o", "c.toml"],
     files={"c.toml": "min_pct_of_roof = 1\n"})
case("output-target", "check --baseline g.json -o g.json", ["check", "an.json", "--baseline", "g.json", "-o", "g.json"])
case("output-target", "merge -o hard link of a rank file", ["merge", "an.json", "g.json", "-o", "hard.json"], setup=hard)
case("output-target", "merge -o a rank file via symlink", ["merge", "an.json", "g.json", "-o", "sym.json"], setup=hard)
case("output-target", "import -o into {rank} via env", ["import", "cap.csv", "-o", "r{rank}.json"], allowed={"r3.json"},
     env={"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "3"}, readback="r3.json")
case("output-target", "import -o under torchrun env without {rank}", ["import", "cap.csv", "-o", "o.json"],
     allowed={"o.json", "o.rank3.json"}, env={"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "3"})
case("output-target", "import -o rankN name collides with input", ["import", "cap.csv", "-o", "an.json"],
     setup=lambda sb: shutil.copy(f"{sb}/an.json", f"{sb}/an.rank3.json"), env={"RANK": "3", "WORLD_SIZE": "4"},
     note="an.rank3.json exists and is not an input: replacing it is -o's target; an.json must stay")
case("output-target", "import an.rank3.json-named input is the rank target", ["import", "o.rank3.csv", "-o", "o.csv"],
     files={"o.rank3.csv": cap_text}, env={"RANK": "3", "WORLD_SIZE": "4"}, allowed={"o.csv"})
# read-only folder (root ignores modes: use a read-only bind? not available) -> use /proc and /sys
case("output-target", "-o into /sys", ["import", "cap.csv", "-o", "/sys/roofline.json"])

# ================================================================ special inputs
for src in ("/dev/null", "/dev/zero", "/dev/full", "/dev/urandom", "/proc/self/status", "/", ".", "nonexistent.csv",
            "dir.json", "fifo.json", "null.json", "loop1.json", "dangling.json", "", "-"):
    for sub in (["import"], ["report"], ["check"], ["merge"], ["diff", "an.json"], ["model", "--gpu", "h200"]):
        case("special-input", f"{' '.join(sub)} {src}", sub + [src], setup=hard, timeout=15,
             note="fifo without a writer may block like cat" if "fifo" in src else "")
def fifo_writer(sb):
    hard(sb)
    subprocess.Popen(["bash", "-c", f"cat {sb}/cap.csv > {sb}/fifo.json"])
case("special-input", "import from a FIFO with a writer", ["import", "fifo.json", "-o", "o.json"], setup=fifo_writer,
     allowed={"o.json"}, readback="o.json")
case("special-input", "import /dev/stdin from a pipe", ["import", "/dev/stdin", "-o", "o.json"], stdin=cap_text,
     allowed={"o.json"}, readback="o.json")
case("special-input", "import huge /dev/stdin stream", None,
     shell="head -c 300000000 /dev/zero | tr '\\0' 'a' | {B} import /dev/stdin", timeout=60)
case("special-input", "import 50 MB of newlines", None, shell="head -c 50000000 /dev/zero | tr '\\0' '\\n' > big.csv; {B} import big.csv",
     allowed={"big.csv"}, timeout=60)

# ================================================================ stdout/stderr faults
for sub in (["import", "cap.csv"], ["report", "an.json"], ["report", "an.json", "--format", "html"], ["check", "an.json",
            "--min-pct-of-roof", "10"], ["diff", "an.json", "g.json"], ["merge", "an.json", "g.json"],
            ["peaks", "--gpu", "h200"], ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--sweep", "all", "--svg-dir", "sv"], ["model", "--gpu", "h200", "-k", "a: flops=1 bytes=1"], ["occupancy", "--gpu",
            "h200", "--threads", "256"], ["tour", "--bundled", "--out-dir", "t"], ["peaks", "--list"], ["--help"]):
    s = " ".join(shlex.quote(a) for a in sub)
    al = {"t/", "o.json", "sv/", "occupancy_grid.csv", "occupancy_grid.json"}
    o = "" if sub[0] in ("--help",) else " -o o.json"
    for label, redir in (("stdout closed", ">&-"), ("stderr closed", "2>&-"), ("both closed", ">&- 2>&-"),
                         ("stdout /dev/full", ">/dev/full"), ("stderr /dev/full", "2>/dev/full"),
                         ("stdout|head -c1", "| head -c1 >/dev/null"), ("stderr|head -c1", "2>&1 >/dev/null | head -c1 >/dev/null"),
                         ("stdin closed", "<&-")):
        case("stdio-faults", f"{s}{o} with {label}", None,
             shell=f"{{B}} {s}{o} {redir}; rc=${{PIPESTATUS[0]}}; echo rc=$rc >&3; exit $rc".replace(">&3", ">>rc.txt"),
             allowed=al | {"rc.txt"}, readback="o.json" if o and sub[0] in ("import", "merge", "model") or sub[:2] == ["peaks", "--gpu"] else None)
    case("stdio-faults", f"{s}{o} stderr full: -o must still be written", None,
         shell=f"{{B}} {s}{o} 2>/dev/full; rc=$?; test -s o.json || echo MISSING-O >&2; exit $rc" if o else "true",
         allowed=al)

# ================================================================ signals on import/report with -o
big = csv_text(body_rows[:2] + body_rows[2:] * 2000)
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGHUP):
    for delay in (0.05, 0.3, 1.0, 2.5):
        case("signals", f"import big.csv -o an.json-existing target, {signal.Signals(sig).name} at {delay}s",
             ["import", "big.csv", "-o", "tgt.json"], files={"big.csv": big},
             setup=lambda sb: shutil.copy(f"{sb}/an.json", f"{sb}/tgt.json"), allowed={"tgt.json"},
             signal_at=(delay, sig, "pid"), readback="tgt.json", timeout=90,
             note="target must be the old or the new document, whole; known: temp left on SIGTERM during -o write")

# ================================================================ profile / timeline with a stand-in ncu
STANDIN = r'''#!/bin/sh
D="$(dirname "$0")"
if [ "$1" = "--query-metrics" ]; then exit 1; fi
if [ "$1" = "--version" ]; then echo "NVIDIA (R) Nsight Compute Command Line Profiler 2025.3"; exit 0; fi
if [ "$1" = "--import" ]; then cat "$2"; exit 0; fi
printf '%s\n' "$@" >> "$D/ncu-args"
log=""; rep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --log-file) log="$2"; shift 2;;
    --export|-o) rep="$2"; shift 2;;
    --csv|--nvtx|--force-overwrite|-f) shift;;
    --page|--print-units|--clock-control|--metrics|--kernel-name|--kernel-name-base|--print-kernel-base|--filter-mode|--kernel-id|--launch-count|--launch-skip|--nvtx-include|--nvtx-exclude|--target-processes|--replay-mode|--cache-control|--section) shift 2;;
    --*) shift;;
    *) break;;
  esac
done
MODE="$(cat "$D/mode" 2>/dev/null)"
CAPF="$D/capture.csv"
if [ -n "$log" ]; then grep '^==' "$CAPF" > "$log"; fi
case "$MODE" in
  crash) kill -SEGV $$;;
  fail) echo "==ERROR== something broke" >&2; exit 7;;
  garbage) [ -n "$rep" ] && head -c 100000 /dev/urandom > "$rep";;
  empty) [ -n "$rep" ] && : > "$rep";;
  huge-stdout) head -c 20000000 /dev/zero | tr '\0' 'x';;
  noreport) ;;
  hang) [ -n "$rep" ] && grep -v '^==' "$CAPF" > "$rep"; sleep 1000;;
  hang-ignint) trap '' INT TERM; [ -n "$rep" ] && grep -v '^==' "$CAPF" > "$rep"; sleep 1000;;
  *) [ -n "$rep" ] && grep -v '^==' "$CAPF" > "$rep";;
esac
"$@"
'''
def standin(mode, capture=CAP):
    def s(sb):
        os.makedirs(f"{sb}/bin", exist_ok=True)
        open(f"{sb}/bin/ncu", "w").write(STANDIN)
        os.chmod(f"{sb}/bin/ncu", 0o755)
        shutil.copy(capture, f"{sb}/bin/capture.csv")
        open(f"{sb}/bin/mode", "w").write(mode)
    return s
ALP = {"bin/", "pr.json", "pr.csv"}
PATHENV = {"PATH": "{sb}/bin:/usr/bin:/bin"}
for mode in ("ok", "crash", "fail", "garbage", "empty", "huge-stdout", "noreport"):
    for extra in ([], ["--one-pass"], ["-k", "vecadd"], ["--save-csv", "pr.csv"], ["--save-csv", "cap.csv"],
                  ["--save-csv", "pr.json", "-o", "pr.json"], ["--save-csv", "/dev/full"], ["-o", "/nonexistent/x.json"],
                  ["--group-by", "nvtx"], ["--collectives", "lockstep"], ["--metrics", ""], ["--ncu-arg", "--bogus"]):
        case("profile", f"profile [{mode}] {' '.join(extra)}", ["profile", "--ncu", "{sb}/bin/ncu"] + extra +
             ([] if "-o" in extra else ["-o", "pr.json"]) + ["--", "true"],
             setup=standin(mode), allowed=ALP, env=PATHENV, readback="pr.json", timeout=60)
for extra in (["--timeout", "0"], ["--timeout", "-1"], ["--timeout", "1e20"], ["--timeout", "99999999999999h"],
              ["--timeout", "x"], ["--timeout", "1ms"], ["--coverage", "0"], ["--coverage", "101"], ["--coverage", "NaN"],
              ["--launches-per-kernel", "0"], ["--launches-per-kernel", "18446744073709551616"], ["-c", "0"], ["-s", "-1"],
              ["--clock-control", "base"], ["--print-units", "nosuch"], ["--ncu", "/nonexistent"], ["--ncu", "/"],
              ["--ncu", "cap.csv"], ["--ncu", "/dev/null"], ["--gpu", "t4"], ["--machine", "an.json"]):
    case("profile-flags", f"profile {' '.join(extra)}", ["profile"] + (["--ncu", "{sb}/bin/ncu"] if "--ncu" not in extra else [])
         + extra + ["-o", "pr.json", "--", "true"], setup=standin("ok"), allowed=ALP, env=PATHENV, readback="pr.json", timeout=60)
for prog in (["/nonexistent"], ["./cap.csv"], [""], ["sh", "-c", "exit 3"], ["sh", "-c", "kill -SEGV $$"],
             ["sh", "-c", "exec 1>&-; exec 2>&-; sleep 0.1"], ["sh", "-c", "head -c 5000000 /dev/zero"]):
    case("profile", f"profile -- {' '.join(prog)}", ["profile", "--ncu", "{sb}/bin/ncu", "-o", "pr.json", "--"] + prog,
         setup=standin("ok"), allowed=ALP, env=PATHENV, readback="pr.json", timeout=60)
case("profile", "profile without ncu anywhere", ["profile", "--", "true"], env={"PATH": "/usr/bin:/bin", "CUDA_HOME": "/nonexistent"})
case("profile", "profile with the stand-in on PATH", ["profile", "-o", "pr.json", "--", "true"], setup=standin("ok"),
     allowed=ALP, env=PATHENV, readback="pr.json", timeout=60)
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    for tgt in ("pid", "group"):
        for mode in ("hang", "hang-ignint"):
            case("profile-signals", f"profile [{mode}] {signal.Signals(sig).name} to {tgt} at 1.5s",
                 ["profile", "--ncu", "{sb}/bin/ncu", "--one-pass", "-o", "pr.json", "--save-csv", "pr.csv", "--", "sleep", "1000"],
                 setup=standin(mode), allowed=ALP, env=PATHENV, signal_at=(1.5, sig, tgt), readback="pr.json", timeout=30,
                 note="known: children ignoring SIGINT survive" if mode == "hang-ignint" else "")
case("profile-signals", "profile --timeout 2s with a hanging ncu", ["profile", "--ncu", "{sb}/bin/ncu", "--one-pass",
     "--timeout", "2s", "-o", "pr.json", "--", "sleep", "1000"], setup=standin("hang"), allowed=ALP, env=PATHENV,
     readback="pr.json", timeout=30)
case("profile-signals", "profile --timeout 2s, ncu ignores INT/TERM", ["profile", "--ncu", "{sb}/bin/ncu", "--one-pass",
     "--timeout", "2s", "-o", "pr.json", "--", "sleep", "1000"], setup=standin("hang-ignint"), allowed=ALP, env=PATHENV,
     readback="pr.json", timeout=40)
for extra in ([], ["--timeout", "1s"], ["--timeout", "0"], ["--top", "0"], ["--top", "18446744073709551616"], ["--gaps", "0"],
              ["--cupti", "/nonexistent"], ["--inject-lib", "/nonexistent"], ["--inject-lib", "cap.csv"], ["--records", "an.json"],
              ["--records", "/dev/null"], ["--records", "rec"], ["--format", "trace"], ["--target-processes", "application-only"],
              ["-o", "tl.json"], ["-o", "tl.html"]):
    case("timeline", f"timeline {' '.join(extra)} -- true", ["timeline"] + extra + ["--", "true"],
         allowed={"rec/", "tl.json", "tl.html"}, timeout=60)
for sig in (signal.SIGINT, signal.SIGTERM):
    case("timeline", f"timeline -- sleep 1000, {signal.Signals(sig).name} at 1s", ["timeline", "--", "sleep", "1000"],
         signal_at=(1.0, sig, "pid"), timeout=20)

# ================================================================ global flags
for extra in (["--color", "always"], ["--color", "nosuch"], ["--wide"], ["-q"], ["--format", "nosuch"], ["-V"], ["--help"],
              ["nosuch"], [], ["report"], ["--format"], ["-o"]):
    case("cli", f"roofline {' '.join(extra)}", extra)
case("cli", "argv with invalid utf-8", None, shell="{B} import $'\\xff\\xfe.csv'")
case("cli", "10k arguments", ["merge"] + ["an.json"] * 10000, timeout=120)

if __name__ == "__main__":
    sel = os.environ.get("ONLY")
    todo = [(i, c) for i, c in enumerate(CASES) if not sel or sel in c["cat"]]
    print(f"{len(todo)} cases", file=sys.stderr)
    results = []
    with ThreadPoolExecutor(max_workers=int(os.environ.get("JOBS", "3"))) as ex:
        for r in ex.map(lambda ic: run_case(*ic), todo):
            results.append(r)
            if r["problems"]:
                print(f"[{r['i']}] {r['cat']} | {r['name'][:90]} | rc={r['rc']} | {r['problems'][0][:2]} {str(r['problems'][0][2])[:200]}",
                      file=sys.stderr, flush=True)
    json.dump(results, open(os.path.join(OUT, f"results{('-' + sel) if sel else ''}.json"), "w"), indent=1, default=str)
    from collections import Counter
    cats = Counter(r["cat"] for r in results)
    bad = Counter(r["cat"] for r in results if r["problems"])
    for k in sorted(cats):
        print(f"{k:20s} {cats[k]:5d} cases  {bad[k]:4d} flagged")
    print(f"total {len(results)} cases, {sum(1 for r in results if r['problems'])} flagged")
