"""`timeline` without a GPU: stand-in programs write hostile
roofline.records/v1 files (docs/timeline.md) or plant FIFOs, links and
huge files in $ROOFLINE_TIMELINE_DIR; --records, --inject-lib, --cupti and
the program itself are hostile; the tool gets signals and --timeout. The
record folder's cleanup never follows a link out of it, nothing hangs, and
no process or temporary folder is left."""

import json

from harness import Case, Copy, Dir, File, Lazy, Link, Signal
from ._util import ANY, E01, E12, E2, pick, slug

NAME = "timeline"
ABOUT = "hostile record files and record folders, --records, odd flags, signals and --timeout"

TL = ["timeline", "--inject-lib", "{M}/fake.so"]
BASE = 5_000_000_000
U64 = 18446744073709551615


def H(pid=4242, **clock):
    c = {"cupti_ns": BASE, "unix_ns": 1764480000000000000}
    c.update(clock)
    return json.dumps({"t": "header", "format": "roofline.records/v1", "pid": pid, "clock": c})


N = json.dumps({"t": "name", "id": 1, "s": "_Z6vecaddPKfS0_Pfi"})
E = json.dumps({"t": "end", "reason": "exit", "records": 3})


def K(start=BASE + 100000, end=BASE + 101000, **kw):
    d = {"t": "kernel", "name": 1, "start": start, "end": end, "dev": 0, "ctx": 1, "stream": 7, "corr": 1,
         "grid": [64, 1, 1], "block": [256, 1, 1]}
    d.update(kw)
    return json.dumps(d)


def lines(*ls):
    return "\n".join(ls) + "\n"


def marker(i, flag, ts, name=None):
    d = {"t": "marker", "id": i, "flag": flag, "ts": ts, "pid": 4242, "tid": 1}
    if name is not None:
        d["name"] = name
    return json.dumps(d)


ESC_NAME = json.dumps({"t": "name", "id": 1, "s": "\u001b]0;pwned\u0007<!--</script>=HYPERLINK(1)\n|x|"})
RECORDS = {  # name -> content (str) or a callable making it (big ones); full-only names in BIG
    "minimal": lines(H(), N, K(), E),
    "end-before-start": lines(H(), N, K(start=BASE + 101000, end=BASE + 100000), E),
    "u64-max-times": lines(H(), N, K(start=U64, end=U64), E),
    "start-0-end-u64-max": lines(H(), N, K(start=0, end=U64), K(corr=2), E),
    "end-over-u64": lines(H(), N, K(start=1, end=U64 + 1), E),
    "negative-times": lines(H(), N, K(start=-5, end=-1), E),
    "float-times": lines(H(), N, K(start=1e308, end=1.7976931348623157e308), E),
    "400-digit-time": lines(H(), N, K(end=int("1" + "0" * 400)), E),
    "zero-length": lines(H(), N, K(start=5, end=5), E),
    "times-far-apart": lines(H(), N, K(start=1, end=2), K(start=U64 - 615, end=U64 - 614, corr=2), E),
    "missing-name-id": lines(H(), K(name=99), E),
    "name-id-u64-max": lines(H(), N, K(name=U64), E),
    "name-defined-twice": lines(H(), N, json.dumps({"t": "name", "id": 1, "s": "other"}), K(), E),
    "name-not-an-int": lines(H(), N, K(name="x"), E),
    "huge-grid": lines(H(), N, K(grid=[4294967295] * 3, block=[4294967295] * 3, regs=4294967295, smem_static=U64, smem_dynamic=U64), E),
    "grid-wrong-shape": lines(H(), N, K(grid=[1], block="x"), E),
    "grid-zero": lines(H(), N, K(grid=[0, 0, 0]), E),
    "device-ids-huge": lines(H(), N, K(dev=4294967295, ctx=U64, stream=U64),
                             json.dumps({"t": "device", "id": 4294967295, "name": "x", "sms": 0, "cc": "99.99"}), E),
    "device-hostile": lines(H(), json.dumps({"t": "device", "id": 0, "name": "\u001b[2J<!--", "cc": "99.9", "sms": 0}), N, K(), E),
    "no-header": lines(N, K(), E),
    "two-headers": lines(H(), H(1), N, K(), E),
    "format-v999": lines(H().replace("v1", "v999"), N, K(), E),
    "clock-huge": lines(H(unix_ns=U64), N, K(), E),
    "clock-zero": lines(H(cupti_ns=0, unix_ns=0), N, K(), E),
    "clock-negative": lines(H(pid=-1, cupti_ns=-5, unix_ns=1e300), N, K(), E),
    "hostile-name": lines(H(), ESC_NAME, K(), E),
    "error-records-with-escapes": lines(H(), N, K(), *[json.dumps({"t": "error", "message": "\u001b]0;pwned\u0007"})] * 100, E),
    "memcpy-huge": lines(H(), json.dumps({"t": "memcpy", "copy": "HtoD", "bytes": U64, "start": 5, "end": 6, "dev": 0, "ctx": 1,
                                          "stream": 1, "corr": 1}), E),
    "memcpy-unknown-kind": lines(H(), json.dumps({"t": "memcpy", "copy": "ZtoQ", "bytes": 1, "start": 5, "end": 6, "dev": 0,
                                                  "ctx": 1, "stream": 1, "corr": 1, "src_dev": 99999, "dst_dev": -1}), E),
    "memset-negative-reversed": lines(H(), json.dumps({"t": "memset", "bytes": -1, "value": "x", "start": 2, "end": 1}), E),
    "dropped-u64-max-twice": lines(H(), N, K(), json.dumps({"t": "dropped", "count": U64}), json.dumps({"t": "dropped", "count": U64}),
                                   json.dumps({"t": "end", "reason": "signal 99999", "records": -1})),
    "nvtx-unmatched-ends": lines(H(), N, *[marker(i, "end", BASE + i) for i in range(1000)], K(), E),
    "unknown-record-type": lines(H(), json.dumps({"t": "zzz", "a": 1}), N, K(), E),
    "type-key-last": lines(H(), '{"name":1,"start":5000100000,"end":5000101000,"dev":0,"ctx":1,"stream":7,"corr":1,"t":"kernel"}', E),
    "cut-mid-line": lines(H(), N) + K()[:30],
    "no-end-record": lines(H(), N, K()),
    "partial-last-record": lines(H(), N, K()) + '{"t":"kernel","name":1,"sta',
    "deep-json-line": lines(H(), N, "[" * 100000 + "]" * 100000, K(), E),
    "deep-header": '{"t":"header","x":' + "[" * 100000 + "]" * 100000 + "}\n" + lines(N, K()),
    "binary-garbage": None,  # made below
    "api-flood": None, "nvtx-20k-nested": None, "nvtx-50k-same-id": None, "100k-kernels": None, "10k-devices": None,
}
BIG = {"50mb-name", "300k-kernels", "200k-names", "nvtx-200k-unclosed", "nul-lines-50mb"}


