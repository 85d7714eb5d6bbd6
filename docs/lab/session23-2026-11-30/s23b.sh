#!/usr/bin/env bash
# Session 23, call B: bench_out_of_core_gpu n = 16384 fp32 at 8x (R-Kleene) and 2x (blocked
# Floyd-Warshall) and bench_apsp_gpu (R-Kleene 8192, 16384), previous and new alternating twice.
set -u
export OUT
root=$PWD
L=/tmp/b; mkdir -p $L
t0=$(date +%s)
el() { echo "== $* ($(( $(date +%s) - t0 )) s)"; }
finish() { tar -czf "$OUT/b.tgz" -C /tmp b; el total; }
trap finish EXIT
C=$root/build-lab/c23b
for d in $C/debs/*.deb; do dpkg -x "$d" /; done; ldconfig
X=/tmp/bin; mkdir -p $X
for f in $C/*.xz; do b=$(basename $f .xz); xz -dc $f > $X/$b & done; wait; chmod +x $X/*
el setup
for k in 1 2; do for v in booc_old booc; do
  [ $(( $(date +%s) - t0 )) -gt 420 ] && { echo "ooc $v $k skipped (time)"; continue; }
  TYPES=fp32 OOC_RATIOS="8 2" timeout 200 $X/$v 16384 > $L/${v}_$k.txt 2>&1; echo "$v $k rc=$?"
  grep -a RESULT $L/${v}_$k.txt | cut -c1-170
done; done
el ooc
for k in 1 2; do for v in bag_old bag; do
  [ $(( $(date +%s) - t0 )) -gt 540 ] && { echo "apsp $v $k skipped (time)"; continue; }
  CPU_MAX=0 NAIVE_MAX=0 FP64_MAX=0 CLOSURE_SIZES=" " timeout 150 $X/$v 8192 16384 > $L/${v}_$k.txt 2>&1; echo "$v $k rc=$?"
  grep -a RESULT $L/${v}_$k.txt | grep -E "algo=rkleene " | cut -c1-140
done; done
el done
