#!/usr/bin/env bash
# kleene compare: every subcommand runs SuiteSparse:GraphBLAS (the binary imports the GrB functions,
# and a case where the libraries are known to differ is reported as different); agreement gives
# exit 0, a difference or bad input exit 1, a usage error exit 2.
set -u
K=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The program imports the GraphBLAS operations it claims to run (a kleene-only build would not).
if command -v nm >/dev/null; then
  imports=$(nm -D "$K" | awk '$1 == "U" { print $2 }')
  for f in GrB_mxm GrB_mxv GrB_vxm GrB_Matrix_eWiseAdd_BinaryOp GrB_Matrix_eWiseMult_BinaryOp \
           GrB_Matrix_reduce_Monoid GrB_Matrix_reduce_INT64 GrB_Matrix_reduce_FP64 GrB_transpose; do
    grep -qx "$f" <<<"$imports" || fail "kleene does not import $f"
  done
else
  fail "nm (binutils) is needed to check the imports"
fi

# A random 60x60 integer matrix with about 8 entries per row (awk's rand with a fixed seed), a
# vector, and a second matrix of the same shape.
gen() {
  awk -v seed="$1" -v n="$2" -v m1="$3" 'BEGIN { srand(seed); m = 0
    for (i = 1; i <= n; i++) for (j = 1; j <= m1; j++) if (rand() < 0.13) { r[++m] = i " " j " " int(rand() * 20) - 5 }
    print "%%MatrixMarket matrix coordinate integer general"; print n, m1, m; for (k = 1; k <= m; k++) print r[k] }'
}
gen 7 60 60 > "$T/a.mtx"
gen 8 60 60 > "$T/b.mtx"
awk 'BEGIN { srand(9); n = 60; m = 0
  for (i = 1; i <= n; i++) if (rand() < 0.4) { r[++m] = i " 1 " int(rand() * 9) + 1 }
  print "%%MatrixMarket matrix coordinate integer general"; print n, 1, m; for (k = 1; k <= m; k++) print r[k] }' > "$T/u.mtx"

# KLEENE_INSTANCES=minimal (KLEENE_TEST_INSTANCES) builds the command line's products for plus_times
# and min_plus (lor_land over bool) only; the C++ suites compare every semiring with SuiteSparse.
# The others must say how to get them.
semirings="plus_times min_plus max_plus max_min min_max plus_pair min_first min_second"
if [[ ${KLEENE_TEST_INSTANCES:-builtin} == minimal ]]; then
  semirings="plus_times min_plus"
  for s in max_plus plus_min; do
    out=$("$K" compare mxm "$T/a.mtx" "$T/a.mtx" -s $s -t int32 2>&1); rc=$?
    [[ $rc == 1 && $out == *"semiring $s over int32 is not compiled into the command line"* &&
       $out == *"-DKLEENE_INSTANCES=builtin"* ]] || fail "$s not built: exit $rc: $out"
  done
fi
for s in $semirings; do
  for t in int32 int64 fp32 fp64; do
    "$K" compare mxm "$T/a.mtx" "$T/a.mtx" -s $s -t $t -q || fail "compare mxm $s $t differs or failed"
    "$K" compare mxv "$T/a.mtx" "$T/u.mtx" -s $s -t $t -q || fail "compare mxv $s $t"
    "$K" compare vxm "$T/u.mtx" "$T/a.mtx" -s $s -t $t -q || fail "compare vxm $s $t"
  done
done
awk 'NR == 1 { print "%%MatrixMarket matrix coordinate pattern general"; next } NR == 2 { print; next } { print $1, $2 }' "$T/a.mtx" > "$T/p.mtx"
"$K" compare mxm "$T/p.mtx" "$T/p.mtx" -s lor_land -t bool -q || fail "lor_land bool"
[[ $semirings == *max_plus* ]] &&
  { "$K" compare mxm "$T/p.mtx" "$T/p.mtx" -s any_pair -t bool -q || fail "any_pair bool"; }
for op in plus times min max first second pair; do
  for t in int32 fp64; do
    "$K" compare ewise-add "$T/a.mtx" "$T/b.mtx" --op $op -t $t -q || fail "ewise-add $op $t"
    "$K" compare ewise-mult "$T/a.mtx" "$T/b.mtx" --op $op -t $t -q || fail "ewise-mult $op $t"
  done
done
for m in plus times min max; do
  for t in int64 fp64; do
    "$K" compare reduce "$T/a.mtx" --monoid $m -t $t -q || fail "reduce rows $m $t"
    "$K" compare reduce "$T/a.mtx" --monoid $m -t $t --columns -q || fail "reduce columns $m $t"
    "$K" compare reduce "$T/a.mtx" --monoid $m -t $t --scalar -q || fail "reduce scalar $m $t"
  done
