#!/usr/bin/env bash
# kleene cc, tc, pagerank and bc end to end (issue 20): known answers on Zachary's karate club
# (1 component, 45 triangles, betweenness of vertex 1 summed over all 34 sources = 2 x networkx's
# 231.0714), .kbin and stdin input, JSON summaries, weak components of a directed file, and bad
# input and options (exit 1 or 2, no output file left).
# Usage: bash graph_kernels.sh /path/to/kleene
set -u
k=$1
data=$(cd "$(dirname "$0")/../data" && pwd)
karate=$data/mm/good/karate.mtx
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_fail() {  # RC PATTERN CMD...
    local want=$1 pat=$2
    shift 2
    local msg rc
    msg=$(timeout 60 "$@" 2>&1 >/dev/null)
    rc=$?
    [[ $rc == "$want" ]] || fail "exit $rc (want $want): $* -> $msg"
    [[ $msg == *"$pat"* ]] || fail "message lacks '$pat': $* -> $msg"
}
json() {  # JSON-TEXT PYTHON-EXPR: prints the expression's value for the parsed object o
    python3 -c 'import json,sys; o=json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"
}

# ---- known answers on karate ----
out=$("$k" tc "$karate" --json) || fail "tc karate"
[[ $(json "$out" 'o["triangles"]') == 45 ]] || fail "tc karate: $out"
for m in fused mxm; do
    for r in always never; do
        out=$("$k" tc "$karate" --method $m --relabel $r --json --device cpu) || fail "tc $m $r"
        [[ $(json "$out" 'o["triangles"]') == 45 ]] || fail "tc $m $r: $out"
    done
done
for m in afforest fastsv; do
    out=$("$k" cc "$karate" --method $m --json -o "$dir/c.mtx") || fail "cc $m"
    [[ $(json "$out" 'o["components"]') == 1 ]] || fail "cc $m: $out"
    # every vertex labelled 1 (the smallest vertex of the one component)
    awk 'NR > 2 && $3 != 1 {bad = 1} END {exit bad}' <(grep -v '^%' "$dir/c.mtx") ||
        fail "cc $m labels"
done
out=$("$k" pagerank "$karate" --method fused --json -o "$dir/r.mtx") || fail "pagerank"
python3 - "$out" "$dir/r.mtx" <<'PY' || fail "pagerank karate: $out"
import json, sys
o = json.loads(sys.argv[1])
# Jacobi, no dangling vertex: the mass is kept, up to the float contributions' rounding (auto at
# the default tolerance: at most d / (1 - d) * 2^-23 = 6.8e-7 in L1).
assert o["converged"] == "yes" and abs(o["sum"] - 1) < 1e-6, o
assert o["top_vertex"] in (1, 34), o  # the two hubs
rows = [l.split() for l in open(sys.argv[2]) if not l.startswith('%')][1:]
assert len(rows) == 34 and abs(sum(float(r[2]) for r in rows) - 1) < 1e-6
PY
out=$("$k" pagerank "$karate" --json -o "$dir/r.mtx") || fail "pagerank"
python3 - "$out" "$dir/r.mtx" <<'PY' || fail "pagerank karate, automatic: $out"
import json, sys
o = json.loads(sys.argv[1])
# Automatic: GAP's in-place pass (the degrees are not skewed). It stops by the same rule; its
# ranks sum to 1 only within d / (1 - d) * tolerance (5.7e-4), the bound of the Jacobi stop too.
assert o["method"] == "gauss-seidel" and o["converged"] == "yes", o
assert abs(o["sum"] - 1) < 0.85 / 0.15 * 1e-4, o
assert o["top_vertex"] in (1, 34), o
rows = [l.split() for l in open(sys.argv[2]) if not l.startswith('%')][1:]
assert len(rows) == 34 and abs(sum(float(r[2]) for r in rows) - o["sum"]) < 1e-6
PY
out=$("$k" pagerank "$karate" --method fused --contributions double --json --explain 2>&1) ||
    fail "pagerank double"
python3 - "$out" <<'PY' || fail "pagerank karate, contributions in double: $out"
import json, sys
text = sys.argv[1]
assert "contributions held in double (pinned)" in text, text
o = json.loads(text[text.index("{"):])
assert abs(o["sum"] - 1) < 1e-12, o
PY
expect_fail 2 "contributions" "$k" pagerank "$karate" --contributions half
expect_fail 2 "contributions" "$k" pagerank "$karate" --contributions ''
# --relaxation: automatic over-relaxes karate (undirected) in fewer steps than none; bad weights
# are refused by the parser (2), a weight on a pass without one by the library (1), and neither
# leaves an output file.
out=$("$k" pagerank "$karate" --json) || fail "pagerank relaxation auto"
plain=$("$k" pagerank "$karate" --relaxation 1 --json) || fail "pagerank relaxation 1"
python3 - "$out" "$plain" <<'PY' || fail "pagerank relaxation: $out / $plain"
import json, sys
a, p = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert a["relaxed_from"] > 0 and a["relaxation"] > 1.3 and a["iterations"] < p["iterations"], (a, p)
assert p["relaxed_from"] == 0 and p["relaxation"] == 1, p
PY
for w in nan inf -1 0.5 2 1e308 '' x; do
    expect_fail 2 "relaxation" "$k" pagerank "$karate" --relaxation "$w" -o "$dir/bad.mtx"
