"""The versioned JSON documents the binary writes, as Python objects.

Every object keeps the JSON it came from (``.raw``) and gives attribute
access to its fields, including fields added by later versions of the
binary that this module does not name. The typed properties are the
documented fields (docs/schema.md); their values are the binary's numbers,
copied, never recomputed. Which class a document gets is decided by its
``schema`` string (``roofline.<kind>/v<N>``).

Anything meant for a person (the chart, the summary, English text) is
asked of the binary: :meth:`Document.html`, :meth:`Document.chart`.
"""

from __future__ import annotations

import html as _html
import json
import os
import re
import tempfile
import warnings
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, NamedTuple, Optional, Type, Union

from . import _binary
from ._binary import DocumentError, RooflineError

PathLike = Union[str, "os.PathLike[str]"]

#: The versions of each kind this package was written against.
KNOWN_VERSIONS: Dict[str, int] = {
    "machine": 2, "analysis": 2, "timeline": 1, "diff": 1, "check": 1, "merged": 1, "occupancy": 1,
    "sol": 1, "shapes_vs_counters": 1,
}

_SCHEMA = re.compile(r"^roofline\.([a-z_]+)/v([0-9]+)$")


def _wrap(value: Any) -> Any:
    if isinstance(value, Mapping):
        return Record(value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


class Record:
    """A JSON object with attribute access; ``.raw`` is the dict itself.

    ``rec.field`` returns the field (nested objects as :class:`Record`,
    lists as lists); ``rec["field"]`` and ``rec.get("field")`` return the
    raw value. A missing field raises ``AttributeError`` naming the fields
    there are.
    """

    __slots__ = ("raw",)

    def __init__(self, raw: Mapping[str, Any]) -> None:
        object.__setattr__(self, "raw", raw)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return _wrap(self.raw[name])
        except KeyError:
            raise AttributeError(
                f"{type(self).__name__} has no field {name!r}; its fields: {', '.join(sorted(self.raw))}"
            ) from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only (it mirrors the binary's JSON)")

    def __getitem__(self, key: str) -> Any:
        return self.raw[key]

    def __contains__(self, key: object) -> bool:
        return key in self.raw

    def __iter__(self) -> Iterator[str]:
        return iter(self.raw)

    def __dir__(self) -> List[str]:
        return sorted(set(super().__dir__()) | {k for k in self.raw if k.isidentifier()})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and type(other) is type(self) and other.raw == self.raw

    __hash__ = None  # type: ignore[assignment]

    def get(self, key: str, default: Any = None) -> Any:
        return self.raw.get(key, default)

    def keys(self):
        return self.raw.keys()

    def to_dict(self) -> Dict[str, Any]:
        """A deep copy of the JSON object."""
        return json.loads(json.dumps(self.raw))

    def __repr__(self) -> str:
        # The values, not only the names (issue 28): scalars as they are,
        # nested objects and lists by their size, the whole cut at a line or two.
        fields = ", ".join(f"{k}={_short_value(v)}" for k, v in self.raw.items())
        return f"{type(self).__name__}({_clip(fields, REPR_MAX_CHARS)})"


#: The most a record's repr shows of its fields (then "...").
REPR_MAX_CHARS = 240


def _short_value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, str):
        return repr(_clip(value, 80))
    if isinstance(value, Mapping):
        return f"{{{len(value)} fields}}" if value else "{}"
    if isinstance(value, list):
        return f"[{len(value)} item{'' if len(value) == 1 else 's'}]" if value else "[]"
    return repr(value)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Point(NamedTuple):
    """A kernel's point at one memory level, as the analysis has it."""

    level: str
    #: FLOP per byte moved at this level.
    intensity: Optional[float]
    #: Achieved FLOP/s (the same for every level of a kernel); None without a duration.
    achieved_flops_per_s: Optional[float]
    #: The roof at this intensity: min(compute peak, intensity x bandwidth).
    attainable_flops_per_s: Optional[float]
    bytes: Optional[float]
    #: Bandwidth roof of the level, B/s.
    bandwidth: Optional[float]
    achieved_bytes_per_s: Optional[float]
    pct_of_bandwidth: Optional[float]


#: Unit of a ceiling's ``rate``, by resource (docs/schema.md).
def _rate_unit(resource: Mapping[str, Any]) -> Optional[str]:
    kind, which = resource.get("type"), resource.get("which")
    if kind == "compute":
        return "OP/s" if which == "tensor_int8" else "FLOP/s"
    if kind in ("memory", "link"):
        return "B/s"
    if kind == "instruction":
        return "warp instructions/s"
    return None


class Roof(Record):
    """One ceiling of a machine: a compute peak, a bandwidth, an instruction pipe."""

    __slots__ = ()

    @property
    def type(self) -> Optional[str]:
        """``compute``, ``memory`` or ``instruction``."""
        return self.raw.get("resource", {}).get("type")

    @property
    def which(self) -> Optional[str]:
        """``fp32``, ``tensor_bf16``, ``dram``, ``l2``, ``fma``, ..."""
        return self.raw.get("resource", {}).get("which")

    @property
    def name(self) -> str:
        return self.raw.get("name", "")

    @property
    def rate(self) -> float:
        """FLOP/s, OP/s (INT8 tensor), B/s or warp instructions/s: see :attr:`unit`."""
        return self.raw["rate"]

    @property
    def unit(self) -> Optional[str]:
        return _rate_unit(self.raw.get("resource", {}))

    @property
    def origin(self) -> Optional[str]:
        """``theoretical``, ``measured``, ``counter``, ``user`` or ``derived``."""
        return self.raw.get("provenance", {}).get("origin")

    @property
    def secondary(self) -> bool:
        """Drawn but never judged against (for example "FP32 (no FMA)")."""
        return bool(self.raw.get("secondary", False))

    def __repr__(self) -> str:
        return f"Roof({self.name!r}, {self.rate:.4g} {self.unit or ''}, {self.origin})"


class Machine(Record):
    """A machine: its name, GPU facts and roofs (``machine`` in a document)."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return self.raw.get("name", "")

    @property
    def gpu(self) -> Optional[Record]:
        g = self.raw.get("gpu")
        return None if g is None else Record(g)

    @property
    def roofs(self) -> List[Roof]:
        """Every ceiling (``ceilings`` in the JSON), in the document's order."""
        return [Roof(c) for c in self.raw.get("ceilings", [])]

    ceilings = roofs

    @property
    def notes(self) -> List[str]:
        return list(self.raw.get("notes", []))

    def to_pandas(self):
        """One row per roof: resource, name, rate and unit, provenance, clock, spread."""
        from ._frames import machine_frame

        return machine_frame(self)

    def __repr__(self) -> str:
        return f"Machine({self.name!r}, {len(self.raw.get('ceilings', []))} roofs)"


class Kernel(Record):
    """One kernel of an analysis: its point(s), roof, verdict and evidence.

    Fields of the entry (``time_share``, ``pct_of_roof``, ``levels``, ...)
    and of its ``kernel`` object (``name``, ``flops``, ``bytes``, ...) are
    both attributes.
    """

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name in self.raw:
            return _wrap(self.raw[name])
        inner = self.raw.get("kernel", {})
        if name in inner:
            return _wrap(inner[name])
        raise AttributeError(
            f"Kernel has no field {name!r}; its fields: {', '.join(sorted(set(self.raw) | set(inner)))}"
        )

    def _k(self, key: str, default: Any = None) -> Any:
        return self.raw.get("kernel", {}).get(key, default)

    @property
    def id(self) -> str:
        return self._k("id", "")

    @property
    def name(self) -> str:
        return self._k("name", "")

    @property
    def display_name(self) -> str:
        return self._k("display_name") or self.name

    @property
    def flops(self) -> Dict[str, float]:
        """FLOP per kind (``fp32``, ``tensor_bf16``, ...)."""
        return dict(self._k("flops", {}))

    @property
    def bytes(self) -> Dict[str, float]:
        """Bytes per memory level (``dram``, ``l2``, ``l1``)."""
        return dict(self._k("bytes", {}))

    @property
    def duration_s(self) -> Optional[float]:
        return self._k("duration_s")

    @property
    def launches(self) -> Optional[int]:
        return self._k("launches")

    @property
    def evidence(self) -> Optional[Record]:
        """The counters behind the verdict (throughputs, occupancy, stalls...), when measured."""
        e = self._k("evidence")
        return None if e is None else Record(e)

    @property
    def time_share(self) -> Optional[float]:
        """Fraction (0..1) of the summed duration of all kernels."""
        return self.raw.get("time_share")

    @property
    def pct_of_roof(self) -> Optional[float]:
        return self.raw.get("pct_of_roof")

    @property
    def achieved_flops_per_s(self) -> Optional[float]:
        return self.raw.get("achieved_flops_per_s")

    @property
    def attainable_flops_per_s(self) -> Optional[float]:
        return self.raw.get("attainable_flops_per_s")

    @property
    def bound(self) -> Optional[str]:
        """``memory`` or ``compute``."""
        return self.raw.get("bound")

    @property
    def limiter(self) -> Optional[str]:
        """The roof that binds: a memory level (``dram``, ``l2``, ``l1``) or ``compute``."""
        lim = self.raw.get("limiter")
        if not isinstance(lim, Mapping):
            return lim
        return lim.get("which") or lim.get("type")

    @property
    def levels(self) -> List[Record]:
        return [Record(lv) for lv in self.raw.get("levels", [])]

    @property
    def points(self) -> List[Point]:
        """One point per memory level the kernel touched (x: intensity, y: achieved FLOP/s)."""
        achieved = self.raw.get("achieved_flops_per_s")
        return [
            Point(
                level=lv.get("level", ""),
                intensity=lv.get("intensity"),
                achieved_flops_per_s=achieved,
                attainable_flops_per_s=lv.get("attainable_flops_per_s"),
                bytes=lv.get("bytes"),
                bandwidth=lv.get("bandwidth"),
                achieved_bytes_per_s=lv.get("achieved_bytes_per_s"),
                pct_of_bandwidth=lv.get("pct_of_bandwidth"),
            )
            for lv in self.raw.get("levels", [])
        ]

    @property
    def diagnosis(self) -> Optional[Record]:
        """The verdict as the JSON has it (``position``, ``evidence[]`` and ``next_moves[]``: codes with their numbers and ``text``)."""
        d = self.raw.get("diagnosis")
        return None if d is None else Record(d)

    @property
    def evidence_lines(self) -> List[str]:
        """The diagnosis's evidence in English, one fact per entry (as every view prints it)."""
        d = self.raw.get("diagnosis") or {}
        return [e.get("text", e.get("code", "")) if isinstance(e, dict) else e for e in d.get("evidence", [])]

    @property
    def next_move(self) -> Optional[str]:
        """What to try next, in English (the moves joined by "; ")."""
        d = self.raw.get("diagnosis")
        if d is None:
            return None
        if "next_moves" in d:
            return "; ".join(m.get("text", m.get("code", "")) if isinstance(m, dict) else m for m in d["next_moves"])
        return d.get("next_move")

    @property
    def verdict(self) -> Optional[str]:
        """The verdict's code: ``on_diagonal``, ``under_diagonal``, ``on_roof``,
        ``under_flat_roof``, ``latency_bound`` (``diagnosis.position``)."""
        d = self.raw.get("diagnosis") or {}
        return d.get("position", d.get("code"))

    def __repr__(self) -> str:
        pct = self.pct_of_roof
        return f"Kernel({self.display_name!r}, {self.verdict}, {'-' if pct is None else f'{pct:.3g}'}% of roof)"


class Document(Record):
    """Any roofline document. Subclasses name the fields of their kind.

    ``path`` is the file it was read from (``None`` when it came from a
    command's output); ``text`` is the binary's terminal rendering when it
    came from a command (``roofline.run``), ``stderr`` what it printed
    there.
    """

    __slots__ = ("path", "text", "stderr")

    def __init__(self, raw: Mapping[str, Any], path: Optional[Path] = None, text: str = "", stderr: str = "") -> None:
        super().__init__(raw)
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "stderr", stderr)

    @property
    def schema(self) -> str:
        return self.raw.get("schema", "")

    @property
    def kind(self) -> str:
        """``analysis``, ``machine``, ``timeline``, ``diff``, ``check``, ``merged``..."""
        m = _SCHEMA.match(self.schema)
        return m.group(1) if m else _KIND_OF.get(type(self), "")

    @property
    def version(self) -> Optional[int]:
        m = _SCHEMA.match(self.schema)
        return int(m.group(2)) if m else None

    @property
    def producer(self) -> Optional[Record]:
        p = self.raw.get("producer")
        return None if p is None else Record(p)

    def to_json(self, indent: Optional[int] = 2) -> str:
        return json.dumps(self.raw, indent=indent) + "\n"

    def save(self, path: PathLike) -> Path:
        """Writes the JSON to ``path`` (whole or not at all); returns the path."""
        path = Path(path)
        fd, tmp = tempfile.mkstemp(prefix=".roofline-", suffix=".json", dir=path.parent if str(path.parent) else ".")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(self.to_json())
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # as an ordinary new file, not mkstemp's 0600
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        return path

    def to_pandas(self):
        """A table of this document's rows (kernels, roofs...) as a pandas DataFrame."""
        from ._frames import generic_frame

        return generic_frame(self)

    # Rendering: the binary draws, Python only shows what it drew.

    def _render_args(self, tmp: Path, out: Path) -> List[str]:
        """The command that draws this document into ``out`` (inputs written under ``tmp``)."""
        src = tmp / "document.json"
        src.write_text(self.to_json(), encoding="utf-8")
        return ["report", str(src), "-o", str(out), "--quiet"]

    def _render(self, suffix: str, **flags: Any) -> str:
        from .commands import flag_args

        with tempfile.TemporaryDirectory(prefix="roofline-") as d:
            out = Path(d) / f"render{suffix}"
            args = self._render_args(Path(d), out) + flag_args(flags)
            done = _binary.execute(args)
            if done.returncode != 0:
                raise _binary.error_for(done.returncode, args, done.stderr, done.stdout)
            return out.read_text(encoding="utf-8")

    def html(self, **flags: Any) -> str:
        """The binary's self-contained HTML page for this document (chart with
        hover details, sortable table, roofs). ``flags`` go to the command
        (``title="..."``, ``width=1200``)."""
        return self._render(".html", **flags)

    def chart(self, **flags: Any) -> str:
        """The roofline chart as SVG text, drawn by the binary."""
        return self._render(".svg", **flags)

    def markdown(self, **flags: Any) -> str:
        """The binary's Markdown summary (tables, roofs, notes)."""
        return self._render(".md", **flags)

    def _repr_html_(self) -> str:
        """Jupyter: the binary's interactive page in a sandboxed frame."""
        try:
            page = self.html()
        except RooflineError as e:
            return (
                f"<pre>{_html.escape(repr(self))}</pre>"
                f"<p><i>roofline could not draw this document: {_html.escape(e.message)}</i></p>"
            )
        return (
            '<iframe style="width:100%;height:760px;border:1px solid #ddd" '
            f'sandbox="allow-scripts" srcdoc="{_html.escape(page, quote=True)}"></iframe>'
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.schema or '(no schema)'}{'' if self.path is None else f' from {self.path}'}>"


