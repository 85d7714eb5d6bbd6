#pragma once
// The kernel templates behind the sparse products (sparse.hpp). Code compiled by nvcc may include
// this and call kleene::cuda::spmv<my_semiring, Index>(...) and friends for a semiring of its own;
// the built-in semirings are instantiated in lib/cuda/src/sparse_*.cu.
//
// Pieces that do not depend on the semiring (the SpGEMM count pass, cuSPARSE, masks) live in
// lib/cuda/src/sparse_common.cu and sparse_cusparse.cu.

#pragma nv_diag_suppress 554  // see dense_gemm.cuh

#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/sparse.hpp>
#include <kleene/error.hpp>

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace kleene::cuda {
namespace sparse_detail {

using detail::atomic_add;
using detail::value_at;

/// The mask as a kernel reads it (flags == nullptr: no mask).
struct mask_ref {
    std::uint8_t const* flags = nullptr;
    bool complemented = false;
    __device__ __forceinline__ bool allows(std::int64_t i) const {
        return !flags || ((flags[i] != 0) != complemented);
    }
};
inline mask_ref ref(vector_mask const& m) {
    return m.active() ? mask_ref{m.flags(), m.complemented()} : mask_ref{};
}

/// Device scratch of the context, reused across its calls (calls are synchronous). Each product
/// names the slots it uses at once; the returned memory is uninitialised.
void* scratch_bytes(context& ctx, int slot, std::size_t bytes);
template <class T>
T* scratch(context& ctx, int slot, std::size_t n) {
    return static_cast<T*>(scratch_bytes(ctx, slot, std::max<std::size_t>(n, 1) * sizeof(T)));
}
/// CUB temporary storage of the context (its own slot).
void* cub_scratch(context& ctx, std::size_t bytes);

template <class S>
struct add_fn {
    using T = typename S::value_type;
    __device__ __forceinline__ T operator()(T a, T b) const { return S::add(a, b); }
};

template <class S>
__device__ __forceinline__ bool skip_operand(typename S::value_type x) {
    // Dense operands hold zero() where absent; that matters only where zero does not annihilate.
    if constexpr (zero_annihilates<S>()) return false;
    else return x == S::zero();
}

template <class S>
__device__ __forceinline__ bool stops(typename S::value_type acc) {
    if constexpr (!S::has_terminal) return false;
    else return !(acc == S::zero()) && is_terminal<S>(acc);
}

// ---- cuSPARSE (sparse_cusparse.cu) ------------------------------------------------------------

template <class T, class Index>
void cusparse_spmv(context& ctx, csr_matrix<T, Index, device> const& a, T const* u, T* w,
                   bool accumulate);
template <class T, class Index>
void cusparse_spmm(context& ctx, csr_matrix<T, Index, device> const& a,
                   dense_view<T const, device> b, dense_view<T, device> c, bool accumulate);
template <class T>
void cusparse_spgemm(context& ctx, csr_matrix<T, std::int32_t, device>& c,
                     csr_matrix<T, std::int32_t, device> const& a,
                     csr_matrix<T, std::int32_t, device> const& b);

// ---- long rows (SpMV, SpMM) ------------------------------------------------------------------
//
// The row kernels leave rows longer than a threshold in a list; those rows are cut into slices of
// equal length, numbered through a scan of each row's slice count, so that a few hubs spread over
// many blocks (or warps) and no work item is empty.

/// slices[k] = number of slices of long row k.
template <class Index>
__global__ void count_slices(Index const* __restrict__ row_ptr, Index const* __restrict__ rows,
                             std::int64_t count, std::int64_t slice,
                             std::int64_t* __restrict__ slices) {
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < count;
         k += std::int64_t(gridDim.x) * blockDim.x) {
        Index const r = rows[k];
        slices[k] = (std::int64_t(row_ptr[r + 1] - row_ptr[r]) + slice - 1) / slice;
    }
}

/// deg[0..count) -> offs[0..count] (offs[0] = 0) with CUB.
inline void exclusive_offsets(context& ctx, std::int64_t const* deg, std::int64_t* offs,
                              std::int64_t count) {
    KLEENE_CUDA_CHECK(cudaMemsetAsync(offs, 0, sizeof(std::int64_t)));
    if (count == 0) return;
    std::size_t bytes = 0;
    KLEENE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, deg, offs + 1, count));
    KLEENE_CUDA_CHECK(
        cub::DeviceScan::InclusiveSum(cub_scratch(ctx, bytes), bytes, deg, offs + 1, count));
}

