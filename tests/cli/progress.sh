#!/usr/bin/env bash
# Progress lines on stderr: shown when stderr is a terminal (a pseudo-terminal from script(1)),
# never when stderr is a pipe or a file, never with --quiet.  Usage: bash progress.sh /path/to/kleene
set -u
k=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

printf '%%%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 3\n2 3 -1\n3 1 2\n' >"$dir/g.mtx"

# A pipe: no progress even with a zero delay.
KLEENE_PROGRESS_AFTER=0 "$k" convert "$dir/g.mtx" "$dir/g.kbin" 2>"$dir/err" || fail "convert exit $?"
grep -q "reading" "$dir/err" && fail "progress on a pipe: $(cat "$dir/err")"

if ! command -v script >/dev/null; then
    echo "progress cli: script(1) missing, terminal cases skipped"
    exit 0
fi
# A terminal (script gives the command a pty for stdin/stdout/stderr); a zero delay makes every
# phase show. The log holds what the terminal got.
tty_run() { KLEENE_PROGRESS_AFTER=0 script -qec "$*" /dev/null; }
out=$(tty_run "'$k' apsp '$dir/g.mtx' --output '$dir/d.mtx' --device cpu") || fail "apsp on a tty"
[[ $out == *"kleene: reading $dir/g.mtx: "*" s"* ]] || fail "no reading phase: $out"
[[ $out == *"kleene: shortest paths: "* ]] || fail "no compute phase: $out"
[[ $out == *"kleene: writing $dir/d.mtx: "* ]] || fail "no writing phase: $out"
out=$(tty_run "'$k' convert '$dir/g.mtx' '$dir/h.mtx'") || fail "convert on a tty"
[[ $out == *"kleene: reading "*"kleene: writing $dir/h.mtx: "* ]] || fail "convert phases: $out"
out=$(tty_run "'$k' apsp '$dir/g.mtx' --output '$dir/q.mtx' --quiet") || fail "apsp --quiet on a tty"
[[ $out == *"reading"* ]] && fail "progress despite --quiet: $out"
# The default delay (0.5 s) keeps quick commands silent on a terminal too.
out=$(script -qec "'$k' convert '$dir/g.mtx' '$dir/i.mtx'" /dev/null) || fail "convert, default delay"
[[ $out == *"kleene: reading"* ]] && fail "a quick command printed progress: $out"
# A failing command still exits 1 on a terminal.
script -qec "KLEENE_PROGRESS_AFTER=0 '$k' apsp '$dir/missing.mtx' --output '$dir/x.mtx'" /dev/null >/dev/null
rc=$?
[[ $rc == 1 ]] || fail "missing file on a tty: exit $rc"
[[ ! -e $dir/x.mtx ]] || fail "output written despite the error"
echo "progress cli: ok"
