#!/usr/bin/env bash
# Issue 29 on the H200 data of 2026-12-01: the FLOPs and bytes the catalogue
# estimates from each torch.profiler trace against the ncu --set full capture
# of the same program (a separate run), per kernel and per operator family.
# Runs on the CPU. Writes <program>.json (roofline.shapes_vs_counters/v1) in a
# temporary folder (or $SHAPES_OUT) and prints the per-family table and the
# import times; the README quotes that table.
#   results/h200-2026-12-01-shapes/make.sh [ROOFLINE_BINARY]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=${SHAPES_OUT:-$(mktemp -d)}
mkdir -p "$here"
bin=${1:-$root/target/debug/roofline}
data=$root/tests/fixtures/external/h200-2026-12-01
for p in vit_infer gpt2_train resnet50_train compiled_mlp_train; do
  "$bin" import "$data/traces/$p.trace.json.gz" --with-counters "$data/$p.full.csv" --format json -q > "$here/$p.json"
  start=$(date +%s.%N)
  "$bin" import "$data/traces/$p.trace.json.gz" --format json -q > /dev/null
  echo "import $p: $(echo "$(date +%s.%N) - $start" | bc) s"
done
python3 - "$here" <<'PY'
import json, sys
here = sys.argv[1]
f = lambda x: "-" if x is None else f"{x:.1f}%"
print("| program | family | launches | FLOPs err median | FLOPs err max | DRAM bytes err median | max | DRAM reads err median | max | DRAM traffic err median | max |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for p in ["vit_infer", "gpt2_train", "resnet50_train", "compiled_mlp_train"]:
    d = json.load(open(f"{here}/{p}.json"))
    for c in d["classes"]:
        print(f"| {p} | {c['class']} | {c['kernels']} | {f(c['flops_median_pct'])} | {f(c['flops_max_pct'])} | "
              f"{f(c['bytes_median_pct'])} | {f(c['bytes_max_pct'])} | {f(c['read_median_pct'])} | {f(c['read_max_pct'])} | "
              f"{f(c['traffic_median_pct'])} | {f(c['traffic_max_pct'])} |")
print()
for p in ["vit_infer", "gpt2_train", "resnet50_train", "compiled_mlp_train"]:
    d = json.load(open(f"{here}/{p}.json"))
    print(f"{p}: {d['matched']} of {d['counter_launches']} counter launches matched ({d['estimated']} with an estimate), "
          f"trace {d['trace_launches']} launches; same side of the DRAM ridge for {f(d['position_agreement_pct'])} "
          f"of {d['position_time_s']*1e6:.1f} us judged; same position under the DRAM roofline {f(d['place_agreement_pct'])}, "
          f"same as the counters' whole verdict {f(d['verdict_agreement_pct'])} of {d['verdict_time_s']*1e6:.1f} us")
same = sum(json.load(open(f"{here}/{p}.json"))["position_agreement_pct"] / 100 * json.load(open(f"{here}/{p}.json"))["position_time_s"]
           for p in ["vit_infer", "gpt2_train", "resnet50_train", "compiled_mlp_train"])
judged = sum(json.load(open(f"{here}/{p}.json"))["position_time_s"] for p in ["vit_infer", "gpt2_train", "resnet50_train", "compiled_mlp_train"])
print(f"all four: same side of the DRAM ridge for {100 * same / judged:.1f}% of {judged * 1e6:.1f} us judged")
docs = [json.load(open(f"{here}/{p}.json")) for p in ["vit_infer", "gpt2_train", "resnet50_train", "compiled_mlp_train"]]
for key, time, what in [("place", "place", "same position under the DRAM roofline"),
                        ("verdict", "verdict", "estimated claim admits the counters' whole verdict"),
                        ("verdict_strict", "verdict", "estimated claim names the counters' whole verdict exactly")]:
    t = sum(d[f"{time}_time_s"] for d in docs)
    a = sum(d[f"{key}_agreement_pct"] / 100 * d[f"{time}_time_s"] for d in docs)
    print(f"all four: {what} for {100 * a / t:.1f}% of {t * 1e6:.1f} us judged")
print()
print("claims that differ from the verdict (trace time, estimated claim, verdict, kernel, operator):")
for p, d in zip(["vit_infer", "gpt2_train", "resnet50_train", "compiled_mlp_train"], docs):
    for k in sorted(d["kernels"], key=lambda k: -k["duration_s"]):
        if k.get("est_verdict") and k.get("verdict_position") and k["est_verdict"] != k["verdict_position"]:
            print(f"  {p}: {k['duration_s'] * 1e6:.1f} us, {k['est_verdict']} / {k['verdict_position']}, {k['kernel']}, {k['op']}")
print()
print("convolution launches: useful, issued (estimated) and counted FLOPs")
print("| program | kernel | operator | useful | issued | counted | issued err | within 5% |")
print("|---|---|---|---|---|---|---|---|")
for p, d in zip(["vit_infer", "gpt2_train", "resnet50_train", "compiled_mlp_train"], docs):
    for k in d["kernels"]:
        if k.get("class") == "convolution":
            e = k["flops_error_pct"]
            print(f"| {p} | {k['kernel']} | {k['op']} | {k['est_flops']:.4g} | {k['est_issued_flops']:.4g} | "
                  f"{k['counted_flops']:.4g} | {e:+.1f}% | {'yes' if abs(e) <= 5 else 'no'} |")
PY
