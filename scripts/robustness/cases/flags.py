"""Hostile values for every value flag, `model -k` specs, rates, GPU names,
environments (COLUMNS, TMPDIR, locale, launcher variables), argument soup
and bytes that are not UTF-8: a usage error is exit 2 with a message, a
non-finite number is never taken as a threshold or a rate."""

from harness import Case
from ._util import ANY, E02, E12, E2, pick, slug

NAME = "flags"
ABOUT = "hostile flag values, kernel specs, rates, environments and argv bytes"

VALUES = ["", " ", "NaN", "nan", "inf", "-inf", "Infinity", "1e308", "1e309", "-0", "4.9e-324", "1e-320", "-1", "0",
          "1.5", "18446744073709551616", "99999999999999999999999", "4294967296", "-2147483649", "0x10", "1_000",
          "1e", "abc", "\u0663", "\uff11", "\u202e12", "5 %", "50%", "1 ms", "1e400 ms", "NaN ms", "-5s", "1e9h",
          "%n%s", "{rank}", "../../etc/passwd", "/dev/zero", "-", "=", "x" * 5000]
NOT_UTF8 = [b"\xff\xfe", b"a\x80b"]
# flags that take a name or a path get the values that matter to text
TEXT_VALUES = ["", " ", "NaN", "-1", "18446744073709551616", "0x10", "abc", "\u0663", "\u202e12", "{rank}",
               "../../etc/passwd", "/dev/zero", "-", "=", "x" * 5000] + NOT_UTF8
NONFINITE = {"NaN", "nan", "inf", "-inf", "Infinity", "1e309", "abc", "", " ", "x" * 5000}

