"""Where results go: `-o` onto symlinks, devices, FIFOs, folders, long and odd
names, the run's own inputs under any spelling, rank templates; the CSV
side tables; `--svg`, `--svg-dir`, `--grid-*`, `tour --out-dir`; earlier
results kept when a run fails; a full disk; signals while a large `-o` is
written; temporary names planted in advance; every file opened for writing
(strace). Nothing outside the target may change, and the target is written
whole or not at all."""

import os
import re
import stat

from harness import CharDev, Copy, Dir, Fifo, File, HardLink, Lazy, Link, Signal, Case
from ._util import ANY, E0, E01, E02, E12, E2, pick

NAME = "outputs"
ABOUT = "-o targets, side tables, output folders, inputs as outputs, failed runs, full disk, signals during a write"

SEED = "{M}/seed.csv"
WRITERS = {
    "import": ["import", SEED],
    "report": ["report", "{M}/a.json"],
    "check": ["check", "{M}/a.json", "--min-pct-of-roof", "1"],
    "diff": ["diff", "{M}/a.json", "{M}/b.json"],
    "merge": ["merge", "{M}/r0.json", "{M}/r1.json"],
    "peaks": ["peaks", "--gpu", "h200"],
    "model": ["model", "--gpu", "h200", "-k", "k: flops=1e9 bytes=1e9 time=1ms"],
    "occupancy": ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32"],
    "timeline": ["timeline", "--inject-lib", "{M}/fake.so", "--", "{M}/prog/records.sh"],
}
SIDE_NAMES = ("verdicts", "opportunities", "roof", "facts", "kernel", "kernel_rank", "headroom")


def with_o(argv, *extra):
    """`extra` (-o FILE, ...) before a `--` that starts the program's arguments."""
    if "--" in argv:
        i = argv.index("--")
        return argv[:i] + list(extra) + ["-q"] + argv[i:]
    return argv + list(extra) + ["-q"]


def still(rel, kind):
    def check(run):
        try:
            mode = os.lstat(run.path(rel)).st_mode
        except OSError:
            return [f"{rel} is gone"]
        if stat.S_IFMT(mode) != kind:
            return [f"{rel} is no longer a {stat.filemode(kind)[0]} but a {stat.filemode(mode)[0]}"]
        return []
    return check


def mode_owner(rel, mode, uid, gid):
    def check(run):
        st = os.stat(run.path(rel))
        out = []
        if stat.S_IMODE(st.st_mode) != mode:
            out.append(f"{rel}: mode {oct(stat.S_IMODE(st.st_mode))}, was {oct(mode)}")
        if (st.st_uid, st.st_gid) != (uid, gid):
            out.append(f"{rel}: owner {st.st_uid}:{st.st_gid}, was {uid}:{gid}")
        if run.rc == 0 and run.read(rel) == b"old":
            out.append(f"exit 0 but {rel} still holds the old content")
        return out
    return check


def no_table_twice(run):
    wrote = re.findall(r"wrote (\S+)", run.stderr)
    return [f"two tables written to {w}" for w in sorted(set(wrote)) if wrote.count(w) > 1]


def nothing_new_in_dev(run):
    new = [n for n in os.listdir("/dev") if re.fullmatch(r"(null|stdout|full|stderr)\..*\.csv", n)]
    for n in new:
        try:
            os.remove(os.path.join("/dev", n))
        except OSError:
            pass
    return [f"side tables written into /dev: {new[:3]}"] if new else []


