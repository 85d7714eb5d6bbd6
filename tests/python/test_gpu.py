"""Device matrices, exchange with CuPy / PyTorch, and products on the GPU compared with the same
calls on the host (marker gpu: skipped without a device)."""

import gc

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
    # Few edges a vertex: the asynchronous work list, pinned and chosen.
    road = random_graph(2000, 0.0015, 52, dtype=np.float32)
    want = kleene.sssp(road, 7, device="cpu")
    for method in ("async", "auto"):
        np.testing.assert_array_equal(kleene.sssp(road, 7, method=method, device="gpu"), want)
    np.testing.assert_array_equal(kleene.bfs(road, 7, device="gpu"), kleene.bfs(road, 7, device="cpu"))


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


# ---- kleene.stream: calls on the caller's stream ---------------------------------------------
# A busy non-blocking stream s (30 products of 4096 x 4096) ends by filling x, which a kleene
# Matrix borrows, with 3s; min.plus of that matrix with itself is then 6 everywhere. A call on s
# runs after the fill; a call on kleene's own stream runs while s is still busy and reads the
# zeros x held before (the control, which shows the setting can see a call off the stream).


def _quiesce(synchronize):
    """Frees what earlier tests left for the garbage collector first: a kleene device buffer freed
    while s is busy (cudaFree synchronises the device) would let a call off the stream see the
    fill after all, and the control below would then pass for the wrong reason."""
    gc.collect()
    synchronize()


def _cupy_busy_fill(cp, x):
    _quiesce(cp.cuda.Device().synchronize)
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        y = cp.ones((4096, 4096), dtype=cp.float32)
        for _ in range(30):
            y = y @ y / 4096
        x[...] = y[:2048, :2048] * 3
    return s


def _borrowed_zeros_cupy():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    x = cp.zeros((2048, 2048), dtype=cp.float32)
    cp.cuda.Device().synchronize()
    return cp, x, kleene.Matrix.from_cuda(x)


def _square_min(m):
    return float(kleene.mxm(m, m, "min.plus").to_host().to_numpy().min())


def test_stream_runs_calls_after_the_callers_work_cupy():
    cp, x, m = _borrowed_zeros_cupy()
    s = _cupy_busy_fill(cp, x)
    with kleene.stream(s) as handle:
        assert handle == s.ptr
        got = kleene.mxm(m, m, "min.plus")
    assert float(got.to_host().to_numpy().min()) == 6.0
    # The current CuPy stream (kleene.stream("cupy")), and the handle as an int.
    for how in ("cupy", "int"):
        x[...] = 0
        cp.cuda.Device().synchronize()
        s = _cupy_busy_fill(cp, x)
        with s, kleene.stream(s.ptr if how == "int" else how):
            got = kleene.mxm(m, m, "min.plus")
        assert float(got.to_host().to_numpy().min()) == 6.0, how


def test_stream_control_a_call_off_the_stream_reads_too_early():
    cp, x, m = _borrowed_zeros_cupy()
    s = _cupy_busy_fill(cp, x)
    assert _square_min(m) == 0.0  # kleene's own stream: s has not filled x yet
    s.synchronize()
    assert _square_min(m) == 6.0


def test_stream_runs_calls_after_the_callers_work_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA")
    t = torch.zeros((2048, 2048), device="cuda", dtype=torch.float32)
    torch.cuda.synchronize()
    m = kleene.Matrix.from_cuda(t)

    def busy_fill():
        _quiesce(torch.cuda.synchronize)
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            y = torch.ones((4096, 4096), device="cuda", dtype=torch.float32)
            for _ in range(30):
                y = y @ y / 4096
            t.copy_(y[:2048, :2048] * 3)
        return s

    # Once first, untested: the first launch of each of PyTorch's kernels in a process loads its
    # module, which can wait for the work queued before it (the fill would then be done early).
    busy_fill().synchronize()
    t.zero_()
    torch.cuda.synchronize()
    s = busy_fill()
    with kleene.stream(s) as handle:
        assert handle == s.cuda_stream
        got = kleene.mxm(m, m, "min.plus")
    assert float(got.to_host().to_numpy().min()) == 6.0
    s = busy_fill()
    with torch.cuda.stream(s), kleene.stream("torch"):
        got = kleene.mxm(m, m, "min.plus")
    assert float(got.to_host().to_numpy().min()) == 6.0
    t.zero_()
    torch.cuda.synchronize()
    s = busy_fill()
    assert _square_min(m) == 0.0  # the control: off the stream, before the fill
    s.synchronize()


