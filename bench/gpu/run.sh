#!/usr/bin/env bash
# The one script for runs on the GPU host: unpack the Debian libraries the build needs, configure
# and build the GPU targets, run `ctest -L gpu`, optionally the compute-sanitizer passes, then the
# GPU benchmarks and the PyTorch baseline, and print a short table last.
#
#   bench/gpu/fetch_debs.sh                # once, on the build machine: the .deb files to carry
#   bench/gpu/run.sh                       # all stages (device tool: carry [".deps"])
#   STAGES="build test" bench/gpu/run.sh   # a subset: deps build test sanitize bench (cpusan:
#                                          # the CPU suite under ASan + UBSan, and python: the
#                                          # Python package and its gpu tests, alone: STAGES="deps python"; gapcpu:
#                                          # bench_gap_cpu alone; neither by default)
#   SIZES="1024 8192" bench/gpu/run.sh     # benchmark sizes
#   CMAKE_EXTRA="-DKLEENE_INSTANCES=minimal" STAGES="deps python" bench/gpu/run.sh
#                                          # further configure arguments (a quicker build)
#
# Logs go to $OUT (the device tool's output folder) or /tmp/kleene-gpu. Later GPU issues add their
# test binaries (tests/gpu/test_*.cpp|.cu are picked up by name) and benchmarks (BENCHES) here.

set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/kleene-gpu}
build=${BUILD:-/tmp/build-gpu}
stages=${STAGES:-"deps build test sanitize bench"}
sizes=${SIZES:-"1024 2048 4096 8192 16384"}
torch_sizes=${TORCH_SIZES:-$sizes}
jobs=${JOBS:-$(nproc)}
benches=(bench_gemm_gpu bench_apsp_gpu bench_sparse_gpu bench_out_of_core_gpu bench_apsp_sparse bench_tc_gpu bench_jit bench_streams bench_result_copy)
# Which benchmark groups the bench stage runs: gemm (GEMM + PyTorch), apsp (APSP, closure, SciPy
# Floyd-Warshall), io (Matrix Market throughput beside scipy.io on the host's cores), sparse (BFS
# GTEPS on Kronecker graphs, SpMV / SpMM / SpGEMM beside cuSPARSE; SPARSE_SCALES, default 20 21 22),
# ooc (out-of-core APSP at 2x, 4x, 8x the device cap against in core; OOC_SIZES, default 16384
# 32768; OOC_LARGE="60G 150000" adds the large run), graph (the six GAP kernels on CPU and GPU,
# bench_graph_kernels, and the CPU against the GAP-method peers, bench_gap_cpu; GRAPH_SCALE,
# default 22; GRAPH_SCALES, the scales of bench_graph_kernels, default GRAPH_SCALE), johnson
# (Johnson vs R-Kleene on sparse graphs, average degree 4..64; JOHNSON_SIZES, default 2048 4096
# 8192), jit (the JIT's kernels against the instances: compile / cache costs, SpMV on Kronecker
# scale JIT_SCALE (default 20), GEMM n = JIT_GEMM_N (default 8192); bench_jit), streams (two
# contexts on two streams from two threads against one; bench_streams), results (a result copied
# to the host: the page-locked floor, the driver's pageable path, the context's staging;
# bench_result_copy, RESULT_COPY_ARGS).
bench_set=${BENCH_SET:-"gemm apsp io sparse ooc"}
in_set() { [[ " $bench_set " == *" $1 "* ]]; }
mkdir -p "$out"
status=0

has() { [[ " $stages " == *" $1 "* ]]; }
note() { printf '\n== %s\n' "$*"; }

gpu_tests=()
for f in "$root"/tests/gpu/test_*.cpp "$root"/tests/gpu/test_*.cu; do
    [[ -e $f ]] && gpu_tests+=("$(basename "${f%.*}")")
done
# GPU_TESTS="test_a_gpu test_b_gpu": build (and, with TESTS unset, run) only these suites.
if [[ -n ${GPU_TESTS:-} ]]; then
    read -r -a gpu_tests <<<"$GPU_TESTS"
    [[ -z ${TESTS:-} ]] && TESTS="^($(IFS='|'; echo "${gpu_tests[*]}"))\$"
