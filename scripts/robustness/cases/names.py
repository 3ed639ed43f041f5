"""Hostile kernel names (and titles, machine names, file names) through every
output: no terminal escape sequence reaches a terminal (table, chart,
Markdown, CSV, stderr), no markup is injected into HTML or SVG (and the SVG
stays well-formed XML), no Markdown row is forged, no CSV formula cell."""

import csv
import io
import json
import re

from harness import Case
from ._util import ANY

NAME = "names"
ABOUT = "hostile kernel names, titles and machine names through every format"

HOSTILE = {
    "html-comment": "k<!--x", "html-comment-close": "k-->x<!--", "script-close": "k</script><script>alert(1)</script>",
    "script-close-upper": "k</SCRIPT >x", "img-onerror": '<img src=x onerror="alert(1)">', "cdata-end": "k]]>x",
    "entities": "k&amp;&lt;&", "quotes": "k\"'`x", "backslash-escapes": "k\\u0022\\x", "u2028": "k\u2028\u2029x",
    "md-pipe": "k|x|y", "md-newline-row": "k\n| injected | row |", "md-cr-row": "k\r| injected |",
    "md-link": "[click](javascript:alert(1))", "md-backticks": "k``x`", "md-heading": "# heading",
    "ansi-clear": "k\x1b[2J\x1b[Hx", "ansi-title": "k\x1b]0;pwned\x07x", "ansi-osc8": "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\",
    "c1-csi": "k\u009b2Jx", "bidi": "k\u202egnp.exe", "bell-backspace": "k\x07\x08\x08\x08x",
    "csv-equals": '=HYPERLINK("http://evil","x")', "csv-plus": "+1+cmd|' /C calc'!A0", "csv-minus": "-2+3",
    "csv-at": "@SUM(A1)", "csv-tab": "\t=1+1", "csv-cr": "\r=1+1", "long-100k": "k" * 100000, "blank": " ",
    "nul": "k\x00x", "zwj-emoji": "k\U0001F469\u200d\U0001F469\u200d\U0001F467x\u200b", "rank-template": "{rank}",
    "path": "../../etc/passwd", "format-string": "%s%n%x", "nel": "\u0085nel", "replacement": "\ufffd",
}

RUNS = {  # name -> (shell command, format judged on stdout)
    "import-table": ('"$B" import cap.csv -q --wide --color never', "table"),
    "import-table-colour": ('"$B" import cap.csv -q --wide --color always', "colour"),
    "import-markdown": ('"$B" import cap.csv -q --format markdown', "markdown"),
    "import-csv": ('"$B" import cap.csv -q --format csv', "csv"),
    "import-html": ('"$B" import cap.csv -q -o r.html >/dev/null && cat r.html', "html"),
    "import-svg": ('"$B" import cap.csv -q -o a.json >/dev/null && "$B" report a.json -q -o r.svg', None),
    "report-html": ('"$B" report in.json -q --format html', "html"),
    "report-markdown": ('"$B" report in.json -q --format markdown', "markdown"),
    "report-csv": ('"$B" report in.json -q --format csv', "csv"),
    "report-chart": ('"$B" report in.json -q --format chart', "chart"),
    "report-wide": ('"$B" report in.json -q --wide', "table"),
    "check-markdown": ('"$B" check in.json -q --min-pct-of-roof 90 --format markdown', "markdown"),
    "check-csv": ('"$B" check in.json -q --min-pct-of-roof 90 --format csv', "csv"),
    "check-table": ('"$B" check in.json -q --min-pct-of-roof 90', "table"),
    "diff-markdown": ('"$B" diff "$M/a.json" in.json -q --format markdown', "markdown"),
    "diff-csv": ('"$B" diff "$M/a.json" in.json -q --format csv', "csv"),
    "diff-table": ('"$B" diff "$M/a.json" in.json -q', "table"),
    "diff-html": ('"$B" diff "$M/a.json" in.json -q -o d.html >/dev/null && cat d.html', "html"),
    "merge-markdown": ('"$B" merge in.json "$M/b.json" -q --format markdown', "markdown"),
    "merge-csv": ('"$B" merge in.json "$M/b.json" -q --format csv', "csv"),
    "merge-table": ('"$B" merge in.json "$M/b.json" -q', "table"),
    "title-html": ('"$B" report "$M/a.json" -q --title "$(cat title)" --format html', "html"),
    "title-svg": ('"$B" diff "$M/a.json" "$M/b.json" -q --title "$(cat title)" -o d.svg', None),
}
QUICK_RUNS = ("import-table", "import-csv", "import-svg", "report-html", "report-chart", "diff-markdown", "title-svg")


