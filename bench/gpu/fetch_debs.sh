#!/usr/bin/env bash
# Downloads the Debian packages the GPU host lacks (GraphBLAS, Boost.Test, fmt, CLI11) into
# .deps/debs (git-ignored through .git/info/exclude); name `.deps` in the device tool's `carry`,
# and bench/gpu/run.sh unpacks them there.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$root/.deps/debs"
cd "$root/.deps/debs"
apt-get update
apt-get download libgraphblas7 libgraphblas-dev libboost-test1.74-dev libboost-test1.74.0 \
  libboost1.74-dev libfmt9 libfmt-dev libcli11-dev
grep -qx '/.deps/' "$root/.git/info/exclude" 2>/dev/null || echo '/.deps/' >> "$root/.git/info/exclude"
ls -1 "$root/.deps/debs"
