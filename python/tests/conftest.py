"""Shared fixtures: the repository's bundled data, a tour run once per session,
and the checks that decide whether a GPU test runs or says why it skips."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import roofline

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data" / "h200"
FIXTURES = REPO / "tests" / "fixtures"


def gpu_missing_reason():
    """Why GPU tests cannot run here, or None when an NVIDIA GPU is present."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return "no NVIDIA driver on this machine (nvidia-smi not found)"
    done = subprocess.run([smi, "-L"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0 or "GPU" not in done.stdout:
        return f"no NVIDIA GPU visible (nvidia-smi -L: {done.stdout.strip() or done.returncode})"
    return None


def ncu_missing_reason():
    for cand in (shutil.which("ncu"), os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ncu")):
        if cand and os.path.isfile(cand):
            return None
    return "Nsight Compute (ncu) not found on PATH or in $CUDA_HOME/bin"


def skip_without_gpu(also_ncu: bool = False) -> None:
    why = gpu_missing_reason() or (ncu_missing_reason() if also_ncu else None)
    if why:
        pytest.skip(f"SKIPPED: {why}; this test runs on the H200 (scripts/device/python-recipe.sh)")


@pytest.fixture(scope="session")
def tour_dir(tmp_path_factory) -> Path:
    """`roofline tour --bundled` written once: the acceptance path's analysis.json."""
    out = tmp_path_factory.mktemp("tour") / "roofline-tour"
    roofline.tour(out, bundled=True, echo=False)
    return out


@pytest.fixture(scope="session")
def tour_analysis(tour_dir) -> Path:
    return tour_dir / "analysis.json"
