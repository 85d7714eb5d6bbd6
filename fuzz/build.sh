#!/usr/bin/env bash
# Builds the libFuzzer target with clang (ASan + UBSan), without OpenMP (one thread).
#   fuzz/build.sh [OUT_DIR]       then: OUT_DIR/fuzz_matrix_market -max_total_time=600 CORPUS_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/kleene-fuzz}
mkdir -p "$out"
inc=(-I"$root/lib/include" -I"$root/semirings/include" -I"$root/matrix_io/include")
srcs=("$root/fuzz/fuzz_matrix_market.cpp" "$root/matrix_io/src/io_common.cpp"
      "$root/matrix_io/src/mm_read_float.cpp" "$root/matrix_io/src/mm_read_signed.cpp"
      "$root/matrix_io/src/mm_write.cpp" "$root/matrix_io/src/output_file.cpp")
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -Wno-unknown-pragmas)
pids=()
for s in "${srcs[@]}"; do
  clang++ "${flags[@]}" "${inc[@]}" -c "$s" -o "$out/$(basename "$s" .cpp).o" &
  pids+=($!)
  if (( ${#pids[@]} >= ${JOBS:-2} )); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done
clang++ "${flags[@]}" "$out"/*.o -o "$out/fuzz_matrix_market"
echo "$out/fuzz_matrix_market"
