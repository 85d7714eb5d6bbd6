#pragma once
// Masked dot products, T<M> = A (+).(x) Bt' (sparse.hpp): for each entry (i, j) of the CSR mask M,
// the dot product of the sorted rows A(i,:) and Bt(j,:). These are the GPU triangle count's
// intersections (algorithms/cuda/src/graph_kernels_tc.cu) with values and a semiring, laid out
// the same way:
//  - a thread per mask entry, the entries dealt to blocks in tiles of equal counts (a hub's row
//    of M spreads over many blocks; neighbouring threads share A's row i in cache); a thread
//    merges the two rows when they are short, or looks the shorter's (at most 8) entries up in
//    the longer by binary search;
//  - the other entries are queued, sorted by their longer row (neighbouring groups then read it
//    from cache: the triangle count sorts its queue by one row for the same reason), and a group
//    of 8 lanes takes each: both rows cut first to the columns
//    they can share (binary searches for the other row's first and last column: in C<L> = L U'
//    that leaves L(i,:) above j and U(j,:) below i), then the lanes split the longer row at 8
//    splitters and merge their slices with the shorter one, or search it for the shorter's
//    entries, whichever reads less; their partial sums meet through shuffles.
//  - rows of A longer than 256 entries (with a mask row at least a 32nd as long: hashed_row) are
//    hashed instead (masked_dot_hashed): a block puts A(i,:) in a hash table in shared memory, a
//    chunk at a time, and its mask entries' rows of Bt (no longer than A(i,:)) look their entries
//    up in it, a probe or two each, where the searches above read A(i,:) from global memory level
//    by level. C<L> = L U' on a graph numbered by increasing degree does nearly all its work in
//    the hubs' long rows of L: Kronecker scale 22 on an H200 (2026-12-01, session 30, calls A-B:
//    docs/lab/session30-2026-12-01) plus_pair 154 -> 68 ms, the dedicated triangle count 83.
// Every entry gets its value and a hit flag in M's layout; a scan of the flags then gives T's row
// pointers and the positions its entries are packed to. All on the context's stream; the host
// waits twice (the queue's length, T's entry count).

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <kleene/cuda/detail/device_functions.cuh>
#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/cuda/sparse/common.cuh>
#include <kleene/cuda/sparse/spgemm_kernels.cuh>
#include <kleene/detail/masked_dot_model.hpp>
#include <limits>
#include <string>
#include <type_traits>