def make(name):
    import random
    if name == "binary-garbage":
        return random.Random(5).randbytes(5_000_000)
    if name == "api-flood":
        return lines(H(), N, *[json.dumps({"t": "api", "name": 1, "start": BASE + i, "end": BASE + i, "tid": 1, "corr": 1})
                               for i in range(100000)], K(), E)
    if name == "nvtx-20k-nested":
        return lines(H(), N, *[marker(i, "start", BASE + i, 1) for i in range(20000)], K(),
                     *[marker(i, "end", BASE + 200000 - i) for i in range(20000)], E)
    if name == "nvtx-50k-same-id":
        return lines(H(), N, *[marker(7, "start", BASE + i, 1) for i in range(50000)], K(), E)
    if name == "100k-kernels":
        return lines(H(), N, *[K(start=BASE + 10 * i, end=BASE + 10 * i + 5, corr=i) for i in range(100000)], E)
    if name == "10k-devices":
        return lines(H(), N, *[json.dumps({"t": "device", "id": i, "name": "D" * 100, "sms": 0, "cc": "x"}) for i in range(10000)], K(), E)
    if name == "50mb-name":
        return lines(H(), json.dumps({"t": "name", "id": 1, "s": "Q" * 50_000_000}), K(), E)
    if name == "300k-kernels":
        return lines(H(), N, *[K(start=BASE + 10 * i, end=BASE + 10 * i + 5, corr=i) for i in range(300000)], E)
    if name == "200k-names":
        return lines(H(), *[json.dumps({"t": "name", "id": i, "s": f"k{i}"}) + "\n" + K(name=i, start=BASE + i, end=BASE + i + 1, corr=i)
                            for i in range(200000)])
    if name == "nvtx-200k-unclosed":
        return lines(H(), N, *[marker(i, "start", BASE + i, 1) for i in range(200000)], K(), E)
    if name == "nul-lines-50mb":
        return b"\0" * 50_000_000
    raise KeyError(name)


