#!/usr/bin/env bash
# One short device call (about 3 minutes on an H200) that checks on the GPU
# what the merged tool changed since the last captures:
#   1. `roofline bench --only l2,lsu,fp16`: the L2 write benchmark's check
#      passes, load-issue points faster than L1 are left out with a note,
#      the FP16 (half2) roof;
#   2. seed000's FP16 loops (`seed000_host 3 fp16`, hfma2_loop with 8 chains)
#      under `roofline profile`, judged against the measured H200 machine:
#      the pure __hfma2 loop's % of the FP16 roof (issue 10, item 4);
#   3. the GPU unit tests of crates/gpu (carried test executable).
# Carried: .carry/roofline, .carry/tests/roofline_gpu-* (cargo test --release
# --no-run -p roofline-gpu). Writes $OUT/verify.tgz and prints a summary.
# Never changes clocks or GPU modes.
set -u
OUT=${OUT:-/tmp/out}
W=${WORK:-/tmp/verify}
rm -rf "$W"; mkdir -p "$W" "$OUT"
ROOT=$PWD
B=$ROOT/.carry/roofline
say() { echo "$*" | tee -a "$W/summary.txt"; }
step() { # name, seconds allowed, command...; output in $W/name.{out,err}
  local name=$1 limit=$2; shift 2
  local t0=$(date +%s.%N) rc
  timeout "$limit" "$@" > "$W/$name.out" 2> "$W/$name.err"; rc=$?
  say "$name: exit $rc, $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s"
  return $rc
}
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw --format=csv
  nvcc --version | tail -1; ncu --version | tail -1
} > "$W/env.txt" 2>&1
cat "$W/env.txt"

nvcc -O3 -arch=sm_90 -lineinfo -o "$W/seed000" examples/kernels/seed000_host.cu > "$W/nvcc.log" 2>&1 &
NVCC_PID=$!
step bench 200 "$B" bench --only l2,lsu,fp16 --format json -o "$W/machine-partial.json"
wait $NVCC_PID && say "seed000 built" || say "seed000 did not build (see nvcc.log)"
if [[ -x $W/seed000 ]]; then
  step seed000_profile 150 "$B" profile --machine data/h200/tour/machine.json --save-csv "$W/seed000_fp16_profile.csv" \
    -o "$W/seed000_fp16.json" -- "$W/seed000" 3 fp16
  cp "$W/seed000_profile.out" "$W/seed000_fp16_table.txt"
fi
for t in "$ROOT"/.carry/tests/roofline_gpu-*; do
  step gpu_tests 240 "$t" --test-threads 1
done

python3 - "$W" <<'PY' | tee -a "$W/summary.txt"
import json, sys, os
w = sys.argv[1]
try:
    m = json.load(open(f"{w}/machine-partial.json"))
    for key, items in m["machine"].items():
        if not isinstance(items, list):
            continue
        for c in items:
            if isinstance(c, dict) and c.get("provenance", {}).get("origin") == "measured":
                rate = c.get("rate", c.get("flops_per_s", c.get("bytes_per_s")))
                print(f'{c.get("name")}: {rate:.4g} ({key}, {c.get("spread", "")})')
    for n in m["machine"].get("notes", []):
        print("note:", n)
except Exception as e:
    print("machine-partial.json:", e)
try:
    a = json.load(open(f"{w}/seed000_fp16.json"))
    for k in a["kernels"]:
        print(f'{k["kernel"]["display_name"]}: {k.get("pct_of_roof")} % of roof ({k.get("compute_roof_name")}), '
              f'{(k.get("diagnosis") or {}).get("position")}')
except Exception as e:
    print("seed000_fp16.json:", e)
PY
grep -E "^test result|FAILED|SKIPPED" "$W/gpu_tests.out" "$W/gpu_tests.err" 2>/dev/null | head -20 | tee -a "$W/summary.txt"
tar -C "$W" -czf "$OUT/verify.tgz" .
cat "$W/summary.txt"
