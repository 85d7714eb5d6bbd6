// Predecessors from APSP distances on the GPU (paths.hpp): one thread block runs the tight-edge
// breadth-first search of one source, level by level, with its queue and visited bitmap in global
// memory (a batch of sources at a time bounds that memory). On the context's stream.

#pragma nv_diag_suppress 554  // see dense_gemm.cuh

#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/algorithms/cuda/paths.hpp>
#include <kleene/algorithms/tight.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/error.hpp>
#include <kleene/semiring.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace kleene::cuda {
namespace {

constexpr int block_threads = 256;

/// Block b handles source s = first + b. queue: n ints per block; seen: ceil(n/32) words per block.
template <class T>
__global__ void tight_bfs(std::int32_t const* __restrict__ row_ptr,
                          std::int32_t const* __restrict__ col, T const* __restrict__ val, T iso,
                          T const* __restrict__ dist, std::size_t ld_dist, std::int32_t* pred,
                          std::size_t ld_pred, std::int32_t n, std::int32_t first,
                          std::int32_t* queues, unsigned* seen_words) {
    std::int32_t const s = first + static_cast<std::int32_t>(blockIdx.x);
    if (s >= n) return;
    std::size_t const words = (static_cast<std::size_t>(n) + 31) / 32;
    std::int32_t* queue = queues + static_cast<std::size_t>(blockIdx.x) * n;
    unsigned* seen = seen_words + static_cast<std::size_t>(blockIdx.x) * words;
    T const* ds = dist + static_cast<std::size_t>(s) * ld_dist;
    std::int32_t* ps = pred + static_cast<std::size_t>(s) * ld_pred;
    T const inf = infinity<T>();

    for (std::size_t w = threadIdx.x; w < words; w += blockDim.x) seen[w] = 0;
    for (std::int32_t v = threadIdx.x; v < n; v += blockDim.x) ps[v] = -1;
    __shared__ std::int32_t tail;
    if (threadIdx.x == 0) {
        tail = 1;
        queue[0] = s;
    }
    __syncthreads();
    if (threadIdx.x == 0) seen[s / 32] = 1u << (s % 32);
    __syncthreads();
    std::int32_t lo = 0;
    while (true) {
        std::int32_t const hi = tail;
        if (lo == hi) break;
        __syncthreads();  // everyone has read tail before it grows
        // One warp per frontier vertex, its lanes over the out-edges.
        int const warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
        for (std::int32_t q = lo + warp; q < hi; q += block_threads / 32) {
            std::int32_t const u = queue[q];
            T const du = ds[u];
            for (std::int32_t k = row_ptr[u] + lane; k < row_ptr[u + 1]; k += 32) {
                std::int32_t const v = col[k];
                T const w = val ? val[k] : iso;
                T const dv = ds[v];
                if (w == inf || dv == inf || !kleene::detail::tight(du, w, dv)) continue;
                unsigned const bit = 1u << (v % 32);
                if (seen[v / 32] & bit) continue;
                if (atomicOr(&seen[v / 32], bit) & bit) continue;
                ps[v] = u;
                queue[atomicAdd(&tail, 1)] = v;
            }
        }
        __syncthreads();
        lo = hi;
    }
}

}  // namespace

template <class T>
void predecessors(csr_matrix<T, std::int32_t, device> const& a, dense_view<T const, device> dist,
                  dense_view<std::int32_t, device> pred, context& ctx) {
    std::size_t const n = a.rows();
    if (a.cols() != n || dist.rows != n || dist.cols != n || pred.rows != n || pred.cols != n)
        throw dimension_mismatch("cuda::predecessors: graph " + kleene::detail::shape(a.rows(), a.cols()) +
                                 ", distances " + kleene::detail::shape(dist.rows, dist.cols) +
                                 ", predecessors " + kleene::detail::shape(pred.rows, pred.cols));
    if (n == 0) return;
    if (n > static_cast<std::size_t>(INT32_MAX)) throw invalid_argument("cuda::predecessors: n too large");
    // Batch: at most 2048 sources, and queue + bitmap memory at most ~256 MiB.
    std::size_t const per_source = n * sizeof(std::int32_t) + (n + 31) / 32 * sizeof(unsigned);
    std::size_t const batch = std::max<std::size_t>(1, std::min<std::size_t>({n, 2048, (256u << 20) / per_source}));
    detail::device_stream const st = detail::stream_of(ctx);  // queues from the context's pool
    detail::stream_buffer<std::int32_t> queues(batch * n, st);
    detail::stream_buffer<unsigned> seen(batch * ((n + 31) / 32), st);
    for (std::size_t first = 0; first < n; first += batch) {
        auto const blocks = static_cast<unsigned>(std::min(batch, n - first));
        tight_bfs<T><<<blocks, block_threads, 0, st>>>(
            a.row_ptr(), a.col_idx(), a.has_values() ? a.values() : nullptr, a.iso_value(),
            dist.data, dist.ld, pred.data, pred.ld, static_cast<std::int32_t>(n),
            static_cast<std::int32_t>(first), queues.data(), seen.data());
        KLEENE_CUDA_CHECK_LAUNCH("tight_bfs");
    }
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
}

template void predecessors<float>(csr_matrix<float, std::int32_t, device> const&,
                                  dense_view<float const, device>, dense_view<std::int32_t, device>,
                                  context&);
template void predecessors<double>(csr_matrix<double, std::int32_t, device> const&,
                                   dense_view<double const, device>,
                                   dense_view<std::int32_t, device>, context&);
template void predecessors<std::int32_t>(csr_matrix<std::int32_t, std::int32_t, device> const&,
                                         dense_view<std::int32_t const, device>,
                                         dense_view<std::int32_t, device>, context&);

}  // namespace kleene::cuda
