// Built instead of lib/cuda/src/apsp_batched.cu without CUDA: a clear error, never a silent
// fallback. The instances are those of the .cu file (KLEENE_APSP_BF_INSTANCES).

#include <cstdint>
#include <kleene/cuda/apsp_batched.hpp>
#include <kleene/cuda/detail/no_cuda.hpp>
#include <kleene/error.hpp>

namespace kleene::cuda {

template <class T, index_type Index>
dense_matrix<T> apsp_bellman_ford(csr_matrix<T, Index> const&, bellman_ford_options const&) {
    no_cuda::unavailable();
}

KLEENE_APSP_BF_INSTANCES

}  // namespace kleene::cuda