#: The most a notebook display of an analysis may weigh (the chart and the
#: summary); the whole page is ``.html()``.
NOTEBOOK_DISPLAY_MAX_BYTES = 200_000


class MachineDocument(Document):
    """``roofline.machine/v2``: roofs from ``peaks`` or ``bench``."""

    __slots__ = ()

    @property
    def machine(self) -> Machine:
        return Machine(self.raw.get("machine", {}))

    @property
    def roofs(self) -> List[Roof]:
        return self.machine.roofs

    @property
    def measurements(self) -> Any:
        return _wrap(self.raw.get("measurements"))

    def to_pandas(self):
        return self.machine.to_pandas()

    def __repr__(self) -> str:
        return f"<MachineDocument {self.machine.name!r}: {len(self.roofs)} roofs ({self.schema})>"


class Analysis(Document):
    """``roofline.analysis/v2``: kernels placed under a machine's roofs, with verdicts."""

    __slots__ = ()

    @property
    def machine(self) -> Machine:
        return Machine(self.raw.get("machine", {}))

    def _repr_html_(self) -> str:
        """Jupyter: compact, the summary then the chart (SVG drawn by the
        binary), under NOTEBOOK_DISPLAY_MAX_BYTES; ``.html()`` is the whole
        interactive page, ``.markdown()`` the tables."""
        try:
            svg = self.chart()
        except RooflineError as e:
            return (
                f"<pre>{_html.escape(repr(self))}</pre>"
                f"<p><i>roofline could not draw this document: {_html.escape(e.message)}</i></p>"
            )
        esc = _html.escape
        lines = [f"<b>{esc(self.machine.name or 'analysis')}</b>: {len(self.raw.get('kernels', []))} kernels"]
        program = self.raw.get("program") or {}
        if program.get("total_s"):
            lines[0] += f", GPU time {program['total_s'] * 1e3:.4g} ms"
        rows = []
        names = {k.get("kernel", {}).get("id"): k.get("kernel", {}).get("display_name") for k in self.raw.get("kernels", [])}
        for o in (program.get("opportunities") or [])[:3]:
            name = o.get("name") or names.get(o.get("kernel")) or o.get("kernel", "")
            saves = o.get("saved_s")
            rows.append(
                f"<li>{esc(str(name))}"
                + (f": could save {saves * 1e6:.4g} us" if isinstance(saves, (int, float)) else "")
                + "</li>"
            )
        summary = f"<p>{lines[0]}</p>" + (f"<p>Top opportunities:</p><ol>{''.join(rows)}</ol>" if rows else "")
        hint = "<p><small>The whole page: <code>.html()</code>; tables: <code>.to_pandas()</code>.</small></p>"
        if len(svg) + len(summary) > NOTEBOOK_DISPLAY_MAX_BYTES:
            svg = "<p><i>(the chart is larger than a notebook display: <code>.html()</code> has it)</i></p>"
        # Scaled to the cell, at most a screen tall.
        svg = svg.replace("<svg ", '<svg style="width:100%;height:auto;max-height:640px" ', 1)
        return f'<div class="roofline-analysis" style="max-width:980px">{summary}<div>{svg}</div>{hint}</div>'

    @property
    def source(self) -> Optional[Record]:
        s = self.raw.get("source")
        return None if s is None else Record(s)

    @property
    def kernels(self) -> List[Kernel]:
        return [Kernel(k) for k in self.raw.get("kernels", [])]

    @property
    def warnings(self) -> List[str]:
        """Each warning in English (its ``text``); older files hold the sentence itself."""
        return [w.get("text", w.get("code", "")) if isinstance(w, dict) else w for w in self.raw.get("warnings", [])]

    @property
    def warning_codes(self) -> List[str]:
        """Each warning's code (``missing_metrics``, ``program_failed``...): what tests should match."""
        return [w.get("code", "legacy") if isinstance(w, dict) else "legacy" for w in self.raw.get("warnings", [])]

    def kernel(self, name: str) -> Kernel:
        """The kernel with this id, name or display name (exactly)."""
        for k in self.kernels:
            if name in (k.id, k.name, k.display_name):
                return k
        names = ", ".join(k.display_name for k in self.kernels)
        raise KeyError(f"no kernel {name!r} in this analysis; its kernels: {names}")

    def to_pandas(self):
        """One row per kernel: identity, time, FLOPs and bytes, intensity and
        % of bandwidth per level, roof, % of roof, verdict, next move."""
        from ._frames import analysis_frame

        return analysis_frame(self)

    def __repr__(self) -> str:
        return f"<Analysis: {len(self.raw.get('kernels', []))} kernels on {self.machine.name!r} ({self.schema})>"


