#!/usr/bin/env bash
# The main job on the lent H200, with and without ncu, plus the GPU tests.
# Run from the repository root on the device machine, with the release
# binary and test executables carried in .carry/lead (see scripts/device/README.md):
#   .carry/lead/roofline, .carry/lead/deps/{cli,roofline_gpu}-* (the CLI's one test binary runs its bench and tour modules)
# Writes everything under $OUT (one tarball plus logs).
set -u
OUT=${OUT:-/tmp/out}
W=/tmp/tourwork
rm -rf "$W"; mkdir -p "$W"
B=$PWD/.carry/lead/roofline
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw,power.limit --format=csv
  nvidia-smi --query-compute-apps=pid,name --format=csv
  which ncu && ncu --version | tail -1
} > "$W/env.txt" 2>&1
cat "$W/env.txt"

run() { # name, then the command
  local name=$1; shift
  local t0=$(date +%s.%N)
  "$@" > "$W/$name.out" 2> "$W/$name.err"
  local rc=$?
  local t1=$(date +%s.%N)
  echo "$name: exit $rc, wall $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s" | tee -a "$W/summary.txt"
}

run tour-ncu "$B" tour --out-dir "$W/tour-ncu"
run tour-events "$B" tour --no-ncu --out-dir "$W/tour-events"
run tour-bundled "$B" tour --bundled --out-dir "$W/tour-bundled"
# The GPU tests, built on the Rust machine (`cargo test --release --no-run`).
export CARGO_BIN_EXE_roofline=$B   # integration tests look the binary up here
for t in .carry/lead/deps/*; do
  case $(basename "$t") in
    cli-*) run test-cli-bench-tour "$t" bench:: tour:: --test-threads 1 ;;
    *) run "test-$(basename "$t" | cut -d- -f1)" "$t" --test-threads 1 ;;
  esac
done
# ncu's own --set full on the same example kernels, for the wall-time ratio.
if command -v ncu >/dev/null; then
  run profile-examples "$B" profile --format json -o "$W/profile-examples.json" -- "$B" tour --run-examples
  run ncu-setfull ncu --set full --csv --page raw --clock-control none --log-file "$W/setfull.csv" "$B" tour --run-examples
fi
cp "$W"/summary.txt "$OUT"/ 2>/dev/null
tar czf "$OUT/tour-h200.tgz" -C "$W" .
echo "=== summary"; cat "$W/summary.txt"
echo "=== tour-ncu (head)"; head -c 6000 "$W/tour-ncu.out"; tail -c 1500 "$W/tour-ncu.err"
echo "=== tour-events (tail)"; tail -c 2500 "$W/tour-events.out"; tail -c 800 "$W/tour-events.err"
for f in "$W"/test-*.err; do echo "=== $f"; tail -c 600 "$f"; tail -c 400 "${f%.err}.out"; done
