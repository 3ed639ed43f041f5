#!/usr/bin/env bash
# Captures the Nsight Compute fixtures of roofline-ncu on the device machine.
#
#   scripts/device/capture-ncu.sh capture   # fixtures: seed000 + PyTorch GEMMs
#   scripts/device/capture-ncu.sh e2e       # `roofline profile` vs `ncu --set full`
#
# Runs from the repository root of the copy on the device; finds its inputs in
# $SRC (default .carry/ncu, where the helper copies them) and writes
# everything to $OUT/capture.tar.gz plus $OUT/summary.txt. Never changes
# clocks: every ncu run has --clock-control none.
set -u
SRC=${SRC:-.carry/ncu}
OUT=${OUT:-/tmp/out}
W=$OUT/w
mkdir -p "$W"
exec > >(tee -a "$OUT/summary.txt") 2>&1
phase=${1:-capture}
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2-$1:.2f}')"; }
echo "== phase $phase, $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw --format=csv
ncu --version | tail -1
nvcc --version | tail -1

t0=$(now)
nvcc -O3 -arch=sm_90 -o /tmp/seed000 "$SRC/examples/kernels/seed000_host.cu" || { echo "nvcc failed"; exit 1; }
echo "nvcc: $(secs $t0 $(now)) s"
/tmp/seed000 2 > "$W/seed000_plain.txt" 2>&1; echo "plain run exit $?"; cat "$W/seed000_plain.txt"

# The metric list: the checked-in list for sm_90, less what this ncu does not
# know (launch__ attributes are always there), plus every tensor-core path
# the device has.
ncu --query-metrics > "$W/query-metrics.txt" 2>&1
awk '{print $1}' "$W/query-metrics.txt" | grep -E '^[a-z0-9]+__' | sort -u > "$W/known.txt"
: > "$W/metrics.txt"; : > "$W/dropped.txt"
grep -v '^#' "$SRC/crates/ncu/metrics/sm90.txt" | grep -v '^$' | while read -r m; do
  base=${m%%.*}
  if [[ $m == launch__* ]] || grep -qx "$base" "$W/known.txt"; then echo "$m" >> "$W/metrics.txt"; else echo "$m" >> "$W/dropped.txt"; fi
done
grep '^sm__ops_path_tensor_src_' "$W/known.txt" | while read -r b; do
  grep -q "^$b.sum\$" "$W/metrics.txt" || { echo "$b.sum"; echo "$b.sum.peak_sustained"; } >> "$W/metrics.txt"
done
echo "dropped (not known to this ncu):"; cat "$W/dropped.txt"
echo "tensor paths known:"; grep '^sm__ops_path_tensor' "$W/known.txt" | tr '\n' ' '; echo
LIST=$(paste -sd, "$W/metrics.txt")
echo "metrics: $(wc -l < "$W/metrics.txt")"
BASE=(--csv --page raw --print-units base --clock-control none)

if [[ $phase == rep ]]; then
  R=$SRC/roofline
  ncu --metrics "$LIST" --clock-control none -k 'regex:vecadd|fma_loop' -c 3 -o "$W/seed000" /tmp/seed000 1 > /dev/null 2>&1
  echo "ncu -o exit $?"; ls -la "$W"
  "$R" import "$W/seed000.ncu-rep" --format json -o "$W/rep_import.json" 2> "$W/rep_import.stderr"; echo "import .ncu-rep exit $?"; cat "$W/rep_import.stderr"
  "$R" profile -k regex:fma_loop -c 2 -- /tmp/seed000 1 2>&1 | grep -v "launch [01]:" | head -30
elif [[ $phase == capture ]]; then
  t0=$(now)
  ncu "${BASE[@]}" --metrics "$LIST" --log-file "$W/seed000_metrics.csv" /tmp/seed000 2 > "$W/seed000_metrics.stdout" 2>&1
  echo "ncu --metrics (ours) exit $?: $(secs $t0 $(now)) s"
  t0=$(now)
  ncu --set full "${BASE[@]}" --log-file "$W/seed000_full.csv" /tmp/seed000 2 > "$W/seed000_full.stdout" 2>&1
  echo "ncu --set full exit $?: $(secs $t0 $(now)) s"
  ncu --csv --page raw --clock-control none --metrics "$LIST" -k 'regex:vecadd|fma_loop|matmul_tiled' -c 4 \
    --log-file "$W/seed000_scaled_units.csv" /tmp/seed000 1 > /dev/null 2>&1
  echo "scaled units exit $?"
  ncu "${BASE[@]}" --metrics "$LIST" --log-file "$W/seed000_exit3.csv" /tmp/seed000 1 exit3 > "$W/seed000_exit3.stdout" 2>&1
  echo "exit3 run exit $?"
  export PYTHONUNBUFFERED=1
  t0=$(now)
  ncu "${BASE[@]}" --metrics "$LIST" --nvtx --nvtx-include "gemms/" --log-file "$W/gemms_metrics.csv" \
    python3 "$SRC/examples/pytorch_gemms.py" > "$W/gemms_metrics.stdout" 2>&1
  echo "gemms ncu exit $?: $(secs $t0 $(now)) s"; cat "$W/gemms_metrics.stdout"
  t0=$(now)
  ncu --set full "${BASE[@]}" --nvtx --nvtx-include "gemms/" --log-file "$W/gemms_full.csv" \
    python3 "$SRC/examples/pytorch_gemms.py" > "$W/gemms_full.stdout" 2>&1
  echo "gemms full exit $?: $(secs $t0 $(now)) s"
  for f in "$W"/*.csv; do echo "$(basename "$f"): $(grep -c '^"' "$f") quoted lines, $(wc -c < "$f") bytes"; done
else
  R=$SRC/roofline
  t0=$(now)
  ncu --set full "${BASE[@]}" --log-file "$W/e2e_full.csv" /tmp/seed000 2 > /dev/null 2>&1
  tf=$(secs $t0 $(now)); echo "ncu --set full: $tf s"
  t0=$(now)
  "$R" profile --format json -o "$W/e2e_profile.json" --save-csv "$W/e2e_profile_saved.csv" -- /tmp/seed000 2 > "$W/e2e_profile.stdout" 2> "$W/e2e_profile.stderr"
  echo "roofline profile exit $?"
  tp=$(secs $t0 $(now)); echo "roofline profile: $tp s"
  python3 -c "print(f'ratio profile/full = {$tp/$tf:.3f}')"
  tail -20 "$W/e2e_profile.stderr"
  "$R" import "$W/e2e_full.csv" --format json -o "$W/e2e_full_import.json" 2> "$W/e2e_import.stderr"; echo "import exit $?"
  "$R" profile -- /tmp/seed000 1 exit3 > "$W/e2e_exit3.txt" 2>&1; echo "profile exit3 -> exit $?"; tail -30 "$W/e2e_exit3.txt"
  "$R" profile --nvtx-include "gemms/" --format json -o "$W/e2e_gemms.json" -- python3 "$SRC/examples/pytorch_gemms.py" > /dev/null 2> "$W/e2e_gemms.stderr"; echo "profile gemms exit $?"; tail -8 "$W/e2e_gemms.stderr"
  "$R" import "$W/e2e_full.csv" 2>&1 | head -40
fi
tar -C "$W" -czf "$OUT/capture.tar.gz" . && rm -rf "$W"
ls -la "$OUT"