class Diff(Document):
    """Before/after per kernel (``roofline diff``): one row per kernel or pairing, then the total.

    ``before`` and ``after`` are the two analyses when the diff came from
    :func:`roofline.diff` (then it draws itself); ``None`` when it was read
    from a JSON file alone.
    """

    __slots__ = ("before", "after", "_flags")

    def __init__(self, raw: Mapping[str, Any], path: Optional[Path] = None, text: str = "", stderr: str = "",
                 inputs: Optional[tuple] = None) -> None:
        super().__init__(raw, path, text, stderr)
        before, after, flags = inputs if inputs is not None else (None, None, [])
        object.__setattr__(self, "before", before)
        object.__setattr__(self, "after", after)
        object.__setattr__(self, "_flags", list(flags))

    @property
    def rows(self) -> List[Record]:
        return [Record(r) for r in self.raw.get("rows", [])]

    @property
    def total(self) -> Optional[Record]:
        """The row comparing all kernels together."""
        for r in self.raw.get("rows", []):
            if r.get("kind") == "total":
                return Record(r)
        return None

    @property
    def notes(self) -> List[str]:
        return list(self.raw.get("notes", []))

    def to_pandas(self):
        """One row per diff row; ``before_*`` and ``after_*`` columns."""
        from ._frames import diff_frame

        return diff_frame(self)

    def _render_args(self, tmp: Path, out: Path) -> List[str]:
        if self.before is None or self.after is None:
            raise RooflineError(
                "a diff read from JSON alone cannot be drawn: the chart needs both analyses; "
                "use roofline.diff(before, after) to get one that can"
            )
        b, a = self.before.save(tmp / "before.json"), self.after.save(tmp / "after.json")
        return ["diff", str(b), str(a)] + self._flags + ["-o", str(out), "--quiet"]

    def __repr__(self) -> str:
        n = len(self.raw.get("rows", []))
        total = self.total
        before = (total.raw.get("before") or {}).get("duration_s") if total is not None else None
        after = (total.raw.get("after") or {}).get("duration_s") if total is not None else None
        if isinstance(before, (int, float)) and isinstance(after, (int, float)) and before > 0:
            change = (after - before) / before * 100
            return f"<Diff: {n} rows; all kernels {before * 1e3:.4g} ms -> {after * 1e3:.4g} ms ({change:+.1f}% time)>"
        return f"<Diff: {n} rows>"


