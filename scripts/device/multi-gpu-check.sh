#!/usr/bin/env bash
# Issue 12 end to end on a host with two GPUs (the `nvidia-h200-x2` kind), in
# one call from the repository root:
#
#   bash scripts/device/multi-gpu-check.sh
#
# Carried (git-ignored): .carry/roofline (the release binary),
# .carry/libroofline_inject.so (for `roofline timeline`), and, for the peers,
# .peers/{nccl-tests,nvbandwidth,debs} (see build-peers.sh).
#
# Steps (each timed, under `timeout`, logged; a failing step never stops the
# ones after it; the whole call stays within MULTI_BUDGET_S, default 440 s):
#   env          GPUs, topology, NVLink status, driver, torch and NCCL versions
#   build_peers  nccl-tests and nvbandwidth from .peers (build-peers.sh nccl), in
#                the background while the steps below run on the GPUs
#   peaks        `roofline peaks`: the link roofs from NVML's link facts
#   bench        `roofline bench --only interconnect`: host<->device, peer copies,
#                NCCL all-reduce/all-gather/reduce-scatter bus bandwidth
#   mpi_ranks    `mpirun -np 2 roofline peaks -o mpi.{rank}.json`: per-rank files
#   ddp_timeline examples/pytorch/ddp_train.py under torchrun (2 ranks), each rank
#                through `roofline timeline -o tl.{rank}.json`
#   ddp_profile  the same through `roofline profile`, bounded (-c, --timeout):
#                pass 1 without NCCL's kernels, pass 2 NCCL's kernels alone (one
#                pass: duration and NVLink bytes), per-rank files and ncu CSVs
#   merge        `roofline merge` of the profiles (both passes) and of the timelines,
#                judged against the bench's machine
#   render       the merged jobs and the bench's machine (link roofs) in terminal,
#                markdown, csv, html and json views
#   ncu_nvlink   the NVLink metrics this ncu offers on the GPU, and the NVLink
#                columns the profile's CSVs hold
#   nccl_*       nccl-tests at our message sizes (16 MiB..1 GiB, x4)
#   nvbandwidth  the copy tests that match ours
#   compare      ours beside the peers (multi-gpu-compare.py; target >= 0.98x)
# NVLink multicast stays off: NCCL_NVLS_ENABLE=0 (and the PyTorch/NVSHMEM switches).
# Output: $OUT/multigpu-check-all.tar.gz (everything) and $OUT/summary.txt,
# printed at the end with the comparison and the merged job's head.
set -u
START=$(date +%s.%N)
ROOT=$PWD
OUT=${OUT:-/tmp/out}
W=${MULTI_WORK:-/tmp/multigpu-check}
PEERS=${PEERS:-$ROOT/.peers}
BUDGET=${MULTI_BUDGET_S:-440}
RESERVE=15
ONLY=all
PACK_PREFIX=multigpu-check
BUILD=/tmp/peers-build
B=$ROOT/.carry/roofline
INJ=$ROOT/.carry/libroofline_inject.so
DDP=$ROOT/examples/pytorch/ddp_train.py
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 NO_COLOR=1
export ROOFLINE_INJECT_LIB=$INJ
rm -rf "$W"
mkdir -p "$OUT" "$W"/{logs,env,captures,views}
SUMMARY=$W/summary.txt
C=$W/captures
V=$W/views
: > "$SUMMARY"
# shellcheck source=scripts/device/steps.sh
source "$ROOT/scripts/device/steps.sh"
TORCHRUN=(python3 -m torch.distributed.run --standalone --nproc_per_node 2 --no-python)

have_bin=1
if [[ ! -x $B ]]; then
  have_bin=0
  record roofline missing - "no $B: build it (cargo build --release) and carry target/release/roofline as .carry/roofline"
fi
[[ -f $INJ ]] || record inject missing - "no $INJ: the timeline steps will say so (carry target/release/libroofline_inject.so)"

env_info() {
  date -u +%FT%TZ
  nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu --format=csv
  nvidia-smi topo -m
  nvidia-smi nvlink --status 2> /dev/null | head -40
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "gpus", torch.cuda.device_count(), "nccl", torch.cuda.nccl.version())'
  command -v mpirun && mpirun --version 2>&1 | head -2
  ncu --version 2>&1 | tail -1
  [[ -x $B ]] && "$B" --version
  env | grep -E '^(NCCL|TORCH_SYMM|NVSHMEM)_' | sort
}
export -f env_info
export B
step env 25 bash -c env_info
cp "$W/logs/env.out" "$W/env/env.txt" 2> /dev/null

