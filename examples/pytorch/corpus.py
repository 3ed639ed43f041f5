"""A corpus of GPU kernels nobody here wrote: PyTorch's own, cuBLAS, cuDNN,
CUB and FlashAttention, one op at a time.

Each op allocates its inputs, runs once as a warm-up (cuBLAS/cuDNN handles,
heuristics, allocator), then once inside `torch.cuda.profiler.start()/stop()`
and the NVTX range named after the op, then frees everything. So

    ncu --profile-from-start off ... python3 examples/pytorch/corpus.py

profiles only the measured call of each op, with little device memory for
ncu to save and restore between its replay passes.

Per op, stdout gets one tab-separated line: name, dtype, shapes, FLOPs on
paper, bytes on paper, CUDA-event time of the measured call and the rates
those give. "FLOPs on paper" is given only where the op defines it (2MNK for
a GEMM, one per element for an add); "-" otherwise. "Bytes on paper" is the
compulsory DRAM traffic: every input read once and every output written once
(the minimum for sorts and scans, which make several passes). Under ncu the
printed times are meaningless (kernels are replayed); take durations from
`gpu__time_duration.sum`.

    python3 examples/pytorch/corpus.py --list
    python3 examples/pytorch/corpus.py --only gemm_bf16,sort_fp32
    python3 examples/pytorch/corpus.py --kernels kernels.json   # op -> kernel names (Kineto)
"""
import argparse
import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F

# name: (what it runs, setup). A setup returns a Case; it may allocate.
OPS = {}


class Case:
    def __init__(self, run, shapes, dtype, flops, nbytes, keep=()):
        self.run = run  # the op, no arguments
        self.shapes = shapes
        self.dtype = dtype
        self.flops = flops  # int or None
        self.nbytes = nbytes
        self.keep = keep  # tensors the op needs alive


def op(name, what):
    def register(setup):
        OPS[name] = (what, setup)
        return setup

    return register


def dev():
    return torch.device("cuda")


def gen(seed):
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    return g


def randn(*shape, dtype=torch.float32, seed=0):
    return torch.randn(*shape, device="cuda", dtype=dtype, generator=gen(seed))


def randint(high, *shape, dtype=torch.int64, seed=0):
    return torch.randint(0, high, shape, device="cuda", dtype=dtype, generator=gen(seed))


ES = {torch.bfloat16: 2, torch.float16: 2, torch.float32: 4, torch.float64: 8, torch.int32: 4, torch.int64: 8}
DN = {torch.bfloat16: "bf16", torch.float16: "fp16", torch.float32: "fp32", torch.float64: "fp64",
      torch.int32: "int32", torch.int64: "int64"}


# ---- GEMMs (cuBLAS). Distinct shapes so that each is recognisable. ----
def gemm(dtype, m, n, k):
    def setup():
        a = randn(m, k, dtype=dtype, seed=1)
        b = randn(k, n, dtype=dtype, seed=2)
        c = torch.empty(m, n, device="cuda", dtype=dtype)
        return Case(lambda: torch.matmul(a, b, out=c), f"A[{m}x{k}] B[{k}x{n}]", DN[dtype],
                    2 * m * n * k, (m * k + k * n + m * n) * ES[dtype], (a, b, c))

    return setup


op("gemm_bf16", "C = A B, bf16, M=N=K=4096 (tensor cores)")(gemm(torch.bfloat16, 4096, 4096, 4096))
op("gemm_fp16", "C = A B, fp16, M=4096 N=2048 K=3072 (tensor cores)")(gemm(torch.float16, 4096, 2048, 3072))
op("gemm_fp32", "C = A B, fp32 with TF32 off, M=N=K=2048 (CUDA cores)")(gemm(torch.float32, 2048, 2048, 2048))
op("gemm_fp64", "C = A B, fp64, M=2048 N=1024 K=1536 (FP64 tensor cores)")(gemm(torch.float64, 2048, 1024, 1536))


