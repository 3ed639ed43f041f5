#!/usr/bin/env bash
# `roofline merge` of many rank files, two builds interleaved: each round runs
# every binary once, one after another, under /usr/bin/time -v (wall, user and
# system CPU seconds, peak resident memory), with the load average before each
# run (the cores may be shared) and the merged documents compared at the end.
#
#   scripts/bench-merge-files.sh ROUNDS OUT_PREFIX "BINARY..." RANK_FILE...
#
# BINARY... is one or more `roofline` binaries (quoted, space-separated); the
# rank files are written by the documents crate's example:
#   cargo build --release -p roofline-documents --example ranks
#   target/release/examples/ranks write DIR 256 25000 200 per-launch
# One line per run goes to OUT_PREFIX.runs; binary i's last merge to
# OUT_PREFIX.i.json.
set -euo pipefail
rounds=$1 prefix=$2 bins=$3
shift 3
: >"$prefix.runs"
for r in $(seq 1 "$rounds"); do
    i=0
    for bin in $bins; do
        load=$(cut -d' ' -f1 /proc/loadavg)
        /usr/bin/time -v -o "$prefix.time" "$bin" merge "$@" -o "$prefix.$i.json" 2>"$prefix.err" >/dev/null
        wall=$(awk -F': ' '/Elapsed/ {print $2}' "$prefix.time")
        user=$(awk -F': ' '/User time/ {print $2}' "$prefix.time")
        sys=$(awk -F': ' '/System time/ {print $2}' "$prefix.time")
        rss=$(awk -F': ' '/Maximum resident/ {printf "%.0f", $2/1024}' "$prefix.time")
        cpu=$(echo "$user + $sys" | bc)
        echo "round $r, $bin: wall $wall, CPU $cpu s (user $user, sys $sys), max RSS $rss MiB, load before $load" |
            tee -a "$prefix.runs"
        i=$((i + 1))
    done
done
# The documents differ only in when they were made.
i=0
for bin in $bins; do
    sed -E 's/"created": "[^"]*"/"created": ""/' "$prefix.$i.json" >"$prefix.$i.cmp"
    i=$((i + 1))
done
if [ "$i" -gt 1 ]; then
    cmp "$prefix.0.cmp" "$prefix.1.cmp" && echo "merged documents identical but for their creation time" | tee -a "$prefix.runs"
fi
rm -f "$prefix".*.cmp
