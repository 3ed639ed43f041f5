"""Standard streams closed, full or cut short: no panic, no death by
SIGPIPE; results that cannot reach stdout are not a silent exit 0; with
stderr broken, `-o` is still written."""

from harness import Case
from ._util import ANY, pick

NAME = "streams"
ABOUT = "stdout/stderr/stdin closed, full (/dev/full) or piped into `head`"

A = "{M}/a.json"
COMMANDS = {  # name -> (argv, prints results on stdout)
    "import": (["import", "{M}/seed.csv"], True),
    "import-verbose": (["import", "{M}/seed.csv"], True),
    "report-table": (["report", A], True),
    "report-html": (["report", A, "--format", "html"], True),
    "report-chart": (["report", A, "--format", "chart"], True),
    "check": (["check", A, "--min-pct-of-roof", "99"], True),
    "diff": (["diff", A, "{M}/b.json"], True),
    "merge": (["merge", "{M}/r0.json", "{M}/r1.json"], True),
    "merge-timelines": (["merge", "{M}/tl0.json", "{M}/tl1.json"], True),
    "peaks": (["peaks", "--gpu", "h200"], True),
    "peaks-list": (["peaks", "--list"], True),
    "model": (["model", "{M}/model.toml"], True),
    "occupancy": (["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--sweep", "all"], True),
    "tour": (["tour", "--bundled", "--out-dir", "td"], True),
    "timeline": (["timeline", "--inject-lib", "{M}/fake.so", "--", "{M}/prog/records.sh"], True),
    # clap prints --help and -V and exits 0 even when stdout is gone (known since pass 3, negligible)
    "help": (["--help"], False),
    "import-help": (["import", "--help"], False),
    "version": (["-V"], False),
}
# mode -> (shell redirection, uses -o, stdout is lost)
MODES = {
    "stdout-closed": (">&-", False, True),
    "stdout-full": (">/dev/full", False, True),
    "stdout-head": ("| head -c 1 >/dev/null", False, False),
    "stdout-pipe-closed-early": ("| true", False, False),
    "stderr-closed": ("2>&- >/dev/null", True, False),
    "stderr-full": ("2>/dev/full >/dev/null", True, False),
    "stderr-head": ("2>&1 >/dev/null | head -c 1 >/dev/null", True, False),
    "both-closed": (">&- 2>&-", True, True),
    "both-full": (">/dev/full 2>/dev/full", True, True),
    "stdin-closed": ("<&- >/dev/null", True, False),
    "stdout-closed-with-o": (">&-", True, True),
}


def cases(m, quick):
    out = []
    for cname in pick(sorted(COMMANDS), quick, 5):
        argv, prints = COMMANDS[cname]
        meta = cname in ("help", "import-help", "version")
        for mode in pick(sorted(MODES), quick, 3):
            redir, with_o, lost = MODES[mode]
            a = list(argv)
            if with_o and not meta:
                if "--" in a:
                    i = a.index("--")
                    a = a[:i] + ["-o", "o.json"] + a[i:]
                else:
                    a += ["-o", "o.json"]
            if cname != "import-verbose" and not meta:
                a.insert(len(a) if "--" not in a else a.index("--"), "-q")
            q = " ".join("'" + x + "'" for x in a)
            script = f'"$B" {q} {redir}; exit ${{PIPESTATUS[0]}}'

            def check(run, with_o=with_o and not meta, lost=lost, prints=prints, mode=mode, cname=cname):
                problems = []
                if lost and prints and not with_o and run.rc == 0:
                    problems.append("stdout could not take the results, yet the exit status is 0")
                if with_o and run.rc in (0, 1) and cname != "tour" and run.read("o.json") is None:
                    problems.append(f"exit {run.rc} with stderr or stdin broken, and -o o.json was not written")
                return problems
            out.append(Case(f"streams/{cname}-{mode}", shell=script, expect=ANY if cname != "check" else frozenset({0, 1, 2}),
                            outputs=("o.json", "td", "td/*"), check=check, timeout=60))
    return out
