"""Running one robustness case against the `roofline` binary and judging it.

A case (`Case`) is data: the arguments (or a bash script), the files its
working folder starts with, what the run may write, what it must write, the
exit codes it may end with, and optional checks of its own. `run_case` gives
it a fresh folder:

    ROOT/w/        the working folder (cwd), filled from `Case.files`
    ROOT/outside/  canary files a symlink of the case may point at
    ROOT/tmp/      the run's own $TMPDIR
    ROOT/meta/     stdout, stderr, logs of the stand-ins (never compared)

then runs the binary in its own session, under a wall-clock limit and an
address-space limit, and classifies the run:

    ok          exit 0
    failure     exit 1
    bad-input   exit 2
    panic       exit 101 or "panicked" on stderr
    signal      killed by a signal the case did not send
    hang        still running at the case's time limit (killed)
    exit N      any other exit status

and then looks for findings: a panic, a signal or a hang; an exit status the
case does not expect; a process of the run still alive after it ended
(found by a marker in the environment, zombies excepted); something left
in $TMPDIR (unless the tool named it on stderr, as it does when it keeps
ncu's files on purpose) or a `.roofline-*.tmp` left beside a target; a file
in ROOT created, changed or removed that is not one of the case's outputs;
an output that must be written and is not; a written document that does
not read back (strict JSON, and `roofline report` for analysis, merged and
machine documents; XML for SVG; the JSON embedded in HTML; CSV); JSON on
stdout that does not parse; a peak RSS over the case's bound; and whatever
the case's own `check` returns. One rule is about messages only: a
number of 60 digits or more on stderr (1e308 spelled out).
"""

from __future__ import annotations

import csv
import fnmatch
import glob
import hashlib
import io
import json
import os
import re
import resource
import shlex
import shutil
import signal
import stat
import subprocess
import time
import uuid
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Callable, Optional

MiB = 1 << 20
HASH_LIMIT = 256 * MiB

# Launcher and tool variables of the caller's environment that would change
# what a case means; a case sets the ones it wants.
SCRUBBED_ENV = (
    "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_PROCID", "SLURM_NTASKS",
    "SLURM_LOCALID", "PMI_RANK", "PMI_SIZE", "CUDA_INJECTION64_PATH", "ROOFLINE_INJECT_LIB",
    "ROOFLINE_TIMELINE_DIR", "RUST_BACKTRACE", "RUST_LOG", "NO_COLOR", "CLICOLOR_FORCE",
)

SIGNALS = {s.name[3:]: s for s in signal.Signals if s.name.startswith("SIG") and not s.name.startswith("SIG_")}

ACTIVE = set()  # the markers of the runs in progress, so that an interrupted harness can stop their processes


def stop_all_runs():
    """Kills every process of the runs in progress (the harness was interrupted)."""
    for mark in list(ACTIVE):
        kill_all(marked(mark))


# ---------------------------------------------------------------- what a case's folder holds


@dataclass(frozen=True)
class File:
    """A regular file; `data` is str or bytes."""
    data: bytes | str = b""
    mode: Optional[int] = None
    owner: Optional[tuple] = None  # (uid, gid): needs root


@dataclass(frozen=True)
class Lazy:
    """A regular file whose bytes `make()` returns when the case runs (big inputs)."""
    make: Callable
    mode: Optional[int] = None


@dataclass(frozen=True)
class Copy:
    """A copy of a file (a path of the material or the repository)."""
    src: str
    mode: Optional[int] = None


@dataclass(frozen=True)
class Link:
    """A symbolic link to `target`, as written ({OUT} and {W}: the case's absolute folders)."""
    target: str


@dataclass(frozen=True)
class HardLink:
    """A second name of a file the case made earlier (`existing`, relative to w/)."""
    existing: str


@dataclass(frozen=True)
class Dir:
    mode: Optional[int] = None


@dataclass(frozen=True)
class Fifo:
    pass


@dataclass(frozen=True)
class CharDev:
    """A character device node (root only): (1, 3) is /dev/null, (1, 7) /dev/full."""
    major: int = 1
    minor: int = 3


@dataclass(frozen=True)
class Sparse:
    """A sparse file of `size` bytes (holes: no disk used)."""
    size: int
    head: bytes = b""


