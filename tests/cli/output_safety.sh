#!/usr/bin/env bash
# Hostile outputs and the command line's contract (issue 19): symbolic links, devices, FIFOs,
# modes, owners, hard links and directories as -o targets; outputs that appear together or not at
# all; SIGTERM/SIGINT leave no temporary; edge lists keep their shape; a report that cannot be
# written fails; usage errors come before any input is read; "-" reads stdin for every command.
set -u
K=$1
D=$(cd "$(dirname "$0")/../data/mm" && pwd)
T=$(mktemp -d)
bg=()
cleanup() {
  for p in "${bg[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
temps_in() { find "$1" -name '.*.tmp.*' 2>/dev/null; }
is_mtx() { head -1 "$1" 2>/dev/null | grep -q '^%%MatrixMarket'; }
G=$D/good/symmetric.mtx  # 3 x 3 real symmetric, 5 entries
root=false; [[ $(id -u) == 0 ]] && root=true
# Built without SuiteSparse:GraphBLAS (KLEENE_GRAPHBLAS=OFF), `kleene compare` only says so: its
# cases here are left out (tests/cli/compare_not_built.sh checks that message).
compare=true; [[ -n ${KLEENE_TEST_NO_GRAPHBLAS:-} ]] && compare=false

# A device node to write to: a private copy in $T when root may make one (a kleene that replaced
# device nodes would then replace only that copy), else the real one when not root (which cannot
# replace anything in /dev), else none (root without mknod: the real node is not risked).
device() {  # name major minor
  if $root; then
    mknod "$T/$1" c "$2" "$3" 2>/dev/null && { echo "$T/$1"; return; }
    echo ""
  else
    echo "/dev/$1"
  fi
}

# ---- symbolic links: the file at the end of the chain is replaced; links stay links -------------
echo old > "$T/real.mtx"
ln -s real.mtx "$T/link.mtx"
"$K" convert -q "$G" "$T/link.mtx" || fail "convert into a symlink: exit $?"
[[ -L $T/link.mtx && $(readlink "$T/link.mtx") == real.mtx ]] || fail "the symlink was replaced"
is_mtx "$T/real.mtx" || fail "the symlink's target does not have the new content"
mkdir "$T/sub"
echo old > "$T/sub/deep.mtx"
ln -s sub/deep.mtx "$T/l1.mtx"
ln -s "$T/l1.mtx" "$T/l2.mtx"
"$K" apsp "$G" -q -o "$T/l2.mtx" || fail "apsp into a chain of links: exit $?"
[[ -L $T/l2.mtx && -L $T/l1.mtx ]] || fail "a link of the chain was replaced"
is_mtx "$T/sub/deep.mtx" || fail "the end of the chain does not have the new content"
[[ -z $(temps_in "$T") ]] || fail "temporaries left after writing through links: $(temps_in "$T")"
ln -s fresh.mtx "$T/dangling.mtx"
"$K" convert -q "$G" "$T/dangling.mtx" || fail "convert into a dangling link: exit $?"
[[ -L $T/dangling.mtx ]] && is_mtx "$T/fresh.mtx" || fail "a dangling link's target was not created"

# ---- FIFOs are written through (a reader in the background) ---------------------------------------
mkfifo "$T/fifo"
timeout 20 cat "$T/fifo" > "$T/fifo.out" &
reader=$!
bg+=("$reader")
timeout 20 "$K" convert -q "$G" "$T/fifo" --to mtx || fail "convert into a FIFO: exit $?"
wait "$reader"
[[ -p $T/fifo ]] || fail "the FIFO was replaced by $(stat -c %F "$T/fifo")"
"$K" convert -q "$G" "$T/plain.mtx" || fail "plain convert"
cmp -s "$T/fifo.out" "$T/plain.mtx" || fail "the FIFO's reader did not get the matrix"

# ---- devices are written through: /dev/null stays a character device ----------------------------
null=$(device null 1 3)
if [[ -n $null ]]; then
  "$K" convert -q "$G" "$null" --to mtx || fail "convert into $null: exit $?"
  if [[ -c $null ]]; then
    # Only a kleene that keeps device nodes gets the real /dev/null.
    "$K" apsp "$G" -q -o /dev/null --paths /dev/null || fail "apsp -o /dev/null: exit $?"
    [[ -c /dev/null ]] || fail "/dev/null is no longer a character device"
  else
    fail "$null is no longer a character device"
  fi
else
  echo "SKIP: root cannot mknod here, so -o /dev/null is not risked on the real node"
fi

# ---- modes, owners, new files -----------------------------------------------------------------------
echo old > "$T/secret.mtx"
chmod 600 "$T/secret.mtx"
"$K" convert -q "$G" "$T/secret.mtx" || fail "convert over a 0600 file"
[[ $(stat -c %a "$T/secret.mtx") == 600 ]] || fail "0600 came back $(stat -c %a "$T/secret.mtx")"
is_mtx "$T/secret.mtx" || fail "0600 file not rewritten"
(umask 027 && "$K" convert -q "$G" "$T/new.mtx") || fail "convert to a new file"
[[ $(stat -c %a "$T/new.mtx") == 640 ]] || fail "a new file under umask 027 is $(stat -c %a "$T/new.mtx"), want 640"
if $root && id nobody > /dev/null 2>&1; then
  echo old > "$T/owned.mtx"
  chown nobody "$T/owned.mtx"
  "$K" convert -q "$G" "$T/owned.mtx" || fail "convert over a file of nobody"
  [[ $(stat -c %U "$T/owned.mtx") == nobody ]] || fail "the owner became $(stat -c %U "$T/owned.mtx")"
fi

# ---- hard links: replaced atomically, with a warning; the other name keeps the old content -------
echo old > "$T/h1.mtx"
ln "$T/h1.mtx" "$T/h2.mtx"
msg=$("$K" convert -q "$G" "$T/h1.mtx" 2>&1) || fail "convert over a hard link: $msg"
[[ $msg == *"h1.mtx had 2 hard links"* ]] || fail "no warning about the hard link: '$msg'"
is_mtx "$T/h1.mtx" && [[ $(cat "$T/h2.mtx") == old && $(stat -c %h "$T/h1.mtx") == 1 ]] ||
  fail "hard link: h1 new, h2 old, h1 one link"

# ---- a directory is refused, naming it --------------------------------------------------------------
mkdir "$T/dir.mtx"
msg=$("$K" convert -q "$G" "$T/dir.mtx" 2>&1)
[[ $? == 1 && $msg == *"dir.mtx: is a directory"* ]] || fail "directory target: $msg"
msg=$("$K" apsp "$G" -q -o "$T/dir.mtx" 2>&1)
[[ $? == 1 && $msg == *"dir.mtx: is a directory"* && -d $T/dir.mtx ]] || fail "apsp into a directory: $msg"
[[ -z $(ls -A "$T/dir.mtx") ]] || fail "something was written inside the directory"

# ---- several outputs: all or nothing ------------------------------------------------------------
echo oldD > "$T/D.mtx"
echo oldP > "$T/P.mtx"
"$K" apsp "$G" -q -o "$T/nodir/D.mtx" --paths "$T/P.mtx" 2>/dev/null
[[ $? == 1 && $(cat "$T/P.mtx") == oldP ]] || fail "distances not writable: --paths was written anyway"
"$K" apsp "$G" -q -o "$T/D.mtx" --paths "$T/nodir/P.mtx" 2>/dev/null
[[ $? == 1 && $(cat "$T/D.mtx") == oldD ]] || fail "--paths not writable: the distances were written anyway"
"$K" apsp "$G" -q -o "$T/nodir/D.mtx" --paths "$T/newP.mtx" 2>/dev/null
[[ $? == 1 && ! -e $T/newP.mtx ]] || fail "distances not writable: --paths was created"
full=$(device full 1 7)
if [[ -n $full ]]; then  # the distances fail while being written, after the paths are complete
  msg=$("$K" apsp "$G" -q -o "$full" --paths "$T/P.mtx" 2>&1)
  [[ $? == 1 && $msg == *"No space left"* && $(cat "$T/P.mtx") == oldP ]] ||
    fail "a full device for the distances: --paths was written anyway ($msg)"
fi
"$K" apsp "$G" -q -o "$T/D.mtx" --paths "$T/P.mtx" || fail "apsp with both outputs"
is_mtx "$T/D.mtx" && is_mtx "$T/P.mtx" || fail "apsp did not write both outputs"
"$K" apsp "$G" -q -o "$T/same.mtx" --paths "$T/same.mtx" 2>/dev/null
[[ $? == 2 && ! -e $T/same.mtx ]] || fail "one file as both outputs: want a usage error"
[[ -z $(temps_in "$T") ]] || fail "temporaries left by failed outputs: $(temps_in "$T")"

# ---- a stopped run leaves no temporary and dies of its signal -----------------------------------
"$K" generate uniform --vertices 1500 --edges 20000 --weights 1,100 -o "$T/big.mtx" -q ||
  fail "generate"
stop_run() {  # signal, expected status
  local dir=$T/sig$1
  mkdir "$dir"
  "$K" apsp "$T/big.mtx" -q -o "$dir/D.mtx" --paths "$dir/P.mtx" &
  local pid=$!
  bg+=("$pid")
  # Wait for a temporary to exist (the outputs are opened before the input is read), then stop it.
  for _ in $(seq 3000); do
    [[ -n $(temps_in "$dir") ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  sleep 0.2
  kill "-$1" "$pid" 2>/dev/null
  wait "$pid"
  local rc=$?
  [[ $rc == "$2" ]] || fail "SIG$1: exit status $rc, want $2 (killed by the signal)"
  [[ -z $(temps_in "$dir") ]] || fail "SIG$1 left $(temps_in "$dir")"
  [[ ! -e $dir/D.mtx && ! -e $dir/P.mtx ]] || fail "SIG$1: an output appeared"
}
stop_run TERM 143
# A rename that fails after another output is in place says so: --paths becomes a directory
# while apsp runs (after its temporaries exist, before the commit).
dir=$T/midway
mkdir "$dir"
"$K" apsp "$T/big.mtx" -q -o "$dir/D.mtx" --paths "$dir/P.mtx" 2> "$dir.err" &
pid=$!
bg+=("$pid")
for _ in $(seq 3000); do
  [[ $(temps_in "$dir" | wc -l) == 2 ]] && break
  sleep 0.01
done
mkdir "$dir/P.mtx"
wait "$pid"
rc=$?
msg=$(cat "$dir.err")
[[ $rc == 1 && $msg == *"P.mtx: cannot rename"*"already written: $dir/D.mtx"* ]] ||
  fail "a rename failing midway: exit $rc, '$msg'"
[[ -z $(temps_in "$dir") ]] || fail "a rename failing midway left $(temps_in "$dir")"
# A background job of a script ignores SIGINT; env gives it the default action back.
if env --default-signal=INT true 2>/dev/null; then
  dir=$T/sigINT  # env execs kleene, so $! is kleene's pid
  mkdir "$dir"
  env --default-signal=INT "$K" apsp "$T/big.mtx" -q -o "$dir/D.mtx" &
  pid=$!
  bg+=("$pid")
  for _ in $(seq 3000); do
    [[ -n $(temps_in "$dir") ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  kill -INT "$pid" 2>/dev/null
  wait "$pid"
  rc=$?
  [[ $rc == 130 && -z $(temps_in "$dir") && ! -e $dir/D.mtx ]] ||
    fail "SIGINT: status $rc (want 130), left: $(ls -A "$dir")"
fi

# ---- edge lists keep their shape --------------------------------------------------------------------
printf '%%%%MatrixMarket matrix coordinate real general\n5 5 1\n2 3 1.5\n' > "$T/a55.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 4\n' > "$T/a23.mtx"
for m in a55 a23; do
  "$K" convert -q "$T/$m.mtx" "$T/$m.el" || fail "$m to an edge list"
  "$K" convert -q "$T/$m.el" "$T/$m.back.mtx" || fail "$m back from an edge list"
  want=$(grep -v '^%' "$T/$m.mtx" | head -1)
  got=$(grep -v '^%' "$T/$m.back.mtx" | head -1)
  [[ $got == "$want" ]] || fail "$m round trip through an edge list: '$got', want '$want'"
done
[[ $(head -1 "$T/a23.el") == "# kleene edge list: 2 x 3, 1 entries, double values" ]] || fail "shape line: $(head -1 "$T/a23.el")"
# The value type survives too: integer stays integer (2^53 + 1 would not survive as real), a
# %%GraphBLAS int32_t file stays int32_t, a pattern stays a pattern.
printf '%%%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 9007199254740993\n3 1 -4\n' > "$T/int.mtx"
"$K" convert -q "$T/int.mtx" "$T/int.el" || fail "integer to an edge list"
[[ $(head -1 "$T/int.el") == "# kleene edge list: 3 x 3, 2 entries, int64_t values" ]] || fail "integer shape line: $(head -1 "$T/int.el")"
"$K" convert -q "$T/int.el" "$T/int.back.mtx" || fail "integer back from an edge list"
head -1 "$T/int.back.mtx" | grep -q "coordinate integer general" || fail "integer round trip: $(head -1 "$T/int.back.mtx")"
grep -q "^1 2 9007199254740993$" "$T/int.back.mtx" || fail "integer round trip values: $(cat "$T/int.back.mtx")"
out=$("$K" info "$T/int.el" --json) || fail "info integer edge list"
[[ $out == *'"field": "integer"'* && $out == *'"value_type": "int64_t"'* ]] || fail "info integer edge list: $out"
printf '%%%%MatrixMarket matrix coordinate integer general\n%%%%GraphBLAS type int32_t\n2 2 1\n2 1 -3\n' > "$T/i32.mtx"
"$K" convert -q "$T/i32.mtx" "$T/i32.el" || fail "int32 to an edge list"
[[ $(head -1 "$T/i32.el") == *", int32_t values" ]] || fail "int32 shape line: $(head -1 "$T/i32.el")"
"$K" convert -q "$T/i32.el" "$T/i32.kbin" && "$K" info "$T/i32.kbin" --json | grep -q '"value_type": "int32_t"' ||
  fail "int32 edge list to kbin: $("$K" info "$T/i32.kbin" --json 2>&1)"
printf '%%%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n' > "$T/pat.mtx"
"$K" convert -q "$T/pat.mtx" "$T/pat.el" && "$K" convert -q "$T/pat.el" "$T/pat.back.mtx" || fail "pattern round trip"
[[ $(head -1 "$T/pat.el") == "# kleene edge list: 2 x 2, 1 entries" ]] || fail "pattern shape line: $(head -1 "$T/pat.el")"
head -1 "$T/pat.back.mtx" | grep -q "coordinate pattern general" || fail "pattern round trip: $(head -1 "$T/pat.back.mtx")"
printf '# kleene edge list: 2 x 2, 1 entries, int32_t values\n1 2 2.5\n' > "$T/notint.el"
msg=$("$K" convert -q "$T/notint.el" "$T/notint.mtx" 2>&1)
[[ $? == 1 && $msg == *"notint.el:2:"* && ! -e $T/notint.mtx ]] || fail "a real value in an int32_t edge list: $msg"
printf '# kleene edge list: 2 x 2, 1 entries, int33_t values\n1 2 2\n' > "$T/badtype.el"
msg=$("$K" info "$T/badtype.el" 2>&1)
[[ $? == 1 && $msg == *"badtype.el:1: malformed shape line"* ]] || fail "unknown type on the shape line: $msg"
printf '# kleene edge list: 2 x 3, 1 entries\n1 4 2\n' > "$T/out.el"
msg=$("$K" info "$T/out.el" 2>&1)
[[ $? == 1 && $msg == *"out.el:2: target vertex 4 is outside 1..3"* ]] || fail "id outside the shape: $msg"
printf '# kleene edge list: 2 x 3, 2 entries\n1 1 2\n' > "$T/cut.el"
msg=$("$K" info "$T/cut.el" 2>&1)
[[ $? == 1 && $msg == *"cut.el:"*"declares 2 edges but the file has 1"* ]] || fail "cut edge list: $msg"
printf '# kleene edge list: 2 by 3\n1 1 2\n' > "$T/badshape.el"
msg=$("$K" info "$T/badshape.el" 2>&1)
[[ $? == 1 && $msg == *"badshape.el:1: malformed shape line"* ]] || fail "malformed shape line: $msg"

# ---- a report that cannot be written fails ----------------------------------------------------------
if [[ -w /dev/full ]]; then
  cases=("info $G" "info $G --json" "path $G --from 1 --to 3" "convert -q $G -" "apsp $G -q -o -")
  $compare && cases+=("compare transpose $G")
  for args in "${cases[@]}"; do
    # shellcheck disable=SC2086
    msg=$("$K" $args 2>&1 > /dev/full)
    rc=$?
    [[ $rc == 1 && ( $msg == *"standard output"* || $msg == *"<stdout>"* ) ]] ||
      fail "kleene $args > /dev/full: exit $rc, message '$msg'"
  done
fi

# ---- usage errors: exit 2, the option and the value named, before any input is read ---------------
M=$T/missing.mtx
usage() {  # what the message must say, then the arguments
  local want=$1
  shift
  local out
  out=$("$K" "$@" 2>&1)
  local rc=$?
  [[ $rc == 2 ]] || fail "kleene $*: exit $rc, want 2: $out"
  [[ $out == *"$want"* ]] || fail "kleene $*: the message does not say \"$want\": $out"
  [[ $out != *"cannot open"* ]] || fail "kleene $*: the input was read before the usage check"
  ((${#out} < 300)) || fail "kleene $*: ${#out}-byte message"
}
usage "--semiring: 'bogus'" mxm "$M" "$M" -s bogus -o "$T/u.mtx"
usage "--type: 'bogus'" mxm "$M" "$M" -t bogus -o "$T/u.mtx"
usage "--kernel: 'bogus'" mxm "$M" "$M" --kernel bogus -o "$T/u.mtx"
usage "--type: 'bogus'" apsp "$M" -t bogus -o "$T/u.mtx"
usage "--type: 'bogus'" sssp "$M" -s 1 -t bogus -o "$T/u.mtx"
$compare && usage "--rel-tol: expected a number >= 0, got '-1'" compare mxm "$M" "$M" --rel-tol -1
usage "--output: the output file name is empty" apsp "$M" -o ""
usage "--paths: the output file name is empty" apsp "$M" -o "$T/u.mtx" --paths ""
usage "--output: the output file name is empty" bfs "$M" -s 1 -o ""
usage "the output file name is empty" convert "$M" ""
usage "--threads: expected an integer >= 0, got '-1'" info "$M" --threads -1
usage "--threads: expected an integer >= 0, got '-1'" convert "$M" "$T/u.mtx" --threads -1
usage "--source: expected an integer, got 'one'" bfs "$M" -s one -o "$T/u.mtx"
usage "--duplicates: 'often'" info "$M" --duplicates often
usage "unknown command 'bogus'" bogus
$compare && usage "unknown command 'bogus'" compare bogus
out=$("$K" bogus 2>&1)
[[ $out == *"apsp"* && $out == *"convert"* ]] || fail "unknown command does not list the commands: $out"
[[ ! -e $T/u.mtx ]] || fail "a usage error wrote an output"

# ---- "-" reads stdin, for every command that reads a matrix --------------------------------------
cat "$G" | "$K" info - | grep -q "shape:        3 x 3" || fail "cat G | kleene info -"
"$K" bfs "$G" --source 1 -q -o "$T/bfs_file.mtx" || fail "bfs from a file"
"$K" bfs - --source 1 -q -o "$T/bfs_stdin.mtx" < "$G" || fail "bfs - < G"
cmp -s "$T/bfs_file.mtx" "$T/bfs_stdin.mtx" || fail "bfs from stdin differs from the file"
"$K" apsp "$G" -q -o "$T/ap_file.mtx" && "$K" apsp - -q -o "$T/ap_stdin.mtx" < "$G" ||
  fail "apsp - < G"
cmp -s "$T/ap_file.mtx" "$T/ap_stdin.mtx" || fail "apsp from stdin differs from the file"
[[ $("$K" path - --from 1 --to 3 < "$G") == $("$K" path "$G" --from 1 --to 3) ]] || fail "path - < G"
"$K" sssp - -s 1 -q -o "$T/ss.mtx" < "$G" && is_mtx "$T/ss.mtx" || fail "sssp - < G"
"$K" closure - -q -o "$T/cl.mtx" < "$G" && is_mtx "$T/cl.mtx" || fail "closure - < G"
"$K" mxm - "$G" -q -o "$T/mx.mtx" < "$G" && is_mtx "$T/mx.mtx" || fail "mxm - G < G"
if $compare; then "$K" compare transpose - -q < "$G" || fail "compare transpose - < G"; fi
"$K" mxm - - -o "$T/mm2.mtx" < "$G" 2>/dev/null
[[ $? == 2 ]] || fail "stdin named twice: want a usage error"
"$K" info --from el - < "$T/a23.el" | grep -q "shape:        2 x 3" || fail "info --from el - < edge list"
"$K" convert -q --from el - "$T/el_stdin.mtx" < "$T/a23.el" && is_mtx "$T/el_stdin.mtx" ||
  fail "convert --from el - < edge list"

# A reader that closes the pipe early: exit 1 with a message (SIGPIPE is ignored), not a death
# by signal; files written beside stay whole or absent.
"$K" generate kronecker --scale 12 -q -o "$T/pipe_src.mtx" || fail "generate for the pipe test"
( cd "$T" && "$K" convert pipe_src.mtx - 2>"$T/pipe.err" | head -c 10 >/dev/null
  exit "${PIPESTATUS[0]}" )
rc=$?
[[ $rc == 1 ]] || fail "convert to a closed pipe: exit $rc, want 1"
grep -q "Broken pipe" "$T/pipe.err" || fail "closed pipe: no message ($(cat "$T/pipe.err"))"

[[ -z $(temps_in "$T") ]] || fail "temporary files left: $(temps_in "$T")"
echo OK
