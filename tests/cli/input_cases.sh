#!/usr/bin/env bash
# The last hostile-input cases (issue 41, item 3): a NUL or control byte in a value is quoted
# escaped, not cut; every command that reads a matrix takes --duplicates, and the duplicate error
# names it; every command reads every format the tool reads (.mtx, .kbin, edge lists, by extension
# or content), and a file it cannot read as Matrix Market gets a message naming the formats.
set -u
K=$1
D=$(cd "$(dirname "$0")/../data/mm" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
compare=true; [[ -n ${KLEENE_TEST_NO_GRAPHBLAS:-} ]] && compare=false

# run CMD...: sets rc; fails on a timeout or a signal.
run() {
  timeout 60 "$@" > "$T/out" 2> "$T/err"
  rc=$?
  [[ $rc != 124 ]] || fail "no answer in 60 s: $*"
  (( rc < 128 )) || fail "killed by signal $((rc - 128)): $*"
}
expect_error() {  # WANT CMD...: exit 1, WANT (fixed string) in the message
  local want=$1
  shift
  run "$@"
  [[ $rc == 1 ]] || fail "exit $rc, expected 1: $*: $(head -c 400 "$T/err")"
  grep -qF -- "$want" "$T/err" || fail "message lacks '$want': $*: $(head -c 400 "$T/err")"
}
expect_ok() {
  run "$@"
  [[ $rc == 0 ]] || fail "exit $rc: $*: $(head -c 400 "$T/err")"
}

# ---- a NUL (and other control bytes) inside a value: quoted escaped, the message whole ----------
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1\0007\n' > "$T/nul.mtx"
want="nul.mtx:4: value '1\\x007' is not a number"
expect_error "$want" "$K" info "$T/nul.mtx"
expect_error "$want" "$K" convert -q "$T/nul.mtx" "$T/o.mtx"
expect_error "$want" "$K" apsp "$T/nul.mtx" -q -o "$T/o.mtx"
expect_error "$want" "$K" sssp "$T/nul.mtx" -s 1 -q -o "$T/o.mtx"
[[ ! -e $T/o.mtx ]] || fail "an output was written for a bad input"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1\033[2J 1 1\n' > "$T/esc.mtx"
expect_error "esc.mtx:3: row index '1\\x1b[2J' is not a non-negative integer" "$K" info "$T/esc.mtx"
printf '1 2\n2 3\0\n' > "$T/nul.el"
expect_error "nul.el:2: target vertex '3\\x00' is not a non-negative integer" "$K" info "$T/nul.el"
printf '%%%%MatrixMarket matrix coordinate re\001al general\n1 1 0\n' > "$T/banner.mtx"
expect_error "unknown field 're\\x01al'" "$K" info "$T/banner.mtx"
# A backslash is doubled, so that an escape in the message is never ambiguous.
printf '%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 \\x00\n' > "$T/bs.mtx"
expect_error "value '\\\\x00' is not a number" "$K" info "$T/bs.mtx"
# Weights checked after reading (NaN) quote through the same escaping.
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 nan\n' > "$T/nan.mtx"
expect_error "nan.mtx:3: value 'nan' is not a finite number" "$K" apsp -q "$T/nan.mtx" -o "$T/o.mtx"

# ---- duplicates: every reading command takes --duplicates; the error says how -------------------
printf '%%%%MatrixMarket matrix coordinate integer general\n3 3 4\n1 2 5\n1 2 7\n2 3 1\n3 1 2\n' > "$T/dup.mtx"
expect_error "dup.mtx:4: duplicate entry (1, 2) (kleene mxm --duplicates sum, min, max or last merges them)" \
  "$K" mxm "$T/dup.mtx" "$T/dup.mtx" -o "$T/c.mtx"
[[ ! -e $T/c.mtx ]] || fail "mxm wrote an output for a refused input"
expect_ok "$K" mxm "$T/dup.mtx" "$T/dup.mtx" --duplicates sum -q -o "$T/c.mtx"
grep -q "^1 3 12$" "$T/c.mtx" || fail "mxm --duplicates sum: (1,3) should be (5+7)*1: $(cat "$T/c.mtx")"
expect_ok "$K" mxm "$T/dup.mtx" "$T/dup.mtx" --duplicates max -q -o "$T/c.mtx"
grep -q "^1 3 7$" "$T/c.mtx" || fail "mxm --duplicates max: $(cat "$T/c.mtx")"
expect_error "(kleene info --duplicates sum, min, max or last merges them)" "$K" info "$T/dup.mtx"
# Shortest paths keep the lightest of parallel edges unless told; error refuses them.
expect_ok "$K" path "$T/dup.mtx" --from 1 --to 2
grep -q "^length: 5$" "$T/out" || fail "path keeps the lightest edge: $(cat "$T/out")"
expect_ok "$K" path "$T/dup.mtx" --from 1 --to 2 --duplicates max
grep -q "^length: 7$" "$T/out" || fail "path --duplicates max: $(cat "$T/out")"
expect_error "(kleene sssp --duplicates sum, min, max or last merges them)" \
  "$K" sssp "$T/dup.mtx" -s 1 -q -o "$T/o.mtx" --duplicates error
for cmd in "apsp -q -o $T/o.mtx" "closure -q -o $T/o.mtx" "bfs -s 1 -q -o $T/o.mtx" "cc -q" \
           "pagerank -q" "bc --sources 1 -q" "convert -q $T/o.mtx"; do
  expect_error "--duplicates sum, min, max or last merges them" "$K" ${cmd%% *} "$T/dup.mtx" \
    ${cmd#* } --duplicates error
  expect_ok "$K" ${cmd%% *} "$T/dup.mtx" ${cmd#* } --duplicates last
done
printf '%%%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n2 1\n2 1\n3 2\n' > "$T/dupsym.mtx"
expect_ok "$K" tc "$T/dupsym.mtx" -q
expect_error "(kleene tc --duplicates" "$K" tc "$T/dupsym.mtx" --duplicates error
if $compare; then
  expect_error "(kleene compare mxm --duplicates sum, min, max or last merges them)" \
    "$K" compare mxm "$T/dup.mtx" "$T/dup.mtx" -q
  expect_ok "$K" compare mxm "$T/dup.mtx" "$T/dup.mtx" --duplicates sum -q
fi

# ---- every command reads every format: .kbin, edge lists, and names that do not say -------------
G=$D/good/karate.mtx
expect_ok "$K" convert -q "$G" "$T/g.kbin"
expect_ok "$K" convert -q "$G" "$T/g.el"
cp "$T/g.kbin" "$T/g.binary"  # a name that does not say: the magic does
cp "$T/g.el" "$T/g.edges"     # a name that does not say: not a banner, not the magic
cp "$G" "$T/g.matrix"         # a name that does not say: the banner does
same_output() {  # CMD-ARGS...: the command's -o output from every form equals the .mtx one's
  local out
  expect_ok "$K" "$@" "$G" -q -o "$T/want.mtx"
  for f in g.kbin g.el g.binary g.edges g.matrix; do
    expect_ok "$K" "$@" "$T/$f" -q -o "$T/got.mtx"
    cmp -s "$T/want.mtx" "$T/got.mtx" || fail "$* $f: a different answer than from the .mtx"
  done
}
same_output apsp
same_output closure
same_output bfs -s 1
same_output sssp -s 1
same_output cc
same_output pagerank
same_output bc --sources 1,34
expect_ok "$K" mxm "$T/g.kbin" "$T/g.el" -s min_plus -q -o "$T/got.mtx"
expect_ok "$K" mxm "$G" "$G" -s min_plus -q -o "$T/want.mtx"
cmp -s "$T/want.mtx" "$T/got.mtx" || fail "mxm of .kbin by .el differs from .mtx by .mtx"
for f in g.kbin g.el g.binary; do
  expect_ok "$K" tc "$T/$f" --json
  grep -q '"triangles": 45' "$T/out" || fail "tc $f: $(cat "$T/out")"
  expect_ok "$K" path "$T/$f" --from 1 --to 30
  grep -q "^length: 3$" "$T/out" || fail "path $f: $(cat "$T/out")"
  expect_ok "$K" info "$T/$f"
done
# --format names it where neither the name nor the content would (an edge list named .mtx).
cp "$T/g.el" "$T/el_named.mtx"
expect_error "el_named.mtx:1: the first line must be '%%MatrixMarket object format field symmetry' (read as Matrix Market because of its extension; kleene also reads its binary .kbin files and edge lists (.el, .txt): kleene apsp --format kbin or el)" \
  "$K" apsp "$T/el_named.mtx" -q -o "$T/o.mtx"
expect_ok "$K" apsp "$T/el_named.mtx" --format el -q -o "$T/got.mtx"
expect_ok "$K" apsp "$G" -q -o "$T/want.mtx"
cmp -s "$T/want.mtx" "$T/got.mtx" || fail "apsp --format el differs"
# Standard input: Matrix Market, or what --format says.
expect_ok "$K" bfs - -s 1 -q -o "$T/got.mtx" --format el < "$T/g.el"
expect_ok "$K" bfs "$G" -s 1 -q -o "$T/want.mtx"
cmp -s "$T/want.mtx" "$T/got.mtx" || fail "bfs of an edge list on stdin differs"
expect_error "read as Matrix Market because of standard input without --format" \
  "$K" bfs - -s 1 -q -o "$T/o.mtx" < "$T/g.el"
run "$K" apsp - --format kbin -o "$T/o.mtx" < "$T/g.kbin"
[[ $rc == 2 ]] && grep -qF "binary (.kbin) input cannot come from stdin" "$T/err" ||
  fail "a .kbin on stdin: exit $rc: $(cat "$T/err")"
# Edge-list conventions are shared too: 0-based ids and undirected edges.
printf '0 1\n1 2\n' > "$T/zero.el"
expect_ok "$K" closure "$T/zero.el" --zero-based --undirected -q -o "$T/got.mtx"
grep -q "^3 3 9$" "$T/got.mtx" || fail "closure of an undirected 0-based path: $(cat "$T/got.mtx")"
echo OK
