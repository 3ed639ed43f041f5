#!/usr/bin/env bash
# Two things that need the H200 (issues 25 and 26), in one device call:
#  (1) `roofline timeline --records` of four external training loops
#      (examples/external/steady.py: ResNet-50 with cudnn.benchmark, GPT-2,
#      a JAX/XLA MLP with no NVTX library, torch.compile reduce-overhead):
#      the raw pass-1 records, committed (gzipped) as test fixtures for the
#      steady-state detection and the plan's bounds;
#  (2) the BF16 tensor roof: `roofline bench --only tensor.bf16` twice, and
#      cuBLAS GEMMs timed launch by launch (scripts/device/tensor_roof_probe.py),
#      with nvidia-smi sampling clocks, power and throttle reasons every 50 ms.
# Needs .carry/roofline and .carry/libroofline_inject.so. Never changes clocks.
#   bash scripts/device/records-and-roofs.sh      # writes $OUT/records-and-roofs.tar.gz
set -u
R=$PWD
OUT=${OUT:-/tmp/out}
W=/tmp/rr
B=$R/.carry/roofline
export ROOFLINE_INJECT_LIB=$R/.carry/libroofline_inject.so
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 XLA_PYTHON_CLIENT_PREALLOCATE=false TOKENIZERS_PARALLELISM=false
rm -rf "$W"; mkdir -p "$W"/{records,logs} "$OUT"
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,power.limit,power.default_limit,power.max_limit --format=csv
} > "$W/env.txt" 2>&1
cat "$W/env.txt"
for p in resnet50_train gpt2_train jax_mlp_train compiled_graphs_train; do
  t0=$(date +%s.%N)
  timeout -s INT 120 "$B" timeline --records "$W/records/$p" --format json -o "$W/records/$p.timeline.json" \
    -- python3 "$R/examples/external/steady.py" "$p" --steps 3 > "$W/logs/$p.out" 2> "$W/logs/$p.err"
  echo "$p: exit $? in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s" | tee -a "$W/summary.txt"
done
# (2) sampling beside the roofs.
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active,clocks_event_reasons.sw_power_cap,clocks_event_reasons.sw_thermal_slowdown,clocks_event_reasons.hw_slowdown,clocks_event_reasons.hw_thermal_slowdown,clocks_event_reasons.hw_power_brake_slowdown --format=csv,nounits -lms 50 > "$W/smi.csv" 2> "$W/smi.err" &
SMI=$!
sleep 1
for i in 1 2; do
  echo "bench $i start $(date +%s.%N)" >> "$W/marks.txt"
  "$B" bench --only tensor.bf16 --format json -o "$W/bench-$i.json" > "$W/logs/bench-$i.out" 2> "$W/logs/bench-$i.err"
  echo "bench $i end $(date +%s.%N) exit $?" >> "$W/marks.txt"
  sleep 3
done
echo "probe start $(date +%s.%N)" >> "$W/marks.txt"
python3 "$R/scripts/device/tensor_roof_probe.py" > "$W/probe.tsv" 2> "$W/logs/probe.err"
echo "probe end $(date +%s.%N) exit $?" >> "$W/marks.txt"
kill $SMI
cat "$W/marks.txt"
grep -h "tensor.bf16\|TFLOP" "$W"/logs/bench-*.out | head -6
python3 - "$W/probe.tsv" <<'PY'
import sys, statistics as st, collections
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
g = collections.defaultdict(list)
for p, gap, i, t, ms, tf in rows:
    g[(p, gap)].append(float(tf))
for k, v in g.items():
    print(k, "n", len(v), "max %.0f median %.0f min %.0f first8 %s" % (max(v), st.median(v), min(v), [round(x) for x in v[:8]]))
PY
tar -czf "$OUT/records-and-roofs.tar.gz" -C "$W" .
ls -la "$OUT"
