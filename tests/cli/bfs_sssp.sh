#!/usr/bin/env bash
# kleene bfs / sssp / generate end to end: hand-checked small graphs, generated graphs checked
# against BFS and Dijkstra written in awk here, generator determinism, exit codes, and no output
# file on error.  Usage: bash bfs_sssp.sh /path/to/kleene
set -u
k=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export KLEENE_PROGRESS=never

# awk reference: reads a coordinate .mtx graph (symmetric: both directions; pattern: weight 1) and
# prints "vertex value" for every vertex reached from the 1-based source, sorted by vertex: BFS
# levels (mode=bfs) or Dijkstra distances (mode=sssp, non-negative weights).
reference() {  # mode file source
    awk -v mode="$1" -v src="$3" '
        /^%%MatrixMarket/ { sym = ($5 == "symmetric"); pat = ($4 == "pattern"); next }
        /^%/ { next }
        !sized { n = $1; sized = 1; next }
        { w = pat ? 1 : $3; add($1, $2, w); if (sym && $1 != $2) add($2, $1, w) }
        function add(i, j, w) { deg[i]++; nb[i, deg[i]] = j; wt[i, deg[i]] = w }
        END {
            for (v = 1; v <= n; v++) d[v] = -1
            d[src] = 0
            if (mode == "bfs") {
                q[1] = src; h = 1; t = 1
                while (h <= t) { u = q[h++]; for (e = 1; e <= deg[u]; e++) { v = nb[u, e]; if (d[v] < 0) { d[v] = d[u] + 1; q[++t] = v } } }
            } else {
                while (1) {
                    u = 0
                    for (v = 1; v <= n; v++) if (d[v] >= 0 && !done[v] && (u == 0 || d[v] < d[u])) u = v
                    if (u == 0) break
                    done[u] = 1
                    for (e = 1; e <= deg[u]; e++) { v = nb[u, e]; c = d[u] + wt[u, e]; if (d[v] < 0 || c < d[v]) d[v] = c }
                }
            }
            for (v = 1; v <= n; v++) if (d[v] >= 0) print v, d[v]
        }' "$2"
}
# "vertex value" lines of a kleene n x 1 vector file.
entries() { awk '/^%/ { next } !sized { sized = 1; next } { print $1, $3 }' "$1" | sort -n; }

# ---- bfs on a hand-checked directed graph: 1->2, 1->3, 2->4, 3->4, 4->1; 5 isolated ------------
printf '%%%%MatrixMarket matrix coordinate pattern general\n5 5 5\n1 2\n1 3\n2 4\n3 4\n4 1\n' >"$dir/d.mtx"
"$k" bfs "$dir/d.mtx" --source 1 --output "$dir/l.mtx" -q || fail "bfs exit $?"
grep -q '^5 1 4$' "$dir/l.mtx" || fail "4 vertices reached, 5 absent"
[[ $(entries "$dir/l.mtx" | tr '\n' ' ') == "1 0 2 1 3 1 4 2 " ]] || fail "levels: $(entries "$dir/l.mtx")"
"$k" bfs "$dir/d.mtx" --source 4 --output "$dir/p.mtx" --parents -q || fail "bfs --parents exit $?"
[[ $(entries "$dir/p.mtx" | tr '\n' ' ') == "1 4 2 1 3 1 4 4 " ]] || fail "parents: $(entries "$dir/p.mtx")"
for dirn in push pull auto; do
    "$k" bfs "$dir/d.mtx" -s 1 -o "$dir/l_$dirn.mtx" --direction "$dirn" --device cpu -q || fail "$dirn"
    cmp -s "$dir/l.mtx" "$dir/l_$dirn.mtx" || fail "--direction $dirn differs"
done
# A symmetric pattern file is undirected: one stored edge (2, 1) joins 1 and 2 both ways.
printf '%%%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n2 1\n' >"$dir/s.mtx"
"$k" bfs "$dir/s.mtx" -s 1 -o "$dir/sl.mtx" -q || fail "symmetric bfs"
[[ $(entries "$dir/sl.mtx" | tr '\n' ' ') == "1 0 2 1 " ]] || fail "undirected levels"

