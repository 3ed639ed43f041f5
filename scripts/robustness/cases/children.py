"""`profile` and `import x.ncu-rep` with the stand-in Nsight Compute: every
way ncu can fail, hang or misbehave; helpers (--query-metrics, --help,
--import, nvidia-smi) that never answer; hostile --ncu, programs and flags;
--timeout; signals to the tool while ncu, its grandchildren or the program
run. No process of the run is left behind (setsid helpers after a SIGKILL
excepted, as documented), no temporary folder but the ones the tool names,
an earlier -o or --save-csv is never lost."""

from harness import Case, Copy, File, Link, Signal
from ._util import ANY, E0, E12, pick, slug

NAME = "children"
ABOUT = "profile and import .ncu-rep through a stand-in ncu: failures, hangs, --timeout, signals, left-behind processes"

NCU = "{M}/bin/ncu"
PROG = "{M}/prog/true.sh"
NOTHING_PROFILED = {"fail", "noreport", "garbage", "empty", "crash", "kill9"}
MODES = ["ok", "fail", "fail-after-write", "noreport", "garbage", "empty", "crash", "kill9", "flood", "link-report"]


def profile(*flags, prog=PROG, one_pass=True):
    return ["profile"] + (["--one-pass"] if one_pass else []) + ["--ncu", NCU, "-q", *flags, "--", prog]


def flagsets():
    earlier = {"p.json": Copy("{M}/a.json")}
    return {  # name -> (flags, files, outputs, check)
        "plain": (["-o", "p.json"], earlier, ("p.json",), None),
        "save-csv": (["-o", "p.json", "--save-csv", "s.csv"], earlier, ("p.json", "s.csv"), None),
        "save-csv-over-earlier": (["--save-csv", "saved.csv"], {"saved.csv": Copy("{M}/seed.csv")}, ("saved.csv",), "keep-saved"),
        "save-csv-dev-full": (["-o", "p.json", "--save-csv", "/dev/full"], {}, ("p.json",), "o-written"),
        "o-missing-folder": (["-o", "nodir/x.json", "--save-csv", "s.csv"], {}, ("s.csv",), "printed"),
        "o-dev-full": (["-o", "/dev/full", "--save-csv", "ok.csv"], {}, ("ok.csv",), "csv-written"),
        "save-csv-symlink": (["--save-csv", "s.csv"], {"../outside/real.csv": "old", "s.csv": Link("../outside/real.csv")},
                             ("../outside/real.csv",), None),
        "kernel-filter": (["-k", "vecadd", "-o", "p.json"], {}, ("p.json",), None),
        "group-by-nvtx": (["--group-by", "nvtx", "-o", "p.json"], {}, ("p.json",), None),
        "collectives-lockstep": (["--collectives", "lockstep"], {}, (), None),
        "metrics-empty": (["--metrics", ""], {}, (), None),
        "ncu-arg-bogus": (["--ncu-arg", "--bogus"], {}, (), None),
        "ncu-arg-export": (["--ncu-arg", "--export", "--ncu-arg", "keep.txt"], {"keep.txt": "keep\n"}, ("keep.txt*",), None),
    }


def judged(mode, what):
    def check(run):
        out = []
        if what == "keep-saved" and mode in NOTHING_PROFILED:
            with open(run.case.files["saved.csv"].src.replace("{M}", run.material_dir), "rb") as f:
                if run.read("saved.csv") != f.read():
                    out.append("ncu profiled nothing, yet the earlier --save-csv capture was replaced")
        if what == "o-written" and mode == "ok" and run.read("p.json") is None:
            out.append("a failing --save-csv lost the -o analysis")
        if what == "csv-written" and mode == "ok" and run.read("ok.csv") is None:
            out.append("a failing -o lost the --save-csv capture")
        if what == "printed" and mode == "ok" and len(run.stdout) < 200:
            out.append("-o failed and the finished profile was not printed on stdout either")
        return out
    return check if what else None


def mode_cases(m, quick):
    out = []
    modes = MODES + ([] if quick else ["huge"])
    fs = flagsets()
    for mode in pick(modes, quick, 4):
        for name in pick(sorted(fs), quick, 2):
            flags, files, outputs, what = fs[name]
            out.append(Case(f"children/ncu-{mode}-{name}", args=profile(*flags), files=files, outputs=outputs,
                            env={"FAKE_NCU": mode}, check=judged(mode, what), timeout=90 if mode == "huge" else 60,
                            expect=E0 if mode in ("ok", "flood") and name in ("plain", "save-csv", "kernel-filter") else ANY))
    # two passes: the first runs the program under the "injection library" (any file here)
    out.append(Case("children/two-passes", args=profile("-o", "p.json", prog="{M}/prog/records.sh", one_pass=False),
                    env={"ROOFLINE_INJECT_LIB": "{M}/fake.so"}, outputs=("p.json",), must_write=("p.json",), expect=E0))
    out.append(Case("children/two-passes-no-injection-library", args=profile("-o", "p.json", one_pass=False),
                    outputs=("p.json",), expect=E0))
    return out


