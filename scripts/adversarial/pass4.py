#!/usr/bin/env python3
"""Adversarial pass 4 over the `roofline` binary (issue 16's acceptance).

Attacks the release binary as a hostile user and a broken pipeline would:
malformed CSV and JSON, hostile flags, `-o` onto special targets, closed and
full streams, signals with a stand-in ncu that sleeps or leaves
grandchildren, hostile timeline record folders, injection in kernel names,
and scale. Written without reading the earlier passes or the fixes.

Every case runs under a timeout (a hang) and an address-space limit (a
runaway allocation), with its own working folder; the generic checks are:
no panic (exit 101, "panicked"), no death by a signal, an exit code in
{0, 1, 2} (or the case's own), no temporary file left in the working folder
or /tmp, no process left behind. Cases add their own checks (the -o file
whole or untouched, no file outside -o changed, no raw escape sequences).

    python3 scripts/adversarial/pass4.py [--bin PATH] [--only PREFIX] [--keep]

Prints one line per finding and a summary; writes the results as JSON Lines
to $WORK/results.jsonl (the folder is printed). Needs python3 and bash; no
GPU (paths that need one must fail cleanly).
"""

import argparse
import csv
import io
import json
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SEED_CSV = os.path.join(ROOT, "data/h200/ncu_seed000.csv")
GEMM_CSV = os.path.join(ROOT, "data/h200/ncu_gemms.csv")
EXT = os.path.join(ROOT, "tests/fixtures/external/h200-2026-11-30")
# These four inputs were generated JSON documents in results/, removed from there by issue 24.
# To re-run this pass as it ran, restore them first:
#   git checkout ddf7129 -- results/h200-2026-11-30-program/seed000.json \
#     results/h200-x2-2026-11-30-multigpu/captures/{job-profile,job-timeline,coll.0,coll.1}.json
TIMELINE_DOC = os.path.join(ROOT, "results/h200-2026-11-30-program/seed000.json")
MERGED_DOC = os.path.join(ROOT, "results/h200-x2-2026-11-30-multigpu/captures/job-profile.json")
MERGED_TL_DOC = os.path.join(ROOT, "results/h200-x2-2026-11-30-multigpu/captures/job-timeline.json")
RANK_DOCS = [os.path.join(ROOT, f"results/h200-x2-2026-11-30-multigpu/captures/coll.{i}.json") for i in (0, 1)]

MEM_LIMIT = 6 << 30  # address space per run
RSS_WARN_MB = 1024  # the issue's scale target is < 1 GB

BIN = None
WORK = None
RESULTS = []
RUNS = 0


# ---------------------------------------------------------------- running


class R:
    """What one run of the tool did."""

    def __init__(self, rc, out, err, secs, rss_mb, timed_out):
        self.rc, self.out, self.err, self.secs, self.rss_mb, self.timed_out = rc, out, err, secs, rss_mb, timed_out

    @property
    def errs(self):
        return self.err.decode("utf-8", "replace")

    @property
    def outs(self):
        return self.out.decode("utf-8", "replace")


