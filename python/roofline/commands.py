"""The binary's commands as functions that return documents.

:func:`run` is the general form: ``roofline.run(["profile", "--", "./app"])``
runs ``roofline profile -- ./app`` and returns the document the command
wrote. The friends (:func:`profile`, :func:`import_`, :func:`report`,
:func:`check`, :func:`diff`, ...) take ``echo``, ``cwd``, ``env`` and
``timeout_s`` (seconds) for the run, and build the argument list from the
other keyword arguments, one rule for all flags: ``nvtx_include="step 3/"`` becomes
``--nvtx-include "step 3/"``, ``per_launch=True`` becomes ``--per-launch``,
a list repeats the flag, ``None`` and ``False`` leave it out. So a flag the
binary gains is usable here at once; ``roofline <command> --help`` lists
them.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, List, Mapping, Optional, Sequence, Union

from . import _binary
from ._binary import PathLike, RooflineError, RooflineFailure
from .documents import (
    Analysis, CheckResult, Diff, Document, MachineDocument, Merged, Timeline, _untagged_kind, from_dict, load,
)

Documentish = Union[PathLike, Document]

_OUTPUT_FLAGS = ("-o", "--output")


def flag_args(flags: Mapping[str, Any]) -> List[str]:
    """``{"nvtx_include": "step/", "per_launch": True}`` -> ``["--nvtx-include", "step/", "--per-launch"]``."""
    out: List[str] = []
    for key, value in flags.items():
        flag = "--" + key.rstrip("_").replace("_", "-")
        values = value if isinstance(value, (list, tuple)) else [value]
        for v in values:
            if v is None or v is False:
                continue
            if v is True:
                out.append(flag)
            else:
                out += [flag, os.fspath(v) if isinstance(v, os.PathLike) else str(v)]
    return out


def _user_output(args: Sequence[str]) -> Optional[str]:
    """The file the caller asked for with -o/--output (before any `--`)."""
    for i, a in enumerate(args):
        if a == "--":
            return None
        if a in _OUTPUT_FLAGS and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--output="):
            return a[len("--output="):]
        if a.startswith("-o") and len(a) > 2 and not a.startswith("--"):
            return a[2:]
    return None


def _with_output(args: List[str], path: str) -> List[str]:
    """Adds ``-o PATH`` before the program's own arguments (after `--`), if any."""
    try:
        cut = args.index("--")
    except ValueError:
        cut = len(args)
    return args[:cut] + ["-o", path] + args[cut:]


def _read_written(path: Path) -> List[Any]:
    """What the command wrote at PATH; several files PATH.gpuN.json with --all-devices."""
    if path.is_file():
        return [json.loads(path.read_text(encoding="utf-8"))]
    siblings = sorted(path.parent.glob(f"{path.stem}.gpu*{path.suffix}"),
                      key=lambda p: (len(p.name), p.name))
    return [json.loads(p.read_text(encoding="utf-8")) for p in siblings]


def run(
    args: Sequence[PathLike],
    *,
    echo: bool = False,
    timeout: Optional[float] = None,
    cwd: Optional[PathLike] = None,
    env: Optional[Mapping[str, str]] = None,
    input: Optional[str] = None,
) -> Any:
    """Runs ``roofline ARGS`` and returns what it wrote.

    The binary is asked for a JSON file (``-o``, unless ``args`` has one);
    the result is the document in it (:class:`Analysis`,
    :class:`MachineDocument`, ...), with ``.text`` holding what the binary
    printed on stdout (its table, in English) and ``.stderr`` its messages;
    several documents (``--all-devices``) come as a list; JSON that is not a
    document (``peaks --list``) comes back parsed, as plain lists and dicts.
    A command that writes no file returns its stdout as a string.

    A non-zero exit raises :class:`RooflineUsageError` (2: bad usage or
    input) or :class:`RooflineFailure` (1), carrying the binary's message,
    exit code, stderr and the document if one was written. ``echo`` copies
    the binary's stderr (progress, warnings, the program's output) to
    ``sys.stderr`` as it comes; ``timeout`` (seconds) stops the binary and
    everything it started.
    """
    args = [os.fspath(a) for a in args]
    if not args:
        raise _binary.RooflineUsageError("no command given; for example roofline.run([\"tour\"])", exit_code=None)
    user_out = _user_output(args)
    with tempfile.TemporaryDirectory(prefix="roofline-") as tmp:
        if user_out is None:
            target = Path(tmp) / "out.json"
            argv = _with_output(args, str(target))
        else:
            target = Path(user_out) if cwd is None or Path(user_out).is_absolute() else Path(cwd) / user_out
            argv = args
        done = _binary.execute(argv, echo=echo, timeout=timeout, cwd=cwd, env=env, input=input)
        docs: List[Any] = []
        if target.suffix.lower() == ".json":
            for raw in _read_written(target):
                if isinstance(raw, Mapping) and ("schema" in raw or _untagged_kind(raw)):
                    raw = from_dict(raw, path=None if user_out is None else target, text=done.stdout,
                                    stderr=done.stderr, input=f"roofline {args[0]} output")
                docs.append(raw)  # other JSON (a list of GPUs, say) comes back as it was written
    result: Any = docs[0] if len(docs) == 1 else (docs if docs else None)
    if done.returncode != 0:
        raise _binary.error_for(done.returncode, argv, done.stderr, done.stdout, document=result)
    return done.stdout if result is None else result


