"""The GraphBLAS operations beside the products (ewise_add, ewise_mult, apply, select, reduce,
transpose, extract, assign, kronecker) against a plain NumPy reference of GraphBLAS semantics on
random inputs (several shapes, empty and 1 x 1 included, every dtype), and against SciPy where
SciPy has the operation. A matrix of the reference is (present, values): two dense arrays."""

import functools

import numpy as np
import pytest
import scipy.sparse as sp

import kleene

DTYPES = ["float32", "float64", "int32", "int64", "bool"]
SHAPES = [(0, 0), (0, 4), (3, 0), (1, 1), (1, 6), (6, 1), (7, 5), (12, 12)]
BINARY = ["plus", "times", "min", "max", "first", "second", "pair", "any", "lor", "land"]
UNARY = ["identity", "ainv", "abs", "minv", "lnot", "one"]
MONOIDS = ["plus", "times", "min", "max", "lor", "land", "any"]
ACCUM = [None, "plus", "min", "second"]


def rand(shape, dtype="float64", seed=0, density=0.4, hi=9):
    """A random scipy CSR matrix with values in 1..hi (True for bool): no stored zeros."""
    rng = np.random.default_rng(seed)
    present = rng.random(shape) < density
    values = rng.integers(1, hi + 1, size=shape)
    return sp.csr_matrix(np.where(present, values, 0).astype(dtype))


def ref(x):
    """(present, values) of a scipy matrix or a kleene Matrix (its stored entries)."""
    if isinstance(x, kleene.Matrix):
        dtype = x.dtype
        x = x.to_scipy()
    else:
        dtype = x.dtype
    c = sp.coo_matrix(x)
    present = np.zeros(x.shape, bool)
    values = np.zeros(x.shape, dtype)
    present[c.row, c.col] = True
    values[c.row, c.col] = c.data
    return present, values


def assert_same(m, want):
    present, values = ref(m)
    want_present, want_values = want
    np.testing.assert_array_equal(present, want_present)
    np.testing.assert_array_equal(values[present], want_values[want_present])


def binop(name, a, b):
    """kleene's binary operators (semirings/include/kleene/semiring.hpp) on arrays of one dtype."""
    a, b = np.asarray(a), np.asarray(b)
    dt = np.result_type(a, b)
    with np.errstate(all="ignore"):
        r = {"plus": lambda: a + b, "times": lambda: a * b, "min": lambda: np.minimum(a, b),
             "max": lambda: np.maximum(a, b), "first": lambda: a + 0 * b,
             "second": lambda: b + 0 * a, "pair": lambda: np.ones(np.broadcast(a, b).shape),
             "any": lambda: np.where(a == 0, b, a),
             "lor": lambda: (a != 0) | (b != 0), "land": lambda: (a != 0) & (b != 0)}[name]()
    return np.asarray(r).astype(dt)


def unop(name, a):
    a = np.asarray(a)
    dt = a.dtype
    with np.errstate(all="ignore"):
        if name == "identity":
            return a.copy()
        if name == "ainv":
            return a.copy() if dt == bool else -a
        if name == "abs":
            return a.copy() if dt == bool else np.abs(a)
        if name == "minv":
            if dt == bool:
                return np.ones_like(a)
            if dt.kind == "f":
                return (1 / a).astype(dt)
            big = np.iinfo(dt).max
            return np.where(a == 0, big, np.where(np.abs(a) == 1, a, 0)).astype(dt)
        if name == "lnot":
            return (a == 0).astype(dt)
        return np.ones_like(a)


def fold(name, values):
    """The monoid's fold of a non-empty sequence, left to right."""
    return functools.reduce(lambda x, y: binop(name, x, y), values)


def identity(name, dtype):
    dt = np.dtype(dtype)
    big = np.inf if dt.kind == "f" else (True if dt == bool else np.iinfo(dt).max)
    small = -np.inf if dt.kind == "f" else (False if dt == bool else np.iinfo(dt).min)
    return dt.type({"plus": 0, "times": 1, "min": big, "max": small, "lor": 0, "land": 1,
                    "any": 0}[name])


