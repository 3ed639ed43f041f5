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


def infer(model, inputs, win, modules, trace, warm=3):
    """Inference under no_grad: warm-up calls, then one measured call in
    which the forwards of `modules` are the profiled windows."""
    import torch

    for mod in modules:
        mod.register_forward_pre_hook(lambda m, a: win.start() if getattr(m, "_measure", False) else None)
        mod.register_forward_hook(lambda m, a, o: win.stop() if getattr(m, "_measure", False) else None)
    with torch.no_grad():
        for _ in range(warm):
            model(inputs)
        torch.cuda.synchronize()
        for mod in modules:
            mod._measure = True
        t0 = time.perf_counter()
        with torch_trace(trace):
            model(inputs)
        torch.cuda.synchronize()
    return time.perf_counter() - t0


def train(model, opt, batch, loss_fn, steps_warm, win, modules, trace, autocast_dtype=None, scaler=None):
    """A training step; with a GradScaler, the loss is scaled and the
    scaler's unscale and step are inside the optimizer's window."""
    import torch

    def step(measure):
        for m in modules:
            m._measure = measure
        opt.zero_grad(set_to_none=True)
        ctx = torch.autocast("cuda", dtype=autocast_dtype) if autocast_dtype else contextlib.nullcontext()
        with ctx:
            loss = loss_fn(model, batch)
        (scaler.scale(loss) if scaler else loss).backward()

        def update():
            if scaler:
                scaler.step(opt)
                scaler.update()
            else:
                opt.step()

        if measure:
            with win():
                update()
        else:
            update()

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
    return infer(model, x, Window(args.trace, torch_sync), [model.blocks[5]], args.trace)


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


# ---- Round 3 of the grading (2026-12-02): programs of kinds not graded before.


@program("convnext_train", "timm ConvNeXt-Tiny training step, batch 32, bf16 autocast, channels_last, cudnn.benchmark, AdamW (foreach); windows: stages[2].blocks[1] forward+backward, the optimizer step")
def convnext_train(args):
    import timm
    import torch

    torch.backends.cudnn.benchmark = True
    model = timm.create_model("convnext_tiny", pretrained=False).cuda().to(memory_format=torch.channels_last)
    x = torch.randn(32, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (32,), device="cuda")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    win = Window(args.trace, torch_sync)
    block = model.stages[2].blocks[1]
    windowed(block, win)
    loss_fn = lambda m, b: torch.nn.functional.cross_entropy(m(b[0]), b[1])
    return train(model, opt, (x, y), loss_fn, 3, win, [block], args.trace, torch.bfloat16)