def _expect(result: Any, cls: type, what: str) -> Any:
    if isinstance(result, cls):
        return result
    raise RooflineError(f"`roofline {what}` wrote no {cls.__name__} document (got {type(result).__name__})")


def _command_args(command: Union[str, Sequence[PathLike]]) -> List[str]:
    if isinstance(command, (str, os.PathLike)):
        return [os.fspath(command)]
    return [os.fspath(c) for c in command]


class _DocumentFile:
    """A path for a document argument: the file itself, or a temporary copy of an in-memory document."""

    def __init__(self, doc: Documentish) -> None:
        self._tmp: Optional[tempfile.TemporaryDirectory] = None
        if isinstance(doc, Document):
            if doc.path is not None and doc.path.is_file():
                self.path = doc.path
            else:
                self._tmp = tempfile.TemporaryDirectory(prefix="roofline-")
                self.path = doc.save(Path(self._tmp.name) / f"{doc.kind or 'document'}.json")
        else:
            self.path = Path(doc)

    def __enter__(self) -> Path:
        return self.path

    def __exit__(self, *exc: Any) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()


def _split(flags: dict) -> tuple:
    """Python-side options (``echo``, ``cwd``, ``env``, ``timeout_s``) apart from the binary's flags.

    ``timeout_s`` is the Python-side limit in seconds (``run(timeout=)``);
    ``timeout=`` stays a flag of the binary (``roofline timeline --timeout 5m``
    stops the program gracefully and keeps what was recorded)."""
    runner = {k: flags.pop(k) for k in ("echo", "cwd", "env") if k in flags}
    if "timeout_s" in flags:
        runner["timeout"] = flags.pop("timeout_s")
    return flags, runner


def profile(command: Union[str, Sequence[PathLike]], *, output: Optional[PathLike] = None, echo: bool = True,
            **flags: Any) -> Analysis:
    """``roofline profile [FLAGS] -- COMMAND``: runs the program under Nsight
    Compute and returns the :class:`Analysis` of its kernels.

    Common flags: ``nvtx_include="step 3/"`` (only kernels inside that NVTX
    range, by its time window across threads), ``steps="all"`` or ``steps=2``
    (the steady state after the warm-up is the default), ``budget="90s"``
    (pass 2's cap), ``kernel_name="regex:gemm"``, ``launch_count=10``,
    ``machine="h200.json"`` (judge against measured roofs), ``save_csv=PATH``.
    ``output`` also keeps the analysis in that file. If the program fails
    after some kernels were profiled, :class:`RooflineFailure` carries their
    analysis in ``.document``.
    """
    flags, runner = _split(dict(flags))
    args = ["profile"] + flag_args(flags) + (["-o", os.fspath(output)] if output else []) + ["--"]
    return _expect(run(args + _command_args(command), echo=echo, **runner), Analysis, "profile")


def import_(capture: PathLike, *, output: Optional[PathLike] = None, **flags: Any) -> Analysis:
    """``roofline import FILE``: the :class:`Analysis` of a capture Nsight
    Compute already wrote (raw CSV, or a ``.ncu-rep`` where ncu is installed),
    or of a PyTorch profiler trace (``.json``/``.json.gz`` recorded with
    ``record_shapes=True``: FLOPs and bytes estimated from shapes).
    Flags: ``machine=``, ``gpu=``, ``bytes="nersc"``, ``per_launch=True``.
    With ``with_counters="capture.csv"`` (a trace only) the result is the
    comparison of the estimates with the counters (a ``shapes_vs_counters``
    :class:`Document`)."""
    flags, runner = _split(dict(flags))
    args = ["import", os.fspath(capture)] + flag_args(flags) + (["-o", os.fspath(output)] if output else [])
    return _expect(run(args, **runner), Document if flags.get("with_counters") else Analysis, "import")


#: The same as :func:`import_` (``import`` is a Python keyword).
import_capture = import_


