#!/usr/bin/env bash
# Session 25, call Q: the other GPU suites that run a BFS (graph object, result copies) and the
# CLI's end-to-end BFS/SSSP and graph-kernel scripts with the GPU present.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c25e; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
for t in test_graph_object_gpu test_result_copy_gpu; do
  note $t; timeout 240 $b/$t --log_level=test_suite > "$out/$t.txt" 2>&1
  echo "rc=$? skipped=$(grep -c 'test skipped' "$out/$t.txt")"; grep -E "error|fail" "$out/$t.txt" | head -5; tail -1 "$out/$t.txt"
done
for s in bfs_sssp graph_kernels; do
  note "cli $s"; timeout 200 bash "$root/tests/cli/$s.sh" $b/kleene > "$out/cli_$s.txt" 2>&1; echo "rc=$?"; tail -2 "$out/cli_$s.txt"
done
$b/kleene bfs --help >/dev/null 2>&1; echo "kleene runs: $?"
note end