/// Reads the long-row count, numbers their slices; returns the number of slices (work items).
template <class Index>
std::int64_t number_slices(context& ctx, Index const* row_ptr, Index const* rows,
                           unsigned long long const* count_dev, std::int64_t slice,
                           std::int64_t*& offs, std::int64_t& count) {
    unsigned long long c = 0;
    KLEENE_CUDA_CHECK(cudaMemcpy(&c, count_dev, sizeof c, cudaMemcpyDeviceToHost));
    count = static_cast<std::int64_t>(c);
    if (count == 0) return 0;
    auto* slices = scratch<std::int64_t>(ctx, 3, std::size_t(count));
    offs = scratch<std::int64_t>(ctx, 4, std::size_t(count) + 1);
    count_slices<Index>
        <<<detail::blocks_for(std::size_t(count), 256), 256>>>(row_ptr, rows, count, slice, slices);
    KLEENE_CUDA_CHECK_LAUNCH("count_slices");
    exclusive_offsets(ctx, slices, offs, count);
    std::int64_t total = 0;
    KLEENE_CUDA_CHECK(cudaMemcpy(&total, offs + count, sizeof total, cudaMemcpyDeviceToHost));
    return total;
}

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

// ---- SpMSpV (push) ----------------------------------------------------------------------------

inline constexpr int push_threads = 256;
inline constexpr int push_items = 8;

template <class Index>
__global__ void push_degrees(Index const* __restrict__ row_ptr, Index const* __restrict__ idx,
                             std::int64_t count, std::int64_t* __restrict__ deg) {
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < count;
         k += std::int64_t(gridDim.x) * blockDim.x) {
        Index const r = idx[k];
        deg[k] = static_cast<std::int64_t>(row_ptr[r + 1] - row_ptr[r]);
    }
}

template <class S, class Index>
struct push_args {
    using T = typename S::value_type;
    Index const* row_ptr;
    Index const* col;
    T const* val;
    T iso;
    Index const* u_idx;
    T const* u_val;
    std::int64_t u_count;
    std::int64_t const* offs;
    mask_ref mask;
    T* acc;
    unsigned* touched;
    Index* queue;
    unsigned long long* queued;
};

template <class S, class Index>
__global__ void __launch_bounds__(push_threads) spmspv_expand(push_args<S, Index> p) {
    detail::for_each_frontier_edge<push_threads, push_items>(
        p.offs, p.u_count, [&](std::int64_t k, std::int64_t r) {
            Index const pos = p.row_ptr[p.u_idx[k]] + Index(r);
            Index const j = p.col[pos];
            if (!p.mask.allows(j)) return;
            atomic_add<S>(&p.acc[j], S::mul(p.u_val[k], value_at(p.val, p.iso, pos)));
            if (p.touched[j] == 0u && atomicExch(&p.touched[j], 1u) == 0u)
                p.queue[detail::aggregated_slot(p.queued)] = j;
        });
}

template <class T, class Index>
__global__ void gather_values(Index const* __restrict__ idx, std::int64_t count,
                              T const* __restrict__ acc, T* __restrict__ out) {
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < count;
         k += std::int64_t(gridDim.x) * blockDim.x)
        out[k] = acc[idx[k]];
}

inline int bits_for(std::size_t n) {
    int b = 1;
    while (b < 63 && (std::size_t(1) << b) < n) ++b;
    return b;
}

