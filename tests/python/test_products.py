"""mxm / mxv / vxm against a plain NumPy reference of GraphBLAS semantics, and against SciPy."""

import numpy as np
import pytest
import scipy.sparse as sp

import kleene
from conftest import built, random_graph

ADD = {"plus": np.add, "min": np.minimum, "max": np.maximum, "lor": np.logical_or}
MUL = {"times": np.multiply, "plus": np.add, "min": np.minimum, "max": np.maximum,
       "land": np.logical_and, "first": lambda a, b: a, "second": lambda a, b: b,
       "pair": lambda a, b: np.ones_like(a)}
ACCUM = {**ADD, "times": np.multiply, "first": lambda a, b: a, "second": lambda a, b: b}


def product_reference(a, b, s):
    """(present, values) of A (+).(x) B over the stored entries only."""
    s = kleene.semiring(s)
    a, b = sp.csr_matrix(a), sp.csr_matrix(b)
    pa, pb = a.toarray() != 0, b.toarray() != 0  # the inputs store no explicit zeros here
    va, vb = a.toarray(), b.toarray()
    n, m = a.shape[0], b.shape[1]
    present = np.zeros((n, m), bool)
    values = np.zeros((n, m), va.dtype)
    for i in range(n):
        for j in range(m):
            ks = np.nonzero(pa[i] & pb[:, j])[0]
            if len(ks):
                present[i, j] = True
                terms = MUL[s.multiply](va[i, ks], vb[ks, j])
                values[i, j] = ADD[s.add].reduce(terms)
    return present, values


def write_reference(c_present, c_values, t_present, t_values, allow, accum, replace):
    """C<allow, replace> accum= T."""
    if accum:
        both = c_present & t_present
        z_present = c_present | t_present
        z_values = np.where(t_present, t_values, c_values)
        z_values = np.where(both, ACCUM[accum](c_values, t_values), z_values)
    else:
        z_present, z_values = t_present, t_values
    present = np.where(allow, z_present, c_present & ~replace)
    values = np.where(allow, z_values, c_values)
    return present, np.where(present, values, 0)


def dense_of(m):
    s = m.to_scipy().tocoo()
    present = np.zeros(m.shape, bool)
    values = np.zeros(m.shape, m.dtype)
    present[s.row, s.col] = True
    values[s.row, s.col] = s.data
    return present, values


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_plus_times_matches_scipy(dtype):
    a = random_graph(60, 0.08, 10, dtype=dtype)
    b = random_graph(60, 0.08, 11, dtype=dtype)
    c = kleene.mxm(kleene.Matrix.from_scipy(a), kleene.Matrix.from_scipy(b), kleene.plus_times)
    np.testing.assert_array_equal(c.to_numpy(), (a @ b).toarray())


@pytest.mark.parametrize("s", ["min.plus", "max.plus", "max.min", "min.max", "plus.pair",
                               "min.first", "min.second", "plus.min", "max.times"])
def test_semirings_match_reference(s):
    a, b = random_graph(20, 0.2, 12), random_graph(20, 0.2, 13)
    # One this build leaves out (KLEENE_INSTANCES=minimal) runs as the composition of its
    # operators (the generic kernels), with the same answer; the trace says which ran.
    c, trace = kleene.mxm(a, b, s, explain=True)
    assert built(s) or "run-time composition" in trace, trace
    want_present, want_values = product_reference(a, b, s)
    present, values = dense_of(c)
    np.testing.assert_array_equal(present, want_present)
    np.testing.assert_array_equal(values[present], want_values[present])


def test_lor_land_over_bool():
    a, b = random_graph(25, 0.1, 14, dtype=bool), random_graph(25, 0.1, 15, dtype=bool)
    c = kleene.mxm(a, b, "lor.land")
    assert c.dtype == np.bool_
    np.testing.assert_array_equal(c.to_numpy(), (a.astype(int) @ b.astype(int)).toarray() > 0)


