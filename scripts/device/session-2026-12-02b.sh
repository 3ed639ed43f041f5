#!/usr/bin/env bash
# The session's last device call (2026-12-02, second session), in one script:
#  1. the before/after pairs of the two new program-level moves (issue 25):
#     eager attention -> scaled_dot_product_attention, and batch norm folded
#     into its convolution (scripts/device/pairs.sh: ncu of one "before"
#     call each, then CUDA-event timings of both sides);
#  2. Nsight Compute's replay passes for the tool's metric list with and
#     without sm__throughput (the composite SM speed-of-light percentage,
#     which no verdict reads), on scripts/device/passes_probe.cu;
#  3. `roofline profile` end to end on the steady-state programs of issue 26
#     (scripts/device/steady-check.sh: ResNet-50, JAX, GPT-2, CUDA graphs),
#     with the leaner list when it costs fewer passes.
#
#   bash scripts/device/session-2026-12-02b.sh      # on the device, from the repository root
#
# Needs .carry/roofline and .carry/libroofline_inject.so. Never changes clocks.
set -u
START=$(date +%s)
OUT=${OUT:-/tmp/out}
BUDGET=${FINAL_BUDGET_S:-530}
mkdir -p "$OUT"
left() { echo $((BUDGET - ($(date +%s) - START))); }

PAIRS="eager_attention bn_fold" PAIR_LIMIT_S=70 PAIR_TIMINGS_S=60 bash scripts/device/pairs.sh > "$OUT/pairs.log" 2>&1
tail -4 "$OUT/pairs.log"

W=/tmp/final-passes
mkdir -p "$W"
nvcc -O3 -o "$W/probe" scripts/device/passes_probe.cu
grep -v '^#' crates/ncu/metrics/sm90.txt | sed 's/[[:space:]#].*//' | grep -v '^$' > "$W/all"
grep -vx 'sm__throughput.avg.pct_of_peak_sustained_elapsed' "$W/all" > "$W/lean"
passes() { ncu --clock-control none --metrics "$(paste -sd, "$1")" --launch-count 1 "$W/probe" 2>&1 | grep -o '[0-9]* passes' | head -1 | cut -d' ' -f1; }
P_ALL=$(passes "$W/all")
P_LEAN=$(passes "$W/lean")
echo "passes: all $P_ALL, without sm__throughput $P_LEAN" | tee "$OUT/passes.txt"
FLAGS=""
if [ -n "$P_LEAN" ] && [ -n "$P_ALL" ] && [ "$P_LEAN" -lt "$P_ALL" ]; then
  FLAGS="--metrics $(paste -sd, "$W/lean")"
  echo "profile runs use the list without sm__throughput" | tee -a "$OUT/passes.txt"
fi
STEADY_ONLY=resnet,jax,gpt2,graphs STEADY_BUDGET=none STEADY_FLAGS="$FLAGS" STEADY_TOTAL_S=$(left) \
  bash scripts/device/steady-check.sh > "$OUT/steady.log" 2>&1
tail -40 "$OUT/steady.log"