# ---- the write-back: C<mask, replace> accum= T ---------------------------------------------------

def write_ref(c, t, allow, accum, replace):
    (cp, cv), (tp, tv) = c, t
    if accum:
        zp = cp | tp
        zv = np.where(tp, tv, cv)
        zv = np.where(cp & tp, binop(accum, cv, tv), zv)
    else:
        zp, zv = tp, tv
    present = np.where(allow, zp, cp & (not replace))
    values = np.where(allow, zv, cv)
    return present, np.where(present, values, 0).astype(cv.dtype)


def mask_of(shape, seed, structural, complemented):
    """A random mask with stored zeros (where valued and structural masks differ), as kleene's
    mask argument and as the reference's `allow`."""
    m = rand(shape, "float64", seed, density=0.5)
    m.data[::3] = 0  # stored zeros
    stored = np.zeros(shape, bool)
    c = m.tocoo()
    stored[c.row, c.col] = True
    allow = stored if structural else stored & (m.toarray() != 0)
    mk = kleene.Matrix.from_scipy(m)
    arg = kleene.structure(mk) if structural else mk
    if complemented:
        arg, allow = kleene.complement(arg), ~allow
    return arg, allow


# ---- the operations' references ------------------------------------------------------------------

def ewise_ref(add, op, a, b):
    (ap, av), (bp, bv) = a, b
    both = ap & bp
    if add:
        present = ap | bp
        values = np.where(ap, av, bv)
    else:
        present, values = both, np.zeros_like(av)
    values = np.where(both, binop(op, av, bv), values)
    return present, np.where(present, values, 0).astype(av.dtype)


def select_ref(name, k, a):
    p, v = a
    i, j = np.indices(p.shape)
    keep = {"tril": j <= i + k, "triu": j >= i + k, "diag": j == i + k, "offdiag": j != i + k,
            "row_le": i <= k, "row_gt": i > k, "col_le": j <= k, "col_gt": j > k,
            "value_eq": v == k, "value_ne": v != k, "value_lt": v < k, "value_le": v <= k,
            "value_gt": v > k, "value_ge": v >= k}[name]
    present = p & keep
    return present, np.where(present, v, 0)


def reduce_ref(name, a, axis):
    """(present, values) of the fold of each row (axis=1) or column (axis=0), as an n x 1 matrix."""
    p, v = a
    if axis == 0:
        p, v = p.T, v.T
    present = p.any(axis=1)
    values = np.zeros(p.shape[0], v.dtype)
    for i in np.nonzero(present)[0]:
        values[i] = fold(name, v[i, p[i]])
    return present.reshape(-1, 1), values.reshape(-1, 1)


def kron_ref(op, a, b):
    (ap, av), (bp, bv) = a, b
    (ma, na), (mb, nb) = ap.shape, bp.shape
    present = np.zeros((ma * mb, na * nb), bool)
    values = np.zeros((ma * mb, na * nb), av.dtype)
    for ia, ja in zip(*np.nonzero(ap)):
        block = (slice(ia * mb, ia * mb + mb), slice(ja * nb, ja * nb + nb))
        present[block] = bp
        values[block] = np.where(bp, binop(op, av[ia, ja], bv), 0)
    return present, values


def extract_ref(a, rows, cols):
    p, v = a
    return p[np.ix_(rows, cols)], v[np.ix_(rows, cols)]


def assign_ref(c, s, rows, cols, accum):
    """Z of GrB_assign: C with the region C(rows, cols) replaced by S (merged through accum)."""
    (cp, cv), (sp_, sv) = c, s
    zp, zv = cp.copy(), cv.copy()
    ix = np.ix_(rows, cols)
    if accum:
        rp, rv = cp[ix], cv[ix]
        merged = np.where(rp & sp_, binop(accum, rv, sv), np.where(sp_, sv, rv))
        zp[ix], zv[ix] = rp | sp_, merged
    else:
        zp[ix], zv[ix] = sp_, sv
    return zp, np.where(zp, zv, 0).astype(cv.dtype)


# ---- ewise_add, ewise_mult -----------------------------------------------------------------------