namespace kleene::cuda {
namespace sparse_detail {

inline constexpr int dot_threads = 256;
inline constexpr int dot_items = 4;  // mask entries a thread takes per tile
// The triangle count's measured limits (tc_tuning's defaults): a thread merges rows of at most
// dot_merge_max entries in all, or searches for at most dot_search_max; a queued pair is merged
// by its group when the longer row L is at most dot_heavy_merge * s * log2(L / 8) long.
inline constexpr int dot_merge_max = 96;
inline constexpr int dot_search_max = 8;
inline constexpr int dot_lanes = 8;
inline constexpr float dot_heavy_merge = 1.5f;

// Rows of A hashed (masked_dot_hashed; kleene::detail::hashed_row, masked_dot_model.hpp: the
// rule the CPU's kernel and both models share): a table is built for each tile of mask entries,
// and the entries whose row of Bt is no longer than A(i,:) probe it.
using kleene::detail::hashed_row;
inline constexpr int dot_hash_threads = 256;

/// The table of a chunk of A(i,:) and the tile of mask entries (per block, in shared memory),
/// sized for 44 KiB whatever the index type.
template <class Index>
struct dot_hash_sizes {
    static constexpr int scale = int(sizeof(Index) / 4);
    static constexpr int chunk = 2048 / scale;  // A's entries in one table
    static constexpr int slots = 2 * chunk;     // the table at most half full
    static constexpr int tile = 1024 / scale;   // mask entries a block takes at once
};

using detail::first_above;  // kleene/cuda/detail/device_functions.cuh
using detail::first_at_least;

template <class T, class Index>
struct dot_matrix {
    Index const* ptr;
    Index const* col;
    T const* val;  // null: iso
    T iso;
};

/// A queued mask entry: its row i and its position e in M.
template <class Index>
struct dot_pair {
    Index i, e;
};

template <class T, class Index>
struct dot_args {
    dot_matrix<T, Index> a, bt;
    Index const* m_ptr;
    Index const* m_col;
    std::int64_t rows;
    T* val;                                  // per mask entry: the dot product, where it has one
    Index* hit;                              // per mask entry: 1 where A(i,:) and Bt(j,:) meet
    std::make_unsigned_t<Index>* queue_key;  // queued entries' longer rows (i, or rows + j) ...
    dot_pair<Index>* queue_pair;             // ... and the entries
    unsigned long long* queued;
};

/// acc (+)= A(i, x) (x) Bt(j, y), `any` saying whether acc holds a value yet.
template <class S, class Index>
__device__ __forceinline__ void take(dot_matrix<typename S::value_type, Index> const& a,
                                     dot_matrix<typename S::value_type, Index> const& bt,
                                     std::int64_t x, std::int64_t y, typename S::value_type& acc,
                                     bool& any) {
    auto const t = S::mul(value_at(a.val, a.iso, x), value_at(bt.val, bt.iso, y));
    acc = any ? S::add(acc, t) : t;
    any = true;
}

/// The dot product of A's entries [a0, a1) and Bt's [b0, b1) by one thread: a merge when they
/// are short, else binary searches of the longer for the shorter's entries (each search starts
/// where the last ended: the entries rise). A terminal value of the add stops it.
template <class S, class Index>
__device__ __forceinline__ bool dot_lane(dot_matrix<typename S::value_type, Index> const& a,
                                         std::int64_t a0, std::int64_t a1,
                                         dot_matrix<typename S::value_type, Index> const& bt,
                                         std::int64_t b0, std::int64_t b1,
                                         typename S::value_type& acc) {
    bool any = false;
    if ((a1 - a0) + (b1 - b0) <= dot_merge_max) {
        while (a0 < a1 && b0 < b1) {
            Index const x = a.col[a0], y = bt.col[b0];
            if (x == y) {
                take<S>(a, bt, a0, b0, acc, any);
                if (stops<S>(acc)) break;
            }
            a0 += x <= y ? 1 : 0;
            b0 += y <= x ? 1 : 0;
        }
    } else if (a1 - a0 <= b1 - b0) {
        for (; a0 < a1 && b0 < b1; ++a0) {
            Index const x = a.col[a0];
            b0 = first_at_least(bt.col, b0, b1, x);
            if (b0 < b1 && bt.col[b0] == x) {
                take<S>(a, bt, a0, b0, acc, any);
                if (stops<S>(acc)) break;
            }
        }
    } else {
        for (; b0 < b1 && a0 < a1; ++b0) {
            Index const y = bt.col[b0];
            a0 = first_at_least(a.col, a0, a1, y);
            if (a0 < a1 && a.col[a0] == y) {
                take<S>(a, bt, a0, b0, acc, any);
                if (stops<S>(acc)) break;
            }
        }
    }
    return any;
}

/// A thread per mask entry: the cheap dot products done, the others queued.
template <class S, class Index>
__global__ void __launch_bounds__(dot_threads)
    masked_dot_entries(dot_args<typename S::value_type, Index> p) {
    using T = typename S::value_type;
    detail::for_each_frontier_edge<dot_threads, dot_items>(
        p.m_ptr, p.rows, [&](std::int64_t i, Index r) {
            Index const e = static_cast<Index>(p.m_ptr[i] + r);
            Index const j = p.m_col[e];
            std::int64_t const a0 = p.a.ptr[i], a1 = p.a.ptr[i + 1];
            std::int64_t const b0 = p.bt.ptr[j], b1 = p.bt.ptr[j + 1];
            std::int64_t const la = a1 - a0, lb = b1 - b0;
            // masked_dot_hashed takes it (the mask row's length read only for a long row of A).
            if (la > kleene::detail::dot_hash_min && lb <= la &&
                hashed_row(la, p.m_ptr[i + 1] - p.m_ptr[i]))
                return;
            T acc{};
            bool any = false;
            if (la > 0 && lb > 0) {
                if (la + lb <= dot_merge_max || (la < lb ? la : lb) <= dot_search_max) {
                    any = dot_lane<S>(p.a, a0, a1, p.bt, b0, b1, acc);
                } else if (!(p.a.col[a1 - 1] < p.bt.col[b0] || p.bt.col[b1 - 1] < p.a.col[a0])) {
                    using Key = std::make_unsigned_t<Index>;
                    auto const slot = detail::aggregated_slot(p.queued);
                    p.queue_key[slot] = la >= lb ? Key(i) : Key(p.rows) + Key(j);
                    p.queue_pair[slot] = {static_cast<Index>(i), e};
                    return;  // masked_dot_pairs writes its hit flag
                }
            }
            p.hit[e] = any ? 1 : 0;
            if (any) p.val[e] = acc;
        });
}

/// The partial sums of a group of dot_lanes lanes, added in a tree into its first lane (the add
/// is commutative and associative); `any` says whether a lane holds a value.
template <class S>
__device__ __forceinline__ void group_sum(unsigned group, typename S::value_type& acc, bool& any) {
    using T = typename S::value_type;
#pragma unroll
    for (int d = dot_lanes / 2; d > 0; d /= 2) {
        T const other = detail::shfl_down(group, acc, unsigned(d), dot_lanes);
        bool const other_any = __shfl_down_sync(group, any ? 1 : 0, unsigned(d), dot_lanes) != 0;
        if (other_any) {
            acc = any ? S::add(acc, other) : other;
            any = true;
        }
    }
}

/// A group of dot_lanes lanes per queued entry (pairs[0..count)), as the header says.
template <class S, class Index>
__global__ void __launch_bounds__(dot_threads)
    masked_dot_pairs(dot_args<typename S::value_type, Index> p,
                     dot_pair<Index> const* __restrict__ pairs, std::int64_t count) {
    using T = typename S::value_type;
    int const gl = static_cast<int>(threadIdx.x % dot_lanes);
    unsigned const group = ((1u << dot_lanes) - 1u) << (threadIdx.x % 32u / dot_lanes * dot_lanes);
    std::int64_t const groups = std::int64_t(gridDim.x) * (dot_threads / dot_lanes);
    dot_matrix<T, Index> const a = p.a, bt = p.bt;
    for (std::int64_t q = (std::int64_t(blockIdx.x) * dot_threads + threadIdx.x) / dot_lanes;
         q < count; q += groups) {
        Index const i = pairs[q].i, e = pairs[q].e;
        Index const j = p.m_col[e];
        std::int64_t a0 = a.ptr[i], a1 = a.ptr[i + 1];
        std::int64_t b0 = bt.ptr[j], b1 = bt.ptr[j + 1];
        // Both rows cut to the columns the other row spans (queued rows overlap: the first pass
        // checked). Every lane computes the same, so the group stays in step.
        Index const lo = a.col[a0] < bt.col[b0] ? bt.col[b0] : a.col[a0];
        Index const hi = a.col[a1 - 1] < bt.col[b1 - 1] ? a.col[a1 - 1] : bt.col[b1 - 1];
        a0 = first_at_least(a.col, a0, a1, lo);
        a1 = first_above(a.col, a0, a1, hi);
        b0 = first_at_least(bt.col, b0, b1, lo);
        b1 = first_above(bt.col, b0, b1, hi);
        T acc{};
        bool any = false;
        if (a0 < a1 && b0 < b1) {
            // s: the shorter row, l: the longer (columns only: the product keeps A's value on
            // the left, and selecting whole structs would put them in local memory).
            bool const a_short = a1 - a0 <= b1 - b0;
            Index const* const s_col = a_short ? a.col : bt.col;
            Index const* const l_col = a_short ? bt.col : a.col;
            std::int64_t const s0 = a_short ? a0 : b0, s1 = a_short ? a1 : b1;
            std::int64_t const l0 = a_short ? b0 : a0, l1 = a_short ? b1 : a1;
            auto const meet = [&](std::int64_t x, std::int64_t y) {
                if (a_short)
                    take<S>(a, bt, x, y, acc, any);
                else
                    take<S>(a, bt, y, x, acc, any);
            };
            // Slice g of the longer row is [l0 + g len / dot_lanes, l0 + (g + 1) len / dot_lanes);
            // lane g holds its first element, `mine`, and gets the next lane's (slices may be
            // empty when the row is short: then neighbouring splitters are equal and the empty
            // slice's lane gets nothing).
            std::int64_t const len = l1 - l0;
            Index const mine = l_col[l0 + gl * len / dot_lanes];
            Index const next = detail::shfl_down(group, mine, 1u, dot_lanes);
            Index split[dot_lanes];  // indexed by constants only: registers
#pragma unroll
            for (int g = 0; g < dot_lanes; ++g) split[g] = detail::shfl(group, mine, g, dot_lanes);
            float const shorter = float(s1 - s0);
            if (float(len) <= dot_heavy_merge * shorter * __log2f(float(len) / float(dot_lanes))) {
                std::int64_t x = gl == 0 ? s0 : first_at_least(s_col, s0, s1, mine);
                std::int64_t const x1 =
                    gl + 1 < dot_lanes ? first_at_least(s_col, s0, s1, next) : s1;
                std::int64_t y = l0 + gl * len / dot_lanes;
                std::int64_t const y1 = gl + 1 < dot_lanes ? l0 + (gl + 1) * len / dot_lanes : l1;
                while (x < x1 && y < y1) {
                    Index const u = s_col[x], v = l_col[y];
                    if (u == v) meet(x, y);
                    x += u <= v ? 1 : 0;
                    y += v <= u ? 1 : 0;
                }
            } else {
                std::int64_t floor = l0;
                for (std::int64_t x = s0 + gl; x < s1; x += dot_lanes) {
                    Index const u = s_col[x];
                    int g = 0;
#pragma unroll
                    for (int t = 1; t < dot_lanes; ++t) g += split[t] <= u ? 1 : 0;
                    std::int64_t y = l0 + g * len / dot_lanes;
                    std::int64_t const y1 = g + 1 < dot_lanes ? l0 + (g + 1) * len / dot_lanes : l1;
                    if (y < floor) y = floor;
                    y = first_at_least(l_col, y, y1, u);
                    if (y < l1 && l_col[y] == u) meet(x, y);
                    floor = y;
                }
            }
        }
        group_sum<S>(group, acc, any);
        if (gl == 0) {
            p.hit[e] = any ? 1 : 0;
            if (any) p.val[e] = acc;
        }
    }
}

/// cnt[i]: the mask entries of row i when A(i,:) is hashed, else 0 (cnt[rows] = 0).
template <class Index>
__global__ void masked_dot_hash_rows(Index const* __restrict__ m_ptr,
                                     Index const* __restrict__ a_ptr, std::int64_t rows,
                                     Index* __restrict__ cnt) {
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i <= rows;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        if (i == rows) {
            cnt[i] = 0;
            continue;
        }
        Index const m = m_ptr[i + 1] - m_ptr[i];
        cnt[i] = hashed_row(a_ptr[i + 1] - a_ptr[i], m) ? m : Index(0);
    }
}

/// The mask entries of the hashed rows of A (off: their exclusive scan over the rows, off[rows]
/// of them in all), in tiles of `tile` (a tile may span rows). Blocks take tiles from a counter,
/// the last first (a graph numbered by increasing degree has its hubs there: the longest tiles
/// start first and no block is left with one at the end). For each row in its tile, the block
/// puts A(i,:) in a hash table in shared memory, a chunk of `chunk` entries at a time (column ->
/// position in A), and each of its mask entries (i, j) whose row of Bt is no longer than A(i,:)
/// looks up the entries of Bt(j,:) that fall in the chunk's columns: a group of dot_lanes lanes
/// an entry, 32 consecutive entries of Bt(j,:) at once (four loads a lane in flight), the entry's
/// place in Bt(j,:) kept in shared memory from one chunk to the next (entries past A(i,:)'s last
/// column are never reached). Each lookup is a shared-memory probe or two, where the dot products'
/// searches read A(i,:) from global memory level by level; C<L> = L U' on a graph numbered by
/// increasing degree does nearly all its work in hubs' long rows of L. The entries' values meet in
/// val and hit (the block owns its entries; chunks are separated by barriers).
template <class S, class Index>
__global__ void __launch_bounds__(dot_hash_threads)
    masked_dot_hashed(dot_args<typename S::value_type, Index> p, Index const* __restrict__ off,
                      unsigned long long* __restrict__ taken_tiles) {
    using T = typename S::value_type;
    using Z = dot_hash_sizes<Index>;
    constexpr Index none = std::numeric_limits<Index>::max();
    constexpr int groups = dot_hash_threads / dot_lanes;
    constexpr int window = 4;  // loads a lane has in flight
    __shared__ Index keys[Z::slots];
    __shared__ Index where[Z::slots];  // the key's position in A (values only)
    __shared__ Index cur[Z::tile];     // entry k's next element of Bt(j,:) ...
    __shared__ Index end[Z::tile];     // ... the end of its row ...
    __shared__ Index next[Z::tile];    // ... and that next element's column (none: no more)
    __shared__ std::int64_t range[3];
    int const t = static_cast<int>(threadIdx.x);
    int const gl = t % dot_lanes, g = t / dot_lanes;
    unsigned const group = ((1u << dot_lanes) - 1u) << (t % 32 / dot_lanes * dot_lanes);
    dot_matrix<T, Index> const a = p.a, bt = p.bt;
    std::int64_t const total = off[p.rows];
    std::int64_t const tiles = (total + Z::tile - 1) / Z::tile;
    while (true) {
        if (t == 0) range[2] = static_cast<std::int64_t>(atomicAdd(taken_tiles, 1ull));
        __syncthreads();
        if (range[2] >= tiles) break;  // the same for every thread
        std::int64_t const t0 = (tiles - 1 - range[2]) * Z::tile;
        std::int64_t const t1 = t0 + Z::tile < total ? t0 + Z::tile : total;
        if (t == 0) {
            range[0] = detail::last_at_most(off, 0, p.rows - 1, Index(t0));
            range[1] = detail::last_at_most(off, range[0], p.rows - 1, Index(t1 - 1));
        }
        __syncthreads();
        std::int64_t const r0 = range[0], r1 = range[1];
        for (std::int64_t i = r0; i <= r1; ++i) {
            std::int64_t const g0 = t0 > off[i] ? t0 : off[i];
            std::int64_t const g1 = t1 < off[i + 1] ? t1 : off[i + 1];
            if (g0 >= g1) continue;  // the same for every thread
            std::int64_t const e0 = p.m_ptr[i] + (g0 - off[i]);
            int const count = static_cast<int>(g1 - g0);
            std::int64_t const a0 = a.ptr[i], a1 = a.ptr[i + 1];
            Index const lo = a.col[a0];
            for (int k = t; k < count; k += dot_hash_threads) {
                std::int64_t const e = e0 + k;
                Index const j = p.m_col[e];
                std::int64_t b0 = bt.ptr[j];
                std::int64_t const b1 = bt.ptr[j + 1];
                if (b1 - b0 > a1 - a0) {  // masked_dot_entries takes it
                    cur[k] = end[k] = 0;
                    next[k] = none;
                    continue;
                }
                p.hit[e] = 0;
                if (b0 < b1 && bt.col[b0] < lo) b0 = first_at_least(bt.col, b0, b1, lo);
                cur[k] = static_cast<Index>(b0);
                end[k] = static_cast<Index>(b1);
                next[k] = b0 < b1 ? bt.col[b0] : none;
            }
            for (std::int64_t c0 = a0; c0 < a1; c0 += Z::chunk) {
                std::int64_t const c1 = c0 + Z::chunk < a1 ? c0 + Z::chunk : a1;
                std::uint64_t slots = 32;  // at least twice the chunk's entries
                while (slots < std::uint64_t(2 * (c1 - c0))) slots *= 2;
                std::uint64_t const mask = slots - 1;
                for (std::uint64_t s = std::uint64_t(t); s <= mask; s += dot_hash_threads)
                    keys[s] = Index(-1);
                __syncthreads();
                for (std::int64_t x = c0 + t; x < c1; x += dot_hash_threads) {
                    bool inserted = false;
                    std::uint64_t const s = hash_insert(keys, mask, a.col[x], inserted);
                    if (a.val) where[s] = static_cast<Index>(x);
                }
                Index const top = a.col[c1 - 1];
                __syncthreads();
                for (int k = g; k < count; k += groups) {
                    if (next[k] > top) continue;  // the same for the group's lanes
                    std::int64_t y = cur[k];
                    std::int64_t const y1 = end[k];
                    T acc{};
                    bool any = false;
                    while (true) {
                        Index col[window];
#pragma unroll
                        for (int w = 0; w < window; ++w) {
                            std::int64_t const my = y + w * dot_lanes + gl;
                            col[w] = my < y1 ? bt.col[my] : none;
                        }
                        int in = 0;
#pragma unroll
                        for (int w = 0; w < window; ++w) {
                            if (col[w] <= top) {
                                std::int64_t const s = hash_find(keys, mask, col[w]);
                                if (s >= 0)
                                    take<S>(a, bt, a.val ? where[s] : 0, y + w * dot_lanes + gl,
                                            acc, any);
                            }
                            // The columns rise along the window: those in the chunk are a prefix.
                            in += __popc(__ballot_sync(group, col[w] <= top));
                        }
                        y += in;
                        if (in < window * dot_lanes) break;
                    }
                    group_sum<S>(group, acc, any);
                    if (gl == 0) {
                        cur[k] = static_cast<Index>(y);
                        next[k] = y < y1 ? bt.col[y] : none;
                        if (any) {
                            std::int64_t const e = e0 + k;
                            p.val[e] = p.hit[e] ? S::add(p.val[e], acc) : acc;
                            p.hit[e] = 1;
                        }
                    }
                }
                __syncthreads();
            }
        }
    }
}

/// T's row pointers: the packed position of each row's first mask entry.
template <class Index>
__global__ void masked_dot_row_ptr(Index const* __restrict__ m_ptr, Index const* __restrict__ off,
                                   std::int64_t rows, Index* __restrict__ t_ptr) {
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i <= rows;
         i += std::int64_t(gridDim.x) * blockDim.x)
        t_ptr[i] = off[m_ptr[i]];
}

