#!/usr/bin/env bash
# The ground-floor split (issue 24) on the lent H200: the code that moved
# (GPU features from hw::Arch, the benchmark records in roofline-documents,
# ncu's Capture placed by roofline-analysis, the recorder in
# roofline-timeline) still does on a real GPU what the binary before it did.
#
# Carried in .carry/floor (built on the Rust machine):
#   roofline, libroofline_inject.so     this tree's release build
#   roofline-base                       the release build of 2618db3 (main before this session)
#   deps/roofline_gpu-*, deps/cli-*     `cargo test --release -p roofline-gpu -p roofline --no-run`
# Writes $OUT/floor-check.tgz and $OUT/summary.txt.
set -u
OUT=${OUT:-/tmp/out}
W=/tmp/floorwork
rm -rf "$W"; mkdir -p "$W"
C=$PWD/.carry/floor
B=$C/roofline
A=$C/roofline-base
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw,power.limit --format=csv
  which ncu && ncu --version | tail -1
} > "$W/env.txt" 2>&1
cat "$W/env.txt"
S=$W/summary.txt

run() { # name, then the command
  local name=$1; shift
  local t0 t1 rc
  t0=$(date +%s.%N)
  "$@" > "$W/$name.out" 2> "$W/$name.err"
  rc=$?
  t1=$(date +%s.%N)
  echo "$name: exit $rc, wall $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s" | tee -a "$S"
}

# The GPU unit tests (device, NVRTC sm_90/sm_90a, TMA, cuBLASLt, occupancy
# against the driver) and the CLI's GPU tests (bench, tour, timeline::gpu).
export CARGO_BIN_EXE_roofline=$B ROOFLINE_BIN=$B ROOFLINE_INJECT_LIB=$C/libroofline_inject.so
for t in "$C"/deps/roofline_gpu-*; do run test-gpu "$t" --test-threads 1; done
for t in "$C"/deps/cli-*; do run test-cli-gpu "$t" bench:: tour:: timeline::gpu --test-threads 1; done
grep -h "test result\|SKIPPED" "$W"/test-*.out "$W"/test-*.err | tee -a "$S"

# Live theoretical roofs from the device (arch descriptor, sm_90a target).
run peaks-new "$B" peaks --format json
run peaks-base "$A" peaks --format json
# Measured roofs: the suite the descriptor selects (TMA, tensor kinds).
run bench-new "$B" bench --quick --format json
run bench-base "$A" bench --quick --format json
for f in bench-new bench-base; do
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[1], sorted(r['id'] for r in d['measurements']['results']), [f['id'] for f in d['measurements'].get('failures', [])])" "$W/$f.out" >> "$W/bench-ids.txt" 2>&1
done
cat "$W/bench-ids.txt"
# One live capture of the example kernels, analysed by both binaries: the
# documents must be the same bytes ("created" aside).
run profile-new "$B" profile --save-csv "$W/live.csv" --format json -o "$W/profile-new.json" -- "$B" tour --run-examples
for b in new base; do
  bin=$B; [ $b = base ] && bin=$A
  run import-$b "$bin" import "$W/live.csv" --gpu h200 --format json
  sed -i -E 's/^( *"created": )"[^"]*"/\1"0"/' "$W/import-$b.out"
done
if cmp -s "$W/import-new.out" "$W/import-base.out"; then echo "live capture: import documents identical" | tee -a "$S"; else echo "live capture: import documents DIFFER" | tee -a "$S"; diff "$W/import-base.out" "$W/import-new.out" | head -20 | tee -a "$S"; fi
# The main job, live, and the occupancy calculator against the driver.
run tour-new "$B" tour --out-dir "$W/tour"
run occupancy-verify "$B" occupancy --cc 9.0 --threads 256 --regs 32 --verify-device --grid-csv "$W/occupancy-grid.csv"
tail -3 "$W/tour-new.err" | tee -a "$S"
tail -3 "$W/occupancy-verify.out" | tee -a "$S"
cp "$S" "$OUT/"
tar czf "$OUT/floor-check.tgz" -C "$W" .
