// DRAM and L2 bandwidth: read-only, write-only, copy, triad and add.
//
// One template per operation and access pattern, instantiated for access
// widths of 4, 8 and 16 bytes per thread (W) and K independent accesses in
// flight per thread, so that a short search on the device picks the variant
// it serves best instead of one chosen once on one GPU:
// - grid-stride (`_g`K): a grid sized to the GPU loops over the arrays,
//   K accesses per array and loop trip;
// - one pass (`_p`K): a grid as large as the arrays, each thread K elements
//   of its block's chunk, all loads issued before the stores.
// Read kernels sum 32-bit words (wrapping), so the sum of their per-thread
// partials can be checked exactly against the input's total.
// scripts/device/dram-sweep.cu includes this file, so what it sweeps is
// what ships.

__device__ __forceinline__ u32 rl_sum(u32 v) { return v; }
__device__ __forceinline__ u32 rl_sum(uint2 v) { return v.x + v.y; }
__device__ __forceinline__ u32 rl_sum(uint4 v) { return v.x + v.y + v.z + v.w; }

__device__ __forceinline__ u32 rl_make(u32, u64 j, u32 seed) { return (u32)j ^ seed; }
__device__ __forceinline__ uint2 rl_make(uint2, u64 j, u32 seed) {
    return make_uint2((u32)j ^ seed, (u32)(j + 1) ^ seed);
}
__device__ __forceinline__ uint4 rl_make(uint4, u64 j, u32 seed) {
    return make_uint4((u32)j ^ seed, (u32)(j + 1) ^ seed, (u32)(j + 2) ^ seed, (u32)(j + 3) ^ seed);
}

__device__ __forceinline__ float rl_triad(float b, float s, float c) { return __fmaf_rn(s, c, b); }
__device__ __forceinline__ float2 rl_triad(float2 b, float s, float2 c) {
    return make_float2(__fmaf_rn(s, c.x, b.x), __fmaf_rn(s, c.y, b.y));
}
__device__ __forceinline__ float4 rl_triad(float4 b, float s, float4 c) {
    return make_float4(__fmaf_rn(s, c.x, b.x), __fmaf_rn(s, c.y, b.y), __fmaf_rn(s, c.z, b.z), __fmaf_rn(s, c.w, b.w));
}
__device__ __forceinline__ float rl_add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float2 rl_add(float2 a, float2 b) { return make_float2(__fadd_rn(a.x, b.x), __fadd_rn(a.y, b.y)); }
__device__ __forceinline__ float4 rl_add(float4 a, float4 b) {
    return make_float4(__fadd_rn(a.x, b.x), __fadd_rn(a.y, b.y), __fadd_rn(a.z, b.z), __fadd_rn(a.w, b.w));
}

// The word and float vector of W bytes.
template <int W> struct rl_vec;
template <> struct rl_vec<4> { typedef u32 U; typedef float F; };
template <> struct rl_vec<8> { typedef uint2 U; typedef float2 F; };
template <> struct rl_vec<16> { typedef uint4 U; typedef float4 F; };

