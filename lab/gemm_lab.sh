#!/usr/bin/env bash
# Builds the standalone min-plus GEMM lab (lab/gemm_lab.cu) with one nvcc call and runs it.
# Usage: lab/gemm_lab.sh [--build-only] [n ...]   (default sizes: 4096 8192)
# Environment for the binary: LAB_VARIANTS=base,asyncT,... (and "ceilings") picks variants,
# LAB_TYPES=fp32,int32,int16 picks types (default all three; int16 runs asyncT and asyncT32 on
# __viaddmin_s16x2, n % 256), LAB_REPS=5 sets the timed runs (median reported).
# Output goes to ${OUT:-/tmp/kleene-gpu}/lab: the binary, build.log (nvcc --resource-usage),
# run.log, and gemm_lab.sass when cuobjdump is on the PATH.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/kleene-gpu}/lab
mkdir -p "$out"
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
build_only=0
sizes=()
for arg in "$@"; do
  case $arg in
    --build-only) build_only=1 ;;
    *) sizes+=("$arg") ;;
  esac
done
[[ ${#sizes[@]} -gt 0 ]] || sizes=(4096 8192)

echo "building $out/gemm_lab"
start=$(date +%s)
if ! "$nvcc" -std=c++20 -O3 -arch=sm_90 -lineinfo --resource-usage -Xcompiler -Wall,-Wextra \
    -o "$out/gemm_lab" "$root/lab/gemm_lab.cu" > "$out/build.log" 2>&1; then
  cat "$out/build.log"
  echo "build failed"
  exit 1
fi
echo "built in $(( $(date +%s) - start )) s"
# One line a kernel: registers, spill bytes, shared memory (from --resource-usage).
demangle=cat
command -v c++filt > /dev/null 2>&1 && demangle=c++filt
awk '
  /Function properties for/ { name = $NF }
  /bytes stack frame/ { st = $5; ld = $9 }
  /Used [0-9]+ registers/ {
    regs = $5; smem = "0"
    if (match($0, /[0-9]+ bytes smem/)) smem = substr($0, RSTART, RLENGTH - 11)
    printf "%s\t%s regs\tspill st %s B\tld %s B\tsmem %s B\n", name, regs, st, ld, smem
  }' "$out/build.log" | $demangle | sed -e 's/(anonymous namespace):://g' -e 's/(.*)\t/\t/' \
  | grep "kernel<" | grep -v -e reference -e compare -e fill -e transpose -e ceiling || true
if grep -qiE "warning|error" "$out/build.log"; then
  echo "== compiler warnings:"; grep -iE "warning|error" "$out/build.log" | head -50
fi
if command -v cuobjdump > /dev/null 2>&1; then
  cuobjdump -sass "$out/gemm_lab" > "$out/gemm_lab.sass" 2>&1 || true
  echo "SASS in $out/gemm_lab.sass; LDL/STL instructions in it: $(grep -cE '\b(LDL|STL)\b' "$out/gemm_lab.sass" || true)"
fi
[[ $build_only -eq 1 ]] && exit 0

command -v nvidia-smi > /dev/null 2>&1 && \
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv || true
"$out/gemm_lab" "${sizes[@]}" 2>&1 | tee "$out/run.log"
