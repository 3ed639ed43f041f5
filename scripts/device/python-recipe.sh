#!/usr/bin/env bash
# The Python package and the PyTorch recipe on the lent H200, in one go.
#
# Run from the repository root on the device machine (python3 3.12 with
# PyTorch, no Rust, no network), carrying the wheels built here:
#   scripts/build-wheel.sh .carry/wheels          # here: the roofline wheel
#   pip download pytest --only-binary=:all: --python-version 3.12 -d .carry/wheels   # if the device lacks pytest
#   run: bash scripts/device/python-recipe.sh      carry: [".carry"]
#
# 1. installs the roofline wheel (offline, from .carry/wheels) into a venv
#    that sees the system's PyTorch, and checks `roofline` and `import roofline`;
# 2. measures this GPU's roofs (`roofline bench --quick`) for the recipe to judge against;
# 3. runs examples/pytorch/recipe.py for each change in $RECIPE_CHANGES
#    (default fused-adamw; `RECIPE_CHANGES=compile` for torch.compile, or both
#    when the 10-minute limit allows), the step picked by $RECIPE_SELECT
#    (nvtx, the default: its NVTX range; profiler-range: the whole step, every
#    thread): one training step profiled before and after, program view,
#    diff, gate;
# 4. runs the recipe's pytest gate on those outputs and the API tests with the GPU;
# 5. records a CUPTI timeline through the Python API when the binary has `timeline`.
# Writes under $OUT: python-recipe-h200.tgz (every output and log) and
# summary.txt; prints a summary at the end. Clocks are left alone.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
ROOT=$PWD
W=/tmp/python-recipe
rm -rf "$W"; mkdir -p "$W"
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw --format=csv
  command -v ncu && ncu --version | tail -1
  python3 -c "import sys, torch; print('python', sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.version.cuda)"
  ls -l .carry/wheels/
} > "$W/env.txt" 2>&1
cat "$W/env.txt"

RECIPE_CHANGES=${RECIPE_CHANGES:-fused-adamw}
RECIPE_SELECT=${RECIPE_SELECT:-nvtx}   # or profiler-range: the whole step, backward included (slower)
RECIPE_TIMEOUT=${RECIPE_TIMEOUT:-300}
step() { # name, seconds allowed, then the command; logs to $W/NAME.out/.err, times it
  local name=$1 limit=$2; shift 2
  local t0=$(date +%s.%N)
  timeout -k 10 "$limit" "$@" > "$W/$name.out" 2> "$W/$name.err"
  local rc=$?
  local t1=$(date +%s.%N)
  echo "$name: exit $rc, wall $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s" | tee -a "$W/summary.txt"
  return $rc
}

V=$W/venv
python3 -m venv --system-site-packages "$V"
wheel=$(ls .carry/wheels/roofline-*.whl 2>/dev/null | head -1)
if [ -z "$wheel" ]; then
  echo "no .carry/wheels/roofline-*.whl: build it first with scripts/build-wheel.sh .carry/wheels" | tee -a "$W/summary.txt"
else
  step install 120 "$V/bin/pip" install --no-index --no-deps "$wheel"
  # The system's packages (PyTorch, pytest) where a venv does not see them
  # (an image that puts them on the system python's path by other means).
  export PYTHONPATH=$(python3 -c 'import sys; print(":".join(p for p in sys.path[1:] if p))')${PYTHONPATH:+:$PYTHONPATH}
  "$V/bin/python" -c "import pytest" 2>/dev/null || step install-pytest 60 "$V/bin/pip" install --no-index --find-links .carry/wheels pytest
  export PATH=$V/bin:$PATH
  step which 30 sh -c "command -v roofline; roofline --version; python -c 'import roofline; print(roofline.__file__, roofline.binary(), roofline.inject_library())'"
  step bench 90 roofline bench --quick -o "$W/machine.json"
  machine=()
  [ -s "$W/machine.json" ] && machine=(--machine "$W/machine.json")
  for change in $RECIPE_CHANGES; do
    step "recipe-$change" "$RECIPE_TIMEOUT" python "$ROOT/examples/pytorch/recipe.py" --out "$W/$change" \
      --change "$change" --select "$RECIPE_SELECT" "${machine[@]}"
    [ -s "$W/$change/after.json" ] && ROOFLINE_RECIPE_DIR=$W/$change \
      step "pytest-recipe-$change" 90 python -m pytest -rs -q -p no:cacheprovider "$ROOT/examples/pytorch/test_recipe.py"
  done
  step pytest-api 120 python -m pytest -rs -q -p no:cacheprovider -rs -q "$ROOT/python/tests"
  if roofline timeline --help > /dev/null 2>&1; then
    step timeline 120 python -c "
import sys, roofline
t = roofline.timeline([sys.executable, '$ROOT/examples/pytorch/train_gpt.py'], output='$W/timeline.json', echo=False)
print(t.text); print(t.summary.kernel_launches, 'kernel launches')"
  else
    echo "timeline: this binary has no timeline command (skipped)" | tee -a "$W/summary.txt"
  fi
fi
cp "$W/summary.txt" "$OUT/" 2>/dev/null
tar czf "$OUT/python-recipe-h200.tgz" -C "$W" --exclude venv .
echo "=== summary"; cat "$W/summary.txt"
for o in "$W"/*.out; do
  f=$(basename "$o" .out)
  echo "=== $f"; tail -c 3500 "$W/$f.out"; tail -c 1200 "$W/$f.err"
done