@pytest.mark.parametrize("add", [True, False])
@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("dtype", DTYPES)
def test_ewise_matches_reference(add, op, dtype):
    a, b = rand((9, 7), dtype, 1), rand((9, 7), dtype, 2)
    fn = kleene.ewise_add if add else kleene.ewise_mult
    c = fn(kleene.Matrix.from_scipy(a), b, op)
    assert c.dtype == np.dtype(dtype) and c.format == "csr"
    assert_same(c, ewise_ref(add, op, ref(a), ref(b)))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("add", [True, False])
def test_ewise_shapes(shape, dtype, add):
    a, b = rand(shape, dtype, 3), rand(shape, dtype, 4)
    fn = kleene.ewise_add if add else kleene.ewise_mult
    c = fn(a, b, "min")
    assert c.shape == shape
    assert_same(c, ewise_ref(add, "min", ref(a), ref(b)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_ewise_matches_scipy(dtype):
    a, b = rand((30, 20), dtype, 5, 0.2), rand((30, 20), dtype, 6, 0.2)
    np.testing.assert_array_equal(kleene.ewise_add(a, b).to_numpy(), (a + b).toarray())
    np.testing.assert_array_equal(kleene.ewise_mult(a, b).to_numpy(), a.multiply(b).toarray())
    # A semiring stands for its add (ewise_add) or its multiply (ewise_mult).
    assert_same(kleene.ewise_add(a, b, kleene.min_plus), ewise_ref(True, "min", ref(a), ref(b)))
    assert_same(kleene.ewise_mult(a, b, "min.plus"), ewise_ref(False, "plus", ref(a), ref(b)))


# ---- masks, accumulators, replace: every operation's write-back ----------------------------------

def _cases():
    """Each operation as (kleene call, reference result T) on 8 x 8 operands."""
    a, b = rand((8, 8), "float64", 10), rand((8, 8), "float64", 11)
    ra, rb = ref(a), ref(b)
    k = rand((2, 4), "float64", 12, 0.6)
    kb = rand((4, 2), "float64", 13, 0.6)
    rows, cols = [7, 0, 3, 3, 1, 2, 6, 5], [4, 4, 0, 1, 7, 2, 3, 6]
    return {
        "ewise_add": (lambda **kw: kleene.ewise_add(a, b, "max", **kw),
                      ewise_ref(True, "max", ra, rb)),
        "ewise_mult": (lambda **kw: kleene.ewise_mult(a, b, "first", **kw),
                       ewise_ref(False, "first", ra, rb)),
        "apply": (lambda **kw: kleene.apply(a, "times", right=3.0, **kw),
                  (ra[0], np.where(ra[0], ra[1] * 3, 0))),
        "select": (lambda **kw: kleene.select(a, "triu", 1, **kw), select_ref("triu", 1, ra)),
        "transpose": (lambda **kw: kleene.transpose(a, **kw), (ra[0].T, ra[1].T)),
        "extract": (lambda **kw: kleene.extract(a, rows, cols, **kw),
                    extract_ref(ra, rows, cols)),
        "kronecker": (lambda **kw: kleene.kronecker(k, kb, "plus", **kw),
                      kron_ref("plus", ref(k), ref(kb))),
    }


@pytest.mark.parametrize("op", ["ewise_add", "ewise_mult", "apply", "select", "transpose",
                                "extract", "kronecker"])
@pytest.mark.parametrize("structural", [False, True])
@pytest.mark.parametrize("complemented", [False, True])
@pytest.mark.parametrize("accum", ACCUM)
@pytest.mark.parametrize("replace", [False, True])
def test_mask_accumulator_replace(op, structural, complemented, accum, replace):
    call, t = _cases()[op]
    c0 = rand((8, 8), "float64", 20, 0.5)
    mask, allow = mask_of((8, 8), 21, structural, complemented)
    out = kleene.Matrix.from_scipy(c0)
    r = call(out=out, mask=mask, accum=accum, replace=replace)
    assert r is out
    assert_same(r, write_ref(ref(c0), t, allow, accum, replace))


@pytest.mark.parametrize("accum", ACCUM)
def test_out_and_accumulator_without_mask(accum):
    a, b, c0 = rand((6, 9), "int64", 30), rand((6, 9), "int64", 31), rand((6, 9), "int64", 32)
    out = kleene.Matrix.from_scipy(c0)
    kleene.ewise_add(a, b, "plus", out=out, accum=accum)
    allow = np.ones((6, 9), bool)
    assert_same(out, write_ref(ref(c0), ewise_ref(True, "plus", ref(a), ref(b)), allow, accum,
                               False))


# ---- apply ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("dtype", DTYPES)
def test_apply_unary(op, dtype):
    a = rand((10, 8), dtype, 40)
    if dtype != "bool":
        a.data[::2] *= -1  # negative values for ainv, abs
    p, v = ref(a)
    r = kleene.apply(a, op)
    assert r.dtype == np.dtype(dtype)
    assert_same(r, (p, np.where(p, unop(op, v), 0)))


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_apply_bound(op, side, dtype):
    a = rand((9, 9), dtype, 41)
    x = np.dtype(dtype).type(3)
    p, v = ref(a)
    r = kleene.apply(a, op, **{side: x})
    want = binop(op, x, v) if side == "left" else binop(op, v, x)
    assert_same(r, (p, np.where(p, want, 0)))


# ---- select --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["tril", "triu", "diag", "offdiag", "row_le", "row_gt",
                                  "col_le", "col_gt"])
