#!/usr/bin/env bash
# External programs for issue 25's independent grading and issue 29's
# fixtures, in one device call. For each program of examples/external/
# programs.py (torchvision, transformers, timm, torch.compile/Triton, CuPy,
# JAX): a plain run with torch.profiler's shape-recording trace of the
# measured step, then `ncu --set full` plus the extra metrics of the corpus
# (results/h200-corpus-2026-11-30/extra.txt), the tool's own list
# (crates/ncu/metrics/sm90.txt) and shared-memory atomics, over the program's
# profiled windows only (--profile-from-start off), as a raw CSV. Then the
# before/after pairs of examples/external/pairs.py: their timings (CUDA
# events, interleaved) and `ncu --set full` of one "before" call each.
#
#   GRADING_ONLY=programs,pairs bash scripts/device/grading.sh
#
# Output: $OUT/grading-{env,programs,pairs}.tar.gz and $OUT/summary.txt.
# Never changes clocks: every ncu run has --clock-control none.
set -u
START=$(date +%s.%N)
ROOT=$PWD
OUT=${OUT:-/tmp/out}
W=${GRADING_WORK:-/tmp/grading}
BUDGET=${GRADING_BUDGET_S:-560}
RESERVE=${GRADING_RESERVE_S:-20}
ONLY=${GRADING_ONLY:-programs,pairs}
PROGRAMS=${GRADING_PROGRAMS:-resnet50_train gpt2_train vit_infer compiled_mlp_train cupy_mix jax_mlp_train}
PACK_PREFIX=grading
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 XLA_PYTHON_CLIENT_PREALLOCATE=false TOKENIZERS_PARALLELISM=false
rm -rf "$W"
mkdir -p "$OUT" "$W"/{logs,env,captures,traces,pairs}
SUMMARY=$W/summary.txt
: > "$SUMMARY"
# shellcheck source=scripts/device/steps.sh
source "$ROOT/scripts/device/steps.sh"

{
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.draw,power.limit,temperature.gpu --format=csv
  nvidia-smi --query-gpu=clocks_throttle_reasons.active,clocks_throttle_reasons.sw_power_cap,clocks_throttle_reasons.hw_slowdown,clocks_throttle_reasons.sw_thermal_slowdown --format=csv 2>&1
  ncu --version | tail -1
  python3 -c 'import torch, torchvision, timm, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "torchvision", torchvision.__version__, "timm", timm.__version__, "transformers", transformers.__version__)' 2>&1
  python3 -c 'import cupy; print("cupy", cupy.__version__)' 2>&1
  python3 -c 'import jax; print("jax", jax.__version__, jax.devices())' 2>&1
  python3 -c 'import triton; print("triton", triton.__version__)' 2>&1
} > "$W/env/env.txt" 2>&1
cat "$W/env/env.txt"
pack env env

# The metric list: set full's sections plus these (names this ncu knew in the
# 2026-11-30 corpus run, the tool's list, shared atomics).
{
  # (the corpus's 305 extra metrics double the passes; set full and these suffice)
  grep -v '^#' crates/ncu/metrics/sm90.txt | grep -v '^$'
  printf '%s\n' l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum \
    l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum \
    sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum \
    smsp__inst_executed_op_shared_atom.sum sm__pipe_fma_type_fp16_cycles_active.sum
} | sed 's/[[:space:]#].*//' | grep -v '^$' | sort -u > "$W/env/metrics.txt"
LIST=$(paste -sd, "$W/env/metrics.txt")
NCU=(ncu --set full --metrics "$LIST" --csv --page raw --print-units base --clock-control none --profile-from-start off)
# The pairs need only durations, FLOPs and bytes: the tool's own list, a few passes.
OURS=$(grep -v '^#' crates/ncu/metrics/sm90.txt | grep -v '^$' | paste -sd,)
NCU_PAIRS=(ncu --metrics "$OURS" --csv --page raw --print-units base --clock-control none --profile-from-start off)
# Launches profiled per program (a cap, ncu's --launch-count): --set full costs
# about 2.6 s a kernel on the H200.
launches() {
  case $1 in
    resnet50_*|gpt2_*) echo 90 ;;
    convnext_*|bert_*) echo 35 ;;
    llama_*|jax_attention_*|cupy_signal) echo 30 ;;
    mobilenet_*|t5_*|swin_*|wav2vec_*|cupy_stats) echo 25 ;;
    regnet_*|dlrm_*|compiled_encoder_*|unet_*) echo 30 ;;
    densenet_*|mixtral_*|fasterrcnn_*|jax_conv_*|cupy_cg|whisper_*|deeplab_*) echo "${GRADING_LAUNCHES:-20}" ;;
    roberta_*|r3d_*|gnn_*|bart_*|cupy_kmeans|triton_kernels|jax_lm_*) echo "${GRADING_LAUNCHES:-25}" ;;
    opt_*|resnext_*|vit_compiled_*|fno_*|cupy_image|jax_mixer_*) echo "${GRADING_LAUNCHES:-25}" ;;
    raft_*|clip_*|cupy_option_mc) echo "${GRADING_LAUNCHES:-25}" ;;
    mamba_*|pointnet_*|cupy_bootstrap|gpytorch_*) echo "${GRADING_LAUNCHES:-25}" ;;
    shufflenet_*|vitmae_*|nerf_*|ppo_*) echo "${GRADING_LAUNCHES:-30}" ;;
    jax_nbody|cupy_knn) echo "${GRADING_LAUNCHES:-25}" ;;
    segformer_*|levit_*|encoder_mlm_*|ssdlite_*) echo "${GRADING_LAUNCHES:-30}" ;;
    jax_spectral_ns|cupy_groupby) echo "${GRADING_LAUNCHES:-25}" ;;
    *) echo 25 ;;
  esac
}

