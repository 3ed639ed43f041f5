#!/usr/bin/env bash
# `roofline timeline` on the H200, in one go (under 3 minutes):
#  (a) seed000's example program (nvcc): kernel summary vs the program's own CUDA-event timings;
#  (b) a PyTorch training loop (examples/pytorch/train_gpt.py when present, else the stand-in
#      scripts/device/timeline_torch_standin.py): wall time with and without the injection
#      (overhead), per-kernel medians vs PyTorch's profiler (Kineto, a separate run);
#  (c) CUDA-graph replays and two concurrent streams, and the Chrome trace;
#  (d) Ctrl-C (SIGINT to the tool) halfway through a run: the partial timeline is written.
# Run from the repository root on the device machine with, carried in .carry/timeline/:
#   roofline, libroofline_inject.so (cargo build --release: target/release/), and optionally
#   deps/cli-* (cargo test --release -p roofline --test cli --no-run; its timeline::gpu tests run here).
# Writes one tarball and summary.txt under $OUT; prints the summary last.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
C=$PWD/.carry/timeline
B=$C/roofline
W=/tmp/timeline-check
rm -rf "$W"; mkdir -p "$W"
S=$W/summary.txt
START=$(date +%s.%N)
CHECK=$PWD/scripts/device/timeline_check.py
log() { echo "$*" | tee -a "$S"; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$1" "$2"; }

# name, then the command: $W/name.out/.err, sets WALL (s) and RC.
run() {
  local name=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  timeout 90 "$@" > "$W/$name.out" 2> "$W/$name.err"
  RC=$?
  t1=$(date +%s.%N)
  WALL=$(elapsed "$t0" "$t1")
  log "$name: exit $RC, wall $WALL s"
}
# The program's own wall time under the tool, from the document.
program_wall() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['run']['wall_s'])" "$1" 2>/dev/null || echo nan; }
steps_s() { sed -n 's/^steps_s \([0-9.]*\)$/\1/p' "$1" | tail -1; }

{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  nvcc --version | tail -2
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
} > "$W/env.txt" 2>&1
cat "$W/env.txt"
if [ ! -x "$B" ] || [ ! -f "$C/libroofline_inject.so" ]; then
  echo "missing $B or $C/libroofline_inject.so: carry target/release/{roofline,libroofline_inject.so} in .carry/timeline/"
  exit 1
fi

# libcupti for programs that do not bring their own (PyTorch does).
CUPTI=""
for c in /usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13 /usr/local/cuda-13*/extras/CUPTI/lib64/libcupti.so.13; do
  if [ -f "$c" ]; then CUPTI=$c; break; fi
done
[ -z "$CUPTI" ] && CUPTI=$(find /usr/local /opt -name 'libcupti.so.13*' 2>/dev/null | head -1)
TORCH_CUPTI=$(python3 -c 'import glob,os,torch; d=os.path.dirname(os.path.dirname(torch.__file__)); print(" ".join(glob.glob(d+"/nvidia/*/lib/libcupti.so*")))' 2>/dev/null)
log "libcupti (toolkit): ${CUPTI:-none found}; PyTorch's: ${TORCH_CUPTI:-none found}"
CUPTI_ARG=()
[ -n "$CUPTI" ] && CUPTI_ARG=(--cupti "$CUPTI")

# (a) seed000 under the timeline vs its own CUDA events ------------------------------
log "=== (a) seed000_host.cu"
run nvcc-seed000 nvcc -O3 -arch=sm_90 -o "$W/seed000" examples/kernels/seed000_host.cu
if [ -x "$W/seed000" ]; then
  run seed000-plain "$W/seed000" 20
  P1=$WALL
  run seed000-timeline "$B" timeline "${CUPTI_ARG[@]}" -o "$W/seed000.json" -- "$W/seed000" 20
  # The program's stdout (its CUDA-event lines) is on the tool's stderr.
  python3 "$CHECK" seed000 "$W/seed000.json" "$W/seed000-timeline.err" | tee -a "$S"
  python3 "$CHECK" overhead seed000 "$P1" -- "$(program_wall "$W/seed000.json")" | tee -a "$S"
fi

