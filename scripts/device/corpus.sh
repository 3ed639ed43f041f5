#!/usr/bin/env bash
# The external corpus in one device call (issues 10 and 17): programs nobody
# here wrote, each captured with `roofline profile` and with `ncu --set full`.
#
#   bash scripts/device/corpus.sh          (from the repository root on the device)
#
# Carried (git-ignored): .carry/roofline (the release binary built on the Rust
# machine) and .peers/ (BabelStream's source, see build-peers.sh). Everything
# else is in the repository: examples/kernels/seed000*.cu, examples/pytorch/
# corpus.py, scripts/device/{build-peers.sh,candidate-metrics.txt}.
#
# Steps, each timed, each under `timeout`, each logged; a failing step never
# stops the others:
#   env        date, GPU name/driver/clocks/power/temperature, ncu/nvcc/torch versions
#   build      BabelStream (build-peers.sh) and seed000_host (nvcc) in the background
#   metrics    ncu --query-metrics (plain and --query-metrics-mode all), ncu --help;
#              candidate-metrics.txt filtered to what this ncu knows, then tried on
#              one kernel (names ncu rejects are dropped)
#   seed000    `seed000 N fp16` (hfma2_loop, hfma_loop, fma_loop, matmul_tiled):
#              plain run, roofline profile, ncu --set full (+candidates) into a
#              .ncu-rep, then exports: raw CSV, SASS source page, metric instances
#   babelstream  plain run (2^26 doubles, its own figures), roofline profile and
#              ncu --set full (+candidates) of `-s 2^26 -n 2`
#   pytorch    corpus.py plain (CUDA-event times, kernel names per op from Kineto),
#              roofline profile and ncu --set full (+candidates, two halves so that a
#              time-out loses only one), all with --profile-from-start off
# Output under $OUT: one tarball per group (corpus-{env,seed000,babelstream,
# pytorch}.tar.gz, made as soon as the group ends, so that a call cut short still
# returns the groups before) and summary.txt, which is also printed last.
#
# Budget: no step starts after CORPUS_BUDGET_S (default 540 s) less a reserve for
# packing, and each step's time-out is cut to what is left, so the call ends well
# inside the device's 600 s per command. CORPUS_ONLY=seed000,babelstream,pytorch
# runs only those groups (env and metrics always run). Never changes clocks: every
# ncu run has --clock-control none.
set -u
START=$(date +%s.%N)
ROOT=$PWD
OUT=${OUT:-/tmp/out}
W=${CORPUS_WORK:-/tmp/corpus}
R=${ROOFLINE:-$ROOT/.carry/roofline}
PEERS=${PEERS:-$ROOT/.peers}
BUDGET=${CORPUS_BUDGET_S:-540}
RESERVE=${CORPUS_RESERVE_S:-25}
ONLY=${CORPUS_ONLY:-seed000,babelstream,pytorch}
BS_SIZE=$((1 << 26))
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
rm -rf "$W"
mkdir -p "$OUT" "$W"/{logs,env,metrics,captures,bin}
SUMMARY=$W/summary.txt
C=$W/captures
BASE=(--csv --page raw --print-units base --clock-control none)
: > "$SUMMARY"

# shellcheck source=scripts/device/steps.sh
source "$ROOT/scripts/device/steps.sh"

# ---------------------------------------------------------------- env
env_info() {
  echo "date: $(date -u +%FT%TZ)"
  echo "host: $(uname -a)"
  echo "cpus: $(nproc); memory: $(free -g 2>/dev/null | awk '/Mem:/ {print $2 " GiB"}')"
  nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,compute_cap,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.draw,power.limit,temperature.gpu,utilization.gpu,memory.used,memory.total --format=csv
  nvidia-smi --query-gpu=clocks_throttle_reasons.active --format=csv 2>/dev/null
  nvidia-smi --query-compute-apps=pid,name,used_memory --format=csv
  nvidia-smi -q -d CLOCK,POWER,TEMPERATURE,PERFORMANCE 2>/dev/null | head -120
  nvidia-smi topo -m 2>/dev/null
  echo "--- ncu"; command -v ncu && ncu --version
  echo "--- nvcc"; command -v nvcc && nvcc --version
  echo "--- cmake"; cmake --version 2>/dev/null | head -1; command -v ninja
  echo "--- python"; python3 -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "nccl", torch.cuda.nccl.version())'
  echo "--- roofline"; ls -la "$R" && "$R" --version
  echo "--- peers"; ls "$PEERS" 2>&1; du -sh "$PEERS" 2>/dev/null
}
export -f env_info
export R PEERS