class CheckResult(Document):
    """The outcome of ``roofline check``: each rule on each kernel, passed or not."""

    __slots__ = ()

    @property
    def passed(self) -> bool:
        return bool(self.raw.get("passed"))

    @property
    def outcomes(self) -> List["Outcome"]:
        return [Outcome(o) for o in self.raw.get("outcomes", [])]

    @property
    def failures(self) -> List["Outcome"]:
        return [o for o in self.outcomes if not o.get("passed")]

    @property
    def notes(self) -> List[str]:
        return list(self.raw.get("notes", []))

    def __bool__(self) -> bool:
        return self.passed

    def to_pandas(self):
        from ._frames import rows_frame

        return rows_frame(self.raw.get("outcomes", []))

    def _render_args(self, tmp: Path, out: Path) -> List[str]:
        raise RooflineError("a check result has no chart; its text is .text (the binary's table)")

    def __repr__(self) -> str:
        n = len(self.raw.get("outcomes", []))
        if self.passed:
            return f"<CheckResult: passed, {n} rule(s) held>"
        fails = self.failures
        shown = "".join(f"\n  {o!r}" for o in fails[:5])
        more = f"\n  ... and {len(fails) - 5} more" if len(fails) > 5 else ""
        return f"<CheckResult: {len(fails)} of {n} failed:{shown}{more}>"


