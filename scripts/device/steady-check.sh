#!/usr/bin/env bash
# `roofline profile` end to end on four external training loops (issue 26),
# each 2 warm-up steps then 3 steps in NVTX ranges "step N"
# (examples/external/steady.py), within 550 s in all:
#  (a) torchvision ResNet-50, cudnn.benchmark, bf16, channels_last;
#  (b) Hugging Face transformers GPT-2 (4 layers);
#  (c) a JAX/XLA MLP step: ncu crashes on JAX programs, so this is the
#      failure path (the timeline's view, exit 1);
#  (d) torch.compile(mode="reduce-overhead"): CUDA graphs;
#  (e) if 70 s are left, GPT-2 again with pass 2 stopped on purpose (SIGINT
#      8 s into it): the timeline's view, exit 1.
# For each: the wall time, the steady state found, the steady-state GPU time
# covered by counters, why counters are missing (if they are), and the top
# five kernels (scripts/device/steady_summary.py).
#
#   bash scripts/device/steady-check.sh            # from the repository root
#   STEADY_ONLY=resnet,jax STEADY_BUDGET=90s bash scripts/device/steady-check.sh
#   STEADY_BUDGET=none bash scripts/device/steady-check.sh   # default plans, and ResNet-50 also with --budget 60s
#
# Needs .carry/roofline and .carry/libroofline_inject.so (target/release/ of
# `cargo build --release`), ncu on PATH, and torch, torchvision, transformers
# and jax installed. Never changes clocks (--clock-control none). Output:
# $OUT/steady-check.tar.gz (analyses, logs, summary) and $OUT/summary.txt.
set -u
START=$(date +%s.%N)
R=$PWD
OUT=${OUT:-/tmp/out}
W=${STEADY_WORK:-/tmp/steady-check}
BUDGET=${STEADY_TOTAL_S:-550}
RESERVE=10
ONLY=${STEADY_ONLY:-resnet,resnet-budget60,gpt2,jax,graphs,stopped}
PASS2_BUDGET=${STEADY_BUDGET:-60s}
B=${ROOFLINE_BIN:-$R/.carry/roofline}
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 XLA_PYTHON_CLIENT_PREALLOCATE=false TOKENIZERS_PARALLELISM=false
[ -f "$R/.carry/libroofline_inject.so" ] && export ROOFLINE_INJECT_LIB=$R/.carry/libroofline_inject.so
rm -rf "$W"
mkdir -p "$OUT" "$W"/{logs,analyses}
SUMMARY=$W/summary.txt
: > "$SUMMARY"
PACK_PREFIX=steady
# shellcheck source=scripts/device/steps.sh
source "$R/scripts/device/steps.sh"

{
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw --format=csv
  command -v ncu && ncu --version | tail -1
  python3 -c 'import torch, torchvision, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "torchvision", torchvision.__version__, "transformers", transformers.__version__)' 2>&1
  python3 -c 'import jax; print("jax", jax.__version__, jax.devices())' 2>&1
  "$B" --version
} > "$W/env.txt" 2>&1
cat "$W/env.txt"
if [ ! -x "$B" ]; then
  say "missing $B: carry target/release/{roofline,libroofline_inject.so} in .carry/"
fi

# profile KEY PROGRAM MAX_S [FLAGS...]: one end-to-end profile, summarised.
profile() {
  local key=$1 prog=$2 max=$3
  shift 3
  wanted "$key" || return 0
  # roofline's own --timeout a little under the step's, so that it writes the analysis itself.
  local lim
  lim=$(left)
  ((lim > max)) && lim=$max
  local own=$((lim - 10))
  ((own < 10)) && own=10
  local t0 rc
  t0=$(now)
  # shellcheck disable=SC2086 # STEADY_FLAGS is a list of flags on purpose
  step "$key" "$max" "$B" profile --clock-control none --timeout "${own}s" ${STEADY_FLAGS:-} "$@" \
    -o "$W/analyses/$key.json" -- python3 "$R/examples/external/steady.py" "$prog" --steps 3
  rc=$?
  local wall
  wall=$(since "$t0")
  "$B" report --format table "$W/analyses/$key.json" > "$W/analyses/$key.txt" 2> /dev/null
  grep -E "steady state:|pass 2/2: (profiling [0-9]+ of|about)|planned kernels profiled|counters missing|in their place" "$W/logs/$key.err" | head -8 >> "$SUMMARY"
  python3 "$R/scripts/device/steady_summary.py" "$key" "$W/analyses/$key.json" "$wall" "$rc" | tee -a "$SUMMARY"
  [ -s "$W/analyses/$key.json" ] || tail -3 "$W/logs/$key.err" | tee -a "$SUMMARY"
  echo >> "$SUMMARY"
}

# STEADY_BUDGET=none: the default plan (95% coverage), no --budget.
budget_flags=(--budget "$PASS2_BUDGET")
[ "$PASS2_BUDGET" = none ] && budget_flags=()
profile resnet resnet50_train 150 "${budget_flags[@]}"
# ResNet-50 once more under a budget, when the run above had none.
[ "$PASS2_BUDGET" = none ] && profile resnet-budget60 resnet50_train 110 --budget 60s
profile gpt2 gpt2_train 130 "${budget_flags[@]}"
profile jax jax_mlp_train 90 "${budget_flags[@]}"
profile graphs compiled_graphs_train 150 "${budget_flags[@]}"
# (e) pass 2 stopped on purpose: SIGINT to roofline 8 s into pass 2.
if wanted stopped; then
  if (($(left) < 70)); then
    record stopped skip - "not run: under 70 s of the ${BUDGET}s budget left"
  else
    say "stopped: GPT-2, SIGINT 8 s into pass 2"
    lim=$(left)
    ((lim > 110)) && lim=110
    t0=$(now)
    timeout -k 15 -s INT "$lim" "$B" profile --clock-control none -o "$W/analyses/stopped.json" \
      -- python3 "$R/examples/external/steady.py" gpt2_train --steps 3 > "$W/logs/stopped.out" 2> "$W/logs/stopped.err" &
    pid=$!
    for _ in $(seq 1 90); do
      grep -q "pass 2/2: profiling .* with" "$W/logs/stopped.err" 2> /dev/null && break
      kill -0 "$pid" 2> /dev/null || break
      sleep 1
    done
    sleep 8
    kill -INT "$pid" 2> /dev/null
    wait "$pid"
    rc=$?
    wall=$(since "$t0")
    record stopped "$rc" "$wall" "SIGINT in pass 2 (expect exit 1 and every steady kernel without counters)"
    grep -E "steady state:|counters missing" "$W/logs/stopped.err" | head -3 >> "$SUMMARY"
    python3 "$R/scripts/device/steady_summary.py" stopped "$W/analyses/stopped.json" "$wall" "$rc" | tee -a "$SUMMARY"
  fi
fi

say "total $(since "$START") s (budget ${BUDGET}s)" | tee -a "$SUMMARY"
pack check env.txt analyses logs summary.txt
cat "$SUMMARY"
