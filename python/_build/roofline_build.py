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

A prebuilt binary: with $ROOFLINE_WHEEL_BINARY naming a `roofline` binary
that cargo already built (CI sets it to target/debug/roofline, which
`cargo test --workspace` has just linked), nothing is compiled: the wheel is
packed here from that binary, the libraries cargo wrote beside it (that
folder, or its deps/ where `cargo test` leaves them; same checks as above:
a library whose crate is a workspace member must be there) and the
package's Python files, with the metadata maturin writes
(`prepare_metadata_for_build_wheel`). Same layout as maturin's wheel
(`roofline/...`, `roofline-VERSION.data/scripts/roofline`, the dist-info,
less maturin's SBOM), tagged for this platform only
(`py3-none-linux_x86_64`): a local wheel, not a release one
(scripts/build-wheel.sh builds those through maturin). The binary is packed
as it is: the variable is for a binary this checkout has just built.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "roofline"

#: A `roofline` binary cargo already built: the wheel is packed from it, nothing is compiled.
PREBUILT_ENV = "ROOFLINE_WHEEL_BINARY"

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


def stage_libraries(profile: str = "release", prebuilt: Optional[Path] = None) -> list:
    """Builds the bundled libraries and copies them into the package; returns their paths.

    With ``prebuilt`` (a folder), nothing is built: each library is copied
    from that folder, where cargo wrote it beside the binary.
    """
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
        if prebuilt is not None:
            # `cargo build -p PACKAGE` writes it beside the binary; `cargo test --workspace`
            # builds it as a dependency of the tests and leaves it in deps/.
            found = [p for p in (prebuilt / filename, prebuilt / "deps" / filename) if p.is_file()]
            if not found:
                raise RuntimeError(
                    f"${PREBUILT_ENV}: neither {prebuilt / filename} nor {prebuilt / 'deps' / filename} exists; "
                    f"build it with the binary (`cargo test --workspace`, or `cargo build -p {package}`)"
                )
            built = max(found, key=lambda p: p.stat().st_mtime)
        else:
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


def prebuilt_binary() -> Optional[Path]:
    """The binary named by $ROOFLINE_WHEEL_BINARY (relative to the repository), or None."""
    value = os.environ.get(PREBUILT_ENV)
    if not value:
        return None
    path = Path(value)
    if not path.is_absolute():
        path = ROOT / path
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise RuntimeError(f"${PREBUILT_ENV}={value}: not an executable file (build it with cargo first, or unset it)")
    return path.resolve()


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def _platform_tag() -> str:
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


def pack_prebuilt_wheel(wheel_directory, binary: Path, config_settings=None, metadata_directory=None) -> str:
    """Packs the wheel from a prebuilt binary (see the module's docstring); returns its file name."""
    _log(f"${PREBUILT_ENV}: packing {binary} (no cargo build)")
    stage_libraries(prebuilt=binary.parent)
    with tempfile.TemporaryDirectory() as tmp:
        # PEP 517: the frontend passes the .dist-info folder that prepare_metadata_for_build_wheel wrote.
        given = Path(metadata_directory) if metadata_directory else None
        if given is not None and given.name.endswith(".dist-info") and given.is_dir():
            dist_infos = [given]
        else:
            dist_infos = sorted(given.glob("*.dist-info")) if given is not None and given.is_dir() else []
        if not dist_infos:
            dist_infos = [Path(tmp) / _maturin().prepare_metadata_for_build_wheel(tmp, config_settings)]
        dist_info = dist_infos[0]
        name, version = dist_info.name[: -len(".dist-info")].split("-", 1)
        tag = f"py3-none-{_platform_tag()}"
        filename = f"{name}-{version}-{tag}.whl"
        files = []  # (archive name, source path or bytes, executable)
        for path in sorted(PACKAGE.rglob("*")):
            rel = path.relative_to(PACKAGE.parent)
            if path.is_file() and "__pycache__" not in rel.parts and path.suffix != ".pyc":
                files.append((rel.as_posix(), path, False))
        files.append((f"{name}-{version}.data/scripts/roofline", binary, True))
        for path in sorted(dist_info.rglob("*")):
            if path.is_file() and path.name not in ("WHEEL", "RECORD"):
                files.append((f"{dist_info.name}/{path.relative_to(dist_info).as_posix()}", path, False))
        wheel_text = f"Wheel-Version: 1.0\nGenerator: roofline_build (prebuilt binary)\nRoot-Is-Purelib: false\nTag: {tag}\n"
        files.append((f"{dist_info.name}/WHEEL", wheel_text.encode(), False))
        record = []
        out = Path(wheel_directory) / filename
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as whl:
            for arcname, source, executable in files:
                data = source if isinstance(source, bytes) else source.read_bytes()
                info = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = (0o100755 if executable else 0o100644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                whl.writestr(info, data, compresslevel=1)
                record.append(f"{arcname},{_record_hash(data)},{len(data)}")
            record.append(f"{dist_info.name}/RECORD,,")
            info = zipfile.ZipInfo(f"{dist_info.name}/RECORD", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            whl.writestr(info, "\n".join(record) + "\n", compresslevel=1)
    _log(f"{filename}: {len(files) + 1} files")
    return filename


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
    binary = prebuilt_binary()
    if binary is not None:
        return pack_prebuilt_wheel(wheel_directory, binary, config_settings, metadata_directory)
    stage_libraries(_profile(config_settings))
    return _maturin().build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    stage_libraries(_profile(config_settings))
    return _maturin().build_editable(wheel_directory, config_settings, metadata_directory)


if __name__ == "__main__":
    for p in stage_libraries(sys.argv[1] if len(sys.argv) > 1 else "release"):
        print(p)
