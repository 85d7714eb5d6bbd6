#!/usr/bin/env bash
# Session 22, call C: the suites of call A after the second change (a host graph's structure and
# narrowed indices as temporaries of the context's pool; the cuSPARSE sort from pool copies).
set -u
export OUT
root=$PWD
L=/tmp/c; mkdir -p $L
t0=$(date +%s)
el() { echo "== $* ($(( $(date +%s) - t0 )) s)"; }
finish() { tar -czf "$OUT/c.tgz" -C /tmp c; el total; }
trap finish EXIT
C=$root/build-lab/c22c
for d in $C/debs/*.deb; do dpkg -x "$d" /; done; ldconfig
X=/tmp/bin; mkdir -p $X
for f in $C/*.xz; do b=$(basename $f .xz); xz -dc $f > $X/$b & done; wait; chmod +x $X/*
el setup
nvidia-smi --query-gpu=name,memory.total,clocks.sm --format=csv,noheader
for t in test_graph_object_gpu test_apsp_gpu test_paths_gpu test_result_copy_gpu test_capture_gpu test_graph_gpu test_apsp_batched_gpu test_out_of_core_gpu; do
  timeout 240 $X/$t > $L/$t.txt 2>&1; echo "$t rc=$?"; grep -a "\*\*\*" $L/$t.txt | tail -1; grep -a -E "error" $L/$t.txt | head -4 | cut -c1-300
done
el tests
el done
