#!/usr/bin/env bash
# Session 26, call E: test_graph_gpu built with a wrong level for every 97th vertex of the block's
# order (finish_levels; must fail), and the CLI's end-to-end BFS/SSSP and graph-kernel scripts
# with the GPU present.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c26e; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
note "test_graph_gpu, failing on purpose"
timeout 300 $b/tgb --log_level=test_suite > "$out/tgb.txt" 2>&1
echo "rc=$? failures: $(grep -c 'error: in' "$out/tgb.txt")"; grep -m3 "error: in" "$out/tgb.txt"; tail -2 "$out/tgb.txt"
for s in bfs_sssp graph_kernels; do
  note "cli $s"; timeout 200 bash "$root/tests/cli/$s.sh" $b/kleene > "$out/cli_$s.txt" 2>&1; echo "rc=$?"; tail -2 "$out/cli_$s.txt"
done
note end
