// Betweenness centrality on the GPU (graph_kernels.hpp): Brandes' algorithm batched over the
// sources, LAGraph-style. Sources go in batches of K columns (K = 8, or the next power of two
// above a smaller remainder; unused columns stay unreached and cost only their loads); per vertex
// v and column s the device holds depth[v K + s] (-1 unreached), the shortest-path count
// sigma (double) and, for the backward sweep, coef = (1 + delta) / sigma with delta the
// dependency, so that one vertex's K columns are adjacent.
//
// Forward, level by level: a push step walks the out-edges of the level's vertices (a queue of
// the vertices at depth d in any column) and claims unreached (v, s) with atomicCAS on depth,
// adding sigma with atomicAdd; a pull step walks the in-edges (the transpose) of every vertex
// still unreached in some column and sums sigma over the in-neighbours at depth d. Beamer's rule
// picks the step: pull once the queue's out-edges pass 1/alpha of the edges not yet explored,
// push again once the queue is small (n / beta) and shrinking.
// Either step appends the vertices it reached to the next level's queue; the queues stay, in
// order, for the backward sweep. On graphs of at most 8 edges a vertex (road networks: over a
// thousand levels of a few thousand edges) a level's work is a chain of a few dependent loads
// and atomics, and what surrounds it decides the time. By default (tuning::bc_loop) the whole
// batch, forward and backward, is one cooperative kernel (bc_whole): a grid barrier between
// levels, level bounds in registers, a lane per edge rather than a thread per row (walk_edges),
// a vertex's row loaded beside the claim that queues it, and claims, stamps and loads issued
// before their results are used. The other way (bc_loop = chained, or rows of over 4,096
// entries): push steps queued 32 at a time without their sizes, each reading its queue's bounds
// on the device while a one-thread kernel sets the next level's start, so the host waits once per
// 32 levels; the backward walks are a kernel a level.
//
// Backward, from the deepest level up to level 1: every vertex v of the level's queue sums
// coef[w] = (1 + delta[w]) / sigma[w] over its out-neighbours w one level deeper (per column,
// one load per edge: coef starts as 1 / sigma, the deepest level's value), so
// delta[v] = sigma[v] * that sum, and centrality[v] gains delta[v] over the columns where v is at
// that depth (never a column's source, which is at depth 0). Each vertex is finished by one
// thread per level, so the sums need no atomics; rows longer than walk::long_min are sliced and
// their slices meet in a side array.
//
// Everything runs on the context's stream.

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <kleene/algorithms/beamer.hpp>
#include <kleene/algorithms/cuda/detail/graph_walk.cuh>
#include <kleene/algorithms/cuda/graph_kernels.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/error.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace kleene::cuda {
namespace {

constexpr int max_batch = 8;
/// Beamer's rule (kleene/algorithms/beamer.hpp) with the BFS's alpha and GAP's beta: the BFS's
/// beta of 512 has not been measured for this sweep.
constexpr double alpha = beamer::default_alpha;
constexpr double beta = 18.0;

template <int K>
struct acc_k {
    double v[K];
};

/// Depths are stored as D: std::uint8_t while the levels stay below 255 (one vertex's K depths
/// then take K bytes, so at Kronecker scale 22 the whole array stays in the L2 cache), or
/// std::int32_t; the all-ones value of D means unreached and reads as -1.
template <class D>
constexpr std::int32_t max_depth = std::is_same_v<D, std::uint8_t> ? 254 : 0x7ffffffe;

template <int K, class D>
struct bc_arrays {
    D* depth;
    double* sigma;
    double* coef;  // (1 + delta) / sigma, set once the forward sweep is done
    double* centrality;
    int active;  // columns [0, active) hold sources
};

/// K values of D loaded as one (vector) access.
template <class D, int K>
struct alignas(sizeof(D) * K <= 16 ? sizeof(D) * K : 16) depth_pack {
    D v[K];
};

/// The K depths of vertex v, loaded together (one vertex's columns are adjacent). Plain loads:
/// a step may be setting other vertices' depths to d + 1 meanwhile, and either value read is
/// fine, since a step only looks for depths d (or -1 in its own row).
template <int K, class D>
__device__ __forceinline__ void load_depths(D const* depth, std::int64_t v,
                                            std::int32_t (&out)[K]) {
    depth_pack<D, K> const p = *reinterpret_cast<depth_pack<D, K> const*>(depth + v * K);
#pragma unroll
    for (int i = 0; i < K; ++i)
        out[i] = p.v[i] == static_cast<D>(~D(0)) ? -1 : static_cast<std::int32_t>(p.v[i]);
}

/// Sets an unreached depth to `next`; returns the depth found (-1: it was unreached). Bytes are
/// claimed by a compare-and-swap of their aligned 32-bit word.
__device__ __forceinline__ std::int32_t claim_depth(std::int32_t* p, std::int32_t next) {
    return atomicCAS(p, -1, next);
}
__device__ __forceinline__ std::int32_t claim_depth(std::uint8_t* p, std::int32_t next) {
    auto const addr = reinterpret_cast<std::uintptr_t>(p);
    auto* const word = reinterpret_cast<unsigned*>(addr & ~std::uintptr_t(3));
    unsigned const shift = 8u * static_cast<unsigned>(addr & 3u);
    unsigned old = *reinterpret_cast<unsigned volatile*>(word);
    for (;;) {
        unsigned const byte = (old >> shift) & 0xffu;
        if (byte != 0xffu) return static_cast<std::int32_t>(byte);
        unsigned const want = (old & ~(0xffu << shift)) | (unsigned(next) << shift);
        unsigned const seen = atomicCAS(word, old, want);
        if (seen == old) return -1;
        old = seen;
    }
}

/// Queue append, with the appended vertices' out-degrees summed for the direction rule.
struct level_queue {
    unsigned long long* count;  // [0]: vertices, [1]: their out-edges
    unsigned long long edges = 0;
    __device__ __forceinline__ void flush() {
        unsigned long long const s = walk::block_sum(edges);
        if (threadIdx.x == 0 && s) atomicAdd(count + 1, s);
    }
};

/// A push step from the level-d queue over out-edges.
template <class Index, int K, class D>
struct bc_push : walk::op_base<Index> {
    using acc_type = walk::no_acc;
    static constexpr bool batch_loads = false;
    bc_arrays<K, D> s;
    std::int32_t d;
    Index const* out_ptr;
    Index* next;          // the level-(d + 1) queue; with chained levels, null and:
    Index* queue;         // all levels' queues, level e at queue + start[e]
    std::int64_t const* start;
    std::int32_t* stamp;  // the level a vertex was last queued for
    level_queue q;

