#!/usr/bin/env bash
# Session 25, call P: shortcuts to each vertex's rho nearest (lab/road_shortcuts.cpp) and the
# library's GPU SSSP (the work list) on the augmented road graphs, beside the originals, same
# sources; CPU beside for the answers.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c25d; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; g=/tmp/g; mkdir -p $b $g
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
for f in "$lab"/g/*.xz; do n=$(basename "$f" .xz); xz -T4 -dc "$f" > $g/$n & done; wait
export OMP_PROC_BIND=close OMP_PLACES=cores
for gr in ${GRAPHS:-NY NE}; do
  note "shortcuts $gr"
  $b/road_shortcuts $g/road_$gr.mtx --rho 0,${RHOS:-8,16} --sources 4 --write $g/road_$gr | tee -a "$out/shortcuts_$gr.txt"
  for v in "" $(echo ${RHOS:-8,16} | tr , ' '); do
    f=$g/road_$gr.mtx; [[ -n $v ]] && f=$g/road_${gr}_rho$v.mtx
    note "sssp $gr rho ${v:-0}"
    srcopt=(--write-sources $g/$gr.src); [[ -n $v ]] && srcopt=(--sources-file $g/$gr.src)
    timeout 200 $b/bench_graph_kernels --graph $f --device both --kernels sssp --sources 16 --runs 5 --reuse-results "${srcopt[@]}" 2>&1 | grep -E "graph:|^sssp|error|differ" | tee -a "$out/sssp_$gr.txt"
    timeout 100 $b/bench_graph_kernels --graph $f --device gpu --kernels sssp --sources-file $g/$gr.src --sources 1 --runs 1 --explain 2>&1 | grep -E "work list:" | head -2 | tee -a "$out/explain_$gr.txt"
  done
done
note end
