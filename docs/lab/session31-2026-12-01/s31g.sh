#!/usr/bin/env bash
# Session 31, call G: test_mxm_gpu and test_sparse_gpu after the review mend (masked_dot through masked_entries, add_block_sum).
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c31g; out=${OUT:-/tmp/out}; mkdir -p "$out"
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
(cd /tmp && timeout 200 $b/test_mxm_gpu --log_level=test_suite > "$out/test_mxm_gpu.txt" 2>&1; echo "rc=$?" >> "$out/test_mxm_gpu.txt")
grep -E "Leaving test case|error|No errors|rc=" "$out/test_mxm_gpu.txt" | tail -16
(cd /tmp && timeout 120 $b/test_sparse_gpu > "$out/test_sparse_gpu.txt" 2>&1; echo "rc=$?" >> "$out/test_sparse_gpu.txt")
grep -E "error|No errors|rc=" "$out/test_sparse_gpu.txt" | tail -3