    __device__ walk::no_acc identity() const { return {0}; }
    __device__ walk::no_acc combine(walk::no_acc a, walk::no_acc) const { return a; }
    __device__ __forceinline__ bool wants(Index u) const {
        std::int32_t du[K];
        load_depths<K, D>(s.depth, u, du);
        bool any = false;
#pragma unroll
        for (int c = 0; c < K; ++c) any |= du[c] == d;
        return any;
    }
    __device__ __forceinline__ void edge(Index u, Index, Index v, walk::no_acc&) {
        std::int32_t du[K], dv[K];
        load_depths<K, D>(s.depth, u, du);
        load_depths<K, D>(s.depth, v, dv);
        bool reached = false;
#pragma unroll
        for (int c = 0; c < K; ++c) {
            if (du[c] != d || (dv[c] != -1 && dv[c] != d + 1)) continue;
            std::int32_t const old = claim_depth(s.depth + std::int64_t(v) * K + c, d + 1);
            if (old == -1 || old == d + 1) {
                atomicAdd(s.sigma + std::int64_t(v) * K + c, s.sigma[std::int64_t(u) * K + c]);
                reached |= old == -1;
            }
        }
        // One column: the claim itself is unique. Several: a vertex reached in two columns is
        // queued once, by whichever claim stamps it first.
        if (reached && (K == 1 || atomicExch(stamp + v, d + 1) != d + 1)) {
            Index* const to = next ? next : queue + start[d + 1];
            to[detail::aggregated_slot(q.count)] = v;
            q.edges += static_cast<unsigned long long>(out_ptr[v + 1] - out_ptr[v]);
        }
    }
    __device__ void finish(Index, walk::no_acc) const {}
    __device__ void end_block() {
        q.flush();
    }
};

/// A pull step over in-edges (rows of the transpose) of the vertices unreached in some column.
template <class Index, int K, class D>
struct bc_pull : walk::op_base<Index> {
    using acc_type = acc_k<K>;
    bc_arrays<K, D> s;
    std::int32_t d;
    Index const* out_ptr;
    Index* next;
    double* side;  // long rows' partial sums, K per long row, zero between steps
    level_queue q;

    __device__ acc_k<K> identity() const {
        acc_k<K> a;
#pragma unroll
        for (int c = 0; c < K; ++c) a.v[c] = 0;
        return a;
    }
    __device__ acc_k<K> combine(acc_k<K> a, acc_k<K> const& b) const {
#pragma unroll
        for (int c = 0; c < K; ++c) a.v[c] += b.v[c];
        return a;
    }
    __device__ __forceinline__ bool wants(Index v) const {
        std::int32_t dv[K];
        load_depths<K, D>(s.depth, v, dv);
        bool any = false;
#pragma unroll
        for (int c = 0; c < K; ++c) any |= c < s.active && dv[c] == -1;
        return any;
    }
    __device__ __forceinline__ void edge(Index v, Index, Index u, acc_k<K>& acc) const {
        std::int32_t du[K], dv[K];
        load_depths<K, D>(s.depth, u, du);
        load_depths<K, D>(s.depth, v, dv);  // columns v already has need no sigma
#pragma unroll
        for (int c = 0; c < K; ++c)
            if (du[c] == d && dv[c] == -1) acc.v[c] += s.sigma[std::int64_t(u) * K + c];
    }
    __device__ __forceinline__ void finish(Index v, acc_k<K> const& acc) {
        std::int32_t dv[K];
        load_depths<K, D>(s.depth, v, dv);
        bool reached = false;
#pragma unroll
        for (int c = 0; c < K; ++c)
            if (c < s.active && dv[c] == -1 && acc.v[c] > 0) {
                s.depth[std::int64_t(v) * K + c] = static_cast<D>(d + 1);
                s.sigma[std::int64_t(v) * K + c] = acc.v[c];
                reached = true;
            }
        if (reached) {
            next[detail::aggregated_slot(q.count)] = v;
            q.edges += static_cast<unsigned long long>(out_ptr[v + 1] - out_ptr[v]);
        }
    }
    __device__ __forceinline__ void partial(std::int64_t li, Index, acc_k<K> const& part) const {
#pragma unroll
        for (int c = 0; c < K; ++c)
            if (part.v[c] != 0) atomicAdd(side + li * K + c, part.v[c]);
    }
    __device__ __forceinline__ void finish_long(std::int64_t li, Index v) {
        acc_k<K> acc;
#pragma unroll
        for (int c = 0; c < K; ++c) {
            acc.v[c] = side[li * K + c];
            side[li * K + c] = 0;
        }
        finish(v, acc);
    }
    __device__ void end_block() {
        q.flush();
    }
};

/// The backward step of level d over out-edges.
template <class Index, int K, class D>
struct bc_back : walk::op_base<Index> {
    using acc_type = acc_k<K>;
    bc_arrays<K, D> s;
    std::int32_t d;
    double* side;

