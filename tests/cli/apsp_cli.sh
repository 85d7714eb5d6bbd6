#!/usr/bin/env bash
# kleene apsp / closure / path end to end: distances, exit codes, the negative-cycle message, and
# no output file on error.  Usage: bash apsp_cli.sh /path/to/kleene
set -u
k=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

printf '%%%%MatrixMarket matrix coordinate integer general\n4 4 4\n1 2 3\n2 3 -1\n3 1 2\n1 3 5\n' >"$dir/g.mtx"
"$k" apsp "$dir/g.mtx" --output "$dir/d.mtx" --paths "$dir/p.mtx" -q || fail "apsp exit $?"
grep -q '^4 4 10$' "$dir/d.mtx" || fail "expected 10 reachable pairs"
grep -q '^1 3 2$' "$dir/d.mtx" || fail "d(1,3) should be 2"
grep -q '^4 4 0$' "$dir/d.mtx" || fail "isolated vertex keeps (4,4) = 0"
for alg in rkleene blocked-fw fw johnson; do
    "$k" apsp "$dir/g.mtx" --output "$dir/d_$alg.mtx" --algorithm "$alg" --device cpu -q || fail "$alg"
    diff <(tail -n +3 "$dir/d.mtx") <(tail -n +3 "$dir/d_$alg.mtx") >/dev/null || fail "$alg differs"
done
out=$("$k" path "$dir/g.mtx" --from 1 --to 3) || fail "path exit"
[[ $out == *"path: 1 2 3"* && $out == *"length: 2"* ]] || fail "path output: $out"

printf '%%%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 1\n2 3 -1.5\n3 1 -1\n' >"$dir/n.mtx"
msg=$("$k" apsp "$dir/n.mtx" --output "$dir/nd.mtx" 2>&1)
rc=$?
[[ $rc == 1 ]] || fail "negative cycle exit $rc"
[[ $msg == *"negative cycle"* ]] || fail "message: $msg"
[[ ! -e $dir/nd.mtx ]] || fail "output written despite the error"

printf '%%%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n2 1\n' >"$dir/s.mtx"
"$k" apsp "$dir/s.mtx" --output "$dir/sd.mtx" -q || fail "symmetric apsp"
grep -q '^1 2 1$' "$dir/sd.mtx" && grep -q '^2 1 1$' "$dir/sd.mtx" || fail "undirected pattern"
"$k" closure "$dir/s.mtx" --output "$dir/c.mtx" -q || fail "closure"
grep -q '^3 3 4$' "$dir/c.mtx" || fail "closure of one undirected edge has 4 pairs"
"$k" closure "$dir/s.mtx" --output "$dir/cr.mtx" --reflexive -q || fail "closure --reflexive"
grep -q '^3 3 5$' "$dir/cr.mtx" || fail "reflexive closure has 5 pairs"
# --local-blocks (distributed GPU runs only): bad values are usage errors (exit 2); a valid one
# without mpirun is refused too; an existing output file stays as it was either way.
echo keep >"$dir/old.mtx"
for cmd in apsp closure; do
    for v in bogus '' STREAMED 'streamed ' -1 streamed device; do
        msg=$("$k" $cmd "$dir/g.mtx" --output "$dir/old.mtx" --local-blocks "$v" -q 2>&1)
        rc=$?
        [[ $rc == 2 ]] || fail "$cmd --local-blocks '$v': exit $rc, not 2 ($msg)"
        [[ $msg == *"--local-blocks"* ]] || fail "$cmd --local-blocks '$v': message: $msg"
        [[ $(cat "$dir/old.mtx") == keep ]] || fail "$cmd --local-blocks '$v' touched the output"
    done
done
echo "apsp cli: ok"
