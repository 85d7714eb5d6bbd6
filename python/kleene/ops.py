"""Semiring products with masks, accumulators and replace (GraphBLAS semantics).

    C<mask, replace> accum= A (+).(x) B     mxm(A, B, semiring, out=C, mask=M, accum=..., replace=...)
    w<mask, replace> accum= A (+).(x) u     mxv(A, u, semiring, out=w, ...)
    w<mask, replace> accum= u (+).(x) A     vxm(u, A, semiring, out=w, ...)

A mask is a matrix (valued: an entry allows a write when it is stored and non-zero), or
``structure(M)`` (stored, whatever the value), or ``complement(...)`` of either. Vectors are dense
NumPy arrays: an entry equal to the semiring's zero is "no entry" (+inf for min.plus).

Device matrices (``Matrix.to_device()``, ``Matrix.from_cuda``) multiply on the GPU and the result
stays there; their vectors are device arrays (CuPy, PyTorch, ``kleene.to_device(u)``) and
mxv / vxm return a ``kleene.DeviceArray``. All operands of one call live in one memory space:
mixing host and device raises ``kleene.SpaceMismatch`` (nothing is copied behind your back).
"""

import numpy as np

from . import _kleene
from .matrix import Matrix, _dtype_name, as_matrix
from .semiring import semiring as _semiring


class _Mask:
    __slots__ = ("m", "structural", "complemented")

    def __init__(self, m, structural, complemented):
        self.m, self.structural, self.complemented = m, structural, complemented


def structure(m):
    """A structural mask: an entry of M allows a write wherever it is stored."""
    if isinstance(m, _Mask):
        return _Mask(m.m, True, m.complemented)
    return _Mask(m, True, False)


def complement(m):
    """The complement of a mask (valued unless given structure(M))."""
    if isinstance(m, _Mask):
        return _Mask(m.m, m.structural, not m.complemented)
    return _Mask(m, False, True)


def _accum_name(accum, s):
    if accum is None or accum is False:
        return ""
    if accum is True:
        return s.add
    return str(accum)


def mxm(a, b, semiring="plus.times", *, out=None, mask=None, accum=None, replace=False,
        kernel="auto", explain=False):
    """C = A (+).(x) B. With ``out`` (a Matrix) the product goes into it (its entries take part in
    the mask / accumulator semantics) and ``out`` is returned. ``accum``: None, True (the
    semiring's add), or an operator name (plus, times, min, max, first, second; lor, land).
    ``explain=True`` returns (C, trace)."""
    s = _semiring(semiring)
    a, b = as_matrix(a), as_matrix(b)
    m = mask if isinstance(mask, _Mask) else (None if mask is None else _Mask(mask, False, False))
    if out is not None and not isinstance(out, Matrix):
        raise TypeError("out must be a kleene.Matrix")
    storage, trace = _kleene._mxm(
        a._s, b._s, s.name, None if out is None else out._s,
        None if m is None else as_matrix(m.m)._s, bool(m and m.structural),
        bool(m and m.complemented), _accum_name(accum, s), replace, kernel, explain)
    if out is not None:
        out._s = storage
        result = out
    else:
        result = Matrix(storage)
    return (result, trace) if explain else result


def _vector(x):
    """A device array (anything with __cuda_array_interface__) as it is, else a NumPy array."""
    if x is None or (hasattr(x, "__cuda_array_interface__") and not isinstance(x, np.ndarray)):
        return x
    return np.asarray(x)


def to_device(u, dtype=None):
    """A one-dimensional array copied to device memory, as a kleene.DeviceArray (the vectors of
    mxv / vxm on device matrices; ``.to_numpy()`` copies it back)."""
    u = np.asarray(u)
    return _kleene._vector_to_device(u, _dtype_name(dtype if dtype is not None else u.dtype))


def _vector_product(fn, a, u, semiring, out, mask, accum, replace, kernel, explain):
    s = _semiring(semiring)
    a = as_matrix(a)
    m = mask if isinstance(mask, _Mask) else (None if mask is None else _Mask(mask, False, False))
    if m is not None and m.structural:
        raise _kleene.InvalidArgument("vector masks are dense arrays: every entry is stored, so a "
                                      "structural mask would allow every write; pass the array")
    w, trace = fn(a._s, _vector(u), s.name, _vector(out), None if m is None else _vector(m.m),
                  bool(m and m.complemented), _accum_name(accum, s), replace, kernel, explain)
    return (w, trace) if explain else w


def mxv(a, u, semiring="plus.times", *, out=None, mask=None, accum=None, replace=False,
        kernel="auto", explain=False):
    """w = A (+).(x) u for a dense vector u (a new array; ``out`` gives w's previous value).
    A device A takes device vectors and returns a kleene.DeviceArray."""
    return _vector_product(_kleene._mxv, a, u, semiring, out, mask, accum, replace, kernel, explain)


def vxm(u, a, semiring="plus.times", *, out=None, mask=None, accum=None, replace=False,
        kernel="auto", explain=False):
    """w = u (+).(x) A for a dense vector u."""
    return _vector_product(_kleene._vxm, a, u, semiring, out, mask, accum, replace, kernel, explain)
