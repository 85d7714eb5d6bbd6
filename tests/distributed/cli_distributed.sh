#!/usr/bin/env bash
# `mpirun -np P kleene apsp|closure` against the one-process command on small random graphs:
# outputs equal byte for byte (integer weights; fp64 too on the CPU, where the distributed tiles
# repeat blocked-fw's order), the same error for a negative cycle and an int32 overflow, a failure
# on rank 0 ending every rank (no hang), and --explain's grid line.
# Usage: cli_distributed.sh KLEENE MPIEXEC cpu|gpu
set -uo pipefail
kleene=$1 mpiexec=$2 dev=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpi() {  # mpi NP ARGS...: a time limit so that a hang fails instead of eating the CI budget
  local np=$1
  shift
  # Open MPI waits odls_base_sigkill_timeout (1 s, twice) before it reports a rank's exit
  # code 1: the runs that are meant to fail took 2.4 s each (most of this test's time).
  OMPI_MCA_odls_base_sigkill_timeout=0 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader timeout 120 "$mpiexec" --allow-run-as-root --oversubscribe -x OMP_NUM_THREADS=1 \
    -x NCCL_NVLS_ENABLE=0 -np "$np" "$kleene" "$@"
}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
if [ "$dev" = gpu ] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: no GPU"
  exit 0
fi

# gen FILE N DEGREE LO HI FIELD SEED NEGCYCLE: random weights in [LO, HI] plus potentials
# p(u) - p(v) (negative edges, no negative cycle); NEGCYCLE=1 adds a cycle of weight -1.
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

gen "$tmp/int.mtx" 150 5 0 60 integer 11 0
gen "$tmp/real.mtx" 130 5 0.5 9.5 real 12 0
gen "$tmp/negcyc.mtx" 120 3 0 30 integer 13 1
gen "$tmp/big.mtx" 140 1.3 536870912 1073741823 integer 14 0
gen "$tmp/wide.mtx" 140 60 67108864 67109864 integer 15 0

"$kleene" apsp "$tmp/int.mtx" -o "$tmp/int_ref.mtx" --device cpu -q --paths "$tmp/int_pref.mtx" || fail "reference apsp int"
"$kleene" apsp "$tmp/real.mtx" -o "$tmp/real_ref.mtx" --device cpu --algorithm blocked-fw -q || fail "reference apsp real"
"$kleene" apsp "$tmp/wide.mtx" -o "$tmp/wide_ref.mtx" --device cpu -q || fail "reference apsp wide"
"$kleene" closure "$tmp/int.mtx" -o "$tmp/clo_ref.mtx" --device cpu -q || fail "reference closure"
"$kleene" closure "$tmp/negcyc.mtx" -o "$tmp/clo2_ref.mtx" --device cpu --reflexive -q || fail "reference closure"
"$kleene" apsp "$tmp/negcyc.mtx" -o "$tmp/x.mtx" --device cpu --algorithm blocked-fw -q 2>"$tmp/neg_ref.err" && fail "negative cycle not found (reference)"
"$kleene" apsp "$tmp/big.mtx" -o "$tmp/x.mtx" --device cpu -q 2>"$tmp/big_ref.err" && fail "overflow not found (reference)"

ranks="1 2 4"
if [ "$dev" = gpu ]; then  # one GPU per rank: NCCL refuses two ranks on one device
  gpus=$(nvidia-smi -L | grep -c GPU)
  ranks=$(for r in 1 2 4; do [ "$r" -le "$gpus" ] && printf '%s ' "$r"; done)
  echo "GPUs: $gpus; ranks tried: $ranks"
