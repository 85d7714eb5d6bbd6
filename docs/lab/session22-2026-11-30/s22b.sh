#!/usr/bin/env bash
# Session 22, call B: the other GPU suites on the code of call A (context.hpp, structure.hpp and
# memory_pool changed under them).
set -u
export OUT
root=$PWD
L=/tmp/b; mkdir -p $L
t0=$(date +%s)
el() { echo "== $* ($(( $(date +%s) - t0 )) s)"; }
finish() { tar -czf "$OUT/b.tgz" -C /tmp b; el total; }
trap finish EXIT
C=$root/build-lab/c22b
for d in $C/debs/*.deb; do dpkg -x "$d" /; done; ldconfig
X=/tmp/bin; mkdir -p $X
for f in $C/*.xz; do b=$(basename $f .xz); xz -dc $f > $X/$b & done; wait; chmod +x $X/*
for t in test_structure_gpu test_operations_gpu test_sparse_gpu test_mxm_gpu test_dense_gemm_gpu test_graph_kernels_gpu test_dispatch_gpu test_jit_gpu; do
  timeout 240 $X/$t > $L/$t.txt 2>&1; echo "$t rc=$?"; grep -a "\*\*\*" $L/$t.txt | tail -1; grep -a -E "error" $L/$t.txt | head -4 | cut -c1-300
done
el done