// ---- grid-stride: K accesses per array in flight per loop trip ----
template <typename U, int K>
__device__ __forceinline__ void rl_read_g(const U* __restrict__ a, u32* __restrict__ out, u64 n) {
    u64 s = rl_threads(), i = rl_tid();
    u32 acc = 0;
    for (; i + (K - 1) * s < n; i += K * s) {
        U x[K];
        #pragma unroll
        for (int k = 0; k < K; k++) x[k] = a[i + k * s];
        #pragma unroll
        for (int k = 0; k < K; k++) acc += rl_sum(x[k]);
    }
    for (; i < n; i += s) acc += rl_sum(a[i]);
    out[rl_tid()] = acc;
}
template <typename U, int K>
__device__ __forceinline__ void rl_write_g(U* __restrict__ out, u64 n, u32 seed) {
    const u64 s = rl_threads(), w = sizeof(U) / 4;
    u64 i = rl_tid();
    for (; i + (K - 1) * s < n; i += K * s) {
        #pragma unroll
        for (int k = 0; k < K; k++) out[i + k * s] = rl_make(U(), (i + k * s) * w, seed);
    }
    for (; i < n; i += s) out[i] = rl_make(U(), i * w, seed);
}
template <typename U, int K>
__device__ __forceinline__ void rl_copy_g(const U* __restrict__ a, U* __restrict__ b, u64 n) {
    u64 s = rl_threads(), i = rl_tid();
    for (; i + (K - 1) * s < n; i += K * s) {
        U x[K];
        #pragma unroll
        for (int k = 0; k < K; k++) x[k] = a[i + k * s];
        #pragma unroll
        for (int k = 0; k < K; k++) b[i + k * s] = x[k];
    }
    for (; i < n; i += s) b[i] = a[i];
}
template <typename F, int K>
__device__ __forceinline__ void rl_triad_g(F* __restrict__ a, const F* __restrict__ b, const F* __restrict__ c, float q, u64 n) {
    u64 s = rl_threads(), i = rl_tid();
    for (; i + (K - 1) * s < n; i += K * s) {
        F x[K], y[K];
        #pragma unroll
        for (int k = 0; k < K; k++) { x[k] = b[i + k * s]; y[k] = c[i + k * s]; }
        #pragma unroll
        for (int k = 0; k < K; k++) a[i + k * s] = rl_triad(x[k], q, y[k]);
    }
    for (; i < n; i += s) a[i] = rl_triad(b[i], q, c[i]);
}
template <typename F, int K>
__device__ __forceinline__ void rl_add_g(const F* __restrict__ a, const F* __restrict__ b, F* __restrict__ c, u64 n) {
    u64 s = rl_threads(), i = rl_tid();
    for (; i + (K - 1) * s < n; i += K * s) {
        F x[K], y[K];
        #pragma unroll
        for (int k = 0; k < K; k++) { x[k] = a[i + k * s]; y[k] = b[i + k * s]; }
        #pragma unroll
        for (int k = 0; k < K; k++) c[i + k * s] = rl_add(x[k], y[k]);
    }
    for (; i < n; i += s) c[i] = rl_add(a[i], b[i]);
}

// ---- one pass: block b covers elements [b T K, (b + 1) T K) ----
__device__ __forceinline__ u64 rl_pass_index(int k, int K) {
    return (u64)blockIdx.x * blockDim.x * K + threadIdx.x + (u64)k * blockDim.x;
}
template <typename U, int K>
__device__ __forceinline__ void rl_write_p(U* __restrict__ out, u64 n, u32 seed) {
    const u64 w = sizeof(U) / 4;
    #pragma unroll
    for (int k = 0; k < K; k++) {
        u64 j = rl_pass_index(k, K);
        if (j < n) out[j] = rl_make(U(), j * w, seed);
    }
}
template <typename U, int K>
__device__ __forceinline__ void rl_copy_p(const U* __restrict__ a, U* __restrict__ b, u64 n) {
    U x[K];
    #pragma unroll
    for (int k = 0; k < K; k++) {
        u64 j = rl_pass_index(k, K);
        if (j < n) x[k] = a[j];
    }
    #pragma unroll
    for (int k = 0; k < K; k++) {
        u64 j = rl_pass_index(k, K);
        if (j < n) b[j] = x[k];
    }
}
template <typename F, int K>
__device__ __forceinline__ void rl_triad_p(F* __restrict__ a, const F* __restrict__ b, const F* __restrict__ c, float q, u64 n) {
    F x[K], y[K];
    #pragma unroll
    for (int k = 0; k < K; k++) {
        u64 j = rl_pass_index(k, K);
        if (j < n) { x[k] = b[j]; y[k] = c[j]; }
    }
    #pragma unroll
    for (int k = 0; k < K; k++) {
        u64 j = rl_pass_index(k, K);
        if (j < n) a[j] = rl_triad(x[k], q, y[k]);
    }
}
template <typename F, int K>
__device__ __forceinline__ void rl_add_p(const F* __restrict__ a, const F* __restrict__ b, F* __restrict__ c, u64 n) {
    F x[K], y[K];
    #pragma unroll
    for (int k = 0; k < K; k++) {
        u64 j = rl_pass_index(k, K);
        if (j < n) { x[k] = a[j]; y[k] = b[j]; }
    }
    #pragma unroll
    for (int k = 0; k < K; k++) {
        u64 j = rl_pass_index(k, K);
        if (j < n) c[j] = rl_add(x[k], y[k]);
    }
}

// Entry points: dram_<op>_<W>_g<K> and dram_<op>_<W>_p<K>.
#define RL_U(W) rl_vec<W>::U
#define RL_F(W) rl_vec<W>::F
#define RL_READ(W, K)                                                                                 \
    extern "C" __global__ void dram_read_##W##_g##K(const RL_U(W)* __restrict__ a, u32* __restrict__ out, u64 n) { \
        rl_read_g<RL_U(W), K>(a, out, n);                                                             \
    }
#define RL_WRITE(W, P, K)                                                                             \
    extern "C" __global__ void dram_write_##W##_##P##K(RL_U(W)* __restrict__ out, u64 n, u32 seed) {  \
        rl_write_##P<RL_U(W), K>(out, n, seed);                                                       \
    }
