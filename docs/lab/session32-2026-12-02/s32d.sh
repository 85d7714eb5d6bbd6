#!/usr/bin/env bash
# Session 32, call D: the CPU's GEMM sampled by a mask's 256 x 256 blocks on the device host's 16
# cores (bench_dense_gemm --masked 4096: fp32 min_plus under a full mask, a lower triangle and a
# band of 512, against the whole product and its write-back, and SuiteSparse 7.4's masked
# GrB_mxm), and test_mxm_gpu / test_dispatch_gpu on the head (mxm.hpp's host branch changed).
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c32d; out=${OUT:-/tmp/out}; mkdir -p "$out"; logs=/tmp/logs; mkdir -p $logs
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
lscpu | grep -E "Model name|^CPU\(s\)" | tee "$logs/cpu.txt"
for t in test_mxm_gpu test_dispatch_gpu; do
  note $t
  (cd /tmp && timeout 200 $b/$t > "$logs/$t.txt" 2>&1; echo "rc=$?" >> "$logs/$t.txt")
  grep -E "error|failure|No errors|rc=" "$logs/$t.txt" | tail -4
done
note bench_dense_gemm --masked 4096
timeout 400 $b/bench_dense_gemm --masked 4096 --runs 3 2>&1 | tee "$logs/bench_dense_gemm_masked.txt"
tar -C /tmp -cJf "$out/logs_d.tar.xz" logs
note end