say "corpus capture: budget ${BUDGET}s, groups $ONLY, work $W, out $OUT"
step env 40 bash -c env_info
cp "$W/logs/env.out" "$W/env/env.txt"
head -12 "$W/env/env.txt"

# ---------------------------------------------------------------- builds (background)
SEED=$W/bin/seed000
BS_PID="" SEED_PID=""
if wanted seed000 || wanted babelstream; then
  # seed000 also serves to check the metric list, so it is built whenever ncu runs.
  step build_seed000 150 nvcc -O3 -arch=sm_90 -lineinfo -o "$SEED" examples/kernels/seed000_host.cu &
  SEED_PID=$!
fi
if wanted babelstream; then
  step build_babelstream 300 env BUILD=/tmp/peers-build PEERS="$PEERS" bash scripts/device/build-peers.sh babelstream &
  BS_PID=$!
fi
if [[ -z $SEED_PID ]] && wanted pytorch; then
  step build_seed000 150 nvcc -O3 -arch=sm_90 -lineinfo -o "$SEED" examples/kernels/seed000_host.cu &
  SEED_PID=$!
fi

# ---------------------------------------------------------------- metrics
M=$W/metrics
query() {
  ncu --query-metrics > "$M/query.txt" 2>&1
  local rc=$?
  ncu --query-metrics --query-metrics-mode all > "$M/query-all.txt" 2>&1 || echo "query-metrics-mode all: exit $?"
  ncu --help > "$W/env/ncu-help.txt" 2>&1
  ncu --list-sets > "$W/env/ncu-sets.txt" 2>&1
  ncu --list-sections > "$W/env/ncu-sections.txt" 2>&1
  return $rc
}
export -f query
export M W
step query 90 bash -c query
# Known names: the first word of each line that looks like a metric.
known() { awk '{print $1}' "$1" 2>/dev/null | grep -E '^[a-z0-9_]+__[a-z0-9_.]+$' | sort -u; }
known "$M/query.txt" | sed 's/\..*//' | sort -u > "$M/known-bases.txt"
known "$M/query-all.txt" > "$M/known-all.txt"
say "ncu knows $(wc -l < "$M/known-bases.txt") base metrics, $(wc -l < "$M/known-all.txt") full names (mode all)"
: > "$M/candidates.txt"
: > "$M/dropped.txt"
grep -v '^#' scripts/device/candidate-metrics.txt | sed 's/[[:space:]]*$//' | grep -v '^$' | while read -r m; do
  base=${m%%.*}
  if grep -qxF "$m" "$M/known-all.txt" || grep -qxF "$base" "$M/known-bases.txt" || [[ $m == launch__* ]]; then
    echo "$m" >> "$M/candidates.txt"
  else
    echo "$m  # not known to this ncu" >> "$M/dropped.txt"
  fi
done
# Hopper units the candidate list may not name: TMA, bulk copies, distributed
# shared memory, wgmma, clusters, NVLink. Each base found gets its .sum.
grep -E 'tma|bulk|dsmem|gmma|cluster|nvl' "$M/known-bases.txt" | while read -r b; do
  if grep -qxF "$b.sum" "$M/known-all.txt" && ! grep -qxF "$b.sum" "$M/candidates.txt"; then
    echo "$b.sum" >> "$M/discovered.txt"
  fi
done
touch "$M/discovered.txt"
head -80 "$M/discovered.txt" >> "$M/candidates.txt"
say "candidates: $(wc -l < "$M/candidates.txt") kept ($(wc -l < "$M/discovered.txt") discovered), $(wc -l < "$M/dropped.txt") dropped"

[[ -n $SEED_PID ]] && wait "$SEED_PID"
[[ -x $SEED ]] && cuobjdump -sass "$SEED" > "$W/captures/seed000.sass" 2>&1

# try LIST_FILE TIER: does ncu accept these metrics on one kernel?
try_metrics() {
  local list
  list=$(paste -sd, "$1")
  [[ -z $list ]] && return 0
  NOTE="tier $2, $(wc -l < "$1") metrics" CSV=$M/validate-$2.csv step "metrics_try_$2" 90 \
    ncu "${BASE[@]}" --metrics "$list" -k regex:hfma_loop -c 1 --log-file "$M/validate-$2.csv" "$SEED" 1 fp16
  local rc=$?
  cat "$W/logs/metrics_try_$2.out" "$W/logs/metrics_try_$2.err" > "$M/validate-$2.log" 2>/dev/null
  ((rc == 0)) && ! grep -q '^==ERROR==' "$M/validate-$2.log" && (($(rows "$M/validate-$2.csv") >= 1))
}
EXTRA=$M/extra.txt
cp "$M/candidates.txt" "$EXTRA"
if [[ ! -x $SEED ]]; then
  say "seed000 did not build: candidates are not checked and not used"
  : > "$EXTRA"
