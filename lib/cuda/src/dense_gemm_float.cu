// Built-in instances of dense_gemm over float (one file per type so they compile in parallel).

#include <kleene/cuda/dense_gemm.cuh>
#include <kleene/cuda/detail/gemm_instances.hpp>

namespace kleene::cuda {
#define KLEENE_INSTANTIATE(semiring_template, T)                                                   \
    template void dense_gemm<semiring_template<T>>(dense_view<T const, device>,                   \
                                                   dense_view<T const, device>,                   \
                                                   dense_view<T, device>, bool);                  \
    template void dense_gemm<semiring_template<T>>(dense_view<T const, device>,                   \
                                                   dense_view<T const, device>,                   \
                                                   dense_view<T, device>, bool, stream const&,   \
                                                   context*);                                     \
    template void dense_gemm<semiring_template<T>>(dense_view<T const, device>,                   \
                                                   dense_view<T const, device>,                   \
                                                   dense_view<T, device>, bool, context&);
KLEENE_GEMM_NUMERIC_SEMIRINGS(KLEENE_INSTANTIATE, float)
}  // namespace kleene::cuda
