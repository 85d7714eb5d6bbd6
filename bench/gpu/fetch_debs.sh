#!/usr/bin/env bash
# Downloads the Debian packages the GPU host lacks (GraphBLAS, Boost.Test, fmt, CLI11) into
# .deps/debs (git-ignored through .git/info/exclude); name `.deps` in the device tool's `carry`,
# and bench/gpu/run.sh unpacks them there. Open MPI (for run_multi.sh) goes to .deps/mpi.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$root/.deps/debs"
cd "$root/.deps/debs"
apt-get update
apt-get download libgraphblas7 libgraphblas-dev libboost-test1.74-dev libboost-test1.74.0 \
  libboost1.74-dev libfmt9 libfmt-dev libcli11-dev
# Open MPI and its runtime libraries for bench/gpu/run_multi.sh, which unpacks them into a prefix
# of their own (not /: Debian's libraries must not replace the host's).
mkdir -p "$root/.deps/mpi"
(cd "$root/.deps/mpi" && apt-get download openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev \
  libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7 libfabric1 libucx0 libibverbs1 \
  ibverbs-providers librdmacm1 libnl-3-200 libnl-route-3-200 libpsm2-2 libpsm-infinipath1 \
  libnuma1 libmunge2 libatomic1)
exclude=$(git -C "$root" rev-parse --path-format=absolute --git-path info/exclude)  # also right in a worktree
grep -qx '/.deps/' "$exclude" 2>/dev/null || echo '/.deps/' >> "$exclude"
ls -1 "$root/.deps/debs" "$root/.deps/mpi"
