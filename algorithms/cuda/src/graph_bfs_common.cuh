#pragma once
// What the two GPU BFS drivers share (graph_bfs.cu: the host-driven level loop; graph_bfs_loop.cu:
// the whole search in one cooperative kernel): the graph and state views, the frontier counters,
// Beamer's switching rule on them, the per-block counter sums and the pull step's scan of one vertex's
// in-neighbours.

#include <kleene/algorithms/beamer.hpp>
#include <kleene/algorithms/cuda/graph.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/stream_memory.cuh>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace kleene::cuda::bfs_detail {

struct counters {
    unsigned long long found;      // vertices this step reached
    unsigned long long out_edges;  // their out-degrees: the next push step's edges
    unsigned long long in_edges;   // their in-degrees: edges leaving the unvisited set
    unsigned long long ran;        // gated pull steps (host loop): 1 once the step passed its gate
};

/// Beamer's rule (kleene/algorithms/beamer.hpp) as both loops read their counters: the unexplored
/// edges are the in-edges of the unvisited set, in_total - visited_in.
__host__ __device__ __forceinline__ bool next_pulls(bool pull, unsigned long long frontier,
                                                    unsigned long long previous,
                                                    unsigned long long frontier_edges,
                                                    unsigned long long in_total,
                                                    unsigned long long visited_in, double alpha,
                                                    double min_frontier) {
    return beamer::next_pulls(pull, frontier, previous, double(frontier_edges),
                              double(in_total) - double(visited_in), alpha, min_frontier);
}
using beamer::pull_gives_way;

template <class Index>
struct bfs_graph {
    Index const* out_ptr;  // a: row u lists u's out-neighbours
    Index const* out_col;
    Index const* in_ptr;  // at: row v lists v's in-neighbours
    Index const* in_col;
    std::int64_t n;
};

template <class Index>
struct bfs_state {
    std::int32_t* level;     // -1 until reached
    Index* parent;           // nullptr when parents are not wanted
    std::uint32_t* visited;  // one bit per vertex
};

/// Sums three per-thread counts over the block, then one atomic each (call from every thread).
__device__ __forceinline__ void add_block_counts(counters* ctr, unsigned long long found,
                                                 unsigned long long out_e,
                                                 unsigned long long in_e) {
    __shared__ unsigned long long sum[3];
    if (threadIdx.x == 0) sum[0] = sum[1] = sum[2] = 0;
    __syncthreads();
    for (int d = 16; d > 0; d /= 2) {
        found += __shfl_down_sync(0xffffffffu, found, d);
        out_e += __shfl_down_sync(0xffffffffu, out_e, d);
        in_e += __shfl_down_sync(0xffffffffu, in_e, d);
    }
    if ((threadIdx.x & 31) == 0 && (found | out_e | in_e) != 0) {
        atomicAdd(&sum[0], found);
        atomicAdd(&sum[1], out_e);
        atomicAdd(&sum[2], in_e);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        if (sum[0]) atomicAdd(&ctr->found, sum[0]);
        if (sum[1]) atomicAdd(&ctr->out_edges, sum[1]);
        if (sum[2]) atomicAdd(&ctr->in_edges, sum[2]);
    }
}

/// A pull step's search for one unvisited vertex: its first in-neighbour (in_col[k..e)) that is
/// in the frontier bitmap. Four neighbours a round, so that their loads overlap instead of
/// waiting on each other. `front` is a plain pointer: the device loop writes it in the same
/// kernel, so its loads must not take the read-only path.
template <class Index>
__device__ __forceinline__ bool first_in_frontier(Index const* __restrict__ in_col,
                                                  std::uint32_t const* front, Index k, Index e,
                                                  Index& par) {
    for (; k + 4 <= e; k += 4) {
        Index const u0 = in_col[k], u1 = in_col[k + 1], u2 = in_col[k + 2], u3 = in_col[k + 3];
        std::uint32_t const b0 = front[u0 >> 5] >> (u0 & 31), b1 = front[u1 >> 5] >> (u1 & 31),
                            b2 = front[u2 >> 5] >> (u2 & 31), b3 = front[u3 >> 5] >> (u3 & 31);
        if (b0 & 1u) return par = u0, true;
        if (b1 & 1u) return par = u1, true;
        if (b2 & 1u) return par = u2, true;
        if (b3 & 1u) return par = u3, true;
    }
    for (; k < e; ++k) {
        Index const u = in_col[k];
        if ((front[u >> 5] >> (u & 31)) & 1u) return par = u, true;
    }
    return false;
}