@dataclass(frozen=True)
class Signal:
    """A signal the harness sends during the run.

    `wait_for` is a glob of a file in ROOT/meta that a stand-in creates when it
    is running (e.g. "ncu-started"), or, starting with "w/", in the working
    folder (e.g. "w/.roofline-*.tmp": the tool has started writing); the
    harness waits for it (up to 20 s), then `after` seconds more. `target` is
    "pid" (the tool alone) or "group".
    """
    name: str
    after: float = 1.0
    wait_for: Optional[str] = None
    target: str = "pid"


@dataclass
class Case:
    id: str                                   # "group/name": unique
    args: Optional[list] = None               # argv after the binary (str or bytes items)
    shell: Optional[str] = None               # a bash script instead ($B is the binary)
    files: dict = field(default_factory=dict)  # path under w/ (or ../outside/...) -> node, str or bytes
    stdin: Optional[bytes | str] = None       # fed on stdin (None: /dev/null)
    env: dict = field(default_factory=dict)   # extra environment; a None value removes the variable
    expect: frozenset = frozenset({0, 1, 2})  # exit statuses that are not a finding
    outputs: tuple = ()                       # globs under w/ (or ../outside/...) the run may write
    must_write: tuple = ()                    # files (under w/) that must exist, non-empty, after exit 0
    keep_on_failure: tuple = ()               # outputs (under w/) that must be as they were after exit != 0
    readback: bool = True                     # read back every document written
    timeout: float = 30.0                     # seconds of wall time
    mem_mb: Optional[int] = 1024              # finding when peak RSS is above (None: not judged)
    as_mb: int = 6144                         # address-space limit of the run
    signal: Optional[Signal] = None
    settle: float = 0.5                       # how long the run's processes get to go after it ended
    leftover_ok: bool | tuple = ()            # documented survivors: True, or substrings of their command lines
    tmp_ok: bool = False                      # something left in $TMPDIR is documented for this case
    stdout_lacks: tuple = ()                  # byte strings that must not appear on stdout
    stderr_lacks: tuple = ()
    stderr_has: tuple = ()                    # strings stderr must hold (after exit 1 or 2)
    check: Optional[Callable] = None          # (Run) -> list of problems
    needs: tuple = ()                         # "root", "strace", "setpriv", "mount", "chattr", "nogpu"
    note: str = ""
    selftest: tuple = ()                      # selftest group only: the kinds of finding this case must produce

    @property
    def group(self):
        return self.id.split("/", 1)[0]


@dataclass
class Finding:
    kind: str
    detail: str


@dataclass
class Run:
    """What one run did; handed to a case's `check`."""
    case: Case
    root: str
    rc: Optional[int]
    outcome: str
    wall: float
    rss_mb: float
    stdout: bytes
    stderr: str
    findings: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    command: str = ""
    material_dir: str = ""

    def path(self, rel):
        return os.path.normpath(os.path.join(self.root, "w", rel))

    def read(self, rel, default=None):
        try:
            with open(self.path(rel), "rb") as f:
                return f.read()
        except OSError:
            return default

    def meta(self, name):
        try:
            with open(os.path.join(self.root, "meta", name), "rb") as f:
                return f.read()
        except OSError:
            return b""


@dataclass
class Context:
    """What every run shares: the binary, the material, where cases run."""
    bin: str
    material: object
    scratch: str
    keep: bool = False
    gpu: bool = False


# ---------------------------------------------------------------- helpers


def strict_json(data):
    def bad(c):
        raise ValueError(f"non-JSON constant {c}")
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    return json.loads(data, parse_constant=bad)


def alive(pid):
    """A live process (a zombie, killed and waiting for a reaper, is not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def marked(mark):
    """Live processes whose environment carries the run's marker."""
    needle = f"ROBUSTNESS_MARK={mark}".encode() + b"\0"
    me = os.getpid()
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == me:
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                env = f.read() + b"\0"
        except OSError:
            continue
        if needle in env and alive(int(d)):
            out.append(int(d))
    return out


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()[:100]
    except OSError:
        return "?"


