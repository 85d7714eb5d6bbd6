"""Device matrices and exchange with CuPy / PyTorch (marker gpu: skipped without a device)."""

import numpy as np
import pytest

import kleene
from conftest import random_graph

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
