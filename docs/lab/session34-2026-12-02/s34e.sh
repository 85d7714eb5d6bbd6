#!/usr/bin/env bash
# Session 34, call E: test_mxm_gpu built without the vector copy only (mxv / vxm with w as u):
# c_as_an_operand_on_the_device must fail in its w checks (call D's broken binary stopped at the
# GEMM's refusal of C = C C before reaching them).
set -uo pipefail
lab=$(pwd)/build-lab/c34e
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
xz -dc "$lab/bin/test_mxm_gpu_broken.xz" > /tmp/t && chmod +x /tmp/t
cd /tmp && timeout 60 ./t --run_test=c_as_an_operand_on_the_device 2>&1 | cut -c1-200 | tail -8
