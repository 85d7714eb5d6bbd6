#!/usr/bin/env bash
# Build the two real peers of kleene's graph kernels, outside the repository, on the build machine:
#   - the GAP Benchmark Suite reference (sbeamer/gapbs, tag v1.5): plain g++ -O3 -fopenmp through its
#     own Makefile (no -march), for the CPU;
#   - Gunrock (gunrock/gunrock, the commit below) for the GPU: its examples bfs, sssp, pr, tc, bc
#     (Gunrock has no connected-components example), CUDA architecture 90, its NVIDIA backend.
# Then strip and pack the binaries into $DEST/peers-bin/{gapbs,gunrock}/ with $DEST/peers-bin/VERSIONS.
#
#   DEST=/work/peers bench/peers/build.sh              # all stages
#   STAGES="gunrock pack" DEST=/work/peers bench/peers/build.sh
#
# Inputs (variables, defaults in brackets): DEST [/work/peers], MIRROR [/work/.mirror] and the repo
# paths below (git directories the sources are cloned from; nothing is downloaded), CUDA_HOME
# [/usr/local/cuda], CUDA_ARCH [90], JOBS [2], STAGES ["gapbs gunrock pack"].
# Nothing of the peers is written inside a git worktree: the script refuses a DEST inside one.
#
# Gunrock's CMake fetches its dependencies from GitHub at configure time; here every one comes from
# a local clone through FETCHCONTENT_SOURCE_DIR_<NAME> (FETCHCONTENT_FULLY_DISCONNECTED=ON):
# cxxopts v3.0.0 (the tag Gunrock names), nlohmann/json v3.11.3 (Gunrock names the moving branch
# "develop"; v3.11.3 is the tag its own later fix pins), rpavlik/cmake-modules (branch main, the
# commit below), and CCCL: the copy shipped with the CUDA toolkit (nvcc puts include/cccl on its
# system include path), so FetchContent is handed an empty folder for it. Tests and googletest off.
#
# Gunrock as published gives wrong answers under nvcc; the script applies these edits (each one
# checked: the script stops if the text it edits is not found exactly as expected):
#   fix 1 (include/gunrock/util/math.hxx): math::atomic::{add,min,max,cas,exch} are real device
#     atomics only under `#if __HIP_DEVICE_COMPILE__`, which nvcc never defines; under nvcc the device
#     code took the host fallback (a plain read-modify-write for add/cas/exch; min/max that return
#     the smaller/larger value and never store it). So BFS and SSSP never stored a distance and never
#     left the source, and PageRank's racing atomic adds lost rank. Edit: the five guards also accept
#     nvcc's device pass (`__CUDA_ARCH__`). (Checked in PTX: unedited, pr has no global atomic and
#     sssp no CAS; edited, atom.global.add.f32 and atom.global.cas.b32 appear.)
#   fix 2 (include/gunrock/algorithms/tc.hxx): triangle counting runs one advance over the enactor's
#     input frontier, which nothing fills since the advance was moved to the runtime-dispatched
#     frontier form (it used to take the whole graph): the count was 0. Edit: the TC enactor gets a
#     prepare_frontier that puts every vertex 0..n-1 in the input frontier.
#   fix 3 (include/gunrock/framework/operators/advance/merge_path_v2.hxx, the advance BC uses): after
#     computing the work offsets from the input frontier it sorts the input frontier (so the offsets
#     no longer match the vertices: wrong edges visited) and prints both frontiers in full, and
#     sorts the output. Edit: delete those six debug lines (two prints of a label, two sorts, two
#     frontier prints).
#   fix 4 (include/gunrock/algorithms/bc.hxx): BC keeps one frontier buffer per BFS level in a fixed
#     array of 1000 ("XXX: hack!"); a road graph is deeper (road_NE: 1109 levels from vertex 0), so
#     it would index past the array. Edit: 65536 buffers (they are empty objects until used).
# Reporting edits (after the timed region, no effect on the algorithm or its timing):
#   the enactor prints "PEERS_RUN iterations=<n> ms=<t>" after each enact (t: the time it returns,
#   the example's own timing; n: PageRank's iteration count, BC's search depth, BFS/SSSP's number
#   of advance steps); the examples print one "PEERS_ANSWER" line:
#   bfs/sssp the last source, its reached-vertex count and its largest finite distance; pr the top
#   five ranks; bc the top five scores over the largest (GAP's normalisation); pr reads its
#   tolerance from PEERS_PR_TOL (default unchanged, 1e-6, a max-norm test).
# The edits are small sed/perl substitutions below; the resulting diff is saved (outside the repo)
# as $DEST/peers-bin/gunrock/edits.diff.
set -euo pipefail

