// DRAM kernel sweep for the parity question (issue 17): which access width,
// pattern, accesses in flight, launch shape and array size give the best
// read, copy, triad and add on this GPU.
//
// It includes the very kernels `roofline bench` ships (crates/gpu/kernels),
// so what it measures is what the bench can choose. Phase 1 times every
// variant and shape briefly at one array size; phase 2 times the best five
// of each operation at three array sizes, checks their output on the device,
// and prints median and best (maximum) bandwidth, as BabelStream reports its
// best of N.
//
//   nvcc -O3 -arch=sm_90 -o dram-sweep scripts/device/dram-sweep.cu
//   ./dram-sweep > sweep.csv          # CSV on stdout, summary on stderr
//
// GB/s are 1e9 bytes per second, bytes read + bytes written.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../../crates/gpu/kernels/common.cuh"
#include "../../crates/gpu/kernels/memory.cu"

#define CK(x)                                                                                     \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, #x); \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

enum Op { READ, COPY, TRIAD, ADD };
static const char* op_name[] = {"read", "copy", "triad", "add"};
static const int arrays[] = {1, 2, 3, 3};

struct Variant {
    Op op;
    char pattern;  // 'g' grid-stride, 'p' one pass
    int width, k;
    const void* fn;
};

// The same table as crates/gpu/src/bench/memory.rs (dram_kernels).
#define V(OP, OPN, P, W, K) variants.push_back({OP, #P[0], W, K, (const void*)dram_##OPN##_##W##_##P##K})
static std::vector<Variant> all_variants() {
    std::vector<Variant> variants;
    variants.push_back({READ, 'g', 4, 4, (const void*)dram_read_4_g4});
    V(READ, read, g, 16, 2); V(READ, read, g, 16, 4); V(READ, read, g, 16, 8);
    V(READ, read, g, 8, 2); V(READ, read, g, 8, 4); V(READ, read, g, 8, 8);
    V(COPY, copy, g, 4, 4);
    V(COPY, copy, g, 16, 2); V(COPY, copy, g, 16, 4); V(COPY, copy, g, 16, 8);
    V(COPY, copy, g, 8, 2); V(COPY, copy, g, 8, 4); V(COPY, copy, g, 8, 8);
    V(COPY, copy, p, 16, 1); V(COPY, copy, p, 16, 2); V(COPY, copy, p, 16, 4);
    V(COPY, copy, p, 8, 1); V(COPY, copy, p, 8, 2); V(COPY, copy, p, 8, 4);
    V(TRIAD, triad, g, 4, 2);
    V(TRIAD, triad, g, 16, 1); V(TRIAD, triad, g, 16, 2); V(TRIAD, triad, g, 16, 4);
    V(TRIAD, triad, g, 8, 1); V(TRIAD, triad, g, 8, 2); V(TRIAD, triad, g, 8, 4);
    V(TRIAD, triad, p, 16, 1); V(TRIAD, triad, p, 16, 2); V(TRIAD, triad, p, 16, 4);
    V(TRIAD, triad, p, 8, 1); V(TRIAD, triad, p, 8, 2); V(TRIAD, triad, p, 8, 4);
    V(ADD, add, g, 4, 2);
    V(ADD, add, g, 16, 1); V(ADD, add, g, 16, 2); V(ADD, add, g, 16, 4);
    V(ADD, add, g, 8, 1); V(ADD, add, g, 8, 2); V(ADD, add, g, 8, 4);
    V(ADD, add, p, 16, 1); V(ADD, add, p, 16, 2); V(ADD, add, p, 16, 4);
    V(ADD, add, p, 8, 1); V(ADD, add, p, 8, 2); V(ADD, add, p, 8, 4);
    return variants;
}

struct Shape {
    unsigned grid, block;
    std::string how;
};

