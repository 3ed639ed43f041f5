"""A small GPT-like transformer trained on random tokens: a whole program with
thousands of kernel launches, for `roofline timeline` / `profile` and the
PyTorch recipe (issues 11 and 15).

Defaults: 6 layers, d_model 768, 8 heads, sequence 512, vocabulary 32768,
batch 24, bf16 autocast, AdamW (foreach; --fused-adamw for the fused one),
3 warm-up steps then 10 measured ones, all seeded.

NVTX, on the main thread: "warmup {i}" and "step {i}" around each whole step,
with "forward", "backward" and "optimizer" nested inside. PyTorch runs the
backward kernels on its autograd thread, so they are not inside the step range
of the main thread: select a step by its time window, not by the range alone.

    python3 examples/pytorch/train_gpt.py                          # prints wall time of the measured steps
    python3 examples/pytorch/train_gpt.py --count-launches         # kernels launched in the measured steps (Kineto)
    python3 examples/pytorch/train_gpt.py --kineto kernels.json    # per-launch name/start/duration (us) from Kineto
    python3 examples/pytorch/train_gpt.py --profile-range          # cudaProfilerStart/Stop around the measured steps
    python3 examples/pytorch/train_gpt.py --fused-adamw | --compile   # before/after
    ncu --profile-from-start off ... python3 examples/pytorch/train_gpt.py --profile-range --steps 1

Results (losses, launch counts) go to stdout; the wall time and progress to stderr.
"""
import argparse
import json
import os
import sys
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, c))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, vocab, seq, d, heads, layers):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.tok.weight  # tied, as in GPT-2
        self.register_buffer("positions", torch.arange(seq), persistent=False)

    def forward(self, idx, targets):
        x = self.tok(idx) + self.pos(self.positions[: idx.shape[1]])
        for blk in self.blocks:
            x = blk(x)
        logits = self.head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.reshape(-1))


def add_model_args(ap, layers=6, d_model=768, heads=8, seq=512, vocab=32768, batch=24):
    ap.add_argument("--layers", type=int, default=layers)
    ap.add_argument("--d-model", type=int, default=d_model)
    ap.add_argument("--heads", type=int, default=heads)
    ap.add_argument("--seq", type=int, default=seq)
    ap.add_argument("--vocab", type=int, default=vocab)
    ap.add_argument("--batch", type=int, default=batch, help="sequences per step (per rank under DDP)")
    ap.add_argument("--seed", type=int, default=0)


def check_model_args(args, prog):
    for name in ("layers", "d_model", "heads", "seq", "vocab", "batch"):
        if getattr(args, name) < 1:
            print(f"{prog}: --{name.replace('_', '-')} must be at least 1", file=sys.stderr)
            return False
    if args.d_model % args.heads or (args.d_model // args.heads) % 8:
        print(f"{prog}: --d-model ({args.d_model}) must be --heads ({args.heads}) times a multiple of 8 "
              "(the head size flash attention accepts)", file=sys.stderr)
        return False
    return True


def make_model(args, device):
    torch.manual_seed(args.seed)
    return GPT(args.vocab, args.seq, args.d_model, args.heads, args.layers).to(device)


def make_batches(args, device, count=4, seed_offset=0):
    """A few fixed batches of random tokens, made once on the GPU and cycled."""
    g = torch.Generator(device=device)
    g.manual_seed(args.seed + 1000 + seed_offset)
    data = torch.randint(0, args.vocab, (count, args.batch, args.seq + 1), device=device, generator=g)
    return [(d[:, :-1], d[:, 1:]) for d in data]


def train_step(model, opt, batch, nvtx_name):
    idx, targets = batch
    with torch.cuda.nvtx.range(nvtx_name):
        with torch.cuda.nvtx.range("forward"):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = model(idx, targets)
        with torch.cuda.nvtx.range("backward"):
            loss.backward()
        with torch.cuda.nvtx.range("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)
    return loss.detach()


class Kineto:
    """The measured steps under PyTorch's profiler: every kernel, memcpy and
    memset the GPU ran, with start and duration in us (CUPTI activity records).
    CPU activities are on too, so that the step annotations and the launch
    correlation are recorded; they slow the host side, not the kernels."""

    CATS = ("kernel", "gpu_memcpy", "gpu_memset")

    def __init__(self):
        from torch.profiler import ProfilerActivity, profile

        self.prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])

    def __enter__(self):
        self.prof.__enter__()
        return self

    def __exit__(self, *exc):
        return self.prof.__exit__(*exc)

    def records(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "trace.json")
            self.prof.export_chrome_trace(path)
            with open(path) as f:
                trace = json.load(f)
        out = []
        for e in trace.get("traceEvents", []):
            if e.get("ph") != "X" or e.get("cat") not in self.CATS:
                continue
            a = e.get("args", {})
            out.append({"cat": e["cat"], "name": e.get("name", ""), "start_us": e.get("ts"), "dur_us": e.get("dur"),
                        "device": a.get("device"), "stream": a.get("stream"), "grid": a.get("grid"),
                        "block": a.get("block"), "correlation": a.get("correlation")})
        out.sort(key=lambda r: (r["start_us"] is None, r["start_us"]))
        return out


