// Built instead of lib/cuda/src/mask.cu when kleene is configured without CUDA: a mask on device
// containers is a clear error, never a silent CPU fallback.

#include <kleene/cuda/detail/no_cuda.hpp>
#include <kleene/cuda/mask.hpp>

namespace kleene::cuda {
using no_cuda::unavailable;

template <class M>
dense_mask::dense_mask(mask_view<dense_matrix<M, device>>) {
    unavailable();
}
template <class M>
dense_mask::dense_mask(mask_view<dense_vector<M, device>>) {
    unavailable();
}
template <class M, class I>
dense_mask::dense_mask(mask_view<sparse_vector<M, I, device>>) {
    unavailable();
}

KLEENE_MASK_VALUE_TYPES(KLEENE_MASK_DECLARE)

}  // namespace kleene::cuda
