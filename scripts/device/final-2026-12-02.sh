#!/usr/bin/env bash
# The last H200 checks of the 2026-12-02 session, in one device call:
#  (1) the BF16/FP16 tensor roofs by the burst method, twice each, with
#      nvidia-smi sampling (issue 25, item 6);
#  (2) `roofline profile` end to end on the torch.compile CUDA-graph loop and
#      ResNet-50 with the default plan (issue 26; scripts/device/steady-check.sh);
#  (3) `roofline tour --out-dir` with ncu: the tour's bundled data
#      re-captured (issue 26, item 8).
# Needs .carry/roofline and .carry/libroofline_inject.so. Never changes clocks.
# Output: $OUT/final.tar.gz (and steady-check's tarball).
set -u
R=$PWD
OUT=${OUT:-/tmp/out}
W=/tmp/final
B=$R/.carry/roofline
rm -rf "$W"; mkdir -p "$W/logs" "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit --format=csv > "$W/env.txt"
cat "$W/env.txt"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.sw_power_cap,clocks_event_reasons.sw_thermal_slowdown,clocks_event_reasons.hw_thermal_slowdown --format=csv,nounits -lms 100 > "$W/smi.csv" 2>/dev/null &
SMI=$!
for i in 1 2; do
  /usr/bin/time -f "%e s" "$B" bench --only tensor.bf16,tensor.fp16 --format json -o "$W/bench-$i.json" > "$W/logs/bench-$i.out" 2> "$W/logs/bench-$i.err"
  echo "bench $i: exit $? $(tail -1 "$W/logs/bench-$i.err")" | tee -a "$W/summary.txt"
done
kill $SMI
python3 - "$W" <<'PY' | tee -a "$W/summary.txt"
import json, sys
for i in (1, 2):
    d = json.load(open(f"{sys.argv[1]}/bench-{i}.json"))
    for r in d["results"]:
        c = r.get("clock") or {}
        print(f"run {i} {r['id']}: median {r['rate']['median']/1e12:.1f} TFLOP/s (min {r['rate']['min']/1e12:.1f}, max {r['rate']['max']/1e12:.1f}, {r['rate']['samples']} samples), run medians {[round(x/1e12,1) for x in r['run_medians']]}, SM {c.get('sm_mhz_median')} MHz, throttle {c.get('throttle')}")
PY
STEADY_ONLY=graphs,resnet STEADY_BUDGET=none STEADY_TOTAL_S=240 bash scripts/device/steady-check.sh > "$W/logs/steady.out" 2>&1
grep -v "^  counters missing" /tmp/steady-check/summary.txt >> "$W/summary.txt"
timeout -s INT 170 "$B" tour --out-dir "$W/tour" > "$W/logs/tour.out" 2> "$W/logs/tour.err"
echo "tour: exit $?" | tee -a "$W/summary.txt"
ls -la "$W/tour" >> "$W/summary.txt" 2>&1
tar -czf "$OUT/final.tar.gz" -C "$W" .
cat "$W/summary.txt"
