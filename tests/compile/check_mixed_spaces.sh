#!/usr/bin/env bash
# A call that mixes host and device containers must not compile, and must say why (issue 21):
# compiles tests/compile/mixed_spaces.cpp (syntax only) with one container of each call on the
# host, expects every operation's message, then compiles it with all of them on the device
# (KLEENE_CONTROL), which must succeed, so a failure for another reason is caught too.
#   check_mixed_spaces.sh SOURCE_ROOT CXX GENERATED_INCLUDE (the build's generated/include)
set -uo pipefail
root=$1
cxx=$2
inc=(-I "$3")
source "$(dirname "${BASH_SOURCE[0]}")/public_include_dirs.sh"
for d in "${kleene_include_dirs[@]}"; do
  [ -d "$root/$d" ] && inc+=(-I "$root/$d")
done
flags=(-std=c++20 -fsyntax-only -fopenmp -DKLEENE_HAVE_CUDA=1 "${inc[@]}")
src=$root/tests/compile/mixed_spaces.cpp
log=$(mktemp)
trap 'rm -f "$log"' EXIT

if "$cxx" "${flags[@]}" -DKLEENE_CONTROL "$src" >"$log" 2>&1; then
  echo "control (one memory space) compiles: ok"
else
  echo "FAIL: the control, with every container on the device, does not compile:"
  head -40 "$log"
  exit 1
fi

if "$cxx" "${flags[@]}" "$src" >"$log" 2>&1; then
  echo "FAIL: calls mixing host and device containers compiled"
  exit 1
fi
status=0
for op in mxm mxv ewise_add ewise_mult apply select transpose extract assign reduce kronecker; do
  if grep -q "kleene::$op: the containers of one call live in different memory spaces" "$log"; then
    echo "$op: refused with kleene's message"
  else
    echo "FAIL: $op: no 'kleene::$op: ... different memory spaces' message"
    status=1
  fi
done
# masks(): a device mask over a host output is refused by the same rule (a second mxm message).
if [ "$(grep -c "kleene::mxm: the containers of one call live in different memory spaces" "$log")" -ge 2 ]; then
  echo "device mask over a host output: refused with kleene's message"
else
  echo "FAIL: a device mask over a host output: no message"
  status=1
fi
[ $status -eq 0 ] || { echo "--- compiler output (first 60 lines)"; head -60 "$log"; }
exit $status
