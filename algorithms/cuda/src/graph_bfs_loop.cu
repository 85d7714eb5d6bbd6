// Direction-optimising BFS as one cooperative kernel (graph.hpp, bfs_tuning::loop): every
// block runs the same level loop and applies Beamer's rule to the same counters, read after a grid
// barrier, so a search costs one launch and no host round trip. The host loop (graph_bfs.cu) paid
// a launch per step and a read-back every few levels, which cost more than the edges of a
// scale-22 Kronecker graph take (docs/performance.md, "BFS and SSSP on the GPU").
//
// A level is one of
// - pull: a warp per bitmap word of unvisited vertices (pull_words), one grid barrier;
// - push from a queue of at most loop_threads vertices: every block scans the queue's degrees
//   into shared memory and takes equal tiles of the edges, one barrier;
// - push from a longer queue, or from the bitmap a pull left: per-block sums of the entries and
//   out-degrees (barrier), each block's offsets from the sums of the blocks before it (barrier),
//   equal tiles of the edges (barrier).
// A push appends what it claims to the next queue and sets it in the next bitmap too, so a pull
// can always follow; a pull leaves only the bitmap. Three bitmaps turn in a ring: level d reads
// front[d % 3], writes front[(d + 1) % 3] and clears front[(d + 2) % 3] for the level after.
// Counters turn in a ring of three for the same reason: level d counts into ctr[d % 3] and
// clears ctr[(d + 1) % 3], which every block last read before the barrier that ended level d - 1.
//
// Small push levels (at most block_cap vertices and tuning.block_edges out-edges: the levels of
// road networks, the first and last levels of most searches) run in block 0 alone, level after
// level with block barriers only, while the other blocks wait in the grid barrier that ends the
// run: a grid barrier and a grid-wide pass per level cost more than such a level's edges (on a
// road network over a thousand levels of a few thousand edges each). The run hands back the
// frontier as a queue; the grid then rebuilds what its own levels keep (the frontier's bitmap,
// the cleared ring entries) before it goes on. Graphs of many edges a vertex (few, large levels)
// get a kernel built without block 0's levels (bfs_tuning::block_edges, automatic): their code and
// 20-37 KB of shared memory a block made the 64-register kernel spill in the grid's levels, 9-14%
// on Kronecker graphs. The device-clock profile (bfs_tuning::profile) is a kernel of its own too.
//
// Arrays written during the kernel are read through plain pointers, never the read-only path:
// the grid barrier's fences order them, the non-coherent cache would not.

#include "graph_bfs_common.cuh"

#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/algorithms/cuda/graph.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/stream.hpp>
#include <kleene/error.hpp>

#include <cooperative_groups.h>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

