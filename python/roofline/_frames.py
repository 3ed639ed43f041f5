"""pandas tables of the documents: the binary's numbers laid out in rows.

pandas is optional: it is imported only here, when a table is asked for.
Every value is copied from the JSON; nothing is computed. Fields this
module does not name (added by a later binary) still become columns when
they hold a single value.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping

_SCALARS = (str, int, float, bool, type(None))


def require_pandas():
    try:
        import pandas
    except ImportError:
        raise ImportError(
            "to_pandas() needs pandas, which is not installed: `pip install pandas` "
            "(or install this package with `pip install 'roofline[pandas]'`)"
        ) from None
    return pandas


def _extra_scalars(row: Dict[str, Any], obj: Mapping[str, Any], prefix: str = "") -> None:
    for key, value in obj.items():
        name = prefix + key
        if name not in row and isinstance(value, _SCALARS):
            row[name] = value


def flatten(obj: Mapping[str, Any], prefix: str = "") -> Dict[str, Any]:
    """Nested objects become ``outer.inner`` columns; lists stay as they are."""
    row: Dict[str, Any] = {}
    for key, value in obj.items():
        name = prefix + key
        if isinstance(value, Mapping):
            row.update(flatten(value, name + "."))
        else:
            row[name] = value
    return row


def rows_frame(rows: Iterable[Mapping[str, Any]]):
    pd = require_pandas()
    return pd.DataFrame([flatten(r) for r in rows])


def generic_frame(doc):
    """For kinds without their own table: their ``kernels``, else their ``rows``."""
    for key in ("kernels", "rows", "outcomes"):
        value = doc.raw.get(key)
        if isinstance(value, list):
            return rows_frame(value)
    raise TypeError(f"{doc!r} has no list of rows (kernels, rows, outcomes) to turn into a table")


def analysis_frame(analysis):
    pd = require_pandas()
    rows: List[Dict[str, Any]] = []
    levels_seen: List[str] = []
    kinds_seen: List[str] = []
    for entry in analysis.raw.get("kernels", []):
        k = entry.get("kernel", {})
        diagnosis = entry.get("diagnosis") or {}
        limiter = entry.get("limiter")
        if isinstance(limiter, Mapping):
            limiter = limiter.get("which") or limiter.get("type")
        row: Dict[str, Any] = {
            "id": k.get("id"),
            "name": k.get("name"),
            "display_name": k.get("display_name") or k.get("name"),
            "launches": k.get("launches"),
            "duration_s": k.get("duration_s"),
            "time_share": entry.get("time_share"),
            "total_flops": entry.get("total_flops"),
            "achieved_flops_per_s": entry.get("achieved_flops_per_s"),
            "attainable_flops_per_s": entry.get("attainable_flops_per_s"),
            "pct_of_roof": entry.get("pct_of_roof"),
            "bound": entry.get("bound"),
            "limiter": limiter,
            "compute_roof_name": entry.get("compute_roof_name"),
            "compute_roof_flops_per_s": entry.get("compute_roof_flops_per_s"),
            "verdict": diagnosis.get("position", diagnosis.get("code")),
            "next_move": diagnosis.get("next_move"),
            "origin": k.get("origin"),
        }
        for kind, flops in (k.get("flops") or {}).items():
            row[f"flops_{kind}"] = flops
            if kind not in kinds_seen:
                kinds_seen.append(kind)
        for lv in entry.get("levels", []):
            level = lv.get("level")
            if level not in levels_seen:
                levels_seen.append(level)
            for field in ("bytes", "intensity", "attainable_flops_per_s", "achieved_bytes_per_s", "pct_of_bandwidth"):
                if field in lv:
                    row[f"{field}_{level}"] = lv[field]
        _extra_scalars(row, entry)
        _extra_scalars(row, k)
        rows.append(row)
    return pd.DataFrame(rows)


def machine_frame(machine):
    pd = require_pandas()
    from .documents import Roof

    rows = []
    for c in machine.raw.get("ceilings", []):
        roof = Roof(c)
        prov = c.get("provenance") or {}
        clock = c.get("clock") or {}
        row: Dict[str, Any] = {
            "type": roof.type,
            "which": roof.which,
            "name": roof.name,
            "rate": c.get("rate"),
            "unit": roof.unit,
            "origin": prov.get("origin"),
            "confirmed": prov.get("confirmed"),
            "source": prov.get("source"),
            "sm_mhz": clock.get("sm_mhz"),
            "mem_mhz": clock.get("mem_mhz"),
            "clock_basis": clock.get("basis"),
            "secondary": bool(c.get("secondary", False)),
        }
        for key, value in (c.get("spread") or {}).items():
            row[f"spread_{key}"] = value
        _extra_scalars(row, c)
        rows.append(row)
    return pd.DataFrame(rows)


def diff_frame(diff):
    pd = require_pandas()
    rows = []
    for r in diff.raw.get("rows", []):
        row: Dict[str, Any] = {"name": r.get("name"), "kind": r.get("kind")}
        for side in ("before", "after"):
            s = r.get(side)
            if s is None:
                continue
            for key, value in flatten(s).items():
                row[f"{side}_{key}"] = value
        _extra_scalars(row, r)
        rows.append(row)
    return pd.DataFrame(rows)
