#!/usr/bin/env bash
# `mpirun -np P kleene apsp|closure --distributed-output DIR` (every rank writes its blocks) and
# `kleene convert DIR` / `kleene info DIR` (the join): the joined Matrix Market file equals the
# gathered output (-o) byte for byte for 1, 2 and 4 ranks, and so does the predecessors' layout
# (--paths DIR2) the gathered --paths file; a .kbin join reads back to the same;
# a run that fails leaves neither DIR nor its staging directory; an existing directory that is
# not a layout is refused and left as it was; a layout is replaced whole by the next run. Hostile
# layouts (a missing, truncated, flipped or linked rank file, a manifest naming a file outside
# DIR, a huge n, a cut manifest) each give exit 1, a message naming the file, and no output.
# Usage: cli_distributed_output.sh KLEENE MPIEXEC
set -uo pipefail
kleene=$1 mpiexec=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpi() {  # a time limit so that a hang fails instead of eating the CI budget
  local np=$1
  shift
  # Open MPI waits odls_base_sigkill_timeout (1 s, twice) before it reports a rank's exit
  # code 1: the runs that are meant to fail took 2.4 s each (most of this test's time).
  OMPI_MCA_odls_base_sigkill_timeout=0 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader timeout 120 "$mpiexec" --allow-run-as-root --oversubscribe -x OMP_NUM_THREADS=1 -np "$np" \
    "$kleene" "$@"
}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# gen FILE N DEGREE LO HI FIELD SEED NEGCYCLE (as cli_distributed.sh)
gen() {
  awk -v n="$2" -v deg="$3" -v lo="$4" -v hi="$5" -v field="$6" -v seed="$7" -v negc="$8" 'BEGIN {
    srand(seed); m = 0
    for (i = 1; i <= n; i++) pot[i] = int(rand() * 20)
    for (i = 1; i <= n; i++) for (j = 1; j <= n; j++) if (rand() < deg / n) {
      w = (field == "integer") ? lo + int(rand() * (hi - lo + 1)) : lo + rand() * (hi - lo)
      if (lo < hi) w += pot[i] - pot[j]
      if (field == "integer") line[++m] = i " " j " " w
      else line[++m] = sprintf("%d %d %.6f", i, j, w)
    }
    if (negc) { line[++m] = "1 2 -3"; line[++m] = "2 3 1"; line[++m] = "3 1 1" }
    print "%%MatrixMarket matrix coordinate " field " general"
    print n, n, m
    for (k = 1; k <= m; k++) print line[k]
  }' >"$1"
}
gen "$tmp/int.mtx" 150 5 0 60 integer 21 0
gen "$tmp/real.mtx" 130 5 0.5 9.5 real 22 0
gen "$tmp/negcyc.mtx" 120 3 0 30 integer 23 1

# only_ok NAME: nothing in $tmp/out but NAME (no staging directory left behind)
mkdir "$tmp/out"
only() {
  local got
  got=$(ls -A "$tmp/out" | tr '\n' ' ')
  [ "$got" = "$* " ] || [ -z "$*" -a -z "$got" ] || fail "$tmp/out holds '$got', expected '$*'"
}

