"""The PyTorch recipe: profile one training step, look at it, change one
thing, compare, and gate the change.

    python examples/pytorch/recipe.py --out recipe-out                  # fused AdamW, NVTX selection
    python examples/pytorch/recipe.py --out recipe-out --change compile
    python examples/pytorch/recipe.py --select profiler-range ...        # the whole step, every thread
    python examples/pytorch/recipe.py --select timeline ...              # two passes: the whole program in minutes
    python examples/pytorch/recipe.py --machine h200.json ...           # judge against measured roofs

1. `roofline profile --nvtx-include "step N/"` runs the training script
   (examples/pytorch/train_gpt.py, which marks each step with
   `torch.cuda.nvtx.range(f"step {i}")` after its warm-up steps) under
   Nsight Compute and keeps only the kernels launched inside that range,
   by the range's time window and from every thread: the backward kernels
   PyTorch launches from its autograd thread are in (two passes: the
   timeline finds the window, ncu profiles its kernels).
   `--select profiler-range` takes the step by cudaProfilerStart/Stop
   instead (`--profile-range`, ncu `--profile-from-start off`).
2. The program view: every kernel of the step with its share of the step's
   GPU time, its place under the roofs and its verdict (the binary's table),
   and the HTML report.
3. The same step after the change (`--fused-adamw` or `--compile`), and
   `roofline diff` between the two.
4. `roofline check` with examples/pytorch/roofline-check.toml, the step
   before as the baseline: the gate test_recipe.py runs in CI.

Writes into --out: before.json, after.json (analyses), before.html,
after.html, diff.html, diff.md, check.txt. Exits 1 when the gate fails.
Needs an NVIDIA GPU, Nsight Compute and PyTorch; docs/python.md explains
each step.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

import roofline

HERE = Path(__file__).resolve().parent
TRAIN = HERE / "train_gpt.py"
GATE = HERE / "roofline-check.toml"
CHANGES = {"fused-adamw": ["--fused-adamw"], "compile": ["--compile"]}


def profile_step(out: Path, label: str, train_args: list, step: int, select: str = "nvtx", machine: str = None,
                 train: Path = TRAIN, ncu: str = None) -> roofline.Analysis:
    """Step STEP of the training script under Nsight Compute, as an analysis in OUT/LABEL.json."""
    if select == "timeline":
        # Two passes: the program's own timeline (every thread), then ncu on
        # the kernels that hold 95% of the GPU time; per-step figures from
        # the NVTX step ranges' time windows.
        command = [sys.executable, str(train), "--steps", str(step + 1)] + train_args
        flags = {}
    elif select == "nvtx":
        command = [sys.executable, str(train), "--steps", str(step + 1)] + train_args
        flags = {"nvtx_include": f"step {step}/"}
    else:  # the one measured step between cudaProfilerStart and Stop, every thread
        command = [sys.executable, str(train), "--steps", "1", "--profile-range"] + train_args
        flags = {"ncu_arg": ["--profile-from-start", "off"]}
    print(f"recipe: profiling ({select}) {' '.join(command)}", file=sys.stderr)
    return roofline.profile(command, machine=machine, ncu=ncu, output=out / f"{label}.json", echo=True, **flags)


def compare(before: roofline.Analysis, after: roofline.Analysis, out: Path) -> roofline.Diff:
    """`roofline diff` of the two steps: diff.html (chart with arrows) and diff.md."""
    d = roofline.diff(before, after, output=out / "diff.html")
    (out / "diff.md").write_text(d.markdown(), encoding="utf-8")
    return d


def gate(before: roofline.Analysis, after: roofline.Analysis) -> roofline.CheckResult:
    """The recipe's gate: roofline-check.toml on the step after, the step before as the baseline."""
    return roofline.check(after, config=GATE, baseline=before)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("recipe-out"), help="folder for the outputs")
    p.add_argument("--change", choices=sorted(CHANGES), default="fused-adamw", help="what the 'after' run changes")
    p.add_argument("--select", choices=["nvtx", "profiler-range", "timeline"], default="nvtx",
                   help="how the step is picked: its NVTX range (main thread: forward and optimizer), or "
                        "cudaProfilerStart/Stop around it (every thread, backward included)")
    p.add_argument("--step", type=int, default=0,
                   help="with --select nvtx: the measured step 'step N' to profile (after the warm-up steps)")
    p.add_argument("--machine", help="a machine JSON from `roofline bench -o` (measured roofs)")
    p.add_argument("--train", type=Path, default=TRAIN, help="the training script (default: train_gpt.py here)")
    p.add_argument("--ncu", help="Nsight Compute to use (default: PATH, $CUDA_HOME/bin)")
    p.add_argument("--train-arg", action="append", default=[], metavar="ARG",
                   help="one more argument for train_gpt.py (repeatable), given to both runs")
    args = p.parse_args(argv)
    # Stopped by a time limit: unwind, so roofline.run stops the profiler and the training script too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if not args.train.is_file():
        print(f"recipe: {args.train} is missing; it is the training script this recipe profiles", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)

    before = profile_step(args.out, "before", args.train_arg, args.step, args.select, args.machine, args.train,
                          args.ncu)
    after = profile_step(args.out, "after", args.train_arg + CHANGES[args.change], args.step, args.select,
                         args.machine, args.train, args.ncu)

    print(f"\n== the program view: one step ({args.select}) after the change ({args.change}) ==")
    print(after.text)
    for label, doc in (("before", before), ("after", after)):
        (args.out / f"{label}.html").write_text(doc.html(title=f"one training step, {label} {args.change}"),
                                               encoding="utf-8")

    print(f"== before -> after ({args.change}) ==")
    d = compare(before, after, args.out)
    print(d.text)

    print("== the gate (examples/pytorch/roofline-check.toml) ==")
    result = gate(before, after)
    print(result.text)
    (args.out / "check.txt").write_text(result.text, encoding="utf-8")
    print(f"recipe: {'passed' if result.passed else 'FAILED'}; outputs in {args.out}/", file=sys.stderr)
    return 0 if result.passed else 1


if __name__ == "__main__":
    sys.exit(main())
