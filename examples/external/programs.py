"""Programs nobody here wrote, run as people run them, for grading the
diagnosis (issue 25) and for the shape-estimate fixtures (issue 29).

Each program builds a model or workload from a public library (torchvision,
transformers, timm, torch.compile/Triton, CuPy, JAX), runs warm-up steps
(cuDNN autotuning, cuBLAS heuristics, compilation), then one measured step in
which only some *windows* are profiled: the driver calls cuProfilerStart and
cuProfilerStop (process-wide, so the autograd thread's backward launches are
inside) around, say, one residual block's forward and backward and the
optimizer step. Under

    ncu --profile-from-start off --set full ... python3 programs.py NAME

only the windows are replayed, which keeps `--set full` within minutes, and
the windows hold every kind of kernel the step runs (convolutions forward and
backward, norms, casts, GEMMs, attention, the optimizer chain).

    python3 programs.py --list
    python3 programs.py resnet50_train --trace out.json.gz   # torch.profiler, record_shapes

With --trace, the same windows run under torch.profiler (CUDA activities,
record_shapes=True) and the Chrome trace is written gzipped. stdout gets one
line per program: what ran and the measured step's wall time.
"""
import argparse
import contextlib
import ctypes
import gzip
import os
import shutil
import sys
import time

PROGRAMS = {}


def program(name, what):
    def register(fn):
        PROGRAMS[name] = (what, fn)
        return fn

    return register


class Window:
    """cuProfilerStart/Stop from the driver API: works under any framework."""

    def __init__(self, trace=None, sync=None):
        self.cuda = ctypes.CDLL("libcuda.so.1")
        self.sync = sync or (lambda: None)
        self.depth = 0
        self.trace = trace
        self.prof = None

    @contextlib.contextmanager
    def __call__(self):
        self.sync()
        self.depth += 1
        if self.depth == 1:
            self.cuda.cuProfilerStart()
        try:
            yield
        finally:
            self.sync()
            if self.depth == 1:
                self.cuda.cuProfilerStop()
            self.depth -= 1

    def start(self):
        self.sync()
        self.depth += 1
        if self.depth == 1:
            self.cuda.cuProfilerStart()

    def stop(self):
        self.sync()
        if self.depth == 1:
            self.cuda.cuProfilerStop()
        self.depth -= 1


def torch_sync():
    import torch

    torch.cuda.synchronize()


@contextlib.contextmanager
def torch_trace(path):
    """torch.profiler around the measured step, shapes recorded."""
    if not path:
        yield
        return
    import torch
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        yield
        torch.cuda.synchronize()
    raw = path[:-3] if path.endswith(".gz") else path
    prof.export_chrome_trace(raw)
    if path.endswith(".gz"):
        with open(raw, "rb") as src, gzip.open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.remove(raw)


def windowed(module, win):
    """Profile one module's forward and its backward (module hooks)."""
    module.register_forward_pre_hook(lambda m, a: win.start() if getattr(m, "_measure", False) else None)
    module.register_forward_hook(lambda m, a, o: win.stop() if getattr(m, "_measure", False) else None)
    module.register_full_backward_pre_hook(lambda m, g: win.start() if getattr(m, "_measure", False) else None)
    module.register_full_backward_hook(lambda m, gi, go: win.stop() if getattr(m, "_measure", False) else None)


def train(model, opt, batch, loss_fn, steps_warm, win, modules, trace, autocast_dtype=None):
    import torch

    def step(measure):
        for m in modules:
            m._measure = measure
        opt.zero_grad(set_to_none=True)
        ctx = torch.autocast("cuda", dtype=autocast_dtype) if autocast_dtype else contextlib.nullcontext()
        with ctx:
            loss = loss_fn(model, batch)
        loss.backward()
        if measure:
            with win():
                opt.step()
        else:
            opt.step()

    for _ in range(steps_warm):
        step(False)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch_trace(trace):
        step(True)
    torch.cuda.synchronize()
    return time.perf_counter() - t0