@pytest.mark.parametrize("k", [-2, 0, 3])
@pytest.mark.parametrize("shape", [(0, 0), (1, 1), (9, 6), (5, 11)])
def test_select_positions(name, k, shape):
    a = rand(shape, "float32", 50, 0.6)
    assert_same(kleene.select(a, name, k), select_ref(name, k, ref(a)))


@pytest.mark.parametrize("name,alias", [("value_eq", "=="), ("value_ne", "!="),
                                        ("value_lt", "<"), ("value_le", "<="),
                                        ("value_gt", ">"), ("value_ge", ">=")])
@pytest.mark.parametrize("dtype", ["float64", "int32", "int64"])
def test_select_values(name, alias, dtype):
    a = rand((12, 10), dtype, 51, 0.5)
    want = select_ref(name, 5, ref(a))
    assert_same(kleene.select(a, name, 5), want)
    assert_same(kleene.select(a, alias, 5), want)


def test_select_scipy_tril_triu():
    a = rand((15, 15), "float64", 52, 0.3)
    np.testing.assert_array_equal(kleene.select(a, "tril", -1).to_numpy(),
                                  sp.tril(a, -1).toarray())
    np.testing.assert_array_equal(kleene.select(a, "triu", 2).to_numpy(), sp.triu(a, 2).toarray())


# ---- reduce --------------------------------------------------------------------------------------

@pytest.mark.parametrize("monoid", MONOIDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(0, 0), (1, 1), (4, 0), (10, 7)])
def test_reduce(monoid, dtype, shape):
    a = rand(shape, dtype, 60, 0.5, hi=2 if monoid == "times" else 9)  # no float rounding
    ra = ref(a)
    for axis in (1, 0):
        w = kleene.reduce(a, monoid, axis=axis)
        p, v = reduce_ref(monoid, ra, axis)
        fill = identity(monoid, dtype)
        assert w.dtype == np.dtype(dtype) and w.shape == (p.shape[0],)
        if monoid == "any":  # one of the row's values, which one unspecified
            rows = ra if axis == 1 else (ra[0].T, ra[1].T)
            for i in range(p.shape[0]):
                assert (w[i] in rows[1][i][rows[0][i]]) if p[i, 0] else w[i] == fill
        else:
            np.testing.assert_array_equal(w, np.where(p[:, 0], v[:, 0], fill))
    s = kleene.reduce(a, monoid)
    assert isinstance(s, np.generic) and s.dtype == np.dtype(dtype)
    if monoid != "any":  # test_reduce_any_to_scalar
        # kleene folds every entry into the identity (lor, land of one entry give 0 or 1), where
        # a row's fold starts from its first entry.
        values = ra[1][ra[0]]
        assert s == fold(monoid, np.concatenate([[identity(monoid, dtype)], values]))