@op("sdpa_bf16_causal", "scaled_dot_product_attention, bf16, causal, B=8 H=16 S=2048 D=128")
def _sdpa():
    b, h, s, d = 8, 16, 2048, 128
    q, k, v = (randn(b, h, s, d, dtype=torch.bfloat16, seed=i) for i in (1, 2, 3))
    # QK^T and PV, 2 FLOPs per multiply-add each, half of the S x S scores under the causal mask.
    flops = 4 * b * h * s * s * d // 2
    return Case(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True), f"Q,K,V[{b}x{h}x{s}x{d}]",
                "bf16", flops, 4 * b * h * s * d * 2, (q, k, v))


@op("layer_norm_bf16", "layer_norm over the last dim, bf16, [16384 x 4096]")
def _layer_norm():
    r, c = 16384, 4096
    x = randn(r, c, dtype=torch.bfloat16)
    w = torch.ones(c, device="cuda", dtype=torch.bfloat16)
    bias = torch.zeros(c, device="cuda", dtype=torch.bfloat16)
    return Case(lambda: F.layer_norm(x, (c,), w, bias), f"x[{r}x{c}]", "bf16", None, 2 * r * c * 2 + 4 * c,
                (x, w, bias))


@op("softmax_fp32", "softmax over the last dim, fp32, [16384 x 4096]")
def _softmax():
    r, c = 16384, 4096
    x = randn(r, c)
    return Case(lambda: torch.softmax(x, dim=-1), f"x[{r}x{c}]", "fp32", None, 2 * r * c * 4, (x,))


@op("sum_fp32", "x.sum() over 2^28 fp32 (full reduction)")
def _sum():
    n = 1 << 28
    x = randn(n)
    return Case(lambda: x.sum(), f"x[{n}]", "fp32", n, 4 * n, (x,))


@op("mean_fp32_rows", "x.mean(dim=-1), fp32, [16384 x 16384] (one 4-byte result per row)")
def _mean():
    r, c = 16384, 16384
    x = randn(r, c)
    return Case(lambda: x.mean(dim=-1), f"x[{r}x{c}]", "fp32", r * c, 4 * r * c + 4 * r, (x,))


def elementwise(n, dtype, nin, flops_per_elem, fn):
    def setup():
        ins = [randn(n, dtype=dtype, seed=i + 1) for i in range(nin)]
        out = torch.empty(n, device="cuda", dtype=dtype)
        return Case(lambda: fn(*ins, out), f"{nin} in + 1 out [{n}]", DN[dtype],
                    None if flops_per_elem is None else flops_per_elem * n, (nin + 1) * n * ES[dtype], (*ins, out))

    return setup


N_BF16 = 1 << 28  # 512 MiB per bf16 tensor
N_FP32 = 1 << 27  # 512 MiB per fp32 tensor
op("add_bf16", "torch.add(a, b, out=c), bf16, 2^28 elements")(
    elementwise(N_BF16, torch.bfloat16, 2, 1, lambda a, b, o: torch.add(a, b, out=o)))
op("abs_bf16", "torch.abs(a, out=c), bf16, 2^28 elements")(
    elementwise(N_BF16, torch.bfloat16, 1, None, lambda a, o: torch.abs(a, out=o)))
op("mul_fp32", "torch.mul(a, b, out=c), fp32, 2^27 elements")(
    elementwise(N_FP32, torch.float32, 2, 1, lambda a, b, o: torch.mul(a, b, out=o)))
op("copy_bf16", "c.copy_(a), bf16, 2^28 elements")(
    elementwise(N_BF16, torch.bfloat16, 1, None, lambda a, o: o.copy_(a)))


@op("gelu_bf16", "F.gelu (erf), bf16, 2^28 elements")
def _gelu():
    a = randn(N_BF16, dtype=torch.bfloat16)
    return Case(lambda: F.gelu(a), f"a[{N_BF16}]", "bf16", None, 2 * N_BF16 * 2, (a,))


