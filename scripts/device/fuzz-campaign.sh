#!/usr/bin/env bash
# Runs the fuzz campaigns of issue 16 on a lent machine's CPU cores (the
# GPU is not used): the csv_reader and chart targets, built here with
#   cargo fuzz build -s none --release --no-trace-compares TARGET
# and stripped into .carry/fuzz/TARGET, over the corpus that fuzz/seed.sh
# writes (carried as fuzz/corpus). Same libFuzzer options as fuzz/run.sh,
# in fork mode with one process per core but one.
#
#   SECONDS_PER_TARGET=240 scripts/device/fuzz-campaign.sh
#
# Writes $OUT/fuzz.tgz (logs, campaign lines, any artifact) and prints one
# fuzz/campaigns.log line per target.
set -u
OUT=${OUT:-/tmp/out}
W=${WORK:-/tmp/fuzz-campaign}
seconds=${SECONDS_PER_TARGET:-240}
rm -rf "$W"; mkdir -p "$W" "$OUT"
ROOT=$PWD
jobs=$(( $(nproc) - 1 ))
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  echo "cores $(nproc), forks $jobs"
  grep -m1 "model name" /proc/cpuinfo
  free -g | head -2
} > "$W/env.txt"
cat "$W/env.txt"
for target in csv_reader chart; do
  case $target in
    csv_reader) max_len=8192 ;;
    chart) max_len=65536 ;;
  esac
  mkdir -p "$W/corpus/$target" "$W/artifacts/$target"
  cp -r "$ROOT/fuzz/corpus/$target/." "$W/corpus/$target/"
  log=$W/$target.log
  started=$(date -u +%FT%TZ)
  status=0
  "$ROOT/.carry/fuzz/$target" "$W/corpus/$target" \
    -max_len="$max_len" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -fork="$jobs" -artifact_prefix="$W/artifacts/$target/" \
    > "$log" 2>&1 || status=$?
  # Fork mode: the parent's last status line carries the total executions.
  runs=$(grep -o '^#[0-9]*: cov' "$log" | tail -1 | grep -o '[0-9]*' || true)
  crashes=$(find "$W/artifacts/$target" -type f | wc -l)
  echo "$started target=$target seconds=$seconds jobs=$jobs flags=--no-trace-compares machine=lent-h200-host-cpu executions=${runs:-0} exit=$status artifacts=$crashes log=$target.log" |
    tee -a "$W/campaigns.log"
  tail -3 "$log"
done
rm -rf "$W/corpus"
tar -czf "$OUT/fuzz.tgz" -C "$W" .
