"""kleene: linear algebra over semirings (GraphBLAS style) on the CPU and NVIDIA GPUs.

Matrices come from and go to NumPy and scipy.sparse (``Matrix.from_scipy``, ``to_scipy``,
``from_numpy``, ``to_numpy``); products take a semiring by name or as an object
(``kleene.mxm(A, B, "min.plus")``, ``kleene.min_plus``), and the other GraphBLAS operations
(``ewise_add``, ``ewise_mult``, ``apply``, ``select``, ``reduce``, ``transpose``, ``extract``,
``assign``, ``kronecker``) their operators by name (``"plus"``, ``"min"``, ...); the graph
algorithms take a Matrix, a SciPy sparse matrix or a dense NumPy array. Errors are
``kleene.Error`` subclasses carrying kleene's message. See docs/python.md.

Copies: NumPy/SciPy -> kleene copies once (kleene's buffers own 64-byte aligned memory and cannot
adopt NumPy's); kleene -> NumPy/SciPy copies nothing (read-only views that keep the kleene storage
alive), except ``to_numpy`` of a CSR matrix, which has to build a dense array.
"""

from ._kleene import (  # noqa: F401  (re-exported)
    DeviceArray,
    DeviceError,
    DimensionMismatch,
    Error,
    InvalidArgument,
    IOError,
    NegativeCycle,
    NoDevice,
    OutOfMemory,
    OverflowError,
    ParseError,
    SpaceMismatch,
    device_count,
)
from .matrix import Matrix, as_matrix, infinity  # noqa: F401
from .semiring import (  # noqa: F401
    Semiring,
    any_pair,
    lor_land,
    max_min,
    max_plus,
    max_times,
    min_first,
    min_max,
    min_plus,
    min_second,
    plus_min,
    plus_pair,
    plus_times,
    semiring,
)
from .ops import (  # noqa: F401
    apply,
    assign,
    complement,
    ewise_add,
    ewise_mult,
    extract,
    kronecker,
    mxm,
    mxv,
    reduce,
    select,
    structure,
    to_device,
    transpose,
    vxm,
)
from .algorithms import (  # noqa: F401
    apsp,
    betweenness,
    bfs,
    closure,
    connected_components,
    pagerank,
    path,
    shortest_path,
    sssp,
    triangle_count,
)
from .io import mtx_info, read_mtx, write_mtx  # noqa: F401
from .streams import stream  # noqa: F401

__all__ = [
    "Matrix", "as_matrix", "infinity", "Semiring", "semiring", "mxm", "mxv", "vxm", "structure",
    "complement", "ewise_add", "ewise_mult", "apply", "select", "reduce", "transpose", "extract",
    "assign", "kronecker", "bfs", "sssp", "apsp", "closure", "path", "shortest_path",
    "connected_components", "pagerank", "triangle_count", "betweenness", "read_mtx", "write_mtx",
    "mtx_info", "device_count", "to_device", "stream", "DeviceArray", "Error", "DimensionMismatch",
    "InvalidArgument", "SpaceMismatch",
    "ParseError", "IOError", "OutOfMemory", "DeviceError", "NoDevice", "OverflowError",
    "NegativeCycle",
    "plus_times", "min_plus", "max_plus", "max_min", "min_max", "lor_land", "any_pair",
    "plus_pair", "min_first", "min_second", "plus_min", "max_times",
]
