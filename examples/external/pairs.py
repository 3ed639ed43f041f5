"""Before/after pairs: a change a performance engineer would make, timed on
the GPU, for checking the savings the tool predicts (issue 25).

Each pair has a "before" and an "after" callable doing the same work. The
driver warms both up, then times each with CUDA events, REPS times
interleaved, and prints one line per pair with the median and the
interquartile range of both, in microseconds. With --window before, only
the before callable's first measured call runs inside cuProfilerStart/Stop,
so that

    ncu --profile-from-start off --set full ... python3 pairs.py --window before

captures exactly one "before" call per pair, from which `roofline import`
predicts the saving.

    python3 pairs.py --list
    python3 pairs.py                       # timings of every pair
    python3 pairs.py --only vocab_pad      # one pair
"""
import argparse
import ctypes
import statistics
import sys

import torch
import torch.nn.functional as F

PAIRS = {}


def pair(name, what):
    def register(setup):
        PAIRS[name] = (what, setup)
        return setup

    return register


@pair("fused_adamw", "AdamW over GPT-2-small-like parameters (148 tensors, 124 M): foreach=True (before) against fused=True (after)")
def fused_adamw():
    torch.manual_seed(0)
    shapes = [(50257, 768), (1024, 768)] + [s for _ in range(12) for s in [(768,), (768,), (2304, 768), (2304,), (768, 768), (768,), (768,), (768,), (3072, 768), (3072,), (768, 3072), (768,)]] + [(768,), (768,)]
    def make(fused):
        ps = [torch.nn.Parameter(torch.randn(s, device="cuda") * 0.02) for s in shapes]
        for p in ps:
            p.grad = torch.randn_like(p) * 1e-3
        kw = {"fused": True} if fused else {"foreach": True}
        opt = torch.optim.AdamW(ps, lr=1e-4, **kw)
        return opt
    before, after = make(False), make(True)
    return before.step, after.step


@pair("channels_last", "ResNet-50 layer2+layer3 forward+backward, batch 64, bf16 autocast, cudnn.benchmark: NCHW (before) against channels_last (after)")
def channels_last():
    import torchvision

    torch.backends.cudnn.benchmark = True

    def make(cl):
        m = torchvision.models.resnet50(weights=None).cuda()
        body = torch.nn.Sequential(m.layer2, m.layer3)
        x = torch.randn(64, 256, 56, 56, device="cuda", requires_grad=True)
        if cl:
            body = body.to(memory_format=torch.channels_last)
            x = x.detach().to(memory_format=torch.channels_last).requires_grad_()

        def run():
            with torch.autocast("cuda", dtype=torch.bfloat16):
                out = body(x)
            out.float().sum().backward()

        return run

    return make(False), make(True)