def targets(m, cmd):
    """name -> dict(files, target, outputs, must_write, expect, check, needs, env, shell)"""
    o = "out.json"
    t = {
        "existing-0600-nobody": dict(files={o: File("old", 0o600, (65534, 65534))}, target=o, outputs=(o,), must_write=(o,),
                                     expect=E01, check=mode_owner(o, 0o600, 65534, 65534), needs=("root",)),
        "existing-0640-group": dict(files={o: File("old", 0o640, (0, 65534))}, target=o, outputs=(o,), must_write=(o,),
                                    expect=E01, check=mode_owner(o, 0o640, 0, 65534), needs=("root",)),
        "symlink": dict(files={"../outside/real.json": "old", o: Link("../outside/real.json")}, target=o,
                        outputs=("../outside/real.json",), must_write=("../outside/real.json",), expect=E01,
                        check=still(o, stat.S_IFLNK)),
        "symlink-absolute-chain": dict(files={"../outside/real.json": "old", "../outside/mid.json": Link("real.json"),
                                              o: Link("{OUT}/mid.json")}, target=o, outputs=("../outside/real.json",),
                                       must_write=("../outside/real.json",), expect=E01, check=still(o, stat.S_IFLNK)),
        "symlink-dangling": dict(files={o: Link("../outside/new.json")}, target=o, outputs=("../outside/new.json",),
                                 expect=ANY, check=still(o, stat.S_IFLNK)),
        "symlink-into-missing-folder": dict(files={o: Link("../outside/nope/x.json")}, target=o, expect=E12),
        "symlink-loop": dict(files={o: Link("loop2.json"), "loop2.json": Link(o)}, target=o, expect=E12),
        "symlink-to-folder": dict(files={o: Link("../outside/dir")}, target=o, expect=E12),
        "chardev-null": dict(files={"nul.json": CharDev(1, 3)}, target="nul.json", expect=E01,
                             check=still("nul.json", stat.S_IFCHR), needs=("root",)),
        "chardev-full": dict(files={"full.json": CharDev(1, 7)}, target="full.json", expect=E12,
                             check=still("full.json", stat.S_IFCHR), needs=("root",)),
        "fifo-no-reader": dict(files={"f.json": Fifo()}, target="f.json", expect=E12, check=still("f.json", stat.S_IFIFO)),
        "dev-full": dict(target="/dev/full", expect=E12, stderr_has=("/dev/full",)),
        "dev-stdout": dict(target="/dev/stdout", expect=E01),
        "dev-null": dict(target="/dev/null", expect=E01, check=nothing_new_in_dev),
        "a-folder": dict(files={"outdir": Dir(), "outdir/x": "x"}, target="outdir", expect=E12),
        "trailing-slash": dict(target="out.json/", expect=E12),
        "missing-folder": dict(target="nope/sub/out.json", expect=E12, stderr_has=("nope",)),
        "proc": dict(target="/proc/self/nope.json", expect=E12),
        "name-255": dict(target="n" * 250 + ".json", outputs=("n" * 250 + ".json",), must_write=("n" * 250 + ".json",), expect=E01),
        "name-256": dict(target="n" * 251 + ".json", expect=E12),
        "name-4096-path": dict(target=("d" * 200 + "/") * 21 + "x.json", expect=E12),
        "hard-link": dict(files={o: "old", "../outside/twin.json": HardLink(o)}, target=o, outputs=(o,), must_write=(o,), expect=E01),
        "empty-name": dict(target="", expect=E2),
        "dash": dict(target="-", expect=E2),
        "dot-slash-dash": dict(target="./-", outputs=("-",), must_write=("-",), expect=E01),
        "newline-in-name": dict(target="a\nb.json", outputs=("a\nb.json",), expect=E01),
        "unknown-extension": dict(target="out.xyz", outputs=("out.xyz",), expect=ANY),
        "upper-case-extension": dict(target="OUT.JSON", outputs=("OUT.JSON",), expect=ANY),
        "no-extension": dict(target="out", outputs=("out",), expect=ANY),
        "tar-gz": dict(target="out.tar.gz", outputs=("out.tar.gz",), expect=ANY),
        "not-utf8-name": dict(files={"\ufffd.json": "a file of the user's\n"}, target=b"\xff.json",
                              outputs=("\udcff.json",), expect=ANY),
        "rank-template": dict(target="job.rank{rank}.json", env={"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "3"},
                              outputs=("job.rank*.json",), must_write=("job.rank3.json",), expect=E01),
        "rank-template-twice": dict(target="{rank}{rank}.json", env={"RANK": "1", "WORLD_SIZE": "2"}, outputs=("11.json",),
                                    expect=ANY),
        "rank-hostile": dict(target="job.rank{rank}.json", env={"RANK": "../../outside/x", "WORLD_SIZE": "4"}, expect=E2),
        "rank-slurm-hostile": dict(target="x{rank}.json", env={"SLURM_PROCID": "/../c0", "SLURM_NTASKS": "3"}, expect=E2),
        "rank-huge": dict(target=o, env={"RANK": "99999999999999999999999", "WORLD_SIZE": "-1"}, outputs=("out*.json",),
                          expect=ANY),
        "rank-newline": dict(target="r{rank}.json", env={"RANK": "x\ny", "WORLD_SIZE": "2"}, expect=E2),
        "launcher-without-template": dict(target=o, env={"RANK": "3", "WORLD_SIZE": "4"},
                                          outputs=(o, "out.rank3.json"), expect=E01),
    }
    if cmd != "timeline":
        t["fifo-reader"] = dict(files={"f.json": Fifo()}, shell=True, target="f.json", outputs=("../outside/got",),
                                expect=E01, check=fifo_got)
    return t


def fifo_got(run):
    out = still("f.json", stat.S_IFIFO)(run)
    got = os.path.join(run.root, "outside", "got")
    if run.rc == 0 and (not os.path.exists(got) or os.path.getsize(got) == 0):
        out.append("exit 0 but the FIFO's reader got nothing")
    return out


def target_cases(m, quick):
    out = []
    writers = sorted(WRITERS) if not quick else ["import", "report"]
    for cmd in writers:
        ts = targets(m, cmd)
        for name in pick(sorted(ts), quick, 8):
            spec = ts[name]
            argv = with_o(WRITERS[cmd], "-o", spec["target"])
            kw = dict(files=spec.get("files", {}), outputs=tuple(spec.get("outputs", ())),
                      must_write=tuple(spec.get("must_write", ())), expect=spec.get("expect", ANY),
                      check=spec.get("check"), needs=spec.get("needs", ()), env=spec.get("env", {}),
                      stderr_has=spec.get("stderr_has", ()))
            if spec.get("shell"):
                q = " ".join("'" + a.replace("'", "'\\''") + "'" for a in argv)
                out.append(Case(f"outputs/{cmd}-{name}", shell=f'(cat f.json > ../outside/got &); "$B" {q}; rc=$?; sleep 0.3; exit $rc',
                                **kw))
            else:
                out.append(Case(f"outputs/{cmd}-{name}", args=argv, **kw))
        for ext in pick(("json", "html", "md", "csv", "svg", "txt"), quick, 2):
            outs = (f"out.{ext}",) + (("out.*.csv",) if ext == "csv" else ())
            out.append(Case(f"outputs/{cmd}-plain-{ext}", args=with_o(WRITERS[cmd], "-o", f"out.{ext}"), outputs=outs,
                            expect=E02 if ext == "svg" else E01, check=no_table_twice))
    # a few targets for one command only
    out += [
        Case("outputs/import-immutable", shell='chattr +i imm.json || exit 97; "$B" import "$M/seed.csv" -q -o imm.json; '
             'rc=$?; chattr -i imm.json; exit $rc', files={"imm.json": "old\n"}, expect=E12, needs=("root", "chattr")),
        Case("outputs/report-readonly-folder-as-nobody",
             shell='setpriv --reuid=65534 --regid=65534 --clear-groups "$B" report "$M/a.json" -q -o ro/out.json',
             files={"ro": Dir(0o555)}, expect=E12, needs=("root", "setpriv")),
        Case("outputs/import-sys", args=["import", SEED, "-q", "-o", "/sys/roofline.json"], expect=E12),
        Case("outputs/import-own-binary", shell='exec ./roofline import "$M/seed.csv" -q -o ./roofline',
             files={"roofline": Copy(m.bin, mode=0o755)}, expect=E2),
        Case("outputs/report-own-binary-by-path", shell='exec ./roofline report "$M/a.json" -q -o "$PWD/roofline"',
             files={"roofline": Copy(m.bin, mode=0o755)}, expect=E2),
        Case("outputs/import-csv-to-dev-null", args=["import", SEED, "-q", "--format", "csv", "-o", "/dev/null"],
             expect=E01, check=nothing_new_in_dev),
        Case("outputs/report-csv-to-dev-stdout", args=["report", "{M}/a.json", "-q", "--format", "csv", "-o", "/dev/stdout"],
             expect=E01, check=nothing_new_in_dev),
        Case("outputs/report-csv-to-chardev", args=["report", "{M}/a.json", "-q", "--format", "csv", "-o", "nul"],
             files={"nul": CharDev(1, 3)}, expect=E01, needs=("root",)),
        Case("outputs/report-csv-through-symlink", args=["report", "{M}/a.json", "-q", "-o", "x.csv"],
             files={"../outside/real.csv": "old", "x.csv": Link("../outside/real.csv")},
             outputs=("../outside/real*.csv", "x*.csv"), expect=E01),
        Case("outputs/diff-two-machines-csv", args=["diff", "{M}/a.json", "{M}/pl.json", "-q", "-o", "x.csv"],
             outputs=("x*.csv",), expect=E01, check=no_table_twice),
        Case("outputs/concurrent-writers", shell='for i in 1 2 3 4 5 6; do "$B" import "$M/seed.csv" -q -o out.json & done; wait',
             outputs=("out.json",), must_write=("out.json",), expect=E0, timeout=60),
    ]
    return out


def same_as(rel, src):
    def check(run):
        with open(src, "rb") as f:
            want = f.read()
        return [] if run.read(rel) == want else [f"{rel}, an input, was overwritten"]
    return check


def input_cases(m, quick):
    """The run's own inputs as its outputs, under every spelling: refused (exit 2), unchanged."""
    out = []
    spellings = {"same": "in.json", "dot": "./in.json", "absolute": "{W}/in.json", "up-down": "../w/in.json",
                 "via-sub": "sub/../in.json", "symlink": "alias.json", "hard-link": "twin.json",
                 "proc-cwd": "/proc/self/cwd/in.json"}
    files = lambda src: {"in.json": Copy(src), "sub": Dir(), "alias.json": Link("in.json"), "twin.json": HardLink("in.json")}
    cmds = {"report": (["report", "in.json"], "{M}/a.json"), "check": (["check", "in.json", "--min-pct-of-roof", "1"], "{M}/a.json"),
            "diff": (["diff", "{M}/b.json", "in.json"], "{M}/a.json"), "merge": (["merge", "{M}/r0.json", "in.json"], "{M}/r1.json")}
    for cname, (argv, src) in sorted(cmds.items()):
        for sname, spelling in pick(sorted(spellings.items()), quick, 2):
            out.append(Case(f"outputs/input-as-output-{cname}-{sname}", args=argv + ["-q", "-o", spelling], files=files(src),
                            expect=E2))
    cap = {"cap.csv": Copy(SEED), "alias.csv": Link("cap.csv")}
    for sname, spelling in (("same", "cap.csv"), ("symlink", "alias.csv"), ("absolute", "{W}/cap.csv")):
        out.append(Case(f"outputs/capture-as-output-{sname}", args=["import", "cap.csv", "-q", "-o", spelling], files=cap, expect=E2))
    m_json = {"m.json": Copy("{M}/m.json")}
    prog = {"ncu": Copy("{M}/bin/ncu", mode=0o755), "prog.sh": File("#!/bin/sh\necho program\n", 0o755)}
    others = [
        ("import-machine", ["import", SEED, "--machine", "m.json", "-o", "m.json"], m_json),
        ("model-toml", ["model", "k.toml", "-o", "k.toml"], {"k.toml": '[machine]\ngpu = "h200"\n[[kernel]]\nname = "k"\nflops = 1e9\nbytes = 1e9\n'}),
        ("model-machine", ["model", "--machine", "m.json", "-k", "k: flops=1 bytes=1", "-o", "m.json"], m_json),
        ("check-config", ["check", "{M}/a.json", "--config", "c.toml", "-o", "c.toml"], {"c.toml": "min_pct_of_roof = 1\n"}),
        ("check-baseline", ["check", "{M}/a.json", "--baseline", "b.json", "--max-regression", "10", "-o", "b.json"],
         {"b.json": Copy("{M}/b.json")}),
        ("merge-machine", ["merge", "{M}/r0.json", "{M}/r1.json", "--machine", "m.json", "-o", "m.json"], m_json),
        ("merge-glob-rerun", None, {"job.rank0.json": Copy("{M}/r0.json"), "job.rank1.json": Copy("{M}/r1.json")}),
        ("report-svg-onto-input", ["report", "in.json", "--svg", "in.json"], {"in.json": Copy("{M}/a.json")}),
        ("report-svg-same-as-o", ["report", "{M}/a.json", "--svg", "x.svg", "-o", "x.svg"], {}),
        ("report-svg-spelled-twice", ["report", "{M}/a.json", "--svg", "./x.svg", "-o", "x.svg"], {}),
        ("occupancy-grid-is-o", ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--sweep", "all",
                                 "--grid-json", "g.json", "-o", "g.json"], {}),
        ("occupancy-grid-csv-is-json", ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--sweep", "all",
                                        "--grid-csv", "g.csv", "--grid-json", "g.csv"], {}),
        ("timeline-records-file-as-o", ["timeline", "--inject-lib", "{M}/fake.so", "--records", "rec", "-o", "rec/4242.jsonl",
                                        "--", "{M}/prog/records.sh"], {"rec/4242.jsonl": "a file of the user's\n"}),
        ("profile-save-csv-is-o", ["profile", "--one-pass", "--ncu", "./ncu", "--save-csv", "x.csv", "-o", "x.csv", "--",
                                   "./prog.sh"], prog),
        ("profile-o-is-ncu", ["profile", "--one-pass", "--ncu", "./ncu", "-o", "./ncu", "--", "./prog.sh"], prog),
        ("profile-save-csv-is-ncu", ["profile", "--one-pass", "--ncu", "./ncu", "--save-csv", "./ncu", "--", "./prog.sh"], prog),
        ("profile-save-csv-is-program", ["profile", "--one-pass", "--ncu", "./ncu", "--save-csv", "prog.sh", "--", "./prog.sh"], prog),
        ("import-rep-o-is-ncu", ["import", "r.ncu-rep", "--ncu", "./ncu", "-o", "./ncu"], {**prog, "r.ncu-rep": Copy(SEED)}),
    ]
    for name, argv, fs in pick(others, quick, 4):
        if name == "merge-glob-rerun":
            # the natural typo in a job script: the merged file is named like a rank and the glob picks it up next time
            out.append(Case("outputs/input-as-output-merge-glob-rerun",
                            shell='"$B" merge job.rank*.json -q -o job.rank1.json; "$B" merge job.rank*.json -q -o j2.json',
                            files=fs, outputs=("j2.json",), expect=ANY))
            continue
        outs = ("x.svg", "g.json", "g.csv") if name in ("report-svg-same-as-o", "report-svg-spelled-twice",
                                                         "occupancy-grid-csv-is-json", "occupancy-grid-is-o") else ()
        out.append(Case(f"outputs/input-as-output-{name}", args=with_o(argv), files=fs, outputs=outs,
                        expect=E2 if not outs else E02))
    return out


