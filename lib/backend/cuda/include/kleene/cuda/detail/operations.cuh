#pragma once
// Device-side pieces shared by operations_*.cu: the GraphBLAS write-back of one output entry (the
// CPU's cpu::combine) and the CSR output built by a count pass, a CUB scan and a fill pass.
// Include only from code compiled by nvcc.

#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/cuda/operations.hpp>

#include <cub/device/device_scan.cuh>

#include <cstddef>
#include <string>
#include <type_traits>

namespace kleene::cuda::detail {

/// The mask's flags for kernels queued on st (nullptr: no mask), st ordered after the stream the
/// mask was made on when it is another (kleene/cuda/mask.hpp).
inline std::uint8_t const* mask_flags(dense_mask const& mask, cudaStream_t st) {
    if (!mask.active()) return nullptr;
    order_after(mask.stream(), st);
    return mask.flags();
}

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
/// an exclusive scan in place on st; returns the total (st's work done by then).
template <class Index>
std::size_t scan_counts(Index* row_ptr, std::size_t rows, device_stream st) {
    cub_temp temp(st);
    std::size_t bytes = 0;
    KLEENE_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(nullptr, bytes, row_ptr, row_ptr, rows + 1, st));
    KLEENE_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(temp.get(bytes), bytes, row_ptr, row_ptr, rows + 1, st));
    Index total = 0;
    KLEENE_CUDA_CHECK(cudaMemcpyAsync(&total, row_ptr + rows, sizeof(Index),
                                      cudaMemcpyDeviceToHost, st));
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    return static_cast<std::size_t>(total);
}

/// A CSR result built by two passes over its rows, on st: count(row_ptr) launches a kernel that
/// stores each row's entry count in row_ptr[0..rows), a CUB scan turns the counts into row
/// pointers, and fill(row_ptr, cols, vals) launches the kernel that writes the entries (not when
/// there are none). Both launch on st. `kernel` names the launches in errors. Returns with st's
/// work done.
template <class T, class Index, class Count, class Fill>
csr_matrix<T, Index, device> two_pass_csr(device_stream st, std::size_t rows, std::size_t cols,
                                          char const* kernel, Count&& count, Fill&& fill_rows) {
    auto const check_launch = [&](char const* pass) {
        std::string const what = std::string("launch of ") + kernel + " (" + pass + ")";
        check_cuda(cudaGetLastError(), what.c_str(), __FILE__, __LINE__);
    };
    buffer<Index, device> ptr(rows + 1);
    fill(ptr.data(), rows + 1, Index(0), st);
    if (rows > 0) {
        count(ptr.data());
        check_launch("count");
    }
    std::size_t const nnz = scan_counts(ptr.data(), rows, st);
    buffer<Index, device> out_cols(nnz);
    buffer<T, device> vals(nnz);
    if (nnz > 0) {
        fill_rows(ptr.data(), out_cols.data(), vals.data());
        check_launch("fill");
    }
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    return {rows, cols, std::move(ptr), std::move(out_cols), std::move(vals), T(1), true};
}

}  // namespace kleene::cuda::detail