def resnet50(args, channels_last):
    import torch
    import torchvision

    torch.backends.cudnn.benchmark = True
    model = torchvision.models.resnet50(weights=None).cuda()
    x = torch.randn(32, 3, 224, 224, device="cuda")
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
        x = x.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    y = torch.randint(0, 1000, (32,), device="cuda")
    win = Window(args.trace, torch_sync)
    block = model.layer3[1]
    windowed(block, win)
    loss_fn = lambda m, b: torch.nn.functional.cross_entropy(m(b[0]), b[1])
    return train(model, opt, (x, y), loss_fn, 3, win, [block], args.trace, torch.bfloat16)


@program("resnet50_train", "torchvision ResNet-50 training step, batch 32, bf16 autocast, NCHW, cudnn.benchmark, SGD momentum (foreach); windows: layer3[1] forward+backward, the optimizer step")
def resnet50_train(args):
    return resnet50(args, channels_last=False)


@program("resnet50_train_cl", "as resnet50_train, channels_last (model and input)")
def resnet50_train_cl(args):
    return resnet50(args, channels_last=True)


@program("gpt2_train", "Hugging Face transformers GPT-2 (4 layers, d 768, vocab 50257) training step, batch 8 x 512, bf16 autocast, AdamW (foreach); windows: block 1 forward+backward, lm_head forward+backward, the optimizer step")
def gpt2_train(args):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(n_layer=4, n_embd=768, n_head=12, vocab_size=50257, n_positions=512)
    cfg._attn_implementation = "sdpa"
    model = GPT2LMHeadModel(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids = torch.randint(0, 50257, (8, 512), device="cuda")
    win = Window(args.trace, torch_sync)
    mods = [model.transformer.h[1], model.lm_head]
    for m in mods:
        windowed(m, win)
    loss_fn = lambda m, b: m(input_ids=b, labels=b).loss
    return train(model, opt, ids, loss_fn, 3, win, mods, args.trace, torch.bfloat16)


@program("vit_infer", "timm ViT-B/16 inference, batch 64, fp16 weights, SDPA (flash); window: block 5 forward and the head")
def vit_infer(args):
    import timm
    import torch

    model = timm.create_model("vit_base_patch16_224", pretrained=False).cuda().half().eval()
    x = torch.randn(64, 3, 224, 224, device="cuda", dtype=torch.half)
    win = Window(args.trace, torch_sync)
    blk = model.blocks[5]
    blk.register_forward_pre_hook(lambda m, a: win.start() if getattr(m, "_measure", False) else None)
    blk.register_forward_hook(lambda m, a, o: win.stop() if getattr(m, "_measure", False) else None)
    with torch.no_grad():
        for _ in range(3):
            model(x)
        torch.cuda.synchronize()
        blk._measure = True
        t0 = time.perf_counter()
        with torch_trace(args.trace):
            model(x)
        torch.cuda.synchronize()
    return time.perf_counter() - t0


@program("compiled_mlp_train", "torch.compile (Inductor, Triton kernels) of a LayerNorm-MLP-GELU-residual block stack, training step, bf16 autocast, Adam (fused=False, foreach); window: the whole compiled step's forward+backward")
def compiled_mlp_train(args):
    import torch

    class Block(torch.nn.Module):
        def __init__(self, d):
            super().__init__()
            self.ln = torch.nn.LayerNorm(d)
            self.fc1 = torch.nn.Linear(d, 4 * d)
            self.fc2 = torch.nn.Linear(4 * d, d)

        def forward(self, x):
            return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln(x))))

    d = 1024
    model = torch.nn.Sequential(*[Block(d) for _ in range(2)]).cuda()
    cmodel = torch.compile(model)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    x = torch.randn(16384, d, device="cuda")
    win = Window(args.trace, torch_sync)

    def step(measure):
        opt.zero_grad(set_to_none=True)
        if measure:
            win.start()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = cmodel(x).float().pow(2).mean()
        loss.backward()
        if measure:
            win.stop()
        opt.step()

    for _ in range(3):
        step(False)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch_trace(args.trace):
        step(True)
    torch.cuda.synchronize()
    return time.perf_counter() - t0


