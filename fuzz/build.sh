#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan), without OpenMP (one thread):
# fuzz_matrix_market, fuzz_kbin (the .kbin reader) and fuzz_edge_list.
#   fuzz/build.sh [OUT_DIR] [TARGET...]      (default OUT_DIR /tmp/kleene-fuzz, every target)
#   fuzz/seeds.sh OUT_DIR/corpus             (seed corpora from tests/data)
#   OUT_DIR/fuzz_kbin -max_total_time=600 OUT_DIR/corpus/kbin
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/kleene-fuzz}
shift || true
targets=("$@")
(( ${#targets[@]} )) || targets=(fuzz_matrix_market fuzz_kbin fuzz_edge_list)
mkdir -p "$out/obj"
inc=(-I"$root/lib/core/include" -I"$root/semirings/include" -I"$root/matrix_io/include")
lib=("$root/matrix_io/src/io_common.cpp" "$root/matrix_io/src/mm_read_float.cpp"
     "$root/matrix_io/src/mm_read_signed.cpp" "$root/matrix_io/src/mm_read_unsigned.cpp"
     "$root/matrix_io/src/mm_write.cpp" "$root/matrix_io/src/binary.cpp"
     "$root/lib/core/src/memory.cpp" "$root/matrix_io/src/output_file.cpp")
srcs=("${lib[@]}")
for t in "${targets[@]}"; do srcs+=("$root/fuzz/$t.cpp"); done
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -Wno-unknown-pragmas)
pids=()
for s in "${srcs[@]}"; do
  clang++ "${flags[@]}" "${inc[@]}" -c "$s" -o "$out/obj/$(basename "$s" .cpp).o" &
  pids+=($!)
  if (( ${#pids[@]} >= ${JOBS:-2} )); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done
objs=()
for s in "${lib[@]}"; do objs+=("$out/obj/$(basename "$s" .cpp).o"); done
for t in "${targets[@]}"; do
  clang++ "${flags[@]}" "${objs[@]}" "$out/obj/$t.o" -o "$out/$t"
  echo "$out/$t"
done
