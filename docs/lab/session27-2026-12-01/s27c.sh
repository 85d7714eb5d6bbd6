#!/usr/bin/env bash
# Session 27, call C: the library's bfs_cluster in the lab's harness, rows as read and sorted,
# beside lab kernel 8 (rows as read, and sorted), on the bench's NE sources.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c27c; out=${OUT:-/tmp/out}; mkdir -p "$out"
b=/tmp/bin; g=/tmp/g; mkdir -p $b $g
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
xz -T4 -dc "$lab"/g/road_NE.mtx.xz > $g/road_NE.mtx
printf '%s\n' 1073669 540528 523568 160770 583921 1344032 240525 379087 1286813 48199 1341633 1443481 1092422 1207642 673844 1298884 > $g/NE.src
for v in ""; do
  echo "== library kernel $v"; $b/cluster_bisect $g/road_NE.mtx $g/NE.src --runs 5 $v 2>&1 | tee -a $out/bisect.txt | grep -E "RESULT|CHECK|equal|cuda|1073669|1207642"
done
echo "== lab kernel 8"; $b/region_sssp $g/road_NE.mtx --bfs --kernels 8 --threads 1024 --sources-file $g/NE.src --runs 5 --check 2 --clusters 16 --k8-variants 0,4,7,0,4 2>&1 | tee -a $out/lab8.txt | grep -E "RESULT|CHECK|equal"