COPY_RECORDS = 'cp rec.jsonl "${ROOFLINE_TIMELINE_DIR:?}/$$.jsonl"\n'
MODES = {  # output mode -> (flags, outputs)
    "table": ([], ()), "trace": (["--format", "trace"], ()), "json": (["-o", "tl.json"], ("tl.json",)),
    "html": (["-o", "tl.html"], ("tl.html",)), "records": (["--records", "recs"], ("recs", "recs/*")),
}


def prog(body):
    return File("#!/bin/bash\n" + body, 0o755)


def record_cases(m, quick):
    out = []
    names = list(RECORDS) + ([] if quick else sorted(BIG))
    for i, name in enumerate(pick(names, quick, 12)):
        content = RECORDS.get(name)
        data = Lazy(lambda name=name: make(name)) if content is None else content
        big = name in BIG or name in ("100k-kernels", "binary-garbage", "api-flood")
        modes = ["json"] if quick or big else sorted(MODES)
        for mode in modes:
            flags, outputs = MODES[mode]
            out.append(Case(f"timeline/records-{name}-{mode}", args=TL + flags + ["-q", "--", "./prog.sh"],
                            files={"rec.jsonl": data, "prog.sh": prog(COPY_RECORDS)}, outputs=outputs, expect=E01,
                            stdout_lacks=(b"\x1b]0;pwned", b"\x1b[2J"), stderr_lacks=("\x1b]0;pwned", "\x1b[2J"),
                            timeout=120 if big else 60, mem_mb=1024))
    return out


FOLDER = {  # name -> program body (run with $D the record folder); full-only names in FOLDER_BIG
    "fifo": 'mkfifo "$D/$$.jsonl"',
    "fifo-after-a-good-file": 'cp "$M/good.jsonl" "$D/1.jsonl"; mkfifo "$D/2.jsonl"',
    "fifo-with-a-writer": 'mkfifo "$D/$$.jsonl"; (exec -a robust-fifo-writer sleep 60 > "$D/$$.jsonl" &); sleep 0.2',
    "link-to-dev-zero": 'ln -s /dev/zero "$D/$$.jsonl"',
    "link-to-dev-urandom": 'ln -s /dev/urandom "$D/$$.jsonl"',
    "links-to-system-files": 'ln -s /etc/passwd "$D/1.jsonl"; ln -s /proc/self/mem "$D/2.jsonl"',
    "link-to-canary": 'ln -s "$OUTSIDE/canary.txt" "$D/$$.jsonl"; ln -s "$OUTSIDE/dir" "$D/sub"',
    "hard-link-to-canary": 'ln "$OUTSIDE/canary.txt" "$D/$$.jsonl"',
    "dangling-link": 'ln -s /nonexistent "$D/$$.jsonl"',
    "link-loop": 'ln -s "$D/$$.jsonl" "$D/$$.jsonl"',
    "folder-named-jsonl": 'mkdir -p "$D/$$.jsonl/x"',
    "socket": 'python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$D/$$.jsonl"',
    "sparse-2g": 'truncate -s 2G "$D/$$.jsonl"',
    "huge-line-then-records": '{ head -c 40000000 /dev/zero | tr "\\0" a; echo; cat "$M/good.jsonl"; } > "$D/$$.jsonl"',
    "100mb-without-newline": '{ echo \'' + H() + '\'; head -c 100000000 /dev/zero | tr "\\0" a; } > "$D/$$.jsonl"',
    "binary-3mb": 'head -c 3000000 /dev/urandom > "$D/$$.jsonl"',
    "odd-file-names": 'cp "$M/good.jsonl" "$D/.hidden.jsonl"; cp "$M/good.jsonl" "$D/x y.jsonl"; cp "$M/good.jsonl" "$D/$(printf "\\xff\\xfe").jsonl"',
    "background-child-after-exit": '(exec -a robust-bg sleep 30 &); exit 0',
    "folder-removed": 'rm -rf "$D"',
    "folder-replaced-by-link-out": 'rm -rf "$D"; ln -s "$OUTSIDE/dir" "$D"',
    "folder-chmod-000": 'cp "$M/good.jsonl" "$D/1.jsonl"; chmod 000 "$D/1.jsonl"; chmod 000 "$D"',
    "environment-changed": 'export ROOFLINE_TIMELINE_DIR=/; true',
    "writer-after-exit": 'cp "$M/good.jsonl" "$D/1.jsonl"; (setsid timeout 10 bash -c \'exec -a robust-writer bash -c "while :; do cat \\"$M/good.jsonl\\" >> \\"$D/9999.jsonl\\" 2>/dev/null || exit 0; sleep 0.01; done"\' &)',
}
FOLDER_BIG = {
    "sparse-20g": 'truncate -s 20G "$D/$$.jsonl"',
    "400mb-line": 'head -c 400000000 /dev/zero | tr "\\0" a > "$D/$$.jsonl"',
    "nul-50mb": 'head -c 50000000 /dev/zero > "$D/$$.jsonl"',
    "2000-files": 'for i in $(seq 1 2000); do cp "$M/good.jsonl" "$D/$i.jsonl"; done',
}


