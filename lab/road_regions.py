#!/usr/bin/python3
"""How many region boundaries a road network's shortest-path chains cross, for a GPU SSSP/BFS
that keeps each region's labels in one block's shared memory (a chain step inside a region at
shared-memory latency, a step across a boundary through global memory, as the work list pays
every step today: docs/performance.md, "chain-latency bound").

Regions: recursive BFS bisection (grow a BFS from a peripheral vertex of the part until it holds
half the part's vertices; repeat on both halves), 2^k parts. For each source, the shortest-path
tree (Dijkstra, weights as road_*.mtx: uniform 1..255, seed 27182818; or unit weights for BFS)
and, over every vertex, the number of tree edges on its path to the source (the chain) and how
many of them cross from one region to another. Usage:
    lab/road_regions.py ../shared/data/road/NE.gr.xz [--parts 128 256] [--sources 4] [--bfs]
"""
import argparse
import lzma
import random
import sys

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as cg


def read(path):
    op = lzma.open if path.endswith(".xz") else open
    edges = set()
    with op(path, "rt") as f:
        n = int(f.readline().split()[2])
        for line in f:
            u, v = map(int, line.split())
            if u != v:
                edges.add((max(u, v), min(u, v)))
    rng = random.Random(27182818)
    rows, cols, w = [], [], []
    for r, c in sorted(edges):  # the order and draws of to_mtx.py
        x = rng.randint(1, 255)
        rows += [r - 1, c - 1]
        cols += [c - 1, r - 1]
        w += [x, x]
    return sp.csr_matrix((np.array(w, float), (rows, cols)), shape=(n, n))


def bisect(a, verts, depth, part, next_id):
    """Assigns part ids to `verts` (an index array) by recursive BFS bisection."""
    if depth == 0 or len(verts) < 2:
        part[verts] = next_id[0]
        next_id[0] += 1
        return
    sub = a[verts][:, verts]
    # A peripheral vertex: the last one reached by a BFS from the first (twice).
    start = 0
    for _ in range(2):
        order = cg.breadth_first_order(sub, start, directed=False, return_predecessors=False)
        start = order[-1]
    order = cg.breadth_first_order(sub, start, directed=False, return_predecessors=False)
    if len(order) < len(verts):  # a disconnected part: the unreached vertices go last
        seen = np.zeros(len(verts), bool)
        seen[order] = True
        order = np.concatenate([order, np.nonzero(~seen)[0]])
    half = len(order) // 2
    bisect(a, verts[order[:half]], depth - 1, part, next_id)
    bisect(a, verts[order[half:]], depth - 1, part, next_id)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("graph")
    ap.add_argument("--parts", type=int, nargs="+", default=[128])
    ap.add_argument("--sources", type=int, default=4)
    ap.add_argument("--bfs", action="store_true", help="unit weights")
    o = ap.parse_args()
    a = read(o.graph)
    n = a.shape[0]
    if o.bfs:
        a.data[:] = 1
    rng = np.random.default_rng(7)
    sources = [0] + list(rng.integers(0, n, o.sources - 1))
    trees = []
    for s in sources:
        d, pred = cg.dijkstra(a, indices=int(s), return_predecessors=True)
        # Chain length (tree edges to the source) in order of distance.
        order = np.argsort(d, kind="stable")
        hops = np.zeros(n, np.int64)
        for v in order[1:]:
            p = pred[v]
            if p >= 0:
                hops[v] = hops[p] + 1
        trees.append((s, order, pred, hops))
    print(f"{o.graph}: n={n}, {a.nnz // 2} undirected edges, "
          f"{'unit' if o.bfs else '1..255'} weights")
    for k in o.parts:
        depth = int(np.log2(k))
        part = np.full(n, -1, np.int64)
        bisect(a, np.arange(n), depth, part, [0])
        coo = a.tocoo()
        cut = np.count_nonzero(part[coo.row] != part[coo.col]) // 2
        sizes = np.bincount(part)
        for s, order, pred, hops in trees:
            cross = np.zeros(n, np.int64)
            for v in order[1:]:
                p = pred[v]
                if p >= 0:
                    cross[v] = cross[p] + (part[v] != part[p])
            deep = int(np.argmax(hops))
            print(f"  {2 ** depth} regions (largest {sizes.max()} vertices, "
                  f"{4 * sizes.max() / 1024:.0f} KiB of 4-byte labels; {cut} cut edges): "
                  f"source {s}: deepest chain {hops.max()} edges, crossing {cross[deep]} "
                  f"boundaries; most crossings on any chain {cross.max()}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