A = "{M}/a.json"
PROG = ["--", "{M}/prog/true.sh"]
# name -> (argv before the flag, the flag, argv after its value, numeric: a non-finite value must be refused)
FLAGS = {
    "check-min-pct": (["check", A], "--min-pct-of-roof", [], True),
    "check-min-share": (["check", A, "--min-pct-of-roof", "10"], "--min-time-share", [], True),
    "check-max-regression": (["check", A, "--baseline", "{M}/b.json"], "--max-regression", [], True),
    "check-kernel": (["check", A], "--kernel", [], False),
    "check-baseline": (["check", A, "--max-regression", "10"], "--baseline", [], False),
    "check-config": (["check", A], "--config", [], False),
    "report-width": (["report", A, "--format", "markdown"], "--width", [], True),
    "report-title": (["report", A, "--format", "html"], "--title", [], False),
    "report-view": (["report", A, "--format", "chart"], "--view", [], False),
    "report-svg": (["report", A, "--format", "json"], "--svg", [], False),
    "occ-threads": (["occupancy", "--gpu", "h200", "--regs", "32"], "--threads", [], True),
    "occ-regs": (["occupancy", "--gpu", "h200", "--threads", "256"], "--regs", [], True),
    "occ-smem-static": (["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32"], "--smem-static", [], True),
    "occ-smem-dynamic": (["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32"], "--smem-dynamic", [], True),
    "occ-carveout": (["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32"], "--carveout", [], True),
    "occ-barriers": (["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32"], "--barriers", [], True),
    "occ-cc": (["occupancy", "--threads", "256", "--regs", "32"], "--cc", [], False),
    "occ-sweep": (["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32"], "--sweep", [], False),
    "occ-gpu": (["occupancy", "--threads", "256", "--regs", "32"], "--gpu", [], False),
    "model-peak": (["model", "--bandwidth", "100 GB/s", "-k", "k: flops=1 bytes=1"], "--peak", [], True),
    "model-bandwidth": (["model", "--peak", "1 TFLOP/s", "-k", "k: flops=1 bytes=1"], "--bandwidth", [], True),
    "model-peak-kind": (["model", "--gpu", "h200", "-k", "k: flops=1 bytes=1"], "--peak-kind", [], False),
    "model-gpu": (["model", "-k", "k: flops=1e9 bytes=1e9 time=1ms"], "--gpu", [], False),
    "model-machine": (["model", "-k", "k: flops=1e9 bytes=1e9 time=1ms"], "--machine", [], False),
    "model-kernel": (["model", "--gpu", "h200"], "-k", [], False),
    "peaks-gpu": (["peaks"], "--gpu", [], False),
    "peaks-device": (["peaks"], "--device", [], True),
    "import-peak": (["import", "{M}/seed.csv", "--bandwidth", "1 TB/s"], "--peak", [], True),
    "import-bandwidth": (["import", "{M}/seed.csv", "--peak", "1 TFLOP/s"], "--bandwidth", [], True),
    "import-peak-kind": (["import", "{M}/seed.csv", "--peak", "1 TFLOP/s", "--bandwidth", "1 TB/s"], "--peak-kind", [], False),
    "import-gpu": (["import", "{M}/seed.csv"], "--gpu", [], False),
    "import-machine": (["import", "{M}/seed.csv"], "--machine", [], False),
    "import-view": (["import", "{M}/seed.csv"], "--view", [], False),
    "import-bytes": (["import", "{M}/seed.csv"], "--bytes", [], False),
    "diff-match": (["diff", A, "{M}/b.json"], "--match", [], False),
    "diff-title": (["diff", A, "{M}/b.json", "--format", "html"], "--title", [], False),
    "merge-machine": (["merge", "{M}/r0.json", "{M}/r1.json"], "--machine", [], False),
    "timeline-top": (["timeline", "--inject-lib", "{M}/fake.so"], "--top", PROG, True),
    "timeline-gaps": (["timeline", "--inject-lib", "{M}/fake.so"], "--gaps", PROG, True),
    "timeline-timeout": (["timeline", "--inject-lib", "{M}/fake.so"], "--timeout", PROG, True),
    "profile-timeout": (["profile", "--one-pass", "--ncu", "{M}/bin/ncu"], "--timeout", PROG, True),
    "profile-coverage": (["profile", "--ncu", "{M}/bin/ncu"], "--coverage", PROG, True),
    "profile-launches-per-kernel": (["profile", "--ncu", "{M}/bin/ncu"], "--launches-per-kernel", PROG, True),
    "profile-launch-count": (["profile", "--one-pass", "--ncu", "{M}/bin/ncu"], "-c", PROG, True),
    "profile-launch-skip": (["profile", "--one-pass", "--ncu", "{M}/bin/ncu"], "-s", PROG, True),
    "format": (["peaks", "--gpu", "h200"], "--format", [], False),
    "color": (["peaks", "--gpu", "h200"], "--color", [], False),
}
# flags whose values are names or paths: exit 0 on odd text is no finding
FREE_TEXT = {"peaks-gpu", "model-peak-kind", "check-kernel", "diff-match", "occ-cc", "report-title", "diff-title",
             "report-svg", "import-gpu", "model-gpu", "occ-gpu"}


def flag_cases(quick):
    out = []
    for fname, (before, flag, after, numeric) in pick(sorted(FLAGS.items()), quick, 12):
        values = VALUES + NOT_UTF8 if numeric else TEXT_VALUES
        for i, v in enumerate(pick(values, quick, 4)):
            vname = slug(v if isinstance(v, str) else "bytes-" + v.hex(), 16) + f"-{i}"

            def check(run, v=v, numeric=numeric, fname=fname):
                if run.rc == 0 and numeric and fname not in FREE_TEXT and isinstance(v, str) and v in NONFINITE:
                    return [f"{v[:20]!r} was accepted (exit 0) as a number"]
                return []
            out.append(Case(f"flags/{fname}={vname}", args=before + [flag, v] + ["-q"] + after,
                            outputs=("*.svg", "*.json", "*.html", "*.csv"), readback=False, check=check, timeout=30))
    return out


