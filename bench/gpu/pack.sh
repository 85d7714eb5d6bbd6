#!/usr/bin/env bash
# Packs GPU binaries built on the build machine (configure with -DKLEENE_NATIVE=OFF so the host
# code runs on any x86-64 CPU) for the device tool: stripped copies of the GPU test suites, the
# GPU benchmarks, the CPU-vs-GPU suites and the kleene tool in build-dev/, tarred as
# build-pack/NAME.tar.xz. On the GPU host (carry [".deps/runtime", "build-pack"]):
#   for d in .deps/runtime/*.deb; do dpkg -x $d /; done; ldconfig
#   tar -xJf build-pack/NAME.tar.xz; BUILD=$PWD/build-dev STAGES="test bench" bench/gpu/run.sh
#
#   bench/gpu/pack.sh build-gpu-sparse gpu     # -> build-pack/gpu.tar.xz
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?build directory}" && pwd)
name=${2:-gpu}
dev=$root/build-dev
rm -rf "$dev"
mkdir -p "$dev/tests" "$dev/bench/gpu" "$dev/tools" "$root/build-pack"
copy() {  # file destination-dir
    [[ -x $1 ]] || { echo "missing: $1" >&2; return 0; }
    cp "$1" "$2/" && strip "$2/$(basename "$1")"
}
for f in "$build"/tests/test_*gpu "$build"/tests/test_bfs_sssp "$build"/tests/test_apsp; do copy "$f" "$dev/tests"; done
for f in "$build"/bench/gpu/bench_*; do [[ -f $f && ! $f == *.* ]] && copy "$f" "$dev/bench/gpu"; done
for f in bench_matrix_market bench_bfs_cpu_vs_graphblas; do copy "$build/bench/$f" "$dev/bench"; done
copy "$build/tools/kleene" "$dev/tools"
tar -C "$root" -cJf "$root/build-pack/$name.tar.xz" build-dev
du -h "$root/build-pack/$name.tar.xz"
