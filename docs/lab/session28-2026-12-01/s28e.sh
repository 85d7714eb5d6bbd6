#!/usr/bin/env bash
# Session 28, call E: the GPU suites after apply and select became one body each (issue 39 item 6)
# and test_pagerank's GPU case; a fail-on-purpose build of test_operations_gpu (the device apply
# ignoring its mask: must fail); then CPU PageRank of the final code (the over-relaxation's
# give-up rule changed after call B) beside gapbs pr, every class.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c28e; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; w=/tmp/cw; mkdir -p $b $w /tmp/peers-bin/gapbs
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); case $n in gapbs_*) xz -dc "$f" > /tmp/peers-bin/gapbs/${n#gapbs_}; chmod +x /tmp/peers-bin/gapbs/${n#gapbs_};; *) xz -dc "$f" > $b/$n; chmod +x $b/$n;; esac; done
for f in "$lab"/g/*.xz; do n=$(basename "$f" .xz); xz -T4 -dc "$f" > $w/$n & done; wait
export OMP_PROC_BIND=close OMP_PLACES=cores
nvidia-smi --query-gpu=name --format=csv,noheader
for t in test_operations_gpu test_capture_gpu test_dispatch_gpu test_graph_kernels_gpu test_pagerank; do
  note $t; timeout 300 $b/$t --log_level=test_suite > "$out/$t.txt" 2>&1
  echo "rc=$? skipped=$(grep -c 'test skipped\|skipped because' "$out/$t.txt")"; grep -E "error|fail" "$out/$t.txt" | head -5; tail -1 "$out/$t.txt"
done
note "fail on purpose: the device apply ignores its mask"
timeout 300 $b/top_fail > "$out/top_fail.txt" 2>&1; echo "rc=$? failures: $(grep -c 'error: in' "$out/top_fail.txt")"; grep -m3 "error: in" "$out/top_fail.txt"
echo 0 > $w/zero.src
gap() { PEERS_BIN=/tmp/peers-bin PEERS=gapbs KERNELS=pr THREADS=16 TRIALS=9 VALIDATE=0 OUT=$out/p_$1 WORK=/tmp/pw timeout 300 bash "$root/bench/peers/run.sh" $w/zero.src "$2" 2>&1 | grep -E "PEERS peer=gapbs kernel=pr" | sed 's/ top=.*//' | tee -a "$out/pr.txt"; }
km() { local name=$1; shift; timeout 300 $b/bench_graph_kernels "$@" --device cpu --kernels pagerank --threads 16 --reuse-results 2>&1 | grep -E "^pagerank|error|differ" | awk -v p="$name" '{ print p " | " $0 }' | tee -a "$out/pr.txt"; }
for rep in 1 2; do
  for gr in NY NE; do note "$gr"; km $gr --graph $w/road_$gr.mtx --runs 9; gap road_$gr $w/road_$gr.mtx; done
done
for cls in kron urand; do
  flag=(); [[ $cls == urand ]] && flag=(--uniform)
  note "$cls 22"
  km $cls --scale 22 "${flag[@]}" --runs 5 --write-sg $w/$cls
  gap $cls $w/$cls.sg
  km $cls --scale 22 "${flag[@]}" --runs 5
  gap $cls $w/$cls.sg
done
note end