    __device__ acc_k<K> identity() const {
        acc_k<K> a;
#pragma unroll
        for (int c = 0; c < K; ++c) a.v[c] = 0;
        return a;
    }
    __device__ acc_k<K> combine(acc_k<K> a, acc_k<K> const& b) const {
#pragma unroll
        for (int c = 0; c < K; ++c) a.v[c] += b.v[c];
        return a;
    }
    __device__ __forceinline__ bool wants(Index v) const {
        std::int32_t dv[K];
        load_depths<K, D>(s.depth, v, dv);
        bool any = false;
#pragma unroll
        for (int c = 0; c < K; ++c) any |= dv[c] == d;
        return any;
    }
    __device__ __forceinline__ void edge(Index v, Index, Index w, acc_k<K>& acc) const {
        std::int32_t dv[K], dw[K];
        load_depths<K, D>(s.depth, v, dv);
        load_depths<K, D>(s.depth, w, dw);
#pragma unroll
        for (int c = 0; c < K; ++c)
            if (dv[c] == d && dw[c] == d + 1) {
                std::int64_t const i = std::int64_t(w) * K + c;
                acc.v[c] += s.coef[i];
            }
    }
    __device__ __forceinline__ void finish(Index v, acc_k<K> const& acc) const {
        std::int32_t dv[K];
        load_depths<K, D>(s.depth, v, dv);
        double sum = 0;
#pragma unroll
        for (int c = 0; c < K; ++c)
            if (dv[c] == d) {
                std::int64_t const i = std::int64_t(v) * K + c;
                double const dl = s.sigma[i] * acc.v[c];
                s.coef[i] = (1.0 + dl) / s.sigma[i];
                sum += dl;
            }
        s.centrality[v] += sum;
    }
    __device__ __forceinline__ void partial(std::int64_t li, Index, acc_k<K> const& part) const {
#pragma unroll
        for (int c = 0; c < K; ++c)
            if (part.v[c] != 0) atomicAdd(side + li * K + c, part.v[c]);
    }
    __device__ __forceinline__ void finish_long(std::int64_t li, Index v) const {
        acc_k<K> acc;
#pragma unroll
        for (int c = 0; c < K; ++c) {
            acc.v[c] = side[li * K + c];
            side[li * K + c] = 0;
        }
        finish(v, acc);
    }
};

/// Depth 0 and sigma 1 for every column's source; each distinct source queued once.
template <class Index, int K, class D>
__global__ void bc_sources(bc_arrays<K, D> s, Index const* __restrict__ src,
                           Index const* __restrict__ out_ptr, std::int32_t* stamp, Index* queue,
                           unsigned long long* count) {
    int const c = static_cast<int>(threadIdx.x);
    if (c >= s.active) return;
    Index const v = src[c];
    s.depth[std::int64_t(v) * K + c] = D(0);
    s.sigma[std::int64_t(v) * K + c] = 1.0;
    if (atomicExch(stamp + v, 0) != 0) {
        queue[atomicAdd(count, 1ull)] = v;
        atomicAdd(count + 1, static_cast<unsigned long long>(out_ptr[v + 1] - out_ptr[v]));
    }
}

/// Chained levels (bc_batch): level d's push has counted level d + 1 into slot (d + 1) % ring of
/// cnt; level d + 2's queue starts after it, and the slot level d + 1 counts into is cleared.
constexpr int chain_ring = 4;
__global__ void bc_advance(std::int64_t* start, unsigned long long* cnt, std::int32_t d) {
    start[d + 2] = start[d + 1] + static_cast<std::int64_t>(cnt[2 * ((d + 1) % chain_ring)]);
    cnt[2 * ((d + 2) % chain_ring)] = 0;
    cnt[2 * ((d + 2) % chain_ring) + 1] = 0;
}

/// coef = 1 / sigma: (1 + delta) / sigma for the deepest level, whose delta is 0; the backward
/// sweep overwrites it level by level above.
__global__ void bc_coef_init(double const* __restrict__ sigma, double* __restrict__ coef,
                             std::size_t cells) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < cells;
         i += std::size_t(gridDim.x) * blockDim.x)
        coef[i] = sigma[i] > 0 ? 1.0 / sigma[i] : 0.0;
}

/// Rows list[0 .. count), their entries spans[0 .. count), walked edge by edge: a warp takes 32
/// rows and its lanes take the rows' edges 32 at a time, each lane finding its edge's row by a binary search over the warp's degree
/// prefix. A level of short rows (a road network's: two or three edges) then costs one edge's
/// chain of dependent loads and atomics, where a thread a row walks its edges one after another.
/// edge(owner, row, k) for each entry k of a row (owner: the row's lane), then row(valid, row)
/// on every lane once the warp's 32 rows are done (valid: the lane had a row).
template <class Index>
struct row_span {
    Index begin, end;
};

template <class Index, class Edge, class Row>
__device__ __forceinline__ void walk_edges(Index const* __restrict__ list,
                                           row_span<Index> const* __restrict__ spans,
                                           std::int64_t count, Edge&& edge, Row&& row) {
    constexpr unsigned full = walk::full_mask;
    int const lane = static_cast<int>(threadIdx.x & 31);
    std::int64_t const warp = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    std::int64_t const warps = std::int64_t(gridDim.x) * (blockDim.x / 32);
    for (std::int64_t base = warp * 32; base < count; base += warps * 32) {
        std::int64_t const i = base + lane;
        Index r = 0;
        long long b = 0, deg = 0;
        if (i < count) {
            r = list[i];
            row_span<Index> const sp = spans[i];
            b = static_cast<long long>(sp.begin);
            deg = static_cast<long long>(sp.end) - b;
        }
        long long incl = deg;
#pragma unroll
        for (int s = 1; s < 32; s <<= 1) {
            long long const o = __shfl_up_sync(full, incl, s);
            if (lane >= s) incl += o;
        }
        long long const excl = incl - deg;
        long long const total = __shfl_sync(full, incl, 31);
        for (long long j0 = 0; j0 < total; j0 += 32) {
            long long const j = j0 + lane;
            int owner = 0;  // the last lane whose first edge is at or before j
#pragma unroll
            for (int s = 16; s >= 1; s >>= 1)
                if (__shfl_sync(full, excl, owner + s) <= j) owner += s;
            Index const rr = __shfl_sync(full, r, owner);
            long long const k = __shfl_sync(full, b, owner) + (j - __shfl_sync(full, excl, owner));
            if (j < total) edge(owner, rr, static_cast<Index>(k));
        }
        row(i < count, r);
    }
}

