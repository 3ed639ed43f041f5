#!/usr/bin/env bash
# The current binary on programs nobody here wrote, in one device call
# (< 6 minutes): BabelStream and the PyTorch corpus through `roofline profile`,
# then `report`, `check --baseline` and `diff` of what it wrote, so that the
# thresholds and readers changed since the corpus was captured
# (tests/fixtures/external/h200-2026-11-30) are checked live, not only on the
# bundled captures.
#
#   bash scripts/device/external-recheck.sh      (from the repository root on the device)
#
# Carried (git-ignored): .carry/roofline (release build) and .peers/BabelStream
# (see build-peers.sh). Every step runs under `timeout`, is logged, and never
# stops the later ones. Never changes clocks: ncu runs with --clock-control none
# (roofline profile passes it). Output: $OUT/external-recheck.tar.gz and
# $OUT/summary.txt, which is also printed last.
set -u
OUT=${OUT:-/tmp/out}
R=$PWD/.carry/roofline
W=/tmp/external-recheck
rm -rf "$W"
mkdir -p "$OUT" "$W"
S=$W/summary.txt
log() { echo "$*" | tee -a "$S"; }
# name, limit (s), then the command: $W/name.out/.err; sets RC.
step() {
  local name=$1 limit=$2 t0
  shift 2
  t0=$(date +%s.%N)
  timeout -s INT -k 15 "$limit" "$@" > "$W/$name.out" 2> "$W/$name.err"
  RC=$?
  log "$name: exit $RC, wall $(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$t0" "$(date +%s.%N)") s (limit $limit s)"
}
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,power.draw,temperature.gpu --format=csv
  command -v ncu && ncu --version | tail -1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  "$R" --version
} > "$W/env.txt" 2>&1
cat "$W/env.txt" >> "$S"

step build_babelstream 240 env BUILD=/tmp/peers-build PEERS="$PWD/.peers" bash scripts/device/build-peers.sh babelstream
BS=$(awk '/^built babelstream / {print $3}' "$W/build_babelstream.out")
if [[ -n $BS && -x $BS ]]; then
  step babelstream_profile 150 "$R" profile --format json -o "$W/babelstream.json" \
    --save-csv "$W/babelstream.csv" -- "$BS" -s $((1 << 26)) -n 2
else
  log "babelstream: did not build (build_babelstream.err)"
fi
step pytorch_profile 240 "$R" profile --ncu-arg --profile-from-start --ncu-arg off --format json \
  -o "$W/pytorch.json" --save-csv "$W/pytorch.csv" -- python3 examples/pytorch/corpus.py

for p in babelstream pytorch; do
  [[ -s $W/$p.json ]] || continue
  step "${p}_report" 60 "$R" report "$W/$p.json" --format table --wide
  step "${p}_report_md" 60 "$R" report "$W/$p.json" --format markdown
  step "${p}_check_self" 60 "$R" check "$W/$p.json" --baseline "$W/$p.json" --max-regression 0
  step "${p}_diff_self" 60 "$R" diff "$W/$p.json" "$W/$p.json"
  # Warnings the new bounds give (duration floor, points above their roof).
  grep -ci "above\|duration" "$W/${p}_profile.err" | sed "s/^/$p: warning lines naming a duration or a point above its roof: /" >> "$S"
done

tar -czf "$OUT/external-recheck.tar.gz" -C /tmp external-recheck
cp "$S" "$OUT/summary.txt"
cat "$S"
