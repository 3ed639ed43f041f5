#!/usr/bin/env python3
"""Second adversarial pass over the `roofline` CLI (issue 16), black box.

Why: issue 16's acceptance asks for a pass by someone who has not read the
fixes. This driver makes that pass reproducible: it builds every hostile input
from the bundled captures, runs the binary on it in a fresh folder, and judges
each run by the same rules, whatever the command:

  PANIC          "panicked" on stderr, or exit 101
  HANG           killed by the per-case timeout
  EXIT           an exit status other than 0, 1, 2
  OUTSIDE_WRITE  a file changed or removed that the run was not asked to write
  LEFTOVER       a file created that the run was not asked to create (temp files)
  TMP_LEFTOVER   something left in the run's own $TMPDIR
  DATALOSS       the run claimed success but its -o target is missing or empty
  UNREADABLE     a document the tool wrote that it (or a JSON/XML/CSV parser) cannot read back
  RC             an exit status other than the one the case expects (bad input: 2)
  CHECK          a case-specific property failed (see the case's `check`)
  MEM / SLOW     over 1 GB peak RSS / over the case's time budget

Usage:
  scripts/adversarial/pass2.py                 every category but scale
  scripts/adversarial/pass2.py --only C3,C13   some categories
  scripts/adversarial/pass2.py --only scale    the 100,000-kernel runs
  ROOFLINE_BIN=path/to/roofline ...            another binary (default: target/release/roofline)

Writes under $ADV_SCRATCH (default /tmp/adversary-scratch/pass2): one folder per
case, results.jsonl (one line per run) and summary.json. Runs as root for the
ownership cases; the permission cases drop to `nobody` with setpriv.
"""

import argparse
import csv
import glob
import hashlib
import io
import json
import os
import random
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

REPO = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("ROOFLINE_BIN", REPO / "target/release/roofline"))
SCR = Path(os.environ.get("ADV_SCRATCH", "/tmp/adversary-scratch/pass2"))
DATA = REPO / "data/h200"
FX = REPO / "tests/fixtures"
SEED_CSV = DATA / "ncu_seed000.csv"
GEMM_CSV = DATA / "ncu_gemms.csv"
NOBODY = "setpriv --reuid=65534 --regid=65534 --clear-groups"

random.seed(20261130)


# --------------------------------------------------------------------------- cases


@dataclass
class Case:
    cid: str
    cat: str
    cmd: str  # bash, run in <case>/w; $B binary, $BASE base documents, $FX fixtures, $DATA
    setup: list = field(default_factory=list)  # callables(root)
    outputs: list = field(default_factory=list)  # globs relative to the case root allowed to change
    must_write: list = field(default_factory=list)  # written when rc in must_write_rcs
    must_write_rcs: tuple = (0,)
    expect_rc: Optional[set] = None
    timeout: float = 30
    budget_s: Optional[float] = None  # SLOW above this
    mem_kb: int = 1024 * 1024
    check: Optional[Callable] = None  # (root, res) -> list[str]
    readback: bool = True  # parse every written output
    env: dict = field(default_factory=dict)
    inputs: list = field(default_factory=list)  # bytes of the hostile inputs (for the counts)
    tmp_ok: bool = False  # the tool may leave a file in $TMPDIR on purpose (and says so)
    note: str = ""


def put(name, data, mode=None):
    def op(root):
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data if isinstance(data, bytes) else data.encode())
        if mode is not None:
            os.chmod(p, mode)

    op.blob = data if isinstance(data, bytes) else data.encode()
    return op


def copy(name, src, mode=None):
    def op(root):
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, p)
        if mode is not None:
            os.chmod(p, mode)

    return op


def symlink(name, target):
    def op(root):
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, p)

    return op


def hardlink(name, existing):
    def op(root):
        os.link(root / existing, root / name)

    return op


def mkdir(name, mode=None):
    def op(root):
        p = root / name
        p.mkdir(parents=True, exist_ok=True)
        if mode is not None:
            os.chmod(p, mode)

    return op


def fifo(name):
    def op(root):
        os.mkfifo(root / name)

    return op


def chardev_null(name):
    def op(root):
        os.mknod(root / name, 0o666 | stat.S_IFCHR, os.makedev(1, 3))

    return op


def chown(name, uid, gid=None):
    def op(root):
        os.lchown(root / name, uid, uid if gid is None else gid)

    return op


def chmod(name, mode):
    def op(root):
        os.chmod(root / name, mode)

    return op


# --------------------------------------------------------------------------- running


def release_fifos(root: Path):
    """A reader or writer left blocked on a FIFO of the case gets its EOF."""
    for p in root.rglob("*"):
        try:
            if stat.S_ISFIFO(os.lstat(p).st_mode):
                fd = os.open(p, os.O_RDWR | os.O_NONBLOCK)
                time.sleep(0.05)
                os.close(fd)
        except OSError:
            pass


def snapshot(root: Path, skip=("tmp",)):
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        rel_dir = os.path.relpath(dirpath, root)
        if rel_dir.split(os.sep)[0] in skip:
            dirnames[:] = []
            continue
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, root)
            if rel.split(os.sep)[0] in skip:
                continue
            st = os.lstat(p)
            kind = stat.S_IFMT(st.st_mode)
            entry = [kind, stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, st.st_ino]
            if stat.S_ISREG(st.st_mode):
                h = hashlib.sha256()
                with open(p, "rb") as f:
                    for chunk in iter(lambda: f.read(1 << 20), b""):
                        h.update(chunk)
                entry += [st.st_size, h.hexdigest()]
            elif stat.S_ISLNK(st.st_mode):
                entry.append(os.readlink(p))
            elif stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
                entry.append(st.st_rdev)
            snap[rel] = entry
    return snap


def allowed(rel, patterns):
    return any(glob.fnmatch.fnmatch(rel, pat) for pat in patterns)


def strict_json(text):
    def bad_constant(c):
        raise ValueError(f"non-JSON constant {c}")

    return json.loads(text, parse_constant=bad_constant)


SCRIPT_JSON = re.compile(rb"<script[^>]*type=\"application/json\"[^>]*>(.*?)</script>", re.S)