/// The whole batch in one cooperative kernel (tuning::bc_loop): what the chained push levels and
/// the backward walks do, with a grid barrier between levels instead of a kernel launch. Level
/// bounds live in registers (every thread reads the count of the level just found after the
/// barrier); level e's appends count into cnt[2 (e % 3)], and the count two levels back is
/// cleared while a level runs (every thread read it two barriers ago). start[] records the
/// bounds for the backward sweep. Rows are walked edge by edge (walk_edges), whatever their
/// length; the caller still keeps graphs with rows of over walk::long_min entries on the chained
/// levels, whose sliced walk spreads such a row over many warps (a warp here takes it alone).
template <class Index, int K>
struct bc_whole_args {
    walk::graph<Index> out;
    bc_arrays<K, std::int32_t> s;
    Index* queue;
    row_span<Index>* spans;  // queue[i]'s entries, loaded beside the claim that queued it
    std::int64_t* start;
    unsigned long long* cnt;  // 3 levels x {vertices, out-edges}; level 0's set by bc_sources
    std::int32_t* stamp;
    std::int32_t* levels;     // out: the number of levels
};

template <class Index, int K>
__global__ void __launch_bounds__(walk::threads, walk::min_blocks)
    bc_whole(bc_whole_args<Index, K> a) {
    namespace cg = cooperative_groups;
    cg::grid_group const grid = cg::this_grid();
    using D = std::int32_t;
    unsigned long long volatile const* const count = a.cnt;
    bool const lead = blockIdx.x == 0 && threadIdx.x == 0;
    std::int64_t begin = 0, end = static_cast<std::int64_t>(count[0]);
    if (lead) {
        a.start[0] = 0;
        a.start[1] = end;
        for (std::int64_t i = 0; i < end; ++i)
            a.spans[i] = {a.out.ptr[a.queue[i]], a.out.ptr[a.queue[i] + 1]};
    }
    grid.sync();
    std::int32_t d = 0;
    for (;; ++d) {
        unsigned long long* const appended = a.cnt + 2 * ((d + 1) % 3);
        Index* const next = a.queue + end;
        row_span<Index>* const next_spans = a.spans + end;
        if (lead) {
            a.cnt[2 * ((d + 2) % 3)] = 0;
            a.cnt[2 * ((d + 2) % 3) + 1] = 0;
        }
        // bc_push's edge, but the stamp is exchanged beside the claims rather than after them:
        // every column that passes the test below ends at depth d + 1 in v (claimed here or by
        // another thread), so v belongs to the next level whoever wins, and the first exchange
        // queues it. v's row is loaded beside them too, for the next level's walk.
        walk_edges(
            a.queue + begin, a.spans + begin, end - begin,
            [&](int, Index u, Index k) {
                Index const v = a.out.col[k];
                std::int32_t du[K], dv[K];
                load_depths<K, D>(a.s.depth, u, du);
                load_depths<K, D>(a.s.depth, v, dv);
                bool any = false;
#pragma unroll
                for (int c = 0; c < K; ++c) any |= du[c] == d && (dv[c] == -1 || dv[c] == d + 1);
                if (!any) return;
                row_span<Index> const span{a.out.ptr[v], a.out.ptr[v + 1]};
                bool const first = K > 1 && atomicExch(a.stamp + v, d + 1) != d + 1;
                // Every column's claim and sigma load issued before any result is used.
                std::int32_t old[K];
                double su[K];
#pragma unroll
                for (int c = 0; c < K; ++c) {
                    old[c] = d;  // not a column of this edge
                    if (du[c] != d || (dv[c] != -1 && dv[c] != d + 1)) continue;
                    su[c] = a.s.sigma[std::int64_t(u) * K + c];
                    old[c] = claim_depth(a.s.depth + std::int64_t(v) * K + c, d + 1);
                }
                bool claimed = false;
#pragma unroll
                for (int c = 0; c < K; ++c)
                    if (old[c] == -1 || old[c] == d + 1) {
                        atomicAdd(a.s.sigma + std::int64_t(v) * K + c, su[c]);
                        claimed |= old[c] == -1;
                    }
                if (K > 1 ? first : claimed) {
                    auto const slot = detail::aggregated_slot(appended);
                    next[slot] = v;
                    next_spans[slot] = span;
                }
            },
            [](bool, Index) {});
        grid.sync();
        std::int64_t const next_end = end + static_cast<std::int64_t>(count[2 * ((d + 1) % 3)]);
        if (lead) a.start[d + 2] = next_end;
        if (next_end == end) break;
        begin = end;
        end = next_end;
    }
    std::int32_t const levels = d + 1;
    if (lead) *a.levels = levels;
    std::size_t const stride = std::size_t(gridDim.x) * blockDim.x;
    std::size_t const cells = std::size_t(a.out.n) * K;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < cells;
         i += stride)
        a.s.coef[i] = a.s.sigma[i] > 0 ? 1.0 / a.s.sigma[i] : 0.0;
    grid.sync();
    // The deepest level's dependencies are 0; level 0 holds only sources. A row's sum over its
    // edges meets in shared memory, one slot of K a lane of the warp.
    __shared__ double sums[walk::threads / 32][32][K];
    int const lane = static_cast<int>(threadIdx.x & 31), w = static_cast<int>(threadIdx.x / 32);
    for (std::int32_t e = levels - 2; e >= 1; --e) {
        std::int64_t const b = a.start[e], en = a.start[e + 1];
        bc_back<Index, K, D> op{};
        op.s = a.s;
        op.d = e;
#pragma unroll
        for (int c = 0; c < K; ++c) sums[w][lane][c] = 0;
        __syncwarp();
        walk_edges(
            a.queue + b, a.spans + b, en - b,
            [&](int owner, Index v, Index k) {
                Index const x = a.out.col[k];
                std::int32_t dv[K], dx[K];
                load_depths<K, D>(a.s.depth, v, dv);
                load_depths<K, D>(a.s.depth, x, dx);
                // x's coefficients loaded beside its depths; only those one level down count.
                double cx[K];
#pragma unroll
                for (int c = 0; c < K; ++c) cx[c] = a.s.coef[std::int64_t(x) * K + c];
#pragma unroll
                for (int c = 0; c < K; ++c)
                    if (dv[c] == e && dx[c] == e + 1) atomicAdd(&sums[w][owner][c], cx[c]);
            },
            [&](bool valid, Index v) {
                __syncwarp();
                acc_k<K> acc;
#pragma unroll
                for (int c = 0; c < K; ++c) {
                    acc.v[c] = sums[w][lane][c];
                    sums[w][lane][c] = 0;
                }
                if (valid) op.finish(v, acc);
                __syncwarp();
            });
        grid.sync();
    }
}