// Grid-stride: 512 to 2048 threads per SM, and a grid of four trips per
// thread (a large grid, as BabelStream launches). One pass: every block size.
static std::vector<Shape> shapes(const Variant& v, unsigned long long nv, int sms) {
    std::vector<Shape> out;
    if (v.pattern == 'g') {
        for (unsigned t : {256u, 512u, 1024u})
            for (unsigned bps : {1u, 2u, 4u, 8u})
                if (t * bps >= 512 && t * bps <= 2048) out.push_back({(unsigned)sms * bps, t, "per-SM"});
        // Not for reads: their partial sums are one per thread of a GPU-sized grid.
        for (unsigned t : {256u, 1024u}) {
            unsigned long long g = nv / ((unsigned long long)t * v.k * 4);
            if (v.op != READ && g > 0 && g < (1ull << 31)) out.push_back({(unsigned)g, t, "4-trips"});
        }
    } else {
        for (unsigned t : {128u, 256u, 512u, 1024u}) {
            unsigned long long g = (nv + (unsigned long long)t * v.k - 1) / ((unsigned long long)t * v.k);
            if (g < (1ull << 31)) out.push_back({(unsigned)g, t, "one-pass"});
        }
    }
    return out;
}

struct Buffers {
    u32 *a, *b, *c, *part;
    unsigned long long words;
};

static void launch(const Variant& v, const Shape& s, Buffers& m) {
    unsigned long long nv = m.words / (v.width / 4);
    float q = 0.75f;
    void* args[6];
    switch (v.op) {
        case READ: { args[0] = &m.a; args[1] = &m.part; args[2] = &nv; break; }
        case COPY: { args[0] = &m.a; args[1] = &m.b; args[2] = &nv; break; }
        case TRIAD: { args[0] = &m.a; args[1] = &m.b; args[2] = &m.c; args[3] = &q; args[4] = &nv; break; }
        case ADD: { args[0] = &m.a; args[1] = &m.b; args[2] = &m.c; args[3] = &nv; break; }
    }
    CK(cudaLaunchKernel(v.fn, dim3(s.grid), dim3(s.block), args, 0, 0));
}

struct Result {
    double median, best;
};

static Result time_it(const Variant& v, const Shape& s, Buffers& m, int warm, int reps) {
    for (int i = 0; i < warm; i++) launch(v, s, m);
    std::vector<cudaEvent_t> ev(reps + 1);
    for (auto& e : ev) CK(cudaEventCreate(&e));
    CK(cudaEventRecord(ev[0]));
    for (int i = 0; i < reps; i++) {
        launch(v, s, m);
        CK(cudaEventRecord(ev[i + 1]));
    }
    CK(cudaEventSynchronize(ev[reps]));
    std::vector<double> gbs;
    double bytes = (double)arrays[v.op] * m.words * 4.0;
    for (int i = 0; i < reps; i++) {
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
        gbs.push_back(bytes / (ms * 1e-3) / 1e9);
    }
    for (auto& e : ev) CK(cudaEventDestroy(e));
    std::sort(gbs.begin(), gbs.end());
    return {gbs[gbs.size() / 2], gbs.back()};
}

// Device check of triad and add against the hash (memory.cu's kernels).
static unsigned long long check(const Variant& v, Buffers& m, int sms) {
    if (v.op != TRIAD && v.op != ADD) return 0;
    unsigned long long* bad;
    CK(cudaMalloc(&bad, 16));
    unsigned long long init[2] = {0, ~0ull};
    CK(cudaMemcpy(bad, init, 16, cudaMemcpyHostToDevice));
    if (v.op == TRIAD) check_triad<<<sms * 8, 256>>>((const float*)m.a, m.words, 0x5678, 0x9abc, 0.75f, bad);
    else check_add<<<sms * 8, 256>>>((const float*)m.c, m.words, 0x1234, 0x5678, bad);
    CK(cudaMemcpy(init, bad, 16, cudaMemcpyDeviceToHost));
    CK(cudaFree(bad));
    return init[0];
}

