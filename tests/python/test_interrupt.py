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
    # The SIGINT is sent a tenth of the way into the call (measured first), so that the test
    # means the same on 2 cores and on 16. It lands between R-Kleene's products; the largest of
    # them, (n/2)^3 updates, is about a sixth of the work.
    m = big_graph()

    def run():
        kleene.apsp(m, algorithm="rkleene", device="cpu")

    full = _seconds(run)
    interrupted = []

    def run_noting():
        try:
            run()
        except KeyboardInterrupt:
            interrupted.append(True)
            raise

    elapsed = _seconds_interrupted(run_noting, full / 10)
    assert interrupted, f"apsp finished in {elapsed:.2f} s without seeing the SIGINT"
    assert elapsed < full / 2, (elapsed, full)


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


def _seconds(call):
    start = time.monotonic()
    call()
    return time.monotonic() - start


def _seconds_interrupted(call, delay):
    """Seconds until call() ends with SIGINT sent after `delay` seconds (the KeyboardInterrupt,
    raised inside the call or just after it, is swallowed)."""
    timer = threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        call()
    except KeyboardInterrupt:
        pass
    finally:
        timer.cancel()
    return time.monotonic() - start


def test_sigint_stops_delta_stepping_sssp():
    # A chain weighted 1: with delta 1 every vertex is a bucket of its own, one round each. The
    # search polls the hook every 256 rounds (or 50 ms), outside its parallel region.
    n = 100_000
    a = sp.csr_matrix((np.ones(n - 1), (np.arange(n - 1), np.arange(1, n))), shape=(n, n))
    m = kleene.Matrix.from_scipy(a)

    def run():
        kleene.sssp(m, 0, method="delta-stepping", delta=1.0, device="cpu")

    full = _seconds(run)
    elapsed = _seconds_interrupted(run, full / 10)
    # Without polling the call runs to its end and the interrupt lands after it (about `full`).
    assert elapsed < full / 2, (elapsed, full)


def _threads():
    """The OpenMP threads kleene's CPU calls use here."""
    env = os.environ.get("OMP_NUM_THREADS", "").split(",")[0]
    return int(env) if env.isdigit() and int(env) > 0 else len(os.sched_getaffinity(0))


def test_sigint_stops_johnson():
    # Sources run in batches of 32 per thread, the hook between batches: at least 4 batches a
    # thread (2048 sources up to 16 threads; more vertices on a larger host, where 2048 sources
    # were one batch a thread and nothing could stop the call: seen on 64 cores).
    m = big_graph(max(2048, 32 * 4 * _threads()))

    def run():
        kleene.apsp(m, algorithm="johnson", device="cpu")

    full = _seconds(run)
    elapsed = _seconds_interrupted(run, full / 10)
    assert elapsed < 0.6 * full, (elapsed, full)