def side_table_cases(m, quick):
    out = []
    # a side table of -o x.csv that is one of the run's inputs
    for cmd, argv, name, src in [("import", ["import", "x.roof.csv"], "x.roof.csv", SEED),
                                 ("report", ["report", "x.facts.csv"], "x.facts.csv", "{M}/a.json"),
                                 ("merge", ["merge", "{M}/r0.json", "x.verdicts.csv"], "x.verdicts.csv", "{M}/r1.json"),
                                 ("diff", ["diff", "{M}/b.json", "x.facts.csv"], "x.facts.csv", "{M}/a.json"),
                                 ("check", ["check", "x.facts.csv", "--min-pct-of-roof", "1"], "x.facts.csv", "{M}/a.json"),
                                 ("model", ["model", "--machine", "x.roof.csv", "-k", "k: flops=1 bytes=1"], "x.roof.csv", "{M}/m.json")]:
        out.append(Case(f"outputs/side-table-is-input-{cmd}", args=argv + ["-q", "-o", "x.csv"], files={name: Copy(src)},
                        outputs=tuple(f"x.{s}.csv" for s in SIDE_NAMES if f"x.{s}.csv" != name) + ("x.csv",), expect=ANY))
    out.append(Case("outputs/side-table-is-save-csv", args=["profile", "--one-pass", "--ncu", "{M}/bin/ncu", "-q", "--save-csv",
                                                             "x.roof.csv", "-o", "x.csv", "--", "{M}/prog/true.sh"],
                    outputs=("x*.csv",), expect=ANY,
                    check=lambda run: [] if run.rc == 2 or b"Kernel Name" in (run.read("x.roof.csv") or b"")
                    else ["the saved ncu CSV x.roof.csv was replaced by a side table of -o x.csv"]))
    # links and folders planted at the side-table names: refused, nothing written through them
    for cmd in pick(["import", "report", "model", "merge", "occupancy", "diff", "peaks"], quick, 2):
        planted = {f"x.{s}.csv": Link(f"../outside/{s}.csv") for s in SIDE_NAMES}
        planted.update({f"../outside/{s}.csv": f"canary {s}\n" for s in SIDE_NAMES})
        out.append(Case(f"outputs/side-tables-planted-links-{cmd}", args=with_o(WRITERS[cmd], "-o", "x.csv"), files=planted,
                        outputs=("x.csv",), expect=E2))
        dangling = {f"x.{s}.csv": Link(f"../outside/new-{s}.csv") for s in SIDE_NAMES}
        out.append(Case(f"outputs/side-tables-dangling-links-{cmd}", args=with_o(WRITERS[cmd], "-o", "x.csv"), files=dangling,
                        outputs=("x.csv",), expect=E2))
    for blocker in pick(("verdicts", "roof", "facts", "opportunities"), quick, 1):
        fs = {"x.csv": "PRECIOUS-O"}
        fs.update({f"x.{s}.csv": f"PRECIOUS-{s}" for s in ("verdicts", "opportunities", "roof", "facts") if s != blocker})
        fs[f"x.{blocker}.csv"] = Dir()
        fs[f"x.{blocker}.csv/keep"] = "keep"
        out.append(Case(f"outputs/side-table-is-a-folder-{blocker}", args=["import", SEED, "-q", "-o", "x.csv"], files=fs,
                        expect=E2))
    # an earlier result and its side tables are kept when the run fails
    bad = {"bad.csv": "this is not a capture\n"}
    fails = [("import", ["import", "bad.csv"]), ("report", ["report", "bad.csv"]), ("diff", ["diff", "{M}/a.json", "bad.csv"]),
             ("merge", ["merge", "{M}/r0.json", "bad.csv"]), ("model", ["model", "-k", "garbage"]),
             ("occupancy", ["occupancy", "--gpu", "nosuchgpu", "--threads", "1"]),
             ("timeline", ["timeline", "--inject-lib", "{M}/fake.so", "--", "/nonexistent/prog"]),
             ("profile", ["profile", "--one-pass", "--ncu", "/bin/false", "--gpu", "h200", "--", "true"]),
             ("check-no-rule", ["check", "{M}/a.json"])]
    for cmd, argv in pick(fails, quick, 3):
        for ext in pick(("json", "csv", "html"), quick, 1):
            fs = dict(bad)
            fs[f"x.{ext}"] = "PRECIOUS-O"
            fs.update({f"x.{s}.csv": f"PRECIOUS-{s}" for s in ("verdicts", "opportunities", "roof", "facts")})
            out.append(Case(f"outputs/failed-run-keeps-earlier-{cmd}-{ext}", args=with_o(argv, "-o", f"x.{ext}"), files=fs,
                            expect=E12))
    return out


