#!/usr/bin/env bash
# Registered only when kleene is built without SuiteSparse:GraphBLAS (KLEENE_GRAPHBLAS=OFF or not
# found): `kleene compare` is still a command, and every use of it fails with exit 1 and a message
# that says what is missing and how to enable it, without reading its inputs.
set -u
K=$1
D=$(cd "$(dirname "$0")/../data/mm" && pwd)
fail() { echo "FAIL: $*"; exit 1; }

"$K" --help | grep -q "compare" || fail "kleene --help does not list compare"
for args in "compare" "compare mxm $D/good/symmetric.mtx $D/good/symmetric.mtx" \
            "compare transpose /nonexistent.mtx" "compare bogus --rel-tol -1"; do
  # shellcheck disable=SC2086
  msg=$("$K" $args 2>&1)
  rc=$?
  [[ $rc == 1 ]] || fail "kleene $args: exit $rc, want 1: $msg"
  for want in "built without SuiteSparse:GraphBLAS" "libgraphblas-dev" "-DKLEENE_GRAPHBLAS=ON"; do
    [[ $msg == *"$want"* ]] || fail "kleene $args: the message does not say \"$want\": $msg"
  done
  [[ $msg != *"cannot open"* ]] || fail "kleene $args: read its input: $msg"
done
echo "kleene compare (not built in): exit 1 and says how to enable it"
