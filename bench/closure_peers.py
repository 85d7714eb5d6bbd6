#!/usr/bin/python3
"""Transitive closure beside its Python peers, on the graphs `bench_closure --write DIR` wrote.

For each NAME, DIR/NAME.kbin is the graph and DIR/NAME.closure.kbin kleene's closure (pairs of one
edge or more). Runs networkx's transitive_closure_dag (on the graph when it is a DAG, else on its
condensation, expanded back to vertices as a networkx user would) and a SciPy BFS from every vertex
(breadth_first_order; a vertex is in its own row when one of its in-neighbours was reached), and
says whether each answer equals kleene's. Times are wall seconds of the closure alone (graph
building and answer collection not counted), plus the process CPU seconds.

Usage: /usr/bin/python3 bench/closure_peers.py DIR NAME [NAME ...] [--only networkx|scipy]
       [--sample K]
--sample K: the SciPy BFS from K random vertices only (breadth_first_order allocates O(n) a call,
so all n of them take O(n^2)), their rows compared with kleene's, the time scaled to n.
(Debian's python3-networkx and python3-scipy; the pyenv python3 lacks them.)
"""
import struct
import sys
import time

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order


def read_kbin(path):
    """A CSR .kbin file (kleene's binary format, matrix_io/include/kleene/io/binary.hpp) as SciPy
    CSR; only the pattern is read."""
    with open(path, "rb") as f:
        head = f.read(128)
        if head[:8] != b"KLEENEMX" or head[16] != 1:
            raise SystemExit(f"{path}: not a kleene CSR .kbin file")
        index_bytes = head[18]
        rows, cols, nnz = struct.unpack_from("<QQQ", head, 24)
        it = np.dtype("<i4" if index_bytes == 4 else "<i8")
        ptr = np.fromfile(f, dtype=it, count=rows + 1).astype(np.int64)
        idx = np.fromfile(f, dtype=it, count=nnz).astype(np.int64)
    return sp.csr_matrix((np.ones(nnz, dtype=np.bool_), idx, ptr), shape=(rows, cols))


def keys_of_csr(a):
    """Row-major keys i * n + j of a CSR matrix's pattern (sorted when its rows are)."""
    n = a.shape[1]
    rows = np.repeat(np.arange(a.shape[0], dtype=np.int64), np.diff(a.indptr))
    return rows * n + a.indices.astype(np.int64)


def timed(f):
    t0, c0 = time.perf_counter(), time.process_time()
    r = f()
    return r, time.perf_counter() - t0, time.process_time() - c0


def scipy_bfs(a, sources=None):
    n = a.shape[0]
    at = a.T.tocsr()
    out = []
    sources = range(n) if sources is None else sources

    def run():
        for s in sources:
            order = breadth_first_order(a, s, directed=True, return_predecessors=False)
            row = order[1:]
            ins = at.indices[at.indptr[s]:at.indptr[s + 1]]
            if len(ins) and np.isin(ins, order, assume_unique=False).any():
                row = order
            if len(row):
                out.append(s * n + np.sort(row.astype(np.int64)))
        return out

    _, wall, cpu = timed(run)
    keys = np.concatenate(out) if out else np.zeros(0, dtype=np.int64)
    return keys, wall, cpu


def networkx_closure(a):
    n = a.shape[0]
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    coo = a.tocoo()
    g.add_edges_from(zip(coo.row.tolist(), coo.col.tolist()))
    if nx.is_directed_acyclic_graph(g):
        tc, wall, cpu = timed(lambda: nx.transitive_closure_dag(g))
        keys = np.fromiter((u * n + v for u, v in tc.edges()), dtype=np.int64, count=tc.number_of_edges())
        return np.sort(keys), wall, cpu, "transitive_closure_dag"

    def run():
        c = nx.condensation(g)
        return c, nx.transitive_closure_dag(c)

    (c, tc), wall, cpu = timed(run)
    members = {x: np.fromiter(c.nodes[x]["members"], dtype=np.int64) for x in c.nodes}
    loops = {u for u, v in g.edges() if u == v}
    parts = []
    for x in c.nodes:
        m = members[x]
        reach = [members[y] for y in tc.successors(x)]
        if len(m) > 1 or m[0] in loops:
            reach.append(m)
        if not reach:
            continue
        cols = np.sort(np.concatenate(reach))
        parts.append((m[:, None] * n + cols[None, :]).ravel())
    keys = np.sort(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)
    return keys, wall, cpu, "condensation + transitive_closure_dag"


def main():
    args = [x for x in sys.argv[1:] if not x.startswith("--")]
    only = None
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1]
        args.remove(only)
    sample = 0
    if "--sample" in sys.argv:
        sample = int(sys.argv[sys.argv.index("--sample") + 1])
        args.remove(str(sample))
    if len(args) < 2:
        raise SystemExit(__doc__)
    d = args[0]
    print(f"networkx {nx.__version__}, scipy {__import__('scipy').__version__}, numpy {np.__version__}")
    for name in args[1:]:
        a = read_kbin(f"{d}/{name}.kbin")
        want = keys_of_csr(read_kbin(f"{d}/{name}.closure.kbin"))
        print(f"{name}: {a.shape[0]} vertices, {a.nnz} edges, kleene: {len(want)} pairs", flush=True)
        if only in (None, "scipy") and sample:
            # K random sources: their rows against kleene's, the time scaled to all n.
            n = a.shape[0]
            src = np.sort(np.random.default_rng(1).choice(n, size=min(sample, n), replace=False))
            got, wall, cpu = scipy_bfs(a, src.tolist())
            c = read_kbin(f"{d}/{name}.closure.kbin")
            rows = [s * n + c.indices[c.indptr[s]:c.indptr[s + 1]].astype(np.int64) for s in src]
            mine = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
            f = n / len(src)
            print(f"  scipy BFS from {len(src)} random vertices: {wall:.1f} s (cpu {cpu:.1f} s), "
                  f"so about {wall * f:.0f} s (cpu {cpu * f:.0f} s) from all {n}; their {len(got)} "
                  f"pairs {'equal' if np.array_equal(got, mine) else 'DIFFERENT'} to kleene's rows",
                  flush=True)
        elif only in (None, "scipy"):
            got, wall, cpu = scipy_bfs(a)
            print(f"  scipy BFS from every vertex: {wall:.1f} s (cpu {cpu:.1f} s), {len(got)} pairs, "
                  f"{'equal' if np.array_equal(got, want) else 'DIFFERENT'}", flush=True)
        if only in (None, "networkx"):
            got, wall, cpu, how = networkx_closure(a)
            print(f"  networkx {how}: {wall:.1f} s (cpu {cpu:.1f} s), {len(got)} pairs, "
                  f"{'equal' if np.array_equal(got, want) else 'DIFFERENT'}", flush=True)


if __name__ == "__main__":
    main()
