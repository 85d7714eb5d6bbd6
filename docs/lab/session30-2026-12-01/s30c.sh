#!/usr/bin/env bash
# Session 30, call C (issue 39, item 5): the hashed rows on both backends, the models refitted.
#  1. test_mxm_gpu, test_jit (spgemm_kernels.cuh, which the JIT hands to NVRTC,
#     holds the hash lookups now);
#  2. the GPU benchmark through the public mxm: bench_masked_tc_pp (plus_pair compiled in) and
#     bench_masked_tc (minimal: plus_times over ones), Kronecker 22, --relabel;
#  3. the other classes: dot_lab old/new on the uniform graph (2^22 vertices, 2^26 edges) and the
#     road network NE (no hashed rows expected: nothing may be lost);
#  4. the CPU (16 threads): bench_masked_tc (the hashed CPU dot products) and
#     bench_masked_tc_cpu_old (HEAD's CPU dot products), automatic and SuiteSparse, as generated
#     and renumbered, one run a row.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c30c; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"
for t in test_mxm_gpu test_jit; do
  note $t
  (cd /tmp && timeout 200 $b/$t > "$out/$t.txt" 2>&1; echo "rc=$?" >> "$out/$t.txt")
  grep -E "error|failure|No errors|rc=" "$out/$t.txt" | tail -3
done
for v in bench_masked_tc_pp bench_masked_tc; do
  note $v
  timeout 120 $b/$v --device gpu --scale 22 --runs 3 --relabel --no-unmasked 2>&1 | tee "$out/$v.txt" | tail -7
done
xz -dc $lab/NE.gr.xz > /tmp/NE.gr
for g in "urand 22" "road /tmp/NE.gr"; do
  for v in old new; do
    note "dot_lab $v $g"
    timeout 100 $b/dot_lab_$v $g 3 2>&1 | tee -a "$out/dot_lab_$v.txt" | grep "masked\|dedicated\|vertices"
  done
done
export OMP_PROC_BIND=close OMP_PLACES=cores
note "cpu new"
timeout 200 $b/bench_masked_tc --device cpu --scale 22 --threads 16 --runs 1 --no-unmasked --rows auto,graphblas --relabel 2>&1 | tee "$out/cpu_new.txt" | tail -5
note "cpu old"
timeout 120 $b/bench_masked_tc_cpu_old --device cpu --scale 22 --threads 16 --runs 1 --no-unmasked --rows auto --relabel 2>&1 | tee "$out/cpu_old.txt" | tail -3
note end
