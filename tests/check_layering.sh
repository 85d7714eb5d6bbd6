#!/usr/bin/env bash
# Layering: lib/ (core, the CPU and CUDA backends, the operations) sits below algorithms/, so no
# file under lib/ includes an algorithm header (<kleene/algorithms/...>, or a path into
# algorithms/). Fails, listing the lines, when one does.
set -u
root=${1:?usage: check_layering.sh SOURCE_DIR}
hits=$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^>"]*/)?(kleene/)?algorithms/' \
           "$root/lib" --include='*.hpp' --include='*.cpp' --include='*.cu' --include='*.cuh' \
           --include='*.h' --include='*.c' --include='*.inl')
if [ -n "$hits" ]; then
    echo "lib/ includes algorithm headers (move the code to algorithms/, or what it needs to lib/):"
    echo "$hits"
    exit 1
fi
echo "no lib/ file includes an algorithms/ header"
