// Direction-optimising BFS on the GPU (graph.hpp). Push steps expand a frontier queue over its
// edges in equal tiles (CUB scan of the degrees, a binary search per edge) and claim vertices with
// atomicCAS on their level; pull steps give each unvisited vertex a thread that scans its
// in-neighbours (rows of the transpose) and stops at the first one in the frontier bitmap. Beamer's
// rule picks the direction per level; the host reads three counters per push level, nothing
// else. Pull levels go in gated batches (pull_gate): the device applies the rule between them and
// the host reads the batch's counters once.
//
// Small frontiers (the first levels from most sources, the tail of every search) run in one
// block that expands level after level without returning to the host, until the frontier
// outgrows its shared-memory offsets or turns big enough to pull: per-level launches and host
// round trips otherwise dominate a search that takes a fraction of a millisecond.
//
// A push step leaves the next frontier as a queue (with the vertices' out-degrees, ready for the
// next scan); a pull step leaves it as a bitmap. Switching converts: queue -> bitmap by a scatter,
// bitmap -> queue by a scan of the words' populations. Counters are summed per block before their
// one atomic each: a pull step over millions of vertices would otherwise queue millions of
// same-address atomics.
//
// This host-driven loop runs forced push or pull searches (bfs_tuning::loop), stands in for the
// device loop (graph_bfs_loop.cu: the same levels in one cooperative kernel) where cooperative
// launch is missing, and is the reference the device loop is tested against.
//
// Both loops run on the context's stream.

#include "graph_async.cuh"
#include "graph_bfs_block.cuh"
#include "graph_bfs_common.cuh"

#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/algorithms/cuda/graph.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/result_copy.hpp>
#include <kleene/cuda/stream.hpp>
#include <kleene/error.hpp>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kleene::cuda {
namespace {

using bfs_detail::add_block_counts;
using bfs_detail::bfs_graph;
using bfs_detail::bfs_state;
using bfs_detail::counters;
using bfs_detail::pull_gives_way;

constexpr int threads = 256;
constexpr int push_items = 8;

/// Pull steps are enqueued in batches without a host round trip between them; step j of a batch
/// runs only if step j - 1 ran and Beamer's rule, evaluated on the device from the counters
/// exactly as the host evaluates it, still says pull. The first step of a batch has no gate.
struct pull_gate {
    counters const* last;       // step j - 1 of the batch; nullptr for the first step
    counters const* before;     // step j - 2; nullptr when j < 2 (then `frontier0` is used)
    unsigned long long frontier0;  // the frontier the batch started from
    double min_frontier;        // pull -> push below this frontier (n / beta); < 0: never
};

__device__ __forceinline__ bool pull_gate_open(pull_gate const& g) {
    if (!g.last) return true;
    if (!g.last->ran) return false;
    unsigned long long const f = g.last->found;
    unsigned long long const previous = g.before ? g.before->found : g.frontier0;
    return f > 0 && !pull_gives_way(f, previous, g.min_frontier);
}

/// The source as a one-vertex frontier; both counter sets zero.
template <class Index>
__global__ void bfs_init(bfs_graph<Index> g, bfs_state<Index> s, Index source, Index* queue,
                         std::int64_t* deg, counters* ctr, std::int64_t* offs) {
    s.level[source] = 0;
    if (s.parent) s.parent[source] = source;
    s.visited[source >> 5] = 1u << (source & 31);
    queue[0] = source;
    deg[0] = g.out_ptr[source + 1] - g.out_ptr[source];
    ctr[0] = ctr[1] = counters{0, 0, 0, 0};
    offs[0] = 0;  // the scans write offs[1..]; offs[0] stays 0
}

/// Counters are double-buffered: a step counts into *ctr and clears *clear for the next step (the
/// host swaps the pair), which saves a memset per level.
template <class Index>
__global__ void __launch_bounds__(threads)
    bfs_push(bfs_graph<Index> g, bfs_state<Index> s, Index const* __restrict__ queue,
             std::int64_t const* __restrict__ offs, std::int64_t count, std::int32_t next_level,
             Index* __restrict__ next_queue, std::int64_t* __restrict__ next_deg, counters* ctr,
             counters* clear) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *clear = counters{0, 0, 0, 0};
    unsigned long long out_e = 0, in_e = 0;
    detail::for_each_frontier_edge<threads, push_items>(
        offs, count, [&](std::int64_t k, std::int64_t r) {
            Index const u = queue[k];
            Index const v = g.out_col[g.out_ptr[u] + Index(r)];
            std::uint32_t const bit = 1u << (v & 31);
            if (s.visited[v >> 5] & bit) return;
            if (atomicCAS(&s.level[v], -1, next_level) != -1) return;
            atomicOr(&s.visited[v >> 5], bit);
            if (s.parent) s.parent[v] = u;
            auto const slot = detail::aggregated_slot(&ctr->found);
            auto const dout = static_cast<std::int64_t>(g.out_ptr[v + 1] - g.out_ptr[v]);
            next_queue[slot] = v;
            next_deg[slot] = dout;
            out_e += static_cast<unsigned long long>(dout);
            in_e += static_cast<unsigned long long>(g.in_ptr[v + 1] - g.in_ptr[v]);
        });
    add_block_counts(ctr, 0, out_e, in_e);
}

/// A pull step (bfs_detail::pull_words) behind its gate. Counts into *ctr, which the host zeroed
/// with the batch.
template <class Index>
__global__ void __launch_bounds__(threads)
    bfs_pull(bfs_graph<Index> g, bfs_state<Index> s, std::uint32_t const* __restrict__ front,
             std::uint32_t* __restrict__ next_front, std::int32_t next_level, counters* ctr,
             pull_gate gate) {
    if (!pull_gate_open(gate)) return;  // the same verdict in every block
    if (blockIdx.x == 0 && threadIdx.x == 0) ctr->ran = 1;
    bfs_detail::pull_words(g, s, front, next_front, next_level, ctr);
}

