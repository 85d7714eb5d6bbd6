#!/usr/bin/env bash
# A rank that fails in the middle of `mpirun -np P kleene apsp|closure` ends every rank, in bounded
# time, and nothing is written (docs/distributed.md, "Failures on one rank"):
# - a failure planted with --inject-fault (an exception in a step, an allocation refused in a
#   step, the set-up's buffers refused): every rank exits 1, rank 0 prints "rank R: step S of N:
#   cause" once, no output file, no layout directory and no staging directory left;
# - a rank that stops answering (hang) with --rank-timeout 2: the ranks that wait end the job
#   (MPI_Abort, exit 1) with "no answer within ... a rank is stuck or was lost";
# - a rank killed by SIGKILL, planted or from outside: mpirun ends the job (exit 137) and names
#   the rank.
# Every run has a time limit (a hang fails instead of eating the CI budget) and must end well
# inside it; the planted failures run with --rank-timeout 10, so that a hang (a rank left
# waiting) shows in seconds as a wrong message. gpu: the same on one GPU per rank, in core and streamed (skipped without GPUs).
# Usage: cli_distributed_faults.sh KLEENE MPIEXEC cpu|gpu
set -uo pipefail
kleene=$1 mpiexec=$2 dev=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
limit=60   # seconds a run may take before it counts as a hang
bound=30   # seconds a failing run must end within
if [ "$dev" = gpu ] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: no GPU"
  exit 0
fi

# 120 vertices, blocks of 16: 8 steps.
awk 'BEGIN {
  srand(41); n = 120; m = 0
  for (i = 1; i <= n; i++) for (j = 1; j <= n; j++) if (rand() < 4 / n) l[++m] = i " " j " " 1 + int(rand() * 50)
  print "%%MatrixMarket matrix coordinate integer general"; print n, n, m
  for (k = 1; k <= m; k++) print l[k]
}' >"$tmp/g.mtx"
steps=8

# run NP ARGS...: mpirun with a time limit; every rank's exit status in $tmp/rc.RANK, stderr in
# $tmp/err, the seconds taken in $secs. mpirun is told not to end the job when a rank exits 1, so
# that each rank's own exit shows (mpirun's status is then 0). run_direct: without sh, mpirun's
# status in $rc (for a job that MPI_Abort or a signal ends).
run() {
  local np=$1
  shift
  rm -f "$tmp"/rc.*
  local t0
  t0=$(date +%s.%N)
  timeout $limit "$mpiexec" --allow-run-as-root --oversubscribe -x OMP_NUM_THREADS=1 \
    -x NCCL_NVLS_ENABLE=0 --mca orte_abort_on_non_zero_status 0 -np "$np" \
    sh -c '"$@"; r=$?; echo $r >"'"$tmp"'/rc.$OMPI_COMM_WORLD_RANK"; exit $r' sh "$kleene" "$@" \
    >/dev/null 2>"$tmp/err"
  rc=$?
  secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
}
run_direct() {
  local np=$1
  shift
  local t0
  t0=$(date +%s.%N)
  timeout $limit "$mpiexec" --allow-run-as-root --oversubscribe -x OMP_NUM_THREADS=1 \
    -x NCCL_NVLS_ENABLE=0 -np "$np" "$kleene" "$@" >/dev/null 2>"$tmp/err"
  rc=$?
  secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
}
# Nothing written: neither the output file nor a layout, nor (unless `killed`: a rank ended by
# mpirun, as a signal or another rank's MPI_Abort ends it, may leave its hidden temporary, as
# SIGKILL may for any kleene output) a temporary beside them.
nothing_written() {
  local what=$1 killed=${2:-}
  [ -e "$tmp/out.mtx" ] && fail "$what: output written"
  [ -e "$tmp/layout" ] && fail "$what: layout directory written"
  [ -z "$killed" ] && ls -A "$tmp" | grep -q '^\.' &&
    fail "$what: temporaries left: $(ls -A "$tmp" | grep '^\.')"
  rm -rf "$tmp/out.mtx" "$tmp/layout" "$tmp"/.??*
}
in_time() {
  awk -v s="$secs" -v b="$bound" 'BEGIN { exit !(s != "" && s + 0 < b) }' || fail "$1: took $secs s (bound $bound s; 124 = hang)"
}

ranks="2 4"
residences=(auto)
if [ "$dev" = gpu ]; then  # one GPU per rank
  gpus=$(nvidia-smi -L | grep -c GPU)
  ranks=$(for r in 2 4; do [ "$r" -le "$gpus" ] && printf '%s ' "$r"; done)
  residences=(device streamed)
  echo "GPUs: $gpus; ranks tried: $ranks"
  if [ -z "$ranks" ]; then
    echo "SKIP: fewer than 2 GPUs (NCCL takes one GPU a rank)"
    exit 0
  fi
