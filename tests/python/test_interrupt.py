"""Long calls release the GIL and stop with KeyboardInterrupt on SIGINT (Ctrl-C)."""

import os
import signal
import threading
import time

import numpy as np
import scipy.sparse as sp

import kleene


def big_graph(n=3072):
    rng = np.random.default_rng(0)
    a = sp.random(n, n, density=4 / n, random_state=rng, format="csr")
    a.data[:] = rng.integers(1, 10, a.nnz)
    return kleene.Matrix.from_scipy(a.astype(np.float32))


def test_sigint_stops_a_long_apsp():
    m = big_graph()
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        kleene.apsp(m, algorithm="rkleene", device="cpu")
        interrupted = False
    except KeyboardInterrupt:
        interrupted = True
    finally:
        timer.cancel()
    elapsed = time.monotonic() - start
    assert interrupted, f"apsp finished in {elapsed:.2f} s without seeing the SIGINT"
    # The interrupt lands between R-Kleene's steps, long before n^3 = 2.9e10 updates are done.
    assert elapsed < 5.0


def test_gil_is_released_during_apsp():
    m = big_graph(1536)
    ticks = 0
    stop = threading.Event()

    def count():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    start = time.monotonic()
    kleene.apsp(m, algorithm="rkleene", device="cpu")
    elapsed = time.monotonic() - start
    stop.set()
    t.join()
    # With the GIL held the counter would not move while apsp runs.
    assert elapsed < 0.05 or ticks > 10, (elapsed, ticks)
