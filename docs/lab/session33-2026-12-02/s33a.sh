#!/usr/bin/env bash
# Session 33, call A (issue 39): the head's GPU suites (the review mend of session 32 was never run
# on a device; the new cases: the sampled SpMM and spgemm_dense, a context of another device
# refused), memcheck of the new cases, the broken builds (must fail), bench_gemm_gpu --masked
# (the sampled GEMM, SpMM and spgemm_dense under dense masks against the whole products),
# bench_masked_dense --dense-c (the masked products into a dense C against the whole side, now
# sampled), and before / after on the same device: the parent commit's bench_graph_kernels and
# bench_sparse_gpu built here from head.tar.xz (git archive), run in turn with the head's on
# Kronecker 22 (the six kernels) and the road network NE (BFS, SSSP), and bench_sparse_gpu 22.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c33a; out=${OUT:-/tmp/out}; mkdir -p "$out"; logs=/tmp/logs; mkdir -p $logs
note() { echo "== $(date +%T) $*"; }
finish() { tar -C /tmp -cJf "$out/logs_a.tar.xz" logs; note end; }
trap finish EXIT
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee $logs/gpu.txt
note before-build
mkdir -p /tmp/head && tar -xJf "$lab/head.tar.xz" -C /tmp/head
(cd /tmp/head && cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DKLEENE_INSTANCES=minimal \
   -DKLEENE_TESTS=OFF -DKLEENE_NATIVE=OFF -DCMAKE_CUDA_ARCHITECTURES=90-real > $logs/before_cfg.txt 2>&1 &&
 nice ninja -C b -j14 bench_graph_kernels bench_sparse_gpu > $logs/before_build.txt 2>&1; echo "rc=$?" >> $logs/before_build.txt) &
bpid=$!
(python3 "$lab/to_mtx.py" "$lab/NE.gr.xz" /tmp/NE.mtx > $logs/ne.txt 2>&1) &
for t in test_mxm_gpu test_capture_gpu test_dispatch_gpu test_sparse_gpu test_operations_gpu test_graph_kernels_gpu test_graph_object_gpu; do
  note $t
  (cd /tmp && timeout 150 $b/$t > "$logs/$t.txt" 2>&1; echo "rc=$?" >> "$logs/$t.txt")
  grep -E "error|failure|No errors|rc=" "$logs/$t.txt" | tail -3
done
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$cs" ]; then
  note memcheck
  (cd /tmp && timeout 120 $cs --tool memcheck $b/test_mxm_gpu --run_test=sampled_spmm_and_spgemm_dense_compute_the_masks_entries,masked_spmm_and_spgemm_dense_match_the_host > $logs/memcheck_mxm.txt 2>&1; echo "rc=$?" >> $logs/memcheck_mxm.txt)
  tail -3 $logs/memcheck_mxm.txt
fi
if [ -x $b/test_mxm_gpu_broken ]; then
  note "test_mxm_gpu_broken (must fail)"
  (cd /tmp && timeout 100 $b/test_mxm_gpu_broken --run_test=sampled_spmm_and_spgemm_dense_compute_the_masks_entries,masked_spmm_and_spgemm_dense_match_the_host > $logs/test_mxm_gpu_broken.txt 2>&1; echo "rc=$?" >> $logs/test_mxm_gpu_broken.txt)
  grep -cE "error:" $logs/test_mxm_gpu_broken.txt; tail -2 $logs/test_mxm_gpu_broken.txt
fi
note bench_gemm_gpu --masked
timeout 150 $b/bench_gemm_gpu --masked 8192 16384 2>&1 | tee $logs/bench_gemm_masked.txt | grep -E "RESULT|FAIL"
d=$b/bench_masked_dense
run() { note "bench_masked_dense $*"; timeout 60 $d --device gpu --dense-c "$@" 2>&1 | tee -a $logs/bench_masked_dense_c.txt; }
run --m 16384 --n 16384 --k 64 --mask-deg 32,256,2048 --runs 5
run --m 65536 --k 65536 --n 256 --a-deg 16 --mask-deg 2,16,256 --runs 5
note waiting for the before-build
wait $bpid; tail -2 $logs/before_build.txt
wait
before=/tmp/head/b/bench
gk() { # label binary args...
  local l=$1 bin=$2; shift 2
  note "$l $*"
  timeout 150 $bin "$@" 2>&1 | grep -E "graph:|^bfs|^sssp|^cc|^pagerank|^tc|^bc|error|differ|wrong" | tee -a "$logs/graph_$l.txt"
}
for r in 1 2; do
  gk before $before/bench_graph_kernels --scale 22 --device gpu --kernels bfs,sssp,cc,pagerank,tc,bc --sources 16 --runs 3 --reuse-results
  gk after $b/bench_graph_kernels --scale 22 --device gpu --kernels bfs,sssp,cc,pagerank,tc,bc --sources 16 --runs 3 --reuse-results
done
if [ -s /tmp/NE.mtx ]; then
  gk before $before/bench_graph_kernels --graph /tmp/NE.mtx --device gpu --kernels bfs,sssp --sources 16 --runs 3 --reuse-results --write-sources /tmp/NE.src
  gk after $b/bench_graph_kernels --graph /tmp/NE.mtx --device gpu --kernels bfs,sssp --sources-file /tmp/NE.src --sources 16 --runs 3 --reuse-results
fi
for v in before after; do
  bin=$b/bench_sparse_gpu; [ $v = before ] && bin=$before/gpu/bench_sparse_gpu
  note "bench_sparse_gpu 22 $v"
  KLEENE_SPGEMM_SCALES="" timeout 120 $bin 22 2>&1 | grep -E "RESULT" | tee -a "$logs/sparse_$v.txt"
done
