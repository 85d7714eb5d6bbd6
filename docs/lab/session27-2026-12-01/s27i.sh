#!/usr/bin/env bash
# Session 27, call I: where the masked Gustavson's time goes at Kronecker scale 22 (ncu: each
# masked_saxpy kernel's duration, clocks left alone), renumbered by degree and not.
set -uo pipefail
root=$(pwd); lab=$root/build-lab/c27i; out=${OUT:-/tmp/out}; mkdir -p "$out"
for d in "$lab"/deps/*.deb; do dpkg -x "$d" / ; done; ldconfig
b=/tmp/bin; mkdir -p $b
for f in "$lab"/bin/*.xz; do n=$(basename "$f" .xz); xz -dc "$f" > $b/$n; chmod +x $b/$n; done
export OMP_PROC_BIND=close OMP_PLACES=cores
timeout 500 ncu --clock-control none -k regex:masked_saxpy --metrics gpu__time_duration.sum --csv \
  $b/bench_masked_tc --device gpu --scale ${SCALE:-22} --runs 1 --relabel --no-unmasked > "$out/ncu.csv" 2> "$out/ncu.err"
echo "rc=$?"; tail -3 "$out/ncu.err"
python3 - "$out/ncu.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]; k = hdr.index("Kernel Name"); v = hdr.index("Metric Value"); u = hdr.index("Metric Unit")
tot = collections.OrderedDict(); n = collections.Counter()
for r in rows[1:]:
    name = r[k][:160]
    scale = {"nsecond": 1e-6, "usecond": 1e-3, "msecond": 1.0, "second": 1e3}.get(r[u], 1.0)
    tot[name] = tot.get(name, 0) + float(r[v].replace(",", "")) * scale; n[name] += 1
for name, ms in tot.items(): print(f"{name}: {ms:.1f} ms in {n[name]} launches")
PY
