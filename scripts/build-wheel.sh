#!/usr/bin/env bash
# Builds the release wheel into DIR (default dist/): the `roofline` binary,
# the shared libraries it loads (staged by python/_build/roofline_build.py)
# and the Python package. Extra arguments go to `maturin build`, for example
#   scripts/build-wheel.sh dist --zig --compatibility manylinux_2_28   (pip install ziglang first)
#   scripts/build-wheel.sh dist --compatibility manylinux_2_28         (inside a manylinux_2_28 image)
# Without maturin installed, `pip wheel` runs the same backend (it fetches maturin).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-dist}
shift || true
python=${PYTHON:-python3}
if command -v maturin > /dev/null; then
  "$python" python/_build/roofline_build.py release
  maturin build --release --out "$dir" "$@"
else
  MATURIN_PEP517_ARGS="$*" "$python" -m pip wheel . --no-deps --wheel-dir "$dir"
fi
ls -l "$dir"/roofline-*.whl
