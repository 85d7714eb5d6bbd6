#!/usr/bin/env bash
# Session 22, call D: the other GPU suites after the second change (host inputs and narrowed indices as pool temporaries, cuSPARSE sort from pool copies), and test_sparse_gpu linked with a sparse_cusparse.cu that always sorts (must pass) and one whose sort reads zeroed values (must fail)
#
set -u
export OUT
root=$PWD
L=/tmp/d; mkdir -p $L
t0=$(date +%s)
el() { echo "== $* ($(( $(date +%s) - t0 )) s)"; }
finish() { tar -czf "$OUT/d.tgz" -C /tmp d; el total; }
trap finish EXIT
C=$root/build-lab/c22d
for d in $C/debs/*.deb; do dpkg -x "$d" /; done; ldconfig
X=/tmp/bin; mkdir -p $X
for f in $C/*.xz; do b=$(basename $f .xz); xz -dc $f > $X/$b & done; wait; chmod +x $X/*
for t in test_structure_gpu test_operations_gpu test_sparse_gpu test_mxm_gpu test_dense_gemm_gpu test_graph_kernels_gpu test_dispatch_gpu test_jit_gpu; do
  timeout 240 $X/$t > $L/$t.txt 2>&1; echo "$t rc=$?"; grep -a "\*\*\*" $L/$t.txt | tail -1; grep -a -E "error" $L/$t.txt | head -4 | cut -c1-300
done
el done
for v in sortall broken; do
  timeout 240 $X/test_sparse_gpu_$v > $L/sparse_$v.txt 2>&1; echo "test_sparse_gpu_$v rc=$?"; grep -a "\*\*\*" $L/sparse_$v.txt | tail -1; grep -a -E "error" $L/sparse_$v.txt | head -3 | cut -c1-300
done
el variants
