#!/usr/bin/env python3
"""How `roofline import` compares with what a user would write instead, in one run.

Replicates two committed captures (a targeted metric set and a `--set full` one) to N launches
with the baselines' gen.py, then runs, interleaved, `roofline import CAPTURE --format json -o
FILE` and the NERSC-style pandas (tuned: only the needed columns) and polars scripts, each under
`/usr/bin/time`, and prints per size and shape the median CPU time (user + sys), the median
peak RSS, and roofline's ratio to each baseline measured in the same run. The cores may be
shared: each run records the 1-minute load average before it, and each size prints their range.

  scripts/bench-import.py [--sizes 3000,30000,100000,300000] [--runs 3] [--roofline PATH]
                          [--shapes targeted,full] [--per-launch] [--compare OLD_BINARY]
                          [--out results.csv]
With --compare, the documents of the last run of each size are compared byte for byte between
the two builds (plain and --per-launch).
  scripts/bench-import.py --smoke        (3k launches, one run of each: a few seconds, for CI)

The baselines (`nersc_pandas.py`, `gen.py`) are not the project's code: they are found in
$ROOFLINE_BASELINES (default /work/shared/baselines). pandas and polars must be importable;
without them only roofline is timed (and no ratio is printed).
"""
import argparse
import filecmp
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = {
    "targeted": os.path.join(ROOT, "tests/fixtures/ncu/h200_seed000_metrics.csv"),
    "full": os.path.join(ROOT, "tests/fixtures/external/h200-2026-12-01/gpt2_train.full.csv"),
}


def timed(cmd):
    """CPU seconds (user + sys), peak RSS in KiB, wall seconds of one run of cmd."""
    fd, path = tempfile.mkstemp(suffix=".time")
    os.close(fd)
    try:
        r = subprocess.run(["/usr/bin/time", "-o", path, "-f", "%U %S %M %e"] + cmd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if r.returncode != 0:
            sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr.decode()[-2000:]}")
        u, s, m, e = open(path).read().split()[-4:]
        return float(u) + float(s), int(m), float(e)
    finally:
        os.unlink(path)


def load():
    """The 1-minute load average."""
    return float(open("/proc/loadavg").read().split()[0])


def have_baselines():
    r = subprocess.run([sys.executable, "-c", "import pandas, polars"], capture_output=True)
    return r.returncode == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="3000,30000,100000,300000")
    ap.add_argument("--shapes", default="targeted,full")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--roofline", default=os.path.join(ROOT, "target/release/roofline"))
    ap.add_argument("--baselines", default=os.environ.get("ROOFLINE_BASELINES", "/work/shared/baselines"))
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "roofline-bench-import"))
    ap.add_argument("--per-launch", action="store_true",
                    help="time `import --per-launch` too (and the --compare binary's, when given)")
    ap.add_argument("--per-launch-max", type=int, default=100000, help="largest capture timed with --per-launch")
    ap.add_argument("--compare", metavar="PATH", help="another roofline binary (an older build) timed beside it")
    ap.add_argument("--out", help="write every run's figures to this CSV")
    ap.add_argument("--smoke", action="store_true", help="3k launches, one run: a check that it all runs")
    a = ap.parse_args()
    if a.smoke:
        a.sizes, a.runs = "3000", 1
    os.makedirs(a.work, exist_ok=True)
    gen = os.path.join(a.baselines, "gen.py")
    nersc = os.path.join(a.baselines, "nersc_pandas.py")
    if not os.path.exists(gen):
        sys.exit(f"{gen}: not found; set ROOFLINE_BASELINES or --baselines to the folder of gen.py and nersc_pandas.py")
    if not os.path.exists(a.roofline):
        sys.exit(f"{a.roofline}: not found; build it (cargo build --release -p roofline) or give --roofline PATH")
    baselines = os.path.exists(nersc) and have_baselines()
    if not baselines:
        print(f"note: pandas/polars or {nersc} missing: roofline alone is timed", file=sys.stderr)
    rows = []
    print(f"{'shape':8} {'launches':>8} {'tool':16} {'CPU s':>8} {'us/launch':>9} {'RSS MiB':>8} "
          f"{'B/launch':>8} {'vs pandas':>9} {'vs polars':>9}")
    for shape in a.shapes.split(","):
        for n in [int(x) for x in a.sizes.split(",")]:
            cap = os.path.join(a.work, f"{shape}-{n}.csv")
            if not os.path.exists(cap):
                subprocess.run([sys.executable, gen, SOURCES[shape], str(n), cap], check=True)
            out = os.path.join(a.work, "out")
            tools = {"roofline": [a.roofline, "import", cap, "--format", "json", "-o", out + ".json"]}
            if a.compare:
                tools["roofline-compare"] = [a.compare, "import", cap, "--format", "json", "-o", out + "-c.json"]
            if a.per_launch and n <= a.per_launch_max:
                tools["roofline-launch"] = [a.roofline, "import", cap, "--per-launch", "--format", "json",
                                            "-o", out + "-launch.json"]
                if a.compare:
                    tools["compare-launch"] = [a.compare, "import", cap, "--per-launch", "--format", "json",
                                               "-o", out + "-launch-c.json"]
            if baselines:
                tools["pandas-tuned"] = [sys.executable, nersc, cap, "tuned", out + ".csv"]
                tools["polars"] = [sys.executable, nersc, cap, "polars", out + ".csv"]
            got = {t: [] for t in tools}
            for run in range(a.runs):
                for t, cmd in tools.items():
                    before = load()
                    cpu, rss, wall = timed(cmd)
                    got[t].append((cpu, rss))
                    rows.append((shape, n, t, run, cpu, rss, wall, before))
            med = {t: (statistics.median(c for c, _ in v), statistics.median(r for _, r in v)) for t, v in got.items()}
            for t, (cpu, rss) in med.items():
                ratio = lambda b: f"{cpu / med[b][0]:.2f}x" if b in med and not t.startswith("pandas") and t != "polars" else ""
                print(f"{shape:8} {n:>8} {t:16} {cpu:8.2f} {cpu / n * 1e6:9.1f} {rss / 1024:8.0f} "
                      f"{rss * 1024 / n:8.0f} {ratio('pandas-tuned'):>9} {ratio('polars'):>9}", flush=True)
            loads = [r[7] for r in rows if r[0] == shape and r[1] == n]
            print(f"{'':8} {'':>8} (load average before the runs: {min(loads):.1f} to {max(loads):.1f})", flush=True)
            # The two builds' documents of the last run, byte for byte.
            for t, suffix in (("roofline-compare", ""), ("compare-launch", "-launch")):
                if t in tools:
                    same = filecmp.cmp(f"{out}{suffix}.json", f"{out}{suffix}-c.json", shallow=False)
                    print(f"{'':8} {'':>8} {'--per-launch' if suffix else 'plain'} documents of both builds: "
                          f"{'the same bytes' if same else 'DIFFERENT'}", flush=True)
    if a.out:
        with open(a.out, "w") as f:
            f.write("shape,launches,tool,run,cpu_s,max_rss_kib,wall_s,load_1min\n")
            for r in rows:
                f.write(",".join(str(x) for x in r) + "\n")


if __name__ == "__main__":
    main()
