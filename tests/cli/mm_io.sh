#!/usr/bin/env bash
# kleene info / convert end to end: exit codes, messages naming file and line, output files.
set -u
K=$1
D=$(cd "$(dirname "$0")/../data/mm" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

out=$("$K" info "$D/good/symmetric.mtx" --json) || fail "info exit $?"
for kv in '"rows": 3' '"cols": 3' '"entries": 5' '"file_entries": 3' '"field": "real"' \
          '"symmetry": "symmetric"' '"format": "coordinate"'; do
  [[ $out == *"$kv"* ]] || fail "info --json lacks $kv: $out"
done
"$K" info "$D/good/pattern.mtx" | grep -q "pattern" || fail "info text"
"$K" info - --json < "$D/good/skew.mtx" | grep -q '"entries": 4' || fail "info stdin"

# Invalid input: exit 1, message with file:line.
"$K" info "$D/bad/index_out_of_range-4-past.mtx" 2> "$T/err"; rc=$?
[[ $rc == 1 ]] || fail "bad file exit $rc"
grep -q "index_out_of_range-4-past.mtx:4: column index 4" "$T/err" || fail "message: $(cat "$T/err")"
"$K" info "$D/bad/unsupported-1-complex.mtx" 2> "$T/err"; [[ $? == 1 ]] || fail "complex exit"
grep -q "complex values are not supported" "$T/err" || fail "complex message"
"$K" info "$D/bad/duplicate_entry-4.mtx" 2>/dev/null; [[ $? == 1 ]] || fail "duplicate exit"
"$K" info "$D/bad/duplicate_entry-4.mtx" --duplicates sum > /dev/null || fail "--duplicates sum"
"$K" info "$T/missing.mtx" 2>/dev/null; [[ $? == 1 ]] || fail "missing file exit"

# Usage errors: exit 2.
"$K" info 2>/dev/null; [[ $? == 2 ]] || fail "no argument exit"
"$K" info "$D/good/symmetric.mtx" --duplicates often 2>/dev/null; [[ $? == 2 ]] || fail "bad policy"
"$K" convert "$D/good/symmetric.mtx" "$T/x.unknown" 2>/dev/null; [[ $? == 2 ]] || fail "bad ext"
"$K" convert --help | grep -q "kbin" || fail "--help"

# Conversions round trip; symmetry is kept; binary and edge lists.
"$K" convert -q "$D/good/symmetric.mtx" "$T/a.mtx" || fail "convert mtx"
head -1 "$T/a.mtx" | grep -q "coordinate real symmetric" || fail "symmetry kept"
"$K" convert -q "$T/a.mtx" "$T/a.kbin" || fail "convert kbin"
"$K" convert -q "$T/a.kbin" "$T/b.mtx" || fail "kbin to mtx"
"$K" info "$T/b.mtx" --json | grep -q '"entries": 5' || fail "binary round trip"
"$K" convert -q "$T/b.mtx" "$T/c.el" || fail "to edge list"
[[ $(grep -vc '^#' "$T/c.el") == 5 ]] || fail "edge list lines"
[[ $(head -1 "$T/c.el") == "# kleene edge list: 3 x 3, 5 entries, double values" ]] || fail "shape line: $(head -1 "$T/c.el")"
"$K" convert -q "$T/c.el" - | grep -q "^3 3 5$" || fail "edge list to stdout"
"$K" convert -q - "$T/d.mtx" < "$D/good/array_skew.mtx" || fail "stdin convert"
head -1 "$T/d.mtx" | grep -q "array integer skew-symmetric" || fail "array kept"
"$K" convert "$D/good/pattern.mtx" "$T/e.mtx" 2> "$T/err" || fail "summary"
grep -q "wrote" "$T/err" || fail "summary line"
"$K" convert -q "$D/good/pattern.mtx" "$T/e.mtx" 2> "$T/err"; [[ ! -s "$T/err" ]] || fail "--quiet"

# A failed conversion leaves no output file.
"$K" convert -q "$D/bad/too_few_entries-5.mtx" "$T/never.mtx" 2>/dev/null; [[ $? == 1 ]] || fail "exit"
[[ ! -e "$T/never.mtx" ]] || fail "partial output"
"$K" convert -q "$D/good/crlf_trailing_spaces.mtx" "$T/f.mtx" --symmetric 2>/dev/null
[[ $? == 1 && ! -e "$T/f.mtx" ]] || fail "--symmetric on a rectangular matrix"
[[ -z $(ls -A "$T" | grep '^\.') ]] || fail "temporary files left"
echo OK
