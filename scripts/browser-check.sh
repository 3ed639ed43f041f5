#!/bin/sh
# Looks at the HTML report the way a person does: renders the sample
# analyses (seed 000's fusion, a hierarchical H200 example), runs the page's
# self-test in headless Chromium (no console errors, hover details on every
# point, every sortable column sorts both ways), and takes screenshots at a
# desktop and a phone width.
#
#   scripts/browser-check.sh [OUT_DIR]      (default: out/browser-check)
#
# Needs Debian's chromium (apt-get install -y chromium); set CHROMIUM to use
# another binary. Without a browser it says so and exits 0 (skipped).
set -eu
cd "$(dirname "$0")/.."
out=${1:-out/browser-check}
browser=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
if [ -z "$browser" ]; then
    echo "SKIPPED: no chromium found; install Debian's chromium package or set CHROMIUM" >&2
    exit 0
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
cargo run -q -p roofline-report --example render_samples -- "$out"

flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars"
run() { # run PROFILE_NAME ARGS...
    profile=$(mktemp -d)
    name=$1; shift
    # shellcheck disable=SC2086
    "$browser" $flags --user-data-dir="$profile" "$@" 2>"$out/$name.log"
    rm -rf "$profile"
}

status=0
for page in hierarchical fusion-before fusion-diff; do
    run "$page-selftest" --enable-logging=stderr --v=0 --dump-dom "file://$out/$page.html#selftest" >"$out/$page.dom"
    result=$(grep -o 'ROOFLINE-SELFTEST {.*}' "$out/$page.dom" | sed 's/&quot;/"/g' || true)
    console=$(grep -E ':CONSOLE|Uncaught' "$out/$page-selftest.log" || true)
    echo "$page: ${result:-no self-test result}"
    if [ -z "$result" ] || [ -n "$console" ] || ! echo "$result" | grep -q '"errors":\[\]' \
        || ! echo "$result" | grep -q '"missing":\[\]' || ! echo "$result" | grep -q '"sortOk":true'; then
        echo "FAILED: $page ${console}" >&2
        status=1
    fi
done

run shot-desktop --window-size=1280,2200 --screenshot="$out/report-desktop.png" "file://$out/hierarchical.html"
run shot-hover --window-size=1280,760 --screenshot="$out/report-hover.png" "file://$out/hierarchical.html#point=1-l2"
run shot-narrow --window-size=390,2600 --screenshot="$out/report-narrow.png" "file://$out/hierarchical.html"
run shot-diff --window-size=1280,1500 --screenshot="$out/diff-desktop.png" "file://$out/fusion-diff.html"
run shot-diff-narrow --window-size=390,2000 --screenshot="$out/diff-narrow.png" "file://$out/fusion-diff.html"
ls "$out"/*.png
exit $status
