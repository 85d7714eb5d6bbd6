#!/usr/bin/env bash
# Session 27, call J: the masked Gustavson with four products a lane at once and a filter in front of the global tables: the mxm GPU suite, the
# same suite and the BFS suite built to fail on purpose, and triangles through the public mxm at
# Kronecker scale 22 (bench_masked_tc --device gpu), renumbered by degree and not.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c27j; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
export OMP_PROC_BIND=close OMP_PLACES=cores
if [[ ${STAGES:-test fail bench} == *test* ]]; then
  note test_mxm_gpu
  timeout 400 $b/test_mxm_gpu --log_level=test_suite > "$out/test_mxm_gpu.txt" 2>&1
  echo "rc=$? skipped=$(grep -c 'test skipped' "$out/test_mxm_gpu.txt")"; grep -E "error|fail" "$out/test_mxm_gpu.txt" | head -8; tail -1 "$out/test_mxm_gpu.txt"
fi
if [[ ${STAGES:-test fail bench} == *fail* ]]; then
  note "test_mxm_gpu with every product into a column = 5 mod 97 dropped (must fail)"
  timeout 300 $b/tmg_fail --run_test=masked_saxpy_matches_the_host --log_level=test_suite > "$out/tmg_fail.txt" 2>&1
  echo "rc=$? failures: $(grep -c 'error: in' "$out/tmg_fail.txt")"; grep -m2 "error: in" "$out/tmg_fail.txt" | cut -c1-300
  note "test_graph_gpu with every 97th cluster entry a level too deep (must fail)"
  timeout 300 $b/tgg_fail --log_level=test_suite > "$out/tgg_fail.txt" 2>&1
  echo "rc=$? failures: $(grep -c 'error: in' "$out/tgg_fail.txt")"; grep -m2 "error: in" "$out/tgg_fail.txt" | cut -c1-300
fi
if [[ ${STAGES:-test fail bench} == *bench* ]]; then
  note "bench_masked_tc --device gpu --scale ${SCALE:-22}"
  timeout 500 $b/bench_masked_tc --device gpu --scale ${SCALE:-22} --runs ${RUNS:-3} ${BENCH_EXTRA:---relabel --no-unmasked} 2>&1 | tee "$out/bench_masked_tc.txt"
fi
note end
