#!/usr/bin/env bash
# Issue 25's before/after pairs in one device call: for each pair of
# examples/external/pairs.py, `ncu` (the tool's own metric list) of one
# "before" call, one capture per pair; then the timings of both sides (CUDA
# events, interleaved, 40 repetitions). scripts/pairs_predict.py then turns
# the captures into the tool's predicted savings, here on the CPU.
#
#   bash scripts/device/pairs.sh          (from the repository root on the device)
#
# Output: $OUT/pairs.tar.gz (pairs/<name>.csv, timings.tsv, env.txt, logs).
# Never changes clocks: --clock-control none.
set -u
OUT=${OUT:-/tmp/out}
W=/tmp/pairs
rm -rf "$W"; mkdir -p "$W/pairs" "$OUT"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active --format=csv > "$W/env.txt"
ncu --version | tail -1 >> "$W/env.txt"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' >> "$W/env.txt" 2>&1
OURS=$(grep -v '^#' crates/ncu/metrics/sm90.txt | grep -v '^$' | paste -sd,)
# PAIR_SIDES="before after" also captures one "after" call (<pair>.after.csv),
# so that the GPU time saved is read from counters on both sides.
for p in ${PAIRS:-fused_adamw vocab_pad compiled_chain gelu_epilogue autocast_casts channels_last}; do
  for side in ${PAIR_SIDES:-before}; do
    suffix=""; [[ $side == after ]] && suffix=".after"
    t0=$(date +%s)
    timeout -k 10 "${PAIR_LIMIT_S:-150}" ncu --metrics "$OURS" --csv --page raw --print-units base --clock-control none \
      --profile-from-start off --launch-count 800 --log-file "$W/pairs/$p$suffix.csv" \
      python3 examples/external/pairs.py --window "$side" --only "$p" > "$W/$p$suffix.log" 2>&1
    echo "$p ($side): ncu exit $? in $(( $(date +%s) - t0 )) s, $(grep -c '^"[0-9]' "$W/pairs/$p$suffix.csv") launches" | tee -a "$W/summary.txt"
  done
done
timeout "${PAIR_TIMINGS_S:-200}" python3 examples/external/pairs.py --reps 40 ${PAIRS:+--only "${PAIRS// /,}"} > "$W/timings.tsv" 2> "$W/timings.err"
echo "timings exit $?" | tee -a "$W/summary.txt"
cut -f1-9 "$W/timings.tsv"
(cd "$W" && tar czf "$OUT/pairs.tar.gz" .)