DEST=${DEST:-/work/peers}
MIRROR=${MIRROR:-/work/.mirror}
GAPBS_REPO=${GAPBS_REPO:-$MIRROR/sbeamer+gapbs/repo}
GAPBS_TAG=${GAPBS_TAG:-v1.5}
GUNROCK_REPO=${GUNROCK_REPO:-$MIRROR/gunrock+gunrock/repo}
GUNROCK_COMMIT=${GUNROCK_COMMIT:-01f125c85498c52ab0a1b8d33c2716d0b0dc3a57}  # main, 2026-01-22
CXXOPTS_REPO=${CXXOPTS_REPO:-$MIRROR/jarro2783+cxxopts/repo}
CXXOPTS_REF=${CXXOPTS_REF:-v3.0.0}
JSON_REPO=${JSON_REPO:-$MIRROR/nlohmann+json/repo}
JSON_REF=${JSON_REF:-v3.11.3}
CMAKE_MODULES_REPO=${CMAKE_MODULES_REPO:-$MIRROR/rpavlik+cmake-modules/repo}
CMAKE_MODULES_REF=${CMAKE_MODULES_REF:-76c1eb4fbb2e5988a3bc0fdc1ff4c326b737a10c}  # main, 2025-02-10
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
CUDA_ARCH=${CUDA_ARCH:-90}
JOBS=${JOBS:-2}
STAGES=${STAGES:-"gapbs gunrock pack"}
GAPBS_KERNELS=(bfs sssp cc pr tc bc converter)
GUNROCK_EXAMPLES=(bfs sssp pr tc bc)

has() { [[ " $STAGES " == *" $1 "* ]]; }
say() { echo "[peers/build] $*"; }
die() { echo "[peers/build] error: $*" >&2; exit 1; }

probe=$DEST   # checked before anything is created: the nearest existing folder
while [[ ! -d "$probe" ]]; do probe=$(dirname "$probe"); done
if git -C "$probe" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  die "DEST=$DEST is inside a git worktree; the peers' code and builds must stay outside"
fi
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)

# clone_at <repo> <ref> <dir>: a fresh, clean checkout of <ref> (reused if already there).
clone_at() {
  local repo=$1 ref=$2 dir=$3
  [[ -d "$repo" ]] || die "no git directory at $repo (bring it with the fetch tool)"
  if [[ ! -d "$dir/.git" ]]; then
    git clone -q "$repo" "$dir"
  fi
  git -C "$dir" fetch -q --tags "$repo" '+refs/heads/*:refs/remotes/origin/*' 2>/dev/null || true
  git -C "$dir" checkout -q -f "$ref"
  git -C "$dir" reset -q --hard
}

# ---------------------------------------------------------------- gapbs
if has gapbs; then
  say "gapbs $GAPBS_TAG from $GAPBS_REPO into $DEST/gapbs"
  clone_at "$GAPBS_REPO" "$GAPBS_TAG" "$DEST/gapbs"
  # Its own Makefile and flags (-std=c++11 -O3 -Wall -fopenmp); rebuilt from scratch.
  (cd "$DEST/gapbs" && rm -f "${GAPBS_KERNELS[@]}" && make -s -j"$JOBS" CXX=g++ "${GAPBS_KERNELS[@]}")
fi

# ---------------------------------------------------------------- gunrock
# sub <file> <expected count> <perl substitution>: apply it and check how many places it changed.
sub() {
  local file=$1 want=$2 expr=$3 got
  got=$(PEERS_EXPR="$expr" perl -0pi -e 'BEGIN { $n = 0 } $n += eval($ENV{PEERS_EXPR}); END { print STDERR $n }' "$file" 2>&1 >/dev/null)
  [[ "$got" == "$want" ]] || die "edit of $file changed $got places, expected $want: $expr"
}

