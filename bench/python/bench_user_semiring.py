#!/usr/bin/env python3
"""The generic CPU kernels of user semirings (kleene::runtime_semiring: operators chosen per call)
against the compiled instance of the same semiring (min.plus), mxv and mxm on random graphs.

    OMP_NUM_THREADS=2 PYTHONPATH=build/python /usr/bin/python3 bench/python/bench_user_semiring.py

Prints the best wall time of a few runs of each and the ratio generic / compiled (above 1: the
generic kernels are slower). Semiring._generic forces a composition that is a built-in through the
generic kernels; the results are checked equal.
"""

import argparse
import platform

import numpy as np
import scipy.sparse as sp

import kleene
from bench_vs_scipy import best  # this folder: the script's own, first on sys.path


def graph(n, degree, seed):
    rng = np.random.default_rng(seed)
    e = n * degree
    a = sp.coo_matrix((rng.integers(1, 100, e).astype(np.float64),
                       (rng.integers(0, n, e), rng.integers(0, n, e))), shape=(n, n)).tocsr()
    a.sum_duplicates()
    return kleene.Matrix.from_scipy(a, index="int32")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--semiring", default="min.plus")
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    compiled = kleene.semiring(args.semiring)
    generic = kleene.Semiring._generic(compiled.add, compiled.multiply)
    print(f"# {platform.node()}, {platform.processor() or platform.machine()}, "
          f"kleene instances {kleene._kleene._instances}, semiring {compiled}")
    print(f"{'case':<28}{'compiled ms':>12}{'generic ms':>12}{'ratio':>8}")
    for n, degree in ((1 << 14, 16), (1 << 17, 16), (1 << 20, 8)):
        a = graph(n, degree, 1)
        u = np.random.default_rng(2).integers(1, 100, n).astype(np.float64)
        tc, wc = best(lambda: kleene.mxv(a, u, compiled), args.runs)
        tg, wg = best(lambda: kleene.mxv(a, u, generic), args.runs)
        assert np.array_equal(wc, wg)
        print(f"{f'mxv n=2^{n.bit_length() - 1} d={degree}':<28}{tc * 1e3:>12.2f}{tg * 1e3:>12.2f}"
              f"{tg / tc:>8.2f}")
    for n, degree in ((1 << 12, 8), (1 << 14, 8), (1 << 16, 4)):
        a = graph(n, degree, 3)
        tc, cc = best(lambda: kleene.mxm(a, a, compiled), max(2, args.runs // 2))
        tg, cg = best(lambda: kleene.mxm(a, a, generic), max(2, args.runs // 2))
        assert np.array_equal(cc.to_scipy().data, cg.to_scipy().data)
        print(f"{f'mxm n=2^{n.bit_length() - 1} d={degree}':<28}{tc * 1e3:>12.2f}{tg * 1e3:>12.2f}"
              f"{tg / tc:>8.2f}")


if __name__ == "__main__":
    main()
