"""User semirings: compositions of operator names against a NumPy loop of GraphBLAS semantics
(the generic CPU kernels, kleene::runtime_semiring), equality with the built-ins, source text."""

import numpy as np
import pytest
import scipy.sparse as sp

import kleene
from conftest import random_graph
from test_products import dense_of, write_reference

DTYPES = ["float32", "float64", "int32", "int64"]

ADD = {"plus": np.add, "times": np.multiply, "min": np.minimum, "max": np.maximum,
       "lor": lambda a, b: ((a != 0) | (b != 0)).astype(a.dtype),
       "land": lambda a, b: ((a != 0) & (b != 0)).astype(a.dtype)}
MUL = {"plus": np.add, "times": np.multiply, "min": np.minimum, "max": np.maximum,
       "land": lambda a, b: ((a != 0) & (b != 0)).astype(a.dtype),
       "lor": lambda a, b: ((a != 0) | (b != 0)).astype(a.dtype),
       "first": lambda a, b: a, "second": lambda a, b: b, "pair": lambda a, b: np.ones_like(a)}

# Compositions the tests run; the first ones are no built-in (the generic kernels), the last two
# are (max.times, plus.min: the compiled instances where this build has them).
COMPOSITIONS = [("max", "first"), ("min", "second"), ("min", "max"), ("plus", "pair"),
                ("times", "plus"), ("lor", "land"), ("land", "lor"), ("max", "second"),
                ("plus", "plus"), ("max", "times"), ("plus", "min")]


def zero_of(add, dtype):
    dt = np.dtype(dtype)
    if add == "min":
        return dt.type(np.inf) if dt.kind == "f" else np.iinfo(dt).max
    if add == "max":
        return dt.type(-np.inf) if dt.kind == "f" else np.iinfo(dt).min
    return dt.type(1 if add in ("times", "land") else 0)


def fold(add, terms):
    acc = terms[0]
    for t in terms[1:]:
        acc = ADD[add](np.asarray(acc), np.asarray(t))
    return acc


def product_reference(pa, va, pb, vb, add, mul):
    """(present, values) of A (+).(x) B over the stored entries, by loops."""
    n, m = pa.shape[0], pb.shape[1]
    present = np.zeros((n, m), bool)
    values = np.zeros((n, m), va.dtype)
    for i in range(n):
        for j in range(m):
            ks = np.nonzero(pa[i] & pb[:, j])[0]
            if len(ks):
                present[i, j] = True
                values[i, j] = fold(add, MUL[mul](va[i, ks], vb[ks, j]))
    return present, values


def operands(n, dtype, seed):
    # Weights 1..3 keep times and plus products exact in every dtype.
    a = random_graph(n, 0.25, seed, weights=(1, 3), dtype=dtype)
    b = random_graph(n, 0.25, seed + 1, weights=(1, 3), dtype=dtype)
    return a, b


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("add,mul", COMPOSITIONS)
@pytest.mark.parametrize("generic", [False, True])
def test_mxm_composition(add, mul, dtype, generic):
    # generic: the generic kernels even where the composition is a built-in (every build runs it)
    s = kleene.Semiring._generic(add, mul) if generic else kleene.Semiring(add=add, multiply=mul)
    a, b = operands(14, dtype, 40)
    # A composition runs over every numeric dtype: a built-in this build leaves out
    # (KLEENE_INSTANCES=minimal, built() false) through the generic kernels.
    c = kleene.mxm(a, b, s)
    pa, pb = a.toarray() != 0, b.toarray() != 0
    want_present, want_values = product_reference(pa, a.toarray(), pb, b.toarray(), add, mul)
    present, values = dense_of(c)
    np.testing.assert_array_equal(present, want_present)
    np.testing.assert_array_equal(values[present], want_values[present])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("add,mul", [("max", "first"), ("min", "second"), ("plus", "pair"),
                                     ("times", "plus")])
