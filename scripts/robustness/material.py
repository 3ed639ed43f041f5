"""The inputs every case draws from, made once per run under SCRATCH/material.

Captures are copied from the repository (data/h200, tests/fixtures); the
documents (analysis, per-launch, machine, merged, model, diff, check,
timeline) are written by the binary under test, so a case reads what this
build writes. The stand-ins replace what needs a GPU:

- `ncu`: a stand-in Nsight Compute (bash) that answers `--version`,
  `--query-metrics` (fails, as without a GPU), `--help` and `--import`, and
  replays a real capture for a profiling run (`--export REPORT --log-file LOG
  ... PROGRAM`), then runs the program. FAKE_NCU picks how the profiling run
  behaves (ok, fail, fail-after-write, noreport, garbage, empty, crash,
  kill9, huge, flood, link-report, sleep, grandchild, ignore); FAKE_QUERY,
  FAKE_HELP and FAKE_IMPORT (hang, fail, garbage, empty) the helper calls;
  FAKE_CAPTURE the capture replayed. It logs to $ROBUST_META/ncu.log and
  touches $ROBUST_META/ncu-started when it sleeps, so a signal case can wait
  for it.
- programs for `timeline` and `profile` (prog/*.sh) that write a
  roofline.records/v1 file into $ROOFLINE_TIMELINE_DIR, as the injection
  library would, and then sleep, fork, ignore signals, crash or exit;
- `fake.so`: any regular file passes as `--inject-lib` (nothing is loaded
  into a program that never calls CUDA).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import shutil
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

RECORD_HEADER = ('{"t":"header","format":"roofline.records/v1","pid":%s,"ppid":1,"exe":"/x","cmdline":["x"],'
                 '"clock":{"cupti_ns":5000000000,"unix_ns":1764480000000000000},"cupti_version":130000,'
                 '"writer":"robustness"}')
RECORD_NAME = '{"t":"name","id":1,"s":"_Z6vecaddPKfS0_Pfi"}'
RECORD_KERNEL = ('{"t":"kernel","name":1,"start":5000100000,"end":5000101000,"dev":0,"ctx":1,"stream":7,"corr":1,'
                 '"grid":[64,1,1],"block":[256,1,1],"regs":32,"smem_static":0,"smem_dynamic":0}')
RECORD_END = '{"t":"end","reason":"exit","records":3}'


def good_records(pid="4242"):
    return "\n".join([RECORD_HEADER % pid, RECORD_NAME, RECORD_KERNEL, RECORD_END]) + "\n"


# The records a program writes, as the injection library would ($$: the program's pid).
WRITE_RECORDS = ('d="$ROOFLINE_TIMELINE_DIR"\nif [ -n "$d" ]; then cat > "$d/$$.jsonl" <<R\n'
                 + good_records("$$") + "R\nfi\n")
STARTED = '[ -d "$ROBUST_META" ] && touch "$ROBUST_META/prog-started"\n'

PROGRAMS = {
    "records.sh": WRITE_RECORDS,
    "true.sh": "exit 0\n",
    "sleep.sh": WRITE_RECORDS + STARTED + "exec -a robust-prog-sleep sleep 300\n",
    "grand.sh": WRITE_RECORDS + "(exec -a robust-prog-gc sleep 300) &\nnohup sleep 300 >/dev/null 2>&1 &\n"
                "setsid bash -c 'exec -a robust-prog-setsid sleep 300' &\n" + STARTED + "sleep 300\n",
    "ignore.sh": "trap '' INT TERM HUP QUIT USR1\n" + WRITE_RECORDS + STARTED + "while :; do sleep 1; done\n",
    "bg-exit.sh": WRITE_RECORDS + "(exec -a robust-prog-bg sleep 30) &\nsetsid bash -c 'exec -a robust-prog-setsid sleep 31' &\nexit 0\n",
    "segv.sh": WRITE_RECORDS + "kill -SEGV $$\n",
    "exit7.sh": WRITE_RECORDS + "exit 7\n",
    "spew.sh": "head -c 200000000 /dev/zero | tr '\\0' y\n",
}

NCU = r'''#!/bin/bash
# Stand-in Nsight Compute for the robustness harness (see material.py).
cap="${FAKE_CAPTURE:-__SEED__}"
meta="$ROBUST_META"
note() { [ -d "$meta" ] && echo "$*" >> "$meta/ncu.log"; }
started() { [ -d "$meta" ] && touch "$meta/ncu-started"; }
case "$1" in
  --version) echo "NVIDIA (R) Nsight Compute Command Line Profiler"; echo "Version 2026.1.0.0 (build 1) (public-release)"; exit 0;;
  --query-metrics) note "query $$"; [ "$FAKE_QUERY" = hang ] && { started; exec -a robust-ncu-query sleep 300; }; exit 1;;
  --help) note "help $$"; [ "$FAKE_HELP" = hang ] && { started; exec -a robust-ncu-help sleep 300; }; echo "  --lockstep-kernel-launch"; exit 0;;
  --import)
    note "import $$ $*"
    case "$FAKE_IMPORT" in
      hang) started; exec -a robust-ncu-import sleep 300;;
      fail) echo "==ERROR== cannot read the report" >&2; exit 1;;
      garbage) head -c 200000 /dev/urandom; exit 0;;
      empty) exit 0;;
      *) cat "$2"; exit 0;;
    esac;;
esac
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
note "run $$ log=$log report=$rep program=$*"
write_log() { [ -n "$log" ] && grep '^==' "$cap" > "$log"; }
write_report() { [ -n "$rep" ] && grep -v '^==' "$cap" > "$rep"; }
case "${FAKE_NCU:-ok}" in
  ok) write_log; write_report;;
  fail) [ -n "$log" ] && echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters" >> "$log"; echo "==ERROR== something broke" >&2; exit 7;;
  fail-after-write) write_log; write_report; echo "==ERROR== failed after writing" >&2; exit 1;;
  noreport) write_log; exit 0;;
  garbage) write_log; head -c 100000 /dev/urandom > "$rep";;
  empty) : > "$rep";;
  crash) write_log; kill -SEGV $$;;
  kill9) kill -9 $$;;
  huge) write_log; { grep -v '^==' "$cap" | head -n 2; yes "$(grep -v '^==' "$cap" | sed -n 3p)" | head -c 200000000; } > "$rep";;
  flood) yes "==PROF== noise" | head -c 50000000; write_log; write_report;;
  link-report) write_log; ln -sf "$ROBUST_OUTSIDE/canary.csv" "$rep"; ln -sf "$ROBUST_OUTSIDE/canary.txt" "$log";;
  sleep) write_log; write_report; started; exec -a robust-ncu-sleep sleep 300;;
  grandchild) write_log; write_report; (exec -a robust-ncu-gc sleep 300) & setsid bash -c "exec -a robust-ncu-setsid sleep 300" & started; exec -a robust-ncu-sleep sleep 300;;
  ignore) trap '' INT TERM HUP QUIT USR1; write_log; write_report; bash -c "trap '' INT TERM HUP QUIT USR1; exec -a robust-ncu-ignore sleep 300" & started; wait; sleep 300;;
esac
"$@"
'''


def parse_capture(text):
    lines = text.splitlines(keepends=True)
    prefix = [l for l in lines if l.startswith("==")]
    rows = list(csv.reader([l for l in lines if not l.startswith("==")]))
    return prefix, rows[0], rows[1], [r for r in rows[2:] if r]


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


class Material:
    def __init__(self, scratch, binary):
        self.dir = os.path.join(scratch, "material")
        self.bin = binary
        self.repo = REPO

    # ------------------------------------------------------------ paths
    def p(self, name):
        return os.path.join(self.dir, name)

    def resolve(self, src):
        src = src.replace("{M}", self.dir)
        return src if os.path.isabs(src) else os.path.join(REPO, src)

    def text(self, name):
        with open(self.p(name), encoding="utf-8") as f:
            return f.read()

    def raw(self, name):
        with open(self.p(name), "rb") as f:
            return f.read()

    def doc(self, name):
        with open(self.p(name), encoding="utf-8") as f:
            return json.load(f)

    # ------------------------------------------------------------ the seed capture, for mutations
    def col(self, name):
        return self.header.index(name)

    def capture(self, mutate=None, units=None, units_row=True, header=None, prefix=None):
        """The seed capture as CSV text, its rows changed by `mutate(rows)`."""
        rows = [list(r) for r in self.rows]
        if mutate:
            mutate(rows)
        return write_capture(self.prefix if prefix is None else prefix, self.header if header is None else header,
                             self.units if units is None else units, rows, units_row)

    # ------------------------------------------------------------ making it
    def make(self):
        if os.path.isdir(self.dir):
            shutil.rmtree(self.dir)
        os.makedirs(self.dir)
        copies = {
            "seed.csv": "data/h200/ncu_seed000.csv",
            "gemms.csv": "data/h200/ncu_gemms.csv",
            "babel.csv": "tests/fixtures/external/h200-2026-11-30/babelstream_profile.csv",
            "pytorch.csv": "tests/fixtures/external/h200-2026-11-30/pytorch_profile.csv",
            "scaled.csv": "tests/fixtures/ncu/h200_seed000_scaled_units.csv",
            "tour-machine.json": "data/h200/tour/machine.json",
            "measured.json": "tests/fixtures/machines/h200-measured.machine.json",
            "r0.json": "data/ranks/synthetic-2gpu/job.rank0.json",
            "r1.json": "data/ranks/synthetic-2gpu/job.rank1.json",
            "tl0.json": "tests/fixtures/documents/inputs/job.rank0.timeline.json",
            "tl1.json": "tests/fixtures/documents/inputs/job.rank1.timeline.json",
            "model.toml": "tests/fixtures/documents/inputs/seed001_saxpy.toml",
            "check.toml": "tests/fixtures/documents/inputs/roofline-check.toml",
        }
        for dst, src in copies.items():
            shutil.copyfile(os.path.join(REPO, src), self.p(dst))
        with gzip.open(os.path.join(REPO, "tests/fixtures/timeline/train_gpt_h200.timeline.json.gz"), "rt") as f:
            big_tl = json.load(f)
        for key, keep in (("activities", 400), ("ranges", 40)):
            if isinstance(big_tl.get("timeline", {}).get(key), list):
                big_tl["timeline"][key] = big_tl["timeline"][key][:keep]
        with open(self.p("train-tl.json"), "w") as f:
            json.dump(big_tl, f)
        # every raw capture of the repository, and exports that are not raw CSV
        self.real_captures = sorted(
            [os.path.join(REPO, "data/h200", n) for n in os.listdir(os.path.join(REPO, "data/h200")) if n.endswith(".csv")]
            + [os.path.join(REPO, "tests/fixtures/ncu", n) for n in os.listdir(os.path.join(REPO, "tests/fixtures/ncu"))
               if n.endswith(".csv")]
            + [os.path.join(REPO, "tests/fixtures/external/h200-2026-11-30", n)
               for n in os.listdir(os.path.join(REPO, "tests/fixtures/external/h200-2026-11-30")) if n.endswith(".csv")])
        self.not_raw = [os.path.join(REPO, "tests/fixtures/external/h200-2026-11-30", n) for n in (
            "babelstream_plain.txt", "pytorch_plain.tsv", "seed000_fp16_plain.txt", "pytorch_kernels.json",
            "train_gpt_kineto.json.gz")]
        # stand-ins
        os.makedirs(self.p("bin"))
        os.makedirs(self.p("prog"))
        with open(self.p("bin/ncu"), "w") as f:
            f.write(NCU.replace("__SEED__", self.p("seed.csv")))
        os.chmod(self.p("bin/ncu"), 0o755)
        for name, body in PROGRAMS.items():
            with open(self.p(f"prog/{name}"), "w") as f:
                f.write("#!/bin/bash\n" + body)
            os.chmod(self.p(f"prog/{name}"), 0o755)
        with open(self.p("fake.so"), "w") as f:
            f.write("not a shared library: the stand-in programs write their records themselves\n")
        with open(self.p("good.jsonl"), "w") as f:
            f.write(good_records())
        # documents written by the binary under test
        self._tool("import", "seed.csv", "-o", "a.json")
        self._tool("import", "gemms.csv", "-o", "b.json")
        self._tool("import", "seed.csv", "--per-launch", "-o", "pl.json")
        self._tool("peaks", "--gpu", "h200", "-o", "m.json")
        self._tool("merge", "r0.json", "r1.json", "-o", "mg.json")
        self._tool("merge", "tl0.json", "tl1.json", "-o", "tmg.json")
        self._tool("model", "--gpu", "h200", "-k", "k1: flops=1e9 bytes=1e9 time=1ms",
                   "-k", "k2: flops=1e12 bytes=1e6 time=2ms", "-o", "model.json")
        self._tool("diff", "a.json", "b.json", "-o", "d.json")
        self._tool("check", "a.json", "--min-pct-of-roof", "1", "-o", "c.json", ok=(0, 1))
        self._tool("timeline", "--inject-lib", self.p("fake.so"), "-o", "t.json", "--", self.p("prog/records.sh"))
        with open(self.p("seed.csv"), encoding="utf-8") as f:
            self.prefix, self.header, self.units, self.rows = parse_capture(f.read())
        return self

    def _tool(self, *args, ok=(0,)):
        env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
        r = subprocess.run([self.bin, *args, "-q"], cwd=self.dir, capture_output=True, env=env,
                           stdin=subprocess.DEVNULL, timeout=300)
        if r.returncode not in ok:
            sys.exit(f"material: `roofline {' '.join(args)}` exited {r.returncode}: "
                     f"{r.stderr.decode('utf-8', 'replace')[-800:]}")
