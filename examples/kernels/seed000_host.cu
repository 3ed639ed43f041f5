// seed000_host.cu: runs every kernel of seed000.cu on real random data,
// checks the results roughly on the CPU and prints CUDA-event timings.
//
//   nvcc -O3 -arch=sm_90 -o seed000 examples/kernels/seed000_host.cu
//   ./seed000 [launches per kernel, default 2]
//
// Under Nsight Compute the printed timings are meaningless (ncu replays each
// kernel): take durations from gpu__time_duration.sum instead.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#include "seed000.cu"

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, \
                    __LINE__);                                                         \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static unsigned long long next_u64() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static float next_float() { return (float)((next_u64() >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f; }

static void fill(float* d, size_t n) {
    std::vector<float> h(n);
    for (auto& v : h) v = next_float();
    CHECK(cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice));
}
static std::vector<float> get(const float* d, size_t n) {
    std::vector<float> h(n);
    CHECK(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost));
    return h;
}

static int failures = 0;
static void verify(const char* name, bool ok) {
    if (!ok) {
        failures++;
        fprintf(stderr, "%s: WRONG RESULT\n", name);
    }
}

struct Timer {
    cudaEvent_t s, e;
    Timer() { cudaEventCreate(&s); cudaEventCreate(&e); }
    void start() { cudaEventRecord(s); }
    float stop() {
        cudaEventRecord(e);
        cudaEventSynchronize(e);
        float ms;
        cudaEventElapsedTime(&ms, s, e);
        return ms;
    }
};

template <typename F>
static void run(const char* name, int launches, double flops, double bytes, F launch) {
    Timer t;
    for (int r = 0; r < launches; r++) {
        t.start();
        launch();
        CHECK(cudaGetLastError());
        float ms = t.stop();
        printf("%-16s launch %d: %9.3f ms  %9.1f GFLOP/s  %8.1f GB/s (paper bytes)\n", name, r, ms,
               flops / ms / 1e6, bytes / ms / 1e6);
    }
}