namespace kleene::cuda::bfs_detail {
namespace {

constexpr int loop_threads = 512;
constexpr int loop_items = 4;   // edges a thread takes from a push tile
constexpr int block_items = 4;  // frontier entries a thread loads in a block level
constexpr int block_cap = loop_threads * block_items;  // frontier entries a block level takes
constexpr int block_unroll = 4;  // edges a thread has in flight at once in a block level
// bfs_tuning::block_edges when automatic picks block 0's levels: at most this many out-edges.
constexpr long long small_level_edges = 8192;

/// What block 0 hands back after its run of small levels (read by every block after the grid
/// barrier that ends the run).
struct block_handoff {
    std::int32_t depth;
    std::int32_t levels;  // levels run in block 0 so far in the search
    unsigned long long frontier, previous, frontier_edges, visited_in;
    unsigned runs;  // runs handed back so far; the waiting blocks watch it
};

/// The device's clock in nanoseconds (%globaltimer), for the profile the explain trace shows.
__device__ __forceinline__ unsigned long long clock_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/// Where a search's time goes, in nanoseconds, measured by thread 0 of block 0 (which takes part
/// in every level): block 0's runs of small levels, split into the frontier's load and scan, the
/// edges, and the counts and barriers after them; the grid's push and pull levels; the rebuild
/// after each run; the whole kernel.
enum profile_slot : int {
    prof_block_runs,
    prof_block_load,
    prof_block_edges,
    prof_block_tail,
    prof_grid_push,
    prof_grid_pull,
    prof_rebuild,
    prof_total,
    prof_slots
};

/// Frontier entries and their out-edges.
struct tally {
    unsigned long long count, edges;
    __device__ tally operator+(tally o) const { return {count + o.count, edges + o.edges}; }
};

template <class Index>
struct loop_args {
    bfs_graph<Index> g;
    bfs_state<Index> s;
    Index source;
    Index* queue[2];          // level d reads queue[d % 2], appends to the other
    std::uint32_t* front[3];  // the bitmap ring (top of the file)
    std::int64_t* offs;       // a long push level's edge offsets, n + 1
    tally* part;              // one per block
    counters* ctr;            // the counter ring
    char* steps;              // per level: 1 pull, 0 push, 2 push in block 0
    int* levels;
    block_handoff* handoff;
    unsigned long long* prof;  // profile_slot
    unsigned long long in_total;
    long long block_edges;  // small levels: at most this many edges (0: never in one block)
    double alpha;
    double min_frontier;  // n / beta
    bfs_direction direction;
};

using block_scan = cub::BlockScan<tally, loop_threads, cub::BLOCK_SCAN_WARP_SCANS>;
using block_reduce = cub::BlockReduce<tally, loop_threads>;

template <class Index>
struct block_shared {
    typename cub::BlockScan<int, loop_threads, cub::BLOCK_SCAN_WARP_SCANS>::TempStorage scan;
    Index u[block_cap];       // the frontier's vertices
    Index row[block_cap];     // their rows' first entries
    int offs[block_cap + 1];  // their edges' offsets
    unsigned long long next, out_e, in_e;
};

struct grid_shared {
    union {
        block_scan::TempStorage scan;
        block_reduce::TempStorage reduce;
    } tmp;
    std::int64_t offs[loop_threads + 1];  // a short push level's edge offsets
    tally base, total;
};

template <class Index>
union loop_shared {
    grid_shared grid;
    block_shared<Index> block;  // block 0's small levels
};

/// The shared memory of a kernel without block 0's small levels: the grid's part alone (4.5 KB
/// against 24.7 KB with 32-bit indices, 41 KB with 64-bit ones).
struct grid_only_shared {
    grid_shared grid;
};

template <class Index>
__device__ __forceinline__ unsigned long long out_degree(bfs_graph<Index> const& g, Index v) {
    return static_cast<unsigned long long>(g.out_ptr[v + 1] - g.out_ptr[v]);
}

/// Entries [lo, hi) of this block's share of `items` (the grid splits them in equal runs).
__device__ __forceinline__ void block_share(std::int64_t items, std::int64_t& lo,
                                            std::int64_t& hi) {
    std::int64_t const per = (items + gridDim.x - 1) / gridDim.x;
    lo = min(items, std::int64_t(blockIdx.x) * per);
    hi = min(items, lo + per);
}

/// Push: entry k of q owns the edges [offs[k], offs[k + 1]), offs[count] the total
/// (detail::for_each_frontier_edge walks them in equal tiles). A vertex is claimed by the atomicCAS
/// on its level; the claim sets its visited and next-frontier bits and appends it to nq.
template <class Index>
__device__ void expand(loop_args<Index> const& a, Index const* q, std::int64_t const* offs,
                       std::int64_t count, std::int32_t next_level, std::uint32_t* next_front,
                       Index* nq, counters* c) {
    auto const& g = a.g;
    unsigned long long out_e = 0, in_e = 0;
    ::kleene::cuda::detail::for_each_frontier_edge<loop_threads, loop_items>(
        offs, count, [&](std::int64_t k, std::int64_t r) {
            Index const u = q[k];
            Index const v = g.out_col[g.out_ptr[u] + Index(r)];
            std::uint32_t const bit = 1u << (v & 31);
            if (a.s.visited[v >> 5] & bit) return;
            if (atomicCAS(&a.s.level[v], -1, next_level) != -1) return;
            atomicOr(&a.s.visited[v >> 5], bit);
            atomicOr(&next_front[v >> 5], bit);
            if (a.s.parent) a.s.parent[v] = u;
            nq[::kleene::cuda::detail::aggregated_slot(&c->found)] = v;
            out_e += out_degree(g, v);
            in_e += static_cast<unsigned long long>(g.in_ptr[v + 1] - g.in_ptr[v]);
        });
    add_block_counts(c, 0, out_e, in_e);
}

/// Entry i of a push level's input: a queue slot (one vertex) or a bitmap word (its vertices).
template <class Index>
__device__ __forceinline__ tally entry_tally(bfs_graph<Index> const& g, bool from_queue,
                                             Index const* q, std::uint32_t const* bits,
                                             std::int64_t i) {
    if (from_queue) return {1, out_degree(g, q[i])};
    std::uint32_t b = bits[i];
    tally t{static_cast<unsigned long long>(__popc(b)), 0};
    for (; b; b &= b - 1) t.edges += out_degree(g, static_cast<Index>(i * 32 + __ffs(b) - 1));
    return t;
}

/// A long push level's frontier as a queue q with edge offsets a.offs[0..count]: from the queue
/// itself, or compacted from the bitmap `bits` into q. Returns the frontier's tally (the same in
/// every thread). Two grid barriers.
template <class Index>
__device__ tally place(loop_args<Index> const& a, grid_shared& sh,
                       cooperative_groups::grid_group const& grid, bool from_queue, Index* q,
                       std::uint32_t const* bits, std::int64_t items) {
    auto const& g = a.g;
    std::int64_t lo, hi;
    block_share(items, lo, hi);
    tally mine{0, 0};
    for (std::int64_t i = lo + threadIdx.x; i < hi; i += blockDim.x)
        mine = mine + entry_tally(g, from_queue, q, bits, i);
    tally const sum = block_reduce(sh.tmp.reduce).Sum(mine);
    if (threadIdx.x == 0) a.part[blockIdx.x] = sum;
    grid.sync();

    tally before{0, 0}, all{0, 0};
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
        tally const p = a.part[b];
        all = all + p;
        if (b < blockIdx.x) before = before + p;
    }
    __syncthreads();
    tally const before_sum = block_reduce(sh.tmp.reduce).Sum(before);
    __syncthreads();
    tally const all_sum = block_reduce(sh.tmp.reduce).Sum(all);
    if (threadIdx.x == 0) sh.base = before_sum, sh.total = all_sum;
    __syncthreads();
    tally run = sh.base;
    tally const total = sh.total;
    for (std::int64_t t0 = lo; t0 < hi; t0 += blockDim.x) {
        std::int64_t const i = t0 + threadIdx.x;
        tally const item = i < hi ? entry_tally(g, from_queue, q, bits, i) : tally{0, 0};
        tally pre, agg;
        block_scan(sh.tmp.scan).ExclusiveSum(item, pre, agg);
        auto pos = static_cast<std::int64_t>(run.count + pre.count);
        auto off = static_cast<std::int64_t>(run.edges + pre.edges);
        if (i < hi) {
            if (from_queue) {
                a.offs[pos] = off;
            } else {
                for (std::uint32_t b = bits[i]; b; b &= b - 1, ++pos) {
                    auto const v = static_cast<Index>(i * 32 + __ffs(b) - 1);
                    q[pos] = v;
                    a.offs[pos] = off;
                    off += static_cast<std::int64_t>(out_degree(g, v));
                }
            }
        }
        run = run + agg;
        __syncthreads();  // the scan's storage is reused
    }
    if (blockIdx.x == 0 && threadIdx.x == 0)
        a.offs[total.count] = static_cast<std::int64_t>(total.edges);
    grid.sync();
    return total;
}

/// Block 0's run of small push levels from the frontier in a.queue[depth % 2] (see the top of
/// the file). Each level: the frontier's vertices, row starts and edge offsets go to shared memory
/// (one block scan), then every thread claims block_unroll edges at a time, their loads in flight
/// together. Stops when the frontier empties, outgrows the block or Beamer's rule says pull, and
/// leaves the state in *a.handoff. Called by block 0 only.
template <class Index, bool Profile>
__device__ __noinline__ void block_levels(loop_args<Index> const& a, block_shared<Index>& bs,
                                          std::int32_t depth, unsigned long long frontier,
                                          unsigned long long previous,
                                          unsigned long long visited_in, std::int32_t levels) {
    using scan = cub::BlockScan<int, loop_threads, cub::BLOCK_SCAN_WARP_SCANS>;
    // Copies, so that the atomics below do not make the compiler reload them from the parameters.
    bfs_graph<Index> const g = a.g;
    bfs_state<Index> const st = a.s;
    Index* const queue0 = a.queue[0];
    Index* const queue1 = a.queue[1];
    int const t = static_cast<int>(threadIdx.x);
    bool const automatic = a.direction == bfs_direction::automatic;
    unsigned long long frontier_edges = 0;
    bool const timer = Profile && t == 0;
    unsigned long long const run0 = timer ? clock_ns() : 0;
    unsigned long long t_load = 0, t_edges = 0, t_tail = 0;
    while (true) {
        unsigned long long const l0 = timer ? clock_ns() : 0;
        auto const f = static_cast<int>(frontier);
        Index const* q = depth % 2 ? queue1 : queue0;
        Index* nq = depth % 2 ? queue0 : queue1;
        int deg[block_items];
#pragma unroll
        for (int i = 0; i < block_items; ++i) {
            int const k = t * block_items + i;
            deg[i] = 0;
            if (k < f) {
                Index const u = q[k];
                Index const r0 = g.out_ptr[u];
                bs.u[k] = u;
                bs.row[k] = r0;
                deg[i] = static_cast<int>(g.out_ptr[u + 1] - r0);
            }
        }
        int edges = 0;
        scan(bs.scan).ExclusiveSum(deg, deg, edges);
#pragma unroll
        for (int i = 0; i < block_items; ++i) {
            int const k = t * block_items + i;
            if (k < f) bs.offs[k] = deg[i];
        }
        if (t == 0) {
            bs.offs[f] = edges;
            bs.next = bs.out_e = bs.in_e = 0;
            a.steps[depth] = 2;
        }
        __syncthreads();
        unsigned long long const l1 = timer ? clock_ns() : 0;
        unsigned long long out_e = 0, in_e = 0;
        std::int32_t const next_level = depth + 1;
        for (int e0 = t; e0 < edges; e0 += loop_threads * block_unroll) {
            Index v[block_unroll], par[block_unroll];
            bool take[block_unroll];
#pragma unroll
            for (int j = 0; j < block_unroll; ++j) {
                int const e = e0 + j * loop_threads;
                take[j] = e < edges;
                if (take[j]) {
                    auto const k = static_cast<int>(
                        ::kleene::cuda::detail::last_at_most(bs.offs, 0, f - 1, e));
                    par[j] = bs.u[k];
                    v[j] = g.out_col[bs.row[k] + Index(e - bs.offs[k])];
                }
            }
            // The claim goes straight to the level's compare-and-swap: a load of the visited bit
            // first would put one more dependent round trip on every edge, and here (unlike the
            // grid's levels) the edges are few and the round trips are the time (NE: 12.5 -> 11.6
            // us a level's edges, the search 22.7 -> 21.8 ms; NY 4.92 -> 4.71 ms; H200,
            // 2026-11-29). Loading the claimed vertices' degrees before the appends, all at once,
            // spilled and lost it again (NE 22.0, NY 4.93).
#pragma unroll
            for (int j = 0; j < block_unroll; ++j)
                if (take[j]) take[j] = atomicCAS(&st.level[v[j]], -1, next_level) == -1;
#pragma unroll
            for (int j = 0; j < block_unroll; ++j) {
                if (!take[j]) continue;
                atomicOr(&st.visited[v[j] >> 5], 1u << (v[j] & 31));
                if (st.parent) st.parent[v[j]] = par[j];
                nq[::kleene::cuda::detail::aggregated_slot(&bs.next)] = v[j];
                out_e += out_degree(g, v[j]);
                in_e += static_cast<unsigned long long>(g.in_ptr[v[j] + 1] - g.in_ptr[v[j]]);
            }
        }
        unsigned long long const l2 = timer ? clock_ns() : 0;
        // One shared atomic a warp: 512 threads on one 64-bit shared word serialise.
        ::kleene::cuda::detail::aggregated_add(&bs.out_e, out_e);
        ::kleene::cuda::detail::aggregated_add(&bs.in_e, in_e);
        __syncthreads();
        previous = frontier;
        frontier = bs.next;
        frontier_edges = bs.out_e;
        visited_in += bs.in_e;
        ++depth;
        ++levels;
        __syncthreads();  // bs is rewritten by the next level
        if (timer) {
            unsigned long long const l3 = clock_ns();
            t_load += l1 - l0;
            t_edges += l2 - l1;
            t_tail += l3 - l2;
        }
        if (frontier == 0 || frontier > unsigned(block_cap) ||
            frontier_edges > static_cast<unsigned long long>(a.block_edges))
            break;
        bool const pull = automatic ? next_pulls(false, frontier, previous, frontier_edges,
                                                 a.in_total, visited_in, a.alpha, a.min_frontier)
                                    : a.direction == bfs_direction::pull;
        if (pull) break;
    }
    if (timer) {
        a.prof[prof_block_runs] += clock_ns() - run0;
        a.prof[prof_block_load] += t_load;
        a.prof[prof_block_edges] += t_edges;
        a.prof[prof_block_tail] += t_tail;
    }
    if (t == 0) {
        block_handoff* h = a.handoff;
        h->depth = depth;
        h->levels = levels;
        h->frontier = frontier;
        h->previous = previous;
        h->frontier_edges = frontier_edges;
        h->visited_in = visited_in;
        __threadfence();  // the state before the count that releases the waiting blocks
        atomicAdd(&h->runs, 1u);
    }
}

/// Blocks: 2 a SM (64 registers, no spills) or 4 (32 registers, some spilled; twice the warps to
/// hide the pull's latency). bfs_tuning::loop_blocks = 4 (tuning::bfs_loop_blocks of the
/// context, KLEENE_BFS_LOOP_BLOCKS) picks 4, for measuring: 2 measured faster up to scale 22
/// (docs/lab/performance-history.md, issue 7).
template <class Index, int BlocksPerSm, bool Profile, bool SmallLevels>
__global__ void __launch_bounds__(loop_threads, BlocksPerSm)
    bfs_loop(__grid_constant__ loop_args<Index> const a) {
    namespace cg = cooperative_groups;
    cg::grid_group const grid = cg::this_grid();
    __shared__ std::conditional_t<SmallLevels, loop_shared<Index>, grid_only_shared> shm;
    grid_shared& sh = shm.grid;
    auto const& g = a.g;
    std::int64_t const n = g.n, words = (n + 31) / 32;
    std::int64_t const tid = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    std::int64_t const nthreads = std::int64_t(gridDim.x) * blockDim.x;
    Index const src = a.source;
    bool const timer = Profile && tid == 0;  // thread 0 of block 0 keeps the profile
    unsigned long long const k0 = timer ? clock_ns() : 0;

    for (std::int64_t i = tid; i < n; i += nthreads) {
        a.s.level[i] = i == src ? 0 : -1;
        if (a.s.parent) a.s.parent[i] = i == src ? src : Index(-1);
    }
    for (std::int64_t w = tid; w < words; w += nthreads) {
        std::uint32_t const b = w == (src >> 5) ? 1u << (src & 31) : 0u;
        a.s.visited[w] = b;
        a.front[0][w] = b;
        a.front[1][w] = 0;
    }
    if (tid == 0) {
        a.queue[0][0] = src;
        for (int i = 0; i < 3; ++i) a.ctr[i] = counters{0, 0, 0, 0};
        a.handoff->runs = 0;
        if (Profile)
            for (int i = 0; i < prof_slots; ++i) a.prof[i] = 0;
    }
    grid.sync();

    // The loop's state: the same values in every thread.
    bool const automatic = a.direction == bfs_direction::automatic;
    bool pull = a.direction == bfs_direction::pull;
    bool have_queue = true;
    // The host loop knows the source's degrees before its first decision too (its single-block
    // push reports them), so both apply the rule from level 0 alike.
    unsigned long long frontier = 1, previous = 0, frontier_edges = out_degree(g, src);
    auto visited_in = static_cast<unsigned long long>(g.in_ptr[src + 1] - g.in_ptr[src]);
    std::int32_t depth = 0, block_runs = 0;
    unsigned runs_started = 0;  // the same in every thread
    while (frontier > 0) {
        if (automatic)
            pull = next_pulls(pull, frontier, previous, frontier_edges, a.in_total, visited_in,
                              a.alpha, a.min_frontier);
        if (SmallLevels && !pull && have_queue && frontier <= unsigned(block_cap) &&
            frontier_edges <= static_cast<unsigned long long>(a.block_edges)) {
            // Small levels in block 0. The others wait for its count to move, one thread a block
            // polling with a pause (a grid barrier's spin has every block read one word of L2
            // without one), then meet it in the barrier.
            ++runs_started;
            if (blockIdx.x == 0) {
                if constexpr (SmallLevels)
                    block_levels<Index, Profile>(a, shm.block, depth, frontier, previous,
                                                 visited_in, block_runs);
            } else {
                if (threadIdx.x == 0)
                    while (__ldcv(&a.handoff->runs) != runs_started) __nanosleep(500);
                __syncthreads();
            }
            grid.sync();
            // Past the L1 (not coherent): block 0 wrote these on another multiprocessor.
            block_handoff const* h = a.handoff;
            depth = __ldcg(&h->depth);
            block_runs = __ldcg(&h->levels);
            previous = __ldcg(&h->previous);
            frontier = __ldcg(&h->frontier);
            frontier_edges = __ldcg(&h->frontier_edges);
            visited_in = __ldcg(&h->visited_in);
            pull = false;
            if (frontier == 0) break;
            unsigned long long const r0 = timer ? clock_ns() : 0;
            // The grid's levels keep the frontier's bitmap in front[depth % 3], the next one
            // cleared in front[(depth + 1) % 3] and ctr[depth % 3] zero: rebuilt here. Every
            // block read the counters of the grid's last level before the barrier above.
            std::uint32_t* const fb = a.front[depth % 3];
            std::uint32_t* const nb = a.front[(depth + 1) % 3];
            for (std::int64_t w = tid; w < words; w += nthreads) fb[w] = nb[w] = 0;
            if (tid == 0) a.ctr[depth % 3] = counters{0, 0, 0, 0};
            grid.sync();
            Index const* q = a.queue[depth % 2];
            for (std::int64_t k = tid; k < std::int64_t(frontier); k += nthreads)
                atomicOr(&fb[q[k] >> 5], 1u << (q[k] & 31));
            grid.sync();
            if (timer) a.prof[prof_rebuild] += clock_ns() - r0;
            continue;
        }
        unsigned long long const g0 = timer ? clock_ns() : 0;
        counters* const c = a.ctr + depth % 3;
        if (tid == 0) {
            a.ctr[(depth + 1) % 3] = counters{0, 0, 0, 0};
            a.steps[depth] = pull ? 1 : 0;
        }
        std::uint32_t* const in_front = a.front[depth % 3];
        std::uint32_t* const out_front = a.front[(depth + 1) % 3];
        std::uint32_t* const clear = a.front[(depth + 2) % 3];
        for (std::int64_t w = tid; w < words; w += nthreads) clear[w] = 0;
        if (pull) {
            pull_words(g, a.s, in_front, out_front, depth + 1, c);
        } else {
            Index* const q = a.queue[depth % 2];
            Index* const nq = a.queue[(depth + 1) % 2];
            if (have_queue && frontier <= unsigned(loop_threads)) {
                // Short queue: every block scans it into shared memory, no barrier.
                auto const k = static_cast<std::int64_t>(threadIdx.x);
                tally const item =
                    k < std::int64_t(frontier) ? tally{1, out_degree(g, q[k])} : tally{0, 0};
                tally pre, agg;
                block_scan(sh.tmp.scan).ExclusiveSum(item, pre, agg);
                sh.offs[k] = static_cast<std::int64_t>(pre.edges);
                if (k == 0) sh.offs[frontier] = static_cast<std::int64_t>(agg.edges);
                __syncthreads();
                expand(a, q, sh.offs, std::int64_t(frontier), depth + 1, out_front, nq, c);
            } else {
                tally const t = place(a, sh, grid, have_queue, q, in_front,
                                      have_queue ? std::int64_t(frontier) : words);
                expand(a, q, a.offs, std::int64_t(t.count), depth + 1, out_front, nq, c);
            }
        }
        grid.sync();
        previous = frontier;
        frontier = __ldcg(&c->found);
        frontier_edges = __ldcg(&c->out_edges);
        visited_in += __ldcg(&c->in_edges);
        have_queue = !pull;
        ++depth;
        if (timer) a.prof[pull ? prof_grid_pull : prof_grid_push] += clock_ns() - g0;
    }
    if (tid == 0) {
        a.levels[0] = depth;
        a.levels[1] = block_runs;
        if (Profile) a.prof[prof_total] = clock_ns() - k0;
    }
}

}  // namespace

