#!/bin/bash
B=.carry/bench/roofline
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:$LD_LIBRARY_PATH"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv; uname -r; } > $OUT/env.txt 2>&1
timeout 20 $B bench --only l2 --quick >> $OUT/env.txt 2>&1; echo "l2 rc=$?" >> $OUT/env.txt
timeout 60 ncu --clock-control none -k regex:l2_tma --launch-skip 6 --launch-count 2 --metrics lts__t_bytes.sum.per_second,lts__t_sector_hit_rate.pct,gpu__time_duration.sum,dram__bytes.sum.per_second $B bench --only l2 --quick > $OUT/ncu_l2.txt 2>&1
$B peaks > $OUT/peaks.txt 2>&1; echo "peaks rc=$?" >> $OUT/peaks.txt
{ s=$(date +%s%N); timeout 45 $B bench --quick -o $OUT/quick.json; echo "quick rc=$? wall_ms=$(( ($(date +%s%N) - s) / 1000000 ))"; } > $OUT/quick.log 2>&1
{ s=$(date +%s%N); timeout 90 $B bench -o $OUT/full.json; echo "full rc=$? wall_ms=$(( ($(date +%s%N) - s) / 1000000 ))"; } > $OUT/full.log 2>&1
PYTHONUNBUFFERED=1 timeout 90 python3 .carry/bench/peers_h200.py > $OUT/peers.txt 2>&1
