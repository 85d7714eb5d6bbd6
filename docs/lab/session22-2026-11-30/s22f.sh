#!/usr/bin/env bash
# Session 22, call F: the review commit (temporary.hpp helpers): the minimal-set suites from the minimal build, skips counted.
set -u
export OUT
root=$PWD
L=/tmp/f; mkdir -p $L
t0=$(date +%s)
el() { echo "== $* ($(( $(date +%s) - t0 )) s)"; }
finish() { tar -czf "$OUT/f.tgz" -C /tmp f; el total; }
trap finish EXIT
C=$root/build-lab/c22f
for d in $C/debs/*.deb; do dpkg -x "$d" /; done; ldconfig
X=/tmp/bin; mkdir -p $X
for f in $C/*.xz; do b=$(basename $f .xz); xz -dc $f > $X/$b & done; wait; chmod +x $X/*
el setup
for t in test_graph_object_gpu test_apsp_gpu test_graph_kernels_gpu test_paths_gpu test_graph_gpu test_capture_gpu test_out_of_core_gpu test_result_copy_gpu test_apsp_batched_gpu; do
  timeout 300 $X/$t --log_level=message > $L/$t.txt 2>&1; echo "$t rc=$? skipped=$(grep -a -c 'test skipped' $L/$t.txt)"; grep -a "\*\*\*" $L/$t.txt | tail -1; grep -a -E "error" $L/$t.txt | head -4 | cut -c1-300
done
el done