@pair("vocab_pad", "LM head forward+backward, bf16, tokens 4096, d 768: vocabulary 50257 (before) against 50304, a multiple of 64 (after)")
def vocab_pad():
    def make(vocab):
        w = torch.randn(vocab, 768, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        x = torch.randn(4096, 768, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        g = torch.randn(4096, vocab, device="cuda", dtype=torch.bfloat16)

        def run():
            y = x @ w.t()
            y.backward(g)

        return run

    return make(50257), make(50304)


@pair("compiled_chain", "an elementwise chain y = gelu(x * a + b) * c + x on 64 M fp32 values: eager (before) against torch.compile (after)")
def compiled_chain():
    x = torch.randn(1 << 26, device="cuda")
    a, b, c = (torch.randn(1 << 26, device="cuda") for _ in range(3))

    def chain(x, a, b, c):
        return F.gelu(x * a + b) * c + x

    compiled = torch.compile(chain)
    return (lambda: chain(x, a, b, c)), (lambda: compiled(x, a, b, c))


@pair("gelu_epilogue", "Linear 8192x4096 -> 16384 + bias + GELU in bf16: linear then gelu (before) against cuBLASLt's GELU epilogue via torch._addmm_activation (after)")
def gelu_epilogue():
    x = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(16384, 4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(16384, device="cuda", dtype=torch.bfloat16)
    wt = w.t()
    return (lambda: F.gelu(F.linear(x, w, b))), (lambda: torch._addmm_activation(b, x, wt, use_gelu=True))


@pair("autocast_casts", "a 4-layer MLP forward+backward under bf16 autocast with fp32 weights (before) against bf16 weights, no autocast (after), batch 8192, width 4096")
def autocast_casts():
    def make(bf16_weights):
        layers = [torch.nn.Linear(4096, 4096).cuda() for _ in range(4)]
        if bf16_weights:
            layers = [l.to(torch.bfloat16) for l in layers]
        model = torch.nn.Sequential(*layers)
        x = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16 if bf16_weights else torch.float32)

        def run():
            if bf16_weights:
                out = model(x)
            else:
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    out = model(x)
            out.float().sum().backward()

        return run

    return make(False), make(True)



@pair("eager_attention", "window attention as Swin-T's stage 3 computes it (256 windows of 49 tokens, 12 heads of 32, a relative-position bias), bf16 inference: q@k^T*scale + bias, softmax, @v (before) against F.scaled_dot_product_attention with the bias as attn_mask (after)")
def eager_attention():
    torch.manual_seed(0)
    q, k, v = (torch.randn(256, 12, 49, 32, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    bias = torch.randn(1, 12, 49, 49, device="cuda", dtype=torch.bfloat16)
    scale = 32 ** -0.5

    def eager():
        with torch.no_grad():
            attn = (q * scale) @ k.transpose(-2, -1) + bias
            return attn.softmax(dim=-1) @ v

    def fused():
        with torch.no_grad():
            return F.scaled_dot_product_attention(q, k, v, attn_mask=bias)

    return eager, fused


@pair("bn_fold", "EfficientNet-like inference block, fp16, channels_last, batch 128 at 28x28: Conv2d(192, 192, 3) then BatchNorm2d in eval (before) against the same convolution with the norm folded into its weights by torch.nn.utils.fusion.fuse_conv_bn_eval (after)")
def bn_fold():
    from torch.nn.utils.fusion import fuse_conv_bn_eval

    torch.manual_seed(0)
    conv = torch.nn.Conv2d(192, 192, 3, padding=1, bias=False).cuda().eval()
    bn = torch.nn.BatchNorm2d(192).cuda().eval()
    bn.running_mean.uniform_(-0.1, 0.1)
    bn.running_var.uniform_(0.5, 1.5)
    fused = fuse_conv_bn_eval(conv, bn)
    conv, bn, fused = (m.half().to(memory_format=torch.channels_last) for m in (conv, bn, fused))
    x = torch.randn(128, 192, 28, 28, device="cuda", dtype=torch.half).to(memory_format=torch.channels_last)
    torch.backends.cudnn.benchmark = True

    def before():
        with torch.no_grad():
            return bn(conv(x))

    def after():
        with torch.no_grad():
            return fused(x)

    return before, after

@pair("tf32_mlp", "a recommender's top MLP in fp32 (Linear 1024-1024-512-256 with ReLU, batch 8192) forward+backward: FP32 CUDA-core GEMMs (before) against TF32 tensor-core GEMMs, torch.backends.cuda.matmul.allow_tf32 = True (after)")
def tf32_mlp():
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 512), torch.nn.ReLU(),
                              torch.nn.Linear(512, 256)).cuda()
    x = torch.randn(8192, 1024, device="cuda")

    def make(tf32):
        def run():
            torch.backends.cuda.matmul.allow_tf32 = tf32
            mlp(x).sum().backward()
            torch.backends.cuda.matmul.allow_tf32 = False

        return run

    return make(False), make(True)


@pair("fused_qkv", "attention's input projections, bf16, 16384 tokens of width 768, forward+backward: three Linear(768, 768) for q, k and v (before) against one Linear(768, 2304) split into q, k and v (after)")
def fused_qkv():
    torch.manual_seed(0)
    x = torch.randn(16384, 768, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    ws = [torch.randn(768, 768, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3)]
    w = torch.cat([t.detach() for t in ws]).requires_grad_()

    def before():
        q, k, v = (F.linear(x, t) for t in ws)
        (q.float().sum() + k.float().sum() + v.float().sum()).backward()

    def after():
        q, k, v = F.linear(x, w).split(768, dim=-1)
        (q.float().sum() + k.float().sum() + v.float().sum()).backward()

    return before, after


@pair("batched_embedding", "a recommender's sparse lookups, fp32: 8 EmbeddingBag tables of 500k x 128, sum pooling of 20 ids per bag, batch 4096, forward: one EmbeddingBag call per table (before) against one call on the tables stacked into one, ids offset by table (after)")
def batched_embedding():
    torch.manual_seed(0)
    tables, rows, d, batch, bag = 8, 500_000, 128, 4096, 20
    embs = [torch.nn.EmbeddingBag(rows, d, mode="sum").cuda() for _ in range(tables)]
    stacked = torch.nn.EmbeddingBag(tables * rows, d, mode="sum").cuda()
    with torch.no_grad():
        stacked.weight.copy_(torch.cat([e.weight for e in embs]))
    ids = [torch.randint(0, rows, (batch * bag,), device="cuda") for _ in range(tables)]
    offsets = torch.arange(0, batch * bag, bag, device="cuda")
    all_ids = torch.cat([i + t * rows for t, i in enumerate(ids)])
    all_offsets = torch.arange(0, tables * batch * bag, bag, device="cuda")

    def before():
        with torch.no_grad():
            return torch.stack([e(i, offsets) for e, i in zip(embs, ids)], dim=1)

    def after():
        with torch.no_grad():
            return stacked(all_ids, all_offsets).view(tables, batch, d).transpose(0, 1).contiguous()

    return before, after


@pair("cupy_cg_update", "a conjugate-gradient iteration's vector work in CuPy, fp64, 4.2M unknowns: x += a*p, r -= a*q, rr = r.r, p = r + b*p as separate CuPy operations with a cuBLAS dot (before) against two cupy.ElementwiseKernel passes (x and r in one, p in the other) and a cupy.ReductionKernel for r.r (after)")
def cupy_cg_update():
    import cupy as cp

    n = 2048 * 2048
    cp.random.seed(0)
    x, r, p, q = (cp.random.standard_normal(n) for _ in range(4))
    a, b = 1e-3, 0.5
    # x and r are updated in place, one pass over p, q, x and r
    update_xr = cp.ElementwiseKernel("float64 p, float64 q, float64 a", "raw float64 x, raw float64 r",
                                     "x[i] += a * p; r[i] -= a * q", "cg_update_xr")
    rr_of = cp.ReductionKernel("float64 r", "float64 rr", "r * r", "a + b", "rr = a", "0", "cg_rr")
    update_p = cp.ElementwiseKernel("float64 r, float64 b", "float64 p", "p = r + b * p", "cg_update_p")

    def before():
        cp.add(x, a * p, out=x)
        cp.subtract(r, a * q, out=r)
        rr = r.dot(r)
        cp.multiply(p, b, out=p)
        cp.add(p, r, out=p)
        return rr

    def after():
        update_xr(p, q, a, x, r)
        rr = rr_of(r)
        update_p(r, b, p)
        return rr

    return before, after


@pair("conv_bias_gelu", "Whisper's audio front end, bf16 autocast: Conv1d(80, 512, 3, padding=1) on 8 x 80 x 3000 then GELU, eager (before) against torch.compile of the same function, which fuses the bias add into the GELU (after)")
def conv_bias_gelu():
    torch.manual_seed(0)
    conv = torch.nn.Conv1d(80, 512, 3, padding=1).cuda()
    x = torch.randn(8, 80, 3000, device="cuda")

    def run():
        with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
            return F.gelu(conv(x))

    compiled = torch.compile(run)
    compiled()
    return run, compiled


@pair("cat_prealloc", "a DenseNet dense layer's concatenation, bf16 NCHW, batch 32 at 14 x 14: 256 channels of earlier features and 32 new ones from a ReLU, torch.cat into a fresh tensor (before) against the earlier features already in a preallocated 288-channel buffer and the ReLU (torch.clamp(min=0)) writing its 32 channels into the buffer's slice with out= (after)")
def cat_prealloc():
    torch.manual_seed(0)
    prev = torch.randn(32, 256, 14, 14, device="cuda", dtype=torch.bfloat16)
    new = torch.randn(32, 32, 14, 14, device="cuda", dtype=torch.bfloat16)
    buf = torch.empty(32, 288, 14, 14, device="cuda", dtype=torch.bfloat16)
    buf[:, :256].copy_(prev)

    def before():
        return torch.cat([prev, torch.relu(new)], dim=1)

    def after():
        torch.clamp(new, min=0, out=buf[:, 256:])
        return buf

    return before, after



@pair("bn_relu_compile", "a ResNeXt-50 layer-3 batch norm in training, bf16 autocast, channels_last, 32 x 512 x 28 x 28: BatchNorm2d (batch statistics) then ReLU, eager (before) against torch.compile of the same function (after)")
def bn_relu_compile():
    torch.manual_seed(0)
    bn = torch.nn.BatchNorm2d(512).cuda().train()
    x = torch.randn(32, 512, 28, 28, device="cuda").to(torch.bfloat16).to(memory_format=torch.channels_last)

    def run():
        with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
            return F.relu(bn(x))

    compiled = torch.compile(run)
    compiled()
    return run, compiled


@pair("opt_use_cache", "a Hugging Face OPT causal LM (4 layers, d 768, 12 heads, vocab 50272, random weights) training forward+backward, batch 8 x 512, bf16 autocast: the default use_cache (before) against use_cache=False (after)")
def opt_use_cache():
    from transformers import OPTConfig, OPTForCausalLM

    torch.manual_seed(0)
    cfg = OPTConfig(hidden_size=768, num_hidden_layers=4, num_attention_heads=12, ffn_dim=3072,
                    vocab_size=50272, max_position_embeddings=1024, word_embed_proj_dim=768)
    cfg._attn_implementation = "sdpa"
    model = OPTForCausalLM(cfg).cuda()
    ids = torch.randint(3, 50272, (8, 512), device="cuda")

    def make(use_cache):
        def step():
            model.zero_grad(set_to_none=True)
            kw = {} if use_cache is None else {"use_cache": use_cache}
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = model(input_ids=ids, labels=ids, **kw).loss
            loss.backward()
        return step

    return make(None), make(False)



@pair("patchify_gemm", "a vision transformer's patch embedding, bf16, 64 images of 3 x 224 x 224 into 384 channels: Conv2d(3, 384, 16, stride 16), which cuDNN runs on the CUDA cores (before), against the image cut into 16 x 16 patches (one reshape-permute copy) and one Linear(768, 384) GEMM (after)")
def patchify_gemm():
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 384, 16, stride=16).cuda().to(torch.bfloat16)
    x = torch.randn(64, 3, 224, 224, device="cuda", dtype=torch.bfloat16)
    w = conv.weight.detach().reshape(384, 768)
    bias = conv.bias.detach()

    def before():
        with torch.no_grad():
            return conv(x)

    def after():
        patches = x.reshape(64, 3, 14, 16, 14, 16).permute(0, 2, 4, 1, 3, 5).reshape(64 * 196, 768)
        return torch.addmm(bias, patches, w.t())

    return before, after


@pair("kmeans_augmented_gemm", "k-means distances in CuPy, fp32, 2M points of 64 features against 256 centroids: x2[:, None] - 2 * (x @ c.T) + c2[None, :] as a GEMM and three elementwise passes (before) against one GEMM of the points augmented with [x2, 1] and the centroids with [1, c2] scaled by -2 (after)")
def kmeans_augmented_gemm():
    import cupy as cp

    n, d, k = 2_000_000, 64, 256
    cp.random.seed(0)
    x = cp.random.standard_normal((n, d), dtype=cp.float32)
    c = x[:k].copy()
    x2 = (x * x).sum(axis=1)
    c2 = (c * c).sum(axis=1)
    xa = cp.concatenate([x, x2[:, None], cp.ones((n, 1), dtype=cp.float32)], axis=1)
    ca = cp.concatenate([-2.0 * c, cp.ones((k, 1), dtype=cp.float32), c2[:, None]], axis=1)

    def before():
        return x2[:, None] - 2.0 * (x @ c.T) + c2[None, :]

    def after():
        return xa @ ca.T

    return before, after


@pair("tiled_gaussian", "a Gaussian blur, sigma 2 on both image axes (17 taps, mode reflect), of 16 fp32 images of 2048 x 2048: cupyx.scipy.ndimage.gaussian_filter, two generic correlate1d passes (before), against two passes of a separable kernel written for it (cupy.RawKernel: a column pass and a row pass, each tile staged in shared memory with its 8-pixel halo, 32-bit indices, the boundary reflected only at the edges) (after)")
def tiled_gaussian():
    import cupy as cp
    import numpy as np
    from cupyx.scipy import ndimage

    b, h, w, r = 16, 2048, 2048, 8
    taps = np.exp(-0.5 * (np.arange(-r, r + 1) / 2.0) ** 2)
    taps = (taps / taps.sum()).astype(np.float32)
    weights = ", ".join(f"{t:.9e}f" for t in taps)
    src = r"""
    #define R 8
    __constant__ float K[2 * R + 1] = {WEIGHTS};
    __device__ __forceinline__ int reflect(int i, int n) { return i < 0 ? -i - 1 : (i >= n ? 2 * n - i - 1 : i); }
    // Along axis 1 (rows of an image): a block is 32 columns x 64 rows of output,
    // its 64 + 2R rows staged in shared memory; each thread makes 8 outputs.
    extern "C" __global__ void column_pass(const float* in, float* out, int h, int w) {
        __shared__ float tile[64 + 2 * R][32];
        const float* img = in + (size_t)blockIdx.z * h * w;
        float* dst = out + (size_t)blockIdx.z * h * w;
        int x = blockIdx.x * 32 + threadIdx.x, y0 = blockIdx.y * 64;
        for (int j = threadIdx.y; j < 64 + 2 * R; j += 8) tile[j][threadIdx.x] = img[(size_t)reflect(y0 + j - R, h) * w + x];
        __syncthreads();
        for (int j = threadIdx.y; j < 64; j += 8) {
            float acc = 0.0f;
            #pragma unroll
            for (int t = 0; t <= 2 * R; ++t) acc += K[t] * tile[j + t][threadIdx.x];
            dst[(size_t)(y0 + j) * w + x] = acc;
        }
    }
    // Along axis 2 (within a row): a block is 256 outputs of one row, the row
    // segment and its halo staged in shared memory.
    extern "C" __global__ void row_pass(const float* in, float* out, int h, int w) {
        __shared__ float seg[256 + 2 * R];
        size_t row = (size_t)blockIdx.z * h + blockIdx.y;
        const float* src = in + row * w;
        int x0 = blockIdx.x * 256, x = x0 + threadIdx.x;
        seg[threadIdx.x + R] = src[x];
        if (threadIdx.x < R) {
            seg[threadIdx.x] = src[reflect(x0 - R + threadIdx.x, w)];
            seg[256 + R + threadIdx.x] = src[reflect(x0 + 256 + threadIdx.x, w)];
        }
        __syncthreads();
        float acc = 0.0f;
        #pragma unroll
        for (int t = 0; t <= 2 * R; ++t) acc += K[t] * seg[threadIdx.x + t];
        out[row * w + x] = acc;
    }
    """.replace("{WEIGHTS}", "{" + weights + "}")
    mod = cp.RawModule(code=src)
    column, row = mod.get_function("column_pass"), mod.get_function("row_pass")
    cp.random.seed(0)
    img = cp.random.random((b, h, w), dtype=cp.float32)
    tmp = cp.empty_like(img)
    out = cp.empty_like(img)

    def before():
        return ndimage.gaussian_filter(img, sigma=(0, 2, 2))

    def after():
        column((w // 32, h // 64, b), (32, 8), (img, tmp, cp.int32(h), cp.int32(w)))
        row((w // 256, h, b), (256,), (tmp, out, cp.int32(h), cp.int32(w)))
        return out

    err = float(cp.abs(before() - after()).max())
    print(f"tiled_gaussian: max |before - after| = {err:.3g}", file=sys.stderr)
    if err > 1e-4:
        raise SystemExit(f"tiled_gaussian: the two sides differ by {err}")
    return before, after


USER_KERNELS = r"""
extern "C" __global__ void matmul(const float* A, const float* B, float* C, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float acc = 0.0f;
        for (int k = 0; k < n; ++k) acc += A[row * n + k] * B[k * n + col];
        C[row * n + col] = acc;
    }
}
extern "C" __global__ void histogram(const float* data, int* bins, long long m) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) atomicAdd(&bins[((int)(data[i] * 256.0f)) & 255], 1);
}
// One block-private histogram in shared memory, then one global atomic per
// bin and block; each thread strides over the input.
extern "C" __global__ void shared_histogram(const float* data, int* bins, long long m) {
    __shared__ int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (long long)gridDim.x * blockDim.x)
        atomicAdd(&local[((int)(data[i] * 256.0f)) & 255], 1);
    __syncthreads();
    if (local[threadIdx.x]) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
"""


@pair("library_matmul", "a user's naive FP32 matrix product (cupy.RawKernel, one thread per output, as in round 9's cupy_user_kernels) of 2048 x 2048 matrices (before) against cupy.matmul, cuBLAS's SGEMM without TF32 (after)")
def library_matmul():
    import cupy as cp

    n = 2048
    mod = cp.RawModule(code=USER_KERNELS)
    matmul = mod.get_function("matmul")
    cp.random.seed(0)
    a = cp.random.random((n, n), dtype=cp.float32)
    b = cp.random.random((n, n), dtype=cp.float32)
    c = cp.empty((n, n), dtype=cp.float32)

    def before():
        matmul(((n + 15) // 16, (n + 15) // 16), (16, 16), (a, b, c, cp.int32(n)))
        return c

    def after():
        return cp.matmul(a, b)

    err = float(cp.abs(before() - after()).max() / cp.abs(after()).max())
    print(f"library_matmul: max relative |before - after| = {err:.3g}", file=sys.stderr)
    if err > 1e-4:
        raise SystemExit(f"library_matmul: the two sides differ by {err}")
    return before, after


@pair("shared_histogram", "a 256-bin histogram of 64 M fp32 values: one global atomicAdd per value (cupy.RawKernel, as in round 9's cupy_user_kernels; before) against a block-private histogram in shared memory and one global atomicAdd per bin and block (after)")
def shared_histogram():
    import cupy as cp

    m = 64 * 1024 * 1024
    mod = cp.RawModule(code=USER_KERNELS)
    hist, shared = mod.get_function("histogram"), mod.get_function("shared_histogram")
    cp.random.seed(0)
    data = cp.random.random(m, dtype=cp.float32)
    bins = cp.zeros(256, dtype=cp.int32)
    bins2 = cp.zeros(256, dtype=cp.int32)

    def before():
        hist(((m + 255) // 256,), (256,), (data, bins, cp.int64(m)))
        return bins

    def after():
        shared((132 * 8,), (256,), (data, bins2, cp.int64(m)))
        return bins2

    bins.fill(0)
    bins2.fill(0)
    same = bool((before() == after()).all())
    print(f"shared_histogram: same bins: {same}", file=sys.stderr)
    if not same:
        raise SystemExit("shared_histogram: the two sides' bins differ")
    return before, after


@pair("cupy_var_parallel", "a standard deviation of 2^25 fp32 values in CuPy, as round 10's option pricing takes it (payoff.std()): cupy.ndarray.std, which runs its reduction in one block (before), against cupy.sqrt(((x - x.mean())**2).mean()), a mean, a fused square of the difference and a mean (after)")
def cupy_var_parallel():
    import cupy as cp

    cp.random.seed(0)
    x = cp.maximum(cp.random.standard_normal(1 << 25, dtype=cp.float32) * 20 + 5, 0)

    def before():
        return x.std()

    def after():
        return cp.sqrt(((x - x.mean()) ** 2).mean())

    err = float(abs(before() - after()) / before())
    print(f"cupy_var_parallel: relative |before - after| = {err:.3g}", file=sys.stderr)
    if err > 1e-4:
        raise SystemExit(f"cupy_var_parallel: the two sides differ by {err}")
    return before, after


@pair("philox_normals", "2^25 standard normals in fp32 from CuPy's cuRAND generator, as round 10's option pricing draws them: the default XORWOW generator (before) against cupy.random.RandomState(method=CURAND_RNG_PSEUDO_PHILOX4_32_10) (after)")
def philox_normals():
    import cupy as cp
    from cupy.cuda import curand

    n = 1 << 25
    xorwow = cp.random.RandomState(0)
    philox = cp.random.RandomState(0, method=curand.CURAND_RNG_PSEUDO_PHILOX4_32_10)

    def before():
        return xorwow.standard_normal(n, dtype=cp.float32)

    def after():
        return philox.standard_normal(n, dtype=cp.float32)

    for name, fn in (("before", before), ("after", after)):
        z = fn()
        m, sd = float(z.mean()), float(z.std())
        print(f"philox_normals: {name} mean {m:.4f} std {sd:.4f}", file=sys.stderr)
        if abs(m) > 1e-2 or abs(sd - 1) > 1e-2:
            raise SystemExit(f"philox_normals: the {name} side is not standard normal")
    return before, after


@pair("sage_spmm", "a graph layer's mean aggregation, fp32, 100k nodes of 128 features over 1.6M random edges (round 9's GraphSAGE sizes), forward+backward: rows gathered by the source index (index_select) and scatter-added by the destination (index_add_), divided by the degree (before), against one sparse product with a CSR adjacency weighted by 1/degree (torch.sparse.mm forward, its transpose backward, both built once, as torch_geometric's adj_t) (after)")
def sage_spmm():
    n, e, d = 100_000, 1_600_000, 128
    g = torch.Generator(device="cuda").manual_seed(0)
    src = torch.randint(0, n, (e,), device="cuda", generator=g)
    dst = torch.randint(0, n, (e,), device="cuda", generator=g)
    deg = torch.zeros(n, device="cuda").index_add_(0, dst, torch.ones(e, device="cuda")).clamp_(min=1)
    inv = (1 / deg)[:, None]
    w = (1 / deg)[dst]
    a = torch.sparse_coo_tensor(torch.stack([dst, src]), w, (n, n)).coalesce().to_sparse_csr()
    at = torch.sparse_coo_tensor(torch.stack([src, dst]), w, (n, n)).coalesce().to_sparse_csr()

    class Aggregate(torch.autograd.Function):
        @staticmethod
        def forward(ctx, h):
            return torch.sparse.mm(a, h)

        @staticmethod
        def backward(ctx, grad):
            return torch.sparse.mm(at, grad)

    x = torch.randn(n, d, device="cuda", requires_grad=True)
    grad = torch.randn(n, d, device="cuda")

    def before():
        msg = x.index_select(0, src)
        out = torch.zeros(n, d, device="cuda").index_add_(0, dst, msg) * inv
        out.backward(grad)
        return out

    def after():
        out = Aggregate.apply(x)
        out.backward(grad)
        return out

    ob = before()
    gb = x.grad.clone()
    x.grad = None
    oa = after()
    err = float((ob - oa).abs().max() / ob.abs().max())
    gerr = float((gb - x.grad).abs().max() / gb.abs().max())
    print(f"sage_spmm: max relative |before - after| = {err:.3g} forward, {gerr:.3g} backward", file=sys.stderr)
    if err > 1e-4 or gerr > 1e-4:
        raise SystemExit(f"sage_spmm: the two sides differ by {err} forward, {gerr} backward")
    return before, after


HEAT_KERNEL = r"""
extern "C" __global__ void heat_step(const float* u, float* un, unsigned int* max_change, int n, float alpha) {
    // One pass: the five-point update of every interior point, the boundary
    // copied, and the largest |un - u| reduced per block, one atomic per block.
    __shared__ float block_max[8];
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    float change = 0.0f;
    for (int i = blockIdx.y * blockDim.y + threadIdx.y; i < n; i += gridDim.y * blockDim.y) {
        if (j >= n) break;
        long c = (long)i * n + j;
        float here = u[c];
        float next = here;
        if (i > 0 && i < n - 1 && j > 0 && j < n - 1) {
            next = here + alpha * (u[c + n] + u[c - n] + u[c + 1] + u[c - 1] - 4.0f * here);
        }
        un[c] = next;
        change = fmaxf(change, fabsf(next - here));
    }
    for (int o = 16; o > 0; o >>= 1) change = fmaxf(change, __shfl_xor_sync(0xffffffffu, change, o));
    int warp = (threadIdx.y * blockDim.x + threadIdx.x) / 32;
    if ((threadIdx.x & 31) == 0) block_max[warp] = change;
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        float m = 0.0f;
        for (int w = 0; w < (blockDim.x * blockDim.y) / 32; ++w) m = fmaxf(m, block_max[w]);
        atomicMax(max_change, __float_as_uint(m));
    }
}
"""


@pair("cupy_heat_rawkernel", "one step of round 9's CuPy heat equation on an 8192 x 8192 fp32 grid: a copy, the five-point update as shifted-slice arithmetic, and abs(un - u).max() (before), against one cupy.RawKernel that writes the update and the boundary and reduces the largest change per block (after)")
def cupy_heat_rawkernel():
    import cupy as cp

    n = 8192
    cp.random.seed(0)
    u = cp.random.random((n, n), dtype=cp.float32)
    alpha = cp.float32(0.2)
    kernel = cp.RawKernel(HEAT_KERNEL, "heat_step")
    un2 = cp.empty_like(u)
    change2 = cp.zeros(1, dtype=cp.uint32)

    def before():
        un = u.copy()
        un[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                                                   - 4 * u[1:-1, 1:-1])
        return un, cp.abs(un - u).max()

    def after():
        change2.fill(0)
        kernel((n // 32, 64), (32, 8), (u, un2, change2, cp.int32(n), alpha))
        return un2, change2.view(cp.float32)[0]

    (ub, cb), (ua, ca) = before(), after()
    err = float(cp.abs(ub - ua).max())
    cerr = abs(float(cb) - float(ca))
    print(f"cupy_heat_rawkernel: max |before - after| = {err:.3g} grid, {cerr:.3g} change", file=sys.stderr)
    if err > 1e-5 or cerr > 1e-5:
        raise SystemExit(f"cupy_heat_rawkernel: the two sides differ by {err} on the grid, {cerr} on the change")
    return before, after


# ---- The round-11 pairs (2026-12-03, third session): the moves written after
# round 11's grading, on PointNet++'s second set abstraction (its sizes).


@pair("permute_view", "PointNet++'s second set abstraction's first shared-MLP layer, fp32, forward+backward: gathered features (24, 128, 64, 131) as (B, S, K, C) through Conv2d(131, 128, 1) + BatchNorm2d + ReLU and the max over the neighbours, fed as permute(0, 3, 2, 1), which cuDNN copies to a contiguous tensor (before), against permute(0, 3, 1, 2), a channels_last-strided view it takes as it is (after)")
def permute_view():
    torch.manual_seed(0)
    feats = torch.randn(24, 128, 64, 131, device="cuda", requires_grad=True)
    mlp = torch.nn.Sequential(torch.nn.Conv2d(131, 128, 1), torch.nn.BatchNorm2d(128), torch.nn.ReLU()).cuda()
    grad = torch.randn(24, 128, 128, device="cuda")

    def before():
        out = mlp(feats.permute(0, 3, 2, 1)).max(2)[0]
        out.backward(grad)
        return out

    def after():
        out = mlp(feats.permute(0, 3, 1, 2)).max(3)[0]
        out.backward(grad)
        return out

    ob = before()
    feats.grad = None
    oa = after()
    err = float((ob - oa).abs().max() / ob.abs().max())
    print(f"permute_view: max relative |before - after| = {err:.3g}", file=sys.stderr)
    if err > 1e-2:
        raise SystemExit(f"permute_view: the two sides differ by {err}")
    return before, after


@pair("pad_channels", "a 1x1 Conv2d(131, 128) over NCHW fp32 features (24, 131, 128, 64), as PointNet++'s second set abstraction's first layer (128 features plus 3 coordinates), forward+backward (TF32, PyTorch's default for cuDNN): 131 input channels (before) against the same features with a zero 132nd channel and a zero weight column (after)")
def pad_channels():
    torch.manual_seed(0)
    x = torch.randn(24, 131, 128, 64, device="cuda")
    conv = torch.nn.Conv2d(131, 128, 1).cuda()
    padded = torch.nn.Conv2d(132, 128, 1).cuda()
    with torch.no_grad():
        padded.weight.zero_()
        padded.weight[:, :131] = conv.weight
        padded.bias.copy_(conv.bias)
    xb = x.clone().requires_grad_(True)
    xa = torch.cat([x, torch.zeros(24, 1, 128, 64, device="cuda")], 1).requires_grad_(True)
    grad = torch.randn(24, 128, 128, 64, device="cuda")

    def before():
        out = conv(xb)
        out.backward(grad)
        return out

    def after():
        out = padded(xa)
        out.backward(grad)
        return out

    err = float((before() - after()).abs().max())
    print(f"pad_channels: max |before - after| = {err:.3g}", file=sys.stderr)
    if err > 1e-2:
        raise SystemExit(f"pad_channels: the two sides differ by {err}")
    return before, after


@pair("topk_select", "round 12's k-nearest-neighbour selection in CuPy, fp32: the 16 smallest of each row of a 1024 x 262144 distance matrix, cupy.argpartition(d, 16, axis=1)[:, :16] (before) against torch.topk(torch.from_dlpack(d), 16, dim=1, largest=False) through DLPack, its indices back in CuPy (after)")
def topk_select():
    import cupy as cp

    cp.random.seed(0)
    d = cp.random.random((1024, 262144), dtype=cp.float32)

    def before():
        return cp.argpartition(d, 16, axis=1)[:, :16]

    def after():
        return cp.from_dlpack(torch.from_dlpack(d).topk(16, dim=1, largest=False).indices)

    b, a = before(), after()
    same = cp.sort(cp.take_along_axis(d, b, axis=1), axis=1) == cp.sort(cp.take_along_axis(d, a, axis=1), axis=1)
    if not bool(same.all()):
        raise SystemExit("topk_select: the two sides select different values")
    return before, after


@pair("randint_generator", "round 11's bootstrap draw in CuPy: 4096 x 4096 indices below 2^22, cupy.random.randint on the legacy cuRAND generator, then its mask, int64 cast and offset (before), against cupy.random.default_rng(0).integers(0, 2^22, (4096, 4096), dtype=cupy.int32) (after)")
def randint_generator():
    import cupy as cp

    n = 1 << 22
    cp.random.seed(0)
    rng = cp.random.default_rng(0)

    def before():
        return cp.random.randint(0, n, (4096, 4096))

    def after():
        return rng.integers(0, n, (4096, 4096), dtype=cp.int32)

    for name, fn in (("before", before), ("after", after)):
        x = fn()
        lo, hi, m = int(x.min()), int(x.max()), float(x.mean())
        print(f"randint_generator: {name} min {lo} max {hi} mean/n {m / n:.4f}", file=sys.stderr)
        if lo < 0 or hi >= n or abs(m / n - 0.5) > 1e-2:
            raise SystemExit(f"randint_generator: the {name} side is not uniform below n")
    return before, after


@pair("depthwise_channels_last", "round 13's SSDlite head: the depthwise 3x3 convolutions of its six feature maps (672 x 20 x 20, 480 x 10 x 10, 512 x 5 x 5, 256 x 3 x 3, 256 x 2 x 2, 128 x 1 x 1), batch 32, fp32, eval under no_grad: NCHW, which PyTorch runs with its own depthwise kernel (before), against the same modules and inputs in channels_last (after)")
def depthwise_channels_last():
    torch.manual_seed(0)
    maps = [(672, 20), (480, 10), (512, 5), (256, 3), (256, 2), (128, 1)]

    convs = [torch.nn.Conv2d(c, c, 3, padding=1, groups=c, bias=False).cuda().eval() for c, _ in maps]
    xs = [torch.randn(32, c, hw, hw, device="cuda") for c, hw in maps]
    import copy

    convs_cl = [copy.deepcopy(m).to(memory_format=torch.channels_last) for m in convs]
    xs_cl = [x.contiguous(memory_format=torch.channels_last) for x in xs]

    def side(ms, ins):
        def run():
            with torch.no_grad():
                return [m(x) for m, x in zip(ms, ins)]

        return run

    before, after = side(convs, xs), side(convs_cl, xs_cl)
    err = max(float((b - a).abs().max()) for b, a in zip(before(), after()))
    print(f"depthwise_channels_last: largest |before - after| = {err:.3g}", file=sys.stderr)
    if err > 1e-3:
        raise SystemExit(f"depthwise_channels_last: the two sides differ by {err}")
    return before, after


@pair("batched_irfft2", "round 13's spectral solver's four inverse transforms, in PyTorch: four independent torch.fft.irfft2 of 1024 x 513 complex64 spectra to 1024 x 1024 fields, one call each (before), against one irfft2 of the four stacked on a leading axis (after)")
def batched_irfft2():
    torch.manual_seed(0)
    specs = [torch.randn(1024, 513, dtype=torch.complex64, device="cuda") for _ in range(4)]
    stacked = torch.stack(specs)

    def before():
        return [torch.fft.irfft2(x, s=(1024, 1024)) for x in specs]

    def after():
        return torch.fft.irfft2(stacked, s=(1024, 1024))

    err = max(float((b - a).abs().max()) for b, a in zip(before(), after()))
    print(f"batched_irfft2: largest |before - after| = {err:.3g}", file=sys.stderr)
    if err > 1e-3:
        raise SystemExit(f"batched_irfft2: the two sides differ by {err}")
    return before, after


def time_pair(before, after, reps):
    for _ in range(3):
        before()
        after()
    torch.cuda.synchronize()
    times = {"before": [], "after": []}
    for _ in range(reps):
        for label, fn in (("before", before), ("after", after)):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            e.synchronize()
            times[label].append(s.elapsed_time(e) * 1e3)
    return times


def summary(ts):
    q = statistics.quantiles(ts, n=4)
    return statistics.median(ts), q[0], q[2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--only", help="comma-separated pair names")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--window", choices=["before", "after"], help="profile one call of that side (cuProfilerStart/Stop)")
    args = ap.parse_args()
    if args.list:
        for name, (what, _) in PAIRS.items():
            print(f"{name}\t{what}")
        return
    names = args.only.split(",") if args.only else list(PAIRS)
    cuda = ctypes.CDLL("libcuda.so.1")
    print("pair\tbefore_median_us\tbefore_q1_us\tbefore_q3_us\tafter_median_us\tafter_q1_us\tafter_q3_us\tsaved_us\tsaved_pct\twhat")
    for name in names:
        what, setup = PAIRS[name]
        before, after = setup()
        if args.window:
            fn = before if args.window == "before" else after
            for _ in range(3):
                fn()
            torch.cuda.synchronize()
            cuda.cuProfilerStart()
            fn()
            torch.cuda.synchronize()
            cuda.cuProfilerStop()
            print(f"{name}\tprofiled one {args.window} call")
            continue
        t = time_pair(before, after, args.reps)
        b, a = summary(t["before"]), summary(t["after"])
        print(f"{name}\t{b[0]:.1f}\t{b[1]:.1f}\t{b[2]:.1f}\t{a[0]:.1f}\t{a[1]:.1f}\t{a[2]:.1f}\t{b[0] - a[0]:.1f}\t{100 * (b[0] - a[0]) / b[0]:.1f}\t{what}")
        sys.stdout.flush()
        del before, after
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