def test_stream_blocks_nest_and_restore():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    s1, s2 = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)
    from kleene import _kleene
    with kleene.stream(s1):
        with kleene.stream(s2):
            assert _kleene._set_stream(s2.ptr) == s2.ptr
        assert _kleene._set_stream(s1.ptr) == s1.ptr  # s1 again after the inner block
    assert _kleene._set_stream(0) == 0  # kleene's default (the legacy default stream) again


def test_exported_arrays_name_kleenes_stream():
    # __cuda_array_interface__ names the stream kleene's calls on this thread enqueue on (1, the
    # legacy default stream, outside a kleene.stream block), so that a consumer waits for them.
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    m = kleene.Matrix.from_numpy(np.full((4, 4), 2, np.float32)).to_device()
    (values,) = m.device_arrays()
    assert values.__cuda_array_interface__["stream"] == 1
    s = cp.cuda.Stream(non_blocking=True)
    with kleene.stream(s):
        assert values.__cuda_array_interface__["stream"] == s.ptr
        got = cp.asarray(values)
    np.testing.assert_array_equal(cp.asnumpy(got), np.full((4, 4), 2, np.float32))
    assert values.__cuda_array_interface__["stream"] == 1


def test_stream_refusals():
    for bad, match in [("numpy", "cupy.*torch"), (-1, "not a stream handle"),
                       (1 << 64, "not a stream handle"), (1.5, "not float"),
                       (True, "not bool")]:
        with pytest.raises(kleene.InvalidArgument, match=match):
            with kleene.stream(bad):
                pass


# ---- products on the device: each equals the same call on the host ----------------------------

DTYPES = ["float32", "float64", "int32", "int64"]
# Dense operands run the semiring GEMM (every semiring); a CSR A runs the sparse kernels, which
# lib/backend/cuda builds for these:
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


# ---- the other operations on the device: each equals the same call on the host ------------------

GPU_BINARY = ["plus", "times", "min", "max", "first", "second"]


def dense_of(m, absent):
    """The entries of a Matrix in either memory as a dense host array, `absent` where none."""
    m = m.to_host() if m.device == "gpu" else m
    return m.to_numpy() if m.format == "dense" else m.to_numpy(absent=absent)


def assert_same_result(device_result, host_result, absent=0):
    """A device result equals the host's: the same values (absent where no entry) and, when both
    are CSR, the same structure."""
    assert device_result.device == "gpu"
    np.testing.assert_array_equal(dense_of(device_result, absent), dense_of(host_result, absent))
    if device_result.format == "csr" and host_result.format == "csr":
        d, h = device_result.to_host().to_scipy(), host_result.to_scipy()
        np.testing.assert_array_equal(d.indptr, h.indptr)
        np.testing.assert_array_equal(d.indices, h.indices)


def pair_of(fmt, dtype, seed, shape=(20, 20), absent=0):
    """A host operand (CSR, or dense with `absent` where no entry) and its device copy."""
    a = random_graph(shape[0], 0.2, seed, dtype=dtype) if shape[0] == shape[1] else \
        random_graph(max(shape), 0.2, seed, dtype=dtype)[:shape[0], :shape[1]].tocsr()
    h = operand(a, fmt, np.dtype(dtype).type(absent))
    return h, h.to_device()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", GPU_BINARY)
