#!/usr/bin/env bash
# Session 32, call A (issue 39, item 6: masks reach the products into a dense C on the device).
#  1. test_mxm_gpu (sampled_gemm_computes_the_masks_tiles, masked_dense_gemm_matches_the_host, and
#     the masked products' suites), test_dispatch_gpu (dense_outputs_take_csr_masks and the rest),
#     test_capture_gpu (the sampled GEMM and a CSR mask made dense, captured), test_operations_gpu;
#     the two new cases again under compute-sanitizer memcheck;
#  2. bench_gemm_gpu --masked 4096 8192 16384 (fp32 min_plus under dense masks: sampled against
#     whole), and bench_gemm_gpu 8192 (the headline GEMM) before and after: the parent commit's
#     bench_gemm_gpu built here (head.tar.xz: git archive of the parent; 16 cores, beside the
#     tests), the two run in turn, twice;
#  3. bench_masked_dense --device gpu --dense-c: the masked products into a dense C against the
#     whole product and the masked write-back;
#  4. failed on purpose: test_mxm_gpu_broken (tile_is_live reads the next tile's byte) and
#     test_dispatch_gpu_broken (a CSR mask's flags skip each row's last entry) must fail.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c32a; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"
note before-build
mkdir -p /tmp/head && tar -xJf "$lab/head.tar.xz" -C /tmp/head
(cd /tmp/head && cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DKLEENE_INSTANCES=minimal \
   -DKLEENE_TESTS=OFF -DKLEENE_NATIVE=OFF -DCMAKE_CUDA_ARCHITECTURES=90-real > "$out/before_cfg.txt" 2>&1 &&
 nice ninja -C b -j16 bench_gemm_gpu > "$out/before_build.txt" 2>&1; echo "rc=$?" >> "$out/before_build.txt") &
bpid=$!
for t in test_mxm_gpu test_dispatch_gpu test_capture_gpu test_operations_gpu; do
  note $t
  (cd /tmp && timeout 200 $b/$t > "$out/$t.txt" 2>&1; echo "rc=$?" >> "$out/$t.txt")
  grep -E "error|failure|No errors|rc=" "$out/$t.txt" | tail -4
done
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$cs" ]; then
  note memcheck
  (cd /tmp && timeout 150 $cs --tool memcheck $b/test_mxm_gpu --run_test=sampled_gemm_computes_the_masks_tiles,masked_dense_gemm_matches_the_host > "$out/memcheck_mxm.txt" 2>&1; echo "rc=$?" >> "$out/memcheck_mxm.txt")
  tail -3 "$out/memcheck_mxm.txt"
  (cd /tmp && timeout 150 $cs --tool memcheck $b/test_dispatch_gpu --run_test=dense_outputs_take_csr_masks > "$out/memcheck_dispatch.txt" 2>&1; echo "rc=$?" >> "$out/memcheck_dispatch.txt")
  tail -3 "$out/memcheck_dispatch.txt"
fi
note waiting for the before-build
wait $bpid; tail -2 "$out/before_build.txt"
note bench_gemm_gpu --masked
timeout 200 $b/bench_gemm_gpu --masked 4096 8192 16384 2>&1 | tee "$out/bench_gemm_masked.txt"
for r in 1 2; do
  note "bench_gemm_gpu 8192, before ($r)"
  timeout 100 /tmp/head/b/bench/gpu/bench_gemm_gpu 8192 2>&1 | tee -a "$out/bench_gemm_8192_before.txt" | grep -E "RESULT|FAIL"
  note "bench_gemm_gpu 8192, after ($r)"
  timeout 100 $b/bench_gemm_gpu 8192 2>&1 | tee -a "$out/bench_gemm_8192_after.txt" | grep -E "RESULT|FAIL"
done
d=$b/bench_masked_dense
run() { note "bench_masked_dense $*"; timeout 60 $d --device gpu --dense-c "$@" 2>&1 | tee -a "$out/bench_masked_dense_c.txt"; }
run --m 16384 --n 16384 --k 64 --mask-deg 32,256,2048 --runs 5
run --m 65536 --k 65536 --n 256 --a-deg 16 --mask-deg 2,16,256 --runs 5
run --m 16384 --k 16384 --n 16384 --b-deg 16 --mask-deg 16,256,2048 --runs 3
for t in test_mxm_gpu_broken test_dispatch_gpu_broken; do
  note "$t (must fail)"
  run_test=sampled_gemm_computes_the_masks_tiles,masked_dense_gemm_matches_the_host
  [ $t = test_dispatch_gpu_broken ] && run_test=dense_outputs_take_csr_masks
  (cd /tmp && timeout 100 $b/$t --run_test=$run_test > "$out/$t.txt" 2>&1; echo "rc=$?" >> "$out/$t.txt")
  grep -cE "error:" "$out/$t.txt"; tail -2 "$out/$t.txt"
done
note end
