// DRAM and L2 bandwidth: read-only, write-only, copy, triad and add, each in
// three access widths (4, 8 and 16 bytes per thread and access) so that a
// short search can pick the widest that the device serves best. Every kernel
// is a grid-stride loop with four independent accesses in flight per thread.
// Read kernels sum 32-bit words (wrapping), so the sum of their per-thread
// partials can be checked exactly against the input's total.

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

// L2-only loads (ld.global.cg), volatile so that repeated passes over the
// same data are not merged by the compiler.
__device__ __forceinline__ u32 rl_ldcg(const u32* p) {
    u32 v; asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p)); return v;
}
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

#define RL_MEMORY(W, U, F)                                                                          \
extern "C" __global__ void dram_read_##W(const U* __restrict__ a, u32* __restrict__ out, u64 n) {   \
    u64 s = rl_threads(), i = rl_tid();                                                           \
    u32 acc = 0;                                                                                    \
    for (; i + 3 * s < n; i += 4 * s) {                                                             \
        U x0 = a[i], x1 = a[i + s], x2 = a[i + 2 * s], x3 = a[i + 3 * s];                           \
        acc += rl_sum(x0) + rl_sum(x1) + rl_sum(x2) + rl_sum(x3);                                   \
    }                                                                                               \
    for (; i < n; i += s) acc += rl_sum(a[i]);                                                      \
    out[rl_tid()] = acc;                                                                            \
}                                                                                                   \
extern "C" __global__ void dram_write_##W(U* __restrict__ out, u64 n, u32 seed) {                   \
    u64 s = rl_threads();                                                                           \
    const u64 k = sizeof(U) / 4;                                                                    \
    for (u64 i = rl_tid(); i < n; i += s) out[i] = rl_make(U(), i * k, seed);                      \
}                                                                                                   \
extern "C" __global__ void dram_copy_##W(const U* __restrict__ a, U* __restrict__ b, u64 n) {       \
    u64 s = rl_threads(), i = rl_tid();                                                           \
    for (; i + 3 * s < n; i += 4 * s) {                                                             \
        U x0 = a[i], x1 = a[i + s], x2 = a[i + 2 * s], x3 = a[i + 3 * s];                           \
        b[i] = x0; b[i + s] = x1; b[i + 2 * s] = x2; b[i + 3 * s] = x3;                             \
    }                                                                                               \
    for (; i < n; i += s) b[i] = a[i];                                                              \
}                                                                                                   \
extern "C" __global__ void dram_triad_##W(F* __restrict__ a, const F* __restrict__ b,               \
                                          const F* __restrict__ c, float q, u64 n) {                \
    u64 s = rl_threads(), i = rl_tid();                                                           \
    for (; i + 1 * s < n; i += 2 * s) {                                                             \
        F b0 = b[i], b1 = b[i + s], c0 = c[i], c1 = c[i + s];                                       \
        a[i] = rl_triad(b0, q, c0); a[i + s] = rl_triad(b1, q, c1);                                 \
    }                                                                                               \
    for (; i < n; i += s) a[i] = rl_triad(b[i], q, c[i]);                                          \
}                                                                                                   \
extern "C" __global__ void dram_add_##W(const F* __restrict__ a, const F* __restrict__ b,           \
                                        F* __restrict__ c, u64 n) {                                 \
    u64 s = rl_threads(), i = rl_tid();                                                           \
    for (; i + 1 * s < n; i += 2 * s) {                                                             \
        F a0 = a[i], a1 = a[i + s], b0 = b[i], b1 = b[i + s];                                       \
        c[i] = rl_add(a0, b0); c[i + s] = rl_add(a1, b1);                                           \
    }                                                                                               \
    for (; i < n; i += s) c[i] = rl_add(a[i], b[i]);                                                \
}

// Eight accesses in flight per thread instead of four.
#define RL_UNROLL8(W, U)                                                                            \
extern "C" __global__ void dram_read_##W##_u8(const U* __restrict__ a, u32* __restrict__ out, u64 n) { \
    u64 s = rl_threads(), i = rl_tid();                                                           \
    u32 acc = 0;                                                                                    \
    for (; i + 7 * s < n; i += 8 * s) {                                                             \
        U x[8];                                                                                     \
        _Pragma("unroll") for (int k = 0; k < 8; k++) x[k] = a[i + k * s];                          \
        _Pragma("unroll") for (int k = 0; k < 8; k++) acc += rl_sum(x[k]);                          \
    }                                                                                               \
    for (; i < n; i += s) acc += rl_sum(a[i]);                                                      \
    out[rl_tid()] = acc;                                                                            \
}                                                                                                   \
extern "C" __global__ void dram_copy_##W##_u8(const U* __restrict__ a, U* __restrict__ b, u64 n) {  \
    u64 s = rl_threads(), i = rl_tid();                                                           \
    for (; i + 7 * s < n; i += 8 * s) {                                                             \
        U x[8];                                                                                     \
        _Pragma("unroll") for (int k = 0; k < 8; k++) x[k] = a[i + k * s];                          \
        _Pragma("unroll") for (int k = 0; k < 8; k++) b[i + k * s] = x[k];                          \
    }                                                                                               \
    for (; i < n; i += s) b[i] = a[i];                                                              \
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

RL_MEMORY(4, u32, float)
RL_MEMORY(8, uint2, float2)
RL_MEMORY(16, uint4, float4)
RL_UNROLL8(16, uint4)
#define RL_L2_ALL(NAME, LD) RL_L2(NAME, LD, 16, uint4, 2) RL_L2(NAME, LD, 16, uint4, 4) \
    RL_L2(NAME, LD, 16, uint4, 8) RL_L2(NAME, LD, 8, uint2, 4) RL_L2(NAME, LD, 8, uint2, 8)
RL_L2_ALL(l2_read, rl_ldcg)
RL_L2_ALL(l2_read_ca, rl_ldca)

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
