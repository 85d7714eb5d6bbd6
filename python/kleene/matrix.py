"""kleene.Matrix: a sparse (CSR) or dense matrix in host or device memory."""

import numpy as np

from . import _kleene

_DTYPES = ("float32", "float64", "int32", "int64", "bool")
_INDEX = ("int32", "int64")


def _dtype_name(dtype):
    """The kleene name of a NumPy dtype (float32, float64, int32, int64, bool)."""
    name = np.dtype(dtype).name
    if name not in _DTYPES:
        raise _kleene.InvalidArgument(
            f"dtype {name} is not offered: kleene holds float32, float64, int32, int64 and bool "
            "(convert with .astype)")
    return name


def _index_name(index):
    name = np.dtype(index).name
    if name not in _INDEX:
        raise _kleene.InvalidArgument(f"index dtype {name} is not offered (int32, int64)")
    return name


def infinity(dtype):
    """kleene's "no path" value of a dtype: +inf for floats, the largest value for integers."""
    dt = np.dtype(dtype)
    return dt.type(np.inf) if dt.kind == "f" else np.iinfo(dt).max


class Matrix:
    """A matrix kleene computes on: CSR (sorted column indices) or dense, in host or device memory.

    A Matrix is immutable: products with ``out=`` replace its storage, and NumPy arrays handed out
    earlier keep the storage they were made from.
    """

    __slots__ = ("_s",)

    def __init__(self, storage):
        if not isinstance(storage, _kleene._Storage):
            raise TypeError("use Matrix.from_scipy, Matrix.from_numpy, Matrix.from_coo or read_mtx")
        self._s = storage

    # ---- construction ---------------------------------------------------------------------------
    @classmethod
    def from_scipy(cls, a, dtype=None, index=None, copy=None):
        """A CSR matrix of a scipy.sparse matrix or array (any format; converted to CSR first).

        ``copy`` follows NumPy: ``None`` (the default) shares the CSR arrays ``indptr``,
        ``indices`` and ``data`` when their layout allows (canonical CSR, aligned and contiguous,
        of the asked ``dtype`` and ``index``) and copies once otherwise; ``True`` always copies;
        ``False`` shares or raises ``kleene.InvalidArgument`` saying why it cannot. A shared
        matrix sees later changes to the values; the structure is checked once, here, so change
        the index arrays only of a copy (``copy=True``). A non-canonical input (unsorted or
        duplicate indices) is summed on a copy: the input is left as it is. ``index`` defaults
        to the input's index dtype."""
        import scipy.sparse as sp

        if not sp.issparse(a):
            raise TypeError(f"from_scipy needs a scipy.sparse matrix, not {type(a).__name__}")
        a = a.tocsr()
        if not a.has_canonical_format:
            if copy is False:
                raise _kleene.InvalidArgument(
                    "from_scipy: the matrix cannot be shared (copy=False): its rows have unsorted "
                    "or duplicate column indices; pass copy=None to let kleene sum them on a copy")
            a = a.copy()
            a.sum_duplicates()
            copy = None  # the copy is kleene's own: share it rather than copy it again
        dt = _dtype_name(dtype if dtype is not None else a.dtype)
        ix = _index_name(index if index is not None else a.indices.dtype)
        rows, cols = a.shape
        return cls(_kleene._from_csr(rows, cols, a.indptr, a.indices, a.data, dt, ix, copy=copy))

    @classmethod
    def from_numpy(cls, a, dtype=None, copy=None):
        """A dense matrix of a two-dimensional array (every entry stored). ``copy`` as in
        from_scipy: by default a C-contiguous, aligned array of the dtype is shared, not copied."""
        a = np.asarray(a)
        return cls(_kleene._from_dense(a, _dtype_name(dtype if dtype is not None else a.dtype),
                                       copy=copy))

    @classmethod
    def from_csr(cls, shape, indptr, indices, data, dtype=None, index=None, copy=None):
        """CSR from (indptr, indices, data); rows must have sorted, unique column indices (checked).
        ``copy`` as in from_scipy."""
        data = np.asarray(data)
        indices = np.asarray(indices)
        dt = _dtype_name(dtype if dtype is not None else data.dtype)
        ix = _index_name(index if index is not None else indices.dtype)
        return cls(_kleene._from_csr(shape[0], shape[1], indptr, indices, data, dt, ix, copy=copy))

    @classmethod
    def from_coo(cls, shape, rows, cols, values, dtype=None, index="int32", duplicates="error"):
        """CSR from coordinates (0-based); duplicates: error, sum, min, max or last."""
        values = np.asarray(values)
        dt = _dtype_name(dtype if dtype is not None else values.dtype)
        return cls(_kleene._from_coo(shape[0], shape[1], rows, cols, values, dt,
                                     _index_name(index), duplicates))

    @classmethod
    def from_cuda(cls, obj, dtype=None, copy=None):
        """A dense device matrix of a two-dimensional CuPy array or CUDA PyTorch tensor
        (``__cuda_array_interface__``, C-contiguous). By default (``copy=None``) its memory is
        shared, not copied: kleene keeps a reference to ``obj``, waits for the stream the
        interface names, and never writes to it; ``copy=True`` copies on the device, and
        ``copy=False`` raises when the memory cannot be shared (an address misaligned for the
        dtype)."""
        if dtype is None:
            dtype = obj.dtype if hasattr(obj, "dtype") else None
            dtype = str(dtype).replace("torch.", "") if dtype is not None else None
        return cls(_kleene._from_cuda_dense(obj, _dtype_name(dtype), copy=copy))

    @classmethod
    def from_cupy_sparse(cls, a, copy=None):
        """A device CSR matrix of a cupyx.scipy.sparse.csr_matrix (structure checked on the host
        once); its arrays are shared unless ``copy=True`` (see from_cuda). A non-canonical input
        (unsorted or duplicate indices) is refused: call ``a.sum_duplicates()`` first."""
        rows, cols = a.shape
        return cls(_kleene._from_cuda_csr(rows, cols, a.indptr, a.indices, a.data,
                                          _dtype_name(str(a.data.dtype)),
                                          _index_name(str(a.indices.dtype)), copy=copy))

    # ---- properties -----------------------------------------------------------------------------
    shape = property(lambda self: tuple(self._s.shape))
    nnz = property(lambda self: self._s.nnz, doc="stored entries (rows * cols for dense storage)")
    dtype = property(lambda self: np.dtype(self._s.dtype))
    index_dtype = property(lambda self: None if self._s.index_dtype is None
                           else np.dtype(self._s.index_dtype))
    format = property(lambda self: self._s.format, doc='"csr" or "dense"')
    device = property(lambda self: self._s.device, doc='"cpu" (host memory) or "gpu"')

    def __repr__(self):
        return repr(self._s)

    # ---- conversion -----------------------------------------------------------------------------
    def to_scipy(self):
        """A scipy.sparse.csr_matrix viewing this matrix's arrays (read-only, no copy).

        SciPy may copy an int64 index array whose values fit int32 (it prefers int32 indices)."""
        import scipy.sparse as sp

        s = self._s if self.format == "csr" else self._s.to_csr()
        indptr, indices, data = s.csr_arrays()
        m = sp.csr_matrix((data, indices, indptr), shape=self.shape, copy=False)
        m.has_sorted_indices = True  # kleene's rows are sorted and unique: SciPy must not re-sort
        return m

    def csr_arrays(self):
        """(indptr, indices, data) as read-only NumPy views of a host CSR matrix."""
        return self._s.csr_arrays()

    def to_numpy(self, absent=0):
        """Dense storage: a read-only view (no copy). CSR: a new array, ``absent`` where no entry."""
        return self._s.to_numpy(absent)

    def to_csr(self, absent=0, index="int32"):
        """CSR storage (dense entries equal to ``absent`` are dropped)."""
        return Matrix(self._s.to_csr(absent, _index_name(index)))

    def to_dense(self, absent=0):
        """Dense storage (``absent`` where CSR has no entry)."""
        return Matrix(self._s.to_dense(absent))

    def astype(self, dtype):
        return Matrix(self._s.astype(_dtype_name(dtype)))

    def to_device(self):
        """A copy in GPU memory (kleene.NoDevice without a GPU or without the CUDA backend)."""
        return Matrix(self._s.to_device())

    def to_host(self):
        return Matrix(self._s.to_host())

    def device_arrays(self):
        """Device CSR: (indptr, indices, data); device dense: (values,). Each a kleene.DeviceArray
        with __cuda_array_interface__ and __dlpack__, e.g. ``cupy.asarray(x)`` or
        ``torch.from_dlpack(x)`` views it without a copy."""
        return _kleene._device_arrays(self._s)

    @property
    def __cuda_array_interface__(self):
        """The values of a dense device matrix, for cupy.asarray / numba (no copy)."""
        if self.format != "dense" or self.device != "gpu":
            raise AttributeError("__cuda_array_interface__: only dense device matrices expose one")
        return self.device_arrays()[0].__cuda_array_interface__

    def __dlpack__(self, stream=None):
        if self.format != "dense" or self.device != "gpu":
            raise _kleene.InvalidArgument("__dlpack__: only dense device matrices (to_device() of "
                                          "a dense matrix) are exported through DLPack")
        return self.device_arrays()[0].__dlpack__(stream)

    def __dlpack_device__(self):
        return (2, 0)


def as_matrix(a, dtype=None):
    """A kleene.Matrix from a Matrix (as it is), a scipy.sparse matrix (its CSR arrays shared when
    their layout allows, see Matrix.from_scipy) or a dense array-like (CSR with zeros as "no
    entry", as scipy.sparse.csgraph reads dense input)."""
    if isinstance(a, Matrix):
        return a if dtype is None or a.dtype == np.dtype(dtype) else a.astype(dtype)
    import scipy.sparse as sp

    if sp.issparse(a):
        return Matrix.from_scipy(a, dtype=dtype)
    arr = np.asarray(a)
    if arr.ndim != 2:
        raise _kleene.InvalidArgument("a matrix must be two-dimensional")
    return Matrix.from_scipy(sp.csr_matrix(arr), dtype=dtype)
