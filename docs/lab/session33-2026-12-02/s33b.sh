#!/usr/bin/env bash
# Session 33, call B: test_mxm_gpu whole with each case's time (call A's run passed 150 s and was
# cut), and bench_gemm_gpu --masked 8192 16384 with the whole side making its temporary in each
# call as mxm does (call A's reused one made outside the timing), and spgemm_dense with B of 128
# entries a row.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c33b; out=${OUT:-/tmp/out}; mkdir -p "$out"; logs=/tmp/logs; mkdir -p $logs
note() { echo "== $(date +%T) $*"; }
finish() { tar -C /tmp -cJf "$out/logs_b.tar.xz" logs; note end; }
trap finish EXIT
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
note bench_gemm_gpu --masked
timeout 200 $b/bench_gemm_gpu --masked 8192 16384 2>&1 | tee $logs/bench_gemm_masked.txt | grep -E "RESULT|FAIL"
note test_mxm_gpu
(cd /tmp && timeout 330 $b/test_mxm_gpu --log_level=test_suite > $logs/test_mxm_gpu.txt 2>&1; echo "rc=$?" >> $logs/test_mxm_gpu.txt)
grep -E "Leaving test case|error|failure|No errors|rc=" $logs/test_mxm_gpu.txt | sed 's/.*Leaving test case/case/' | tail -40
