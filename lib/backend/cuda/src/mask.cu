// dense_mask (mask.hpp): the byte flags from a dense matrix, dense vector, sparse vector or CSR
// mask, made on the context's stream in stream-ordered memory.

#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
#include <kleene/cuda/detail/stream_memory.cuh>
#include <kleene/cuda/mask.hpp>

namespace kleene::cuda {
namespace {

template <class M>
__global__ void dense_flags_kernel(M const* __restrict__ m, std::size_t n, bool structural,
                                   std::uint8_t* __restrict__ flags) {
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
         k += std::size_t(gridDim.x) * blockDim.x)
        flags[k] = structural || !(m[k] == M(0));
}

template <class M, class I>
__global__ void sparse_flags_kernel(I const* __restrict__ idx, M const* __restrict__ vals,
                                    std::size_t nnz, bool structural,
                                    std::uint8_t* __restrict__ flags) {
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < nnz;
         k += std::size_t(gridDim.x) * blockDim.x)
        flags[idx[k]] = structural || !(vals[k] == M(0));
}

/// A warp a row of the CSR mask: its entries' flags in the row-major rows x cols array.
template <class M, class I>
__global__ void csr_flags_kernel(I const* __restrict__ ptr, I const* __restrict__ idx,
                                 M const* __restrict__ vals, std::size_t rows, std::size_t cols,
                                 bool structural, std::uint8_t* __restrict__ flags) {
    std::size_t const lane = threadIdx.x % 32;
    std::size_t const warps = std::size_t(gridDim.x) * (blockDim.x / 32);
    for (std::size_t i = (blockIdx.x * std::size_t(blockDim.x) + threadIdx.x) / 32; i < rows;
         i += warps) {
        std::uint8_t* const row = flags + i * cols;
        for (std::size_t p = std::size_t(ptr[i]) + lane; p < std::size_t(ptr[i + 1]); p += 32)
            row[idx[p]] = structural || !(vals[p] == M(0));
    }
}

/// The flags of n dense entries into b, on ctx's stream (nothing waited for).
template <class M>
void dense_flags(kleene::detail::stream_block& b, M const* m, std::size_t n, bool structural,
                 context& ctx) {
    detail::device_stream const st = detail::stream_of(ctx);
    std::uint8_t* const flags = detail::allocate_block<std::uint8_t>(b, n, st);
    if (n == 0) return;
    dense_flags_kernel<M>
        <<<detail::blocks_for(n, 256, 4096), 256, 0, st>>>(m, n, structural, flags);
    KLEENE_CUDA_CHECK_LAUNCH("dense_flags_kernel");
}

}  // namespace

template <class M>
dense_mask::dense_mask(mask_view<dense_matrix<M, device>> m, context& ctx)
    : size_(m.m->rows() * m.m->cols()), complemented_(m.complemented), active_(true) {
    dense_flags(flags_, m.m->data(), size_, m.structural, ctx);
}

template <class M>
dense_mask::dense_mask(mask_view<dense_vector<M, device>> m, context& ctx)
    : size_(m.m->size()), complemented_(m.complemented), active_(true) {
    dense_flags(flags_, m.m->data(), size_, m.structural, ctx);
}

template <class M, class I>
dense_mask::dense_mask(mask_view<sparse_vector<M, I, device>> m, context& ctx)
    : size_(m.m->size()), complemented_(m.complemented), active_(true) {
    detail::device_stream const st = detail::stream_of(ctx);
    std::uint8_t* const flags = detail::allocate_block<std::uint8_t>(flags_, size_, st);
    if (size_ == 0) return;
    KLEENE_CUDA_CHECK(cudaMemsetAsync(flags, 0, size_, st));
    if (std::size_t const nnz = m.m->nnz(); nnz > 0) {
        sparse_flags_kernel<M, I><<<detail::blocks_for(nnz, 256, 4096), 256, 0, st>>>(
            m.m->indices(), m.m->values(), nnz, m.structural, flags);
        KLEENE_CUDA_CHECK_LAUNCH("sparse_flags_kernel");
    }
}

template <class M, class I>
dense_mask::dense_mask(mask_view<csr_matrix<M, I, device>> m, context& ctx)
    : size_(m.m->rows() * m.m->cols()), complemented_(m.complemented), active_(true) {
    detail::device_stream const st = detail::stream_of(ctx);
    std::uint8_t* const flags = detail::allocate_block<std::uint8_t>(flags_, size_, st);
    if (size_ == 0) return;
    KLEENE_CUDA_CHECK(cudaMemsetAsync(flags, 0, size_, st));
    if (m.m->nnz() > 0) {
        std::size_t const rows = m.m->rows();
        csr_flags_kernel<M, I><<<detail::blocks_for(rows * 32, 256, 4096), 256, 0, st>>>(
            m.m->row_ptr(), m.m->col_idx(), m.m->values(), rows, m.m->cols(), m.structural,
            flags);
        KLEENE_CUDA_CHECK_LAUNCH("csr_flags_kernel");
    }
}

KLEENE_MASK_VALUE_TYPES(KLEENE_MASK_DECLARE)

}  // namespace kleene::cuda
