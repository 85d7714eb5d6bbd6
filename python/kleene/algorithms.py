"""Graph algorithms. Each takes a kleene.Matrix, a scipy.sparse matrix or a dense array (zeros are
"no edge", as in scipy.sparse.csgraph), with row u listing the out-edges of vertex u; ``device`` is
"auto", "cpu" or "gpu" (kleene.NoDevice where there is none: never a silent CPU run);
``explain=True`` returns (result, trace) where trace says which kernels ran and why. Long CPU runs
of bfs, sssp (Bellman-Ford) and apsp (R-Kleene, Floyd-Warshall) stop with KeyboardInterrupt on
Ctrl-C between their steps; every call releases the GIL while it computes.
"""

import numpy as np

from . import _kleene
from .matrix import Matrix, as_matrix, infinity
from .semiring import semiring as _as_semiring


def _out(result, trace, explain):
    return (result, trace) if explain else result


def bfs(a, source, *, parents=False, levels=True, direction="auto", device="auto",
        symmetric=False, transpose=None, explain=False):
    """Breadth-first search from ``source``: the level of every vertex (0 at the source, -1 where
    unreachable), int64. ``parents=True``: (levels, parents) with the source its own parent and -1
    where unreachable; ``levels=False`` with parents: parents only. Pull steps read A': pass
    ``symmetric=True`` for an undirected graph, or ``transpose=`` A' (a Matrix of A's dtype and
    index dtype) for many searches on one graph; otherwise each call transposes A when it first
    pulls."""
    m = as_matrix(a)
    t = None if transpose is None else as_matrix(transpose, dtype=m.dtype)
    lv, pa, trace = _kleene._bfs(m._s, source, levels, parents, direction, device, symmetric,
                                 None if t is None else t._s, explain)
    if parents and levels:
        result = (lv, pa)
    else:
        result = pa if parents else lv
    return _out(result, trace, explain)


def sssp(a, source, *, parents=False, method="auto", delta=0.0, device="auto", explain=False):
    """Single-source shortest distances (kleene.infinity(dtype) where unreachable: +inf for
    floats). method: auto (delta-stepping without negative weights, else Bellman-Ford; on
    the GPU the asynchronous work list on graphs of few edges a vertex), "bellman-ford",
    "delta-stepping", "async" (GPU only). A negative cycle raises kleene.NegativeCycle."""
    d, pa, trace = _kleene._sssp(as_matrix(a)._s, source, parents, method, float(delta), device,
                                 explain)
    return _out((d, pa) if parents else d, trace, explain)


def apsp(a, *, algorithm="auto", device="auto", predecessors=False, max_device_bytes=0,
         explain=False):
    """All-pairs shortest distances as a dense n x n array (the diagonal is 0 unless a negative
    cycle, which raises kleene.NegativeCycle). algorithm: auto (cost model), rkleene, blocked-fw,
    fw, johnson (CPU), bellman-ford (GPU). ``predecessors=True``: (D, P) with P[i, j] the vertex
    before j on a shortest i -> j path, -1 where none (see path())."""
    d, p, _alg, _dev, trace = _kleene._apsp(as_matrix(a)._s, algorithm, device, predecessors,
                                            int(max_device_bytes), explain)
    return _out((d, p) if predecessors else d, trace, explain)


def closure(a, semiring=None, *, reflexive=False, device="auto", explain=False):
    """Transitive closure A+ (A* with reflexive=True) as a Boolean CSR Matrix; with a
    ``semiring`` (a kleene.Semiring, a name like "max.min", a composition or source text), the
    closure over it: A+ = A (+) A^2 (+) ... (A* = I (+) A+: the diagonal set to one) as a dense
    result, absent entries being the semiring's zero.

    The semiring's add must be idempotent (min, max, lor, land, any: kleene.InvalidArgument
    otherwise) and its multiply have an identity; the result is exact when every cycle weight w
    satisfies add(one, w) == one, and a cycle that breaks it (min.plus: a negative cycle;
    max.times: a cycle heavier than 1) raises kleene.NegativeCycle naming a vertex on it. NaN
    entries raise kleene.InvalidArgument. Host input gives a NumPy array, computed on the CPU
    (device="auto" or "cpu") or on the GPU (device="gpu"); a device matrix gives a dense device
    Matrix (the JIT compiles the kernels for any semiring, source text included). Values
    float32, float64, int32, int64; over bool, lor.land is the Boolean closure, returned dense."""
    if semiring is None:
        c, trace = _kleene._closure(as_matrix(a)._s, reflexive, device, explain)
        return _out(Matrix(c), trace, explain)
    s = _as_semiring(semiring)
    m = as_matrix(a)
    if m.dtype == np.bool_ and (s.add, s.multiply) == ("lor", "land"):
        if m.device == "gpu":
            raise _kleene.InvalidArgument(
                "closure: bool values are not offered on the GPU (float32, float64, int32, "
                "int64); convert with astype(), or to_host() for the Boolean closure")
        c, trace = _kleene._closure(m._s, reflexive, device, explain)
        return _out(Matrix(c).to_numpy(absent=False), trace, explain)
    r, trace = _kleene._semiring_closure(m._s, s._spec, reflexive, device, explain)
    return _out(Matrix(r) if isinstance(r, _kleene._Storage) else r, trace, explain)


