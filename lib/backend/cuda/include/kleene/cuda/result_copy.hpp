#pragma once
// A call's result from the device to the caller's host memory, on the context's stream: the last
// step of every graph kernel that returns host vectors (BFS levels and parents, SSSP distances,
// components, ranks, centrality). Implemented in lib/backend/cuda/src/result_copy.cpp.
//
// A copy to pageable memory (a std::vector) by cudaMemcpyAsync goes through the driver's own
// staging at well under the link's rate. Here large copies go through two page-locked buffers of
// the context (created at the first such copy, kept, released with the context): the DMA engine
// fills one while the host's threads (the context's OpenMP threads) copy the other into the
// result, so the host copy and the first touch of a fresh result's pages overlap the transfer.
// Copies under `staged_from` bytes, and copies into memory that is already page-locked
// (cudaHostAlloc, cudaHostRegister), go directly.

#include <kleene/context.hpp>
#include <kleene/detail/device_entry.hpp>

#include <cstddef>

namespace kleene::cuda {
KLEENE_DEVICE_ENTRIES_BEGIN

struct result_copy_options {
    /// Copies of fewer bytes go directly (one cudaMemcpyAsync).
    std::size_t staged_from = std::size_t(4) << 20;
    /// The most bytes of each of the two page-locked buffers: a result goes in chunks of
    /// min(chunk, half the result rounded up to 1 MiB). Measured on the H200 host (bench_result_
    /// copy, 32 MiB into a fresh result, 16 threads): 4.93 / 3.01 / 2.12 / 2.00 ms with 2 / 4 /
    /// 8 / 16 MiB chunks, against 10.81 ms by cudaMemcpyAsync alone and 0.62 ms into page-locked
    /// memory (docs/performance.md).
    std::size_t chunk = std::size_t(16) << 20;
    /// false: every copy goes directly (the driver's pageable path), for comparison.
    bool staged = true;
};

/// `bytes` from device address `src` to host address `dst`, after the work queued on ctx's stream
/// before it; returns when the bytes are in `dst`. Throws kleene::device_error when a CUDA call
/// fails (the copy is then incomplete). The staging buffers stay with ctx: one thread at a time,
/// as for everything else on a context.
KLEENE_DEVICE_ENTRY void copy_result_to_host(void* dst, void const* src, std::size_t bytes,
                                             context& ctx, result_copy_options const& opt = {})
    KLEENE_DEVICE_BODY;


namespace detail {
/// The context's small page-locked host block of at least `bytes` (at most 1 MiB), kept for the
/// context's life: for the values a call's host loop exchanges with its kernels (a state word, a
/// counter) through cudaMemcpyAsync. Valid until the next call of this on the same context; one
/// thread at a time, as everything on a context. Throws kleene::device_error when page-locked
/// memory cannot be had.
KLEENE_DEVICE_ENTRY void* pinned_scratch(context& ctx, std::size_t bytes) KLEENE_DEVICE_VALUE;
}  // namespace detail
KLEENE_DEVICE_ENTRIES_END
}  // namespace kleene::cuda
