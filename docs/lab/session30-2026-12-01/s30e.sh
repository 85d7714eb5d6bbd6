#!/usr/bin/env bash
# Session 30, call E: the committed head (48cc59c): test_mxm_gpu, and the public mxm's triangles
# at Kronecker 22 (minimal build: plus_times over ones), --relabel.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c30e; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
note test_mxm_gpu
(cd /tmp && timeout 200 $b/test_mxm_gpu > "$out/test_mxm_gpu.log" 2>&1; echo "rc=$?" >> "$out/test_mxm_gpu.log")
grep -E "error|failure|No errors|rc=" "$out/test_mxm_gpu.log" | tail -3
note bench_masked_tc
timeout 150 $b/bench_masked_tc --device gpu --scale 22 --runs 3 --relabel --no-unmasked 2>&1 | tee "$out/bench_masked_tc.txt" | tail -9
note end