def test_reduce_any_to_scalar():
    # Fewer than 16 entries: kleene::cpu::reduce_values once stopped at the any monoid's terminal
    # before reading a value and returned the identity.
    assert kleene.reduce(np.array([4, 5, 3], np.int32), "any") in (4, 5, 3)


def test_reduce_any_to_scalar_of_many_entries():
    u = np.arange(1, 40, dtype=np.int32)
    assert kleene.reduce(u, "any") in u


def test_reduce_matches_scipy():
    a = rand((40, 30), "float64", 61, 0.1)
    np.testing.assert_array_equal(kleene.reduce(a, axis=1), np.asarray(a.sum(axis=1)).ravel())
    np.testing.assert_array_equal(kleene.reduce(a, axis=0), np.asarray(a.sum(axis=0)).ravel())
    assert kleene.reduce(a) == a.sum()
    # A semiring stands for its add; its zero is what rows without entries hold.
    w = kleene.reduce(a, kleene.min_plus, axis=1)
    d = np.where(ref(a)[0], a.toarray(), np.inf)
    np.testing.assert_array_equal(w, d.min(axis=1))


@pytest.mark.parametrize("complemented", [False, True])
@pytest.mark.parametrize("accum", ACCUM)
@pytest.mark.parametrize("replace", [False, True])
def test_reduce_to_vector_mask_accumulator(complemented, accum, replace):
    a = rand((12, 9), "float64", 62, 0.3)
    rng = np.random.default_rng(63)
    w0 = rng.integers(0, 4, 12).astype(np.float64)  # 0: no entry (plus's identity)
    m = rng.random(12) < 0.5
    mask = kleene.complement(m) if complemented else m
    allow = (~m if complemented else m).reshape(-1, 1)
    w = kleene.reduce(a, "plus", axis=1, out=w0, mask=mask, accum=accum, replace=replace)
    c = ((w0 != 0).reshape(-1, 1), w0.reshape(-1, 1))
    want_p, want_v = write_ref(c, reduce_ref("plus", ref(a), 1), allow, accum, replace)
    np.testing.assert_array_equal(w, np.where(want_p, want_v, 0).ravel())


def test_reduce_scalar_accumulates_into_out():
    a = rand((5, 5), "int32", 64)
    assert kleene.reduce(a, "plus", out=100, accum="plus") == 100 + a.sum()
    assert kleene.reduce(a, "max", out=100, accum="min") == min(100, a.max())


# ---- transpose -----------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_transpose(shape, dtype):
    a = rand(shape, dtype, 70)
    t = kleene.transpose(a)
    assert t.shape == shape[::-1]
    np.testing.assert_array_equal(t.to_numpy(), a.T.toarray())


def test_transpose_of_dense_and_int64_indices():
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    np.testing.assert_array_equal(kleene.transpose(kleene.Matrix.from_numpy(x)).to_numpy(), x.T)
    wide = kleene.Matrix.from_scipy(rand((6, 5), "int64", 71), index="int64")
    np.testing.assert_array_equal(kleene.transpose(wide).to_numpy(), wide.to_numpy().T)


# ---- extract -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows,cols", [
    (None, None), ([4, 0, 0, 2], None), (None, [3, 1, 1]), ([], [0, 2]),
    (slice(1, 5), slice(None, None, 2)), (slice(None, None, -1), [6, 0]), ([5], [5])])
def test_extract_submatrix(dtype, rows, cols):
    a = rand((7, 7), dtype, 80, 0.5)
    r = kleene.extract(a, rows, cols)
    ix = np.arange(7)
    ri = ix if rows is None else (ix[rows] if isinstance(rows, slice) else np.asarray(rows, int))
    ci = ix if cols is None else (ix[cols] if isinstance(cols, slice) else np.asarray(cols, int))
    assert r.shape == (len(ri), len(ci))
    assert_same(r, extract_ref(ref(a), ri, ci))