def write_kineto(path, records, meta):
    doc = dict(meta)
    doc["unit"] = "us"
    doc["source"] = "torch.profiler (Kineto/CUPTI activity records)"
    doc["launches"] = records
    with open(path, "w") as f:
        json.dump(doc, f)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_model_args(ap)
    ap.add_argument("--steps", type=int, default=10, help="measured steps (default 10)")
    ap.add_argument("--warmup", type=int, default=3, help="warm-up steps before them (default 3)")
    ap.add_argument("--fused-adamw", action="store_true", help="AdamW(fused=True) instead of the foreach one")
    ap.add_argument("--compile", action="store_true", help="torch.compile the model (compiled during warm-up)")
    ap.add_argument("--profile-range", action="store_true",
                    help="cudaProfilerStart/Stop around the measured steps (ncu --profile-from-start off)")
    ap.add_argument("--count-launches", action="store_true",
                    help="count the kernels the measured steps launch (PyTorch's profiler) and print the count")
    ap.add_argument("--kineto", metavar="FILE",
                    help="run the measured steps under PyTorch's profiler and write each launch (name, start, "
                         "duration in us, stream, grid, block) to FILE as JSON")
    args = ap.parse_args(argv)
    prog = "train_gpt.py"
    if not check_model_args(args, prog):
        return 2
    if args.steps < 1 or args.warmup < 0:
        print(f"{prog}: --steps must be at least 1 and --warmup at least 0", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print(f"{prog}: no CUDA device visible to PyTorch", file=sys.stderr)
        return 1

    t_start = time.perf_counter()
    dev = torch.device("cuda")
    model = make_model(args, dev)
    if args.compile:
        model = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1,
                            **({"fused": True} if args.fused_adamw else {"foreach": True}))
    batches = make_batches(args, dev)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"# GPT: {args.layers} layers, d_model {args.d_model}, {args.heads} heads, seq {args.seq}, "
          f"vocab {args.vocab}, batch {args.batch}, {n_params / 1e6:.1f} M parameters; "
          f"AdamW {'fused' if args.fused_adamw else 'foreach'}{', torch.compile' if args.compile else ''}",
          file=sys.stderr)

    losses = []
    for i in range(args.warmup):
        losses.append(train_step(model, opt, batches[i % len(batches)], f"warmup {i}"))
    torch.cuda.synchronize()
    t_ready = time.perf_counter()

    kineto = Kineto() if (args.kineto or args.count_launches) else None
    if kineto:
        kineto.__enter__()
    if args.profile_range:
        torch.cuda.profiler.start()
    t0 = time.perf_counter()
    for i in range(args.steps):
        if kineto:
            with torch.profiler.record_function(f"step {i}"):
                losses.append(train_step(model, opt, batches[(args.warmup + i) % len(batches)], f"step {i}"))
        else:
            losses.append(train_step(model, opt, batches[(args.warmup + i) % len(batches)], f"step {i}"))
    torch.cuda.synchronize()
    wall = time.perf_counter() - t0
    if args.profile_range:
        torch.cuda.profiler.stop()
    if kineto:
        kineto.__exit__(None, None, None)

    print(f"measured steps: {args.steps} in {wall * 1e3:.1f} ms wall ({wall * 1e3 / args.steps:.2f} ms per step); "
          f"start-up and {args.warmup} warm-up step(s): {t_ready - t_start:.1f} s", file=sys.stderr)
    first, last = losses[0].item(), losses[-1].item()
    print(f"loss: first {first:.4f}, last {last:.4f} ({len(losses)} steps)")
    if kineto:
        records = kineto.records()
        kernels = [r for r in records if r["cat"] == "kernel"]
        print(f"kernel launches in the {args.steps} measured steps: {len(kernels)} "
              f"({len(kernels) / args.steps:.0f} per step); memcpy {sum(r['cat'] == 'gpu_memcpy' for r in records)}, "
              f"memset {sum(r['cat'] == 'gpu_memset' for r in records)}; "
              f"{len({r['name'] for r in kernels})} distinct kernel names")
        if args.kineto:
            write_kineto(args.kineto, records, {
                "program": "train_gpt.py", "argv": sys.argv[1:], "steps": args.steps,
                "wall_s_measured_steps_under_profiler": wall})
            print(f"wrote {len(records)} launch records to {args.kineto}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