template <class Index>
struct bc_graphs {
    walk::graph<Index> out, in;
    walk::long_view<Index> out_long, in_long;
    std::size_t edges;
};

/// One batch; its seconds. When the levels outgrow D it stops with `outgrown` set and the
/// centrality untouched (the seconds spent so far still count).
template <class Index, int K, class D>
double bc_batch(bc_graphs<Index> const& g, Index const* sources, int active, double* centrality,
                std::vector<std::string>& notes, bool& outgrown, bool chained, ::kleene::cuda::detail::device_stream st) {
    std::int64_t const n = g.out.n;
    std::size_t const cells = std::size_t(n) * K;
    detail::stream_buffer<D> depth{cells, st};
    detail::stream_buffer<std::int32_t> stamp{std::size_t(n), st};
    detail::stream_buffer<double> sigma{cells, st}, coef{cells, st};
    detail::stream_buffer<Index> queue{std::size_t(n) * std::size_t(active), st};
    detail::stream_buffer<double> side_out{std::size_t(g.out_long.count) * K, st},
        side_in{std::size_t(g.in_long.count) * K, st};
    detail::stream_buffer<unsigned long long> counters(2, st);
    walk::timer t(st);
    t.begin();
    KLEENE_CUDA_CHECK(cudaMemsetAsync(depth.data(), 0xff, cells * sizeof(D), st));
    KLEENE_CUDA_CHECK(
        cudaMemsetAsync(stamp.data(), 0xff, std::size_t(n) * sizeof(std::int32_t), st));
    KLEENE_CUDA_CHECK(cudaMemsetAsync(sigma.data(), 0, cells * sizeof(double), st));
    side_out.zero();
    side_in.zero();
    counters.zero();
    bc_arrays<K, D> const s{depth.data(), sigma.data(), coef.data(), centrality, active};
    // start[d]: the level-d queue is queue[start[d] .. start[d + 1]).
    std::vector<std::int64_t> start;
    std::string steps;
    // A push step from level d, appending to `next` (or, chained, to level d + 1's queue as the
    // device's `bounds` say) and counting into `count`.
    auto push_op = [&](std::int32_t d, Index* next, std::int64_t const* bounds,
                       unsigned long long* count) {
        bc_push<Index, K, D> op{};
        op.s = s;
        op.d = d;
        op.out_ptr = g.out.ptr;
        op.next = next;
        op.queue = next ? nullptr : queue.data();
        op.start = bounds;
        op.stamp = stamp.data();
        op.q.count = count;
        return op;
    };
    if (chained) {
        // Push levels queued `chain` at a time without reading their sizes: each reads its
        // bounds from start_d, and bc_advance computes the next level's start on the device.
        // The host waits once per chain (a level's read-back and launch cost more than a road
        // network's level of a few thousand edges).
        constexpr std::int32_t chain = 32;
        detail::stream_buffer<std::int64_t> start_d{std::size_t(n) + chain + 2, st};
        detail::stream_buffer<unsigned long long> cnt{2 * chain_ring, st};
        start_d.zero();
        cnt.zero();
        bc_sources<Index, K, D>
            <<<1, K, 0, st>>>(s, sources, g.out.ptr, stamp.data(), queue.data(), cnt.data());
        KLEENE_CUDA_CHECK_LAUNCH("bc_sources");
        bc_advance<<<1, 1, 0, st>>>(start_d.data(), cnt.data(), -1);
        KLEENE_CUDA_CHECK_LAUNCH("bc_advance");
        std::vector<std::int64_t> seen(chain + 1);
        std::int32_t d = 0, last = -1;  // last: the first empty level
        while (last < 0) {
            if (d + chain > max_depth<D>) {
                outgrown = true;
                return t.end();
            }
            for (std::int32_t j = 0; j < chain; ++j, ++d) {
                auto const op =
                    push_op(d, nullptr, start_d.data(), cnt.data() + 2 * ((d + 1) % chain_ring));
                walk::walk_range(g.out, g.out_long, queue.data(), start_d.data() + d, op, st);
                bc_advance<<<1, 1, 0, st>>>(start_d.data(), cnt.data(), d);
                KLEENE_CUDA_CHECK_LAUNCH("bc_advance");
            }
            detail::copy_to_host(seen.data(), start_d.data() + (d - chain), std::size_t(chain) + 1,
                                 st);
            for (std::int32_t j = 0; j < chain && last < 0; ++j)
                if (seen[std::size_t(j) + 1] == seen[std::size_t(j)]) last = d - chain + j;
        }
        start.resize(std::size_t(last) + 2);
        detail::copy_to_host(start.data(), start_d.data(), start.size(), st);
        steps.assign(std::size_t(last), 'c');
    }
    unsigned long long host[2] = {0, 0};
    if (!chained) {
        bc_sources<Index, K, D>
            <<<1, K, 0, st>>>(s, sources, g.out.ptr, stamp.data(), queue.data(), counters.data());
        KLEENE_CUDA_CHECK_LAUNCH("bc_sources");
        detail::copy_to_host(host, counters.data(), 2, st);
        start = {0, static_cast<std::int64_t>(host[0])};
    }
    unsigned long long frontier_edges = host[1], explored = 0;
    bool pull = false;
    std::int64_t previous = 0;
    for (std::int32_t d = 0; !chained && start[d + 1] > start[d]; ++d) {
        if (d + 1 > max_depth<D>) {
            outgrown = true;
            return t.end();
        }
        std::int64_t const begin = start[d], size = start[d + 1] - begin;
        explored += frontier_edges;
        double const unexplored = explored < g.edges ? double(g.edges - explored) : 0.0;
        pull = beamer::next_pulls(pull, static_cast<unsigned long long>(size),
                                  static_cast<unsigned long long>(previous),
                                  double(frontier_edges), unexplored, alpha, double(n) / beta);
        previous = size;
        counters.zero();
        Index* const next = queue.data() + start[d + 1];
        if (pull) {
            bc_pull<Index, K, D> op{};
            op.s = s;
            op.d = d;
            op.out_ptr = g.out.ptr;
            op.next = next;
            op.side = side_in.data();
            op.q.count = counters.data();
            walk::walk(g.in, g.in_long, static_cast<Index const*>(nullptr), n, op, st);
        } else {
            auto const op = push_op(d, next, nullptr, counters.data());
            walk::walk(g.out, g.out_long, queue.data() + begin, size, op, st);
        }
        steps += pull ? 'P' : 'p';
        detail::copy_to_host(host, counters.data(), 2, st);
        frontier_edges = host[1];
        start.push_back(start[d + 1] + static_cast<std::int64_t>(host[0]));
    }
    bc_coef_init<<<detail::blocks_for(cells, walk::threads, detail::persistent_blocks(8)),
                   walk::threads, 0, st>>>(sigma.data(), coef.data(), cells);
    KLEENE_CUDA_CHECK_LAUNCH("bc_coef_init");
    t.mark();
    std::int32_t const levels = static_cast<std::int32_t>(start.size()) - 2;
    // The deepest level's dependencies are 0; level 0 holds only sources.
    for (std::int32_t d = levels - 2; d >= 1; --d) {
        bc_back<Index, K, D> op{};
        op.s = s;
        op.d = d;
        op.side = side_out.data();
        walk::walk(g.out, g.out_long, queue.data() + start[d], start[d + 1] - start[d], op, st);
    }
    double const seconds = t.end();
    notes.push_back("bc: batch of " + std::to_string(active) + " sources in " + std::to_string(K) +
                    " columns, " + std::to_string(8 * sizeof(D)) +
                    "-bit depths: " + std::to_string(levels) +
                    " levels (p push, P pull, c push chained: " + steps +
                    "), forward " + walk::ms(t.seconds(0, 1)) + ", backward " +
                    walk::ms(t.seconds(1, 2)) + ", " + walk::ms(seconds));
    return seconds;
}

