#!/usr/bin/env bash
# CI for the Python package (.ci/run calls it): the README's path on a fresh
# virtual environment, then the tests against the installed wheel.
#  1. `pip install .` in a new venv: builds the release binary through
#     maturin, reusing target/ (a few minutes cold on 2 cores, seconds warm);
#     with $ROOFLINE_WHEEL_BINARY set (.ci/run sets it to the debug binary
#     the test build has just linked), the build backend packs that
#     binary and the libraries beside it instead, compiling nothing
#     (python/_build/roofline_build.py), and this script checks that the
#     venv's `roofline` is that very binary;
#  2. `roofline tour` from that venv on the bundled data, and the README's
#     one-liner (load + to_pandas);
#  3. pytest: the API tests (python/tests) and the PyTorch recipe's gate on
#     the committed captures (examples/pytorch/test_recipe.py), importing the
#     installed package, not the source folder. GPU tests print SKIPPED.
# pytest's exit status is this script's.
#
# With $ROOFLINE_CI_VENV set (.ci/run makes it in the background while the
# Rust build runs: `python3 -m venv` and pip's pytest and pandas, nothing
# else), step 1 installs into that venv instead of making one here.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
took() { echo "python ci: $1 took $(( $(date +%s) - $2 )) s"; }

t=$(date +%s)
if [ -n "${ROOFLINE_CI_VENV:-}" ]; then
  venv=$ROOFLINE_CI_VENV
  "$venv/bin/python" -c "import pytest, pandas" || {
    echo "python ci: \$ROOFLINE_CI_VENV ($venv) is no venv with pytest and pandas" >&2
    exit 1
  }
  if (cd "$work" && "$venv/bin/python" -c "import roofline" 2>/dev/null); then
    echo "python ci: \$ROOFLINE_CI_VENV ($venv) has roofline installed already: it must be fresh" >&2
    exit 1
  fi
  took "the venv .ci/run made (pytest and pandas), checked" "$t"
else
  venv=$work/venv
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check pytest pandas
  took "a fresh venv with pytest and pandas" "$t"
fi

t=$(date +%s)
"$venv/bin/pip" install --disable-pip-version-check --progress-bar off .
if [ -n "${ROOFLINE_WHEEL_BINARY:-}" ]; then
  cmp "$venv/bin/roofline" "$ROOFLINE_WHEEL_BINARY" || {
    echo "python ci: the venv's roofline is not \$ROOFLINE_WHEEL_BINARY ($ROOFLINE_WHEEL_BINARY)" >&2
    exit 1
  }
  took "pip install . (wheel packed from $ROOFLINE_WHEEL_BINARY)" "$t"
else
  took "pip install ." "$t"
fi

t=$(date +%s)
(
  cd "$work"
  "$venv/bin/roofline" tour > tour.txt
  grep -q "report: roofline-tour/report.html" tour.txt
  "$venv/bin/python" -c "import roofline; print(roofline.load('roofline-tour/analysis.json').to_pandas().head())"
)
took "roofline tour and the one-liner from the venv" "$t"

t=$(date +%s)
cd "$work"
ROOFLINE_EXPECT_INSTALLED=1 "$venv/bin/pytest" -rs -p no:cacheprovider --rootdir "$root" \
  "$root/python/tests" "$root/examples/pytorch/test_recipe.py"
took "pytest" "$t"
