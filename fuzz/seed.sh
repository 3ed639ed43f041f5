#!/usr/bin/env bash
# Seeds the fuzz corpora with the real inputs of the project: the H200
# captures of tests/fixtures/ncu and data/h200 (whole, and cut down to the
# columns the reader uses so that they fit -max_len), the analysis and
# machine documents roofline writes from them, the unit spellings the tool
# documents, and the example kernel files.
#
#   fuzz/seed.sh            (needs the roofline binary: cargo build -p roofline)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${ROOFLINE:-$root/target/debug/roofline}
[ -x "$bin" ] || { echo "build roofline first: cargo build -p roofline (or set ROOFLINE)" >&2; exit 2; }
c=fuzz/corpus
mkdir -p $c/csv_reader $c/import $c/documents $c/units $c/kernel_spec $c/chart

captures=(tests/fixtures/ncu/*.csv data/h200/*.csv data/h200/tour/*.csv)
for f in "${captures[@]}"; do
  cp "$f" "$c/csv_reader/full-$(basename "$(dirname "$f")")-$(basename "$f")"
done
# Cut-down captures: the identifying columns, every column the reader
# reads (crates/ncu/src/metrics.rs, tensor and stall columns), 3 rows.
python3 - "$c/csv_reader" crates/ncu/src/metrics.rs "${captures[@]}" <<'EOF'
import csv, io, os, re, sys
out, metrics = sys.argv[1], open(sys.argv[2]).read()
wanted = set(re.findall(r'\(Slot::\w+, "([^"]+)"', metrics))
ident = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size", "Grid Size", "Device", "CC"}
for path in sys.argv[3:]:
    text = open(path, encoding="utf-8", errors="replace").read()
    start = text.find('"ID"')
    rows = list(csv.reader(io.StringIO(text[start:])))
    header = rows[0]
    keep = [i for i, h in enumerate(header) if h in wanted or h in ident
            or (h.startswith("sm__ops_path_tensor_src_") and (h.endswith(".sum") or h.endswith(".sum.peak_sustained")))
            or (h.startswith("smsp__average_warps_issue_stalled_") and h.endswith("_per_issue_active.ratio"))]
    for n in (1, 3):
        buf = io.StringIO()
        w = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n")
        for r in rows[: 2 + n]:
            w.writerow([r[i] if i < len(r) else "" for i in keep])
        name = os.path.join(out, f"cut{n}-{os.path.basename(os.path.dirname(path))}-{os.path.basename(path)}")
        open(name, "w").write(text[:start][-300:] + buf.getvalue())
EOF

n=0
for f in "${captures[@]}"; do
  n=$((n + 1))
  "$bin" import "$f" --format json -q > "$c/documents/analysis-$n.json" 2>/dev/null || true
  "$bin" import "$f" --per-launch --format json -q > "$c/documents/analysis-per-launch-$n.json" 2>/dev/null || true
done
cp data/h200/tour/machine.json "$c/documents/machine-h200-measured.json"
for g in t4 h200 a100-80gb b200; do
  "$bin" peaks --gpu $g --format json > "$c/documents/machine-$g.json"
done
"$bin" model --gpu t4 examples/seeds/seed000_t4.toml --format json > "$c/documents/analysis-model.json"
cp examples/ci/roofline-check.toml "$c/documents/check.toml"

i=0
for q in "4.8 TB/s" "66.9 TFLOP/s" "12" "64 MiB" "1.57 ms" "830 us" "2e9" "3,209,127,424" "1979 TOP/s" \
         "1000 GFLOPS" "25.4 FLOP/B" "0.002 s" "4 GiB" "ns" "usecond" "Ghz" "cycle/nsecond" "byte/s" \
         "Gbyte/second" "inst/cycle" "Kinst" "%" "byte/sector" "register/thread" "psecond" "n/a" "70.54" \
         "58784,5" "1.234,5" "1e400" "1,000.5" "100 (100)" \
         "cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int>, cute::C<1>>>" \
         "void k<S<double>::copy()::{lambda(int)#1}>(int)" $'evil\u202ename'; do
  i=$((i + 1)); printf '%s' "$q" > "$c/units/q$i"
done
# A name nested 150 deep (CuTe layouts nest; the shortening must stay linear).
deep=$(printf 'cute::tuple<%.0s' $(seq 150))int$(printf '>%.0s' $(seq 150))
printf 'void cute::kernel<%s>(float*)' "$deep" > "$c/units/deep-name"

i=0
for k in "c = a + b: flops=1 bytes=12" "dgemm: flops=2e9 bytes=24e6 kind=fp64 time=1.2ms" \
         "saxpy: flops=2 bytes=12 elements=33554432 time=1.5667ms" "s: flops=13 dram=8 l2=16 l1=32 kind=tensor_bf16"; do
  i=$((i + 1)); printf '%s' "$k" > "$c/kernel_spec/spec$i"
done
cp examples/seeds/*.toml "$c/kernel_spec/"
rm -rf "$c/import" && mkdir -p "$c/import" && cp "$c"/csv_reader/*.csv "$c/import/"

# The chart: the analyses above, and kernels as raw bytes (the layout of
# fuzz_targets/chart.rs) with the values that once hung the chart (issue
# 16, item 3: 0, a subnormal, ~1e307) alongside ordinary ones.
python3 - "$c/chart" "$c"/documents/analysis-*.json <<'EOF'
import json, os, struct, sys
out = sys.argv[1]
# The analyses compact (whole when they fit -max_len), and cut to their
# first 1 and 4 kernels (the program summary is derived again on reading).
for path in sys.argv[2:]:
    doc = json.load(open(path))
    base = os.path.basename(path)[:-5]
    whole = json.dumps(doc, separators=(",", ":"))
    if len(whole) <= 65536:
        open(os.path.join(out, f"{base}.json"), "w").write(whole)
    for n in (1, 4):
        if len(doc.get("kernels", [])) > n:
            cut = dict(doc, kernels=doc["kernels"][:n])
            cut.pop("program", None)
            open(os.path.join(out, f"{base}-cut{n}.json"), "w").write(json.dumps(cut, separators=(",", ":")))
def kernel(name, flops=None, kind=1, dram=None, l2=None, l1=None, duration=None, launches=0):
    present = (kind << 4) | (flops is not None) | (dram is not None) << 1 | (l2 is not None) << 2 | (l1 is not None) << 3
    present |= (duration is None) << 7
    b = bytes([len(name)]) + name.encode() + bytes([present])
    for v in (flops, dram, l2, l1, duration):
        if v is not None:
            b += struct.pack("<d", v)
    return b + bytes([launches])
ordinary = [kernel("saxpy", 2 * 2**25, 1, 12 * 2**25, 12 * 2**25, 12 * 2**25, 1.5e-4, 9),
            kernel("dgemm", 2e12, 0, 2.4e7, 9e8, 4e9, 3e-2), kernel("estimate", 1e9, 6, 1e6)]
cases = {
    "ordinary": ordinary,
    "zero-time": ordinary + [kernel("zero", 1e9, 1, 1e6, duration=0.0)],
    "subnormal": [kernel("tiny", 5e-324, 1, 5e-324, duration=5e-324)] + ordinary,
    "huge": [kernel("huge", 9e307, 1, 0.1, duration=1e-3)] + ordinary,
    "model-1e307": [kernel("k", 1e307, 1, 0.1, duration=1e-3)],
    "no-bytes": [kernel("nobytes", 1e9, 5, duration=1e-3)],
    "names": [kernel("x" * 200, 1e9, 1, 1e9, duration=1e-3), kernel("a\x1b[2Jb\nc", 1e9, 1, 1e9, duration=1e-3),
              kernel("<!-- </script>", 1, 1, 1, duration=1e-9)],
}
for name, ks in cases.items():
    for flags, machine in ((0, b""), (1, bytes([1]) + struct.pack("<dd", 1e12, 1e11))):
        open(os.path.join(out, f"raw-{name}-{flags}"), "wb").write(bytes([flags]) + machine + b"".join(ks))
EOF
echo "seeded: $(ls $c/csv_reader | wc -l) captures, $(ls $c/documents | wc -l) documents, $(ls $c/chart | wc -l) charts, $(ls $c/units | wc -l) units, $(ls $c/kernel_spec | wc -l) kernel specs" >&2
