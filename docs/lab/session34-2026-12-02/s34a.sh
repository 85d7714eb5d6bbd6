#!/usr/bin/env bash
# Session 34, call A (issue 39): the head (b7fa909's review mend, never run on a device) through
# every GPU suite, first the three the mend touched (test_capture_gpu, test_mxm_gpu,
# test_dispatch_gpu), then bench_gemm_gpu --masked (its rows folded into one helper after the last
# device call), then the other thirteen suites while the call's time lasts (each suite's wall time
# logged; what is left over goes to a later call).
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c34a; out=${OUT:-/tmp/out}; mkdir -p "$out"; logs=/tmp/logs; mkdir -p $logs
note() { echo "== $(date +%T) $*"; }
finish() { tar -C /tmp -cJf "$out/logs_a.tar.xz" logs; note end; }
trap finish EXIT
start=$(date +%s)
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee $logs/gpu.txt
suite() { # name timeout
  local t=$1 lim=$2 s=$(date +%s)
  (( lim > 580 - (s - start) )) && lim=$(( 580 - (s - start) ))
  if (( lim < 30 )); then note "$t skipped (time)"; echo "$t skipped" >> $logs/times.txt; return; fi
  note $t
  (cd /tmp && timeout $lim $b/$t > "$logs/$t.txt" 2>&1; echo "rc=$?" >> "$logs/$t.txt")
  echo "$t $(( $(date +%s) - s )) s $(tail -1 $logs/$t.txt)" | tee -a $logs/times.txt
  grep -E "failure|No errors|error:" "$logs/$t.txt" | tail -3
}
suite test_capture_gpu 120
suite test_mxm_gpu 200
suite test_dispatch_gpu 150
note bench_gemm_gpu --masked
timeout 120 $b/bench_gemm_gpu --masked 8192 16384 2>&1 | tee $logs/bench_gemm_masked.txt | grep -E "RESULT|FAIL|rror"
for t in test_sparse_gpu test_operations_gpu test_graph_kernels_gpu test_graph_object_gpu test_structure_gpu \
         test_result_copy_gpu test_dense_gemm_gpu test_graph_gpu test_paths_gpu test_jit_gpu \
         test_apsp_gpu test_apsp_batched_gpu test_out_of_core_gpu; do
  suite $t 150
done
