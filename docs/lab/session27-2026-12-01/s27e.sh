#!/usr/bin/env bash
# Session 27, call E: the library's rebuilt bfs_cluster in the lab harness by mode (1: claims
# without reading the word first, 2: a vertex queued at the block that claimed it), beside
# lab kernel 8, on the bench's NE (and NY) sources.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c27e; out=${OUT:-/tmp/out}; mkdir -p "$out"
b=/tmp/bin; g=/tmp/g; mkdir -p $b $g
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
xz -T4 -dc "$lab"/g/road_NE.mtx.xz > $g/road_NE.mtx
printf '%s\n' 1073669 540528 523568 160770 583921 1344032 240525 379087 1286813 48199 1341633 1443481 1092422 1207642 673844 1298884 > $g/NE.src
for m in ${MODES:-0 1 2 3 0 3}; do
  for C in ${CS:-16}; do
    $b/cluster_bisect $g/road_NE.mtx $g/NE.src --runs 5 --mode $m --clusters $C 2>&1 | tee -a $out/bisect.txt | grep -E "RESULT|CHECK|equal|cuda"
  done
done
$b/region_sssp $g/road_NE.mtx --bfs --kernels 8 --threads 1024 --sources-file $g/NE.src --runs 5 --check 2 --clusters 16 2>&1 | tee -a $out/lab8.txt | grep -E "RESULT|CHECK|equal"