class Outcome(Record):
    """One rule on one kernel (``roofline.check/v1``): ``rule``, ``kernel``,
    ``kernel_id``, ``passed``, ``value`` and ``limit`` in ``unit``, ``detail``."""

    __slots__ = ()

    def __repr__(self) -> str:
        r = self.raw
        kernel = r.get("kernel", "")
        if r.get("kernel_id"):
            kernel = f"{kernel} [{r['kernel_id']}]"
        # The rule, the kernel, then its value and limit, whatever the detail's length.
        numbers = ""
        if r.get("value") is not None or r.get("limit") is not None:
            value = "-" if r.get("value") is None else f"{r['value']:.4g}"
            limit = "-" if r.get("limit") is None else f"{r['limit']:.4g}"
            numbers = f" value {value}, limit {limit} ({r.get('unit', '')});"
        verdict = "pass" if r.get("passed") else "FAIL"
        return f"Outcome({verdict} {r.get('rule', '')} {kernel}:{numbers} {r.get('detail', '')})"


class Timeline(Document):
    """``roofline.timeline/v1``: what ran on the GPU during a program's own run (CUPTI)."""

    __slots__ = ()

    @property
    def run(self) -> Optional[Record]:
        r = self.raw.get("run")
        return None if r is None else Record(r)

    @property
    def summary(self) -> Optional[Record]:
        s = self.raw.get("summary")
        return None if s is None else Record(s)

    @property
    def kernels(self) -> List[Record]:
        """Per kernel name: launches and time, as the summary has them."""
        return [Record(r) for r in (self.raw.get("summary") or {}).get("kernels", [])]

    @property
    def timeline(self) -> Optional[Record]:
        t = self.raw.get("timeline")
        return None if t is None else Record(t)

    def to_pandas(self):
        """The summary's per-kernel rows."""
        from ._frames import rows_frame

        return rows_frame((self.raw.get("summary") or {}).get("kernels", []))

    def __repr__(self) -> str:
        summary = self.raw.get("summary") or {}
        kernels = summary.get("kernels") or []
        gpu_ns = sum(k.get("total_ns") or 0 for k in kernels if isinstance(k, Mapping))
        run = self.raw.get("run") or {}
        ended = f", ended by {run['ended_by']}" if run.get("ended_by") else ""
        return (
            f"<Timeline: {summary.get('kernel_launches', 0)} kernel launches of {len(kernels)} kernels, "
            f"{gpu_ns / 1e6:.4g} ms of kernel time{ended} ({self.schema or 'no schema'})>"
        )


