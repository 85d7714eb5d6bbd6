// dense_mask (mask.hpp): the byte flags from a dense matrix, dense vector or sparse vector mask.

#include <kleene/cuda/check.cuh>
#include <kleene/cuda/detail/device.cuh>
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

template <class M>
buffer<std::uint8_t, device> dense_flags(M const* m, std::size_t n, bool structural,
                                         cudaStream_t st) {
    buffer<std::uint8_t, device> flags(n);
    if (n > 0) {
        dense_flags_kernel<M>
            <<<detail::blocks_for(n, 256, 4096), 256, 0, st>>>(m, n, structural, flags.data());
        KLEENE_CUDA_CHECK_LAUNCH("dense_flags_kernel");
        KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
    }
    return flags;
}

}  // namespace

template <class M>
dense_mask::dense_mask(mask_view<dense_matrix<M, device>> m, context& ctx)
    : flags_(dense_flags(m.m->data(), m.m->rows() * m.m->cols(), m.structural,
                         detail::stream_of(ctx))),
      complemented_(m.complemented),
      active_(true) {}

template <class M>
dense_mask::dense_mask(mask_view<dense_vector<M, device>> m, context& ctx)
    : flags_(dense_flags(m.m->data(), m.m->size(), m.structural, detail::stream_of(ctx))),
      complemented_(m.complemented),
      active_(true) {}

template <class M, class I>
dense_mask::dense_mask(mask_view<sparse_vector<M, I, device>> m, context& ctx)
    : flags_(m.m->size()), complemented_(m.complemented), active_(true) {
    std::size_t const n = m.m->size();
    if (n == 0) return;
    cudaStream_t const st = detail::stream_of(ctx);
    KLEENE_CUDA_CHECK(cudaMemsetAsync(flags_.data(), 0, n, st));
    if (std::size_t const nnz = m.m->nnz(); nnz > 0) {
        sparse_flags_kernel<M, I><<<detail::blocks_for(nnz, 256, 4096), 256, 0, st>>>(
            m.m->indices(), m.m->values(), nnz, m.structural, flags_.data());
        KLEENE_CUDA_CHECK_LAUNCH("sparse_flags_kernel");
    }
    KLEENE_CUDA_CHECK(cudaStreamSynchronize(st));
}

KLEENE_MASK_VALUE_TYPES(KLEENE_MASK_DECLARE)

}  // namespace kleene::cuda
