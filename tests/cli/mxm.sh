#!/usr/bin/env bash
# kleene mxm end to end: a known min.+ product, exit codes, and no output file on failure.
set -u
K=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat > "$T/a.mtx" <<'MTX'
%%MatrixMarket matrix coordinate real general
3 3 4
1 2 1.5
1 3 4
2 3 2
3 1 0.5
MTX
"$K" mxm "$T/a.mtx" "$T/a.mtx" --semiring min_plus --type fp64 --output "$T/c.mtx" -q || fail "mxm exit $?"
# (1,1) = 4 + 0.5 = 4.5; (1,3) = 1.5 + 2 = 3.5; (2,1) = 2 + 0.5 = 2.5; (3,2) = 0.5 + 1.5 = 2; (3,3) = 0.5 + 4 = 4.5
for line in "1 1 4.5" "1 3 3.5" "2 1 2.5" "3 2 2" "3 3 4.5"; do
  grep -qx "$line" "$T/c.mtx" || fail "missing entry '$line' in $(cat "$T/c.mtx")"
done
grep -q "^3 3 5$" "$T/c.mtx" || fail "size line: $(grep -v '^%' "$T/c.mtx" | head -1)"
"$K" mxm "$T/a.mtx" "$T/a.mtx" -s plus_times -o - -q | grep -qx "1 3 3" || fail "plus_times to stdout"
"$K" mxm "$T/a.mtx" "$T/a.mtx" -s min_plus -o "$T/e.mtx" --explain -q 2> "$T/why" || fail "explain"
grep -q "gustavson" "$T/why" || fail "explain names the kernel: $(cat "$T/why")"

# A shape mismatch is invalid input: exit 1, both shapes named, no output file.
printf '%%%%MatrixMarket matrix coordinate real general\n2 4 1\n1 1 1\n' > "$T/b.mtx"
"$K" mxm "$T/b.mtx" "$T/b.mtx" -s min_plus -o "$T/bad.mtx" 2> "$T/err"; rc=$?
[[ $rc == 1 ]] || fail "mismatch exit $rc"
grep -q "2x4" "$T/err" || fail "mismatch message: $(cat "$T/err")"
[[ ! -e $T/bad.mtx ]] || fail "partial output written"
msg=$("$K" mxm "$T/a.mtx" "$T/a.mtx" -s no_such -o "$T/x.mtx" 2>&1); rc=$?
[[ $rc == 2 && $msg == *"--semiring: 'no_such'"* ]] || fail "unknown semiring: a usage error ($rc: $msg)"
"$K" mxm "$T/a.mtx" 2>/dev/null; [[ $? == 2 ]] || fail "usage exit"
echo "1 passed, 0 failed"