static void fill(Buffers& m, int sms) {
    init_f32<<<sms * 8, 256>>>((float*)m.a, m.words, 0x1234);
    init_f32<<<sms * 8, 256>>>((float*)m.b, m.words, 0x5678);
    init_f32<<<sms * 8, 256>>>((float*)m.c, m.words, 0x9abc);
    CK(cudaDeviceSynchronize());
}

int main() {
    int dev = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, dev));
    fprintf(stderr, "dram-sweep on %s, %d SMs\n", p.name, sms);
    const unsigned long long sizes[] = {1ull << 30, 2ull << 30, 4ull << 30};
    Buffers m;
    unsigned long long maxw = (4ull << 30) / 4;
    CK(cudaMalloc(&m.a, maxw * 4));
    CK(cudaMalloc(&m.b, maxw * 4));
    CK(cudaMalloc(&m.c, maxw * 4));
    CK(cudaMalloc(&m.part, (size_t)sms * 2048 * 4));
    auto variants = all_variants();
    printf("phase,op,array_bytes,kernel,shape,grid,block,median_GBs,best_GBs,bad\n");
    // Phase 1: every variant and shape at 2 GiB arrays (BabelStream's 2^28 doubles).
    m.words = (2ull << 30) / 4;
    fill(m, sms);
    struct Cand { Variant v; Shape s; double median; };
    std::vector<Cand> cands;
    for (auto& v : variants)
        for (auto& s : shapes(v, m.words / (v.width / 4), sms)) {
            Result r = time_it(v, s, m, 1, 5);
            char name[64];
            snprintf(name, sizeof name, "dram_%s_%d_%c%d", op_name[v.op], v.width, v.pattern, v.k);
            printf("1,%s,%llu,%s,%s,%u,%u,%.1f,%.1f,\n", op_name[v.op], m.words * 4, name, s.how.c_str(), s.grid, s.block,
                   r.median, r.best);
            cands.push_back({v, s, r.median});
        }
    fflush(stdout);
    // Phase 2: the best five of each operation, three array sizes, full timing and a check.
    fprintf(stderr, "\n%-6s %-6s %-18s %-9s %-8s %-6s %9s %9s\n", "op", "GiB", "kernel", "shape", "grid", "block", "median", "best");
    for (int op = READ; op <= ADD; op++) {
        std::vector<Cand> mine;
        for (auto& c : cands)
            if (c.v.op == op) mine.push_back(c);
        std::sort(mine.begin(), mine.end(), [](const Cand& x, const Cand& y) { return x.median > y.median; });
        if (mine.size() > 5) mine.resize(5);
        for (unsigned long long bytes : sizes) {
            m.words = bytes / 4;
            fill(m, sms);
            for (auto& c : mine) {
                auto ss = shapes(c.v, m.words / (c.v.width / 4), sms);
                Shape s = c.s;
                for (auto& x : ss)  // the same shape rule at this size
                    if (x.how == c.s.how && x.block == c.s.block && (x.how == "per-SM" ? x.grid == c.s.grid : true)) s = x;
                Result r = time_it(c.v, s, m, 2, 30);
                unsigned long long bad = check(c.v, m, sms);
                char name[64];
                snprintf(name, sizeof name, "dram_%s_%d_%c%d", op_name[op], c.v.width, c.v.pattern, c.v.k);
                printf("2,%s,%llu,%s,%s,%u,%u,%.1f,%.1f,%llu\n", op_name[op], bytes, name, s.how.c_str(), s.grid, s.block,
                       r.median, r.best, bad);
                fprintf(stderr, "%-6s %-6.0f %-18s %-9s %-8u %-6u %9.1f %9.1f%s\n", op_name[op], bytes / 1073741824.0, name,
                        s.how.c_str(), s.grid, s.block, r.median, r.best, bad ? "  WRONG OUTPUT" : "");
            }
        }
    }
    return 0;
}
