#!/usr/bin/env bash
# Session 33, call D: the SpMM's passes dealt out band by band (call C: a warp per pass, row by row, made the whole product 1.7x slower; call B: a warp per row
# left a triangle mask's last rows as long as the whole product's, 0.93x). Before / after in one
# run: bench_gemm_gpu --masked 8192 16384 (call B's binary, a warp per row, then the head's) and
# bench_sparse_gpu 22 (SpMM of Kronecker 22 into 32 columns: one pass a row, as before); the suites
# that run the SpMM: test_mxm_gpu, test_sparse_gpu, test_dispatch_gpu, test_capture_gpu,
# test_operations_gpu; memcheck of the sampled SpMM's case.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c33d; out=${OUT:-/tmp/out}; mkdir -p "$out"; logs=/tmp/logs; mkdir -p $logs
note() { echo "== $(date +%T) $*"; }
finish() { tar -C /tmp -cJf "$out/logs_d.tar.xz" logs; note end; }
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
for t in test_mxm_gpu test_sparse_gpu test_dispatch_gpu test_capture_gpu test_operations_gpu; do
  note $t
  (cd /tmp && timeout 150 $b/$t > "$logs/$t.txt" 2>&1; echo "rc=$?" >> "$logs/$t.txt")
  grep -E "error|failure|No errors|rc=" "$logs/$t.txt" | tail -3
done
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$cs" ]; then
  note memcheck
  (cd /tmp && timeout 100 $cs --tool memcheck $b/test_mxm_gpu --run_test=sampled_spmm_and_spgemm_dense_compute_the_masks_entries > $logs/memcheck_mxm.txt 2>&1; echo "rc=$?" >> $logs/memcheck_mxm.txt)
  tail -3 $logs/memcheck_mxm.txt
fi