# (b) PyTorch: overhead and Kineto ---------------------------------------------------
log "=== (b) PyTorch"
P=examples/pytorch/train_gpt.py
[ -f "$P" ] || P=scripts/device/timeline_torch_standin.py
log "program: $P"
STEPS=60; WARM=5
run torch-plain-1 python3 "$P" --steps $STEPS --warmup $WARM
PL1=$WALL; SP1=$(steps_s "$W/torch-plain-1.out")
run torch-timeline-1 "$B" timeline -o "$W/torch.json" -- python3 "$P" --steps $STEPS --warmup $WARM
TL1=$(program_wall "$W/torch.json"); ST1=$(steps_s "$W/torch-timeline-1.err")
run torch-plain-2 python3 "$P" --steps $STEPS --warmup $WARM
PL2=$WALL; SP2=$(steps_s "$W/torch-plain-2.out")
run torch-timeline-2 "$B" timeline -o "$W/torch2.json" -- python3 "$P" --steps $STEPS --warmup $WARM
TL2=$(program_wall "$W/torch2.json"); ST2=$(steps_s "$W/torch-timeline-2.err")
run torch-timeline-nolaunch "$B" timeline --no-launch-calls -o "$W/torch-nolaunch.json" -- python3 "$P" --steps $STEPS --warmup $WARM
TL3=$(program_wall "$W/torch-nolaunch.json"); ST3=$(steps_s "$W/torch-timeline-nolaunch.err")
python3 "$CHECK" overhead torch_program_wall "$PL1" "$PL2" -- "$TL1" "$TL2" | tee -a "$S"
if [ -n "$SP1" ] && [ -n "$ST1" ]; then
  python3 "$CHECK" overhead torch_training_steps "$SP1" "$SP2" -- "$ST1" "$ST2" | tee -a "$S"
  python3 "$CHECK" overhead torch_training_steps_no_launch_calls "$SP1" "$SP2" -- "$ST3" | tee -a "$S"
fi
python3 "$CHECK" overhead torch_program_wall_no_launch_calls "$PL1" "$PL2" -- "$TL3" | tee -a "$S"
run torch-kineto python3 "$P" --steps $STEPS --warmup $WARM --kineto "$W/kineto.json"
python3 "$CHECK" kineto "$W/torch.json" "$W/kineto.json" | tee -a "$S"

# (c) CUDA graphs and two streams -------------------------------------------------------
log "=== (c) CUDA graph replays, two streams, Chrome trace"
run graphs "$B" timeline -o "$W/graphs.json" -- python3 scripts/device/timeline_graph_streams.py 30
run graphs-trace "$B" timeline --format trace -o "$W/graphs-trace.json" -- python3 scripts/device/timeline_graph_streams.py 30
python3 "$CHECK" graphs "$W/graphs.json" "$W/graphs-trace.json" | tee -a "$S"

# (d) Ctrl-C halfway -----------------------------------------------------------------------
log "=== (d) Ctrl-C"
# Job control on: a background job of a script would otherwise start with SIGINT ignored,
# unlike a program run from a terminal.
set -m
"$B" timeline -o "$W/ctrlc.json" -- python3 "$P" --steps 100000 --warmup $WARM > "$W/ctrlc.out" 2> "$W/ctrlc.err" &
TP=$!
set +m
sleep 10
T0=$(date +%s.%N)
kill -INT "$TP"
wait "$TP"
RC=$?
T1=$(date +%s.%N)
log "ctrl-c: tool exit $RC, $(elapsed "$T0" "$T1") s after SIGINT"
python3 "$CHECK" ctrlc "$W/ctrlc.json" "$(elapsed "$T0" "$T1")" | tee -a "$S"

# The GPU test, when carried --------------------------------------------------------------
for t in "$C"/deps/cli-*; do
  [ -x "$t" ] || continue
  ROOFLINE_BIN=$B ROOFLINE_CUPTI_LIB=${CUPTI:-} run test-timeline-gpu "$t" timeline::gpu --test-threads 1 --nocapture
done

log "total: $(elapsed "$START" "$(date +%s.%N)") s"
tar czf "$OUT/timeline-h200.tgz" -C "$W" .
cp "$S" "$OUT/"
echo "=== seed000 table (head)"; head -c 3000 "$W/seed000-timeline.out" 2>/dev/null
echo "=== PyTorch table (head)"; head -c 5000 "$W/torch-timeline-1.out"; tail -c 1200 "$W/torch-timeline-1.err"
echo "=== graphs table (head)"; head -c 2500 "$W/graphs.out"
echo "=== ctrl-c (tail)"; tail -c 1500 "$W/ctrlc.err"; head -c 1500 "$W/ctrlc.out"
echo "=== summary"; cat "$S"
