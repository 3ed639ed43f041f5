"""The Python API against the binary and its JSON: every documented function.

The numbers the API returns must be the binary's, unchanged: each test
reads the JSON file itself and compares.
"""

from __future__ import annotations

import json
import math
import os
import stat
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

import roofline
from roofline import _binary

from conftest import DATA, FIXTURES, REPO, gpu_missing_reason, ncu_missing_reason, skip_without_gpu

GEMMS = DATA / "ncu_gemms.csv"
SEED000 = DATA / "ncu_seed000.csv"
BUNDLED_MACHINE_V1 = FIXTURES / "tour" / "machine-v1.json"


def raw(path: Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def same(a, b) -> bool:
    """Equal, with NaN equal to NaN and None (pandas' empty cells)."""
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b is None or (isinstance(b, float) and math.isnan(b))
    return a == b


def fake_binary(tmp_path: Path, body: str) -> Path:
    """A stand-in `roofline` (a shell script) to observe what the package passes to it."""
    p = tmp_path / "roofline"
    p.write_text("#!/bin/sh\n" + body + "\n")
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return p


# --- the installed package ---------------------------------------------------


def test_the_package_under_test_is_the_installed_wheel_when_ci_says_so():
    if os.environ.get("ROOFLINE_EXPECT_INSTALLED") != "1":
        pytest.skip("SKIPPED: ROOFLINE_EXPECT_INSTALLED is not 1 (a source-tree run); .ci/run sets it for the wheel")
    assert "site-packages" in roofline.__file__, roofline.__file__
    exe = roofline.binary()
    assert exe.parent == Path(sys.executable).parent, (exe, sys.executable)


def test_the_wheel_carries_the_injection_library_when_the_tree_builds_it():
    if os.environ.get("ROOFLINE_EXPECT_INSTALLED") != "1":
        pytest.skip("SKIPPED: ROOFLINE_EXPECT_INSTALLED is not 1 (a source-tree run); .ci/run sets it for the wheel")
    if not (REPO / "crates" / "inject" / "Cargo.toml").is_file():
        assert roofline.inject_library() is None
        pytest.skip("SKIPPED: this tree has no crates/inject yet; checked that the wheel carries no stale library")
    lib = roofline.inject_library()
    assert lib is not None and lib.stat().st_size > 0, "pip install . did not pack libroofline_inject.so"
    assert lib.read_bytes()[:4] == b"\x7fELF"


def test_binary_and_version():
    exe = roofline.binary()
    assert exe.is_file() and os.access(exe, os.X_OK)
    printed = subprocess.run([str(exe), "--version"], stdout=subprocess.PIPE, text=True, check=True).stdout
    assert printed.strip() == f"roofline {roofline.version()}"


def test_binary_follows_ROOFLINE_BIN(tmp_path, monkeypatch):
    fake = fake_binary(tmp_path, 'echo "fake $*"')
    monkeypatch.setenv("ROOFLINE_BIN", str(fake))
    assert roofline.binary() == fake
    assert roofline.run(["peaks", "--list"]).startswith("fake peaks --list -o ")


def test_a_bad_ROOFLINE_BIN_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_BIN", str(tmp_path / "nothing-here"))
    with pytest.raises(roofline.BinaryNotFoundError) as e:
        roofline.binary()
    assert "ROOFLINE_BIN" in str(e.value) and "nothing-here" in str(e.value)


def test_inject_library_is_passed_to_the_binary(tmp_path, monkeypatch):
    fake = fake_binary(tmp_path, 'echo "lib=$ROOFLINE_INJECT_LIB"')
    monkeypatch.setenv("ROOFLINE_BIN", str(fake))
    monkeypatch.delenv("ROOFLINE_INJECT_LIB", raising=False)
    package = tmp_path / "pkg"
    package.mkdir()
    monkeypatch.setattr(_binary, "_PACKAGE_DIR", package)
    assert roofline.inject_library() is None
    assert roofline.run(["timeline"]).strip() == "lib="
    (package / "libroofline_inject.so").write_bytes(b"\x7fELF")
    assert roofline.inject_library() == package / "libroofline_inject.so"
    assert roofline.run(["timeline"]).strip() == f"lib={package / 'libroofline_inject.so'}"
    # A value the caller set wins.
    monkeypatch.setenv("ROOFLINE_INJECT_LIB", "/elsewhere/lib.so")
    assert roofline.run(["timeline"]).strip() == "lib=/elsewhere/lib.so"


# --- load and the document objects --------------------------------------------


def test_load_analysis_numbers_are_the_json_numbers(tour_analysis):
    a = roofline.load(tour_analysis)
    j = raw(tour_analysis)
    assert isinstance(a, roofline.Analysis)
    assert (a.schema, a.kind, a.version) == ("roofline.analysis/v2", "analysis", 2)
    assert a.path == tour_analysis
    assert a.producer.tool == "roofline"
    assert a.source.kind == j["source"]["kind"]
    assert a.warnings == [w["text"] for w in j["warnings"]]
    assert a.warning_codes == [w["code"] for w in j["warnings"]]
    assert len(a.kernels) == len(j["kernels"]) > 10
    for k, e in zip(a.kernels, j["kernels"]):
        assert (k.id, k.name) == (e["kernel"]["id"], e["kernel"]["name"])
        assert k.display_name == (e["kernel"]["display_name"] or e["kernel"]["name"])
        assert k.flops == e["kernel"]["flops"] and k.bytes == e["kernel"]["bytes"]
        assert k.duration_s == e["kernel"]["duration_s"] and k.launches == e["kernel"]["launches"]
        assert k.time_share == e["time_share"] and k.total_flops == e["total_flops"]
        assert k.pct_of_roof == e["pct_of_roof"]
        assert k.achieved_flops_per_s == e["achieved_flops_per_s"]
        assert k.attainable_flops_per_s == e["attainable_flops_per_s"]
        assert k.compute_roof_flops_per_s == e["compute_roof_flops_per_s"]
        assert k.bound == e["bound"]
        assert k.limiter == (e["limiter"].get("which") or e["limiter"]["type"])
        assert k.verdict == e["diagnosis"]["position"]
        assert [f.code for f in k.diagnosis.evidence] == [f["code"] for f in e["diagnosis"]["evidence"]]
        assert k.evidence_lines == [f["text"] for f in e["diagnosis"]["evidence"]]
        assert k.next_move == "; ".join(m["text"] for m in e["diagnosis"]["next_moves"])
        assert k.evidence.raw == e["kernel"]["evidence"]
        assert [p.level for p in k.points] == [lv["level"] for lv in e["levels"]]
        for p, lv in zip(k.points, e["levels"]):
            assert p.intensity == lv["intensity"]
            assert p.attainable_flops_per_s == lv["attainable_flops_per_s"]
            assert p.achieved_flops_per_s == e["achieved_flops_per_s"]
            assert p.pct_of_bandwidth == lv["pct_of_bandwidth"]
            assert p.bandwidth == lv["bandwidth"] and p.bytes == lv["bytes"]
    # Roofs: every ceiling, in order, with its rate, unit and provenance.
    roofs = a.machine.roofs
    assert a.machine.ceilings == roofs
    assert len(roofs) == len(j["machine"]["ceilings"])
    for r, c in zip(roofs, j["machine"]["ceilings"]):
        assert (r.type, r.which, r.name, r.rate) == (c["resource"]["type"], c["resource"]["which"], c["name"], c["rate"])
        assert r.origin == c["provenance"]["origin"] and r.secondary == c.get("secondary", False)
        assert r.unit == {"compute": "OP/s" if c["resource"]["which"] == "tensor_int8" else "FLOP/s",
                          "memory": "B/s", "link": "B/s",
                          "instruction": "warp instructions/s"}[c["resource"]["type"]]
    assert a.machine.name == j["machine"]["name"]
    assert a.machine.gpu.name == j["machine"]["gpu"]["name"]


def test_kernel_lookup_by_id_name_or_display_name(tour_analysis):
    a = roofline.load(tour_analysis)
    k = a.kernels[2]
    assert a.kernel(k.name) == a.kernel(k.id) == a.kernel(k.display_name) == k
    with pytest.raises(KeyError) as e:
        a.kernel("no_such_kernel")
    assert "no_such_kernel" in str(e.value) and k.name in str(e.value)


def test_fields_added_by_a_later_binary_are_attributes_and_columns(tour_analysis):
    j = raw(tour_analysis)
    j["kernels"][0]["rank"] = 3
    j["kernels"][0]["kernel"]["stream"] = 7
    j["program"] = {"step_s": 0.25}
    a = roofline.from_dict(j)
    assert a.kernels[0].rank == 3 and a.kernels[0].stream == 7
    assert a.program.step_s == 0.25
    assert "rank" in dir(a.kernels[0]) or "rank" in a.kernels[0]
    with pytest.raises(AttributeError) as e:
        a.kernels[0].no_such_field
    assert "no_such_field" in str(e.value) and "time_share" in str(e.value)
    pd = pytest.importorskip("pandas", reason="SKIPPED: pandas is not installed")
    df = a.to_pandas()
    assert df.loc[0, "rank"] == 3 and df.loc[0, "stream"] == 7 and pd.isna(df.loc[1, "rank"])


def test_documents_are_read_only(tour_analysis):
    a = roofline.load(tour_analysis)
    with pytest.raises(AttributeError):
        a.kernels[0].pct_of_roof = 100.0


def test_load_machine_document(tour_dir):
    path = tour_dir / "machine.json"
    m = roofline.load(path)
    j = raw(path)
    assert isinstance(m, roofline.MachineDocument) and m.kind == "machine"
    assert [r.rate for r in m.roofs] == [c["rate"] for c in j["machine"]["ceilings"]]
    assert m.machine.name == j["machine"]["name"] and m.machine.notes == j["machine"]["notes"]


def test_version_1_documents_are_rewritten_by_the_binary():
    m = roofline.load(BUNDLED_MACHINE_V1)
    j = raw(BUNDLED_MACHINE_V1)
    assert j["schema"] == "roofline.machine/v1" and m.schema == "roofline.machine/v2"
    v1_rates = [c["flops_per_s"] for c in j["machine"]["compute"]] + [c["bytes_per_s"] for c in j["machine"]["bandwidth"]]
    # The binary re-reads the numbers; serde_json without `float_roundtrip` may move the last bit.
    assert sorted(r.rate for r in m.roofs) == pytest.approx(sorted(v1_rates), rel=1e-15)
    assert m.measurements is not None and m.producer.raw == j["producer"]
    v1_analysis = FIXTURES / "tour" / "tour-ncu.analysis-v1.json"
    ja = raw(v1_analysis)
    assert ja["schema"] == "roofline.analysis/v1"
    a = roofline.load(v1_analysis)
    assert a.schema == "roofline.analysis/v2"
    assert [k.pct_of_roof for k in a.kernels] == pytest.approx([e.get("pct_of_roof") for e in ja["kernels"]], rel=1e-15)


def test_load_diff_and_check_outputs(tmp_path, tour_analysis):
    d_path, c_path = tmp_path / "diff.json", tmp_path / "check.json"
    subprocess.run([str(roofline.binary()), "diff", str(tour_analysis), str(tour_analysis), "-o", str(d_path)],
                   check=True, stdout=subprocess.DEVNULL)
    d = roofline.load(d_path)
    assert isinstance(d, roofline.Diff) and d.kind == "diff"
    assert [r.name for r in d.rows] == [r["name"] for r in raw(d_path)["rows"]]
    assert d.total.kind == "total"
    with pytest.raises(roofline.RooflineError) as e:
        d.chart()
    assert "both analyses" in str(e.value)
    subprocess.run([str(roofline.binary()), "check", str(tour_analysis), "--min-pct-of-roof", "1", "-o", str(c_path)],
                   check=True, stdout=subprocess.DEVNULL)
    c = roofline.load(c_path)
    assert isinstance(c, roofline.CheckResult) and c.passed is raw(c_path)["passed"]


def test_load_timeline_and_merged_by_schema():
    t = roofline.from_dict({
        "schema": "roofline.timeline/v1", "producer": {"tool": "roofline"},
        "run": {"command": ["./app"], "ended_by": "exit", "exit_code": 0},
        "summary": {"kernel_launches": 3, "kernels": [{"name": "k", "instances": 3, "total_ns": 300}]},
        "timeline": {"activities": []},
    })
    assert isinstance(t, roofline.Timeline)
    assert t.run.ended_by == "exit" and t.summary.kernel_launches == 3
    assert t.kernels[0].total_ns == 300
    # Reprs show values (issue 28, item 7).
    assert repr(t) == "<Timeline: 3 kernel launches of 1 kernels, 0.0003 ms of kernel time, ended by exit (roofline.timeline/v1)>"
    m = roofline.from_dict({"schema": "roofline.merged/v1", "kernels": [{"kernel": {"name": "k"}, "rank": 1}]})
    assert isinstance(m, roofline.Merged) and m.kernels[0].name == "k" and m.kernels[0].rank == 1
    assert repr(m) == "<Merged: 0 ranks, 1 kernels (roofline.merged/v1)>"
    pytest.importorskip("pandas", reason="SKIPPED: pandas is not installed")
    assert t.to_pandas().loc[0, "total_ns"] == 300
    assert m.to_pandas().loc[0, "kernel.name"] == "k"


def test_unknown_kinds_and_newer_versions_warn_but_load():
    with pytest.warns(UserWarning, match="does not know"):
        d = roofline.from_dict({"schema": "roofline.flamegraph/v1", "frames": [1]})
    assert type(d) is roofline.Document and d.frames == [1]
    with pytest.warns(UserWarning, match="newer"):
        a = roofline.from_dict({"schema": "roofline.analysis/v9", "kernels": []})
    assert isinstance(a, roofline.Analysis)


def test_what_is_not_a_document_is_refused_with_the_fix(tmp_path):
    with pytest.raises(roofline.DocumentError) as e:
        roofline.load(tmp_path / "missing.json")
    assert "missing.json" in str(e.value) and "cannot read" in str(e.value)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(roofline.DocumentError, match="not JSON"):
        roofline.load(bad)
    with pytest.raises(roofline.DocumentError, match="no \"schema\" field"):
        roofline.loads('{"a": 1}')
    with pytest.raises(roofline.DocumentError, match="not a roofline document"):
        roofline.loads('{"schema": "something-else"}')
    with pytest.raises(roofline.DocumentError, match="JSON object"):
        roofline.loads("[1, 2]")


def test_loads_and_save_round_trip(tmp_path, tour_analysis):
    a = roofline.loads(tour_analysis.read_text())
    assert a.raw == raw(tour_analysis) and a.path is None
    out = a.save(tmp_path / "copy.json")
    assert raw(out) == raw(tour_analysis)
    assert out.stat().st_mode & 0o044, "saved files are readable as ordinary new files are"
    assert json.loads(a.to_json()) == a.to_dict() == raw(tour_analysis)


# --- pandas ------------------------------------------------------------------


def test_to_pandas_copies_the_numbers(tour_analysis, tour_dir):
    pytest.importorskip("pandas", reason="SKIPPED: pandas is not installed")
    a = roofline.load(tour_analysis)
    df = a.to_pandas()
    j = raw(tour_analysis)
    assert list(df["name"]) == [e["kernel"]["name"] for e in j["kernels"]]
    for i, e in enumerate(j["kernels"]):
        row = df.iloc[i]
        for col, value in [("pct_of_roof", e.get("pct_of_roof")), ("time_share", e["time_share"]),
                           ("duration_s", e["kernel"]["duration_s"]), ("verdict", e["diagnosis"]["position"]),
                           ("attainable_flops_per_s", e["attainable_flops_per_s"])]:
            assert same(value, row[col]), (e["kernel"]["name"], col, value, row[col])
        for lv in e["levels"]:
            assert same(lv["intensity"], row[f"intensity_{lv['level']}"])
            assert same(lv["pct_of_bandwidth"], row[f"pct_of_bandwidth_{lv['level']}"])
        for kind, flops in e["kernel"]["flops"].items():
            assert row[f"flops_{kind}"] == flops
    roofs = roofline.load(tour_dir / "machine.json").to_pandas()
    assert list(roofs["rate"]) == [c["rate"] for c in raw(tour_dir / "machine.json")["machine"]["ceilings"]]
    assert set(roofs["origin"]) >= {"theoretical", "measured"}


def test_to_pandas_without_pandas_says_how_to_get_it(tour_analysis, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError) as e:
        roofline.load(tour_analysis).to_pandas()
    assert "pip install pandas" in str(e.value)


# --- run and the commands -----------------------------------------------------


def test_run_returns_the_document_and_the_binarys_text():
    a = roofline.run(["import", str(GEMMS)])
    assert isinstance(a, roofline.Analysis) and len(a.kernels) == 4
    assert "kernel" in a.text and "% of roof" in a.text  # the binary's table
    assert "4 launch(es) of 4 kernel(s) analysed" in a.stderr
    gpus = roofline.run(["peaks", "--list"])  # JSON that is not a document: plain data
    assert isinstance(gpus, list) and "h200" in {g["key"] for g in gpus}


def test_run_keeps_a_file_the_caller_names(tmp_path):
    out = tmp_path / "gemms.json"
    a = roofline.run(["import", GEMMS, "-o", out])
    assert a.path == out and raw(out) == a.raw


def test_run_bad_usage_raises_with_the_binarys_message_and_exit_code_2(tmp_path):
    with pytest.raises(roofline.RooflineUsageError) as e:
        roofline.run(["import", tmp_path / "nope.csv"])
    assert e.value.exit_code == 2 and "nope.csv" in e.value.message and "ncu --csv --page raw" in e.value.message
    assert isinstance(e.value, ValueError) and isinstance(e.value, roofline.RooflineError)
    with pytest.raises(roofline.RooflineUsageError) as e:
        roofline.run(["no-such-command"])
    assert "unrecognized subcommand" in e.value.message
    with pytest.raises(roofline.RooflineUsageError):
        roofline.run([])


def test_run_failure_exit_1_carries_the_document(tour_analysis):
    with pytest.raises(roofline.RooflineFailure) as e:
        roofline.run(["check", tour_analysis, "--min-pct-of-roof", "99", "--min-time-share", "0"])
    assert e.value.exit_code == 1
    assert isinstance(e.value.document, roofline.CheckResult) and not e.value.document.passed


def test_run_timeout_stops_the_binary_and_its_children(tmp_path, monkeypatch):
    marker = tmp_path / "child-still-running"
    fake = fake_binary(tmp_path, f'(sleep 3; touch "{marker}") & sleep 30')
    monkeypatch.setenv("ROOFLINE_BIN", str(fake))
    started = time.monotonic()
    with pytest.raises(roofline.RooflineFailure, match="timeout"):
        roofline.run(["profile", "--", "x"], timeout=0.5)
    assert time.monotonic() - started < 10
    time.sleep(3.5)
    assert not marker.exists(), "the binary's child outlived the timeout"


def test_run_echo_copies_stderr_as_it_comes(capfd):
    roofline.run(["import", GEMMS], echo=True)
    assert "4 launch(es) of 4 kernel(s) analysed" in capfd.readouterr().err
    roofline.run(["import", GEMMS])
    assert "analysed" not in capfd.readouterr().err


def test_import_and_import_capture():
    a = roofline.import_(GEMMS)
    b = roofline.import_capture(GEMMS, bytes="nersc")
    assert [k.name for k in a.kernels] == [k.name for k in b.kernels]
    assert "NERSC" in b.source.byte_convention
    direct = json.loads(subprocess.run([str(roofline.binary()), "import", str(GEMMS), "--format", "json"],
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout)
    assert [k.pct_of_roof for k in a.kernels] == [e.get("pct_of_roof") for e in direct["kernels"]]
    per_launch = roofline.import_(SEED000, per_launch=True)
    assert len(per_launch.kernels) > len(roofline.import_(SEED000).kernels)


def test_sol_and_a_pytorch_trace():
    s = roofline.sol("gemm m=4096 n=4096 k=4096 bf16", gpu="h200")
    assert s.kind == "sol" and s.useful_flops == 2 * 4096 ** 3
    peak = [r.rate for r in roofline.peaks("h200").roofs if r.resource["which"] == "tensor_bf16"][0]
    assert s.bound_s == pytest.approx(2 * 4096 ** 3 / peak)
    trace = FIXTURES / "external" / "h200-2026-12-01" / "traces" / "vit_infer.trace.json.gz"
    a = roofline.import_(trace)
    assert a.source.kind == "pytorch_trace" and all(k.origin == "estimated" for k in a.kernels)
    c = roofline.import_(trace, with_counters=FIXTURES / "external" / "h200-2026-12-01" / "vit_infer.full.csv")
    assert c.kind == "shapes_vs_counters" and c.matched == c.counter_launches


def test_model():
    a = roofline.model(kernel="saxpy: flops=2 bytes=12 time=1ms", peak="1000 GFLOP/s", bandwidth="100 GB/s")
    k = a.kernel("saxpy")
    assert k.bound == "memory" and k.limiter == "dram"
    assert k.attainable_flops_per_s == pytest.approx(2 / 12 * 100e9)
    seeds = roofline.model(REPO / "examples" / "seeds" / "seed000_t4.toml")
    assert len(seeds.kernels) >= 1 and seeds.machine.name


def test_peaks():
    m = roofline.peaks("h200")
    assert isinstance(m, roofline.MachineDocument)
    direct = json.loads(subprocess.run([str(roofline.binary()), "peaks", "--gpu", "h200", "--format", "json"],
                                       stdout=subprocess.PIPE, check=True).stdout)
    assert [r.rate for r in m.roofs] == [c["rate"] for c in direct["machine"]["ceilings"]]
    assert {r.which for r in m.roofs} >= {"fp32", "fp64", "dram"}
    with pytest.raises(roofline.RooflineUsageError, match="not a GPU the tool knows"):
        roofline.peaks("h2000")


def test_peaks_and_bench_of_the_local_gpu():
    if gpu_missing_reason():
        with pytest.raises(roofline.RooflineFailure) as e:
            roofline.bench(quick=True, echo=False)
        assert e.value.exit_code == 1 and "driver" in e.value.message
        with pytest.raises(roofline.RooflineFailure) as e:
            roofline.peaks()
        assert "no GPU found" in e.value.message
        skip_without_gpu()
    m = roofline.bench(quick=True, echo=False)
    assert isinstance(m, roofline.MachineDocument) and any(r.origin == "measured" for r in m.roofs)


def test_tour(tour_dir):
    a = roofline.tour(tour_dir.parent / "again", bundled=True, echo=False)
    assert isinstance(a, roofline.Analysis) and "report:" in a.text
    assert a.raw["kernels"] == raw(tour_dir / "analysis.json")["kernels"]


def test_report_formats(tmp_path, tour_analysis):
    a = roofline.load(tour_analysis)
    page = roofline.report(a, format="html")
    assert page.lstrip().lower().startswith("<!doctype html") and "<svg" in page
    md = roofline.report(tour_analysis, format="markdown")
    assert md.startswith("#") and "Where the GPU time goes" in md
    assert all(k.display_name in md.replace("\\_", "_") for k in a.kernels)
    svg = roofline.report(a, format="svg", title="My chart")
    assert svg.startswith("<svg") and "My chart" in svg
    out = tmp_path / "r.html"
    assert roofline.report(a, output=out) == out.read_text()
    with pytest.raises(roofline.RooflineUsageError, match="expected one of"):
        roofline.report(a, format="pdf")
    with pytest.raises(roofline.RooflineUsageError, match="width"):
        roofline.report(a, format="svg", width=10)


def test_check(tour_analysis, tmp_path):
    a = roofline.load(tour_analysis)
    ok = roofline.check(a, min_pct_of_roof=1, min_time_share=5)
    assert ok.passed and bool(ok) and not ok.failures
    assert "pass" in ok.text
    strict = roofline.check(tour_analysis, min_pct_of_roof=99, min_time_share=0)
    assert not strict.passed and strict.failures
    assert {f.kernel for f in strict.failures} == {k.display_name for k in a.kernels if (k.pct_of_roof or 0) < 99}
    regress = roofline.check(a, baseline=a, max_regression=0)
    assert regress.passed and any(o.rule == "regression.time" for o in regress.outcomes)
    with pytest.raises(roofline.RooflineUsageError) as e:
        roofline.check(a, config=tmp_path / "none.toml")
    assert "none.toml" in e.value.message
    pytest.importorskip("pandas", reason="SKIPPED: pandas is not installed")
    assert list(strict.to_pandas()["passed"]) == [o["passed"] for o in strict.raw["outcomes"]]


def test_diff(tmp_path):
    before, after = FIXTURES / "recipe" / "before.json", FIXTURES / "recipe" / "after.json"
    d = roofline.diff(before, after, match="scale+add=fused", output=tmp_path / "diff.html")
    assert isinstance(d, roofline.Diff)
    paired = [r for r in d.rows if r.kind == "paired"]
    assert len(paired) == 1 and paired[0].before.kernels == ["scale", "add"] and paired[0].after.kernels == ["fused"]
    jb, ja = raw(before), raw(after)
    dur = {e["kernel"]["name"]: e["kernel"]["duration_s"] for e in jb["kernels"] + ja["kernels"]}
    assert paired[0].before.duration_s == pytest.approx(dur["scale"] + dur["add"])
    assert paired[0].after.duration_s == dur["fused"]
    assert "<svg" in (tmp_path / "diff.html").read_text()
    assert d.chart().startswith("<svg") and "scale" in d.text
    assert "<iframe" in d._repr_html_()
    in_memory = roofline.diff(roofline.load(before), roofline.load(after))
    assert in_memory.chart().startswith("<svg")
    pytest.importorskip("pandas", reason="SKIPPED: pandas is not installed")
    df = d.to_pandas()
    assert list(df["name"]) == [r.name for r in d.rows] and "before_duration_s" in df


def test_profile_without_ncu_names_it(tmp_path):
    with pytest.raises(roofline.RooflineError) as e:
        roofline.profile(["true"], ncu=tmp_path / "no-ncu", echo=False)
    assert "ncu" in e.value.message and e.value.exit_code in (1, 2)


def test_profile_on_the_gpu(tmp_path):
    skip_without_gpu(also_ncu=True)
    a = roofline.profile([str(roofline.binary()), "tour", "--run-examples"], launch_count=3, echo=False,
                         output=tmp_path / "a.json")
    assert isinstance(a, roofline.Analysis) and a.kernels and a.path == tmp_path / "a.json"


def test_timeline_and_merge_reach_the_binary():
    has = {c: roofline.run([c, "--help"]) if _has_command(c) else None for c in ("timeline", "merge")}
    if has["timeline"] is None:
        with pytest.raises(roofline.RooflineUsageError, match="unrecognized subcommand"):
            roofline.timeline(["true"], echo=False)
    elif gpu_missing_reason():
        # A program that never initialises CUDA records nothing: an empty timeline, not an error.
        t = roofline.timeline(["true"], echo=False)
        assert isinstance(t, roofline.Timeline) and t.summary.kernel_launches == 0
    else:
        t = roofline.timeline([sys.executable, "-c", "print(1)"], echo=False)
        assert isinstance(t, roofline.Timeline)
    if has["merge"] is None:
        with pytest.raises(roofline.RooflineUsageError, match="unrecognized subcommand"):
            roofline.merge(GEMMS)
    if has["timeline"] is None or has["merge"] is None:
        pytest.skip("SKIPPED: this binary has no `timeline`/`merge` command yet; only its refusal was checked")


def _has_command(name: str) -> bool:
    done = subprocess.run([str(roofline.binary()), name, "--help"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return done.returncode == 0


# --- notebooks ----------------------------------------------------------------


def test_repr_html_of_an_analysis_is_compact_summary_then_chart(tour_analysis):
    # Views (issue 28), item 5: an analysis displayed as the whole page
    # (about 730 KB) in a 760 px frame, tables first and the chart below.
    a = roofline.load(tour_analysis)
    html = a._repr_html_()
    assert len(html.encode()) < 200_000, len(html)
    assert "<iframe" not in html and "<svg" in html
    assert html.index("Top opportunities") < html.index("<svg")
    assert a.kernels[0].display_name in html
    assert ".html()" in html  # the whole page, a method call away


def test_a_failed_check_prints_its_values(tour_analysis):
    # Views (issue 28), item 7: a CheckResult failure printed field names, no values.
    c = roofline.check(tour_analysis, min_pct_of_roof=99)
    assert not c.passed
    text = repr(c)
    f = c.failures[0]
    assert f.kernel in text and f.rule in text and "limit 99" in text, text
    assert f"value {f.value:.4g}" in text and f"[{f.kernel_id}]" in text, text
    # The numbers come before the detail's words, as in the terminal's table.
    assert text.index("limit 99") < text.index(f.detail), text


EXTERNAL = FIXTURES / "external" / "h200-2026-12-01"


@pytest.fixture(scope="module")
def gpt2_analysis(tmp_path_factory) -> Path:
    """A capture nobody here wrote (GPT-2 training on the H200, 37 kernels), imported once."""
    out = tmp_path_factory.mktemp("gpt2") / "gpt2.json"
    roofline.import_(EXTERNAL / "gpt2_train.full.csv", output=out, quiet=True)
    return out


def test_a_notebook_display_of_an_external_capture_is_under_200_kb_with_the_page_a_call_away(gpt2_analysis):
    # Views (issue 28), item 5, on a capture nobody here wrote: the whole
    # page weighed about 730 KB per display; the compact one is the summary
    # then the chart, and .html() is the page.
    a = roofline.load(gpt2_analysis)
    shown = a._repr_html_()
    assert len(shown.encode()) < roofline.documents.NOTEBOOK_DISPLAY_MAX_BYTES == 200_000, len(shown.encode())
    assert "<iframe" not in shown and "<svg" in shown
    assert shown.index("37 kernels") < shown.index("Top opportunities") < shown.index("<svg")
    page = a.html()
    assert len(page.encode()) > len(shown.encode()) and "<table" in page and "<table" not in shown


def test_pandas_and_the_chart_show_the_display_name_every_view_shows(gpt2_analysis, tmp_path):
    # Views (issue 28), item 1: the same display name in every view, pandas included.
    pytest.importorskip("pandas", reason="SKIPPED: pandas is not installed")
    a = roofline.load(gpt2_analysis)
    j = raw(gpt2_analysis)
    df = a.to_pandas()
    assert list(df["display_name"]) == [e["kernel"]["display_name"] for e in j["kernels"]]
    # The binary's CSV of the same analysis has the same names, in the same order.
    csv_path = tmp_path / "gpt2.csv"
    roofline.report(gpt2_analysis, format="csv", output=csv_path)
    import pandas

    assert list(pandas.read_csv(csv_path)["display_name"]) == list(df["display_name"])
    # The three CUTLASS GEMMs differ only at the end of their names; the
    # frame and the chart keep that end (the chart's labels may be shorter).
    gemms = [n for n in df["display_name"] if n.startswith("Kernel2<")]
    assert sorted(n[-10:] for n in gemms) == ["nn_align1>", "nt_align1>", "tn_align1>"], gemms
    svg = a.chart()
    for tail in ("tn_align1&gt;", "nn_align1&gt;", "nt_align1&gt;"):
        assert tail in svg, tail
    # A failed check names a kernel by that display name, and prints its values.
    c = roofline.check(gpt2_analysis, min_pct_of_roof=60)
    names = set(df["display_name"])
    assert c.failures and all(f.kernel in names for f in c.failures)
    assert f"value {c.failures[0].value:.4g}, limit 60" in repr(c), repr(c)


def test_reprs_show_values_not_only_field_names(gpt2_analysis):
    # Views (issue 28), item 7: a repr printed the field names and no values.
    a = roofline.load(gpt2_analysis)
    k = a.kernels[0]
    lv = k.levels[0]
    text = repr(lv)
    assert f"level={lv.level!r}" in text and f"bytes={lv.bytes:.4g}" in text, text
    assert len(repr(k.diagnosis)) <= roofline.documents.REPR_MAX_CHARS + 20, repr(k.diagnosis)
    assert "evidence=[" in repr(k.diagnosis) and "items]" in repr(k.diagnosis), repr(k.diagnosis)
    d = roofline.diff(gpt2_analysis, gpt2_analysis)
    total_ms = d.total.before.duration_s * 1e3
    assert f"all kernels {total_ms:.4g} ms -> {total_ms:.4g} ms (+0.0% time)" in repr(d), repr(d)
    o = roofline.check(gpt2_analysis, min_pct_of_roof=60).failures[0]
    assert f"value {o.value:.4g}, limit 60 (pct_of_roof)" in repr(o), repr(o)


def test_chart_is_svg_and_markdown_is_the_binarys(tour_analysis):
    a = roofline.load(tour_analysis)
    svg = a.chart()
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert svg == roofline.report(tour_analysis, format="svg")
    assert a.markdown() == roofline.report(tour_analysis, format="markdown")
    assert "Custom" in a.chart(title="Custom")


def test_repr_html_of_what_the_binary_cannot_draw_says_so(tour_dir):
    occ = roofline.run(["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32"])
    html = occ._repr_html_()
    assert "could not draw" in html


def test_run_occupancy_gives_its_document():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        occ = roofline.run(["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32"])
    assert occ.kind == "occupancy" and occ.gpu == "NVIDIA H200"


def test_every_documented_function_has_a_test():
    """Each public function of the package is called by name somewhere in this file."""
    import inspect

    source = Path(__file__).read_text()
    functions = [n for n in roofline.__all__ if inspect.isfunction(getattr(roofline, n))]
    assert len(functions) >= 15
    untested = [n for n in functions if f"roofline.{n}(" not in source]
    assert not untested, f"no test calls {untested}"
    documented = (REPO / "docs" / "python.md").read_text()
    undocumented = [n for n in functions if f"{n}(" not in documented]
    assert not undocumented, f"docs/python.md does not describe {undocumented}"


def test_timeout_s_is_pythons_and_timeout_is_the_binarys(tmp_path, monkeypatch):
    fake = fake_binary(tmp_path, 'echo "$*"; sleep 30')
    monkeypatch.setenv("ROOFLINE_BIN", str(fake))
    started = time.monotonic()
    with pytest.raises(roofline.RooflineFailure, match="timeout") as e:
        roofline.timeline(["./app"], timeout="5m", timeout_s=0.5, echo=False)
    assert time.monotonic() - started < 10
    assert e.value.command[:3] == ["timeline", "--timeout", "5m"]


def test_profile_of_a_program_that_fails_carries_what_was_profiled(tmp_path):
    """A stand-in ncu replays the H200 capture of a program that exited with status 3."""
    ncu = tmp_path / "ncu"
    ncu.write_text(f"""#!/bin/sh
if [ "$1" = "--query-metrics" ]; then exit 1; fi
if [ "$1" = "--import" ]; then cat "$2"; exit 0; fi
printf '%s\\n' "$@" > "{tmp_path / 'args'}"
while [ $# -gt 0 ]; do
  case "$1" in
    --log-file) log="$2"; shift 2;;
    --export) rep="$2"; shift 2;;
    --csv|--nvtx|--force-overwrite) shift;;
    --page|--print-units|--clock-control|--metrics|--nvtx-include|--launch-count) shift 2;;
    *) break;;
  esac
done
grep '^==' "{FIXTURES / 'ncu' / 'h200_seed000_exit3.csv'}" > "$log"
grep -v '^==' "{FIXTURES / 'ncu' / 'h200_seed000_exit3.csv'}" > "$rep"
exit 3
""")
    ncu.chmod(ncu.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(roofline.RooflineFailure) as e:
        roofline.profile(["./app", "--size", "4096"], ncu=ncu, nvtx_include="step 0/", launch_count=5, echo=False)
    assert e.value.exit_code == 1
    assert isinstance(e.value.document, roofline.Analysis) and e.value.document.kernels
    assert any("exited with status 3" in w for w in e.value.document.warnings)
    assert "program_failed" in e.value.document.warning_codes
    args = (tmp_path / "args").read_text().split("\n")
    assert args[args.index("--nvtx-include") + 1] == "step 0/" and args[args.index("--launch-count") + 1] == "5"
    assert args[-4:-1] == ["./app", "--size", "4096"]
