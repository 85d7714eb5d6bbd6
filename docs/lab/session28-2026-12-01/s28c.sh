#!/usr/bin/env bash
# Session 28, call C: the classes snapshot (bench/gpu/classes.sh, all six kernels, CPU and GPU,
# the GAP reference beside them; Gunrock not re-run) after the PageRank change, and the CPU SSSP
# on the roads at 4, 8, 12 and 16 threads beside gapbs sssp (delta 1024, 16 threads).
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c28c; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/cb/bench; w=/tmp/cw; mkdir -p $b $w /tmp/peers-bin/gapbs
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); case $n in gapbs_*) xz -dc "$f" > /tmp/peers-bin/gapbs/${n#gapbs_}; chmod +x /tmp/peers-bin/gapbs/${n#gapbs_};; *) xz -dc "$f" > $b/$n; chmod +x $b/$n;; esac; done
for f in "$lab"/g/*.xz; do n=$(basename "$f" .xz); xz -T4 -dc "$f" > $w/$n & done; wait
export OMP_PROC_BIND=close OMP_PLACES=cores
if [[ ${STAGES:-classes} == *threads* ]]; then
  for rep in 1 2; do
    for gr in NY NE; do
      for t in 16 8 4 12; do
        note "$gr sssp threads $t"
        timeout 120 $b/bench_graph_kernels --graph $w/road_$gr.mtx --device cpu --kernels sssp --sources 16 --runs 5 --threads $t --reuse-results --write-sources $w/$gr.src 2>&1 | grep -E "^sssp" | awk -v p="$gr t=$t" '{ print p " | " $0 }' | tee -a "$out/sssp_threads.txt"
      done
      PEERS_BIN=/tmp/peers-bin PEERS=gapbs KERNELS=sssp DELTA=1024 THREADS=16 TRIALS=5 VALIDATE=0 OUT=$out/ps_$gr WORK=/tmp/pw timeout 200 bash "$root/bench/peers/run.sh" $w/$gr.src $w/road_$gr.mtx 2>&1 | grep -E "PEERS peer=gapbs kernel=sssp" | tee -a "$out/sssp_threads.txt"
    done
  done
fi
if [[ ${STAGES:-classes} == *classes* ]]; then
  OUT=$out/classes BUILD=/tmp/cb WORK=$w PEERS_BIN=/tmp/peers-bin STAGES="road synth" ROAD_PEERS=gapbs SYNTH_PEERS=gapbs BENCH_EXTRA="--reuse-results" THREADS=16 timeout 480 bash "$root/bench/gpu/classes.sh" 2>&1 | tail -60
  cd $out && tar czf classes.tgz classes && rm -rf classes
fi
note end
