#pragma once
// SpMM, C = [C (+)] A B for CSR A and dense B: a warp per pass of 128 columns of a row, long rows
// split over warps. Sampled by a dense mask over C (sparse_options::sample): a pass whose 128
// entries the mask all forbids is skipped, and a lane neither reads B nor writes C for a column
// the mask forbids.

#include <kleene/cuda/sparse/common.cuh>

#include <algorithm>
#include <cstdint>

namespace kleene::cuda {
namespace sparse_detail {

// ---- SpMM (CSR x dense) -----------------------------------------------------------------------

inline constexpr int spmm_threads = 256;
inline constexpr int spmm_cols = 4;              // columns per lane per pass (32 * 4 per warp)
inline constexpr std::int64_t spmm_long = 1024;  // rows longer than this are split
inline constexpr std::int64_t spmm_slice = 256;  // entries per warp on a split row

template <class S, class Index>
struct spmm_args {
    using T = typename S::value_type;
    Index const* row_ptr;
    Index const* col;
    T const* val;
    T iso;
    T const* b;
    std::int64_t ldb;
    T* c;
    std::int64_t ldc;
    std::int64_t rows;
    std::int64_t n;
    bool accumulate;
    mask_ref sample;  // C's entries to compute (row major, n a row; no flags: all)
    Index* long_rows;
    unsigned long long* long_count;
};

/// Bit v set: the lane's column cb + lane + 32 v of `row` is in C and the sample allows it.
template <class S, class Index>
__device__ __forceinline__ unsigned spmm_live(spmm_args<S, Index> const& p, std::int64_t row,
                                              std::int64_t cb, int lane) {
    unsigned live = 0;
#pragma unroll
    for (int v = 0; v < spmm_cols; ++v) {
        std::int64_t const j = cb + lane + 32 * v;
        if (j < p.n && p.sample.allows(row * p.n + j)) live |= 1u << v;
    }
    return live;
}

/// acc[v] (+)= sum over entries [lo, hi) of A(row, :) times B(col, cb + lane + 32 v), for the
/// columns set in `live`. The warp's lanes load 32 entries at once and broadcast them with
/// shuffles.
template <class S, class Index>
__device__ __forceinline__ void spmm_segment(spmm_args<S, Index> const& p, std::int64_t lo,
                                             std::int64_t hi, std::int64_t cb, int lane,
                                             unsigned live,
                                             typename S::value_type (&acc)[spmm_cols]) {
    using T = typename S::value_type;
    for (std::int64_t kb = lo; kb < hi; kb += 32) {
        Index my_col = 0;
        T my_val = S::zero();
        if (kb + lane < hi) {
            my_col = p.col[kb + lane];
            my_val = value_at(p.val, p.iso, kb + lane);
        }
        int const cnt = static_cast<int>(std::min<std::int64_t>(32, hi - kb));
        for (int t = 0; t < cnt; ++t) {
            Index const kk = detail::shfl(0xffffffffu, my_col, t);
            T const av = detail::shfl(0xffffffffu, my_val, t);
            T const* brow = p.b + std::int64_t(kk) * p.ldb;
#pragma unroll
            for (int v = 0; v < spmm_cols; ++v) {
                std::int64_t const j = cb + lane + 32 * v;
                if (live >> v & 1u) {
                    T const bv = brow[j];
                    if (!skip_operand<S>(bv)) acc[v] = S::add(acc[v], S::mul(av, bv));
                }
            }
        }
    }
}

/// One pass: C(row, cb .. cb + 127) of a row of at most spmm_long entries, or of a long row its
/// zeroing (the long-row kernel adds the row's slices into C) and, at its first pass, its place
/// in the long rows' list.
template <class S, class Index>
__device__ __forceinline__ void spmm_pass(spmm_args<S, Index> const& p, std::int64_t row,
                                          std::int64_t cb, int lane) {
    using T = typename S::value_type;
    std::int64_t const b = p.row_ptr[row], e = p.row_ptr[row + 1];
    T* crow = p.c + row * p.ldc;
    unsigned const live = spmm_live(p, row, cb, lane);
    if (e - b > spmm_long) {
        if (!p.accumulate)
#pragma unroll
            for (int v = 0; v < spmm_cols; ++v)
                if (live >> v & 1u) crow[cb + lane + 32 * v] = S::zero();
        if (cb == 0 && lane == 0) p.long_rows[atomicAdd(p.long_count, 1ull)] = Index(row);
        return;
    }
    if (__ballot_sync(0xffffffffu, live != 0) == 0) return;  // the sample skips it all
    T acc[spmm_cols];
#pragma unroll
    for (int v = 0; v < spmm_cols; ++v) acc[v] = S::zero();
    spmm_segment(p, b, e, cb, lane, live, acc);
#pragma unroll
    for (int v = 0; v < spmm_cols; ++v) {
        std::int64_t const j = cb + lane + 32 * v;
        if (live >> v & 1u) crow[j] = p.accumulate ? S::add(crow[j], acc[v]) : acc[v];
    }
}

/// A warp per pass of 128 columns of a row, the passes dealt out column band by column band (all
/// rows' first band, then the next: the warps at work read one band of B's rows, which L2 holds).
/// A warp a row looping over its bands keeps that locality too, but makes a row one warp's chain
/// of dependent passes: under a mask that allows a triangle, the last rows' chains are the whole
/// product's while the first rows' warps idle (the H200, n = 16384: 0.94x of the whole product,
/// against 1.19x so). One band (C of at most 128 columns): a warp a row, no division.
template <class S, class Index>
__global__ void __launch_bounds__(spmm_threads) spmm_rows_kernel(spmm_args<S, Index> p,
                                                                 std::int64_t passes) {
    int const lane = static_cast<int>(threadIdx.x & 31);
    std::int64_t const warps = std::int64_t(gridDim.x) * (spmm_threads / 32);
    std::int64_t const first = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    if (passes == 1) {
        for (std::int64_t row = first; row < p.rows; row += warps) spmm_pass(p, row, 0, lane);
        return;
    }
    std::int64_t const items = p.rows * passes;
    for (std::int64_t item = first; item < items; item += warps) {
        std::int64_t const band = item / p.rows;
        spmm_pass(p, item - band * p.rows, band * (32 * spmm_cols), lane);
    }
}

/// A warp per slice of a long row; slices add into C with a semiring atomic.
template <class S, class Index>
__global__ void __launch_bounds__(spmm_threads)
    spmm_long_kernel(spmm_args<S, Index> p, std::int64_t const* __restrict__ offs,
                     std::int64_t count, std::int64_t items) {
    using T = typename S::value_type;
    int const lane = static_cast<int>(threadIdx.x & 31);
    std::int64_t const warps = std::int64_t(gridDim.x) * (spmm_threads / 32);
    for (std::int64_t item = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
         item < items; item += warps) {
        std::int64_t const k = detail::last_at_most(offs, 0, count - 1, item);
        Index const row = p.long_rows[k];
        std::int64_t const lo = std::int64_t(p.row_ptr[row]) + (item - offs[k]) * spmm_slice;
        std::int64_t const hi = std::min<std::int64_t>(p.row_ptr[row + 1], lo + spmm_slice);
        T* crow = p.c + std::int64_t(row) * p.ldc;
        for (std::int64_t cb = 0; cb < p.n; cb += 32 * spmm_cols) {
            unsigned const live = spmm_live(p, std::int64_t(row), cb, lane);
            if (__ballot_sync(0xffffffffu, live != 0) == 0) continue;
            T acc[spmm_cols];
#pragma unroll
            for (int v = 0; v < spmm_cols; ++v) acc[v] = S::zero();
            spmm_segment(p, lo, hi, cb, lane, live, acc);
#pragma unroll
            for (int v = 0; v < spmm_cols; ++v) {
                std::int64_t const j = cb + lane + 32 * v;
                if ((live >> v & 1u) && !(acc[v] == S::zero())) atomic_add<S>(&crow[j], acc[v]);
            }
        }
    }
}

template <class S, class Index>
void spmm_generic(context& ctx, dense_view<typename S::value_type, device> c,
                  csr_matrix<typename S::value_type, Index, device> const& a,
                  dense_view<typename S::value_type const, device> b, bool accumulate,
                  mask_ref sample) {
    std::int64_t const rows = static_cast<std::int64_t>(a.rows());
    if (rows == 0 || c.cols == 0) return;
    cudaStream_t const st = stream_of(ctx);
    spmm_args<S, Index> p{a.row_ptr(), a.col_idx(),          a.values(), a.iso_value(),
                          b.data,      std::int64_t(b.ld),   c.data,     std::int64_t(c.ld),
                          rows,        std::int64_t(c.cols), accumulate, sample,
                          nullptr,     nullptr};
    std::size_t const long_cap = a.nnz() / std::size_t(spmm_long + 1);
    if (long_cap > 0) {
        p.long_rows = scratch<Index>(ctx, 0, long_cap);
        p.long_count = scratch<unsigned long long>(ctx, 2, 1);
        KLEENE_CUDA_CHECK(cudaMemsetAsync(p.long_count, 0, sizeof(unsigned long long), st));
    }
    std::size_t const passes = (c.cols + 32 * spmm_cols - 1) / (32 * spmm_cols);
    unsigned const blocks = detail::blocks_for(std::size_t(rows) * passes * 32, spmm_threads,
                                               detail::persistent_blocks(16));
    spmm_rows_kernel<S, Index><<<blocks, spmm_threads, 0, st>>>(p, std::int64_t(passes));
    KLEENE_CUDA_CHECK_LAUNCH("spmm_rows_kernel");
    if (long_cap > 0) {
        std::int64_t* offs = nullptr;
        std::int64_t count = 0;
        std::int64_t const items =
            number_slices(ctx, a.row_ptr(), p.long_rows, p.long_count, spmm_slice, offs, count);
        if (items > 0) {
            spmm_long_kernel<S, Index><<<detail::blocks_for(std::size_t(items) * 32, spmm_threads,
                                                            detail::persistent_blocks(16)),
                                         spmm_threads, 0, st>>>(p, offs, count, items);
            KLEENE_CUDA_CHECK_LAUNCH("spmm_long_kernel");
        }
    }
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
}

}  // namespace sparse_detail

template <semiring_type S, index_type Index>
sparse_backend spmm(dense_view<typename S::value_type, device> c,
                    csr_matrix<typename S::value_type, Index, device> const& a,
                    dense_view<typename S::value_type const, device> b, sparse_options const& opt) {
    using namespace sparse_detail;
    context& ctx = resolve(opt.ctx);
    if (a.cols() != b.rows || c.rows != a.rows() || c.cols != b.cols)
        throw dimension_mismatch("spmm: cannot compute C (" +
                                 kleene::detail::shape(c.rows, c.cols) + ") = A (" +
                                 kleene::detail::shape(a.rows(), a.cols()) + ") x B (" +
                                 kleene::detail::shape(b.rows, b.cols) + ")");
    if (opt.sample) opt.sample->require_size(c.rows, c.cols, "spmm");
    if constexpr (cusparse_has<S>) {
        bool const want = opt.backend == sparse_backend::cusparse ||
                          (opt.backend == sparse_backend::automatic && cusparse_default::spmm);
        if (want && a.nnz() > 0 && a.has_values() && c.rows > 0 && c.cols > 0) {
            cusparse_spmm<typename S::value_type, Index>(ctx, a, b, c, opt.accumulate);
            return sparse_backend::cusparse;
        }
        if (opt.backend == sparse_backend::cusparse) no_cusparse("spmm", "an iso or empty matrix");
    } else if (opt.backend == sparse_backend::cusparse) {
        no_cusparse("spmm", "this semiring");
    }
    spmm_generic<S, Index>(ctx, c, a, b, opt.accumulate,
                           opt.sample ? ref(*opt.sample, ctx) : mask_ref{});
    return sparse_backend::generic;
}

}  // namespace kleene::cuda
