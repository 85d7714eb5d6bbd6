"""The algorithms against scipy.sparse.csgraph and networkx on the same random inputs."""

import re

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import kleene
from conftest import random_graph

SEEDS = [1, 2, 3]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("algorithm", ["auto", "rkleene", "blocked-fw", "fw", "johnson"])
def test_apsp_matches_csgraph(seed, algorithm):
    a = random_graph(70, 0.05, seed)
    d = kleene.apsp(a, algorithm=algorithm, device="cpu")
    np.testing.assert_array_equal(d, csgraph.shortest_path(a, method="FW", directed=True))


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
def test_apsp_types_and_predecessors(dtype):
    a = random_graph(50, 0.08, 7, dtype=dtype)
    d, p = kleene.apsp(a, predecessors=True, device="cpu")
    want = csgraph.shortest_path(a.astype(np.float64), directed=True)
    reach = np.isfinite(want)
    np.testing.assert_array_equal(d[reach], want[reach].astype(dtype))
    assert (d[~reach] == kleene.infinity(dtype)).all()
    # Every path read from the predecessors has the shortest length.
    dense = a.toarray()
    for i, j in [(0, 5), (3, 40), (10, 10), (49, 1)]:
        verts = kleene.path(p, i, j)
        if not reach[i, j]:
            assert len(verts) == 0
            continue
        assert verts[0] == i and verts[-1] == j
        assert sum(dense[u, v] for u, v in zip(verts[:-1], verts[1:])) == want[i, j]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("method", ["auto", "bellman-ford", "delta-stepping"])
def test_sssp_and_shortest_path_match_csgraph(seed, method):
    a = random_graph(200, 0.02, seed)
    want = csgraph.dijkstra(a, directed=True, indices=0)
    d = kleene.sssp(a, 0, method=method)
    np.testing.assert_array_equal(d, want)
    length, verts = kleene.shortest_path(a, 0, int(np.argmax(np.where(np.isfinite(want), want, -1))))
    assert length == want[verts[-1]]
    assert sum(a[u, v] for u, v in zip(verts[:-1], verts[1:])) == length


def test_sssp_async_is_gpu_only():
    with pytest.raises(ValueError, match="GPU only"):
        kleene.sssp(random_graph(50, 0.05, 1), 0, method="async", device="cpu")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
def test_bfs_matches_csgraph(seed, direction):
    a = random_graph(300, 0.01, seed)
    source = 3
    levels, parents = kleene.bfs(a, source, parents=True, direction=direction)
    order, _pred = csgraph.breadth_first_order(a, source, directed=True)
    assert set(np.nonzero(levels >= 0)[0]) == set(order)
    hops = csgraph.shortest_path(a, directed=True, unweighted=True, indices=source)
    np.testing.assert_array_equal(levels, np.where(np.isfinite(hops), hops, -1).astype(np.int64))
    # Each parent is one level up and an edge leads from it.
    for v in order:
        if v != source:
            assert levels[parents[v]] == levels[v] - 1 and a[parents[v], v] != 0
    assert parents[source] == source


@pytest.mark.parametrize("seed", SEEDS)
def test_connected_components_match_csgraph(seed):
    a = random_graph(400, 0.003, seed)
    count, labels = kleene.connected_components(a)
    want_count, want_labels = csgraph.connected_components(a, directed=True, connection="weak")
    assert count == want_count
    # Same partition; kleene names each component by its smallest vertex.
    pairs = set(zip(labels, want_labels))
    assert len(pairs) == count
    for c in np.unique(labels):
        assert c == np.min(np.nonzero(labels == c)[0])


def test_closure_matches_csgraph_reachability():
    a = random_graph(120, 0.01, 9)
    reach = np.isfinite(csgraph.shortest_path(a, directed=True, unweighted=True))
    c = kleene.closure(a, reflexive=True)
    assert c.dtype == np.bool_
    np.testing.assert_array_equal(c.to_numpy(), reach)


@pytest.mark.parametrize("seed", SEEDS)
def test_pagerank_matches_networkx(seed):
    a = random_graph(150, 0.03, seed)
    keep = np.ones(150)
    keep[:5] = 0  # five vertices without out-edges: the dangling rule matters
    a = (sp.diags(keep) @ a).tocsr()
    a.eliminate_zeros()
    g = nx.from_scipy_sparse_array(a, create_using=nx.DiGraph)
    want = nx.pagerank(g, alpha=0.85, tol=1e-12, max_iter=1000, weight=None)
    r = kleene.pagerank(a, dangling="redistribute", tolerance=1e-12, max_iterations=1000)
    np.testing.assert_allclose(r, [want[v] for v in range(150)], rtol=1e-6, atol=1e-9)