@pytest.mark.parametrize("replace", [False, True])
def test_mxm_mask_accumulator_replace(add, mul, dtype, replace):
    s = kleene.Semiring._generic(add, mul)
    n = 12
    a, b = operands(n, dtype, 50)
    c0 = random_graph(n, 0.3, 52, weights=(1, 3), dtype=dtype)
    mask = random_graph(n, 0.4, 53)
    mask.data[::3] = 0  # stored zeros: a valued mask does not allow a write there
    out = kleene.Matrix.from_scipy(c0)
    accum = "min" if add == "min" else "plus"
    r = kleene.mxm(a, b, s, out=out, mask=kleene.Matrix.from_scipy(mask), accum=accum,
                   replace=replace)
    assert r is out
    t_present, t_values = product_reference(a.toarray() != 0, a.toarray(), b.toarray() != 0,
                                            b.toarray(), add, mul)
    stored = np.zeros((n, n), bool)
    mc = mask.tocoo()
    stored[mc.row, mc.col] = True
    allow = stored & (mask.toarray() != 0)
    want_present, want_values = write_reference(c0.toarray() != 0, c0.toarray(), t_present,
                                                t_values, allow, accum, replace)
    present, values = dense_of(r)
    np.testing.assert_array_equal(present, want_present)
    np.testing.assert_array_equal(values, want_values)


@pytest.mark.parametrize("dtype", DTYPES)
def test_mxm_accumulates_with_its_add(dtype):
    s = kleene.Semiring(add="max", multiply="first")
    a, b = operands(12, dtype, 60)
    c0 = random_graph(12, 0.3, 62, weights=(1, 3), dtype=dtype)
    r = kleene.mxm(a, b, s, out=kleene.Matrix.from_scipy(c0), accum=True)
    t_present, t_values = product_reference(a.toarray() != 0, a.toarray(), b.toarray() != 0,
                                            b.toarray(), "max", "first")
    want_present, want_values = write_reference(c0.toarray() != 0, c0.toarray(), t_present,
                                                t_values, np.ones((12, 12), bool), "max", False)
    present, values = dense_of(r)
    np.testing.assert_array_equal(present, want_present)
    np.testing.assert_array_equal(values, want_values)


def vector_reference(a, u, add, mul, pull):
    """w = A (+).(x) u (pull) or u (+).(x) A: absent (the zero) where no term exists."""
    z = zero_of(add, a.dtype)
    d, p = a.toarray(), a.toarray() != 0
    if not pull:
        d, p = d.T, p.T
    has_u = u != z
    w = np.full(d.shape[0], z, a.dtype)
    for i in range(d.shape[0]):
        ks = np.nonzero(p[i] & has_u)[0]
        if len(ks):
            terms = MUL[mul](d[i, ks], u[ks]) if pull else MUL[mul](u[ks], d[i, ks])
            w[i] = fold(add, terms)
    return w


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("add,mul", COMPOSITIONS)
@pytest.mark.parametrize("pull", [True, False])
@pytest.mark.parametrize("generic", [False, True])
def test_mxv_vxm_composition(add, mul, dtype, pull, generic):
    s = kleene.Semiring._generic(add, mul) if generic else kleene.Semiring(add=add, multiply=mul)
    n = 20
    a = random_graph(n, 0.2, 70, weights=(1, 3), dtype=dtype)
    rng = np.random.default_rng(71)
    u = rng.integers(1, 4, n).astype(dtype)
    u[::4] = zero_of(add, dtype)  # absent entries
    w = kleene.mxv(a, u, s) if pull else kleene.vxm(u, a, s)
    np.testing.assert_array_equal(w, vector_reference(a, u, add, mul, pull))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("pull", [True, False])
@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("complemented", [False, True])
def test_vector_mask_accumulator_replace(dtype, pull, replace, complemented):
    add, mul = "max", "second"
    s = kleene.Semiring(add=add, multiply=mul)
    n = 24
    a = random_graph(n, 0.2, 80, weights=(1, 3), dtype=dtype)
    rng = np.random.default_rng(81)
    u = rng.integers(1, 4, n).astype(dtype)
    w0 = rng.integers(1, 4, n).astype(dtype)
    z = zero_of(add, dtype)
    w0[::5] = z
    m = rng.random(n) < 0.5
    mask = kleene.complement(m) if complemented else m
    fn = kleene.mxv if pull else kleene.vxm
    args = (a, u) if pull else (u, a)
    w = fn(*args, s, out=w0, mask=mask, accum=True, replace=replace)
    t = vector_reference(a, u, add, mul, pull)
    allow = ~m if complemented else m
    t_present, c_present = t != z, w0 != z
    present, values = write_reference(c_present, w0, t_present, t, allow, add, replace)
    np.testing.assert_array_equal(w, np.where(present, values, z))


