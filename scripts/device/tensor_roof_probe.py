"""How a BF16 tensor GEMM's rate depends on how it is run (issue 25, item 6).

The H200's BF16 roof from `roofline bench` was 857 TFLOP/s one day and 728
two days later at about 1500 MHz under the software power cap. This times
one cuBLAS GEMM (torch.matmul, bf16, M = N = K = 8192, random inputs) launch
by launch with CUDA events in three patterns:
  sustained: 400 launches back to back (the power cap's steady state);
  bursts:    bursts of 8 launches after an idle gap of 20, 100 or 500 ms;
  shapes:    the GEMM shapes of a training step (4096-wide, 50257-wide).
Prints one TSV row per launch: pattern, gap_ms, index, ms, TFLOP/s.
nvidia-smi sampling (clocks, power, throttle reasons) runs beside it in the
calling script, so rates can be matched to clocks by time stamp.
"""
import sys
import time

import torch


def timed(a, b, n):
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(n + 1)]
    ev[0].record()
    for i in range(n):
        torch.matmul(a, b)
        ev[i + 1].record()
    torch.cuda.synchronize()
    return [ev[i].elapsed_time(ev[i + 1]) for i in range(n)]


def main():
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = True
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    flops = 2.0 * n**3
    timed(a, b, 20)  # warm-up (heuristics, clocks)
    out = sys.stdout
    print("pattern\tgap_ms\tindex\tunix_s\tms\ttflops", file=out)
    time.sleep(2.0)
    t0 = time.time()
    for i, ms in enumerate(timed(a, b, 400)):
        print(f"sustained\t0\t{i}\t{t0:.3f}\t{ms:.4f}\t{flops / ms / 1e9:.1f}", file=out)
    for gap in (500, 100, 20):
        time.sleep(2.0)
        for burst in range(12):
            time.sleep(gap / 1000.0)
            t = time.time()
            for i, ms in enumerate(timed(a, b, 8)):
                print(f"burst\t{gap}\t{burst * 8 + i}\t{t:.3f}\t{ms:.4f}\t{flops / ms / 1e9:.1f}", file=out)
    # A training step's GEMMs (GPT-2-like: tokens 8192, width 768/3072, vocab 50257 vs 50304).
    for m, k, nn in ((8192, 768, 3072), (8192, 3072, 768), (8192, 768, 50257), (8192, 768, 50304), (4096, 4096, 4096)):
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(k, nn, device="cuda", dtype=torch.bfloat16)
        timed(x, w, 5)
        f = 2.0 * m * k * nn
        for i, ms in enumerate(timed(x, w, 30)):
            print(f"shape_{m}x{k}x{nn}\t0\t{i}\t{time.time():.3f}\t{ms:.4f}\t{f / ms / 1e9:.1f}", file=out)
        del x, w


if __name__ == "__main__":
    main()