@op("fill_bf16", "c.fill_(1), bf16, 2^28 elements (write only)")
def _fill():
    out = torch.empty(N_BF16, device="cuda", dtype=torch.bfloat16)
    return Case(lambda: out.fill_(1.0), f"c[{N_BF16}]", "bf16", None, 2 * N_BF16, (out,))


@op("transpose_bf16", "x.t().contiguous(), bf16, [16384 x 16384]")
def _transpose():
    r = 16384
    x = randn(r, r, dtype=torch.bfloat16)
    return Case(lambda: x.t().contiguous(), f"x[{r}x{r}]", "bf16", None, 2 * r * r * 2, (x,))


VOCAB, DIM, TOKENS = 32768, 1024, (16, 1024)


@op("embedding_fp32", "F.embedding, table [32768 x 1024] fp32, indices [16 x 1024]")
def _embedding():
    w = randn(VOCAB, DIM)
    idx = randint(VOCAB, *TOKENS)
    t = TOKENS[0] * TOKENS[1]
    return Case(lambda: F.embedding(idx, w), f"table[{VOCAB}x{DIM}] idx[{TOKENS[0]}x{TOKENS[1]}]", "fp32", None,
                2 * t * DIM * 4 + t * 8, (w, idx))


@op("embedding_backward_fp32", "embedding_dense_backward: grad [16 x 1024 x 1024] fp32 into [32768 x 1024]")
def _embedding_backward():
    grad = randn(*TOKENS, DIM)
    idx = randint(VOCAB, *TOKENS)
    t = TOKENS[0] * TOKENS[1]
    # Called directly so that it runs on this thread (autograd's backward runs on its own).
    return Case(lambda: torch.ops.aten.embedding_dense_backward(grad, idx, VOCAB, -1, False),
                f"grad[{TOKENS[0]}x{TOKENS[1]}x{DIM}] idx[{TOKENS[0]}x{TOKENS[1]}]", "fp32", None,
                t * DIM * 4 + t * 8 + VOCAB * DIM * 4, (grad, idx))


CONV = dict(n=64, c=128, h=56, w=56, k=128, r=3)


def conv_shapes():
    p = CONV
    x = randn(p["n"], p["c"], p["h"], p["w"], dtype=torch.bfloat16, seed=1)
    w = randn(p["k"], p["c"], p["r"], p["r"], dtype=torch.bfloat16, seed=2) * 0.05
    # stride 1, padding 1: output is N x K x H x W
    flops = 2 * p["n"] * p["k"] * p["c"] * p["r"] * p["r"] * p["h"] * p["w"]
    elems = p["n"] * p["c"] * p["h"] * p["w"] + p["k"] * p["c"] * p["r"] ** 2 + p["n"] * p["k"] * p["h"] * p["w"]
    desc = f"x[{p['n']}x{p['c']}x{p['h']}x{p['w']}] w[{p['k']}x{p['c']}x{p['r']}x{p['r']}] NCHW"
    return x, w, flops, elems * 2, desc


@op("conv2d_fwd_bf16", "cuDNN conv2d forward, bf16, N=64 C=K=128 56x56, 3x3, pad 1")
def _conv_fwd():
    x, w, flops, nbytes, desc = conv_shapes()
    return Case(lambda: F.conv2d(x, w, padding=1), desc, "bf16", flops, nbytes, (x, w))


@op("conv2d_bwd_bf16", "cuDNN conv2d backward (data and weight), bf16, same shapes")
def _conv_bwd():
    x, w, flops, nbytes, desc = conv_shapes()
    g = randn(CONV["n"], CONV["k"], CONV["h"], CONV["w"], dtype=torch.bfloat16, seed=3)
    return Case(lambda: torch.ops.aten.convolution_backward(g, x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
                                                            [True, True, False]),
                desc, "bf16", 2 * flops, 2 * nbytes, (x, w, g))