/// Bitmap -> queue: word w's vertices go to queue[offs[w] ...] in order, with their out-degrees.
__global__ void word_population(std::uint32_t const* __restrict__ bits, std::int64_t words,
                                std::int64_t* __restrict__ pop) {
    for (std::int64_t w = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; w < words;
         w += std::int64_t(gridDim.x) * blockDim.x)
        pop[w] = __popc(bits[w]);
}
template <class Index>
__global__ void bitmap_to_queue(bfs_graph<Index> g, std::uint32_t const* __restrict__ bits,
                                std::int64_t words, std::int64_t const* __restrict__ offs,
                                Index* __restrict__ queue, std::int64_t* __restrict__ deg) {
    for (std::int64_t w = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; w < words;
         w += std::int64_t(gridDim.x) * blockDim.x) {
        std::uint32_t b = bits[w];
        std::int64_t pos = offs[w];
        while (b) {
            int const bit = __ffs(b) - 1;
            b &= b - 1;
            auto const v = static_cast<Index>(w * 32 + bit);
            queue[pos] = v;
            deg[pos] = g.out_ptr[v + 1] - g.out_ptr[v];
            ++pos;
        }
    }
}

template <class Index>
__global__ void queue_to_bitmap(Index const* __restrict__ queue, std::int64_t count,
                                std::uint32_t* __restrict__ bits) {
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < count;
         k += std::int64_t(gridDim.x) * blockDim.x) {
        Index const v = queue[k];
        atomicOr(&bits[v >> 5], 1u << (v & 31));
    }
}

constexpr int small_threads = 1024;
constexpr int small_cap = 4096;              // frontier vertices whose offsets fit shared memory
constexpr std::int64_t small_edges = 65536;  // edges of one level the single block expands

struct small_state {
    unsigned long long count;       // the frontier handed back
    unsigned long long edges;       // its out-edges
    unsigned long long visited_in;  // in-edges of the visited vertices
    unsigned long long previous;    // the frontier before it
    int levels;                     // levels expanded
    int parity;                     // the frontier is in queue a (0) or b (1)
};

/// Push levels in one block while the frontier stays small (see the top of the file), starting
/// from the `count` vertices in qa (at level `depth`); alpha <= 0: never hand back for a pull
/// (forced push). At depth 0 the source's in-edges join visited_in here.
template <class Index>
__global__ void __launch_bounds__(small_threads)
    bfs_small(bfs_graph<Index> g, bfs_state<Index> s, Index* qa, std::int64_t* da, Index* qb,
              std::int64_t* db, std::int32_t depth, std::int64_t count,
              unsigned long long visited_in, unsigned long long in_total, double alpha,
              small_state* st) {
    constexpr int per = small_cap / small_threads;
    using scan = cub::BlockScan<std::int64_t, small_threads>;
    using reduce = cub::BlockReduce<unsigned long long, small_threads>;
    __shared__ union {
        typename scan::TempStorage scan;
        typename reduce::TempStorage reduce;
    } tmp;
    __shared__ std::int64_t offs[small_cap + 1];
    __shared__ unsigned long long next_count, level_in, total;
    __shared__ int stop;
    int const t = static_cast<int>(threadIdx.x);
    Index* cur = qa;
    Index* nxt = qb;
    std::int64_t* cur_deg = da;
    std::int64_t* nxt_deg = db;
    std::int64_t f = count;
    std::int64_t previous = 0;
    if (depth == 0)
        visited_in += static_cast<unsigned long long>(g.in_ptr[qa[0] + 1] - g.in_ptr[qa[0]]);
    int levels = 0;
    while (f > 0) {
        unsigned long long mine = 0;
        for (std::int64_t k = t; k < f; k += small_threads)
            mine += static_cast<unsigned long long>(cur_deg[k]);
        unsigned long long const sum = reduce(tmp.reduce).Sum(mine);
        if (t == 0) {
            total = sum;
            stop = f > small_cap || std::int64_t(sum) > small_edges ||
                   (alpha > 0 &&
                    beamer::pull_pays(double(sum), double(in_total - visited_in), alpha));
            next_count = 0;
        }
        __syncthreads();
        if (stop) break;
        auto const edges = static_cast<std::int64_t>(total);
        std::int64_t in[per], out[per];
#pragma unroll
        for (int i = 0; i < per; ++i) {
            std::int64_t const k = std::int64_t(t) * per + i;
            in[i] = k < f ? cur_deg[k] : 0;
        }
        scan(tmp.scan).ExclusiveSum(in, out);
#pragma unroll
        for (int i = 0; i < per; ++i) offs[t * per + i] = out[i];
        if (t == 0) offs[small_cap] = 0;
        __syncthreads();
        if (t == 0) offs[f] = edges;
        __syncthreads();
        unsigned long long in_mine = 0;
        for (std::int64_t e = t; e < edges; e += small_threads) {
            std::int64_t const k = detail::last_at_most(offs, 0, f - 1, e);
            Index const u = cur[k];
            Index const v = g.out_col[g.out_ptr[u] + Index(e - offs[k])];
            std::uint32_t const bit = 1u << (v & 31);
            if (s.visited[v >> 5] & bit) continue;
            if (atomicCAS(&s.level[v], -1, depth + 1) != -1) continue;
            atomicOr(&s.visited[v >> 5], bit);
            if (s.parent) s.parent[v] = u;
            unsigned long long const slot = detail::aggregated_slot(&next_count);
            nxt[slot] = v;
            nxt_deg[slot] = g.out_ptr[v + 1] - g.out_ptr[v];
            in_mine += static_cast<unsigned long long>(g.in_ptr[v + 1] - g.in_ptr[v]);
        }
        __syncthreads();  // tmp: the scan is done with it
        unsigned long long const in_sum = reduce(tmp.reduce).Sum(in_mine);
        if (t == 0) level_in = in_sum;
        __syncthreads();
        visited_in += level_in;
        previous = f;
        f = static_cast<std::int64_t>(next_count);
        ++depth;
        ++levels;
        Index* const q = cur;
        cur = nxt;
        nxt = q;
        std::int64_t* const d = cur_deg;
        cur_deg = nxt_deg;
        nxt_deg = d;
        __syncthreads();  // everyone has read next_count before it is reset
    }
    if (t == 0) {
        st->count = static_cast<unsigned long long>(f);
        st->edges = f > 0 ? total : 0;
        st->visited_in = visited_in;
        st->previous = static_cast<unsigned long long>(previous);
        st->levels = levels;
        st->parity = cur == qa ? 0 : 1;
    }
}

