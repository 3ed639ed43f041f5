"""CUDA graph replays and two concurrent streams, for
scripts/device/timeline-check.sh: kernels inside a graph must be listed and
timed one by one, and kernels on two streams must overlap (not be
serialized by the recording).

    python3 timeline_graph_streams.py [replays]

Prints `replays <n>`; the NVTX ranges `graph replays` and `two streams`
mark the two parts.
"""

import sys

import torch


def main():
    replays = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    dev = "cuda"
    a = torch.randn(2048, 2048, device=dev)
    b = torch.randn(2048, 2048, device=dev)

    def body():
        c = a @ b
        d = torch.relu(c) + 1.0
        return d.sum()

    # Warm up on a side stream, as torch.cuda.graphs asks.
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            body()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = body()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("graph replays")
    for _ in range(replays):
        g.replay()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()

    # Two streams with independent matmuls, launched back to back.
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    x = [torch.randn(4096, 4096, device=dev) for _ in range(4)]
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("two streams")
    for _ in range(10):
        with torch.cuda.stream(s1):
            y1 = x[0] @ x[1]
        with torch.cuda.stream(s2):
            y2 = x[2] @ x[3]
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    print(f"replays {replays}")
    print(f"result {float(out):.3f} {float(y1.sum() + y2.sum()):.3f}")


if __name__ == "__main__":
    main()
