#!/usr/bin/env bash
# Usage: oracle_imports.sh BINARY GrB_NAME...: the binary imports every named GraphBLAS function, so
# a test that claims to compare with SuiteSparse:GraphBLAS links the operations it compares with (a
# test whose oracle silently ran kleene would not; see also test_oracle_calls).
set -u
bin=$1
shift
command -v nm >/dev/null || { echo "FAIL: nm (binutils) is needed"; exit 1; }
imports=$(nm -D "$bin" | awk '$1 == "U" { print $2 }')
missing=0
for f in "$@"; do
  grep -qx "$f" <<<"$imports" || { echo "FAIL: $(basename "$bin") does not import $f"; missing=1; }
done
[[ $missing == 0 ]] && echo "$(basename "$bin") imports $#/$# GraphBLAS operations: $*"
exit $missing
