#!/usr/bin/env bash
# Session 30, call B (issue 39, item 5): the hashed rows with four loads a lane in flight, tiles
# taken from a counter (last first), no end cut; the GPU model's steps for hashed rows.
#  1. test_mxm_gpu, test_operations_gpu; test_mxm_gpu_broken (the hashed
#     kernel stopping after a row's first table: must fail);
#  2. dot_lab: old (HEAD), new, and variants: w1 (one load a lane in flight), min128
#     (rows of A hashed past 128 entries), Kronecker 22;
#  3. bench_masked_tc (public mxm; minimal build: plus_times over ones) and bench_masked_tc_pp
#     (the same with plus_pair<double> compiled in: the issue's semiring), --relabel.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c30b; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"
for t in test_mxm_gpu test_operations_gpu test_mxm_gpu_broken; do
  note $t
  (cd /tmp && timeout 300 $b/$t > "$out/$t.txt" 2>&1; echo "rc=$?" >> "$out/$t.txt")
  grep -E "error|failure|No errors|rc=" "$out/$t.txt" | tail -4
  [ $t = test_mxm_gpu_broken ] && grep -c "error:" "$out/$t.txt"
done
for v in old new w1 min128 new; do
  note "dot_lab $v"
  timeout 200 $b/dot_lab_$v 22 3 2>&1 | tee -a "$out/dot_lab_$v.txt" | grep "masked\|dedicated"
done
export OMP_PROC_BIND=close OMP_PLACES=cores
for v in bench_masked_tc_pp bench_masked_tc; do
  note $v
  timeout 240 $b/$v --device gpu --scale 22 --runs 3 --relabel --no-unmasked 2>&1 | tee "$out/$v.txt" | tail -9
done
note end
