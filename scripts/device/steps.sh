# Shared by the device scripts (corpus.sh, multi-gpu-peers.sh): timed steps
# under `timeout` within a time budget, one summary line each, and tarballs
# under $OUT. Source it after setting START, W, OUT, SUMMARY, BUDGET, RESERVE
# (and ONLY for `wanted`).
# shellcheck shell=bash disable=SC2034

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
left() { awk -v s="$START" -v n="$(now)" -v b="$BUDGET" -v r="$RESERVE" 'BEGIN { printf "%d", b - r - (n - s) }'; }
wanted() { [[ ,$ONLY, == *,$1,* ]]; }
# Data rows of an ncu raw CSV (rows start with the quoted launch ID).
rows() { if [[ -s $1 ]]; then grep -c '^"[0-9]' "$1"; else echo 0; fi; }
say() { echo "[$(since "$START")s] $*"; }
record() { printf '%-24s %5s %7s  %s\n' "$1" "$2" "$3" "$4" >> "$SUMMARY"; }

# step NAME MAX_S CMD...: CMD under `timeout` (cut to the budget left), its
# stdout/stderr in logs/NAME.{out,err}, one line in the summary (exit code,
# wall seconds, rows of $CSV when set, $NOTE). Returns CMD's exit code.
step() {
  local name=$1 max=$2
  shift 2
  local lim
  lim=$(left)
  ((lim > max)) && lim=$max
  if ((lim < 5)); then
    record "$name" skip - "not run: the ${BUDGET}s budget is spent"
    say "$name: skipped (budget spent)"
    return 99
  fi
  local cmd="$*"
  ((${#cmd} > 300)) && cmd="${cmd:0:300}..."
  say "$name (limit ${lim}s): $cmd"
  local t0 rc dt note=${NOTE:-}
  t0=$(now)
  timeout -k 15 -s INT "$lim" "$@" > "$W/logs/$name.out" 2> "$W/logs/$name.err"
  rc=$?
  dt=$(since "$t0")
  [[ -n ${CSV:-} ]] && note="rows=$(rows "$CSV") $note"
  ((rc == 124 || rc == 137)) && note="TIMED OUT after ${lim}s; $note"
  record "$name" "$rc" "$dt" "$note"
  say "  -> $name: exit $rc in ${dt}s ${note}"
  return $rc
}

# pack GROUP PATTERNS...: one tarball per group under $OUT (patterns relative
# to $W, quoted by the caller), split when over 15 MiB.
pack() {
  local group=$1
  shift
  local tgz=$OUT/${PACK_PREFIX:-corpus}-$group.tar.gz
  # shellcheck disable=SC2068 # the patterns are globbed inside $W on purpose
  (cd "$W" && tar -czf "$tgz" $@) 2>> "$W/logs/pack.err"
  local size
  size=$(stat -c %s "$tgz" 2>/dev/null || echo 0)
  if ((size > 15 * 1024 * 1024)); then
    split -b 15m -d "$tgz" "$tgz.part-" && rm -f "$tgz"
    say "packed $group: $size bytes, split into parts: $(cd "$OUT" && echo "${tgz##*/}".part-*)"
  else
    say "packed $group: $size bytes"
  fi
  cp "$SUMMARY" "$OUT/summary.txt"
}