done
expect_fail 1 "applies to the Gauss-Seidel pass" "$k" pagerank "$karate" --method fused \
    --relaxation 1.3 -o "$dir/bad.mtx"
[[ ! -e $dir/bad.mtx ]] || fail "pagerank: a refused --relaxation left an output file"
all=$(seq -s, 1 34)
out=$("$k" bc "$karate" --sources "$all" --json -o "$dir/b.mtx") || fail "bc"
python3 - "$out" "$dir/b.mtx" <<'PY' || fail "bc karate: $out"
import json, sys
o = json.loads(sys.argv[1])
assert o["top_vertex"] == 1 and abs(o["top_score"] - 462.142857) < 1e-3, o
vals = {int(r[0]): float(r[2]) for r in (l.split() for l in open(sys.argv[2]) if not l.startswith('%')) if len(r) == 3}
assert abs(vals[34] - 2 * 160.551587) < 1e-3, vals[34]  # networkx 160.5516 per direction
PY
out=$("$k" bc "$karate" --sources "$all" --method semiring --normalize --json) || fail "bc semiring"
[[ $(json "$out" 'abs(o["top_score"] - 1) < 1e-12') == True ]] || fail "bc --normalize: $out"
out=$("$k" bc "$karate" --sample 4 --seed 7 --json) || fail "bc --sample"
[[ $(json "$out" 'o["sources"]') == 4 ]] || fail "bc --sample: $out"

# ---- other inputs: .kbin, stdin, a directed file (weak components), the empty graph ----
"$k" convert "$karate" "$dir/karate.kbin" -q || fail "convert to kbin"
out=$("$k" cc "$dir/karate.kbin" --json) || fail "cc kbin"
[[ $(json "$out" 'o["components"]') == 1 ]] || fail "cc kbin: $out"
out=$("$k" tc "$dir/karate.kbin" --json) || fail "tc kbin (no symmetry flag: checked)"
[[ $(json "$out" 'o["triangles"]') == 45 ]] || fail "tc kbin: $out"
out=$("$k" tc - --json <"$karate") || fail "tc stdin"
[[ $(json "$out" 'o["triangles"]') == 45 ]] || fail "tc stdin: $out"
# 1 -> 2, 3 -> 2, 4 -> 5, 6 alone: weakly {1,2,3} {4,5} {6}
printf '%%%%MatrixMarket matrix coordinate pattern general\n6 6 3\n1 2\n3 2\n4 5\n' >"$dir/d.mtx"
out=$("$k" cc "$dir/d.mtx" --json -o "$dir/dc.mtx") || fail "cc directed"
[[ $(json "$out" 'o["components"]') == 3 ]] || fail "cc directed: $out"
[[ $(grep -v '^%' "$dir/dc.mtx" | awk 'NR > 1 {printf "%s ", $3}') == "1 1 1 4 4 6 " ]] ||
    fail "cc directed labels: $(cat "$dir/dc.mtx")"
expect_fail 1 "symmetric" "$k" tc "$dir/d.mtx"
printf '%%%%MatrixMarket matrix coordinate pattern symmetric\n0 0 0\n' >"$dir/empty.mtx"
for c in cc tc pagerank; do
    "$k" $c "$dir/empty.mtx" --json >/dev/null || fail "$c on the empty graph"
done
expect_fail 1 "not in 1..0" "$k" bc "$dir/empty.mtx" --sources 1

# ---- bad input and options ----
expect_fail 1 "" "$k" cc "$dir/missing.mtx"
printf '%%%%MatrixMarket matrix coordinate pattern general\n2 3 1\n1 2\n' >"$dir/rect.mtx"
for c in cc tc pagerank; do
    expect_fail 1 "square" "$k" $c "$dir/rect.mtx" -q
done
expect_fail 2 "damping" "$k" pagerank "$karate" --damping 1
expect_fail 2 "damping" "$k" pagerank "$karate" --damping nan
expect_fail 2 "tolerance" "$k" pagerank "$karate" --tolerance 0
expect_fail 2 "max-iterations" "$k" pagerank "$karate" --max-iterations 0
expect_fail 2 "--sources or --sample" "$k" bc "$karate"
expect_fail 2 "--sources" "$k" bc "$karate" --sources 1,x
expect_fail 1 "source 35 is not in 1..34" "$k" bc "$karate" --sources 1,35 -o "$dir/bad.mtx"
[[ ! -e $dir/bad.mtx ]] || fail "bc left an output after an error"
expect_fail 1 "only 34 vertices" "$k" bc "$karate" --sample 35
expect_fail 2 "method" "$k" cc "$karate" --method bogus
expect_fail 2 "standard output" "$k" cc "$karate" --json -o -
# a non-converging run still writes its ranks and warns
msg=$("$k" pagerank "$karate" --max-iterations 2 --tolerance 1e-12 -q 2>&1 >/dev/null) ||
    fail "pagerank max-iterations"
[[ $msg == *"did not reach the tolerance"* ]] || fail "no warning: $msg"
echo "graph kernels: ok"
