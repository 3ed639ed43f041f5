#!/usr/bin/env bash
# The last device call of a session: what the session's merges could have
# broken or were meant to show, in one go (about 8 minutes on an H200 host).
#   tour   the main job on the GPU (`tour` with ncu and `tour --no-ncu`):
#          the seed numbers, the agreement with ncu, the occupancy grid;
#   merge  issue 12's scale target on two cores: 256 synthetic ranks of
#          10,000 launches merged by `roofline merge` and by the ranks
#          example, pinned to cores 0-1 with taskset (the CI machine has 2);
#   fuzz   the csv_reader and chart fuzz targets of the final code, 15
#          processes, FUZZ_SECONDS each (scripts/device/fuzz-campaign.sh).
# Carried: .carry/roofline, .carry/ranks (cargo build --release -p
# roofline-documents --example ranks), .carry/fuzz/{csv_reader,chart} and
# fuzz/corpus. Writes $OUT/final.tgz and prints a summary.
#   PARTS="tour merge fuzz" scripts/device/final-check.sh
# Never changes clocks or GPU modes.
set -u
OUT=${OUT:-/tmp/out}
W=${WORK:-/tmp/final-check}
PARTS=${PARTS:-tour merge fuzz}
rm -rf "$W"; mkdir -p "$W" "$OUT"
ROOT=$PWD
B=$ROOT/.carry/roofline
say() { echo "$*" | tee -a "$W/summary.txt"; }
step() { # name, seconds allowed, command...; output in $W/name.{out,err}
  local name=$1 limit=$2; shift 2
  local t0 rc
  t0=$(date +%s.%N)
  timeout "$limit" "$@" > "$W/$name.out" 2> "$W/$name.err"; rc=$?
  say "$name: exit $rc, $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s"
  return $rc
}
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw --format=csv
  nvcc --version | tail -1; ncu --version | tail -1
  echo "cores $(nproc)"; grep -m1 "model name" /proc/cpuinfo; free -g | head -2
} > "$W/env.txt" 2>&1
cat "$W/env.txt"

if [[ " $PARTS " == *" tour "* ]]; then
  step tour-ncu 240 "$B" tour --out-dir "$W/tour-ncu"
  step tour-events 120 "$B" tour --no-ncu --out-dir "$W/tour-events"
  tail -40 "$W/tour-ncu.out" > "$W/tour-ncu.tail"
fi

if [[ " $PARTS " == *" merge "* ]]; then
  R=/tmp/final-ranks
  rm -rf "$R"; mkdir -p "$R"
  step ranks-write 240 "$ROOT/.carry/ranks" write "$R/per-launch" 256 10000 200 per-launch
  say "rank files: $(ls "$R/per-launch" | wc -l), $(du -sb "$R/per-launch" | cut -f1) bytes"
  for i in 1 2 3; do
    # The user's command, on two cores.
    /usr/bin/time -v -o "$W/merge-cli-$i.time" taskset -c 0,1 "$B" merge "$R"/per-launch/job.rank*.json -o "$W/merged-cli.json" \
      > "$W/merge-cli-$i.out" 2> "$W/merge-cli-$i.err"
    rc=$?
    say "roofline merge (taskset 0,1) run $i: exit $rc, wall $(awk -F': ' '/Elapsed/ {print $2}' "$W/merge-cli-$i.time"), user $(awk -F': ' '/User time/ {print $2}' "$W/merge-cli-$i.time") s, sys $(awk -F': ' '/System time/ {print $2}' "$W/merge-cli-$i.time") s, max RSS $(awk -F': ' '/Maximum resident/ {printf "%.0f", $2/1024}' "$W/merge-cli-$i.time") MiB, load $(cut -d' ' -f1-3 /proc/loadavg)"
  done
  taskset -c 0,1 bash "$ROOT/scripts/bench-merge-ranks.sh" "$ROOT/.carry/ranks" 3 "$W/merge-example" --threads 2 "$R/per-launch" | tee -a "$W/summary.txt"
  cmp -s "$W/merged-cli.json" "$W/merge-example.json" && say "roofline merge and the example wrote the same bytes" || say "roofline merge and the example differ (see the files)"
  say "merged document: $(stat -c %s "$W/merged-cli.json") bytes, sha256 $(sha256sum < "$W/merged-cli.json" | cut -c1-16)"
  rm -f "$W/merge-example.json" "$W/merged-cli.json"
  rm -rf "$R"
fi

if [[ " $PARTS " == *" fuzz "* ]]; then
  OUT=$W/fuzz WORK=/tmp/final-fuzz SECONDS_PER_TARGET=${FUZZ_SECONDS:-120} \
    bash "$ROOT/scripts/device/fuzz-campaign.sh" > "$W/fuzz.out" 2>&1
  grep "target=" "$W/fuzz.out" | tee -a "$W/summary.txt"
fi
tar -czf "$OUT/final.tgz" -C "$W" .
echo "== summary"; cat "$W/summary.txt"
