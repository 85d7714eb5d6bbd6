#!/usr/bin/env bash
# Session 31, call A (issue 39, item 6): the masked products with a dense B.
#  1. test_mxm_gpu (masked_dense_matches_the_host, masked_dense_errors_and_choice, and the
#     masked dot products' suites on the head), test_dispatch_gpu, test_operations_gpu;
#  2. bench_masked_dense --device gpu: dense A (k = 64, 256; plus_times and min_plus), CSR A, and
#     the sampled product of a 2^20 x 2^20 graph's pattern (its whole product: 4 TiB);
#  3. bench_masked_tc --device gpu, Kronecker 22, --relabel (the head's hashed masked dot products).
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c31a; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"
note test_mxm_gpu
(cd /tmp && timeout 150 $b/test_mxm_gpu > "$out/test_mxm_gpu.txt" 2>&1; echo "rc=$?" >> "$out/test_mxm_gpu.txt")
grep -E "error|failure|No errors|rc=" "$out/test_mxm_gpu.txt" | tail -4
d=$b/bench_masked_dense
run() { note "bench_masked_dense $*"; timeout 60 $d --device gpu "$@" 2>&1 | tee -a "$out/bench_masked_dense_gpu.txt"; }
run --m 16384 --n 16384 --k 64 --mask-deg 4,32,256,2048 --runs 5
run --m 16384 --n 16384 --k 256 --mask-deg 4,32,256,2048 --runs 5
run --m 16384 --n 16384 --k 64 --mask-deg 32,256 --runs 5 --semiring min_plus
run --m 65536 --k 65536 --n 256 --a-deg 16 --mask-deg 2,16,64,256 --runs 5
run --m 65536 --k 65536 --n 1024 --a-deg 64 --mask-deg 4,64,512 --runs 5
run --m 1048576 --n 1048576 --k 64 --mask-deg 16 --runs 3
for t in test_dispatch_gpu test_operations_gpu; do
  note $t
  (cd /tmp && timeout 120 $b/$t > "$out/$t.txt" 2>&1; echo "rc=$?" >> "$out/$t.txt")
  grep -E "error|failure|No errors|rc=" "$out/$t.txt" | tail -3
done
note bench_masked_tc
timeout 100 $b/bench_masked_tc --device gpu --scale 22 --runs 3 --relabel --no-unmasked 2>&1 | tee "$out/bench_masked_tc.txt" | tail -7
note end