template <class S, class Index>
void spmspv_generic(context& ctx, sparse_vector<typename S::value_type, Index, device>& w,
                    mask_ref mask,
                    sparse_vector<typename S::value_type, Index, device> const& u,
                    csr_matrix<typename S::value_type, Index, device> const& a) {
    using T = typename S::value_type;
    using U = std::make_unsigned_t<Index>;
    std::size_t const n = a.cols();
    auto const f = static_cast<std::int64_t>(u.nnz());
    if (f == 0 || n == 0 || a.nnz() == 0) {
        w = sparse_vector<T, Index, device>(n);
        return;
    }
    auto* deg = scratch<std::int64_t>(ctx, 0, std::size_t(f));
    auto* offs = scratch<std::int64_t>(ctx, 1, std::size_t(f) + 1);
    push_degrees<Index>
        <<<detail::blocks_for(std::size_t(f), 256), 256>>>(a.row_ptr(), u.indices(), f, deg);
    KLEENE_CUDA_CHECK_LAUNCH("push_degrees");
    exclusive_offsets(ctx, deg, offs, f);
    push_args<S, Index> p{a.row_ptr(),
                          a.col_idx(),
                          a.values(),
                          a.iso_value(),
                          u.indices(),
                          u.values(),
                          f,
                          offs,
                          mask,
                          scratch<T>(ctx, 2, n),
                          scratch<unsigned>(ctx, 3, n),
                          scratch<Index>(ctx, 4, n),
                          scratch<unsigned long long>(ctx, 5, 1)};
    detail::fill(p.acc, n, S::zero());
    KLEENE_CUDA_CHECK(cudaMemsetAsync(p.touched, 0, n * sizeof(unsigned)));
    KLEENE_CUDA_CHECK(cudaMemsetAsync(p.queued, 0, sizeof(unsigned long long)));
    spmspv_expand<S, Index><<<detail::persistent_blocks(8), push_threads>>>(p);
    KLEENE_CUDA_CHECK_LAUNCH("spmspv_expand");
    unsigned long long count = 0;
    KLEENE_CUDA_CHECK(cudaMemcpy(&count, p.queued, sizeof count, cudaMemcpyDeviceToHost));
    buffer<Index, device> idx(count);
    buffer<T, device> vals(count);
    if (count > 0) {
        std::size_t bytes = 0;
        auto const* in = reinterpret_cast<U const*>(p.queue);
        auto* out = reinterpret_cast<U*>(idx.data());
        int const end_bit = bits_for(n);
        KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(
            nullptr, bytes, in, out, static_cast<std::int64_t>(count), 0, end_bit));
        KLEENE_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(
            cub_scratch(ctx, bytes), bytes, in, out, static_cast<std::int64_t>(count), 0, end_bit));
        gather_values<T, Index><<<detail::blocks_for(count, 256), 256>>>(
            idx.data(), static_cast<std::int64_t>(count), p.acc, vals.data());
        KLEENE_CUDA_CHECK_LAUNCH("gather_values");
    }
    KLEENE_CUDA_CHECK(cudaDeviceSynchronize());
    w = sparse_vector<T, Index, device>(n, std::move(idx), std::move(vals));
}

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
    Index* long_rows;
    unsigned long long* long_count;
};

/// acc[v] (+)= sum over entries [lo, hi) of A(row, :) times B(col, cb + lane + 32 v). The warp's
/// lanes load 32 entries at once and broadcast them with shuffles.
template <class S, class Index>
__device__ __forceinline__ void spmm_segment(spmm_args<S, Index> const& p, std::int64_t lo,
                                             std::int64_t hi, std::int64_t cb, int lane,
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
                if (j < p.n) {
                    T const bv = brow[j];
                    if (!skip_operand<S>(bv)) acc[v] = S::add(acc[v], S::mul(av, bv));
                }
            }
        }
    }
}

template <class S, class Index>
__global__ void __launch_bounds__(spmm_threads) spmm_rows_kernel(spmm_args<S, Index> p) {
    using T = typename S::value_type;
    int const lane = static_cast<int>(threadIdx.x & 31);
    std::int64_t const warps = std::int64_t(gridDim.x) * (spmm_threads / 32);
    for (std::int64_t row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
         row < p.rows; row += warps) {
        std::int64_t const b = p.row_ptr[row], e = p.row_ptr[row + 1];
        T* crow = p.c + row * p.ldc;
        if (e - b > spmm_long) {
            if (!p.accumulate)
                for (std::int64_t j = lane; j < p.n; j += 32) crow[j] = S::zero();
            if (lane == 0) p.long_rows[atomicAdd(p.long_count, 1ull)] = Index(row);
            continue;
        }
        for (std::int64_t cb = 0; cb < p.n; cb += 32 * spmm_cols) {
            T acc[spmm_cols];
#pragma unroll
            for (int v = 0; v < spmm_cols; ++v) acc[v] = S::zero();
            spmm_segment(p, b, e, cb, lane, acc);
#pragma unroll
            for (int v = 0; v < spmm_cols; ++v) {
                std::int64_t const j = cb + lane + 32 * v;
                if (j < p.n) crow[j] = p.accumulate ? S::add(crow[j], acc[v]) : acc[v];
            }
        }
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
            T acc[spmm_cols];
#pragma unroll
            for (int v = 0; v < spmm_cols; ++v) acc[v] = S::zero();
            spmm_segment(p, lo, hi, cb, lane, acc);
#pragma unroll
            for (int v = 0; v < spmm_cols; ++v) {
                std::int64_t const j = cb + lane + 32 * v;
                if (j < p.n && !(acc[v] == S::zero())) atomic_add<S>(&crow[j], acc[v]);
            }
        }
    }
}