def folder_cases(m, quick):
    tour = ["tour", "--bundled", "-q", "--out-dir"]
    occ = ["occupancy", "--gpu", "h200", "--threads", "256", "--regs", "32", "--sweep", "all", "-q"]
    made = ("td/report.html", "td/analysis.json", "td/machine.json")
    cs = [
        Case("outputs/tour-new-folder", args=tour + ["td"], outputs=("td", "td/*"), must_write=made, expect=E0, timeout=60),
        Case("outputs/tour-folder-is-a-file", args=tour + ["td"], files={"td": "old"}, expect=E2, timeout=60),
        Case("outputs/tour-folder-dev-null", args=tour + ["/dev/null"], expect=E2, timeout=60),
        Case("outputs/tour-folder-empty-name", args=tour + [""], expect=E2, timeout=60),
        Case("outputs/tour-folder-fifo", args=tour + ["ff"], files={"ff": Fifo()}, expect=E2, timeout=60),
        Case("outputs/tour-this-folder", args=tour + ["."], outputs=("report.html", "analysis.json", "machine.json",
                                                                      "examples.ncu.csv", "report.*"), expect=E0, timeout=60),
        Case("outputs/tour-folder-is-a-link", args=tour + ["td"], files={"td": Link("../outside/dir")},
             outputs=("../outside/dir/*",), expect=E0, timeout=60),
        Case("outputs/tour-planted-link-out", args=tour + ["td"], files={"td/analysis.json": Link("../../outside/canary.json")},
             expect=E2, timeout=60),
        Case("outputs/tour-planted-links-via-dotdot-and-chain", args=tour + ["td"], files={
            "td/sub": Dir(), "td/report.html": Link("sub/../../../outside/canary.html"),
            "td/machine.json": Link("{W}/td/sub/m"), "td/sub/m": Link("../../../outside/canary.json")}, expect=E2, timeout=60),
        Case("outputs/tour-link-inside-folder", args=tour + ["td"], files={"td/mine.json": "mine", "td/analysis.json": Link("mine.json")},
             outputs=("td/*",), expect=E0, timeout=60),
        Case("outputs/tour-hard-link-to-outside", args=tour + ["td"], files={"../outside/mine.json": "mine\n",
                                                                            "td/analysis.json": HardLink("../outside/mine.json")},
             outputs=("td/*",), expect=E0, timeout=60),
        Case("outputs/tour-fifo-among-its-files", args=tour + ["td"], files={"td/analysis.json": "keep", "td/machine.json": Fifo()},
             expect=E2, timeout=60),
        Case("outputs/tour-o-inside-folder", args=tour + ["td", "-o", "td/analysis.json"], outputs=("td", "td/*"), expect=ANY,
             timeout=60),
        Case("outputs/tour-o-onto-an-input-elsewhere", args=tour + ["td", "-o", "keep.json"], files={"keep.json": Copy("{M}/a.json")},
             outputs=("td", "td/*", "keep.json"), expect=ANY, timeout=60),
        Case("outputs/tour-250-char-folder", args=tour + ["y" * 250], outputs=("y" * 250, "y" * 250 + "/*"), expect=ANY, timeout=60),
        Case("outputs/tour-readonly-as-nobody", shell='setpriv --reuid=65534 --regid=65534 --clear-groups "$B" tour --bundled -q --out-dir ro/td',
             files={"ro": Dir(0o555)}, expect=E12, needs=("root", "setpriv"), timeout=60),
        Case("outputs/svg-dir-new", args=occ + ["--svg-dir", "sd"], outputs=("sd", "sd/*"), must_write=("sd/occupancy-block.svg",), expect=E0),
        Case("outputs/svg-dir-is-a-file", args=occ + ["--svg-dir", "sd"], files={"sd": "old"}, expect=E2),
        Case("outputs/svg-dir-dev-null", args=occ + ["--svg-dir", "/dev/null"], expect=E2),
        Case("outputs/svg-dir-planted-link", args=occ + ["--svg-dir", "sd"], files={"sd/occupancy-block.svg": Link("../../outside/canary.svg")},
             expect=E2),
        Case("outputs/svg-dir-planted-dangling-link", args=occ + ["--svg-dir", "sd"], files={"sd/occupancy-regs.svg": Link("../../outside/new.svg")},
             expect=E2),
        Case("outputs/svg-dir-is-a-link", args=occ + ["--svg-dir", "sd"], files={"sd": Link("../outside/dir")},
             outputs=("../outside/dir/*",), expect=E0),
        Case("outputs/grid-planted-links", args=occ + ["--svg-dir", "."], files={"occupancy_grid.csv": Link("../outside/canary.csv"),
                                                                                  "occupancy_grid.json": Link("../outside/canary.json")},
             outputs=("*.svg", "occupancy_grid.*"), expect=ANY),
        Case("outputs/grid-csv-dev-full", args=occ + ["--grid-csv", "/dev/full"], expect=E12),
        Case("outputs/svg-dev-full", args=["report", "{M}/a.json", "-q", "--svg", "/dev/full", "-o", "ok.html"], outputs=("ok.html",),
             expect=E12),
        Case("outputs/svg-parent-is-a-file", args=["report", "{M}/a.json", "-q", "--svg", "afile/x.svg"], files={"afile": "keep"},
             expect=E12),
        Case("outputs/svg-empty-name", args=["report", "{M}/a.json", "-q", "--svg", ""], expect=E2),
        Case("outputs/svg-chardev", args=["report", "{M}/a.json", "-q", "--svg", "nul.svg"], files={"nul.svg": CharDev(1, 3)},
             expect=E0, check=still("nul.svg", stat.S_IFCHR), needs=("root",)),
        Case("outputs/svg-symlink", args=["report", "{M}/a.json", "-q", "--svg", "s.svg"], files={"../outside/real.svg": "old",
                                                                                                  "s.svg": Link("../outside/real.svg")},
             outputs=("../outside/real.svg",), must_write=("../outside/real.svg",), expect=E0, check=still("s.svg", stat.S_IFLNK)),
        Case("outputs/records-folder-dev-null", args=["timeline", "--inject-lib", "{M}/fake.so", "--records", "/dev/null", "-q", "--",
                                                      "{M}/prog/records.sh"], expect=E12),
    ]
    return pick(cs, quick, 6)