/// One batch in one cooperative kernel (bc_whole); its seconds, or nothing where the device
/// cannot launch it (no cooperative launch, or no block fits a multiprocessor).
template <class Index, int K>
std::optional<double> bc_batch_whole(bc_graphs<Index> const& g, Index const* sources, int active,
                                     double* centrality, std::vector<std::string>& notes,
                                     ::kleene::cuda::detail::device_stream st) {
    auto const kernel = &bc_whole<Index, K>;
    int dev = 0, coop = 0, sms = 0, per_sm = 0;
    KLEENE_CUDA_CHECK(cudaGetDevice(&dev));
    KLEENE_CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    KLEENE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    KLEENE_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, walk::threads, 0));
    if (!coop || per_sm < 1) return std::nullopt;
    // Two blocks a multiprocessor; 1, 1/2 and 1/4 a multiprocessor measured the same (H200).
    unsigned const blocks = static_cast<unsigned>(sms * std::min(per_sm, walk::min_blocks));
    std::int64_t const n = g.out.n;
    std::size_t const cells = std::size_t(n) * K;
    detail::stream_buffer<std::int32_t> depth{cells, st};
    detail::stream_buffer<std::int32_t> stamp{std::size_t(n), st};
    detail::stream_buffer<double> sigma{cells, st}, coef{cells, st};
    detail::stream_buffer<Index> queue{std::size_t(n) * std::size_t(active), st};
    detail::stream_buffer<row_span<Index>> spans{std::size_t(n) * std::size_t(active), st};
    detail::stream_buffer<std::int64_t> start{std::size_t(n) + 2, st};
    detail::stream_buffer<unsigned long long> cnt{6, st};
    detail::stream_buffer<std::int32_t> levels{1, st};
    walk::timer t(st);
    t.begin();
    KLEENE_CUDA_CHECK(cudaMemsetAsync(depth.data(), 0xff, cells * sizeof(std::int32_t), st));
    KLEENE_CUDA_CHECK(
        cudaMemsetAsync(stamp.data(), 0xff, std::size_t(n) * sizeof(std::int32_t), st));
    KLEENE_CUDA_CHECK(cudaMemsetAsync(sigma.data(), 0, cells * sizeof(double), st));
    cnt.zero();
    bc_arrays<K, std::int32_t> const s{depth.data(), sigma.data(), coef.data(), centrality,
                                       active};
    bc_sources<Index, K, std::int32_t>
        <<<1, K, 0, st>>>(s, sources, g.out.ptr, stamp.data(), queue.data(), cnt.data());
    KLEENE_CUDA_CHECK_LAUNCH("bc_sources");
    bc_whole_args<Index, K> args{g.out,        s,          queue.data(), spans.data(),
                                 start.data(), cnt.data(), stamp.data(), levels.data()};
    void* params[] = {&args};
    KLEENE_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void const*>(kernel),
                                                  dim3(blocks), dim3(walk::threads), params, 0,
                                                  st));
    double const seconds = t.end();
    std::int32_t depth_count = 0;
    detail::copy_to_host(&depth_count, levels.data(), 1, st);
    notes.push_back("bc: batch of " + std::to_string(active) + " sources in " + std::to_string(K) +
                    " columns, 32-bit depths: " + std::to_string(depth_count) +
                    " levels, forward and backward in one cooperative kernel of " +
                    std::to_string(blocks) + " blocks, " + walk::ms(seconds));
    return seconds;
}