@op("randn_fp32", "x.normal_() (Philox + Box-Muller), fp32, 2^28 elements")
def _randn():
    n = 1 << 28
    x = torch.empty(n, device="cuda")
    g = gen(7)
    return Case(lambda: x.normal_(generator=g), f"x[{n}]", "fp32", None, 4 * n, (x,))


@op("rand_fp32", "x.uniform_() (Philox), fp32, 2^28 elements")
def _rand():
    n = 1 << 28
    x = torch.empty(n, device="cuda")
    g = gen(8)
    return Case(lambda: x.uniform_(generator=g), f"x[{n}]", "fp32", None, 4 * n, (x,))


@op("sort_fp32", "torch.sort, fp32, 2^26 keys (CUB radix sort, keys + int64 indices)")
def _sort_fp32():
    n = 1 << 26
    x = randn(n)
    return Case(lambda: torch.sort(x), f"x[{n}]", "fp32", None, n * 4 + n * (4 + 8), (x,))


@op("sort_int32", "torch.sort, int32, 2^26 keys (CUB radix sort)")
def _sort_int32():
    n = 1 << 26
    x = randint(1 << 30, n, dtype=torch.int32)
    return Case(lambda: torch.sort(x), f"x[{n}]", "int32", None, n * 4 + n * (4 + 8), (x,))


@op("topk_rows_fp32", "torch.topk(k=64) per row, fp32, [4096 x 32768]")
def _topk_rows():
    r, c, k = 4096, 32768, 64
    x = randn(r, c)
    return Case(lambda: torch.topk(x, k, dim=-1), f"x[{r}x{c}] k={k}", "fp32", None, r * c * 4 + r * k * 12, (x,))


@op("topk_1d_fp32", "torch.topk(k=1024) of one 2^26-element fp32 vector (radix select)")
def _topk_1d():
    n, k = 1 << 26, 1024
    x = randn(n)
    return Case(lambda: torch.topk(x, k), f"x[{n}] k={k}", "fp32", None, n * 4 + k * 12, (x,))


@op("cumsum_fp32", "torch.cumsum, fp32, 2^26 elements (CUB scan)")
def _cumsum():
    n = 1 << 26
    x = randn(n)
    return Case(lambda: torch.cumsum(x, 0), f"x[{n}]", "fp32", n, 2 * n * 4, (x,))


@op("bincount_int64", "torch.bincount, 2^26 int64 values in [0, 4096) (atomics)")
def _bincount():
    n, bins = 1 << 26, 4096
    x = randint(bins, n)
    return Case(lambda: torch.bincount(x, minlength=bins), f"x[{n}] bins={bins}", "int64", None, n * 8 + bins * 8,
                (x,))


@op("index_add_fp32", "dst.index_add_(0, idx, src): 2^19 rows of 256 fp32 into 8192 rows (atomics)")
def _index_add():
    rows, d, m = 8192, 256, 1 << 19
    dst = torch.zeros(rows, d, device="cuda")
    src = randn(m, d)
    idx = randint(rows, m)
    return Case(lambda: dst.index_add_(0, idx, src), f"dst[{rows}x{d}] src[{m}x{d}]", "fp32", m * d,
                m * d * 4 + m * 8 + 2 * rows * d * 4, (dst, src, idx))


@op("index_select_fp32", "torch.index_select (gather): 2^18 random rows of a [262144 x 512] fp32 table")
def _index_select():
    rows, d, m = 262144, 512, 1 << 18
    table = randn(rows, d)
    idx = randint(rows, m)
    return Case(lambda: torch.index_select(table, 0, idx), f"table[{rows}x{d}] idx[{m}]", "fp32", None,
                2 * m * d * 4 + m * 8, (table, idx))