# The peers build on the CPU while the GPU steps run.
BUILD_PID=""
if [[ -d $PEERS/nccl-tests || -d $PEERS/nvbandwidth ]]; then
  (step build_peers 300 env BUILD="$BUILD" PEERS="$PEERS" JOBS=8 bash "$ROOT/scripts/device/build-peers.sh" nccl) &
  BUILD_PID=$!
else
  record build_peers skip - "no $PEERS/nccl-tests or $PEERS/nvbandwidth carried: no peers in this call"
fi

run_b() { # step NAME MAX ARGS...: the binary, or a recorded skip without it
  local name=$1 max=$2
  shift 2
  if ((have_bin)); then step "$name" "$max" "$@"; else record "$name" skip - "no binary"; fi
}

run_b peaks 30 "$B" peaks --all-devices -o "$C/peaks.json"
cp "$W/logs/peaks.out" "$V/peaks.txt" 2> /dev/null
run_b bench 150 "$B" bench --only interconnect -o "$C/bench-interconnect.json"
cp "$W/logs/bench.out" "$V/bench-interconnect.txt" 2> /dev/null
MACHINE=()
[[ -s $C/bench-interconnect.json ]] && MACHINE=(--machine "$C/bench-interconnect.json")

if command -v mpirun > /dev/null; then
  # (Open MPI refuses root without these two; other MPIs ignore them)
  run_b mpi_ranks 30 env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun -np 2 "$B" peaks -q -o "$C/mpi.{rank}.json"
  ls "$C"/mpi.*.json >> "$W/logs/mpi_ranks.out" 2>&1
else
  record mpi_ranks skip - "no mpirun on PATH"
fi

# Each rank runs roofline, which runs the training script (torchrun sets RANK,
# LOCAL_RANK and WORLD_SIZE; -o ... {rank} names each rank's file).
run_b ddp_timeline 90 "${TORCHRUN[@]}" "$B" timeline --timeout 80s -o "$C/tl.{rank}.json" -- \
  python3 "$DDP" --steps 3 --warmup 1
# Pass 1: the first launches of one step, NCCL's kernels left out (no replay of a collective).
run_b ddp_profile 110 "${TORCHRUN[@]}" bash -c \
  "exec '$B' profile --collectives skip -c 25 --timeout 100s --save-csv '$C/prof.'\$RANK'.csv' -o '$C/prof.{rank}.json' -- python3 '$DDP' --steps 1 --warmup 0"
# Pass 2: NCCL's kernels alone, one pass each (duration and NVLink bytes).
run_b ddp_profile_nccl 90 "${TORCHRUN[@]}" bash -c \
  "exec '$B' profile --collectives only -c 12 --timeout 80s --save-csv '$C/coll.'\$RANK'.csv' -o '$C/coll.{rank}.json' -- python3 '$DDP' --steps 1 --warmup 0"

