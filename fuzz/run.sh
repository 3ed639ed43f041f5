#!/usr/bin/env bash
# Runs one fuzz campaign on stable Rust (no sanitizer: `-s none`) and
# appends its figures to fuzz/campaigns.log (or $FUZZ_LOG):
#
#   fuzz/run.sh TARGET SECONDS [JOBS]
#
# TARGET is csv_reader, import, documents, units, kernel_spec or chart (README.md);
# JOBS > 1 runs libFuzzer's -fork mode with that many processes. Extra
# cargo-fuzz flags come from $FUZZ_FLAGS (for example --no-trace-compares).
# FUZZ_BUILD=dev builds the target in cargo-fuzz's dev mode (`--dev`: no
# optimisation, quick to compile, slower to run) instead of --release: the
# CI smoke (.ci/run) uses it; campaigns keep the default.
# The corpus (fuzz/corpus/TARGET) is seeded by fuzz/seed.sh; a crash stops
# the campaign, leaves its input in fuzz/artifacts/TARGET and exits non-zero.
set -euo pipefail

main() {
  cd "$(dirname "$0")/.."
  local target=${1:?target} seconds=${2:?seconds} jobs=${3:-1} max_len
  case $target in
    csv_reader | import) max_len=8192 ;;
    documents | chart) max_len=65536 ;;
    *) max_len=4096 ;;
  esac
  [ -d "fuzz/corpus/$target" ] || fuzz/seed.sh
  mkdir -p "fuzz/artifacts/$target" fuzz/logs
  local log
  log="fuzz/logs/$target-$(date -u +%Y%m%dT%H%M%SZ).log"
  local build
  case ${FUZZ_BUILD:-release} in
    release) build=--release ;;
    dev) build=--dev ;;
    *) echo "FUZZ_BUILD is release or dev, not ${FUZZ_BUILD}" >&2; return 2 ;;
  esac
  local fork=()
  [ "$jobs" -le 1 ] || fork=(-fork="$jobs")
  local status=0
  # shellcheck disable=SC2086
  cargo fuzz run -s none "$build" ${FUZZ_FLAGS:-} "$target" "fuzz/corpus/$target" -- \
    -max_len="$max_len" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "${fork[@]}" > "$log" 2>&1 || status=$?
  local runs
  if [ "$jobs" -le 1 ]; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
  else
    # Fork mode: the parent's last status line carries the total.
    runs=$(grep -o '^#[0-9]*: cov' "$log" | tail -1 | grep -o '[0-9]*' || true)
  fi
  if grep -q "libFuzzer: run interrupted" "$log"; then
    status=interrupted
  fi
  local crashes
  crashes=$(find "fuzz/artifacts/$target" -type f | wc -l)
  echo "$(date -u +%FT%TZ) target=$target seconds=$seconds jobs=$jobs flags=${FUZZ_FLAGS:-none} build=${build#--} executions=${runs:-0} exit=$status artifacts=$crashes log=$log" |
    tee -a "${FUZZ_LOG:-fuzz/campaigns.log}"
  [ "$status" = interrupted ] && return 130
  return "$status"
}

# The whole script is read before it runs: editing it does not disturb a
# campaign in progress.
main "$@"
exit $?