def folder_cases(m, quick):
    out = []
    bodies = dict(FOLDER)
    if not quick:
        bodies.update(FOLDER_BIG)
    for name in pick(sorted(bodies), quick, 8):
        body = bodies[name]
        extra = {}
        if name == "writer-after-exit":
            # documented: a helper that left the program's group is left alone; it may race the folder's removal
            extra = dict(leftover_ok=("robust-writer", "sleep 0.01", "timeout 10"), tmp_ok=True)
        if name == "hard-link-to-canary":
            extra = dict(needs=("root",))
        out.append(Case(f"timeline/folder-{name}", args=TL + ["--timeout", "60s", "-o", "tl.json", "-q", "--", "./prog.sh"],
                        files={"prog.sh": prog('export D="${ROOFLINE_TIMELINE_DIR:?}"\n' + body + "\n")}, outputs=("tl.json",),
                        expect=E01, timeout=120 if name in FOLDER_BIG else 90, mem_mb=1024, settle=2, **extra))
    return out


def flag_cases(m, quick):
    rec = {"prog.sh": prog(COPY_RECORDS), "rec.jsonl": RECORDS["minimal"]}
    cs = [
        Case("timeline/records-existing-folder", args=TL + ["--records", "R", "-q", "--", "./prog.sh"],
             files={**rec, "R/1.jsonl": Copy("{M}/good.jsonl")}, outputs=("R/*",), expect=ANY),
        Case("timeline/records-a-file", args=TL + ["--records", "R", "-q", "--", "./prog.sh"], files={**rec, "R": "x"}, expect=E12),
        Case("timeline/records-an-analysis", args=TL + ["--records", "a.json", "-q", "--", "./prog.sh"],
             files={**rec, "a.json": Copy("{M}/a.json")}, expect=E12),
        Case("timeline/records-link-out", args=TL + ["--records", "R", "-q", "--", "./prog.sh"],
             files={**rec, "R": Link("../outside/dir")}, outputs=("../outside/dir/*",), expect=ANY),
        Case("timeline/records-folder-with-other-files", args=TL + ["--records", "R", "-q", "--", "./prog.sh"],
             files={**rec, "R/keep.txt": "keep\n"}, outputs=("R/*.jsonl",), expect=ANY),
        Case("timeline/records-not-utf8", args=TL + ["--records", b"\xff\xfeR", "-q", "--", "./prog.sh"], files=rec,
             outputs=("\udcff\udcfeR", "\udcff\udcfeR/*"), expect=ANY),
        Case("timeline/records-with-a-jsonl-folder", args=TL + ["--records", "R", "-q", "--", "./prog.sh"],
             files={**rec, "R/a.jsonl": Dir()}, outputs=("R/*",), expect=ANY),
        Case("timeline/records-twice", shell='"$B" timeline --inject-lib "$M/fake.so" --records R -q -- ./prog.sh && '
                                             'exec "$B" timeline --inject-lib "$M/fake.so" --records R -q -- ./prog.sh',
             files=rec, outputs=("R", "R/*"), expect=ANY),
        Case("timeline/no-injection-library", args=["timeline", "-q", "--", "./prog.sh"], files=rec, expect=ANY),
        Case("timeline/inject-lib-missing", args=["timeline", "--inject-lib", "/nonexistent.so", "-q", "--", "./prog.sh"], files=rec,
             expect=E12),
        Case("timeline/inject-lib-a-folder", args=["timeline", "--inject-lib", "/tmp", "-q", "--", "./prog.sh"], files=rec, expect=E2,
             stderr_has=("folder",)),
        Case("timeline/inject-lib-dev-null", args=["timeline", "--inject-lib", "/dev/null", "-q", "--", "./prog.sh"], files=rec,
             expect=E2, stderr_has=("regular file",)),
        Case("timeline/cupti-missing", args=TL + ["--cupti", "/nonexistent", "-q", "--", "./prog.sh"], files=rec, expect=ANY),
        Case("timeline/cupti-dev-zero", args=TL + ["--cupti", "/dev/zero", "-q", "--", "./prog.sh"], files=rec, expect=ANY),
        Case("timeline/cupti-a-folder", args=TL + ["--cupti", "/tmp", "-q", "--", "./prog.sh"], files=rec, expect=ANY),
        Case("timeline/injection-variable-already-set", args=TL + ["-q", "--", "./prog.sh"], files=rec,
             env={"CUDA_INJECTION64_PATH": "/x.so"}, expect=ANY),
        Case("timeline/no-program", args=TL + ["-q", "--"], expect=E2),
        Case("timeline/program-missing", args=TL + ["-q", "--", "/nonexistent/prog"], expect=E12),
        Case("timeline/program-a-folder", args=TL + ["-q", "--", "/tmp"], expect=E12),
        Case("timeline/program-interpreter-missing", args=TL + ["-q", "--", "./s.sh"], files={"s.sh": File("#!/nonexistent/interp\n", 0o755)},
             expect=E12, stderr_has=("interp",)),
        Case("timeline/program-argument-not-utf8", args=TL + ["-q", "--", "./prog.sh", b"arg\xff"], files=rec, expect=ANY,
             note="known (F15 of pass 5): refused with exit 2"),
        Case("timeline/program-exits-7", args=TL + ["-q", "-o", "t.json", "--", "{M}/prog/exit7.sh"], outputs=("t.json",), expect=E01),
        Case("timeline/program-segv", args=TL + ["-q", "-o", "t.json", "--", "{M}/prog/segv.sh"], outputs=("t.json",), expect=E01),
        Case("timeline/program-spews-200mb", args=TL + ["-q", "--", "{M}/prog/spew.sh"], expect=E01, timeout=90),
        Case("timeline/tmpdir-missing", args=TL + ["-q", "--", "./prog.sh"], files=rec, env={"TMPDIR": "/nonexistent"}, expect=ANY),
        Case("timeline/tmpdir-dev-null", args=TL + ["-q", "--", "./prog.sh"], files=rec, env={"TMPDIR": "/dev/null"}, expect=ANY),
    ]
    for flag, v in (("--top", "0"), ("--top", "18446744073709551616"), ("--gaps", "0"), ("--timeout", "0"), ("--timeout", "-5"),
                    ("--timeout", "1s"), ("--target-processes", "application-only"), ("--target-processes", "nosuch")):
        cs.append(Case(f"timeline/flag{flag}={slug(v)}", args=TL + [flag, v, "-q", "--", "./prog.sh"], files=rec, expect=ANY))
    return pick(cs, quick, 8)