done
"$K" compare reduce "$T/p.mtx" --monoid lor -t bool -q || fail "reduce lor bool"
"$K" compare ewise-add "$T/p.mtx" "$T/p.mtx" --op land -t bool -q || fail "ewise-add land bool"
"$K" compare transpose "$T/a.mtx" -q || fail "transpose"
"$K" compare transpose "$T/a.mtx" -t fp32 -q || fail "transpose fp32"
for s in 1 17 60; do
  "$K" compare bfs "$T/a.mtx" --source $s -q || fail "bfs from $s"
  "$K" compare bfs "$T/a.mtx" --source $s --parents -q || fail "bfs parents from $s"
done

# --json: one object with both timings and the verdict, for every subcommand.
out=$("$K" compare mxm "$T/a.mtx" "$T/a.mtx" -s min_plus --json) || fail "json exit"
[[ $out == *'"equal": true'* && $out == *'"mismatches": 0'* && $out == *'"graphblas_ms"'* &&
   $out == *'"kleene_ms"'* && $out == *'SuiteSparse:GraphBLAS'* ]] || fail "json: $out"
for cmd in "mxv $T/a.mtx $T/u.mtx" "vxm $T/u.mtx $T/a.mtx" "ewise-add $T/a.mtx $T/b.mtx" \
           "ewise-mult $T/a.mtx $T/b.mtx" "reduce $T/a.mtx" "transpose $T/a.mtx" "bfs $T/a.mtx --source 3"; do
  out=$("$K" compare $cmd --json) || fail "json exit of $cmd"
  if command -v python3 >/dev/null; then
    python3 -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["equal"] is True' "$out" ||
      fail "json of $cmd does not parse: $out"
  fi
done

# The example SuiteSparse and kleene disagree on: int32 min_plus, 2e9 + 2e9. SuiteSparse wraps to
# -294967296, kleene saturates to its infinity. Both values are shown and the exit code is 1.
printf '%%%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 2000000000\n2 3 2000000000\n' > "$T/big.mtx"
out=$("$K" compare mxm "$T/big.mtx" "$T/big.mtx" -s min_plus -t int32 2>&1); rc=$?
[[ $rc == 1 ]] || fail "int32 overflow: exit $rc, want 1: $out"
[[ $out == *'(1, 3): kleene 2147483647, SuiteSparse -294967296'* ]] || fail "int32 overflow: $out"
out=$("$K" compare mxm "$T/big.mtx" "$T/big.mtx" -s min_plus -t int32 --json 2>/dev/null); rc=$?
[[ $rc == 1 && $out == *'"equal": false'* && $out == *'"graphblas": "-294967296"'* ]] ||
  fail "int32 overflow json: $rc $out"
# The same in int64 agrees.
"$K" compare mxm "$T/big.mtx" "$T/big.mtx" -s min_plus -t int64 -q || fail "int64 agrees"

# Bad input: exit 1 with a message; usage errors: exit 2 before any input is read.
"$K" compare mxm "$T/a.mtx" "$T/missing.mtx" -s min_plus 2>/dev/null; [[ $? == 1 ]] || fail "missing file exit"
gen 3 5 4 > "$T/r.mtx"
"$K" compare mxm "$T/r.mtx" "$T/r.mtx" 2>/dev/null; [[ $? == 1 ]] || fail "shape mismatch exit"
"$K" compare ewise-add "$T/a.mtx" "$T/r.mtx" 2>/dev/null; [[ $? == 1 ]] || fail "ewise shape exit"
"$K" compare bfs "$T/a.mtx" --source 61 2>/dev/null; [[ $? == 1 ]] || fail "bfs source past n"
[[ $semirings == *max_plus* ]] &&
  { "$K" compare mxm "$T/a.mtx" "$T/a.mtx" -s plus_min -t int32 -q || fail "plus_min"; }
"$K" compare 2>/dev/null; [[ $? == 2 ]] || fail "usage exit"
"$K" compare mxm "$T/missing.mtx" "$T/missing.mtx" -s bogus 2>/dev/null; [[ $? == 2 ]] || fail "-s bogus"
"$K" compare mxm "$T/missing.mtx" "$T/missing.mtx" -t bogus 2>/dev/null; [[ $? == 2 ]] || fail "-t bogus"
"$K" compare ewise-add "$T/missing.mtx" "$T/missing.mtx" --op bogus 2>/dev/null; [[ $? == 2 ]] || fail "--op bogus"
"$K" compare mxm "$T/missing.mtx" "$T/missing.mtx" --rel-tol -1 2>/dev/null; [[ $? == 2 ]] || fail "--rel-tol -1"
"$K" compare bfs "$T/missing.mtx" --source 0 2>/dev/null; [[ $? == 2 ]] || fail "--source 0"
"$K" compare reduce "$T/missing.mtx" --columns --scalar 2>/dev/null; [[ $? == 2 ]] || fail "--columns --scalar"
echo "1 passed, 0 failed"