def _limits():
    # a driver started in the background (nohup, `&`) has SIGINT ignored, and
    # the tool would inherit that; every run starts with default signals
    for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
    resource.setrlimit(resource.RLIMIT_AS, (MEM_LIMIT, MEM_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run(argv, *, stdin=b"", env=None, cwd=None, timeout=60, stdout_path=None, stderr_path=None,
        close_stdout=False, close_stderr=False, shell=False, limits=True):
    """Runs the tool (argv[0] None means BIN), waits with wait4 for its peak RSS."""
    global RUNS
    RUNS += 1
    if not shell:
        argv = [BIN if a is None else a for a in argv]
    e = dict(os.environ)
    e.pop("RANK", None)
    e.pop("WORLD_SIZE", None)
    e.setdefault("NO_COLOR", "1")
    if env:
        for k, v in env.items():
            if v is None:
                e.pop(k, None)
            else:
                e[k] = v
    cwd = cwd or WORK
    outf = open(stdout_path, "wb") if stdout_path else tempfile.TemporaryFile(dir=WORK)
    errf = open(stderr_path, "wb") if stderr_path else tempfile.TemporaryFile(dir=WORK)
    if stdin is None:
        stdin_arg = subprocess.DEVNULL
    elif isinstance(stdin, bytes):
        stdin_arg = tempfile.TemporaryFile(dir=WORK)
        stdin_arg.write(stdin)
        stdin_arg.seek(0)
    else:
        stdin_arg = stdin

    def pre():
        if limits:
            _limits()
        os.setsid()
        if close_stdout:
            os.close(1)
        if close_stderr:
            os.close(2)

    # Peak RSS through /usr/bin/time: wait4's figure would count the
    # forked driver's own pages before exec.
    rssf = None
    # (not with a closed stream: time(1)'s own -o file would take that descriptor)
    if os.path.exists("/usr/bin/time") and not shell and not (close_stdout or close_stderr):
        rssf = tempfile.NamedTemporaryFile(dir=WORK, delete=False)
        rssf.close()
        argv = ["/usr/bin/time", "-q", "-f", "%M", "-o", rssf.name, *argv]
    t0 = time.time()
    p = subprocess.Popen(argv, stdin=stdin_arg, stdout=outf, stderr=errf, env=e, cwd=cwd,
                         preexec_fn=pre, shell=shell, executable="/bin/bash" if shell else None)
    timed_out = False
    status = None
    rus = None
    while True:
        pid, status, rus = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.time() - t0 > timeout:
            timed_out = True
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            pid, status, rus = os.wait4(p.pid, 0)
            break
        time.sleep(0.01)
    p.returncode = 0  # reaped by hand
    secs = time.time() - t0
    rc = os.waitstatus_to_exitcode(status)
    outf.seek(0) if not stdout_path else None
    out = outf.read() if not stdout_path else b""
    errf.seek(0) if not stderr_path else None
    err = errf.read() if not stderr_path else b""
    outf.close()
    errf.close()
    rss = rus.ru_maxrss / 1024.0
    if rssf:
        try:
            txt = open(rssf.name).read().split()
            rss = int(txt[-1]) / 1024.0 if txt else 0.0
        except (OSError, ValueError):
            pass
        os.unlink(rssf.name)
        if rc > 128 and b"panicked" not in err and rc - 128 in (4, 6, 7, 8, 9, 11):
            rc = -(rc - 128)  # died of a signal under time(1)
    return R(rc, out, err, secs, rss, timed_out)


def tool(*args, **kw):
    return run([None, *args], **kw)


# ---------------------------------------------------------------- recording


def snapshot_tmp():
    return {n for n in os.listdir("/tmp") if n.startswith("roofline") or n.startswith(".roofline")}


def marker_pids(mark):
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                if mark.encode() in f.read():
                    pids.append(int(d))
        except OSError:
            pass
    return pids


def proc_name(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\0")[0].decode("utf-8", "replace")
    except OSError:
        return "?"


def kill_marked(mark):
    for pid in marker_pids(mark):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def listing(d):
    out = {}
    for base, dirs, files in os.walk(d):
        dirs[:] = [x for x in dirs if x != "TMPD"]
        for n in files + dirs:
            p = os.path.join(base, n)
            try:
                st = os.lstat(p)
                out[os.path.relpath(p, d)] = (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino)
            except OSError:
                pass
    return out


TEMP_NAME = re.compile(r"(^\.|tmp|\.part$|~$)", re.I)


class Case:
    """One distinct input: a setup, one or more runs, checks."""

    def __init__(self, cid, cat, what):
        self.cid, self.cat, self.what = cid, cat, what
        self.dir = os.path.join(WORK, "cases", re.sub(r"[^A-Za-z0-9_.-]", "_", cid))
        os.makedirs(self.dir, exist_ok=True)
        self.findings = []
        self.runs = []
        self.tmpd = os.path.join(self.dir, "TMPD")
        os.makedirs(self.tmpd, exist_ok=True)
        self.before_dir = None

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, data, mode=None):
        p = self.path(name)
        with open(p, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        if mode is not None:
            os.chmod(p, mode)
        return p

    def freeze(self):
        """Remember the folder's state: files present now must not change unless allowed."""
        self.before_dir = listing(self.dir)

    def find(self, severity, text):
        self.findings.append((severity, text))

    def env(self, env=None):
        e = {"TMPDIR": self.tmpd}
        e.update(env or {})
        return e

    def tool(self, *args, expect=(0, 1, 2), cmd=None, **kw):
        kw.setdefault("cwd", self.dir)
        kw["env"] = self.env(kw.get("env"))
        r = tool(*args, **kw)
        self.record(r, cmd or "roofline " + " ".join(shq(a) for a in args), expect)
        return r

    def shell(self, script, expect=(0, 1, 2), rcfile=None, **kw):
        kw.setdefault("cwd", self.dir)
        env = self.env(kw.pop("env", {}) or {})
        env["B"] = BIN
        r = run(script, shell=True, env=env, **kw)
        if rcfile:  # the tool's own exit code, written by the script
            try:
                r.rc = int(open(self.path(rcfile)).read().split()[0])
            except (OSError, ValueError, IndexError):
                r.rc = -999
        self.record(r, script.replace(BIN, "roofline"), expect)
        return r

    def record(self, r, cmd, expect):
        self.runs.append((cmd, r))
        if r.timed_out:
            self.find("hang", f"`{cmd}` did not end within the timeout ({r.secs:.0f} s)")
        elif r.rc == 101 or b"panicked" in r.err:
            self.find("panic", f"`{cmd}` panicked (exit {r.rc}): {tail(r.errs)}")
        elif r.rc < 0 and r.rc != -999:
            self.find("crash", f"`{cmd}` died of signal {-r.rc}: {tail(r.errs)}")
        elif expect is not None and r.rc not in expect:
            self.find("wrong exit code", f"`{cmd}` exited {r.rc}, expected {sorted(expect)}: {tail(r.errs)}")
        if r.rss_mb > RSS_WARN_MB:
            self.find("memory", f"`{cmd}` peaked at {r.rss_mb:.0f} MB RSS")

    def finish(self, allow_changed=(), allow_new=()):
        if self.before_dir is not None:
            now = listing(self.dir)
            for name, st in self.before_dir.items():
                if any(re.fullmatch(a, name) for a in allow_changed):
                    continue
                if name not in now:
                    self.find("data loss", f"{name} (there before the run) is gone")
                elif now[name][1:] != st[1:] or now[name][0] != st[0]:
                    self.find("overwrite", f"{name} (not the -o target) was changed")
            for name in now:
                if name.startswith("TMPD"):
                    continue
                if name in self.before_dir or any(re.fullmatch(a, name) for a in allow_new):
                    continue
                if TEMP_NAME.search(os.path.basename(name)):
                    self.find("temp file left", f"{name} left in the working folder")
        leaked = os.listdir(self.tmpd) if os.path.isdir(self.tmpd) else []
        said = b"".join(r.err for _, r in self.runs)
        # a folder the tool names on stderr (kept for the user on purpose) is not a leak
        leaked = [n for n in leaked if n.encode() not in said]
        if leaked:
            self.find("temp file left", f"$TMPDIR gained {sorted(leaked)[:3]}")
            shutil.rmtree(self.tmpd, ignore_errors=True)
            os.makedirs(self.tmpd, exist_ok=True)
        RESULTS.append({
            "id": self.cid, "cat": self.cat, "what": self.what, "runs": len(self.runs),
            "findings": self.findings,
            "log": [{"cmd": c, "rc": r.rc, "secs": round(r.secs, 2), "rss_mb": round(r.rss_mb),
                     "stderr": tail(r.errs, 400)} for c, r in self.runs],
        })
        with open(os.path.join(WORK, "results.jsonl"), "a") as f:
            f.write(json.dumps(RESULTS[-1]) + "\n")
        for sev, text in self.findings:
            print(f"FINDING [{sev}] {self.cid}: {text}", flush=True)


def shq(a):
    if isinstance(a, bytes):
        a = a.decode("utf-8", "backslashreplace")
    a = str(a)
    if len(a) > 80:
        a = a[:60] + f"...({len(a)} chars)"
    return a if re.fullmatch(r"[A-Za-z0-9_./=:,+@%-]+", a) else repr(a)


def tail(s, n=300):
    s = s.strip().replace("\n", " | ")
    return s if len(s) <= n else "..." + s[-n:]


def valid_json_file(p):
    try:
        with open(p, "rb") as f:
            json.load(f)
        return True
    except Exception:
        return False


# ---------------------------------------------------------------- inputs


def read_capture(path):
    """The preamble lines and the CSV rows (header, units, data) of a capture."""
    lines = open(path, encoding="utf-8").read().splitlines(keepends=True)
    pre = [l for l in lines if l.startswith("==")]
    body = "".join(l for l in lines if not l.startswith("=="))
    rows = list(csv.reader(io.StringIO(body)))
    return pre, rows


def write_capture(c, name, pre, rows, *, delim=",", eol="\n", bom=False, quote_all=True):
    s = io.StringIO()
    w = csv.writer(s, delimiter=delim, lineterminator=eol, quoting=csv.QUOTE_ALL if quote_all else csv.QUOTE_MINIMAL)
    for r in rows:
        w.writerow(r)
    text = "".join(pre).replace("\n", eol) + s.getvalue()
    data = text.encode("utf-8")
    if bom:
        data = b"\xef\xbb\xbf" + data
    return c.write(name, data)


def col(rows, name):
    return rows[0].index(name)


def base_docs():
    """Analysis, machine and merged documents made once, for the document attacks."""
    d = os.path.join(WORK, "base")
    os.makedirs(d, exist_ok=True)
    docs = {}
    r = tool("import", SEED_CSV, "-q", "--format", "json", "-o", os.path.join(d, "a.json"), cwd=d)
    assert r.rc == 0, r.errs
    r = tool("import", GEMM_CSV, "-q", "--format", "json", "-o", os.path.join(d, "b.json"), cwd=d)
    assert r.rc == 0, r.errs
    r = tool("peaks", "--gpu", "h200", "-q", "-o", os.path.join(d, "m.json"), cwd=d)
    assert r.rc == 0, r.errs
    docs["analysis"] = os.path.join(d, "a.json")
    docs["analysis2"] = os.path.join(d, "b.json")
    docs["machine"] = os.path.join(d, "m.json")
    docs["merged"] = MERGED_DOC
    docs["timeline"] = TIMELINE_DOC
    return docs


FAKE_NCU = r"""#!/bin/bash
# A stand-in for Nsight Compute, driven by FAKE_* variables.
mark="${FAKE_MARK:-adv4mark}"
case "$1" in
  --query-metrics) [ "$FAKE_QUERY" = hang ] && exec -a "$mark-query" sleep 300; exit 1;;
  --help) [ "$FAKE_HELP" = hang ] && exec -a "$mark-help" sleep 300; echo "fake ncu --lockstep-kernel-launch"; exit 0;;
  --version) echo "fake ncu 2026.1"; exit 0;;
  --import)
    case "$FAKE_IMPORT" in
      hang) exec -a "$mark-import" sleep 300;;
      fail) echo "==ERROR== cannot read report" >&2; exit 1;;
      garbage) head -c 200000 /dev/urandom; exit 0;;
      *) cat "${FAKE_CSV:-/dev/null}"; exit 0;;
    esac;;
esac
report=""; log=""
while [ $# -gt 0 ]; do
  case "$1" in --export) report="$2"; shift;; --log-file) log="$2"; shift;; esac; shift
done
[ -n "$log" ] && echo "==PROF== Connected to process $$" >> "$log"
[ -n "$FAKE_RECORD" ] && echo "$report" > "$FAKE_RECORD"
case "$FAKE_RUN" in
  sleep) : > "$report"; exec -a "$mark-run" sleep 300;;
  grandchild) : > "$report"; (exec -a "$mark-gc" sleep 300) & setsid bash -c "exec -a $mark-setsid sleep 300" & exec -a "$mark-run" sleep 300;;
  ignore) trap '' TERM INT HUP; : > "$report"; bash -c "trap '' TERM INT HUP; exec -a $mark-ign sleep 300"; sleep 300;;
  fail) echo "==ERROR== ERR_NVGPUCTRPERM" >> "$log"; exit 1;;
  noreport) exit 0;;
  *) : > "$report"; exit "${FAKE_EXIT:-0}";;
esac
"""


# ---------------------------------------------------------------- the attacks

BAD_NUMBERS = ["", " ", "NaN", "nan", "inf", "-inf", "Infinity", "1e308", "1e309", "-0", "4.9e-324", "-1", "0",
               "18446744073709551616", "99999999999999999999999", "0x10", "1_000", "abc", "1e", "٣",
               "x" * 100000, "\u202e12", "5 %", "50%"]


def attack_flags(docs):
    a = docs["analysis"]
    specs = [
        ("check", ["check", a, "--min-pct-of-roof"]),
        ("check-share", ["check", a, "--min-pct-of-roof", "10", "--min-time-share"]),
        ("check-regr", ["check", a, "--baseline", docs["analysis"], "--max-regression"]),
        ("check-kernel", ["check", a, "--kernel"]),
        ("report-width", ["report", a, "--format", "markdown", "--width"]),
        ("occ-threads", ["occupancy", "--gpu", "h200", "--regs", "32", "--threads"]),
        ("occ-regs", ["occupancy", "--gpu", "h200", "--threads", "256", "--regs"]),
        ("occ-smem", ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--smem-static"]),
        ("occ-smemd", ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--smem-dynamic"]),
        ("occ-carve", ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--carveout"]),
        ("occ-bar", ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--barriers"]),
        ("occ-cc", ["occupancy", "--threads", "256", "--regs", "32", "--cc"]),
        ("model-peak", ["model", "--bandwidth", "100 GB/s", "-k", "k: flops=1 bytes=1", "--peak"]),
        ("model-bw", ["model", "--peak", "1 TFLOP/s", "-k", "k: flops=1 bytes=1", "--bandwidth"]),
        ("model-kind", ["model", "--gpu", "h200", "-k", "k: flops=1 bytes=1", "--peak-kind"]),
        ("peaks-gpu", ["peaks", "--gpu"]),
        ("peaks-dev", ["peaks", "--device"]),
        ("tl-top", ["timeline", "--top"]),
        ("tl-gaps", ["timeline", "--gaps"]),
        ("tl-timeout", ["timeline", "--timeout"]),
        ("prof-timeout", ["profile", "--timeout"]),
        ("prof-cov", ["profile", "--coverage"]),
        ("prof-lpk", ["profile", "--launches-per-kernel"]),
        ("prof-c", ["profile", "-c"]),
        ("diff-match", ["diff", a, docs["analysis2"], "--match"]),
        ("import-peak", ["import", SEED_CSV, "--bandwidth", "1 TB/s", "--peak"]),
    ]
    tail_args = {"tl-top": ["--", "/bin/true"], "tl-gaps": ["--", "/bin/true"], "tl-timeout": ["--", "/bin/true"],
                 "prof-timeout": ["--", "/bin/true"], "prof-cov": ["--", "/bin/true"],
                 "prof-lpk": ["--", "/bin/true"], "prof-c": ["--", "/bin/true"]}
    for name, argv in specs:
        for i, v in enumerate(BAD_NUMBERS):
            c = Case(f"flag/{name}/{i}", "flags", f"{' '.join(argv[:1])} {argv[-1]} {v[:20]!r}")
            r = c.tool(*argv, v, *tail_args.get(name, []), "-q", timeout=30)
            if r.rc == 0 and v in ("NaN", "nan", "inf", "-inf", "Infinity", "1e309", "abc", "", " ", "x" * 100000):
                if name not in ("peaks-gpu", "model-kind", "check-kernel", "diff-match", "occ-cc"):
                    c.find("accepted bad value", f"{argv[-1]} {v[:20]!r} accepted (exit 0)")
            if r.rc == 1 and name.startswith(("check", "occ", "model", "peaks", "report")):
                if "no CUDA driver" not in r.errs and "check failed" not in r.errs:
                    c.find("wrong exit code", f"bad value {v[:20]!r} for {argv[-1]} exits 1, not 2: {tail(r.errs)}")
            c.finish()
    # invalid UTF-8 and odd bytes in arguments and paths
    for i, v in enumerate([b"\xff\xfe", b"a\xc3", b"\xed\xa0\x80", b"\x1b]0;pwn\x07", b"-", b"--", b"-o"]):
        c = Case(f"flag/bytes/{i}", "flags", f"odd bytes {v!r} as file and value")
        c.tool("report", v, "-q", timeout=30)
        c.tool("check", docs["analysis"], "--kernel", v + b"=50", "-q", timeout=30)
        c.tool("model", "-k", v + b": flops=1 bytes=1", "--gpu", "h200", "-q", timeout=30)
        c.tool("import", v, "-q", timeout=30)
        c.tool("diff", docs["analysis"], docs["analysis2"], "--match", v + b"=x", "-q", timeout=30)
        c.finish()
    # argument soup
    soups = [["--format"], ["-o"], ["-o", ""], ["--format", "trace", "report", docs["analysis"]],
             ["report", docs["analysis"], "--format", "trace"], ["report", docs["analysis"], "--view", "instructions"],
             ["report"], ["check"], ["diff", docs["analysis"]], ["merge"], ["model"], ["occupancy"],
             ["occupancy", "--threads", "256"], ["occupancy", "--gpu", "nosuchgpu", "--threads", "32", "--regs", "32"],
             ["peaks", "--all-devices"], ["peaks", "--list", "--gpu", "h200"], ["bench", "--only", "nosuch"],
             ["bench", "--device", "99"], ["bench", "--quick", "--only", ""], ["profile"], ["profile", "--"],
             ["timeline"], ["timeline", "--"], ["import"], ["import", "-", "-"],
             ["--color", "always", "peaks", "--gpu", "h200"], ["--wide", "--quiet", "peaks", "--gpu", "h200"],
             ["help", "help", "help"], ["nosuchcommand"], ["-h"], ["--version"], ["report", "--help"],
             ["model", "--gpu", "h200", "-k", "a: flops=1 bytes=1", "-k", "a: flops=1 bytes=1"],
             ["model", "--gpu", "h200", "--machine", docs["machine"], "-k", "a: flops=1 bytes=1"],
             ["model", "--peak", "1 TFLOP/s", "-k", "a: flops=1 bytes=1"],
             ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--sweep", "all", "--svg-dir", "svgs"],
             ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--verify-device"],
             ["occupancy", "--gpu", "h200", "--threads", "0", "--regs", "0"],
             ["occupancy", "--gpu", "h200", "--threads", "1025", "--regs", "32"],
             ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "256"],
             ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--smem-dynamic", "1GiB"],
             ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--smem-dynamic", "18446744073709551615",
              "--smem-static", "18446744073709551615"],
             ["occupancy", "--cc", "99.9", "--threads", "256", "--regs", "32"],
             ["occupancy", "--cc", "sm_", "--threads", "256", "--regs", "32"],
             ["occupancy", "--cc", "1.0", "--threads", "256", "--regs", "32"],
             ]
    for i, argv in enumerate(soups):
        c = Case(f"flag/soup/{i}", "flags", " ".join(argv)[:80])
        c.tool(*argv, timeout=30)
        c.finish(allow_new=(r"svgs.*",))


def attack_formats(docs):
    cmds = {
        "peaks": ["peaks", "--gpu", "h200"],
        "peaks-list": ["peaks", "--list"],
        "model": ["model", "--gpu", "h200", "-k", "k: flops=10 bytes=1 time=1us"],
        "import": ["import", SEED_CSV],
        "report-a": ["report", docs["analysis"]],
        "report-m": ["report", docs["machine"]],
        "report-merged": ["report", docs["merged"]],
        "report-tl": ["report", docs["timeline"]],
        "check": ["check", docs["analysis"], "--min-pct-of-roof", "50"],
        "check-b": ["check", docs["analysis"], "--baseline", docs["analysis2"], "--max-regression", "10"],
        "diff": ["diff", docs["analysis"], docs["analysis2"]],
        "diff-same": ["diff", docs["analysis"], docs["analysis"]],
        "occupancy": ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--sweep", "all"],
        "merge": ["merge", *RANK_DOCS],
        "merge-tl": ["merge", docs["timeline"], docs["timeline"]],
        "tour": ["tour", "--out-dir", "tourdir"],
    }
    formats = ["table", "json", "csv", "markdown", "html", "trace", "chart", "terminal", "TABLE", ""]
    for name, argv in cmds.items():
        for f in formats:
            for env in ({}, {"COLUMNS": "1"}, {"COLUMNS": "100000", "NO_COLOR": None}):
                if env and f not in ("table", "chart", "markdown"):
                    continue
                c = Case(f"format/{name}/{f or 'empty'}/{'-'.join(env) or 'plain'}", "formats",
                         f"{name} --format {f!r} {env}")
                r = c.tool(*argv, "--format", f, "-q", env=env, timeout=60)
                if f in ("json", "trace") and r.rc == 0 and r.out:
                    try:
                        json.loads(r.out)
                    except Exception as e:
                        c.find("output unreadable", f"--format {f} stdout is not JSON: {e}")
                if r.rc == 0 and f == "csv" and r.out:
                    try:
                        list(csv.reader(io.StringIO(r.outs)))
                    except Exception as e:
                        c.find("output unreadable", f"--format csv stdout is not CSV: {e}")
                c.finish(allow_new=(r"tourdir.*",))
    # --color always must not colour files, and every -o extension once per command
    for name, argv in cmds.items():
        for ext in ("json", "csv", "md", "html", "svg", "txt", "trace", "JSON", "", "tar.gz"):
            c = Case(f"oext/{name}/{ext or 'none'}", "formats", f"{name} -o out.{ext}")
            target = f"out.{ext}" if ext else "out"
            r = c.tool(*argv, "-o", target, "--color", "always", "-q", timeout=60)
            p = c.path(target)
            if r.rc == 0 and os.path.exists(p):
                data = open(p, "rb").read()
                if b"\x1b[" in data:
                    c.find("cosmetic", f"-o {target} holds ANSI colour codes with --color always")
                if ext.lower() == "json" and not valid_json_file(p):
                    c.find("output unreadable", f"-o {target} is not JSON")
                if ext.lower() == "json" and name not in ("tour",):
                    # every document the tool writes, it reads back
                    r2 = c.tool("report", p, "--format", "json", "-q", timeout=60)
                    if r2.rc != 0 and name not in ("check", "check-b", "diff", "diff-same", "occupancy",
                                                   "peaks-list"):
                        c.find("round trip", f"`report` refuses the JSON `{name}` wrote: {tail(r2.errs)}")
            c.finish(allow_new=(r"tourdir.*", r"out.*"))


def attack_csv(docs):
    pre, rows = read_capture(SEED_CSV)
    hdr, units, data = rows[0], rows[1], rows[2:]
    dur = col(rows, "gpu__time_duration.sum")
    name = col(rows, "Kernel Name")
    idc = col(rows, "ID")
    clk = col(rows, "sm__cycles_elapsed.avg.per_second")
    dram = col(rows, "dram__bytes.sum")
    raw = open(SEED_CSV, "rb").read()

    def imp(c, f, *extra, expect=(0, 1, 2), check_roundtrip=True):
        out = c.path("out.json")
        r = c.tool("import", f, "-q", "--format", "json", "-o", out, *extra, expect=expect, timeout=60)
        if r.rc == 0 and check_roundtrip:
            if not valid_json_file(out):
                c.find("output unreadable", "import exit 0 but -o out.json is not JSON")
            else:
                for fmt in ("table", "html", "chart"):
                    r2 = c.tool("report", out, "--format", fmt, "-q", timeout=60)
                    if r2.rc != 0:
                        c.find("round trip", f"report --format {fmt} refuses import's own output: {tail(r2.errs)}")
                r3 = c.tool("check", out, "--min-pct-of-roof", "1", "-q", timeout=60)
                r4 = c.tool("diff", out, out, "-q", "--format", "markdown", timeout=60)
                if r4.rc != 0:
                    c.find("round trip", f"diff of import's output with itself fails: {tail(r4.errs)}")
                # a phantom kernel: empty name
                try:
                    d = json.load(open(out))
                    for k in d.get("kernels", []):
                        kn = k.get("kernel", {}).get("name", None)
                        if kn in ("", None):
                            c.find("misleading", "a kernel with an empty name appears in the analysis")
                            break
                        if isinstance(kn, str) and kn.startswith(("==", "\"")):
                            c.find("misleading", f"a non-CSV line became a kernel: {kn[:40]!r}")
                            break
                except Exception:
                    pass
        return r

    cases = []
    # cut short at many places
    for frac in (0.0, 0.01, 0.05, 0.1, 0.2, 0.35, 0.5, 0.66, 0.8, 0.95, 0.999):
        cases.append((f"cut{frac}", raw[: int(len(raw) * frac)]))
    cases.append(("cut-midrow", raw[: raw.index(b"\n", len(raw) // 2) + 40]))
    cases.append(("empty", b""))
    cases.append(("nl", b"\n\n\n"))
    cases.append(("only-preamble", b"".join(l.encode() for l in pre)))
    cases.append(("nul", raw.replace(b"vecadd", b"vec\x00add")))
    cases.append(("nul-everywhere", raw[:5000] + b"\x00" * 5000 + raw[5000:]))
    cases.append(("inv-utf8", raw.replace(b"vecadd", b"vec\xff\xfeadd")))
    cases.append(("binary", os.urandom(100000)))
    cases.append(("bom", b"\xef\xbb\xbf" + raw))
    cases.append(("bom-after-preamble", raw.replace(b'"ID"', b'\xef\xbb\xbf"ID"', 1)))
    cases.append(("crlf", raw.replace(b"\n", b"\r\n")))
    cases.append(("cr-only", raw.replace(b"\n", b"\r")))
    cases.append(("utf16", raw.decode().encode("utf-16")))
    cases.append(("trailing-garbage", raw + b"this is not csv\n"))
    cases.append(("trailing-noeol", raw + b'"99","1"'))
    cases.append(("cat-twice", raw + raw))
    cases.append(("quote-unbalanced", raw.replace(b'"vecadd"', b'"vecadd', 1)))
    cases.append(("huge-line", raw + b'"' + b"A" * (64 << 20) + b'"\n'))
    cases.append(("prof-error", b"==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n"))
    cases.append(("print-summary", b'"ID","Kernel Name","Metric Name","Metric Unit","Minimum","Maximum","Average"\n'
                  b'"0","vecadd","gpu__time_duration.sum","ns","1","2","3"\n'))
    for label, blob in cases:
        c = Case(f"csv/{label}", "csv", f"import a capture: {label}")
        c.write("cap.csv", blob)
        imp(c, c.path("cap.csv"))
        if label in ("nul", "inv-utf8", "binary"):
            c.tool("import", "-", "-q", stdin=blob, timeout=60)
        c.finish(allow_new=(r"out\.json",))

    def mutate(label, fn, **kw):
        c = Case(f"csv/{label}", "csv", f"import a capture: {label}")
        h2, u2, d2 = [list(hdr)], [list(units)], [list(r) for r in data]
        out = fn(h2[0], u2[0], d2)
        rows2 = out if out is not None else [h2[0], u2[0], *d2]
        write_capture(c, "cap.csv", pre, rows2, **kw)
        r = imp(c, c.path("cap.csv"))
        c.finish(allow_new=(r"out\.json",))
        return c, r

    def setcol(ci, val, which=None):
        def f(h, u, d):
            for j, r in enumerate(d):
                if which is None or j in which:
                    r[ci] = val
        return f

    for v in ["0", "-1", "-0", "NaN", "inf", "-inf", "1e308", "1.7976931348623157e308", "4.9e-324", "", "n/a", "1,2,3",
              "99999999999999999999999999999999", "0x10", "1e-300"]:
        mutate(f"dur={v}", setcol(dur, v))
        mutate(f"dur1={v}", setcol(dur, v, which={0}))
        mutate(f"clk={v}", setcol(clk, v))
        mutate(f"dram={v}", setcol(dram, v))
    for u in ["msecond", "usecond", "second", "psecond", "minute", "MB", "Gcycle", "", "ns ", "NS", "\u00b5s"]:
        def f(h, uu, d, u=u):
            uu[dur] = u
        mutate(f"unit={u}", f)
    for u in ["Kbyte", "Mbyte", "Gbyte", "Tbyte", "bit", "sector", "", "byte/second"]:
        def f(h, uu, d, u=u):
            uu[dram] = u
        mutate(f"dramunit={u}", f)

    def no_units(h, u, d):
        return [h, *d]
    mutate("no-units-row", no_units)

    def drop(cname):
        def f(h, u, d):
            i = h.index(cname)
            del h[i]
            del u[i]
            for r in d:
                del r[i]
        return f
    for cname in ["ID", "Kernel Name", "gpu__time_duration.sum", "dram__bytes.sum", "sm__cycles_elapsed.avg.per_second",
                  "Process ID", "Device", "Block Size", "Grid Size", "CC", "launch__grid_size", "Context", "Stream"]:
        mutate(f"drop={cname}", drop(cname))

    def dup_col(cname, val):
        def f(h, u, d):
            i = h.index(cname)
            h.append(cname)
            u.append(u[i])
            for r in d:
                r.append(val)
        return f
    mutate("dupcol-dur", dup_col("gpu__time_duration.sum", "1"))
    mutate("dupcol-name", dup_col("Kernel Name", "other"))

    def extra_cols(h, u, d):
        for k in range(300):
            h.append(f"extra__metric_{k}.sum")
            u.append("byte")
            for r in d:
                r.append(str(k))
    mutate("extra-300-cols", extra_cols)

    def ragged(h, u, d):
        d[0] = d[0][:10]
        d[1] = d[1] + ["x"] * 20
    mutate("ragged-rows", ragged)

    def dup_ids(h, u, d):
        for r in d:
            r[idc] = "0"
    mutate("dup-ids", dup_ids)

    def neg_ids(h, u, d):
        for j, r in enumerate(d):
            r[idc] = str(-j)
    mutate("neg-ids", neg_ids)

    def huge_ids(h, u, d):
        for j, r in enumerate(d):
            r[idc] = str(2 ** 64 + j)
    mutate("huge-ids", huge_ids)

    def nonnum_ids(h, u, d):
        for j, r in enumerate(d):
            r[idc] = "abc"
    mutate("text-ids", nonnum_ids)

    def hdr_only(h, u, d):
        return [h, u]
    mutate("header-units-only", hdr_only)

    def empty_names(h, u, d):
        for r in d:
            r[name] = ""
    mutate("empty-names", empty_names)

    def long_name(h, u, d):
        d[0][name] = "k" * 1_000_000
    mutate("1MB-name", long_name)
    mutate("semicolon", lambda h, u, d: None, delim=";")
    mutate("tab", lambda h, u, d: None, delim="\t")
    mutate("crlf-writer", lambda h, u, d: None, eol="\r\n")
    mutate("unquoted", lambda h, u, d: None, quote_all=False)
    mutate("bom-writer", lambda h, u, d: None, bom=True)

    # names with newline, quote, comma inside CSV quoting
    def odd_names(h, u, d):
        d[0][name] = "line1\nline2"
        d[1][name] = 'a "quoted", name'
        d[2][name] = "   "
        d[3][name] = "\t"
    mutate("odd-names", odd_names)

    # every real capture, through every --bytes and --view and --per-launch
    caps = [SEED_CSV, GEMM_CSV] + sorted(os.path.join(EXT, f) for f in os.listdir(EXT) if f.endswith(".csv"))
    for cap in caps:
        for extra in ([], ["--per-launch"], ["--bytes", "nersc"], ["--view", "auto"], ["--view", "instructions"],
                      ["--gpu", "t4"], ["--machine", docs["machine"]], ["--peak", "1 GFLOP/s", "--bandwidth", "1 GB/s"]):
            c = Case(f"csv/real/{os.path.basename(cap)}/{'_'.join(extra) or 'plain'}", "csv",
                     f"import {os.path.basename(cap)} {' '.join(extra)}")
            imp(c, cap, *extra, check_roundtrip=(extra in ([], ["--per-launch"])))
            c.finish(allow_new=(r"out\.json",))
    # other captures that are not raw CSV
    for f in ("babelstream_plain.txt", "pytorch_plain.tsv", "seed000_fp16_plain.txt", "pytorch_kernels.json",
              "train_gpt_kineto.json.gz"):
        c = Case(f"csv/notraw/{f}", "csv", f"import a non-raw file {f}")
        r = imp(c, os.path.join(EXT, f))
        if r.rc == 0:
            c.find("misleading", f"import of {f} (not a raw CSV) exits 0")
        c.finish(allow_new=(r"out\.json",))
    # special files as input
    for label, path in (("devnull", "/dev/null"), ("devzero", "/dev/zero"), ("dir", "/tmp"), ("proc", "/proc/self/status"),
                        ("missing", "/nonexistent/x.csv"), ("urandom", "/dev/urandom")):
        c = Case(f"csv/special/{label}", "csv", f"import {path}")
        r = c.tool("import", path, "-q", timeout=30)
        if r.rc == 0:
            c.find("misleading", f"import {path} exits 0")
        c.finish()
    # a FIFO with no writer, and one with a slow writer
    c = Case("csv/special/fifo-nowriter", "csv", "import a FIFO nobody writes")
    os.mkfifo(c.path("f.csv"))
    r = c.tool("import", c.path("f.csv"), "-q", timeout=10, expect=(1, 2))
    if r.timed_out:  # blocks in open() as `cat f.csv` would: noted, not counted as a hang
        c.findings = [("note", "import of a FIFO without a writer waits for a writer (as cat does)")]
    c.finish()
    c = Case("csv/special/stdin-slow", "csv", "import - from a pipe that trickles the capture")
    c.write("cap.csv", raw)
    c.shell(f'(head -c 20000 cap.csv; sleep 2; tail -c +20001 cap.csv) | "$B" import - -q -o out.json; echo $? > rc',
            rcfile="rc", timeout=60)
    if not valid_json_file(c.path("out.json")):
        c.find("data loss", "import - from a slow pipe did not write out.json")
    c.finish(allow_new=(r"out\.json", r"rc"))
    c = Case("csv/special/unreadable", "csv", "import a file without read permission (as root: readable)")
    c.write("cap.csv", raw, mode=0)
    c.tool("import", c.path("cap.csv"), "-q", timeout=30)
    c.finish()


def big_capture(path, launches, names):
    """A capture of `launches` launches of `names` kernels, with the columns the analysis needs."""
    cols = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
            "Grid Size", "Device", "CC", "gpu__time_duration.sum", "dram__bytes.sum",
            "sm__cycles_elapsed.avg.per_second", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
            "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
            "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", "dram__bytes.sum.peak_sustained",
            "dram__cycles_elapsed.avg.per_second"]
    units = ["", "", "", "", "", "", "", "", "", "", "", "ns", "byte", "hz", "inst", "inst", "inst", "inst/cycle",
             "byte/cycle", "hz"]
    with open(path, "w") as f:
        f.write(",".join(f'"{c}"' for c in cols) + "\n")
        f.write(",".join(f'"{u}"' for u in units) + "\n")
        for i in range(launches):
            k = i % names
            f.write(f'"{i}","1","app","h","kernel_{k}","1","7","(256, 1, 1)","(1024, 1, 1)","0","9.0",'
                    f'"{1000 + k % 97}","{1000000 + k}","1980000000","{100000 + k}","0","0","16896","1504",'
                    f'"3200000000"\n')


def attack_scale(docs):
    for launches, names, label in ((1_000_000, 1000, "1e6-launches-1e3-names"), (200_000, 200_000, "2e5-names"),
                                   (1_000_000, 1, "1e6-launches-1-name")):
        c = Case(f"scale/{label}", "scale", f"import {launches} launches of {names} kernels, then report/check/diff")
        big_capture(c.path("big.csv"), launches, names)
        t0 = time.time()
        r = c.tool("import", c.path("big.csv"), "-q", "-o", c.path("big.json"), timeout=300)
        if r.rc == 0:
            for argv in (["report", c.path("big.json"), "-o", c.path("big.html")],
                         ["report", c.path("big.json"), "--format", "csv"],
                         ["check", c.path("big.json"), "--baseline", c.path("big.json"), "--max-regression", "10", "--min-pct-of-roof", "1"],
                         ["diff", c.path("big.json"), c.path("big.json"), "-o", c.path("d.html")],
                         ["merge", c.path("big.json"), c.path("big.json"), "-o", c.path("m.json")]):
                r2 = c.tool(*argv, "-q", timeout=300, stdout_path=c.path("stdout.txt"))
                if r2.secs > 30:
                    c.find("slow", f"`{' '.join(argv[:2])}` took {r2.secs:.0f} s")
        if r.secs > 60:
            c.find("slow", f"import took {r.secs:.0f} s")
        for n in ("big.csv", "big.json", "big.html", "d.html", "m.json", "stdout.txt"):
            if os.path.exists(c.path(n)):
                os.remove(c.path(n))
        c.finish()


def mutate_json(path, fn):
    d = json.load(open(path))
    out = fn(d)
    return d if out is None else out


def attack_json(docs):
    a = docs["analysis"]
    ad = json.load(open(a))
    k0 = ad["kernels"][0]

    def setk(key, val, which="all"):
        def f(d):
            ks = d["kernels"] if which == "all" else d["kernels"][:1]
            for k in ks:
                cur = k
                parts = key.split(".")
                for p in parts[:-1]:
                    cur = cur[p]
                cur[parts[-1]] = val
        return f

    muts = {
        "empty-obj": lambda d: {},
        "array": lambda d: [],
        "string": lambda d: "roofline.analysis/v2",
        "no-schema": lambda d: {k: v for k, v in d.items() if k != "schema"},
        "schema-last": lambda d: {**{k: v for k, v in d.items() if k != "schema"}, "schema": d["schema"]},
        "schema-v1": lambda d: {**d, "schema": "roofline.analysis/v1"},
        "schema-v3": lambda d: {**d, "schema": "roofline.analysis/v3"},
        "schema-int": lambda d: {**d, "schema": 2},
        "schema-machine": lambda d: {**d, "schema": "roofline.machine/v2"},
        "schema-timeline": lambda d: {**d, "schema": "roofline.timeline/v1"},
        "schema-merged": lambda d: {**d, "schema": "roofline.merged/v1"},
        "no-kernels": lambda d: {k: v for k, v in d.items() if k != "kernels"},
        "kernels-empty": lambda d: {**d, "kernels": []},
        "kernels-obj": lambda d: {**d, "kernels": {}},
        "kernels-null": lambda d: {**d, "kernels": None},
        "no-machine": lambda d: {k: v for k, v in d.items() if k != "machine"},
        "machine-null": lambda d: {**d, "machine": None},
        "ceilings-empty": lambda d: {**d, "machine": {**d["machine"], "ceilings": []}},
        "ceilings-dup": lambda d: {**d, "machine": {**d["machine"], "ceilings": d["machine"]["ceilings"] * 2}},
        "rate-0": lambda d: [c.__setitem__("rate", 0) for c in d["machine"]["ceilings"]] and None,
        "rate-neg": lambda d: [c.__setitem__("rate", -1) for c in d["machine"]["ceilings"]] and None,
        "rate-1e308": lambda d: [c.__setitem__("rate", 1e308) for c in d["machine"]["ceilings"]] and None,
        "rate-sub": lambda d: [c.__setitem__("rate", 5e-324) for c in d["machine"]["ceilings"]] and None,
        "rate-str": lambda d: [c.__setitem__("rate", "1e12") for c in d["machine"]["ceilings"]] and None,
        "dur-0": setk("kernel.duration_s", 0),
        "dur-neg": setk("kernel.duration_s", -1),
        "dur-null": setk("kernel.duration_s", None),
        "dur-1e308": setk("kernel.duration_s", 1e308),
        "dur-sub": setk("kernel.duration_s", 5e-324),
        "dur-str": setk("kernel.duration_s", "1ms"),
        "dur-negzero": setk("kernel.duration_s", -0.0),
        "flops-1e308": setk("kernel.flops", {"fp32": 1e308}),
        "flops-neg": setk("kernel.flops", {"fp32": -1e9}),
        "flops-unknownkind": setk("kernel.flops", {"fp128": 1e9}),
        "bytes-0": setk("kernel.bytes", {"dram": 0}),
        "bytes-1e308": setk("kernel.bytes", {"dram": 1e308, "l2": 1e308, "l1": 1e308}),
        "bytes-empty": setk("kernel.bytes", {}),
        "launches-0": setk("kernel.launches", 0),
        "launches-neg": setk("kernel.launches", -5),
        "launches-huge": setk("kernel.launches", 18446744073709551615),
        "launches-huge2": setk("kernel.launches", 18446744073709551616),
        "launches-float": setk("kernel.launches", 1.5),
        "pct-1e308": setk("pct_of_roof", 1e308),
        "pct-neg": setk("pct_of_roof", -50),
        "share-2": setk("time_share", 2.0),
        "share-neg": setk("time_share", -1.0),
        "name-dup": setk("kernel.name", "same"),
        "id-dup": setk("kernel.id", "k000000"),
        "name-empty": setk("kernel.name", ""),
        "name-huge": setk("kernel.name", "n" * 5_000_000, which="first"),
        "name-nul": setk("kernel.name", "a\u0000b"),
        "name-escape": setk("kernel.name", "\u001b]0;pwned\u0007\u001b[2J\u001b[31mred"),
        "name-int": setk("kernel.name", 5),
        "kernel-null": lambda d: {**d, "kernels": [None]},
        "kernel-str": lambda d: {**d, "kernels": ["x"]},
        "extra-keys": lambda d: {**d, "zzz": [1] * 1000, "kernels": [{**k, "zzz": 1} for k in d["kernels"]]},
        "dup-kernels-x1000": lambda d: {**d, "kernels": d["kernels"] * 1000},
        "limiter-bogus": setk("limiter", {"type": "bandwidth", "which": "hbm9"}),
        "bound-bogus": setk("bound", "quantum"),
        "levels-empty": setk("levels", []),
        "levels-bogus": setk("levels", [{"level": "l7", "bytes": 1}]),
        "diag-null": setk("diagnosis", None),
        "diag-bogus": setk("diagnosis", {"position": "sideways", "evidence": [{"code": "nope"}]}),
        "evidence-huge": setk("kernel.evidence.waves", 1e308),
        "warnings-huge": lambda d: {**d, "warnings": ["w" * 1000] * 10000},
        "program-bogus": lambda d: {**d, "program": {"x": 1}},
        "sm-clock-0": lambda d: {**d, "machine": {**d["machine"], "gpu": {**d["machine"]["gpu"], "sm_clock_mhz": 0}}},
        "sms-0": lambda d: {**d, "machine": {**d["machine"], "gpu": {**d["machine"]["gpu"], "sms": 0}}},
        "sms-huge": lambda d: {**d, "machine": {**d["machine"], "gpu": {**d["machine"]["gpu"], "sms": 2 ** 40}}},
        "rank-bogus": lambda d: {**d, "rank": {"rank": -1, "world_size": 0}},
    }

    def texts(d):
        s = json.dumps(d)
        return {"plain": s}

    raw_texts = {
        "null": b"null",
        "empty": b"",
        "ws": b"   \n\t",
        "nul": b"\x00" * 100,
        "truncated": open(a, "rb").read()[:-100],
        "trailing": open(a, "rb").read() + b"\n{}",
        "trailing-garbage": open(a, "rb").read() + b"xyz",
        "bom": b"\xef\xbb\xbf" + open(a, "rb").read(),
        "utf16": open(a, "rb").read().decode().encode("utf-16"),
        "deep-array": b"[" * 200000 + b"]" * 200000,
        "deep-obj": b'{"a":' * 100000 + b"1" + b"}" * 100000,
        "deep-in-field": open(a, "rb").read().replace(b'"warnings": [', b'"warnings": [' + b"[" * 50000 + b"]" * 50000 + b",", 1),
        "dup-keys": open(a, "rb").read().replace(b'"schema": "roofline.analysis/v2",',
                                                 b'"schema": "roofline.analysis/v2", "schema": "roofline.machine/v2",', 1),
        "dup-kernels-key": open(a, "rb").read().replace(b'"kernels": [', b'"kernels": [], "kernels": [', 1),
        "nan-literal": open(a, "rb").read().replace(b'"duration_s": 0.000117632', b'"duration_s": NaN', 1),
        "inf-literal": open(a, "rb").read().replace(b'"duration_s": 0.000117632', b'"duration_s": Infinity', 1),
        "1e999": open(a, "rb").read().replace(b'"duration_s": 0.000117632', b'"duration_s": 1e999', 1),
        "lone-surrogate": open(a, "rb").read().replace(b'"name": "vecadd"', b'"name": "\\ud800"', 1),
        "inv-utf8": open(a, "rb").read().replace(b'"name": "vecadd"', b'"name": "\xff\xfe"', 1),
        "comments": b"// hi\n" + open(a, "rb").read(),
        "huge-string": b'{"schema": "roofline.analysis/v2", "x": "' + b"a" * (200 << 20) + b'"}',
        "huge-number": open(a, "rb").read().replace(b'"duration_s": 0.000117632', b'"duration_s": 1' + b"0" * 100000, 1),
    }
    consumers = [
        ("report", lambda p: ["report", p, "--format", "table"]),
        ("report-html", lambda p: ["report", p, "-o", "r.html"]),
        ("report-chart", lambda p: ["report", p, "--format", "chart"]),
        ("report-svg", lambda p: ["report", p, "-o", "r.svg"]),
        ("check", lambda p: ["check", p, "--min-pct-of-roof", "10"]),
        ("check-base", lambda p: ["check", docs["analysis"], "--baseline", p, "--max-regression", "10"]),
        ("diff", lambda p: ["diff", p, docs["analysis"], "-o", "d.html"]),
        ("diff-self", lambda p: ["diff", p, p, "--format", "csv"]),
        ("merge", lambda p: ["merge", p, docs["analysis"]]),
        ("model-machine", lambda p: ["model", "--machine", p, "-k", "k: flops=1 bytes=1 time=1us"]),
        ("import-machine", lambda p: ["import", SEED_CSV, "--machine", p]),
    ]
    items = [(k, json.dumps(mutate_json(a, f)).encode()) for k, f in muts.items()] + list(raw_texts.items())
    for label, blob in items:
        c = Case(f"json/analysis/{label}", "json", f"analysis with {label}")
        p = c.write("doc.json", blob)
        for cname, mk in consumers:
            if label in ("huge-string", "deep-array", "deep-obj") and cname not in ("report", "check", "merge",
                                                                                       "model-machine"):
                continue
            r = c.tool(*mk(p), "-q", timeout=120)
            if label in ("no-schema", "schema-v3", "schema-int", "nul", "empty", "truncated", "utf16", "inv-utf8",
                         "kernel-null", "kernel-str", "dur-str", "rate-str", "name-int", "array", "null", "string") \
                    and r.rc == 0 and cname not in ("import-machine", "check-base") :
                c.find("accepted bad input", f"{cname} accepts an analysis with {label} (exit 0)")
            if label == "name-escape" and b"\x1b]0;pwned" in r.out + r.err:
                c.find("terminal injection", f"{cname} writes a kernel name's escape sequence raw to the terminal")
            if label == "name-escape" and os.path.exists(c.path("d.html")):
                pass
        c.finish(allow_new=(r"r\.html", r"r\.svg", r"d\.html"))

    # machine documents
    m = docs["machine"]
    mm = {
        "rate-0": lambda d: [x.__setitem__("rate", 0) for x in d["machine"]["ceilings"]] and None,
        "rate-nan": lambda d: [x.__setitem__("rate", float("nan")) for x in d["machine"]["ceilings"]] and None,
        "rate-1e308": lambda d: [x.__setitem__("rate", 1e308) for x in d["machine"]["ceilings"]] and None,
        "rate-sub": lambda d: [x.__setitem__("rate", 5e-324) for x in d["machine"]["ceilings"]] and None,
        "rate-neg": lambda d: [x.__setitem__("rate", -1e12) for x in d["machine"]["ceilings"]] and None,
        "no-ceilings": lambda d: {**d, "machine": {**d["machine"], "ceilings": []}},
        "only-compute": lambda d: {**d, "machine": {**d["machine"], "ceilings": [x for x in d["machine"]["ceilings"]
                                                                                 if x["resource"]["type"] == "compute"]}},
        "only-bw": lambda d: {**d, "machine": {**d["machine"], "ceilings": [x for x in d["machine"]["ceilings"]
                                                                            if x["resource"]["type"] != "compute"]}},
        "cc-bogus": lambda d: {**d, "machine": {**d["machine"], "gpu": {**d["machine"]["gpu"], "compute_capability": "x"}}},
        "sms-0": lambda d: {**d, "machine": {**d["machine"], "gpu": {**d["machine"]["gpu"], "sms": 0}}},
        "clock-neg": lambda d: {**d, "machine": {**d["machine"], "gpu": {**d["machine"]["gpu"], "sm_clock_mhz": -5}}},
        "v1": lambda d: {**d, "schema": "roofline.machine/v1"},
        "name-esc": lambda d: {**d, "machine": {**d["machine"], "name": "\u001b]0;pwned\u0007<script>alert(1)</script>"}},
        "resource-bogus": lambda d: [x.__setitem__("resource", {"type": "compute", "which": "fp7"})
                                     for x in d["machine"]["ceilings"]] and None,
        "dup-ceilings": lambda d: {**d, "machine": {**d["machine"], "ceilings": d["machine"]["ceilings"] * 50}},
    }
    for label, f in mm.items():
        c = Case(f"json/machine/{label}", "json", f"machine with {label}")
        txt = json.dumps(mutate_json(m, f), allow_nan=True).encode()
        p = c.write("m.json", txt)
        for argv in (["report", p, "--format", "table"], ["report", p, "-o", "r.html"], ["report", p, "--format", "chart"],
                     ["model", "--machine", p, "-k", "k: flops=100 bytes=1 time=1us", "--format", "chart"],
                     ["import", SEED_CSV, "--machine", p, "-o", "i.json"],
                     ["merge", *RANK_DOCS, "--machine", p]):
            r = c.tool(*argv, "-q", timeout=120)
            if b"\x1b]0;pwned" in r.out + r.err:
                c.find("terminal injection", f"{argv[0]} writes a machine name's escape sequence raw")
            if os.path.exists(c.path("i.json")):
                r2 = c.tool("report", c.path("i.json"), "-q", timeout=60)
                if r2.rc != 0:
                    c.find("round trip", f"import --machine {label} writes an analysis report refuses: {tail(r2.errs)}")
                os.remove(c.path("i.json"))
        c.finish(allow_new=(r"r\.html",))

    # merged and timeline documents
    for kind, src in (("merged", docs["merged"]), ("timeline", docs["timeline"]), ("merged-tl", MERGED_TL_DOC)):
        d0 = json.load(open(src))
        tm = {
            "plain": lambda d: None,
            "ranks-empty": lambda d: {**d, "ranks": []} if "ranks" in d else {**d, "timeline": {}},
            "kernels-empty": lambda d: {**d, "kernels": []} if "kernels" in d else {**d, "summary": {**d["summary"], "kernels": []}},
            "no-summary": lambda d: {k: v for k, v in d.items() if k not in ("summary", "job")},
            "negzero": lambda d: json.loads(json.dumps(d).replace(": 0,", ": -0.0,")),
            "neg-numbers": lambda d: json.loads(re.sub(r'(": )(\d+)(,)', r'\1-\2\3', json.dumps(d))),
            "huge-numbers": lambda d: json.loads(re.sub(r'(": )(\d+)(,)', r'\g<1>1e308\3', json.dumps(d))),
            "u64max": lambda d: json.loads(re.sub(r'(_ns": )(\d+)', r'\g<1>18446744073709551615', json.dumps(d))),
            "null-numbers": lambda d: json.loads(re.sub(r'(": )(\d+(\.\d+)?)(,)', r'\1null\4', json.dumps(d))),
            "strings-esc": lambda d: json.loads(json.dumps(d).replace('"name": "', '"name": "\\u001b]0;pwned\\u0007<!--</script><script>alert(1)</script>')),
            "schema-v0": lambda d: {**d, "schema": d["schema"].replace("/v1", "/v0")},
        }
        for label, f in tm.items():
            c = Case(f"json/{kind}/{label}", "json", f"{kind} document with {label}")
            try:
                txt = json.dumps(mutate_json(src, f)).encode()
            except Exception as e:
                print(f"skip {kind}/{label}: {e}")
                continue
            p = c.write("d.json", txt)
            outs = []
            for fmt in ("table", "json", "csv", "markdown", "html", "trace", "chart"):
                r = c.tool("report", p, "--format", fmt, "-q", timeout=120)
                outs.append(r.out + r.err)
                if fmt == "html" and r.rc == 0:
                    html_checks(c, r.out, f"report {kind} {label} html")
            r = c.tool("merge", p, p, "-q", "--format", "json", timeout=120)
            outs.append(r.out + r.err)
            r = c.tool("check", p, "--min-pct-of-roof", "10", "-q", timeout=120)
            r = c.tool("diff", p, p, "-q", timeout=120)
            outs.append(r.out + r.err)
            if any(b"\x1b]0;pwned" in o for o in outs):
                c.find("terminal injection", f"a {kind} string's escape sequence is written raw")
            c.finish()


def html_checks(c, html, what):
    if b"<script>alert(1)</script>" in html:
        c.find("html injection", f"{what}: a name's <script> is embedded raw")
    # every JSON block in a <script type=application/json> must parse
    for m in re.finditer(rb'<script[^>]*type="application/json"[^>]*>(.*?)</script>', html, re.S):
        try:
            json.loads(m.group(1))
        except Exception as e:
            c.find("html broken", f"{what}: an embedded JSON block does not parse ({e})")
            break


def name_capture(c, names):
    pre, rows = read_capture(SEED_CSV)
    name = col(rows, "Kernel Name")
    for j, r in enumerate(rows[2:]):
        r[name] = names[j % len(names)]
    return write_capture(c, "cap.csv", pre, rows)


INJECT = [
    "\x1b]0;pwned\x07\x1b[2J\x1b[31mRED",
    "<script>alert(1)</script>",
    "</script><script>alert(2)</script>",
    "<!-- comment",
    "<img src=x onerror=alert(3)>",
    "=HYPERLINK(\"http://evil\",\"x\")",
    "+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1)",
    "a|b|c",
    "line1\nline2 | injected | row |",
    "`code` **bold** [link](http://evil)",
    "\u202eevil\u202c",
    "tab\there",
    "quote\"s and 'single'",
    "\r\rcarriage",
    "\x00nul",
]


def attack_injection(docs):
    c = Case("inject/capture", "injection", "kernel names with escapes, HTML, Markdown, CSV formulas")
    cap = name_capture(c, INJECT)
    r = c.tool("import", cap, "-q", "-o", c.path("a.json"), "--per-launch", timeout=60)
    r = c.tool("import", cap, "-q", "-o", c.path("b.json"), timeout=60)
    a = c.path("b.json")
    if not os.path.exists(a):
        c.find("misleading", f"import refuses names with odd characters: {tail(r.errs)}")
        c.finish()
        return
    outs = {}
    for fmt in ("table", "markdown", "csv", "html", "chart"):
        for cmd in (["report", a], ["check", a, "--min-pct-of-roof", "99"], ["diff", a, docs["analysis"]],
                    ["diff", a, a], ["merge", a, a]):
            r = c.tool(*cmd, "--format", fmt, "--wide", timeout=60)
            outs[(fmt, cmd[0], len(cmd))] = r
            both = r.out + r.err
            label = f"{cmd[0]} --format {fmt}"
            if b"\x1b]0;pwned" in both or b"\x1b[2J" in both:
                c.find("terminal injection", f"{label}: a kernel name's escape sequence reaches the output raw")
            if b"\x1b[2J" in r.err or b"\x1b]0" in r.err:
                c.find("terminal injection", f"{label}: escape sequence raw on stderr")
            if fmt == "markdown":
                for line in r.outs.splitlines():
                    if line.startswith("line2 | injected") or line.strip().startswith("| injected"):
                        c.find("markdown injection", f"{label}: a newline in a name starts a new table row")
                        break
                if "<script>alert(1)</script>" in r.outs or "<img src=x" in r.outs:
                    c.find("markdown injection", f"{label}: raw HTML from a name in Markdown")
            if fmt == "html":
                html_checks(c, r.out, label)
                if b"<img src=x onerror" in r.out:
                    c.find("html injection", f"{label}: <img onerror> from a name embedded raw")
            if fmt == "csv":
                try:
                    for row in csv.reader(io.StringIO(r.outs)):
                        for cell in row:
                            if cell[:1] in ("=", "+", "@") and ("HYPERLINK" in cell or "cmd|" in cell or "SUM(" in cell):
                                c.find("csv injection", f"{label}: formula cell {cell[:30]!r} not neutralized")
                                raise StopIteration
                except StopIteration:
                    pass
                except Exception as e:
                    c.find("output unreadable", f"{label}: CSV does not parse: {e}")
    for ext in ("html", "md", "csv", "svg"):
        r = c.tool("report", a, "-o", c.path(f"r.{ext}"), "-q", timeout=60)
        if os.path.exists(c.path(f"r.{ext}")):
            data = open(c.path(f"r.{ext}"), "rb").read()
            if ext in ("html", "svg") and (b"<script>alert(1)</script>" in data or b"<img src=x onerror" in data):
                c.find("html injection", f"report -o r.{ext}: raw markup from a kernel name")
            if ext == "html":
                html_checks(c, data, "report -o r.html")
            if b"\x1b]0;pwned" in data:
                c.find("cosmetic", f"report -o r.{ext} carries a raw escape sequence")
    # model names and TOML
    r = c.tool("model", "--gpu", "h200", "-k", "\x1b]0;pwned\x07<script>alert(1)</script>: flops=1 bytes=1",
               "--format", "table", timeout=30)
    if b"\x1b]0;pwned" in r.out + r.err:
        c.find("terminal injection", "model --kernel name's escape sequence written raw")
    # error messages echo file names with escapes
    r = c.tool("report", "\x1b]0;pwned\x07.json", timeout=30)
    if b"\x1b]0;pwned" in r.err:
        c.find("terminal injection", "an error message echoes a file name's escape sequence raw")
    r = c.tool("check", docs["analysis"], "--kernel", "\x1b]0;pwned\x07=50", timeout=30)
    if b"\x1b]0;pwned" in r.out + r.err:
        c.find("terminal injection", "check --kernel echoes a name's escape sequence raw")
    c.finish(allow_new=(r".*",))


def attack_output(docs):
    a = docs["analysis"]
    gen = ["report", a, "--format", "json"]
    body_ok = lambda p: valid_json_file(p)

    def prepare(c):
        c.write("keep.txt", "precious\n")
        return c.path("keep.txt")

    # a symlink to an outside file: followed (documented), and nothing else touched
    c = Case("out/symlink", "output", "-o onto a symlink to a file in another folder")
    os.makedirs(c.path("other"), exist_ok=True)
    c.write("other/target.json", "old\n", mode=0o600)
    os.symlink(c.path("other/target.json"), c.path("link.json"))
    prepare(c)
    c.freeze()
    c.tool("report", a, "-o", "link.json", "-q", timeout=60)
    if not os.path.islink(c.path("link.json")):
        c.find("overwrite", "the symlink itself was replaced")
    st = os.stat(c.path("other/target.json"))
    if stat.S_IMODE(st.st_mode) != 0o600:
        c.find("cosmetic", f"the target's mode changed to {oct(st.st_mode)}")
    c.finish(allow_changed=(r"other/target\.json", r"other"))

    c = Case("out/dangling", "output", "-o onto a dangling symlink into a missing folder")
    os.symlink(c.path("nowhere/x.json"), c.path("d.json"))
    c.freeze()
    c.tool("report", a, "-o", "d.json", "-q", timeout=60)
    c.finish()

    c = Case("out/dangling-ok", "output", "-o onto a dangling symlink in an existing folder")
    os.symlink("made.json", c.path("d.json"))
    c.freeze()
    r = c.tool("report", a, "-o", "d.json", "-q", "--format", "json", timeout=60)
    if r.rc == 0 and not body_ok(c.path("made.json")):
        c.find("data loss", "dangling link target not written")
    c.finish(allow_new=(r"made\.json",))

    c = Case("out/loop", "output", "-o onto a symlink loop")
    os.symlink("l2.json", c.path("l1.json"))
    os.symlink("l1.json", c.path("l2.json"))
    c.freeze()
    r = c.tool("report", a, "-o", "l1.json", "-q", timeout=60)
    if r.rc == 0:
        c.find("wrong exit code", "-o onto a symlink loop exits 0")
    c.finish()

    c = Case("out/dir", "output", "-o onto a folder, with a file in it")
    os.makedirs(c.path("adir"))
    c.write("adir/x", "x")
    c.freeze()
    r = c.tool("report", a, "-o", "adir", "-q", timeout=60)
    if r.rc == 0:
        c.find("wrong exit code", "-o onto a folder exits 0")
    c.tool("report", a, "-o", "adir/", "-q", timeout=60)
    c.tool("report", a, "-o", ".", "-q", timeout=60)
    c.tool("report", a, "-o", "", "-q", timeout=60)
    c.finish()

    for dev in ("/dev/null", "/dev/full", "/dev/stdout", "/dev/stderr", "/proc/self/fd/1", "/dev/tty"):
        c = Case(f"out/dev{dev.replace('/', '_')}", "output", f"-o {dev}")
        st0 = os.stat(dev) if os.path.exists(dev) else None
        r = c.tool("report", a, "-o", dev, "-q", timeout=60)
        st1 = os.stat(dev) if os.path.exists(dev) else None
        if st0 and st1 and (stat.S_IFMT(st0.st_mode) != stat.S_IFMT(st1.st_mode) or st0.st_ino != st1.st_ino):
            c.find("overwrite", f"{dev} was replaced")
        if dev == "/dev/full" and r.rc == 0:
            c.find("data loss", "-o /dev/full exits 0")
        # CSV side tables beside a device
        r = c.tool("report", a, "-o", dev, "--format", "csv", "-q", timeout=60)
        r = c.tool("import", SEED_CSV, "-o", dev, "--format", "csv", "-q", timeout=60)
        leftovers = [n for n in os.listdir("/dev") if n.endswith(".csv")] + \
                    [n for n in os.listdir(os.path.dirname(dev) or "/") if n.endswith(".csv")] if dev.startswith("/dev") else []
        if leftovers:
            c.find("overwrite", f"side tables written into /dev: {leftovers[:3]}")
            for n in leftovers:
                try:
                    os.remove(os.path.join("/dev", n))
                except OSError:
                    pass
        c.finish()

    c = Case("out/fifo", "output", "-o onto a FIFO with and without a reader")
    os.mkfifo(c.path("p.json"))
    r = c.tool("report", a, "-o", "p.json", "-q", timeout=20)
    if r.rc == 0:
        c.find("data loss", "-o onto a FIFO without a reader exits 0")
    c.shell('(cat p.json > got.txt &) ; "$B" report "%s" -o p.json -q --format json; echo $? > rc; sleep 0.5' % a,
            rcfile="rc", timeout=30)
    if not stat.S_ISFIFO(os.lstat(c.path("p.json")).st_mode):
        c.find("overwrite", "the FIFO was replaced by a file")
    c.finish(allow_new=(r"got\.txt", r"rc"))

    c = Case("out/rodir", "output", "-o into a read-only folder (root ignores modes) and a read-only file")
    os.makedirs(c.path("ro"))
    c.write("ro/x.json", "old\n", mode=0o444)
    os.chmod(c.path("ro"), 0o555)
    c.tool("report", a, "-o", "ro/x.json", "-q", "--format", "json", timeout=60)
    os.chmod(c.path("ro"), 0o755)
    c.finish(allow_changed=(r"ro/x\.json",))

    c = Case("out/immutable", "output", "-o onto an immutable file (chattr +i), if the filesystem allows")
    c.write("imm.json", "old\n")
    ok = subprocess.run(["chattr", "+i", c.path("imm.json")], capture_output=True).returncode == 0
    if ok:
        c.freeze()
        r = c.tool("report", a, "-o", "imm.json", "-q", "--format", "json", timeout=60)
        subprocess.run(["chattr", "-i", c.path("imm.json")])
        if r.rc == 0:
            c.find("data loss", "-o onto an immutable file exits 0")
    c.finish()

    c = Case("out/long-names", "output", "-o with 255-byte, 256-byte and 4096-byte names")
    for n in (251, 255, 256):
        r = c.tool("report", a, "-o", "x" * (n - 5) + ".json", "-q", timeout=60)
        if n <= 255 and r.rc != 0:
            c.find("data loss", f"a {n}-byte name cannot be written: {tail(r.errs)}")
    c.tool("report", a, "-o", ("d" * 200 + "/") * 25 + "x.json", "-q", timeout=60)
    for n in (251, 255):
        r = c.tool("import", SEED_CSV, "-o", "y" * (n - 4) + ".csv", "-q", timeout=60)
    c.finish(allow_new=(r"x+\.json", r"y+.*\.csv"))

    c = Case("out/odd-names", "output", "-o names with newline, leading dash, spaces, unicode, invalid UTF-8")
    c.write("\ufffd.json", "a file of the user's\n")
    for nm in ("a\nb.json", "-o.json", " .json", "ü.json", "a b.json", b"\xff.json", ".json", "..json", "x.json.",
               "CON.json", "a:b.json"):
        r = c.tool("report", a, "-o", nm, "-q", "--format", "json", timeout=60)
        p = os.path.join(c.dir.encode(), nm if isinstance(nm, bytes) else nm.encode())
        if r.rc == 0 and not os.path.exists(p):
            c.find("data loss", f"-o {nm!r} exit 0 but no such file")
    if open(c.path("\ufffd.json"), "rb").read() != "a file of the user's\n".encode():
        c.find("overwrite", "-o $'\\xff.json' (a name that is not UTF-8) wrote '\ufffd.json' instead, replacing that existing file")
    c.finish(allow_new=(r".*",))

    # inputs of the same run
    c = Case("out/same-input", "output", "-o onto an input of the same run, directly, via symlink, hard link, ./")
    cap = c.write("cap.csv", open(SEED_CSV, "rb").read())
    an = c.write("a.json", open(a, "rb").read())
    bn = c.write("b.json", open(docs["analysis2"], "rb").read())
    mn = c.write("m.json", open(docs["machine"], "rb").read())
    os.symlink("cap.csv", c.path("caplink.csv"))
    os.link(c.path("a.json"), c.path("ahard.json"))
    c.write("c.toml", 'baseline = "b.json"\nmax_regression_pct = 10\nmin_pct_of_roof = 1\n')
    c.write("k.toml", '[[kernel]]\nname = "x"\nflops = 1\nbytes = 1\n')
    c.freeze()
    attempts = [
        ["import", "cap.csv", "-o", "cap.csv"],
        ["import", "cap.csv", "-o", "./cap.csv"],
        ["import", "cap.csv", "-o", "caplink.csv"],
        ["import", "caplink.csv", "-o", "cap.csv"],
        ["import", "cap.csv", "-o", os.path.join(c.dir, "sub", "..", "cap.csv")],
        ["import", "cap.csv", "--machine", "m.json", "-o", "m.json"],
        ["report", "a.json", "-o", "a.json"],
        ["report", "a.json", "-o", "ahard.json"],
        ["report", "a.json", "--svg", "a.json"],
        ["report", "a.json", "--svg", "x.svg", "-o", "x.svg"],
        ["check", "a.json", "--baseline", "b.json", "--max-regression", "10", "-o", "b.json"],
        ["check", "a.json", "--config", "c.toml", "-o", "b.json"],
        ["check", "a.json", "--config", "c.toml", "-o", "c.toml"],
        ["diff", "a.json", "b.json", "-o", "b.json"],
        ["merge", "a.json", "b.json", "-o", "a.json"],
        ["merge", "a.json", "b.json", "--machine", "m.json", "-o", "m.json"],
        ["model", "k.toml", "-o", "k.toml"],
        ["model", "--machine", "m.json", "-k", "x: flops=1 bytes=1", "-o", "m.json"],
        ["import", "cap.csv", "-o", "cap.json", "--format", "csv"],
        ["import", "cap.csv", "-o", "a.csv"],  # side tables a.*.csv: a.json is not .csv
        ["report", "a.json", "-o", "/proc/self/cwd/a.json"],
    ]
    for argv in attempts:
        r = c.tool(*argv, "-q", stdin=open(SEED_CSV, "rb").read(), timeout=60)
    c.finish(allow_new=(r"x\.svg", r"cap\.json", r"a\.csv", r"a\..*\.csv"))

    # CSV side tables onto existing, unrelated files and onto symlinks out of the folder
    c = Case("out/side-tables", "output", "-o x.csv: the tables beside it replace existing files / follow planted links")
    r = c.tool("import", SEED_CSV, "-o", "probe.csv", "-q", timeout=60)
    sides = sorted(n for n in os.listdir(c.dir) if n.startswith("probe.") and n != "probe.csv")
    os.makedirs(c.path("outside"), exist_ok=True)
    for n in sides:
        os.remove(c.path(n))
        c.write(f"outside/{n}", "not yours\n")
        os.symlink(c.path(f"outside/{n}"), c.path(n.replace("probe.", "x.", 1)))
    c.write("probe.csv", "a user file\n")
    c.freeze()
    r = c.tool("import", SEED_CSV, "-o", "x.csv", "-q", timeout=60)
    changed = [n for n in sides if open(c.path(f"outside/{n}")).read() != "not yours\n"]
    if changed:
        c.find("overwrite", f"-o x.csv followed planted links beside it and replaced {len(changed)} file(s) outside "
                            f"the folder ({', '.join(changed[:3])}); stderr said: {tail(r.errs, 200)!r}")
    c.finish(allow_changed=(r"outside.*",), allow_new=(r"x\.csv",))
    c.write("side-names.txt", "\n".join(sides))

    # {rank} and ranks from the environment
    c = Case("out/rank-env", "output", "-o under a launcher's environment with hostile rank values")
    cap = c.write("cap.csv", open(SEED_CSV, "rb").read())
    os.makedirs(c.path("sub"))
    c.write("keep.json", "precious\n")
    c.freeze()
    envs = [
        {"RANK": "1", "WORLD_SIZE": "2"},
        {"RANK": "../keep", "WORLD_SIZE": "2"},
        {"RANK": "/../../keep", "WORLD_SIZE": "2"},
        {"RANK": "x\ny", "WORLD_SIZE": "2"},
        {"RANK": "-1", "WORLD_SIZE": "2"},
        {"RANK": "99999999999999999999", "WORLD_SIZE": "2"},
        {"RANK": "5", "WORLD_SIZE": "2"},
        {"RANK": "0", "WORLD_SIZE": "0"},
        {"OMPI_COMM_WORLD_RANK": "../../keep", "OMPI_COMM_WORLD_SIZE": "2"},
        {"SLURM_PROCID": "../keep", "SLURM_NTASKS": "2"},
        {"PMI_RANK": "../keep", "PMI_SIZE": "2"},
    ]
    for env in envs:
        for o in ("sub/out.json", "sub/out{rank}.json", "sub/{rank}", "sub/{rank}{rank}.json", "sub/{RANK}.json"):
            r = c.tool("import", cap, "-o", o, "-q", env=env, timeout=60)
    c.finish(allow_new=(r"sub/.*",), allow_changed=(r"sub",))
    for n in os.listdir(c.path("sub")):
        if ".." in n or "keep" in n:
            c.find("misleading", f"a hostile rank value made the file name {n!r}")
    # Check that nothing outside sub/ was made
    for n in os.listdir(c.dir):
        if n not in ("cap.csv", "sub", "keep.json", "TMPD"):
            c.find("overwrite", f"-o under a hostile RANK wrote {n!r} outside the -o folder")

    c = Case("out/rank-input", "output", "-o FILE where RANK turns it into an input of the run")
    c.write("cap.rank1.csv", open(SEED_CSV, "rb").read())
    c.freeze()
    c.tool("import", "cap.rank1.csv", "-o", "cap.csv", "-q", env={"RANK": "1", "WORLD_SIZE": "2"}, timeout=60)
    c.tool("import", "cap.rank1.csv", "-o", "cap.rank{rank}.csv", "-q", env={"RANK": "1", "WORLD_SIZE": "2"}, timeout=60)
    c.finish(allow_new=(r"cap\.(rank1\.)?(csv|[a-z_]+\.csv)",))

    # tour --out-dir
    c = Case("out/tour-links", "output", "tour --out-dir with links inside that lead out, relative and via ..")
    os.makedirs(c.path("t/sub"))
    os.makedirs(c.path("outside"))
    c.write("outside/analysis.json", "mine\n")
    c.write("outside/report.html", "mine\n")
    c.write("outside/machine.json", "mine\n")
    os.symlink("../outside/analysis.json", c.path("t/analysis.json"))
    os.symlink("sub/../../outside/report.html", c.path("t/report.html"))
    os.symlink(c.path("t/sub/m"), c.path("t/machine.json"))
    os.symlink("../../outside/machine.json", c.path("t/sub/m"))
    c.freeze()
    r = c.tool("tour", "--out-dir", "t", "-q", timeout=120)
    c.finish(allow_changed=(r"t.*",), allow_new=(r"t/.*",))
    c = Case("out/tour-targets", "output", "tour --out-dir onto a file, /dev/null, a FIFO, a 250-byte name")
    c.write("afile", "x")
    os.mkfifo(c.path("fifo"))
    c.freeze()
    for d in ("afile", "/dev/null", "fifo", "y" * 250, "", "t2/" + "z" * 255):
        r = c.tool("tour", "--out-dir", d, "-q", timeout=120)
    c.finish(allow_new=(r"y+.*", r"t2.*"))
    c = Case("out/tour-hardlink", "output", "tour --out-dir where analysis.json is a hard link to a file outside")
    os.makedirs(c.path("t"))
    c.write("mine.json", "mine\n")
    os.link(c.path("mine.json"), c.path("t/analysis.json"))
    c.freeze()
    c.tool("tour", "--out-dir", "t", "-q", timeout=120)
    if open(c.path("mine.json")).read() != "mine\n":
        c.find("overwrite", "tour wrote through a hard link into a file outside --out-dir")
    c.finish(allow_changed=(r"t.*",), allow_new=(r"t/.*",))

    # the earlier -o survives a failed run
    c = Case("out/keep-on-fail", "output", "an earlier -o file is kept when the new run fails (bad input)")
    c.write("out.json", open(a, "rb").read())
    c.write("bad.csv", b"garbage\n")
    c.freeze()
    c.tool("import", "bad.csv", "-o", "out.json", "-q", timeout=60)
    c.tool("report", "nonexistent.json", "-o", "out.json", "-q", timeout=60)
    c.tool("check", "bad.csv", "-o", "out.json", "-q", timeout=60)
    c.finish()

    # --svg / --svg-dir / --records / --save-csv onto odd places
    c = Case("out/other-outputs", "output", "--svg, --svg-dir, --grid-csv onto odd targets")
    c.write("afile", "keep\n")
    c.freeze()
    c.tool("report", a, "--svg", "/dev/full", "-q", timeout=60)
    c.tool("report", a, "--svg", "afile/x.svg", "-q", timeout=60)
    c.tool("report", a, "--svg", "", "-q", timeout=60)
    c.tool("occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--sweep", "all", "--svg-dir", "afile",
           "-q", timeout=60)
    c.tool("occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--sweep", "all", "--svg-dir", "/dev/null",
           "-q", timeout=60)
    c.finish()


def attack_streams(docs):
    a = docs["analysis"]
    heavy = [["report", a, "--format", "table"], ["report", a, "--format", "html"],
             ["import", SEED_CSV], ["check", a, "--min-pct-of-roof", "99"], ["diff", a, docs["analysis2"]],
             ["peaks", "--list"], ["tour", "--out-dir", "t"], ["merge", *RANK_DOCS],
             ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--sweep", "all"]]
    for i, argv in enumerate(heavy):
        q = " ".join(f"'{x}'" for x in argv)
        c = Case(f"stream/{argv[0]}/{i}", "streams", f"{argv[0]} with closed, full and early-closed streams")
        # stdout closed: data lost should not be exit 0
        r = c.tool(*argv, close_stdout=True, timeout=60)
        if r.rc == 0:
            c.find("data loss", f"{argv[0]} with stdout closed (no -o) exits 0")
        r = c.tool(*argv, "-o", "o.json" if argv[0] != "tour" else "o2.json", close_stdout=True, timeout=60)
        if argv[0] != "tour" and not os.path.exists(c.path("o.json")):
            c.find("data loss", f"{argv[0]} with stdout closed did not write -o o.json")
        # stdout to /dev/full
        r = c.shell(f'"$B" {q} > /dev/full; echo $? > rc', rcfile="rc", timeout=60)
        if r.rc == 0:
            c.find("data loss", f"{argv[0]} > /dev/full exits 0")
        # stderr to /dev/full, stderr closed, with -o: the file must still be written
        for how, redir in (("full", "2>/dev/full"), ("closed", "2>&-")):
            if os.path.exists(c.path("e.json")):
                os.remove(c.path("e.json"))
            r = c.shell(f'"$B" {q} -o e.json > /dev/null {redir}; echo $? > rc', rcfile="rc", timeout=60)
            if r.rc != 0 and argv[0] not in ("check",) and not (argv[0] == "check" and r.rc == 1):
                c.find("wrong exit code", f"{argv[0]} with stderr {how} exits {r.rc}")
            if argv[0] != "tour" and not os.path.exists(c.path("e.json")):
                c.find("data loss", f"{argv[0]} with stderr {how}: -o e.json not written")
        # early-closed pipe
        r = c.shell(f'"$B" {q} 2>err.txt | head -c 10 > /dev/null; echo ${{PIPESTATUS[0]}} > rc',
                    rcfile="rc", expect=(0, 1, 2, 141), timeout=60)
        err = open(c.path("err.txt"), "rb").read()
        if b"panicked" in err or b"Broken pipe" in err:
            c.find("cosmetic" if b"panicked" not in err else "panic", f"{argv[0]} | head: {tail(err.decode('utf-8', 'replace'))}")
        r = c.shell(f'"$B" {q} -o p.json 2>&1 | head -1 > /dev/null; echo ${{PIPESTATUS[0]}} > rc', rcfile="rc",
                    expect=(0, 1, 2, 141), timeout=60)
        if argv[0] != "tour" and not os.path.exists(c.path("p.json")):
            c.find("data loss", f"{argv[0]} 2>&1 | head -1: -o p.json not written")
        # stdin closed
        c.tool(*argv, stdin=None, timeout=60)
        c.finish(allow_new=(r".*",))
    # import - with stdin closed / a terminal absent
    c = Case("stream/stdin-closed", "streams", "import - with stdin closed")
    c.shell('"$B" import - <&- ; echo $? > rc', rcfile="rc", timeout=30)
    c.finish(allow_new=(r"rc",))


def fake_env(c, mode, **extra):
    bindir = c.path("bin")
    os.makedirs(bindir, exist_ok=True)
    ncu = os.path.join(bindir, "ncu")
    with open(ncu, "w") as f:
        f.write(FAKE_NCU)
    os.chmod(ncu, 0o755)
    mark = "adv4mark" + re.sub(r"[^a-z0-9]", "", c.cid.lower())[-20:]
    env = {"FAKE_RUN": mode, "FAKE_MARK": mark, "FAKE_CSV": SEED_CSV, "PATH": bindir + ":" + os.environ["PATH"],
           "FAKE_RECORD": c.path("report-path.txt")}
    env.update(extra)
    return ncu, env, mark


def wait_for(pred, secs):
    t0 = time.time()
    while time.time() - t0 < secs:
        if pred():
            return True
        time.sleep(0.05)
    return False


def attack_children(docs):
    prog = "/bin/true"
    # plain runs through the stand-in
    for mode, extra, expect in (("ok", {}, (0, 1, 2)), ("fail", {}, (1, 2)), ("noreport", {}, (1, 2)),
                                ("ok", {"FAKE_IMPORT": "fail"}, (1, 2)), ("ok", {"FAKE_IMPORT": "garbage"}, (1, 2)),
                                ("ok", {"FAKE_EXIT": "3"}, (0, 1, 2)), ("ok", {"FAKE_CSV": "/dev/null"}, (1, 2))):
        c = Case(f"child/plain/{mode}/{'-'.join(f'{k}={v}' for k, v in extra.items()) or 'none'}", "children",
                 f"profile --one-pass through a stand-in ncu: run {mode} {extra}")
        ncu, env, mark = fake_env(c, mode, **extra)
        c.write("old.json", open(docs["analysis"], "rb").read())
        r = c.tool("profile", "--one-pass", "--ncu", ncu, "-o", "old.json", "--save-csv", "raw.csv", "-q", "--", prog,
                   env=env, expect=expect, timeout=60)
        if r.rc != 0 and not valid_json_file(c.path("old.json")):
            c.find("data loss", "a failed profile left -o old.json broken")
        if marker_pids(mark):
            c.find("process left", f"processes left behind: {marker_pids(mark)}")
            kill_marked(mark)
        c.finish(allow_new=(r"bin.*", r"raw\.csv", r"report-path\.txt", r"old\.json"), allow_changed=(r"old\.json", r"bin.*"))

    # ncu's helper queries or its report read-back hang; --timeout must still hold
    for label, extra in (("query-hang", {"FAKE_QUERY": "hang"}), ("help-hang", {"FAKE_HELP": "hang"}),
                         ("import-hang", {"FAKE_IMPORT": "hang"})):
        c = Case(f"child/{label}", "children", f"profile --timeout 5s when ncu's {label.split('-')[0]} never returns")
        ncu, env, mark = fake_env(c, "ok", **extra)
        r = c.tool("profile", "--one-pass", "--timeout", "5s", "--ncu", ncu, "-q", "--", prog, env=env, timeout=40)
        if r.timed_out:
            c.find("hang", f"ncu {label}: `roofline profile --timeout 5s` still running after 40 s")
        elif r.secs > 20:
            c.find("hang", f"ncu {label}: --timeout 5s took {r.secs:.0f} s")
        if marker_pids(mark):
            c.find("process left", f"ncu {label}: processes left: {len(marker_pids(mark))}")
            kill_marked(mark)
        c.finish(allow_new=(r"bin.*", r"report-path\.txt"), allow_changed=(r"bin.*",))
    # import of a .ncu-rep whose read-back hangs
    c = Case("child/import-rep-hang", "children", "import x.ncu-rep when `ncu --import` never returns")
    ncu, env, mark = fake_env(c, "ok", FAKE_IMPORT="hang")
    c.write("x.ncu-rep", b"\0" * 100)
    r = c.tool("import", "x.ncu-rep", "--ncu", ncu, "-q", env=env, timeout=40)
    if r.timed_out:
        c.find("hang", "import x.ncu-rep hangs forever when ncu --import does not return")
    kill_marked(mark)
    c.finish(allow_new=(r"bin.*", r"report-path\.txt"), allow_changed=(r"bin.*",))
    # a hanging nvidia-smi on PATH
    c = Case("child/nvidia-smi-hang", "children", "profile with an nvidia-smi on PATH that never returns")
    ncu, env, mark = fake_env(c, "ok")
    with open(c.path("bin/nvidia-smi"), "w") as f:
        f.write(f'#!/bin/bash\nexec -a {mark}-smi sleep 300\n')
    os.chmod(c.path("bin/nvidia-smi"), 0o755)
    r = c.tool("profile", "--one-pass", "--timeout", "5s", "--ncu", ncu, "-q", "--", prog, env=env, timeout=40)
    if r.timed_out:
        c.find("hang", "a wedged nvidia-smi hangs `profile --timeout 5s`")
    kill_marked(mark)
    for cmd in (["peaks"], ["bench", "--quick"], ["tour", "--out-dir", "t"], ["occupancy", "--threads", "256", "--regs", "32"]):
        r = c.tool(*cmd, "-q", env=env, timeout=40)
        if r.timed_out:
            c.find("hang", f"a wedged nvidia-smi hangs `{' '.join(cmd)}`")
        kill_marked(mark)
    c.finish(allow_new=(r"bin.*", r"report-path\.txt", r"t/?.*"), allow_changed=(r"bin.*",))

    # signals to the tool's pid alone, while ncu runs (sleep, grandchildren, ignoring TERM)
    for mode in ("sleep", "grandchild", "ignore"):
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1):
            c = Case(f"child/signal/{mode}/{sig.name}", "signals", f"{sig.name} to the tool while ncu ({mode}) runs")
            ncu, env, mark = fake_env(c, mode)
            c.write("old.json", open(docs["analysis"], "rb").read())
            old = open(c.path("old.json"), "rb").read()
            p = subprocess.Popen([BIN, "profile", "--one-pass", "--ncu", ncu, "-o", "old.json", "--save-csv", "raw.csv",
                                  "-q", "--", prog], cwd=c.dir, env={**os.environ, **env, "NO_COLOR": "1", "TMPDIR": c.tmpd},
                                 stdout=subprocess.DEVNULL, stderr=open(c.path("err.txt"), "wb"),
                                 preexec_fn=lambda: (_limits(), os.setsid()))
            global RUNS
            RUNS += 1
            started = wait_for(lambda: marker_pids(mark + "-run") or marker_pids(mark + "-ign"), 15)
            time.sleep(0.3)
            t0 = time.time()
            os.kill(p.pid, sig)
            try:
                rc = p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                c.find("hang", f"the tool did not end within 30 s of {sig.name} (ncu {mode})")
                os.killpg(p.pid, signal.SIGKILL)
                rc = p.wait()
            secs = time.time() - t0
            err = open(c.path("err.txt"), "rb").read().decode("utf-8", "replace")
            c.runs.append((f"roofline profile --one-pass --ncu FAKE({mode}) -o old.json ... ; kill -{sig.name} PID", R(rc, b"", err.encode(), secs, 0, False)))
            if not started:
                c.find("setup", "the stand-in ncu never started")
            if rc == 101 or "panicked" in err:
                c.find("panic", f"{sig.name}: {tail(err)}")
            time.sleep(0.5)
            left = marker_pids(mark) + marker_pids(c.path("bin/ncu"))
            if left:
                names = ", ".join(proc_name(x) for x in left)
                c.find("process left", f"{sig.name} with ncu {mode}: {len(left)} process(es) left behind ({names})")
                kill_marked(mark)
                kill_marked(c.path("bin/ncu"))
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            now = open(c.path("old.json"), "rb").read()
            if now != old and not valid_json_file(c.path("old.json")):
                c.find("data loss", f"{sig.name}: the earlier -o file was replaced by a broken one")
            if os.path.exists(c.path("raw.csv")) and os.path.getsize(c.path("raw.csv")) == 0:
                c.find("data loss", f"{sig.name}: --save-csv left an empty file")
            c.finish(allow_new=(r"bin.*", r"raw\.csv", r"err\.txt", r"report-path\.txt"), allow_changed=(r"old\.json", r"bin.*"))

    # signal while `ncu --import` (the read-back) runs, and while helper queries run
    for label, extra, wait_mark in (("import", {"FAKE_IMPORT": "hang"}, "-import"), ("query", {"FAKE_QUERY": "hang"}, "-query")):
        for sig in (signal.SIGTERM, signal.SIGINT):
            c = Case(f"child/signal-{label}/{sig.name}", "signals", f"{sig.name} to the tool while `ncu {label}` runs")
            ncu, env, mark = fake_env(c, "ok", **extra)
            p = subprocess.Popen([BIN, "profile", "--one-pass", "--ncu", ncu, "-o", "new.json", "-q", "--", prog],
                                 cwd=c.dir, env={**os.environ, **env, "TMPDIR": c.tmpd}, stdout=subprocess.DEVNULL,
                                 stderr=open(c.path("err.txt"), "wb"), preexec_fn=lambda: (_limits(), os.setsid()))
            RUNS += 1
            started = wait_for(lambda: marker_pids(mark + wait_mark), 15)
            os.kill(p.pid, sig)
            try:
                rc = p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                c.find("hang", f"the tool ignored {sig.name} while `ncu {label}` ran (still running after 30 s)")
                os.killpg(p.pid, signal.SIGKILL)
                rc = p.wait()
            err = open(c.path("err.txt"), "rb").read()
            c.runs.append((f"profile ... (ncu {label} hangs); kill -{sig.name}", R(rc, b"", err, 0, 0, False)))
            if not started:
                c.find("setup", f"ncu {label} never started")
            time.sleep(0.5)
            if marker_pids(mark) or marker_pids(c.path("bin/ncu")):
                c.find("process left", f"{sig.name} during ncu {label}: `ncu {label}` left running (orphaned)")
                kill_marked(mark)
                kill_marked(c.path("bin/ncu"))
            c.finish(allow_new=(r"bin.*", r"err\.txt", r"report-path\.txt", r"new\.json"), allow_changed=(r"bin.*",))

    # --timeout with grandchildren that ignore signals and leave the group
    for mode in ("grandchild", "ignore"):
        c = Case(f"child/timeout/{mode}", "children", f"profile --timeout 2s with ncu {mode}")
        ncu, env, mark = fake_env(c, mode)
        r = c.tool("profile", "--one-pass", "--timeout", "2s", "--ncu", ncu, "-o", "t.json", "-q", "--", prog, env=env,
                   timeout=60, expect=(0, 1, 2))
        if r.secs > 30:
            c.find("hang", f"--timeout 2s with ncu {mode} took {r.secs:.0f} s")
        time.sleep(0.3)
        if marker_pids(mark) or marker_pids(c.path("bin/ncu")):
            c.find("process left", f"--timeout with ncu {mode}: {len(marker_pids(mark))} process(es) left")
            kill_marked(mark)
            kill_marked(c.path("bin/ncu"))
        c.finish(allow_new=(r"bin.*", r"t\.json", r"report-path\.txt"), allow_changed=(r"bin.*",))

    # hostile --ncu and program values
    for label, argv in (("ncu-dir", ["profile", "--ncu", "/tmp", "--", prog]),
                        ("ncu-missing", ["profile", "--ncu", "/nonexistent/ncu", "--", prog]),
                        ("ncu-noexec", ["profile", "--ncu", SEED_CSV, "--", prog]),
                        ("ncu-devnull", ["profile", "--ncu", "/dev/null", "--", prog]),
                        ("prog-missing", ["profile", "--one-pass", "--ncu", "NCU", "--", "/nonexistent"]),
                        ("prog-dir", ["profile", "--one-pass", "--ncu", "NCU", "--", "/tmp"]),
                        ("prog-empty", ["profile", "--one-pass", "--ncu", "NCU", "--", ""]),
                        ("savecsv-same-o", ["profile", "--one-pass", "--ncu", "NCU", "-o", "x.csv", "--save-csv", "x.csv", "--", prog]),
                        ("savecsv-prog", ["profile", "--one-pass", "--ncu", "NCU", "--save-csv", "prog.sh", "--", "./prog.sh"]),
                        ("savecsv-ncu", ["profile", "--one-pass", "--ncu", "NCU", "--save-csv", "NCU", "--", prog]),
                        ("o-ncu", ["profile", "--one-pass", "--ncu", "NCU", "-o", "NCU", "--", prog]),
                        ("savecsv-full", ["profile", "--one-pass", "--ncu", "NCU", "--save-csv", "/dev/full", "-o", "ok.json", "--", prog]),
                        ("o-full", ["profile", "--one-pass", "--ncu", "NCU", "-o", "/dev/full", "--save-csv", "ok.csv", "--", prog]),
                        ("ncu-arg-export", ["profile", "--one-pass", "--ncu", "NCU", "--ncu-arg", "--export", "--ncu-arg", "keep.txt", "--", prog]),
                        ("metrics-empty", ["profile", "--one-pass", "--ncu", "NCU", "--metrics", "", "--", prog]),
                        ("metrics-huge", ["profile", "--one-pass", "--ncu", "NCU", "--metrics", ",".join(["m"] * 20000), "--", prog]),
                        ("coverage-0", ["profile", "--ncu", "NCU", "--coverage", "0", "--", prog]),
                        ("timeline-prog", ["timeline", "--inject-lib", "NCU", "--", prog]),
                        ):
        c = Case(f"child/args/{label}", "children", " ".join(argv)[:90])
        ncu, env, mark = fake_env(c, "ok")
        c.write("prog.sh", "#!/bin/sh\necho program\n", mode=0o755)
        c.write("keep.txt", "keep\n")
        ncu_copy = open(ncu, "rb").read()
        c.freeze()
        argv = [ncu if x == "NCU" else x for x in argv]
        argv.insert(1, "-q")
        r = c.tool(*argv, env=env, timeout=60)
        if open(ncu, "rb").read() != ncu_copy:
            c.find("overwrite", f"{label}: the ncu executable (an input) was overwritten")
        if open(c.path("prog.sh")).read() != "#!/bin/sh\necho program\n":
            c.find("overwrite", f"{label}: the profiled program was overwritten")
        if label in ("savecsv-full",) and not valid_json_file(c.path("ok.json")):
            c.find("data loss", "a failing --save-csv discarded the -o analysis")
        if label == "o-full" and not os.path.exists(c.path("ok.csv")):
            c.find("data loss", "a failing -o discarded the --save-csv capture")
        if label == "savecsv-same-o":
            txt = open(c.path("x.csv"), "rb").read() if os.path.exists(c.path("x.csv")) else b""
            if r.rc == 0:
                c.find("overwrite", f"-o x.csv and --save-csv x.csv both accepted: one replaced the other "
                                    f"(x.csv now holds {'the raw capture' if b'gpu__time_duration' in txt else 'the analysis'})")
        kill_marked(mark)
        # --ncu-arg --export keep.txt: the stand-in obeys the last --export (as
        # ncu would write keep.txt.ncu-rep); that is the user's ncu argument
        c.finish(allow_new=(r".*",), allow_changed=(r"bin.*", r"report-path\.txt") +
                 ((r"keep\.txt",) if label == "ncu-arg-export" else ()))


def record_header(pid=4242, unix_ns=None):
    unix_ns = unix_ns or time.time_ns()
    return json.dumps({"t": "header", "format": "roofline.records/v1", "pid": pid,
                       "clock": {"cupti_ns": 5_000_000_000, "unix_ns": unix_ns}})


def attack_timeline(docs):
    inject = os.path.join(WORK, "fake-inject.so")
    open(inject, "wb").write(b"not a library")
    base = 5_000_000_000

    def hostile(label, script, extra_args=(), timeout=90, expect=(0, 1, 2), formats=None):
        formats = formats if formats is not None else not any(
            w in label for w in ("200k", "1e6", "10k", "huge", "sparse", "endless", "timeout"))
        c = Case(f"timeline/{label}", "timeline", f"timeline of a program that writes {label} into its record folder")
        prog = c.write("prog.sh", "#!/bin/bash\ncd \"$ROOFLINE_TIMELINE_DIR\" || exit 9\n" + script, mode=0o755)
        c.write("keep.txt", "keep\n")
        r = c.tool("timeline", "--inject-lib", inject, *extra_args, "-o", "tl.json", "-q", "--", prog,
                   env={"CUDA_INJECTION64_PATH": None}, timeout=timeout, expect=expect)
        if r.rc == 0 and not valid_json_file(c.path("tl.json")):
            c.find("output unreadable", "timeline exit 0 but -o tl.json is not JSON")
        if b"\x1b]0;pwned" in r.err:
            c.find("terminal injection", "timeline: a recorded name's escape sequence raw on stderr")
        if r.rc == 0:
            # a timeline is read back by `merge` (report takes analyses, merged jobs and machines)
            for fmt in ("table", "html", "csv", "markdown", "json"):
                r2 = c.tool("merge", c.path("tl.json"), c.path("tl.json"), "--format", fmt, "-q", timeout=120)
                if r2.rc != 0 and "has no kernels" not in r2.errs:  # an empty timeline is refused by name
                    c.find("round trip", f"merge --format {fmt} refuses timeline's own output: {tail(r2.errs)}")
                if b"\x1b]0;pwned" in r2.out:
                    c.find("terminal injection", f"merge --format {fmt}: a recorded name's escape sequence raw")
            for fmt in (("table", "trace", "html", "markdown") if formats else ()):
                r3 = c.tool("timeline", "--inject-lib", inject, *extra_args, "--format", fmt, "-q", "--", prog,
                            env={"CUDA_INJECTION64_PATH": None}, timeout=timeout, expect=expect)
                if b"\x1b]0;pwned" in r3.out:
                    c.find("terminal injection", f"timeline --format {fmt}: a recorded name's escape sequence raw")
                if fmt == "html" and r3.rc == 0:
                    html_checks(c, r3.out, "timeline --format html")
        if open(c.path("keep.txt")).read() != "keep\n":
            c.find("overwrite", "keep.txt changed")
        kill_marked("adv4tl")
        c.finish(allow_new=(r"tl\.json", r"recs.*"))
        return c, r

    H = record_header()
    K = lambda n, s, e, **kw: json.dumps({"t": "kernel", "name": n, "start": s, "end": e, "dev": kw.get("dev", 0),
                                          "ctx": 1, "stream": 7, "corr": kw.get("corr", 1), "grid": [64, 1, 1],
                                          "block": [256, 1, 1]})
    N = lambda i, s: json.dumps({"t": "name", "id": i, "s": s})
    good = "\n".join([H, N(1, "_Z6vecaddPKfS0_Pfi"), K(1, base + 100000, base + 101000)]) + "\n"
    hostile("nothing", "exit 0\n")
    hostile("good", f"cat > 4242.jsonl <<'EOF'\n{good}EOF\n")
    hostile("fifo", "mkfifo 4242.jsonl\n")
    hostile("fifo-writer", "mkfifo 4242.jsonl\n(exec -a adv4tl-fifo sleep 60 > 4242.jsonl &)\nsleep 0.2\n")
    hostile("symlink-etc", "ln -s /etc/passwd 4242.jsonl\nln -s /dev/zero 4243.jsonl\nln -s /proc/self/mem 4244.jsonl\n")
    hostile("dir", "mkdir 4242.jsonl\n")
    hostile("devzero-hardlink", "mknod 4242.jsonl c 1 5 2>/dev/null || true\n")
    hostile("socket", "python3 -c \"import socket;s=socket.socket(socket.AF_UNIX);s.bind('4242.jsonl')\"\n")
    hostile("huge-line", f"{{ echo '{H}'; head -c 40000000 /dev/zero | tr '\\0' 'a'; echo; echo '{N(1, 'k')}'; echo '{K(1, base, base + 10)}'; }} > 4242.jsonl\n")
    hostile("huge-noeol", f"{{ echo '{H}'; head -c 100000000 /dev/zero | tr '\\0' 'a'; }} > 4242.jsonl\n", timeout=120)
    hostile("sparse-2g", "truncate -s 2G 4242.jsonl\n", timeout=120)
    hostile("binary", "head -c 3000000 /dev/urandom > 4242.jsonl\n")
    hostile("garbage-lines", f"{{ echo '{H}'; for i in $(seq 1 2000); do echo '{{\"t\":\"kernel\",\"name\":\"x\"}}'; echo '[1,2'; echo 'null'; echo '{{\"t\":\"zzz\"}}'; done; }} > 4242.jsonl\n")
    hostile("no-header", f"echo '{N(1, 'k')}' > 4242.jsonl; echo '{K(1, base, base + 10)}' >> 4242.jsonl\n")
    hostile("two-headers", f"printf '%s\\n' '{H}' '{record_header(1)}' '{N(1, 'k')}' '{K(1, base, base + 10)}' > 4242.jsonl\n")
    hostile("wrong-format", "echo '{\"t\":\"header\",\"format\":\"roofline.records/v9\",\"pid\":1,\"clock\":{\"cupti_ns\":0,\"unix_ns\":0}}' > 4242.jsonl\n")
    weird_kernels = [
        K(1, base + 10, base), K(1, 0, 18446744073709551615), K(1, 18446744073709551615, 18446744073709551615),
        K(99, base, base + 10), K(1, base, base), K(1, base, base + 10, dev=4294967295),
        json.dumps({"t": "memcpy", "copy": "ZtoQ", "bytes": 18446744073709551615, "start": base, "end": base + 1,
                    "dev": 0, "ctx": 1, "stream": 1, "corr": 2}),
        json.dumps({"t": "memset", "bytes": 18446744073709551615, "start": base + 5, "end": base + 1, "dev": 0,
                    "ctx": 1, "stream": 1, "corr": 3}),
        json.dumps({"t": "api", "name": 1, "start": base + 9, "end": base, "tid": 0, "corr": 1}),
        json.dumps({"t": "dropped", "count": 18446744073709551615}),
        json.dumps({"t": "device", "id": 0, "name": "\u001b]0;pwned\u0007", "sms": 0, "cc": "x.y"}),
        json.dumps({"t": "error", "message": "\u001b]0;pwned\u0007" * 100}),
        N(1, "\u001b]0;pwned\u0007<script>alert(1)</script>"), N(1, "redefined"),
        N(4294967295, "max"),
    ]
    hostile("weird-records", "cat > 4242.jsonl <<'EOF'\n" + "\n".join([H] + weird_kernels) + "\nEOF\n")
    # NVTX: deep nesting, unclosed, mismatched
    M = lambda i, flag, ts, name=None: json.dumps({"t": "marker", "id": i, "flag": flag, "ts": ts, "pid": 1, "tid": 1,
                                                   **({"name": name} if name else {})})
    py = ("import json,sys\nH=%r\nbase=%d\nL=[H,json.dumps({'t':'name','id':1,'s':'k'})]\n"
          "n=int(sys.argv[1])\n"
          "for i in range(n): L.append(json.dumps({'t':'marker','id':i,'flag':'start','ts':base+i,'pid':1,'tid':1,'name':1}))\n"
          "for i in range(n): L.append(json.dumps({'t':'kernel','name':1,'start':base+n+i,'end':base+n+i+1,'dev':0,'ctx':1,'stream':7,'corr':i,'grid':[1,1,1],'block':[1,1,1]}))\n"
          "if sys.argv[2]=='close':\n  [L.append(json.dumps({'t':'marker','id':i,'flag':'end','ts':base+3*n-i,'pid':1,'tid':1})) for i in range(n)]\n"
          "open('4242.jsonl','w').write('\\n'.join(L)+'\\n')\n") % (H, base)
    hostile("nvtx-deep-200k", f"python3 - 200000 close <<'EOF'\n{py}EOF\n", timeout=180)
    hostile("nvtx-unclosed-200k", f"python3 - 200000 open <<'EOF'\n{py}EOF\n", timeout=180)
    hostile("nvtx-deep-200k-nonvtx", f"python3 - 200000 close <<'EOF'\n{py}EOF\n", extra_args=("--no-nvtx",), timeout=180)
    # a million kernels of a million names
    py2 = ("import json\nH=%r\nbase=%d\nf=open('4242.jsonl','w')\nf.write(H+'\\n')\n"
           "for i in range(1000000):\n f.write('{\"t\":\"name\",\"id\":%%d,\"s\":\"k%%d\"}\\n{\"t\":\"kernel\",\"name\":%%d,\"start\":%%d,\"end\":%%d,\"dev\":0,\"ctx\":1,\"stream\":7,\"corr\":%%d,\"grid\":[1,1,1],\"block\":[1,1,1]}\\n' %% (i,i,i,base+i*10,base+i*10+5,i))\n") % (H, base)
    hostile("1e6-kernels-1e6-names", f"python3 - <<'EOF'\n{py2}EOF\n", timeout=300)
    # many files
    hostile("10k-files", f"for i in $(seq 1 10000); do echo '{H}' > $i.jsonl; done\n", timeout=180)
    # a writer that keeps appending after the program exits (a daemon left behind)
    hostile("endless-writer", f"echo '{H}' > 4242.jsonl\nsetsid bash -c 'exec -a adv4tl-writer bash -c \"while true; do echo {json.dumps(N(1, 'x'))!r} >> 4242.jsonl; done\"' &\nsleep 0.5\n",
            timeout=60)
    kill_marked("adv4tl")
    # a program that ignores signals and a --timeout
    c, r = hostile("timeout-ignore", "trap '' INT TERM HUP\n(trap '' INT TERM HUP; exec -a adv4tl-child sleep 300) &\nexec -a adv4tl-main sleep 300\n",
                   extra_args=("--timeout", "2s"), timeout=60)
    if r.secs > 30:
        c.find("hang", f"timeline --timeout 2s with a program ignoring signals took {r.secs:.0f} s")
    # --records onto hostile places
    for label, setup, rec in (("records-file", "echo x > recs", "recs"), ("records-link", "ln -s /etc recs", "recs"),
                              ("records-devnull", "", "/dev/null"), ("records-jsonl", "mkdir recs; echo x > recs/1.jsonl", "recs"),
                              ("records-ro", "mkdir recs; chmod 555 recs", "recs"),
                              ("records-jsonl-dir", "mkdir -p recs/a.jsonl", "recs")):
        c = Case(f"timeline/{label}", "timeline", f"timeline --records onto {label}")
        subprocess.run(setup, shell=True, cwd=c.dir)
        c.freeze()
        prog = os.path.join(WORK, "true.sh")
        open(prog, "w").write("#!/bin/sh\nexit 0\n")
        os.chmod(prog, 0o755)
        r = c.tool("timeline", "--inject-lib", inject, "--records", rec, "-q", "--", prog,
                   env={"CUDA_INJECTION64_PATH": None}, timeout=60)
        if label == "records-link" and r.rc == 0:
            c.find("misleading", "--records onto a link to /etc accepted")
        c.finish(allow_new=(r"recs.*",), allow_changed=(r"recs.*",))
    # CUDA_INJECTION64_PATH already set, --inject-lib odd
    for label, args, env in (("inj-set", [], {"CUDA_INJECTION64_PATH": "/x.so"}),
                             ("inj-dir", ["--inject-lib", "/tmp"], {}),
                             ("inj-missing", ["--inject-lib", "/nonexistent.so"], {}),
                             ("cupti-missing", ["--inject-lib", inject, "--cupti", "/nonexistent"], {}),
                             ("no-program", ["--inject-lib", inject], {})):
        c = Case(f"timeline/{label}", "timeline", f"timeline {label}")
        c.tool("timeline", *args, "-q", "--", *([] if label == "no-program" else ["/bin/true"]), env=env, timeout=60)
        c.finish()
    # signals to the tool during a timeline run
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        c = Case(f"timeline/signal/{sig.name}", "signals", f"{sig.name} to the tool during timeline of a sleeping program")
        prog = c.write("prog.sh", f"#!/bin/bash\ncd \"$ROOFLINE_TIMELINE_DIR\"\necho '{H}' > 4242.jsonl\n"
                                  "(exec -a adv4tl-gc sleep 300) &\nsetsid bash -c 'exec -a adv4tl-setsid sleep 300' &\nexec -a adv4tl-main sleep 300\n",
                       mode=0o755)
        c.write("out.json", open(docs["timeline"], "rb").read())
        old = open(c.path("out.json"), "rb").read()
        p = subprocess.Popen([BIN, "timeline", "--inject-lib", inject, "-o", "out.json", "-q", "--", prog], cwd=c.dir,
                             env={**{k: v for k, v in os.environ.items() if k != "CUDA_INJECTION64_PATH"}, "TMPDIR": c.tmpd},
                             stdout=subprocess.DEVNULL, stderr=open(c.path("err.txt"), "wb"),
                             preexec_fn=lambda: (_limits(), os.setsid()))
        global RUNS
        RUNS += 1
        wait_for(lambda: marker_pids("adv4tl-main"), 15)
        time.sleep(0.3)
        os.kill(p.pid, sig)
        try:
            rc = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            c.find("hang", f"timeline did not end within 30 s of {sig.name}")
            os.killpg(p.pid, signal.SIGKILL)
            rc = p.wait()
        err = open(c.path("err.txt"), "rb").read()
        c.runs.append((f"timeline ... ; kill -{sig.name}", R(rc, b"", err, 0, 0, False)))
        if b"panicked" in err:
            c.find("panic", tail(err.decode()))
        time.sleep(0.5)
        left = marker_pids("adv4tl")
        if left:
            c.find("process left", f"{sig.name}: {len(left)} process(es) of the program left behind")
            kill_marked("adv4tl")
        if open(c.path("out.json"), "rb").read() != old and not valid_json_file(c.path("out.json")):
            c.find("data loss", f"{sig.name}: -o out.json replaced by a broken file")
        c.finish(allow_new=(r"err\.txt",), allow_changed=(r"out\.json",))


def attack_merge(docs):
    a = docs["analysis"]
    ad = json.load(open(a))
    c = Case("merge/many", "merge", "merge of 64 rank files with hostile ones among them")
    files = []
    for i in range(64):
        d = json.loads(json.dumps(ad))
        d["rank"] = {"rank": i, "local_rank": i % 8, "world_size": 64, "variable": "RANK", "launcher": "torchrun",
                     "host": f"h{i // 8}"}
        files.append(c.write(f"job.rank{i}.json", json.dumps(d)))
    hostile_docs = {
        "dup-rank": {**ad, "rank": {"rank": 0, "world_size": 64}},
        "rank-over": {**ad, "rank": {"rank": 1000, "world_size": 64}},
        "rank-neg": {**ad, "rank": {"rank": -1, "world_size": 64}},
        "world-mismatch": {**ad, "rank": {"rank": 3, "world_size": 2}},
        "other-gpu": mutate_json(docs["analysis2"], lambda d: None),
        "machine-doc": json.load(open(docs["machine"])),
        "timeline-doc": json.load(open(docs["timeline"])),
        "merged-doc": json.load(open(docs["merged"])),
        "empty": {**ad, "kernels": []},
    }
    for label, d in hostile_docs.items():
        cc = Case(f"merge/hostile/{label}", "merge", f"merge 64 ranks plus one {label}")
        p = cc.write(f"{label}.json", json.dumps(d))
        cc.freeze()
        r = cc.tool("merge", *files, p, "-q", "-o", "job.json", timeout=120)
        if r.rc == 0:
            r2 = cc.tool("report", "job.json", "-q", "-o", "job.html", timeout=120)
            r3 = cc.tool("check", "job.json", "--min-pct-of-roof", "1", "-q", timeout=120)
        cc.finish(allow_new=(r"job\.(json|html)",))
    r = c.tool("merge", *files, "-q", "-o", "job.json", timeout=120)
    r = c.tool("merge", *(files * 20), "-q", "--format", "json", timeout=120)
    r = c.tool("merge", files[0], "-q", timeout=60)
    r = c.tool("merge", *[f for f in files], docs["timeline"], "-q", timeout=60)
    c.finish(allow_new=(r"job\.json",))
    c = Case("merge/names", "merge", "merge of rank files named with odd ranks")
    for n in ("job.rank-1.json", "job.rank99999999999999999999.json", "job.rank.json", "job.rankx.json", "job.rank1.rank2.json"):
        c.write(n, open(a, "rb").read())
    c.tool("merge", *sorted(os.listdir(c.dir)), "-q", timeout=60)
    c.finish()


def attack_check_diff(docs):
    a = docs["analysis"]
    ad = json.load(open(a))
    c = Case("check/semantics", "check", "check and diff with analyses without durations, duplicate names, per launch")
    nodur = json.loads(json.dumps(ad))
    for k in nodur["kernels"]:
        k["kernel"]["duration_s"] = None
    p0 = c.write("nodur.json", json.dumps(nodur))
    r = c.tool("check", p0, "--min-pct-of-roof", "50", "-q", timeout=60)
    if r.rc == 0:
        c.find("wrong exit code", "check of an analysis without durations exits 0")
    dup = json.loads(json.dumps(ad))
    for k in dup["kernels"]:
        k["kernel"]["name"] = "same"
    p1 = c.write("dup.json", json.dumps(dup))
    r = c.tool("check", p1, "--baseline", p1, "--max-regression", "10", "-q", timeout=60)
    if r.rc != 0:
        c.find("wrong exit code", f"check of duplicate-named kernels against itself exits {r.rc}: {tail(r.errs)}")
    r = c.tool("diff", p1, p1, "-q", "--format", "csv", timeout=60)
    r = c.tool("import", SEED_CSV, "--per-launch", "-q", "-o", c.path("pl.json"), timeout=60)
    r = c.tool("check", c.path("pl.json"), "--baseline", c.path("pl.json"), "--max-regression", "10", "-q", timeout=60)
    if r.rc != 0:
        c.find("wrong exit code", f"check --per-launch analysis against itself exits {r.rc}: {tail(r.errs)}")
    r = c.tool("diff", c.path("pl.json"), a, "-q", timeout=60)
    r = c.tool("diff", c.path("pl.json"), c.path("pl.json"), "-q", "--format", "json", timeout=60)
    for spec in ("=50", "x=", "x=NaN", "x=-1", "x=1e309", "==", "a=b=c", "x=50%", "vecadd=50", "vecadd=0", "vecadd=100",
                 "vecadd=101", "nosuch=50"):
        r = c.tool("check", a, "--kernel", spec, "-q", timeout=60)
        if spec in ("=50", "x=", "x=NaN", "x=1e309", "==", "x=-1", "vecadd=101") and r.rc != 2:
            c.find("wrong exit code", f"check --kernel {spec!r} exits {r.rc}, not 2 (bad usage)")
        if spec == "nosuch=50" and r.rc == 0:
            c.find("misleading", "check --kernel nosuch=50 (a kernel that is not there) exits 0")
    for cfg in ('min_pct_of_roof = "NaN"', "min_pct_of_roof = nan", "min_pct_of_roof = inf", "min_pct_of_roof = -inf",
                "min_pct_of_roof = 1e400", 'baseline = "/dev/zero"', 'baseline = "c.toml"', "[[kernel]]\nname = 5",
                '[[kernel]]\nname = "vecadd"\nmax_time = "-1 ms"', '[[kernel]]\nname = "vecadd"\nmax_time = "NaN s"',
                '[[kernel]]\nname = "vecadd"\nmax_time = "1 parsec"', "a = 1\na = 2", "[" * 10000, "x = " + "[" * 5000 + "]" * 5000,
                "\x00", "\xef\xbb\xbfmin_pct_of_roof = 1", 'min_pct_of_roof = 1\nmin_pct_of_roof = 2',
                '[[kernel]]\nname = "vecadd"\n[[kernel]]\nname = "vecadd"\nmin_pct_of_roof = 200'):
        p = c.write("c.toml", cfg)
        r = c.tool("check", a, "--config", p, "-q", timeout=60)
        if r.rc == 0 and cfg.strip() not in ("\xef\xbb\xbfmin_pct_of_roof = 1",):
            c.find("accepted bad value", f"check --config with {cfg[:40]!r} exits 0")
    # model TOML files
    for label, toml in (("deep", "a = " + "[" * 10000 + "]" * 10000), ("dup-key", '[[kernel]]\nname="a"\nflops=1\nflops=2\nbytes=1'),
                        ("nan", '[[kernel]]\nname="a"\nflops=nan\nbytes=1'), ("inf", '[[kernel]]\nname="a"\nflops=inf\nbytes=1'),
                        ("neg", '[[kernel]]\nname="a"\nflops=-1\nbytes=1'), ("zero", '[[kernel]]\nname="a"\nflops=0\nbytes=0'),
                        ("huge", '[[kernel]]\nname="a"\nflops=1e308\nbytes=1e-308\nelements=1e308\ntime="1 ns"'),
                        ("sub", '[[kernel]]\nname="a"\nflops=5e-324\nbytes=5e-324'),
                        ("elements-neg", '[[kernel]]\nname="a"\nflops=1\nbytes=1\nelements=-5'),
                        ("time-0", '[[kernel]]\nname="a"\nflops=1\nbytes=1\ntime="0 s"'),
                        ("time-neg", '[[kernel]]\nname="a"\nflops=1\nbytes=1\ntime="-1 ms"'),
                        ("many", "\n".join(f'[[kernel]]\nname="k{i}"\nflops={i}\nbytes={i + 1}' for i in range(100000))),
                        ("machine-bogus", '[machine]\ngpu="h900"\n[[kernel]]\nname="a"\nflops=1\nbytes=1'),
                        ("machine-peak0", '[machine]\npeak="0 FLOP/s"\nbandwidth="0 GB/s"\n[[kernel]]\nname="a"\nflops=1\nbytes=1'),
                        ("empty", ""), ("binary", "\x00\x01\x02")):
        p = c.write(f"m-{label}.toml", toml)
        for fmt in ("table", "chart", "html", "json"):
            r = c.tool("model", p, "--format", fmt, "-q", timeout=120)
            if r.rc == 0 and label in ("nan", "inf", "neg", "time-neg", "elements-neg", "machine-peak0"):
                c.find("accepted bad value", f"model with {label} exits 0 ({fmt})")
                break
    for spec in ("k: flops=1e307 bytes=0.1 time=1ms", "k: flops=1 bytes=0", "k: flops=0 bytes=0 time=0s",
                 "k: flops=1 bytes=1 elements=1e308", "k: flops=NaN bytes=1", "k: flops=1 bytes=1 time=1e-320s",
                 "k: flops=1 bytes=1 kind=fp999", "k flops=1 bytes=1", ": flops=1 bytes=1", "k: flops=1 flops=2 bytes=1",
                 "k: flops=1 bytes=1 dram=1 l2=1e308 l1=5e-324 time=1us", "k: " + "flops=1 " * 10000 + "bytes=1",
                 "k: flops=0x10 bytes=1", "k: flops=1e3 bytes=1 time=1 fortnight", "k: flops=-0 bytes=-0 time=-0s",
                 "k: flops=1 bytes=1 time=5e-324s", "k: flops=1.7976931348623157e308 bytes=5e-324 time=1s"):
        for fmt in ("table", "chart", "html", "json"):
            r = c.tool("model", "--gpu", "h200", "-k", spec, "--format", fmt, "-q", "-o", c.path("mo.json"), timeout=60)
            if r.rc == 0 and os.path.exists(c.path("mo.json")):
                r2 = c.tool("report", c.path("mo.json"), "-q", "--format", "chart", timeout=60)
                if r2.rc != 0:
                    c.find("round trip", f"model -k {spec[:40]!r} wrote an analysis report refuses: {tail(r2.errs)}")
                os.remove(c.path("mo.json"))
    # diff --match hostile
    for m in ("a+b+c+d+e+f=g", "=x", "x=", "+=+", "vecadd=vecadd", "vecadd+vecadd=vecadd", "vecadd=nosuch",
              "a" * 100000 + "=b", "vecadd=saxpy", "saxpy=vecadd"):
        r = c.tool("diff", a, a, "--match", m, "--match", m, "-q", timeout=60)
    c.finish(allow_new=(r".*",))


def attack_misc(docs):
    # report --width extremes and the terminal chart with tiny/huge COLUMNS
    a = docs["analysis"]
    c = Case("misc/width", "formats", "report --width and COLUMNS extremes")
    for w in ("0", "1", "10", "100000", "4294967295", "18446744073709551615", "-5"):
        r = c.tool("report", a, "--width", w, "-o", "w.svg", "-q", timeout=60)
        if w in ("100000", "4294967295", "18446744073709551615") and r.rss_mb > 500:
            c.find("memory", f"--width {w}: {r.rss_mb:.0f} MB")
    for cols in ("0", "1", "2", "5", "100000", "-1", "abc", "99999999999999999999"):
        for fmt in ("table", "chart"):
            c.tool("report", a, "--format", fmt, "-q", env={"COLUMNS": cols, "LINES": cols}, timeout=60)
            c.tool("report", docs["timeline"], "--format", fmt, "-q", env={"COLUMNS": cols}, timeout=60)
            c.tool("check", a, "--min-pct-of-roof", "90", "--format", fmt, env={"COLUMNS": cols}, timeout=60)
    for env in ({"NO_COLOR": "1"}, {"NO_COLOR": ""}, {"TERM": "dumb"}, {"CLICOLOR_FORCE": "1"}, {"LANG": "C"},
                {"LC_ALL": "tr_TR.UTF-8"}, {"HOME": "/nonexistent"}, {"TMPDIR": "/nonexistent"}, {"TMPDIR": "/dev/null"},
                {"PATH": ""}, {"CUDA_HOME": "/etc/passwd"}, {"RUST_BACKTRACE": "1"}):
        r = c.tool("report", a, "--format", "table", "--color", "always", "-q", env=env, timeout=60)
        r = c.tool("tour", "--out-dir", "tt", "-q", env=env, timeout=60)
        r = c.tool("import", SEED_CSV, "-o", "i.json", "-q", env=env, timeout=60)
    c.finish(allow_new=(r".*",))
    # profile/timeline/bench with TMPDIR unusable
    c = Case("misc/tmpdir", "children", "profile and timeline with TMPDIR unusable")
    ncu, env, mark = fake_env(c, "ok")
    for t in ("/nonexistent", "/dev/null", "/proc"):
        env2 = {**env, "TMPDIR": t}
        c.tool("profile", "--one-pass", "--ncu", ncu, "-q", "--", "/bin/true", env=env2, timeout=60)
        c.tool("timeline", "--inject-lib", SEED_CSV, "-q", "--", "/bin/true", env=env2, timeout=60)
    kill_marked(mark)
    c.finish(allow_new=(r".*",), allow_changed=(r".*",))


ATTACKS = [("flags", attack_flags), ("formats", attack_formats), ("csv", attack_csv), ("json", attack_json),
           ("inject", attack_injection), ("output", attack_output), ("streams", attack_streams),
           ("children", attack_children), ("timeline", attack_timeline), ("merge", attack_merge),
           ("check", attack_check_diff), ("misc", attack_misc), ("scale", attack_scale)]


def main():
    global BIN, WORK
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.environ.get("ROOFLINE_BIN", "/work/wt/adversary4-bin/roofline"))
    ap.add_argument("--work", default=None, help="working folder (default: a new one under /tmp)")
    ap.add_argument("--only", default=None, help="comma-separated attack names: " + ",".join(n for n, _ in ATTACKS))
    ap.add_argument("--skip", default="", help="comma-separated attack names to leave out")
    args = ap.parse_args()
    BIN = os.path.abspath(args.bin)
    WORK = args.work or tempfile.mkdtemp(prefix="adv4-")
    os.makedirs(WORK, exist_ok=True)
    print(f"binary: {BIN}\nwork: {WORK}", flush=True)
    docs = base_docs()
    only = set(args.only.split(",")) if args.only else None
    skip = set(filter(None, args.skip.split(",")))
    t0 = time.time()
    for name, fn in ATTACKS:
        if (only and name not in only) or name in skip:
            continue
        t = time.time()
        n0, r0 = len(RESULTS), RUNS
        try:
            fn(docs)
        except Exception as e:  # the driver's own failure must not hide the rest
            import traceback
            traceback.print_exc()
            RESULTS.append({"id": f"driver/{name}", "cat": name, "what": "driver error", "runs": 0,
                            "findings": [("driver", repr(e))], "log": []})
        print(f"-- {name}: {len(RESULTS) - n0} cases, {RUNS - r0} runs, {time.time() - t:.0f} s", flush=True)
    sev = {}
    for r in RESULTS:
        for s, _ in r["findings"]:
            sev[s] = sev.get(s, 0) + 1
    print(f"\n{len(RESULTS)} cases, {RUNS} runs, {time.time() - t0:.0f} s; findings by kind: {json.dumps(sev)}")
    print(f"results: {os.path.join(WORK, 'results.jsonl')}")


if __name__ == "__main__":
    main()