class Merged(Document):
    """A document merged from several ranks (``roofline merge``)."""

    __slots__ = ()

    @property
    def kernels(self) -> List[Kernel]:
        return [Kernel(k) for k in self.raw.get("kernels", [])]

    @property
    def machine(self) -> Optional[Machine]:
        m = self.raw.get("machine")
        return None if m is None else Machine(m)

    def __repr__(self) -> str:
        return (
            f"<Merged: {len(self.raw.get('ranks', []))} ranks, {len(self.raw.get('kernels', []))} kernels"
            f" ({self.schema or 'no schema'})>"
        )


_CLASSES: Dict[str, Type[Document]] = {
    "machine": MachineDocument,
    "analysis": Analysis,
    "diff": Diff,
    "check": CheckResult,
    "timeline": Timeline,
    "merged": Merged,
    "merge": Merged,
    # Kinds with no fields of their own here: every field is still an attribute.
    "occupancy": Document,  # `roofline occupancy -o`
    "tour": Document,  # `roofline tour -o`: banner, machine, analysis, method, files
    "sol": Document,  # `roofline sol`: bound_s, bound_by, useful_flops, dram_bytes, terms
    "shapes_vs_counters": Document,  # `roofline import TRACE --with-counters CSV`: classes, kernels
}
_KIND_OF = {MachineDocument: "machine", Analysis: "analysis", Diff: "diff", CheckResult: "check",
            Timeline: "timeline", Merged: "merged"}


