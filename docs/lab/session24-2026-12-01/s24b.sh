#!/usr/bin/env bash
set -uo pipefail
root=$(pwd); lab=$root/build-lab/${CALL:-c24b}; out=${OUT:-/tmp/out}; mkdir -p "$out"
note() { echo "== $(date +%T) $*"; }
for d in "$root"/build-lab/depsb/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
for t in $(ls $b); do
  note "$t"; timeout ${T:-300} $b/$t --log_level=message > "$out/$t.txt" 2>&1; echo "rc=$? skipped=$(grep -c 'test skipped' "$out/$t.txt")"; grep -E "error|fail" "$out/$t.txt" | head -5; tail -2 "$out/$t.txt"
done
note end
