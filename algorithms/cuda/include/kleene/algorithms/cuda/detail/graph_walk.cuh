#pragma once
// What the graph-analytics kernels (algorithms/cuda/src/graph_kernels_*.cu) share: a load-balanced
// walk over the rows of a device CSR pattern that hands every stored entry to an op and reduces per
// row, plus small device helpers (relaxed loads, index atomics, block sums) and the event timer.
// Everything is queued on the stream the caller passes (its context's). Include only from code
// compiled by nvcc.
//
// The walk: a warp takes 32 rows (all rows, or a list of them); a row of at most warp_min entries
// is walked by its own lane, a longer one by the whole warp (lanes stride over its entries, then a
// warp reduction), so short and long rows mix without idle lanes waiting on one hub. Rows longer
// than long_min are left out of that walk: a table built once per graph cuts them into slices of
// `slice` entries, one warp a slice, whose partial results meet through the op's partial(), and a
// second kernel then finishes each such row (finish_long). A hub of a power-law graph thus spreads
// over many warps instead of holding one for its whole row.
//
// An op is a small struct passed by value (each thread works on its own copy, so per-thread sums
// may live in it) with:
//   acc_type                        per-row accumulator (a multiple of 4 bytes: warp shuffles)
//   identity(), combine(a, b)       its monoid
//   wants(row)                      whether the row takes part (rows that say no cost one check)
//   edge(row, k, col, acc)          entry k of the row, column col
//   finish(row, acc)                the row's total (rows of at most long_min entries)
//   partial(li, row, acc)           one slice's total of long row number li
//   finish_long(li, row)            after all slices: finish long row li
//   end_block()                     once per thread at the end of every kernel (block sums)
// and may override (op_base has the defaults):
//   idle()                          true: the whole kernel does nothing, end_block() included (a
//                                   value read once a thread, as a queued iteration past its
//                                   convergence; the rows' wants() is then not asked)
//   row_begin(row, begin, end)      a wanted row of at most long_min entries (its entries
//                                   [begin, end)), before them: loads that finish() needs, issued
//                                   early so that they overlap the entries' (PageRank's old rank)
//   grid_blocks                     walk_rows' blocks a multiprocessor (16); 0: as many as are
//                                   resident at once (the occupancy calculator), one wave of blocks
//                                   striding over the rows, none waiting for a slot. PageRank's
//                                   pull asks for 0; the others keep 16: one wave for every op
//                                   (H200, 2026-11-30, session 19 call E) moved CC, BC and PageRank
//                                   within the calls' noise on all four classes and made the
//                                   triangle count 4% slower at Kronecker 22 (82.1 against 78.7 ms)

#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/stream.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace kleene::cuda::walk {

inline constexpr int threads = 256;
/// The walk kernels' launch bounds ask for two blocks per SM at least: with the block size alone,
/// ptxas held some of them at an occupancy step (32, 40, 48 registers) and spilled a few bytes.
inline constexpr int min_blocks = 2;
/// Rows with more entries than this are walked by the whole warp instead of one lane.
inline constexpr std::int64_t warp_min = 32;
/// Rows with more entries than this are cut into slices that warps share.
inline constexpr std::int64_t long_min = 4096;
inline constexpr std::int64_t slice = 1024;

inline constexpr unsigned full_mask = 0xffffffffu;

template <class Index>
struct graph {
    Index const* ptr;
    Index const* col;
    std::int64_t n;
};

template <class Index>
graph<Index> view_of(csr_matrix<bool, Index, device> const& a) {
    return {a.row_ptr(), a.col_idx(), static_cast<std::int64_t>(a.rows())};
}

/// The long rows of a graph and their slices: long row li owns slices [offs[li], offs[li + 1]).
template <class Index>
struct long_view {
    Index const* rows;
    std::int64_t const* offs;
    std::int64_t count;
    std::int64_t slices;
};

// ---- device helpers ---------------------------------------------------------------------------

