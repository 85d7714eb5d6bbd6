// Triangle counting on the GPU (graph_kernels.hpp). With relabel, vertices are renumbered by
// increasing degree (a CUB radix sort of the degrees, ties by vertex number); then U keeps each
// edge once, in the row of its endpoint with the smaller number (the strictly upper triangle of
// the renumbered pattern, the diagonal dropped), its rows sorted (below). Without, U's rows are
// the sorted suffixes of A's: the row walk reads them in A itself (a binary search a row finds
// where each starts), and a thread per entry copies them in order without a sort. A
// triangle u < v < w is then counted once, at the entry (u, v) of U, as the element w common to
// U(u) after v and U(v): sum over U's entries of |U(u, > v) ∩ U(v)| (Sandia's masked L·L' on the
// upper triangle). Low-degree-first numbering keeps U's rows short: a hub's row holds only the
// still larger hubs.
//
// Intersections, one per entry of U, in the row walk of graph_walk.cuh (a lane per short row;
// tc_tuning::entry_parallel: a thread per entry): a thread merges the two sorted lists when they
// are short, or looks the shorter one's (at most 8) elements up in the longer by binary search;
// other pairs go to a queue, sorted by the entry's column v (tc_tuning::sort_queue), which a
// second kernel gives a group of 8 lanes each: the group merges the lists slice by slice when the
// longer one is short enough against the searches it would take (tc_tuning::heavy_merge), else
// looks the shorter list's elements up in the longer one. With the queue sorted, neighbouring
// groups walk the same U(v) and find it in cache. The count is exact: 64-bit per thread, summed
// per block, one atomic per block. U's rows are sorted as one radix sort of (row, column) keys
// (tc_tuning::radix_rows; a segmented sort of millions of short rows took twice as long).
//
// Measured at Kronecker scale 22 on an H100 (docs/lab/performance-history.md, "Session of
// 2026-11-25 (second)"): 84 ms with the defaults, 115 ms with the queue unsorted, every pair
// searched and the segmented sort. Earlier variants, also slower: a warp per pair, groups merging
// the two lists split eight ways without the sorted queue, and a warp per row of U held in shared
// memory (docs/lab/header-measurements.md).
//
// Everything runs on the context's stream.

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <bit>
#include <cstdint>
#include <optional>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <kleene/algorithms/cuda/detail/graph_walk.cuh>
#include <kleene/algorithms/cuda/graph_kernels.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/error.hpp>
#include <string>
#include <type_traits>

namespace kleene::cuda {
namespace {

/// Lanes that share one queued pair: most queued pairs have a shorter list of 9 to 40 entries, so
/// a whole warp per pair would leave most lanes idle.
constexpr int pair_lanes = 8;

template <class Index>
__device__ __forceinline__ Index new_id(Index const* rank, Index v) {
    return rank ? rank[v] : v;
}

template <class Index, class Key>
__global__ void tc_degrees(Index const* __restrict__ ptr, std::int64_t n, Key* __restrict__ deg,
                           Index* __restrict__ ids) {
    for (std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; v < n;
         v += std::int64_t(gridDim.x) * blockDim.x) {
        deg[v] = static_cast<Key>(ptr[v + 1] - ptr[v]);
        ids[v] = static_cast<Index>(v);
    }
}

template <class Index>
__global__ void tc_ranks(Index const* __restrict__ order, std::int64_t n,
                         Index* __restrict__ rank) {
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x)
        rank[order[i]] = static_cast<Index>(i);
}

/// Entries of U per (new) row: the neighbours numbered above the row's vertex.
template <class Index>
struct tc_count_upper : walk::op_base<Index> {
    using acc_type = Index;
    Index const* rank;
    Index* count;

