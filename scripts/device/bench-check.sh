#!/usr/bin/env bash
# One device call (under 3 minutes on an H200) that checks `roofline bench`
# against BabelStream and checks the instruction micro-benchmarks:
#
#   1. builds BabelStream (CUDA model) from .peers/BabelStream and the DRAM
#      sweep scripts/device/dram-sweep.cu, in parallel;
#   2. runs BabelStream (2^28 doubles, best of 100), the DRAM sweep (the
#      shipped kernels of crates/gpu/kernels/memory.cu, every variant and
#      launch shape, three array sizes), `roofline bench -o machine.json`
#      (the real binary, with every NVRTC CUBIN written out), and BabelStream
#      again, so that the peer's figures come from the same call;
#   3. disassembles the instruction kernels the bench compiled (cuobjdump
#      -sass) and counts, per kernel, the instruction its name promises;
#   4. runs the GPU test executables;
#   5. packs everything into $OUT/bench-check.tgz and prints a summary last.
#
# Run from the repository root on the device machine, with these carried:
#   .carry/roofline          the release binary (cargo build --release -p roofline)
#   .carry/tests/            test executables (cargo test --release --no-run; copy
#                            target/release/deps/roofline_gpu-* and cli-* here; cli runs its bench:: tests)
#   .peers/BabelStream       BabelStream's source (git archive); absent: said so, skipped
# Never changes clocks or GPU modes.
set -u
OUT=${OUT:-/tmp/out}
W=${WORK:-/tmp/bench-check}
rm -rf "$W"
mkdir -p "$W/cubins" "$W/sass" "$OUT"
ROOT=$PWD
B=$ROOT/.carry/roofline
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(readlink -f "$NVCC")")")}
CUOBJDUMP=$(command -v cuobjdump || echo "$CUDA_HOME/bin/cuobjdump")
STUBS=""
for d in "$CUDA_HOME/lib64/stubs" "$CUDA_HOME/targets/x86_64-linux/lib/stubs"; do [[ -d $d ]] && { STUBS=$d; break; }; done
T0=$(date +%s)
say() { echo "$*" | tee -a "$W/summary.txt"; }
step() { # name, seconds allowed, then the command; output in $W/name.{out,err}
  local name=$1 limit=$2; shift 2
  local t0 rc
  t0=$(date +%s.%N)
  timeout "$limit" "$@" > "$W/$name.out" 2> "$W/$name.err"
  rc=$?
  say "$name: exit $rc, $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s"
  return $rc
}

{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw --format=csv
  nvidia-smi --query-compute-apps=pid,name --format=csv
  "$NVCC" --version | tail -1
} > "$W/env.txt" 2>&1

# ---- 1. builds, in parallel --------------------------------------------------
BS_SRC=$ROOT/.peers/BabelStream
BS=$W/babelstream/babelstream
build_babelstream() {
  mkdir -p "$W/babelstream"
  if command -v cmake > /dev/null; then
    cmake -S "$BS_SRC" -B "$W/babelstream/build" -DMODEL=cuda -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_COMPILER="$NVCC" -DCUDA_ARCH=sm_90 ${STUBS:+-DCXX_EXTRA_LINK_FLAGS=-L$STUBS} &&
      cmake --build "$W/babelstream/build" -j "$(nproc)" &&
      cp "$(ls "$W"/babelstream/build/{babelstream,cuda-stream} 2>/dev/null | head -1)" "$BS"
  else # the same build without cmake: BabelStream's CUDA model, grid-stride, unroll 4
    "$NVCC" -O3 -std=c++17 -arch=sm_90 --extended-lambda -DCUDA -DDEFAULT -DGRID_STRIDE -DUNROLL_FACTOR=4 \
      -I"$BS_SRC/src" -I"$BS_SRC/src/cuda" "$BS_SRC/src/main.cpp" "$BS_SRC/src/cuda/CUDAStream.cu" \
      ${STUBS:+-L$STUBS} -lnvidia-ml -o "$BS"
  fi
}
export -f build_babelstream
export W BS_SRC BS NVCC STUBS
if [[ -f $BS_SRC/src/main.cpp ]]; then
  step build-babelstream 150 bash -c build_babelstream &
else
  say "BabelStream: no source in .peers/BabelStream (carry it); peer figures are missing from this run"
fi
step build-dram-sweep 120 "$NVCC" -O3 -std=c++17 -arch=sm_90 -o "$W/dram-sweep" scripts/device/dram-sweep.cu &
wait

# ---- 2. measurements: BabelStream, sweep, bench, BabelStream -----------------
babelstream() { # run number
  [[ -x $BS ]] || return 0
  step "babelstream-$1" 60 "$BS" --arraysize $((1 << 28)) --numtimes 100 --csv
}
babelstream 1
[[ -x $W/dram-sweep ]] && step dram-sweep 90 "$W/dram-sweep"
if [[ -x $B ]]; then
  export ROOFLINE_CUBIN_DIR=$W/cubins # every CUBIN the bench compiles, for the SASS check
  step bench 120 "$B" bench -o "$W/machine.json"
  unset ROOFLINE_CUBIN_DIR
