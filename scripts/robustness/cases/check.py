"""The CI gate (`check`) and `diff`: a gate that judged nothing never passes,
bad rules are exit 2, a failed `-o` is told apart from a failed rule, and
`diff` takes any pairing of its documents."""

import json

from harness import Case
from ._util import ANY, E0, E02, E1, E12, E2, pick, slug

NAME = "check"
ABOUT = "check's exit codes for CI, and diff's pairings and --match specs"

A = "{M}/a.json"


def variant(m, fn):
    d = m.doc("a.json")
    fn(d)
    return json.dumps(d)


def cases(m, quick):
    def nodur(d):
        for k in d["kernels"]:
            k["kernel"]["duration_s"] = None

    def zerodur(d):
        for k in d["kernels"]:
            k["kernel"]["duration_s"] = 0.0

    def same_names(d):
        for k in d["kernels"]:
            k["kernel"]["name"] = "same"
    nodur_doc = variant(m, nodur)
    cs = [
        Case("check/no-durations", args=["check", "in.json", "--min-pct-of-roof", "50", "-q"], files={"in.json": nodur_doc}, expect=E2),
        Case("check/zero-durations", args=["check", "in.json", "--min-pct-of-roof", "50", "-q"],
             files={"in.json": variant(m, zerodur)}, expect=E2),
        Case("check/no-kernels", args=["check", "in.json", "--min-pct-of-roof", "50", "-q"],
             files={"in.json": variant(m, lambda d: d.__setitem__("kernels", []))}, expect=E2),
        Case("check/no-rule", args=["check", A, "-q"], expect=E2),
        Case("check/self-baseline", args=["check", A, "--baseline", A, "--max-regression", "0", "-q"], expect=E0),
        Case("check/self-baseline-per-launch", args=["check", "{M}/pl.json", "--baseline", "{M}/pl.json", "--max-regression", "1", "-q"],
             expect=E0),
        Case("check/self-baseline-merged", args=["check", "{M}/mg.json", "--baseline", "{M}/mg.json", "--max-regression", "0", "-q"],
             expect=E02),
        Case("check/self-baseline-same-names", args=["check", "in.json", "--baseline", "in.json", "--max-regression", "10", "-q"],
             files={"in.json": variant(m, same_names)}, expect=E0),
        Case("check/baseline-without-durations", args=["check", A, "--baseline", "in.json", "--max-regression", "10", "-q"],
             files={"in.json": nodur_doc}, expect=E2),
        Case("check/baseline-other-program-judges-nothing", args=["check", A, "--baseline", "{M}/b.json", "--max-regression", "10", "-q"],
             expect=E1),
        Case("check/baseline-other-program-allow-empty",
             args=["check", A, "--baseline", "{M}/b.json", "--max-regression", "10", "--allow-empty", "-q"], expect=E0),
        Case("check/share-no-kernel-reaches", args=["check", A, "--min-pct-of-roof", "50", "--min-time-share", "100", "-q"], expect=E1),
        Case("check/baseline-dev-zero", args=["check", A, "--baseline", "/dev/zero", "--max-regression", "10", "-q"], expect=E2,
             timeout=15),
        Case("check/baseline-a-machine", args=["check", A, "--baseline", "{M}/m.json", "--max-regression", "10", "-q"], expect=E2),
        Case("check/baseline-a-timeline", args=["check", A, "--baseline", "{M}/t.json", "--max-regression", "10", "-q"], expect=E2),
        Case("check/baseline-a-csv", args=["check", A, "--baseline", "{M}/seed.csv", "--max-regression", "10", "-q"], expect=E2),
        Case("check/baseline-without-max-regression", args=["check", A, "--baseline", "{M}/b.json", "-q"], expect=E12),
        Case("check/a-machine", args=["check", "{M}/m.json", "--min-pct-of-roof", "1", "-q"], expect=E2),
        Case("check/a-timeline", args=["check", "{M}/t.json", "--min-pct-of-roof", "1", "-q"], expect=E2),
        Case("check/failed-o-rules-held", args=["check", A, "--min-pct-of-roof", "1", "-q", "-o", "/dev/full"], expect=E1,
             stderr_has=("-o", "held")),
        Case("check/failed-o-missing-folder", args=["check", A, "--min-pct-of-roof", "1", "-q", "-o", "nodir/x.json"], expect=E1),
        Case("check/o-written-when-a-rule-fails", args=["check", A, "--min-pct-of-roof", "99", "-q", "-o", "c.json"], expect=E1,
             outputs=("c.json",), must_write=()),
        Case("check/kernel-absent", args=["check", A, "--kernel", "no_such_kernel=50", "-q"], expect=E12),
        Case("check/config-kernel-absent", args=["check", A, "--config", "c.toml", "-q"],
             files={"c.toml": '[[kernel]]\nname = "no_such_kernel"\nmin_pct_of_roof = 50\n'}, expect=E12),
        Case("check/config-max-time-absent", args=["check", A, "--config", "c.toml", "-q"],
             files={"c.toml": '[[kernel]]\nname = "no_such_kernel"\nmax_time = "1 ms"\n'}, expect=E12),
        Case("check/config-example", args=["check", A, "--config", "{M}/check.toml", "-q"], expect=ANY),
    ]
    # --kernel NAME=PCT splits at the last '=' (so "x==50" names the kernel "x=")
    for spec, expect in [("=50", E2), ("x=", E2), ("x=abc", E2), ("x=-5", E2), ("x=150", E2), ("x=NaN", E2), ("x=inf", E2),
                         ("x=1e400", E2), ("==", E2), ("=" * 1000, E2), ("x==50", E12), ("vecadd=50=60", ANY),
                         ("vecadd= 50", ANY), (" =50", E2), ("vecadd=50%", ANY), ("vecadd=0x10", E2), ("vecadd=-0", ANY),
                         ("vecadd=0", E0), ("vecadd=100", E1), ("vecadd=101", E2), ("regex:(((=50", E12)]:
        cs.append(Case(f"check/kernel-spec-{slug(spec, 20)}", args=["check", A, "--kernel", spec, "-q"], expect=expect))
    # diff: any pairing of documents, --match specs
    pairs = [("self", A, A), ("two-programs", A, "{M}/b.json"), ("per-launch", A, "{M}/pl.json"),
             ("per-launch-self", "{M}/pl.json", "{M}/pl.json"), ("merged", "{M}/mg.json", A), ("machine", "{M}/m.json", A),
             ("timeline", "{M}/t.json", A), ("model", "{M}/model.json", A), ("dev-null", A, "/dev/null"), ("csv", A, "{M}/seed.csv")]
    for name, x, y in pairs:
        cs.append(Case(f"check/diff-{name}", args=["diff", x, y, "-q", "--format", "json"], expect=E02))
    for spec in ["vecadd=nosuch", "=", "x", "=x", "x=", "+=+", "vecadd=vecadd", "vecadd+vecadd=vecadd", "a+b+c+d+e+f=g",
                 "vecadd=saxpy", "a" * 100000 + "=b"]:
        cs.append(Case(f"check/diff-match-{slug(spec, 20)}-{len(spec)}", args=["diff", A, "{M}/b.json", "--match", spec,
                                                                                "--match", spec, "-q"], expect=E02))
    return pick(cs, quick, 12)
