"""Semiring products and the other GraphBLAS operations, with masks, accumulators and replace.

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
        a._s, b._s, s._spec, None if out is None else out._s,
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
    w, trace = fn(a._s, _vector(u), s._spec, _vector(out), None if m is None else _vector(m.m),
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


# ---- the other GraphBLAS operations --------------------------------------------------------------
#
# Each is kleene's C++ operation (lib/ops/include/kleene/*.hpp) with the same keywords as mxm:
# C<mask, replace> accum= result, `out` the C. A one-dimensional array (NumPy, or a device array)
# is a vector: it runs as an n x 1 matrix and comes back as a one-dimensional array of the same
# kind, with `absent` where it has no entry. Dense operands (vectors, dense matrices) hold the
# operation's absent value where they have no entry: the operator's (kleene's absent_of: a binary
# operator's or monoid's identity, plus 0, times 1, min +inf, max -inf, lor False, land True; 0
# for the others), a semiring's zero when a semiring is given, or `absent=`. Host results are CSR.

# The operators by name, as the C++ module spells them (operations.hpp).
BINARY_OPS = ("plus", "times", "min", "max", "first", "second", "pair", "any", "lor", "land")
UNARY_OPS = ("identity", "ainv", "abs", "minv", "lnot", "one")
MONOIDS = ("plus", "times", "min", "max", "lor", "land", "any")
SELECT_OPS = ("tril", "triu", "diag", "offdiag", "row_le", "row_gt", "col_le", "col_gt",
              "value_eq", "value_ne", "value_lt", "value_le", "value_gt", "value_ge")
_SELECT_ALIASES = {"==": "value_eq", "!=": "value_ne", "<": "value_lt", "<=": "value_le",
                   ">": "value_gt", ">=": "value_ge"}


def _is_semiring(op):
    from .semiring import Semiring, _BUILTIN

    if isinstance(op, Semiring):
        return True
    return isinstance(op, str) and (
        "." in op or op.replace("-", "_").lower() in _BUILTIN)


def _zero(add, dtype):
    """The identity of a semiring's add over dtype: what its dense objects hold for no entry."""
    dt = np.dtype(dtype)
    if add in ("times", "land"):
        return dt.type(1)
    if dt.kind == "b":
        return dt.type(add == "min")
    if add == "min":
        return dt.type(np.inf) if dt.kind == "f" else np.iinfo(dt).max
    if add == "max":
        return dt.type(-np.inf) if dt.kind == "f" else np.iinfo(dt).min
    return dt.type(0)


def _operator(op, part, what):
    """(operator name, the semiring's zero or None): a semiring stands for its add or multiply."""
    if _is_semiring(op):
        s = _semiring(op)
        return getattr(s, part), s.add
    if not isinstance(op, str):
        raise TypeError(f"{what}: the operator is a name like 'plus' or a semiring, "
                        f"not {type(op).__name__}")
    return op, None


def _scalar(x, dtype):
    """A Python scalar of dtype (None stays None)."""
    return None if x is None else np.array(x).astype(np.dtype(dtype)).item()


def _is_device_array(x):
    return hasattr(x, "__cuda_array_interface__") and not isinstance(x, (np.ndarray, Matrix))


def _is_vector(x):
    if isinstance(x, Matrix) or x is None:
        return False
    if _is_device_array(x):
        return len(x.__cuda_array_interface__["shape"]) == 1
    import scipy.sparse as sp

    return not sp.issparse(x) and np.ndim(x) == 1


def _as_column(u, dtype=None, row=False):
    """A vector as an n x 1 (row: 1 x n) dense Matrix in its own memory space."""
    if _is_device_array(u):
        typestr = u.__cuda_array_interface__["typestr"]
        return Matrix(_kleene._device_column(u, _dtype_name(np.dtype(typestr)), row))
    u = np.asarray(u) if dtype is None else np.asarray(u, dtype=dtype)
    if u.ndim != 1:
        raise _kleene.InvalidArgument("a vector must be one-dimensional")
    return Matrix.from_numpy(u.reshape((1, -1) if row else (-1, 1)), dtype=dtype)


def _as_vector(m, absent):
    """A matrix of one row or column as a one-dimensional array of its memory space."""
    if m.device == "gpu":
        return _kleene._device_vector(m._s, absent)
    return m.to_numpy(absent=absent).reshape(-1)


def _vector_mask(mask, row=False):
    m = mask if isinstance(mask, _Mask) else _Mask(mask, False, False)
    if m.structural:
        raise _kleene.InvalidArgument("vector masks are dense arrays: every entry is stored, so a "
                                      "structural mask would allow every write; pass the array")
    return _Mask(_as_column(m.m, None if _is_device_array(m.m) else bool, row), False,
                 m.complemented)


