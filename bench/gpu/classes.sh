#!/usr/bin/env bash
# Issue 38 on the GPU host: the six graph kernels on every class (Kronecker and uniform at scale
# SCALE, the road networks NY and NE of shared/data/road), kleene's CPU and GPU side by side with
# the real peers (the GAP reference on the host's cores, Gunrock on the GPU; bench/peers/), the
# same graphs, sources and thread counts. Prints a short table last; logs in $OUT.
#
#   carry [".deps"]: .deps/debs (bench/gpu/fetch_debs.sh: Boost.Test, fmt, CLI11), .deps/road
#   (NY.gr.xz NE.gr.xz to_mtx.py from shared/data/road), .deps/peers/peers-bin (bench/peers/build.sh)
#   STAGES="deps build test road synth sweep profile" bench/gpu/classes.sh
#
# Stages: deps (unpack the .debs), build (bench_graph_kernels and the GPU graph suites, TESTS
# [test_graph_gpu], into BUILD,
# an ignored folder of the repository, kept while the machine stays warm), test (test_graph_gpu),
# road (NY and NE: kleene, then the peers), synth (kron and urand: kleene writes the graph as
# gapbs's .sg/.wsg and its sources, then the GAP reference (ROAD_PEERS= skips the peers on the road
# networks, whose numbers do not change with kleene's); SYNTH_PEERS="gapbs gunrock" adds
# Gunrock, whose text input costs minutes at scale 22), sweep (BFS on NE and kron: the CPU's
# serial_edges and the GPU's block_edges), deltas (SSSP bucket widths on every class, CPU and
# GPU; DELTAS, 0 = automatic). BENCH_EXTRA: more bench_graph_kernels options for kleene's runs
# (e.g. "--gpu-async-degree 0"); KERNELS: the peers' kernels (bench/peers/run.sh).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/kleene-classes}
build=${BUILD:-$root/build-classes}
work=${WORK:-/tmp/kleene-classes-work}
stages=${STAGES:-"deps build test road synth"}
scale=${SCALE:-22}
sources=${SOURCES:-16}
runs=${RUNS:-3}
threads=${THREADS:-$(nproc)}
jobs=${JOBS:-$(nproc)}
export OMP_PROC_BIND=${OMP_PROC_BIND:-close} OMP_PLACES=${OMP_PLACES:-cores}
export PEERS_BIN=${PEERS_BIN:-$root/.deps/peers/peers-bin}
mkdir -p "$out" "$work"
has() { [[ " $stages " == *" $1 "* ]]; }
note() { printf '\n== %s (%s)\n' "$*" "$(date +%T)"; }
bench=$build/bench/bench_graph_kernels
status=0

