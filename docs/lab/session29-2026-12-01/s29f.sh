#!/usr/bin/env bash
# Session 29, call F: test_structure_gpu (the backend's reduce, transpose, extract and assign against
# the CPU's) with its cases on needs::minimal: in the minimal build they skipped before.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/${CALL:-c29f}; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for t in $(ls $b); do
  note $t; timeout 300 $b/$t --log_level=test_suite > "$out/$t.txt" 2>&1
  echo "rc=$? cases=$(grep -c 'Leaving test case' "$out/$t.txt") skipped=$(grep -c 'GPU test skipped' "$out/$t.txt") failures=$(grep -c 'error: in' "$out/$t.txt")"
  grep -m4 "error: in" "$out/$t.txt"; tail -1 "$out/$t.txt"
done
cd "$out" && tar cJf logs.tar.xz *.txt && rm -f *.txt
note end