def _untagged_kind(raw: Mapping[str, Any]) -> Optional[str]:
    """The kind of the binary's schema-less outputs (`diff` and `check` JSON)."""
    if "rows" in raw and isinstance(raw.get("rows"), list):
        return "diff"
    if "outcomes" in raw and "passed" in raw:
        return "check"
    return None


def from_dict(raw: Mapping[str, Any], *, path: Optional[Path] = None, text: str = "", stderr: str = "",
              input: str = "document") -> Document:
    """The document object for a parsed JSON document, chosen by its ``schema``.

    A kind this package does not know yet gives a plain :class:`Document`
    (every field still an attribute) and a warning; a newer version of a
    known kind gives its class and a warning that fields may differ.
    """
    if not isinstance(raw, Mapping):
        raise DocumentError(f"{input}: expected a JSON object (a roofline document), found {type(raw).__name__}")
    schema = raw.get("schema")
    if schema is None:
        kind = _untagged_kind(raw)
        if kind is None:
            raise DocumentError(
                f"{input}: not a roofline document (no \"schema\" field); expected one written by the "
                "roofline binary with --format json or -o FILE.json (roofline.analysis/v2, roofline.machine/v2, ...)"
            )
        return _CLASSES[kind](raw, path=path, text=text, stderr=stderr)
    m = _SCHEMA.match(str(schema))
    if not m:
        raise DocumentError(f"{input}: schema {schema!r} is not a roofline document (expected roofline.<kind>/v<N>)")
    kind, version = m.group(1), int(m.group(2))
    cls = _CLASSES.get(kind)
    if cls is None:
        warnings.warn(f"{input}: {schema} is a kind this Python package does not know; read as a plain Document",
                      stacklevel=3)
        return Document(raw, path=path, text=text, stderr=stderr)
    known = KNOWN_VERSIONS.get(kind)
    if known is not None and version > known:
        warnings.warn(
            f"{input}: {schema} is newer than the {kind} v{known} this package knows; fields may differ "
            "(upgrade the roofline package)",
            stacklevel=3,
        )
    return cls(raw, path=path, text=text, stderr=stderr)