/// The entries that have a product, packed in M's order (so each row's columns stay sorted).
template <class T, class Index>
__global__ void masked_dot_pack(Index const* __restrict__ m_col, T const* __restrict__ val,
                                Index const* __restrict__ off, std::int64_t entries,
                                Index* __restrict__ t_col, T* __restrict__ t_val) {
    for (std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < entries;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        Index const at = off[e];
        if (off[e + 1] != at) {
            t_col[at] = m_col[e];
            t_val[at] = val[e];
        }
    }
}

/// T (m x cols) from one value and hit flag per mask entry (off: the flags, entries + 1 of them,
/// the last zero): the flags scanned into positions, T's row pointers from M's, the hit entries
/// packed in M's order (each row's columns stay sorted). The host waits for T's size.
template <class T, class Index>
void pack_masked_entries(cudaStream_t st, csr_mask<Index> const& mask, std::int64_t rows,
                         std::size_t cols, T const* val, Index* off, buffer<Index, device>&& t_ptr,
                         csr_matrix<T, Index, device>& t) {
    std::size_t const entries = mask.nnz();
    exclusive_sum_in_place(off, entries + 1, st);
    auto const nnz = static_cast<std::size_t>(detail::read_one(off + entries, st));
    buffer<Index, device> t_col(nnz);
    buffer<T, device> t_val(nnz);
    masked_dot_row_ptr<Index><<<detail::blocks_for(std::size_t(rows) + 1, 256), 256, 0, st>>>(
        mask.row_ptr(), off, rows, t_ptr.data());
    KLEENE_CUDA_CHECK_LAUNCH("masked_dot_row_ptr");
    if (nnz > 0) {
        masked_dot_pack<T, Index><<<detail::blocks_for(entries, 256), 256, 0, st>>>(
            mask.col_idx(), val, off, static_cast<std::int64_t>(entries), t_col.data(),
            t_val.data());
        KLEENE_CUDA_CHECK_LAUNCH("masked_dot_pack");
    }
    detail::end_of_call(st);
    t = csr_matrix<T, Index, device>(static_cast<std::size_t>(rows), cols, std::move(t_ptr),
                                     std::move(t_col), std::move(t_val), T(1), true);
}

