#!/usr/bin/env bash
# ncu's launch counting with CUDA graphs (scripts/device/graph_count.py):
# which kernel --launch-skip-before-match 6 lands on, with graph nodes
# profiled one by one. Output: $OUT/graph-count.txt
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
{
  ncu --version | tail -1
  for mode in node graph; do
    echo "== --graph-profiling $mode --launch-skip-before-match 6 --launch-count 1"
    ncu --clock-control none --graph-profiling $mode --launch-skip-before-match 6 --launch-count 1 \
      --metrics gpu__time_duration.sum --csv --page raw python3 scripts/device/graph_count.py 2>&1 | grep -v "^==PROF==" | cut -c1-400
  done
  echo "== every launch, in order"
  ncu --clock-control none --metrics gpu__time_duration.sum --csv --page raw python3 scripts/device/graph_count.py 2>&1 | grep -v "^==PROF==" | awk -F'","' 'NR>2 {print NR-3, $5}' | cut -c1-120
} > "$OUT/graph-count.txt" 2>&1
cat "$OUT/graph-count.txt"