shopt -s nullglob
PROF=("$C"/prof.*.json "$C"/coll.*.json)
TL=("$C"/tl.*.json)
shopt -u nullglob
if ((${#PROF[@]})); then
  COLUMNS=140 run_b merge_profile 20 "$B" merge "${PROF[@]}" "${MACHINE[@]}" -o "$C/job-profile.json"
  cp "$W/logs/merge_profile.out" "$V/job-profile.terminal" 2> /dev/null
else
  record merge_profile skip - "no per-rank profile files"
fi
if ((${#TL[@]})); then
  COLUMNS=140 run_b merge_timeline 20 "$B" merge "${TL[@]}" "${MACHINE[@]}" -o "$C/job-timeline.json"
  cp "$W/logs/merge_timeline.out" "$V/job-timeline.terminal" 2> /dev/null
else
  record merge_timeline skip - "no per-rank timeline files"
fi

render() { # DOC NAME: every view of a document (the terminal table is what merge printed)
  local job=$1 name=$2 f
  [[ -s $job ]] || return 3
  local rc=0
  local formats=(chart markdown csv json)
  [[ $name == bench-* ]] && formats=(markdown csv json) # a machine has no kernel chart
  for f in "${formats[@]}"; do
    if [[ $f == csv ]]; then # every table (stdout would get the first one only)
      "$B" report "$job" -o "$V/$name.csv" > /dev/null 2>> "$V/$name.err" || rc=1
    else
      "$B" report "$job" --format "$f" > "$V/$name.$f" 2>> "$V/$name.err" || rc=1
    fi
  done
  "$B" report "$job" -o "$V/$name.html" 2>> "$V/$name.err" || rc=1
  return $rc
}
export -f render
export V
run_b render_profile 20 bash -c "render '$C/job-profile.json' job-profile"
run_b render_timeline 20 bash -c "render '$C/job-timeline.json' job-timeline"
run_b render_bench 20 bash -c "render '$C/bench-interconnect.json' bench-interconnect"

nvlink_probe() {
  echo "== ncu --query-metrics (NVLink) on this GPU"
  ncu --query-metrics 2>&1 | grep -iE '^(nvl|nvlrx|nvltx)' | head -40
  echo "== NVLink columns in the profile CSVs"
  local f
  for f in "$C"/coll.*.csv "$C"/prof.*.csv; do
    [[ -f $f ]] || continue
    echo "-- $f"
    head -c 200000 "$f" | grep -m1 '"ID"' | tr ',' '\n' | grep -i nvl | head -20
  done
}
export -f nvlink_probe
export C
step ncu_nvlink 30 bash -c nvlink_probe

if [[ -n $BUILD_PID ]]; then
  say "waiting for the peers' build"
  lim=$(left)
  waited=0
  while kill -0 "$BUILD_PID" 2> /dev/null && ((waited < lim)); do
    sleep 2
    waited=$((waited + 2))
  done
  kill -0 "$BUILD_PID" 2> /dev/null && record build_wait timeout "$waited" "the build did not finish within the budget"
  cp "$BUILD"/*.log "$W/logs/" 2> /dev/null
fi
NCCL_LIB=$(cat "$BUILD/nccl-libdir" 2> /dev/null)
for coll in all_reduce all_gather reduce_scatter; do
  exe=$BUILD/nccl-tests/${coll}_perf
  if [[ -x $exe ]]; then
    step "nccl_$coll" 40 env LD_LIBRARY_PATH="${NCCL_LIB:+$NCCL_LIB:}${LD_LIBRARY_PATH:-}" "$exe" -b 16M -e 1G -f 4 -g 2 -w 5 -n 20
    cp "$W/logs/nccl_$coll.out" "$C/nccl-tests_$coll.txt" 2> /dev/null
  else
    record "nccl_$coll" skip - "nccl-tests not built"
  fi
done
NVB=$BUILD/nvbandwidth/nvbandwidth
if [[ -x $NVB ]]; then
  step nvbandwidth 90 "$NVB" -t device_to_device_memcpy_read_ce device_to_device_memcpy_write_ce \
    device_to_device_bidirectional_memcpy_read_ce device_to_device_bidirectional_memcpy_write_ce \
    device_to_device_memcpy_read_sm device_to_device_memcpy_write_sm \
    device_to_device_bidirectional_memcpy_read_sm device_to_device_bidirectional_memcpy_write_sm \
    host_to_device_memcpy_ce device_to_host_memcpy_ce
  cp "$W/logs/nvbandwidth.out" "$C/nvbandwidth.txt" 2> /dev/null
else
  record nvbandwidth skip - "nvbandwidth not built"
fi
step compare 15 python3 "$ROOT/scripts/device/multi-gpu-compare.py" "$C/bench-interconnect.json" \
  --nccl-tests "$C" --nvbandwidth "$C/nvbandwidth.txt"
cp "$W/logs/compare.out" "$V/compare.txt" 2> /dev/null

pack all captures views logs env summary.txt
echo "=== ours beside the peers"
cat "$V/compare.txt" 2> /dev/null
echo "=== merged profile of the DDP job (terminal view, head)"
head -60 "$V/job-profile.terminal" 2> /dev/null
echo "=== merged timeline of the DDP job (terminal view, head)"
head -30 "$V/job-timeline.terminal" 2> /dev/null
echo "=== NVLink metrics"
head -30 "$W/logs/ncu_nvlink.out" 2> /dev/null
echo "=== last stderr lines of the steps that failed"
while read -r name rc _; do
  [[ $rc =~ ^[0-9]+$ && $rc != 0 && -s $W/logs/$name.err ]] || continue
  echo "-- $name (exit $rc)"
  grep -v '^\[' "$W/logs/$name.err" | tail -4 | cut -c1-300
done < "$SUMMARY"
echo "=== files"
ls -la "$OUT"
echo "=== summary (step, exit, wall s, notes); total $(since "$START") s"
cat "$SUMMARY"
