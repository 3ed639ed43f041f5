#!/usr/bin/env bash
# Issue 16's memory of timeline documents: `roofline timeline` of a program
# that recorded a very large run, then `roofline merge` of two such ranks,
# each in a process of its own under /usr/bin/time -v (wall, user and
# system CPU seconds, peak resident memory, load average before it).
#
#   scripts/bench-timeline-merge.sh BINARY DIR
#
# Three runs, generated once into DIR (record files of the injection
# library's format, roofline.records/v1, written by a stand-in program):
#   launches-1e6-names-100   10^6 kernel launches of 100 names
#   launches-1e6-names-1e6   10^6 kernel launches, every one a new name
#   nvtx-200k                200,000 nested NVTX ranges around 200,000 launches
# The target: each `merge` of two ranks peaks at most at twice the size of
# its two input files together, and each `timeline` at most at three times
# the size of the document it writes (plus a 64 MiB floor for the process
# itself). A run over its target is marked MISSED and the script exits 1.
set -euo pipefail
bin=$(realpath "$1") dir=$2
mkdir -p "$dir/tmp"
dir=$(realpath "$dir")
cd "$dir"
# The tool's temporary folders (the timeline's record folder) in DIR, out
# of reach of whatever else cleans /tmp meanwhile.
export TMPDIR=$dir/tmp
missed=0
floor_mib=64

# The body of each record file (everything after the header, which the
# stand-in program writes with the time of its own run).
python3 - <<'EOF'
import json, os
base = 5_000_000_000
def kernel(name, i):
    return ('{"t":"kernel","name":%d,"start":%d,"end":%d,"dev":0,"ctx":1,"stream":7,"corr":%d,'
            '"grid":[64,1,1],"block":[256,1,1]}\n' % (name, base + 1000 + i * 10, base + 1000 + i * 10 + 5 + i % 3, i))
def body(path, write):
    if not os.path.exists(path):
        with open(path + ".part", "w") as f:
            write(f)
        os.rename(path + ".part", path)
def names_100(f):
    for n in range(100):
        f.write(json.dumps({"t": "name", "id": n, "s": f"_Z8kernel{n:03d}PfS_i"}) + "\n")
    for i in range(1_000_000):
        f.write(kernel(i % 100, i))
def names_1e6(f):
    for i in range(1_000_000):
        f.write('{"t":"name","id":%d,"s":"k%d"}\n' % (i, i))
        f.write(kernel(i, i))
def nvtx(f):
    n = 200_000
    f.write(json.dumps({"t": "name", "id": 1, "s": "step"}) + "\n")
    f.write(json.dumps({"t": "name", "id": 2, "s": "_Z6vecaddPKfS0_Pfi"}) + "\n")
    for i in range(n):
        f.write('{"t":"marker","id":%d,"flag":"start","ts":%d,"pid":4242,"tid":1,"name":1}\n' % (i, base + i))
    for i in range(n):
        f.write(kernel(2, n + i))
    for i in range(n):
        f.write('{"t":"marker","id":%d,"flag":"end","ts":%d,"pid":4242,"tid":1}\n' % (i, base + 30 * n - i))
body("launches-1e6-names-100.body", names_100)
body("launches-1e6-names-1e6.body", names_1e6)
body("nvtx-200k.body", nvtx)
EOF
printf 'not a library' >fake-inject.so

# One timed run: NAME LIMIT_MIB (or "later": held to its target by the
# caller), then the command line.
timed() {
    local name=$1 limit=$2
    shift 2
    local load
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    local rc=0
    /usr/bin/time -v -o "$name.time" "$@" >"$name.out" 2>"$name.err" || rc=$?
    if [ "$rc" != 0 ]; then
        echo "$name: FAILED (exit $rc): $(tail -c 600 "$name.err")"
        missed=1
        return
    fi
    local wall user sys rss mark=ok
    wall=$(awk -F': ' '/Elapsed/ {print $2}' "$name.time")
    user=$(awk -F': ' '/User time/ {print $2}' "$name.time")
    sys=$(awk -F': ' '/System time/ {print $2}' "$name.time")
    rss=$(awk -F': ' '/Maximum resident/ {printf "%.0f", $2/1024}' "$name.time")
    local target=""
    if [ "$limit" != later ]; then
        target=" (target <= $limit MiB)"
        if [ "$rss" -gt "$limit" ]; then
            mark=MISSED
            missed=1
        fi
        target="$target $mark"
    fi
    echo "$name: wall $wall, user $user s, sys $sys s, max RSS $rss MiB$target, load average before $load"
}

mib() { stat -c %s "$@" | awk '{s += $1} END {print int(s / 1048576)}'; }

for run in launches-1e6-names-100 launches-1e6-names-1e6 nvtx-200k; do
    cat >"$run.prog" <<EOF
#!/bin/bash
cd "\$ROOFLINE_TIMELINE_DIR" || exit 9
{ printf '{"t":"header","format":"roofline.records/v1","pid":4242,"clock":{"cupti_ns":5000000000,"unix_ns":%s}}\n' "\$(date +%s%N)"; cat "$dir/$run.body"; } >4242.jsonl
EOF
    chmod +x "$run.prog"
    rm -f "$run".rank*.json "$run.merged.json"
    # The document's size is known only once written: time the run, then
    # hold it to three times that.
    timed "$run.timeline" later env -u CUDA_INJECTION64_PATH "$bin" timeline --inject-lib fake-inject.so \
        -o "$run.rank0.json" -q -- "$dir/$run.prog"
    [ -f "$run.rank0.json" ] || continue
    cp "$run.rank0.json" "$run.rank1.json"
    doc=$(mib "$run.rank0.json")
    rss=$(awk -F': ' '/Maximum resident/ {printf "%.0f", $2/1024}' "$run.timeline.time")
    limit=$((3 * doc + floor_mib))
    if [ "$rss" -gt "$limit" ]; then
        echo "  timeline wrote $doc MiB: peak $rss MiB is over 3 x $doc + $floor_mib MiB: MISSED"
        missed=1
    else
        echo "  timeline wrote $doc MiB: peak $rss MiB is within 3 x $doc + $floor_mib MiB"
    fi
    timed "$run.merge" $((2 * 2 * doc + floor_mib)) "$bin" merge "$run.rank0.json" "$run.rank1.json" -o "$run.merged.json" -q
    [ -f "$run.merged.json" ] && echo "  merged document: $(mib "$run.merged.json") MiB, inputs 2 x $doc MiB"
done
exit $missed
