#!/usr/bin/env bash
# Session 34, call C (issue 39 and what it turned up): mxm with C as one of its own dense operands
# (C = A C, C = C A, C = C C, C<M> accum= A C) on the device, and the other operations with C as
# an input (test_mxm_gpu c_as_an_operand_on_the_device; memcheck; the build without the copy,
# which must fail); the suites that include mxm.hpp; the CPU's masked SpMM into a dense C row by
# row through the mask (no temporary) against call B's binary on the host's 16 cores.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c34c; out=${OUT:-/tmp/out}; mkdir -p "$out"; logs=$out/logs; mkdir -p $logs
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee $logs/gpu.txt
note "test_mxm_gpu c_as_an_operand_on_the_device"
(cd /tmp && timeout 60 $b/test_mxm_gpu --run_test=c_as_an_operand_on_the_device > $logs/test_mxm_gpu_alias.txt 2>&1; echo "rc=$?" >> $logs/test_mxm_gpu_alias.txt)
tail -3 $logs/test_mxm_gpu_alias.txt
note "the same without the copy (must fail)"
(cd /tmp && timeout 60 $b/test_mxm_gpu_broken --run_test=c_as_an_operand_on_the_device > $logs/test_mxm_gpu_broken.txt 2>&1; echo "rc=$?" >> $logs/test_mxm_gpu_broken.txt)
grep -E "error" $logs/test_mxm_gpu_broken.txt | cut -c1-220 | head -8; tail -2 $logs/test_mxm_gpu_broken.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$cs" ]; then
  note memcheck
  (cd /tmp && timeout 90 $cs --tool memcheck $b/test_mxm_gpu --run_test=c_as_an_operand_on_the_device > $logs/memcheck.txt 2>&1; echo "rc=$?" >> $logs/memcheck.txt)
  tail -3 $logs/memcheck.txt
fi
for v in _before "" _before ""; do
  note "bench_dense_gemm$v --masked 4096 --no-graphblas"
  timeout 90 $b/bench_dense_gemm$v --masked 4096 --runs 3 --no-graphblas 2>&1 | tee -a $logs/bench_dense_gemm${v:-_after}.txt
done
for t in test_mxm_gpu test_dispatch_gpu test_capture_gpu test_graph_object_gpu test_operations_gpu; do
  note $t
  (cd /tmp && timeout 150 $b/$t > "$logs/$t.txt" 2>&1; echo "rc=$?" >> "$logs/$t.txt")
  grep -E "failure|No errors|error:" "$logs/$t.txt" | tail -3; tail -1 "$logs/$t.txt"
done
note end
