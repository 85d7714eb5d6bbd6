#!/usr/bin/env bash
# Session 32, call C: the sampled GEMM packs all of A at once (one panel, so that the live tiles
# of every row of tiles run in one launch; call A's band and block masks were bound by the panels
# run one after another), the dense-C weights of masked_dense_model.hpp, the capture test's
# temporary made before the capture.
#  1. test_mxm_gpu, test_dispatch_gpu, test_capture_gpu;
#  2. bench_gemm_gpu --masked 4096 8192 16384 (also the caller's-workspace panels), and 8192;
#  3. bench_masked_dense --device gpu --dense-c: the automatic choice under the fitted weights.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c32c; out=${OUT:-/tmp/out}; mkdir -p "$out"; logs=/tmp/logs; mkdir -p $logs
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
for t in test_mxm_gpu test_dispatch_gpu test_capture_gpu; do
  note $t
  (cd /tmp && timeout 200 $b/$t > "$logs/$t.txt" 2>&1; echo "rc=$?" >> "$logs/$t.txt")
  grep -E "error|failure|No errors|rc=" "$logs/$t.txt" | tail -4
done
note bench_gemm_gpu --masked
timeout 240 $b/bench_gemm_gpu --masked 4096 8192 16384 2>&1 | tee "$logs/bench_gemm_masked.txt"
note bench_gemm_gpu 8192
timeout 100 $b/bench_gemm_gpu 8192 2>&1 | tee "$logs/bench_gemm_8192.txt" | grep -E "RESULT|FAIL"
d=$b/bench_masked_dense
run() { note "bench_masked_dense $*"; timeout 90 $d --device gpu --dense-c "$@" 2>&1 | tee -a "$logs/bench_masked_dense_c.txt"; }
run --m 16384 --n 16384 --k 64 --mask-deg 32,8,32,64,128,256,2048 --runs 5
run --m 16384 --n 16384 --k 256 --mask-deg 32,32,128,512 --runs 5
run --m 65536 --k 65536 --n 256 --a-deg 16 --mask-deg 2,1,16,256 --runs 5
run --m 65536 --k 65536 --n 1024 --a-deg 64 --mask-deg 4,4,64,512 --runs 5
run --m 16384 --k 16384 --n 16384 --b-deg 16 --mask-deg 16,16,2048 --runs 3
tar -C /tmp -cJf "$out/logs_c.tar.xz" logs
note end
