"""Peer figures in the same session as `roofline bench`: PyTorch (cuBLAS)
GEMMs and a device-to-device copy, timed with CUDA events after warm-up."""
import torch, time, subprocess

def timed(fn, warm=3, reps=10):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    out = []
    for _ in range(reps):
        s.record(); fn(); e.record(); torch.cuda.synchronize()
        out.append(s.elapsed_time(e) / 1e3)
    out.sort()
    return out[len(out) // 2], out[0], out[-1]

def clocks():
    return subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active",
                           "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()

torch.backends.cuda.matmul.allow_tf32 = False
n = 8192
for name, dt in [("bf16", torch.bfloat16), ("fp16", torch.float16), ("fp32 (no TF32)", torch.float32), ("fp64", torch.float64)]:
    a = torch.randn(n, n, device="cuda", dtype=dt); b = torch.randn(n, n, device="cuda", dtype=dt)
    med, lo, hi = timed(lambda: a @ b)
    f = 2 * n ** 3
    print(f"torch matmul {name} {n}^3: median {f/med/1e12:.1f} TFLOP/s (min {f/hi/1e12:.1f}, max {f/lo/1e12:.1f}); clocks after: {clocks()}")
    del a, b
torch.backends.cuda.matmul.allow_tf32 = True
a = torch.randn(n, n, device="cuda"); b = torch.randn(n, n, device="cuda")
med, lo, hi = timed(lambda: a @ b)
print(f"torch matmul tf32 {n}^3: median {2*n**3/med/1e12:.1f} TFLOP/s (max {2*n**3/lo/1e12:.1f})")
del a, b
x = torch.empty(1 << 30, device="cuda", dtype=torch.float32); y = torch.empty_like(x); x.uniform_()
med, lo, hi = timed(lambda: y.copy_(x), reps=20)
print(f"torch copy 4 GiB: median {2*x.numel()*4/med/1e9:.0f} GB/s (max {2*x.numel()*4/lo/1e9:.0f})")
z = torch.empty_like(x)
med, lo, hi = timed(lambda: torch.add(x, y, out=z), reps=20)
print(f"torch add 4 GiB each: median {3*x.numel()*4/med/1e9:.0f} GB/s (max {3*x.numel()*4/lo/1e9:.0f})")
med, lo, hi = timed(lambda: z.fill_(1.0), reps=20)
print(f"torch fill 4 GiB: median {x.numel()*4/med/1e9:.0f} GB/s (max {x.numel()*4/lo/1e9:.0f})")