template <class Index>
bfs_run bfs_host_loop(bfs_graph<Index> const& g, std::size_t in_edges_total, std::size_t source,
                      bool parents, bfs_tuning const& tuning, bfs_detail::device_out const& out,
                      ::kleene::cuda::detail::device_stream st) {
    using detail::stream_buffer;
    std::size_t const n = static_cast<std::size_t>(g.n);
    std::size_t const words = (n + 31) / 32;
    stream_buffer<std::int32_t> level(n, st);
    stream_buffer<Index> parent(parents ? n : 0, st);
    stream_buffer<std::uint32_t> visited(words, st),
        front[2] = {stream_buffer<std::uint32_t>(words, st),
                    stream_buffer<std::uint32_t>(words, st)};
    stream_buffer<Index> queue[2] = {stream_buffer<Index>(n, st), stream_buffer<Index>(n, st)};
    stream_buffer<std::int64_t> deg[2] = {stream_buffer<std::int64_t>(n, st),
                                          stream_buffer<std::int64_t>(n, st)};
    stream_buffer<std::int64_t> offs(n + 1, st), pop(words, st);
    stream_buffer<counters> ctr(2, st);
    // Kronecker graphs pull for 3-5 levels; a step whose gate is closed costs one launch of
    // blocks that return at once.
    int const pull_batch = tuning.pull_batch;
    stream_buffer<counters> pull_ctr{static_cast<std::size_t>(pull_batch), st};
    stream_buffer<small_state> small(1, st);
    // What the host reads each level, in the context's page-locked block (pinned_scratch: a
    // faster copy than pageable memory, and no cudaMallocHost / cudaFreeHost a call): the
    // counters, the small state and the pull batch's counters, each 64-byte aligned.
    auto const aligned = [](std::size_t bytes) { return (bytes + 63) / 64 * 64; };
    std::size_t const ctr_bytes = aligned(sizeof(counters));
    std::size_t const small_bytes = aligned(sizeof(small_state));
    auto* const host_block = static_cast<char*>(::kleene::cuda::detail::pinned_scratch(
        *out.ctx, ctr_bytes + small_bytes + aligned(sizeof(counters) * std::size_t(pull_batch))));
    auto* const host_ctr = reinterpret_cast<counters*>(host_block);
    auto* const host_small = reinterpret_cast<small_state*>(host_block + ctr_bytes);
    auto* const host_pull = reinterpret_cast<counters*>(host_block + ctr_bytes + small_bytes);
    std::size_t scan_bytes = 0;
    KLEENE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, deg[0].data(),
                                                    offs.data() + 1, static_cast<std::int64_t>(n),
                                                    st));
    stream_buffer<unsigned char> scan_temp(scan_bytes, st);
    bfs_state<Index> const s{level.data(), parents ? parent.data() : nullptr, visited.data()};
    // offs[1..count] = inclusive sums of in[0..count); offs[0] = 0 from bfs_init.
    auto offsets = [&](std::int64_t const* in, std::int64_t count) {
        KLEENE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(scan_temp.data(), scan_bytes, in,
                                                        offs.data() + 1, count, st));
    };
    int counter = 0;  // the counter set the next step fills; the step clears the other one

    event start(true), stop(true);  // cuda/stream.hpp; recorded on st
    bfs_run run;
    KLEENE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(start.native()), st));
    KLEENE_CUDA_CHECK(cudaMemsetAsync(level.data(), 0xff, n * sizeof(std::int32_t), st));
    if (parents) KLEENE_CUDA_CHECK(cudaMemsetAsync(parent.data(), 0xff, n * sizeof(Index), st));
    KLEENE_CUDA_CHECK(cudaMemsetAsync(visited.data(), 0, words * sizeof(std::uint32_t), st));
    bfs_init<Index><<<1, 1, 0, st>>>(g, s, static_cast<Index>(source), queue[0].data(),
                                     deg[0].data(), ctr.data(), offs.data());
    KLEENE_CUDA_CHECK_LAUNCH("bfs_init");
    std::int64_t frontier = 1, previous = 0;
    // The source's degrees are not read back: the first (single-block) step reports them.
    unsigned long long frontier_edges = 0, visited_in = 0;
    bool edges_known = false;
    bool const automatic = tuning.direction == bfs_direction::automatic;
    bool pull = tuning.direction == bfs_direction::pull;
    bool have_queue = true, have_bitmap = false;  // forms of the current frontier at hand
    bool small_declined = false;
    int cur = 0;
    std::int32_t depth = 0;
    // One full step done: its counters become the frontier; the next frontier buffer is current.
    auto advance = [&](counters const& c, bool pulled) {
        run.step_was_pull.push_back(pulled ? 1 : 0);
        previous = frontier;
        frontier = static_cast<std::int64_t>(c.found);
        frontier_edges = c.out_edges;
        visited_in += c.in_edges;
        cur = 1 - cur;
        ++depth;
    };
    while (frontier > 0) {
        if (automatic && edges_known) {
            pull = bfs_detail::next_pulls(pull, static_cast<unsigned long long>(frontier),
                                          static_cast<unsigned long long>(previous),
                                          frontier_edges, in_edges_total, visited_in,
                                          tuning.alpha, double(n) / tuning.beta);
        }
        if (!pull && !have_queue) {  // after a pull: the frontier bitmap becomes a queue
            unsigned const wb = detail::blocks_for(words, threads);
            word_population<<<wb, threads, 0, st>>>(front[cur].data(), std::int64_t(words),
                                                    pop.data());
            KLEENE_CUDA_CHECK_LAUNCH("word_population");
            offsets(pop.data(), std::int64_t(words));
            bitmap_to_queue<Index><<<wb, threads, 0, st>>>(g, front[cur].data(),
                                                           std::int64_t(words), offs.data(),
                                                           queue[cur].data(), deg[cur].data());
            KLEENE_CUDA_CHECK_LAUNCH("bitmap_to_queue");
            have_queue = true;
        }
        if (!pull && !small_declined && frontier <= small_cap &&
            (!edges_known || std::int64_t(frontier_edges) <= small_edges)) {
            bfs_small<Index><<<1, small_threads, 0, st>>>(
                g, s, queue[cur].data(), deg[cur].data(), queue[1 - cur].data(),
                deg[1 - cur].data(), depth, frontier, visited_in, in_edges_total,
                automatic ? tuning.alpha : 0.0, small.data());
            KLEENE_CUDA_CHECK_LAUNCH("bfs_small");
            KLEENE_CUDA_CHECK(cudaMemcpyAsync(host_small, small.data(), sizeof(small_state),
                                              cudaMemcpyDeviceToHost, st));
            KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
            small_state const st = *host_small;
            frontier_edges = st.edges;
            visited_in = st.visited_in;
            edges_known = true;
            if (st.levels > 0) {
                run.step_was_pull.insert(run.step_was_pull.end(), std::size_t(st.levels), char(0));
                depth += st.levels;
                if (st.parity) cur = 1 - cur;
                previous = static_cast<std::int64_t>(st.previous);
                frontier = static_cast<std::int64_t>(st.count);
                have_bitmap = false;
            } else {
                small_declined = true;  // it handed this frontier back: a full step takes it
            }
            continue;
        }
        int const nxt = 1 - cur;
        if (pull) {
            if (!have_bitmap) {
                KLEENE_CUDA_CHECK(
                    cudaMemsetAsync(front[cur].data(), 0, words * sizeof(std::uint32_t), st));
                queue_to_bitmap<Index>
                    <<<detail::blocks_for(std::size_t(frontier), threads), threads, 0, st>>>(
                        queue[cur].data(), frontier, front[cur].data());
                KLEENE_CUDA_CHECK_LAUNCH("queue_to_bitmap");
            }
            // A batch of gated pull steps, then one read-back of all their counters.
            KLEENE_CUDA_CHECK(cudaMemsetAsync(pull_ctr.data(), 0,
                                              std::size_t(pull_batch) * sizeof(counters), st));
            double const min_frontier = automatic ? double(n) / tuning.beta : -1.0;
            for (int j = 0; j < pull_batch; ++j) {
                pull_gate const gate{j > 0 ? pull_ctr.data() + j - 1 : nullptr,
                                     j > 1 ? pull_ctr.data() + j - 2 : nullptr,
                                     static_cast<unsigned long long>(frontier), min_frontier};
                bfs_pull<Index><<<detail::persistent_blocks(16), threads, 0, st>>>(
                    g, s, front[(cur + j) % 2].data(), front[(cur + j + 1) % 2].data(),
                    depth + 1 + j, pull_ctr.data() + j, gate);
                KLEENE_CUDA_CHECK_LAUNCH("bfs_pull");
            }
            KLEENE_CUDA_CHECK(cudaMemcpyAsync(host_pull, pull_ctr.data(),
                                              std::size_t(pull_batch) * sizeof(counters),
                                              cudaMemcpyDeviceToHost, st));
            KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
            for (int j = 0; j < pull_batch && host_pull[j].ran; ++j)
                advance(host_pull[j], true);
            small_declined = false;
            have_bitmap = true;
            have_queue = false;
            continue;
        }
        counters* const count_into = ctr.data() + counter;
        counters* const clear = ctr.data() + (1 - counter);
        // (A frontier without out-edges launches nothing: the step finds nothing, and the
        // counters, still zero, say so.)
        if (frontier_edges > 0) {
            offsets(deg[cur].data(), frontier);
            unsigned const blocks = detail::blocks_for(frontier_edges, threads * push_items,
                                                       detail::persistent_blocks(32));
            bfs_push<Index><<<blocks, threads, 0, st>>>(g, s, queue[cur].data(), offs.data(),
                                                        frontier, depth + 1, queue[nxt].data(),
                                                        deg[nxt].data(), count_into, clear);
            KLEENE_CUDA_CHECK_LAUNCH("bfs_push");
        }
        have_queue = true;
        have_bitmap = false;
        KLEENE_CUDA_CHECK(cudaMemcpyAsync(host_ctr, count_into, sizeof(counters),
                                          cudaMemcpyDeviceToHost, st));
        KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
        if (frontier_edges > 0) counter = 1 - counter;  // the kernel ran and cleared the other set
        small_declined = false;
        advance(*host_ctr, false);
    }
    KLEENE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(stop.native()), st));
    stop.synchronize();
    float const ms = event::elapsed_ms(start, stop);
    run.seconds = double(ms) / 1000.0;

    bfs_detail::read_back(level.data(), parents ? parent.data() : nullptr, n, run, out, st);
    return run;
}

