"""kleene.closure(A, semiring=...): the closure over a semiring (semiring_closure.hpp) against a
NumPy Floyd-Warshall over the same operators; built-ins by name and as objects, compositions,
source text on the GPU; the errors."""

import numpy as np
import pytest
import scipy.sparse as sp

import kleene

DTYPES = ["float32", "float64", "int32", "int64"]

OPS = {"min": np.minimum, "max": np.maximum, "plus": np.add, "times": np.multiply,
       "lor": lambda a, b: ((a != 0) | (b != 0)).astype(np.result_type(a, b)),
       "land": lambda a, b: ((a != 0) & (b != 0)).astype(np.result_type(a, b))}


def zero_one(add, mul, dtype):
    dt = np.dtype(dtype)
    big = dt.type(np.inf) if dt.kind == "f" else np.iinfo(dt).max
    small = dt.type(-np.inf) if dt.kind == "f" else np.iinfo(dt).min
    zero = {"min": big, "max": small, "lor": dt.type(0), "land": dt.type(1)}[add]
    one = {"plus": dt.type(0), "times": dt.type(1), "min": big, "max": small,
           "land": dt.type(1), "lor": dt.type(0)}[mul]
    return zero, one


def fw_reference(dense, add, mul, zero, one, reflexive):
    """Floyd-Warshall over (add, mul) in NumPy, a step a vertex: d = d (+) d[:, k] (x) d[k, :],
    zero multiplying as absent; reflexive: add(one, d[i, i]) on the diagonal."""
    d = dense.copy()
    with np.errstate(all="ignore"):
        for k in range(len(d)):
            col, row = d[:, k].copy(), d[k, :].copy()
            prod = OPS[mul](col[:, None], row[None, :]).astype(d.dtype)
            prod[(col[:, None] == zero) | (row[None, :] == zero)] = zero
            d = OPS[add](d, prod).astype(d.dtype)
        if reflexive:
            i = np.arange(len(d))
            d[i, i] = OPS[add](np.full(len(d), one, d.dtype), d[i, i])
    return d


def graph(n, density, seed, dtype, lo=1, hi=9, dag=False, unit=False):
    """A random sparse graph: integer weights lo..hi (exact in every dtype), or in [0, 1) with
    unit; dag: edges i -> j with i < j only."""
    rng = np.random.default_rng(seed)
    a = sp.random(n, n, density=density, random_state=rng, format="coo")
    keep = a.row < a.col if dag else a.row != a.col
    w = rng.random(a.nnz) if unit else rng.integers(lo, hi + 1, size=a.nnz)
    return sp.coo_matrix((w[keep].astype(dtype), (a.row[keep], a.col[keep])),
                         shape=(n, n)).tocsr()


def dense_of(a, zero):
    d = np.full(a.shape, zero, dtype=a.dtype)
    c = a.tocoo()
    d[c.row, c.col] = c.data
    return d


CASES = [  # (semiring as given, add, mul, graph options)
    ("min.plus", "min", "plus", {}),
    ("max.min", "max", "min", {}),
    (kleene.max_min, "max", "min", {}),
    ("min_max", "min", "max", {}),
    ("max.plus", "max", "plus", {"dag": True}),
    (kleene.Semiring(add="min", multiply="max"), "min", "max", {}),
    (kleene.Semiring._generic("min", "plus"), "min", "plus", {}),  # a composition, not the name
    (kleene.Semiring(add="land", multiply="lor"), "land", "lor", {}),  # no built-in
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("given,add,mul,opts", CASES)
@pytest.mark.parametrize("n,density", [(1, 0.5), (6, 0.3), (40, 0.08), (150, 0.02)])
def test_closure_matches_numpy_floyd_warshall(given, add, mul, opts, n, density, dtype):
    a = graph(n, density, 7 + n, dtype, **opts)
    zero, one = zero_one(add, mul, dtype)
    for reflexive in (False, True):
        want = fw_reference(dense_of(a, zero), add, mul, zero, one, reflexive)
        got = kleene.closure(a, given, reflexive=reflexive)
        assert isinstance(got, np.ndarray) and got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_times_on_probabilities(dtype):
    a = graph(60, 0.06, 3, dtype, unit=True)
    zero, one = zero_one("max", "times", dtype)
    want = fw_reference(dense_of(a, zero), "max", "times", zero, one, True)
    got = kleene.closure(a, "max.times", reflexive=True)
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == "float32" else 1e-12)


def test_lor_land_over_int32_and_bool():
    a = graph(70, 0.03, 5, "int32", lo=1, hi=1)
    zero, one = zero_one("lor", "land", "int32")
    want = fw_reference(dense_of(a, zero), "lor", "land", zero, one, False)
    np.testing.assert_array_equal(kleene.closure(a, "lor.land"), want)
    # Over bool, lor.land is the Boolean closure, returned dense.
    b = kleene.closure(a.astype(bool), "lor.land", reflexive=True)
    assert b.dtype == np.bool_
    np.testing.assert_array_equal(b, kleene.closure(a.astype(bool), reflexive=True).to_numpy())
    np.testing.assert_array_equal(b, (want != 0) | np.eye(70, dtype=bool))


def test_inputs_kleene_matrices_and_empty():
    a = graph(30, 0.1, 11, "float64")
    want = kleene.closure(a, "min.plus")
    np.testing.assert_array_equal(kleene.closure(kleene.Matrix.from_scipy(a), "min.plus"), want)
    # Dense storage: every entry is a value, so absent ones hold the semiring's zero.
    dense = kleene.Matrix.from_numpy(dense_of(a, np.inf))
    np.testing.assert_array_equal(kleene.closure(dense, "min.plus"), want)
    got, trace = kleene.closure(a, "min.plus", explain=True)
    assert "semiring_closure" in trace
    empty = kleene.closure(sp.csr_matrix((0, 0), dtype=np.float64), "min.plus")
    assert empty.shape == (0, 0)