def _write(out, mask, accum, replace):
    """The trailing arguments of the C++ entry points: out, mask, structural, complemented, accum,
    replace."""
    if out is not None and not isinstance(out, Matrix):
        raise TypeError("out must be a kleene.Matrix (or, for a vector result, a vector)")
    m = mask if isinstance(mask, _Mask) else (None if mask is None else _Mask(mask, False, False))
    if accum is True:
        raise _kleene.InvalidArgument("accum=True names a semiring's add; name the accumulator "
                                      "(plus, times, min, max, first, second; lor, land)")
    return (None if out is None else out._s, None if m is None else as_matrix(m.m)._s,
            bool(m and m.structural), bool(m and m.complemented),
            "" if accum is None or accum is False else str(accum), bool(replace))


def _run(fn, operands, vector, out, mask, accum, replace, *args, row=False):
    """Runs the C++ entry point fn on Matrix operands (vectors already n x 1) with the write
    arguments, and returns the result as a Matrix (into `out`) or, `vector`, as an array."""
    if vector:
        dtype = operands[0].dtype if operands[0].device == "cpu" else None
        out_m = None if out is None else _as_column(out, dtype, row)
        mask_m = None if mask is None else _vector_mask(mask, row)
        storage, absent = fn(*[o._s for o in operands], *args,
                             *_write(out_m, mask_m, accum, replace))
        return _as_vector(Matrix(storage), absent)
    storage, _absent = fn(*[o._s for o in operands], *args, *_write(out, mask, accum, replace))
    if out is not None:
        out._s = storage
        return out
    return Matrix(storage)


def _space(x):
    if isinstance(x, _Mask):
        x = x.m
    return "device" if (isinstance(x, Matrix) and x.device == "gpu") or _is_device_array(x) \
        else "host"


def _same_space(what, named):
    """Refuses operands in both memory spaces before anything is converted or copied (the C++
    entry points check matrices too; vectors are checked here, before they become matrices)."""
    named = [(n, x) for n, x in named if x is not None]
    first_name, first = named[0]
    for name, x in named[1:]:
        if _space(x) != _space(first):
            a, b = _space(first), _space(x)
            raise _kleene.SpaceMismatch(
                f"{what}: {first_name} is in {a} memory but {name} is in {b} memory; move one "
                f"with {'to_device()' if a == 'device' else 'to_host()'} or "
                f"{'to_host()' if a == 'device' else 'to_device()'} first (kleene does not copy "
                "between host and device behind your back)")


def _operands(what, *xs):
    """(Matrices, vector?): every operand a vector (n x 1, the second cast to the first's dtype
    on the host) or every one a matrix."""
    kinds = {_is_vector(x) for x in xs}
    if len(kinds) > 1:
        raise _kleene.InvalidArgument(f"{what}: the operands are all vectors or all matrices")
    if kinds.pop():
        first = _as_column(xs[0])
        dtype = first.dtype if first.device == "cpu" else None
        return [first] + [_as_column(x, dtype) for x in xs[1:]], True
    return [as_matrix(x) for x in xs], False


def _absent(absent, zero, dtype):
    return _scalar(absent if absent is not None else zero, dtype)


def ewise_add(a, b, op="plus.times", *, out=None, mask=None, accum=None, replace=False,
              absent=None):
    """C<mask, replace> accum= A (+) B: the union of the structures, op(a, b) where both have an
    entry. ``op`` is a binary operator (plus, times, min, max, first, second, pair, any, lor,
    land) or a semiring (its add). A and B are matrices, or both vectors."""
    name, add = _operator(op, "add", "ewise_add")
    _same_space("ewise_add", [("A", a), ("B", b), ("out", out), ("the mask", mask)])
    (x, y), vector = _operands("ewise_add", a, b)
    zero = None if add is None else _zero(add, x.dtype)
    return _run(_kleene._ewise, (x, y), vector, out, mask, accum, replace, True, name,
                _absent(absent, zero, x.dtype))


def ewise_mult(a, b, op="plus.times", *, out=None, mask=None, accum=None, replace=False,
               absent=None):
    """C<mask, replace> accum= A (x) B: the intersection of the structures, op(a, b). ``op`` is a
    binary operator or a semiring (its multiply). A and B are matrices, or both vectors."""
    name, add = _operator(op, "multiply", "ewise_mult")
    _same_space("ewise_mult", [("A", a), ("B", b), ("out", out), ("the mask", mask)])
    (x, y), vector = _operands("ewise_mult", a, b)
    zero = None if add is None else _zero(add, x.dtype)
    return _run(_kleene._ewise, (x, y), vector, out, mask, accum, replace, False, name,
                _absent(absent, zero, x.dtype))


