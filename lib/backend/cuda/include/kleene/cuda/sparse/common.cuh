#pragma once
// What the sparse products share (sparse.cuh includes them all): the mask as a kernel reads it, the
// context's scratch, the semiring helpers, the cuSPARSE entry points (sparse_cusparse.cu), the
// long-row slicing of SpMV and SpMM, and the argument checks (sparse_common.cu).

#pragma nv_diag_suppress 554  // see dense_gemm.cuh

#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/cuda/sparse/device_common.cuh>
#include <kleene/cuda/sparse.hpp>
#include <kleene/error.hpp>

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

namespace kleene::cuda {
namespace sparse_detail {

/// The mask as kernels on ctx's stream read it, that stream ordered after the mask's own when it
/// is another (mask.hpp).
inline mask_ref ref(vector_mask const& m, context const& ctx) {
    if (!m.active()) return mask_ref{};
    detail::order_after(m.stream(), detail::stream_of(ctx));
    return mask_ref{m.flags(), m.complemented()};
}

using detail::stream_of;

/// Device scratch of the context, reused across its calls (calls are synchronous). Each product
/// names the slots it uses at once; the returned memory is uninitialised.
void* scratch_bytes(context& ctx, int slot, std::size_t bytes);
template <class T>
T* scratch(context& ctx, int slot, std::size_t n) {
    return static_cast<T*>(scratch_bytes(ctx, slot, std::max<std::size_t>(n, 1) * sizeof(T)));
}
/// CUB temporary storage of the context (its own slot).
void* cub_scratch(context& ctx, std::size_t bytes);

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

/// deg[0..count) -> offs[0..count] (offs[0] = 0) with CUB, on ctx's stream.
inline void exclusive_offsets(context& ctx, std::int64_t const* deg, std::int64_t* offs,
                              std::int64_t count) {
    cudaStream_t const st = stream_of(ctx);
    KLEENE_CUDA_CHECK(cudaMemsetAsync(offs, 0, sizeof(std::int64_t), st));
    if (count == 0) return;
    std::size_t bytes = 0;
    KLEENE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, deg, offs + 1, count, st));
    KLEENE_CUDA_CHECK(cub::DeviceScan::InclusiveSum(cub_scratch(ctx, bytes), bytes, deg, offs + 1,
                                                    count, st));
}

/// p[0..n) replaced by its exclusive prefix sums, on st (no wait; CUB's scratch from st's pool).
template <class T>
void exclusive_sum_in_place(T* p, std::size_t n, cudaStream_t st) {
    std::size_t bytes = 0;
    KLEENE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, p, p, n, st));
    detail::stream_buffer<unsigned char> temp(bytes, st);
    KLEENE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), bytes, p, p, n, st));
}

/// Reads the long-row count, numbers their slices; returns the number of slices (work items).
/// On ctx's stream, which must hold the kernel that wrote *count_dev.
template <class Index>
std::int64_t number_slices(context& ctx, Index const* row_ptr, Index const* rows,
                           unsigned long long const* count_dev, std::int64_t slice,
                           std::int64_t*& offs, std::int64_t& count) {
    cudaStream_t const st = stream_of(ctx);
    unsigned long long c = 0;
    KLEENE_CUDA_CHECK(cudaMemcpyAsync(&c, count_dev, sizeof c, cudaMemcpyDeviceToHost, st));
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    count = static_cast<std::int64_t>(c);
    if (count == 0) return 0;
    auto* slices = scratch<std::int64_t>(ctx, 3, std::size_t(count));
    offs = scratch<std::int64_t>(ctx, 4, std::size_t(count) + 1);
    count_slices<Index><<<detail::blocks_for(std::size_t(count), 256), 256, 0, st>>>(
        row_ptr, rows, count, slice, slices);
    KLEENE_CUDA_CHECK_LAUNCH("count_slices");
    exclusive_offsets(ctx, slices, offs, count);
    std::int64_t total = 0;
    KLEENE_CUDA_CHECK(
        cudaMemcpyAsync(&total, offs + count, sizeof total, cudaMemcpyDeviceToHost, st));
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    return total;
}

[[noreturn]] void no_cusparse(char const* op, std::string const& why);
void check_vector(char const* op, char const* what, std::size_t got, std::size_t want);

}  // namespace sparse_detail
}  // namespace kleene::cuda
