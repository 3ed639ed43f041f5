"""Data-parallel training over the GPUs of one host (DDP, NCCL), for the
multi-GPU work of issue 12: a GPT-like model large enough that the gradient
all-reduce shows on the timeline (defaults: 8 layers, d_model 1024, 16 heads,
vocabulary 32768: about 134 M parameters, so about 540 MB of fp32 gradients
reduced per step, in DDP's 25 MB buckets).

    torchrun --standalone --nproc_per_node 2 examples/pytorch/ddp_train.py
    torchrun --standalone --nproc_per_node 2 examples/pytorch/ddp_train.py --steps 5 --profile-range
    torchrun ... ddp_train.py --kineto rank.json     # one file per rank: rank.json -> rank0.json, rank1.json

NVTX on each rank's main thread: "warmup {i}" / "step {i}" around each step,
with "forward", "backward" (where DDP's all-reduce runs) and "optimizer"
inside. NVLink multicast (NVLS) is never used: NCCL_NVLS_ENABLE=0,
TORCH_SYMM_MEM_DISABLE_MULTICAST=1 and NVSHMEM_DISABLE_NVLS=1 are set here
before torch is imported, whatever the caller's environment says.
"""
import os

# Before torch (and NCCL) load: no NVLink SHARP / multicast objects, ever.
for _key, _value in (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
                     ("NVSHMEM_DISABLE_NVLS", "1")):
    os.environ[_key] = _value

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_gpt import Kineto, add_model_args, check_model_args, make_batches, make_model, train_step, write_kineto  # noqa: E402,E501


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_model_args(ap, layers=8, d_model=1024, heads=16, batch=8)
    ap.add_argument("--steps", type=int, default=5, help="measured steps (default 5)")
    ap.add_argument("--warmup", type=int, default=2, help="warm-up steps before them (default 2)")
    ap.add_argument("--bucket-mb", type=float, default=25.0, help="DDP gradient bucket size in MB (default 25)")
    ap.add_argument("--profile-range", action="store_true",
                    help="cudaProfilerStart/Stop around the measured steps (ncu --profile-from-start off)")
    ap.add_argument("--kineto", metavar="FILE",
                    help="per-launch records of the measured steps (PyTorch's profiler), one file per rank: "
                         "FILE with the rank before its extension")
    args = ap.parse_args(argv)
    prog = "ddp_train.py"
    if not check_model_args(args, prog):
        return 2
    if args.steps < 1 or args.warmup < 0:
        print(f"{prog}: --steps must be at least 1 and --warmup at least 0", file=sys.stderr)
        return 2
    if "LOCAL_RANK" not in os.environ:
        print(f"{prog}: run it under torchrun, for example "
              f"`torchrun --standalone --nproc_per_node 2 {sys.argv[0]}`", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print(f"{prog}: no CUDA device visible to PyTorch", file=sys.stderr)
        return 1
    local_rank = int(os.environ["LOCAL_RANK"])
    if local_rank >= torch.cuda.device_count():
        print(f"{prog}: local rank {local_rank} but only {torch.cuda.device_count()} GPU(s) visible", file=sys.stderr)
        return 1
    torch.cuda.set_device(local_rank)
    dev = torch.device("cuda", local_rank)
    dist.init_process_group("nccl", device_id=dev)
    rank, world = dist.get_rank(), dist.get_world_size()

    model = make_model(args, dev)  # same seed on every rank; DDP also broadcasts rank 0's weights
    ddp = DDP(model, device_ids=[local_rank], bucket_cap_mb=args.bucket_mb)
    opt = torch.optim.AdamW(ddp.parameters(), lr=3e-4, weight_decay=0.1, foreach=True)
    batches = make_batches(args, dev, seed_offset=rank)  # each rank its own data
    n_params = sum(p.numel() for p in model.parameters())
    if rank == 0:
        v = torch.cuda.nccl.version()
        print(f"# DDP over {world} rank(s), NCCL {'.'.join(map(str, v)) if isinstance(v, tuple) else v}; GPT "
              f"{args.layers} layers, d_model {args.d_model}, {n_params / 1e6:.1f} M parameters, "
              f"{n_params * 4 / 1e6:.0f} MB of fp32 gradients all-reduced per step; batch {args.batch} x {args.seq} "
              f"per rank; NCCL_NVLS_ENABLE={os.environ['NCCL_NVLS_ENABLE']}", file=sys.stderr)

    losses = []
    for i in range(args.warmup):
        losses.append(train_step(ddp, opt, batches[i % len(batches)], f"warmup {i}"))
    torch.cuda.synchronize()
    dist.barrier()

    kineto = Kineto() if args.kineto else None
    if kineto:
        kineto.__enter__()
    if args.profile_range:
        torch.cuda.profiler.start()
    t0 = time.perf_counter()
    for i in range(args.steps):
        losses.append(train_step(ddp, opt, batches[(args.warmup + i) % len(batches)], f"step {i}"))
    torch.cuda.synchronize()
    wall = time.perf_counter() - t0
    if args.profile_range:
        torch.cuda.profiler.stop()
    if kineto:
        kineto.__exit__(None, None, None)

    walls = [torch.zeros(1, device=dev) for _ in range(world)]
    dist.all_gather(walls, torch.tensor([wall], device=dev))
    if rank == 0:
        per_rank = ", ".join(f"{w.item() * 1e3 / args.steps:.2f}" for w in walls)
        print(f"measured steps: {args.steps}; ms per step by rank: {per_rank}", file=sys.stderr)
    print(f"rank {rank}: loss first {losses[0].item():.4f}, last {losses[-1].item():.4f}")
    if kineto:
        root, ext = os.path.splitext(args.kineto)
        path = f"{root}{rank}{ext or '.json'}"
        records = kineto.records()
        write_kineto(path, records, {"program": "ddp_train.py", "argv": sys.argv[1:], "rank": rank,
                                     "world_size": world, "steps": args.steps,
                                     "wall_s_measured_steps_under_profiler": wall})
        nccl = sum(1 for r in records if r["cat"] == "kernel" and "nccl" in r["name"].lower())
        print(f"rank {rank}: wrote {len(records)} launch records ({nccl} NCCL kernels) to {path}", file=sys.stderr)
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