fi

if has deps; then
    # Boost.Test, fmt, CLI11 and GraphBLAS may be missing on the GPU host: unpack the .deb files
    # carried in .deps/debs (git-ignored) into / for each library whose probe file is absent.
    unpack() {  # probe deb...
        local probe=$1; shift
        [[ -e $probe ]] && return
        for d in "$@"; do
            note "unpacking $(basename "$d")"
            dpkg -x "$d" / || status=1
        done
    }
    debs=$root/.deps/debs
    unpack /usr/lib/x86_64-linux-gnu/cmake/SuiteSparse/FindGraphBLAS.cmake "$debs"/libgraphblas*.deb
    unpack /usr/lib/x86_64-linux-gnu/libboost_unit_test_framework.so "$debs"/libboost*.deb
    unpack /usr/include/fmt/format.h "$debs"/libfmt*.deb
    unpack /usr/include/CLI/CLI.hpp "$debs"/libcli11*.deb
    ldconfig
fi

configure() {
    export PATH=/usr/local/cuda/bin:$PATH
    # A host Boost without Boost.Test (Ubuntu's 1.83 headers) must not shadow the unpacked 1.74.
    boost_arg=()
    cfg=/usr/lib/x86_64-linux-gnu/cmake
    tests_cfg=$(ls -d "$cfg"/boost_unit_test_framework-* 2>/dev/null)
    if [[ $tests_cfg == "$cfg/boost_unit_test_framework-1.74.0" ]]; then
        boost_arg=(-DBoost_DIR="$cfg/Boost-1.74.0")
    fi
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKLEENE_NATIVE=ON \
        -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-Xptxas=-v "${boost_arg[@]}" \
        ${CMAKE_EXTRA:-} >"$out/configure.log" 2>&1 || {
        tail -30 "$out/configure.log"; exit 1; }
}

if has build; then
    note "configure and build: kleene_cuda ${gpu_tests[*]} ${benches[*]}"
    configure
    # bench_bfs_cpu_vs_graphblas exists only when SuiteSparse:GraphBLAS was found.
    extra=()
    ninja -C "$build" -t targets all 2>/dev/null | grep -q '^bench_bfs_cpu_vs_graphblas:' &&
        extra+=(bench_bfs_cpu_vs_graphblas)
    # TESTS_ONLY=1: the library and the GPU suites only (a run that checks, measures nothing).
    bench_targets=("${benches[@]}" bench_matrix_market "${extra[@]}" bench_graph_kernels bench_gap_cpu)
    [[ ${TESTS_ONLY:-0} == 1 ]] && bench_targets=()
    cmake --build "$build" --parallel "$jobs" --target kleene_cuda "${gpu_tests[@]}" test_jit "${bench_targets[@]}" \
        >"$out/build.log" 2>&1 || { grep -E "error|Error" -A3 "$out/build.log" | head -60; exit 1; }
    grep -E "spill" "$out/build.log" | grep -v " 0 bytes spill stores, 0 bytes spill loads" | head -5
fi

if has test; then
    note "ctest -L gpu"
    if [[ -f $build/CTestTestfile.cmake ]]; then
        # The distributed GPU tests need the MPI binaries that bench/gpu/run_multi.sh builds
        # (this script builds only the one-process targets): they run there.
        (cd "$build" && ctest -L gpu -E "distributed" -R "${TESTS:-.}" --output-on-failure --timeout 900) >"$out/ctest.log" 2>&1 || status=1
        # The JIT's compile-and-cache suite (label cpu: CI runs it without a device).
        (cd "$build" && ctest -R '^test_jit$' --output-on-failure) >>"$out/ctest.log" 2>&1 || status=1
    else
        # Binaries built elsewhere and carried (BUILD=dir holding tests/ and bench/): no ctest
        # files that fit this machine's paths, so each suite runs directly.
        for t in "${gpu_tests[@]}"; do
            if "$build/tests/$t" --log_level=message >"$out/test_$t.log" 2>&1; then
                # A minimal build's builtin suites pass by skipping every case: say so.
                skipped=$(grep -a -c "test skipped" "$out/test_$t.log")
                skip_note=""
                [ "$skipped" -gt 0 ] && skip_note=" ($skipped cases SKIPPED)"
                echo "PASS $t: $(tail -1 "$out/test_$t.log")$skip_note"
            else
                status=1
                echo "FAIL $t"
                tail -20 "$out/test_$t.log"
            fi
        done >"$out/ctest.log"
    fi
    tail -15 "$out/ctest.log"