int main(int argc, char** argv) {
    int launches = argc > 1 ? atoi(argv[1]) : 2;
    if (launches < 1) launches = 1;
    // `seed000 N exit3`: stop with status 3 after saxpy, to test how a
    // profiler copes with a program that fails midway.
    bool exit_early = argc > 2 && strcmp(argv[2], "exit3") == 0;
    const int n = 1 << 24, B = 256, G = n / B;
    float *x, *a, *b, *y, *out;
    for (float** p : {&x, &a, &b, &y, &out}) CHECK(cudaMalloc(p, (size_t)n * 4));
    fill(x, n); fill(a, n); fill(b, n); fill(y, n);
    std::vector<float> hx = get(x, n), ha = get(a, n), hb = get(b, n), hy = get(y, n);

    run("vecadd", launches, n, 12.0 * n, [&] { vecadd<<<G, B>>>(a, b, out, n); });
    { auto o = get(out, n); size_t i = n / 3; verify("vecadd", fabsf(o[i] - (ha[i] + hb[i])) < 1e-5f); }

    // saxpy writes y in place: restore it before checking one launch.
    CHECK(cudaMemcpy(y, hy.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
    run("saxpy", launches, 2.0 * n, 12.0 * n, [&] { saxpy<<<G, B>>>(2.0f, x, y, n); });
    { auto o = get(y, n); size_t i = n / 5; float e = hy[i]; for (int r = 0; r < launches; r++) e = 2.0f * hx[i] + e;
      verify("saxpy", fabsf(o[i] - e) < 1e-3f * (1 + fabsf(e))); }

    if (exit_early) {
        fprintf(stderr, "exiting early with status 3, as asked\n");
        exit(3);
    }
    run("scale", launches, n, 12.0 * n, [&] { scale<<<G, B>>>(x, a, y, n); });
    run("add", launches, n, 12.0 * n, [&] { add<<<G, B>>>(y, b, out, n); });
    { auto o = get(out, n); size_t i = n / 7; verify("scale+add", fabsf(o[i] - (ha[i] * hx[i] + hb[i])) < 1e-5f); }
    run("fused", launches, 2.0 * n, 16.0 * n, [&] { fused<<<G, B>>>(x, a, b, out, n); });
    { auto o = get(out, n); size_t i = n / 11; verify("fused", fabsf(o[i] - (ha[i] * hx[i] + hb[i])) < 1e-5f); }

    const int nf = 1 << 22;
    for (int iters : {4096, 16}) {
        CHECK(cudaMemcpy(x, hx.data(), (size_t)nf * 4, cudaMemcpyHostToDevice));
        char name[32];
        snprintf(name, sizeof name, "fma_loop/%d", iters);
        run(name, launches, 8.0 * iters * nf + 6.0 * nf, 8.0 * nf, [&] { fma_loop<<<nf / B, B>>>(x, iters); });
        auto o = get(x, nf);
        verify(name, std::isfinite(o[0]) && std::isfinite(o[nf - 1]));
    }
    {
        double* xd;
        CHECK(cudaMalloc(&xd, (size_t)nf * 8));
        CHECK(cudaMemset(xd, 0, (size_t)nf * 8));
        const int iters = 512;
        run("fma_loop_fp64", launches, 8.0 * iters * nf + 6.0 * nf, 16.0 * nf,
            [&] { fma_loop_fp64<<<nf / B, B>>>(xd, iters); });
        double h0;
        CHECK(cudaMemcpy(&h0, xd, 8, cudaMemcpyDeviceToHost));
        verify("fma_loop_fp64", std::isfinite(h0) && h0 > 0.0);
        CHECK(cudaFree(xd));
    }
    {
        const int ns = 1 << 22, stride = 32;
        float* big;
        CHECK(cudaMalloc(&big, (size_t)ns * stride * 4));
        CHECK(cudaMemset(big, 0, (size_t)ns * stride * 4));
        CHECK(cudaMemcpy(big + (size_t)1000 * stride, hx.data() + 1000, 4, cudaMemcpyHostToDevice));
        run("strided_copy", launches, 0, 8.0 * ns, [&] { strided_copy<<<ns / B, B>>>(big, out, ns, stride); });
        auto o = get(out, ns);
        verify("strided_copy", o[1000] == hx[1000] && o[1001] == 0.0f);
        CHECK(cudaFree(big));
    }
    {
        // Sattolo's algorithm: one random cycle through all 2^24 slots.
        const int m = 1 << 24, threads = 32, blocks = 132, steps = 4096;
        std::vector<int> next(m);
        for (int i = 0; i < m; i++) next[i] = i;
        for (int i = m - 1; i > 0; i--) {
            int j = (int)(next_u64() % (unsigned long long)i);
            int t = next[i]; next[i] = next[j]; next[j] = t;
        }
        int *dn, *dout;
        CHECK(cudaMalloc(&dn, (size_t)m * 4));
        CHECK(cudaMalloc(&dout, blocks * threads * 4));
        CHECK(cudaMemcpy(dn, next.data(), (size_t)m * 4, cudaMemcpyHostToDevice));
        run("pointer_chase", launches, 0, 32.0 * steps * blocks * threads,
            [&] { pointer_chase<<<blocks, threads>>>(dn, dout, steps); });
        int h5;
        CHECK(cudaMemcpy(&h5, dout + 5, 4, cudaMemcpyDeviceToHost));
        int p = 5 * 3967;
        for (int k = 0; k < steps; k++) p = next[p];
        verify("pointer_chase", h5 == p);
        CHECK(cudaFree(dn)); CHECK(cudaFree(dout));
    }
    {
        const int N = 2048;
        CHECK(cudaMemcpy(x, hx.data(), (size_t)n * 4, cudaMemcpyHostToDevice));  // fma_loop overwrote x
        float *A = x, *Bm = a, *C = out;  // 2^22 floats each fit in the 2^24 arrays
        double flops = 2.0 * N * N * N, bytes = 12.0 * N * N;
        run("matmul_naive", launches, flops, bytes,
            [&] { matmul_naive<<<dim3(N / 16, N / 16), dim3(16, 16)>>>(A, Bm, C, N); });
        auto c1 = get(C, (size_t)N * N);
        run("matmul_tiled", launches, flops, bytes,
            [&] { matmul_tiled<<<dim3(N / 32, N / 32), dim3(32, 32)>>>(A, Bm, C, N); });
        auto c2 = get(C, (size_t)N * N);
        int r = 77, c = 1234;
        double ref = 0;
        for (int k = 0; k < N; k++) ref += (double)hx[r * N + k] * ha[k * N + c];
        verify("matmul_naive", fabs(c1[r * N + c] - ref) < 1e-2 * (1 + fabs(ref)));
        verify("matmul_tiled", fabs(c2[r * N + c] - ref) < 1e-2 * (1 + fabs(ref)));
    }
    CHECK(cudaDeviceSynchronize());
    printf("%s\n", failures ? "SOME RESULTS WRONG" : "all results verified");
    return failures ? 1 : 0;
}