/// Parents from the levels: v's parent is an in-neighbour one level up (any such one; a race of
/// plain writes of valid values); the source is its own. Unreached levels stay at the work list's
/// infinity, which read_back's widening turns into -1.
template <class Index>
__global__ void parents_from_levels(Index const* __restrict__ ptr, Index const* __restrict__ col,
                                    std::int32_t const* __restrict__ level, std::int64_t n,
                                    Index source, Index* parent) {
    std::int64_t const stride = std::int64_t(gridDim.x) * blockDim.x;
    for (std::int64_t u = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; u < n;
         u += stride) {
        std::int32_t const lu = level[u];
        if (lu == std::numeric_limits<std::int32_t>::max()) continue;
        if (u == std::int64_t(source)) parent[u] = source;
        for (Index k = ptr[u]; k < ptr[u + 1]; ++k) {
            Index const v = col[k];
            if (level[v] == lu + 1) parent[v] = static_cast<Index>(u);
        }
    }
}

/// The work list's levels into run: the parents from the levels, the copy back. False when the
/// list overflowed (run.notes says so).
template <class Index>
bool finish_async(bfs_graph<Index> const& g, std::size_t source, bool parents, bfs_run& run,
                  bfs_detail::device_out const& out, ::kleene::cuda::detail::device_stream st,
                  cuda::detail::stream_buffer<std::int32_t>& level,
                  cuda::detail::stream_buffer<Index>& parent,
                  async_detail::async_outcome const& listed, double before) {
    std::size_t const n = static_cast<std::size_t>(g.n);
    run.notes.push_back("bfs: " + listed.note(g.n));
    if (!listed.finished) return false;
    event start(true), stop(true);
    KLEENE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(start.native()), st));
    if (parents) {
        KLEENE_CUDA_CHECK(cudaMemsetAsync(parent.data(), 0xff, n * sizeof(Index), st));
        parents_from_levels<Index><<<detail::blocks_for(n, threads, 4096), threads, 0, st>>>(
            g.out_ptr, g.out_col, level.data(), g.n, static_cast<Index>(source), parent.data());
        KLEENE_CUDA_CHECK_LAUNCH("parents_from_levels");
    }
    KLEENE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(stop.native()), st));
    bfs_detail::read_back(level.data(), parents ? parent.data() : nullptr, n, run, out, st);
    double const after = double(event::elapsed_ms(start, stop)) / 1000.0;
    run.seconds = before + listed.seconds + after;
    if (parents) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "bfs: parents from the levels %.3f ms", after * 1e3);
        run.notes.push_back(buf);
    }
    run.async = true;
    return true;
}

