#pragma once
// SpMV, w<mask> = A u (pull): a warp walks 32 rows' entries at once, long rows are sliced.

#include <kleene/cuda/sparse/common.cuh>

#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <cstdint>

namespace kleene::cuda {
namespace sparse_detail {

// ---- SpMV (pull) ------------------------------------------------------------------------------

template <class S, class Index>
struct spmv_args {
    using T = typename S::value_type;
    Index const* row_ptr;
    Index const* col;
    T const* val;
    T iso;
    T const* u;
    T* w;
    std::int64_t rows;
    mask_ref mask;
    bool accumulate;
    bool replace;
    Index* long_rows;  // rows longer than spmv_long, in any order
    T* long_sum;       // their sums, combined by atomics
    unsigned long long* long_count;
};

inline constexpr int spmv_threads = 256;
inline constexpr std::int64_t spmv_long = 256;                 // longer rows are sliced
inline constexpr std::int64_t spmv_slice = spmv_threads * 16;  // entries per block on those

template <class S>
__device__ __forceinline__ void store_result(typename S::value_type* w, std::int64_t i,
                                             typename S::value_type t, bool accumulate) {
    // zero() is add's identity, so accumulating into an absent (zero) entry or adding an absent
    // result (zero) gives what GraphBLAS' union-with-accumulator gives on dense storage.
    w[i] = accumulate ? S::add(w[i], t) : t;
}

/// A warp per 32 consecutive rows: the warp walks the rows' entries (contiguous in CSR) 32 at a
/// time, whatever their lengths, finds each entry's row by a search over the lanes' row starts, and
/// sums by row with a segmented scan; lane i keeps row i's sum in shared memory. Short and empty
/// rows cost no idle lanes; rows the mask excludes and long rows are skipped as whole runs.
template <class S, class Index>
__global__ void __launch_bounds__(spmv_threads) spmv_rows_kernel(spmv_args<S, Index> p) {
    using T = typename S::value_type;
    constexpr unsigned full = 0xffffffffu;
    __shared__ T sums[spmv_threads];
    int const lane = static_cast<int>(threadIdx.x & 31);
    T* acc = sums + (threadIdx.x & ~31u);
    std::int64_t const stride = std::int64_t(gridDim.x) * spmv_threads;
    for (std::int64_t r0 = std::int64_t(blockIdx.x) * spmv_threads + (threadIdx.x & ~31u);
         r0 < p.rows; r0 += stride) {
        std::int64_t const row = r0 + lane;
        bool const in = row < p.rows;
        Index b = 0, e = 0;
        if (in) {
            b = p.row_ptr[row];
            e = p.row_ptr[row + 1];
        }
        bool const allowed = in && p.mask.allows(row);
        if (in && !allowed && p.replace) p.w[row] = S::zero();
        bool const is_long = allowed && std::int64_t(e - b) > spmv_long;
        if (is_long) {
            unsigned long long const k = atomicAdd(p.long_count, 1ull);
            p.long_rows[k] = Index(row);
            p.long_sum[k] = S::zero();
        }
        bool const active = allowed && !is_long;
        acc[lane] = S::zero();
        __syncwarp();
        unsigned pending = __ballot_sync(full, active);
        while (pending) {
            // The next run of active rows [first, last): their entries are contiguous.
            int const first = __ffs(pending) - 1;
            unsigned const gaps = ~pending & (full << first);
            int const last = gaps ? __ffs(gaps) - 1 : 32;
            unsigned const run = (last == 32 ? full : (1u << last) - 1u) & (full << first);
            pending &= ~run;
            Index const nb = detail::shfl(full, b, first), ne = detail::shfl(full, e, last - 1);
            for (Index base = nb; base < ne; base += 32) {
                Index const k = base + lane;
                bool const valid = k < ne;
                // The entry's row: the last lane j of the run whose row starts at or before k.
                int j = first;
#pragma unroll
                for (int step = 16; step > 0; step /= 2) {
                    int const cand = j + step;
                    Index const bc = detail::shfl(full, b, cand < 32 ? cand : 31);
                    if (cand < last && bc <= k) j = cand;
                }
                T prod = S::zero();
                if (valid) {
                    T const x = p.u[p.col[k]];
                    if (!skip_operand<S>(x)) prod = S::mul(value_at(p.val, p.iso, k), x);
                }
                // Inclusive segmented scan by row (rows are non-decreasing over the lanes).
#pragma unroll
                for (int d = 1; d < 32; d *= 2) {
                    T const other = detail::shfl_up(full, prod, d);
                    int const oj = detail::shfl_up(full, j, d);
                    if (lane >= d && oj == j) prod = S::add(other, prod);
                }
                int const next_j = detail::shfl_down(full, j, 1);
                bool const tail = valid && (lane == 31 || k + 1 >= ne || next_j != j);
                if (tail) acc[j] = S::add(acc[j], prod);
                __syncwarp();
            }
        }
        if (active) store_result<S>(p.w, row, acc[lane], p.accumulate);
        __syncwarp();
    }
}

/// One block per slice of a long row; the slices' sums meet in long_sum by a semiring atomic.
template <class S, class Index>
__global__ void __launch_bounds__(spmv_threads)
    spmv_long_kernel(spmv_args<S, Index> p, std::int64_t const* __restrict__ offs,
                     std::int64_t count, std::int64_t items) {
    using T = typename S::value_type;
    using reduce = cub::BlockReduce<T, spmv_threads>;
    __shared__ typename reduce::TempStorage tmp;
    for (std::int64_t item = blockIdx.x; item < items; item += gridDim.x) {
        std::int64_t const k = detail::last_at_most(offs, 0, count - 1, item);
        Index const row = p.long_rows[k];
        std::int64_t const lo = std::int64_t(p.row_ptr[row]) + (item - offs[k]) * spmv_slice;
        std::int64_t const hi = std::min<std::int64_t>(p.row_ptr[row + 1], lo + spmv_slice);
        T acc = S::zero();
        for (std::int64_t j = lo + threadIdx.x; j < hi; j += spmv_threads) {
            T const x = p.u[p.col[j]];
            if (!skip_operand<S>(x)) acc = S::add(acc, S::mul(value_at(p.val, p.iso, j), x));
        }
        T const total = reduce(tmp).Reduce(acc, add_fn<S>{});
        if (threadIdx.x == 0 && !(total == S::zero())) atomic_add<S>(&p.long_sum[k], total);
        __syncthreads();  // tmp is reused by the next item
    }
}

template <class S, class Index>
__global__ void spmv_long_finish(spmv_args<S, Index> p, std::int64_t count) {
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < count;
         k += std::int64_t(gridDim.x) * blockDim.x)
        store_result<S>(p.w, p.long_rows[k], p.long_sum[k], p.accumulate);
}

template <class S, class Index>
void spmv_generic(context& ctx, dense_vector<typename S::value_type, device>& w, mask_ref mask,
                  csr_matrix<typename S::value_type, Index, device> const& a,
                  dense_vector<typename S::value_type, device> const& u, bool accumulate,
                  bool replace) {
    using T = typename S::value_type;
    std::int64_t const rows = static_cast<std::int64_t>(a.rows());
    if (rows == 0) return;
    spmv_args<S, Index> p{a.row_ptr(), a.col_idx(), a.values(), a.iso_value(), u.data(),
                          w.data(),    rows,        mask,       accumulate,    replace,
                          nullptr,     nullptr,     nullptr};
    std::size_t const long_cap = a.nnz() / std::size_t(spmv_long + 1);
    if (long_cap > 0) {
        p.long_rows = scratch<Index>(ctx, 0, long_cap);
        p.long_sum = scratch<T>(ctx, 1, long_cap);
        p.long_count = scratch<unsigned long long>(ctx, 2, 1);
        KLEENE_CUDA_CHECK(cudaMemsetAsync(p.long_count, 0, sizeof(unsigned long long)));
    }
    unsigned const blocks =
        detail::blocks_for(std::size_t(rows), spmv_threads, detail::persistent_blocks(16));
    spmv_rows_kernel<S, Index><<<blocks, spmv_threads>>>(p);
    KLEENE_CUDA_CHECK_LAUNCH("spmv_rows_kernel");
    if (long_cap > 0) {
        std::int64_t* offs = nullptr;
        std::int64_t count = 0;
        std::int64_t const items =
            number_slices(ctx, a.row_ptr(), p.long_rows, p.long_count, spmv_slice, offs, count);
        if (items > 0) {
            spmv_long_kernel<S, Index>
                <<<detail::blocks_for(std::size_t(items), 1, detail::persistent_blocks(8)),
                   spmv_threads>>>(p, offs, count, items);
            KLEENE_CUDA_CHECK_LAUNCH("spmv_long_kernel");
            spmv_long_finish<S, Index>
                <<<detail::blocks_for(std::size_t(count), 256), 256>>>(p, count);
            KLEENE_CUDA_CHECK_LAUNCH("spmv_long_finish");
        }
    }
    KLEENE_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace sparse_detail

template <semiring_type S, index_type Index>
sparse_backend spmv(dense_vector<typename S::value_type, device>& w, vector_mask const& mask,
                    csr_matrix<typename S::value_type, Index, device> const& a,
                    dense_vector<typename S::value_type, device> const& u,
                    sparse_options const& opt) {
    using namespace sparse_detail;
    context& ctx = resolve(opt.ctx);
    check_vector("spmv", "u", u.size(), a.cols());
    check_vector("spmv", "w", w.size(), a.rows());
    if (mask.active()) check_vector("spmv", "the mask", mask.size(), a.rows());
    if (w.size() > 0 && w.data() == u.data())
        throw invalid_argument(
            "spmv: w and u must be different vectors (the product reads u while it writes w)");
    bool const plain = !mask.active();
    if constexpr (cusparse_has<S>) {
        bool const want = opt.backend == sparse_backend::cusparse ||
                          (opt.backend == sparse_backend::automatic && cusparse_default::spmv);
        if (want && plain && a.nnz() > 0 && a.has_values()) {
            cusparse_spmv<typename S::value_type, Index>(ctx, a, u.data(), w.data(), opt.accumulate);
            return sparse_backend::cusparse;
        }
        if (opt.backend == sparse_backend::cusparse)
            no_cusparse("spmv", plain ? "an iso or empty matrix" : "a masked product");
    } else if (opt.backend == sparse_backend::cusparse) {
        no_cusparse("spmv", "this semiring");
    }
    spmv_generic<S, Index>(ctx, w, ref(mask), a, u, opt.accumulate, opt.replace);
    return sparse_backend::generic;
}

}  // namespace kleene::cuda
