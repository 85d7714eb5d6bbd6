#!/usr/bin/env bash
# Session 31, call E: test_mxm_gpu of the head (its masked suites now share one loop).
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c31e; out=${OUT:-/tmp/out}; mkdir -p "$out"
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
(cd /tmp && timeout 200 $b/test_mxm_gpu --log_level=test_suite > "$out/test_mxm_gpu.txt" 2>&1; echo "rc=$?" >> "$out/test_mxm_gpu.txt")
grep -E "Leaving test case|error|No errors|rc=" "$out/test_mxm_gpu.txt" | tail -16
