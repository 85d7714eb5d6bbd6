"""Device matrices, exchange with CuPy / PyTorch, and products on the GPU compared with the same
calls on the host (marker gpu: skipped without a device)."""

import numpy as np
import pytest

import kleene
from conftest import built, random_graph

pytestmark = pytest.mark.gpu


def test_round_trip_through_the_device():
    a = random_graph(100, 0.05, 50)
    m = kleene.Matrix.from_scipy(a)
    d = m.to_device()
    assert d.device == "gpu" and d.format == "csr" and d.shape == m.shape
    np.testing.assert_array_equal(d.to_host().to_numpy(), a.toarray())
    x = kleene.Matrix.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4)).to_device()
    iface = x.__cuda_array_interface__
    assert iface["shape"] == (3, 4) and iface["typestr"] == "<f4" and iface["version"] == 3
    indptr, indices, data = d.device_arrays()
    assert indptr.shape == (101,) and data.typestr == "<f8"


def test_gpu_algorithms_match_cpu():
    a = random_graph(300, 0.02, 51, dtype=np.float32)
    np.testing.assert_array_equal(kleene.apsp(a, device="gpu"), kleene.apsp(a, device="cpu"))
    np.testing.assert_array_equal(kleene.bfs(a, 0, device="gpu"), kleene.bfs(a, 0, device="cpu"))
    np.testing.assert_array_equal(kleene.sssp(a, 0, device="gpu"), kleene.sssp(a, 0, device="cpu"))


def test_cupy_exchange():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    x = cp.arange(20, dtype=cp.float32).reshape(4, 5)
    m = kleene.Matrix.from_cuda(x)
    assert m.device == "gpu"
    np.testing.assert_array_equal(m.to_host().to_numpy(), cp.asnumpy(x))
    y = cp.asarray(m)  # zero-copy view through __cuda_array_interface__
    assert y.data.ptr == m.__cuda_array_interface__["data"][0]
    np.testing.assert_array_equal(cp.asnumpy(y), cp.asnumpy(x))


def test_torch_dlpack_exchange():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA")
    m = kleene.Matrix.from_numpy(np.arange(6, dtype=np.float64).reshape(2, 3)).to_device()
    t = torch.from_dlpack(m)
    assert t.is_cuda and t.data_ptr() == m.__cuda_array_interface__["data"][0]
    np.testing.assert_array_equal(t.cpu().numpy(), m.to_host().to_numpy())
    back = kleene.Matrix.from_cuda(t * 2)
    np.testing.assert_array_equal(back.to_host().to_numpy(), 2 * m.to_host().to_numpy())


def test_cupy_import_shares_memory_unless_asked_to_copy():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    x = cp.arange(20, dtype=cp.float64).reshape(4, 5)
    shared = kleene.Matrix.from_cuda(x)
    assert shared.__cuda_array_interface__["data"][0] == x.data.ptr  # no copy
    copied = kleene.Matrix.from_cuda(x, copy=True)
    assert copied.__cuda_array_interface__["data"][0] != x.data.ptr
    x += 1  # the shared matrix sees the change, the copy does not
    np.testing.assert_array_equal(shared.to_host().to_numpy(), cp.asnumpy(x))
    np.testing.assert_array_equal(copied.to_host().to_numpy(), cp.asnumpy(x) - 1)
    ptr = x.data.ptr
    del x  # kleene's reference keeps CuPy's memory alive
    y = cp.zeros((4, 5), dtype=cp.float64)  # would reuse the memory if it had been freed
    assert y.data.ptr != ptr
    np.testing.assert_array_equal(shared.to_host().to_numpy(), np.arange(20).reshape(4, 5) + 1)
    # A product reads the shared memory in place.
    a = cp.asarray(np.random.default_rng(3).random((6, 6)))
    ref = kleene.mxm(kleene.Matrix.from_numpy(cp.asnumpy(a)), kleene.Matrix.from_numpy(cp.asnumpy(a)),
                     "min.plus").to_numpy()
    got = kleene.mxm(kleene.Matrix.from_cuda(a), kleene.Matrix.from_cuda(a), "min.plus")
    np.testing.assert_array_equal(got.to_host().to_numpy(), ref)
    # Misaligned for the dtype: a view one float32 into a float64 buffer's bytes.
    raw = cp.zeros(9, dtype=cp.float32)[1:].reshape(2, 4)
    assert raw.data.ptr % 8 != 0
    with pytest.raises(kleene.InvalidArgument, match="cannot be shared"):
        kleene.Matrix.from_cuda(raw.view(cp.float64), copy=False)
    with pytest.raises(kleene.InvalidArgument, match="copy must be True, False or None"):
        kleene.Matrix.from_cuda(a, copy="no")


