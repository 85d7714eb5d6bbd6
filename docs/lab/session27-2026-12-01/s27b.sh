#!/usr/bin/env bash
# Session 27, call B (per source; lab kernel 8 variants): the thread-block cluster after the block (bfs_cluster): the GPU
# suites that run it, then bench_graph_kernels on NY and NE (BF: a list of configurations,
# BOUND:US:CLUSTER or default; alternating, CPU beside for the answers), the GAP reference's bfs
# on the same sources, and the Kronecker / uniform scale-22 BFS.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c27b; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; g=/tmp/g; mkdir -p $b $g
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
for f in "$lab"/g/*.xz; do n=$(basename "$f" .xz); xz -T4 -dc "$f" > $g/$n & done; wait
export OMP_PROC_BIND=close OMP_PLACES=cores
if [[ ${STAGES:-test bench peers synth} == *test* ]]; then
  note test_graph_gpu
  for t in ${TESTS:-test_graph_gpu test_graph_object_gpu test_result_copy_gpu}; do
    note $t; timeout ${TT:-300} $b/$t --log_level=test_suite > "$out/$t.txt" 2>&1
    echo "rc=$? skipped=$(grep -c 'test skipped' "$out/$t.txt")"; grep -E "error|fail" "$out/$t.txt" | head -8; tail -1 "$out/$t.txt"
  done
fi
if [[ ${STAGES:-test bench peers synth} == *bench* ]]; then
  for gr in ${GRAPHS:-NY NE}; do
    for rep in $(seq ${ROUNDS:-2}); do
      for bf in ${BF:-default 0}; do
        extra=(); if [[ $bf != default ]]; then IFS=: read -r B T K <<< "$bf"; extra=(--gpu-block-frontier $B --gpu-block-level-us $T --gpu-cluster-blocks $K); fi
        note "$gr block frontier $bf (round $rep)"
        timeout 200 $b/bench_graph_kernels --graph $g/road_$gr.mtx --device ${DEV:-both} --kernels ${KERN:-bfs} --sources 16 --runs 5 --reuse-results --write-sources $g/$gr.src "${extra[@]}" ${BENCH_EXTRA:-} 2>&1 | grep -E "^bfs|^sssp|error|wrong|differ" | tee -a "$out/bench_$gr.txt"
      done
    done
    for ex in "" ${EXPLAINS:-}; do IFS=: read -r B T K <<< "$ex"; xa=(); [[ -n $ex ]] && xa=(--gpu-block-frontier $B --gpu-block-level-us $T --gpu-cluster-blocks $K); echo "explain $ex" >> "$out/explain_$gr.txt"; timeout 100 $b/bench_graph_kernels --graph $g/road_$gr.mtx --device gpu --kernels bfs --sources 1 --runs 1 --explain "${xa[@]}" 2>&1 | grep -E "one block|work list|traversal|cluster" | head -8 | tee -a "$out/explain_$gr.txt"; done
  done
fi
if [[ ${STAGES:-test bench peers synth} == *peers* ]]; then
  mkdir -p /tmp/peers-bin/gapbs /tmp/peers-bin/gunrock /tmp/peers-bin/lib
  cp $b/gapbs_bfs /tmp/peers-bin/gapbs/bfs; cp $b/gapbs_converter /tmp/peers-bin/gapbs/converter
  for gr in $(for r in $(seq ${PEER_ROUNDS:-1}); do echo NY NE; done); do
    note "gapbs bfs $gr"
    PEERS_BIN=/tmp/peers-bin PEERS=gapbs KERNELS=bfs THREADS=16 TRIALS=${TRIALS:-3} OUT=$out timeout 200 bash "$root/bench/peers/run.sh" $g/$gr.src $g/road_$gr.mtx 2>&1 | grep -E "PEERS|error" | tail -3
  done
fi
if [[ ${STAGES:-test bench peers synth} == *synth* ]]; then
  for cls in kron urand; do
    flag=(); [[ $cls == urand ]] && flag=(--uniform)
    note "$cls 22"
    timeout 200 $b/bench_graph_kernels --scale 22 "${flag[@]}" --device gpu --kernels bfs --sources 16 --runs 5 --reuse-results 2>&1 | grep -E "^bfs|graph:" | tee -a "$out/bench_$cls.txt"
  done
fi
if [[ ${STAGES:-test bench peers synth} == *labsrc* ]]; then
  # The lab's one-block and cluster kernels on the sources the bench wrote (bench stage first).
  for gr in ${GRAPHS:-NY NE}; do
    note "lab $gr on the bench's sources"
    timeout 240 $b/region_sssp $g/road_$gr.mtx --bfs --kernels ${LABK:-4,8} --threads 1024 --sources-file $g/$gr.src --runs 5 --check 2 ${LABX:-} 2>&1 | grep -E "RESULT|equal|CHECK|cuda|source" | grep -v "a thread 2 items\|seen in global" | cat | tee -a "$out/labsrc_$gr.txt"
  done
fi
if [[ ${STAGES:-test bench peers synth} == *fail* ]]; then
  note "test_graph_gpu with a wrong vertex at every 97th place of the cluster's order (must fail)"
  timeout 300 $b/tgb2 --log_level=test_suite > "$out/tgb2.txt" 2>&1
  echo "rc=$? failures: $(grep -c 'error: in' "$out/tgb2.txt")"; grep -m3 "error: in" "$out/tgb2.txt"
fi
note end