def signal_cases(m, quick):
    out = []
    earlier = {"out.json": Copy("{M}/t.json")}
    for p in pick(["sleep", "grand", "ignore"], quick, 2):
        for sig in pick(["INT", "TERM", "HUP", "QUIT", "USR1", "KILL"], quick, 2):
            kill = sig == "KILL"
            out.append(Case(f"timeline/{sig}-while-program-{p}", args=TL + ["-o", "out.json", "-q", "--", f"{{M}}/prog/{p}.sh"],
                            files=earlier, outputs=("out.json",), signal=Signal(sig, after=0.5, wait_for="prog-started"),
                            settle=5 if kill else 4, leftover_ok=("robust-prog-setsid",) if kill else (), timeout=60,
                            note="documented: helpers that left the group (setsid) survive a SIGKILL of the tool" if kill else ""))
    out.append(Case("timeline/TERM-to-group", args=TL + ["-o", "out.json", "-q", "--", "{M}/prog/sleep.sh"], files=earlier,
                    outputs=("out.json",), signal=Signal("TERM", after=0.5, wait_for="prog-started", target="group"), settle=4,
                    timeout=60))
    for p in pick(["sleep", "grand", "ignore"], quick, 1):
        out.append(Case(f"timeline/timeout-2s-program-{p}", args=TL + ["--timeout", "2s", "-o", "t.json", "-q", "--",
                                                                        f"{{M}}/prog/{p}.sh"], outputs=("t.json",), expect=E01,
                        settle=4, timeout=60))
    out.append(Case("timeline/program-leaves-background-jobs", args=TL + ["-o", "t.json", "-q", "--", "{M}/prog/bg-exit.sh"],
                    outputs=("t.json",), expect=E01, settle=4, leftover_ok=("robust-prog-setsid",), timeout=60,
                    note="documented: jobs left in the program's group are stopped; helpers that left it (setsid) are not"))
    return out


def cases(m, quick):
    return record_cases(m, quick) + folder_cases(m, quick) + flag_cases(m, quick) + signal_cases(m, quick)