if has gunrock; then
  src=$DEST/gunrock
  deps=$DEST/gunrock-deps
  build=$DEST/gunrock-build
  say "gunrock $GUNROCK_COMMIT from $GUNROCK_REPO into $src"
  clone_at "$GUNROCK_REPO" "$GUNROCK_COMMIT" "$src"
  git -C "$src" clean -q -fdx
  mkdir -p "$deps"
  clone_at "$CXXOPTS_REPO" "$CXXOPTS_REF" "$deps/cxxopts"
  clone_at "$JSON_REPO" "$JSON_REF" "$deps/json"
  clone_at "$CMAKE_MODULES_REPO" "$CMAKE_MODULES_REF" "$deps/cmake_modules"
  mkdir -p "$deps/cccl-from-toolkit"   # empty: the toolkit's CCCL is used

  say "applying the edits"
  # fix 1: device atomics under nvcc too.
  sub "$src/include/gunrock/util/math.hxx" 5 \
    's/^#if __HIP_DEVICE_COMPILE__$/#if defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)/mg'
  # fix 2: TC's input frontier holds every vertex.
  sub "$src/include/gunrock/algorithms/tc.hxx" 1 \
    's/^(  void loop\(gcuda::multi_context_t& context\) override \{)$/  \/\/ kleene peers fix 2: every vertex in the input frontier\n  void prepare_frontier(frontier_t* f, gcuda::multi_context_t& context) override {\n    auto n = this->get_problem()->get_graph().get_number_of_vertices();\n    f->sequence((vertex_t)0, n, context.get_context(0)->stream());\n  }\n\n$1/mg'
  # fix 3: no re-sort or print of the frontiers in the merge-path (v2) advance.
  sub "$src/include/gunrock/framework/operators/advance/merge_path_v2.hxx" 6 \
    's/^ *(?:std::cout << "(?:Input|Output) ";|(?:input|output)\.(?:sort|print)\(\);)\n//mg'
  # fix 4: BC's per-level frontier buffers: 1000 -> 65536.
  sub "$src/include/gunrock/algorithms/bc.hxx" 1 \
    's/(number_of_frontier_buffers = )1000;/${1}65536;  \/\/ kleene peers fix 4 (was 1000)/g'

  # Reporting: iterations after each enact (after the timer stops).
  sub "$src/include/gunrock/framework/enactor.hxx" 1 \
    's/^(    auto runtime = timer\.end\(stream\);)$/$1\n    std::cout << "PEERS_RUN iterations=" << iteration << " ms=" << runtime << std::endl;  \/\/ kleene peers report/mg'
  # bfs / sssp: reached vertices and the largest finite distance of the last source.
  for ex in bfs sssp; do
    sub "$src/examples/algorithms/$ex/$ex.cu" 1 \
      's/^(  if \(arguments\.validate\) \{)$/  { \/\/ kleene peers report\n    thrust::host_vector<decltype(distances)::value_type> h_d(distances);\n    std::size_t reached = 0; double far = 0;\n    for (auto d : h_d)\n      if (d != std::numeric_limits<decltype(distances)::value_type>::max()) { ++reached; if ((double)d > far) far = (double)d; }\n    std::cout << "PEERS_ANSWER source=" << source_vect.back() << " reached=" << reached << " max_dist=" << far << std::endl;\n  }\n\n$1/mg'
  done
  # pr: tolerance from PEERS_PR_TOL; the top five ranks.
  sub "$src/examples/algorithms/pr/pr.cu" 1 \
    's/^(  weight_t tol = )1e-6;$/${1}std::getenv("PEERS_PR_TOL") ? (weight_t)std::atof(std::getenv("PEERS_PR_TOL")) : (weight_t)1e-6;  \/\/ kleene peers/mg'
  sub "$src/examples/algorithms/pr/pr.cu" 1 \
    's/^(  print::head\(p, 40, "GPU rank"\);)$/  { \/\/ kleene peers report\n    thrust::host_vector<weight_t> h_p(p);\n    std::vector<std::pair<weight_t, int>> top;\n    for (int v = 0; v < (int)h_p.size(); ++v) top.push_back({h_p[v], v});\n    std::size_t k = std::min<std::size_t>(5, top.size());\n    std::partial_sort(top.begin(), top.begin() + k, top.end(), [](auto a, auto b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });\n    std::cout << "PEERS_ANSWER top=";\n    for (std::size_t i = 0; i < k; ++i) std::cout << (i ? "," : "") << top[i].second << ":" << top[i].first;\n    std::cout << std::endl;\n  }\n$1/mg'
  # bc: the top five scores over the largest.
  sub "$src/examples/algorithms/bc/bc.cu" 1 \
    's/^(  std::cout << "Single source : ")/  { \/\/ kleene peers report\n    thrust::host_vector<weight_t> h_b(bc_values);\n    std::vector<std::pair<weight_t, int>> top;\n    for (int v = 0; v < (int)h_b.size(); ++v) top.push_back({h_b[v], v});\n    std::size_t k = std::min<std::size_t>(5, top.size());\n    std::partial_sort(top.begin(), top.begin() + k, top.end(), [](auto a, auto b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });\n    weight_t big = k ? top[0].first : 1; if (big == 0) big = 1;\n    std::cout << "PEERS_ANSWER top=";\n    for (std::size_t i = 0; i < k; ++i) std::cout << (i ? "," : "") << top[i].second << ":" << top[i].first \/ big;\n    std::cout << std::endl;\n  }\n$1/mg'
  git -C "$src" diff > "$DEST/gunrock-edits.diff"
  say "edits: $(git -C "$src" diff --shortstat)"

  say "configure ($build)"
  export PATH=$CUDA_HOME/bin:$PATH
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_COMPILER="$CUDA_HOME/bin/nvcc" -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCH" \
    -DESSENTIALS_NVIDIA_BACKEND=ON -DESSENTIALS_AMD_BACKEND=OFF \
    -DESSENTIALS_BUILD_TESTS=OFF -DESSENTIALS_BUILD_BENCHMARKS=OFF \
    -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
    -DFETCHCONTENT_SOURCE_DIR_CCCL="$deps/cccl-from-toolkit" \
    -DFETCHCONTENT_SOURCE_DIR_CXXOPTS="$deps/cxxopts" \
    -DFETCHCONTENT_SOURCE_DIR_JSON="$deps/json" \
    -DFETCHCONTENT_SOURCE_DIR_CMAKE_MODULES="$deps/cmake_modules" \
    -DJSON_BuildTests=OFF -DCXXOPTS_BUILD_EXAMPLES=OFF -DCXXOPTS_BUILD_TESTS=OFF \
    -DCMAKE_EXE_LINKER_FLAGS="-Wl,--as-needed" > "$DEST/gunrock-configure.log" 2>&1 ||
    { tail -40 "$DEST/gunrock-configure.log"; die "configure failed (log: $DEST/gunrock-configure.log)"; }
  for ex in "${GUNROCK_EXAMPLES[@]}"; do   # one at a time: each is a large nvcc compile
    say "build $ex"
    cmake --build "$build" --target "$ex" -j "$JOBS" > "$DEST/gunrock-build-$ex.log" 2>&1 ||
      { tail -40 "$DEST/gunrock-build-$ex.log"; die "build of $ex failed (log: $DEST/gunrock-build-$ex.log)"; }
  done