/// A load that always goes to memory: for arrays other threads of the same kernel write.
template <class T>
__device__ __forceinline__ T load_relaxed(T const* p) {
    return *static_cast<T const volatile*>(p);
}

template <class Index>
__device__ __forceinline__ Index atomic_min_index(Index* p, Index v) {
    if constexpr (sizeof(Index) == 4)
        return atomicMin(p, v);
    else
        return static_cast<Index>(
            atomicMin(reinterpret_cast<long long*>(p), static_cast<long long>(v)));
}

template <class Index>
__device__ __forceinline__ Index atomic_cas_index(Index* p, Index expected, Index desired) {
    if constexpr (sizeof(Index) == 4)
        return atomicCAS(p, expected, desired);
    else
        return static_cast<Index>(atomicCAS(reinterpret_cast<unsigned long long*>(p),
                                            static_cast<unsigned long long>(expected),
                                            static_cast<unsigned long long>(desired)));
}

template <class Index>
__device__ __forceinline__ Index atomic_add_index(Index* p, Index v) {
    if constexpr (sizeof(Index) == 4)
        return atomicAdd(p, v);
    else
        return static_cast<Index>(atomicAdd(reinterpret_cast<unsigned long long*>(p),
                                            static_cast<unsigned long long>(v)));
}

/// v summed over the block (every thread calls; blockDim.x == threads); the total in thread 0.
template <class T>
__device__ __forceinline__ T block_sum(T v) {
    using reduce = cub::BlockReduce<T, threads>;
    __shared__ typename reduce::TempStorage tmp;
    return reduce(tmp).Sum(v);
}

/// Any value whose size is a multiple of 4 bytes, exchanged across the warp word by word.
template <class A>
__device__ __forceinline__ A shfl_xor_words(A a, int lane_mask) {
    static_assert(sizeof(A) % 4 == 0, "kleene: a walk accumulator is a multiple of 4 bytes");
    constexpr int words = sizeof(A) / 4;
    unsigned u[words];
    memcpy(u, &a, sizeof(A));
#pragma unroll
    for (int i = 0; i < words; ++i) u[i] = __shfl_xor_sync(full_mask, u[i], lane_mask);
    A out;
    memcpy(&out, u, sizeof(A));
    return out;
}

template <class Op, class A>
__device__ __forceinline__ A warp_reduce(Op const& op, A a) {
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) a = op.combine(a, shfl_xor_words(a, m));
    return a;
}

/// The 4-byte accumulator of ops that reduce nothing (they act per entry).
struct no_acc {
    int unused;
};

/// Defaults for ops: every row wanted, no long-row state, no block sums, a lane's own row read
/// four entries at a time (ops whose edge() loops, like a CAS retry, turn that off: four inlined
/// copies of a loop cost more than the overlap gains).
template <class Index>
struct op_base {
    static constexpr bool batch_loads = true;
    /// The walk kernels' blocks a multiprocessor at least (__launch_bounds__): an op whose
    /// registers keep it below a full persistent grid asks for more.
    static constexpr int min_blocks = walk::min_blocks;
    static constexpr unsigned grid_blocks = 16;
    __device__ bool idle() const { return false; }
    __device__ void row_begin(Index, Index, Index) {}
    __device__ bool wants(Index) const { return true; }
    template <class A>
    __device__ void partial(std::int64_t, Index, A const&) {}
    __device__ void finish_long(std::int64_t, Index) {}
    __device__ void end_block() {}
};

// ---- the walk ---------------------------------------------------------------------------------

