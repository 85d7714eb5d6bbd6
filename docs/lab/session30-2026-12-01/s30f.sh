#!/usr/bin/env bash
# Session 30, calls F and G: the CPU masked dot products (F: the threads' position arrays made by the
# main thread before
# the parallel region; G: allocated there, filled by each thread), Kronecker 22, 16 threads,
# automatic, as generated and renumbered.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c30f; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
export OMP_PROC_BIND=close OMP_PLACES=cores
note "cpu head"
timeout 150 $b/bench_masked_tc --device cpu --scale 22 --threads 16 --runs 1 --no-unmasked --rows auto --relabel 2>&1 | tee "$out/cpu_head.txt" | tail -4
note end
