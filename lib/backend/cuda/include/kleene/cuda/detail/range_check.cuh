#pragma once
// A device verdict on a dense view's range, for kernels that pick a fast path on the device: a
// range check sets a flag, and the two variants that follow both launch, each returning at once
// unless the flag selects it (no host round trip). Used by the dense GEMM's checked policies
// (dense_gemm.cuh) and by the int32 blocked Floyd-Warshall (apsp.cu). Include from nvcc code.

#include <kleene/context.hpp>
#include <kleene/cuda/check.cuh>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/device_state.hpp>
#include <kleene/memory.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace kleene::cuda::detail {

/// Sets *flag when an entry of the rows x cols view at p fails in_range(v).
template <class InRange, class T>
__global__ void range_check_kernel(T const* __restrict__ p, std::int64_t ld, int rows, int cols,
                                   InRange in_range, int* flag) {
    for (int r = static_cast<int>(blockIdx.y); r < rows; r += static_cast<int>(gridDim.y)) {
        T const* row = p + r * ld;
        for (int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); j < cols;
             j += static_cast<int>(gridDim.x * blockDim.x))
            if (!in_range(row[j])) *flag = 1;
    }
}

/// Enqueues the check of v on st (nothing for an empty view); the caller clears *flag first.
template <class InRange, class T>
void launch_range_check(dense_view<T const, device> v, InRange in_range, int* flag,
                        cudaStream_t st) {
    if (v.rows == 0 || v.cols == 0) return;
    dim3 const grid(static_cast<unsigned>(std::min<std::size_t>((v.cols + 255) / 256, 16)),
                    static_cast<unsigned>(std::min<std::size_t>(v.rows, 8192)));
    range_check_kernel<<<grid, 256, 0, st>>>(v.data, static_cast<std::int64_t>(v.ld),
                                             static_cast<int>(v.rows), static_cast<int>(v.cols),
                                             in_range, flag);
    KLEENE_CUDA_CHECK_LAUNCH("kleene::cuda::detail::range_check_kernel");
}

/// The context's device int, for the verdicts of range checks on its stream (made on first use).
inline int* context_flag(context& ctx) {
    auto& flag = ctx.state().flag;
    if (flag.size() == 0) flag = buffer<int, device>(1);
    return flag.data();
}

}  // namespace kleene::cuda::detail
