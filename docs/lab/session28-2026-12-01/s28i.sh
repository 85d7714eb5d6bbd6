#!/usr/bin/env bash
# Session 28, call I: ewise one body too: test_dispatch_gpu, test_capture_gpu, and a fail-on-purpose build (the device ewise ignoring its mask)
# (the device front ends of apply and select, one body since this session), and a fail-on-purpose
# build (the device apply and select ignoring their masks: must fail).
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c28i; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
for t in test_dispatch_gpu test_capture_gpu test_dispatch_gpu_fail; do
  note $t; timeout 300 $b/$t --log_level=test_suite > "$out/$t.txt" 2>&1
  echo "rc=$? skipped=$(grep -c 'GPU test skipped' "$out/$t.txt") failures=$(grep -c 'error: in' "$out/$t.txt")"; grep -m4 "error: in" "$out/$t.txt"; tail -1 "$out/$t.txt"
  grep -E "Leaving test case" "$out/$t.txt" | sed 's/.*test case //' | head -20
done
note end
