// Reference GEMM for verifying the tensor-core benchmarks, element by
// element. Layout as cuBLASLt is called (TN, column-major):
// D[n*M + m] = sum_k A[m*K + k] * B[n*K + k]. Inputs are decoded from their
// storage type (0 = bf16, 1 = fp16, 2 = fp32/tf32, 3 = fp8 e4m3, 4 = fp64)
// and summed in FP64, so the reference is more exact than the tensor cores.

__device__ __forceinline__ double rl_decode(const void* p, u64 i, int t) {
    if (t == 0) return (double)__uint_as_float(((u32)((const u16*)p)[i]) << 16);
    if (t == 1) {
        u32 h = ((const u16*)p)[i];
        u32 s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
        double v = e == 0 ? ldexp((double)m, -24) : ldexp(1.0 + m / 1024.0, (int)e - 15);
        return s ? -v : v;
    }
    if (t == 2) return (double)((const float*)p)[i];
    if (t == 3) {
        u32 q = ((const u8*)p)[i];
        u32 s = q >> 7, e = (q >> 3) & 15, m = q & 7;
        double v = e == 0 ? ldexp((double)m, -9) : ldexp(1.0 + m / 8.0, (int)e - 7);
        return s ? -v : v;
    }
    return ((const double*)p)[i];
}

__device__ __forceinline__ double rl_decode_out(const void* p, u64 i, int t) {
    if (t == 3) return (double)__uint_as_float(((u32)((const u16*)p)[i]) << 16); // fp8 GEMMs write bf16
    return rl_decode(p, i, t);
}

// 16x16 tiles; blockDim (16, 16).
extern "C" __global__ void gemm_check(const void* A, const void* B, const void* D, int t, u32 M, u32 N, u32 K,
                                      double rtol, double atol, u64* bad) {
    __shared__ double as[16][17], bs[16][17];
    u32 m = blockIdx.x * 16 + threadIdx.x, n = blockIdx.y * 16 + threadIdx.y;
    double acc = 0.0;
    for (u32 k0 = 0; k0 < K; k0 += 16) {
        u32 am = blockIdx.x * 16 + threadIdx.y, bn = blockIdx.y * 16 + threadIdx.y;
        as[threadIdx.y][threadIdx.x] = rl_decode(A, (u64)am * K + k0 + threadIdx.x, t);
        bs[threadIdx.y][threadIdx.x] = rl_decode(B, (u64)bn * K + k0 + threadIdx.x, t);
        __syncthreads();
        #pragma unroll
        for (int k = 0; k < 16; k++) acc += as[threadIdx.x][k] * bs[threadIdx.y][k];
        __syncthreads();
    }
    double got = rl_decode_out(D, (u64)n * M + m, t);
    double err = fabs(got - acc);
    if (!(err <= rtol * fabs(acc) + atol)) rl_bad((u64)n * M + m, bad);
}

extern "C" __global__ void gemm_init(void* p, u64 n, u32 seed, int t) {
    for (u64 i = rl_tid(); i < n; i += rl_threads()) {
        u32 h = rl_hash(i, seed);
        int k = (int)(h >> 21) - 1024; // 11 significant bits: exact in fp16, tf32, fp32, fp64
        if (t == 0) {
            int k8 = (int)(h >> 24) - 128; // 8 bits: exact in bf16
            ((u16*)p)[i] = (u16)(__float_as_uint((float)k8 / 128.0f) >> 16);
        } else if (t == 1) {
            float v = (float)k / 1024.0f;
            u32 f = __float_as_uint(v);
            u32 s = (f >> 16) & 0x8000u;
            u16 bits;
            if (v == 0.0f) bits = (u16)s;
            else {
                int e = (int)((f >> 23) & 255) - 127 + 15;
                u32 m = (f >> 13) & 1023;
                if (e <= 0) { // subnormal half: v = m' * 2^-24
                    bits = (u16)(s | (u32)(fabsf(v) * 16777216.0f));
                } else bits = (u16)(s | ((u32)e << 10) | m);
            }
            ((u16*)p)[i] = bits;
        } else if (t == 2) {
            ((float*)p)[i] = (float)k / 1024.0f;
        } else if (t == 3) {
            // sign, exponent 5..8 (2^-2 .. 2^1), any mantissa: never NaN.
            ((u8*)p)[i] = (u8)(((h >> 31) << 7) | ((5 + ((h >> 8) & 3)) << 3) | (h & 7));
        } else {
            ((double*)p)[i] = rl_unit(i, seed);
        }
    }
}
