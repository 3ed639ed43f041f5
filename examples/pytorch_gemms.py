"""cuBLAS GEMMs of known shape in BF16, FP16, FP32 (no TF32) and FP64.

Each GEMM runs once as a warm-up, then once inside the NVTX range "gemms",
so that `ncu --nvtx --nvtx-include "gemms/"` profiles only the timed ones.
FLOPs of each: 2 x M x N x K (printed, for the accuracy checks).
"""
import sys

import torch

SHAPES = {  # dtype: (M, N, K); distinct shapes so each GEMM is recognisable
    "bf16": (torch.bfloat16, 4096, 4096, 4096),
    "fp16": (torch.float16, 4096, 2048, 3072),
    "fp32": (torch.float32, 2048, 2048, 2048),
    "fp64": (torch.float64, 2048, 1024, 1536),
}


def main():
    if not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return 1
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    operands = {}
    for name, (dtype, m, n, k) in SHAPES.items():
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        operands[name] = (a, b)
        torch.matmul(a, b)  # warm-up: cuBLAS handle, heuristics
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("gemms")
    outs = {}
    for name, (a, b) in operands.items():
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        outs[name] = torch.matmul(a, b)
        end.record()
        end.synchronize()
        dtype, m, n, k = SHAPES[name]
        flops = 2 * m * n * k
        ms = start.elapsed_time(end)
        print(f"{name}: M={m} N={n} K={k} flops={flops} {ms:.3f} ms {flops / ms / 1e9:.1f} TFLOP/s")
    torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    for name, (a, b) in operands.items():
        ref = (a[:4].double() @ b.double())
        err = (outs[name][:4].double() - ref).abs().max().item()
        scale = ref.abs().max().item()
        print(f"{name}: max abs error on 4 rows {err:.3g} (|ref| max {scale:.3g})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
