#!/usr/bin/env bash
# Which of the tool's metric groups cost Nsight Compute replay passes (issue
# 26: a ResNet-50 step's 156 profiled launches at 22 passes each are over a
# minute). The groups are the comment-headed blocks of crates/ncu/metrics/
# sm90.txt. For the whole list, each group alone and the list without each
# group: the passes ncu reports, and the seconds per profiled launch (20
# launches of scripts/device/passes_probe.cu, the first skipped).
#
#   bash scripts/device/metric-groups.sh      # on the device, from the repository root
#
# Output: $OUT/passes.txt. Never changes clocks (--clock-control none).
set -u
OUT=${OUT:-/tmp/out}
W=${PASSES_WORK:-/tmp/metric-passes}
mkdir -p "$OUT" "$W"
nvcc -O3 -o "$W/probe" scripts/device/passes_probe.cu || exit 1
# group NAME -> file of metrics
awk -v dir="$W" '
  /^#/ { if (body) { g++; body = 0 } ; next }
  /^[[:space:]]*$/ { next }
  { sub(/[[:space:]#].*/, ""); print > (dir "/group" sprintf("%02d", g)); body = 1 }
' crates/ncu/metrics/sm90.txt
ls "$W"/group* > "$W/groups"
grep -v '^#' crates/ncu/metrics/sm90.txt | sed 's/[[:space:]#].*//' | grep -v '^$' > "$W/all"
probe() { # LABEL FILE
  local list t0 t1 out
  list=$(paste -sd, "$2")
  out=$(ncu --clock-control none --metrics "$list" --launch-skip 1 --launch-count 10 "$W/probe" 2>&1 |
    python3 -u -c 'import sys, time
for line in sys.stdin:
    sys.stdout.write(f"{time.time():.3f} {line}")')
  local passes secs
  passes=$(grep -o '[0-9]* passes' <<< "$out" | head -1)
  secs=$(grep 'Profiling' <<< "$out" | awk 'NR == 1 { a = $1 } { b = $1; n = NR } END { if (n > 1) printf "%.3f", (b - a) / (n - 1); else print "-" }')
  printf '%-44s %4s metrics  %-10s %s s/launch\n' "$1" "$(wc -l < "$2")" "${passes:-?}" "$secs"
}
{
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  ncu --version | tail -1
  probe "all" "$W/all"
  for g in $(cat "$W/groups"); do
    head1=$(head -1 "$g")
    probe "only $(basename "$g") ($head1...)" "$g"
    grep -vxF -f "$g" "$W/all" > "$W/without"
    probe "without $(basename "$g")" "$W/without"
  done
} | tee "$OUT/passes.txt"
