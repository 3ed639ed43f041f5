// A stand-in kernel for counting Nsight Compute's replay passes per metric
// group (scripts/device/metric-groups.sh): streaming FMA work over a 64 MiB
// array, launched 20 times.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void stream_fma(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int k = 0; k < 8; ++k) v = fmaf(v, 1.0001f, 0.5f);
        y[i] = v;
    }
}

int main() {
    const int n = 1 << 24;
    float *x, *y;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    cudaMemset(x, 0, n * sizeof(float));
    for (int r = 0; r < 20; ++r) stream_fma<<<(n + 255) / 256, 256>>>(x, y, n);
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