fi
for np in $ranks; do
  last=$((np - 1))
  for where in "${residences[@]}"; do
    # KIND:RANK:STEP, command, flags, the message's start after "kleene: error: ".
    while read -r plan cmd flags; do
      IFS=: read -r kind r s <<<"$plan"
      want="rank $r: step $s of $steps: "
      [ "$kind" = setup ] && want="rank $r: "
      what="np=$np $where $cmd $plan $flags"
      run "$np" "$cmd" "$tmp/g.mtx" -o "$tmp/out.mtx" --device "$dev" --block 16 -q \
        --local-blocks "$where" --inject-fault "$plan" --rank-timeout 10 $flags
      [ "$(cat "$tmp"/rc.* 2>/dev/null | sort | uniq -c | awk '{print $1 ":" $2}')" = "$np:1" ] ||
        fail "$what: not every rank exited 1: $(grep . "$tmp"/rc.* | tr '\n' ' ')"
      errs=$(grep -c "^kleene: error: " "$tmp/err")
      [ "$errs" = 1 ] || fail "$what: $errs error lines, not one: $(cat "$tmp/err")"
      grep -q "^kleene: error: $want.*(fault plan)" "$tmp/err" ||
        fail "$what: message: $(grep 'kleene: error' "$tmp/err"), want 'kleene: error: $want... (fault plan)'"
      in_time "$what"
      nothing_written "$what"
    done <<EOF
exception:$last:3 apsp
allocation:0:$steps apsp --no-lookahead
setup:$last apsp
exception:0:1 closure
allocation:$last:5 closure --no-lookahead
EOF
    # A layout (--distributed-output): no directory, no staging directory.
    what="np=$np $where apsp --distributed-output, exception:1:2"
    run "$np" apsp "$tmp/g.mtx" --distributed-output "$tmp/layout" --device "$dev" --block 16 -q \
      --local-blocks "$where" --inject-fault exception:1:2 --rank-timeout 10
    [ "$(cat "$tmp"/rc.* 2>/dev/null | sort | uniq -c | awk '{print $1 ":" $2}')" = "$np:1" ] ||
      fail "$what: not every rank exited 1: $(grep . "$tmp"/rc.* | tr '\n' ' ')"
    grep -q "^kleene: error: rank 1: step 2 of $steps: .*(fault plan)" "$tmp/err" ||
      fail "$what: message: $(cat "$tmp/err")"
    in_time "$what"
    nothing_written "$what"
  done
  # A rank that stops answering: the others give up after --rank-timeout and end the job.
  what="np=$np closure, rank $last hangs at step 2, --rank-timeout 2"
  run_direct "$np" closure "$tmp/g.mtx" -o "$tmp/out.mtx" --device "$dev" --block 16 -q \
    --inject-fault "hang:$last:2" --rank-timeout 2
  [ "$rc" = 1 ] || fail "$what: mpirun exit $rc, not 1 (MPI_Abort)"
  grep -q "^kleene: error: rank [0-9]*: step 2 of $steps: no answer within [0-9.]* s from the other ranks in .*: a rank is stuck or was lost" "$tmp/err" ||
    fail "$what: message: $(cat "$tmp/err")"
  in_time "$what"
  nothing_written "$what" killed
  # A rank killed at step 2: mpirun ends the others and names it.
  what="np=$np apsp, rank 1 killed (SIGKILL) at step 2"
  run_direct "$np" apsp "$tmp/g.mtx" -o "$tmp/out.mtx" --device "$dev" --block 16 -q \
    --inject-fault kill:1:2
  [ "$rc" = 137 ] || fail "$what: mpirun exit $rc, not 137"
  grep -q "process rank 1 .*signal 9" "$tmp/err" || fail "$what: message: $(cat "$tmp/err")"
  in_time "$what"
  nothing_written "$what" killed
done

# A rank killed from outside while the others wait (no --rank-timeout): the job ends at once.
np=${ranks##* }
np=${np:-2}
what="np=$np apsp, rank 1 killed by kill -9 while rank $((np - 1)) hangs"
timeout $limit "$mpiexec" --allow-run-as-root --oversubscribe -x OMP_NUM_THREADS=1 \
  -x NCCL_NVLS_ENABLE=0 -np "$np" "$kleene" apsp "$tmp/g.mtx" -o "$tmp/out.mtx" --device "$dev" \
  --block 16 -q --inject-fault "hang:$((np - 1)):2" --rank-timeout 0 >/dev/null 2>"$tmp/err" &
job=$!
sleep 3
# The ranks are mpirun's children, started in rank order.
launcher=$(pgrep -P $job -x "$(basename "$mpiexec")" || pgrep -P $job)
victim=$(pgrep -P "$launcher" | sort -n | sed -n 2p)
t0=$(date +%s.%N)
if [ -n "$victim" ]; then
  kill -9 "$victim"
  wait $job
  rc=$?
  secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  [ "$rc" = 137 ] || fail "$what: mpirun exit $rc, not 137"
  grep -q "process rank 1 .*signal 9" "$tmp/err" || fail "$what: message: $(cat "$tmp/err")"
  in_time "$what"
  echo "killed rank 1 (pid $victim): the job ended $secs s later, mpirun exit $rc"
else
  fail "$what: no rank process found under mpirun"
  kill $job
  wait $job
fi
nothing_written "$what" killed

[ "$fails" = 0 ] && echo "OK: failures on one rank end every rank ($dev)"
exit $((fails > 0))
