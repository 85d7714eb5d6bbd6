#!/usr/bin/env bash
# Session 33, call E: the SpMM band by band with a warp a row when C has one band (call D's loop
# cost Kronecker 22's SpMM into 32 columns 3.5%). Before / after in one run: bench_sparse_gpu 22
# (call A's binary: a warp a row) twice each; bench_gemm_gpu --masked 8192 16384 (call B's binary,
# a warp a row, then the head's); the sampled cases of test_mxm_gpu, test_sparse_gpu,
# test_dispatch_gpu.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c33e; out=${OUT:-/tmp/out}; mkdir -p "$out"; logs=/tmp/logs; mkdir -p $logs
note() { echo "== $(date +%T) $*"; }
finish() { tar -C /tmp -cJf "$out/logs_e.tar.xz" logs; note end; }
trap finish EXIT
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
for v in _before "" _before ""; do
  note "bench_sparse_gpu$v 22"
  KLEENE_SPGEMM_SCALES="" KLEENE_BFS_SOURCES=16 timeout 100 $b/bench_sparse_gpu$v 22 2>&1 | grep -E "RESULT kind=spmm" | tee -a $logs/sparse$v.txt
done
for v in _before ""; do
  note "bench_gemm_gpu$v --masked"
  timeout 150 $b/bench_gemm_gpu$v --masked 8192 16384 2>&1 | tee $logs/bench_gemm_masked$v.txt | grep -E "RESULT.*SpMM|FAIL"
done
note test_mxm_gpu sampled cases
(cd /tmp && timeout 60 $b/test_mxm_gpu --run_test=sampled_spmm_and_spgemm_dense_compute_the_masks_entries,masked_spmm_and_spgemm_dense_match_the_host,masked_dense_matches_the_host > $logs/test_mxm_gpu.txt 2>&1; echo "rc=$?" >> $logs/test_mxm_gpu.txt)
tail -2 $logs/test_mxm_gpu.txt
for t in test_sparse_gpu test_dispatch_gpu; do
  note $t
  (cd /tmp && timeout 60 $b/$t > "$logs/$t.txt" 2>&1; echo "rc=$?" >> "$logs/$t.txt")
  tail -2 "$logs/$t.txt"
done