template <class S, class Index>
void spmm_generic(context& ctx, dense_view<typename S::value_type, device> c,
                  csr_matrix<typename S::value_type, Index, device> const& a,
                  dense_view<typename S::value_type const, device> b, bool accumulate) {
    std::int64_t const rows = static_cast<std::int64_t>(a.rows());
    if (rows == 0 || c.cols == 0) return;
    spmm_args<S, Index> p{a.row_ptr(), a.col_idx(),          a.values(), a.iso_value(),
                          b.data,      std::int64_t(b.ld),   c.data,     std::int64_t(c.ld),
                          rows,        std::int64_t(c.cols), accumulate, nullptr,
                          nullptr};
    std::size_t const long_cap = a.nnz() / std::size_t(spmm_long + 1);
    if (long_cap > 0) {
        p.long_rows = scratch<Index>(ctx, 0, long_cap);
        p.long_count = scratch<unsigned long long>(ctx, 2, 1);
        KLEENE_CUDA_CHECK(cudaMemsetAsync(p.long_count, 0, sizeof(unsigned long long)));
    }
    unsigned const blocks =
        detail::blocks_for(std::size_t(rows) * 32, spmm_threads, detail::persistent_blocks(16));
    spmm_rows_kernel<S, Index><<<blocks, spmm_threads>>>(p);
    KLEENE_CUDA_CHECK_LAUNCH("spmm_rows_kernel");
    if (long_cap > 0) {
        std::int64_t* offs = nullptr;
        std::int64_t count = 0;
        std::int64_t const items =
            number_slices(ctx, a.row_ptr(), p.long_rows, p.long_count, spmm_slice, offs, count);
        if (items > 0) {
            spmm_long_kernel<S, Index><<<detail::blocks_for(std::size_t(items) * 32, spmm_threads,
                                                            detail::persistent_blocks(16)),
                                         spmm_threads>>>(p, offs, count, items);
            KLEENE_CUDA_CHECK_LAUNCH("spmm_long_kernel");
        }
    }
    KLEENE_CUDA_CHECK(cudaDeviceSynchronize());
}

// ---- SpGEMM (CSR x CSR) -----------------------------------------------------------------------
//
// Rows of C fall into tiers by their number of products f (sum over A(i,k) of |B(k,:)|): f <= 64,
// <= 512, <= 4096 accumulate in a shared-memory hash table of 2f slots or more (a warp, four warps,
// sixteen warps per row); longer rows use a table in global memory sized 2 min(f, cols), processed
// in batches that bound its memory. The count pass (sparse_common.cu, no semiring involved) gives
// each row's entries; after a scan, the numeric pass writes each row's entries in table order and
// a segmented sort orders the columns.

inline constexpr int spgemm_tiers = 3;  // shared-memory tiers; the global one comes after
template <int Tier>
struct spgemm_tier;
template <>
struct spgemm_tier<0> {
    static constexpr std::int64_t max_products = 64;
    static constexpr int slots = 128, row_threads = 32, block_threads = 256;
};
template <>
struct spgemm_tier<1> {
    static constexpr std::int64_t max_products = 512;
    static constexpr int slots = 1024, row_threads = 128, block_threads = 256;
};
template <>
struct spgemm_tier<2> {
    static constexpr std::int64_t max_products = 4096;
    static constexpr int slots = 8192, row_threads = 512, block_threads = 512;
};
inline constexpr int spgemm_global_threads = 512;

/// The count pass: rows by tier, C's row pointers, and the global tier's rows in batches.
template <class Index>
struct spgemm_plan {
    std::int64_t rows = 0;
    buffer<Index, device> tier_rows;  // tier t's rows at [t * rows, t * rows + count[t])
    std::int64_t count[spgemm_tiers + 1] = {};
    buffer<Index, device> heavy_rows;        // the global tier's rows (count[spgemm_tiers] of them)
    buffer<std::int64_t, device> heavy_off;  // their tables' slot offsets (prefix sums, one more)
    std::vector<std::size_t> batch_start;  // batch b: heavy rows [batch_start[b], batch_start[b+1])
    std::size_t max_batch_slots = 0;
    buffer<Index, device> row_ptr;  // C's row pointers
    std::int64_t nnz = 0;
    Index const* tier(int t) const { return tier_rows.data() + t * rows; }
};
template <class Index>
spgemm_plan<Index> spgemm_count(context& ctx, Index const* a_ptr, Index const* a_col,
                                std::int64_t rows, Index const* b_ptr, Index const* b_col,
                                std::int64_t cols);