# ---- generated graphs against the awk references -----------------------------------------------
"$k" generate kronecker --scale 7 --edge-factor 4 --seed 3 --undirected -o "$dir/kron.mtx" -q || fail "generate kronecker"
head -1 "$dir/kron.mtx" | grep -q 'pattern symmetric' || fail "undirected pattern file"
awk '/^%/ { next } !s { s = 1; next } $1 == $2 { exit 1 }' "$dir/kron.mtx" || fail "self-loop written"
src=$(awk '/^%/ { next } !s { s = 1; next } { print $1; exit }' "$dir/kron.mtx")
"$k" bfs "$dir/kron.mtx" -s "$src" -o "$dir/kl.mtx" -q || fail "bfs on kronecker"
diff <(entries "$dir/kl.mtx") <(reference bfs "$dir/kron.mtx" "$src") >/dev/null || fail "kronecker levels differ from the reference"
# Parents: the source is its own; every other parent is adjacent and one level up.
"$k" bfs "$dir/kron.mtx" -s "$src" -o "$dir/kp.mtx" --parents -q || fail "bfs --parents on kronecker"
awk -v src="$src" '
    FNR == 1 { f++ }
    /^%/ { next }
    !sized[f] { sized[f] = 1; next }
    f == 1 { e[$1, $2] = 1; e[$2, $1] = 1; next }
    f == 2 { lv[$1] = $3; next }
    f == 3 { if ($1 == src) { if ($3 != src) bad++ } else if (!e[$3, $1] || lv[$3] != lv[$1] - 1) bad++ }
    END { exit bad > 0 }' "$dir/kron.mtx" "$dir/kl.mtx" "$dir/kp.mtx" || fail "a parent is not a BFS parent"

"$k" generate uniform --vertices 60 --edges 300 --seed 4 --weights 0,20 -o "$dir/u.mtx" -q || fail "generate uniform"
grep -q '^60 60 300$' "$dir/u.mtx" || fail "uniform: 300 distinct edges"
head -1 "$dir/u.mtx" | grep -q 'integer general' || fail "integer weights"
for m in auto bellman-ford delta-stepping; do
    "$k" sssp "$dir/u.mtx" -s 2 -o "$dir/ud_$m.mtx" --method "$m" -q || fail "sssp --method $m"
    diff <(entries "$dir/ud_$m.mtx") <(reference sssp "$dir/u.mtx" 2) >/dev/null || fail "sssp $m differs from Dijkstra"
done
"$k" sssp "$dir/u.mtx" -s 2 -o "$dir/ud_delta.mtx" --method delta-stepping --delta 0.5 -q || fail "--delta"
cmp -s "$dir/ud_auto.mtx" "$dir/ud_delta.mtx" || fail "--delta 0.5 differs"

# ---- generator determinism ------------------------------------------------------------------------
OMP_NUM_THREADS=1 "$k" generate kronecker --scale 9 --weights 1,100 --seed 7 -o "$dir/g1.mtx" -q || fail "gen 1 thread"
OMP_NUM_THREADS=3 "$k" generate kronecker --scale 9 --weights 1,100 --seed 7 -o "$dir/g3.mtx" -q || fail "gen 3 threads"
cmp -s "$dir/g1.mtx" "$dir/g3.mtx" || fail "thread count changed the graph"
"$k" generate kronecker --scale 9 --weights 1,100 --seed 8 -o "$dir/g8.mtx" -q || fail "gen seed 8"
cmp -s "$dir/g1.mtx" "$dir/g8.mtx" && fail "another seed gave the same graph"
"$k" generate uniform --vertices 5 --edges 21 -o "$dir/too_many.mtx" 2>/dev/null
[[ $? == 1 && ! -e $dir/too_many.mtx ]] || fail "21 edges on 5 vertices: exit 1, no file"

