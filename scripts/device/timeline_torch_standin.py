"""A small GPT-like training loop for scripts/device/timeline-check.sh, used
until examples/pytorch/train_gpt.py exists (same options).

    python3 timeline_torch_standin.py --steps 30 --warmup 5 [--kineto FILE]

bf16 autocast, AdamW, `step {i}` NVTX ranges on the main thread (backward
runs on autograd's threads). With --kineto, the steps after the warm-up run
under PyTorch's profiler (Kineto) and every GPU kernel it saw is written to
FILE as JSON: [{"name", "start_us", "dur_us"}, ...]. Prints one line
`steps_s <seconds>` for the timed steps.
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
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)
        self.heads = heads

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (y.view(b, t, self.heads, d // self.heads).transpose(1, 2) for y in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, vocab=8192, d=512, layers=6, heads=8, ctx=256):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--kineto", default=None)
    ap.add_argument("--batch", type=int, default=16)
    args = ap.parse_args()

    torch.manual_seed(0)
    dev = "cuda"
    model = GPT().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    data = torch.randint(0, 8192, (args.batch, 257), device=dev)

    def step(i):
        torch.cuda.nvtx.range_push(f"step {i}")
        x, y = data[:, :-1], data[:, 1:]
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        torch.cuda.nvtx.range_pop()

    for i in range(args.warmup):
        step(i)
    torch.cuda.synchronize()
    prof = None
    if args.kineto:
        from torch.profiler import ProfilerActivity, profile

        prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
        prof.__enter__()
    t0 = time.perf_counter()
    for i in range(args.warmup, args.warmup + args.steps):
        step(i)
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    if prof is not None:
        prof.__exit__(None, None, None)
        fd, path = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        prof.export_chrome_trace(path)
        with open(path) as f:
            trace = json.load(f)
        os.unlink(path)
        kernels = [
            {"name": e["name"], "start_us": e["ts"], "dur_us": e["dur"]}
            for e in trace.get("traceEvents", [])
            if e.get("ph") == "X" and e.get("cat") == "kernel"
        ]
        with open(args.kineto, "w") as f:
            json.dump(kernels, f)
    print(f"steps_s {t1 - t0:.6f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