/// Rows list[0..count) (list == nullptr: rows 0..count), except long ones; the body of the two
/// kernels below.
template <class Index, class Op>
__device__ __forceinline__ void walk_rows_body(graph<Index> const& g,
                                               Index const* __restrict__ list,
                                               std::int64_t count, Op& op) {
    int const lane = static_cast<int>(threadIdx.x & 31);
    std::int64_t const warp = (std::int64_t(blockIdx.x) * threads + threadIdx.x) / 32;
    std::int64_t const warps = std::int64_t(gridDim.x) * (threads / 32);
    Index const* __restrict__ col = g.col;
    for (std::int64_t base = warp * 32; base < count; base += warps * 32) {
        std::int64_t const i = base + lane;
        Index r = 0, b = 0, e = 0;
        bool want = false;
        if (i < count) {
            r = list ? list[i] : static_cast<Index>(i);
            b = g.ptr[r];
            e = g.ptr[r + 1];
            want = std::int64_t(e - b) <= long_min && op.wants(r);
            if (want) op.row_begin(r, b, e);
        }
        auto acc = op.identity();
        bool const together = want && std::int64_t(e - b) > warp_min;
        if (want && !together) {
            if constexpr (Op::batch_loads) {
                // Four entries at a time, the last group predicated: their column loads, then
                // the op's loads they address, are all in flight before the first use. A row of
                // a road network (2-4 entries) thus waits for two loads, not two an entry (ncu,
                // H200, PageRank's pull on NE: 84% of the warps' cycles were those waits).
                for (std::int64_t k = b; k < e; k += 4) {
                    std::int64_t const left = std::int64_t(e) - k;
                    Index c[4];
#pragma unroll
                    for (int j = 0; j < 4; ++j) c[j] = j < left ? col[k + j] : Index(0);
#pragma unroll
                    for (int j = 0; j < 4; ++j)
                        if (j < left) op.edge(r, static_cast<Index>(k + j), c[j], acc);
                }
            } else {
                for (Index k = b; k < e; ++k) op.edge(r, k, col[k], acc);
            }
        }
        unsigned rest = __ballot_sync(full_mask, together);
        while (rest) {
            int const j = __ffs(static_cast<int>(rest)) - 1;
            rest &= rest - 1;
            Index const rr = detail::shfl(full_mask, r, j);
            Index const rb = detail::shfl(full_mask, b, j);
            Index const re = detail::shfl(full_mask, e, j);
            auto part = op.identity();
            // 64-bit steps: k + 32 must not wrap near the end of a 32-bit index range
            for (std::int64_t k = std::int64_t(rb) + lane; k < re; k += 32)
                op.edge(rr, static_cast<Index>(k), col[k], part);
            part = warp_reduce(op, part);
            if (lane == j) acc = op.combine(acc, part);
        }
        if (want) op.finish(r, acc);
    }
}

template <class Index, class Op>
__global__ void __launch_bounds__(threads, Op::min_blocks)
    walk_rows(graph<Index> g, Index const* __restrict__ list, std::int64_t count, Op op_in) {
    Op op = op_in;
    if (op.idle()) return;
    walk_rows_body(g, list, count, op);
    op.end_block();
}

/// Rows list[range[0] .. range[1]), the bounds read on the device: the levels of a search that
/// the host queues without waiting for their sizes.
template <class Index, class Op>
__global__ void __launch_bounds__(threads, Op::min_blocks)
    walk_rows_range(graph<Index> g, Index const* __restrict__ list,
                    std::int64_t const* range, Op op_in) {
    Op op = op_in;
    if (op.idle()) return;
    std::int64_t const begin = range[0], end = range[1];
    walk_rows_body(g, list + begin, end - begin, op);
    op.end_block();
}

/// One warp per slice of a long row.
template <class Index, class Op>
__global__ void __launch_bounds__(threads, Op::min_blocks)
    walk_slices(graph<Index> g, long_view<Index> lv, Op op_in) {
    Op op = op_in;
    if (op.idle()) return;
    int const lane = static_cast<int>(threadIdx.x & 31);
    std::int64_t const warp = (std::int64_t(blockIdx.x) * threads + threadIdx.x) / 32;
    std::int64_t const warps = std::int64_t(gridDim.x) * (threads / 32);
    for (std::int64_t s = warp; s < lv.slices; s += warps) {
        std::int64_t const li = detail::last_at_most(lv.offs, 0, lv.count - 1, s);
        Index const r = lv.rows[li];
        // One verdict for the warp: wants() may read memory other warps are changing.
        int const w = __shfl_sync(full_mask, lane == 0 ? int(op.wants(r)) : 0, 0);
        if (!w) continue;
        std::int64_t const k0 = std::int64_t(g.ptr[r]) + (s - lv.offs[li]) * slice;
        std::int64_t const end = g.ptr[r + 1];
        std::int64_t const k1 = k0 + slice < end ? k0 + slice : end;
        auto part = op.identity();
        for (std::int64_t k = k0 + lane; k < k1; k += 32)
            op.edge(r, static_cast<Index>(k), g.col[k], part);
        part = warp_reduce(op, part);
        if (lane == 0) op.partial(li, r, part);
    }
    op.end_block();
}

