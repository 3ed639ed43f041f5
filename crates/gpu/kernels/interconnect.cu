// The interconnect benchmarks' kernels: SM copies through peer access, and
// the inputs and checks of every link benchmark (copies and NCCL
// collectives). Compiled into every GPU's session of a multi-GPU run.

// dst[i] = src[i] over n 16-byte vectors, K loads in flight per thread
// before the stores; either pointer may be a peer GPU's memory. Grid-stride,
// so any grid covers the buffer exactly once.
template <int K>
__device__ __forceinline__ void rl_peer_copy(uint4* __restrict__ dst, const uint4* __restrict__ src, u64 n) {
    const u64 t = rl_threads();
    u64 i = rl_tid();
    for (; i + (K - 1) * t < n; i += K * t) {
        uint4 v[K];
#pragma unroll
        for (int k = 0; k < K; k++) v[k] = __ldcg(src + i + k * t);
#pragma unroll
        for (int k = 0; k < K; k++) __stcg(dst + i + k * t, v[k]);
    }
    for (; i < n; i += t) __stcg(dst + i, __ldcg(src + i));
}

#define RL_PEER_COPY(K) \
    extern "C" __global__ void peer_copy_##K(uint4* dst, const uint4* src, u64 n) { rl_peer_copy<K>(dst, src, n); }
RL_PEER_COPY(1)
RL_PEER_COPY(4)
RL_PEER_COPY(8)
RL_PEER_COPY(12)

// Link inputs: random words from the hash.
extern "C" __global__ void link_fill(u32* p, u64 n, u32 seed) {
    for (u64 i = rl_tid(); i < n; i += rl_threads()) p[i] = rl_hash(i, seed);
}
extern "C" __global__ void link_check(const u32* p, u64 n, u32 seed, u64* bad) {
    for (u64 i = rl_tid(); i < n; i += rl_threads())
        if (p[i] != rl_hash(i, seed)) rl_bad(i, bad);
}

// Collective inputs: small whole numbers, so that sums over any order of up
// to 2^16 ranks are exact in binary32. Rank r's element i is coll_value(i, r).
__device__ __forceinline__ float coll_value(u64 i, u32 r) {
    return (float)((rl_hash(i, 0xC011u + r) >> 24) & 0xFFu);
}
extern "C" __global__ void coll_fill(float* p, u64 n, u32 rank) {
    for (u64 i = rl_tid(); i < n; i += rl_threads()) p[i] = coll_value(i, rank);
}
// out[i] must be the sum over ranks of element (offset + i).
extern "C" __global__ void coll_check_sum(const float* out, u64 n, u64 offset, u32 ranks, u64* bad) {
    for (u64 i = rl_tid(); i < n; i += rl_threads()) {
        float want = 0.0f;
        for (u32 r = 0; r < ranks; r++) want += coll_value(offset + i, r);
        if (out[i] != want) rl_bad(i, bad);
    }
}
// out holds `ranks` chunks of `chunk` elements: chunk r is rank r's first
// `chunk` elements (an all-gather of each rank's send buffer).
extern "C" __global__ void coll_check_gather(const float* out, u64 chunk, u32 ranks, u64* bad) {
    const u64 n = chunk * ranks;
    for (u64 i = rl_tid(); i < n; i += rl_threads()) {
        if (out[i] != coll_value(i % chunk, (u32)(i / chunk))) rl_bad(i, bad);
    }
}
