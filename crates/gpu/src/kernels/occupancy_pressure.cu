// Register pressure for the occupancy check (occupancy_check.rs): ACCUMULATORS
// values stay live across the loop, more than any thread may hold, so the
// compiler uses every register --maxrregcount allows and spills the rest.
// STATIC_FLOATS > 0 adds that much static shared memory (and one barrier).
#ifndef ACCUMULATORS
#define ACCUMULATORS 272
#endif
#ifndef STATIC_FLOATS
#define STATIC_FLOATS 0
#endif

extern "C" __global__ void pressure(const float* __restrict__ in, float* __restrict__ out, int n)
{
    float acc[ACCUMULATORS];
#pragma unroll
    for (int i = 0; i < ACCUMULATORS; ++i) acc[i] = in[(threadIdx.x + i) & 1023];
    for (int k = 0; k < n; ++k) {
        float x = in[k & 1023];
#pragma unroll
        for (int i = 0; i < ACCUMULATORS; ++i) acc[i] = fmaf(acc[i], x, acc[(i + 7) % ACCUMULATORS]);
    }
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < ACCUMULATORS; ++i) s += acc[i] * (float)(i + 1);
#if STATIC_FLOATS > 0
    __shared__ float tile[STATIC_FLOATS];
    tile[threadIdx.x % STATIC_FLOATS] = s;
    __syncthreads();
    s += tile[(threadIdx.x + 1) % STATIC_FLOATS];
#endif
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
