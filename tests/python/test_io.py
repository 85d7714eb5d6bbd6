"""Matrix Market from Python: round trips, agreement with scipy.io.mmread, parse errors."""

import numpy as np
import pytest
import scipy.io

import kleene
from conftest import random_graph


@pytest.mark.parametrize("dtype", ["float64", "int64", "bool"])
def test_write_read_round_trip(tmp_path, dtype):
    a = random_graph(50, 0.1, 40, dtype=dtype)
    path = tmp_path / "a.mtx"
    kleene.write_mtx(path, a)
    m = kleene.read_mtx(path)
    assert m.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(m.to_numpy(), a.toarray())
    np.testing.assert_array_equal(scipy.io.mmread(str(path)).toarray(), a.toarray())


def test_reads_what_scipy_writes(tmp_path):
    a = random_graph(80, 0.05, 41, symmetric=True)
    path = tmp_path / "s.mtx"
    scipy.io.mmwrite(str(path), a, symmetry="symmetric")
    info = kleene.mtx_info(path)
    assert info["symmetry"] == "symmetric" and info["shape"] == (80, 80)
    m = kleene.read_mtx(path)
    np.testing.assert_array_equal(m.to_numpy(), scipy.io.mmread(str(path)).toarray())
    d = kleene.read_mtx(path, dtype="float32", format="dense")
    assert d.format == "dense" and d.dtype == np.float32


def test_parse_error_names_file_and_line(tmp_path):
    path = tmp_path / "bad.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n2 x 2.0\n")
    with pytest.raises(kleene.ParseError) as e:
        kleene.read_mtx(path)
    assert e.value.file == str(path) and e.value.line == 4
    assert str(e.value).startswith(f"{path}:4: ")
    with pytest.raises(kleene.Error):
        kleene.read_mtx(tmp_path / "missing.mtx")
