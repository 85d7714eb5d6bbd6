#!/usr/bin/env bash
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c24c; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$root"/build-lab/depsb/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
note chain_latency; timeout 60 $b/chain_latency 20000 | tee "$out/chain_latency.txt"
for t in test_structure_gpu test_operations_gpu test_sparse_gpu test_mxm_gpu test_dense_gemm_gpu test_dispatch_gpu; do
  note "$t"; timeout ${T:-200} $b/$t --log_level=message > "$out/$t.txt" 2>&1; echo "rc=$? skipped=$(grep -c 'test skipped' "$out/$t.txt")"; grep -E "error|fail" "$out/$t.txt" | head -5; tail -1 "$out/$t.txt"
done
note end