template <class Index>
bool bfs_device_loop(bfs_graph<Index> const& g, std::size_t in_edges_total, std::size_t source,
                     bool parents, bfs_tuning const& tuning, bfs_run& run, device_out const& out,
                     ::kleene::cuda::detail::device_stream st) {
    // The host's clock around the call's parts, for the explain trace (the call's cost beside
    // the kernel's: docs/performance.md).
    auto const h0 = std::chrono::steady_clock::now();
    auto since = [](std::chrono::steady_clock::time_point a) {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a)
            .count();
    };
    int const wanted = tuning.loop_blocks == 4 ? 4 : 2;
    // The profile's clock reads are compiled only into the kernels that keep it (bfs_tuning::
    // profile), and block 0's small levels only into those that may run them (block_edges > 0):
    // each costs the grid's levels registers or shared memory when it is there unused.
    long long const block_edges =
        tuning.block_edges >= 0                                              ? tuning.block_edges
        : double(in_edges_total) <= tuning.small_levels_degree * double(g.n) ? small_level_edges
                                                                             : 0;
    bool const small = block_edges > 0;
    auto pick = [&]<int B>() {
        return tuning.profile
                   ? (small ? reinterpret_cast<void const*>(&bfs_loop<Index, B, true, true>)
                            : reinterpret_cast<void const*>(&bfs_loop<Index, B, true, false>))
                   : (small ? reinterpret_cast<void const*>(&bfs_loop<Index, B, false, true>)
                            : reinterpret_cast<void const*>(&bfs_loop<Index, B, false, false>));
    };
    void const* const kernel =
        wanted == 4 ? pick.template operator()<4>() : pick.template operator()<2>();
    int dev = 0, coop = 0, sms = 0, per_sm = 0;
    KLEENE_CUDA_CHECK(cudaGetDevice(&dev));
    KLEENE_CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    KLEENE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    KLEENE_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, loop_threads, 0));
    if (!coop || per_sm < 1) return false;
    unsigned const blocks = static_cast<unsigned>(sms * per_sm);

    using cuda::detail::stream_buffer;
    std::size_t const n = static_cast<std::size_t>(g.n);
    std::size_t const words = (n + 31) / 32;
    stream_buffer<std::int32_t> level(n, st);
    stream_buffer<Index> parent(parents ? n : 0, st);
    stream_buffer<std::uint32_t> visited(words, st), front0(words, st), front1(words, st),
        front2(words, st);
    stream_buffer<Index> queue0(n, st), queue1(n, st);
    stream_buffer<std::int64_t> offs(n + 1, st);
    stream_buffer<tally> part(blocks, st);
    stream_buffer<counters> ctr(3, st);
    stream_buffer<char> steps(n, st);
    stream_buffer<int> levels(2, st);
    stream_buffer<block_handoff> handoff(1, st);
    stream_buffer<unsigned long long> prof(tuning.profile ? prof_slots : 0, st);  // Profile only

    loop_args<Index> args{g,
                          {level.data(), parents ? parent.data() : nullptr, visited.data()},
                          static_cast<Index>(source),
                          {queue0.data(), queue1.data()},
                          {front0.data(), front1.data(), front2.data()},
                          offs.data(),
                          part.data(),
                          ctr.data(),
                          steps.data(),
                          levels.data(),
                          handoff.data(),
                          prof.data(),
                          static_cast<unsigned long long>(in_edges_total),
                          block_edges,
                          tuning.alpha,
                          double(n) / tuning.beta,
                          tuning.direction};
    void* params[] = {&args};
    double const setup_ms = since(h0);
    auto const h1 = std::chrono::steady_clock::now();
    event start(true), stop(true);  // cuda/stream.hpp; recorded on st
    KLEENE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(start.native()), st));
    KLEENE_CUDA_CHECK(
        cudaLaunchCooperativeKernel(kernel, dim3(blocks), dim3(loop_threads), params, 0, st));
    KLEENE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(stop.native()), st));
    stop.synchronize();
    run.seconds = double(event::elapsed_ms(start, stop)) / 1000.0;
    double const kernel_ms = since(h1);
    auto const h2 = std::chrono::steady_clock::now();

    int counts[2] = {0, 0};  // levels, of which in block 0
    cuda::detail::copy_to_host(counts, levels.data(), 2, st);
    int const depth = counts[0];
    run.step_was_pull.assign(std::size_t(depth), 0);
    if (depth > 0)
        cuda::detail::copy_to_host(run.step_was_pull.data(), steps.data(), std::size_t(depth), st);
    std::size_t runs = 0;  // runs of consecutive levels in block 0
    char before = 0;
    for (char& step : run.step_was_pull) {
        runs += step == 2 && before != 2;
        before = step;
        if (step == 2) step = 0;  // a push
    }
    char degree[32];
    std::snprintf(degree, sizeof degree, "%.2f",
                  double(in_edges_total) / double(std::max<std::size_t>(n, 1)));
    std::string const why = tuning.block_edges >= 0
                                ? std::string(" (block_edges given)")
                                : std::string(" (automatic: ") + degree + " edges a vertex" +
                                      (small ? " <= " : " > ") +
                                      std::to_string(tuning.small_levels_degree) + ")";
    run.notes.push_back(
        "bfs: " + std::to_string(depth) + " levels in one cooperative kernel of " +
        std::to_string(blocks) + " blocks; " +
        (small
             ? std::to_string(counts[1]) + " small push levels (at most " +
                   std::to_string(block_cap) + " vertices and " + std::to_string(args.block_edges) +
                   " edges) in one block, in " + std::to_string(runs) + " runs" + why
             : "every level on the grid, the kernel without block 0's levels" + why));
    if (tuning.profile) {
        unsigned long long ns[prof_slots] = {};
        cuda::detail::copy_to_host(ns, prof.data(), prof_slots, st);
        std::size_t pulls = 0;
        for (char step : run.step_was_pull) pulls += step == 1;
        std::size_t const grid_push = std::size_t(depth) - std::size_t(counts[1]) - pulls;
        auto us = [](unsigned long long t, std::size_t count) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.3f ms (%.1f us each)", double(t) * 1e-6,
                          count ? double(t) * 1e-3 / double(count) : 0.0);
            return std::string(buf);
        };
        char total[32];
        std::snprintf(total, sizeof total, "%.3f ms", double(ns[prof_total]) * 1e-6);
        run.notes.push_back(
            std::string("bfs: profile (the device's clock, thread 0 of block 0): kernel ") + total +
            "; block 0's " + std::to_string(counts[1]) + " levels " +
            us(ns[prof_block_runs], std::size_t(counts[1])) + ": frontier load and scan " +
            us(ns[prof_block_load], std::size_t(counts[1])) + ", edges " +
            us(ns[prof_block_edges], std::size_t(counts[1])) + ", counts and barriers " +
            us(ns[prof_block_tail], std::size_t(counts[1])) + "; the grid's " +
            std::to_string(grid_push) + " push levels " + us(ns[prof_grid_push], grid_push) + ", " +
            std::to_string(pulls) + " pull levels " + us(ns[prof_grid_pull], pulls) +
            ", rebuilds after " + std::to_string(runs) + " runs " + us(ns[prof_rebuild], runs));
    }
    double const notes_ms = since(h2);
    auto const h3 = std::chrono::steady_clock::now();
    read_back(level.data(), parents ? parent.data() : nullptr, n, run, out, st);
    char host[200];
    std::snprintf(host, sizeof host,
                  "bfs: host clock: setup %.3f ms, launch to the kernel's end %.3f ms, counts and "
                  "profile %.3f ms, levels%s to the %s %.3f ms",
                  setup_ms, kernel_ms, notes_ms, parents ? " and parents" : "",
                  out.level ? "caller's device vectors" : "host", since(h3));
    run.notes.push_back(host);
    run.device_loop = true;
    return true;
}

template bool bfs_device_loop(bfs_graph<std::int32_t> const&, std::size_t, std::size_t, bool,
                              bfs_tuning const&, bfs_run&, device_out const&,
                              ::kleene::cuda::detail::device_stream);
template bool bfs_device_loop(bfs_graph<std::int64_t> const&, std::size_t, std::size_t, bool,
                              bfs_tuning const&, bfs_run&, device_out const&,
                              ::kleene::cuda::detail::device_stream);

}  // namespace kleene::cuda::bfs_detail
