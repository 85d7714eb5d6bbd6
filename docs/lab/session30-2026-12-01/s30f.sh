#!/usr/bin/env bash
# Session 30, call F: the CPU masked dot products of fd81003 (the threads' position arrays made
# and filled by the main thread before the parallel region), Kronecker 22, 16 threads, automatic,
# as generated and renumbered. (A call G with the head's build, 868e773, each thread filling its
# own array, was refused: the session's device time was spent.)
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
