#!/usr/bin/env bash
# Session 31, call C (issue 39, item 6): the committed head with the final GPU weights.
#  1. test_mxm_gpu, test_sparse_gpu (the backend's products, now with masked_spmm / masked_gemm
#     declared extern), test_jit_gpu, test_capture_gpu;
#  2. bench_masked_dense --device gpu: the automatic choice under the final weights.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c31c; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
for t in test_mxm_gpu test_sparse_gpu test_jit_gpu test_capture_gpu; do
  note $t
  (cd /tmp && timeout 150 $b/$t > "$out/$t.txt" 2>&1; echo "rc=$?" >> "$out/$t.txt")
  grep -E "error|failure|No errors|rc=" "$out/$t.txt" | tail -3
done
d=$b/bench_masked_dense
run() { note "bench_masked_dense $*"; timeout 60 $d --device gpu "$@" 2>&1 | tee -a "$out/bench_masked_dense_gpu.txt" | cut -c1-100; }
run --m 16384 --n 16384 --k 64 --mask-deg 32,256,2048 --runs 5
run --m 16384 --n 16384 --k 256 --mask-deg 32,256,2048 --runs 5
run --m 65536 --k 65536 --n 256 --a-deg 16 --mask-deg 2,16,256 --runs 5
run --m 65536 --k 65536 --n 1024 --a-deg 64 --mask-deg 4,64,512,1024 --runs 5
run --m 1048576 --n 1048576 --k 64 --mask-deg 16 --runs 3
note end
