#!/usr/bin/env bash
# Session 32, call B: call A's test logs did not come back (too many files): the suites again,
# their summaries on stdout and every log in one tar; the dispatch suite's new case under
# memcheck and broken on purpose with the right filter (a template case: name*); and the data
# for the dense-C side of masked_dense_model.hpp: bench_masked_dense --dense-c (and the same
# rows into a CSR C) over more mask sizes, each config's first row repeated (warm-up).
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c32a; out=${OUT:-/tmp/out}; mkdir -p "$out"; logs=/tmp/logs; mkdir -p $logs
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
for t in test_mxm_gpu test_dispatch_gpu test_capture_gpu test_operations_gpu; do
  note $t
  (cd /tmp && timeout 200 $b/$t > "$logs/$t.txt" 2>&1; echo "rc=$?" >> "$logs/$t.txt")
  grep -E "error|failure|No errors|rc=" "$logs/$t.txt" | tail -4
done
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
note memcheck dispatch
(cd /tmp && timeout 150 $cs --tool memcheck $b/test_dispatch_gpu '--run_test=dense_outputs_take_csr_masks*' > "$logs/memcheck_dispatch.txt" 2>&1; echo "rc=$?" >> "$logs/memcheck_dispatch.txt")
tail -3 "$logs/memcheck_dispatch.txt"
note memcheck mxm
(cd /tmp && timeout 150 $cs --tool memcheck $b/test_mxm_gpu --run_test=sampled_gemm_computes_the_masks_tiles,masked_dense_gemm_matches_the_host > "$logs/memcheck_mxm.txt" 2>&1; echo "rc=$?" >> "$logs/memcheck_mxm.txt")
tail -3 "$logs/memcheck_mxm.txt"
note "test_dispatch_gpu_broken (must fail)"
(cd /tmp && timeout 100 $b/test_dispatch_gpu_broken '--run_test=dense_outputs_take_csr_masks*' > "$logs/test_dispatch_gpu_broken.txt" 2>&1; echo "rc=$?" >> "$logs/test_dispatch_gpu_broken.txt")
grep -cE "error:" "$logs/test_dispatch_gpu_broken.txt"; tail -2 "$logs/test_dispatch_gpu_broken.txt"
d=$b/bench_masked_dense
run() { note "bench_masked_dense $*"; timeout 90 $d --device gpu "$@" 2>&1 | tee -a "$logs/bench_masked_dense.txt"; }
for c in --dense-c ""; do
  run $c --m 16384 --n 16384 --k 64 --mask-deg 32,8,32,64,128,256,512,2048 --runs 5
  run $c --m 16384 --n 16384 --k 256 --mask-deg 32,32,128,512,2048 --runs 5
  run $c --m 65536 --k 65536 --n 256 --a-deg 16 --mask-deg 2,1,2,16,64,256 --runs 5
  run $c --m 65536 --k 65536 --n 1024 --a-deg 64 --mask-deg 4,4,64,512 --runs 5
done
tar -C /tmp -cJf "$out/logs_b.tar.xz" logs
note end
