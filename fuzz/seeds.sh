#!/usr/bin/env bash
# Seed corpora for the fuzz targets, from tests/data (nothing binary is kept in git for them):
#   fuzz/seeds.sh DIR   ->  DIR/mm (Matrix Market), DIR/kbin (.kbin), DIR/el (edge lists; the
#   last byte of each seed is fuzz_edge_list's option byte, so every file comes in four variants).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
d=${1:?usage: fuzz/seeds.sh DIR}
mkdir -p "$d/mm" "$d/kbin" "$d/el"
cp "$root"/tests/data/mm/good/*.mtx "$root"/tests/data/mm/bad/*.mtx "$d/mm/"
cp "$root"/tests/data/kbin/good/*.kbin "$root"/tests/data/kbin/bad/*.kbin "$d/kbin/"
el=("$root"/tests/data/el/bad/*.el)
printf '# a graph\n%% also a comment\n1 2 0.5\n\n2 3 1.5\n3 1 -1\n' > "$d/el.weighted"
printf '0 1\n1 2\n2 0\n2 2\n' > "$d/el.zero_based"
printf '1 2\r\n2 3\r\n3 4\r\n4 1\r\n1 3\r\n' > "$d/el.crlf"
printf '5 5 1e-3\n1 5 +2\n5 1 -0\n' > "$d/el.values"
for f in "${el[@]}" "$d"/el.*; do
  b=$(basename "$f")
  for mode in 0 65 130 255; do
    { cat "$f"; printf "\\$(printf '%03o' "$mode")"; } > "$d/el/$b.$mode"
  done
done
rm -f "$d"/el.*
echo "$d: $(ls "$d/mm" | wc -l) mm, $(ls "$d/kbin" | wc -l) kbin, $(ls "$d/el" | wc -l) el seeds"
