#!/usr/bin/env bash
# Session 34, call D: mxv / vxm with w as their own input (w = A w, w = w A, w<m> accum= A w) on
# the device, added to test_mxm_gpu's c_as_an_operand_on_the_device after call C found the same
# fault on the host's pull SpMV; the test binary built without both copies (must fail); memcheck;
# the suites that include mxm.hpp. Logs in the output tail (the device tool returns few files).
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c34d; out=${OUT:-/tmp/out}; mkdir -p "$out"; logs=/tmp/logs; mkdir -p $logs
note() { echo "== $(date +%T) $*"; }
finish() { tar -C /tmp -cJf "$out/logs_d.tar.xz" logs; note end; }
trap finish EXIT
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
note "test_mxm_gpu c_as_an_operand_on_the_device"
(cd /tmp && timeout 60 $b/test_mxm_gpu --run_test=c_as_an_operand_on_the_device > $logs/alias.txt 2>&1; echo "rc=$?" >> $logs/alias.txt)
tail -3 $logs/alias.txt
note "without the copies (must fail)"
(cd /tmp && timeout 60 $b/test_mxm_gpu_broken --run_test=c_as_an_operand_on_the_device > $logs/broken.txt 2>&1; echo "rc=$?" >> $logs/broken.txt)
grep -E "error" $logs/broken.txt | cut -c1-200 | head -8; tail -2 $logs/broken.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$cs" ]; then
  note memcheck
  (cd /tmp && timeout 90 $cs --tool memcheck $b/test_mxm_gpu --run_test=c_as_an_operand_on_the_device > $logs/memcheck.txt 2>&1; echo "rc=$?" >> $logs/memcheck.txt)
  tail -2 $logs/memcheck.txt
fi
for t in test_mxm_gpu test_dispatch_gpu test_capture_gpu test_graph_kernels_gpu test_graph_object_gpu test_sparse_gpu test_operations_gpu; do
  note $t
  (cd /tmp && timeout 150 $b/$t > "$logs/$t.txt" 2>&1; echo "rc=$?" >> "$logs/$t.txt")
  grep -E "failure|No errors|error:" "$logs/$t.txt" | tail -3; tail -1 "$logs/$t.txt"
done