def kronecker(a, b, op="plus.times", *, out=None, mask=None, accum=None, replace=False,
              absent=None):
    """C<mask, replace> accum= kron(A, B): C(ia * mb + ib, ja * nb + jb) = op(A(ia, ja),
    B(ib, jb)) where both have an entry. ``op`` is a binary operator or a semiring (its
    multiply)."""
    name, add = _operator(op, "multiply", "kronecker")
    x, y = as_matrix(a), as_matrix(b)
    zero = None if add is None else _zero(add, x.dtype)
    return _run(_kleene._kronecker, (x, y), False, out, mask, accum, replace, name,
                _absent(absent, zero, x.dtype))


def apply(a, op, *, left=None, right=None, out=None, mask=None, accum=None, replace=False,
          absent=None):
    """C<mask, replace> accum= op(A) on every entry of A (a matrix or a vector). ``op`` is a
    unary operator (identity, ainv, abs, minv, lnot, one), or a binary operator with one operand
    bound: ``left=x`` computes op(x, a) (bind_first), ``right=y`` op(a, y) (bind_second)."""
    if left is not None and right is not None:
        raise _kleene.InvalidArgument("apply: bind left= or right=, not both")
    _same_space("apply", [("A", a), ("out", out), ("the mask", mask)])
    (x,), vector = _operands("apply", a)
    bind, scalar = ("first", left) if left is not None else (
        ("second", right) if right is not None else ("", None))
    return _run(_kleene._apply, (x,), vector, out, mask, accum, replace, str(op), bind,
                _scalar(scalar, x.dtype), _absent(absent, None, x.dtype))


def select(a, op, thunk=None, *, out=None, mask=None, accum=None, replace=False, absent=None):
    """C<mask, replace> accum= the entries of A (a matrix or a vector) that a predicate keeps:
    tril, triu, diag, offdiag (thunk: the diagonal k, 0 by default), row_le, row_gt, col_le,
    col_gt (thunk: k), or a value comparison value_eq, value_ne, value_lt, value_le, value_gt,
    value_ge (also "==", "!=", "<", "<=", ">", ">="; thunk: the value). A vector's entry i is
    at row i, column 0."""
    name = _SELECT_ALIASES.get(op, op)
    _same_space("select", [("A", a), ("out", out), ("the mask", mask)])
    (x,), vector = _operands("select", a)
    if thunk is not None and str(name).startswith("value_"):
        thunk = _scalar(thunk, x.dtype)
    elif thunk is not None:
        thunk = int(thunk)
    return _run(_kleene._select, (x,), vector, out, mask, accum, replace, str(name), thunk,
                _absent(absent, None, x.dtype))


def reduce(a, monoid="plus", *, axis=None, out=None, mask=None, accum=None, replace=False,
           absent=None):
    """Folds entries with a monoid (plus, times, min, max, lor, land, any; or a semiring's add).
    ``axis=None``: every entry, a scalar (the identity when there is none; ``out`` is the
    previous value that ``accum`` combines with). ``axis=1``: one value per row, ``axis=0`` one
    per column, as a vector (w<mask, replace> accum= ..., ``absent`` where a row has no entry)."""
    name, add = _operator(monoid, "add", "reduce")
    _same_space("reduce", [("A", a), ("the mask", mask)] +
                ([] if axis is None else [("out", out)]))
    vector = _is_vector(a)
    x = _as_column(a) if vector else as_matrix(a)
    zero = None if add is None else _zero(add, x.dtype)
    if axis is None or (vector and axis == 0):
        if mask is not None or replace:
            raise _kleene.InvalidArgument("reduce to a scalar takes no mask or replace")
        if accum is not None and out is None:
            raise _kleene.InvalidArgument("reduce: accum needs out=, the value to combine with")
        value = _kleene._reduce_scalar(x._s, name, _absent(absent, zero, x.dtype),
                                       _scalar(out, x.dtype), "" if accum is None else str(accum))
        return x.dtype.type(value)
    if vector or axis not in (0, 1):
        raise _kleene.InvalidArgument("reduce: axis is None (a scalar), 1 (one value per row) or "
                                      "0 (one value per column); a vector reduces to a scalar")
    return _run(_kleene._reduce, (x,), True, out, mask, accum, replace, name, axis == 0,
                _absent(absent, zero, x.dtype))