elif ! try_metrics "$EXTRA" 0; then
  # 1: drop every name ncu's messages mention
  grep -oE '[a-z0-9_]+__[a-z0-9_.]+' "$M/validate-0.log" | sort -u > "$M/rejected.txt"
  # a candidate goes when ncu named it or anything with its base
  awk 'FILENAME == ARGV[1] { b = $1; sub(/\..*/, "", b); bad[b] = 1; next } { b = $1; sub(/\..*/, "", b) } !bad[b]' \
    "$M/rejected.txt" "$M/candidates.txt" > "$EXTRA"
  sed 's/$/  # rejected by ncu/' "$M/rejected.txt" >> "$M/dropped.txt"
  if [[ ! -s $M/rejected.txt ]] || ! try_metrics "$EXTRA" 1; then
    # 2: only names this ncu lists verbatim (--query-metrics-mode all), no NVLink or
    # discovered families, launch__ names only from the tool's own list
    # (and nothing ncu named)
    grep -xFf "$M/known-all.txt" "$M/candidates.txt" | grep -vE '^(nvl|sass__)' | grep -vxFf "$M/discovered.txt" |
      grep -vFf "$M/rejected.txt" > "$M/tier2.txt"
    grep -v '^#' crates/ncu/metrics/sm90.txt | grep '^launch__' | grep -xFf - "$M/candidates.txt" >> "$M/tier2.txt"
    cp "$M/tier2.txt" "$EXTRA"
    if ! try_metrics "$EXTRA" 2; then
      say "ncu rejects the candidate lists: --set full runs without extra metrics"
      echo "# all candidates: ncu rejected tiers 0-2 (see validate-*.log)" >> "$M/dropped.txt"
      : > "$EXTRA"
    fi
  fi
fi
EXTRA_ARGS=()
[[ -s $EXTRA ]] && EXTRA_ARGS=(--metrics "$(paste -sd, "$EXTRA")")
say "extra metrics for --set full: $(wc -l < "$EXTRA")"
pack env env metrics logs

# ---------------------------------------------------------------- seed000 FP16 loops
if wanted seed000 && [[ -x $SEED ]]; then
  step seed000_plain 60 "$SEED" 3 fp16
  cp "$W/logs/seed000_plain.out" "$C/seed000_fp16_plain.txt"
  CSV=$C/seed000_fp16_profile.csv step seed000_profile 120 \
    "$R" profile --format json -o "$C/seed000_fp16_profile.json" --save-csv "$C/seed000_fp16_profile.csv" \
    -- "$SEED" 1 fp16
  step seed000_full 150 ncu --set full "${EXTRA_ARGS[@]}" --clock-control none --import-source yes \
    -o "$C/seed000_fp16_full" "$SEED" 1 fp16
  REP=$C/seed000_fp16_full.ncu-rep
  if [[ -s $REP ]]; then
    CSV=$C/seed000_fp16_full.csv step seed000_export_raw 40 \
      bash -c "ncu -i '$REP' --csv --page raw --print-units base > '$C/seed000_fp16_full.csv'"
    # SASS with per-instruction executed counts (source page), tried in the forms this ncu may accept.
    step seed000_export_sass 40 bash -c "ncu -i '$REP' --page source --csv --print-source sass > '$C/seed000_fp16_source_sass.csv'" ||
      step seed000_export_sass2 40 bash -c "ncu -i '$REP' --page source --csv > '$C/seed000_fp16_source.csv'"
    step seed000_export_inst 40 bash -c "ncu -i '$REP' --csv --page raw --print-units base --print-metric-instances values > '$C/seed000_fp16_instances.csv'"
    step seed000_export_inst_d 40 bash -c "ncu -i '$REP' --csv --page raw --print-units base --print-metric-instances details > '$C/seed000_fp16_instances_details.csv'"
    step seed000_export_details 40 bash -c "ncu -i '$REP' --page details --print-units base > '$C/seed000_fp16_details.txt'"
  fi
  pack seed000 'captures/seed000*' logs
elif wanted seed000; then
  record seed000 skip - "seed000_host did not build (logs/build_seed000.err)"
fi

