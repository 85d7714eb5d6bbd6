#!/usr/bin/env python3
"""kleene beside SciPy, in one run: APSP on the CPU, BFS, and Matrix Market read.

    PYTHONPATH=build/python /usr/bin/python3 bench/python/bench_vs_scipy.py [--quick]

Prints one table: best wall time of a few runs for each side (one run for the slow SciPy APSP),
and the ratio scipy / kleene (above 1: kleene is faster). Inputs are generated with a fixed seed:
APSP on a random directed graph of n vertices and about n * degree edges (weights 1..100), BFS on
a random directed graph of 2^scale vertices and 16 edges per vertex, the Matrix Market file is
that BFS graph with its weights.
"""

import argparse
import os
import platform
import tempfile
import time

import numpy as np
import scipy
import scipy.io
import scipy.sparse as sp
from scipy.sparse import csgraph

import kleene


def best(f, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return min(times), out


def random_graph(n, edges, seed, weights=(1, 100)):
    rng = np.random.default_rng(seed)
    i = rng.integers(0, n, edges)
    j = rng.integers(0, n, edges)
    w = rng.integers(weights[0], weights[1] + 1, edges).astype(np.float64)
    keep = i != j  # no self-loops
    a = sp.coo_matrix((w[keep], (i[keep], j[keep])), shape=(n, n)).tocsr()
    a.sum_duplicates()
    return a


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2048, help="APSP vertices (default 2048)")
    ap.add_argument("--degree", type=int, default=16, help="APSP edges per vertex (default 16)")
    ap.add_argument("--scale", type=int, default=18, help="BFS graph: 2^scale vertices (default 18)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="small sizes, to check the script runs")
    args = ap.parse_args()
    if args.quick:
        args.n, args.scale, args.runs = 256, 12, 1

    rows = []
    threads = os.environ.get("OMP_NUM_THREADS", "all")
    print(f"# {platform.node()}, {os.cpu_count()} CPUs (OMP_NUM_THREADS={threads}), NumPy {np.__version__}, SciPy "
          f"{scipy.__version__}, {kleene.device_count()} GPU(s) seen by kleene", flush=True)

    # APSP (CPU): kleene's cost-model choice and R-Kleene pinned, against SciPy's Floyd-Warshall
    # (dense, one thread) and Dijkstra from every source (sparse, one thread).
    a = random_graph(args.n, args.n * args.degree, 1)
    m = kleene.Matrix.from_scipy(a)
    t_k, d_k = best(lambda: kleene.apsp(m, device="cpu"), args.runs)
    t_r, d_r = best(lambda: kleene.apsp(m, algorithm="rkleene", device="cpu"), args.runs)
    t_fw, d_fw = best(lambda: csgraph.floyd_warshall(a, directed=True), 1)
    t_dj, d_dj = best(lambda: csgraph.shortest_path(a, method="D", directed=True), 1)
    assert np.array_equal(d_k, d_fw) and np.array_equal(d_r, d_fw) and np.array_equal(d_dj, d_fw)
    _, why = kleene.apsp(m, device="cpu", explain=True)
    chose = [l for l in why.splitlines() if "chose" in l][0].split("chose ")[1]
    label = f"apsp n={args.n}, {a.nnz} edges, fp64"
    rows.append((label + f" (kleene auto: {chose}; scipy FW)", t_k, t_fw))
    rows.append((label + " (kleene rkleene; scipy FW)", t_r, t_fw))
    rows.append((label + f" (kleene auto: {chose}; scipy Dijkstra)", t_k, t_dj))

    # BFS from one source (levels; SciPy's order and predecessors).
    n = 1 << args.scale
    g = random_graph(n, 16 * n, 2)
    gm = kleene.Matrix.from_scipy(g)
    source = int(np.argmax(np.diff(g.indptr)))
    gt = kleene.Matrix.from_scipy(g.T.tocsr())
    t_kb, lv = best(lambda: kleene.bfs(gm, source), args.runs + 2)
    t_kt, lv2 = best(lambda: kleene.bfs(gm, source, transpose=gt), args.runs + 2)
    t_sb, (order, _) = best(lambda: csgraph.breadth_first_order(g, source, directed=True), args.runs + 2)
    assert set(np.nonzero(lv >= 0)[0]) == set(order) and np.array_equal(lv, lv2)
    rows.append((f"bfs 2^{args.scale} vertices, {g.nnz} edges (A' made in the call)", t_kb, t_sb))
    rows.append((f"bfs 2^{args.scale} vertices, {g.nnz} edges (A' given)", t_kt, t_sb))

    # Matrix Market read of the BFS graph (real, general).
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "g.mtx")
        kleene.write_mtx(path, gm, type_line=False)
        size = os.path.getsize(path)
        t_kr, r = best(lambda: kleene.read_mtx(path), args.runs)
        t_sr, s = best(lambda: scipy.io.mmread(path), 1)
        assert r.nnz == s.nnz
    rows.append((f"read .mtx {size / 2**20:.0f} MiB, {g.nnz} entries (scipy.io.mmread)", t_kr, t_sr))

    w = max(len(r[0]) for r in rows)
    print(f"{'task':<{w}}  {'kleene s':>9}  {'scipy s':>9}  {'scipy/kleene':>12}")
    for name, tk, ts in rows:
        print(f"{name:<{w}}  {tk:9.3f}  {ts:9.3f}  {ts / tk:12.1f}")


if __name__ == "__main__":
    main()