def test_cupy_sparse_import_shares_its_arrays():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    cpsp = pytest.importorskip("cupyx.scipy.sparse")
    a = random_graph(200, 0.03, 52)
    g = cpsp.csr_matrix(a)
    m = kleene.Matrix.from_cupy_sparse(g)
    indptr, indices, data = m.device_arrays()
    assert indptr.__cuda_array_interface__["data"][0] == g.indptr.data.ptr
    assert indices.__cuda_array_interface__["data"][0] == g.indices.data.ptr
    assert data.__cuda_array_interface__["data"][0] == g.data.data.ptr
    np.testing.assert_array_equal(m.to_host().to_numpy(), a.toarray())
    c = kleene.Matrix.from_cupy_sparse(g, copy=True)
    assert c.device_arrays()[2].__cuda_array_interface__["data"][0] != g.data.data.ptr
    bad = cpsp.csr_matrix((cp.asarray([1.0, 2.0]), cp.asarray([1, 0], dtype=cp.int32),
                           cp.asarray([0, 2], dtype=cp.int32)), shape=(1, 2))
    with pytest.raises(kleene.InvalidArgument, match="not sorted and unique"):
        kleene.Matrix.from_cupy_sparse(bad)


def _import_while_busy(wrap):
    """Imports (copy=True) the array x of zeros, wrapped by `wrap`, while a non-blocking CuPy
    stream s is still busy (30 products of 4096 x 4096) before its last write, x = 3. Returns the
    copy, x, s and the stream x's interface named inside s."""
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    x = cp.zeros((2048, 2048), dtype=cp.float32)
    cp.cuda.Device().synchronize()
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        y = cp.ones((4096, 4096), dtype=cp.float32)
        for _ in range(30):  # long enough to be unfinished when the import starts
            y = y @ y / 4096
        x[...] = y[:2048, :2048] * 3
        named = x.__cuda_array_interface__.get("stream")
        m = kleene.Matrix.from_cuda(wrap(x), copy=True)
    return m, x, s, named


def test_cupy_import_waits_for_the_producer_stream():
    # CuPy names its current stream in __cuda_array_interface__ (version 3); kleene must wait for
    # it before reading. A device copy made at once on kleene's side shows a missing wait: the
    # producer's last write (all 3s) would not be in it yet.
    m, _x, s, named = _import_while_busy(lambda x: x)
    assert named == s.ptr
    assert float(m.to_host().to_numpy().min()) == 3.0


class _StreamHidden:
    """x's __cuda_array_interface__ without its stream: the exporter claims nothing is queued."""

    def __init__(self, x):
        self.x = x
        self.dtype = x.dtype
        self.__cuda_array_interface__ = {
            k: v for k, v in x.__cuda_array_interface__.items() if k != "stream"}


def test_cupy_import_race_shows_when_the_stream_is_hidden():
    # The control of the test above: the same busy producer, but the stream not named, so kleene
    # has nothing to wait for and its copy is made while the producer is still running. The copy
    # then misses the last write: the setting above can see a missing wait.
    m, x, s, _named = _import_while_busy(_StreamHidden)
    s.synchronize()
    assert float(m.to_host().to_numpy().min()) == 0.0
    assert float(x.min()) == 3.0


# ---- products on the device: each equals the same call on the host ----------------------------

DTYPES = ["float32", "float64", "int32", "int64"]
# Dense operands run the semiring GEMM (every semiring); a CSR A runs the sparse kernels, which
# lib/cuda builds for these:
SPARSE_SEMIRINGS = {"plus_times", "min_plus", "max_plus", "plus_pair", "any_pair", "min_first",
                    "min_second"}


def zero_of(s, dtype):
    """The semiring's zero (its add's identity): what a dense matrix holds where it has no entry."""
    add, dt = kleene.semiring(s).add, np.dtype(dtype)
    if add == "min":
        return kleene.infinity(dt)
    if add == "max":
        return dt.type(-np.inf) if dt.kind == "f" else np.iinfo(dt).min
    return dt.type(0)


def entries(m, zero):
    """(present, values) of a Matrix in either memory: CSR's stored entries, or a dense matrix's
    entries not equal to the semiring's zero."""
    if m.device == "gpu":
        m = m.to_host()
    if m.format == "csr":
        c = m.to_scipy().tocoo()
        present = np.zeros(m.shape, bool)
        values = np.zeros(m.shape, m.dtype)
        present[c.row, c.col] = True
        values[c.row, c.col] = c.data
    else:
        values = m.to_numpy()
        present = values != zero
    return present, np.where(present, values, 0)