fi

if has cpusan; then
    # The CPU suite under ASan + UBSan (scripts/sanitize) on this host's cores: the build machine
    # has two. Not in the default stages.
    note "CPU suite under ASan + UBSan"
    cfg=/usr/lib/x86_64-linux-gnu/cmake
    extra=""
    [[ -d $cfg/boost_unit_test_framework-1.74.0 ]] && extra="-DBoost_DIR=$cfg/Boost-1.74.0"
    KLEENE_SKIP_SETUP=1 KLEENE_BUILD=/tmp/build-asan KLEENE_CMAKE_ARGS=$extra \
        "$root/scripts/sanitize" address >"$out/cpusan.log" 2>&1 || status=1
    grep -E "tests passed|tests failed|Failed|ERROR: AddressSanitizer|runtime error" "$out/cpusan.log" | head -20
fi

if has python; then
    # The Python package against this host's python3 (the image's, with numpy, scipy, pybind11,
    # CuPy and PyTorch) and its tests: `ctest -R python` (python_gpu runs the gpu-marked cases:
    # device products, DLPack, __cuda_array_interface__). When that interpreter has no Python.h,
    # the headers of the same minor version carried in .deps/python-include are used.
    note "Python package: build and ctest -R python"
    # Without the build stage (STAGES="deps python"), only the package and what it needs is built.
    [[ -f $build/CMakeCache.txt ]] || configure
    py_args=(-DKLEENE_PYTHON=ON -DPython3_EXECUTABLE="$(command -v python3)"
             -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)")
    py_inc=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
    py_ver=$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
    if [[ ! -f $py_inc/Python.h && -f $root/.deps/python-include/python$py_ver/Python.h ]]; then
        note "no Python.h in $py_inc: using the carried python$py_ver headers"
        py_args+=(-DPython3_INCLUDE_DIR="$root/.deps/python-include/python$py_ver")
    fi
    cmake "$build" "${py_args[@]}" >"$out/configure_python.log" 2>&1 || {
        tail -30 "$out/configure_python.log"; exit 1; }
    grep "kleene: Python" "$out/configure_python.log"
    cmake --build "$build" --parallel "$jobs" --target kleene_python >"$out/build_python.log" 2>&1 || {
        grep -E "error|Error" -A3 "$out/build_python.log" | head -40; exit 1; }
    (cd "$build" && ctest -R python --output-on-failure --timeout 900) >"$out/ctest_python.log" 2>&1 || status=1
    grep -E "passed|failed|skipped|SKIP|Error|tests passed" "$out/ctest_python.log" | tail -15
fi

if has gapcpu; then
    # The CPU kernels against the GAP-method peers alone (not by default): only bench_gap_cpu is
    # built. STAGES="deps gapcpu" GAP_KERNELS=cc,pr GAP_RUNS=11 GRAPH_SCALE=22 bench/gpu/run.sh
    gs=${GRAPH_SCALE:-22}
    [[ -f $build/CMakeCache.txt ]] || configure
    cmake --build "$build" --parallel "$jobs" --target bench_gap_cpu >"$out/build_gap.log" 2>&1 || {
        grep -E "error|Error" -A3 "$out/build_gap.log" | head -40; exit 1; }
    note "CPU against the GAP-method peers, scale $gs, $(nproc) threads"
    OMP_PROC_BIND=close OMP_PLACES=cores "$build/bench/bench_gap_cpu" --scale "$gs" \
        --threads "$(nproc)" --kernels "${GAP_KERNELS:-bfs,sssp,cc,pr,tc,bc}" \
        --runs "${GAP_RUNS:-5}" 2>&1 | tee "$out/bench_gap_cpu.txt" | tail -"${GAP_TAIL:-16}" || status=1
