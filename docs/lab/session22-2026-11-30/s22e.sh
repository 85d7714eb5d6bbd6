#!/usr/bin/env bash
# Session 22, call E: the suites a minimal build skips (needs::builtin), from a builtin build of the
# session's code (KLEENE_INSTANCES=builtin, sm_90): structure, operations, sparse, mxm, dense_gemm,
# dispatch, with --log_level=message so that a skip shows; and test_sparse_gpu linked with a
# sparse_cusparse.cu that always sorts (must pass) and one whose sort reads zeroed values (must fail).
set -u
export OUT
root=$PWD
L=/tmp/e; mkdir -p $L
t0=$(date +%s)
el() { echo "== $* ($(( $(date +%s) - t0 )) s)"; }
finish() { tar -czf "$OUT/e.tgz" -C /tmp e; el total; }
trap finish EXIT
C=$root/build-lab/c22e
for d in $C/debs/*.deb; do dpkg -x "$d" /; done; ldconfig
X=/tmp/bin; mkdir -p $X
for f in $C/*.xz; do b=$(basename $f .xz); xz -dc $f > $X/$b & done; wait; chmod +x $X/*
el setup
for t in test_structure_gpu test_operations_gpu test_sparse_gpu test_mxm_gpu test_dense_gemm_gpu test_dispatch_gpu test_sparse_gpu_sortall test_sparse_gpu_broken; do
  timeout 300 $X/$t --log_level=message > $L/$t.txt 2>&1; echo "$t rc=$? skipped=$(grep -a -c 'test skipped' $L/$t.txt)"; grep -a "\*\*\*" $L/$t.txt | tail -1; grep -a -E "error" $L/$t.txt | head -4 | cut -c1-300
done
el done
