"""Whole training loops as people write them, for `roofline profile`'s steady
state (issue 26): each program runs 2 warm-up steps (cuDNN autotuning, XLA and
Inductor compilation, CUDA-graph capture), then --steps measured steps, each
inside an NVTX range "step N" (N from 0), the step's work synchronised before
the range ends. The warm-up has no range, as the issue's programs had none.

    python3 steady.py --list
    python3 steady.py resnet50_train --steps 3

Programs: torchvision ResNet-50 with cudnn.benchmark (bf16 autocast,
channels_last, SGD momentum), Hugging Face transformers GPT-2 (AdamW), a JAX
MLP step (jit; ncu crashes on JAX programs: the failure path), and a
torch.compile mode="reduce-overhead" MLP training step (CUDA graphs).
stdout gets one line per program: its name and the mean wall time of a
measured step.
"""
import argparse
import contextlib
import ctypes
import glob
import os
import sys
import time

PROGRAMS = {}
WARMUP = 2


def program(name, what):
    def register(fn):
        PROGRAMS[name] = (what, fn)
        return fn

    return register


class Nvtx:
    """NVTX push/pop for any framework: the `nvtx` package, PyTorch's, or
    libnvToolsExt from the CUDA wheels (site-packages/nvidia/nvtx/lib)."""

    def __init__(self, use_torch):
        self.push = self.pop = None
        if use_torch:
            import torch

            self.push, self.pop = torch.cuda.nvtx.range_push, torch.cuda.nvtx.range_pop
            return
        try:
            import nvtx

            self.push, self.pop = nvtx.push_range, nvtx.pop_range
            return
        except ImportError:
            pass
        candidates = ["libnvToolsExt.so.1"]
        for sp in sys.path:
            candidates += glob.glob(os.path.join(sp, "nvidia", "nvtx", "lib", "libnvToolsExt.so*"))
        for c in candidates:
            try:
                lib = ctypes.CDLL(c)
            except OSError:
                continue
            lib.nvtxRangePushA.argtypes = [ctypes.c_char_p]
            self.push = lambda s, lib=lib: lib.nvtxRangePushA(s.encode())
            self.pop = lib.nvtxRangePop
            return
        print("steady.py: no NVTX library found (pip install nvtx); steps are not marked", file=sys.stderr)
        self.push = self.pop = lambda *a: None

    @contextlib.contextmanager
    def range(self, name):
        self.push(name)
        try:
            yield
        finally:
            self.pop()


def loop(step, sync, steps, nvtx):
    """WARMUP unmarked steps, then `steps` steps in ranges "step N"; the mean
    wall time of a measured step, seconds."""
    for _ in range(WARMUP):
        step()
    sync()
    t0 = time.perf_counter()
    for i in range(steps):
        with nvtx.range(f"step {i}"):
            step()
            sync()
    return (time.perf_counter() - t0) / max(steps, 1)


def torch_sync():
    import torch

    torch.cuda.synchronize()


@program("resnet50_train", "torchvision ResNet-50 training step, batch 32, bf16 autocast, channels_last, cudnn.benchmark, SGD momentum (foreach)")
def resnet50_train(args):
    import torch
    import torchvision

    torch.backends.cudnn.benchmark = True
    model = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, foreach=True)
    x = torch.randn(32, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (32,), device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    return loop(step, torch_sync, args.steps, Nvtx(True))


@program("gpt2_train", "Hugging Face transformers GPT-2 (4 layers, d 768) training step, batch 8 x 512, bf16 autocast, AdamW (foreach)")
def gpt2_train(args):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(n_layer=4, n_embd=768, n_head=12, n_positions=512)
    model = GPT2LMHeadModel(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    ids = torch.randint(0, cfg.vocab_size, (8, 512), device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()

    return loop(step, torch_sync, args.steps, Nvtx(True))


@program("jax_mlp_train", "JAX/XLA: a 4-layer MLP training step (jit, bf16 matmuls, Adam in jax.numpy), batch 8192, width 2048")
def jax_mlp_train(args):
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    params = []
    for _ in range(4):
        key, k = jax.random.split(key)
        params.append((jax.random.normal(k, (2048, 2048), jnp.float32) * 0.02, jnp.zeros(2048)))
    x = jax.random.normal(key, (8192, 2048), jnp.float32)
    y = jnp.zeros((8192, 2048))

    def loss(p, x, y):
        h = x
        for w, b in p:
            h = jax.nn.gelu(jnp.dot(h.astype(jnp.bfloat16), w.astype(jnp.bfloat16)).astype(jnp.float32) + b)
        return jnp.mean((h - y) ** 2)

    @jax.jit
    def train_step(p, m, v):
        g = jax.grad(loss)(p, x, y)
        m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
        v = jax.tree_util.tree_map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
        p = jax.tree_util.tree_map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), p, m, v)
        return p, m, v

    state = [params, jax.tree_util.tree_map(jnp.zeros_like, params), jax.tree_util.tree_map(jnp.zeros_like, params)]

    def step():
        state[:] = train_step(*state)

    return loop(step, lambda: jax.block_until_ready(state[0]), args.steps, Nvtx(False))


@program("compiled_graphs_train", "torch.compile(mode=\"reduce-overhead\") (Inductor, Triton, CUDA graphs) of a LayerNorm-MLP-GELU stack, training step, bf16, Adam (foreach)")
def compiled_graphs_train(args):
    import torch

    class Block(torch.nn.Module):
        def __init__(self, d):
            super().__init__()
            self.norm = torch.nn.LayerNorm(d)
            self.up = torch.nn.Linear(d, 4 * d)
            self.down = torch.nn.Linear(4 * d, d)

        def forward(self, x):
            return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))

    model = torch.nn.Sequential(*[Block(1024) for _ in range(4)]).cuda().to(torch.bfloat16)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4, foreach=True)
    x = torch.randn(4096, 1024, device="cuda", dtype=torch.bfloat16)
    compiled = torch.compile(model, mode="reduce-overhead")

    def step():
        torch.compiler.cudagraph_mark_step_begin()
        opt.zero_grad(set_to_none=True)
        loss = compiled(x).float().pow(2).mean()
        loss.backward()
        opt.step()

    return loop(step, torch_sync, args.steps, Nvtx(True))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("name", nargs="?")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--steps", type=int, default=3, help="measured steps, each in an NVTX range \"step N\" (default 3)")
    args = ap.parse_args()
    if args.list or not args.name:
        for name, (what, _) in PROGRAMS.items():
            print(f"{name}\t{what}")
        return
    what, fn = PROGRAMS[args.name]
    secs = fn(args)
    print(f"{args.name}\t{secs * 1e3:.2f} ms per measured step ({WARMUP} warm-up, {args.steps} in ranges \"step N\")\t{what}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
