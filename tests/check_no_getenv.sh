#!/usr/bin/env bash
# The library reads no environment variable: only context_from_environment
# (lib/core/src/environment.cpp) may call getenv / secure_getenv. Fails, listing the lines, when any
# other library file does.
set -u
root=${1:?usage: check_no_getenv.sh SOURCE_DIR}
hits=$(grep -rnE '\b(secure_)?getenv\b' "$root/lib" "$root/algorithms" "$root/matrix_io" \
           "$root/semirings" --include='*.hpp' --include='*.cpp' --include='*.cu' \
           --include='*.cuh' --include='*.h' --include='*.c' |
       grep -v "^$root/lib/core/src/environment.cpp:" |
       grep -v "^$root/lib/core/include/kleene/environment.hpp:")
if [ -n "$hits" ]; then
    echo "getenv in library code (set a kleene::context's tuning instead; environment.hpp):"
    echo "$hits"
    exit 1
fi
echo "no getenv outside lib/core/src/environment.cpp"
