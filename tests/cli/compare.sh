#!/usr/bin/env bash
# kleene compare mxm: agreement with SuiteSparse:GraphBLAS gives exit 0; bad input exit 1.
set -u
K=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# A random 60x60 integer matrix with about 8 entries per row (awk's rand with a fixed seed).
awk 'BEGIN { srand(7); n = 60; m = 0
  for (i = 1; i <= n; i++) for (j = 1; j <= n; j++) if (rand() < 0.13) { r[++m] = i " " j " " int(rand() * 20) - 5 }
  print "%%MatrixMarket matrix coordinate integer general"; print n, n, m; for (k = 1; k <= m; k++) print r[k] }' > "$T/a.mtx"
for s in plus_times min_plus max_plus max_min min_max plus_pair min_first min_second; do
  for t in int32 int64 fp32 fp64; do
    "$K" compare mxm "$T/a.mtx" "$T/a.mtx" -s $s -t $t -q || fail "compare $s $t differs or failed"
  done
done
out=$("$K" compare mxm "$T/a.mtx" "$T/a.mtx" -s min_plus --json) || fail "json exit"
[[ $out == *'"equal": true'* && $out == *'"mismatches": 0'* ]] || fail "json: $out"
"$K" compare mxm "$T/a.mtx" "$T/missing.mtx" -s min_plus 2>/dev/null; [[ $? == 1 ]] || fail "missing file exit"
"$K" compare mxm "$T/a.mtx" "$T/a.mtx" -s plus_min -t int32 -q || fail "plus_min"
"$K" compare 2>/dev/null; [[ $? == 2 ]] || fail "usage exit"
echo "1 passed, 0 failed"