def kill_all(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def exe_of(pid):
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return ""


def vm_hwm_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def snapshot(root, skip=("tmp", "meta")):
    """Type, mode, owner, inode, size, hash or link target of every entry (links not followed)."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        if rel_dir.split(os.sep)[0] in skip:
            dirnames[:] = []
            continue
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, root)
            if rel.split(os.sep)[0] in skip:
                continue
            try:
                st = os.lstat(p)
            except OSError:
                continue
            entry = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, st.st_ino)
            if stat.S_ISREG(st.st_mode):
                if st.st_size > HASH_LIMIT:  # big inputs (sparse files): size and time stand for the content
                    entry += (st.st_size, st.st_mtime_ns)
                else:
                    h = hashlib.sha256()
                    try:
                        with open(p, "rb") as f:
                            for chunk in iter(lambda: f.read(MiB), b""):
                                h.update(chunk)
                    except OSError:
                        pass
                    entry += (st.st_size, h.hexdigest())
            elif stat.S_ISLNK(st.st_mode):
                entry += (os.readlink(p),)
            elif stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
                entry += (st.st_rdev,)
            snap[rel] = entry
    return snap


def norm(pattern):
    """A path or glob of a case (relative to w/) as a path relative to ROOT."""
    return os.path.normpath(os.path.join("w", pattern))


def matches(rel, patterns):
    return any(fnmatch.fnmatchcase(rel, p) for p in patterns)


SCRIPT_JSON = re.compile(rb"<script[^>]*type=\"application/json\"[^>]*>(.*?)</script>", re.S)


def readback(ctx, path, env):
    """Problems reading back a file the tool wrote ([] when it reads)."""
    try:
        st = os.stat(path)
    except OSError:
        return []
    if not stat.S_ISREG(st.st_mode) or st.st_size == 0:
        return []
    ext = os.path.splitext(path)[1].lower()
    try:
        with open(path, "rb") as f:
            data = f.read()
        if ext == ".json":
            doc = strict_json(data)
            schema = doc.get("schema", "") if isinstance(doc, dict) else ""
            if not isinstance(schema, str):
                schema = ""
            if schema.startswith(("roofline.analysis", "roofline.merged", "roofline.machine")):
                argv = [ctx.bin, "report", path, "--format", "json", "-q"]
            elif schema.startswith("roofline.timeline"):
                argv = [ctx.bin, "merge", path, "--format", "json", "-q"]
            else:
                return []
            r = subprocess.run(argv, capture_output=True, timeout=120, env=env, stdin=subprocess.DEVNULL)
            said = r.stderr.decode("utf-8", "replace")
            if r.returncode != 0 and not (schema.startswith("roofline.timeline") and "no kernel" in said):
                return [f"{os.path.basename(path)} ({schema}) is refused by `roofline {argv[1]}` "
                        f"(exit {r.returncode}): {tail(said, 300)}"]
        elif ext == ".svg":
            ET.fromstring(data)
        elif ext == ".html":
            for m in SCRIPT_JSON.finditer(data):
                strict_json(m.group(1))
        elif ext == ".csv":
            list(csv.reader(io.StringIO(data.decode("utf-8"))))
    except subprocess.TimeoutExpired:
        return [f"{os.path.basename(path)}: reading it back did not end within 120 s"]
    except Exception as e:  # noqa: BLE001 - any parse failure is the finding
        return [f"{os.path.basename(path)} does not read back: {type(e).__name__}: {str(e)[:200]}"]
    return []


def tail(s, n=300):
    s = s.strip().replace("\n", " | ")
    return s if len(s) <= n else "..." + s[-n:]


def show_arg(a):
    if isinstance(a, bytes):
        return "$'" + "".join(chr(b) if 32 < b < 127 and b not in b"'\\" else f"\\x{b:02x}" for b in a) + "'"
    if len(a) > 120:
        a = a[:80] + f"...({len(a)} chars)"
    if any(ord(c) < 32 or ord(c) == 127 for c in a):
        return "$'" + "".join(c if 32 <= ord(c) < 127 and c not in "'\\" else f"\\x{ord(c):02x}" if ord(c) < 256
                              else c for c in a) + "'"
    return shlex.quote(a)


def classify(rc, hung, stderr, shell):
    if hung:
        return "hang"
    if rc == 101 or "panicked" in stderr:
        return "panic"
    if rc < 0:
        return "signal " + signal.Signals(-rc).name
    if shell and 128 < rc < 160 and (rc - 128) in {s.value for s in signal.Signals}:
        return "signal " + signal.Signals(rc - 128).name
    return {0: "ok", 1: "failure", 2: "bad-input"}.get(rc, f"exit {rc}")


# ---------------------------------------------------------------- running


def build(root, files, material):
    w = os.path.join(root, "w")
    for rel, node in files.items():
        p = os.path.normpath(os.path.join(w, rel))
        if not p.startswith(root + os.sep):
            raise ValueError(f"{rel} leaves the case's folder")
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if isinstance(node, (str, bytes)):
            node = File(node)
        if isinstance(node, File):
            with open(p, "wb") as f:
                f.write(node.data.encode() if isinstance(node.data, str) else node.data)
            if node.owner is not None:
                os.lchown(p, *node.owner)
            if node.mode is not None:
                os.chmod(p, node.mode)
        elif isinstance(node, Lazy):
            data = node.make()
            with open(p, "wb") as f:
                f.write(data.encode() if isinstance(data, str) else data)
            if node.mode is not None:
                os.chmod(p, node.mode)
        elif isinstance(node, Copy):
            shutil.copyfile(material.resolve(node.src), p)
            if node.mode is not None:
                os.chmod(p, node.mode)
        elif isinstance(node, Link):
            os.symlink(node.target.replace("{OUT}", os.path.join(root, "outside")).replace("{W}", w), p)
        elif isinstance(node, HardLink):
            os.link(os.path.normpath(os.path.join(w, node.existing)), p)
        elif isinstance(node, Dir):
            os.makedirs(p, exist_ok=True)
            if node.mode is not None:
                os.chmod(p, node.mode)
        elif isinstance(node, Fifo):
            os.mkfifo(p)
        elif isinstance(node, CharDev):
            os.mknod(p, 0o666 | stat.S_IFCHR, os.makedev(node.major, node.minor))
        elif isinstance(node, Sparse):
            with open(p, "wb") as f:
                f.write(node.head)
                f.truncate(node.size)
        else:
            raise TypeError(f"{rel}: {node!r}")


def release_fifos(root):
    """A process of the run left blocked on a FIFO of the case gets its EOF."""
    for dirpath, _, names in os.walk(os.path.join(root, "w")):
        for n in names:
            p = os.path.join(dirpath, n)
            try:
                if stat.S_ISFIFO(os.lstat(p).st_mode):
                    fd = os.open(p, os.O_RDWR | os.O_NONBLOCK)
                    time.sleep(0.02)
                    os.close(fd)
            except OSError:
                pass


def remove_tree(path):
    if not os.path.lexists(path):
        return
    try:  # a case that mounted a small tmpfs and was killed before it could unmount it
        with open("/proc/mounts") as f:
            mounts = [line.split()[1] for line in f]
        for mp in sorted((x for x in mounts if x.startswith(path + "/")), reverse=True):
            subprocess.run(["umount", "-l", mp], capture_output=True)
    except OSError:
        pass
    subprocess.run(["chattr", "-R", "-i", path], capture_output=True) if shutil.which("chattr") else None
    for dirpath, dirnames, _ in os.walk(path):
        for d in dirnames:
            p = os.path.join(dirpath, d)
            try:
                if not os.path.islink(p):
                    os.chmod(p, 0o755)
            except OSError:
                pass
    shutil.rmtree(path, ignore_errors=True)


def base_env(ctx, root, mark):
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED_ENV}
    env.update({
        "B": ctx.bin,
        "M": ctx.material.dir,
        "W": os.path.join(root, "w"),
        "OUTSIDE": os.path.join(root, "outside"),
        "ROBUST_META": os.path.join(root, "meta"),
        "ROBUST_OUTSIDE": os.path.join(root, "outside"),
        "TMPDIR": os.path.join(root, "tmp"),
        "ROBUSTNESS_MARK": mark,
        "NO_COLOR": "1",
        "COLUMNS": "100",
    })
    return env


def subst(a, ctx, root):
    if isinstance(a, bytes):
        return a
    return (a.replace("{M}", ctx.material.dir).replace("{W}", os.path.join(root, "w"))
            .replace("{OUT}", os.path.join(root, "outside")).replace("{B}", ctx.bin))


def run_case(case: Case, ctx: Context) -> Run:
    """Runs one case in a fresh folder and judges it (see the module's docstring)."""
    safe = re.sub(r"[^A-Za-z0-9_.=-]", "_", case.id)[:150]
    root = os.path.join(ctx.scratch, "cases", safe)
    remove_tree(root)
    for d in ("w", "outside", "tmp", "meta"):
        os.makedirs(os.path.join(root, d))
    os.chmod(os.path.join(root, "tmp"), 0o1777)
    outside = os.path.join(root, "outside")
    for n in ("canary.txt", "canary.json", "canary.csv", "canary.svg", "canary.html"):
        with open(os.path.join(outside, n), "w") as f:
            f.write(f"canary {n}: nothing may change this file\n")
    os.makedirs(os.path.join(outside, "dir"))
    with open(os.path.join(outside, "dir", "inner.txt"), "w") as f:
        f.write("canary inner\n")
    build(root, case.files, ctx.material)
    # the snapshot, the environment (with the run's marker) and the command line
    before = snapshot(root)
    mark = uuid.uuid4().hex
    env = base_env(ctx, root, mark)
    for k, v in case.env.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = subst(v, ctx, root)
    meta = os.path.join(root, "meta")
    if case.shell is not None:
        argv = ["bash", "-c", subst(case.shell, ctx, root)]
        command = case.shell.replace("$B", "roofline")
    else:
        args = [subst(a, ctx, root) for a in case.args]
        argv = [ctx.bin] + args
        command = "roofline " + " ".join(show_arg(a) for a in case.args)
    command = command.replace(ctx.material.dir, "$M")
    if case.stdin is None:
        stdin = subprocess.DEVNULL
    else:
        with open(os.path.join(meta, "stdin"), "wb") as f:
            f.write(case.stdin.encode() if isinstance(case.stdin, str) else case.stdin)
        stdin = open(os.path.join(meta, "stdin"), "rb")
    t0 = time.time()
    ACTIVE.add(mark)
    try:
        status, hung, sent, hwm, notes = supervise(case, ctx, argv, env, root, mark, stdin, t0)
    finally:
        ACTIVE.discard(mark)
    wall = time.time() - t0
    rc = os.waitstatus_to_exitcode(status)
    release_fifos(root)
    stdout = open(os.path.join(meta, "stdout"), "rb").read()
    stderr = open(os.path.join(meta, "stderr"), "rb").read().decode("utf-8", "replace")
    outcome = classify(rc, hung, stderr, case.shell is not None)
    run = Run(case, root, None if hung else rc, outcome, wall, hwm / 1024.0, stdout, stderr, command=command,
              material_dir=ctx.material.dir)
    run.notes.extend(notes)
    judge(run, ctx, before, env, mark, rc, hung, sent)
    if not run.findings and not ctx.keep:
        remove_tree(root)
    return run


def supervise(case, ctx, argv, env, root, mark, stdin, t0):
    """Starts the run in its own session under its limits, sends the case's signal, kills it at the
    time limit; returns (wait status, hung, signal sent, peak RSS in kB, notes)."""
    meta = os.path.join(root, "meta")
    out = open(os.path.join(meta, "stdout"), "wb")
    err = open(os.path.join(meta, "stderr"), "wb")
    try:
        p = subprocess.Popen(argv, cwd=os.path.join(root, "w"), env=env, stdin=stdin, stdout=out,
                             stderr=err, start_new_session=True, close_fds=True)
    finally:
        out.close()
        err.close()
        if stdin is not subprocess.DEVNULL:
            stdin.close()
    try:
        lim = case.as_mb * MiB
        resource.prlimit(p.pid, resource.RLIMIT_AS, (lim, lim))
        resource.prlimit(p.pid, resource.RLIMIT_CORE, (0, 0))
    except (OSError, ValueError):
        pass
    hung = False
    status = None
    notes = []
    hwm = 0
    sent = None
    pending = case.signal
    wait_started = None
    last_scan = 0.0
    while True:
        pid, st, _ = os.wait4(p.pid, os.WNOHANG)
        if pid:
            status = st
            break
        now = time.time()
        el = now - t0
        if case.shell is None:
            hwm = max(hwm, vm_hwm_kb(p.pid))
        elif case.mem_mb and now - last_scan > 0.2:
            last_scan = now
            for q in marked(mark):
                if exe_of(q) == ctx.bin:
                    hwm = max(hwm, vm_hwm_kb(q))
        if pending is not None:
            if pending.wait_for and wait_started is None:
                where = root if pending.wait_for.startswith("w/") else meta
                if glob.glob(os.path.join(where, pending.wait_for)):
                    wait_started = now
                elif el > 20:
                    wait_started = now
                    notes.append(f"{pending.wait_for} never appeared: the signal went after 20 s")
            ready = (wait_started is not None and now - wait_started >= pending.after) if pending.wait_for \
                else el >= pending.after
            if ready:
                sig = SIGNALS[pending.name]
                try:
                    if pending.target == "group":
                        os.killpg(p.pid, sig)
                    else:
                        os.kill(p.pid, sig)
                    sent = sig
                except ProcessLookupError:
                    pass
                pending = None
        if el > case.timeout:
            hung = True
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            _, status, _ = os.wait4(p.pid, 0)
            break
        time.sleep(0.01 if el < 1 else 0.03)
    p.returncode = 0  # reaped here, by wait4
    return status, hung, sent, hwm, notes


def judge(run, ctx, before, env, mark, rc, hung, sent):
    """The findings of a run that ended: how it ended, what it left, what it changed, what it wrote."""
    case, root, stdout, stderr, outcome = run.case, run.root, run.stdout, run.stderr, run.outcome
    f = run.findings.append

    # -- how it ended
    ours = sent is not None and (rc in (-sent, 128 + sent))
    if outcome == "hang":
        f(Finding("hang", f"still running after {case.timeout:.0f} s (killed)"))
    elif outcome == "panic":
        f(Finding("panic", tail(stderr, 500)))
    elif outcome.startswith("signal") and not ours:
        f(Finding("signal", f"{outcome}: {tail(stderr, 300)}"))
    elif rc not in case.expect and not (ours and sent == signal.SIGKILL):
        if ours:
            f(Finding("exit-code", f"died of the {signal.Signals(sent).name} the case sent (no handler ran)"))
        else:
            f(Finding("exit-code", f"exit {rc}, expected {sorted(case.expect)}: {tail(stderr, 300)}"))

    # -- processes of the run still alive
    deadline = time.time() + (case.settle if not hung else 0.2)
    left = marked(mark)
    while left and time.time() < deadline:
        time.sleep(0.05)
        left = marked(mark)
    if left:
        allowed = case.leftover_ok
        if hung or allowed is True:
            expected, unexpected = left, []
        elif allowed:
            expected = [q for q in left if any(s in cmdline(q) for s in allowed)]
            unexpected = [q for q in left if q not in expected]
        else:
            expected, unexpected = [], left
        if expected:
            run.notes.append(f"processes left (documented or after the harness's kill), killed: "
                             f"{[f'{q} {cmdline(q)}' for q in expected[:4]]}")
        if unexpected:
            f(Finding("process-left", f"{len(unexpected)} process(es) of the run still alive {case.settle:.1f} s after "
                                      f"it ended: {[f'{q} {cmdline(q)}' for q in unexpected[:4]]}"))
        kill_all(left)
        time.sleep(0.05)

    # -- $TMPDIR
    tmpd = os.path.join(root, "tmp")
    leftovers = sorted(os.listdir(tmpd)) if os.path.isdir(tmpd) else []
    if leftovers:
        named = [n for n in leftovers if n in stderr]
        if hung:
            run.notes.append(f"left in $TMPDIR after the harness's SIGKILL: {leftovers[:3]}")
        elif case.tmp_ok:
            run.notes.append(f"left in $TMPDIR (documented for this case): {leftovers[:3]}")
        elif len(named) == len(leftovers):
            run.notes.append(f"kept in $TMPDIR and named on stderr: {leftovers[:3]}")
        else:
            f(Finding("temp-left", f"left in $TMPDIR: {[n for n in leftovers if n not in named][:5]}"))

    # -- the folder: nothing outside the outputs may change
    after = snapshot(root)
    outs = [norm(p) for p in case.outputs]
    for rel in sorted(set(before) | set(after)):
        b, a = before.get(rel), after.get(rel)
        if b == a or matches(rel, outs):
            continue
        shown = rel[2:] if rel.startswith("w/") else "../" + rel
        if b is None and re.fullmatch(r"\.roofline-.*\.tmp", os.path.basename(rel)):
            if sent == signal.SIGKILL or hung:
                run.notes.append(f"{shown} left after SIGKILL (no handler can run)")
            else:
                f(Finding("temp-left", f"{shown} left beside a target"))
        elif b is None:
            f(Finding("outside-change", f"{shown} was created (not an output of this case)"))
        elif a is None:
            f(Finding("outside-change", f"{shown} was removed"))
        else:
            f(Finding("outside-change", f"{shown} was changed ({describe_change(b, a)})"))

    # -- outputs
    if rc == 0 and not hung:
        for rel in case.must_write:
            p = os.path.join(root, norm(rel))
            if not os.path.exists(p) or (os.path.isfile(p) and os.path.getsize(p) == 0):
                f(Finding("not-written", f"exit 0 but {rel} was not written"))
    if rc != 0 or hung:
        for rel in case.keep_on_failure:
            r = norm(rel)
            if before.get(r) != after.get(r):
                what = "removed" if r not in after else "created" if r not in before else "replaced or changed"
                f(Finding("data-loss", f"the run did not succeed ({outcome}) and {rel}, an earlier result, was {what}"))
    if case.readback and not hung:
        for rel in sorted(after):
            if matches(rel, outs) and before.get(rel) != after.get(rel) and after[rel][0] == stat.S_IFREG:
                for prob in readback(ctx, os.path.join(root, rel), env):
                    f(Finding("unreadable", prob))
        if rc == 0 and case.args and stdout.strip():
            fmt = None
            for i, a in enumerate(case.args[:-1]):
                if a == "--format":
                    fmt = case.args[i + 1]
            if fmt in ("json", "trace"):
                try:
                    strict_json(stdout)
                except Exception as e:  # noqa: BLE001
                    f(Finding("unreadable", f"--format {fmt} printed what is not strict JSON: {e}"))

    # -- the case's own checks
    for needle in case.stdout_lacks:
        if needle in stdout:
            f(Finding("check", f"stdout holds {needle!r}"))
    raw_stderr = stderr.encode("utf-8", "replace")
    for needle in case.stderr_lacks:
        if (needle in raw_stderr) if isinstance(needle, bytes) else (needle in stderr):
            f(Finding("check", f"stderr holds {needle!r}"))
    if rc in (1, 2):
        for needle in case.stderr_has:
            if needle not in stderr:
                f(Finding("check", f"stderr does not say {needle!r}: {tail(stderr, 200)}"))
    digits = re.search(r"\d{60,}", stderr)
    if digits:  # a number echoed in full (1e308 as 309 digits) instead of as written
        f(Finding("message", f"stderr spells out a {len(digits.group())}-digit number: "
                             f"{tail(stderr[max(0, digits.start() - 120):digits.start() + 40], 200)}"))
    if case.mem_mb and run.rss_mb > case.mem_mb:
        f(Finding("memory", f"peak RSS {run.rss_mb:.0f} MB, over {case.mem_mb} MB"))
    if case.check is not None and not hung:
        try:
            for prob in case.check(run) or []:
                f(Finding("check", prob))
        except Exception as e:  # noqa: BLE001 - a broken check is reported, not hidden
            f(Finding("check", f"the case's check failed: {type(e).__name__}: {e}"))


def describe_change(b, a):
    parts = []
    if b[0] != a[0]:
        parts.append(f"type {stat.filemode(b[0])[0]} -> {stat.filemode(a[0])[0]}")
    if b[1] != a[1]:
        parts.append(f"mode {oct(b[1])} -> {oct(a[1])}")
    if b[2:4] != a[2:4]:
        parts.append(f"owner {b[2]}:{b[3]} -> {a[2]}:{a[3]}")
    if b[4] != a[4]:
        parts.append("replaced (new inode)")
    if b[5:] != a[5:]:
        parts.append("content")
    return ", ".join(parts) or "metadata"