/// Shared memory of bfs_one_block for n vertices and a queue of qcap vertices a level.
template <class Index>
std::size_t block_bytes(std::int64_t n, long long qcap) {
    return static_cast<std::size_t>((n + 31) / 32) * sizeof(std::uint32_t) +
           2 * static_cast<std::size_t>(qcap) * sizeof(Index);
}

/// After the block handed over (o): the levels in a thread-block cluster (bfs_cluster), where
/// tuning asks for one and the device can run it; their levels and parents written from the
/// blocks' parts (finish_cluster), a level it hands over to the work list into order after the
/// block's. False (o unchanged) where no cluster ran; else o is the cluster's outcome (handed over
/// to the work list or not) and seconds includes its time.
template <class Index>
bool run_cluster(bfs_graph<Index> const& g, bool parents, bfs_tuning const& tuning, bfs_run& run,
                 ::kleene::cuda::detail::device_stream st,
                 cuda::detail::stream_buffer<Index>& order,
                 cuda::detail::stream_buffer<Index>& order_parent,
                 cuda::detail::stream_buffer<long long>& starts, std::int32_t* level,
                 Index* parent, bfs_block_detail::block_outcome& o, double& seconds,
                 int device, std::size_t room) {
    namespace bb = bfs_block_detail;
    int const C = tuning.async_cluster_blocks;
    if (C == 0) return false;
    std::size_t const n = static_cast<std::size_t>(g.n);
    int major = 0;
    KLEENE_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    auto decline = [&](std::string const& why) {
        run.notes.push_back("bfs: no thread-block cluster after the block: " + why);
        return false;
    };
    if (major < 9) return decline("the device's compute capability is below 9.0");
    long long qcap = 0;
    if (bb::cluster_bytes(g.n, C, 0, sizeof(Index)) < room)
        qcap = static_cast<long long>((room - bb::cluster_bytes(g.n, C, 0, sizeof(Index))) /
                                      (4 * sizeof(Index)));
    qcap = std::min<long long>(qcap, 1ll << 20);
    if (tuning.async_cluster_queue > 0) qcap = std::min(qcap, tuning.async_cluster_queue);
    if (qcap < o.frontier)
        return decline("a block's queue holds " + std::to_string(qcap) + " vertices, the frontier " +
                       std::to_string(o.frontier));
    auto const kernel = bb::bfs_cluster<Index>;
    KLEENE_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    KLEENE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(room)));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(static_cast<unsigned>(C));
    cfg.blockDim = dim3(bb::block_threads);
    cfg.dynamicSmemBytes = bb::cluster_bytes(g.n, C, qcap, sizeof(Index));
    cfg.stream = st;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = static_cast<unsigned>(C);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int fits = 0;
    if (cudaOccupancyMaxActiveClusters(&fits, kernel, &cfg) != cudaSuccess || fits < 1) {
        (void)cudaGetLastError();
        return decline("a cluster of " + std::to_string(C) + " blocks cannot be scheduled");
    }
    // Each block's part of the levels it expands, and the spill past the owners' queues.
    std::int64_t const part = bb::cluster_part(g.n, C);
    cuda::detail::stream_buffer<Index> part_v(C * part, st), part_p(parents ? C * part : 0, st);
    cuda::detail::stream_buffer<std::int32_t> part_l(C * part, st);
    cuda::detail::stream_buffer<int> part_count(C, st);
    bb::cluster_parts<Index> const parts{part_v.data(), parents ? part_p.data() : nullptr,
                                         part_l.data(), part_count.data(), part};
    cuda::detail::stream_buffer<bb::queued_vertex<Index>> spill(n, st);
    cuda::detail::stream_buffer<unsigned long long> spill_count(1, st);
    cuda::detail::stream_buffer<bb::block_outcome> outcome(1, st);
    event start(true), stop(true);
    KLEENE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(start.native()), st));
    KLEENE_CUDA_CHECK(cudaMemsetAsync(spill_count.data(), 0, sizeof(unsigned long long), st));
    KLEENE_CUDA_CHECK(cudaLaunchKernelEx(
        &cfg, kernel, g.out_ptr, g.out_col, g.n, order.data(),
        parents ? order_parent.data() : static_cast<Index*>(nullptr),
        static_cast<long long const*>(starts.data()), parts, spill.data(), spill_count.data(),
        o.levels, o.frontier, static_cast<int>(qcap), tuning.async_cluster_frontier,
        outcome.data()));
    KLEENE_CUDA_CHECK_LAUNCH("bfs_cluster");
    // The cluster's levels and parents (and the level it handed over, if it did).
    bb::finish_cluster<Index><<<detail::blocks_for(n, threads, 4096), threads, 0, st>>>(
        parts, C, order.data(), parents ? order_parent.data() : nullptr, outcome.data(), level,
        parent);
    KLEENE_CUDA_CHECK_LAUNCH("bfs_finish_cluster");
    KLEENE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(stop.native()), st));
    bb::block_outcome c{};
    detail::copy_to_host(&c, outcome.data(), 1, st);
    double const cluster_seconds = double(event::elapsed_ms(start, stop)) / 1000.0;
    seconds += cluster_seconds;
    run.cluster = true;
    char buf[400];
    if (!c.handed_over)
        std::snprintf(buf, sizeof buf,
                      "bfs: then levels %d to %d in a thread-block cluster of %d blocks (the "
                      "visited bits spread over their shared memory; the largest level %lld "
                      "vertices): %.3f ms",
                      o.levels, c.levels - 1, C, c.largest, cluster_seconds * 1e3);
    else
        std::snprintf(buf, sizeof buf,
                      "bfs: then levels %d to %d in a thread-block cluster of %d blocks (%.3f "
                      "ms), then level %d's %lld vertices to the work list (%s)",
                      o.levels, c.levels - 1, C, cluster_seconds * 1e3, c.levels, c.frontier,
                      c.frontier > tuning.async_cluster_frontier && tuning.async_cluster_frontier > 0
                          ? "more than async_cluster_frontier"
                          : "past a block's queue");
    run.notes.push_back(buf);
    o = c;
    return true;
}