def test_pagerank_contributions_precision():
    # At the default tolerance the CPU pass holds rank / out-degree in float ("auto"); "double"
    # pins it. Both within the float's bound of each other, and the trace says which ran.
    a = random_graph(400, 0.02, 7)
    # Jacobi ("fused"): bit-reproducible, so the runs compare exactly.
    r_auto, trace = kleene.pagerank(a, device="cpu", method="fused", explain=True)
    r_float = kleene.pagerank(a, device="cpu", method="fused", contributions="float")
    r_double = kleene.pagerank(a, device="cpu", method="fused", contributions="double")
    np.testing.assert_array_equal(r_auto, r_float)
    assert not np.array_equal(r_float, r_double)
    assert np.abs(r_float - r_double).sum() < 1e-5
    assert "contributions held in float (automatic" in trace
    _, trace = kleene.pagerank(a, device="cpu", tolerance=1e-8, explain=True)
    assert "contributions held in double (automatic" in trace
    with pytest.raises(kleene.InvalidArgument, match="contributions"):
        kleene.pagerank(a, contributions="half")


def test_pagerank_over_relaxation():
    # A 40 x 40 grid (a road network's slow mixing), undirected: automatic over-relaxes from a
    # slow rate on, in fewer steps than none, to the same fixed point as networkx's.
    g = nx.grid_2d_graph(40, 40)
    a = nx.to_scipy_sparse_array(g, format="csr")
    want = nx.pagerank(nx.DiGraph(g), alpha=0.85, tol=1e-13, max_iter=1000)
    want = np.array([want[v] for v in g.nodes()])
    auto, trace = kleene.pagerank(a, device="cpu", symmetric=True, tolerance=1e-7, explain=True)
    plain, trace1 = kleene.pagerank(a, device="cpu", symmetric=True, tolerance=1e-7,
                                    relaxation=1, explain=True)
    steps = lambda t: int(re.search(r"pagerank: (\d+) steps", t).group(1))
    assert "over-relaxed from step" in trace
    assert steps(trace) + 3 <= steps(trace1)
    assert np.abs(auto - want).sum() < 0.85 / 0.15 * 1e-7
    with pytest.raises(kleene.InvalidArgument, match="relaxation"):
        kleene.pagerank(a, relaxation=2.5)
    with pytest.raises(kleene.InvalidArgument, match="relaxation"):
        kleene.pagerank(a, method="fused", relaxation=1.3)


@pytest.mark.parametrize("seed", SEEDS)
def test_triangles_match_networkx(seed):
    a = random_graph(200, 0.05, seed, symmetric=True)
    g = nx.from_scipy_sparse_array(a)
    assert kleene.triangle_count(a) == sum(nx.triangles(g).values()) // 3


@pytest.mark.parametrize("seed", SEEDS)
def test_betweenness_matches_networkx(seed):
    a = random_graph(120, 0.03, seed)
    g = nx.from_scipy_sparse_array(a, create_using=nx.DiGraph)
    want = nx.betweenness_centrality(g, normalized=False, weight=None)
    bc = kleene.betweenness(a)
    np.testing.assert_allclose(bc, [want[v] for v in range(120)], rtol=1e-9, atol=1e-9)


def test_errors_and_explain():
    a = random_graph(30, 0.1, 4)
    with pytest.raises(kleene.InvalidArgument, match="source 30 is not a vertex"):
        kleene.bfs(a, 30)
    neg = sp.csr_matrix(np.array([[0, 1.0, 0], [0, 0, -3.0], [1.0, 0, 0]]))
    with pytest.raises(kleene.NegativeCycle) as e:
        kleene.apsp(neg)
    assert 0 <= e.value.vertex < 3 and "negative cycle through vertex" in str(e.value)
    with pytest.raises(kleene.DimensionMismatch, match="must be square"):
        kleene.apsp(sp.random(3, 4, density=0.5, format="csr"))
    with pytest.raises(kleene.InvalidArgument, match="device must be"):
        kleene.bfs(a, 0, device="tpu")
    d, trace = kleene.apsp(a, explain=True)
    assert "apsp: chose" in trace
    levels, trace = kleene.bfs(a, 0, explain=True)
    assert trace.startswith("bfs: n=30")
    if kleene.device_count() == 0:
        with pytest.raises(kleene.NoDevice):
            kleene.bfs(a, 0, device="gpu")


def test_bfs_with_a_given_transpose():
    a = random_graph(300, 0.02, 8)
    at = kleene.Matrix.from_scipy(a.T.tocsr())
    hops = csgraph.shortest_path(a, directed=True, unweighted=True, indices=0)
    want = np.where(np.isfinite(hops), hops, -1).astype(np.int64)
    for direction in ["auto", "pull"]:
        np.testing.assert_array_equal(kleene.bfs(a, 0, transpose=at, direction=direction), want)
    with pytest.raises(kleene.InvalidArgument, match="transpose must be"):
        kleene.bfs(a, 0, transpose=kleene.Matrix.from_scipy(a.T.tocsr(), index="int64"))