def planted_temp_names(m, quick):
    """The temporary names of earlier schemes, planted as links to a victim for the next PIDs."""
    out = []
    plant = ('p=$(cat /proc/sys/kernel/ns_last_pid 2>/dev/null || echo $$)\n'
             'for i in $(seq "$p" $((p + 400))); do for n in .out.json.tmp-$i .out.json.tmp.$i out.json.$i.tmp; do '
             'ln -s "$OUTSIDE/victim" "$n"; done; done\n'
             'ln -s "$OUTSIDE/victim" out.json.tmp; ln -s "$OUTSIDE/victim" .out.json.tmp; ln -s "$OUTSIDE/victim" out.json~\n')
    for cmd in pick(["import", "report", "merge"], quick, 1):
        q = " ".join("'" + a + "'" for a in with_o(WRITERS[cmd], "-o", "out.json"))
        out.append(Case(f"outputs/planted-temp-names-{cmd}", shell=plant + f'exec "$B" {q}',
                        files={"../outside/victim": "victim"}, outputs=("out.json", ".out.json.tmp*", "out.json.*",
                                                                       "out.json~"),
                        must_write=("out.json",), expect=E01))
    return out


def strace_check(run):
    out = []
    exe = {}  # pid -> the program it runs (a child inherits its parent's until it calls execve)
    for line in run.meta("strace.txt").decode("utf-8", "replace").splitlines():
        pid = line.split(" ", 1)[0]
        mm = re.search(r'execve\("([^"]+)"', line)
        if mm and "= 0" in line:
            exe[pid] = mm.group(1)
            continue
        mm = re.search(r"(?:clone3?|v?fork)(?:\(| resumed>).*= (\d+)$", line)
        if mm:
            exe[mm.group(1)] = exe.get(pid, "roofline")
            continue
        if not exe.get(pid, "roofline").endswith("roofline"):
            continue
        mm = re.search(r'(?:open|openat|creat)\((?:AT_FDCWD, )?"([^"]+)", ([A-Z_|]+)', line)
        if not mm or ("O_CREAT" not in mm.group(2) and "O_TRUNC" not in mm.group(2)):
            continue
        path, flags = mm.group(1), mm.group(2)
        if ("O_EXCL" in flags or path.startswith("/dev/") or "/meta/" in path
                or re.search(r"/roofline-(ncu|timeline)-[A-Za-z0-9]{6}/", path)):
            continue
        out.append(f"opens {path} with {flags} (no O_EXCL, outside its private folder)")
    return out


