"""Does ncu count a CUDA graph's kernel nodes one by one for
--launch-skip-before-match (issue 26)? Launch order: 5 eager `add`s, then a
graph of 3 kernels (mul, sin, cos) replayed 3 times, then 5 eager `exp`s.
Run under `ncu --launch-skip-before-match 6 --launch-count 1`: if nodes count
one by one, launch 7 is `sin` (the first replay's second node); if a graph
launch counts once, the 7th launch is the third replay, and ncu profiles
its first node `mul`."""
import torch

x = torch.ones(1 << 20, device="cuda")
g = torch.cuda.CUDAGraph()
s = torch.cuda.Stream()
torch.cuda.synchronize()
with torch.cuda.graph(g, stream=s):
    y = x * 1.0001
    z = torch.sin(y)
    w = torch.cos(z)
torch.cuda.synchronize()
for _ in range(5):
    x.add_(1.0)
for _ in range(3):
    g.replay()
for _ in range(5):
    torch.exp(x)
torch.cuda.synchronize()
print("done")
