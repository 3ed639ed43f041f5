#!/usr/bin/env bash
# What the diagnosis counters of issue 10 cost, and whether ncu takes them,
# on the device machine (the H200):
#
#   scripts/device/metric-passes.sh
#
# 1. builds seed000 (examples/kernels/seed000_host.cu) with nvcc;
# 2. filters crates/ncu/metrics/sm90.txt as `roofline profile` does (names
#    `ncu --query-metrics` does not know are dropped; launch__ and
#    device__attribute_ names are always kept) and lists what was dropped;
# 3. counts the replay passes ncu reports ("- N passes") on vecadd for the
#    current list, the list of 2026-11-29 (scripts/device/sm90-list-2026-11-29.txt)
#    and --set full, with the wall time of each whole-program run;
# 4. captures all of seed000's kernels with the current list (a fixture for
#    the rules' tests: every counter they read, exact .sum values), and, when
#    .carry/roofline is there, analyses it with and without the bundled
#    machine.
# Writes $OUT/metric-passes.tar.gz and $OUT/summary.txt. Never changes clocks:
# every ncu run has --clock-control none.
set -u
OUT=${OUT:-/tmp/out}
W=$OUT/w
mkdir -p "$W"
exec > >(tee -a "$OUT/summary.txt") 2>&1
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2-$1:.2f}')"; }
echo "== metric passes, $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
ncu --version | tail -1
nvcc -O3 -arch=sm_90 -o /tmp/seed000 examples/kernels/seed000_host.cu || { echo "nvcc failed"; exit 1; }

ncu --query-metrics > "$W/query-metrics.txt" 2>&1
awk '{print $1}' "$W/query-metrics.txt" | grep -E '^[a-z0-9]+__' | sort -u > "$W/known.txt"
filter() {  # list file -> kept names in $2, dropped in $3
  : > "$2"; : > "$3"
  grep -v '^#' "$1" | grep -v '^$' | while read -r m; do
    base=${m%%.*}
    if [[ $m == launch__* || $m == device__attribute_* ]] || grep -qx "$base" "$W/known.txt"; then
      echo "$m" >> "$2"
    else
      echo "$m" >> "$3"
    fi
  done
  grep '^sm__ops_path_tensor_src_' "$W/known.txt" | grep -v sparsity | while read -r b; do
    grep -q "^$b.sum\$" "$2" || { echo "$b.sum"; echo "$b.sum.peak_sustained"; } >> "$2"
  done
}
filter crates/ncu/metrics/sm90.txt "$W/new.txt" "$W/new-dropped.txt"
filter scripts/device/sm90-list-2026-11-29.txt "$W/old.txt" "$W/old-dropped.txt"
echo "current list: $(wc -l < "$W/new.txt") metrics kept, dropped (unknown to this ncu):"; cat "$W/new-dropped.txt"
echo "list of 2026-11-29: $(wc -l < "$W/old.txt") metrics kept"
BASE=(--csv --page raw --print-units base --clock-control none)

passes() {  # label, ncu args...
  local label=$1; shift
  local t0; t0=$(now)
  ncu "$@" -k regex:vecadd -c 1 /tmp/seed000 1 > "$W/passes-$label.txt" 2>&1
  local rc=$?
  echo "$label: exit $rc, $(grep -o '[0-9]* passes' "$W/passes-$label.txt" | head -1), $(secs "$t0" "$(now)") s (one vecadd launch)"
  grep -E '==ERROR==|==WARNING==.*(metric|Metric)' "$W/passes-$label.txt" | head -5
}
passes current --metrics "$(paste -sd, "$W/new.txt")" --clock-control none
passes list-2026-11-29 --metrics "$(paste -sd, "$W/old.txt")" --clock-control none
passes set-full --set full --clock-control none

for label in current:new list-2026-11-29:old; do
  name=${label%%:*}; file=${label##*:}
  t0=$(now)
  ncu "${BASE[@]}" --metrics "$(paste -sd, "$W/$file.txt")" --log-file "$W/seed000-$name.csv" /tmp/seed000 2 > /dev/null 2>&1
  echo "seed000 (24 launches) with the $name list: exit $?, $(secs "$t0" "$(now)") s"
done
t0=$(now)
ncu --set full "${BASE[@]}" --log-file "$W/seed000-full.csv" /tmp/seed000 2 > /dev/null 2>&1
echo "seed000 (24 launches) with --set full: exit $?, $(secs "$t0" "$(now)") s"

if [[ -x .carry/roofline ]]; then
  .carry/roofline import "$W/seed000-current.csv" --format json -o "$W/analysis-counter-peaks.json" 2> "$W/import.stderr"
  echo "import (counter peaks): exit $?"; tail -5 "$W/import.stderr"
  .carry/roofline import "$W/seed000-current.csv" --machine data/h200/tour/machine.json --format json \
    -o "$W/analysis-bundled-machine.json" 2>> "$W/import.stderr"
  echo "import (bundled H200 machine): exit $?"
  .carry/roofline import "$W/seed000-current.csv" --machine data/h200/tour/machine.json 2>/dev/null | tail -40
fi
tar -C "$W" -czf "$OUT/metric-passes.tar.gz" . && echo "packed: $(du -h "$OUT/metric-passes.tar.gz" | cut -f1)"
rm -rf "$W"