fi
for np in $ranks; do
  one=()
  [ "$np" = 1 ] && one=(--distributed)
  mpi $np apsp "$tmp/int.mtx" -o "$tmp/int_$np.mtx" --device $dev -q --paths "$tmp/int_p$np.mtx" "${one[@]}" || fail "np=$np apsp int"
  cmp -s "$tmp/int_ref.mtx" "$tmp/int_$np.mtx" || fail "np=$np apsp int32 distances differ"
  cmp -s "$tmp/int_pref.mtx" "$tmp/int_p$np.mtx" || fail "np=$np apsp predecessors differ"
  mpi $np apsp "$tmp/wide.mtx" -o "$tmp/wide_$np.mtx" --device $dev -q "${one[@]}" || fail "np=$np apsp widened"
  cmp -s "$tmp/wide_ref.mtx" "$tmp/wide_$np.mtx" || fail "np=$np apsp int32 near the top (widened) differs"
  if [ "$dev" = cpu ]; then
    mpi $np apsp "$tmp/real.mtx" -o "$tmp/real_$np.mtx" --device cpu -q "${one[@]}" || fail "np=$np apsp real"
    cmp -s "$tmp/real_ref.mtx" "$tmp/real_$np.mtx" || fail "np=$np apsp fp64 differs from blocked-fw"
  fi
  if [ "$dev" = gpu ]; then  # out of core per rank: the blocks streamed through the GPUs
    mpi $np apsp "$tmp/int.mtx" -o "$tmp/ints_$np.mtx" --device gpu --local-blocks streamed -q --explain "${one[@]}" 2>"$tmp/streamed.err" || fail "np=$np apsp streamed"
    cmp -s "$tmp/int_ref.mtx" "$tmp/ints_$np.mtx" || fail "np=$np apsp streamed distances differ"
    grep -q "streamed through the device" "$tmp/streamed.err" || fail "np=$np --local-blocks streamed: not streamed by the explain trace"
    mpi $np closure "$tmp/int.mtx" -o "$tmp/clos_$np.mtx" --device gpu --local-blocks streamed -q "${one[@]}" || fail "np=$np closure streamed"
    cmp -s "$tmp/clo_ref.mtx" "$tmp/clos_$np.mtx" || fail "np=$np closure streamed differs"
  else  # asked of a CPU run: refused, nothing written, an existing output left as it was
    for v in streamed device; do
      for cmd in apsp closure; do
        rm -f "$tmp/ints_$np.mtx"
        mpi $np $cmd "$tmp/int.mtx" -o "$tmp/ints_$np.mtx" --device cpu --local-blocks $v -q "${one[@]}" 2>"$tmp/streamed.err"
        rc=$?
        [ $rc = 1 ] || fail "np=$np $cmd --local-blocks $v on the CPU: exit $rc, not 1"
        [ -e "$tmp/ints_$np.mtx" ] && fail "np=$np $cmd --local-blocks $v on the CPU: output written"
        grep -q "this run is on the CPU" "$tmp/streamed.err" || fail "np=$np --local-blocks on the CPU: $(cat "$tmp/streamed.err")"
      done
    done
    echo keep >"$tmp/old_$np.mtx"
    mpi $np apsp "$tmp/int.mtx" -o "$tmp/old_$np.mtx" --device cpu --local-blocks streamed -q "${one[@]}" 2>/dev/null
    [ "$(cat "$tmp/old_$np.mtx")" = keep ] || fail "np=$np refused --local-blocks replaced an existing output"
  fi
  mpi $np closure "$tmp/int.mtx" -o "$tmp/clo_$np.mtx" --device $dev -q "${one[@]}" || fail "np=$np closure"
  cmp -s "$tmp/clo_ref.mtx" "$tmp/clo_$np.mtx" || fail "np=$np closure differs"
  mpi $np closure "$tmp/negcyc.mtx" -o "$tmp/clo2_$np.mtx" --reflexive --device $dev -q "${one[@]}" || fail "np=$np closure reflexive"
  cmp -s "$tmp/clo2_ref.mtx" "$tmp/clo2_$np.mtx" || fail "np=$np reflexive closure differs"
  # Errors: every rank exits 1, rank 0 reports once, the output is not written.
  mpi $np apsp "$tmp/negcyc.mtx" -o "$tmp/neg_$np.mtx" --device $dev -q "${one[@]}" 2>"$tmp/neg_$np.err"
  rc=$?
  [ $rc = 1 ] || fail "np=$np negative cycle: exit $rc, not 1"
  [ -e "$tmp/neg_$np.mtx" ] && fail "np=$np negative cycle: output written"
  grep -c "negative cycle" "$tmp/neg_$np.err" | grep -qx 1 || fail "np=$np negative cycle: message not printed once: $(cat "$tmp/neg_$np.err")"
  if [ "$dev" = cpu ]; then
    grep "kleene: error" "$tmp/neg_$np.err" | cmp -s - "$tmp/neg_ref.err" || fail "np=$np negative cycle message: $(cat "$tmp/neg_$np.err") vs $(cat "$tmp/neg_ref.err")"
  fi
  mpi $np apsp "$tmp/big.mtx" -o "$tmp/big_$np.mtx" --device $dev -q "${one[@]}" 2>"$tmp/big_$np.err"
  rc=$?
  [ $rc = 1 ] || fail "np=$np overflow: exit $rc, not 1"
  grep "kleene: error" "$tmp/big_$np.err" | cmp -s - "$tmp/big_ref.err" || fail "np=$np overflow message: $(cat "$tmp/big_$np.err") vs $(cat "$tmp/big_ref.err")"
  mpi $np apsp "$tmp/missing.mtx" -o "$tmp/m.mtx" --device $dev -q "${one[@]}" 2>"$tmp/miss.err"
  rc=$?
  [ $rc = 1 ] || fail "np=$np missing input: exit $rc, not 1 (124: hang)"
  mpi $np apsp "$tmp/int.mtx" -o "$tmp/e.mtx" --device $dev --explain "${one[@]}" 2>"$tmp/explain.err" >/dev/null || fail "np=$np explain"
  grep -q "grid" "$tmp/explain.err" || fail "np=$np --explain has no grid line"
done
[ "$fails" = 0 ] && echo "OK: distributed apsp and closure ($dev) equal the one-process command"
exit $((fails > 0))