template <class Index>
struct csr_ref {
    Index const* ptr;
    Index const* col;
};

template <class Index>
__device__ __forceinline__ std::uint64_t slot_of(Index j, std::uint64_t mask) {
    std::uint64_t const x = static_cast<std::uint64_t>(j) * 0x9E3779B97F4A7C15ull;
    return (x >> 32) & mask;
}

template <class Index>
__device__ __forceinline__ Index cas_index(Index* p, Index expected, Index desired) {
    if constexpr (sizeof(Index) == 4) {
        return atomicCAS(reinterpret_cast<int*>(p), expected, desired);
    } else {
        return static_cast<Index>(atomicCAS(reinterpret_cast<unsigned long long*>(p),
                                            static_cast<unsigned long long>(expected),
                                            static_cast<unsigned long long>(desired)));
    }
}

/// Finds or inserts key j (linear probing; the table never fills: it has 2f slots or more).
/// Returns the slot; `inserted` says whether this thread put j there.
template <class Index>
__device__ __forceinline__ std::uint64_t hash_insert(Index* keys, std::uint64_t mask, Index j,
                                                     bool& inserted) {
    std::uint64_t h = slot_of(j, mask);
    while (true) {
        Index const cur = *reinterpret_cast<Index volatile*>(keys + h);
        if (cur == j) {
            inserted = false;
            return h;
        }
        if (cur == Index(-1)) {
            Index const old = cas_index(keys + h, Index(-1), j);
            if (old == Index(-1) || old == j) {
                inserted = old == Index(-1);
                return h;
            }
        }
        h = (h + 1) & mask;
    }
}

/// The products of row `row` of A times B, spread over `threads` threads (warps take entries of
/// A, their lanes the entries of the matching row of B), inserted into (keys, vals).
template <class S, class Index, bool Numeric>
__device__ __forceinline__ void accumulate_row(
    csr_ref<Index> a, typename S::value_type const* a_val, typename S::value_type a_iso,
    csr_ref<Index> b, typename S::value_type const* b_val, typename S::value_type b_iso, Index row,
    int t, int threads, Index* keys, typename S::value_type* vals, std::uint64_t mask,
    int* inserted_count) {
    int const warp = t / 32, warps = threads / 32, lane = t % 32;
    Index const ae = a.ptr[row + 1];
    for (Index ka = a.ptr[row] + warp; ka < ae; ka += warps) {
        Index const k = a.col[ka];
        Index const be = b.ptr[k + 1];
        for (Index kb = b.ptr[k] + lane; kb < be; kb += 32) {
            bool inserted = false;
            std::uint64_t const s = hash_insert(keys, mask, b.col[kb], inserted);
            if constexpr (Numeric) {
                atomic_add<S>(&vals[s],
                              S::mul(value_at(a_val, a_iso, ka), value_at(b_val, b_iso, kb)));
            } else {
                if (inserted) atomicAdd(inserted_count, 1);
            }
        }
    }
}

template <class S, class Index>
struct spgemm_numeric_args {
    using T = typename S::value_type;
    csr_ref<Index> a;
    T const* a_val;
    T a_iso;
    csr_ref<Index> b;
    T const* b_val;
    T b_iso;
    Index const* c_ptr;
    Index* c_col;
    T* c_val;
};

/// Writes the table's entries to C's row (in table order; sorted later) and clears nothing.
template <class S, class Index>
__device__ __forceinline__ void emit_row(spgemm_numeric_args<S, Index> const& p, Index row, int t,
                                         int threads, Index const* keys,
                                         typename S::value_type const* vals, std::uint64_t slots,
                                         int* emitted) {
    Index const out = p.c_ptr[row];
    for (std::uint64_t s = t; s < slots; s += threads) {
        Index const key = keys[s];
        if (key != Index(-1)) {
            int const pos = atomicAdd(emitted, 1);
            p.c_col[out + pos] = key;
            p.c_val[out + pos] = vals[s];
        }
    }
}