def test_errors():
    a = graph(10, 0.3, 13, "float64")
    with pytest.raises(kleene.DimensionMismatch):
        kleene.closure(sp.csr_matrix(np.ones((2, 3))), "min.plus")
    with pytest.raises(kleene.InvalidArgument, match="unknown semiring"):
        kleene.closure(a, "min.minus")
    with pytest.raises(kleene.InvalidArgument, match="not idempotent"):
        kleene.closure(a, "plus.times")
    with pytest.raises(kleene.InvalidArgument, match="not idempotent"):
        kleene.closure(a, kleene.Semiring(add="plus", multiply="min"))
    with pytest.raises(kleene.InvalidArgument, match="no identity"):
        kleene.closure(a, "min.first")
    with pytest.raises(kleene.InvalidArgument, match="over bool"):
        kleene.closure(a.astype(bool), "max.min")
    src = kleene.Semiring.from_source(value_type="float64", zero=float("-inf"), one=1.0,
                                      add="a > b ? a : b", mul="a * b", idempotent_add=True)
    with pytest.raises(kleene.InvalidArgument, match="GPU only"):
        kleene.closure(a, src)
    nan = a.copy()
    nan.data[0] = np.nan
    with pytest.raises(kleene.InvalidArgument, match="is NaN"):
        kleene.closure(nan, "min.plus")
    # A negative cycle 2 -> 3 -> 2 (min.plus), a cycle heavier than 1 (max.times).
    c = sp.csr_matrix(([1.0, -2.0, 1.0], ([2, 3, 3], [3, 2, 4])), shape=(5, 5))
    with pytest.raises(kleene.NegativeCycle, match="vertex 2"):
        kleene.closure(c, "min.plus")
    with pytest.raises(kleene.NegativeCycle, match="vertex 1"):
        kleene.closure(sp.csr_matrix(([1.5], ([1], [1])), shape=(3, 3)), "max.times")
    # A path whose sum leaves int64 (2^62 + 2^62) would read as no path: refused.
    big = np.array([[0, 2**62, 0], [0, 0, 2**62], [0, 0, 0]], dtype=np.int64)
    with pytest.raises(kleene.OverflowError, match="int64 distances could reach"):
        kleene.closure(big, "min.plus")
    with pytest.raises(kleene.OverflowError):
        kleene.closure(big, kleene.Semiring(add="min", multiply="plus"))
    assert kleene.closure(big, "max.min")[0, 2] == 2**62


# ---- the GPU: the JIT's closure (skipped without a device) ---------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("given,add,mul,opts", CASES)
def test_gpu_closure_matches_numpy_floyd_warshall(given, add, mul, opts, dtype):
    for n, density in [(1, 0.5), (37, 0.08), (300, 0.01)]:
        a = graph(n, density, 21 + n, dtype, **opts)
        zero, one = zero_one(add, mul, dtype)
        for reflexive in (False, True):
            want = fw_reference(dense_of(a, zero), add, mul, zero, one, reflexive)
            # Host input on the GPU: NumPy back.
            got = kleene.closure(a, given, reflexive=reflexive, device="gpu")
            np.testing.assert_array_equal(got, want)
            # Device input: a dense device Matrix back.
            d = kleene.closure(kleene.Matrix.from_scipy(a).to_device(), given,
                               reflexive=reflexive)
            assert d.device == "gpu" and d.format == "dense"
            np.testing.assert_array_equal(d.to_host().to_numpy(), want)


@pytest.mark.gpu
def test_gpu_closure_of_a_source_semiring():
    # max.times as source text, over probabilities: a semiring the library has no instance of.
    src = kleene.Semiring.from_source(value_type="float64", zero=float("-inf"), one=1.0,
                                      add="a > b ? a : b", mul="a * b", idempotent_add=True)
    a = graph(200, 0.02, 31, "float64", unit=True)
    zero, one = zero_one("max", "times", "float64")
    want = fw_reference(dense_of(a, zero), "max", "times", zero, one, True)
    got = kleene.closure(kleene.Matrix.from_scipy(a).to_device(), src, reflexive=True)
    np.testing.assert_allclose(got.to_host().to_numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(kleene.closure(a, src, reflexive=True, device="gpu"), want,
                               rtol=1e-12)


@pytest.mark.gpu
def test_gpu_closure_refuses_sums_past_the_type():
    big = np.array([[0, 2**62, 0], [0, 0, 2**62], [0, 0, 0]], dtype=np.int64)
    with pytest.raises(kleene.OverflowError, match="int64 distances could reach"):
        kleene.closure(big, "min.plus", device="gpu")


@pytest.mark.gpu
def test_gpu_closure_errors():
    c = sp.csr_matrix(([1.0, -2.0, 1.0], ([2, 3, 3], [3, 2, 4])), shape=(5, 5))
    with pytest.raises(kleene.NegativeCycle, match="vertex 2"):
        kleene.closure(kleene.Matrix.from_scipy(c).to_device(), "min.plus")
    with pytest.raises(kleene.InvalidArgument, match="not idempotent"):
        kleene.closure(c, "plus.times", device="gpu")
    with pytest.raises(kleene.SpaceMismatch):
        kleene.closure(kleene.Matrix.from_scipy(c).to_device(), "min.plus", device="cpu")
