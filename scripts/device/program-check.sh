#!/usr/bin/env bash
# `roofline profile` in two passes on the H200 (issue 11, item 2), in one go (< 6 minutes):
#  (a) profile --group-by nvtx (timeline, then ncu on the kernels holding 95% of GPU time, 2 launches per kernel
#      and shape) of examples/pytorch/train_gpt.py, 2 warm-up + 8 steps (~429 launches each:
#      >= 3,000 in the steps), timed (target <= 180 s), counter-backed share (target >= 95%);
#  (b) ncu --set full on the first 40 launches of the same program, timed, extrapolated to all
#      launches (labelled extrapolated);
#  (c) SIGINT to roofline at ~40% of (a)'s time: the partial analysis is written;
#  (d) seed000_host.cu (nvcc): `roofline timeline` vs `roofline tour --no-ncu` (CUDA events),
#      and vs the program's own CUDA events (scripts/device/timeline_check.py).
# PROGRAM_CHECK_ONLY=profile runs (a) alone.
# Run from the repository root with .carry/roofline and .carry/libroofline_inject.so
# (target/release/ of `cargo build --release`). Every step is under `timeout`, recorded, and
# never stops the later ones. One tarball and summary.txt under $OUT; the summary prints last.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
R=$PWD
B=$R/.carry/roofline
W=/tmp/program-check
rm -rf "$W"; mkdir -p "$W"
S=$W/summary.txt
START=$(date +%s.%N)
PC=$R/scripts/device/program_check.py
log() { echo "$*" | tee -a "$S"; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$2"; }
# name, limit (s), then the command: $W/name.out/.err, sets WALL (s) and RC.
run() {
  local name=$1 limit=$2; shift 2
  local t0; t0=$(date +%s.%N)
  timeout -s INT -k 15 "$limit" "$@" > "$W/$name.out" 2> "$W/$name.err"
  RC=$?
  WALL=$(elapsed "$t0" "$(date +%s.%N)")
  log "$name: exit $RC, wall $WALL s (limit $limit s)"
}
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  command -v ncu && ncu --version | tail -1
} > "$W/env.txt" 2>&1
cat "$W/env.txt"
if [ ! -x "$B" ] || [ ! -f "$R/.carry/libroofline_inject.so" ]; then
  log "missing $B or .carry/libroofline_inject.so: carry target/release/{roofline,libroofline_inject.so} in .carry/"
fi
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
PROG=(python3 "$R/examples/pytorch/train_gpt.py" --warmup 2 --steps 8)
log "program: ${PROG[*]}"

# (a) two passes ---------------------------------------------------------------------
log "=== (a) roofline profile (two passes)"
run profile 240 "$B" profile --clock-control none --group-by nvtx --format table -o "$W/profile.json" -- "${PROG[@]}"
A_WALL=$WALL
log "profile wall: $A_WALL s (measured; target <= 180 s)"
grep -E "pass 1/2|pass 2/2: profiling [0-9]+ of|planned kernels profiled" "$W/profile.err" | head -6 | tee -a "$S"
# The progress line's ETA (issue 11 item 5): the first, a middle and the last estimate.
grep -E "left at the pace so far" "$W/profile.err" | sed -n '1p;20p;$p' | tee -a "$S"
python3 "$PC" share "$W/profile.json" | tee -a "$S"
# The program's own wall time in pass 1 ("python3 exited with status 0 after 12.3 s").
P_WALL=$(sed -n 's/.*pass 1\/2: python3 .* after \([0-9.]*\) s.*/\1/p' "$W/profile.err" | head -1)
LAUNCHES=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['program']['launches'])" "$W/profile.json" 2>/dev/null || echo 0)
log "pass 1: program wall ${P_WALL:-?} s under the timeline, $LAUNCHES kernel launches (all 10 steps)"

