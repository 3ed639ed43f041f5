// seed000.cu: the kernels of seed 000 (and a few more that land on every
// part of the roofline), as device code only.
//
// NVRTC-compatible: no host code and no #include, every kernel `extern "C"`
// so that its name is not mangled. `seed000_host.cu` includes this file for
// nvcc; the roofline tool compiles it with NVRTC.
//
// Sizes and launch shapes as seed000_host.cu runs them (n floats per array,
// blocks of 256 threads, grid = n / 256 unless said). FLOPs and bytes are
// per launch, on paper; "bytes" counts each array read or written once
// (DRAM traffic when nothing stays in L2).
//
// | kernel        | arguments                      | size / launch                       | FLOPs (analytic)             | bytes (paper)        |
// |---------------|--------------------------------|-------------------------------------|------------------------------|----------------------|
// | vecadd        | a, b, c, n                     | n = 2^24                            | n fadd                       | 12 n                 |
// | saxpy         | alpha, x, y, n                 | n = 2^24                            | n ffma = 2 n                 | 12 n                 |
// | scale         | x, a, y, n   (y = a * x)       | n = 2^24                            | n fmul                       | 12 n                 |
// | add           | y, b, out, n (out = y + b)     | n = 2^24                            | n fadd                       | 12 n                 |
// | fused         | x, a, b, out, n (a * x + b)    | n = 2^24                            | n ffma = 2 n                 | 16 n                 |
// | fma_loop      | x, iters (4 FMA chains)        | n = 2^22, iters = 4096 and 16       | 4 iters n ffma = 8 iters n   | 8 n                  |
// |               |                                |                                     |  (+ 6 n fadd: chain setup    |                      |
// |               |                                |                                     |   and final sum)             |                      |
// | fma_loop_fp64 | x, iters (4 DFMA chains)       | n = 2^22, iters = 512               | 4 iters n dfma = 8 iters n   | 16 n                 |
// |               |                                |                                     |  (+ 6 n dadd)                |                      |
// | strided_copy  | in, out, n, stride             | n = 2^22 outputs, stride = 32       | 0                            | 8 n useful; a 32-B   |
// |               |   (out[i] = in[i * stride])    |   floats, input 2^27 floats         |                              | sector per 4-B load  |
// | pointer_chase | next, out, steps               | 2^24 ints (64 MiB > L2), 132 blocks | 0                            | ~32 B per step       |
// |               |   (p = next[p], steps times)   |   x 32 threads, steps = 4096        |                              | (one sector)         |
// | matmul_naive  | A, B, C, N (C = A B, row-major)| N = 2048, blocks 16x16, grid N/16^2 | N^3 ffma = 2 N^3             | 12 N^2 (ideal reuse) |
// | matmul_tiled  | A, B, C, N (32x32 tiles in smem)| N = 2048, blocks 32x32, grid N/32^2| N^3 ffma = 2 N^3             | 12 N^2 (ideal reuse) |
//
// The FMA loops use `a * c1 + c2`, which nvcc and NVRTC contract into one
// FFMA/DFMA, so `smsp__sass_thread_inst_executed_op_ffma_pred_on.sum` is
// exactly 4 x iters x n for fma_loop. matmul_* assume N is a multiple of 32.

extern "C" __global__ void vecadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void saxpy(float alpha, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * x[i] + y[i];
}

extern "C" __global__ void scale(const float* x, const float* a, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a[i] * x[i];
}

extern "C" __global__ void add(const float* y, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = y[i] + b[i];
}

extern "C" __global__ void fused(const float* x, const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] * x[i] + b[i];
}

// Launched with exactly n threads (n a multiple of the block size): no bounds
// check, so that the FLOP count is exact.
// The body is a device function so that the roofline tool can give each
// intensity of its sweep a kernel name of its own (fma_loop_x16, ...).
__device__ __forceinline__ void seed000_fma_chains(float* x, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = x[i], b = a + 1.0f, c = a + 2.0f, d = a + 3.0f;
    for (int k = 0; k < iters; k++) {
        a = a * 0.999f + 0.001f;
        b = b * 0.999f + 0.001f;
        c = c * 0.999f + 0.001f;
        d = d * 0.999f + 0.001f;
    }
    x[i] = a + b + c + d;
}

extern "C" __global__ void fma_loop(float* x, int iters) { seed000_fma_chains(x, iters); }

extern "C" __global__ void fma_loop_fp64(double* x, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double a = x[i], b = a + 1.0, c = a + 2.0, d = a + 3.0;
    for (int k = 0; k < iters; k++) {
        a = a * 0.999 + 0.001;
        b = b * 0.999 + 0.001;
        c = c * 0.999 + 0.001;
        d = d * 0.999 + 0.001;
    }
    x[i] = a + b + c + d;
}

extern "C" __global__ void strided_copy(const float* in, float* out, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[(long long)i * stride];
}

// Each thread follows its own chain through a random cyclic permutation:
// every load depends on the previous one, so only latency matters.
extern "C" __global__ void pointer_chase(const int* next, int* out, int steps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int p = t * 3967;  // < 2^24 for up to 4229 threads
    for (int k = 0; k < steps; k++) p = next[p];
    out[t] = p;
}

extern "C" __global__ void matmul_naive(const float* A, const float* B, float* C, int N) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < N && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < N; k++) acc += A[row * N + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

#define SEED000_TILE 32
extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int N) {
    __shared__ float As[SEED000_TILE][SEED000_TILE];
    __shared__ float Bs[SEED000_TILE][SEED000_TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * SEED000_TILE + ty;
    int col = blockIdx.x * SEED000_TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < N; t += SEED000_TILE) {
        As[ty][tx] = A[row * N + t + tx];
        Bs[ty][tx] = B[(t + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < SEED000_TILE; k++) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