def model(*files: PathLike, kernel: Union[str, Sequence[str], None] = None, output: Optional[PathLike] = None,
          **flags: Any) -> Analysis:
    """``roofline model``: paper estimates (TOML files and/or ``kernel="NAME:
    flops=F bytes=B"`` specs) placed under a machine's roofs (``gpu="h200"``,
    ``machine=PATH``, or ``peak=``/``bandwidth=``)."""
    flags, runner = _split(dict(flags))
    args = ["model"] + [os.fspath(f) for f in files] + flag_args({"kernel": kernel, **flags})
    args += ["-o", os.fspath(output)] if output else []
    return _expect(run(args, **runner), Analysis, "model")


def report(analysis: Documentish, *, format: str = "html", output: Optional[PathLike] = None, **flags: Any) -> str:
    """``roofline report``: the analysis drawn by the binary, as text.

    ``format``: ``html`` (the self-contained page), ``svg`` (the chart),
    ``markdown`` (tables for a CI summary), ``json`` or ``csv``. ``output``
    also writes it to that file. Flags: ``title=``, ``width=``.
    """
    suffix = {"html": ".html", "svg": ".svg", "markdown": ".md", "md": ".md", "json": ".json", "csv": ".csv"}.get(format)
    if suffix is None:
        raise _binary.RooflineUsageError(
            f"format={format!r}: expected one of html, svg, markdown, json, csv", exit_code=None)
    flags, runner = _split(dict(flags))
    with _DocumentFile(analysis) as src, tempfile.TemporaryDirectory(prefix="roofline-") as tmp:
        out = Path(output) if output else Path(tmp) / f"report{suffix}"
        if output and out.suffix.lower() != suffix:
            raise _binary.RooflineUsageError(
                f"output={output}: its extension must be {suffix} for format={format!r}", exit_code=None)
        args = ["report", str(src), "-o", str(out), "--quiet"] + flag_args(flags)
        done = _binary.execute(args, **runner)
        if done.returncode != 0:
            raise _binary.error_for(done.returncode, args, done.stderr, done.stdout)
        return out.read_text(encoding="utf-8")


def check(analysis: Documentish, **rules: Any) -> CheckResult:
    """``roofline check``: thresholds on an analysis.

    Rules as keywords: ``config="roofline-check.toml"``,
    ``min_pct_of_roof=60``, ``min_time_share=5``, ``kernel=["fused=80"]``,
    ``baseline="main.json"`` (a path or a document), ``max_regression=10``,
    ``allow_empty=True`` (pass a check whose rules applied to no kernel,
    which otherwise fails).
    Returns the :class:`CheckResult` whether the rules held (``.passed``,
    ``.failures``, ``.text`` the binary's table) or not; raises
    :class:`RooflineUsageError` on bad input.
    """
    rules, runner = _split(dict(rules))
    with contextlib.ExitStack() as stack:
        src = stack.enter_context(_DocumentFile(analysis))
        if rules.get("baseline") is not None:
            rules["baseline"] = stack.enter_context(_DocumentFile(rules["baseline"]))
        args = ["check", str(src)] + flag_args(rules)
        try:
            result = run(args, **runner)
        except RooflineFailure as e:
            if isinstance(e.document, CheckResult):
                return e.document
            raise
    return _expect(result, CheckResult, "check")


def diff(before: Documentish, after: Documentish, *, match: Union[str, Sequence[str], None] = None,
         output: Optional[PathLike] = None, **flags: Any) -> Diff:
    """``roofline diff BEFORE AFTER``: per kernel change in time, intensity and
    % of roof. ``match="scale+add=fused"`` pairs renamed or fused kernels.
    The result draws itself (:meth:`Diff.chart`, notebooks) from the two
    analyses; ``output`` (``.html``, ``.svg``, ``.md``, ``.json``) also
    writes the binary's rendering to a file."""
    flags, runner = _split(dict(flags))
    with _DocumentFile(before) as b, _DocumentFile(after) as a:
        args = ["diff", str(b), str(a)] + flag_args({"match": match, **flags})
        result = _expect(run(args, **runner), Diff, "diff")
        if output:
            out_args = args + ["-o", os.fspath(output), "--quiet"]
            done = _binary.execute(out_args, **runner)
            if done.returncode != 0:
                raise _binary.error_for(done.returncode, out_args, done.stderr, done.stdout)
        inputs = [d if isinstance(d, Document) else load(p) for d, p in ((before, b), (after, a))]
    return Diff(result.raw, text=result.text, stderr=result.stderr, inputs=(inputs[0], inputs[1], list(args[3:])))