def assert_same(device_result, host_result, zero):
    assert device_result.device == "gpu"
    p_dev, v_dev = entries(device_result, zero)
    p_host, v_host = entries(host_result, zero)
    np.testing.assert_array_equal(p_dev, p_host)
    np.testing.assert_array_equal(v_dev, v_host)


def operand(a, fmt, zero):
    """A host Matrix of the scipy matrix a: CSR, or dense with zero where a has no entry."""
    if fmt == "csr":
        return kleene.Matrix.from_scipy(a)
    d = a.toarray()
    return kleene.Matrix.from_numpy(np.where(d != 0, d, zero).astype(a.dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("s", ["plus_times", "min_plus", "max_plus", "plus_pair", "any_pair",
                               "min_first", "min_second", "max_min", "plus_min", "max_times"])
@pytest.mark.parametrize("fa,fb", [("csr", "csr"), ("csr", "dense"), ("dense", "csr"),
                                   ("dense", "dense")])
def test_device_mxm_equals_cpu(dtype, s, fa, fb):
    if not built(s, dtype):
        pytest.skip(f"{s} over {dtype} is not built (KLEENE_INSTANCES)")
    z = zero_of(s, dtype)
    a = operand(random_graph(40, 0.1, 60, dtype=dtype), fa, z)
    b = operand(random_graph(40, 0.1, 61, dtype=dtype), fb, z)
    if fa == "csr" and s not in SPARSE_SEMIRINGS:
        with pytest.raises(kleene.InvalidArgument, match="sparse kernels"):
            kleene.mxm(a.to_device(), b.to_device(), s)
        return
    c, trace = kleene.mxm(a.to_device(), b.to_device(), s, explain=True)
    assert "cuda" in trace
    assert c.format == ("csr" if (fa, fb) == ("csr", "csr") else "dense")
    assert_same(c, kleene.mxm(a, b, s), z)


@pytest.mark.parametrize("structural", [False, True])
@pytest.mark.parametrize("complemented", [False, True])
@pytest.mark.parametrize("accum", [None, True, "min", "plus", "times", "second"])
@pytest.mark.parametrize("replace", [False, True])
def test_device_mxm_csr_mask_accumulator_replace(structural, complemented, accum, replace):
    n = 30
    a, b = random_graph(n, 0.15, 62), random_graph(n, 0.15, 63)
    c0 = kleene.Matrix.from_scipy(random_graph(n, 0.2, 64))
    mask = random_graph(n, 0.3, 65)
    mask.data[::3] = 0  # stored zeros: valued and structural masks differ there
    mk = kleene.Matrix.from_scipy(mask)

    def call(x, y, out, m):
        m = kleene.structure(m) if structural else m
        m = kleene.complement(m) if complemented else m
        return kleene.mxm(x, y, "min.plus", out=out, mask=m, accum=accum, replace=replace)

    am, bm = kleene.Matrix.from_scipy(a), kleene.Matrix.from_scipy(b)
    want = call(am, bm, kleene.Matrix.from_scipy(random_graph(n, 0.2, 64)), mk)
    out = c0.to_device()
    got = call(am.to_device(), bm.to_device(), out, mk.to_device())
    assert got is out and got.format == "csr"
    assert_same(got, want, np.inf)
    # A bool mask gives the same answer as a valued one of the graph's type.
    if not structural:
        got_bool = call(am.to_device(), bm.to_device(), c0.to_device(), mk.astype(bool).to_device())
        assert_same(got_bool, want, np.inf)


@pytest.mark.parametrize("fa,fb", [("csr", "csr"), ("csr", "dense"), ("dense", "dense")])
@pytest.mark.parametrize("complemented", [False, True])
@pytest.mark.parametrize("accum", [None, "min", "plus"])
@pytest.mark.parametrize("replace", [False, True])
def test_device_mxm_dense_output_with_mask(fa, fb, complemented, accum, replace):
    n, s, z = 24, "plus.times", 0.0
    a = operand(random_graph(n, 0.2, 66), fa, z)
    b = operand(random_graph(n, 0.2, 67), fb, z)
    c0 = kleene.Matrix.from_numpy(random_graph(n, 0.3, 68).toarray())
    m = kleene.Matrix.from_numpy(np.random.default_rng(69).random((n, n)) < 0.5)  # dense bool
    mask = kleene.complement(m) if complemented else m
    want = kleene.mxm(a, b, s, out=kleene.Matrix.from_numpy(c0.to_numpy()), mask=mask,
                      accum=accum, replace=replace)
    dmask = kleene.complement(m.to_device()) if complemented else m.to_device()
    got = kleene.mxm(a.to_device(), b.to_device(), s, out=c0.to_device(), mask=dmask,
                     accum=accum, replace=replace)
    assert got.format == "dense"
    assert_same(got, want, z)


def test_device_mxm_refusals():
    a = kleene.Matrix.from_scipy(random_graph(10, 0.3, 70)).to_device()
    dense_out = kleene.Matrix.from_numpy(np.zeros((10, 10))).to_device()
    dense_mask = kleene.Matrix.from_numpy(np.ones((10, 10), bool)).to_device()
    with pytest.raises(kleene.InvalidArgument, match="dense output accumulates with plus or min"):
        kleene.mxm(a, a, "plus.times", out=dense_out, mask=dense_mask, accum="max")
    with pytest.raises(kleene.InvalidArgument, match="CSR output on the GPU takes a device CSR"):
        kleene.mxm(a, a, "plus.times", out=a, mask=dense_mask)
    with pytest.raises(kleene.InvalidArgument, match="bool values are not offered"):
        kleene.mxm(a.to_host().astype(bool).to_device(), a.to_host().astype(bool).to_device(),
                   "lor.land")
    wide = kleene.Matrix.from_scipy(random_graph(10, 0.3, 70), index="int64").to_device()
    with pytest.raises(kleene.InvalidArgument, match="int32 indices"):
        kleene.mxm(wide, wide)
    with pytest.raises(kleene.InvalidArgument, match="convert it on the host"):
        kleene.mxm(a, a.to_host().astype("float32").to_device())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("s", ["plus_times", "min_plus", "max_plus", "max_min"])
@pytest.mark.parametrize("fmt", ["csr", "dense"])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("accum", [None, True])
def test_device_mxv_vxm_equal_cpu(dtype, s, fmt, masked, accum):
    if not built(s, dtype):
        pytest.skip(f"{s} over {dtype} is not built (KLEENE_INSTANCES)")
    n, z = 50, zero_of(s, dtype)
    a = operand(random_graph(n, 0.1, 71, dtype=dtype), fmt, z)
    rng = np.random.default_rng(72)
    u = rng.integers(1, 5, n).astype(dtype)
    u[::4] = z  # no entry
    w0 = rng.integers(1, 9, n).astype(dtype)
    mask = rng.random(n) < 0.5
    for fn in (kleene.mxv, kleene.vxm):
        def call(aa, uu, out, m):
            args = (aa, uu) if fn is kleene.mxv else (uu, aa)
            return fn(*args, s, out=out, mask=None if m is None else kleene.complement(m),
                      accum=accum, replace=True)

        if fmt == "csr" and s not in SPARSE_SEMIRINGS:
            with pytest.raises(kleene.InvalidArgument, match="sparse kernels"):
                call(a.to_device(), kleene.to_device(u), None, None)
            continue
        add = kleene.semiring(s).add
        if fmt == "dense" and masked and accum and add not in ("plus", "min"):
            with pytest.raises(kleene.InvalidArgument, match="plus or min only"):
                call(a.to_device(), kleene.to_device(u), kleene.to_device(w0),
                     kleene.to_device(mask))
            continue
        want = call(a, u, w0 if accum else None, mask if masked else None)
        got = call(a.to_device(), kleene.to_device(u), kleene.to_device(w0) if accum else None,
                   kleene.to_device(mask) if masked else None)
        assert isinstance(got, kleene.DeviceArray)
        np.testing.assert_array_equal(got.to_numpy(), want)


def test_mixing_host_and_device_is_refused():
    h = kleene.Matrix.from_scipy(random_graph(12, 0.3, 73))
    d = h.to_device()
    u = np.ones(12)
    for call in (lambda: kleene.mxm(d, h), lambda: kleene.mxm(h, d),
                 lambda: kleene.mxm(d, d, out=h), lambda: kleene.mxm(h, h, mask=d),
                 lambda: kleene.mxv(d, u), lambda: kleene.vxm(kleene.to_device(u), h),
                 lambda: kleene.mxv(d, kleene.to_device(u), mask=np.ones(12, bool))):
        with pytest.raises(kleene.SpaceMismatch, match=r"to_device\(\)"):
            call()
    # SpaceMismatch is an InvalidArgument and a kleene.Error.
    assert issubclass(kleene.SpaceMismatch, kleene.InvalidArgument)
    assert issubclass(kleene.SpaceMismatch, kleene.Error)