def readback(path: Path):
    """Problems reading back a file the tool wrote ([] when fine)."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        return []
    data = path.read_bytes()
    ext = path.suffix.lower()
    probs = []
    try:
        if ext == ".json":
            doc = strict_json(data.decode())
            schema = doc.get("schema", "") if isinstance(doc, dict) else ""
            if schema.startswith(("roofline.analysis", "roofline.merged", "roofline.machine")):
                r = subprocess.run(
                    [str(BIN), "report", str(path), "--format", "json", "-q"],
                    capture_output=True,
                    timeout=60,
                )
                if r.returncode != 0:
                    probs.append(
                        f"UNREADABLE {path.name}: report rc={r.returncode}: "
                        + r.stderr.decode(errors="replace")[-300:]
                    )
        elif ext == ".svg":
            ET.fromstring(data)
        elif ext == ".html":
            for m in SCRIPT_JSON.finditer(data):
                strict_json(m.group(1).decode())
        elif ext == ".csv":
            list(csv.reader(io.StringIO(data.decode())))
    except Exception as e:  # noqa: BLE001 - any parse failure is the finding
        probs.append(f"UNREADABLE {path.name}: {type(e).__name__}: {str(e)[:200]}")
    return probs


def run_case(c: Case):
    root = SCR / "cases" / c.cid
    meta = SCR / "meta" / c.cid
    for d in (root, meta):
        if d.exists():
            subprocess.run(["chattr", "-R", "-i", str(d)], capture_output=True)
            subprocess.run(["chmod", "-R", "u+rwx", str(d)], capture_output=True)
            shutil.rmtree(d)
    (root / "w").mkdir(parents=True)
    (root / "outside").mkdir()
    (root / "tmp").mkdir(mode=0o1777)
    os.chmod(root / "tmp", 0o1777)
    os.chmod(root, 0o755)
    meta.mkdir(parents=True)
    for op in c.setup:
        op(root)
    before = snapshot(root)
    tmp_before = {str(p.relative_to(root)) for p in (root / "tmp").rglob("*")}
    env = dict(os.environ)
    env.update(
        {
            "B": str(BIN),
            "BASE": str(SCR / "base"),
            "FX": str(FX),
            "DATA": str(DATA),
            "ROOT": str(root),
            "TMPDIR": str(root / "tmp"),
            "NOBODY": NOBODY,
            "COLUMNS": "100",
        }
    )
    env.pop("RUST_BACKTRACE", None)
    env.update(c.env)
    script = f"cd {shlex.quote(str(root / 'w'))} || exit 99\n{c.cmd}"
    argv = [
        "timeout",
        "-k",
        "5",
        str(c.timeout),
        "/usr/bin/time",
        "-f",
        "%e %U %S %M",
        "-o",
        str(meta / "time"),
        "bash",
        "-c",
        script,
    ]
    t0 = time.time()
    with open(meta / "stdout", "wb") as so, open(meta / "stderr", "wb") as se:
        p = subprocess.run(argv, stdout=so, stderr=se, env=env, stdin=subprocess.DEVNULL)
    wall = time.time() - t0
    rc = p.returncode
    release_fifos(root)
    stderr = (meta / "stderr").read_bytes().decode(errors="replace")
    rss_kb = cpu_s = None
    try:
        t = (meta / "time").read_text().split()
        # /usr/bin/time writes "Command exited with non-zero status N" first
        rss_kb = int(t[-1])
        cpu_s = float(t[-3]) + float(t[-2])
    except Exception:  # noqa: BLE001
        pass
    probs = []
    if "panicked" in stderr or rc == 101:
        probs.append("PANIC " + stderr[-400:])
    if rc in (124, 137) and wall >= c.timeout - 0.5:
        probs.append(f"HANG killed after {c.timeout}s")
    elif rc not in (0, 1, 2):
        probs.append(f"EXIT rc={rc}")
    if c.expect_rc is not None and rc not in c.expect_rc and not any(
        x.startswith(("HANG", "PANIC", "EXIT")) for x in probs
    ):
        probs.append(f"RC rc={rc}, expected {sorted(c.expect_rc)}")
    after = snapshot(root)
    for rel, entry in before.items():
        if rel not in after:
            if not allowed(rel, c.outputs):
                probs.append(f"OUTSIDE_WRITE removed {rel}")
        elif after[rel] != entry and not allowed(rel, c.outputs):
            probs.append(f"OUTSIDE_WRITE changed {rel}: {entry[:4]} -> {after[rel][:4]}")
    for rel in after:
        if rel not in before and not allowed(rel, c.outputs):
            probs.append(f"LEFTOVER {rel}")
    left = [x for x in (str(p.relative_to(root)) for p in (root / "tmp").rglob("*")) if x not in tmp_before]
    if left and not c.tmp_ok:
        probs.append(f"TMP_LEFTOVER {left[:5]}")
    if rc in c.must_write_rcs:
        for rel in c.must_write:
            p = root / rel
            if not p.exists() or (p.is_file() and p.stat().st_size == 0):
                probs.append(f"DATALOSS rc={rc} but {rel} not written")
    if c.readback and not any(x.startswith(("HANG",)) for x in probs):
        for rel in after:
            if (rel not in before or after[rel] != before[rel]) and allowed(rel, c.outputs):
                p = root / rel
                if p.is_file() and not p.is_symlink():
                    probs += readback(p)
    if rss_kb and rss_kb > c.mem_kb:
        probs.append(f"MEM {rss_kb / 1024:.0f} MB")
    # the machine is shared: judge time by CPU seconds (user + sys), report the wall time too
    if c.budget_s and (cpu_s if cpu_s is not None else wall) > c.budget_s:
        probs.append(f"SLOW {cpu_s}s CPU ({wall:.1f}s wall) > {c.budget_s}s")
    res = {
        "cid": c.cid,
        "cat": c.cat,
        "cmd": c.cmd if len(c.cmd) < 2000 else c.cmd[:2000] + "...",
        "rc": rc,
        "wall_s": round(wall, 3),
        "rss_mb": round(rss_kb / 1024, 1) if rss_kb else None,
        "cpu_s": cpu_s,
        "stderr_tail": stderr[-600:],
        "stdout_bytes": (meta / "stdout").stat().st_size,
    }
    if c.check:
        try:
            probs += [f"CHECK {x}" for x in c.check(root, meta, res)]
        except Exception as e:  # noqa: BLE001
            probs.append(f"CHECK crashed: {type(e).__name__}: {e}")
    res["problems"] = probs
    res["note"] = c.note
    return res


def stdout_of(meta):
    return (meta / "stdout").read_bytes()


# --------------------------------------------------------------------------- base material


def prepare_base():
    base = SCR / "base"
    base.mkdir(parents=True, exist_ok=True)

    def rl(*args, out=None):
        r = subprocess.run([str(BIN), *args, "-q"], capture_output=True, cwd=base)
        if r.returncode not in (0, 1):
            sys.exit(f"base: roofline {' '.join(args)} failed: {r.stderr.decode()[-500:]}")

    rl("import", str(SEED_CSV), "-o", "a.json")
    rl("import", str(GEMM_CSV), "-o", "b.json")
    rl("import", str(SEED_CSV), "--per-launch", "-o", "pl.json")
    rl("peaks", "--gpu", "h200", "-o", "m.json")
    rl("merge", "a.json", "b.json", "-o", "mg.json")
    rl("model", "--gpu", "h200", "-k", "k1: flops=1e9 bytes=1e9 time=1ms", "-k", "k2: flops=1e12 bytes=1e6 time=2ms", "-o", "model.json")
    rl("diff", "a.json", "b.json", "-o", "d.json")
    rl("check", "a.json", "--min-pct-of-roof", "10", "-o", "c.json")
    import gzip

    t = json.load(gzip.open(FX / "timeline/train_gpt_h200.timeline.json.gz"))
    t["timeline"]["activities"] = t["timeline"]["activities"][:400]
    t["timeline"]["ranges"] = t["timeline"]["ranges"][:40]
    (base / "t.json").write_text(json.dumps(t))
    shutil.copy(SEED_CSV, base / "seed.csv")
    fake = base / "fake"
    fake.mkdir(parents=True, exist_ok=True)
    (fake / "ncu").write_text(FAKE_NCU.replace("__SEED__", str(SEED_CSV)))
    os.chmod(fake / "ncu", 0o755)
    shutil.copy(GEMM_CSV, base / "gemm.csv")


def load_capture(path=SEED_CSV):
    lines = path.read_text().splitlines(keepends=True)
    prefix = [l for l in lines if l.startswith("==")]
    rows = list(csv.reader([l for l in lines if not l.startswith("==")]))
    return prefix, rows[0], rows[1], rows[2:]


def write_capture(prefix, header, units, rows, units_row=True):
    buf = io.StringIO()
    buf.write("".join(prefix))
    w = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(header)
    if units_row:
        w.writerow(units)
    for r in rows:
        w.writerow(r)
    return buf.getvalue()


PREFIX, HEADER, UNITS, ROWS = None, None, None, None


def col(name):
    return HEADER.index(name)


def capture_with(mut_rows=None, units=None, units_row=True, prefix=None, header=None):
    rows = [list(r) for r in ROWS]
    if mut_rows:
        mut_rows(rows)
    return write_capture(
        PREFIX if prefix is None else prefix,
        HEADER if header is None else header,
        UNITS if units is None else units,
        rows,
        units_row,
    )


def analysis_json_of(meta):
    try:
        return strict_json(stdout_of(meta).decode())
    except Exception:  # noqa: BLE001
        return None


# --------------------------------------------------------------------------- categories

WRITERS = {
    "import": "$B import $BASE/seed.csv -q",
    "report": "$B report $BASE/a.json -q",
    "check": "$B check $BASE/a.json --min-pct-of-roof 1 -q",
    "diff": "$B diff $BASE/a.json $BASE/b.json -q",
    "merge": "$B merge $BASE/a.json $BASE/b.json -q",
    "peaks": "$B peaks --gpu h200 -q",
    "model": "$B model --gpu h200 -k 'k: flops=1e9 bytes=1e9 time=1ms' -q",
    "occupancy": "$B occupancy --gpu h200 --threads 256 --regs 32 -q",
}


def keep_mode_owner(rel, mode, uid):
    def check(root, meta, res):
        p = root / rel
        st = os.stat(p)
        out = []
        if stat.S_IMODE(st.st_mode) != mode:
            out.append(f"{rel} mode {oct(stat.S_IMODE(st.st_mode))}, was {oct(mode)}")
        if st.st_uid != uid:
            out.append(f"{rel} owner {st.st_uid}, was {uid}")
        if res["rc"] == 0 and b"old" == p.read_bytes():
            out.append(f"{rel} still holds the old content")
        return out

    return check


def still_type(rel, want):
    def check(root, meta, res):
        st = os.lstat(root / rel)
        if stat.S_IFMT(st.st_mode) != want:
            return [f"{rel} is no longer {stat.filemode(want)[0]} but {stat.filemode(st.st_mode)}"]
        return []

    return check


def cat_output_files():
    """C1: -o onto special files, symlinks, read-only places, long names, inputs."""
    cases = []
    for cmd, base in WRITERS.items():
        for ext in (".json", ".html", ".md", ".csv", ".svg"):
            if cmd in ("peaks", "occupancy", "model", "import", "check", "merge") and ext == ".svg":
                continue
            # -o FILE.csv writes its other tables beside it (FILE.TABLE.csv): expected, each once.
            cases.append(Case(f"C1-{cmd}-plain{ext}", "C1", f"{base.replace(' -q', '')} -o out{ext}", outputs=[f"w/out{ext}"] + (["w/out.*.csv"] if ext == ".csv" else []), must_write=[f"w/out{ext}"], expect_rc={0, 1},
                              check=lambda root, meta, res: [f"two tables written to one file: {w}" for w in set(re.findall(r"wrote (\S+)", (meta / "stderr").read_text())) if (meta / "stderr").read_text().count(f"wrote {w}\n") > 1]))
        o = "out.json"
        cases += [
            Case(f"C1-{cmd}-mode0600-nobody", "C1", f"{base} -o {o}", setup=[put(f"w/{o}", "old", 0o600), chown(f"w/{o}", 65534)], outputs=[f"w/{o}"], must_write=[f"w/{o}"], check=keep_mode_owner(f"w/{o}", 0o600, 65534), expect_rc={0, 1}),
            Case(f"C1-{cmd}-mode0640-group", "C1", f"{base} -o {o}", setup=[put(f"w/{o}", "old", 0o640), chown(f"w/{o}", 0, 65534)], outputs=[f"w/{o}"], must_write=[f"w/{o}"], expect_rc={0, 1},
                 check=lambda root, meta, res: [] if os.stat(root / "w/out.json").st_gid == 65534 else ["group not kept"]),
            Case(f"C1-{cmd}-symlink", "C1", f"{base} -o {o}", setup=[put("outside/real.json", "old"), symlink(f"w/{o}", "../outside/real.json")], outputs=["outside/real.json"], must_write=["outside/real.json"], check=still_type(f"w/{o}", stat.S_IFLNK), expect_rc={0, 1}),
            Case(f"C1-{cmd}-symlink-abs-chain", "C1", f"{base} -o {o}", setup=[put("outside/real.json", "old"), symlink("outside/mid.json", "real.json"), lambda r: os.symlink(r / "outside/mid.json", r / f"w/{o}")], outputs=["outside/real.json"], must_write=["outside/real.json"], check=still_type(f"w/{o}", stat.S_IFLNK), expect_rc={0, 1}),
            Case(f"C1-{cmd}-symlink-dangling", "C1", f"{base} -o {o}", setup=[symlink(f"w/{o}", "../outside/new.json")], outputs=["outside/new.json", f"w/{o}"], check=still_type(f"w/{o}", stat.S_IFLNK), expect_rc={0, 1, 2}),
            Case(f"C1-{cmd}-symlink-loop", "C1", f"{base} -o {o}", setup=[symlink(f"w/{o}", "loop2"), symlink("w/loop2", o)], expect_rc={1, 2}),
            Case(f"C1-{cmd}-symlink-to-dir", "C1", f"{base} -o {o}", setup=[symlink(f"w/{o}", "../outside")], expect_rc={1, 2}),
            Case(f"C1-{cmd}-chardev-null", "C1", f"{base} -o devnull.json", setup=[chardev_null("w/devnull.json")], check=still_type("w/devnull.json", stat.S_IFCHR), expect_rc={0, 1}),
            Case(f"C1-{cmd}-fifo-reader", "C1", f"(cat fifo.json > ../outside/got &) ; {base} -o fifo.json; rc=$?; sleep 0.3; exit $rc", setup=[fifo("w/fifo.json")], outputs=["outside/got"], check=lambda root, meta, res: (still_type("w/fifo.json", stat.S_IFIFO)(root, meta, res) + ([] if res["rc"] not in (0,) or (root / "outside/got").stat().st_size > 0 else ["FIFO reader got nothing"])), expect_rc={0, 1}),
            Case(f"C1-{cmd}-dev-full", "C1", f"{base} -o /dev/full", expect_rc={1, 2}, check=lambda root, meta, res: [] if "/dev/full" in res["stderr_tail"] else ["message does not name /dev/full"]),
            Case(f"C1-{cmd}-dev-stdout", "C1", f"{base} -o /dev/stdout", expect_rc={0, 1}),
            Case(f"C1-{cmd}-is-dir", "C1", f"{base} -o outdir", setup=[mkdir("w/outdir")], expect_rc={1, 2}),
            Case(f"C1-{cmd}-no-parent", "C1", f"{base} -o nope/sub/out.json", outputs=["w/nope", "w/nope/*"], expect_rc={0, 1, 2}),
            Case(f"C1-{cmd}-readonly-dir-nobody", "C1", f"$NOBODY {base} -o ro/out.json", setup=[mkdir("w/ro", 0o555)], expect_rc={1, 2}),
            Case(f"C1-{cmd}-readonly-file-nobody", "C1", f"$NOBODY {base} -o rof/out.json", setup=[mkdir("w/rof", 0o777), put("w/rof/out.json", "old", 0o444), chown("w/rof/out.json", 65534)], outputs=["w/rof/out.json"], expect_rc={0, 1, 2}, note="root can rename over it; nobody owns the file; judged by hand"),
            Case(f"C1-{cmd}-name255", "C1", f"{base} -o {'n' * 250}.json", outputs=[f"w/{'n' * 250}.json"], must_write=[f"w/{'n' * 250}.json"], expect_rc={0, 1}),
            Case(f"C1-{cmd}-name256", "C1", f"{base} -o {'n' * 251}.json", expect_rc={1, 2}),
            Case(f"C1-{cmd}-hardlink", "C1", f"{base} -o {o}", setup=[put(f"w/{o}", "old"), hardlink("outside/twin.json", f"w/{o}")], outputs=[f"w/{o}", "outside/twin.json"], must_write=[f"w/{o}"], expect_rc={0, 1},
                 check=lambda root, meta, res: [] if (root / "w/out.json").read_bytes() == (root / "outside/twin.json").read_bytes() else ["hard link broken: the other name keeps the old content"]),
            Case(f"C1-{cmd}-empty-name", "C1", f"{base} -o ''", expect_rc={2}),
            Case(f"C1-{cmd}-dash", "C1", f"{base} -o -", outputs=["w/-"], expect_rc={0, 1, 2}),
            Case(f"C1-{cmd}-trailing-slash", "C1", f"{base} -o out.json/", expect_rc={1, 2}),
            Case(f"C1-{cmd}-newline-name", "C1", f"{base} -o $'a\\nb.json'", outputs=["w/a\nb.json"], expect_rc={0, 1}),
            Case(f"C1-{cmd}-unknown-ext", "C1", f"{base} -o out.xyz", outputs=["w/out.xyz"], expect_rc={0, 1, 2}),
            Case(f"C1-{cmd}-upper-ext", "C1", f"{base} -o OUT.JSON", outputs=["w/OUT.JSON"], expect_rc={0, 1, 2}),
            Case(f"C1-{cmd}-rank-template", "C1", f"{base} -o 'job.rank{{rank}}.json'", env={"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "3"}, outputs=["w/job.rank*.json"], must_write=["w/job.rank3.json"], expect_rc={0, 1}),
            Case(f"C1-{cmd}-rank-hostile", "C1", f"{base} -o 'job.rank{{rank}}.json'", env={"RANK": "../../outside/x", "WORLD_SIZE": "4"}, outputs=["w/job.rank*.json"], expect_rc={0, 1, 2}),
            Case(f"C1-{cmd}-rank-huge", "C1", f"{base} -o out.json", env={"RANK": "99999999999999999999999", "WORLD_SIZE": "-1", "OMPI_COMM_WORLD_RANK": "x", "SLURM_PROCID": "-5", "SLURM_NTASKS": "99999999999999999999"}, outputs=["w/out*.json"], expect_rc={0, 1, 2}),
        ]
        # the file that is also an input
        if cmd in ("report", "check", "diff", "merge"):
            for how, spec in {
                "same": "in.json",
                "dot": "./in.json",
                "abs": "$ROOT/w/in.json",
                "updown": "../w/in.json",
                "symlink": "alias.json",
                "hardlink": "twin.json",
            }.items():
                inp = {
                    "report": "$B report in.json -q",
                    "check": "$B check in.json --min-pct-of-roof 1 -q",
                    "diff": "$B diff $BASE/b.json in.json -q",
                    "merge": "$B merge $BASE/b.json in.json -q",
                }[cmd]
                cases.append(
                    Case(f"C1-{cmd}-input-as-output-{how}", "C1", f"{inp} -o {spec}", setup=[copy("w/in.json", SCR / "base/a.json"), symlink("w/alias.json", "in.json"), hardlink("w/twin.json", "w/in.json")], expect_rc={2})
                )
    for how, spec in {"same": "cap.csv", "symlink": "alias.csv", "abs": "$ROOT/w/cap.csv"}.items():
        cases.append(Case(f"C1-import-capture-as-output-{how}", "C1", f"$B import cap.csv -q -o {spec}", setup=[copy("w/cap.csv", SEED_CSV), symlink("w/alias.csv", "cap.csv")], expect_rc={2}))
    # -o x.csv also writes x.facts.csv, x.roof.csv, ...: the side files against inputs and special paths
    for cmd, inp in [("import", "$B import x.roof.csv -q"), ("report", "$B report x.facts.csv -q"), ("merge", "$B merge $BASE/b.json x.verdicts.csv -q"), ("diff", "$B diff $BASE/b.json x.facts.csv -q"), ("check", "$B check x.facts.csv --min-pct-of-roof 1 -q"), ("model", "$B model --machine x.roof.csv -k 'k: flops=1 bytes=1' -q")]:
        src = SEED_CSV if cmd == "import" else SCR / "base/a.json"
        name = {"import": "x.roof.csv", "report": "x.facts.csv", "merge": "x.verdicts.csv", "diff": "x.facts.csv", "check": "x.facts.csv", "model": "x.roof.csv"}[cmd]
        cases.append(Case(f"C1-{cmd}-csv-side-file-is-input", "C1", f"{inp} -o x.csv", setup=[copy(f"w/{name}", src)], outputs=["w/x*.csv"], expect_rc={2, 0, 1},
                          check=lambda root, meta, res, name=name, src=src: [] if (root / "w" / name).read_bytes() == Path(src).read_bytes() else [f"the input {name} was overwritten by a side file of -o x.csv"]))
    cases.append(Case("C1-profile-csv-side-file-is-save-csv", "C1", "$B profile --ncu $BASE/fake/ncu --one-pass -q --save-csv x.roof.csv -o x.csv -- /bin/true", outputs=["w/x*.csv"], expect_rc={0, 1, 2},
                      check=lambda root, meta, res: [] if (root / "w/x.roof.csv").read_bytes() == SEED_CSV.read_bytes() else ["the saved ncu CSV x.roof.csv was overwritten by a side table of -o x.csv"], tmp_ok=True))
    cases.append(Case("C1-report-csv-devnull-sidefiles", "C1", "$B report $BASE/a.json -q --format csv -o $ROOT/w/nul", setup=[chardev_null("w/nul")], outputs=["w/nul*"], expect_rc={0},
                      check=lambda root, meta, res: [f"side files next to a device: {sorted(p.name for p in (root / 'w').glob('nul.*'))}"] if list((root / "w").glob("nul.*")) else []))
    cases.append(Case("C1-report-csv-symlink-sidefiles", "C1", "$B report $BASE/a.json -q -o x.csv", setup=[put("outside/real.csv", "old"), symlink("w/x.csv", "../outside/real.csv")], outputs=["outside/real*.csv", "w/x*.csv"], expect_rc={0},
                      check=lambda root, meta, res: [f"side files of a symlinked -o went to {sorted(str(p.relative_to(root)) for p in root.rglob('*.*.csv'))}"]))
    cases.append(Case("C1-report-csv-sidefile-readonly-nobody", "C1", "$NOBODY $B report $BASE/a.json -q -o d/x.csv", setup=[mkdir("w/d", 0o777), put("w/d/x.roof.csv", "old", 0o444), chown("w/d/x.roof.csv", 0), ], outputs=["w/d/*"], expect_rc={0, 1, 2}))
    cases += [
        Case("C1-import-machine-as-output", "C1", "$B import $BASE/seed.csv --machine m.json -q -o m.json", setup=[copy("w/m.json", SCR / "base/m.json")], expect_rc={2}),
        Case("C1-model-toml-as-output", "C1", "$B model k.toml -q -o k.toml", setup=[put("w/k.toml", '[machine]\ngpu = "h200"\n[[kernel]]\nname = "k"\nflops = 1e9\nbytes = 1e9\n')], expect_rc={2}),
        Case("C1-model-machine-as-output", "C1", "$B model --machine m.json -k 'k: flops=1 bytes=1' -q -o m.json", setup=[copy("w/m.json", SCR / "base/m.json")], expect_rc={2}),
        Case("C1-report-svg-equals-o", "C1", "$B report $BASE/a.json -q -o same.svg --svg same.svg", outputs=["w/same.svg"], expect_rc={0, 1, 2}),
        Case("C1-report-svg-equals-input", "C1", "$B report in.json -q --svg in.json", setup=[copy("w/in.json", SCR / "base/a.json")], expect_rc={2}),
        Case("C1-report-svg-chardev", "C1", "$B report $BASE/a.json -q --svg devnull.svg", setup=[chardev_null("w/devnull.svg")], check=still_type("w/devnull.svg", stat.S_IFCHR), expect_rc={0}),
        Case("C1-report-svg-symlink", "C1", "$B report $BASE/a.json -q --svg s.svg", setup=[put("outside/real.svg", "old"), symlink("w/s.svg", "../outside/real.svg")], outputs=["outside/real.svg"], must_write=["outside/real.svg"], check=still_type("w/s.svg", stat.S_IFLNK), expect_rc={0}),
        Case("C1-report-svg-dev-full", "C1", "$B report $BASE/a.json -q --svg /dev/full -o ok.html", outputs=["w/ok.html"], expect_rc={1, 2}),
        Case("C1-tour-outdir-new", "C1", "$B tour --bundled -q --out-dir td", outputs=["w/td", "w/td/*"], must_write=["w/td/report.html", "w/td/analysis.json", "w/td/machine.json"], expect_rc={0}),
        Case("C1-tour-outdir-is-file", "C1", "$B tour --bundled -q --out-dir td", setup=[put("w/td", "old")], expect_rc={1, 2}),
        Case("C1-tour-outdir-symlink", "C1", "$B tour --bundled -q --out-dir td", setup=[mkdir("outside/realdir"), symlink("w/td", "../outside/realdir")], outputs=["outside/realdir/*"], check=still_type("w/td", stat.S_IFLNK), expect_rc={0}),
        Case("C1-tour-outdir-report-symlink", "C1", "$B tour --bundled -q --out-dir td", setup=[mkdir("w/td"), put("outside/victim.html", "old"), symlink("w/td/report.html", "../../outside/victim.html")], outputs=["w/td/*", "outside/victim.html"], check=still_type("w/td/report.html", stat.S_IFLNK), expect_rc={0}),
        Case("C1-tour-outdir-readonly-nobody", "C1", "$NOBODY $B tour --bundled -q --out-dir ro/td", setup=[mkdir("w/ro", 0o555)], expect_rc={1, 2}),
        Case("C1-occupancy-svgdir-file", "C1", "$B occupancy --gpu h200 --threads 256 --regs 32 --sweep all --svg-dir sd -q", setup=[put("w/sd", "old")], expect_rc={1, 2}),
        Case("C1-occupancy-svgdir-new", "C1", "$B occupancy --gpu h200 --threads 256 --regs 32 --sweep all --svg-dir sd -q", outputs=["w/sd", "w/sd/*"], must_write=["w/sd/occupancy-block.svg"], expect_rc={0}),
        Case("C1-occupancy-svgdir-symlinked-file", "C1", "$B occupancy --gpu h200 --threads 256 --regs 32 --sweep all --svg-dir sd -q", setup=[mkdir("w/sd"), put("outside/v.svg", "old"), symlink("w/sd/occupancy-block.svg", "../../outside/v.svg")], outputs=["w/sd/*", "outside/v.svg"], check=still_type("w/sd/occupancy-block.svg", stat.S_IFLNK), expect_rc={0}),
    ]
    return cases


def cat_planted_temp():
    """C2: predictable temp names planted as symlinks to a victim, for the next PIDs."""
    cases = []
    for cmd in ("import", "report", "check", "diff", "merge", "peaks", "model"):
        base = WRITERS[cmd]

        def plant(root, cmd=cmd):
            pid = int(open("/proc/sys/kernel/ns_last_pid").read()) if os.path.exists("/proc/sys/kernel/ns_last_pid") else os.getpid()
            (root / "outside/victim").write_text("victim")
            for p in range(pid, pid + 400):
                for pat in (f"w/.out.json.tmp-{p}", f"w/.out.json.tmp.{p}", f"w/out.json.tmp", f"w/.out.json.tmp", f"w/out.json.{p}.tmp", f"w/out.json~", f"tmp/roofline-ncu-{p}.csv", f"tmp/roofline-{p}"):
                    try:
                        os.symlink(root / "outside/victim", root / pat)
                    except FileExistsError:
                        pass

        cases.append(Case(f"C2-{cmd}-planted", "C2", f"{base} -o out.json", setup=[plant], outputs=["w/out.json", "tmp/*"], must_write=["w/out.json"], expect_rc={0, 1}, check=lambda root, meta, res: [] if (root / "outside/victim").read_text() == "victim" else ["victim overwritten"]))
    return cases


def strace_audit_cases():
    """C2b: every file opened for writing without O_EXCL other than the named target."""
    cases = []
    cmds = dict(WRITERS)
    cmds["report-svg"] = "$B report $BASE/a.json -q --svg s.svg"
    cmds["tour"] = "$B tour --bundled -q --out-dir td"
    cmds["profile-fake"] = "$B profile --ncu $BASE/fake/ncu --save-csv saved.csv -q -- /bin/true"
    for name, base in cmds.items():
        def check(root, meta, res):
            out = []
            exe = {}
            for line in (root / "outside/strace.txt").read_text().splitlines():
                pid = line.split()[0]
                m = re.search(r'execve\("([^"]+)"', line)
                if m and "= 0" in line:
                    exe[pid] = m.group(1)
                    continue
                if not exe.get(pid, str(BIN)).endswith("roofline"):
                    continue
                m = re.search(r'(?:open|openat|creat)\((?:AT_FDCWD, )?"([^"]+)", ([A-Z_|]+)', line)
                if not m or ("O_CREAT" not in m.group(2) and "O_TRUNC" not in m.group(2)):
                    continue
                path, flags = m.group(1), m.group(2)
                if "O_EXCL" in flags or path.startswith("/dev/"):
                    continue
                if re.search(r"/tmp/roofline-ncu-[A-Za-z0-9]{6}/", path):
                    continue  # inside the tool's own mkdtemp folder (0700)
                out.append(f"opens {path} with {flags} (no O_EXCL)")
            return out

        cases.append(Case(f"C2-strace-{name}", "C2", f"strace -f -qq -e trace=open,openat,creat,execve -o $ROOT/outside/strace.txt {base} -o out.json >/dev/null", outputs=["w/*", "w/td/*", "outside/strace.txt", "tmp/*"], expect_rc={0, 1}, check=check, readback=False))
    return cases


EXTREMES = ["0", "-0", "5e-324", "1e-310", "2.2e-308", "1e-300", "1", "1e300", "1e307", "9e307", "1.7976931348623157e308", "1e309", "nan", "inf", "-inf", "-1", "-1e308"]


def report_all_formats(src, tag, cat):
    """The one document through report to every format."""
    return [
        Case(f"{tag}-report-html", cat, f"$B report {src} -q -o r.html", outputs=["w/r.html"], must_write=["w/r.html"], expect_rc={0, 2}, timeout=20),
        Case(f"{tag}-report-svg", cat, f"$B report {src} -q -o r.svg", outputs=["w/r.svg"], must_write=["w/r.svg"], expect_rc={0, 2}, timeout=20),
        Case(f"{tag}-report-md", cat, f"$B report {src} -q -o r.md", outputs=["w/r.md"], must_write=["w/r.md"], expect_rc={0, 2}, timeout=20),
        Case(f"{tag}-report-csv", cat, f"$B report {src} -q --format csv -o r.csv", outputs=["w/r.csv"], must_write=["w/r.csv"], expect_rc={0, 2}, timeout=20),
        Case(f"{tag}-report-json", cat, f"$B report {src} -q -o r.json", outputs=["w/r.json"], must_write=["w/r.json"], expect_rc={0, 2}, timeout=20),
        Case(f"{tag}-report-chart", cat, f"$B report {src} -q --format chart", expect_rc={0, 2}, timeout=20),
        Case(f"{tag}-report-table-wide", cat, f"$B report {src} -q --format table --wide", expect_rc={0, 2}, timeout=20),
    ]


def refused_own(root, meta, res):
    rcf = root / "outside/first.rc"
    if rcf.exists() and rcf.read_text().strip() == "0" and res["rc"] not in (0, 1):
        return [f"the tool wrote a document it then refuses (rc={res['rc']}): {res['stderr_tail'][-200:]}"]
    return []


def two_step(tag, cat, first, src_name, expect_first={0, 2}):
    """Write a document with `first` (-o src_name), then read it everywhere."""
    cases = []
    readers = {
        "report-html": f"$B report {src_name} -q -o r.html",
        "report-svg": f"$B report {src_name} -q -o r.svg",
        "report-md": f"$B report {src_name} -q --format markdown",
        "report-csv": f"$B report {src_name} -q --format csv",
        "report-chart": f"$B report {src_name} -q --format chart",
        "check": f"$B check {src_name} -q --min-pct-of-roof 1",
        "diff": f"$B diff {src_name} {src_name} -q -o d.html",
        "merge": f"$B merge {src_name} {src_name} -q --format json",
    }
    script = first + f" -q -o {src_name} >/dev/null 2>../outside/first.err; r=$?; echo $r > ../outside/first.rc; [ $r -ne 0 ] && exit $r\n"
    for name, reader in readers.items():
        cases.append(Case(f"{tag}-{name}", cat, script + f"{reader}", outputs=["w/*", "outside/first.err", "outside/first.rc"], expect_rc={0, 1, 2}, timeout=20, check=refused_own))
    return cases


def cat_chart_numbers():
    """C3: 0, subnormals, huge, NaN, inf into model, CSV counters, --peak/--bandwidth, then report."""
    cases = []
    # model specs: each extreme in each field
    for fld in ("flops", "bytes", "time", "elements"):
        for v in EXTREMES:
            spec = {"flops": "1e9", "bytes": "1e9", "time": "1ms", "elements": "1"}
            spec[fld] = v + ("ms" if fld == "time" and v not in ("nan", "inf", "-inf") else "")
            if fld == "time" and v in ("nan", "inf", "-inf"):
                spec[fld] = v + "s"
            k = f"k: flops={spec['flops']} bytes={spec['bytes']} time={spec['time']} elements={spec['elements']}"
            tag = f"C3-model-{fld}-{v}"
            cases += two_step(tag, "C3", f"$B model --gpu h200 -k '{k}'", "m.json")
    # a pair of extremes together
    for f, b in [("1e307", "0.1"), ("1e308", "1e-308"), ("5e-324", "5e-324"), ("1e300", "1e300"), ("0", "0"), ("1e-300", "1e300")]:
        cases += two_step(f"C3-model-pair-{f}-{b}", "C3", f"$B model --gpu h200 -k 'k: flops={f} bytes={b} time=1ms'", "m.json")
    cases += two_step("C3-model-elements-overflow", "C3", "$B model --gpu h200 -k 'k: flops=1e300 bytes=1e300 elements=1e300 time=1ms'", "m.json")
    cases += two_step("C3-model-elements-u64max", "C3", "$B model --gpu h200 -k 'k: flops=1e9 bytes=1e9 elements=18446744073709551616 time=1ms'", "m.json")
    # roofs
    for v in ["0", "5e-324", "1e-310", "1e308", "1.7e308", "nan", "inf", "-1", "1e-300"]:
        cases += two_step(f"C3-model-peak-{v}", "C3", f"$B model --peak '{v} GFLOP/s' --bandwidth '100 GB/s' -k 'k: flops=1e9 bytes=1e9 time=1ms'", "m.json")
        cases += two_step(f"C3-model-bw-{v}", "C3", f"$B model --peak '100 GFLOP/s' --bandwidth '{v} GB/s' -k 'k: flops=1e9 bytes=1e9 time=1ms'", "m.json")
    # CSV counters
    global PREFIX, HEADER, UNITS, ROWS
    for metric in ("sm__cycles_elapsed.avg.per_second", "dram__bytes.sum", "gpu__time_duration.sum", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "dram__bytes.sum.peak_sustained", "device__attribute_max_gpu_frequency_khz", "launch__sm_count", "dram__cycles_elapsed.avg.per_second", "lts__lts2xbar_cycles_active.sum", "launch__grid_size", "launch__block_size", "launch__registers_per_thread", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"):
        if metric not in HEADER:
            continue
        i = col(metric)
        for v in EXTREMES + ["", "n/a", "1,7976931348623157e308", "99999999999999999999999999"]:
            for scope in ("all", "one"):
                def mut(rows, i=i, v=v, scope=scope):
                    for r in rows if scope == "all" else rows[:1]:
                        r[i] = v
                data = capture_with(mut)
                tag = f"C3-csv-{metric}-{v or 'empty'}-{scope}"
                cs = two_step(tag, "C3", "$B import cap.csv", "a.json")
                for c in cs:
                    c.setup.append(put("w/cap.csv", data))
                    c.inputs.append(data.encode())
                # keep the run count sane: the full reader set only for the one-launch scope
                cases += cs if scope == "one" else cs[:3]
    # hand-edited analysis JSON: every numeric leaf of the first kernel/ceiling/program
    a = json.load(open(SCR / "base/a.json"))
    leaves = []

    def walk(o, path):
        if isinstance(o, dict):
            for k, v in o.items():
                walk(v, path + [k])
        elif isinstance(o, list):
            if o:
                walk(o[0], path + [0])
        elif isinstance(o, (int, float)) and not isinstance(o, bool):
            leaves.append(path)

    walk(a, [])
    json_vals = ["0", "-0.0", "5e-324", "1e-310", "1e308", "1.7976931348623157e308", "-1", "1e999", "18446744073709551616", "NaN", "null", '"x"']
    for path in leaves:
        for v in json_vals:
            txt = json.dumps(a)
            doc = json.loads(txt)
            o = doc
            for k in path[:-1]:
                o = o[k]
            o[path[-1]] = "__X__"
            data = json.dumps(doc).replace('"__X__"', v)
            tag = "C3-json-" + ".".join(map(str, path)) + "-" + v.replace('"', "")
            for c in [
                Case(f"{tag}-report-html", "C3", "$B report in.json -q -o r.html", setup=[put("w/in.json", data)], outputs=["w/r.html"], expect_rc={0, 2}, timeout=20, inputs=[data.encode()]),
                Case(f"{tag}-report-chart", "C3", "$B report in.json -q --format chart", setup=[put("w/in.json", data)], expect_rc={0, 2}, timeout=20),
                Case(f"{tag}-check", "C3", "$B check in.json -q --min-pct-of-roof 1 --baseline $BASE/a.json --max-regression 10", setup=[put("w/in.json", data)], expect_rc={0, 1, 2}, timeout=20),
                Case(f"{tag}-diff-html", "C3", "$B diff $BASE/a.json in.json -q -o d.html", setup=[put("w/in.json", data)], outputs=["w/d.html"], expect_rc={0, 2}, timeout=20),
            ]:
                cases.append(c)
    for w in ["0", "1", "2", "10", "100000", "4294967296", "18446744073709551615", "-1", "1e3"]:
        cases.append(Case(f"C3-report-width-{w}", "C3", f"$B report $BASE/a.json -q --width {w} -o r.html", outputs=["w/r.html"], expect_rc={0, 2}, timeout=20))
    return cases


def cat_streams():
    """C4 (and 14's closed stdout): stderr/stdout closed, full, broken pipe."""
    cases = []
    cmds = dict(WRITERS)
    cmds["import-warn"] = "$B import $BASE/seed.csv"  # warnings on stderr
    cmds["merge-timeline"] = "$B merge $BASE/t.json $BASE/t.json"
    for name, base in cmds.items():
        out = "out.json"
        variants = {
            "stderr-closed": f"{base} -o {out} 2>&-",
            "stderr-devfull": f"{base} -o {out} 2>/dev/full",
            "stderr-head1": f"{base} -o {out} 2>&1 >/dev/null | head -c 10 >/dev/null; exit ${{PIPESTATUS[0]}}",
            "both-head1": f"{base} -o {out} 2>&1 | head -1 >/dev/null; exit ${{PIPESTATUS[0]}}",
            "stdout-closed": f"{base} -o {out} >&-",
            "stdout-devfull": f"{base} -o {out} >/dev/full",
            "stdout-head1": f"{base} -o {out} | head -1 >/dev/null; exit ${{PIPESTATUS[0]}}",
            "stdout-true": f"{base} -o {out} | true; exit ${{PIPESTATUS[0]}}",
            "all-closed": f"{base} -o {out} >&- 2>&- <&-",
            "verbose-stderr-closed": f"{base.replace(' -q', '')} -o {out} 2>&-",
        }
        for v, cmd in variants.items():
            def check(root, meta, res, v=v, name=name):
                probs = []
                if (v.startswith("stdout-closed") or v == "stdout-devfull" or v == "all-closed") and name != "report":  # report -o prints nothing on stdout
                    if res["rc"] == 0:
                        probs.append("stdout could not be written (data lost) but the exit code is 0")
                return probs

            cases.append(Case(f"C4-{name}-{v}", "C4", cmd, outputs=[f"w/{out}"], must_write=[f"w/{out}"], must_write_rcs=(0, 1), expect_rc={0, 1}, check=check))
    return cases


def cat_durations():
    """C5: zero, negative, missing durations of one launch."""
    cases = []
    i = col("gpu__time_duration.sum")
    name_i = col("Kernel Name")
    for v in ["0", "-1", "-59,136", "", "n/a", "nan", "inf", "-inf", "5e-324", "1e308", "0.000001", "-0"]:
        for which in ("first", "all-of-one-kernel"):
            def mut(rows, v=v, which=which):
                target = rows[0][name_i]
                for r in rows:
                    if r[name_i] == target:
                        r[i] = v
                        for j, h in enumerate(HEADER):
                            if h.startswith("gpu__time_duration."):
                                r[j] = v
                        if which == "first":
                            break

            data = capture_with(mut)

            def check(root, meta, res):
                doc = analysis_json_of(meta)
                if res["rc"] != 0 or doc is None:
                    return []
                out = []
                for k in doc.get("kernels", []):
                    p = k.get("pct_of_roof")
                    if isinstance(p, (int, float)) and p > 110:
                        out.append(f"{k['kernel']['name']} at {p:.0f}% of its roof")
                    for lv in k.get("levels", []):
                        q = lv.get("pct_of_bandwidth")
                        if isinstance(q, (int, float)) and q > 110:
                            out.append(f"{k['kernel']['name']} {lv.get('level')} at {q:.0f}% of its bandwidth")
                return out

            for pl in ("", " --per-launch"):
                cases.append(Case(f"C5-duration-{v or 'empty'}-{which}{pl.strip()}", "C5", f"$B import cap.csv -q --format json{pl}", setup=[put("w/cap.csv", data)], inputs=[data.encode()], expect_rc={0, 2}, check=check))
    # duration column missing altogether
    hdr = [h for h in HEADER]
    drop = [j for j, h in enumerate(HEADER) if h.startswith("gpu__time_duration")]
    rows = [[x for j, x in enumerate(r) if j not in drop] for r in ROWS]
    data = write_capture(PREFIX, [h for j, h in enumerate(hdr) if j not in drop], [u for j, u in enumerate(UNITS) if j not in drop], rows)
    cases.append(Case("C5-duration-column-missing", "C5", "$B import cap.csv -q -o a.json && $B check a.json --min-pct-of-roof 50", setup=[put("w/cap.csv", data)], outputs=["w/a.json"], inputs=[data.encode()], expect_rc={2}))
    return cases


def between_rows(text, n, line):
    """`line` inserted before the n-th CSV row of a capture."""
    lines = text.splitlines(keepends=True)
    rows = [i for i, l in enumerate(lines) if l.startswith('"')]
    return "".join(lines[: rows[n]] + [line] + lines[rows[n]:])


def cat_noncsv_lines():
    """C6: foreign lines inside a capture must not become a kernel."""
    cases = []
    seed = SEED_CSV.read_text()
    gemm = GEMM_CSV.read_text()
    body = seed.split("\n", 0)[0]
    header_line = [l for l in seed.splitlines() if l.startswith('"ID"')][0]
    variants = {
        "trailing-text": seed + "done.\n",
        "trailing-text-no-nl": seed.rstrip("\n") + "\nFinished in 3.2s",
        "cat-two": seed + gemm,
        "cat-same-twice": seed + seed,
        "prof-line-middle": between_rows(seed, 6, "==PROF== Disconnected from process 1\n"),
        "error-line-middle": between_rows(seed, 6, "==ERROR== The application returned an error code (1).\n"),
        "row-split-by-newline": seed.replace('"2","', '\n"2","', 1),
        "blank-lines": seed.replace("\n", "\n\n"),
        "comment-line": "# captured on node7\n" + seed,
        "header-repeated": seed + header_line + "\n",
        "crlf": seed.replace("\n", "\r\n"),
        "bom": "\ufeff" + seed,
        "python-traceback-appended": seed + 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\nRuntimeError: CUDA error\n',
        "warning-line-end": seed + "==WARNING== Found outstanding GPU clock reset, trying to revert...Success.\n",
        "tab-separated": seed.replace('","', '"\t"'),
        "semicolon": seed.replace('","', '";"'),
        "print-summary": '"ID","Kernel Name","Metric Name","Metric Unit","Minimum","Maximum","Average"\n"0","vecadd","dram__bytes.sum","byte","1","2","1.5"\n',
        "details-page": '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n"0","1","a","h","vecadd","1","7","(256, 1, 1)","(65536, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Duration","nsecond","59,136"\n',
        "unbalanced-quote": seed.replace('"vecadd"', '"vec"add', 1),
        "short-row": seed + '"99","1746","seed000"\n',
        "long-row": seed.rstrip("\n") + ',"extra","extra"\n',
        "nul-bytes": seed.replace("saxpy", "sa\x00xpy"),
        "invalid-utf8": None,
    }
    for name, data in variants.items():
        if data is None:
            raw = seed.encode().replace(b"saxpy", b"sa\xff\xfexpy")
        else:
            raw = data.encode()

        def check(root, meta, res, name=name):
            doc = analysis_json_of(meta)
            if res["rc"] != 0 or doc is None:
                return []
            out = []
            names = [k["kernel"]["name"] for k in doc.get("kernels", [])]
            if any(not n.strip() for n in names):
                out.append(f"nameless kernel among {names}")
            if name == "nul-bytes" and "NUL" not in res["stderr_tail"] + (meta / "stderr").read_text(errors="replace"):
                out.append("stopped at a NUL byte without saying so")
            if any("[pid" in k["kernel"].get("display_name", "") for k in doc.get("kernels", [])) and name not in ("cat-two",):
                out.append("display names carry [pid...]")
            if name in ("semicolon", "print-summary", "details-page", "tab-separated") and res["rc"] == 0:
                out.append(f"{name}: accepted (rc 0) with kernels {names[:3]}")
            if name not in ("cat-two", "cat-same-twice", "short-row", "print-summary", "details-page", "semicolon", "tab-separated", "unbalanced-quote", "nul-bytes") and len(names) != 11:
                out.append(f"{len(names)} kernels, expected 11")
            return out

        cases.append(Case(f"C6-{name}", "C6", "$B import cap.csv -q --format json", setup=[put("w/cap.csv", raw)], inputs=[raw], expect_rc={0, 2}, check=check))
        cases.append(Case(f"C6-{name}-stdin", "C6", "$B import - -q --format json < cap.csv", setup=[put("w/cap.csv", raw)], expect_rc={0, 2}, check=check))
    return cases


def cat_check():
    """C8: the CI gate's exit codes."""
    cases = []
    a = json.load(open(SCR / "base/a.json"))
    nodur = json.loads(json.dumps(a))
    for k in nodur["kernels"]:
        k["kernel"]["duration_s"] = None
    nodur_txt = json.dumps(nodur)
    zero = json.loads(json.dumps(a))
    for k in zero["kernels"]:
        k["kernel"]["duration_s"] = 0.0
    empty = json.loads(json.dumps(a))
    empty["kernels"] = []
    cases += [
        Case("C8-no-durations", "C8", "$B check in.json --min-pct-of-roof 50 -q", setup=[put("w/in.json", nodur_txt)], expect_rc={2}),
        Case("C8-zero-durations", "C8", "$B check in.json --min-pct-of-roof 50 -q", setup=[put("w/in.json", json.dumps(zero))], expect_rc={2}),
        Case("C8-no-kernels", "C8", "$B check in.json --min-pct-of-roof 50 -q", setup=[put("w/in.json", json.dumps(empty))], expect_rc={2}),
        Case("C8-no-rules", "C8", "$B check $BASE/a.json -q", expect_rc={0, 2}),
        Case("C8-per-launch-self-baseline", "C8", "$B check $BASE/pl.json --baseline $BASE/pl.json --max-regression 1 -q", expect_rc={0}),
        Case("C8-self-baseline", "C8", "$B check $BASE/a.json --baseline $BASE/a.json --max-regression 0 -q", expect_rc={0}),
        Case("C8-merged-self-baseline", "C8", "$B check $BASE/mg.json --baseline $BASE/mg.json --max-regression 0 -q", expect_rc={0, 2}),
        Case("C8-baseline-no-durations", "C8", "$B check $BASE/a.json --baseline in.json --max-regression 10 -q", setup=[put("w/in.json", nodur_txt)], expect_rc={2}),
        Case("C8-baseline-other-program", "C8", "$B check $BASE/a.json --baseline $BASE/b.json --max-regression 10 -q", expect_rc={0, 1, 2}),
        Case("C8-baseline-devzero", "C8", "$B check $BASE/a.json --baseline /dev/zero --max-regression 10 -q", expect_rc={2}, timeout=15),
        Case("C8-baseline-machine", "C8", "$B check $BASE/a.json --baseline $BASE/m.json --max-regression 10 -q", expect_rc={2}),
        Case("C8-failed-o-rule-held", "C8", "$B check $BASE/a.json --min-pct-of-roof 1 -q -o /dev/full", expect_rc={1}, check=lambda root, meta, res: [] if "-o" in res["stderr_tail"] and "held" in res["stderr_tail"] else ["failed -o does not say so / whether rules held"]),
        Case("C8-failed-o-nodir", "C8", "$B check $BASE/a.json --min-pct-of-roof 1 -q -o nodir/x.json", expect_rc={1}),
        Case("C8-kernel-absent", "C8", "$B check $BASE/a.json --kernel no_such_kernel=50 -q", expect_rc={1, 2}, note="a rule for a kernel that is not there must not pass silently"),
        Case("C8-kernel-absent-toml", "C8", "$B check $BASE/a.json --config c.toml -q", setup=[put("w/c.toml", '[[kernel]]\nname = "no_such_kernel"\nmin_pct_of_roof = 50\n')], expect_rc={1, 2}),
        Case("C8-kernel-max-time-absent", "C8", "$B check $BASE/a.json --config c.toml -q", setup=[put("w/c.toml", '[[kernel]]\nname = "no_such_kernel"\nmax_time = "1 ms"\n')], expect_rc={1, 2}),
    ]
    for spec in ["=50", "x=", "x=abc", "x=-5", "x=150", "x=NaN", "x=inf", "x=1e400", "==", "x==50", "vecadd=50=60", "vecadd= 50", " =50", "vecadd=50%", "vecadd=0x10", "vecadd=-0"]:
        # NAME=PCT splits at the last '=': "x==50" is kernel "x=" (absent, so the rule fails: 1)
        cases.append(Case(f"C8-kernel-{spec}", "C8", f"$B check $BASE/a.json --kernel '{spec}' -q", expect_rc={2} if spec not in ("vecadd=50%", "vecadd= 50", "vecadd=-0", "x==50", "vecadd=50=60") else {0, 1, 2}))
    for flag in ("--min-pct-of-roof", "--min-time-share", "--max-regression"):
        for v in ["NaN", "nan", "inf", "-inf", "-1", "101", "1e308", "50%", "", "abc", "0x10", "1e-400", "-0"]:
            extra = " --baseline $BASE/a.json" if flag == "--max-regression" else ""
            ok = v in ("-0", "1e-400") or (flag == "--max-regression" and v in ("101", "1e308"))
            cases.append(Case(f"C8-{flag[2:]}-{v or 'empty'}", "C8", f"$B check $BASE/a.json {flag}='{v}'{extra} -q", expect_rc={0, 1, 2} if ok else {2},
                              check=lambda root, meta, res: ["mentions TOML for a flag value"] if "TOML" in res["stderr_tail"] or "toml" in res["stderr_tail"] else []))
    tomls = {
        "unknown-key": "min_pct = 5\n",
        "wrong-type": 'min_pct_of_roof = "fifty"\n',
        "nan": "min_pct_of_roof = nan\n",
        "inf": "min_pct_of_roof = inf\n",
        "neg": "min_pct_of_roof = -5\n",
        "huge-int": "min_pct_of_roof = 99999999999999999999\n",
        "binary": "\x00\x01\x02\xff",
        "baseline-missing": 'baseline = "nope.json"\nmax_regression_pct = 10\n',
        "baseline-devzero": 'baseline = "/dev/zero"\nmax_regression_pct = 10\n',
        "baseline-self": 'baseline = "c.toml"\nmax_regression_pct = 10\n',
        "kernel-no-name": "[[kernel]]\nmin_pct_of_roof = 5\n",
        "kernel-bad-time": '[[kernel]]\nname = "vecadd"\nmax_time = "fast"\n',
        "kernel-time-neg": '[[kernel]]\nname = "vecadd"\nmax_time = "-1 ms"\n',
        "kernel-time-nan": '[[kernel]]\nname = "vecadd"\nmax_time = "nan ms"\n',
        "kernel-time-huge": '[[kernel]]\nname = "vecadd"\nmax_time = "1e400 s"\n',
        "kernel-time-unit": '[[kernel]]\nname = "vecadd"\nmax_time = "1 parsec"\n',
        "deep": "a = " + "[" * 5000 + "]" * 5000 + "\n",
        "dup-key": "min_pct_of_roof = 5\nmin_pct_of_roof = 6\n",
        "empty": "",
    }
    for name, t in tomls.items():
        ok = name in ("empty",)
        cases.append(Case(f"C8-config-{name}", "C8", "$B check $BASE/a.json --config c.toml -q", setup=[put("w/c.toml", t)], expect_rc={0, 1, 2} if ok else {2}, timeout=15, inputs=[t.encode()]))
    cases.append(Case("C8-config-devzero", "C8", "$B check $BASE/a.json --config /dev/zero -q", expect_rc={2}, timeout=15))
    cases.append(Case("C8-config-dir", "C8", "$B check $BASE/a.json --config . -q", expect_rc={2}))
    return cases


def cat_units():
    """C9: unknown units and a missing units row."""
    cases = []
    i = col("gpu__time_duration.sum")
    for u in ["nsecond", "usecond", "msecond", "second", "psecond", "minute", "hour", "MB", "Gcycle", "cycle", "byte", "%", "", "ns", "us", "ms", "s", "NSECOND", "nanosecond", "Kbyte", "fsecond", "usecond ", "ksecond"]:
        def mut_units(units, u=u):
            units = list(units)
            for j, h in enumerate(HEADER):
                if h.startswith("gpu__time_duration."):
                    units[j] = u
            return units

        data = capture_with(units=mut_units(UNITS))
        scale = {"nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3, "second": 1.0, "s": 1.0, "psecond": 1e-12, "fsecond": 1e-15, "": 1e-9}.get(u.strip().lower() if u.strip().lower() != "nsecond" else "nsecond")

        def check(root, meta, res, u=u, scale=scale):
            if res["rc"] == 2:
                return []
            doc = analysis_json_of(meta)
            got = doc["kernels"][0]["kernel"]["duration_s"] if doc else None
            want = 117632 * scale if scale else None
            if want is not None and got is not None and abs(got - want) <= 1e-6 * want:
                return []
            if u.strip() and f'"{u.strip()}"' in (meta / "stderr").read_text(errors="replace"):
                return []
            return [f"time unit {u!r} read as duration {got} s (expected {want}) without naming it"]

        cases.append(Case(f"C9-time-unit-{u or 'empty'}", "C9", "$B import cap.csv -q --format json", setup=[put("w/cap.csv", data)], inputs=[data.encode()], expect_rc={0, 2}, check=check))
    for metric, units in [("dram__bytes.sum", ["byte", "Kbyte", "Mbyte", "Gbyte", "KB", "MB", "MiB", "bit", "sector", "nsecond", "furlong", "byte/second"]), ("sm__cycles_elapsed.avg.per_second", ["hz", "Khz", "Mhz", "Ghz", "cycle/nsecond", "cycle/second", "cycle/usecond", "byte", "rpm", "1/second"])]:
        j = col(metric)
        for u in units:
            un = list(UNITS)
            un[j] = u
            data = capture_with(units=un)
            cases.append(Case(f"C9-{metric}-unit-{u}", "C9", "$B import cap.csv -q --format json", setup=[put("w/cap.csv", data)], inputs=[data.encode()], expect_rc={0, 2},
                              check=lambda root, meta, res, u=u: [] if res["rc"] == 2 or f'"{u}"' in (meta / "stderr").read_text(errors="replace") or u in ("byte", "hz", "Kbyte", "Mbyte", "Gbyte", "Khz", "Mhz", "Ghz", "cycle/nsecond", "cycle/second", "cycle/usecond") else [f"unit {u!r} accepted without naming it"]))
    data = capture_with(units_row=False)
    cases.append(Case("C9-no-units-row", "C9", "$B import cap.csv -q --format json", setup=[put("w/cap.csv", data)], inputs=[data.encode()], expect_rc={0, 2},
                      check=lambda root, meta, res: [] if res["rc"] == 2 or abs(analysis_json_of(meta)["kernels"][0]["kernel"]["duration_s"] - 117632e-9) < 1e-12 else ["no units row: durations not read as ncu's nanoseconds"]))
    return cases


FAKE_NCU = r"""#!/bin/bash
# fake ncu for the adversarial pass: FAKE_NCU_MODE picks a behaviour
LOG=${FAKE_NCU_LOG:-/dev/null}
echo "ncu $$ $*" >> "$LOG"
CSV=${FAKE_NCU_CSV:-__SEED__}
case "$*" in *--version*) echo "Version 2025.3.0.0 (build 36273991) (public-release)"; exit 0;; esac
case "$*" in *--query-metrics*) echo "Device GH100"; exit 0;; esac
out=""; prev=""; imp=""
for a in "$@"; do [ "$prev" = "--log-file" ] && out="$a"; [ "$prev" = "--import" ] && imp="$a"; prev="$a"; done
[ -z "$out" ] && out=/dev/stdout
echo "out $out" >> "$LOG"
case "${FAKE_NCU_MODE:-ok}" in
 ok) cat "$CSV" > "$out";;
 slow) sleep 300 & echo "child $!" >> "$LOG"; head -c 30000 "$CSV" > "$out"; wait;;
 slow-trap) trap '' INT TERM; sleep 300 & echo "child $!" >> "$LOG"; head -c 30000 "$CSV" > "$out"; wait; wait;;
 partial) head -n 12 "$CSV" > "$out"; sleep 300 & echo "child $!" >> "$LOG"; wait;;
 fail) echo "==ERROR== The application returned an error code (1)." >&2; exit 3;;
 fail-after-write) cat "$CSV" > "$out"; echo "==ERROR== failed" >&2; exit 1;;
 garbage) head -c 100000 /dev/urandom > "$out";;
 empty) : > "$out";;
 nofile) : ;;
 huge) yes '"1","2","3"' | head -c 200000000 > "$out";;
 kill9) kill -9 $$;;
 segv) kill -SEGV $$;;
 stdout-flood) yes "==PROF== noise" | head -c 50000000; cat "$CSV" > "$out";;
 symlink-log) rm -f "$out"; ln -s /etc/passwd "$out";;
 rep-fail) echo "==ERROR== Failed to import report" >&2; exit 1;;
esac
"""


def cat_children():
    """C10 and 14: profile's children, signals, timeouts; import of a .ncu-rep."""
    cases = []

    def no_children(root, meta, res):
        """Every pid the fake ncu logged (itself, its sleep) is gone."""
        out = []
        log = root / "outside/ncu.log"
        if not log.exists():
            return out
        time.sleep(0.5)
        for line in log.read_text().splitlines():
            parts = line.split()
            if parts[0] in ("ncu", "child") and parts[1].isdigit():
                pid = int(parts[1])
                try:
                    os.kill(pid, 0)
                    comm = open(f"/proc/{pid}/comm").read().strip()
                    # A zombie was killed: it only waits for a reaper (in a
                    # container PID 1 may never reap the orphans it adopts).
                    state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
                    if state != "Z" and comm in ("sleep", "ncu", "bash", "yes", "head"):
                        out.append(f"{parts[0]} pid {pid} ({comm}) still running")
                        os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, FileNotFoundError):
                    pass
            if parts[0] == "out" and parts[1].startswith("/") and os.path.exists(parts[1]) and "/w/" not in parts[1]:
                out.append(f"ncu log {parts[1]} left behind")
        return out

    env = lambda mode: {"FAKE_NCU_MODE": mode, "FAKE_NCU_LOG": "__ROOT__/outside/ncu.log"}
    P = "$B profile --ncu $BASE/fake/ncu"
    cases.append(Case("C10-profile-timeout-1e9-ok", "C10", f"{P} -q --timeout 1e9 -o p.json -- /bin/true", env=env("ok"), outputs=["w/p.json", "outside/ncu.log"], must_write=["w/p.json"], expect_rc={0, 2}, check=no_children))
    for mode in ("ok", "fail", "fail-after-write", "garbage", "empty", "nofile", "huge", "kill9", "segv", "stdout-flood", "symlink-log"):
        exp = {0} if mode in ("ok", "stdout-flood") else {0, 1, 2}
        cases.append(Case(f"C10-profile-{mode}", "C10", f"{P} -q -o p.json -- /bin/true", env=env(mode), outputs=["w/p.json", "outside/ncu.log"], must_write=["w/p.json"], expect_rc=exp, check=no_children, timeout=60))
    # signals to the tool's pid alone, then the partial capture
    for sig in ("INT", "TERM", "HUP"):
        for mode in ("slow", "partial", "slow-trap"):
            cmd = f"{P} -q -o p.json -- /bin/sleep 300 & pid=$!; sleep 2; kill -{sig} $pid; wait $pid; rc=$?; echo rc=$rc >&2; exit $rc"
            cases.append(Case(f"C10-profile-sig{sig}-{mode}", "C10", cmd, env=env(mode), outputs=["w/p.json", "outside/ncu.log"], expect_rc={0, 1, 2, 130, 143, 129}, check=no_children, timeout=60,
                              note="130/143 after a signal is the shell convention; judged by hand"))
    # --timeout
    for mode in ("slow", "partial", "slow-trap"):
        for t in ("2", "2s", "0", "0s", "-1", "abc", "1ms", "99999999999999999999"):
            cases.append(Case(f"C10-profile-timeout-{t}-{mode}", "C10", f"{P} -q --timeout {t} -o p.json -- /bin/sleep 300", env=env(mode), outputs=["w/p.json", "outside/ncu.log"], expect_rc={0, 1, 2}, check=no_children, timeout=45))
    # outputs failing after a finished profile: the profile must still be printed / kept
    for name, flags, keep in [
        ("save-csv-bad", "--save-csv nodir/x.csv -o p.json", "w/p.json"),
        ("o-bad-save-ok", "--save-csv x.csv -o nodir/p.json", "w/x.csv"),
        ("save-csv-devfull", "--save-csv /dev/full -o p.json", "w/p.json"),
        ("o-devfull", "--save-csv x.csv -o /dev/full", "w/x.csv"),
        ("save-csv-symlink", "--save-csv s.csv -o p.json", "outside/real.csv"),
        ("save-csv-is-output", "--save-csv p.json -o p.json", None),
        ("save-csv-chardev", "--save-csv null.csv -o p.json", "w/p.json"),
    ]:
        setup = []
        if "symlink" in name:
            setup = [put("outside/real.csv", "old"), symlink("w/s.csv", "../outside/real.csv")]
        if "chardev" in name:
            setup = [chardev_null("w/null.csv")]

        def check(root, meta, res, keep=keep, name=name):
            # ncu's CSV kept in $TMPDIR on purpose when --save-csv failed (the
            # warning says where); redundant when --save-csv did write it.
            out = [p for p in no_children(root, meta, res) if "left behind" not in p]
            if name == "save-csv-is-output":
                return out
            if res["stdout_bytes"] < 200:
                out.append("the finished profile was not printed on stdout")
            if keep and not (root / keep).exists():
                out.append(f"{keep} not written")
            kept = list((root / "tmp").glob("roofline-ncu-*/ncu.csv"))
            if kept and (root / "w/x.csv").exists():
                out.append("--save-csv wrote x.csv, and a copy is still kept in $TMPDIR")
            return out

        cases.append(Case(f"C10-profile-{name}", "C10", f"{P} -q {flags} -- /bin/true", setup=setup, env=env("ok"), outputs=["w/*", "outside/*"], expect_rc={0, 1, 2}, check=check, timeout=60, tmp_ok=True))
    # broken ncu paths
    for name, path in [("missing", "/nonexistent/ncu"), ("dir", "/tmp"), ("noexec", "$BASE/seed.csv"), ("devnull", "/dev/null"), ("empty", "''")]:
        cases.append(Case(f"C10-profile-ncu-{name}", "C10", f"$B profile --ncu {path} -q -- /bin/true", expect_rc={1, 2}))
    cases.append(Case("C10-profile-no-ncu-on-path", "C10", "PATH=/usr/bin:/bin CUDA_HOME=/nonexistent $B profile -q -- /bin/true", expect_rc={1, 2}))
    cases.append(Case("C10-profile-program-missing", "C10", f"{P} -q -- /nonexistent/prog", env=env("fail"), outputs=["outside/ncu.log"], expect_rc={1, 2}))
    # .ncu-rep import through the fake
    for mode in ("fail", "rep-fail", "empty", "garbage", "ok", "kill9"):
        def check(root, meta, res, mode=mode):
            if mode in ("fail", "rep-fail", "kill9") and "empty" in res["stderr_tail"].lower():
                return ["failing ncu reported as an empty file"]
            return []

        cases.append(Case(f"C14-import-ncu-rep-{mode}", "C14", "$B import r.ncu-rep --ncu $BASE/fake/ncu -q", setup=[put("w/r.ncu-rep", b"\x00NCUREP" * 100)], env=env(mode), outputs=["outside/ncu.log"], expect_rc={0} if mode == "ok" else {1, 2}, check=check))
    # timeline without a GPU: its errors, --timeout, --records
    for name, flags in [("plain", ""), ("timeout", "--timeout 1"), ("records-file", "--records rec"), ("records-nonempty", "--records rec"), ("timeout-bad", "--timeout -5"), ("inject-missing", "--inject-lib /nonexistent.so"), ("cupti-dir", "--cupti /tmp")]:
        setup = []
        if name == "records-file":
            setup = [put("w/rec", "old")]
        if name == "records-nonempty":
            setup = [put("w/rec/keep.txt", "keep")]
        cases.append(Case(f"C10-timeline-{name}", "C10", f"$B timeline {flags} -q -o t.json -- /bin/sleep 30", setup=setup, outputs=["w/t.json", "w/rec", "w/rec/*"], expect_rc={0, 1, 2}, timeout=40))
    # timeline runs without a GPU when given any file as its injection library: its signals and --timeout
    prog = "#!/bin/bash\nsleep 300 &\necho \"child $!\" >> \"$FAKE_NCU_LOG\"\nwait\n"
    T = "$B timeline --inject-lib fake.so -q -o t.json -- ./prog.sh"
    tl_setup = [put("w/fake.so", "not a library"), put("w/prog.sh", prog, 0o755)]
    for name, cmd in [
        ("timeout", T.replace("-q", "-q --timeout 2")),
        ("sigINT", T + " & pid=$!; sleep 2; kill -INT $pid; wait $pid"),
        ("sigTERM", T + " & pid=$!; sleep 2; kill -TERM $pid; wait $pid"),
    ]:
        cases.append(Case(f"C10-timeline-{name}-helper", "C10", cmd, setup=tl_setup, env=env("ok"), outputs=["w/t.json", "outside/ncu.log"], must_write=["w/t.json"], must_write_rcs=(0, 1), expect_rc={0, 1}, check=no_children, timeout=40))
    for root_repl in cases:
        for k, v in list(root_repl.env.items()):
            if "__ROOT__" in v:
                root_repl.env[k] = v.replace("__ROOT__", str(SCR / "cases" / root_repl.cid))
    return cases


def cat_occupancy():
    """C11: occupancy overflows and impossible launches."""
    cases = []
    U64 = "18446744073709551615"
    vals = {
        "--threads": ["0", "1", "31", "1024", "1025", "2147483648", U64, "18446744073709551616", "-1", "1e3", "abc"],
        "--regs": ["0", "1", "255", "256", "65536", "4294967296", U64, "-1"],
        "--smem-static": ["0", "227KiB", "228KiB", "1G", U64, "18446744073709550616", "18446744073709551616", "99999999999999999999KiB", "-1", "1.5KiB", "1KB", "1 KiB", "KiB", "1e3"],
        "--smem-dynamic": ["0", "2000", U64, "18446744073709551615KiB", "-1"],
        "--carveout": ["0", "50", "100", "101", "-1", "nan", "inf", "1e308"],
        "--barriers": ["0", "1", "16", "17", "4294967296", U64],
        "--cc": ["9.0", "0.0", "1.0", "99.9", "9.0.1", "sm_", "sm_90a", "", "nan", "1e308", "-9.0", "9", "10.0", "12.0"],
    }
    base = {"--cc": "9.0", "--threads": "256", "--regs": "32"}
    for flag, vs in vals.items():
        for v in vs:
            args = dict(base)
            args[flag] = v
            argstr = " ".join(f"{k} '{x}'" for k, x in args.items())
            for sweep in ("", " --sweep all"):
                cases.append(Case(f"C11-{flag[2:]}-{v or 'empty'}{sweep.replace(' --sweep ', '-sweep-')}", "C11", f"$B occupancy {argstr}{sweep} -q --format json", expect_rc={0, 1, 2}, timeout=20))
    cases.append(Case("C11-smem-overflow-sum", "C11", "$B occupancy --cc 9.0 --threads 256 --regs 32 --smem-static 18446744073709550616 --smem-dynamic 2000 -q --format json", expect_rc={1, 2},
                      check=lambda root, meta, res: ["reports 100%"] if b"100" in stdout_of(meta) and res["rc"] == 0 else []))
    cases.append(Case("C11-cannot-run", "C11", "$B occupancy --cc 9.0 --threads 1024 --regs 255 -q", expect_rc={1, 2}, note="a launch that cannot run"))
    cases.append(Case("C11-cannot-run-smem", "C11", "$B occupancy --cc 9.0 --threads 256 --regs 32 --smem-dynamic 300KiB -q", expect_rc={1, 2}))
    cases.append(Case("C11-gpu-unknown", "C11", "$B occupancy --gpu h900 --threads 256 --regs 32 -q", expect_rc={2}))
    cases.append(Case("C11-gpu-and-cc", "C11", "$B occupancy --gpu h200 --cc 7.5 --threads 256 --regs 32 -q", expect_rc={0, 2}))
    cases.append(Case("C11-no-threads", "C11", "$B occupancy --cc 9.0 -q", expect_rc={2}))
    return cases


HOSTILE_NAMES = {
    "html-comment": "k<!--x",
    "html-comment-close": "k-->x<!--",
    "script-close": "k</script><script>alert(1)</script>",
    "script-close-upper": "k</SCRIPT >x",
    "img-onerror": '<img src=x onerror="alert(1)">',
    "cdata-end": "k]]>x",
    "amp": "k&amp;&lt;&",
    "quote": "k\"'`x",
    "backslash": "k\\u0022\\x",
    "u2028": "k\u2028\u2029x",
    "md-pipe": "k|x|y",
    "md-newline": "k\n| injected | row |",
    "md-cr": "k\r| injected |",
    "md-link": "[click](javascript:alert(1))",
    "md-backticks": "k``x`",
    "md-heading": "# heading",
    "ansi-clear": "k\x1b[2J\x1b[Hx",
    "ansi-title": "k\x1b]0;pwned\x07x",
    "ansi-osc8": "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\",
    "c1-csi": "k\u009b2Jx",
    "bidi": "k\u202egnp.exe",
    "bell-bs": "k\x07\x08\x08\x08x",
    "csv-eq": '=HYPERLINK("http://evil","x")',
    "csv-plus": "+1+cmd|' /C calc'!A0",
    "csv-minus": "-2+3",
    "csv-at": "@SUM(A1)",
    "csv-tab": "\t=1+1",
    "csv-cr": "\r=1+1",
    "long": "k" * 100000,
    "empty-ish": " ",
    "nul": "k\x00x",
    "emoji-zwj": "k👩‍👩‍👧x\u200b",
}


def name_checks(fmt):
    def check(root, meta, res):
        out = []
        data = stdout_of(meta)
        if res["rc"] != 0:
            return out
        if fmt == "count0" and data.strip() not in (b"0", b""):
            out.append("escape sequences of a kernel name reach the coloured terminal table")
        if fmt in ("table", "chart", "markdown", "csv"):
            if b"\x1b" in data:
                out.append(f"ESC byte in {fmt} output")
            if "\u009b".encode() in data:
                out.append(f"C1 CSI in {fmt} output")
            if b"\x07" in data:
                out.append(f"BEL in {fmt} output")
        if fmt == "markdown":
            text = data.decode(errors="replace")
            for line in text.splitlines():
                if re.match(r"\s*\|?\s*injected", line) or re.match(r"\s*=1\+1", line):
                    out.append("a kernel name starts its own Markdown table row")
                    break
            if re.search(r"(?<!\\)<(img|/script|!--)", text, re.I):
                out.append("raw HTML from a kernel name in Markdown")
        if fmt == "csv":
            text = data.decode(errors="replace")
            for row in csv.reader(io.StringIO(text)):
                for cell in row:
                    if cell[:1] in ("=", "+", "@", "\t", "\r") or (cell[:1] == "-" and re.match(r"-\d+\+", cell)):
                        out.append(f"CSV formula cell {cell[:30]!r}")
                        break
        if fmt == "html":
            if re.search(rb"<script>alert|<img src=x", data, re.I):
                out.append("kernel name injected raw HTML")
            if data.lower().count(b"</script") != data.lower().count(b"<script"):
                out.append("unbalanced <script> tags")
        return out

    return check


def cat_injection():
    """C12/C13: kernel names into HTML, SVG, Markdown, terminal, CSV of every command."""
    cases = []
    name_i = col("Kernel Name")
    a = json.load(open(SCR / "base/a.json"))
    for tag, nm in HOSTILE_NAMES.items():
        def mut(rows, nm=nm):
            first = rows[0][name_i]
            for r in rows:
                if r[name_i] == first:
                    r[name_i] = nm
        data = capture_with(mut)
        doc = json.loads(json.dumps(a))
        for k in doc["kernels"][:1]:
            k["kernel"]["name"] = nm
            k["kernel"]["display_name"] = nm
        jtxt = json.dumps(doc)
        setup = [put("w/cap.csv", data), put("w/in.json", jtxt)]
        runs = {
            "import-table": ("$B import cap.csv -q --wide --color never", "table"),
            "import-table-color": ("$B import cap.csv -q --wide --color always | grep -c -E $'\\x1b\\[2J|\\x1b\\]|\\x07' ; exit 0", "count0"),
            "import-md": ("$B import cap.csv -q --format markdown", "markdown"),
            "import-csv": ("$B import cap.csv -q --format csv", "csv"),
            "import-html": ("$B import cap.csv -q -o r.html >/dev/null && cat r.html", "html"),
            "import-svg": ("$B import cap.csv -q -o a.json && $B report a.json -q -o r.svg", None),
            "report-html": ("$B report in.json -q --format html", "html"),
            "report-md": ("$B report in.json -q --format markdown", "markdown"),
            "report-csv": ("$B report in.json -q --format csv", "csv"),
            "report-chart": ("$B report in.json -q --format chart", "chart"),
            "check-md": ("$B check in.json -q --min-pct-of-roof 90 --format markdown", "markdown"),
            "check-csv": ("$B check in.json -q --min-pct-of-roof 90 --format csv", "csv"),
            "check-table": ("$B check in.json -q --min-pct-of-roof 90", "table"),
            "diff-md": ("$B diff $BASE/a.json in.json -q --format markdown", "markdown"),
            "diff-csv": ("$B diff $BASE/a.json in.json -q --format csv", "csv"),
            "diff-table": ("$B diff $BASE/a.json in.json -q", "table"),
            "diff-html": ("$B diff $BASE/a.json in.json -q -o d.html >/dev/null && cat d.html", "html"),
            "merge-md": ("$B merge in.json $BASE/a.json -q --format markdown", "markdown"),
            "merge-csv": ("$B merge in.json $BASE/a.json -q --format csv", "csv"),
            "merge-table": ("$B merge in.json $BASE/a.json -q", "table"),
            "title-html": (f"$B report $BASE/a.json -q --title \"$(cat title)\" --format html", "html"),
            "diff-title-svg": ("$B diff $BASE/a.json $BASE/b.json -q --title \"$(cat title)\" -o d.svg", None),
        }
        for run, (cmd, fmt) in runs.items():
            cases.append(Case(f"C13-{tag}-{run}", "C13" if fmt != "html" else "C12", cmd, setup=setup + [put("w/title", nm.replace("\x00", ""))], outputs=["w/*.html", "w/*.svg", "w/a.json"], expect_rc={0, 1, 2},
                              check=name_checks(fmt) if fmt else None, inputs=[data.encode(), jtxt.encode()]))
    return cases


def cat_misleading():
    """C14: messages and exit codes for wrong inputs."""
    cases = []
    def names_input(path_word):
        return lambda root, meta, res: [] if res["rc"] != 2 or path_word in res["stderr_tail"] else [f"message does not name {path_word}"]

    inputs = {
        "devzero": "/dev/zero",
        "devurandom": "/dev/urandom",
        "devnull": "/dev/null",
        "dir": ".",
        "missing": "nope.csv",
        "json-analysis": "$BASE/a.json",
        "html": "r.html",
        "gz": "$FX/timeline/train_gpt_h200.timeline.json.gz",
        "fifo-writer": "f.csv",
        "huge-line": "huge.csv",
        "binary": "bin.csv",
        "empty": "empty.csv",
        "header-only": "hdr.csv",
        "unreadable-nobody": "secret.csv",
    }
    huge = '"ID","Kernel Name"\n"0","' + "k" * (50 * 1024 * 1024) + '"\n'
    setup = [put("w/r.html", "<html></html>"), put("w/huge.csv", huge), put("w/bin.csv", bytes(random.getrandbits(8) for _ in range(100000))), put("w/empty.csv", ""),
             put("w/hdr.csv", "".join(SEED_CSV.read_text().splitlines(keepends=True)[:5])), put("w/secret.csv", SEED_CSV.read_text(), 0o600), fifo("w/f.csv")]
    for name, p in inputs.items():
        pre = ""
        if name == "fifo-writer":
            pre = f"(cat {SEED_CSV} > f.csv &); "
        nob = "$NOBODY " if name == "unreadable-nobody" else ""
        cases.append(Case(f"C14-import-{name}", "C14", f"{pre}{nob}$B import {p} -q", setup=setup, expect_rc={0} if name == "fifo-writer" else {2}, timeout=20, mem_kb=512 * 1024, budget_s=10,
                          check=names_input(p.split("/")[-1]), inputs=[huge.encode()] if name == "huge-line" else []))
    for cmd in ("report", "check --min-pct-of-roof 1", "diff $BASE/a.json", "merge $BASE/a.json", "model --machine", "import $BASE/seed.csv --machine", "check $BASE/a.json --max-regression 5 --baseline"):
        for name, p in inputs.items():
            if name in ("fifo-writer",):
                continue
            nob = "$NOBODY " if name == "unreadable-nobody" else ""
            extra = " -k 'k: flops=1 bytes=1'" if cmd.startswith("model") else ""
            cases.append(Case(f"C14-{cmd.split()[0]}{'-m' if '--machine' in cmd else ''}{'-b' if '--baseline' in cmd else ''}-{name}", "C14", f"{nob}$B {cmd} {p}{extra} -q", setup=setup, expect_rc={2} if name != "json-analysis" else {0, 1, 2}, timeout=20, mem_kb=512 * 1024, budget_s=10,
                              check=names_input(p.split("/")[-1])))
    # wrong document type to each reader
    for doc in ("a.json", "b.json", "m.json", "mg.json", "t.json", "c.json", "d.json", "model.json", "pl.json"):
        for cmd in ("report", "check", "diff $BASE/a.json", "merge $BASE/a.json", "model -k 'k: flops=1 bytes=1' --machine", "import $BASE/seed.csv --machine"):
            cases.append(Case(f"C14-doctype-{cmd.split()[0]}-{doc}", "C14", f"$B {cmd} $BASE/{doc} -q" + (" --min-pct-of-roof 1" if cmd == "check" else ""), expect_rc={0, 1, 2}, timeout=20))
    # flags with odd values
    for flag in ["--min-pct-of-roof NaN", "--min-pct-of-roof ''", "--max-regression nan"]:
        cases.append(Case(f"C14-check-{flag}", "C14", f"$B check $BASE/a.json {flag} -q", expect_rc={2}, check=lambda root, meta, res: ["TOML in a flag error"] if "TOML" in res["stderr_tail"] else []))
    for spec in ["", ":", "k", "k:", "k: flops=", "k: flops=1", "k: bytes=1", "k: flops=1 bytes=1 kind=fp128", "k: flops=1 bytes=1 time=", "k: flops=1 bytes=1 time=5", "k: flops=1 bytes=1 time=1parsec", "k: flops=1 bytes=1 flops=2", "k: flops=1 bytes=1 dram=2", "k: flops=1e9 l2=1 l1=1", "k: flops=1 bytes=1 bogus=3", ": flops=1 bytes=1", "k: flops=1 bytes=1 elements=0", "k: flops=1 bytes=1 elements=-3", "k: flops=1 bytes=1 elements=1.5", "k:flops=1 bytes=1", "k: flops = 1 bytes = 1", "k: FLOPS=1 BYTES=1", "k: flops=1GFLOP bytes=1GB", "k: flops=1e9 bytes=1e9 time=1ms time=2ms", "k" * 100000 + ": flops=1 bytes=1"]:
        cases.append(Case(f"C14-model-spec-{hashlib.md5(spec.encode()).hexdigest()[:8]}", "C14", f"$B model --gpu h200 -k \"$(cat spec)\" -q --format json", setup=[put("w/spec", spec)], expect_rc={0, 2}, inputs=[spec.encode()], note=spec[:80]))
    for rate in ["", "1", "1 GFLOP", "1 GFLOPs", "1 gflop/s", "1 TB/s", "1e3 GFLOP/s", "1,000 GFLOP/s", "1 000 GFLOP/s", "0x10 GFLOP/s", "1 PFLOP/s", "1 EFLOP/s", "1 YFLOP/s", "1 kFLOP/s", "1 FLOP/s", "1 FLOP/ms", "-1 GFLOP/s", "1e400 GFLOP/s", "GFLOP/s", "1 GiB/s"]:
        cases.append(Case(f"C14-peak-{rate or 'empty'}", "C14", f"$B model --peak '{rate}' --bandwidth '100 GB/s' -k 'k: flops=1 bytes=1' -q --format json", expect_rc={0, 2}, note=rate))
    for gpu in ["", "H200", "h200 ", "nonesuch", "../../etc/passwd", "a" * 10000]:
        cases.append(Case(f"C14-gpu-{hashlib.md5(gpu.encode()).hexdigest()[:6]}", "C14", f"$B peaks --gpu '{gpu}' -q", expect_rc={0, 2}, note=gpu[:40]))
    # env
    for cols in ["0", "1", "5", "-1", "abc", "99999999", "18446744073709551616"]:
        cases.append(Case(f"C14-columns-{cols}", "C14", "$B report $BASE/a.json --format table -q; $B import $BASE/seed.csv -q >/dev/null", env={"COLUMNS": cols}, expect_rc={0}))
    cases.append(Case("C14-invalid-utf8-arg", "C14", "$B report $'\\xff\\xfe.json' -q", expect_rc={2}))
    cases.append(Case("C14-invalid-utf8-o", "C14", "$B report $BASE/a.json -q -o $'\\xff\\xfe.json'", outputs=["w/*"], expect_rc={0, 2}))
    cases.append(Case("C14-huge-title", "C14", "$B report $BASE/a.json -q --title \"$(head -c 100000 /dev/zero | tr '\\0' x)\" -o r.html", outputs=["w/r.html"], expect_rc={0, 2}))
    return cases


def json_mutations(doc_txt):
    """Structural JSON damage: truncation, nesting, types, encodings."""
    out = {}
    b = doc_txt.encode()
    for frac in (0, 1, 2, 10, 50, 90, 99):
        out[f"trunc{frac}"] = b[: len(b) * frac // 100]
    out["trunc-last"] = b.rstrip()[:-1]
    out["trailing-garbage"] = b + b"xyz"
    out["two-docs"] = b + b
    out["bom"] = b"\xef\xbb\xbf" + b
    out["utf16"] = doc_txt.encode("utf-16")
    out["nested-100k"] = b"[" * 100000 + b"]" * 100000
    out["nested-obj"] = b'{"a":' * 50000 + b"1" + b"}" * 50000
    out["nul"] = b.replace(b'"schema"', b'"sch\x00ema"', 1)
    out["array"] = b"[" + b + b"]"
    out["string"] = b'"hello"'
    out["number"] = b"1e999"
    out["null"] = b"null"
    out["big-string"] = b'{"schema":"' + b"x" * (20 * 1024 * 1024) + b'"}'
    return out


def cat_documents():
    """X-docs: every document type damaged, to each reader."""
    cases = []
    readers = {
        "report": "$B report in.json -q --format json",
        "check": "$B check in.json -q --min-pct-of-roof 1",
        "diff": "$B diff in.json $BASE/a.json -q",
        "merge": "$B merge in.json $BASE/a.json -q",
        "machine": "$B model --machine in.json -k 'k: flops=1 bytes=1' -q",
        "import-machine": "$B import $BASE/seed.csv --machine in.json -q",
        "baseline": "$B check $BASE/a.json --baseline in.json --max-regression 10 -q",
    }
    for doc in ("a.json", "m.json", "mg.json", "t.json", "pl.json", "model.json"):
        txt = (SCR / "base" / doc).read_text()
        for mname, data in json_mutations(txt).items():
            for rname, cmd in readers.items():
                if doc == "t.json" and rname not in ("merge", "report"):
                    continue
                cases.append(Case(f"X-doc-{doc}-{mname}-{rname}", "X-docs", cmd, setup=[put("w/in.json", data)], expect_rc={2}, timeout=20, mem_kb=1024 * 1024, inputs=[data]))
    # type changes in required/optional fields, per document
    for doc in ("a.json", "m.json", "mg.json", "t.json"):
        d = json.load(open(SCR / "base" / doc))
        paths = []

        def walk(o, path, depth=0):
            if depth > 6:
                return
            if isinstance(o, dict):
                for k, v in o.items():
                    paths.append(path + [k])
                    walk(v, path + [k], depth + 1)
            elif isinstance(o, list) and o:
                paths.append(path + [0])
                walk(o[0], path + [0], depth + 1)

        walk(d, [])
        random.shuffle(paths)
        for path in paths[:120]:
            for v in ("null", "[]", "{}", '"x"', "-1", "1e308", "true", "DELETE"):
                dd = json.loads(json.dumps(d))
                o = dd
                for k in path[:-1]:
                    o = o[k]
                if v == "DELETE":
                    if isinstance(o, list):
                        continue
                    del o[path[-1]]
                    data = json.dumps(dd)
                else:
                    o[path[-1]] = "__X__"
                    data = json.dumps(dd).replace('"__X__"', v)
                rname = "merge" if doc == "t.json" else random.choice(["report", "check", "diff", "merge", "baseline"])
                cases.append(Case(f"X-field-{doc}-{'.'.join(map(str, path))}-{v}-{rname}", "X-docs", readers[rname], setup=[put("w/in.json", data)], expect_rc={0, 1, 2}, timeout=20, inputs=[data.encode()]))
    return cases


def cat_merge():
    """X-merge: hostile rank files."""
    cases = []
    a = json.load(open(SCR / "base/a.json"))
    t = json.load(open(SCR / "base/t.json"))
    def w(name, doc):
        return put(f"w/{name}", json.dumps(doc) if not isinstance(doc, (str, bytes)) else doc)
    many = [copy(f"w/job.rank{i}.json", SCR / "base/a.json") for i in range(300)]
    cases += [
        Case("X-merge-300-ranks", "X-merge", "$B merge job.rank*.json -q -o j.json", setup=many, outputs=["w/j.json"], must_write=["w/j.json"], expect_rc={0}, budget_s=10),
        Case("X-merge-same-file-twice", "X-merge", "$B merge $BASE/a.json $BASE/a.json -q -o j.json", outputs=["w/j.json"], expect_rc={0, 2}),
        Case("X-merge-one-file", "X-merge", "$B merge $BASE/a.json -q -o j.json", outputs=["w/j.json"], expect_rc={0, 2}),
        Case("X-merge-merged", "X-merge", "$B merge $BASE/mg.json $BASE/a.json -q -o j.json", outputs=["w/j.json"], expect_rc={0, 2}),
        Case("X-merge-machine", "X-merge", "$B merge $BASE/m.json $BASE/a.json -q", expect_rc={2}),
        Case("X-merge-mixed-timeline", "X-merge", "$B merge $BASE/t.json $BASE/a.json -q -o j.json", outputs=["w/j.json"], expect_rc={0, 2}),
        Case("X-merge-rank-huge-name", "X-merge", "$B merge job.rank99999999999999999999999.json job.rank1.json -q -o j.json", setup=[copy("w/job.rank99999999999999999999999.json", SCR / "base/a.json"), copy("w/job.rank1.json", SCR / "base/b.json")], outputs=["w/j.json"], expect_rc={0, 2}),
        Case("X-merge-rank-4294967296", "X-merge", "$B merge job.rank4294967296.json job.rank0.json -q -o j.json", setup=[copy("w/job.rank4294967296.json", SCR / "base/a.json"), copy("w/job.rank0.json", SCR / "base/b.json")], outputs=["w/j.json"], expect_rc={0, 2}),
        Case("X-merge-rank-dup-names", "X-merge", "$B merge x/job.rank0.json y/job.rank0.json -q -o j.json", setup=[copy("w/x/job.rank0.json", SCR / "base/a.json"), copy("w/y/job.rank0.json", SCR / "base/b.json")], outputs=["w/j.json"], expect_rc={0, 2}),
        Case("X-merge-stdin", "X-merge", "$B merge - $BASE/a.json -q < $BASE/b.json", expect_rc={0, 2}),
        Case("X-merge-machine-flag-analysis", "X-merge", "$B merge $BASE/a.json $BASE/b.json --machine $BASE/a.json -q", expect_rc={0, 2}),
        Case("X-merge-output-is-rank", "X-merge", "$B merge job.rank0.json job.rank1.json -q -o job.rank1.json", setup=[copy("w/job.rank0.json", SCR / "base/a.json"), copy("w/job.rank1.json", SCR / "base/b.json")], expect_rc={2}),
        Case("X-merge-output-glob-rank", "X-merge", "$B merge job.rank*.json -q -o job.rank2.json; $B merge job.rank*.json -q -o j2.json", setup=[copy("w/job.rank0.json", SCR / "base/a.json"), copy("w/job.rank1.json", SCR / "base/b.json")], outputs=["w/job.rank2.json", "w/j2.json"], expect_rc={0, 2},
             note="re-running a merge with a glob picks up its own output"),
    ]
    for field_name, vals in [("rank", [-1, 2**64, 1e308, "x", None]), ("world_size", [0, -1, 2**64, "x"])]:
        for v in vals:
            d = json.loads(json.dumps(a))
            d.setdefault("producer", {})
            d["producer"][field_name] = v
            d[field_name] = v
            d.setdefault("launch", {})[field_name] = v
            cases.append(Case(f"X-merge-{field_name}-{v}", "X-merge", "$B merge r0.json $BASE/b.json -q -o j.json", setup=[w("r0.json", d)], outputs=["w/j.json"], expect_rc={0, 2}))
    # timelines with odd numbers
    for path, vals in [(["summary", "kernels", 0, "total_ns"], [0, -1, 2**63, 2**64, 1e308]), (["timeline", "activities", 0, "start_ns"], [0, -1, 2**64, 1e308]), (["timeline", "activities", 0, "end_ns"], [0, -1, 2**64]), (["run", "wall_s"], [0, -1, 1e308, None]), (["summary", "kernel_ns"], [0, -1, 2**64])]:
        for v in vals:
            d = json.loads(json.dumps(t))
            o = d
            for k in path[:-1]:
                o = o[k]
            o[path[-1]] = v
            for rd in ("merge-json", "merge-html", "merge-md"):
                cmd = {"merge-json": "$B merge tl.json $BASE/t.json -q -o j.json", "merge-html": "$B merge tl.json tl.json -q -o j.html", "merge-md": "$B merge tl.json tl.json -q --format markdown"}[rd]
                cases.append(Case(f"X-merge-tl-{'.'.join(map(str, path))}-{v}-{rd}", "X-merge", cmd, setup=[w("tl.json", d)], outputs=["w/j.json", "w/j.html"], expect_rc={0, 2}))
    # end before start
    d = json.loads(json.dumps(t))
    for act in d["timeline"]["activities"]:
        act["start_ns"], act["end_ns"] = act["end_ns"], act["start_ns"]
    cases.append(Case("X-merge-tl-reversed", "X-merge", "$B merge tl.json tl.json -q -o j.json", setup=[w("tl.json", d)], outputs=["w/j.json"], expect_rc={0, 2}))
    return cases


def cat_scale():
    """C15: 100,000 kernels through report, check --baseline, diff -o html, merge."""
    big = SCR / "big"
    big.mkdir(parents=True, exist_ok=True)
    n = 100_000
    for tag, scale in (("a", 1.0), ("b", 1.07)):
        p = big / f"k{tag}.toml"
        if not p.exists():
            with open(p, "w") as f:
                f.write('[machine]\ngpu = "h200"\n')
                rnd = random.Random(7)
                for i in range(n):
                    fl = 10 ** rnd.uniform(3, 13)
                    by = 10 ** rnd.uniform(3, 11)
                    t = 10 ** rnd.uniform(-6, -2) * scale
                    f.write(f'[[kernel]]\nname = "kernel_{i:06d}_<T{i % 97}>"\nflops = {fl:.6g}\nbytes = {by:.6g}\ntime = "{t * 1e3:.6g} ms"\n')
    cases = []
    budget = dict(budget_s=10, mem_kb=1024 * 1024, timeout=300)
    prep = "[ -f $ROOT/../../big/a.json ] || $B model $ROOT/../../big/ka.toml -q -o $ROOT/../../big/a.json >/dev/null; [ -f $ROOT/../../big/b.json ] || $B model $ROOT/../../big/kb.toml -q -o $ROOT/../../big/b.json >/dev/null\n"
    BIGA, BIGB = str(big / "a.json"), str(big / "b.json")
    cases.append(Case("C15-model-100k", "C15", f"$B model {big}/ka.toml -q -o a.json", outputs=["w/a.json"], must_write=["w/a.json"], expect_rc={0}, **budget))
    cases += [
        Case("C15-prep", "C15", prep + "true", expect_rc={0}, timeout=600, readback=False),
    ]
    for name, cmd in {
        "report-html": f"$B report {BIGA} -q -o r.html",
        "report-svg": f"$B report {BIGA} -q -o r.svg",
        "report-md": f"$B report {BIGA} -q --format markdown > r.md",
        "report-csv": f"$B report {BIGA} -q --format csv > r.csv",
        "report-chart": f"$B report {BIGA} -q --format chart > r.txt",
        "report-table": f"$B report {BIGA} -q > r.txt",
        "check-baseline": f"$B check {BIGB} --baseline {BIGA} --max-regression 5 -q > r.txt",
        "check-baseline-self": f"$B check {BIGA} --baseline {BIGA} --max-regression 5 -q > r.txt",
        "check-min": f"$B check {BIGA} --min-pct-of-roof 50 -q --format csv > r.csv",
        "diff-html": f"$B diff {BIGA} {BIGB} -q -o d.html",
        "diff-md": f"$B diff {BIGA} {BIGB} -q --format markdown > d.md",
        "diff-json": f"$B diff {BIGA} {BIGB} -q -o d.json",
        "merge-2": f"$B merge {BIGA} {BIGB} -q -o m.json",
    }.items():
        cases.append(Case(f"C15-{name}", "C15", cmd, outputs=["w/*"], expect_rc={0, 1}, readback=name not in ("merge-2",), **budget))
    return cases


def cat_scale_csv():
    """C15b: the same through import, from a capture of 100,000 launches (few columns)."""
    big = SCR / "big"
    big.mkdir(parents=True, exist_ok=True)
    p = big / "cap100k.csv"
    if not p.exists():
        # the columns `profile` asks ncu for (read off the fake ncu's log), plus the identity columns
        log = big / "ncu-args.log"
        subprocess.run([str(BIN), "profile", "--ncu", str(SCR / "base/fake/ncu"), "-q", "--", "/bin/true"], env={**os.environ, "FAKE_NCU_LOG": str(log)}, capture_output=True)
        metrics = set(re.search(r"--metrics (\S+)", log.read_text()).group(1).split(","))
        keep = [j for j, h in enumerate(HEADER) if h in metrics or "__" not in h]
        with open(p, "w") as f:
            w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
            w.writerow([HEADER[j] for j in keep])
            w.writerow([UNITS[j] for j in keep])
            name_i, id_i = col("Kernel Name"), col("ID")
            for i in range(100_000):
                r = list(ROWS[i % len(ROWS)])
                r[name_i] = f"{r[name_i]}_{i}"
                r[id_i] = str(i)
                w.writerow([r[j] for j in keep])
    return [Case("C15-import-100k", "C15", f"$B import {p} -q -o a.json > /dev/null", outputs=["w/a.json"], must_write=["w/a.json"], expect_rc={0}, budget_s=10, mem_kb=1024 * 1024, timeout=300, readback=False),
            Case("C15-import-100k-report-html", "C15", f"$B import {p} -q -o a.json > /dev/null && /usr/bin/time -f 'report %e s %M KB' $B report a.json -q -o r.html && /usr/bin/time -f 'diff %e s %M KB' $B diff a.json a.json -q -o d.html && /usr/bin/time -f 'check %e s %M KB' $B check a.json --baseline a.json -q >/dev/null", outputs=["w/*"], expect_rc={0, 1}, mem_kb=1024 * 1024, timeout=600, readback=False)]


CATEGORIES = {
    "C1": cat_output_files,
    "C2": lambda: cat_planted_temp() + strace_audit_cases(),
    "C3": cat_chart_numbers,
    "C4": cat_streams,
    "C5": cat_durations,
    "C6": cat_noncsv_lines,
    "C8": cat_check,
    "C9": cat_units,
    "C10": cat_children,
    "C11": cat_occupancy,
    "C13": cat_injection,
    "C14": cat_misleading,
    "X-docs": cat_documents,
    "X-merge": cat_merge,
    "scale": lambda: cat_scale() + cat_scale_csv(),
}


def main():
    global PREFIX, HEADER, UNITS, ROWS
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="comma-separated category keys")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--match", default="", help="only case ids containing this")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if not BIN.exists():
        sys.exit(f"no binary at {BIN}: build it or set ROOFLINE_BIN")
    SCR.mkdir(parents=True, exist_ok=True)
    prepare_base()
    PREFIX, HEADER, UNITS, ROWS = load_capture()
    only = [x for x in args.only.split(",") if x]
    keys = only or [k for k in CATEGORIES if k != "scale"]
    cases = []
    for k in keys:
        cases += CATEGORIES[k]()
    if args.match:
        cases = [c for c in cases if args.match in c.cid]
    ids = [c.cid for c in cases]
    dup = {i for i in ids if ids.count(i) > 1} if len(ids) < 5000 else set()
    if dup:
        sys.exit(f"duplicate case ids: {sorted(dup)[:10]}")
    if args.list:
        for c in cases:
            print(c.cat, c.cid)
        print(len(cases), "cases")
        return
    # scale cases run alone, in order
    jobs = 1 if "scale" in keys else args.jobs
    results = []
    lock = threading.Lock()
    tag = ("-".join(keys) if len(keys) < 4 else "all") + (f"-{args.match}" if args.match else "")
    out = open(SCR / f"results-{tag}.jsonl", "w")
    done = [0]

    def go(c):
        r = run_case(c)
        # drop the case folder unless it shows a problem (keeps /tmp small)
        if not r["problems"]:
            shutil.rmtree(SCR / "cases" / c.cid, ignore_errors=True)
        with lock:
            results.append(r)
            out.write(json.dumps(r) + "\n")
            out.flush()
            done[0] += 1
            if r["problems"]:
                print(f"[{done[0]}/{len(cases)}] {c.cid}: " + " | ".join(p[:160] for p in r["problems"]), flush=True)
            elif done[0] % 200 == 0:
                print(f"[{done[0]}/{len(cases)}] ...", flush=True)
        return r

    t0 = time.time()
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        list(ex.map(go, cases))
    blobs = set()
    for c in cases:
        for op in c.setup:
            if hasattr(op, "blob"):
                blobs.add(hashlib.sha256(op.blob).hexdigest())
        for b in c.inputs:
            blobs.add(hashlib.sha256(b).hexdigest())
    summary = {"cases": len(cases), "distinct_input_files": len(blobs), "distinct_commands": len({c.cmd for c in cases}), "seconds": round(time.time() - t0), "by_category": {}}
    for r in results:
        s = summary["by_category"].setdefault(r["cat"], {"runs": 0, "with_problems": 0, "kinds": {}})
        s["runs"] += 1
        if r["problems"]:
            s["with_problems"] += 1
            for p in r["problems"]:
                kind = p.split()[0]
                s["kinds"][kind] = s["kinds"].get(kind, 0) + 1
    (SCR / f"summary-{tag}.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