@op("cross_entropy_bf16", "F.cross_entropy, logits [8192 x 32768] bf16, int64 targets")
def _cross_entropy():
    r, c = 8192, 32768
    logits = randn(r, c, dtype=torch.bfloat16)
    t = randint(c, r)
    return Case(lambda: F.cross_entropy(logits, t), f"logits[{r}x{c}] targets[{r}]", "bf16", None,
                r * c * 2 + r * 8, (logits, t))


def kernels_of(case):
    """Kernel names the op launches, in order, from PyTorch's profiler (Kineto)."""
    from train_gpt import Kineto  # same folder; one reader of Kineto's trace for both programs

    with Kineto() as k:
        case.run()
        torch.cuda.synchronize()
    names = []
    for r in k.records():
        if r["cat"] == "kernel" and r["name"] not in names:
            names.append(r["name"])
    return names


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list", action="store_true", help="print the ops and exit")
    ap.add_argument("--only", default="", help="comma-separated op names (default: all)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="timed calls per op; the first is the profiled one, the rest run after profiler stop")
    ap.add_argument("--kernels", metavar="FILE",
                    help="after the measured call, list each op's kernels with PyTorch's profiler into FILE (JSON)")
    args = ap.parse_args(argv)

    if args.list:
        for name, (what, _) in OPS.items():
            print(f"{name}\t{what}")
        return 0
    names = list(OPS) if not args.only else [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [n for n in names if n not in OPS]
    if unknown:
        print(f"corpus.py: unknown op(s) {', '.join(unknown)}; --list shows the {len(OPS)} ops", file=sys.stderr)
        return 2
    if args.repeat < 1:
        print("corpus.py: --repeat must be at least 1", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("corpus.py: no CUDA device visible to PyTorch", file=sys.stderr)
        return 1

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    props = torch.cuda.get_device_properties(0)
    print(f"# device: {props.name}, {props.multi_processor_count} SMs; torch {torch.__version__}, "
          f"CUDA {torch.version.cuda}, cuDNN {torch.backends.cudnn.version()}", file=sys.stderr)
    print("op\tdtype\tshapes\tflops_paper\tbytes_paper\ttime_ms\tTFLOP/s\tGB/s\ttimed_calls")
    kernels = {}
    failed = []
    t_all = time.perf_counter()
    for name in names:
        case = None
        try:
            case = OPS[name][1]()
            case.run()  # warm-up
            torch.cuda.synchronize()
            times = []
            for i in range(args.repeat):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                if i == 0:
                    torch.cuda.profiler.start()
                    with torch.cuda.nvtx.range(name):
                        start.record()
                        case.run()
                        end.record()
                        torch.cuda.synchronize()
                    torch.cuda.profiler.stop()
                else:
                    start.record()
                    case.run()
                    end.record()
                    torch.cuda.synchronize()
                times.append(start.elapsed_time(end))
            ms = statistics.median(times)
            tflops = None if case.flops is None else case.flops / ms / 1e9
            gbs = case.nbytes / ms / 1e6
            print(f"{name}\t{case.dtype}\t{case.shapes}\t{case.flops if case.flops is not None else '-'}\t"
                  f"{case.nbytes}\t{ms:.4f}\t{'-' if tflops is None else f'{tflops:.2f}'}\t{gbs:.1f}\t{len(times)}", flush=True)
            if args.kernels:
                kernels[name] = kernels_of(case)
        except Exception as e:  # one failing op must not lose the others
            failed.append(name)
            print(f"corpus.py: {name} failed: {type(e).__name__}: {e}", file=sys.stderr)
        finally:
            case = None
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
    if args.kernels:
        with open(args.kernels, "w") as f:
            json.dump(kernels, f, indent=1)
    print(f"# {len(names) - len(failed)} op(s) in {time.perf_counter() - t_all:.1f} s wall"
          + (f"; failed: {', '.join(failed)}" if failed else ""), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
