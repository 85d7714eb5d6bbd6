// Built instead of lib/cuda/src/paths.cu without CUDA: a clear error, never a silent fallback.

#include <kleene/cuda/detail/no_cuda.hpp>
#include <kleene/cuda/paths.hpp>
#include <kleene/error.hpp>

namespace kleene::cuda {

template <class T>
void predecessors(csr_matrix<T, std::int32_t, device> const&, dense_view<T const, device>,
                  dense_view<std::int32_t, device>) {
    no_cuda::unavailable();
}
template void predecessors<float>(csr_matrix<float, std::int32_t, device> const&,
                                  dense_view<float const, device>, dense_view<std::int32_t, device>);
template void predecessors<double>(csr_matrix<double, std::int32_t, device> const&,
                                   dense_view<double const, device>, dense_view<std::int32_t, device>);
template void predecessors<std::int32_t>(csr_matrix<std::int32_t, std::int32_t, device> const&,
                                         dense_view<std::int32_t const, device>,
                                         dense_view<std::int32_t, device>);

}  // namespace kleene::cuda