def test_dense_operands_compose():
    x = np.random.default_rng(90).integers(0, 4, (10, 10)).astype(np.float64)
    d = kleene.Matrix.from_numpy(x)
    s = kleene.Semiring(add="max", multiply="first")
    c, trace = kleene.mxm(d, d, s, explain=True)
    assert c.format == "dense"
    assert "run-time composition" in trace
    # dense storage: 0, plus.times's zero, is a stored entry for max.first; its zero is -inf
    p = np.ones_like(x, bool)
    want_present, want_values = product_reference(p, x, p, x, "max", "first")
    np.testing.assert_array_equal(c.to_numpy(), np.where(want_present, want_values, -np.inf))


def test_equal_to_builtins():
    assert kleene.Semiring(add="min", multiply="plus") == kleene.min_plus
    assert hash(kleene.Semiring(add="min", multiply="plus")) == hash(kleene.min_plus)
    assert repr(kleene.Semiring(add="min", multiply="plus")) == "kleene.min_plus"
    assert kleene.Semiring(add="max", multiply="times") == kleene.max_times
    assert kleene.Semiring(add="max", multiply="first") != kleene.min_first
    assert kleene.Semiring(add="MAX", multiply="First") == kleene.Semiring(add="max",
                                                                          multiply="first")
    assert repr(kleene.Semiring(add="max", multiply="first")) == (
        "kleene.Semiring(add='max', multiply='first')")
    assert len({kleene.Semiring(add="max", multiply="first"), kleene.Semiring(add="max",
                                                                             multiply="first")}) == 1


@pytest.mark.parametrize("dtype", DTYPES)
def test_builtin_composition_runs_the_instance(dtype):
    a, b = operands(16, dtype, 100)
    s = kleene.Semiring(add="min", multiply="plus")
    c, trace = kleene.mxm(a, b, s, explain=True)
    assert "run-time composition" not in trace
    np.testing.assert_array_equal(c.to_numpy(), kleene.mxm(a, b, "min_plus").to_numpy())
    # the generic kernels agree with the compiled instance (the measured switch of bench/python)
    g, trace = kleene.mxm(a, b, kleene.Semiring._generic("min", "plus"), explain=True)
    assert "run-time composition" in trace
    np.testing.assert_array_equal(g.to_numpy(), c.to_numpy())
    u = np.arange(16).astype(dtype)
    np.testing.assert_array_equal(kleene.mxv(a, u, kleene.Semiring._generic("min", "plus")),
                                  kleene.mxv(a, u, s))


def test_saturating_plus_over_integers():
    # plus as a multiply keeps the integer infinities, as min_plus and max_plus do
    big = np.iinfo(np.int32).max
    a = sp.csr_matrix(np.array([[big, 1], [0, 2]], np.int32))
    u = np.array([5, big], np.int32)
    w = kleene.mxv(a, u, kleene.Semiring._generic("max", "plus"))
    np.testing.assert_array_equal(w, [big, big])


def test_bad_names():
    with pytest.raises(kleene.InvalidArgument, match="plus, times, min, max, lor, land, any"):
        kleene.Semiring(add="sum", multiply="times")
    with pytest.raises(kleene.InvalidArgument, match="first, second, pair"):
        kleene.Semiring(add="plus", multiply="div")
    with pytest.raises(kleene.InvalidArgument, match="names both operators"):
        kleene.Semiring(add="plus")
    with pytest.raises(kleene.InvalidArgument, match="not both"):
        kleene.Semiring("min_plus", add="plus", multiply="times")
    with pytest.raises(kleene.InvalidArgument, match="compose one"):
        kleene.Semiring("max_first")


def test_bool_compositions():
    a = random_graph(10, 0.3, 110, dtype=bool)
    c = kleene.mxm(a, a, kleene.Semiring(add="lor", multiply="land"))
    np.testing.assert_array_equal(c.to_numpy(), (a.astype(int) @ a.astype(int)).toarray() > 0)
    with pytest.raises(kleene.InvalidArgument, match="over bool only the built-ins"):
        kleene.mxm(a, a, kleene.Semiring(add="max", multiply="land"))


def test_accumulating_vectors_with_another_operator():
    a = random_graph(8, 0.3, 120)
    with pytest.raises(kleene.InvalidArgument, match="accumulate with the semiring's add"):
        kleene.mxv(a, np.ones(8), kleene.Semiring(add="max", multiply="first"), accum="plus")


