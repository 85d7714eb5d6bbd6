"""Matrix Market files through kleene's parallel reader and writer (matrix_io/)."""

import os

from . import _kleene
from .matrix import Matrix, _dtype_name, _index_name, as_matrix


def read_mtx(path, dtype=None, index="int32", format="csr", duplicates="error", threads=0):
    """Reads a Matrix Market file into a Matrix. ``dtype`` None: the file's own (bool for pattern,
    int64 for integer, float64 for real, or its %%GraphBLAS type). Symmetric files are expanded.
    A malformed file raises kleene.ParseError naming file:line."""
    return Matrix(_kleene._read_mtx(os.fspath(path), None if dtype is None else _dtype_name(dtype),
                                    _index_name(index), format, duplicates, threads))


def write_mtx(path, a, symmetry="general", pattern=False, comment="", type_line=True):
    """Writes a Matrix (or SciPy / NumPy input) to a Matrix Market file, through a temporary
    renamed into place (no partial file on failure)."""
    _kleene._write_mtx(os.fspath(path), as_matrix(a)._s, symmetry, pattern, comment, type_line)


def mtx_info(path):
    """The header of a Matrix Market file: object, format, field, symmetry, shape, entries."""
    return _kleene._mtx_info(os.fspath(path))