template <class S, class Index, int Slots, int RowThreads, int BlockThreads>
__global__ void __launch_bounds__(BlockThreads)
    spgemm_shared_numeric(spgemm_numeric_args<S, Index> p, Index const* rows, std::int64_t count) {
    using T = typename S::value_type;
    constexpr int per_block = BlockThreads / RowThreads;
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ int emitted[per_block];
    int const sub = static_cast<int>(threadIdx.x) / RowThreads;
    int const t = static_cast<int>(threadIdx.x) % RowThreads;
    // Values first (8-byte aligned), then keys.
    T* vals = reinterpret_cast<T*>(smem) + sub * Slots;
    Index* keys = reinterpret_cast<Index*>(smem + sizeof(T) * Slots * per_block) + sub * Slots;
    std::int64_t const item = std::int64_t(blockIdx.x) * per_block + sub;
    for (int s = t; s < Slots; s += RowThreads) {
        keys[s] = Index(-1);
        vals[s] = S::zero();
    }
    if (t == 0) emitted[sub] = 0;
    __syncthreads();
    if (item < count)
        accumulate_row<S, Index, true>(p.a, p.a_val, p.a_iso, p.b, p.b_val, p.b_iso, rows[item], t,
                                       RowThreads, keys, vals, Slots - 1, nullptr);
    __syncthreads();
    if (item < count) emit_row(p, rows[item], t, RowThreads, keys, vals, Slots, &emitted[sub]);
}

template <class S, class Index>
__global__ void __launch_bounds__(spgemm_global_threads)
    spgemm_global_numeric(spgemm_numeric_args<S, Index> p, Index const* rows,
                          std::int64_t const* table_off, Index* keys_all,
                          typename S::value_type* vals_all) {
    __shared__ int emitted;
    std::int64_t const off = table_off[blockIdx.x] - table_off[0];  // inside this batch's tables
    auto const slots =
        static_cast<std::uint64_t>(table_off[blockIdx.x + 1] - table_off[blockIdx.x]);
    Index* keys = keys_all + off;
    auto* vals = vals_all + off;
    int const t = static_cast<int>(threadIdx.x);
    for (std::uint64_t s = t; s < slots; s += spgemm_global_threads) {
        keys[s] = Index(-1);
        vals[s] = S::zero();
    }
    if (t == 0) emitted = 0;
    __syncthreads();
    Index const row = rows[blockIdx.x];
    accumulate_row<S, Index, true>(p.a, p.a_val, p.a_iso, p.b, p.b_val, p.b_iso, row, t,
                                   spgemm_global_threads, keys, vals, slots - 1, nullptr);
    __syncthreads();
    emit_row(p, row, t, spgemm_global_threads, keys, vals, slots, &emitted);
}

template <class S, class Index, int Tier>
void launch_shared_numeric(spgemm_numeric_args<S, Index> const& p, spgemm_plan<Index> const& plan) {
    using T = typename S::value_type;
    using tier = spgemm_tier<Tier>;
    constexpr int per_block = tier::block_threads / tier::row_threads;
    std::int64_t const count = plan.count[Tier];
    if (count == 0) return;
    auto kernel =
        spgemm_shared_numeric<S, Index, tier::slots, tier::row_threads, tier::block_threads>;
    std::size_t const smem = std::size_t(tier::slots) * per_block * (sizeof(T) + sizeof(Index));
    KLEENE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smem)));
    auto const blocks = static_cast<unsigned>((count + per_block - 1) / per_block);
    kernel<<<blocks, tier::block_threads, smem>>>(p, plan.tier(Tier), count);
    KLEENE_CUDA_CHECK_LAUNCH("spgemm_shared_numeric");
}