/// Graphs of at most this many edges a vertex on average (road networks, meshes: levels many
/// and small) chain their push levels (bc_batch) and start with 32-bit depths.
constexpr double chained_max_degree = 8;

/// 8-bit depths first; 32-bit when a batch has 255 levels or more.
template <class Index, int K>
double bc_batch_any(bc_graphs<Index> const& g, Index const* sources, int active,
                    double* centrality, std::vector<std::string>& notes, bc_level_loop loop,
                    ::kleene::cuda::detail::device_stream st) {
    bool outgrown = false;
    bool const chained = double(g.edges) <= chained_max_degree * double(g.out.n);
    if (chained && loop == bc_level_loop::cooperative && g.out_long.count == 0)
        if (auto const s = bc_batch_whole<Index, K>(g, sources, active, centrality, notes, st))
            return *s;
    if (chained)
        return bc_batch<Index, K, std::int32_t>(g, sources, active, centrality, notes, outgrown,
                                                true, st);
    double const s = bc_batch<Index, K, std::uint8_t>(g, sources, active, centrality, notes,
                                                      outgrown, false, st);
    if (!outgrown) return s;
    notes.push_back("bc: more than " + std::to_string(max_depth<std::uint8_t>) +
                    " levels: the batch runs again with 32-bit depths");
    return s + bc_batch<Index, K, std::int32_t>(g, sources, active, centrality, notes, outgrown,
                                                false, st);
}

/// The search into `run` (every field anew; run.centrality keeps its storage). `out`: n doubles on
/// the device that take the scores instead of run.centrality (left empty), when not null.
template <index_type Index>
void bc_impl(bc_run& run, csr_matrix<bool, Index, device> const& a,
             csr_matrix<bool, Index, device> const& at, std::vector<std::int64_t> const& sources,
             double* out, context& ctx) {
    walk::require_square("betweenness", a);
    walk::require_transpose("betweenness", a, at);
    std::int64_t const n = static_cast<std::int64_t>(a.rows());
    for (std::int64_t src : sources)
        if (src < 0 || src >= n)
            throw invalid_argument("betweenness: source " + std::to_string(src) +
                                   " is not a vertex of a " + std::to_string(n) + "-vertex graph");
    {
        auto keep = std::move(run.centrality);  // its storage, for the scores
        run = bc_run{};
        run.centrality = std::move(keep);
    }
    auto const st = ::kleene::cuda::detail::stream_of(ctx);
    if (out) run.centrality.clear();
    if (n == 0 || sources.empty()) {
        if (out) {
            KLEENE_CUDA_CHECK(cudaMemsetAsync(out, 0, std::size_t(n) * sizeof(double), st));
            KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
        } else {
            run.centrality.assign(std::size_t(n), 0.0);
        }
        run.notes.push_back("bc: no sources");
        return;
    }
    if (!out) run.centrality.resize(std::size_t(n));  // not zeroed: the copy fills every entry
    bc_graphs<Index> g;
    g.out = walk::view_of(a);
    g.in = walk::view_of(at);
    g.edges = a.nnz();
    walk::long_rows<Index> const out_long(g.out, a.nnz(), st);
    bool const symmetric = a.row_ptr() == at.row_ptr() && a.col_idx() == at.col_idx();
    std::optional<walk::long_rows<Index>> in_long;
    if (!symmetric) in_long.emplace(g.in, at.nnz(), st);
    g.out_long = out_long.view();
    g.in_long = symmetric ? out_long.view() : in_long->view();

    // The scores: summed into the caller's device vector, or into a temporary copied back.
    detail::stream_buffer<double> centrality{out ? 0 : std::size_t(n), st};
    double* const c = out ? out : centrality.data();
    KLEENE_CUDA_CHECK(cudaMemsetAsync(c, 0, std::size_t(n) * sizeof(double), st));
    std::vector<Index> src(sources.begin(), sources.end());
    detail::stream_buffer<Index> src_d{src.size(), st};
    KLEENE_CUDA_CHECK(cudaMemcpyAsync(src_d.data(), src.data(), src.size() * sizeof(Index),
                                      cudaMemcpyHostToDevice, st));
    // Automatic: the cooperative kernel (H200, NE / NY, 4 sources: 55.2 / 16.2 ms chained, 30.6 /
    // 8.7 ms in one kernel; docs/performance.md).
    bc_level_loop const loop = ctx.tune.bc_loop == bc_level_loop::automatic
                                   ? bc_level_loop::cooperative
                                   : ctx.tune.bc_loop;
    for (std::size_t first = 0; first < src.size();) {
        int const active = static_cast<int>(std::min<std::size_t>(max_batch, src.size() - first));
        Index const* const batch = src_d.data() + first;
        if (active == 1)
            run.seconds += bc_batch_any<Index, 1>(g, batch, active, c, run.notes, loop, st);
        else if (active == 2)
            run.seconds += bc_batch_any<Index, 2>(g, batch, active, c, run.notes, loop, st);
        else if (active <= 4)
            run.seconds += bc_batch_any<Index, 4>(g, batch, active, c, run.notes, loop, st);
        else
            run.seconds += bc_batch_any<Index, 8>(g, batch, active, c, run.notes, loop, st);
        first += std::size_t(active);
    }
    if (out) KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    else detail::copy_to_host(run.centrality.data(), c, std::size_t(n), ctx);
    run.notes.push_back("bc: n=" + std::to_string(n) + ", entries=" + std::to_string(a.nnz()) +
                        ", " + std::to_string(sources.size()) + " sources" +
                        (symmetric ? " (symmetric: pull steps read A)" : "") + ", " +
                        walk::ms(run.seconds) + " (gpu)" +
                        (out ? ", scores left on the device" : ""));
}

}  // namespace

