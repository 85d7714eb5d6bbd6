#!/usr/bin/env bash
# Session 31, call B (issue 39, item 6): the GPU weights refitted on call A.
#  1. test_mxm_gpu built with masked_spmm_kernel's lane 31 idle (must fail), and as committed;
#  2. bench_masked_dense --device gpu again (the automatic choice under the new weights);
#  3. bench_masked_dense --device cpu, 16 threads (the CPU weights were fitted on 2 cores);
#  4. bench_masked_tc --device cpu, 16 threads, Kronecker 22 (the head's CPU rows: automatic,
#     as generated and renumbered; SuiteSparse measured in session 30, call C).
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c31b; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
note "test_mxm_gpu broken on purpose"
(cd /tmp && timeout 100 $b/test_mxm_gpu_broken --run_test=masked_dense_matches_the_host > "$out/test_mxm_gpu_broken.txt" 2>&1; echo "rc=$?" >> "$out/test_mxm_gpu_broken.txt")
grep -c "error" "$out/test_mxm_gpu_broken.txt"; grep -E "error" "$out/test_mxm_gpu_broken.txt" | head -2 | cut -c1-300; tail -2 "$out/test_mxm_gpu_broken.txt"
note test_mxm_gpu
(cd /tmp && timeout 150 $b/test_mxm_gpu > "$out/test_mxm_gpu.txt" 2>&1; echo "rc=$?" >> "$out/test_mxm_gpu.txt")
grep -E "error|failure|No errors|rc=" "$out/test_mxm_gpu.txt" | tail -4
d=$b/bench_masked_dense
run() { note "bench_masked_dense $*"; timeout 60 $d "$@" 2>&1 | tee -a "$out/bench_masked_dense.txt" | cut -c1-90; }
run --device gpu --m 16384 --n 16384 --k 64 --mask-deg 256,2048 --runs 5
run --device gpu --m 16384 --n 16384 --k 256 --mask-deg 256,2048 --runs 5
run --device gpu --m 65536 --k 65536 --n 256 --a-deg 16 --mask-deg 16,256 --runs 5
run --device gpu --m 65536 --k 65536 --n 1024 --a-deg 64 --mask-deg 64,512 --runs 5
export OMP_PROC_BIND=close OMP_PLACES=cores OMP_NUM_THREADS=16
run --device cpu --m 4096 --n 4096 --k 64 --mask-deg 16,128,512,2048 --runs 3
run --device cpu --m 4096 --n 4096 --k 256 --mask-deg 16,128,512 --runs 3
run --device cpu --m 16384 --k 16384 --n 2048 --a-deg 16 --mask-deg 16,128,512 --runs 3
note "bench_masked_tc cpu"
timeout 150 $b/bench_masked_tc --device cpu --scale 22 --threads 16 --runs 1 --no-unmasked --rows auto --relabel 2>&1 | tee "$out/bench_masked_tc_cpu.txt" | tail -5
note end