    __device__ Index identity() const { return 0; }
    __device__ Index combine(Index a, Index b) const { return a + b; }
    __device__ __forceinline__ void edge(Index u, Index, Index v, Index& acc) const {
        acc += new_id(rank, v) > new_id(rank, u) ? 1 : 0;
    }
    __device__ __forceinline__ void finish(Index u, Index acc) const {
        count[new_id(rank, u)] = acc;
    }
    __device__ __forceinline__ void partial(std::int64_t, Index u, Index part) const {
        if (part) walk::atomic_add_index(count + new_id(rank, u), part);
    }
};

/// U's entries, each row in any order (sorted afterwards), and the row of every entry (sorting
/// within rows leaves it right). With ukey, each entry is written as one key (row << bits | col)
/// instead, for a radix sort of all of U at once.
template <class Index>
struct tc_fill_upper : walk::op_base<Index> {
    using acc_type = walk::no_acc;
    static constexpr bool batch_loads = false;
    Index const* rank;
    Index* cursor;
    Index* ucol;
    Index* urow;
    std::uint64_t* ukey;
    int bits;
    // Original numbering (rank == nullptr): A's rows are sorted, so U's row u is the suffix of
    // A's row u above u, in order, and entry k of A lands at k + uptr[u + 1] - aptr[u + 1]:
    // no cursor, no sort.
    Index const* aptr = nullptr;
    Index const* uptr = nullptr;

    __device__ walk::no_acc identity() const { return {0}; }
    __device__ walk::no_acc combine(walk::no_acc a, walk::no_acc) const { return a; }
    __device__ __forceinline__ void edge(Index u, Index k, Index v, walk::no_acc&) const {
        Index const nu = new_id(rank, u), nv = new_id(rank, v);
        if (nv > nu) {
            Index const at = uptr ? static_cast<Index>(k + (uptr[u + 1] - aptr[u + 1]))
                                  : walk::atomic_add_index(cursor + nu, Index(1));
            if (ukey) {
                ukey[at] = (std::uint64_t(nu) << bits) | std::uint64_t(nv);
                return;
            }
            ucol[at] = nv;
            if (urow) urow[at] = nu;
        }
    }
    __device__ __forceinline__ void finish(Index, walk::no_acc) const {}
};

/// U's columns (and rows) out of the sorted keys.
template <class Index>
__global__ void tc_split_keys(std::uint64_t const* __restrict__ key, std::int64_t entries,
                              int bits, Index* __restrict__ ucol, Index* __restrict__ urow) {
    std::uint64_t const low = (std::uint64_t(1) << bits) - 1;
    for (std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < entries;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        std::uint64_t const k = key[e];
        ucol[e] = static_cast<Index>(k & low);
        if (urow) urow[e] = static_cast<Index>(k >> bits);
    }
}

/// Swaps the ranges [a0, a1) and [b0, b1) so that the first is the shorter.
__device__ __forceinline__ void shorter_first(std::int64_t& a0, std::int64_t& a1, std::int64_t& b0,
                                              std::int64_t& b1) {
    if (a1 - a0 > b1 - b0) {
        std::int64_t t = a0;
        a0 = b0;
        b0 = t;
        t = a1;
        a1 = b1;
        b1 = t;
    }
}

using detail::first_at_least;  // kleene/cuda/detail/device_functions.cuh

/// begin[u]: the first entry of A's sorted row u above u (U's row u, in place).
template <class Index>
__global__ void tc_upper_begin(Index const* __restrict__ ptr, Index const* __restrict__ col,
                               std::int64_t n, Index* __restrict__ begin) {
    for (std::int64_t u = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; u < n;
         u += std::int64_t(gridDim.x) * blockDim.x)
        begin[u] = static_cast<Index>(first_at_least(col, ptr[u], ptr[u + 1], Index(u + 1)));
}

/// |list a ∩ list b|, both sorted, by one thread: a merge, or binary searches of the shorter.
template <class Index>
__device__ __forceinline__ unsigned long long intersect_lane(Index const* __restrict__ col,
                                                             std::int64_t a0, std::int64_t a1,
                                                             std::int64_t b0, std::int64_t b1,
                                                             std::int64_t merge_max) {
    unsigned long long c = 0;
    if ((a1 - a0) + (b1 - b0) <= merge_max) {
        while (a0 < a1 && b0 < b1) {
            Index const x = col[a0], y = col[b0];
            c += x == y ? 1u : 0u;
            a0 += x <= y ? 1 : 0;
            b0 += y <= x ? 1 : 0;
        }
        return c;
    }
    shorter_first(a0, a1, b0, b1);
    // The shorter list's elements rise, so each search starts where the last one ended.
    for (; a0 < a1 && b0 < b1; ++a0) {
        Index const x = col[a0];
        std::int64_t const lo = first_at_least(col, b0, b1, x);
        if (lo < b1 && col[lo] == x) ++c;
        b0 = lo;
    }
    return c;
}

/// A queued pair: entry k of row u of U.
template <class Index>
struct tc_pair {
    Index u, k;
};

/// The queue of pairs of long lists, keyed by the entry's column v (for the sort).
template <class Index>
struct tc_queue {
    std::make_unsigned_t<Index>* v;
    tc_pair<Index>* pair;
    unsigned long long* count;
};

/// U's rows: row u is col[begin[u] .. end[u]). U built as CSR: begin = uptr, end = uptr + 1;
/// in place in A (original numbering): begin[u] is the first entry of A's row u above u, end =
/// A's row pointers + 1.
template <class Index>
struct tc_rows {
    Index const* begin;
    Index const* end;
};

/// Entry k = (u, v) of U: |U(u) after v ∩ U(v)| when one thread does it cheaply, else the pair
/// is queued for a group of lanes.
template <class Index>
__device__ __forceinline__ unsigned long long tc_entry(tc_rows<Index> const& rows,
                                                       Index const* __restrict__ col, Index u,
                                                       Index k, Index v, tc_tuning const& tune,
                                                       tc_queue<Index> const& queue) {
    std::int64_t const a0 = std::int64_t(k) + 1, a1 = rows.end[u];
    std::int64_t const b0 = rows.begin[v], b1 = rows.end[v];
    std::int64_t const la = a1 - a0, lb = b1 - b0;
    if (la <= 0 || lb <= 0) return 0;
    if (la + lb <= tune.merge_max || (la < lb ? la : lb) <= tune.search_max)
        return intersect_lane(col, a0, a1, b0, b1, tune.merge_max);
    auto const slot = detail::aggregated_slot(queue.count);
    queue.v[slot] = static_cast<std::make_unsigned_t<Index>>(v);
    queue.pair[slot] = tc_pair<Index>{u, k};
    return 0;
}

/// The row walk's op: tc_entry for each entry of U.
template <class Index>
struct tc_intersect : walk::op_base<Index> {
    using acc_type = walk::no_acc;
    static constexpr bool batch_loads = false;
    tc_rows<Index> rows;
    Index const* col;
    tc_tuning tune;
    tc_queue<Index> queue;
    unsigned long long* total;
    bool in_place;  // walking A's rows: only the entries above the diagonal are U's
    unsigned long long found = 0;

