// Instruction micro-benchmarks: how many warp instructions of one kind an
// SM completes per second, for the instruction roofs that FLOP roofs miss
// (integer hashing, special functions, shared memory, atomics, load issue).
//
// Every kernel's loop is made of the named instruction (scripts/device/
// bench-check.sh counts it in the SASS), and every result is checked:
// - INT32: RL_IC chains per thread, coupled in a ring (chain c reads chain
//   c + 1), RL_IU steps per trip; the host replays every chain exactly.
// - MUFU: RL_IC independent chains of an expanding map through the special
//   function (x' = A - B |f(x) - C|, or 3 sin x), which never settles, so
//   the final value depends on every step. The device's approximations are
//   deterministic: a plain one-thread loop (mufu_ref_*) replays each chain
//   and must agree bit for bit; the host checks one step against libm.
// - Shared memory: RL_SK accesses per thread and trip at addresses fixed
//   per lane, `ways` lanes per bank (ways-way bank conflicts); load sums and
//   the last stored values are predicted by the host.
// - Atomics: `red` adds with no return; `per` threads share an address; the
//   host predicts every counter.
// - Load issue: L1-resident global loads (ld.global.ca), RL_SK per trip, one
//   address per warp or one per lane; the host predicts the sums.

#define RL_IC 8
#define RL_IU 32
#define RL_SK 8

// ---- INT32 -----------------------------------------------------------------
// Each step: x = f(x, y, k), y the next chain of the ring, k the kernel's constant.
__device__ __forceinline__ u32 rl_imad(u32 x, u32 y, u32 k) {
    u32 d;
    asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(k), "r"(y));
    return d;
}
__device__ __forceinline__ u32 rl_iadd3(u32 x, u32 y, u32 k) { return x + y + k; }
// LOP3 with lookup table 0x78: x ^ (y & k).
__device__ __forceinline__ u32 rl_lop3(u32 x, u32 y, u32 k) {
    u32 d;
    asm("lop3.b32 %0, %1, %2, %3, 0x78;" : "=r"(d) : "r"(x), "r"(y), "r"(k));
    return d;
}

#define RL_INT(NAME, STEP)                                                                          \
extern "C" __global__ void NAME(const u32* __restrict__ seeds, u32* __restrict__ out, u32 iters, u32 k) { \
    u32 x[RL_IC];                                                                                   \
    _Pragma("unroll") for (int c = 0; c < RL_IC; c++) x[c] = seeds[(threadIdx.x & 15) * RL_IC + c]; \
    for (u32 i = 0; i < iters; i++) {                                                               \
        _Pragma("unroll") for (int u = 0; u < RL_IU; u++) {                                         \
            _Pragma("unroll") for (int c = 0; c < RL_IC; c++) x[c] = STEP(x[c], x[(c + 1) % RL_IC], k); \
        }                                                                                           \
    }                                                                                               \
    _Pragma("unroll") for (int c = 0; c < RL_IC; c++) out[rl_tid() * RL_IC + c] = x[c];             \
}
RL_INT(int_imad, rl_imad)
RL_INT(int_iadd3, rl_iadd3)
RL_INT(int_lop3, rl_lop3)