def test_extract_matches_scipy_and_vectors():
    a = rand((20, 15), "float64", 81, 0.3)
    rows, cols = [3, 19, 0, 3], [14, 2, 2, 7, 0]
    np.testing.assert_array_equal(kleene.extract(a, rows, cols).to_numpy(),
                                  a[rows][:, cols].toarray())
    np.testing.assert_array_equal(kleene.extract(a, None, 4), a[:, 4].toarray().ravel())
    np.testing.assert_array_equal(kleene.extract(a, 7, [1, 0]), a[7, [1, 0]].toarray().ravel())
    u = np.arange(10.0)
    np.testing.assert_array_equal(kleene.extract(u, [9, 2, 2]), u[[9, 2, 2]])
    np.testing.assert_array_equal(kleene.extract(u, slice(2, 8, 3)), u[2:8:3])


# ---- assign --------------------------------------------------------------------------------------

@pytest.mark.parametrize("source", ["matrix", "scalar"])
@pytest.mark.parametrize("accum", [None, "plus", "min"])
@pytest.mark.parametrize("masking", [None, "valued", "structural-complement"])
@pytest.mark.parametrize("replace", [False, True])
def test_assign(source, accum, masking, replace):
    n = 9
    c0 = rand((n, n), "int64", 90, 0.4)
    rows, cols = [7, 1, 4], [0, 8, 3, 5]
    s = rand((3, 4), "int64", 91, 0.5) if source == "matrix" else 6
    s_ref = ref(s) if source == "matrix" else (np.ones((3, 4), bool), np.full((3, 4), 6))
    mask, allow = None, np.ones((n, n), bool)
    if masking:
        mask, allow = mask_of((n, n), 92, masking != "valued", masking != "valued")
    out = kleene.Matrix.from_scipy(c0)
    r = kleene.assign(out, s, rows, cols, mask=mask, accum=accum, replace=replace)
    assert r is out
    z = assign_ref(ref(c0), s_ref, rows, cols, accum)
    want = write_ref(ref(c0), z, allow, None, replace) if masking else z
    assert_same(r, want)


def test_assign_row_column_and_vectors():
    c = kleene.Matrix.from_numpy(np.zeros((4, 5)))
    kleene.assign(c, np.array([1.0, 2.0]), 2, [4, 0])  # part of row 2
    kleene.assign(c, np.array([7.0, 0.0]), [0, 3], 1)  # part of column 1: 0 is no entry
    want = np.zeros((4, 5))
    want[2, [4, 0]] = [1, 2]
    want[0, 1] = 7
    np.testing.assert_array_equal(c.to_numpy(), want)
    assert c.format == "csr"
    w = kleene.assign(np.array([1.0, 2, 3, 4]), 9.0, [3, 0])
    np.testing.assert_array_equal(w, [9, 2, 3, 9])
    w = kleene.assign(np.array([1.0, 2, 3, 4]), np.array([5.0, 0.0]), [1, 2], accum="plus")
    np.testing.assert_array_equal(w, [1, 7, 3, 4])
    w = kleene.assign(np.array([1.0, 2, 3, 4]), np.array([5.0, 0.0]), [1, 2])
    np.testing.assert_array_equal(w, [1, 5, 0, 4])  # without accum the region's 3 is deleted


# ---- kronecker -----------------------------------------------------------------------------------

@pytest.mark.parametrize("sa,sb", [((0, 0), (2, 3)), ((1, 1), (1, 1)), ((2, 3), (3, 2)),
                                   ((4, 1), (1, 4)), ((3, 3), (0, 2))])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_kronecker_matches_scipy(sa, sb, dtype):
    a, b = rand(sa, dtype, 100, 0.6), rand(sb, dtype, 101, 0.6)
    k = kleene.kronecker(a, b)
    assert k.shape == (sa[0] * sb[0], sa[1] * sb[1])
    np.testing.assert_array_equal(k.to_numpy(), sp.kron(a, b).toarray())


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("dtype", DTYPES)
def test_kronecker_operators(op, dtype):
    a, b = rand((3, 2), dtype, 102, 0.6), rand((2, 4), dtype, 103, 0.6)
    assert_same(kleene.kronecker(a, b, op), kron_ref(op, ref(a), ref(b)))


# ---- vectors and dense operands: the absent value ------------------------------------------------