    __device__ walk::no_acc identity() const { return {0}; }
    __device__ walk::no_acc combine(walk::no_acc a, walk::no_acc) const { return a; }
    __device__ __forceinline__ void edge(Index u, Index k, Index v, walk::no_acc&) {
        if (in_place && v <= u) return;
        found += tc_entry(rows, col, u, k, v, tune, queue);
    }
    __device__ __forceinline__ void finish(Index, walk::no_acc) const {}
    __device__ void end_block() {
        unsigned long long const s = walk::block_sum(found);
        if (threadIdx.x == 0 && s) atomicAdd(total, s);
    }
};

/// tc_entry with one thread per entry of U (urow: the row of each entry).
template <class Index>
__global__ void __launch_bounds__(walk::threads, walk::min_blocks)
    tc_entries(tc_rows<Index> rows, Index const* __restrict__ col,
               Index const* __restrict__ urow, std::int64_t entries, tc_tuning tune,
               tc_queue<Index> queue, unsigned long long* total) {
    unsigned long long found = 0;
    for (std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < entries;
         e += std::int64_t(gridDim.x) * blockDim.x)
        found += tc_entry(rows, col, urow[e], static_cast<Index>(e), col[e], tune, queue);
    unsigned long long const s = walk::block_sum(found);
    if (threadIdx.x == 0 && s) atomicAdd(total, s);
}

/// A group of pair_lanes lanes per queued pair. The group first loads pair_lanes evenly spaced
/// splitters of the longer list and shares them through shuffles: lane j's slice of the longer
/// list starts at splitter j. Then, by the pair's sizes (tc_tuning::heavy_merge):
///  - search: each lane looks every pair_lanes-th element of the shorter list up in the slice
///    its splitters name (three levels of dependent loads fewer); a lane's elements rise, so its
///    next search also starts no earlier than where its last one ended;
///  - merge: lane j merges its slice with the shorter list's elements in [splitter j,
///    splitter j + 1) (found by binary search in the shorter list): reads run along the lists
///    instead of jumping, which costs fewer memory sectors when the longer list is not much longer
///    than the searches would read.
/// Every element of the shorter list is counted by exactly one lane either way.
template <class Index>
__global__ void __launch_bounds__(walk::threads, walk::min_blocks)
    tc_heavy(tc_rows<Index> rows, Index const* __restrict__ col,
             tc_pair<Index> const* __restrict__ pairs, unsigned long long const* heavy_count,
             float heavy_merge, unsigned long long* total) {
    int const gl = static_cast<int>(threadIdx.x % pair_lanes);
    unsigned const group_mask = ((1u << pair_lanes) - 1u)
                                << (threadIdx.x % 32u / pair_lanes * pair_lanes);
    std::int64_t const count = static_cast<std::int64_t>(*heavy_count);
    std::int64_t const groups = std::int64_t(gridDim.x) * (walk::threads / pair_lanes);
    unsigned long long found = 0;
    for (std::int64_t q = (std::int64_t(blockIdx.x) * walk::threads + threadIdx.x) / pair_lanes;
         q < count; q += groups) {
        Index const u = pairs[q].u, k = pairs[q].k;
        std::int64_t a0 = std::int64_t(k) + 1, a1 = rows.end[u];
        Index const v = col[k];
        std::int64_t b0 = rows.begin[v], b1 = rows.end[v];
        shorter_first(a0, a1, b0, b1);
        // Slice j of the longer list is [b0 + j L / pair_lanes, b0 + (j + 1) L / pair_lanes);
        // lane j holds the first element of slice j (queued pairs have L > merge_max / 2 >=
        // pair_lanes, so no slice is empty; triangle_count checks merge_max).
        std::int64_t const len = b1 - b0;
        Index const mine = col[b0 + gl * len / pair_lanes];
        Index split[pair_lanes];
#pragma unroll
        for (int j = 0; j < pair_lanes; ++j)
            split[j] = __shfl_sync(group_mask, mine, j, pair_lanes);
        float const shorter = float(a1 - a0);
        if (heavy_merge > 0 &&
            float(len) <= heavy_merge * shorter * __log2f(float(len) / float(pair_lanes))) {
            std::int64_t i = gl == 0 ? a0 : first_at_least(col, a0, a1, split[gl]);
            std::int64_t const i1 =
                gl + 1 < pair_lanes ? first_at_least(col, a0, a1, split[gl + 1]) : a1;
            std::int64_t j = b0 + gl * len / pair_lanes;
            std::int64_t const j1 = gl + 1 < pair_lanes ? b0 + (gl + 1) * len / pair_lanes : b1;
            while (i < i1 && j < j1) {
                Index const x = col[i], y = col[j];
                found += x == y ? 1u : 0u;
                i += x <= y ? 1 : 0;
                j += y <= x ? 1 : 0;
            }
            continue;
        }
        std::int64_t lo_floor = b0;
        for (std::int64_t i = a0 + gl; i < a1; i += pair_lanes) {
            Index const x = col[i];
            int j = 0;
#pragma unroll
            for (int s = 1; s < pair_lanes; ++s) j += split[s] <= x ? 1 : 0;
            std::int64_t lo = b0 + j * len / pair_lanes;
            std::int64_t hi = j + 1 < pair_lanes ? b0 + (j + 1) * len / pair_lanes : b1;
            if (lo < lo_floor) lo = lo_floor;
            lo = first_at_least(col, lo, hi, x);
            if (lo < b1 && col[lo] == x) ++found;
            lo_floor = lo;
        }
    }
    unsigned long long const s = walk::block_sum(found);
    if (threadIdx.x == 0 && s) atomicAdd(total, s);
}

unsigned grid_for(std::int64_t n) {
    return detail::blocks_for(std::size_t(n), walk::threads, detail::persistent_blocks(8));
}

}  // namespace