template <class S, class Index>
void spgemm_generic(context& ctx, csr_matrix<typename S::value_type, Index, device>& c,
                    csr_matrix<typename S::value_type, Index, device> const& a,
                    csr_matrix<typename S::value_type, Index, device> const& b) {
    using T = typename S::value_type;
    auto const rows = static_cast<std::int64_t>(a.rows());
    auto const cols = static_cast<std::int64_t>(b.cols());
    auto plan = spgemm_count<Index>(ctx, a.row_ptr(), a.col_idx(), rows, b.row_ptr(), b.col_idx(), cols);
    buffer<Index, device> col(std::size_t(plan.nnz));
    buffer<T, device> val(std::size_t(plan.nnz));
    if (plan.nnz > 0) {
        Index* tmp_col = scratch<Index>(ctx, 0, std::size_t(plan.nnz));
        T* tmp_val = scratch<T>(ctx, 1, std::size_t(plan.nnz));
        spgemm_numeric_args<S, Index> p{{a.row_ptr(), a.col_idx()}, a.values(), a.iso_value(),
                                        {b.row_ptr(), b.col_idx()}, b.values(), b.iso_value(),
                                        plan.row_ptr.data(),        tmp_col,    tmp_val};
        launch_shared_numeric<S, Index, 0>(p, plan);
        launch_shared_numeric<S, Index, 1>(p, plan);
        launch_shared_numeric<S, Index, 2>(p, plan);
        // The global tier, in batches of bounded table memory.
        if (!plan.batch_start.empty()) {
            auto* keys = scratch<Index>(ctx, 2, plan.max_batch_slots);
            auto* vals = scratch<T>(ctx, 3, plan.max_batch_slots);
            for (std::size_t bt = 0; bt + 1 < plan.batch_start.size(); ++bt) {
                std::size_t const i = plan.batch_start[bt], j = plan.batch_start[bt + 1];
                spgemm_global_numeric<S, Index>
                    <<<static_cast<unsigned>(j - i), spgemm_global_threads>>>(
                        p, plan.heavy_rows.data() + i, plan.heavy_off.data() + i, keys, vals);
                KLEENE_CUDA_CHECK_LAUNCH("spgemm_global_numeric");
            }
        }
        // Columns in order inside each row.
        std::size_t bytes = 0;
        Index const* begin = plan.row_ptr.data();
        KLEENE_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(nullptr, bytes, tmp_col, col.data(),
                                                              tmp_val, val.data(), plan.nnz, rows,
                                                              begin, begin + 1));
        KLEENE_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(cub_scratch(ctx, bytes), bytes, tmp_col,
                                                              col.data(), tmp_val, val.data(),
                                                              plan.nnz, rows, begin, begin + 1));
    }
    KLEENE_CUDA_CHECK(cudaDeviceSynchronize());
    c = csr_matrix<T, Index, device>(a.rows(), b.cols(), std::move(plan.row_ptr), std::move(col),
                                     std::move(val), T(1), true);
}

// ---- spgemm into a dense output -------------------------------------------------------------

inline constexpr int spgemm_dense_threads = 256;

/// A warp per row of A (grid-strided): its entries in order, the lanes over the matching row of B,
/// each product added into C's row in place. A row of C has one writer warp, and B's columns in
/// one row are distinct, so no two lanes touch one entry between the __syncwarp()s: no atomics.
template <class S, class Index>
__global__ void __launch_bounds__(spgemm_dense_threads)
    spgemm_dense_kernel(csr_ref<Index> a, typename S::value_type const* a_val,
                        typename S::value_type a_iso, csr_ref<Index> b,
                        typename S::value_type const* b_val, typename S::value_type b_iso,
                        typename S::value_type* c, std::int64_t ldc, std::int64_t rows) {
    using T = typename S::value_type;
    int const lane = static_cast<int>(threadIdx.x & 31);
    std::int64_t const warps = std::int64_t(gridDim.x) * (spgemm_dense_threads / 32);
    for (std::int64_t row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
         row < rows; row += warps) {
        T* const crow = c + row * ldc;
        Index const ae = a.ptr[row + 1];
        for (Index ka = a.ptr[row]; ka < ae; ++ka) {
            Index const k = a.col[ka];
            T const av = value_at(a_val, a_iso, ka);
            Index const be = b.ptr[k + 1];
            for (Index kb = b.ptr[k] + lane; kb < be; kb += 32) {
                Index const j = b.col[kb];
                crow[j] = S::add(crow[j], S::mul(av, value_at(b_val, b_iso, kb)));
            }
            __syncwarp();
        }
    }
}

template <class T>
__global__ void fill_view_kernel(T* __restrict__ c, std::int64_t ld, std::int64_t rows,
                                 std::int64_t cols, T v) {
    for (std::int64_t r = blockIdx.y; r < rows; r += gridDim.y)
        for (std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < cols;
             j += std::int64_t(gridDim.x) * blockDim.x)
            c[r * ld + j] = v;
}

template <class S, class Index>
void spgemm_dense_generic(dense_view<typename S::value_type, device> c,
                          csr_matrix<typename S::value_type, Index, device> const& a,
                          csr_matrix<typename S::value_type, Index, device> const& b,
                          bool accumulate) {
    using T = typename S::value_type;
    if (c.rows == 0 || c.cols == 0) return;
    if (!accumulate) {
        dim3 const grid(static_cast<unsigned>(std::min<std::size_t>((c.cols + 255) / 256, 64)),
                        static_cast<unsigned>(std::min<std::size_t>(c.rows, 32768)));
        fill_view_kernel<T><<<grid, 256>>>(c.data, static_cast<std::int64_t>(c.ld),
                                           static_cast<std::int64_t>(c.rows),
                                           static_cast<std::int64_t>(c.cols), S::zero());
        KLEENE_CUDA_CHECK_LAUNCH("fill_view_kernel");
    }
    if (a.nnz() > 0 && b.nnz() > 0) {
        unsigned const blocks = detail::blocks_for(a.rows() * 32, spgemm_dense_threads,
                                                   detail::persistent_blocks(8));
        spgemm_dense_kernel<S, Index><<<blocks, spgemm_dense_threads>>>(
            {a.row_ptr(), a.col_idx()}, a.values(), a.iso_value(), {b.row_ptr(), b.col_idx()},
            b.values(), b.iso_value(), c.data, static_cast<std::int64_t>(c.ld),
            static_cast<std::int64_t>(a.rows()));
        KLEENE_CUDA_CHECK_LAUNCH("spgemm_dense_kernel");
    }
    KLEENE_CUDA_CHECK(cudaDeviceSynchronize());
}

