"""Matrix: NumPy / SciPy round trips, what is copied and what is viewed, dtypes, errors."""

import numpy as np
import pytest
import scipy.sparse as sp

import kleene
from conftest import random_graph

DTYPES = ["float32", "float64", "int32", "int64", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index", ["int32", "int64"])
def test_scipy_round_trip(dtype, index):
    a = random_graph(40, 0.1, 1).astype(dtype)
    m = kleene.Matrix.from_scipy(a, index=index)
    assert m.shape == a.shape and m.nnz == a.nnz
    assert m.dtype == np.dtype(dtype) and m.index_dtype == np.dtype(index)
    assert m.format == "csr" and m.device == "cpu"
    b = m.to_scipy()
    assert b.dtype == a.dtype
    assert (b != a).nnz == 0
    np.testing.assert_array_equal(m.to_numpy(), a.toarray())


def test_to_scipy_views_kleene_storage_without_copy():
    m = kleene.Matrix.from_scipy(random_graph(50, 0.1, 2))
    b1, b2 = m.to_scipy(), m.to_scipy()
    # Both SciPy matrices view the same kleene arrays.
    assert np.shares_memory(b1.data, b2.data)
    assert np.shares_memory(b1.indices, b2.indices)
    assert np.shares_memory(b1.indptr, b2.indptr)
    indptr, indices, data = m.csr_arrays()
    assert np.shares_memory(data, b1.data)
    assert not data.flags.writeable
    with pytest.raises(ValueError):
        data[0] = 1.0
    # The views keep the storage alive after the Matrix is gone.
    expected = b1.toarray()
    del m
    np.testing.assert_array_equal(b1.toarray(), expected)


def test_from_scipy_shares_the_csr_arrays_by_default():
    a = random_graph(30, 0.2, 3)
    m = kleene.Matrix.from_scipy(a)
    b = m.to_scipy()
    assert np.shares_memory(b.data, a.data)
    assert np.shares_memory(b.indices, a.indices)
    assert np.shares_memory(b.indptr, a.indptr)
    a.data[:] = 7  # a shared matrix sees later changes of the values
    assert (m.to_scipy().data == 7).all()
    np.testing.assert_array_equal(kleene.mxv(m, np.ones(30), "plus.times"),
                                  a @ np.ones(30))
    # The kleene matrix keeps the arrays alive after the SciPy matrix is gone.
    expected = a.toarray()
    del a, b
    np.testing.assert_array_equal(m.to_numpy(), expected)


def test_from_scipy_copy_true_copies_once():
    a = random_graph(30, 0.2, 3)
    m = kleene.Matrix.from_scipy(a, copy=True)
    b = m.to_scipy()
    assert not any(np.shares_memory(x, y) for x, y in
                   [(b.data, a.data), (b.indices, a.indices), (b.indptr, a.indptr)])
    a.data[:] = -1  # the copy does not see later changes of the input
    assert (m.to_scipy().data > 0).all()


@pytest.mark.parametrize("index", ["int32", "int64"])
def test_shared_when_the_layout_allows_copied_when_not(index):
    a = random_graph(40, 0.1, 4).astype("float32")
    a.indices = a.indices.astype(index)
    a.indptr = a.indptr.astype(index)
    shared = kleene.Matrix.from_scipy(a, copy=False)
    assert np.shares_memory(shared.to_scipy().data, a.data)
    assert shared.index_dtype == np.dtype(index)
    # Another value type or index type than the input's: copied with copy=None, refused with
    # copy=False (saying which array and why).
    other = "int64" if index == "int32" else "int32"
    for kw, arr in [({"dtype": "float64"}, "data"), ({"index": other}, "indptr")]:
        m = kleene.Matrix.from_scipy(a, **kw)
        # Each array is shared or copied on its own: only those of another type are copied.
        mine = dict(zip(["indptr", "indices", "data"], m.csr_arrays()))
        copied = {"data"} if "dtype" in kw else {"indptr", "indices"}
        for name in mine:
            assert np.shares_memory(mine[name], getattr(a, name)) == (name not in copied), name
        np.testing.assert_array_equal(m.to_numpy(), a.toarray())
        with pytest.raises(kleene.InvalidArgument, match=f"{arr} cannot be shared \\(copy=False\\)"):
            kleene.Matrix.from_scipy(a, copy=False, **kw)
    # A non-canonical input is summed on a copy of kleene's own (never shared, never changed).
    nc = sp.csr_matrix((np.array([1.0, 2.0, 5.0]), np.array([2, 0, 2]), np.array([0, 3, 3])),
                       shape=(2, 3))
    with pytest.raises(kleene.InvalidArgument, match="unsorted or duplicate"):
        kleene.Matrix.from_scipy(nc, copy=False)
    np.testing.assert_array_equal(nc.indices, [2, 0, 2])


def test_from_csr_shares_and_refuses_what_it_cannot_share():
    indptr = np.array([0, 2, 3], dtype=np.int64)
    indices = np.array([0, 2, 1], dtype=np.int64)
    data = np.array([1.5, 2.5, 3.5])
    m = kleene.Matrix.from_csr((2, 3), indptr, indices, data)
    p, j, v = m.csr_arrays()
    assert np.shares_memory(p, indptr) and np.shares_memory(j, indices)
    assert np.shares_memory(v, data)
    assert not v.flags.writeable  # kleene's views stay read-only, shared or not
    # A strided view cannot be shared.
    wide = np.array([1.5, 0, 2.5, 0, 3.5, 0])[::2]
    with pytest.raises(kleene.InvalidArgument, match="data cannot be shared.*C-contiguous float64"):
        kleene.Matrix.from_csr((2, 3), indptr, indices, wide, copy=False)
    np.testing.assert_array_equal(kleene.Matrix.from_csr((2, 3), indptr, indices, wide).to_numpy(),
                                  m.to_numpy())
    # Misaligned memory (a float64 view one byte into a buffer) is copied, or refused.
    raw = np.zeros(3 * 8 + 1, dtype=np.uint8)[1:].view(np.float64)
    raw[:] = data
    assert not raw.flags.aligned
    np.testing.assert_array_equal(kleene.Matrix.from_csr((2, 3), indptr, indices, raw).to_numpy(),
                                  m.to_numpy())
    with pytest.raises(kleene.InvalidArgument, match="data cannot be shared.*not aligned"):
        kleene.Matrix.from_csr((2, 3), indptr, indices, raw, copy=False)
    with pytest.raises(kleene.InvalidArgument, match="copy must be True, False or None"):
        kleene.Matrix.from_csr((2, 3), indptr, indices, data, copy=1)
    # Read-only input is shared too (kleene never writes into a matrix's storage).
    ro = data.copy()
    ro.flags.writeable = False
    assert np.shares_memory(kleene.Matrix.from_csr((2, 3), indptr, indices, ro).csr_arrays()[2], ro)


def test_a_bad_structure_is_refused_before_it_is_read():
    # Row pointer past the entries: the check must stop there, not read past the index array.
    with pytest.raises(kleene.InvalidArgument, match="row_ptr decreases at row 1"):
        kleene.Matrix.from_csr((2, 4), np.array([0, 1 << 30, 3]), np.array([0, 1, 2]),
                               np.ones(3))
    with pytest.raises(kleene.InvalidArgument, match="row_ptr\\[rows\\] = 5 but there are 3"):
        kleene.Matrix.from_csr((2, 4), np.array([0, 1, 5]), np.array([0, 1, 2]), np.ones(3))
    # A failed shared import leaves the arrays usable and alive.
    idx = np.array([3, 1, 2])
    with pytest.raises(kleene.InvalidArgument, match="not sorted and unique"):
        kleene.Matrix.from_csr((2, 4), np.array([0, 2, 3]), idx, np.ones(3))
    np.testing.assert_array_equal(idx, [3, 1, 2])


def test_numpy_dense_round_trip_and_views():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    m = kleene.Matrix.from_numpy(x)
    assert m.format == "dense" and m.shape == (3, 4) and m.dtype == np.float32
    v1, v2 = m.to_numpy(), m.to_numpy()
    np.testing.assert_array_equal(v1, x)
    assert np.shares_memory(v1, v2) and np.shares_memory(v1, x)  # x is shared, not copied
    assert not v1.flags.writeable
    c = kleene.Matrix.from_numpy(x, copy=True)
    assert not np.shares_memory(c.to_numpy(), x)
    f = np.asfortranarray(x)
    assert not np.shares_memory(kleene.Matrix.from_numpy(f).to_numpy(), f)
    with pytest.raises(kleene.InvalidArgument, match="cannot be shared"):
        kleene.Matrix.from_numpy(f, copy=False)
    c = m.to_csr()  # zeros become "no entry"
    assert c.nnz == 11
    np.testing.assert_array_equal(c.to_dense().to_numpy(), x)


def test_non_canonical_input_is_summed_on_a_copy():
    a = sp.csr_matrix((np.array([1.0, 2.0, 5.0]), np.array([2, 0, 2]), np.array([0, 3, 3])),
                      shape=(2, 3))
    assert not a.has_canonical_format
    m = kleene.Matrix.from_scipy(a)
    np.testing.assert_array_equal(m.to_numpy(), [[2.0, 0.0, 6.0], [0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(a.indices, [2, 0, 2])  # input untouched


def test_from_coo_and_astype():
    m = kleene.Matrix.from_coo((3, 3), [0, 1, 2], [1, 2, 0], np.array([1.5, 2.5, 3.5]))
    np.testing.assert_array_equal(m.astype("int64").to_numpy(), [[0, 1, 0], [0, 0, 2], [3, 0, 0]])
    with pytest.raises(kleene.InvalidArgument, match="duplicate entry"):
        kleene.Matrix.from_coo((2, 2), [0, 0], [1, 1], np.array([1.0, 2.0]))
    m2 = kleene.Matrix.from_coo((2, 2), [0, 0], [1, 1], np.array([1.0, 2.0]), duplicates="sum")
    assert m2.to_numpy()[0, 1] == 3.0


def test_bad_input_raises_kleene_errors():
    with pytest.raises(kleene.InvalidArgument, match="complex128 is not offered"):
        kleene.Matrix.from_scipy(sp.eye(3, dtype=complex))
    with pytest.raises(kleene.InvalidArgument, match="column 7 in row 0 is outside"):
        kleene.Matrix.from_csr((2, 3), np.array([0, 1, 1]), np.array([7]), np.array([1.0]))
    with pytest.raises(kleene.InvalidArgument, match="not sorted and unique"):
        kleene.Matrix.from_csr((1, 3), np.array([0, 2]), np.array([2, 1]), np.array([1.0, 1.0]))
    assert issubclass(kleene.InvalidArgument, kleene.Error)
    assert issubclass(kleene.InvalidArgument, ValueError)
    assert issubclass(kleene.NoDevice, kleene.DeviceError)


def test_without_gpu_to_device_raises_no_device():
    if kleene.device_count() > 0:
        pytest.skip("a GPU is present: tests/python/test_gpu.py covers to_device")
    m = kleene.Matrix.from_scipy(random_graph(10, 0.3, 4))
    with pytest.raises(kleene.NoDevice):
        m.to_device()


def test_repr_names_shape_type_storage_and_device():
    m = kleene.Matrix.from_scipy(sp.csr_matrix(np.array([[0, 1.5], [2.0, 0]])))
    assert repr(m) == "<kleene.Matrix 2x2 float64, csr (2 entries, int32 indices), cpu>"
    d = kleene.Matrix.from_numpy(np.zeros((3, 4), dtype=np.float32))
    assert repr(d) == "<kleene.Matrix 3x4 float32, dense, cpu>"
