#!/usr/bin/env bash
# Session 28, call B: CPU PageRank, automatic (Gauss-Seidel everywhere, over-relaxed on the roads) against plain Gauss-Seidel and the Jacobi pass
# (--pr-relaxation 1) and the GAP reference's pr, 16 threads, every class; alternating rounds.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c28b; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; g=/tmp/g; mkdir -p $b $g
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
for f in "$lab"/g/*.xz; do n=$(basename "$f" .xz); xz -T4 -dc "$f" > $g/$n & done; wait
mkdir -p /tmp/peers-bin/gapbs; cp $b/gapbs_pr /tmp/peers-bin/gapbs/pr; cp $b/gapbs_bfs /tmp/peers-bin/gapbs/bfs; cp $b/gapbs_converter /tmp/peers-bin/gapbs/converter
echo 0 > $g/zero.src
export OMP_PROC_BIND=close OMP_PLACES=cores
nproc; lscpu | grep -E "Model name|L3"
gap() { # name graph
  PEERS_BIN=/tmp/peers-bin PEERS=gapbs KERNELS=pr THREADS=16 TRIALS=${TRIALS:-9} VALIDATE=0 OUT=$out/p_$1 WORK=/tmp/pw timeout 300 bash "$root/bench/peers/run.sh" $g/zero.src "$2" 2>&1 | grep -E "PEERS peer|error" | tail -2 | tee -a "$out/peers.txt"
}
km() { # name args...
  local name=$1; shift
  timeout 300 $b/bench_graph_kernels "$@" --device cpu --kernels pagerank --threads 16 --reuse-results 2>&1 | grep -E "^pagerank|error|differ" | awk -v p="$name $*" '{ print p " | " $0 }' | tee -a "$out/kleene.txt"
}
if [[ ${STAGES:-road synth} == *road* ]]; then
  for rep in 1 2 3; do
    for gr in NY NE; do
      note "$gr round $rep"
      km $gr --graph $g/road_$gr.mtx --runs 9
      km $gr --graph $g/road_$gr.mtx --runs 9 --pr-relaxation 1
      gap road_$gr $g/road_$gr.mtx
    done
  done
  timeout 60 $b/bench_graph_kernels --graph $g/road_NE.mtx --device cpu --kernels pagerank --threads 16 --runs 1 --explain 2>&1 | grep -E "pagerank" > "$out/explain_NE.txt"
fi
if [[ ${STAGES:-road synth} == *synth* ]]; then
  for cls in kron urand; do
    flag=(); [[ $cls == urand ]] && flag=(--uniform)
    note "$cls 22"
    timeout 120 $b/bench_graph_kernels --scale 22 "${flag[@]}" --device cpu --kernels pagerank --threads 16 --runs 1 --write-sg $g/$cls 2>&1 | grep -E "^pagerank|graph:"
    for rep in 1 2; do
      km $cls --scale 22 "${flag[@]}" --runs 5
      km $cls --scale 22 "${flag[@]}" --runs 5 --pr-method fused
      [[ $cls == urand ]] && km $cls --scale 22 "${flag[@]}" --runs 5 --pr-relaxation 1
      gap $cls $g/$cls.sg
    done
  done
fi
note end