else
  say "bench: no binary at .carry/roofline (carry it)"
fi
babelstream 2

# ---- 3. SASS of the instruction kernels --------------------------------------
# Per kernel: instructions in total and of the promised kind.
expect() {
  case $1 in
    int_imad) echo IMAD ;; int_iadd3) echo IADD3 ;; int_lop3) echo LOP3.LUT ;;
    mufu_ex2) echo MUFU.EX2 ;; mufu_lg2) echo MUFU.LG2 ;; mufu_rsqrt) echo MUFU.RSQ ;; mufu_sin) echo MUFU.SIN ;;
    smem_lds32) echo LDS ;; smem_lds128) echo LDS.128 ;; smem_sts32) echo STS ;; smem_sts128) echo STS.128 ;;
    atomic_global) echo REDG.E.ADD ;; atomic_shared) echo ATOMS.ADD ;;
    lsu_ldg_4) echo LDG.E ;; lsu_ldg_8) echo LDG.E.64 ;; lsu_ldg_16) echo LDG.E.128 ;;
    fma_f32) echo FFMA ;; fma_f64) echo DFMA ;; fma_f16x2) echo HFMA2 ;;
    *) echo "" ;;
  esac
}
for c in "$W"/cubins/*.cubin; do
  [[ -f $c ]] || continue
  "$CUOBJDUMP" -sass "$c" > "$W/sass/$(basename "$c" .cubin).sass" 2>> "$W/sass/errors.txt"
done
{
  printf "%-16s %-12s %8s %8s %6s\n" kernel promised count total share
  for f in "$W"/sass/instructions.*.sass "$W"/sass/compute.*.sass; do
    [[ -f $f ]] || continue
    awk '/Function :/ { fn=$3; next }
         /^[ \t]*\/\*[0-9a-f]+\*\// { l=$0; sub(/^[ \t]*\/\*[0-9a-f]+\*\/[ \t]*/, "", l); sub(/;.*/, "", l);
           sub(/^@!?U?P[0-9T] +/, "", l); split(l, w, " "); if (w[1] == "" || w[1] == "NOP") next;
           total[fn]++; op[fn, w[1]]++ }
         END { for (k in op) { split(k, p, SUBSEP); print p[1], p[2], op[k], total[p[1]] } }' "$f"
  done | while read -r fn opc n total; do
    want=$(expect "$fn")
    [[ -n $want && ( $opc == "$want" || $opc == "$want".* ) ]] || continue
    # Modifiers differ by architecture (LDG.E.STRONG.SM, REDG.E.ADD.STRONG.GPU): match the stem.
    [[ ( $want == LDS || $want == IMAD || $want == IADD3 ) && $opc != "$want" ]] && continue
    [[ $want == STS && $opc != STS ]] && continue
    [[ $want == LDG.E && $opc != LDG.E && $opc != LDG.E.STRONG.SM && $opc != LDG.E.STRONG.GPU ]] && continue
    printf "%-16s %-12s %8d %8d %5.0f%%\n" "$fn" "$opc" "$n" "$total" "$(awk "BEGIN{print 100*$n/$total}")"
  done | sort
} > "$W/sass-counts.txt"

# ---- 4. GPU tests -------------------------------------------------------------
# Integration tests find the binary through CARGO_BIN_EXE_roofline, which
# cargo sets at build time and which must be set again where they run.
export CARGO_BIN_EXE_roofline=$B
for t in "$ROOT"/.carry/tests/*; do
  [[ -x $t && -f $t ]] || continue
  step "test-$(basename "$t" | cut -d- -f1)" 120 "$t" --test-threads 1
done

# ---- 5. pack and summarise ----------------------------------------------------
tar czf "$OUT/bench-check.tgz" -C "$W" . 2> /dev/null
{
  echo "=== BabelStream (GB/s: best of 100, 2^28 doubles; run 1 then run 2)"
  for r in 1 2; do
    [[ -f $W/babelstream-$r.out ]] && awk -F, '/^(Copy|Mul|Add|Triad|Dot),/ { printf "  run '"$r"' %-6s %8.1f\n", $1, $5 / 1000 }' "$W/babelstream-$r.out"
  done
  echo "=== roofline bench (median of the best run; machine.json)"
  [[ -f $W/machine.json ]] && python3 "$ROOT/scripts/device/bench-summary.py" "$W/machine.json" "$W"/babelstream-*.out
  grep -h "failed\|warning" "$W/bench.err" 2> /dev/null | head -20
  echo "=== DRAM sweep, best per operation and size (median, best GB/s)"
  [[ -f $W/dram-sweep.err ]] && tail -n 61 "$W/dram-sweep.err"
  echo "=== SASS: promised instruction per kernel"
  cat "$W/sass-counts.txt"
  echo "=== steps"
  cat "$W/summary.txt"
  echo "total $(($(date +%s) - T0)) s; everything in \$OUT/bench-check.tgz"
} | tee "$OUT/summary.txt"