def test_vectors():
    rng = np.random.default_rng(110)
    u = rng.integers(0, 4, 20).astype(np.float64)  # 0: no entry under plus.times
    v = rng.integers(0, 4, 20).astype(np.float64)
    np.testing.assert_array_equal(kleene.ewise_add(u, v), u + v)
    np.testing.assert_array_equal(kleene.ewise_mult(u, v), u * v)
    # min.plus: +inf is no entry; the union takes min, the intersection plus.
    x, y = np.where(u == 0, np.inf, u), np.where(v == 0, np.inf, v)
    np.testing.assert_array_equal(kleene.ewise_add(x, y, "min.plus"), np.minimum(x, y))
    np.testing.assert_array_equal(kleene.ewise_mult(x, y, kleene.min_plus), x + y)
    np.testing.assert_array_equal(kleene.apply(u, "ainv"), -u)
    # A bound operator's absent value is kleene's (absent_of: times' identity, 1), so that
    # 1s are no entry and stay; absent=0 makes it u's plus.times convention.
    np.testing.assert_array_equal(kleene.apply(u, "times", left=2.0), np.where(u == 1, 1, 2 * u))
    np.testing.assert_array_equal(kleene.apply(u, "times", left=2.0, absent=0), 2 * u)
    np.testing.assert_array_equal(kleene.select(u, ">", 2.0), np.where(u > 2, u, 0))
    np.testing.assert_array_equal(kleene.select(u, "row_le", 4), np.where(np.arange(20) <= 4, u, 0))
    assert kleene.reduce(u) == u.sum()
    assert kleene.reduce(x, "min") == x.min()
    assert kleene.reduce(np.zeros(0), "min") == np.inf
    # Masks, out and accum on vectors.
    m = rng.random(20) < 0.5
    w = kleene.ewise_add(u, v, out=np.full(20, 5.0), mask=m, accum="plus")
    np.testing.assert_array_equal(w, np.where(m, 5 + u + v, 5))
    w = kleene.apply(u, "one", out=np.full(20, 5.0), mask=kleene.complement(m), replace=True)
    np.testing.assert_array_equal(w, np.where(~m, np.where(u != 0, 1, 0), 0))
    with pytest.raises(kleene.InvalidArgument, match="structural mask would allow every write"):
        kleene.apply(u, "one", mask=kleene.structure(m))
    # Vectors of other dtypes: the second and out are converted to the first's.
    np.testing.assert_array_equal(kleene.ewise_add(np.array([1, 2], np.int32), [0.0, 3.0]),
                                  np.array([1, 5], np.int32))


def test_absent_value_of_dense_operands():
    x = np.array([[1.0, 0.0], [np.inf, 2.0]])
    d = kleene.Matrix.from_numpy(x)
    # plus.times: 0 is no entry, so the inf is an entry.
    assert_same(kleene.apply(d, "identity"), (x != 0, x))
    # A semiring's zero, or absent=, says what no entry is.
    assert_same(kleene.ewise_add(d, d, "min.plus"), (x != np.inf, x))
    assert_same(kleene.ewise_add(d, d, "min", absent=np.inf), (x != np.inf, x))
    # A bare operator's absent value is kleene's: times' identity, 1.
    assert_same(kleene.ewise_mult(d, d, "times"), (x != 1, x * x))
    v = kleene.ewise_add(np.array([np.inf, 1.0]), np.array([2.0, np.inf]), "min")
    np.testing.assert_array_equal(v, [2.0, 1.0])


# ---- errors --------------------------------------------------------------------------------------

class _DeviceVectorLookalike:
    """Has __cuda_array_interface__, so kleene takes it for device memory (it is never read)."""

    __cuda_array_interface__ = {"shape": (5,), "typestr": "<f8", "data": (0, True), "version": 3}