/// A pull step: a warp per 32 consecutive vertices (one bitmap word) owns that word of `visited`
/// and of `next_front`, so it writes them without atomics; the grid strides over the words. Every
/// word of next_front is written. Counts into *ctr. Call from every thread of the grid.
template <class Index>
__device__ __forceinline__ void pull_words(bfs_graph<Index> const& g, bfs_state<Index> const& s,
                                           std::uint32_t const* front, std::uint32_t* next_front,
                                           std::int32_t next_level, counters* ctr) {
    std::int64_t const words = (g.n + 31) / 32;
    int const lane = static_cast<int>(threadIdx.x & 31);
    std::int64_t const stride = std::int64_t(gridDim.x) * (blockDim.x / 32);
    bool const symmetric = g.out_ptr == g.in_ptr;
    unsigned long long found_n = 0, out_e = 0, in_e = 0;
    for (std::int64_t w = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; w < words;
         w += stride) {
        std::uint32_t const seen = s.visited[w];
        std::int64_t const v = w * 32 + lane;
        bool found = false;
        Index par = 0;
        if (v < g.n && !((seen >> lane) & 1u)) {
            Index const e = g.in_ptr[v + 1];
            found = first_in_frontier(g.in_col, front, g.in_ptr[v], e, par);
            if (found) {
                auto const din = static_cast<unsigned long long>(e - g.in_ptr[v]);
                ++found_n;
                in_e += din;
                out_e += symmetric
                             ? din
                             : static_cast<unsigned long long>(g.out_ptr[v + 1] - g.out_ptr[v]);
                s.level[v] = next_level;
                if (s.parent) s.parent[v] = par;
            }
        }
        std::uint32_t const got = __ballot_sync(0xffffffffu, found);
        if (lane == 0) {
            next_front[w] = got;
            if (got) s.visited[w] = seen | got;
        }
    }
    add_block_counts(ctr, found_n, out_e, in_e);
}

/// Where the levels and parents go: the caller's device arrays (int64, n each; parent may be null),
/// or, when level is null, run.level and run.parent on the host.
struct device_out {
    std::int64_t* level = nullptr;
    std::int64_t* parent = nullptr;
    /// The call's context: host results go through its page-locked buffers (result_copy.hpp).
    context* ctx = nullptr;
    /// Host vectors whose storage the host results take (bfs(run, ...)), when not null.
    vector_for_overwrite<std::int64_t>* keep_level = nullptr;
    vector_for_overwrite<std::int64_t>* keep_parent = nullptr;
};

/// The whole search in one cooperative kernel on stream st (graph_bfs_loop.cu); fills run.level,
/// run.parent, run.step_was_pull and run.seconds. Returns false, having done nothing, when the
/// device cannot launch cooperative kernels (the caller runs the host loop).
template <class Index>
bool bfs_device_loop(bfs_graph<Index> const& g, std::size_t in_edges_total, std::size_t source,
                     bool parents, bfs_tuning const& tuning, bfs_run& run, device_out const& out,
                     ::kleene::cuda::detail::device_stream st);

/// The device level and parent arrays, widened to int64 (-1 where unreached), into out's device
/// arrays or else into run's host vectors, after the work queued on st; run.levels either way.
template <class Index>
void read_back(std::int32_t const* level, Index const* parent, std::size_t n, bfs_run& run,
               device_out const& out, ::kleene::cuda::detail::device_stream st);

}  // namespace kleene::cuda::bfs_detail
