#!/usr/bin/env bash
# Issue 41 on the GPU host: the closure of sparse graphs with the condensation's rows on the GPU
# (tests, the CLI script, bench_closure on the GPU beside the CPU's on all cores), and the
# failure of one rank mid-computation on the NCCL path (several ranks on the host's GPUs, one GPU
# several times over when there is one). Every step has a time limit; logs in $OUT.
#
#   carry [".deps"]: .deps/debs (bench/gpu/fetch_debs.sh) and .deps/mpi (Open MPI, when the host
#   has no mpirun)
#   STAGES="deps build test bench faults" bench/gpu/closure.sh
#   N=1000000 RUNS=3 ONLY=one-edge,dag-b16,... bench/gpu/closure.sh
#   CMAKE_EXTRA="-DKLEENE_INSTANCES=minimal" TARGETS="kleene check_distributed_fw"  (a faster build
#   for the faults stage alone); RANKS="2" on two GPUs
#   PLANT=1: in the test stage, test_apsp_gpu rebuilt against a closure.hpp whose GPU rows lose
#   the cyclic components' self-reach must fail; in the faults stage, check_distributed_fw rebuilt against a floyd_warshall.hpp that
#   aborts the communicators on every failure with no agreement first must fail (bench/gpu/plant.sh)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/kleene-closure}
build=${BUILD:-$root/build-closure}
stages=${STAGES:-"deps build test bench faults"}
jobs=${JOBS:-$(nproc)}
ranks=${RANKS:-"2 4"}
mkdir -p "$out"
has() { [[ " $stages " == *" $1 "* ]]; }
note() { printf '\n== %s (%s)\n' "$*" "$(date +%T)"; }
status=0
export NCCL_NVLS_ENABLE=0 OMPI_MCA_btl_vader_single_copy_mechanism=none

if has deps; then
    for d in "$root"/.deps/debs/*.deb; do dpkg -x "$d" / || status=1; done
    ldconfig
    if ! command -v mpirun >/dev/null && [[ -d $root/.deps/mpi ]]; then
        mkdir -p /opt/kleene-mpi
        for d in "$root"/.deps/mpi/*.deb; do dpkg -x "$d" /opt/kleene-mpi || status=1; done
        note "Open MPI unpacked into /opt/kleene-mpi"
    fi
fi
mpi_cmake=()
if ! command -v mpirun >/dev/null && [[ -d /opt/kleene-mpi/usr ]]; then
    p=/opt/kleene-mpi/usr
    export OPAL_PREFIX=$p PATH=$p/bin:$PATH
    export LD_LIBRARY_PATH=$p/lib/x86_64-linux-gnu:$p/lib/x86_64-linux-gnu/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    ln -sf "$p/bin/orterun" "$p/bin/mpirun"
    mpi_cmake=(-DMPIEXEC_EXECUTABLE="$p/bin/orterun" -DMPI_CXX_COMPILER="$p/bin/mpicxx.openmpi")
fi

if has build; then
    note "build"
    export PATH=/usr/local/cuda/bin:$PATH
    boost_arg=()
    cfg=/usr/lib/x86_64-linux-gnu/cmake
    [[ -d $cfg/boost_unit_test_framework-1.74.0 ]] && boost_arg=(-DBoost_DIR="$cfg/Boost-1.74.0")
    timeout 120 cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DKLEENE_NATIVE=OFF -DKLEENE_PYTHON=OFF -DKLEENE_GRAPHBLAS=OFF -DKLEENE_MPI=ON \
        -DCMAKE_CUDA_ARCHITECTURES=90 "${boost_arg[@]}" "${mpi_cmake[@]}" ${CMAKE_EXTRA:-} \
        >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
    grep -E "kleene: (CUDA|distributed)" "$out/configure.log"
    timeout 480 cmake --build "$build" --parallel "$jobs" --target ${TARGETS:-kleene bench_closure \
        test_apsp_gpu} ${BUILD_MORE:-} >"$out/build.log" 2>&1 ||
        { grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }
    tail -1 "$out/build.log"
fi

if has test; then
    note "test_apsp_gpu: closure cases"
    timeout 300 "$build/tests/test_apsp_gpu" --run_test='*/closure*' --log_level=message \
        >"$out/test_apsp_gpu_closure.log" 2>&1 || status=1
    tail -3 "$out/test_apsp_gpu_closure.log"
    if [[ ${PLANT:-0} == 1 ]]; then
        # Planted: the GPU rows built from a condensation view whose cyclic components lost
        # their self-reach (closure.hpp's `self`, used by the GPU path only) must differ from
        # the CPU's rows, so the comparison must fail.
        note "planted: test_apsp_gpu against a sabotaged GPU condensation view"
        if bash "$root/bench/gpu/plant.sh" "$build" tests/test_apsp_gpu \
            algorithms/include/kleene/algorithms/closure.hpp 1 "$build/plant/test_apsp_gpu" \
            's/self\[c\] = opt\.reflexive || g\.cyclic\[c\];/self[c] = opt.reflexive;/' \
            >"$out/plant_closure_build.log" 2>&1; then
            if timeout 300 "$build/plant/test_apsp_gpu" --run_test='*/closure_condensation_rows_on_gpu' \
                >"$out/plant_closure.log" 2>&1; then
                echo "PLANT: the sabotaged GPU closure passed the test (it must not)"; status=1
            else
                echo "PLANT: the sabotaged GPU closure fails the test, as it must: $(grep -c 'error: in' "$out/plant_closure.log") failed checks"
            fi
        else
            echo "PLANT: could not build the sabotaged test"; tail -5 "$out/plant_closure_build.log"; status=1
        fi
    fi
    note "the CLI's closure script"
    timeout 300 bash "$root/tests/cli/closure_sparse.sh" "$build/tools/kleene" \
        >"$out/cli_closure_sparse.log" 2>&1 || status=1
    tail -3 "$out/cli_closure_sparse.log"
    for t in ${MORE_TESTS:-}; do
        note "$t"
        timeout 300 "$build/tests/$t" --log_level=message >"$out/$t.log" 2>&1 || status=1
        tail -3 "$out/$t.log"
    done