def test_source_semiring_on_the_host_is_refused():
    s = kleene.Semiring.from_source(value_type="float32", zero=float("-inf"), one=0.0,
                                    add="a > b ? a : b", mul="a + b", idempotent_add=True)
    assert s == kleene.Semiring.from_source(value_type="float32", zero=float("-inf"), one=0.0,
                                            add="a > b ? a : b", mul="a + b", idempotent_add=True)
    assert s.built_for() == ("float32",)
    a = random_graph(8, 0.3, 130, dtype=np.float32)
    with pytest.raises(kleene.InvalidArgument, match="runs on the GPU only"):
        kleene.mxm(a, a, s)
    with pytest.raises(kleene.InvalidArgument, match="runs on the GPU only"):
        kleene.mxv(a, np.ones(8, np.float32), s)
    with pytest.raises(kleene.InvalidArgument, match="numeric literal"):
        kleene.Semiring.from_source(value_type="float32", zero="x", one="1", add="a", mul="b")
    with pytest.raises(kleene.InvalidArgument, match="value_type"):
        kleene.Semiring.from_source(value_type="bool", zero=0, one=1, add="a", mul="b")


# ---- device matrices: the JIT (skipped without a device) ----------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("add,mul", [("max", "first"), ("min", "second"), ("plus", "pair"),
                                     ("times", "plus")])
def test_gpu_compositions_match_the_host(add, mul, dtype):
    s = kleene.Semiring(add=add, multiply=mul)
    a, b = operands(40, dtype, 140)
    A, B = kleene.Matrix.from_scipy(a), kleene.Matrix.from_scipy(b)
    want = kleene.mxm(A, B, s)
    got = kleene.mxm(A.to_device(), B.to_device(), s).to_host()
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
    u = np.random.default_rng(141).integers(1, 4, 40).astype(dtype)
    np.testing.assert_array_equal(kleene.mxv(A.to_device(), kleene.to_device(u), s).to_numpy(),
                                  kleene.mxv(A, u, s))
    np.testing.assert_array_equal(kleene.vxm(kleene.to_device(u), A.to_device(), s).to_numpy(),
                                  kleene.vxm(u, A, s))
    D = kleene.Matrix.from_numpy(a.toarray())
    np.testing.assert_array_equal(kleene.mxm(D.to_device(), D.to_device(), s).to_host().to_numpy(),
                                  kleene.mxm(D, D, s).to_numpy())


@pytest.mark.gpu
def test_gpu_composition_masked_accumulated():
    s = kleene.Semiring(add="max", multiply="first")
    a, b = operands(40, "float32", 150)
    c0 = random_graph(40, 0.2, 151, dtype=np.float32)
    mask = kleene.Matrix.from_scipy(random_graph(40, 0.3, 152, dtype=np.float32))
    args = dict(mask=mask, accum="max", replace=True)
    want = kleene.mxm(a, b, s, out=kleene.Matrix.from_scipy(c0), **args)
    got = kleene.mxm(kleene.Matrix.from_scipy(a).to_device(),
                     kleene.Matrix.from_scipy(b).to_device(), s,
                     out=kleene.Matrix.from_scipy(c0).to_device(),
                     mask=mask.to_device(), accum="max", replace=True)
    np.testing.assert_array_equal(got.to_host().to_numpy(), want.to_numpy())


@pytest.mark.gpu
def test_gpu_source_semiring_is_max_plus():
    s = kleene.Semiring.from_source(value_type="float32", zero=float("-inf"), one=0.0,
                                    add="a > b ? a : b", mul="a + b", idempotent_add=True)
    a, b = operands(40, "float32", 160)
    A, B = kleene.Matrix.from_scipy(a), kleene.Matrix.from_scipy(b)
    want = kleene.mxm(A, B, kleene.Semiring._generic("max", "plus"))
    got = kleene.mxm(A.to_device(), B.to_device(), s).to_host()
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())


@pytest.mark.gpu
def test_gpu_spmm_with_a_composition_is_refused():
    s = kleene.Semiring(add="max", multiply="first")
    a = random_graph(10, 0.3, 170, dtype=np.float32)
    A = kleene.Matrix.from_scipy(a).to_device()
    D = kleene.Matrix.from_numpy(a.toarray()).to_device()
    with pytest.raises(kleene.InvalidArgument, match="no JIT-compiled kernel"):
        kleene.mxm(A, D, s)