/// BFS on the asynchronous work list (graph_async.cuh): levels are distances of unit weights.
/// Its first levels run in one block while they hold at most tuning.async_block_frontier
/// vertices and take at most async_block_level_us on average (graph_bfs_block.cuh): the whole
/// search, when neither limit is reached. False, with a
/// note in run, when the list overflowed (the caller runs the device loop).
template <class Index>
bool bfs_async(bfs_graph<Index> const& g, std::size_t source, bool parents,
               bfs_tuning const& tuning, bfs_run& run, bfs_detail::device_out const& out,
               ::kleene::cuda::detail::device_stream st) {
    using cuda::detail::stream_buffer;
    namespace bb = bfs_block_detail;
    std::size_t const n = static_cast<std::size_t>(g.n);
    stream_buffer<std::int32_t> level(n, st);
    stream_buffer<Index> parent(parents ? n : 0, st);
    // The first levels in one block, where its visited bits and a queue of at least 1024
    // vertices a level fit the multiprocessor's shared memory.
    int device = 0, optin = 0, clock_khz = 0;
    KLEENE_CUDA_CHECK(cudaGetDevice(&device));
    KLEENE_CUDA_CHECK(
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    KLEENE_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
    // The mean level time the block may take, in its clock's cycles (at least 1 where asked).
    long long const level_cycles =
        tuning.async_block_level_us > 0
            ? std::max(1ll, static_cast<long long>(tuning.async_block_level_us * clock_khz / 1e3))
            : 0;
    std::size_t const room = optin > 1024 ? static_cast<std::size_t>(optin) - 1024 : 0;
    long long qcap = 0;
    if (tuning.async_block_frontier > 0 && block_bytes<Index>(g.n, 1024) <= room)
        qcap = static_cast<long long>((room - block_bytes<Index>(g.n, 0)) / (2 * sizeof(Index)));
    qcap = std::min<long long>(qcap, 1ll << 20);
    // The block's order of the vertices it reaches (its queues past shared memory read it back),
    // and their parents; the frontier it hands to the work list, whose first kernel reads it, is
    // its tail: they live as long as the search.
    stream_buffer<Index> order(qcap > 0 ? n : 0, st), order_parent(qcap > 0 && parents ? n : 0, st);
    stream_buffer<long long> starts(qcap > 0 ? n + 2 : 0, st);
    async_detail::async_seed<std::int32_t, Index> seed;  // none: the work list from the source
    double block_seconds = 0;
    if (qcap > 0) {
        stream_buffer<bb::block_outcome> outcome(1, st);
        // The kernel's limit is the device's room, not this graph's bytes: the attribute belongs
        // to the function, and two searches of graphs of different sizes on two threads would
        // otherwise set it under each other's launches.
        KLEENE_CUDA_CHECK(cudaFuncSetAttribute(bb::bfs_one_block<Index>,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(room)));
        event start(true), stop(true);
        KLEENE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(start.native()), st));
        detail::fill(level.data(), n, std::numeric_limits<std::int32_t>::max(), st);
        if (parents)
            KLEENE_CUDA_CHECK(cudaMemsetAsync(parent.data(), 0xff, n * sizeof(Index), st));
        bb::bfs_one_block<Index><<<1, bb::block_threads, block_bytes<Index>(g.n, qcap), st>>>(
            g.out_ptr, g.out_col, g.n, static_cast<Index>(source), order.data(),
            parents ? order_parent.data() : nullptr, starts.data(), static_cast<int>(qcap),
            tuning.async_block_frontier, level_cycles, outcome.data());
        KLEENE_CUDA_CHECK_LAUNCH("bfs_one_block");
        // Its levels (the handed-over frontier's too) and parents, over the device: the block
        // reaches at most n vertices.
        bb::finish_levels<Index><<<detail::blocks_for(n, threads, 4096), threads, 0, st>>>(
            order.data(), parents ? order_parent.data() : nullptr, starts.data(), outcome.data(),
            0, level.data(), parents ? parent.data() : nullptr);
        KLEENE_CUDA_CHECK_LAUNCH("bfs_block_finish_levels");
        KLEENE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(stop.native()), st));
        bb::block_outcome o{};
        detail::copy_to_host(&o, outcome.data(), 1, st);
        block_seconds = double(event::elapsed_ms(start, stop)) / 1000.0;
        run.one_block = true;
        char buf[400];
        if (!o.handed_over) {
            std::snprintf(buf, sizeof buf,
                          "bfs: every level in one block (its visited set a bit a vertex in "
                          "shared memory; the largest level %lld vertices, at most "
                          "async_block_frontier %lld): %d levels, %.3f ms",
                          o.largest, tuning.async_block_frontier, o.levels, block_seconds * 1e3);
            run.notes.push_back(buf);
            bfs_detail::read_back(level.data(), parents ? parent.data() : nullptr, n, run, out,
                                  st);
            run.seconds = block_seconds;
            return true;
        }
        double const mean_us = clock_khz > 0 ? double(o.mean_cycles) * 1e3 / clock_khz : 0;
        if (o.handed_over == 1)
            std::snprintf(buf, sizeof buf,
                          "bfs: the first %d levels in one block (%.3f ms), then level %d's %lld "
                          "vertices, more than async_block_frontier %lld, to the work list",
                          o.levels, block_seconds * 1e3, o.levels, o.frontier,
                          tuning.async_block_frontier);
        else
            std::snprintf(buf, sizeof buf,
                          "bfs: the first %d levels in one block (%.3f ms), then level %d's %lld "
                          "vertices to the work list: the block's levels took %.2f us on "
                          "average, more than async_block_level_us %.2f",
                          o.levels, block_seconds * 1e3, o.levels, o.frontier, mean_us,
                          tuning.async_block_level_us);
        run.notes.push_back(buf);
        if (run_cluster(g, parents, tuning, run, st, order, order_parent, starts, level.data(),
                        parents ? parent.data() : nullptr, o, block_seconds, device, room)) {
            if (!o.handed_over) {
                bfs_detail::read_back(level.data(), parents ? parent.data() : nullptr, n, run,
                                      out, st);
                run.seconds = block_seconds;
                return true;
            }
        }
        // The frontier is the order's tail; the levels so far stay.
        seed.v = order.data() + (o.placed - o.frontier);
        seed.count = o.frontier;
        seed.label = o.levels;
    }
    auto const listed = async_detail::run_async<std::int32_t, Index>(
        g.out_ptr, g.out_col, async_detail::unit_weight<std::int32_t>{}, g.n, level.data(),
        static_cast<Index>(source), tuning.async_warps, tuning.async_poll_ns, tuning.async_keep,
        60.0, "bfs", st, seed);
    return finish_async(g, source, parents, run, out, st, level, parent, listed, block_seconds);
}

}  // namespace

