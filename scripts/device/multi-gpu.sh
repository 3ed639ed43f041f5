#!/usr/bin/env bash
# Multi-GPU paths on a lent host with several GPUs: --all-devices and --device N.
# Run from the repository root with the release binary carried in .carry/lead.
set -u
OUT=${OUT:-/tmp/out}
B=$PWD/.carry/lead/roofline
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv | tee "$OUT/env.txt"
echo "=== peaks --all-devices"; "$B" peaks --all-devices --format markdown > "$OUT/peaks-all.md" 2> "$OUT/peaks-all.err"; echo "exit $?"
head -c 1500 "$OUT/peaks-all.md"; cat "$OUT/peaks-all.err"
echo "=== bench --quick --all-devices"; "$B" bench --quick --all-devices -o "$OUT/bench.json" > "$OUT/bench-all.txt" 2> "$OUT/bench-all.err"; echo "exit $?"
ls -la "$OUT"; tail -c 1200 "$OUT/bench-all.err"
echo "=== tour --device 1 --no-ncu"; "$B" tour --device 1 --no-ncu --out-dir /tmp/t1 > "$OUT/tour-dev1.txt" 2> "$OUT/tour-dev1.err"; echo "exit $?"
head -3 "$OUT/tour-dev1.txt"; grep -E "^fusion|done in" "$OUT/tour-dev1.txt"
echo "=== --device 7"; "$B" bench --device 7; echo "exit $?"