for np in 1 2 4; do
  o=$tmp/out
  one=()
  [ "$np" = 1 ] && one=(--distributed)
  mpi $np apsp "$tmp/int.mtx" -o "$tmp/int_g$np.mtx" --device cpu -q "${one[@]}" --paths "$tmp/int_gp$np.mtx" || fail "np=$np gathered apsp"
  mpi $np apsp "$tmp/int.mtx" --distributed-output "$o/int$np" --block 37 --device cpu -q --paths "$o/intp$np" || fail "np=$np apsp layout"
  # The predecessors' own layout joins to the gathered --paths file, byte for byte.
  grep -q "^result predecessors" "$o/intp$np/manifest" || fail "np=$np predecessors manifest: $(cat "$o/intp$np/manifest")"
  "$kleene" convert "$o/intp$np" "$tmp/int_jp$np.mtx" -q || fail "np=$np convert predecessors layout"
  cmp -s "$tmp/int_gp$np.mtx" "$tmp/int_jp$np.mtx" || fail "np=$np joined predecessors differ from the gathered --paths"
  [ -f "$o/int$np/manifest" ] || fail "np=$np no manifest"
  [ "$(ls "$o/int$np" | grep -c '^rank-.*\.kbin$')" = "$np" ] || fail "np=$np: not $np rank files: $(ls "$o/int$np")"
  "$kleene" convert "$o/int$np" "$tmp/int_j$np.mtx" -q || fail "np=$np convert layout"
  cmp -s "$tmp/int_g$np.mtx" "$tmp/int_j$np.mtx" || fail "np=$np joined apsp differs from the gathered output"
  "$kleene" convert "$o/int$np" "$tmp/int_j$np.kbin" -q || fail "np=$np convert layout to kbin"
  "$kleene" convert "$tmp/int_j$np.kbin" "$tmp/int_k$np.mtx" -q || fail "np=$np kbin back"
  cmp -s "$tmp/int_g$np.mtx" "$tmp/int_k$np.mtx" || fail "np=$np layout -> kbin -> mtx differs"
  # The join streams a block of rows at a time: its .kbin and .el are byte for byte what convert
  # makes of the gathered .mtx with the whole matrix in memory.
  "$kleene" convert "$o/int$np" "$tmp/int_j$np.el" -q || fail "np=$np convert layout to .el"
  # The streamed .kbin to a pipe (its header is written first, so it needs no seek) and to a
  # full device (exit 1, a message).
  "$kleene" convert "$o/int$np" - --to kbin -q | cmp -s - "$tmp/int_j$np.kbin" || fail "np=$np .kbin to stdout differs"
  "$kleene" convert "$o/int$np" /dev/full --to mtx -q 2>"$tmp/full.err"
  [ $? = 1 ] && grep -q "No space left" "$tmp/full.err" || fail "np=$np join to /dev/full: $(cat "$tmp/full.err")"
  for ext in kbin el; do
    "$kleene" convert "$tmp/int_g$np.mtx" "$tmp/int_c$np.$ext" -q || fail "np=$np convert gathered to .$ext"
    cmp -s "$tmp/int_c$np.$ext" "$tmp/int_j$np.$ext" || fail "np=$np joined .$ext differs from the gathered output's"
  done
  pairs=$(grep -v '^%' "$tmp/int_g$np.mtx" | head -1 | awk '{print $3}')
  "$kleene" info "$o/int$np" --json >"$tmp/info.json" || fail "np=$np info"
  grep -q "\"entries\": $pairs," "$tmp/info.json" || fail "np=$np info: not $pairs entries: $(cat "$tmp/info.json")"
  grep -q "block layout ($np parts" "$tmp/info.json" || fail "np=$np info format: $(cat "$tmp/info.json")"

  mpi $np apsp "$tmp/real.mtx" -o "$tmp/real_g$np.mtx" --device cpu -q "${one[@]}" --paths "$tmp/real_gp$np.mtx" || fail "np=$np gathered real"
  mpi $np apsp "$tmp/real.mtx" --distributed-output "$o/real$np" --device cpu -q --paths "$o/realp$np" || fail "np=$np real layout"
  "$kleene" convert "$o/real$np" "$tmp/real_j$np.mtx" -q || fail "np=$np convert real layout"
  cmp -s "$tmp/real_g$np.mtx" "$tmp/real_j$np.mtx" || fail "np=$np joined fp64 apsp differs"
  "$kleene" convert "$o/realp$np" "$tmp/real_jp$np.mtx" -q || fail "np=$np convert fp64 predecessors layout"
  cmp -s "$tmp/real_gp$np.mtx" "$tmp/real_jp$np.mtx" || fail "np=$np joined fp64 predecessors differ"

  mpi $np closure "$tmp/negcyc.mtx" -o "$tmp/clo_g$np.mtx" --reflexive --device cpu -q "${one[@]}" || fail "np=$np gathered closure"
  mpi $np closure "$tmp/negcyc.mtx" --distributed-output "$o/clo$np" --reflexive --device cpu -q || fail "np=$np closure layout"
  "$kleene" convert "$o/clo$np" "$tmp/clo_j$np.mtx" -q || fail "np=$np convert closure layout"
  cmp -s "$tmp/clo_g$np.mtx" "$tmp/clo_j$np.mtx" || fail "np=$np joined closure differs"
  for ext in kbin el; do
    "$kleene" convert "$tmp/clo_g$np.mtx" "$tmp/clo_c$np.$ext" -q || fail "np=$np convert gathered closure to .$ext"
    "$kleene" convert "$o/clo$np" "$tmp/clo_j$np.$ext" -q || fail "np=$np convert closure layout to .$ext"
    cmp -s "$tmp/clo_c$np.$ext" "$tmp/clo_j$np.$ext" || fail "np=$np joined closure .$ext differs"
  done

  # A failing run (negative cycle): exit 1, no DIR, no staging directory.
  mpi $np apsp "$tmp/negcyc.mtx" --distributed-output "$o/neg" --device cpu -q 2>"$tmp/neg.err"
  rc=$?
  [ $rc = 1 ] || fail "np=$np negative cycle with a layout: exit $rc"
  grep -q "negative cycle" "$tmp/neg.err" || fail "np=$np negative cycle message: $(cat "$tmp/neg.err")"
  # With --paths too: neither layout appears.
  mpi $np apsp "$tmp/negcyc.mtx" --distributed-output "$o/neg" --paths "$o/negp" --device cpu -q 2>/dev/null
  [ $? = 1 ] || fail "np=$np negative cycle with --paths: not exit 1"
  only "clo$np int$np intp$np real$np realp$np"
  rm -rf "$o"/*
done

# Over an earlier layout (4 ranks): replaced whole by a 2-rank one; its extra rank files go.
o=$tmp/out
mpi 4 apsp "$tmp/real.mtx" --distributed-output "$o/L" --device cpu -q || fail "layout of 4"
mpi 2 apsp "$tmp/int.mtx" --distributed-output "$o/L" --device cpu -q || fail "layout of 2 over it"
[ "$(ls "$o/L" | tr '\n' ' ')" = "manifest rank-00000.kbin rank-00001.kbin " ] || fail "replaced layout holds: $(ls "$o/L")"
"$kleene" convert "$o/L" "$tmp/L.mtx" -q && cmp -s "$tmp/L.mtx" "$tmp/int_g2.mtx" || fail "replaced layout is not the new result"
only "L"
# A directory that is not a layout, and a file: refused, untouched, nothing beside them.
mkdir "$o/mine" && echo keep >"$o/mine/notes.txt" && echo keep >"$o/file"
mpi 2 apsp "$tmp/int.mtx" --distributed-output "$o/mine" --device cpu -q 2>"$tmp/mine.err"
[ $? = 1 ] || fail "a non-layout directory was not refused"
grep -q "notes.txt" "$tmp/mine.err" || fail "refusal does not name the foreign file: $(cat "$tmp/mine.err")"
[ "$(cat "$o/mine/notes.txt")" = keep ] && [ "$(ls "$o/mine")" = notes.txt ] || fail "the non-layout directory changed"
mpi 2 apsp "$tmp/int.mtx" --distributed-output "$o/file" --device cpu -q 2>/dev/null && fail "a file was replaced by a layout"
[ "$(cat "$o/file")" = keep ] || fail "the file changed"
only "L file mine"
# A symlink to a directory, a device node, a missing parent: refused (exit 1), nothing written
# through the link or over the device.
mkdir "$tmp/target" && ln -s "$tmp/target" "$o/link"
mpi 1 apsp "$tmp/int.mtx" --distributed-output "$o/link" --device cpu -q 2>/dev/null
[ $? = 1 ] || fail "a symlink to a directory was not refused"
[ -L "$o/link" ] && [ -z "$(ls -A "$tmp/target")" ] || fail "the symlink or its target changed"
mpi 1 apsp "$tmp/int.mtx" --distributed-output /dev/null --device cpu -q 2>/dev/null
[ $? = 1 ] || fail "/dev/null was not refused"
[ -c /dev/null ] || fail "/dev/null is no longer a device"
mpi 1 apsp "$tmp/int.mtx" --distributed-output "$o/missing/L" --device cpu -q 2>/dev/null
[ $? = 1 ] || fail "a missing parent directory was not refused"
only "L file link mine"
# Usage: -o or --distributed-output, exactly one; --paths a directory of its own with a layout;
# no launcher, no layout.
mpi 1 apsp "$tmp/int.mtx" --device cpu -q 2>/dev/null
[ $? = 2 ] || fail "apsp without an output: not a usage error"
mpi 1 apsp "$tmp/int.mtx" --distributed-output "$o/P" --paths "$o/P/" -q 2>/dev/null
[ $? = 2 ] || fail "--paths naming the --distributed-output directory: not a usage error"
mpi 1 apsp "$tmp/int.mtx" --distributed-output "$o/P" --paths - -q 2>/dev/null
[ $? = 2 ] || fail "--paths - with --distributed-output: not a usage error"
# A --paths directory that cannot be a layout: exit 1, and the distances' layout not written.
echo keep >"$o/pfile"
mpi 2 apsp "$tmp/int.mtx" --distributed-output "$o/P" --paths "$o/pfile" --device cpu -q 2>/dev/null
[ $? = 1 ] || fail "--paths over a file: not exit 1"
[ ! -e "$o/P" ] && [ "$(cat "$o/pfile")" = keep ] || fail "--paths over a file: the layout was written or the file changed"
rm "$o/pfile"
# --paths over a link to a directory, over a device, over a directory that is not a layout: exit
# 1, nothing written through the link or over the device, the distances' layout not written.
mkdir "$tmp/ptarget" && ln -s "$tmp/ptarget" "$o/plink"
mpi 2 apsp "$tmp/int.mtx" --distributed-output "$o/P" --paths "$o/plink" --device cpu -q 2>/dev/null
[ $? = 1 ] || fail "--paths over a symlink: not exit 1"
[ -L "$o/plink" ] && [ -z "$(ls -A "$tmp/ptarget")" ] && [ ! -e "$o/P" ] || fail "--paths over a symlink: something was written"
rm "$o/plink"
mpi 1 apsp "$tmp/int.mtx" --distributed-output "$o/P" --paths /dev/null --device cpu -q 2>/dev/null
[ $? = 1 ] && [ -c /dev/null ] && [ ! -e "$o/P" ] || fail "--paths /dev/null: not refused, or /dev/null changed"
mkdir "$o/pmine" && echo keep >"$o/pmine/notes.txt"
mpi 2 apsp "$tmp/int.mtx" --distributed-output "$o/P" --paths "$o/pmine" --device cpu -q 2>"$tmp/pmine.err"
[ $? = 1 ] && grep -q "notes.txt" "$tmp/pmine.err" || fail "--paths over a foreign directory: $(cat "$tmp/pmine.err")"
[ "$(ls "$o/pmine")" = notes.txt ] && [ ! -e "$o/P" ] || fail "--paths over a foreign directory: something changed"
rm -r "$o/pmine"
only "L file link mine"  # no staging directory of DIR or DIR2 left behind
"$kleene" apsp "$tmp/int.mtx" --distributed-output "$o/P" -q 2>/dev/null
[ $? = 2 ] || fail "--distributed-output without mpirun: not a usage error"

# Hostile layouts, made from the 4-rank one: each convert and info exits 1 naming the file,
# writes nothing, and does not crash.
mpi 4 apsp "$tmp/int.mtx" --distributed-output "$tmp/good" --device cpu --block 37 -q || fail "layout for the hostile cases"
hostile() {  # hostile NAME EXPECTED-IN-MESSAGE: $tmp/bad has been spoiled
  local name=$1 want=$2 rc
  "$kleene" convert "$tmp/bad" "$tmp/bad.mtx" -q 2>"$tmp/bad.err"
  rc=$?
  [ $rc = 1 ] || fail "$name: convert exit $rc, not 1: $(cat "$tmp/bad.err")"
  grep -q -- "$want" "$tmp/bad.err" || fail "$name: message lacks '$want': $(cat "$tmp/bad.err")"
  [ -e "$tmp/bad.mtx" ] && fail "$name: output written"
  ls -A "$tmp" | grep -q '^\.bad\.mtx\.tmp' && fail "$name: temporary left"
  "$kleene" info "$tmp/bad" -q >/dev/null 2>&1
  rc=$?
  [ $rc = 1 ] || fail "$name: info exit $rc, not 1"
  rm -rf "$tmp/bad" "$tmp/bad.mtx"
}
spoil() { rm -rf "$tmp/bad"; cp -r "$tmp/good" "$tmp/bad"; }
m=$tmp/bad/manifest
spoil; rm "$tmp/bad/rank-00002.kbin"; hostile "missing rank file" "rank-00002.kbin: missing"
spoil; truncate -s -5 "$tmp/bad/rank-00001.kbin"; hostile "truncated rank file" "rank-00001.kbin: .* bytes, the manifest says"
spoil; printf '\x07' | dd of="$tmp/bad/rank-00003.kbin" bs=1 seek=500 conv=notrunc 2>/dev/null
hostile "flipped payload byte" "rank-00003.kbin: checksum mismatch"
spoil; printf '\x01' | dd of="$tmp/bad/rank-00000.kbin" bs=1 seek=60 conv=notrunc 2>/dev/null
hostile "flipped checksum byte" "rank-00000.kbin: checksum mismatch with the manifest"
spoil; printf '\x05' | dd of="$tmp/bad/rank-00000.kbin" bs=1 seek=24 conv=notrunc 2>/dev/null
hostile "flipped header byte (rows)" "rank-00000.kbin"
spoil; sed -i 's|file rank-00001.kbin|file ../int.mtx|' "$m"; hostile "file outside DIR" "not a plain name inside the directory"
spoil; sed -i 's|file rank-00001.kbin|file /etc/passwd|' "$m"; hostile "absolute file" "not a plain name inside the directory"
spoil; rm "$tmp/bad/rank-00001.kbin"; ln -s "$tmp/good/rank-00001.kbin" "$tmp/bad/rank-00001.kbin"
hostile "linked rank file" "rank-00001.kbin: not a regular file"
spoil; sed -i 's|^n .*|n 2147483648|' "$m"; hostile "huge n" "manifest line"
spoil; sed -i 's|^n .*|n 184467440737095516150|' "$m"; hostile "n past 64 bits" "is not a number\|out of range"
spoil; sed -i 's|^n .*|n 1000000|; s|^block .*|block 500000|; s| rows [0-9]* cols [0-9]* | rows 500000 cols 500000 |; s| bytes [0-9]* | bytes 1000000000128 |' "$m"
hostile "huge n, consistent manifest" "bytes, the manifest says"
spoil; sed -i '$d' "$m"; hostile "manifest without end" "ends early"
spoil; rm "$m"; hostile "no manifest" "manifest: missing"
spoil; sed -i 's|^grid 2 2|grid 4 1|' "$m"; hostile "another grid" "manifest line"
spoil; sed -i 's|^result .*|result parents|' "$m"; hostile "unknown result" "result must be"
spoil; sed -i 's|^value_type .*|value_type double|; s|^result .*|result predecessors|' "$m"
hostile "predecessors not int32" "a predecessors result is int32"
[ "$fails" = 0 ] && echo "OK: distributed output layouts written, joined and checked"
exit $((fails > 0))