def transpose(a, *, out=None, mask=None, accum=None, replace=False, absent=None):
    """C<mask, replace> accum= A'."""
    x = as_matrix(a)
    return _run(_kleene._transpose, (x,), False, out, mask, accum, replace,
                _absent(absent, None, x.dtype))


def _is_index(ix):
    """One index (a vector's worth of a matrix: row i or column j), not a selection."""
    return ix is not None and not isinstance(ix, slice) and np.ndim(ix) == 0


def _indices(ix, n, what):
    """None (every index), a (begin, end) range for a slice of step 1, or an int64 array."""
    if ix is None:
        return None
    if isinstance(ix, slice):
        start, stop, step = ix.indices(n)
        if step == 1:
            return (start, max(start, stop))
        return np.arange(start, stop, step, dtype=np.int64)
    arr = np.asarray(ix)
    if arr.dtype.kind not in "iu" and arr.size:
        raise _kleene.InvalidArgument(f"{what}: indices are integers, not {arr.dtype}")
    return arr.astype(np.int64, copy=False).reshape(-1)


def extract(a, rows=None, cols=None, *, out=None, mask=None, accum=None, replace=False,
            absent=None):
    """C<mask, replace> accum= A(rows, cols): rows and cols are None (every index, GrB_ALL), a
    slice, or a sequence of indices (repeats allowed). An int for one of them extracts a vector
    (cols=j: column j, GrB_Col_extract; rows=i: row i). For a vector A, u(rows)."""
    _same_space("extract", [("A", a), ("out", out), ("the mask", mask)])
    if _is_vector(a):
        if cols is not None:
            raise _kleene.InvalidArgument("extract: a vector takes rows= only")
        x = _as_column(a)
        return _run(_kleene._extract, (x,), True, out, mask, accum, replace,
                    _indices(rows, x.shape[0], "extract"), None, _absent(absent, None, x.dtype))
    x = as_matrix(a)
    row_vec, col_vec = _is_index(rows), _is_index(cols)
    if row_vec and col_vec:
        raise _kleene.InvalidArgument("extract: one entry is A.to_numpy()[i, j]; give a sequence "
                                      "for rows or cols")
    return _run(_kleene._extract, (x,), row_vec or col_vec, out, mask, accum, replace,
                _indices(rows, x.shape[0], "extract: rows"),
                _indices(cols, x.shape[1], "extract: cols"), _absent(absent, None, x.dtype),
                row=row_vec)


def assign(out, value, rows=None, cols=None, *, mask=None, accum=None, replace=False,
           absent=None):
    """C<mask, replace>(rows, cols) accum= value, GrB_assign: value is a matrix of the region's
    shape or a scalar (every position of the region); rows and cols as in extract (no repeats;
    an int with a vector value assigns part of a row or column). The mask and replace apply to
    all of C; without accum the region's entries that value lacks are deleted. A Matrix ``out``
    is updated and returned; a vector ``out`` (a one-dimensional array) gives a new array."""
    scalar = np.ndim(value) == 0 and not isinstance(value, Matrix) and \
        not _is_device_array(value)
    _same_space("assign", [("out", out), ("A", None if scalar else value), ("the mask", mask)])
    if _is_vector(out):
        if cols is not None:
            raise _kleene.InvalidArgument("assign: a vector takes rows= only")
        c = _as_column(out)
        src = None if scalar else _as_column(value, c.dtype if c.device == "cpu" else None)
        i, j = _indices(rows, c.shape[0], "assign: rows"), None
    else:
        if not isinstance(out, Matrix):
            raise TypeError("assign: out is a kleene.Matrix or a vector")
        c = out
        row_vec, col_vec = _is_index(rows), _is_index(cols)
        i = _indices(rows, c.shape[0], "assign: rows")
        j = _indices(cols, c.shape[1], "assign: cols")
        row = row_vec and not col_vec
        if scalar:
            src = None
        elif _is_vector(value) and (row_vec or col_vec):
            src = _as_column(value, c.dtype if c.device == "cpu" else None, row)
        else:
            src = as_matrix(value)
    vector = _is_vector(out)
    m = None
    if mask is not None:
        m = _vector_mask(mask) if vector else (
            mask if isinstance(mask, _Mask) else _Mask(mask, False, False))
    _o, mask_s, structural, complemented, acc, rep = _write(None, m, accum, replace)
    storage, ab = _kleene._assign(c._s, None if src is None else src._s,
                                  _scalar(value, c.dtype) if scalar else None, i, j,
                                  _absent(absent, None, c.dtype), mask_s, structural,
                                  complemented, acc, rep)
    if vector:
        return _as_vector(Matrix(storage), ab)
    out._s = storage
    return out
