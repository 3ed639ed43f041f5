#!/usr/bin/env bash
# Where `roofline profile`'s time goes on a ResNet-50 training loop (issue 26:
# at most 90 s, at least 95% of the steady state counter-backed), in one
# device call:
#  (a) `roofline profile` end to end on examples/external/steady.py
#      resnet50_train, every stderr line stamped with the time, so that pass 1,
#      ncu's start, each profiled launch and the end can be told apart;
#  (b) ncu alone on the same program, 6 steady-state batch-norm launches,
#      with the tool's metric list and with only a roofline point's metrics
#      (duration, FLOPs, bytes per level): the replay passes per launch and
#      the seconds per profiled launch of each list.
# Then, if COST_GRADING names programs, scripts/device/grading.sh's captures of
# them (GRADING_ONLY=programs) with the time left.
#
#   COST_GRADING="regnet_train dlrm_train" bash scripts/device/profile-cost.sh
#
# Needs .carry/roofline and .carry/libroofline_inject.so, ncu, torch and
# torchvision. Never changes clocks (--clock-control none). Output:
# $OUT/cost.tar.gz and $OUT/summary.txt (plus grading.sh's tarballs).
set -u
START=$(date +%s.%N)
R=$PWD
OUT=${OUT:-/tmp/out}
W=${COST_WORK:-/tmp/profile-cost}
BUDGET=${COST_TOTAL_S:-570}
RESERVE=10
ONLY=${COST_ONLY:-profile,passes}
B=$R/.carry/roofline
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 TOKENIZERS_PARALLELISM=false
[ -f "$R/.carry/libroofline_inject.so" ] && export ROOFLINE_INJECT_LIB=$R/.carry/libroofline_inject.so
rm -rf "$W"
mkdir -p "$OUT" "$W"/logs
SUMMARY=$W/summary.txt
: > "$SUMMARY"
PACK_PREFIX=cost
# shellcheck source=scripts/device/steps.sh
source "$R/scripts/device/steps.sh"
stamp() { python3 -u -c 'import sys, time
t0 = time.time()
for line in sys.stdin:
    sys.stdout.write(f"{time.time() - t0:8.2f} {line}")'; }

{
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  ncu --version | tail -1
  "$B" --version
} > "$W/env.txt" 2>&1
cat "$W/env.txt"

if wanted profile; then
  t0=$(now)
  timeout -k 10 -s INT 200 "$B" profile --clock-control none --timeout 190s -o "$W/resnet.json" \
    -- python3 "$R/examples/external/steady.py" resnet50_train --steps 3 2>&1 >/dev/null | stamp > "$W/logs/profile.stamped"
  record profile_resnet "${PIPESTATUS[0]}" "$(since "$t0")" "stamped stderr in logs/profile.stamped"
  grep -E "pass 1/2: [0-9]+ kernel launches|pass 2/2: (profiling|about)|profiled launch 1 of|counter-backed|planned kernels profiled" \
    "$W/logs/profile.stamped" | head -12 >> "$SUMMARY"
  tail -1 "$W/logs/profile.stamped" >> "$SUMMARY"
fi

OURS=$(grep -v '^#' crates/ncu/metrics/sm90.txt | sed 's/[[:space:]#].*//' | grep -v '^$' | paste -sd,)
POINT=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum
for op in fadd fmul ffma hadd hmul hfma dadd dmul dfma; do POINT=$POINT,smsp__sass_thread_inst_executed_op_${op}_pred_on.sum; done
POINT=$POINT,sm__inst_executed_pipe_tensor_op_hmma.sum,sm__inst_executed_pipe_tensor_op_gmma.sum
if wanted passes; then
  for list in ours point; do
    m=$OURS
    [ "$list" = point ] && m=$POINT
    t0=$(now)
    timeout -k 10 -s INT 120 ncu --clock-control none --metrics "$m" -k regex:batch_norm --launch-skip 40 --launch-count 6 \
      python3 "$R/examples/external/steady.py" resnet50_train --steps 1 2>&1 | stamp > "$W/logs/passes-$list.stamped"
    record "passes_$list" "${PIPESTATUS[0]}" "$(since "$t0")" "$(grep -c 'Profiling' "$W/logs/passes-$list.stamped") launches"
    grep -E "==PROF== Profiling" "$W/logs/passes-$list.stamped" | head -6 >> "$SUMMARY"
  done
fi
pack cost env.txt logs summary.txt resnet.json
cat "$SUMMARY"
cp "$SUMMARY" "$OUT/summary.txt"

if [ -n "${COST_GRADING:-}" ]; then
  rest=$(left)
  GRADING_ONLY=programs GRADING_PROGRAMS="$COST_GRADING" GRADING_BUDGET_S=$rest GRADING_RESERVE_S=5 \
    bash "$R/scripts/device/grading.sh"
  cat "$SUMMARY" >> "$OUT/summary.txt"
fi
