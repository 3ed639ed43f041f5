#!/bin/bash
# One device call: environment, `roofline peaks`, quick and full bench, peers.
B=.carry/bench/roofline
L=$OUT/env.txt
{ date -u; nvidia-smi; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; } > $L 2>&1
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib $(python3 -c 'import nvidia,os;print(" ".join(os.path.join(p,"cu13","lib") for p in nvidia.__path__))' 2>/dev/null); do
  [ -d "$d" ] && export LD_LIBRARY_PATH="$d:$LD_LIBRARY_PATH"
done
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >> $L
ls /usr/local/cuda/lib64 2>/dev/null | grep -E 'cublasLt|nvrtc' >> $L
$B peaks > $OUT/peaks.txt 2>&1; echo "peaks rc=$?" >> $OUT/peaks.txt
{ s=$(date +%s%N); timeout 45 $B bench --quick -o $OUT/quick.json; echo "quick rc=$? wall_ms=$(( ($(date +%s%N) - s) / 1000000 ))"; } > $OUT/quick.log 2>&1
{ s=$(date +%s%N); timeout 90 $B bench -o $OUT/full.json; echo "full rc=$? wall_ms=$(( ($(date +%s%N) - s) / 1000000 ))"; } > $OUT/full.log 2>&1
PYTHONUNBUFFERED=1 timeout 90 python3 .carry/bench/peers_h200.py > $OUT/peers.txt 2>&1
