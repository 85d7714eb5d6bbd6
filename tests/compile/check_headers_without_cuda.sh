#!/usr/bin/env bash
# Every public header compiles as a build without the CUDA backend sees it (kleene/config.hpp
# without KLEENE_HAVE_CUDA: each device entry point an inline body that throws no_device), with the
# project's warnings as errors. CI's machine has nvcc, so its own build always has the backend; a
# user's laptop without CUDA is this configuration, and an entry point outside
# KLEENE_DEVICE_ENTRIES_BEGIN / END broke every program that included it there (-Wunused-parameter
# on the stub's parameters; memory_pool.hpp and result_copy.hpp, found 2026-11-30).
#   check_headers_without_cuda.sh SOURCE_ROOT CXX GENERATED_INCLUDE (the build's generated/include)
set -uo pipefail
root=$1
cxx=$2
generated=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/kleene"
# The build's config.hpp with the backend left out; instance_lists.hpp still comes from the build.
sed 's|^#define KLEENE_HAVE_CUDA.*|/* #undef KLEENE_HAVE_CUDA */|' "$generated/kleene/config.hpp" \
  > "$work/kleene/config.hpp"
if grep -q '^#define KLEENE_HAVE_CUDA' "$work/kleene/config.hpp"; then
  echo "FAIL: could not take KLEENE_HAVE_CUDA out of $generated/kleene/config.hpp"
  exit 1
fi
inc=(-I "$work")
source "$(dirname "${BASH_SOURCE[0]}")/public_include_dirs.sh"
dirs=("${kleene_include_dirs[@]}")
for d in "${dirs[@]}"; do [ -d "$root/$d" ] && inc+=(-I "$root/$d"); done
inc+=(-I "$generated")
src=$work/all_headers.cpp
count=0
for d in "${dirs[@]}"; do
  [ -d "$root/$d" ] || continue
  while IFS= read -r h; do
    echo "#include <${h#"$root/$d/"}>" >> "$src"
    count=$((count + 1))
  done < <(find "$root/$d" -name '*.hpp' | sort)
done
if [ "$count" -lt 50 ]; then
  echo "FAIL: only $count public headers found under $root"
  exit 1
fi
if "$cxx" -std=c++20 -fsyntax-only -fopenmp -Wall -Wextra -Werror -Wno-restrict "${inc[@]}" \
     "$src" > "$work/log" 2>&1; then
  echo "$count headers compile without the CUDA backend (-Wall -Wextra -Werror): ok"
else
  echo "FAIL: the public headers do not compile without the CUDA backend:"
  head -40 "$work/log"
  exit 1
fi
