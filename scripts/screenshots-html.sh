#!/bin/sh
# Screenshots of the HTML report at 1400 px, from the real command line on
# real H200 data: BabelStream and 31 PyTorch/cuBLAS/cuDNN operations
# (captures under tests/fixtures/external/, imported with the bundled H200
# machine) and the tour's bundled data (`roofline tour --bundled`).
#
#   scripts/screenshots-html.sh [OUT_DIR]   (default: docs/screenshots)
#
# Needs Debian's chromium (apt-get install -y chromium fonts-liberation);
# set CHROMIUM (or ROOFLINE_CHROMIUM, as CI does) to use another binary, and
# ROOFLINE to a built roofline binary to skip the build. The pages and the
# terminal chart of each analysis are left in out/screenshot-pages. CI
# (.ci/run) runs it into a temporary folder and checks each image's size,
# so the committed ones are what CI's Chromium makes.
set -eu
cd "$(dirname "$0")/.."
out=${1:-docs/screenshots}
browser=${CHROMIUM:-${ROOFLINE_CHROMIUM:-}}
browser=${browser:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
if [ -z "$browser" ]; then
    echo "no chromium found: install Debian's chromium package or set CHROMIUM" >&2
    exit 1
fi
pages=out/screenshot-pages
mkdir -p "$out" "$pages"
out=$(cd "$out" && pwd)
pages=$(cd "$pages" && pwd)
if [ -z "${ROOFLINE:-}" ]; then
    cargo build -q -p roofline
fi
roofline=${ROOFLINE:-target/debug/roofline}
ext=tests/fixtures/external/h200-2026-11-30
$roofline import "$ext/babelstream_profile.csv" --machine data/h200/tour/machine.json -q -o "$pages/babelstream.json"
$roofline import "$ext/pytorch_profile.csv" --machine data/h200/tour/machine.json -q -o "$pages/pytorch.json"
for name in babelstream pytorch; do
    $roofline report "$pages/$name.json" -q -o "$pages/$name.html"
    $roofline report "$pages/$name.json" --format chart >"$pages/$name-chart.txt" 2>/dev/null
done
$roofline tour --bundled --out-dir "$pages/tour" -q >/dev/null
# A capture of a program nobody here wrote (GPT-2 training on the H200), as a
# first screen at 1400x900 and at 800 px (issue 28: the chart in the first
# screen, tables within their box).
$roofline import tests/fixtures/external/h200-2026-12-01/gpt2_train.full.csv -q -o "$pages/gpt2.json"
$roofline report "$pages/gpt2.json" -q -o "$pages/gpt2.html"
# The same page as a browser without JavaScript shows it.
sed -e '/^<script>$/,/^<\/script>$/d' "$pages/pytorch.html" >"$pages/pytorch-nojs.html"
# Headless Chromium screenshots the top of a page, whatever its fragment:
# a part further down is shown by a copy that hides what comes before it.
variant() { # variant SRC DST CSS [SED]
    sed -e "s|</head>|<style>$3</style></head>|" -e "${4:-s|^\$||}" "$1" >"$2"
}
variant "$pages/pytorch.html" "$pages/pytorch-chart.html" "#summary,#ridge{display:none}"
variant "$pages/pytorch.html" "$pages/pytorch-table.html" "#summary,#ridge,#chart{display:none}" \
    's|<tbody class="group" data-k="9">|<tbody class="group pinned hl" data-k="9">|'
variant "$pages/tour/report.html" "$pages/tour-chart.html" "main>section:not(#banner):not(#chart){display:none}"
variant "$pages/tour/report.html" "$pages/tour-extras.html" \
    "main>section:not(#banner):not(#fusion):not(#intensity-steps):not(#measured-ridge){display:none}"
variant "$pages/tour/report.html" "$pages/tour-details.html" "main>section:not(#diagnosis){display:none}" \
    's|<details class="detail" id="detail-k-16"|<details open class="detail" id="detail-k-16"|'

variant "$pages/gpt2.html" "$pages/gpt2-kernels.html" "main>section:not(#kernels){display:none}"

shot() { # shot NAME HEIGHT URL [WIDTH]
    profile=$(mktemp -d)
    "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
        --user-data-dir="$profile" --window-size="${4:-1400}","$2" --screenshot="$out/$1.png" "$3" 2>/dev/null
    rm -rf "$profile"
}
shot babelstream-1400 1500 "file://$pages/babelstream.html"
shot pytorch-1400 1200 "file://$pages/pytorch.html"
shot pytorch-chart-1400 1500 "file://$pages/pytorch-chart.html"
shot pytorch-hover-1400 1000 "file://$pages/pytorch-chart.html#point=9-dram"
shot pytorch-table-1400 1100 "file://$pages/pytorch-table.html"
shot pytorch-nojs-1400 1500 "file://$pages/pytorch-nojs.html"
shot tour-1400 1000 "file://$pages/tour/report.html"
shot tour-chart-1400 1400 "file://$pages/tour-chart.html"
shot tour-extras-1400 900 "file://$pages/tour-extras.html"
shot tour-details-1400 1100 "file://$pages/tour-details.html"
shot gpt2-1400x900 900 "file://$pages/gpt2.html"
shot gpt2-800x900 900 "file://$pages/gpt2.html" 800
shot gpt2-kernels-800x900 900 "file://$pages/gpt2-kernels.html" 800
ls "$out"/*.png
