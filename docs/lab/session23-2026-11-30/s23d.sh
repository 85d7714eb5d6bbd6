#!/usr/bin/env bash
# Session 23, call D: the per-call page-locked allocations gone (the GPU condensation's result copy
# through the context's staging, the BFS host loop's readbacks in the context's page-locked word).
# The suites over those paths (minimal build, skips counted); bench_closure's GPU rows, previous
# (the bench linked with the session's previous closure_condensation.cu) and new, alternating.
set -u
export OUT
root=$PWD
L=/tmp/d; mkdir -p $L
t0=$(date +%s)
el() { echo "== $* ($(( $(date +%s) - t0 )) s)"; }
finish() { tar -czf "$OUT/d.tgz" -C /tmp d; el total; }
trap finish EXIT
C=$root/build-lab/c23d
for d in $C/debs/*.deb; do dpkg -x "$d" /; done; ldconfig
X=/tmp/bin; mkdir -p $X
for f in $C/*.xz; do b=$(basename $f .xz); xz -dc $f > $X/$b & done; wait; chmod +x $X/*
el setup
for t in test_apsp_gpu test_graph_gpu test_graph_kernels_gpu test_graph_object_gpu; do
  timeout 300 $X/$t --log_level=message > $L/$t.txt 2>&1; echo "$t rc=$? skipped=$(grep -a -c 'test skipped' $L/$t.txt)"; grep -a "\*\*\*" $L/$t.txt | tail -1; grep -a -E "error" $L/$t.txt | head -4 | cut -c1-300
done
el tests
export OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores
for k in 1 2; do for v in bcl_old bcl; do
  [ $(( $(date +%s) - t0 )) -gt 480 ] && { echo "$v $k skipped (time)"; continue; }
  timeout 200 $X/$v --runs 3 --device gpu --only dag-b64,sccs-b16,sccs-b64,dag-global > $L/${v}_$k.txt 2>&1; echo "$v $k rc=$?"
  grep -a -v "^#" $L/${v}_$k.txt | tail -8 | cut -c1-200
done; done
el done