#define RL_COPY(W, P, K)                                                                              \
    extern "C" __global__ void dram_copy_##W##_##P##K(const RL_U(W)* __restrict__ a, RL_U(W)* __restrict__ b, u64 n) { \
        rl_copy_##P<RL_U(W), K>(a, b, n);                                                             \
    }
#define RL_TRIAD(W, P, K)                                                                             \
    extern "C" __global__ void dram_triad_##W##_##P##K(RL_F(W)* __restrict__ a, const RL_F(W)* __restrict__ b, \
                                                       const RL_F(W)* __restrict__ c, float q, u64 n) { \
        rl_triad_##P<RL_F(W), K>(a, b, c, q, n);                                                      \
    }
#define RL_ADD(W, P, K)                                                                               \
    extern "C" __global__ void dram_add_##W##_##P##K(const RL_F(W)* __restrict__ a, const RL_F(W)* __restrict__ b, \
                                                     RL_F(W)* __restrict__ c, u64 n) {                \
        rl_add_##P<RL_F(W), K>(a, b, c, n);                                                           \
    }
// Every width with every grid-stride depth, and the wide one-pass variants:
// the list bench/memory.rs searches (a test keeps the two in step).
#define RL_ALL_G(W) \
    RL_READ(W, 2) RL_READ(W, 4) RL_READ(W, 8) \
    RL_WRITE(W, g, 1) RL_WRITE(W, g, 4) \
    RL_COPY(W, g, 2) RL_COPY(W, g, 4) RL_COPY(W, g, 8) \
    RL_TRIAD(W, g, 1) RL_TRIAD(W, g, 2) RL_TRIAD(W, g, 4) \
    RL_ADD(W, g, 1) RL_ADD(W, g, 2) RL_ADD(W, g, 4)
#define RL_ALL_P(W) \
    RL_WRITE(W, p, 1) RL_WRITE(W, p, 2) RL_WRITE(W, p, 4) \
    RL_COPY(W, p, 1) RL_COPY(W, p, 2) RL_COPY(W, p, 4) \
    RL_TRIAD(W, p, 1) RL_TRIAD(W, p, 2) RL_TRIAD(W, p, 4) \
    RL_ADD(W, p, 1) RL_ADD(W, p, 2) RL_ADD(W, p, 4)
RL_READ(4, 4) RL_WRITE(4, g, 1) RL_COPY(4, g, 4) RL_TRIAD(4, g, 2) RL_ADD(4, g, 2)
RL_ALL_G(8)
RL_ALL_G(16)
RL_ALL_P(8)
RL_ALL_P(16)

