#!/usr/bin/env bash
# Screenshots of `roofline tour` (bundled data) as a person sees it in a
# terminal: run in tmux at 80 and 120 columns (a real TTY: the width and the
# colours are the tool's own detection), the panes captured with their
# colours (tmux capture-pane -e), turned into HTML and photographed by
# headless Chromium. Writes docs/screenshots/tour-80x{LINES}.png and
# tour-120x{LINES}.png, and the captured text beside them (.ansi).
#
#   scripts/screenshots-terminal.sh            # builds the release binary if needed
#   ROOFLINE=path/to/roofline LINES=48 scripts/screenshots-terminal.sh
#
# Needs tmux, python3 and chromium (Debian: apt-get install tmux chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out="$root/docs/screenshots"
lines=${LINES:-48}
bin=${ROOFLINE:-$root/target/release/roofline}
if [ ! -x "$bin" ] && [ -z "${ROOFLINE:-}" ]; then
  cargo build --release -p roofline
fi
# The pane runs in a temporary folder: a relative ROOFLINE (target/debug/roofline)
# is made absolute here, else the screenshots show "No such file or directory".
case $bin in /*) ;; *) bin="$root/$bin" ;; esac
[ -x "$bin" ] || { echo "screenshots: $bin is not an executable (set ROOFLINE to a built roofline)" >&2; exit 1; }
for tool in tmux python3 chromium; do
  command -v "$tool" >/dev/null || { echo "screenshots: $tool is missing (apt-get install $tool)" >&2; exit 1; }
done
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for cols in 80 120; do
  session="roofline-shot-$cols-$$"
  # A tall pane, so that the whole first screen and more stays in view.
  tmux new-session -d -s "$session" -x "$cols" -y "$lines" \
    "cd '$work' && env -u NO_COLOR TERM=xterm-256color '$bin' tour --bundled --out-dir tour-$cols; echo \"[done \$?]\"; sleep 60"
  for _ in $(seq 1 100); do
    tmux capture-pane -p -S - -E - -t "$session" | grep -q '^\[done ' && break
    sleep 0.2
  done
  status=$(tmux capture-pane -p -S - -E - -t "$session" | sed -n 's/^\[done \([0-9]*\)\]$/\1/p')
  tmux capture-pane -e -p -S - -E - -t "$session" | head -n "$lines" > "$work/tour-$cols.ansi"
  tmux kill-session -t "$session"
  # Only a tour that ran and printed its answer replaces the committed screenshot.
  if [ "$status" != 0 ] || ! grep -q 'Where the GPU time goes' "$work/tour-$cols.ansi"; then
    echo "screenshots: \`$bin tour --bundled\` at $cols columns did not print its summary (exit status ${status:-unknown}); its screen:" >&2
    cat "$work/tour-$cols.ansi" >&2
    exit 1
  fi
  cp "$work/tour-$cols.ansi" "$out/tour-$cols.ansi"

  python3 - "$out/tour-$cols.ansi" "$work/tour-$cols.html" "$cols" <<'PY'
import html, re, sys
src, dst, cols = sys.argv[1], sys.argv[2], int(sys.argv[3])
# The 16 colours of a common dark terminal theme (xterm's, a little softened).
palette = ["#1e1e1e", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
           "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff"]
text = open(src, encoding="utf-8").read()
state = {"fg": None, "bold": False}
out = []
def span_open():
    style = []
    if state["fg"] is not None:
        style.append(f"color:{state['fg']}")
    if state["bold"]:
        style.append("font-weight:bold")
    return f'<span style="{";".join(style)}">' if style else "<span>"
out.append(span_open())
for part in re.split(r"(\x1b\[[0-9;]*m)", text):
    m = re.fullmatch(r"\x1b\[([0-9;]*)m", part)
    if not m:
        out.append(html.escape(part))
        continue
    codes = [int(c) if c else 0 for c in m.group(1).split(";")]
    i = 0
    while i < len(codes):
        c = codes[i]
        if c == 0:
            state.update(fg=None, bold=False)
        elif c == 1:
            state["bold"] = True
        elif c == 22:
            state["bold"] = False
        elif 30 <= c <= 37:
            state["fg"] = palette[c - 30]
        elif 90 <= c <= 97:
            state["fg"] = palette[c - 90 + 8]
        elif c == 39:
            state["fg"] = None
        elif c == 38 and i + 2 < len(codes) and codes[i + 1] == 5:
            n = codes[i + 2]
            state["fg"] = palette[n] if n < 16 else None
            i += 2
        i += 1
    out.append("</span>" + span_open())
out.append("</span>")
page = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body {{ margin: 0; background: #1e1e1e; }}
pre {{ margin: 0; padding: 12px 16px; color: #d4d4d4; font: 14px/1.3 'DejaVu Sans Mono', monospace; }}
</style></head><body><pre>{''.join(out)}</pre></body></html>"""
open(dst, "w", encoding="utf-8").write(page)
PY
  width=$((cols * 85 / 10 + 40))
  height=$((lines * 182 / 10 + 30))
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --window-size="$width,$height" --screenshot="$out/tour-$cols.png" "file://$work/tour-$cols.html" 2>/dev/null
  echo "wrote $out/tour-$cols.png (${cols} columns, first $lines lines)"
done
