#!/usr/bin/env bash
# The multi-GPU peers and the DDP program on a host with two GPUs (issue 12),
# for a call on the `nvidia-h200-x2` kind:
#
#   bash scripts/device/multi-gpu-peers.sh      (repository root; carry .peers)
#
# Steps (each timed, under `timeout`, logged; one failing never stops the rest):
#   env        GPUs, topology (nvidia-smi topo -m), driver, NCCL and torch versions
#   build      nccl-tests against PyTorch's NCCL, and nvbandwidth (build-peers.sh nccl)
#   nccl-tests all_reduce_perf, all_gather_perf, reduce_scatter_perf: -b 8M -e 8G -f 2 -g 2
#   nvbandwidth  P2P (copy engine and SM, read/write, uni- and bidirectional), H2D, D2H
#   ddp        examples/pytorch/ddp_train.py under torchrun (2 ranks): step times, then
#              the same with per-rank Kineto records of every launch (NCCL kernels included)
# NVLink multicast stays off everywhere: NCCL_NVLS_ENABLE=0,
# TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1.
# Output: $OUT/multigpu-{peers,ddp}.tar.gz and $OUT/summary.txt (printed last).
# Budget: MULTI_BUDGET_S (default 480 s), as in corpus.sh.
set -u
START=$(date +%s.%N)
ROOT=$PWD
OUT=${OUT:-/tmp/out}
W=${MULTI_WORK:-/tmp/multigpu}
PEERS=${PEERS:-$ROOT/.peers}
BUDGET=${MULTI_BUDGET_S:-480}
RESERVE=20
ONLY=all
PACK_PREFIX=multigpu
BUILD=/tmp/peers-build
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
rm -rf "$W"
mkdir -p "$OUT" "$W"/{logs,env,captures}
SUMMARY=$W/summary.txt
C=$W/captures
: > "$SUMMARY"
# shellcheck source=scripts/device/steps.sh
source "$ROOT/scripts/device/steps.sh"

env_info() {
  date -u +%FT%TZ
  nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu --format=csv
  nvidia-smi topo -m
  nvidia-smi nvlink --status 2>/dev/null | head -60
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "gpus", torch.cuda.device_count(), "nccl", torch.cuda.nccl.version())'
  env | grep -E '^(NCCL|TORCH_SYMM|NVSHMEM)_' | sort
}
export -f env_info
step env 40 bash -c env_info
cp "$W/logs/env.out" "$W/env/env.txt"
head -8 "$W/env/env.txt"

step build_peers 300 env BUILD="$BUILD" PEERS="$PEERS" bash scripts/device/build-peers.sh nccl
cp "$BUILD"/*.log "$W/logs/" 2>/dev/null
NCCL_LIB=$(cat "$BUILD/nccl-libdir" 2>/dev/null)
export LD_LIBRARY_PATH=${NCCL_LIB:+$NCCL_LIB:}${LD_LIBRARY_PATH:-}

for coll in all_reduce all_gather reduce_scatter; do
  exe=$BUILD/nccl-tests/${coll}_perf
  if [[ -x $exe ]]; then
    step "nccl_$coll" 120 "$exe" -b 8M -e 8G -f 2 -g 2
    cp "$W/logs/nccl_$coll.out" "$C/nccl-tests_$coll.txt"
  else
    record "nccl_$coll" skip - "nccl-tests did not build (logs/nccl-tests.log)"
  fi
done

NVB=$BUILD/nvbandwidth/nvbandwidth
if [[ -x $NVB ]]; then
  step nvbandwidth 180 "$NVB" -t device_to_device_memcpy_read_ce device_to_device_memcpy_write_ce \
    device_to_device_bidirectional_memcpy_read_ce device_to_device_bidirectional_memcpy_write_ce \
    device_to_device_memcpy_read_sm device_to_device_memcpy_write_sm \
    device_to_device_bidirectional_memcpy_read_sm device_to_device_bidirectional_memcpy_write_sm \
    host_to_device_memcpy_ce device_to_host_memcpy_ce
  cp "$W/logs/nvbandwidth.out" "$C/nvbandwidth.txt"
else
  record nvbandwidth skip - "nvbandwidth did not build (logs/nvbandwidth.log)"
fi
pack peers captures logs env

step ddp_plain 150 python3 -m torch.distributed.run --standalone --nproc_per_node 2 examples/pytorch/ddp_train.py
step ddp_kineto 150 python3 -m torch.distributed.run --standalone --nproc_per_node 2 examples/pytorch/ddp_train.py --kineto "$C/ddp_kineto.json"
pack ddp 'captures/ddp*' logs

cp "$SUMMARY" "$OUT/summary.txt"
echo "=== nccl-tests (out-of-place busbw, GB/s, at the largest sizes)"
for coll in all_reduce all_gather reduce_scatter; do
  echo "-- $coll"
  grep -E '^ +[0-9]+ ' "$C/nccl-tests_$coll.txt" 2>/dev/null | tail -4
  grep -E 'Avg bus bandwidth' "$C/nccl-tests_$coll.txt" 2>/dev/null
done
echo "=== nvbandwidth (SUM lines)"
grep -E '^(Running|SUM)' "$C/nvbandwidth.txt" 2>/dev/null
echo "=== DDP"
tail -4 "$W/logs/ddp_plain.err" 2>/dev/null
grep -h "rank" "$W/logs/ddp_plain.out" "$W/logs/ddp_kineto.err" 2>/dev/null | tail -6
echo "=== files"
ls -la "$OUT"
echo "=== summary (step, exit, wall s, notes)"
cat "$SUMMARY"
