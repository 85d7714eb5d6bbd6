"""scipy.sparse.csgraph.floyd_warshall on the same dense random graphs as bench_apsp_gpu (weights
uniform integers in [1, 100]); prints RESULT lines like the C++ bench. Usage: scipy_fw.py n..."""
import sys, time
import numpy as np
from scipy.sparse.csgraph import floyd_warshall

for n in map(int, sys.argv[1:]):
    rng = np.random.default_rng(n)
    a = rng.integers(1, 101, size=(n, n)).astype(np.float64)
    np.fill_diagonal(a, 0)
    times = []
    for _ in range(2):
        t0 = time.perf_counter()
        floyd_warshall(a, directed=True)
        times.append(time.perf_counter() - t0)
    ms = min(times) * 1e3
    print(f"RESULT algo=scipy-fw type=fp64 n={n} ms={ms:.3f} tups={n**3 / (ms * 1e-3) / 1e12:.4f} "
          f"pct=0 ceiling=0 check=-", flush=True)
