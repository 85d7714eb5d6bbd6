#!/usr/bin/env bash
# Transitive closure of large sparse graphs from the command line (issue 41, item 1): 100,000
# vertices and one edge in well under a second; ten million vertices and two edges; the
# condensation and the dense method give the same file; --explain names the components, the
# estimate, the output form and the reach method; a result past memory fails before the work with
# its estimate, leaving an existing output file as it was.
set -u
K=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
run() {
  timeout 120 "$@" > "$T/out" 2> "$T/err"
  rc=$?
  [[ $rc != 124 ]] || fail "no answer in 120 s: $*"
  (( rc < 128 )) || fail "killed by signal $((rc - 128)): $*"
}

# ---- one edge among 100,000 vertices: milliseconds, not minutes ----------------------------------
printf '%%%%MatrixMarket matrix coordinate pattern general\n100000 100000 1\n5 77\n' > "$T/one.mtx"
start=$(date +%s%N)
run "$K" closure "$T/one.mtx" -o "$T/r.mtx" --explain
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[[ $rc == 0 ]] || fail "closure of one edge: exit $rc: $(cat "$T/err")"
(( ms < 5000 )) || fail "closure of one edge among 100,000 vertices took $ms ms"
tail -1 "$T/r.mtx" | grep -q "^5 77$" && grep -q "^100000 100000 1$" "$T/r.mtx" ||
  fail "closure of one edge: $(cat "$T/r.mtx")"
for want in "100000 strongly connected components" "exactly 1 pairs" "output as CSR" "reach by"; do
  grep -qF "$want" "$T/err" || fail "--explain lacks '$want': $(cat "$T/err")"
done

# ---- ten million vertices, two edges (1 -> 2 -> 3): three pairs ----------------------------------
printf '%%%%MatrixMarket matrix coordinate pattern general\n10000000 10000000 2\n1 2\n2 3\n' > "$T/huge.mtx"
run "$K" closure "$T/huge.mtx" -q -o "$T/r.mtx"
[[ $rc == 0 ]] || fail "closure of a huge sparse graph: exit $rc: $(cat "$T/err")"
grep -q "^10000000 10000000 3$" "$T/r.mtx" || fail "huge sparse graph: $(cat "$T/r.mtx")"

# ---- the two methods agree (a graph with cycles, a DAG part and self-loops; reflexive too) -------
"$K" generate uniform --vertices 600 --edges 900 --seed 3 --self-loops -q -o "$T/g.mtx" ||
  fail "generate: exit $?"
for flags in "" "--reflexive"; do
  run "$K" closure "$T/g.mtx" $flags --method condensation -q -o "$T/a.mtx"
  [[ $rc == 0 ]] || fail "condensation: $(cat "$T/err")"
  run "$K" closure "$T/g.mtx" $flags --method dense --device cpu -q -o "$T/b.mtx"
  [[ $rc == 0 ]] || fail "dense: $(cat "$T/err")"
  cmp -s "$T/a.mtx" "$T/b.mtx" || fail "condensation and dense differ $flags"
done
# A dense result is held as bits and written a block of rows at a time: the same bytes as the
# CSR writer's (convert reads it and writes it again through that writer).
"$K" generate kronecker --scale 9 -q -o "$T/k.mtx" || fail "generate kronecker: exit $?"
run "$K" closure "$T/k.mtx" -o "$T/a.mtx" --explain
[[ $rc == 0 ]] && grep -qF "output as bits" "$T/err" || fail "kronecker closure: $(cat "$T/err")"
run "$K" convert -q "$T/a.mtx" "$T/b.mtx"
cmp -s "$T/a.mtx" "$T/b.mtx" || fail "the bits writer's file differs from the CSR writer's"
run "$K" closure "$T/g.mtx" --method condensation --device gpu -o "$T/a.mtx"
[[ $rc == 2 ]] || fail "--method condensation --device gpu: exit $rc, expected 2"

# ---- a result past the disk or memory: refused before the work, the size stated, nothing written -
# One cycle through 3,000,000 vertices: 9e12 pairs (at least 131 TiB as a Matrix Market file, 1 TiB
# as bits, 65 TiB as CSR), past any test machine's disk and memory.
awk 'BEGIN { n = 3000000; print "%%MatrixMarket matrix coordinate pattern general";
             print n, n, n; for (v = 1; v <= n; v++) print v, v % n + 1 }' > "$T/cycle.mtx"
echo "keep me" > "$T/kept.mtx"
start=$(date +%s%N)
run "$K" closure "$T/cycle.mtx" -o "$T/kept.mtx"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[[ $rc == 1 ]] || fail "a result past the disk: exit $rc"
grep -qF "closure: the result has 9e+12 pairs (counted): its Matrix Market file needs at least 131.0 TiB, more than the" "$T/err" ||
  fail "the refusal does not state the size: $(cat "$T/err")"
grep -qF "nothing was written" "$T/err" || fail "the refusal does not say nothing was written"
(( ms < 30000 )) || fail "the refusal took $ms ms: it should come before the work"
[[ $(cat "$T/kept.mtx") == "keep me" ]] || fail "the existing output was clobbered"
[[ -z $(find "$T" -name '.*.tmp.*') ]] || fail "a temporary was left"
# To standard output there is no file system to fill: memory refuses it.
run "$K" closure "$T/cycle.mtx" -o -
[[ $rc == 1 ]] || fail "a result past memory: exit $rc"
grep -qF "closure: the closure of this 3000000-vertex graph has 9e+12 pairs (counted): 65.5 TiB as CSR, 1.0 TiB as bits;" "$T/err" ||
  fail "the refusal does not state the sizes: $(cat "$T/err")"
grep -qF "of memory available" "$T/err" || fail "the refusal does not name memory: $(cat "$T/err")"
[[ ! -s $T/out ]] || fail "something was written to standard output"
echo OK