def path(predecessors, source, target):
    """The vertices of a shortest path from source to target in apsp's predecessor matrix: [source]
    when they are equal, empty when target is unreachable."""
    return _kleene._path(predecessors, source, target)


def shortest_path(a, source, target, *, method="auto", device="auto"):
    """(length, vertices) of one shortest path from source to target, by sssp's shortest-path
    tree; (kleene.infinity(dtype), empty array) when target is unreachable."""
    m = as_matrix(a)
    dist, parent = sssp(m, source, parents=True, method=method, device=device)
    n = m.shape[0]
    if not 0 <= target < n:
        raise _kleene.InvalidArgument(f"shortest_path: target {target} is not a vertex of a "
                                      f"{n}-vertex graph")
    if parent[target] < 0:
        return infinity(m.dtype), np.empty(0, dtype=np.int64)
    vertices = [target]
    while vertices[-1] != source:
        vertices.append(int(parent[vertices[-1]]))
        if len(vertices) > n:
            raise _kleene.Error("shortest_path: the shortest-path tree has a cycle")
    return dist[target], np.array(vertices[::-1], dtype=np.int64)


def connected_components(a, *, method="auto", device="auto", symmetric=False, explain=False):
    """(count, labels): weakly connected components, each vertex labelled by the smallest vertex
    of its component. method: auto, afforest, fastsv."""
    count, labels, trace = _kleene._connected_components(as_matrix(a)._s, method, device,
                                                         symmetric, explain)
    return _out((count, labels), trace, explain)


def pagerank(a, *, damping=0.85, tolerance=1e-4, max_iterations=100, dangling="gap",
             method="auto", contributions="auto", relaxation=0.0, device="auto", symmetric=False,
             explain=False):
    """PageRank ranks (float64). dangling="gap": the rank of vertices without out-edges is lost
    (GAP's definition); "redistribute": spread over all vertices (networkx's definition).
    method: "auto" (CPU: "gauss-seidel", in place within blocks of rows as GAP's pass is in
    place, far fewer steps on road networks; GPU: "fused"), "gauss-seidel", "fused" (Jacobi) or
    "semiring". contributions: the precision of the CPU pass's rank / out-degree array,
    "auto" (float when
    the tolerance is at least 1.19e-5: the ranks then lie at most a further d / (1 - d) * 2**-23
    from the fixed point in L1, 6.8e-7 at d = 0.85), "double" or "float". relaxation: the
    over-relaxation of the CPU's Gauss-Seidel pass, 0 (auto: with symmetric=True, the weight
    2 / (1 + sqrt(1 - damping**2)) once the changes shrink slowly: 12 steps instead of 18 on a
    road network), 1 (none, GAP's pass) or a weight in (1, 2) from the first step."""
    rank, _iters, _conv, trace = _kleene._pagerank(as_matrix(a)._s, damping, tolerance,
                                                   max_iterations, dangling, method,
                                                   contributions, float(relaxation), device,
                                                   symmetric, explain)
    return _out(rank, trace, explain)


def triangle_count(a, *, method="auto", device="auto", explain=False):
    """Triangles of an undirected graph (a symmetric pattern; values and self-loops ignored)."""
    count, trace = _kleene._triangle_count(as_matrix(a)._s, method, device, explain)
    return _out(int(count), trace, explain)


def betweenness(a, sources=None, *, normalize=False, method="auto", device="auto",
                symmetric=False, explain=False):
    """Betweenness centrality (Brandes) summed over ``sources`` (all vertices when None).
    Unnormalised sums as LAGraph gives them; normalize=True divides by the largest score."""
    m = as_matrix(a)
    if sources is None:
        sources = np.arange(m.shape[0], dtype=np.int64)
    bc, trace = _kleene._betweenness(m._s, [int(s) for s in sources], normalize, method, device,
                                     symmetric, explain)
    return _out(bc, trace, explain)
