#!/usr/bin/env bash
# Session 27, call H: the final code's GPU suites that run mxm (the model's weight now 10).
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c27h; out=${OUT:-/tmp/out}; mkdir -p "$out"
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
for t in test_mxm_gpu test_dispatch_gpu test_capture_gpu; do
  echo "== $t"; timeout 400 $b/$t --log_level=test_suite > "$out/$t.txt" 2>&1
  echo "rc=$? skipped=$(grep -c 'test skipped' "$out/$t.txt")"; grep -E "error" "$out/$t.txt" | head -5; tail -1 "$out/$t.txt"
done
