#pragma once
// The semiring closure's device code (jit::closure, kleene/cuda/jit.hpp; the JIT's closure
// family): Floyd-Warshall's recurrence on one diagonal block in shared memory (R-Kleene's base
// case), the add of a product into its target, the diagonal's check with the reflexive diagonal,
// and the NaN scan. Templates over the semiring S as the JIT gives it; products multiply through
// dense_safe<S> (zero as absent), as the dense GEMM does. NVRTC compiles this header: only
// kleene/semiring.hpp, <cstdint> and <type_traits>.

#include <kleene/semiring.hpp>

#include <cstdint>
#include <type_traits>

namespace kleene::cuda::closure_detail {

/// The largest block close_block closes (jit::closure_block_side), and its threads.
inline constexpr int block_side = 64;
inline constexpr int block_threads = 256;
inline constexpr int block_entries = block_side * block_side / block_threads;  // per thread
/// Threads of the elementwise kernels (grid-stride).
inline constexpr int threads = 256;

/// Closes the n x n block at a (n <= block_side, rows ld apart) in place: for k in order,
/// a_ij (+)= a_ik (x) a_kj for every (i, j). One thread block; the block lives in shared memory,
/// and each step reads every operand before any entry is written (two barriers a step), so a
/// step is Floyd-Warshall's with the row and column of k taken from the step before. Thread t
/// owns entries t + 256 q (rows of 64: a warp reads one a_ik and 32 consecutive a_kj).
template <class S>
__global__ void __launch_bounds__(block_threads)
    close_block(typename S::value_type* __restrict__ a, std::int64_t ld, int n) {
    using T = typename S::value_type;
    using D = dense_safe<S>;
    __shared__ T d[block_side][block_side + 1];
    int const t = static_cast<int>(threadIdx.x);
    T c[block_entries];
#pragma unroll
    for (int q = 0; q < block_entries; ++q) {
        int const e = t + q * block_threads;
        int const i = e / block_side, j = e % block_side;
        c[q] = (i < n && j < n) ? a[i * ld + j] : S::zero();
        d[i][j] = c[q];
    }
    __syncthreads();
    for (int k = 0; k < n; ++k) {
#pragma unroll
        for (int q = 0; q < block_entries; ++q) {
            int const e = t + q * block_threads;
            int const i = e / block_side, j = e % block_side;
            c[q] = S::add(c[q], D::mul(d[i][k], d[k][j]));
        }
        __syncthreads();
#pragma unroll
        for (int q = 0; q < block_entries; ++q) {
            int const e = t + q * block_threads;
            d[e / block_side][e % block_side] = c[q];
        }
        __syncthreads();
    }
#pragma unroll
    for (int q = 0; q < block_entries; ++q) {
        int const e = t + q * block_threads;
        int const i = e / block_side, j = e % block_side;
        if (i < n && j < n) a[i * ld + j] = c[q];
    }
}

/// c = c (+) t entrywise, for the rows x cols views c and t (rows ldc and ldt apart).
template <class S>
__global__ void __launch_bounds__(threads)
    add_into(typename S::value_type* __restrict__ c, std::int64_t ldc,
             typename S::value_type const* __restrict__ t, std::int64_t ldt, std::int64_t rows,
             std::int64_t cols) {
    std::int64_t const count = rows * cols;
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < count;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        std::int64_t const i = e / cols, j = e % cols;
        c[i * ldc + j] = S::add(c[i * ldc + j], t[i * ldt + j]);
    }
}

/// The closure's last step: the smallest i whose a_ii is not absorbed by one (add(one, a_ii) !=
/// one: a cycle that improves on one) into *first (atomic min; ~0 when none), and with
/// `reflexive` a_ii = one where the check passes (the others keep their value, for the message).
template <class S>
__global__ void __launch_bounds__(threads)
    finish_diagonal(typename S::value_type* __restrict__ a, std::int64_t ld, std::int64_t n,
                    int reflexive, unsigned long long* __restrict__ first) {
    using T = typename S::value_type;
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        T const d = a[i * ld + i];
        T const absorbed = S::add(S::one(), d);
        if (!(absorbed == S::one())) atomicMin(first, static_cast<unsigned long long>(i));
        else if (reflexive) a[i * ld + i] = S::one();
    }
}

/// The smallest row-major position e = i * cols + j whose entry is NaN into *first (atomic min;
/// ~0 when none). Integers have no NaN: nothing is written.
template <class S>
__global__ void __launch_bounds__(threads)
    find_nan(typename S::value_type const* __restrict__ a, std::int64_t ld, std::int64_t rows,
             std::int64_t cols, unsigned long long* __restrict__ first) {
    using T = typename S::value_type;
    if constexpr (std::is_floating_point_v<T>) {
        std::int64_t const count = rows * cols;
        for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < count;
             e += std::int64_t(gridDim.x) * blockDim.x) {
            T const v = a[(e / cols) * ld + e % cols];
            if (v != v) atomicMin(first, static_cast<unsigned long long>(e));
        }
    }
}

}  // namespace kleene::cuda::closure_detail