if has deps; then
    for d in "$root"/.deps/debs/*.deb; do dpkg -x "$d" / || status=1; done
    ldconfig
fi

if has build; then
    note "build"
    export PATH=/usr/local/cuda/bin:$PATH
    boost_arg=()
    cfg=/usr/lib/x86_64-linux-gnu/cmake
    [[ -d $cfg/boost_unit_test_framework-1.74.0 ]] && boost_arg=(-DBoost_DIR="$cfg/Boost-1.74.0")
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKLEENE_NATIVE=OFF \
        -DKLEENE_PYTHON=OFF -DKLEENE_GRAPHBLAS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
        "${boost_arg[@]}" >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
    cmake --build "$build" --parallel "$jobs" --target bench_graph_kernels \
        >"$out/build.log" 2>&1 || { grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }
    cmake --build "$build" --parallel "$jobs" --target ${TESTS:-test_graph_gpu} >>"$out/build.log" 2>&1 ||
        { grep -E "error" -A3 "$out/build.log" | head -40; status=1; }
    tail -1 "$out/build.log"
fi

if has test; then
    for t in ${TESTS:-test_graph_gpu}; do
        note "$t"
        "$build/tests/$t" --log_level=message >"$out/$t.log" 2>&1 || status=1
        tail -3 "$out/$t.log"
    done
fi

# kleene <name> <bench args...>: bench_graph_kernels on every kernel, CPU and GPU.
kleene() {
    local name=$1; shift
    note "kleene on $name"
    "$bench" "$@" --device both --sources "$sources" --runs "$runs" --threads "$threads" \
        --explain ${BENCH_EXTRA-} >"$out/kleene_$name.txt" 2>&1 || status=1
    # The result lines only (a road network's per-level explain lines come between them).
    grep -E "^(kernel|[a-z]+ +(cpu|gpu) )" "$out/kleene_$name.txt"
}
# peers <name> <sources> <graph> [env...]
peers() {
    local name=$1 src=$2 graph=$3; shift 3
    note "peers on $name"
    env OUT="$work/peers-$name" WORK="$work" THREADS="$threads" NSRC="$sources" "$@" \
        "$root/bench/peers/run.sh" "$src" "$graph" >"$out/peers_$name.txt" 2>"$out/peers_$name.err" ||
        status=1
    cat "$out/peers_$name.txt"
    grep -iE "fail|error" "$out/peers_$name.err" | head -5
}

if has road; then
    for g in ${ROADS:-NY NE}; do
        mtx=$work/road_$g.mtx
        [[ -f $mtx ]] || python3 "$root/.deps/road/to_mtx.py" "$root/.deps/road/$g.gr.xz" "$mtx" >/dev/null
        kleene "road_$g" --graph "$mtx" --write-sources "$work/road_$g.src"
        [[ -n ${ROAD_PEERS-gapbs gunrock} ]] &&
            peers "road_$g" "$work/road_$g.src" "$mtx" VALIDATE="${VALIDATE:-1}" \
                PEERS="${ROAD_PEERS-gapbs gunrock}" \
                SWEEP_DELTAS="${ROAD_DELTAS:-256 1024 4096 16384}" SWEEP_SOURCES=2
    done
fi

if has synth; then
    for cls in ${SYNTH:-kron urand}; do
        name=${cls}$scale
        flag=(); [[ $cls == urand ]] && flag=(--uniform)
        kleene "$name" --scale "$scale" "${flag[@]}" --write-sources "$work/$name.src" \
            --write-sg "$work/$name"
        [[ -n ${SYNTH_PEERS-gapbs} ]] &&
            peers "$name" "$work/$name.src" "$work/$name.sg" VALIDATE=0 \
                PEERS="${SYNTH_PEERS-gapbs}" SWEEP_DELTAS="${SYNTH_DELTAS:-1 2 4}" SWEEP_SOURCES=2
    done
fi

if has deltas; then
    note "SSSP bucket widths, CPU and GPU"
    for spec in "road_NY --graph $work/road_NY.mtx" "road_NE --graph $work/road_NE.mtx" \
        "kron$scale --scale $scale" "urand$scale --scale $scale --uniform"; do
        set -- $spec; name=$1; shift
        for d in ${DELTAS:-0 4 16 64 256 1024 4096}; do
            printf '%s delta %-5s ' "$name" "$d"
            "$bench" "$@" --device both --kernels sssp --sources 8 --threads "$threads" \
                --delta "$d" | grep "^sssp" | awk '{ printf "%s %s %s %s steps %s | ", $1, $2, $3, $4, $6 }'
            echo
        done
    done 2>&1 | tee "$out/deltas.txt"
fi

if has profile; then
    # Where the GPU's time goes on the road networks: the BFS kernel's own clock (block 0's small
    # levels, the grid's levels, the rebuilds) and SSSP's host clock (the block's runs, the grid's
    # rounds), then Nsight Compute's warp-state and memory sections where it is installed.
    note "profile: BFS and SSSP on the GPU"
    for g in ${ROADS:-NY NE}; do
        mtx=$work/road_$g.mtx
        [[ -f $mtx ]] || python3 "$root/.deps/road/to_mtx.py" "$root/.deps/road/$g.gr.xz" "$mtx" >/dev/null
        "$bench" --graph "$mtx" --device gpu --kernels bfs,sssp --sources 4 --runs 3 --explain \
            >"$out/profile_$g.txt" 2>&1 || status=1
        grep -E "^(bfs|sssp) |profile" "$out/profile_$g.txt" | cut -c1-400 | sort -u | head -12
    done
    ncu_bin=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
    if [[ -n $ncu_bin ]]; then
        timeout 240 "$ncu_bin" -k regex:"bfs_loop|sssp_block" --launch-count 2 \
            --section SpeedOfLight --section WarpStateStats --section Occupancy \
            --section MemoryWorkloadAnalysis "$bench" --graph "$work/road_NE.mtx" --device gpu \
            --kernels bfs,sssp --sources 1 --runs 1 >"$out/ncu_NE.txt" 2>&1 || status=1
        grep -E "bfs_loop|sssp_block|Duration|Stall|Warp Cycles|Memory Throughput|L2 Hit|L1/TEX Hit|Achieved Occupancy|DRAM Throughput" \
            "$out/ncu_NE.txt" | head -60
    else
        echo "no ncu on this host"
    fi
fi

if has sweep; then
    note "BFS sweep: CPU serial_edges, GPU block_edges"
    for spec in "road_NE --graph $work/road_NE.mtx" "kron$scale --scale $scale"; do
        set -- $spec; name=$1; shift
        for se in 0 256 1024 4096; do
            printf '%s cpu serial_edges %-5s ' "$name" "$se"
            "$bench" "$@" --device cpu --kernels bfs --sources "$sources" --threads "$threads" \
                --serial-edges "$se" | grep "^bfs"
        done
        for be in 0 2048 8192 32768; do
            printf '%s gpu block_edges %-5s ' "$name" "$be"
            "$bench" "$@" --device gpu --kernels bfs --sources "$sources" \
                --gpu-block-edges "$be" | grep "^bfs"
        done
    done 2>&1 | tee "$out/sweep.txt"
fi
# Every log in one file as well, named to sort first: the device tool brings back only a few
# files of $OUT.
tar -czf "$out/0-logs.tgz" -C "$out" --exclude=0-logs.tgz . 2>/dev/null
exit $status
