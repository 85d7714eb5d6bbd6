"""pytest set-up for the kleene Python tests: the `gpu` marker and shared random graphs.

ctest runs `pytest -m "not gpu"` (label python) and `pytest -m gpu` (labels python, gpu) with
PYTHONPATH at the build's python/ folder; GPU tests skip with a message when no device is seen.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import kleene


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (ctest label gpu)")


def pytest_collection_modifyitems(config, items):
    if kleene.device_count() > 0:
        return
    skip = pytest.mark.skip(reason="no CUDA device (or kleene built without CUDA): GPU test skipped")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def random_graph(n, density, seed, weights=(1, 10), dtype=np.float64, symmetric=False,
                 self_loops=False):
    """A random sparse graph with integer-valued weights in [lo, hi] (exact in every dtype)."""
    rng = np.random.default_rng(seed)
    a = sp.random(n, n, density=density, random_state=rng, format="coo")
    w = rng.integers(weights[0], weights[1] + 1, size=a.nnz)
    keep = self_loops | (a.row != a.col)
    a = sp.coo_matrix((w[keep].astype(dtype), (a.row[keep], a.col[keep])), shape=(n, n)).tocsr()
    if symmetric:
        a = a.maximum(a.T).tocsr()
    a.sort_indices()
    return a


@pytest.fixture
def graph():
    return random_graph


def built(s, dtype=np.float64):
    """Whether this kleene dispatches the semiring s to over dtype: KLEENE_INSTANCES=minimal builds a
    few (the C++ suites run every semiring); the others raise InvalidArgument saying how to build."""
    return np.dtype(dtype).name in kleene.semiring(s).built_for()