@pytest.mark.parametrize("structural", [False, True])
@pytest.mark.parametrize("complemented", [False, True])
@pytest.mark.parametrize("accum", [None, "min", "plus", "second"])
@pytest.mark.parametrize("replace", [False, True])
def test_mask_accumulator_replace(structural, complemented, accum, replace):
    n = 18
    a, b = random_graph(n, 0.2, 20), random_graph(n, 0.2, 21)
    c0 = random_graph(n, 0.2, 22)
    mask = random_graph(n, 0.3, 23)
    mask.data[::3] = 0  # stored zeros: valued and structural masks differ there
    mk = kleene.Matrix.from_scipy(mask)
    m = kleene.structure(mk) if structural else mk
    if complemented:
        m = kleene.complement(m)
    out = kleene.Matrix.from_scipy(c0)
    r = kleene.mxm(a, b, "min.plus", out=out, mask=m, accum=accum, replace=replace)
    assert r is out

    t_present, t_values = product_reference(a, b, "min.plus")
    c_present, c_values = c0.toarray() != 0, c0.toarray()
    stored = np.zeros((n, n), bool)
    mc = mask.tocoo()
    stored[mc.row, mc.col] = True
    allow = stored if structural else stored & (mask.toarray() != 0)
    if complemented:
        allow = ~allow
    want_present, want_values = write_reference(c_present, c_values, t_present, t_values, allow,
                                                accum, replace)
    present, values = dense_of(r)
    np.testing.assert_array_equal(present, want_present)
    np.testing.assert_array_equal(values, want_values)


def test_dense_operands_and_explain():
    x = np.random.default_rng(5).integers(0, 5, (16, 16)).astype(np.float64)
    d = kleene.Matrix.from_numpy(x)
    c, trace = kleene.mxm(d, d, "plus.times", explain=True)
    assert c.format == "dense"
    assert "dense_gemm" in trace
    np.testing.assert_array_equal(c.to_numpy(), x @ x)


def test_mxv_vxm_match_numpy():
    a = random_graph(30, 0.15, 30)
    u = np.random.default_rng(31).integers(1, 5, 30).astype(np.float64)
    np.testing.assert_array_equal(kleene.mxv(a, u), a @ u)
    np.testing.assert_array_equal(kleene.vxm(u, a), a.T @ u)
    # One Bellman-Ford step over min.plus: absent entries are +inf.
    x = np.full(30, np.inf)
    x[0] = 0
    y = kleene.vxm(x, a, kleene.min_plus)
    dense = np.where(a.toarray() != 0, a.toarray(), np.inf)
    np.testing.assert_array_equal(y, np.min(x[:, None] + dense, axis=0))
    # Masked, complemented, accumulated with the semiring's add.
    mask = np.arange(30) % 2 == 0
    w0 = np.full(30, 3.0)
    w = kleene.mxv(a, u, out=w0, mask=kleene.complement(mask), accum=True)
    want = np.where(~mask, w0 + a @ u, w0)
    np.testing.assert_array_equal(w, want)


def test_semiring_names_and_errors():
    assert kleene.semiring("min.plus") is not kleene.min_plus
    assert kleene.semiring("min.plus") == kleene.min_plus == kleene.semiring("MIN_PLUS")
    assert (kleene.plus_times.add, kleene.plus_times.multiply) == ("plus", "times")
    with pytest.raises(kleene.InvalidArgument, match="unknown semiring"):
        kleene.semiring("min.min")
    a = kleene.Matrix.from_scipy(random_graph(5, 0.5, 1))
    b = kleene.Matrix.from_scipy(sp.random(4, 3, density=0.5, format="csr"))
    with pytest.raises(kleene.DimensionMismatch, match="A has 5 columns, B has 4 rows"):
        kleene.mxm(a, b)
    with pytest.raises(kleene.InvalidArgument, match="convert it with astype"):
        kleene.mxm(a, a.astype("float32"))
    with pytest.raises(kleene.InvalidArgument, match="not offered over bool"):
        kleene.mxm(a.astype(bool), a.astype(bool), "plus.times")


class _DeviceVectorLookalike:
    """Has __cuda_array_interface__, so kleene takes it for device memory (it is never read)."""

    __cuda_array_interface__ = {"shape": (5,), "typestr": "<f8", "data": (0, True), "version": 3}


def test_host_products_refuse_device_vectors():
    a = random_graph(5, 0.5, 1)
    for call in (lambda: kleene.mxv(a, _DeviceVectorLookalike()),
                 lambda: kleene.vxm(np.ones(5), a, out=_DeviceVectorLookalike()),
                 lambda: kleene.mxv(a, np.ones(5), mask=_DeviceVectorLookalike())):
        with pytest.raises(kleene.SpaceMismatch, match="is in device memory; move one with"):
            call()
