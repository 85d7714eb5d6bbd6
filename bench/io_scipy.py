#!/usr/bin/env python3
"""scipy.io.mmread / mmwrite throughput on a Matrix Market file, at given thread counts.

SciPy >= 1.12 reads and writes through fast_matrix_market; its thread count is the module-level
PARALLELISM of scipy.io._fast_matrix_market. Usage: io_scipy.py FILE [threads ...]
"""
import os
import sys
import time

import scipy
import scipy.io
import scipy.io._fast_matrix_market as fmm


def best(reps, f):
    t = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - t0)
    return t


def main():
    path = sys.argv[1]
    threads = [int(x) for x in sys.argv[2:]] or [1, os.cpu_count()]
    mb = os.path.getsize(path) / 1e6
    out = path + ".scipy.mtx"
    print(f"scipy {scipy.__version__}: {path} {mb:.1f} MB")
    print(f"{'threads':>8} {'write s':>10} {'write MB/s':>11} {'read s':>10} {'read MB/s':>10}")
    a = None
    for t in threads:
        fmm.PARALLELISM = t
        r = best(2, lambda: scipy.io.mmread(path))
        a = scipy.io.mmread(path)
        w = best(2, lambda: scipy.io.mmwrite(out, a))
        wmb = os.path.getsize(out) / 1e6
        print(f"SCIPY threads={t} read_s={r:.3f} read_mbs={mb / r:.1f} write_s={w:.3f} write_mbs={wmb / w:.1f}")
    os.remove(out)


if __name__ == "__main__":
    main()