template <index_type Index>
tc_run triangle_count(csr_matrix<bool, Index, device> const& a, bool relabel, tc_tuning const& tune,
                      context& ctx) {
    walk::require_square("triangle_count", a);
    if (tune.merge_max < 2 * pair_lanes || tune.search_max < 0 || !(tune.heavy_merge >= 0) ||
        !std::isfinite(tune.heavy_merge))
        throw invalid_argument(
            "triangle_count: tc_tuning needs merge_max >= " + std::to_string(2 * pair_lanes) +
            ", search_max >= 0 and a finite heavy_merge >= 0, not " +
            std::to_string(tune.merge_max) + ", " + std::to_string(tune.search_max) + " and " +
            std::to_string(tune.heavy_merge));
    tc_run run;
    run.relabelled = relabel;
    std::int64_t const n = static_cast<std::int64_t>(a.rows());
    if (n == 0 || a.nnz() == 0) {
        run.notes.push_back("tc: no edges");
        return run;
    }
    using Key = std::make_unsigned_t<Index>;
    auto const st = ::kleene::cuda::detail::stream_of(ctx);
    walk::graph<Index> const g = walk::view_of(a);
    walk::timer t(st);
    t.begin();  // mark 0
    detail::stream_buffer<Index> rank;
    if (relabel) {
        detail::stream_buffer<Key> deg{std::size_t(n), st}, deg_sorted{std::size_t(n), st};
        detail::stream_buffer<Index> ids{std::size_t(n), st}, order{std::size_t(n), st};
        rank = detail::stream_buffer<Index>{std::size_t(n), st};
        tc_degrees<Index, Key>
            <<<grid_for(n), walk::threads, 0, st>>>(a.row_ptr(), n, deg.data(), ids.data());
        KLEENE_CUDA_CHECK_LAUNCH("tc_degrees");
        constexpr int key_bits = int(sizeof(Key) * 8);
        std::size_t bytes = 0;
        KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, deg.data(),
                                                          deg_sorted.data(), ids.data(),
                                                          order.data(), n, 0, key_bits, st));
        detail::stream_buffer<unsigned char> temp(bytes, st);
        KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), bytes, deg.data(),
                                                          deg_sorted.data(), ids.data(),
                                                          order.data(), n, 0, key_bits, st));
        tc_ranks<Index><<<grid_for(n), walk::threads, 0, st>>>(order.data(), n, rank.data());
        KLEENE_CUDA_CHECK_LAUNCH("tc_ranks");
    }
    Index const* const r = relabel ? rank.data() : nullptr;
    t.mark();  // 1: renumbered

    walk::long_rows<Index> const lr(g, a.nnz(), st);
    int const bits = std::max(1, int(std::bit_width(std::uint64_t(n - 1))));
    // In place (original numbering, the row walk): U's row u is the part of A's sorted row u
    // above u, found by a binary search a row; nothing is built, counted, sorted or waited for.
    bool const in_place = !relabel && !tune.entry_parallel;
    detail::stream_buffer<Index> uptr, ucol, urow, ubegin;
    std::int64_t unnz = 0;
    tc_rows<Index> rows{};
    Index const* ucol_p = nullptr;
    bool radix = false;
    if (in_place) {
        ubegin = detail::stream_buffer<Index>{std::size_t(n), st};
        tc_upper_begin<Index>
            <<<grid_for(n), walk::threads, 0, st>>>(a.row_ptr(), a.col_idx(), n, ubegin.data());
        KLEENE_CUDA_CHECK_LAUNCH("tc_upper_begin");
        rows = {ubegin.data(), a.row_ptr() + 1};
        ucol_p = a.col_idx();

        t.mark();  // 2, 3, 4: nothing to count, fill or sort
        t.mark();
        t.mark();
    } else {
        // U: count per row, scan, scatter, sort each row.
        uptr = detail::stream_buffer<Index>{std::size_t(n) + 1, st};
        {
            detail::stream_buffer<Index> per_row{std::size_t(n), st};
            per_row.zero();  // long rows add their slices' counts into it
            KLEENE_CUDA_CHECK(cudaMemsetAsync(uptr.data(), 0, sizeof(Index), st));
            walk::walk(g, lr.view(), static_cast<Index const*>(nullptr), n,
                       tc_count_upper<Index>{{}, r, per_row.data()}, st);
            std::size_t bytes = 0;
            KLEENE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, per_row.data(),
                                                            uptr.data() + 1, n, st));
            detail::stream_buffer<unsigned char> temp(bytes, st);
            KLEENE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.data(), bytes, per_row.data(),
                                                            uptr.data() + 1, n, st));
        }
        unnz = static_cast<std::int64_t>(detail::read_one(uptr.data() + n, st));
        if (unnz == 0) {
            run.seconds = t.end();
            run.notes.push_back("tc: no edges off the diagonal");
            return run;
        }
        ucol = detail::stream_buffer<Index>{std::size_t(unnz), st};
        urow = detail::stream_buffer<Index>{tune.entry_parallel ? std::size_t(unnz) : 0, st};
        t.mark();  // 2: U's rows counted
        Index* const urow_out = tune.entry_parallel ? urow.data() : nullptr;
        detail::stream_buffer<Index> cursor{std::size_t(n), st};
        KLEENE_CUDA_CHECK(cudaMemcpyAsync(cursor.data(), uptr.data(),
                                          std::size_t(n) * sizeof(Index), cudaMemcpyDeviceToDevice,
                                          st));
        radix = tune.radix_rows && 2 * bits <= 64;
        if (!relabel) {
            // Rows in place: the original numbering keeps A's sorted order (tc_fill_upper).
            tc_fill_upper<Index> op{{}, nullptr, nullptr, ucol.data(), urow_out, nullptr, bits};
            op.aptr = a.row_ptr();
            op.uptr = uptr.data();
            walk::walk(g, lr.view(), static_cast<Index const*>(nullptr), n, op, st);
            t.mark();  // 3: U filled
        } else if (radix) {
            // One radix sort of (row, column) keys: rows of U are many and short, which a segmented
            // sort handles slowly.
            detail::stream_buffer<std::uint64_t> key{std::size_t(unnz), st},
                sorted{std::size_t(unnz), st};
            walk::walk(
                g, lr.view(), static_cast<Index const*>(nullptr), n,
                tc_fill_upper<Index>{{}, r, cursor.data(), nullptr, nullptr, key.data(), bits}, st);
            t.mark();  // 3: U filled
            std::size_t bytes = 0;
            KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, key.data(),
                                                             sorted.data(), unnz, 0, 2 * bits, st));
            detail::stream_buffer<unsigned char> temp(bytes, st);
            KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.data(), bytes, key.data(),
                                                             sorted.data(), unnz, 0, 2 * bits, st));
            tc_split_keys<Index><<<grid_for(unnz), walk::threads, 0, st>>>(
                sorted.data(), unnz, bits, ucol.data(), urow_out);
            KLEENE_CUDA_CHECK_LAUNCH("tc_split_keys");
        } else {
            detail::stream_buffer<Index> scattered{std::size_t(unnz), st};
            walk::walk(g, lr.view(), static_cast<Index const*>(nullptr), n,
                       tc_fill_upper<Index>{
                           {}, r, cursor.data(), scattered.data(), urow_out, nullptr, bits},
                       st);
            t.mark();  // 3: U filled
            std::size_t bytes = 0;
            KLEENE_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, scattered.data(),
                                                                 ucol.data(), unnz, n, uptr.data(),
                                                                 uptr.data() + 1, st));
            detail::stream_buffer<unsigned char> temp(bytes, st);
            KLEENE_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(
                temp.data(), bytes, scattered.data(), ucol.data(), unnz, n, uptr.data(),
                uptr.data() + 1, st));
        }
        cursor.reset();
        t.mark();  // 4: U's rows sorted
        rows = {uptr.data(), uptr.data() + 1};
        ucol_p = ucol.data();
    }

    // Count over U's entries: cheap pairs at once, the others queued.
    // At most one queued pair an entry of U (in place: of A, U's entries being among them).
    std::size_t const queue_cap = in_place ? a.nnz() : std::size_t(unnz);
    detail::stream_buffer<Key> queue_v{queue_cap, st};
    detail::stream_buffer<tc_pair<Index>> queue_pair{queue_cap, st};
    detail::stream_buffer<unsigned long long> counters(2, st);  // queued pairs, triangles
    counters.zero();
    tc_queue<Index> const queue{queue_v.data(), queue_pair.data(), counters.data()};
    if (tune.entry_parallel) {
        tc_entries<Index><<<grid_for(unnz), walk::threads, 0, st>>>(
            rows, ucol_p, urow.data(), unnz, tune, queue, counters.data() + 1);
        KLEENE_CUDA_CHECK_LAUNCH("tc_entries");
    } else if (in_place) {
        walk::walk(g, lr.view(), static_cast<Index const*>(nullptr), n,
                   tc_intersect<Index>{{}, rows, ucol_p, tune, queue, counters.data() + 1, true},
                   st);
    } else {
        walk::graph<Index> const gu{uptr.data(), ucol.data(), n};
        // U's rows are parts of A's: without long rows in A there are none in U (and no pass
        // and wait to find them).
        std::optional<walk::long_rows<Index>> ulr;
        if (lr.count() > 0) ulr.emplace(gu, std::size_t(unnz), st);
        walk::walk(gu, ulr ? ulr->view() : lr.view(), static_cast<Index const*>(nullptr), n,
                   tc_intersect<Index>{{}, rows, ucol_p, tune, queue, counters.data() + 1, false},
                   st);
    }
    t.mark();  // 5: cheap pairs counted, the others queued
    std::int64_t const queued = static_cast<std::int64_t>(detail::read_one(counters.data(), st));
    tc_pair<Index> const* pairs = queue_pair.data();
    detail::stream_buffer<Key> sorted_v;
    detail::stream_buffer<tc_pair<Index>> sorted_pair;
    if (tune.sort_queue && queued > 1) {
        sorted_v = detail::stream_buffer<Key>{std::size_t(queued), st};
        sorted_pair = detail::stream_buffer<tc_pair<Index>>{std::size_t(queued), st};
        std::size_t bytes = 0;
        KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, queue_v.data(),
                                                          sorted_v.data(), queue_pair.data(),
                                                          sorted_pair.data(), queued, 0, bits, st));
        detail::stream_buffer<unsigned char> temp(bytes, st);
        KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), bytes, queue_v.data(),
                                                          sorted_v.data(), queue_pair.data(),
                                                          sorted_pair.data(), queued, 0, bits, st));
        pairs = sorted_pair.data();
    }
    t.mark();  // 6: queue sorted
    if (queued > 0) {
        tc_heavy<Index><<<detail::persistent_blocks(8), walk::threads, 0, st>>>(
            rows, ucol_p, pairs, counters.data(), tune.heavy_merge, counters.data() + 1);
        KLEENE_CUDA_CHECK_LAUNCH("tc_heavy");
    }
    run.seconds = t.end();  // 7
    unsigned long long host[2] = {0, 0};
    detail::copy_to_host(host, counters.data(), 2, st);
    run.triangles = host[1];
    run.notes.push_back(
        "tc: n=" + std::to_string(n) + ", entries=" + std::to_string(a.nnz()) +
        (relabel ? ", renumbered by increasing degree" : ", original numbering") +
        (in_place ? std::string("; upper triangle U in place in A's rows, ")
                  : "; upper triangle U with " + std::to_string(unnz) + " entries, ") +
        (tune.entry_parallel ? "a thread per entry" : "the row walk") +
        " (merge <= " + std::to_string(tune.merge_max) +
        ", search <= " + std::to_string(tune.search_max) + "); " + std::to_string(host[0]) +
        " pairs of long lists queued" + (tune.sort_queue ? ", sorted by v," : "") +
        " for groups of " + std::to_string(pair_lanes) + " lanes (" +
        (tune.heavy_merge > 0 ? "merged when L <= " + std::to_string(tune.heavy_merge) +
                                    " s log2(L/8), else searched"
                              : "searched") +
        ")");
    run.notes.push_back("tc: renumbering " + walk::ms(t.seconds(0, 1)) + ", U's row counts " +
                        walk::ms(t.seconds(1, 2)) + ", U filled " + walk::ms(t.seconds(2, 3)) +
                        (in_place   ? ", in place (nothing built) "
                         : !relabel ? ", in order (no sort) "
                         : radix    ? ", sorted as keys "
                                    : ", rows sorted ") +
                        walk::ms(t.seconds(3, 4)) + ", cheap pairs " + walk::ms(t.seconds(4, 5)) +
                        ", queue sorted " + walk::ms(t.seconds(5, 6)) + ", queued pairs " +
                        walk::ms(t.seconds(6, 7)));
    run.notes.push_back("tc: " + std::to_string(run.triangles) + " triangles in " +
                        walk::ms(run.seconds) + " (gpu)");
    return run;
}

template tc_run triangle_count<std::int32_t>(csr_matrix<bool, std::int32_t, device> const&, bool,
                                             tc_tuning const&, context&);
template tc_run triangle_count<std::int64_t>(csr_matrix<bool, std::int64_t, device> const&, bool,
                                             tc_tuning const&, context&);

}  // namespace kleene::cuda
