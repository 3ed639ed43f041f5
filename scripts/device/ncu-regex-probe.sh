#!/usr/bin/env bash
# Which regular expressions ncu's --kernel-name accepts (issue 26): a
# negative lookahead would let pass 2 profile every kernel that pass 1 did
# not see in the steady state (cuDNN's choices under ncu) beside the
# planned ones. Two kernels, three filters; prints which were profiled.
# Never changes clocks (--clock-control none).
set -u
W=${OUT:-/tmp}/regex-probe; mkdir -p "$W"; cd "$W"
cat > probe.cu <<'CU'
#include <cstdio>
__global__ void alpha_kernel(float* x) { x[threadIdx.x] += 1.0f; }
__global__ void beta_kernel(float* x) { x[threadIdx.x] *= 2.0f; }
extern "C" __global__ void gamma_plain(float* x) { x[threadIdx.x] -= 1.0f; }
int main() {
  float* x; cudaMalloc(&x, 1024);
  for (int i = 0; i < 2; i++) { alpha_kernel<<<1, 32>>>(x); beta_kernel<<<1, 32>>>(x); gamma_plain<<<1, 32>>>(x); }
  cudaDeviceSynchronize(); printf("done\n"); return 0;
}
CU
nvcc -O2 -arch=sm_90 -o probe probe.cu || exit 1
for f in 'regex:^(?!(?:_Z12alpha_kernelPf)$).*$' 'regex:^(?!(?:_Z12alpha_kernelPf)$)' 'regex:^(_Z12alpha_kernelPf|gamma_plain)$'; do
  echo "== filter $f"
  ncu --clock-control none --kernel-name-base mangled --kernel-name "$f" --filter-mode per-launch-config --launch-count 1 \
    --metrics gpu__time_duration.sum --csv --page raw ./probe 2>&1 | grep -E '^"[0-9]|ERR|rror' | cut -c1-200
  echo "exit ${PIPESTATUS[0]}"
done 2>&1 | tee "$W/probe.txt"