SPECS = ["", ":", "k", "k:", "k: flops=", "k: flops=1", "k: bytes=1", "k flops=1 bytes=1", ": flops=1 bytes=1",
         "k:flops=1 bytes=1", "k: flops = 1 bytes = 1", "k: FLOPS=1 BYTES=1", "k: flops=1GFLOP bytes=1GB",
         "k: flops==1 bytes=1", "k: flops=1 bytes=1 flops=2", "k: flops=1 bytes=1 dram=2",
         "k: flops=1e9 bytes=1e9 time=1ms time=2ms", "k: flops=1 bytes=1 bogus=3", "k: flops=1 bytes=1 kind=fp128",
         "k: flops=1 bytes=1 kind=", "k: flops=1e9 bytes=1e9 time=1ms precision=fp4",
         "k: flops=1e307 bytes=0.1 time=1ms", "k: flops=1e308 bytes=1e-308 time=1e-300s", "k: flops=0 bytes=0 time=0s",
         "k: flops=-1 bytes=-1 time=-1ms", "k: flops=NaN bytes=1", "k: flops=inf bytes=inf time=inf",
         "k: flops=5e-324 bytes=5e-324 time=5e-324s", "k: flops=1e-320 bytes=1e-320 time=1e-320s",
         "k: flops=1 bytes=0", "k: flops=1 bytes=1 time=0", "k: flops=1 bytes=1 time=", "k: flops=1 bytes=1 time=5",
         "k: flops=1 bytes=1 time=1parsec", "k: flops=1e3 bytes=1 time=1 fortnight", "k: flops=1 bytes=1 time=1 ps",
         "k: flops=1 bytes=1 time=99999999999999999999999h", "k: flops=1e9 bytes=1e9 time=1e308h",
         "k: flops=1 bytes=1 elements=0", "k: flops=1 bytes=1 elements=-3", "k: flops=1 bytes=1 elements=1.5",
         "k: flops=1 bytes=1 elements=1e308", "k: flops=1e9 bytes=1e9 elements=18446744073709551616 time=1ms",
         "k: bytes=1 elements=1e300 flops_per_element=1e300", "k: flops=1 bytes=1 dram=1 l2=1e308 l1=5e-324 time=1us",
         "k: flops=1 bytes=1 dram=2 l2=NaN", "k: flops=0x10 bytes=1", "k: flops=-0 bytes=-0 time=-0s",
         "k: flops=1.7976931348623157e308 bytes=5e-324 time=1s", "k: flops=1;rm -rf / bytes=1",
         "\x1b[31mred\x1b[0m: flops=1 bytes=1", "<script>alert(1)</script>: flops=1 bytes=1", "a|b\n|c: flops=1 bytes=1",
         "k: " + "flops=1 " * 10000 + "bytes=1", "k" * 100000 + ": flops=1 bytes=1"]
RATES = ["", "1", "1 GFLOP", "1 GFLOPs", "1 gflop/s", "1 TB/s", "1e3 GFLOP/s", "1,000 GFLOP/s", "1 000 GFLOP/s",
         "0x10 GFLOP/s", "1 PFLOP/s", "1 EFLOP/s", "1 YFLOP/s", "1 kFLOP/s", "1 FLOP/s", "1 FLOP/ms", "-1 GFLOP/s",
         "0 GFLOP/s", "5e-324 FLOP/s", "1e308 EFLOP/s", "1e400 GFLOP/s", "NaN GFLOP/s", "inf TB/s", "GFLOP/s",
         "1 GiB/s", "1 parsec/s"]
GPUS = ["", "H200", "h200 ", "nonesuch", "../../etc/passwd", "t4", "a100", "a" * 10000]


def spec_cases(quick):
    out = []
    for i, spec in enumerate(pick(SPECS, quick, 6)):
        out.append(Case(f"flags/model-spec-{i:02d}-{slug(spec, 24)}",
                        args=["model", "--gpu", "h200", "-k", spec, "--format", "json", "-q", "-o", "mo.json"],
                        outputs=("mo.json",), expect=E02, timeout=30))
        if not quick and i % 3 == 0:
            out.append(Case(f"flags/model-spec-{i:02d}-{slug(spec, 24)}-chart",
                            args=["model", "--gpu", "h200", "-k", spec, "--format", "chart", "-q"], expect=E02))
    for j, rate in enumerate(pick(RATES, quick, 4)):
        out.append(Case(f"flags/rate-peak-{j:02d}-{slug(rate, 20)}", args=["model", "--peak", rate, "--bandwidth", "100 GB/s", "-k",
                                                                      "k: flops=1 bytes=1", "--format", "json", "-q"], expect=E02))
        out.append(Case(f"flags/rate-bandwidth-{j:02d}-{slug(rate, 20)}", args=["model", "--peak", "100 GFLOP/s", "--bandwidth", rate,
                                                                           "-k", "k: flops=1 bytes=1", "--format", "json", "-q"], expect=E02))
    out.append(Case("flags/rates-swapped", args=["model", "--peak", "1 GB/s", "--bandwidth", "1 GFLOP/s", "-k", "k: flops=1 bytes=1", "-q"], expect=E2))
    for g in pick(GPUS, quick, 2):
        out.append(Case(f"flags/peaks-gpu-{slug(g, 16)}-{len(g)}", args=["peaks", "--gpu", g, "-q"], expect=E02))
    return out


