#!/usr/bin/env bash
# Session 34, call B (issue 39): the headline benchmarks before / after on the same device in one
# run: a56a076 (session 33's parent, built on the build machine from a worktree) against the head
# (b7fa909+, the context's device check on every state() / memory_pool() call), alternating:
# bench_gemm_gpu 8192, bench_apsp_gpu 16384 (R-Kleene fp32 and int32), bench_out_of_core_gpu 16384
# at 8x the device cap (fp32). Between the pairs: bench_dense_gemm --masked 4096 on the host's 16
# cores (the CPU's GEMM sampled by blocks and the SpMM by row spans, with SuiteSparse 7.4).
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c34b; out=${OUT:-/tmp/out}; mkdir -p "$out"; logs=$out/logs; mkdir -p $logs
note() { echo "== $(date +%T) $*"; }
start=$(date +%s)
left() { echo $(( 575 - ($(date +%s) - start) )); }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee $logs/gpu.txt
lscpu | grep -E "Model name|^CPU\(s\)" | tee $logs/cpu.txt
headline() { # pass
  for v in _before ""; do
    local tag=${v:-_after}
    (( $(left) < 100 )) && { note "pass $1 $tag cut (time)"; return; }
    note "bench_gemm_gpu$v 8192 ($1)"
    timeout 90 $b/bench_gemm_gpu$v 8192 2>&1 | tee -a $logs/gemm$tag.txt | grep -E "RESULT|FAIL|rror" | head -40
    note "bench_apsp_gpu$v 16384 ($1)"
    FP64_MAX=0 NAIVE_MAX=0 CPU_MAX=0 CLOSURE_SIZES=" " timeout 90 $b/bench_apsp_gpu$v 16384 2>&1 | tee -a $logs/apsp$tag.txt | grep -E "RESULT|FAIL|rror"
    note "bench_out_of_core_gpu$v 16384 8x ($1)"
    OOC_RATIOS=8 timeout 90 $b/bench_out_of_core_gpu$v 16384 2>&1 | tee -a $logs/ooc$tag.txt | grep -E "RESULT|FAIL|rror"
  done
}
headline 1
note bench_dense_gemm --masked 4096
timeout 200 $b/bench_dense_gemm --masked 4096 --runs 3 2>&1 | tee "$logs/bench_dense_gemm_masked.txt"
headline 2
