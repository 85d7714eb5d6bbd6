#!/usr/bin/env bash
# Session 24, call A (2 x H200): the distributed device path on the context's stream and pool.
set -uo pipefail
root=$(pwd)
lab=$root/build-lab/c24a
out=${OUT:-/tmp/out}
mkdir -p "$out"
exec > >(tee "$out/log.txt") 2>&1
note() { echo "== $(date +%T) $*"; }
note "host"; nvidia-smi -L; nproc
for d in "$root"/build-lab/deps/*.deb; do dpkg -x "$d" / ; done
ldconfig
if ! command -v mpirun >/dev/null; then
  p=/opt/kleene-mpi; mkdir -p $p
  for d in "$root"/build-lab/deps/mpi/*.deb; do dpkg -x "$d" $p; done
  p=$p/usr
  export OPAL_PREFIX=$p PATH=$p/bin:$PATH
  export LD_LIBRARY_PATH=$p/lib/x86_64-linux-gnu:$p/lib/x86_64-linux-gnu/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  ln -sf "$p/bin/orterun" "$p/bin/mpirun"
fi
export NCCL_NVLS_ENABLE=0 OMPI_MCA_btl_vader_single_copy_mechanism=none
mpirun --version | head -1
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do xz -dc "$f" > $b/$(basename "$f" .xz); chmod +x $b/$(basename "$f" .xz); done
ls $b
MPI=(timeout 600 mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x OMPI_MCA_btl_vader_single_copy_mechanism)
[[ -n ${OPAL_PREFIX:-} ]] && MPI+=(-x OPAL_PREFIX -x LD_LIBRARY_PATH -x PATH)
: "${STAGES:=tests bench suites cli}"
has() { [[ " $STAGES " == *" $1 "* ]]; }
if has tests; then
  for np in ${NPS:-1 2}; do
    note "check_distributed_fw gpu np=$np"; "${MPI[@]}" -np $np $b/check_distributed_fw --device gpu; echo "rc=$?"
    [[ -n ${NO_STREAMED:-} ]] || { note "check_distributed_fw gpu np=$np --streamed 37"; "${MPI[@]}" -np $np $b/check_distributed_fw --device gpu --streamed 37; echo "rc=$?"; }
  done
  if [[ -x $b/check_distributed_fw_old ]]; then
    note "fail on purpose: the new check with the previous device path, np=1 and 2"
    for np in 1 2; do "${MPI[@]}" -np $np $b/check_distributed_fw_old --device gpu 2>&1 | grep -E "busy|FAIL|OK|cases" | head -20; done
  fi
fi
if has suites; then
  for t in test_out_of_core_gpu test_apsp_gpu test_graph_object_gpu test_capture_gpu test_paths_gpu test_result_copy_gpu test_apsp_batched_gpu test_graph_gpu test_graph_kernels_gpu; do
    [[ -x $b/$t ]] || continue
    note "$t"; timeout 900 $b/$t --log_level=message > "$out/$t.txt" 2>&1; echo "rc=$? skipped=$(grep -c 'test skipped' "$out/$t.txt")"; tail -3 "$out/$t.txt"
  done
fi
if has bench; then
  for round in ${ROUNDS:-1 2}; do
    for v in old new; do
      bin=$b/bench_distributed_apsp; [[ $v == old ]] && bin=$b/bench_distributed_apsp_old
      for np in ${BENCH_NPS:-1 2}; do
        note "$v np=$np n=32768"; "${MPI[@]}" -np $np $bin 32768 2>$out/bench_$v.$np.$round.err | tail -2
      done
      note "$v np=2 n=32768 --streamed"; "${MPI[@]}" -np 2 $bin 32768 --streamed 2>>$out/bench_$v.s.$round.err | tail -2
    done
  done
  for v in ${BIG:-}; do
    bin=$b/bench_distributed_apsp; [[ $v == old ]] && bin=$b/bench_distributed_apsp_old
    note "$v np=2 n=65536"; "${MPI[@]}" -np 2 $bin 65536 2>$out/bench_$v.65536.err | tail -2
  done
fi
if has cli; then
  [[ -n ${NO_CLI_PLAIN:-} ]] || note "cli_distributed gpu"; [[ -n ${NO_CLI_PLAIN:-} ]] || bash tests/distributed/cli_distributed.sh $b/kleene "$(command -v mpirun)" gpu 2>&1 | tail -5; echo "rc=${PIPESTATUS[0]}"
  note "cli_distributed_faults gpu"; bash tests/distributed/cli_distributed_faults.sh $b/kleene "$(command -v mpirun)" gpu 2>&1 | tail -8; echo "rc=${PIPESTATUS[0]}"
fi
note "end"
