"""Running kleene's GPU work on the caller's CUDA stream (``with kleene.stream(s): ...``)."""

import contextlib
import sys

from . import _kleene


def _current(framework):
    """The current stream of "cupy" or "torch" (imported by the caller)."""
    module = sys.modules.get(framework)
    if module is None:
        raise _kleene.InvalidArgument(f"kleene.stream({framework!r}): {framework} is not imported")
    if framework == "cupy":
        return int(module.cuda.get_current_stream().ptr)
    return int(module.cuda.current_stream().cuda_stream)


def _handle(s):
    """The cudaStream_t of s as an int: a CuPy Stream (``.ptr``), a PyTorch ``torch.cuda.Stream``
    (``.cuda_stream``), an object with ``__cuda_stream__`` (the CUDA Python protocol), an int, or
    "cupy" / "torch": that library's current stream; None: the current stream of CuPy or of
    PyTorch, whichever of the two is imported (an error when both are)."""
    if s is None:
        imported = [f for f in ("cupy", "torch") if f in sys.modules]
        if len(imported) != 1:
            raise _kleene.InvalidArgument(
                "kleene.stream(): no stream given, and " +
                ("both CuPy and PyTorch are imported" if imported else
                 "neither CuPy nor PyTorch is imported") +
                " to say which stream is current: pass a stream, or \"cupy\" or \"torch\"")
        return _current(imported[0])
    if isinstance(s, str):
        if s not in ("cupy", "torch"):
            raise _kleene.InvalidArgument(
                f"kleene.stream({s!r}): a library name must be \"cupy\" or \"torch\"")
        return _current(s)
    if hasattr(s, "__cuda_stream__"):
        version, handle = s.__cuda_stream__()
        if version != 0:
            raise _kleene.InvalidArgument(
                f"kleene.stream(): __cuda_stream__ version {version} is not known (0 is)")
        s = handle
    elif hasattr(s, "cuda_stream"):
        s = s.cuda_stream
    elif hasattr(s, "ptr"):
        s = s.ptr
    if isinstance(s, bool) or not isinstance(s, int):
        raise _kleene.InvalidArgument(
            f"kleene.stream(): expected a CuPy or PyTorch stream, an object with __cuda_stream__ "
            f"or a cudaStream_t as an int, not {type(s).__name__}")
    if s < 0 or s >= 1 << 64:
        raise _kleene.InvalidArgument(f"kleene.stream(): {s} is not a stream handle")
    return s


@contextlib.contextmanager
def stream(s=None):
    """Runs the kleene calls of the block, on this thread, on the CUDA stream s: a CuPy or PyTorch
    stream, an object with ``__cuda_stream__``, a cudaStream_t as an int, "cupy" or "torch" (that
    library's current stream), or None (the current stream of whichever of the two is imported).

    The calls' device work is ordered after what the caller queued on s before them (a producer
    kernel, a copy), with no wait on the host; calls that return host values still wait for their
    own results. On leaving the block, the stream is synchronised, so kleene's device results are
    complete for any stream, and the thread's previous stream (kleene's default, the legacy
    default stream) is restored. Blocks nest. Raises kleene.NoDevice without a GPU."""
    handle = _handle(s)
    previous = _kleene._set_stream(handle)
    try:
        yield handle
    finally:
        _kleene._set_stream(previous)
        _kleene._synchronize_stream(handle)
