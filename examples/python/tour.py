# %% [markdown]
# # A short tour of kleene from Python
#
# Notebook-style (`# %%` cells open in Jupyter / VS Code); run as a script it is also a test
# (ctest `python_example`). Graph problems become matrix problems over semirings.

# %%
import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

import kleene

# A 5-vertex weighted directed graph as a SciPy CSR matrix: row u lists the out-edges of u.
rows = [0, 0, 1, 2, 3, 3]
cols = [1, 2, 3, 3, 4, 0]
weights = [1.5, 4.0, 2.0, 0.5, 1.0, 7.0]
g = sp.csr_matrix((weights, (rows, cols)), shape=(5, 5))
a = kleene.Matrix.from_scipy(g)  # shares g's arrays: no copy (copy=True makes one)
print(a)
assert np.shares_memory(a.to_scipy().data, g.data)

# %% [markdown]
# ## Products over semirings
# Two-hop shortest distances are A min.+ A; the semiring is a name or an object.

# %%
two_hops, why = kleene.mxm(a, a, "min.plus", explain=True)
print(two_hops.to_numpy(absent=np.inf))
print(why)  # which kernel ran, and why
assert two_hops.to_scipy()[0, 3] == 3.5  # 0 -> 1 -> 3

# Masks, accumulators and replace, GraphBLAS style: keep only the two-hop paths that are not
# already edges, C<!structure(A)> = A min.+ A.
new_pairs = kleene.mxm(a, a, kleene.min_plus, mask=kleene.complement(kleene.structure(a)))
print("pairs reached in two hops but not one:", new_pairs.nnz)

# One Bellman-Ford step from vertex 0 is a vector-matrix product over min.plus.
x = np.full(5, np.inf)
x[0] = 0
print("one step:", kleene.vxm(x, a, kleene.min_plus))

# %% [markdown]
# ## Algorithms
# They take kleene matrices, SciPy matrices or dense arrays, run on the CPU or the GPU
# (`device="gpu"` raises kleene.NoDevice where there is none), and release the GIL.

# %%
print("BFS levels from 0:", kleene.bfs(a, 0))
print("distances from 0: ", kleene.sssp(a, 0))
d, p = kleene.apsp(a, predecessors=True)
assert np.array_equal(d, csgraph.shortest_path(g, directed=True))  # the same answer as SciPy
print("a shortest path 0 -> 4:", kleene.path(p, 0, 4), "of length", d[0, 4])
print("reachability:\n", kleene.closure(a, reflexive=True).to_numpy().astype(int))
print("components:", kleene.connected_components(a))
print("pagerank:", np.round(kleene.pagerank(a, dangling="redistribute"), 4))

# %% [markdown]
# ## Errors carry kleene's messages

# %%
try:
    kleene.bfs(a, 9)
except kleene.InvalidArgument as e:
    print("kleene.InvalidArgument:", e)
