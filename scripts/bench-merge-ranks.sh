#!/usr/bin/env bash
# The merge of many rank files in a process of its own, timed by
# /usr/bin/time -v: wall, user and system CPU seconds, peak resident memory;
# with the load average before each run (the cores may be shared).
#
#   scripts/bench-merge-ranks.sh BINARY RUNS OUT_PREFIX PATH...
#
# BINARY is target/release/examples/ranks (cargo build --release -p
# roofline-documents --example ranks); PATH... are rank files or folders of them
# (examples/ranks.rs write). The merged JSON of the last run goes to
# OUT_PREFIX.json, the timings to OUT_PREFIX.runs (one line a run).
set -euo pipefail
bin=$1 runs=$2 prefix=$3
shift 3
: >"$prefix.runs"
for i in $(seq 1 "$runs"); do
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    /usr/bin/time -v -o "$prefix.time" "$bin" merge --out "$prefix.json" "$@" >"$prefix.out"
    wall=$(awk -F': ' '/Elapsed/ {print $2}' "$prefix.time")
    user=$(awk -F': ' '/User time/ {print $2}' "$prefix.time")
    sys=$(awk -F': ' '/System time/ {print $2}' "$prefix.time")
    rss=$(awk -F': ' '/Maximum resident/ {printf "%.0f", $2/1024}' "$prefix.time")
    line="run $i: wall $wall, user $user s, sys $sys s, max RSS $rss MiB, load average before $load | $(cat "$prefix.out")"
    echo "$line" | tee -a "$prefix.runs"
done
