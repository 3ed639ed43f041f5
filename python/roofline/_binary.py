"""Finding and running the `roofline` binary.

The analysis lives in the Rust binary; Python only starts it, hands it
files, and reads back what it wrote. This module finds the binary (the one
installed with this package, a source checkout's build, or PATH), runs it
with the caller's arguments, and turns a non-zero exit into a typed error
that carries the binary's own message and exit code.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Mapping, Optional, Sequence, Union

#: Set this to use another `roofline` binary than the one found.
BIN_ENV = "ROOFLINE_BIN"
#: How the binary is told where the CUPTI injection library is (`roofline timeline`).
INJECT_ENV = "ROOFLINE_INJECT_LIB"
#: File name of the CUPTI injection library the wheel may carry in the package folder.
INJECT_LIBRARY = "libroofline_inject.so"

PathLike = Union[str, "os.PathLike[str]"]

_PACKAGE_DIR = Path(__file__).resolve().parent


class RooflineError(Exception):
    """The binary could not do what was asked.

    ``exit_code`` is the binary's exit status: 2 for bad usage or bad input
    (fix the arguments or the file), 1 for a failure (a GPU run broke, a
    check failed); ``None`` when the binary never ran. ``message`` is the
    binary's own error text (its stderr, from the last ``error:`` on), and
    ``stderr`` everything it printed there. ``document`` is what the command
    wrote before failing, when it wrote something (``profile`` analyses the
    kernels profiled before the program failed).
    """

    def __init__(
        self,
        message: str,
        *,
        exit_code: Optional[int] = None,
        command: Sequence[str] = (),
        stderr: str = "",
        stdout: str = "",
        document: object = None,
    ) -> None:
        self.message = message
        self.exit_code = exit_code
        self.command = list(command)
        self.stderr = stderr
        self.stdout = stdout
        self.document = document
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.exit_code is None:
            return self.message
        cmd = " ".join(self.command[:2]) if self.command else "roofline"
        return f"`{cmd}` exited with status {self.exit_code}: {self.message}"


class RooflineUsageError(RooflineError, ValueError):
    """Exit status 2: bad usage or bad input; the message says what to fix."""


class RooflineFailure(RooflineError):
    """Exit status 1: the command ran and failed (or a check did not pass)."""


class BinaryNotFoundError(RooflineError, FileNotFoundError):
    """No `roofline` binary was found."""


class DocumentError(RooflineError, ValueError):
    """A file is not a roofline document this package can read."""


def _installed_binary() -> Optional[Path]:
    """The binary installed by this package's wheel (listed in its RECORD)."""
    try:
        from importlib import metadata
    except ImportError:  # pragma: no cover - Python < 3.8
        return None
    try:
        dist = metadata.distribution("roofline")
    except metadata.PackageNotFoundError:
        return None
    # Only trust the distribution that holds this very package (not another
    # install seen while running from a source checkout).
    if Path(str(dist.locate_file("roofline/__init__.py"))).resolve() != _PACKAGE_DIR / "__init__.py":
        return None
    for f in dist.files or []:
        parts = Path(str(f)).parts
        if parts and parts[-1] == "roofline" and len(parts) >= 2 and parts[-2] in ("bin", "scripts", "Scripts"):
            p = Path(str(dist.locate_file(f))).resolve()
            if p.is_file():
                return p
    return None


def _source_tree_binary() -> Optional[Path]:
    """`target/release/roofline` when this package runs from a source checkout."""
    root = _PACKAGE_DIR.parent.parent
    if (root / "Cargo.toml").is_file() and (root / "pyproject.toml").is_file():
        for profile in ("release", "debug"):
            p = root / "target" / profile / "roofline"
            if p.is_file() and os.access(p, os.X_OK):
                return p
    return None


def binary() -> Path:
    """The `roofline` binary this package runs.

    In order: ``$ROOFLINE_BIN``; the binary installed with this package; in a
    source checkout, ``target/release/roofline`` (then ``target/debug``); the
    first ``roofline`` on PATH. Raises :class:`BinaryNotFoundError` naming
    the places looked at and the fix.
    """
    explicit = os.environ.get(BIN_ENV)
    if explicit:
        p = Path(explicit)
        if p.is_file() and os.access(p, os.X_OK):
            return p
        raise BinaryNotFoundError(
            f"${BIN_ENV}={explicit}: not an executable file; point it at a `roofline` binary "
            "(cargo build --release -> target/release/roofline) or unset it"
        )
    for found in (_installed_binary(), _source_tree_binary()):
        if found is not None:
            return found
    on_path = shutil.which("roofline")
    if on_path:
        return Path(on_path)
    raise BinaryNotFoundError(
        "no `roofline` binary found (not installed with this package, no target/release/roofline in a "
        f"source checkout, none on PATH); install the package with `pip install .` from the repository, "
        f"or build it with `cargo build --release` and set ${BIN_ENV} to target/release/roofline"
    )