/// T (rows x cols) from one kernel that writes a value and a kept flag for each mask entry
/// (launch(val, flags)), packed in M's order by pack_masked_entries; an empty T where the mask has
/// no entry or `none` says no product can exist.
template <class T, class Index, class Launch>
void masked_entries(cudaStream_t st, csr_mask<Index> const& mask, std::size_t rows,
                    std::size_t cols, bool none, csr_matrix<T, Index, device>& t,
                    Launch const& launch) {
    std::size_t const entries = mask.nnz();
    buffer<Index, device> t_ptr(rows + 1);
    if (entries == 0 || none) {
        detail::fill(t_ptr.data(), t_ptr.size(), Index(0), st);
        detail::end_of_call(st);
        t = csr_matrix<T, Index, device>(rows, cols, std::move(t_ptr), {}, {}, T(1), true);
        return;
    }
    detail::stream_buffer<T> val(entries, st);
    detail::stream_buffer<Index> off(entries + 1, st);  // the kept flags, then their scan
    KLEENE_CUDA_CHECK(cudaMemsetAsync(off.data() + entries, 0, sizeof(Index), st));
    launch(val.data(), off.data());
    pack_masked_entries<T, Index>(st, mask, static_cast<std::int64_t>(rows), cols, val.data(),
                                  off.data(), std::move(t_ptr), t);
}

