#!/usr/bin/env bash
# Builds gemm_variants.cu for each (stage depth, int32 instruction) pair in parallel and runs them
# one after another on the GPU. Usage: lab/gemm_variants.sh [n ...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/kleene-gpu}/variants
mkdir -p "$out"
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
# The instance lists the headers include (cmake/instances.cmake), written beside the binaries.
cmake -DKLEENE_GENERATED_DIR="$out/generated" -P "$root/cmake/instances.cmake"
inc=(-I"$root/semirings/include" -I"$root/lib/core/include" -I"$root/lib/backend/common/include" -I"$root/lib/ops/include" -I"$root/lib/backend/cuda/include" -I"$root/lib/backend/cpu/include"
     -I"$out/generated/include")
variants=("8 1" "16 1" "8 0" "16 0")
sizes=("$@")
for v in "${variants[@]}"; do
  set -- $v
  "$nvcc" -std=c++20 -O3 --expt-relaxed-constexpr -arch=sm_90 "${inc[@]}" -DKLEENE_GEMM_BLOCK_K=$1 \
    -DKLEENE_GEMM_INT_DPX=$2 -DKLEENE_HAVE_CUDA=1 "$root/lab/gemm_variants.cu" "$root/lib/backend/cuda/src/runtime.cu" \
    "$root/lib/core/src/context.cpp" -Xcompiler -fopenmp -lgomp \
    -o "$out/v_$1_$2" > "$out/build_$1_$2.log" 2>&1 &
done
wait
[[ ${#sizes[@]} -gt 0 ]] || sizes=(4096 8192)
for v in "${variants[@]}"; do
  set -- $v
  [[ -x $out/v_$1_$2 ]] || { echo "variant $1 $2 failed to build"; tail -5 "$out/build_$1_$2.log"; continue; }
  "$out/v_$1_$2" "${sizes[@]}"
done
