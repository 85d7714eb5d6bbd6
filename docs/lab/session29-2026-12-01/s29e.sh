#!/usr/bin/env bash
# Session 29, call E: triangles through the public mxm (C<L> = L plus_pair U', then reduce), the
# path this session's one-body mxm changed, before (bench_masked_tc built 2026-12-01 11:42 from
# the front end before this session: the host and device mxm twins) and after (this session's
# head), alternating: GPU at Kronecker scale 22 renumbered by degree (the issue's benchmark), CPU
# at scale 20 on 16 threads (the host masked dot products, beside SuiteSparse:GraphBLAS).
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c29e; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
export OMP_PROC_BIND=close OMP_PLACES=cores
for round in 1 2; do
  for v in before after; do
    note "$v, round $round: --device gpu --scale 22 --relabel"
    timeout 240 $b/bench_masked_tc_$v --device gpu --scale 22 --runs 3 --relabel --no-unmasked 2>&1 | tee -a "$out/gpu_$v.txt" | grep -vE "^#" | tail -8
  done
done
for v in before after; do
  note "$v: --device cpu --scale 20 --threads 16"
  timeout 240 $b/bench_masked_tc_$v --device cpu --scale 20 --threads 16 --runs 3 --no-unmasked 2>&1 | tee -a "$out/cpu_$v.txt" | grep -vE "^#" | tail -8
done
note end
