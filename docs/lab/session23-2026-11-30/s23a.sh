#!/usr/bin/env bash
# Session 23, call A (run twice: A1 with every suite below, A2 after the new test was reworked with only test_out_of_core_gpu and the triangle count): out of core on the context's stream and pool, cuda::stream without scratch
# (issue 39 item 1). The suites over those paths (minimal build, skips counted); the new test with
# the side streams not forked (must fail); bench_out_of_core_gpu n = 16384 fp32 at 8x (R-Kleene) and 2x (blocked Floyd-Warshall) and
# bench_apsp_gpu (R-Kleene 8192, 16384), previous and new alternating.
set -u
export OUT
root=$PWD
L=/tmp/a; mkdir -p $L
t0=$(date +%s)
el() { echo "== $* ($(( $(date +%s) - t0 )) s)"; }
finish() { tar -czf "$OUT/a.tgz" -C /tmp a; el total; }
trap finish EXIT
C=$root/build-lab/c23a
for d in $C/debs/*.deb; do dpkg -x "$d" /; done; ldconfig
X=/tmp/bin; mkdir -p $X
for f in $C/*.xz; do b=$(basename $f .xz); xz -dc $f > $X/$b & done; wait; chmod +x $X/*
el setup
nvidia-smi --query-gpu=name,memory.total,clocks.sm --format=csv,noheader
timeout 120 $X/test_out_of_core_gpu_fop --run_test=small/runs_after_the_context_stream_from_its_pool --log_level=message > $L/fop.txt 2>&1; echo "fop rc=$? (must fail)"; grep -a "error" $L/fop.txt | head -6 | cut -c1-300
for t in test_out_of_core_gpu; do
  [ -x $X/$t ] || { echo "$t: not carried"; continue; }
  timeout 300 $X/$t --log_level=message > $L/$t.txt 2>&1; echo "$t rc=$? skipped=$(grep -a -c 'test skipped' $L/$t.txt)"; grep -a "\*\*\*" $L/$t.txt | tail -1; grep -a -E "error" $L/$t.txt | head -4 | cut -c1-300
done
el tests
timeout 240 $X/bmtc --device gpu --scale 22 --runs 3 --relabel --relabel-decreasing --no-unmasked > $L/masked_tc.txt 2>&1; echo "bmtc rc=$?"
grep -a "^|" $L/masked_tc.txt | cut -c1-200
el done
