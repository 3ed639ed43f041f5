// Shared by every benchmark source: fixed-width types and the hash that
// makes the random inputs. The host mirrors rl_hash and rl_unit exactly
// (crates/gpu/src/bench/verify.rs) so it can predict every input.
typedef unsigned int u32;
typedef unsigned long long u64;
typedef unsigned short u16;
typedef unsigned char u8;

__device__ __forceinline__ u32 rl_hash(u64 i, u32 seed) {
    u64 x = i * 0x9E3779B97F4A7C15ull + (u64)seed;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return (u32)(x >> 32);
}

// A float in [-1, 1) with 24 significant bits, exact in binary32.
__device__ __forceinline__ float rl_unit(u64 i, u32 seed) {
    return (float)((int)(rl_hash(i, seed) >> 8) - (1 << 23)) * (1.0f / 8388608.0f);
}

__device__ __forceinline__ u64 rl_tid() { return (u64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ u64 rl_threads() { return (u64)gridDim.x * blockDim.x; }

// Counts elements that differ from what was expected and remembers the first.
__device__ __forceinline__ void rl_bad(u64 i, u64* bad) {
    atomicAdd(bad, 1ull);
    atomicMin(bad + 1, i);
}