@pytest.mark.parametrize("fmt", ["csr", "dense"])
@pytest.mark.parametrize("fn", [kleene.ewise_add, kleene.ewise_mult, kleene.kronecker])
def test_device_ewise_and_kronecker_equal_cpu(dtype, op, fmt, fn):
    shape = (6, 5) if fn is kleene.kronecker else (30, 30)
    a, ad = pair_of(fmt, dtype, 200, shape)
    b, bd = pair_of(fmt, dtype, 201, shape)
    got = fn(ad, bd, op, absent=0)
    assert got.format == fmt
    assert_same_result(got, fn(a, b, op, absent=0))


@pytest.mark.parametrize("fn", [kleene.ewise_add, kleene.ewise_mult, kleene.kronecker])
def test_device_ewise_refusals(fn):
    a, ad = pair_of("csr", "float64", 202)
    d, dd = pair_of("dense", "float64", 203)
    with pytest.raises(kleene.InvalidArgument, match="lib/backend/cuda builds plus, times"):
        fn(ad, ad, "lor")
    with pytest.raises(kleene.InvalidArgument, match="both CSR or both dense"):
        fn(ad, dd)
    with pytest.raises(kleene.SpaceMismatch, match=r"to_device\(\)"):
        fn(ad, a)
    with pytest.raises(kleene.InvalidArgument, match="bool values are not offered"):
        b = a.astype(bool).to_device()
        fn(b, b, "first")


@pytest.mark.parametrize("structural", [False, True])
@pytest.mark.parametrize("complemented", [False, True])
@pytest.mark.parametrize("accum", [None, "plus", "min", "second"])
@pytest.mark.parametrize("replace", [False, True])
def test_device_operations_csr_mask_accumulator_replace(structural, complemented, accum,
                                                        replace):
    n = 24
    a, ad = pair_of("csr", "float64", 210, (n, n))
    b, bd = pair_of("csr", "float64", 211, (n, n))
    c0 = kleene.Matrix.from_scipy(random_graph(n, 0.2, 212))
    mask = random_graph(n, 0.3, 213)
    mask.data[::3] = 0  # stored zeros: valued and structural masks differ there
    mk = kleene.Matrix.from_scipy(mask)
    rows, cols = [5, 0, 23, 7], [1, 9, 20, 3]  # distinct: assign takes no repeats

    def calls(x, y, m):
        m = kleene.structure(m) if structural else m
        m = kleene.complement(m) if complemented else m
        kw = dict(mask=m, accum=accum, replace=replace)
        return [lambda out: kleene.ewise_add(x, y, "max", out=out, **kw),
                lambda out: kleene.ewise_mult(x, y, "plus", out=out, **kw),
                lambda out: kleene.apply(x, "times", right=2.0, out=out, **kw),
                lambda out: kleene.select(x, "tril", -1, out=out, **kw),
                lambda out: kleene.transpose(x, out=out, **kw),
                lambda out: kleene.assign(out, 4.0, rows, cols, **kw)]

    for host_call, device_call in zip(calls(a, b, mk), calls(ad, bd, mk.to_device())):
        want = host_call(kleene.Matrix.from_scipy(random_graph(n, 0.2, 212)))
        out = c0.to_device()
        got = device_call(out)
        assert got is out and got.format == "csr"
        assert_same_result(got, want)


@pytest.mark.parametrize("complemented", [False, True])
@pytest.mark.parametrize("accum", [None, "plus", "min"])
@pytest.mark.parametrize("replace", [False, True])
def test_device_operations_dense_output_with_mask(complemented, accum, replace):
    n = 16
    a, ad = pair_of("dense", "float32", 220, (n, n))
    b, bd = pair_of("dense", "float32", 221, (n, n))
    c0 = kleene.Matrix.from_numpy(random_graph(n, 0.3, 222, dtype=np.float32).toarray())
    m = kleene.Matrix.from_numpy(np.random.default_rng(223).random((n, n)) < 0.5)  # dense bool
    for fn in (lambda x, y, **kw: kleene.ewise_add(x, y, "plus", **kw),
               lambda x, y, **kw: kleene.apply(x, "abs", **kw),
               lambda x, y, **kw: kleene.transpose(x, **kw)):
        want = fn(a, b, out=kleene.Matrix.from_numpy(c0.to_numpy()),
                  mask=kleene.complement(m) if complemented else m, accum=accum, replace=replace)
        dm = m.to_device()
        got = fn(ad, bd, out=c0.to_device(), mask=kleene.complement(dm) if complemented else dm,
                 accum=accum, replace=replace)
        assert got.format == "dense"
        assert_same_result(got, want)
    with pytest.raises(kleene.InvalidArgument, match="dense output accumulates with plus or min"):
        kleene.ewise_add(ad, bd, out=c0.to_device(), mask=m.to_device(), accum="max")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fmt", ["csr", "dense"])