def strace_cases(m, quick):
    st = 'strace -f -qq -e trace=open,openat,creat,execve,clone,clone3,fork,vfork -o "$ROBUST_META/strace.txt" '
    cmds = {"report": '"$B" report "$M/a.json" -q --svg s.svg -o out.html',
            "import-csv": '"$B" import "$M/seed.csv" -q -o x.csv',
            "profile": '"$B" profile --one-pass --ncu "$M/bin/ncu" --save-csv saved.csv -q -o p.json -- "$M/prog/true.sh"',
            "tour": '"$B" tour --bundled -q --out-dir td'}
    return [Case(f"outputs/strace-{name}", shell=st + c, outputs=("*", "td/*"), expect=E01, check=strace_check, readback=False,
                 needs=("strace",), timeout=120) for name, c in pick(sorted(cmds.items()), quick, 1)]


def full_disk_cases(m, quick):
    """A 256 KiB tmpfs filled up: exit 1, the earlier files whole, no temporary file left."""
    pre = ('mkdir -p small && mount -t tmpfs -o size=256k tmpfs small || exit 97\n'
           'trap "umount small" EXIT\n'
           'for f in x.csv x.verdicts.csv x.opportunities.csv x.roof.csv x.facts.csv x.html; do echo OLD > small/$f; done\n'
           'mkdir -p small/td small/sv; echo OLD > small/td/analysis.json; echo OLD > small/sv/occupancy-block.svg\n'
           'cat /dev/zero > small/fill 2>/dev/null\n')
    post = ('\nrc=$?\nrm -f small/fill\nbad=$(cd small && for f in $(find . -type f); do [ "$(cat "$f")" = OLD ] || echo "$f"; done)\n'
            'left=$(cd small && find . -name ".roofline-*")\n'
            '[ -n "$bad" ] && { echo "FULL-DISK: files changed: $bad" >&2; exit 3; }\n'
            '[ -n "$left" ] && { echo "FULL-DISK: temporary files left: $left" >&2; exit 3; }\n'
            '[ $rc -eq 0 ] && { echo "FULL-DISK: exit 0 although nothing could be written" >&2; exit 3; }\nexit $rc\n')
    cmds = {"import-csv-set": '"$B" import "$M/seed.csv" -q -o small/x.csv',
            "report-html": '"$B" report "$M/a.json" -q -o small/x.html',
            "tour": '"$B" tour --bundled -q --out-dir small/td',
            "occupancy-svg-dir": '"$B" occupancy --gpu h200 --threads 256 --regs 32 --sweep all -q --svg-dir small/sv'}
    return [Case(f"outputs/full-disk-{name}", shell=pre + c + post, files={"small": Dir()}, expect=E12, needs=("mount",),
                 timeout=60) for name, c in pick(sorted(cmds.items()), quick, 1)]