OCCUPANCY = [  # special launches beyond single flag values
    (["--cc", "9.0", "--threads", "256", "--regs", "32", "--smem-static", "18446744073709550616", "--smem-dynamic", "2000"], E12),
    (["--cc", "9.0", "--threads", "1024", "--regs", "255"], E12),
    (["--cc", "9.0", "--threads", "256", "--regs", "32", "--smem-dynamic", "300KiB"], E12),
    (["--gpu", "h900", "--threads", "256", "--regs", "32"], E2),
    (["--gpu", "h200", "--cc", "7.5", "--threads", "256", "--regs", "32"], E02),
    (["--cc", "9.0"], E2),
    (["--gpu", "h200", "--threads", "0", "--regs", "0", "--sweep", "all"], E2),
    (["--gpu", "h200", "--threads", "1", "--regs", "255", "--sweep", "all", "--format", "json"], ANY),
    (["--gpu", "h200", "--threads", "1024", "--regs", "1", "--smem-dynamic", "999999999", "--sweep", "smem"], ANY),
    (["--gpu", "h200", "--threads", "256", "--regs", "32", "--smem-dynamic", "18446744073709551615",
      "--smem-static", "18446744073709551615", "--sweep", "all"], E12),
    (["--gpu", "h200", "--threads", "32", "--regs", "32", "--format", "trace"], E2),
    (["--cc", "sm_90a", "--threads", "256", "--regs", "32", "--sweep", "all"], E02),
]

ENVS = [{"COLUMNS": "0"}, {"COLUMNS": "1"}, {"COLUMNS": "5"}, {"COLUMNS": "-5"}, {"COLUMNS": "abc"},
        {"COLUMNS": "100000"}, {"COLUMNS": "18446744073709551616"}, {"COLUMNS": "3", "TERM": "dumb"},
        {"LINES": "0", "COLUMNS": "2"}, {"NO_COLOR": ""}, {"NO_COLOR": None, "CLICOLOR_FORCE": "1"},
        {"TERM": "dumb"}, {"LANG": "C"}, {"LANG": "tr_TR.UTF-8", "LC_ALL": "tr_TR.UTF-8"}, {"HOME": None},
        {"HOME": "/nonexistent"}, {"TMPDIR": "/nonexistent/x"}, {"TMPDIR": "/dev/null"}, {"TMPDIR": "{M}/seed.csv"},
        {"PATH": ""}, {"CUDA_HOME": "/etc/passwd"}, {"RUST_BACKTRACE": "1"}, {"RUST_LOG": "trace"},
        {"RANK": "-1", "WORLD_SIZE": "2"}, {"RANK": "abc", "WORLD_SIZE": "2"}, {"RANK": "3", "WORLD_SIZE": "2"},
        {"RANK": "99999999999999999999999", "WORLD_SIZE": "0"}, {"RANK": "0\n1", "WORLD_SIZE": "2"},
        {"LOCAL_RANK": "-9", "WORLD_SIZE": "-9"}, {"PMI_RANK": "1" * 50, "PMI_SIZE": "2"}]
ENV_COMMANDS = {
    "report-table": ["report", A, "--format", "table", "--color", "always"],
    "report-chart": ["report", A, "--format", "chart"],
    "import": ["import", "{M}/seed.csv", "-o", "i.json"],
    "check": ["check", A, "--min-pct-of-roof", "90"],
    "occupancy": ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--sweep", "all"],
    "tour": ["tour", "--bundled", "--out-dir", "tt"],
}