@pytest.mark.parametrize("op,right", [("identity", None), ("ainv", None), ("abs", None),
                                      ("one", None), ("minv", None), ("plus", 3),
                                      ("times", 2), ("min", 4), ("max", 4)])
def test_device_apply_equals_cpu(dtype, fmt, op, right):
    a, ad = pair_of(fmt, dtype, 230)
    got = kleene.apply(ad, op, right=right, absent=0)
    assert got.format == fmt
    assert_same_result(got, kleene.apply(a, op, right=right, absent=0))


def test_device_apply_refusals():
    a, ad = pair_of("csr", "float64", 231)
    with pytest.raises(kleene.InvalidArgument, match="lib/backend/cuda builds identity"):
        kleene.apply(ad, "lnot")
    with pytest.raises(kleene.InvalidArgument, match="bound first"):
        kleene.apply(ad, "plus", left=1.0)
    with pytest.raises(kleene.InvalidArgument, match="lib/backend/cuda builds identity"):
        kleene.apply(ad, "first", right=1.0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("pred,thunk", [("tril", 0), ("triu", 2), ("diag", -1), ("offdiag", 0),
                                        ("value_eq", 3), ("value_ne", 3), ("<", 5), ("<=", 5),
                                        (">", 5), (">=", 5)])
def test_device_select_equals_cpu(dtype, pred, thunk):
    a, ad = pair_of("csr", dtype, 240)
    got = kleene.select(ad, pred, thunk)
    assert got.format == "csr"
    assert_same_result(got, kleene.select(a, pred, thunk))


def test_device_select_refusals():
    _, dd = pair_of("dense", "float64", 241)
    _, ad = pair_of("csr", "float64", 241)
    with pytest.raises(kleene.InvalidArgument, match="takes a CSR matrix"):
        kleene.select(dd, "tril")
    with pytest.raises(kleene.InvalidArgument, match="lib/backend/cuda builds tril"):
        kleene.select(ad, "row_le", 3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("monoid", ["plus", "times", "min", "max"])
@pytest.mark.parametrize("fmt", ["csr", "dense"])
def test_device_reduce_equals_cpu(dtype, monoid, fmt):
    # The monoid's identity: what a dense operand holds where it has no entry.
    semiring = {"plus": "plus_times", "min": "min_plus", "max": "max_plus"}.get(monoid)
    z = zero_of(semiring, dtype) if semiring else np.dtype(dtype).type(1)
    a, ad = pair_of(fmt, dtype, 250, (25, 18), absent=z)
    for axis in (1, 0):
        got = kleene.reduce(ad, monoid, axis=axis)
        assert isinstance(got, kleene.DeviceArray)
        want = kleene.reduce(a, monoid, axis=axis)
        if np.dtype(dtype).kind == "f" and monoid in ("plus", "times"):
            np.testing.assert_allclose(got.to_numpy(), want, rtol=1e-5)
        else:
            np.testing.assert_array_equal(got.to_numpy(), want)
    got, want = kleene.reduce(ad, monoid), kleene.reduce(a, monoid)
    if np.dtype(dtype).kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-5)
    else:
        assert got == want
    with pytest.raises(kleene.InvalidArgument, match="monoids plus, times, min and max"):
        kleene.reduce(ad, "lor", axis=1)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fmt", ["csr", "dense"])
def test_device_transpose_extract_assign_equal_cpu(dtype, fmt):
    a, ad = pair_of(fmt, dtype, 260, (17, 11))
    assert_same_result(kleene.transpose(ad), kleene.transpose(a))
    for rows, cols in (([3, 0, 0, 16], [10, 2]), (slice(2, 9), None), (None, slice(None, None, 3))):
        assert_same_result(kleene.extract(ad, rows, cols), kleene.extract(a, rows, cols))
    col = kleene.extract(ad, None, 4)
    assert isinstance(col, kleene.DeviceArray)
    np.testing.assert_array_equal(col.to_numpy(), kleene.extract(a, None, 4))
    s, sd = pair_of(fmt, dtype, 261, (3, 2))
    for value, value_d in ((s, sd), (7, 7)):
        for accum in (None, "plus", "min"):
            host_out = kleene.Matrix.from_numpy(dense_of(a, 0)) if fmt == "dense" else \
                kleene.Matrix.from_scipy(a.to_scipy())
            want = kleene.assign(host_out, value, [4, 1, 9], [0, 10], accum=accum)
            got = kleene.assign(a.to_device(), value_d, [4, 1, 9], [0, 10], accum=accum)
            assert_same_result(got, want)
    with pytest.raises(kleene.InvalidArgument, match="appears twice"):
        kleene.assign(ad, 1, [0, 0], None)


@pytest.mark.parametrize("dtype", DTYPES)
def test_device_vectors_equal_cpu(dtype):
    rng = np.random.default_rng(270)
    u = rng.integers(0, 5, 40).astype(dtype)  # 0: no entry
    v = rng.integers(0, 5, 40).astype(dtype)
    m = rng.random(40) < 0.5
    ud, vd, md = kleene.to_device(u), kleene.to_device(v), kleene.to_device(m)
    for host, device in (
            (kleene.ewise_add(u, v), kleene.ewise_add(ud, vd)),
            (kleene.ewise_mult(u, v, "min", absent=0), kleene.ewise_mult(ud, vd, "min", absent=0)),
            (kleene.apply(u, "ainv"), kleene.apply(ud, "ainv")),
            (kleene.extract(u, [39, 0, 0, 7]), kleene.extract(ud, [39, 0, 0, 7])),
            (kleene.assign(u, 9, [3, 5]), kleene.assign(ud, 9, [3, 5])),
            (kleene.ewise_add(u, v, out=v, mask=kleene.complement(m), accum="plus"),
             kleene.ewise_add(ud, vd, out=vd, mask=kleene.complement(md), accum="plus"))):
        assert isinstance(device, kleene.DeviceArray)
        np.testing.assert_array_equal(device.to_numpy(), host)
    assert kleene.reduce(ud) == kleene.reduce(u)
    a, ad = pair_of("csr", dtype, 271, (40, 40))
    w0 = rng.integers(0, 4, 40).astype(dtype)
    want = kleene.reduce(a, "plus", axis=1, out=w0, mask=m, accum="plus")
    got = kleene.reduce(ad, "plus", axis=1, out=kleene.to_device(w0), mask=md, accum="plus")
    np.testing.assert_array_equal(got.to_numpy(), want)
    with pytest.raises(kleene.InvalidArgument, match="takes a CSR matrix"):
        kleene.select(ud, "tril")


def test_device_operations_refuse_host_operands():
    h = kleene.Matrix.from_scipy(random_graph(12, 0.3, 280))
    d = h.to_device()
    u = np.ones(12)
    for call in (lambda: kleene.ewise_add(d, h), lambda: kleene.ewise_mult(h, d),
                 lambda: kleene.apply(d, "abs", out=h), lambda: kleene.select(h, "tril", mask=d),
                 lambda: kleene.transpose(d, mask=h), lambda: kleene.kronecker(d, h),
                 lambda: kleene.extract(d, [0], None, out=h),
                 lambda: kleene.assign(d, h, None, None), lambda: kleene.assign(h, 1, [0], [0],
                                                                                mask=d),
                 lambda: kleene.reduce(d, axis=1, out=u),
                 lambda: kleene.ewise_add(kleene.to_device(u), u)):
        with pytest.raises(kleene.SpaceMismatch, match=r"to_device\(\)"):
            call()