def bench(*, output: Optional[PathLike] = None, echo: bool = True, **flags: Any) -> Union[MachineDocument, List[MachineDocument]]:
    """``roofline bench``: the measured roofs of this GPU (``quick=True``,
    ``device=N``, ``all_devices=True`` gives one document per GPU)."""
    flags, runner = _split(dict(flags))
    args = ["bench"] + flag_args(flags) + (["-o", os.fspath(output)] if output else [])
    result = run(args, echo=echo, **runner)
    return result if isinstance(result, list) else _expect(result, MachineDocument, "bench")


def peaks(gpu: Optional[str] = None, *, output: Optional[PathLike] = None,
          **flags: Any) -> Union[MachineDocument, List[MachineDocument]]:
    """``roofline peaks``: theoretical roofs of the local GPU, or of a GPU of
    the built-in table (``gpu="h200"``)."""
    flags, runner = _split(dict(flags))
    args = ["peaks"] + flag_args({"gpu": gpu, **flags}) + (["-o", os.fspath(output)] if output else [])
    result = run(args, **runner)
    return result if isinstance(result, list) else _expect(result, MachineDocument, "peaks")


def tour(out_dir: PathLike = "roofline-tour", *, echo: bool = True, **flags: Any) -> Analysis:
    """``roofline tour``: the main job (bundled H200 data without a GPU, or
    ``bundled=True``). Returns the analysis it wrote to ``out_dir``, with
    ``.text`` its printed summary."""
    flags, runner = _split(dict(flags))
    args = ["tour", "--out-dir", os.fspath(out_dir)] + flag_args(flags)
    result = run(args, echo=echo, **runner)
    text = result.text if isinstance(result, Document) else result if isinstance(result, str) else ""
    cwd = runner.get("cwd")
    path = Path(out_dir) if cwd is None or Path(out_dir).is_absolute() else Path(cwd) / out_dir
    path = path / "analysis.json"
    doc = from_dict(json.loads(path.read_text(encoding="utf-8")), path=path, input=str(path), text=text)
    return _expect(doc, Analysis, "tour")


def timeline(command: Union[str, Sequence[PathLike]], *, output: Optional[PathLike] = None, echo: bool = True,
             **flags: Any) -> Timeline:
    """``roofline timeline [FLAGS] -- COMMAND``: what ran on the GPU during
    the program's own run (CUPTI activity, no replay), as a :class:`Timeline`.
    Needs the CUPTI injection library: the one in this package is passed to
    the binary through ``$ROOFLINE_INJECT_LIB``."""
    flags, runner = _split(dict(flags))
    args = ["timeline"] + flag_args(flags) + (["-o", os.fspath(output)] if output else []) + ["--"]
    return _expect(run(args + _command_args(command), echo=echo, **runner), Timeline, "timeline")


def merge(*documents: Documentish, output: Optional[PathLike] = None, **flags: Any) -> Document:
    """``roofline merge``: one document from several ranks' documents."""
    flags, runner = _split(dict(flags))
    with contextlib.ExitStack() as stack:
        files = [stack.enter_context(_DocumentFile(d)) for d in documents]
        args = ["merge"] + [str(f) for f in files] + flag_args(flags)
        args += ["-o", os.fspath(output)] if output else []
        result = run(args, **runner)
    if not isinstance(result, Document):
        raise RooflineError(f"`roofline merge` wrote no document (got {type(result).__name__})")
    return result


def sol(operation: str, gpu: Optional[str] = None, **flags: Any) -> Document:
    """``roofline sol OPERATION``: the speed of light of an operation on a
    GPU (``gpu="h200"``, or ``machine=PATH``): the least time its FLOPs and
    compulsory bytes take (``.bound_s``, seconds), the roof that sets it
    (``.bound_by``), and the FLOPs and bytes estimated from its shapes
    (``.useful_flops``, ``.issued_flops``, ``.dram_bytes``). For example
    ``roofline.sol("gemm m=4096 n=4096 k=4096 bf16", gpu="h200")``."""
    flags, runner = _split(dict(flags))
    args = ["sol", operation] + flag_args({"gpu": gpu, **flags})
    return _expect(run(args, **runner), Document, "sol")


def version() -> str:
    """The binary's version (``roofline --version``)."""
    done = _binary.execute(["--version"])
    if done.returncode != 0:
        raise _binary.error_for(done.returncode, ["--version"], done.stderr, done.stdout)
    return done.stdout.strip().split()[-1]


__all__ = ["run", "profile", "import_", "import_capture", "model", "report", "check", "diff", "bench", "peaks",
           "sol", "tour", "timeline", "merge", "version", "flag_args", "Merged"]
