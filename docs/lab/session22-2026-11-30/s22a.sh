#!/usr/bin/env bash
# Session 22, call A: the algorithms' temporaries from the context's pool (issue 39 item 1) and the
# pool's release threshold (context::memory_pool_keep). The suites over those paths; the new test
# built against the previous algorithm headers (must fail); bench_apsp_gpu before/after alternating
# twice; bench_graph_kernels at Kronecker 22 on the GPU: previous binary, default keep, keep all.
set -u
export OUT
root=$PWD
L=/tmp/a; mkdir -p $L
t0=$(date +%s)
el() { echo "== $* ($(( $(date +%s) - t0 )) s)"; }
finish() { tar -czf "$OUT/a.tgz" -C /tmp a; el total; }
trap finish EXIT
C=$root/build-lab/c22a
for d in $C/debs/*.deb; do dpkg -x "$d" /; done; ldconfig
X=/tmp/bin; mkdir -p $X
for f in $C/*.xz; do b=$(basename $f .xz); xz -dc $f > $X/$b & done; wait; chmod +x $X/*
el setup
nvidia-smi --query-gpu=name,memory.total,clocks.sm --format=csv,noheader
timeout 120 $X/test_graph_object_gpu_fop --run_test=algorithm_temporaries_come_from_the_context_pool > $L/fop.txt 2>&1; echo "fop rc=$? (must fail)"; grep -a "error" $L/fop.txt | head -8 | cut -c1-300
for t in test_graph_object_gpu test_apsp_gpu test_paths_gpu test_result_copy_gpu test_capture_gpu test_graph_gpu test_apsp_batched_gpu test_out_of_core_gpu; do
  timeout 240 $X/$t > $L/$t.txt 2>&1; echo "$t rc=$?"; grep -a "\*\*\*" $L/$t.txt | tail -1; grep -a -E "error" $L/$t.txt | head -4 | cut -c1-300
done
el tests
for k in 1 2; do for v in bag_old bag; do
  CPU_MAX=0 NAIVE_MAX=0 FP64_MAX=0 CLOSURE_SIZES=" " timeout 150 $X/$v 8192 16384 > $L/${v}_$k.txt 2>&1; echo "$v $k rc=$?"
  grep RESULT $L/${v}_$k.txt | grep -E "algo=rkleene " | cut -c1-140
done; done
el apsp
for k in 1 2; do [ $(( $(date +%s) - t0 )) -gt 420 ] && { echo "round $k skipped (time)"; break; }; for v in "bgk_old" "bgk" "bgk --pool-keep all"; do
  set -- $v; b=$1; shift
  timeout 150 $X/$b --scale 22 --device gpu --kernels bfs,sssp,cc,pagerank,bc --sources 16 --runs 5 --reuse-results "$@" > $L/k22_${b}${1:+_keepall}_$k.txt 2>&1
  echo "$v $k rc=$?"; grep -E "^(bfs|sssp|cc|pagerank|bc) +gpu|^pool" $L/k22_${b}${1:+_keepall}_$k.txt | cut -c1-120
done; done
el done