namespace bfs_detail {
/// The levels (and parents) widened to int64 on the device, so that the host's copy lands in the
/// result directly (no temporary, no conversion pass), and the deepest level. An unreached level
/// is -1, or the work list's infinity (graph_async.cuh), which becomes -1 here.
template <class Index>
__global__ void widen_results(std::int32_t const* __restrict__ level,
                              Index const* __restrict__ parent, std::int64_t n,
                              std::int64_t* __restrict__ level64,
                              std::int64_t* __restrict__ parent64, int* deepest) {
    int mine = -1;
    std::int64_t const stride = std::int64_t(gridDim.x) * blockDim.x;
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += stride) {
        std::int32_t const l =
            level[i] == std::numeric_limits<std::int32_t>::max() ? -1 : level[i];
        level64[i] = l;
        if (parent) parent64[i] = static_cast<std::int64_t>(parent[i]);
        mine = max(mine, int(l));
    }
    for (int o = 16; o > 0; o /= 2) mine = max(mine, __shfl_xor_sync(0xffffffffu, mine, o));
    if ((threadIdx.x & 31) == 0 && mine >= 0) atomicMax(deepest, mine);
}

template <class Index>
void read_back(std::int32_t const* level, Index const* parent, std::size_t n, bfs_run& run,
               device_out const& out, ::kleene::cuda::detail::device_stream st) {
    bool const here = out.level == nullptr;  // to the host
    detail::stream_buffer<std::int64_t> level64(here ? n : 0, st),
        parent64(here && parent ? n : 0, st);
    detail::stream_buffer<int> deepest(1, st);
    std::int64_t* const lv = here ? level64.data() : out.level;
    std::int64_t* const pa = here ? parent64.data() : out.parent;
    KLEENE_CUDA_CHECK(cudaMemsetAsync(deepest.data(), 0xff, sizeof(int), st));
    if (n > 0) {
        widen_results<Index><<<detail::blocks_for(n, threads, 4096), threads, 0, st>>>(
            level, pa ? parent : nullptr, static_cast<std::int64_t>(n), lv, pa, deepest.data());
        KLEENE_CUDA_CHECK_LAUNCH("widen_results");
    }
    if (here) {
        // bfs_impl sets out.ctx for every search.
        if (out.keep_level) run.level = std::move(*out.keep_level);
        if (out.keep_parent) run.parent = std::move(*out.keep_parent);
        run.level.resize(n);
        detail::copy_to_host(run.level.data(), level64.data(), n, *out.ctx);
        if (parent) {
            run.parent.resize(n);
            detail::copy_to_host(run.parent.data(), parent64.data(), n, *out.ctx);
        } else {
            run.parent.clear();
        }
    }
    run.levels = static_cast<std::size_t>(detail::read_one(deepest.data(), st) + 1);
}
template void read_back(std::int32_t const*, std::int32_t const*, std::size_t, bfs_run&,
                        device_out const&, ::kleene::cuda::detail::device_stream);
template void read_back(std::int32_t const*, std::int64_t const*, std::size_t, bfs_run&,
                        device_out const&, ::kleene::cuda::detail::device_stream);
}  // namespace bfs_detail

