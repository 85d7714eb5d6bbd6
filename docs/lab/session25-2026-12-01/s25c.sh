#!/usr/bin/env bash
# Session 25, call N: test_graph_gpu built against a one-block BFS that writes a wrong level for
# every 97th vertex: the new cases must fail.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c25c; out=${OUT:-/tmp/out}; mkdir -p "$out"
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
timeout 300 $b/test_graph_gpu --log_level=test_suite > "$out/test_graph_gpu_broken.txt" 2>&1
echo "rc=$?"; grep -c "wrong levels" "$out/test_graph_gpu_broken.txt"; grep "wrong levels" "$out/test_graph_gpu_broken.txt" | head -5; tail -3 "$out/test_graph_gpu_broken.txt"
