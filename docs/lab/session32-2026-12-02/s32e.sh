#!/usr/bin/env bash
# Session 32, call E: the sampled GEMM's packed A capped at 1 GiB (sampled_pack_cap_bytes):
# test_mxm_gpu, test_capture_gpu, bench_gemm_gpu --masked 8192 16384 (16384: A is 1 GiB, one
# panel still).
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c32e; out=${OUT:-/tmp/out}; mkdir -p "$out"; logs=/tmp/logs; mkdir -p $logs
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
for t in test_mxm_gpu test_capture_gpu; do
  note $t
  (cd /tmp && timeout 200 $b/$t > "$logs/$t.txt" 2>&1; echo "rc=$?" >> "$logs/$t.txt")
  grep -E "error|failure|No errors|rc=" "$logs/$t.txt" | tail -4
done
note bench_gemm_gpu --masked
timeout 150 $b/bench_gemm_gpu --masked 8192 16384 2>&1 | tee "$logs/bench_gemm_masked.txt"
tar -C /tmp -cJf "$out/logs_e.tar.xz" logs
note end
