#pragma once
// SpMV's device code, w<mask> = A u (pull): a warp walks 32 rows' entries at once, long rows are
// sliced. No host code: spmv.cuh launches these kernels compiled ahead of time, and the JIT
// (kleene/cuda/jit.hpp) compiles this header through NVRTC for semirings it was not built with.

#include <kleene/cuda/detail/device_functions.cuh>
#include <kleene/cuda/sparse/device_common.cuh>
#include <kleene/semiring.hpp>

#include <cstdint>

namespace kleene::cuda::sparse_detail {

// ---- SpMV (pull) ------------------------------------------------------------------------------

template <class T, class Index>
struct spmv_args {
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
__global__ void __launch_bounds__(spmv_threads) spmv_rows_kernel(spmv_args<typename S::value_type, Index> p) {
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

/// The block's (+)-sum of v, valid in thread 0; call from every thread. `warp_sums` holds
/// Threads / 32 values; it may be reused once the call returns.
template <class S, int Threads>
__device__ __forceinline__ typename S::value_type block_sum(typename S::value_type v,
                                                            typename S::value_type* warp_sums) {
    constexpr unsigned full = 0xffffffffu;
#pragma unroll
    for (int d = 16; d > 0; d /= 2) v = S::add(v, detail::shfl_down(full, v, d));
    int const warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x & 31);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < Threads / 32 ? warp_sums[lane] : S::zero();
#pragma unroll
        for (int d = 16; d > 0; d /= 2) v = S::add(v, detail::shfl_down(full, v, d));
    }
    __syncthreads();  // warp_sums is free again
    return v;
}

/// One block per slice of a long row; the slices' sums meet in long_sum by a semiring atomic.
template <class S, class Index>
__global__ void __launch_bounds__(spmv_threads)
    spmv_long_kernel(spmv_args<typename S::value_type, Index> p, std::int64_t const* __restrict__ offs,
                     std::int64_t count, std::int64_t items) {
    using T = typename S::value_type;
    __shared__ T warp_sums[spmv_threads / 32];
    for (std::int64_t item = blockIdx.x; item < items; item += gridDim.x) {
        std::int64_t const k = detail::last_at_most(offs, 0, count - 1, item);
        Index const row = p.long_rows[k];
        std::int64_t const lo = std::int64_t(p.row_ptr[row]) + (item - offs[k]) * spmv_slice;
        std::int64_t const end = p.row_ptr[row + 1];
        std::int64_t const hi = end < lo + spmv_slice ? end : lo + spmv_slice;
        T acc = S::zero();
        for (std::int64_t j = lo + threadIdx.x; j < hi; j += spmv_threads) {
            T const x = p.u[p.col[j]];
            if (!skip_operand<S>(x)) acc = S::add(acc, S::mul(value_at(p.val, p.iso, j), x));
        }
        T const total = block_sum<S, spmv_threads>(acc, warp_sums);
        if (threadIdx.x == 0 && !(total == S::zero())) atomic_add<S>(&p.long_sum[k], total);
    }
}

/// The long rows without slicing, a block a row, their count read on the device: what runs while
/// the stream is captured into a CUDA graph, where the host cannot read the count to number the
/// slices (a hub then takes one block instead of many).
template <class S, class Index>
__global__ void __launch_bounds__(spmv_threads)
    spmv_long_whole(spmv_args<typename S::value_type, Index> p) {
    using T = typename S::value_type;
    __shared__ T warp_sums[spmv_threads / 32];
    auto const count = static_cast<std::int64_t>(*p.long_count);
    for (std::int64_t k = blockIdx.x; k < count; k += gridDim.x) {
        Index const row = p.long_rows[k];
        T acc = S::zero();
        for (std::int64_t j = std::int64_t(p.row_ptr[row]) + threadIdx.x; j < p.row_ptr[row + 1];
             j += spmv_threads) {
            T const x = p.u[p.col[j]];
            if (!skip_operand<S>(x)) acc = S::add(acc, S::mul(value_at(p.val, p.iso, j), x));
        }
        T const total = block_sum<S, spmv_threads>(acc, warp_sums);
        if (threadIdx.x == 0) store_result<S>(p.w, row, total, p.accumulate);
    }
}

template <class S, class Index>
__global__ void spmv_long_finish(spmv_args<typename S::value_type, Index> p, std::int64_t count) {
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < count;
         k += std::int64_t(gridDim.x) * blockDim.x)
        store_result<S>(p.w, p.long_rows[k], p.long_sum[k], p.accumulate);
}

}  // namespace kleene::cuda::sparse_detail
