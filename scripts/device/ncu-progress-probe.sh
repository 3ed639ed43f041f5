#!/usr/bin/env bash
# What Nsight Compute tells a caller while it profiles (issue 11 item 5: live
# progress and an ETA in `roofline profile`'s counter pass). One call from the
# repository root on a GPU machine (no carried files):
#
#   bash scripts/device/ncu-progress-probe.sh
#
#   A  --csv --page raw --log-file: which ==PROF== lines reach the log while it runs
#   B  -o REPORT --log-file (no --csv): the same, then `ncu --import REPORT --csv
#      --page raw --print-units base` and whether its header matches A's
#   C  B stopped with SIGINT halfway: is the report (what was profiled) still written?
#   D  --csv with stdout to a file (no --log-file): where the per-kernel lines go
# Each log is timestamped line by line (when a line appeared, not only that it did).
# Output: $OUT/ncu-progress-probe.tgz and summary.txt. Clocks are left alone.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
R=$PWD
W=/tmp/ncu-probe
rm -rf "$W"; mkdir -p "$W"
S=$W/summary.txt
log() { echo "$*" | tee -a "$S"; }
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
  "$NCU" --version | tail -1
} > "$W/env.txt" 2>&1
cat "$W/env.txt"
nvcc -O3 -arch=sm_90 -o "$W/seed000" "$R/examples/kernels/seed000_host.cu" > "$W/nvcc.log" 2>&1 || log "nvcc failed"
P=("$W/seed000" 20)
M=(--metrics gpu__time_duration.sum,dram__bytes_read.sum,sm__cycles_elapsed.avg.per_second --clock-control none)
# Follow a growing file, stamping each new line with seconds since start.
stamp() { # file, pid to wait for
  python3 - "$1" "$2" <<'EOF'
import os, sys, time
path, pid = sys.argv[1], int(sys.argv[2])
t0 = time.time(); pos = 0; buf = b""
def alive():
    try: os.kill(pid, 0); return True
    except OSError: return False
while True:
    done = not alive()
    if os.path.exists(path):
        with open(path, "rb") as f:
            f.seek(pos); data = f.read(); pos += len(data)
        buf += data
        *lines, buf = buf.split(b"\n")
        for l in lines:
            print(f"{time.time() - t0:7.2f} {l.decode(errors='replace')[:160]}", flush=True)
    if done: break
    time.sleep(0.1)
EOF
}
# A
"$NCU" --csv --page raw --print-units base "${M[@]}" --log-file "$W/A.log" "${P[@]}" > "$W/A.stdout" 2> "$W/A.stderr" &
stamp "$W/A.log" $! > "$W/A.stamped"
log "A (--csv --log-file): $(grep -c '==PROF== Profiling' "$W/A.log") 'Profiling' lines in the log, $(grep -c '==PROF==' "$W/A.log") ==PROF== lines; $(grep -c '^"' "$W/A.log") CSV rows"
grep -m3 '==PROF==' "$W/A.stamped" | tee -a "$S"
# B
"$NCU" "${M[@]}" -o "$W/B" --log-file "$W/B.log" "${P[@]}" > "$W/B.stdout" 2> "$W/B.stderr" &
stamp "$W/B.log" $! > "$W/B.stamped"
log "B (-o, --log-file): $(grep -c '==PROF== Profiling' "$W/B.log") 'Profiling' lines in the log"
grep -m4 '==PROF==' "$W/B.stamped" | tee -a "$S"
tail -2 "$W/B.stamped" | tee -a "$S"
t0=$(date +%s.%N)
"$NCU" --import "$W/B.ncu-rep" --csv --page raw --print-units base > "$W/B.csv" 2> "$W/B.import.err"
log "B import: exit $?, $(python3 -c "import sys,time; print(f'{time.time()-float(sys.argv[1]):.2f}')" "$t0") s, $(grep -c '' "$W/B.csv") lines"
head -c 300 "$W/A.log" | head -3 > "$W/A.head"; head -3 "$W/B.csv" > "$W/B.head"
python3 - "$W/A.log" "$W/B.csv" <<'EOF' | tee -a "$S"
import csv, sys
def rows(p):
    lines = [l for l in open(p, errors="replace") if l.startswith('"')]
    return list(csv.reader(lines))
a, b = rows(sys.argv[1]), rows(sys.argv[2])
print("A header", len(a[0]) if a else 0, "cols,", len(a) - 2, "launches; B header", len(b[0]) if b else 0, "cols,", len(b) - 2, "launches")
if a and b:
    print("same header:", a[0] == b[0], "; same units row:", a[1] == b[1] if len(a) > 1 and len(b) > 1 else None)
    print("A-only columns:", sorted(set(a[0]) - set(b[0]))[:8], "B-only:", sorted(set(b[0]) - set(a[0]))[:8])
EOF
# C
"$NCU" "${M[@]}" -o "$W/C" --log-file "$W/C.log" "$W/seed000" 200 > "$W/C.stdout" 2> "$W/C.stderr" &
NPID=$!
stamp "$W/C.log" $NPID > "$W/C.stamped" &
sleep 6; kill -INT $NPID; wait $NPID; log "C: SIGINT after 6 s, ncu exit $?"
sleep 1
log "C: $(grep -c '==PROF== Profiling' "$W/C.log") Profiling lines before the stop; report: $(ls -l "$W"/C.ncu-rep 2>&1 | tail -1)"
tail -3 "$W/C.log" | tee -a "$S"
[ -f "$W/C.ncu-rep" ] && "$NCU" --import "$W/C.ncu-rep" --csv --page raw --print-units base > "$W/C.csv" 2>&1 && log "C import: $(grep -c '^"' "$W/C.csv") CSV lines"
# D
"$NCU" --csv --page raw --print-units base "${M[@]}" "${P[@]}" > "$W/D.stdout" 2> "$W/D.stderr"
log "D (--csv, stdout): Profiling lines on stdout $(grep -c '==PROF== Profiling' "$W/D.stdout"), on stderr $(grep -c '==PROF== Profiling' "$W/D.stderr")"
"$NCU" --help > "$W/ncu-help.txt" 2>&1
grep -n -i -E "print-summary|quiet|verbose|log-file|print-details|print-fo" "$W/ncu-help.txt" | head -12 | tee -a "$S"
rm -f "$W/seed000"
tar czf "$OUT/ncu-progress-probe.tgz" -C "$W" .
cp "$S" "$OUT/"
echo "=== summary"; cat "$S"
