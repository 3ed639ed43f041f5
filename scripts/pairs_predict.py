#!/usr/bin/env python3
"""Savings the tool predicts against the savings measured (issue 25).

For each before/after pair of examples/external/pairs.py, reads the "before"
capture (tests/fixtures/external/h200-2026-12-01/pairs/<pair>.csv, made by
scripts/device/pairs.sh on the H200), runs `roofline import` with the
measured H200 machine, and takes the saving the tool predicts for the move
the pair makes: the program-level opportunity of that kind, or for an
unaligned GEMM the per-kernel pad-shape moves. It compares that with the
measured saving (median before - median after, CUDA events) from
timings.tsv, and prints one row per pair with the ratio.

    python3 scripts/pairs_predict.py --bin target/release/roofline
    python3 scripts/pairs_predict.py --bin target/release/roofline --round6
    python3 scripts/pairs_predict.py --bin target/release/roofline --round7
    python3 scripts/pairs_predict.py --bin target/release/roofline --round8
    python3 scripts/pairs_predict.py --bin target/release/roofline --round9
    python3 scripts/pairs_predict.py --bin target/release/roofline --round10
    python3 scripts/pairs_predict.py --bin target/release/roofline --round11
    python3 scripts/pairs_predict.py --bin target/release/roofline --round12
"""
import argparse
import json
import subprocess
import sys

D = "tests/fixtures/external/h200-2026-12-01/pairs"
MACHINE = "tests/fixtures/machines/h200-measured.machine.json"
# pair -> how the tool names the move it makes
MOVE = {
    "fused_adamw": ("fusion", "optimizer_chain"),
    "vocab_pad": ("move", "pad_shape"),
    "compiled_chain": ("fusion", "elementwise_chain"),
    "gelu_epilogue": ("fusion", "epilogue"),
    "autocast_casts": ("fusion", "casts"),
}


def predicted(doc, how, code):
    if how == "fusion":
        return sum(f["saved_s"] for f in doc.get("program", {}).get("fusions", []) if f["kind"] == code)
    total = 0.0
    for k in doc["kernels"]:
        for m in (k.get("diagnosis") or {}).get("next_moves", []):
            if m["code"] == code:
                total += m.get("saving_s") or 0.0
    return total


# The round-6 pairs (issue 25): both sides captured under ncu, so the
# measured saving is also the kernels' GPU time, before - after.
D6 = "tests/fixtures/external/h200-2026-12-02/pairs-round6"
MOVE6 = {
    "tf32_mlp": ("move", "allow_tf32"),
    "fused_qkv": ("move", "fused_qkv"),
    "batched_embedding": ("move", "batch_embeddings"),
}
# The round-7 pairs, the same way (results/h200-2026-12-02-pairs-round7/README.md; the captures are fixtures).
D7 = "tests/fixtures/external/h200-2026-12-02/pairs-round7"
MOVE7 = {
    "cupy_cg_update": ("fusion", "array_expressions"),
    "conv_bias_gelu": ("fusion", "elementwise_chain"),
    "cat_prealloc": ("move", "cat_in_place"),
}

# The round-8 pairs (results/h200-2026-12-02-pairs-round8/README.md; the captures are fixtures). A pair whose
# change is one torch.compile takes every move that compiling makes: the
# norm's and the elementwise chain's.
D8 = "tests/fixtures/external/h200-2026-12-02/pairs-round8"
MOVE8 = {
    "bn_relu_compile": [("move", "fuse_norm"), ("fusion", "elementwise_chain")],
    "patchify_gemm": ("move", "conv_as_gemm"),
    "kmeans_augmented_gemm": ("fusion", "array_expressions"),
}


# The round-9 pairs (results/h200-2026-12-03-pairs-round9; its captures are
# fixtures): the move added
# after round 8, a generic kernel rewritten for its operation.
D9 = "tests/fixtures/external/h200-2026-12-03/pairs"
MOVE9 = {
    "tiled_gaussian": ("move", "specific_kernel"),
    "library_matmul": ("move", "library_product"),
    "shared_histogram": ("move", "aggregate_atomics"),
}

# The round-10 pairs (results/h200-2026-12-03-pairs-round10; the captures are
# fixtures): the moves written from rounds 9 and 10's gradings, a serial
# library routine for a parallel one, a gather and scatter-add for a sparse
# product, and a chain of CuPy array expressions for one kernel.
D10 = "tests/fixtures/external/h200-2026-12-03/pairs-round10"
MOVE10 = {
    "cupy_var_parallel": ("move", "serial_library_call"),
    "philox_normals": ("move", "serial_library_call"),
    "sage_spmm": ("fusion", "sparse_aggregation"),
    "cupy_heat_rawkernel": ("fusion", "array_expressions"),
}