def judge(fmt):
    def check(run):
        out = []
        data, err = run.stdout, run.stderr
        if "\x1b]" in err or "\x1b[2J" in err or "\u009b" in err:
            out.append("an escape sequence from a name reaches stderr raw")
        if run.rc != 0:
            return out
        if fmt == "colour":
            # the tool's own colours are fine; the name's sequences are not
            if re.search(rb"\x1b\[2J|\x1b\]|\x07|\xc2\x9b", data):
                out.append("a name's escape sequence reaches the coloured table")
        if fmt in ("table", "chart", "markdown", "csv"):
            for needle, what in ((b"\x1b", "ESC"), ("\u009b".encode(), "C1 CSI"), (b"\x07", "BEL")):
                if needle in data:
                    out.append(f"{what} byte in the {fmt} output")
        text = data.decode("utf-8", "replace")
        if fmt == "markdown":
            if any(re.match(r"\s*\|?\s*injected", line) or re.match(r"\s*=1\+1", line) for line in text.splitlines()):
                out.append("a name starts its own Markdown table row")
            if re.search(r"(?<!\\)<(img|/script|!--)", text, re.I):
                out.append("raw HTML from a name in the Markdown")
        if fmt == "csv":
            try:
                for row in csv.reader(io.StringIO(text)):
                    bad = [c for c in row if c[:1] in ("=", "+", "@", "\t", "\r") or re.match(r"-\d+\+", c)]
                    if bad:
                        out.append(f"CSV formula cell {bad[0][:30]!r}")
                        break
            except csv.Error as e:
                out.append(f"the CSV does not parse: {e}")
        if fmt == "html":
            low = data.lower()
            if re.search(rb"<script>alert|<img src=x", data, re.I):
                out.append("a name injected raw HTML")
            if low.count(b"</script") != low.count(b"<script"):
                out.append("unbalanced <script> tags")
            for mm in re.finditer(rb'<script[^>]*type="application/json"[^>]*>(.*?)</script>', data, re.S):
                try:
                    json.loads(mm.group(1))
                except ValueError as e:
                    out.append(f"an embedded JSON block does not parse: {e}")
                    break
        return out
    return check


def named(m, names):
    name_i = m.col("Kernel Name")
    kernels = sorted({r[name_i] for r in m.rows})

    def mut(rows):
        for r in rows:
            i = kernels.index(r[name_i])
            if i < len(names):
                r[name_i] = names[i]
    cap = m.capture(mut)
    doc = m.doc("a.json")
    for k, nm in zip(doc["kernels"], names):
        k["kernel"]["name"] = nm
        k["kernel"]["display_name"] = nm
    return cap, json.dumps(doc)


def cases(m, quick):
    out = []
    if quick:
        groups = {"all-at-once-a": list(HOSTILE.values())[:11], "all-at-once-b": list(HOSTILE.values())[11:22],
                  "all-at-once-c": list(HOSTILE.values())[22:33], "all-at-once-d": list(HOSTILE.values())[33:]}
    else:
        groups = {tag: [nm] for tag, nm in HOSTILE.items()}
    for tag, names in groups.items():
        cap, doc = named(m, names)
        title = names[0].replace("\x00", "")
        for run in (QUICK_RUNS if quick else RUNS):
            shell, fmt = RUNS[run]
            out.append(Case(f"names/{tag}-{run}", shell=shell, files={"cap.csv": cap, "in.json": doc, "title": title},
                            outputs=("*.html", "*.svg", "a.json"), expect=ANY, check=judge(fmt), timeout=60))
    # names that reach stderr and the terminal by other ways
    esc = "\x1b]0;pwned\x07<script>alert(1)</script>"
    mdoc = m.doc("m.json")
    mdoc["machine"]["name"] = esc
    out += [
        Case("names/machine-name-chart", args=["report", "m.json", "--format", "chart", "-q"], files={"m.json": json.dumps(mdoc)},
             stdout_lacks=(b"\x1b]0;pwned",), stderr_lacks=("\x1b]0;pwned",)),
        Case("names/machine-name-html", args=["report", "m.json", "-q", "-o", "r.html"], files={"m.json": json.dumps(mdoc)},
             outputs=("r.html",), check=lambda run: ["raw <script> in the page"] if b"<script>alert(1)" in (run.read("r.html") or b"") else []),
        Case("names/file-name-in-error", args=["report", esc + ".json", "-q"], stderr_lacks=("\x1b]0;pwned",)),
        Case("names/check-kernel-flag", args=["check", "{M}/a.json", "--kernel", esc + "=50"],
             stdout_lacks=(b"\x1b]0;pwned",), stderr_lacks=("\x1b]0;pwned",)),
        Case("names/model-kernel-spec", args=["model", "--gpu", "h200", "-k", esc + ": flops=1 bytes=1", "--format", "table"],
             stdout_lacks=(b"\x1b]0;pwned",), stderr_lacks=("\x1b]0;pwned",)),
        Case("names/machine-name-table", args=["report", "m.json", "-q"], files={"m.json": json.dumps(mdoc)},
             stdout_lacks=(b"\x1b]0;pwned",), stderr_lacks=("\x1b]0;pwned",)),
        Case("names/title-escapes-x1000-svg", args=["report", "{M}/a.json", "--title", "\x1b]0;x\x07" * 1000, "-q", "-o", "r.svg"],
             outputs=("r.svg",), check=lambda run: ["ESC in the SVG"] if b"\x1b" in (run.read("r.svg") or b"") else []),
        Case("names/title-escapes-x1000-html", args=["report", "{M}/a.json", "--title", "\x1b]0;x\x07" * 1000, "-q", "-o", "r.html"],
             outputs=("r.html",)),
        Case("names/title-100kb", args=["report", "{M}/a.json", "-q", "--title", "x" * 100000, "-o", "r.html"], outputs=("r.html",)),
    ]
    return out
