#!/usr/bin/env python3
"""The robustness harness of `roofline`: hostile inputs, outputs, streams,
children, signals and scale, each case judged by the same rules
(scripts/robustness/README.md says which, and how to add a case).

    python3 scripts/robustness/run.py --bin target/release/roofline [--group NAME ...] [--quick] [--jobs N]

Prints one block per finding and a summary table; exits 1 when anything
was found, 0 when nothing was, 2 on a usage error, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
from cases import GROUPS, SELFTEST  # noqa: E402
from material import Material  # noqa: E402


def have_gpu():
    return any(os.path.exists(p) for p in ("/dev/nvidia0", "/dev/nvidiactl"))


def can_mount(scratch):
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    d = tempfile.mkdtemp(dir=scratch, prefix="mount-probe-")
    ok = harness.subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", d],
                                capture_output=True).returncode == 0
    if ok:
        harness.subprocess.run(["umount", d], capture_output=True)
    os.rmdir(d)
    return ok


def missing_needs(case, env):
    """Why a case cannot run here (None when it can)."""
    for need in case.needs:
        if need == "root" and os.geteuid() != 0:
            return "needs root (device nodes, other owners)"
        if need in ("strace", "setpriv", "chattr") and not shutil.which(need):
            return f"needs {need}"
        if need == "mount" and not env["mount"]:
            return "needs to mount a small tmpfs (root, not refused by the container)"
        if need == "nogpu" and env["gpu"]:
            return "assumes no GPU (it checks the no-GPU path): a GPU is present"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True, help="the roofline binary to test")
    ap.add_argument("--group", action="append", default=[], metavar="NAME",
                    help="run this group only (repeatable): " + ", ".join(GROUPS))
    ap.add_argument("--quick", action="store_true", help="a representative subset of every group (minutes)")
    ap.add_argument("--jobs", type=int, default=1, help="cases run at once (default 1)")
    ap.add_argument("--match", default="", help="only the cases whose id contains this")
    ap.add_argument("--scratch", help="where cases run (default: a new folder under $TMPDIR)")
    ap.add_argument("--keep", action="store_true", help="keep every case's folder (default: those with findings)")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--json", metavar="FILE", help="also write every run as JSON lines to FILE")
    ap.add_argument("--selftest", action="store_true",
                    help="check the harness itself: cases that misbehave on purpose must give their findings")
    args = ap.parse_args()

    # A harness started with SIGINT or SIGHUP ignored (nohup, `&`) would pass
    # that on: the tool's signal handling is then not what a user sees.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for s in (signal.SIGHUP, signal.SIGTERM, signal.SIGQUIT, signal.SIGPIPE):
        signal.signal(s, signal.SIG_DFL)

    unknown = [g for g in args.group if g not in GROUPS]
    if unknown:
        ap.error(f"unknown group {', '.join(unknown)}; groups: {', '.join(GROUPS)}")
    binary = os.path.abspath(args.bin)
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        ap.error(f"{binary} is not an executable file")
    scratch = os.path.abspath(args.scratch) if args.scratch else tempfile.mkdtemp(prefix="roofline-robustness-")
    os.makedirs(scratch, exist_ok=True)
    os.chmod(scratch, 0o755)  # the cases run as `nobody` must reach the material (mkdtemp makes it 0700)

    # The binary runs from a copy, so that a case writing over "the tool"
    # cannot lose the original (the injection library goes beside it, if any).
    bindir = os.path.join(scratch, "bin")
    os.makedirs(bindir, exist_ok=True)
    test_bin = os.path.join(bindir, "roofline")
    shutil.copy2(binary, test_bin)
    lib = os.path.join(os.path.dirname(binary), "libroofline_inject.so")
    if os.path.exists(lib):
        shutil.copy2(lib, bindir)

    t0 = time.time()
    root_before = set(os.listdir("/"))  # a case that escaped its folder would most likely land here
    material = Material(scratch, test_bin).make()
    env = {"gpu": have_gpu(), "mount": can_mount(scratch)}
    ctx = harness.Context(bin=test_bin, material=material, scratch=scratch, keep=args.keep, gpu=env["gpu"])
    table = {SELFTEST.NAME: SELFTEST} if args.selftest else GROUPS
    groups = [SELFTEST.NAME] if args.selftest else (args.group or list(GROUPS))
    cases, skipped = [], []
    for g in groups:
        for c in table[g].cases(material, args.quick):
            if args.match and args.match not in c.id:
                continue
            why = missing_needs(c, env)
            (skipped.append((c, why)) if why else cases.append(c))
    ids = [c.id for c in cases + [c for c, _ in skipped]]
    dup = sorted({i for i in ids if ids.count(i) > 1}) if len(ids) < 20000 else []
    if dup:
        sys.exit(f"duplicate case ids: {dup[:10]}")
    if args.list:
        for c in cases:
            print(c.id)
        for c, why in skipped:
            print(f"{c.id}  (skipped: {why})")
        print(f"{len(cases)} cases, {len(skipped)} skipped")
        if not args.scratch:
            shutil.rmtree(scratch, ignore_errors=True)
        return 0

    mode = "quick" if args.quick else "full"
    print(f"roofline robustness: {len(cases)} cases in {len(groups)} group(s) ({mode}), jobs {args.jobs}, "
          f"binary {binary}, scratch {scratch}", flush=True)
    for c, why in skipped:
        print(f"skipped {c.id}: {why}")
    # Cases that send signals, sleep or run long are timed on their own:
    # they run one at a time, after the others, even with --jobs.
    heavy = [c for c in cases if c.signal or c.timeout > 60 or c.group in ("scale",)]
    light = [c for c in cases if c not in heavy]
    results = []
    lock = threading.Lock()
    per_group = {g: {"t": 0.0} for g in groups}
    out = open(args.json, "w") if args.json else None
    done = [0]

    def go(c):
        t = time.time()
        try:
            r = harness.run_case(c, ctx)
        except Exception as e:  # noqa: BLE001 - a broken case must not stop the rest
            r = harness.Run(c, "", None, "harness-error", 0.0, 0.0, b"", "", command=str(c.args or c.shell))
            r.findings.append(harness.Finding("harness", f"{type(e).__name__}: {e}"))
        with lock:
            per_group[c.group]["t"] += time.time() - t
            results.append(r)
            done[0] += 1
            if out:
                out.write(json.dumps({"id": c.id, "outcome": r.outcome, "rc": r.rc, "wall_s": round(r.wall, 3),
                                      "rss_mb": round(r.rss_mb, 1), "command": r.command,
                                      "stderr_tail": r.stderr[-400:],
                                      "findings": [[f.kind, f.detail] for f in r.findings], "notes": r.notes}) + "\n")
                out.flush()
            if r.findings and not args.selftest:
                print(f"\nFINDING {c.id} ({r.outcome}, {r.wall:.1f} s)\n  command: {r.command[:400]}")
                for fd in r.findings:
                    print(f"  [{fd.kind}] {fd.detail[:600]}")
                if r.root:
                    print(f"  folder: {r.root}")
                sys.stdout.flush()
            elif done[0] % 100 == 0:
                print(f"  ... {done[0]}/{len(cases)} ({time.time() - t0:.0f} s)", flush=True)
        return r

    ex = ThreadPoolExecutor(max_workers=max(1, args.jobs))
    interrupted = False
    try:
        list(ex.map(go, light))
        for c in heavy:
            go(c)
    except KeyboardInterrupt:
        interrupted = True
        ex.shutdown(wait=False, cancel_futures=True)
        harness.stop_all_runs()
        print("\ninterrupted: the runs in progress were stopped; the summary covers the cases that ran", flush=True)
    else:
        ex.shutdown()
    wall = time.time() - t0

    if args.selftest:
        bad = 0
        for r in sorted(results, key=lambda r: r.case.id):
            got = sorted({fd.kind for fd in r.findings})
            want = sorted(set(r.case.selftest))
            ok = got == want
            bad += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {r.case.id}: expected {want or 'nothing'}, got {got or 'nothing'}")
        print(f"\nselftest: {len(results) - bad} of {len(results)} cases as expected")
        shutil.rmtree(scratch, ignore_errors=True) if not bad and not args.keep else None
        return 1 if bad else 0

    # ---------------------------------------------------------------- summary
    rows = []
    for g in groups:
        rs = [r for r in results if r.case.group == g]
        sk = sum(1 for c, _ in skipped if c.group == g)
        count = lambda o: sum(1 for r in rs if r.outcome == o)
        other = len(rs) - count("ok") - count("failure") - count("bad-input")
        rows.append((g, len(rs), sk, count("ok"), count("failure"), count("bad-input"), other,
                     sum(1 for r in rs if r.findings), per_group[g]["t"]))
    head = ("group", "cases", "skipped", "exit 0", "exit 1", "exit 2", "other", "findings", "seconds")
    widths = [max(len(str(x)) for x in col) for col in zip(head, *[(r[0], *r[1:8], f"{r[8]:.0f}") for r in rows])]
    line = lambda vals: "  ".join(str(v).rjust(w) if i else str(v).ljust(w) for i, (v, w) in enumerate(zip(vals, widths)))
    print("\n" + line(head))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line((*r[:8], f"{r[8]:.0f}")))
    tot = [sum(r[i] for r in rows) for i in range(1, 8)]
    print(line(("total", *tot, f"{wall:.0f}")))
    kinds = {}
    for r in results:
        for fd in r.findings:
            kinds[fd.kind] = kinds.get(fd.kind, 0) + 1
    print(f"\n{len(results)} cases run in {wall:.0f} s ({mode}); {tot[6]} with findings"
          + (f": {', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}" if kinds else "")
          + f"; folders of cases with findings are under {os.path.join(scratch, 'cases')}")
    escaped = sorted(set(os.listdir("/")) - root_before)
    if escaped:
        print(f"warning: new entries in / during the run (a case that escaped its folder, or another user): {escaped[:10]}")
    if out:
        out.close()
    if interrupted:
        return 130
    if not any(r.findings for r in results) and not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    return 1 if any(r.findings for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
