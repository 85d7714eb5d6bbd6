#!/usr/bin/env bash
# Session 31, call D (issue 39, item 6): the masked products with a dense A and a CSR B.
#  1. test_mxm_gpu built with masked_dot_dense_kernel skipping each Bt row's last entry (must
#     fail), and as committed; test_sparse_gpu, test_dispatch_gpu;
#  2. bench_masked_dense --b-deg on the GPU (masked_dot_dense against B made dense and the GEMM)
#     and on the CPU, 16 threads (masked_dense_bt against dense_csr).
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c31d; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
note "test_mxm_gpu broken on purpose"
(cd /tmp && timeout 100 $b/test_mxm_gpu_broken2 --run_test=masked_dense_matches_the_host > "$out/test_mxm_gpu_broken2.txt" 2>&1; echo "rc=$?" >> "$out/test_mxm_gpu_broken2.txt")
grep -E "error" "$out/test_mxm_gpu_broken2.txt" | head -2 | cut -c1-300; tail -2 "$out/test_mxm_gpu_broken2.txt"
for t in test_mxm_gpu test_sparse_gpu test_dispatch_gpu; do
  note $t
  (cd /tmp && timeout 150 $b/$t > "$out/$t.txt" 2>&1; echo "rc=$?" >> "$out/$t.txt")
  grep -E "error|failure|No errors|rc=" "$out/$t.txt" | tail -3
done
d=$b/bench_masked_dense
run() { note "bench_masked_dense $*"; timeout 90 $d "$@" 2>&1 | tee -a "$out/bench_masked_dense.txt" | cut -c1-110; }
run --device gpu --m 16384 --k 16384 --n 16384 --b-deg 16 --mask-deg 16,256,2048 --runs 5
run --device gpu --m 16384 --k 4096 --n 65536 --b-deg 64 --mask-deg 16,256 --runs 5
export OMP_PROC_BIND=close OMP_PLACES=cores OMP_NUM_THREADS=16
run --device cpu --m 4000 --k 4000 --n 4000 --b-deg 16 --mask-deg 16,128,1024 --runs 3
run --device cpu --m 8192 --k 2048 --n 16384 --b-deg 64 --mask-deg 16,256 --runs 3
note end
