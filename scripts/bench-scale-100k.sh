#!/usr/bin/env bash
# Issue 16's scale target, run through the binary: 100,000 kernels through
# `report` (every format), `check --baseline` and `diff -o html`, each in
# < 10 s and < 1 GB, on a model-built analysis AND on one imported from a
# capture of 100,000 launches; `import` of that capture is timed too, with
# no target (the issue sets none).
# Each run is a process of its own under /usr/bin/time -v: wall, user and
# system CPU seconds, peak resident memory, with the load average before it
# (on a machine whose cores are shared, CPU seconds are the figure to
# compare; wall seconds count the other work too). A run over either
# target is marked MISSED and the script exits 1 at the end.
#
#   scripts/bench-scale-100k.sh BINARY DIR [KERNELS]
#
# BINARY is target/release/roofline; DIR holds the generated inputs (made
# once, reused) and the outputs. KERNELS (default 100000) scales the inputs.
# The model-built analyses come from `roofline model` on a generated TOML;
# the imported ones from `roofline import` of a capture made of the bundled
# data/h200/ncu_seed000.csv's launches repeated with distinct names and IDs
# (an "after" capture has every duration 7% longer).
set -euo pipefail
bin=$(realpath "$1") dir=$2 n=${3:-100000}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
cd "$dir"
target_s=10 target_mib=1024
missed=0

if [ ! -f ka.toml ] || [ ! -f cap-a.csv ]; then
    python3 - "$n" "$root/data/h200/ncu_seed000.csv" <<'EOF'
import csv, random, sys
n, seed = int(sys.argv[1]), sys.argv[2]
for tag, scale in (("a", 1.0), ("b", 1.07)):
    rnd = random.Random(7)
    with open(f"k{tag}.toml", "w") as f:
        f.write('[machine]\ngpu = "h200"\n')
        for i in range(n):
            fl, by, t = 10 ** rnd.uniform(3, 13), 10 ** rnd.uniform(3, 11), 10 ** rnd.uniform(-6, -2) * scale
            f.write(f'[[kernel]]\nname = "kernel_{i:06d}_<T{i % 97}>"\nflops = {fl:.6g}\nbytes = {by:.6g}\ntime = "{t * 1e3:.6g} ms"\n')
lines = open(seed).read().splitlines(keepends=True)
rows = list(csv.reader([l for l in lines if not l.startswith("==")]))
header, units, launches = rows[0], rows[1], rows[2:]
name, ident = header.index("Kernel Name"), header.index("ID")
dur = header.index("gpu__time_duration.sum")
for tag, scale in (("a", 1.0), ("b", 1.07)):
    with open(f"cap-{tag}.csv", "w") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
        w.writerow(header)
        w.writerow(units)
        for i in range(n):
            r = list(launches[i % len(launches)])
            r[name] = f"{r[name]}_{i}"
            r[ident] = str(i)
            r[dur] = repr(float(r[dur].replace(",", "")) * scale)
            w.writerow(r)
EOF
fi

# One timed run: NAME, then the command line (run by bash in DIR). With
# NO_TARGET=1 in its environment the run is timed but not held to the
# target (`import`: the issue sets none for it).
run() {
    local name=$1
    shift
    local load
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    local rc=0
    /usr/bin/time -v -o time.txt bash -c "$*" >/dev/null 2>err.txt || rc=$?
    local wall user sys rss cpu verdict=ok
    wall=$(awk -F': ' '/Elapsed/ {print $2}' time.txt)
    user=$(awk -F': ' '/User time/ {print $2}' time.txt)
    sys=$(awk -F': ' '/System time/ {print $2}' time.txt)
    rss=$(awk -F': ' '/Maximum resident/ {printf "%.0f", $2/1024}' time.txt)
    cpu=$(echo "$user + $sys" | bc)
    if [ "${NO_TARGET:-0}" = 1 ]; then
        verdict="(no target)"
    elif [ "$(echo "$cpu >= $target_s" | bc)" = 1 ] || [ "$rss" -ge "$target_mib" ]; then
        verdict=MISSED
        missed=1
    fi
    printf '%-34s exit %s  wall %8s  CPU %6.2f s (user %s, sys %s)  peak RSS %5s MiB  %s  (load %s)\n' \
        "$name" "$rc" "$wall" "$cpu" "$user" "$sys" "$rss" "$verdict" "$load"
}

echo "$n kernels; target < $target_s s of CPU (the wall time on a free core: every command runs on one thread) and < $target_mib MiB; binary $bin"
[ -f a.json ] || "$bin" model ka.toml -q -o a.json >/dev/null
[ -f b.json ] || "$bin" model kb.toml -q -o b.json >/dev/null
NO_TARGET=1 run "import (capture of $n launches)" "'$bin' import cap-a.csv -q -o ia.json"
[ -f ib.json ] || "$bin" import cap-b.csv -q -o ib.json >/dev/null 2>&1
for kind in model:a:b import:ia:ib; do
    IFS=: read -r label before after <<<"$kind"
    for fmt in html svg md csv chart table json; do
        case $fmt in
        html | svg) cmd="'$bin' report $after.json -q -o r.$fmt" ;;
        md) cmd="'$bin' report $after.json -q --format markdown > r.md" ;;
        *) cmd="'$bin' report $after.json -q --format $fmt > r.$fmt" ;;
        esac
        run "$label: report ($fmt)" "$cmd"
    done
    run "$label: check --baseline" "'$bin' check $after.json --baseline $before.json --max-regression 5 -q > c.txt; [ \$? -le 1 ]"
    run "$label: diff -o html" "'$bin' diff $before.json $after.json -q -o d.html"
done
exit $missed
