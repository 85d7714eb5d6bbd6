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
        // The group's partial sums, added in a tree (the add is commutative and associative).
#pragma unroll
        for (int d = dot_lanes / 2; d > 0; d /= 2) {
            T const other = detail::shfl_down(group, acc, unsigned(d), dot_lanes);
            bool const other_any =
                __shfl_down_sync(group, any ? 1 : 0, unsigned(d), dot_lanes) != 0;
            if (other_any) {
                acc = any ? S::add(acc, other) : other;
                any = true;
            }
        }
        if (gl == 0) {
            p.hit[e] = any ? 1 : 0;
            if (any) p.val[e] = acc;
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
    {
        std::size_t bytes = 0;
        KLEENE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, off, off, entries + 1, st));
        detail::stream_buffer<unsigned char> temp(bytes, st);
        KLEENE_CUDA_CHECK(
            cub::DeviceScan::ExclusiveSum(temp.data(), bytes, off, off, entries + 1, st));
    }
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

template <class S, class Index>
void masked_dot_generic(context& ctx, csr_matrix<typename S::value_type, Index, device>& t,
                        csr_mask<Index> const& mask,
                        csr_matrix<typename S::value_type, Index, device> const& a,
                        csr_matrix<typename S::value_type, Index, device> const& bt) {
    using T = typename S::value_type;
    cudaStream_t const st = stream_of(ctx);
    auto const rows = static_cast<std::int64_t>(a.rows());
    std::size_t const entries = mask.nnz();
    buffer<Index, device> t_ptr(std::size_t(rows) + 1);
    if (entries == 0 || a.nnz() == 0 || bt.nnz() == 0) {
        detail::fill(t_ptr.data(), t_ptr.size(), Index(0), st);
        detail::end_of_call(st);
        t = csr_matrix<T, Index, device>(a.rows(), bt.rows(), std::move(t_ptr), {}, {}, T(1), true);
        return;
    }
    detail::stream_buffer<T> val(entries, st);
    detail::stream_buffer<Index> off(entries + 1, st);  // the hit flags, then their scan
    using Key = std::make_unsigned_t<Index>;
    detail::stream_buffer<Key> queue_key(entries, st);
    detail::stream_buffer<dot_pair<Index>> queue_pair(entries, st);
    detail::stream_buffer<unsigned long long> queued(1, st);
    queued.zero();
    KLEENE_CUDA_CHECK(cudaMemsetAsync(off.data() + entries, 0, sizeof(Index), st));
    dot_args<T, Index> const p{{a.row_ptr(), a.col_idx(), a.values(), a.iso_value()},
                               {bt.row_ptr(), bt.col_idx(), bt.values(), bt.iso_value()},
                               mask.row_ptr(),
                               mask.col_idx(),
                               rows,
                               val.data(),
                               off.data(),
                               queue_key.data(),
                               queue_pair.data(),
                               queued.data()};
    unsigned const tiles =
        detail::blocks_for(entries, dot_threads * dot_items, detail::persistent_blocks(8));
    masked_dot_entries<S, Index><<<tiles, dot_threads, 0, st>>>(p);
    KLEENE_CUDA_CHECK_LAUNCH("masked_dot_entries");

    auto const count = static_cast<std::int64_t>(detail::read_one(queued.data(), st));
    if (count > 0) {
        dot_pair<Index> const* pairs = queue_pair.data();
        detail::stream_buffer<Key> sorted_key;
        detail::stream_buffer<dot_pair<Index>> sorted_pair;
        if (count > 1) {
            // By the longer row (A's i, or rows + Bt's j), so that the groups of a block share it
            // in cache.
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
        unsigned const blocks = detail::blocks_for(std::size_t(count) * dot_lanes, dot_threads,
                                                   detail::persistent_blocks(8));
        masked_dot_pairs<S, Index><<<blocks, dot_threads, 0, st>>>(p, pairs, count);
        KLEENE_CUDA_CHECK_LAUNCH("masked_dot_pairs");
    }

    pack_masked_entries<T, Index>(st, mask, rows, bt.rows(), val.data(), off.data(),
                                  std::move(t_ptr), t);
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