if wanted programs; then
  for p in $PROGRAMS; do
    case $p in cupy_*|jax_*) trace=() ;; *) trace=(--trace "$W/traces/$p.trace.json.gz") ;; esac
    # GRADING_PLAIN=0 leaves out the plain run (and its trace): the ncu run
    # alone shows whether the program works, at half the start-up cost.
    if [[ ${GRADING_PLAIN:-1} == 0 ]]; then
      :
    elif ! step "${p}_plain" 60 python3 examples/external/programs.py "$p" "${trace[@]}"; then
      tail -5 "$W/logs/${p}_plain.err"
      continue # a program that does not run plain is not worth ncu's time
    fi
    if [[ -f $W/logs/${p}_plain.out ]]; then cat "$W/logs/${p}_plain.out"; tail -3 "$W/logs/${p}_plain.err"; fi
    CSV=$W/captures/$p.full.csv step "${p}_ncu" 150 "${NCU[@]}" --launch-count "$(launches "$p")" --log-file "$W/captures/$p.full.csv" \
      python3 examples/external/programs.py "$p"
    rc=$?
    tail -3 "$W/logs/${p}_ncu.err"
    if ((rc >= 128 && rc != 137)) && [[ $(rows "$W/captures/$p.full.csv") == 0 ]]; then
      # ncu crashed (the JAX segfault of issue 26): retry with the tool's own
      # metric list only, which needs far fewer replay passes.
      CSV=$W/captures/$p.ours.csv step "${p}_ncu_ours" 120 "${NCU_PAIRS[@]}" --launch-count "$(launches "$p")" \
        --log-file "$W/captures/$p.ours.csv" python3 examples/external/programs.py "$p"
      tail -3 "$W/logs/${p}_ncu_ours.err"
    fi
  done
  pack programs env captures traces logs summary.txt
fi

# `roofline profile` on the same programs (the binary carried in .carry/),
# its second pass capped so that every program fits the call.
if wanted profiles; then
  mkdir -p "$W/profiles"
  for p in $PROGRAMS; do
    step "${p}_profile" 110 .carry/roofline profile --budget "${GRADING_PROFILE_BUDGET:-40s}" --format json \
      -o "$W/profiles/$p.analysis.json" -- python3 examples/external/programs.py "$p"
    tail -4 "$W/logs/${p}_profile.err"
  done
  pack profiles env profiles logs summary.txt
fi

if wanted pairs; then
  step pairs_time 150 python3 examples/external/pairs.py --reps 30
  cp "$W/logs/pairs_time.out" "$W/pairs/timings.tsv"; cat "$W/pairs/timings.tsv"; tail -3 "$W/logs/pairs_time.err"
  CSV=$W/pairs/before.csv step pairs_ncu 180 "${NCU_PAIRS[@]}" --launch-count 300 --log-file "$W/pairs/before.csv" \
    python3 examples/external/pairs.py --window before
  tail -3 "$W/logs/pairs_ncu.err"
  pack pairs env pairs logs summary.txt
fi
cat "$SUMMARY"
cp "$SUMMARY" "$OUT/summary.txt"