namespace {
template <class T, class Index>
bfs_run bfs_impl(csr_matrix<T, Index, device> const& a, csr_matrix<T, Index, device> const& at,
                 std::size_t source, bool parents, bfs_tuning const& tuning,
                 bfs_detail::device_out const& out_arrays, context& ctx) {
    if (a.rows() != a.cols())
        throw dimension_mismatch("bfs: the adjacency matrix must be square, not " +
                                 kleene::detail::shape(a.rows(), a.cols()));
    if (at.rows() != a.rows() || at.cols() != a.cols() || at.nnz() != a.nnz())
        throw dimension_mismatch("bfs: the transpose is " +
                                 kleene::detail::shape(at.rows(), at.cols()) + " with " +
                                 std::to_string(at.nnz()) + " entries, the graph " +
                                 kleene::detail::shape(a.rows(), a.cols()) + " with " +
                                 std::to_string(a.nnz()) + " entries");
    if (source >= a.rows())
        throw invalid_argument("bfs: source " + std::to_string(source) + " is not a vertex of a " +
                               std::to_string(a.rows()) + "-vertex graph");
    if (!(tuning.alpha > 0) || !(tuning.beta > 0))
        throw invalid_argument("bfs: alpha and beta must be positive");
    if (tuning.pull_batch < 1 || tuning.pull_batch > 64)
        throw invalid_argument("bfs: pull_batch must lie in [1, 64], not " +
                               std::to_string(tuning.pull_batch));
    bfs_graph<Index> const g{a.row_ptr(), a.col_idx(), at.row_ptr(), at.col_idx(),
                             static_cast<std::int64_t>(a.rows())};
    auto const st = ::kleene::cuda::detail::stream_of(ctx);
    bfs_detail::device_out out = out_arrays;
    out.ctx = &ctx;
    if (!(tuning.async_degree >= 0) || tuning.async_warps < 1 || tuning.async_warps > 32 ||
        tuning.async_poll_ns > 1000000 || tuning.async_keep > 32 ||
        tuning.async_block_frontier < 0 ||
        !(tuning.async_block_level_us >= 0 && tuning.async_block_level_us <= 1e6) ||
        !(tuning.async_cluster_blocks == 0 ||
          (tuning.async_cluster_blocks >= 2 && tuning.async_cluster_blocks <= 16 &&
           (tuning.async_cluster_blocks & (tuning.async_cluster_blocks - 1)) == 0)) ||
        tuning.async_cluster_frontier < 0 || tuning.async_cluster_queue < 0)
        throw invalid_argument("bfs: async_degree must be >= 0, async_warps in [1, 32], "
                               "async_poll_ns at most 1e6, async_keep at most 32, "
                               "async_block_frontier >= 0, async_block_level_us in [0, 1e6], "
                               "async_cluster_blocks 0 or a power of two in [2, 16], "
                               "async_cluster_frontier and async_cluster_queue >= 0");
    if (tuning.loop == bfs_loop::async && tuning.direction == bfs_direction::pull)
        throw invalid_argument("bfs: the asynchronous work list pushes only; it cannot pull");
    bfs_run run;
    bool const automatic =
        tuning.loop == bfs_loop::automatic && tuning.direction == bfs_direction::automatic;
    if (tuning.loop == bfs_loop::async ||
        (automatic && a.rows() > 0 &&
         double(a.nnz()) <= tuning.async_degree * double(a.rows()))) {
        if (tuning.loop != bfs_loop::async)
            run.notes.push_back("bfs: " + std::to_string(a.nnz()) + " edges on " +
                                std::to_string(a.rows()) +
                                " vertices, at most async_degree " +
                                std::to_string(tuning.async_degree) +
                                " a vertex: the asynchronous work list (a graph of high diameter "
                                "is likely; a level-synchronous search pays per level)");
        if (bfs_async<Index>(g, source, parents, tuning, run, out, st)) return run;
        run.notes.push_back("bfs: the work list's ring was full; the device loop instead");
    }
    bool const device_loop = tuning.loop == bfs_loop::device || tuning.loop == bfs_loop::async ||
                             automatic;
    if (device_loop &&
        bfs_detail::bfs_device_loop<Index>(g, at.nnz(), source, parents, tuning, run, out, st))
        return run;
    auto notes = std::move(run.notes);
    run = bfs_host_loop<Index>(g, at.nnz(), source, parents, tuning, out, st);
    notes.insert(notes.end(), run.notes.begin(), run.notes.end());
    run.notes = std::move(notes);
    return run;
}
}  // namespace

template <class T, index_type Index>
bfs_run bfs(csr_matrix<T, Index, device> const& a, csr_matrix<T, Index, device> const& at,
            std::size_t source, bool parents, bfs_tuning const& tuning, context& ctx) {
    return bfs_impl(a, at, source, parents, tuning, {}, ctx);
}

template <class T, index_type Index>
void bfs(bfs_run& run, csr_matrix<T, Index, device> const& a,
         csr_matrix<T, Index, device> const& at, std::size_t source, bool parents,
         bfs_tuning const& tuning, context& ctx) {
    auto level = std::move(run.level), parent = std::move(run.parent);
    bfs_detail::device_out out;
    out.keep_level = &level;
    out.keep_parent = &parent;
    run = bfs_impl(a, at, source, parents, tuning, out, ctx);
}

template <class T, index_type Index>
bfs_run bfs(csr_matrix<T, Index, device> const& a, csr_matrix<T, Index, device> const& at,
            std::size_t source, dense_vector<std::int64_t, device>& level,
            dense_vector<std::int64_t, device>* parent, bfs_tuning const& tuning, context& ctx) {
    if (level.size() != a.rows() || (parent && parent->size() != a.rows()))
        throw dimension_mismatch("bfs: the result vectors hold " + std::to_string(level.size()) +
                                 (parent ? " and " + std::to_string(parent->size()) : "") +
                                 " entries, the graph " + std::to_string(a.rows()) +
                                 " vertices");
    bfs_detail::device_out const out{level.data(), parent ? parent->data() : nullptr};
    return bfs_impl(a, at, source, parent != nullptr, tuning, out, ctx);
}

#define KLEENE_BFS(T, Index)                                                               \
    template bfs_run bfs<T, Index>(csr_matrix<T, Index, device> const&,                    \
                                   csr_matrix<T, Index, device> const&, std::size_t, bool, \
                                   bfs_tuning const&, context&);                           \
    template void bfs<T, Index>(bfs_run&, csr_matrix<T, Index, device> const&,             \
                                csr_matrix<T, Index, device> const&, std::size_t, bool,    \
                                bfs_tuning const&, context&);                              \
    template bfs_run bfs<T, Index>(csr_matrix<T, Index, device> const&,                    \
                                   csr_matrix<T, Index, device> const&, std::size_t,       \
                                   dense_vector<std::int64_t, device>&,                    \
                                   dense_vector<std::int64_t, device>*, bfs_tuning const&, \
                                   context&);
#define KLEENE_BFS_BOTH(T) KLEENE_BFS(T, std::int32_t) KLEENE_BFS(T, std::int64_t)
KLEENE_BFS_BOTH(bool)
KLEENE_BFS_BOTH(float)
KLEENE_BFS_BOTH(double)
KLEENE_BFS_BOTH(std::int32_t)
KLEENE_BFS_BOTH(std::int64_t)
#undef KLEENE_BFS_BOTH
#undef KLEENE_BFS

}  // namespace kleene::cuda