def inject_library() -> Optional[Path]:
    """The CUPTI injection library carried in this package, if the wheel has one."""
    p = _PACKAGE_DIR / INJECT_LIBRARY
    return p if p.is_file() else None


def child_env(env: Optional[Mapping[str, str]] = None) -> dict:
    """The binary's environment: the caller's, plus ``$ROOFLINE_INJECT_LIB``
    when this package carries the injection library and it is not set yet."""
    out = dict(os.environ if env is None else env)
    lib = inject_library()
    if lib is not None and not out.get(INJECT_ENV):
        out[INJECT_ENV] = str(lib)
    return out


def error_message(stderr: str) -> str:
    """The binary's error text: from its last line starting with ``error:``."""
    lines = stderr.rstrip().splitlines()
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith("error:"):
            return "\n".join([lines[i][len("error:"):].strip()] + lines[i + 1:])
    return stderr.strip() or "(the binary printed nothing on stderr)"


def error_for(code: int, command: Sequence[str], stderr: str, stdout: str = "", document: object = None) -> RooflineError:
    """The typed error for a non-zero exit status."""
    cls = RooflineUsageError if code == 2 else RooflineFailure
    return cls(error_message(stderr), exit_code=code, command=command, stderr=stderr, stdout=stdout, document=document)


def _pump(stream: IO[str], sink: list, echo: Optional[IO[str]]) -> None:
    for line in iter(stream.readline, ""):
        sink.append(line)
        if echo is not None:
            echo.write(line)
            echo.flush()
    stream.close()


def _die_with_parent() -> None:  # pragma: no cover - runs in the child, between fork and exec
    """Linux: the binary gets SIGTERM if the Python process that started it dies."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def _drain(stream: IO[str], sink: list) -> None:
    sink.append(stream.read())
    stream.close()


def execute(
    args: Sequence[PathLike],
    *,
    echo: bool = False,
    timeout: Optional[float] = None,
    cwd: Optional[PathLike] = None,
    env: Optional[Mapping[str, str]] = None,
    input: Optional[str] = None,
) -> "subprocess.CompletedProcess[str]":
    """Runs ``roofline ARGS``; returns the completed process whatever its status.

    stdout and stderr are captured as text; with ``echo``, stderr (progress,
    warnings, the profiled program's output) is also copied to ``sys.stderr``
    as it arrives. On ``timeout`` the binary and every process it started
    (ncu, the profiled program) are stopped, and :class:`RooflineFailure`
    is raised.
    """
    exe = binary()
    argv = [str(exe)] + [os.fspath(a) for a in args]
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
        cwd=None if cwd is None else os.fspath(cwd),
        env=child_env(env),
        start_new_session=True,  # its own process group, so a timeout stops ncu and the program too
        preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
    )
    err_lines: list = []
    out_chunks: list = []
    pumps = [
        threading.Thread(target=_pump, args=(proc.stderr, err_lines, sys.stderr if echo else None), daemon=True),
        threading.Thread(target=_drain, args=(proc.stdout, out_chunks), daemon=True),
    ]
    for t in pumps:
        t.start()
    if input is not None:
        proc.stdin.write(input)
        proc.stdin.close()
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop_group(proc)
        for t in pumps:
            t.join(5)
        raise RooflineFailure(
            f"stopped after {timeout} s (timeout); give a longer timeout, or profile fewer launches "
            "(launch_count=N, kernel_name=..., nvtx_include=...)",
            exit_code=None,
            command=[os.fspath(a) for a in args],
            stderr="".join(err_lines),
        ) from None
    except BaseException:
        _stop_group(proc)
        raise
    for t in pumps:
        t.join()
    return subprocess.CompletedProcess(argv[1:], code, "".join(c for c in out_chunks if c), "".join(err_lines))


def _stop_group(proc: "subprocess.Popen[str]") -> None:
    """Stops the process group this module started (SIGTERM, then SIGKILL)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=5)
    except ProcessLookupError:
        return
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        proc.wait()
