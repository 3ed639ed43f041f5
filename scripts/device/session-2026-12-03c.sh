#!/usr/bin/env bash
# One device call (2026-12-03, third session), issue 26:
#  1. which regular expressions ncu's --kernel-name takes: pass 2's filter
#     with stand-ins is "every name but the steady kernels left out", a
#     negative lookahead (scripts/device/ncu-regex-probe.sh);
#  2. `roofline profile` end to end on ResNet-50 (cudnn.benchmark, bf16,
#     channels_last) and GPT-2 training (scripts/device/steady-check.sh,
#     default plans), to see the kernels cuDNN picks under ncu stand in for
#     the planned ones that never run there.
#
#   bash scripts/device/session-2026-12-03c.sh   # on the device, from the repository root
#   SESSION_PROBE=0 bash scripts/device/session-2026-12-03c.sh   # the second call: ResNet-50, JAX, CUDA graphs
#
# Needs .carry/roofline and .carry/libroofline_inject.so. Never changes clocks.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
if [ "${SESSION_PROBE:-1}" = 0 ]; then
  # The second call: the probe's answer is known (the first call's).
  STEADY_ONLY=${SESSION_ONLY:-resnet,jax,graphs} STEADY_BUDGET=none STEADY_TOTAL_S=${SESSION_STEADY_S:-330} \
    bash scripts/device/steady-check.sh > "$OUT/steady.log" 2>&1
  tail -60 "$OUT/steady.log"
  exit 0
fi
bash scripts/device/ncu-regex-probe.sh > "$OUT/regex-probe.txt" 2>&1
cat "$OUT/regex-probe.txt"
# The lookahead filter must have profiled beta and gamma and not alpha.
first=$(sed -n '/^== filter/{n;:a;/^exit/q;p;n;ba}' "$OUT/regex-probe.txt")
if ! { grep -q beta_kernel <<< "$first" && grep -q gamma_plain <<< "$first" && ! grep -q alpha_kernel <<< "$first"; }; then
  echo "ncu did not take the negative lookahead as expected: the profiles are not run"
  exit 3
fi
STEADY_ONLY=${SESSION_ONLY:-resnet,gpt2} STEADY_BUDGET=none STEADY_TOTAL_S=${SESSION_STEADY_S:-330} \
  bash scripts/device/steady-check.sh > "$OUT/steady.log" 2>&1
tail -60 "$OUT/steady.log"