# The round-11 pairs (results/h200-2026-12-03-pairs-round11; the captures are
# fixtures): the moves written after round 11's grading, on PointNet++'s sizes.
D11 = "tests/fixtures/external/h200-2026-12-03/pairs-round11"
MOVE11 = {
    "permute_view": ("move", "fold_layout_copy"),
    "pad_channels": ("move", "pad_shape"),
}

# The round-12 pairs (results/h200-2026-12-04-pairs-round12; the captures are
# fixtures): the moves written after round 12's grading, on its sizes.
D12 = "tests/fixtures/external/h200-2026-12-04/pairs-round12"
MOVE12 = {
    "topk_select": [("move", "top_k"), ("move", "library_call_internals")],
    "randint_generator": ("move", "library_call_internals"),
    "depthwise_channels_last": ("move", "depthwise_channels_last"),
    "batched_irfft2": ("move", "batch_transforms"),
}


def gpu_time_us(doc):
    return sum(k["kernel"].get("duration_s") or 0.0 for k in doc["kernels"]) * 1e6


def both_sides(binary, d, moves):
    events = {}
    for line in open(f"{d}/timings.tsv"):
        f = line.rstrip("\n").split("\t")
        if f[0] in moves:
            events[f[0]] = float(f[7])
    print("pair\tmove\tpredicted_us\tgpu_time_saved_us\tratio\tevents_saved_us")
    for pair, move in moves.items():
        move = move if isinstance(move, list) else [move]
        docs = []
        for side in ("", ".after"):
            out = subprocess.run([binary, "import", f"{d}/{pair}{side}.csv.gz", "--machine", MACHINE, "--format", "json"],
                                 capture_output=True, text=True, check=True).stdout
            docs.append(json.loads(out))
        p = sum(predicted(docs[0], how, code) for how, code in move) * 1e6
        m = gpu_time_us(docs[0]) - gpu_time_us(docs[1])
        code = "+".join(code for _, code in move)
        print(f"{pair}\t{code}\t{p:.1f}\t{m:.1f}\t{p / m:.2f}\t{events[pair]:.1f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/roofline")
    ap.add_argument("--round6", action="store_true",
                    help=f"the round-6 pairs of {D6}, against the kernels' GPU time saved")
    ap.add_argument("--round7", action="store_true",
                    help=f"the round-7 pairs of {D7}, against the kernels' GPU time saved")
    ap.add_argument("--round8", action="store_true",
                    help=f"the round-8 pairs of {D8}, against the kernels' GPU time saved")
    ap.add_argument("--round9", action="store_true",
                    help=f"the round-9 pair of {D9}, against the kernels' GPU time saved")
    ap.add_argument("--round10", action="store_true",
                    help=f"the round-10 pairs of {D10}, against the kernels' GPU time saved")
    ap.add_argument("--round11", action="store_true",
                    help=f"the round-11 pairs of {D11}, against the kernels' GPU time saved")
    ap.add_argument("--round12", action="store_true",
                    help=f"the round-12 pairs of {D12}, against the kernels' GPU time saved")
    args = ap.parse_args()
    if args.round12:
        return both_sides(args.bin, D12, MOVE12)
    if args.round11:
        return both_sides(args.bin, D11, MOVE11)
    if args.round10:
        return both_sides(args.bin, D10, MOVE10)
    if args.round9:
        return both_sides(args.bin, D9, MOVE9)
    if args.round8:
        return both_sides(args.bin, D8, MOVE8)
    if args.round6:
        return both_sides(args.bin, D6, MOVE6)
    if args.round7:
        return both_sides(args.bin, D7, MOVE7)
    measured = {}
    for line in open(f"{D}/timings.tsv"):
        f = line.rstrip("\n").split("\t")
        if f[0] in MOVE:
            measured[f[0]] = (float(f[1]), float(f[2]), float(f[3]), float(f[4]), float(f[5]), float(f[6]))
    print("pair\tmove\tpredicted_us\tmeasured_us\tmeasured_range_us\tratio")
    for pair, (how, code) in MOVE.items():
        out = subprocess.run([args.bin, "import", f"{D}/{pair}.csv", "--machine", MACHINE, "--format", "json"],
                             capture_output=True, text=True, check=True).stdout
        p = predicted(json.loads(out), how, code) * 1e6
        b, bq1, bq3, a, aq1, aq3 = measured[pair]
        m = b - a
        lo, hi = bq1 - aq3, bq3 - aq1
        print(f"{pair}\t{code}\t{p:.0f}\t{m:.0f}\t{lo:.0f}..{hi:.0f}\t{p / m:.2f}")


if __name__ == "__main__":
    sys.exit(main())