# ---- sssp: negative edges, negative cycle ---------------------------------------------------------
printf '%%%%MatrixMarket matrix coordinate integer general\n4 4 4\n1 2 4\n1 3 1\n3 2 -2\n2 4 1\n' >"$dir/neg.mtx"
"$k" sssp "$dir/neg.mtx" -s 1 -o "$dir/nd.mtx" -q || fail "negative edge exit $?"
[[ $(entries "$dir/nd.mtx" | tr '\n' ' ') == "1 0 2 -1 3 1 4 0 " ]] || fail "negative-edge distances: $(entries "$dir/nd.mtx")"
msg=$("$k" sssp "$dir/neg.mtx" -s 1 -o "$dir/nd2.mtx" --method delta-stepping 2>&1)
[[ $? == 1 && $msg == *"non-negative"* && ! -e $dir/nd2.mtx ]] || fail "delta-stepping with a negative weight: $msg"
msg=$("$k" sssp "$dir/neg.mtx" -s 1 -o "$dir/nd3.mtx" --method async 2>&1)
[[ $? == 1 && $msg == *"non-negative"* && ! -e $dir/nd3.mtx ]] || fail "async with a negative weight: $msg"
msg=$("$k" sssp "$dir/u.mtx" -s 2 -o "$dir/ua.mtx" --method async --device cpu 2>&1)
[[ $? == 1 && $msg == *"GPU only"* && ! -e $dir/ua.mtx ]] || fail "async on the CPU: $msg"
# The work list's input checks come first, whatever the device: NaN and out-of-range weights.
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 nan\n2 3 2\n' >"$dir/nan.mtx"
msg=$("$k" sssp "$dir/nan.mtx" -s 1 -o "$dir/na.mtx" --method async 2>&1)
[[ $? == 1 && $msg == *"not a finite number"* && ! -e $dir/na.mtx ]] || fail "async, NaN: $msg"
printf '%%%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 99999999999\n' >"$dir/big.mtx"
msg=$("$k" sssp "$dir/big.mtx" -s 1 -o "$dir/ba.mtx" --method async -t int32 2>&1)
[[ $? == 1 && $msg == *"does not fit"* && ! -e $dir/ba.mtx ]] || fail "async, int32 overflow: $msg"
printf '%%%%MatrixMarket matrix coordinate real general\n4 4 4\n1 2 1\n2 3 -1.5\n3 2 1\n3 4 1\n' >"$dir/cyc.mtx"
msg=$("$k" sssp "$dir/cyc.mtx" -s 1 -o "$dir/cd.mtx" 2>&1)
[[ $? == 1 && $msg == *"negative cycle through vertex "[23]" "* && ! -e $dir/cd.mtx ]] || fail "negative cycle: $msg"

# ---- usage and input errors: exit codes, messages, no output file --------------------------------
"$k" bfs "$dir/missing.mtx" -s 1 -o "$dir/e1.mtx" 2>/dev/null
[[ $? == 1 && ! -e $dir/e1.mtx ]] || fail "missing file"
for s in 0 6 -1; do
    msg=$("$k" bfs "$dir/d.mtx" -s "$s" -o "$dir/e2.mtx" 2>&1)
    [[ $? == 1 && $msg == *"not in 1..5"* && ! -e $dir/e2.mtx ]] || fail "bfs source $s: $msg"
    "$k" sssp "$dir/neg.mtx" -s "$s" -o "$dir/e3.mtx" 2>/dev/null
    [[ $? == 1 && ! -e $dir/e3.mtx ]] || fail "sssp source $s"
done
"$k" bfs "$dir/d.mtx" -o "$dir/e4.mtx" 2>/dev/null
[[ $? == 2 && ! -e $dir/e4.mtx ]] || fail "no --source: usage"
"$k" bfs "$dir/d.mtx" -s 1 -o "$dir/e5.mtx" --direction sideways 2>/dev/null
[[ $? == 2 ]] || fail "bad --direction: usage"
"$k" sssp "$dir/neg.mtx" -s 1 -o "$dir/e6.mtx" --method dijkstra 2>/dev/null
[[ $? == 2 ]] || fail "bad --method: usage"
"$k" generate kronecker --scale 4 --weights 5 -o "$dir/e7.mtx" 2>/dev/null
[[ $? == 2 && ! -e $dir/e7.mtx ]] || fail "bad --weights: usage"
"$k" generate 2>/dev/null
[[ $? == 2 ]] || fail "generate without a kind: usage"
printf '%%%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 3\n' >"$dir/bad.mtx"
"$k" bfs "$dir/bad.mtx" -s 1 -o "$dir/e8.mtx" 2>/dev/null
[[ $? == 1 && ! -e $dir/e8.mtx ]] || fail "index out of range"
# --device gpu: runs on a GPU, or fails (exit 1) naming the missing device; never a CPU fallback.
msg=$("$k" bfs "$dir/d.mtx" -s 1 -o "$dir/gpu.mtx" --device gpu -q 2>&1)
rc=$?
if [[ $rc == 0 ]]; then
    cmp -s "$dir/l.mtx" "$dir/gpu.mtx" || fail "gpu levels differ"
else
    [[ $rc == 1 && $msg == *"CUDA"* && ! -e $dir/gpu.mtx ]] || fail "--device gpu without a GPU: $msg"
fi
echo "bfs/sssp/generate cli: ok"
