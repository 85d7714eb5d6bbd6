#!/usr/bin/env bash
# Session 26, call B: the lab's one-block BFS with padded rows (kernel 6) traced level by level
# (clocks a level by the level's size, with and without the levels' writes), at 1024 and 512 threads.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c26b; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
b=/tmp/bin; g=/tmp/g; mkdir -p $b $g
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
for f in "$lab"/g/*.xz; do n=$(basename "$f" .xz); xz -T4 -dc "$f" > $g/$n & done; wait
if [[ ${STAGES:-lab test bench} == *lab* ]]; then
  for gr in ${GRAPHS:-NY NE}; do
    note "lab $gr"
    timeout 240 $b/region_sssp $g/road_$gr.mtx --bfs --kernels ${LABK:-4,6} --threads ${THREADS:-1024} --sources 16 --runs 5 --check 2 ${LABX:-} 2>&1 | grep -vE "^  round|^$" | tee -a "$out/lab_$gr.txt"
  done
fi
if [[ ${STAGES:-lab test bench} == *test* ]]; then
  for t in test_graph_gpu test_graph_object_gpu test_result_copy_gpu; do
    note $t; timeout 300 $b/$t --log_level=test_suite > "$out/$t.txt" 2>&1
    echo "rc=$? skipped=$(grep -c 'test skipped' "$out/$t.txt")"; grep -E "error|fail" "$out/$t.txt" | head -5; tail -1 "$out/$t.txt"
  done
fi
if [[ ${STAGES:-lab test bench} == *bench* ]]; then
  for gr in ${GRAPHS:-NY NE}; do
    for rep in $(seq ${ROUNDS:-2}); do
      for bf in ${BF:-default 0 100000000}; do
        extra=(); [[ $bf != default ]] && extra=(--gpu-block-frontier $bf)
        note "$gr block frontier $bf (round $rep)"
        timeout 200 $b/bench_graph_kernels --graph $g/road_$gr.mtx --device ${DEV:-gpu} --kernels ${KERN:-bfs} --sources 16 --runs 5 --reuse-results "${extra[@]}" 2>&1 | grep -E "^bfs|^sssp|error|wrong|differ" | tee -a "$out/bench_$gr.txt"
      done
    done
  done
fi
note end