# ---------------------------------------------------------------- BabelStream
if wanted babelstream; then
  wait "$BS_PID"
  BS=$(awk '/^built babelstream / {print $3}' "$W/logs/build_babelstream.out" 2>/dev/null)
  cp /tmp/peers-build/babelstream.log "$W/logs/babelstream-build.log" 2>/dev/null
  if [[ -n $BS && -x $BS ]]; then
    step babelstream_plain 60 "$BS" -s "$BS_SIZE"
    cp "$W/logs/babelstream_plain.out" "$C/babelstream_plain.txt"
    CSV=$C/babelstream_profile.csv step babelstream_profile 120 \
      "$R" profile --format json -o "$C/babelstream_profile.json" --save-csv "$C/babelstream_profile.csv" \
      -- "$BS" -s "$BS_SIZE" -n 2
    CSV=$C/babelstream_full.csv step babelstream_full 180 ncu --set full "${EXTRA_ARGS[@]}" "${BASE[@]}" \
      --log-file "$C/babelstream_full.csv" "$BS" -s "$BS_SIZE" -n 2
  else
    record babelstream skip - "BabelStream did not build (logs/babelstream-build.log)"
  fi
  pack babelstream 'captures/babelstream*' logs
fi

# ---------------------------------------------------------------- PyTorch corpus
if wanted pytorch; then
  PY=examples/pytorch/corpus.py
  step pytorch_plain 120 python3 "$PY" --repeat 3 --kernels "$C/pytorch_kernels.json"
  cp "$W/logs/pytorch_plain.out" "$C/pytorch_plain.tsv"
  CSV=$C/pytorch_profile.csv step pytorch_profile 200 \
    "$R" profile --ncu-arg --profile-from-start --ncu-arg off --format json -o "$C/pytorch_profile.json" \
    --save-csv "$C/pytorch_profile.csv" -- python3 "$PY"
  # --set full in two halves: the CSV comes only when ncu ends, so a time-out loses one half, not all.
  mapfile -t OPS < <(python3 "$PY" --list 2>/dev/null | cut -f1)
  half=0
  for i in "${!OPS[@]}"; do [[ ${OPS[$i]} == embedding_fp32 ]] && half=$i; done
  ((half == 0)) && half=$((${#OPS[@]} / 2))
  A=$(IFS=,; echo "${OPS[*]:0:half}")
  B=$(IFS=,; echo "${OPS[*]:half}")
  for part in a b; do
    [[ $part == a ]] && only=$A || only=$B
    [[ -z $only ]] && continue
    CSV=$C/pytorch_full_$part.csv step "pytorch_full_$part" 300 ncu --set full "${EXTRA_ARGS[@]}" "${BASE[@]}" \
      --profile-from-start off --nvtx --log-file "$C/pytorch_full_$part.csv" python3 "$PY" --only "$only"
  done
  pack pytorch 'captures/pytorch*' logs
fi

# ---------------------------------------------------------------- end
step env_end 20 nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv
wall() { awk -v n="$1" '$1 == n {print $3}' "$SUMMARY"; }
{
  echo
  echo "wall seconds: roofline profile against ncu --set full (+$(wc -l < "$EXTRA") extra metrics), same program and launches"
  for p in seed000 babelstream pytorch; do
    prof=$(wall ${p}_profile)
    if [[ $p == pytorch ]]; then
      full=$(awk '$1 ~ /^pytorch_full_/ && $3 ~ /^[0-9.]+$/ {s += $3} END {if (s) print s}' "$SUMMARY")
    else
      full=$(wall ${p}_full)
    fi
    [[ -n $prof && -n $full ]] && echo "  $p: profile ${prof}s, full ${full}s, ratio $(awk -v a="$prof" -v b="$full" 'BEGIN { if (b > 0) printf "%.2f", a / b }')"
  done
  echo "total wall: $(since "$START")s"
} > "$W/walls.txt"
cat "$W/walls.txt" >> "$SUMMARY"
cp "$SUMMARY" "$OUT/summary.txt"
tar -C "$W" -czf "$OUT/corpus-logs.tar.gz" logs env 2>/dev/null

echo "=== seed000 fp16 (plain)"
grep -E "hfma|fma_loop|matmul_tiled|verified|WRONG" "$C/seed000_fp16_plain.txt" 2>/dev/null | head -14
echo "=== BabelStream (plain, 2^26 doubles)"
grep -E "^(Function|Copy|Mul|Add|Triad|Dot)" "$C/babelstream_plain.txt" 2>/dev/null
echo "=== PyTorch corpus (plain)"
awk -F'\t' '{ printf "%-26s %10s %9s %9s\n", $1, $6, $7, $8 }' "$C/pytorch_plain.tsv" 2>/dev/null | head -40
tail -3 "$W/logs/pytorch_plain.err" 2>/dev/null
echo "=== metrics: $(wc -l < "$EXTRA") extra kept (metrics/extra.txt); $(wc -l < "$M/dropped.txt") dropped (metrics/dropped.txt):"
awk '{print $1}' "$M/dropped.txt" | paste -sd' ' | cut -c1-1500
echo "=== files"
ls -la "$OUT"
echo "=== summary (step, exit, wall s, notes)"
cat "$SUMMARY"
