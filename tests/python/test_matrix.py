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


def test_from_scipy_copies_once():
    a = random_graph(30, 0.2, 3)
    m = kleene.Matrix.from_scipy(a)
    assert not np.shares_memory(m.to_scipy().data, a.data)
    a.data[:] = -1  # the kleene matrix does not see later changes of the input
    assert (m.to_scipy().data > 0).all()


def test_numpy_dense_round_trip_and_views():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    m = kleene.Matrix.from_numpy(x)
    assert m.format == "dense" and m.shape == (3, 4) and m.dtype == np.float32
    v1, v2 = m.to_numpy(), m.to_numpy()
    np.testing.assert_array_equal(v1, x)
    assert np.shares_memory(v1, v2) and not np.shares_memory(v1, x)
    assert not v1.flags.writeable
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
