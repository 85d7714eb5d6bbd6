// The GPU entry points of kleene/cuda/apsp.hpp in a build without CUDA (lib/cuda/src/apsp.cu is
// not compiled then): every call throws no_device, never a silent CPU fallback.

#if !defined(KLEENE_HAVE_CUDA)

#include <kleene/cuda/detail/no_cuda.hpp>
#include <kleene/cuda/apsp.hpp>
#include <kleene/error.hpp>

#include <cstdint>

namespace kleene::cuda {
using no_cuda::unavailable;

template <class T>
void floyd_warshall_blocked(dense_view<T, device>) { unavailable(); }
template <class T>
void floyd_warshall_naive(dense_view<T, device>) { unavailable(); }
template <class T>
void min_into(dense_view<T, device>, dense_view<T const, device>) { unavailable(); }
template <class T>
void closure_diagonal(dense_view<T, device>) { unavailable(); }
template <class T>
std::int64_t first_negative_diagonal(dense_view<T const, device>) { unavailable(); }
void bit_warshall(bit_view<std::uint64_t>) { unavailable(); }
void or_into(bit_view<std::uint64_t>, bit_view<std::uint64_t const>) { unavailable(); }
void set_bit_diagonal(bit_view<std::uint64_t>) { unavailable(); }
std::size_t free_device_memory() noexcept { return 0; }

#define KLEENE_APSP_INSTANTIATE(T)                                                                 \
    template void floyd_warshall_blocked<T>(dense_view<T, device>);                               \
    template void floyd_warshall_naive<T>(dense_view<T, device>);                                 \
    template void min_into<T>(dense_view<T, device>, dense_view<T const, device>);                \
    template void closure_diagonal<T>(dense_view<T, device>);                                     \
    template std::int64_t first_negative_diagonal<T>(dense_view<T const, device>);
KLEENE_APSP_INSTANTIATE(float)
KLEENE_APSP_INSTANTIATE(double)
KLEENE_APSP_INSTANTIATE(std::int32_t)
#undef KLEENE_APSP_INSTANTIATE

}  // namespace kleene::cuda

#endif
