"""The wheel's build backend: maturin's, plus the shared libraries the binary
loads at run time.

maturin puts the `roofline` binary in the wheel (`bindings = "bin"`), but it
builds one crate, and the CUPTI injection library that `roofline timeline`
loads into the profiled program (libroofline_inject.so, crate
`roofline-inject`) is another one. Before maturin packs the wheel, this
backend builds each such library with cargo (same profile, same target
folder) and copies it into the Python package folder, where
`roofline.inject_library()` finds it and `roofline.run` passes it to the
binary through $ROOFLINE_INJECT_LIB. A crate this checkout does not have is
skipped (and any stale copy removed), so the wheel carries exactly what the
source tree builds.

Used by `pip install .`, `pip wheel .` and `python -m build --wheel`;
`maturin build` alone skips this step (scripts/build-wheel.sh does both).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "roofline"

#: (cargo package, file it builds, manifest that must exist for it to be built)
BUNDLED_LIBRARIES = [
    ("roofline-inject", "libroofline_inject.so", "crates/inject/Cargo.toml"),
]


def _log(msg: str) -> None:
    print(f"roofline build: {msg}", file=sys.stderr, flush=True)


def _metadata() -> dict:
    out = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True,
    ).stdout
    return json.loads(out)


def stage_libraries(profile: str = "release") -> list:
    """Builds the bundled libraries and copies them into the package; returns their paths."""
    staged = []
    meta = _metadata()
    members = {p["name"] for p in meta["packages"]}
    for package, filename, manifest in BUNDLED_LIBRARIES:
        dest = PACKAGE / filename
        if dest.exists():
            dest.unlink()
        if not (ROOT / manifest).is_file():
            _log(f"{package}: not in this checkout ({manifest}); the wheel will not carry {filename}")
            continue
        if package not in members:
            # A source distribution's workspace lists only the binary's own crates.
            _log(f"{package}: not a member of this workspace (a source distribution?); "
                 f"the wheel will not carry {filename}: build wheels from the repository")
            continue
        args = ["cargo", "build", "-p", package] + (["--release"] if profile == "release" else [])
        _log(" ".join(args))
        subprocess.run(args, cwd=ROOT, check=True)
        built = Path(meta["target_directory"]) / profile / filename
        if not built.is_file():
            raise RuntimeError(f"{' '.join(args)} did not write {built}")
        shutil.copy2(built, dest)
        staged.append(dest)
        _log(f"{filename} -> {dest.relative_to(ROOT)}")
    return staged


def _maturin():
    import maturin

    return maturin


def _profile(config_settings) -> str:
    args = _maturin().get_maturin_pep517_args(config_settings)
    debug = "--profile" in args and "dev" in args or os.environ.get("ROOFLINE_WHEEL_PROFILE") == "debug"
    return "debug" if debug else "release"


# The PEP 517 hooks: maturin's, with the libraries staged before a wheel is packed.


def get_requires_for_build_wheel(config_settings=None):
    return _maturin().get_requires_for_build_wheel(config_settings)


def get_requires_for_build_sdist(config_settings=None):
    return _maturin().get_requires_for_build_sdist(config_settings)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _maturin().prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_sdist(sdist_directory, config_settings=None):
    return _maturin().build_sdist(sdist_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    stage_libraries(_profile(config_settings))
    return _maturin().build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    stage_libraries(_profile(config_settings))
    return _maturin().build_editable(wheel_directory, config_settings, metadata_directory)


if __name__ == "__main__":
    for p in stage_libraries(sys.argv[1] if len(sys.argv) > 1 else "release"):
        print(p)