@program("bert_train", "Hugging Face transformers BERT-base (4 layers, d 768) sequence classification training step, batch 32 x 128, fp16 autocast with GradScaler, SDPA, AdamW (foreach); windows: encoder layer 1 forward+backward, the scaler's unscale and the optimizer step")
def bert_train(args):
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    cfg = BertConfig(num_hidden_layers=4, num_labels=4)
    cfg._attn_implementation = "sdpa"
    model = BertForSequenceClassification(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cuda")
    ids = torch.randint(0, cfg.vocab_size, (32, 128), device="cuda")
    labels = torch.randint(0, 4, (32,), device="cuda")
    win = Window(args.trace, torch_sync)
    layer = model.bert.encoder.layer[1]
    windowed(layer, win)

    loss_fn = lambda m, b: m(input_ids=b[0], labels=b[1]).loss
    return train(model, opt, (ids, labels), loss_fn, 3, win, [layer], args.trace, torch.float16, scaler)


@program("llama_decode", "Hugging Face transformers Llama (4 layers, d 2048, GQA 16/4 heads, vocab 32000, random weights) bf16 inference: a 256-token prefill for batch 8, then greedy decoding with the KV cache; window: one decode step's whole forward (token 12)")
def llama_decode(args):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(hidden_size=2048, intermediate_size=5632, num_hidden_layers=4, num_attention_heads=16,
                      num_key_value_heads=4, vocab_size=32000, max_position_embeddings=1024)
    cfg._attn_implementation = "sdpa"
    model = LlamaForCausalLM(cfg).cuda().to(torch.bfloat16).eval()
    ids = torch.randint(0, 32000, (8, 256), device="cuda")
    win = Window(args.trace, torch_sync)

    def generate(measure):
        with torch.no_grad():
            out = model(input_ids=ids, use_cache=True)
            past, tok = out.past_key_values, out.logits[:, -1:].argmax(-1)
            for i in range(16):
                if measure and i == 12:
                    win.start()
                out = model(input_ids=tok, past_key_values=past, use_cache=True)
                past, tok = out.past_key_values, out.logits[:, -1:].argmax(-1)
                if measure and i == 12:
                    win.stop()
        return tok

    for _ in range(2):
        generate(False)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch_trace(args.trace):
        generate(True)
    torch.cuda.synchronize()
    return time.perf_counter() - t0


@program("efficientnet_infer", "timm EfficientNet-B0 inference, batch 128, fp16 weights, channels_last, cudnn.benchmark; window: stage 3 (blocks[3]) forward")
def efficientnet_infer(args):
    import timm
    import torch

    torch.backends.cudnn.benchmark = True
    model = timm.create_model("efficientnet_b0", pretrained=False).cuda().half().eval().to(memory_format=torch.channels_last)
    x = torch.randn(128, 3, 224, 224, device="cuda", dtype=torch.half).to(memory_format=torch.channels_last)
    return infer(model, x, Window(args.trace, torch_sync), [model.blocks[3]], args.trace)


@program("lstm_train", "PyTorch nn.LSTM (cuDNN RNN, 2 layers, hidden 1024, input 512) training step, batch 64 x 32 steps, fp32 (TF32 allowed by default for cuDNN), a linear classifier, Adam (foreach); window: the forward, backward and optimizer step")
def lstm_train(args):
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(512, 1024, num_layers=2, batch_first=True)
            self.head = torch.nn.Linear(1024, 10)

        def forward(self, x):
            out, _ = self.lstm(x)
            return self.head(out[:, -1])

    model = Net().cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(64, 32, 512, device="cuda")
    y = torch.randint(0, 10, (64,), device="cuda")
    win = Window(args.trace, torch_sync)

    def step(measure):
        if measure:
            win.start()
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        if measure:
            win.stop()

    for _ in range(3):
        step(False)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch_trace(args.trace):
        step(True)
    torch.cuda.synchronize()
    return time.perf_counter() - t0


@program("cupy_signal", "CuPy: an ndimage Gaussian filter, a cumulative sum (CUB scan), unique (sort + select), a dense solve (cuSOLVER getrf/getrs), a partition (top-k), a boolean nonzero, an fp16 matmul (cuBLAS tensor cores)")
def cupy_signal(args):
    import cupy as cp
    import cupyx.scipy.ndimage as ndi

    win = Window(None, lambda: cp.cuda.Device().synchronize())
    rng = cp.random.default_rng(1)
    img = rng.standard_normal((4096, 4096), dtype=cp.float32)
    vals = rng.standard_normal(1 << 25, dtype=cp.float32)
    ints = (rng.random(1 << 24, dtype=cp.float32) * 100_000).astype(cp.int32)
    a = rng.standard_normal((4096, 4096), dtype=cp.float32)
    b = rng.standard_normal((4096, 16), dtype=cp.float32)
    h = rng.standard_normal((8192, 8192), dtype=cp.float32).astype(cp.float16)

    def work():
        ndi.gaussian_filter(img, sigma=3.0)
        cp.cumsum(vals)
        cp.unique(ints)
        cp.linalg.solve(a, b)
        cp.partition(vals, 1000)
        cp.nonzero(vals > 1.5)
        h @ h

    for _ in range(2):
        work()
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    with win():
        work()
    return time.perf_counter() - t0


@program("jax_attention_train", "JAX/XLA: a pre-norm transformer block (causal jax.nn.dot_product_attention, GELU MLP) training step under jit, bf16 activations, batch 16 x 512, width 1024, SGD with momentum written with tree_map")
def jax_attention_train(args):
    import jax
    import jax.numpy as jnp

    B, T, D, H = 16, 512, 1024, 16
    key = jax.random.PRNGKey(0)
    ks = jax.random.split(key, 6)
    params = {
        "qkv": jax.random.normal(ks[0], (D, 3 * D), jnp.float32) * 0.02,
        "out": jax.random.normal(ks[1], (D, D), jnp.float32) * 0.02,
        "fc1": jax.random.normal(ks[2], (D, 4 * D), jnp.float32) * 0.02,
        "fc2": jax.random.normal(ks[3], (4 * D, D), jnp.float32) * 0.02,
        "g1": jnp.ones(D), "g2": jnp.ones(D),
    }
    x = jax.random.normal(ks[4], (B, T, D), jnp.float32)

    def norm(h, g):
        mu = h.mean(-1, keepdims=True)
        var = ((h - mu) ** 2).mean(-1, keepdims=True)
        return (h - mu) * jax.lax.rsqrt(var + 1e-5) * g

    def block(p, x):
        bf = jnp.bfloat16
        h = norm(x, p["g1"]).astype(bf)
        q, k, v = jnp.split(h @ p["qkv"].astype(bf), 3, axis=-1)
        q, k, v = (t.reshape(B, T, H, D // H) for t in (q, k, v))
        a = jax.nn.dot_product_attention(q, k, v, is_causal=True).reshape(B, T, D)
        x = x + (a @ p["out"].astype(bf)).astype(jnp.float32)
        h = norm(x, p["g2"]).astype(bf)
        h = jax.nn.gelu(h @ p["fc1"].astype(bf)) @ p["fc2"].astype(bf)
        return x + h.astype(jnp.float32)

    def loss(p, x):
        return jnp.mean(block(p, x) ** 2)

    @jax.jit
    def step(p, m, x):
        g = jax.grad(loss)(p, x)
        m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + g, m, g)
        p = jax.tree_util.tree_map(lambda p, m: p - 1e-3 * m, p, m)
        return p, m

    m = jax.tree_util.tree_map(jnp.zeros_like, params)
    for _ in range(3):
        params, m = step(params, m, x)
    jax.block_until_ready(params)
    win = Window(None, lambda: None)
    t0 = time.perf_counter()
    with win():
        params, m = step(params, m, x)
        jax.block_until_ready(params)
    return time.perf_counter() - t0


# ---- Round 4 of the grading (2026-12-02): more programs of kinds not graded before.


@program("mobilenet_train", "torchvision MobileNetV3-Small training step, batch 128, fp16 autocast with GradScaler, channels_last, cudnn.benchmark, SGD momentum (foreach); windows: features[6] forward+backward (depthwise conv, hardswish, squeeze-excite), the optimizer step")
def mobilenet_train(args):
    import torch
    import torchvision

    torch.backends.cudnn.benchmark = True
    model = torchvision.models.mobilenet_v3_small(weights=None).cuda().to(memory_format=torch.channels_last)
    x = torch.randn(128, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (128,), device="cuda")
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler("cuda")
    win = Window(args.trace, torch_sync)
    block = model.features[6]
    windowed(block, win)

    def step(measure):
        block._measure = measure
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        if measure:
            win.start()
        scaler.step(opt)
        scaler.update()
        if measure:
            win.stop()

    for _ in range(3):
        step(False)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch_trace(args.trace):
        step(True)
    torch.cuda.synchronize()
    return time.perf_counter() - t0


@program("t5_train", "Hugging Face transformers T5 (t5-small shape: 6+6 layers, d 512, relative attention bias) seq2seq training step, batch 16, source 256 / target 64 tokens, bf16 autocast, Adafactor-free AdamW (foreach); windows: decoder block 2 forward+backward, the optimizer step")
def t5_train(args):
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    cfg = T5Config(d_model=512, d_ff=2048, num_layers=6, num_decoder_layers=6, num_heads=8, vocab_size=32128,
                   decoder_start_token_id=0, pad_token_id=0)
    model = T5ForConditionalGeneration(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    src = torch.randint(0, 32128, (16, 256), device="cuda")
    tgt = torch.randint(0, 32128, (16, 64), device="cuda")
    win = Window(args.trace, torch_sync)
    block = model.decoder.block[2]
    windowed(block, win)
    loss_fn = lambda m, b: m(input_ids=b[0], labels=b[1]).loss
    return train(model, opt, (src, tgt), loss_fn, 3, win, [block], args.trace, torch.bfloat16)


@program("swin_infer", "timm Swin-T inference, batch 64, bf16 weights, channels of 96-768, shifted-window attention; window: layers[2] block 1 forward")
def swin_infer(args):
    import timm
    import torch

    model = timm.create_model("swin_tiny_patch4_window7_224", pretrained=False).cuda().to(torch.bfloat16).eval()
    x = torch.randn(64, 3, 224, 224, device="cuda", dtype=torch.bfloat16)
    return infer(model, x, Window(args.trace, torch_sync), [model.layers[2].blocks[1]], args.trace)


@program("wav2vec_infer", "Hugging Face transformers Wav2Vec2 (base shape, random weights) inference on 8 clips of 10 s at 16 kHz, fp16: the 1-D convolutional feature encoder, then the transformer; window: the whole forward of the feature encoder and encoder layer 0")
def wav2vec_infer(args):
    import torch
    from transformers import Wav2Vec2Config, Wav2Vec2Model

    cfg = Wav2Vec2Config()
    model = Wav2Vec2Model(cfg).cuda().half().eval()
    audio = torch.randn(8, 160000, device="cuda", dtype=torch.half)
    mods = [model.feature_extractor, model.encoder.layers[0]]
    return infer(model, audio, Window(args.trace, torch_sync), mods, args.trace)


@program("cupy_stats", "CuPy: random generation (cuRAND), a symmetric eigendecomposition (cuSOLVER syevd), argsort (CUB), a 1-D convolution, an einsum batched contraction (cuBLAS), a row-wise softmax written with CuPy ops, a mean/std reduction")
def cupy_stats(args):
    import cupy as cp

    win = Window(None, lambda: cp.cuda.Device().synchronize())
    rng = cp.random.default_rng(2)
    s = rng.standard_normal((2048, 2048), dtype=cp.float32)
    sym = s + s.T
    sig = rng.standard_normal(1 << 22, dtype=cp.float32)
    ker = rng.standard_normal(257, dtype=cp.float32)
    a = rng.standard_normal((64, 256, 512), dtype=cp.float32)
    b = rng.standard_normal((64, 512, 256), dtype=cp.float32)
    logits = rng.standard_normal((16384, 1024), dtype=cp.float32)

    def work():
        rng.standard_normal(1 << 24, dtype=cp.float32)
        cp.linalg.eigh(sym)
        cp.argsort(sig)
        cp.convolve(sig, ker, mode="same")
        cp.einsum("bij,bjk->bik", a, b)
        e = cp.exp(logits - logits.max(axis=1, keepdims=True))
        e / e.sum(axis=1, keepdims=True)
        logits.mean(axis=0), logits.std(axis=0)

    for _ in range(2):
        work()
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    with win():
        work()
    return time.perf_counter() - t0


# ---- Round 5 of the grading (2026-12-02, second session): kinds not graded before.


@program("regnet_train", "timm RegNetY-1.6GF training step, batch 64, bf16 autocast, channels_last, cudnn.benchmark, AdamW (foreach); windows: stage 3 block 2 forward+backward (grouped 3x3 conv, squeeze-excite, batch norm), the optimizer step")
def regnet_train(args):
    import timm
    import torch

    torch.backends.cudnn.benchmark = True
    model = timm.create_model("regnety_016", pretrained=False).cuda().to(memory_format=torch.channels_last)
    x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (64,), device="cuda")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    win = Window(args.trace, torch_sync)
    block = list(model.s3.children())[1]
    windowed(block, win)
    loss_fn = lambda m, b: torch.nn.functional.cross_entropy(m(b[0]), b[1])
    return train(model, opt, (x, y), loss_fn, 3, win, [block], args.trace, torch.bfloat16)


@program("dlrm_train", "a DLRM-style recommender written with torch.nn (8 EmbeddingBag tables of 500k x 128, sum pooling of 20 ids per bag; bottom MLP 13-512-256-128; pairwise dot interaction by bmm; top MLP 1024-512-256-1), batch 4096, fp32, BCE loss, dense Adam (foreach); window: the whole forward+backward and the optimizer step")
def dlrm_train(args):
    import torch

    class DLRM(torch.nn.Module):
        def __init__(self, tables=8, rows=500_000, d=128):
            super().__init__()
            self.emb = torch.nn.ModuleList([torch.nn.EmbeddingBag(rows, d, mode="sum") for _ in range(tables)])
            self.bottom = torch.nn.Sequential(torch.nn.Linear(13, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256),
                                              torch.nn.ReLU(), torch.nn.Linear(256, d), torch.nn.ReLU())
            n = tables + 1
            self.top = torch.nn.Sequential(torch.nn.Linear(d + n * (n - 1) // 2, 1024), torch.nn.ReLU(),
                                           torch.nn.Linear(1024, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256),
                                           torch.nn.ReLU(), torch.nn.Linear(256, 1))

        def forward(self, dense, ids, offsets):
            x = self.bottom(dense)
            feats = [x] + [e(i, o) for e, i, o in zip(self.emb, ids, offsets)]
            t = torch.stack(feats, dim=1)
            z = torch.bmm(t, t.transpose(1, 2))
            li, lj = torch.triu_indices(t.shape[1], t.shape[1], offset=1, device=t.device)
            return self.top(torch.cat([x, z[:, li, lj]], dim=1))

    batch, bag = 4096, 20
    model = DLRM().cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    dense = torch.randn(batch, 13, device="cuda")
    ids = [torch.randint(0, 500_000, (batch * bag,), device="cuda") for _ in range(8)]
    offsets = [torch.arange(0, batch * bag, bag, device="cuda") for _ in range(8)]
    y = torch.rand(batch, 1, device="cuda").round()
    win = Window(args.trace, torch_sync)

    def step(measure):
        opt.zero_grad(set_to_none=True)
        if measure:
            win.start()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(model(dense, ids, offsets), y)
        loss.backward()
        opt.step()
        if measure:
            win.stop()

    for _ in range(3):
        step(False)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch_trace(args.trace):
        step(True)
    torch.cuda.synchronize()
    return time.perf_counter() - t0


@program("compiled_encoder_train", "torch.compile (default mode: Inductor, Triton) of two nn.TransformerEncoderLayer (d 1024, 16 heads, ff 4096, GELU, norm_first) training step, batch 16 x 512, bf16 autocast, AdamW (foreach); window: the compiled forward+backward")
def compiled_encoder_train(args):
    import torch

    layer = lambda: torch.nn.TransformerEncoderLayer(1024, 16, 4096, activation="gelu", batch_first=True, norm_first=True, dropout=0.0)
    model = torch.nn.Sequential(layer(), layer()).cuda()
    cmodel = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(16, 512, 1024, device="cuda")
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


@program("unet_denoise_train", "a small diffusion-style UNet written with torch.nn (GroupNorm(32), SiLU, 3x3 conv, two down and two up stages 128-256-512 channels, a self-attention block at 16x16 by F.scaled_dot_product_attention), noise-prediction MSE training step, batch 32 at 64x64, fp16 autocast with GradScaler, AdamW (fused=True); windows: the middle stage (resblock, attention) forward+backward, the optimizer step")
def unet_denoise_train(args):
    import torch
    import torch.nn.functional as F

    class Res(torch.nn.Module):
        def __init__(self, cin, cout):
            super().__init__()
            self.n1, self.c1 = torch.nn.GroupNorm(32, cin), torch.nn.Conv2d(cin, cout, 3, padding=1)
            self.n2, self.c2 = torch.nn.GroupNorm(32, cout), torch.nn.Conv2d(cout, cout, 3, padding=1)
            self.skip = torch.nn.Conv2d(cin, cout, 1) if cin != cout else torch.nn.Identity()

        def forward(self, x):
            h = self.c1(F.silu(self.n1(x)))
            return self.skip(x) + self.c2(F.silu(self.n2(h)))

    class Attn(torch.nn.Module):
        def __init__(self, c, heads=8):
            super().__init__()
            self.heads, self.norm = heads, torch.nn.GroupNorm(32, c)
            self.qkv, self.out = torch.nn.Conv2d(c, 3 * c, 1), torch.nn.Conv2d(c, c, 1)

        def forward(self, x):
            b, c, hgt, wid = x.shape
            q, k, v = self.qkv(self.norm(x)).reshape(b, 3, self.heads, c // self.heads, hgt * wid).unbind(1)
            o = F.scaled_dot_product_attention(q.transpose(-1, -2), k.transpose(-1, -2), v.transpose(-1, -2))
            return x + self.out(o.transpose(-1, -2).reshape(b, c, hgt, wid))

    class UNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inp = torch.nn.Conv2d(3, 128, 3, padding=1)
            self.d1, self.d2 = Res(128, 256), Res(256, 512)
            self.mid = torch.nn.Sequential(Res(512, 512), Attn(512))
            self.u2, self.u1 = Res(1024, 256), Res(512, 128)
            self.outp = torch.nn.Conv2d(128, 3, 3, padding=1)

        def forward(self, x):
            h0 = self.inp(x)
            h1 = self.d1(h0)
            h2 = self.d2(F.avg_pool2d(h1, 2))
            m = self.mid(F.avg_pool2d(h2, 2))
            u = self.u2(torch.cat([F.interpolate(m, scale_factor=2.0), h2], 1))
            u = self.u1(torch.cat([F.interpolate(u, scale_factor=2.0), h1], 1))
            return self.outp(u)

    model = UNet().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    scaler = torch.amp.GradScaler("cuda")
    x = torch.randn(32, 3, 64, 64, device="cuda")
    noise = torch.randn_like(x)
    win = Window(args.trace, torch_sync)
    windowed(model.mid, win)

    def step(measure):
        model.mid._measure = measure
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.mse_loss(model(x + noise), noise)
        scaler.scale(loss).backward()
        if measure:
            win.start()
        scaler.step(opt)
        scaler.update()
        if measure:
            win.stop()

    for _ in range(3):
        step(False)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch_trace(args.trace):
        step(True)
    torch.cuda.synchronize()
    return time.perf_counter() - t0


# ---- Round 6 of the grading (2026-12-02, third session): kinds not graded before
# (dense concatenation, mixture of experts, detection heads, JAX convolutions, a
# sparse solver, an audio encoder-decoder).


@program("densenet_train", "torchvision DenseNet-121 training step, batch 32, bf16 autocast, channels_last, cudnn.benchmark, SGD nesterov (foreach); windows: denseblock3.denselayer7 forward+backward, the optimizer step")
def densenet_train(args):
    import torch
    import torchvision

    torch.backends.cudnn.benchmark = True
    model = torchvision.models.densenet121(weights=None).cuda().to(memory_format=torch.channels_last)
    x = torch.randn(32, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (32,), device="cuda")
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4)
    win = Window(args.trace, torch_sync)
    layer = model.features.denseblock3.denselayer7
    windowed(layer, win)
    loss_fn = lambda m, b: torch.nn.functional.cross_entropy(m(b[0]), b[1])
    return train(model, opt, (x, y), loss_fn, 3, win, [layer], args.trace, torch.bfloat16)


@program("mixtral_train", "Hugging Face transformers Mixtral (mixture of experts: 4 layers, d 512, 8 experts top-2, ff 1024, 8 heads / 4 KV heads, vocab 32000) training step, batch 8 x 256, bf16 autocast, AdamW (foreach); windows: layer 1 forward+backward, the optimizer step")
def mixtral_train(args):
    import torch
    from transformers import MixtralConfig, MixtralForCausalLM

    cfg = MixtralConfig(hidden_size=512, intermediate_size=1024, num_hidden_layers=4, num_attention_heads=8,
                        num_key_value_heads=4, num_local_experts=8, num_experts_per_tok=2, vocab_size=32000,
                        max_position_embeddings=512)
    cfg._attn_implementation = "sdpa"
    model = MixtralForCausalLM(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids = torch.randint(0, 32000, (8, 256), device="cuda")
    win = Window(args.trace, torch_sync)
    layer = model.model.layers[1]
    windowed(layer, win)
    loss_fn = lambda m, b: m(input_ids=b, labels=b).loss
    return train(model, opt, ids, loss_fn, 3, win, [layer], args.trace, torch.bfloat16)


@program("fasterrcnn_infer", "torchvision Faster R-CNN (MobileNetV3-Large FPN backbone, random weights) inference, 4 images of 800 x 800, fp32; windows: the RPN and the ROI heads (anchors, box decoding, NMS, RoIAlign, box head)")
def fasterrcnn_infer(args):
    import torch
    import torchvision

    torch.backends.cudnn.benchmark = True
    model = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_fpn(weights=None, weights_backbone=None).cuda().eval()
    images = [torch.rand(3, 800, 800, device="cuda") for _ in range(4)]
    win = Window(args.trace, torch_sync)
    return infer(model, images, win, [model.rpn, model.roi_heads], args.trace)


@program("jax_conv_train", "a JAX CNN written with jax.lax (four 3x3 conv layers 64-128-256-256 with ReLU and 2x2 average pooling, a dense head), batch 64 at 64 x 64, NHWC, bf16 compute with fp32 parameters, momentum SGD, one jitted step; window: one step")
def jax_conv_train(args):
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    chans = [3, 64, 128, 256, 256]
    params = []
    for i in range(4):
        key, k = jax.random.split(key)
        params.append(jax.random.normal(k, (3, 3, chans[i], chans[i + 1]), jnp.float32) * 0.05)
    key, k = jax.random.split(key)
    head = jax.random.normal(k, (256 * 4 * 4, 10), jnp.float32) * 0.01
    x = jax.random.normal(key, (64, 64, 64, 3), jnp.float32)
    y = jax.nn.one_hot(jnp.arange(64) % 10, 10)

    def loss(ps, x, y):
        w, h = ps
        a = x.astype(jnp.bfloat16)
        for k in w:
            a = jax.lax.conv_general_dilated(a, k.astype(jnp.bfloat16), (1, 1), "SAME",
                                             dimension_numbers=("NHWC", "HWIO", "NHWC"))
            a = jax.nn.relu(a)
            n, hh, ww, c = a.shape
            a = a.reshape(n, hh // 2, 2, ww // 2, 2, c).mean(axis=(2, 4))
        logits = a.reshape(a.shape[0], -1).astype(jnp.float32) @ h
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))

    @jax.jit
    def step(ps, mom, x, y):
        g = jax.grad(loss)(ps, x, y)
        mom = jax.tree_util.tree_map(lambda m, g: 0.9 * m + g, mom, g)
        ps = jax.tree_util.tree_map(lambda p, m: p - 1e-2 * m, ps, mom)
        return ps, mom

    ps = (params, head)
    mom = jax.tree_util.tree_map(jnp.zeros_like, ps)
    for _ in range(3):
        ps, mom = step(ps, mom, x, y)
    jax.block_until_ready(ps)
    win = Window(None, lambda: None)
    t0 = time.perf_counter()
    with win():
        ps, mom = step(ps, mom, x, y)
        jax.block_until_ready(ps)
    return time.perf_counter() - t0


@program("cupy_cg", "CuPy conjugate gradients (cupyx.scipy.sparse.linalg.cg) on the 5-point 2-D Poisson matrix of a 2048 x 2048 grid (4.2M unknowns, CSR, fp64), 40 iterations after 5 of warm-up; window: the measured solve")
def cupy_cg(args):
    import cupy as cp
    import cupyx.scipy.sparse as sp
    from cupyx.scipy.sparse.linalg import cg

    n = 2048
    big = n * n
    side = -cp.ones(big - 1)
    side[n - 1 :: n] = 0  # no coupling across a grid row's end
    far = -cp.ones(big - n)
    a = sp.diags([far, side, 4 * cp.ones(big), side, far], [-n, -1, 0, 1, n], format="csr")
    b = cp.ones(big)
    cg(a, b, maxiter=5)
    cp.cuda.Device().synchronize()
    win = Window(None, cp.cuda.Device().synchronize)
    t0 = time.perf_counter()
    with win():
        cg(a, b, maxiter=40)
    return time.perf_counter() - t0


@program("whisper_train", "Hugging Face transformers Whisper (2 encoder + 2 decoder layers, d 512, 8 heads, 80 mel bins, 3000 frames) training step on random log-mel input and 64-token labels, batch 8, bf16 autocast, AdamW (foreach); windows: the encoder's conv front end and encoder layer 0 forward+backward, the optimizer step")
def whisper_train(args):
    import torch
    from transformers import WhisperConfig, WhisperForConditionalGeneration

    cfg = WhisperConfig(d_model=512, encoder_layers=2, decoder_layers=2, encoder_attention_heads=8,
                        decoder_attention_heads=8, encoder_ffn_dim=2048, decoder_ffn_dim=2048, num_mel_bins=80,
                        vocab_size=51865, max_source_positions=1500, max_target_positions=448)
    cfg._attn_implementation = "sdpa"
    model = WhisperForConditionalGeneration(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    feats = torch.randn(8, 80, 3000, device="cuda")
    labels = torch.randint(0, 51865, (8, 64), device="cuda")
    win = Window(args.trace, torch_sync)
    enc = model.model.encoder
    mods = [enc.conv1, enc.conv2, enc.layers[0]]
    for m in mods:
        windowed(m, win)
    loss_fn = lambda m, b: m(input_features=b[0], labels=b[1]).loss
    return train(model, opt, (feats, labels), loss_fn, 3, win, mods, args.trace, torch.bfloat16)


@program("deeplab_infer", "torchvision DeepLabV3 (ResNet-50 backbone, random weights) semantic segmentation inference, batch 8 at 512 x 512, fp16 autocast, channels_last; windows: the ASPP head (atrous convolutions, global pooling, bilinear upsampling) and the classifier")
def deeplab_infer(args):
    import torch
    import torchvision

    torch.backends.cudnn.benchmark = True
    model = torchvision.models.segmentation.deeplabv3_resnet50(weights=None, weights_backbone=None, aux_loss=False)
    model = model.cuda().eval().to(memory_format=torch.channels_last)
    x = torch.randn(8, 3, 512, 512, device="cuda").to(memory_format=torch.channels_last)
    win = Window(args.trace, torch_sync)

    class Half(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            with torch.autocast("cuda", dtype=torch.float16):
                return self.m(x)

    return infer(Half(model), x, win, [model.classifier], args.trace)

# ---- Round 7 of the grading (2026-12-02, fourth session): kinds not graded before
# (fp16 loss scaling, 3-D convolutions, graph message passing, beam-search
# decoding, CuPy clustering, hand-written Triton kernels, a JAX language model).


@program("roberta_fp16_train", "Hugging Face transformers RoBERTa masked-LM (4 layers, d 768, 12 heads, ff 3072, vocab 50265) training step, batch 16 x 256, fp16 autocast with GradScaler, AdamW (foreach); windows: layer 1 forward+backward, the scaler's unscale and the optimizer step")
def roberta_fp16_train(args):
    import torch
    from transformers import RobertaConfig, RobertaForMaskedLM

    cfg = RobertaConfig(hidden_size=768, num_hidden_layers=4, num_attention_heads=12, intermediate_size=3072,
                        vocab_size=50265, max_position_embeddings=514)
    cfg._attn_implementation = "sdpa"
    model = RobertaForMaskedLM(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cuda")
    ids = torch.randint(3, 50265, (16, 256), device="cuda")
    labels = torch.where(torch.rand(16, 256, device="cuda") < 0.15, ids, torch.full_like(ids, -100))
    win = Window(args.trace, torch_sync)
    layer = model.roberta.encoder.layer[1]
    windowed(layer, win)

    loss_fn = lambda m, b: m(input_ids=b[0], labels=b[1]).loss
    return train(model, opt, (ids, labels), loss_fn, 3, win, [layer], args.trace, torch.float16, scaler)


@program("r3d_infer", "torchvision video ResNet R3D-18 (3-D convolutions, random weights) inference on 8 clips of 16 x 112 x 112, bf16 autocast, cudnn.benchmark; windows: layer2 and layer3 (3-D convolutions, batch norms, ReLU, residual adds)")
def r3d_infer(args):
    import torch
    import torchvision

    torch.backends.cudnn.benchmark = True
    model = torchvision.models.video.r3d_18(weights=None).cuda().eval()
    x = torch.randn(8, 3, 16, 112, 112, device="cuda")
    win = Window(args.trace, torch_sync)

    class Bf16(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                return self.m(x)

    return infer(Bf16(model), x, win, [model.layer2, model.layer3], args.trace)


@program("gnn_train", "a two-layer graph convolutional network in plain PyTorch (gather with index_select, scatter-add with index_add_, degree normalisation, Linear 128-256-64), 500k nodes, 3M random edges, fp32, Adam (foreach); windows: the second layer's forward+backward, the optimizer step")
def gnn_train(args):
    import torch

    nodes, edges = 500_000, 3_000_000
    g = torch.Generator(device="cuda").manual_seed(0)
    src = torch.randint(0, nodes, (edges,), device="cuda", generator=g)
    dst = torch.randint(0, nodes, (edges,), device="cuda", generator=g)
    deg = torch.zeros(nodes, device="cuda").index_add_(0, dst, torch.ones(edges, device="cuda")).clamp_(min=1)
    norm = deg.rsqrt()

    class GCNLayer(torch.nn.Module):
        def __init__(self, d_in, d_out):
            super().__init__()
            self.lin = torch.nn.Linear(d_in, d_out)

        def forward(self, h):
            h = self.lin(h) * norm[:, None]
            msg = h.index_select(0, src)
            out = torch.zeros_like(h).index_add_(0, dst, msg)
            return out * norm[:, None]

    class GCN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = GCNLayer(128, 256)
            self.l2 = GCNLayer(256, 64)

        def forward(self, x):
            return self.l2(torch.relu(self.l1(x)))

    model = GCN().cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    x = torch.randn(nodes, 128, device="cuda")
    y = torch.randint(0, 64, (nodes,), device="cuda")
    win = Window(args.trace, torch_sync)
    windowed(model.l2, win)
    loss_fn = lambda m, b: torch.nn.functional.cross_entropy(m(b[0]), b[1])
    return train(model, opt, (x, y), loss_fn, 3, win, [model.l2], args.trace)


@program("bart_generate", "Hugging Face transformers BART (3 encoder + 3 decoder layers, d 768, 12 heads, vocab 50265, random weights) beam-search generation, 4 beams, batch 8, 128-token inputs, 24 new tokens (min 24), fp16 weights; windows: decoder layer 0 in every decoding step (self- and cross-attention over the KV cache)")
def bart_generate(args):
    import torch
    from transformers import BartConfig, BartForConditionalGeneration

    cfg = BartConfig(d_model=768, encoder_layers=3, decoder_layers=3, encoder_attention_heads=12,
                     decoder_attention_heads=12, encoder_ffn_dim=3072, decoder_ffn_dim=3072, vocab_size=50265,
                     max_position_embeddings=512)
    cfg._attn_implementation = "sdpa"
    model = BartForConditionalGeneration(cfg).cuda().half().eval()
    ids = torch.randint(3, 50265, (8, 128), device="cuda")
    win = Window(args.trace, torch_sync)
    layer = model.model.decoder.layers[0]
    layer.register_forward_pre_hook(lambda m, a, k: win.start() if getattr(m, "_measure", False) else None, with_kwargs=True)
    layer.register_forward_hook(lambda m, a, k, o: win.stop() if getattr(m, "_measure", False) else None, with_kwargs=True)
    gen = dict(num_beams=4, max_new_tokens=24, min_new_tokens=24, do_sample=False)
    with torch.no_grad():
        model.generate(ids, **gen)
        torch.cuda.synchronize()
        layer._measure = True
        t0 = time.perf_counter()
        with torch_trace(args.trace):
            model.generate(ids, **gen)
        torch.cuda.synchronize()
    return time.perf_counter() - t0


@program("cupy_kmeans", "CuPy k-means (Lloyd's iterations written as people write them: distances through a cuBLAS GEMM, argmin, centroid sums with cupyx.scatter_add, bincount), 2M points of 64 fp32 features, k 256; window: two measured iterations after 3 of warm-up")
def cupy_kmeans(args):
    import cupy as cp
    import cupyx

    n, d, k = 2_000_000, 64, 256
    cp.random.seed(0)
    x = cp.random.standard_normal((n, d), dtype=cp.float32)
    c = x[:k].copy()
    x2 = (x * x).sum(axis=1)

    def iteration(c):
        dist = x2[:, None] - 2.0 * (x @ c.T) + (c * c).sum(axis=1)[None, :]
        label = dist.argmin(axis=1)
        sums = cp.zeros((k, d), dtype=cp.float32)
        cupyx.scatter_add(sums, label, x)
        counts = cp.bincount(label, minlength=k).astype(cp.float32)
        return sums / cp.maximum(counts, 1.0)[:, None]

    for _ in range(3):
        c = iteration(c)
    cp.cuda.Device().synchronize()
    win = Window(None, cp.cuda.Device().synchronize)
    t0 = time.perf_counter()
    with win():
        for _ in range(2):
            c = iteration(c)
    return time.perf_counter() - t0


@program("triton_kernels", "hand-written Triton kernels as the Triton tutorials teach them: a row softmax (one program per row), a tiled fp16 matmul with fp32 accumulation (4096 x 4096 x 4096, 128 x 128 x 32 tiles, grouped ordering), a fused layer norm (fp16, 8192 x 4096); window: one call of each after warm-up")
def triton_kernels(args):
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(in_ptr + row * stride + offs, mask=mask, other=-float("inf")).to(tl.float32)
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        y = num / tl.sum(num, axis=0)
        tl.store(out_ptr + row * stride + offs, y.to(out_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
        pid = tl.program_id(0)
        num_m = tl.cdiv(M, BM)
        num_n = tl.cdiv(N, BN)
        group = pid // (GROUP * num_n)
        first_m = group * GROUP
        size_m = min(num_m - first_m, GROUP)
        pm = first_m + (pid % (GROUP * num_n)) % size_m
        pn = (pid % (GROUP * num_n)) // size_m
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
        b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for _ in range(0, tl.cdiv(K, BK)):
            acc += tl.dot(tl.load(a), tl.load(b))
            a += BK * sak
            b += BK * sbk
        tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16))

    @triton.jit
    def layernorm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_ptr + row * stride + offs, mask=mask, other=0.0).to(tl.float32)
        mean = tl.sum(x, axis=0) / n_cols
        xc = tl.where(mask, x - mean, 0.0)
        var = tl.sum(xc * xc, axis=0) / n_cols
        w = tl.load(w_ptr + offs, mask=mask)
        b = tl.load(b_ptr + offs, mask=mask)
        y = xc * tl.rsqrt(var + eps) * w + b
        tl.store(y_ptr + row * stride + offs, y.to(tl.float16), mask=mask)

    rows, cols = 16384, 2048
    s_in = torch.randn(rows, cols, device="cuda", dtype=torch.float16)
    s_out = torch.empty_like(s_in)
    M = N = K = 4096
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    ln_x = torch.randn(8192, 4096, device="cuda", dtype=torch.float16)
    ln_y = torch.empty_like(ln_x)
    w = torch.ones(4096, device="cuda", dtype=torch.float16)
    bias = torch.zeros(4096, device="cuda", dtype=torch.float16)

    def run():
        softmax_kernel[(rows,)](s_out, s_in, s_in.stride(0), cols, BLOCK=triton.next_power_of_2(cols))
        grid = (triton.cdiv(M, 128) * triton.cdiv(N, 128),)
        matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                            c.stride(0), c.stride(1), BM=128, BN=128, BK=32, GROUP=8, num_warps=4, num_stages=3)
        layernorm_kernel[(8192,)](ln_x, ln_y, w, bias, ln_x.stride(0), 4096, 1e-5, BLOCK=4096, num_warps=8)

    for _ in range(3):
        run()
    torch.cuda.synchronize()
    win = Window(args.trace, torch_sync)
    t0 = time.perf_counter()
    with torch_trace(args.trace):
        with win():
            run()
    return time.perf_counter() - t0


@program("jax_lm_train", "a JAX decoder-only language model in plain jax.numpy (2 layers, d 768, 12 heads, causal attention written out, GELU MLP, tied 32000-token embedding), batch 16 x 256, bf16 compute with fp32 parameters, Adam written out, one jitted step; window: one step")
def jax_lm_train(args):
    import jax
    import jax.numpy as jnp

    V, D, H, L, B, T = 32000, 768, 12, 2, 16, 256
    key = jax.random.PRNGKey(0)
    ks = iter(jax.random.split(key, 4 + 6 * L))
    params = {"emb": jax.random.normal(next(ks), (V, D), jnp.float32) * 0.02, "layers": []}
    for _ in range(L):
        params["layers"].append({
            "qkv": jax.random.normal(next(ks), (D, 3 * D), jnp.float32) * 0.02,
            "out": jax.random.normal(next(ks), (D, D), jnp.float32) * 0.02,
            "fc1": jax.random.normal(next(ks), (D, 4 * D), jnp.float32) * 0.02,
            "fc2": jax.random.normal(next(ks), (4 * D, D), jnp.float32) * 0.02,
            "g1": jnp.ones(D), "g2": jnp.ones(D),
        })
    tokens = jax.random.randint(next(ks), (B, T + 1), 0, V)
    bf = jnp.bfloat16

    def norm(h, g):
        mu = h.mean(-1, keepdims=True)
        var = ((h - mu) ** 2).mean(-1, keepdims=True)
        return (h - mu) * jax.lax.rsqrt(var + 1e-5) * g

    def loss(p, tokens):
        x = p["emb"][tokens[:, :-1]]
        mask = jnp.tril(jnp.ones((T, T), bool))
        for lp in p["layers"]:
            h = norm(x, lp["g1"]).astype(bf)
            q, k, v = jnp.split(h @ lp["qkv"].astype(bf), 3, axis=-1)
            q, k, v = (t.reshape(B, T, H, D // H).transpose(0, 2, 1, 3) for t in (q, k, v))
            s = (q @ k.transpose(0, 1, 3, 2)).astype(jnp.float32) / jnp.sqrt(D // H)
            a = jax.nn.softmax(jnp.where(mask, s, -1e9), axis=-1).astype(bf) @ v
            x = x + (a.transpose(0, 2, 1, 3).reshape(B, T, D) @ lp["out"].astype(bf)).astype(jnp.float32)
            h = norm(x, lp["g2"]).astype(bf)
            x = x + (jax.nn.gelu(h @ lp["fc1"].astype(bf)) @ lp["fc2"].astype(bf)).astype(jnp.float32)
        logits = (x.astype(bf) @ p["emb"].astype(bf).T).astype(jnp.float32)
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, tokens[:, 1:, None], axis=-1))

    @jax.jit
    def step(p, m, v, t, tokens):
        g = jax.grad(loss)(p, tokens)
        m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
        v = jax.tree_util.tree_map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
        p = jax.tree_util.tree_map(lambda p, m, v: p - 1e-3 * (m / (1 - 0.9 ** t)) / (jnp.sqrt(v / (1 - 0.999 ** t)) + 1e-8), p, m, v)
        return p, m, v

    m = jax.tree_util.tree_map(jnp.zeros_like, params)
    v = jax.tree_util.tree_map(jnp.zeros_like, params)
    for t in range(1, 4):
        params, m, v = step(params, m, v, float(t), tokens)
    jax.block_until_ready(params)
    win = Window(None, lambda: None)
    t0 = time.perf_counter()
    with win():
        params, m, v = step(params, m, v, 4.0, tokens)
        jax.block_until_ready(params)
    return time.perf_counter() - t0


# ---- Round 8 of the grading (2026-12-02, fifth session): kinds not graded before
# (an OPT decoder with a fused AdamW, grouped convolutions, a torch.compile'd
# ViT, spectral convolutions through cuFFT, CuPy image filters, a JAX MLP-Mixer).


@program("opt_train", "Hugging Face transformers OPT causal LM (4 layers, d 768, 12 heads, ff 3072, vocab 50272, random weights) training step, batch 8 x 512, bf16 autocast, AdamW(fused=True); windows: decoder layer 1 forward+backward and the optimizer step")
def opt_train(args):
    import torch
    from transformers import OPTConfig, OPTForCausalLM

    cfg = OPTConfig(hidden_size=768, num_hidden_layers=4, num_attention_heads=12, ffn_dim=3072,
                    vocab_size=50272, max_position_embeddings=1024, word_embed_proj_dim=768)
    cfg._attn_implementation = "sdpa"
    model = OPTForCausalLM(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(3, 50272, (8, 512), device="cuda")
    win = Window(args.trace, torch_sync)
    layer = model.model.decoder.layers[1]
    windowed(layer, win)
    loss_fn = lambda m, b: m(input_ids=b, labels=b).loss
    return train(model, opt, ids, loss_fn, 3, win, [layer], args.trace, torch.bfloat16)


@program("resnext_train", "torchvision ResNeXt-50 32x4d (grouped 3x3 convolutions, random weights) training step, batch 32 at 224 x 224, bf16 autocast, channels_last, cudnn.benchmark, SGD with momentum (foreach); windows: layer3's first block forward+backward and the optimizer step")
def resnext_train(args):
    import torch
    import torchvision

    torch.backends.cudnn.benchmark = True
    model = torchvision.models.resnext50_32x4d(weights=None).cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    x = torch.randn(32, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (32,), device="cuda")
    win = Window(args.trace, torch_sync)
    block = model.layer3[0]
    windowed(block, win)
    loss_fn = lambda m, b: torch.nn.functional.cross_entropy(m(b[0]), b[1])
    return train(model, opt, (x, y), loss_fn, 3, win, [block], args.trace, torch.bfloat16)


@program("vit_compiled_infer", "timm ViT-Small/16 (random weights) inference compiled with torch.compile (default mode, Inductor's Triton kernels and cuBLAS), batch 64 at 224 x 224, bf16 weights; window: one compiled forward after warm-up (the launch cap keeps its first blocks)")
def vit_compiled_infer(args):
    import timm
    import torch

    model = timm.create_model("vit_small_patch16_224", pretrained=False).cuda().eval().to(torch.bfloat16)
    fast = torch.compile(model)
    x = torch.randn(64, 3, 224, 224, device="cuda", dtype=torch.bfloat16)
    win = Window(args.trace, torch_sync)
    with torch.no_grad():
        for _ in range(3):
            fast(x)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        with torch_trace(args.trace):
            with win():
                fast(x)
        torch.cuda.synchronize()
    return time.perf_counter() - t0


@program("fno_train", "a 2-D Fourier neural operator in plain PyTorch (lifting Linear, 4 spectral layers: rfft2, complex einsum on 16 x 16 retained modes, irfft2, plus a 1x1 Conv2d skip and GELU; width 64), batch 32 on a 128 x 128 grid, fp32, Adam (foreach); windows: the second spectral layer forward+backward and the optimizer step")
def fno_train(args):
    import torch

    class Spectral(torch.nn.Module):
        def __init__(self, width, modes):
            super().__init__()
            self.modes = modes
            scale = 1 / (width * width)
            self.w1 = torch.nn.Parameter(scale * torch.randn(width, width, modes, modes, dtype=torch.cfloat))
            self.w2 = torch.nn.Parameter(scale * torch.randn(width, width, modes, modes, dtype=torch.cfloat))
            self.skip = torch.nn.Conv2d(width, width, 1)

        def forward(self, x):
            b, c, h, w = x.shape
            m = self.modes
            xf = torch.fft.rfft2(x)
            out = torch.zeros(b, c, h, w // 2 + 1, dtype=torch.cfloat, device=x.device)
            out[:, :, :m, :m] = torch.einsum("bixy,ioxy->boxy", xf[:, :, :m, :m], self.w1)
            out[:, :, -m:, :m] = torch.einsum("bixy,ioxy->boxy", xf[:, :, -m:, :m], self.w2)
            y = torch.fft.irfft2(out, s=(h, w))
            return torch.nn.functional.gelu(y + self.skip(x))

    class FNO(torch.nn.Module):
        def __init__(self, width=64, modes=16):
            super().__init__()
            self.lift = torch.nn.Linear(3, width)
            self.layers = torch.nn.ModuleList([Spectral(width, modes) for _ in range(4)])
            self.proj = torch.nn.Linear(width, 1)

        def forward(self, a):
            x = self.lift(a).permute(0, 3, 1, 2)
            for layer in self.layers:
                x = layer(x)
            return self.proj(x.permute(0, 2, 3, 1))

    model = FNO().cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    a = torch.randn(32, 128, 128, 3, device="cuda")
    u = torch.randn(32, 128, 128, 1, device="cuda")
    win = Window(args.trace, torch_sync)
    layer = model.layers[1]
    windowed(layer, win)
    loss_fn = lambda m, b: torch.nn.functional.mse_loss(m(b[0]), b[1])
    return train(model, opt, (a, u), loss_fn, 3, win, [layer], args.trace)


@program("cupy_image", "CuPy image processing on a batch of 16 fp32 images of 2048 x 2048 (cupyx.scipy.ndimage: a Gaussian filter sigma 2, Sobel gradients on both axes, their magnitude with cupy.hypot, a 3 x 3 median filter; then a circular convolution with a 31 x 31 kernel through cupy.fft.rfft2/irfft2); window: one pass after 2 of warm-up")
def cupy_image(args):
    import cupy as cp
    from cupyx.scipy import ndimage

    cp.random.seed(0)
    img = cp.random.random((16, 2048, 2048), dtype=cp.float32)
    kern = cp.zeros((2048, 2048), dtype=cp.float32)
    kern[:31, :31] = cp.random.random((31, 31), dtype=cp.float32)
    kf = cp.fft.rfft2(kern)

    def run():
        g = ndimage.gaussian_filter(img, sigma=(0, 2, 2))
        gx = ndimage.sobel(g, axis=2)
        gy = ndimage.sobel(g, axis=1)
        mag = cp.hypot(gx, gy)
        med = ndimage.median_filter(mag, size=(1, 3, 3))
        conv = cp.fft.irfft2(cp.fft.rfft2(med) * kf[None], s=med.shape[1:])
        return conv

    for _ in range(2):
        run()
    cp.cuda.Device().synchronize()
    win = Window(None, cp.cuda.Device().synchronize)
    t0 = time.perf_counter()
    with win():
        run()
    return time.perf_counter() - t0


@program("jax_mixer_train", "a JAX MLP-Mixer in plain jax.numpy (4 blocks, 196 patches of 16 x 16, hidden 512, token MLP 256, channel MLP 2048, layer norms, GELU), batch 64 at 224 x 224, bf16 compute with fp32 parameters, momentum SGD, one jitted step; window: one step")
def jax_mixer_train(args):
    import jax
    import jax.numpy as jnp

    B, P, C, DT, DC, L = 64, 196, 512, 256, 2048, 4
    key = jax.random.PRNGKey(0)
    ks = iter(jax.random.split(key, 4 + 4 * L))
    bf = jnp.bfloat16
    params = {"stem": jax.random.normal(next(ks), (16 * 16 * 3, C)) * 0.02,
              "head": jax.random.normal(next(ks), (C, 1000)) * 0.02, "blocks": []}
    for _ in range(L):
        params["blocks"].append({
            "t1": jax.random.normal(next(ks), (P, DT)) * 0.02, "t2": jax.random.normal(next(ks), (DT, P)) * 0.02,
            "c1": jax.random.normal(next(ks), (C, DC)) * 0.02, "c2": jax.random.normal(next(ks), (DC, C)) * 0.02,
            "g1": jnp.ones(C), "g2": jnp.ones(C),
        })
    x = jax.random.normal(next(ks), (B, 224, 224, 3))
    y = jax.nn.one_hot(jnp.arange(B) % 1000, 1000)

    def norm(h, g):
        mu = h.mean(-1, keepdims=True)
        var = ((h - mu) ** 2).mean(-1, keepdims=True)
        return (h - mu) * jax.lax.rsqrt(var + 1e-6) * g

    def loss(p, x, y):
        patches = x.reshape(B, 14, 16, 14, 16, 3).transpose(0, 1, 3, 2, 4, 5).reshape(B, P, 768)
        h = (patches.astype(bf) @ p["stem"].astype(bf)).astype(jnp.float32)
        for bp in p["blocks"]:
            t = norm(h, bp["g1"]).astype(bf).transpose(0, 2, 1)
            t = jax.nn.gelu(t @ bp["t1"].astype(bf)) @ bp["t2"].astype(bf)
            h = h + t.transpose(0, 2, 1).astype(jnp.float32)
            c = norm(h, bp["g2"]).astype(bf)
            h = h + (jax.nn.gelu(c @ bp["c1"].astype(bf)) @ bp["c2"].astype(bf)).astype(jnp.float32)
        logits = h.mean(1) @ p["head"]
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))

    @jax.jit
    def step(p, mom, x, y):
        g = jax.grad(loss)(p, x, y)
        mom = jax.tree_util.tree_map(lambda m, g: 0.9 * m + g, mom, g)
        p = jax.tree_util.tree_map(lambda p, m: p - 1e-2 * m, p, mom)
        return p, mom

    mom = jax.tree_util.tree_map(jnp.zeros_like, params)
    for _ in range(3):
        params, mom = step(params, mom, x, y)
    jax.block_until_ready(params)
    win = Window(None, lambda: None)
    t0 = time.perf_counter()
    with win():
        params, mom = step(params, mom, x, y)
        jax.block_until_ready(params)
    return time.perf_counter() - t0


# Round 9 (2026-12-03): chosen and written before the rules of this round.


@program("qwen2_train", "Hugging Face transformers Qwen2 causal LM (random weights; hidden 1024, 4 layers, 16 query heads sharing 4 key/value heads, SwiGLU MLP 2816, RMSNorm, rotary; vocab 32000) training step, batch 4 x 1024 tokens, bf16 autocast, SDPA attention, AdamW (foreach); windows: decoder layer 1 forward+backward and the optimizer step")
def qwen2_train(args):
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    cfg = Qwen2Config(hidden_size=1024, intermediate_size=2816, num_hidden_layers=4, num_attention_heads=16,
                      num_key_value_heads=4, vocab_size=32000, max_position_embeddings=2048)
    cfg._attn_implementation = "sdpa"
    model = Qwen2ForCausalLM(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids = torch.randint(0, 32000, (4, 1024), device="cuda")
    win = Window(args.trace, torch_sync)
    layer = model.model.layers[1]
    windowed(layer, win)
    loss_fn = lambda m, b: m(input_ids=b, labels=b).loss
    return train(model, opt, ids, loss_fn, 3, win, [layer], args.trace, torch.bfloat16)


@program("neox_prefill_infer", "Hugging Face transformers GPT-NeoX causal LM (random weights; hidden 1024, 8 layers, 16 heads, MLP 4096, partial rotary 25%, parallel residual; vocab 50432) prefill inference, batch 8 x 1024 tokens, fp16 weights, SDPA attention, no KV cache; window: decoder layer 2's forward")
def neox_prefill_infer(args):
    import torch
    from transformers import GPTNeoXConfig, GPTNeoXForCausalLM

    cfg = GPTNeoXConfig(hidden_size=1024, num_hidden_layers=8, num_attention_heads=16, intermediate_size=4096,
                        vocab_size=50432, rotary_pct=0.25, max_position_embeddings=2048, use_cache=False)
    cfg._attn_implementation = "sdpa"
    model = GPTNeoXForCausalLM(cfg).cuda().eval().half()
    ids = torch.randint(0, 50432, (8, 1024), device="cuda")
    win = Window(args.trace, torch_sync)
    layer = model.gpt_neox.layers[2]
    return infer(model, ids, win, [layer], args.trace)


@program("pyg_sage_train", "torch_geometric GraphSAGE (two SAGEConv layers with mean aggregation, 128 -> 128 -> 64, ReLU) node-classification training step on a random graph of 100,000 nodes and 1.6 million edges, 128 fp32 features, 64 classes, Adam (foreach); windows: the second SAGEConv's forward+backward and the optimizer step")
def pyg_sage_train(args):
    import torch
    from torch_geometric.nn import SAGEConv

    class Sage(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = SAGEConv(128, 128)
            self.conv2 = SAGEConv(128, 64)

        def forward(self, x, edge_index):
            return self.conv2(torch.relu(self.conv1(x, edge_index)), edge_index)

    torch.manual_seed(0)
    n, e = 100_000, 1_600_000
    x = torch.randn(n, 128, device="cuda")
    edge_index = torch.randint(0, n, (2, e), device="cuda")
    y = torch.randint(0, 64, (n,), device="cuda")
    model = Sage().cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    win = Window(args.trace, torch_sync)
    windowed(model.conv2, win)
    loss_fn = lambda m, b: torch.nn.functional.cross_entropy(m(b[0], b[1]), b[2])
    return train(model, opt, (x, edge_index, y), loss_fn, 3, win, [model.conv2], args.trace)


@program("vae_train", "a convolutional VAE in plain PyTorch (encoder: three stride-2 4x4 Conv2d 3 -> 32 -> 64 -> 128 with ReLU, Linear heads to a 256-d latent; decoder: Linear, three stride-2 ConvTranspose2d 128 -> 64 -> 32 -> 3, ReLU, sigmoid; MSE + KL loss) training step, batch 256 at 64 x 64, fp16 autocast with GradScaler, cudnn.benchmark, Adam (foreach); windows: the decoder's forward+backward and the optimizer step")
def vae_train(args):
    import torch
    from torch import nn

    class Vae(nn.Module):
        def __init__(self, z=256):
            super().__init__()
            self.enc = nn.Sequential(nn.Conv2d(3, 32, 4, 2, 1), nn.ReLU(), nn.Conv2d(32, 64, 4, 2, 1), nn.ReLU(),
                                     nn.Conv2d(64, 128, 4, 2, 1), nn.ReLU(), nn.Flatten())
            self.mu = nn.Linear(128 * 8 * 8, z)
            self.logvar = nn.Linear(128 * 8 * 8, z)
            self.dec = nn.Sequential(nn.Linear(z, 128 * 8 * 8), nn.Unflatten(1, (128, 8, 8)),
                                     nn.ConvTranspose2d(128, 64, 4, 2, 1), nn.ReLU(),
                                     nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.ReLU(),
                                     nn.ConvTranspose2d(32, 3, 4, 2, 1), nn.Sigmoid())

        def forward(self, x):
            h = self.enc(x)
            mu, logvar = self.mu(h), self.logvar(h)
            zs = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
            return self.dec(zs), mu, logvar

    def loss_fn(m, x):
        rec, mu, logvar = m(x)
        kl = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
        return nn.functional.mse_loss(rec.float(), x) + kl

    torch.backends.cudnn.benchmark = True
    model = Vae().cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    x = torch.rand(256, 3, 64, 64, device="cuda")
    win = Window(args.trace, torch_sync)
    windowed(model.dec, win)
    return train(model, opt, x, loss_fn, 3, win, [model.dec], args.trace, torch.float16, scaler)


@program("cupy_heat", "CuPy explicit 2-D heat equation on an 8192 x 8192 fp32 grid written with array slicing (five-point Laplacian as shifted-slice arithmetic into a copy of the grid), with a max-abs-change convergence check every step; window: three steps after two of warm-up")
def cupy_heat(args):
    import cupy as cp

    cp.random.seed(0)
    u = cp.random.random((8192, 8192), dtype=cp.float32)
    alpha = cp.float32(0.2)

    def step(u):
        un = u.copy()
        un[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                                                   - 4 * u[1:-1, 1:-1])
        change = float(cp.abs(un - u).max())
        return un, change

    for _ in range(2):
        u, _ = step(u)
    cp.cuda.Device().synchronize()
    win = Window(None, cp.cuda.Device().synchronize)
    t0 = time.perf_counter()
    with win():
        for _ in range(3):
            u, _ = step(u)
    return time.perf_counter() - t0


@program("cupy_user_kernels", "user CUDA kernels written with CuPy as its user guide teaches: a RawKernel naive matrix product (one thread per output) and a 16 x 16 shared-memory tiled one on 2048 x 2048 fp32, a RawKernel 256-bin histogram with global atomics over 64 M values, an ElementwiseKernel squared difference and a ReductionKernel L2 norm over 64 M fp32; window: one call of each after a warm-up call")
def cupy_user_kernels(args):
    import cupy as cp

    src = r"""
    extern "C" __global__ void matmul(const float* A, const float* B, float* C, int n) {
        int row = blockIdx.y * blockDim.y + threadIdx.y;
        int col = blockIdx.x * blockDim.x + threadIdx.x;
        if (row < n && col < n) {
            float acc = 0.0f;
            for (int k = 0; k < n; ++k) acc += A[row * n + k] * B[k * n + col];
            C[row * n + col] = acc;
        }
    }
    #define TILE 16
    extern "C" __global__ void tiled_matmul(const float* A, const float* B, float* C, int n) {
        __shared__ float sA[TILE][TILE];
        __shared__ float sB[TILE][TILE];
        int row = blockIdx.y * TILE + threadIdx.y;
        int col = blockIdx.x * TILE + threadIdx.x;
        float acc = 0.0f;
        for (int t = 0; t < n / TILE; ++t) {
            sA[threadIdx.y][threadIdx.x] = A[row * n + t * TILE + threadIdx.x];
            sB[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + col];
            __syncthreads();
            for (int k = 0; k < TILE; ++k) acc += sA[threadIdx.y][k] * sB[k][threadIdx.x];
            __syncthreads();
        }
        C[row * n + col] = acc;
    }
    extern "C" __global__ void histogram(const float* data, int* bins, long long m) {
        long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
        if (i < m) atomicAdd(&bins[((int)(data[i] * 256.0f)) & 255], 1);
    }
    """
    mod = cp.RawModule(code=src)
    matmul, tiled, hist = (mod.get_function(f) for f in ("matmul", "tiled_matmul", "histogram"))
    squared_diff = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)", "squared_diff")
    l2norm = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")

    n, m = 2048, 64 * 1024 * 1024
    cp.random.seed(0)
    A = cp.random.random((n, n), dtype=cp.float32)
    B = cp.random.random((n, n), dtype=cp.float32)
    C = cp.empty((n, n), dtype=cp.float32)
    data = cp.random.random(m, dtype=cp.float32)
    other = cp.random.random(m, dtype=cp.float32)
    bins = cp.zeros(256, dtype=cp.int32)
    grid2 = ((n + 15) // 16, (n + 15) // 16)

    def run():
        matmul(grid2, (16, 16), (A, B, C, cp.int32(n)))
        tiled(grid2, (16, 16), (A, B, C, cp.int32(n)))
        hist(((m + 255) // 256,), (256,), (data, bins, cp.int64(m)))
        d = squared_diff(data, other)
        return l2norm(d)

    run()
    cp.cuda.Device().synchronize()
    win = Window(None, cp.cuda.Device().synchronize)
    t0 = time.perf_counter()
    with win():
        run()
    return time.perf_counter() - t0

@program("raft_flow_infer", "torchvision RAFT-small optical flow (random weights) inference on a batch of 8 image pairs at 368 x 496, fp32, cudnn.benchmark, 12 recurrent flow updates; window: the recurrent update block's forward (motion encoder, ConvGRU, flow head) at every update")
def raft_flow_infer(args):
    import torch
    import torchvision

    torch.backends.cudnn.benchmark = True
    model = torchvision.models.optical_flow.raft_small(weights=None).cuda().eval()
    torch.manual_seed(0)
    img1 = torch.rand(8, 3, 368, 496, device="cuda") * 2 - 1
    img2 = torch.rand(8, 3, 368, 496, device="cuda") * 2 - 1
    win = Window(args.trace, torch_sync)
    block = model.update_block
    block.register_forward_pre_hook(lambda m, a: win.start() if getattr(m, "_measure", False) else None)
    block.register_forward_hook(lambda m, a, o: win.stop() if getattr(m, "_measure", False) else None)
    with torch.no_grad():
        for _ in range(3):
            model(img1, img2, num_flow_updates=12)
        torch.cuda.synchronize()
        block._measure = True
        t0 = time.perf_counter()
        with torch_trace(args.trace):
            model(img1, img2, num_flow_updates=12)
        torch.cuda.synchronize()
    return time.perf_counter() - t0


@program("clip_train", "Hugging Face transformers CLIP (random weights; ViT-B/16-style vision tower at 224 x 224 with hidden 512, 6 layers, 8 heads; text tower hidden 512, 6 layers, 77 tokens, vocab 49408; projection 512) contrastive training step, batch 64 image-text pairs, bf16 autocast, SDPA attention, AdamW (foreach); windows: vision layer 2 forward+backward and the optimizer step")
def clip_train(args):
    import torch
    from transformers import CLIPConfig, CLIPModel

    cfg = CLIPConfig(
        text_config=dict(hidden_size=512, intermediate_size=2048, num_hidden_layers=6, num_attention_heads=8,
                         max_position_embeddings=77, vocab_size=49408),
        vision_config=dict(hidden_size=512, intermediate_size=2048, num_hidden_layers=6, num_attention_heads=8,
                           image_size=224, patch_size=16),
        projection_dim=512)
    cfg._attn_implementation = "sdpa"
    model = CLIPModel(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.1)
    torch.manual_seed(0)
    ids = torch.randint(0, 49408, (64, 77), device="cuda")
    pixels = torch.randn(64, 3, 224, 224, device="cuda")
    win = Window(args.trace, torch_sync)
    layer = model.vision_model.encoder.layers[2]
    windowed(layer, win)
    loss_fn = lambda m, b: m(input_ids=b[0], pixel_values=b[1], return_loss=True).loss
    return train(model, opt, (ids, pixels), loss_fn, 3, win, [layer], args.trace, torch.bfloat16)


@program("cupy_option_mc", "CuPy Monte Carlo option pricing as a quant writes it: a European call on 2^25 fp32 paths (standard normals, terminal price by the exponential of the drift and the scaled normal, payoff by maximum, discounted mean and standard error) and an arithmetic Asian call on 2^18 paths x 64 steps (normal increments, cumsum of log-returns along time, exponential, mean over time, payoff); window: one pricing of both after a warm-up")
def cupy_option_mc(args):
    import math

    import cupy as cp

    s0, k, r, sigma, t = 100.0, 105.0, 0.03, 0.2, 1.0

    def european(n):
        z = cp.random.standard_normal(n, dtype=cp.float32)
        st = s0 * cp.exp((r - 0.5 * sigma ** 2) * t + sigma * math.sqrt(t) * z)
        payoff = cp.maximum(st - k, 0.0)
        price = math.exp(-r * t) * payoff.mean()
        stderr = payoff.std() / math.sqrt(n)
        return float(price), float(stderr)

    def asian(n, steps):
        dt = t / steps
        z = cp.random.standard_normal((n, steps), dtype=cp.float32)
        log_paths = cp.cumsum((r - 0.5 * sigma ** 2) * dt + sigma * math.sqrt(dt) * z, axis=1)
        paths = s0 * cp.exp(log_paths)
        payoff = cp.maximum(paths.mean(axis=1) - k, 0.0)
        return float(math.exp(-r * t) * payoff.mean())

    cp.random.seed(0)
    european(1 << 25)
    asian(1 << 18, 64)
    cp.cuda.Device().synchronize()
    win = Window(None, cp.cuda.Device().synchronize)
    t0 = time.perf_counter()
    with win():
        european(1 << 25)
        asian(1 << 18, 64)
    return time.perf_counter() - t0


@program("mamba_train", "Hugging Face transformers Mamba causal LM (random weights; 4 layers, hidden 768, state 16, expand 2, conv 4, vocab 50280) training step as it runs without the mamba-ssm kernels installed (the library's own PyTorch path), batch 8 x 256 tokens, bf16 autocast, AdamW (foreach); windows: layer 1's forward+backward and the optimizer step")
def mamba_train(args):
    import torch
    from transformers import MambaConfig, MambaForCausalLM

    cfg = MambaConfig(vocab_size=50280, hidden_size=768, state_size=16, num_hidden_layers=4, expand=2,
                      conv_kernel=4, use_cache=False)
    model = MambaForCausalLM(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
    torch.manual_seed(0)
    ids = torch.randint(0, 50280, (8, 256), device="cuda")
    win = Window(args.trace, torch_sync)
    layer = model.backbone.layers[1]
    windowed(layer, win)
    loss_fn = lambda m, b: m(input_ids=b, labels=b).loss
    return train(model, opt, ids, loss_fn, 3, win, [layer], args.trace, torch.bfloat16)


@program("pointnet_train", "a PointNet++ (single-scale grouping) point-cloud classifier in plain PyTorch as its popular reimplementations write it (farthest-point sampling as a loop, ball query by distance matrix and sort, neighbours gathered by advanced indexing, shared MLPs as 1x1 Conv2d + BatchNorm + ReLU, max pooling; set abstractions of 512 x 32, 128 x 64 and one global, head 1024-512-256-40), batch 24 clouds of 1024 points, fp32, Adam (foreach); windows: the second set abstraction's grouping and MLP forward+backward, and the optimizer step")
def pointnet_train(args):
    import torch
    from torch import nn

    def square_distance(src, dst):
        d = -2 * torch.matmul(src, dst.transpose(1, 2))
        return d + (src ** 2).sum(-1)[:, :, None] + (dst ** 2).sum(-1)[:, None, :]

    def index_points(points, idx):
        b = torch.arange(points.shape[0], device=points.device).view(-1, *([1] * (idx.dim() - 1)))
        return points[b.expand_as(idx), idx, :]

    def farthest_point_sample(xyz, npoint):
        bsz, n, _ = xyz.shape
        centroids = torch.zeros(bsz, npoint, dtype=torch.long, device=xyz.device)
        distance = torch.full((bsz, n), 1e10, device=xyz.device)
        farthest = torch.randint(0, n, (bsz,), device=xyz.device)
        rows = torch.arange(bsz, device=xyz.device)
        for i in range(npoint):
            centroids[:, i] = farthest
            centroid = xyz[rows, farthest, :].view(bsz, 1, 3)
            dist = ((xyz - centroid) ** 2).sum(-1)
            distance = torch.minimum(distance, dist)
            farthest = distance.max(-1)[1]
        return centroids

    def query_ball_point(radius, nsample, xyz, new_xyz):
        bsz, n, _ = xyz.shape
        s = new_xyz.shape[1]
        group_idx = torch.arange(n, device=xyz.device).view(1, 1, n).repeat(bsz, s, 1)
        group_idx[square_distance(new_xyz, xyz) > radius ** 2] = n
        group_idx = group_idx.sort(dim=-1)[0][:, :, :nsample]
        first = group_idx[:, :, :1].repeat(1, 1, nsample)
        mask = group_idx == n
        group_idx[mask] = first[mask]
        return group_idx

    class Local(nn.Module):
        """Gather each centroid's neighbours, centre them, and run the shared MLP and the max."""

        def __init__(self, cin, mlp):
            super().__init__()
            layers = []
            for c in mlp:
                layers += [nn.Conv2d(cin, c, 1), nn.BatchNorm2d(c), nn.ReLU()]
                cin = c
            self.mlp = nn.Sequential(*layers)

        def forward(self, xyz, points, new_xyz, idx):
            grouped_xyz = index_points(xyz, idx) - new_xyz[:, :, None, :]
            feats = grouped_xyz if points is None else torch.cat([grouped_xyz, index_points(points, idx)], dim=-1)
            feats = self.mlp(feats.permute(0, 3, 2, 1))
            return feats.max(2)[0].transpose(1, 2)

    class SetAbstraction(nn.Module):
        def __init__(self, npoint, radius, nsample, cin, mlp):
            super().__init__()
            self.npoint, self.radius, self.nsample = npoint, radius, nsample
            self.local = Local(cin + 3, mlp)

        def forward(self, xyz, points):
            if self.npoint is None:
                new_xyz = torch.zeros(xyz.shape[0], 1, 3, device=xyz.device)
                idx = torch.arange(xyz.shape[1], device=xyz.device).view(1, 1, -1).repeat(xyz.shape[0], 1, 1)
                return new_xyz, self.local(xyz, points, new_xyz, idx)
            with torch.no_grad():
                new_xyz = index_points(xyz, farthest_point_sample(xyz, self.npoint))
                idx = query_ball_point(self.radius, self.nsample, xyz, new_xyz)
            return new_xyz, self.local(xyz, points, new_xyz, idx)

    class PointNet2(nn.Module):
        def __init__(self, classes=40):
            super().__init__()
            self.sa1 = SetAbstraction(512, 0.2, 32, 0, [64, 64, 128])
            self.sa2 = SetAbstraction(128, 0.4, 64, 128, [128, 128, 256])
            self.sa3 = SetAbstraction(None, None, None, 256, [256, 512, 1024])
            self.head = nn.Sequential(nn.Linear(1024, 512), nn.BatchNorm1d(512), nn.ReLU(), nn.Dropout(0.4),
                                      nn.Linear(512, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.4),
                                      nn.Linear(256, classes))

        def forward(self, xyz):
            l1_xyz, l1 = self.sa1(xyz, None)
            l2_xyz, l2 = self.sa2(l1_xyz, l1)
            _, l3 = self.sa3(l2_xyz, l2)
            return torch.log_softmax(self.head(l3.view(xyz.shape[0], 1024)), -1)

    torch.manual_seed(0)
    model = PointNet2().cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
    xyz = torch.rand(24, 1024, 3, device="cuda") * 2 - 1
    y = torch.randint(0, 40, (24,), device="cuda")
    win = Window(args.trace, torch_sync)
    windowed(model.sa2.local, win)
    loss_fn = lambda m, b: torch.nn.functional.nll_loss(m(b[0]), b[1])
    return train(model, opt, (xyz, y), loss_fn, 3, win, [model.sa2.local], args.trace)


@program("cupy_bootstrap", "CuPy bootstrap statistics as an analyst writes them: 2^22 lognormal fp32 observations (cupy.random), their mean and standard deviation, 4096 resamples of 4096 drawn with cupy.random.randint and gathered by fancy indexing, each resample's mean and standard deviation along its axis, the studentised statistic and its 2.5/97.5 percentiles (cupy.percentile), a 256-bin histogram (cupy.histogram) and its empirical CDF (cupy.cumsum); window: one analysis after a warm-up")
def cupy_bootstrap(args):
    import math

    import cupy as cp

    def analysis(data, resamples, m):
        mean, sd = data.mean(), data.std()
        idx = cp.random.randint(0, data.size, (resamples, m))
        s = data[idx]
        t = (s.mean(axis=1) - mean) / (s.std(axis=1) / math.sqrt(m))
        lo, hi = cp.percentile(t, [2.5, 97.5])
        hist, _ = cp.histogram(data, bins=256)
        ecdf = cp.cumsum(hist) / data.size
        return float(mean), float(sd), float(lo), float(hi), float(ecdf[127])

    cp.random.seed(0)
    data = cp.random.lognormal(0.0, 1.0, 1 << 22, dtype=cp.float32)
    analysis(data, 4096, 4096)
    cp.cuda.Device().synchronize()
    win = Window(None, cp.cuda.Device().synchronize)
    t0 = time.perf_counter()
    with win():
        analysis(data, 4096, 4096)
    return time.perf_counter() - t0


@program("gpytorch_regression", "GPyTorch exact Gaussian-process regression as its tutorial trains it (ConstantMean, ScaleKernel(RBFKernel) with 3 ARD length scales, GaussianLikelihood, ExactMarginalLogLikelihood, Adam lr 0.1) on 16384 noisy 3-d points, fp32, the library's default CG and Lanczos solves; window: one training iteration (loss, backward, step) after three")
def gpytorch_regression(args):
    import math

    import gpytorch
    import torch

    torch.manual_seed(0)
    n = 16384
    x = torch.rand(n, 3, device="cuda")
    y = torch.sin(2 * math.pi * x[:, 0]) * torch.cos(2 * math.pi * x[:, 1]) + x[:, 2] + 0.1 * torch.randn(n, device="cuda")

    class Gp(gpytorch.models.ExactGP):
        def __init__(self, x, y, likelihood):
            super().__init__(x, y, likelihood)
            self.mean = gpytorch.means.ConstantMean()
            self.covar = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel(ard_num_dims=3))

        def forward(self, x):
            return gpytorch.distributions.MultivariateNormal(self.mean(x), self.covar(x))

    likelihood = gpytorch.likelihoods.GaussianLikelihood().cuda()
    model = Gp(x, y, likelihood).cuda()
    model.train()
    likelihood.train()
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    mll = gpytorch.mlls.ExactMarginalLogLikelihood(likelihood, model)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = -mll(model(x), y)
        loss.backward()
        opt.step()

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    win = Window(args.trace, torch_sync)
    t0 = time.perf_counter()
    with torch_trace(args.trace), win():
        step()
    torch.cuda.synchronize()
    return time.perf_counter() - t0


# ---- Round 12 of the grading (2026-12-03, third session): kinds not graded
# before (a channel-shuffle CNN, masked-autoencoder pre-training, a NeRF's MLP
# and volume rendering, a PPO update with GAE, a JAX n-body integrator, CuPy
# k-nearest neighbours). Written before any capture of them.


def forward_window(module, win):
    """Profile one module's forward only (its input needs no gradient)."""
    module.register_forward_pre_hook(lambda m, a: win.start() if getattr(m, "_measure", False) else None)
    module.register_forward_hook(lambda m, a, o: win.stop() if getattr(m, "_measure", False) else None)


@program("shufflenet_train", "torchvision ShuffleNetV2 x1.0 (random weights) training step as its ImageNet recipe runs it: batch 128 at 224x224, NCHW, bf16 autocast, cudnn.benchmark, SGD momentum 0.9 nesterov with weight decay 4e-5 (foreach); windows: stage 3's second block (channel split, 1x1 conv, depthwise 3x3, 1x1 conv, concat, channel shuffle) forward+backward, and the optimizer step")
def shufflenet_train(args):
    import torch
    import torchvision

    torch.backends.cudnn.benchmark = True
    torch.manual_seed(0)
    model = torchvision.models.shufflenet_v2_x1_0(weights=None).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9, nesterov=True, weight_decay=4e-5)
    x = torch.randn(128, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (128,), device="cuda")
    win = Window(args.trace, torch_sync)
    block = model.stage3[1]
    windowed(block, win)
    loss_fn = lambda m, b: torch.nn.functional.cross_entropy(m(b[0]), b[1])
    return train(model, opt, (x, y), loss_fn, 3, win, [block], args.trace, torch.bfloat16)


@program("vitmae_pretrain", "Hugging Face transformers ViTMAE pre-training step (random weights; encoder 6 layers of 768 with 12 heads, decoder 4 layers of 512 with 16 heads, 224x224 images in 16x16 patches, mask ratio 0.75, normalised-pixel loss), batch 64, bf16 autocast, AdamW betas (0.9, 0.95) (foreach); windows: the embeddings' forward (patch projection, position embeddings, random masking by argsort and gather), encoder layer 1 forward+backward, and the optimizer step")
def vitmae_pretrain(args):
    import torch
    from transformers import ViTMAEConfig, ViTMAEForPreTraining

    cfg = ViTMAEConfig(hidden_size=768, num_hidden_layers=6, num_attention_heads=12, intermediate_size=3072,
                       image_size=224, patch_size=16, decoder_hidden_size=512, decoder_num_hidden_layers=4,
                       decoder_num_attention_heads=16, decoder_intermediate_size=2048, mask_ratio=0.75,
                       norm_pix_loss=True)
    torch.manual_seed(0)
    model = ViTMAEForPreTraining(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1.5e-4, betas=(0.9, 0.95), weight_decay=0.05)
    x = torch.randn(64, 3, 224, 224, device="cuda")
    win = Window(args.trace, torch_sync)
    emb, layer = model.vit.embeddings, model.vit.encoder.layer[1]
    forward_window(emb, win)
    windowed(layer, win)
    loss_fn = lambda m, b: m(pixel_values=b).loss
    return train(model, opt, x, loss_fn, 3, win, [emb, layer], args.trace, torch.bfloat16)


@program("nerf_train", "a NeRF training step in plain PyTorch as its reference reimplementations write it: 4096 rays x 64 stratified samples, positional encodings of 10 and 4 frequencies (sin/cos, concatenated), an 8-layer 256-wide ReLU MLP with a skip concat at layer 4, density and view-dependent colour heads, volume rendering by alpha compositing with a cumulative product, MSE loss; fp32 (PyTorch's default: no TF32 for matmuls), Adam lr 5e-4 (foreach); windows: the point encoding's forward, layer 4 (the skip layer) forward+backward, the renderer forward+backward, and the optimizer step")
def nerf_train(args):
    import torch
    from torch import nn

    class PosEnc(nn.Module):
        def __init__(self, freqs):
            super().__init__()
            self.register_buffer("f", (2.0 ** torch.arange(freqs)) * torch.pi)

        def forward(self, x):
            xf = x[..., None] * self.f
            return torch.cat([x, torch.sin(xf).flatten(-2), torch.cos(xf).flatten(-2)], -1)

    class Render(nn.Module):
        def forward(self, sigma, rgb, t):
            delta = torch.cat([t[..., 1:] - t[..., :-1], torch.full_like(t[..., :1], 1e10)], -1)
            alpha = 1 - torch.exp(-sigma * delta)
            trans = torch.cumprod(torch.cat([torch.ones_like(alpha[..., :1]), 1 - alpha + 1e-10], -1), -1)[..., :-1]
            w = alpha * trans
            return (w[..., None] * rgb).sum(-2), w.sum(-1)

    class NeRF(nn.Module):
        def __init__(self, w=256):
            super().__init__()
            self.pe_x, self.pe_d = PosEnc(10), PosEnc(4)
            cx, cd = 63, 27
            self.layers = nn.ModuleList([nn.Linear(cx, w)] + [nn.Linear(w + (cx if i == 4 else 0), w) for i in range(1, 8)])
            self.sigma, self.feat = nn.Linear(w, 1), nn.Linear(w, w)
            self.rgb = nn.Sequential(nn.Linear(w + cd, w // 2), nn.ReLU(), nn.Linear(w // 2, 3), nn.Sigmoid())
            self.render = Render()

        def forward(self, rays_o, rays_d, t):
            pts = rays_o[:, None, :] + rays_d[:, None, :] * t[..., None]
            dirs = (rays_d / rays_d.norm(dim=-1, keepdim=True))[:, None, :].expand_as(pts)
            ex = self.pe_x(pts)
            h = ex
            for i, lin in enumerate(self.layers):
                if i == 4:
                    h = torch.cat([h, ex], -1)
                h = torch.relu(lin(h))
            sigma = torch.relu(self.sigma(h)).squeeze(-1)
            rgb = self.rgb(torch.cat([self.feat(h), self.pe_d(dirs)], -1))
            return self.render(sigma, rgb, t)

    torch.manual_seed(0)
    rays, samples = 4096, 64
    model = NeRF().cuda()
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    rays_o = torch.randn(rays, 3, device="cuda") * 0.1
    rays_d = torch.randn(rays, 3, device="cuda")
    bins = torch.linspace(2.0, 6.0, samples + 1, device="cuda")
    t = bins[:-1] + (bins[1:] - bins[:-1]) * torch.rand(rays, samples, device="cuda")
    target = torch.rand(rays, 3, device="cuda")
    win = Window(args.trace, torch_sync)
    forward_window(model.pe_x, win)
    windowed(model.layers[4], win)
    windowed(model.render, win)

    def loss_fn(m, b):
        colour, _ = m(*b[:3])
        return torch.nn.functional.mse_loss(colour, b[3])

    return train(model, opt, (rays_o, rays_d, t, target), loss_fn, 3, win,
                 [model.pe_x, model.layers[4], model.render], args.trace)


@program("ppo_update", "a PPO update in plain PyTorch as the CleanRL-style scripts write it: 512 environments x 128 steps of 64-d observations and 8-d continuous actions, advantages by GAE as a Python loop over the 128 steps, then minibatches of 4096 through separate 64-256-256 tanh actor and critic MLPs with a Gaussian policy, the clipped surrogate, value and entropy losses, clip_grad_norm_(0.5) and Adam (foreach), fp32; windows: the last GAE iteration of the loop, the critic's forward in one minibatch, and that minibatch's gradient clipping and optimizer step")
def ppo_update(args):
    import torch
    from torch import nn

    torch.manual_seed(0)
    envs, steps, obs_dim, act_dim, mb = 512, 128, 64, 8, 4096

    def mlp(out):
        return nn.Sequential(nn.Linear(obs_dim, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh(), nn.Linear(256, out))

    class Agent(nn.Module):
        def __init__(self):
            super().__init__()
            self.actor, self.critic = mlp(act_dim), mlp(1)
            self.log_std = nn.Parameter(torch.zeros(act_dim) - 0.5)

    agent = Agent().cuda()
    opt = torch.optim.Adam(agent.parameters(), lr=3e-4, eps=1e-5)
    obs = torch.randn(steps, envs, obs_dim, device="cuda")
    actions = torch.randn(steps, envs, act_dim, device="cuda")
    rewards = torch.randn(steps, envs, device="cuda")
    dones = (torch.rand(steps, envs, device="cuda") < 0.01).float()
    logprobs = torch.randn(steps, envs, device="cuda") - 8.0
    with torch.no_grad():
        values = agent.critic(obs).squeeze(-1)
        next_value = agent.critic(torch.randn(envs, obs_dim, device="cuda")).squeeze(-1)
    win = Window(args.trace, torch_sync)

    def gae(measure):
        gamma, lam = 0.99, 0.95
        adv = torch.zeros_like(rewards)
        last = torch.zeros(envs, device="cuda")
        for t in reversed(range(steps)):
            if measure and t == 0:
                win.start()
            nonterminal = 1.0 - dones[t]
            nextv = next_value if t == steps - 1 else values[t + 1]
            delta = rewards[t] + gamma * nextv * nonterminal - values[t]
            last = delta + gamma * lam * nonterminal * last
            adv[t] = last
            if measure and t == 0:
                win.stop()
        return adv, adv + values

    def update(measure):
        adv, ret = gae(measure)
        b_obs, b_act = obs.reshape(-1, obs_dim), actions.reshape(-1, act_dim)
        b_logp, b_adv, b_ret = logprobs.reshape(-1), adv.reshape(-1), ret.reshape(-1)
        order = torch.randperm(b_obs.shape[0], device="cuda")
        for i, start in enumerate(range(0, b_obs.shape[0], mb)):
            idx = order[start:start + mb]
            timed = measure and i == 1
            agent.critic._measure = timed
            mu = agent.actor(b_obs[idx])
            dist = torch.distributions.Normal(mu, agent.log_std.exp())
            logp = dist.log_prob(b_act[idx]).sum(-1)
            ratio = (logp - b_logp[idx]).exp()
            a = b_adv[idx]
            a = (a - a.mean()) / (a.std() + 1e-8)
            pg = torch.max(-a * ratio, -a * ratio.clamp(0.8, 1.2)).mean()
            vloss = 0.5 * (agent.critic(b_obs[idx]).squeeze(-1) - b_ret[idx]).pow(2).mean()
            loss = pg - 0.01 * dist.entropy().sum(-1).mean() + 0.5 * vloss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if timed:
                win.start()
            nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
            opt.step()
            if timed:
                win.stop()
            if i == 3:
                break

    forward_window(agent.critic, win)
    for _ in range(2):
        update(False)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch_trace(args.trace):
        update(True)
    torch.cuda.synchronize()
    return time.perf_counter() - t0


@program("jax_nbody", "a JAX gravitational n-body integrator as a physicist writes it: 8192 bodies, fp32, all-pairs accelerations by broadcasting (pos[None] - pos[:, None], softened inverse cube), velocity-Verlet steps in a jitted lax.fori_loop, and the total energy (kinetic plus all-pairs potential) jitted apart; window: one call of 4 steps and one energy after two warm-up calls")
def jax_nbody(args):
    import jax
    import jax.numpy as jnp

    n, dt, eps2 = 8192, 1e-3, 1e-2
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
    pos = jax.random.normal(k1, (n, 3), jnp.float32)
    vel = jax.random.normal(k2, (n, 3), jnp.float32) * 0.1
    mass = jax.random.uniform(k3, (n,), jnp.float32, 0.5, 1.5)

    def accel(p):
        d = p[None, :, :] - p[:, None, :]
        inv = jax.lax.rsqrt((d * d).sum(-1) + eps2)
        return (d * (mass[None, :] * inv ** 3)[..., None]).sum(1)

    @jax.jit
    def steps(p, v):
        def body(_, s):
            p, v = s
            v = v + 0.5 * dt * accel(p)
            p = p + dt * v
            v = v + 0.5 * dt * accel(p)
            return p, v

        return jax.lax.fori_loop(0, 4, body, (p, v))

    @jax.jit
    def energy(p, v):
        d = p[None, :, :] - p[:, None, :]
        pot = -(mass[None, :] * mass[:, None] * jax.lax.rsqrt((d * d).sum(-1) + eps2)).sum() / 2
        return 0.5 * (mass * (v * v).sum(-1)).sum() + pot

    for _ in range(2):
        pos, vel = steps(pos, vel)
        jax.block_until_ready(energy(pos, vel))
    win = Window(None, lambda: None)
    t0 = time.perf_counter()
    with win():
        pos, vel = steps(pos, vel)
        jax.block_until_ready(energy(pos, vel))
    return time.perf_counter() - t0


@program("cupy_knn", "CuPy k-nearest-neighbour classification as an analyst writes it: 262144 labelled 64-d fp32 points (10 classes) and 1024 queries, squared distances by |q|^2 - 2 q.x^T + |x|^2 (a cuBLAS GEMM and broadcasts), cupy.argpartition for the 16 nearest, labels gathered by fancy indexing and a vote by one-hot sums and argmax; window: one batch of queries after a warm-up")
def cupy_knn(args):
    import cupy as cp

    cp.random.seed(0)
    x = cp.random.randn(262144, 64, dtype=cp.float32)
    labels = cp.random.randint(0, 10, 262144)
    q = cp.random.randn(1024, 64, dtype=cp.float32)

    def classify(q):
        d = (q ** 2).sum(1)[:, None] - 2 * q @ x.T + (x ** 2).sum(1)[None, :]
        nearest = cp.argpartition(d, 16, axis=1)[:, :16]
        votes = (labels[nearest][..., None] == cp.arange(10)).sum(1)
        return votes.argmax(1)

    classify(q)
    cp.cuda.Device().synchronize()
    win = Window(None, cp.cuda.Device().synchronize)
    t0 = time.perf_counter()
    with win():
        classify(q)
    return time.perf_counter() - t0


def nth_module(model, names, n=0):
    """The n-th submodule whose class is named one of `names` (a library's
    attribute paths change between versions; its class names rarely do)."""
    found = [m for m in model.modules() if type(m).__name__ in names]
    if len(found) <= n:
        seen = sorted({type(m).__name__ for m in model.modules()})
        raise SystemExit(f"no module #{n} of class {names} in {type(model).__name__}; it has: {', '.join(seen)}")
    return found[n]


@program("segformer_infer", "Hugging Face transformers SegFormer (random weights, the default MiT-b0 configuration: hidden sizes 32-64-160-256, efficient self-attention with reduction ratios 8-4-2-1, Mix-FFN with depthwise 3x3 convolutions) for semantic segmentation with 150 labels, fp16, batch 16 at 512x512, eval under no_grad; windows: the second transformer layer of the first stage (128x128 tokens) and the all-MLP decode head")
def segformer_infer(args):
    import torch
    from transformers import SegformerConfig, SegformerForSemanticSegmentation

    torch.manual_seed(0)
    model = SegformerForSemanticSegmentation(SegformerConfig(num_labels=150)).cuda().half().eval()
    x = torch.randn(16, 3, 512, 512, device="cuda", dtype=torch.half)
    win = Window(args.trace, torch_sync)
    layer = nth_module(model, ("SegformerLayer",), 1)
    head = nth_module(model, ("SegformerDecodeHead",))
    return infer(model, x, win, [layer, head], args.trace)


@program("levit_train", "timm LeViT-128S (random weights; convolutional stem, attention blocks with attention biases and BatchNorm'd linear layers, Hardswish MLPs) training step as timm's train.py runs it: batch 256 at 224x224, bf16 autocast, AdamW lr 5e-4 weight decay 0.025 (foreach), label-smoothing cross-entropy 0.1; windows: the fourth attention module forward+backward, the MLP after it forward+backward, and the optimizer step")
def levit_train(args):
    import timm
    import torch

    torch.manual_seed(0)
    model = timm.create_model("levit_128s", pretrained=False, num_classes=1000).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.025)
    x = torch.randn(256, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (256,), device="cuda")
    win = Window(args.trace, torch_sync)
    attn = nth_module(model, ("Attention",), 3)
    mlp = nth_module(model, ("LevitMlp",), 3)
    windowed(attn, win)
    windowed(mlp, win)
    smooth = torch.nn.CrossEntropyLoss(label_smoothing=0.1)
    loss_fn = lambda m, b: smooth(m(b[0]), b[1])
    return train(model, opt, (x, y), loss_fn, 3, win, [attn, mlp], args.trace, torch.bfloat16)


@program("encoder_mlm_fp16_train", "a BERT-style masked-language-model step in plain PyTorch as tutorials write it: nn.Embedding(30522, 512) plus learned positions, a 6-layer nn.TransformerEncoder (d_model 512, 8 heads, feed-forward 2048, GELU, pre-norm, dropout 0.1, batch_first), an untied 512->30522 output Linear, cross-entropy on 15% masked tokens (ignore_index -100), batch 32 x 256 tokens, fp16 autocast with GradScaler, scaler.unscale_ then clip_grad_norm_(1.0), AdamW lr 1e-4 (foreach); windows: encoder layer 3 forward+backward, and the unscale, clipping and optimizer step")
def encoder_mlm_fp16_train(args):
    import torch
    from torch import nn

    torch.manual_seed(0)
    vocab, d, seq, batch = 30522, 512, 256, 32

    class MLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
            layer = nn.TransformerEncoderLayer(d, 8, 2048, 0.1, activation="gelu", batch_first=True, norm_first=True)
            self.encoder = nn.TransformerEncoder(layer, 6, enable_nested_tensor=False)
            self.norm = nn.LayerNorm(d)
            self.out = nn.Linear(d, vocab)

        def forward(self, ids):
            h = self.tok(ids) + self.pos(torch.arange(ids.shape[1], device=ids.device))[None]
            return self.out(self.norm(self.encoder(h)))

    model = MLM().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cuda")
    ids = torch.randint(0, vocab, (batch, seq), device="cuda")
    labels = torch.where(torch.rand(batch, seq, device="cuda") < 0.15, ids, torch.full_like(ids, -100))
    win = Window(args.trace, torch_sync)
    block = model.encoder.layers[2]
    windowed(block, win)

    def step(measure):
        block._measure = measure
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            logits = model(ids)
            loss = nn.functional.cross_entropy(logits.view(-1, vocab), labels.view(-1), ignore_index=-100)
        scaler.scale(loss).backward()
        if measure:
            win.start()
        scaler.unscale_(opt)
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        if measure:
            win.stop()

    model.train()
    for _ in range(3):
        step(False)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch_trace(args.trace):
        step(True)
    torch.cuda.synchronize()
    return time.perf_counter() - t0


@program("ssdlite_infer", "torchvision SSDlite320 with a MobileNetV3-Large backbone (random weights), detection inference as its reference scripts run it: batch 32 images of 320x320 (the model's own transform resizes and normalises), fp32, eval under no_grad, the model's default post-processing (score threshold 0.001, per-class top 300 and batched NMS at IoU 0.55, 300 detections an image); windows: the classification and regression heads' forward, and the post-processing of the detections")
def ssdlite_infer(args):
    import torch
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None).cuda().eval()
    images = [torch.rand(3, 320, 320, device="cuda") for _ in range(32)]
    win = Window(args.trace, torch_sync)
    post = model.postprocess_detections

    def windowed_post(*a, **k):
        if not getattr(model.head, "_measure", False):
            return post(*a, **k)
        win.start()
        try:
            return post(*a, **k)
        finally:
            win.stop()

    model.postprocess_detections = windowed_post
    return infer(model, images, win, [model.head], args.trace)


@program("jax_spectral_ns", "a JAX pseudo-spectral solver of 2-D incompressible Navier-Stokes in vorticity form as a CFD course writes it: a 1024x1024 periodic grid, fp32 (complex64 spectra), streamfunction from a Poisson solve in Fourier space, velocities and vorticity gradients by jnp.fft.irfft2 of ik-multiplied spectra, the nonlinear term in physical space with 2/3-rule dealiasing, semi-implicit (Crank-Nicolson viscous) time steps in a jitted lax.fori_loop of 4 steps; window: one call of the 4 steps after two warm-up calls")
def jax_spectral_ns(args):
    import jax
    import jax.numpy as jnp

    n, nu, dt = 1024, 1e-4, 1e-3
    k = jnp.fft.fftfreq(n, 1.0 / n).astype(jnp.float32)
    kr = jnp.fft.rfftfreq(n, 1.0 / n).astype(jnp.float32)
    kx, ky = jnp.meshgrid(kr, k, indexing="xy")
    k2 = kx**2 + ky**2
    k2_safe = jnp.where(k2 == 0, 1.0, k2)
    dealias = (jnp.abs(kx) < n / 3) & (jnp.abs(ky) < n / 3)
    x = jnp.linspace(0, 2 * jnp.pi, n, endpoint=False, dtype=jnp.float32)
    xx, yy = jnp.meshgrid(x, x, indexing="xy")
    w0 = jnp.sin(4 * xx) * jnp.cos(4 * yy) + 0.1 * jax.random.normal(jax.random.PRNGKey(0), (n, n), jnp.float32)

    def rhs_hat(w_hat):
        psi_hat = w_hat / k2_safe
        u = jnp.fft.irfft2(1j * ky * psi_hat, s=(n, n))
        v = jnp.fft.irfft2(-1j * kx * psi_hat, s=(n, n))
        wx = jnp.fft.irfft2(1j * kx * w_hat, s=(n, n))
        wy = jnp.fft.irfft2(1j * ky * w_hat, s=(n, n))
        return -jnp.fft.rfft2(u * wx + v * wy) * dealias

    @jax.jit
    def steps(w_hat):
        def body(_, w_hat):
            nl = rhs_hat(w_hat)
            return ((1 - 0.5 * dt * nu * k2) * w_hat + dt * nl) / (1 + 0.5 * dt * nu * k2)

        return jax.lax.fori_loop(0, 4, body, w_hat)

    w_hat = jnp.fft.rfft2(w0)
    for _ in range(2):
        w_hat = steps(w_hat)
    jax.block_until_ready(w_hat)
    win = Window(None, lambda: None)
    t0 = time.perf_counter()
    with win():
        w_hat = jax.block_until_ready(steps(w_hat))
    return time.perf_counter() - t0


@program("cupy_groupby", "a CuPy group-by aggregation as a data analyst writes it: 20M rows of int64 keys drawn from 1M distinct values and float32 values, cupy.unique(keys, return_inverse=True), per-group sums and counts by cupy.bincount (weights), the means, and the 100 groups with the largest mean by cupy.argsort; window: one call after a warm-up call")
def cupy_groupby(args):
    import cupy as cp

    rng = cp.random.default_rng(0)
    keys = rng.integers(0, 1_000_000, 20_000_000, dtype=cp.int64)
    values = rng.random(20_000_000, dtype=cp.float32)

    def aggregate(keys, values):
        uniq, inv = cp.unique(keys, return_inverse=True)
        sums = cp.bincount(inv, weights=values)
        counts = cp.bincount(inv)
        means = sums / counts
        top = cp.argsort(means)[-100:]
        return uniq[top], means[top]

    aggregate(keys, values)
    cp.cuda.Device().synchronize()
    win = Window(None, cp.cuda.Device().synchronize)
    t0 = time.perf_counter()
    with win():
        aggregate(keys, values)
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