fi

if has sanitize; then
    # The small suites only: sanitized kernels run orders of magnitude slower. API errors are not
    # reported: the suites provoke an out-of-memory on purpose, and kleene turns every failed call
    # into an exception that fails its test anyway.
    # SANITIZE_TOOLS / SANITIZE_TESTS narrow the runs (default: both tools, every GPU suite).
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck}; do
        for t in ${SANITIZE_TESTS:-${gpu_tests[@]}}; do
            note "compute-sanitizer --tool $tool $t --run_test=small"
            compute-sanitizer --tool "$tool" --report-api-errors no --error-exitcode 99 "$build/tests/$t" --run_test=small \
                >"$out/sanitize_${tool}_$t.log" 2>&1 || status=1
            tail -4 "$out/sanitize_${tool}_$t.log"
        done
    done
fi

if has bench && in_set io; then
    note "Matrix Market throughput: kleene (1 thread, all threads) and scipy.io (fast_matrix_market)"
    "$build/bench/bench_matrix_market" ${IO_ENTRIES:-16000000} ${IO_ROWS:-4000000} /tmp keep 2>&1 |
        tee "$out/bench_io.txt" || status=1
    PYTHONUNBUFFERED=1 python3 "$root/bench/io_scipy.py" /tmp/kleene_bench.mtx 1 "$(nproc)" 2>&1 |
        tee "$out/io_scipy.txt" || status=1
    rm -f /tmp/kleene_bench.mtx
fi

if has bench && in_set apsp; then
    note "APSP and closure: ${APSP_SIZES:-512 1024 2048 4096 8192 16384}"
    "$build/bench/gpu/bench_apsp_gpu" ${APSP_SIZES:-512 1024 2048 4096 8192 16384} 2>&1 |
        tee "$out/bench_apsp_gpu.txt" || status=1
fi

if has bench && in_set jit; then
    note "JIT against the instances: SpMV scale ${JIT_SCALE:-20}, GEMM n ${JIT_GEMM_N:-8192}"
    "$build/bench/gpu/bench_jit" --scale ${JIT_SCALE:-20} --gemm-n ${JIT_GEMM_N:-8192} --runs ${JIT_RUNS:-10} 2>&1 |
        tee "$out/bench_jit.txt" || status=1
fi

if has bench && in_set streams; then
    note "two contexts on two streams against one"
    "$build/bench/gpu/bench_streams" 2>&1 | tee "$out/bench_streams.txt" || status=1
fi

if has bench && in_set results; then
    note "results to the host: page-locked floor, pageable, staged (bench_result_copy)"
    "$build/bench/gpu/bench_result_copy" ${RESULT_COPY_ARGS:-} 2>&1 | tee "$out/bench_result_copy.txt" || status=1
fi

if has bench && in_set sparse; then
    note "sparse: BFS GTEPS and SpMV / SpMM / SpGEMM beside cuSPARSE, scales ${SPARSE_SCALES:-20 21 22}"
    "$build/bench/gpu/bench_sparse_gpu" ${SPARSE_SCALES:-20 21 22} 2>&1 | tee "$out/bench_sparse_gpu.txt" || status=1
    # The CPU side of the same comparison, on the host's cores: kleene::bfs against a LAGraph-style
    # SuiteSparse:GraphBLAS BFS (same generator, same scales).
    scales=${SPARSE_SCALES:-20 21 22}
    note "CPU BFS: kleene vs SuiteSparse:GraphBLAS, scales $scales"
    "$build/bench/bench_bfs_cpu_vs_graphblas" --scales "${scales// /,}" --sources ${CPU_BFS_SOURCES:-64} 2>&1 |
        tee "$out/bench_bfs_cpu.txt" || status=1
fi