def test_shape_mismatch():
    a, b = rand((4, 5), "float64", 120), rand((5, 4), "float64", 121)
    for call in (lambda: kleene.ewise_add(a, b), lambda: kleene.ewise_mult(a, b),
                 lambda: kleene.ewise_add(np.ones(3), np.ones(4))):
        with pytest.raises(kleene.DimensionMismatch, match="differ in shape"):
            call()
    out = kleene.Matrix.from_scipy(rand((4, 4), "float64", 122))
    for call in (lambda: kleene.apply(a, "abs", out=out), lambda: kleene.transpose(b, out=out),
                 lambda: kleene.select(a, "tril", mask=out),
                 lambda: kleene.kronecker(a, b, out=out),
                 lambda: kleene.extract(a, [0, 1], None, out=out)):
        with pytest.raises(kleene.DimensionMismatch, match="but the result is"):
            call()
    with pytest.raises(kleene.DimensionMismatch, match="region C"):
        kleene.assign(out, a, [0, 1], [0, 1])
    with pytest.raises(kleene.DimensionMismatch, match="but the result is"):
        kleene.reduce(a, axis=1, out=np.ones(3))


def test_unknown_operator_names():
    a = rand((3, 3), "float64", 123)
    for call, what in ((lambda: kleene.ewise_add(a, a, "minus"), "ewise_add: the operator"),
                       (lambda: kleene.ewise_mult(a, a, "div"), "ewise_mult: the operator"),
                       (lambda: kleene.kronecker(a, a, "xor"), "kronecker: the operator"),
                       (lambda: kleene.apply(a, "sqrt"), "apply: the unary operator"),
                       (lambda: kleene.apply(a, "minus", right=1), "apply: the operator"),
                       (lambda: kleene.select(a, "upper"), "select: the predicate"),
                       (lambda: kleene.reduce(a, "first"), "reduce: the monoid"),
                       (lambda: kleene.reduce(a, "pair", axis=0), "reduce: the monoid"),
                       (lambda: kleene.ewise_add(a, a, out=kleene.Matrix.from_scipy(a),
                                                 accum="div"), "accumulator div")):
        with pytest.raises(kleene.InvalidArgument, match=what):
            call()
    with pytest.raises(kleene.InvalidArgument, match="unknown semiring"):
        kleene.ewise_add(a, a, "min.min")


def test_other_errors():
    a = rand((4, 4), "float64", 124)
    with pytest.raises(kleene.InvalidArgument, match="convert it with astype"):
        kleene.ewise_add(a, a.astype(np.float32))
    with pytest.raises(kleene.InvalidArgument, match="appears twice"):
        kleene.assign(kleene.Matrix.from_scipy(a), 1.0, [0, 0], None)
    with pytest.raises(kleene.InvalidArgument, match="outside 0..3"):
        kleene.extract(a, [4], None)
    with pytest.raises(kleene.InvalidArgument, match="value to compare with is missing"):
        kleene.select(a, "value_gt")
    with pytest.raises(kleene.InvalidArgument, match="not both"):
        kleene.apply(a, "plus", left=1, right=2)
    with pytest.raises(kleene.InvalidArgument, match="no mask or replace"):
        kleene.reduce(a, mask=a)
    with pytest.raises(kleene.InvalidArgument, match="name the accumulator"):
        kleene.apply(a, "abs", out=kleene.Matrix.from_scipy(a), accum=True)
    with pytest.raises(kleene.InvalidArgument, match="all vectors or all matrices"):
        kleene.ewise_add(a, np.ones(4))
    with pytest.raises(kleene.OverflowError, match="does not fit int32 indices"):
        big = sp.csr_matrix(([1.0], ([0], [0])), shape=(70000, 1))
        kleene.kronecker(big, big)


def test_mixing_host_and_device_is_refused():
    u = np.ones(5)
    for call in (lambda: kleene.ewise_add(u, _DeviceVectorLookalike()),
                 lambda: kleene.ewise_mult(_DeviceVectorLookalike(), u),
                 lambda: kleene.apply(u, "abs", out=_DeviceVectorLookalike()),
                 lambda: kleene.select(u, "tril", mask=_DeviceVectorLookalike()),
                 lambda: kleene.extract(u, [0], out=_DeviceVectorLookalike()),
                 lambda: kleene.assign(u, _DeviceVectorLookalike(), None),
                 lambda: kleene.reduce(u, axis=None, mask=_DeviceVectorLookalike())):
        with pytest.raises(kleene.SpaceMismatch, match=r"to_device\(\)"):
            call()