fi

if has bench; then
    args=(--n "${N:-1000000}" --runs "${RUNS:-3}")
    [[ -n ${ONLY:-} ]] && args+=(--only "$ONLY")
    for dev in gpu cpu; do
        note "bench_closure --device $dev, $(nproc) threads"
        timeout 400 "$build/bench/bench_closure" "${args[@]}" --device $dev ${EXPLAIN:+--explain} \
            2>&1 | tee "$out/bench_closure_$dev.txt" || status=1
    done
fi

if has faults; then
    command -v mpirun >/dev/null || { echo "no mpirun: faults skipped"; exit 1; }
    note "faults on the NCCL path: ranks $ranks on $(nvidia-smi -L | grep -c GPU) GPU(s)"
    timeout 300 cmake --build "$build" --parallel "$jobs" --target check_distributed_fw \
        >>"$out/build.log" 2>&1 || { grep -E "error" -A3 "$out/build.log" | head -20; exit 1; }
    mpirun=(mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE
            -x OMPI_MCA_btl_vader_single_copy_mechanism)
    [[ -n ${OPAL_PREFIX:-} ]] && mpirun+=(-x OPAL_PREFIX -x LD_LIBRARY_PATH -x PATH)
    for np in $ranks; do
        for extra in "" "--streamed 7"; do
            # shellcheck disable=SC2086  # extra is several words
            timeout 240 "${mpirun[@]}" -np "$np" "$build/algorithms/distributed/check_distributed_fw" \
                --device gpu $extra >"$out/check_np$np${extra:+_streamed}.log" 2>&1
            rc=$?
            echo "check_distributed_fw -np $np --device gpu $extra: exit $rc; $(grep -c '^FAIL' "$out/check_np$np${extra:+_streamed}.log") FAIL lines; $(tail -1 "$out/check_np$np${extra:+_streamed}.log")"
            ((rc == 0)) || status=1
        done
    done
    timeout 400 bash "$root/tests/distributed/cli_distributed_faults.sh" "$build/tools/kleene" \
        "$(command -v mpirun)" gpu >"$out/cli_faults_gpu.log" 2>&1 || status=1
    tail -15 "$out/cli_faults_gpu.log"
    if [[ ${PLANT:-0} == 1 ]]; then
        note "planted: check_distributed_fw against an always-aborting floyd_warshall.hpp"
        if bash "$root/bench/gpu/plant.sh" "$build" algorithms/distributed/check_distributed_fw \
            algorithms/include/kleene/algorithms/distributed/floyd_warshall.hpp 6 \
            "$build/plant/check_distributed_fw" 's/^        c\.agree(true);$//' \
            's/^\( *\)if (in_flight) panels\.abort();$/\1panels.abort();/' \
            's/^\( *\)panels\.abort();$/\1panels.abort(); (void)in_flight;/' \
            >"$out/plant_build.log" 2>&1; then
            np=${ranks##* }
            timeout 180 "${mpirun[@]}" -np "$np" "$build/plant/check_distributed_fw" --device gpu \
                >"$out/plant_abort.log" 2>&1
            rc=$?
            if ((rc == 0)); then
                echo "PLANT: the sabotaged check passed on $np ranks (it must not)"; status=1
            else
                echo "PLANT: the sabotaged check fails on $np ranks, as it must (exit $rc):"
                grep -E "^FAIL" "$out/plant_abort.log" | head -4
            fi
        else
            echo "PLANT: could not build the sabotaged check"; tail -5 "$out/plant_build.log"; status=1
        fi
    fi
fi
exit $status