fi

# ---------------------------------------------------------------- pack
if has pack; then
  pack=$DEST/peers-bin
  say "pack into $pack"
  rm -rf "$pack"
  mkdir -p "$pack/gapbs" "$pack/gunrock" "$pack/lib"
  for k in "${GAPBS_KERNELS[@]}"; do
    strip -o "$pack/gapbs/$k" "$DEST/gapbs/$k"
  done
  for ex in "${GUNROCK_EXAMPLES[@]}"; do
    strip -o "$pack/gunrock/$ex" "$DEST/gunrock-build/bin/$ex"
  done
  [[ -f "$DEST/gunrock-edits.diff" ]] && cp "$DEST/gunrock-edits.diff" "$pack/gunrock/edits.diff"
  # A fallback copy of the OpenMP runtime gapbs links (run.sh uses it only where the host lacks it).
  gomp=$(ldd "$pack/gapbs/bfs" | awk '/libgomp/ { print $3 }')
  [[ -n "$gomp" ]] && cp -L "$gomp" "$pack/lib/"
  {
    echo "# kleene peers, packed $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname) ($(. /etc/os-release; echo "$PRETTY_NAME"))"
    echo "gapbs $GAPBS_TAG $(git -C "$DEST/gapbs" rev-parse HEAD) from $GAPBS_REPO"
    echo "gunrock $(git -C "$DEST/gunrock" rev-parse HEAD) ($(git -C "$DEST/gunrock" log -1 --format=%cs)) from $GUNROCK_REPO, edits: fixes 1-4 + reporting (gunrock/edits.diff)"
    echo "cxxopts $CXXOPTS_REF $(git -C "$DEST/gunrock-deps/cxxopts" rev-parse HEAD)"
    echo "nlohmann-json $JSON_REF $(git -C "$DEST/gunrock-deps/json" rev-parse HEAD)"
    echo "cmake-modules $(git -C "$DEST/gunrock-deps/cmake_modules" rev-parse HEAD)"
    echo "cccl: the CUDA toolkit's ($(grep -m1 -o 'CCCL_VERSION [0-9]*' "$CUDA_HOME/include/cccl/cuda/std/__cccl/version.h" 2>/dev/null || echo unknown))"
    echo "nvcc: $("$CUDA_HOME/bin/nvcc" --version | tail -1) (sm_$CUDA_ARCH), cmake $(cmake --version | head -1 | awk '{print $3}')"
    echo "g++: $(g++ --version | head -1); gapbs flags: its Makefile (-std=c++11 -O3 -Wall -fopenmp)"
    echo "libgomp fallback: $(basename "${gomp:-none}")"
    echo
    echo "# dynamic libraries"
    for b in "$pack"/gapbs/* "$pack"/gunrock/*; do
      [[ "$b" == *.diff ]] && continue
      echo "$(basename "$(dirname "$b")")/$(basename "$b"): $(ldd "$b" | awk '$1 !~ /linux-vdso|ld-linux/ { print $1 }' | tr '\n' ' ')"
    done
  } > "$pack/VERSIONS"
  cat "$pack/VERSIONS"
  say "total size: $(du -sh "$pack" | cut -f1)"
fi