# PROGRAM_CHECK_ONLY=profile stops here: (a) alone, for a re-check of the profile itself.
if [ "${PROGRAM_CHECK_ONLY:-}" = profile ]; then
  log "total: $(elapsed "$START" "$(date +%s.%N)") s (PROGRAM_CHECK_ONLY=profile: (a) only)"
  tar czf "$OUT/program-check-h200.tgz" -C "$W" . 2>/dev/null
  cp "$S" "$OUT/"
  echo "=== profile stderr (progress lines)"; grep -E "profiled launch" "$W/profile.err" | sed -n '1,5p;60,62p;$p'
  echo "=== summary"; cat "$S"
  exit 0
fi

# (b) ncu --set full on a sample, extrapolated ----------------------------------------
log "=== (b) ncu --set full, 40 launches"
run ncu-full 150 "$NCU" --set full --clock-control none --launch-count 40 -o "$W/full-sample" "${PROG[@]}"
python3 "$PC" extrapolate "$WALL" 40 "${P_WALL:-0}" "$LAUNCHES" | tee -a "$S"

# (c) Ctrl-C at ~40% of (a) -------------------------------------------------------------
log "=== (c) SIGINT to roofline after 40% of (a)"
DELAY=$(python3 -c "import sys; print(max(5.0, 0.4 * float(sys.argv[1])))" "$A_WALL" 2>/dev/null || echo 30)
t0=$(date +%s.%N)
timeout -s KILL 200 "$B" profile --clock-control none --format table -o "$W/ctrlc.json" -- "${PROG[@]}" > "$W/ctrlc.out" 2> "$W/ctrlc.err" &
PID=$!
sleep "$DELAY"
# timeout's child is roofline: signal it, not timeout.
RPID=$(pgrep -P "$PID" | head -1)
kill -INT "${RPID:-$PID}"
wait "$PID"; RC=$?
log "ctrlc: SIGINT after $DELAY s to pid ${RPID:-$PID}; exit $RC, wall $(elapsed "$t0" "$(date +%s.%N)") s"
grep -E "interrupted|planned kernels profiled" "$W/ctrlc.err" | head -4 | tee -a "$S"
if [ -s "$W/ctrlc.json" ]; then log "partial analysis written: $W/ctrlc.json"; python3 "$PC" share "$W/ctrlc.json" | tee -a "$S"; else log "NO partial analysis written"; fi

# (d) seed000: timeline vs tour --no-ncu ----------------------------------------------
log "=== (d) seed000_host.cu"
run nvcc-seed000 120 nvcc -O3 -arch=sm_90 -o "$W/seed000" "$R/examples/kernels/seed000_host.cu"
if [ -x "$W/seed000" ]; then
  CUPTI=$(ls /usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13 2>/dev/null | head -1)
  CUPTI_ARG=(); [ -n "$CUPTI" ] && CUPTI_ARG=(--cupti "$CUPTI")
  run seed000-timeline 60 "$B" timeline "${CUPTI_ARG[@]}" -o "$W/seed000.json" -- "$W/seed000" 20
  run tour-no-ncu 90 "$B" tour --no-ncu --out-dir "$W/tour"
  python3 "$PC" tour "$W/seed000.json" "$W/tour/analysis.json" | tee -a "$S"
  [ -f "$R/scripts/device/timeline_check.py" ] && python3 "$R/scripts/device/timeline_check.py" seed000 "$W/seed000.json" "$W/seed000-timeline.err" | tail -3 | tee -a "$S"
fi

log "total: $(elapsed "$START" "$(date +%s.%N)") s (target < 360 s)"
rm -rf "$W/full-sample.ncu-rep"
tar czf "$OUT/program-check-h200.tgz" -C "$W" . 2>/dev/null
cp "$S" "$OUT/"
echo "=== profile table (head)"; head -c 4000 "$W/profile.out"
echo "=== profile stderr (tail)"; tail -c 1500 "$W/profile.err"
echo "=== ctrl-c stderr (tail)"; tail -c 1000 "$W/ctrlc.err"
echo "=== summary"; cat "$S"