template <class Index, class Op>
__global__ void __launch_bounds__(threads, Op::min_blocks)
    walk_long_finish(long_view<Index> lv, Op op_in) {
    Op op = op_in;
    if (op.idle()) return;
    for (std::int64_t li = std::int64_t(blockIdx.x) * threads + threadIdx.x; li < lv.count;
         li += std::int64_t(gridDim.x) * threads) {
        Index const r = lv.rows[li];
        if (op.wants(r)) op.finish_long(li, r);
    }
    op.end_block();
}

template <class Index>
__global__ void find_long_rows(graph<Index> g, Index* __restrict__ rows,
                               std::int64_t* __restrict__ slices, unsigned long long* count) {
    for (std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; v < g.n;
         v += std::int64_t(gridDim.x) * blockDim.x) {
        std::int64_t const deg = g.ptr[v + 1] - g.ptr[v];
        if (deg > long_min) {
            auto const slot = detail::aggregated_slot(count);
            rows[slot] = static_cast<Index>(v);
            slices[slot] = (deg + slice - 1) / slice;
        }
    }
}

/// The long rows of one graph and their slice offsets, built once per call on stream st (and
/// released on it).
template <class Index>
class long_rows {
  public:
    long_rows(graph<Index> g, std::size_t nnz, ::kleene::cuda::detail::device_stream st) {
        if (g.n == 0) return;
        std::size_t const cap = nnz / std::size_t(long_min + 1) + 1;
        rows_ = detail::stream_buffer<Index>(cap, st);
        detail::stream_buffer<std::int64_t> per_row(cap, st);
        detail::stream_buffer<unsigned long long> count(1, st);
        count.zero();
        find_long_rows<Index>
            <<<detail::blocks_for(std::size_t(g.n), 256, detail::persistent_blocks(8)), 256, 0,
               st>>>(g, rows_.data(), per_row.data(), count.data());
        KLEENE_CUDA_CHECK_LAUNCH("find_long_rows");
        count_ = static_cast<std::int64_t>(detail::read_one(count.data(), st));
        if (count_ == 0) return;
        offs_ = detail::stream_buffer<std::int64_t>(std::size_t(count_) + 1, st);
        KLEENE_CUDA_CHECK(cudaMemsetAsync(offs_.data(), 0, sizeof(std::int64_t), st));
        std::size_t bytes = 0;
        KLEENE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, per_row.data(),
                                                        offs_.data() + 1, count_, st));
        detail::stream_buffer<unsigned char> temp(bytes, st);
        KLEENE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.data(), bytes, per_row.data(),
                                                        offs_.data() + 1, count_, st));
        slices_ = detail::read_one(offs_.data() + count_, st);
    }
    long_view<Index> view() const { return {rows_.data(), offs_.data(), count_, slices_}; }
    std::int64_t count() const noexcept { return count_; }

  private:
    detail::stream_buffer<Index> rows_;
    detail::stream_buffer<std::int64_t> offs_;
    std::int64_t count_ = 0;
    std::int64_t slices_ = 0;
};