SOUP = [[], ["--format"], ["-o"], ["-o", ""], ["--format", "trace", "report", A], ["report", A, "--format", "trace"],
        ["report"], ["check"], ["diff", A], ["merge"], ["model"], ["occupancy"], ["occupancy", "--threads", "256"],
        ["peaks", "--list", "--gpu", "h200"], ["profile"], ["profile", "--"], ["timeline"], ["timeline", "--"],
        ["import"], ["import", "-", "-"], ["--color", "always", "peaks", "--gpu", "h200"], ["--color", "nosuch", "peaks"],
        ["--wide", "--quiet", "peaks", "--gpu", "h200"], ["help", "help", "help"], ["nosuchcommand"], ["-h"], ["--help"],
        ["--version"], ["-V"], ["report", "--help"], ["-q"], ["--wide"],
        ["model", "--gpu", "h200", "-k", "a: flops=1 bytes=1", "-k", "a: flops=1 bytes=1"],
        ["model", "--gpu", "h200", "--machine", "{M}/m.json", "-k", "a: flops=1 bytes=1"],
        ["model", "--peak", "1 TFLOP/s", "-k", "a: flops=1 bytes=1"], ["report", A, "--view", "instructions"]]
ODD_BYTES = [b"\xff\xfe", b"a\xc3", b"\xed\xa0\x80", b"\x1b]0;pwn\x07", b"-", b"--", b"-o"]


def cases(m, quick):
    out = flag_cases(quick) + spec_cases(quick)
    for i, (argv, expect) in enumerate(pick(OCCUPANCY, quick, 3)):
        out.append(Case(f"flags/occupancy-{i:02d}", args=["occupancy", *argv, "-q"], expect=expect))
    k = 0
    for e in pick(ENVS, quick, 4):
        for cname in (sorted(ENV_COMMANDS) if not quick else [sorted(ENV_COMMANDS)[k % len(ENV_COMMANDS)]]):
            k += 1
            label = slug("_".join(f"{a}={b}" for a, b in e.items()), 40)
            out.append(Case(f"flags/env-{label}-{cname}", args=ENV_COMMANDS[cname] + ["-q"], env=e,
                            outputs=("i.json", "i.rank*.json", "tt", "tt/*"), readback=False))
    for i, argv in enumerate(pick(SOUP, quick, 6)):
        out.append(Case(f"flags/soup-{i:02d}-{slug(' '.join(argv), 30)}", args=argv, readback=False,
                        outputs=("roofline-report.html",)))
    out.append(Case("flags/10k-arguments", args=["merge"] + ["{M}/a.json"] * 10000, timeout=60))
    for i, v in enumerate(pick(ODD_BYTES, quick, 2)):
        for j, argv in enumerate((["report", v], ["check", A, "--kernel", v + b"=50"], ["import", v],
                                  ["model", "-k", v + b": flops=1 bytes=1", "--gpu", "h200"],
                                  ["diff", A, "{M}/b.json", "--match", v + b"=x"])):
            out.append(Case(f"flags/bytes-{i}-{j}-{argv[0]}", args=argv + ["-q"], stderr_lacks=(b"\x1b]0",)))
    out.append(Case("flags/not-utf8-input-file", shell="cp \"$M/a.json\" $'\\xff\\xfe.json' && exec \"$B\" report $'\\xff\\xfe.json' -q --format json",
                    outputs=("*.json",), expect=ANY))
    # the commands that need a GPU, here where there is none: a clean exit 1 or 2 (tour falls back to
    # the bundled H200 data: exit 0)
    for i, argv in enumerate(pick([["bench"], ["bench", "--quick"], ["bench", "--only", "dram"], ["bench", "--only", ""],
                                   ["bench", "--all-devices"], ["bench", "--device", "9"], ["peaks"], ["peaks", "--device", "99"],
                                   ["peaks", "--all-devices"], ["tour", "--out-dir", "t"], ["tour", "--out-dir", "t", "--device", "99"],
                                   ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--verify-device"]], quick, 2)):
        out.append(Case(f"flags/no-gpu-{i:02d}-{slug(' '.join(argv), 30)}", args=argv + ["-q", "-o", "o.json"],
                        expect=ANY if argv[0] == "tour" else E12, outputs=("o.json", "t", "t/*"), needs=("nogpu",),
                        timeout=60))
    return out
