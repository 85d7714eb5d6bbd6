#!/usr/bin/env bash
# Builds $BUILD/plant/check_distributed_fw against a floyd_warshall.hpp sabotaged back to the old
# behaviour: no agreement before the first broadcast, and every failure aborts the NCCL
# communicators. Its check_setup_failure must then fail on 2 or more ranks (the call after a set-up
# failure finds "the communicators were aborted"); bench/gpu/run_multi.sh runs it with PLANT=1.
#
#   bench/gpu/plant_abort.sh BUILD     (a configured build folder with check_distributed_fw built)

set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: plant_abort.sh BUILD}" && pwd)
plant=$build/plant
header=kleene/algorithms/distributed/floyd_warshall.hpp
mkdir -p "$plant/include/$(dirname $header)"
sed -e 's/^        c\.agree(true);$//' -e 's/^\( *\)if (in_flight) panels\.abort();$/\1panels.abort();/' \
    -e 's/^\( *\)panels\.abort();$/\1panels.abort(); (void)in_flight;/' \
    "$root/algorithms/include/$header" >"$plant/include/$header"
if [[ $(diff "$root/algorithms/include/$header" "$plant/include/$header" | grep -c '^>') != 3 ]]; then
    echo "plant_abort: the sabotage did not apply as expected" >&2
    exit 1
fi
cd "$build"
target=algorithms/distributed/check_distributed_fw
obj=$(ninja -t commands $target | grep -o '[^ ]*check_distributed_fw\.cpp\.o' | head -1)
cc=$(ninja -t commands $target | grep -- "-c [^ ]*check_distributed_fw.cpp")
ld=$(ninja -t commands $target | grep -- "-o $target ")
cc=${cc//$obj/$plant/t.o}
ld=${ld//$obj/$plant/t.o}
eval "${cc/ -I/ -I$plant/include -I}"
eval "${ld/-o $target /-o $plant/check_distributed_fw }"
echo "plant_abort: $plant/check_distributed_fw"
