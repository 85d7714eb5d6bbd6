#!/usr/bin/env bash
# Session 23, call C: the GPU Boolean closure on the context's stream and pool (R-Kleene on bits,
# a host graph's dense closure, a device graph's closure to the host). The suites over those paths
# (minimal build, skips counted); the new pool test built against the previous closure.hpp,
# rkleene.hpp and ooc_floyd_warshall.hpp (must fail); bench_apsp_gpu's closure, previous and new
# alternating twice.
set -u
export OUT
root=$PWD
L=/tmp/c; mkdir -p $L
t0=$(date +%s)
el() { echo "== $* ($(( $(date +%s) - t0 )) s)"; }
finish() { tar -czf "$OUT/c.tgz" -C /tmp c; el total; }
trap finish EXIT
C=$root/build-lab/c23c
for d in $C/debs/*.deb; do dpkg -x "$d" /; done; ldconfig
X=/tmp/bin; mkdir -p $X
for f in $C/*.xz; do b=$(basename $f .xz); xz -dc $f > $X/$b & done; wait; chmod +x $X/*
el setup
timeout 120 $X/test_graph_object_gpu_fop --run_test=closure_temporaries_come_from_the_context_pool --log_level=message > $L/fop.txt 2>&1; echo "fop rc=$? (must fail)"; grep -a "error" $L/fop.txt | head -6 | cut -c1-300
for t in test_graph_object_gpu test_apsp_gpu test_out_of_core_gpu; do
  timeout 300 $X/$t --log_level=message > $L/$t.txt 2>&1; echo "$t rc=$? skipped=$(grep -a -c 'test skipped' $L/$t.txt)"; grep -a "\*\*\*" $L/$t.txt | tail -1; grep -a -E "error" $L/$t.txt | head -4 | cut -c1-300
done
el tests
for k in 1 2; do for v in bag_old bag; do
  CPU_MAX=0 NAIVE_MAX=0 FP64_MAX=0 CLOSURE_SIZES="8192 16384 32768 65536" timeout 120 $X/$v 512 > $L/${v}_$k.txt 2>&1; echo "$v $k rc=$?"
  grep -a RESULT $L/${v}_$k.txt | grep closure | cut -c1-140
done; done
el closure
el done
