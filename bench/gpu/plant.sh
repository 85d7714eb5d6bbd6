#!/usr/bin/env bash
# A planted failure: rebuilds one test program of a configured build folder against a sabotaged
# copy of one header (its main source recompiled with the copy first on the include path, then
# linked as the build links it), so that a run can show the test catches the sabotage.
#
#   bench/gpu/plant.sh BUILD TARGET HEADER CHANGED OUT SED-EXPRESSION...
#
# TARGET: the program's path in BUILD (its source is TARGET's basename .cpp); HEADER: the header's
# path from the repository root (its include path starts at kleene/); CHANGED: how many lines the
# sed expressions must change, else the sabotage did not apply and nothing is built; OUT: the
# program made. Used by bench/gpu/run_multi.sh (PLANT=1).

set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
target=$2 header=$3 changed=$4
mkdir -p "$(dirname "$5")"
out=$(cd "$(dirname "$5")" && pwd)/$(basename "$5")
shift 5
sed_args=()
for e in "$@"; do sed_args+=(-e "$e"); done
plant=$(dirname "$out")/plant-include
rel=kleene/${header#*/include/kleene/}
mkdir -p "$plant/$(dirname "$rel")"
sed "${sed_args[@]}" "$root/$header" >"$plant/$rel"
got=$(diff "$root/$header" "$plant/$rel" | grep -c '^>' || true)
if [[ $got != "$changed" ]]; then
    echo "plant: the sabotage of $header changed $got lines, not $changed" >&2
    exit 1
fi
cd "$build"
source=$(basename "$target").cpp
commands=$(ninja -t commands "$target")
obj=$(grep -o "[^ ]*/$source\.o" <<<"$commands" | head -1)
cc=$(grep -- "-c [^ ]*/$source" <<<"$commands")
ld=$(grep -- "-o $target " <<<"$commands")
o=$(dirname "$out")/$(basename "$target").o
cc=${cc//$obj/$o}
ld=${ld//$obj/$o}
eval "${cc/ -I/ -I$plant -I}"
eval "${ld/-o $target /-o $out }"
echo "plant: $out"
