#!/usr/bin/env bash
# Session 33, call C: the SpMM's rows kernel a warp per pass of 128 columns (call B: a warp per row
# left a triangle mask's last rows as long as the whole product's, 0.93x). Before / after in one
# run: bench_gemm_gpu --masked 8192 16384 (call B's binary, a warp per row, then the head's) and
# bench_sparse_gpu 22 (SpMM of Kronecker 22 into 32 columns: one pass a row, as before); the suites
# that run the SpMM: test_mxm_gpu, test_sparse_gpu, test_dispatch_gpu.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c33c; out=${OUT:-/tmp/out}; mkdir -p "$out"; logs=/tmp/logs; mkdir -p $logs
note() { echo "== $(date +%T) $*"; }
finish() { tar -C /tmp -cJf "$out/logs_c.tar.xz" logs; note end; }
trap finish EXIT
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
for v in _before ""; do
  note "bench_gemm_gpu$v --masked"
  timeout 150 $b/bench_gemm_gpu$v --masked 8192 16384 2>&1 | tee $logs/bench_gemm_masked$v.txt | grep -E "RESULT.*(SpMM|spgemm)|FAIL"
done
for v in _before "" _before ""; do
  note "bench_sparse_gpu$v 22"
  KLEENE_SPGEMM_SCALES="" KLEENE_BFS_SOURCES=16 timeout 100 $b/bench_sparse_gpu$v 22 2>&1 | grep -E "RESULT kind=spmm" | tee -a $logs/sparse$v.txt
done
for t in test_mxm_gpu test_sparse_gpu test_dispatch_gpu; do
  note $t
  (cd /tmp && timeout 150 $b/$t > "$logs/$t.txt" 2>&1; echo "rc=$?" >> "$logs/$t.txt")
  grep -E "error|failure|No errors|rc=" "$logs/$t.txt" | tail -3
done