def _binary_json(args: List[str], out: Path) -> Dict[str, Any]:
    done = _binary.execute(args + ["-o", str(out), "--quiet"])
    if done.returncode != 0:
        raise _binary.error_for(done.returncode, args, done.stderr, done.stdout)
    return json.loads(out.read_text(encoding="utf-8"))


def _upgrade(raw: Dict[str, Any], path: Path) -> Dict[str, Any]:
    """Older versions that the binary still reads are rewritten by the binary, not here.

    An analysis goes through ``roofline report FILE -o x.json``. A machine
    has no such command yet: it is read as ``model --machine FILE`` reads it
    (one placeholder kernel), and the machine the binary wrote back is kept,
    with the file's own producer and measurements.
    """
    schema = raw.get("schema")
    with tempfile.TemporaryDirectory(prefix="roofline-") as d:
        out = Path(d) / "upgraded.json"
        if schema == "roofline.analysis/v1":
            return _binary_json(["report", str(path)], out)
        if schema == "roofline.machine/v1":
            analysis = _binary_json(
                ["model", "--machine", str(path), "--kernel", "upgrade: flops=1 bytes=1", "--format", "json"], out
            )
            upgraded = dict(raw)
            upgraded["schema"] = "roofline.machine/v2"
            upgraded["machine"] = analysis["machine"]
            return upgraded
    return raw


def loads(text: str, *, input: str = "<string>") -> Document:
    """The document in a JSON string (see :func:`load`)."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise DocumentError(f"{input}: not JSON ({e}); expected a roofline document") from None
    return from_dict(raw, input=input)


def load(path: PathLike) -> Document:
    """Reads a roofline document: an :class:`Analysis`, :class:`MachineDocument`,
    :class:`Timeline`, :class:`Diff`, :class:`CheckResult` or :class:`Merged`,
    chosen by its ``schema``. Version 1 analyses and machines (which the
    binary still reads) are rewritten to version 2 by the binary."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise DocumentError(f"{path}: cannot read it ({e.strerror or e}); expected a roofline JSON document") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise DocumentError(
            f"{path}: not JSON ({e}); expected a roofline document (write one with --format json or -o FILE.json)"
        ) from None
    if isinstance(raw, dict):
        raw = _upgrade(raw, path)
    return from_dict(raw, path=path, input=str(path))