def hostile_cases(m, quick):
    cs = [
        Case("children/ncu-missing", args=["profile", "--ncu", "/nonexistent/ncu", "-q", "--", PROG], expect=E12),
        Case("children/ncu-a-folder", args=["profile", "--ncu", "/tmp", "-q", "--", PROG], expect=E12),
        Case("children/ncu-not-executable", args=["profile", "--ncu", "{M}/seed.csv", "-q", "--", PROG], expect=E12),
        Case("children/ncu-dev-null", args=["profile", "--ncu", "/dev/null", "-q", "--", PROG], expect=E12),
        Case("children/ncu-empty", args=["profile", "--ncu", "", "-q", "--", PROG], expect=E12),
        Case("children/no-ncu-anywhere", args=["profile", "-q", "--", PROG], env={"PATH": "/usr/bin:/bin", "CUDA_HOME": "/nonexistent"},
             expect=E12),
        Case("children/ncu-on-path", args=["profile", "--one-pass", "-q", "-o", "p.json", "--", PROG],
             env={"PATH": "{M}/bin:/usr/bin:/bin"}, outputs=("p.json",), expect=E0),
        Case("children/program-missing", args=profile(prog="/nonexistent/prog"), expect=E12),
        Case("children/program-a-folder", args=profile(prog="/tmp"), expect=E12),
        Case("children/program-empty", args=profile(prog=""), expect=E12),
        Case("children/program-not-executable", args=profile(prog="{M}/seed.csv"), expect=E12),
        Case("children/program-interpreter-missing", args=profile(prog="./s.sh"), files={"s.sh": File("#!/nonexistent/interp\n", 0o755)},
             expect=E12),
        Case("children/program-exit-7", args=profile("-o", "p.json", prog="{M}/prog/exit7.sh"), outputs=("p.json",), expect=E12),
        Case("children/program-segv", args=profile("-o", "p.json", prog="{M}/prog/segv.sh"), outputs=("p.json",), expect=E12),
        Case("children/program-closes-its-streams", args=["profile", "--one-pass", "--ncu", NCU, "-q", "--", "sh", "-c",
                                                          "exec 1>&- 2>&-; sleep 0.1"], expect=ANY),
        Case("children/program-5mb-of-output", args=["profile", "--one-pass", "--ncu", NCU, "-q", "--", "sh", "-c",
                                                     "head -c 5000000 /dev/zero"], expect=ANY),
        Case("children/program-argument-not-utf8", args=["profile", "--one-pass", "--ncu", NCU, "-q", "--", PROG, b"arg\xff"],
             expect=ANY, note="known: a program argument that is not UTF-8 is refused (exit 2), as clap does"),
        Case("children/tmpdir-missing", args=profile("-o", "p.json"), env={"TMPDIR": "/nonexistent"}, outputs=("p.json",)),
        Case("children/tmpdir-a-file", args=profile("-o", "p.json"), env={"TMPDIR": "/dev/null"}, outputs=("p.json",)),
        Case("children/tmpdir-proc", args=profile("-o", "p.json"), env={"TMPDIR": "/proc"}, outputs=("p.json",)),
    ]
    for flag, vals in (("--clock-control", ["base", "weird", ""]), ("--print-units", ["base", "x"]),
                       ("-k", ["regex:(((", "", "\x1b"]), ("--group-by", ["x"]), ("--collectives", ["x", ""]),
                       ("--nvtx-include", ["", "[[[", "a/b/c/" * 1000]), ("--metrics", [",,,", "a" * 10000]),
                       ("--ncu-arg", ["--export=/etc/passwd", "--help", ""]), ("--save-csv", ["", "/", "/dev/null"])):
        for v in vals:
            cs.append(Case(f"children/flag{flag}={slug(v, 16)}-{len(v)}", args=profile(flag, v), outputs=(), expect=ANY,
                           stderr_lacks=("\x1b",) if v == "\x1b" else ()))
    # import of a report through the stand-in: the failure is named, never "the file is empty"
    for mode, expect in (("", E0), ("fail", E12), ("garbage", E12), ("empty", E12)):
        cs.append(Case(f"children/import-report-{mode or 'ok'}", args=["import", "r.ncu-rep", "--ncu", NCU, "-q"],
                       files={"r.ncu-rep": Copy("{M}/seed.csv")}, env={"FAKE_IMPORT": mode}, expect=expect,
                       stderr_lacks=("The file is empty",) if mode else ()))
    return pick(cs, quick, 8)


