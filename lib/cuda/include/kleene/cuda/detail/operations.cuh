#pragma once
// Device-side pieces shared by operations_*.cu: the GraphBLAS write-back of one output entry (the
// CPU's cpu::combine) and the CSR output built by a count pass, a CUB scan and a fill pass.
// Include only from code compiled by nvcc.

#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/operations.hpp>

#include <cub/device/device_scan.cuh>

#include <cstddef>
#include <type_traits>

namespace kleene::cuda::detail {

/// Whether the mask allows entry k (flags == nullptr: no mask).
__device__ __forceinline__ bool mask_allows(std::uint8_t const* __restrict__ flags, bool comp,
                                            std::size_t k) {
    return flags == nullptr || ((flags[k] != 0) != comp);
}

/// One dense output entry of C<M, replace> accum= T; returns the value stored (absent if none).
template <class Accum, class T>
__device__ __forceinline__ T combine(Accum const& accum, bool allowed, bool replace, T c, bool has_t,
                                     T t, T absent) {
    bool const has_c = !(c == absent);
    if (!allowed) return has_c && !replace ? c : absent;
    if constexpr (std::is_same_v<Accum, no_accum_t>) {
        (void)accum;
        (void)has_c;
        return has_t ? t : absent;
    } else {
        if (has_c && has_t) return accum.apply(c, t);
        if (has_t) return t;
        return has_c ? c : absent;
    }
}

/// row_ptr[0..rows] from per-row counts already in row_ptr[0..rows) (row_ptr[rows] = 0 on entry):
/// an exclusive scan in place; returns the total.
template <class Index>
std::size_t scan_counts(Index* row_ptr, std::size_t rows) {
    cub_temp temp;
    std::size_t bytes = 0;
    KLEENE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, row_ptr, row_ptr, rows + 1));
    KLEENE_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(temp.get(bytes), bytes, row_ptr, row_ptr, rows + 1));
    Index total = 0;
    KLEENE_CUDA_CHECK(cudaMemcpy(&total, row_ptr + rows, sizeof(Index), cudaMemcpyDeviceToHost));
    return static_cast<std::size_t>(total);
}

}  // namespace kleene::cuda::detail