// L2-only loads (ld.global.cg), volatile so that repeated passes over the
// same data are not merged by the compiler.
__device__ __forceinline__ uint2 rl_ldcg(const uint2* p) {
    uint2 v; asm volatile("ld.global.cg.v2.u32 {%0,%1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p)); return v;
}
__device__ __forceinline__ uint4 rl_ldcg(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
}

// Loads that allocate in L1 (ld.global.ca); the L2 kernels using them move
// every block to other blocks' data each pass so that L1 keeps missing.
__device__ __forceinline__ uint2 rl_ldca(const uint2* p) {
    uint2 v; asm volatile("ld.global.ca.v2.u32 {%0,%1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p)); return v;
}
__device__ __forceinline__ uint4 rl_ldca(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.ca.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
}

// L2: the grid reads n = NU x threads vectors, NU per thread, `passes`
// times. Each pass shifts every thread's accesses by `shift` vectors (a
// kernel argument, modulo n), so the addresses change from pass to pass in a
// way no compiler can foresee, and the loads cannot be kept in registers
// instead of being issued again.
#define RL_L2(NAME, LD, W, U, NU)                                                                   \
extern "C" __global__ void NAME##_##W##_u##NU(const U* __restrict__ a, u32* __restrict__ out,      \
                                               u32 passes, u64 shift) {                             \
    u64 s = rl_threads(), t = rl_tid(), n = (u64)NU * s, off = 0;                                   \
    u32 acc = 0;                                                                                    \
    for (u32 p = 0; p < passes; p++) {                                                              \
        U x[NU];                                                                                    \
        _Pragma("unroll") for (int k = 0; k < NU; k++) {                                            \
            u64 j = t + (u64)k * s + off;                                                           \
            if (j >= n) j -= n;                                                                     \
            x[k] = LD(a + j);                                                                       \
        }                                                                                           \
        _Pragma("unroll") for (int k = 0; k < NU; k++) acc += rl_sum(x[k]);                         \
        off += shift;                                                                               \
        if (off >= n) off -= n;                                                                     \
    }                                                                                               \
    out[t] = acc;                                                                                   \
}
#define RL_L2_ALL(NAME, LD) RL_L2(NAME, LD, 16, uint4, 2) RL_L2(NAME, LD, 16, uint4, 4) \
    RL_L2(NAME, LD, 16, uint4, 8) RL_L2(NAME, LD, 8, uint2, 4) RL_L2(NAME, LD, 8, uint2, 8)
RL_L2_ALL(l2_read, rl_ldcg)
RL_L2_ALL(l2_read_ca, rl_ldca)

// L2 writes: the grid writes n 16-byte vectors, `passes` times, with
// st.global.wb (write-back: the lines stay in L2 while the set fits), each
// pass shifted like the reads. Word w of pass p holds w * 0x9E3779B1 + p;
// every word is checked to hold the value of some pass (check_l2_write).
extern "C" __global__ void l2_write(uint4* __restrict__ a, u64 n, u32 passes, u64 shift) {
    u64 s = rl_threads(), t = rl_tid(), off = 0;
    for (u32 p = 0; p < passes; p++) {
        for (u64 i = t; i < n; i += s) {
            u64 j = i + off;
            if (j >= n) j -= n;
            u32 w = (u32)(j * 4);
            u32 x = w * 0x9E3779B1u + p, y = (w + 1) * 0x9E3779B1u + p;
            u32 z = (w + 2) * 0x9E3779B1u + p, v = (w + 3) * 0x9E3779B1u + p;
            asm volatile("st.global.wb.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(a + j), "r"(x), "r"(y), "r"(z), "r"(v) : "memory");
        }
        off += shift;
        if (off >= n) off -= n;
    }
}
// Passes are not ordered across threads (a thread may still write pass p-1
// where another has written pass p), so each word must hold the value of
// some pass: (i * 0x9E3779B1 + p) with p <= last. An unwritten (poisoned)
// word fails.
extern "C" __global__ void check_l2_write(const u32* out, u64 n, u32 last, u64* bad) {
    for (u64 i = rl_tid(); i < n; i += rl_threads())
        if (out[i] - (u32)i * 0x9E3779B1u > last) rl_bad(i, bad);
}

// Inputs: random 32-bit words, or random floats in [-1, 1).
extern "C" __global__ void init_u32(u32* p, u64 n, u32 seed) {
    for (u64 i = rl_tid(); i < n; i += rl_threads()) p[i] = rl_hash(i, seed);
}
extern "C" __global__ void init_f32(float* p, u64 n, u32 seed) {
    for (u64 i = rl_tid(); i < n; i += rl_threads()) p[i] = rl_unit(i, seed);
}

// Wrapping sum of n words into *total (one atomic per block).
extern "C" __global__ void sum_u32(const u32* p, u64 n, u32* total) {
    __shared__ u32 part[32];
    u32 acc = 0;
    for (u64 i = rl_tid(); i < n; i += rl_threads()) acc += p[i];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        u32 t = 0;
        for (int w = 0; w < (int)(blockDim.x >> 5); w++) t += part[w];
        atomicAdd(total, t);
    }
}

// Checks, element by element, recomputing what each element must hold from
// the hash (not from the input arrays the benchmark read).
extern "C" __global__ void check_write(const u32* out, u64 n, u32 seed, u64* bad) {
    for (u64 i = rl_tid(); i < n; i += rl_threads())
        if (out[i] != ((u32)i ^ seed)) rl_bad(i, bad);
}
extern "C" __global__ void check_copy(const u32* out, u64 n, u32 seed, u64* bad) {
    for (u64 i = rl_tid(); i < n; i += rl_threads())
        if (out[i] != rl_hash(i, seed)) rl_bad(i, bad);
}
extern "C" __global__ void check_triad(const float* out, u64 n, u32 sb, u32 sc, float q, u64* bad) {
    for (u64 i = rl_tid(); i < n; i += rl_threads()) {
        float e = __fmaf_rn(q, rl_unit(i, sc), rl_unit(i, sb));
        if (__float_as_uint(out[i]) != __float_as_uint(e)) rl_bad(i, bad);
    }
}
extern "C" __global__ void check_add(const float* out, u64 n, u32 sa, u32 sb, u64* bad) {
    for (u64 i = rl_tid(); i < n; i += rl_threads()) {
        float e = __fadd_rn(rl_unit(i, sa), rl_unit(i, sb));
        if (__float_as_uint(out[i]) != __float_as_uint(e)) rl_bad(i, bad);
    }
}
