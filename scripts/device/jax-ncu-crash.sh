#!/usr/bin/env bash
# Issue 26: ncu segfaults on some JAX programs (examples/external/programs.py
# jax_mixer_train, jax_lm_train). Which setting avoids the crash? Each variant
# runs the tool's own metric list over the program's window, as pass 2 would.
#   bash scripts/device/jax-ncu-crash.sh   (output: $OUT/jax-ncu-crash.txt)
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/jaxcrash
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
OURS=$(grep -v '^#' crates/ncu/metrics/sm90.txt | grep -v '^$' | sed 's/[[:space:]#].*//' | paste -sd,)
R=$OUT/jax-ncu-crash.txt
: > "$R"
run() {
  local name=$1
  shift
  local t0=$SECONDS
  timeout 100 "$@" > "/tmp/jaxcrash/$name.out" 2> "/tmp/jaxcrash/$name.err"
  local rc=$?
  local rows=0
  [[ -s /tmp/jaxcrash/$name.csv ]] && rows=$(grep -c '^"[0-9]' "/tmp/jaxcrash/$name.csv")
  printf '%-34s exit %3s  %4ss  rows %s\n' "$name" "$rc" "$((SECONDS - t0))" "$rows" | tee -a "$R"
  tail -3 "/tmp/jaxcrash/$name.err" | cut -c1-300 | sed 's/^/    /' >> "$R"
}
NCU=(ncu --metrics "$OURS" --csv --page raw --print-units base --clock-control none --profile-from-start off --launch-count 10)
run plain python3 examples/external/programs.py jax_mixer_train
run ncu_default "${NCU[@]}" --log-file /tmp/jaxcrash/ncu_default.csv python3 examples/external/programs.py jax_mixer_train
XLA_FLAGS=--xla_gpu_enable_command_buffer= run ncu_no_command_buffer "${NCU[@]}" --log-file /tmp/jaxcrash/ncu_no_command_buffer.csv python3 examples/external/programs.py jax_mixer_train
run ncu_graph_whole "${NCU[@]}" --graph-profiling graph --log-file /tmp/jaxcrash/ncu_graph_whole.csv python3 examples/external/programs.py jax_mixer_train
XLA_FLAGS=--xla_gpu_autotune_level=0 run ncu_no_autotune "${NCU[@]}" --log-file /tmp/jaxcrash/ncu_no_autotune.csv python3 examples/external/programs.py jax_mixer_train
cat "$R"