// ---- dispatch ---------------------------------------------------------------------------------

[[noreturn]] void no_cusparse(char const* op, std::string const& why);
void check_vector(char const* op, char const* what, std::size_t got, std::size_t want);

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

template <semiring_type S, index_type Index>
void spmspv(sparse_vector<typename S::value_type, Index, device>& w, vector_mask const& mask,
            sparse_vector<typename S::value_type, Index, device> const& u,
            csr_matrix<typename S::value_type, Index, device> const& a, context* ctx) {
    using namespace sparse_detail;
    check_vector("spmspv", "u", u.size(), a.rows());
    if (mask.active()) check_vector("spmspv", "the mask", mask.size(), a.cols());
    spmspv_generic<S, Index>(resolve(ctx), w, ref(mask), u, a);
}

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
    spmm_generic<S, Index>(ctx, c, a, b, opt.accumulate);
    return sparse_backend::generic;
}

template <semiring_type S, index_type Index>
sparse_backend spgemm(csr_matrix<typename S::value_type, Index, device>& c,
                      csr_matrix<typename S::value_type, Index, device> const& a,
                      csr_matrix<typename S::value_type, Index, device> const& b,
                      sparse_options const& opt) {
    using namespace sparse_detail;
    context& ctx = resolve(opt.ctx);
    if (a.cols() != b.rows())
        throw dimension_mismatch("spgemm: cannot multiply A (" +
                                 kleene::detail::shape(a.rows(), a.cols()) + ") by B (" +
                                 kleene::detail::shape(b.rows(), b.cols()) + ")");
    if constexpr (cusparse_has<S> && std::is_same_v<Index, std::int32_t>) {
        bool const want = opt.backend == sparse_backend::cusparse ||
                          (opt.backend == sparse_backend::automatic && cusparse_default::spgemm);
        if (want && a.nnz() > 0 && b.nnz() > 0 && a.has_values() && b.has_values()) {
            if (opt.backend == sparse_backend::cusparse) {
                cusparse_spgemm<typename S::value_type>(ctx, c, a, b);
                return sparse_backend::cusparse;
            }
            try {
                cusparse_spgemm<typename S::value_type>(ctx, c, a, b);
                return sparse_backend::cusparse;
            } catch (device_error const&) {
                // cuSPARSE's SpGEMM keeps large work buffers; the generic kernel batches its own.
            }
        }
        if (opt.backend == sparse_backend::cusparse)
            no_cusparse("spgemm", "an iso or empty operand");
    } else if (opt.backend == sparse_backend::cusparse) {
        no_cusparse("spgemm", "this semiring or index type");
    }
    spgemm_generic<S, Index>(ctx, c, a, b);
    return sparse_backend::generic;
}

template <semiring_type S, index_type Index>
sparse_backend spgemm_dense(dense_view<typename S::value_type, device> c,
                            csr_matrix<typename S::value_type, Index, device> const& a,
                            csr_matrix<typename S::value_type, Index, device> const& b,
                            sparse_options const& opt) {
    using namespace sparse_detail;
    if (a.cols() != b.rows() || c.rows != a.rows() || c.cols != b.cols())
        throw dimension_mismatch("spgemm_dense: cannot compute C (" +
                                 kleene::detail::shape(c.rows, c.cols) + ") = A (" +
                                 kleene::detail::shape(a.rows(), a.cols()) + ") x B (" +
                                 kleene::detail::shape(b.rows(), b.cols()) + ")");
    if (opt.backend == sparse_backend::cusparse)
        no_cusparse("spgemm_dense", "a sparse product into a dense output");
    spgemm_dense_generic<S, Index>(c, a, b, opt.accumulate);
    return sparse_backend::generic;
}

}  // namespace kleene::cuda
