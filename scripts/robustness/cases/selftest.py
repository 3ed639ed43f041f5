"""The harness's own test: each case here misbehaves on purpose (with bash,
not the tool) and names the findings it must produce. `run.py --selftest`
runs them and fails when a finding is missed or one appears that should
not; it is not one of the groups a normal run takes."""

from harness import Case, Copy, File, Lazy

NAME = "selftest"
ABOUT = "the harness catches each kind of finding (run with --selftest)"


def cases(m, quick):
    return [
        Case("selftest/clean", shell='"$B" peaks --gpu h200 -q -o p.json', outputs=("p.json",), selftest=()),
        Case("selftest/hang", shell="sleep 30", timeout=1, selftest=("hang",)),
        Case("selftest/signal", shell="kill -SEGV $$", selftest=("signal",)),
        Case("selftest/panic", shell="echo \"thread 'main' panicked at src/main.rs:1:1\" >&2; exit 101", selftest=("panic",)),
        Case("selftest/exit-code", shell="exit 5", selftest=("exit-code",)),
        Case("selftest/unexpected-exit-2", shell='"$B" report /nonexistent -q', expect=frozenset({0}), selftest=("exit-code",)),
        Case("selftest/process-left", shell="(setsid sleep 30 &); exit 0", selftest=("process-left",)),
        Case("selftest/process-left-documented", shell="(setsid bash -c 'exec -a robust-documented sleep 30' &); exit 0",
             leftover_ok=("robust-documented",), selftest=()),
        Case("selftest/temp-left", shell='mkdir "$TMPDIR/roofline-x"', selftest=("temp-left",)),
        Case("selftest/temp-named-on-stderr", shell='mkdir "$TMPDIR/roofline-kept"; echo "kept at $TMPDIR/roofline-kept" >&2',
             selftest=()),
        Case("selftest/temp-beside-target", shell="touch .roofline-abc123.tmp", selftest=("temp-left",)),
        Case("selftest/outside-changed", shell="echo x >> ../outside/canary.txt", selftest=("outside-change",)),
        Case("selftest/input-changed", shell="echo x >> in.json", files={"in.json": Copy("{M}/a.json")},
             selftest=("outside-change",)),
        Case("selftest/file-replaced", shell="rm l.json; echo x > l.json", files={"l.json": File("x")},
             selftest=("outside-change",)),
        Case("selftest/file-created", shell="touch new.txt", selftest=("outside-change",)),
        Case("selftest/not-written", shell="exit 0", must_write=("out.json",), selftest=("not-written",)),
        Case("selftest/unreadable-json", shell="echo '{\"a\": NaN}' > out.json", outputs=("out.json",), selftest=("unreadable",)),
        Case("selftest/unreadable-analysis", shell='echo \'{"schema": "roofline.analysis/v2"}\' > out.json', outputs=("out.json",),
             selftest=("unreadable",)),
        Case("selftest/unreadable-svg", shell="echo '<svg><g></svg>' > out.svg", outputs=("out.svg",), selftest=("unreadable",)),
        Case("selftest/data-loss", shell="echo broken > p.json; exit 1", files={"p.json": "earlier"}, outputs=("p.json",),
             keep_on_failure=("p.json",), selftest=("data-loss", "unreadable")),
        Case("selftest/message", shell="echo 'error: rate = 1" + "0" * 80 + ": out of range' >&2; exit 2", selftest=("message",)),
        Case("selftest/check", shell="printf 'x\\033]0;t\\007'", stdout_lacks=(b"\x1b]0",), selftest=("check",)),
        Case("selftest/stderr-has", shell="echo nothing useful >&2; exit 2", stderr_has=("folder",), selftest=("check",)),
        # peak RSS is sampled every 10 ms: a run needs to last a little to be measured
        Case("selftest/memory", args=["import", "big.csv", "-q", "--per-launch"], mem_mb=2,
             files={"big.csv": Lazy(lambda: m.capture(lambda rows: rows.extend([list(r) for r in rows] * 300)))},
             selftest=("memory",)),
    ]