@program("cupy_mix", "CuPy: cuFFT 2-D FFT, sort (Thrust/CUB), cuSPARSE CSR SpMV, histogram (CUB, shared-memory atomics), bincount (global atomics), an ElementwiseKernel, a reduction, cuBLAS SGEMM")
def cupy_mix(args):
    import cupy as cp
    import cupyx.scipy.sparse as sp

    win = Window(None, lambda: cp.cuda.Device().synchronize())
    rng = cp.random.default_rng(0)
    img = rng.standard_normal((4096, 4096), dtype=cp.float32).astype(cp.complex64)
    keys = rng.standard_normal(1 << 26, dtype=cp.float32)
    a = sp.random(200_000, 200_000, density=1e-4, format="csr", dtype=cp.float32, random_state=0)
    v = rng.standard_normal(200_000, dtype=cp.float32)
    vals = rng.standard_normal(1 << 26, dtype=cp.float32)
    small = (rng.random(1 << 26, dtype=cp.float32) * 256).astype(cp.int32)
    m = rng.standard_normal((4096, 4096), dtype=cp.float32)
    axpby = cp.ElementwiseKernel("float32 x, float32 y, float32 a", "float32 z", "z = a * x + y * y", "axpby_sq")

    def work():
        cp.fft.fft2(img)
        cp.sort(keys)
        a @ v
        cp.histogram(vals, bins=256, range=(-4.0, 4.0))
        cp.bincount(small, minlength=256)
        axpby(vals, keys, cp.float32(2.0))
        cp.linalg.norm(vals)
        m @ m

    for _ in range(2):
        work()
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    with win():
        work()
    return time.perf_counter() - t0


@program("jax_mlp_train", "JAX/XLA: a 4-layer MLP training step (jit, bf16 matmuls, Adam written in jax.numpy), batch 8192, width 2048")
def jax_mlp_train(args):
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    sizes = [2048] * 5
    params = []
    for i in range(4):
        key, k = jax.random.split(key)
        params.append((jax.random.normal(k, (sizes[i], sizes[i + 1]), jnp.float32) * 0.02, jnp.zeros(sizes[i + 1])))
    x = jax.random.normal(key, (8192, 2048), jnp.float32)
    y = jnp.zeros((8192, 2048))

    def loss(p, x, y):
        h = x
        for w, b in p:
            h = jax.nn.gelu(jnp.dot(h.astype(jnp.bfloat16), w.astype(jnp.bfloat16)).astype(jnp.float32) + b)
        return jnp.mean((h - y) ** 2)

    @jax.jit
    def step(p, m, v, x, y):
        g = jax.grad(loss)(p, x, y)
        m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
        v = jax.tree_util.tree_map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
        p = jax.tree_util.tree_map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), p, m, v)
        return p, m, v

    m = jax.tree_util.tree_map(jnp.zeros_like, params)
    v = jax.tree_util.tree_map(jnp.zeros_like, params)
    for _ in range(3):
        params, m, v = step(params, m, v, x, y)
    jax.block_until_ready(params)
    win = Window(None, lambda: None)
    t0 = time.perf_counter()
    with win():
        params, m, v = step(params, m, v, x, y)
        jax.block_until_ready(params)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("name", nargs="?")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--trace", help="write the measured step's torch.profiler Chrome trace here (.json or .json.gz)")
    args = ap.parse_args()
    if args.list or not args.name:
        for name, (what, _) in PROGRAMS.items():
            print(f"{name}\t{what}")
        return
    what, fn = PROGRAMS[args.name]
    secs = fn(args)
    print(f"{args.name}\t{secs * 1e3:.2f} ms measured step\t{what}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
