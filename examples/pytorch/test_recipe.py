"""The PyTorch recipe's gate as a pytest test.

Runs on the recipe's outputs: $ROOFLINE_RECIPE_DIR (before.json and
after.json, as recipe.py writes them on the GPU), else the committed
captures in tests/fixtures/recipe/ (CI, no GPU). The test that runs the
recipe itself needs an NVIDIA GPU, Nsight Compute and PyTorch, and says so
when it skips.

    pytest examples/pytorch/test_recipe.py -rs
    ROOFLINE_RECIPE_DIR=recipe-out pytest examples/pytorch/test_recipe.py -rs
"""

from __future__ import annotations

import json
import re
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import roofline

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import recipe  # noqa: E402

COMMITTED = HERE.parents[1] / "tests" / "fixtures" / "recipe"


@pytest.fixture(scope="module")
def steps():
    folder = Path(os.environ.get("ROOFLINE_RECIPE_DIR") or COMMITTED)
    return roofline.load(folder / "before.json"), roofline.load(folder / "after.json")


def test_the_change_holds_the_gate(steps):
    before, after = steps
    result = recipe.gate(before, after)
    assert result.outcomes, "the gate applied no rule: nothing was checked"
    assert result.passed, "the gate failed:\n" + result.text


def test_the_gate_fails_a_kernel_below_its_floor(steps):
    """The same rules one point above the weakest hot kernel must fail it, and only such kernels."""
    _, after = steps
    hot = [k for k in after.kernels if k.time_share is not None and k.time_share >= 0.10 and k.pct_of_roof is not None]
    assert hot, "no kernel holds 10% of the step's time"
    weakest = min(hot, key=lambda k: k.pct_of_roof)
    result = roofline.check(after, min_time_share=10, min_pct_of_roof=weakest.pct_of_roof + 1)
    assert not result.passed
    assert weakest.display_name in {f.kernel for f in result.failures}
    assert roofline.check(after, min_time_share=10, min_pct_of_roof=weakest.pct_of_roof).passed


def test_the_change_made_the_step_faster(steps):
    before, after = steps
    d = roofline.diff(before, after)
    total = d.total
    assert total is not None, d.text
    assert total.after.duration_s < total.before.duration_s, "the step got slower:\n" + d.text


def test_the_recipe_runs_on_this_gpu(tmp_path):
    missing = []
    if shutil.which("nvidia-smi") is None or subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.DEVNULL,
                                                            stderr=subprocess.DEVNULL).returncode != 0:
        missing.append("an NVIDIA GPU")
    if shutil.which("ncu") is None and not os.path.isfile(os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ncu")):
        missing.append("Nsight Compute (ncu)")
    try:
        import torch  # noqa: F401
    except ImportError:
        missing.append("PyTorch")
    if not recipe.TRAIN.is_file():
        missing.append(f"{recipe.TRAIN.name}")
    if missing:
        pytest.skip(f"SKIPPED: the recipe needs {', '.join(missing)}; it runs on the H200 (scripts/device/python-recipe.sh)")
    if os.environ.get("ROOFLINE_RECIPE_RUN") != "1":
        pytest.skip("SKIPPED: set ROOFLINE_RECIPE_RUN=1 to profile two training steps here (minutes)")
    code = recipe.main(["--out", str(tmp_path)])
    assert (tmp_path / "diff.html").is_file() and (tmp_path / "check.txt").is_file()
    assert code == 0, (tmp_path / "check.txt").read_text()


def test_compare_writes_the_diff_page_and_markdown(steps, tmp_path):
    before, after = steps
    d = recipe.compare(before, after, tmp_path)
    assert "<svg" in (tmp_path / "diff.html").read_text()
    md = re.sub(r"\\(.)", r"\1", (tmp_path / "diff.md").read_text())  # Markdown escapes _ < > with a backslash
    assert d.total.name in md and all(r.name in md for r in d.rows)


def stand_in_ncu(folder: Path) -> Path:
    """An ncu that replays the committed captures (after.csv when the run has the change's flag)
    and records its arguments; the program still runs."""
    script = folder / "ncu"
    script.write_text(f"""#!/bin/sh
if [ "$1" = "--query-metrics" ]; then exit 1; fi
if [ "$1" = "--import" ]; then cat "$2"; exit 0; fi
printf '%s\\n' "$@" >> "{folder / 'calls'}"
log=""
while [ $# -gt 0 ]; do
  case "$1" in
    --log-file) log="$2"; shift 2;;
    --export) rep="$2"; shift 2;;
    --csv|--nvtx|--force-overwrite) shift;;
    --page|--print-units|--clock-control|--metrics|--kernel-name|--launch-count|--launch-skip|--nvtx-include|--nvtx-exclude|--profile-from-start) shift 2;;
    *) break;;
  esac
done
capture="{COMMITTED / 'before.csv'}"
for a in "$@"; do case "$a" in --fused-adamw|--compile) capture="{COMMITTED / 'after.csv'}";; esac; done
grep '^==' "$capture" > "$log"
grep -v '^==' "$capture" > "$rep"
exec "$@"
""")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@pytest.mark.parametrize("select", ["nvtx", "profiler-range"])
def test_the_recipe_end_to_end_with_a_stand_in_ncu(tmp_path, select):
    """recipe.py's whole path without a GPU: profile both steps, program view, diff, gate."""
    ncu = stand_in_ncu(tmp_path)
    train = tmp_path / "train.py"
    train.write_text("import sys\nprint('training', sys.argv[1:], file=sys.stderr)\n")
    out = tmp_path / "out"
    machine = HERE.parents[1] / "data" / "h200" / "tour" / "machine.json"
    code = recipe.main(["--out", str(out), "--ncu", str(ncu), "--train", str(train), "--machine", str(machine),
                        "--select", select])
    assert code == 0, (out / "check.txt").read_text()
    for name in ("before.json", "after.json", "before.html", "after.html", "diff.html", "diff.md", "check.txt"):
        assert (out / name).is_file(), name
    for side in ("before", "after"):
        made = json.loads((out / f"{side}.json").read_text())
        committed = json.loads((COMMITTED / f"{side}.json").read_text())
        assert made["kernels"] == committed["kernels"], side
    calls = (tmp_path / "calls").read_text().split("\n")
    assert calls.count("--clock-control") == 2 and "none" in calls
    assert calls.count(str(train)) == 2 and calls.count("--fused-adamw") == 1
    if select == "nvtx":
        assert calls.count("--nvtx-include") == 2 and calls.count("step 0/") == 2 and calls.count("--steps") == 2
    else:
        assert calls.count("--profile-from-start") == 2 and calls.count("--profile-range") == 2
        assert "--nvtx-include" not in calls