def big_capture(m):
    return m.capture(lambda rows: rows.extend([list(r) for r in rows] * 1999))


def signal_write_cases(m, quick):
    """SIGTERM, SIGINT, SIGHUP, SIGKILL while `import --per-launch -o x.csv` runs over an earlier set:
    all old or all new, never a mix; no temporary file but after SIGKILL."""
    out = []
    sides = ("verdicts", "opportunities", "roof", "facts")

    def consistent(run):
        states = {}
        for rel in ["x.csv"] + [f"x.{s}.csv" for s in sides]:
            data = run.read(rel)
            states[rel] = "gone" if data is None else "old" if data == b"PRECIOUS" else "new"
        if "gone" in states.values() or len(set(states.values())) > 1:
            return [f"the set beside -o is half replaced: {states}"]
        return []
    lazy = Lazy(lambda: big_capture(m))
    # the signal goes once the first temporary file of the set appears beside the target, then 0 to 0.2 s later;
    # before the writing starts the tool has nothing to clean and dies of it (the default action): accepted
    for sig in pick(("TERM", "INT", "HUP", "KILL"), quick, 2):
        for after in pick((0.0, 0.05, 0.2), quick, 1):
            fs = {"big.csv": lazy, "x.csv": "PRECIOUS"}
            fs.update({f"x.{s}.csv": "PRECIOUS" for s in sides})
            num = {"TERM": 15, "INT": 2, "HUP": 1, "KILL": 9}[sig]
            out.append(Case(f"outputs/signal-during-write-{sig}-{after}s",
                            args=["import", "big.csv", "-q", "--per-launch", "-o", "x.csv"], files=fs,
                            outputs=("x.csv", "x.*.csv"), signal=Signal(sig, after=after, wait_for="w/.roofline-*.tmp"),
                            check=consistent, expect=frozenset({0, 1, -num, 128 + num}), timeout=120, readback=False))
    # and before the writing starts: nothing to clean, the default action is fine
    out.append(Case("outputs/signal-before-write-TERM", args=["import", "big.csv", "-q", "--per-launch", "-o", "x.csv"],
                    files={"big.csv": lazy, "x.csv": "PRECIOUS", **{f"x.{s}.csv": "PRECIOUS" for s in sides}},
                    outputs=("x.csv", "x.*.csv"), signal=Signal("TERM", after=0.5), check=consistent,
                    expect=frozenset({0, 1, -15}), timeout=120, readback=False))
    return out


def cases(m, quick):
    return (target_cases(m, quick) + input_cases(m, quick) + side_table_cases(m, quick) + folder_cases(m, quick)
            + planted_temp_names(m, quick) + strace_cases(m, quick) + full_disk_cases(m, quick)
            + signal_write_cases(m, quick))
