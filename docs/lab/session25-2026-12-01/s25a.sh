#!/usr/bin/env bash
# Session 25, call A: region-per-block SSSP/BFS prototype (lab/region_sssp.cu) beside the library's
# work list (bench_graph_kernels) on the same sources, NY and NE.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c25a; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
dpkg -x "$lab"/deps/libfmt9_*.deb / ; ldconfig
b=/tmp/bin; g=/tmp/g; mkdir -p $b $g
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
for f in "$lab"/g/*.xz; do n=$(basename "$f" .xz); xz -T4 -dc "$f" > $g/$n & done; wait
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
for gr in ${GRAPHS:-NY NE}; do
  note "library $gr"
  timeout 200 $b/bench_graph_kernels --graph $g/road_$gr.mtx --device gpu --kernels bfs,sssp --sources 16 --runs 5 --reuse-results --write-sources $g/$gr.src 2>&1 | grep -v "^  level" | tail -12 | tee "$out/lib_$gr.txt"
  note "region $gr"
  timeout 240 $b/region_sssp $g/road_$gr.mtx --sources-file $g/$gr.src --both --kernels ${KS:-3} --regions ${REGIONS:-128,256} --threads ${THREADS:-512,1024} --windows-sssp ${WS:-0,256,1024,4096} --windows-bfs ${WB:-0,2,8,32} --poll-ns ${POLL:-500} --runs 5 --check 2 2>&1 | tee "$out/region_$gr.txt"
done
note end
