#!/usr/bin/env bash
# Usage: check_install.sh install BUILD_DIR WORK_DIR CMAKE
#        check_install.sh cmake   WORK_DIR CMAKE CXX GENERATOR [COMPONENTS]
#        check_install.sh pkg-config WORK_DIR CXX
# The ctest tests consumer_install, consumer_cmake and consumer_pkgconfig: the build tree installed
# into WORK_DIR/prefix (cmake --install), then this folder's project configured against it with
# find_package(kleene) and built and run, and consumer.cpp compiled again with only the flags of
# `pkg-config --cflags --libs kleene` and run.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mode=$1
shift
case $mode in
  install)
    build=$1 work=$2 cmake=$3
    rm -rf "$work"
    mkdir -p "$work"
    "$cmake" --install "$build" --prefix "$work/prefix" > "$work/install.log" ||
      { cat "$work/install.log"; exit 1; }
    echo "installed into $work/prefix: $(find "$work/prefix" -type f | wc -l) files"
    # config.hpp is generated (the build's KLEENE_HAVE_CUDA); algorithms/cuda: the GPU kernels'.
    for f in bin/kleene include/kleene/kleene.hpp include/kleene/io/matrix_market.hpp \
             include/kleene/config.hpp include/kleene/algorithms/cuda/graph.hpp; do
      [[ -e $work/prefix/$f ]] || { echo "FAIL: $f is not installed"; exit 1; }
    done
    ;;
  cmake)
    work=$1 cmake=$2 cxx=$3 gen=$4 components=${5:-}
    rm -rf "$work/cmake"
    # Only the installed prefix is searched for kleene: the build tree is not on any path here.
    "$cmake" -S "$here" -B "$work/cmake" -G "$gen" -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_BUILD_TYPE=Debug -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
      -DKLEENE_CONSUMER_COMPONENTS="$components" \
      > "$work/cmake.log" || { cat "$work/cmake.log"; exit 1; }
    grep "kleene_DIR:" "$work/cmake/CMakeCache.txt"
    "$cmake" --build "$work/cmake" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
    "$work/cmake/consumer"
    ;;
  pkg-config)
    work=$1 cxx=$2
    command -v pkg-config >/dev/null || { echo "FAIL: pkg-config is not installed"; exit 1; }
    pc=$(find "$work/prefix" -name kleene.pc)
    [[ -n $pc ]] || { echo "FAIL: no kleene.pc under $work/prefix"; exit 1; }
    export PKG_CONFIG_PATH=$(dirname "$pc")
    pkg-config --validate kleene
    flags=$(pkg-config --cflags --libs kleene)
    echo "pkg-config --cflags --libs kleene: $flags"
    [[ $flags == *"-I$work/prefix/include"* ]] || { echo "FAIL: the include folder is not the prefix's"; exit 1; }
    # shellcheck disable=SC2086
    "$cxx" -O0 "$here/consumer.cpp" $flags -o "$work/consumer_pc"
    "$work/consumer_pc"
    ;;
  *)
    echo "usage: $0 install|cmake|pkg-config ..." >&2
    exit 2
    ;;
esac
