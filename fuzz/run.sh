#!/usr/bin/env bash
# Runs one fuzz campaign on stable Rust (no sanitizer: `-s none`) and
# appends its figures to fuzz/campaigns.log (or $FUZZ_LOG):
#
#   fuzz/run.sh TARGET SECONDS [JOBS]
#
# TARGET is csv_reader, documents, units or kernel_spec (see README.md).
# The corpus (fuzz/corpus/TARGET) is seeded by fuzz/seed.sh; a crash stops
# the campaign, leaves its input in fuzz/artifacts/TARGET and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?target}
seconds=${2:?seconds}
jobs=${3:-1}
case $target in
  csv_reader) max_len=8192 ;;
  documents) max_len=65536 ;;
  *) max_len=4096 ;;
esac
[ -d "fuzz/corpus/$target" ] || fuzz/seed.sh
mkdir -p "fuzz/artifacts/$target" fuzz/logs
log="fuzz/logs/$target-$(date -u +%Y%m%dT%H%M%SZ).log"
status=0
if [ "$jobs" -gt 1 ]; then
  fork=(-fork="$jobs")
else
  fork=()
fi
cargo fuzz run -s none --release "$target" "fuzz/corpus/$target" -- \
  -max_len="$max_len" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 "${fork[@]}" > "$log" 2>&1 || status=$?
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | awk '{s+=$1} END {print s+0}')
[ "$runs" != 0 ] || runs=$(grep -o '^Done [0-9]* runs' "$log" | grep -o '[0-9]*' | awk '{s+=$1} END {print s+0}')
crashes=$(ls "fuzz/artifacts/$target" | wc -l)
echo "$(date -u +%FT%TZ) target=$target seconds=$seconds jobs=$jobs executions=$runs exit=$status artifacts=$crashes log=$log" | tee -a "${FUZZ_LOG:-fuzz/campaigns.log}"
exit "$status"