/// The long rows' slices, then their finish (nothing when the graph has none).
template <class Index, class Op>
void walk_long(graph<Index> g, long_view<Index> lv, Op const& op, cudaStream_t st) {
    if (lv.slices > 0) {
        walk_slices<Index, Op><<<detail::blocks_for(std::size_t(lv.slices) * 32, threads,
                                                    detail::persistent_blocks(8)),
                                 threads, 0, st>>>(g, lv, op);
        KLEENE_CUDA_CHECK_LAUNCH("walk_slices");
        walk_long_finish<Index, Op>
            <<<detail::blocks_for(std::size_t(lv.count), threads, detail::persistent_blocks(2)),
               threads, 0, st>>>(lv, op);
        KLEENE_CUDA_CHECK_LAUNCH("walk_long_finish");
    }
}

/// The whole walk: long rows' slices, their finish, then the other rows of the list (or all rows
/// when list == nullptr and count == n). Asynchronous on stream st.
template <class Index, class Op>
void walk(graph<Index> g, long_view<Index> lv, Index const* list, std::int64_t count, Op const& op,
          cudaStream_t st) {
    walk_long(g, lv, op, st);
    if (count > 0) {
        unsigned per_sm = Op::grid_blocks;
        if (per_sm == 0) {
            int resident = 0;
            KLEENE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &resident, walk_rows<Index, Op>, threads, 0));
            per_sm = resident > 0 ? unsigned(resident) : 1u;
        }
        walk_rows<Index, Op>
            <<<detail::blocks_for(std::size_t(count), threads, detail::persistent_blocks(per_sm)),
               threads, 0, st>>>(g, list, count, op);
        KLEENE_CUDA_CHECK_LAUNCH("walk_rows");
    }
}

/// walk() over list[range[0] .. range[1]) with the bounds on the device (walk_rows_range): a
/// fixed grid of two blocks a multiprocessor strides over whatever the range holds.
template <class Index, class Op>
void walk_range(graph<Index> g, long_view<Index> lv, Index const* list, std::int64_t const* range,
                Op const& op, cudaStream_t st) {
    walk_long(g, lv, op, st);
    walk_rows_range<Index, Op><<<detail::persistent_blocks(2), threads, 0, st>>>(g, list, range, op);
    KLEENE_CUDA_CHECK_LAUNCH("walk_rows_range");
}

// ---- host helpers -----------------------------------------------------------------------------

/// Device time between begin() and end() (events on stream st), with optional phase marks in
/// between for the explain notes.
class timer {
  public:
    explicit timer(cudaStream_t st) : st_(st) {}
    void begin() {
        marks_.clear();
        mark();
    }
    void mark() {
        marks_.emplace_back(true);
        KLEENE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(marks_.back().native()), st_));
    }
    /// Waits for the work so far on st; seconds since begin().
    double end() {
        mark();
        marks_.back().synchronize();
        return seconds(0, marks_.size() - 1);
    }
    /// After end(): seconds between marks i and j (begin() is mark 0).
    double seconds(std::size_t i, std::size_t j) const {
        return double(event::elapsed_ms(marks_[i], marks_[j])) / 1000.0;
    }

  private:
    cudaStream_t st_;
    std::vector<event> marks_;
};

template <class Index>
void require_square(char const* what, csr_matrix<bool, Index, device> const& a) {
    if (a.rows() != a.cols())
        throw dimension_mismatch(std::string(what) + ": the graph must be square, not " +
                                 kleene::detail::shape(a.rows(), a.cols()));
}

template <class Index>
void require_transpose(char const* what, csr_matrix<bool, Index, device> const& a,
                       csr_matrix<bool, Index, device> const& at) {
    if (at.rows() != a.rows() || at.cols() != a.cols() || at.nnz() != a.nnz())
        throw dimension_mismatch(std::string(what) + ": the transpose is " +
                                 kleene::detail::shape(at.rows(), at.cols()) + " with " +
                                 std::to_string(at.nnz()) + " entries, the graph " +
                                 kleene::detail::shape(a.rows(), a.cols()) + " with " +
                                 std::to_string(a.nnz()) + " entries");
}

inline std::string ms(double seconds) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
    return buf;
}

}  // namespace kleene::cuda::walk
