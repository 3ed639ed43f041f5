// seed000_host.cu: runs every kernel of seed000.cu on real random data,
// checks the results roughly on the CPU and prints CUDA-event timings.
//
//   nvcc -O3 -arch=sm_90 -o seed000 examples/kernels/seed000_host.cu
//   ./seed000 [launches per kernel, default 2] [fp16 | exit3]
//
// `fp16` runs only the FP16 loops (hfma2_loop, hfma_loop) beside the FP32
// kernels they are compared with (fma_loop at 4096 iterations, matmul_tiled).
//
// Under Nsight Compute the printed timings are meaningless (ncu replays each
// kernel): take durations from gpu__time_duration.sum instead.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
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

// Half precision on the CPU, to check the FP16 loops bit for bit: a product
// or sum of two halves is exact in double, so rounding that double once to
// half (to nearest, ties to even) is exactly what fma.rn.f16 / add.rn.f16 do.
static double half_to_double(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp((double)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp((double)(m + 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}
static uint16_t double_to_half(double v) {
    uint16_t s = std::signbit(v) ? 0x8000 : 0;
    v = fabs(v);
    if (v < ldexp(1.0, -14)) return s | (uint16_t)nearbyint(ldexp(v, 24));  // subnormal (1024 = smallest normal)
    int e;
    double q = nearbyint(ldexp(frexp(v, &e), 11));  // 11 significant bits, in [1024, 2048]
    int E = e - 1 + 15;
    if (q == 2048.0) { q = 1024.0; E++; }
    if (E >= 31) return s | 0x7C00;
    return s | (uint16_t)(E << 10) | (uint16_t)(q - 1024.0);
}
static uint16_t hfma_cpu(uint16_t x, uint16_t a, uint16_t b) {
    return double_to_half(half_to_double(x) * half_to_double(a) + half_to_double(b));
}
static uint16_t hadd_cpu(uint16_t x, uint16_t y) { return double_to_half(half_to_double(x) + half_to_double(y)); }
// The FP16 loops' constants: 0.999 and 0.001 rounded to half.
static const uint16_t HALF_A = 0x3BFF, HALF_B = 0x1419;
static uint16_t hfma_chain_cpu(uint16_t x, int iters) {
    for (int k = 0; k < iters; k++) x = hfma_cpu(x, HALF_A, HALF_B);
    return x;
}
// hfma2_loop's eight packed chains (x ^ j per half lane, j = 0..7), summed
// pairwise in the kernel's order.
static uint16_t hfma2_lane_cpu(uint16_t x, int iters) {
    uint16_t c[8];
    for (int j = 0; j < 8; j++) c[j] = hfma_chain_cpu((uint16_t)(x ^ j), iters);
    return hadd_cpu(hadd_cpu(hadd_cpu(c[0], c[1]), hadd_cpu(c[2], c[3])),
                    hadd_cpu(hadd_cpu(c[4], c[5]), hadd_cpu(c[6], c[7])));
}
// A random half in [0.5, 1): exponent 14, random 10-bit mantissa.
static uint16_t next_half() { return (uint16_t)(0x3800 | (next_u64() >> 54)); }

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
    bool fp16_only = argc > 2 && strcmp(argv[2], "fp16") == 0;
    if (argc > 2 && !exit_early && !fp16_only) {
        fprintf(stderr, "unknown mode '%s': expected fp16 or exit3\n", argv[2]);
        return 2;
    }
    const int n = 1 << 24, B = 256, G = n / B;
    float *x, *a, *b, *y, *out;
    for (float** p : {&x, &a, &b, &y, &out}) CHECK(cudaMalloc(p, (size_t)n * 4));
    fill(x, n); fill(a, n); fill(b, n); fill(y, n);
    std::vector<float> hx = get(x, n), ha = get(a, n), hb = get(b, n), hy = get(y, n);

    if (!fp16_only) {
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
    }

    const int nf = 1 << 22;
    std::vector<int> fma_iters = fp16_only ? std::vector<int>{4096} : std::vector<int>{4096, 16};
    for (int iters : fma_iters) {
        CHECK(cudaMemcpy(x, hx.data(), (size_t)nf * 4, cudaMemcpyHostToDevice));
        char name[32];
        snprintf(name, sizeof name, "fma_loop/%d", iters);
        run(name, launches, 8.0 * iters * nf + 6.0 * nf, 8.0 * nf, [&] { fma_loop<<<nf / B, B>>>(x, iters); });
        auto o = get(x, nf);
        verify(name, std::isfinite(o[0]) && std::isfinite(o[nf - 1]));
    }
    if (fp16_only) {
        // Packed: n half2 (u32), scalar: n half (u16); 4096 iterations each.
        const int iters = 4096;
        const unsigned int A2 = HALF_A | (unsigned int)HALF_A << 16, B2 = HALF_B | (unsigned int)HALF_B << 16;
        std::vector<uint32_t> h2(nf);
        std::vector<uint16_t> h1(nf);
        for (auto& v : h2) v = (uint32_t)next_half() | ((uint32_t)next_half() << 16);
        for (auto& v : h1) v = next_half();
        unsigned int* d2;
        unsigned short* d1;
        CHECK(cudaMalloc(&d2, (size_t)nf * 4));
        CHECK(cudaMalloc(&d1, (size_t)nf * 2));
        const size_t samples[] = {0, 1, (size_t)nf / 3, (size_t)nf / 5 + 7, (size_t)nf - 1};
        CHECK(cudaMemcpy(d2, h2.data(), (size_t)nf * 4, cudaMemcpyHostToDevice));
        run("hfma2_loop", 1, 32.0 * iters * nf + 14.0 * nf, 8.0 * nf, [&] { hfma2_loop<<<nf / B, B>>>(d2, iters, A2, B2); });
        {
            std::vector<uint32_t> o(nf);
            CHECK(cudaMemcpy(o.data(), d2, (size_t)nf * 4, cudaMemcpyDeviceToHost));
            bool ok = true;
            for (size_t i : samples) {
                uint32_t want = hfma2_lane_cpu((uint16_t)(h2[i] & 0xFFFF), iters) |
                                ((uint32_t)hfma2_lane_cpu((uint16_t)(h2[i] >> 16), iters) << 16);
                ok = ok && o[i] == want;
            }
            verify("hfma2_loop", ok);
        }
        // Later launches start from the first one's output: time them, do not check them.
        run("hfma2_loop", launches - 1, 32.0 * iters * nf + 14.0 * nf, 8.0 * nf, [&] { hfma2_loop<<<nf / B, B>>>(d2, iters, A2, B2); });
        CHECK(cudaMemcpy(d1, h1.data(), (size_t)nf * 2, cudaMemcpyHostToDevice));
        run("hfma_loop", 1, 2.0 * iters * nf, 4.0 * nf, [&] { hfma_loop<<<nf / B, B>>>(d1, iters, HALF_A, HALF_B); });
        {
            std::vector<uint16_t> o(nf);
            CHECK(cudaMemcpy(o.data(), d1, (size_t)nf * 2, cudaMemcpyDeviceToHost));
            bool ok = true;
            for (size_t i : samples) ok = ok && o[i] == hfma_chain_cpu(h1[i], iters);
            verify("hfma_loop", ok);
        }
        run("hfma_loop", launches - 1, 2.0 * iters * nf, 4.0 * nf, [&] { hfma_loop<<<nf / B, B>>>(d1, iters, HALF_A, HALF_B); });
        CHECK(cudaFree(d2)); CHECK(cudaFree(d1));
    }
    if (!fp16_only) {
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
    if (!fp16_only) {
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
    if (!fp16_only) {
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
        if (!fp16_only) {
            run("matmul_naive", launches, flops, bytes,
                [&] { matmul_naive<<<dim3(N / 16, N / 16), dim3(16, 16)>>>(A, Bm, C, N); });
            auto c1 = get(C, (size_t)N * N);
            int r = 77, c = 1234;
            double ref = 0;
            for (int k = 0; k < N; k++) ref += (double)hx[r * N + k] * ha[k * N + c];
            verify("matmul_naive", fabs(c1[r * N + c] - ref) < 1e-2 * (1 + fabs(ref)));
        }
        run("matmul_tiled", launches, flops, bytes,
            [&] { matmul_tiled<<<dim3(N / 32, N / 32), dim3(32, 32)>>>(A, Bm, C, N); });
        auto c2 = get(C, (size_t)N * N);
        int r = 77, c = 1234;
        double ref = 0;
        for (int k = 0; k < N; k++) ref += (double)hx[r * N + k] * ha[k * N + c];
        verify("matmul_tiled", fabs(c2[r * N + c] - ref) < 1e-2 * (1 + fabs(ref)));
    }
    CHECK(cudaDeviceSynchronize());
    printf("%s\n", failures ? "SOME RESULTS WRONG" : "all results verified");
    return failures ? 1 : 0;
}
