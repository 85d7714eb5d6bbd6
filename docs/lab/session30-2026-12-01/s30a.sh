#!/usr/bin/env bash
# Session 30, call A (issue 39, item 5): the masked dot products with hashed rows of A.
#  1. test_mxm_gpu (the masked dot products against the host, new hashed-row cases);
#  2. dot_lab before (HEAD's masked_dot.cuh) and after (the tree's), alternating: the masked dot
#     products called directly (plus_pair and plus_times) against the dedicated triangle count,
#     Kronecker 22, renumbered by degree and as generated;
#  3. ncu: the masked dot kernels' times (after), scale 22, one run;
#  4. bench_masked_tc --device gpu --scale 22 --relabel: the public mxm (minimal build:
#     plus_times over ones).
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c30a; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"
note test_mxm_gpu
(cd /tmp && timeout 300 $b/test_mxm_gpu --log_level=test_suite > "$out/test_mxm_gpu.txt" 2>&1; echo "rc=$?" >> "$out/test_mxm_gpu.txt")
grep -E "Leaving test case|error|failure|rc=" "$out/test_mxm_gpu.txt" | tail -25
for round in 1 2; do
  for v in old new; do
    note "dot_lab $v, round $round"
    timeout 200 $b/dot_lab_$v 22 3 2>&1 | tee -a "$out/dot_lab_$v.txt"
  done
done
note "ncu (new)"
timeout 240 ncu --clock-control none --kernel-name regex:masked_dot --metrics gpu__time_duration.sum --csv $b/dot_lab_new 22 1 > "$out/ncu.csv" 2>&1
grep -c masked_dot "$out/ncu.csv"
note "bench_masked_tc"
export OMP_PROC_BIND=close OMP_PLACES=cores
timeout 240 $b/bench_masked_tc --device gpu --scale 22 --runs 3 --relabel --no-unmasked 2>&1 | tee "$out/bench_masked_tc.txt" | tail -12
note end