template <index_type Index>
bc_run betweenness(csr_matrix<bool, Index, device> const& a,
                   csr_matrix<bool, Index, device> const& at,
                   std::vector<std::int64_t> const& sources, context& ctx) {
    bc_run run;
    bc_impl<Index>(run, a, at, sources, nullptr, ctx);
    return run;
}

template <index_type Index>
void betweenness(bc_run& run, csr_matrix<bool, Index, device> const& a,
                 csr_matrix<bool, Index, device> const& at,
                 std::vector<std::int64_t> const& sources, context& ctx) {
    bc_impl<Index>(run, a, at, sources, nullptr, ctx);
}

template <index_type Index>
bc_run betweenness(csr_matrix<bool, Index, device> const& a,
                   csr_matrix<bool, Index, device> const& at,
                   std::vector<std::int64_t> const& sources,
                   dense_vector<double, device>& centrality, context& ctx) {
    if (centrality.size() != a.rows())
        throw dimension_mismatch("betweenness: the result vector holds " +
                                 std::to_string(centrality.size()) + " entries, the graph " +
                                 std::to_string(a.rows()) + " vertices");
    bc_run run;
    bc_impl<Index>(run, a, at, sources, centrality.data(), ctx);
    return run;
}

namespace {
/// *top = the largest of v (non-negative doubles order as their bit patterns do).
__global__ void largest_kernel(double const* __restrict__ v, std::size_t n,
                               unsigned long long* top) {
    unsigned long long best = 0;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        if (v[i] > 0) best = max(best, static_cast<unsigned long long>(__double_as_longlong(v[i])));
    for (int o = 16; o > 0; o /= 2) best = max(best, __shfl_down_sync(0xffffffffu, best, o));
    if ((threadIdx.x & 31) == 0 && best) atomicMax(top, best);
}
__global__ void scale_kernel(double* __restrict__ v, std::size_t n, double by) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        v[i] /= by;
}
}  // namespace

double scale_by_largest(double* v, std::size_t n, context& ctx) {
    if (n == 0) return 0;
    auto const st = ::kleene::cuda::detail::stream_of(ctx);
    detail::stream_buffer<unsigned long long> top(1, st);
    top.zero();
    unsigned const blocks = detail::blocks_for(n, 256, 1024);
    largest_kernel<<<blocks, 256, 0, st>>>(v, n, top.data());
    KLEENE_CUDA_CHECK_LAUNCH("largest_kernel");
    double const largest = std::bit_cast<double>(detail::read_one(top.data(), st));
    if (largest > 0) {
        scale_kernel<<<blocks, 256, 0, st>>>(v, n, largest);
        KLEENE_CUDA_CHECK_LAUNCH("scale_kernel");
    }
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    return largest;
}

template bc_run betweenness<std::int32_t>(csr_matrix<bool, std::int32_t, device> const&,
                                          csr_matrix<bool, std::int32_t, device> const&,
                                          std::vector<std::int64_t> const&, context&);
template bc_run betweenness<std::int64_t>(csr_matrix<bool, std::int64_t, device> const&,
                                          csr_matrix<bool, std::int64_t, device> const&,
                                          std::vector<std::int64_t> const&, context&);
template void betweenness<std::int32_t>(bc_run&, csr_matrix<bool, std::int32_t, device> const&,
                                        csr_matrix<bool, std::int32_t, device> const&,
                                        std::vector<std::int64_t> const&, context&);
template void betweenness<std::int64_t>(bc_run&, csr_matrix<bool, std::int64_t, device> const&,
                                        csr_matrix<bool, std::int64_t, device> const&,
                                        std::vector<std::int64_t> const&, context&);
template bc_run betweenness<std::int32_t>(csr_matrix<bool, std::int32_t, device> const&,
                                          csr_matrix<bool, std::int32_t, device> const&,
                                          std::vector<std::int64_t> const&,
                                          dense_vector<double, device>&, context&);
template bc_run betweenness<std::int64_t>(csr_matrix<bool, std::int64_t, device> const&,
                                          csr_matrix<bool, std::int64_t, device> const&,
                                          std::vector<std::int64_t> const&,
                                          dense_vector<double, device>&, context&);

}  // namespace kleene::cuda
