#!/usr/bin/env bash
# report, check and diff of one analysis, each in a process of its own under
# /usr/bin/time -v: exit code, user and system CPU seconds, wall, peak
# resident memory, and the load average at the end of each run (the cores may
# be shared). The outputs stay in OUT_DIR for `cmp` against another build's.
#
#   scripts/bench-readers.sh BINARY OUT_DIR ANALYSIS.json
#
# results/cpu-2026-12-02-readers/ says how the analyses were made (the
# baselines' gen.py, then `roofline import`).
set -uo pipefail
bin=$1 dir=$2 doc=$3
mkdir -p "$dir"
: >"$dir/times.txt"
run() {
    local name=$1
    shift
    /usr/bin/time -v -o "$dir/$name.time" "$@" >"$dir/$name.stdout" 2>"$dir/$name.stderr"
    local rc=$?
    local t="$dir/$name.time"
    printf '%s rc=%s user=%s sys=%s wall=%s maxrss_kb=%s load=%s\n' "$name" "$rc" \
        "$(awk -F': ' '/User time/ {print $2}' "$t")" "$(awk -F': ' '/System time/ {print $2}' "$t")" \
        "$(awk -F': ' '/Elapsed/ {print $2}' "$t")" "$(awk -F': ' '/Maximum resident/ {print $2}' "$t")" \
        "$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$dir/times.txt"
}
run report-csv "$bin" report "$doc" --format csv -o "$dir/report.csv"
run report-json "$bin" report "$doc" --format json -o "$dir/report.json"
run report-table "$bin" report "$doc" --format table
run check "$bin" check "$doc" --min-pct-of-roof 1
run diff "$bin" diff "$doc" "$doc"
