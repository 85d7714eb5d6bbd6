#!/usr/bin/env bash
# Session 30, call D: where the uniform graph's 1.5-4 ms went (call C: the masked dot products on
# urand 22 took 12.0-14.8 ms against HEAD's 10.1-10.9, with no hashed row in it).
#  1. dot_lab old / new1 (call C's) / new (the first kernel reads the mask row's length only for
#     rows of A past 256 entries), urand 22 and Kronecker 22, best of 3, alternating;
#  2. ncu: every kernel's time in one run of each on urand 22;
#  3. test_dispatch_gpu.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c30d; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
for round in 1 2; do
  for v in old new1 new; do
    note "dot_lab $v urand 22, round $round"
    timeout 100 $b/dot_lab_$v urand 22 3 2>&1 | tee -a "$out/dot_lab_urand_$v.txt" | grep "masked\|dedicated"
  done
done
for v in old new; do
  note "dot_lab $v kron 22"
  timeout 100 $b/dot_lab_$v 22 3 2>&1 | tee -a "$out/dot_lab_kron_$v.txt" | grep "masked\|dedicated"
done
for v in old new1 new; do
  note "ncu $v"
  timeout 150 ncu --clock-control none --kernel-name "regex:masked_dot|Scan|hash" --metrics gpu__time_duration.sum --csv $b/dot_lab_$v urand 22 1 > "$out/ncu_urand_$v.csv" 2>&1
  grep -c gpu__time "$out/ncu_urand_$v.csv"
done
note test_dispatch_gpu
(cd /tmp && timeout 200 $b/test_dispatch_gpu > "$out/test_dispatch_gpu.log" 2>&1; echo "rc=$?" >> "$out/test_dispatch_gpu.log")
grep -E "error|failure|No errors|rc=" "$out/test_dispatch_gpu.log" | tail -3
note end
