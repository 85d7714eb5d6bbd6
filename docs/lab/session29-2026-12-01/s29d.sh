#!/usr/bin/env bash
# Session 29, call D: after the move of lib/ into floors (core, backend, ops): the GPU suites of
# calls A-C again, with test_jit_gpu and test_dense_gemm_gpu, from a build of the moved tree.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/${CALL:-c29d}; out=${OUT:-/tmp/out}; mkdir -p "$out"
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