// ---- MUFU ------------------------------------------------------------------
__device__ __forceinline__ float rl_ex2(float x) { float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float rl_lg2(float x) { float y; asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float rl_rsq(float x) { float y; asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float rl_sin(float x) { float y; asm("sin.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }

// The maps, each keeping x inside its domain with a margin:
// ex2: [-1, 1] -> [-0.6, 0.9]; lg2: [1, 2] -> [1.05, 1.95];
// rsqrt: [1, 1.5] -> [1.05, 1.45]; sin: [-3, 3] -> [-3, 3].
__device__ __forceinline__ float rl_step_ex2(float x) { return __fmaf_rn(rl_ex2(fabsf(x)), -1.5f, 2.4f); }
__device__ __forceinline__ float rl_step_lg2(float x) {
    return __fmaf_rn(fabsf(__fmaf_rn(rl_lg2(x), 2.0f, -1.0f)), -0.9f, 1.95f);
}
__device__ __forceinline__ float rl_step_rsqrt(float x) {
    return __fmaf_rn(fabsf(__fadd_rn(rl_rsq(x), -0.908f)), -4.3f, 1.45f);
}
__device__ __forceinline__ float rl_step_sin(float x) { return __fmul_rn(rl_sin(x), 3.0f); }

#define RL_MUFU(OP)                                                                                 \
extern "C" __global__ void mufu_##OP(const float* __restrict__ seeds, float* __restrict__ out, u32 iters) { \
    float x[RL_IC];                                                                                 \
    _Pragma("unroll") for (int c = 0; c < RL_IC; c++) x[c] = seeds[(threadIdx.x & 15) * RL_IC + c]; \
    for (u32 i = 0; i < iters; i++) {                                                               \
        _Pragma("unroll") for (int u = 0; u < RL_IU; u++) {                                         \
            _Pragma("unroll") for (int c = 0; c < RL_IC; c++) x[c] = rl_step_##OP(x[c]);            \
        }                                                                                           \
    }                                                                                               \
    _Pragma("unroll") for (int c = 0; c < RL_IC; c++) out[rl_tid() * RL_IC + c] = x[c];             \
}                                                                                                   \
extern "C" __global__ void mufu_ref_##OP(const float* __restrict__ seeds, float* __restrict__ out, u32 steps) { \
    u32 t = rl_tid();                                                                               \
    if (t >= 16 * RL_IC) return;                                                                    \
    float x = seeds[t];                                                                             \
    for (u32 s = 0; s < steps; s++) x = rl_step_##OP(x);                                            \
    out[t] = x;                                                                                     \
}
RL_MUFU(ex2)
RL_MUFU(lg2)
RL_MUFU(rsqrt)
RL_MUFU(sin)

// ---- shared memory ---------------------------------------------------------
// Lane l, slot k addresses element (l * ways + k) mod (32 * ways): `ways`
// lanes share each bank, on different addresses. Every warp of a block
// uses the same elements; stores write a value that depends only on the
// element and the trip, so the last trip's values are what remains.
__device__ __forceinline__ u32 rl_elem(u32 lane, int k, u32 ways) { return (lane * ways + (u32)k) % (32u * ways); }
__device__ __forceinline__ u32 rl_sval(u32 word, u32 r) { return word * 0x9E3779B1u + r; }

// Shared tile: 32 x ways elements of W bytes, from src.
template <int W>
__device__ __forceinline__ u32 rl_tile_init(unsigned char* tile, const u32* src, u32 ways) {
    u32 words = 32u * ways * (W / 4);
    for (u32 i = threadIdx.x; i < words; i += blockDim.x) ((u32*)tile)[i] = src[i];
    __syncthreads();
    return words;
}

// One shared access of each width: W = 4 (LDS/STS) or 16 bytes (.128).
__device__ __forceinline__ u32 rl_lds(u32 addr, u32) {
    u32 x;
    asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(x) : "r"(addr));
    return x;
}
__device__ __forceinline__ u32 rl_lds(u32 addr, uint4) {
    u32 x, y, z, w;
    asm volatile("ld.volatile.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(addr));
    return x + y + z + w;
}
// Words 4e .. 4e + 3 of a 16-byte element hold rl_sval(4e + j, r) = v + j * 0x9E3779B1.
__device__ __forceinline__ void rl_sts(u32 addr, u32 v, u32) {
    asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ void rl_sts(u32 addr, u32 v, uint4) {
    asm volatile("st.volatile.shared.v4.u32 [%0], {%1,%2,%3,%4};" ::"r"(addr), "r"(v), "r"(v + 0x9E3779B1u),
                 "r"(v + 2u * 0x9E3779B1u), "r"(v + 3u * 0x9E3779B1u) : "memory");
}

// Loads: each thread returns the wrapping sum of its RL_SK elements, `reps` times.
template <typename V>
__device__ __forceinline__ void rl_smem_load(const u32* __restrict__ src, u32* __restrict__ out, u32 reps, u32 ways) {
    extern __shared__ __align__(16) unsigned char tile[];
    rl_tile_init<sizeof(V)>(tile, src, ways);
    u32 lane = threadIdx.x & 31, base = (u32)__cvta_generic_to_shared(tile), addr[RL_SK];
    #pragma unroll
    for (int k = 0; k < RL_SK; k++) addr[k] = base + rl_elem(lane, k, ways) * (u32)sizeof(V);
    u32 acc0 = 0, acc1 = 0;
    #pragma unroll 1
    for (u32 r = 0; r < reps; r++) {
        #pragma unroll
        for (int k = 0; k < RL_SK; k += 2) {
            acc0 += rl_lds(addr[k], V());
            acc1 += rl_lds(addr[k + 1], V());
        }
    }
    out[rl_tid()] = acc0 + acc1;
}

// Stores: after the loop every block copies its whole tile to
// out[block * words ...]; untouched words keep src's values.
template <typename V>
__device__ __forceinline__ void rl_smem_store(const u32* __restrict__ src, u32* __restrict__ out, u32 reps, u32 ways) {
    extern __shared__ __align__(16) unsigned char tile[];
    u32 words = rl_tile_init<sizeof(V)>(tile, src, ways);
    u32 lane = threadIdx.x & 31, base = (u32)__cvta_generic_to_shared(tile), addr[RL_SK], v0[RL_SK];
    #pragma unroll
    for (int k = 0; k < RL_SK; k++) {
        u32 e = rl_elem(lane, k, ways);
        addr[k] = base + e * (u32)sizeof(V);
        v0[k] = rl_sval(e * (u32)(sizeof(V) / 4), 0);
    }
    #pragma unroll 1
    for (u32 r = 0; r < reps; r++) {
        #pragma unroll
        for (int k = 0; k < RL_SK; k++) rl_sts(addr[k], v0[k] + r, V());
    }
    __syncthreads();
    for (u32 i = threadIdx.x; i < words; i += blockDim.x) out[(u64)blockIdx.x * words + i] = ((const u32*)tile)[i];
}

// At least four blocks of 256 per SM resident.
#define RL_SMEM(NAME, BODY, V) \
    extern "C" __global__ void __launch_bounds__(256, 4) NAME(const u32* __restrict__ src, u32* __restrict__ out, u32 reps, u32 ways) { \
        BODY<V>(src, out, reps, ways); \
    }
RL_SMEM(smem_lds32, rl_smem_load, u32)
RL_SMEM(smem_lds128, rl_smem_load, uint4)
RL_SMEM(smem_sts32, rl_smem_store, u32)
RL_SMEM(smem_sts128, rl_smem_store, uint4)

// ---- atomics ---------------------------------------------------------------
// Thread t adds (k + 1) to counter (t / per) mod words, RL_SK times per trip.
extern "C" __global__ void atomic_global(u32* __restrict__ counters, u32 iters, u32 per, u32 words) {
    u32* p = counters + (u32)((rl_tid() / per) % words);
    for (u32 i = 0; i < iters; i++) {
        #pragma unroll
        for (int k = 0; k < RL_SK; k++) asm volatile("red.global.add.u32 [%0], %1;" ::"l"(p), "r"(k + 1) : "memory");
    }
}

// The same on a block's shared counters (words of them), copied out after.
extern "C" __global__ void atomic_shared(u32* __restrict__ out, u32 iters, u32 per, u32 words) {
    extern __shared__ __align__(16) unsigned char smem[];
    u32* counters = (u32*)smem;
    for (u32 i = threadIdx.x; i < words; i += blockDim.x) counters[i] = 0;
    __syncthreads();
    u32 addr = (u32)__cvta_generic_to_shared(counters + (threadIdx.x / per) % words);
    for (u32 i = 0; i < iters; i++) {
        #pragma unroll
        for (int k = 0; k < RL_SK; k++) asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(addr), "r"(k + 1) : "memory");
    }
    __syncthreads();
    for (u32 i = threadIdx.x; i < words; i += blockDim.x) out[(u64)blockIdx.x * words + i] = counters[i];
}

// ---- load issue ------------------------------------------------------------
// RL_SK loads per trip from a small L1-resident buffer: slot k reads vector
// k * 32 + (uniform ? 0 : lane). W bytes per thread.
__device__ __forceinline__ u32 rl_ldca_sum(const u32* p) {
    u32 v; asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p)); return v;
}
__device__ __forceinline__ u32 rl_ldca_sum(const uint2* p) {
    uint2 v; asm volatile("ld.global.ca.v2.u32 {%0,%1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p)); return v.x + v.y;
}
__device__ __forceinline__ u32 rl_ldca_sum(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.ca.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v.x + v.y + v.z + v.w;
}
template <typename U>
__device__ __forceinline__ void rl_ldg_issue(const U* __restrict__ buf, u32* __restrict__ out, u32 reps, u32 uniform) {
    const U* p = buf + (uniform ? 0u : (threadIdx.x & 31));
    u32 acc0 = 0, acc1 = 0;
    #pragma unroll 1
    for (u32 r = 0; r < reps; r++) {
        #pragma unroll
        for (int k = 0; k < RL_SK; k += 2) {
            acc0 += rl_ldca_sum(p + k * 32);
            acc1 += rl_ldca_sum(p + (k + 1) * 32);
        }
    }
    out[rl_tid()] = acc0 + acc1;
}
#define RL_LDG(W, U) \
    extern "C" __global__ void __launch_bounds__(256, 4) lsu_ldg_##W(const U* __restrict__ buf, u32* __restrict__ out, u32 reps, u32 uniform) { \
        rl_ldg_issue<U>(buf, out, reps, uniform); \
    }
RL_LDG(4, u32)
RL_LDG(8, uint2)
RL_LDG(16, uint4)