template <class S, class Index>
void masked_dot_generic(context& ctx, csr_matrix<typename S::value_type, Index, device>& t,
                        csr_mask<Index> const& mask,
                        csr_matrix<typename S::value_type, Index, device> const& a,
                        csr_matrix<typename S::value_type, Index, device> const& bt) {
    using T = typename S::value_type;
    cudaStream_t const st = stream_of(ctx);
    auto const rows = static_cast<std::int64_t>(a.rows());
    std::size_t const entries = mask.nnz();
    masked_entries<T, Index>(
        st, mask, a.rows(), bt.rows(), a.nnz() == 0 || bt.nnz() == 0, t,
        [&](T* val, Index* flags) {  // val: each entry's product; flags: 1 where it has one
            using Key = std::make_unsigned_t<Index>;
            detail::stream_buffer<Key> queue_key(entries, st);
            detail::stream_buffer<dot_pair<Index>> queue_pair(entries, st);
            detail::stream_buffer<unsigned long long> queued(1, st);
            queued.zero();
            dot_args<T, Index> const p{{a.row_ptr(), a.col_idx(), a.values(), a.iso_value()},
                                       {bt.row_ptr(), bt.col_idx(), bt.values(), bt.iso_value()},
                                       mask.row_ptr(),
                                       mask.col_idx(),
                                       rows,
                                       val,
                                       flags,
                                       queue_key.data(),
                                       queue_pair.data(),
                                       queued.data()};
            unsigned const tiles =
                detail::blocks_for(entries, dot_threads * dot_items, detail::persistent_blocks(8));
            masked_dot_entries<S, Index><<<tiles, dot_threads, 0, st>>>(p);
            KLEENE_CUDA_CHECK_LAUNCH("masked_dot_entries");
            {
                // The hashed rows' entries: counted, scanned, taken by masked_dot_hashed (the
                // blocks read how many there are; no wait here).
                detail::stream_buffer<Index> hashed(std::size_t(rows) + 1, st);
                masked_dot_hash_rows<Index>
                    <<<detail::blocks_for(std::size_t(rows) + 1, 256), 256, 0, st>>>(
                        mask.row_ptr(), a.row_ptr(), rows, hashed.data());
                KLEENE_CUDA_CHECK_LAUNCH("masked_dot_hash_rows");
                exclusive_sum_in_place(hashed.data(), std::size_t(rows) + 1, st);
                detail::stream_buffer<unsigned long long> taken(1, st);
                taken.zero();
                unsigned const blocks = detail::blocks_for(entries, dot_hash_sizes<Index>::tile,
                                                           detail::persistent_blocks(5));
                masked_dot_hashed<S, Index>
                    <<<blocks, dot_hash_threads, 0, st>>>(p, hashed.data(), taken.data());
                KLEENE_CUDA_CHECK_LAUNCH("masked_dot_hashed");
            }

            auto const count = static_cast<std::int64_t>(detail::read_one(queued.data(), st));
            if (count > 0) {
                dot_pair<Index> const* pairs = queue_pair.data();
                detail::stream_buffer<Key> sorted_key;
                detail::stream_buffer<dot_pair<Index>> sorted_pair;
                if (count > 1) {
                    // By the longer row (A's i, or rows + Bt's j), so that the groups of a block
                    // share it in cache.
                    sorted_key = detail::stream_buffer<Key>(std::size_t(count), st);
                    sorted_pair = detail::stream_buffer<dot_pair<Index>>(std::size_t(count), st);
                    int const bits = std::max(
                        1, int(std::bit_width(std::uint64_t(a.rows()) + std::uint64_t(bt.rows()))));
                    std::size_t bytes = 0;
                    KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
                        nullptr, bytes, queue_key.data(), sorted_key.data(), queue_pair.data(),
                        sorted_pair.data(), count, 0, bits, st));
                    detail::stream_buffer<unsigned char> temp(bytes, st);
                    KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
                        temp.data(), bytes, queue_key.data(), sorted_key.data(), queue_pair.data(),
                        sorted_pair.data(), count, 0, bits, st));
                    pairs = sorted_pair.data();
                }
                unsigned const blocks = detail::blocks_for(
                    std::size_t(count) * dot_lanes, dot_threads, detail::persistent_blocks(8));
                masked_dot_pairs<S, Index><<<blocks, dot_threads, 0, st>>>(p, pairs, count);
                KLEENE_CUDA_CHECK_LAUNCH("masked_dot_pairs");
            }
        });
}

}  // namespace sparse_detail

template <semiring_type S, index_type Index>
void masked_dot(csr_matrix<typename S::value_type, Index, device>& t, csr_mask<Index> const& mask,
                csr_matrix<typename S::value_type, Index, device> const& a,
                csr_matrix<typename S::value_type, Index, device> const& bt,
                sparse_options const& opt) {
    if (!mask.active() || mask.complemented())
        throw invalid_argument(std::string("masked_dot: T<M> = A Bt' needs a mask M that is ") +
                               (mask.active() ? "not complemented" : "given") +
                               " (its entries are the dot products computed)");
    if (a.cols() != bt.cols() || mask.rows() != a.rows() || mask.cols() != bt.rows())
        throw dimension_mismatch(
            "masked_dot: A (" + kleene::detail::shape(a.rows(), a.cols()) +
            ") times the transpose of Bt (" + kleene::detail::shape(bt.rows(), bt.cols()) +
            ") under a mask of " + kleene::detail::shape(mask.rows(), mask.cols()));
    if (opt.backend == sparse_backend::cusparse)
        sparse_detail::no_cusparse("masked_dot", "masked dot products");
    sparse_detail::masked_dot_generic<S, Index>(resolve(opt.ctx), t, mask, a, bt);
}

}  // namespace kleene::cuda