if has bench && in_set graph; then
    gs=${GRAPH_SCALE:-22}
    note "GPU triangle counting choices (cuda::tc_tuning), scale $gs"
    "$build/bench/gpu/bench_tc_gpu" --scale "$gs" --runs 5 2>&1 | tee "$out/bench_tc_gpu.txt" || status=1
    # GRAPH_SCALES="20 21 22": the six kernels at each (issue 20 reports 20-22 on this host).
    for s in ${GRAPH_SCALES:-$gs}; do
        note "graph kernels at Kronecker scale $s: CPU ($(nproc) threads) and GPU"
        "$build/bench/bench_graph_kernels" --scale "$s" --runs 3 --sources 16 --device both --explain 2>&1 |
            tee -a "$out/bench_graph_kernels.txt" || status=1
    done
    note "CPU against the GAP-method peers, scale $gs, $(nproc) threads"
    "$build/bench/bench_gap_cpu" --scale "$gs" --threads "$(nproc)" 2>&1 |
        tee "$out/bench_gap_cpu.txt" || status=1
fi

if has bench && in_set johnson; then
    note "Johnson vs R-Kleene on sparse graphs: n = ${JOHNSON_SIZES:-2048 4096 8192}"
    "$build/bench/gpu/bench_apsp_sparse" ${JOHNSON_SIZES:-2048 4096 8192} 2>&1 |
        tee "$out/bench_apsp_sparse.txt" || status=1
fi

if has bench && in_set ooc; then
    note "out-of-core APSP: n = ${OOC_SIZES:-16384 32768}"
    "$build/bench/gpu/bench_out_of_core_gpu" ${OOC_SIZES:-16384 32768} 2>&1 |
        tee "$out/bench_out_of_core_gpu.txt" || status=1
    if [[ -n ${OOC_LARGE:-} ]]; then
        note "out-of-core APSP, large: cap and n = $OOC_LARGE"
        "$build/bench/gpu/bench_out_of_core_gpu" large $OOC_LARGE 2>&1 |
            tee "$out/bench_out_of_core_large.txt" || status=1
    fi
fi

if has bench && in_set gemm; then
    note "benchmarks: n = $sizes"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv \
        >"$out/gpu_state.txt" 2>&1
    "$build/bench/gpu/bench_gemm_gpu" $sizes 2>&1 | tee "$out/bench_gemm_gpu.txt" || status=1
    note "PyTorch chunked min-plus: n = $torch_sizes"
    PYTHONUNBUFFERED=1 python3 "$root/bench/gpu/torch_minplus.py" $torch_sizes 2>&1 |
        tee "$out/torch_minplus.txt" || status=1

    note "summary (T = 10^12 updates/s; % of the GPU.md ceiling; torch: chunked PyTorch min-plus)"
    python3 - "$out/bench_gemm_gpu.txt" "$out/torch_minplus.txt" <<'EOF'
import re, sys
def rows(path, tag):
    for line in open(path):
        if line.startswith(tag):
            yield dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
torch = {}
for r in rows(sys.argv[2], "TORCH"):
    torch[(r["kind"].strip('"').split()[0], r["n"])] = float(r["ms"])
print(f'{"kind":26} {"n":>6} {"ms":>10} {"T/s":>7} {"ceil":>6} {"%":>5} {"torch ms":>10} {"x":>6}')
for r in rows(sys.argv[1], "RESULT"):
    kind = r["kind"].strip('"')
    t = torch.get((kind.split()[0], r["n"]))
    ceil = float(r["ceiling"])
    print(f'{kind:26} {r["n"]:>6} {float(r["ms"]):>10.3f} {float(r["tups"]):>7.2f} '
          f'{(f"{ceil:.1f}" if ceil else "-"):>6} {(r["pct"] if ceil else "-"):>5} '
          f'{(f"{t:.1f}" if t else "-"):>10} {(str(round(t / float(r["ms"]))) if t else "-"):>6}'
          + ("" if r["wrong"] == "0" else f'  WRONG {r["wrong"]}'))
EOF
fi
exit $status
