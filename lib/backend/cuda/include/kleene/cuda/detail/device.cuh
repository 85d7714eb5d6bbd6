#pragma once
// Device-side helpers shared by the sparse products (sparse.cuh) and the traversals (graph*.cu):
// the device functions of device_functions.cuh (semiring atomics, shuffles of any value type),
// aggregated atomics, the load-balanced walk over a frontier's edges, launch sizes and a CUB
// temporary-storage holder. Include only from code compiled by nvcc.

#include <kleene/context.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device_functions.cuh>
#include <kleene/memory.hpp>
#include <kleene/semiring.hpp>

#include <cuda_runtime.h>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace kleene::cuda::detail {

/// The stream ctx's device work goes to (null: the legacy default stream).
inline cudaStream_t stream_of(context const& ctx) noexcept {
    return static_cast<cudaStream_t>(ctx.stream());
}

/// The end of a synchronous call: waits for st's work, unless st is being captured into a CUDA
/// graph, where nothing runs until the graph is launched (and the graph orders what follows).
/// Calls that end with this and read nothing back to the host can be captured (docs/guide.md,
/// "Streams and CUDA graphs").
inline void end_of_call(cudaStream_t st) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    KLEENE_CUDA_CHECK(cudaStreamIsCapturing(st, &status));
    if (status == cudaStreamCaptureStatusNone) KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
}

/// Blocks of `threads` covering n items, at least 1, at most `cap` (kernels grid-stride past it).
inline unsigned blocks_for(std::size_t n, unsigned threads, std::size_t cap = 1u << 20) {
    std::size_t b = (n + threads - 1) / threads;
    return static_cast<unsigned>(std::clamp<std::size_t>(b, 1, cap));
}

/// A persistent grid: enough blocks to fill the current device a few times over. Asked each call
/// (a host-side query, no device round trip), not cached: threads of one process may run on
/// devices of different sizes.
inline unsigned persistent_blocks(unsigned per_sm = 8) {
    int dev = 0, sms = 0;
    KLEENE_CUDA_CHECK(cudaGetDevice(&dev));
    KLEENE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return static_cast<unsigned>(sms) * per_sm;
}

template <class T>
__global__ void fill_kernel(T* __restrict__ p, std::size_t n, T v) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        p[i] = v;
}

/// p[0..n) = v, enqueued on st.
template <class T>
void fill(T* p, std::size_t n, T v, cudaStream_t st) {
    if (n == 0) return;
    fill_kernel<T><<<blocks_for(n, 256, 4096), 256, 0, st>>>(p, n, v);
    KLEENE_CUDA_CHECK_LAUNCH("fill_kernel");
}

/// A slot out of *count++, with one atomic per group of converged threads.
__device__ __forceinline__ unsigned long long aggregated_slot(unsigned long long* count) {
    namespace cg = cooperative_groups;
    auto g = cg::coalesced_threads();
    unsigned long long base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(count, static_cast<unsigned long long>(g.size()));
    base = g.shfl(base, 0);
    return base + g.thread_rank();
}

/// *sum += v summed over the converged threads first (one atomic per group).
__device__ __forceinline__ void aggregated_add(unsigned long long* sum, unsigned long long v) {
    namespace cg = cooperative_groups;
    auto g = cg::coalesced_threads();
    unsigned long long const s = cg::reduce(g, v, cg::plus<unsigned long long>());
    if (g.thread_rank() == 0 && s != 0) atomicAdd(sum, s);
}

// ---- load-balanced walk over a frontier's edges -------------------------------------------------

/// Frontier entry k owns the edges [offs[k], offs[k+1]) (offs: exclusive scan of the entries'
/// degrees, count + 1 values, offs[count] = the total). Every edge is visited once, as
/// f(k, r) with r its rank inside entry k's row; the grid strides over tiles of Threads * Items
/// consecutive edges, so that each block does the same work whatever the degrees (a row of a
/// million edges is spread over many blocks; empty rows cost nothing). Call from every thread of
/// the block (it synchronises the block). offs is a plain pointer: the BFS device loop writes it
/// in the same kernel, so its loads must not take the read-only path (kernels whose offsets are
/// read-only declare their own parameter __restrict__).
template <int Threads, int Items, class Off, class F>
__device__ __forceinline__ void for_each_frontier_edge(Off const* offs,
                                                       std::int64_t count, F const& f) {
    constexpr Off tile = Off(Threads) * Items;
    __shared__ std::int64_t range[2];
    if (count <= 0) return;
    Off const total = offs[count];
    for (Off t0 = Off(blockIdx.x) * tile; t0 < total; t0 += Off(gridDim.x) * tile) {
        if (threadIdx.x == 0) {
            Off const last = (t0 + tile < total ? t0 + tile : total) - 1;
            std::int64_t const lo = last_at_most(offs, 0, count - 1, t0);
            range[0] = lo;
            range[1] = last_at_most(offs, lo, count - 1, last);
        }
        __syncthreads();
        std::int64_t const lo = range[0], hi = range[1];
#pragma unroll
        for (int i = 0; i < Items; ++i) {
            Off const e = t0 + Off(i * Threads + static_cast<int>(threadIdx.x));
            if (e < total) {
                std::int64_t const k = last_at_most(offs, lo, hi, e);
                f(k, e - offs[k]);
            }
        }
        __syncthreads();
    }
}

}  // namespace kleene::cuda::detail