def hang_cases(m, quick):
    """Helpers that never answer: bounded (20 s for the questions, what is left of --timeout or 30 s for the
    read-back), their processes stopped."""
    if quick:
        return []
    smi = {"bin/nvidia-smi": File("#!/bin/bash\nexec -a robust-smi sleep 300\n", 0o755)}
    path = {"PATH": "{W}/bin:/usr/bin:/bin"}
    return [
        Case("children/query-metrics-never-answers", args=profile("--timeout", "5s"), env={"FAKE_QUERY": "hang"}, timeout=90),
        Case("children/import-never-answers", args=profile("--timeout", "5s", "-o", "p.json"), env={"FAKE_IMPORT": "hang"},
             outputs=("p.json",), timeout=90),
        Case("children/nvidia-smi-never-answers-profile", args=profile("--timeout", "5s"), files=smi, env=path, timeout=90),
    ]


def signal_cases(m, quick):
    out = []
    earlier = {"p.json": Copy("{M}/a.json")}
    sigs = ["INT", "TERM", "HUP", "QUIT", "USR1"]
    for mode in pick(["sleep", "grandchild", "ignore"], quick, 2):
        for sig in pick(sigs, quick, 2):
            out.append(Case(f"children/{sig}-while-ncu-{mode}", args=profile("-o", "p.json", "--save-csv", "raw.csv"),
                            files=earlier, outputs=("p.json", "raw.csv"), env={"FAKE_NCU": mode},
                            signal=Signal(sig, after=0.5, wait_for="ncu-started"), settle=4, timeout=60))
    for sig in pick(["INT", "TERM"], quick, 1):
        out.append(Case(f"children/{sig}-to-group-while-ncu-sleeps", args=profile("-o", "p.json"), files=earlier,
                        outputs=("p.json",), env={"FAKE_NCU": "sleep"},
                        signal=Signal(sig, after=0.5, wait_for="ncu-started", target="group"), settle=4, timeout=60))
    for mode in pick(["sleep", "grandchild"], quick, 1):
        out.append(Case(f"children/KILL-while-ncu-{mode}", args=profile("-o", "p.json"), files=earlier, outputs=("p.json",),
                        env={"FAKE_NCU": mode}, signal=Signal("KILL", after=0.5, wait_for="ncu-started"), settle=5,
                        leftover_ok=("robust-ncu-setsid",), timeout=60,
                        note="documented: helpers that left the group (setsid) survive a SIGKILL of the tool"))
    if not quick:
        for what, env in (("import", {"FAKE_IMPORT": "hang"}), ("query-metrics", {"FAKE_QUERY": "hang"})):
            for sig in ("TERM", "INT"):
                out.append(Case(f"children/{sig}-while-ncu-{what}-hangs", args=profile("-o", "new.json"), env=env,
                                outputs=("new.json",), signal=Signal(sig, after=0.3, wait_for="ncu-started"), settle=4,
                                timeout=60))
        for sig in ("TERM", "INT"):
            out.append(Case(f"children/{sig}-while-import-report-hangs", args=["import", "r.ncu-rep", "--ncu", NCU, "-q"],
                            files={"r.ncu-rep": Copy("{M}/seed.csv")}, env={"FAKE_IMPORT": "hang"},
                            signal=Signal(sig, after=0.3, wait_for="ncu-started"), settle=4, timeout=60))
        for prog in ("grand", "ignore"):
            for sig in ("INT", "TERM"):
                out.append(Case(f"children/{sig}-while-program-{prog}", args=profile("-o", "p.json", prog=f"{{M}}/prog/{prog}.sh"),
                                files=earlier, outputs=("p.json",), signal=Signal(sig, after=0.5, wait_for="prog-started"),
                                settle=4, timeout=60))
    for mode in pick(["sleep", "grandchild", "ignore"], quick, 1):
        out.append(Case(f"children/timeout-2s-ncu-{mode}", args=profile("--timeout", "2s", "-o", "t.json"), outputs=("t.json",),
                        env={"FAKE_NCU": mode}, settle=4, timeout=60))
    out.append(Case("children/program-leaves-background-jobs", args=profile("-o", "p.json", prog="{M}/prog/bg-exit.sh"),
                    outputs=("p.json",), settle=4, leftover_ok=("robust-prog-setsid",), timeout=60,
                    note="documented: jobs left in the program's group are stopped; helpers that left it (setsid) are not"))
    return out


def cases(m, quick):
    return mode_cases(m, quick) + hostile_cases(m, quick) + hang_cases(m, quick) + signal_cases(m, quick)
